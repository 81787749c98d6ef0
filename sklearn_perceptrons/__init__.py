# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""scikit-learn compatible perceptrons."""

from . import bounds, feasibility
from ._kernel import KernelPerceptron
from ._linear import Perceptron
from ._margin import MarginPerceptron
from ._multiclass import OneVsAllPerceptron, OneVsOnePerceptron
from ._second_order import SecondOrderPerceptron
from ._version import __version__
from ._voted import VotedPerceptron

__all__ = [
    "KernelPerceptron",
    "MarginPerceptron",
    "OneVsAllPerceptron",
    "OneVsOnePerceptron",
    "Perceptron",
    "SecondOrderPerceptron",
    "VotedPerceptron",
    "bounds",
    "feasibility",
    "__version__",
]
