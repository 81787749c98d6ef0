# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Multiclass reductions: :class:`OneVsAllPerceptron` and :class:`OneVsOnePerceptron`.

Both are generic scikit-learn meta-estimators: any binary classifier with
``fit`` and ``decision_function`` can be the base estimator, and each binary
sub-problem is trained by a clone of it (in parallel with joblib).

When the base estimator is one of this package's linear perceptrons, a *fast
path* trains every sub-problem together: the compiled epoch of
:mod:`sklearn_perceptrons._linear_fast` walks X once per epoch and updates
the weight rows a sample takes part in (every row for one-vs-all, the
``n_classes - 1`` pairs that involve its class for one-vs-one), so no subset
of X is ever copied.  Each row keeps its own stopping rule, so with the same
sample order the rows equal what the generic path's binary estimators learn;
the fitted ``estimators_`` are real estimators of the base type, assembled
from the rows.
"""

import copy
import inspect
import numbers
import operator
from itertools import combinations
from operator import attrgetter

import numpy as np
import scipy.sparse as sp
from joblib import effective_n_jobs
from sklearn import get_config
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.base import _fit_context
from sklearn.exceptions import NotFittedError
from sklearn.utils import _safe_indexing, check_random_state, get_tags
from sklearn.utils import metadata_routing
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)
from sklearn.utils.metaestimators import _safe_split, available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import (
    _check_sample_weight,
    _num_samples,
    check_is_fitted,
    has_fit_parameter,
    validate_data,
)

from ._linear import margin as _margin
from ._linear import perceptron as _linear
from ._core.callbacks import (
    CallbackSupport,
    callback_fit,
    fit_in_context,
    fit_tasks,
    model_attributes,
)
from ._core.docstrings import shared_doc
from ._core.growth import find_growth, flipped_binary
from ._core.progress import FitLog, sub_problem
from ._core.base import (
    N_JOBS_CONSTRAINT,
    BasePerceptron,
    as_csr_int32,
    check_params,
    class_indices,
    encode_labels,
    fork,
    grow_labels,
    keep_state_on_error,
    with_new_params,
    lean_codes,
    partial_fit_classes,
    label_index,
    param_names,
    partial_fit_context,
    PredictMixin,
    predict_rows,
    set_init_params,
    stream_cache,
    validate_rows,
)
from ._linear.perceptron import Perceptron
from ._linear.margin import MarginPerceptron
from ._linear.rows import (
    LinearState,
    LinearTrainer,
    commit_state,
    dense_stream,
    row_views,
)
from ._core.tables import one_vs_all_table, one_vs_one_table
from ._core.training import (
    StoppingRule,
    record_partial_pass,
    record_partial_passes,
    set_fit_results,
    train,
)

_FLOAT_DTYPES = [np.float64, np.float32]

# The labels of every binary sub-problem, as scikit-learn's multiclass
# meta-estimators use them: 1 is the positive class.
_BINARY_CLASSES = np.array([0, 1])


# ---------------------------------------------------------------------------
# Which base estimators the fast path trains
# ---------------------------------------------------------------------------


# The linear perceptrons whose sub-problems can share one compiled pass.
# Exact types only: a subclass may override ``fit`` with something the shared
# pass does not reproduce.
_SHARED_PASS_TYPES = (Perceptron, MarginPerceptron)


def _shared_pass_supported(estimator, *, partial=False):
    """Whether the fast path reproduces ``estimator``'s binary training.

    Falls back to the generic path (documented in the estimators) when

    * ``class_weight`` is set: the generic path's binary estimators see the
      labels 0/1, so their class weights are those of the binary problem, not
      of the original classes;
    * ``early_stopping`` (``fit`` only): each binary estimator of the generic
      path draws its own validation split from its own samples, which a pass
      shared by every sub-problem cannot reproduce;
    * ``margin="auto"`` of the margin perceptron: its certified search runs
      per binary problem, on that problem's radius;
    * ``multi_class="crammer_singer"``: its binary problems have two rows
      that move together, not the one row of the shared pass.
    """
    if type(estimator) not in _SHARED_PASS_TYPES:
        return False
    if getattr(estimator, "multi_class", "ovr") != "ovr":
        return False
    if estimator.class_weight is not None:
        return False
    if not partial and estimator.early_stopping:
        return False
    if isinstance(getattr(estimator, "margin", None), str):
        return False
    return True


def _validates_as_ours(estimators, params):
    """Whether every binary estimator is one of this package's linear
    perceptrons (exact types) given no metadata but sample weights: they all
    validate X by the package's rules (``validate_rows``), so that
    ``predict`` may validate it once, by those rules, for all of them, as
    the fast path does (on the generic path too: ``margin="auto"``,
    ``class_weight``, ``early_stopping``)."""
    return set(params) <= {"sample_weight"} and all(
        type(e) in _SHARED_PASS_TYPES for e in estimators)


_PARAM_NAMES = {}


def _same_parameters(estimators):
    """Whether every estimator has the type and parameters of the first.

    ``random_state`` is left out: ``partial_fit`` never shuffles, and clones
    of a ``RandomState`` instance never compare equal.
    """
    cls = type(estimators[0])
    get_params = _PARAM_NAMES.get(cls)
    if get_params is None:
        get_params = _PARAM_NAMES[cls] = attrgetter(
            *[n for n in cls._get_param_names() if n != "random_state"]
        )
    reference = get_params(estimators[0])
    return all(
        type(est) is cls and get_params(est) == reference for est in estimators[1:]
    )


# ---------------------------------------------------------------------------
# The generic path: one clone of the base estimator per binary problem
# ---------------------------------------------------------------------------


def _fit_binary(estimator, X, y, params, name, context=None, owner=None):
    """Fit a clone of ``estimator`` on one binary problem (labels 0/1);
    ``params``: the metadata of its ``fit`` (sample_weight, ...); ``name``
    of the problem, in front of the verbose lines of its fit; ``context``:
    its callback task in the fit of the reduction ``owner`` (see
    ``callbacks.fit_in_context``), or None."""
    est = clone(estimator)
    with sub_problem(name):
        return fit_in_context(context, owner, est,
                              lambda: est.fit(X, y, **params))


def _subset_metadata(params, n_samples, indices):
    """The metadata of the samples ``indices``: every value with one entry per
    sample is indexed, any other value is passed as it is."""
    subset = {}
    for name, value in params.items():
        try:
            per_sample = (
                not isinstance(value, (str, dict))
                and _num_samples(value) == n_samples
            )
        except TypeError:  # not an array-like
            per_sample = False
        subset[name] = _safe_indexing(value, indices) if per_sample else value
    return subset


def _routing_enabled():
    """Whether scikit-learn's metadata routing is enabled."""
    return bool(get_config().get("enable_metadata_routing", False))


def _fit_pair(estimator, X, y_class, i, j, params, name, context=None,
              owner=None):
    """Fit a clone on the samples of classes i and j only (j positive)."""
    indices = np.flatnonzero((y_class == i) | (y_class == j))
    X_pair, _ = _safe_split(estimator, X, None, indices)
    y_pair = (y_class[indices] == j).astype(np.int64)
    params = _subset_metadata(params, y_class.shape[0], indices)
    return _fit_binary(estimator, X_pair, y_pair, params, name,
                       context, owner), indices


def _partial_fit_binary(estimator, X, y, params, name):
    """One ``partial_fit`` call of a copy of ``estimator`` (labels 0/1).

    Works on a copy (:func:`~._base.fork`: of this package's estimators, one
    whose cost does not grow with the stream) so that a failure in any
    sub-problem leaves every fitted estimator of the meta-estimator as it
    was.  ``name``: see :func:`_fit_binary`.
    """
    estimator = fork(estimator)
    # Classes on the first call only, as scikit-learn's partial_fit asks: a
    # later call without them may take the base's lean streaming path.
    fitted = getattr(estimator, "classes_", None)
    classes = None if (isinstance(fitted, np.ndarray)
                       and np.array_equal(fitted, _BINARY_CLASSES)) \
        else _BINARY_CLASSES
    with sub_problem(name):
        return estimator.partial_fit(X, y, classes=classes, **params)


def _problem_name(classes, i, j):
    """The name of binary problem (i, j) (i None: one-vs-all) in verbose
    lines."""
    rest = "rest" if i is None else classes[i]
    return f"{classes[j]} vs {rest}" if i is None else f"{classes[i]} vs {classes[j]}"


# Parameter values that copies of an estimator may share (nothing can change
# them in place).
_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes, np.number)


def _unfitted_copies(template, n):
    """``n`` independent copies of the unfitted estimator ``template``, as
    ``copy.deepcopy`` makes them but sharing immutable parameter values
    (a deep copy of each of the K(K-1)/2 binary estimators of a one-vs-one
    model would cost as much as a short epoch)."""
    # Callbacks are shared by reference, as scikit-learn's clone shares them.
    shared = {name: value for name, value in template.__dict__.items()
              if isinstance(value, _IMMUTABLE) or name == "_skl_callbacks"}
    others = {name: value for name, value in template.__dict__.items()
              if name not in shared}
    copies = []
    for _ in range(n):
        estimator = template.__class__.__new__(template.__class__)
        estimator.__dict__.update(shared)
        estimator.__dict__.update(copy.deepcopy(others))
        copies.append(estimator)
    return copies


def _narrow_csr(X):
    """CSR ``X`` with int32 indices when they fit (scikit-learn's own
    estimators, LinearSVC or SGDClassifier as bases, refuse int64 indices;
    this package's convert them once, see ``as_csr_int32``); any other X,
    or one too large for int32, as it is, for the base to judge."""
    if sp.issparse(X) and X.format == "csr":
        try:
            return as_csr_int32(X)
        except ValueError:
            return X
    return X


def _is_fitted(estimator):
    if hasattr(estimator, "classes_"):  # fitted classifiers (cheap check)
        return True
    try:
        check_is_fitted(estimator)
    except NotFittedError:
        return False
    return True


def _linear_scores(estimators, X):
    """The 1-d decisions of fitted binary linear perceptrons on a few rows
    of a validated dense X, as their own ``decision_function`` computes
    them (``X @ coef_.T + intercept_``) without validating X again for each
    (most of a one-row call); for one row, the scalar decisions
    (``binary_row_decision``).  None when that does not hold for all of
    them.
    """
    if type(X) is not np.ndarray or X.shape[0] > 8:
        return None
    base = _linear.BaseLinearPerceptron.decision_function
    n_features = X.shape[1]
    for est in estimators:
        d = est.__dict__
        if (getattr(type(est), "decision_function", None) is not base
                or d.get("n_features_in_") != n_features
                or "feature_names_in_" in d):
            return None
    if X.shape[0] == 1:
        row = _linear.binary_row_decision
        out = []
        for est in estimators:
            coef = est.coef_
            if coef.shape[0] != 1:  # not a binary problem's single row
                return None
            out.append(row(X, coef, est.intercept_))
        return out
    out = []
    for est in estimators:
        scores = X @ est.coef_.T
        scores += est.intercept_
        out.append(scores.ravel())
    return out


def _confidence_limit(n_classes):
    """The largest magnitude of a pair's confidence in a one-vs-one vote.

    A class sums the confidences of its ``n_classes - 1`` pairs, and the vote
    normalizes the sum ``s`` as ``s / (3 (|s| + 1))``: confidences clipped to
    this limit keep the sum, and ``3 (|s| + 1)``, finite (scores near the
    largest float would make it ``inf / inf``); no smaller score changes.
    """
    return float(np.finfo(np.float64).max) / (4.0 * max(n_classes - 1, 1))


def _binary_decision(estimator, X):
    """The 1-d decision of a binary estimator and its 0/1 predictions."""
    scores = np.ravel(estimator.decision_function(X))
    if isinstance(estimator, BasePerceptron):
        # By the contract of this package, predict is ``decision > 0``.
        return scores, scores > 0
    return scores, np.asarray(estimator.predict(X)) == 1


# ---------------------------------------------------------------------------
# The fast path: every row in one compiled pass over X per epoch
# ---------------------------------------------------------------------------


def _joblib_jobs(n_jobs, n_tasks):
    """``n_jobs`` for joblib's ``Parallel`` over ``n_tasks`` tasks: a count
    beyond the tasks starts no more workers than there are tasks (a huge
    one would make joblib fail on its own limits)."""
    if n_jobs is None or n_jobs < 0:
        return n_jobs
    return max(1, min(n_jobs, n_tasks))


def _n_threads(n_jobs):
    """Threads of the fast path's compiled pass for ``n_jobs``: each trains
    a group of rows, bit for bit as one thread would (see ``_rows.run_epoch``)."""
    return max(1, effective_n_jobs(n_jobs))


@_fit_context(prefer_skip_nested_validation=True)
def _shared_fit(base, X, y_class, sample_weight, table, row_counts, n_jobs, *,
                callbacks=None, model=None):
    """Every epoch of ``fit`` for every row at once, through the driver.

    It stands in for the binary estimators' ``fit``, so it runs in their fit
    context, which validates ``base``'s parameters first.

    ``row_counts`` is the number of samples of every row's binary problem:
    the ``n_samples`` of its tol rule, as the generic path's binary
    estimator of a pair sees only that pair's samples.  ``n_jobs`` threads
    train groups of rows.  ``callbacks`` and ``model``: those of
    ``train``.  Returns the final state and the training record.
    """
    n_rows = row_counts.shape[0]
    state = LinearState.zeros(n_rows, X.shape[1], X.dtype, base.average)
    trainer = LinearTrainer(
        X, y_class, _linear.learning_rate(base) * sample_weight, table, state,
        fit_intercept=base.fit_intercept,
        rule=_linear.update_rule(base, X, n_rows), n_threads=_n_threads(n_jobs),
    )
    stopper = StoppingRule(
        n_rows, tol=base.tol, n_iter_no_change=base.n_iter_no_change,
        n_samples=row_counts.astype(np.float64), early_stopping=False,
    )
    record = train(
        trainer, train_idx=np.arange(X.shape[0], dtype=np.int32),
        rng=check_random_state(base.random_state), shuffle=base.shuffle,
        max_iter=base.max_iter, stopper=stopper, verbose=base.verbose,
        callbacks=callbacks, model=model,
    )
    return trainer.state, record


def _shared_partial_fit(reference, state, X, y_class, sample_weight, table,
                        n_jobs):
    """One pass over the batch in the given order (updates ``state``);
    returns the updates of every row."""
    n_rows = state.coef.shape[0]
    # The rule of the binary estimators' own pass (the fast path takes only
    # rules without an online search, see _shared_pass_supported).
    trainer = LinearTrainer(
        X, y_class, _linear.learning_rate(reference) * sample_weight, table,
        state, fit_intercept=reference.fit_intercept,
        rule=_linear.update_rule(reference, X, n_rows),
        n_threads=_n_threads(n_jobs),
    )
    return trainer.run_epoch(np.arange(X.shape[0], dtype=np.int32),
                             np.ones(n_rows, dtype=np.uint8))


# The first pass of fresh binary estimators stands in for their first
# partial_fit, which validates their parameters.
_first_shared_partial_fit = _fit_context(prefer_skip_nested_validation=True)(
    _shared_partial_fit
)


class _ReductionStream:
    """The lean ``partial_fit`` of a reduction: one-row calls (up to 256
    rows) of a float ndarray go straight to the compiled stream of the
    stacked rows (``DenseStream.run``), whose binary estimators hold views
    (see :func:`~sklearn_perceptrons._rows.row_views`); for binary
    ``MarginPerceptron(margin="auto")`` estimators, to the online margin
    search of every row over that stream (see
    :func:`~sklearn_perceptrons._margin.reduction_search`).

    Armed by the full path after a shared pass, or after a generic pass of
    binary margin searches; :meth:`learn` declines, touching nothing,
    unless the parameters (of the reduction and of every binary estimator),
    the binary estimators and their states are those it was armed with,
    and the rows are finite and safe from overflow.
    """

    @classmethod
    def arm(cls, owner, cache, estimators, classes):
        reference = estimators[0]
        base = _linear.BaseLinearPerceptron
        # What _finish_row sets after a full pass, a lean call leaves to the
        # binary estimators' _after_learn (they defer it until read).
        after = type(reference)._after_learn is not base._after_learn
        if ("feature_names_in_" in owner.__dict__
                or (type(reference)._finish_row is not base._finish_row
                    and not after)
                or any(e.__dict__.get("_state") is None for e in estimators)):
            return
        labels = label_index(classes)
        if labels is None:
            return
        key = cache.get("params")
        if key is None:  # the first call: the next one arms
            return
        table = owner._table(classes.shape[0])
        rows_ptr, rows = table[0], table[1]
        touched = [rows[rows_ptr[c]:rows_ptr[c + 1]].tolist()
                   for c in range(classes.shape[0])]
        self = cls()
        if _margin.searches_margin(reference):
            # The generic path's binary searches (same parameters, as the
            # generic path has them), silent and without class weights.
            if (reference.verbose or reference.class_weight is not None
                    or not _same_parameters(estimators)):
                return
            made = _margin.reduction_search(cache, owner, estimators, table,
                                            labels, touched)
            if made is None:
                return
            stack, self.search = made
            self.stream = None
        else:
            stack = cache.get("stack")
            if stack is None:
                return
            n_rows = stack.coef.shape[0]
            rule = _linear.update_rule(reference, None, n_rows)
            if rule.penalty is not None:  # the stream has no penalty
                return
            commit_state(cache, owner, stack, None)
            self.search = None
            self.stream = dense_stream(
                cache, owner, stack, table,
                fit_intercept=reference.fit_intercept, rule=rule,
            )
        self.key = key
        self.classes = classes
        self.list = estimators
        # What a binary estimator may change by hand: the estimator in the
        # list, its state, its parameters (the reduction's own parameters
        # are checked by check_params).  Read with getters that loop in C.
        self.members = list(estimators)
        self.dicts = [e.__dict__ for e in estimators]
        self.getter = operator.itemgetter(
            "_state", *(("_search_state",) if self.search is not None else ()),
            *param_names(reference))
        self.values = list(map(self.getter, self.dicts))
        self.labels = labels
        self.eta = float(_linear.learning_rate(reference))
        self.dtype = stack.coef.dtype
        self.n_features = stack.coef.shape[1]
        self.average = stack.average
        self.touched = touched
        # The classes (negative, positive) of every row: a row's binary
        # estimator sees the samples of its classes (negative None: all),
        # labelled 1 for its positive class.
        self.pairs = owner._rows(classes.shape[0]) if after else None
        if after:
            # The estimators and labels of a one-row call, by class.
            self.after_rows = type(reference)._after_learn_rows
            self.one_row = [
                ([estimators[k] for k in self.touched[c]],
                 [(int(c == self.pairs[k][1]),) for k in self.touched[c]])
                for c in range(classes.shape[0])
            ]
        cache["fast"] = self

    def learn(self, owner, X, y):
        """Make the call, or return False having changed nothing."""
        d = owner.__dict__
        if (type(X) is not np.ndarray or X.ndim != 2 or X.dtype != self.dtype
                or not X.flags.c_contiguous or X.shape[1] != self.n_features
                or not 0 < X.shape[0] <= 256
                or d.get("estimators_") is not self.list
                or d.get("classes_") is not self.classes
                or check_params(owner) is not self.key):
            return False
        if not all(map(operator.is_, self.list, self.members)):
            return False
        try:
            # Tuples compare their items by identity first: equal here
            # means the same objects, or values that compare equal.
            if list(map(self.getter, self.dicts)) != self.values:
                return False
        except (KeyError, ValueError, TypeError):  # missing, or no truth value
            return False
        codes = lean_codes(self.labels, y, X.shape[0])
        if codes is None:
            return False
        if self.search is not None:
            updates = self.search.run_rows(X, codes)
        else:
            updates = self.stream.run(X, np.array(codes, dtype=np.int32),
                                      np.full(len(codes), self.eta))
        if updates is None:
            return False
        # Nothing can fail from here on.
        if len(codes) == 1:
            rows = self.touched[codes[0]]
        else:
            rows = sorted(set().union(*(self.touched[c] for c in set(codes))))
        if self.average:
            for k in rows:
                # The average moved: coef_ is computed when read.
                self.dicts[k].pop("coef_", None)
                self.dicts[k].pop("intercept_", None)
        record_partial_passes(self.dicts, rows, updates)
        if self.pairs is not None:
            self._after_learn(X, codes, rows)
        return True

    def _after_learn(self, X, codes, rows):
        """The binary estimators' ``_after_learn`` of the rows ``rows``, each
        on its samples of the call (labels 0/1), as ``_finish_row`` of the
        full way sees them; one copy of X serves every row that sees all."""
        X = X.copy()
        if len(codes) == 1:
            members, labels = self.one_row[codes[0]]
            self.after_rows(members, [(X, y) for y in labels])
            return
        batches = []
        for k in rows:
            negative, positive = self.pairs[k]
            if negative is None:
                X_k, codes_k = X, codes
            else:
                taken = [t for t, c in enumerate(codes)
                         if c == negative or c == positive]
                X_k = X if len(taken) == len(codes) else X[taken]
                codes_k = [codes[t] for t in taken]
            batches.append((X_k, [int(c == positive) for c in codes_k]))
        self.after_rows([self.list[k] for k in rows], batches)


# ---------------------------------------------------------------------------
# The shared machinery of both reductions
# ---------------------------------------------------------------------------


def _estimators_have(attr):
    """``available_if`` check: the fitted estimators (else the base) have ``attr``.

    Raises the base's own ``AttributeError`` otherwise, as scikit-learn's
    multiclass meta-estimators do.
    """

    def check(self):
        if hasattr(self, "estimators_"):
            getattr(self.estimators_[0], attr)
        else:
            getattr(self._base_estimator(), attr)
        return True

    return check


class _BaseReduction(PredictMixin, MetaEstimatorMixin, CallbackSupport,
                     ClassifierMixin, BaseEstimator):
    """Validation, fitting paths and tags shared by both reductions.

    Subclasses define the binary problems: ``_rows(n_classes)`` (the class
    pairs ``(negative, positive)`` of every row, ``negative`` None for "the
    rest"), ``_table``, ``_fit_generic`` and ``_partial_fit_generic``.
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "decision_function"]), None],
        "n_jobs": N_JOBS_CONSTRAINT,
        "grow_classes": ["boolean"],
    }

    # sample_weight is passed on to the binary estimators, never consumed by
    # the reduction itself (so it has no set_fit_request of its own).
    __metadata_request__fit = {"sample_weight": metadata_routing.UNUSED}
    __metadata_request__partial_fit = {
        "classes": metadata_routing.UNUSED,
        "sample_weight": metadata_routing.UNUSED,
    }

    # Each public reduction defines its own __init__ (the same one), so that
    # a misspelt parameter's TypeError names the class the user wrote.

    def __getstate__(self):
        # The streaming cache (see _base.stream_cache) is never saved.
        state = dict(super().__getstate__())
        state.pop("_stream", None)
        return state

    def __setstate__(self, state):
        super().__setstate__(with_new_params(type(self), state))

    def _base_estimator(self):
        return Perceptron() if self.estimator is None else self.estimator

    @property
    def n_classes_(self):
        """Number of classes."""
        return len(self.classes_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        base_tags = get_tags(self._base_estimator())
        tags.input_tags.sparse = base_tags.input_tags.sparse
        tags.input_tags.pairwise = base_tags.input_tags.pairwise
        tags.input_tags.allow_nan = base_tags.input_tags.allow_nan
        return tags

    # -- public API ----------------------------------------------------------

    @_fit_context(
        # The base estimator's parameters are validated by its own fit.
        prefer_skip_nested_validation=False
    )
    @keep_state_on_error
    @callback_fit
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit one binary estimator per sub-problem.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (a square Gram matrix for a base estimator with a
            precomputed kernel).

        y : array-like of shape (n_samples,)
            Target labels.

        sample_weight : array-like of shape (n_samples,), default=None
            Weights passed to every binary estimator's ``fit``, restricted to
            the samples of its sub-problem (the base must accept
            ``sample_weight``).  With metadata routing enabled, they are
            passed only if the base requests them
            (``estimator.set_fit_request(sample_weight=True)``), like any
            other metadata.

        **fit_params : dict
            Other metadata of the binary estimators' ``fit``, restricted to
            the samples of each sub-problem when they have one value per
            sample.  Only with metadata routing enabled
            (``sklearn.set_config(enable_metadata_routing=True)``), and only
            the metadata the base estimator requests: see scikit-learn's
            :ref:`Metadata Routing User Guide <metadata_routing>`.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit(X, y, self._metadata("fit", sample_weight, fit_params))

    @available_if(_estimators_have("partial_fit"))
    def partial_fit(self, X, y, classes=None, sample_weight=None,
                    **partial_fit_params):
        """Make one ``partial_fit`` pass of every binary estimator over its
        samples of a batch.

        A one-vs-one pair with no sample of its two classes in the batch is
        not updated.  On the fast path (see Notes), and for binary
        ``MarginPerceptron(margin="auto")`` estimators, once every binary
        estimator has seen a sample, a call on a few rows of a float ndarray
        costs little more than the update itself: the weights of the binary
        estimators are then updated in place, so their ``coef_`` may change
        under a reference kept from an earlier call (copy it to keep a
        snapshot), as for :class:`Perceptron`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data.

        y : array-like of shape (n_samples,)
            Target labels of the batch; classes may be absent from it.

        classes : array-like of shape (n_classes,), default=None
            Every label of the stream; required on the first call (at least
            two).  With ``grow_classes=True`` a later call may name more
            classes, and labels outside ``classes_`` join it.

        sample_weight : array-like of shape (n_samples,), default=None
            Weights passed, restricted to the samples of its sub-problem, to
            every binary estimator's ``partial_fit`` (with metadata routing
            enabled: if the base requests them, through
            ``set_partial_fit_request(sample_weight=True)``).

        **partial_fit_params : dict
            Other metadata of the binary estimators' ``partial_fit``; only
            with metadata routing enabled, as in :meth:`fit`.

        Returns
        -------
        self : object
            The updated estimator.
        """
        if classes is None and sample_weight is None and not partial_fit_params:
            cache = self.__dict__.get("_stream")
            fast = None if cache is None else cache.get("fast")
            if fast is not None and fast.learn(self, X, y):
                return self
        return self._checked_partial_fit(X, y, classes, sample_weight,
                                         **partial_fit_params)

    @keep_state_on_error
    @partial_fit_context(prefer_skip_nested_validation=False)
    def _checked_partial_fit(self, X, y, classes=None, sample_weight=None,
                             **partial_fit_params):
        """``partial_fit`` the full way: every check, then the pass."""
        return self._partial_fit(
            X, y, classes,
            self._metadata("partial_fit", sample_weight, partial_fit_params),
        )

    def get_metadata_routing(self):
        """Get the metadata routing of this object.

        ``fit`` and ``partial_fit`` route their metadata to the same methods
        of the binary estimators; see scikit-learn's :ref:`Metadata Routing
        User Guide <metadata_routing>`.

        Returns
        -------
        routing : sklearn.utils.metadata_routing.MetadataRouter
            The routing information.
        """
        return (
            MetadataRouter(owner=self)
            .add_self_request(self)
            .add(
                estimator=self._base_estimator(),
                method_mapping=MethodMapping()
                .add(caller="fit", callee="fit")
                .add(caller="partial_fit", callee="partial_fit"),
            )
        )

    def _metadata(self, method, sample_weight, params):
        """The metadata of the binary estimators' ``method``.

        With metadata routing enabled, what the base estimator requests (and
        scikit-learn's error for metadata it does not); otherwise
        ``sample_weight`` alone, and other metadata is an error.
        """
        if _routing_enabled():
            if sample_weight is not None:
                params = {"sample_weight": sample_weight, **params}
            routed = process_routing(self, method, **params)
            return dict(routed["estimator"][method])
        if params:
            raise ValueError(
                f"{type(self).__name__}.{method} got the extra keyword "
                f"argument(s) {sorted(params)}: passing metadata other than "
                "sample_weight on to the binary estimators needs metadata "
                "routing: sklearn.set_config(enable_metadata_routing=True), "
                f"and estimator.set_{method}_request(...) on the base."
            )
        return {} if sample_weight is None else {"sample_weight": sample_weight}

    # -- validation ------------------------------------------------------

    def _validate_X_y(self, X, y, *, shared, reset, labels_known=False):
        """Validate X as the base estimator would, and y as labels.

        On the fast path X is validated exactly as this package's perceptrons
        do (float32/float64 kept, CSR, finite); otherwise only its shape is
        checked and its values are left to the base estimator (NaN passes
        through to a base that accepts it).
        """
        if shared:
            # This package's perceptrons' validation, with its lean path for
            # streaming one row at a time.
            X, y = validate_rows(self, X, y, reset=reset)
        else:
            X, y = validate_data(
                self, X, y, accept_sparse=["csr", "csc"], dtype=None,
                ensure_all_finite=False, reset=reset,
            )
            X = _narrow_csr(X)
        if y.dtype.kind not in "iub" and not labels_known:
            # Integer labels are always a classification target (and
            # encode_labels counts them without this O(n log n) check);
            # partial_fit checks every label against its classes instead.
            check_classification_targets(y)
        return X, y

    def _validate_X(self, X):
        """Validate X for prediction with the settings of the last fit."""
        if "estimators_" not in self.__dict__:
            # Fitted reductions have estimators_, which is all that
            # check_is_fitted would look for: only the others pay for it.
            check_is_fitted(self)
        if getattr(self, "_shared_input", False):
            return predict_rows(self, X)
        return _narrow_csr(validate_data(
            self, X, accept_sparse=["csr", "csc"], dtype=None,
            ensure_all_finite=False, reset=False,
        ))

    def _check_metadata(self, params, X, estimator, method, shared):
        """The metadata with ``sample_weight`` checked (non-negative on the
        fast path); without routing, the base must accept sample_weight."""
        sample_weight = params.get("sample_weight")
        if sample_weight is None:
            return params
        if _routing_enabled():
            accepts = True  # the base requested it
        elif method == "fit":
            accepts = has_fit_parameter(estimator, "sample_weight")
        else:
            accepts = "sample_weight" in inspect.signature(
                getattr(estimator, method)
            ).parameters
        if not accepts:
            raise TypeError(
                f"{type(self).__name__} got sample_weight, but the base estimator "
                f"{type(estimator).__name__}.{method} does not accept "
                "sample_weight."
            )
        sample_weight = _check_sample_weight(
            sample_weight, X, dtype=np.float64, ensure_non_negative=shared,
            allow_all_zero_weights=method == "partial_fit" or not shared,
        )
        return {**params, "sample_weight": sample_weight}

    # -- fit ---------------------------------------------------------------

    def _fit(self, X, y, params):
        base = self._base_estimator()
        # The fast path reproduces the binary fits with sample weights only.
        shared = _shared_pass_supported(base) and set(params) <= {"sample_weight"}
        X, y = self._validate_X_y(X, y, shared=shared, reset=True)
        classes, y_class = encode_labels(y)
        if classes.shape[0] < 2:
            raise ValueError(
                f"The training data contains only one class: "
                f"{classes.tolist()[0]!r}. {type(self).__name__} needs samples "
                "of at least 2 classes."
            )
        params = self._check_metadata(params, X, base, "fit", shared)
        self.classes_ = classes
        if shared:
            sample_weight = params.get("sample_weight")
            if sample_weight is None:
                sample_weight = np.ones(X.shape[0])
            self.estimators_ = self._fit_shared(base, X, y_class, sample_weight)
        else:
            self.estimators_ = self._fit_generic(base, X, y_class, params)
        self._shared_input = shared or _validates_as_ours([base], params)
        return self

    def _problem_contexts(self, n):
        """The callback tasks of the ``n`` binary problems of the generic
        path (None each without callbacks)."""
        tasks = fit_tasks(self, n, "binary problem")
        return [None] * n if tasks is None else tasks.subcontexts(n)

    def _fit_shared(self, base, X, y_class, sample_weight):
        """The fast path of ``fit``: every row in one pass per epoch."""
        n_classes = self.classes_.shape[0]
        rows = self._rows(n_classes)
        counts = np.bincount(y_class, minlength=n_classes)
        row_counts = np.array([
            X.shape[0] if i is None else counts[i] + counts[j] for i, j in rows
        ])

        def model(trainer, stopper):
            # The binary estimators of the epoch, for the callbacks.
            estimators = self._binary_estimators(base, trainer.state, X, y_class)

            def set_model(est):
                est.estimators_, est._shared_input = estimators, True

            return model_attributes(self, set_model)

        # A clone, so that a RandomState given to the base is not advanced.
        state, record = _shared_fit(clone(base), X, y_class, sample_weight,
                                    self._table(n_classes), row_counts,
                                    self.n_jobs,
                                    callbacks=fit_tasks(self, base.max_iter),
                                    model=model)
        estimators = self._binary_estimators(base, state, X, y_class)
        for k, est in enumerate(estimators):
            # The diagnostics (and warning) of the binary estimator's own fit.
            set_fit_results(est, record.row(k))
        return estimators

    def _binary_estimators(self, base, state, X, y_class):
        """The binary estimators of the rows of a fast-path ``state``."""
        rows = self._rows(self.classes_.shape[0])
        copies = _unfitted_copies(clone(base), len(rows))
        return [
            _linear.set_binary_fit(
                copies[k], state.row(k), X.shape[1], X,
                lambda i=i, j=j: self._row_samples(y_class, i, j),
            )
            for k, (i, j) in enumerate(rows)
        ]

    # -- partial_fit -------------------------------------------------------

    def _partial_fit(self, X, y, classes, params):
        first_call = not hasattr(self, "classes_")
        declared = classes
        classes = partial_fit_classes(self, classes, self.grow_classes)
        if first_call:
            estimators = _unfitted_copies(clone(self._base_estimator()),
                                          len(self._rows(classes.shape[0])))
        else:
            estimators = list(self.estimators_)
        shared = (
            _shared_pass_supported(estimators[0], partial=True)
            and set(params) <= {"sample_weight"}
            and _same_parameters(estimators)
        )
        X, y = self._validate_X_y(
            X, y, shared=shared, reset=first_call, labels_known=True
        )
        if first_call and self.grow_classes:
            # Labels beyond classes join from the first call on.
            growth = find_growth(classes, y)
            if growth is not None:
                classes = growth.classes
                estimators = _unfitted_copies(
                    clone(self._base_estimator()),
                    len(self._rows(classes.shape[0])))
        elif not first_call:
            growth = grow_labels(self, classes, y, declared)
            if growth is not None:
                estimators = self._grown_estimators(estimators, growth)
                classes = growth.classes
        y_class = class_indices(classes, y)
        params = self._check_metadata(params, X, estimators[0], "partial_fit",
                                      shared)
        if shared:
            estimators = self._partial_fit_shared(
                estimators, classes, X, y_class, params.get("sample_weight")
            )
        else:
            estimators = self._partial_fit_generic(
                estimators, classes, X, y_class, params
            )
        self.classes_ = classes
        self.estimators_ = estimators
        self._shared_input = shared or _validates_as_ours(estimators, params)
        cache = stream_cache(self)
        cache.pop("fast", None)
        if shared or (_margin.searches_margin(estimators[0])
                      and set(params) <= {"sample_weight"}):
            _ReductionStream.arm(self, cache, estimators, classes)
        return self

    def _partial_fit_shared(self, estimators, classes, X, y_class, sample_weight):
        """The fast path of ``partial_fit``: one pass, every row at once.

        Mirrors the binary estimator's own ``partial_fit`` bookkeeping for
        every row that has samples in the batch; the others are untouched.
        """
        n_classes = classes.shape[0]
        rows = self._rows(n_classes)
        if sample_weight is None:
            sample_weight = np.ones(X.shape[0])
        reference = estimators[0]
        states = [_linear.binary_state(e) for e in estimators]
        trained = [state for state in states if state is not None]
        # Rows keep the dtype they were trained in.
        if trained and trained[0].coef.dtype != X.dtype:
            X = X.astype(trained[0].coef.dtype)
        state = LinearState.stack(states, X.shape[1], X.dtype, reference.average)
        counts = np.bincount(y_class, minlength=n_classes)
        row_counts = np.array([
            X.shape[0] if i is None else counts[i] + counts[j] for i, j in rows
        ])
        # Binary estimators without a state are at their first partial_fit,
        # which validates their parameters.
        run = _shared_partial_fit if trained else _first_shared_partial_fit
        log = FitLog(reference.verbose) if reference.verbose else None
        updates = run(reference, state, X, y_class, sample_weight,
                      self._table(n_classes), self.n_jobs)
        if log is not None:
            log.partial(max((getattr(e, "n_iter_", 0) for e in estimators),
                            default=0) + 1, X.shape[0], updates.sum(),
                        float(np.linalg.norm(state.coef)))
        # Nothing can fail from here on: the estimators are updated in place.
        # Their states are views of the rows of the stacked state, which
        # the next streaming calls update in place (see _ReductionStream).
        views = row_views(state)
        for k, (i, j) in enumerate(rows):
            if row_counts[k] == 0:
                if states[k] is not None:
                    # The pass did not visit this row: the view holds its
                    # values.
                    estimators[k]._state = views[k]
                    if not state.average:
                        estimators[k].coef_, estimators[k].intercept_ = \
                            views[k].model(copy=False)
                continue
            est = _linear.set_binary_fit(
                estimators[k], views[k], X.shape[1], X,
                lambda i=i, j=j: self._row_samples(y_class, i, j),
            )
            if not state.average:
                # As the binary estimator's own partial_fit: coef_ follows
                # the stream.
                est.coef_, est.intercept_ = views[k].model(copy=False)
            record_partial_pass(est, int(updates[k]))
        stream_cache(self)["stack"] = state
        return estimators

    @staticmethod
    def _row_samples(y_class, i, j):
        """Indices and signs of the samples of the row (i vs. j, i=None: rest)."""
        if i is None:
            indices = np.arange(y_class.shape[0], dtype=np.int32)
            return indices, np.where(y_class == j, 1.0, -1.0)
        indices = np.flatnonzero((y_class == i) | (y_class == j)).astype(np.int32)
        return indices, np.where(y_class[indices] == j, 1.0, -1.0)


@shared_doc
class OneVsAllPerceptron(_BaseReduction):
    """One-vs-all (one-vs-the-rest) multiclass reduction of a binary classifier.

    Trains one binary problem per class, "class k vs. the rest", and predicts
    the class of largest decision.  With two classes a single estimator is
    trained, ``classes_[1]`` being its positive class, and the decision is
    1-d.  Every binary estimator is trained on the labels 0/1 (1 = the class),
    as scikit-learn's :class:`~sklearn.multiclass.OneVsRestClassifier` does.

    When ``estimator`` is one of this package's linear perceptrons
    (:class:`Perceptron`, :class:`MarginPerceptron`), all the sub-problems are
    trained together, in one compiled pass over X per epoch (the fast path),
    with the stopping rules of every row on their own; the result equals the
    generic path (one clone per class) bit for bit when the sample order is
    the same.  See Notes for when the generic path is used instead.

    {{reduction_parameters}}

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted binary estimators: one per class, or one in total for a
        binary problem.  Each has ``classes_ == [0, 1]`` and is usable on its
        own (including ``partial_fit``, when the base has it).

    {{reduction_classes}}

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features, when X has string column names.  The binary
        estimators are trained on arrays and have no feature names.

    See Also
    --------
    OneVsOnePerceptron : One binary problem per pair of classes.
    Perceptron : Learns one-vs-all natively, in one pass per epoch.
    sklearn.multiclass.OneVsRestClassifier : scikit-learn's reduction.

    Notes
    -----
    {{reduction_fast_path}}

    With ``shuffle=True`` and an integer ``random_state`` the one-vs-all
    rows still see the permutations their binary estimators would draw, so
    the fast path equals the generic path there too. The fast path emits a
    binary estimator's ``ConvergenceWarning`` for every row that reaches
    ``max_iter``, and its ``verbose`` lines sum the updates of every row.

    {{reduction_example_iris}}
    >>> from sklearn_perceptrons import OneVsAllPerceptron, Perceptron
    >>> clf = OneVsAllPerceptron(Perceptron(average=True)).fit(X, y)
    >>> len(clf.estimators_)
    3
    >>> clf.decision_function(X[:2]).shape
    (2, 3)
    >>> clf.predict(X[:2])
    array([0, 0])
    >>> clf.estimators_[0].classes_  # setosa vs. the rest, setosa = 1
    array([0, 1])
    """

    def __init__(self, estimator=None, *, n_jobs=None, grow_classes=False):
        set_init_params(self, locals())

    def _rows(self, n_classes):
        if n_classes == 2:
            return [(None, 1)]
        return [(None, k) for k in range(n_classes)]

    def _table(self, n_classes):
        return one_vs_all_table(n_classes)

    def _grown_estimators(self, estimators, growth):
        """The binary estimators of the grown classes: the old class's
        estimator, a new unfitted copy of the base for a new class, and
        for a binary model (one estimator, ``classes_[1]``'s) the copy of it
        with its labels swapped for ``classes_[0]`` (see ``grow_classes``)."""
        source, sign = growth.one_vs_all_rows()
        fresh = _unfitted_copies(clone(self._base_estimator()),
                                 int((source < 0).sum()))
        grown = []
        for k, sign_k in zip(source.tolist(), sign.tolist()):
            if k < 0:
                grown.append(fresh.pop())
            elif sign_k > 0:
                grown.append(estimators[k])
            else:
                flipped = flipped_binary(estimators[k])
                if flipped is None:
                    raise ValueError(
                        f"A binary {type(self).__name__} of "
                        f"{type(estimators[k]).__name__} cannot grow to "
                        f"{growth.n_classes} classes: its one estimator "
                        f"learned {growth.old[1]!r} vs {growth.old[0]!r}, and "
                        "the estimator of the other class cannot be derived "
                        "from it for a base estimator outside this package. "
                        "Pass every class known at the start (at least 3) in "
                        "classes on the first call."
                    )
                grown.append(flipped)
        return grown

    def _fit_generic(self, base, X, y_class, params):
        classes = self.classes_
        rows = self._rows(classes.shape[0])
        return Parallel(n_jobs=_joblib_jobs(self.n_jobs, len(rows)))(
            delayed(_fit_binary)(
                base, X, (y_class == k).astype(np.int64), params,
                _problem_name(classes, None, k), context,
                None if context is None else self,
            )
            for (_, k), context in zip(rows, self._problem_contexts(len(rows)))
        )

    def _partial_fit_generic(self, estimators, classes, X, y_class, params):
        n_tasks = len(estimators)
        return Parallel(n_jobs=_joblib_jobs(self.n_jobs, n_tasks))(
            delayed(_partial_fit_binary)(
                est, X, (y_class == k).astype(np.int64), params,
                _problem_name(classes, None, k),
            )
            for est, (_, k) in zip(estimators, self._rows(classes.shape[0]))
        )

    def decision_function(self, X):
        """Decision of every binary estimator.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples, checked as the base estimator checks them.

        Returns
        -------
        scores : ndarray of shape (n_samples, n_classes) or (n_samples,)
            Column k is the decision of "class k vs. the rest"; for a binary
            problem, the 1-d decision of the single estimator (positive means
            ``classes_[1]``).
        """
        X = self._validate_X(X)
        scores = _linear_scores(self.estimators_, X)
        if scores is None:
            scores = [np.ravel(est.decision_function(X))
                      for est in self.estimators_]
        elif X.shape[0] == 1:  # the scalar decisions of one row
            return np.array(scores if len(scores) == 1 else [scores])
        if len(scores) == 1:
            return scores[0]
        return np.column_stack(scores)



@shared_doc
class OneVsOnePerceptron(_BaseReduction):
    """One-vs-one multiclass reduction of a binary classifier.

    Trains one binary problem per pair of classes ``(i, j)``, ``i < j`` in
    ``classes_`` order, on the samples of those two classes only, with class
    ``j`` as the positive class (label 1) and class ``i`` as label 0, as
    scikit-learn's :class:`~sklearn.multiclass.OneVsOneClassifier` does.  To
    predict, every pair votes for one of its classes and the class with the
    most votes wins; ties are broken by the sum of the pairs' confidences,
    transformed by ``x / (3 (|x| + 1))`` into (-1/3, 1/3) so that it can never
    overturn a difference of one vote.

    When ``estimator`` is one of this package's linear perceptrons
    (:class:`Perceptron`, :class:`MarginPerceptron`), all the pairs are
    trained together, in one compiled pass over X per epoch in which a sample
    updates only the ``n_classes - 1`` pairs that involve its class (the fast
    path, no per-pair copy of X); each pair keeps its own stopping rule,
    counting its own samples.  With ``shuffle=False`` the result equals the
    generic path (one clone per pair on the pair's samples) bit for bit.  See
    Notes for when the generic path is used instead.

    {{reduction_parameters}}

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted binary estimators, one per pair ``(i, j)`` in
        lexicographic order, each with ``classes_ == [0, 1]`` (1 is class
        ``j``) and usable on its own.  After ``partial_fit``, a pair that has
        not yet seen any sample of its two classes is an unfitted clone of the
        base estimator, and abstains when predicting.

    {{reduction_classes}}

    pairwise_indices_ : list of ndarrays or None
        Indices of the training samples of every pair, when the base estimator
        takes a precomputed kernel (``pairwise`` tag); None otherwise.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features, when X has string column names.

    See Also
    --------
    OneVsAllPerceptron : One binary problem per class.
    sklearn.multiclass.OneVsOneClassifier : scikit-learn's reduction.

    Notes
    -----
    {{reduction_fast_path}}

    With ``shuffle=True`` the fast path draws one permutation of all the
    samples per epoch, while each binary estimator of the generic path
    draws its own permutation of its pair's samples: both are valid
    shuffled perceptrons, but their results differ.

    {{reduction_example_iris}}
    >>> from sklearn_perceptrons import OneVsOnePerceptron, Perceptron
    >>> clf = OneVsOnePerceptron(Perceptron(average=True)).fit(X, y)
    >>> len(clf.estimators_)
    3
    >>> bool(clf.score(X, y) > 0.9)
    True
    >>> votes = clf.decision_function(X[:1]).round()  # 2 votes for setosa
    >>> votes
    array([[ 2.,  1., -0.]])
    """

    def __init__(self, estimator=None, *, n_jobs=None, grow_classes=False):
        set_init_params(self, locals())

    def _rows(self, n_classes):
        return list(combinations(range(n_classes), 2))

    def _table(self, n_classes):
        return one_vs_one_table(n_classes)

    def _grown_estimators(self, estimators, growth):
        """The binary estimators of the pairs of the grown classes: the old
        pair's estimator, or a new unfitted copy of the base for a pair
        with a new class (see ``grow_classes``)."""
        source = growth.pair_rows()
        fresh = _unfitted_copies(clone(self._base_estimator()),
                                 int((source < 0).sum()))
        return [fresh.pop() if p < 0 else estimators[p] for p in source.tolist()]

    def _fit_generic(self, base, X, y_class, params):
        rows = self._rows(self.classes_.shape[0])
        results = Parallel(n_jobs=_joblib_jobs(self.n_jobs, len(rows)))(
            delayed(_fit_pair)(base, X, y_class, i, j, params,
                               _problem_name(self.classes_, i, j), context,
                               None if context is None else self)
            for (i, j), context in zip(rows, self._problem_contexts(len(rows)))
        )
        pairwise = get_tags(base).input_tags.pairwise
        self.pairwise_indices_ = [idx for _, idx in results] if pairwise else None
        return [est for est, _ in results]

    def _fit_shared(self, base, X, y_class, sample_weight):
        self.pairwise_indices_ = None
        return super()._fit_shared(base, X, y_class, sample_weight)

    def _partial_fit_generic(self, estimators, classes, X, y_class, params):
        jobs = []
        for p, (i, j) in enumerate(self._rows(classes.shape[0])):
            indices = np.flatnonzero((y_class == i) | (y_class == j))
            if indices.shape[0] == 0:
                continue  # a pair without samples in the batch is not updated
            X_pair = X[indices]
            y_pair = (y_class[indices] == j).astype(np.int64)
            jobs.append((p, delayed(_partial_fit_binary)(
                estimators[p], X_pair, y_pair,
                _subset_metadata(params, y_class.shape[0], indices),
                _problem_name(classes, i, j),
            )))
        updated = Parallel(n_jobs=_joblib_jobs(self.n_jobs, len(jobs)))(
            job for _, job in jobs)
        estimators = list(estimators)
        for (p, _), est in zip(jobs, updated):
            estimators[p] = est
        return estimators

    def _partial_fit_shared(self, estimators, classes, X, y_class, sample_weight):
        self.pairwise_indices_ = None
        return super()._partial_fit_shared(
            estimators, classes, X, y_class, sample_weight
        )

    def _partial_fit(self, X, y, classes, params):
        self.pairwise_indices_ = None
        return super()._partial_fit(X, y, classes, params)

    def decision_function(self, X):
        """Votes plus normalized confidences of every class.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples (for a base estimator with a precomputed kernel,
            their kernel with the training samples).

        Returns
        -------
        scores : ndarray of shape (n_samples, n_classes) or (n_samples,)
            ``votes + s / (3 (|s| + 1))`` where ``votes[:, c]`` counts the
            pairs that predict class c and ``s[:, c]`` sums the confidences
            of the pairs involving c (the decision of pair (i, j) counts for
            j and against i; a decision beyond the largest float divided by
            ``4 (n_classes - 1)`` counts as that bound, so that the sums
            stay finite).  For a binary problem, the column of
            ``classes_[1]`` (positive iff ``classes_[1]`` is predicted).
        """
        X = self._validate_X(X)
        n_classes = self.classes_.shape[0]
        n_samples = _num_samples(X)
        indices = getattr(self, "pairwise_indices_", None)
        if indices is None and n_samples == 1:
            decision = self._one_row_decision(X, n_classes)
            if decision is not None:
                return decision[:, 1] if n_classes == 2 else decision
        votes = np.zeros((n_samples, n_classes))
        confidence = np.zeros((n_samples, n_classes))
        limit = _confidence_limit(n_classes)
        for p, (i, j) in enumerate(self._rows(n_classes)):
            est = self.estimators_[p]
            if not _is_fitted(est):
                # Only after partial_fit: the pair has seen no sample yet.
                continue
            X_pair = X if indices is None else X[:, indices[p]]
            scores, positive = _binary_decision(est, X_pair)
            scores = np.clip(scores, -limit, limit)
            votes[:, j] += positive
            votes[:, i] += ~positive
            confidence[:, j] += scores
            confidence[:, i] -= scores
        decision = votes + confidence / (3.0 * (np.abs(confidence) + 1.0))
        return decision[:, 1] if n_classes == 2 else decision

    def _one_row_decision(self, X, n_classes):
        """The decision of one row of linear perceptron pairs: the votes and
        confidences added up in Python floats, pair after pair in the order
        of the general path (the same IEEE sums, without four array
        operations per pair); None when the pairs are not all fitted linear
        perceptrons."""
        fitted = [est for est in self.estimators_ if "classes_" in est.__dict__]
        scores = _linear_scores(fitted, X)
        if scores is None:
            return None
        votes = [0.0] * n_classes
        confidence = [0.0] * n_classes
        limit = _confidence_limit(n_classes)
        scores = iter(scores)
        for est, (i, j) in zip(self.estimators_, self._rows(n_classes)):
            if "classes_" not in est.__dict__:
                continue  # the pair has seen no sample yet
            score = float(next(scores))
            if score > 0:
                votes[j] += 1.0
            else:
                votes[i] += 1.0
            score = min(max(score, -limit), limit)
            confidence[j] += score
            confidence[i] -= score
        # The general path's formula, each IEEE operation on the floats.
        return np.array([[v + c / (3.0 * (abs(c) + 1.0))
                          for v, c in zip(votes, confidence)]])

