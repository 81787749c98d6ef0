# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The linear perceptrons: :class:`Perceptron` (and the shared linear driver)."""

import numbers
from time import perf_counter

import numpy as np
import scipy.sparse as sp
from sklearn.base import _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.extmath import row_norms, safe_sparse_dot

from . import _linear_fast
from ._base import (
    RULE_MARGIN,
    RULE_THRESHOLD,
    BasePerceptron,
    StoppingRule,
    keep_state_on_error,
    one_vs_all_table,
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
        new.__dict__.update({k: getattr(v, "copy", lambda: v)()
                             for k, v in self.__dict__.items()})
        return new

    def model(self):
        """The (coef, intercept) predictions use: the average, or the iterate."""
        if not self.average:
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

    def _initial_state(self, X, n_rows, coef_init, intercept_init):
        dtype = X.dtype
        n_features = X.shape[1]
        if coef_init is None and self.warm_start and hasattr(self, "_state"):
            coef_init = self._state.coef
            if intercept_init is None:
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
        rng = check_random_state(self.random_state)
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

    def _partial_fit(self, X, y, classes, sample_weight):
        X, y_class, sample_weight, classes = self._validate_partial_fit_data(
            X, y, classes, sample_weight
        )
        X = as_csr_int32(X)
        n_classes = classes.shape[0]
        n_rows = 1 if n_classes == 2 else n_classes
        table = one_vs_all_table(n_classes)
        class_weight = self._class_weights(classes, partial=True)
        step = self._learning_rate() * sample_weight * class_weight[y_class]
        if hasattr(self, "_state"):
            state = self._state.copy()
        else:
            state = self._initial_state(X, n_rows, None, None)
        updates = self._partial_pass(X, state, y_class, step, table)
        _check_finite_weights(state)
        total = int(updates.sum())
        self.classes_ = classes
        self._state = state
        self.coef_, self.intercept_ = state.model()
        self.mistakes_per_epoch_ = [*getattr(self, "mistakes_per_epoch_", []), total]
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
    if not (np.isfinite(state.coef).all() and np.isfinite(state.intercept).all()):
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
        self : Perceptron
            The updated estimator.
        """
        return self._partial_fit(X, y, classes, sample_weight)
