# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The score cache of a budgeted ``fit`` (``budget.cache_applies``): the
kernel columns of the support vectors over the training rows and the
scores of every training row, kept up to date by the walk, so that a visit
reads its scores instead of computing B kernel values.

The oracle is the walk without the cache (no rows per slot allowed),
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


def watch_walks(m):
    """Within the monkeypatch context ``m`` (or ``monkeypatch`` itself): a
    list that gets every budgeted walk made."""
    walks = []
    original = _kernel_budget._BudgetState.__init__

    def spy(self, *args, **kwargs):
        original(self, *args, **kwargs)
        walks.append(self)

    m.setattr(_kernel_budget._BudgetState, "__init__", spy)
    return walks


def fit_both(X, y, monkeypatch, sample_weight=None, **params):
    """(cached fit, uncached fit, whether the first kept the cache)."""
    with monkeypatch.context() as m:
        made = watch_cache(m)
        cached = KernelPerceptron(**params).fit(
            X, y, sample_weight=sample_weight)
        used = made[-1]
        m.setattr(_kernel_budget, "CACHE_ROWS_PER_SLOT", 0)
        m.setattr(_kernel_budget, "SMALL_CACHE_ROWS_PER_SLOT", 0)
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
    walks = watch_walks(monkeypatch)
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
    per slot, or SMALL_CACHE_ROWS_PER_SLOT when the columns take at most
    SMALL_CACHE_BYTES, within cache_size, a built-in kernel and a strategy
    whose removals change a few vectors; every other fit takes the plain
    walk."""
    X, y = data(2, False, n=200)

    def uses(Z=X, **params):
        with monkeypatch.context() as m:
            made = watch_cache(m)
            KernelPerceptron(random_state=0, **params).fit(Z, y)
        return made[-1]

    assert _kernel_budget.CACHE_ROWS_PER_SLOT == 4
    assert _kernel_budget.SMALL_CACHE_ROWS_PER_SLOT == 8
    assert uses(budget=50)
    # 200 rows > 4 * 49 slots, but <= 8 * 25 slots of small columns ...
    assert uses(budget=49)
    assert uses(budget=25)
    assert not uses(budget=24)
    # ... unless the columns are larger than SMALL_CACHE_BYTES.
    monkeypatch.setattr(_kernel_budget, "SMALL_CACHE_BYTES", 8 * 200 * 49 - 1)
    assert not uses(budget=49)
    assert uses(budget=50)
    assert not uses(budget=50, budget_strategy="projection")
    assert not uses(budget=50, budget_strategy="forgetron")
    # (200 * (50 + 1)) float64 values do not fit in half their size.
    assert not uses(budget=50, cache_size=8 * 200 * 51 / 2**20 / 2)
    assert not uses(X @ X.T, budget=50, kernel="precomputed")
    assert not uses(budget=50, kernel=lambda A, B: A @ B.T)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_column_store_fits_the_same_model_bit_for_bit(kernel, n_classes,
                                                      dtype, monkeypatch):
    """A column copied from the store of columns by row is the column the
    walk computes: with and without the store (cache_size between the
    cache's size and the cache's plus the store's), the same model to the
    last bit, on a budget small enough for rows to enter the support set
    again."""
    X, y = data(n_classes, False)
    X = X.astype(dtype)
    n, budget = X.shape[0], 60
    K = 1 if n_classes == 2 else n_classes
    cache_only = 8 * n * (budget + K + n / 2) / 2**20
    fits = []
    for cache_size in (200, cache_only):
        with monkeypatch.context() as m:
            walks = watch_walks(m)
            fits.append(KernelPerceptron(
                kernel=kernel, budget=budget, cache_size=cache_size,
                random_state=0).fit(X, y))
            fits[-1].walk = walks[-1]
    stored, computed = fits
    assert int(stored.walk.cache_store_done.sum()) > 0
    assert not hasattr(computed.walk, "cache_store_done")
    assert_array_equal(stored.support_, computed.support_)
    assert stored.n_iter_ == computed.n_iter_
    assert_array_equal(stored.dual_coef_, computed.dual_coef_)
    assert_array_equal(stored.decision_function(X), computed.decision_function(X))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_column_store_holds_each_rows_column(monkeypatch):
    """Every column the store marks as computed is the kernel column of its
    row, with the intercept's constant; rows that entered the support set
    more than once were computed once."""
    from sklearn.metrics.pairwise import rbf_kernel

    X, y = data(3, False)
    with monkeypatch.context() as m:
        walks = watch_walks(m)
        # tol=None: no model check, so the walk keeps its cache to the end.
        est = KernelPerceptron(budget=60, tol=None, max_iter=3,
                               random_state=0).fit(X, y)
    walk = walks[-1]
    rows = np.flatnonzero(walk.cache_store_done)
    assert rows.shape[0] > 60  # more rows entered than the budget holds
    assert est.n_mistakes_ > rows.shape[0]  # and some of them came back
    gamma = 1.0 / (X.shape[1] * X.var())
    expected = rbf_kernel(X[rows], X, gamma=gamma) + 1.0
    assert_allclose(walk.cache_store[rows], expected, rtol=1e-12)


def test_column_store_rule():
    """The store comes with the cache when n * (n + B + K) float64 values
    fit in cache_size."""
    X = np.zeros((400, 3))
    fits = lambda **p: _kernel_budget.store_applies(  # noqa: E731
        KernelPerceptron(budget=100, **p), X, 2)
    assert fits()
    assert fits(cache_size=8 * 400 * 502 / 2**20)
    assert not fits(cache_size=8 * 400 * 502 / 2**20 * 0.999)
