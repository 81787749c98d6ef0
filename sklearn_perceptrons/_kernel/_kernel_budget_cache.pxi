# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The score cache of the budgeted walk, included by
``_kernel_budget_core.pxi`` (see its docstring and ``BudgetWalker._bind_cache``):
the kernel columns of the support vectors' slots over the training rows,
every row's scores kept up to date by the updates and removals, and the
store of columns by training row."""


cdef void _cache_add(State* s, Py_ssize_t slot, const double* v,
                     const double* da) noexcept nogil:
    """Add ``da[k] * v[i]`` to the cached score of row k of every sample
    i, v the kernel column of ``slot`` (``v`` NULL) or an n_cache-vector:
    the change of the cached scores when the coefficients of row k change
    by ``da[k]`` times v's coefficients, O(n_cache) per row k of nonzero
    ``da[k]``."""
    cdef Py_ssize_t i, k, K = s.K, n = s.n_cache
    cdef double a
    cdef const double* col = s.kc + slot * n if v == NULL else v
    cdef double* out
    for k in range(K):
        a = da[k]
        if a == 0.0:
            continue
        out = s.sc + k * n
        for i in range(n):
            out[i] += a * col[i]


cdef void _cache_removal(State* s, Py_ssize_t r, Py_ssize_t cnt,
                         bint carried) noexcept nogil:
    """The cached scores once vector r leaves: with ``carried`` its current
    coefficients went to the ``cnt`` neighbours of ``_carry_local``
    (``s.nb``, ``s.cvec``: a change of ``alpha[r] * (sum_a cvec[a] K'(x,
    sv_nb[a]) - K'(x, sv_r))``), else they are dropped.  O(n_cache * (cnt +
    the nonzero coefficients of r))."""
    cdef Py_ssize_t i, a, k, K = s.K, n = s.n_cache
    cdef double c
    cdef const double* col
    if not carried or cnt == 0:
        for k in range(K):
            s.dk1[k] = -s.alpha[r * K + k]
        _cache_add(s, r, NULL, s.dk1)
        return
    col = s.kc + r * n
    for i in range(n):
        s.cv[i] = -col[i]
    for a in range(cnt):
        c = s.cvec[a]
        col = s.kc + s.nb[a] * n
        for i in range(n):
            s.cv[i] += c * col[i]
    _cache_add(s, r, s.cv, s.alpha + r * K)


cdef void _fill_column(
    State* s, const floating* values, const MatrixView* X, const floating* sv,
    Py_ssize_t t,
) noexcept nogil:
    """kc[i, t] = K'(x_i, sv_t) for every row i of X, computed as a visit
    computes it (``_kernels`` on the one support vector t, bit for bit):
    O(n_cache * n_features), O(nnz) per CSR row."""
    cdef State one = s[0]
    cdef Py_ssize_t i, f, d = X.n_features, B = s.B, n = s.n_cache
    cdef const floating* xv
    cdef Probe x
    cdef double v, acc, u, w, u0, u1, u2, u3, a0, a1, a2, a3
    cdef bint need_stats = X.sparse or s.kind == KERNEL_COSINE
    cdef int mode = _mode(s.kind)
    cdef double* out = s.kc + t * n
    if not X.sparse and mode < 2 and d > 0 and s.gamma != 0.0:
        # The exponential kernels of dense rows: the distances of all rows
        # (each summed over the features in order, in double as
        # ``_dense_reductions`` subtracts float32 rows, the exponent clamped
        # as it folds it), then one vectorized exponential.  Four rows at a
        # time, a sum each, so that the additions of one row do not wait on
        # one another.
        i = 0
        while i + 4 <= n:
            xv = values + i * d
            a0 = a1 = a2 = a3 = 0.0
            for f in range(d):
                w = <double> sv[f * B + t]
                u0 = w - <double> xv[f]
                u1 = w - <double> xv[d + f]
                u2 = w - <double> xv[2 * d + f]
                u3 = w - <double> xv[3 * d + f]
                if mode == 0:
                    a0 += u0 * u0
                    a1 += u1 * u1
                    a2 += u2 * u2
                    a3 += u3 * u3
                else:
                    a0 += fabs(u0)
                    a1 += fabs(u1)
                    a2 += fabs(u2)
                    a3 += fabs(u3)
            out[i] = _clamp_log(-s.gamma * a0)
            out[i + 1] = _clamp_log(-s.gamma * a1)
            out[i + 2] = _clamp_log(-s.gamma * a2)
            out[i + 3] = _clamp_log(-s.gamma * a3)
            i += 4
        for i in range(i, n):
            xv = values + i * d
            acc = 0.0
            for f in range(d):
                u = <double> sv[f * B + t] - <double> xv[f]
                acc += u * u if mode == 0 else fabs(u)
            out[i] = _clamp_log(-s.gamma * acc)
        _exp_line(out, n, -s.gamma, s.add, True)
        return
    # Any other kernel: the visit's own kernels, on a set of one vector.
    one.sv_norm = s.sv_norm + t
    one.sv_row = s.sv_row + t
    x.idx = NULL
    x.nnz = d
    x.sparse = X.sparse
    x.sq = 0.0
    x.l1 = 0.0
    for i in range(s.n_cache):
        if X.sparse:
            xv = values + X.indptr[i]
            x.idx = X.indices + X.indptr[i]
            x.nnz = X.indptr[i + 1] - X.indptr[i]
        else:
            xv = values + i * d
        if need_stats:
            _row_stats(xv, &x)
        _kernels(&one, xv, &x, sv + t, 1, &v)
        s.kc[t * s.n_cache + i] = v


cdef void _slot_column(
    State* s, const floating* values, const MatrixView* X, const floating* sv,
    Py_ssize_t t,
) noexcept nogil:
    """The cache's column of slot t, the kernel values of its support
    vector's row: copied from the store of columns by row when that row's
    was computed before (the same values, bit for bit), else computed
    (``_fill_column``) and kept there when there is a store."""
    cdef Py_ssize_t n = s.n_cache, row = s.sv_row[t]
    cdef double* column = s.kc + t * n
    if s.kstore == NULL or row < 0 or row >= n:
        _fill_column(s, values, X, sv, t)
        return
    if s.kstore_done[row]:
        memcpy(column, s.kstore + row * n, n * sizeof(double))
        return
    _fill_column(s, values, X, sv, t)
    memcpy(s.kstore + row * n, column, n * sizeof(double))
    s.kstore_done[row] = 1
