# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""What every perceptron of the package shares.

Parameter tables, input and label validation (with one lean path for the
one-row calls of streaming, shared by every estimator and meta-estimator:
:func:`validate_rows`), class weights, the prediction rule
(:func:`predict_from_decision`) and the all-or-nothing update of a fitted
estimator (:func:`keep_state_on_error`).
"""

import copy
import functools
import inspect
import math
import numbers

try:
    from typing import dataclass_transform
except ImportError:  # Python 3.10: only type checkers read it
    def dataclass_transform(**kwargs):
        return lambda cls: cls

import numpy as np
import scipy.sparse as sp
from sklearn import get_config
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils import compute_class_weight
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from .callbacks import CallbackSupport, callback_fit, callback_partial_fit
from ._canonical import sorted_csr
from ._lean import check_rows
from .docstrings import shared_doc
from .growth import check_classes, find_growth
from .training import MistakesLog

_FLOAT_DTYPES = (np.float64, np.float32)


@dataclass_transform(kw_only_default=True, eq_default=False)
class DeclaredParameters:
    """A base that writes a scikit-learn constructor from declared parameters.

    A subclass declares each constructor parameter once, as an annotated
    class attribute whose value is its default (``aggressive: bool =
    False``).  Its ``__init__`` takes them as keyword-only arguments: the
    parameters the class adds first, in the order written, then its bases'
    in theirs; a parameter declared again keeps its place and takes the new
    default.  A class that writes its own ``__init__`` keeps it.  Only
    declarations make parameters: a written ``__init__`` of another base is
    not read, so a class declares all of its parameters or writes them all.

    The generated constructor is what scikit-learn asks of a hand-written
    one: an explicit keyword signature (``get_params``, ``set_params`` and
    ``clone`` read it) that stores each argument unchanged under its own
    name and does nothing else.  It is compiled from source text, as the
    standard library's dataclasses compile theirs, so that it is a plain
    function: its signature, defaults and errors on unknown or positional
    arguments are Python's own.  The declarations are removed from the
    class once read, so that a class has no attribute named after a
    parameter (an instance does).  Type checkers and IDEs read them as the
    fields of a keyword-only dataclass (PEP 681).
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        inherited = getattr(cls, "_declared_defaults", {})
        own = {}
        for name in inspect.get_annotations(cls):
            if name not in vars(cls):
                raise TypeError(
                    f"{cls.__name__}.{name} is declared without a default; "
                    "every constructor parameter of a scikit-learn estimator "
                    "has one.")
            own[name] = vars(cls)[name]
            delattr(cls, name)
        cls._declared_defaults = {
            **{name: value for name, value in own.items()
               if name not in inherited},
            **{name: own.get(name, value) for name, value in inherited.items()},
        }
        if own and "__init__" not in vars(cls):
            cls.__init__ = _keyword_constructor(cls, cls._declared_defaults)


def _keyword_constructor(cls, defaults):
    """``def __init__(self, *, name=default, ...)`` storing every argument."""
    signature = ", ".join(f"{name}=_defaults[{name!r}]" for name in defaults)
    body = "".join(f"\n    self.{name} = {name}" for name in defaults)
    namespace = {"_defaults": dict(defaults)}
    exec(f"def __init__(self, *, {signature}):{body}", namespace)
    init = namespace["__init__"]
    init.__module__ = cls.__module__
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def set_init_params(estimator, params):
    """Store each constructor argument as an attribute of the same name.

    scikit-learn's ``get_params`` reads the parameters back from these
    attributes, so ``__init__`` must store them unchanged and do nothing else.
    Call it as ``set_init_params(self, locals())`` on the first line.
    """
    for name, value in params.items():
        if name != "self":
            setattr(estimator, name, value)


_INT32_MAX = np.iinfo(np.int32).max


def as_csr_int32(X):
    """The compiled loops read int32 CSR indices: other index types (scipy's
    int64 for large matrices, or after some operations) are narrowed once
    (a copy of the indices, not of the data), when every column index and
    offset fits; a matrix beyond int32 is refused with the reason."""
    if sp.issparse(X) and (X.indices.dtype != np.int32
                           or X.indptr.dtype != np.int32):
        if X.shape[1] > _INT32_MAX or int(X.indptr[-1]) > _INT32_MAX:
            raise ValueError(
                f"This CSR matrix has {X.shape[1]} columns and "
                f"{int(X.indptr[-1])} stored values; the compiled loops index "
                f"both with int32, up to {_INT32_MAX}. Split the rows into "
                "batches (partial_fit), or reduce the columns."
            )
        X = sp.csr_matrix(
            (X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
            shape=X.shape, copy=False,
        )
    return X


def sum_duplicates(X):
    """X with its duplicate CSR entries summed, without touching the caller's
    matrix: SciPy reads duplicates as their sum, but norms computed from the
    stored values would not (a copy only when X has duplicates or unsorted
    indices; rows with distinct columns are sorted in one compiled pass,
    :func:`sorted_csr`)."""
    if sp.issparse(X) and X.format == "csr" and not X.has_canonical_format:
        ordered = sorted_csr(X)
        if ordered is not None:
            return ordered
        X = X.copy()
        X.sum_duplicates()
    return X


def partial_fit_context(method=None, *, prefer_skip_nested_validation=True):
    """``_fit_context`` for the first call of ``partial_fit`` only.

    The first call goes the full way (parameter validation and
    scikit-learn's configuration context).  A later call validates the
    parameters again only when they changed since the last validation
    (:func:`check_params`): scikit-learn's ``_fit_context`` would skip the
    validation of a fitted ``partial_fit`` altogether, and its context
    managers would dominate the cost of a one-row call.  Skipping the context
    is safe: it only tells nested scikit-learn calls to skip validating
    arguments that this package passes valid, so they return the same.
    """
    if method is None:
        return functools.partial(
            partial_fit_context,
            prefer_skip_nested_validation=prefer_skip_nested_validation,
        )
    method = callback_partial_fit(method)
    first_call = _fit_context(
        prefer_skip_nested_validation=prefer_skip_nested_validation
    )(method)

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if "classes_" in self.__dict__:
            check_params(self)
            return method(self, *args, **kwargs)
        result = first_call(self, *args, **kwargs)
        stream_cache(self)["params"] = _params_key(self)
        return result

    return wrapper


# ---------------------------------------------------------------------------
# Streaming: what the one-row calls of a fitted estimator reuse
# ---------------------------------------------------------------------------

_PARAM_NAMES = {}
_IMMUTABLE = frozenset({bool, int, float, str, type(None), np.float64, np.int64})


def _frozen(value):
    """A parameter value as part of a key: dicts by content (a dict changed in
    place is a changed parameter), nested estimators by their own key."""
    if type(value) is dict:
        return (dict, tuple(value.items()))
    if isinstance(value, BaseEstimator):
        return (type(value), _params_key(value))
    return value


def param_names(estimator):
    """The names of the constructor parameters of ``estimator`` (a tuple,
    cached per class)."""
    cls = type(estimator)
    names = _PARAM_NAMES.get(cls)
    if names is None:
        names = _PARAM_NAMES[cls] = tuple(cls._get_param_names())
    return names


def _params_key(estimator):
    """The current parameter values of ``estimator``, compared with ``==``
    (identity first) to tell whether they changed since the last check."""
    key = tuple(map(estimator.__dict__.get, param_names(estimator)))
    # Only a dict or an estimator can change in place; most keys hold only
    # immutable values, and are then built without a Python loop.
    if not set(map(type, key)) <= _IMMUTABLE:
        key = tuple(map(_frozen, key))
    return key


def stream_cache(estimator):
    """The private cache of a streaming estimator (a dict in ``_stream``):
    derived data only, every entry keyed on what it was derived from, never
    pickled.  ``"params"``: the key of the last validated parameters."""
    cache = estimator.__dict__.get("_stream")
    if cache is None:
        cache = {}
        # With callbacks, no lean path may skip their hooks: nothing is kept.
        if "_skl_callbacks" not in estimator.__dict__:
            estimator.__dict__["_stream"] = cache
    return cache


def forget_stream(estimator):
    """Drop the armed stream of ``estimator`` (when its state was replaced
    by another module, e.g. a reduction's view of its row)."""
    cache = estimator.__dict__.get("_stream")
    if cache:
        cache.pop("fast", None)


def fork(estimator):
    """A copy of ``estimator`` that ``partial_fit`` may update while
    ``estimator`` stays exactly as it is, at a cost that does not grow with
    what the estimator has learned.

    A meta-estimator updates such copies of its binary estimators and adopts
    them only once every one has succeeded (all or nothing).  An estimator of
    this package writes in place only what its stream cache (``_stream``)
    owns; everything else it replaces, never mutates (the invariant of
    :func:`keep_state_on_error`).  So its copy is a shallow copy of its
    ``__dict__`` with a new cache, which keeps only the entries that never
    write what the original holds (the parameters' key, and streams marked
    ``appends_only``, which write past the end of the arrays the model
    views): the copy's call copies what it changes, as the original's first
    call after a ``fit`` would, and the append-only log of
    ``mistakes_per_epoch_`` is shared by design.  Any other estimator is
    deep-copied.
    """
    if not isinstance(estimator, BasePerceptron):
        return copy.deepcopy(estimator)
    state = dict(estimator.__dict__)
    cache = state.pop("_stream", None)
    if cache:
        state["_stream"] = {
            key: value for key, value in cache.items()
            if key == "params" or getattr(value, "appends_only", False)
        }
    twin = type(estimator).__new__(type(estimator))
    twin.__dict__.update(state)
    return twin


def check_params(estimator):
    """Validate the parameters of a fitted streaming estimator unless they
    are the ones validated last (the cost of a one-row call is then one key
    comparison); ``set_params`` or an assignment to a parameter invalidates.

    Returns the key of the (valid) parameters: the same object as long as
    they do not change, so that caches derived from them can compare it by
    identity.
    """
    cache = stream_cache(estimator)
    key = _params_key(estimator)
    try:
        same = key == cache.get("params")
    except Exception:  # values that do not compare: treat as changed
        same = False
    if same:
        return cache["params"]
    if not get_config()["skip_parameter_validation"]:
        estimator._validate_params()
        # A nested estimator (of a meta-estimator) too: set_params may have
        # changed it in place.
        for value in estimator.get_params(deep=False).values():
            if isinstance(value, BaseEstimator) and hasattr(value, "_validate_params"):
                value._validate_params()
    cache.clear()
    cache["params"] = key
    return key


def stream_class_indices(estimator, classes, y):
    """:func:`class_indices` of a fitted estimator, with the labels of a few
    rows looked up in a dict cached per ``classes`` (the common case of a
    stream: one row per call); any unknown label goes the full way and its
    error."""
    if y.shape[0] > 8:
        return class_indices(classes, y)
    cache = stream_cache(estimator)
    entry = cache.get("labels")
    if entry is None or entry[0] is not classes:
        index = label_index(classes)
        if index is None:
            return class_indices(classes, y)
        entry = cache["labels"] = (classes, index)
    index = entry[1]
    try:
        codes = [index[label] for label in y.tolist()]
    except (KeyError, TypeError):
        return class_indices(classes, y)
    return np.array(codes, dtype=np.int32)


def label_index(classes):
    """``{label: index}`` over ``classes_``, the dict a lean call looks its
    labels up in; None when the labels cannot index one (unhashable, or
    distinct labels that compare equal), and the calls then go the full way."""
    try:
        index = {label: i for i, label in enumerate(classes.tolist())}
    except TypeError:
        return None
    return index if len(index) == classes.shape[0] else None


def lean_codes(labels, y, n_samples):
    """The class indices of the labels y of a lean call (a 1-d ndarray or a
    list of ``n_samples`` labels, each a key of ``labels``), or None
    whenever that does not hold: the caller then goes the full way, which
    reports what is wrong."""
    if type(y) is np.ndarray:
        if y.ndim != 1:
            return None
        y = y.tolist()
    elif type(y) is not list:
        return None
    if len(y) != n_samples:
        return None
    try:
        return [labels[label] for label in y]
    except (KeyError, TypeError):
        return None


def lean_sample_weight(sample_weight, X):
    """:func:`check_sample_weight` (``allow_all_zero``) for the common case of
    a 1-d float array-like of the right length, finite and >= 0; anything
    else goes the full way, with its messages."""
    if type(sample_weight) is np.ndarray and sample_weight.dtype == np.float64:
        weight = sample_weight
    else:
        try:
            weight = np.asarray(sample_weight, dtype=np.float64)
        except (TypeError, ValueError):
            weight = None
    if (
        weight is not None and weight.ndim == 1 and weight.shape[0] == X.shape[0]
        and math.isfinite(np.add.reduce(weight)) and weight.min() >= 0
    ):
        # Read only by the caller, never written: no copy.
        return weight
    return check_sample_weight(sample_weight, X, allow_all_zero=True)


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


def with_new_params(cls, state):
    """A copy of the saved ``state`` of an estimator of ``cls`` in which the
    parameters added since it was saved (``grow_classes``, say) hold their
    defaults, which keep the behaviour of the release that saved it."""
    state = dict(state)
    for name, parameter in inspect.signature(cls.__init__).parameters.items():
        if (name != "self" and name not in state
                and parameter.default is not inspect.Parameter.empty):
            state[name] = parameter.default
    return state


def fit_method(method):
    """The decorators of an estimator's ``fit``: the docstring's shared
    fragments filled in (:func:`~._docstrings.shared_doc`), the parameters
    validated in scikit-learn's configuration context (``_fit_context``),
    scikit-learn's callbacks (:func:`~.callbacks.callback_fit`) and the
    call all-or-nothing (:func:`keep_state_on_error`)."""
    return keep_state_on_error(
        _fit_context(prefer_skip_nested_validation=True)(
            callback_fit(shared_doc(method)))
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


def check_sample_weight(sample_weight, X, *, allow_all_zero=False,
                        non_negative=True):
    """scikit-learn's sample-weight validation (float64, non-negative unless
    ``non_negative=False``), with a message that says what to do about
    negative weights."""
    if sample_weight is None:
        return np.ones(X.shape[0])
    try:
        return _check_sample_weight(
            sample_weight, X, dtype=np.float64, ensure_non_negative=non_negative,
            allow_all_zero_weights=allow_all_zero,
        )
    except ValueError as error:
        if "Negative" not in str(error):
            raise
        raise ValueError(
            f"{error} A sample weight scales the size of that sample's updates, "
            "so it must be >= 0; use 0 to make a sample never update."
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


def check_some_weight(class_weights, classes, class_totals=None):
    """Refuse the weights of a fit under which every sample weighs 0 (its
    sample weight times the weight of its class): no sample could update
    the model.  The error of an all-zero ``sample_weight``, raised for class
    weights too.

    ``class_weights``: the weight of every class of the training data (each
    has samples); ``class_totals``: the sum of the sample weights of every
    class (None: no sample weights).
    """
    positive = class_weights > 0
    if class_totals is not None:
        positive &= class_totals > 0
    if positive.any():
        return
    weights = dict(zip(classes.tolist(), class_weights.tolist()))
    raise ValueError(
        "Sample weights must contain at least one non-zero number once "
        f"multiplied by the class weights {weights!r}: with every weight 0 no "
        "sample can update the model."
    )


def partial_fit_classes(estimator, classes, grow=False):
    """The classes of a ``partial_fit`` call: required and set on the first
    call, checked against ``classes_`` on the later ones (with ``grow``, a
    later ``classes`` may add labels, see :func:`grow_labels`, but must
    hold every class of ``classes_``)."""
    if not hasattr(estimator, "classes_"):
        if classes is None:
            raise ValueError(
                "classes must be passed on the first call to partial_fit: "
                "the list of every label the stream will contain."
            )
        classes = check_classes(classes)
        if classes.shape[0] < 2:
            raise ValueError(
                f"classes={classes.tolist()!r} holds only one class; "
                "partial_fit needs at least 2 classes."
            )
        return classes
    if classes is not None and grow:
        missing = np.setdiff1d(estimator.classes_, check_classes(classes))
        if missing.shape[0]:
            raise ValueError(
                f"classes={np.asarray(classes).tolist()!r} leaves out "
                f"{missing.tolist()!r} of the classes of the stream "
                f"{estimator.classes_.tolist()!r}: with grow_classes=True, "
                "classes may add labels, never remove one."
            )
        return estimator.classes_
    if classes is not None and not np.array_equal(
        check_classes(classes), estimator.classes_
    ):
        raise ValueError(
            f"classes={np.asarray(classes).tolist()!r} is not the same as on "
            f"the first call to partial_fit: {estimator.classes_.tolist()!r}."
        )
    return estimator.classes_


def grow_labels(estimator, classes, y, declared):
    """The :class:`~.growth.Growth` of a later ``partial_fit`` call of
    ``estimator`` (whose classes are ``classes``) by the labels of ``y`` and
    of the ``classes`` argument ``declared`` that are new, when the
    estimator's ``grow_classes`` is True; None otherwise (and an unknown
    label is then left to :func:`class_indices`'s error).  The caller
    re-indexes its state (its ``_grow_classes`` hook) before it reads the
    class indices of y in ``growth.classes``."""
    if not getattr(estimator, "grow_classes", False):
        return None
    if declared is None and y.shape[0] <= 8:
        # The common case of a stream, a few known labels, looked up in the
        # dict of stream_class_indices (cached per classes).
        cache = stream_cache(estimator)
        entry = cache.get("labels")
        if entry is None or entry[0] is not classes:
            index = label_index(classes)
            entry = None if index is None else (classes, index)
            if entry is not None:
                cache["labels"] = entry
        if entry is not None:
            try:
                if all(label in entry[1] for label in y.tolist()):
                    return None
            except TypeError:
                pass
    return find_growth(classes, y, declared)


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


def lean_rows(X, n_features, name):
    """The one check of the rows of a one-row (or few-row) call of a fitted
    estimator of ``n_features`` features fitted without feature names (its
    class name ``name`` for the messages), shared by ``partial_fit``,
    ``predict`` and the compiled streams (``_lean.check_rows``).

    X is *lean* when it is a 2-d C-ordered float64 or float32 ndarray or a
    canonical CSR matrix of such values with int32 indices: it is then
    returned as it is, once checked for what can still fail (the number of
    features, at least one row, finite values), with the errors
    scikit-learn's ``validate_data`` raises.  Any other X returns None: the
    caller then takes the general validation, which converts or refuses it.
    Costs one compiled pass over the values, O(nnz).
    """
    return X if check_rows(X, n_features, name) == 0 else None


def _lean_labels(y, n_samples):
    """The labels of a lean call as ``validate_data`` checks them: 1-d (a
    column vector is raveled with a DataConversionWarning), one per row."""
    y = np.asarray(y)
    if y.ndim != 1:
        y = column_or_1d(y, warn=True)
    if y.shape[0] != n_samples:
        raise ValueError(
            f"Found input variables with inconsistent numbers of samples: "
            f"[{n_samples}, {y.shape[0]}]"
        )
    return y


def predict_rows(estimator, X):
    """``validate_rows(estimator, X, reset=False)`` of a fitted estimator:
    the lean rows of :func:`lean_rows` as they are, anything else the
    general way, which says what is wrong."""
    if "feature_names_in_" not in estimator.__dict__:
        lean = lean_rows(X, estimator.n_features_in_, type(estimator).__name__)
        if lean is not None:
            return lean
    return validate_rows(estimator, X, reset=False)


def validate_rows(estimator, X, y="no_validation", *, reset):
    """Validate X (and y) for the compiled code of the package.

    X becomes a float64 or float32 C-ordered ndarray or an int32-indexed CSR
    matrix without duplicate entries (:func:`as_csr_int32`), as
    scikit-learn's ``validate_data`` (which sets or checks
    ``n_features_in_`` and ``feature_names_in_``).  The one lean path of the
    package: when ``reset`` is False and X is already in that form (a float
    C-ordered ndarray or a canonical int32 CSR matrix) for an estimator
    fitted without feature names, only what can fail
    is checked (:func:`lean_rows`), so that a one-row ``partial_fit`` or
    ``predict`` stays cheap.  Used by every estimator and by the fast path of
    the meta-estimators (any ``estimator`` with ``n_features_in_``).

    Returns X, or (X, y) when y is given.
    """
    no_y = isinstance(y, str) and y == "no_validation"
    if not reset and "feature_names_in_" not in estimator.__dict__:
        lean = lean_rows(X, estimator.n_features_in_, type(estimator).__name__)
        if lean is not None:
            return lean if no_y else (lean, _lean_labels(y, lean.shape[0]))
    out = validate_data(
        estimator, X, y, accept_sparse="csr", dtype=list(_FLOAT_DTYPES),
        order="C", reset=reset,
    )
    if no_y:
        return as_csr_int32(sum_duplicates(out))
    return as_csr_int32(sum_duplicates(out[0])), out[1]


def class_weights(estimator, classes):
    """Weight of every class of ``classes`` from a perceptron's
    ``class_weight`` (a dict or None; "balanced" needs the labels)."""
    return estimator._class_weights(classes)


def decision_shape(scores):
    """The decision of a classifier: 1-d for one column (binary), else 2-d."""
    return scores.ravel() if scores.shape[1] == 1 else scores


def predict_from_decision(scores, classes):
    """The prediction rule of every estimator of the package: ``classes[1]``
    where a 1-d decision is > 0 (``classes[0]`` otherwise), or the class of
    largest decision (ties go to the lowest class index)."""
    if scores.ndim == 1:
        return classes[(scores > 0).astype(np.intp)]
    return classes[scores.argmax(axis=1)]


class PredictMixin:
    """The ``predict`` of every classifier of the package, from its
    ``decision_function`` (:func:`predict_from_decision`)."""

    def predict(self, X):
        """Predict the class of every sample.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples, as ``decision_function`` takes them.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            ``classes_[1]`` where the decision is > 0 and ``classes_[0]``
            otherwise (binary), or the class of largest decision (ties go to
            the lowest class index).
        """
        scores = self.decision_function(X)
        if scores.shape == (1,):
            # One row of a binary problem (a stream): the class picked on the
            # scalar, as predict_from_decision does, without its three
            # array operations.
            k = 1 if scores[0] > 0 else 0
            return self.classes_[k:k + 1].copy()
        return predict_from_decision(scores, self.classes_)


# joblib's ``n_jobs``: None (1 unless in a joblib context), a number of
# workers, or -1, -2, ... (every CPU, every CPU but one, ...); 0 means
# nothing, and is refused with the other bad parameters.
N_JOBS_CONSTRAINT = [
    None,
    Interval(numbers.Integral, 1, None, closed="left"),
    Interval(numbers.Integral, None, -1, closed="right"),
]


class BasePerceptron(MistakesLog, PredictMixin, CallbackSupport, ClassifierMixin,
                     BaseEstimator):
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
        state.pop("_stream", None)
        for name in self._state_types:
            if state.get(name) is not None:
                state[name] = dict(vars(state[name]))
        if "_mistakes_log" in state:
            # Only this estimator's entries of a possibly shared buffer.
            buffer, length = state["_mistakes_log"]
            state["_mistakes_log"] = (buffer[:length], length)
        return state

    def __setstate__(self, state):
        state = with_new_params(type(self), state)
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

    def _validate_fit_data(self, X, y, sample_weight):
        """Validate X, y and sample_weight for ``fit`` (resets feature info).

        Returns X, the sorted classes, the class index of every sample and
        the sample weights (float64, ones when not given).
        """
        X, y = validate_rows(self, X, y, reset=True)
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
        weights (None when not given) and the classes.  After the first call
        a float ndarray X takes the lean path of :func:`validate_rows`.
        """
        first_call = not hasattr(self, "classes_")
        declared = classes
        classes = partial_fit_classes(self, classes,
                                      getattr(self, "grow_classes", False))
        X, y = validate_rows(self, X, y, reset=first_call)
        if first_call:
            if getattr(self, "grow_classes", False):
                # Labels beyond classes join from the first call on.
                growth = find_growth(classes, y)
                classes = classes if growth is None else growth.classes
            y_class = class_indices(classes, y)
            if sample_weight is not None:
                sample_weight = check_sample_weight(
                    sample_weight, X, allow_all_zero=True
                )
        else:
            growth = grow_labels(self, classes, y, declared)
            if growth is not None:
                # The family's hook re-indexes its state (see _core.growth).
                self._grow_classes(growth)
                classes = growth.classes
            y_class = stream_class_indices(self, classes, y)
            if sample_weight is not None:
                sample_weight = lean_sample_weight(sample_weight, X)
        return X, y_class, sample_weight, classes

    def _validate_predict_data(self, X):
        """Validate X for prediction (the lean path for float ndarrays)."""
        if "n_features_in_" not in self.__dict__:
            # Fitted estimators have n_features_in_, which is all that
            # check_is_fitted would look for: only the others pay for it.
            check_is_fitted(self)
        return predict_rows(self, X)

    def _class_weights(self, classes, y_class=None, *, partial=False,
                       sample_weight=None):
        """Weight of every class index, from ``class_weight``; for ``fit``
        (``y_class`` and ``sample_weight`` given), refused when they make
        every sample weigh 0 (:func:`check_some_weight`)."""
        if self.class_weight is None:
            return np.ones(classes.shape[0])
        weights = self._class_weight_values(classes, y_class, partial=partial)
        if y_class is not None and not partial and not (weights > 0).all():
            # Some class weighs 0: do the others have samples that weigh?
            totals = None if sample_weight is None else np.bincount(
                y_class, weights=sample_weight, minlength=classes.shape[0])
            check_some_weight(weights, classes, totals)
        return weights

    def _class_weight_values(self, classes, y_class, *, partial):
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
        if unknown and partial and getattr(self, "grow_classes", False):
            # Classes that have not joined the stream yet: their weights
            # apply once they do.
            known = {label: weight for label, weight in self.class_weight.items()
                     if label not in unknown}
            return check_class_weights(np.array(
                [float(known.get(label, 1.0)) for label in classes.tolist()]),
                classes)
        if unknown:
            raise ValueError(
                f"class_weight names labels {sorted(map(str, unknown))} that are "
                f"not among the classes {classes.tolist()!r}."
            )
        if isinstance(self.class_weight, str) and y_class is not None:
            # "balanced" by scikit-learn's formula, n / (n_classes * counts),
            # from the class indices: no array of n labels (the budgeted
            # walk's memory is X plus O(budget)).
            counts = np.zeros(classes.shape[0], dtype=np.int64)
            # In blocks: bincount copies its input to intp.
            for start in range(0, y_class.shape[0], 1 << 12):
                counts += np.bincount(y_class[start:start + (1 << 12)],
                                      minlength=classes.shape[0])
            if np.any(counts == 0):
                raise ValueError("classes should have valid labels that are in y")
            weights = y_class.shape[0] / (classes.shape[0] * counts.astype(np.float64))
            return check_class_weights(weights, classes)
        # A dict of weights does not depend on y (scikit-learn needs one: the
        # classes stand for it); without the labels (partial_fit) neither
        # does "balanced".
        return check_class_weights(
            compute_class_weight(self.class_weight, classes=classes, y=classes),
            classes,
        )
