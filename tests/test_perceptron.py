# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of Perceptron: the update rule, the theorems, the contract of §1-§2."""

import pickle
import re
import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _reference import perceptron_epochs, split_weights
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.datasets import load_iris, make_blobs, make_classification
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_perceptrons import MarginPerceptron, Perceptron
from sklearn_perceptrons.bounds import hinge_mistake_bound, mistake_bound


def fast_perceptron(**params):
    """A Perceptron with test-friendly defaults: cyclic order, no tol rule."""
    defaults = dict(shuffle=False, tol=None, max_iter=5, random_state=0)
    defaults.update(params)
    return Perceptron(**defaults)


def fit_quiet(estimator, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(*args, **kwargs)


def separable_data(seed, n_samples=60, n_features=4, gap=0.1):
    """Random data labelled by a random hyperplane, with a margin gap."""
    rng = np.random.RandomState(seed)
    w = rng.randn(n_features)
    X = rng.randn(4 * n_samples, n_features)
    score = X @ w + 0.3
    X, score = X[np.abs(score) > gap * np.linalg.norm(w)], score[
        np.abs(score) > gap * np.linalg.norm(w)
    ]
    X, score = X[:n_samples], score[:n_samples]
    return X, (score > 0).astype(int)


@pytest.fixture
def iris():
    X, y = load_iris(return_X_y=True)
    return X, y


# ---------------------------------------------------------------------------
# The update rule against the textbook


@settings(deadline=None, max_examples=40)
@given(
    seed=st.integers(0, 10_000),
    epochs=st.integers(1, 6),
    fit_intercept=st.booleans(),
)
def test_textbook_equivalence(seed, epochs, fit_intercept):
    """shuffle=False, tol=None, max_iter=k, threshold=0, eta0=1: k textbook cycles."""
    rng = np.random.RandomState(seed)
    X = rng.randint(-5, 6, size=(30, 3)).astype(float)
    y = rng.randint(0, 2, size=30)
    y[:2] = [0, 1]
    clf = fit_quiet(
        Perceptron(shuffle=False, tol=None, max_iter=epochs, fit_intercept=fit_intercept),
        X, y,
    )
    w, b = np.zeros(3), 0.0
    s = 2 * y - 1
    for _ in range(epochs):
        for i in range(len(X)):
            if s[i] * (X[i] @ w + b) <= 0:
                w = w + s[i] * X[i]
                if fit_intercept:
                    b = b + s[i]
    # Integer data: the compiled loop and the textbook agree exactly.
    np.testing.assert_array_equal(clf.coef_.ravel(), w)
    np.testing.assert_array_equal(clf.intercept_, [b])


@pytest.mark.parametrize("threshold", [0.0, 0.5, 3.0])
@pytest.mark.parametrize("eta0", [1.0, 0.25])
@pytest.mark.parametrize("sparse", [False, True])
def test_reference_implementation(threshold, eta0, sparse):
    """Threshold, eta0 and sample weights match the pure-NumPy reference."""
    rng = np.random.RandomState(0)
    X = rng.randn(40, 5)
    y = (X[:, 0] + 0.5 * rng.randn(40) > 0).astype(int)
    sample_weight = rng.uniform(0, 2, size=40)
    sample_weight[::7] = 0.0
    clf = fit_quiet(
        fast_perceptron(threshold=threshold, eta0=eta0, max_iter=4),
        sp.csr_matrix(X) if sparse else X, y, sample_weight=sample_weight,
    )
    iterates, updates = perceptron_epochs(
        X, 2 * y - 1, [np.arange(40)] * 4, threshold=threshold,
        eta=eta0 * sample_weight,
    )
    coef, intercept = split_weights(iterates[-1], True)
    np.testing.assert_allclose(clf.coef_.ravel(), coef, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(clf.intercept_, [intercept], rtol=1e-10, atol=1e-12)
    assert clf.mistakes_per_epoch_ == updates
    assert clf.n_mistakes_ == sum(updates)


def test_shuffled_order_is_a_permutation_per_epoch():
    """shuffle=True still makes at most n updates per epoch and separates."""
    X, y = separable_data(3, n_samples=80)
    clf = Perceptron(shuffle=True, random_state=1, tol=None).fit(X, y)
    assert clf.converged_
    assert all(u <= len(X) for u in clf.mistakes_per_epoch_)
    assert clf.score(X, y) == 1.0


@pytest.mark.parametrize("shuffle", [False, True])
def test_averaged_is_mean_of_iterates(shuffle):
    """average=True gives the mean of (w, b) over every visit, all epochs."""
    rng = np.random.RandomState(1)
    X = rng.randn(30, 4)
    y = (X @ rng.randn(4) + 0.3 * rng.randn(30) > 0).astype(int)
    n_epochs = 3
    clf = fit_quiet(
        fast_perceptron(average=True, max_iter=n_epochs, shuffle=shuffle,
                        random_state=7),
        X, y,
    )
    orders = _orders_of(clf, X, y, n_epochs)
    iterates, _ = perceptron_epochs(X, 2 * y - 1, orders)
    coef, intercept = split_weights(np.mean(iterates, axis=0), True)
    np.testing.assert_allclose(clf.coef_.ravel(), coef, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(clf.intercept_, [intercept], rtol=1e-9, atol=1e-12)


def _orders_of(clf, X, y, n_epochs):
    """The epoch orders the estimator used: its documented permutation stream
    (one 63-bit seed drawn from ``random_state`` per epoch, then the compiled
    Fisher-Yates shuffle, whose permutations are tested separately)."""
    from sklearn.utils import check_random_state

    from sklearn_perceptrons._core._shuffle import shuffle_indices

    if not clf.shuffle:
        return [np.arange(len(X))] * n_epochs
    rng = check_random_state(clf.random_state)
    orders = []
    for _ in range(n_epochs):
        order = np.arange(len(X), dtype=np.int32)
        shuffle_indices(order, int(rng.randint(0, 2**63 - 1, dtype=np.int64)))
        orders.append(order.copy())
    return orders


def test_shuffle_orders_are_permutations():
    from sklearn_perceptrons._core._shuffle import shuffle_indices

    seen = set()
    for seed in range(20):
        order = np.arange(50, dtype=np.int32)
        shuffle_indices(order, seed)
        np.testing.assert_array_equal(np.sort(order), np.arange(50))
        seen.add(tuple(order))
    assert len(seen) == 20
    # Uniformity: every position takes every value about equally often.
    counts = np.zeros((5, 5))
    for seed in range(5000):
        order = np.arange(5, dtype=np.int32)
        shuffle_indices(order, seed * 7919 + 1)
        counts[np.arange(5), order] += 1
    assert np.all(np.abs(counts - 1000) < 5 * np.sqrt(1000 * 0.8 * 0.2) * 2)


def test_shuffled_fit_matches_reference_orders():
    rng = np.random.RandomState(4)
    X = rng.randn(25, 3)
    y = (X[:, 1] - X[:, 2] > 0.1).astype(int)
    clf = fit_quiet(fast_perceptron(shuffle=True, random_state=11, max_iter=3), X, y)
    iterates, updates = perceptron_epochs(X, 2 * y - 1, _orders_of(clf, X, y, 3))
    coef, intercept = split_weights(iterates[-1], True)
    np.testing.assert_allclose(clf.coef_.ravel(), coef, rtol=1e-10)
    assert clf.mistakes_per_epoch_ == updates


# ---------------------------------------------------------------------------
# The theorems


@settings(deadline=None, max_examples=40)
@given(
    seed=st.integers(0, 100_000),
    shuffle=st.booleans(),
    fit_intercept=st.booleans(),
    order_seed=st.integers(0, 1000),
)
def test_novikoff_bound(seed, shuffle, fit_intercept, order_seed):
    """On separable data, fit never makes more than (R/γ)² updates, any order."""
    X, y = separable_data(seed, n_samples=40, n_features=3, gap=0.15)
    if not fit_intercept:
        # Separable through the origin: label by a hyperplane through 0.
        w = np.random.RandomState(seed + 1).randn(3)
        X = X[np.abs(X @ w) > 0.15 * np.linalg.norm(w)]
        y = (X @ w > 0).astype(int)
    if len(np.unique(y)) < 2:
        return
    clf = Perceptron(shuffle=shuffle, random_state=order_seed, tol=None,
                     max_iter=100_000, fit_intercept=fit_intercept).fit(X, y)
    bound = mistake_bound(X, y, fit_intercept=fit_intercept)
    assert clf.converged_
    assert clf.n_mistakes_ <= bound * (1 + 1e-9)


@settings(deadline=None, max_examples=40)
@given(seed=st.integers(0, 100_000), n=st.integers(2, 60), p=st.integers(1, 5))
def test_hinge_loss_bound_one_pass(seed, n, p):
    """One partial_fit pass over arbitrary data makes at most
    hinge_mistake_bound(X, y, u, c) updates, for any (u, c)."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, p) * rng.uniform(0.1, 3)
    y = rng.randint(0, 2, size=n)
    y[:2] = [0, 1]
    clf = Perceptron().partial_fit(X, y, classes=[0, 1])
    for _ in range(3):
        u, c = rng.randn(p), rng.randn()
        assert clf.n_mistakes_ <= hinge_mistake_bound(X, y, u, c) + 1e-9


# ---------------------------------------------------------------------------
# Multiclass: native one-vs-all equals K binary runs


@pytest.mark.parametrize(
    "params",
    [
        dict(),
        dict(shuffle=True, random_state=3),
        dict(average=True),
        dict(threshold=0.5, eta0=0.5),
        dict(tol=1e-3, n_iter_no_change=2, max_iter=50, shuffle=True),
        dict(class_weight={0: 1.0, 1: 2.0, 2: 0.5}),
        dict(early_stopping=True, tol=1e-3, n_iter_no_change=2, max_iter=40),
        dict(fit_intercept=False, average=True, shuffle=True),
    ],
)
def test_multiclass_row_equals_binary_run(iris, params):
    X, y = iris
    params = {**dict(shuffle=False, tol=None, max_iter=8), **params}
    sample_weight = np.random.RandomState(0).uniform(0.5, 1.5, size=len(y))
    multi = fit_quiet(Perceptron(**params), X, y, sample_weight=sample_weight)
    assert multi.coef_.shape == (3, 4)
    n_iters = []
    for k in range(3):
        binary_params = dict(params)
        weights = sample_weight
        if "class_weight" in params:
            # In sub-problem k a sample keeps the weight of its own class.
            cw = params["class_weight"]
            weights = sample_weight * np.array([cw[c] for c in y])
            binary_params.pop("class_weight")
        binary = fit_quiet(
            Perceptron(**binary_params), X, (y == k).astype(int), sample_weight=weights
        )
        np.testing.assert_allclose(multi.coef_[k], binary.coef_[0], rtol=1e-12)
        np.testing.assert_allclose(multi.intercept_[k], binary.intercept_[0], rtol=1e-12)
        n_iters.append(binary.n_iter_)
    assert multi.n_iter_ == max(n_iters)


@settings(deadline=None, max_examples=60)
@given(
    n_classes=st.integers(3, 13),
    n_features=st.integers(1, 27),
    single=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_dense_rows_scored_together_equal_binary_runs(n_classes, n_features,
                                                      single, seed):
    # A dense sample's rows are scored up to five at a time (one read of x
    # for all of them); each row must keep the bits of its binary run, whose
    # one row is scored alone, for any count of rows, any n_features % 8
    # entries past the vectors and either precision.  Tenths are inexact in
    # binary: many exact margins are 0, and the sign of the computed one
    # depends on the order of the sums, so another order shows as another
    # update.
    rng = np.random.RandomState(seed)
    X = rng.randint(-3, 4, size=(20 * n_classes, n_features)) * 0.1
    X = X.astype(np.float32 if single else np.float64)
    y = np.arange(X.shape[0]) % n_classes
    params = dict(shuffle=False, tol=None, max_iter=5)
    multi = fit_quiet(Perceptron(**params), X, y)
    for k in range(n_classes):
        binary = fit_quiet(Perceptron(**params), X, (y == k).astype(int))
        np.testing.assert_array_equal(multi.coef_[k], binary.coef_[0])
        np.testing.assert_array_equal(multi.intercept_[k], binary.intercept_[0])


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("estimator", [Perceptron(average=True),
                                       MarginPerceptron(margin=0.5)])
def test_many_class_rows_equal_binary_runs(estimator, sparse):
    # More classes than the compiled visit scores in one block (32): each
    # row must still see exactly its binary run, zero-weight samples too.
    n_classes = 37
    X, y = make_blobs(n_samples=8 * n_classes, centers=n_classes,
                      n_features=9, random_state=0)
    sample_weight = np.random.RandomState(1).uniform(0.5, 1.5, size=len(y))
    sample_weight[::7] = 0.0
    X = sp.csr_matrix(X) if sparse else X
    params = dict(shuffle=False, tol=None, max_iter=3)
    multi = fit_quiet(clone(estimator).set_params(**params), X, y,
                      sample_weight=sample_weight)
    for k in range(n_classes):
        binary = fit_quiet(clone(estimator).set_params(**params), X,
                           (y == k).astype(int), sample_weight=sample_weight)
        np.testing.assert_array_equal(multi.coef_[k], binary.coef_[0])
        np.testing.assert_array_equal(multi.intercept_[k], binary.intercept_[0])


@settings(deadline=None, max_examples=40)
@given(
    n_classes=st.integers(3, 40),
    n_extra=st.integers(0, 150),
    sparse=st.booleans(),
    margin=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_shuffled_rows_equal_binary_runs(n_classes, n_extra, sparse, margin,
                                        seed):
    # A one-vs-all pass scores a sample's rows in groups of up to 32, and
    # keeps the row pointers of the table from visit to visit: for any
    # number of samples and of classes (one group or two), in shuffled
    # order, each row must keep the bits of its binary run, averaged or with
    # the margin rule, zero-weight samples included.
    rng = np.random.RandomState(seed)
    y = np.concatenate([np.arange(n_classes), rng.randint(0, n_classes, n_extra)])
    X = rng.standard_normal((len(y), 7))
    X[np.arange(len(y)), y % 7] += 2.0
    sample_weight = rng.uniform(0.5, 1.5, size=len(y))
    sample_weight[::5] = 0.0
    X = sp.csr_matrix(X) if sparse else X
    # Averaging and the margin rule carry the visit counts of every block.
    params = dict(shuffle=True, random_state=seed, tol=None, max_iter=3)
    estimator = (MarginPerceptron(margin=0.5, average=True, **params) if margin
                 else Perceptron(average=True, **params))
    multi = fit_quiet(clone(estimator), X, y, sample_weight=sample_weight)
    for k in range(n_classes):
        binary = fit_quiet(clone(estimator), X, (y == k).astype(int),
                           sample_weight=sample_weight)
        np.testing.assert_array_equal(multi.coef_[k], binary.coef_[0])
        np.testing.assert_array_equal(multi.intercept_[k], binary.intercept_[0])


@pytest.mark.parametrize("sparse", [False, True])
def test_overflowing_multiclass_margin_raises(sparse):
    # A score w_k . x = inf - inf in any row of a multiclass visit stops
    # the fit, as in the binary case.
    X = np.array([[1, 1], [1, -3], [-1, -1], [-1, 3], [3, 1]]) * 1e155
    X = sp.csr_matrix(X) if sparse else X
    clf = Perceptron(shuffle=False)
    with pytest.raises(ValueError, match="margin w . x overflowed"):
        clf.fit(X, [0, 1, 2, 2, 1])
    assert not hasattr(clf, "coef_")


def test_multiclass_predict_is_argmax(iris):
    X, y = iris
    clf = fit_quiet(fast_perceptron(), X, y)
    scores = clf.decision_function(X)
    assert scores.shape == (150, 3)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[scores.argmax(axis=1)])


def test_multiclass_one_pass_per_epoch_counts(iris):
    X, y = iris
    clf = fit_quiet(fast_perceptron(max_iter=3), X, y)
    assert len(clf.mistakes_per_epoch_) == 3
    assert clf.n_mistakes_ == sum(clf.mistakes_per_epoch_)


# ---------------------------------------------------------------------------
# Stopping rules and diagnostics


def test_zero_update_epoch_converges():
    X, y = separable_data(0)
    clf = Perceptron(tol=None, shuffle=False).fit(X, y)
    assert clf.converged_
    assert clf.mistakes_per_epoch_[-1] == 0
    assert all(m > 0 for m in clf.mistakes_per_epoch_[:-1])
    assert clf.n_iter_ == len(clf.mistakes_per_epoch_)
    assert clf.score(X, y) == 1.0


def test_tol_rule_stops_on_non_separable_data():
    X, y = make_classification(n_samples=300, flip_y=0.2, random_state=0)
    clf = Perceptron(tol=1e-3, n_iter_no_change=3, max_iter=1000).fit(X, y)
    assert not clf.converged_
    assert clf.n_iter_ < 1000
    # The rule: the last n_iter_no_change epochs did not beat best - tol * n.
    updates = np.array(clf.mistakes_per_epoch_)
    best_before = updates[: -3].min()
    assert np.all(updates[-3:] > best_before - 1e-3 * len(y))


def test_convergence_warning_at_max_iter():
    X, y = make_classification(n_samples=200, flip_y=0.3, random_state=0)
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        clf = Perceptron(tol=None, max_iter=3).fit(X, y)
    assert clf.n_iter_ == 3
    assert not clf.converged_


def test_early_stopping_keeps_best_epoch():
    X, y = make_classification(n_samples=400, flip_y=0.15, random_state=1)
    clf = Perceptron(early_stopping=True, validation_fraction=0.2, tol=1e-3,
                     n_iter_no_change=3, random_state=0).fit(X, y)
    assert clf.n_iter_ < 1000
    # Recompute the validation split and the per-epoch validation accuracy.
    from sklearn.utils import check_random_state

    from sklearn_perceptrons._core.training import validation_split

    _, val_idx = validation_split(len(y), 0.2, check_random_state(0))
    best_acc = max(
        _validation_accuracies(X, y, val_idx, clf.n_iter_, random_state=0)
    )
    assert np.mean(clf.predict(X[val_idx]) == y[val_idx]) == pytest.approx(best_acc)


def _validation_accuracies(X, y, val_idx, n_epochs, random_state):
    """Validation accuracy after each epoch, refitting with max_iter=e.

    With early_stopping=True and tol=None the best epoch over exactly
    ``e`` epochs is kept, so we run without early stopping on the same
    training rows and order instead: the same split, the same permutations.
    """
    accuracies = []
    for epochs in range(1, n_epochs + 1):
        clf = fit_quiet(
            Perceptron(early_stopping=True, tol=None, max_iter=epochs,
                       validation_fraction=0.2, random_state=random_state,
                       n_iter_no_change=10_000),
            X, y,
        )
        accuracies.append(np.mean(clf.predict(X[val_idx]) == y[val_idx]))
    return accuracies


def test_verbose_prints_one_line_per_epoch(capsys):
    X, y = separable_data(2)
    clf = Perceptron(verbose=1, tol=None).fit(X, y)
    lines = [line for line in capsys.readouterr().out.splitlines() if line]
    assert len(lines) == clf.n_iter_ + 1
    assert re.match(r"-- Epoch 1 of 1000: updates \d+, \|\|w\|\| [\d.e+-]+, ",
                    lines[0])
    assert lines[-1].startswith(f"-- Stopped after {clf.n_iter_} epochs (converged)")


# ---------------------------------------------------------------------------
# Weights, warm start, partial_fit


def test_sample_weight_scales_updates():
    X, y = separable_data(5)
    a = fit_quiet(fast_perceptron(eta0=3.0), X, y)
    b = fit_quiet(fast_perceptron(), X, y, sample_weight=np.full(len(y), 3.0))
    np.testing.assert_allclose(a.coef_, b.coef_)
    np.testing.assert_allclose(a.intercept_, b.intercept_)


def test_zero_weight_samples_never_update():
    X, y = separable_data(6)
    weights = np.ones(len(y))
    weights[::3] = 0.0
    a = fit_quiet(fast_perceptron(), X, y, sample_weight=weights)
    keep = weights > 0
    b = fit_quiet(fast_perceptron(), X[keep], y[keep])
    np.testing.assert_allclose(a.coef_, b.coef_)
    assert a.mistakes_per_epoch_ == b.mistakes_per_epoch_


def test_class_weight_balanced():
    X, y = make_blobs(n_samples=[100, 20], centers=[[0, 0], [1.5, 1.5]],
                      random_state=0)
    clf = fit_quiet(fast_perceptron(class_weight="balanced"), X, y)
    weights = len(y) / (2 * np.bincount(y))
    ref = fit_quiet(fast_perceptron(), X, y, sample_weight=weights[y])
    np.testing.assert_allclose(clf.coef_, ref.coef_)


def test_warm_start_continues_from_last_iterate():
    X, y = make_classification(n_samples=100, random_state=2)
    full = fit_quiet(fast_perceptron(max_iter=6), X, y)
    half = fit_quiet(fast_perceptron(max_iter=3, warm_start=True), X, y)
    fit_quiet(half, X, y)
    np.testing.assert_allclose(half.coef_, full.coef_)


def test_coef_init_is_the_starting_point():
    X, y = make_classification(n_samples=100, random_state=3)
    w0 = np.random.RandomState(0).randn(1, X.shape[1])
    clf = fit_quiet(fast_perceptron(max_iter=2), X, y, coef_init=w0,
                    intercept_init=[0.5])
    iterates, _ = perceptron_epochs(
        X, 2 * y - 1, [np.arange(100)] * 2, w0=np.append(w0.ravel(), 0.5)
    )
    coef, intercept = split_weights(iterates[-1], True)
    np.testing.assert_allclose(clf.coef_.ravel(), coef)
    np.testing.assert_allclose(clf.intercept_, [intercept])
    with pytest.raises(ValueError, match="coef_init has shape"):
        fast_perceptron().fit(X, y, coef_init=np.zeros(3))


def test_partial_fit_equals_one_epoch_of_fit():
    X, y = make_classification(n_samples=100, n_classes=3, n_informative=4,
                               random_state=4)
    fitted = fit_quiet(fast_perceptron(max_iter=1), X, y)
    online = fast_perceptron().partial_fit(X, y, classes=np.unique(y))
    np.testing.assert_allclose(online.coef_, fitted.coef_)
    assert online.n_mistakes_ == fitted.n_mistakes_


def test_partial_fit_streaming_one_row_at_a_time():
    X, y = make_classification(n_samples=80, random_state=5)
    batch = fast_perceptron(average=True).partial_fit(X, y, classes=[0, 1])
    stream = fast_perceptron(average=True)
    for i in range(len(y)):
        stream.partial_fit(X[i:i + 1], y[i:i + 1], classes=[0, 1])
    np.testing.assert_allclose(stream.coef_, batch.coef_, rtol=1e-10)
    assert stream.n_mistakes_ == batch.n_mistakes_
    assert len(stream.mistakes_per_epoch_) == 80
    assert stream.n_iter_ == 80


def test_partial_fit_class_absent_from_batch(iris):
    X, y = iris
    clf = fast_perceptron()
    clf.partial_fit(X[y != 2], y[y != 2], classes=[0, 1, 2])
    assert clf.coef_.shape == (3, 4)
    clf.partial_fit(X, y)
    assert set(clf.predict(X)) <= {0, 1, 2}


# ---------------------------------------------------------------------------
# Input handling: dtypes, sparse, copies, labels


@pytest.mark.parametrize("average", [False, True])
def test_dense_equals_sparse(average):
    X, y = make_classification(n_samples=120, n_classes=3, n_informative=5,
                               random_state=6)
    X[np.abs(X) < 0.8] = 0.0
    dense = fit_quiet(Perceptron(average=average, max_iter=20), X, y)
    sparse = fit_quiet(Perceptron(average=average, max_iter=20), sp.csr_matrix(X), y)
    np.testing.assert_allclose(dense.coef_, sparse.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(
        dense.decision_function(X), sparse.decision_function(sp.csr_matrix(X)),
        rtol=1e-10, atol=1e-10,
    )


def test_float32_kept_and_close_to_float64():
    X, y = make_classification(n_samples=200, random_state=7)
    X = np.round(X, 2)
    c64 = fit_quiet(fast_perceptron(max_iter=3), X, y)
    c32 = fit_quiet(fast_perceptron(max_iter=3), X.astype(np.float32), y)
    assert c32.coef_.dtype == np.float32
    assert c32.intercept_.dtype == np.float32
    assert c64.coef_.dtype == np.float64
    np.testing.assert_allclose(c32.coef_, c64.coef_, rtol=1e-4, atol=1e-4)
    assert c32.decision_function(X.astype(np.float32)).dtype == np.float32


@pytest.mark.parametrize("kind", ["dense32", "csr32", "dense64"])
def test_fit_does_not_copy_X(kind):
    # P9: the extra memory of fit stays below 10% of X.  (Per-sample
    # bookkeeping - order, labels, update sizes - is O(n_samples), so X has
    # enough features per row for a copy of X to stand out.)
    rng = np.random.RandomState(0)
    X = rng.randn(20_000, 200)
    if kind.endswith("32"):
        X = X.astype(np.float32)
    if kind.startswith("csr"):
        X[rng.rand(*X.shape) < 0.7] = 0.0
        X = sp.csr_matrix(X)
    y = rng.randint(0, 2, size=X.shape[0])
    size = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes if sp.issparse(X) \
        else X.nbytes
    clf = Perceptron(max_iter=3, tol=None, shuffle=True)
    tracemalloc.start()
    try:
        fit_quiet(clf, X, y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 0.1 * size, (peak, size)


def test_string_and_bool_labels():
    X, y = separable_data(8)
    labels = np.array(["no", "yes"])[y]
    clf = Perceptron().fit(X, labels)
    np.testing.assert_array_equal(clf.classes_, ["no", "yes"])
    assert set(clf.predict(X)) <= {"no", "yes"}
    ref = Perceptron().fit(X, y)
    np.testing.assert_allclose(clf.coef_, ref.coef_)
    clf_bool = Perceptron().fit(X, y.astype(bool))
    np.testing.assert_array_equal(clf_bool.classes_, [False, True])
    np.testing.assert_allclose(clf_bool.coef_, ref.coef_)


def test_whole_number_float_labels():
    X, y = separable_data(9)
    clf = Perceptron().fit(X, y.astype(float) * 2 - 1)
    np.testing.assert_array_equal(clf.classes_, [-1.0, 1.0])


def test_pandas_feature_names():
    pd = pytest.importorskip("pandas")
    X, y = separable_data(10)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    clf = Perceptron().fit(frame, y)
    np.testing.assert_array_equal(clf.feature_names_in_, frame.columns)
    np.testing.assert_array_equal(clf.predict(frame), clf.predict(X))


def test_deterministic_for_fixed_random_state():
    X, y = make_classification(n_samples=200, flip_y=0.1, random_state=11)
    a = fit_quiet(Perceptron(random_state=5), X, y)
    b = fit_quiet(Perceptron(random_state=5), X, y)
    c = fit_quiet(Perceptron(random_state=6), X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.coef_, c.coef_)
    d = fit_quiet(Perceptron(), X, y)
    e = fit_quiet(Perceptron(), X, y)
    np.testing.assert_array_equal(d.coef_, e.coef_)


def test_no_predict_proba():
    X, y = separable_data(12)
    clf = Perceptron().fit(X, y)
    for name in ("predict_proba", "predict_log_proba"):
        assert not hasattr(clf, name)
        with pytest.raises(AttributeError):
            getattr(clf, name)


def test_pickle_round_trip(iris):
    X, y = iris
    clf = fit_quiet(Perceptron(average=True), X, y)
    clone_ = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clone_.predict(X), clf.predict(X))
    np.testing.assert_array_equal(clone_.decision_function(X), clf.decision_function(X))
    # The unpickled model keeps learning online exactly like the original.
    clf.partial_fit(X[:10], y[:10])
    clone_.partial_fit(X[:10], y[:10])
    np.testing.assert_array_equal(clone_.coef_, clf.coef_)


# ---------------------------------------------------------------------------
# Errors: clear, early, and leaving a fitted estimator untouched


def _fitted():
    X, y = separable_data(13)
    return Perceptron().fit(X, y), X, y


def _assert_unchanged(clf, before):
    after = clf.__dict__
    assert set(after) == set(before)
    for key, value in before.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(after[key], value)
        elif key != "_state":
            assert after[key] == value, key


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda c, X, y: c.fit(np.where(X > 1, np.nan, X), y), ValueError, "NaN"),
        (lambda c, X, y: c.fit(np.where(X > 1, np.inf, X), y), ValueError, "infinity"),
        (lambda c, X, y: c.fit(X, np.zeros_like(y)), ValueError, "class"),
        (lambda c, X, y: c.fit(X[:, :2], y[:5]), ValueError, "inconsistent"),
        (lambda c, X, y: c.fit(X, y, sample_weight=-np.ones(len(y))), ValueError,
         "Negative.*must be >= 0"),
        (lambda c, X, y: c.predict(X[:, :2]), ValueError, "features"),
        (lambda c, X, y: c.partial_fit(X[:, :2], y), ValueError, "features"),
        (lambda c, X, y: c.partial_fit(X, y + 5), ValueError, "not in classes"),
        (lambda c, X, y: c.partial_fit(X, y, classes=[0, 1, 2]), ValueError,
         "not the same"),
        (lambda c, X, y: c.partial_fit(np.full_like(X, np.nan), y), ValueError,
         "NaN"),
        (lambda c, X, y: c.set_params(max_iter=0).fit(X, y), InvalidParameterError,
         "max_iter"),
        (lambda c, X, y: c.set_params(threshold=-1.0).fit(X, y),
         InvalidParameterError, "threshold"),
        (lambda c, X, y: c.set_params(class_weight="bad").fit(X, y),
         InvalidParameterError, "class_weight"),
        (lambda c, X, y: c.fit(X, y + 0.5), ValueError, "Unknown label type"),
    ],
)
def test_errors_leave_fitted_estimator_unchanged(call, error, match):
    clf, X, y = _fitted()
    before = dict(clf.__dict__)
    params = clf.get_params()
    with pytest.raises(error, match=match):
        call(clf, X, y)
    clf.set_params(**params)
    _assert_unchanged(clf, before)


def test_single_class_message_names_the_class():
    X, _ = separable_data(14)
    with pytest.raises(ValueError, match="only one class: 'spam'"):
        Perceptron().fit(X, np.array(["spam"] * len(X)))


def test_not_fitted():
    X, _ = separable_data(15)
    for method in ("predict", "decision_function", "score"):
        with pytest.raises(NotFittedError):
            getattr(Perceptron(), method)(X, *([np.zeros(len(X))] if method == "score"
                                               else []))


def test_first_partial_fit_needs_classes():
    X, y = separable_data(16)
    with pytest.raises(ValueError, match="classes must be passed"):
        Perceptron().partial_fit(X, y)
    with pytest.raises(ValueError, match="balanced"):
        Perceptron(class_weight="balanced").partial_fit(X, y, classes=[0, 1])


def test_overflow_raises_instead_of_nan_weights():
    X = np.array([[1e308, 1e308], [-1e308, 1e308]])
    clf = Perceptron(eta0=10.0, tol=None, max_iter=5)
    with pytest.raises(ValueError, match="non-finite"):
        clf.fit(X, [0, 1])
    assert not hasattr(clf, "coef_")


@pytest.mark.parametrize("dtype, scale", [(np.float64, 1e155), (np.float32, 1e20)])
@pytest.mark.parametrize("sparse", [False, True])
def test_overflowing_margin_raises_instead_of_a_wrong_model(dtype, scale, sparse):
    # w . x = inf - inf is no number: it used to count as "no mistake", and
    # this fit ended converged_=True with a model scoring 0.5 (issue #18).
    X = (np.array([[1, 1], [1, -3], [-1, -1], [-1, 3]]) * scale).astype(dtype)
    X = sp.csr_matrix(X) if sparse else X
    y = [1, 1, 0, 0]
    for clf in (Perceptron(shuffle=False), MarginPerceptron(margin=1.0),
                Perceptron(shuffle=False).fit(np.eye(2), [0, 1])):
        before = pickle.dumps(clf)
        with pytest.raises(ValueError, match="margin w . x overflowed"):
            clf.fit(X, y)
        assert pickle.dumps(clf) == before
    stream = Perceptron().partial_fit(np.eye(2, dtype=dtype), [0, 1], classes=[0, 1])
    before = pickle.dumps(stream)
    with pytest.raises(ValueError, match="overflowed"):
        stream.partial_fit(X, y)
    assert pickle.dumps(stream) == before
    # The same data, scaled to a representable range, are learned.
    assert Perceptron(shuffle=False).fit(X / scale, y).score(X / scale, y) == 1.0


# ---------------------------------------------------------------------------
# The scikit-learn ecosystem


def test_pipeline_gridsearch_and_cross_validation(iris):
    X, y = iris
    pipe = make_pipeline(StandardScaler(), Perceptron())
    search = GridSearchCV(
        pipe, {"perceptron__threshold": [0.0, 1.0], "perceptron__average": [False, True]},
        cv=3,
    ).fit(X, y)
    assert search.best_score_ > 0.8
    assert set(search.best_params_) == {"perceptron__threshold", "perceptron__average"}
    scores = cross_val_score(make_pipeline(StandardScaler(), Perceptron(average=True)),
                             X, y, cv=5)
    assert scores.mean() > 0.85


def test_partial_fit_streaming_loop_learns():
    X, y = make_classification(n_samples=3000, n_informative=5, random_state=0)
    X_test, y_test = X[2500:], y[2500:]
    clf = Perceptron(average=True)
    for start in range(0, 2500, 100):
        clf.partial_fit(X[start:start + 100], y[start:start + 100], classes=[0, 1])
    assert clf.score(X_test, y_test) > 0.8
    assert len(clf.mistakes_per_epoch_) == 25


def test_clone_keeps_params_only():
    clf = Perceptron(threshold=0.5, average=True)
    X, y = separable_data(17)
    clf.fit(X, y)
    fresh = clone(clf)
    assert fresh.get_params() == clf.get_params()
    assert not hasattr(fresh, "coef_")


@pytest.mark.parametrize("first, then", [(np.float32, np.float64), (np.float64, np.float32)])
def test_partial_fit_batches_of_the_other_float_type(first, then):
    X, y = make_classification(n_samples=60, random_state=18)
    X = np.round(X, 2)
    mixed = fast_perceptron().partial_fit(X[:30].astype(first), y[:30], classes=[0, 1])
    mixed.partial_fit(X[30:].astype(then), y[30:])
    assert mixed.coef_.dtype == first
    same = fast_perceptron().partial_fit(X[:30].astype(first), y[:30], classes=[0, 1])
    same.partial_fit(X[30:].astype(then).astype(first), y[30:])
    np.testing.assert_array_equal(mixed.coef_, same.coef_)


def test_intercept_init_without_fit_intercept():
    X, y = separable_data(19)
    with pytest.raises(ValueError, match="fit_intercept=False"):
        Perceptron(fit_intercept=False).fit(X, y, intercept_init=[1.0])
    clf = Perceptron(fit_intercept=False).fit(X, y, intercept_init=[0.0])
    np.testing.assert_array_equal(clf.intercept_, [0.0])
    # A warm start from a model with an intercept drops it.
    warm = Perceptron().fit(X, y)
    warm.set_params(fit_intercept=False, warm_start=True).fit(X, y)
    np.testing.assert_array_equal(warm.intercept_, [0.0])


def test_verbose_partial_fit_prints_one_line_per_call(capsys):
    X, y = separable_data(20)
    clf = Perceptron(verbose=1)
    clf.partial_fit(X, y, classes=[0, 1])
    clf.partial_fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["-- partial_fit pass 1",
                                                      "-- partial_fit pass 2"]
    assert f"updates {clf.mistakes_per_epoch_[1]}," in lines[1]
