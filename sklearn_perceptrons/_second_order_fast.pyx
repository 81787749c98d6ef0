# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The compiled epoch of the second-order perceptron.

One function walks the given rows of X once and applies the second-order
perceptron rule (Cesa-Bianchi, Conconi & Gentile, 2005) to one or several
binary sub-problems (rows), chosen by the same class tables as the first-order
loop (``class_rows_ptr``, ``class_rows``, ``class_signs``).

Every row ``k`` keeps its weights ``w~ = A^-1 v`` (padded: ``[w; b]``) in
float64 and either the full inverse ``M = A^-1`` (``diagonal=False``, a
symmetric ``p x p`` matrix, ``p = n_features + fit_intercept``) or the
diagonal of ``A`` itself and ``v`` (``diagonal=True``).  A visit computes ``w~ . x~``,
O(nnz); a mistake (``s (w~ . x~) <= 0`` with a positive step ``c``) does

* full: ``z = M x~``, ``q = x~ . z``, ``w~ += c (s - w~ . x~) / (1 + c q) z``
  and ``M -= (c / (1 + c q)) z z^T`` (Sherman-Morrison), O(p^2): ``dsymv``
  on one triangle of ``M``, the downdates held back and applied 16 at a time
  by ``dsyrk`` (BLAS-3);
* diagonal: for every stored coordinate ``j`` of ``x~``, ``A_jj += c x_j^2``,
  ``v_j += c s x_j`` and ``w_j = v_j / A_jj`` (exactly, no drift), O(nnz).

Dense and CSR rows go through the same source: a row is a pointer to its
values, a pointer to its column indices (unused for dense rows) and a length.
The float32 and float64 specialisations of X come from the fused type
``floating``; the state is float64 in both, because the Sherman-Morrison
downdates of ``M`` accumulate rounding.  The walk holds no Python objects,
allocates nothing and runs without the GIL (the BLAS kernels are called
through scipy's ``cython_blas`` function pointers, which need no GIL).
"""

from cpython.pycapsule cimport PyCapsule_GetName, PyCapsule_GetPointer
from cython cimport floating
from libc.math cimport isfinite, isnan, sqrt

from ._rowops cimport dense_dot

from scipy.linalg import cython_blas as _cython_blas

# The symmetric BLAS-2 kernels of the BLAS scipy ships, taken from scipy's
# public Cython API at import time (no build-time dependency on scipy).
ctypedef void (*dsymv_ptr)(
    char* uplo, int* n, double* alpha, double* a, int* lda, double* x,
    int* incx, double* beta, double* y, int* incy) noexcept nogil
ctypedef void (*dgemv_ptr)(
    char* trans, int* m, int* n, double* alpha, double* a, int* lda,
    double* x, int* incx, double* beta, double* y, int* incy) noexcept nogil
ctypedef void (*dsyrk_ptr)(
    char* uplo, char* trans, int* n, int* k, double* alpha, double* a,
    int* lda, double* beta, double* c, int* ldc) noexcept nogil

# Rank-one downdates of A^-1 are applied PENDING at a time, as one rank-k
# update (BLAS-3 ``dsyrk``), which runs near the CPU's peak where PENDING
# separate ``dsyr`` calls would stream the matrix PENDING times.
DEF PENDING = 16


cdef void* _blas_function(str name) except NULL:
    capsule = _cython_blas.__pyx_capi__[name]
    return PyCapsule_GetPointer(capsule, PyCapsule_GetName(capsule))


cdef dsymv_ptr _dsymv = <dsymv_ptr>_blas_function("dsymv")
cdef dgemv_ptr _dgemv = <dgemv_ptr>_blas_function("dgemv")
cdef dsyrk_ptr _dsyrk = <dsyrk_ptr>_blas_function("dsyrk")


def pending_rows():
    """How many rank-one downdates a row may hold back (the buffer size)."""
    return PENDING


# The package's one prefetch, under the name this module uses.
cdef extern from "_prefetch.h":
    void SKP_SO_PREFETCH "SKP_PREFETCH"(const void* addr) noexcept nogil


cdef inline double _dot(
    const double* w, const floating* x_values, const int* x_indices,
    Py_ssize_t nnz, bint sparse,
) noexcept nogil:
    """``w . x`` for a dense row (``sparse=False``) or a CSR row."""
    cdef Py_ssize_t j
    cdef double s = 0.0
    if not sparse:
        return dense_dot(x_values, nnz, w)
    for j in range(nnz):
        s += w[x_indices[j]] * x_values[j]
    return s


cdef inline void _axpy(double* y, double alpha, const double* x,
                       Py_ssize_t n) noexcept nogil:
    """``y += alpha * x`` (a plain loop the compiler vectorizes)."""
    cdef Py_ssize_t j
    for j in range(n):
        y[j] += alpha * x[j]


cdef void _flush(double* M, double* pending, int* n_pending,
                 int p) noexcept nogil:
    """Apply the held-back downdates: ``M -= U U^T`` (U: the pending u's)."""
    cdef char uplo = b'U', trans = b'N'
    cdef double minus = -1.0, unit = 1.0
    if n_pending[0] > 0:
        _dsyrk(&uplo, &trans, &p, n_pending, &minus, pending, &p, &unit, M, &p)
        n_pending[0] = 0


cdef bint _full_update(
    double* w, double* b, double* M, double* pending, int* n_pending,
    double* work, Py_ssize_t n_features,
    bint fit_intercept, double c, double s, double raw,
    const floating* x_values, const int* x_indices, Py_ssize_t nnz, bint sparse,
    bint average, double* w_sum, double* b_sum, double visits,
) noexcept nogil:
    """The Sherman-Morrison step of one row on a mistake (see the module).

    The current inverse is ``M - U U^T``: ``M`` is symmetric, and only its
    upper triangle in BLAS (column-major) terms is read and written (the
    lower triangle of the row-major array); ``U`` holds the last
    ``n_pending`` downdates ``u = sqrt(c / (1 + c q)) z`` as columns
    (``pending``, column-major ``p x PENDING``), flushed into ``M`` when full.
    Returns True, before changing anything, when ``x~^T A^-1 x~`` overflowed.
    """
    cdef int p = n_features + fit_intercept
    cdef int one = 1
    cdef double* x = work
    cdef double* z = work + p
    cdef double* t = work + 2 * p
    cdef double* u
    cdef Py_ssize_t j
    cdef double q, g, r, zero = 0.0, unit = 1.0, minus = -1.0
    cdef char uplo = b'U', trans_t = b'T', trans_n = b'N'
    # x~ as a dense float64 vector: O(p), small beside the O(p^2) below.
    if sparse:
        for j in range(p):
            x[j] = 0.0
        for j in range(nnz):
            x[x_indices[j]] = x_values[j]
    else:
        for j in range(nnz):
            x[j] = x_values[j]
    if fit_intercept:
        x[n_features] = 1.0
    # z = (M - U U^T) x
    _dsymv(&uplo, &p, &unit, M, &p, x, &one, &zero, z, &one)
    if n_pending[0] > 0:
        _dgemv(&trans_t, &p, n_pending, &unit, pending, &p, x, &one, &zero,
               t, &one)
        _dgemv(&trans_n, &p, n_pending, &minus, pending, &p, t, &one, &unit,
               z, &one)
    q = 0.0
    for j in range(p):
        q += x[j] * z[j]
    if not isfinite(q):
        return True
    # M is positive definite, so q >= 0; rounding may not keep it so.
    if q < 0.0:
        q = 0.0
    g = c * (s - raw) / (1.0 + c * q)
    _axpy(w, g, z, n_features)
    if fit_intercept:
        b[0] += g * z[n_features]
    if average:
        # Daume's trick: the sum of the iterates over all visits is
        # T * w_T - sum over updates of (visits before it) * delta.
        _axpy(w_sum, g * visits, z, n_features)
        if fit_intercept:
            b_sum[0] += g * visits * z[n_features]
    r = sqrt(c / (1.0 + c * q))
    u = pending + n_pending[0] * p
    for j in range(p):
        u[j] = r * z[j]
    n_pending[0] += 1
    if n_pending[0] == PENDING:
        _flush(M, pending, n_pending, p)
    return False


cdef bint _diagonal_update(
    double* w, double* b, double* D, double* v, Py_ssize_t n_features,
    bint fit_intercept, double c, double s,
    const floating* x_values, const int* x_indices, Py_ssize_t nnz, bint sparse,
    bint average, double* w_sum, double* b_sum, double visits,
) noexcept nogil:
    """The diagonal step of one row on a mistake: ``A_jj += c x_j^2``,
    ``v_j += c s x_j`` and ``w_j = v_j / A_jj`` on the coordinates of x~.
    Returns True when ``A_jj`` or ``v_j`` overflowed (``w_j`` would silently
    become 0 or NaN)."""
    cdef Py_ssize_t j, col
    cdef double x, w_new
    for j in range(nnz):
        col = x_indices[j] if sparse else j
        x = x_values[j]
        D[col] += c * x * x
        v[col] += c * s * x
        if not (isfinite(D[col]) and isfinite(v[col])):
            return True
        w_new = v[col] / D[col]
        if average:
            w_sum[col] += visits * (w_new - w[col])
        w[col] = w_new
    if fit_intercept:
        D[n_features] += c
        v[n_features] += c * s
        if not (isfinite(D[n_features]) and isfinite(v[n_features])):
            return True
        w_new = v[n_features] / D[n_features]
        if average:
            b_sum[0] += visits * (w_new - b[0])
        b[0] = w_new
    return False


cdef bint _epoch(
    const floating* X_values, const int* X_indices, const int* X_indptr,
    bint sparse, Py_ssize_t n_features,
    const int* order, Py_ssize_t n_visits,
    const int* y_class, const double* step,
    const int* class_rows_ptr, const int* class_rows,
    const signed char* class_signs,
    double* coef, double* intercept, bint fit_intercept,
    const unsigned char* active,
    bint diagonal, double* inverse, double* precision, double* work,
    double* pending, int* n_pending,
    bint average, double* coef_sum, double* intercept_sum, double* visits,
    long long* updates, Py_ssize_t n_rows,
) noexcept nogil:
    """The pass; returns True, at once, on a score that is not a number
    (``w . x`` overflowed: inf - inf), which cannot be compared with 0, or
    on an update that overflowed (``x~^T A^-1 x~``, ``A_jj`` or ``v_j``); the
    held-back downdates are applied either way."""
    cdef Py_ssize_t p = n_features + fit_intercept
    cdef bint overflow = False
    cdef Py_ssize_t t, i, q, k, nnz, off, ahead_i
    cdef const floating* x_values
    cdef const int* x_indices = NULL
    cdef double raw, s, c
    # Rows visited out of order (shuffle) are prefetched a few visits ahead.
    cdef Py_ssize_t ahead = 4
    for t in range(n_visits):
        i = order[t]
        if t + ahead < n_visits and order[t + ahead] != i + ahead:
            ahead_i = order[t + ahead]
            if sparse:
                SKP_SO_PREFETCH(X_values + X_indptr[ahead_i])
                SKP_SO_PREFETCH(X_indices + X_indptr[ahead_i])
            else:
                off = 0
                while off < n_features and off < 256:
                    SKP_SO_PREFETCH(X_values + ahead_i * n_features + off)
                    off += 64 // sizeof(floating)
        if sparse:
            x_values = X_values + X_indptr[i]
            x_indices = X_indices + X_indptr[i]
            nnz = X_indptr[i + 1] - X_indptr[i]
        else:
            x_values = X_values + i * n_features
            nnz = n_features
        for q in range(class_rows_ptr[y_class[i]], class_rows_ptr[y_class[i] + 1]):
            k = class_rows[q]
            if not active[k]:
                continue
            raw = _dot(coef + k * n_features, x_values, x_indices, nnz, sparse)
            if fit_intercept:
                raw += intercept[k]
            s = class_signs[q]
            c = step[i]
            if isnan(raw):
                overflow = True
                break
            # A sample of weight zero never updates, so it is no mistake either.
            if s * raw <= 0.0 and c != 0.0:
                updates[k] += 1
                if diagonal:
                    overflow = _diagonal_update(
                        coef + k * n_features, intercept + k,
                        precision + 2 * k * p, precision + (2 * k + 1) * p,
                        n_features, fit_intercept, c, s,
                        x_values, x_indices, nnz, sparse,
                        average, coef_sum + k * n_features, intercept_sum + k,
                        visits[k],
                    )
                    if overflow:
                        break
                elif _full_update(
                        coef + k * n_features, intercept + k, inverse + k * p * p,
                        pending + k * PENDING * p, n_pending + k,
                        work, n_features, fit_intercept, c, s, raw,
                        x_values, x_indices, nnz, sparse,
                        average, coef_sum + k * n_features, intercept_sum + k,
                        visits[k]):
                    overflow = True
                    break
            visits[k] += 1.0
        if overflow:
            break
    if not diagonal:
        for k in range(n_rows):
            _flush(inverse + k * p * p, pending + k * PENDING * p,
                   n_pending + k, <int>p)
    return overflow


def epoch(
    const floating[::1] X_data,
    const int[::1] X_indices,
    const int[::1] X_indptr,
    bint sparse,
    const int[::1] order,
    const int[::1] y_class,
    const double[::1] step,
    const int[::1] class_rows_ptr,
    const int[::1] class_rows,
    const signed char[::1] class_signs,
    double[:, ::1] coef,
    double[::1] intercept,
    bint fit_intercept,
    const unsigned char[::1] active,
    bint diagonal,
    double[::1] inverse,
    double[::1] precision,
    double[::1] work,
    double[::1] pending,
    int[::1] n_pending,
    bint average,
    double[:, ::1] coef_sum,
    double[::1] intercept_sum,
    double[::1] visits,
    long long[::1] updates,
):
    """Run one pass of the second-order rule over the rows ``order`` of X.

    Parameters
    ----------
    X_data, X_indices, X_indptr : ndarrays
        Training data, float32 or float64: the CSR arrays (int32 indices),
        or for dense X its C-contiguous values (``X.reshape(-1)``) and two
        unused index arrays.
    sparse : bool
        Whether X is CSR.
    order : ndarray of int32
        Indices of the rows to visit, in visiting order.
    y_class : ndarray of int32 of shape (n_samples,)
        Class index of every sample (indexes ``class_rows_ptr``).
    step : ndarray of float64 of shape (n_samples,)
        Weight ``c`` of every sample, ``sample_weight * class_weight``.
    class_rows_ptr, class_rows, class_signs : ndarrays
        The rows touched by a sample of class ``c`` are
        ``class_rows[class_rows_ptr[c]:class_rows_ptr[c + 1]]``, each with the
        sign (+1 or -1) the sample takes in that row's binary problem.
    coef : ndarray of float64 of shape (n_rows, n_features)
        Weights ``w = (A^-1 v)[:n_features]``, updated in place.
    intercept : ndarray of float64 of shape (n_rows,)
        The padded coordinate of ``A^-1 v`` (only when ``fit_intercept``).
    fit_intercept : bool
        Whether the rows are padded with a constant feature 1.
    active : ndarray of uint8 of shape (n_rows,)
        Rows with ``active[k] == 0`` are frozen: no update, no visit counted.
    diagonal : bool
        Which state the rows keep: ``precision`` (diag(A) and v) or ``inverse``.
    inverse : ndarray of float64 of shape (n_rows * p * p,)
        The symmetric ``A^-1`` of every row, row-major (unused if diagonal).
    precision : ndarray of float64 of shape (n_rows * 2 * p,)
        ``diag(A)`` then ``v`` of every row (unused unless diagonal).
    work : ndarray of float64 of shape (2 * p + PENDING,)
        Scratch space for ``x~``, ``z = A^-1 x~`` and ``U^T x~``.
    pending : ndarray of float64 of shape (n_rows * PENDING * p,)
        Room for the held-back downdates of every row (unused if diagonal);
        all are applied before the pass returns.
    n_pending : ndarray of int32 of shape (n_rows,)
        Zeros (the number of held-back downdates of every row).
    average : bool
        Whether to accumulate ``coef_sum``, ``intercept_sum`` (Daume's trick).
    coef_sum, intercept_sum : ndarrays of float64
        Sums ``sum (visits before the update) * delta`` of every row.
    visits : ndarray of float64 of shape (n_rows,)
        Number of visits of every row so far; incremented in place.
    updates : ndarray of int64 of shape (n_rows,)
        Number of updates of every row; incremented in place.

    Returns
    -------
    overflow : bool
        True when the pass stopped early on a score ``w . x`` or an update
        that overflowed the floating-point range (the state is then left
        mid-pass).
    """
    # An all-zero CSR matrix has empty data: point at something valid anyway.
    cdef const floating* values = &X_data[0] if X_data.shape[0] else NULL
    cdef const int* indices = &X_indices[0] if X_indices.shape[0] else NULL
    cdef bint overflow
    if order.shape[0] == 0:
        return False
    with nogil:
        overflow = _epoch(
            values, indices, &X_indptr[0], sparse, coef.shape[1],
            &order[0], order.shape[0], &y_class[0], &step[0],
            &class_rows_ptr[0], &class_rows[0], &class_signs[0],
            &coef[0, 0], &intercept[0], fit_intercept, &active[0],
            diagonal, &inverse[0], &precision[0], &work[0],
            &pending[0], &n_pending[0],
            average, &coef_sum[0, 0], &intercept_sum[0], &visits[0], &updates[0],
            coef.shape[0],
        )
    return overflow
