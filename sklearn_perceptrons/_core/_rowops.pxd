# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Row operations shared by the compiled loops: the dense dot product and
axpy on contiguous entries, accumulated in float64."""

from cython cimport floating


cdef inline double dense_dot(const floating* a, Py_ssize_t m,
                             const double* x) noexcept nogil:
    """``a . x`` over m contiguous entries, accumulated in float64."""
    cdef Py_ssize_t k = 0
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    # Four partial sums break the dependency chain of the reduction (the
    # compiler may not reassociate floating-point additions); the order is
    # fixed, so results stay deterministic.
    while k + 4 <= m:
        s0 += a[k] * x[k]
        s1 += a[k + 1] * x[k + 1]
        s2 += a[k + 2] * x[k + 2]
        s3 += a[k + 3] * x[k + 3]
        k += 4
    while k < m:
        s0 += a[k] * x[k]
        k += 1
    return (s0 + s1) + (s2 + s3)


cdef inline void dense_axpy(const floating* a, Py_ssize_t m, double alpha,
                            double* x) noexcept nogil:
    """``x <- x + alpha * a`` over m contiguous entries."""
    cdef Py_ssize_t k
    for k in range(m):
        x[k] += alpha * a[k]
