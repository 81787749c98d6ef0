# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""scikit-learn's estimator checks on every estimator of the package."""

import inspect

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import sklearn_perceptrons

# An online algorithm scales an update by a sample's weight, which is not the
# same as visiting the sample twice; scikit-learn's own Perceptron is expected
# to fail these two checks for the same reason (API.md §1).
ONLINE_SAMPLE_WEIGHT = {
    "check_sample_weight_equivalence_on_dense_data": (
        "an update scaled by a weight differs from two visits of the sample"
    ),
    "check_sample_weight_equivalence_on_sparse_data": (
        "an update scaled by a weight differs from two visits of the sample"
    ),
}


def public_estimators():
    """Every estimator class the package exports."""
    return [
        obj()
        for name in sorted(sklearn_perceptrons.__all__)
        if inspect.isclass(obj := getattr(sklearn_perceptrons, name))
        and hasattr(obj, "fit")
    ]


def test_every_public_estimator_is_checked():
    names = {type(e).__name__ for e in public_estimators()}
    assert "Perceptron" in names


@parametrize_with_checks(
    public_estimators(), expected_failed_checks=lambda est: ONLINE_SAMPLE_WEIGHT
)
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
def test_fit_takes_the_same_data_on_its_lean_path(estimator):
    # A C-ordered float ndarray with integer labels skips validate_data
    # (the lean path); a list of lists goes through it.  Both fits agree,
    # and a refit on an ndarray forgets the feature names of a dataframe.
    import numpy as np
    import pandas as pd
    from numpy.testing import assert_array_equal
    from sklearn.base import clone

    rng = np.random.RandomState(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(np.int64)
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
