# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The second-order perceptron's epoch, compiled for any CPU (see _second_order_core.pxi)."""

include "_second_order_core.pxi"
