# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The compiled walk of the budgeted kernel perceptron, included by
``_kernel_budget_fast.pyx`` and its AVX2 twin ``_kernel_budget_fast_avx2.pyx``.

With a budget of B support vectors, a visit computes the scores of the
visited sample from the support vectors themselves: B kernel values,
O(B * n_features) (O(B * nnz) for a CSR row), whatever the number of
training samples.  Nothing of length n_samples is kept but the labels,
weights and the order of the epoch, except by the score cache of a fit
whose budget is a sizeable part of the rows (``_bind_cache``): the kernel
columns of the B slots over the training rows and the scores of every row
of the iterate.  A visit then reads its scores, O(K); a new support vector
computes its column, O(n * n_features) (or copies it, O(n), from the
store of columns by row, ``kstore``, when its row's was computed before),
and adds it to the scores of the rows it updates; a removal changes the scores by the removed vector's
coefficients times its column, or, when "local_projection" carries them
onto its neighbours, times the difference of the carried combination of
their columns and its own: O(n * (M + K)).  The scores so kept equal the
scores a visit computes afresh up to rounding.

The support vectors keep their features in the dtype of X (float32 or
float64, through the fused type ``floating``), in one of two stores: for
dense X, a dense feature-major buffer ``sv`` of B columns; for CSR X, a
pool of stored values and their feature indices, a run of it per support
vector (its ``sv_start`` and ``sv_len``), so that a visit, a removal and
the memory cost O(B * nnz) whatever the number of features.  A new vector's
run is appended at the end of the pool; the runs of removed vectors are
reclaimed by compacting the pool when its end is reached, and when the
live runs fill half of it the walk stops before the visit
(``STATUS_GROW``) for Python to give it a pool twice as large: a
compaction (O(B log B) and the live values, at most half the pool) comes
only after new runs filled the other half, and the pool stays within a
small factor of the live runs.  In the CSR store every kernel value is
summed over the features in the order the dense buffer sums them (the
stored features of both rows, in increasing order, skipping only terms
that add zero), so both stores fit the same model.  The slots
``0 .. n_sv - 1`` are the support list: a new support vector is appended
while the set is not full, and takes the slot of the one it replaces
after.  Every support vector
carries one coefficient per one-vs-all row (``alpha``, (B, K)), and, with
averaging, Daume's sums (``asum``): the average is ``alpha - asum /
visits``.  Kernel values include ``add`` (1 with an intercept: a constant
feature in kernel space, ``K' = K + add``), and so do every Gram matrix
and projection below.

Removal strategies, when a new support vector enters a full set:

* "forgetron" (Dekel, Shalev-Shwartz & Singer): shrink every coefficient of
  a row by the largest factor that keeps the row's cumulative damage below
  15/32 of its mistakes, then remove the least recently updated vector;
* "random" (Cavallanti, Cesa-Bianchi & Gentile): a uniformly random one;
* "oldest": the least recently updated one;
* "projection": remove the vector whose loss after projection is smallest
  and carry its coefficients (current and averaged) onto the span of the
  vectors that stay, exactly: with ``P = (G + ridge I)^-1`` the inverse of
  the kept set's Gram matrix, the projection coefficients of vector r onto
  the others are ``-P[j, r] / P[r, r]``, the squared distance of r to their
  span is ``1 / P[r, r]`` (Orabona, Keshet & Caputo, the Projectron), and the
  loss of a row is ``alpha[r, k]**2 / P[r, r]``.  P is kept up to date in
  O(B**2) per change (a rank-one downdate on removal, a bordered inverse on
  insertion).

For the first three strategies the current iterate follows the published
algorithm (the removed vector's current coefficients are dropped, which
their mistake bounds analyse), and only the removed vector's share of the
average is carried, by projection onto the span of its M nearest kept
vectors in kernel space (``_carry_local``; M is ``Params.M``, wider for
these strategies than for "local_projection"): a removal no longer takes its
share of the average with it.

The loops of a visit run over the B support vectors with unit stride, so
that the compiler vectorizes them; the exponential kernels use the
package's branch-free exponential and the dot products its fixed summation
order (``skp_exp`` and ``skp_dot_d`` of ``_kernel_fast.h``), so that both
builds give the same bits.

Python drives the walk through a :class:`BudgetWalker`, made once per
support set from the walk's :class:`Params` and the arrays of the set; X
is a :class:`~sklearn_perceptrons._kernel._matrix.Matrix`.
"""

import numpy as np
from cython cimport floating
from libc.math cimport fabs, sqrt, tanh
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.stdlib cimport qsort
from libc.string cimport memcpy

from .._core._random cimport randint
from ._matrix cimport Matrix, MatrixView

cdef extern from "_kernel_fast.h":
    double SKP_LOG_DBL_MIN
    double skp_exp(double x) noexcept nogil
    double skp_dot_d(const double* z, const double* x, Py_ssize_t d) noexcept nogil

include "_kernel_codes.pxi"

# Indices of the int64 counters shared with Python.
cpdef enum:
    C_N_SV = 0          # current number of support vectors
    C_CLOCK = 1         # number of updates so far (ages of support vectors)
    C_MAX_SV = 2        # largest number of support vectors between visits
    C_POOL_END = 3      # CSR store: the end of the used part of the pool
    C_POOL_LIVE = 4     # CSR store: the values of the support vectors' runs
    N_COUNTERS = 5


cdef struct Params:
    # The kernel: its code (``KERNEL_PRECOMPUTED`` for kernel values read
    # from a Gram matrix) and parameters.
    int kind
    int degree
    double gamma
    double coef0
    # The walk: ``add`` 1.0 pads a constant feature (the intercept), the
    # update threshold, the ridge of the projections, the removal strategy,
    # averaging, the one-vs-all rows K, the slots B of the support set, the
    # neighbours M of a local projection, and whether ``step`` holds one
    # step per class (else one per sample).
    double add
    double threshold
    double ridge
    int strategy
    bint average
    Py_ssize_t K
    Py_ssize_t B
    Py_ssize_t M
    bint step_by_class


cdef struct Probe:
    # A row whose kernel values with the support vectors are computed: its
    # values are passed beside it (typed: fused); ``idx`` the columns of a
    # CSR row's ``nnz`` stored values (dense: NULL, ``nnz`` features), and
    # its squared and L1 norms (when the kernel reads them).
    const int* idx
    Py_ssize_t nnz
    bint sparse
    double sq
    double l1


cdef struct State:
    # The parameters (see Params) and the features of the support vectors
    # (``d``; with a Gram matrix, the length of its rows).
    Py_ssize_t d
    # The CSR store (see the module docstring): the feature index of every
    # value of the pool, the run of every slot, the pool's capacity, and
    # an int64 per slot for the compaction.
    bint sparse_store
    int* pool_index
    int64_t* sv_start
    int* sv_len
    int64_t pool_cap
    int64_t* pool_order
    # A hash table of the visited CSR row (features to values, see
    # _probe_table): ``table_size`` entries, a power of two at least four
    # times the longest row's stored values.
    int* table_keys
    double* table_values
    Py_ssize_t table_size
    int kind
    int degree
    double gamma
    double coef0
    double add
    double threshold
    double ridge
    Py_ssize_t K
    Py_ssize_t B
    int strategy
    bint average
    Py_ssize_t M
    bint step_by_class
    # The samples of the current walk.
    const int* y_class
    const double* step
    const int* rows_ptr
    const int* rows
    const signed char* signs
    # The support set (see _kernel_budget._BudgetState).
    double* sv_norm
    double* sv_self
    int64_t* sv_row
    int* sv_class
    int64_t* sv_time
    int64_t* sv_entry
    double* alpha
    double* asum
    double* P
    double* visits
    double* forget_q
    double* forget_m
    int64_t* counters
    uint64_t* rng
    int64_t* updates
    # Work space.
    double* kv
    double* kr
    double* u
    double* score
    double* newc
    double* newsum
    int* upd_rows
    double* upd_delta
    int* nb
    double* G
    double* cvec
    # The score cache (see ``_cache_add``; ``kc`` NULL without it): the
    # kernel columns of the support vectors' slots over the ``n_cache`` rows
    # of X (B, n_cache), the scores of the iterate of every row (K,
    # n_cache), an n_cache-vector and a K-vector; ``fill_slot`` the slot
    # whose column a visit must compute (-1: none).  Both are slot- and
    # row-major so that the updates run over contiguous columns.
    double* kc
    double* sc
    Py_ssize_t n_cache
    double* cv
    double* dk1
    Py_ssize_t fill_slot
    # Whether the kernel values among support vectors are read from the
    # cache: dense X, whose cached values are those the support vectors'
    # own features give (a CSR row's are computed from its norms).
    bint kc_pairs
    # The columns of the cache by training row (n_cache, n_cache), those
    # computed so far flagged in ``kstore_done``; NULL without them.  A
    # column depends only on its row, so a sample that enters the support
    # set again copies its column instead of computing it.
    double* kstore
    unsigned char* kstore_done


include "_kernel_budget_kernels.pxi"


# -- the support set -----------------------------------------------------------

cdef Py_ssize_t _smallest_weighted_norm(
    const double* alpha, Py_ssize_t K, const double* weight, Py_ssize_t n,
) noexcept nogil:
    """The first j of smallest ``weight[j] * sum_k alpha[j, k]**2`` (each
    sum over k in order).  Four vectors at a time, a sum each, so that the
    additions of one vector do not wait on one another."""
    cdef Py_ssize_t j = 0, k, h, best = 0
    cdef double s0, s1, s2, s3, a, best_loss = -1.0
    cdef double loss[4]
    cdef const double* row
    while j < n:
        s0 = s1 = s2 = s3 = 0.0
        row = alpha + j * K
        if j + 4 <= n:
            for k in range(K):
                s0 += row[k] * row[k]
                s1 += row[K + k] * row[K + k]
                s2 += row[2 * K + k] * row[2 * K + k]
                s3 += row[3 * K + k] * row[3 * K + k]
            loss[0], loss[1], loss[2], loss[3] = s0, s1, s2, s3
            h = 4
        else:
            for k in range(K):
                a = row[k]
                s0 += a * a
            loss[0] = s0
            h = 1
        for k in range(h):
            a = loss[k] * weight[j + k]
            if best_loss < 0.0 or a < best_loss:
                best_loss = a
                best = j + k
        j += h
    return best


cdef Py_ssize_t _pick_removal(State* s, Py_ssize_t n_sv) noexcept nogil:
    cdef Py_ssize_t j, k, best = 0
    cdef double loss, best_loss, a
    if s.strategy == STRATEGY_RANDOM:
        return randint(s.rng, n_sv)
    if s.strategy == STRATEGY_PROJECTION:
        best_loss = -1.0
        for j in range(n_sv):
            loss = 0.0
            for k in range(s.K):
                a = s.alpha[j * s.K + k]
                loss += a * a
            loss /= s.P[j * s.B + j]
            if best_loss < 0.0 or loss < best_loss:
                best_loss = loss
                best = j
        return best
    if s.strategy == STRATEGY_LOCAL_PROJECTION:
        return _smallest_weighted_norm(s.alpha, s.K, s.sv_self, n_sv)
    for j in range(1, n_sv):
        if s.sv_time[j] < s.sv_time[best]:
            best = j
    return best


cdef void _forgetron_shrink(State* s, Py_ssize_t r, Py_ssize_t n_sv,
                            double kx_r) noexcept nogil:
    """Shrink every row's coefficients (the kept ones, ``s.kr`` holding
    K'(sv_r, sv_j), and the new vector's, ``s.newc``, whose kernel value
    with sv_r is ``kx_r``) before vector r leaves: the self-tuned Forgetron.

    In row k, with sigma = |alpha[r, k]| and mu = sign(alpha[r, k]) f_k(sv_r)
    (after this round's update), phi is the largest value in [0, 1] with
    Psi(phi) + Q_k <= 15 M_k / 32, Psi = (sigma phi)^2 + 2 sigma phi (1 - phi
    mu): a quadratic a phi^2 + b phi + c <= 0 with a = sigma^2 - 2 sigma mu,
    b = 2 sigma, c = Q_k - 15 M_k / 32 <= 0, crossing at -2c / (b + sqrt(D)).
    """
    cdef Py_ssize_t k, j, K = s.K
    cdef double a, sigma, mu, f, limit, qa, qb, qc, disc, phi, psi, old
    for k in range(K):
        a = s.alpha[r * K + k]
        if a == 0.0:
            continue
        f = s.newc[k] * kx_r
        for j in range(n_sv):
            f += s.alpha[j * K + k] * s.kr[j]
        sigma = fabs(a)
        mu = (1.0 if a > 0.0 else -1.0) * f
        limit = 15.0 * s.forget_m[k] / 32.0
        if sigma * sigma + 2.0 * sigma - 2.0 * sigma * mu + s.forget_q[k] <= limit:
            phi = 1.0
        else:
            qa = sigma * sigma - 2.0 * sigma * mu
            qb = 2.0 * sigma
            qc = s.forget_q[k] - limit
            if qc > 0.0:
                qc = 0.0
            disc = qb * qb - 4.0 * qa * qc
            if disc < 0.0:
                disc = 0.0
            phi = -2.0 * qc / (qb + sqrt(disc))
            if phi > 1.0:
                phi = 1.0
            elif phi < 0.0:
                phi = 0.0
        psi = sigma * phi * sigma * phi + 2.0 * sigma * phi * (1.0 - phi * mu)
        s.forget_q[k] += psi
        if phi == 1.0:
            continue
        # Daume's sums keep the average where it is: only later iterates
        # see the shrinking.
        for j in range(n_sv):
            old = s.alpha[j * K + k]
            s.alpha[j * K + k] = old * phi
            if s.average:
                s.asum[j * K + k] += s.visits[k] * (phi - 1.0) * old
        old = s.newc[k]
        s.newc[k] = old * phi
        if s.average:
            s.newsum[k] += s.visits[k] * (phi - 1.0) * old


include "_kernel_budget_cache.pxi"


cdef double _pair(
    State* s, const floating* sv, Py_ssize_t a, Py_ssize_t b,
) noexcept nogil:
    """K'(sv_a, sv_b) for two support vectors (with a Gram matrix, ``sv``
    is that matrix, rows of ``s.d`` entries)."""
    cdef Py_ssize_t f, B = s.B
    cdef double acc = 0.0, x, y
    if s.kind == KERNEL_PRECOMPUTED:
        return sv[s.sv_row[a] * s.d + s.sv_row[b]] + s.add
    if s.sparse_store:
        acc = _pool_pair(_mode(s.kind), s, sv, a, b)
    for f in range(0 if s.sparse_store else s.d):
        x = sv[f * B + a]
        y = sv[f * B + b]
        if s.kind == KERNEL_RBF:
            acc += (x - y) * (x - y)
        elif s.kind == KERNEL_LAPLACIAN:
            acc += fabs(x - y)
        else:
            acc += x * y
    if s.kind == KERNEL_RBF or s.kind == KERNEL_LAPLACIAN:
        return skp_exp(_clamp_log(-s.gamma * acc)) + s.add
    if s.kind == KERNEL_COSINE:
        if s.sv_norm[a] > 0.0 and s.sv_norm[b] > 0.0:
            return acc / (s.sv_norm[a] * s.sv_norm[b]) + s.add
        return s.add
    return _transform(s, acc) + s.add


cdef void _cholesky_factor(double* G, Py_ssize_t n, Py_ssize_t ld) noexcept nogil:
    """G = L L^T for a symmetric positive definite G (leading dimension
    ``ld``), L written over the lower triangle of G."""
    cdef Py_ssize_t i, j, k
    cdef double acc
    for j in range(n):
        acc = G[j * ld + j]
        for k in range(j):
            acc -= G[j * ld + k] * G[j * ld + k]
        # The ridge keeps the pivots positive; rounding must not break it.
        if not acc > 1e-300:
            acc = 1e-300
        G[j * ld + j] = sqrt(acc)
        for i in range(j + 1, n):
            acc = G[i * ld + j]
            for k in range(j):
                acc -= G[i * ld + k] * G[j * ld + k]
            G[i * ld + j] = acc / G[j * ld + j]


cdef void _cholesky_apply(const double* L, Py_ssize_t n, Py_ssize_t ld,
                          double* c, Py_ssize_t stride) noexcept nogil:
    """c = (L L^T)^-1 c in place, c[i] at ``c[i * stride]``."""
    cdef Py_ssize_t i, k
    cdef double acc
    for i in range(n):
        acc = c[i * stride]
        for k in range(i):
            acc -= L[i * ld + k] * c[k * stride]
        c[i * stride] = acc / L[i * ld + i]
    for i in range(n - 1, -1, -1):
        acc = c[i * stride]
        for k in range(i + 1, n):
            acc -= L[k * ld + i] * c[k * stride]
        c[i * stride] = acc / L[i * ld + i]


cdef void _cholesky_solve(
    double* G, double* c, Py_ssize_t n, Py_ssize_t ld,
) noexcept nogil:
    """Solve G x = c in place (c becomes x) for a symmetric positive
    definite G (overwritten by its Cholesky factor)."""
    _cholesky_factor(G, n, ld)
    _cholesky_apply(G, n, ld, c, 1)


cdef Py_ssize_t _carry_local(
    State* s, const floating* sv, Py_ssize_t r, Py_ssize_t n_sv, bint current,
) noexcept nogil:
    """Project vector r onto the span of its M nearest kept vectors in
    kernel space (the j of largest K'(r, j)^2 / K'(j, j), ``s.kr`` holding
    K'(sv_r, sv_j)): coefficients c = (G + ridge I)^-1 K'(neighbours, r).
    With ``current``, r's current coefficients and Daume's sums are carried
    by c; otherwise only its share of the average, which in Daume's terms is
    ``-(asum - visits alpha)`` (what is left of the sums once its current
    coefficient is dropped).  Returns the number of neighbours, left in
    ``s.nb`` with their coefficients in ``s.cvec``."""
    cdef Py_ssize_t q, j, a, b, pos, cnt = 0, K = s.K, M = s.M
    cdef double v, ca
    # Local copies: the compiler would reload the fields of s after every
    # store through these pointers.
    cdef double* top = s.cvec
    cdef int* nb = s.nb
    cdef const double* kr = s.kr
    cdef const double* self_k = s.sv_self
    # One pass keeping the M largest K'(r, j)^2 / K'(j, j) in decreasing
    # order (``cvec`` holds the values meanwhile), ties to the lower slot.
    for j in range(n_sv):
        if j == r or not self_k[j] > 0.0:
            continue
        v = kr[j] * kr[j] / self_k[j]
        if cnt == M and not v > top[M - 1]:
            continue
        pos = cnt if cnt < M else M - 1
        while pos > 0 and top[pos - 1] < v:
            top[pos] = top[pos - 1]
            nb[pos] = nb[pos - 1]
            pos -= 1
        top[pos] = v
        nb[pos] = <int> j
        if cnt < M:
            cnt += 1
    for a in range(cnt):
        s.cvec[a] = s.kr[s.nb[a]]
    if cnt == 0:
        return 0
    for a in range(cnt):
        for b in range(a, cnt):
            if s.kc_pairs:
                # The cached column of b at a's training row: the value
                # _pair computes, bit for bit (dense rows).
                v = s.kc[s.nb[b] * s.n_cache + s.sv_row[s.nb[a]]]
            else:
                v = _pair(s, sv, s.nb[a], s.nb[b])
            if a == b:
                v += s.ridge
            s.G[a * M + b] = v
            s.G[b * M + a] = v
    _cholesky_solve(s.G, s.cvec, cnt, M)
    for a in range(cnt):
        j = s.nb[a]
        ca = s.cvec[a]
        for q in range(K):
            if current:
                s.alpha[j * K + q] += ca * s.alpha[r * K + q]
                if s.average:
                    s.asum[j * K + q] += ca * s.asum[r * K + q]
            else:
                s.asum[j * K + q] += ca * (s.asum[r * K + q]
                                           - s.visits[q] * s.alpha[r * K + q])
    return cnt


cdef void _project_out(State* s, Py_ssize_t r, Py_ssize_t n_sv) noexcept nogil:
    """Carry vector r's coefficients (current and averaged) onto the span of
    the others, then downdate P to their inverse Gram matrix (row and column
    r are left stale for the next insertion)."""
    cdef Py_ssize_t a, b, k, K = s.K, B = s.B
    cdef double prr = s.P[r * B + r], dj, f
    cdef double* P = s.P
    for a in range(n_sv):
        if a == r:
            continue
        dj = -P[a * B + r] / prr
        if dj == 0.0:
            continue
        for k in range(K):
            s.alpha[a * K + k] += s.alpha[r * K + k] * dj
            if s.average:
                s.asum[a * K + k] += s.asum[r * K + k] * dj
    for a in range(n_sv):
        if a == r:
            continue
        f = P[a * B + r] / prr
        if f == 0.0:
            continue
        for b in range(n_sv):
            P[a * B + b] -= f * P[r * B + b]
    # Row r was read above; the entries of column r in other rows are now
    # stale, and are rewritten by the insertion.


cdef void _insert_inverse(State* s, Py_ssize_t t, Py_ssize_t n_slots) noexcept nogil:
    """Border P (the inverse of the Gram matrix plus ridge of the slots
    ``< n_slots`` other than t) with slot t, whose kernel values with the
    others are in ``s.kv``: O(n_slots^2)."""
    cdef Py_ssize_t a, b, B = s.B
    cdef double* P = s.P
    cdef double delta, ua, kv_t = s.kv[t]
    # Row and column t are stale: zero them (and kv[t]) so that the loops
    # below need no test.
    s.kv[t] = 0.0
    for a in range(n_slots):
        P[a * B + t] = 0.0
        P[t * B + a] = 0.0
    for a in range(n_slots):
        s.u[a] = skp_dot_d(P + a * B, s.kv, n_slots)
    delta = s.sv_self[t] + s.ridge - skp_dot_d(s.kv, s.u, n_slots)
    s.kv[t] = kv_t
    # In exact arithmetic delta >= ridge (the Schur complement of a ridge
    # matrix); rounding on a near-duplicate must not make it vanish.
    if not delta >= s.ridge * 1e-3:
        delta = s.ridge * 1e-3
    for a in range(n_slots):
        if a == t:
            continue
        ua = s.u[a] / delta
        for b in range(n_slots):
            P[a * B + b] += ua * s.u[b]
        P[a * B + t] = -ua
        P[t * B + a] = -ua
    P[t * B + t] = 1.0 / delta


cdef void _update(
    State* s, floating* sv, floating* col, const floating* xv, const Probe* x,
    Py_ssize_t i, Py_ssize_t n_up, const floating* gram,
) noexcept nogil:
    """The update of visited sample i (the row ``xv`` of ``x``, its norms
    computed) in the ``n_up`` rows of ``upd_rows`` (kernel values with the
    support vectors in ``kv``; ``gram`` the rows of a Gram matrix, read by
    ``KERNEL_PRECOMPUTED`` instead of ``sv``)."""
    cdef Py_ssize_t j, k, u, f, p, r, t, K = s.K, d = s.d, cnt = 0
    cdef Py_ssize_t n_sv = s.counters[C_N_SV]
    cdef double delta
    cdef bint pairwise = s.kind == KERNEL_PRECOMPUTED
    cdef const floating* pairs_of = gram if pairwise else <const floating*> sv
    # A sample that is already a support vector keeps its slot.
    for j in range(n_sv):
        if s.sv_row[j] == i:
            if s.kc != NULL:
                for k in range(K):
                    s.dk1[k] = 0.0
            for u in range(n_up):
                k = s.upd_rows[u]
                delta = s.upd_delta[u]
                s.alpha[j * K + k] += delta
                if s.average:
                    s.asum[j * K + k] += s.visits[k] * delta
                if s.kc != NULL:
                    s.dk1[k] = delta
                s.updates[k] += 1
                s.forget_m[k] += 1.0
            if s.kc != NULL:
                _cache_add(s, j, NULL, s.dk1)
            s.counters[C_CLOCK] += 1
            s.sv_time[j] = s.counters[C_CLOCK]
            return
    for k in range(K):
        s.newc[k] = 0.0
        s.newsum[k] = 0.0
    for u in range(n_up):
        k = s.upd_rows[u]
        s.newc[k] = s.upd_delta[u]
        if s.average:
            s.newsum[k] = s.visits[k] * s.upd_delta[u]
        s.updates[k] += 1
        s.forget_m[k] += 1.0
    s.counters[C_CLOCK] += 1
    if n_sv < s.B:
        t = n_sv
        n_sv += 1
    else:
        r = _pick_removal(s, n_sv)
        if (s.strategy == STRATEGY_FORGETRON
                or s.strategy == STRATEGY_LOCAL_PROJECTION
                or (s.average and s.strategy != STRATEGY_PROJECTION)):
            if pairwise:
                for j in range(n_sv):
                    s.kr[j] = _pair(s, gram, r, j)
            elif s.kc_pairs:
                for j in range(n_sv):
                    s.kr[j] = s.kc[j * s.n_cache + s.sv_row[r]]
            else:
                _kernels_of_sv(s, sv, col, r, n_sv, s.kr)
        if s.strategy == STRATEGY_FORGETRON:
            _forgetron_shrink(s, r, n_sv, s.kv[r])
        if s.strategy == STRATEGY_PROJECTION:
            _project_out(s, r, n_sv)
        elif s.strategy == STRATEGY_LOCAL_PROJECTION:
            cnt = _carry_local(s, pairs_of, r, n_sv, True)
        elif s.average:
            _carry_local(s, pairs_of, r, n_sv, False)
        if s.kc != NULL:
            _cache_removal(s, r, cnt,
                           s.strategy == STRATEGY_LOCAL_PROJECTION)
        # The new vector takes the slot of the removed one.
        t = r
    if pairwise:
        # The diagonal of the Gram matrix; no features to keep.
        s.sv_norm[t] = 0.0
        s.sv_self[t] = xv[i] + s.add
    elif s.sparse_store:
        # A new run at the end of the pool (room checked before the visit).
        p = s.counters[C_POOL_END]
        for f in range(x.nnz):
            sv[p + f] = xv[f]
            s.pool_index[p + f] = x.idx[f]
        s.counters[C_POOL_LIVE] += x.nnz - s.sv_len[t]
        s.counters[C_POOL_END] = p + x.nnz
        s.sv_start[t] = p
        s.sv_len[t] = <int> x.nnz
    elif x.sparse:
        for f in range(d):
            sv[f * s.B + t] = 0
        for p in range(x.nnz):
            sv[x.idx[p] * s.B + t] = xv[p]
    else:
        for f in range(d):
            sv[f * s.B + t] = xv[f]
    if not pairwise:
        s.sv_norm[t] = _norm_stat(s, x.sq, x.l1)
        s.sv_self[t] = _self_kernel(s, x.sq, x.l1)
    s.sv_row[t] = i
    s.sv_class[t] = s.y_class[i]
    s.sv_time[t] = s.counters[C_CLOCK]
    s.sv_entry[t] = s.counters[C_CLOCK]
    for k in range(K):
        s.alpha[t * K + k] = s.newc[k]
        s.asum[t * K + k] = s.newsum[k]
    if s.strategy == STRATEGY_PROJECTION:
        _insert_inverse(s, t, n_sv)
    s.counters[C_N_SV] = n_sv
    # The visit computes the new column, then adds the vector's scores.
    s.fill_slot = t


cdef int _walk(
    State* s, const floating* values, const MatrixView* X, floating* sv,
    floating* col, const int* order, Py_ssize_t t_start, Py_ssize_t t_end,
    Py_ssize_t* t_out,
) noexcept nogil:
    cdef Py_ssize_t t, i, j, k, p, n_sv, n_up, K = s.K, d = X.n_features
    cdef const floating* xv
    cdef double kj, value, step_i
    cdef int c
    cdef Probe x
    cdef bint need_stats = X.sparse or s.kind == KERNEL_COSINE
    x.idx = NULL
    x.nnz = d
    x.sparse = X.sparse
    x.sq = 0.0
    x.l1 = 0.0
    for t in range(t_start, t_end):
        i = order[t]
        if X.sparse:
            xv = values + X.indptr[i]
            x.idx = X.indices + X.indptr[i]
            x.nnz = X.indptr[i + 1] - X.indptr[i]
        else:
            xv = values + i * d
        if (s.sparse_store
                and s.counters[C_POOL_END] + x.nnz > s.pool_cap):
            # A new run may not fit: compact the pool, or return for a
            # larger one before anything of the visit is done, also when
            # the live runs fill half of it (else every visit could
            # compact and reclaim little).
            _compact(s, sv)
            if (s.counters[C_POOL_END] + x.nnz > s.pool_cap
                    or 2 * s.counters[C_POOL_END] > s.pool_cap):
                t_out[0] = t
                return STATUS_GROW
        if need_stats:
            _row_stats(xv, &x)
        n_sv = s.counters[C_N_SV]
        if s.kc != NULL:
            for k in range(K):
                s.score[k] = s.sc[k * s.n_cache + i]
        elif K == 1:
            s.score[0] = _kernels(s, xv, &x, sv, n_sv, s.kv, s.alpha)
        else:
            _kernels(s, xv, &x, sv, n_sv, s.kv)
            for k in range(K):
                s.score[k] = 0.0
            for j in range(n_sv):
                kj = s.kv[j]
                for k in range(K):
                    s.score[k] += s.alpha[j * K + k] * kj
        c = s.y_class[i]
        step_i = s.step[c] if s.step_by_class else s.step[i]
        n_up = 0
        for p in range(s.rows_ptr[c], s.rows_ptr[c + 1]):
            k = s.rows[p]
            value = s.score[k]
            if value - value != 0.0:
                t_out[0] = t
                return STATUS_NONFINITE_SCORE
            # A sample of weight zero never updates.
            if s.signs[p] * value <= s.threshold and step_i != 0.0:
                s.upd_rows[n_up] = <int> k
                s.upd_delta[n_up] = step_i * s.signs[p]
                n_up += 1
        if n_up > 0:
            if not need_stats and s.kind != KERNEL_PRECOMPUTED:
                _row_stats(xv, &x)
            s.fill_slot = -1
            _update(s, sv, col, xv, &x, i, n_up, values)
            if s.kc != NULL and s.fill_slot >= 0:
                _slot_column(s, values, X, sv, s.fill_slot)
                _cache_add(s, s.fill_slot, NULL, s.alpha + s.fill_slot * K)
        for p in range(s.rows_ptr[c], s.rows_ptr[c + 1]):
            s.visits[s.rows[p]] += 1.0
        if s.counters[C_N_SV] > s.counters[C_MAX_SV]:
            s.counters[C_MAX_SV] = s.counters[C_N_SV]
    t_out[0] = t_end
    return STATUS_DONE


cdef Py_ssize_t _longest_row(const MatrixView* X) noexcept:
    cdef Py_ssize_t i, longest = 0
    for i in range(X.n_rows):
        if X.indptr[i + 1] - X.indptr[i] > longest:
            longest = X.indptr[i + 1] - X.indptr[i]
    return longest


cdef class BudgetWalker:
    """The budgeted walk over the arrays of one support set (those of
    ``_kernel_budget._BudgetState``, kept alive here and used in place:
    they must not be reallocated while the walker lives).

    Parameters
    ----------
    params : Params
        The walk's parameters (a dict from Python).
    support : object
        The support set's features: ``n_features``, and with
        ``sparse_store`` False the dense store ``sv`` (feature-major,
        (n_features, B), in the dtype of X; (1, B) with a Gram matrix) and
        ``col`` (n_features values of that dtype), with ``sparse_store``
        True the CSR store ``pool`` (values in the dtype of X),
        ``pool_index`` (int32, as many), ``sv_start`` (int64, B),
        ``sv_len`` (int32, B), ``pool_order`` (int64, B) and the hash
        table of a visited row, ``table_keys`` (int32) and
        ``table_values`` (float64), of a power of two of at least 16 and
        four times the stored values of the longest row visited.  And its
        arrays ``sv_norm``, ``sv_self``, ``sv_row``,
        ``sv_class``, ``sv_time``, ``sv_entry`` (B each), ``alpha``,
        ``asum`` (B, K), ``P`` ((B, B) for "projection"), ``visits`` (K),
        ``forget`` (2, K), ``counters`` (int64, N_COUNTERS), ``rng``
        (uint64, 1), ``kv_buffer`` (B), ``work`` (3 B + 4 K + M^2 + M
        doubles) and ``iwork`` (K + M ints).
    """

    cdef State s
    cdef object support
    cdef void* sv
    cdef void* col
    cdef bint float32
    cdef double* kv

    def __init__(self, Params params, support):
        cdef double[::1] sv_norm = support.sv_norm
        cdef double[::1] sv_self = support.sv_self
        cdef int64_t[::1] sv_row = support.sv_row
        cdef int[::1] sv_class = support.sv_class
        cdef int64_t[::1] sv_time = support.sv_time
        cdef int64_t[::1] sv_entry = support.sv_entry
        cdef double[:, ::1] alpha = support.alpha
        cdef double[:, ::1] asum = support.asum
        cdef double[:, ::1] P = support.P
        cdef double[::1] visits = support.visits
        cdef double[:, ::1] forget = support.forget
        cdef int64_t[::1] counters = support.counters
        cdef uint64_t[::1] rng = support.rng
        cdef double[::1] kv = support.kv_buffer
        cdef double[::1] work = support.work
        cdef int[::1] iwork = support.iwork
        cdef Py_ssize_t B = params.B, K = params.K, M = params.M
        if (sv_norm.shape[0] != B or alpha.shape[0] != B or alpha.shape[1] != K
                or asum.shape[0] != B or asum.shape[1] != K
                or counters.shape[0] != N_COUNTERS
                or work.shape[0] != 3 * B + 4 * K + M * M + M
                or iwork.shape[0] != K + M
                or (params.strategy == STRATEGY_PROJECTION
                    and (P.shape[0] != B or P.shape[1] != B))):
            raise ValueError("BudgetWalker: the arrays do not fit B, K, M.")
        self.support = support
        self.s.d = support.n_features
        self.s.sparse_store = support.sparse_store
        if self.s.sparse_store:
            self._bind_pool(support, B)
        else:
            if support.sv.shape[1] != B:
                raise ValueError("BudgetWalker: sv must have B columns.")
            self._bind_features(support.sv, support.col)
        self.s.kind = params.kind
        self.s.degree = params.degree
        self.s.gamma = params.gamma
        self.s.coef0 = params.coef0
        self.s.add = params.add
        self.s.threshold = params.threshold
        self.s.ridge = params.ridge
        self.s.strategy = params.strategy
        self.s.average = params.average
        self.s.K = K
        self.s.B = B
        self.s.M = M
        self.s.step_by_class = params.step_by_class
        self.s.sv_norm = &sv_norm[0]
        self.s.sv_self = &sv_self[0]
        self.s.sv_row = &sv_row[0]
        self.s.sv_class = &sv_class[0]
        self.s.sv_time = &sv_time[0]
        self.s.sv_entry = &sv_entry[0]
        self.s.alpha = &alpha[0, 0]
        self.s.asum = &asum[0, 0]
        self.s.P = &P[0, 0]
        self.s.visits = &visits[0]
        self.s.forget_q = &forget[0, 0]
        self.s.forget_m = &forget[1, 0]
        self.s.counters = &counters[0]
        self.s.rng = &rng[0]
        self.kv = &kv[0]
        self.s.kv = &work[0]
        self.s.kr = &work[B]
        self.s.u = &work[2 * B]
        self.s.score = &work[3 * B]
        self.s.newc = &work[3 * B + K]
        self.s.newsum = &work[3 * B + 2 * K]
        self.s.upd_delta = &work[3 * B + 3 * K]
        self.s.upd_rows = &iwork[0]
        self.s.nb = &iwork[K]
        self.s.G = &work[3 * B + 4 * K]
        self.s.cvec = &work[3 * B + 4 * K + M * M]
        self._bind_cache(support, B, K)

    cdef _bind_cache(self, support, Py_ssize_t B, Py_ssize_t K):
        """The score cache, when ``support.cache_kc`` is not None:
        ``cache_kc`` (B, n), ``cache_sc`` (K, n) and ``cache_work`` (n + K
        doubles), float64; with ``support.cache_store`` (n, n) and
        ``cache_store_done`` (n, uint8, zeros), the store of columns by row."""
        cdef double[:, ::1] kc, sc, store
        cdef double[::1] cw
        cdef unsigned char[::1] done
        self.s.kc = NULL
        self.s.kstore = NULL
        self.s.kstore_done = NULL
        self.s.kc_pairs = False
        self.s.n_cache = 0
        self.s.fill_slot = -1
        if getattr(support, "cache_kc", None) is None:
            return
        kc = support.cache_kc
        sc = support.cache_sc
        cw = support.cache_work
        if (kc.shape[0] != B or sc.shape[1] != kc.shape[1]
                or sc.shape[0] != K or cw.shape[0] != kc.shape[1] + K
                or kc.shape[1] < 1 or self.s.sparse_store
                or self.s.strategy == STRATEGY_PROJECTION
                or self.s.strategy == STRATEGY_FORGETRON):
            raise ValueError("BudgetWalker: the score cache does not fit.")
        self.s.kc = &kc[0, 0]
        self.s.sc = &sc[0, 0]
        self.s.n_cache = kc.shape[1]
        self.s.cv = &cw[0]
        self.s.dk1 = &cw[kc.shape[1]]
        if getattr(support, "cache_store", None) is None:
            return
        store = support.cache_store
        done = support.cache_store_done
        if store.shape[0] != kc.shape[1] or store.shape[1] != kc.shape[1] \
                or done.shape[0] != kc.shape[1]:
            raise ValueError("BudgetWalker: the column store does not fit.")
        self.s.kstore = &store[0, 0]
        self.s.kstore_done = &done[0]

    cdef _bind_pool(self, support, Py_ssize_t B):
        cdef float[::1] pool_f
        cdef double[::1] pool_d
        cdef int[::1] pool_index = support.pool_index
        cdef int64_t[::1] sv_start = support.sv_start
        cdef int[::1] sv_len = support.sv_len
        cdef int64_t[::1] pool_order = support.pool_order
        cdef int[::1] table_keys = support.table_keys
        cdef double[::1] table_values = support.table_values
        pool = support.pool
        if (pool.shape[0] != pool_index.shape[0] or pool.shape[0] < 1
                or sv_start.shape[0] != B or sv_len.shape[0] != B
                or pool_order.shape[0] != B
                or table_keys.shape[0] != table_values.shape[0]
                or table_keys.shape[0] < 16):
            raise ValueError("BudgetWalker: the CSR store does not fit B.")
        self.float32 = pool.dtype == np.float32
        if self.float32:
            pool_f = pool
            self.sv = &pool_f[0]
        else:
            pool_d = pool
            self.sv = &pool_d[0]
        self.col = NULL
        self.s.pool_index = &pool_index[0]
        self.s.sv_start = &sv_start[0]
        self.s.sv_len = &sv_len[0]
        self.s.pool_order = &pool_order[0]
        self.s.pool_cap = pool.shape[0]
        self.s.table_keys = &table_keys[0]
        self.s.table_values = &table_values[0]
        self.s.table_size = table_keys.shape[0]

    cdef _bind_features(self, sv, col):
        cdef float[:, ::1] sv_f
        cdef float[::1] col_f
        cdef double[:, ::1] sv_d
        cdef double[::1] col_d
        self.float32 = sv.dtype == np.float32
        if self.float32:
            sv_f = sv
            col_f = col
            self.sv = &sv_f[0, 0]
            self.col = &col_f[0]
        else:
            sv_d = sv
            col_d = col
            self.sv = &sv_d[0, 0]
            self.col = &col_d[0]

    cdef _check_rows(self, Matrix X):
        if X.view.float32 != self.float32:
            raise TypeError("BudgetWalker: X must have the dtype of the "
                            "support vectors.")
        if self.s.kind == KERNEL_PRECOMPUTED:
            # Kernel values are read from X, a Gram matrix: its rows are
            # those the support vectors' entries index.
            self.s.d = X.view.n_features
        elif X.view.n_features != self.s.d:
            raise ValueError("BudgetWalker: X must have the features of the "
                             "support vectors.")
        elif self.s.sparse_store:
            if not X.view.sparse:
                raise ValueError("BudgetWalker: the CSR store reads CSR rows.")
            if 4 * _longest_row(&X.view) > self.s.table_size:
                raise ValueError("BudgetWalker: rows longer than the hash "
                                 "table holds.")

    def walk(self, Matrix X, const int[::1] order, Py_ssize_t t_start,
             Py_ssize_t t_end, const int[::1] y_class, const double[::1] step,
             table, int64_t[::1] updates):
        """Visit the rows ``order[t_start:t_end]`` of X; returns (status,
        position reached).  ``y_class`` is the class of every row of X,
        ``step`` the size of each row's updates (or, with
        ``step_by_class``, of each class's), ``table`` the one-vs-all
        table ``(rows_ptr, rows, signs)``; ``updates`` (K) counts the
        updates of every row, in place."""
        cdef const int[::1] rows_ptr = table[0]
        cdef const int[::1] rows = table[1]
        cdef const signed char[::1] signs = table[2]
        cdef Py_ssize_t t_out = t_start
        cdef int status
        cdef State* s = &self.s
        self._check_rows(X)
        if s.kc != NULL and (X.view.n_rows != s.n_cache
                             or s.kind == KERNEL_PRECOMPUTED):
            raise ValueError("BudgetWalker: the score cache holds the rows "
                             "of X, of a built-in kernel.")
        s.kc_pairs = s.kc != NULL and not X.view.sparse
        if t_end <= t_start:
            return STATUS_DONE, t_start
        if not 0 <= t_start <= t_end <= order.shape[0] or updates.shape[0] != s.K:
            raise ValueError("BudgetWalker.walk: visits beyond the order, or "
                             "updates not of K entries.")
        s.y_class = &y_class[0]
        s.step = &step[0]
        s.rows_ptr = &rows_ptr[0]
        s.rows = &rows[0]
        s.signs = &signs[0]
        s.updates = &updates[0]
        with nogil:
            if self.float32:
                status = _walk(s, <const float*> X.view.values, &X.view,
                               <float*> self.sv, <float*> self.col, &order[0],
                               t_start, t_end, &t_out)
            else:
                status = _walk(s, <const double*> X.view.values, &X.view,
                               <double*> self.sv, <double*> self.col,
                               &order[0], t_start, t_end, &t_out)
        return status, t_out

    def scores(self, Matrix X, const double[:, ::1] coef, double[:, ::1] out):
        """out[i, k] = sum_j coef[k, j] K'(sv_j, x_i) for the rows of X and
        the support vectors, with the walk's kernels (the scores a visit
        computes): ``coef`` is (any number of rows, >= n_sv)."""
        cdef Py_ssize_t n_sv = self.s.counters[C_N_SV]
        self._check_rows(X)
        if n_sv == 0 or X.view.n_rows == 0:
            out[:, :] = 0.0
            return
        if (coef.shape[1] < n_sv or out.shape[0] != X.view.n_rows
                or out.shape[1] != coef.shape[0]):
            raise ValueError("BudgetWalker.scores: coef must be (width, "
                             ">= n_sv) and out (n, width).")
        with nogil:
            if self.float32:
                _scores(&self.s, <const float*> X.view.values, &X.view,
                        <const float*> self.sv, n_sv, coef, out, self.kv)
            else:
                _scores(&self.s, <const double*> X.view.values, &X.view,
                        <const double*> self.sv, n_sv, coef, out, self.kv)

    def stats(self, Py_ssize_t n):
        """Compute what the walk keeps about the support vectors ``< n``:
        their norm statistic and K'(v, v)."""
        if self.float32:
            _stats(&self.s, <const float*> self.sv, n)
        else:
            _stats(&self.s, <const double*> self.sv, n)

    def gram(self, Py_ssize_t n, double[:, ::1] out):
        """out[a, b] = K'(sv_a, sv_b) for a, b < n, with the walk's kernels."""
        if out.shape[0] < n or out.shape[1] < n:
            raise ValueError("BudgetWalker.gram: out must be at least (n, n).")
        with nogil:
            if self.float32:
                _gram(&self.s, <const float*> self.sv, n, out)
            else:
                _gram(&self.s, <const double*> self.sv, n, out)


cdef void _scores(
    State* s, const floating* values, const MatrixView* X,
    const floating* sv, Py_ssize_t n_sv, const double[:, ::1] coef,
    double[:, ::1] out, double* kv,
) noexcept nogil:
    """The loop of :meth:`BudgetWalker.scores` over the rows of X."""
    cdef Py_ssize_t i, k, d = X.n_features
    cdef const floating* xv
    cdef Probe x
    x.idx = NULL
    x.nnz = d
    x.sparse = X.sparse
    for i in range(X.n_rows):
        if X.sparse:
            xv = values + X.indptr[i]
            x.idx = X.indices + X.indptr[i]
            x.nnz = X.indptr[i + 1] - X.indptr[i]
        else:
            xv = values + i * d
        _row_stats(xv, &x)
        _kernels(s, xv, &x, sv, n_sv, kv)
        for k in range(coef.shape[0]):
            out[i, k] = skp_dot_d(kv, &coef[k, 0], n_sv)


cdef void _stats(State* s, const floating* sv, Py_ssize_t n) noexcept nogil:
    """The loop of :meth:`BudgetWalker.stats`."""
    cdef Py_ssize_t j, f
    cdef double sq, l1, a
    for j in range(n):
        sq = 0.0
        l1 = 0.0
        if s.sparse_store:
            for f in range(s.sv_start[j], s.sv_start[j] + s.sv_len[j]):
                a = sv[f]
                sq += a * a
                l1 += fabs(a)
        for f in range(0 if s.sparse_store else s.d):
            a = sv[f * s.B + j]
            sq += a * a
            l1 += fabs(a)
        s.sv_norm[j] = _norm_stat(s, sq, l1)
        s.sv_self[j] = _self_kernel(s, sq, l1)


cdef void _gram(State* s, const floating* sv, Py_ssize_t n,
                double[:, ::1] out) noexcept nogil:
    """The loop of :meth:`BudgetWalker.gram`."""
    cdef Py_ssize_t a, b
    for a in range(n):
        for b in range(a, n):
            out[a, b] = _pair(s, sv, a, b)
            out[b, a] = out[a, b]


def ridge_inverse(double[:, ::1] G, Py_ssize_t n, double ridge,
                  double[:, ::1] out):
    """out[:n, :n] = (G[:n, :n] + ridge I)^-1 for a symmetric positive
    semi-definite G (overwritten by its Cholesky factor), in compiled
    single-threaded code (a BLAS call on a loaded machine can spin its
    threads)."""
    cdef Py_ssize_t i, j, ld = G.shape[1], ldo = out.shape[1]
    cdef double* col
    if n == 0:
        return
    with nogil:
        for i in range(n):
            G[i, i] += ridge
        # Factor once (a solve with c = 0 factors G), then solve per column.
        for j in range(n):
            for i in range(n):
                out[i, j] = 1.0 if i == j else 0.0
        _cholesky_factor(&G[0, 0], n, ld)
        for j in range(n):
            _cholesky_apply(&G[0, 0], n, ld, &out[0, j], ldo)
