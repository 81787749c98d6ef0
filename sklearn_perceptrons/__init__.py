# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""scikit-learn compatible perceptrons."""

from . import bounds
from ._linear import Perceptron
from ._version import __version__

__all__ = [
    "Perceptron",
    "bounds",
    "__version__",
]
