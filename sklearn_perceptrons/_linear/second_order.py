# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The second-order perceptron (Cesa-Bianchi, Conconi & Gentile, 2005).

:class:`SecondOrderState` holds what the compiled pass updates (weights,
``A^-1`` or ``diag(A)`` and ``v``, averaging sums) behind ``run_epoch(...)``;
:class:`SecondOrderTrainer` plugs it into the package's epoch driver
(:mod:`sklearn_perceptrons._training`), which owns the order, the stopping
rules, early stopping, verbose lines and diagnostics; and
:class:`SecondOrderPerceptron` owns parameters and labels through the
hooks of :class:`~sklearn_perceptrons._linear.BaseLinearPerceptron`.
"""

import math
import numbers
import os
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval

from .._core.base import (
    fit_method,
    label_index,
    stream_cache,
)
from .._core.cpu import select_build
from .._core.docstrings import shared_doc
from .._core.growth import reindex_rows
from .perceptron import BaseLinearPerceptron, EpochParameters
from .rows import StateTrainer, check_finite_weights, overflow_error, row_arrays
from .stream import SecondOrderStream
from .._core.tables import one_vs_all_table
from .._core.progress import FitLog, in_chunks
from .._core.training import record_partial_pass

_second_order_fast = select_build(f"{__package__}._second_order_fast", "FMA3")

# The typed specialisations of the compiled pass, by (dtype of X, whether X
# is CSR), picked once: indexing a fused function at every call would redo
# the dtype dispatch.
_EPOCH = {
    (np.dtype(np.float64), False): _second_order_fast.epoch_dense["double"],
    (np.dtype(np.float32), False): _second_order_fast.epoch_dense["float"],
    (np.dtype(np.float64), True): _second_order_fast.epoch_csr["double"],
    (np.dtype(np.float32), True): _second_order_fast.epoch_csr["float"],
}
# The update rules of the compiled pass, and the status of a pass that lost
# the positive definiteness of A^-1: the enums of _second_order_core.pxi.
SO_MISTAKE = _second_order_fast.SO_MISTAKE
SO_AROW = _second_order_fast.SO_AROW
_NOT_POSITIVE = _second_order_fast.SO_NOT_POSITIVE
_UNUSED = np.zeros(1)
def _aligned_zeros(n):
    """``n`` float64 zeros starting at a multiple of 64 bytes."""
    buffer = np.zeros(n + 8)
    start = (-buffer.ctypes.data % 64) // 8
    return buffer[start:start + n]


def _aligned(array, copy=False):
    """``array`` (a copy if ``copy``) if its data start at a multiple of 64
    bytes, else an aligned copy: the compiled pass reads the inverse 32 bytes
    at a time, and reads that straddle cache lines cost it a third more time."""
    if array.ctypes.data % 64 == 0 and not copy:
        return array
    aligned = _aligned_zeros(array.size).reshape(array.shape)
    aligned[...] = array
    return aligned


def _packed_positions(pp):
    """The (row, column) of every stored entry of a packed inverse of side
    ``pp``: its 4 x 4 blocks on and below the diagonal, block row after
    block row, each block row-major (see ``_second_order_fast.h``)."""
    n = pp // 4
    block_rows, block_cols = np.tril_indices(n)
    within_rows, within_cols = np.divmod(np.arange(16), 4)
    rows = (4 * block_rows[:, None] + within_rows).ravel()
    cols = (4 * block_cols[:, None] + within_cols).ravel()
    return rows, cols


def _physical_memory():
    """Bytes of RAM of this machine, or None when the OS does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return None


class SecondOrderState:
    """The state of ``n_rows`` second-order perceptrons, in float64.

    ``coef``/``intercept`` are ``w~ = A^-1 v`` split into weights and the
    padded coordinate.  Full mode: ``inverse`` is ``A^-1`` of every row,
    zero-padded from ``p = n_features + fit_intercept`` to ``pp``, a multiple
    of 4, of which the 4 x 4 blocks on and below the diagonal are stored
    packed, shape ``(n_rows, packed_size(pp))`` (:meth:`inverse_matrix` gives
    the full ``p x p`` matrices).  Diagonal mode: ``precision`` holds the
    pairs ``(A_jj, v_j)`` (AROW: ``(A_jj, 1 / A_jj)``), shape
    ``(n_rows, p, 2)``.
    With averaging, ``coef_sum``/``intercept_sum`` and ``visits`` give the
    mean of the iterates over all visits as ``coef - coef_sum / visits``
    (Daume's trick).
    ``dtype`` is the name of the reported model's dtype (that of X).
    """

    # The update rule (SO_MISTAKE or SO_AROW) and the regularization a:
    # class defaults, so that states saved before they were kept load.
    rule = 0
    a = None

    def __init__(self, n_rows, n_features, *, a, diagonal, fit_intercept,
                 average, dtype, rule=0):
        p = n_features + bool(fit_intercept)
        self.coef = np.zeros((n_rows, n_features))
        self.intercept = np.zeros(n_rows)
        self.diagonal = bool(diagonal)
        self.fit_intercept = bool(fit_intercept)
        if diagonal:
            self.inverse = None
            # The pairs (A_jj, v_j): one cache line serves both.
            self.precision = np.zeros((n_rows, p, 2))
            self.precision[:, :, 0] = float(a)
            if rule == SO_AROW:
                # AROW's diagonal keeps 1 / A_jj where v_j would be.
                self.precision[:, :, 1] = 1.0 / float(a)
        else:
            pp = _second_order_fast.padded_size(p)
            rows, cols = _packed_positions(pp)
            self.inverse = np.zeros((n_rows, rows.shape[0]))
            self.inverse[:, (rows == cols) & (rows < p)] = 1.0 / a
            self.precision = None
        self.average = bool(average)
        self.coef_sum = np.zeros((n_rows, n_features) if average else (1, 1))
        self.intercept_sum = np.zeros(n_rows if average else 1)
        self.visits = np.zeros(n_rows)
        # A name, not a np.dtype: skops would list np.dtype as untrusted.
        self.dtype = np.dtype(dtype).name
        self.rule = int(rule)
        self.a = float(a)

    def copy(self):
        new = SecondOrderState.__new__(SecondOrderState)
        for name, value in vars(self).items():
            if name == "inverse" and value is not None:
                # Aligned at once, so that the pass does not copy it again.
                value = _aligned(value, copy=True)
            elif isinstance(value, np.ndarray):
                value = value.copy()
            setattr(new, name, value)
        return new

    def copy_rows(self, source, rows):
        """Set the given rows (boolean mask) to those of ``source``."""
        for name in ("coef", "intercept", "visits", "inverse", "precision"):
            target = getattr(self, name)
            if target is not None:
                target[rows] = getattr(source, name)[rows]
        if self.average:
            self.coef_sum[rows] = source.coef_sum[rows]
            self.intercept_sum[rows] = source.intercept_sum[rows]

    def grown(self, source, sign, a):
        """A new state whose row ``j`` is row ``source[j]`` (its weights,
        ``v`` and averaging sums times ``sign[j]``; ``A`` and the visits as
        they are), or a fresh row (``A = a I``, ``w = 0``, nothing visited)
        where ``source[j]`` is -1 (see
        :mod:`sklearn_perceptrons._core.growth`)."""
        new = SecondOrderState(
            source.shape[0], self.coef.shape[1], a=a, diagonal=self.diagonal,
            fit_intercept=self.fit_intercept, average=self.average,
            dtype=self.dtype, rule=self.rule)
        old = source >= 0
        odd = ["coef", "intercept"] + (["coef_sum", "intercept_sum"]
                                       if self.average else [])
        for name in odd:
            getattr(new, name)[old] = reindex_rows(getattr(self, name), source,
                                                sign)[old]
        new.visits[old] = self.visits[source[old]]
        if self.diagonal:
            # The pairs (A_jj, v_j): A as it is, v times the sign (AROW's
            # pairs (A_jj, 1 / A_jj) hold no sign).
            pairs = self.precision[source[old]].copy()
            if self.rule != SO_AROW:
                pairs[:, :, 1] *= sign[old][:, None]
            new.precision[old] = pairs
        else:
            new.inverse[old] = self.inverse[source[old]]
        return new

    def inverse_matrix(self):
        """The symmetric ``A^-1`` of every row (full mode), from the packed
        blocks the compiled pass keeps."""
        p = self.coef.shape[1] + self.fit_intercept
        pp = _second_order_fast.padded_size(p)
        rows, cols = _packed_positions(pp)
        full = np.zeros((self.inverse.shape[0], pp, pp))
        full[:, cols, rows] = self.inverse
        # The diagonal blocks are stored whole (and are symmetric).
        full[:, rows, cols] = self.inverse
        return full[:, :p, :p]

    @property
    def model_dtype(self):
        """The dtype of :meth:`model` (that of the training data)."""
        return np.dtype(self.dtype)

    def held_pass_arguments(self, table, active, updates):
        """What the compiled pass takes after its rows, order, classes and
        steps, for a caller that runs many one-row passes (the stream): the
        scratch space, made once, and the downdates of ``A^-1`` held back
        (see :meth:`held_pass`)."""
        n_rows = self.coef.shape[0]
        pp = _second_order_fast.padded_size(self.coef.shape[1] + self.fit_intercept)
        held = SimpleNamespace(pp=pp, pending=None, n_pending=None)
        if self.diagonal:
            inverse, precision, work, pending = (
                _UNUSED, self.precision.reshape(-1), _UNUSED, _UNUSED)
            n_pending = np.zeros(n_rows, dtype=np.int32)
        else:
            self.inverse = _aligned(self.inverse)
            inverse, precision = self.inverse.reshape(-1), _UNUSED
            work = _aligned_zeros(2 * pp)
            pending = held.pending = _aligned_zeros(n_rows * pp)
            n_pending = held.n_pending = np.zeros(n_rows, dtype=np.int32)
        held.arguments = (
            tuple(table), active,
            (self.rule, self.fit_intercept, self.diagonal, self.average, True),
            (self.coef, self.intercept, inverse, precision, work, pending,
             n_pending, self.coef_sum, self.intercept_sum, self.visits,
             updates))
        return held

    def held_pass(self, X, order, y_class, step, held):
        """The compiled pass over the rows ``order`` of X (dense or CSR) with
        the arguments ``held`` (:meth:`held_pass_arguments`), in place; the
        downdates of ``A^-1`` are left in ``held`` for :meth:`apply_held`
        (or :meth:`drop_held`).  Returns whether the pass overflowed."""
        if type(X) is np.ndarray:
            return _EPOCH[X.dtype, False](X, (order, y_class, step),
                                          *held.arguments)
        return _EPOCH[X.dtype, True](*row_arrays(X), (order, y_class, step),
                                     *held.arguments)

    def apply_held(self, held):
        """Apply the downdates a :meth:`held_pass` held back."""
        if held.pending is not None:
            _second_order_fast.apply_downdates(self.inverse.reshape(-1),
                                               held.pending, held.n_pending,
                                               held.pp)

    @staticmethod
    def drop_held(held):
        """Forget the downdates a :meth:`held_pass` held back."""
        if held.pending is not None:
            held.pending[:] = 0.0
            held.n_pending[:] = 0

    def restart_average(self):
        """Forget the averaging sums (a warm-started fit averages anew)."""
        self.coef_sum[:] = 0.0
        self.intercept_sum[:] = 0.0
        self.visits[:] = 0.0

    def model(self, copy=True):
        """The (coef, intercept) predictions use, in ``dtype``: the average
        over every visit, or the iterate."""
        coef, intercept = self.coef, self.intercept
        if self.average:
            visits = np.maximum(self.visits, 1.0)
            coef = coef - self.coef_sum / visits[:, None]
            intercept = intercept - self.intercept_sum / visits
        return (coef.astype(self.dtype, copy=copy),
                intercept.astype(self.dtype, copy=copy))

    def run_epoch(self, X, order, y_class, step, table, active):
        """One compiled pass over the rows ``order`` of X (float32/64, dense
        or int32 CSR); returns the updates of every row (int64)."""
        n_rows = self.coef.shape[0]
        updates = np.zeros(n_rows, dtype=np.int64)
        sparse = sp.issparse(X)
        data = (X.data, X.indices, X.indptr) if sparse else (X,)
        pp = _second_order_fast.padded_size(self.coef.shape[1] + self.fit_intercept)
        if not self.diagonal:
            self.inverse = _aligned(self.inverse)
        overflow = _EPOCH[X.dtype, sparse](
            *data, (order, y_class, step), tuple(table), active,
            (self.rule, self.fit_intercept, self.diagonal, self.average, False),
            (self.coef, self.intercept,
             _UNUSED if self.diagonal else self.inverse.reshape(-1),
             self.precision.reshape(-1) if self.diagonal else _UNUSED,
             _UNUSED if self.diagonal else _aligned_zeros(2 * pp),
             _UNUSED if self.diagonal else _aligned_zeros(n_rows * pp),
             np.zeros(n_rows, dtype=np.int32), self.coef_sum,
             self.intercept_sum, self.visits, updates))
        if overflow == _NOT_POSITIVE:
            raise self._not_positive_error(X, step)
        if overflow:
            raise overflow_error(
                "A score w . x or an update", X, step,
                other_advice=", or raise r" if self.rule == SO_AROW
                else ", or raise a")
        return updates

    def _not_positive_error(self, X, step):
        """The ValueError of a pass whose ``A^-1`` lost its positive
        definiteness: the regularization, the largest squared norm of a
        sample and the largest weight, and the remedies, led by whichever
        of the weights or the features is extreme."""
        name = "r" if self.rule == SO_AROW else "a"
        values = X.data if sp.issparse(X) else X
        with np.errstate(over="ignore", invalid="ignore"):
            top_x = float(np.abs(values).max(initial=0.0)) if values.size else 0.0
            top_c = float(np.max(step, initial=0.0)) if len(step) else 0.0
        regularization = f"raise {name} (the scale of ||x||^2 is a sensible start)"
        features = "scale the features (e.g. with StandardScaler)"
        weights = "lower sample_weight or class_weight"
        remedies = [regularization, features, weights]
        if top_x > 0 and top_c > 0 and (abs(math.log(top_c))
                                        > 2 * abs(math.log(top_x))):
            remedies = [weights, regularization, features]
        value = "" if self.a is None else f"={self.a:g}"
        return ValueError(
            "The inverse of A = a I + sum c x~ x~^T lost its positive "
            "definiteness in floating point (x~^T A^-1 x~ came out clearly "
            "negative): its Sherman-Morrison updates no longer hold, A being "
            f"too ill-conditioned, {name}{value} tiny beside c ||x~||^2 (the "
            f"samples reach {top_x:.3g} in magnitude, the weights c = "
            f"sample_weight * class_weight {top_c:.3g}) or the features "
            f"nearly collinear. {remedies[0][0].upper()}{remedies[0][1:]}, "
            f"{remedies[1]}, {remedies[2]}, or use diagonal=True."
        )


class SecondOrderTrainer(StateTrainer):
    """A :class:`SecondOrderState` trained on one data set: the trainer of
    :mod:`sklearn_perceptrons._training` (what it shares with the linear
    trainer comes from :class:`~sklearn_perceptrons._rows.StateTrainer`)."""

    reports_progress = True

    def run_epoch(self, order, active, progress=None):
        # With ``progress``, in chunks: a pass resumes anywhere with the same
        # arithmetic (tested bit for bit against whole epochs).
        updates = in_chunks(
            lambda part: self.state.run_epoch(self.X, part, self.y_class,
                                              self.step, self.table, active),
            order, progress)
        check_finite_weights(self.state)
        return updates


class BaseSecondOrder(EpochParameters, BaseLinearPerceptron):
    """The state, trainer and streaming of :class:`SecondOrderPerceptron` and
    :class:`~sklearn_perceptrons.AROWClassifier`: the same Sherman-Morrison
    updates of ``A^-1``, triggered by mistakes or by the hinge loss
    (``_update_rule_code``), with the regularization named ``a`` or ``r``
    (``_regularization``)."""

    diagonal: bool = False

    _state_types = {"_state": SecondOrderState}

    _parameter_constraints = {
        **BaseLinearPerceptron._parameter_constraints,
        "diagonal": ["boolean"],
    }

    # -- state ---------------------------------------------------------------

    def _regularization(self):
        """The regularization ``a`` of ``A = a I + ...`` (AROW's ``r``)."""
        raise NotImplementedError

    def _new_state(self, X, n_rows):
        n_features = X.shape[1]
        if not self.diagonal:
            p = n_features + bool(self.fit_intercept)
            pp = _second_order_fast.padded_size(p)
            size = 8 * n_rows * _second_order_fast.packed_size(pp)
            memory = _physical_memory()
            if memory is not None and size > memory // 2:
                raise ValueError(
                    f"{type(self).__name__}(diagonal=False) needs {n_rows} "
                    f"matrices of {p} x {p} float64 ({size / 2**30:.1f} GiB), "
                    "more than half of this machine's memory. Use "
                    "diagonal=True for wide data."
                )
        return SecondOrderState(
            n_rows, n_features, a=self._regularization(),
            rule=self._update_rule_code, diagonal=self.diagonal,
            fit_intercept=self.fit_intercept, average=self.average, dtype=X.dtype,
        )

    def _initial_state(self, X, n_rows, coef_init=None, intercept_init=None):
        # The driver's hook; there is no coef_init: A and w start together.
        previous = getattr(self, "_state", None)
        if self.warm_start and previous is not None:
            self._check_warm_start_shape(n_rows, X.shape[1])
            for name in ("diagonal", "fit_intercept"):
                if getattr(previous, name) != bool(getattr(self, name)):
                    raise ValueError(
                        f"warm_start=True continues the previous fit, which had "
                        f"{name}={getattr(previous, name)}; {name} cannot change "
                        "between warm-started fits: set warm_start=False to "
                        "fit a new model."
                    )
            state = previous.copy()
            state.average = bool(self.average)
            state.coef_sum = np.zeros(state.coef.shape if self.average else (1, 1))
            state.intercept_sum = np.zeros(n_rows if self.average else 1)
            state.visits = np.zeros(n_rows)
            state.dtype = X.dtype.name
            return state
        return self._new_state(X, n_rows)

    def _grow_rows(self, source, sign):
        # A new class's row starts as a row of a new model: A = a I, w = 0.
        self._state = self._state.grown(source, sign, self._regularization())

    def _trainer(self, X, y_class, step, table, state, train_idx):
        # The driver's hook: fit trains through SecondOrderTrainer.
        return SecondOrderTrainer(X, y_class, step, table, state)

    def _partial_fit(self, X, y, classes, sample_weight):
        X, y_class, sample_weight, classes = self._validate_partial_fit_data(
            X, y, classes, sample_weight
        )
        n_classes = classes.shape[0]
        n_rows = 1 if n_classes == 2 else n_classes
        table = one_vs_all_table(n_classes)
        step = self._partial_fit_steps(classes, y_class, sample_weight)
        # The state is float64 whatever X is: a batch of the other float
        # type is read as it is, never cast.
        if hasattr(self, "_state"):
            state = self._state.copy()
        else:
            state = self._new_state(X, n_rows)
        log = FitLog(self.verbose) if self.verbose else None
        trainer = SecondOrderTrainer(X, y_class, step, table, state)
        total = int(trainer.run_epoch(np.arange(X.shape[0], dtype=np.int32),
                                      np.ones(n_rows, dtype=np.uint8)).sum())
        if log is not None:
            log.partial(getattr(self, "n_iter_", 0) + 1, X.shape[0], total,
                        trainer.weight_norm())
        self.classes_ = classes
        self._state = state
        self.coef_, self.intercept_ = state.model()
        record_partial_pass(self, total)
        cache = stream_cache(self)
        cache.pop("fast", None)
        labels = label_index(classes)
        if self._lean_calls() and labels is not None:
            cache["fast"] = SecondOrderStream(
                state, table, labels=labels, eta=self._learning_rate(),
                key=self._lean_key(), name=type(self).__name__)
        return self

    def _after_learn(self, X, y, stream, total):
        if stream.adopted is not None:
            # A call of several full-mode rows ran on a copy.
            self._state = stream.adopted
        super()._after_learn(X, y, stream, total)


@shared_doc
class SecondOrderPerceptron(BaseSecondOrder):
    """The second-order perceptron: a perceptron that whitens by the data it erred on.

    Predicts ``sign(v^T (a I + S S^T + x x^T)^-1 x)`` for a sample ``x``,
    where ``S`` holds the samples mistaken so far (as columns) and ``v`` is
    the sum of their signed vectors ``s x``; a mistake adds ``x`` to ``S``
    and ``s x`` to ``v``.  The perceptron updates along ``x``; this one along
    ``A^-1 x`` with ``A = a I + S S^T``, which undoes correlations and bad
    scalings of the features that the mistakes reveal.  Since
    ``(A + x x^T)^-1 x = A^-1 x / (1 + x^T A^-1 x)``, the prediction is the
    sign of ``w . x`` with ``w = A^-1 v``; ``w`` and ``A^-1`` are kept up to
    date by Sherman-Morrison, so a visit costs O(d) and a mistake O(d²).
    ``diagonal=True`` keeps only ``diag(A)``: a mistake then costs O(nnz),
    for wide sparse data.  More than two classes are learned one-vs-all,
    every row with its own ``A``, all rows in one compiled pass over X per
    epoch.

    Parameters
    ----------
    a : float, default=1.0
        The regularization ``a > 0`` of ``A = a I + S S^T``.  Large ``a`` makes
        the algorithm the first-order perceptron (``A^-1 ~ I / a``); small
        ``a`` trusts the second-order information of few mistakes more.  A
        sensible scale is that of ``||x||²``: an ``a`` many orders of
        magnitude below it, on nearly collinear features, makes ``A`` so
        ill-conditioned that the Sherman-Morrison updates of ``A^-1`` lose
        its positive definiteness in floating point, and ``fit`` raises a
        ValueError that says so (rather than return a wrong model).

    diagonal : bool, default=False
        If True, replace ``A`` by its diagonal: ``w_j = v_j / A_jj`` with
        ``A_jj = a + sum of x_j²`` over the mistakes.  A mistake costs O(nnz)
        and memory O(d) instead of O(d²).  It keeps the per-feature scaling
        but gives up the correlations between features (and the rotation
        invariance and mistake bound of the full algorithm).

    fit_intercept : bool, default=True
        Whether to learn an intercept, as the weight of a constant feature 1
        appended to every sample (``x~ = [x; 1]``): it enters ``A`` and ``v``
        like any feature and is regularized by ``a`` like any weight.

    {{epoch_params}}

    average : bool, default=False
        If True, ``coef_`` and ``intercept_`` are the average of ``w~`` over
        every sample visit of training, computed without storing the history.

    class_weight : dict, "balanced" or None, default=None
        Weights of the classes; a sample of class ``j`` gets the weight
        ``c = sample_weight * class_weight[j]`` (see ``fit``).  In the
        one-vs-all sub-problem of class ``k`` a sample keeps the weight of
        its own class.

    {{early_stopping_params}}

    warm_start : bool, default=False
        If True, ``fit`` starts from the state of the previous fit: both
        ``w`` and ``A`` (the running average, if any, starts anew).

    random_state : int, RandomState instance or None, default=0
        Seed of the epoch permutations and of the validation split.

    verbose : int, default=0
        {{verbose_lines}}
        The norm is ``||w||``, the Euclidean norm of the current weights
        ``w = A^-1 v`` of every row (intercepts left out).

    {{grow_classes_param}}

    {{linear_ovr_attrs}}

    n_mistakes_ : int
        Mistakes (updates) of the last ``fit`` over all rows; ``partial_fit``
        adds to it (the online mistake count).

    mistakes_per_epoch_ : list of int
        Mistakes of every epoch of the last ``fit``; ``partial_fit`` appends
        one entry per call.

    converged_ : bool
        Whether every row of the last ``fit`` ended on an epoch with zero
        mistakes (after ``partial_fit``: whether its pass made none).

    See Also
    --------
    Perceptron : The first-order perceptron: O(d) per mistake.
    sklearn_perceptrons.bounds.second_order_mistake_bound : Theorem 1 of [1]_.

    Notes
    -----
    **The prediction.** Let ``A = a I + S S^T`` over the mistakes so far and
    ``M = A^-1``.  The paper's prediction on ``x`` uses the matrix that
    includes ``x``; by Sherman-Morrison

    ``v^T (A + x x^T)^-1 x = v^T M x / (1 + x^T M x)``,

    and ``1 + x^T M x > 0`` because ``M`` is positive definite, so the sign is
    that of ``v^T M x = w . x`` with ``w = M v`` (``M`` is symmetric).  A
    visit is therefore one dot product, O(nnz(x)).  A mistake (``s w . x <=
    0``; a zero score counts as a mistake, as in :class:`Perceptron`) of a
    sample of weight ``c`` sets ``A <- A + c x x^T`` and ``v <- v + c s x``;
    with ``z = M x`` and ``q = x^T z``,

    ``M <- M - c z z^T / (1 + c q)``,
    ``w <- w + c (s - w . x) / (1 + c q) z``,

    O(d·nnz(x) + d²).  Every vector here is padded (``x~ = [x; 1]``) when
    ``fit_intercept``, and the state is float64 whatever the dtype of X.

    **Weights.** ``c = sample_weight * class_weight[y]`` enters ``A`` as
    ``c x x^T`` and ``v`` as ``c s x``; a sample of weight 0 never updates
    and is no mistake.  The weight is not a learning rate: as in the paper,
    scaling every ``c`` and ``a`` together leaves the predictions unchanged.

    **The bound.** On any sequence, the number ``m`` of mistakes of the full
    algorithm with unit weights satisfies, for every ``gamma > 0`` and every
    ``u`` (Theorem 1 of [1]_),

    ``m <= (H + sqrt((a ||u||² + sum_t (u . x_t)²) sum_i ln(1 + l_i / a))) / gamma``

    where the sum over ``t`` and the hinge losses ``H = sum_t max(0, gamma -
    s_t u . x_t)`` run over the mistaken samples only, and ``l_i`` are the
    eigenvalues of ``S S^T``.  Where Novikoff's bound pays ``R² ||u||²``, this
    one pays for the spread of the data along ``u`` and along the
    eigen-directions actually visited; it is much smaller when the features
    are correlated or of very different scales.  Several epochs are one long
    sequence, so ``fit`` obeys it too.  See
    :func:`sklearn_perceptrons.bounds.second_order_mistake_bound`.

    **Cost.** Full mode stores one half of ``n_rows`` symmetric matrices of
    ``(d + 1)²`` float64 (``fit`` refuses sizes beyond half the machine's
    memory); a mistake costs one pass over the half of one of them (each
    entry read and written once), O(d²).  Use ``diagonal=True`` for wide data.
    ``partial_fit`` copies the state once per call, so that a failed call
    leaves the estimator unchanged.

    {{second_order_reference}}

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_perceptrons import Perceptron, SecondOrderPerceptron
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(2000, 2)) * [1.0, 0.01]  # badly scaled features
    >>> y = (X[:, 0] + 100 * X[:, 1] > 0).astype(int)
    >>> second = SecondOrderPerceptron(shuffle=False).partial_fit(X, y, [0, 1])
    >>> first = Perceptron(shuffle=False).partial_fit(X, y, [0, 1])
    >>> bool(second.n_mistakes_ < first.n_mistakes_)
    True
    >>> second.coef_.shape
    (1, 2)
    """

    a: float = 1.0

    _parameter_constraints = {
        **BaseSecondOrder._parameter_constraints,
        "a": [Interval(numbers.Real, 0, None, closed="neither")],
    }

    # The compiled pass's rule: update on mistakes.
    _update_rule_code = SO_MISTAKE

    def _regularization(self):
        return float(self.a)

    # -- public API ----------------------------------------------------------

    @fit_method
    def fit(self, X, y, sample_weight=None):
        """Fit the second-order perceptron by epochs over the training data.

        {{fit_X_y}}

        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights: a sample of weight ``c`` enters ``A`` as
            ``c x x^T`` and ``v`` as ``c s x`` on a mistake.

        {{fit_returns}}
        """
        return self._fit(X, y, None, None, sample_weight)

