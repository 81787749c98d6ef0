# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The fast path of the multiclass reductions (``OneVsAllPerceptron``,
``OneVsOnePerceptron``) over the linear perceptrons: every binary problem
is a weight row of one state, and one compiled pass over X per epoch
updates the rows a sample takes part in (every row for one-vs-all, the
``n_classes - 1`` pairs of its class for one-vs-one), so no subset of X is
ever copied.  Each row keeps its own stopping rule: with the same sample
order, the rows equal what the generic path's binary estimators learn.

* which base estimators the fast path reproduces
  (:func:`shared_pass_supported`);
* ``fit`` and ``partial_fit`` of every row at once (:func:`shared_fit`,
  :func:`partial_fit_rows`);
* the lean ``partial_fit`` of a reduction: the stream of the stacked rows
  (:func:`reduction_stream`) and the binary estimators' bookkeeping after
  it (:func:`after_lean_call`);
* the scores of a few rows of binary linear perceptrons without
  validating the rows again for each (:func:`linear_scores`).

The reductions themselves (their parameters, validation, metadata and the
generic path of one clone per problem) are in ``_multiclass.py``.
"""

from operator import attrgetter

import numpy as np
from joblib import effective_n_jobs
from sklearn.base import _fit_context
from sklearn.utils import check_random_state

from .._core.base import label_index
from .._core.progress import FitLog
from .._core.training import StoppingRule, record_partial_pass, train
from . import margin as _margin
from . import perceptron as _linear
from .margin import MarginPerceptron
from .perceptron import Perceptron
from .rows import LinearState, LinearTrainer, row_views
from .stream import LinearStream, ReductionStream, reduction_search

# ---------------------------------------------------------------------------
# Which base estimators the fast path trains
# ---------------------------------------------------------------------------


# The linear perceptrons whose sub-problems can share one compiled pass.
# Exact types only: a subclass may override ``fit`` with something the shared
# pass does not reproduce.
SHARED_PASS_TYPES = (Perceptron, MarginPerceptron)


def shared_pass_supported(estimator, *, partial=False):
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
    if type(estimator) not in SHARED_PASS_TYPES:
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


def validates_as_ours(estimators, params):
    """Whether every binary estimator is one of this package's linear
    perceptrons (exact types) given no metadata but sample weights: they all
    validate X by the package's rules (``validate_rows``), so that
    ``predict`` may validate it once, by those rules, for all of them, as
    the fast path does (on the generic path too: ``margin="auto"``,
    ``class_weight``, ``early_stopping``)."""
    return set(params) <= {"sample_weight"} and all(
        type(e) in SHARED_PASS_TYPES for e in estimators)


_PARAM_GETTERS = {}


def same_parameters(estimators):
    """Whether every estimator has the type and parameters of the first.

    ``random_state`` is left out: ``partial_fit`` never shuffles, and clones
    of a ``RandomState`` instance never compare equal.
    """
    cls = type(estimators[0])
    get_params = _PARAM_GETTERS.get(cls)
    if get_params is None:
        get_params = _PARAM_GETTERS[cls] = attrgetter(
            *[n for n in cls._get_param_names() if n != "random_state"]
        )
    reference = get_params(estimators[0])
    return all(
        type(est) is cls and get_params(est) == reference for est in estimators[1:]
    )


# ---------------------------------------------------------------------------
# Every row in one compiled pass over X per epoch
# ---------------------------------------------------------------------------


def _n_threads(n_jobs):
    """Threads of the fast path's compiled pass for ``n_jobs``: each trains
    a group of rows, bit for bit as one thread would (see ``rows.run_epoch``)."""
    return max(1, effective_n_jobs(n_jobs))


def row_counts(rows, y_class, n_samples, n_classes):
    """The number of samples of every row's binary problem (``rows``: the
    class pairs ``(negative, positive)``, ``negative`` None for the rest)."""
    counts = np.bincount(y_class, minlength=n_classes)
    return np.array([
        n_samples if i is None else counts[i] + counts[j] for i, j in rows
    ])


@_fit_context(prefer_skip_nested_validation=True)
def shared_fit(base, X, y_class, sample_weight, table, counts, n_jobs, *,
               callbacks=None, model=None):
    """Every epoch of ``fit`` for every row at once, through the driver.

    It stands in for the binary estimators' ``fit``, so it runs in their fit
    context, which validates ``base``'s parameters first.

    ``counts`` is the number of samples of every row's binary problem
    (:func:`row_counts`): the ``n_samples`` of its tol rule, as the generic
    path's binary estimator of a pair sees only that pair's samples.
    ``n_jobs`` threads train groups of rows.  ``callbacks`` and ``model``:
    those of ``train``.  Returns the final state and the training record.
    """
    n_rows = counts.shape[0]
    state = LinearState.zeros(n_rows, X.shape[1], X.dtype, base.average)
    trainer = LinearTrainer(
        X, y_class, _linear.learning_rate(base) * sample_weight, table, state,
        fit_intercept=base.fit_intercept,
        rule=_linear.update_rule(base, X, n_rows), n_threads=_n_threads(n_jobs),
    )
    stopper = StoppingRule(
        n_rows, tol=base.tol, n_iter_no_change=base.n_iter_no_change,
        n_samples=counts.astype(np.float64), early_stopping=False,
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
    # rules without an online search, see shared_pass_supported).
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


def partial_fit_rows(estimators, rows, table, X, y_class, sample_weight,
                     n_jobs, row_samples):
    """The fast path of ``partial_fit``: one pass, every row at once.

    ``estimators``: the binary estimators of the ``rows`` (class pairs, see
    :func:`row_counts`) of the reduction's ``table``; ``row_samples(i, j)``:
    the indices and signs of the samples of row ``(i, j)``.  Mirrors the
    binary estimator's own ``partial_fit`` bookkeeping for every row that
    has samples in the batch; the others are untouched.  Returns the
    estimators, updated in place, and the stacked state whose row views
    they now hold.
    """
    n_classes = table[0].shape[0] - 1
    if sample_weight is None:
        sample_weight = np.ones(X.shape[0])
    reference = estimators[0]
    states = [_linear.binary_state(e) for e in estimators]
    trained = [state for state in states if state is not None]
    # Rows keep the dtype they were trained in.
    if trained and trained[0].coef.dtype != X.dtype:
        X = X.astype(trained[0].coef.dtype)
    state = LinearState.stack(states, X.shape[1], X.dtype, reference.average)
    counts = row_counts(rows, y_class, X.shape[0], n_classes)
    # Binary estimators without a state are at their first partial_fit,
    # which validates their parameters.
    run = _shared_partial_fit if trained else _first_shared_partial_fit
    log = FitLog(reference.verbose) if reference.verbose else None
    updates = run(reference, state, X, y_class, sample_weight, table, n_jobs)
    if log is not None:
        log.partial(max((getattr(e, "n_iter_", 0) for e in estimators),
                        default=0) + 1, X.shape[0], updates.sum(),
                    float(np.linalg.norm(state.coef)))
    # Nothing can fail from here on: the estimators are updated in place.
    # Their states are views of the rows of the stacked state, which the
    # next streaming calls update in place (see reduction_stream).
    views = row_views(state)
    for k, (i, j) in enumerate(rows):
        if counts[k] == 0:
            if states[k] is not None:
                # The pass did not visit this row: the view holds its values.
                _linear.set_binary_state(estimators[k], views[k])
            continue
        est = _linear.set_binary_fit(
            estimators[k], views[k], X.shape[1], X,
            lambda i=i, j=j: row_samples(i, j),
        )
        if not state.average:
            # As the binary estimator's own partial_fit: coef_ follows the
            # stream.
            est.coef_, est.intercept_ = views[k].model(copy=False)
        record_partial_pass(est, int(updates[k]))
    return estimators, state


# ---------------------------------------------------------------------------
# The lean partial_fit (see stream.py)
# ---------------------------------------------------------------------------


def reduction_stream(estimators, classes, rows, table, stack, *, name):
    """The stream that takes the next calls on a few rows of a reduction
    whose binary ``estimators`` (its ``rows`` and ``table``) were just
    updated: a :class:`~.stream.ReductionStream` over the stacked rows of
    the binary estimators (their states are views of them), ``stack`` of
    the shared pass, or the binary margin searches stacked
    (:func:`~.stream.reduction_search`, which makes the estimators adopt
    their views).  Its ``key`` is left to the caller, to set once the
    estimators are final.

    Returns ``(stream, pairs)``, ``pairs`` the rows' classes for
    :func:`after_lean_call` (None when the binary estimators defer nothing),
    or None when no stream can take the calls.
    """
    reference = estimators[0]
    deferred = _linear.defers_row_diagnostics(reference)
    if ((_linear.has_row_diagnostics(reference) and not deferred)
            or any(_linear.binary_state(e) is None for e in estimators)):
        return None
    labels = label_index(classes)
    if labels is None:
        return None
    n_classes = classes.shape[0]
    rows_ptr, class_rows = table[0], table[1]
    touched = [class_rows[rows_ptr[c]:rows_ptr[c + 1]].tolist()
               for c in range(n_classes)]
    eta = _linear.learning_rate(reference)
    stream = search = None
    if _margin.searches_margin(reference):
        # The generic path's binary searches (same parameters, as the
        # generic path has them), silent and without class weights.
        if (reference.verbose or reference.class_weight is not None
                or not same_parameters(estimators)):
            return None
        made = reduction_search(
            estimators, [_linear.binary_state(e) for e in estimators],
            [_margin.search_state(e) for e in estimators], table,
            fit_intercept=reference.fit_intercept,
            epsilon=reference.epsilon, eta=eta, labels=labels, key=None,
            name=name, rows_of_class=touched)
        if made is None:
            return None
        search, views = made
        for est, (state, search_view) in zip(estimators, views):
            _margin.adopt_search_row(est, state, search_view)
    else:
        if stack is None:
            return None
        rule = _linear.update_rule(reference, None, stack.coef.shape[0])
        if rule.penalty is not None:  # the stream has no penalty
            return None
        stream = LinearStream(stack, table, rule,
                              fit_intercept=reference.fit_intercept,
                              labels=labels, eta=eta, key=None, name=name)
    # What a lean call computes of the binary estimators' rows, by class:
    # the rows' classes (negative, positive; negative None for the rest).
    made = ReductionStream(stream=stream, search=search, labels=labels,
                           touched=touched, key=None, name=name)
    return made, (rows if deferred else None)


def after_lean_call(estimators, pairs, X, step):
    """The binary estimators' bookkeeping of a lean call (``step``, a
    ``ReductionStep``), each as its own lean call on its samples (labels
    0/1) would do it; one copy of X serves every row.  ``pairs``: those of
    :func:`reduction_stream`."""
    if pairs is None:
        for k in step.rows:
            _linear.after_lean_pass(estimators[k], int(step.updates[k]))
        return
    X = X.copy()
    codes = step.codes
    for k in step.rows:
        negative, positive = pairs[k]
        if negative is None:
            X_k, codes_k = X, codes
        else:
            taken = [t for t, c in enumerate(codes)
                     if c == negative or c == positive]
            X_k = X if len(taken) == len(codes) else X[taken]
            codes_k = [codes[t] for t in taken]
        _linear.after_lean_pass(
            estimators[k], int(step.updates[k]),
            (X_k, np.array([int(c == positive) for c in codes_k])))


# ---------------------------------------------------------------------------
# Scores of a few rows
# ---------------------------------------------------------------------------


def linear_scores(estimators, X):
    """The 1-d decisions of fitted binary linear perceptrons on a few rows
    of a validated dense X, or on validated CSR rows, as their own
    ``decision_function`` computes them (``X @ coef_.T + intercept_``)
    without validating X again for each (most of a one-row call); for one
    row, the scalar decisions (``binary_row_decision``).  None when that
    does not hold for all of them.
    """
    dense = type(X) is np.ndarray
    if dense and X.shape[0] > 8:
        return None
    base = _linear.BaseLinearPerceptron.decision_function
    n_features = X.shape[1]
    for est in estimators:
        if (getattr(type(est), "decision_function", None) is not base
                or getattr(est, "n_features_in_", None) != n_features
                or hasattr(est, "feature_names_in_")
                or len(est.classes_) != 2):  # not one binary row
            return None
    if not dense:
        if X.shape[0] == 1:
            return [_linear.sparse_scores(est, X)[0, 0] for est in estimators]
        return [_linear.sparse_scores(est, X).ravel() for est in estimators]
    if X.shape[0] == 1:
        row = _linear.binary_row_decision
        return [row(X, est.coef_, est.intercept_) for est in estimators]
    out = []
    for est in estimators:
        scores = X @ est.coef_.T
        scores += est.intercept_
        out.append(scores.ravel())
    return out
