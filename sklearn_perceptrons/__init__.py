# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""scikit-learn compatible perceptrons."""

from ._core.build import check_build

# Before anything that needs a compiled module: say what to do without one.
check_build()

from . import bounds, feasibility  # noqa: E402
from ._kernel import KernelPerceptron, VotedPerceptron  # noqa: E402
from ._linear import (  # noqa: E402
    ALMAClassifier,
    AROWClassifier,
    MarginPerceptron,
    PassiveAggressiveClassifier,
    Perceptron,
    ROMMAClassifier,
    SecondOrderPerceptron,
)
from ._multiclass import OneVsAllPerceptron, OneVsOnePerceptron  # noqa: E402
from ._version import __version__  # noqa: E402

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
