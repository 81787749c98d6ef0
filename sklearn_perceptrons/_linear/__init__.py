# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The linear family: ``Perceptron``, ``MarginPerceptron`` and
``SecondOrderPerceptron``, their weight rows and their compiled epochs."""

from .._core.names import keep_module_name
from .margin import MarginPerceptron
from .perceptron import Perceptron
from .second_order import SecondOrderPerceptron

__all__ = ["MarginPerceptron", "Perceptron", "SecondOrderPerceptron"]

keep_module_name(__name__, Perceptron)
keep_module_name("sklearn_perceptrons._margin", MarginPerceptron)
keep_module_name("sklearn_perceptrons._second_order", SecondOrderPerceptron)
