# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
# The kernel values of the budgeted walk, included by
# ``_kernel_budget_core.pxi`` after its structs (``State``, ``Probe``):
# K'(sv_j, x) for a visited row and K'(sv_r, sv_j) among support vectors,
# from the dense feature-major store or from the CSR store (the runs of a
# pool, see ``_kernel_budget_core.pxi``), and the compaction of that pool.
# Every sum runs over the features in increasing order, as the dense store
# sums them, so that both stores give the same values bit for bit.

# -- kernels -------------------------------------------------------------------

cdef inline double _int_power(double base, int n) noexcept nogil:
    cdef double out = 1.0
    while n > 0:
        if n & 1:
            out *= base
        base *= base
        n >>= 1
    return out


cdef inline double _transform(State* s, double dot) noexcept nogil:
    """A dot-product kernel from its dot product (not cosine)."""
    if s.kind == KERNEL_POLY:
        return _int_power(s.gamma * dot + s.coef0, s.degree)
    if s.kind == KERNEL_SIGMOID:
        return tanh(s.gamma * dot + s.coef0)
    return dot


cdef inline double _self_kernel(State* s, double sq, double norm1) noexcept nogil:
    """K(x, x) + add, from ||x||^2 (and ||x||_1, unused)."""
    if s.kind == KERNEL_RBF or s.kind == KERNEL_LAPLACIAN:
        return 1.0 + s.add
    if s.kind == KERNEL_COSINE:
        return (1.0 if sq > 0.0 else 0.0) + s.add
    return _transform(s, sq) + s.add


cdef inline double _norm_stat(State* s, double sq, double norm1) noexcept nogil:
    """What the kernels keep about a support vector: ||v||^2 (rbf), ||v||_1
    (laplacian) or ||v|| (cosine)."""
    if s.kind == KERNEL_LAPLACIAN:
        return norm1
    if s.kind == KERNEL_COSINE:
        return sqrt(sq)
    return sq


cdef inline double _clamp_log(double t) noexcept nogil:
    """t clamped to the domain of skp_exp; a NaN passes through, to be
    reported as a non-finite score."""
    return SKP_LOG_DBL_MIN if t < SKP_LOG_DBL_MIN else t


cdef void _exp_line(double* v, Py_ssize_t n, double scale, double add,
                    bint clamped=False) noexcept nogil:
    """v[j] = exp(scale * v[j]) + add, for scale * v[j] <= 0, in two loops:
    GCC vectorizes each, not one loop doing both (``clamped``: v already
    holds the clamped exponents)."""
    cdef Py_ssize_t j
    if not clamped:
        for j in range(n):
            v[j] = _clamp_log(scale * v[j])
    for j in range(n):
        v[j] = skp_exp(v[j]) + add


cdef void _dense_reductions(
    int mode, const floating* sv, Py_ssize_t ld, Py_ssize_t n, Py_ssize_t d,
    const floating* x, double* out, double scale=0.0,
) noexcept nogil:
    """out[j] = |sv_j - x|^2 (mode 0), |sv_j - x|_1 (mode 1) or sv_j . x
    (mode 2) for the first n feature-major support vectors (feature f of
    vector j at ``f * ld + j``), summed over the features in order.  With
    a ``scale`` (modes 0 and 1, d >= 1), out[j] is the exponent of the
    kernel, the distance times ``scale`` clamped as ``_exp_line`` clamps
    it, computed in the loop of the last feature (one pass fewer)."""
    cdef Py_ssize_t j, f
    cdef const floating* col
    cdef double v, t
    cdef bint fold = scale != 0.0 and mode < 2
    if d == 0:
        for j in range(n):
            out[j] = 0.0
        return
    # The first feature writes, the others add (0 + a == a).
    col = sv
    v = x[0]
    if fold and d == 1:
        if mode == 0:
            for j in range(n):
                t = col[j] - v
                out[j] = _clamp_log(scale * (t * t))
        else:
            for j in range(n):
                out[j] = _clamp_log(scale * fabs(col[j] - v))
        return
    if mode == 0:
        for j in range(n):
            t = col[j] - v
            out[j] = t * t
    elif mode == 1:
        for j in range(n):
            out[j] = fabs(col[j] - v)
    else:
        for j in range(n):
            out[j] = col[j] * v
    for f in range(1, d - 1 if fold else d):
        col = sv + f * ld
        v = x[f]
        if mode == 0:
            for j in range(n):
                t = col[j] - v
                out[j] += t * t
        elif mode == 1:
            for j in range(n):
                out[j] += fabs(col[j] - v)
        else:
            for j in range(n):
                out[j] += col[j] * v
    if fold:
        col = sv + (d - 1) * ld
        v = x[d - 1]
        if mode == 0:
            for j in range(n):
                t = col[j] - v
                out[j] = _clamp_log(scale * (out[j] + t * t))
        else:
            for j in range(n):
                out[j] = _clamp_log(scale * (out[j] + fabs(col[j] - v)))


cdef void _sparse_reductions(
    int mode, const floating* sv, Py_ssize_t ld, Py_ssize_t n, Py_ssize_t nnz,
    const int* idx, const floating* x, double* out,
) noexcept nogil:
    """Add to out[j] the dot product of sv_j with the sparse x (``nnz``
    values at ``idx``), or with mode 1 the L1 correction
    ``|a - x_f| - |a|`` of each stored feature f (out starting at |sv_j|_1)."""
    cdef Py_ssize_t j, p
    cdef const floating* col
    cdef double v, a
    for p in range(nnz):
        col = sv + <Py_ssize_t> idx[p] * ld
        v = x[p]
        if mode == 1:
            for j in range(n):
                a = col[j]
                out[j] += fabs(a - v) - fabs(a)
        else:
            for j in range(n):
                out[j] += col[j] * v


cdef inline uint32_t _slot_of(int f, int shift) noexcept nogil:
    """The first slot of feature f in a table of ``2**(32 - shift)`` slots:
    Fibonacci hashing (the high bits of a product by 2**32 / phi), which
    spreads runs of neighbouring features (one-hot columns) over the
    table."""
    return (<uint32_t> f * <uint32_t> 2654435769u) >> shift


cdef int _probe_table(
    State* s, const floating* xv, const Probe* x,
) noexcept nogil:
    """Fill the hash table with the stored features of x (open addressing
    with linear probing, at most a quarter full, so that a look-up probes
    few slots); returns the shift of ``_slot_of``.  Empty slots hold key -1
    and value 0, so that a look-up of a feature x does not store finds 0."""
    cdef uint32_t size = 16, mask, h
    cdef int shift = 28
    cdef Py_ssize_t p
    while size < 4 * x.nnz:
        size *= 2
        shift -= 1
    mask = size - 1
    for p in range(size):
        s.table_keys[p] = -1
        s.table_values[p] = 0.0
    for p in range(x.nnz):
        h = _slot_of(x.idx[p], shift)
        while s.table_keys[h] != -1:
            h = (h + 1) & mask
        s.table_keys[h] = x.idx[p]
        s.table_values[h] = xv[p]
    return shift


cdef void _pool_reductions(
    int mode, State* s, const floating* pool, Py_ssize_t n,
    const floating* xv, const Probe* x, double* out,
) noexcept nogil:
    """The CSR store's ``_sparse_reductions``: out[j] = the dot product of
    sv_j with the CSR row x, or with mode 1 ``|sv_j|_1`` plus the L1
    correction ``|a - x_f| - |a|`` of each stored feature f of x, for the
    first n runs of the pool, summed over the features in increasing order
    (as the dense buffer sums them: the terms of a feature that one of the
    two rows does not store add nothing to a dot product, and ``|x_f|`` to
    an L1 distance, where x's order must be followed).  A dot product looks
    the features of sv_j up in a hash table of x: O(nnz(sv_j)) per vector;
    an L1 distance merges the two rows: O(nnz(x) + nnz(sv_j))."""
    cdef Py_ssize_t j, p, q, na
    cdef const floating* av
    cdef const int* ai
    cdef double acc, v, a
    cdef int f
    cdef uint32_t mask, h
    cdef int shift
    if mode != 1:
        shift = _probe_table(s, xv, x)
        mask = (<uint32_t> 0xFFFFFFFFu) >> shift
        for j in range(n):
            av = pool + s.sv_start[j]
            ai = s.pool_index + s.sv_start[j]
            acc = 0.0
            for q in range(s.sv_len[j]):
                f = ai[q]
                h = _slot_of(f, shift)
                while s.table_keys[h] != f and s.table_keys[h] != -1:
                    h = (h + 1) & mask
                # A feature x does not store reads 0: the product adds
                # nothing (a sum from +0 never becomes -0).
                a = av[q]
                acc += a * s.table_values[h]
            out[j] = acc
        return
    for j in range(n):
        av = pool + s.sv_start[j]
        ai = s.pool_index + s.sv_start[j]
        na = s.sv_len[j]
        acc = s.sv_norm[j] if mode == 1 else 0.0
        q = 0
        for p in range(x.nnz):
            f = x.idx[p]
            v = xv[p]
            while q < na and ai[q] < f:
                q += 1
            if q < na and ai[q] == f:
                a = av[q]
                if mode == 1:
                    acc += fabs(a - v) - fabs(a)
                else:
                    acc += a * v
            elif mode == 1:
                acc += fabs(v)
        out[j] = acc


cdef double _pool_pair(int mode, State* s, const floating* pool, Py_ssize_t a,
                       Py_ssize_t b) noexcept nogil:
    """The reduction of the runs a and b of the CSR store, summed over the
    features either stores, in increasing order, as the dense buffer sums
    over all features (a feature neither stores adds nothing): mode 0 the
    squared distance, 1 the L1 distance, 2 the dot product."""
    cdef const floating* av = pool + s.sv_start[a]
    cdef const floating* bv = pool + s.sv_start[b]
    cdef const int* ai = s.pool_index + s.sv_start[a]
    cdef const int* bi = s.pool_index + s.sv_start[b]
    cdef Py_ssize_t p = 0, q = 0, na = s.sv_len[a], nb = s.sv_len[b]
    cdef double acc = 0.0, x, y
    while p < na or q < nb:
        if q >= nb or (p < na and ai[p] < bi[q]):
            x = av[p]
            y = 0.0
            p += 1
        elif p >= na or bi[q] < ai[p]:
            x = 0.0
            y = bv[q]
            q += 1
        else:
            x = av[p]
            y = bv[q]
            p += 1
            q += 1
        if mode == 0:
            acc += (x - y) * (x - y)
        elif mode == 1:
            acc += fabs(x - y)
        else:
            acc += x * y
    return acc


cdef double _finish_kernels(
    State* s, double* out, Py_ssize_t n_sv, int mode, bint folded,
    double x_sq, const double* alpha,
) noexcept nogil:
    """Turn the reductions ``out`` of ``_kernels`` into K(sv_j, x) + add;
    with ``alpha``, return the dot product of out with it (else 0)."""
    cdef Py_ssize_t j
    cdef double xn
    if mode < 2:
        _exp_line(out, n_sv, -s.gamma, s.add, folded)
        return skp_dot_d(out, alpha, n_sv) if alpha != NULL else 0.0
    if s.kind == KERNEL_COSINE:
        xn = sqrt(x_sq)
        for j in range(n_sv):
            out[j] = (out[j] / (s.sv_norm[j] * xn)
                      if s.sv_norm[j] > 0.0 and xn > 0.0 else 0.0)
    elif s.kind != KERNEL_LINEAR:
        for j in range(n_sv):
            out[j] = _transform(s, out[j])
    for j in range(n_sv):
        out[j] += s.add
    return skp_dot_d(out, alpha, n_sv) if alpha != NULL else 0.0


cdef inline int _mode(int kind) noexcept nogil:
    """The reduction of a kernel: 0 squared distances, 1 L1 distances, 2
    dot products."""
    return 0 if kind == KERNEL_RBF else (1 if kind == KERNEL_LAPLACIAN else 2)


cdef double _kernels(
    State* s, const floating* xv, const Probe* x, const floating* sv,
    Py_ssize_t n_sv, double* out, const double* alpha=NULL,
) noexcept nogil:
    """out[j] = K(sv_j, x) + add for the first ``n_sv`` support vectors; x is
    the row of values ``xv`` described by ``x``.

    The dense store ``sv`` is feature-major (feature f of vector j at ``f *
    B + j``): every loop below runs over the support vectors with unit
    stride, so that it is vectorized whatever the number of features.  The
    CSR store (a CSR x) costs O(nnz) per support vector.  With ``alpha``
    (one coefficient per vector) returns the dot product of out with it,
    as ``skp_dot_d`` computes it; otherwise 0."""
    cdef Py_ssize_t j, d = s.d, B = s.B
    cdef double t, x_sq = x.sq
    cdef bint sparse = x.sparse
    cdef int kind = s.kind
    cdef int mode = _mode(kind)
    cdef bint folded = not sparse and mode < 2 and d > 0 and s.gamma != 0.0
    if kind == KERNEL_PRECOMPUTED:
        for j in range(n_sv):
            out[j] = xv[s.sv_row[j]] + s.add
        return skp_dot_d(out, alpha, n_sv) if alpha != NULL else 0.0
    if not sparse:
        _dense_reductions(mode, sv, B, n_sv, d, xv, out,
                          -s.gamma if folded else 0.0)
    else:
        if s.sparse_store:
            _pool_reductions(mode, s, sv, n_sv, xv, x, out)
        else:
            if mode == 1:
                for j in range(n_sv):
                    out[j] = s.sv_norm[j]
            else:
                for j in range(n_sv):
                    out[j] = 0.0
            _sparse_reductions(mode, sv, B, n_sv, x.nnz, x.idx, xv, out)
        if mode == 0:
            # |a - x|^2 from the norms (clipped at 0 against rounding).
            for j in range(n_sv):
                t = s.sv_norm[j] + x_sq - 2.0 * out[j]
                out[j] = t if t > 0.0 else 0.0
        elif mode == 1:
            for j in range(n_sv):
                if out[j] < 0.0:
                    out[j] = 0.0
    return _finish_kernels(s, out, n_sv, mode, folded, x_sq, alpha)


cdef void _kernels_of_sv(
    State* s, floating* sv, floating* col, Py_ssize_t r, Py_ssize_t n_sv,
    double* out,
) noexcept nogil:
    """out[j] = K'(sv_r, sv_j), with support vector r gathered into ``col``
    (dense store) or by runs of the pool (CSR store), as the kernels of a
    dense row r."""
    cdef Py_ssize_t f, j
    cdef double a
    cdef int mode
    cdef Probe x
    if s.sparse_store:
        mode = _mode(s.kind)
        x.sq = 0.0
        for f in range(s.sv_start[r], s.sv_start[r] + s.sv_len[r]):
            a = sv[f]
            x.sq += a * a
        for j in range(n_sv):
            out[j] = _pool_pair(mode, s, sv, r, j)
        if mode < 2 and s.gamma != 0.0:
            # The exponent as the dense store folds it.
            for j in range(n_sv):
                out[j] = _clamp_log(-s.gamma * out[j])
        _finish_kernels(s, out, n_sv, mode, mode < 2 and s.gamma != 0.0, x.sq,
                        NULL)
        return
    x.idx = NULL
    x.nnz = s.d
    x.sparse = False
    x.sq = 0.0
    x.l1 = 0.0
    for f in range(s.d):
        a = sv[f * s.B + r]
        col[f] = sv[f * s.B + r]
        x.sq += a * a
    _kernels(s, <const floating*> col, &x, <const floating*> sv, n_sv, out)


cdef inline void _row_stats(const floating* xv, Probe* x) noexcept nogil:
    """The squared and L1 norms of the row ``xv`` of ``x``."""
    cdef Py_ssize_t f
    cdef double a
    x.sq = 0.0
    x.l1 = 0.0
    for f in range(x.nnz):
        a = xv[f]
        x.sq += a * a
        x.l1 += fabs(a)


# -- the CSR store's pool ------------------------------------------------------

cdef int _cmp_int64(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*> a)[0], y = (<const int64_t*> b)[0]
    return (x > y) - (x < y)


cdef void _compact(State* s, floating* pool) noexcept nogil:
    """Move the runs of the support vectors to the front of the pool, in
    the order they lie in it (runs of removed vectors are dropped): O(B log
    B + the values of the runs).  Nothing else changes."""
    cdef Py_ssize_t k, j, f, n = s.counters[C_N_SV], B = s.B
    cdef int64_t end = 0, start
    for j in range(n):
        s.pool_order[j] = s.sv_start[j] * B + j
    qsort(s.pool_order, n, sizeof(int64_t), _cmp_int64)
    for k in range(n):
        j = s.pool_order[k] % B
        start = s.sv_start[j]
        # Runs only move towards the front: a forward copy is safe.
        if start != end:
            for f in range(s.sv_len[j]):
                pool[end + f] = pool[start + f]
                s.pool_index[end + f] = s.pool_index[start + f]
            s.sv_start[j] = end
        end += s.sv_len[j]
    s.counters[C_POOL_END] = end
    s.counters[C_POOL_LIVE] = end
