# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The second-order perceptron's epoch, compiled for CPUs with AVX2 (see _second_order_core.pxi)."""

include "_second_order_core.pxi"
