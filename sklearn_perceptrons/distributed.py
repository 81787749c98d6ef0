# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Distributed training on Dask: iterative parameter mixing.

:class:`ParameterMixing` trains this package's linear perceptrons on data
partitioned across a Dask cluster by iterative parameter mixing (McDonald,
Hall and Mann, 2010): in every round each partition runs one epoch of the
base estimator from the current mixed weights, on the worker that holds it,
and the client mixes (averages) the weights the partitions send back.  Only
weights travel; the data stay where they are.

Streaming of any estimator of the package that has ``partial_fit``
(``Perceptron``, ``MarginPerceptron``, ``KernelPerceptron``,
``OneVsAllPerceptron``, ``OneVsOnePerceptron``) needs no code here: use
``dask_ml.wrappers.Incremental``, which calls ``partial_fit`` on the blocks
of a Dask array one after the other.

This module needs Dask (``pip install "sklearn_perceptrons[dask]"``); the
rest of the package does not, which is why it is not imported by
``import sklearn_perceptrons``.
"""

import asyncio
import dataclasses
import numbers
import os
import uuid
from concurrent.futures import CancelledError as _FuturesCancelledError
from concurrent.futures import ThreadPoolExecutor

try:
    import dask
    import dask.array as da
except ImportError as exc:  # pragma: no cover - exercised without dask only
    raise ImportError(
        "sklearn_perceptrons.distributed needs Dask, which is not installed. "
        "Install the 'dask' extra: pip install \"sklearn_perceptrons[dask]\" "
        "(dask[array,dataframe], distributed and dask-ml)."
    ) from exc

import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    _fit_context,
    clone,
)
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    check_array,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from ._core.base import (
    check_sample_weight,
    check_some_weight,
    class_weights,
    decision_shape,
    encode_labels,
    keep_state_on_error,
    predict_from_decision,
    set_init_params,
    sum_duplicates,
)
from ._core.callbacks import (
    CallbackSupport,
    callback_fit,
    fit_tasks,
    model_attributes,
)
from ._core.docstrings import shared_doc
from ._linear.perceptron import Perceptron, learning_rate, update_rule
from ._linear.margin import MarginPerceptron
from ._linear.rows import LinearState, PenaltySums, check_finite_weights, run_epoch
from ._core.base import as_csr_int32
from ._core.tables import one_vs_all_table
from ._core._shuffle import shuffle_indices
from ._core.training import StoppingRule, train, warn_not_converged

__all__ = ["ParameterMixing"]

_FLOAT_DTYPES = [np.float64, np.float32]


# ---------------------------------------------------------------------------
# Work done on the workers (top-level functions: pickled by reference)
# ---------------------------------------------------------------------------


def _load_block(X, y, sample_weight, dtype):
    """Validate one partition: ``(X, y, sample_weight)`` as the epoch reads it.

    X becomes a C-ordered float array of ``dtype`` (a no-op for a float
    block of that dtype) or an int32-indexed CSR matrix; NaN or infinity
    raise ``ValueError`` here, on the worker, and the error reaches ``fit``.
    """
    if hasattr(X, "to_numpy") and not sp.issparse(X):  # a pandas partition
        X = X.to_numpy()
    X = check_array(
        X, accept_sparse="csr", dtype=dtype, order="C", ensure_min_samples=0,
        input_name="X",
    )
    X = as_csr_int32(sum_duplicates(X))
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    y = column_or_1d(np.asarray(y), warn=True)
    if y.shape[0] != X.shape[0]:
        raise ValueError(
            f"A partition of X has {X.shape[0]} rows but the matching partition "
            f"of y has {y.shape[0]}: X and y must be partitioned alike."
        )
    if sample_weight is not None:
        if hasattr(sample_weight, "to_numpy"):
            sample_weight = sample_weight.to_numpy()
        sample_weight = np.asarray(sample_weight)
        if sample_weight.shape[0] != X.shape[0]:
            raise ValueError(
                f"A partition of X has {X.shape[0]} rows but the matching "
                f"partition of sample_weight has {sample_weight.shape[0]}."
            )
        if X.shape[0]:
            sample_weight = check_sample_weight(sample_weight, X,
                                                allow_all_zero=True)
    return X, y, sample_weight


def _block_labels(block):
    """Rows, labels, label counts and the sum of the sample weights of each
    label (None without weights) of one loaded partition."""
    y, sample_weight = block[1], block[2]
    labels, inverse, counts = np.unique(y, return_inverse=True,
                                        return_counts=True)
    totals = None if sample_weight is None else np.bincount(
        inverse.reshape(-1), weights=sample_weight, minlength=labels.shape[0])
    return y.shape[0], labels, counts, totals


def _encode_block(block, classes, class_weight, eta):
    """``(X, class index, update size)`` of every row of a partition."""
    X, y, sample_weight = block
    y_class = np.searchsorted(classes, y).astype(np.int32)
    if sample_weight is None:
        sample_weight = np.ones(y.shape[0])
    # The same expression as the base estimator's fit, for equal rounding.
    step = eta * sample_weight * class_weight[y_class]
    return X, y_class, step


def _shard_epoch(shard, seed, coef, intercept, active, spec, penalty=None):
    """One epoch of the base estimator's update rule over one partition.

    Starts from the mixed weights ``(coef, intercept)`` and, with a penalty,
    the mixed cumulative l1 penalty ``penalty = (total, applied)`` (see
    :class:`~sklearn_perceptrons._rows.PenaltySums`); visits the rows in
    order, or in the permutation of ``seed``.  Returns the new weights, the
    updates of every weight row, with averaging the sum of the iterates over
    this epoch's visits and the number of visits of every row (else None),
    and with a penalty its new ``(total, applied)`` (else None).
    """
    X, y_class, step = shard
    fit_intercept, rule, n_classes, average = spec
    state = LinearState(coef.copy(), intercept.copy(), average)
    order = np.arange(X.shape[0], dtype=np.int32)
    if seed is not None:
        shuffle_indices(order, seed)
    sums = None
    if penalty is not None:
        sums = PenaltySums(coef.shape[0], coef.shape[1], rule.penalty)
        sums.total[:], sums.applied[:] = penalty
    updates = run_epoch(
        X, state, order, y_class, step, one_vs_all_table(n_classes),
        fit_intercept=fit_intercept, active=active, rule=rule,
        penalty_sums=sums,
    )
    check_finite_weights(state)
    penalty = None if sums is None else (sums.total, sums.applied)
    if not average:
        return state.coef, state.intercept, updates, None, penalty
    # Daume's trick: the sum of the iterates over T visits is T w_T - coef_sum.
    visits = state.visits
    iterates = (
        visits[:, None] * state.coef - state.coef_sum,
        visits * state.intercept - state.intercept_sum,
        visits,
    )
    return state.coef, state.intercept, updates, iterates, penalty


def _block_decision(X, coef, intercept):
    """Decision values of one block (what ``decision_function`` returns)."""
    if hasattr(X, "to_numpy") and not sp.issparse(X):
        X = X.to_numpy()
    X = check_array(X, accept_sparse="csr", dtype=_FLOAT_DTYPES,
                    ensure_min_samples=0, input_name="X")
    X = sum_duplicates(X)
    return decision_shape(safe_sparse_dot(X, coef.T, dense_output=True) + intercept)


def _block_predict(X, coef, intercept, classes):
    return predict_from_decision(_block_decision(X, coef, intercept), classes)


# ---------------------------------------------------------------------------
# Where the partitions live: a Dask cluster, or this process
# ---------------------------------------------------------------------------


def _default_client():
    """The current ``distributed.Client`` (that of ``with client.as_current():``
    or else the default one), or None when no cluster is in use."""
    try:
        from distributed import Client
    except ImportError:
        return None
    try:
        return Client.current(allow_global=True)
    except ValueError:
        return None


class _LocalRunner:
    """Partitions held in this process; their tasks run on a thread pool.

    Used when no ``distributed.Client`` is active, and always for in-memory
    (NumPy, SciPy) input.  The compiled epoch releases the GIL, so partitions
    train in parallel on the cores of this machine.
    """

    def __init__(self):
        self._pool = None

    def load(self, delayed_blocks):
        return list(dask.compute(*delayed_blocks))

    def map(self, func, handles, per_handle_args=None, common_args=(), name=""):
        per_handle_args = per_handle_args or [()] * len(handles)
        calls = [(h, *a, *common_args) for h, a in zip(handles, per_handle_args)]
        if len(calls) <= 1:
            return [func(*call) for call in calls]
        if self._pool is None:
            self._pool = ThreadPoolExecutor(min(len(calls), os.cpu_count() or 1))
        return list(self._pool.map(lambda call: func(*call), calls))

    def gather(self, handles, what=""):
        return handles

    def wait(self, handles):
        pass

    def release(self, handles):
        pass

    def close(self):
        if self._pool is not None:
            self._pool.shutdown()


class _ClientRunner:
    """Partitions held by the workers of a Dask cluster, as futures.

    Every task on a partition is sent to the worker holding it (a loose
    restriction: if that worker is lost, the scheduler recomputes the
    partition elsewhere and runs the task there, instead of waiting forever).
    Only the task's small arguments and results travel.
    """

    def __init__(self, client):
        self.client = client
        self._token = uuid.uuid4().hex[:12]
        self._holders = {}

    def load(self, delayed_blocks):
        futures = self.client.compute(delayed_blocks)
        self.wait(futures)
        return futures

    def wait(self, futures):
        """Block until the futures are computed (errors surface at gather)."""
        from distributed import wait

        wait(futures)

    def map(self, func, handles, per_handle_args=None, common_args=(), name=""):
        per_handle_args = per_handle_args or [()] * len(handles)
        # Looked up once per partition: a scheduler round trip per round
        # would add to the fixed cost of every round.  If a holder is lost,
        # the loose restriction lets the task run elsewhere.
        missing = [h for h in handles if h.key not in self._holders]
        if missing:
            self._holders.update(
                (key, workers)
                for key, workers in self.client.who_has(missing).items() if workers
            )
        holders = self._holders
        futures = []
        for p, (handle, args) in enumerate(zip(handles, per_handle_args)):
            workers = list(holders.get(handle.key, ()))
            placement = (
                dict(workers=workers, allow_other_workers=True) if workers else {}
            )
            futures.append(self.client.submit(
                func, handle, *args, *common_args,
                key=f"parameter-mixing-{name}-{p}-{self._token}", pure=False,
                **placement,
            ))
        return futures

    def gather(self, handles, what=""):
        import distributed.client
        from distributed.scheduler import KilledWorker

        lost = (
            KilledWorker, _FuturesCancelledError, asyncio.CancelledError,
            # Raised by gather for cancelled futures since distributed 2024.
            getattr(distributed.client, "FutureCancelledError",
                    _FuturesCancelledError),
        )
        try:
            return self.client.gather(handles)
        except lost as exc:
            raise RuntimeError(
                f"ParameterMixing could not complete {what}: "
                f"{type(exc).__name__}: {str(exc).rstrip('. ')}. The cluster "
                "lost the task or its "
                "data (a worker or the whole cluster was restarted, or a worker "
                "died repeatedly while running it). The fit was abandoned; the "
                "estimator is left as it was before fit."
            ) from exc

    def release(self, handles):
        for future in handles:
            future.release()

    def close(self):
        pass


# ---------------------------------------------------------------------------
# Input: Dask collections into aligned row blocks
# ---------------------------------------------------------------------------


def _is_dask_dataframe(obj):
    return (dask.is_dask_collection(obj) and not isinstance(obj, da.Array)
            and hasattr(obj, "divisions"))


def _check_features(estimator, X, *, reset):
    """Set or check ``n_features_in_`` and ``feature_names_in_`` from a Dask X.

    A Dask DataFrame is checked through an empty pandas frame with its
    columns and dtypes, so nothing is computed.
    """
    if _is_dask_dataframe(X):
        import pandas as pd

        X = pd.DataFrame({name: pd.Series(dtype=dtype)
                          for name, dtype in X.dtypes.items()})
    validate_data(estimator, X, reset=reset, skip_check_array=True)


def _float_dtype(dtype):
    """The dtype the epoch runs in: float32 stays, anything else is float64."""
    return np.float32 if dtype == np.float32 else np.float64


def _x_blocks(X):
    """Delayed row blocks of a Dask array or DataFrame, and X's dtype."""
    if _is_dask_dataframe(X):
        dtypes = getattr(X, "dtypes", None)
        dtype = (np.result_type(*[np.dtype(d) for d in dtypes])
                 if dtypes is not None and all(
                     np.dtype(d).kind in "fiub" for d in dtypes) else np.float64)
        return list(X.to_delayed()), _float_dtype(dtype), None
    if X.ndim != 2:
        raise ValueError(
            f"Expected a 2D Dask array for X, got {X.ndim} dimension(s)."
        )
    if X.numblocks[1] > 1:
        # An epoch needs whole rows: one block of columns.
        X = X.rechunk({1: -1})
    return list(X.to_delayed()[:, 0]), _float_dtype(X.dtype), X.chunks[0]


def _vector_blocks(v, row_chunks, n_blocks, name):
    """Delayed blocks of y (or sample_weight) aligned with the blocks of X."""
    if _is_dask_dataframe(v):
        blocks = list(v.to_delayed())
    elif isinstance(v, da.Array):
        if v.ndim == 2 and v.shape[1] == 1:
            v = v[:, 0]
        if v.ndim != 1:
            raise ValueError(f"{name} must be 1-dimensional, got shape {v.shape}.")
        if row_chunks is not None and not any(np.isnan(row_chunks)) and \
                v.chunks[0] != tuple(row_chunks) and \
                not any(np.isnan(v.chunks[0])):
            v = v.rechunk((row_chunks,))
        blocks = list(v.to_delayed())
    else:
        v = column_or_1d(np.asarray(v), warn=True)
        if row_chunks is None or any(np.isnan(row_chunks)):
            raise ValueError(
                f"{name} is an in-memory array but the row blocks of X have "
                f"unknown sizes; pass {name} as a Dask collection partitioned "
                "like X (e.g. a column of the same Dask DataFrame)."
            )
        if v.shape[0] != sum(row_chunks):
            raise ValueError(
                f"X has {int(sum(row_chunks))} rows but {name} has {v.shape[0]}."
            )
        bounds = np.cumsum((0,) + tuple(row_chunks))
        blocks = [v[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    if len(blocks) != n_blocks:
        raise ValueError(
            f"X has {n_blocks} row partitions but {name} has {len(blocks)}: "
            "partition them alike."
        )
    return blocks


# ---------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------


class ParameterMixing(MetaEstimatorMixin, CallbackSupport, ClassifierMixin,
                      BaseEstimator):
    """Distributed perceptron training by iterative parameter mixing.

    The training data are a Dask array or DataFrame split into row
    partitions (shards).  Every round, each partition runs one epoch of the
    base estimator's update rule starting from the current mixed weights,
    on the worker that holds it (with a ``distributed.Client``; otherwise on
    a thread pool of this process), and sends back only its weights and its
    number of updates; the client then mixes the weights: their mean
    (``mixing="uniform"``) or their mean weighted by each partition's
    number of updates (``"mistakes"``).  This is the iterative parameter
    mixing of McDonald, Hall and Mann (2010), which keeps the convergence
    guarantee of the perceptron (see Notes).

    Parameters
    ----------
    estimator : Perceptron or MarginPerceptron, default=None
        The base estimator: its update rule (``threshold``, ``eta0``,
        ``margin`` and ``epsilon``, ``fit_intercept``, ``class_weight``,
        ``average``), its epoch order (``shuffle``) and ``n_iter_no_change``
        are used; its ``max_iter``, ``tol``, ``warm_start`` and ``verbose``
        are replaced by this estimator's parameters.  ``None`` means
        ``Perceptron()``.  ``MarginPerceptron`` needs a float ``margin``
        (the certified search of ``margin="auto"`` is sequential), and
        ``early_stopping`` is not supported.  Multiclass problems are
        learned one-vs-all, every weight row mixed on its own.

    max_rounds : int, default=100
        Maximum number of rounds (epochs over all the data).

    mixing : {"uniform", "mistakes"}, default="uniform"
        How the weights of the partitions are combined after a round:
        their mean, or their mean weighted by the number of updates each
        partition made in the round (per weight row).

    tol : float or None, default=1e-3
        The base estimator's stopping rule, over rounds: when not None, a
        weight row stops after ``n_iter_no_change`` consecutive rounds whose
        updates (over all partitions) did not fall below
        ``best - tol * n_samples``.

    random_state : int, RandomState instance or None, default=None
        Seed of the epoch permutations (when the base estimator shuffles):
        the client draws one seed per round and partition, so the result
        does not depend on which worker runs which partition.  ``None``
        uses the base estimator's ``random_state`` (0 by default), so a
        default fit is reproducible, and a fit on one partition visits the
        rows in the base estimator's own order.

    verbose : int, default=0
        If > 0, print a line per round ("Round k of max_rounds": the updates
        over every partition, ``||w||`` of the mixed weights of every row,
        the round's time, the total time and at most how long the remaining
        rounds take) and a closing line with why the rounds stopped and the
        total time.  See :ref:`ug_verbose` in the user guide.

    Attributes
    ----------
    estimator_ : estimator
        The validated base estimator (a clone; it is not fitted).

    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The mixed weights (or their average over all visits, with
        ``average=True``), in the dtype of X.

    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts.

    classes_ : ndarray of shape (n_classes,)
        The sorted class labels, over all partitions.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features, when X has string column names.

    n_partitions_ : int
        Number of non-empty partitions trained on (empty ones are skipped).

    n_iter_ : int
        Rounds run.

    n_mistakes_ : int
        Total number of updates over all partitions, rounds and rows.

    mistakes_per_round_ : ndarray of shape (n_iter_, n_partitions_)
        Updates of every partition in every round (summed over rows).

    converged_ : bool
        Whether every weight row stopped on a round in which no partition
        made an update.

    See Also
    --------
    sklearn_perceptrons.Perceptron : The base estimator by default.
    dask_ml.wrappers.Incremental : Streams blocks through ``partial_fit``.

    Notes
    -----
    **Convergence** (McDonald et al., 2010, Theorem 3).  Let the data be
    separable with margin γ by a unit vector and lie in a ball of radius R
    (padded vectors when ``fit_intercept``), the base rule be the threshold-0
    perceptron with unit update sizes, and ``k[n, i]`` the updates of
    partition i in round n.  Whatever the partition, with mixing
    coefficients ``mu[n, i] >= 0`` summing to 1 in every round,

        ``sum_n sum_i mu[n, i] * k[n, i] <= (R / γ)**2``.

    It is the *mixed* count that obeys the serial Block–Novikoff bound: with
    uniform mixing over S partitions, ``sum_n sum_i k[n, i] / S <= (R/γ)²``,
    so the total over all partitions is at most ``S (R/γ)²``; with
    ``"mistakes"`` mixing, ``sum_n sum_i k[n, i]² / k[n] <= (R/γ)²``
    (``k[n]`` the updates of round n), which again gives at most
    ``S (R/γ)²`` updates in total.  The number of rounds with an update is
    therefore finite, and the fit converges (``converged_``).

    **One partition** is the base estimator's ``fit``: after k rounds,
    ``coef_`` equals ``Perceptron(max_iter=k, tol=None).fit(X, y).coef_``
    bit for bit (the same per-epoch seeds when shuffling), up to rounding of
    the running average when ``average=True``.

    **Averaging.**  The rounds mix the iterates; with ``average=True`` the
    reported ``coef_`` is the average of the weights over every sample
    visit, on every partition, in every round (each partition sends the sum
    of its iterates over its visits; the client adds them up).

    **Data movement.**  With a ``distributed.Client``, the validated
    partitions are kept in the memory of the workers for the duration of
    ``fit`` (each on the worker that computed it, released at the end) and
    every epoch runs where its partition is; per round, each partition
    receives and returns ``n_rows * (n_features + 1)`` floats (``n_rows`` is
    1, or the number of classes), plus as many again with averaging.
    Without a client, Dask collections are computed by Dask's default
    scheduler into this process.  In-memory input (NumPy, SciPy, pandas) is
    trained in this process as a single partition.

    **Failures.**  A worker lost during a round is handled by Dask: the
    partition is recomputed from its task graph and the round's task is run
    again from the same weights and seed, so the result is the same as
    without the failure.  If Dask gives up (the cluster was restarted, or a
    task killed its worker repeatedly), ``fit`` raises ``RuntimeError`` and
    leaves the estimator as it was.

    References
    ----------
    .. [1] R. McDonald, K. Hall and G. Mann, "Distributed training
       strategies for the structured perceptron", NAACL-HLT, 2010.

    Examples
    --------
    >>> import dask.array as da
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_perceptrons import Perceptron
    >>> from sklearn_perceptrons.distributed import ParameterMixing
    >>> X, y = load_iris(return_X_y=True)
    >>> y = y == 0  # setosa vs. the rest: separable
    >>> dX = da.from_array(X, chunks=(50, 4))  # 3 partitions
    >>> dy = da.from_array(y, chunks=50)
    >>> clf = ParameterMixing(Perceptron(), random_state=0).fit(dX, dy)
    >>> clf.converged_, clf.n_partitions_
    (True, 3)
    >>> clf.predict(dX)  # lazy, block by block
    dask.array<..., shape=(150,), dtype=bool, ...>
    >>> clf.score(dX, dy)
    1.0
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit"]), None],
        "max_rounds": [Interval(numbers.Integral, 1, None, closed="left")],
        "mixing": [StrOptions({"uniform", "mistakes"})],
        "tol": [Interval(numbers.Real, 0, None, closed="left"), None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, estimator=None, *, max_rounds=100, mixing="uniform",
                 tol=1e-3, random_state=None, verbose=0):
        set_init_params(self, locals())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # -- the base estimator ------------------------------------------------

    def _checked_base(self):
        base = Perceptron() if self.estimator is None else clone(self.estimator)
        if not isinstance(base, (Perceptron, MarginPerceptron)):
            raise ValueError(
                "ParameterMixing trains the linear perceptrons of "
                "sklearn_perceptrons (Perceptron, or MarginPerceptron with a "
                f"float margin); got {type(base).__name__}. To stream other "
                "estimators through partial_fit, use "
                "dask_ml.wrappers.Incremental."
            )
        return _mixable(base)

    # -- fit -----------------------------------------------------------------

    @keep_state_on_error
    @_fit_context(prefer_skip_nested_validation=False)
    @callback_fit
    def fit(self, X, y, sample_weight=None):
        """Train by iterative parameter mixing over the partitions of X.

        Parameters
        ----------
        X : dask array or dask DataFrame of shape (n_samples, n_features)
            Training data, partitioned by rows (a Dask array with several
            blocks of columns is rechunked to whole rows).  In-memory input
            (NumPy, SciPy sparse, pandas) is trained as one partition.

        y : dask array, dask Series or array-like of shape (n_samples,)
            Target labels, partitioned like X.

        sample_weight : dask array or array-like of shape (n_samples,), \
                default=None
            Non-negative weights scaling the size of each sample's updates,
            partitioned like X.

        Returns
        -------
        self : ParameterMixing
            The fitted estimator.
        """
        base = self._checked_base()
        if dask.is_dask_collection(X):
            _check_features(self, X, reset=True)
            x_blocks, dtype, row_chunks = _x_blocks(X)
            y_blocks = _vector_blocks(y, row_chunks, len(x_blocks), "y")
            w_blocks = (
                [None] * len(x_blocks) if sample_weight is None
                else _vector_blocks(sample_weight, row_chunks, len(x_blocks),
                                    "sample_weight")
            )
            client = _default_client()
            runner = _ClientRunner(client) if client is not None else _LocalRunner()
            load = dask.delayed(_load_block, pure=True)
            blocks = [load(xb, yb, wb, dtype)
                      for xb, yb, wb in zip(x_blocks, y_blocks, w_blocks)]
        else:
            X, y = validate_data(
                self, X, y, accept_sparse="csr", dtype=_FLOAT_DTYPES, order="C",
                reset=True,
            )
            if sample_weight is not None:
                sample_weight = check_sample_weight(sample_weight, X)
            X = sum_duplicates(X)
            runner, blocks = _LocalRunner(), [(as_csr_int32(X), y, sample_weight)]
            dtype = X.dtype
        try:
            self._fit_blocks(base, runner, blocks, np.dtype(dtype))
        finally:
            runner.close()
        return self

    def _fit_blocks(self, base, runner, blocks, dtype):
        """Load and encode the partitions, then run the rounds."""
        loaded = runner.load(blocks) if dask.is_dask_collection(blocks[0]) else blocks
        shards = None
        try:
            summary = runner.gather(
                runner.map(_block_labels, loaded, name="labels"),
                what="the loading of the partitions",
            )
            sizes = np.array([s[0] for s in summary])
            classes, counts = _merge_labels(summary)
            _check_total_weight(summary)
            keep = np.flatnonzero(sizes > 0)
            loaded_kept = [loaded[p] for p in keep]
            class_weight = self._class_weights(base, classes, counts)
            check_some_weight(class_weight, classes,
                              _class_totals(summary, classes))
            shards = runner.map(
                _encode_block, loaded_kept,
                common_args=(classes, class_weight, learning_rate(base)),
                name="encode",
            )
            runner.wait(shards)
        finally:
            runner.release(loaded)
        try:
            self._run_rounds(base, runner, shards, classes, int(sizes.sum()), dtype)
        finally:
            runner.release(shards)
        self.n_partitions_ = len(keep)

    def _round_attributes(self, base, classes, mixing):
        """The attributes of the model after a round (for the callbacks
        that ask for it)."""
        coef, intercept = mixing.model()

        def set_model(est):
            est.estimator_, est.classes_ = base, classes
            est.coef_, est.intercept_ = coef, intercept

        return model_attributes(self, set_model)

    @staticmethod
    def _class_weights(base, classes, counts):
        if isinstance(base.class_weight, str):  # "balanced", from the counts
            return counts.sum() / (classes.shape[0] * counts.astype(np.float64))
        return class_weights(base, classes)

    def _run_rounds(self, base, runner, shards, classes, n_samples, dtype):
        n_classes = classes.shape[0]
        n_rows = 1 if n_classes == 2 else n_classes
        spec = (base.fit_intercept, update_rule(base, None, n_rows), n_classes,
                base.average)
        rng = check_random_state(
            base.random_state if self.random_state is None else self.random_state
        )
        penalty = spec[1].penalty
        mixing = _MixingTrainer(
            runner, shards, LinearState.zeros(n_rows, self.n_features_in_, dtype,
                                              base.average),
            spec, rng if base.shuffle else None, self.mixing,
            # Only the l1 part of a penalty has a state across epochs.
            PenaltySums(n_rows, self.n_features_in_, penalty)
            if penalty is not None and penalty.l1_step else None,
        )
        stopper = StoppingRule(
            n_rows, tol=self.tol, n_iter_no_change=base.n_iter_no_change,
            n_samples=n_samples, early_stopping=False,
        )
        record = train(
            mixing, train_idx=np.empty(0, dtype=np.int32), rng=rng, shuffle=False,
            max_iter=self.max_rounds, stopper=stopper, verbose=self.verbose,
            label="Round", note=f" over {len(shards)} partition(s)",
            limit="max_rounds",
            callbacks=fit_tasks(self, self.max_rounds, "round"),
            model=lambda trainer, stopper: self._round_attributes(
                base, classes, mixing),
        )
        if record.unconverged.any():
            warn_not_converged(self, int(record.unconverged.sum()),
                               limit="max_rounds")
        self.estimator_ = base
        self.classes_ = classes
        self.coef_, self.intercept_ = mixing.model()
        self.mistakes_per_round_ = np.array(
            mixing.per_partition, dtype=np.int64).reshape(-1, len(shards))
        self.n_iter_ = len(mixing.per_partition)
        self.n_mistakes_ = int(self.mistakes_per_round_.sum())
        self.converged_ = bool(record.converged.all())

    # -- prediction ------------------------------------------------------

    def _dask_input(self, X):
        """A Dask array of X with whole rows, checked against the fit."""
        _check_features(self, X, reset=False)
        if _is_dask_dataframe(X):
            X = X.to_dask_array()
        if X.ndim != 2:
            raise ValueError(f"Expected a 2D Dask array, got {X.ndim} dimension(s).")
        return X.rechunk({1: -1}) if X.numblocks[1] > 1 else X

    @shared_doc
    def decision_function(self, X):
        """Signed confidence of every sample: ``X @ coef_.T + intercept_``.

        {{dask_X}}

        Returns
        -------
        scores : ndarray or dask array of shape (n_samples,) or \
                (n_samples, n_classes)
            For binary problems, the score of ``classes_[1]``; otherwise one
            column per class.  A Dask array (computed lazily, block by
            block, where the blocks are) for Dask input.
        """
        check_is_fitted(self)
        if dask.is_dask_collection(X):
            X = self._dask_input(X)
            binary = self.coef_.shape[0] == 1
            return X.map_blocks(
                _block_decision, self.coef_, self.intercept_, dtype=np.float64,
                drop_axis=1 if binary else None,
                chunks=None if binary else (X.chunks[0], (self.coef_.shape[0],)),
            )
        X = validate_data(
            self, X, accept_sparse="csr", dtype=_FLOAT_DTYPES, order="C",
            reset=False,
        )
        return _block_decision(X, self.coef_, self.intercept_)

    @shared_doc
    def predict(self, X):
        """Predict the class of every sample.

        {{dask_X}}

        Returns
        -------
        y_pred : ndarray or dask array of shape (n_samples,)
            ``classes_[1]`` where the decision is > 0 and ``classes_[0]``
            otherwise (binary), or the class of largest decision (ties go to
            the lowest class index).  A Dask array for Dask input.
        """
        check_is_fitted(self)
        if dask.is_dask_collection(X):
            X = self._dask_input(X)
            return X.map_blocks(
                _block_predict, self.coef_, self.intercept_, self.classes_,
                dtype=self.classes_.dtype, drop_axis=1,
            )
        return predict_from_decision(self.decision_function(X), self.classes_)

    def score(self, X, y, sample_weight=None):
        """Mean accuracy on the given samples (computed, for Dask input).

        Parameters
        ----------
        X : dask array, dask DataFrame, array-like or sparse matrix of \
                shape (n_samples, n_features)
            Test samples.

        y : dask array, dask Series or array-like of shape (n_samples,)
            True labels.

        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        score : float
            Mean accuracy of ``self.predict(X)`` with respect to y.
        """
        if not dask.is_dask_collection(X):
            return super().score(X, y, sample_weight)
        correct = self.predict(X)
        if _is_dask_dataframe(y):
            # Partitioned like X: the same (possibly unknown) block sizes.
            y = y.to_dask_array()
        correct = (correct == y).astype(np.float64)
        if sample_weight is None:
            return float(correct.mean().compute())
        return float(((correct * sample_weight).sum()
                      / da.asarray(sample_weight).sum()).compute())


@_fit_context(prefer_skip_nested_validation=True)
def _mixable(base):
    """``base`` if its update rule can be mixed, else ValueError.

    The rounds stand in for the base estimator's own ``fit``, so this runs in
    its fit context, which validates its parameters first.
    """
    if isinstance(base, MarginPerceptron) and isinstance(base.margin, str):
        raise ValueError(
            "ParameterMixing needs MarginPerceptron(margin=<float>): the "
            "certified search of margin='auto' halves the margin between "
            "serial runs and has no mixed counterpart."
        )
    if getattr(base, "multi_class", "ovr") != "ovr":
        raise ValueError(
            "ParameterMixing mixes one-vs-all rows: use "
            "Perceptron(multi_class='ovr'); multi_class='crammer_singer' "
            "is trained by Perceptron.fit or partial_fit."
        )
    if base.early_stopping:
        raise ValueError(
            "ParameterMixing does not support early_stopping=True in the "
            "base estimator: hold out a validation set yourself and use "
            "tol or max_rounds."
        )
    return base


def _check_total_weight(summary):
    """Refuse sample weights that are zero on every partition, as the
    estimators do: no sample could ever update."""
    totals = [float(np.sum(s[3])) for s in summary if s[3] is not None]
    if totals and not sum(totals) > 0:
        raise ValueError(
            "Sample weights must contain at least one non-zero number: with "
            "every weight 0 no sample can update the model."
        )


@dataclasses.dataclass(eq=False)
class _MixingTrainer:
    """One round of parameter mixing as a trainer of the epoch driver
    (:func:`sklearn_perceptrons._training.train`): every partition runs an
    epoch from the mixed weights, then the weights are mixed.

    ``state`` holds the mixed weights; with averaging, ``state.coef_sum``
    and ``state.intercept_sum`` hold the sums of the iterates over every
    visit of every partition, and ``state.visits`` their number.  With a
    penalty, ``penalty_sums`` holds the mixed cumulative l1 penalty, carried
    from round to round as the base estimator carries it from epoch to
    epoch (one partition then runs the base estimator's epochs exactly).
    ``per_partition`` gets the updates of every partition in every round.
    """

    runner: object
    shards: list
    state: LinearState
    spec: tuple
    rng: object
    mixing: str
    penalty_sums: object = None
    per_partition: list = dataclasses.field(default_factory=list)

    @property
    def n_rows(self):
        return self.state.coef.shape[0]

    def run_epoch(self, order, active):
        # Seeds are drawn here, in partition order, so that the result does
        # not depend on where or when the partitions run.
        seeds = [
            (None,) if self.rng is None
            else (int(self.rng.randint(0, 2**63 - 1, dtype=np.int64)),)
            for _ in self.shards
        ]
        state, round_ = self.state, len(self.per_partition) + 1
        sums = self.penalty_sums
        penalty = () if sums is None else ((sums.total, sums.applied),)
        results = self.runner.gather(
            self.runner.map(
                _shard_epoch, self.shards, seeds,
                common_args=(state.coef, state.intercept, active.copy(),
                             self.spec, *penalty),
                name=f"round{round_}",
            ),
            what=f"round {round_}",
        )
        updates = np.array([r[2] for r in results], dtype=np.int64)
        # A penalty moves every row it visits, with or without updates.
        moved = (active.astype(bool) if self.spec[1].penalty is not None
                 else updates.sum(axis=0) > 0)
        state.coef, state.intercept = _mix(
            [r[:2] for r in results], updates, moved, state.coef,
            state.intercept, self.mixing)
        if sums is not None:
            sums.applied, sums.total = _mix(
                [(applied, total) for total, applied in (r[4] for r in results)],
                updates, moved, sums.applied, sums.total, self.mixing)
        if state.average:
            for r in results:
                state.coef_sum += r[3][0]
                state.intercept_sum += r[3][1]
                state.visits += r[3][2]
        self.per_partition.append(updates.sum(axis=1))
        return updates.sum(axis=0)

    def weight_norm(self):
        return float(np.linalg.norm(self.state.coef))

    def model(self):
        """The mixed weights, or the average of the iterates over every visit."""
        state = self.state
        if not state.average:
            return state.coef, state.intercept
        seen = np.maximum(state.visits, 1.0)
        dtype = state.coef.dtype
        return ((state.coef_sum / seen[:, None]).astype(dtype),
                (state.intercept_sum / seen).astype(dtype))


def _class_totals(summary, classes):
    """The sum of the sample weights of every class over all partitions
    (None without weights)."""
    if all(s[3] is None for s in summary):
        return None
    totals = np.zeros(classes.shape[0])
    for _, labels, counts, weights in summary:
        # A partition without weights weighs 1 per sample.
        np.add.at(totals, np.searchsorted(classes, labels),
                  counts if weights is None else weights)
    return totals


def _merge_labels(summary):
    """Sorted classes over all partitions and the count of each."""
    labels = np.concatenate([s[1] for s in summary])
    if labels.shape[0] == 0:
        raise ValueError("Found X with 0 samples; ParameterMixing needs data.")
    check_classification_targets(labels)
    classes, _ = encode_labels(labels)
    counts = np.zeros(classes.shape[0], dtype=np.int64)
    for _, part_labels, part_counts, _ in summary:
        np.add.at(counts, np.searchsorted(classes, part_labels), part_counts)
    if classes.shape[0] < 2:
        raise ValueError(
            f"The training data contains only one class: {classes.tolist()[0]!r}. "
            "ParameterMixing needs samples of at least 2 classes."
        )
    return classes, counts


def _mix(results, updates, changed, coef, intercept, mixing):
    """Mix the weights ``(coef, intercept)`` of the partitions (in partition
    order, in float64), weighted as ``mixing`` says by the ``updates`` of
    every partition and row.

    A weight row that did not move (``changed`` False) keeps its weights bit
    for bit (averaging identical floats can round).
    """
    if not changed.any():
        return coef, intercept
    coefs = [r[0].astype(np.float64) for r in results]
    intercepts = [r[1].astype(np.float64) for r in results]
    if mixing == "uniform":
        mu = np.full(updates.shape, 1.0 / updates.shape[0])
    else:
        # A row no partition updated (moved by a penalty alone) is mixed
        # uniformly.
        total = updates.sum(axis=0)
        mu = np.where(total > 0, updates / np.maximum(total, 1),
                      1.0 / updates.shape[0])
    # Accumulated partition by partition, element-wise: every weight gets
    # the same sequence of roundings whatever the shapes (an einsum or a dot
    # product would pick its summation order from them).
    mixed_coef = mu[0][:, None] * coefs[0]
    mixed_intercept = mu[0] * intercepts[0]
    for p in range(1, updates.shape[0]):
        mixed_coef += mu[p][:, None] * coefs[p]
        mixed_intercept += mu[p] * intercepts[p]
    new_coef, new_intercept = coef.copy(), intercept.copy()
    new_coef[changed] = mixed_coef[changed]
    new_intercept[changed] = mixed_intercept[changed]
    return new_coef, new_intercept
