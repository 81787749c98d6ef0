# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The dual state of a kernel perceptron, and its unbudgeted walk.

:class:`DualState` is the iterate between calls (support vectors, dual
coefficients, Daume's sums, the budget strategies' clocks), in the form the
estimator keeps it.  :func:`fit` and :func:`partial_fit` run the compiled
walk (``_kernel_core.pxi``), which keeps every training sample's score up to
date, and return a :class:`WalkResult` for the estimator to apply; the
budgeted walk (``budget.py``) returns the same.
"""

import dataclasses
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

from .._core.progress import chunks
from .._core.training import StoppingRule, train
from . import kernels
from .kernels import (
    KERNEL_CALLABLE,
    KERNEL_PRECOMPUTED,
    MB,
    SINGLE_PRECISION,
    STRATEGY_CODES,
    dual_scores,
    raise_nonfinite_kernel,
    stack_rows,
    take_rows,
)


# The walk's codes (read from the compiled module: the same in every build).
_SCRATCH_LINES = kernels.kernel_fast.SCRATCH_LINES
_C_N_SV = kernels.kernel_fast.C_N_SV
_C_CLOCK = kernels.kernel_fast.C_CLOCK
_C_MAX_SV = kernels.kernel_fast.C_MAX_SV
_C_LINES_USED = kernels.kernel_fast.C_LINES_USED
_N_COUNTERS = kernels.kernel_fast.N_COUNTERS
_STATUS_DONE = kernels.kernel_fast.STATUS_DONE
_STATUS_NEED_COLUMN = kernels.kernel_fast.STATUS_NEED_COLUMN
_STATUS_NONFINITE_KERNEL = kernels.kernel_fast.STATUS_NONFINITE_KERNEL
_RULE_TABLE = kernels.kernel_fast.RULE_TABLE


@dataclasses.dataclass(eq=False)
class WalkResult:
    """What a walk returns, for the estimator to apply: the iterate
    (``state``), the largest support set between two visits, and the
    record of a ``fit`` (its epochs) or the updates of a ``partial_fit``
    pass; ``inverse``: the inverse Gram matrix the budgeted "projection"
    strategy hands to the next ``partial_fit`` call (in the order of
    ``state.sv``), else None."""

    state: object
    max_support_seen: int
    record: object = None
    updates: int = 0
    inverse: object = None


@dataclasses.dataclass(eq=False, kw_only=True)
class DualState:
    """Support vectors and dual coefficients of the current iterate.

    ``alpha`` is (n_SV, n_rows) (the transpose of ``dual_coef_``); with
    averaging, ``alpha_sum`` and ``visits`` hold Daume's sums so that the
    average is ``alpha - alpha_sum / visits``.  ``sv_index`` are the indices
    of the support vectors in the training set of the last ``fit`` (-1 for
    support vectors that are not rows of it), ``sv_time`` the time of their
    last update (the order of the "oldest" strategies), ``clock`` the number
    of updates so far, ``forget`` the Forgetron's damage and mistakes per row
    (shape (2, n_rows)), ``rng`` the generator state of the "random"
    strategy, ``sv_scores`` the scores of the support vectors (None when not
    tracked) and ``sv_order`` the order of the support vectors in the walk's
    list (the "random" strategy draws a position in it).
    """

    sv: object
    sv_class: object
    sv_index: object
    alpha: object
    alpha_sum: object
    visits: object
    sv_time: object
    clock: int
    forget: object
    rng: int
    sv_scores: object
    sv_order: object

    def restore_counters(self, counters, clock_index, forget, rng, visits, *,
                         keep_average):
        """Copy the clock, the Forgetron's state, the generator state and,
        with ``keep_average``, the visit counts into a walker's arrays."""
        counters[clock_index] = self.clock
        forget[:] = self.forget
        rng[0] = np.uint64(self.rng)
        if keep_average:
            visits[:] = self.visits

    @classmethod
    def empty(cls, X, n_rows, rng):
        """No support vector yet, in the format and dtype of X."""
        shape = (0, X.shape[1])
        sv = (sp.csr_matrix(shape, dtype=X.dtype) if sp.issparse(X)
              else np.empty(shape, dtype=X.dtype))
        return cls(
            sv=sv, sv_class=np.empty(0, dtype=np.int32),
            sv_index=np.empty(0, dtype=np.intp), alpha=np.empty((0, n_rows)),
            alpha_sum=np.empty((0, n_rows)), visits=np.zeros(n_rows),
            sv_time=np.empty(0, dtype=np.int64), clock=0,
            forget=np.zeros((2, n_rows)), rng=rng,
            sv_scores=np.empty((0, n_rows)), sv_order=np.empty(0, dtype=np.intp),
        )

    def model(self, average):
        """Dual coefficients (n_SV, n_rows) of the predictor: the average of
        the iterates over all visits, or the last iterate."""
        if not average:
            return self.alpha.copy()
        return self.alpha - self.alpha_sum / np.maximum(self.visits, 1.0)


class DualWalk:
    """The arrays of one fit (or one ``partial_fit`` call) of the compiled walk.

    Z is the matrix of all rows the walk knows: the support vectors carried
    over from earlier calls (rows ``< n_ext``), then the training rows.  The
    arrays are grouped as the compiled ``Walker`` reads them (``samples``,
    ``dual``, ``cache``) and updated in place by the walk.
    """

    def __init__(self, Z, y_class, step, table, n_rows, kernel, *, add,
                 threshold, average, budget, strategy, track_from, cache_size,
                 passes, rule=_RULE_TABLE):
        n_z = Z.shape[0]
        self.Z = Z
        self.kernel = kernel
        self.add = add
        self.track_from = track_from
        self.average = average
        self.znorm = kernel.norms(Z)
        rows_ptr, rows, signs = table
        self.y_class = np.ascontiguousarray(y_class, dtype=np.int32)
        self.samples = SimpleNamespace(
            y_class=self.y_class,
            step=np.ascontiguousarray(step, dtype=np.float64),
            rows_ptr=rows_ptr, rows=rows, signs=signs,
            threshold=float(threshold), add=float(add), rule=rule,
        )
        # (n_z, n_rows) in Fortran order: the walk reads its transpose, one
        # contiguous line of scores per sub-problem.
        self.scores = np.zeros((n_z, n_rows), order="F")
        self.alpha = np.zeros((n_z, n_rows))
        self.alpha_sum = np.zeros((n_z, n_rows) if average else (1, 1))
        self.visits = np.zeros(n_rows)
        self.in_support = np.zeros(n_z, dtype=np.uint8)
        self.sv_list = np.zeros(n_z, dtype=np.int32)
        self.last_time = np.zeros(n_z, dtype=np.int64)
        self.counters = np.zeros(_N_COUNTERS, dtype=np.int64)
        self.forget = np.zeros((2, n_rows))
        self.rng = np.zeros(1, dtype=np.uint64)
        # A budget of at least n_z is never reached.
        budget = -1 if budget is None else min(int(budget), n_z)
        self.dual = SimpleNamespace(
            scores=self.scores.T, alpha=self.alpha, average=average,
            alpha_sum=self.alpha_sum, visits=self.visits,
            in_support=self.in_support, sv_list=self.sv_list,
            sv_pos=np.full(n_z, -1, dtype=np.int32), last_time=self.last_time,
            counters=self.counters, budget=budget,
            strategy=STRATEGY_CODES[strategy], forget=self.forget, rng=self.rng,
        )
        self.cache = self._make_cache(cache_size, passes)
        self._compiled = None

    def _make_cache(self, cache_size, passes):
        n_z = self.Z.shape[0]
        n_track = n_z - self.track_from
        cache_bytes = float(cache_size) * MB
        # The exponential kernels keep their lines in single precision.
        self.single = self.kernel.code in SINGLE_PRECISION
        line_bytes = (4 if self.single else 8) * max(n_track, 1)
        if self.kernel.code == KERNEL_PRECOMPUTED:
            # Columns are read from the Gram matrix X itself.
            capacity = 0
        else:
            capacity = int(min(cache_bytes // line_bytes, n_z))
            if self.kernel.code == KERNEL_CALLABLE:
                # A visit may need two columns at once, both from the LRU lines.
                capacity = max(capacity, 2)
        # ``capacity`` LRU lines, then scratch lines; in single precision,
        # double lines where the exponent arguments of columns are computed.
        shape = (capacity + _SCRATCH_LINES, max(n_track, 1))
        cache = SimpleNamespace(
            lines=np.empty((_SCRATCH_LINES, shape[1]) if self.single
                           else shape),
            lines32=np.empty(shape, dtype=np.float32) if self.single else None,
            line_of_row=np.full(n_z, -1, dtype=np.int32),
            row_of_line=np.full(max(capacity, 1), -1, dtype=np.int32),
            line_used=np.zeros(max(capacity, 1), dtype=np.int64),
            seen=np.zeros(n_z, dtype=np.uint8),
            # A column enters the cache on its first use when the samples will
            # be visited again (several epochs), else on its second use.
            admit_first=passes > 1,
        )
        if (self.kernel.code == KERNEL_CALLABLE and capacity >= n_z
                and 8.0 * n_z * n_track <= cache_bytes):
            # The Gram matrix fits: one call of the callable fills the cache.
            cache.lines[:n_z] = self.kernel.call(self.Z[self.track_from:],
                                                 self.Z).T
            cache.line_of_row[:] = np.arange(n_z, dtype=np.int32)
            cache.row_of_line[:n_z] = np.arange(n_z, dtype=np.int32)
            self.counters[_C_LINES_USED] = n_z
        return cache

    def load(self, state, rows, *, keep_average):
        """Start from the iterate ``state`` whose support vectors are the Z
        rows ``rows``; averaging restarts unless ``keep_average``."""
        m = rows.shape[0]
        state.restore_counters(self.counters, _C_CLOCK, self.forget, self.rng,
                               self.visits, keep_average=keep_average)
        if m == 0:
            return
        self.alpha[rows] = state.alpha
        if self.average and keep_average:
            self.alpha_sum[rows] = state.alpha_sum
        self.in_support[rows] = 1
        listed = rows[state.sv_order]
        self.sv_list[:m] = listed
        self.dual.sv_pos[listed] = np.arange(m, dtype=np.int32)
        self.last_time[rows] = state.sv_time
        self.counters[_C_N_SV] = m
        self.counters[_C_MAX_SV] = m

    def _walker(self):
        """The compiled walker over these arrays, made on the first pass
        (after ``load``) and kept for the next ones."""
        if self._compiled is None:
            self._compiled = kernels.kernel_fast.Walker(
                kernels.view(self.Z), self.znorm, self.track_from,
                self.kernel.spec, self.samples, self.dual, self.cache)
        return self._compiled

    def run(self, order, active, progress=None):
        """One walk over the Z rows ``order``; returns the updates per row.
        With ``progress``, the walk goes in chunks of visits
        (:func:`~sklearn_perceptrons._core.progress.chunks`) and calls
        ``progress(visited, updates)`` between them; the result is the
        same bit for bit (a chunk ends with no update waiting, as a walk
        stopped for a callable's column does)."""
        updates = np.zeros(self.scores.shape[1], dtype=np.int64)
        n = order.shape[0]
        if n == 0:
            return updates
        walker = self._walker()
        for start, stop in [(0, n)] if progress is None else chunks(n):
            self._run_part(walker, order[start:stop], active, updates)
            if progress is not None and stop < n:
                progress(stop, updates)
        return updates

    def _run_part(self, walker, order, active, updates):
        t = 0
        while True:
            status, t, row = walker.run(order, t, active, updates)
            if status == _STATUS_DONE:
                return
            if status == _STATUS_NEED_COLUMN:
                self._store_callable_column(row)
            elif status == _STATUS_NONFINITE_KERNEL:
                raise_nonfinite_kernel(self.kernel)
            else:
                raise ValueError(
                    "The scores of the training samples became non-finite "
                    "(floating-point overflow). Scale the features or lower "
                    "gamma / degree, or the sample and class weights."
                )

    def _store_callable_column(self, row):
        column = self.kernel.call(self.Z[self.track_from:],
                                  self.Z[row : row + 1])
        kernels.kernel_fast.cache_store(np.ascontiguousarray(column[:, 0]),
                                        row, self.cache, self.counters)

    def weight_norm(self):
        """||f||, over all rows, in the (padded) kernel space: sum over the
        support vectors of alpha * score (their scores are tracked in fit)."""
        rows = self.sv_list[: self.counters[_C_N_SV]]
        rows = rows[rows >= self.track_from]
        norm2 = np.sum(self.alpha[rows] * self.scores[rows])
        return float(np.sqrt(max(norm2, 0.0)))

    @property
    def max_support_seen(self):
        return int(self.counters[_C_MAX_SV])

    def result(self, n_ext, *, training_rows):
        """The iterate as a :class:`DualState`, support vectors in the order
        of the rows of Z.  With ``training_rows`` (``fit``), ``sv_index`` is
        the index in X (``row - n_ext``, -1 for carried-over rows), else -1."""
        listed = self.sv_list[: self.counters[_C_N_SV]]
        # The support vectors in row order, and where each listed one goes
        # (O(n_z) flags and scatters instead of a sort and a search).
        rows = np.flatnonzero(self.in_support)
        position = np.empty(self.in_support.shape[0], dtype=np.intp)
        position[rows] = np.arange(rows.shape[0])
        if training_rows:
            sv_index = rows if n_ext == 0 else np.where(
                rows >= n_ext, rows - n_ext, -1)
        else:
            sv_index = np.full(rows.shape[0], -1, dtype=np.intp)
        return DualState(
            sv=take_rows(self.Z, rows),
            sv_class=self.y_class[rows],
            sv_index=sv_index,
            alpha=self.alpha[rows],
            alpha_sum=self.alpha_sum[rows] if self.average else np.zeros_like(
                self.alpha[rows]),
            visits=self.visits.copy(),
            sv_time=self.last_time[rows],
            clock=int(self.counters[_C_CLOCK]),
            forget=self.forget.copy(),
            rng=int(self.rng[0]),
            sv_scores=self.scores[rows] if self.track_from == 0 else None,
            sv_order=position[listed],
        )


class WalkTrainer:
    """The dual walk as a trainer of the epoch driver
    (:func:`sklearn_perceptrons._core.training.train`).

    With a budget and several rows, a removal takes a support vector away
    from every row, so the rows share one stopping rule (``coupled``): the
    driver then sees one row, the total of the updates.
    """

    reports_progress = True

    def __init__(self, walk, n_rows, coupled):
        self.walk = walk
        self.coupled = coupled
        self.n_rows = 1 if coupled else n_rows
        self._repeat = n_rows

    def run_epoch(self, order, active, progress=None):
        if self.coupled:
            return self.walk.run(order, np.repeat(active, self._repeat),
                                 progress).sum(keepdims=True)
        return self.walk.run(order, active, progress)

    def weight_norm(self):
        return self.walk.weight_norm()


def _initial_scores(walk, state, sv_rows, n_ext, cache_size):
    """Scores of the tracked rows of Z under the iterate ``state``."""
    Z = walk.Z
    coef = np.ascontiguousarray(state.alpha)
    constant = walk.add * coef.sum(axis=0)
    first = max(n_ext, walk.track_from)
    walk.scores[first:] = dual_scores(
        Z[first:], walk.kernel, take_rows(Z, sv_rows), sv_rows, coef,
        cache_size, single=walk.single,
    ) + constant
    if walk.track_from < n_ext:
        if state.sv_scores is not None:
            walk.scores[:n_ext] = state.sv_scores
        else:
            walk.scores[:n_ext] = dual_scores(
                Z[:n_ext], walk.kernel, state.sv, sv_rows, coef, cache_size,
                single=walk.single,
            ) + constant


def _walk(params, Z, y_class, step, rows, kernel, *, track_from, passes):
    n_rows, table, rule = rows
    return DualWalk(
        Z, y_class, step, table, n_rows, kernel,
        add=float(params.fit_intercept), threshold=params.threshold,
        average=params.average, budget=params.budget,
        strategy=params.budget_strategy, track_from=track_from,
        cache_size=params.cache_size, passes=passes, rule=rule,
    )


def fit(params, X, y_class, step, rows, kernel, rng, seed, start=None, *,
        callbacks=None, model=None):
    """``fit`` by the unbudgeted walk: epochs through the epoch driver.

    ``params`` holds the estimator's parameters (``fit_intercept``,
    ``threshold``, ``average``, ``budget``, ``budget_strategy``,
    ``cache_size``, ``max_iter``, ``tol``, ``n_iter_no_change``,
    ``shuffle``, ``verbose``); ``step`` the size of every sample's updates;
    ``rows`` the ``(n_rows, table, rule)`` of the sub-problems; ``seed``
    that of the "random" strategy; ``start`` None or ``(state, matched)``:
    the iterate to start from and the rows of X that are its support
    vectors (None when they are not rows of X: they are then put in front
    of X, never visited); ``callbacks`` the fit's callback tasks and
    ``model(state)`` the attributes of the model of an iterate, for the
    callbacks that ask for it.  Returns a :class:`WalkResult`.
    """
    n = X.shape[0]
    n_rows, _, rule = rows
    state, matched = start if start is not None else (None, None)
    if state is not None and matched is None:
        # Support vectors from other data: extra rows in front of X, in a
        # dtype that does not round them.
        X = X.astype(np.result_type(X.dtype, state.sv.dtype), copy=False)
        Z = stack_rows(state.sv, X)
        n_ext = state.sv.shape[0]
        y_class = np.concatenate([state.sv_class, y_class])
        step = np.concatenate([np.zeros(n_ext), step])
        sv_rows = np.arange(n_ext, dtype=np.int32)
    else:
        Z, n_ext, sv_rows = X, 0, matched

    walk = _walk(params, Z, y_class, step, rows, kernel, track_from=0,
                 passes=params.max_iter)
    if state is not None:
        walk.load(state, sv_rows, keep_average=False)
        _initial_scores(walk, state, sv_rows, n_ext, params.cache_size)
    walk.rng[0] = np.uint64(seed)

    # Each one-vs-all row stops on its own rule, as in Perceptron, except
    # with a budget: a removal takes a support vector away from every row,
    # which would change a stopped row that can no longer correct itself,
    # so the rows share one rule on their total number of updates, held to
    # the total of their own thresholds (tol * n each).
    # Crammer-Singer's rows move together by construction: one rule too.
    coupled = (params.budget is not None or rule != _RULE_TABLE) and n_rows > 1
    summed = n_rows if coupled and rule == _RULE_TABLE else 1
    stopper = StoppingRule(
        1 if coupled else n_rows, tol=params.tol,
        n_iter_no_change=params.n_iter_no_change, n_samples=n * summed,
        early_stopping=False,
    )
    record = train(
        WalkTrainer(walk, n_rows, coupled),
        train_idx=np.arange(n_ext, n_ext + n, dtype=np.int32), rng=rng,
        shuffle=params.shuffle, max_iter=params.max_iter, stopper=stopper,
        verbose=params.verbose, norm="||f||", callbacks=callbacks,
        model=None if model is None else (
            lambda trainer, stopper: model(
                walk.result(n_ext, training_rows=True))),
    )
    return WalkResult(walk.result(n_ext, training_rows=True),
                      walk.max_support_seen, record=record)


def partial_fit(params, X, y_class, step, rows, kernel, state):
    """One pass of the unbudgeted walk over the batch X, in its order, from
    the iterate ``state`` (its average continues); arguments as in
    :func:`fit`.  Only the batch's scores are tracked: the support vectors
    are rows of Z in front of it.  Returns a :class:`WalkResult`."""
    n_rows = rows[0]
    n_ext = state.sv.shape[0]
    Z = stack_rows(state.sv, X)
    walk = _walk(params, Z, np.concatenate([state.sv_class, y_class]),
                 np.concatenate([np.zeros(n_ext), step]), rows, kernel,
                 track_from=n_ext, passes=1)
    sv_rows = np.arange(n_ext, dtype=np.int32)
    walk.load(state, sv_rows, keep_average=True)
    _initial_scores(walk, state, sv_rows, n_ext, params.cache_size)
    updates = walk.run(np.arange(n_ext, Z.shape[0], dtype=np.int32),
                       np.ones(n_rows, dtype=np.uint8))
    return WalkResult(walk.result(n_ext, training_rows=False),
                      walk.max_support_seen, updates=int(updates.sum()))
