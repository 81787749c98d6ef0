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
from libc.math cimport INFINITY, copysign, fabs, fmax, fmin, isfinite, isnan, pow, sqrt

from cpython.buffer cimport PyBUF_C_CONTIGUOUS, PyBUF_FORMAT, PyBuffer_Release, PyObject_GetBuffer
from cpython.dict cimport PyDict_GetItem
from cpython.object cimport PyObject

import numpy as np

_ndarray = np.ndarray
_FLOAT32, _FLOAT64, _INT32 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int32)
try:  # the CSR classes whose rows the stream reads in place
    import scipy.sparse as _sp
    _CSR_TYPES = (_sp.csr_matrix, _sp.csr_array)
except ImportError:  # pragma: no cover - scipy is a dependency
    _CSR_TYPES = ()

# Update rules, mirrored as ints in ``rows.py``.  Rules 2-5 couple the rows
# of a sample (Crammer-Singer), 6-7 treat each row alone, 8-10 rescale the
# weights (the scaled walk).
cdef enum:
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
    # Rows of a sample scored before the rule is applied to them.
    SCORE_BLOCK = 32
    # Entries of the row table whose row pointers a pass keeps (see
    # _epoch_rows).
    TABLE_KEPT = 256


cdef extern from "_prefetch.h":
    void SKP_PREFETCH(const void* addr) noexcept nogil
    void SKP_PREFETCH_L2(const void* addr) noexcept nogil

cdef extern from "_dense_dots.h":
    void skp_dense_dots_d(const double* const* w, Py_ssize_t count,
                          const double* x, Py_ssize_t n, double* out) noexcept nogil
    void skp_dense_dots_f(const float* const* w, Py_ssize_t count,
                          const float* x, Py_ssize_t n, float* out) noexcept nogil

cdef extern from "_sparse_dot.h":
    double skp_sparse_dot_d(const double* w, const double* x, const int* idx,
                            Py_ssize_t nnz) noexcept nogil
    float skp_sparse_dot_f(const float* w, const float* x, const int* idx,
                           Py_ssize_t nnz) noexcept nogil


cdef inline floating _row_dot(
    const floating* w, const floating* x_values, const int* x_indices,
    Py_ssize_t nnz, bint sparse,
) noexcept nogil:
    """Return w . x for a dense row (``sparse=False``) or a CSR row."""
    cdef Py_ssize_t j
    # Eight partial sums hide the latency of the additions and let the
    # compiler vectorize the dense dot product; the summation order is fixed,
    # so results stay deterministic.
    cdef floating s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0
    if sparse:
        # The same eight sums, with the weights gathered (see _sparse_dot.h).
        if floating is double:
            return skp_sparse_dot_d(w, x_values, x_indices, nnz)
        else:
            return skp_sparse_dot_f(w, x_values, x_indices, nnz)
    j = 0
    while j + 8 <= nnz:
        s0 += w[j] * x_values[j]
        s1 += w[j + 1] * x_values[j + 1]
        s2 += w[j + 2] * x_values[j + 2]
        s3 += w[j + 3] * x_values[j + 3]
        s4 += w[j + 4] * x_values[j + 4]
        s5 += w[j + 5] * x_values[j + 5]
        s6 += w[j + 6] * x_values[j + 6]
        s7 += w[j + 7] * x_values[j + 7]
        j += 8
    while j < nnz:
        s0 += w[j] * x_values[j]
        j += 1
    return ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7))


cdef inline void _prefetch_row(
    const floating* X_values, const int* X_indices, const int* X_indptr,
    bint sparse, Py_ssize_t n_features, Py_ssize_t i, bint to_l2,
) noexcept nogil:
    """Ask the CPU for row ``i`` (values, and column indices if CSR) ahead of
    time, into the first-level cache or (``to_l2``) the second; at most 1 KiB
    of values, one prefetch per 64-byte cache line."""
    cdef Py_ssize_t start, length, offset = 0
    cdef Py_ssize_t per_line = 64 // sizeof(floating)
    if sparse:
        start = X_indptr[i]
        length = X_indptr[i + 1] - start
    else:
        start = i * n_features
        length = n_features
    length = min(length, 16 * per_line)
    while offset < length:
        if to_l2:
            SKP_PREFETCH_L2(X_values + start + offset)
            if sparse:
                SKP_PREFETCH_L2(X_indices + start + offset)
        else:
            SKP_PREFETCH(X_values + start + offset)
            if sparse:
                SKP_PREFETCH(X_indices + start + offset)
        offset += per_line


cdef inline void _row_add(
    floating* w, double* w_sum, double scale, double sum_scale, bint average,
    const floating* x_values, const int* x_indices, Py_ssize_t nnz, bint sparse,
) noexcept nogil:
    """Add ``scale * x`` to ``w`` (and ``sum_scale * x`` to ``w_sum``).

    Dense rows take one plain loop per array, which the compiler vectorizes;
    CSR rows one loop for both arrays, which reads each entry once.
    """
    cdef Py_ssize_t j, k
    if sparse:
        if average:
            for j in range(nnz):
                k = x_indices[j]
                w[k] += <floating>(scale * x_values[j])
                w_sum[k] += sum_scale * x_values[j]
        else:
            for j in range(nnz):
                w[x_indices[j]] += <floating>(scale * x_values[j])
    else:
        for j in range(nnz):
            w[j] += <floating>(scale * x_values[j])
        if average:
            for j in range(nnz):
                w_sum[j] += sum_scale * x_values[j]


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
    """``w . x`` of a dense row as :func:`_row_dot` sums it, and ``||x||^2``
    (to ``sq``) as :func:`_row_sq_norm`: the rules that need both at every
    visit (ALMA_2, PA-I with averaging).  Two loops, the second over a row
    the first has just brought into the first-level cache: each keeps its
    full vector width, where one loop for both sums vectorizes poorly."""
    cdef floating dot = _row_dot(w, x, NULL, n, False)
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
    const floating* x_values, const int* x_indices, Py_ssize_t nnz, bint sparse,
    Py_ssize_t n_features, Py_ssize_t i, int c,
    const double* step,
    const int* class_rows_ptr, const int* class_rows,
    const signed char* class_signs,
    floating* coef, floating* intercept, bint fit_intercept,
    const unsigned char* active, int rule, const double* threshold,
    const double* kappa, double intercept_rate,
    bint average, double* coef_sum, double* intercept_sum, double* visits,
    long long* updates, double* losses, double* scores,
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
    a score that is not a number, else 0.  The rows move together, so only
    the own row's ``active`` flag is read."""
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
        raw = _row_dot(coef + k * n_features, x_values, x_indices, nnz, sparse)
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
            _row_add(
                coef + k * n_features, coef_sum + k * n_features,
                raw, raw * visits[k], average,
                x_values, x_indices, nnz, sparse,
            )
            if fit_intercept:
                raw = raw * intercept_rate
                intercept[k] += <floating>raw
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
    const floating* X_values, const int* X_indices, const int* X_indptr,
    bint sparse, Py_ssize_t n_features, const int* order, Py_ssize_t n_visits,
    const int* y_class, const double* step,
    Py_ssize_t t, Py_ssize_t ahead, bint prefetch_sequential,
    const floating** x_values, const int** x_indices,
) noexcept nogil:
    """Point ``x_values``/``x_indices`` at the row of visit ``t`` and return
    its length.

    When rows are visited out of order, the row ``4 * ahead`` visits later
    (with its class and step, cache misses too) is prefetched into the
    second-level cache and the row ``ahead`` visits later into the first:
    two stages keep more random rows in flight than one."""
    cdef Py_ssize_t i = order[t], later
    if t + ahead < n_visits:
        later = order[t + ahead]
        if prefetch_sequential or later != i + ahead:
            _prefetch_row(X_values, X_indices, X_indptr, sparse, n_features,
                          later, False)
    if t + 4 * ahead < n_visits:
        later = order[t + 4 * ahead]
        if later != i + 4 * ahead:
            SKP_PREFETCH_L2(y_class + later)
            SKP_PREFETCH_L2(step + later)
            _prefetch_row(X_values, X_indices, X_indptr, sparse, n_features,
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
    bint sparse, Py_ssize_t n_features, floating* coef, floating* intercept,
    bint fit_intercept, double intercept_rate, int rule, double* norm,
    bint average, double* coef_sum, double* intercept_sum, long long* updates,
) noexcept nogil:
    """Move row ``k`` by ``scale * x`` and its intercept by ``intercept_rate
    * scale`` after ``before`` visits (its score on x was ``raw``); returns
    True when the margin rule's norm overflows."""
    cdef double sq_norm_x, new_sq_norm, intercept_scale
    updates[k] += 1
    # Daume's trick: the sum of the iterates over all visits is
    # T * w_T - sum over updates of (visits before it) * delta.
    _row_add(
        coef + k * n_features, coef_sum + k * n_features,
        scale, scale * before, average, x_values, x_indices, nnz, sparse,
    )
    if fit_intercept:
        intercept_scale = scale * intercept_rate
        intercept[k] += <floating>intercept_scale
        if average:
            intercept_sum[k] += intercept_scale * before
    if rule == RULE_MARGIN:
        # ||w~ + a x~||^2 = ||w~||^2 + 2 a (w~.x~) + a^2 ||x~||^2
        sq_norm_x = _row_sq_norm(x_values, nnz) + fit_intercept
        new_sq_norm = (norm[k] * norm[k] + 2.0 * scale * raw
                       + scale * scale * sq_norm_x)
        if not isfinite(new_sq_norm):
            return True
        norm[k] = sqrt(new_sq_norm) if new_sq_norm > 0.0 else 0.0
    return False


cdef bint _epoch_rows(
    const floating* X_values, const int* X_indices, const int* X_indptr,
    bint sparse, Py_ssize_t n_features,
    const int* order, Py_ssize_t n_visits,
    const int* y_class, const double* step,
    const int* class_rows_ptr, const int* class_rows,
    const signed char* class_signs,
    floating* coef, floating* intercept, bint fit_intercept,
    const unsigned char* active,
    int rule, const double* threshold, const double* kappa, double* norm,
    double intercept_rate,
    bint average, double* coef_sum, double* intercept_sum, double* visits,
    long long* updates, double* losses,
) noexcept nogil:
    """The pass of the rules that treat each row alone (``RULE_THRESHOLD``,
    ``RULE_MARGIN``, ``RULE_PA1``, ``RULE_PA2``); returns True on a margin
    that is not a number.

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
    norm is computed at every visit to know it)."""
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
    cdef Py_ssize_t ahead = _prefetch_distance(X_values, X_indptr, sparse, n_features,
                                               n_visits, &prefetch_sequential)
    for p in range(SCORE_BLOCK):
        block[p] = 0.0
    for p in range(TABLE_KEPT):
        kept[p] = 0

    for t in range(n_visits):
        nnz = _locate_row(X_values, X_indices, X_indptr, sparse, n_features,
                          order, n_visits, y_class, step, t, ahead,
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
                    raw = _row_dot(coef + k * n_features, x_values, x_indices,
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
                        k, scale, visits[k], raw,
                        x_values, x_indices, nnz, sparse, n_features, coef,
                        intercept, fit_intercept, intercept_rate, rule, norm,
                        average, coef_sum, intercept_sum, updates,
                    ):
                        return True
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
            # Dense rows are scored together (one read of x for several
            # rows); each score is summed as _row_dot sums it.
            if sparse:
                for h in range(n_scored):
                    dots[h] = _row_dot(scored_rows[h], x_values, x_indices,
                                       nnz, sparse)
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
                    block[p - first], x_values, x_indices, nnz, sparse,
                    n_features, coef, intercept, fit_intercept, intercept_rate,
                    rule, norm, average, coef_sum, intercept_sum, updates,
                ):
                    return True
            first = last
    return not_a_number


cdef bint _epoch_multiclass(
    const floating* X_values, const int* X_indices, const int* X_indptr,
    bint sparse, Py_ssize_t n_features,
    const int* order, Py_ssize_t n_visits,
    const int* y_class, const double* step,
    const int* class_rows_ptr, const int* class_rows,
    const signed char* class_signs,
    floating* coef, floating* intercept, bint fit_intercept,
    const unsigned char* active, int rule, const double* threshold,
    const double* kappa, double intercept_rate,
    bint average, double* coef_sum, double* intercept_sum, double* visits,
    long long* updates, double* losses, double* scores,
) noexcept nogil:
    """The pass of the Crammer-Singer rules (see ``_multiclass_visit``);
    returns True, at once, on a score that is not a number."""
    cdef Py_ssize_t t, i, nnz
    cdef const floating* x_values
    cdef const int* x_indices = NULL
    cdef bint prefetch_sequential
    cdef Py_ssize_t ahead = _prefetch_distance(X_values, X_indptr, sparse, n_features,
                                               n_visits, &prefetch_sequential)
    for t in range(n_visits):
        nnz = _locate_row(X_values, X_indices, X_indptr, sparse, n_features,
                          order, n_visits, y_class, step, t, ahead,
                          prefetch_sequential,
                          &x_values, &x_indices)
        i = order[t]
        if _multiclass_visit(
            x_values, x_indices, nnz, sparse, n_features, i, y_class[i], step,
            class_rows_ptr, class_rows, class_signs, coef, intercept,
            fit_intercept, active, rule, threshold, kappa, intercept_rate,
            average, coef_sum, intercept_sum, visits, updates, losses, scores,
        ):
            return True
    return False


cdef inline bint _coupled_rule(int rule) noexcept nogil:
    """Whether the rule couples the rows of a sample (Crammer-Singer)."""
    return RULE_CS_MAX <= rule <= RULE_CS_PA2


cdef bint _epoch(
    const floating* X_values, const int* X_indices, const int* X_indptr,
    bint sparse, Py_ssize_t n_features,
    const int* order, Py_ssize_t n_visits,
    const int* y_class, const double* step,
    const int* class_rows_ptr, const int* class_rows,
    const signed char* class_signs,
    floating* coef, floating* intercept, bint fit_intercept,
    const unsigned char* active,
    int rule, const double* threshold, const double* kappa, double* norm,
    double intercept_rate,
    bint average, double* coef_sum, double* intercept_sum, double* visits,
    long long* updates, double* losses, double* scores,
) noexcept nogil:
    """The pass; returns True on a margin that is not a number (``w . x``
    overflowed: inf - inf), which no rule can compare.  The rule is
    dispatched once per pass, so that no visit pays for the others."""
    if _coupled_rule(rule):
        return _epoch_multiclass(
            X_values, X_indices, X_indptr, sparse, n_features, order, n_visits,
            y_class, step, class_rows_ptr, class_rows, class_signs, coef,
            intercept, fit_intercept, active, rule, threshold, kappa,
            intercept_rate, average, coef_sum, intercept_sum, visits, updates,
            losses, scores,
        )
    return _epoch_rows(
        X_values, X_indices, X_indptr, sparse, n_features, order, n_visits,
        y_class, step, class_rows_ptr, class_rows, class_signs, coef,
        intercept, fit_intercept, active, rule, threshold, kappa, norm,
        intercept_rate, average, coef_sum, intercept_sum, visits, updates,
        losses,
    )


cdef inline void _l1_truncate(
    floating* w, double* applied, double wscale, double total, double weight,
    bint average, double* w_sum, const int* x_indices, Py_ssize_t nnz,
    bint sparse,
) noexcept nogil:
    """The cumulative l1 penalty (Tsuruoka, Tsujii & Ananiadou 2009) on the
    weights of the row's features (every weight of a dense row): a weight
    ``z`` moves toward 0 by ``total`` less what it already took,
    ``applied[j]``, without crossing 0.  ``w`` holds the weights divided by
    ``wscale``; ``w_sum`` takes ``weight`` times each change (averaging)."""
    cdef Py_ssize_t t, j
    cdef floating z
    for t in range(nnz):
        j = x_indices[t] if sparse else t
        z = w[j]
        if z > 0:
            w[j] = <floating>fmax(0.0, z - (total + applied[j]) / wscale)
        elif z < 0:
            w[j] = <floating>fmin(0.0, z + (total - applied[j]) / wscale)
        else:
            continue
        applied[j] += wscale * (<double>w[j] - z)
        if average:
            w_sum[j] += weight * (<double>w[j] - z)


cdef inline double _fold_scale(
    floating* w, double* w_sum, Py_ssize_t n_features, double s,
    double* scaled_visits, bint average,
) noexcept nogil:
    """Fold the scale ``s`` of a row into its weights ``w`` (O(n_features))
    and return the new scale, 1; the averaging sums keep the same total
    (``P * coef - coef_sum`` with ``P = scaled_visits``, reset to 0)."""
    cdef Py_ssize_t j
    cdef double before
    if average:
        before = scaled_visits[0]
        for j in range(n_features):
            w_sum[j] -= before * w[j]
        scaled_visits[0] = 0.0
    for j in range(n_features):
        w[j] = <floating>(s * w[j])
    return 1.0


cdef inline double _p_norm(const floating* x_values, Py_ssize_t nnz,
                           bint fit_intercept, double p) noexcept nogil:
    """``||x~||_p`` of a row padded with a 1 when ``fit_intercept``."""
    cdef Py_ssize_t j
    cdef double total = 1.0 if fit_intercept else 0.0
    for j in range(nnz):
        total += pow(fabs(<double>x_values[j]), p)
    return pow(total, 1.0 / p)


cdef inline double _signed_power(double t, double e) noexcept nogil:
    """``sign(t) |t|^e``."""
    return copysign(pow(fabs(t), e), t)


cdef void _alma_p_start(
    floating* w, floating* b, bint fit_intercept, Py_ssize_t n_features,
    double p, double* dual, double* dual_row, double* wscale,
    double* scaled_visits, double visits,
) noexcept nogil:
    """ALMA_p (p != 2) at the start of a pass, for one row of plain weights
    ``w~ = [w; b]``: the dual vector ``theta = f(w~) = sign(w~) |w~|^(q - 1)
    / ||w~||_q^(q - 2)`` (``1 / p + 1 / q = 1``) goes to ``dual`` (its
    intercept coordinate to ``dual_row[2]``), with ``dual_row[0] = 1`` its
    scale and ``dual_row[1] = S = ||theta||_p^p``; the weights become the
    direction ``u = sign(theta) |theta|^(p - 1)`` with the scale
    ``wscale = S^(-(p - 2) / p)``, so that ``w~ = wscale u`` (the averaging
    sums keep their total: ``scaled_visits = visits * wscale``)."""
    cdef Py_ssize_t j
    cdef double q = p / (p - 1.0), size = 0.0, scale, t, total = 0.0
    for j in range(n_features):
        size += pow(fabs(<double>w[j]), q)
    if fit_intercept:
        size += pow(fabs(<double>b[0]), q)
    dual_row[0] = 1.0
    dual_row[2] = 0.0
    if size == 0.0:
        for j in range(n_features):
            dual[j] = 0.0
        dual_row[1] = 0.0
        wscale[0] = 1.0
        scaled_visits[0] = visits
        return
    size = pow(size, 1.0 / q)
    scale = pow(size, q - 2.0)
    for j in range(n_features):
        t = _signed_power(w[j], q - 1.0) / scale
        dual[j] = t
        total += pow(fabs(t), p)
    if fit_intercept:
        t = _signed_power(b[0], q - 1.0) / scale
        dual_row[2] = t
        total += pow(fabs(t), p)
    dual_row[1] = total
    scale = pow(total, -(p - 2.0) / p)
    for j in range(n_features):
        w[j] = <floating>(w[j] / scale)
    wscale[0] = scale
    scaled_visits[0] = visits * scale


cdef double _alma_p_update(
    floating* w, double* w_sum, floating* b, double* b_sum, bint fit_intercept,
    bint average, double P, double visits, double p, double step,
    const floating* x_values, const int* x_indices, Py_ssize_t nnz,
    bint sparse, double* dual, double* dual_row,
) noexcept nogil:
    """An ALMA_p correction (p != 2) of one row: ``theta += step x~`` in the
    scaled dual coordinates (``step`` already divides by the dual scale),
    ``S`` and the direction ``u`` of the touched coordinates follow, the
    projection divides the dual scale by ``max(1, ||theta||_p)``; returns
    the new scale of ``w~``, ``sigma / S^((p - 2) / p)``.  The intercept is
    kept as it is (``b = scale * u_b``)."""
    cdef Py_ssize_t j, col
    cdef double sigma = dual_row[0], total = dual_row[1], t, t_new, size, scale
    cdef double b_old
    cdef floating stored
    for j in range(nnz):
        col = x_indices[j] if sparse else j
        t = dual[col]
        t_new = t + step * x_values[j]
        total += pow(fabs(t_new), p) - pow(fabs(t), p)
        dual[col] = t_new
        stored = <floating>_signed_power(t_new, p - 1.0)
        if average:
            w_sum[col] += P * (<double>stored - w[col])
        w[col] = stored
    t = dual_row[2]
    if fit_intercept:
        t_new = t + step
        total += pow(fabs(t_new), p) - pow(fabs(t), p)
        t = t_new
    total = fmax(total, 0.0)
    size = sigma * pow(total, 1.0 / p)
    if size > 1.0:
        # The projection onto the unit ball of the q-norm.
        sigma /= size
    scale = sigma / pow(total, (p - 2.0) / p) if total > 0.0 else 1.0
    if fit_intercept:
        b_old = b[0]
        b[0] = <floating>(scale * _signed_power(t, p - 1.0))
        if average:
            b_sum[0] += visits * (<double>b[0] - b_old)
    dual_row[0], dual_row[1], dual_row[2] = sigma, total, t
    return scale


cdef inline double _alma_p_fold(
    floating* w, double* w_sum, Py_ssize_t n_features, double s,
    double* scaled_visits, bint average, double p, double* dual,
    double* dual_row,
) noexcept nogil:
    """:func:`_fold_scale` for ALMA_p (p != 2): the dual direction is scaled
    by ``s^(1 / (p - 1))`` so that ``u`` stays its power."""
    cdef Py_ssize_t j
    cdef double lam = pow(s, 1.0 / (p - 1.0))
    for j in range(n_features):
        dual[j] *= lam
    dual_row[0] /= lam
    dual_row[1] *= pow(lam, p)
    dual_row[2] *= lam
    return _fold_scale(w, w_sum, n_features, s, scaled_visits, average)


# ROMMA's two constraints count as parallel when ||x~||^2 ||w~||^2 - (w~ .
# x~)^2 is below this fraction of ||x~||^2 ||w~||^2 (the NumPy reference of
# the tests uses the same).
cdef double ROMMA_PARALLEL = 1e-12


cdef bint _epoch_scaled(
    const floating* X_values, const int* X_indices, const int* X_indptr,
    bint sparse, Py_ssize_t n_features,
    const int* order, Py_ssize_t n_visits,
    const int* y_class, const double* step,
    const int* class_rows_ptr, const int* class_rows,
    const signed char* class_signs,
    floating* coef, floating* intercept, bint fit_intercept,
    Py_ssize_t n_rows, const unsigned char* active, int rule,
    const double* threshold, const double* kappa, double* norm,
    const double* counts, double power, double* dual, double* dual_row,
    double decay, double l1_step, double* l1_total, double* l1_applied,
    bint average, double* coef_sum, double* intercept_sum, double* visits,
    long long* updates, double* wscale, double* scaled_visits,
) noexcept nogil:
    """The pass of the rules that rescale the weights: each row is kept as
    a scale and a direction, ``w_k = wscale[k] * coef[k]``, so that a
    rescaling costs O(1) and a visit O(nnz) on CSR rows.  The intercepts
    are kept as they are.

    * ``RULE_THRESHOLD`` with scikit-learn's SGD penalties: every visit of
      row k first scales ``w_k`` by ``decay`` (l2), then applies the
      threshold rule's update, then the cumulative l1 penalty,
      ``l1_total[k] += l1_step``.
    * ``RULE_ALMA``: ALMA_2 (Gentile 2001) on the padded vectors normalized,
      ``x^ = x~ / ||x~||``.  The ``j``-th correction of row k (``j =
      counts[k] + updates[k] + 1``: ``counts`` holds the corrections of
      earlier passes) happens when ``m <= threshold[k] ||x~|| / sqrt(j)``
      (``threshold = (1 - alpha) B``) and adds ``eta s x^``, ``eta =
      kappa[k] min(step, 1) / sqrt(j)`` (``kappa = C``); then ``w~`` is
      divided by ``max(1, ||w~||)``.  (A step along the unit vector ``x^``
      larger than ``eta`` would only turn ``w~`` toward ``x^`` once
      projected: a weight above 1 counts as 1.)  ALMA_p for ``power = p !=
      2`` normalizes in the p-norm and moves the dual vector ``theta =
      f(w~)`` of the p-norm link instead, ``w~ = f^-1(theta)``
      (``_alma_p_update``): ``dual`` (n_rows x n_features) and ``dual_row``
      (n_rows x 3) are its scratch, rebuilt from ``w~`` at the start of the
      pass; ``threshold = (1 - alpha) B sqrt(p - 1)``, ``kappa = C / sqrt(p
      - 1)``.
    * ``RULE_ROMMA``, ``RULE_AROMMA``: ROMMA (Li & Long 2002) on a mistake
      (``m <= 0``), aggressive ROMMA when ``m < 1``: ``w~`` becomes the
      smallest ``v`` with ``v . w~ >= ||w~||^2`` and ``s v . x~ >= t``,
      ``v = a w~ + d x~``, or ``t s x~ / ||x~||^2`` when that one is the
      smallest (the first update) or the constraints are parallel.  ROMMA
      asks for ``t = 1``; a sample of weight ``c = step`` for ``t = m +
      min(c, 1) (1 - m)``, the fraction ``c`` of the margin it lacks (a
      second visit right after an update changes nothing, its margin is
      then 1: a weight above 1 counts as 1).

    ALMA and ROMMA keep ``norm[k] = ||w~_k||`` up to date (exact at the
    start of the pass, from the caller).  The scale is folded into ``coef``
    when it leaves [1e-9, 1e9] ([1e-3, 1e3] with averaging) and at the end
    of the pass.  Averaging keeps Daume's sums in the scaled coordinates:
    with ``P`` the sum of the scales of the visits so far
    (``scaled_visits``), the sum of the iterates is ``P * coef -
    coef_sum``; the end of the pass restores the plain form ``visits * w -
    coef_sum``.  Returns True on a margin that is not a number (or a norm
    that overflowed).
    """
    cdef Py_ssize_t t, i, p, k, j, nnz
    cdef const floating* x_values
    cdef const int* x_indices = NULL
    cdef floating* w
    cdef double* w_sum
    cdef int c
    cdef double raw, m, scale, s, before, sq_x, size, index, delta, new_sq
    cdef double sign, ww, den, a, f, b_old, x_norm
    cdef bint update, prefetch_sequential
    cdef bint p_norm = rule == RULE_ALMA and power != 2.0
    cdef bint not_a_number = False
    # The averaging sums are differences of terms of size 1 / wscale: they
    # fold the scale in early, so that they keep all but ~3 digits.
    cdef double fold_below = 1e-3 if average else 1e-9
    cdef Py_ssize_t ahead = _prefetch_distance(X_values, X_indptr, sparse,
                                               n_features, n_visits,
                                               &prefetch_sequential)
    if p_norm:
        for k in range(n_rows):
            if active[k]:
                _alma_p_start(coef + k * n_features, intercept + k,
                              fit_intercept, n_features, power,
                              dual + k * n_features, dual_row + 3 * k,
                              wscale + k, scaled_visits + k, visits[k])
    for t in range(n_visits):
        nnz = _locate_row(X_values, X_indices, X_indptr, sparse, n_features,
                          order, n_visits, y_class, step, t, ahead,
                          prefetch_sequential,
                          &x_values, &x_indices)
        i = order[t]
        c = y_class[i]
        # ||x~||^2 (and ||x~||_p) of the sample, computed once when needed.
        sq_x = -1.0
        x_norm = -1.0
        for p in range(class_rows_ptr[c], class_rows_ptr[c + 1]):
            k = class_rows[p]
            if not active[k]:
                continue
            w = coef + k * n_features
            w_sum = coef_sum + k * n_features
            s = wscale[k]
            if sq_x < 0.0 and not sparse and rule == RULE_ALMA and not p_norm:
                # ALMA_2 needs ||x~||^2 at every visit: one read of the row
                # for both.
                raw = s * _dense_dot_sq(w, x_values, nnz, &sq_x)
                sq_x += fit_intercept
                if not isfinite(sq_x):
                    return True
            else:
                raw = s * _row_dot(w, x_values, x_indices, nnz, sparse)
            if fit_intercept:
                raw += intercept[k]
            sign = class_signs[p]
            m = sign * raw
            not_a_number |= m != m
            if rule == RULE_THRESHOLD:
                update = m <= threshold[k]
                # The weight decay of the visit comes before its update.
                s *= decay
                if s < fold_below:
                    # Fold the scale in before it underflows (and after a
                    # decay to 0).
                    s = _fold_scale(w, w_sum, n_features, s,
                                    scaled_visits + k, average)
                scale = step[i] * sign
                if update and scale != 0.0:
                    updates[k] += 1
                    _row_add(w, w_sum, scale / s, scale / s * scaled_visits[k],
                             average, x_values, x_indices, nnz, sparse)
                    if fit_intercept:
                        intercept[k] += <floating>scale
                        if average:
                            intercept_sum[k] += scale * visits[k]
                if l1_step != 0.0:
                    l1_total[k] += l1_step
                    _l1_truncate(w, l1_applied + k * n_features, s, l1_total[k],
                                 scaled_visits[k], average, w_sum, x_indices, nnz,
                                 sparse)
            elif p_norm and step[i] != 0.0 and m == m:
                if x_norm < 0.0:
                    x_norm = _p_norm(x_values, nnz, fit_intercept, power)
                    if not isfinite(x_norm):
                        return True
                index = counts[k] + updates[k] + 1.0
                if x_norm > 0.0 and m <= threshold[k] * x_norm / sqrt(index):
                    updates[k] += 1
                    s = _alma_p_update(
                        w, w_sum, intercept + k, intercept_sum + k,
                        fit_intercept, average, scaled_visits[k], visits[k],
                        power,
                        kappa[k] * fmin(step[i], 1.0) / sqrt(index) * sign
                        / (x_norm * dual_row[3 * k]),
                        x_values, x_indices, nnz, sparse,
                        dual + k * n_features, dual_row + 3 * k)
                    if fabs(s) < fold_below or fabs(s) * fold_below > 1.0:
                        s = _alma_p_fold(w, w_sum, n_features, s,
                                         scaled_visits + k, average, power,
                                         dual + k * n_features, dual_row + 3 * k)
            elif step[i] != 0.0 and m == m:
                if sq_x < 0.0:
                    sq_x = _row_sq_norm(x_values, nnz) + fit_intercept
                    if not isfinite(sq_x):
                        return True
                delta = 0.0
                if rule == RULE_ALMA:
                    index = counts[k] + updates[k] + 1.0
                    # m <= threshold ||x~|| / sqrt(index), without a root
                    # on the visits that do not update (both sides >= 0 when
                    # m > 0).
                    if sq_x > 0.0 and (m <= 0.0 or m * m * index
                                       <= threshold[k] * threshold[k] * sq_x):
                        size = sqrt(sq_x)
                        # A weight above 1 counts as 1 (see the docstring).
                        delta = (kappa[k] * fmin(step[i], 1.0) / sqrt(index)
                                 * sign / size)
                        f = 1.0
                elif (m <= 0.0 or (rule == RULE_AROMMA and m < 1.0)) and sq_x > 0.0:
                    ww = norm[k] * norm[k]
                    den = sq_x * ww - raw * raw
                    # The margin the new constraint asks for: 1, or the
                    # fraction min(c, 1) of what the sample lacks.
                    index = m + fmin(step[i], 1.0) * (1.0 - m)
                    if index * m >= sq_x * ww or den <= ROMMA_PARALLEL * sq_x * ww:
                        f, delta = 0.0, index * sign / sq_x
                    else:
                        f = 1.0 - (index - m) * m / den
                        delta = sign * (index - m) * ww / den
                if delta != 0.0:
                    updates[k] += 1
                    if rule == RULE_ALMA:
                        new_sq = (norm[k] * norm[k] + 2.0 * delta * raw
                                  + delta * delta * sq_x)
                    else:
                        new_sq = (f * f * norm[k] * norm[k] + 2.0 * f * delta * raw
                                  + delta * delta * sq_x)
                        if f == 0.0:
                            # w~ starts anew: the direction is cleared.
                            for j in range(n_features):
                                if average:
                                    w_sum[j] -= scaled_visits[k] * w[j]
                                w[j] = 0.0
                            s = 1.0
                        else:
                            s *= f
                    if not isfinite(new_sq):
                        return True
                    new_sq = fmax(new_sq, 0.0)
                    _row_add(w, w_sum, delta / s, delta / s * scaled_visits[k],
                             average, x_values, x_indices, nnz, sparse)
                    b_old = intercept[k]
                    if rule == RULE_ALMA:
                        raw = b_old + delta
                        if new_sq > 1.0:
                            # The projection onto the unit ball.
                            f = 1.0 / sqrt(new_sq)
                            s *= f
                            raw *= f
                            new_sq = 1.0
                    else:
                        raw = f * b_old + delta
                    norm[k] = sqrt(new_sq)
                    if fit_intercept:
                        intercept[k] = <floating>raw
                        if average:
                            intercept_sum[k] += visits[k] * (<double>intercept[k] - b_old)
                    if fabs(s) < fold_below or fabs(s) * fold_below > 1.0:
                        s = _fold_scale(w, w_sum, n_features, s,
                                        scaled_visits + k, average)
            scaled_visits[k] += s
            wscale[k] = s
            visits[k] += 1.0
    # Back to the plain form: w = wscale * coef, and the sum of the iterates
    # visits * w - coef_sum.
    for k in range(n_rows):
        s = wscale[k]
        # Only this pass's rows: other threads may be training the others.
        if not active[k] or s == 1.0 and scaled_visits[k] == visits[k]:
            continue
        w = coef + k * n_features
        if average:
            w_sum = coef_sum + k * n_features
            before = visits[k] * s - scaled_visits[k]
            for j in range(n_features):
                w_sum[j] += before * w[j]
        for j in range(n_features):
            w[j] = <floating>(s * w[j])
        wscale[k] = 1.0
        scaled_visits[k] = visits[k]
    return not_a_number


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
                _row_dot(coef + k * n_features, x_values, x_indices, nnz, sparse)
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


def epoch_dense(
    const floating[:, ::1] X,
    const int[::1] order,
    const int[::1] y_class,
    const double[::1] step,
    const int[::1] class_rows_ptr,
    const int[::1] class_rows,
    const signed char[::1] class_signs,
    floating[:, ::1] coef,
    floating[::1] intercept,
    bint fit_intercept,
    const unsigned char[::1] active,
    int rule,
    const double[::1] threshold,
    const double[::1] kappa,
    double[::1] norm,
    double intercept_rate,
    bint average,
    double[:, ::1] coef_sum,
    double[::1] intercept_sum,
    double[::1] visits,
    long long[::1] updates,
    double[::1] losses,
    double[::1] scores,
):
    """Run one pass of the perceptron rule over the rows ``order`` of dense X.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), C-contiguous
        Training data, float32 or float64; ``coef`` and ``intercept`` have the
        same dtype.
    order : ndarray of int32
        Indices of the rows to visit, in visiting order.
    y_class : ndarray of int32 of shape (n_samples,)
        Class index of every sample (indexes ``class_rows_ptr``).
    step : ndarray of float64 of shape (n_samples,)
        Update size of every sample, ``eta0 * sample_weight * class_weight``.
    class_rows_ptr, class_rows, class_signs : ndarrays
        The weight rows touched by a sample of class ``c`` are
        ``class_rows[class_rows_ptr[c]:class_rows_ptr[c + 1]]``, each with the
        sign (+1 or -1) the sample takes in that row's binary problem.
    coef : ndarray of shape (n_rows, n_features)
        Weights, updated in place.
    intercept : ndarray of shape (n_rows,)
        Intercepts, updated in place (only when ``fit_intercept``).
    fit_intercept : bool
        Whether the intercept is learned.
    active : ndarray of uint8 of shape (n_rows,)
        Rows with ``active[k] == 0`` are frozen: no update, no visit counted.
    rule : int
        0: update when ``m <= threshold[k]``; 1: update when ``norm[k] == 0``
        or ``m < kappa[k] * norm[k]`` (margin perceptron); 2, 3: the
        Crammer-Singer rules "max" and "uniform" (one row per class, the row
        of sign +1 is the sample's own; see ``_multiclass_visit``); 4, 5:
        the multiclass passive-aggressive rules PA-I and PA-II; 6, 7: the
        passive-aggressive rules PA-I and PA-II (``C = kappa[k]``).
    threshold, kappa : ndarrays of float64 of shape (n_rows,)
        Parameters of the rule of every row.
    norm : ndarray of float64 of shape (n_rows,)
        ``||[w_k; b_k]||``, kept up to date by the margin rule.
    intercept_rate : float
        The fraction of an update an intercept takes (scikit-learn's
        passive-aggressive rules take 0.01 on sparse data; 1 otherwise).
    average : bool
        Whether to accumulate ``coef_sum``, ``intercept_sum`` (Daume's trick).
    coef_sum, intercept_sum : ndarrays of float64
        Sums ``sum (visits before the update) * delta`` of every row.
    visits : ndarray of float64 of shape (n_rows,)
        Number of visits of every row so far; incremented in place.
    updates : ndarray of int64 of shape (n_rows,)
        Number of updates of every row; incremented in place (a
        Crammer-Singer mistake counts once, on the sample's own row).
    losses : ndarray of float64 of shape (n_rows,)
        The passive-aggressive rules add the hinge loss of every visit
        (unused otherwise).
    scores : ndarray of float64
        Scratch space of the Crammer-Singer rules, at least as long as the
        longest span of ``class_rows`` (length 1 is enough otherwise).

    Returns
    -------
    overflow : bool
        True when the pass stopped early on a margin ``w . x`` that
        overflowed the floating-point range (the weights are then left
        mid-pass).
    """
    cdef bint overflow
    with nogil:
        overflow = _epoch(
            &X[0, 0], NULL, NULL, False, X.shape[1],
            &order[0], order.shape[0], &y_class[0], &step[0],
            &class_rows_ptr[0], &class_rows[0], &class_signs[0],
            &coef[0, 0], &intercept[0], fit_intercept, &active[0],
            rule, &threshold[0], &kappa[0], &norm[0], intercept_rate,
            average, &coef_sum[0, 0], &intercept_sum[0], &visits[0], &updates[0],
            &losses[0], &scores[0],
        )
    return overflow


def epoch_csr(
    const floating[::1] X_data,
    const int[::1] X_indices,
    const int[::1] X_indptr,
    const int[::1] order,
    const int[::1] y_class,
    const double[::1] step,
    const int[::1] class_rows_ptr,
    const int[::1] class_rows,
    const signed char[::1] class_signs,
    floating[:, ::1] coef,
    floating[::1] intercept,
    bint fit_intercept,
    const unsigned char[::1] active,
    int rule,
    const double[::1] threshold,
    const double[::1] kappa,
    double[::1] norm,
    double intercept_rate,
    bint average,
    double[:, ::1] coef_sum,
    double[::1] intercept_sum,
    double[::1] visits,
    long long[::1] updates,
    double[::1] losses,
    double[::1] scores,
):
    """Run one pass of the perceptron rule over the rows ``order`` of a CSR X.

    ``X_data``, ``X_indices`` and ``X_indptr`` are the CSR arrays (int32
    indices); every other parameter is as in :func:`epoch_dense`.
    """
    # An all-zero CSR matrix has empty data: point at something valid anyway.
    cdef const floating* values = &X_data[0] if X_data.shape[0] else NULL
    cdef const int* indices = &X_indices[0] if X_indices.shape[0] else NULL
    cdef bint overflow
    with nogil:
        overflow = _epoch(
            values, indices, &X_indptr[0], True, coef.shape[1],
            &order[0], order.shape[0], &y_class[0], &step[0],
            &class_rows_ptr[0], &class_rows[0], &class_signs[0],
            &coef[0, 0], &intercept[0], fit_intercept, &active[0],
            rule, &threshold[0], &kappa[0], &norm[0], intercept_rate,
            average, &coef_sum[0, 0], &intercept_sum[0], &visits[0], &updates[0],
            &losses[0], &scores[0],
        )
    return overflow


def scaled_dense(
    const floating[:, ::1] X, const int[::1] order, const int[::1] y_class,
    const double[::1] step, const int[::1] class_rows_ptr,
    const int[::1] class_rows, const signed char[::1] class_signs,
    floating[:, ::1] coef, floating[::1] intercept, bint fit_intercept,
    const unsigned char[::1] active, int rule, const double[::1] threshold,
    const double[::1] kappa, double[::1] norm, const double[::1] counts,
    double power, double[:, ::1] dual, double[:, ::1] dual_row,
    double decay, double l1_step, double[::1] l1_total,
    double[:, ::1] l1_applied, bint average, double[:, ::1] coef_sum,
    double[::1] intercept_sum, double[::1] visits, long long[::1] updates,
    double[::1] wscale, double[::1] scaled_visits,
):
    """One pass of a rule that rescales the weights over the rows ``order``
    of dense X (see ``_epoch_scaled``): the threshold rule (0) with
    scikit-learn's SGD penalties, ALMA (8), ROMMA (9) or aggressive ROMMA
    (10).

    ``decay`` is the l2 factor of a visit, ``max(0, 1 - eta0 * alpha * (1 -
    l1_ratio))`` (1 for the other rules); ``l1_step`` the l1 penalty a visit
    adds, ``eta0 * alpha * l1_ratio``; ``l1_total`` (per row) and
    ``l1_applied`` (per weight; unused when ``l1_step`` is 0) the cumulative
    penalty and what each weight took of it, carried from pass to pass.
    ALMA reads ``threshold = (1 - alpha) B sqrt(p - 1)``, ``kappa = C /
    sqrt(p - 1)``, ``counts`` (the corrections of every row before this
    pass) and ``power = p``; for ``p != 2``, ``dual`` (n_rows x n_features)
    and ``dual_row`` (n_rows x 3) are its scratch (shape (1, 1) and (1, 3)
    otherwise); ALMA_2 and ROMMA keep ``norm`` (``||[w_k; b_k]||``, exact
    on entry) up to date.  ``wscale``
    (ones) and ``scaled_visits`` (a copy of ``visits``) are scratch of the
    pass.  The other parameters are those of :func:`epoch_dense`.  Returns
    True on a margin (or a norm) that overflowed.
    """
    cdef bint overflow
    with nogil:
        overflow = _epoch_scaled(
            &X[0, 0], NULL, NULL, False, X.shape[1],
            &order[0], order.shape[0], &y_class[0], &step[0],
            &class_rows_ptr[0], &class_rows[0], &class_signs[0],
            &coef[0, 0], &intercept[0], fit_intercept, coef.shape[0],
            &active[0], rule, &threshold[0], &kappa[0], &norm[0], &counts[0],
            power, &dual[0, 0], &dual_row[0, 0], decay, l1_step, &l1_total[0],
            &l1_applied[0, 0], average, &coef_sum[0, 0], &intercept_sum[0],
            &visits[0], &updates[0], &wscale[0], &scaled_visits[0],
        )
    return overflow


def scaled_csr(
    const floating[::1] X_data, const int[::1] X_indices,
    const int[::1] X_indptr, const int[::1] order, const int[::1] y_class,
    const double[::1] step, const int[::1] class_rows_ptr,
    const int[::1] class_rows, const signed char[::1] class_signs,
    floating[:, ::1] coef, floating[::1] intercept, bint fit_intercept,
    const unsigned char[::1] active, int rule, const double[::1] threshold,
    const double[::1] kappa, double[::1] norm, const double[::1] counts,
    double power, double[:, ::1] dual, double[:, ::1] dual_row,
    double decay, double l1_step, double[::1] l1_total,
    double[:, ::1] l1_applied, bint average, double[:, ::1] coef_sum,
    double[::1] intercept_sum, double[::1] visits, long long[::1] updates,
    double[::1] wscale, double[::1] scaled_visits,
):
    """:func:`scaled_dense` for a CSR X (int32 indices)."""
    cdef const floating* values = &X_data[0] if X_data.shape[0] else NULL
    cdef const int* indices = &X_indices[0] if X_indices.shape[0] else NULL
    cdef bint overflow
    with nogil:
        overflow = _epoch_scaled(
            values, indices, &X_indptr[0], True, coef.shape[1],
            &order[0], order.shape[0], &y_class[0], &step[0],
            &class_rows_ptr[0], &class_rows[0], &class_signs[0],
            &coef[0, 0], &intercept[0], fit_intercept, coef.shape[0],
            &active[0], rule, &threshold[0], &kappa[0], &norm[0], &counts[0],
            power, &dual[0, 0], &dual_row[0, 0], decay, l1_step, &l1_total[0],
            &l1_applied[0, 0], average, &coef_sum[0, 0], &intercept_sum[0],
            &visits[0], &updates[0], &wscale[0], &scaled_visits[0],
        )
    return overflow


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


cdef class DenseStream:
    """The pass of ``partial_fit`` over a few dense rows, bound to one state.

    The arrays of the state and of the rule are taken once, when the stream
    is made, so that a call passes only its rows: a one-row call then costs
    about the update itself.  The stream keeps ``bound``, a bound of the
    magnitude of every weight and intercept, and runs a pass only when the
    weights provably cannot overflow (each sample updates a row at most
    once, by ``step * x``); so a pass that runs cannot fail, and a pass that
    would not be provably safe is left to the caller's checked path.  The
    arithmetic is that of :func:`epoch_dense` (same loop, same build).
    """

    cdef object _arrays
    cdef object _order_array
    cdef bint single
    cdef double* coef64
    cdef float* coef32
    cdef double* intercept64
    cdef float* intercept32
    cdef const int* rows_ptr
    cdef const int* rows
    cdef const signed char* signs
    cdef const unsigned char* active
    cdef const double* threshold
    cdef const double* kappa
    cdef double* norm
    cdef double* losses
    cdef double* counts
    cdef double* wscale
    cdef double* scaled_visits
    cdef double* l1_total
    cdef double* l1_applied
    cdef double* coef_sum
    cdef double* intercept_sum
    cdef double* visits
    cdef long long* updates
    cdef double* scores
    cdef int* order
    cdef Py_ssize_t n_rows, n_features, n_order
    cdef bint fit_intercept, average, normalized
    cdef int rule
    cdef double sparse_intercept_rate, reach
    cdef public double bound
    cdef public double limit
    cdef public double eta
    cdef object _state
    cdef tuple _names
    cdef tuple _values
    cdef dict _labels

    def __init__(self, coef, intercept, class_rows_ptr, class_rows, class_signs,
                 bint fit_intercept, int rule, threshold, kappa, bint average,
                 coef_sum, intercept_sum, visits, double bound, double limit,
                 double sparse_intercept_rate=1.0, double reach=1.0,
                 bint normalized=False, counts=None):
        cdef double[:, ::1] c64
        cdef float[:, ::1] c32
        cdef double[::1] i64
        cdef float[::1] i32
        cdef const int[::1] rp = class_rows_ptr
        cdef const int[::1] r = class_rows
        cdef const signed char[::1] s = class_signs
        cdef const double[::1] th = threshold
        cdef const double[::1] ka = kappa
        cdef double[:, ::1] cs = coef_sum
        cdef double[::1] isum = intercept_sum
        cdef double[::1] vi = visits
        self.n_rows, self.n_features = coef.shape[0], coef.shape[1]
        active = np.ones(self.n_rows, dtype=np.uint8)
        norm = np.zeros(self.n_rows)
        losses = np.zeros(self.n_rows)
        # Scratch of the scaled walk (ALMA): scales, their sums over the
        # visits, and unused penalty sums.
        wscale = np.ones(self.n_rows)
        scaled_visits = np.zeros(self.n_rows)
        l1_total = np.zeros(self.n_rows)
        l1_applied = np.zeros((1, 1))
        if counts is None:
            counts = np.zeros(self.n_rows)
        updates = np.zeros(self.n_rows, dtype=np.int64)
        # Scratch of the Crammer-Singer rules (one score per row).
        scores = np.zeros(max(self.n_rows, 2))
        order = np.arange(256, dtype=np.int32)
        cdef const unsigned char[::1] ac = active
        cdef double[::1] no = norm
        cdef double[::1] lo = losses
        cdef double[::1] co = counts
        cdef double[::1] ws = wscale
        cdef double[::1] sv = scaled_visits
        cdef double[::1] lt = l1_total
        cdef double[:, ::1] la = l1_applied
        cdef long long[::1] up = updates
        cdef double[::1] sc = scores
        cdef int[::1] od = order
        self.single = coef.dtype == np.float32
        if self.single:
            c32 = coef
            i32 = intercept
            self.coef32, self.intercept32 = &c32[0, 0], &i32[0]
        else:
            c64 = coef
            i64 = intercept
            self.coef64, self.intercept64 = &c64[0, 0], &i64[0]
        self.rows_ptr, self.rows, self.signs = &rp[0], &r[0], &s[0]
        self.active, self.threshold, self.kappa = &ac[0], &th[0], &ka[0]
        self.norm, self.updates, self.order = &no[0], &up[0], &od[0]
        self.losses, self.counts = &lo[0], &co[0]
        self.wscale, self.scaled_visits = &ws[0], &sv[0]
        self.l1_total, self.l1_applied = &lt[0], &la[0, 0]
        self.scores = &sc[0]
        self.coef_sum, self.intercept_sum, self.visits = &cs[0, 0], &isum[0], &vi[0]
        self.n_order = od.shape[0]
        self.fit_intercept, self.rule, self.average = fit_intercept, rule, average
        self.bound, self.limit = bound, limit
        self.sparse_intercept_rate, self.reach = sparse_intercept_rate, reach
        self.normalized = normalized
        # Keep every array alive as long as the pointers are.
        self._arrays = (coef, intercept, class_rows_ptr, class_rows, class_signs,
                        threshold, kappa, coef_sum, intercept_sum, visits,
                        active, norm, updates, scores, losses, counts, wscale,
                        scaled_visits, l1_total, l1_applied)
        self._order_array = order

    cdef long long _pass(self, const void* X, Py_ssize_t n, Py_ssize_t d,
                         const int* y_class, const double* step,
                         const int* indices=NULL, const int* indptr=NULL):
        """The pass over n dense rows at X (the state's dtype), or n CSR rows
        of values X, ``indices`` and ``indptr`` (``indptr`` not NULL); the
        total of the updates, or -1, touching nothing, when X is not finite
        or the pass is not provably free of overflow."""
        cdef Py_ssize_t t, j, k
        cdef Py_ssize_t first = 0, last = n * d
        cdef double largest = 0.0, value, total_step = 0.0, s, after
        cdef long long total = 0
        cdef int[::1] grown
        cdef const double* p64 = <const double*> X
        cdef const float* p32 = <const float*> X
        cdef bint sparse = indptr != NULL
        if n == 0 or d == 0:
            return -1
        if sparse:
            first, last = indptr[0], indptr[n]
        if n > self.n_order:
            order = np.arange(n, dtype=np.int32)
            grown = order
            self._order_array = order
            self.order, self.n_order = &grown[0], n
        with nogil:
            if self.single:
                for t in range(first, last):
                    value = fabs(p32[t])
                    if value > largest:
                        largest = value
                    elif value != value:
                        largest = INFINITY
                        break
            else:
                for t in range(first, last):
                    value = fabs(p64[t])
                    if value > largest:
                        largest = value
                    elif value != value:
                        largest = INFINITY
                        break
        # Not finite: the caller's checked path reports it.
        if not largest < INFINITY:
            return -1
        if self.fit_intercept and largest < 1.0:
            largest = 1.0
        for t in range(n):
            total_step = total_step + step[t]
        # Weights bounded by ``after`` keep every margin and the margin
        # rule's norm finite (see _rows.safe_bound): the pass cannot stop.
        # An update moves a weight by at most ``reach * step`` times an
        # entry of the row (of the normalized row, at most 1, for ALMA).
        if self.normalized:
            after = self.bound + self.reach * total_step
            if not (d + 1.0) * largest * largest < self.limit:
                return -1
        else:
            after = self.bound + self.reach * largest * total_step
        if not (after * (d * fmax(largest, 1.0) + 1.0) < self.limit
                and 4.0 * (d + 1) * after * after < self.limit):
            return -1
        with nogil:
            for k in range(self.n_rows):
                self.updates[k] = 0
            if self.rule == RULE_MARGIN or self.rule >= RULE_ALMA:
                for k in range(self.n_rows):
                    s = 0.0
                    if self.single:
                        for j in range(d):
                            s += <double>self.coef32[k * d + j] * self.coef32[k * d + j]
                        if self.fit_intercept:
                            s += <double>self.intercept32[k] * self.intercept32[k]
                    else:
                        for j in range(d):
                            s += self.coef64[k * d + j] * self.coef64[k * d + j]
                        if self.fit_intercept:
                            s += self.intercept64[k] * self.intercept64[k]
                    self.norm[k] = sqrt(s)
            if self.rule >= RULE_ALMA:
                for k in range(self.n_rows):
                    self.wscale[k] = 1.0
                    self.scaled_visits[k] = self.visits[k]
                if self.single:
                    _epoch_scaled(
                        p32, indices, indptr, sparse, d, self.order, n,
                        y_class, step, self.rows_ptr, self.rows, self.signs,
                        self.coef32, self.intercept32, self.fit_intercept,
                        self.n_rows, self.active, self.rule, self.threshold,
                        self.kappa, self.norm, self.counts, 2.0,
                        self.l1_applied, self.l1_applied, 1.0, 0.0,
                        self.l1_total, self.l1_applied, self.average,
                        self.coef_sum, self.intercept_sum, self.visits,
                        self.updates, self.wscale, self.scaled_visits,
                    )
                else:
                    _epoch_scaled(
                        p64, indices, indptr, sparse, d, self.order, n,
                        y_class, step, self.rows_ptr, self.rows, self.signs,
                        self.coef64, self.intercept64, self.fit_intercept,
                        self.n_rows, self.active, self.rule, self.threshold,
                        self.kappa, self.norm, self.counts, 2.0,
                        self.l1_applied, self.l1_applied, 1.0, 0.0,
                        self.l1_total, self.l1_applied, self.average,
                        self.coef_sum, self.intercept_sum, self.visits,
                        self.updates, self.wscale, self.scaled_visits,
                    )
                for k in range(self.n_rows):
                    self.counts[k] += self.updates[k]
            elif self.single:
                _epoch(
                    p32, indices, indptr, sparse, d, self.order, n,
                    y_class, step, self.rows_ptr, self.rows, self.signs,
                    self.coef32, self.intercept32, self.fit_intercept,
                    self.active, self.rule, self.threshold, self.kappa,
                    self.norm,
                    self.sparse_intercept_rate if sparse else 1.0,
                    self.average, self.coef_sum, self.intercept_sum,
                    self.visits, self.updates, self.losses, self.scores,
                )
            else:
                _epoch(
                    p64, indices, indptr, sparse, d, self.order, n,
                    y_class, step, self.rows_ptr, self.rows, self.signs,
                    self.coef64, self.intercept64, self.fit_intercept,
                    self.active, self.rule, self.threshold, self.kappa,
                    self.norm,
                    self.sparse_intercept_rate if sparse else 1.0,
                    self.average, self.coef_sum, self.intercept_sum,
                    self.visits, self.updates, self.losses, self.scores,
                )
            for k in range(self.n_rows):
                total += self.updates[k]
        self.bound = after
        return total

    def run(self, X, const int[::1] y_class, const double[::1] step):
        """One pass over the rows of X (C-ordered, the state's dtype).

        Returns the number of updates of every row (a new array), or None,
        touching nothing, when X is not finite or the pass is not provably
        free of overflow (the caller then takes its checked path).
        """
        cdef const double[:, ::1] X64
        cdef const float[:, ::1] X32
        cdef const void* p
        cdef Py_ssize_t n = X.shape[0], d = X.shape[1]
        if d != self.n_features or n != y_class.shape[0] or n != step.shape[0]:
            raise ValueError("DenseStream.run: X, y_class and step do not match.")
        if n == 0 or d == 0:
            return None
        if self.single:
            X32 = X
            p = &X32[0, 0]
        else:
            X64 = X
            p = &X64[0, 0]
        if self._pass(p, n, d, &y_class[0], &step[0]) < 0:
            return None
        return np.asarray(<long long[:self.n_rows]> self.updates).copy()

    def arm(self, state, tuple names, tuple values, dict labels, double eta):
        """Let :meth:`learn` take calls while the estimator's ``_state`` is
        ``state`` and its parameters ``names`` are ``values`` (by identity):
        ``labels`` maps every label to its class index, ``eta`` is the size
        of an update.  ``arm(None, (), (), {}, 0)`` disarms."""
        self._state = state
        self._names, self._values = names, values
        self._labels, self.eta = labels, eta

    def learn(self, dict d, X, y):
        """The whole of a streaming ``partial_fit`` call without sample or
        class weights, for an estimator whose ``__dict__`` is ``d``: up to
        256 rows of a C-ordered float ndarray X, or of a CSR matrix X with
        int32 indices in canonical form (the state's dtype, the state's
        number of features) and their labels y (a 1-d ndarray or a list of
        labels known to :meth:`arm`).  Returns the total of the updates, or
        -1, touching nothing, whenever anything differs from that (the
        caller then takes its checked path, which refuses bad input with its
        messages)."""
        cdef Py_buffer view
        cdef Py_ssize_t i, n
        cdef long long total
        cdef int[256] y_class
        cdef double[256] step
        cdef PyObject* found
        if self._state is None or PyDict_GetItem(d, "_state") != <PyObject*> self._state:
            return -1
        names, values = self._names, self._values
        for i in range(len(names)):
            if PyDict_GetItem(d, names[i]) != <PyObject*> values[i]:
                return -1
        if type(X) is not _ndarray and type(X) not in _CSR_TYPES:
            return -1
        if type(y) is _ndarray:
            if y.ndim != 1:
                return -1
            y = y.tolist()
        elif type(y) is not list:
            return -1
        n = len(<list> y)
        if not 0 < n <= 256:
            return -1
        labels = self._labels
        for i in range(n):
            found = PyDict_GetItem(labels, (<list> y)[i])
            if found == NULL:
                return -1
            y_class[i] = <int> (<object> found)
            step[i] = self.eta
        if type(X) is not _ndarray:
            return self._learn_csr(X, n, y_class, step)
        try:
            PyObject_GetBuffer(X, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
        except (ValueError, TypeError, BufferError):
            return -1
        try:
            if (view.ndim != 2 or view.shape[0] != n
                    or view.shape[1] != self.n_features
                    or view.format == NULL or view.format[1] != 0
                    or view.format[0] != (102 if self.single else 100)):  # 'f', 'd'
                return -1
            total = self._pass(view.buf, n, self.n_features, y_class, step)
        finally:
            PyBuffer_Release(&view)
        return total

    cdef long long _learn_csr(self, X, Py_ssize_t n, int* y_class,
                              double* step):
        """:meth:`learn` on the n rows of a CSR matrix of the state's dtype
        with int32 indices, in canonical form (no duplicate entries: their
        sum, not their largest, bounds the update)."""
        cdef const double[::1] v64
        cdef const float[::1] v32
        cdef const int[::1] ind
        cdef const int[::1] ptr
        cdef const void* values
        if X.shape[0] != n or X.shape[1] != self.n_features:
            return -1
        data, indices, indptr = X.data, X.indices, X.indptr
        if (type(data) is not _ndarray or type(indices) is not _ndarray
                or type(indptr) is not _ndarray
                or data.dtype != (_FLOAT32 if self.single else _FLOAT64)
                or indices.dtype != _INT32 or indptr.dtype != _INT32
                or not X.has_canonical_format):
            return -1
        ind, ptr = indices, indptr
        if ptr.shape[0] != n + 1 or ptr[n] > ind.shape[0] or ptr[0] < 0:
            return -1
        if data.shape[0] == 0:
            values = NULL
        elif self.single:
            v32 = data
            values = &v32[0]
        else:
            v64 = data
            values = &v64[0]
        if ptr[n] > ptr[0] and values == NULL:
            return -1
        return self._pass(values, n, self.n_features, y_class, step,
                          &ind[0] if ind.shape[0] else NULL, &ptr[0])
