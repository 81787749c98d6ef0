# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The compiled walk of the budgeted kernel perceptron, included by
``_kernel_budget_fast.pyx`` and its AVX2 twin ``_kernel_budget_fast_avx2.pyx``.

With a budget of B support vectors, a visit computes the scores of the
visited sample from the support vectors themselves: B kernel values,
O(B * n_features) (O(B * nnz) for a CSR row), whatever the number of
training samples.  Nothing of length n_samples is kept but the labels,
weights and the order of the epoch.

The support vectors live in a dense buffer ``sv`` of B rows in the dtype of
X (float32 or float64, through the fused type ``floating``); their slots
``0 .. n_sv - 1`` are the support list: a removal moves the last slot into
the hole and a new support vector is appended, as the "random" strategy of
the unbudgeted walk draws positions in its list.  Every support vector
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
vectors in kernel space (``_carry_local``; M is ``iparams[7]``, wider for
these strategies than for "local_projection"): a removal no longer takes its
share of the average with it.

The loops of a visit run over the B support vectors with unit stride, so
that the compiler vectorizes them; the exponential kernels use the
package's branch-free exponential and the dot products its fixed summation
order (``skp_exp`` and ``skp_dot_d`` of ``_kernel_fast.h``), so that both
builds give the same bits.
"""

import numpy as np
from cython cimport floating
from libc.math cimport fabs, sqrt, tanh
from libc.stdint cimport int64_t, uint64_t

from .._core._random cimport randint

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
    N_COUNTERS = 3


cdef struct State:
    Py_ssize_t d
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
    const int* y_class
    const double* step
    bint step_by_class
    const int* rows_ptr
    const int* rows
    const signed char* signs
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
    double* kv
    double* kr
    double* u
    double* score
    double* newc
    double* newsum
    int* upd_rows
    double* upd_delta
    Py_ssize_t M
    int* nb
    double* G
    double* cvec


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


cdef double _kernels(
    State* s, const floating* xv, const int* xi, Py_ssize_t nnz, bint sparse,
    double x_sq, const floating* sv, Py_ssize_t n_sv, double* out,
    const double* alpha=NULL,
) noexcept nogil:
    """out[j] = K(sv_j, x) + add for the first ``n_sv`` support vectors; x is
    a dense row ``xv`` (``sparse`` False) or ``nnz`` values at ``xi``.

    ``sv`` is feature-major (feature f of vector j at ``f * B + j``): every
    loop below runs over the support vectors with unit stride, so that it
    is vectorized whatever the number of features.  With ``alpha`` (one
    coefficient per vector) returns the dot product of out with it, as
    ``skp_dot_d`` computes it; otherwise 0."""
    cdef Py_ssize_t j, d = s.d, B = s.B
    cdef double t, xn = 0.0
    cdef int kind = s.kind
    # 0: squared distances, 1: L1 distances, 2: dot products.
    cdef int mode = 0 if kind == KERNEL_RBF else (
        1 if kind == KERNEL_LAPLACIAN else 2)
    cdef bint folded = not sparse and mode < 2 and d > 0 and s.gamma != 0.0
    if kind == KERNEL_PRECOMPUTED:
        for j in range(n_sv):
            out[j] = xv[s.sv_row[j]] + s.add
        return skp_dot_d(out, alpha, n_sv) if alpha != NULL else 0.0
    if not sparse:
        _dense_reductions(mode, sv, B, n_sv, d, xv, out,
                          -s.gamma if folded else 0.0)
    else:
        if mode == 1:
            for j in range(n_sv):
                out[j] = s.sv_norm[j]
        else:
            for j in range(n_sv):
                out[j] = 0.0
        _sparse_reductions(mode, sv, B, n_sv, nnz, xi, xv, out)
        if mode == 0:
            # |a - x|^2 from the norms (clipped at 0 against rounding).
            for j in range(n_sv):
                t = s.sv_norm[j] + x_sq - 2.0 * out[j]
                out[j] = t if t > 0.0 else 0.0
        elif mode == 1:
            for j in range(n_sv):
                if out[j] < 0.0:
                    out[j] = 0.0
    if mode < 2:
        _exp_line(out, n_sv, -s.gamma, s.add, folded)
        return skp_dot_d(out, alpha, n_sv) if alpha != NULL else 0.0
    if kind == KERNEL_COSINE:
        xn = sqrt(x_sq)
        for j in range(n_sv):
            out[j] = (out[j] / (s.sv_norm[j] * xn)
                      if s.sv_norm[j] > 0.0 and xn > 0.0 else 0.0)
    elif kind != KERNEL_LINEAR:
        for j in range(n_sv):
            out[j] = _transform(s, out[j])
    for j in range(n_sv):
        out[j] += s.add
    return skp_dot_d(out, alpha, n_sv) if alpha != NULL else 0.0


cdef void _kernels_of_sv(
    State* s, floating* sv, floating* col, Py_ssize_t r, Py_ssize_t n_sv,
    double* out,
) noexcept nogil:
    """out[j] = K'(sv_r, sv_j), with support vector r gathered into ``col``."""
    cdef Py_ssize_t f
    cdef double sq = 0.0, a
    for f in range(s.d):
        a = sv[f * s.B + r]
        col[f] = sv[f * s.B + r]
        sq += a * a
    _kernels(s, <const floating*> col, <const int*> NULL, s.d, False, sq,
             <const floating*> sv, n_sv, out)


cdef inline void _row_stats(
    const floating* xv, Py_ssize_t n, double* sq, double* norm1,
) noexcept nogil:
    cdef Py_ssize_t f
    cdef double a
    sq[0] = 0.0
    norm1[0] = 0.0
    for f in range(n):
        a = xv[f]
        sq[0] += a * a
        norm1[0] += fabs(a)


# -- the support set -----------------------------------------------------------

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
        best_loss = -1.0
        for j in range(n_sv):
            loss = 0.0
            for k in range(s.K):
                a = s.alpha[j * s.K + k]
                loss += a * a
            loss *= s.sv_self[j]
            if best_loss < 0.0 or loss < best_loss:
                best_loss = loss
                best = j
        return best
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


cdef double _pair(
    State* s, const floating* sv, Py_ssize_t a, Py_ssize_t b,
) noexcept nogil:
    """K'(sv_a, sv_b) for two support vectors (with a Gram matrix, ``sv``
    is that matrix, rows of ``s.d`` entries)."""
    cdef Py_ssize_t f, B = s.B
    cdef double acc = 0.0, x, y
    if s.kind == KERNEL_PRECOMPUTED:
        return sv[s.sv_row[a] * s.d + s.sv_row[b]] + s.add
    for f in range(s.d):
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


cdef void _carry_local(
    State* s, const floating* sv, Py_ssize_t r, Py_ssize_t n_sv, bint current,
) noexcept nogil:
    """Project vector r onto the span of its M nearest kept vectors in
    kernel space (the j of largest K'(r, j)^2 / K'(j, j), ``s.kr`` holding
    K'(sv_r, sv_j)): coefficients c = (G + ridge I)^-1 K'(neighbours, r).
    With ``current``, r's current coefficients and Daume's sums are carried
    by c; otherwise only its share of the average, which in Daume's terms is
    ``-(asum - visits alpha)`` (what is left of the sums once its current
    coefficient is dropped)."""
    cdef Py_ssize_t q, j, a, b, pos, cnt = 0, K = s.K, M = s.M
    cdef double v, ca
    # One pass keeping the M largest K'(r, j)^2 / K'(j, j) in decreasing
    # order (``cvec`` holds the values meanwhile), ties to the lower slot.
    for j in range(n_sv):
        if j == r or not s.sv_self[j] > 0.0:
            continue
        v = s.kr[j] * s.kr[j] / s.sv_self[j]
        if cnt == M and not v > s.cvec[M - 1]:
            continue
        pos = cnt if cnt < M else M - 1
        while pos > 0 and s.cvec[pos - 1] < v:
            s.cvec[pos] = s.cvec[pos - 1]
            s.nb[pos] = s.nb[pos - 1]
            pos -= 1
        s.cvec[pos] = v
        s.nb[pos] = <int> j
        if cnt < M:
            cnt += 1
    for a in range(cnt):
        s.cvec[a] = s.kr[s.nb[a]]
    if cnt == 0:
        return
    for a in range(cnt):
        for b in range(a, cnt):
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
    State* s, floating* sv, floating* col, const floating* xv, const int* xi,
    Py_ssize_t nnz, bint sparse, double x_sq, double x_l1, Py_ssize_t i,
    Py_ssize_t n_up, const floating* gram,
) noexcept nogil:
    """The update of visited sample i in the ``n_up`` rows of ``upd_rows``
    (kernel values with the support vectors in ``kv``; ``gram`` the rows of
    a Gram matrix, read by ``KERNEL_PRECOMPUTED`` instead of ``sv``)."""
    cdef Py_ssize_t j, k, u, f, p, r, t, K = s.K, d = s.d
    cdef Py_ssize_t n_sv = s.counters[C_N_SV]
    cdef double delta
    cdef bint pairwise = s.kind == KERNEL_PRECOMPUTED
    cdef const floating* pairs_of = gram if pairwise else <const floating*> sv
    # A sample that is already a support vector keeps its slot.
    for j in range(n_sv):
        if s.sv_row[j] == i:
            for u in range(n_up):
                k = s.upd_rows[u]
                delta = s.upd_delta[u]
                s.alpha[j * K + k] += delta
                if s.average:
                    s.asum[j * K + k] += s.visits[k] * delta
                s.updates[k] += 1
                s.forget_m[k] += 1.0
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
            else:
                _kernels_of_sv(s, sv, col, r, n_sv, s.kr)
        if s.strategy == STRATEGY_FORGETRON:
            _forgetron_shrink(s, r, n_sv, s.kv[r])
        if s.strategy == STRATEGY_PROJECTION:
            _project_out(s, r, n_sv)
        elif s.strategy == STRATEGY_LOCAL_PROJECTION:
            _carry_local(s, pairs_of, r, n_sv, True)
        elif s.average:
            _carry_local(s, pairs_of, r, n_sv, False)
        # The new vector takes the slot of the removed one.
        t = r
    if pairwise:
        # The diagonal of the Gram matrix; no features to keep.
        s.sv_norm[t] = 0.0
        s.sv_self[t] = xv[i] + s.add
    elif sparse:
        for f in range(d):
            sv[f * s.B + t] = 0
        for p in range(nnz):
            sv[xi[p] * s.B + t] = xv[p]
    else:
        for f in range(d):
            sv[f * s.B + t] = xv[f]
    if not pairwise:
        s.sv_norm[t] = _norm_stat(s, x_sq, x_l1)
        s.sv_self[t] = _self_kernel(s, x_sq, x_l1)
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


cdef int _walk(
    State* s, const floating* values, const int* indices, const int* indptr,
    bint sparse, floating* sv, floating* col, const int* order,
    Py_ssize_t t_start, Py_ssize_t t_end, Py_ssize_t* t_out,
) noexcept nogil:
    cdef Py_ssize_t t, i, j, k, p, n_sv, nnz, n_up, K = s.K, d = s.d
    cdef const floating* xv
    cdef const int* xi = NULL
    cdef double x_sq = 0.0, x_l1 = 0.0, kj, value, step_i
    cdef int c
    cdef bint need_stats = sparse or s.kind == KERNEL_COSINE
    for t in range(t_start, t_end):
        i = order[t]
        if sparse:
            xv = values + indptr[i]
            xi = indices + indptr[i]
            nnz = indptr[i + 1] - indptr[i]
        else:
            xv = values + i * d
            nnz = d
        if need_stats:
            _row_stats(xv, nnz, &x_sq, &x_l1)
        n_sv = s.counters[C_N_SV]
        if K == 1:
            s.score[0] = _kernels(s, xv, xi, nnz, sparse, x_sq, sv, n_sv, s.kv,
                                  s.alpha)
        else:
            _kernels(s, xv, xi, nnz, sparse, x_sq, sv, n_sv, s.kv)
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
                _row_stats(xv, nnz, &x_sq, &x_l1)
            _update(s, sv, col, xv, xi, nnz, sparse, x_sq, x_l1, i, n_up,
                    values)
        for p in range(s.rows_ptr[c], s.rows_ptr[c + 1]):
            s.visits[s.rows[p]] += 1.0
        if s.counters[C_N_SV] > s.counters[C_MAX_SV]:
            s.counters[C_MAX_SV] = s.counters[C_N_SV]
    t_out[0] = t_end
    return STATUS_DONE


cdef void _init(
    State* s, const int64_t[::1] iparams, const double[::1] dparams,
) noexcept:
    s.kind = <int> iparams[0]
    s.degree = <int> iparams[1]
    s.strategy = <int> iparams[2]
    s.B = iparams[3]
    s.average = iparams[4] != 0
    s.K = iparams[5]
    s.d = iparams[6]
    s.gamma = dparams[0]
    s.coef0 = dparams[1]
    s.add = dparams[2]
    s.threshold = dparams[3]
    s.ridge = dparams[4]
    s.M = iparams[7]
    s.step_by_class = iparams[8] != 0


def walk(
    const floating[::1] values, const int[::1] indices, const int[::1] indptr,
    bint sparse, floating[:, ::1] sv, floating[::1] col, const int[::1] order,
    Py_ssize_t t_start, Py_ssize_t t_end, const int[::1] y_class,
    const double[::1] step,
    const int[::1] rows_ptr, const int[::1] rows, const signed char[::1] signs,
    const int64_t[::1] iparams, const double[::1] dparams,
    double[::1] sv_norm, double[::1] sv_self, int64_t[::1] sv_row,
    int[::1] sv_class, int64_t[::1] sv_time, int64_t[::1] sv_entry,
    double[:, ::1] alpha, double[:, ::1] asum, double[:, ::1] P,
    double[::1] visits, double[:, ::1] forget, int64_t[::1] counters,
    uint64_t[::1] rng, int64_t[::1] updates, double[::1] work, int[::1] iwork,
):
    """Visit ``order[t_start:t_end]``; returns (status, position reached).

    The arrays are the state of :class:`_kernel_budget._BudgetState`
    (``sv``: feature-major, (n_features, B); ``col``: n_features values;
    ``step``: the size of each sample's updates, or with ``iparams[8]`` of
    each class's, so that unweighted data need no array per sample;
    ``work``: 3 B + 4 K + M^2 + M doubles, ``iwork``: K + M ints, with M
    the neighbours of a local projection)."""
    cdef State s
    cdef Py_ssize_t t_out = t_start, B, K
    cdef int status
    _init(&s, iparams, dparams)
    B = s.B
    K = s.K
    if t_end <= t_start:
        return STATUS_DONE, t_start
    s.y_class = &y_class[0]
    s.step = &step[0]
    s.rows_ptr = &rows_ptr[0]
    s.rows = &rows[0]
    s.signs = &signs[0]
    s.sv_norm = &sv_norm[0]
    s.sv_self = &sv_self[0]
    s.sv_row = &sv_row[0]
    s.sv_class = &sv_class[0]
    s.sv_time = &sv_time[0]
    s.sv_entry = &sv_entry[0]
    s.alpha = &alpha[0, 0]
    s.asum = &asum[0, 0]
    s.P = &P[0, 0]
    s.visits = &visits[0]
    s.forget_q = &forget[0, 0]
    s.forget_m = &forget[1, 0]
    s.counters = &counters[0]
    s.rng = &rng[0]
    s.updates = &updates[0]
    s.kv = &work[0]
    s.kr = &work[B]
    s.u = &work[2 * B]
    s.score = &work[3 * B]
    s.newc = &work[3 * B + K]
    s.newsum = &work[3 * B + 2 * K]
    s.upd_delta = &work[3 * B + 3 * K]
    s.upd_rows = &iwork[0]
    s.nb = &iwork[K]
    s.G = &work[3 * B + 4 * K]
    s.cvec = &work[3 * B + 4 * K + s.M * s.M]
    with nogil:
        status = _walk(&s, &values[0], &indices[0], &indptr[0], sparse,
                       &sv[0, 0], &col[0], &order[0], t_start, t_end, &t_out)
    return status, t_out


def scores(
    const floating[::1] values, const int[::1] indices, const int[::1] indptr,
    bint sparse, Py_ssize_t n_x, floating[:, ::1] sv, Py_ssize_t n_sv,
    const int64_t[::1] iparams, const double[::1] dparams,
    double[::1] sv_norm, const double[:, ::1] coef, double[::1] kv,
    double[:, ::1] out,
):
    """out[i, k] = sum_j coef[k, j] K'(sv_j, x_i) for the ``n_x`` rows of X
    and the first ``n_sv`` support vectors, with the walk's kernels (the
    scores a visit computes): ``coef`` is (K, >= n_sv), ``kv`` B doubles."""
    cdef State s
    cdef Py_ssize_t i, k, d, nnz
    cdef const floating* xv
    cdef const int* xi = NULL
    cdef double x_sq = 0.0, x_l1 = 0.0
    _init(&s, iparams, dparams)
    s.sv_norm = &sv_norm[0]
    d = s.d
    if n_x == 0 or n_sv == 0:
        out[:, :] = 0.0
        return
    with nogil:
        for i in range(n_x):
            if sparse:
                xv = &values[0] + indptr[i]
                xi = &indices[0] + indptr[i]
                nnz = indptr[i + 1] - indptr[i]
            else:
                xv = &values[0] + i * d
                nnz = d
            _row_stats(xv, nnz, &x_sq, &x_l1)
            _kernels(&s, xv, xi, nnz, sparse, x_sq, &sv[0, 0], n_sv, &kv[0])
            for k in range(s.K):
                out[i, k] = skp_dot_d(&kv[0], &coef[k, 0], n_sv)


def stats(floating[:, ::1] sv, Py_ssize_t n, const int64_t[::1] iparams,
          const double[::1] dparams, double[::1] sv_norm, double[::1] sv_self):
    """What the walk keeps about the support vectors ``< n`` of the
    feature-major ``sv``: their norm statistic and K'(v, v)."""
    cdef State s
    cdef Py_ssize_t j, f
    cdef double sq, l1, a
    _init(&s, iparams, dparams)
    for j in range(n):
        sq = 0.0
        l1 = 0.0
        for f in range(s.d):
            a = sv[f, j]
            sq += a * a
            l1 += fabs(a)
        sv_norm[j] = _norm_stat(&s, sq, l1)
        sv_self[j] = _self_kernel(&s, sq, l1)


def gram(floating[:, ::1] sv, Py_ssize_t n, const int64_t[::1] iparams,
         const double[::1] dparams, double[::1] sv_norm, double[:, ::1] out):
    """out[a, b] = K'(sv_a, sv_b) for a, b < n, with the walk's kernels."""
    cdef State s
    cdef Py_ssize_t a, b
    _init(&s, iparams, dparams)
    s.sv_norm = &sv_norm[0]
    with nogil:
        for a in range(n):
            for b in range(a, n):
                out[a, b] = _pair(&s, &sv[0, 0], a, b)
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
