# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause

"""Regression tests of issue #33 (hardening III): one test per row at least.

Each test failed on the code before its fix; the docstring says how.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_perceptrons import (
    KernelPerceptron,
    MarginPerceptron,
    OneVsAllPerceptron,
    OneVsOnePerceptron,
    Perceptron,
    SecondOrderPerceptron,
    VotedPerceptron,
)


def _four_corners(scale, n=10, seed=0):
    """Four classes around four directions, separable pair by pair, scaled."""
    rng = np.random.default_rng(seed)
    centers = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])
    y = np.repeat(np.arange(4), n)
    X = centers[y] + rng.uniform(-0.1, 0.1, size=(4 * n, 2))
    return X * scale, y


# ----------------------------------------------------------------------------
# Row 1: one-vs-one confidences near the largest float
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("n_rows", [40, 1])
def test_one_vs_one_votes_stay_finite_near_the_largest_float(n_rows):
    """Row 1: every pair converged on X ~ 1e154 (scores ~ 1e308), but the
    sum of two pairs' confidences overflowed to inf and inf / inf made the
    decision NaN (score 0.375 instead of 1.0); the one-row path too."""
    X, y = _four_corners(1e154)
    model = OneVsOnePerceptron().fit(X, y)
    assert all(est.converged_ for est in model.estimators_)
    rows = X[:n_rows]
    decision = model.decision_function(rows)
    assert np.isfinite(decision).all()
    np.testing.assert_array_equal(model.predict(rows), y[:n_rows])
    # The confidences only break ties: within 1/3 of the pairs' votes.
    votes = np.zeros_like(decision)
    pairs = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    for est, (i, j) in zip(model.estimators_, pairs):
        positive = est.predict(rows) == 1
        votes[:, j] += positive
        votes[:, i] += ~positive
    assert np.all(np.abs(decision - votes) <= 1 / 3 + 1e-12)
    assert model.score(X, y) == 1.0
