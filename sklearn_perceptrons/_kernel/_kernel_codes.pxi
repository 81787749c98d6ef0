# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
# The codes that the compiled kernel walks and the Python layer share,
# defined here only: both walks include this file, and ``cpdef`` makes every
# code a module-level int of the compiled modules, which Python reads.

# Kernels.  KERNEL_PRECOMPUTED: the rows are those of a Gram matrix (a
# precomputed one or, in the budgeted walk, a block computed by a callable).
# KERNEL_CALLABLE: the unbudgeted walk stops for Python to compute a column.
cpdef enum:
    KERNEL_LINEAR = 0
    KERNEL_POLY = 1
    KERNEL_RBF = 2
    KERNEL_SIGMOID = 3
    KERNEL_LAPLACIAN = 4
    KERNEL_COSINE = 5
    KERNEL_PRECOMPUTED = 6
    KERNEL_CALLABLE = 7

# Budget strategies: which support vector leaves a full set.  The unbudgeted
# walk knows the first three; it runs the projections only with a budget
# that cannot bind.
cpdef enum:
    STRATEGY_FORGETRON = 0
    STRATEGY_RANDOM = 1
    STRATEGY_OLDEST = 2
    STRATEGY_PROJECTION = 3
    STRATEGY_LOCAL_PROJECTION = 4

# Why a walk returned.
cpdef enum:
    STATUS_DONE = 0
    STATUS_NEED_COLUMN = 1
    STATUS_NONFINITE_KERNEL = 2
    STATUS_NONFINITE_SCORE = 3
    # The budgeted walk's CSR store cannot take the visited row (nothing of
    # the visit is done: grow the store and resume at the same visit).
    STATUS_GROW = 4
