# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
# The scaled walk of the compiled linear epoch (included after
# ``_linear_epoch.pxi``): the rules that rescale the weights, scikit-learn's
# SGD penalties on the threshold rule, ALMA_p, ROMMA and aggressive ROMMA;
# every row kept as a scale and a direction, so that a rescaling costs O(1)
# and a visit O(nnz) on CSR rows (see ``_epoch_scaled``).


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
                raw = s * row_dot(w, x_values, x_indices, nnz, sparse)
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
