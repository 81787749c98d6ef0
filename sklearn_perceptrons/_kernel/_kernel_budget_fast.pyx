# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The budgeted walk of the kernel perceptron, compiled for any CPU (see _kernel_budget_core.pxi)."""

include "_kernel_budget_core.pxi"
