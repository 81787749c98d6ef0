# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of :class:`KernelPerceptron`, the dual (kernelized) perceptron.

The oracles: the primal :class:`Perceptron` (dual = primal with a linear
kernel), scikit-learn's ``pairwise_kernels``, and a pure-NumPy reference of
the (averaged, budgeted) kernel perceptron that recomputes every score from
the Gram matrix and averages an explicit sum of the iterates.
"""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import (
    load_digits,
    load_iris,
    make_blobs,
    make_circles,
    make_classification,
)
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.metrics.pairwise import pairwise_kernels, rbf_kernel
from sklearn.model_selection import StratifiedKFold
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_perceptrons import KernelPerceptron, Perceptron
from sklearn_perceptrons._kernel.kernels import Kernel
from sklearn_perceptrons._kernel.budget import AVERAGE_NEIGHBOURS, RIDGE

KERNELS = ["linear", "poly", "rbf", "sigmoid", "laplacian", "cosine"]
STRATEGIES = ["forgetron", "random", "oldest"]


@pytest.fixture(autouse=True)
def _no_convergence_warnings():
    # Most fits here run a fixed number of epochs on purpose.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


def fixed_epochs(**params):
    """A KernelPerceptron that runs exactly ``max_iter`` cyclic epochs; its
    model is the last iterate unless ``average`` is given."""
    return KernelPerceptron(**{"shuffle": False, "tol": None, "max_iter": 3,
                               "average": False, **params})


def binary_data(n=60, n_features=4, seed=0):
    X, y = make_classification(
        n, n_features, n_informative=2, n_redundant=0, flip_y=0.1,
        random_state=seed,
    )
    return X, y


def multiclass_data(n=60, seed=0):
    X, y = make_blobs(n, n_features=3, centers=4, cluster_std=3.0,
                      random_state=seed)
    return X, y


# -- the pure-NumPy reference --------------------------------------------------


def _splitmix64(state):
    mask = (1 << 64) - 1
    state = (state + 0x9E3779B97F4A7C15) & mask
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return state, z ^ (z >> 31)


def reference_kernel_perceptron(gram, y_class, n_classes, orders, *, step=None,
                                threshold=0.0, average=False, budget=None,
                                strategy="oldest", seed=0, alpha0=None,
                                coupled=None):
    """The (averaged, budgeted) kernel perceptron, from the definitions.

    ``gram`` is the padded Gram matrix K + 1 (or K) over all rows; every score
    is recomputed from it at every visit; the average is the explicit mean of
    the iterates after every visit, a removed support vector's share of it
    projected onto the span of its nearest kept vectors.  A row stops (no update, no visit) after an epoch without updates, as the
    per-row stopping rule of ``fit`` with ``tol=None`` does; with a budget the
    rows stop together, after an epoch without any update (``coupled``
    overrides this).  ``alpha0`` is
    the starting point.  The support list is kept as the compiled code keeps
    it (append, and
    removal by moving the last entry into the hole), because the "random"
    strategy draws a position in it.  Returns the dual coefficients of every
    row of ``gram``, shape (n, n_rows): the average or the last iterate.
    """
    n = gram.shape[0]
    n_rows = 1 if n_classes == 2 else n_classes
    if n_classes == 2:
        signs = np.array([[-1.0], [1.0]])
    else:
        signs = np.where(np.eye(n_classes, dtype=bool), 1.0, -1.0)
    step = np.ones(n) if step is None else step
    alpha = np.zeros((n, n_rows)) if alpha0 is None else alpha0.copy()
    support = [int(i) for i in np.flatnonzero(np.abs(alpha).sum(axis=1))]
    last_time = {i: 0 for i in support}
    history = np.zeros((n, n_rows))
    visits = np.zeros(n_rows)
    active = np.ones(n_rows, dtype=bool)
    clock, rng = 0, seed
    damage = np.zeros(n_rows)
    mistakes = np.zeros(n_rows)
    for order in orders:
        epoch_updates = np.zeros(n_rows)
        for i in order:
            s = signs[y_class[i]]
            score = gram[:, i] @ alpha
            update = (s * score <= threshold) & (step[i] != 0) & active
            epoch_updates += update
            if update.any():
                removed = None
                if i not in support and budget and len(support) >= budget:
                    if strategy == "random":
                        rng, z = _splitmix64(rng)
                        q = int((z >> 11) * (1.0 / 9007199254740992.0) * len(support))
                        removed = support[min(q, len(support) - 1)]
                    else:
                        removed = min(support, key=lambda j: last_time[j])
                alpha[i] += np.where(update, step[i] * s, 0.0)
                mistakes += update
                clock += 1
                last_time[i] = clock
                if i not in support:
                    support.append(i)
                if removed is not None:
                    if strategy == "forgetron":
                        score_r = gram[:, removed] @ alpha
                        for k in range(n_rows):
                            limit = 15.0 * mistakes[k] / 32.0
                            a = alpha[removed, k]
                            if a == 0:
                                continue
                            sigma, mu = abs(a), np.sign(a) * score_r[k]

                            def psi(phi, sigma=sigma, mu=mu):
                                return (sigma * phi) ** 2 + 2 * sigma * phi * (
                                    1 - phi * mu)

                            if psi(1.0) + damage[k] <= limit:
                                phi = 1.0
                            else:
                                # Largest phi in [0, 1] within the damage
                                # budget, by bisection on the definition.
                                lo, hi = 0.0, 1.0
                                for _ in range(200):
                                    mid = (lo + hi) / 2
                                    if psi(mid) + damage[k] <= limit:
                                        lo = mid
                                    else:
                                        hi = mid
                                phi = lo
                            damage[k] += psi(phi)
                            alpha[:, k] *= phi
                    # The removed vector's share of the average moves onto
                    # the span of its nearest kept vectors in kernel space,
                    # by (ridge) projection: the budget's projection strategy.
                    kept = [j for j in support if j not in (removed, i)]
                    if kept:
                        near = sorted(kept, key=lambda j: -(
                            gram[removed, j] ** 2 / gram[j, j]
                        ))[:AVERAGE_NEIGHBOURS]
                        coef = np.linalg.solve(
                            gram[np.ix_(near, near)] + RIDGE * np.eye(len(near)),
                            gram[near, removed])
                        history[near] += coef[:, None] * history[removed]
                    alpha[removed] = 0.0
                    history[removed] = 0.0
                    position = support.index(removed)
                    support[position] = support[-1]
                    support.pop()
                    del last_time[removed]
            visits += active
            history[:, active] += alpha[:, active]
        if coupled if coupled is not None else (budget and n_rows > 1):
            active &= epoch_updates.sum() > 0
        else:
            active &= epoch_updates > 0
    if average:
        return history / np.maximum(visits, 1)
    return alpha


def padded_gram(X, gamma, kernel="rbf", add=1.0, **params):
    return pairwise_kernels(X, metric=kernel, gamma=gamma, filter_params=True,
                            **params) + add


def dense_dual_coef(est, n):
    """dual_coef_ spread over the n training rows: shape (n, n_rows)."""
    coef = np.zeros((n, est.dual_coef_.shape[0]))
    coef[est.support_] = est.dual_coef_.T
    return coef


# -- dual = primal --------------------------------------------------------------


@pytest.mark.parametrize("multiclass", [False, True])
@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("tol", [None, 1e-3])
@pytest.mark.parametrize("sparse", [False, True])
def test_linear_kernel_equals_primal_perceptron(multiclass, shuffle, average,
                                                tol, sparse):
    X, y = multiclass_data(80) if multiclass else binary_data(80)
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0))
    params = dict(shuffle=shuffle, average=average, tol=tol, max_iter=25,
                  random_state=3)
    dual = KernelPerceptron(kernel="linear", **params).fit(X, y)
    primal = Perceptron(**params).fit(X, y)
    scale = np.abs(primal.decision_function(X)).max()
    assert_allclose(dual.decision_function(X), primal.decision_function(X),
                    rtol=1e-9, atol=1e-9 * scale)
    assert_allclose(dual.coef_, primal.coef_, rtol=1e-9, atol=1e-9 * scale)
    assert_allclose(dual.intercept_, primal.intercept_, rtol=1e-9,
                    atol=1e-9 * scale)
    assert dual.n_iter_ == primal.n_iter_
    assert dual.mistakes_per_epoch_ == primal.mistakes_per_epoch_
    assert dual.converged_ == primal.converged_


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_linear_kernel_equals_primal_with_weights_and_threshold(fit_intercept):
    X, y = multiclass_data(70, seed=1)
    rng = np.random.RandomState(0)
    sample_weight = rng.uniform(0, 2, size=X.shape[0])
    sample_weight[:5] = 0.0
    params = dict(threshold=0.7, fit_intercept=fit_intercept, shuffle=True,
                  max_iter=15, class_weight={0: 2.0, 3: 0.5}, average=True)
    dual = KernelPerceptron(kernel="linear", **params).fit(
        X, y, sample_weight=sample_weight)
    primal = Perceptron(**params).fit(X, y, sample_weight=sample_weight)
    assert_allclose(dual.decision_function(X), primal.decision_function(X),
                    rtol=1e-9, atol=1e-9)
    assert dual.mistakes_per_epoch_ == primal.mistakes_per_epoch_
    # A sample of weight zero never updates, so it is never a support vector.
    assert not np.isin(np.arange(5), dual.support_).any()


@settings(deadline=None, max_examples=25)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(5, 40),
    n_classes=st.integers(2, 4),
    average=st.booleans(),
)
def test_dual_equals_primal_property(seed, n, n_classes, average):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 3))
    y = rng.randint(n_classes, size=n)
    y[:n_classes] = np.arange(n_classes)
    params = dict(shuffle=False, average=average, max_iter=10, tol=None)
    dual = KernelPerceptron(kernel="linear", **params).fit(X, y)
    primal = Perceptron(**params).fit(X, y)
    assert_allclose(dual.decision_function(X), primal.decision_function(X),
                    rtol=1e-9, atol=1e-9)


# -- separation -----------------------------------------------------------------


@pytest.mark.parametrize("kernel, params", [
    ("rbf", {"gamma": 2.0}),
    ("poly", {"degree": 2, "gamma": 1.0, "coef0": 1.0}),
])
def test_xor_and_circles_are_separated(kernel, params):
    rng = np.random.RandomState(0)
    centers = np.array([[1, 1], [-1, -1], [1, -1], [-1, 1]], dtype=float)
    labels = np.array([0, 0, 1, 1])
    which = rng.randint(4, size=200)
    X_xor = centers[which] + rng.uniform(-0.4, 0.4, size=(200, 2))
    y_xor = labels[which]
    X_circles, y_circles = make_circles(200, factor=0.5, noise=0.05,
                                        random_state=0)
    for X, y in [(X_xor, y_xor), (X_circles, y_circles)]:
        # A linear perceptron cannot do it...
        assert Perceptron(max_iter=50).fit(X, y).score(X, y) < 0.9
        clf = KernelPerceptron(kernel=kernel, **params, max_iter=200).fit(X, y)
        assert clf.converged_
        assert clf.score(X, y) == 1.0
        assert (np.where(y == 1, 1, -1) * clf.decision_function(X) > 0).all()


# -- kernels ----------------------------------------------------------------------


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n_features", [2, 6, 19])
def test_kernels_equal_pairwise_kernels(kernel, sparse, dtype, n_features):
    # 2 features have loops of their own, 6 only the tail of the unrolled
    # reductions, 19 both parts.
    rng = np.random.RandomState(0)
    X = rng.normal(size=(30, n_features)) * (
        rng.uniform(size=(30, n_features)) < 0.6)
    Y = rng.normal(size=(20, n_features)) * (
        rng.uniform(size=(20, n_features)) < 0.6)
    X[3] = 0.0  # a zero row (cosine: 0 by convention)
    params = dict(gamma=0.3, degree=3, coef0=0.5)
    expected = pairwise_kernels(Y, X, metric=kernel, filter_params=True,
                                **params)
    X_, Y_ = X.astype(dtype), Y.astype(dtype)
    if sparse:
        X_, Y_ = sp.csr_matrix(X_), sp.csr_matrix(Y_)
    got = Kernel(kernel, params["gamma"], params["degree"], params["coef0"],
                  None).matrix(Y_, X_)
    rtol = 1e-12 if dtype == np.float64 else 1e-5
    assert_allclose(got, expected, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n_features", [3, 8, 13, 64])
def test_rbf_gram_is_exactly_symmetric_with_unit_diagonal(dtype, n_features):
    # Dense rbf computes |a - b|^2 from dot products and squared norms, all
    # summed in one order: K(a, a) is exactly 1 and K(a, b) == K(b, a) bit
    # for bit, and the values stay within rounding of scikit-learn's.
    rng = np.random.RandomState(n_features)
    X = (rng.normal(size=(25, n_features)) * 10.0).astype(dtype)
    X[7] = X[3]  # two equal rows
    gram = Kernel("rbf", 0.01, 3, 0.0, None).matrix(X, X)
    assert_array_equal(np.diag(gram), 1.0)
    assert gram[7, 3] == 1.0
    assert_array_equal(gram, gram.T)
    assert_allclose(gram, rbf_kernel(X.astype(np.float64), gamma=0.01),
                    rtol=1e-12, atol=1e-15)


@pytest.mark.skipif(np.finfo(np.longdouble).precision <= 15,
                    reason="needs a long double wider than double")
def test_exponential_is_accurate_to_a_few_ulp():
    # "laplacian" on one feature with gamma=1 and z = 0 is exp(-|x|), with an
    # exact argument: the vectorized exponential alone, against a long
    # double reference, over its whole range and densely near 0.
    rng = np.random.RandomState(0)
    t = np.concatenate([rng.uniform(0.0, 708.39, 100_000),
                        rng.uniform(0.0, 2.0, 50_000)])
    got = Kernel("laplacian", 1.0, 3, 0.0, None).matrix(t[:, None],
                                                        np.zeros((1, 1)))[:, 0]
    reference = np.exp(-t.astype(np.longdouble))
    ulp = np.spacing(reference.astype(np.float64)).astype(np.longdouble)
    errors = np.abs(got.astype(np.longdouble) - reference) / ulp
    assert errors.max() <= 2.5
    assert errors.mean() <= 0.5


@pytest.mark.parametrize("kernel", ["rbf", "laplacian"])
def test_exponential_kernels_over_their_whole_range(kernel):
    # The vectorized exponential against NumPy's over 700 orders of magnitude,
    # and the smallest normal double as the floor.
    rng = np.random.RandomState(0)
    X = rng.normal(size=(50, 3))
    for gamma in [1e-4, 1e-2, 1.0, 10.0, 100.0, 1e4]:
        expected = pairwise_kernels(X, metric=kernel, gamma=gamma)
        got = Kernel(kernel, gamma, 3, 1.0, None).matrix(X, X)
        tiny = np.finfo(np.float64).tiny
        normal = expected > 2 * tiny
        assert_allclose(got[normal], expected[normal], rtol=1e-11)
        assert_allclose(got[~normal], tiny, rtol=1e-12)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("sparse", [False, True])
def test_decision_function_is_the_kernel_expansion(kernel, sparse):
    X, y = multiclass_data(60)
    X_test = np.random.RandomState(1).normal(size=(25, 3)) * 4
    if sparse:
        X, X_test = sp.csr_matrix(X), sp.csr_matrix(X_test)
    params = dict(gamma=0.05, degree=2, coef0=1.0)
    clf = fixed_epochs(kernel=kernel, **params).fit(X, y)
    gram = pairwise_kernels(X_test, clf.support_vectors_, metric=kernel,
                            filter_params=True, **params)
    expected = gram @ clf.dual_coef_.T + clf.intercept_
    assert_allclose(clf.decision_function(X_test), expected, rtol=1e-10,
                    atol=1e-10 * np.abs(expected).max())
    assert_allclose(clf.intercept_, clf.dual_coef_.sum(axis=1))
    Xd = X.toarray() if sparse else X
    assert_allclose(clf.support_vectors_.toarray() if sparse else
                    clf.support_vectors_, Xd[clf.support_])


def test_precomputed_equals_the_kernel_it_was_computed_from():
    X, y = multiclass_data(70)
    X_test = np.random.RandomState(2).normal(size=(15, 3)) * 4
    for kernel in ["rbf", "poly"]:
        params = dict(gamma=0.05, degree=2, coef0=1.0)
        direct = KernelPerceptron(kernel=kernel, average=True, max_iter=20,
                                  **params).fit(X, y)
        gram = pairwise_kernels(X, metric=kernel, filter_params=True, **params)
        gram_test = pairwise_kernels(X_test, X, metric=kernel,
                                     filter_params=True, **params)
        pre = KernelPerceptron(kernel="precomputed", average=True,
                               max_iter=20).fit(gram, y)
        assert_array_equal(pre.support_, direct.support_)
        assert_allclose(pre.dual_coef_, direct.dual_coef_, rtol=1e-10,
                        atol=1e-12)
        assert_allclose(pre.decision_function(gram_test),
                        direct.decision_function(X_test), rtol=1e-9, atol=1e-9)
        assert pre.mistakes_per_epoch_ == direct.mistakes_per_epoch_


def _sklearn_rbf(A, B, gamma=0.05):
    return rbf_kernel(A, B, gamma=gamma)


def _sklearn_poly(A, B, gamma=0.05):
    return pairwise_kernels(A, B, metric="poly", gamma=gamma, degree=3,
                            coef0=1.0)


@pytest.mark.parametrize("cache_size", [1e-4, 200])
def test_callable_kernel_equals_builtin(cache_size):
    # cache_size=1e-4 MB forces one call of the callable per column (and
    # evictions); 200 MB one call for the whole Gram matrix.
    # (A gamma for which no score is a tie up to rounding: the two compute
    # the kernel with different roundings.  "poly": a kernel whose values
    # in a fit are double, as a callable's are.)
    X, y = multiclass_data(60)
    # (No budget: with a budget every kernel takes the walk of
    # _kernel_budget.)
    params = dict(shuffle=True, max_iter=8, average=True)
    builtin = KernelPerceptron(kernel="poly", gamma=0.05, degree=3, coef0=1.0,
                               **params).fit(X, y)
    calls = []

    def kernel(A, B, gamma):
        calls.append(B.shape[0])
        return _sklearn_poly(A, B, gamma)

    custom = KernelPerceptron(kernel=kernel, kernel_params={"gamma": 0.05},
                              cache_size=cache_size, **params).fit(X, y)
    if cache_size == 200:
        assert calls == [X.shape[0]]
    else:
        assert len(calls) > 25 and set(calls) == {1}
    assert_array_equal(custom.support_, builtin.support_)
    assert_allclose(custom.dual_coef_, builtin.dual_coef_, rtol=1e-12)
    assert_allclose(custom.decision_function(X), builtin.decision_function(X),
                    rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("kernel", ["rbf", "poly", "laplacian"])
@pytest.mark.parametrize("n_features", [2, 12, 64])
@pytest.mark.parametrize("budget", [None, 15])
@pytest.mark.parametrize("max_iter", [1, 6])
def test_cache_size_does_not_change_the_result(kernel, n_features, budget,
                                               max_iter):
    # Continuous random features (no rounding): tiny caches evict (and in a
    # single pass columns enter the cache on their second use only), the
    # largest holds the Gram matrix; every kernel value is computed in one
    # order, so the fits agree bit for bit.
    X, y = make_classification(120, n_features, n_informative=2,
                               n_redundant=0, flip_y=0.2, random_state=0)
    X += np.random.RandomState(1).normal(scale=1e-3, size=X.shape)
    fits = [
        KernelPerceptron(kernel=kernel, degree=2, max_iter=max_iter,
                         budget=budget, average=True,
                         cache_size=size).fit(X, y)
        for size in [1e-5, 120 * 8 * 3 / 2**20, 200]
    ]
    for other in fits[1:]:
        assert_array_equal(other.support_, fits[0].support_)
        assert_array_equal(other.dual_coef_, fits[0].dual_coef_)
        assert_array_equal(other.decision_function(X),
                           fits[0].decision_function(X))
        # The training scores themselves, which a decision exposes only
        # near a tie: summed in the same order.
        assert_array_equal(other._state["sv_scores"],
                           fits[0]._state["sv_scores"])


@settings(deadline=None, max_examples=30)
@given(
    seed=st.integers(0, 10_000),
    n_features=st.integers(3, 40),
    n_classes=st.integers(2, 4),
    kernel=st.sampled_from(["rbf", "linear", "poly", "cosine", "laplacian"]),
    multi_class=st.sampled_from(["ovr", "crammer_singer"]),
    average=st.booleans(),
    max_iter=st.sampled_from([1, 2, 7]),
    float32=st.booleans(),
)
def test_batched_columns_equal_updates_one_by_one(
        seed, n_features, n_classes, kernel, multi_class, average, max_iter,
        float32):
    # With lines to spare, the walk computes the new columns of dense rows
    # several per pass over X and, until then, adds their terms to each
    # visited score; a cache of a few lines updates one column at a time.
    # Every score, so every decision, and the fit must agree bit for bit,
    # on continuous data, in single passes (columns in scratch lines) and
    # over epochs whose few mistakes leave columns waiting for long.
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(150, n_features))
    y = rng.randint(n_classes, size=150)
    y[:n_classes] = np.arange(n_classes)
    X[np.arange(150), y % n_features] += 1.5
    if float32:
        X = X.astype(np.float32)
    params = dict(kernel=kernel, degree=2, multi_class=multi_class,
                  average=average, max_iter=max_iter, tol=None, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        # 150 float32 or float64 values a line: 1e-3 MB holds at most 6 lines.
        one_by_one = KernelPerceptron(cache_size=1e-3, **params).fit(X, y)
        batched = KernelPerceptron(cache_size=200, **params).fit(X, y)
    assert_array_equal(batched.support_, one_by_one.support_)
    assert_array_equal(batched.dual_coef_, one_by_one.dual_coef_)
    assert batched.n_mistakes_ == one_by_one.n_mistakes_
    assert_array_equal(batched._state["sv_scores"],
                       one_by_one._state["sv_scores"])
    assert_array_equal(batched.decision_function(X),
                       one_by_one.decision_function(X))


def test_dense_sparse_and_float32_agree():
    X, y = multiclass_data(80)
    ref = KernelPerceptron(max_iter=10, average=True).fit(X, y)
    csr = KernelPerceptron(max_iter=10, average=True).fit(sp.csr_matrix(X), y)
    assert_array_equal(csr.support_, ref.support_)
    assert_allclose(csr.dual_coef_, ref.dual_coef_, rtol=1e-12)
    assert sp.issparse(csr.support_vectors_)
    X32 = X.astype(np.float32)
    f32 = KernelPerceptron(max_iter=10, average=True).fit(X32, y)
    assert f32.support_vectors_.dtype == np.float32
    assert_array_equal(f32.support_, ref.support_)
    assert_allclose(f32.dual_coef_, ref.dual_coef_, rtol=1e-5)
    assert_allclose(f32.decision_function(X32), ref.decision_function(X),
                    rtol=1e-4, atol=1e-4)


# -- the reference: averaging, budgets, multiclass --------------------------------


@pytest.mark.parametrize("multiclass", [False, True])
@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("budget, strategy", [
    (None, "forgetron"), (8, "forgetron"), (8, "random"), (8, "oldest"),
    (1, "oldest"), (40, "random"),
])
def test_matches_numpy_reference(multiclass, average, budget, strategy):
    X, y = multiclass_data(50) if multiclass else binary_data(50)
    classes, y_class = np.unique(y, return_inverse=True)
    rng = np.random.RandomState(0)
    sample_weight = rng.uniform(0.5, 1.5, size=X.shape[0])
    gamma = 0.2
    clf = fixed_epochs(gamma=gamma, average=average, budget=budget,
                       budget_strategy=strategy, threshold=0.3,
                       random_state=7).fit(X, y, sample_weight=sample_weight)
    seed = 0
    if budget is not None and strategy == "random":
        seed = int(np.random.RandomState(7).randint(
            np.iinfo(np.int64).max, dtype=np.int64)) ^ 0x5851F42D4C957F2D
    expected = reference_kernel_perceptron(
        padded_gram(X, gamma), y_class, len(classes),
        [np.arange(X.shape[0])] * 3, step=sample_weight, threshold=0.3,
        average=average, budget=budget, strategy=strategy, seed=seed,
    )
    assert_allclose(dense_dual_coef(clf, X.shape[0]), expected, rtol=1e-9,
                    atol=1e-12)
    assert set(clf.support_) == set(np.flatnonzero(np.abs(expected).sum(1)))


@pytest.mark.parametrize("multiclass", [False, True])
@pytest.mark.parametrize("strategy", ["forgetron", "random", "oldest"])
def test_precomputed_budget_matches_numpy_reference(multiclass, strategy):
    # A precomputed Gram matrix with a budget takes the budgeted walk of
    # _kernel_budget, which reads its entries: the same budgeted perceptron.
    X, y = multiclass_data(50) if multiclass else binary_data(50)
    classes, y_class = np.unique(y, return_inverse=True)
    gram = padded_gram(X, 0.2, add=0.0)
    clf = fixed_epochs(kernel="precomputed", budget=8,
                       budget_strategy=strategy, threshold=0.3,
                       random_state=7).fit(gram, y)
    seed = 0
    if strategy == "random":
        seed = int(np.random.RandomState(7).randint(
            np.iinfo(np.int64).max, dtype=np.int64)) ^ 0x5851F42D4C957F2D
    expected = reference_kernel_perceptron(
        gram + 1.0, y_class, len(classes), [np.arange(X.shape[0])] * 3,
        threshold=0.3, budget=8, strategy=strategy, seed=seed,
    )
    assert_allclose(dense_dual_coef(clf, X.shape[0]), expected, rtol=1e-9,
                    atol=1e-12)
    assert clf.dual_coef_.shape[1] <= 8


def test_budgeted_rows_stop_together():
    # A tight class whose row stops making mistakes early, while removals made
    # for the other rows go on changing it.  With a budget the rows stop
    # together (after an epoch without any update), so that a stopped row is
    # never left wrong.
    X, y = make_blobs(40, n_features=2, centers=3, cluster_std=[0.3, 1.5, 1.5],
                      random_state=11)
    clf = fixed_epochs(max_iter=10, gamma=0.05, budget=12,
                       budget_strategy="oldest").fit(X, y)
    orders = [np.arange(X.shape[0])] * 10
    gram = padded_gram(X, 0.05)
    expected = reference_kernel_perceptron(gram, y, 3, orders, budget=12,
                                           strategy="oldest")
    per_row = reference_kernel_perceptron(gram, y, 3, orders, budget=12,
                                          strategy="oldest", coupled=False)
    assert not np.allclose(per_row, expected)  # the case matters
    assert_allclose(dense_dual_coef(clf, X.shape[0]), expected, rtol=1e-9,
                    atol=1e-12)


def test_averaged_matches_reference_with_shuffling():
    X, y = multiclass_data(40)
    y_class = np.unique(y, return_inverse=True)[1]
    clf = KernelPerceptron(gamma=0.2, average=True, shuffle=True, tol=None,
                           max_iter=4, random_state=11).fit(X, y)
    # The epochs' permutations, drawn as fit draws them: one 63-bit seed per
    # epoch from random_state, then the compiled Fisher-Yates shuffle.
    from sklearn_perceptrons._core._shuffle import shuffle_indices

    rng = np.random.RandomState(11)
    orders = []
    for _ in range(4):
        order = np.arange(X.shape[0], dtype=np.int32)
        shuffle_indices(order, int(rng.randint(0, 2**63 - 1, dtype=np.int64)))
        orders.append(order)
    expected = reference_kernel_perceptron(padded_gram(X, 0.2), y_class, 4,
                                           orders, average=True)
    assert_allclose(dense_dual_coef(clf, X.shape[0]), expected, rtol=1e-9,
                    atol=1e-12)


# -- budgets ----------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("multiclass", [False, True])
def test_budget_is_never_exceeded(strategy, average, multiclass):
    X, y = multiclass_data(200) if multiclass else binary_data(200)
    budget = 10
    params = dict(budget=budget, budget_strategy=strategy, average=average)
    clf = KernelPerceptron(max_iter=5, **params).fit(X, y)
    # _max_support_seen: the largest support set between two visits of fit.
    assert clf._max_support_seen == budget
    assert clf.dual_coef_.shape[1] <= budget
    assert len(clf.support_) <= budget
    online = KernelPerceptron(**params)
    sizes = []
    for i in range(X.shape[0]):
        online.partial_fit(X[i : i + 1], y[i : i + 1], classes=np.unique(y))
        sizes.append(online.support_vectors_.shape[0])
        assert online.dual_coef_.shape[1] == sizes[-1]
    assert max(sizes) == budget
    assert online._max_support_seen == budget


def test_forgetron_keeps_its_damage_budget_and_shrinks():
    X, y = binary_data(300, seed=3)
    budget = 8
    # (tol=None: the last iterate; with the rule on, fit returns the best
    # epoch's model and state.)
    clf = KernelPerceptron(budget=budget, budget_strategy="forgetron",
                           max_iter=5, tol=None, average=False).fit(X, y)
    # The cumulative damage never exceeds 15/32 of the mistakes ...
    damage, mistakes = clf._state["forget"]
    assert mistakes.sum() == clf.n_mistakes_
    assert (damage <= 15 * mistakes / 32 + 1e-9).all()
    assert (damage > 0).all()
    # ... and shrinking leaves coefficients below one update's size.
    oldest = KernelPerceptron(budget=budget, budget_strategy="oldest",
                              max_iter=5, average=False).fit(X, y)
    assert np.abs(clf.dual_coef_).min() < 1.0
    assert np.all(np.abs(oldest.dual_coef_) % 1.0 == 0.0)


def test_budget_at_least_the_data_changes_nothing():
    X, y = multiclass_data(60)
    free = KernelPerceptron(max_iter=10, average=True).fit(X, y)
    for strategy in STRATEGIES:
        roomy = KernelPerceptron(max_iter=10, average=True, budget=60,
                                 budget_strategy=strategy).fit(X, y)
        assert_array_equal(roomy.dual_coef_, free.dual_coef_)


# -- partial_fit --------------------------------------------------------------------


@pytest.mark.parametrize("batch", [1, 7, 1000])
@pytest.mark.parametrize("budget, strategy", [
    (None, "forgetron"), (9, "forgetron"), (9, "random"), (9, "oldest"),
])
@pytest.mark.parametrize("multiclass", [False, True])
def test_partial_fit_pass_equals_one_epoch(batch, budget, strategy, multiclass):
    X, y = multiclass_data(70) if multiclass else binary_data(70)
    params = dict(average=True, budget=budget, budget_strategy=strategy,
                  threshold=0.2, gamma=0.3)
    epoch = fixed_epochs(max_iter=1, **params).fit(X, y)
    online = KernelPerceptron(**params)
    for start in range(0, X.shape[0], batch):
        online.partial_fit(X[start : start + batch], y[start : start + batch],
                           classes=np.unique(y))
    assert_allclose(online.support_vectors_, X[epoch.support_])
    assert_allclose(online.dual_coef_, epoch.dual_coef_, rtol=1e-9, atol=1e-12)
    assert_allclose(online.decision_function(X), epoch.decision_function(X),
                    rtol=1e-9, atol=1e-9)
    assert online.n_mistakes_ == epoch.n_mistakes_
    assert not hasattr(online, "support_")


def test_partial_fit_after_fit_continues_the_iterate():
    X, y = binary_data(80)
    clf = fixed_epochs(max_iter=2).fit(X, y)
    clf.partial_fit(X, y)
    three = fixed_epochs(max_iter=3).fit(X, y)
    assert_allclose(clf.decision_function(X), three.decision_function(X),
                    rtol=1e-9, atol=1e-9)
    assert clf.n_iter_ == 3


def test_partial_fit_keeps_gamma_of_the_first_batch():
    X, y = binary_data(80)
    clf = KernelPerceptron().partial_fit(X[:10], y[:10], classes=[0, 1])
    assert clf.gamma_ == pytest.approx(1.0 / (X.shape[1] * X[:10].var()))
    clf.partial_fit(X[10:], y[10:])
    assert clf.gamma_ == pytest.approx(1.0 / (X.shape[1] * X[:10].var()))


# -- warm start ------------------------------------------------------------------


@pytest.mark.parametrize("budget", [None, 10])
def test_warm_start_on_the_same_data_continues(budget):
    X, y = multiclass_data(60)
    clf = fixed_epochs(max_iter=2, warm_start=True, budget=budget).fit(X, y)
    clf.set_params(max_iter=3).fit(X, y)
    five = fixed_epochs(max_iter=5, budget=budget).fit(X, y)
    assert_array_equal(clf.support_, five.support_)
    assert_allclose(clf.dual_coef_, five.dual_coef_, rtol=1e-9, atol=1e-12)


def test_warm_start_on_other_data_starts_from_the_previous_function():
    X, y = binary_data(80)
    one = fixed_epochs(max_iter=1, gamma=0.3).fit(X[:40], y[:40])
    clf = fixed_epochs(max_iter=1, gamma=0.3, warm_start=True).fit(X[:40], y[:40])
    clf.fit(X[40:], y[40:])
    # Reference: rows [support vectors of the first fit; X[40:]], starting
    # from the first fit's coefficients, visiting X[40:] only.
    n_old = one.support_.shape[0]
    rows = np.vstack([one.support_vectors_, X[40:]])
    alpha0 = np.zeros((rows.shape[0], 1))
    alpha0[:n_old] = one.dual_coef_.T
    y_rows = np.concatenate([y[:40][one.support_], y[40:]])
    expected = reference_kernel_perceptron(
        padded_gram(rows, 0.3), y_rows, 2, [np.arange(n_old, rows.shape[0])],
        alpha0=alpha0,
    )
    carried = clf.support_ < 0
    assert carried.sum() == n_old
    index = np.where(carried, 0, clf.support_ + n_old)
    index[carried] = np.arange(n_old)
    got = np.zeros_like(expected)
    got[index] = clf.dual_coef_.T
    assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


# -- weights ------------------------------------------------------------------------


def test_sample_weight_scales_the_dual_coefficients():
    X, y = multiclass_data(60)
    one = fixed_epochs(max_iter=4).fit(X, y)
    two = fixed_epochs(max_iter=4).fit(X, y, sample_weight=np.full(60, 2.0))
    assert_array_equal(two.support_, one.support_)
    assert_allclose(two.dual_coef_, 2 * one.dual_coef_)
    assert_allclose(two.intercept_, 2 * one.intercept_)


def test_class_weight_equals_sample_weight_by_class():
    X, y = multiclass_data(60)
    weights = {0: 0.5, 1: 2.0, 2: 1.0, 3: 3.0}
    by_class = fixed_epochs(class_weight=weights).fit(X, y)
    by_sample = fixed_epochs().fit(X, y, sample_weight=[weights[c] for c in y])
    assert_allclose(by_class.dual_coef_, by_sample.dual_coef_)


def test_no_intercept():
    X, y = binary_data(60)
    clf = fixed_epochs(fit_intercept=False, kernel="linear").fit(X, y)
    assert_array_equal(clf.intercept_, [0.0])
    primal = Perceptron(fit_intercept=False, shuffle=False, tol=None,
                        max_iter=3).fit(X, y)
    assert_allclose(clf.decision_function(X), primal.decision_function(X),
                    rtol=1e-9, atol=1e-9)


# -- attributes, determinism, pickling, verbose -------------------------------------


def test_fitted_attributes():
    X, y = multiclass_data(60)
    clf = KernelPerceptron(max_iter=30).fit(X, y)
    n_sv = clf.support_.shape[0]
    assert clf.dual_coef_.shape == (4, n_sv)
    assert clf.intercept_.shape == (4,)
    assert clf.support_vectors_.shape == (n_sv, 3)
    assert_array_equal(clf.n_support_, np.bincount(y[clf.support_], minlength=4))
    assert clf.gamma_ == pytest.approx(1.0 / (3 * X.var()))
    assert KernelPerceptron(gamma="auto").fit(X, y).gamma_ == pytest.approx(1 / 3)
    assert clf.n_mistakes_ == sum(clf.mistakes_per_epoch_)
    assert len(clf.mistakes_per_epoch_) == clf.n_iter_
    assert np.all(np.diff(clf.support_) > 0)
    with pytest.raises(AttributeError, match="linear"):
        clf.coef_
    assert not hasattr(clf, "predict_proba")
    Xb, yb = binary_data(60)
    binary = KernelPerceptron(max_iter=30).fit(Xb, yb)
    assert binary.dual_coef_.shape[0] == 1
    assert binary.decision_function(Xb).shape == (60,)


def test_deterministic_random_state():
    X, y = binary_data(100)
    params = dict(max_iter=5, budget=10, budget_strategy="random")
    a = KernelPerceptron(random_state=5, **params).fit(X, y)
    b = KernelPerceptron(random_state=5, **params).fit(X, y)
    c = KernelPerceptron(random_state=6, **params).fit(X, y)
    assert_array_equal(a.dual_coef_, b.dual_coef_)
    assert_array_equal(a.support_, b.support_)
    assert not (np.array_equal(a.support_, c.support_)
                and np.array_equal(a.dual_coef_, c.dual_coef_))


def test_pickle_round_trip_and_continued_training():
    X, y = multiclass_data(80)
    clf = KernelPerceptron(budget=15, average=True, budget_strategy="random")
    clf.partial_fit(X[:40], y[:40], classes=np.unique(y))
    copy = pickle.loads(pickle.dumps(clf))
    assert_array_equal(copy.predict(X), clf.predict(X))
    clf.partial_fit(X[40:], y[40:])
    copy.partial_fit(X[40:], y[40:])
    assert_array_equal(copy.dual_coef_, clf.dual_coef_)


def test_verbose(capsys):
    X, y = binary_data(40)
    clf = fixed_epochs(verbose=1, kernel="linear").fit(X, y)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 4 and all("Epoch" in line for line in lines[:3])
    assert lines[3].startswith("-- Stopped after 3 epochs")
    # The norm printed is ||f|| = ||w~|| = sqrt(||w||^2 + b^2) of the primal.
    norm = float(lines[-2].split("||f|| ")[1].split(",")[0])
    expected = np.sqrt(np.sum(clf.coef_ ** 2) + np.sum(clf.intercept_ ** 2))
    assert norm == pytest.approx(expected, rel=1e-3)


def test_chunked_prediction_equals_one_block():
    X, y = multiclass_data(60)
    X_test = np.random.RandomState(3).normal(size=(300, 3)) * 4
    small = KernelPerceptron(kernel=_sklearn_rbf, cache_size=1e-4).fit(X, y)
    large = KernelPerceptron(kernel=_sklearn_rbf).fit(X, y)
    builtin = KernelPerceptron(gamma=0.05).fit(X, y)
    assert_allclose(small.decision_function(X_test),
                    large.decision_function(X_test))
    assert_allclose(builtin.decision_function(X_test),
                    large.decision_function(X_test), rtol=1e-10, atol=1e-10)
    assert_array_equal(builtin.decision_function(X_test[:7]),
                       builtin.decision_function(X_test)[:7])


# -- errors --------------------------------------------------------------------------


def test_errors_of_the_common_contract():
    X, y = binary_data(40)
    clf = KernelPerceptron()
    with pytest.raises(NotFittedError):
        clf.predict(X)
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        clf.fit(X_nan, y)
    with pytest.raises(ValueError, match=r"class.*'a'|'a'.*class"):
        clf.fit(X, np.full(40, "a"))
    with pytest.raises(ValueError, match="classes"):
        KernelPerceptron().partial_fit(X, y)
    with pytest.raises(ValueError, match="not in classes"):
        KernelPerceptron().partial_fit(X, y + 5, classes=[0, 1])
    with pytest.raises(ValueError, match="[Nn]egative"):
        clf.fit(X, y, sample_weight=-np.ones(40))
    clf.fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :2])
    with pytest.raises(ValueError, match="NaN"):
        clf.predict(X_nan)


@pytest.mark.parametrize("params", [
    {"kernel": "chi2"}, {"gamma": -1.0}, {"gamma": "big"}, {"degree": -1},
    {"degree": 1.5}, {"budget": 0}, {"budget_strategy": "lru"},
    {"cache_size": 0}, {"threshold": -0.1}, {"kernel_params": [1]},
])
def test_invalid_parameters(params):
    X, y = binary_data(20)
    with pytest.raises(InvalidParameterError):
        KernelPerceptron(**params).fit(X, y)


def test_precomputed_errors():
    X, y = binary_data(30)
    gram = X @ X.T
    with pytest.raises(ValueError, match="square"):
        KernelPerceptron(kernel="precomputed").fit(gram[:, :20], y)
    clf = KernelPerceptron(kernel="precomputed").fit(gram, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(gram[:, :20])
    with pytest.raises(TypeError, match="dense"):
        clf.predict(sp.csr_matrix(gram))
    assert not hasattr(clf, "partial_fit")
    assert hasattr(KernelPerceptron(), "partial_fit")


def test_callable_of_the_wrong_shape():
    X, y = binary_data(30)
    with pytest.raises(ValueError, match="shape"):
        KernelPerceptron(
            kernel=lambda A, B: np.ones((A.shape[0], B.shape[0] + 1))).fit(X, y)
    clf = KernelPerceptron(kernel=lambda A, B: A @ B.T).fit(X, y)
    clf.set_params(kernel=lambda A, B: (A @ B.T)[:, :1])
    with pytest.raises(ValueError, match="shape"):
        clf.predict(X)


def test_overflow_raises_and_leaves_the_model_unchanged():
    X, y = binary_data(40)
    X = X * 100
    clf = KernelPerceptron(kernel="poly", degree=2, gamma=1.0).fit(X, y)
    before = clf.dual_coef_.copy()
    clf.set_params(degree=200, warm_start=False)
    with pytest.raises(ValueError, match="non-finite"):
        clf.fit(X, y)
    assert_array_equal(clf.dual_coef_, before)
    assert clf.degree == 200
    with pytest.raises(ValueError, match="non-finite"):
        clf.partial_fit(X, y)
    assert_array_equal(clf.dual_coef_, before)


def test_warm_start_errors():
    X, y = multiclass_data(40)
    clf = KernelPerceptron(warm_start=True, max_iter=3).fit(X, y)
    with pytest.raises(ValueError, match="classes"):
        clf.fit(X, np.where(y == 3, 2, y))
    with pytest.raises(ValueError, match="features"):
        clf.fit(X[:, :2], y)
    gram = X @ X.T
    pre = KernelPerceptron(kernel="precomputed", warm_start=True).fit(gram, y)
    with pytest.raises(ValueError, match="precomputed"):
        pre.fit(gram + 1.0, y)


def test_iris_accuracy():
    X, y = load_iris(return_X_y=True)
    clf = KernelPerceptron(average=True).fit(X, y)
    assert clf.score(X, y) > 0.95


@pytest.mark.parametrize("average", [False, True])
def test_one_vs_all_rows_stop_on_their_own_rule(average):
    # Each one-vs-all row is the binary problem "class k vs. the rest",
    # which stops on its own rule (here after different numbers of epochs:
    # frozen rows take no update and count no visit while the others go
    # on).  Its coefficients are those of the binary fit, bit for bit.
    X, y = load_digits(return_X_y=True)
    X, y = X[:400], y[:400] % 4
    params = {"kernel": "rbf", "average": average, "random_state": 3}
    ova = KernelPerceptron(**params).fit(X, y)
    epochs = []
    for k in range(4):
        binary = KernelPerceptron(**params).fit(X, y == k)
        coef = np.zeros(X.shape[0])
        coef[binary.support_] = binary.dual_coef_[0]
        expected = np.zeros(X.shape[0])
        expected[ova.support_] = ova.dual_coef_[k]
        assert_array_equal(coef, expected)
        epochs.append(binary.n_iter_)
    assert len(set(epochs)) > 1  # the rows did stop at different epochs
    assert ova.n_iter_ == max(epochs)


def test_single_precision_lines_are_refused_where_they_do_not_apply(
        monkeypatch):
    # The walk takes float32 lines for the exponential kernels only (the
    # others keep double columns).
    from sklearn_perceptrons._kernel import dual, kernels

    monkeypatch.setattr(dual, "SINGLE_PRECISION", (kernels.KERNEL_CODES["poly"],))
    X, y = binary_data(30)
    with pytest.raises(ValueError, match="rbf and laplacian kernels only"):
        KernelPerceptron(kernel="poly").fit(X, y)


# -- hardening (issue #18) ---------------------------------------------------------


def test_float32_batch_keeps_the_float64_support_vectors():
    # After a float64 fit, a float32 batch (even one that cannot update) and a
    # warm start on float32 data keep the earlier support vectors in float64.
    X, y = binary_data(40)
    X = X + np.random.RandomState(3).normal(scale=1e-9, size=X.shape)
    clf = KernelPerceptron(max_iter=5).fit(X, y)
    before = clf.support_vectors_.copy()
    clf.partial_fit(X[:1].astype(np.float32), y[:1])
    assert clf.support_vectors_.dtype == np.float64
    assert_array_equal(clf.support_vectors_[: before.shape[0]], before)
    warm = KernelPerceptron(max_iter=5, warm_start=True).fit(X, y)
    sv = warm.support_vectors_.copy()
    warm.fit(X[::-1].astype(np.float32), y[::-1])
    assert warm.support_vectors_.dtype == np.float64
    # The carried-over support vectors come first, unrounded.
    assert_array_equal(warm.support_vectors_[: sv.shape[0]], sv)


@pytest.mark.parametrize("scale", [1e-160, 1e-200])
def test_gamma_scale_on_data_of_vanishing_variance(scale):
    # The variance underflows float64: gamma="scale" is computed on the
    # rescaled data, and where it overflows the error says so.
    X, y = binary_data(40)
    ref = KernelPerceptron(gamma="scale").fit(X, y)
    with pytest.raises(ValueError, match="gamma='scale'.*below the range"):
        KernelPerceptron(gamma="scale").fit(X * scale, y)
    with pytest.raises(ValueError, match="gamma='scale'"):
        KernelPerceptron(kernel="poly", gamma="scale").fit(X * scale, y)
    # Just above the underflow, the value is SVC's formula, unchanged model.
    small = KernelPerceptron(gamma="scale").fit(X * 1e-150, y)
    assert_allclose(small.gamma_ * 1e-300, ref.gamma_, rtol=1e-12)
    assert_array_equal(small.predict(X * 1e-150), ref.predict(X))
    # A constant X keeps gamma_ = 1.
    assert KernelPerceptron().fit(np.full((4, 2), 1e-200), [0, 1, 0, 1]).gamma_ == 1.0


def test_overflowing_kernel_names_the_parameters_in_play():
    X, y = binary_data(30)
    with pytest.raises(ValueError, match=r"gamma_=1e\+100, coef0=1, degree=3"):
        KernelPerceptron(kernel="poly", gamma=1e100).fit(X * 1e100, y)


@pytest.mark.parametrize("cache_size", [np.int32(2048), np.uint8(250),
                                        np.float32(0.5), 1e9])
def test_cache_size_of_numpy_types(cache_size):
    X, y = binary_data(30)
    clf = KernelPerceptron(cache_size=cache_size).fit(X, y)
    assert_array_equal(clf.dual_coef_, KernelPerceptron().fit(X, y).dual_coef_)


@pytest.mark.parametrize("params", [{"cache_size": 1.7e302},
                                    {"cache_size": np.inf},
                                    {"budget": 2**63}, {"budget": 2**70}])
def test_absurd_sizes_are_refused_clearly(params):
    X, y = binary_data(30)
    with pytest.raises(InvalidParameterError):
        KernelPerceptron(**params).fit(X, y)


def test_huge_budget_is_no_budget():
    X, y = binary_data(30)
    clf = KernelPerceptron(budget=2**63 - 1).fit(X, y)
    assert_array_equal(clf.dual_coef_, KernelPerceptron().fit(X, y).dual_coef_)


def test_complex_callable_kernel_is_refused():
    X, y = binary_data(30)

    def kernel(A, B):
        return (A @ B.T).astype(np.complex128) * (1 + 1e-3j)

    with pytest.raises(ValueError, match="complex"):
        KernelPerceptron(kernel=kernel).fit(X, y)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("sparse", [False, True])
def test_avx2_build_equals_baseline_build(kernel, sparse, monkeypatch):
    # The AVX2 twin of the compiled walk rounds as the baseline build: the
    # same training scores, coefficients and decisions, bit for bit.
    import importlib

    from sklearn_perceptrons._kernel import kernels
    from sklearn_perceptrons._core.cpu import cpu_has_avx2

    if not cpu_has_avx2():
        pytest.skip("this CPU has no AVX2")
    try:
        avx2 = importlib.import_module("sklearn_perceptrons._kernel._kernel_fast_avx2")
    except ImportError:
        pytest.skip("the AVX2 build is not available on this platform")
    baseline = importlib.import_module("sklearn_perceptrons._kernel._kernel_fast")
    X, y = multiclass_data(70)
    X = np.hstack([X, np.random.RandomState(5).normal(size=(70, 10))])
    X_test = np.random.RandomState(6).normal(size=(20, 13))
    if sparse:
        X, X_test = sp.csr_matrix(X), sp.csr_matrix(X_test)
    results = []
    for module in (avx2, baseline):
        monkeypatch.setattr(kernels, "kernel_fast", module)
        clf = KernelPerceptron(kernel=kernel, gamma=0.05, degree=2,
                               max_iter=4, average=True).fit(X, y)
        results.append((clf.dual_coef_, clf._state["sv_scores"],
                        clf.decision_function(X_test)))
    for a, b in zip(*results):
        assert_array_equal(a, b)


def test_gamma_scale_on_data_of_huge_variance():
    # The variance overflows float64: gamma="scale" is computed on the
    # rescaled data (the same model as on the unscaled data), and where
    # gamma itself underflows the error says so.
    X, y = binary_data(40)
    ref = KernelPerceptron().fit(X, y)
    big = KernelPerceptron().fit(X * 1e150, y)
    assert_allclose(big.gamma_ * 1e300, ref.gamma_, rtol=1e-12)
    assert_array_equal(big.predict(X * 1e150), ref.predict(X))
    with pytest.raises(ValueError, match="gamma='scale'.*above the range"):
        KernelPerceptron().fit(X * 1e160, y)


def test_rbf_distances_that_overflow_are_refused():
    # Squared norms beyond float64 make every rbf distance meaningless:
    # a clear error in fit (dense and CSR) and in decision_function.
    X, y = binary_data(40)
    for Z in (X * 1e160, sp.csr_matrix(X * 1e160)):
        with pytest.raises(ValueError, match="squared norms"):
            KernelPerceptron(gamma=1e-300).fit(Z, y)
    clf = KernelPerceptron(gamma=1.0).fit(X, y)
    for Z in (X[:5] * 1e160, sp.csr_matrix(X[:5] * 1e160)):
        with pytest.raises(ValueError, match="squared norms"):
            clf.decision_function(Z)


def test_degree_beyond_the_range_of_int32_is_refused():
    X, y = binary_data(20)
    with pytest.raises(InvalidParameterError):
        KernelPerceptron(kernel="poly", degree=2**40).fit(X, y)


@pytest.mark.parametrize("kernel", ["rbf", "laplacian"])
@pytest.mark.parametrize("sparse", [False, True])
def test_training_kernel_values_are_within_the_single_precision_bound(kernel,
                                                                      sparse):
    # A fit takes the exponential kernels in single precision (absolute
    # error below 7.7e-8 per kernel value); decision_function in double.
    # The training scores of the support vectors therefore stay within
    # sum |alpha| * 7.7e-8 of the decision function there, and differ.
    rng = np.random.RandomState(0)
    X = rng.normal(size=(150, 6))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=150) > 0).astype(int)
    if sparse:
        X = sp.csr_matrix(X)
    clf = KernelPerceptron(kernel=kernel, gamma=0.3, max_iter=5,
                           average=False).fit(X, y)
    trained = clf._state["sv_scores"][:, 0]
    exact = clf.decision_function(clf.support_vectors_)
    bound = np.abs(clf.dual_coef_).sum() * 7.7e-8
    assert np.abs(trained - exact).max() <= bound
    assert np.abs(trained - exact).max() > 0


# -- defaults ----------------------------------------------------------------------


def test_default_is_the_average_which_keeps_above_the_majority_class():
    # Noisy, imbalanced data: the last iterate depends on the last few
    # mistakes and can predict worse than the majority class on a fold; the
    # average over every visit does not.  KernelPerceptron() is the average.
    X, y = make_classification(500, 8, n_informative=2, n_redundant=0,
                               weights=[0.7], flip_y=0.3, class_sep=0.8,
                               random_state=0)
    assert KernelPerceptron().average is True
    last_margin, default_margin = [], []
    for train, test in StratifiedKFold(5, shuffle=True,
                                       random_state=0).split(X, y):
        majority = np.mean(y[test] == np.bincount(y[train]).argmax())
        last = KernelPerceptron(average=False).fit(X[train], y[train])
        default = KernelPerceptron().fit(X[train], y[train])
        last_margin.append(last.score(X[test], y[test]) - majority)
        default_margin.append(default.score(X[test], y[test]) - majority)
    assert min(last_margin) < -0.1  # the failure the default avoids
    assert min(default_margin) > 0.0


# -- the compiled row view ---------------------------------------------------------


def test_row_view_reads_dense_and_csr_in_place_and_refuses_copies():
    # ``Matrix`` is how every compiled entry point of the dual walk reads
    # X: dense C-ordered or CSR (int32 indices), float32 or float64, never
    # copied; what it cannot read in place is refused, not converted.
    from sklearn_perceptrons._kernel.kernels import Kernel, kernel_fast, view

    rng = np.random.RandomState(0)
    X = rng.normal(size=(7, 5))
    X[X < 0.3] = 0.0
    Z = rng.normal(size=(4, 5))
    kernel = Kernel("rbf", 0.3, 3, 0.0, None)
    expected = rbf_kernel(X, Z, gamma=0.3)
    for A in (X, sp.csr_matrix(X), X.astype(np.float32),
              sp.csr_matrix(X.astype(np.float32))):
        B = Z.astype(A.dtype)
        out = np.empty((7, 4))
        assert kernel_fast.kernel_rows(view(A), view(B), kernel.norms(B),
                                       kernel.spec, out) == 0
        assert_allclose(out, expected, rtol=1e-5 if A.dtype == np.float32
                        else 1e-12)
        # A block of rows scores as the same rows of the whole.
        block = np.empty((3, 4))
        kernel_fast.kernel_rows(view(A).rows(2, 5), view(B), kernel.norms(B),
                                kernel.spec, block)
        assert_array_equal(block, out[2:5])
    with pytest.raises(ValueError, match="C-ordered"):
        view(np.asfortranarray(X))
    with pytest.raises(TypeError, match="float32 or float64"):
        view(X.astype(np.int64))
    with pytest.raises(ValueError, match="rows 3:9"):
        view(X).rows(3, 9)
    with pytest.raises(TypeError, match="same dtype"):
        kernel_fast.kernel_rows(view(X), view(Z.astype(np.float32)),
                                kernel.norms(Z), kernel.spec, np.empty((7, 4)))
