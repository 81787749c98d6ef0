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

A is read in place, as one typed view (a :class:`Matrix`): a C-contiguous
dense array (row i starts at ``i * p``) or the three arrays of a CSR matrix, in
float32 or float64 with 32- or 64-bit indices (one source through the fused
type ``rows_t``, whose four members have the same fields). The iterate ``x``
and every accumulator are float64 whatever the dtype of A. The system and the
loop's settings reach the loops as named structs (``System``, ``Run``; from
Python, the dicts ``rule`` and ``run``).

Python draws nothing per row: the orders that need randomness use a splitmix64
generator (a 64-bit state, a few integer operations per number) seeded once
from Python.

The loops run without the GIL; every ~16 million multiply-adds they take the
GIL just long enough to call ``PyErr_CheckSignals``, so that Ctrl-C interrupts
a long run.
"""

from libc.math cimport isfinite, INFINITY
from libc.stdint cimport int32_t, int64_t, uint64_t, uintptr_t
from cpython.exc cimport PyErr_CheckSignals

from .._core._random cimport randint as _randint, uniform as _uniform
from .._core._rowops cimport SKP_PREFETCH, dense_axpy, dense_dot

import numpy as np

# The orders (module-level ints in Python too); ORDER_CODES maps their names
# to them.
cpdef enum:
    CYCLIC = 0
    PERMUTED = 1
    RANDOM = 2
    MAX_DISTANCE = 3
    MAX_RESIDUAL = 4

# The solvers' status codes (``res.status``), read by Python from here. A
# loop ends with STATUS_SUCCESS (it saw no violated row), STATUS_MAX_ITER or
# STATUS_NONFINITE; STATUS_INFEASIBLE (a zero row whose inequality cannot
# hold) is found in Python before any loop.
cpdef enum:
    STATUS_SUCCESS = 0
    STATUS_MAX_ITER = 1
    STATUS_INFEASIBLE = 2
    STATUS_NONFINITE = 3

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
# A as the loops read it: one struct per (value dtype, index dtype), with the
# same fields, so that one fused source reads them all. A row is
# [start, end) in ``data``; dense rows use the column index ``k - start``,
# CSR rows ``indices[k]`` (dense A leaves ``indices`` and ``indptr`` unused).
# --------------------------------------------------------------------------

ctypedef struct Rows64_32:
    const double* data
    const int32_t* indices
    const int32_t* indptr
    Py_ssize_t n
    Py_ssize_t p
    bint dense

ctypedef struct Rows64_64:
    const double* data
    const int64_t* indices
    const int64_t* indptr
    Py_ssize_t n
    Py_ssize_t p
    bint dense

ctypedef struct Rows32_32:
    const float* data
    const int32_t* indices
    const int32_t* indptr
    Py_ssize_t n
    Py_ssize_t p
    bint dense

ctypedef struct Rows32_64:
    const float* data
    const int64_t* indices
    const int64_t* indptr
    Py_ssize_t n
    Py_ssize_t p
    bint dense

ctypedef fused rows_t:
    Rows64_32
    Rows64_64
    Rows32_32
    Rows32_64


cdef class Matrix:
    """A read in place by the loops (built by :func:`matrix`).

    ``A`` is the array or CSR matrix viewed; ``data``, ``indices`` and
    ``indptr`` the arrays the loops read (for a dense A, ``data`` is its flat
    view and the other two are unused placeholders); ``n``, ``p`` its shape.
    One subclass per value and index dtype holds the struct the loops read.
    """

    cdef readonly object A
    cdef readonly object data
    cdef readonly object indices
    cdef readonly object indptr
    cdef readonly Py_ssize_t n
    cdef readonly Py_ssize_t p
    cdef readonly bint dense

    def __init__(self, A, data, indices, indptr, bint dense):
        self.A, self.data, self.indices, self.indptr = A, data, indices, indptr
        self.n, self.p = A.shape
        self.dense = dense
        _point(self)


# The four kinds of Matrix differ only in the struct they hold, which
# _point fills in from the arrays.
cdef class Matrix64_32(Matrix):
    cdef Rows64_32 rows


cdef class Matrix64_64(Matrix):
    cdef Rows64_64 rows


cdef class Matrix32_32(Matrix):
    cdef Rows32_32 rows


cdef class Matrix32_64(Matrix):
    cdef Rows32_64 rows


ctypedef fused matrix_t:
    Matrix64_32
    Matrix64_64
    Matrix32_32
    Matrix32_64

_MATRIX_CLASSES = {
    ("float64", "int32"): Matrix64_32,
    ("float64", "int64"): Matrix64_64,
    ("float32", "int32"): Matrix32_32,
    ("float32", "int64"): Matrix32_64,
}


def matrix(A, data, indices, indptr, bint dense):
    """The :class:`Matrix` of A: ``data`` C-contiguous float32 or float64
    (A's entries, flat for a dense A), ``indices`` and ``indptr`` C-contiguous
    and both int32 or both int64, each with at least one entry."""
    for array in (data, indices, indptr):
        if not (array.flags.c_contiguous and array.size):
            raise ValueError("the arrays of a Matrix must be C-contiguous "
                             "and not empty")
    if indptr.dtype != indices.dtype:
        raise ValueError("indices and indptr must have the same dtype")
    kind = (np.dtype(data.dtype).name, np.dtype(indices.dtype).name)
    return _MATRIX_CLASSES[kind](A, data, indices, indptr, dense)


def _point(matrix_t M):
    """Point ``M.rows`` at the arrays M holds (which M keeps alive)."""
    cdef uintptr_t data = M.data.ctypes.data
    cdef uintptr_t indices = M.indices.ctypes.data
    cdef uintptr_t indptr = M.indptr.ctypes.data
    M.rows.n, M.rows.p, M.rows.dense = M.n, M.p, M.dense
    if matrix_t is Matrix64_32 or matrix_t is Matrix64_64:
        M.rows.data = <const double*> data
    else:
        M.rows.data = <const float*> data
    if matrix_t is Matrix64_32 or matrix_t is Matrix32_32:
        M.rows.indices = <const int32_t*> indices
        M.rows.indptr = <const int32_t*> indptr
    else:
        M.rows.indices = <const int64_t*> indices
        M.rows.indptr = <const int64_t*> indptr


# The relaxation method or the perceptron, as Python gives it (a dict).
cdef struct Rule:
    bint perceptron   # sgn = -1, violated when r >= 0, step +a_i
    double eta        # relaxation parameter (relaxation only)
    double tol        # violated when r > tol (relaxation only)


# The system r_i(x) = sgn * (a_i . x) - c_i <= 0, as the loops read it.
cdef struct System:
    const double* c
    const double* sqnorm   # squared row norms; zero rows are skipped
    bint perceptron
    double sgn
    double eta
    double tol


# How long and in which order the loop runs (a dict from Python).
cdef struct Run:
    int order
    Py_ssize_t max_iter    # sweeps (row-action orders) or steps (greedy)
    uint64_t seed          # of the splitmix64 generator (permuted, random)


cdef inline System _system(const double[::1] c, const double[::1] sqnorm,
                           Rule rule) noexcept:
    return System(&c[0], &sqnorm[0], rule.perceptron,
                  -1.0 if rule.perceptron else 1.0, rule.eta, rule.tol)


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


def build_alias(const double[::1] weights, double[::1] prob,
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


def alias_sample(const double[::1] weights, Py_ssize_t n_draws, uint64_t seed):
    """Test hook: ``n_draws`` row indices drawn ∝ ``weights`` as the solvers do.

    Uses the same alias table and the same generator as the ``"random"``
    order, so a statistical test of its output tests the sampler itself.
    """
    cdef Py_ssize_t n = weights.shape[0], t
    prob_arr = np.empty(n, dtype=np.float64)
    alias_arr = np.empty(n, dtype=np.intp)
    build_alias(weights, prob_arr, alias_arr)
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
# Row access.
# --------------------------------------------------------------------------

cdef inline double _dot(rows_t A, Py_ssize_t start, Py_ssize_t end,
                        const double* x) noexcept nogil:
    """a_i . x, accumulated in float64 (row i is [start, end) in A.data).

    Not the package's ``row_dot_wide`` (eight partial sums, int32 indices):
    dense rows take ``dense_dot``'s four sums and CSR rows one sum in order,
    with int32 or int64 indices; these orders are part of the solvers'
    results."""
    cdef Py_ssize_t k
    cdef double s = 0.0
    if A.dense:
        return dense_dot(A.data + start, end - start, x)
    for k in range(start, end):
        s += A.data[k] * x[A.indices[k]]
    return s


cdef inline void _axpy(rows_t A, Py_ssize_t start, Py_ssize_t end,
                       double alpha, double* x) noexcept nogil:
    """x <- x + alpha * a_i."""
    cdef Py_ssize_t k
    if A.dense:
        dense_axpy(A.data + start, end - start, alpha, x)
    else:
        for k in range(start, end):
            x[A.indices[k]] += alpha * A.data[k]


cdef inline Py_ssize_t _row_bounds(rows_t A, Py_ssize_t i,
                                   Py_ssize_t* end) noexcept nogil:
    """Row i as [start, end) in ``data``: returns start, sets ``end[0]``."""
    if A.dense:
        end[0] = (i + 1) * A.p
        return i * A.p
    end[0] = A.indptr[i + 1]
    return A.indptr[i]


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


cdef void _row_sqnorms(rows_t A, double* out,
                       signed char* nonzero) noexcept nogil:
    cdef Py_ssize_t i, k, start, end
    cdef double s
    cdef bint any_nonzero
    for i in range(A.n):
        start = _row_bounds(A, i, &end)
        s = 0.0
        any_nonzero = False
        for k in range(start, end):
            s += <double>A.data[k] * A.data[k]
            any_nonzero = any_nonzero or A.data[k] != 0
        out[i] = s
        nonzero[i] = any_nonzero


def row_sqnorms(matrix_t A, double[::1] out, signed char[::1] nonzero):
    """out[i] = ||a_i||^2 in float64, nonzero[i] = any(a_i != 0); one pass.

    The two differ only when the squares underflow, which the caller reports
    (such a row is not a zero row, but it cannot be projected on either).
    """
    with nogil:
        _row_sqnorms(A.rows, &out[0], &nonzero[0])


cdef void _matvec(rows_t A, const double* x, double* out) noexcept nogil:
    cdef Py_ssize_t i, start, end
    for i in range(A.n):
        start = _row_bounds(A, i, &end)
        out[i] = _dot(A, start, end, x)


def matvec(matrix_t A, const double[::1] x, double[::1] out):
    """out = A @ x in float64, without converting A (one pass over A)."""
    with nogil:
        _matvec(A.rows, &x[0], &out[0])


# --------------------------------------------------------------------------
# Row-action orders: cyclic, permuted, random.
# --------------------------------------------------------------------------

# The row sequence of a sweep and the table it is drawn from.
cdef struct Draws:
    Py_ssize_t* seq           # a permutation of range(n) (permuted), or draws
    const double* prob        # Walker's alias table of the row
    const Py_ssize_t* alias   # probabilities (random)


cdef int _row_action_impl(rows_t A, System system, Run run, Draws draws,
                          double* x, Py_ssize_t* out) except -1 nogil:
    """Sweeps of n row visits; out = (exit code, updates, sweeps run).

    ``draws.seq`` (permuted, random) holds the sweep's row sequence, drawn
    before the sweep starts: the rows ahead are then known, and are
    prefetched (a random row order otherwise waits on memory at every step).
    """
    cdef Py_ssize_t sweep, s, i, j, start, end, tmp
    cdef Py_ssize_t nit = 0, updates, clean = 0, work = 0
    cdef Py_ssize_t n = A.n
    cdef int order = run.order
    cdef const double* c = system.c
    cdef const double* sqnorm = system.sqnorm
    cdef Py_ssize_t* seq = draws.seq
    cdef double d, r, coef
    cdef uint64_t state = run.seed
    cdef bint feasible

    out[0] = STATUS_MAX_ITER
    out[1] = 0
    out[2] = 0
    for sweep in range(run.max_iter):
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
                seq[s] = _alias_draw(&state, draws.prob, draws.alias, n)
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
                    if not A.dense:
                        SKP_PREFETCH(&A.indptr[j])
                if s + 8 < n:
                    j = seq[s + 8]
                    if A.dense:
                        SKP_PREFETCH(A.data + j * A.p)
                    else:
                        SKP_PREFETCH(A.data + A.indptr[j])
                        SKP_PREFETCH(A.indices + A.indptr[j])
            if sqnorm[i] == 0.0:
                # A zero row is satisfied (Python returns "infeasible" before
                # calling this otherwise).
                clean += 1
                continue
            start = _row_bounds(A, i, &end)
            d = _dot(A, start, end, x)
            if not isfinite(d):
                out[0] = STATUS_NONFINITE
                out[1] = nit
                return 0
            r = system.sgn * d - c[i]
            if _violated(r, system.perceptron, system.tol):
                coef = 1.0 if system.perceptron else -system.eta * r / sqnorm[i]
                _axpy(A, start, end, coef, x)
                updates += 1
                nit += 1
                clean = 0
            else:
                clean += 1
                # Cyclic: n clean visits in a row have seen every row at the
                # current x, even across a sweep boundary.
                if order == CYCLIC and clean >= n:
                    out[0] = STATUS_SUCCESS
                    out[1] = nit
                    return 0
            work += end - start + 1
            if work >= SIGNAL_WORK:
                work = 0
                _check_signals()
        if updates == 0:
            if order != RANDOM:
                out[0] = STATUS_SUCCESS
                out[1] = nit
                return 0
            # Random order: n draws without an update need not have seen
            # every row; one read-only pass decides.
            feasible = True
            for i in range(n):
                if sqnorm[i] == 0.0:
                    continue
                start = _row_bounds(A, i, &end)
                r = system.sgn * _dot(A, start, end, x) - c[i]
                if _violated(r, system.perceptron, system.tol):
                    feasible = False
                    break
            if feasible:
                out[0] = STATUS_SUCCESS
                out[1] = nit
                return 0
    out[1] = nit
    return 0


def row_action(matrix_t A, const double[::1] c, const double[::1] sqnorm,
               double[::1] x, Rule rule, Run run):
    """Run at most ``run["max_iter"]`` sweeps of the cyclic, permuted or
    random order.

    Parameters
    ----------
    A : Matrix
        The rows a_i.
    c : memoryview of shape (n,)
        The constants c_i of ``r_i = sgn * a_i . x - c_i``.
    sqnorm : memoryview of shape (n,)
        Squared row norms; zero rows are skipped (they must be satisfied);
        for the random order, a row is drawn with probability proportional
        to its squared norm.
    x : memoryview of shape (p,)
        The iterate, updated in place.
    rule : dict
        ``perceptron`` (bool): perceptron (``sgn=-1``, violated when
        ``r >= 0``, step ``+a_i``) or relaxation (``sgn=+1``, violated when
        ``r > tol``, relaxed projection); ``eta`` and ``tol`` (float): the
        relaxation parameter and tolerance (relaxation only).
    run : dict
        ``order`` (int): CYCLIC, PERMUTED or RANDOM; ``max_iter`` (int): the
        number of sweeps, a sweep being n row visits; ``seed`` (uint64): the
        seed of the splitmix64 generator (permuted, random).

    Returns
    -------
    status : int
        STATUS_SUCCESS (no violated row seen), STATUS_MAX_ITER (sweep
        limit reached) or STATUS_NONFINITE (non-finite value met).
    nit : int
        Number of updates.
    n_sweeps : int
        Number of sweeps started.
    """
    cdef Py_ssize_t n = A.n
    # The row sequence of a sweep: a permutation of range(n), reshuffled in
    # place every sweep (permuted), or n weighted draws (random).
    seq_arr = np.arange(n if run.order != CYCLIC else 1, dtype=np.intp)
    prob_arr = np.zeros(1, dtype=np.float64)
    alias_arr = np.zeros(1, dtype=np.intp)
    if run.order == RANDOM:
        prob_arr = np.empty(n, dtype=np.float64)
        alias_arr = np.empty(n, dtype=np.intp)
        build_alias(sqnorm, prob_arr, alias_arr)
    cdef Py_ssize_t[::1] seq = seq_arr
    cdef const double[::1] prob = prob_arr
    cdef const Py_ssize_t[::1] alias = alias_arr
    cdef Py_ssize_t out[3]
    cdef System system = _system(c, sqnorm, rule)
    with nogil:
        _row_action_impl(A.rows, system, run, Draws(&seq[0], &prob[0], &alias[0]),
                         &x[0], out)
    return int(out[0]), int(out[1]), int(out[2])


# --------------------------------------------------------------------------
# Greedy orders on dense A: one fused pass r = sgn * A x - c + argmax per step.
# --------------------------------------------------------------------------

cdef int _greedy_dense_impl(rows_t A, System system, Run run,
                            const double* inv_norm, double* x,
                            Py_ssize_t* out) except -1 nogil:
    cdef Py_ssize_t step, j, best_i, work = 0
    cdef Py_ssize_t n = A.n, p = A.p
    cdef const double* c = system.c
    cdef const double* sqnorm = system.sqnorm
    cdef double d, r, key, best, best_r, coef

    out[0] = STATUS_MAX_ITER
    out[1] = 0
    for step in range(run.max_iter):
        best_i = -1
        best = -INFINITY
        best_r = 0.0
        for j in range(n):
            if sqnorm[j] == 0.0:
                continue
            d = dense_dot(A.data + j * p, p, x)
            if not isfinite(d):
                out[0] = STATUS_NONFINITE
                return 0
            r = system.sgn * d - c[j]
            if _violated(r, system.perceptron, system.tol):
                key = r if run.order == MAX_RESIDUAL else r * inv_norm[j]
                # Strict ">" keeps the lowest index among ties.
                if best_i < 0 or key > best:
                    best_i = j
                    best = key
                    best_r = r
        if best_i < 0:
            out[0] = STATUS_SUCCESS
            return 0
        coef = (1.0 if system.perceptron
                else -system.eta * best_r / sqnorm[best_i])
        dense_axpy(A.data + best_i * p, p, coef, x)
        out[1] = step + 1
        work += n * p
        if work >= SIGNAL_WORK:
            work = 0
            _check_signals()
    return 0


def greedy_dense(matrix_t A, const double[::1] c, const double[::1] sqnorm,
                 const double[::1] inv_norm, double[::1] x, Rule rule, Run run):
    """Greedy ("max_distance", "max_residual") steps on a dense C-ordered A.

    Each step recomputes every residual in one pass over A, fused with the
    argmax: O(n * p) per step, no extra memory, no drift. (Keeping r up to
    date instead needs A @ a_i, which costs the same pass on a dense A; only
    the n x n Gram matrix would make a step O(n).)

    ``c``, ``sqnorm``, ``x``, ``rule`` are those of :func:`row_action`;
    ``inv_norm`` holds ``1 / ||a_i||`` (0 for a zero row); ``run["order"]``
    is MAX_DISTANCE or MAX_RESIDUAL, ``run["max_iter"]`` bounds the number of
    steps, each of which is one update. Returns ``(status, nit)``, status
    STATUS_SUCCESS, STATUS_MAX_ITER or STATUS_NONFINITE.
    """
    cdef Py_ssize_t out[2]
    cdef System system = _system(c, sqnorm, rule)
    with nogil:
        _greedy_dense_impl(A.rows, system, run, &inv_norm[0], &x[0], out)
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


# The residuals and the tournament tree of the greedy CSR loop.
cdef struct Tree:
    double* r                 # (n,) r_j, kept up to date
    const double* scale       # (n,) priority = r_j * scale[j] while violated
    signed char* flag         # (n,) MARKED, VIOLATED bits
    double* tkey              # (2 size,) node keys; leaves at size + j
    Py_ssize_t* tidx          # (2 size,) and their rows
    Py_ssize_t size           # leaves: the power of two >= n
    signed char* node_mark    # (size,) inner nodes queued for a replay
    Py_ssize_t* dirty         # (n,) rows, then nodes, to update


cdef int _refresh(rows_t A, System system, const double* x,
                  Tree t) noexcept nogil:
    """Recompute every residual exactly and rebuild the tree: O(nnz + n).

    Returns 1 if a residual is not finite, else 0.
    """
    cdef Py_ssize_t j, q
    cdef Py_ssize_t n = A.n, size = t.size
    cdef double d
    for j in range(n):
        d = _dot(A, A.indptr[j], A.indptr[j + 1], x)
        if not isfinite(d):
            return 1
        t.r[j] = system.sgn * d - system.c[j]
        t.tkey[size + j] = _key(t.r[j], t.scale[j], system.perceptron,
                                system.tol)
        t.tidx[size + j] = j
        t.flag[j] = VIOLATED if t.tkey[size + j] != -INFINITY else 0
    for j in range(n, size):
        # Padding leaves: never win.
        t.tkey[size + j] = -INFINITY
        t.tidx[size + j] = n
    for q in range(size - 1, 0, -1):
        _replay(q, t.tkey, t.tidx)
    return 0


cdef int _greedy_sparse_impl(rows_t A, rows_t columns, System system,
                             Run run, double* x, Tree t,
                             Py_ssize_t* out) except -1 nogil:
    cdef Py_ssize_t step = 0, i, j, k, q, u, col, cnt, m, mm, work = 0
    cdef Py_ssize_t n = A.n, size = t.size
    cdef double sgn = system.sgn
    cdef bint perceptron = system.perceptron
    cdef double tol = system.tol
    cdef double* r = t.r
    cdef const double* scale = t.scale
    cdef signed char* flag = t.flag
    cdef double* tkey = t.tkey
    cdef Py_ssize_t* tidx = t.tidx
    cdef signed char* node_mark = t.node_mark
    cdef Py_ssize_t* dirty = t.dirty
    cdef double coef, v, new_key
    cdef bint fresh, now_violated

    out[0] = STATUS_MAX_ITER
    out[1] = 0
    if _refresh(A, system, x, t):
        out[0] = STATUS_NONFINITE
        return 0
    fresh = True
    while True:
        if tkey[1] == -INFINITY:
            if fresh:
                out[0] = STATUS_SUCCESS
                return 0
            # The maintained residuals say "feasible": confirm with exact
            # ones before stopping (they carry rounding drift).
            if _refresh(A, system, x, t):
                out[0] = STATUS_NONFINITE
                return 0
            fresh = True
            continue
        if step >= run.max_iter:
            return 0
        i = tidx[1]
        coef = 1.0 if perceptron else -system.eta * r[i] / system.sqnorm[i]
        if not isfinite(coef):
            out[0] = STATUS_NONFINITE
            return 0
        _axpy(A, A.indptr[i], A.indptr[i + 1], coef, x)
        # x moved by coef * a_i, so r_j moves by sgn * coef * (a_j . a_i):
        # walk the columns of a_i to reach exactly the rows sharing one.
        cnt = 0
        for k in range(A.indptr[i], A.indptr[i + 1]):
            col = A.indices[k]
            v = sgn * coef * A.data[k]
            for q in range(columns.indptr[col], columns.indptr[col + 1]):
                j = columns.indices[q]
                r[j] += v * columns.data[q]
                if not (flag[j] & MARKED):
                    flag[j] |= MARKED
                    dirty[cnt] = j
                    cnt += 1
            work += columns.indptr[col + 1] - columns.indptr[col]
        # New priorities; only leaves whose key changed enter the tree update.
        # A row satisfied before and after (most of them) costs two small
        # arrays (r, flag): its scale and tree leaf are not touched.
        m = 0
        for u in range(cnt):
            j = dirty[u]
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
            for u in range(m):
                q = dirty[u] >> 1
                if q > 0 and not node_mark[q]:
                    node_mark[q] = 1
                    dirty[mm] = q
                    mm += 1
            for u in range(mm):
                q = dirty[u]
                node_mark[q] = 0
                _replay(q, tkey, tidx)
            m = mm
        step += 1
        out[1] = step
        fresh = False
        if step % n == 0:
            # Once per sweep: exact residuals, so drift never accumulates.
            if _refresh(A, system, x, t):
                out[0] = STATUS_NONFINITE
                return 0
            fresh = True
        work += A.indptr[i + 1] - A.indptr[i] + 1
        if work >= SIGNAL_WORK:
            work = 0
            _check_signals()


def greedy_sparse(matrix_t A, matrix_t columns, const double[::1] c,
                  const double[::1] sqnorm, const double[::1] inv_norm,
                  double[::1] x, Rule rule, Run run):
    """Greedy ("max_distance", "max_residual") steps on a CSR A.

    ``columns`` holds the same matrix in CSC layout, as the :class:`Matrix`
    of its transpose in CSR (same dtype and index dtype); the other
    parameters and the result are those of :func:`greedy_dense`. The
    residual vector r is kept up to date: after a step on row i it changes
    only at the rows sharing a column with a_i, found through the CSC
    columns, at a cost of sum_{k in supp(a_i)} nnz(col k). The priorities
    live in a tournament tree (arrays of 2 * 2^ceil(log2 n) keys and row
    indices, node q's children at 2q and 2q + 1, the root at 1; ties go to
    the lower row index); only rows whose priority changed are replayed,
    level by level, each shared ancestor once. Residuals are recomputed
    exactly once per sweep (n steps) and before declaring success. A row
    whose residual moved but that is satisfied before and after (most of
    them) costs one read-modify-write of ``r`` and of a flag byte.
    """
    cdef Py_ssize_t n = A.n
    cdef Py_ssize_t size = 1
    while size < n:
        size *= 2
    # Priority of row j = r_j * scale[j] while violated; scale 0: zero row.
    scale_arr = (np.array(inv_norm) if run.order == MAX_DISTANCE
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
    cdef Tree t = Tree(&r[0], &scale[0], &flag[0], &tkey[0], &tidx[0], size,
                       &node_mark[0], &dirty[0])
    cdef System system = _system(c, sqnorm, rule)
    cdef Py_ssize_t out[2]
    with nogil:
        _greedy_sparse_impl(A.rows, columns.rows, system, run, &x[0], t, out)
    return int(out[0]), int(out[1])


# --------------------------------------------------------------------------
# Transposed product for the smooth solvers.
# --------------------------------------------------------------------------

cdef void _rmatvec(rows_t A, const double* y, double* out) noexcept nogil:
    cdef Py_ssize_t i, k, start, end
    for k in range(A.p):
        out[k] = 0.0
    for i in range(A.n):
        if y[i] == 0.0:
            continue
        start = _row_bounds(A, i, &end)
        _axpy(A, start, end, y[i], out)


def rmatvec(matrix_t A, const double[::1] y, double[::1] out):
    """out = A.T @ y in float64, without converting A (one pass over A).

    Used for float32 A, where numpy and scipy would convert A to float64 in
    a temporary copy at every product.
    """
    with nogil:
        _rmatvec(A.rows, &y[0], &out[0])
