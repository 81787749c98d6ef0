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
