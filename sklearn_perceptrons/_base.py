# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""What every perceptron of the package shares.

Parameter tables, input and label validation (with a lean path for the
one-row calls of streaming), the row tables that map classes to binary
sub-problems, the per-row stopping rules, the verbose lines and the
all-or-nothing update of a fitted estimator.
"""

import functools
import math
import numbers
import threading
import warnings
import weakref
from math import ceil

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state, compute_class_weight
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    assert_all_finite,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from ._shuffle import shuffle_indices

# Update rules of the compiled epoch; mirrored by the enum of _linear_fast.pyx.
RULE_THRESHOLD = 0
RULE_MARGIN = 1

_FLOAT_DTYPES = (np.float64, np.float32)
# The constructor's parameter names of every estimator class (read once:
# ``_get_param_names`` inspects the signature at every call).
_PARAM_NAMES = {}
# The parameter values that passed validation, by estimator (outside the
# estimator: they are no fitted state, and stay out of its pickles).
_VALIDATED_PARAMS = weakref.WeakKeyDictionary()


def _is_float_matrix(X):
    """Whether X is a 2-d C-ordered ndarray of float64 or float32 (what
    ``validate_data`` would return unchanged)."""
    return (
        type(X) is np.ndarray
        and X.ndim == 2
        and X.dtype in _FLOAT_DTYPES
        and X.flags.c_contiguous
    )


def check_finite(array, name):
    """Raise ValueError if ``array`` (a float ndarray) holds NaN or infinity.

    A sum is finite iff every term is finite, barring overflow, so the
    common case costs one reduction and no temporary array; a non-finite
    sum falls back to scikit-learn's exact check and its error message.
    """
    if not math.isfinite(np.add.reduce(array, axis=None)):
        assert_all_finite(array, input_name=name)


def sum_duplicates(X):
    """X with its duplicate CSR entries summed, without touching the caller's
    matrix: SciPy reads duplicates as their sum, but norms computed from the
    stored values would not (a copy only when X has duplicates or unsorted
    indices)."""
    if sp.issparse(X) and X.format == "csr" and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


class _PooledRandomState(np.random.RandomState):
    """A RandomState of the pool of :func:`fit_random_state`."""


class _RandomStatePool(threading.local):
    """Free RandomState objects, one list per thread."""

    def __init__(self):
        self.free = []


_RANDOM_STATES = _RandomStatePool()


def fit_random_state(random_state):
    """``check_random_state(random_state)`` for one fit.

    An integer seed gets a RandomState from a per-thread pool, seeded again:
    ``seed(n)`` gives the very state of ``RandomState(n)``, whose
    constructor first seeds a new generator from the operating system's
    entropy (about 150 microseconds, as much as an epoch of a small fit).
    Give it back with :func:`release_random_state` when the fit no longer
    needs it (a fit that raises simply does not: the pool makes another).
    """
    if isinstance(random_state, numbers.Integral):
        free = _RANDOM_STATES.free
        rng = free.pop() if free else _PooledRandomState()
        rng.seed(random_state)
        return rng
    return check_random_state(random_state)


def release_random_state(rng):
    """Return a RandomState of :func:`fit_random_state` to the pool (a
    RandomState the user passed is left alone)."""
    if type(rng) is _PooledRandomState:
        _RANDOM_STATES.free.append(rng)


def partial_fit_context(method):
    """``_fit_context`` for the first call of ``partial_fit`` only.

    scikit-learn's ``_fit_context`` already skips parameter validation once a
    ``partial_fit`` estimator is fitted; later calls also skip its context
    managers, whose cost would dominate a one-row call.
    """
    first_call = _fit_context(prefer_skip_nested_validation=True)(method)

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if hasattr(self, "classes_"):
            return method(self, *args, **kwargs)
        return first_call(self, *args, **kwargs)

    return wrapper


def keep_state_on_error(method):
    """Make ``method`` all-or-nothing: on any exception, restore ``self``.

    ``validate_data(reset=True)`` sets ``n_features_in_`` before the labels are
    even looked at, so a failed ``fit`` would otherwise leave a half-updated
    estimator behind.  The fitting code never mutates a fitted array in place,
    so a shallow copy of ``__dict__`` is a complete snapshot.
    """

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        snapshot = self.__dict__.copy()
        try:
            return method(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(snapshot)
            raise

    return wrapper


@functools.lru_cache(maxsize=64)
def one_vs_all_table(n_classes):
    """Rows touched by each class, and signs, for one-vs-all sub-problems.

    Binary problems have one row, in which ``classes_[1]`` is the positive
    class; otherwise row ``k`` is "class k vs. the rest".

    Returns
    -------
    rows_ptr, rows, signs : ndarrays of int32, int32, int8
        The rows touched by a sample of class ``c`` are
        ``rows[rows_ptr[c]:rows_ptr[c + 1]]`` with signs at the same places.
    """
    if n_classes == 2:
        return _read_only(
            np.array([0, 1, 2], dtype=np.int32),
            np.array([0, 0], dtype=np.int32),
            np.array([-1, 1], dtype=np.int8),
        )
    rows = np.tile(np.arange(n_classes, dtype=np.int32), n_classes)
    signs = np.where(
        rows.reshape(n_classes, n_classes) == np.arange(n_classes)[:, None], 1, -1
    ).astype(np.int8)
    rows_ptr = np.arange(0, n_classes * n_classes + 1, n_classes, dtype=np.int32)
    return _read_only(rows_ptr, rows, signs.ravel())


def _read_only(*arrays):
    """Freeze the arrays of a cached table, so no caller can corrupt it."""
    for array in arrays:
        array.flags.writeable = False
    return arrays


@functools.lru_cache(maxsize=64)
def one_vs_one_table(n_classes):
    """Rows touched by each class, and signs, for one-vs-one sub-problems.

    Row ``p`` is the pair ``(i, j)``, ``i < j``, in lexicographic order, with
    class ``j`` positive (as scikit-learn's ``OneVsOneClassifier``).  A sample
    of class ``c`` touches only the ``n_classes - 1`` pairs that involve ``c``.
    """
    pairs = [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]
    rows, signs, rows_ptr = [], [], [0]
    for c in range(n_classes):
        for p, (i, j) in enumerate(pairs):
            if c in (i, j):
                rows.append(p)
                signs.append(1 if c == j else -1)
        rows_ptr.append(len(rows))
    return _read_only(
        np.asarray(rows_ptr, dtype=np.int32),
        np.asarray(rows, dtype=np.int32),
        np.asarray(signs, dtype=np.int8),
    )


def sign_matrix(table, n_classes, n_rows):
    """Dense (n_classes, n_rows) matrix of the sign of each class in each row.

    Zero where a class does not take part in a row's binary problem.
    """
    rows_ptr, rows, signs = table
    matrix = np.zeros((n_classes, n_rows), dtype=np.int8)
    for c in range(n_classes):
        span = slice(rows_ptr[c], rows_ptr[c + 1])
        matrix[c, rows[span]] = signs[span]
    return matrix


def row_accuracy(scores, y_class, signs_of_class):
    """Accuracy of every row's binary classifier on the given samples.

    A row predicts the positive class iff its score is > 0, as ``predict``
    does.  Rows with no sample of their classes get accuracy 0.
    """
    signs = signs_of_class[y_class]
    correct = np.where(signs > 0, scores > 0, scores <= 0) & (signs != 0)
    counts = (signs != 0).sum(axis=0)
    return np.divide(
        correct.sum(axis=0), counts, out=np.zeros(scores.shape[1]), where=counts > 0
    )


def encode_labels(y):
    """Return the sorted classes of y and the class index of every sample.

    Integer and boolean labels are always a valid classification target, and
    their classes are found by counting, in O(n) instead of the O(n log n)
    sorts of ``np.unique`` and ``type_of_target``, which would otherwise cost
    as much as a training epoch on a large X.  Other labels go through
    scikit-learn's ``check_classification_targets``.
    """
    if y.dtype.kind in "iub" and y.shape[0] > 0:
        low, high = int(y.min()), int(y.max())
        if high - low <= 4 * y.shape[0] + 1024 and -(2**62) < low <= high < 2**62:
            offsets = y.astype(np.intp) - low
            present = np.bincount(offsets, minlength=high - low + 1) > 0
            codes = np.cumsum(present, dtype=np.int32) - 1
            classes = (np.flatnonzero(present) + low).astype(y.dtype)
            return classes, codes[offsets]
    check_classification_targets(y)
    classes, y_class = np.unique(y, return_inverse=True)
    return classes, y_class.astype(np.int32)


def check_sample_weight(sample_weight, X, *, allow_all_zero=False):
    """scikit-learn's sample-weight validation (float64, non-negative), with
    a message that says what to do about negative weights."""
    if sample_weight is None:
        return np.ones(X.shape[0])
    try:
        return _check_sample_weight(
            sample_weight, X, dtype=np.float64, ensure_non_negative=True,
            allow_all_zero_weights=allow_all_zero,
        )
    except ValueError as error:
        if "Negative" not in str(error):
            raise
        raise ValueError(
            f"{error} A sample weight scales the size of that sample's updates, "
            "so it must be >= 0; use 0 to make a sample never update."
        ) from error


def _check_classes(classes):
    """The sorted unique labels of a ``classes`` argument: a 1-d array-like
    of sortable labels, none of them missing (NaN or None), as scikit-learn
    requires."""
    classes = np.asarray(classes)
    if classes.ndim != 1:
        raise ValueError(
            f"classes must be a 1-d array-like of labels; got an array of shape "
            f"{classes.shape}."
        )
    missing = (
        np.isnan(classes) if classes.dtype.kind in "fc"
        else np.array([c is None or (isinstance(c, float) and c != c)
                       for c in classes.tolist()], dtype=bool)
        if classes.dtype.kind == "O" else np.zeros(classes.shape, dtype=bool)
    )
    if missing.any():
        raise ValueError(
            f"classes={classes.tolist()!r} contains a missing label (NaN or "
            "None); every class must be a proper label."
        )
    try:
        return np.unique(classes)
    except TypeError as error:
        raise ValueError(
            f"classes={classes.tolist()!r} mixes labels that cannot be "
            "compared with each other; use labels of one type."
        ) from error


def check_class_weights(weights, classes):
    """Refuse negative or non-finite class weights: a class weight scales the
    updates of its samples like a sample weight, and a negative one would
    push the model away from its own samples."""
    bad = ~np.isfinite(weights) | (weights < 0)
    if bad.any():
        raise ValueError(
            "class_weight must be finite and >= 0 for every class; got "
            f"{dict(zip(classes[bad].tolist(), weights[bad].tolist()))!r}. Use 0 "
            "to make the samples of a class never update."
        )
    return weights


def partial_fit_classes(estimator, classes):
    """The classes of a ``partial_fit`` call: required and set on the first
    call, checked against ``classes_`` on the later ones."""
    if not hasattr(estimator, "classes_"):
        if classes is None:
            raise ValueError(
                "classes must be passed on the first call to partial_fit: "
                "the list of every label the stream will contain."
            )
        classes = _check_classes(classes)
        if classes.shape[0] < 2:
            raise ValueError(
                f"classes={classes.tolist()!r} holds only one class; "
                "partial_fit needs at least 2 classes."
            )
        return classes
    if classes is not None and not np.array_equal(
        _check_classes(classes), estimator.classes_
    ):
        raise ValueError(
            f"classes={np.asarray(classes).tolist()!r} is not the same as on "
            f"the first call to partial_fit: {estimator.classes_.tolist()!r}."
        )
    return estimator.classes_


def class_indices(classes, y):
    """Index in ``classes`` of every label of y (int32); ValueError for a
    label outside ``classes``."""
    try:
        y_class = np.minimum(np.searchsorted(classes, y), classes.shape[0] - 1)
        unknown = classes[y_class] != y
    except TypeError:
        # Labels that do not compare with the classes (None among strings,
        # say) cannot be sorted in: find the unknown ones one by one.
        index = {label: i for i, label in enumerate(classes.tolist())}
        y_class = np.array([index.get(label, -1) for label in y.tolist()])
        unknown = y_class < 0
    if unknown.any():
        labels = list(dict.fromkeys(np.asarray(y)[unknown].tolist()))
        try:
            labels = sorted(labels)
        except TypeError:
            pass
        raise ValueError(
            f"partial_fit got labels {labels!r} "
            f"that are not in classes={classes.tolist()!r}."
        )
    return y_class.astype(np.int32)


class StoppingRule:
    """The per-row stopping rules of ``fit``, shared by every perceptron.

    Each binary sub-problem (row) stops on its own: (1) after an epoch with
    zero updates (converged); (2) if ``tol`` is not None, after
    ``n_iter_no_change`` consecutive epochs whose number of updates did not
    fall below ``best - tol * n_samples`` or, with early stopping, whose
    validation accuracy did not rise above ``best + tol``.  Rows still going
    at ``max_iter`` stop there unconverged.  ``n_samples`` may be an array
    with each row's own number of training samples (one-vs-one pairs).
    """

    def __init__(self, n_rows, *, tol, n_iter_no_change, n_samples, early_stopping):
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.n_samples = n_samples
        self.early_stopping = early_stopping
        self.active = np.ones(n_rows, dtype=np.uint8)
        self.converged = np.zeros(n_rows, dtype=bool)
        self.n_iter = np.zeros(n_rows, dtype=np.int64)
        self.best_updates = np.full(n_rows, np.inf)
        self.best_score = np.full(n_rows, -np.inf)
        self.no_improvement = np.zeros(n_rows, dtype=np.int64)
        self._all_false = np.zeros(n_rows, dtype=bool)

    def update(self, updates, val_score=None):
        """Record one epoch of the active rows.

        Returns the boolean mask of the rows whose validation score is the best
        so far (their coefficients should be kept); all False without early
        stopping (a shared array: read it, do not change it).
        """
        # In place and with few operations: this runs after every epoch,
        # when the epoch has left the caches cold.
        active = self.active.astype(bool)
        self.n_iter += active
        improved = self._all_false
        if self.early_stopping:
            improved = active & (val_score > self.best_score)
            if self.tol is not None:
                stalled = val_score < self.best_score + self.tol
            np.copyto(self.best_score, val_score, where=improved)
        elif self.tol is not None:
            stalled = updates > self.best_updates - self.tol * self.n_samples
            np.minimum(self.best_updates, updates, out=self.best_updates,
                       where=active)
        if self.tol is not None:
            # +1 where active and stalled, else back to 0.
            stalled &= active
            self.no_improvement += stalled
            self.no_improvement *= stalled
            stopped = self.no_improvement >= self.n_iter_no_change
        else:
            stopped = self._all_false.copy()
        # Rows with no update in the epoch converged.
        converged = updates == 0
        converged &= active
        self.converged |= converged
        stopped |= converged
        self.active[stopped] = 0
        return improved

    @property
    def done(self):
        return not self.active.any()


def validation_split(n_samples, validation_fraction, random_state):
    """Split sample indices into a training and a validation part.

    The split does not look at the labels, so that in a one-vs-all problem
    every row sees the split its own binary problem would see (a stratified
    split would depend on all K classes).
    """
    n_val = int(ceil(validation_fraction * n_samples))
    n_train = n_samples - n_val
    if n_val < 1 or n_train < 1:
        raise ValueError(
            f"early_stopping=True with validation_fraction={validation_fraction} "
            f"leaves {n_train} training and {n_val} validation samples out of "
            f"{n_samples}; both must be at least 1. Use more samples or another "
            "validation_fraction."
        )
    permutation = random_state.permutation(n_samples)
    return (
        np.sort(permutation[n_val:]).astype(np.int32),
        np.sort(permutation[:n_val]).astype(np.int32),
    )


class BasePerceptron(ClassifierMixin, BaseEstimator):
    """Parameters, validation, labels and diagnostics of every perceptron."""

    _parameter_constraints = {
        "fit_intercept": ["boolean"],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left"), None],
        "n_iter_no_change": [Interval(numbers.Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "average": ["boolean"],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "warm_start": ["boolean"],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    # Private helper objects of a fitted estimator, by attribute name.  They
    # are saved as plain dicts of arrays and numbers, so that a pickle or a
    # skops file holds no type of this package but the estimator's own class
    # (skops lists every other type as untrusted).
    _state_types = {}

    def __getstate__(self):
        # BaseEstimator.__getstate__ may return self.__dict__ itself: copy it.
        state = dict(super().__getstate__())
        for name in self._state_types:
            if state.get(name) is not None:
                state[name] = dict(vars(state[name]))
        return state

    def __setstate__(self, state):
        state = dict(state)
        for name, cls in self._state_types.items():
            if isinstance(state.get(name), dict):
                helper = cls.__new__(cls)
                helper.__dict__.update(state[name])
                state[name] = helper
        super().__setstate__(state)

    # -- tags ------------------------------------------------------------

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # -- validation ------------------------------------------------------

    def _validate_params(self):
        """scikit-learn's parameter validation, skipped when every parameter
        is the very object that passed it at the previous call.  The
        constraints test types, intervals and options, and the values they
        bound (numbers, strings, booleans) are immutable, so an object that
        passed once passes again; repeated fits (cross-validation, grid
        search, benchmarks) then skip about a hundred microseconds."""
        names = _PARAM_NAMES.get(type(self))
        if names is None:
            names = _PARAM_NAMES[type(self)] = tuple(self._get_param_names())
        values = tuple(getattr(self, name) for name in names)
        passed = _VALIDATED_PARAMS.get(self)
        if passed is not None and len(passed) == len(values) and all(
            a is b for a, b in zip(passed, values)
        ):
            return
        super()._validate_params()
        _VALIDATED_PARAMS[self] = values

    def _validate_fit_data(self, X, y, sample_weight):
        """Validate X, y and sample_weight for ``fit`` (resets feature info).

        A 2-d float C-ordered ndarray X with 1-d integer or boolean labels
        takes a lean path: the checks of ``validate_data`` that can fail on
        such input (sizes, finiteness), without its conversions, which would
        change nothing, and its inspection of dataframe types.  Any other
        input, or a failed check, goes through ``validate_data`` and gets its
        errors."""
        if self._is_lean_fit_input(X, y):
            self.n_features_in_ = X.shape[1]
            if hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        else:
            X, y = self._validate_X_y(X, y, reset=True)
        classes, y_class = encode_labels(y)
        if classes.shape[0] < 2:
            raise ValueError(
                f"The training data contains only one class: {classes.tolist()[0]!r}. "
                f"{type(self).__name__} needs samples of at least 2 classes."
            )
        sample_weight = check_sample_weight(sample_weight, X)
        return X, classes, y_class, sample_weight

    def _validate_partial_fit_data(self, X, y, classes, sample_weight):
        """Validate a ``partial_fit`` batch; the first call sets ``classes_``.

        Returns the validated X, the class index of every sample, the sample
        weights (None when not given) and the classes.  After the first call,
        a float ndarray X takes a lean path (a shape and finiteness check instead of
        ``validate_data``), so that a one-row call stays cheap.
        """
        first_call = not hasattr(self, "classes_")
        classes = partial_fit_classes(self, classes)
        if first_call or not self._is_lean_input(X):
            X, y = self._validate_X_y(X, y, reset=first_call)
        else:
            y = self._lean_check_X(X, y)
        y_class = class_indices(classes, y)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X, allow_all_zero=True)
        return X, y_class, sample_weight, classes

    def _is_lean_input(self, X):
        """Whether X may skip ``validate_data``: a 2-d float C-ordered ndarray
        and an estimator fitted without feature names."""
        return _is_float_matrix(X) and not hasattr(self, "feature_names_in_")

    def _validate_X_y(self, X, y="no_validation", *, reset):
        """scikit-learn's ``validate_data``: X in float64 or float32,
        C-ordered, dense or CSR; (X, y), or X alone without y."""
        checked = validate_data(
            self,
            X,
            y,
            accept_sparse="csr",
            dtype=list(_FLOAT_DTYPES),
            order="C",
            accept_large_sparse=False,
            reset=reset,
        )
        if isinstance(checked, tuple):
            return sum_duplicates(checked[0]), checked[1]
        return sum_duplicates(checked)

    @staticmethod
    def _is_lean_fit_input(X, y):
        """Whether ``fit`` may skip ``validate_data``: X a non-empty 2-d
        float C-ordered ndarray of finite values, y a 1-d ndarray of integer
        or boolean labels of the same length."""
        return (
            _is_float_matrix(X)
            and X.shape[0] > 0
            and X.shape[1] > 0
            and type(y) is np.ndarray
            and y.ndim == 1
            and y.dtype.kind in "iub"
            and y.shape[0] == X.shape[0]
            and math.isfinite(np.add.reduce(X, axis=None))
        )

    def _lean_check_X(self, X, y=None):
        """The checks of ``validate_data`` that matter for a float ndarray."""
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} "
                f"is expecting {self.n_features_in_} features as input."
            )
        if X.shape[0] == 0:
            raise ValueError(
                f"Found array with 0 sample(s) (shape={X.shape}) while a minimum "
                "of 1 is required."
            )
        check_finite(X, "X")
        if y is None:
            return None
        y = np.asarray(y)
        if y.ndim != 1:
            # A column vector is raveled with a DataConversionWarning.
            y = column_or_1d(y, warn=True)
        if y.shape[0] != X.shape[0]:
            raise ValueError(
                f"Found input variables with inconsistent numbers of samples: "
                f"[{X.shape[0]}, {y.shape[0]}]"
            )
        return y

    def _validate_predict_data(self, X):
        """Validate X for prediction, with a lean path for float ndarrays."""
        check_is_fitted(self)
        if self._is_lean_input(X):
            self._lean_check_X(X)
            return X
        return self._validate_X_y(X, reset=False)

    def _class_weights(self, classes, y_class=None, *, partial=False):
        """Weight of every class index, from ``class_weight``."""
        if self.class_weight is None:
            return np.ones(classes.shape[0])
        if partial and isinstance(self.class_weight, str):
            raise ValueError(
                "class_weight='balanced' is not supported by partial_fit, which "
                "sees one batch at a time. Compute the weights once with "
                "sklearn.utils.compute_class_weight('balanced', classes=classes, "
                "y=y) and pass them as a dict."
            )
        unknown = (
            set(self.class_weight) - set(classes.tolist())
            if isinstance(self.class_weight, dict) else set()
        )
        if unknown:
            raise ValueError(
                f"class_weight names labels {sorted(map(str, unknown))} that are "
                f"not among the classes {classes.tolist()!r}."
            )
        # Without the labels (partial_fit), the classes stand for them: a
        # dict of weights does not depend on y, and scikit-learn needs one.
        y = classes if y_class is None else classes[y_class]
        return check_class_weights(
            compute_class_weight(self.class_weight, classes=classes, y=y), classes
        )

    # -- diagnostics ------------------------------------------------------

    def _print_epoch(self, epoch, updates, weight_norm, elapsed):
        if self.verbose:
            print(
                f"-- Epoch {epoch}: updates {int(updates)}, "
                f"norm(w) {weight_norm:.6g}, time {elapsed:.4f} s",
                flush=True,
            )

    def _warn_max_iter(self, n_unconverged):
        warnings.warn(
            f"{type(self).__name__} reached max_iter={self.max_iter} with "
            f"{n_unconverged} binary sub-problem(s) still making updates; "
            "the data may not be separable. Increase max_iter, set tol, or "
            "accept the current solution.",
            ConvergenceWarning,
        )

    def _epoch_order(self, train_idx, rng):
        """Indices of the next epoch: a fresh permutation when ``shuffle``."""
        if self.shuffle:
            order = train_idx.copy()
            shuffle_indices(order, int(rng.randint(0, 2**63 - 1, dtype=np.int64)))
            return order
        return train_idx
