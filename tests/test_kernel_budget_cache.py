# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The score cache of a budgeted ``fit`` (``budget.cache_applies``): the
kernel columns of the support vectors over the training rows and the
scores of every training row, kept up to date by the walk, so that a visit
reads its scores instead of computing B kernel values.

The oracle is the walk without the cache (``CACHE_ROWS_PER_SLOT = 0``),
which computes every score afresh from the support vectors: the cached
scores are sums kept up to date, equal to those up to rounding, so on data
where no score falls within rounding of the threshold both walks make the
same updates and fit the same model (the same support vectors and
iterations, coefficients equal to rounding).  A second oracle checks the
cached scores themselves against the scores recomputed from the model.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_classification

from sklearn_perceptrons import KernelPerceptron
from sklearn_perceptrons._kernel import budget as _kernel_budget

CACHED = ["local_projection", "random", "oldest"]
KERNELS = ["rbf", "laplacian", "poly", "cosine", "linear"]


def data(n_classes, sparse, n=240, seed=3):
    X, y = make_classification(n, 8, n_informative=5, n_classes=n_classes,
                               n_clusters_per_class=1, random_state=seed)
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X))
    return X, y


def watch_cache(m):
    """Within the monkeypatch context ``m``: a list that gets, for each
    budgeted walk made, whether it keeps the score cache."""
    made = []
    original = _kernel_budget._BudgetState.__init__

    def spy(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self.cache_kc is not None)

    m.setattr(_kernel_budget._BudgetState, "__init__", spy)
    return made


def fit_both(X, y, monkeypatch, sample_weight=None, **params):
    """(cached fit, uncached fit, whether the first kept the cache)."""
    with monkeypatch.context() as m:
        made = watch_cache(m)
        cached = KernelPerceptron(**params).fit(
            X, y, sample_weight=sample_weight)
        used = made[-1]
        m.setattr(_kernel_budget, "CACHE_ROWS_PER_SLOT", 0)
        plain = KernelPerceptron(**params).fit(
            X, y, sample_weight=sample_weight)
        assert not made[-1]
    return cached, plain, used


def assert_same_model(a, b, X):
    assert_array_equal(a.support_, b.support_)
    assert a.n_iter_ == b.n_iter_
    assert_allclose(a.dual_coef_, b.dual_coef_, rtol=1e-9, atol=1e-12)
    da, db = a.decision_function(X), b.decision_function(X)
    assert_allclose(da, db, rtol=1e-9, atol=1e-9 * np.abs(db).max())
    assert_array_equal(a.predict(X), b.predict(X))


@pytest.mark.parametrize("strategy", CACHED)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("average", [True, False])
def test_cached_walk_fits_the_model_of_the_plain_walk(
        strategy, n_classes, sparse, average, monkeypatch):
    X, y = data(n_classes, sparse)
    weights = np.random.RandomState(0).uniform(0.5, 2.0, X.shape[0])
    for kernel in KERNELS:
        for sample_weight in (None, weights):
            cached, plain, used = fit_both(
                X, y, monkeypatch, sample_weight, budget=60, kernel=kernel,
                budget_strategy=strategy, average=average, random_state=0)
            assert used
            assert_same_model(cached, plain, X)


def test_cached_walk_float32_and_without_tol(monkeypatch):
    X, y = data(3, False)
    X = X.astype(np.float32)
    for tol in (None, 1e-3):
        cached, plain, used = fit_both(X, y, monkeypatch, budget=60,
                                       tol=tol, max_iter=7, random_state=1)
        assert used
        assert_same_model(cached, plain, X)


@pytest.mark.parametrize("strategy", CACHED)
@pytest.mark.parametrize("n_classes", [2, 4])
def test_cached_scores_are_the_scores_of_the_iterate(strategy, n_classes,
                                                     monkeypatch):
    """After an epoch, every training row's cached scores equal its scores
    computed afresh from the support vectors and coefficients."""
    X, y = data(n_classes, False)
    walks = []
    original = _kernel_budget._BudgetState.__init__

    def spy(self, *args, **kwargs):
        original(self, *args, **kwargs)
        walks.append(self)

    monkeypatch.setattr(_kernel_budget._BudgetState, "__init__", spy)
    # tol=None: no model check, so the walk keeps its last iterate.
    KernelPerceptron(budget=60, budget_strategy=strategy, tol=None,
                     max_iter=3, random_state=0).fit(X, y)
    walk = walks[-1]
    assert walk.cache_kc is not None
    n = walk.n_sv
    assert n == 60
    fresh = np.empty((X.shape[0], walk.K))
    walk.walker.scores(_kernel_budget.view(X),
                       np.ascontiguousarray(walk.alpha[:n].T), fresh)
    assert_allclose(walk.cache_sc.T, fresh, rtol=1e-10,
                    atol=1e-10 * np.abs(fresh).max())


def test_cache_rule(monkeypatch):
    """The cache serves a fresh fit with at most CACHE_ROWS_PER_SLOT rows
    per slot, within cache_size, a built-in kernel and a strategy whose
    removals change a few vectors; every other fit takes the plain walk."""
    X, y = data(2, False, n=200)

    def uses(Z=X, **params):
        with monkeypatch.context() as m:
            made = watch_cache(m)
            KernelPerceptron(random_state=0, **params).fit(Z, y)
        return made[-1]

    assert _kernel_budget.CACHE_ROWS_PER_SLOT == 4
    assert uses(budget=50)
    assert not uses(budget=49)  # 200 rows > 4 * 49 slots
    assert not uses(budget=50, budget_strategy="projection")
    assert not uses(budget=50, budget_strategy="forgetron")
    # (200 * (50 + 1)) float64 values do not fit in half their size.
    assert not uses(budget=50, cache_size=8 * 200 * 51 / 2**20 / 2)
    assert not uses(X @ X.T, budget=50, kernel="precomputed")
    assert not uses(budget=50, kernel=lambda A, B: A @ B.T)
