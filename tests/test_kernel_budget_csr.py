# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The budgeted walk on CSR rows (issue #35): the support vectors of a
budget kept as CSR runs, so that a visit, a removal and the memory cost
O(B * nnz) whatever the number of features.

The oracle is the dense feature-major store, which the walk takes for CSR
rows with few features (``DENSE_STORE_RATIO``) and which sums every kernel
value over the features in the same order: both stores must fit the same
model, bit for bit.
"""

import gc
import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from sklearn_perceptrons import KernelPerceptron
from sklearn_perceptrons._kernel import budget as _kernel_budget

KERNELS = ["rbf", "linear", "poly", "laplacian", "cosine", "sigmoid"]
STRATEGIES = ["local_projection", "projection", "forgetron", "random",
              "oldest"]


def sparse_data(n=160, n_features=30, density=0.3, n_classes=2, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, n_features))
    X[rng.rand(n, n_features) > density] = 0.0
    X[3] = 0.0  # an empty row
    score = X[:, 0] + X[:, 1] - X[:, 2] + 0.3 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


def fitted(X, y, store, monkeypatch, *, batches=None, **params):
    """A budgeted fit (or ``partial_fit`` over ``batches`` rows at a time)
    with the support vectors in the dense store or the CSR store, neither
    with the score cache (the CSR store has none), so that both are the
    same walk."""
    monkeypatch.setattr(_kernel_budget, "DENSE_STORE_RATIO",
                        np.inf if store == "dense" else 0.0)
    monkeypatch.setattr(_kernel_budget, "CACHE_ROWS_PER_SLOT", 0)
    monkeypatch.setattr(_kernel_budget, "SMALL_CACHE_ROWS_PER_SLOT", 0)
    clf = KernelPerceptron(**params)
    if batches is None:
        return clf.fit(X, y)
    for start in range(0, X.shape[0], batches):
        clf.partial_fit(X[start:start + batches], y[start:start + batches],
                        classes=np.unique(y))
    return clf


def assert_same_model(a, b, X):
    assert_array_equal(a.dual_coef_, b.dual_coef_)
    assert_array_equal(a.intercept_, b.intercept_)
    assert_array_equal(a.support_vectors_.toarray(), b.support_vectors_.toarray())
    assert_array_equal(a.decision_function(X), b.decision_function(X))


_NOT_PSD = pytest.mark.xfail(
    strict=True, raises=ValueError,
    reason="the projections of the non-PSD sigmoid kernel overflow")


@pytest.mark.parametrize("kernel, strategy", [
    pytest.param(kernel, strategy, marks=_NOT_PSD)
    if kernel == "sigmoid" and "projection" in strategy else (kernel, strategy)
    for kernel in KERNELS for strategy in STRATEGIES])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_csr_store_fits_the_model_of_the_dense_store(kernel, strategy,
                                                     n_classes, monkeypatch):
    # Every kernel value is summed over the features in the dense store's
    # order (the terms the CSR store skips add zero): the same model, bit
    # for bit, through removals, projections and the model checks.
    X, y = sparse_data(n_classes=n_classes)
    X = sp.csr_matrix(X)
    params = dict(kernel=kernel, gamma=0.05, budget=20,
                  budget_strategy=strategy, average=(n_classes == 3),
                  random_state=0, max_iter=4)
    dense = fitted(X, y, "dense", monkeypatch, **params)
    csr = fitted(X, y, "csr", monkeypatch, **params)
    assert dense.n_mistakes_ > 2 * 20  # the budget bound: removals happened
    assert_array_equal(csr.support_, dense.support_)
    assert csr.mistakes_per_epoch_ == dense.mistakes_per_epoch_
    assert_same_model(csr, dense, X)


@pytest.mark.parametrize("kernel", ["rbf", "laplacian", "linear"])
@pytest.mark.parametrize("strategy", ["local_projection", "projection"])
def test_csr_store_partial_fit_equals_the_dense_store(kernel, strategy,
                                                      monkeypatch):
    # partial_fit loads the support vectors of the previous call into the
    # store, in their order, and returns them as CSR rows.
    X, y = sparse_data(n_classes=3)
    X = sp.csr_matrix(X).astype(np.float32)
    params = dict(kernel=kernel, gamma=0.05, budget=15,
                  budget_strategy=strategy)
    for batches in (1, 7):
        dense = fitted(X, y, "dense", monkeypatch, batches=batches, **params)
        csr = fitted(X, y, "csr", monkeypatch, batches=batches, **params)
        assert csr.support_vectors_.dtype == np.float32
        assert_same_model(csr, dense, X)


@pytest.mark.parametrize("kernel", KERNELS)
def test_dense_and_csr_rows_fit_the_same_model(kernel, monkeypatch):
    # Dense rows sum a dot product over every feature, CSR rows over their
    # stored ones: the same terms (the others are zero) in the same order,
    # so the dot-product kernels give the same model bit for bit.  The
    # exponential kernels compute a distance from the rows themselves on
    # dense rows, from the norms and the dot product on CSR rows (or, for
    # "laplacian", from |sv|_1 and corrections): the same decisions, and
    # coefficients equal to rounding (the Forgetron's shrinking and the
    # projections read the kernel values).
    X, y = sparse_data(n_classes=3)
    params = dict(kernel=kernel, gamma=0.05, budget=20,
                  budget_strategy="forgetron", average=True, random_state=0,
                  max_iter=4)
    dense = fitted(X, y, "csr", monkeypatch, **params)
    csr = fitted(sp.csr_matrix(X), y, "csr", monkeypatch, **params)
    assert_array_equal(csr.support_, dense.support_)
    assert csr.mistakes_per_epoch_ == dense.mistakes_per_epoch_
    if kernel in ("rbf", "laplacian"):
        assert_allclose(csr.dual_coef_, dense.dual_coef_, rtol=1e-12,
                        atol=1e-12)
    else:
        assert_array_equal(csr.dual_coef_, dense.dual_coef_)


def test_csr_store_grows_and_compacts_to_the_same_model(monkeypatch):
    # A pool that holds barely the longest row: the walk compacts it when its
    # end is reached and stops for a larger one when the runs fill it,
    # resuming at the same visit; the model is the one of a roomy pool.
    X, y = sparse_data(n=200, n_features=60, density=0.5, n_classes=3)
    X = sp.csr_matrix(X)
    params = dict(budget=25, average=True, random_state=0, max_iter=3)
    roomy = fitted(X, y, "csr", monkeypatch, **params)
    sizes = []
    make_pool = _kernel_budget._BudgetState._make_pool

    def tiny_pool(self, size, slots, dtype):
        make_pool(self, int(np.diff(X.indptr).max()) + 1, slots, dtype)
        sizes.append(self.pool.shape[0])

    grow = _kernel_budget._BudgetState.grow_pool

    def recorded_grow(self, needed=0):
        grow(self, needed)
        sizes.append(self.pool.shape[0])

    monkeypatch.setattr(_kernel_budget._BudgetState, "_make_pool", tiny_pool)
    monkeypatch.setattr(_kernel_budget._BudgetState, "grow_pool", recorded_grow)
    tight = fitted(X, y, "csr", monkeypatch, **params)
    assert len(sizes) > 2 and sizes[-1] > sizes[0]
    assert_same_model(tight, roomy, X)


def _wide_rows(n, n_features, nnz, seed=0):
    """``n`` CSR rows of ``nnz`` stored values among ``n_features``."""
    rng = np.random.RandomState(seed)
    # Distinct columns, drawn without a permutation of all the features.
    columns = np.concatenate([
        np.unique(rng.randint(0, n_features, 4 * nnz))[:nnz] for _ in range(n)])
    assert columns.shape[0] == n * nnz
    X = sp.csr_matrix((rng.rand(n * nnz), columns, np.arange(0, n * nnz + 1, nnz)),
                      shape=(n, n_features))
    y = (X @ rng.normal(size=n_features) > 0).astype(int)
    return X, y


def _peak(call):
    # Warnings ignored: pytest's capture of a ConvergenceWarning (and the
    # source lines it reads) would be counted as the fit's memory.
    gc.collect()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tracemalloc.start()
        call()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_csr_budget_memory_does_not_grow_with_the_features():
    # The dense store of 2**20 features and 50 support vectors would take
    # 400 MB; the CSR store takes O(B * nnz), as on 2**10 features.
    budget, nnz = 50, 10
    peaks = []
    for n_features in (2**10, 2**20):
        X, y = _wide_rows(300, n_features, nnz)
        clf = KernelPerceptron(budget=budget, max_iter=2, random_state=0)
        peaks.append(_peak(lambda: clf.fit(X, y)))
        assert clf.support_vectors_.shape[0] == budget
        stream = KernelPerceptron(budget=budget)
        stream.partial_fit(X[:1], y[:1], classes=[0, 1])
        peaks.append(_peak(lambda: [stream.partial_fit(X[i:i + 1], y[i:i + 1])
                                    for i in range(1, 120)]))
    fit_small, stream_small, fit_wide, stream_wide = peaks
    assert fit_wide <= 1.5 * fit_small + 50_000
    assert stream_wide <= 1.5 * stream_small + 50_000
    assert max(peaks) < 2_000_000
