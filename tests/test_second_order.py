# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of SecondOrderPerceptron: the paper's rule, its bound, the contract."""

import importlib
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _reference import padded, split_weights
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_perceptrons import Perceptron, SecondOrderPerceptron
from sklearn_perceptrons._linear import second_order
from sklearn_perceptrons._core.cpu import cpu_has_avx2
from sklearn_perceptrons.bounds import max_margin, second_order_mistake_bound

# Most fits here run a fixed number of epochs on purpose.
pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning")


def second_order_reference(X, signs, orders, *, a=1.0, c=None,
                           fit_intercept=True, diagonal=False, matrix=False):
    """The paper's second-order perceptron, literally (O(d³) per visit).

    Predicts ``v^T (a I + S S^T + x x^T)^-1 x`` (the diagonal variant:
    ``v^T diag(a I + S S^T)^-1 x``), with ``S`` the mistakes so far, each
    entering as ``c x x^T`` and ``v`` as ``c s x``; a zero score is a
    mistake.  Returns the padded weights ``w = A^-1 v`` after every visit and
    the mistakes of every epoch (and the final ``A`` if ``matrix``).
    """
    Xp = padded(X, fit_intercept)
    n, p = Xp.shape
    c = np.ones(n) if c is None else np.asarray(c, dtype=float)
    A = a * np.eye(p)
    v = np.zeros(p)
    iterates, mistakes = [], []
    for order in orders:
        count = 0
        for i in order:
            x = Xp[i]
            if diagonal:
                score = v @ (x / np.diag(A))
            else:
                score = v @ np.linalg.solve(A + np.outer(x, x), x)
            if signs[i] * score <= 0 and c[i] != 0:
                A = A + c[i] * np.outer(x, x)
                v = v + c[i] * signs[i] * x
                count += 1
            w = v / np.diag(A) if diagonal else np.linalg.solve(A, v)
            iterates.append(w)
        mistakes.append(count)
    return (iterates, mistakes, A) if matrix else (iterates, mistakes)


def cyclic(**params):
    defaults = dict(shuffle=False, tol=None, max_iter=3, random_state=0)
    defaults.update(params)
    return SecondOrderPerceptron(**defaults)


def fit_quiet(estimator, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(*args, **kwargs)


def correlated_data(seed, n_samples=60, n_features=4, n_classes=2, noise=0.1):
    """Correlated, badly scaled features; labels from random hyperplanes,
    with a fraction ``noise`` of them flipped."""
    rng = np.random.RandomState(seed)
    mixing = rng.normal(size=(n_features, n_features))
    X = rng.normal(size=(n_samples, n_features)) @ mixing
    X *= np.logspace(0, -1.5, n_features)
    if n_classes == 2:
        y = (X @ rng.normal(size=n_features) + 0.1 > 0).astype(int)
    else:
        y = np.argmax(X @ rng.normal(size=(n_features, n_classes)), axis=1)
    flip = rng.rand(n_samples) < noise
    y[flip] = rng.randint(0, n_classes, size=flip.sum())
    return X, y


def one_by_one(clf, X, y, classes, epochs=1):
    """Feed the rows one at a time; return the indices of the mistakes."""
    mistakes = []
    for _ in range(epochs):
        for i in range(X.shape[0]):
            before = getattr(clf, "n_mistakes_", 0)
            clf.partial_fit(X[i:i + 1], y[i:i + 1], classes=classes)
            mistakes += [i] * (clf.n_mistakes_ - before)
    return np.asarray(mistakes, dtype=int)


# ---------------------------------------------------------------------------
# The rule: the compiled pass against the paper's pseudo-code
# ---------------------------------------------------------------------------


def two_cycles_equal_reference(clf, X, y, fit_intercept, **options):
    """Assert that ``clf``, fitted by two cycles over X in order, has the
    weights and mistakes of the NumPy reference; returns the reference's
    result."""
    result = second_order_reference(
        X, np.where(y == 1, 1.0, -1.0), [np.arange(X.shape[0])] * 2,
        fit_intercept=fit_intercept, **options)
    iterates, mistakes = result[:2]
    coef, intercept = split_weights(iterates[-1], fit_intercept)
    assert_allclose(clf.coef_[0], coef, rtol=1e-9, atol=1e-12)
    assert_allclose(clf.intercept_[0], intercept, rtol=1e-9, atol=1e-12)
    assert clf.mistakes_per_epoch_ == mistakes
    return result


@pytest.mark.parametrize("diagonal", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_fit_matches_the_reference(diagonal, sparse, fit_intercept, n_classes):
    X, y = correlated_data(0, n_classes=n_classes)
    # Real zeros, so that CSR rows skip columns; the first column is kept, so
    # no row is all zero (its score would be an exact tie of rounding).
    X[:, 1:][np.abs(X[:, 1:]) < 0.3] = 0.0
    a = 0.7
    clf = cyclic(a=a, diagonal=diagonal, fit_intercept=fit_intercept)
    clf.fit(sp.csr_matrix(X) if sparse else X, y)
    orders = [np.arange(X.shape[0])] * 3
    rows = [1] if n_classes == 2 else range(n_classes)
    total = np.zeros(3, dtype=int)
    for k, cls in enumerate(rows):
        signs = np.where(y == cls, 1.0, -1.0)
        iterates, mistakes = second_order_reference(
            X, signs, orders, a=a, fit_intercept=fit_intercept, diagonal=diagonal)
        coef, intercept = split_weights(iterates[-1], fit_intercept)
        assert_allclose(clf.coef_[k], coef, rtol=1e-9, atol=1e-12)
        assert_allclose(clf.intercept_[k], intercept, rtol=1e-9, atol=1e-12)
        total += mistakes
    assert clf.mistakes_per_epoch_ == total.tolist()
    assert clf.n_mistakes_ == total.sum() > 0


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), n_features=st.integers(1, 14),
       fit_intercept=st.booleans(), sparse=st.booleans())
def test_full_mode_matches_the_reference_at_every_size(seed, n_features,
                                                       fit_intercept, sparse):
    # The inverse is stored in 4 x 4 blocks, padded to a multiple of 4: every
    # remainder of p = n_features + fit_intercept, and sizes with blocks off
    # the diagonal, follow the paper's rule; the padding stays zero.
    X, y = correlated_data(seed, n_samples=40, n_features=n_features)
    # Real zeros for CSR rows, never in the first column (no all-zero row).
    X[:, 1:][np.abs(X[:, 1:]) < 0.3 * np.abs(X).mean()] = 0.0
    clf = cyclic(fit_intercept=fit_intercept, max_iter=2)
    clf.fit(sp.csr_matrix(X) if sparse else X, y)
    A = two_cycles_equal_reference(clf, X, y, fit_intercept, matrix=True)[2]
    from sklearn_perceptrons._linear.second_order import _packed_positions

    p = n_features + fit_intercept
    pp = -(-p // 4) * 4
    rows, cols = _packed_positions(pp)
    stored = clf._state.inverse[0]
    assert stored.shape == rows.shape
    assert not stored[(rows >= p) | (cols >= p)].any()
    # The kept inverse is that of A = a I + the mistakes' x x^T.
    assert_allclose(clf._state.inverse_matrix()[0] @ A, np.eye(p), atol=1e-9)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), n_features=st.integers(1, 30),
       fit_intercept=st.booleans())
def test_diagonal_mode_matches_the_reference_at_every_row_length(
        seed, n_features, fit_intercept):
    # CSR rows of every density: shorter and longer than the eight partial
    # sums of the sparse dot product, with and without a remainder.
    X, y = correlated_data(seed, n_samples=40, n_features=n_features)
    rng = np.random.RandomState(seed)
    X[:, 1:][rng.rand(40, n_features - 1) < rng.rand(40, 1)] = 0.0
    clf = cyclic(diagonal=True, fit_intercept=fit_intercept, max_iter=2)
    clf.fit(sp.csr_matrix(X), y)
    two_cycles_equal_reference(clf, X, y, fit_intercept, diagonal=True)


def _both_builds(*features):
    """The AVX2 and the baseline build of the compiled epoch (skips when this
    CPU lacks AVX2 or ``features``, or the platform has no AVX2 build)."""
    if not cpu_has_avx2(*features):
        pytest.skip(f"this CPU lacks AVX2 {' '.join(features)}")
    try:
        avx2 = importlib.import_module(
            "sklearn_perceptrons._linear._second_order_fast_avx2")
    except ImportError:
        pytest.skip("the AVX2 build is not available on this platform")
    return avx2, importlib.import_module("sklearn_perceptrons._linear._second_order_fast")


def fits_of_both_builds(estimator, X, y, monkeypatch, *features):
    """``estimator`` fitted on X, y by the AVX2 build and by the baseline
    build of the compiled epoch (a fresh clone for each)."""
    fits = []
    for module in _both_builds(*features):
        monkeypatch.setattr(second_order, "_EPOCH", {
            (np.dtype(dtype), sparse): getattr(module, f"epoch_{kind}")[name]
            for dtype, name in ((np.float64, "double"), (np.float32, "float"))
            for sparse, kind in ((False, "dense"), (True, "csr"))
        })
        fits.append(clone(estimator).fit(X, y))
    return fits


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sparse", [False, True])
def test_diagonal_mode_avx2_build_equals_baseline_build(dtype, sparse,
                                                        monkeypatch):
    # The diagonal mode fuses nothing: its sparse dot product gathers the
    # weights in the AVX2 build and loads them one by one in the other, in
    # the same eight partial sums, so both builds give the same bits.
    rng = np.random.RandomState(5)
    X, y = correlated_data(5, n_samples=200, n_features=37, n_classes=3,
                           noise=0.2)
    X[rng.rand(*X.shape) < rng.rand(X.shape[0], 1)] = 0.0
    X = X.astype(dtype)
    if sparse:
        X = sp.csr_matrix(X)
    fits = fits_of_both_builds(
        SecondOrderPerceptron(diagonal=True, max_iter=3, tol=None, average=True),
        X, y, monkeypatch)
    assert fits[0].n_mistakes_ == fits[1].n_mistakes_ > 50
    for name in ("coef", "intercept", "precision", "coef_sum"):
        assert_array_equal(getattr(fits[0]._state, name),
                           getattr(fits[1]._state, name))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sparse", [False, True])
def test_avx2_build_agrees_with_baseline_build(dtype, sparse, monkeypatch):
    # Both builds of the full mode's matrix pass do the same operations in
    # the same order; the AVX2 one fuses its multiply-adds (one rounding in
    # place of two, about 1e-16 relative per operation): the same mistakes,
    # and weights and inverse that agree far below any effect on them.
    X, y = correlated_data(17, n_samples=150, n_features=13, n_classes=3, noise=0.2)
    X = X.astype(dtype)
    if sparse:
        X[np.abs(X) < 0.2 * np.abs(X).mean()] = 0.0
        X = sp.csr_matrix(X)
    fits = [(clf._state.coef, clf._state.intercept, clf._state.inverse,
             clf.n_mistakes_)
            for clf in fits_of_both_builds(
                SecondOrderPerceptron(max_iter=3, tol=None, average=True),
                X, y, monkeypatch, "FMA3")]
    assert fits[0][3] == fits[1][3] > 50
    for a, b in zip(fits[0][:3], fits[1][:3]):
        assert_allclose(a, b, rtol=1e-10, atol=1e-13)
    # Neither build is the other one under another name.
    assert not np.array_equal(fits[0][2], fits[1][2])


@pytest.mark.parametrize("diagonal", [False, True])
def test_average_and_weights_match_the_reference(diagonal):
    X, y = correlated_data(1)
    rng = np.random.RandomState(0)
    weight = rng.uniform(0.2, 2.0, size=X.shape[0])
    weight[::7] = 0.0
    class_weight = {0: 0.5, 1: 2.0}
    c = weight * np.where(y == 1, 2.0, 0.5)
    clf = cyclic(diagonal=diagonal, average=True, a=2.0,
                 class_weight=class_weight)
    clf.fit(X, y, sample_weight=weight)
    iterates, mistakes = second_order_reference(
        X, np.where(y == 1, 1.0, -1.0), [np.arange(X.shape[0])] * 3, a=2.0,
        c=c, diagonal=diagonal)
    coef, intercept = split_weights(np.mean(iterates, axis=0), True)
    assert_allclose(clf.coef_[0], coef, rtol=1e-9, atol=1e-12)
    assert_allclose(clf.intercept_[0], intercept, rtol=1e-9, atol=1e-12)
    assert clf.mistakes_per_epoch_ == mistakes


def test_weight_zero_never_updates():
    X, y = correlated_data(2)
    weight = np.ones(X.shape[0])
    weight[10:] = 0.0
    clf = fit_quiet(cyclic(max_iter=2), X, y, sample_weight=weight)
    only = fit_quiet(cyclic(max_iter=2), X[:10], y[:10])
    assert_allclose(clf.coef_, only.coef_, rtol=1e-12)
    assert clf.n_mistakes_ == only.n_mistakes_


def test_prediction_includes_the_current_sample():
    # sign(v^T (A + x x^T)^-1 x) = sign(w . x): the fitted model's scores on
    # a sample equal the paper's score times 1 + x^T A^-1 x > 0.
    X, y = correlated_data(3, n_samples=30)
    clf = cyclic(max_iter=1, a=0.5).fit(X, y)
    state = clf._state
    M = state.inverse_matrix()[0]
    w = np.append(state.coef[0], state.intercept[0])
    v = np.linalg.solve(M, w)
    Xp = padded(X, True)
    A = np.linalg.inv(M)
    for x in Xp:
        paper = v @ np.linalg.solve(A + np.outer(x, x), x)
        assert_allclose(paper * (1 + x @ M @ x), w @ x, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("diagonal", [False, True])
def test_dense_csr_float32_agree(diagonal):
    X, y = correlated_data(4, n_classes=3)
    dense = cyclic(diagonal=diagonal).fit(X, y)
    csr = cyclic(diagonal=diagonal).fit(sp.csr_matrix(X), y)
    single = cyclic(diagonal=diagonal).fit(X.astype(np.float32), y)
    # Every entry stored: the CSR dot product sums in the dense one's order.
    assert_array_equal(csr.coef_, dense.coef_)
    assert_array_equal(csr.intercept_, dense.intercept_)
    assert single.coef_.dtype == single.intercept_.dtype == np.float32
    assert dense.coef_.dtype == np.float64
    assert_allclose(single.coef_, dense.coef_, rtol=1e-3, atol=1e-4)
    csr32 = cyclic(diagonal=diagonal).fit(sp.csr_matrix(X.astype(np.float32)), y)
    assert csr32.coef_.dtype == np.float32
    assert_array_equal(single.predict(X), csr32.predict(X))


def test_one_vs_all_rows_are_binary_fits():
    X, y = correlated_data(5, n_classes=4, n_samples=80)
    clf = fit_quiet(SecondOrderPerceptron(max_iter=20, random_state=3), X, y)
    for k in range(4):
        binary = fit_quiet(
            SecondOrderPerceptron(max_iter=20, random_state=3), X, y == k)
        # Rows stop on their own rules, exactly as the binary fits do.
        assert_allclose(clf.coef_[k], binary.coef_[0], rtol=1e-12)
        assert_allclose(clf.intercept_[k], binary.intercept_[0], rtol=1e-12)


def test_partial_fit_is_a_cyclic_epoch_and_warm_start_continues():
    X, y = correlated_data(6, n_classes=3)
    streamed = SecondOrderPerceptron()
    for _ in range(3):
        streamed.partial_fit(X, y, classes=[0, 1, 2])
    fitted = cyclic(max_iter=3).fit(X, y)
    assert_allclose(streamed.coef_, fitted.coef_, rtol=1e-12)
    assert streamed.mistakes_per_epoch_ == fitted.mistakes_per_epoch_
    assert streamed.n_iter_ == 3
    warm = cyclic(max_iter=1, warm_start=True).fit(X, y)
    warm.fit(X, y)
    warm.fit(X, y)
    assert_allclose(warm.coef_, fitted.coef_, rtol=1e-12)
    # Without warm_start a fit starts anew.
    cold = cyclic(max_iter=1).fit(X, y)
    assert_allclose(cold.fit(X, y).coef_, cyclic(max_iter=1).fit(X, y).coef_)


@pytest.mark.parametrize("diagonal", [False, True])
def test_early_stopping_keeps_the_best_state(diagonal):
    X, y = correlated_data(7, n_samples=200, noise=0.2)
    clf = SecondOrderPerceptron(diagonal=diagonal, early_stopping=True,
                                n_iter_no_change=3, max_iter=50).fit(X, y)
    assert clf.n_iter_ < 50
    assert len(clf.mistakes_per_epoch_) == clf.n_iter_
    assert clf.score(X, y) > 0.7


@pytest.mark.parametrize("diagonal", [False, True])
def test_early_stopping_returns_the_best_epoch_of_every_row(diagonal):
    # Fits of 1, 2, ... epochs share the split and the orders (one seed): the
    # kept model's validation accuracy never drops, and the model changes
    # only when that accuracy rose.
    from sklearn_perceptrons._core.training import validation_split

    X, y = correlated_data(13, n_samples=150, n_classes=3, noise=0.3)
    _, val = validation_split(X.shape[0], 0.1, np.random.RandomState(5))
    previous_acc, previous_coef = None, None
    for k in range(1, 7):
        clf = fit_quiet(SecondOrderPerceptron(
            diagonal=diagonal, early_stopping=True, tol=None, max_iter=k,
            random_state=5, average=True), X, y)
        scores = clf.decision_function(X[val])
        acc = np.array([np.mean((scores[:, j] > 0) == (y[val] == j))
                        for j in range(3)])
        if previous_acc is not None:
            assert np.all(acc >= previous_acc)
            same = acc == previous_acc
            assert_array_equal(clf.coef_[same], previous_coef[same])
        previous_acc, previous_coef = acc, clf.coef_


def test_separable_data_converge():
    X, y = correlated_data(8, n_samples=100, noise=0.0)
    clf = SecondOrderPerceptron(tol=None).fit(X, y)
    assert clf.converged_
    assert clf.score(X, y) == 1.0
    assert clf.mistakes_per_epoch_[-1] == 0


def test_fewer_mistakes_than_the_perceptron_on_correlated_features():
    # The paper's claim, on the kind of data it is made for: correlated,
    # badly scaled features, labels with noise in the score (3% of them
    # on the wrong side of the true hyperplane).
    rng = np.random.RandomState(0)
    n, d = 3000, 20
    X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) * np.logspace(0, -2, d)
    score = X @ rng.normal(size=d)
    y = (score + 0.1 * score.std() * rng.normal(size=n) > 0).astype(int)
    second = SecondOrderPerceptron().partial_fit(X, y, classes=[0, 1])
    first = Perceptron().partial_fit(X, y, classes=[0, 1])
    assert second.n_mistakes_ < 0.8 * first.n_mistakes_


# ---------------------------------------------------------------------------
# Theorem 1, checked against fits
# ---------------------------------------------------------------------------


@settings(max_examples=15)
@given(seed=st.integers(0, 10**6), a=st.floats(0.05, 20.0),
       noise=st.sampled_from([0.0, 0.1, 0.3]), epochs=st.integers(1, 3))
def test_mistakes_obey_theorem_1(seed, a, noise, epochs):
    X, y = correlated_data(seed, n_samples=40, n_features=3, noise=noise)
    clf = SecondOrderPerceptron(a=a)
    mistakes = one_by_one(clf, X, y, [0, 1], epochs=epochs)
    assert mistakes.shape[0] == clf.n_mistakes_
    signs = np.where(y == 1, 1.0, -1.0)
    if noise == 0.0 and len(np.unique(y)) == 2:
        gamma, coef, intercept = max_margin(X, y)
        if gamma > 0:
            # The unit max-margin vector has no hinge loss at its margin.
            bound = second_order_mistake_bound(
                X[mistakes], signs[mistakes], coef, a=a, gamma=gamma,
                intercept=intercept)
            assert clf.n_mistakes_ <= bound * (1 + 1e-9)
    # Any vector and margin level: the hinge losses pay for the noise.
    rng = np.random.RandomState(seed)
    for _ in range(3):
        u = rng.normal(size=3)
        b = rng.normal()
        gamma = rng.uniform(0.1, 3.0)
        bound = second_order_mistake_bound(
            X[mistakes], y[mistakes], u, a=a, gamma=gamma, intercept=b,
            classes=[0, 1])
        assert clf.n_mistakes_ <= bound * (1 + 1e-9)


def test_fit_obeys_theorem_1_over_all_epochs():
    # A shuffled multi-epoch fit is one sequence: replay its orders through
    # partial_fit to know which samples were mistaken.
    X, y = correlated_data(9, n_samples=50, noise=0.15)
    fitted = fit_quiet(SecondOrderPerceptron(max_iter=4, tol=None, a=0.5,
                                             shuffle=False), X, y)
    replay = SecondOrderPerceptron(a=0.5)
    mistakes = one_by_one(replay, X, y, [0, 1], epochs=4)
    assert replay.n_mistakes_ == fitted.n_mistakes_
    u = fitted.coef_[0] / np.linalg.norm(fitted.coef_[0])
    for gamma in (0.05, 0.5, 2.0):
        bound = second_order_mistake_bound(
            X[mistakes], y[mistakes], u, a=0.5, gamma=gamma, classes=[0, 1])
        assert fitted.n_mistakes_ <= bound


def test_bound_by_hand_and_errors():
    # Two orthogonal unit mistakes, u = (1, -1): no hinge loss at gamma = 1,
    # spread 1 * 2 + 1 + 1 = 4, eigenvalues (1, 1): L = 2 ln 2.
    bound = second_order_mistake_bound([[1.0, 0.0], [0.0, 1.0]], [1, -1],
                                       [1.0, -1.0], fit_intercept=False)
    assert_allclose(bound, np.sqrt(4 * 2 * np.log(2)))
    # Padding adds the constant feature and the intercept of u.
    X = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 1.0]])
    s = np.array([1.0, -1.0, 1.0])
    u, b, a, gamma = np.array([0.5, -1.0]), 0.3, 0.7, 0.4
    Xp = padded(X, True)
    up = np.append(u, b)
    expected = (np.maximum(0, gamma - s * (Xp @ up)).sum() + np.sqrt(
        (a * up @ up + np.sum((Xp @ up) ** 2))
        * np.linalg.slogdet(np.eye(3) + Xp.T @ Xp / a)[1])) / gamma
    got = second_order_mistake_bound(X, s, u, a=a, gamma=gamma, intercept=b)
    assert_allclose(got, expected)
    assert_allclose(second_order_mistake_bound(sp.csr_matrix(X), s, u, a=a,
                                               gamma=gamma, intercept=b), expected)
    # More mistakes than dimensions goes through X^T X instead of the Gram.
    Xm = np.vstack([X, X])
    sm = np.concatenate([s, s])
    expected = (np.maximum(0, gamma - sm * (padded(Xm, True) @ up)).sum()
                + np.sqrt((a * up @ up + np.sum((padded(Xm, True) @ up) ** 2))
                          * np.linalg.slogdet(np.eye(6) + padded(Xm, True)
                                              @ padded(Xm, True).T / a)[1])
                ) / gamma
    assert_allclose(second_order_mistake_bound(Xm, sm, u, a=a, gamma=gamma,
                                               intercept=b), expected)
    assert second_order_mistake_bound(np.zeros((0, 2)), [], [1.0, 1.0]) == 0.0
    with pytest.raises(ValueError, match="signs"):
        second_order_mistake_bound(X, [0, 1, 1], u)
    with pytest.raises(ValueError, match="not in classes"):
        second_order_mistake_bound(X, [0, 1, 2], u, classes=[0, 1])
    with pytest.raises(ValueError, match="fit_intercept=False"):
        second_order_mistake_bound(X, s, u, intercept=1.0, fit_intercept=False)
    with pytest.raises(InvalidParameterError):
        second_order_mistake_bound(X, s, u, a=0.0)


# ---------------------------------------------------------------------------
# The contract of §1
# ---------------------------------------------------------------------------


def test_errors_are_clear_and_leave_the_estimator_unchanged():
    X, y = correlated_data(10)
    clf = SecondOrderPerceptron(max_iter=5, tol=None)
    fit_quiet(clf, X, y)
    coef = clf.coef_.copy()
    state = clf._state
    with pytest.raises(ValueError, match="features"):
        clf.partial_fit(X[:, :2], y)
    with pytest.raises(ValueError, match="Negative"):
        clf.partial_fit(X, y, sample_weight=-np.ones(X.shape[0]))
    with pytest.raises(ValueError, match="not in classes"):
        clf.partial_fit(X, y + 5)
    assert_array_equal(clf.coef_, coef)
    assert clf._state is state
    with pytest.raises(ValueError, match="class"):
        clone(clf).fit(X, np.zeros_like(y))
    with pytest.raises(InvalidParameterError):
        SecondOrderPerceptron(a=0).fit(X, y)
    with pytest.raises(InvalidParameterError):
        SecondOrderPerceptron(diagonal="yes").fit(X, y)


def test_full_mode_refuses_matrices_beyond_memory(monkeypatch):
    from sklearn_perceptrons._linear import second_order as _second_order

    monkeypatch.setattr(_second_order, "_physical_memory", lambda: 10**6)
    X = sp.random(20, 1000, density=0.01, format="csr", random_state=0)
    y = np.arange(20) % 2
    with pytest.raises(ValueError, match="diagonal=True"):
        SecondOrderPerceptron().fit(X, y)
    SecondOrderPerceptron(diagonal=True).fit(X, y)


def test_overflow_raises_instead_of_nan_weights():
    X = np.array([[1e300, 1.0], [-1e300, 1.0]] * 5)
    y = np.array([1, 0] * 5)
    with pytest.raises(ValueError, match="non-finite"):
        SecondOrderPerceptron(diagonal=True, a=1e-300).fit(
            X, y, sample_weight=np.full(10, 1e300))


def test_pickle_and_verbose(capsys):
    X, y = correlated_data(11, n_classes=3)
    clf = fit_quiet(SecondOrderPerceptron(max_iter=3, verbose=1), X, y)
    out = capsys.readouterr().out
    assert out.count("-- Epoch") == clf.n_iter_
    again = pickle.loads(pickle.dumps(clf))
    assert_array_equal(again.decision_function(X), clf.decision_function(X))
    again.partial_fit(X, y)
    clf.partial_fit(X, y)
    assert_array_equal(again.coef_, clf.coef_)


@pytest.mark.parametrize("diagonal", [False, True])
def test_skops_round_trip_names_only_the_estimator(diagonal):
    sio = pytest.importorskip("skops.io")
    X, y = correlated_data(12, n_classes=3)
    X32 = sp.csr_matrix(X.astype(np.float32))
    clf = fit_quiet(SecondOrderPerceptron(diagonal=diagonal, average=True,
                                          max_iter=3), X32, y)
    data = sio.dumps(clf)
    untrusted = sio.get_untrusted_types(data=data)
    assert untrusted == ["sklearn_perceptrons._second_order.SecondOrderPerceptron"]
    loaded = sio.loads(data, trusted=untrusted)
    assert_array_equal(loaded.decision_function(X32), clf.decision_function(X32))
    loaded.partial_fit(X32, y)
    clf.partial_fit(X32, y)
    assert_array_equal(loaded.coef_, clf.coef_)
    assert loaded.coef_.dtype == np.float32


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("diagonal", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_a_score_that_overflows_is_an_error_not_a_pass(diagonal, sparse):
    # w . x = inf - inf is no number: it must not count as "no mistake".
    X = np.array([[1.0, 1.0], [1.0, -1.0], [1e308, 1e308], [-1.0, 1.0]])
    y = np.array([1, 1, 0, 0])
    X = sp.csr_matrix(X) if sparse else X
    clf = SecondOrderPerceptron(diagonal=diagonal, a=1e-300).partial_fit(
        X[:2], y[:2], classes=[0, 1])
    coef = clf.coef_.copy()
    with pytest.raises(ValueError, match="overflowed"):
        clf.partial_fit(X, y)
    assert_array_equal(clf.coef_, coef)
    with pytest.raises(ValueError, match="overflowed|non-finite"):
        SecondOrderPerceptron(diagonal=diagonal, a=1e-300).fit(X, y)


def test_warm_start_on_other_classes_features_or_mode_says_so():
    X, y = correlated_data(14)
    clf = SecondOrderPerceptron(warm_start=True).fit(X, y)
    coef = clf.coef_.copy()
    with pytest.raises(ValueError, match="same classes and features"):
        clf.fit(X, y % 3 + (y == 1) * np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="same classes and features"):
        clf.fit(X[:, :2], y)
    with pytest.raises(ValueError, match="diagonal"):
        clf.set_params(diagonal=True).fit(X, y)
    assert_array_equal(clf.coef_, coef)


def test_partial_fit_reads_batches_of_either_float_type():
    # The state is float64: a float64 batch after a float32 one is read as
    # it is, and the model keeps the dtype of the first batch.
    X, y = correlated_data(15)
    mixed = SecondOrderPerceptron()
    mixed.partial_fit(X[:30].astype(np.float32), y[:30], classes=[0, 1])
    mixed.partial_fit(X[30:], y[30:])
    assert mixed.coef_.dtype == np.float32
    single = SecondOrderPerceptron()
    single.partial_fit(X[:30].astype(np.float32), y[:30], classes=[0, 1])
    single.partial_fit(X[30:].astype(np.float32), y[30:])
    assert_allclose(mixed.coef_, single.coef_, rtol=1e-5)


def test_meta_estimators_take_it_as_a_base():
    from sklearn_perceptrons import OneVsAllPerceptron, OneVsOnePerceptron

    X, y = correlated_data(16, n_samples=120, n_classes=3, noise=0.0)
    native = fit_quiet(SecondOrderPerceptron(max_iter=30), X, y)
    for Meta in (OneVsAllPerceptron, OneVsOnePerceptron):
        meta = fit_quiet(Meta(SecondOrderPerceptron(max_iter=30)), X, y)
        assert meta.score(X, y) >= native.score(X, y) - 0.1



def _collinear(seed):
    """Nearly collinear features (relative spread ``eps``) of a large scale,
    5% of the labels flipped; the sizes are drawn too."""
    rng = np.random.RandomState(seed)
    n, d = rng.choice([200, 500]), rng.choice([2, 3, 5, 10])
    eps, scale = 10.0 ** rng.uniform(-8, -1), 10.0 ** rng.uniform(0, 5)
    X = rng.normal(size=(n, 1)) * scale * (1 + eps * rng.normal(size=(n, d)))
    y = (X @ rng.normal(size=d) > 0).astype(int)
    flip = rng.rand(n) < 0.05
    y[flip] = 1 - y[flip]
    return X, y


@pytest.mark.parametrize("Estimator, name", [
    (SecondOrderPerceptron, "a"),
    (pytest.importorskip("sklearn_perceptrons").AROWClassifier, "r"),
])
def test_lost_positive_definiteness_is_named(Estimator, name):
    # Issue 33, row 4: with a tiny regularization beside samples of large
    # squared norm on nearly collinear features, the Sherman-Morrison
    # downdates of A^-1 lose its positive definiteness in floating point.
    # That ended in "overflowed" (or, worse, in a silently wrong model of
    # accuracy 0.13, as here); it is now an error that names the cause and
    # the remedies, raised at the first x^T A^-1 x negative beyond rounding.
    X, y = _collinear(10)  # 500 x 3, relative spread 1.4e-8, scale 1.5e3
    clf = Estimator(**{name: 1e-6}, random_state=0, max_iter=20)
    with pytest.raises(ValueError, match="positive definiteness") as info:
        clf.fit(X, y)
    message = str(info.value)
    assert f"raise {name}" in message.lower() and "diagonal=True" in message
    assert f"{name}=1e-06" in message
    # The remedies named work: a larger regularization, or the diagonal.
    for remedy in ({name: 1.0}, {name: 1e-6, "diagonal": True}):
        fitted = Estimator(**remedy, random_state=0, max_iter=20).fit(X, y)
        assert np.all(np.isfinite(fitted.coef_))
        assert fitted.score(X, y) > 0.8
