# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The budgeted walk of :class:`~sklearn_perceptrons.KernelPerceptron`.

With a budget of B support vectors, a visit computes the scores of its
sample from the support vectors themselves (B kernel values), so that an
epoch costs O(n_samples * B * n_features) and no array of per-sample scores
is kept: ``fit`` on a million rows is a few passes over X.  A fresh
``fit`` whose budget is a sizeable part of the rows keeps a score cache
instead (see :func:`cache_applies`): the kernel columns of the support
vectors over the training rows and the scores of every row, so that a visit
reads its scores, O(n_classes), and only an update costs O(n_samples);
within ``cache_size``, every training row's column once computed, so that a
row that enters the support set again copies it (:func:`store_applies`).  The compiled
walk (``_kernel_budget_fast``) owns the visits and the removals; this module
owns the state between calls, its conversion to and from a
:class:`~sklearn_perceptrons._kernel.dual.DualState`, the epochs, the
stopping rule and the progress messages; :func:`fit` and
:func:`partial_fit` return a :class:`~sklearn_perceptrons._kernel.dual.WalkResult`
for the estimator to apply.  It serves every kernel: the built-in ones
are computed from the support vectors' features; with "precomputed" the
walk reads the kernel value of a visited row and a support vector from the
Gram matrix (the entry of the support vector's training row); a callable
kernel is called on blocks of rows (the support vectors and the next rows
to visit) and the walk reads the block's Gram matrix as a precomputed one.
"""

import numpy as np
import scipy.sparse as sp

from .._core.cpu import select_build
from .._core.tables import one_vs_all_table
from .._core.training import StoppingRule, train
from .dual import DualState, WalkResult
from .kernels import (
    KERNEL_PRECOMPUTED,
    STRATEGY_CODES,
    prepare_rows,
    stack_rows,
    take_rows,
    view,
)

_kernel_budget_fast = select_build(f"{__package__}._kernel_budget_fast")

_PROJECTION = STRATEGY_CODES["projection"]
# The walk's codes (read from the compiled module: the same in every build).
_STATUS_DONE = _kernel_budget_fast.STATUS_DONE
_STATUS_GROW = _kernel_budget_fast.STATUS_GROW
_C_N_SV = _kernel_budget_fast.C_N_SV
_C_CLOCK = _kernel_budget_fast.C_CLOCK
_C_MAX_SV = _kernel_budget_fast.C_MAX_SV
_C_POOL_END = _kernel_budget_fast.C_POOL_END
_C_POOL_LIVE = _kernel_budget_fast.C_POOL_LIVE
_N_COUNTERS = _kernel_budget_fast.N_COUNTERS
# Neighbours of a local projection: those that carry a vector removed by
# "local_projection" ...
NEIGHBOURS = 8
# ... and those that carry the share of the average of a vector removed by
# "forgetron", "random" or "oldest": these remove vectors of any weight, and
# an average spans more of the past than an iterate, so a wider span keeps
# more of it, at O(M**2 n_features + M**3) per removal.
AVERAGE_NEIGHBOURS = 32
# Ridge added to the diagonal of the kept set's Gram matrix before it is
# inverted: an rbf Gram matrix of a few hundred points is singular to
# working precision, and the ridge bounds the inverse's entries by
# 1 / ridge.  Relative to K'(x, x) >= 1 it changes a projection by about
# the ridge.
RIDGE = 1e-3
# Visits per call of the compiled walk: between calls Python may print
# progress (``verbose``; a chunk takes a fraction of a second even on a
# loaded machine, so the lines stay less than 10 s apart).
_CHUNK = 1 << 15
# Training rows on which ``fit`` (with ``tol``) checks the models of every
# epoch, to return the best one: enough to see a change of accuracy of 0.01
# on noisy data, cheap beside an epoch (CHECK_ROWS * B kernel values).
CHECK_ROWS = 2000
# Models checked per epoch at most (at its quarters): a budgeted iterate
# swings within an epoch, and a finer check finds a better one at a cost of
# at most CHECKS_PER_EPOCH * CHECK_ROWS * B kernel values per epoch; short
# epochs get fewer (see checks_per_epoch).
CHECKS_PER_EPOCH = 4
# The walk's code of a kernel read from a Gram matrix, that of
# "precomputed", also used for a callable's blocks.
_PAIRWISE = KERNEL_PRECOMPUTED
# A budgeted fit reads its kernel values from the training Gram matrix
# (when it fits in cache_size) if there are at most this many rows per
# slot of the budget: computing the n**2 values once then costs about as
# much as GRAM_ROWS_PER_SLOT epochs of visits computing B values each, and
# every epoch after it reads B values per visit instead of computing them.
GRAM_ROWS_PER_SLOT = 8
# ... and if its rows have at least this many (stored) values: a kernel value
# computed from rows of d values costs O(d), one read from the Gram matrix a
# cache miss (the matrix is larger than the cache), which is cheaper only
# for long rows.
GRAM_MIN_FEATURES = 128
# Rows visited per block of a callable kernel (at least the budget): the
# callable computes the (B + block)**2 kernel values among the support
# vectors and the block, at most (B + block)**2 / block <= 4 B per visit.
PAIRWISE_BLOCK = 1024
# CSR rows keep the support vectors in the dense feature-major buffer (a
# visit then runs vectorized loops over them) when the rows have at least
# one stored value in DENSE_STORE_RATIO features: its memory, O(B *
# n_features), and a removal, O(B * n_features), are then within that
# factor of O(B * nnz); wider rows take the CSR store, O(B * nnz) whatever
# the number of features.  Both stores fit the same model.
DENSE_STORE_RATIO = 16
# A fresh ``fit`` keeps the score cache (see :func:`cache_applies`) when
# there are at most this many rows per slot of the budget: a visit then
# reads its scores, O(K), where the walk without it computes B kernel
# values and B * K products, and a new support vector costs a kernel
# column, O(n * n_features), and a removal O(n * K) per coefficient it
# changes.  With n <= CACHE_ROWS_PER_SLOT * B the columns an epoch computes
# (one per new vector) cost at most CACHE_ROWS_PER_SLOT times the kernel
# values of an epoch without the cache, and far less once the mistakes
# thin out.
CACHE_ROWS_PER_SLOT = 4
# ... and at most SMALL_CACHE_ROWS_PER_SLOT rows per slot when the columns,
# n * B float64 values, take at most SMALL_CACHE_BYTES: an update's O(n)
# sums then stay within the processor's caches, and the walk without the
# cache would compute B kernel values at every visit.
SMALL_CACHE_ROWS_PER_SLOT = 8
SMALL_CACHE_BYTES = 4 * 2**20
# Strategies the score cache serves: their removals change the
# coefficients of a few vectors (the removed one and its neighbours);
# "projection" and "forgetron" change every vector's.
_CACHE_STRATEGIES = frozenset(
    STRATEGY_CODES[name] for name in ("local_projection", "random", "oldest"))


def pool_size(slots, rows):
    """The first pool of the CSR store for ``slots`` support vectors taken
    from the CSR ``rows``: a full set of runs of twice the rows' mean
    length, and the longest row.  The pool is compacted when its end is
    reached, so it grows only if the runs themselves fill it."""
    lengths = np.diff(rows.indptr)
    longest = int(lengths.max()) if lengths.shape[0] else 0
    mean = rows.nnz / max(rows.shape[0], 1)
    return int(2 * slots * np.ceil(mean)) + longest + 1


def neighbours(strategy):
    """The neighbours of the local projections of a strategy (by code)."""
    return (AVERAGE_NEIGHBOURS if strategy in (
        STRATEGY_CODES["forgetron"], STRATEGY_CODES["random"],
        STRATEGY_CODES["oldest"]) else NEIGHBOURS)


def applies(estimator, kernel, n_possible=None):
    """Whether a fit or ``partial_fit`` call takes the budgeted walk: a
    budget and (``fit``) more rows than the budget (a budget that cannot
    bind changes nothing, and the unbudgeted walk is faster)."""
    if estimator.budget is None:
        return False
    return n_possible is None or n_possible > estimator.budget


def gram_applies(estimator, kernel, X):
    """Whether a budgeted ``fit`` on X reads its kernel values from the
    training Gram matrix (see :func:`fit`): a built-in kernel, rows of at
    least ``GRAM_MIN_FEATURES`` values (stored values for CSR), a Gram
    matrix of float64 that fits in ``cache_size``, and a budget of at least
    ``n / GRAM_ROWS_PER_SLOT``."""
    n = X.shape[0]
    per_row = X.nnz / max(n, 1) if sp.issparse(X) else X.shape[1]
    return (kernel.code < _PAIRWISE
            and per_row >= GRAM_MIN_FEATURES
            and 8.0 * n * n <= float(estimator.cache_size) * 2**20
            and n <= GRAM_ROWS_PER_SLOT * estimator.budget)


def cache_applies(estimator, kernel, X, n_rows):
    """Whether a fresh budgeted ``fit`` on X keeps the score cache: the
    kernel columns of the B support vectors over the n training rows and
    the scores of every row (``n * (B + K)`` float64 values, within
    ``cache_size``), for a built-in kernel, a strategy of
    ``_CACHE_STRATEGIES`` and ``n <= CACHE_ROWS_PER_SLOT * B``, or ``n <=
    SMALL_CACHE_ROWS_PER_SLOT * B`` with columns of at most
    ``SMALL_CACHE_BYTES``.  The walk visits the same rows and makes the
    same updates either way; the cached scores are sums kept up to date,
    equal to the scores computed afresh up to rounding."""
    n, B = X.shape[0], int(estimator.budget)
    rows_per_slot = (SMALL_CACHE_ROWS_PER_SLOT if 8.0 * n * B
                     <= SMALL_CACHE_BYTES else CACHE_ROWS_PER_SLOT)
    return (kernel.code < _PAIRWISE
            and STRATEGY_CODES[estimator.budget_strategy] in _CACHE_STRATEGIES
            and n <= rows_per_slot * B
            and 8.0 * n * (B + n_rows)
            <= float(estimator.cache_size) * 2**20)


def store_applies(estimator, X, n_rows):
    """Whether a fit with the score cache also keeps the kernel column of
    every training row it computes (``n * n`` float64 values, with the
    cache's ``n * (B + K)`` within ``cache_size``): a sample that enters the
    support set again, after a removal, then copies its column, O(n),
    instead of computing it, O(n * n_features)."""
    n, B = X.shape[0], int(estimator.budget)
    return 8.0 * n * (n + B + n_rows) <= float(estimator.cache_size) * 2**20


class _Pairwise:
    """Kernel values of a "precomputed" or callable kernel between rows of
    Z (the Gram matrix itself, or the rows the callable is called on), with
    ``add`` (the intercept's constant) as the walk adds it.  ``features``:
    Z is the Gram matrix of these training rows (a built-in kernel whose
    values ``fit`` computed once), and the support vectors are their rows."""

    def __init__(self, kernel, Z, add, features=None):
        self.kernel, self.Z, self.add = kernel, Z, float(add)
        self.features = features
        self.precomputed = kernel.code == _PAIRWISE or features is not None

    def raw(self, a, b):
        """K(Z_a, Z_b) without ``add``, float64, C-ordered."""
        if self.precomputed:
            return np.ascontiguousarray(self.Z[np.ix_(a, b)], dtype=np.float64)
        A = take_rows(self.Z, a)
        # One array for both sides when they are the same rows, as k(X, X).
        return np.ascontiguousarray(self.kernel.call(
            A, A if b is a else take_rows(self.Z, b)))

    def pairs(self, a, b):
        return self.raw(a, b) + self.add


class _BudgetState:
    """The support set of a budgeted walk, in slots ``0 .. n_sv - 1``.

    The features of the support vectors, in the dtype of X: for dense X,
    ``sv`` (n_features, B), feature-major; for CSR X (``sparse_store``),
    a pool of stored values (``pool``, ``pool_index``) holding a run per
    slot (``sv_start``, ``sv_len``), O(B * nnz) whatever the number of
    features, grown when the runs fill it (see ``_kernel_budget_fast``).
    ``alpha``/``asum`` (B, K) the coefficients and Daume's sums; ``P`` the
    inverse of the support vectors' Gram matrix plus ``RIDGE`` (strategy
    "projection" only); ``sv_row`` the index of each support vector in the
    current training data (-1 when it is not one of its rows).  ``rows``:
    the CSR rows the walk will visit (the pool is sized for their stored
    values), or None for dense rows.
    """

    def __init__(self, estimator, kernel, n_features, n_rows, dtype, *,
                 step_by_class=False, pairwise=None, capacity=None, rows=None,
                 cache_rows=None, store_columns=False):
        B = int(estimator.budget)
        self.B, self.K = B, n_rows
        # Slots: the budget, or ``capacity`` when fewer vectors can be held
        # (a call adds at most one per visit): the arrays are made for the
        # vectors that can arrive, not for a budget that cannot bind (10**6
        # slots of a stream that holds 100).  The walk reads the slots as its
        # budget; it never fills them, so it never removes a vector.
        slots = B if capacity is None else max(1, min(B, int(capacity)))
        self.strategy = STRATEGY_CODES[estimator.budget_strategy]
        self.average = bool(estimator.average)
        # ``pairwise``: the kernel values come from a Gram matrix (``sv_row``
        # are rows of ``pairwise.Z``); no features are kept.
        self.pairwise = pairwise
        if pairwise is not None:
            if not pairwise.precomputed:
                dtype = np.float64
            n_features = pairwise.Z.shape[0] if pairwise.precomputed else 0
        # The walk's parameters (the compiled ``Params``).
        self.params = dict(
            kind=_PAIRWISE if pairwise is not None else kernel.code,
            degree=int(kernel.degree), gamma=kernel.gamma, coef0=kernel.coef0,
            add=float(estimator.fit_intercept),
            threshold=float(estimator.threshold), ridge=RIDGE,
            strategy=self.strategy, average=self.average, K=n_rows, B=slots,
            M=neighbours(self.strategy), step_by_class=bool(step_by_class),
        )
        self.n_features = n_features
        self.sparse_store = pairwise is None and rows is not None and (
            n_features > DENSE_STORE_RATIO * rows.nnz / max(rows.shape[0], 1))
        if self.sparse_store:
            lengths = np.diff(rows.indptr)
            longest = int(lengths.max()) if lengths.shape[0] else 0
            self._make_pool(pool_size(slots, rows), slots, dtype)
            # The hash table of a visited row (see _kernel_budget_fast).
            size = 16
            while size < 4 * longest:
                size *= 2
            self.table_keys = np.zeros(size, dtype=np.int32)
            self.table_values = np.zeros(size)
            self._features = ("pool", "pool_index", "sv_start", "sv_len")
        else:
            # Feature-major: the compiled loops run over support vectors.
            n_kept = 1 if pairwise is not None else max(n_features, 1)
            self.sv = np.zeros((n_kept, slots), dtype=dtype)
            self.col = np.zeros(n_kept, dtype=dtype)
            self._features = ("sv",)
        self.kv_buffer = np.zeros(slots)
        self.sv_norm = np.zeros(slots)
        self.sv_self = np.zeros(slots)
        self.sv_row = np.full(slots, -1, dtype=np.int64)
        self.sv_class = np.zeros(slots, dtype=np.int32)
        self.sv_time = np.zeros(slots, dtype=np.int64)
        self.sv_entry = np.zeros(slots, dtype=np.int64)
        self.alpha = np.zeros((slots, n_rows))
        self.asum = np.zeros((slots, n_rows))
        projection = self.strategy == _PROJECTION
        self.P = np.zeros((slots, slots) if projection else (1, 1))
        self.visits = np.zeros(n_rows)
        self.forget = np.zeros((2, n_rows))
        self.counters = np.zeros(_N_COUNTERS, dtype=np.int64)
        self.rng = np.zeros(1, dtype=np.uint64)
        M = neighbours(self.strategy)
        self.work = np.zeros(3 * slots + 4 * n_rows + M * M + M)
        self.iwork = np.zeros(n_rows + M, dtype=np.int32)
        # The score cache of ``cache_rows`` training rows (see
        # ``cache_applies``; the CSR store and a Gram matrix go without).
        self.cache_kc = self.cache_store = None
        if (cache_rows is not None and not self.sparse_store
                and pairwise is None
                and self.strategy in _CACHE_STRATEGIES):
            self.cache_kc = np.zeros((slots, cache_rows))
            self.cache_sc = np.zeros((n_rows, cache_rows))
            self.cache_work = np.zeros(cache_rows + n_rows)
            if store_columns:
                self.cache_store = np.empty((cache_rows, cache_rows))
                self.cache_store_done = np.zeros(cache_rows, dtype=np.uint8)
        self.walker = _kernel_budget_fast.BudgetWalker(self.params, self)

    def _make_pool(self, size, slots, dtype):
        self.pool = np.zeros(size, dtype=dtype)
        self.pool_index = np.zeros(size, dtype=np.int32)
        self.sv_start = np.zeros(slots, dtype=np.int64)
        self.sv_len = np.zeros(slots, dtype=np.int32)
        self.pool_order = np.zeros(slots, dtype=np.int64)

    def grow_pool(self, needed=0):
        """A pool of at least twice the size (and ``needed`` values), the
        runs kept where they are; the walker is made anew for it."""
        end = int(self.counters[_C_POOL_END])
        size = max(2 * self.pool.shape[0], end + needed + 1)
        pool, index = self.pool, self.pool_index
        self.pool = np.zeros(size, dtype=pool.dtype)
        self.pool_index = np.zeros(size, dtype=np.int32)
        self.pool[:end] = pool[:end]
        self.pool_index[:end] = index[:end]
        self.walker = _kernel_budget_fast.BudgetWalker(self.params, self)

    @property
    def n_sv(self):
        return int(self.counters[_C_N_SV])

    def load(self, state, sv_row, *, keep_average):
        """Start from the iterate of a :class:`DualState`, its support
        vectors at their positions in the support list (``sv_order``)."""
        m = state.sv.shape[0]
        state.restore_counters(self.counters, _C_CLOCK, self.forget, self.rng,
                               self.visits, keep_average=keep_average)
        if m == 0:
            return
        if m > self.B:
            raise ValueError(
                f"The model holds {m} support vectors, more than budget="
                f"{self.B}; lower them with a fresh fit."
            )
        slots = np.asarray(state.sv_order, dtype=np.intp)
        if self.sparse_store:
            # The runs in the order of ``state.sv``, at the pool's front.
            sv = prepare_rows(sp.csr_matrix(state.sv, dtype=self.pool.dtype))
            nnz = sv.nnz
            if nnz + 1 > self.pool.shape[0]:
                self.grow_pool(nnz)
            self.pool[:nnz] = sv.data
            self.pool_index[:nnz] = sv.indices
            self.sv_start[slots] = sv.indptr[:-1]
            self.sv_len[slots] = np.diff(sv.indptr)
            self.counters[_C_POOL_END] = self.counters[_C_POOL_LIVE] = nnz
        elif self.pairwise is None:
            sv = state.sv.toarray() if sp.issparse(state.sv) else state.sv
            self.sv[: sv.shape[1], slots] = sv.T
        self.alpha[slots] = state.alpha
        if self.average and keep_average:
            self.asum[slots] = state.alpha_sum
        self.sv_row[slots] = sv_row
        self.sv_class[slots] = state.sv_class
        self.sv_time[slots] = state.sv_time
        # Entry order: the order of ``state.sv``, before any new vector.
        self.sv_entry[slots] = np.arange(m) - m
        self.counters[_C_N_SV] = m
        self.counters[_C_MAX_SV] = m
        if self.pairwise is not None:
            self.sv_self[:m] = np.diagonal(self.gram()).copy()
            return
        self.walker.stats(m)

    def gram(self):
        n = self.n_sv
        if self.pairwise is not None:
            rows = self.sv_row[:n]
            return self.pairwise.pairs(rows, rows)
        out = np.zeros((max(n, 1), max(n, 1)))
        self.walker.gram(n, out)
        return out[:n, :n]

    def refresh_inverse(self):
        """Recompute P from the support vectors (the rank-one updates of the
        walk accumulate rounding; an epoch starts from a fresh inverse)."""
        if self.strategy != _PROJECTION or self.n_sv == 0:
            return
        n = self.n_sv
        G = np.ascontiguousarray(self.gram())
        _kernel_budget_fast.ridge_inverse(G, n, RIDGE, self.P)

    def weight_norm(self):
        """||f|| in kernel space, over all rows."""
        n = self.n_sv
        if n == 0:
            return 0.0
        a = self.alpha[:n]
        return float(np.sqrt(max(np.sum(a * (self.gram() @ a)), 0.0)))

    def run(self, X, order, y_class, step, table, *, progress=None,
            checkpoints=(), checkpoint=None):
        """Visit the rows ``order`` of X; returns the updates per row.
        ``progress(t, updates)`` is called between chunks of visits, and
        ``checkpoint()`` after the visits ``order[:t]`` for every t of
        ``checkpoints`` (increasing, below ``len(order)``)."""
        blocks = self.pairwise is not None and not self.pairwise.precomputed
        # A callable's kernel values come in blocks (see _walk_blocks).
        rows = None if blocks else view(X)
        updates = np.zeros(self.K, dtype=np.int64)
        n = order.shape[0]
        stops = [c for c in checkpoints if 0 < c < n] + [n]
        t = 0
        while t < n:
            if t == stops[0]:
                stops.pop(0)
                checkpoint()
            end = min(stops[0], t + _CHUNK)
            if blocks:
                status, t = self._walk_blocks(order, t, end, y_class, step,
                                              table, updates)
            else:
                status, t = self._walk(rows, order, t, end, y_class, step,
                                       table, updates)
            if status == _STATUS_GROW:
                # The visit at t was not made: a larger pool, then on.
                self.grow_pool()
                continue
            if status != _STATUS_DONE:
                raise ValueError(
                    "The scores of the training samples became non-finite "
                    "(floating-point overflow). Scale the features or lower "
                    "gamma / degree, or the sample and class weights."
                )
            if progress is not None and t < n:
                progress(t, updates)
        return updates

    def _walk(self, rows, order, t, end, y_class, step, table, updates):
        return self.walker.walk(rows, order, t, end, y_class, step, table,
                                updates)

    def _walk_blocks(self, order, t, end, y_class, step, table, updates):
        """Visit ``order[t:end]`` with a callable kernel, in blocks: the
        callable gives the Gram matrix of the support vectors and the
        block's rows, which the walk reads as a precomputed one, its
        support vectors renamed to their rows in the block (and back)."""
        block = max(PAIRWISE_BLOCK, self.B)
        by_class = self.params["step_by_class"]
        while t < end:
            stop = min(end, t + block)
            n = self.n_sv
            rows, local = np.unique(
                np.concatenate([self.sv_row[:n], order[t:stop]]),
                return_inverse=True)
            G = self.pairwise.raw(rows, rows)
            self.sv_row[:n] = local[:n]
            status, reached = self._walk(
                view(G), np.ascontiguousarray(local[n:], dtype=np.int32), 0,
                stop - t,
                np.ascontiguousarray(y_class[rows]),
                step if by_class else np.ascontiguousarray(step[rows]),
                table, updates)
            self.sv_row[: self.n_sv] = rows[self.sv_row[: self.n_sv]]
            t += reached
            if status != _STATUS_DONE:
                return status, t
        return _STATUS_DONE, t

    def snapshot(self):
        return {name: getattr(self, name).copy()
                for name in self._features + _SNAPSHOT}

    def restore(self, snapshot):
        regrown = False
        for name, value in snapshot.items():
            current = getattr(self, name)
            if current.shape == value.shape:
                current[...] = value
            else:
                # The pool grew since the snapshot.
                setattr(self, name, value.copy())
                regrown = True
        if self.cache_kc is not None:
            # The cached scores are those of the iterate left: the walk
            # goes on without them.
            self.cache_kc = self.cache_store = None
            regrown = True
        if regrown:
            self.walker = _kernel_budget_fast.BudgetWalker(self.params, self)

    def _csr_rows(self, slots, n_features):
        """The support vectors of ``slots`` as CSR rows (from their runs;
        stored zeros dropped, as a dense row converted to CSR drops them)."""
        lengths = self.sv_len[slots].astype(np.int64)
        indptr = np.zeros(slots.shape[0] + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        # The position in the pool of every value, run after run.
        where = (np.repeat(self.sv_start[slots] - indptr[:-1], lengths)
                 + np.arange(indptr[-1]))
        sv = sp.csr_matrix((self.pool[where], self.pool_index[where], indptr),
                           shape=(slots.shape[0], n_features))
        sv.eliminate_zeros()
        return prepare_rows(sv)

    def result(self, X, *, by_row, n_ext=0):
        """The iterate as a :class:`DualState`, its support vectors sorted by
        training row (``by_row``: ``fit``) or by entry (``partial_fit``, where
        they are appended).  With a Gram matrix, ``sv_row`` are rows of
        ``pairwise.Z``, the training rows from ``n_ext`` on."""
        n = self.n_sv
        if by_row:
            slots = np.lexsort((self.sv_entry[:n], self.sv_row[:n]))
        else:
            slots = np.argsort(self.sv_entry[:n], kind="stable")
        if self.pairwise is not None:
            rows = self.sv_row[slots].astype(np.intp)
            source = self.pairwise.features
            sv = take_rows(self.pairwise.Z if source is None else source,
                           rows)
            sv_index = np.where(rows >= n_ext, rows - n_ext, -1)
        elif self.sparse_store:
            sv = self._csr_rows(slots, X.shape[1])
            sv_index = self.sv_row[slots].astype(np.intp)
        else:
            V = np.ascontiguousarray(self.sv[: X.shape[1], slots].T)
            sv = prepare_rows(sp.csr_matrix(V)) if sp.issparse(X) else V
            sv_index = self.sv_row[slots].astype(np.intp)
        return DualState(
            sv=sv, sv_class=self.sv_class[slots].copy(),
            sv_index=sv_index if by_row else np.full(n, -1, dtype=np.intp),
            alpha=self.alpha[slots].copy(),
            alpha_sum=self.asum[slots].copy(),
            visits=self.visits.copy(), sv_time=self.sv_time[slots].copy(),
            clock=int(self.counters[_C_CLOCK]), forget=self.forget.copy(),
            rng=int(self.rng[0]), sv_scores=None,
            sv_order=slots.astype(np.intp),
        )


# The arrays of a snapshot, beside the features (``_BudgetState._features``).
_SNAPSHOT = ("sv_norm", "sv_self", "sv_row", "sv_class", "sv_time",
             "sv_entry", "alpha", "asum", "P", "visits", "forget", "counters",
             "rng")


def _sample_rows(n, k, seed):
    """``k`` distinct rows of ``n``, sorted, by Floyd's algorithm: O(k)
    memory (a permutation of the rows would cost as much as a column of
    X)."""
    rs = np.random.RandomState(seed)
    draws = rs.randint(0, np.arange(n - k + 1, n + 1))
    chosen = set()
    for top, j in zip(range(n - k, n), draws.tolist()):
        chosen.add(j if j not in chosen else top)
    return np.array(sorted(chosen), dtype=np.intp)


class _ModelCheck:
    """Accuracy of the model of an epoch on a fixed sample of training rows
    (all of them when there are at most ``CHECK_ROWS``), drawn from the
    fit's seed so that a fit stays deterministic."""

    def __init__(self, X, y_class, n_classes, estimator, n_ext=0, *,
                 pairwise=False):
        n = X.shape[0] - n_ext
        rows = np.arange(n_ext, n_ext + n)
        if n > CHECK_ROWS:
            seed = estimator.random_state if isinstance(
                estimator.random_state, (int, np.integer)) else 0
            rows = _sample_rows(n, CHECK_ROWS, seed) + n_ext
        # A Gram matrix is read where it is (rows of Z); features are copied.
        self.rows = rows
        if pairwise:
            self.X = None
        else:
            self.X = X if rows.shape[0] == X.shape[0] else take_rows(X,
                                                                          rows)
        self.y = y_class[rows]
        self.binary = n_classes == 2
        self.average = estimator.average

    def accuracies(self, walk):
        """``[(average, accuracy), ...]`` of the walk's candidates: its
        average then its last iterate (with averaging), or the last iterate,
        scored as the walk scores a visit (from its support vectors in their
        slots).  The kernel values of the check rows are computed once for
        all candidates."""
        n, K = walk.n_sv, walk.K
        alpha = walk.alpha[:n]
        candidates = [False]
        coefs = [alpha]
        if self.average:
            candidates = [True, False]
            coefs = [alpha - walk.asum[:n] / np.maximum(walk.visits, 1.0), alpha]
        coef = np.hstack(coefs)
        if walk.cache_kc is not None:
            # The cached scores of the iterate, and those of the average
            # from the cached kernel columns: alpha - asum / visits.
            # (all rows, when they are all checked: no copy)
            every = self.rows.shape[0] == walk.cache_sc.shape[1]
            rows = slice(None) if every else self.rows
            S = walk.cache_sc[:, rows].T
            parts = [S]
            if self.average:
                columns = walk.cache_kc[:n, rows]
                parts = [S - (walk.asum[:n].T @ columns).T
                         / np.maximum(walk.visits, 1.0), S]
            scores = np.hstack(parts)
        elif walk.pairwise is not None and walk.pairwise.features is not None:
            # The training Gram matrix: whole rows, then the support
            # vectors' columns (two gathers NumPy makes fast, where a
            # gather of both at once is not).
            G = walk.pairwise.Z
            block = G if self.rows.shape[0] == G.shape[0] else G[self.rows]
            scores = (np.take(block, walk.sv_row[:n], axis=1)
                      + walk.pairwise.add) @ coef
        elif walk.pairwise is not None:
            scores = walk.pairwise.pairs(self.rows, walk.sv_row[:n]) @ coef
            if n == 0:
                scores = np.zeros((self.rows.shape[0], coef.shape[1]))
        else:
            scores = self._scores(walk, np.ascontiguousarray(coef.T))
        result = []
        for c, average in enumerate(candidates):
            part = scores[:, c * K:(c + 1) * K]
            if self.binary:
                predicted = (part[:, 0] > 0).astype(np.intp)
            else:
                predicted = part.argmax(axis=1)
            result.append((average, float(np.mean(predicted == self.y))))
        return result

    def _scores(self, walk, coef):
        """Scores of the check rows for the rows of ``coef`` (any number of
        candidates' rows, stacked)."""
        scores = np.empty((self.X.shape[0], coef.shape[0]))
        walk.walker.scores(view(self.X), coef, scores)
        return scores


class _BudgetTrainer:
    """The budgeted walk as a trainer of the epoch driver
    (:func:`sklearn_perceptrons._training.train`): one row (the rows of a
    multiclass problem stop together, on their total number of updates: a
    removal changes every row), progress within long epochs, and, with a
    ``check``, the model of the best epoch kept."""

    n_rows = 1
    reports_progress = True

    def __init__(self, walk, X, y_class, step, table, check):
        self.walk, self.X, self.y_class, self.step = walk, X, y_class, step
        self.table = table
        self.check = check
        self.best = None

    def run_epoch(self, order, active, progress=None):
        self.walk.refresh_inverse()
        n = order.shape[0]
        checkpoints = ([n * q // parts for q in range(1, parts)]
                       if (parts := checks_per_epoch(n, self.check)) else ())
        updates = self.walk.run(
            self.X, order, self.y_class, self.step, self.table,
            progress=progress,
            checkpoints=checkpoints, checkpoint=self.check_model)
        return np.array([updates.sum()], dtype=np.int64)

    def check_model(self):
        """Score the current model; keep it if it is the best so far (ties
        keep the earlier one).  With averaging the candidates are the average
        and the last iterate, the average first (it wins ties): the fit
        returns the iterate itself, as an average equal to it, when the
        carried average classifies the check rows worse.  Until the support
        set first fills the budget no vector has left it: the walk is the
        unbudgeted one, whose last model the fit returns as the unbudgeted
        fit does, so there is nothing to check."""
        if self.walk.counters[_C_MAX_SV] < self.walk.B:
            return
        for average, score in self.check.accuracies(self.walk):
            if self.best is None or score > self.best[0]:
                self.best = (score, self.walk.snapshot(), average)

    def weight_norm(self):
        return self.walk.weight_norm()

    def end_epoch(self, epoch, active, updates, stopper, val_score, last=False):
        if self.check is not None:
            self.check_model()
        return None

    def keep_best(self):
        if self.best is not None:
            self.walk.restore(self.best[1])
            if self.check.average and not self.best[2]:
                # Daume's sums at zero: the average is the iterate.
                self.walk.asum[...] = 0.0


def checks_per_epoch(n, check):
    """Checks of the model per epoch of ``n`` visits (the last at its end),
    0 without a check: ``CHECKS_PER_EPOCH``, fewer on short epochs, so that
    the check rows scored per epoch never outnumber the visits (a check
    costs as many kernel values per row as a visit)."""
    if check is None:
        return 0
    return int(min(CHECKS_PER_EPOCH, max(1, n // check.rows.shape[0])))


def fit(params, X, n_classes, y_class, sample_weight, class_step, kernel,
        rng, seed, start=None, *, callbacks=None, model=None):
    """``KernelPerceptron.fit`` with a budget: epochs of the budgeted walk
    through the epoch driver; returns a :class:`WalkResult`.

    ``params`` holds the estimator's parameters (those of
    :func:`~sklearn_perceptrons._kernel.dual.fit`, and ``random_state``
    for the rows of the model checks); ``sample_weight`` is None for
    unweighted samples (the walk then reads the step of each class);
    ``seed`` that of the "random" strategy; ``start`` None or
    ``(state, matched)``: the previous iterate (``warm_start``) and the
    rows of X its support vectors are (None when they are not rows of X).
    Rows of a multiclass problem stop together, on the rule applied to
    their total number of updates (a removal changes every row) against
    the total of their thresholds, ``tol * n_samples`` per row.  With
    ``tol`` (the stopping rule on), the model returned is the one, among
    those at the quarters and the end of every epoch from the first check
    after the support set has filled the budget, that classifies best a
    fixed sample of training rows: a late iterate of a budgeted walk is
    not always better than an earlier one.  A budget that never fills
    changes nothing: the fit returns its last model, as the unbudgeted
    walk does, without a check.  With averaging, the candidates
    at every check are the average and the iterate (which averaging does
    not change): a carried average can decay (see ``_BudgetTrainer``), and
    the averaged fit is then never worse on the check rows than the plain
    one.  ``callbacks`` and ``model`` as in
    :func:`~sklearn_perceptrons._kernel.dual.fit`.
    """
    n = X.shape[0]
    state, matched = start if start is not None else (None, None)
    n_rows = 1 if n_classes == 2 else n_classes
    y_class = np.ascontiguousarray(y_class, dtype=np.int32)
    # Without sample weights the walk reads the step of the sample's class:
    # no array of n steps.
    by_class = sample_weight is None
    step = np.ascontiguousarray(
        class_step if by_class else sample_weight * class_step[y_class],
        dtype=np.float64)
    pairwise, Z, n_ext = None, X, 0
    if kernel.code >= _PAIRWISE:
        if state is not None and matched is None:
            # A callable's support vectors from other data: rows of Z in
            # front of X, never visited.
            n_ext = state.sv.shape[0]
            Z = stack_rows(state.sv, X.astype(
                np.result_type(X.dtype, state.sv.dtype), copy=False))
            y_class = np.concatenate([state.sv_class, y_class]).astype(
                np.int32)
            if not by_class:
                step = np.concatenate([np.zeros(n_ext), step])
            matched = np.arange(n_ext)
        pairwise = _Pairwise(kernel, Z, params.fit_intercept)
    elif state is None and gram_applies(params, kernel, X):
        # The budget is a sizeable part of the rows: a visit would compute B
        # kernel values from the features, every epoch, where the Gram
        # matrix computed once lets it read them (the walk of "precomputed").
        Z = np.ascontiguousarray(kernel.matrix(X, X), dtype=np.float64)
        pairwise = _Pairwise(kernel, Z, params.fit_intercept, features=X)
    cache = (state is None and pairwise is None
             and cache_applies(params, kernel, X, n_rows))
    walk = _BudgetState(params, kernel, X.shape[1], n_rows, Z.dtype,
                        step_by_class=by_class, pairwise=pairwise,
                        rows=X if sp.issparse(X) else None,
                        cache_rows=n if cache else None,
                        store_columns=cache and store_applies(params, X, n_rows))
    if state is not None:
        rows = matched if matched is not None else np.full(
            state.sv.shape[0], -1)
        walk.load(state, rows, keep_average=False)
    walk.rng[0] = np.uint64(seed)
    check = _ModelCheck(Z, y_class, n_classes, params, n_ext,
                        pairwise=pairwise is not None) if (
        params.tol is not None) else None
    trainer = _BudgetTrainer(walk, Z, y_class, step,
                             one_vs_all_table(n_classes), check)
    # The rows' total of updates against the total of their thresholds
    # (tol * n each), as the unbudgeted walk's rows that stop together.
    stopper = StoppingRule(1, tol=params.tol,
                           n_iter_no_change=params.n_iter_no_change,
                           n_samples=n * n_rows, early_stopping=False)
    record = train(trainer, train_idx=np.arange(n_ext, n_ext + n,
                                                dtype=np.int32), rng=rng,
                   shuffle=params.shuffle, max_iter=params.max_iter,
                   stopper=stopper, verbose=params.verbose, norm="||f||",
                   callbacks=callbacks,
                   model=None if model is None else (
                       lambda trainer, stopper: model(
                           walk.result(X, by_row=True, n_ext=n_ext))))
    # The largest support set of the whole fit, not of the model kept.
    max_seen = int(walk.counters[_C_MAX_SV])
    trainer.keep_best()
    return WalkResult(walk.result(X, by_row=True, n_ext=n_ext), max_seen,
                      record=record)


def partial_fit(params, X, n_classes, y_class, step, kernel, state,
                inverse=None):
    """One pass of the budgeted walk over a batch, in its order, from the
    iterate ``state`` (its average continues); returns a
    :class:`WalkResult`.  ``inverse`` is the one the previous call returned
    (strategy "projection"): when it is that of this support set, a call
    on one row costs O(B^2), not an O(B^3) inversion."""
    n_rows = 1 if n_classes == 2 else n_classes
    m = state.sv.shape[0]
    pairwise, Z, n_ext, sv_rows = None, X, 0, np.full(m, -1)
    if kernel.code >= _PAIRWISE:
        # A callable: the support vectors are the first rows of Z, the batch
        # the next ones (only those are visited).
        n_ext, sv_rows = m, np.arange(m)
        Z = stack_rows(state.sv, X)
        y_class = np.concatenate([state.sv_class, y_class])
        step = np.concatenate([np.zeros(m), step])
        pairwise = _Pairwise(kernel, Z, params.fit_intercept)
    walk = _BudgetState(params, kernel, X.shape[1], n_rows, X.dtype,
                        pairwise=pairwise, capacity=m + X.shape[0],
                        rows=X if sp.issparse(X) else None)
    walk.load(state, sv_rows, keep_average=True)
    # The inverse Gram matrix left by the previous call is in the order of
    # the support vectors.
    if (walk.strategy == _PROJECTION and inverse is not None
            and inverse.shape == (m, m) and m > 0):
        slots = np.asarray(state.sv_order, dtype=np.intp)
        walk.P[np.ix_(slots, slots)] = inverse
    else:
        walk.refresh_inverse()
    updates = walk.run(
        Z, np.arange(n_ext, Z.shape[0], dtype=np.int32),
        np.ascontiguousarray(y_class, dtype=np.int32),
        np.ascontiguousarray(step, dtype=np.float64),
        one_vs_all_table(n_classes),
    )
    result = walk.result(X, by_row=False)
    if walk.strategy == _PROJECTION:
        inverse = walk.P[np.ix_(result.sv_order, result.sv_order)].copy()
    else:
        inverse = None
    return WalkResult(result, int(walk.counters[_C_MAX_SV]),
                      updates=int(updates.sum()), inverse=inverse)
