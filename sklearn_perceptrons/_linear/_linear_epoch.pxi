# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The compiled epoch of the linear perceptrons (included by two modules).

``_linear_fast.pyx`` compiles this source for any x86-64 / other CPU, and
``_linear_fast_avx2.pyx`` compiles the same source with AVX2 enabled; the
Python layer imports the latter when the CPU has AVX2.  Both are built with
``-ffp-contract=off`` (no fused multiply-add), so they round alike and
give bit-identical results.

One function walks the given rows of X once and applies the perceptron update
rule to one or several weight rows.  Everything that distinguishes the linear
estimators of this package is a parameter of that walk, not a copy of it:

* which weight rows a sample of class ``c`` touches, and with which sign, is a
  table (``class_rows_ptr``, ``class_rows``, ``class_signs``): binary problems
  have one row, native one-vs-all has K rows touched by every sample, and the
  one-vs-one fast path has K(K-1)/2 rows of which a sample touches the K-1
  pairs that involve its class;
* when a sample triggers an update is the *rule*: ``RULE_THRESHOLD`` updates
  when ``m <= threshold[k]`` (Rosenblatt with a threshold), ``RULE_MARGIN``
  updates when ``w~ = 0`` or ``m < kappa[k] * ||w~||`` (the margin
  perceptron; ``||w~||`` is kept up to date incrementally);
  ``RULE_CS_MAX`` and ``RULE_CS_UNIFORM`` are the native multiclass rules
  (Crammer-Singer): the K scores of the rows of a sample's table are
  computed first, and they decide which rows move, the one of sign +1 (the
  sample's class) toward x and the violating ones away; ``RULE_CS_PA1`` and
  ``RULE_CS_PA2`` are the multiclass passive-aggressive rules (the own row
  and the highest-scoring other row);
* ``RULE_PA1`` and ``RULE_PA2`` (the passive-aggressive rules) update on
  ``m < 1`` by a step that depends on the margin and on ``||x||^2``;
  ``RULE_ALMA``, ``RULE_ROMMA`` and ``RULE_AROMMA`` rescale the weights at
  every update: they (and scikit-learn's penalties) take the scaled walk,
  which keeps every row as a scale and a direction;
* how big the update is, ``step[i] = eta0 * sample_weight[i] *
  class_weight[y_i]``, is computed once per call in Python (the rules
  above scale it by their own step);
* averaging keeps the running sums of Daume's trick, so the average over every
  visit costs nothing unless an update happens.

Dense and CSR rows go through the same source: a row is a pointer to its values,
a pointer to its column indices (ignored for dense rows) and a length.  The
float32 and float64 specialisations come from the fused type ``floating``.
The walk holds no Python objects and runs without the GIL.
"""

from cython cimport floating

from .._core._rowops cimport (
    SKP_PREFETCH,
    SKP_PREFETCH_L2,
    Visits,
    XRows,
    prefetch_row,
    row_dot,
    skp_dense_dots_d,
    skp_dense_dots_f,
    skp_sparse_dots_d,
    skp_sparse_dots_f,
)
from libc.math cimport INFINITY, copysign, fabs, fmax, fmin, isfinite, isnan, pow, sqrt

from cpython.buffer cimport (
    PyBUF_C_CONTIGUOUS,
    PyBUF_WRITABLE,
    PyBuffer_Release,
    PyObject_GetBuffer,
)

import numpy as np

# Update rules, read by Python from this module (``rows.py``).  Rules 2-5
# couple the rows of a sample (Crammer-Singer), 6-7 treat each row alone,
# 8-10 rescale the weights (the scaled walk).
cpdef enum:
    RULE_THRESHOLD = 0
    RULE_MARGIN = 1
    RULE_CS_MAX = 2
    RULE_CS_UNIFORM = 3
    RULE_CS_PA1 = 4
    RULE_CS_PA2 = 5
    RULE_PA1 = 6
    RULE_PA2 = 7
    RULE_ALMA = 8
    RULE_ROMMA = 9
    RULE_AROMMA = 10

cdef enum:
    # Rows of a sample scored before the rule is applied to them.
    SCORE_BLOCK = 32
    # Entries of the row table whose row pointers a pass keeps (see
    # _epoch_rows).
    TABLE_KEPT = 256

# The status of a pass (see _epoch_pass), read by Python from this module.
cpdef enum:
    PASS_OK = 0
    PASS_NOT_A_NUMBER = 1
    PASS_WEIGHTS_NOT_FINITE = 2


# The pass reads its arguments as four named structs, filled once per call
# (see _epoch_pass; the scaled walk adds one): X and the visits
# (``XRows``, ``Visits``, shared with the second-order pass through
# ``_core/_rowops.pxd``), the rule and the weights.  Structs cannot hold a
# fused type, so the float32 or float64 arrays are ``void`` pointers that the
# fused functions cast back to ``floating``.
cdef struct Rule:
    # The update rule and its parameters (per weight row).
    int code
    const double* threshold
    const double* kappa
    double intercept_rate
    bint fit_intercept
    bint average


cdef struct Weights:
    # What the pass updates in place.
    void* coef              # floating, (n_rows, n_features)
    void* intercept         # floating, (n_rows,)
    double* norm            # the margin rule's ||[w_k; b_k]||
    double* coef_sum        # Daume's sums, with averaging
    double* intercept_sum
    double* visits
    long long* updates
    double* losses          # hinge losses of the passive-aggressive rules
    double* scores          # scratch of the Crammer-Singer rules


cdef inline bint _row_add(
    floating* w, double* w_sum, double scale, double sum_scale, bint average,
    const floating* x_values, const int* x_indices, Py_ssize_t nnz, bint sparse,
) noexcept nogil:
    """Add ``scale * x`` to ``w`` (and ``sum_scale * x`` to ``w_sum``).

    Dense rows take one plain loop per array, which the compiler vectorizes;
    CSR rows one loop for both arrays, which reads each entry once.  Returns
    whether a weight of a CSR row's columns became non-finite (an overflow),
    so that a CSR pass proves its weights finite without a pass over all of
    them (False for dense rows, whose caller checks every weight).
    """
    cdef Py_ssize_t j, k
    cdef floating v
    cdef bint bad = False
    if sparse:
        if average:
            for j in range(nnz):
                k = x_indices[j]
                v = w[k] + <floating>(scale * x_values[j])
                w[k] = v
                bad |= not isfinite(v)
                w_sum[k] += sum_scale * x_values[j]
        else:
            for j in range(nnz):
                k = x_indices[j]
                v = w[k] + <floating>(scale * x_values[j])
                w[k] = v
                bad |= not isfinite(v)
    else:
        for j in range(nnz):
            w[j] += <floating>(scale * x_values[j])
        if average:
            for j in range(nnz):
                w_sum[j] += sum_scale * x_values[j]
    return bad


cdef inline double _row_sq_norm(const floating* x_values, Py_ssize_t nnz) noexcept nogil:
    """``||x||^2`` of a row, which the margin rule needs to keep ``||w~||`` up
    to date without an O(n_features) recomputation (four partial sums, so the
    latency of the additions does not serialize the loop)."""
    cdef Py_ssize_t j = 0
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    while j + 4 <= nnz:
        s0 += <double>x_values[j] * x_values[j]
        s1 += <double>x_values[j + 1] * x_values[j + 1]
        s2 += <double>x_values[j + 2] * x_values[j + 2]
        s3 += <double>x_values[j + 3] * x_values[j + 3]
        j += 4
    while j < nnz:
        s0 += <double>x_values[j] * x_values[j]
        j += 1
    return (s0 + s1) + (s2 + s3)


cdef inline floating _dense_dot_sq(
    const floating* w, const floating* x, Py_ssize_t n, double* sq,
) noexcept nogil:
    """``w . x`` of a dense row as :func:`row_dot` sums it, and ``||x||^2``
    (to ``sq``) as :func:`_row_sq_norm`: the rules that need both at every
    visit (ALMA_2, PA-I with averaging).  Two loops, the second over a row
    the first has just brought into the first-level cache: each keeps its
    full vector width, where one loop for both sums vectorizes poorly."""
    cdef floating dot = row_dot(w, x, NULL, n, False)
    sq[0] = _row_sq_norm(x, n)
    return dot


cdef inline double _pa_step(int rule, double loss, double sq_norm,
                            double C) noexcept nogil:
    """The passive-aggressive step ``tau`` of a visit of hinge loss ``loss``
    and squared norm ``sq_norm`` (Crammer et al. 2006): ``min(C, loss /
    sq_norm)`` (PA-I) or ``loss / (sq_norm + 1 / (2 C))`` (PA-II)."""
    if rule == RULE_PA1 or rule == RULE_CS_PA1:
        return fmin(C, loss / sq_norm)
    return loss / (sq_norm + 0.5 / C)


cdef inline int _multiclass_visit(
    const floating* x_values, const int* x_indices, Py_ssize_t nnz,
    const XRows* X, Py_ssize_t i, const Visits* v, const Rule* r,
    const Weights* w, bint* weights_bad,
) noexcept nogil:
    """The Crammer-Singer rules on one sample of class ``c``.

    ``RULE_CS_MAX``, ``RULE_CS_UNIFORM``: a mistake when some row ``r`` of
    sign -1 scores ``s_own - s_r <= threshold[own]``; then the row of sign
    +1 moves by ``+step`` and the highest violating row (ties: the first in
    the table) by ``-step`` (max), or every violating row by ``-step /
    (their number)`` (uniform).  ``RULE_CS_PA1``, ``RULE_CS_PA2``: the
    multiclass passive-aggressive rule, against the highest-scoring other
    row ``r``: the loss ``l = max(0, 1 - (s_own - s_r))`` (added to
    ``losses[own]``), and when ``l > 0`` the own row moves by ``+tau step``
    and row ``r`` by ``-tau step``, ``tau`` the step of :func:`_pa_step`
    for the squared norm ``2 ||x||^2`` of the Kesler vector and ``C =
    kappa[own]``; PA-I skips a zero ``x`` altogether (no visit), as
    scikit-learn does.  Intercepts move by ``intercept_rate`` times their
    row's step.  The mistake is counted once, on the own row.  Returns 1 on
    a score that is not a number, else 0; ``weights_bad`` is set when an
    update made a weight non-finite (see ``_row_add``).  The rows move
    together, so only the own row's ``active`` flag is read."""
    cdef bint sparse = X.sparse
    cdef Py_ssize_t n_features = X.n_features
    cdef int c = v.y_class[i]
    cdef const double* step = v.step
    cdef const int* class_rows_ptr = v.rows_ptr
    cdef const int* class_rows = v.rows
    cdef const signed char* class_signs = v.signs
    cdef const unsigned char* active = v.active
    cdef int rule = r.code
    cdef const double* threshold = r.threshold
    cdef const double* kappa = r.kappa
    cdef double intercept_rate = r.intercept_rate
    cdef bint fit_intercept = r.fit_intercept
    cdef bint average = r.average
    cdef floating* coef = <floating*>w.coef
    cdef floating* intercept = <floating*>w.intercept
    cdef double* coef_sum = w.coef_sum
    cdef double* intercept_sum = w.intercept_sum
    cdef double* visits = w.visits
    cdef long long* updates = w.updates
    cdef double* losses = w.losses
    cdef double* scores = w.scores
    cdef Py_ssize_t p, k, own = -1, best = -1, n_viol = 0
    cdef double raw, own_score = 0.0, best_score = 0.0, scale = 0.0, loss, q
    cdef bint passive_aggressive = rule == RULE_CS_PA1 or rule == RULE_CS_PA2
    cdef Py_ssize_t start = class_rows_ptr[c], stop = class_rows_ptr[c + 1]
    for p in range(start, stop):
        if class_signs[p] > 0:
            own = class_rows[p]
    if own < 0 or not active[own]:
        return 0
    for p in range(start, stop):
        k = class_rows[p]
        raw = row_dot(coef + k * n_features, x_values, x_indices, nnz, sparse)
        if fit_intercept:
            raw += intercept[k]
        if isnan(raw):
            return 1
        scores[p - start] = raw
        if k == own:
            own_score = raw
    for p in range(start, stop):
        k = class_rows[p]
        if class_signs[p] > 0:
            continue
        raw = scores[p - start]
        if isnan(own_score - raw):
            return 1
        if passive_aggressive:
            if best < 0 or raw > best_score:
                best, best_score = k, raw
        elif own_score - raw <= threshold[own]:
            n_viol += 1
            if best < 0 or raw > best_score:
                best, best_score = k, raw
    if passive_aggressive:
        loss = fmax(0.0, 1.0 - (own_score - best_score)) if best >= 0 else 0.0
        losses[own] += loss
        n_viol = loss > 0.0
        scale = 0.0
        if (n_viol and step[i] != 0.0) or (average and rule == RULE_CS_PA1):
            q = 2.0 * _row_sq_norm(x_values, nnz)
            if rule == RULE_CS_PA1 and q == 0.0:
                return 0
            if n_viol:
                scale = _pa_step(rule, loss, q, kappa[own]) * step[i]
    # A sample of weight zero never updates, so it is no mistake either.
    if n_viol and step[i] != 0.0:
        updates[own] += 1
        for p in range(start, stop):
            k = class_rows[p]
            if passive_aggressive:
                if k == own:
                    raw = scale
                elif k == best:
                    raw = -scale
                else:
                    continue
            elif k == own:
                raw = step[i]
            elif rule == RULE_CS_MAX:
                if k != best:
                    continue
                raw = -step[i]
            elif own_score - scores[p - start] <= threshold[own]:
                raw = -step[i] / n_viol
            else:
                continue
            weights_bad[0] |= _row_add(
                coef + k * n_features, coef_sum + k * n_features,
                raw, raw * visits[k], average,
                x_values, x_indices, nnz, sparse,
            )
            if fit_intercept:
                raw = raw * intercept_rate
                intercept[k] += <floating>raw
                weights_bad[0] |= not isfinite(intercept[k])
                if average:
                    intercept_sum[k] += raw * visits[k]
    for p in range(start, stop):
        visits[class_rows[p]] += 1.0
    return 0


cdef inline Py_ssize_t _prefetch_distance(
    const floating* X_values, const int* X_indptr, bint sparse, Py_ssize_t n_features, Py_ssize_t n_visits,
    bint* prefetch_sequential,
) noexcept nogil:
    """How many rows ahead to prefetch: as many as fit in about 8 KiB (at
    least 2).  Sequential rows are left to the hardware prefetcher, except
    short dense ones, where A/B measurements showed a gain (and CSR rows a
    loss)."""
    cdef Py_ssize_t row_bytes = (
        (X_indptr[1] - X_indptr[0] if sparse and n_visits else n_features)
        * sizeof(floating) + 1)
    prefetch_sequential[0] = row_bytes <= 1024 and not sparse
    return max(2, min(32, 8192 // row_bytes))


cdef inline Py_ssize_t _locate_row(
    const floating* X_values, const XRows* X, const Visits* v,
    Py_ssize_t t, Py_ssize_t ahead, bint prefetch_sequential,
    const floating** x_values, const int** x_indices,
) noexcept nogil:
    """Point ``x_values``/``x_indices`` at the row of visit ``t`` and return
    its length.

    When rows are visited out of order, the row ``4 * ahead`` visits later
    (with its class and step, cache misses too) is prefetched into the
    second-level cache and the row ``ahead`` visits later into the first:
    two stages keep more random rows in flight than one.  ``X_values`` is
    ``X.values`` at its dtype."""
    cdef const int* X_indices = X.indices
    cdef const int* X_indptr = X.indptr
    cdef bint sparse = X.sparse
    cdef Py_ssize_t n_features = X.n_features
    cdef const int* order = v.order
    cdef Py_ssize_t n_visits = v.n_visits
    cdef Py_ssize_t i = order[t], later
    if t + ahead < n_visits:
        later = order[t + ahead]
        if prefetch_sequential or later != i + ahead:
            prefetch_row(X_values, X_indices, X_indptr, sparse, n_features,
                          later, False)
    if t + 4 * ahead < n_visits:
        later = order[t + 4 * ahead]
        if later != i + 4 * ahead:
            SKP_PREFETCH_L2(v.y_class + later)
            SKP_PREFETCH_L2(v.step + later)
            prefetch_row(X_values, X_indices, X_indptr, sparse, n_features,
                          later, True)
    if sparse:
        x_values[0] = X_values + X_indptr[i]
        x_indices[0] = X_indices + X_indptr[i]
        return X_indptr[i + 1] - X_indptr[i]
    x_values[0] = X_values + i * n_features
    return n_features


cdef inline bint _rule_says_update(
    int rule, double m, Py_ssize_t k, const double* threshold,
    const double* kappa, const double* norm,
) noexcept nogil:
    """Whether row ``k`` updates on a sample of signed margin ``m`` (no
    branch on the margin, so that it can sit between dot products): the
    passive-aggressive rules update on a positive hinge loss, ``m < 1``."""
    if rule == RULE_THRESHOLD:
        return m <= threshold[k]
    if rule == RULE_MARGIN:
        return (norm[k] == 0.0) | (m < kappa[k] * norm[k])
    return m < 1.0


cdef inline bint _update_row(
    Py_ssize_t k, double scale, double before, double raw,
    const floating* x_values, const int* x_indices, Py_ssize_t nnz,
    const XRows* X, const Rule* r, const Weights* w, bint* weights_bad,
) noexcept nogil:
    """Move row ``k`` by ``scale * x`` and its intercept by ``intercept_rate
    * scale`` after ``before`` visits (its score on x was ``raw``); returns
    True when the margin rule's norm overflows, and sets ``weights_bad``
    when a weight became non-finite (``_row_add``)."""
    cdef Py_ssize_t n_features = X.n_features
    cdef bint fit_intercept = r.fit_intercept
    cdef bint average = r.average
    cdef floating* intercept = <floating*>w.intercept
    cdef double* norm = w.norm
    cdef double sq_norm_x, new_sq_norm, intercept_scale
    w.updates[k] += 1
    # Daume's trick: the sum of the iterates over all visits is
    # T * w_T - sum over updates of (visits before it) * delta.
    weights_bad[0] |= _row_add(
        <floating*>w.coef + k * n_features, w.coef_sum + k * n_features,
        scale, scale * before, average, x_values, x_indices, nnz, X.sparse,
    )
    if fit_intercept:
        intercept_scale = scale * r.intercept_rate
        intercept[k] += <floating>intercept_scale
        weights_bad[0] |= not isfinite(intercept[k])
        if average:
            w.intercept_sum[k] += intercept_scale * before
    if r.code == RULE_MARGIN:
        # ||w~ + a x~||^2 = ||w~||^2 + 2 a (w~.x~) + a^2 ||x~||^2
        sq_norm_x = _row_sq_norm(x_values, nnz) + fit_intercept
        new_sq_norm = (norm[k] * norm[k] + 2.0 * scale * raw
                       + scale * scale * sq_norm_x)
        if not isfinite(new_sq_norm):
            return True
        norm[k] = sqrt(new_sq_norm) if new_sq_norm > 0.0 else 0.0
    return False


cdef int _epoch_rows(
    const floating* X_values, const XRows* X, const Visits* v, const Rule* r,
    const Weights* w,
) noexcept nogil:
    """The pass of the rules that treat each row alone (``RULE_THRESHOLD``,
    ``RULE_MARGIN``, ``RULE_PA1``, ``RULE_PA2``); returns its status
    (``_epoch_pass``).

    A sample with several rows first scores a block of them and decides
    which update, with no branch on a score, then applies the updates: the
    rows of a class are distinct, so each row sees the arithmetic of a
    row-by-row visit, and a mispredicted update no longer discards the dot
    products computed after it.

    The passive-aggressive rules add the hinge loss ``max(0, 1 - m)`` of
    every visit to ``losses[k]`` and scale an update by the step ``tau`` of
    :func:`_pa_step` (``C = kappa[k]``), for the squared norm of ``x``
    (computed once per sample, when first needed); PA-I skips a zero ``x``
    altogether, as scikit-learn does (with averaging, where it matters, the
    norm is computed at every visit to know it).  ``X_values`` is
    ``X.values`` at its dtype."""
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
    cdef int rule = r.code
    cdef const double* threshold = r.threshold
    cdef const double* kappa = r.kappa
    cdef bint fit_intercept = r.fit_intercept
    cdef bint average = r.average
    cdef floating* coef = <floating*>w.coef
    cdef floating* intercept = <floating*>w.intercept
    cdef double* norm = w.norm
    cdef double* visits = w.visits
    cdef double* losses = w.losses
    cdef Py_ssize_t t, i, p, k, nnz, first, last, stop, h, n_hits
    cdef const floating* x_values
    cdef const int* x_indices = NULL
    cdef int c
    cdef double raw, m, step_i, scale, q
    cdef bint passive_aggressive = rule == RULE_PA1 or rule == RULE_PA2
    # Only PA-I with averaging needs the norm of every sample.
    cdef bint norm_first = average and rule == RULE_PA1
    cdef double block[SCORE_BLOCK]
    cdef double seen[SCORE_BLOCK]
    cdef Py_ssize_t hits[SCORE_BLOCK]
    cdef Py_ssize_t scored[SCORE_BLOCK]
    cdef const floating* row_ptrs[SCORE_BLOCK]
    cdef floating dots[SCORE_BLOCK]
    cdef Py_ssize_t n_scored
    # The scored entries and their rows, gathered or kept.
    cdef const Py_ssize_t* scored_entries
    cdef const floating* const* scored_rows
    # A block of table entries whose rows are all active is gathered once
    # per pass (the active flags do not change during it), then read here.
    cdef const floating* kept_rows[TABLE_KEPT]
    cdef Py_ssize_t kept_entries[TABLE_KEPT]
    cdef unsigned char kept[TABLE_KEPT]
    cdef bint update, prefetch_sequential
    # A NaN margin (w . x overflowed: inf - inf) compares as "no mistake";
    # it is recorded without a branch and reported at the end of the pass,
    # whose state the caller then discards.
    cdef bint not_a_number = False
    cdef bint weights_bad = False
    # Copies of what the row locator reads at every visit, which the
    # compiler keeps at hand (the caller's structs it would read again
    # after every call the loop makes).
    cdef XRows X_local = X[0]
    cdef Visits v_local = v[0]
    cdef Py_ssize_t ahead = _prefetch_distance(X_values, X_indptr, sparse, n_features,
                                               n_visits, &prefetch_sequential)
    for p in range(SCORE_BLOCK):
        block[p] = 0.0
    for p in range(TABLE_KEPT):
        kept[p] = 0

    for t in range(n_visits):
        nnz = _locate_row(X_values, &X_local, &v_local, t, ahead,
                          prefetch_sequential,
                          &x_values, &x_indices)
        i = order[t]
        c = y_class[i]
        # A sample of weight zero never updates, so it is no mistake either.
        step_i = step[i]
        first, stop = class_rows_ptr[c], class_rows_ptr[c + 1]
        q = -1.0
        # (A dense binary row gets its norm with its score, below.)
        if norm_first and (sparse or stop - first > 1):
            q = _row_sq_norm(x_values, nnz)
            if q == 0.0:
                # Not a visit: only the losses of the rows (scores b_k).
                for p in range(first, stop):
                    k = class_rows[p]
                    if active[k]:
                        raw = intercept[k] if fit_intercept else 0.0
                        losses[k] += fmax(0.0, 1.0 - class_signs[p] * raw)
                continue
        if stop - first == 1:
            # One row (binary problems): nothing to overlap, no block.
            k = class_rows[first]
            if active[k]:
                if norm_first and not sparse:
                    # PA-I with averaging needs ||x||^2 at every visit.
                    raw = _dense_dot_sq(coef + k * n_features, x_values, nnz, &q)
                else:
                    raw = row_dot(coef + k * n_features, x_values, x_indices,
                                   nnz, sparse)
                if fit_intercept:
                    raw += intercept[k]
                m = class_signs[first] * raw
                not_a_number |= m != m
                if passive_aggressive:
                    losses[k] += fmax(0.0, 1.0 - m)
                    if norm_first and q == 0.0:
                        # Not a visit (PA-I skips a zero x).
                        continue
                if (_rule_says_update(rule, m, k, threshold, kappa, norm)
                        and step_i != 0.0):
                    scale = step_i * class_signs[first]
                    if passive_aggressive:
                        if q < 0.0:
                            q = _row_sq_norm(x_values, nnz)
                        if rule == RULE_PA1 and q == 0.0:
                            continue
                        scale *= _pa_step(rule, 1.0 - m, q, kappa[k])
                    if _update_row(
                        k, scale, visits[k], raw, x_values, x_indices, nnz,
                        X, r, w, &weights_bad,
                    ):
                        return PASS_NOT_A_NUMBER
                visits[k] += 1.0
            continue
        while first < stop:
            last = min(first + SCORE_BLOCK, stop)
            n_hits = 0
            n_scored = 0
            if last <= TABLE_KEPT and kept[first]:
                scored_entries = kept_entries + first
                scored_rows = kept_rows + first
                n_scored = last - first
            else:
                # The active rows, without a branch: a frozen row's entry
                # is written, then overwritten by the next row's.
                for p in range(first, last):
                    k = class_rows[p]
                    scored[n_scored] = p
                    row_ptrs[n_scored] = coef + k * n_features
                    n_scored += active[k] != 0
                scored_entries = scored
                scored_rows = row_ptrs
                if last <= TABLE_KEPT and n_scored == last - first:
                    for h in range(n_scored):
                        kept_entries[first + h] = scored[h]
                        kept_rows[first + h] = row_ptrs[h]
                    kept[first] = 1
            # The rows are scored together (one read of x for several
            # rows, their weights' loads in flight together); each score is
            # summed as row_dot sums it.
            if sparse:
                if floating is double:
                    skp_sparse_dots_d(scored_rows, n_scored, x_values,
                                      x_indices, nnz, dots)
                else:
                    skp_sparse_dots_f(scored_rows, n_scored, x_values,
                                      x_indices, nnz, dots)
            elif floating is double:
                skp_dense_dots_d(scored_rows, n_scored, x_values, nnz, dots)
            else:
                skp_dense_dots_f(scored_rows, n_scored, x_values, nnz, dots)
            for h in range(n_scored):
                p = scored_entries[h]
                k = class_rows[p]
                raw = dots[h]
                if fit_intercept:
                    raw += intercept[k]
                m = class_signs[p] * raw
                update = _rule_says_update(rule, m, k, threshold, kappa, norm)
                if passive_aggressive:
                    losses[k] += fmax(0.0, 1.0 - m)
                block[p - first] = raw
                hits[n_hits] = p
                n_hits += update
                # The update weighs its change by the visits before this one.
                seen[p - first] = visits[k]
                visits[k] = seen[p - first] + 1.0
            # A score that is not a number is looked for once per block, off
            # the path of the dot products (the entries of frozen rows are 0
            # or earlier scores, already looked at).
            for p in range(last - first):
                not_a_number |= block[p] != block[p]
            if step_i == 0.0:
                n_hits = 0
            for h in range(n_hits):
                p = hits[h]
                scale = step_i * class_signs[p]
                if passive_aggressive:
                    if q < 0.0:
                        q = _row_sq_norm(x_values, nnz)
                    if rule == RULE_PA1 and q == 0.0:
                        break
                    scale *= _pa_step(rule, 1.0 - class_signs[p] * block[p - first],
                                      q, kappa[class_rows[p]])
                if _update_row(
                    class_rows[p], scale, seen[p - first],
                    block[p - first], x_values, x_indices, nnz,
                    X, r, w, &weights_bad,
                ):
                    return PASS_NOT_A_NUMBER
            first = last
    return _status(not_a_number, weights_bad)


cdef int _epoch_multiclass(
    const floating* X_values, const XRows* X, const Visits* v, const Rule* r,
    const Weights* w,
) noexcept nogil:
    """The pass of the Crammer-Singer rules (see ``_multiclass_visit``);
    returns its status (``_epoch_pass``), at once on a score that is not a
    number."""
    cdef const int* X_indices = X.indices
    cdef const int* X_indptr = X.indptr
    cdef bint sparse = X.sparse
    cdef Py_ssize_t n_features = X.n_features
    cdef const int* order = v.order
    cdef Py_ssize_t n_visits = v.n_visits
    cdef const int* y_class = v.y_class
    cdef const double* step = v.step
    cdef Py_ssize_t t, i, nnz
    cdef const floating* x_values
    cdef const int* x_indices = NULL
    cdef bint prefetch_sequential
    cdef bint weights_bad = False
    # Copies of what the row locator reads at every visit, which the
    # compiler keeps at hand (the caller's structs it would read again
    # after every call the loop makes).
    cdef XRows X_local = X[0]
    cdef Visits v_local = v[0]
    cdef Py_ssize_t ahead = _prefetch_distance(X_values, X_indptr, sparse, n_features,
                                               n_visits, &prefetch_sequential)
    for t in range(n_visits):
        nnz = _locate_row(X_values, &X_local, &v_local, t, ahead,
                          prefetch_sequential,
                          &x_values, &x_indices)
        i = order[t]
        if _multiclass_visit(x_values, x_indices, nnz, X, i, v, r, w,
                             &weights_bad):
            return PASS_NOT_A_NUMBER
    return _status(False, weights_bad)


cdef inline int _status(bint not_a_number, bint weights_bad) noexcept nogil:
    """The status of a pass: a margin that is not a number first (the
    weights of that pass are of no use), then a weight that became
    non-finite."""
    if not_a_number:
        return PASS_NOT_A_NUMBER
    if weights_bad:
        return PASS_WEIGHTS_NOT_FINITE
    return PASS_OK


cdef inline bint _coupled_rule(int rule) noexcept nogil:
    """Whether the rule couples the rows of a sample (Crammer-Singer)."""
    return RULE_CS_MAX <= rule <= RULE_CS_PA2


cdef int _epoch_pass(
    const floating* X_values, const XRows* X, const Visits* v, const Rule* r,
    const Weights* w,
) noexcept nogil:
    """The pass; returns ``PASS_NOT_A_NUMBER`` on a margin that is not a
    number (``w . x`` overflowed: inf - inf), which no rule can compare,
    ``PASS_WEIGHTS_NOT_FINITE`` when an update of a CSR row made a weight
    non-finite (dense passes leave that check to their caller), else
    ``PASS_OK``.  The rule is dispatched once per pass, so that no visit
    pays for the others.  ``X_values`` is ``X.values`` at its dtype, which
    selects the specialisation."""
    if _coupled_rule(r.code):
        return _epoch_multiclass(X_values, X, v, r, w)
    return _epoch_rows(X_values, X, v, r, w)


cdef void _scores(
    const floating* X_values, const int* X_indices, const int* X_indptr,
    bint sparse, Py_ssize_t n_features,
    const int* rows, Py_ssize_t n_rows_out,
    const floating* coef, const floating* intercept, Py_ssize_t n_weight_rows,
    double* out,
) noexcept nogil:
    cdef Py_ssize_t t, i, k, nnz
    cdef const floating* x_values
    cdef const int* x_indices = NULL
    for t in range(n_rows_out):
        i = rows[t]
        if sparse:
            x_values = X_values + X_indptr[i]
            x_indices = X_indices + X_indptr[i]
            nnz = X_indptr[i + 1] - X_indptr[i]
        else:
            x_values = X_values + i * n_features
            nnz = n_features
        for k in range(n_weight_rows):
            out[t * n_weight_rows + k] = (
                row_dot(coef + k * n_features, x_values, x_indices, nnz, sparse)
                + intercept[k]
            )


def margin_norms(floating[:, ::1] coef, floating[::1] intercept,
                  bint fit_intercept, double[::1] norm):
    """Write ``||[w_k; b_k]||`` (or ``||w_k||``) of every weight row to ``norm``.

    Called at the start of each epoch of the margin rule so that the
    incrementally updated norms never drift for long.
    """
    cdef Py_ssize_t k, j
    cdef double s
    with nogil:
        for k in range(coef.shape[0]):
            s = 0.0
            for j in range(coef.shape[1]):
                s += <double>coef[k, j] * coef[k, j]
            if fit_intercept:
                s += <double>intercept[k] * intercept[k]
            norm[k] = sqrt(s)


cdef int _pass_structs(
    tuple visits, tuple table, floating[:, ::1] coef, floating[::1] intercept,
    const unsigned char[::1] active, tuple rule, tuple state,
    Visits* v, Rule* r, Weights* w,
) except -1:
    """Fill the structs of a pass from the tuples of :func:`epoch_dense`
    (typed here); a ``state`` of five arrays (the scaled walk's) leaves
    ``losses`` and ``scores`` NULL.  The structs point into the arrays,
    which the caller's tuples keep alive."""
    cdef const int[::1] order = visits[0]
    cdef const int[::1] y_class = visits[1]
    cdef const double[::1] step = visits[2]
    cdef const int[::1] class_rows_ptr = table[0]
    cdef const int[::1] class_rows = table[1]
    cdef const signed char[::1] class_signs = table[2]
    cdef const double[::1] threshold = rule[1]
    cdef const double[::1] kappa = rule[2]
    cdef double[::1] norm = state[0]
    cdef double[:, ::1] coef_sum = state[1]
    cdef double[::1] intercept_sum = state[2]
    cdef double[::1] visit_counts = state[3]
    cdef long long[::1] updates = state[4]
    cdef double[::1] losses
    cdef double[::1] scores
    v.order = &order[0]
    v.n_visits = order.shape[0]
    v.y_class = &y_class[0]
    v.step = &step[0]
    v.rows_ptr = &class_rows_ptr[0]
    v.rows = &class_rows[0]
    v.signs = &class_signs[0]
    v.active = &active[0]
    r.code = rule[0]
    r.threshold = &threshold[0]
    r.kappa = &kappa[0]
    r.intercept_rate = rule[3]
    r.fit_intercept = rule[4]
    r.average = rule[5]
    w.coef = &coef[0, 0]
    w.intercept = &intercept[0]
    w.norm = &norm[0]
    w.coef_sum = &coef_sum[0, 0]
    w.intercept_sum = &intercept_sum[0]
    w.visits = &visit_counts[0]
    w.updates = &updates[0]
    w.losses = NULL
    w.scores = NULL
    if len(state) > 5:
        losses = state[5]
        scores = state[6]
        w.losses = &losses[0]
        w.scores = &scores[0]
    return 0


cdef int _epoch_arrays(
    const floating* X_values, XRows* X, tuple visits, tuple table,
    floating[:, ::1] coef, floating[::1] intercept,
    const unsigned char[::1] active, tuple rule, tuple state,
) except -1:
    """Fill the structs of a pass from the arrays of :func:`epoch_dense` /
    :func:`epoch_csr` and run it."""
    cdef Visits v
    cdef Rule r
    cdef Weights w
    cdef int status
    _pass_structs(visits, table, coef, intercept, active, rule, state,
                  &v, &r, &w)
    with nogil:
        status = _epoch_pass(X_values, X, &v, &r, &w)
    return status


def epoch_dense(
    const floating[:, ::1] X,
    tuple visits,
    tuple table,
    floating[:, ::1] coef,
    floating[::1] intercept,
    const unsigned char[::1] active,
    tuple rule,
    tuple state,
):
    """Run one pass of the perceptron rule over the rows ``order`` of dense X.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), C-contiguous
        Training data, float32 or float64; ``coef`` and ``intercept`` have the
        same dtype.
    visits : tuple ``(order, y_class, step)``
        ``order`` (int32): the rows to visit, in visiting order; ``y_class``
        (int32, shape (n_samples,)): the class index of every sample
        (indexes ``class_rows_ptr``); ``step`` (float64, shape
        (n_samples,)): the update size of every sample, ``eta0 *
        sample_weight * class_weight``.
    table : tuple ``(class_rows_ptr, class_rows, class_signs)``
        The weight rows touched by a sample of class ``c`` are
        ``class_rows[class_rows_ptr[c]:class_rows_ptr[c + 1]]`` (int32), each
        with the sign (int8, +1 or -1) the sample takes in that row's binary
        problem.
    coef : ndarray of shape (n_rows, n_features)
        Weights, updated in place.
    intercept : ndarray of shape (n_rows,)
        Intercepts, updated in place (only when ``fit_intercept``).
    active : ndarray of uint8 of shape (n_rows,)
        Rows with ``active[k] == 0`` are frozen: no update, no visit counted.
    rule : tuple ``(code, threshold, kappa, intercept_rate, fit_intercept, average)``
        ``code`` (int): 0: update when ``m <= threshold[k]``; 1: update when
        ``norm[k] == 0`` or ``m < kappa[k] * norm[k]`` (margin perceptron);
        2, 3: the Crammer-Singer rules "max" and "uniform" (one row per
        class, the row of sign +1 is the sample's own; see
        ``_multiclass_visit``); 4, 5: the multiclass passive-aggressive
        rules PA-I and PA-II; 6, 7: the passive-aggressive rules PA-I and
        PA-II (``C = kappa[k]``).  ``threshold``, ``kappa`` (float64, shape
        (n_rows,)): the parameters of the rule of every row.
        ``intercept_rate`` (float): the fraction of an update an intercept
        takes (scikit-learn's passive-aggressive rules take 0.01 on sparse
        data; 1 otherwise).  ``fit_intercept`` (bool): whether the
        intercept is learned.  ``average`` (bool): whether to accumulate
        ``coef_sum``, ``intercept_sum`` (Daume's trick).
    state : tuple ``(norm, coef_sum, intercept_sum, visits, updates, losses, scores)``
        Float64 arrays updated in place (``updates`` is int64): ``norm``
        (n_rows,), ``||[w_k; b_k]||`` kept up to date by the margin rule;
        ``coef_sum``, ``intercept_sum``, the sums ``sum (visits before the
        update) * delta`` of every row; ``visits`` (n_rows,), the visits of
        every row so far; ``updates`` (n_rows,), the updates of every row (a
        Crammer-Singer mistake counts once, on the sample's own row);
        ``losses`` (n_rows,), the hinge losses of every visit summed by the
        passive-aggressive rules (unused otherwise); ``scores``, scratch of
        the Crammer-Singer rules, at least as long as the longest span of
        ``class_rows`` (length 1 is enough otherwise).

    Returns
    -------
    status : int
        0; 1 when the pass stopped early on a margin ``w . x`` that
        overflowed the floating-point range (the weights are then left
        mid-pass); 2 (CSR rows only) when an update made a weight
        non-finite.
    """
    cdef XRows rows
    rows.values = &X[0, 0]
    rows.indices = NULL
    rows.indptr = NULL
    rows.n_features = X.shape[1]
    rows.sparse = False
    return _epoch_arrays(&X[0, 0], &rows, visits, table, coef, intercept,
                         active, rule, state)


def epoch_csr(
    const floating[::1] X_data,
    const int[::1] X_indices,
    const int[::1] X_indptr,
    tuple visits,
    tuple table,
    floating[:, ::1] coef,
    floating[::1] intercept,
    const unsigned char[::1] active,
    tuple rule,
    tuple state,
):
    """Run one pass of the perceptron rule over the rows ``order`` of a CSR X.

    ``X_data``, ``X_indices`` and ``X_indptr`` are the CSR arrays (int32
    indices); every other parameter is as in :func:`epoch_dense`.
    """
    # An all-zero CSR matrix has empty data: point at something valid anyway.
    cdef const floating* values = &X_data[0] if X_data.shape[0] else NULL
    cdef XRows rows
    rows.values = values
    rows.indices = &X_indices[0] if X_indices.shape[0] else NULL
    rows.indptr = &X_indptr[0]
    rows.n_features = coef.shape[1]
    rows.sparse = True
    return _epoch_arrays(values, &rows, visits, table, coef, intercept,
                         active, rule, state)


def scores_dense(const floating[:, ::1] X, const int[::1] rows,
                 const floating[:, ::1] coef, const floating[::1] intercept,
                 double[:, ::1] out):
    """Write ``X[rows] @ coef.T + intercept`` to ``out`` without copying rows."""
    with nogil:
        _scores(&X[0, 0], NULL, NULL, False, X.shape[1], &rows[0], rows.shape[0],
                &coef[0, 0], &intercept[0], coef.shape[0], &out[0, 0])


def scores_csr(const floating[::1] X_data, const int[::1] X_indices,
               const int[::1] X_indptr, const int[::1] rows,
               const floating[:, ::1] coef, const floating[::1] intercept,
               double[:, ::1] out):
    """Write ``X[rows] @ coef.T + intercept`` to ``out`` for a CSR X."""
    cdef const floating* values = &X_data[0] if X_data.shape[0] else NULL
    cdef const int* indices = &X_indices[0] if X_indices.shape[0] else NULL
    with nogil:
        _scores(values, indices, &X_indptr[0], True, coef.shape[1],
                &rows[0], rows.shape[0],
                &coef[0, 0], &intercept[0], coef.shape[0], &out[0, 0])
