# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""scikit-learn compatible perceptrons."""

from . import bounds, feasibility
from ._kernel import KernelPerceptron, VotedPerceptron
from ._linear import (
    ALMAClassifier,
    AROWClassifier,
    MarginPerceptron,
    PassiveAggressiveClassifier,
    Perceptron,
    ROMMAClassifier,
    SecondOrderPerceptron,
)
from ._multiclass import OneVsAllPerceptron, OneVsOnePerceptron
from ._version import __version__

__all__ = [
    "ALMAClassifier",
    "AROWClassifier",
    "KernelPerceptron",
    "MarginPerceptron",
    "OneVsAllPerceptron",
    "OneVsOnePerceptron",
    "PassiveAggressiveClassifier",
    "Perceptron",
    "ROMMAClassifier",
    "SecondOrderPerceptron",
    "VotedPerceptron",
    "bounds",
    "feasibility",
    "__version__",
]
