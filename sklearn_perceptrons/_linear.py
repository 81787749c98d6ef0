# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The linear perceptrons: :class:`Perceptron`, :class:`MarginPerceptron` (and
the shared linear driver)."""

import math
import numbers
from time import perf_counter

import numpy as np
import scipy.sparse as sp
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.extmath import row_norms, safe_sparse_dot

from ._cpu import linear_fast as _linear_fast
from ._base import (
    RULE_MARGIN,
    RULE_THRESHOLD,
    BasePerceptron,
    StoppingRule,
    fit_random_state,
    keep_state_on_error,
    one_vs_all_table,
    partial_fit_context,
    release_random_state,
    row_accuracy,
    sign_matrix,
    validation_split,
)

# Typed specialisations, picked once: indexing a fused function at every call
# would redo the dtype dispatch.
_EPOCH = {
    (np.dtype(np.float64), False): _linear_fast.epoch_dense["double"],
    (np.dtype(np.float32), False): _linear_fast.epoch_dense["float"],
    (np.dtype(np.float64), True): _linear_fast.epoch_csr["double"],
    (np.dtype(np.float32), True): _linear_fast.epoch_csr["float"],
}
_SCORES = {
    (np.dtype(np.float64), False): _linear_fast.scores_dense["double"],
    (np.dtype(np.float32), False): _linear_fast.scores_dense["float"],
    (np.dtype(np.float64), True): _linear_fast.scores_csr["double"],
    (np.dtype(np.float32), True): _linear_fast.scores_csr["float"],
}
_MARGIN_NORMS = {
    np.dtype(np.float64): _linear_fast._margin_norms["double"],
    np.dtype(np.float32): _linear_fast._margin_norms["float"],
}


class LinearState:
    """Weights of ``n_rows`` binary sub-problems and their averaging sums.

    ``coef``/``intercept`` are the current iterate (in the dtype of X).  With
    averaging, ``coef_sum``/``intercept_sum`` hold ``sum (visits before the
    update) * delta`` over the updates, and ``visits`` the number of sample
    visits of each row, so that the mean of the iterates over all visits is
    ``coef - coef_sum / visits`` (Daume's trick).
    """

    def __init__(self, coef, intercept, average):
        self.coef = coef
        self.intercept = intercept
        n_rows, n_features = coef.shape
        shape = (n_rows, n_features) if average else (1, 1)
        self.coef_sum = np.zeros(shape)
        self.intercept_sum = np.zeros(n_rows if average else 1)
        self.visits = np.zeros(n_rows)
        self.average = average

    def copy(self):
        new = LinearState.__new__(LinearState)
        new.coef = self.coef.copy()
        new.intercept = self.intercept.copy()
        new.coef_sum = self.coef_sum.copy()
        new.intercept_sum = self.intercept_sum.copy()
        new.visits = self.visits.copy()
        new.average = self.average
        return new

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


def run_epoch(X, state, order, y_class, step, table, *, fit_intercept, active,
              rule, threshold, kappa):
    """One compiled pass over the rows ``order`` of X; returns updates per row."""
    n_rows = state.coef.shape[0]
    updates = np.zeros(n_rows, dtype=np.int64)
    norm = np.zeros(n_rows)
    if rule != RULE_THRESHOLD:
        _MARGIN_NORMS[state.coef.dtype](
            state.coef, state.intercept, fit_intercept, norm
        )
    sparse = sp.issparse(X)
    data = (X.data, X.indices, X.indptr) if sparse else (X,)
    _EPOCH[X.dtype, sparse](
        *data, order, y_class, step, *table, state.coef, state.intercept,
        fit_intercept, active, rule, threshold, kappa, norm,
        state.average, state.coef_sum, state.intercept_sum, state.visits, updates,
    )
    return updates


def row_scores(X, rows, coef, intercept):
    """Scores ``X[rows] @ coef.T + intercept`` without copying the rows of X."""
    out = np.empty((rows.shape[0], coef.shape[0]))
    sparse = sp.issparse(X)
    data = (X.data, X.indices, X.indptr) if sparse else (X,)
    _SCORES[X.dtype, sparse](
        *data, rows, np.ascontiguousarray(coef, dtype=X.dtype),
        np.ascontiguousarray(intercept, dtype=X.dtype), out,
    )
    return out


def as_csr_int32(X):
    """The compiled loop reads int32 CSR indices (a copy of indices, not data)."""
    if sp.issparse(X) and (X.indices.dtype != np.int32
                           or X.indptr.dtype != np.int32):
        X = sp.csr_matrix(
            (X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
            shape=X.shape, copy=False,
        )
    return X


class BaseLinearPerceptron(BasePerceptron):
    """The linear driver: weights, epochs, stopping rules, averaging.

    Subclasses say which rule triggers an update through
    :meth:`_rule_parameters`; everything else is shared.
    """

    _state_types = {"_state": LinearState}

    _parameter_constraints = {
        **BasePerceptron._parameter_constraints,
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(numbers.Real, 0, 1, closed="neither")],
    }

    # Learning rate of the update; estimators without eta0 use 1.
    def _learning_rate(self):
        return getattr(self, "eta0", 1.0)

    def _rule_parameters(self, X, n_rows):
        """Return (rule, threshold, kappa): the update rule of every row."""
        raise NotImplementedError

    def _partial_pass(self, X, state, y_class, step, table):
        """The pass of ``partial_fit`` over the rows of X, in order.

        Returns the updates of every row.  A hook: ``MarginPerceptron``'s
        online margin search splits the pass where its margin changes.
        """
        n_rows = state.coef.shape[0]
        rule, threshold, kappa = self._rule_parameters(X, n_rows)
        return run_epoch(
            X, state, np.arange(X.shape[0], dtype=np.int32), y_class, step, table,
            fit_intercept=self.fit_intercept, active=np.ones(n_rows, np.uint8),
            rule=rule, threshold=threshold, kappa=kappa,
        )

    # -- public API --------------------------------------------------------

    def decision_function(self, X):
        """Signed confidence of every sample: ``X @ coef_.T + intercept_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For binary problems, the score of ``classes_[1]`` (positive means
            ``classes_[1]`` is predicted); otherwise one column per class.
        """
        X = self._validate_predict_data(X)
        scores = safe_sparse_dot(X, self.coef_.T, dense_output=True)
        scores += self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X):
        """Predict the class of every sample.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            ``classes_[1]`` where the decision is > 0 and ``classes_[0]``
            otherwise (binary), or the class of largest decision (ties go to
            the lowest class index).
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[scores.argmax(axis=1)]

    # -- fitting -----------------------------------------------------------

    def _check_warm_start_shape(self, n_rows, n_features):
        """A clear error when warm_start cannot continue the previous model."""
        previous_rows, previous_features = self._state.coef.shape
        if (previous_rows, previous_features) == (n_rows, n_features):
            return
        def n_classes(rows):
            return 2 if rows == 1 else rows
        previous = getattr(self, "classes_", None)
        named = "" if previous is None else f" {previous.tolist()!r}"
        raise ValueError(
            f"warm_start=True continues the previous fit, which had "
            f"{n_classes(previous_rows)} classes{named} and {previous_features} "
            f"features; this data has {n_classes(n_rows)} classes and "
            f"{n_features} features. warm_start needs the same classes and "
            "features: set warm_start=False to fit a new model."
        )

    def _initial_state(self, X, n_rows, coef_init, intercept_init):
        dtype = X.dtype
        n_features = X.shape[1]
        if coef_init is None and self.warm_start and hasattr(self, "_state"):
            self._check_warm_start_shape(n_rows, n_features)
            coef_init = self._state.coef
            if intercept_init is None and self.fit_intercept:
                intercept_init = self._state.intercept
        coef = np.zeros((n_rows, n_features), dtype=dtype)
        intercept = np.zeros(n_rows, dtype=dtype)
        if coef_init is not None:
            coef_init = np.asarray(coef_init, dtype=dtype)
            if coef_init.size != coef.size or (
                coef_init.ndim == 2 and coef_init.shape != coef.shape
            ):
                raise ValueError(
                    f"coef_init has shape {coef_init.shape}; expected "
                    f"{coef.shape} for {n_rows} binary sub-problem(s) of "
                    f"{n_features} features."
                )
            coef[:] = coef_init.reshape(coef.shape)
        if not self.fit_intercept:
            # Without an intercept the model has none: a nonzero starting
            # intercept would be an offset the loop never sees.
            if intercept_init is not None and np.any(np.asarray(intercept_init) != 0):
                raise ValueError(
                    "intercept_init is nonzero but fit_intercept=False; pass "
                    "fit_intercept=True or leave intercept_init out."
                )
            intercept_init = None
        if intercept_init is not None:
            intercept_init = np.asarray(intercept_init, dtype=dtype).ravel()
            if intercept_init.shape != intercept.shape:
                raise ValueError(
                    f"intercept_init has shape {intercept_init.shape}; expected "
                    f"{intercept.shape}."
                )
            intercept[:] = intercept_init
        if not (np.isfinite(coef).all() and np.isfinite(intercept).all()):
            raise ValueError("coef_init and intercept_init must be finite.")
        return LinearState(coef, intercept, self.average)

    def _fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        X, classes, y_class, sample_weight = self._validate_fit_data(
            X, y, sample_weight
        )
        X = as_csr_int32(X)
        n_classes = classes.shape[0]
        table = one_vs_all_table(n_classes)
        n_rows = 1 if n_classes == 2 else n_classes
        class_weight = self._class_weights(classes, y_class)
        step = self._learning_rate() * sample_weight * class_weight[y_class]
        state = self._initial_state(X, n_rows, coef_init, intercept_init)
        rng = fit_random_state(self.random_state)
        if self.early_stopping:
            train_idx, val_idx = validation_split(
                X.shape[0], self.validation_fraction, rng
            )
        else:
            train_idx, val_idx = np.arange(X.shape[0], dtype=np.int32), None

        rule, threshold, kappa = self._rule_parameters(X, n_rows)
        result = self._run_epochs(
            X, y_class, step, table, state, train_idx, val_idx, rng,
            rule=rule, threshold=threshold, kappa=kappa,
        )
        release_random_state(rng)
        self._set_fit_result(classes, *result)
        return self

    def _run_epochs(self, X, y_class, step, table, state, train_idx, val_idx, rng,
                    *, rule, threshold, kappa, max_epochs=None):
        """The epoch loop of ``fit`` with the per-row stopping rules.

        Returns the final state, the reported (coef, intercept), the stopping
        rule (per-row epochs and convergence) and the updates of every epoch.
        """
        n_rows = state.coef.shape[0]
        max_epochs = self.max_iter if max_epochs is None else max_epochs
        stopper = StoppingRule(
            n_rows, tol=self.tol, n_iter_no_change=self.n_iter_no_change,
            n_samples=train_idx.shape[0], early_stopping=self.early_stopping,
        )
        if val_idx is not None:
            signs_of_class = sign_matrix(table, len(table[0]) - 1, n_rows)
            best_model = state.model()
            best_state = state.copy()
        mistakes_per_epoch = []
        for epoch in range(1, max_epochs + 1):
            start = perf_counter()
            order = self._epoch_order(train_idx, rng)
            updates = run_epoch(
                X, state, order, y_class, step, table,
                fit_intercept=self.fit_intercept, active=stopper.active,
                rule=rule, threshold=threshold, kappa=kappa,
            )
            _check_finite_weights(state)
            mistakes_per_epoch.append(int(updates.sum()))
            val_score = None
            if val_idx is not None:
                coef, intercept = state.model()
                val_score = row_accuracy(
                    row_scores(X, val_idx, coef, intercept),
                    y_class[val_idx], signs_of_class,
                )
            improved = stopper.update(updates, val_score)
            if val_idx is not None and improved.any():
                best_model[0][improved] = coef[improved]
                best_model[1][improved] = intercept[improved]
                _copy_rows(best_state, state, improved)
            self._print_epoch(
                epoch, updates.sum(), float(np.linalg.norm(state.coef)),
                perf_counter() - start,
            )
            if stopper.done:
                break
        if val_idx is not None:
            # Keep the best validation epoch of every row.
            state, model = best_state, best_model
        else:
            model = state.model()
        return state, model, stopper, mistakes_per_epoch

    def _set_fit_result(self, classes, state, model, stopper, mistakes_per_epoch):
        if stopper.active.any():
            self._warn_max_iter(int(stopper.active.sum()))
        self.classes_ = classes
        self._state = state
        self.coef_, self.intercept_ = model
        self.n_iter_ = int(stopper.n_iter.max())
        self.mistakes_per_epoch_ = mistakes_per_epoch
        self.n_mistakes_ = int(sum(mistakes_per_epoch))
        self.converged_ = bool(stopper.converged.all())

    def _partial_fit_steps(self, classes, y_class, sample_weight):
        """Update size of every sample of a partial_fit batch."""
        eta = self._learning_rate()
        if self.class_weight is not None:
            eta = eta * self._class_weights(classes, partial=True)[y_class]
        if sample_weight is None:
            return np.full(y_class.shape[0], eta, dtype=np.float64)
        return eta * sample_weight

    def _partial_fit(self, X, y, classes, sample_weight):
        X, y_class, sample_weight, classes = self._validate_partial_fit_data(
            X, y, classes, sample_weight
        )
        X = as_csr_int32(X)
        if hasattr(self, "_state") and X.dtype != self._state.coef.dtype:
            # The weights keep the dtype of the first batch; a batch of the
            # other float type is cast to it (a copy of this batch only).
            X = X.astype(self._state.coef.dtype)
        n_classes = classes.shape[0]
        n_rows = 1 if n_classes == 2 else n_classes
        table = one_vs_all_table(n_classes)
        step = self._partial_fit_steps(classes, y_class, sample_weight)
        if hasattr(self, "_state"):
            state = self._state.copy()
        else:
            state = self._initial_state(X, n_rows, None, None)
        start = perf_counter()
        updates = self._partial_pass(X, state, y_class, step, table)
        _check_finite_weights(state)
        total = int(updates.sum())
        if self.verbose:
            self._print_epoch(getattr(self, "n_iter_", 0) + 1, total,
                              float(np.linalg.norm(state.coef)),
                              perf_counter() - start)
        self.classes_ = classes
        self._state = state
        # The next call updates a copy of the state, so coef_ may share it.
        self.coef_, self.intercept_ = state.model(copy=False)
        if hasattr(self, "mistakes_per_epoch_"):
            # In place: copying the list would make a long stream quadratic.
            self.mistakes_per_epoch_.append(total)
        else:
            self.mistakes_per_epoch_ = [total]
        self.n_mistakes_ = getattr(self, "n_mistakes_", 0) + total
        self.n_iter_ = getattr(self, "n_iter_", 0) + 1
        self.converged_ = total == 0
        return self


def _copy_rows(target, source, rows):
    target.coef[rows] = source.coef[rows]
    target.intercept[rows] = source.intercept[rows]
    target.visits[rows] = source.visits[rows]
    if source.average:
        target.coef_sum[rows] = source.coef_sum[rows]
        target.intercept_sum[rows] = source.intercept_sum[rows]


def _check_finite_weights(state):
    """Raise ValueError when an update overflowed (never return NaN weights)."""
    # A finite sum proves every weight finite in one cheap reduction; only a
    # non-finite sum (or an overflowing one) needs the exact check.
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.add.reduce(state.coef, axis=None) + np.add.reduce(
            state.intercept, axis=None
        )
    if not math.isfinite(total) and not (
        np.isfinite(state.coef).all() and np.isfinite(state.intercept).all()
    ):
        raise ValueError(
            "The weights became non-finite (floating-point overflow). Scale the "
            "features (e.g. with StandardScaler) or lower eta0 / sample_weight."
        )


class Perceptron(BaseLinearPerceptron):
    """The standard (Rosenblatt) perceptron, with a threshold and averaging.

    Visits the samples in epoch order and, for a sample ``x`` of sign
    ``s`` (+1 for ``classes_[1]``, -1 otherwise) and margin
    ``m = s * (w . x + b)``, updates ``w += eta0 * c * s * x`` and
    ``b += eta0 * c * s`` whenever ``m <= threshold``, where ``c`` is the
    sample's weight times its class weight.  Starts from ``w = 0, b = 0``.
    More than two classes are learned one-vs-all, all K rows in one compiled
    pass over X per epoch.

    Parameters
    ----------
    threshold : float, default=0.0
        The threshold δ >= 0: a sample triggers an update when its margin
        ``s * (w . x + b)`` is <= δ.  With δ > 0 the perceptron also updates on
        correctly classified samples that are too close to the hyperplane.

    fit_intercept : bool, default=True
        Whether to learn an intercept ``b`` (updated like a weight of a
        constant feature 1).

    max_iter : int, default=1000
        Maximum number of epochs (passes over the training data) of ``fit``.

    tol : float or None, default=1e-3
        Stopping tolerance: when not None, a row stops after
        ``n_iter_no_change`` consecutive epochs whose number of updates did
        not fall below ``best - tol * n_samples`` (or, with early stopping,
        whose validation accuracy did not rise above ``best + tol``).

    n_iter_no_change : int, default=5
        Number of epochs without improvement before stopping.

    shuffle : bool, default=True
        Whether to visit the samples in a fresh random order every epoch;
        otherwise cyclically (row 0, 1, ..., n - 1).

    eta0 : float, default=1.0
        Size of an update (multiplies ``x``).  With ``threshold=0`` and no
        initial weights it does not change the predictions.

    average : bool, default=False
        If True, ``coef_`` and ``intercept_`` are the average of ``(w, b)``
        over every sample visit of training (the averaged perceptron),
        computed without storing the history.

    class_weight : dict, "balanced" or None, default=None
        Weights of the classes: an update on a sample of class ``j`` is scaled
        by ``class_weight[j]``.  "balanced" uses
        ``n_samples / (n_classes * np.bincount(y))``.  In the one-vs-all
        sub-problem of class ``k`` a sample keeps the weight of its own class
        (scikit-learn's SGD weights by the positive/negative role instead).

    early_stopping : bool, default=False
        Whether to hold out ``validation_fraction`` of the training data and
        stop each row when its validation accuracy stops improving; the
        coefficients of each row's best validation epoch are kept.  The split
        does not depend on the labels, so row ``k`` of a multiclass problem
        sees exactly the split of its own binary problem.

    validation_fraction : float, default=0.1
        Fraction of the training data held out for early stopping.

    warm_start : bool, default=False
        If True, ``fit`` starts from the last iterate of the previous fit (the
        running average, if any, starts anew).

    random_state : int, RandomState instance or None, default=0
        Seed of the epoch permutations and of the validation split.  Fixed by
        default, so that a default fit is reproducible.

    verbose : int, default=0
        If > 0, print one line per epoch: updates, ``||w||`` and time.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights, in the dtype of the training data.

    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts.

    classes_ : ndarray of shape (n_classes,)
        The sorted class labels; ``classes_[1]`` is the positive class of a
        binary problem.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features, when X has string column names.

    n_iter_ : int
        Epochs run by the last ``fit`` (the largest number over one-vs-all
        rows); after ``partial_fit``, the number of passes since the first.

    n_mistakes_ : int
        Updates made by the last ``fit`` over all rows; ``partial_fit`` adds
        to it (the online mistake count).

    mistakes_per_epoch_ : list of int
        Updates of every epoch of the last ``fit``; ``partial_fit`` appends
        one entry per call.

    converged_ : bool
        Whether every row of the last ``fit`` ended on an epoch with zero
        updates (after ``partial_fit``: whether its pass made no update).

    See Also
    --------
    MarginPerceptron : Updates on margin mistakes too; large-margin search.
    KernelPerceptron : The dual (kernelized) perceptron.
    sklearn.linear_model.Perceptron : scikit-learn's SGD-based perceptron.

    Notes
    -----
    If the data are separable with margin γ (by a unit vector, on the padded
    vectors ``[x; 1]`` when ``fit_intercept``) and lie in a ball of radius R,
    ``fit`` with ``threshold=0`` makes at most ``(R / γ)²`` updates, whatever
    the order (Block and Novikoff); see
    :func:`sklearn_perceptrons.bounds.mistake_bound`.

    References
    ----------
    .. [1] F. Rosenblatt, "The perceptron: a probabilistic model for
       information storage and organization in the brain", Psychological
       Review 65(6), 1958.
    .. [2] A. B. J. Novikoff, "On convergence proofs on perceptrons",
       Symposium on the Mathematical Theory of Automata, 1962.
    .. [3] Y. Freund and R. E. Schapire, "Large margin classification using
       the perceptron algorithm", Machine Learning 37(3), 1999.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_perceptrons import Perceptron
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = Perceptron(random_state=0).fit(X[:100], y[:100])
    >>> clf.converged_
    True
    >>> clf.score(X[:100], y[:100])
    1.0
    >>> clf.coef_.shape
    (1, 4)
    """

    _parameter_constraints = {
        **BaseLinearPerceptron._parameter_constraints,
        "threshold": [Interval(numbers.Real, 0, None, closed="left")],
        "eta0": [Interval(numbers.Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        threshold=0.0,
        fit_intercept=True,
        max_iter=1000,
        tol=1e-3,
        n_iter_no_change=5,
        shuffle=True,
        eta0=1.0,
        average=False,
        class_weight=None,
        early_stopping=False,
        validation_fraction=0.1,
        warm_start=False,
        random_state=0,
        verbose=0,
    ):
        self.threshold = threshold
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.eta0 = eta0
        self.average = average
        self.class_weight = class_weight
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose

    def _rule_parameters(self, X, n_rows):
        return (
            RULE_THRESHOLD,
            np.full(n_rows, float(self.threshold)),
            np.zeros(n_rows),
        )

    @keep_state_on_error
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        """Fit the perceptron by epochs over the training data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; float32 and CSR data are used without copies.

        y : array-like of shape (n_samples,)
            Target labels.

        coef_init : ndarray of shape (n_classes, n_features), default=None
            Initial weights w₀ (shape (1, n_features) or (n_features,) for
            binary problems).

        intercept_init : ndarray of shape (n_classes,), default=None
            Initial intercepts b₀.

        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights scaling the size of each sample's updates.

        Returns
        -------
        self : Perceptron
            The fitted estimator.
        """
        return self._fit(X, y, coef_init, intercept_init, sample_weight)

    @keep_state_on_error
    @partial_fit_context
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Make one pass over the given samples, in the given order.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data (never shuffled).

        y : array-like of shape (n_samples,)
            Target labels of the batch.

        classes : array-like of shape (n_classes,), default=None
            Every label of the stream; required on the first call.

        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights scaling the size of each sample's updates.

        Returns
        -------
        self : Perceptron
            The updated estimator.
        """
        return self._partial_fit(X, y, classes, sample_weight)


# ---------------------------------------------------------------------------
# The margin perceptron
# ---------------------------------------------------------------------------


def _padded_sq_norms(X, fit_intercept):
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


def _weight_norms(coef, intercept, fit_intercept):
    """``||[w_k; b_k]||`` (or ``||w_k||``) of every weight row, in float64."""
    sq = np.einsum("ij,ij->i", coef, coef, dtype=np.float64)
    if fit_intercept:
        sq = sq + intercept.astype(np.float64) ** 2
    return np.sqrt(sq)


def _row_geometry(sq_norms, y_class, step, signs_of_class):
    """Squared radius and step range of every row's binary problem.

    Only the samples that take part in a row (sign != 0) with a positive
    step can ever update it, so only they count.  Returns per-row arrays
    ``sq_radius`` (0 where no sample counts), ``step_min`` (inf) and
    ``step_max`` (0).
    """
    n_classes, n_rows = signs_of_class.shape
    counted = step > 0
    classes = y_class[counted]
    class_sq = np.zeros(n_classes)
    class_max = np.zeros(n_classes)
    class_min = np.full(n_classes, np.inf)
    np.maximum.at(class_sq, classes, sq_norms[counted])
    np.maximum.at(class_max, classes, step[counted])
    np.minimum.at(class_min, classes, step[counted])
    part = signs_of_class != 0
    return (
        np.where(part, class_sq[:, None], 0.0).max(axis=0),
        np.where(part, class_min[:, None], np.inf).min(axis=0),
        np.where(part, class_max[:, None], 0.0).max(axis=0),
    )


class _MarginSearch:
    """State of the certified margin search of every row (``margin="auto"``).

    Row ``k`` runs the margin perceptron with ``gamma_k = R_k / 2**h_k``;
    ``run_updates_k`` counts the updates since the current run started (at
    ``w~ = 0``, or at a warm start of norm ``start_norm_k``).  Plain arrays,
    replaced rather than mutated once fitted, so that the all-or-nothing
    snapshot of ``keep_state_on_error`` stays valid.
    """

    def __init__(self, sq_radius, halvings, run_updates, start_norm,
                 step_min, step_max):
        self.sq_radius = sq_radius
        self.halvings = halvings
        self.run_updates = run_updates
        self.start_norm = start_norm
        self.step_min = step_min
        self.step_max = step_max

    def copy(self):
        return _MarginSearch(*(np.array(getattr(self, name)) for name in (
            "sq_radius", "halvings", "run_updates", "start_norm",
            "step_min", "step_max",
        )))

    def gamma(self):
        return np.ldexp(np.sqrt(self.sq_radius), -self.halvings)

    def budget(self, epsilon):
        """Updates a run may make if a separator of margin gamma exists.

        Unit steps from ``w~ = 0`` on data of radius R: ``4 R² / (ε² γ²)``.
        Steps ``c_i`` in ``[c_min, c_max]``: that times ``c_max / c_min``.
        A run started at ``||w~_0|| = a > 0``: at most
        ``4 (a + max(a, 2 c_max R² / (ε γ) + c_max R)) / (3 ε γ c_min)``
        (see the Notes of :class:`MarginPerceptron`).  Infinite where
        ``gamma = 0`` or no sample can update the row.
        """
        radius = np.sqrt(self.sq_radius)
        budget = np.full(radius.shape, np.inf)
        usable = (radius > 0) & (self.step_max > 0)
        if not usable.all():
            if not usable.any():
                return budget
            return np.where(usable, self._budget(epsilon, usable), np.inf)
        return self._budget(epsilon, slice(None))

    def _budget(self, epsilon, rows):
        # R / gamma = 2**h exactly; beyond 2**500 the bound (> 4**500) can
        # never be reached, and capping h keeps the arithmetic finite.
        ratio = np.ldexp(1.0, np.minimum(self.halvings[rows], 500)) / epsilon
        radius = np.sqrt(self.sq_radius[rows])
        step_min, step_max = self.step_min[rows], self.step_max[rows]
        a = self.start_norm[rows]
        budget = (step_max / step_min) * 4.0 * ratio * ratio
        # From ||w~|| = a: 4 (a + max(a, 2 c_max R ratio + c_max R)) ratio
        # / (3 R c_min), the same bound written with gamma = R / 2**h.
        warm = (4.0 * ratio
                * (a + np.maximum(a, step_max * radius * (2.0 * ratio + 1.0)))
                / (3.0 * radius * step_min))
        out = np.where(a > 0, np.maximum(budget, warm), budget)
        if isinstance(rows, slice):
            return out
        full = np.full(self.sq_radius.shape, np.inf)
        full[rows] = out
        return full

    def halve(self, state, rows, fit_intercept):
        """Halve gamma of ``rows`` and go on from their current iterates.

        The updates are counted anew from here, against the bound of a run
        started at the current ``||w~||``.
        """
        self.halvings[rows] += 1
        self.run_updates[rows] = 0
        self.start_norm[rows] = _weight_norms(
            state.coef[rows], state.intercept[rows], fit_intercept)

    def restart(self, state, rows):
        """Halve gamma of ``rows`` and restart their runs at ``w~ = 0``."""
        self.halvings[rows] += 1
        self.run_updates[rows] = 0
        self.start_norm[rows] = 0.0
        state.coef[rows] = 0
        state.intercept[rows] = 0
        state.visits[rows] = 0.0
        if state.average:
            state.coef_sum[rows] = 0.0
            state.intercept_sum[rows] = 0.0


class _TrainingErrors:
    """Weighted training errors of weight rows on the samples ``idx``.

    A sample counts with its step (sample weight times class weight) when a
    row's classifier (positive iff score > 0, as ``predict``) gets its sign
    wrong.  The per-sample masks are built once per fit, so that an epoch
    costs one compiled scoring pass and a comparison.  The scores come from
    the compiled routine, which computes each row with the same arithmetic
    whatever the other rows are, so row ``k`` of a one-vs-all fit agrees bit
    for bit with its binary fit.
    """

    def __init__(self, idx, y_class, step, signs_of_class):
        signs = signs_of_class[y_class[idx]]
        self.idx = idx
        self.positive = signs > 0
        self.takes_part = None if np.all(signs != 0) else signs != 0
        weights = step[idx]
        self.uniform = weights.shape[0] == 0 or np.all(weights == weights[0])
        self.weights = weights[:1] if self.uniform else weights

    def __call__(self, X, coef, intercept, rows):
        scores = row_scores(X, self.idx, coef[rows], intercept[rows])
        wrong = (scores > 0) != self.positive[:, rows]
        if self.takes_part is not None:
            wrong &= self.takes_part[:, rows]
        if self.uniform:
            return np.count_nonzero(wrong, axis=0) * self.weights[0]
        return self.weights @ wrong


class MarginPerceptron(BaseLinearPerceptron):
    """The margin perceptron, with a certified search for a large margin.

    Works on the padded vectors ``x~ = [x; 1]`` and weights ``w~ = [w; b]``
    when ``fit_intercept`` (on ``x`` and ``w`` otherwise).  A sample of sign
    ``s`` (+1 for ``classes_[1]``, -1 otherwise) triggers the perceptron
    update ``w~ += c * s * x~`` (``c`` its sample weight times its class
    weight) when ``w~ = 0`` or when its signed distance to the hyperplane,
    ``d = s * (w~ . x~) / ||w~||``, is below ``(1 - epsilon) * gamma``: a
    mistake, or a correct answer too close to the hyperplane (a margin
    mistake).  Starts from ``w~ = 0``.  More than two classes are learned
    one-vs-all, all K rows in one compiled pass over X per epoch.

    Parameters
    ----------
    margin : float > 0 or "auto", default="auto"
        The target margin γ.  A float is used as is.  "auto" searches for a
        large margin by certified halving (see Notes): γ starts at the
        radius R of the (padded) training data and is halved whenever a run
        has made more updates than a margin-γ separator would allow.

    epsilon : float in (0, 1], default=0.5
        Approximation parameter ε: samples closer to the hyperplane than
        ``(1 - epsilon) * gamma`` trigger an update.  On data of radius R
        separable with margin γ, a run makes at most ``4 R² / (ε² γ²)``
        updates (``16 R² / γ²`` at ε = 1/2).  ``epsilon=1`` is the perceptron
        with the strict rule ``d < 0`` (or ``w~ = 0``).

    fit_intercept : bool, default=True
        Whether to learn an intercept ``b``; margins and radii are then those
        of the padded vectors.

    max_iter : int, default=1000
        Maximum number of epochs of ``fit``; with "auto", over all runs of
        the search together.

    tol : float or None, default=1e-3
        Stopping tolerance: when not None, a row's run is stalled after
        ``n_iter_no_change`` consecutive epochs whose number of updates did
        not fall below ``best - tol * n_samples`` (or, with early stopping,
        whose validation accuracy did not rise above ``best + tol``).  With
        a float ``margin`` a stalled row stops; with "auto" its γ is halved
        instead and its run goes on (a heuristic halving, see Notes).

    n_iter_no_change : int, default=5
        Number of epochs without improvement before the tol rule fires.

    shuffle : bool, default=True
        Whether to visit the samples in a fresh random order every epoch;
        otherwise cyclically (row 0, 1, ..., n - 1).

    average : bool, default=False
        If True, ``coef_`` and ``intercept_`` are the average of ``(w, b)``
        over every sample visit of training (of the current run, with
        "auto"), computed without storing the history.

    class_weight : dict, "balanced" or None, default=None
        Weights of the classes: an update on a sample of class ``j`` is
        scaled by ``class_weight[j]`` (in the one-vs-all sub-problem of class
        ``k`` a sample keeps the weight of its own class).

    early_stopping : bool, default=False
        Whether to hold out ``validation_fraction`` of the training data and
        let the tol rule watch the validation accuracy; the coefficients of
        each row's best validation epoch (over all runs, with "auto") are
        kept, as in :class:`Perceptron`.

    validation_fraction : float, default=0.1
        Fraction of the training data held out for early stopping.

    warm_start : bool, default=False
        If True, ``fit`` starts from the last iterate of the previous fit
        (and, with "auto", from its number of halvings ``h``, so from its γ
        on the same data).

    random_state : int, RandomState instance or None, default=0
        Seed of the epoch permutations and of the validation split.

    verbose : int, default=0
        If > 0, print one line per epoch: updates, ``||w||`` and time; if
        > 1, also a line whenever "auto" halves the γ of a row.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights, in the dtype of the training data.

    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts.

    margin_ : float or ndarray of shape (n_classes,)
        The smallest signed distance ``s * (w~ . x~) / ||w~||`` of a sample
        of the last ``fit`` (every sample of X, whatever its weight) to the
        learned hyperplane ``(coef_, intercept_)``; negative when a sample is
        misclassified, 0.0 for ``w~ = 0``.  After ``partial_fit``: over the
        samples of the last batch.  One value per one-vs-all row when
        multiclass.  Equal to :func:`sklearn_perceptrons.bounds.margin`.

    gamma_ : float or ndarray of shape (n_classes,)
        The γ used: ``margin`` for a float; with "auto", the last γ tried,
        ``R / 2**h`` (R the radius of the padded training data of the row).

    classes_ : ndarray of shape (n_classes,)
        The sorted class labels; ``classes_[1]`` is the positive class of a
        binary problem.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features, when X has string column names.

    n_iter_ : int
        Epochs run by the last ``fit`` (the largest number over one-vs-all
        rows, all runs of the search included); after ``partial_fit``, the
        number of passes since the first.

    n_mistakes_ : int
        Updates (mistakes and margin mistakes) made by the last ``fit`` over
        all rows and runs; ``partial_fit`` adds to it.

    mistakes_per_epoch_ : list of int
        Updates of every epoch of the last ``fit``; ``partial_fit`` appends
        one entry per call.

    converged_ : bool
        Whether every row of the last ``fit`` ended on an epoch with zero
        updates (after ``partial_fit``: whether its pass made no update).

    See Also
    --------
    Perceptron : The standard perceptron.
    sklearn.svm.LinearSVC : The (soft) maximum-margin linear classifier.
    sklearn_perceptrons.bounds.max_margin : The exact maximum margin.

    Notes
    -----
    **The guarantee.**  If every ``||x~_i|| <= R`` and a unit vector separates
    the data with margin γ (``s_i u . x~_i >= γ``), a run from ``w~ = 0``
    with unit steps makes at most ``4 R² / (ε² γ²)`` updates, in any order:
    ``u . w~`` grows by ≥ γ per update while, once ``||w~|| >= 2 R² / (ε γ)``,
    ``||w~||`` grows by at most ``(1 - 3ε/4) γ``.  When it converges (an
    epoch without update), every sample is at distance ``>= (1 - epsilon)
    * gamma`` (γ/2 at ε = 1/2) from the hyperplane.  With steps ``c_i``
    between ``c_min`` and ``c_max`` (sample and class weights) the same
    argument bounds ``sum c / c_max``, hence the number of updates by
    ``(c_max / c_min) * 4 R² / (ε² γ²)``; from a start of norm ``a > 0`` by
    ``4 (a + max(a, 2 c_max R² / (ε γ) + c_max R)) / (3 ε γ c_min)``.

    **margin="auto".**  Every one-vs-all row searches on its own, with
    ``R`` the radius of the padded training samples that can update it
    (positive weight) and ``gamma = R / 2**h``.  The search starts with
    ``h = 0`` (the previous ``h`` with ``warm_start``) and a run at
    ``w~ = 0`` (or at the warm start).  At the end of each epoch:

    * a row that made no update has converged and is frozen;
    * a row whose run has made more updates than the bound above has
      *proved* that no separator of margin γ exists: ``h`` increases by one
      and its run **restarts from** ``w~ = 0``, where the bound of the next
      level holds exactly as stated (continuing would need the larger bound
      of a run started at ``||w~|| = a``);
    * otherwise, when ``tol`` is set and the tol rule fires, ``h`` also
      increases by one, but the run goes on from its iterate (a stalled run
      is usually close to satisfying the halved margin) and its updates are
      counted from there against the bound of a run started at the current
      ``||w~||``, so that a later halving by the bound is still a proof.  A
      halving by the tol rule is a heuristic, not a proof.

    The search stops when every row has converged, or after ``max_iter``
    epochs in total (it does not halve after the last one).  A row that
    converges at γ, without averaging, has ``margin_ >= (1 - epsilon) *
    gamma``; if moreover all its halvings were proofs (always the case with
    ``tol=None`` and no warm start), the maximum margin γ* is below
    ``2 gamma``, so ``margin_ > (1 - epsilon) * γ* / 2`` (γ*/4 at ε = 1/2).
    A row that never converges (non-separable data, or ``max_iter`` too
    small) keeps the *pocket*: the coefficients, over the ends of all epochs
    of all its runs, with the smallest weighted number of training errors
    (the sum of the sample and class weights of the misclassified training
    samples); ``converged_`` is then False and ``gamma_`` is its last γ.
    With ``early_stopping`` every row keeps its best validation epoch over
    all runs, as in :class:`Perceptron`.

    **partial_fit with "auto"** runs the same certified rule online: row
    ``k`` uses ``gamma_k = R_k / 2**h_k`` with ``R_k`` the radius of the
    rows seen so far (so γ starts at that radius, and follows it when it
    grows), and as soon as the updates of its current run exceed the bound
    (with the running radius and step range) ``h_k`` increases by one and
    the run restarts from ``w~ = 0``.  The bound holds with the γ and R of
    the moment, since both only grew during the run.  The check is exact
    (the pass is split where the bound can be reached or the radius grows),
    so one call on a batch equals one call per row.  After a ``fit`` with
    "auto" the online search continues that fit's last run.  With unit
    weights, from ``w~ = 0``, on a stream separable with margin γ* it makes
    at most ``64 R² / (3 ε² γ*²) + log2(2 R / γ*)`` updates in total.

    **Update and cost.**  The rule is a parameter of the same compiled epoch
    as :class:`Perceptron`'s, which keeps ``||w~||`` up to date
    incrementally (and recomputes it at the start of every pass): with a
    float ``margin`` an epoch costs the same as the perceptron's.  "auto"
    adds, per epoch, one compiled scoring pass of the training set by the
    active rows (the pocket's error count).  There is no ``eta0``: the
    margin rule does not depend on the scale of ``w~``, and the update size
    is ``sample_weight * class_weight``.

    References
    ----------
    .. [1] W. Krauth and M. Mézard, "Learning algorithms with optimal
       stability in neural networks", Journal of Physics A 20(11), 1987.
    .. [2] A. Blum and J. Dunagan, "Smoothed analysis of the perceptron
       algorithm for linear programming", SODA, 2002.
    .. [3] P. Tsampouka and J. Shawe-Taylor, "Approximate maximum margin
       algorithms with rules controlled by the number of mistakes", ICML,
       2007.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_perceptrons import MarginPerceptron
    >>> from sklearn_perceptrons.bounds import max_margin
    >>> X, y = load_iris(return_X_y=True)
    >>> y = y == 0  # setosa vs. the rest: separable
    >>> clf = MarginPerceptron(tol=None, random_state=0).fit(X, y)
    >>> clf.converged_
    True
    >>> gamma_star = max_margin(X, y)[0]
    >>> bool(clf.margin_ >= gamma_star / 4)
    True
    >>> clf.score(X, y)
    1.0
    """

    _state_types = {"_state": LinearState, "_search_state": _MarginSearch}

    _parameter_constraints = {
        **BaseLinearPerceptron._parameter_constraints,
        "margin": [
            Interval(numbers.Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "epsilon": [Interval(numbers.Real, 0, 1, closed="right")],
    }

    def __init__(
        self,
        *,
        margin="auto",
        epsilon=0.5,
        fit_intercept=True,
        max_iter=1000,
        tol=1e-3,
        n_iter_no_change=5,
        shuffle=True,
        average=False,
        class_weight=None,
        early_stopping=False,
        validation_fraction=0.1,
        warm_start=False,
        random_state=0,
        verbose=0,
    ):
        self.margin = margin
        self.epsilon = epsilon
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.average = average
        self.class_weight = class_weight
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose

    def _rule_parameters(self, X, n_rows):
        if self.margin == "auto":
            # The first level of the search (the search itself sets the
            # margin of every row; see _run_epochs and _partial_pass).
            gamma = np.sqrt(_padded_sq_norms(X, self.fit_intercept).max())
        else:
            gamma = float(self.margin)
        return (
            RULE_MARGIN,
            np.zeros(n_rows),
            np.full(n_rows, (1.0 - self.epsilon) * gamma),
        )

    # -- fit -----------------------------------------------------------------

    def _run_epochs(self, X, y_class, step, table, state, train_idx, val_idx, rng,
                    *, rule, threshold, kappa, max_epochs=None):
        n_rows = state.coef.shape[0]
        signs_of_class = sign_matrix(table, len(table[0]) - 1, n_rows)
        if self.margin == "auto":
            result, search = self._search(
                X, y_class, step, table, state, train_idx, val_idx, rng,
                signs_of_class, self.max_iter if max_epochs is None else max_epochs,
            )
            gamma = search.gamma()
        else:
            result = super()._run_epochs(
                X, y_class, step, table, state, train_idx, val_idx, rng,
                rule=rule, threshold=threshold, kappa=kappa, max_epochs=max_epochs,
            )
            search, gamma = None, np.full(n_rows, float(self.margin))
        self._search_state = search
        self._set_margins(X, y_class, signs_of_class, *result[1], gamma)
        return result

    def _search(self, X, y_class, step, table, state, train_idx, val_idx, rng,
                signs_of_class, max_epochs):
        """The certified halving search of ``margin="auto"`` (see Notes)."""
        n_rows = state.coef.shape[0]
        epsilon = float(self.epsilon)
        sq_radius, step_min, step_max = _row_geometry(
            _padded_sq_norms(X, self.fit_intercept)[train_idx],
            y_class[train_idx], step[train_idx], signs_of_class,
        )
        halvings = np.zeros(n_rows, dtype=np.int64)
        previous = getattr(self, "_search_state", None)
        if (self.warm_start and previous is not None
                and previous.halvings.shape == (n_rows,)):
            halvings = previous.halvings.copy()
        search = _MarginSearch(
            sq_radius, halvings, np.zeros(n_rows, dtype=np.int64),
            _weight_norms(state.coef, state.intercept, self.fit_intercept),
            step_min, step_max,
        )
        stopper = StoppingRule(
            n_rows, tol=self.tol, n_iter_no_change=self.n_iter_no_change,
            n_samples=train_idx.shape[0], early_stopping=self.early_stopping,
        )
        pocket_coef, pocket_intercept = state.model()
        pocket_score = np.full(n_rows, -np.inf)  # minus errors, or accuracy
        if val_idx is None:
            training_errors = _TrainingErrors(train_idx, y_class, step,
                                              signs_of_class)
        no_threshold = np.zeros(n_rows)
        mistakes_per_epoch = []
        for epoch in range(1, max_epochs + 1):
            start = perf_counter()
            order = self._epoch_order(train_idx, rng)
            active = stopper.active.astype(bool)
            updates = run_epoch(
                X, state, order, y_class, step, table,
                fit_intercept=self.fit_intercept, active=stopper.active,
                rule=RULE_MARGIN, threshold=no_threshold,
                kappa=(1.0 - epsilon) * search.gamma(),
            )
            _check_finite_weights(state)
            mistakes_per_epoch.append(int(updates.sum()))
            search.run_updates += updates
            coef, intercept = state.model()
            rows = np.flatnonzero(active)
            score = np.full(n_rows, -np.inf)
            val_score = None
            if val_idx is not None:
                val_score = row_accuracy(
                    row_scores(X, val_idx, coef, intercept),
                    y_class[val_idx], signs_of_class,
                )
                score[rows] = val_score[rows]
            else:
                score[rows] = -training_errors(X, coef, intercept, rows)
            better = active & (score > pocket_score)
            pocket_score[better] = score[better]
            pocket_coef[better] = coef[better]
            pocket_intercept[better] = intercept[better]

            stopper.update(updates, val_score)
            converged = active & stopper.converged
            stalled = active & ~converged & ~stopper.active.astype(bool)
            proved = active & ~converged & (search.run_updates > search.budget(epsilon))
            # The search stops rows only when they converge.
            stopper.active[active & ~converged] = 1
            halve = np.flatnonzero(stalled | proved) if epoch < max_epochs else []
            if len(halve):
                # A proof restarts the run at w~ = 0; the tol rule only
                # halves gamma and lets the run go on from where it is.
                search.restart(state, halve[proved[halve]])
                search.halve(state, halve[~proved[halve]], self.fit_intercept)
                stopper.best_updates[halve] = np.inf
                stopper.best_score[halve] = -np.inf
                stopper.no_improvement[halve] = 0
            self._print_epoch(
                epoch, updates.sum(), float(np.linalg.norm(state.coef)),
                perf_counter() - start,
            )
            if self.verbose > 1:
                for k in halve:
                    print(
                        f"   row {k}: gamma halved to {search.gamma()[k]:.6g} "
                        f"({'certified' if proved[k] else 'tol rule'})",
                        flush=True,
                    )
            if stopper.done:
                break
        coef, intercept = state.model()
        keep_pocket = (
            np.ones(n_rows, dtype=bool) if val_idx is not None
            else ~stopper.converged
        )
        coef[keep_pocket] = pocket_coef[keep_pocket]
        intercept[keep_pocket] = pocket_intercept[keep_pocket]
        return (state, (coef, intercept), stopper, mistakes_per_epoch), search

    # -- partial_fit ---------------------------------------------------------

    def _partial_pass(self, X, state, y_class, step, table):
        n_rows = state.coef.shape[0]
        signs_of_class = sign_matrix(table, len(table[0]) - 1, n_rows)
        if self.margin == "auto":
            updates, search = self._online_search_pass(
                X, state, y_class, step, table, signs_of_class
            )
            gamma = search.gamma()
        else:
            updates = super()._partial_pass(X, state, y_class, step, table)
            search, gamma = None, np.full(n_rows, float(self.margin))
        self._search_state = search
        self._set_margins(X, y_class, signs_of_class, *state.model(), gamma)
        return updates

    def _online_search_pass(self, X, state, y_class, step, table, signs_of_class):
        """One pass of the online certified search (see Notes)."""
        n_samples, n_rows = X.shape[0], state.coef.shape[0]
        epsilon = float(self.epsilon)
        previous = getattr(self, "_search_state", None)
        if previous is not None and previous.halvings.shape == (n_rows,):
            search = previous.copy()
        else:
            search = _MarginSearch(
                np.zeros(n_rows), np.zeros(n_rows, dtype=np.int64),
                np.zeros(n_rows, dtype=np.int64),
                _weight_norms(state.coef, state.intercept, self.fit_intercept),
                np.full(n_rows, np.inf), np.zeros(n_rows),
            )
        # Running radius and step range of every row after each sample (the
        # rows before the first are the state carried over).
        counts = (signs_of_class[y_class] != 0) & (step > 0)[:, None]
        sq_norms = _padded_sq_norms(X, self.fit_intercept)[:, None]
        sq_radius = np.maximum.accumulate(np.concatenate(
            [search.sq_radius[None], np.where(counts, sq_norms, 0.0)]), axis=0)
        step_min = np.minimum.accumulate(np.concatenate(
            [search.step_min[None], np.where(counts, step[:, None], np.inf)]),
            axis=0)[1:]
        step_max = np.maximum.accumulate(np.concatenate(
            [search.step_max[None], np.where(counts, step[:, None], 0.0)]),
            axis=0)[1:]
        # The margin of a row changes where its radius grows: split there.
        breaks = np.append(
            np.flatnonzero((sq_radius[1:] > sq_radius[:-1]).any(axis=1)), n_samples)
        sq_radius = sq_radius[1:]
        total = np.zeros(n_rows, dtype=np.int64)
        all_rows = np.ones(n_rows, dtype=np.uint8)
        no_threshold = np.zeros(n_rows)
        start = 0
        while start < n_samples:
            search.sq_radius = sq_radius[start]
            search.step_min, search.step_max = step_min[start], step_max[start]
            # Up to ``floor(budget) - run_updates + 1`` visits cannot exceed
            # the budget before their last one: check right after it.
            room = np.floor(search.budget(epsilon)) - search.run_updates + 1
            room = room.min() if np.isfinite(room).any() else np.inf
            stop = min(breaks[np.searchsorted(breaks, start, side="right")],
                       start + max(int(min(room, n_samples)), 1))
            updates = run_epoch(
                X, state, np.arange(start, stop, dtype=np.int32), y_class, step,
                table, fit_intercept=self.fit_intercept, active=all_rows,
                rule=RULE_MARGIN, threshold=no_threshold,
                kappa=(1.0 - epsilon) * search.gamma(),
            )
            total += updates
            search.run_updates += updates
            search.step_min, search.step_max = step_min[stop - 1], step_max[stop - 1]
            proved = np.flatnonzero(search.run_updates > search.budget(epsilon))
            if len(proved):
                search.restart(state, proved)
            start = stop
        return total, search

    # -- diagnostics -------------------------------------------------------

    def _set_margins(self, X, y_class, signs_of_class, coef, intercept, gamma):
        """Set ``margin_`` (over the samples of X) and ``gamma_``."""
        scores = row_scores(X, np.arange(X.shape[0], dtype=np.int32),
                            coef, intercept)
        signs = signs_of_class[y_class]
        functional = scores * signs
        takes_part = signs != 0
        if not takes_part.all():
            functional[~takes_part] = np.inf
        smallest = functional.min(axis=0)
        norms = _weight_norms(coef, intercept, self.fit_intercept)
        # min_i (m_i / ||w~||) = (min_i m_i) / ||w~|| exactly (division by a
        # positive number is monotone in floating point too).
        margin = np.zeros(coef.shape[0])
        np.divide(smallest, norms, out=margin, where=norms > 0)
        margin[np.isinf(smallest)] = np.nan  # no sample of this row
        binary = coef.shape[0] == 1
        self.margin_ = float(margin[0]) if binary else margin
        self.gamma_ = float(gamma[0]) if binary else np.asarray(gamma, dtype=float)

    @keep_state_on_error
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        """Fit the margin perceptron by epochs over the training data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; float32 and CSR data are used without copies.

        y : array-like of shape (n_samples,)
            Target labels.

        coef_init : ndarray of shape (n_classes, n_features), default=None
            Initial weights (shape (1, n_features) or (n_features,) for
            binary problems); with "auto", the start of the first run only.

        intercept_init : ndarray of shape (n_classes,), default=None
            Initial intercepts.

        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights scaling the size of each sample's updates.

        Returns
        -------
        self : MarginPerceptron
            The fitted estimator.
        """
        return self._fit(X, y, coef_init, intercept_init, sample_weight)

    @keep_state_on_error
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Make one pass over the given samples, in the given order.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data (never shuffled).

        y : array-like of shape (n_samples,)
            Target labels of the batch.

        classes : array-like of shape (n_classes,), default=None
            Every label of the stream; required on the first call.

        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights scaling the size of each sample's updates.

        Returns
        -------
        self : MarginPerceptron
            The updated estimator.
        """
        return self._partial_fit(X, y, classes, sample_weight)
