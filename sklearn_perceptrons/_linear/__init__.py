# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The linear family: ``Perceptron``, ``MarginPerceptron``,
``SecondOrderPerceptron`` and the online family (``PassiveAggressiveClassifier``,
``ALMAClassifier``, ``ROMMAClassifier``, ``AROWClassifier``), their weight rows
and their compiled epochs."""

from .._core.names import keep_module_name
from .margin import MarginPerceptron
from .online import (
    ALMAClassifier,
    AROWClassifier,
    PassiveAggressiveClassifier,
    ROMMAClassifier,
)
from .perceptron import Perceptron
from .second_order import SecondOrderPerceptron

__all__ = [
    "ALMAClassifier",
    "AROWClassifier",
    "MarginPerceptron",
    "PassiveAggressiveClassifier",
    "Perceptron",
    "ROMMAClassifier",
    "SecondOrderPerceptron",
]

keep_module_name(__name__, Perceptron, PassiveAggressiveClassifier,
                 ALMAClassifier, ROMMAClassifier, AROWClassifier)
keep_module_name("sklearn_perceptrons._margin", MarginPerceptron)
keep_module_name("sklearn_perceptrons._second_order", SecondOrderPerceptron)
