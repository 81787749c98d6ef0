# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The compiled dual walk of the kernel perceptron, included by
``_kernel_fast.pyx`` and its AVX2 twin ``_kernel_fast_avx2.pyx``, with the
codes it shares with Python (``_kernel_codes.pxi``), the typed view of the
rows of X (``Matrix``, ``_matrix.pxd``) and the kernel columns and
scores (``_kernel_columns.pxi``).

The dual (kernelized) perceptron keeps, for every training sample ``z_j`` and
every binary sub-problem ``k``, its current score
``scores[k, j] = sum_s alpha[s, k] * (K(z_s, z_j) + add)``; ``add = 1`` pads
a constant feature in kernel space, which is the same as learning an
intercept ``b_k = sum_s alpha[s, k]``.  Deciding whether a visited sample
triggers an update is then a look-up; an update on sample ``i`` takes one
kernel column ``K(Z, z_i)`` (from the column cache, or computed) and adds it,
scaled, to the scores of the sub-problems that updated.

Everything that distinguishes the fits of ``KernelPerceptron`` is a parameter
of the same walk:

* the table ``rows_ptr``/``rows``/``signs`` says which sub-problems a sample
  of class ``c`` takes part in, with which sign (binary: one row;
  one-vs-all: K rows sharing one set of support vectors);
* ``average`` keeps Daume's running sums ``alpha_sum``, so that the average
  of the coefficients over every visit is ``alpha - alpha_sum / visits``;
* ``budget``/``strategy`` bound the number of support vectors: before a new
  support vector enters a full set, one leaves it (the least recently
  updated, or a uniformly random one), after the Forgetron's shrinking.

Kernel columns are computed here for the built-in kernels, over dense and CSR
rows, float32 and float64 (the fused type ``floating``), and read from the
Gram matrix for "precomputed".  A callable kernel needs the GIL: the walk
then stops at the visit that needs a missing column, reports the row, and
Python stores the column (:func:`cache_store`) and resumes the walk at the
same visit (no state has changed for it yet).

Columns live in an LRU cache of ``capacity`` lines (then ``SCRATCH_LINES``
lines for columns not admitted to it), holding kernel values without ``add``.
On dense rows of more than two features, new columns are computed four per
pass over Z (see "updates in batches" below).  The
exponential kernels ("rbf", "laplacian") keep their lines in float32, their
exponentials computed in single precision as LIBSVM's kernel cache does: half
the memory traffic, twice the throughput of the exponential.  Every kernel
value is computed by one function in one summation order whichever pass
needs it, so a fit does not depend on ``cache_size``.  The loops over rows
are C, in ``_kernel_fast.h``.
"""

import numpy as np
from cython cimport floating
from libc.math cimport INFINITY, fabs, sqrt, tanh
from libc.stdint cimport uint64_t

from .._core._random cimport randint
from ._matrix cimport Matrix, MatrixView, same_dtype

include "_kernel_codes.pxi"
include "_kernel_columns.pxi"

cdef extern from "_kernel_fast.h":
    enum: SKP_PROBES
    void skp_dense_pass4_d(int mode, const double* values, Py_ssize_t d,
                           Py_ssize_t start, Py_ssize_t stop,
                           const double* const* x, const double* zsq,
                           const double* xsq, double gamma,
                           double* const* out) noexcept nogil
    void skp_dense_pass4_f(int mode, const float* values, Py_ssize_t d,
                           Py_ssize_t start, Py_ssize_t stop,
                           const double* const* x, const double* zsq,
                           const double* xsq, double gamma,
                           double* const* out) noexcept nogil
    void skp_axpy(double* scores, const double* column, Py_ssize_t n,
                  double delta, double add) noexcept nogil
    void skp_axpy_single(double* scores, const float* column, Py_ssize_t n,
                         double delta, double add) noexcept nogil


# Update rules: the one-vs-all table, or the Crammer-Singer multiclass rule
# (one row per class) moving the highest wrong row ("max") or every
# violating row ("uniform").
cpdef enum:
    RULE_TABLE = 0
    RULE_CS_MAX = 1
    RULE_CS_UNIFORM = 2

# Lines after the LRU lines of the cache, for columns not admitted to it:
# one per column of a batch (see Pending).
cpdef enum:
    SCRATCH_LINES = 4

# Indices of the int64 counters shared with Python.
cpdef enum:
    C_N_SV = 0          # current number of support vectors
    C_CLOCK = 1         # number of updates so far (ages of support vectors)
    C_MAX_SV = 2        # largest number of support vectors between visits
    C_CACHE_CLOCK = 3   # cache use stamps (LRU)
    C_LINES_USED = 4    # cache lines filled so far
    N_COUNTERS = 5


cdef struct Samples:
    const int* y_class
    const double* step
    # The sub-problems of every class and their signs (active ones only,
    # see Walker.run).
    const int* rows_ptr
    const int* rows
    const signed char* signs
    Py_ssize_t n_rows
    double threshold
    double add
    int rule


cdef struct Dual:
    double* scores          # (n_rows, n_z)
    double* alpha           # (n_z, n_rows)
    bint average
    double* alpha_sum       # (n_z, n_rows) with average
    double* visits          # (n_rows,)
    unsigned char* in_support
    int* sv_list            # the support vectors, first counters[C_N_SV]
    int* sv_pos             # position of a row in sv_list, or -1
    long long* last_time    # time of a row's last update
    long long* counters
    Py_ssize_t budget       # -1: none
    int strategy
    double* forget_q        # the Forgetron's damage, per sub-problem
    double* forget_m        # and its mistakes
    uint64_t* rng


cdef struct Cache:
    # ``capacity`` LRU lines then SCRATCH_LINES lines of ``n_track`` values,
    # in ``lines`` or, with ``single``, in ``lines32``; ``lines`` then holds
    # the SCRATCH_LINES lines where the exponent arguments are computed.
    double* lines
    float* lines32
    bint single
    Py_ssize_t capacity
    bint admit_first
    unsigned char* seen
    int* line_of_row
    int* row_of_line
    long long* line_used


cdef struct Scratch:
    double* xd              # a dense probe (n_features zeros between uses)
    int* upd_rows           # the sub-problems a visit updates
    double* upd_delta       # and the sizes of their updates
    long long* updates      # updates per sub-problem of this run
    double* cur             # the scores of a visited sample's table entries


cdef struct Pending:
    # Updates whose columns are added to the scores later, SKP_PROBES new
    # columns in one pass over Z (see _defer_update); meanwhile a visit adds
    # their terms to its own scores, in the same order.  ``batch`` 1: none.
    Py_ssize_t batch
    Py_ssize_t count
    Py_ssize_t evals        # kernel values computed for visits since a flush
    Py_ssize_t max_evals    # a flush comes at the latest after this many
    int* row                # (batch,) the updated sample
    Py_ssize_t* line        # (batch,) its cache line, -1 until computed
    int* n_up               # (batch,) and the sub-problems it updates,
    int* upd_rows           # (batch, n_rows)
    double* upd_delta       # (batch, n_rows) with the sizes of the updates
    double* xd              # (batch, n_features) the probes of new columns
    double* stats           # (batch, 3) their stats (see _load_probe)
    double* xsq             # (batch,) their squared norms, summed as _reduce


cdef struct Walk:
    Rows z
    Kernel kern
    Samples s
    Dual d
    Cache c
    Scratch tmp
    Pending p


# -- the column cache ----------------------------------------------------------

cdef Py_ssize_t _free_line(Cache* c, long long* counters, Py_ssize_t keep) noexcept nogil:
    """An empty LRU line: a fresh one, or the least recently used one other
    than ``keep`` (evicted)."""
    cdef Py_ssize_t l, best = -1
    if counters[C_LINES_USED] < c.capacity:
        counters[C_LINES_USED] += 1
        return counters[C_LINES_USED] - 1
    for l in range(c.capacity):
        if l != keep and (best < 0 or c.line_used[l] < c.line_used[best]):
            best = l
    if c.row_of_line[best] >= 0:
        c.line_of_row[c.row_of_line[best]] = -1
        c.row_of_line[best] = -1
    return best


cdef Py_ssize_t _line(
    const floating* values, Walk* w, Py_ssize_t row, Py_ssize_t keep,
    int* status,
) noexcept nogil:
    """The cache line holding the column of Z row ``row``, computed if
    needed (never into line ``keep``); -1 with ``status`` set when it is
    missing and cannot be computed here (callable kernel) or not finite.

    A computed column enters the LRU lines on its first use when
    ``admit_first`` (several epochs), else on its second: in a single pass
    most columns are used once, and storing them would only cost memory
    traffic.  Until then it goes to a scratch line."""
    cdef Cache* c = &w.c
    cdef Py_ssize_t l = c.line_of_row[row], j, n = w.z.n_track
    cdef double stats[3]
    cdef double* out
    cdef int bad = 0
    cdef bint admit
    w.d.counters[C_CACHE_CLOCK] += 1
    if l >= 0:
        c.line_used[l] = w.d.counters[C_CACHE_CLOCK]
        return l
    if w.kern.kind == KERNEL_CALLABLE:
        status[0] = STATUS_NEED_COLUMN
        return -1
    admit = c.capacity > 0 and (c.admit_first or c.seen[row])
    c.seen[row] = 1
    if admit:
        l = _free_line(c, w.d.counters, keep)
    else:
        l = c.capacity if keep != c.capacity else c.capacity + 1
    # Single precision: the arguments in the work line, then the
    # exponentials into the float32 line.
    out = c.lines if c.single else c.lines + l * n
    if w.kern.kind == KERNEL_PRECOMPUTED:
        # Z is the Gram matrix: the column is read from it.
        for j in range(n):
            out[j] = values[(w.z.track_from + j) * w.z.n_features + row]
        bad = skp_any_nonfinite(out, n)
    else:
        _load_probe(values, &w.z, row, w.tmp.xd, stats)
        if c.single:
            bad = _probe_overflows(&w.kern, stats)
            _reduce(values, &w.z, w.z.track_from, w.z.n_z, w.tmp.xd, stats,
                    &w.kern, out)
            skp_exp_line_single(out, n, c.lines32 + l * n)
        else:
            bad = _column(values, &w.z, w.z.track_from, w.z.n_z, w.tmp.xd,
                          stats, &w.kern, out)
        _unload_probe(&w.z, row, w.tmp.xd)
    if bad:
        # An LRU line taken here stays unmapped, hence free.
        status[0] = STATUS_NONFINITE_KERNEL
        return -1
    if admit:
        c.row_of_line[l] = <int> row
        c.line_of_row[row] = <int> l
        c.line_used[l] = w.d.counters[C_CACHE_CLOCK]
    return l


cdef inline void _axpy_line(Walk* w, Py_ssize_t k, Py_ssize_t l, double delta) noexcept nogil:
    """scores[k, j] += delta * (K(z_j, .) + add) over the tracked rows j,
    from cache line ``l``."""
    cdef Py_ssize_t n = w.z.n_track
    cdef double* scores = w.d.scores + k * w.z.n_z + w.z.track_from
    if w.c.single:
        skp_axpy_single(scores, w.c.lines32 + l * n, n, delta, w.s.add)
    else:
        skp_axpy(scores, w.c.lines + l * n, n, delta, w.s.add)


# -- the support set -----------------------------------------------------------

cdef Py_ssize_t _pick_removal(Walk* w, uint64_t* rng_next) noexcept nogil:
    """The support vector to remove from a full set (not removed yet)."""
    cdef Py_ssize_t q, best, n_sv = w.d.counters[C_N_SV]
    if w.d.strategy == STRATEGY_RANDOM:
        return w.d.sv_list[randint(rng_next, n_sv)]
    # Forgetron and "oldest": the least recently updated support vector.
    best = w.d.sv_list[0]
    for q in range(1, n_sv):
        if w.d.last_time[w.d.sv_list[q]] < w.d.last_time[best]:
            best = w.d.sv_list[q]
    return best


cdef void _forgetron_shrink(Walk* w, Py_ssize_t r) noexcept nogil:
    """Shrink every coefficient of each sub-problem before support vector
    ``r`` is removed (the self-tuned Forgetron of Dekel, Shalev-Shwartz &
    Singer).

    In sub-problem k, with sigma = |alpha[r, k]| and mu = sign(alpha[r, k])
    * f_k(z_r), phi is the largest value in [0, 1] with Psi(sigma, phi, mu)
    + Q_k <= 15 M_k / 32, where Psi = (sigma phi)^2 + 2 sigma phi (1 - phi
    mu) is the damage of the removal, Q_k its running sum and M_k the
    mistakes of sub-problem k so far.  The constraint is a phi^2 + b phi + c
    <= 0 with a = sigma^2 - 2 sigma mu, b = 2 sigma, c = Q_k - 15 M_k / 32
    <= 0, whose crossing point is -2c / (b + sqrt(b^2 - 4ac))."""
    cdef Dual* d = &w.d
    cdef Py_ssize_t k, q, s, j, K = w.s.n_rows
    cdef double a, sigma, mu, limit, qa, qc, disc, phi, old
    for k in range(K):
        a = d.alpha[r * K + k]
        if a == 0.0:
            continue
        limit = 15.0 * d.forget_m[k] / 32.0
        sigma = fabs(a)
        mu = (1.0 if a > 0.0 else -1.0) * d.scores[k * w.z.n_z + r]
        if sigma * sigma + 2.0 * sigma - 2.0 * sigma * mu + d.forget_q[k] <= limit:
            phi = 1.0
        else:
            qa = sigma * sigma - 2.0 * sigma * mu
            qc = min(d.forget_q[k] - limit, 0.0)
            disc = max(4.0 * sigma * sigma - 4.0 * qa * qc, 0.0)
            phi = min(max(-2.0 * qc / (2.0 * sigma + sqrt(disc)), 0.0), 1.0)
        d.forget_q[k] += sigma * phi * sigma * phi + 2.0 * sigma * phi * (1.0 - phi * mu)
        if phi == 1.0:
            continue
        for q in range(d.counters[C_N_SV]):
            s = d.sv_list[q]
            old = d.alpha[s * K + k]
            d.alpha[s * K + k] = old * phi
            if d.average:
                d.alpha_sum[s * K + k] += d.visits[k] * (phi - 1.0) * old
        for j in range(w.z.track_from, w.z.n_z):
            d.scores[k * w.z.n_z + j] *= phi


cdef void _remove_support(Walk* w, Py_ssize_t r, Py_ssize_t l) noexcept nogil:
    """Take support vector ``r``, its column in cache line ``l``, out of the
    set, the scores and the average."""
    cdef Dual* d = &w.d
    cdef Py_ssize_t k, q, last, K = w.s.n_rows
    for k in range(K):
        if d.alpha[r * K + k] != 0.0:
            _axpy_line(w, k, l, -d.alpha[r * K + k])
        d.alpha[r * K + k] = 0.0
        if d.average:
            d.alpha_sum[r * K + k] = 0.0
    q = d.sv_pos[r]
    last = d.sv_list[d.counters[C_N_SV] - 1]
    d.sv_list[q] = <int> last
    d.sv_pos[last] = <int> q
    d.sv_pos[r] = -1
    d.in_support[r] = 0
    d.counters[C_N_SV] -= 1


# -- the walk ------------------------------------------------------------------

cdef inline Py_ssize_t _find_multiclass_mistake(Walk* w, Py_ssize_t i) noexcept nogil:
    """The Crammer-Singer rule for visited sample ``i`` of class c (row c
    is class c), on its scores in ``cur`` (see :func:`_visit_scores`): a
    mistake when some other row r scores ``f_c - f_r <= threshold``; then
    row c moves by +step and the highest such row (ties: the lowest index)
    by -step ("max"), or every such row by -step / their number
    ("uniform").  Row c comes first in ``upd_rows``.  Returns the number of
    rows updated; -1 if a score is not finite."""
    cdef Py_ssize_t p, k, best = -1, n_up = 1, n_viol = 0
    cdef int c = w.s.y_class[i]
    cdef Py_ssize_t start = w.s.rows_ptr[c], stop = w.s.rows_ptr[c + 1]
    cdef double value, best_value = 0.0, step = w.s.step[i]
    cdef double own = w.d.scores[c * w.z.n_z + i]
    cdef const double* cur = w.tmp.cur - start
    for p in range(start, stop):
        if w.s.rows[p] == c:
            own = cur[p]
    if own - own != 0.0:
        return -1
    for p in range(start, stop):
        k = w.s.rows[p]
        if k == c:
            continue
        value = cur[p]
        if value - value != 0.0:
            return -1
        if own - value <= w.s.threshold:
            n_viol += 1
            if best < 0 or value > best_value:
                best, best_value = k, value
    # A sample of weight zero never updates, so it is no mistake either.
    if n_viol == 0 or step == 0.0:
        return 0
    w.tmp.upd_rows[0] = c
    w.tmp.upd_delta[0] = step
    if w.s.rule == RULE_CS_MAX:
        w.tmp.upd_rows[1] = <int> best
        w.tmp.upd_delta[1] = -step
        return 2
    for p in range(start, stop):
        k = w.s.rows[p]
        if k != c and own - cur[p] <= w.s.threshold:
            w.tmp.upd_rows[n_up] = <int> k
            w.tmp.upd_delta[n_up] = -step / n_viol
            n_up += 1
    return n_up


cdef inline Py_ssize_t _find_mistakes(Walk* w, Py_ssize_t i) noexcept nogil:
    """Write the active sub-problems in which visited sample ``i`` is a
    mistake (its scores in ``cur``) to ``upd_rows``, with their update
    sizes to ``upd_delta``, and return how many; -1 if a score is not
    finite."""
    cdef Py_ssize_t p, k, n_up = 0
    cdef int c = w.s.y_class[i]
    cdef double value, step = w.s.step[i]
    cdef const double* cur = w.tmp.cur - w.s.rows_ptr[c]
    if w.s.rule != RULE_TABLE:
        return _find_multiclass_mistake(w, i)
    for p in range(w.s.rows_ptr[c], w.s.rows_ptr[c + 1]):
        k = w.s.rows[p]
        value = cur[p]
        if value - value != 0.0:
            return -1
        # A sample of weight zero never updates, so it is no mistake either.
        if w.s.signs[p] * value <= w.s.threshold and step != 0.0:
            w.tmp.upd_rows[n_up] = <int> k
            w.tmp.upd_delta[n_up] = step * w.s.signs[p]
            n_up += 1
    return n_up


cdef inline void _record_update(Walk* w, Py_ssize_t i, Py_ssize_t n_up) noexcept nogil:
    """The dual side of the update of sample ``i`` in the ``n_up``
    sub-problems of ``upd_rows``: coefficients, Daume's sums, counts, its
    age, its entry into the support set (the scores are the caller's)."""
    cdef Dual* d = &w.d
    cdef Py_ssize_t u, k, K = w.s.n_rows
    for u in range(n_up):
        k = w.tmp.upd_rows[u]
        d.alpha[i * K + k] += w.tmp.upd_delta[u]
        if d.average:
            d.alpha_sum[i * K + k] += d.visits[k] * w.tmp.upd_delta[u]
        # A multiclass mistake counts once, on the true class's row.
        if u == 0 or w.s.rule == RULE_TABLE:
            w.tmp.updates[k] += 1
        d.forget_m[k] += 1.0
    d.counters[C_CLOCK] += 1
    d.last_time[i] = d.counters[C_CLOCK]
    if not d.in_support[i]:
        d.sv_pos[i] = <int> d.counters[C_N_SV]
        d.sv_list[d.counters[C_N_SV]] = <int> i
        d.in_support[i] = 1
        d.counters[C_N_SV] += 1


cdef inline void _end_visit(Walk* w, Py_ssize_t i) noexcept nogil:
    """Count the visit of sample ``i`` in its active sub-problems, and the
    size of the support set between visits."""
    cdef Py_ssize_t p
    cdef int c = w.s.y_class[i]
    if w.d.counters[C_N_SV] > w.d.counters[C_MAX_SV]:
        w.d.counters[C_MAX_SV] = w.d.counters[C_N_SV]
    for p in range(w.s.rows_ptr[c], w.s.rows_ptr[c + 1]):
        w.d.visits[w.s.rows[p]] += 1.0


# -- updates in batches ---------------------------------------------------------
#
# A new column costs a pass over every row of Z, which for rows of more than
# a few features is bound by reading Z.  So an update that needs a new column
# waits: its coefficients change at once, its column is computed later with
# up to SKP_PROBES - 1 others in one pass (skp_dense_pass4), and in between
# each visit adds the waiting terms to its own scores, in the order of the
# updates, from one kernel value per waiting column.  The scores, and so
# every decision, are those of updating at once, bit for bit.

cdef inline double _pending_value(
    const floating* values, Walk* w, Py_ssize_t e, Py_ssize_t row, int* bad,
) noexcept nogil:
    """The kernel value of Z row ``row`` and waiting update ``e``'s sample,
    as its cache line holds (or will hold) it: read from the line if it is
    computed, else computed here; ``bad`` is set if it is not finite."""
    cdef Pending* p = &w.p
    cdef Py_ssize_t l = p.line[e], j = row - w.z.track_from
    cdef int mode = _pass_mode(&w.kern)
    cdef double value
    cdef float single
    if l >= 0:
        if w.c.single:
            return w.c.lines32[l * w.z.n_track + j]
        return w.c.lines[l * w.z.n_track + j]
    p.evals += 1
    if floating is double:
        skp_dense_pass_d(mode, values, w.z.n_features, row, row + 1,
                         p.xd + e * w.z.n_features, w.z.znorm, p.xsq[e],
                         w.kern.gamma, &value)
    else:
        skp_dense_pass_f(mode, values, w.z.n_features, row, row + 1,
                         p.xd + e * w.z.n_features, w.z.znorm, p.xsq[e],
                         w.kern.gamma, &value)
    if w.c.single:
        skp_exp_line_single(&value, 1, &single)
        return single
    bad[0] |= _transform(&w.kern, w.z.znorm + row, p.stats[3 * e + 2],
                         &value, 1)
    return value


cdef inline int _visit_scores(
    const floating* values, Walk* w, Py_ssize_t i, Py_ssize_t* need_row,
) noexcept nogil:
    """``cur[p - start]``: the score of sample ``i`` in table entry ``p`` of
    its class, with the terms of the waiting updates.  Returns
    ``STATUS_NONFINITE_KERNEL`` (``need_row``: the waiting row) if a kernel
    value is not finite, else ``STATUS_DONE``."""
    cdef Pending* p = &w.p
    cdef int c = w.s.y_class[i], bad = 0
    cdef Py_ssize_t start = w.s.rows_ptr[c], stop = w.s.rows_ptr[c + 1]
    cdef Py_ssize_t q, e, u, k, K = w.s.n_rows
    cdef double value
    for q in range(start, stop):
        w.tmp.cur[q - start] = w.d.scores[w.s.rows[q] * w.z.n_z + i]
    for e in range(p.count):
        value = _pending_value(values, w, e, i, &bad) + w.s.add
        if bad:
            need_row[0] = p.row[e]
            return STATUS_NONFINITE_KERNEL
        for u in range(p.n_up[e]):
            k = p.upd_rows[e * K + u]
            for q in range(start, stop):
                if w.s.rows[q] == k:
                    w.tmp.cur[q - start] += p.upd_delta[e * K + u] * value
    return STATUS_DONE


cdef int _flush(const floating* values, Walk* w, Py_ssize_t* need_row) noexcept nogil:
    """Compute the columns of the waiting updates (several per pass over Z)
    and add them to the scores, in the order of the updates.  Returns
    ``STATUS_NONFINITE_KERNEL`` (``need_row``: the row) if a kernel value is
    not finite, else ``STATUS_DONE``."""
    cdef Pending* p = &w.p
    cdef Cache* c = &w.c
    cdef Py_ssize_t e, u, q, l, row, n = w.z.n_track, n_new = 0
    cdef Py_ssize_t nf = w.z.n_features
    cdef Py_ssize_t new_entry[SKP_PROBES]
    cdef double xsq[SKP_PROBES]
    cdef const double* probes[SKP_PROBES]
    cdef double* outs[SKP_PROBES]
    cdef bint admit
    cdef int mode = _pass_mode(&w.kern)
    for e in range(p.count):
        if p.line[e] >= 0:
            continue
        # A line as _line takes one (stamped now: a later line of this
        # flush must not evict it).
        row = p.row[e]
        admit = c.capacity > 0 and (c.admit_first or c.seen[row])
        c.seen[row] = 1
        if admit:
            l = _free_line(c, w.d.counters, -1)
            w.d.counters[C_CACHE_CLOCK] += 1
            c.line_used[l] = w.d.counters[C_CACHE_CLOCK]
            c.row_of_line[l] = <int> row
            c.line_of_row[row] = <int> l
        else:
            l = c.capacity + n_new
        p.line[e] = l
        new_entry[n_new] = e
        probes[n_new] = p.xd + e * nf
        # Single precision: the arguments in a work line first.
        outs[n_new] = c.lines + (n_new if c.single else l) * n
        n_new += 1
    if n_new == SKP_PROBES:
        for q in range(n_new):
            xsq[q] = p.xsq[new_entry[q]]
        if floating is double:
            skp_dense_pass4_d(mode, values, nf, w.z.track_from, w.z.n_z,
                              probes, w.z.znorm, xsq, w.kern.gamma, outs)
        else:
            skp_dense_pass4_f(mode, values, nf, w.z.track_from, w.z.n_z,
                              probes, w.z.znorm, xsq, w.kern.gamma, outs)
    else:
        for q in range(n_new):
            if floating is double:
                skp_dense_pass_d(mode, values, nf, w.z.track_from, w.z.n_z,
                                 probes[q], w.z.znorm, p.xsq[new_entry[q]],
                                 w.kern.gamma, outs[q])
            else:
                skp_dense_pass_f(mode, values, nf, w.z.track_from, w.z.n_z,
                                 probes[q], w.z.znorm, p.xsq[new_entry[q]],
                                 w.kern.gamma, outs[q])
    for q in range(n_new):
        e = new_entry[q]
        if c.single:
            skp_exp_line_single(outs[q], n, c.lines32 + p.line[e] * n)
        elif _transform(&w.kern, w.z.znorm + w.z.track_from, p.stats[3 * e + 2],
                        outs[q], n):
            need_row[0] = p.row[e]
            return STATUS_NONFINITE_KERNEL
    for e in range(p.count):
        for u in range(p.n_up[e]):
            _axpy_line(w, p.upd_rows[e * w.s.n_rows + u], p.line[e],
                       p.upd_delta[e * w.s.n_rows + u])
    p.count = 0
    p.evals = 0
    return STATUS_DONE


cdef int _defer_update(
    const floating* values, Walk* w, Py_ssize_t i, Py_ssize_t n_up,
    Py_ssize_t* need_row,
) noexcept nogil:
    """The update of sample ``i`` in the ``n_up`` sub-problems of
    ``upd_rows``: its dual side now, its column added now if cached and
    nothing waits, else when the batch is full.  Returns a status (see
    :func:`_flush`)."""
    cdef Pending* p = &w.p
    cdef Py_ssize_t e, u, K = w.s.n_rows, nf = w.z.n_features
    cdef Py_ssize_t l
    cdef int status
    cdef double* xd
    for e in range(p.count):
        if p.row[e] == i:
            # Its column is not computed yet: compute it first.
            status = _flush(values, w, need_row)
            if status != STATUS_DONE:
                return status
            break
    l = w.c.line_of_row[i]
    if l >= 0:
        w.d.counters[C_CACHE_CLOCK] += 1
        w.c.line_used[l] = w.d.counters[C_CACHE_CLOCK]
        if p.count == 0:
            for u in range(n_up):
                _axpy_line(w, w.tmp.upd_rows[u], l, w.tmp.upd_delta[u])
            _record_update(w, i, n_up)
            return STATUS_DONE
    e = p.count
    p.row[e] = <int> i
    p.line[e] = l
    p.n_up[e] = <int> n_up
    for u in range(n_up):
        p.upd_rows[e * K + u] = w.tmp.upd_rows[u]
        p.upd_delta[e * K + u] = w.tmp.upd_delta[u]
    if l < 0:
        xd = p.xd + e * nf
        _load_probe(values, &w.z, i, xd, p.stats + 3 * e)
        if _probe_overflows(&w.kern, p.stats + 3 * e):
            need_row[0] = i
            return STATUS_NONFINITE_KERNEL
        p.xsq[e] = skp_dot_d(xd, xd, nf) if w.kern.kind == KERNEL_RBF else 0.0
    p.count += 1
    _record_update(w, i, n_up)
    if p.count == p.batch:
        return _flush(values, w, need_row)
    return STATUS_DONE


cdef int _walk(
    const floating* values, Walk* w, const int* order, Py_ssize_t n_visits,
    Py_ssize_t* t_io, Py_ssize_t* need_row,
) noexcept nogil:
    """Visit the rows ``order[t_io[0]:n_visits]``; on a status other than
    ``STATUS_DONE``, ``t_io`` is the visit stopped at and ``need_row`` the
    row involved.  No update waits when it returns."""
    cdef Py_ssize_t t, i, u, n_up, r, li, lr
    cdef int status = STATUS_DONE
    cdef uint64_t rng_next
    for t in range(t_io[0], n_visits):
        i = order[t]
        status = _visit_scores(values, w, i, need_row)
        if status != STATUS_DONE:
            t_io[0] = t
            return status
        n_up = _find_mistakes(w, i)
        if n_up < 0:
            t_io[0] = t
            need_row[0] = i
            return STATUS_NONFINITE_SCORE
        if n_up and w.p.batch > 1:
            status = _defer_update(values, w, i, n_up, need_row)
            if status != STATUS_DONE:
                t_io[0] = t
                return status
        elif n_up:
            r = lr = -1
            rng_next = w.d.rng[0]
            if (not w.d.in_support[i] and w.d.budget >= 0
                    and w.d.counters[C_N_SV] >= w.d.budget):
                r = _pick_removal(w, &rng_next)
            # Fetch every column the visit needs before any state changes,
            # so that a walk stopped here (callable kernel) resumes here.
            li = _line(values, w, i, -1, &status)
            if li < 0:
                t_io[0] = t
                need_row[0] = i
                return status
            if r >= 0:
                lr = _line(values, w, r, li, &status)
                if lr < 0:
                    t_io[0] = t
                    need_row[0] = r
                    return status
                w.d.rng[0] = rng_next
            for u in range(n_up):
                _axpy_line(w, w.tmp.upd_rows[u], li, w.tmp.upd_delta[u])
            _record_update(w, i, n_up)
            if r >= 0:
                if w.d.strategy == STRATEGY_FORGETRON:
                    _forgetron_shrink(w, r)
                _remove_support(w, r, lr)
        _end_visit(w, i)
        if w.p.evals >= w.p.max_evals:
            # The waiting columns have cost a good part of a pass already.
            status = _flush(values, w, need_row)
            if status != STATUS_DONE:
                t_io[0] = t
                return status
    t_io[0] = n_visits
    return _flush(values, w, need_row)


def _check_shapes(Matrix z, Py_ssize_t track_from, samples, dual, cache):
    """Refuse arrays whose shapes do not fit together: the walk indexes them
    without bounds checks."""
    n_z, n_rows = z.view.n_rows, dual.scores.shape[0]
    if not 0 <= track_from <= n_z:
        raise ValueError("track_from must be a row of Z (or n_z).")
    n_track = max(n_z - track_from, 1)
    n_lines = (cache.lines if cache.lines32 is None else cache.lines32).shape[0]
    expected = [
        (dual.scores.shape, (n_rows, n_z)),
        (dual.alpha.shape, (n_z, n_rows)),
        (dual.alpha_sum.shape, (n_z, n_rows) if dual.average else dual.alpha_sum.shape),
        (dual.forget.shape, (2, n_rows)),
        (dual.visits.shape[0], n_rows),
    ]
    for length in (samples.y_class, samples.step, dual.in_support, dual.sv_list,
                   dual.sv_pos, dual.last_time, cache.line_of_row, cache.seen):
        expected.append((length.shape[0], n_z))
    expected += [(cache.lines.shape[1], n_track),
                 (cache.row_of_line.shape[0], max(n_lines - SCRATCH_LINES, 1)),
                 (cache.line_used.shape[0], max(n_lines - SCRATCH_LINES, 1))]
    n_classes = samples.rows_ptr.shape[0] - 1
    if n_z and not 0 <= samples.y_class.min() <= samples.y_class.max() < n_classes:
        raise ValueError("y_class must index the classes of the table.")
    if samples.rows.shape[0] and samples.rows.max() >= n_rows:
        raise ValueError("The table names a row beyond n_rows.")
    for got, want in expected:
        if got != want:
            raise ValueError(f"Walker: an array of shape {got} where {want} "
                             "was expected.")


cdef class Walker:
    """The dual perceptron walk over the rows of Z, on arrays owned by the
    caller (kept alive here and used in place: they must not be reallocated
    while the walker lives).  :meth:`run` makes one pass.

    Parameters
    ----------
    z : Matrix
        The rows of Z (for "precomputed", the Gram matrix).
    znorm : ndarray of float64
        What the kernel reads about the rows of Z (``Kernel.norms``).
    track_from : int
        Rows before it are not tracked: no scores, no cache entries.
    kernel : Kernel
        The struct of the kernel (a dict ``kind``, ``gamma``, ``coef0``,
        ``degree`` from Python).
    samples : object
        ``y_class`` (int32) and ``step`` (float64) of every row of Z, the
        class table ``rows_ptr``, ``rows``, ``signs``, ``threshold`` and
        ``add`` (1.0 pads a constant feature, 0.0 none).
    dual : object
        The dual state, updated in place: ``scores`` (n_rows, n_z),
        ``alpha`` and ``alpha_sum`` (n_z, n_rows; ``alpha_sum`` only read
        with ``average``), ``visits``, ``in_support``, ``sv_list``,
        ``sv_pos``, ``last_time``, ``counters`` (int64, 5), ``budget``
        (-1: none), ``strategy``, ``forget`` (2, n_rows) and ``rng``
        (uint64, 1).
    cache : object
        ``lines`` (capacity + SCRATCH_LINES, n_track) float64 or, with
        ``lines32`` (float32, same shape) for "rbf" and "laplacian",
        (SCRATCH_LINES, n_track);
        ``line_of_row``, ``row_of_line``, ``line_used``, ``seen`` and
        ``admit_first``.
    """

    cdef Walk w
    cdef Matrix z
    cdef const double[::1] znorm
    # Every array the walk points into, kept alive.
    cdef object arrays
    cdef double[::1] xd
    cdef int[::1] upd_rows
    cdef double[::1] upd_delta
    cdef double[::1] cur
    # The waiting updates (see Pending).
    cdef int[::1] pend_row
    cdef Py_ssize_t[::1] pend_line
    cdef int[::1] pend_n_up
    cdef int[::1] pend_rows
    cdef double[::1] pend_delta
    cdef double[::1] pend_xd
    cdef double[::1] pend_stats
    cdef double[::1] pend_xsq
    # The table of every class, and the one of a pass (active rows only).
    cdef const int[::1] table_ptr
    cdef const int[::1] table_rows
    cdef const signed char[::1] table_signs
    cdef int[::1] pass_ptr
    cdef int[::1] pass_rows
    cdef signed char[::1] pass_signs

    def __init__(self, Matrix z, const double[::1] znorm,
                 Py_ssize_t track_from, Kernel kernel, samples, dual, cache):
        _check_shapes(z, track_from, samples, dual, cache)
        self.z = z
        self.znorm = znorm
        self.arrays = (samples, dual, cache)
        _rows_of(&self.w.z, &z.view, &znorm[0])
        self.w.z.track_from = track_from
        self.w.z.n_track = z.view.n_rows - track_from
        self.w.kern = kernel
        self._init_samples(samples)
        self._init_dual(dual)
        self._init_cache(cache)
        n_rows = self.w.s.n_rows
        self.xd = np.zeros(max(self.w.z.n_features, 1))
        self.upd_rows = np.zeros(n_rows, dtype=np.int32)
        self.upd_delta = np.zeros(n_rows)
        self.cur = np.zeros(n_rows)
        self.w.tmp.xd = &self.xd[0]
        self.w.tmp.upd_rows = &self.upd_rows[0]
        self.w.tmp.upd_delta = &self.upd_delta[0]
        self.w.tmp.cur = &self.cur[0]
        self._init_pending(dual)

    cdef _init_pending(self, dual):
        # Batches of new columns pay for dense rows of several features,
        # with columns computed here (not by a callable, nor read from a
        # Gram matrix), lines to spare in the cache, and no budget (whose
        # removals need the scores up to date).
        cdef Walk* w = &self.w
        cdef Py_ssize_t batch = SKP_PROBES, n_rows = w.s.n_rows
        cdef Py_ssize_t n_features = max(w.z.n_features, 1)
        if (w.z.sparse or w.z.n_features <= 2 or dual.budget >= 0
                or w.kern.kind == KERNEL_CALLABLE
                or w.kern.kind == KERNEL_PRECOMPUTED
                or w.c.capacity < 2 * SKP_PROBES + 2):
            batch = 1
        self.pend_row = np.zeros(batch, dtype=np.int32)
        self.pend_line = np.zeros(batch, dtype=np.intp)
        self.pend_n_up = np.zeros(batch, dtype=np.int32)
        self.pend_rows = np.zeros(batch * n_rows, dtype=np.int32)
        self.pend_delta = np.zeros(batch * n_rows)
        self.pend_xd = np.zeros(batch * n_features if batch > 1 else 1)
        self.pend_stats = np.zeros(3 * batch)
        self.pend_xsq = np.zeros(batch)
        w.p.batch = batch
        w.p.count = 0
        w.p.evals = 0
        # Waiting columns stop being worth it once the visits have computed
        # about a quarter of a column for them.
        w.p.max_evals = max(w.z.n_track // 4, 1)
        w.p.row = &self.pend_row[0]
        w.p.line = &self.pend_line[0]
        w.p.n_up = &self.pend_n_up[0]
        w.p.upd_rows = &self.pend_rows[0]
        w.p.upd_delta = &self.pend_delta[0]
        w.p.xd = &self.pend_xd[0]
        w.p.stats = &self.pend_stats[0]
        w.p.xsq = &self.pend_xsq[0]

    cdef _init_samples(self, samples):
        cdef const int[::1] y_class = samples.y_class
        cdef const double[::1] step = samples.step
        self.table_ptr = samples.rows_ptr
        self.table_rows = samples.rows
        self.table_signs = samples.signs
        self.pass_ptr = np.zeros(self.table_ptr.shape[0], dtype=np.int32)
        self.pass_rows = np.zeros(max(self.table_rows.shape[0], 1), dtype=np.int32)
        self.pass_signs = np.zeros(max(self.table_signs.shape[0], 1), dtype=np.int8)
        self.w.s.y_class = &y_class[0]
        self.w.s.step = &step[0]
        self.w.s.threshold = samples.threshold
        self.w.s.add = samples.add
        self.w.s.rule = getattr(samples, "rule", RULE_TABLE)

    cdef _init_dual(self, dual):
        cdef double[:, ::1] scores = dual.scores
        cdef double[:, ::1] alpha = dual.alpha
        cdef double[:, ::1] alpha_sum = dual.alpha_sum
        cdef double[::1] visits = dual.visits
        cdef unsigned char[::1] in_support = dual.in_support
        cdef int[::1] sv_list = dual.sv_list
        cdef int[::1] sv_pos = dual.sv_pos
        cdef long long[::1] last_time = dual.last_time
        cdef long long[::1] counters = dual.counters
        cdef double[:, ::1] forget = dual.forget
        cdef unsigned long long[::1] rng = dual.rng
        if counters.shape[0] != N_COUNTERS or rng.shape[0] != 1:
            raise ValueError("counters needs 5 entries and rng one.")
        self.w.s.n_rows = scores.shape[0]
        self.w.d.scores = &scores[0, 0]
        self.w.d.alpha = &alpha[0, 0]
        self.w.d.average = dual.average
        self.w.d.alpha_sum = &alpha_sum[0, 0]
        self.w.d.visits = &visits[0]
        self.w.d.in_support = &in_support[0]
        self.w.d.sv_list = &sv_list[0]
        self.w.d.sv_pos = &sv_pos[0]
        self.w.d.last_time = &last_time[0]
        self.w.d.counters = &counters[0]
        self.w.d.budget = dual.budget
        self.w.d.strategy = dual.strategy
        self.w.d.forget_q = &forget[0, 0]
        self.w.d.forget_m = &forget[1, 0]
        self.w.d.rng = <uint64_t*> &rng[0]

    cdef _init_cache(self, cache):
        cdef double[:, ::1] lines = cache.lines
        cdef float[:, ::1] lines32
        cdef int[::1] line_of_row = cache.line_of_row
        cdef int[::1] row_of_line = cache.row_of_line
        cdef long long[::1] line_used = cache.line_used
        cdef unsigned char[::1] seen = cache.seen
        cdef Py_ssize_t n_lines = lines.shape[0]
        self.w.c.single = cache.lines32 is not None
        self.w.c.lines = &lines[0, 0]
        self.w.c.lines32 = NULL
        if self.w.c.single:
            if self.w.kern.kind != KERNEL_RBF and self.w.kern.kind != KERNEL_LAPLACIAN:
                raise ValueError("Single-precision lines are for the rbf and "
                                 "laplacian kernels only.")
            lines32 = cache.lines32
            if lines32.shape[1] != lines.shape[1]:
                raise ValueError("lines32 and lines need lines of one length.")
            self.w.c.lines32 = &lines32[0, 0]
            n_lines = lines32.shape[0]
        self.w.c.capacity = n_lines - SCRATCH_LINES
        self.w.c.admit_first = cache.admit_first
        self.w.c.seen = &seen[0]
        self.w.c.line_of_row = &line_of_row[0]
        self.w.c.row_of_line = &row_of_line[0]
        self.w.c.line_used = &line_used[0]

    def run(self, const int[::1] order, Py_ssize_t t_start,
            const unsigned char[::1] active, long long[::1] updates):
        """Visit the rows ``order[t_start:]`` of Z; sub-problems with
        ``active[k] == 0`` are frozen (no update, no visit), and ``updates``
        (int64, (n_rows,)) counts the updates of every sub-problem, in place.

        Returns
        -------
        status, t, row : int
            ``STATUS_DONE`` (t = len(order)); or the visit ``t`` stopped at
            and the row involved: ``STATUS_NEED_COLUMN`` (store its column
            with :func:`cache_store` and call again from ``t``),
            ``STATUS_NONFINITE_KERNEL`` or ``STATUS_NONFINITE_SCORE``.
        """
        cdef Py_ssize_t t = t_start, need_row = -1
        cdef Py_ssize_t c, p, n_entries = 0
        cdef int status
        # A local copy: the compiler then keeps its fields in registers,
        # where fields of this object would be reloaded after every store.
        cdef Walk w = self.w
        if order.shape[0] == 0:
            return STATUS_DONE, 0, -1
        w.tmp.updates = &updates[0]
        for c in range(self.table_ptr.shape[0] - 1):
            self.pass_ptr[c] = <int> n_entries
            for p in range(self.table_ptr[c], self.table_ptr[c + 1]):
                if active[self.table_rows[p]]:
                    self.pass_rows[n_entries] = self.table_rows[p]
                    self.pass_signs[n_entries] = self.table_signs[p]
                    n_entries += 1
        self.pass_ptr[self.table_ptr.shape[0] - 1] = <int> n_entries
        w.s.rows_ptr = &self.pass_ptr[0]
        w.s.rows = &self.pass_rows[0]
        w.s.signs = &self.pass_signs[0]
        if self.z.view.float32:
            with nogil:
                status = _walk(<const float*> self.z.view.values, &w,
                               &order[0], order.shape[0], &t, &need_row)
        else:
            with nogil:
                status = _walk(<const double*> self.z.view.values, &w,
                               &order[0], order.shape[0], &t, &need_row)
        return status, t, need_row


def cache_store(const double[::1] column, Py_ssize_t row, cache,
                long long[::1] counters):
    """Store the column of Z row ``row`` (kernel values computed in Python,
    for a callable kernel) in an LRU line of ``cache`` (as given to
    :class:`Walker`, double lines), evicting the least recently used line
    if full."""
    cdef double[:, ::1] lines = cache.lines
    cdef int[::1] line_of_row = cache.line_of_row
    cdef int[::1] row_of_line = cache.row_of_line
    cdef long long[::1] line_used = cache.line_used
    cdef Cache c
    cdef Py_ssize_t l
    c.capacity = lines.shape[0] - SCRATCH_LINES
    c.line_of_row = &line_of_row[0]
    c.row_of_line = &row_of_line[0]
    c.line_used = &line_used[0]
    l = _free_line(&c, &counters[0], -1)
    lines[l, :] = column
    counters[C_CACHE_CLOCK] += 1
    row_of_line[l] = <int> row
    line_of_row[row] = <int> l
    line_used[l] = counters[C_CACHE_CLOCK]
