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

Two walks share that bookkeeping, held by a ``Ledger``:

* ``linear_epoch``: the weights of every row are updated in place and a
  visit's score is one dot product (dense or CSR rows, a
  :class:`~sklearn_perceptrons._kernel._matrix.Matrix`).
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

import numpy as np

from libc.stdint cimport int64_t, int32_t

from ._matrix cimport Matrix, MatrixView

ctypedef fused floating:
    float
    double

# Why a walk returned (``cpdef``: module-level ints that Python reads).
cpdef enum:
    STATUS_DONE = 0
    STATUS_NEED_ROW = 1
    STATUS_LOG_FULL = 2


cdef class Ledger:
    """The bookkeeping both walks share, for one fit.

    What a visit of sample i touches: its class ``y_class[i]``, its step
    ``step[i]`` and, from the one-vs-all table ``(rows_ptr, rows, signs)``,
    the rows of that class with the sign of the sample in each.  And the
    mistake log, in the order the mistakes were made: ``row``, ``sample``,
    ``coef`` (the signed update) and ``count`` (the survival count of the
    perceptron the mistake created), of which the first ``size`` entries
    are used; ``current[r]`` is the log index of row r's current perceptron
    (-1: the zero perceptron, which survives nothing: it errs on every
    sample of positive step).
    """

    cdef const int32_t[::1] y_class
    cdef const double[::1] step
    cdef const int32_t[::1] rows_ptr
    cdef const int32_t[::1] rows
    cdef const signed char[::1] signs
    cdef readonly object row, sample, coef, count, current
    cdef readonly int64_t size

    def __init__(self, capacity, n_rows, y_class, step, table):
        self.y_class = y_class
        self.step = step
        self.rows_ptr, self.rows, self.signs = table
        self.row = np.empty(capacity, dtype=np.int32)
        self.sample = np.empty(capacity, dtype=np.int32)
        self.coef = np.empty(capacity)
        self.count = np.empty(capacity)
        self.current = np.full(n_rows, -1, dtype=np.int64)
        self.size = 0

    def grow(self):
        """Double the capacity of the log, keeping its entries."""
        self.row = _grown(self.row, self.size)
        self.sample = _grown(self.sample, self.size)
        self.coef = _grown(self.coef, self.size)
        self.count = _grown(self.count, self.size)

    def resume(self, const int32_t[::1] rows):
        """Make a perceptron of each of ``rows`` (row indices, no
        repetition) current as a log entry (sample -1, coef 0, count 0):
        the current perceptron of an earlier ``partial_fit`` call, whose
        survival the walk then extends from 0.  Call on an empty log."""
        cdef Py_ssize_t k
        if self.size != 0 or rows.shape[0] > self.row.shape[0]:
            raise ValueError("Ledger.resume needs an empty log that can "
                             "hold one entry per row.")
        for k in range(rows.shape[0]):
            self.row[k] = rows[k]
            self.sample[k] = -1
            self.coef[k] = 0.0
            self.count[k] = 0.0
            self.current[rows[k]] = k
        self.size = rows.shape[0]

    def trimmed(self):
        """The used part of the log: ``(row, sample, coef, count)``."""
        n = self.size
        return self.row[:n], self.sample[:n], self.coef[:n], self.count[:n]


def _grown(old, n):
    """A log array of twice the capacity of ``old``, its first n entries."""
    new = np.empty(2 * old.shape[0], dtype=old.dtype)
    new[:n] = old[:n]
    return new


# A Ledger's arrays as pointers, for the walks' loops without the GIL.
cdef struct Book:
    const int32_t* y_class
    const double* step
    const int32_t* rows_ptr
    const int32_t* rows
    const signed char* signs
    int32_t* log_row
    int32_t* log_sample
    double* log_coef
    double* log_count
    int64_t* current
    int64_t* updates
    int64_t size
    int64_t capacity
    int status      # why the walk stopped: a STATUS_ code


cdef Book _open(Ledger ledger, int64_t[::1] updates):
    """The pointers of ``ledger``; the walk counts row r's mistakes in
    ``updates[r]``."""
    cdef Book book
    cdef int32_t[::1] log_row = ledger.row
    cdef int32_t[::1] log_sample = ledger.sample
    cdef double[::1] log_coef = ledger.coef
    cdef double[::1] log_count = ledger.count
    cdef int64_t[::1] current = ledger.current
    book.y_class = &ledger.y_class[0]
    book.step = &ledger.step[0]
    book.rows_ptr = &ledger.rows_ptr[0]
    book.rows = &ledger.rows[0]
    book.signs = &ledger.signs[0]
    book.log_row = &log_row[0]
    book.log_sample = &log_sample[0]
    book.log_coef = &log_coef[0]
    book.log_count = &log_count[0]
    book.current = &current[0]
    book.updates = &updates[0]
    book.size = ledger.size
    book.capacity = log_row.shape[0]
    book.status = STATUS_DONE
    return book


cdef inline bint _log_full(Book* book, int32_t i) noexcept nogil:
    """Whether the log might not take a mistake of every row sample i visits;
    if so, the walk stops with ``STATUS_LOG_FULL``."""
    cdef int32_t c = book.y_class[i]
    if book.size + book.rows_ptr[c + 1] - book.rows_ptr[c] > book.capacity:
        book.status = STATUS_LOG_FULL
        return True
    return False


cdef inline double _visit(Book* book, int32_t r, int32_t i, double sign,
                         double score) noexcept nogil:
    """Book-keep the visit of row r on sample i (its sign ``sign`` in the row,
    its score ``score`` under the row's current perceptron).

    On a mistake (``sign * score <= 0`` with a positive step) the next
    perceptron of row r is born, surviving the step of sample i so far; it
    is logged and the signed update ``step * sign`` is returned for the
    caller to apply.  Otherwise the current perceptron survives the step and
    0 is returned.
    """
    cdef int64_t k = book.size
    cdef double step = book.step[i]
    if sign * score <= 0.0 and step > 0.0:
        book.log_row[k] = r
        book.log_sample[k] = i
        book.log_coef[k] = step * sign
        book.log_count[k] = step
        book.current[r] = k
        book.size = k + 1
        book.updates[r] += 1
        return step * sign
    if book.current[r] >= 0:
        book.log_count[book.current[r]] += step
    return 0.0


cdef object _close(Ledger ledger, const Book* book, Py_ssize_t t,
                   Py_ssize_t n_visits):
    """Store the log's new size in ``ledger``; the walk's ``(status, t)``."""
    ledger.size = book.size
    return book.status, (t if book.status != STATUS_DONE else n_visits)


cdef inline void _row_view(
    const floating* values, const MatrixView* X, Py_ssize_t i,
    const floating** row, const int32_t** cols, Py_ssize_t* nnz,
) noexcept nogil:
    """Values, column indices (NULL for a dense row) and length of row i."""
    if X.sparse:
        row[0] = values + X.indptr[i]
        cols[0] = <const int32_t*> X.indices + X.indptr[i]
        nnz[0] = X.indptr[i + 1] - X.indptr[i]
    else:
        row[0] = values + i * X.n_features
        cols[0] = NULL
        nnz[0] = X.n_features


cdef inline double _dot(const double* w, const floating* row, const int32_t* cols,
                        Py_ssize_t nnz) noexcept nogil:
    """``w . x`` of a dense (``cols`` NULL) or CSR row, summed in order: the
    voted perceptron's predictions are sums of these scores, so this order
    is part of its results, and the eight sums of ``row_dot_wide``
    (``_core/_rowops.pxd``) would change them."""
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


cdef inline void _add_kernel_row(double* scores, double a, const double* kernel_row,
                                 double add, Py_ssize_t n) noexcept nogil:
    """``scores += a * (K(x_i, .) + add)`` over the n training samples."""
    cdef Py_ssize_t j
    for j in range(n):
        scores[j] += a * (kernel_row[j] + add)


# The current perceptrons of the primal walk, updated in place.
cdef struct Weights:
    double* coef            # (n_rows, n_features), C-ordered
    Py_ssize_t n_features
    double* intercept       # (n_rows,)
    bint fit_intercept
    const unsigned char* active


cdef Py_ssize_t _linear_visits(
    const floating* data, const MatrixView* X, Book* book, Weights* w,
    const int32_t* order, Py_ssize_t start, Py_ssize_t n_visits,
) noexcept nogil:
    """The loop of :func:`linear_epoch`; returns the visit it stopped at."""
    cdef Py_ssize_t p, t = start, nnz
    cdef int32_t i, c, r
    cdef double score, a
    cdef const floating* row
    cdef const int32_t* cols
    cdef double* coef
    for t in range(start, n_visits):
        i = order[t]
        if _log_full(book, i):
            return t
        _row_view(data, X, i, &row, &cols, &nnz)
        c = book.y_class[i]
        for p in range(book.rows_ptr[c], book.rows_ptr[c + 1]):
            r = book.rows[p]
            if not w.active[r]:
                continue
            coef = w.coef + r * w.n_features
            score = _dot(coef, row, cols, nnz) + w.intercept[r]
            a = _visit(book, r, i, book.signs[p], score)
            if a != 0.0:
                _axpy(coef, a, row, cols, nnz)
                if w.fit_intercept:
                    w.intercept[r] += a
    return n_visits


def linear_epoch(
    Matrix X,
    Ledger ledger,
    const int32_t[::1] order,
    Py_ssize_t start,
    const unsigned char[::1] active,
    double[:, ::1] coef,
    double[::1] intercept,
    bint fit_intercept,
    int64_t[::1] updates,
):
    """One epoch of the primal voted perceptron from visit ``start`` of
    ``order`` over the rows of X.

    ``coef`` (n_rows, n_features) and ``intercept`` (n_rows,) are the
    current perceptrons, updated in place; mistakes are appended to the log
    of ``ledger``; ``updates[r]`` counts the mistakes of row r.  Inactive
    rows neither update nor count survival.

    Returns ``(status, t)``: ``STATUS_DONE``, or ``STATUS_LOG_FULL`` with
    ``t`` the visit to resume from (nothing of it applied).
    """
    cdef Py_ssize_t n_visits = order.shape[0]
    cdef Py_ssize_t t = start
    cdef Book book = _open(ledger, updates)
    cdef Weights w
    if (coef.shape[1] != X.view.n_features or intercept.shape[0] != coef.shape[0]
            or active.shape[0] != coef.shape[0]):
        raise ValueError("linear_epoch: coef must be (n_rows, n_features), "
                         "intercept and active (n_rows,).")
    w.coef = &coef[0, 0]
    w.n_features = coef.shape[1]
    w.intercept = &intercept[0]
    w.fit_intercept = fit_intercept
    w.active = &active[0]
    if n_visits > start:
        with nogil:
            if X.view.float32:
                t = _linear_visits(<const float*> X.view.values, &X.view,
                                   &book, &w, &order[0], start, n_visits)
            else:
                t = _linear_visits(<const double*> X.view.values, &X.view,
                                   &book, &w, &order[0], start, n_visits)
    return _close(ledger, &book, t, n_visits)


def kernel_epoch(
    Ledger ledger,
    const int32_t[::1] order,
    Py_ssize_t start,
    const unsigned char[::1] active,
    double[:, ::1] scores,
    double[:, ::1] alpha,
    double add,
    const double[:, ::1] cache,
    const int32_t[::1] line_of_sample,
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
    row of sample ``order[t]`` is needed) or ``STATUS_LOG_FULL``, with ``t``
    the visit to resume from (nothing of it applied).
    """
    cdef Py_ssize_t p, n_visits = order.shape[0]
    cdef Py_ssize_t t = start
    cdef Py_ssize_t n = scores.shape[1]
    cdef Book book = _open(ledger, updates)
    cdef int32_t i, c, r, line
    cdef double a
    cdef bint mistake
    with nogil:
        for t in range(start, n_visits):
            i = order[t]
            if _log_full(&book, i):
                break
            if book.step[i] <= 0.0:
                continue
            c = book.y_class[i]
            # Decide every row first: the visit is applied whole or not at all.
            mistake = False
            for p in range(book.rows_ptr[c], book.rows_ptr[c + 1]):
                r = book.rows[p]
                if active[r] and book.signs[p] * scores[r, i] <= 0.0:
                    mistake = True
                    break
            line = line_of_sample[i]
            if mistake and line < 0:
                book.status = STATUS_NEED_ROW
                break
            for p in range(book.rows_ptr[c], book.rows_ptr[c + 1]):
                r = book.rows[p]
                if not active[r]:
                    continue
                a = _visit(&book, r, i, book.signs[p], scores[r, i])
                if a != 0.0:
                    _add_kernel_row(&scores[r, 0], a, &cache[line, 0], add, n)
                    alpha[r, i] += a
    return _close(ledger, &book, t, n_visits)


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
