# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""scikit-learn compatible perceptrons."""

from ._core.build import check_build

# Before anything that needs a compiled module: say what to do without one.
check_build()

from . import bounds, feasibility  # noqa: E402
from ._kernel import KernelPerceptron, VotedPerceptron  # noqa: E402
from ._linear import MarginPerceptron, Perceptron, SecondOrderPerceptron  # noqa: E402
from ._multiclass import OneVsAllPerceptron, OneVsOnePerceptron  # noqa: E402
from ._version import __version__  # noqa: E402

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
