# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Metadata routing through OneVsAllPerceptron and OneVsOnePerceptron.

The oracles: binary estimators fitted by hand on every sub-problem with the
sub-problem's weights, scikit-learn's own OneVsRestClassifier /
OneVsOneClassifier routing the same metadata, and a consumer estimator that
records what it receives.
"""

import warnings

import numpy as np
import pytest
from sklearn import config_context
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning, UnsetMetadataPassedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_validate
from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier

from sklearn_perceptrons import (
    MarginPerceptron,
    OneVsAllPerceptron,
    OneVsOnePerceptron,
    Perceptron,
)

META = [OneVsAllPerceptron, OneVsOnePerceptron]
SKLEARN_META = {
    OneVsAllPerceptron: OneVsRestClassifier,
    OneVsOnePerceptron: OneVsOneClassifier,
}


@pytest.fixture
def routing():
    """Metadata routing enabled for one test (the config is restored)."""
    with config_context(enable_metadata_routing=True):
        yield


class GenericPerceptron(Perceptron):
    """A Perceptron the fast path does not take (it checks exact types)."""


class Recorder(ClassifierMixin, BaseEstimator):
    """A binary consumer that records the metadata of its fit/partial_fit."""

    def fit(self, X, y, sample_weight=None, tag=None):
        self.classes_ = np.unique(y)
        self.seen_ = {"X": X, "sample_weight": sample_weight, "tag": tag}
        self.n_features_in_ = X.shape[1]
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None, tag=None):
        return self.fit(X, y, sample_weight=sample_weight, tag=tag)

    def decision_function(self, X):
        return X[:, 0] - self.seen_["X"][:, 0].mean()


def data(seed=0, n_classes=4):
    X, y = make_blobs(n_samples=[30] * n_classes, n_features=4, cluster_std=3.0,
                      random_state=seed)
    order = np.random.RandomState(seed).permutation(len(y))
    weights = np.random.RandomState(seed + 1).uniform(0, 3, size=len(y))
    return X[order], y[order], weights


def subproblems(Meta, y):
    """(samples, binary labels) of every sub-problem, in estimators_ order."""
    classes = np.unique(y)
    if Meta is OneVsAllPerceptron:
        return [(np.arange(len(y)), (y == c).astype(int)) for c in classes]
    return [
        (np.flatnonzero((y == a) | (y == b)), (y[(y == a) | (y == b)] == b).astype(int))
        for i, a in enumerate(classes) for b in classes[i + 1:]
    ]


def quiet_fit(estimator, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(*args, **kwargs)


@pytest.mark.parametrize("Meta", META)
@pytest.mark.parametrize("Base", [Perceptron, GenericPerceptron, MarginPerceptron])
def test_requested_sample_weight_reaches_every_binary_estimator(routing, Meta, Base):
    """Fast path (Perceptron, MarginPerceptron) and generic path alike: every
    binary estimator equals one fitted by hand on its sub-problem with its
    samples' weights, and the weights change the result."""
    X, y, w = data()
    params = dict(shuffle=False, max_iter=20, tol=None)
    if Base is MarginPerceptron:
        params["margin"] = 0.5
    base = Base(**params).set_fit_request(sample_weight=True)
    clf = Meta(base).fit(X, y, sample_weight=w)
    # Our exact types take the compiled fast path, with the routed weights.
    assert clf._shared_input == (Base is not GenericPerceptron)
    unweighted = Meta(base).fit(X, y)
    differs = False
    for est, plain, (idx, y_bin) in zip(
        clf.estimators_, unweighted.estimators_, subproblems(Meta, y)
    ):
        assert type(est) is Base
        by_hand = Base(**params).fit(X[idx], y_bin, sample_weight=w[idx])
        np.testing.assert_array_equal(est.coef_, by_hand.coef_)
        np.testing.assert_array_equal(est.intercept_, by_hand.intercept_)
        differs |= not np.array_equal(est.coef_, plain.coef_)
    assert differs


@pytest.mark.parametrize("Meta", META)
def test_other_metadata_of_our_perceptron_takes_the_generic_path(routing, Meta):
    """coef_init is no per-sample metadata: every binary fit starts from it."""
    X, y, w = data(seed=7)
    start = np.full((1, X.shape[1]), 0.5)
    base = Perceptron(shuffle=False, max_iter=3, tol=None).set_fit_request(
        coef_init=True, sample_weight=True
    )
    clf = quiet_fit(Meta(base), X, y, coef_init=start, sample_weight=w)
    assert not clf._shared_input
    for est, (idx, y_bin) in zip(clf.estimators_, subproblems(Meta, y)):
        by_hand = quiet_fit(clone(base), X[idx], y_bin, coef_init=start,
                            sample_weight=w[idx])
        np.testing.assert_array_equal(est.coef_, by_hand.coef_)
    plain = quiet_fit(Meta(base), X, y, sample_weight=w)
    assert not np.array_equal(clf.decision_function(X), plain.decision_function(X))


@pytest.mark.parametrize("Meta", META)
def test_unrequested_sample_weight_raises(routing, Meta):
    X, y, w = data()
    for base in [None, Perceptron(), LogisticRegression()]:
        clf = Meta(base)
        with pytest.raises(UnsetMetadataPassedError, match="sample_weight"):
            clf.fit(X, y, sample_weight=w)
        assert not hasattr(clf, "estimators_")
    clf = Meta(Perceptron())
    with pytest.raises(UnsetMetadataPassedError, match="sample_weight"):
        clf.partial_fit(X, y, classes=np.unique(y), sample_weight=w)
    # A fitted estimator is left as it was.
    clf.fit(X, y)
    before = clf.decision_function(X)
    with pytest.raises(UnsetMetadataPassedError):
        clf.fit(X[:20], y[:20], sample_weight=w[:20])
    np.testing.assert_array_equal(clf.decision_function(X), before)


@pytest.mark.parametrize("Meta", META)
def test_sample_weight_requested_false_is_refused_like_sklearn(routing, Meta):
    """A base that declines sample_weight: nothing consumes it, which
    scikit-learn's reductions refuse with the same error."""
    X, y, w = data()
    base = Perceptron().set_fit_request(sample_weight=False)
    for clf in [Meta(base), SKLEARN_META[Meta](base)]:
        with pytest.raises(TypeError, match="not routed to any object"):
            clf.fit(X, y, sample_weight=w)


@pytest.mark.parametrize("Meta", META)
def test_alias_routes_under_another_name(routing, Meta):
    X, y, w = data()
    base = Perceptron(shuffle=False)
    aliased = Meta(clone(base).set_fit_request(sample_weight="row_weight")).fit(
        X, y, row_weight=w
    )
    direct = Meta(clone(base).set_fit_request(sample_weight=True)).fit(
        X, y, sample_weight=w
    )
    np.testing.assert_array_equal(aliased.decision_function(X),
                                  direct.decision_function(X))


@pytest.mark.parametrize("Meta", META)
def test_unknown_metadata_raises(routing, Meta):
    X, y, _ = data()
    with pytest.raises(TypeError, match="not routed to any object"):
        Meta(Perceptron()).fit(X, y, colour=np.ones(len(y)))


@pytest.mark.parametrize("Meta", META)
def test_routing_disabled_keeps_sample_weight_and_refuses_other_metadata(Meta):
    X, y, w = data()
    base = Perceptron(shuffle=False)
    # Without routing sample_weight goes to every binary estimator, as before.
    clf = Meta(base).fit(X, y, sample_weight=w)
    with config_context(enable_metadata_routing=True):
        routed = Meta(clone(base).set_fit_request(sample_weight=True)).fit(
            X, y, sample_weight=w
        )
    np.testing.assert_array_equal(clf.decision_function(X),
                                  routed.decision_function(X))
    with pytest.raises(ValueError, match="enable_metadata_routing=True"):
        Meta(base).fit(X, y, tag=np.ones(len(y)))
    with pytest.raises(ValueError, match="enable_metadata_routing=True"):
        Meta(base).partial_fit(X, y, classes=np.unique(y), tag=np.ones(len(y)))
    with pytest.raises(TypeError, match="does not accept sample_weight"):
        Meta(_NoWeights()).fit(X, y, sample_weight=w)


class _NoWeights(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def decision_function(self, X):
        return X[:, 0]


@pytest.mark.parametrize("Meta", META)
def test_logistic_regression_base_equals_sklearn_reduction(routing, Meta):
    X, y, w = data(seed=3)
    base = LogisticRegression().set_fit_request(sample_weight=True)
    ours = Meta(base).fit(X, y, sample_weight=w)
    reference = SKLEARN_META[Meta](base).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.decision_function(X),
                               reference.decision_function(X), rtol=1e-10)
    plain = Meta(LogisticRegression()).fit(X, y)
    assert not np.allclose(ours.decision_function(X), plain.decision_function(X))


@pytest.mark.parametrize("Meta", META)
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_consumer_gets_each_subproblems_metadata(routing, Meta, method):
    """Per-sample metadata is cut to every sub-problem's samples; other
    values pass unchanged."""
    X, y, w = data(seed=4)
    tag = np.arange(len(y)) * 10
    request = getattr(Recorder(), f"set_{method}_request")
    clf = Meta(request(sample_weight=True, tag=True))
    kwargs = {"classes": np.unique(y)} if method == "partial_fit" else {}
    getattr(clf, method)(X, y, sample_weight=w, tag=tag, **kwargs)
    for est, (idx, _) in zip(clf.estimators_, subproblems(Meta, y)):
        np.testing.assert_array_equal(est.seen_["X"], X[idx])
        np.testing.assert_array_equal(est.seen_["sample_weight"], w[idx])
        np.testing.assert_array_equal(est.seen_["tag"], tag[idx])
    # A value that is not per-sample reaches every estimator as it is.
    clf = Meta(Recorder().set_fit_request(tag=True)).fit(X, y, tag="run-7")
    assert all(est.seen_["tag"] == "run-7" for est in clf.estimators_)


@pytest.mark.parametrize("Meta", META)
def test_partial_fit_routes_sample_weight(routing, Meta):
    X, y, w = data(seed=5)
    classes = np.unique(y)
    base = Perceptron().set_partial_fit_request(sample_weight=True)
    clf = Meta(base)
    for batch in np.array_split(np.arange(len(y)), 3):
        clf.partial_fit(X[batch], y[batch], classes=classes, sample_weight=w[batch])
    for est, (idx, y_bin) in zip(clf.estimators_, subproblems(Meta, y)):
        by_hand = Perceptron()
        for batch in np.array_split(np.arange(len(y)), 3):
            keep = np.isin(batch, idx)
            if keep.any():
                rows = batch[keep]
                by_hand.partial_fit(X[rows], y_bin[np.searchsorted(idx, rows)],
                                    classes=[0, 1], sample_weight=w[rows])
        np.testing.assert_array_equal(est.coef_, by_hand.coef_)
        np.testing.assert_array_equal(est.intercept_, by_hand.intercept_)
    # The fit request does not cover partial_fit.
    unrequested = Meta(Perceptron().set_fit_request(sample_weight=True))
    with pytest.raises(UnsetMetadataPassedError):
        unrequested.partial_fit(X, y, classes=classes, sample_weight=w)


@pytest.mark.parametrize("Meta", META)
def test_router_and_request_methods(routing, Meta):
    router = Meta(Perceptron().set_fit_request(sample_weight=True)) \
        .get_metadata_routing()
    assert "sample_weight" in str(router)
    # The reduction passes sample_weight on but does not consume it itself.
    assert not hasattr(Meta(), "set_fit_request")
    assert not hasattr(Meta(), "set_partial_fit_request")
    assert hasattr(Meta(), "set_score_request")


@pytest.mark.parametrize("Meta", META)
def test_cross_validate_routes_through_the_reduction(routing, Meta):
    X, y, w = data(seed=6)
    base = Perceptron(shuffle=False).set_fit_request(sample_weight=True)
    clf = Meta(base).set_score_request(sample_weight=True)
    scores = cross_validate(clf, X, y, cv=3, params={"sample_weight": w},
                            return_estimator=True, return_indices=True)
    folds = zip(scores["estimator"], scores["indices"]["train"],
                scores["indices"]["test"], scores["test_score"])
    for fitted, train, test, score in folds:
        by_hand = Meta(base).fit(X[train], y[train], sample_weight=w[train])
        np.testing.assert_array_equal(fitted.decision_function(X),
                                      by_hand.decision_function(X))
        # The scorer got the test fold's weights.
        assert score == pytest.approx(
            by_hand.score(X[test], y[test], sample_weight=w[test])
        )
