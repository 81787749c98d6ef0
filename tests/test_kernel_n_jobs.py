# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""KernelPerceptron(n_jobs=...): rows scored in parallel threads.

The oracle is the same fitted model scored with ``n_jobs=1``: every row is
scored by the same arithmetic whatever thread or block it falls in, so the
decisions must be equal bit for bit.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from joblib import parallel_backend
from numpy.testing import assert_array_equal
from sklearn.base import clone
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_perceptrons import KernelPerceptron


def data(n_classes, n=240, seed=0, n_features=6):
    X, y = make_blobs(n_samples=n, centers=n_classes, n_features=n_features,
                      cluster_std=2.0, random_state=seed)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    rng = np.random.RandomState(seed)
    X[rng.uniform(size=X.shape) < 0.3] = 0.0  # zeros, for a sparse layout
    return X, y


def fit(clf, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clf.fit(X, y)


def assert_same_for_every_n_jobs(clf, X_test):
    reference = clf.set_params(n_jobs=1).decision_function(X_test)
    predicted = clf.predict(X_test)
    for n_jobs in (2, 3, -1):
        clf.set_params(n_jobs=n_jobs)
        assert_array_equal(clf.decision_function(X_test), reference)
        assert_array_equal(clf.predict(X_test), predicted)
    return reference


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear", "laplacian"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_decision_is_bit_identical_for_every_n_jobs(kernel, sparse, dtype,
                                                    n_classes):
    X, y = data(n_classes)
    X = X.astype(dtype)
    if sparse:
        X = sp.csr_matrix(X)
    clf = fit(KernelPerceptron(kernel=kernel, max_iter=5, gamma=0.3), X[:160],
              y[:160])
    scores = assert_same_for_every_n_jobs(clf, X[160:])
    assert scores.shape == ((80,) if n_classes == 2 else (80, n_classes))


@pytest.mark.parametrize("params", [
    dict(budget=20, budget_strategy="forgetron"),
    dict(budget=20, budget_strategy="local_projection", average=True),
    dict(average=True),
    dict(multi_class="crammer_singer"),
])
def test_budgeted_averaged_and_crammer_singer_models(params):
    X, y = data(4, n=300, seed=1)
    clf = fit(KernelPerceptron(max_iter=4, **params), X[:200], y[:200])
    assert_same_for_every_n_jobs(clf, X[200:])


@pytest.mark.parametrize("kernel", ["callable", "precomputed"])
def test_python_level_kernels(kernel):
    X, y = data(3, seed=2)
    train, test = slice(0, 160), slice(160, None)

    def gaussian(A, B):
        return rbf_kernel(A, B, gamma=0.2)

    if kernel == "precomputed":
        clf = fit(KernelPerceptron(kernel="precomputed", max_iter=5),
                  gaussian(X[train], X[train]), y[train])
        X_test = gaussian(X[test], X[train])
    else:
        clf = fit(KernelPerceptron(kernel=gaussian, max_iter=5), X[train], y[train])
        X_test = X[test]
    # A small cache_size makes many blocks, scored on several threads.
    clf.set_params(cache_size=1e-4)
    assert_same_for_every_n_jobs(clf, X_test)


def test_every_row_of_a_long_input_is_scored():
    """More rows than blocks, and blocks of unequal length: each row's score
    equals the score of that row alone."""
    X, y = data(3, n=400, seed=3)
    clf = fit(KernelPerceptron(max_iter=3, n_jobs=2), X[:100], y[:100])
    scores = clf.decision_function(X)
    alone = np.vstack([clf.decision_function(X[i : i + 1]) for i in range(0, 400, 37)])
    assert_array_equal(scores[::37], alone)


def test_one_row_and_joblib_context():
    X, y = data(2, seed=4)
    clf = fit(KernelPerceptron(max_iter=3), X, y)
    reference = clf.decision_function(X)
    with parallel_backend("threading", n_jobs=2):
        assert_array_equal(clf.decision_function(X), reference)
    clf.set_params(n_jobs=4)
    assert_array_equal(clf.decision_function(X[:1]), reference[:1])


def test_n_jobs_does_not_change_training_and_is_validated():
    X, y = data(3, seed=5)
    one = fit(KernelPerceptron(max_iter=4), X, y)
    two = fit(KernelPerceptron(max_iter=4, n_jobs=2), X, y)
    assert_array_equal(one.dual_coef_, two.dual_coef_)
    assert "n_jobs" in clone(two).get_params()
    with pytest.raises(InvalidParameterError, match="n_jobs"):
        KernelPerceptron(n_jobs="all").fit(X, y)
