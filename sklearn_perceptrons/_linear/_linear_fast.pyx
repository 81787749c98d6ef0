# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The epoch of the linear perceptrons, compiled for any CPU (see _linear_epoch.pxi)."""

include "_linear_epoch.pxi"
