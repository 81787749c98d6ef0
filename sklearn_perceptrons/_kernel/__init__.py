# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The kernel family: ``KernelPerceptron`` (with its budgeted walk and its
one-row stream) and ``VotedPerceptron``, and their compiled walks."""

from .._core.names import keep_module_name
from .kernel import KernelPerceptron
from .voted import VotedPerceptron

__all__ = ["KernelPerceptron", "VotedPerceptron"]

keep_module_name(__name__, KernelPerceptron)
keep_module_name("sklearn_perceptrons._voted", VotedPerceptron)
