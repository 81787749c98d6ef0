# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause

"""Tests of sklearn_perceptrons.bounds.

The oracles are independent of the module: hand-computed values, a
brute-force search over directions, SciPy's SLSQP, the KKT conditions checked
with SciPy's NNLS, and a tiny pure-NumPy textbook perceptron whose mistake
counts must never exceed the bounds.
"""

import time

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize, minimize_scalar, nnls

from sklearn_perceptrons.bounds import (
    hinge_mistake_bound,
    margin,
    max_margin,
    mistake_bound,
    radius,
)

PROPERTY_SETTINGS = settings(max_examples=60, deadline=None)


# ----------------------------------------------------------------------------
# Reference implementations (pure NumPy, written from the textbook)
# ----------------------------------------------------------------------------


def _signs(y):
    """Labels to +-1: the larger of the two sorted labels is +1."""
    y = np.asarray(y)
    classes = np.unique(y)
    assert classes.shape[0] == 2
    return np.where(y == classes[1], 1.0, -1.0)


def _pad(X, fit_intercept):
    X = np.asarray(X, dtype=np.float64)
    if fit_intercept:
        return np.hstack([X, np.ones((X.shape[0], 1))])
    return X


def textbook_perceptron(
    X, y, *, fit_intercept, threshold=0.0, w0=None, rng=None, max_updates=10**6
):
    """Run the perceptron until an epoch makes no update; return the updates.

    Update rule: if s_i (w . x~_i) <= threshold then w += s_i x~_i, on the
    padded vectors x~ = [x; 1] when fit_intercept (b starts at 0). Each epoch
    visits the samples in a fresh random order when rng is given, else in
    row order.
    """
    Xt, s = _pad(X, fit_intercept), _signs(y)
    w = np.zeros(Xt.shape[1])
    if w0 is not None:
        w[: len(w0)] = w0
    updates = 0
    while True:
        order = rng.permutation(len(s)) if rng is not None else range(len(s))
        epoch_updates = 0
        for i in order:
            if s[i] * (w @ Xt[i]) <= threshold:
                w += s[i] * Xt[i]
                epoch_updates += 1
        updates += epoch_updates
        if epoch_updates == 0 or updates > max_updates:
            return updates


def textbook_one_pass(X, y, order, *, fit_intercept):
    """One pass of the perceptron (threshold 0, start 0) in the given order."""
    Xt, s = _pad(X, fit_intercept), _signs(y)
    w = np.zeros(Xt.shape[1])
    updates = 0
    for i in order:
        if s[i] * (w @ Xt[i]) <= 0.0:
            w += s[i] * Xt[i]
            updates += 1
    return updates


def slsqp_max_margin(X, y, fit_intercept, w_start):
    """1 / ||w|| for min ||w||^2 / 2 s.t. s_i w . x~_i >= 1, by SLSQP.

    w_start is any separator (padded); SLSQP starts from it, rescaled to be
    feasible. Returns None when SLSQP itself fails (its line search gives up
    on some well-posed problems: "Positive directional derivative").
    """
    Z = _signs(y)[:, None] * _pad(X, fit_intercept)
    res = minimize(
        lambda w: 0.5 * w @ w,
        x0=w_start / (Z @ w_start).min(),
        jac=lambda w: w,
        constraints=[{"type": "ineq", "fun": lambda w: Z @ w - 1, "jac": lambda w: Z}],
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    if not res.success:
        return None
    assert (Z @ res.x).min() >= 1 - 1e-8
    return 1.0 / np.linalg.norm(res.x)


def ldp_max_margin(X, y, fit_intercept):
    """1 / ||w|| for min ||w|| s.t. Z w >= 1 (Z_i = s_i x~_i), exactly.

    This is least distance programming, which Lawson and Hanson (Solving
    Least Squares Problems, 1974, ch. 23) reduce to one non-negative least
    squares problem: with E = [Z.T; 1.T] and f = e_{m+1}, the NNLS solution u
    gives the residual r = E u - f, and w = -r[:m] / r[m] (r = 0 would mean
    infeasible). SciPy's NNLS is an active-set method, finite and exact up
    to rounding: an oracle independent of Wolfe's algorithm.
    """
    Z = _signs(y)[:, None] * _pad(X, fit_intercept)
    m = Z.shape[1]
    E = np.vstack([Z.T, np.ones((1, Z.shape[0]))])
    f = np.zeros(m + 1)
    f[m] = 1.0
    u, _ = nnls(E, f, maxiter=50 * E.shape[1])
    r = E @ u - f
    assert np.linalg.norm(r) > 1e-8, "the oracle found the data not separable"
    w = -r[:m] / r[m]
    # w is feasible: every constraint holds to rounding.
    assert (Z @ w).min() >= 1 - 1e-9
    return 1.0 / np.linalg.norm(w)


def separable_data(seed, n_samples, n_features, fit_intercept, min_margin=0.1):
    """Random data labelled by a random unit separator w* (padded when
    fit_intercept); samples closer than min_margin to it are dropped.

    Returns X, y (string labels, "pos" is the positive class) and the padded
    unit separator.
    """
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n_samples, n_features))
    w_star = rng.normal(size=n_features + 1)
    w_star[-1] = 0.5 * w_star[-1] if fit_intercept else 0.0
    w_star /= np.linalg.norm(w_star)
    dist = _pad(X, True) @ w_star
    keep = np.abs(dist) >= min_margin
    X, dist = X[keep], dist[keep]
    y = np.where(dist > 0, "pos", "neg")
    return X, y, w_star


def hinge_objective(alpha, X, y, coef, intercept, fit_intercept):
    """R^2 ||alpha u~||^2 + 2 sum_i hinge(s_i alpha u~ . x~_i), by brute force."""
    Xt, s = _pad(X, fit_intercept), _signs(y)
    u = np.append(coef, intercept) if fit_intercept else np.asarray(coef, float)
    r2 = (Xt**2).sum(axis=1).max()
    return r2 * alpha**2 * (u @ u) + 2 * np.maximum(0, 1 - alpha * s * (Xt @ u)).sum()


def _as(X, container):
    return container(np.asarray(X, dtype=np.float64))


CONTAINERS = [np.asarray, sp.csr_matrix, sp.csc_matrix]


# ----------------------------------------------------------------------------
# radius
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("container", CONTAINERS)
def test_radius_hand_values(container):
    X = _as([[3.0, 4.0], [1.0, 0.0], [0.0, -2.0]], container)
    assert radius(X) == 5.0
    assert radius(X, fit_intercept=True) == pytest.approx(np.sqrt(26.0), rel=1e-15)


def test_radius_float32_and_lists():
    X = [[0.6, 0.8], [0.0, 0.0]]
    assert radius(X) == pytest.approx(1.0)
    assert radius(np.asarray(X, dtype=np.float32)) == pytest.approx(1.0, rel=1e-7)
    # The zero row alone: radius 0 without intercept, 1 with it.
    assert radius([[0.0, 0.0]]) == 0.0
    assert radius([[0.0, 0.0]], fit_intercept=True) == 1.0


# ----------------------------------------------------------------------------
# margin
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("container", CONTAINERS)
def test_margin_hand_values(container):
    X = _as([[3.0, 4.0], [-3.0, -4.0]], container)
    y = [1, 0]
    # 25 / 5 for both samples.
    assert margin(X, y, [3.0, 4.0]) == pytest.approx(5.0, rel=1e-15)
    # Padded: ||[3, 4, 12]|| = 13; s_i (w.x_i + b) = 37 and 13.
    assert margin(X, y, [3.0, 4.0], 12.0) == pytest.approx(1.0, rel=1e-15)
    # A misclassified sample gives a negative margin: -(25 - 12) / 13 ... and
    # flipping the labels flips every signed distance.
    assert margin(X, [0, 1], [3.0, 4.0], 12.0) == pytest.approx(-37 / 13, rel=1e-15)


def test_margin_accepts_estimator_shapes_and_labels():
    X = np.array([[3.0, 4.0], [-3.0, -4.0]])
    # coef_ of shape (1, n_features) and intercept_ of shape (1,).
    assert margin(X, [1, 0], np.array([[3.0, 4.0]]), np.array([12.0])) == 1.0
    # String labels: the larger one ("b") is the positive class.
    assert margin(X, ["b", "a"], [3.0, 4.0]) == pytest.approx(5.0)
    assert margin(X, ["a", "b"], [3.0, 4.0]) == pytest.approx(-5.0)
    # Scaling (w, b) does not change the distance.
    assert margin(X, [1, 0], [30.0, 40.0], 120.0) == pytest.approx(1.0)


def test_margin_zero_vector_is_zero():
    assert margin([[1.0], [-1.0]], [1, 0], [0.0], 0.0) == 0.0


# ----------------------------------------------------------------------------
# max_margin
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize(
    "X, y, fit_intercept, expected_gamma, expected_coef, expected_intercept",
    [
        # Two points +-(1, 0): margin 1 through the origin, and in the padded
        # space too (the hull of (1, 0, 1) and (1, 0, -1) is nearest at (1, 0, 0)).
        ([[1.0, 0.0], [-1.0, 0.0]], [1, 0], False, 1.0, [1.0, 0.0], 0.0),
        ([[1.0, 0.0], [-1.0, 0.0]], [1, 0], True, 1.0, [1.0, 0.0], 0.0),
        # Two points +-(3, 4): the separator is their direction.
        ([[3.0, 4.0], [-3.0, -4.0]], [1, 0], False, 5.0, [0.6, 0.8], 0.0),
        # The four corners of a square, labelled by the first coordinate.
        (
            [[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]],
            [1, 1, 0, 0],
            True,
            1.0,
            [1.0, 0.0],
            0.0,
        ),
        # x = 2 (positive) vs x = 0 (negative) with an intercept: the nearest
        # point of the segment [(2, 1), (0, -1)] is (1/2, -1/2), so the padded
        # margin is 1/sqrt(2) (the geometric margin would be 1).
        ([[2.0], [0.0]], [1, 0], True, 2**-0.5, [2**-0.5], -(2**-0.5)),
    ],
)
def test_max_margin_analytic(
    container, X, y, fit_intercept, expected_gamma, expected_coef, expected_intercept
):
    X = _as(X, container)
    gamma, coef, intercept = max_margin(X, y, fit_intercept=fit_intercept)
    assert gamma == pytest.approx(expected_gamma, rel=1e-12)
    np.testing.assert_allclose(coef, expected_coef, atol=1e-12)
    assert intercept == pytest.approx(expected_intercept, abs=1e-12)
    assert isinstance(gamma, float) and isinstance(intercept, float)
    assert coef.shape == (len(expected_coef),)


@pytest.mark.parametrize("seed", range(5))
def test_max_margin_matches_brute_force_over_angles(seed):
    # 2-D, through the origin: gamma = max over theta of min_i z_i . u(theta).
    X, y, _ = separable_data(seed, 40, 2, fit_intercept=False)
    Z = _signs(y)[:, None] * X

    def g(theta):
        return (Z @ np.array([np.cos(theta), np.sin(theta)])).min()

    thetas = np.linspace(-np.pi, np.pi, 200_001)
    values = (Z @ np.vstack([np.cos(thetas), np.sin(thetas)])).min(axis=0)
    t0 = thetas[np.argmax(values)]
    step = thetas[1] - thetas[0]
    # Refine around the best grid angle; optimise the offset from t0 so that
    # the solver's relative tolerance (sqrt(eps) |x|) does not limit it.
    res = minimize_scalar(
        lambda d: -g(t0 + d),
        bounds=(-step, step),
        method="bounded",
        options={"xatol": 1e-15},
    )
    theta = t0 + res.x
    gamma_bf = max(-res.fun, values.max())

    gamma, coef, intercept = max_margin(X, y, fit_intercept=False)
    assert intercept == 0.0
    assert gamma == pytest.approx(gamma_bf, rel=1e-9)
    assert coef @ np.array([np.cos(theta), np.sin(theta)]) == pytest.approx(1, abs=1e-9)


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_max_margin_matches_slsqp(seed, fit_intercept):
    """Two independent exact oracles: least distance programming by NNLS
    (always), and SLSQP (when its line search does not give up, which it
    does on seed 2 without intercept on some machines)."""
    X, y, w_star = separable_data(seed, 30, 3, fit_intercept, min_margin=0.05)
    w_start = w_star if fit_intercept else w_star[:-1]
    gamma, _, _ = max_margin(X, y, fit_intercept=fit_intercept)
    assert gamma == pytest.approx(ldp_max_margin(X, y, fit_intercept), rel=1e-9)
    slsqp = slsqp_max_margin(X, y, fit_intercept, w_start)
    if slsqp is not None:
        assert gamma == pytest.approx(slsqp, rel=1e-6)


@pytest.mark.filterwarnings("error::sklearn.exceptions.ConvergenceWarning")
@PROPERTY_SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    n_samples=st.integers(2, 60),
    n_features=st.integers(1, 6),
    fit_intercept=st.booleans(),
    sparse=st.booleans(),
)
def test_max_margin_is_optimal(seed, n_samples, n_features, fit_intercept, sparse):
    X, y, w_star = separable_data(seed, n_samples, n_features, fit_intercept)
    assume(len(np.unique(y)) == 2)
    gamma, coef, intercept = max_margin(
        sp.csr_matrix(X) if sparse else X, y, fit_intercept=fit_intercept
    )
    if not fit_intercept:
        assert intercept == 0.0
    w = np.append(coef, intercept) if fit_intercept else coef
    assert np.linalg.norm(w) == pytest.approx(1.0, rel=1e-12)
    # The returned separator achieves gamma ...
    assert margin(X, y, coef, intercept) == pytest.approx(gamma, rel=1e-12)
    # ... at least the planted separator's margin ...
    Z = _signs(y)[:, None] * _pad(X, fit_intercept)
    planted = w_star if fit_intercept else w_star[:-1]
    assert gamma >= (Z @ planted).min() - 1e-12
    # ... no random unit direction beats it ...
    rng = np.random.default_rng(seed)
    U = rng.normal(size=(Z.shape[1], 2000))
    U /= np.linalg.norm(U, axis=0)
    assert (Z @ U).min(axis=0).max() <= gamma + 1e-12
    # ... and it satisfies the KKT conditions of min ||w|| s.t. Z w >= 1:
    # w is a non-negative combination of the active constraints z_i.
    active = Z @ w <= gamma * (1 + 1e-7)
    _, residual = nnls(Z[active].T, w)
    assert residual <= 1e-7


@pytest.mark.parametrize("tiny", [1e-6, 1e-9])
def test_max_margin_tiny_margin_is_exact(tiny):
    # The first coordinate carries the label with margin `tiny`; the others
    # are noise independent of the label, so the maximum margin is `tiny`,
    # nine orders of magnitude below the radius.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = rng.integers(0, 2, 200)
    X[:, 0] = np.where(y == 1, tiny, -tiny)
    gamma, coef, _ = max_margin(X, y, fit_intercept=False)
    assert gamma == pytest.approx(tiny, rel=1e-6)
    np.testing.assert_allclose(coef, [1.0, 0.0, 0.0], atol=1e-6)
    assert mistake_bound(X, y, fit_intercept=False) == pytest.approx(
        radius(X) ** 2 / tiny**2, rel=1e-5
    )


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_non_separable_xor(container, fit_intercept):
    X = _as([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]], container)
    y = [0, 0, 1, 1]
    gamma, coef, intercept = max_margin(X, y, fit_intercept=fit_intercept)
    assert gamma <= 0.0
    np.testing.assert_array_equal(coef, [0.0, 0.0])
    assert intercept == 0.0
    assert mistake_bound(X, y, fit_intercept=fit_intercept) == np.inf


def test_non_separable_random_labels_and_origin():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 5))
    y = rng.integers(0, 2, 500)
    assert max_margin(X, y)[0] <= 0.0
    assert mistake_bound(X, y) == np.inf
    # Without intercept a sample at the origin can never be classified
    # (the perceptron updates on it forever): not separable.
    X = [[0.0, 0.0], [1.0, 0.0], [-1.0, 0.0]]
    assert mistake_bound(X, [1, 1, 0], fit_intercept=False) == np.inf
    assert np.isfinite(mistake_bound(X, [1, 1, 0], fit_intercept=True))


def test_max_margin_dense_sparse_float32_agree():
    X, y, _ = separable_data(3, 200, 8, True)
    expected = max_margin(X, y)
    for Xc in (sp.csr_matrix(X), X.astype(np.float32)):
        gamma, coef, intercept = max_margin(Xc, y)
        tol = 1e-12 if Xc.dtype == np.float64 else 1e-6
        assert gamma == pytest.approx(expected[0], rel=tol)
        np.testing.assert_allclose(coef, expected[1], atol=tol)


def test_max_margin_is_fast_enough():
    # A few thousand samples by tens of features: well under a second.
    X, y, _ = separable_data(0, 4000, 30, True, min_margin=0.02)
    start = time.perf_counter()
    gamma = max_margin(X, y)[0]
    assert time.perf_counter() - start < 2.0
    assert gamma >= 0.02


# ----------------------------------------------------------------------------
# mistake_bound
# ----------------------------------------------------------------------------


def test_mistake_bound_hand_values_and_tightness():
    X, y = [[1.0], [-1.0]], [1, 0]
    # R = 1, gamma = 1 through the origin; the perceptron makes 1 mistake.
    assert mistake_bound(X, y, fit_intercept=False) == pytest.approx(1.0)
    assert textbook_perceptron(X, y, fit_intercept=False) == 1
    # Padded: R^2 = 2, gamma = 1. The bound 2 is attained.
    assert mistake_bound(X, y) == pytest.approx(2.0)
    assert textbook_perceptron(X, y, fit_intercept=True) == 2
    # General form: (2 delta + R^2 + 2 gamma ||w0||) / gamma^2 = (2 + 2 + 1) / 1.
    assert mistake_bound(X, y, threshold=1.0, coef_init=[0.5]) == pytest.approx(5.0)
    assert mistake_bound(X, y, threshold=1.0, coef_init=[[0.5]]) == pytest.approx(5.0)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_mistake_bound_is_r_over_gamma_squared(fit_intercept):
    X, y, _ = separable_data(7, 100, 3, fit_intercept)
    R = radius(X, fit_intercept=fit_intercept)
    gamma = max_margin(X, y, fit_intercept=fit_intercept)[0]
    assert mistake_bound(X, y, fit_intercept=fit_intercept) == pytest.approx(
        (R / gamma) ** 2, rel=1e-12
    )
    delta, w0 = 0.7, np.array([0.3, -1.0, 2.0])
    assert mistake_bound(
        X, y, fit_intercept=fit_intercept, threshold=delta, coef_init=w0
    ) == pytest.approx(
        (2 * delta + R**2 + 2 * gamma * np.linalg.norm(w0)) / gamma**2, rel=1e-12
    )


@PROPERTY_SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    n_samples=st.integers(2, 40),
    n_features=st.integers(1, 4),
    fit_intercept=st.booleans(),
    threshold=st.floats(-1.0, 2.0),
    w0_scale=st.sampled_from([0.0, 0.5, 3.0]),
)
def test_perceptron_never_exceeds_mistake_bound(
    seed, n_samples, n_features, fit_intercept, threshold, w0_scale
):
    X, y, _ = separable_data(seed, n_samples, n_features, fit_intercept)
    assume(len(np.unique(y)) == 2)
    rng = np.random.default_rng(seed)
    w0 = w0_scale * rng.normal(size=n_features)
    bound = mistake_bound(
        X, y, fit_intercept=fit_intercept, threshold=threshold, coef_init=w0
    )
    assert np.isfinite(bound)
    updates = textbook_perceptron(
        X,
        y,
        fit_intercept=fit_intercept,
        threshold=threshold,
        w0=w0,
        rng=rng,
        max_updates=int(bound) + 1,
    )
    assert updates <= bound
    if threshold == 0.0 and w0_scale == 0.0:
        R = radius(X, fit_intercept=fit_intercept)
        gamma = max_margin(X, y, fit_intercept=fit_intercept)[0]
        assert bound == pytest.approx((R / gamma) ** 2, rel=1e-12)


# ----------------------------------------------------------------------------
# hinge_mistake_bound
# ----------------------------------------------------------------------------


def test_hinge_bound_hand_value():
    # u = 1 (no intercept), R = 1, scores 1, 1, -0.5:
    # alpha <= 1: alpha^2 + 2 (2 (1 - alpha) + 1 + alpha / 2) = alpha^2 - 3 alpha + 6,
    # decreasing on [0, 1]; alpha >= 1: alpha^2 + 2 + alpha, increasing. Min 4.
    X, y = [[1.0], [-1.0], [0.5]], [1, 0, 0]
    assert hinge_mistake_bound(X, y, [1.0], fit_intercept=False) == pytest.approx(4.0)
    # Separable two points: the bound is R^2 / gamma^2 = 1, attained.
    assert hinge_mistake_bound([[1.0], [-1.0]], [1, 0], [5.0], fit_intercept=False) == (
        pytest.approx(1.0)
    )
    assert textbook_one_pass([[1.0], [-1.0]], [1, 0], [0, 1], fit_intercept=False) == 1
    # The zero vector: alpha is irrelevant, every hinge is 1: 2 n.
    assert hinge_mistake_bound(X, y, [0.0], 0.0) == 6.0


@PROPERTY_SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    n_samples=st.integers(2, 50),
    n_features=st.integers(1, 5),
    fit_intercept=st.booleans(),
    scale=st.sampled_from([0.01, 1.0, 100.0]),
    sparse=st.booleans(),
)
def test_one_pass_never_exceeds_hinge_bound(
    seed, n_samples, n_features, fit_intercept, scale, sparse
):
    # Arbitrary (mostly non-separable) data and an arbitrary comparison vector.
    rng = np.random.default_rng(seed)
    X = scale * rng.normal(size=(n_samples, n_features))
    y = rng.integers(0, 2, n_samples)
    assume(len(np.unique(y)) == 2)
    coef = rng.normal(size=n_features)
    intercept = rng.normal() if fit_intercept else 0.0
    bound = hinge_mistake_bound(
        sp.csr_matrix(X) if sparse else X,
        y,
        coef,
        intercept,
        fit_intercept=fit_intercept,
    )
    assert bound <= 2 * n_samples
    for _ in range(5):
        order = rng.permutation(n_samples)
        assert textbook_one_pass(X, y, order, fit_intercept=fit_intercept) <= bound
    # The scale minimisation is exact: no alpha on a fine grid does better.
    s = _signs(y)
    u = np.append(coef, intercept) if fit_intercept else coef
    scores = np.abs(s * (_pad(X, fit_intercept) @ u))
    scores = scores[scores > 0]
    top = 2.0 / scores.min() if scores.size else 1.0
    alphas = np.concatenate([np.linspace(0, top, 2001), 1 / scores])
    grid = min(hinge_objective(a, X, y, coef, intercept, fit_intercept) for a in alphas)
    assert bound <= grid + 1e-9 * max(1.0, grid)


@PROPERTY_SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    n_samples=st.integers(2, 40),
    n_features=st.integers(1, 4),
    fit_intercept=st.booleans(),
)
def test_hinge_bound_with_max_margin_direction(
    seed, n_samples, n_features, fit_intercept
):
    X, y, _ = separable_data(seed, n_samples, n_features, fit_intercept)
    assume(len(np.unique(y)) == 2)
    gamma, coef, intercept = max_margin(X, y, fit_intercept=fit_intercept)
    R = radius(X, fit_intercept=fit_intercept)
    bound = hinge_mistake_bound(X, y, coef, intercept, fit_intercept=fit_intercept)
    assert bound <= (R / gamma) ** 2 * (1 + 1e-12)
    assert bound <= 2 * len(y)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y))
    assert textbook_one_pass(X, y, order, fit_intercept=fit_intercept) <= bound


# ----------------------------------------------------------------------------
# Input validation
# ----------------------------------------------------------------------------

X_OK = [[1.0, 0.0], [-1.0, 0.0], [0.5, 0.5]]
Y_OK = [1, 0, 1]


@pytest.mark.parametrize(
    "func, kwargs, match",
    [
        (margin, dict(y=[1, 1, 1], coef=[1.0, 0.0]), "exactly 2 classes"),
        (max_margin, dict(y=[0, 1, 2]), "exactly 2 classes"),
        (mistake_bound, dict(y=[0, 1]), "inconsistent numbers of samples"),
        (max_margin, dict(y=[0.5, 1.5, 0.5]), "Unknown label type"),
        (margin, dict(y=Y_OK, coef=[1.0, 0.0, 0.0]), "coef must have shape"),
        (margin, dict(y=Y_OK, coef=[1.0, np.nan]), "coef must be finite"),
        (margin, dict(y=Y_OK, coef=[1.0, 0.0], intercept=[1.0, 2.0]), "intercept"),
        (margin, dict(y=Y_OK, coef=[1.0, 0.0], intercept=np.inf), "intercept"),
        (mistake_bound, dict(y=Y_OK, coef_init=[1.0]), "coef_init must have shape"),
        (mistake_bound, dict(y=Y_OK, threshold=np.inf), "threshold"),
        (mistake_bound, dict(y=Y_OK, threshold=np.nan), "threshold"),
        (max_margin, dict(y=Y_OK, fit_intercept="yes"), "fit_intercept"),
        (
            hinge_mistake_bound,
            dict(y=Y_OK, coef=[1.0, 0.0], intercept=1.0, fit_intercept=False),
            "intercept must be 0",
        ),
    ],
)
def test_invalid_inputs(func, kwargs, match):
    with pytest.raises(ValueError, match=match):
        func(X_OK, **kwargs)


@pytest.mark.parametrize("func", [radius, max_margin, mistake_bound])
def test_invalid_X(func):
    args = () if func is radius else (Y_OK,)
    bad = np.array(X_OK)
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        func(bad, *args)
    with pytest.raises(ValueError):
        func(np.zeros((0, 2)), *([[]] if args else []))
    with pytest.raises(ValueError):
        func([1.0, 2.0, 3.0], *args)  # 1-d X


def test_public_functions_are_shown_as_this_modules():
    """The bounds are computed in the private modules of ``_bounds/``, but
    users, pickles, the documentation and the doctests see every public
    function as ``sklearn_perceptrons.bounds``'s."""
    import doctest
    import pickle

    import sklearn_perceptrons.bounds as bounds

    found = {test.name.rsplit(".", 1)[-1]
             for test in doctest.DocTestFinder().find(bounds) if test.examples}
    for name in bounds.__all__:
        function = getattr(bounds, name)
        assert function.__name__ == name
        assert function.__module__ == "sklearn_perceptrons.bounds", name
        assert pickle.loads(pickle.dumps(function)) is function
        assert name in found, f"the Examples of {name} are not run"


@pytest.mark.parametrize("bad, message", [
    (np.zeros((2, 2)), r"must have shape \(n_classes, n_features\) = \(3, 2\)"),
    (np.zeros(6), r"must have shape \(n_classes, n_features\) = \(3, 2\)"),
    (np.array([[0.0, 1.0], [np.nan, 0.0], [1.0, 0.0]]), "must be finite"),
])
def test_crammer_singer_coefficients_are_checked_alike(bad, message):
    """One coefficient per class and feature, finite: the start of
    mistake_bound and the comparison vector of the PA bound, checked alike."""
    from sklearn_perceptrons.bounds import passive_aggressive_mistake_bound

    X = [[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]
    y = [0, 1, 2]
    with pytest.raises(ValueError, match="coef_init " + message):
        mistake_bound(X, y, multi_class="crammer_singer", coef_init=bad)
    with pytest.raises(ValueError, match="coef " + message):
        passive_aggressive_mistake_bound(X, y, bad, multi_class="crammer_singer")
    good = np.eye(3, 2)
    assert np.isfinite(mistake_bound(X, y, multi_class="crammer_singer",
                                     coef_init=good))
    assert passive_aggressive_mistake_bound(
        X, y, good, multi_class="crammer_singer") >= 0
