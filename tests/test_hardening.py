# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause

"""Regression tests of issue #18 (hardening): one test per item at least.

Each test failed on the code before its fix; the docstring says how.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from sklearn_perceptrons import (
    KernelPerceptron,
    MarginPerceptron,
    OneVsAllPerceptron,
    OneVsOnePerceptron,
    Perceptron,
    SecondOrderPerceptron,
    VotedPerceptron,
)
from sklearn_perceptrons.bounds import (
    hinge_mistake_bound,
    margin,
    max_margin,
    mistake_bound,
    radius,
)
from sklearn_perceptrons.feasibility import relaxation_method

ESTIMATORS = [
    Perceptron,
    MarginPerceptron,
    KernelPerceptron,
    OneVsAllPerceptron,
    OneVsOnePerceptron,
]

X4 = np.array([[1.0, 2.0], [2.0, 1.0], [-1.0, -2.0], [-2.0, -1.0]])
Y4 = np.array([1, 1, 0, 0])


def _with_duplicates(X):
    """X as a CSR matrix whose every nonzero is stored as two entries summing
    to it (a valid CSR matrix: SciPy reads duplicates as their sum)."""
    X = np.asarray(X, dtype=np.float64)
    data, indices, indptr = [], [], [0]
    for row in X:
        for j in np.flatnonzero(row):
            data += [0.25 * row[j], 0.75 * row[j]]
            indices += [j, j]
        indptr.append(len(data))
    D = sp.csr_matrix(
        (np.array(data), np.array(indices, dtype=np.int32),
         np.array(indptr, dtype=np.int32)),
        shape=X.shape,
    )
    assert not D.has_canonical_format
    np.testing.assert_array_equal(D.toarray(), X)
    return D


# ----------------------------------------------------------------------------
# Item 2: CSR with duplicate entries
# ----------------------------------------------------------------------------


def test_bounds_sum_csr_duplicates_and_leave_the_matrix_alone():
    """Item 2: the stored values were used as they are, so a row [1] stored
    as 0.25 + 0.75 had norm 0.79 instead of 1 and every bound dropped (the
    radius was 0.79 times the dense one)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(30, 4))
    w = rng.normal(size=4)
    y = (X @ w > 0.2).astype(int)
    keep = np.abs(X @ w - 0.2) > 0.05
    X, y = X[keep], y[keep]
    D = _with_duplicates(X)
    data_before = D.data.copy()
    for fit_intercept in (False, True):
        assert radius(D, fit_intercept=fit_intercept) == pytest.approx(
            radius(X, fit_intercept=fit_intercept), rel=1e-12
        )
    assert mistake_bound(D, y) == pytest.approx(mistake_bound(X, y), rel=1e-9)
    assert hinge_mistake_bound(D, y, w, 0.1) == pytest.approx(
        hinge_mistake_bound(X, y, w, 0.1), rel=1e-12
    )
    assert max_margin(D, y)[0] == pytest.approx(max_margin(X, y)[0], rel=1e-9)
    assert margin(D, y, w, -0.2) == pytest.approx(margin(X, y, w, -0.2), rel=1e-12)
    # The caller's matrix still has its duplicates.
    assert not D.has_canonical_format
    np.testing.assert_array_equal(D.data, data_before)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_margin_perceptron_radius_sums_csr_duplicates(fit_intercept):
    """Item 2: MarginPerceptron(margin="auto") starts its search at the
    radius, which was computed from the stored values: gamma_ and the model
    differed between a CSR matrix with duplicates and its dense equal."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(40, 3))
    y = (X @ [1.0, -2.0, 0.5] > 0).astype(int)
    D = _with_duplicates(X)
    dense = MarginPerceptron(fit_intercept=fit_intercept, tol=None).fit(X, y)
    sparse = MarginPerceptron(fit_intercept=fit_intercept, tol=None).fit(D, y)
    assert sparse.gamma_ == pytest.approx(dense.gamma_, rel=1e-12)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-12)
    assert not D.has_canonical_format


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_kernel_and_feasibility_sum_csr_duplicates():
    """Item 2, the family: the RBF kernel reads squared row norms and the
    relaxation method row norms. These two already read duplicates as their
    sum before the fix (this test passed then); it keeps them doing so now
    that every CSR input is canonicalized on entry."""
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, size=(30, 3))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    D = _with_duplicates(X)
    est = KernelPerceptron(kernel="rbf", gamma=1.0, max_iter=5, tol=None)
    dense = est.fit(X, y).decision_function(X)
    np.testing.assert_allclose(
        KernelPerceptron(kernel="rbf", gamma=1.0, max_iter=5, tol=None)
        .fit(D, y).decision_function(D),
        dense, rtol=1e-10, atol=1e-12,
    )
    A = np.vstack([X[y == 1], -X[y == 0]])
    A = A[np.abs(A @ [1.0, 1.0, 1.0]) > 0]
    b = -np.ones(A.shape[0])
    res_dense = relaxation_method(A, b, max_iter=50)
    res_sparse = relaxation_method(_with_duplicates(A), b, max_iter=50)
    np.testing.assert_allclose(res_sparse.x, res_dense.x, rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------------
# Items 6 and 8: classes and labels of partial_fit
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize(
    "classes", [[0, 1, np.nan], np.array([0, 1, None], dtype=object)]
)
def test_partial_fit_refuses_missing_classes(Estimator, classes):
    """Item 6: classes=[0, 1, nan] was accepted by every estimator (NaN then
    a class that could be predicted)."""
    with pytest.raises(ValueError, match="missing label"):
        Estimator().partial_fit(X4, Y4, classes=classes)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_partial_fit_refuses_2d_classes(Estimator):
    """Item 6: a 2-d classes was flattened silently."""
    with pytest.raises(ValueError, match="1-d"):
        Estimator().partial_fit(X4, Y4, classes=[[0, 1]])
    est = Estimator().partial_fit(X4, Y4, classes=[0, 1])
    with pytest.raises(ValueError, match="1-d"):
        est.partial_fit(X4, Y4, classes=[[0], [1]])


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_partial_fit_names_a_none_label(Estimator):
    """Item 8: a None label in a later partial_fit raised TypeError ('<' not
    supported) in the sort against the classes (the reductions: a ValueError
    "Unknown label type" that did not name it)."""
    est = Estimator().partial_fit(X4, Y4, classes=[0, 1])
    before = est.decision_function(X4)
    y = np.array([1, None], dtype=object)
    with pytest.raises(ValueError, match=r"labels \[None\] that are not in"):
        est.partial_fit(X4[:2], y)
    np.testing.assert_array_equal(est.decision_function(X4), before)
    strings = Estimator().partial_fit(X4, np.array(["a", "a", "b", "b"]),
                                      classes=["a", "b"])
    with pytest.raises(ValueError, match=r"labels \[None, 3\] that are not"):
        strings.partial_fit(X4[:3], np.array(["a", None, 3], dtype=object))


# ----------------------------------------------------------------------------
# Item 10: warm_start on other classes or features
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("Estimator", [Perceptron, MarginPerceptron])
def test_warm_start_on_other_classes_or_features_says_so(Estimator):
    """Item 10: the error spoke of "coef_init has shape (1, 2)" to a user who
    never passed coef_init."""
    est = Estimator(warm_start=True).fit(X4, Y4)
    coef = est.coef_.copy()
    y3 = np.array([0, 1, 2, 2])
    with pytest.raises(ValueError, match="warm_start") as info:
        est.fit(X4, y3)
    assert "coef_init" not in str(info.value)
    assert "2 classes [0, 1]" in str(info.value)
    assert "3 classes" in str(info.value)
    with pytest.raises(ValueError, match="same classes and features"):
        est.fit(np.hstack([X4, X4]), Y4)
    np.testing.assert_array_equal(est.coef_, coef)
    assert est.n_features_in_ == 2


# ----------------------------------------------------------------------------
# Item 11: ParameterMixing and an all-zero sample_weight
# ----------------------------------------------------------------------------


def test_parameter_mixing_refuses_all_zero_weights_on_dask():
    """Item 11: zero weights on every partition gave a zero model with
    converged_=True (each partition allowed its own zeros)."""
    da = pytest.importorskip("dask.array")
    from sklearn_perceptrons.distributed import ParameterMixing

    X = da.from_array(X4, chunks=2)
    y = da.from_array(Y4, chunks=2)
    with pytest.raises(ValueError, match="non-zero"):
        ParameterMixing(Perceptron()).fit(X, y, sample_weight=da.zeros(4, chunks=2))
    # Zeros on one partition only are fine: its samples never update.
    weights = da.from_array(np.array([0.0, 0.0, 1.0, 0.0]), chunks=2)
    model = ParameterMixing(Perceptron()).fit(X, y, sample_weight=weights)
    # Only sample 2 (x = [-1, -2], class 0) updates: the model points away
    # from it, whatever the mixing.
    assert model.coef_[0, 0] > 0
    np.testing.assert_allclose(model.coef_[0] / model.coef_[0, 0], [1.0, 2.0])


# ----------------------------------------------------------------------------
# Item 12: negative class_weight
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("Estimator", [Perceptron, MarginPerceptron, KernelPerceptron])
@pytest.mark.parametrize("value", [-1.0, np.nan, np.inf])
def test_negative_or_non_finite_class_weight_is_refused(Estimator, value):
    """Item 12 (decided: refuse, like a negative sample_weight): a negative
    class weight was accepted and pushed the model away from its own
    samples; a NaN one too."""
    est = Estimator().fit(X4, Y4)
    coef = est.decision_function(X4)
    est.set_params(class_weight={0: value, 1: 1.0})
    with pytest.raises(ValueError, match="class_weight must be finite and >= 0"):
        est.fit(X4, Y4)
    with pytest.raises(ValueError, match="class_weight must be finite and >= 0"):
        Estimator(class_weight={0: value, 1: 1.0}).partial_fit(X4, Y4, classes=[0, 1])
    np.testing.assert_array_equal(est.decision_function(X4), coef)
    # A zero weight is a valid choice: that class never updates.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Estimator(class_weight={0: 0.0, 1: 1.0}).fit(X4, Y4)


@pytest.mark.parametrize("Estimator", [Perceptron, MarginPerceptron, KernelPerceptron])
def test_partial_fit_with_a_class_weight_dict(Estimator):
    """Item 12, the family: partial_fit with any class_weight dict raised
    "classes should include all valid labels that can be in y" (scikit-learn
    1.9's compute_class_weight was given y=None). A class weight scales the
    updates like a sample weight."""
    by_class = Estimator(class_weight={0: 1.0, 1: 2.5}).partial_fit(
        X4, Y4, classes=[0, 1]
    )
    by_sample = Estimator().partial_fit(
        X4, Y4, classes=[0, 1], sample_weight=[2.5, 2.5, 1.0, 1.0]
    )
    np.testing.assert_allclose(
        by_class.decision_function(X4), by_sample.decision_function(X4)
    )


# ----------------------------------------------------------------------------
# Item 4: bounds on extreme finite inputs
# ----------------------------------------------------------------------------


def _separable(seed=3, n_samples=25, n_features=3):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n_samples, n_features))
    w = rng.normal(size=n_features)
    keep = np.abs(X @ w) > 0.1
    return X[keep], (X[keep] @ w > 0).astype(int), w


def test_scale_invariant_bounds_of_huge_weights():
    """Item 4: margin(X, y, w * 1e300) was 0.0 (||w|| overflowed) and
    hinge_mistake_bound(..., w * 1e300) NaN; both do not depend on the scale
    of (w, b)."""
    X, y, w = _separable()
    for intercept in (0.0, 0.3):
        expected = margin(X, y, w, intercept)
        for scale in (1e300, 1e-300):
            assert margin(X, y, w * scale, intercept * scale) == pytest.approx(
                expected, rel=1e-12
            )
            assert hinge_mistake_bound(
                X, y, w * scale, intercept * scale
            ) == pytest.approx(hinge_mistake_bound(X, y, w, intercept), rel=1e-12)


@pytest.mark.parametrize("scale", [1e160, 1e300, 1e-170])
def test_bounds_of_huge_or_tiny_data(scale):
    """Item 4: max_margin(X * 1e160) said "not separable" (squared norms
    overflowed), radius(X * 1e160) was inf, mistake_bound inf; radius of
    X * 1e-170 was 0 (squares underflowed). Without intercept every quantity
    scales with X (the bound not at all); with one, huge data make the
    padding coordinate negligible."""
    X, y, _ = _separable()
    Xs = X * scale
    gamma, coef, intercept = max_margin(X, y, fit_intercept=False)
    gamma_s, coef_s, _ = max_margin(Xs, y, fit_intercept=False)
    assert gamma_s == pytest.approx(gamma * scale, rel=1e-9)
    np.testing.assert_allclose(coef_s, coef, rtol=1e-7, atol=1e-9)
    assert radius(Xs) == pytest.approx(radius(X) * scale, rel=1e-12)
    assert mistake_bound(Xs, y, fit_intercept=False) == pytest.approx(
        mistake_bound(X, y, fit_intercept=False), rel=1e-9
    )
    if scale > 1:
        assert max_margin(Xs, y)[0] == pytest.approx(gamma * scale, rel=1e-9)
        assert radius(Xs, fit_intercept=True) == pytest.approx(
            radius(X) * scale, rel=1e-12
        )
        assert mistake_bound(Xs, y) == pytest.approx(
            mistake_bound(X, y, fit_intercept=False), rel=1e-9
        )
    sparse = sp.csr_matrix(Xs)
    assert max_margin(sparse, y, fit_intercept=False)[0] == pytest.approx(
        gamma_s, rel=1e-12
    )
    assert radius(sparse) == pytest.approx(radius(Xs), rel=1e-12)


def test_mistake_bound_with_a_huge_start():
    """Item 4: ||w0|| of coef_init = [1e300, 1e300] overflowed to inf; the
    bound (2 delta + R**2 + 2 gamma ||w0||) / gamma**2 is finite."""
    X, y, _ = _separable()
    gamma = max_margin(X, y)[0]
    r2 = radius(X, fit_intercept=True) ** 2
    w0 = np.full(X.shape[1], 1e300)
    expected = (r2 + 2 * gamma * np.sqrt(X.shape[1]) * 1e300) / gamma**2
    assert np.isfinite(expected)
    assert mistake_bound(X, y, coef_init=w0) == pytest.approx(expected, rel=1e-9)


# ----------------------------------------------------------------------------
# Item 14: the cost of max_margin
# ----------------------------------------------------------------------------


def test_max_margin_factorizes_its_support_once(monkeypatch):
    """Item 14: every step of Wolfe's algorithm solved two least-squares
    problems on the whole support (O(k^2 m) each: 83 s on a 1,000 x 1,000
    problem); the support's QR factorization is now updated, and least
    squares is used only for the final polish and certificate. The timing
    itself is in benchmarks/bench_margin.py; this counts the solves (the old
    code made about 2 per support vector, ~200 here) and checks the exact
    answer against least distance programming by NNLS (Lawson-Hanson)."""
    from scipy.optimize import nnls

    rng = np.random.default_rng(4)
    n = 120
    X = rng.normal(size=(n, n))
    y = (X @ rng.normal(size=n) + 0.3 > 0).astype(int)
    # The hard-margin solver of bounds.max_margin lives in _bounds/.
    from sklearn_perceptrons._bounds import hard_margin as solver_module

    calls = []

    def counting(solver):
        def solve(*args, **kwargs):
            calls.append(1)
            return solver(*args, **kwargs)
        return solve

    # Every least-squares solver the module may use, NumPy's and SciPy's.
    monkeypatch.setattr(np.linalg, "lstsq", counting(np.linalg.lstsq))
    monkeypatch.setattr(solver_module, "lstsq", counting(solver_module.lstsq))
    gamma, coef, intercept = max_margin(X, y)
    monkeypatch.undo()
    assert len(calls) <= 2
    Z = np.where(y == 1, 1.0, -1.0)[:, None] * np.hstack([X, np.ones((n, 1))])
    E = np.vstack([Z.T, np.ones((1, n))])
    f = np.zeros(n + 2)
    f[-1] = 1.0
    u, _ = nnls(E, f, maxiter=50 * n)
    r = E @ u - f
    w = -r[:-1] / r[-1]
    assert (Z @ w).min() >= 1 - 1e-9
    assert gamma == pytest.approx(1.0 / np.linalg.norm(w), rel=1e-9)
    assert margin(X, y, coef, intercept) == pytest.approx(gamma, rel=1e-12)


def test_condition_measure_of_extreme_rows_and_csr_duplicates():
    """Items 4 and 2, the family: condition_measure depends on the rows'
    directions only, but raised "The norms of some rows of A overflow" for
    A * 1e200, counted a row of A * 1e-170 as zero (its squared norm
    underflowed), and read CSR duplicates as separate entries."""
    from sklearn_perceptrons.bounds import condition_measure

    A = np.array([[1.0, 1.0], [1.0, -1.0], [2.0, 0.5]])
    expected = condition_measure(A)
    assert expected > 0
    assert condition_measure(A * 1e200) == pytest.approx(expected, rel=1e-12)
    rows = np.array([1e-170, 1.0, 1e250])[:, None]
    assert condition_measure(A * rows) == pytest.approx(expected, rel=1e-12)
    infeasible = np.array([[1.0, 0.0], [-1.0, 1.0], [-1.0, -1.0]])
    assert condition_measure(infeasible * 1e300) == pytest.approx(
        condition_measure(infeasible), rel=1e-12
    )
    D = _with_duplicates(A)
    assert condition_measure(D) == pytest.approx(expected, rel=1e-12)
    assert not D.has_canonical_format


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(
    "estimator",
    [
        Perceptron(max_iter=5, tol=None),
        MarginPerceptron(max_iter=5, tol=None),
        KernelPerceptron(kernel="rbf", gamma=0.5, max_iter=5, tol=None),
        OneVsAllPerceptron(),
        OneVsOnePerceptron(),
        SecondOrderPerceptron(max_iter=5, tol=None),
        VotedPerceptron(max_iter=3),
    ],
    ids=lambda est: type(est).__name__,
)
def test_every_estimator_sees_csr_duplicates_as_their_sum(estimator):
    """Item 2, everywhere CSR enters: a fit on a CSR matrix with duplicate
    entries is the fit on its dense equal (the same scores), and the caller's
    matrix keeps its duplicates. MarginPerceptron failed before the fix (its
    radius); the others read duplicates right already and are guarded."""
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 1, size=(40, 3))
    y = np.argmax(X @ rng.normal(size=(3, 3)), axis=1)
    D = _with_duplicates(X)
    dense = clone(estimator).fit(X, y).decision_function(X)
    sparse = clone(estimator).fit(D, y).decision_function(D)
    np.testing.assert_allclose(sparse, dense, rtol=1e-9, atol=1e-12)
    assert not D.has_canonical_format
