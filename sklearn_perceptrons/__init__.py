# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""scikit-learn compatible perceptrons."""

from . import bounds, feasibility
from ._kernel import KernelPerceptron, VotedPerceptron
from ._linear import MarginPerceptron, Perceptron, SecondOrderPerceptron
from ._multiclass import OneVsAllPerceptron, OneVsOnePerceptron
from ._version import __version__

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
