# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Row operations shared by the compiled loops: the rows of X and the
visits of a pass as structs, the dense dot product and axpy on contiguous
entries, accumulated in float64, and the prefetch of a row of X (dense or
CSR) ahead of its visit."""

from cython cimport floating


# Structs cannot hold a fused type, so the float32 or float64 values are a
# ``void`` pointer that the fused functions cast back to ``floating``.
cdef struct XRows:
    # The rows of X: dense (``values`` is n_samples x n_features) or CSR.
    const void* values      # floating; NULL for an empty CSR matrix
    const int* indices      # CSR only: the column of every stored value
    const int* indptr       # CSR only: n_samples + 1 offsets
    Py_ssize_t n_features
    bint sparse


cdef struct Visits:
    # Which samples the pass visits, in order, and the weight rows each
    # touches: class c's rows are rows[rows_ptr[c]:rows_ptr[c + 1]], with
    # the sign of the sample in each.
    const int* order
    Py_ssize_t n_visits
    const int* y_class
    const double* step
    const int* rows_ptr
    const int* rows
    const signed char* signs
    const unsigned char* active


cdef extern from "_prefetch.h":
    void SKP_PREFETCH(const void* addr) noexcept nogil
    void SKP_PREFETCH_L2(const void* addr) noexcept nogil


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


cdef inline void prefetch_row(
    const floating* X_values, const int* X_indices, const int* X_indptr,
    bint sparse, Py_ssize_t n_features, Py_ssize_t i, bint to_l2,
) noexcept nogil:
    """Ask the CPU for row ``i`` of X (values, and column indices if CSR)
    ahead of time, into the first-level cache or (``to_l2``) the second; at
    most 1 KiB of values, one prefetch per 64-byte cache line."""
    cdef Py_ssize_t start, length, offset = 0
    cdef Py_ssize_t per_line = 64 // sizeof(floating)
    if sparse:
        start = X_indptr[i]
        length = X_indptr[i + 1] - start
    else:
        start = i * n_features
        length = n_features
    length = min(length, 16 * per_line)
    while offset < length:
        if to_l2:
            SKP_PREFETCH_L2(X_values + start + offset)
            if sparse:
                SKP_PREFETCH_L2(X_indices + start + offset)
        else:
            SKP_PREFETCH(X_values + start + offset)
            if sparse:
                SKP_PREFETCH(X_indices + start + offset)
        offset += per_line
