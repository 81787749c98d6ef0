# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The linear family's weight rows: the internal API of the linear models.

A linear perceptron trains one or several *weight rows*, each a binary
sub-problem; which rows a sample of a class updates is a row table of
:mod:`sklearn_perceptrons._core.tables`.  This module holds what the linear
estimators (and the reductions' fast path and the distributed trainer) share:

* **Linear state** (:class:`LinearState`): weights, intercepts and the sums
  of averaging of every row.
* **The compiled linear epoch** (:func:`run_epoch`, :func:`row_scores`), and
  the trainer that plugs it into :mod:`sklearn_perceptrons._core.training`
  (:class:`LinearTrainer`).  The update rule is a :class:`Rule`: its code
  (``RULE_THRESHOLD``, ``RULE_MARGIN``, the Crammer-Singer, passive-aggressive,
  ALMA and ROMMA codes, defined by the enum of ``_linear_epoch.pxi``), its
  per-row parameters and its optional :class:`Penalty`.
* **What the one-row path needs** (see :mod:`.stream`): the bound that
  proves a pass free of overflow, and the scores of CSR rows in O(nnz) per
  weight row (:func:`sparse_decision`).
"""

import dataclasses
import math
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.utils.extmath import row_norms

from .._core.cpu import select_build
from .._core.growth import reindex_rows
from .._core.progress import in_chunks
from .._core.threads import run_tasks

linear_fast = select_build(f"{__package__}._linear_fast")

# The update rules of the compiled epoch, defined once: by the enum of
# _linear_epoch.pxi.
RULE_THRESHOLD = linear_fast.RULE_THRESHOLD
RULE_MARGIN = linear_fast.RULE_MARGIN
RULE_CS_MAX = linear_fast.RULE_CS_MAX
RULE_CS_UNIFORM = linear_fast.RULE_CS_UNIFORM
RULE_CS_PA1 = linear_fast.RULE_CS_PA1
RULE_CS_PA2 = linear_fast.RULE_CS_PA2
RULE_PA1 = linear_fast.RULE_PA1
RULE_PA2 = linear_fast.RULE_PA2
RULE_ALMA = linear_fast.RULE_ALMA
RULE_ROMMA = linear_fast.RULE_ROMMA
RULE_AROMMA = linear_fast.RULE_AROMMA


def coupled_rule(code):
    """Whether a rule moves several rows of a sample together
    (Crammer-Singer): its rows train in one thread and stop together."""
    return RULE_CS_MAX <= code <= RULE_CS_PA2


def scaled_rule(code):
    """Whether a rule rescales the weights (the scaled walk of the compiled
    epoch, which the penalties also take)."""
    return code >= RULE_ALMA


def loss_rule(code):
    """Whether a rule sums the hinge losses of its visits (the
    passive-aggressive rules, whose stopping rule reads them)."""
    return code in (RULE_PA1, RULE_PA2, RULE_CS_PA1, RULE_CS_PA2)

# Typed specialisations, picked once: indexing a fused function at every call
# would redo the dtype dispatch.
def _specialisations(dense, csr):
    """The specialisations of a fused pair of compiled functions (dense and
    CSR rows), by (dtype of X, whether X is CSR)."""
    return {
        (np.dtype(np.float64), False): dense["double"],
        (np.dtype(np.float32), False): dense["float"],
        (np.dtype(np.float64), True): csr["double"],
        (np.dtype(np.float32), True): csr["float"],
    }


_EPOCH = _specialisations(linear_fast.epoch_dense, linear_fast.epoch_csr)
_SCORES = _specialisations(linear_fast.scores_dense, linear_fast.scores_csr)
_SCALED = _specialisations(linear_fast.scaled_dense, linear_fast.scaled_csr)
_MARGIN_NORMS = {
    np.dtype(np.float64): linear_fast.margin_norms["double"],
    np.dtype(np.float32): linear_fast.margin_norms["float"],
}


# ---------------------------------------------------------------------------
# Linear state
# ---------------------------------------------------------------------------


class LinearState:
    """Weights of ``n_rows`` binary sub-problems and their averaging sums.

    ``coef``/``intercept`` are the current iterate (in the dtype of X).  With
    averaging, ``coef_sum``/``intercept_sum`` hold ``sum (visits before the
    update) * delta`` over the updates, and ``visits`` the number of sample
    visits of each row, so that the mean of the iterates over all visits is
    ``coef - coef_sum / visits`` (Daume's trick).
    """

    _FIELDS = ("coef", "intercept", "coef_sum", "intercept_sum", "visits")
    _SUMS = ("coef_sum", "intercept_sum")
    # The fields that change sign with the labels (the others are counts).
    _SIGNED = ("coef", "intercept", "coef_sum", "intercept_sum")

    def __init__(self, coef, intercept, average):
        self.coef = coef
        self.intercept = intercept
        n_rows, n_features = coef.shape
        shape = (n_rows, n_features) if average else (1, 1)
        self.coef_sum = np.zeros(shape)
        self.intercept_sum = np.zeros(n_rows if average else 1)
        self.visits = np.zeros(n_rows)
        self.average = average

    @property
    def model_dtype(self):
        """The dtype of :meth:`model` (that of the weights)."""
        return self.coef.dtype

    @classmethod
    def zeros(cls, n_rows, n_features, dtype, average):
        return cls(np.zeros((n_rows, n_features), dtype=dtype),
                   np.zeros(n_rows, dtype=dtype), average)

    def copy(self):
        new = type(self).__new__(type(self))
        for name in self._FIELDS:
            setattr(new, name, getattr(self, name).copy())
        new.average = self.average
        return new

    def _row_fields(self):
        """The fields that hold one entry per row (the sums only with
        averaging)."""
        if self.average:
            return self._FIELDS
        return tuple(name for name in self._FIELDS if name not in self._SUMS)

    def copy_rows(self, source, rows):
        """Set ``rows`` (an index or mask) to their values in ``source``."""
        for name in self._row_fields():
            getattr(self, name)[rows] = getattr(source, name)[rows]

    def reset_rows(self, rows):
        """Start ``rows`` anew from ``w = 0`` with no averaging history."""
        for name in self._row_fields():
            getattr(self, name)[rows] = 0

    def grown(self, source, sign):
        """A new state whose row ``j`` is row ``source[j]`` times ``sign[j]``
        (the weights and the averaging sums; the counts as they are), or a
        fresh row (``w = 0``, nothing visited, all counts 0) where ``source[j]`` is -1
        (see :mod:`sklearn_perceptrons._core.growth`)."""
        new = type(self).__new__(type(self))
        new.average = self.average
        for name in self._FIELDS:
            value = getattr(self, name)
            if name in ("coef_sum", "intercept_sum") and not self.average:
                setattr(new, name, value.copy())
            else:
                # The weights and their sums change sign with the labels;
                # the counts of a row (visits, updates) do not.
                setattr(new, name, reindex_rows(
                    value, source, sign if name in self._SIGNED else None))
        return new

    def row(self, k):
        """Row ``k`` alone, as the state of a binary estimator (a copy)."""
        new = type(self).__new__(type(self))
        for name in self._FIELDS:
            value = getattr(self, name)
            if name in self._SUMS and not self.average:
                setattr(new, name, value.copy())
            else:
                setattr(new, name, value[k : k + 1].copy())
        new.average = self.average
        return new

    @classmethod
    def stack(cls, states, n_features, dtype, average):
        """One state holding the rows of binary states (None: a zero row)."""
        stacked = cls.zeros(len(states), n_features, dtype, average)
        for k, state in enumerate(states):
            if state is None:
                continue
            for name in cls._FIELDS:
                if name not in cls._SUMS:
                    getattr(stacked, name)[k] = getattr(state, name)[0]
            if average and state.average:
                stacked.coef_sum[k] = state.coef_sum[0]
                stacked.intercept_sum[k] = state.intercept_sum[0]
        return stacked

    def model(self, copy=True):
        """The (coef, intercept) predictions use: the average, or the iterate.

        ``copy=False`` may return the iterate itself, for callers that never
        update this state again.
        """
        if not self.average:
            if not copy:
                return self.coef, self.intercept
            return self.coef.copy(), self.intercept.copy()
        visits = np.maximum(self.visits, 1.0)
        coef = self.coef - self.coef_sum / visits[:, None]
        intercept = self.intercept - self.intercept_sum / visits
        return coef.astype(self.coef.dtype), intercept.astype(self.coef.dtype)


class CountedState(LinearState):
    """A :class:`LinearState` that also counts the updates of every row over
    its whole life (``counts``, float64): ALMA's schedule of margins and
    steps reads it, and every pass adds its updates to it."""

    _FIELDS = LinearState._FIELDS + ("counts",)

    def __init__(self, coef, intercept, average):
        super().__init__(coef, intercept, average)
        self.counts = np.zeros(coef.shape[0])


def weight_norms(coef, intercept, fit_intercept):
    """``||[w_k; b_k]||`` (or ``||w_k||``) of every weight row, accumulated
    in float64 by the compiled routine the margin rule uses."""
    norm = np.empty(coef.shape[0])
    _MARGIN_NORMS[coef.dtype](coef, intercept, fit_intercept, norm)
    return norm


def overflow_error(what, X=None, step=None, *, other_advice=""):
    """The ValueError of a pass that overflowed (``what``: the quantity that
    did), with the largest feature and update size when the caller has them
    (``X`` and the update sizes ``step``), and the advice led by whichever
    is extreme (``other_advice``: one more remedy, ", or ...").  An update moves ``w`` by ``step * x`` and the next margin by
    about ``step * |x|**2``: the factor further from 1 is to blame."""
    features = "scale the features (e.g. with StandardScaler)"
    weights = "lower sample_weight, class_weight or the learning rate"
    sizes = ""
    weights_first = False
    if X is not None and step is not None:
        values = X.data if sp.issparse(X) else X
        with np.errstate(over="ignore", invalid="ignore"):
            top_x = float(np.abs(values).max(initial=0.0)) if values.size else 0.0
            top_step = float(np.max(step, initial=0.0)) if len(step) else 0.0
        sizes = (f": the samples reach {top_x:.3g} in magnitude and the update "
                 f"sizes (sample_weight * class_weight * learning rate) "
                 f"{top_step:.3g}")
        if top_x > 0 and top_step > 0:
            weights_first = (abs(math.log(top_step))
                             > 2 * abs(math.log(top_x)))
    first, second = (weights, features) if weights_first else (features, weights)
    advice = f"{first[0].upper()}{first[1:]}, or {second}{other_advice}."
    return ValueError(
        f"{what} overflowed to a non-finite value (beyond the largest float), "
        f"which no update rule can compare{sizes}. {advice}"
    )


def check_finite_weights(state, X=None, step=None):
    """Raise ValueError when an update overflowed (never return NaN weights);
    with the training rows ``X`` and update sizes ``step``, the message says
    which of them is extreme (:func:`overflow_error`)."""
    # A finite sum proves every weight finite in one cheap reduction; only a
    # non-finite sum (or an overflowing one) needs the exact check.
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.add.reduce(state.coef, axis=None) + np.add.reduce(
            state.intercept, axis=None
        )
    if not math.isfinite(total) and not (
        np.isfinite(state.coef).all() and np.isfinite(state.intercept).all()
    ):
        raise overflow_error("The weights", X, step)


# ---------------------------------------------------------------------------
# What the one-row path (see stream.py) needs of a state
# ---------------------------------------------------------------------------

# Largest weight magnitude a pass may reach without a check: a quarter of the
# dtype's maximum, so that no rounding of a bounded sum can overflow.
SAFE_LIMIT = {
    np.dtype(np.float64): float(np.finfo(np.float64).max) / 4,
    np.dtype(np.float32): float(np.finfo(np.float32).max) / 4,
}


def weight_bound(state):
    """The largest magnitude of a weight or intercept of ``state``."""
    with np.errstate(invalid="ignore"):
        return float(max(np.abs(state.coef).max(initial=0.0),
                         np.abs(state.intercept).max(initial=0.0)))


def pass_bound(X, step, fit_intercept, rule=None):
    """How far one pass over X can move any weight or intercept when each
    sample updates each row at most once (the linear rules):
    ``rule.reach * max(max |X|, 1 if fit_intercept) * sum(step)`` (without
    the ``max |X|`` for a rule on normalized rows; inf for a non-finite X,
    whose pass the caller then checks); and ``max |X|``."""
    values = X.data if sp.issparse(X) else X
    largest = float(np.abs(values).max(initial=0.0)) if values.size else 0.0
    reach = 1.0 if fit_intercept and largest < 1.0 else largest
    if rule is not None:
        reach = rule.reach * (1.0 if rule.normalized else reach)
    return reach * float(np.add.reduce(step)), largest


def safe_bound(bound, largest, n_features, dtype):
    """Whether weights and intercepts of magnitude <= ``bound`` are far from
    overflow, and keep every margin ``w . x + b`` of rows of magnitude <=
    ``largest``, and the norm the margin rule updates, finite: then a pass
    cannot fail (nor stop midway on a margin that overflowed).  The rule is
    the compiled stream's (``_linear_epoch.pxi``), defined once."""
    return linear_fast.safe_bound(bound, largest, n_features, SAFE_LIMIT[dtype])


def padded_sq_norms(X, fit_intercept):
    """Squared norms of the rows of X, of ``[x; 1]`` when ``fit_intercept``.

    Accumulated in float64 even for a float32 X, because the radius enters
    the certificate of the margin search; a float32 X is read in blocks of
    rows (about 4 MB of float64 at a time), never converted whole.
    """
    if X.dtype == np.float64:
        sq = row_norms(X, squared=True)
    else:
        n_samples = X.shape[0]
        sq = np.empty(n_samples)
        block = max(1, (1 << 19) // max(1, X.shape[1]))
        for start in range(0, n_samples, block):
            stop = min(start + block, n_samples)
            if sp.issparse(X):
                lo, hi = X.indptr[start], X.indptr[stop]
                values = X.data[lo:hi].astype(np.float64)
                rows = np.repeat(np.arange(stop - start),
                                 np.diff(X.indptr[start:stop + 1]))
                sq[start:stop] = np.bincount(rows, weights=values * values,
                                             minlength=stop - start)
            else:
                part = X[start:stop].astype(np.float64)
                sq[start:stop] = np.einsum("ij,ij->i", part, part)
    return sq + 1.0 if fit_intercept else sq


def row_arrays(X):
    """The arrays of the rows of X a compiled pass reads: ``(X, None,
    None)`` for dense rows, ``(data, indices, indptr)`` for CSR rows."""
    if type(X) is np.ndarray:
        return X, None, None
    return X.data, X.indices, X.indptr


def sparse_decision(X, coef, intercept, *, sums=None, dtype=None):
    """``X @ coef.T + intercept`` for CSR rows X (int32 indices), in the
    arithmetic of SciPy's sparse product and NumPy's sum (the same bits),
    in O(nnz) per weight row: only the weights of a row's columns are read.

    ``sums``: a state whose averaging sums give the model instead (its
    ``model()``: ``coef - coef_sum / visits``), computed at the rows'
    columns only; ``dtype``: the model's dtype (that of ``coef`` when
    None), to which the model is rounded.  Returns a 2-d array in the dtype
    of ``X @ coef_.T``.  None when the weights are not arrays the compiled
    product reads (then the caller takes SciPy's product).
    """
    dtype = coef.dtype if dtype is None else np.dtype(dtype)
    if (type(coef) is not np.ndarray or coef.ndim != 2
            or coef.dtype not in SAFE_LIMIT or intercept.dtype != coef.dtype
            or intercept.ndim != 1 or dtype not in SAFE_LIMIT
            or not coef.flags.c_contiguous or not intercept.flags.c_contiguous):
        return None
    out = np.empty((X.shape[0], coef.shape[0]))
    linear_fast.sparse_scores(
        X.data, X.indices, X.indptr, coef, intercept,
        (sums.coef_sum, sums.intercept_sum, sums.visits)
        if sums is not None and sums.average else None,
        dtype == np.float32, out,
    )
    if X.dtype == np.float32 and dtype == np.float32:
        return out.astype(np.float32)
    return out


def row_views(state):
    """One :class:`LinearState` per row of ``state`` whose arrays are views
    of that row (a meta-estimator's binary estimators then follow every
    in-place pass over the stacked rows)."""
    views = []
    for k in range(state.coef.shape[0]):
        view = LinearState.__new__(LinearState)
        view.coef = state.coef[k:k + 1]
        view.intercept = state.intercept[k:k + 1]
        view.visits = state.visits[k:k + 1]
        if state.average:
            view.coef_sum = state.coef_sum[k:k + 1]
            view.intercept_sum = state.intercept_sum[k:k + 1]
        else:
            view.coef_sum, view.intercept_sum = np.zeros((1, 1)), np.zeros(1)
        view.average = state.average
        views.append(view)
    return views


# ---------------------------------------------------------------------------
# The compiled epoch
# ---------------------------------------------------------------------------


class Penalty(NamedTuple):
    """scikit-learn's SGD penalties of a visit of a row (``RULE_THRESHOLD``
    only): ``w *= decay`` before the update (l2), then the cumulative l1
    penalty grows by ``l1_step`` (see ``_linear_epoch.pxi``)."""

    decay: float
    l1_step: float


class Rule(NamedTuple):
    """The update rule of every row: a sample of margin ``m`` updates row
    ``k`` when ``m <= threshold[k]`` (``RULE_THRESHOLD``) or when ``w~ = 0``
    or ``m < kappa[k] * ||w~||`` (``RULE_MARGIN``); ``RULE_CS_MAX`` and
    ``RULE_CS_UNIFORM`` are the Crammer-Singer rules (one row per class, a
    mistake when another row scores within ``threshold`` of the own row);
    ``RULE_PA1``, ``RULE_PA2`` (and ``RULE_CS_PA1``, ``RULE_CS_PA2``, their
    multiclass form) the passive-aggressive rules with ``C = kappa``;
    ``RULE_ALMA`` reads ``threshold = (1 - alpha) B`` and ``kappa = C``;
    ``RULE_ROMMA`` and ``RULE_AROMMA`` no parameter (see
    ``_linear_epoch.pxi``).

    ``penalty``: a :class:`Penalty`, or None for none.
    ``sparse_intercept_rate``: the fraction of an update an intercept takes
    on CSR rows (scikit-learn's passive-aggressive rule damps it to 0.01
    there; 1 on dense rows, always).  ``reach``: the largest factor by which
    an update moves a weight per unit of ``step * |x_j|`` (1 for the
    perceptron's rules, ``C`` for PA-I), or None when no such bound exists
    (PA-II, ROMMA): the passes of ``partial_fit`` are then checked on a
    copy.  ``normalized``: whether the rule sees normalized rows (ALMA),
    so that ``|x_j| <= 1`` in that bound.  ``power``: ALMA's ``p``."""

    code: int
    threshold: np.ndarray
    kappa: np.ndarray
    penalty: object = None
    sparse_intercept_rate: float = 1.0
    reach: object = 1.0
    normalized: bool = False
    power: float = 2.0


class PenaltySums:
    """The cumulative l1 penalty of a run of passes: the total per row and
    what each weight took of it (carried over the epochs of one ``fit``)."""

    def __init__(self, n_rows, n_features, penalty):
        self.total = np.zeros(n_rows)
        shape = (n_rows, n_features) if penalty.l1_step else (1, 1)
        self.applied = np.zeros(shape)




def _data(X):
    return (X.data, X.indices, X.indptr) if sp.issparse(X) else (X,)


class _Rows(NamedTuple):
    """The arrays of some weight rows that one compiled pass reads and
    writes (the last three only read)."""

    coef: np.ndarray
    intercept: np.ndarray
    coef_sum: np.ndarray
    intercept_sum: np.ndarray
    visits: np.ndarray
    updates: np.ndarray
    norm: np.ndarray
    l1_total: np.ndarray
    l1_applied: np.ndarray
    losses: np.ndarray
    dual: np.ndarray
    dual_row: np.ndarray
    threshold: np.ndarray
    kappa: np.ndarray
    counts: np.ndarray

    def take(self, rows, average, l1):
        """A compact copy of ``rows`` (the sums only when in use), every
        array on cache lines of its own (see :func:`_own_lines`)."""
        # ALMA_p's dual scratch, when it has a row per weight row.
        dual = self.dual.shape[0] == self.coef.shape[0]
        used = dict(coef_sum=average, intercept_sum=average, l1_applied=l1,
                    dual=dual, dual_row=dual)
        return _Rows(*(_own_lines(array[rows] if used.get(name, True) else array)
                       for name, array in zip(self._fields, self)))

    def put(self, rows, part, average, l1):
        """Write the compact copy ``part`` back to ``rows``."""
        for name in self._fields[:-3]:
            if (name in ("coef_sum", "intercept_sum") and not average
                    or name == "l1_applied" and not l1
                    or name in ("dual", "dual_row")):
                continue
            getattr(self, name)[rows] = getattr(part, name)


# Bytes of a cache line (64 on the CPUs this package is built for).
_LINE = 64


def _own_lines(array):
    """A C-contiguous copy of ``array`` with a cache line of slack on either
    side, so that no other allocation shares a cache line with its values:
    threads that write small arrays allocated side by side (the visit count
    of every row, at every sample) would otherwise pass the lines back and
    forth between their cores."""
    pad = -(-_LINE // array.itemsize)
    buffer = np.empty(array.size + 2 * pad, dtype=array.dtype)
    copy = buffer[pad:pad + array.size].reshape(array.shape)
    copy[...] = array
    return copy


def _sub_table(table, rows, n_rows):
    """The table of ``rows`` alone, renumbered 0, 1, ... in their order."""
    rows_ptr, table_rows, signs = table
    position = np.full(n_rows, -1, dtype=np.int32)
    position[rows] = np.arange(rows.shape[0], dtype=np.int32)
    keep = position[table_rows] >= 0
    kept = np.concatenate([[0], np.cumsum(keep)]).astype(np.int32)
    return kept[rows_ptr], position[table_rows[keep]], signs[keep]


def _thread_groups(active, table, n_threads, cache):
    """The groups of active rows of a threaded pass: for each, its rows, its
    table and its (all set) active flags.  ``cache`` (a dict or None) keeps
    them from pass to pass while the active rows stay the same."""
    key = (active.tobytes(), n_threads)
    if cache is not None and cache.get("key") == key:
        return cache["groups"]
    n_active = int(np.count_nonzero(active))
    groups = [
        (rows, _sub_table(table, rows, active.shape[0]),
         np.ones(rows.shape[0], np.uint8))
        for rows in np.array_split(np.flatnonzero(active),
                                   min(n_threads, n_active))
    ]
    if cache is not None:
        cache.update(key=key, groups=groups)
    return groups


def _run_in_threads(call, arrays, active, table, n_threads, *, average, l1,
                    cache=None):
    """``call(arrays, active, table)``, or with ``n_threads > 1`` the same on
    groups of the active rows, one thread per group.

    Each thread walks every sample in the same order for its own rows, on
    compact copies of them on cache lines of their own (threads writing to
    nearby addresses would fight over cache lines), so every row sees
    exactly the arithmetic of a one-thread pass (the rules that treat rows
    alone); the compiled pass releases the GIL.  The threads are the
    package's pool (:mod:`sklearn_perceptrons._threads`), started once.
    ``cache``: see :func:`_thread_groups`.  Returns the worst status of
    the groups' passes (see ``_epoch_pass`` in ``_linear_epoch.pxi``).
    """
    if n_threads <= 1 or np.count_nonzero(active) <= 1:
        return call(arrays, active, table)
    groups = _thread_groups(active, table, n_threads, cache)
    parts = [arrays.take(rows, average, l1) for rows, _, _ in groups]
    results = run_tasks(
        call, [(part, mask, sub_table)
               for (_, sub_table, mask), part in zip(groups, parts)],
        n_threads)
    for (rows, _, _), part in zip(groups, parts):
        arrays.put(rows, part, average, l1)
    return max(results)


def run_epoch(X, state, order, y_class, step, table, *, fit_intercept, active,
              rule, penalty_sums=None, n_threads=1, thread_cache=None,
              losses=None, norm=None):
    """One compiled pass over the rows ``order`` of X; returns updates per row.

    ``step[i]`` is the size of an update on sample ``i`` (learning rate times
    sample and class weight); rows whose ``active`` flag is 0 are frozen.
    With a ``rule.penalty``, ``penalty_sums`` (a :class:`PenaltySums`) carries
    the cumulative l1 penalty from pass to pass (None: a fresh one for this
    pass).  ``n_threads > 1`` trains groups of rows in parallel threads with
    results identical to one thread (not for the Crammer-Singer rules,
    whose rows are coupled); ``thread_cache``, a dict kept by the caller
    from pass to pass over the same ``table``, saves re-making the groups.
    ``losses`` (float64, one per row, or None) receives the sums of the
    hinge losses of the visits of a passive-aggressive rule.  A
    :class:`CountedState` gets the pass's updates added to its ``counts``.
    With the margin rule, ``norm`` may give ``||[w_k; b_k]||`` of every row
    as :func:`weight_norms` computes it for the weights at the start of the
    pass (a caller that has them saves the O(n_features) pass that computes
    them; the pass then updates the array in place); None: computed here.
    Raises ValueError when a margin overflows (inf - inf is no number, and
    would silently count as "no mistake") or a weight becomes non-finite;
    the state is then left mid-pass, for the caller to discard.  A CSR pass
    of a rule of the plain walk tracks the weights its updates write, so
    only a dense pass, or one of the scaled walk (which folds its scales
    into every weight at its end anyway), reads every weight afterwards to
    prove them finite (O(n_rows * n_features), small beside a dense epoch,
    not beside a CSR one).
    """
    n_rows = state.coef.shape[0]
    sparse = sp.issparse(X)
    if coupled_rule(rule.code):
        n_threads = 1
    if norm is None or rule.code != RULE_MARGIN:
        norm = np.zeros(n_rows)
        if rule.code == RULE_MARGIN or scaled_rule(rule.code):
            _MARGIN_NORMS[state.coef.dtype](
                state.coef, state.intercept, fit_intercept, norm
            )
    counts = getattr(state, "counts", None)
    if counts is None:
        counts = np.zeros(n_rows)
    if losses is None:
        losses = np.zeros(n_rows)
    penalty = rule.penalty
    if penalty is not None:
        if rule.code != RULE_THRESHOLD:
            raise ValueError("Penalties apply to the threshold rule only.")
        if penalty_sums is None:
            penalty_sums = PenaltySums(n_rows, X.shape[1], penalty)
        l1_total, l1_applied = penalty_sums.total, penalty_sums.applied
    else:
        l1_total, l1_applied = np.zeros(n_rows), np.zeros((1, 1))
    if rule.code == RULE_ALMA and rule.power != 2.0:
        # Scratch of ALMA_p: the dual vector of every row, and its scale,
        # norm and intercept coordinate.
        dual, dual_row = np.zeros((n_rows, X.shape[1])), np.zeros((n_rows, 3))
    else:
        dual, dual_row = np.zeros((1, 1)), np.zeros((1, 3))
    arrays = _Rows(state.coef, state.intercept, state.coef_sum,
                   state.intercept_sum, state.visits,
                   np.zeros(n_rows, dtype=np.int64), norm, l1_total, l1_applied,
                   losses, dual, dual_row,
                   np.asarray(rule.threshold, dtype=np.float64),
                   np.asarray(rule.kappa, dtype=np.float64), counts)

    scaled = penalty is not None or scaled_rule(rule.code)

    def call(rows, mask, row_table):
        if scaled:
            decay, l1_step = (1.0, 0.0) if penalty is None else penalty
            return _SCALED[X.dtype, sparse](
                *_data(X), (order, y_class, step), tuple(row_table),
                rows.coef, rows.intercept, mask,
                (rule.code, rows.threshold, rows.kappa, 1.0, fit_intercept,
                 state.average),
                (rows.norm, rows.coef_sum, rows.intercept_sum, rows.visits,
                 rows.updates),
                (rows.counts, float(rule.power), rows.dual, rows.dual_row,
                 decay, l1_step, rows.l1_total, rows.l1_applied,
                 # Scratch of the pass: the scale of every row, and the sum
                 # of its scales over the visits (written at every visit).
                 _own_lines(np.ones(mask.shape[0])), _own_lines(rows.visits)),
            )
        # Scratch of the Crammer-Singer rules: the scores of one sample's rows.
        scores = np.empty(max(mask.shape[0], 2) if coupled_rule(rule.code)
                          else 1)
        return _EPOCH[X.dtype, sparse](
            *_data(X), (order, y_class, step), tuple(row_table), rows.coef,
            rows.intercept, mask,
            (rule.code, rows.threshold, rows.kappa,
             rule.sparse_intercept_rate if sparse else 1.0, fit_intercept,
             state.average),
            (rows.norm, rows.coef_sum, rows.intercept_sum, rows.visits,
             rows.updates, rows.losses, scores),
        )

    status = _run_in_threads(
        call, arrays, active, table, n_threads, average=state.average,
        l1=penalty is not None and penalty.l1_step != 0, cache=thread_cache,
    )
    updates = arrays.updates
    if hasattr(state, "counts"):
        state.counts += updates
    if status == linear_fast.PASS_NOT_A_NUMBER:
        raise overflow_error("A margin w . x", X, step)
    if status != linear_fast.PASS_OK or not sparse or scaled:
        check_finite_weights(state, X, step)
    return updates


def row_scores(X, rows, coef, intercept):
    """Scores ``X[rows] @ coef.T + intercept`` without copying the rows of X.

    Each weight row is computed with the same arithmetic whatever the other
    rows are, so row ``k`` of a one-vs-all model scores bit for bit as the
    binary model of that row.
    """
    out = np.empty((rows.shape[0], coef.shape[0]))
    _SCORES[X.dtype, sp.issparse(X)](
        *_data(X), rows, np.ascontiguousarray(coef, dtype=X.dtype),
        np.ascontiguousarray(intercept, dtype=X.dtype), out,
    )
    return out


@dataclasses.dataclass(eq=False)
class StateTrainer:
    """The part of a trainer (see :mod:`sklearn_perceptrons._training`) that
    any model with a ``state`` like :class:`LinearState` shares: ``coef``,
    ``intercept``, ``model()``, ``copy()`` and ``copy_rows()``.  A subclass
    adds ``run_epoch(order, active)``.

    Parameters
    ----------
    X : ndarray or CSR matrix (int32 indices), float32 or float64
        The training rows (never copied).
    y_class : ndarray of int32
        Class index of every row of X.
    step : ndarray of float64
        Size of an update on every row of X.
    table : tuple of ndarrays
        The row table (see :func:`one_vs_all_table`).
    state : object
        The starting model; updated in place.
    """

    X: object
    y_class: object
    step: object
    table: tuple
    state: object

    @property
    def n_rows(self):
        return self.state.coef.shape[0]

    def model(self):
        return self.state.model()

    def scores(self, rows):
        return row_scores(self.X, rows, *self.state.model())

    def weight_norm(self):
        return float(np.linalg.norm(self.state.coef))

    def snapshot(self):
        return self.state.copy()

    def keep_rows(self, snapshot, rows):
        snapshot.copy_rows(self.state, rows)

    def restore(self, snapshot):
        self.state = snapshot


class LinearTrainer(StateTrainer):
    """A :class:`LinearState` trained by the compiled epoch with the update
    :class:`Rule` ``rule`` (which a subclass or a caller may change between
    epochs); the other parameters are those of :class:`StateTrainer`."""

    def __init__(self, X, y_class, step, table, state, *, fit_intercept, rule,
                 n_threads=1):
        super().__init__(X, y_class, step, table, state)
        self.fit_intercept = fit_intercept
        self.rule = rule
        self.n_threads = n_threads
        # The cumulative l1 penalty runs over all the epochs of the fit.
        self.penalty_sums = None
        self.thread_cache = {}
        # The hinge losses of the last epoch (passive-aggressive rules).
        self.losses = None

    reports_progress = True

    def run_epoch(self, order, active, progress=None):
        if self.rule.penalty is not None and self.penalty_sums is None:
            self.penalty_sums = PenaltySums(self.n_rows, self.X.shape[1],
                                            self.rule.penalty)
        if self.rule.penalty is not None or scaled_rule(self.rule.code):
            # A penalized pass folds its weight decay in at its end, and so
            # do the rules that rescale the weights (ALMA, ROMMA): in chunks
            # they would round otherwise.  They walk whole.
            progress = None
        losses = None
        if loss_rule(self.rule.code):
            losses = self.losses = np.zeros(self.n_rows)

        def walk(part):
            return run_epoch(
                self.X, self.state, part, self.y_class, self.step, self.table,
                fit_intercept=self.fit_intercept, active=active, rule=self.rule,
                penalty_sums=self.penalty_sums, n_threads=self.n_threads,
                thread_cache=self.thread_cache, losses=losses,
            )

        # With ``progress``, in chunks: a pass resumes anywhere with the same
        # arithmetic (tested bit for bit against whole epochs).
        # The pass proves the weights finite (see run_epoch).
        updates = in_chunks(walk, order, progress)
        return updates

    def stopping_statistic(self):
        """What the ``tol`` rule compares from epoch to epoch: the sums of
        the hinge losses of the last epoch for the passive-aggressive rules
        (scikit-learn's stopping rule), None (the updates) otherwise."""
        return self.losses


class CoupledTrainer:
    """A trainer whose rows move and stop together: the driver sees one row
    (the total of the updates), every row of ``trainer`` is trained while it
    is active, and the best validation epoch is kept for all rows at once.
    The Crammer-Singer rules use it: a mistake moves several rows, so a row
    cannot stop while the others go on."""

    n_rows = 1

    def __init__(self, trainer):
        self.trainer = trainer
        self._n_inner = trainer.n_rows
        self.reports_progress = getattr(trainer, "reports_progress", False)

    @property
    def state(self):
        return self.trainer.state

    def run_epoch(self, order, active, progress=None):
        inner = np.repeat(active, self._n_inner)
        if progress is None:
            return self.trainer.run_epoch(order, inner).sum(keepdims=True)
        return self.trainer.run_epoch(order, inner, progress=progress).sum(
            keepdims=True)

    def stopping_statistic(self):
        statistic = getattr(self.trainer, "stopping_statistic", None)
        value = statistic() if statistic is not None else None
        return None if value is None else value.sum(keepdims=True)

    def weight_norm(self):
        return self.trainer.weight_norm()

    def scores(self, rows):
        return self.trainer.scores(rows)

    def snapshot(self):
        return self.trainer.snapshot()

    def keep_rows(self, snapshot, rows):
        if np.any(rows):
            self.trainer.keep_rows(snapshot, slice(None))

    def restore(self, snapshot):
        self.trainer.restore(snapshot)
