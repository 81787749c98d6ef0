# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The mistake bounds of the online family against runs of their NumPy
references (tests/_reference_online.py): whatever the data, the order and
the comparison vector, a run never makes more mistakes than its bound."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_perceptrons.bounds import (
    alma_mistake_bound,
    arow_mistake_bound,
    max_margin,
    mistake_bound,
    passive_aggressive_mistake_bound,
    romma_mistake_bound,
)

from _reference_online import (
    alma,
    arow,
    passive_aggressive,
    passive_aggressive_multiclass,
    romma,
)

PROPERTY_SETTINGS = settings(max_examples=40, deadline=None)


def _data(seed, n, d, *, separable, scale=1.0):
    """Gaussian samples and labels; separable ones keep a gap around the
    hyperplane of a random unit vector u (returned)."""
    rng = np.random.RandomState(seed)
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    X = rng.normal(size=(n, d)) * scale
    if separable:
        proj = X @ u
        X += np.outer(np.where(proj >= 0, 0.3, -0.3) * scale, u)
        y = (X @ u > 0).astype(int)
    else:
        y = (X @ u + rng.normal(size=n) > 0).astype(int)
    if np.unique(y).shape[0] < 2:
        y[0] = 1 - y[0]
    return X, y, u


def _orders(seed, n, n_epochs):
    rng = np.random.RandomState(seed)
    return [rng.permutation(n) for _ in range(n_epochs)]


def _signs(y):
    return np.where(np.asarray(y) == np.unique(y)[1], 1.0, -1.0)


def _stacked(X, y, orders):
    """The sequence of visits of a run, one row per visit."""
    order = np.concatenate(orders)
    return X[order], np.asarray(y)[order]


# -- passive-aggressive ------------------------------------------------------


@PROPERTY_SETTINGS
@given(seed=st.integers(0, 10**6), n=st.integers(4, 30), d=st.integers(1, 4),
       epochs=st.integers(1, 3), C=st.floats(0.05, 20.0),
       loss=st.sampled_from(["hinge", "squared_hinge"]),
       separable=st.booleans(), scale=st.sampled_from([0.3, 1.0, 4.0]))
def test_passive_aggressive_respects_its_bound(seed, n, d, epochs, C, loss,
                                               separable, scale):
    X, y, u = _data(seed, n, d, separable=separable, scale=scale)
    orders = _orders(seed, n, epochs)
    run = passive_aggressive(X, _signs(y), orders, C=C, loss=loss,
                             fit_intercept=False)
    Xs, ys = _stacked(X, y, orders)
    rng = np.random.RandomState(seed + 1)
    for v in (u, rng.normal(size=d), np.zeros(d)):
        bound = passive_aggressive_mistake_bound(Xs, ys, v, C=C, loss=loss)
        assert run["mistakes"] <= bound + 1e-9


@PROPERTY_SETTINGS
@given(seed=st.integers(0, 10**6), n=st.integers(4, 30), d=st.integers(1, 4),
       k=st.integers(2, 4), epochs=st.integers(1, 3), C=st.floats(0.05, 20.0),
       loss=st.sampled_from(["hinge", "squared_hinge"]))
def test_multiclass_passive_aggressive_respects_its_bound(seed, n, d, k, epochs,
                                                          C, loss):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d))
    U = rng.normal(size=(k, d))
    y = np.argmax(X @ U.T + 0.5 * rng.normal(size=(n, k)), axis=1)
    y[:k] = np.arange(k)  # every class present, as labels 0..k-1
    orders = _orders(seed, n, epochs)
    run = passive_aggressive_multiclass(X, y, k, orders, C=C, loss=loss,
                                        fit_intercept=False)
    Xs, ys = _stacked(X, y, orders)
    for V in (U, rng.normal(size=(k, d)), np.zeros((k, d))):
        bound = passive_aggressive_mistake_bound(
            Xs, ys, V, C=C, loss=loss, multi_class="crammer_singer")
        assert run["mistakes"] <= bound + 1e-9


def test_passive_aggressive_bound_by_hand():
    X = [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]
    y = [1, 1, 0]
    # PA-I: R = 1, C = 1: min_a 2 a^2 + 2 sum max(0, 1 - a) = 2 at a = 1.
    assert passive_aggressive_mistake_bound(X, y, [1.0, 1.0]) == 2.0
    # Only the direction of u matters.
    assert_allclose(passive_aggressive_mistake_bound(X, y, [5.0, 5.0]), 2.0)
    # PA-II: (1 + 1/2) min_a 2 a^2 + 2 * 3 (1 - a)^2 = 1.5 * 1.5 at a = 3/4.
    assert_allclose(passive_aggressive_mistake_bound(
        X, y, [1.0, 1.0], loss="squared_hinge"), 2.25)
    # u = 0: every loss is 1.
    assert passive_aggressive_mistake_bound(X, y, [0.0, 0.0], C=0.5) == \
        max(1.0, 2.0) * 2 * 0.5 * 3
    # Sparse X gives the same.
    assert passive_aggressive_mistake_bound(sp.csr_matrix(X), y, [1.0, 1.0]) == 2.0
    with pytest.raises(ValueError, match="shape"):
        passive_aggressive_mistake_bound(X, [0, 1, 2], np.ones(2),
                                         multi_class="crammer_singer")
    with pytest.raises(InvalidParameterError):
        passive_aggressive_mistake_bound(X, y, [1.0, 1.0], C=0.0)


# -- ALMA ----------------------------------------------------------------------


def _alma_corrections_by_hand(gamma, p, alpha, B, C, limit=10**6):
    """The largest m with L_{m+1} <= 1, by running the recursion."""
    A = 2 * (1 - alpha) * B * C + C * C
    L, last = 0.0, 0
    for k in range(1, limit):
        L = (L + gamma * C / (np.sqrt(p - 1) * np.sqrt(k))) / np.sqrt(1 + A / k)
        if L <= 1.0:
            last = k
    return last


@pytest.mark.parametrize("gamma, p, alpha", [(0.9, 2.0, 0.9), (0.3, 2.0, 0.5),
                                             (0.2, 3.0, 1.0), (0.5, 2.0, 0.05)])
def test_alma_bound_is_the_last_m_of_its_recursion(gamma, p, alpha):
    # A comparison vector u = e_1 of margin gamma on one unit sample (and
    # its mirror image): the bound is the recursion's.
    B, C = 1.0 / alpha, np.sqrt(2.0)
    X = np.array([[gamma, np.sqrt(1 - gamma**2)]])
    X = np.vstack([X, -X])
    got = alma_mistake_bound(X, [1, 0], p=p, alpha=alpha, fit_intercept=False,
                             coef=[7.0, 0.0])
    # The q-norm margin of u = e_1 on the p-normalized rows.
    gamma = gamma / np.sum(np.abs(X[0]) ** p) ** (1 / p)
    assert got == _alma_corrections_by_hand(gamma, p, alpha, B, C,
                                            limit=int(got) + 20000)
    if p == 2.0:
        # Without u, the largest margin of these data: that of X[0] itself.
        assert alma_mistake_bound(X, [1, 0], alpha=alpha, fit_intercept=False) \
            == _alma_corrections_by_hand(1.0, p, alpha, B, C, limit=int(got) + 20000)


@PROPERTY_SETTINGS
@given(seed=st.integers(0, 10**6), n=st.integers(4, 25), d=st.integers(1, 4),
       epochs=st.integers(1, 4), alpha=st.floats(0.1, 1.0),
       p=st.sampled_from([2.0, 2.0, 3.0, 4.5]), fit_intercept=st.booleans(),
       C=st.sampled_from([None, 0.5, 3.0]))
def test_alma_respects_its_bound(seed, n, d, epochs, alpha, p, fit_intercept, C):
    X, y, u = _data(seed, n, d, separable=True)
    C = np.sqrt(2.0) if C is None else C
    orders = _orders(seed, n, epochs)
    run = alma(X, _signs(y), orders, p=p, alpha=alpha, C=C,
               fit_intercept=fit_intercept)
    coef = None if p == 2.0 else u
    bound = alma_mistake_bound(X, y, p=p, alpha=alpha, C=C,
                               fit_intercept=fit_intercept, coef=coef)
    assert run["corrections"] <= bound


def test_alma_bound_edges():
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    # Not separable through the origin: no bound.
    assert alma_mistake_bound(np.array([[1.0], [1.0]]), [0, 1],
                              fit_intercept=False) == np.inf
    with pytest.raises(ValueError, match="p=2 only"):
        alma_mistake_bound(X, [1, 0], p=3.0)
    with pytest.raises(InvalidParameterError):
        alma_mistake_bound(X, [1, 0], alpha=0.0)
    # A comparison vector that errs has no positive margin.
    assert alma_mistake_bound(X, [1, 0], coef=[-1.0, 0.0],
                              fit_intercept=False) == np.inf


# -- ROMMA -----------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(seed=st.integers(0, 10**6), n=st.integers(4, 25), d=st.integers(1, 4),
       epochs=st.integers(1, 4), aggressive=st.booleans(),
       fit_intercept=st.booleans())
def test_romma_respects_its_bound(seed, n, d, epochs, aggressive, fit_intercept):
    X, y, _ = _data(seed, n, d, separable=True)
    orders = _orders(seed, n, epochs)
    run = romma(X, _signs(y), orders, aggressive=aggressive,
                fit_intercept=fit_intercept)
    bound = romma_mistake_bound(X, y, fit_intercept=fit_intercept)
    assert bound == mistake_bound(X, y, fit_intercept=fit_intercept)
    assert run["mistakes"] <= bound + 1e-9


def test_romma_weights_stay_within_the_separators_norm():
    # The proof of the bound: ||w|| <= 1 / gamma at all times.
    X, y, _ = _data(3, 30, 3, separable=True)
    gamma = max_margin(X, y, fit_intercept=False)[0]
    for aggressive in (False, True):
        run = romma(X, _signs(y), _orders(0, 30, 5), aggressive=aggressive,
                    fit_intercept=False)
        assert np.linalg.norm(run["coef"]) <= 1.0 / gamma * (1 + 1e-9)


# -- AROW --------------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(seed=st.integers(0, 10**6), n=st.integers(4, 25), d=st.integers(1, 4),
       epochs=st.integers(1, 3), r=st.floats(0.05, 10.0),
       separable=st.booleans(), fit_intercept=st.booleans())
def test_arow_respects_its_bound(seed, n, d, epochs, r, separable, fit_intercept):
    X, y, u = _data(seed, n, d, separable=separable)
    orders = _orders(seed, n, epochs)
    run = arow(X, _signs(y), orders, r=r, fit_intercept=fit_intercept)
    rows = run["update_rows"]
    rng = np.random.RandomState(seed + 1)
    for v in (u, 3 * u, rng.normal(size=d)):
        bound = arow_mistake_bound(X[rows], np.asarray(y)[rows], v, r=r,
                                   n_margin_errors=run["margin_errors"],
                                   intercept=0.5 if fit_intercept else 0.0,
                                   fit_intercept=fit_intercept, classes=[0, 1])
        assert run["mistakes"] <= bound + 1e-9
    # u = 0 makes the bound the number of mistakes among the updates.
    mistakes_among_updates = rows.shape[0] - run["margin_errors"]
    assert_allclose(arow_mistake_bound(
        X[rows], np.asarray(y)[rows], np.zeros(d), r=r,
        n_margin_errors=run["margin_errors"], fit_intercept=fit_intercept,
        classes=[0, 1]), mistakes_among_updates)


def test_arow_bound_by_hand_and_errors():
    # k = 2 orthogonal unit updates, r = 1, u = (1, -1), no margin error:
    # sqrt(2 + 2) sqrt(2 ln 2) + 0.
    got = arow_mistake_bound([[1.0, 0.0], [0.0, 1.0]], [1, -1], [1.0, -1.0],
                             fit_intercept=False)
    assert_allclose(got, 2.0 * np.sqrt(2.0 * np.log(2.0)))
    assert arow_mistake_bound(np.zeros((0, 2)), [], [1.0, 1.0]) == 0.0
    with pytest.raises(ValueError, match="exceeds"):
        arow_mistake_bound([[1.0, 0.0]], [1], [1.0, 0.0], n_margin_errors=2)
    with pytest.raises(ValueError, match="signs"):
        arow_mistake_bound([[1.0, 0.0]], ["a"], [1.0, 0.0])
