# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
# What the one-row path of the linear family runs (included after
# ``_linear_scaled.pxi``): the scores of CSR rows in O(nnz) per weight row
# (``sparse_scores``) and ``Stream``, the pass of ``partial_fit`` over a few
# rows, bound to one state.


# The float type of the rows a score reads, independent of the weights'.
ctypedef fused rowfloating:
    float
    double


cdef void _sparse_scores(
    const rowfloating* X_values, const XRows* X, Py_ssize_t n_samples,
    const floating* coef, const Weights* model, Py_ssize_t n_rows,
    bint average, bint single_model, double* out,
) noexcept nogil:
    """``X @ W.T + b`` for CSR rows, in the arithmetic of SciPy's sparse
    product and NumPy's addition of the intercepts: the entries of a row
    summed one after the other, in float32 when the rows and the model are
    float32 and in float64 otherwise, the intercept added last.

    The model ``W, b`` is ``coef, intercept`` as they are, or with
    ``average`` the mean of Daume's sums, ``coef - coef_sum / max(visits,
    1)`` in float64, as ``LinearState.model`` computes it; ``single_model``
    rounds the model to float32, as the ``astype`` of ``model`` does.  Only
    the weights of a row's columns are read: O(nnz) per weight row.

    ``X_values`` is ``X.values`` at its dtype, ``coef`` ``model.coef`` at
    its own; only the model's sums and visits are read beside ``coef`` and
    ``intercept``, with ``average``."""
    cdef const int* X_indices = X.indices
    cdef const int* X_indptr = X.indptr
    cdef Py_ssize_t n_features = X.n_features
    cdef const floating* intercept = <const floating*>model.intercept
    cdef const double* coef_sum = model.coef_sum
    cdef const double* intercept_sum = model.intercept_sum
    cdef const double* visits = model.visits
    cdef Py_ssize_t t, k, p, col
    cdef double w, b, v, acc_d
    cdef float acc_f
    cdef bint single = rowfloating is float and single_model
    for t in range(n_samples):
        for k in range(n_rows):
            v = 1.0
            if average and visits[k] > 1.0:
                v = visits[k]
            acc_d = 0.0
            acc_f = 0.0
            for p in range(X_indptr[t], X_indptr[t + 1]):
                col = X_indices[p]
                w = coef[k * n_features + col]
                if average:
                    w = w - coef_sum[k * n_features + col] / v
                if single_model:
                    w = <float>w
                if single:
                    acc_f = acc_f + <float>X_values[p] * <float>w
                else:
                    acc_d = acc_d + <double>X_values[p] * w
            b = intercept[k]
            if average:
                b = b - intercept_sum[k] / v
            if single_model:
                b = <float>b
            if single:
                out[t * n_rows + k] = acc_f + <float>b
            else:
                out[t * n_rows + k] = acc_d + b


cdef const void* _items(object array, Py_ssize_t* length, Py_ssize_t* itemsize,
                       bint writable=False) except? NULL:
    """The start of a C-contiguous buffer (NULL when empty), its number of
    items and their size in bytes."""
    cdef Py_buffer view
    cdef const void* start
    PyObject_GetBuffer(array, &view,
                       PyBUF_C_CONTIGUOUS | (PyBUF_WRITABLE if writable else 0))
    try:
        itemsize[0] = view.itemsize
        length[0] = view.len // view.itemsize if view.itemsize else 0
        start = view.buf if view.len else NULL
    finally:
        # The caller holds a reference to the array, which keeps its data.
        PyBuffer_Release(&view)
    return start


def sparse_scores(X_data, X_indices, X_indptr, coef, intercept, sums,
                  bint single_model, out):
    """Write the scores ``X @ W.T + b`` of the CSR rows of X to ``out``
    (float64, n_samples x n_rows), summed as SciPy's sparse product sums
    them (see ``_sparse_scores``), in O(nnz) per weight row: ``W, b`` is
    ``coef, intercept`` (float32 or float64, C-ordered), or with ``sums``,
    a tuple ``(coef_sum, intercept_sum, visits)`` of float64 arrays, the
    mean of the sums over the visits (``LinearState.model``), rounded to
    float32 when ``single_model``.  A float32 score is exact in ``out``.

    The arrays are read through the buffer protocol, without typed
    memoryviews, whose making would cost more than a one-row product."""
    cdef Py_ssize_t n_values, n_indices, n_indptr, n_coef, n_intercept, n_out
    cdef Py_ssize_t x_size, w_size, b_size, i_size, p_size, o_size, n_sums
    cdef Py_ssize_t n_rows = coef.shape[0], n_features = coef.shape[1]
    cdef const void* values = _items(X_data, &n_values, &x_size)
    cdef const int* indices = <const int*> _items(X_indices, &n_indices, &i_size)
    cdef const int* indptr = <const int*> _items(X_indptr, &n_indptr, &p_size)
    cdef const void* w = _items(coef, &n_coef, &w_size)
    cdef const void* b = _items(intercept, &n_intercept, &b_size)
    cdef double* scores = <double*> _items(out, &n_out, &o_size, True)
    cdef const double* coef_sum = NULL
    cdef const double* intercept_sum = NULL
    cdef const double* visits = NULL
    cdef bint average = sums is not None
    cdef Py_ssize_t n_samples = n_indptr - 1
    cdef XRows rows
    # The model scored (its other fields are not read).
    cdef Weights model
    if (x_size not in (4, 8) or w_size not in (4, 8) or b_size != w_size
            or i_size != 4 or p_size != 4 or o_size != 8 or n_samples < 0
            or n_out != n_samples * n_rows or n_coef != n_rows * n_features
            or n_intercept != n_rows or n_indices < n_values
            or n_samples and (indptr[0] < 0 or indptr[n_samples] > n_values)):
        raise ValueError("sparse_scores: the arrays do not match.")
    if average:
        coef_sum = <const double*> _items(sums[0], &n_sums, &o_size)
        if o_size != 8 or n_sums != n_coef:
            raise ValueError("sparse_scores: the sums do not match coef.")
        intercept_sum = <const double*> _items(sums[1], &n_sums, &o_size)
        if o_size != 8 or n_sums != n_rows:
            raise ValueError("sparse_scores: the sums do not match coef.")
        visits = <const double*> _items(sums[2], &n_sums, &o_size)
        if o_size != 8 or n_sums != n_rows:
            raise ValueError("sparse_scores: the sums do not match coef.")
    if n_samples == 0 or n_rows == 0:
        return
    rows.values = values
    rows.indices = indices
    rows.indptr = indptr
    rows.n_features = n_features
    rows.sparse = True
    model.coef = <void*> w
    model.intercept = <void*> b
    model.coef_sum = <double*> coef_sum
    model.intercept_sum = <double*> intercept_sum
    model.visits = <double*> visits
    with nogil:
        if x_size == 4 and w_size == 4:
            _sparse_scores(<const float*> values, &rows, n_samples,
                           <const float*> w, &model, n_rows, average,
                           single_model, scores)
        elif x_size == 4:
            _sparse_scores(<const float*> values, &rows, n_samples,
                           <const double*> w, &model, n_rows, average,
                           single_model, scores)
        elif w_size == 4:
            _sparse_scores(<const double*> values, &rows, n_samples,
                           <const float*> w, &model, n_rows, average,
                           single_model, scores)
        else:
            _sparse_scores(<const double*> values, &rows, n_samples,
                           <const double*> w, &model, n_rows, average,
                           single_model, scores)


cdef inline bint _safe(double bound, double largest, Py_ssize_t n_features,
                       double limit) noexcept nogil:
    """Whether weights and intercepts of magnitude <= ``bound`` are far from
    overflow (below ``limit``, a quarter of the dtype's largest value), and
    keep every margin ``w . x + b`` of rows of magnitude <= ``largest`` and
    the norm the margin rule updates finite: then a pass cannot fail."""
    return (bound * (n_features * fmax(largest, 1.0) + 1.0) < limit
            and 4.0 * (n_features + 1) * bound * bound < limit)


def safe_bound(double bound, double largest, Py_ssize_t n_features,
               double limit):
    """Python's view of ``_safe`` (the one definition of the rule)."""
    return _safe(bound, largest, n_features, limit)


cdef const void* _buffer(object array, Py_ssize_t* length,
                        Py_ssize_t itemsize) except? NULL:
    """The start of a C-contiguous buffer of items of ``itemsize`` bytes and
    their number (NULL when empty); ValueError for other items."""
    cdef Py_ssize_t size
    cdef const void* start = _items(array, length, &size)
    if size != itemsize:
        raise ValueError("Stream: an array of the wrong type.")
    return start


cdef class Stream:
    """The pass of ``partial_fit`` over a few rows, bound to one linear state.

    The arrays of the state, of the rule and of the row table are taken
    once, when the stream is made, so that a call passes only its rows: a
    one-row call then costs about the update itself, O(nnz) per weight row
    for a CSR row.  The stream keeps ``bound``, a bound of the magnitude of
    every weight and intercept, and runs a pass only when the weights
    provably cannot overflow (each sample updates a row at most once, by
    ``step * x``); so a pass that runs cannot fail, and one that would not
    be provably safe is declined, touching nothing, for the caller's
    checked path.  The norms ``||[w_k; b_k]||`` of the margin rule are
    computed when the stream is made and kept up to date by the passes (as
    one long pass would keep them).  The arithmetic is that of
    :func:`epoch_dense` and :func:`epoch_csr` (same loop, same build), and
    for ALMA (the one rule of the scaled walk a stream takes) that of
    :func:`scaled_dense` and :func:`scaled_csr`, whose pass is O(n_features)
    per row anyway (the scale is folded in at its end).

    ``weights``: the arrays of the state, ``(coef, intercept, coef_sum,
    intercept_sum, visits)`` (``coef``, ``intercept`` float32 or float64,
    the others float64), updated in place; ``table``: the row table
    ``(class_rows_ptr, class_rows, class_signs)`` and ``rule``: ``(code,
    threshold, kappa, sparse_intercept_rate, fit_intercept, average)``, as
    :func:`epoch_dense` reads them, but for ``sparse_intercept_rate``, the
    fraction of an update an intercept takes on CSR rows (dense rows: 1);
    ``bound``, ``limit``: see :attr:`bound` and :func:`safe_bound`;
    ``reach``, ``normalized``: how far an update moves a weight per unit of
    ``step``, times an entry of the row unless the rule sees normalized rows
    (the rule's ``Rule.reach`` and ``Rule.normalized``); ``counts``: ALMA's
    updates of every row over the state's life, which its passes read and
    add to.

    The stream reads the rows it is given and nothing else: the caller has
    checked them (C-ordered values of the state's dtype, int32 CSR indices
    in canonical form, finite values, the state's number of features).
    """

    cdef object _arrays
    cdef object _order_array
    cdef object _updates_array
    cdef bint single
    # The structs of the passes (see _epoch_pass and _epoch_scaled), filled
    # when the stream is made; a pass sets its rows, their number and the
    # intercept rate of their kind.
    cdef Visits v
    cdef Rule r
    cdef Weights w
    cdef ScaledRows sc
    cdef double* counts
    cdef int* y_class
    cdef double* step
    cdef Py_ssize_t n_rows, n_features, n_order, n_classes
    cdef bint normalized
    cdef double sparse_intercept_rate, reach
    cdef public double bound
    cdef readonly double limit

    def __init__(self, tuple weights, tuple table, tuple rule, double bound,
                 double limit, double reach=1.0, bint normalized=False,
                 counts=None):
        coef, intercept, coef_sum, intercept_sum, visits = weights
        cdef int code = rule[0]
        cdef bint average = rule[5]
        self.n_rows, self.n_features = coef.shape[0], coef.shape[1]
        self.n_classes = table[0].shape[0] - 1
        if (intercept.shape[0] != self.n_rows
                or rule[1].shape[0] != self.n_rows
                or rule[2].shape[0] != self.n_rows
                or visits.shape[0] != self.n_rows
                or average and (coef_sum.shape[0] != self.n_rows
                                or coef_sum.shape[1] != self.n_features
                                or intercept_sum.shape[0] != self.n_rows)):
            raise ValueError("Stream: the arrays of the state do not match.")
        if code == RULE_ROMMA or code == RULE_AROMMA:
            # Their updates have no bound in terms of x: their passes are
            # always checked, never streamed.
            raise ValueError("Stream: a rule the stream does not take.")
        if counts is None:
            counts = np.zeros(self.n_rows)
        elif counts.shape[0] != self.n_rows:
            raise ValueError("Stream: the arrays of the state do not match.")
        active = np.ones(self.n_rows, dtype=np.uint8)
        norm = np.zeros(self.n_rows)
        losses = np.zeros(self.n_rows)
        updates = np.zeros(self.n_rows, dtype=np.int64)
        # Scratch of the Crammer-Singer rules (one score per row).
        scores = np.zeros(max(self.n_rows, 2))
        state = (norm, coef_sum, intercept_sum, visits, updates, losses, scores)
        # Scratch of the scaled walk (ALMA): scales, their sums over the
        # visits, and unused penalty sums.
        wscale = np.ones(self.n_rows)
        scaled_visits = np.zeros(self.n_rows)
        l1_total = np.zeros(self.n_rows)
        l1_applied = np.zeros((1, 1))
        cdef double[::1] co = counts
        cdef double[::1] ws = wscale
        cdef double[::1] sv = scaled_visits
        cdef double[::1] lt = l1_total
        cdef double[:, ::1] la = l1_applied
        self._grow(256)
        self.single = coef.dtype == np.float32
        if self.single:
            _pass_structs[float](self._order_array, table, coef, intercept,
                                 active, rule, state, &self.v, &self.r, &self.w)
        else:
            _pass_structs[double](self._order_array, table, coef, intercept,
                                  active, rule, state, &self.v, &self.r, &self.w)
        self.sparse_intercept_rate = self.r.intercept_rate
        self.counts = &co[0]
        self.sc.n_rows = self.n_rows
        self.sc.counts = &co[0]
        self.sc.power = 2.0
        self.sc.dual = &la[0, 0]
        self.sc.dual_row = &la[0, 0]
        self.sc.decay = 1.0
        self.sc.l1_step = 0.0
        self.sc.l1_total = &lt[0]
        self.sc.l1_applied = &la[0, 0]
        self.sc.wscale = &ws[0]
        self.sc.scaled_visits = &sv[0]
        self.bound, self.limit = bound, limit
        self.reach, self.normalized = reach, normalized
        # Keep every array alive as long as the pointers are.
        self._arrays = (weights, table, rule, active, state, counts, wscale,
                        scaled_visits, l1_total, l1_applied)
        self._updates_array = updates
        self.refresh_norms()

    def _grow(self, Py_ssize_t n):
        """Room for the order, classes and steps of n rows."""
        arrays = (np.arange(n, dtype=np.int32), np.zeros(n, dtype=np.int32),
                  np.zeros(n))
        cdef int[::1] od = arrays[0]
        cdef int[::1] yc = arrays[1]
        cdef double[::1] st = arrays[2]
        self.y_class, self.step = &yc[0], &st[0]
        self.v.order, self.v.y_class, self.v.step = &od[0], &yc[0], &st[0]
        self.n_order = n
        self._order_array = arrays

    def refresh_norms(self):
        """Compute the norms of the margin rule anew from the weights (after
        the caller changed weights in place, e.g. started a row anew)."""
        if self.r.code == RULE_MARGIN:
            with nogil:
                self._norms()

    cdef void _norms(self) noexcept nogil:
        """``||[w_k; b_k]||`` of every row, from the weights."""
        cdef Py_ssize_t k, j, d = self.n_features
        cdef double s
        cdef const float* coef32 = <const float*> self.w.coef
        cdef const double* coef64 = <const double*> self.w.coef
        cdef const float* intercept32 = <const float*> self.w.intercept
        cdef const double* intercept64 = <const double*> self.w.intercept
        for k in range(self.n_rows):
            s = 0.0
            if self.single:
                for j in range(d):
                    s += <double>coef32[k * d + j] * coef32[k * d + j]
                if self.r.fit_intercept:
                    s += <double>intercept32[k] * intercept32[k]
            else:
                for j in range(d):
                    s += coef64[k * d + j] * coef64[k * d + j]
                if self.r.fit_intercept:
                    s += intercept64[k] * intercept64[k]
            self.w.norm[k] = sqrt(s)

    @property
    def updates(self):
        """The updates of every row in the last pass (a view, overwritten by
        the next pass)."""
        return self._updates_array

    cdef long long _pass(self, const void* X, Py_ssize_t n,
                         const int* indices, const int* indptr) noexcept nogil:
        """The pass over n dense rows at X (the state's dtype), or n CSR rows
        of values X, ``indices`` and ``indptr`` (``indptr`` not NULL), of
        the classes and steps in ``self.y_class`` and ``self.step``; the
        total of the updates, or -1, touching nothing, when the pass is not
        provably free of overflow."""
        cdef Py_ssize_t t, k, d = self.n_features
        cdef Py_ssize_t first = 0, last = n * d
        cdef double largest = 0.0, value, total_step = 0.0, after
        cdef long long total = 0
        cdef const double* p64 = <const double*> X
        cdef const float* p32 = <const float*> X
        cdef bint sparse = indptr != NULL
        cdef XRows rows
        if n == 0 or d == 0:
            return -1
        if sparse:
            first, last = indptr[0], indptr[n]
        # The largest magnitude of the rows (NaN counts as infinite).
        if self.single:
            for t in range(first, last):
                value = fabs(p32[t])
                if not value <= largest:
                    largest = value if value == value else INFINITY
        else:
            for t in range(first, last):
                value = fabs(p64[t])
                if not value <= largest:
                    largest = value if value == value else INFINITY
        if not largest < INFINITY:
            return -1
        if self.r.fit_intercept and largest < 1.0:
            largest = 1.0
        for t in range(n):
            total_step = total_step + self.step[t]
        # An update moves a weight by at most ``reach * step`` times an
        # entry of the row (of the normalized row, at most 1, for ALMA).
        if self.normalized:
            after = self.bound + self.reach * total_step
            if not (d + 1.0) * largest * largest < self.limit:
                return -1
        else:
            after = self.bound + self.reach * largest * total_step
        if not _safe(after, largest, d, self.limit):
            return -1
        for k in range(self.n_rows):
            self.w.updates[k] = 0
        rows.values = X
        rows.indices = indices
        rows.indptr = indptr
        rows.n_features = d
        rows.sparse = sparse
        self.v.n_visits = n
        self.r.intercept_rate = self.sparse_intercept_rate if sparse else 1.0
        if self.r.code == RULE_ALMA:
            # The scaled walk: norms exact on entry, scales of 1.
            self._norms()
            for k in range(self.n_rows):
                self.sc.wscale[k] = 1.0
                self.sc.scaled_visits[k] = self.w.visits[k]
            if self.single:
                _epoch_scaled(p32, &rows, &self.v, &self.r, &self.w, &self.sc)
            else:
                _epoch_scaled(p64, &rows, &self.v, &self.r, &self.w, &self.sc)
            for k in range(self.n_rows):
                self.counts[k] += self.w.updates[k]
        elif self.single:
            _epoch_pass(p32, &rows, &self.v, &self.r, &self.w)
        else:
            _epoch_pass(p64, &rows, &self.v, &self.r, &self.w)
        for k in range(self.n_rows):
            total += self.w.updates[k]
        self.bound = after
        return total

    cdef long long _run(self, const void* X, Py_ssize_t n, const int* indices,
                        const int* indptr, Py_ssize_t n_values) noexcept:
        """:meth:`_pass`, without the GIL when it has ``n_values`` values
        of rows to read for many weight rows: a one-row pass is shorter
        than letting the GIL go and taking it back."""
        cdef long long total
        if n_values * self.n_rows < 65536:
            return self._pass(X, n, indices, indptr)
        with nogil:
            total = self._pass(X, n, indices, indptr)
        return total

    cdef long long _rows(self, values, indices, indptr, Py_ssize_t n) except -2:
        """The pass over the n rows of ``values`` (dense: the rows; CSR: the
        data, with ``indices`` and ``indptr``), classes and steps set."""
        cdef Py_ssize_t length, n_indices, n_indptr
        cdef const void* start = _buffer(values, &length,
                                         4 if self.single else 8)
        cdef const int* idx = NULL
        cdef const int* ptr = NULL
        if indptr is None:
            if length != n * self.n_features:
                raise ValueError("Stream: the rows do not match the state.")
            return self._run(start, n, NULL, NULL, length)
        idx = <const int*> _buffer(indices, &n_indices, 4)
        ptr = <const int*> _buffer(indptr, &n_indptr, 4)
        if (n_indptr != n + 1 or ptr[0] < 0 or ptr[n] < ptr[0]
                or ptr[n] > length or ptr[n] > n_indices):
            raise ValueError("Stream: the CSR arrays do not match.")
        return self._run(start, n, idx, ptr, ptr[n] - ptr[0])

    def learn(self, values, indices, indptr, list codes, double eta):
        """One pass over the rows of a call whose labels are the class
        indices ``codes`` (every update of size ``eta``): ``values`` are the
        dense rows, or the data of CSR rows with ``indices`` and ``indptr``
        (None for dense rows).  Returns the total of the updates (the
        updates of every row in :attr:`updates`), or -1, touching nothing,
        when the pass is not provably free of overflow."""
        cdef Py_ssize_t t, n = len(codes)
        cdef int c
        if n == 0:
            return -1
        if n > self.n_order:
            self._grow(n)
        for t in range(n):
            c = codes[t]
            if not 0 <= c < self.n_classes:
                raise ValueError("Stream: a class index out of range.")
            self.y_class[t] = c
            self.step[t] = eta
        return self._rows(values, indices, indptr, n)

    def run(self, values, indices, indptr, const int[::1] y_class,
            const double[::1] step):
        """:meth:`learn` with a class index and a step per row (arrays).
        Returns the updates of every row (a new array), or None, touching
        nothing, when the pass is not provably free of overflow."""
        cdef Py_ssize_t t, n = y_class.shape[0]
        if step.shape[0] != n or n == 0:
            raise ValueError("Stream.run: y_class and step do not match.")
        if n > self.n_order:
            self._grow(n)
        for t in range(n):
            if not 0 <= y_class[t] < self.n_classes:
                raise ValueError("Stream: a class index out of range.")
            self.y_class[t] = y_class[t]
            self.step[t] = step[t]
        if self._rows(values, indices, indptr, n) < 0:
            return None
        return self._updates_array.copy()
