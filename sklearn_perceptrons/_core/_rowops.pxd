# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Row operations shared by the compiled loops: the rows of X and the
visits of a pass as structs, the dot product of a row of X (dense or CSR)
with weights, the feasibility solvers' dense dot product and axpy, and the
prefetch of a row of X ahead of its visit."""

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

# The package's dot products of a row of X with weight rows, one per
# (dense/CSR x dtype): the headers sum every one in the same eight partial
# sums, so that a dense row and the same row in CSR form give the same bits.
cdef extern from "_dense_dots.h":
    void skp_dense_dots_d(const double* const* w, Py_ssize_t count,
                          const double* x, Py_ssize_t n, double* out) noexcept nogil
    void skp_dense_dots_f(const float* const* w, Py_ssize_t count,
                          const float* x, Py_ssize_t n, float* out) noexcept nogil
    void skp_dense_dots_df(const double* const* w, Py_ssize_t count,
                           const float* x, Py_ssize_t n, double* out) noexcept nogil
    # One weight row: called directly, the compiler inlines it (the entry
    # point above, with its groups of rows, it would call).
    void skp_dense_dots1_d(const double* const* w, const double* x,
                           Py_ssize_t n, double* out) noexcept nogil
    void skp_dense_dots1_f(const float* const* w, const float* x,
                           Py_ssize_t n, float* out) noexcept nogil
    void skp_dense_dots1_df(const double* const* w, const float* x,
                            Py_ssize_t n, double* out) noexcept nogil

cdef extern from "_sparse_dots.h":
    void skp_sparse_dots_d(const double* const* w, Py_ssize_t count,
                           const double* x, const int* idx, Py_ssize_t nnz,
                           double* out) noexcept nogil
    void skp_sparse_dots_f(const float* const* w, Py_ssize_t count,
                           const float* x, const int* idx, Py_ssize_t nnz,
                           float* out) noexcept nogil
    void skp_sparse_dots_df(const double* const* w, Py_ssize_t count,
                            const float* x, const int* idx, Py_ssize_t nnz,
                            double* out) noexcept nogil


cdef inline floating row_dot(
    const floating* w, const floating* x_values, const int* x_indices,
    Py_ssize_t nnz, bint sparse,
) noexcept nogil:
    """``w . x`` of a dense row (``sparse=False``, ``nnz`` values) or a CSR
    row, in X's dtype (the linear walk's weights)."""
    cdef floating out
    if floating is double:
        if sparse:
            skp_sparse_dots_d(&w, 1, x_values, x_indices, nnz, &out)
        else:
            skp_dense_dots1_d(&w, x_values, nnz, &out)
    else:
        if sparse:
            skp_sparse_dots_f(&w, 1, x_values, x_indices, nnz, &out)
        else:
            skp_dense_dots1_f(&w, x_values, nnz, &out)
    return out


cdef inline double row_dot_wide(
    const double* w, const floating* x_values, const int* x_indices,
    Py_ssize_t nnz, bint sparse,
) noexcept nogil:
    """``w . x`` of a dense or a CSR row against float64 weights, in float64
    (float32 values widened exactly: the second-order state); for float64
    rows the bits of :func:`row_dot`."""
    cdef double out
    if floating is double:
        return row_dot(w, x_values, x_indices, nnz, sparse)
    if sparse:
        skp_sparse_dots_df(&w, 1, x_values, x_indices, nnz, &out)
    else:
        skp_dense_dots1_df(&w, x_values, nnz, &out)
    return out


cdef inline double dense_dot(const floating* a, Py_ssize_t m,
                             const double* x) noexcept nogil:
    """``a . x`` over m contiguous entries, accumulated in float64, in four
    partial sums: the feasibility solvers' dense dot product.  It stays
    apart from :func:`row_dot_wide` (eight sums) because its order is part
    of their results; its rows are short and its x a dense iterate."""
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
