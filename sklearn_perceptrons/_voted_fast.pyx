# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Compiled loops of the voted perceptron: training epochs that log every
mistake, and the weighted vote of the logged perceptrons.

Training walks the samples of one epoch in the given order.  Every binary
sub-problem (a row of the one-vs-all table) keeps its current perceptron;
a visit either extends the survival count of the current perceptron of a
row (by the sample's step, its sample weight times its class weight) or, on
a mistake (``s * score <= 0`` with a positive step), creates the next
perceptron of that row and logs the mistake: the row, the sample, the
signed update ``step * s``, and a survival count that starts at ``step``.

Two walks share that bookkeeping:

* ``linear_epoch``: the weights of every row are updated in place and a
  visit's score is one dot product (dense or CSR rows).
* ``kernel_epoch``: the scores of every training sample under every row's
  current perceptron are kept up to date; a mistake on sample i adds the
  kernel row ``K(x_i, .)`` (plus 1 with an intercept) to them.  Kernel rows
  come from a cache filled by the caller: when the row of a mistaken sample
  is missing, the walk stops before changing anything and returns
  ``STATUS_NEED_ROW``; the caller computes the row and resumes at the same
  visit.

Both walks also stop with ``STATUS_LOG_FULL`` before a visit that might not
fit in the mistake log, so the caller can grow it and resume.

``vote`` computes, for every test sample and row, ``sum_k c_k *
sign(w_k . x)`` from the kernel values between the samples and the support
vectors, by prefix sums over the logged mistakes (no w_k is ever formed).
"""

from libc.stdint cimport int64_t, int32_t

ctypedef fused floating:
    float
    double

cdef enum:
    DONE = 0
    NEED_ROW = 1
    LOG_FULL = 2

STATUS_DONE = DONE
STATUS_NEED_ROW = NEED_ROW
STATUS_LOG_FULL = LOG_FULL

# Indices of the int64 counters shared with the caller.
cdef enum:
    C_LOG_N = 0      # mistakes logged so far
    C_MISSING = 1    # the sample whose kernel row is needed


cdef inline void _row_view(
    const floating* values, const int32_t* indices, const int32_t* indptr,
    bint sparse, Py_ssize_t n_features, Py_ssize_t i,
    const floating** row, const int32_t** cols, Py_ssize_t* nnz,
) noexcept nogil:
    """Values, column indices (NULL for a dense row) and length of row i."""
    if sparse:
        row[0] = values + indptr[i]
        cols[0] = indices + indptr[i]
        nnz[0] = indptr[i + 1] - indptr[i]
    else:
        row[0] = values + i * n_features
        cols[0] = NULL
        nnz[0] = n_features


cdef inline double _dot(const double* w, const floating* row, const int32_t* cols,
                        Py_ssize_t nnz) noexcept nogil:
    cdef double total = 0.0
    cdef Py_ssize_t j
    if cols == NULL:
        for j in range(nnz):
            total += w[j] * row[j]
    else:
        for j in range(nnz):
            total += w[cols[j]] * row[j]
    return total


cdef inline void _axpy(double* w, double a, const floating* row,
                       const int32_t* cols, Py_ssize_t nnz) noexcept nogil:
    cdef Py_ssize_t j
    if cols == NULL:
        for j in range(nnz):
            w[j] += a * row[j]
    else:
        for j in range(nnz):
            w[cols[j]] += a * row[j]


cdef inline void _log(int64_t k, int32_t r, int32_t i, double coef, double step,
                      int32_t* log_row, int32_t* log_sample, double* log_coef,
                      double* log_count, int64_t* current) noexcept nogil:
    """Log a mistake of row r on sample i: perceptron k of the log is born."""
    log_row[k] = r
    log_sample[k] = i
    log_coef[k] = coef
    log_count[k] = step
    current[r] = k


def linear_epoch(
    const floating[::1] values,
    const int32_t[::1] indices,
    const int32_t[::1] indptr,
    bint sparse,
    Py_ssize_t n_features,
    const int32_t[::1] order,
    Py_ssize_t start,
    const int32_t[::1] y_class,
    const double[::1] step,
    const int32_t[::1] rows_ptr,
    const int32_t[::1] rows,
    const signed char[::1] signs,
    const unsigned char[::1] active,
    double[:, ::1] coef,
    double[::1] intercept,
    bint fit_intercept,
    int32_t[::1] log_row,
    int32_t[::1] log_sample,
    double[::1] log_coef,
    double[::1] log_count,
    int64_t[::1] current,
    int64_t[::1] counters,
    int64_t[::1] updates,
):
    """One epoch of the primal voted perceptron from visit ``start`` of
    ``order``.

    ``coef`` (n_rows, n_features) and ``intercept`` (n_rows,) are the
    current perceptrons, updated in place; mistakes are appended to the log
    arrays from ``counters[C_LOG_N]``; ``updates[r]`` counts the mistakes of
    row r.  Inactive rows neither update nor count survival.

    Returns ``(status, t)``: ``STATUS_DONE``, or ``STATUS_LOG_FULL`` with
    ``t`` the visit to resume from (nothing of it applied).
    """
    cdef Py_ssize_t t, p, n_visits = order.shape[0]
    cdef Py_ssize_t capacity = log_row.shape[0]
    cdef int64_t k = counters[C_LOG_N]
    cdef int32_t i, c, r
    cdef double s, score, a
    cdef const floating* row
    cdef const int32_t* cols
    cdef Py_ssize_t nnz
    cdef int status = DONE
    cdef const floating* data = &values[0] if values.shape[0] else NULL
    with nogil:
        for t in range(start, n_visits):
            i = order[t]
            c = y_class[i]
            if k + rows_ptr[c + 1] - rows_ptr[c] > capacity:
                status = LOG_FULL
                break
            _row_view(data, &indices[0], &indptr[0], sparse, n_features, i,
                      &row, &cols, &nnz)
            for p in range(rows_ptr[c], rows_ptr[c + 1]):
                r = rows[p]
                if not active[r]:
                    continue
                s = signs[p]
                score = _dot(&coef[r, 0], row, cols, nnz) + intercept[r]
                if s * score <= 0.0 and step[i] > 0.0:
                    a = step[i] * s
                    _axpy(&coef[r, 0], a, row, cols, nnz)
                    if fit_intercept:
                        intercept[r] += a
                    _log(k, r, i, a, step[i], &log_row[0], &log_sample[0],
                         &log_coef[0], &log_count[0], &current[0])
                    k += 1
                    updates[r] += 1
                elif current[r] >= 0:
                    log_count[current[r]] += step[i]
    counters[C_LOG_N] = k
    return status, (t if status != DONE else n_visits)


def kernel_epoch(
    const int32_t[::1] order,
    Py_ssize_t start,
    const int32_t[::1] y_class,
    const double[::1] step,
    const int32_t[::1] rows_ptr,
    const int32_t[::1] rows,
    const signed char[::1] signs,
    const unsigned char[::1] active,
    double[:, ::1] scores,
    double[:, ::1] alpha,
    double add,
    const double[:, ::1] cache,
    const int32_t[::1] line_of_sample,
    int32_t[::1] log_row,
    int32_t[::1] log_sample,
    double[::1] log_coef,
    double[::1] log_count,
    int64_t[::1] current,
    int64_t[::1] counters,
    int64_t[::1] updates,
):
    """One epoch of the dual voted perceptron from visit ``start`` of
    ``order``.

    ``scores`` (n_rows, n_samples) are the scores of every training sample
    under every row's current perceptron, ``alpha`` (n_rows, n_samples) its
    dual coefficients; ``cache[line_of_sample[i]]`` is the kernel row
    ``K(x_i, .)`` over the training samples (-1: not cached).  ``add`` is 1
    with an intercept (a constant feature in kernel space), else 0.

    Returns ``(status, t)``: ``STATUS_DONE``, or ``STATUS_NEED_ROW`` (the
    sample is ``counters[C_MISSING]``) or ``STATUS_LOG_FULL``, with ``t``
    the visit to resume from (nothing of it applied).
    """
    cdef Py_ssize_t t, p, j, n_visits = order.shape[0]
    cdef Py_ssize_t n = scores.shape[1]
    cdef Py_ssize_t capacity = log_row.shape[0]
    cdef int64_t k = counters[C_LOG_N]
    cdef int32_t i, c, r, line
    cdef double s, a
    cdef double* line_scores
    cdef const double* kernel_row
    cdef bint mistake
    cdef int status = DONE
    with nogil:
        for t in range(start, n_visits):
            i = order[t]
            c = y_class[i]
            if k + rows_ptr[c + 1] - rows_ptr[c] > capacity:
                status = LOG_FULL
                break
            if step[i] <= 0.0:
                continue
            # Decide every row first: the visit is applied whole or not at all.
            mistake = False
            for p in range(rows_ptr[c], rows_ptr[c + 1]):
                r = rows[p]
                if active[r] and signs[p] * scores[r, i] <= 0.0:
                    mistake = True
                    break
            line = line_of_sample[i]
            if mistake and line < 0:
                counters[C_MISSING] = i
                status = NEED_ROW
                break
            for p in range(rows_ptr[c], rows_ptr[c + 1]):
                r = rows[p]
                if not active[r]:
                    continue
                s = signs[p]
                if s * scores[r, i] <= 0.0:
                    a = step[i] * s
                    kernel_row = &cache[line, 0]
                    line_scores = &scores[r, 0]
                    for j in range(n):
                        line_scores[j] += a * (kernel_row[j] + add)
                    alpha[r, i] += a
                    _log(k, r, i, a, step[i], &log_row[0], &log_sample[0],
                         &log_coef[0], &log_count[0], &current[0])
                    k += 1
                    updates[r] += 1
                elif current[r] >= 0:
                    log_count[current[r]] += step[i]
    counters[C_LOG_N] = k
    return status, (t if status != DONE else n_visits)


def vote(
    const double[:, ::1] gram_t,
    const int32_t[::1] mistake_sv,
    const double[::1] mistake_coef,
    const double[::1] survival,
    const int64_t[::1] mistake_ptr,
    double add,
    double[:, ::1] score,
    double[:, ::1] out,
):
    """``out[r, t] = sum_k survival[k] * sign(w_k . x_t)`` over the
    perceptrons of row r, whose mistakes are ``mistake_ptr[r]`` to
    ``mistake_ptr[r + 1]`` in training order.

    ``gram_t[j, t]`` is the kernel between support vector j and test sample
    t; the score of perceptron k is the prefix sum ``sum_{m <= k}
    mistake_coef[m] * (gram_t[mistake_sv[m], t] + add)``.  A score <= 0
    votes -1, as a perceptron predicts the negative class there.  The test
    samples of a block are advanced together, one mistake at a time (a
    contiguous line of ``gram_t`` per mistake, the running scores in
    ``score[0]``): the loop over them has no dependency between iterations
    and no branch, so it vectorizes.  Costs O(n_mistakes) per test sample
    after the kernel values.
    """
    cdef Py_ssize_t t, r, m, n_test = gram_t.shape[1], n_rows = out.shape[0]
    cdef double a, c
    cdef const double* g
    cdef double* s = &score[0, 0]
    cdef double* total
    with nogil:
        for r in range(n_rows):
            total = &out[r, 0]
            for t in range(n_test):
                s[t] = 0.0
                total[t] = 0.0
            for m in range(mistake_ptr[r], mistake_ptr[r + 1]):
                a = mistake_coef[m]
                c = survival[m]
                g = &gram_t[mistake_sv[m], 0]
                for t in range(n_test):
                    s[t] += a * (g[t] + add)
                    total[t] += c if s[t] > 0.0 else -c
