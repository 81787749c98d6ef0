# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of OneVsAllPerceptron and OneVsOnePerceptron.

The oracles: scikit-learn's own OneVsRestClassifier / OneVsOneClassifier
wrapping the same base estimator (they train one clone per binary problem, on
the same subsets and labels), binary estimators fitted by hand on each
sub-problem, the voting rule recomputed from ``estimators_``, and the generic
path of our meta-estimators (forced with an exact-type-check-defeating
subclass of Perceptron), which the compiled fast path must equal bit for bit
for the same sample order.
"""

import pickle
import tracemalloc
import warnings
from itertools import combinations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import config_context
from sklearn.base import clone
from sklearn.datasets import load_digits, load_iris, make_blobs
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.impute import SimpleImputer
from sklearn.linear_model import SGDClassifier
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import GridSearchCV
from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.multiclass import _ovr_decision_function

import sklearn_perceptrons
from sklearn_perceptrons import OneVsAllPerceptron, OneVsOnePerceptron, Perceptron
from sklearn_perceptrons.bounds import max_margin

META = [OneVsAllPerceptron, OneVsOnePerceptron]
SKLEARN_META = {
    OneVsAllPerceptron: OneVsRestClassifier,
    OneVsOnePerceptron: OneVsOneClassifier,
}


class GenericPerceptron(Perceptron):
    """A Perceptron the fast path does not recognise (it checks exact types).

    Its binary fits are Perceptron's own, so the meta-estimators' generic path
    with this base is the reference the fast path must equal.
    """


def fit_quiet(estimator, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(*args, **kwargs)


def blobs(n_classes=4, sizes=None, seed=0, n_features=5, std=2.5):
    """Overlapping blobs (not separable) with the given class sizes."""
    sizes = sizes or [40] * n_classes
    X, y = make_blobs(
        n_samples=sizes, n_features=n_features, cluster_std=std, random_state=seed
    )
    rng = np.random.RandomState(seed)
    order = rng.permutation(len(y))
    return X[order], y[order]


def assert_same_estimators(fast, reference, exact=True):
    """The binary estimators agree: weights, and the diagnostics when ours."""
    assert len(fast.estimators_) == len(reference.estimators_)
    for a, b in zip(fast.estimators_, reference.estimators_):
        np.testing.assert_array_equal(a.classes_, b.classes_)
        if exact:
            np.testing.assert_array_equal(a.coef_, b.coef_)
            np.testing.assert_array_equal(a.intercept_, b.intercept_)
        else:
            np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9, atol=1e-9)
            np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-9,
                                       atol=1e-9)
        for name in ("n_iter_", "mistakes_per_epoch_", "n_mistakes_", "converged_"):
            if hasattr(b, name):
                assert getattr(a, name) == getattr(b, name), name


def force_generic(base):
    """The same base estimator, as a type the fast path does not take."""
    return GenericPerceptron(**base.get_params())


# ---------------------------------------------------------------------------
# The prediction rules, recomputed from estimators_


def test_one_vs_all_prediction_is_argmax_of_estimators():
    X, y = blobs(5)
    clf = fit_quiet(OneVsAllPerceptron(Perceptron(shuffle=False, max_iter=10)), X, y)
    assert len(clf.estimators_) == 5
    expected = np.column_stack([e.decision_function(X) for e in clf.estimators_])
    np.testing.assert_array_equal(clf.decision_function(X), expected)
    np.testing.assert_array_equal(
        clf.predict(X), clf.classes_[expected.argmax(axis=1)]
    )
    for k, est in enumerate(clf.estimators_):
        np.testing.assert_array_equal(est.classes_, [0, 1])
        # Estimator k learned "class k vs. the rest".
        assert est.score(X, (y == clf.classes_[k]).astype(int)) > 0.6


def test_one_vs_all_binary_uses_one_estimator():
    X, y = blobs(2)
    labels = np.array(["no", "yes"])[y]
    clf = fit_quiet(OneVsAllPerceptron(), X, labels)
    assert len(clf.estimators_) == 1
    scores = clf.decision_function(X)
    assert scores.shape == (len(y),)
    np.testing.assert_array_equal(scores, clf.estimators_[0].decision_function(X))
    np.testing.assert_array_equal(clf.predict(X), np.where(scores > 0, "yes", "no"))
    # The single estimator is Perceptron's own binary fit, classes_[1] positive.
    binary = fit_quiet(Perceptron(), X, labels)
    np.testing.assert_array_equal(clf.estimators_[0].coef_, binary.coef_)


def _votes_and_confidences(clf, X):
    """The voting rule of the contract, straight from the estimators."""
    n_classes = len(clf.classes_)
    votes = np.zeros((len(X), n_classes))
    confidence = np.zeros((len(X), n_classes))
    for est, (i, j) in zip(clf.estimators_, combinations(range(n_classes), 2)):
        pred = est.predict(X)
        votes[pred == 1, j] += 1
        votes[pred == 0, i] += 1
        d = est.decision_function(X)
        confidence[:, j] += d
        confidence[:, i] -= d
    return votes, confidence


def test_one_vs_one_votes_and_tie_break_from_estimators():
    X, y = blobs(5, std=4.0, seed=3)
    clf = fit_quiet(OneVsOnePerceptron(Perceptron(shuffle=False, max_iter=5)), X, y)
    assert len(clf.estimators_) == 10
    votes, confidence = _votes_and_confidences(clf, X)
    decision = clf.decision_function(X)
    assert decision.shape == (len(y), 5)
    # votes + a monotone map of the summed confidences into (-1/3, 1/3)
    transformed = decision - votes
    assert np.all(np.abs(transformed) < 1 / 3)
    np.testing.assert_allclose(
        transformed, confidence / (3 * (np.abs(confidence) + 1)), rtol=1e-12
    )
    # The confidences never overturn a vote count ...
    pred = clf.predict(X)
    pred_index = np.searchsorted(clf.classes_, pred)
    np.testing.assert_array_equal(
        votes[np.arange(len(y)), pred_index], votes.max(axis=1)
    )
    # ... and break the ties: some samples have tied votes on this data.
    tied = (votes == votes.max(axis=1, keepdims=True)).sum(axis=1) > 1
    assert tied.any()
    for n in np.flatnonzero(tied):
        candidates = np.flatnonzero(votes[n] == votes[n].max())
        assert pred_index[n] == candidates[np.argmax(confidence[n, candidates])]
    # scikit-learn's helper computes the same decision.
    predictions = np.column_stack([e.predict(X) for e in clf.estimators_])
    confidences = np.column_stack([e.decision_function(X) for e in clf.estimators_])
    np.testing.assert_allclose(
        decision, _ovr_decision_function(predictions, confidences, 5), rtol=1e-12
    )


def test_one_vs_one_pairs_train_on_their_samples_only():
    X, y = blobs(4)
    params = dict(shuffle=False, max_iter=20, average=True)
    clf = fit_quiet(OneVsOnePerceptron(Perceptron(**params)), X, y)
    for est, (i, j) in zip(clf.estimators_, combinations(range(4), 2)):
        mask = (y == i) | (y == j)
        binary = fit_quiet(Perceptron(**params), X[mask], (y[mask] == j).astype(int))
        np.testing.assert_array_equal(est.coef_, binary.coef_)
        np.testing.assert_array_equal(est.intercept_, binary.intercept_)
        assert est.n_iter_ == binary.n_iter_
        assert est.mistakes_per_epoch_ == binary.mistakes_per_epoch_


def test_one_vs_one_binary_decision_is_1d():
    X, y = blobs(2)
    clf = fit_quiet(OneVsOnePerceptron(), X, y)
    assert len(clf.estimators_) == 1
    scores = clf.decision_function(X)
    assert scores.shape == (len(y),)
    np.testing.assert_array_equal(
        clf.predict(X), clf.estimators_[0].predict(X)
    )
    np.testing.assert_array_equal(clf.predict(X), (scores > 0).astype(int))


# ---------------------------------------------------------------------------
# Fast path = generic path = scikit-learn's reductions of the same base


PARAMS = [
    dict(tol=None, max_iter=6),
    dict(),  # the tol rule, per row
    dict(average=True, threshold=0.5, eta0=0.3, max_iter=30),
    dict(fit_intercept=False, tol=1e-2, n_iter_no_change=2),
    dict(average=True, tol=0.05, n_iter_no_change=1, max_iter=50),
]


@pytest.mark.parametrize("Meta", META)
@pytest.mark.parametrize("params", PARAMS)
def test_fast_path_equals_generic_path(Meta, params):
    X, y = blobs(4, sizes=[80, 15, 30, 45], seed=1)
    base = Perceptron(shuffle=False, **params)
    weights = np.random.RandomState(0).uniform(0, 2, size=len(y))
    fast = fit_quiet(Meta(base), X, y, sample_weight=weights)
    generic = fit_quiet(Meta(force_generic(base)), X, y, sample_weight=weights)
    assert all(type(e) is Perceptron for e in fast.estimators_)
    assert all(type(e) is GenericPerceptron for e in generic.estimators_)
    assert_same_estimators(fast, generic)
    np.testing.assert_array_equal(
        fast.decision_function(X), generic.decision_function(X)
    )
    # scikit-learn's own reductions of the same base agree too.
    with config_context(enable_metadata_routing=True):
        routed = clone(base).set_fit_request(sample_weight=True)
        reference = fit_quiet(SKLEARN_META[Meta](routed), X, y, sample_weight=weights)
    assert_same_estimators(fast, reference)
    np.testing.assert_allclose(
        fast.decision_function(X), reference.decision_function(X), rtol=1e-12
    )
    np.testing.assert_array_equal(fast.predict(X), reference.predict(X))


def test_fast_path_never_calls_the_binary_fit(monkeypatch):
    X, y = blobs(4)

    def boom(*args, **kwargs):
        raise AssertionError("the fast path must not fit binary estimators")

    monkeypatch.setattr(Perceptron, "fit", boom)
    for Meta in META:
        clf = fit_quiet(Meta(Perceptron(shuffle=False)), X, y)
        assert clf.score(X, y) > 0.5


def test_one_vs_one_tol_rule_counts_each_pair_samples():
    """tol * n_samples uses the pair's own sample count, as its binary fit does."""
    X, y = blobs(4, sizes=[300, 12, 12, 60], seed=2, std=3.0)
    base = Perceptron(shuffle=False, tol=0.02, n_iter_no_change=2, max_iter=200)
    fast = fit_quiet(OneVsOnePerceptron(base), X, y)
    generic = fit_quiet(OneVsOnePerceptron(force_generic(base)), X, y)
    assert_same_estimators(fast, generic)
    n_iter = [e.n_iter_ for e in fast.estimators_]
    # The rows stopped on their own rules, at different epochs, by tol.
    assert len(set(n_iter)) > 1
    assert any(not e.converged_ and e.n_iter_ < 200 for e in fast.estimators_)


@pytest.mark.parametrize("Meta", META)
def test_fast_path_csr_and_float32(Meta):
    X, y = blobs(4, seed=4)
    base = Perceptron(shuffle=False, max_iter=15, average=True)
    dense = fit_quiet(Meta(base), X, y)
    X_csr = sp.csr_matrix(np.where(np.abs(X) < 1, 0, X))
    X_dense_zeros = X_csr.toarray()
    sparse_fast = fit_quiet(Meta(base), X_csr, y)
    sparse_generic = fit_quiet(Meta(force_generic(base)), X_csr, y)
    assert_same_estimators(sparse_fast, sparse_generic)
    assert_same_estimators(sparse_fast, fit_quiet(Meta(base), X_dense_zeros, y),
                           exact=False)
    X32 = X.astype(np.float32)
    fast32 = fit_quiet(Meta(base), X32, y)
    assert all(e.coef_.dtype == np.float32 for e in fast32.estimators_)
    assert_same_estimators(fast32, fit_quiet(Meta(force_generic(base)), X32, y))
    np.testing.assert_allclose(fast32.decision_function(X), dense.decision_function(X),
                               rtol=1e-3, atol=1e-3)


def test_one_vs_all_shuffled_fast_path_equals_generic():
    """Every one-vs-all row sees the permutations its binary fit would draw."""
    X, y = blobs(4)
    base = Perceptron(shuffle=True, random_state=7, max_iter=30)
    fast = fit_quiet(OneVsAllPerceptron(base), X, y)
    generic = fit_quiet(OneVsAllPerceptron(force_generic(base)), X, y)
    assert_same_estimators(fast, generic)


def test_one_vs_one_shuffled_fast_path_is_deterministic():
    X, y = blobs(4)
    base = Perceptron(shuffle=True, random_state=3, max_iter=30)
    first = fit_quiet(OneVsOnePerceptron(base), X, y)
    assert_same_estimators(first, fit_quiet(OneVsOnePerceptron(base), X, y))
    assert first.score(X, y) > 0.6


def test_random_state_instance_of_base_is_not_advanced():
    X, y = blobs(3)
    rng = np.random.RandomState(0)
    state = rng.get_state()[1].copy()
    fit_quiet(OneVsOnePerceptron(Perceptron(random_state=rng)), X, y)
    np.testing.assert_array_equal(rng.get_state()[1], state)


@settings(deadline=None, max_examples=25)
@given(
    seed=st.integers(0, 10_000),
    n_classes=st.integers(2, 5),
    threshold=st.sampled_from([0.0, 0.7]),
    average=st.booleans(),
    fit_intercept=st.booleans(),
    tol=st.sampled_from([None, 1e-3, 0.1]),
    one_vs_one=st.booleans(),
)
def test_fast_path_equals_sklearn_reduction_property(
    seed, n_classes, threshold, average, fit_intercept, tol, one_vs_one
):
    rng = np.random.RandomState(seed)
    n = 12 * n_classes
    X = rng.randint(-4, 5, size=(n, 3)).astype(float)
    y = rng.randint(0, n_classes, size=n)
    y[:n_classes] = np.arange(n_classes)
    base = Perceptron(threshold=threshold, average=average, fit_intercept=fit_intercept,
                      tol=tol, n_iter_no_change=2, max_iter=12, shuffle=False)
    Meta = OneVsOnePerceptron if one_vs_one else OneVsAllPerceptron
    ours = fit_quiet(Meta(base), X, y)
    reference = fit_quiet(SKLEARN_META[Meta](base), X, y)
    assert_same_estimators(ours, reference)
    np.testing.assert_allclose(ours.decision_function(X),
                               reference.decision_function(X), rtol=1e-12)


# ---------------------------------------------------------------------------
# Fallbacks to the generic path and the estimators_ built by the fast path


@pytest.mark.parametrize("Meta", META)
@pytest.mark.parametrize("params", [
    dict(early_stopping=True, n_iter_no_change=2),
    dict(class_weight="balanced"),
])
def test_fallback_to_generic_path(Meta, params):
    X, y = blobs(4, sizes=[60, 20, 40, 30])
    base = Perceptron(shuffle=False, max_iter=20, **params)
    clf = fit_quiet(Meta(base), X, y)
    reference = fit_quiet(Meta(force_generic(base)), X, y)
    assert_same_estimators(clf, reference)
    np.testing.assert_array_equal(clf.predict(X), reference.predict(X))


@pytest.mark.parametrize("Meta", META)
def test_fast_estimators_are_usable_on_their_own(Meta):
    X, y = blobs(3)
    base = Perceptron(shuffle=False, max_iter=5, average=True)
    fast = fit_quiet(Meta(base), X, y)
    generic = fit_quiet(Meta(force_generic(base)), X, y)
    for a, b in zip(fast.estimators_, generic.estimators_):
        assert a.get_params() == base.get_params()
        assert a.n_features_in_ == X.shape[1]
        # Every attribute the binary fit sets, the fast path sets too.
        assert set(vars(a)) == set(vars(b))
        restored = pickle.loads(pickle.dumps(a))
        np.testing.assert_array_equal(restored.predict(X), a.predict(X))
        # partial_fit continues from the fitted state, as after the own fit.
        y_binary = (y == 1).astype(int)
        a.partial_fit(X[:20], y_binary[:20])
        b.partial_fit(X[:20], y_binary[:20])
        np.testing.assert_array_equal(a.coef_, b.coef_)
        assert a.n_mistakes_ == b.n_mistakes_



@pytest.mark.parametrize("Meta", META)
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_binary_estimators_share_no_mutable_parameter(Meta, method):
    # The binary estimators are copies of the base: a mutable parameter
    # value (a dict, a RandomState) is each one's own, as after a deep copy.
    X, y = blobs(3)
    base = Perceptron(class_weight={0: 1.0, 1: 2.0},
                      random_state=np.random.RandomState(0))
    meta = Meta(base)
    if method == "fit":
        fit_quiet(meta, X, y)
    else:
        meta.partial_fit(X, y, classes=np.unique(y))
    first, second = meta.estimators_[:2]
    for name in ("class_weight", "random_state"):
        assert getattr(first, name) is not getattr(second, name)
        assert getattr(first, name) is not getattr(base, name)
    assert first.class_weight == second.class_weight == base.class_weight
    first.class_weight[1] = 5.0
    assert second.class_weight[1] == 2.0 and base.class_weight[1] == 2.0
    assert first.get_params().keys() == base.get_params().keys()

def test_convergence_warning_per_unconverged_row():
    X, y = blobs(3, std=5.0)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        OneVsOnePerceptron(Perceptron(tol=None, max_iter=2)).fit(X, y)


def test_verbose_prints_one_line_per_epoch(capsys):
    X, y = blobs(3)
    clf = fit_quiet(OneVsAllPerceptron(Perceptron(verbose=1, tol=None, max_iter=4)),
                    X, y)
    lines = [l for l in capsys.readouterr().out.splitlines() if "Epoch" in l]
    assert len(lines) == 4 == max(e.n_iter_ for e in clf.estimators_)


def test_fast_path_does_not_copy_X_per_pair():
    X, y = make_blobs(n_samples=10_000, n_features=200, centers=10, random_state=0)
    clf = OneVsOnePerceptron(Perceptron(shuffle=False, tol=None, max_iter=2))
    tracemalloc.start()
    try:
        fit_quiet(clf, X, y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # A copy of one pair's samples alone would be 20% of X.
    assert peak < 0.1 * X.nbytes


# ---------------------------------------------------------------------------
# partial_fit


def _batches(X, y, size):
    return [(X[s:s + size], y[s:s + size]) for s in range(0, len(y), size)]


@pytest.mark.parametrize("Meta", META)
def test_partial_fit_fast_equals_generic_with_absent_classes(Meta):
    X, y = blobs(4, seed=5)
    order = np.argsort(y == 3, kind="stable")  # class 3 only at the end
    X, y = X[order], y[order]
    base = Perceptron(average=True, threshold=0.2)
    fast, generic = Meta(base), Meta(force_generic(base))
    for X_batch, y_batch in _batches(X, y, 25):
        fast.partial_fit(X_batch, y_batch, classes=[0, 1, 2, 3])
        generic.partial_fit(X_batch, y_batch, classes=[0, 1, 2, 3])
        for a, b in zip(fast.estimators_, generic.estimators_):
            assert hasattr(a, "coef_") == hasattr(b, "coef_")
            if hasattr(b, "coef_"):
                np.testing.assert_array_equal(a.coef_, b.coef_)
                assert a.mistakes_per_epoch_ == b.mistakes_per_epoch_
                assert a.n_iter_ == b.n_iter_
        np.testing.assert_array_equal(
            fast.decision_function(X), generic.decision_function(X)
        )
    assert fast.score(X, y) > 0.6


def test_one_vs_one_partial_fit_pair_without_samples_is_not_updated():
    X, y = blobs(4, seed=6)
    clf = OneVsOnePerceptron(Perceptron())
    first = np.isin(y, [0, 1])
    clf.partial_fit(X[first], y[first], classes=[0, 1, 2, 3])
    pairs = list(combinations(range(4), 2))
    # Pair (2, 3) has seen no sample: unfitted, and it abstains.
    untouched = clf.estimators_[pairs.index((2, 3))]
    assert not hasattr(untouched, "coef_")
    votes, _ = _votes_without(clf, X, skip=pairs.index((2, 3)))
    decision = clf.decision_function(X)
    np.testing.assert_array_equal(np.round(decision), np.round(votes))
    # A batch of classes 0 and 2 leaves pair (1, 3) as it was.
    before = {p: clf.estimators_[p].coef_.copy()
              for p in range(6) if hasattr(clf.estimators_[p], "coef_")}
    n_iter_before = clf.estimators_[pairs.index((1, 3))].n_iter_
    second = np.isin(y, [0, 2])
    clf.partial_fit(X[second], y[second])
    np.testing.assert_array_equal(
        clf.estimators_[pairs.index((1, 3))].coef_, before[pairs.index((1, 3))]
    )
    assert clf.estimators_[pairs.index((1, 3))].n_iter_ == n_iter_before
    # Passes so far: every pair with a class of the batch got one per batch.
    expected = {(0, 1): 2, (0, 2): 2, (0, 3): 2, (1, 2): 2, (1, 3): 1, (2, 3): 1}
    assert {pair: clf.estimators_[p].n_iter_ for p, pair in enumerate(pairs)} == (
        expected)


def _votes_without(clf, X, skip):
    n_classes = len(clf.classes_)
    votes = np.zeros((len(X), n_classes))
    confidence = np.zeros((len(X), n_classes))
    for p, (i, j) in enumerate(combinations(range(n_classes), 2)):
        if p == skip:
            continue
        est = clf.estimators_[p]
        d = est.decision_function(X)
        votes[d > 0, j] += 1
        votes[d <= 0, i] += 1
        confidence[:, j] += d
        confidence[:, i] -= d
    return votes, confidence


def test_one_vs_all_partial_fit_updates_rows_of_absent_classes():
    X, y = blobs(3, seed=7)
    clf = OneVsAllPerceptron(Perceptron())
    mask = y != 2
    clf.partial_fit(X[mask], y[mask], classes=[0, 1, 2])
    # Row 2 saw only negatives: its binary partial_fit on labels all 0.
    binary = Perceptron().partial_fit(X[mask], np.zeros(mask.sum(), int),
                                      classes=[0, 1])
    np.testing.assert_array_equal(clf.estimators_[2].coef_, binary.coef_)
    assert clf.estimators_[2].n_iter_ == 1


@pytest.mark.parametrize("Meta", META)
def test_partial_fit_once_equals_one_epoch_of_fit(Meta):
    X, y = blobs(4, seed=8)
    base = Perceptron(shuffle=False, tol=None, max_iter=1)
    online = Meta(base).partial_fit(X, y, classes=np.unique(y))
    batch = fit_quiet(Meta(base), X, y)
    for a, b in zip(online.estimators_, batch.estimators_):
        np.testing.assert_array_equal(a.coef_, b.coef_)
        np.testing.assert_array_equal(a.intercept_, b.intercept_)


@pytest.mark.parametrize("Meta", META)
def test_partial_fit_after_fit_continues(Meta):
    X, y = blobs(3, seed=9)
    base = Perceptron(shuffle=False, max_iter=3, tol=None)
    fast = fit_quiet(Meta(base), X, y)
    n_iter = [e.n_iter_ for e in fast.estimators_]
    fast.partial_fit(X[:30], y[:30])
    generic = fit_quiet(Meta(force_generic(base)), X, y).partial_fit(X[:30], y[:30])
    for a, b, n in zip(fast.estimators_, generic.estimators_, n_iter):
        np.testing.assert_array_equal(a.coef_, b.coef_)
        # Every class is in the batch: one more pass for every row.
        assert a.n_iter_ == b.n_iter_ == n + 1


@pytest.mark.parametrize("Meta", META)
def test_partial_fit_needs_a_base_with_partial_fit(Meta):
    clf = Meta(LinearSVC())
    assert not hasattr(clf, "partial_fit")
    with pytest.raises(AttributeError, match="partial_fit"):
        clf.partial_fit(np.ones((2, 2)), [0, 1], classes=[0, 1])
    X, y = blobs(3)
    clf.fit(X, y)
    assert not hasattr(clf, "partial_fit")


@pytest.mark.parametrize("Meta", META)
def test_partial_fit_with_sklearn_base_equals_sklearn_reduction(Meta):
    X, y = blobs(4, seed=10)
    base = SGDClassifier(random_state=0)
    ours, reference = Meta(base), SKLEARN_META[Meta](base)
    for X_batch, y_batch in _batches(X, y, 40):
        ours.partial_fit(X_batch, y_batch, classes=[0, 1, 2, 3])
        reference.partial_fit(X_batch, y_batch, classes=[0, 1, 2, 3])
    np.testing.assert_allclose(ours.decision_function(X),
                               reference.decision_function(X), rtol=1e-12)


# ---------------------------------------------------------------------------
# Generic base estimators


@pytest.mark.parametrize("Meta", META)
@pytest.mark.parametrize("base", [
    LinearSVC(random_state=0),
    SGDClassifier(random_state=0),
    make_pipeline(StandardScaler(), Perceptron()),
])
def test_generic_bases_equal_sklearn_reductions(Meta, base):
    X, y = blobs(4, seed=11)
    ours = fit_quiet(Meta(base), X, y)
    reference = fit_quiet(SKLEARN_META[Meta](base), X, y)
    np.testing.assert_allclose(ours.decision_function(X),
                               reference.decision_function(X), rtol=1e-12)
    np.testing.assert_array_equal(ours.predict(X), reference.predict(X))
    assert ours.score(X, y) > 0.6


def test_precomputed_kernel_base():
    X, y = blobs(3, seed=12)
    K = rbf_kernel(X, gamma=0.1)
    ours = OneVsOnePerceptron(SVC(kernel="precomputed")).fit(K, y)
    reference = OneVsOneClassifier(SVC(kernel="precomputed")).fit(K, y)
    assert ours.__sklearn_tags__().input_tags.pairwise
    assert len(ours.pairwise_indices_) == 3
    K_test = rbf_kernel(X[:20], X, gamma=0.1)
    np.testing.assert_allclose(ours.decision_function(K_test),
                               reference.decision_function(K_test), rtol=1e-12)
    ova = OneVsAllPerceptron(SVC(kernel="precomputed")).fit(K, y)
    np.testing.assert_allclose(
        ova.decision_function(K_test),
        OneVsRestClassifier(SVC(kernel="precomputed")).fit(K, y).decision_function(
            K_test),
        rtol=1e-12,
    )


@pytest.mark.parametrize("Meta", META)
def test_nan_passes_through_to_a_base_that_accepts_it(Meta):
    X, y = blobs(3, seed=13)
    X[::7, 1] = np.nan
    clf = Meta(make_pipeline(SimpleImputer(), StandardScaler(), Perceptron()))
    assert fit_quiet(clf, X, y).score(X, y) > 0.6
    with pytest.raises(ValueError, match="NaN"):
        Meta().fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        Meta(LinearSVC()).fit(X, y)


@pytest.mark.parametrize("Meta", META)
def test_n_jobs_gives_the_same_estimators(Meta):
    X, y = blobs(4, seed=14)
    base = SGDClassifier(random_state=0, max_iter=20, tol=None)
    serial = Meta(base).fit(X, y)
    parallel = Meta(base, n_jobs=2).fit(X, y)
    for a, b in zip(serial.estimators_, parallel.estimators_):
        np.testing.assert_array_equal(a.coef_, b.coef_)


# ---------------------------------------------------------------------------
# Labels, pandas, determinism, pickle


@pytest.mark.parametrize("Meta", META)
def test_string_labels(Meta):
    X, y = blobs(3, seed=15)
    names = np.array(["cat", "dog", "emu"])
    clf = fit_quiet(Meta(Perceptron(shuffle=False)), X, names[y])
    numeric = fit_quiet(Meta(Perceptron(shuffle=False)), X, y)
    np.testing.assert_array_equal(clf.classes_, names)
    np.testing.assert_array_equal(clf.predict(X), names[numeric.predict(X)])
    clf = Meta(Perceptron()).partial_fit(X, names[y], classes=names[::-1])
    np.testing.assert_array_equal(clf.classes_, names)
    assert set(clf.predict(X)) <= set(names)


@pytest.mark.parametrize("Meta", META)
def test_pandas_feature_names(Meta):
    pd = pytest.importorskip("pandas")
    X, y = blobs(3, n_features=3, seed=16)
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    clf = fit_quiet(Meta(), df, y)
    np.testing.assert_array_equal(clf.feature_names_in_, ["a", "b", "c"])
    np.testing.assert_array_equal(clf.predict(df), clf.predict(X))
    with pytest.warns(UserWarning, match="feature names"):
        clf.predict(X)
    with pytest.raises(ValueError, match="feature names"):
        clf.predict(df.rename(columns={"a": "z"}))


@pytest.mark.parametrize("Meta", META)
@pytest.mark.parametrize("base", [None, GenericPerceptron()])
def test_default_seeds_are_deterministic(Meta, base):
    X, y = blobs(4, seed=17)
    first = fit_quiet(Meta(base), X, y)
    second = fit_quiet(Meta(base), X, y)
    assert_same_estimators(first, second)


@pytest.mark.parametrize("Meta", META)
def test_pickle_round_trip(Meta):
    X, y = blobs(4, seed=18)
    clf = fit_quiet(Meta(), X, y)
    restored = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(restored.decision_function(X),
                                  clf.decision_function(X))
    restored.partial_fit(X[:10], y[:10])


# ---------------------------------------------------------------------------
# Parameters, pipelines, grid search


@pytest.mark.parametrize("Meta", META)
def test_nested_params_and_grid_search(Meta):
    X, y = load_iris(return_X_y=True)
    clf = Meta(Perceptron())
    assert "estimator__threshold" in clf.get_params()
    clf.set_params(estimator__threshold=0.5, n_jobs=1)
    assert clf.estimator.threshold == 0.5
    search = GridSearchCV(
        clf, {"estimator__threshold": [0.0, 2.0], "estimator__average": [False, True]},
        cv=3,
    ).fit(X, y)
    assert set(search.best_params_) == {"estimator__threshold", "estimator__average"}
    assert search.best_score_ > 0.7
    pipe = make_pipeline(StandardScaler(), Meta(Perceptron()))
    name = Meta.__name__.lower()
    search = GridSearchCV(pipe, {f"{name}__estimator__threshold": [0.0, 1.0]}, cv=3)
    assert search.fit(X, y).best_score_ > 0.8
    best = search.best_estimator_[-1]
    assert best.estimators_[0].threshold == search.best_params_[
        f"{name}__estimator__threshold"]


def test_tags_follow_the_base():
    assert OneVsAllPerceptron().__sklearn_tags__().input_tags.sparse
    assert not OneVsOnePerceptron(SVC()).__sklearn_tags__().input_tags.pairwise
    assert OneVsOnePerceptron(
        SVC(kernel="precomputed")).__sklearn_tags__().input_tags.pairwise
    assert not OneVsAllPerceptron().__sklearn_tags__().input_tags.allow_nan


def test_no_training_diagnostics_on_the_meta_estimators():
    X, y = blobs(3)
    for Meta in META:
        clf = fit_quiet(Meta(), X, y)
        for name in ("n_iter_", "n_mistakes_", "converged_", "coef_"):
            assert not hasattr(clf, name)
        assert not hasattr(clf, "predict_proba")


# ---------------------------------------------------------------------------
# Errors


def _fitted(Meta):
    X, y = blobs(3, seed=19)
    return fit_quiet(Meta(Perceptron(shuffle=False)), X, y), X, y


ERRORS = [
    (lambda c, X, y: c.fit(np.where(X > 1, np.nan, X), y), ValueError, "NaN"),
    (lambda c, X, y: c.fit(np.where(X > 1, np.inf, X), y), ValueError, "infinity"),
    (lambda c, X, y: c.fit(X, np.full(len(y), "spam")), ValueError,
     "only one class: 'spam'"),
    (lambda c, X, y: c.fit(X[:, :2], y[:5]), ValueError, "inconsistent"),
    (lambda c, X, y: c.fit(X, y, sample_weight=-np.ones(len(y))), ValueError,
     "Negative"),
    (lambda c, X, y: c.predict(X[:, :2]), ValueError, "features"),
    (lambda c, X, y: c.decision_function(X[:, 0]), ValueError, "2D array"),
    (lambda c, X, y: c.partial_fit(X[:, :2], y), ValueError, "features"),
    (lambda c, X, y: c.partial_fit(X, y + 5), ValueError, "not in classes"),
    (lambda c, X, y: c.partial_fit(X, y, classes=[0, 1, 2, 3]), ValueError,
     "not the same"),
    (lambda c, X, y: c.partial_fit(np.full_like(X, np.nan), y), ValueError, "NaN"),
    (lambda c, X, y: c.set_params(n_jobs="two").fit(X, y), InvalidParameterError,
     "n_jobs"),
    (lambda c, X, y: c.set_params(estimator=object()).fit(X, y),
     InvalidParameterError, "estimator"),
    (lambda c, X, y: c.set_params(estimator__threshold=-1.0).fit(X, y),
     InvalidParameterError, "threshold"),
    (lambda c, X, y: c.set_params(estimator__max_iter=0).fit(X, y),
     InvalidParameterError, "max_iter"),
    (lambda c, X, y: c.fit(X, y + 0.5), ValueError, "Unknown label type"),
    (lambda c, X, y: c.set_params(estimator=make_pipeline(Perceptron())).fit(
        X, y, sample_weight=np.ones(len(y))), TypeError, "sample_weight"),
]


@pytest.mark.parametrize("Meta", META)
@pytest.mark.parametrize("call, error, match", ERRORS)
def test_errors_leave_fitted_estimator_unchanged(Meta, call, error, match):
    clf, X, y = _fitted(Meta)
    before = dict(clf.__dict__)
    coefs = [e.coef_.copy() for e in clf.estimators_]
    params = clf.get_params(deep=False)
    base_params = clf.estimator.get_params()
    with pytest.raises(error, match=match):
        call(clf, X, y)
    clf.set_params(**params)
    clf.estimator.set_params(**base_params)
    assert clf.__dict__.keys() == before.keys()
    for key, value in before.items():
        assert clf.__dict__[key] is value, key
    for est, coef in zip(clf.estimators_, coefs):
        np.testing.assert_array_equal(est.coef_, coef)


@pytest.mark.parametrize("Meta", META)
def test_generic_partial_fit_failure_leaves_estimators_unchanged(Meta):
    X, y = blobs(3, seed=20)
    clf = Meta(GenericPerceptron()).partial_fit(X, y, classes=[0, 1, 2])
    coefs = [e.coef_.copy() for e in clf.estimators_]
    bad = X.copy()
    bad[y == 2] = np.nan  # only the sub-problems with class 2 fail
    with pytest.raises(ValueError, match="NaN"):
        clf.partial_fit(bad, y)
    for est, coef in zip(clf.estimators_, coefs):
        np.testing.assert_array_equal(est.coef_, coef)


@pytest.mark.parametrize("Meta", META)
def test_not_fitted_and_first_partial_fit(Meta):
    X, y = blobs(3)
    for method in ("predict", "decision_function"):
        with pytest.raises(NotFittedError):
            getattr(Meta(), method)(X)
    with pytest.raises(ValueError, match="classes must be passed"):
        Meta().partial_fit(X, y)
    with pytest.raises(ValueError, match="only one class"):
        Meta().partial_fit(X, y, classes=[0])


# ---------------------------------------------------------------------------
# MarginPerceptron as base


def _margin_perceptron():
    return sklearn_perceptrons.MarginPerceptron


def _assert_same_margins(fast, generic):
    # "_stream" is the private cache of streaming (derived data only).
    for a, b in zip(fast.estimators_, generic.estimators_):
        assert set(vars(a)) - {"_stream"} == set(vars(b)) - {"_stream"}
        for name in ("margin_", "gamma_"):
            assert getattr(a, name) == getattr(b, name), name


@pytest.mark.parametrize("Meta", META)
@pytest.mark.parametrize("params", [
    dict(margin=0.05, tol=None, max_iter=20),
    dict(margin=0.3, epsilon=0.9, average=True, max_iter=50),  # tol rule per row
    dict(margin=0.1, fit_intercept=False, max_iter=30),
])
def test_margin_perceptron_fast_path_equals_generic(Meta, params):
    MarginPerceptron = _margin_perceptron()

    class GenericMargin(MarginPerceptron):
        pass

    X, y = blobs(4, sizes=[70, 20, 40, 30], seed=21)
    X = StandardScaler().fit_transform(X)
    base = MarginPerceptron(shuffle=False, **params)
    fast = fit_quiet(Meta(base), X, y)
    generic = fit_quiet(Meta(GenericMargin(**base.get_params())), X, y)
    assert all(type(e) is MarginPerceptron for e in fast.estimators_)
    assert all(type(e) is GenericMargin for e in generic.estimators_)
    assert_same_estimators(fast, generic)
    _assert_same_margins(fast, generic)
    np.testing.assert_array_equal(
        fast.decision_function(X), generic.decision_function(X)
    )
    # partial_fit, fast and generic, batch by batch (class 3 absent at first).
    order = np.argsort(y == 3, kind="stable")
    fast, generic = Meta(base), Meta(GenericMargin(**base.get_params()))
    for X_batch, y_batch in _batches(X[order], y[order], 30):
        fast.partial_fit(X_batch, y_batch, classes=[0, 1, 2, 3])
        generic.partial_fit(X_batch, y_batch, classes=[0, 1, 2, 3])
    assert_same_estimators(fast, generic)
    _assert_same_margins(fast, generic)


def test_margin_perceptron_separable_pairs_reach_half_the_margin():
    """On separable pairs, every pair ends with all its samples at >= gamma/2."""
    MarginPerceptron = _margin_perceptron()
    X, y = make_blobs(n_samples=120, centers=[[-6, 0], [6, 0], [0, 8]],
                      cluster_std=0.5, random_state=0)
    X = X / np.abs(X).max()
    sq_radius = ((X ** 2).sum(axis=1) + 1).max()  # of the padded vectors
    gamma = 0.05
    clf = fit_quiet(OneVsOnePerceptron(MarginPerceptron(margin=gamma, tol=None)), X, y)
    for est, (i, j) in zip(clf.estimators_, combinations(range(3), 2)):
        mask = (y == i) | (y == j)
        # The theorem applies: the pair is separable with margin >= gamma.
        assert max_margin(X[mask], y[mask] == j)[0] >= gamma
        assert est.converged_
        assert est.margin_ >= gamma / 2
        assert est.n_mistakes_ <= 16 * sq_radius / gamma ** 2


@pytest.mark.parametrize("Meta", META)
def test_margin_perceptron_auto_uses_generic_path(Meta):
    MarginPerceptron = _margin_perceptron()
    X, y = blobs(3, seed=22)
    X = StandardScaler().fit_transform(X)
    clf = fit_quiet(Meta(MarginPerceptron(max_iter=30)), X, y)
    for est, row in zip(clf.estimators_, _binary_problems(Meta, y)):
        mask, y_binary = row
        binary = fit_quiet(MarginPerceptron(max_iter=30), X[mask], y_binary)
        np.testing.assert_array_equal(est.coef_, binary.coef_)


def _binary_problems(Meta, y):
    classes = np.unique(y)
    if Meta is OneVsAllPerceptron:
        return [(np.ones(len(y), bool), (y == c).astype(int)) for c in classes]
    return [((y == i) | (y == j), (y[(y == i) | (y == j)] == j).astype(int))
            for i, j in combinations(classes, 2)]


# ---------------------------------------------------------------------------
# Accuracy on the bundled digits


def test_digits_accuracy():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    X_train, X_test, y_train, y_test = X[:1200], X[1200:], y[:1200], y[1200:]
    ovo = fit_quiet(OneVsOnePerceptron(Perceptron(average=True)), X_train, y_train)
    ova = fit_quiet(OneVsAllPerceptron(Perceptron(average=True)), X_train, y_train)
    assert ovo.score(X_test, y_test) > 0.9
    assert ova.score(X_test, y_test) > 0.85
