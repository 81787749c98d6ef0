# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The compiled epoch of the second-order perceptron, included by
``_second_order_fast.pyx`` and its AVX2 twin ``_second_order_fast_avx2.pyx``.

One function walks the given rows of X once and applies the second-order
perceptron rule (Cesa-Bianchi, Conconi & Gentile, 2005) to one or several
binary sub-problems (rows), chosen by the same class tables as the first-order
loop (``class_rows_ptr``, ``class_rows``, ``class_signs``).

Every row ``k`` keeps its weights ``w~ = A^-1 v`` (padded: ``[w; b]``) in
float64 and either the full inverse ``M = A^-1`` (``diagonal=False``, a
symmetric matrix of ``p = n_features + fit_intercept`` rows, zero-padded to
``pp`` = p rounded up to a multiple of 4, of which the 4 x 4 blocks on and
below the diagonal are stored, packed) or the
diagonal of ``A`` itself and ``v`` (``diagonal=True``).  A visit computes
``w~ . x~``, O(nnz); a mistake (``s (w~ . x~) <= 0`` with a positive step
``c``) does

* full: ``z = M x~``, ``q = x~ . z``, ``w~ += c (s - w~ . x~) / (1 + c q) z``
  and ``M -= u u^T`` with ``u = sqrt(c / (1 + c q)) z`` (Sherman-Morrison),
  O(p^2).  The downdate is held back until the row's next mistake, whose
  product ``M x~`` it joins: one pass over the stored half of ``M`` per
  mistake, each entry read and written once (``_second_order_fast.h``);
* diagonal: for every stored coordinate ``j`` of ``x~``, ``A_jj += c x_j^2``,
  ``v_j += c s x_j`` and ``w_j = v_j / A_jj`` (exactly, no drift), O(nnz);
  ``A_jj`` and ``v_j`` are stored side by side.

``rule`` says which samples update: ``SO_MISTAKE`` (the second-order
perceptron) on a mistake, ``s (w~ . x~) <= 0``; ``SO_AROW`` (AROW, Crammer,
Kulesza & Dredze 2009) on a positive hinge loss, ``s (w~ . x~) < 1``.  With
``a = r``, AROW's mean is exactly ``A^-1 v`` over its updates and the full
update above is AROW's (its covariance is ``r M``).  AROW's diagonal form
keeps the diagonal of ``A`` only and moves the mean along it:
``z_j = x_j / A_jj``, ``w~ += c (s - w~ . x~) / (1 + c x~ . z) z``, then
``A_jj += c x_j^2`` (its ``v_j`` slot holds ``1 / A_jj``), O(nnz).

Dense and CSR rows go through the same source: a row is a pointer to its
values, a pointer to its column indices (unused for dense rows) and a length.
The float32 and float64 specialisations of X come from the fused type
``floating``; the state is float64 in both, because the Sherman-Morrison
downdates of ``M`` accumulate rounding.  The walk holds no Python objects,
allocates nothing and runs without the GIL.
"""

from cython cimport floating

from .._core._rowops cimport (
    SKP_PREFETCH,
    SKP_PREFETCH_L2,
    Visits,
    XRows,
    prefetch_row,
    row_dot_wide,
)
from libc.math cimport fabs, isfinite, isnan, sqrt

# The update rules, read by Python from this module (``second_order.py``).
cpdef enum:
    SO_MISTAKE = 0
    SO_AROW = 1


cdef extern from "_second_order_fast.h":
    Py_ssize_t skp_so_padded(Py_ssize_t p) noexcept nogil
    Py_ssize_t skp_so_packed_size(Py_ssize_t pp) noexcept nogil
    void skp_so_downdate_product(double* M, Py_ssize_t pp, const double* u,
                                 const double* x, double* z) noexcept nogil
    void skp_so_downdate(double* M, Py_ssize_t pp, const double* u) noexcept nogil

def padded_size(Py_ssize_t p):
    """The side of the stored inverse of ``p`` rows: p rounded up to a
    multiple of 4."""
    return skp_so_padded(p)


def packed_size(Py_ssize_t pp):
    """The number of float64 that hold the inverse of side ``pp`` (its 4 x 4
    blocks on and below the diagonal)."""
    return skp_so_packed_size(pp)


cdef inline double _abs_dot(const double* x, const double* z,
                           Py_ssize_t n) noexcept nogil:
    """``sum_j |x_j z_j|``: the scale of the rounding of ``x . z``."""
    cdef Py_ssize_t j
    cdef double total = 0.0
    for j in range(n):
        total += fabs(x[j] * z[j])
    return total


cdef inline void _axpy(double* y, double alpha, const double* x,
                       Py_ssize_t n) noexcept nogil:
    """``y += alpha * x`` (a plain loop the compiler vectorizes)."""
    cdef Py_ssize_t j
    for j in range(n):
        y[j] += alpha * x[j]


# The statuses of a pass, read by Python from this module.
cpdef enum:
    SO_OK = 0
    SO_OVERFLOW = 1
    SO_NOT_POSITIVE = 2
# x~^T A^-1 x~ = sum_j x_j z_j rounds by about p eps sum_j |x_j z_j|: a
# negative value a thousand times larger is no rounding of a positive
# number, the stored inverse has lost its positive definiteness.
cdef double SO_LOST = 1e3 * 2.220446049250313e-16
# How many visits ahead AROW's diagonal form asks for its gathers.
cdef Py_ssize_t AROW_AHEAD = 2


# The pass reads its arguments as four named structs, filled once per call
# (see _epoch_arrays): X and the visits (``XRows``, ``Visits``, shared with
# the linear pass through ``_core/_rowops.pxd``), the rule and the state.
cdef struct SORule:
    # Which samples update, and how the rows are kept.
    int code                # SO_MISTAKE or SO_AROW
    bint fit_intercept      # the rows are padded with a constant feature 1
    bint diagonal           # state: ``precision`` (True) or ``inverse``
    bint average            # accumulate Daume's sums
    bint hold               # leave the last downdates in ``pending``


cdef struct SOState:
    # What the pass updates in place, every array in float64 but the counts.
    double* coef            # (n_rows, n_features)
    double* intercept       # (n_rows,)
    double* inverse         # full: the packed A^-1 of every row
    double* precision       # diagonal: the pairs of every row, (n_rows, p, 2)
    double* work            # full: scratch for x~ and z, 2 pp
    double* pending         # full: the held-back downdate of every row
    int* n_pending          # full: whether a row holds one back
    double* coef_sum        # Daume's sums, with averaging
    double* intercept_sum
    double* visits
    long long* updates
    Py_ssize_t n_rows


cdef int _full_update(
    const SORule* r, const SOState* st, Py_ssize_t k,
    double c, double s, double raw,
    const floating* x_values, const int* x_indices, Py_ssize_t nnz,
    const XRows* X,
) noexcept nogil:
    """The Sherman-Morrison step of row ``k`` on a mistake (see the module).

    The row's inverse is ``M - u u^T``: ``u`` (``pp`` entries) is the
    downdate of its previous mistake when ``pending[0]``, zeros otherwise;
    one pass over ``M`` applies it and computes ``z = M x~``, and this
    mistake's downdate is left in ``u``.  Returns ``SO_OVERFLOW`` when
    ``x~^T A^-1 x~`` overflowed, ``SO_NOT_POSITIVE`` when it came out
    clearly negative (the Sherman-Morrison downdates of an ill-conditioned
    ``A`` lost the positive definiteness of its inverse in floating point,
    after which every further update would be wrong), both with ``u``
    applied and ``w~`` unchanged; ``SO_OK`` otherwise.
    """
    cdef Py_ssize_t n_features = X.n_features
    cdef bint sparse = X.sparse
    cdef bint fit_intercept = r.fit_intercept
    cdef bint average = r.average
    cdef Py_ssize_t p = n_features + fit_intercept
    cdef Py_ssize_t pp = skp_so_padded(p)
    cdef double* w = st.coef + k * n_features
    cdef double* b = st.intercept + k
    cdef double* M = st.inverse + k * skp_so_packed_size(pp)
    cdef double* u = st.pending + k * pp
    cdef int* pending = st.n_pending + k
    cdef double* w_sum = st.coef_sum + k * n_features
    cdef double* b_sum = st.intercept_sum + k
    cdef double visits = st.visits[k]
    cdef double* x = st.work
    cdef double* z = st.work + pp
    cdef Py_ssize_t j
    cdef double q, g, root
    # x~ as a dense, zero-padded float64 vector: O(p), small beside O(p^2).
    if sparse:
        for j in range(pp):
            x[j] = 0.0
        for j in range(nnz):
            x[x_indices[j]] = x_values[j]
    else:
        for j in range(nnz):
            x[j] = x_values[j]
        for j in range(nnz, pp):
            x[j] = 0.0
    if fit_intercept:
        x[n_features] = 1.0
    skp_so_downdate_product(M, pp, u, x, z)
    q = row_dot_wide(x, z, NULL, p, False)
    if not isfinite(q) or (q < 0.0 and -q > SO_LOST * p * _abs_dot(x, z, p)):
        for j in range(pp):
            u[j] = 0.0
        pending[0] = 0
        return SO_OVERFLOW if not isfinite(q) else SO_NOT_POSITIVE
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
    # z is zero on the padding, and so is u.
    root = sqrt(c / (1.0 + c * q))
    for j in range(pp):
        u[j] = root * z[j]
    pending[0] = 1
    return SO_OK


cdef bint _diagonal_update(
    const SORule* r, const SOState* st, Py_ssize_t k, double c, double s,
    const floating* x_values, const int* x_indices, Py_ssize_t nnz,
    const XRows* X,
) noexcept nogil:
    """The diagonal step of row ``k`` on a mistake: ``A_jj += c x_j^2``,
    ``v_j += c s x_j`` and ``w_j = v_j / A_jj`` on the coordinates of x~.
    ``Dv`` holds the pairs ``(A_jj, v_j)``, so that one cache line serves
    both.  Returns True when ``A_jj`` or ``v_j`` overflowed (``w_j`` would
    silently become 0 or NaN)."""
    cdef Py_ssize_t n_features = X.n_features
    cdef bint sparse = X.sparse
    cdef bint fit_intercept = r.fit_intercept
    cdef bint average = r.average
    cdef double* w = st.coef + k * n_features
    cdef double* b = st.intercept + k
    cdef double* Dv = st.precision + 2 * k * (n_features + fit_intercept)
    cdef double* w_sum = st.coef_sum + k * n_features
    cdef double* b_sum = st.intercept_sum + k
    cdef double visits = st.visits[k]
    cdef Py_ssize_t j, col
    cdef double x, d, v, w_new
    cdef double cs = c * s
    for j in range(nnz):
        col = x_indices[j] if sparse else j
        x = x_values[j]
        d = Dv[2 * col] + c * x * x
        v = Dv[2 * col + 1] + cs * x
        if not (isfinite(d) and isfinite(v)):
            return True
        Dv[2 * col] = d
        Dv[2 * col + 1] = v
        w_new = v / d
        if average:
            w_sum[col] += visits * (w_new - w[col])
        w[col] = w_new
    if fit_intercept:
        d = Dv[2 * n_features] + c
        v = Dv[2 * n_features + 1] + cs
        if not (isfinite(d) and isfinite(v)):
            return True
        Dv[2 * n_features] = d
        Dv[2 * n_features + 1] = v
        w_new = v / d
        if average:
            b_sum[0] += visits * (w_new - b[0])
        b[0] = w_new
    return False


cdef bint _arow_diagonal_update(
    const SORule* r, const SOState* st, Py_ssize_t k,
    double c, double s, double raw,
    const floating* x_values, const int* x_indices, Py_ssize_t nnz,
    const XRows* X,
) noexcept nogil:
    """AROW's diagonal step of row ``k``: with ``z_j = x_j / A_jj`` and ``q =
    x~ . z``, ``w~ += c (s - raw) / (1 + c q) z`` (the mean moves along the
    old diagonal), then ``A_jj += c x_j^2``.  ``Dv`` holds the pairs
    ``(A_jj, 1 / A_jj)``: one division per coordinate, where it changes.
    Returns True when ``q`` or an ``A_jj`` overflowed."""
    cdef Py_ssize_t n_features = X.n_features
    cdef bint sparse = X.sparse
    cdef bint fit_intercept = r.fit_intercept
    cdef bint average = r.average
    cdef double* w = st.coef + k * n_features
    cdef double* b = st.intercept + k
    cdef double* Dv = st.precision + 2 * k * (n_features + fit_intercept)
    cdef double* w_sum = st.coef_sum + k * n_features
    cdef double* b_sum = st.intercept_sum + k
    cdef double visits = st.visits[k]
    cdef Py_ssize_t j, col
    cdef double x, q = 0.0, g, d, step
    for j in range(nnz):
        col = x_indices[j] if sparse else j
        x = x_values[j]
        q += x * x * Dv[2 * col + 1]
    if fit_intercept:
        q += Dv[2 * n_features + 1]
    if not isfinite(q):
        return True
    g = c * (s - raw) / (1.0 + c * q)
    for j in range(nnz):
        col = x_indices[j] if sparse else j
        x = x_values[j]
        step = g * x * Dv[2 * col + 1]
        if average:
            w_sum[col] += visits * step
        w[col] += step
        d = Dv[2 * col] + c * x * x
        if not isfinite(d):
            return True
        Dv[2 * col] = d
        Dv[2 * col + 1] = 1.0 / d
    if fit_intercept:
        step = g * Dv[2 * n_features + 1]
        if average:
            b_sum[0] += visits * step
        b[0] += step
        d = Dv[2 * n_features] + c
        Dv[2 * n_features] = d
        Dv[2 * n_features + 1] = 1.0 / d
    return False


cdef inline void _prefetch_arow_diagonal(
    const XRows* X, const Visits* v, const SOState* st, Py_ssize_t i,
    Py_ssize_t p,
) noexcept nogil:
    """Ask for the weights and the diagonal pairs that CSR row ``i`` will
    gather, for every row of its class (``p`` = n_features + fit_intercept).
    AROW's diagonal form updates on most visits, and its pairs are spread
    over twice the weights' memory: asked for a visit ahead, their cache
    misses overlap those of the current visit instead of following them."""
    cdef const int* X_indices = X.indices
    cdef Py_ssize_t n_features = X.n_features
    cdef const int* class_rows = v.rows
    cdef const double* coef = st.coef
    cdef const double* precision = st.precision
    cdef Py_ssize_t j, q, k, col
    cdef Py_ssize_t start = X.indptr[i], stop = X.indptr[i + 1]
    cdef int c = v.y_class[i]
    for q in range(v.rows_ptr[c], v.rows_ptr[c + 1]):
        k = class_rows[q]
        for j in range(start, stop):
            col = X_indices[j]
            SKP_PREFETCH(coef + k * n_features + col)
            SKP_PREFETCH(precision + 2 * k * p + 2 * col + 1)


cdef int _epoch(
    const floating* X_values, const XRows* X, const Visits* v,
    const SORule* r, const SOState* st,
) noexcept nogil:
    """The pass; returns ``SO_OVERFLOW``, at once, on a score that is not a
    number (``w . x`` overflowed: inf - inf), which cannot be compared with
    0, or on an update that overflowed (``x~^T A^-1 x~``, ``A_jj`` or
    ``v_j``), and ``SO_NOT_POSITIVE`` when the inverse lost its positive
    definiteness (see :func:`_full_update`); the held-back downdates are
    applied either way, unless ``r.hold`` leaves them in ``pending`` for
    :func:`apply_downdates`."""
    cdef const int* X_indices = X.indices
    cdef const int* X_indptr = X.indptr
    cdef bint sparse = X.sparse
    cdef Py_ssize_t n_features = X.n_features
    cdef const int* order = v.order
    cdef Py_ssize_t n_visits = v.n_visits
    cdef const int* y_class = v.y_class
    cdef const double* step = v.step
    cdef const int* class_rows_ptr = v.rows_ptr
    cdef const int* class_rows = v.rows
    cdef const signed char* class_signs = v.signs
    cdef const unsigned char* active = v.active
    cdef bint fit_intercept = r.fit_intercept
    cdef bint diagonal = r.diagonal
    cdef double* coef = st.coef
    cdef double* intercept = st.intercept
    cdef double* visits = st.visits
    cdef long long* updates = st.updates
    cdef Py_ssize_t p = n_features + fit_intercept
    cdef Py_ssize_t pp = skp_so_padded(p)
    cdef Py_ssize_t packed = skp_so_packed_size(pp)
    cdef int overflow = SO_OK
    cdef Py_ssize_t t, i, q, k, nnz, later
    cdef const floating* x_values
    cdef const int* x_indices = NULL
    cdef double raw, s, c
    # The margin below which a sample updates: 0 (<=) or AROW's 1 (<).
    cdef bint arow = r.code == SO_AROW
    # Rows visited out of order (shuffle) are prefetched in two stages, which
    # keep more random reads in flight than one: the row ``ahead`` visits
    # later into the first-level cache, and for the row ``4 * ahead`` later
    # its class, step and (dense) values, or (CSR) the entry of X_indptr
    # that locates it, into the second; ``ahead`` covers about 8 KiB of rows.
    # Reading X_indptr that early stalled the walk, and CSR rows asked for
    # that early crowded out those needed sooner.
    cdef Py_ssize_t ahead = (
        (X_indptr[order[0] + 1] - X_indptr[order[0]] if sparse else n_features)
        * sizeof(floating) + 1)
    ahead = max(2, min(32, 8192 // ahead))
    # AROW's diagonal form on CSR rows: the entries of the weights and of
    # the diagonal that a visit gathers are asked for AROW_AHEAD visits
    # before (its indices are then cached: see ``ahead``).
    cdef bint gather_ahead = sparse and diagonal and arow
    for t in range(n_visits):
        i = order[t]
        if t + ahead < n_visits:
            later = order[t + ahead]
            if later != i + ahead:
                prefetch_row(X_values, X_indices, X_indptr, sparse,
                              n_features, later, False)
        if t + 4 * ahead < n_visits:
            later = order[t + 4 * ahead]
            if later != i + 4 * ahead:
                SKP_PREFETCH_L2(y_class + later)
                SKP_PREFETCH_L2(step + later)
                if sparse:
                    SKP_PREFETCH_L2(X_indptr + later)
                else:
                    prefetch_row(X_values, X_indices, X_indptr, sparse,
                                  n_features, later, True)
        if sparse:
            x_values = X_values + X_indptr[i]
            x_indices = X_indices + X_indptr[i]
            nnz = X_indptr[i + 1] - X_indptr[i]
            if gather_ahead and t + AROW_AHEAD < n_visits:
                _prefetch_arow_diagonal(X, v, st, order[t + AROW_AHEAD], p)
        else:
            x_values = X_values + i * n_features
            nnz = n_features
        for q in range(class_rows_ptr[y_class[i]], class_rows_ptr[y_class[i] + 1]):
            k = class_rows[q]
            if not active[k]:
                continue
            raw = row_dot_wide(coef + k * n_features, x_values, x_indices, nnz,
                               sparse)
            if fit_intercept:
                raw += intercept[k]
            s = class_signs[q]
            c = step[i]
            if isnan(raw):
                overflow = True
                break
            # A sample of weight zero never updates, so it is no mistake either.
            if (s * raw < 1.0 if arow else s * raw <= 0.0) and c != 0.0:
                updates[k] += 1
                if diagonal and arow:
                    overflow = _arow_diagonal_update(
                        r, st, k, c, s, raw, x_values, x_indices, nnz, X)
                elif diagonal:
                    overflow = _diagonal_update(
                        r, st, k, c, s, x_values, x_indices, nnz, X)
                else:
                    overflow = _full_update(
                        r, st, k, c, s, raw, x_values, x_indices, nnz, X)
                if overflow:
                    break
            visits[k] += 1.0
        if overflow:
            break
    if not diagonal and not r.hold:
        for k in range(st.n_rows):
            if st.n_pending[k]:
                skp_so_downdate(st.inverse + k * packed, pp, st.pending + k * pp)
                st.n_pending[k] = 0
    return overflow


cdef int _epoch_arrays(
    const floating* X_values, const XRows* X, tuple visits, tuple table,
    const unsigned char[::1] active, tuple rule, tuple state,
) except -1:
    """Fill the structs of a pass from the arrays of :func:`epoch_dense` /
    :func:`epoch_csr` (their tuples, typed here) and run it."""
    cdef const int[::1] order = visits[0]
    cdef const int[::1] y_class = visits[1]
    cdef const double[::1] step = visits[2]
    cdef const int[::1] class_rows_ptr = table[0]
    cdef const int[::1] class_rows = table[1]
    cdef const signed char[::1] class_signs = table[2]
    cdef double[:, ::1] coef = state[0]
    cdef double[::1] intercept = state[1]
    cdef double[::1] inverse = state[2]
    cdef double[::1] precision = state[3]
    cdef double[::1] work = state[4]
    cdef double[::1] pending = state[5]
    cdef int[::1] n_pending = state[6]
    cdef double[:, ::1] coef_sum = state[7]
    cdef double[::1] intercept_sum = state[8]
    cdef double[::1] visit_counts = state[9]
    cdef long long[::1] updates = state[10]
    cdef Visits v
    cdef SORule r
    cdef SOState st
    cdef int status
    if order.shape[0] == 0:
        return SO_OK
    v.order = &order[0]
    v.n_visits = order.shape[0]
    v.y_class = &y_class[0]
    v.step = &step[0]
    v.rows_ptr = &class_rows_ptr[0]
    v.rows = &class_rows[0]
    v.signs = &class_signs[0]
    v.active = &active[0]
    r.code = rule[0]
    r.fit_intercept = rule[1]
    r.diagonal = rule[2]
    r.average = rule[3]
    r.hold = rule[4]
    st.coef = &coef[0, 0]
    st.intercept = &intercept[0]
    st.inverse = &inverse[0]
    st.precision = &precision[0]
    st.work = &work[0]
    st.pending = &pending[0]
    st.n_pending = &n_pending[0]
    st.coef_sum = &coef_sum[0, 0]
    st.intercept_sum = &intercept_sum[0]
    st.visits = &visit_counts[0]
    st.updates = &updates[0]
    st.n_rows = coef.shape[0]
    with nogil:
        status = _epoch(X_values, X, &v, &r, &st)
    return status


def epoch_dense(
    const floating[:, ::1] X,
    tuple visits,
    tuple table,
    const unsigned char[::1] active,
    tuple rule,
    tuple state,
):
    """Run one pass of the second-order rule over the rows ``order`` of dense X.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), C-contiguous
        Training data, float32 or float64 (the state is float64 either way).
    visits : tuple ``(order, y_class, step)``
        ``order`` (int32): the rows to visit, in visiting order; ``y_class``
        (int32, shape (n_samples,)): the class index of every sample
        (indexes ``class_rows_ptr``); ``step`` (float64, shape
        (n_samples,)): the weight ``c`` of every sample, ``sample_weight *
        class_weight``.
    table : tuple ``(class_rows_ptr, class_rows, class_signs)``
        The rows touched by a sample of class ``c`` are
        ``class_rows[class_rows_ptr[c]:class_rows_ptr[c + 1]]`` (int32), each
        with the sign (int8, +1 or -1) the sample takes in that row's binary
        problem.
    active : ndarray of uint8 of shape (n_rows,)
        Rows with ``active[k] == 0`` are frozen: no update, no visit counted.
    rule : tuple ``(code, fit_intercept, diagonal, average, hold)``
        ``code`` (int): ``SO_MISTAKE`` (0), update on a mistake (the
        second-order perceptron), or ``SO_AROW`` (1), on a positive hinge
        loss (AROW, with its diagonal form when ``diagonal``).
        ``fit_intercept`` (bool): whether the rows are padded with a
        constant feature 1.  ``diagonal`` (bool): which state the rows
        keep, ``precision`` (diag(A) and v) or ``inverse``.  ``average``
        (bool): whether to accumulate ``coef_sum``, ``intercept_sum``
        (Daume's trick).  ``hold`` (bool): leave the downdates of the last
        mistake of every row in ``pending`` and ``n_pending`` instead of
        applying them: a pass that visits every row at most once then
        leaves ``inverse`` as it was, so that a caller can check the
        outcome before :func:`apply_downdates` commits it.
    state : tuple ``(coef, intercept, inverse, precision, work, pending, n_pending, coef_sum, intercept_sum, visits, updates)``
        Float64 arrays updated in place (``n_pending`` is int32,
        ``updates`` int64): ``coef`` (n_rows, n_features), the weights
        ``w = (A^-1 v)[:n_features]``; ``intercept`` (n_rows,), the padded
        coordinate of ``A^-1 v`` (only when ``fit_intercept``); ``inverse``
        (n_rows * packed_size(pp),), the symmetric ``A^-1`` of every row,
        zero-padded to ``pp = padded_size(p)`` rows and columns, ``p =
        n_features + fit_intercept``: its 4 x 4 blocks on and below the
        diagonal, block row after block row, each block row-major (unused
        if diagonal); ``precision`` (n_rows * p * 2,), the pairs ``(A_jj,
        v_j)`` of every row (unused unless diagonal); ``work`` (2 * pp,),
        scratch for ``x~`` and ``z = A^-1 x~`` (unused if diagonal);
        ``pending`` (n_rows * pp,), zeros: room for the held-back downdate
        of every row (unused if diagonal), all applied before the pass
        returns unless ``hold``; ``n_pending`` (n_rows,), zeros (whether a
        row holds a downdate back); ``coef_sum``, ``intercept_sum``, the
        sums ``sum (visits before the update) * delta`` of every row;
        ``visits`` (n_rows,), the visits of every row so far; ``updates``
        (n_rows,), the updates of every row.

    Returns
    -------
    status : int
        0; or, when the pass stopped early (the state is then left
        mid-pass), 1 on a score ``w . x`` or an update that overflowed the
        floating-point range, 2 when the inverse of ``A`` lost its positive
        definiteness (an ill-conditioned ``A``).
    """
    cdef const floating* values = &X[0, 0] if X.shape[0] and X.shape[1] else NULL
    cdef XRows rows
    rows.values = values
    rows.indices = NULL
    rows.indptr = NULL
    rows.n_features = X.shape[1]
    rows.sparse = False
    return _epoch_arrays(values, &rows, visits, table, active, rule, state)


def epoch_csr(
    const floating[::1] X_data,
    const int[::1] X_indices,
    const int[::1] X_indptr,
    tuple visits,
    tuple table,
    const unsigned char[::1] active,
    tuple rule,
    tuple state,
):
    """Run one pass of the second-order rule over the rows ``order`` of a
    CSR X.

    ``X_data``, ``X_indices`` and ``X_indptr`` are the CSR arrays (int32
    indices); every other parameter is as in :func:`epoch_dense`.
    """
    # An all-zero CSR matrix has empty data: point at something valid anyway.
    cdef const floating* values = &X_data[0] if X_data.shape[0] else NULL
    cdef double[:, ::1] coef = state[0]
    cdef XRows rows
    rows.values = values
    rows.indices = &X_indices[0] if X_indices.shape[0] else NULL
    rows.indptr = &X_indptr[0]
    rows.n_features = coef.shape[1]
    rows.sparse = True
    return _epoch_arrays(values, &rows, visits, table, active, rule, state)


def apply_downdates(double[::1] inverse, double[::1] pending, int[::1] n_pending,
                    Py_ssize_t pp):
    """Apply the downdates a pass with ``hold=True`` left in ``pending`` to
    the packed inverses (side ``pp``), and reset ``pending``/``n_pending`` to
    zeros for the next pass."""
    cdef Py_ssize_t packed = skp_so_packed_size(pp)
    cdef Py_ssize_t k, j
    with nogil:
        for k in range(n_pending.shape[0]):
            if n_pending[k]:
                skp_so_downdate(&inverse[k * packed], pp, &pending[k * pp])
                n_pending[k] = 0
                for j in range(pp):
                    pending[k * pp + j] = 0.0
