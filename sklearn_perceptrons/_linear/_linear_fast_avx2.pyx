# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The epoch of the linear perceptrons, compiled for CPUs with AVX2: the plain
walk (_linear_epoch.pxi), the scaled walk (_linear_scaled.pxi) and the
one-row path (_linear_stream.pxi)."""

include "_linear_epoch.pxi"
include "_linear_scaled.pxi"
include "_linear_stream.pxi"
