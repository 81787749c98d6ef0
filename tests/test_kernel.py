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
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_perceptrons import KernelPerceptron, Perceptron, _kernel_fast
from sklearn_perceptrons._kernel import _Kernel
from sklearn_perceptrons._kernel_budget import NEIGHBOURS, RIDGE

SAMPLE_WEIGHT_XFAIL = {
    "check_sample_weight_equivalence_on_dense_data": (
        "an update scaled by a weight is not the same as visiting a sample "
        "twice, for an online algorithm (as scikit-learn's Perceptron)"
    ),
    "check_sample_weight_equivalence_on_sparse_data": (
        "an update scaled by a weight is not the same as visiting a sample "
        "twice, for an online algorithm (as scikit-learn's Perceptron)"
    ),
}
KERNELS = ["linear", "poly", "rbf", "sigmoid", "laplacian", "cosine"]
STRATEGIES = ["forgetron", "random", "oldest"]


@pytest.fixture(autouse=True)
def _no_convergence_warnings():
    # Most fits here run a fixed number of epochs on purpose.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


def fixed_epochs(**params):
    """A KernelPerceptron that runs exactly ``max_iter`` cyclic epochs."""
    return KernelPerceptron(**{"shuffle": False, "tol": None, "max_iter": 3,
                               **params})


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
                    # by (ridge) projection (API.md §4, revised).
                    kept = [j for j in support if j not in (removed, i)]
                    if kept:
                        near = sorted(kept, key=lambda j: -(
                            gram[removed, j] ** 2 / gram[j, j]))[:NEIGHBOURS]
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


# -- scikit-learn's estimator checks ----------------------------------------------


@parametrize_with_checks(
    [
        KernelPerceptron(),
        KernelPerceptron(kernel="precomputed"),
        KernelPerceptron(kernel="poly", degree=2, average=True),
        KernelPerceptron(budget=60),
    ],
    expected_failed_checks=lambda est: SAMPLE_WEIGHT_XFAIL,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


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
    got = _Kernel(kernel, params["gamma"], params["degree"], params["coef0"],
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
    gram = _Kernel("rbf", 0.01, 3, 0.0, None).matrix(X, X)
    assert_array_equal(np.diag(gram), 1.0)
    assert gram[7, 3] == 1.0
    assert_array_equal(gram, gram.T)
    assert_allclose(gram, rbf_kernel(X.astype(np.float64), gamma=0.01),
                    rtol=1e-12, atol=1e-15)


def _several_columns(kernel, Z, P, rows, params, add=0.0, exact=False,
                     transposed=False):
    """K(Z[rows], P) + add by the blocked walk's several-probe pass, as an
    (n_probes, n_rows of Z) array (zeros outside ``rows``); ``exact``: its
    float32 variant, ``transposed`` (with ``exact``, consecutive ``rows``)
    that variant's pass over Z transposed by blocks."""
    kern = _Kernel(kernel, params["gamma"], params["degree"], params["coef0"],
                   None)
    P = np.ascontiguousarray(P, dtype=np.float64)
    probe_norms = np.zeros(P.shape[0])  # as the walk takes a probe's norm
    _kernel_fast.row_norms(P.ravel(), np.zeros(1, dtype=np.int32), False,
                           P.shape[0], P.shape[1], probe_norms)
    out = np.zeros((P.shape[0], Z.shape[0]))
    values32 = Z.ravel().astype(np.float32) if exact else None
    bad = _kernel_fast.several_columns(
        Z.ravel(), Z.shape[1], kern.norms(Z), *kern.args, add, P, probe_norms,
        np.asarray(rows, dtype=np.int32), out, values32,
        _kernel_fast.transposed_copy(values32, *Z.shape) if transposed
        else None,
    )
    assert bad == 0
    return out


def _integer_rows(rng, n, n_features, high):
    return rng.randint(-high, high + 1, size=(n, n_features)).astype(np.float64)


def _chunk_order_dot(z, x):
    """The chunk order, in plain Python floats: chunks of CHUNK features
    summed left to right from zero, the chunk sums added left to right."""
    total = 0.0
    for start in range(0, len(z), _kernel_fast.CHUNK):
        chunk_sum = 0.0
        for f in range(start, min(start + _kernel_fast.CHUNK, len(z))):
            chunk_sum += float(z[f]) * float(x[f])
        total += chunk_sum
    return total


@settings(deadline=None, max_examples=40)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(1, 11),
    n_features=st.integers(1, 70),
    n_probes=st.integers(1, 19),
    float32=st.booleans(),
)
def test_several_probe_pass_sums_in_chunk_order(seed, n, n_features, n_probes,
                                                float32):
    # The blocked walk's pass computes tiles of 4 rows x 8 probes (and
    # single rows, and half panels of 4 probes): every dot product must
    # still be the chunk-order sum, bit for bit, whichever tile it fell in,
    # for every number of features (chunk and panel remainders), any subset
    # of rows, and with all the probes at once, one probe or one row at a
    # time.
    rng = np.random.RandomState(seed)
    Z = rng.normal(size=(n, n_features)).astype(
        np.float32 if float32 else np.float64)
    P = rng.normal(size=(n_probes, n_features))
    rows = np.sort(rng.choice(n, size=rng.randint(1, n + 1), replace=False))
    params = dict(gamma=1.0, degree=3, coef0=0.0)
    got = _several_columns("linear", Z, P, rows, params)
    expected = np.zeros_like(got)
    for q in range(n_probes):
        for j in rows:
            expected[q, j] = _chunk_order_dot(Z[j], P[q])
    assert_array_equal(got, expected)
    for j in rows:
        assert_array_equal(
            _several_columns("linear", Z, P, [j], params)[:, j], got[:, j])
    for q in range(n_probes):
        assert_array_equal(
            _several_columns("linear", Z, P[q : q + 1], rows, params)[0],
            got[q])


# The kernels whose values in a fit are single-precision (see "Training
# precision" in _kernel_fast).
SINGLE_PRECISION_KERNELS = ["rbf", "laplacian"]
# Their relative error bound: 2^-23, the float32 ulp of 1 (measured: 1.13e-7).
SINGLE_RTOL = 2.0**-23


def _exp_single_reference(x):
    """NumPy's float32 arithmetic doing the steps of ``skp_exp_single``
    (IEEE single precision, each operation rounded): its exact values."""
    x = np.asarray(x, dtype=np.float64)
    shifter = 6755399441055744.0
    kd = x * 1.4426950408889634 + shifter
    k = (kd.view(np.int64) - 0x4338000000000000).astype(np.int32)
    kd = kd - shifter
    r = ((x - kd * 6.93147180369123816490e-01)
         - kd * 1.90821492927058770002e-10).astype(np.float32)
    f = np.float32
    p = f(1.0) + r * (f(1.0) + r * (f(0.5) + r * (f(0.16666415333747864)
        + r * (f(0.04166635125875473) + r * (f(0.00837512593716383)
        + r * f(0.0013941108481958508))))))
    scale = ((np.maximum(k, -127) + 127) << 23).astype(np.int32).view(np.float32)
    return p * scale


def _exp_single(x):
    out = np.empty(len(x), dtype=np.float32)
    _kernel_fast.exp_single(np.ascontiguousarray(x, dtype=np.float64), out)
    return out


@settings(deadline=None)
@given(x=st.lists(st.floats(-708.3964185322641, 0.0), min_size=1,
                  max_size=70))
def test_single_precision_exponential_is_its_reference(x):
    # Bit for bit (any length: the vectorized body and the remainder).
    assert_array_equal(_exp_single(x), _exp_single_reference(x))


def test_single_precision_exponential_error_bounds():
    # Over the whole range of the clamped arguments, by a dense grid and the
    # ends of the reduction's intervals (x = (k +- 1/2) ln 2).
    k = np.arange(-1022, 1)
    x = np.concatenate([
        np.linspace(-708.3964185322641, 0.0, 2_000_001),
        (k + 0.5) * np.log(2), (k - 0.5) * np.log(2), [-0.0],
    ])
    x = x[(x >= -708.3964185322641) & (x <= 0.0)]
    value = _exp_single(x).astype(np.float64)
    exact = np.exp(x)
    assert np.max(np.abs(value - exact)) < 7.7e-8
    normal = exact >= 2.0**-126
    assert_allclose(value[normal], exact[normal], rtol=SINGLE_RTOL, atol=0)
    assert np.all(value[~normal] < 2.0**-126)
    assert _exp_single([0.0])[0] == 1.0


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n_features", [2, 7, 40, 64])
def test_several_probe_pass_is_the_kernel_and_exactly_symmetric(
        kernel, dtype, n_features):
    # Against scikit-learn, with the constant feature added; and K(a, b) ==
    # K(b, a) bit for bit, which the blocked walk relies on when it copies a
    # new column's entries from the columns it has already.  The
    # exponential kernels' values are float32 values within their bound.
    rng = np.random.RandomState(n_features)
    Z = (rng.normal(size=(23, n_features)) * 2.0).astype(dtype)
    params = dict(gamma=0.02, degree=3, coef0=0.5)
    gram = _several_columns(kernel, Z, Z, np.arange(23), params, add=1.0)
    expected = pairwise_kernels(Z.astype(np.float64), metric=kernel,
                                filter_params=True, **params) + 1.0
    if kernel in SINGLE_PRECISION_KERNELS:
        values = _several_columns(kernel, Z, Z, np.arange(23), params)
        assert_array_equal(values.astype(np.float32), values)
        assert_array_equal(gram, values + 1.0)
        assert_allclose(values, expected - 1.0, rtol=SINGLE_RTOL, atol=0)
    else:
        assert_allclose(gram, expected, rtol=1e-12, atol=1e-12)
    assert_array_equal(gram, gram.T)


@pytest.mark.parametrize("kernel", SINGLE_PRECISION_KERNELS)
@pytest.mark.parametrize("n_probes", [1, 9])
def test_several_probe_pass_takes_the_single_precision_exponential(kernel,
                                                                   n_probes):
    # Two features: the pass's arguments in closed form, the same operations
    # as NumPy's; the values are then the reference's, bit for bit.
    rng = np.random.RandomState(n_probes)
    Z = rng.normal(size=(45, 2)) * 3.0
    params = dict(gamma=0.7, degree=3, coef0=0.0)
    values = _several_columns(kernel, Z, Z[:n_probes], np.arange(45), params)
    u = Z[None, :, :] - Z[:n_probes, None, :]
    if kernel == "rbf":
        arg = -0.7 * (u[..., 0] * u[..., 0] + u[..., 1] * u[..., 1])
    else:
        arg = -0.7 * (np.abs(u[..., 0]) + np.abs(u[..., 1]))
    arg = np.maximum(arg, -708.3964185322641)
    assert_array_equal(values, _exp_single_reference(arg.ravel()).reshape(
        arg.shape))


def _exact_cases(max_rows):
    """Hypothesis cases of the exact variant: up to ``max_rows`` rows and 19
    probes of integers in [-high, high], whose squared norms are at most
    2**24 (70 * 255**2 < 2**24)."""
    return given(
        seed=st.integers(0, 2**16),
        n=st.integers(1, max_rows),
        n_features=st.integers(3, 70),
        n_probes=st.integers(1, 19),
        kernel=st.sampled_from(["linear", "poly", "rbf", "sigmoid", "cosine"]),
        high=st.sampled_from([1, 16, 255]),
    )


def _exact_problem(seed, n, n_features, n_probes, high):
    """(rng, ZP, probe_rows, params): n rows and then the probes, which must
    be rows of the Z the float32 copies are taken from."""
    rng = np.random.RandomState(seed)
    Z = _integer_rows(rng, n, n_features, high)
    P = _integer_rows(rng, n_probes, n_features, high)
    ZP = np.vstack([Z, P])
    assert _kernel_fast.exact_in_float32(ZP.ravel(), np.sum(ZP**2, axis=1))
    params = dict(gamma=1.0 / (n_features * high**2), degree=2, coef0=1.0)
    return rng, ZP, np.arange(n, n + n_probes), params


@settings(deadline=None, max_examples=40)
@_exact_cases(max_rows=11)
def test_exact_float32_pass_equals_the_float64_pass(seed, n, n_features,
                                                    n_probes, kernel, high):
    # On integers whose squared norms are at most 2**24, every dot product
    # is exact in float32: the float32 variant (eight probes to a vector,
    # another order of summation) gives the very values of the float64
    # pass, for every tile shape and remainder, one row or one probe at a
    # time too.
    rng, ZP, probe_rows, params = _exact_problem(seed, n, n_features,
                                                 n_probes, high)
    rows = np.sort(rng.choice(n, size=rng.randint(1, n + 1), replace=False))
    got = _several_columns(kernel, ZP, ZP[probe_rows], rows, params,
                           exact=True)
    expected = _several_columns(kernel, ZP, ZP[probe_rows], rows, params)
    assert_array_equal(got, expected)
    for j in rows:
        assert_array_equal(
            _several_columns(kernel, ZP, ZP[probe_rows], [j], params,
                             exact=True)[:, j], expected[:, j])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_exact_in_float32_needs_integers_of_bounded_norm(dtype):
    X = np.array([[0, 3, -4], [16, 0, 255], [1, 1, 1]], dtype=dtype)

    def exact(X):
        return _kernel_fast.exact_in_float32(
            X.ravel(), np.sum(X.astype(np.float64) ** 2, axis=1))

    assert exact(X)
    assert not exact(X + dtype(0.5))  # not integers
    assert not exact(np.array([[4096.0, 1.0]], dtype=dtype))  # norm**2 > 2**24
    assert exact(np.array([[4096.0, 0.0]], dtype=dtype))  # norm**2 == 2**24
    big = np.full((1, 300), 255.0, dtype=dtype)  # 300 * 255**2 > 2**24
    assert not exact(big)
    for bad in (np.nan, np.inf):
        Y = X.copy()
        Y[1, 1] = bad
        assert not _kernel_fast.exact_in_float32(Y.ravel(), np.zeros(3))


def test_exact_in_float32_copies_float64_values_in_the_same_pass():
    X = np.array([[0, 3, -4], [16, 0, 255], [0, 0, -4096]], dtype=np.float64)
    sq_norms = np.sum(X**2, axis=1)
    copy = np.full(X.size, np.nan, dtype=np.float32)
    assert _kernel_fast.exact_in_float32(X.ravel(), sq_norms, copy)
    assert_array_equal(copy, X.ravel())
    # The answer does not depend on asking for the copy.
    Y = X + 0.5
    assert not _kernel_fast.exact_in_float32(Y.ravel(), sq_norms,
                                             np.empty(X.size, np.float32))
    with pytest.raises(ValueError, match="copy must be float32"):
        _kernel_fast.exact_in_float32(X.ravel(), sq_norms,
                                      np.empty(X.size - 1, np.float32))
    with pytest.raises(ValueError, match="copy must be float32"):
        _kernel_fast.exact_in_float32(X.ravel().astype(np.float32), sq_norms,
                                      np.empty(X.size, np.float32))


@pytest.mark.skipif(np.finfo(np.longdouble).precision <= 15,
                    reason="needs a long double wider than double")
def test_exponential_is_accurate_to_a_few_ulp():
    # "laplacian" on one feature with gamma=1 and z = 0 is exp(-|x|), with an
    # exact argument: the vectorized exponential alone, against a long
    # double reference, over its whole range and densely near 0.
    rng = np.random.RandomState(0)
    t = np.concatenate([rng.uniform(0.0, 708.39, 100_000),
                        rng.uniform(0.0, 2.0, 50_000)])
    got = _Kernel("laplacian", 1.0, 3, 0.0, None).matrix(t[:, None],
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
        got = _Kernel(kernel, gamma, 3, 1.0, None).matrix(X, X)
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
    # (No budget: a budget with a built-in kernel takes the walk of
    # _kernel_budget, a callable's stays here.)
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


@pytest.mark.parametrize("n_features", [2, 12])
@pytest.mark.parametrize("budget", [None, 15])
@pytest.mark.parametrize("max_iter", [1, 6])
def test_cache_size_does_not_change_the_result(n_features, budget, max_iter):
    # Tiny caches evict (and in a single pass columns enter the cache on their
    # second use only): the computation must not depend on it.
    X, y = make_classification(120, n_features, n_informative=2,
                               n_redundant=0, flip_y=0.2, random_state=0)
    # Features on a grid of quarters: exact dot products in any order, so
    # that the blocked walk of the largest cache (its own summation order)
    # gives the same bits too.
    X = np.round(X * 4) / 4
    fits = [
        KernelPerceptron(max_iter=max_iter, budget=budget, average=True,
                         cache_size=size).fit(X, y)
        for size in [1e-5, 120 * 8 * 3 / 2**20, 200]
    ]
    for other in fits[1:]:
        assert_array_equal(other.support_, fits[0].support_)
        assert_array_equal(other.dual_coef_, fits[0].dual_coef_)


needs_transposed = pytest.mark.skipif(
    not _kernel_fast.transposed_available(),
    reason="the transposed pass needs x86-64 with AVX2",
)


@needs_transposed
@settings(deadline=None, max_examples=40)
@_exact_cases(max_rows=150)
def test_transposed_pass_equals_the_float64_pass(seed, n, n_features,
                                                 n_probes, kernel, high):
    # The exact variant over Z transposed by blocks of sixteen rows (rows in
    # the lanes, 16-bit integers, pairs of features, 32-bit sums) gives the
    # very values of the float64 pass, for any run of consecutive rows:
    # starts inside a block, ends inside one, runs longer than a block of
    # SKP_ROWS, any number of probes, odd numbers of features.
    rng, ZP, probe_rows, params = _exact_problem(seed, n, n_features,
                                                 n_probes, high)
    start = rng.randint(0, n)
    rows = np.arange(start, rng.randint(start + 1, n + 1))
    got = _several_columns(kernel, ZP, ZP[probe_rows], rows, params,
                           exact=True, transposed=True)
    expected = _several_columns(kernel, ZP, ZP[probe_rows], rows, params)
    assert_array_equal(got, expected)


@needs_transposed
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_transposed_pass_at_the_bounds_of_exact_rows(kernel):
    # The largest exact rows: values +-4096 (a squared norm of 2**24), and
    # rows whose products all add up to +-2**24; 16-bit values and 32-bit
    # sums still give the float64 values.
    Z = np.zeros((40, 5))
    Z[np.arange(40), np.arange(40) % 5] = np.where(np.arange(40) % 2, 4096, -4096)
    Z[::7] = [[2048, 2048, 2048, 2048, 0]]
    Z[3::7] = [[-2048, 2048, -2048, 2048, 0]]
    assert _kernel_fast.exact_in_float32(Z.ravel(), np.sum(Z**2, axis=1))
    params = dict(gamma=1e-9, degree=2, coef0=1.0)
    rows = np.arange(1, 40)
    got = _several_columns(kernel, Z, Z[[0, 7, 3, 10, 5]], rows, params,
                           exact=True, transposed=True)
    expected = _several_columns(kernel, Z, Z[[0, 7, 3, 10, 5]], rows, params)
    assert_array_equal(got, expected)
    if kernel == "linear":
        assert np.abs(got).max() == 2**24


@needs_transposed
def test_transposed_pass_takes_only_its_own_layout():
    Z = np.arange(60.0).reshape(20, 3)
    values32 = Z.ravel().astype(np.float32)
    layout = _kernel_fast.transposed_copy(values32, 20, 3)
    assert layout.dtype == np.int16
    # Blocks of sixteen rows; in a block, pair g of row r (features 2g and
    # 2g + 1, zero past the last feature) at 32 g + 2 r; zero rows past the
    # last row.
    Z4 = np.zeros((32, 4))
    Z4[:20, :3] = Z
    for block in range(2):
        pairs = layout[64 * block : 64 * (block + 1)].reshape(2, 16, 2)
        for g in range(2):
            assert_array_equal(pairs[g], Z4[16 * block : 16 * (block + 1),
                                            2 * g : 2 * g + 2])
    with pytest.raises(ValueError, match="n_z rows of n_features"):
        _kernel_fast.transposed_copy(values32, 21, 3)
    params = dict(gamma=0.1, degree=2, coef0=1.0)
    with pytest.raises(ValueError, match="consecutive rows"):
        _several_columns("rbf", Z, Z[:2], [0, 2], params, exact=True,
                         transposed=True)
    with pytest.raises(ValueError, match="more than two features"):
        _several_columns("rbf", Z[:, :2], Z[:2, :2], [0, 1], params,
                         exact=True, transposed=True)


class _WalkerSpy:
    """Set module switches of ``_kernel`` (``_BLOCK``: columns computed
    ``size`` at a time, 0: one at a time; ``_EXACT_FLOAT32``,
    ``_TRANSPOSED_INT16``) for the duration, recording the block size each
    walker was given (``seen``), whether it was given a float32 Z
    (``given``) and a transposed one (``transposed``), and the dtype of its
    single-precision cache lines (``lines``, None without)."""

    def __init__(self, **switches):
        self.switches = switches
        self.seen = []
        self.given = []
        self.transposed = []
        self.lines = []

    def __enter__(self):
        from sklearn_perceptrons import _kernel, _kernel_fast

        self._saved = {name: getattr(_kernel, name) for name in self.switches}
        self._saved["_kernel_fast"] = _kernel._kernel_fast
        for name, value in self.switches.items():
            setattr(_kernel, name, value)
        seen, given, transposed = self.seen, self.given, self.transposed
        lines = self.lines

        class _Spy:
            def __getattr__(self, name):
                return getattr(_kernel_fast, name)

            @staticmethod
            def Walker(*args, values32=None, values16_t=None, cache32=None):
                seen.append(args[-1])
                given.append(values32 is not None)
                transposed.append(values16_t is not None)
                lines.append(None if cache32 is None else cache32.dtype)
                return _kernel_fast.Walker(*args, values32=values32,
                                           values16_t=values16_t,
                                           cache32=cache32)

        _kernel._kernel_fast = _Spy()
        return self

    def __exit__(self, *exc):
        from sklearn_perceptrons import _kernel

        for name, value in self._saved.items():
            setattr(_kernel, name, value)


def _block_size(size):
    return _WalkerSpy(_BLOCK=size)


def _exact_float32(allowed, transposed=True):
    return _WalkerSpy(_EXACT_FLOAT32=allowed, _TRANSPOSED_INT16=transposed)


def _fit_with_block(size, make, X, y, **fit_params):
    with _block_size(size) as spy:
        est = make().fit(X, y, **fit_params)
    return est, spy.seen


def _assert_same_fit(a, b, X):
    # (partial_fit has no support_: its support vectors are not rows of X.)
    assert hasattr(a, "support_") == hasattr(b, "support_")
    if hasattr(a, "support_"):
        assert_array_equal(a.support_, b.support_)
    assert_array_equal(a.support_vectors_, b.support_vectors_)
    assert_array_equal(a.dual_coef_, b.dual_coef_)
    assert_array_equal(a.intercept_, b.intercept_)
    assert a.n_mistakes_ == b.n_mistakes_
    assert_array_equal(a.decision_function(X), b.decision_function(X))


@settings(deadline=None, max_examples=40)
@given(
    seed=st.integers(0, 2**16),
    block=st.integers(1, 40),
    kernel=st.sampled_from(KERNELS),
    n_features=st.sampled_from([1, 2, 3, 4, 5, 8, 13]),
    n_classes=st.sampled_from([2, 3]),
    average=st.booleans(),
    shuffle=st.booleans(),
    float32=st.booleans(),
)
def test_blocked_walk_equals_the_one_column_walk(
    seed, block, kernel, n_features, n_classes, average, shuffle, float32
):
    # Computing the columns of several new support vectors in one pass over
    # the data (with the kernel values a visit needs computed for its row,
    # or read from its column) adds the same terms in the same order.  The
    # several-probe pass sums dot products in another order than the
    # one-column pass; on features on a grid of halves both are exact, and
    # the fits agree bit for bit, whatever the block size, kernel, dtype,
    # number of features (all the remainders of the four-wide dot products)
    # and classes.
    X, y = make_blobs(70, n_features=n_features, centers=n_classes,
                      cluster_std=3.0, random_state=seed)
    X = np.round(X * 2) / 2
    if float32:
        X = X.astype(np.float32)
    params = {"kernel": kernel, "average": average, "shuffle": shuffle,
              "max_iter": 4, "tol": None, "random_state": seed}
    if kernel in ("poly", "sigmoid"):
        params["gamma"] = 0.1
    one, seen_one = _fit_with_block(0, lambda: KernelPerceptron(**params), X, y)
    blocked, seen = _fit_with_block(block, lambda: KernelPerceptron(**params),
                                    X, y)
    assert set(seen_one) == {0}
    assert set(seen) == {block}
    _assert_same_fit(one, blocked, X)


@pytest.mark.parametrize("block", [1, 2, 7, 32])
def test_blocked_walk_equals_with_weights_threshold_and_streaming(block):
    X, y = multiclass_data(90, seed=3)
    X = np.round(X * 4) / 4  # exact dot products (see above)
    X = np.hstack([X, X ** 2])  # six features: a remainder of the dot blocks
    weights = np.random.RandomState(0).uniform(0.2, 2.0, X.shape[0])
    params = {"kernel": "rbf", "gamma": 0.2, "threshold": 0.3, "average": True,
              "class_weight": "balanced", "max_iter": 5, "tol": None}
    one, _ = _fit_with_block(0, lambda: KernelPerceptron(**params), X, y,
                             sample_weight=weights)
    blocked, seen = _fit_with_block(block, lambda: KernelPerceptron(**params),
                                    X, y, sample_weight=weights)
    assert set(seen) == {block}
    _assert_same_fit(one, blocked, X)

    # partial_fit: earlier support vectors are rows of Z whose scores are
    # not tracked (the walk starts at track_from > 0).
    streams = []
    for size in (0, block):
        with _block_size(size) as spy:
            est = KernelPerceptron(kernel="rbf", gamma=0.2, average=True)
            for batch in np.array_split(np.arange(X.shape[0]), 4):
                est.partial_fit(X[batch], y[batch], classes=np.unique(y))
        assert set(spy.seen) == {size}
        streams.append(est)
    _assert_same_fit(*streams, X)

    # warm_start continues from the previous support vectors.
    warm = []
    for size in (0, block):
        with _block_size(size):
            est = KernelPerceptron(warm_start=True, **params).fit(X[:60], y[:60])
            warm.append(est.fit(X, y))
    _assert_same_fit(*warm, X)


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf", "sigmoid", "cosine"])
@pytest.mark.parametrize("float32", [False, True])
def test_exact_float32_walk_equals_the_float64_walk(kernel, float32):
    # Integer features (pixel intensities here): the blocked walk takes the
    # float32 variant of its passes, and the fit is the same bit for bit as
    # with float64 passes, and as the one-column walk's.
    X, y = load_digits(return_X_y=True)
    X, y = X[:300], y[:300]
    if float32:
        X = X.astype(np.float32)
    params = {"kernel": kernel, "average": True, "max_iter": 3, "tol": None,
              "random_state": 0}
    if kernel in ("poly", "sigmoid"):
        params["gamma"] = 0.001
    fits = []
    for allowed, transposed in [(True, False), (False, False), (True, True)]:
        with _exact_float32(allowed, transposed) as spy:
            fits.append(KernelPerceptron(**params).fit(X, y))
        assert spy.given == [allowed]
        assert spy.transposed == [
            transposed and _kernel_fast.transposed_available()]
    one, _ = _fit_with_block(0, lambda: KernelPerceptron(**params), X, y)
    _assert_same_fit(fits[0], fits[1], X)
    _assert_same_fit(fits[0], fits[2], X)
    _assert_same_fit(fits[0], one, X)


@needs_transposed
@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_transposed_walk_with_earlier_support_vectors(kernel):
    # partial_fit tracks only the batch (its columns start after the earlier
    # support vectors, inside a block of sixteen rows) and warm_start puts
    # support vectors from other data in front of X: the transposed pass
    # gives the fits of the row-major one.
    X, y = load_digits(return_X_y=True)
    X, y = X[:250], y[:250]
    params = {"kernel": kernel, "random_state": 0, "max_iter": 2, "tol": None}
    if kernel == "poly":
        params["gamma"] = 0.001
    streams, warm = [], []
    for transposed in (False, True):
        with _exact_float32(True, transposed) as spy:
            est = KernelPerceptron(**params)
            for batch in np.array_split(np.arange(250), 4):
                est.partial_fit(X[batch], y[batch], classes=np.unique(y))
            streams.append(est)
            est = KernelPerceptron(warm_start=True, **params).fit(X[50:80], y[50:80])
            warm.append(est.fit(X[:150], y[:150]))
        assert all(spy.transposed) == transposed
    _assert_same_fit(*streams, X)
    _assert_same_fit(*warm, X)


def test_exact_float32_walk_needs_exact_dot_products():
    # Fractions, or norms too large for float32's 24 bits: float64 passes.
    X, y = load_digits(return_X_y=True)
    X, y = X[:100], y[:100]
    for Z in (X + 0.5, X * 300.0):
        with _exact_float32(True) as spy:
            KernelPerceptron(max_iter=2, tol=None).fit(Z, y)
        assert spy.given == [False]
    with _exact_float32(True) as spy:
        KernelPerceptron(max_iter=2, tol=None).fit(X, y)
    assert spy.given == [True]


@pytest.mark.parametrize("make", [
    lambda: KernelPerceptron(budget=20, kernel="precomputed"),
    lambda: KernelPerceptron(cache_size=1e-4),
    lambda: KernelPerceptron(kernel="precomputed"),
    lambda: KernelPerceptron(kernel=_sklearn_rbf),
])
def test_blocked_walk_is_not_used_where_it_does_not_apply(make):
    # A budget removes support vectors, a small cache evicts columns, and
    # precomputed / callable kernels are not computed in the walk: those
    # fits keep the one-column walk.
    X, y = binary_data(50)
    if make().kernel == "precomputed":
        X = rbf_kernel(X, X)
    _, seen = _fit_with_block(32, make, X, y)
    assert seen and set(seen) == {0}
    _, seen = _fit_with_block(32, KernelPerceptron, sp.csr_matrix(X), y)
    assert set(seen) == {0}


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
    (1, "oldest"),
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
    # The epochs' permutations, drawn as fit draws them.
    rng = np.random.RandomState(11)
    train_idx = np.arange(X.shape[0], dtype=np.int32)
    orders = [clf._epoch_order(train_idx, rng) for _ in range(4)]
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
                           max_iter=5, tol=None).fit(X, y)
    # The cumulative damage never exceeds 15/32 of the mistakes ...
    damage, mistakes = clf._state["forget"]
    assert mistakes.sum() == clf.n_mistakes_
    assert (damage <= 15 * mistakes / 32 + 1e-9).all()
    assert (damage > 0).all()
    # ... and shrinking leaves coefficients below one update's size.
    oldest = KernelPerceptron(budget=budget, budget_strategy="oldest",
                              max_iter=5).fit(X, y)
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
    assert len(lines) == 3 and all("Epoch" in line for line in lines)
    # The norm printed is ||w~|| = sqrt(||w||^2 + b^2) of the primal.
    norm = float(lines[-1].split("norm(w) ")[1].split(",")[0])
    expected = np.sqrt(np.sum(clf.coef_ ** 2) + np.sum(clf.intercept_ ** 2))
    assert norm == pytest.approx(expected, rel=1e-5)


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


@pytest.mark.parametrize("kernel, single", [("rbf", True), ("laplacian", True),
                                            ("poly", False), ("linear", False)])
def test_exponential_kernels_cache_columns_in_single_precision(kernel, single):
    # A cache of n * n float32 values (and the two scratch lines) holds the
    # whole Gram matrix of an exponential kernel, whose lines are float32:
    # the blocked walk applies.  Kernels with double lines would need twice
    # that.
    X, y = binary_data(60)
    cache_size = (60 * 60 * 4 + 2 * 60 * 4) / 2**20
    with _block_size(16) as spy:
        KernelPerceptron(kernel=kernel, cache_size=cache_size, max_iter=3,
                         tol=None).fit(X, y)
    assert spy.seen == [16 if single else 0]
    assert spy.lines == [np.float32 if single else None]


def test_single_precision_lines_are_refused_where_they_do_not_apply(
        monkeypatch):
    # The walk takes float32 lines for the exponential kernels only (the
    # others keep double columns), and the exposed exponential checks its
    # output buffer.
    from sklearn_perceptrons import _kernel

    monkeypatch.setattr(_kernel, "_SINGLE_PRECISION",
                        (_kernel._KERNEL_CODES["poly"],))
    X, y = binary_data(30)
    with pytest.raises(ValueError, match="rbf and laplacian kernels only"):
        KernelPerceptron(kernel="poly").fit(X, y)
    with pytest.raises(ValueError, match="as long as x"):
        _kernel_fast.exp_single(np.zeros(3), np.zeros(2, dtype=np.float32))
