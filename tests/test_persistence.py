# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Saving and loading: skops (secure) and pickle.

Every estimator of the package, fitted in its main configurations, must

* save with ``skops.io`` into a file whose only untrusted types are the
  package's public estimator classes it contains (no private helper class,
  no arbitrary object: what a user reviews before ``load(trusted=...)``);
* load, from skops and from pickle, into a model that predicts bit for bit as
  the saved one, holds the same fitted attributes, and continues training
  (``partial_fit``, ``warm_start``) exactly as the saved one would.

skops is optional (the "skops" extra): its tests skip without it.
"""

import importlib.util
import inspect
import os
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

import sklearn_perceptrons
from sklearn_perceptrons import (
    KernelPerceptron,
    MarginPerceptron,
    OneVsAllPerceptron,
    OneVsOnePerceptron,
    Perceptron,
)

try:
    from sklearn_perceptrons.distributed import ParameterMixing
except ImportError:  # Dask is an optional dependency
    ParameterMixing = None


def _public_classes():
    classes = {
        obj for name in sklearn_perceptrons.__all__
        if inspect.isclass(obj := getattr(sklearn_perceptrons, name))
    }
    if ParameterMixing is not None:
        classes.add(ParameterMixing)
    return classes


PUBLIC_CLASSES = _public_classes()

# Persistence, not convergence, is tested here: the small noisy data sets
# stop some fits at max_iter.
pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning"
)


def _type_name(cls):
    return f"{cls.__module__}.{cls.__qualname__}"


# Each case: (id, factory, kind of training data).
CASES = [
    ("perceptron", lambda: Perceptron(), "dense"),
    ("perceptron-average-float32-csr", lambda: Perceptron(average=True), "csr32"),
    ("margin-auto", lambda: MarginPerceptron(), "dense"),
    ("margin-float-average",
     lambda: MarginPerceptron(margin=0.5, average=True), "dense"),
    ("kernel-rbf", lambda: KernelPerceptron(), "dense"),
    ("kernel-poly-csr", lambda: KernelPerceptron(kernel="poly", degree=2), "csr32"),
    ("kernel-forgetron", lambda: KernelPerceptron(budget=8), "dense"),
    ("kernel-random-average",
     lambda: KernelPerceptron(budget=8, budget_strategy="random", average=True),
     "dense"),
    ("ova", lambda: OneVsAllPerceptron(), "dense"),
    ("ovo", lambda: OneVsOnePerceptron(), "dense"),
    ("ovo-margin", lambda: OneVsOnePerceptron(MarginPerceptron()), "dense"),
    ("ova-kernel", lambda: OneVsAllPerceptron(KernelPerceptron()), "dense"),
    ("ovo-linearsvc", lambda: OneVsOnePerceptron(LinearSVC()), "dense"),
]
if ParameterMixing is not None:
    CASES.append(("parameter-mixing", lambda: ParameterMixing(), "dask"))


def _data(kind, n_classes, seed=0):
    X, y = make_blobs(
        n_samples=90, centers=n_classes, n_features=4, cluster_std=2.5,
        random_state=seed,
    )
    labels = np.array(["ant", "bee", "cat"])[y]  # string labels survive too
    if kind == "csr32":
        X = X.astype(np.float32)
        X[np.abs(X) < 1.0] = 0.0
        return sp.csr_matrix(X), labels
    return X, labels


def _fit(estimator, X, y, kind):
    if kind == "dask":
        import dask.array as da

        return estimator.fit(da.from_array(X, chunks=(30, X.shape[1])),
                             da.from_array(y, chunks=30))
    return estimator.fit(X, y)


def _nested_estimators(estimator):
    """The estimator, its base estimator and its fitted sub-estimators."""
    found = [estimator]
    for name in ("estimator", "estimator_"):
        value = getattr(estimator, name, None)
        if value is not None and not isinstance(value, str):
            found.append(value)
    found.extend(getattr(estimator, "estimators_", []))
    return found


def _expected_untrusted(estimator):
    """Type names skops may not trust by default: our public classes only."""
    return sorted({
        _type_name(type(obj)) for obj in _nested_estimators(estimator)
        if type(obj).__module__.startswith("sklearn_perceptrons")
    })


def _fitted_attributes(estimator):
    return {
        name: value for name, value in vars(estimator).items()
        if name.endswith("_") and not name.startswith("_")
    }


def _assert_same_value(a, b, where):
    if sp.issparse(a):
        assert sp.issparse(b) and a.format == b.format, where
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert (a != b).nnz == 0, where
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype, where
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), where
        for i, (u, v) in enumerate(zip(a, b)):
            _assert_same_value(u, v, f"{where}[{i}]")
    elif hasattr(a, "get_params"):
        assert type(a) is type(b), where
        _assert_same_model(a, b, where)
    else:
        assert type(a) is type(b) and a == b, where


def _assert_same_model(original, loaded, where="model"):
    assert type(loaded) is type(original)
    assert repr(loaded.get_params()) == repr(original.get_params())
    attributes = _fitted_attributes(original)
    assert _fitted_attributes(loaded).keys() == attributes.keys(), where
    for name, value in attributes.items():
        _assert_same_value(value, getattr(loaded, name), f"{where}.{name}")


def _assert_same_predictions(a, b, X):
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def _skops_round_trip(estimator):
    sio = pytest.importorskip("skops.io")
    data = sio.dumps(estimator)
    return sio.loads(data, trusted=sio.get_untrusted_types(data=data))


def _pickle_round_trip(estimator):
    return pickle.loads(pickle.dumps(estimator))


ROUND_TRIPS = {"skops": _skops_round_trip, "pickle": _pickle_round_trip}


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("case_id, factory, kind", CASES, ids=[c[0] for c in CASES])
def test_skops_untrusted_types_are_public_estimator_classes(
    case_id, factory, kind, n_classes
):
    """A saved model names no type but the package's public estimators.

    skops trusts scikit-learn's estimators, NumPy, SciPy and builtins by
    default; any other type in a file must be allowed by name.  For a model
    of this package that list must be exactly the public estimator classes it
    holds (which the user can review), never a private helper class.
    """
    sio = pytest.importorskip("skops.io")
    X, y = _data(kind, n_classes)
    estimator = _fit(factory(), X, y, kind)
    data = sio.dumps(estimator)
    untrusted = sio.get_untrusted_types(data=data)
    # skops trusts SciPy's sparse base classes by exact name only, so a
    # model holding a CSR matrix (support vectors of sparse data) also lists
    # scipy.sparse's concrete class; skops loads it with SciPy's npz reader,
    # which never unpickles.
    sparse = [name for name in untrusted if name.startswith("scipy.sparse.")]
    assert sparse == (["scipy.sparse._csr.csr_matrix"] if kind == "csr32"
                      and isinstance(estimator, KernelPerceptron) else [])
    ours = [name for name in untrusted if name not in sparse]
    assert ours == _expected_untrusted(estimator)
    public = {_type_name(cls) for cls in PUBLIC_CLASSES}
    assert set(ours) <= public, sorted(set(ours) - public)
    # Nothing is created unless allowed.
    with pytest.raises(sio.exceptions.UntrustedTypesFoundException):
        sio.loads(data)


@pytest.mark.parametrize("round_trip", list(ROUND_TRIPS))
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("case_id, factory, kind", CASES, ids=[c[0] for c in CASES])
def test_loaded_model_is_identical(case_id, factory, kind, n_classes, round_trip):
    X, y = _data(kind, n_classes)
    estimator = _fit(factory(), X, y, kind)
    loaded = ROUND_TRIPS[round_trip](estimator)
    _assert_same_model(estimator, loaded)
    X_new, _ = _data("dense" if kind == "dask" else kind, n_classes, seed=1)
    _assert_same_predictions(estimator, loaded, X_new)
    assert loaded.score(X, y) == estimator.score(X, y)


PARTIAL_FIT_CASES = [c for c in CASES if hasattr(c[1](), "partial_fit")
                     and c[0] != "ovo-linearsvc"]


@pytest.mark.parametrize("round_trip", list(ROUND_TRIPS))
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize(
    "case_id, factory, kind", PARTIAL_FIT_CASES, ids=[c[0] for c in PARTIAL_FIT_CASES]
)
def test_partial_fit_continues_identically(case_id, factory, kind, n_classes,
                                           round_trip):
    """Stream half the data, save, load, stream the rest: same as no break."""
    X, y = _data(kind, n_classes)
    classes = np.unique(y)
    batches = np.array_split(np.arange(X.shape[0]), 6)
    estimator = factory()
    for batch in batches[:3]:
        estimator.partial_fit(X[batch], y[batch], classes=classes)
    loaded = ROUND_TRIPS[round_trip](estimator)
    for batch in batches[3:]:
        estimator.partial_fit(X[batch], y[batch])
        loaded.partial_fit(X[batch], y[batch])
    _assert_same_model(estimator, loaded)
    _assert_same_predictions(estimator, loaded, X)


def _warm_started(factory):
    """The estimator with ``warm_start=True`` (its own or its base's) and a
    short fixed number of epochs, or None if it has no warm start."""
    estimator = factory()
    params = estimator.get_params()
    for prefix in ("", "estimator__"):
        if prefix + "warm_start" in params:
            updates = {prefix + "warm_start": True, prefix + "max_iter": 2}
            if prefix + "tol" in params:
                updates[prefix + "tol"] = None
            return estimator.set_params(**updates)
    return None


WARM_START_CASES = [c for c in CASES if _warm_started(c[1]) is not None]


@pytest.mark.parametrize("round_trip", list(ROUND_TRIPS))
@pytest.mark.parametrize(
    "case_id, factory, kind", WARM_START_CASES, ids=[c[0] for c in WARM_START_CASES]
)
def test_warm_start_continues_identically(case_id, factory, kind, round_trip):
    """A loaded model warm-starts from the saved state (private state too)."""
    X, y = _data(kind, 3)
    estimator = _warm_started(factory)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        estimator.fit(X, y)
        loaded = ROUND_TRIPS[round_trip](estimator)
        estimator.fit(X, y)
        loaded.fit(X, y)
    _assert_same_model(estimator, loaded)
    _assert_same_predictions(estimator, loaded, X)


@pytest.mark.parametrize("round_trip", list(ROUND_TRIPS))
@pytest.mark.parametrize("case_id, factory, kind", CASES, ids=[c[0] for c in CASES])
def test_unfitted_round_trip(case_id, factory, kind, round_trip):
    estimator = factory()
    loaded = ROUND_TRIPS[round_trip](estimator)
    assert repr(loaded.get_params()) == repr(estimator.get_params())
    assert not _fitted_attributes(loaded)
    X, y = _data(kind, 3)
    _assert_same_model(_fit(clone(estimator), X, y, kind), _fit(loaded, X, y, kind))


@pytest.mark.parametrize("dumps", ["skops", "pickle"])
def test_saving_does_not_change_the_estimator(dumps):
    """Saving is read-only: the estimator trains on as if never saved."""
    if dumps == "skops":
        dumps = pytest.importorskip("skops.io").dumps
    else:
        dumps = pickle.dumps
    X, y = _data("dense", 3)
    reference = _warm_started(MarginPerceptron)
    saved = clone(reference)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reference.fit(X, y)
        saved.fit(X, y)
        dumps(saved)
        for _ in range(2):
            reference.fit(X, y)
            saved.fit(X, y)
    _assert_same_model(reference, saved)
    np.testing.assert_array_equal(reference._state.coef, saved._state.coef)


SAVED = os.path.join(os.path.dirname(__file__), "data")
SAVED_RELEASES = sorted(name for name in os.listdir(SAVED)
                        if name.startswith("saved_"))
SAVED_MODELS = [(release, name[:-len(".pkl")]) for release in SAVED_RELEASES
                for name in sorted(os.listdir(os.path.join(SAVED, release)))
                if name.endswith(".pkl")]


def _saved_models_maker():
    """tests/data/make_saved_models.py, which holds the saved cases."""
    spec = importlib.util.spec_from_file_location(
        "make_saved_models", os.path.join(SAVED, "make_saved_models.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load_saved(release, name, how):
    path = os.path.join(SAVED, release, name)
    if how == "pickle":
        with open(path + ".pkl", "rb") as f:
            return pickle.load(f)
    sio = pytest.importorskip("skops.io")
    untrusted = sio.get_untrusted_types(file=path + ".skops")
    # Only the package's public classes, under the names they were saved as.
    assert untrusted and all(
        name.startswith("sklearn_perceptrons.")
        and name.rsplit(".", 1)[1] in sklearn_perceptrons.__all__
        for name in untrusted), untrusted
    return sio.load(path + ".skops", trusted=untrusted)


@pytest.mark.parametrize("how", ["pickle", "skops"])
@pytest.mark.parametrize("release, name", SAVED_MODELS,
                         ids=["/".join(case) for case in SAVED_MODELS])
def test_models_saved_by_earlier_releases_load(release, name, how):
    """A model saved by an earlier release (tests/data/make_saved_models.py)
    loads, predicts as it did, and goes on learning as it would have."""
    make = _saved_models_maker()
    model = _load_saved(release, name, how)
    cls, params, kind, n_classes = make.CASES[name]
    assert type(model) is cls
    expected = np.load(os.path.join(SAVED, release, "expected.npz"))
    X, y = make.data(kind, n_classes)
    np.testing.assert_array_equal(model.predict(X), expected[f"{name}/predict"])
    np.testing.assert_array_equal(model.decision_function(X),
                                  expected[f"{name}/decision"])
    X_more, y_more = make.data(kind, n_classes, seed=1)
    if f"{name}/decision_after_partial_fit" in expected:
        model.partial_fit(X_more, y_more)
        np.testing.assert_array_equal(
            model.decision_function(X),
            expected[f"{name}/decision_after_partial_fit"])
    elif hasattr(model, "partial_fit"):
        # The class gained partial_fit after that release: its saved state
        # cannot be continued, which the call says, leaving the model as is.
        with pytest.raises(ValueError, match="Fit it again"):
            model.partial_fit(X_more, y_more)
        np.testing.assert_array_equal(model.decision_function(X),
                                      expected[f"{name}/decision"])
