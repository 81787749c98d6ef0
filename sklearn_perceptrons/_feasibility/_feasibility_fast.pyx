# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Compiled sweeps of the relaxation method and of the perceptron.

Both solvers of :mod:`sklearn_perceptrons.feasibility` run here, on one
generic system written as

    r_i(x) = sgn * (a_i . x) - c_i  <=  0       for every row i,

* relaxation method (``perceptron=False``): ``sgn = +1``, ``c = b``; row i is
  *violated* when ``r_i > tol`` and the update is the relaxed projection
  ``x <- x - eta * r_i / ||a_i||^2 * a_i``;
* perceptron (``perceptron=True``): ``sgn = -1``, ``c = -threshold``, so that
  ``r_i = threshold - a_i . w``; row i is violated when ``r_i >= 0`` (that is
  ``a_i . w <= threshold``) and the update is ``w <- w + a_i``.

A is read in place: a C-contiguous dense array (row i starts at ``i * p``) or
the three arrays of a CSR matrix, in float32 or float64 (one source through the
fused type ``floating``, 32- or 64-bit indices through ``index_t``). The iterate
``x`` and every accumulator are float64 whatever the dtype of A.

Python draws nothing per row: the orders that need randomness use a splitmix64
generator (a 64-bit state, a few integer operations per number) seeded once
from Python.

The loops run without the GIL; every ~16 million multiply-adds they take the
GIL just long enough to call ``PyErr_CheckSignals``, so that Ctrl-C interrupts
a long run.
"""

from cython cimport floating
from libc.math cimport isfinite, INFINITY
from libc.stdint cimport int32_t, int64_t, uint64_t
from cpython.exc cimport PyErr_CheckSignals

from .._core._random cimport randint as _randint, uniform as _uniform
from .._core._rowops cimport dense_axpy, dense_dot

import numpy as np

cdef extern from "_prefetch.h":
    void SKP_PREFETCH(const void* addr) noexcept nogil

ctypedef fused index_t:
    int32_t
    int64_t

# Order codes; feasibility.py maps names to them through ORDER_CODES.
cdef enum:
    CYCLIC = 0
    PERMUTED = 1
    RANDOM = 2
    MAX_DISTANCE = 3
    MAX_RESIDUAL = 4

# Kernel exit codes, mirrored in feasibility.py.
cdef enum:
    CONVERGED = 0
    LIMIT = 1
    NONFINITE = 3

# Bits of the per-row flags of the greedy CSR loop.
cdef enum:
    MARKED = 1     # in this step's list of rows whose residual moved
    VIOLATED = 2   # its tree leaf holds a finite priority

# Multiply-adds between two checks for a pending signal (Ctrl-C).
cdef Py_ssize_t SIGNAL_WORK = 1 << 24

ORDER_CODES = {
    "cyclic": CYCLIC,
    "permuted": PERMUTED,
    "random": RANDOM,
    "max_distance": MAX_DISTANCE,
    "max_residual": MAX_RESIDUAL,
}


# --------------------------------------------------------------------------
# Pseudo-random numbers: splitmix64 (Steele, Lea & Flood 2014).
# --------------------------------------------------------------------------

cdef inline Py_ssize_t _alias_draw(uint64_t* state, const double* prob,
                                   const Py_ssize_t* alias,
                                   Py_ssize_t n) noexcept nogil:
    """One draw from Walker's alias table: O(1), two random numbers."""
    cdef Py_ssize_t k = _randint(state, n)
    if _uniform(state) < prob[k]:
        return k
    return alias[k]


cdef int _check_signals() except -1 nogil:
    with gil:
        PyErr_CheckSignals()
    return 0


def _build_alias(const double[::1] weights, double[::1] prob,
                 Py_ssize_t[::1] alias):
    """Fill Walker's alias table for sampling i with probability ∝ weights[i].

    Vose's O(n) construction. Rows of zero weight get ``prob = 0`` and an
    alias of positive weight, so they are never drawn. At least one weight
    must be positive.
    """
    cdef Py_ssize_t n = weights.shape[0]
    cdef Py_ssize_t i, s, l, n_small = 0, n_large = 0, heavy = 0
    cdef double total = 0.0
    cdef double[::1] q = np.empty(n, dtype=np.float64)
    cdef Py_ssize_t[::1] small = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] large = np.empty(n, dtype=np.intp)
    with nogil:
        for i in range(n):
            total += weights[i]
            if weights[i] > weights[heavy]:
                heavy = i
        for i in range(n):
            q[i] = weights[i] * n / total
            if q[i] < 1.0:
                small[n_small] = i
                n_small += 1
            else:
                large[n_large] = i
                n_large += 1
        while n_small > 0 and n_large > 0:
            n_small -= 1
            s = small[n_small]
            l = large[n_large - 1]
            prob[s] = q[s]
            alias[s] = l
            q[l] = (q[l] + q[s]) - 1.0
            if q[l] < 1.0:
                n_large -= 1
                small[n_small] = l
                n_small += 1
        # Leftovers have q = 1 up to rounding.
        for i in range(n_large):
            prob[large[i]] = 1.0
            alias[large[i]] = large[i]
        for i in range(n_small):
            s = small[i]
            if weights[s] > 0:
                prob[s] = 1.0
                alias[s] = s
            else:
                prob[s] = 0.0
                alias[s] = heavy


def _alias_sample(const double[::1] weights, Py_ssize_t n_draws, uint64_t seed):
    """Test hook: ``n_draws`` row indices drawn ∝ ``weights`` as the solvers do.

    Uses the same alias table and the same generator as the ``"random"``
    order, so a statistical test of its output tests the sampler itself.
    """
    cdef Py_ssize_t n = weights.shape[0], t
    prob_arr = np.empty(n, dtype=np.float64)
    alias_arr = np.empty(n, dtype=np.intp)
    _build_alias(weights, prob_arr, alias_arr)
    cdef const double[::1] prob = prob_arr
    cdef const Py_ssize_t[::1] alias = alias_arr
    out_arr = np.empty(n_draws, dtype=np.intp)
    cdef Py_ssize_t[::1] out = out_arr
    cdef uint64_t state = seed
    with nogil:
        for t in range(n_draws):
            out[t] = _alias_draw(&state, &prob[0], &alias[0], n)
    return out_arr


# --------------------------------------------------------------------------
# Row access: a row is [start, end) in ``data``; dense rows use the column
# index ``k - start``, CSR rows ``indices[k]``.
# --------------------------------------------------------------------------

cdef inline double _dot(const floating* data, const index_t* indices,
                        Py_ssize_t start, Py_ssize_t end, bint dense,
                        const double* x) noexcept nogil:
    """a_i . x, accumulated in float64."""
    cdef Py_ssize_t k
    cdef double s = 0.0
    if dense:
        return dense_dot(data + start, end - start, x)
    for k in range(start, end):
        s += data[k] * x[indices[k]]
    return s


cdef inline void _axpy(const floating* data, const index_t* indices,
                       Py_ssize_t start, Py_ssize_t end, bint dense,
                       double alpha, double* x) noexcept nogil:
    """x <- x + alpha * a_i."""
    cdef Py_ssize_t k
    if dense:
        dense_axpy(data + start, end - start, alpha, x)
    else:
        for k in range(start, end):
            x[indices[k]] += alpha * data[k]


cdef inline Py_ssize_t _row_bounds(const index_t* indptr, Py_ssize_t i,
                                   Py_ssize_t p, bint dense,
                                   Py_ssize_t* end) noexcept nogil:
    """Row i as [start, end) in ``data``: returns start, sets ``end[0]``."""
    if dense:
        end[0] = (i + 1) * p
        return i * p
    end[0] = indptr[i + 1]
    return indptr[i]


cdef inline bint _violated(double r, bint perceptron, double tol) noexcept nogil:
    # Written as "not satisfied" so that a NaN residual never counts as
    # satisfied.
    if perceptron:
        return not (r < 0.0)
    return not (r <= tol)


cdef inline bint _all_finite(const double* x, Py_ssize_t p) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(p):
        if not isfinite(x[k]):
            return False
    return True


def _row_sqnorms(const floating[::1] data, const index_t[::1] indices,
                 const index_t[::1] indptr, Py_ssize_t n, Py_ssize_t p,
                 bint dense, double[::1] out, signed char[::1] nonzero):
    """out[i] = ||a_i||^2 in float64, nonzero[i] = any(a_i != 0); one pass.

    The two differ only when the squares underflow, which the caller reports
    (such a row is not a zero row, but it cannot be projected on either).
    """
    cdef Py_ssize_t i, k, start, end
    cdef double s
    cdef bint any_nonzero
    with nogil:
        for i in range(n):
            start = _row_bounds(&indptr[0], i, p, dense, &end)
            s = 0.0
            any_nonzero = False
            for k in range(start, end):
                s += <double>data[k] * data[k]
                any_nonzero = any_nonzero or data[k] != 0
            out[i] = s
            nonzero[i] = any_nonzero


def _matvec(const floating[::1] data, const index_t[::1] indices,
            const index_t[::1] indptr, Py_ssize_t n, Py_ssize_t p,
            bint dense, const double[::1] x, double[::1] out):
    """out = A @ x in float64, without converting A (one pass over A)."""
    cdef Py_ssize_t i, start, end
    with nogil:
        for i in range(n):
            start = _row_bounds(&indptr[0], i, p, dense, &end)
            out[i] = _dot(&data[0], &indices[0], start, end, dense, &x[0])


# --------------------------------------------------------------------------
# Row-action orders: cyclic, permuted, random.
# --------------------------------------------------------------------------

cdef int _row_action_impl(
    const floating* data, const index_t* indices, const index_t* indptr,
    Py_ssize_t n, Py_ssize_t p, bint dense,
    const double* c, const double* sqnorm, double* x,
    bint perceptron, double eta, double tol, int order, Py_ssize_t max_iter,
    uint64_t seed, Py_ssize_t* seq, const double* prob,
    const Py_ssize_t* alias, Py_ssize_t* out,
) except -1 nogil:
    """Sweeps of n row visits; out = (exit code, updates, sweeps run).

    ``seq`` (permuted, random) holds the sweep's row sequence, drawn before
    the sweep starts: the rows ahead are then known, and are prefetched (a
    random row order otherwise waits on memory at every step).
    """
    cdef Py_ssize_t sweep, s, i, j, start, end, tmp
    cdef Py_ssize_t nit = 0, updates, clean = 0, work = 0
    cdef double sgn = -1.0 if perceptron else 1.0
    cdef double d, r, coef
    cdef uint64_t state = seed
    cdef bint feasible

    out[0] = LIMIT
    out[1] = 0
    out[2] = 0
    for sweep in range(max_iter):
        out[2] = sweep + 1
        if order == PERMUTED:
            # Fisher-Yates: shuffling any arrangement gives a uniformly random
            # permutation, so the previous sweep's one is reused in place.
            for s in range(n - 1, 0, -1):
                j = _randint(&state, s + 1)
                tmp = seq[s]
                seq[s] = seq[j]
                seq[j] = tmp
        elif order == RANDOM:
            for s in range(n):
                seq[s] = _alias_draw(&state, prob, alias, n)
        updates = 0
        for s in range(n):
            if order == CYCLIC:
                i = s
            else:
                i = seq[s]
                # Two-stage prefetch: the row's bounds and constants 16 steps
                # ahead, its entries 8 steps ahead (once its bounds are in).
                if s + 16 < n:
                    j = seq[s + 16]
                    SKP_PREFETCH(&sqnorm[j])
                    SKP_PREFETCH(&c[j])
                    if not dense:
                        SKP_PREFETCH(&indptr[j])
                if s + 8 < n:
                    j = seq[s + 8]
                    if dense:
                        SKP_PREFETCH(data + j * p)
                    else:
                        SKP_PREFETCH(data + indptr[j])
                        SKP_PREFETCH(indices + indptr[j])
            if sqnorm[i] == 0.0:
                # A zero row is satisfied (Python returns "infeasible" before
                # calling this otherwise).
                clean += 1
                continue
            start = _row_bounds(indptr, i, p, dense, &end)
            d = _dot(data, indices, start, end, dense, x)
            if not isfinite(d):
                out[0] = NONFINITE
                out[1] = nit
                return 0
            r = sgn * d - c[i]
            if _violated(r, perceptron, tol):
                coef = 1.0 if perceptron else -eta * r / sqnorm[i]
                _axpy(data, indices, start, end, dense, coef, x)
                updates += 1
                nit += 1
                clean = 0
            else:
                clean += 1
                # Cyclic: n clean visits in a row have seen every row at the
                # current x, even across a sweep boundary.
                if order == CYCLIC and clean >= n:
                    out[0] = CONVERGED
                    out[1] = nit
                    return 0
            work += end - start + 1
            if work >= SIGNAL_WORK:
                work = 0
                _check_signals()
        if updates == 0:
            if order != RANDOM:
                out[0] = CONVERGED
                out[1] = nit
                return 0
            # Random order: n draws without an update need not have seen
            # every row; one read-only pass decides.
            feasible = True
            for i in range(n):
                if sqnorm[i] == 0.0:
                    continue
                start = _row_bounds(indptr, i, p, dense, &end)
                r = sgn * _dot(data, indices, start, end, dense, x) - c[i]
                if _violated(r, perceptron, tol):
                    feasible = False
                    break
            if feasible:
                out[0] = CONVERGED
                out[1] = nit
                return 0
    out[1] = nit
    return 0


def _row_action(const floating[::1] data, const index_t[::1] indices,
                const index_t[::1] indptr, Py_ssize_t n, Py_ssize_t p,
                bint dense, const double[::1] c, const double[::1] sqnorm,
                double[::1] x, bint perceptron, double eta, double tol,
                int order, Py_ssize_t max_iter, uint64_t seed,
                Py_ssize_t[::1] seq, const double[::1] prob,
                const Py_ssize_t[::1] alias):
    """Run at most ``max_iter`` sweeps of the cyclic, permuted or random order.

    Parameters
    ----------
    data, indices, indptr : memoryviews
        A: the flattened C-contiguous array (``dense=True``; ``indices`` and
        ``indptr`` are then ignored) or the three CSR arrays.
    n, p : int
        Shape of A.
    dense : bool
        Layout of A.
    c : memoryview of shape (n,)
        The constants c_i of ``r_i = sgn * a_i . x - c_i``.
    sqnorm : memoryview of shape (n,)
        Squared row norms; zero rows are skipped (they must be satisfied).
    x : memoryview of shape (p,)
        The iterate, updated in place.
    perceptron : bool
        Perceptron (``sgn=-1``, violated when ``r >= 0``, step ``+a_i``) or
        relaxation (``sgn=+1``, violated when ``r > tol``, relaxed projection).
    eta, tol : float
        Relaxation parameter and tolerance (relaxation only).
    order : int
        CYCLIC, PERMUTED or RANDOM.
    max_iter : int
        Number of sweeps; a sweep is n row visits.
    seed : uint64
        Seed of the splitmix64 generator (permuted, random).
    seq : memoryview of shape (n,)
        Workspace for the row sequence of a sweep: a permutation of range(n),
        reshuffled in place every sweep (permuted), or n weighted draws
        (random).
    prob, alias : memoryviews of shape (n,)
        Walker alias table of the row probabilities (random).

    Returns
    -------
    status : int
        0 converged, 1 sweep limit reached, 3 non-finite value met.
    nit : int
        Number of updates.
    n_sweeps : int
        Number of sweeps started.
    """
    cdef Py_ssize_t out[3]
    with nogil:
        _row_action_impl(&data[0], &indices[0], &indptr[0], n, p, dense,
                         &c[0], &sqnorm[0], &x[0], perceptron, eta, tol,
                         order, max_iter, seed, &seq[0], &prob[0], &alias[0],
                         out)
    return int(out[0]), int(out[1]), int(out[2])


# --------------------------------------------------------------------------
# Greedy orders on dense A: one fused pass r = sgn * A x - c + argmax per step.
# --------------------------------------------------------------------------

cdef int _greedy_dense_impl(
    const floating* data, Py_ssize_t n, Py_ssize_t p,
    const double* c, const double* sqnorm, const double* inv_norm, double* x,
    bint perceptron, double eta, double tol, int order, Py_ssize_t max_steps,
    Py_ssize_t* out,
) except -1 nogil:
    cdef Py_ssize_t step, j, best_i, work = 0
    cdef double sgn = -1.0 if perceptron else 1.0
    cdef double d, r, key, best, best_r, coef

    out[0] = LIMIT
    out[1] = 0
    for step in range(max_steps):
        best_i = -1
        best = -INFINITY
        best_r = 0.0
        for j in range(n):
            if sqnorm[j] == 0.0:
                continue
            d = dense_dot(data + j * p, p, x)
            if not isfinite(d):
                out[0] = NONFINITE
                return 0
            r = sgn * d - c[j]
            if _violated(r, perceptron, tol):
                key = r if order == MAX_RESIDUAL else r * inv_norm[j]
                # Strict ">" keeps the lowest index among ties.
                if best_i < 0 or key > best:
                    best_i = j
                    best = key
                    best_r = r
        if best_i < 0:
            out[0] = CONVERGED
            return 0
        coef = 1.0 if perceptron else -eta * best_r / sqnorm[best_i]
        dense_axpy(data + best_i * p, p, coef, x)
        out[1] = step + 1
        work += n * p
        if work >= SIGNAL_WORK:
            work = 0
            _check_signals()
    return 0


def _greedy_dense(const floating[::1] data, Py_ssize_t n, Py_ssize_t p,
                  const double[::1] c, const double[::1] sqnorm,
                  const double[::1] inv_norm, double[::1] x, bint perceptron,
                  double eta, double tol, int order, Py_ssize_t max_steps):
    """Greedy ("max_distance", "max_residual") steps on a dense C-ordered A.

    Each step recomputes every residual in one pass over A, fused with the
    argmax: O(n * p) per step, no extra memory, no drift. (Keeping r up to
    date instead needs A @ a_i, which costs the same pass on a dense A; only
    the n x n Gram matrix would make a step O(n).)

    ``max_steps`` bounds the number of steps, each of which is one update.
    Returns ``(status, nit)``, status 0 converged / 1 limit / 3 non-finite.
    """
    cdef Py_ssize_t out[2]
    with nogil:
        _greedy_dense_impl(&data[0], n, p, &c[0], &sqnorm[0], &inv_norm[0],
                           &x[0], perceptron, eta, tol, order, max_steps, out)
    return int(out[0]), int(out[1])


# --------------------------------------------------------------------------
# Greedy orders on CSR A: residuals kept up to date through the columns of A
# (a CSC copy) and a tournament tree over the priorities.
# --------------------------------------------------------------------------

cdef inline double _key(double r, double scale, bint perceptron,
                        double tol) noexcept nogil:
    """Priority of a row: -inf if satisfied (or zero, scale = 0), else
    r * scale (scale = 1 for max_residual, 1/||a_j|| for max_distance)."""
    if scale == 0.0 or not _violated(r, perceptron, tol):
        return -INFINITY
    return r * scale


cdef inline void _replay(Py_ssize_t q, double* tkey,
                         Py_ssize_t* tidx) noexcept nogil:
    """Node q gets the winner of its two children: the larger key; on a tie
    the left child, whose rows all have lower indices."""
    cdef Py_ssize_t w = 2 * q
    if tkey[w + 1] > tkey[w]:
        w += 1
    tkey[q] = tkey[w]
    tidx[q] = tidx[w]


cdef int _refresh(
    const floating* data, const index_t* indices, const index_t* indptr,
    Py_ssize_t n, const double* c, const double* x, bint perceptron,
    double tol, double* r, const double* scale, signed char* flag,
    double* tkey, Py_ssize_t* tidx, Py_ssize_t size,
) noexcept nogil:
    """Recompute every residual exactly and rebuild the tree: O(nnz + n).

    Returns 1 if a residual is not finite, else 0.
    """
    cdef Py_ssize_t j, q
    cdef double sgn = -1.0 if perceptron else 1.0
    cdef double d
    for j in range(n):
        d = _dot(data, indices, indptr[j], indptr[j + 1], False, x)
        if not isfinite(d):
            return 1
        r[j] = sgn * d - c[j]
        tkey[size + j] = _key(r[j], scale[j], perceptron, tol)
        tidx[size + j] = j
        flag[j] = VIOLATED if tkey[size + j] != -INFINITY else 0
    for j in range(n, size):
        # Padding leaves: never win.
        tkey[size + j] = -INFINITY
        tidx[size + j] = n
    for q in range(size - 1, 0, -1):
        _replay(q, tkey, tidx)
    return 0


cdef int _greedy_sparse_impl(
    const floating* data, const index_t* indices, const index_t* indptr,
    const floating* cdata, const index_t* cindices, const index_t* cindptr,
    Py_ssize_t n, const double* c, const double* sqnorm, double* x,
    bint perceptron, double eta, double tol, Py_ssize_t max_steps,
    double* r, const double* scale, signed char* flag, double* tkey,
    Py_ssize_t* tidx, Py_ssize_t size, signed char* node_mark,
    Py_ssize_t* dirty, Py_ssize_t* out,
) except -1 nogil:
    cdef Py_ssize_t step = 0, i, j, k, q, t, col, cnt, m, mm, work = 0
    cdef double sgn = -1.0 if perceptron else 1.0
    cdef double coef, v, new_key
    cdef bint fresh, now_violated

    out[0] = LIMIT
    out[1] = 0
    if _refresh(data, indices, indptr, n, c, x, perceptron, tol, r, scale,
                flag, tkey, tidx, size):
        out[0] = NONFINITE
        return 0
    fresh = True
    while True:
        if tkey[1] == -INFINITY:
            if fresh:
                out[0] = CONVERGED
                return 0
            # The maintained residuals say "feasible": confirm with exact
            # ones before stopping (they carry rounding drift).
            if _refresh(data, indices, indptr, n, c, x, perceptron, tol, r,
                        scale, flag, tkey, tidx, size):
                out[0] = NONFINITE
                return 0
            fresh = True
            continue
        if step >= max_steps:
            return 0
        i = tidx[1]
        coef = 1.0 if perceptron else -eta * r[i] / sqnorm[i]
        if not isfinite(coef):
            out[0] = NONFINITE
            return 0
        _axpy(data, indices, indptr[i], indptr[i + 1], False, coef, x)
        # x moved by coef * a_i, so r_j moves by sgn * coef * (a_j . a_i):
        # walk the columns of a_i to reach exactly the rows sharing one.
        cnt = 0
        for k in range(indptr[i], indptr[i + 1]):
            col = indices[k]
            v = sgn * coef * data[k]
            for q in range(cindptr[col], cindptr[col + 1]):
                j = cindices[q]
                r[j] += v * cdata[q]
                if not (flag[j] & MARKED):
                    flag[j] |= MARKED
                    dirty[cnt] = j
                    cnt += 1
            work += cindptr[col + 1] - cindptr[col]
        # New priorities; only leaves whose key changed enter the tree update.
        # A row satisfied before and after (most of them) costs two small
        # arrays (r, flag): its scale and tree leaf are not touched.
        m = 0
        for t in range(cnt):
            j = dirty[t]
            flag[j] &= ~MARKED
            now_violated = _violated(r[j], perceptron, tol) and scale[j] != 0.0
            if not now_violated and not (flag[j] & VIOLATED):
                continue
            new_key = r[j] * scale[j] if now_violated else -INFINITY
            if now_violated:
                flag[j] |= VIOLATED
            else:
                flag[j] &= ~VIOLATED
            if new_key != tkey[size + j]:
                tkey[size + j] = new_key
                dirty[m] = size + j
                m += 1
        # Replay the matches above the changed leaves, one level at a time
        # (all leaves share a depth); a node shared by several changed leaves
        # is replayed once. In place: parents are written behind the reads.
        while m > 0:
            mm = 0
            for t in range(m):
                q = dirty[t] >> 1
                if q > 0 and not node_mark[q]:
                    node_mark[q] = 1
                    dirty[mm] = q
                    mm += 1
            for t in range(mm):
                q = dirty[t]
                node_mark[q] = 0
                _replay(q, tkey, tidx)
            m = mm
        step += 1
        out[1] = step
        fresh = False
        if step % n == 0:
            # Once per sweep: exact residuals, so drift never accumulates.
            if _refresh(data, indices, indptr, n, c, x, perceptron, tol, r,
                        scale, flag, tkey, tidx, size):
                out[0] = NONFINITE
                return 0
            fresh = True
        work += indptr[i + 1] - indptr[i] + 1
        if work >= SIGNAL_WORK:
            work = 0
            _check_signals()


def _greedy_sparse(const floating[::1] data, const index_t[::1] indices,
                   const index_t[::1] indptr, const floating[::1] cdata,
                   const index_t[::1] cindices, const index_t[::1] cindptr,
                   Py_ssize_t n, const double[::1] c,
                   const double[::1] sqnorm, const double[::1] inv_norm,
                   double[::1] x, bint perceptron, double eta, double tol,
                   int order, Py_ssize_t max_steps):
    """Greedy ("max_distance", "max_residual") steps on a CSR A.

    ``cdata, cindices, cindptr`` hold the same matrix in CSC layout (same
    dtype and index dtype). The residual vector r is kept up to date: after a
    step on row i it changes only at the rows sharing a column with a_i,
    found through the CSC columns, at a cost of sum_{k in supp(a_i)} nnz(col
    k). The priorities live in a tournament tree (arrays of 2 * 2^ceil(log2
    n) keys and row indices, node q's children at 2q and 2q + 1, the root at
    1; ties go to the lower row index); only rows whose priority changed are
    replayed, level by level, each shared ancestor once. Residuals are
    recomputed exactly once per sweep (n steps) and before declaring success.
    A row whose residual moved but that is satisfied before and after (most
    of them) costs one read-modify-write of ``r`` and of a flag byte.

    Returns ``(status, nit)``, status 0 converged / 1 limit / 3 non-finite.
    """
    cdef Py_ssize_t size = 1
    while size < n:
        size *= 2
    # Priority of row j = r_j * scale[j] while violated; scale 0: zero row.
    scale_arr = (np.array(inv_norm) if order == MAX_DISTANCE
                 else np.ones(n, dtype=np.float64))
    scale_arr[np.asarray(sqnorm) == 0] = 0.0
    r_arr = np.empty(n, dtype=np.float64)
    flag_arr = np.zeros(n, dtype=np.int8)
    tkey_arr = np.empty(2 * size, dtype=np.float64)
    tidx_arr = np.empty(2 * size, dtype=np.intp)
    node_mark_arr = np.zeros(size, dtype=np.int8)
    dirty_arr = np.empty(n, dtype=np.intp)
    cdef double[::1] r = r_arr
    cdef const double[::1] scale = scale_arr
    cdef signed char[::1] flag = flag_arr
    cdef double[::1] tkey = tkey_arr
    cdef Py_ssize_t[::1] tidx = tidx_arr
    cdef signed char[::1] node_mark = node_mark_arr
    cdef Py_ssize_t[::1] dirty = dirty_arr
    cdef Py_ssize_t out[2]
    with nogil:
        _greedy_sparse_impl(
            &data[0], &indices[0], &indptr[0], &cdata[0], &cindices[0],
            &cindptr[0], n, &c[0], &sqnorm[0], &x[0], perceptron, eta, tol,
            max_steps, &r[0], &scale[0], &flag[0], &tkey[0], &tidx[0], size,
            &node_mark[0], &dirty[0], out)
    return int(out[0]), int(out[1])


# --------------------------------------------------------------------------
# Transposed product for the smooth solvers.
# --------------------------------------------------------------------------

def _rmatvec(const floating[::1] data, const index_t[::1] indices,
             const index_t[::1] indptr, Py_ssize_t n, Py_ssize_t p,
             bint dense, const double[::1] y, double[::1] out):
    """out = A.T @ y in float64, without converting A (one pass over A).

    Used for float32 A, where numpy and scipy would convert A to float64 in
    a temporary copy at every product.
    """
    cdef Py_ssize_t i, k, start, end
    with nogil:
        for k in range(p):
            out[k] = 0.0
        for i in range(n):
            if y[i] == 0.0:
                continue
            start = _row_bounds(&indptr[0], i, p, dense, &end)
            _axpy(&data[0], &indices[0], start, end, dense, y[i], &out[0])
