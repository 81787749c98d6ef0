# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""scikit-learn's estimator checks on every estimator of the package."""

import inspect
from pathlib import Path

import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

import sklearn_perceptrons

from _common_checks import checked_estimators, expected_failed_checks


def public_estimators():
    """Every estimator class the package exports, at its defaults."""
    return [
        obj()
        for name in sorted(sklearn_perceptrons.__all__)
        if inspect.isclass(obj := getattr(sklearn_perceptrons, name))
        and hasattr(obj, "fit")
    ]


def public_estimator_classes():
    """Every estimator class of the package's public modules (the optional
    ones included when their dependencies are installed)."""
    modules = [sklearn_perceptrons]
    try:
        from sklearn_perceptrons import distributed
    except ImportError:  # Dask is an optional dependency
        pass
    else:
        modules.append(distributed)
    modules += [getattr(sklearn_perceptrons, name)
                for name in sklearn_perceptrons.__all__
                if inspect.ismodule(getattr(sklearn_perceptrons, name))]
    return {
        obj for module in modules for name in getattr(module, "__all__", [])
        if inspect.isclass(obj := getattr(module, name)) and hasattr(obj, "fit")
    }


def test_every_public_estimator_is_checked():
    checked = {type(est) for est in checked_estimators()}
    classes = public_estimator_classes()
    assert {"Perceptron", "KernelPerceptron"} <= {cls.__name__ for cls in classes}
    missing = sorted(cls.__name__ for cls in classes - checked)
    assert not missing, (
        f"{missing} are public but not in tests/_common_checks.py: add them "
        "to checked_estimators()."
    )
    # Each configuration is checked once.
    reprs = [repr(est) for est in checked_estimators()]
    assert len(reprs) == len(set(reprs))


@parametrize_with_checks(checked_estimators(),
                         expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", public_estimators(), ids=lambda e: type(e).__name__)
def test_no_predict_proba(estimator):
    assert not hasattr(estimator, "predict_proba")
    assert not hasattr(estimator, "predict_log_proba")


def _fitted_state(estimator):
    """Every fitted attribute (name ending in "_"), as arrays or values."""
    return {
        name: value for name, value in vars(estimator).items()
        if name.endswith("_") and not name.startswith("_")
    }


@pytest.mark.parametrize("estimator", public_estimators(),
                         ids=lambda e: type(e).__name__)
def test_fit_on_an_ndarray_and_on_lists_agree(estimator):
    # An ndarray and the same data as lists of Python numbers fit alike,
    # and a refit on an ndarray forgets the feature names of a dataframe.
    import numpy as np
    import pandas as pd
    from numpy.testing import assert_array_equal
    from sklearn.base import clone

    rng = np.random.RandomState(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(np.int64)
    if estimator.get_params().get("random_state", 0) is None:
        # A fresh order at every fit (scikit-learn's default, kept by
        # PassiveAggressiveClassifier): fix it to compare two fits.
        estimator = clone(estimator).set_params(random_state=0)
    lean = clone(estimator).fit(X, y)
    full = clone(estimator).fit(X.tolist(), y.tolist())
    assert lean.n_features_in_ == full.n_features_in_ == 3
    assert_array_equal(lean.predict(X), full.predict(X))
    lean_state, full_state = _fitted_state(lean), _fitted_state(full)
    assert lean_state.keys() == full_state.keys()
    for name, value in lean_state.items():
        if isinstance(value, np.ndarray):
            assert_array_equal(value, full_state[name], err_msg=name)

    named = clone(estimator).fit(pd.DataFrame(X, columns=["a", "b", "c"]), y)
    assert list(named.feature_names_in_) == ["a", "b", "c"]
    named.fit(X, y)
    assert not hasattr(named, "feature_names_in_")

    for bad, message in ((np.nan, "NaN"), (np.inf, "infinity")):
        Z = X.copy()
        Z[5, 1] = bad
        with pytest.raises(ValueError, match=message):
            clone(estimator).fit(Z, y)


@pytest.mark.parametrize("estimator", public_estimators(),
                         ids=lambda e: type(e).__name__)
def test_parameters_are_validated_again_when_they_change(estimator):
    # The validation of the previous fit is reused only for the very same
    # parameter objects: an invalid value set after a fit is still refused.
    import numpy as np
    from sklearn.base import clone
    from sklearn.utils._param_validation import InvalidParameterError

    rng = np.random.RandomState(0)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(int)
    est = clone(estimator).fit(X, y)
    name = next(iter(type(est)._parameter_constraints))
    valid = getattr(est, name)
    est.set_params(**{name: "not a valid value"})
    with pytest.raises(InvalidParameterError):
        est.fit(X, y)
    setattr(est, name, object())
    with pytest.raises(InvalidParameterError):
        est.fit(X, y)
    setattr(est, name, valid)
    est.fit(X, y)


@pytest.mark.parametrize("estimator", public_estimators(),
                         ids=lambda e: type(e).__name__)
def test_integer_seed_and_its_random_state_fit_alike(estimator):
    import numpy as np
    from numpy.testing import assert_array_equal
    from sklearn.base import clone

    if "random_state" not in estimator.get_params():
        pytest.skip("no random_state")
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] - X[:, 2] > 0).astype(int)
    by_int = [clone(estimator).set_params(random_state=11).fit(X, y)
              for _ in range(2)]
    by_state = clone(estimator).set_params(
        random_state=np.random.RandomState(11)).fit(X, y)
    for est in (by_int[1], by_state):
        assert_array_equal(est.decision_function(X),
                           by_int[0].decision_function(X))


@pytest.mark.parametrize(
    "estimator",
    # The perceptrons that stream (the meta-estimators have no diagnostics).
    [est for est in public_estimators()
     if hasattr(est, "partial_fit") and "estimator" not in est.get_params()],
    ids=lambda e: type(e).__name__,
)
def test_partial_fit_appends_to_a_new_mistakes_list(estimator):
    # mistakes_per_epoch_ gets one entry per partial_fit call, without
    # changing a list read before, a shallow copy of the estimator, or (on a
    # failed call) the estimator itself.
    import copy
    import pickle

    import numpy as np

    rng = np.random.RandomState(0)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    est = clone(estimator).partial_fit(X[:10], y[:10], classes=[0, 1])
    first = est.mistakes_per_epoch_
    twin = copy.copy(est)
    est.partial_fit(X[10:20], y[10:20])
    assert len(first) == 1 and len(est.mistakes_per_epoch_) == 2
    assert est.mistakes_per_epoch_[0] == first[0]
    assert len(twin.mistakes_per_epoch_) == 1
    # The copy goes its own way from the shared prefix.
    twin.partial_fit(X[20:], y[20:])
    assert len(twin.mistakes_per_epoch_) == 2
    assert len(est.mistakes_per_epoch_) == 2
    assert est.n_mistakes_ == sum(est.mistakes_per_epoch_)
    assert twin.n_mistakes_ == sum(twin.mistakes_per_epoch_)
    before = pickle.dumps(est)
    with pytest.raises(ValueError):
        est.partial_fit(X[:5, :2], y[:5])
    assert pickle.dumps(est) == before
    # A fit starts a new list; a pickle round trip keeps the entries.
    restored = pickle.loads(before)
    assert restored.mistakes_per_epoch_ == est.mistakes_per_epoch_
    est.fit(X, y)
    assert len(est.mistakes_per_epoch_) == est.n_iter_


# scikit-learn's extension points for third-party estimators, which its own
# meta-estimators and scikit-learn-contrib packages use; the supported
# scikit-learn versions are pinned in pyproject.toml and tested in CI.
SKLEARN_EXTENSION_API = {
    "sklearn.base._fit_context": "parameter validation around fit",
    "sklearn.utils._param_validation": "the vocabulary of _parameter_constraints",
    "sklearn.utils.validation._check_sample_weight": "sample_weight as fit takes it",
    "_validate_params": "validation of a parameter changed by set_params between "
                        "two streaming calls, which skip fit's _fit_context",
    "sklearn.utils.metaestimators._safe_split": "one-vs-one subsets of any X, "
                                                "precomputed Gram matrices too",
    "sklearn.utils._safe_indexing": "per-sample metadata of any array-like",
    "sklearn.utils.validation._num_samples": "the length of any array-like",
    "_init_callback_context": "the root task of a fit with callbacks: the method "
                              "that CallbackSupportMixin documents for estimator "
                              "developers (sklearn.callback, scikit-learn >= 1.9)",
}
# Names that start with an underscore but are public API (namedtuple's).
PUBLIC_UNDERSCORE_NAMES = {"_replace", "_fields", "_asdict", "_make"}
# Accesses that the package still has to remove (each listed once per
# module); the test fails on any access not listed, and on a listed one
# that is gone, so the list only shrinks.
KNOWN_PRIVATE_ACCESS = set()


def _private_names_defined(tree):
    """The private names a module owns: its functions, classes and
    module-level names, and the attributes its classes set on self/cls."""
    import ast

    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
              and isinstance(node.value, ast.Name)
              and node.value.id in ("self", "cls")):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return {name for name in names if name.startswith("_")}


def _is_private(name):
    return name.startswith("_") and not name.startswith("__")


def _private_accesses(path, package):
    """What the module at ``path`` reads of names private to other modules
    (its own private names, and those of ``self``/``cls``, are its own)."""
    import ast

    tree = ast.parse(path.read_text())
    own = _private_names_defined(tree)
    folder = path.parent
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 0:
                if any(_is_private(part) for part in module.split(".")[1:]) \
                        and module not in SKLEARN_EXTENSION_API:
                    names = ", ".join(alias.name for alias in node.names)
                    found.add(f"from {module} import {names}")
                found.update(
                    f"from {module} import {alias.name}" for alias in node.names
                    if _is_private(alias.name)
                    and f"{module}.{alias.name}" not in SKLEARN_EXTENSION_API)
                continue
            base = folder
            for _ in range(node.level - 1):
                base = base.parent
            target = base.joinpath(*module.split(".")) if module else base
            for alias in node.names:
                submodule = any(target.joinpath(alias.name + ext).exists()
                                for ext in (".py", ".pyx")) or \
                    target.joinpath(alias.name).is_dir()
                if _is_private(alias.name) and not submodule:
                    found.add(f"from {'.' * node.level}{module} import {alias.name}")
        elif isinstance(node, ast.Attribute) and _is_private(node.attr):
            value = node.value
            if isinstance(value, ast.Name) and value.id in ("self", "cls"):
                continue
            if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                    and value.func.id == "super"):
                continue
            if node.attr in own or node.attr in PUBLIC_UNDERSCORE_NAMES \
                    or node.attr in SKLEARN_EXTENSION_API:
                continue
            found.add(ast.unparse(node))
    return found


def test_no_private_access_across_modules():
    """No module of the package reads another module's private names: not
    by import, nor as an attribute of another object; modules share through
    names that are public within the (private) package.  Of other packages,
    only scikit-learn's extension points are used."""
    from pathlib import Path

    package = Path(sklearn_perceptrons.__file__).parent
    found = {
        (path.relative_to(package).as_posix(), access)
        for path in sorted(package.rglob("*.py"))
        for access in _private_accesses(path, package)
    }
    assert sorted(found - KNOWN_PRIVATE_ACCESS) == []
    assert sorted(KNOWN_PRIVATE_ACCESS - found) == [], (
        "these accesses are gone: remove them from KNOWN_PRIVATE_ACCESS")


SOURCE_TREE = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(not (SOURCE_TREE / "pyproject.toml").exists(),
                    reason="the tests run outside the source tree")
def test_every_subpackage_is_packaged():
    """The wheel lists its packages by name (pyproject.toml): a new
    subpackage of the source tree that is not listed would be missing from
    an installed copy."""
    import tomllib

    package = SOURCE_TREE / "sklearn_perceptrons"
    with open(SOURCE_TREE / "pyproject.toml", "rb") as f:
        listed = set(tomllib.load(f)["tool"]["setuptools"]["packages"])
    found = {"sklearn_perceptrons"} | {
        ".".join(("sklearn_perceptrons",) + init.parent.relative_to(package).parts)
        for init in package.rglob("*/__init__.py")
    }
    assert sorted(found - listed) == []
