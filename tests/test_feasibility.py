# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of sklearn_perceptrons.feasibility.

Oracles: scipy.optimize.linprog(method="highs") decides feasibility, a tiny
pure-NumPy implementation of each rule gives the expected iterates, and the
Block-Novikoff theorem bounds the number of perceptron updates.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import linprog
from scipy.stats import chisquare

from sklearn_perceptrons._feasibility._feasibility_fast import alias_sample
from sklearn_perceptrons.feasibility import perceptron_feasibility, relaxation_method

ORDERS = ["cyclic", "permuted", "random", "max_distance", "max_residual"]
ETAS = [0.5, 1.0, 1.5, 2.0]
CONTAINERS = [np.asarray, sp.csr_matrix]
DTYPES = [np.float32, np.float64]


def _container_id(c):
    return "csr" if c is sp.csr_matrix else "dense"


container = pytest.mark.parametrize("container", CONTAINERS, ids=_container_id)
dtype = pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
order = pytest.mark.parametrize("order", ORDERS)


def _lp_status(A, b):
    """linprog's verdict on A x <= b: 0 feasible, 2 infeasible."""
    res = linprog(
        np.zeros(A.shape[1]), A_ub=A, b_ub=b, bounds=(None, None), method="highs"
    )
    return res.status


def _feasible_system(seed, n=60, p=8, sparse_density=None):
    """A x <= b with an interior point: b = A x* + slack, slack > 0."""
    rng = np.random.RandomState(seed)
    A = rng.randn(n, p)
    if sparse_density is not None:
        A *= rng.uniform(size=(n, p)) < sparse_density
        A[np.arange(n), rng.randint(p, size=n)] = rng.randn(n)  # no zero row
    x_star = rng.randn(p)
    b = A @ x_star + rng.uniform(0.5, 1.5, size=n)
    return A, b


def _infeasible_system(seed, n=30, p=5):
    """A Farkas certificate by construction: y > 0, A^T y = 0, b . y = -1."""
    rng = np.random.RandomState(seed)
    A = rng.randn(n, p)
    y = rng.uniform(0.5, 1.5, size=n)
    A -= np.outer(y, y @ A) / (y @ y)
    b = rng.randn(n)
    b -= (b @ y + 1.0) * y / (y @ y)
    return A, b


def _exact64(A):
    """The float64 values of A's entries (exact for float32)."""
    A = A.toarray() if sp.issparse(A) else np.asarray(A)
    return A.astype(np.float64)


# ---------------------------------------------------------------------------
# Pure-NumPy references of the deterministic rules.
# ---------------------------------------------------------------------------


def _ref_relaxation(A, b, *, eta, order, x0, max_iter, tol):
    A = _exact64(A)
    x = np.array(x0, dtype=np.float64)
    sq = np.einsum("ij,ij->i", A, A)
    nit = 0
    n = A.shape[0]
    if order == "cyclic":
        for _ in range(max_iter):
            updates = 0
            for i in range(n):
                r = A[i] @ x - b[i]
                if sq[i] > 0 and r > tol:
                    x -= eta * r / sq[i] * A[i]
                    updates += 1
            nit += updates
            if updates == 0:
                break
        return x, nit
    for _ in range(max_iter):  # greedy: an iteration is one step
        r = A @ x - b
        violated = (r > tol) & (sq > 0)
        if not violated.any():
            break
        key = r if order == "max_residual" else r / np.sqrt(np.where(sq > 0, sq, 1))
        i = np.argmax(np.where(violated, key, -np.inf))
        x -= eta * r[i] / sq[i] * A[i]
        nit += 1
    return x, nit


def _ref_perceptron(A, *, threshold, order, max_iter):
    A = _exact64(A)
    n, p = A.shape
    w = np.zeros(p)
    nit = 0
    if order == "cyclic":
        for _ in range(max_iter):
            updates = 0
            for i in range(n):
                if A[i] @ w <= threshold:
                    w += A[i]
                    updates += 1
            nit += updates
            if updates == 0:
                break
        return w, nit
    norms = np.linalg.norm(A, axis=1)
    for _ in range(max_iter):  # greedy: an iteration is one step
        r = threshold - A @ w
        violated = r >= 0
        if not violated.any():
            break
        key = r if order == "max_residual" else r / norms
        i = np.argmax(np.where(violated, key, -np.inf))
        w += A[i]
        nit += 1
    return w, nit


# ---------------------------------------------------------------------------
# relaxation_method
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def feasible():
    A, b = _feasible_system(0)
    assert _lp_status(A, b) == 0
    return A, b


@pytest.fixture(scope="module")
def infeasible():
    A, b = _infeasible_system(1)
    assert _lp_status(A, b) == 2
    return A, b


@container
@dtype
@order
@pytest.mark.parametrize("eta", ETAS)
def test_relaxation_reaches_feasible_point(feasible, container, dtype, order, eta):
    A, b = feasible
    A = container(A.astype(dtype))
    tol = 1e-8
    res = relaxation_method(A, b, eta=eta, order=order, tol=tol, random_state=0)
    assert res.success, res.message
    assert res.status == 0
    assert res.x.dtype == np.float64
    assert 0 <= res.maxcv <= tol
    # Independent check in float64 on the exact entries of A.
    assert np.max(_exact64(A) @ res.x - b) <= tol + 1e-12
    assert 1 <= res.n_sweeps <= 100_000
    assert res.nit >= 1


@container
@dtype
@order
@pytest.mark.parametrize("eta", [1.0, 2.0])
def test_relaxation_infeasible_stops_at_max_iter(
    infeasible, container, dtype, order, eta
):
    A, b = infeasible
    n = A.shape[0]
    max_iter = 15
    res = relaxation_method(
        container(A.astype(dtype)), b, eta=eta, order=order, max_iter=max_iter,
        random_state=0,
    )  # fmt: skip
    assert not res.success
    assert res.status == 1
    assert "Iteration limit" in res.message
    assert res.n_sweeps == max_iter
    assert res.maxcv > 1e-8
    if order.startswith("max_"):
        # Greedy orders: an iteration is one step, and every step updates.
        assert res.nit == max_iter
    else:
        assert 1 <= res.nit <= max_iter * n


@pytest.mark.parametrize("seed", range(3))
@order
def test_relaxation_random_systems_agree_with_linprog(seed, order):
    """Mixed random systems: success iff linprog finds the system feasible."""
    rng = np.random.RandomState(100 + seed)
    n, p = 40, 4
    A = sp.random(n, p, density=0.6, random_state=rng, format="csr")
    A.data = rng.randn(A.nnz)
    b = rng.randn(n) + 0.5
    lp = _lp_status(A, b)
    res = relaxation_method(
        A, b, order=order, eta=1.9, max_iter=20_000, random_state=seed
    )
    if lp == 0:
        assert res.success, res.message
    else:
        assert lp == 2
        assert not res.success and res.status in (1, 2)


@container
@pytest.mark.parametrize("order", ["cyclic", "max_distance", "max_residual"])
@pytest.mark.parametrize("eta", [0.5, 1.0, 2.0])
def test_relaxation_matches_numpy_reference(container, order, eta):
    A, b = _feasible_system(3, n=30, p=6)
    x0 = np.random.RandomState(4).randn(6) * 3
    max_iter = 50
    x_ref, nit_ref = _ref_relaxation(
        A, b, eta=eta, order=order, x0=x0, max_iter=max_iter, tol=1e-8
    )
    res = relaxation_method(
        container(A), b, eta=eta, order=order, x0=x0, max_iter=max_iter
    )
    assert res.nit == nit_ref
    assert_allclose(res.x, x_ref, rtol=1e-9, atol=1e-9)


def test_max_rules_pick_the_right_row():
    # At x0 = 0 the residuals are (2, 0.5) and the distances (2, 3.54):
    # max_residual (like cyclic) projects on row 0 first, then needs row 1;
    # max_distance projects on row 1, which already satisfies row 0.
    A = np.array([[1.0, 0.0], [0.1, 0.1]])
    b = np.array([-2.0, -0.5])
    for container in CONTAINERS:
        for order, x_expected, nit in [
            ("max_residual", [-3.5, -1.5], 2),
            ("cyclic", [-3.5, -1.5], 2),
            ("max_distance", [-2.5, -2.5], 1),
        ]:
            res = relaxation_method(container(A), b, order=order)
            assert res.success
            assert res.nit == nit, order
            assert_allclose(res.x, x_expected, rtol=1e-12)


def test_max_rules_ties_go_to_lowest_index():
    # Perceptron, threshold 0.5, w = 0: both residuals are 0.5 (a tie that
    # max_residual breaks towards row 0); the distances 0.5/sqrt(2) and 0.5/1
    # make max_distance take row 1. Either first update solves the system, so
    # the answer shows which row was taken.
    A = np.array([[1.0, 1.0], [1.0, 0.0]])
    for container in CONTAINERS:
        for order, w_expected in [
            ("max_residual", [1.0, 1.0]),
            ("cyclic", [1.0, 1.0]),
            ("max_distance", [1.0, 0.0]),
        ]:
            res = perceptron_feasibility(container(A), threshold=0.5, order=order)
            assert res.success and res.nit == 1
            assert_array_equal(res.x, w_expected)


def test_greedy_sparse_bookkeeping_over_many_sweeps():
    """The CSR greedy path (incremental residuals + tournament tree, exact
    refresh every sweep) follows the dense rescan step for step."""
    A, b = _feasible_system(5, n=25, p=30, sparse_density=0.15)
    for order in ["max_distance", "max_residual"]:
        dense = relaxation_method(A, b, order=order, eta=0.3, max_iter=1000)
        csr = relaxation_method(sp.csr_matrix(A), b, order=order, eta=0.3,
                                max_iter=1000)  # fmt: skip
        assert dense.success and csr.success
        assert dense.n_sweeps > 3  # several exact refreshes happened
        assert csr.nit == dense.nit
        assert_allclose(csr.x, dense.x, rtol=1e-8, atol=1e-10)


@order
def test_float32_equals_its_float64_upcast(order):
    """Entries are read in their dtype and accumulated in float64, so a
    float32 A gives bit-identical results to its exact float64 copy."""
    A, b = _feasible_system(6)
    A32 = A.astype(np.float32)
    for container in CONTAINERS:
        r32 = relaxation_method(container(A32), b, order=order, random_state=3)
        r64 = relaxation_method(
            container(A32.astype(np.float64)), b, order=order, random_state=3
        )
        assert_array_equal(r32.x, r64.x)
        assert r32.nit == r64.nit


@order
def test_dense_and_csr_agree(order):
    A, b = _feasible_system(7)
    dense = relaxation_method(A, b, order=order, random_state=0)
    csr = relaxation_method(sp.csr_matrix(A), b, order=order, random_state=0)
    assert dense.success and csr.success
    assert_allclose(dense.x, csr.x, rtol=1e-7, atol=1e-9)


def test_input_formats_and_no_mutation():
    A, b = _feasible_system(8, sparse_density=0.5)
    expected = relaxation_method(sp.csr_matrix(A), b).x
    for A_in in [
        A.tolist(),
        np.asfortranarray(A),
        sp.coo_matrix(A),
        sp.csc_matrix(A),
        sp.csr_array(A),
    ]:
        assert_allclose(relaxation_method(A_in, list(b)).x, expected, rtol=1e-10)
    # Duplicate entries (non-canonical CSR) are summed, in a copy.
    C = sp.coo_matrix(A)
    dup = sp.csr_matrix(
        (np.r_[C.data / 2, C.data / 2], (np.r_[C.row, C.row], np.r_[C.col, C.col])),
        shape=A.shape,
    )
    dup_copy = dup.copy()
    assert_allclose(relaxation_method(dup, b).x, expected, rtol=1e-10)
    assert_array_equal(dup.data, dup_copy.data)
    # Inputs are never modified.
    A32 = sp.csr_matrix(A.astype(np.float32))
    data_before = A32.data.copy()
    b_before = b.copy()
    x0 = np.ones(A.shape[1])
    relaxation_method(A32, b, x0=x0, order="max_distance")
    assert_array_equal(A32.data, data_before)
    assert_array_equal(b, b_before)
    assert_array_equal(x0, np.ones(A.shape[1]))


def test_zero_rows():
    A = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]])
    # A zero row with b_i >= 0 always holds and is skipped.
    for container in CONTAINERS:
        for order in ORDERS:
            res = relaxation_method(
                container(A), [-1.0, 0.0, -1.0], order=order, random_state=0
            )
            assert res.success
            assert_allclose(res.x, [-1.0, -1.0])
    # A zero row with b_i < -tol cannot hold: infeasible before any sweep.
    res = relaxation_method(A, [-1.0, -0.5, -1.0])
    assert not res.success
    assert res.status == 2
    assert "row 1" in res.message and "Infeasible" in res.message
    assert res.nit == 0 and res.n_sweeps == 0
    # An all-zero sparse A.
    res = relaxation_method(sp.csr_matrix((3, 2)), [0.0, 1.0, 2.0])
    assert res.success and res.nit == 0
    res = perceptron_feasibility(sp.csr_matrix((3, 2)))
    assert res.status == 2


def test_max_iter_zero_only_evaluates_x0():
    A = np.eye(2)
    res = relaxation_method(A, [1.0, 1.0], x0=[0.0, 0.0], max_iter=0)
    assert res.success and res.nit == 0 and res.n_sweeps == 0
    res = relaxation_method(A, [1.0, 1.0], x0=[3.0, 0.0], max_iter=0)
    assert not res.success and res.status == 1
    assert res.maxcv == pytest.approx(2.0)


def test_nonfinite_iterate_is_reported():
    # ||a||^2 = 1e-300 and a residual of 1e160: the step overflows.
    for order in ORDERS:
        res = relaxation_method([[1e-150]], [-1e160], order=order, random_state=0)
        assert not res.success
        assert res.status == 3
        assert "non-finite" in res.message


# ---------------------------------------------------------------------------
# perceptron_feasibility
# ---------------------------------------------------------------------------


def _separable_cone(seed, n=50, p=6, gamma=0.1):
    """Rows with a_i . u >= gamma for a unit vector u."""
    rng = np.random.RandomState(seed)
    u = rng.randn(p)
    u /= np.linalg.norm(u)
    A = rng.randn(n, p)
    m = A @ u
    A *= np.where(m < 0, -1.0, 1.0)[:, None]
    A += np.maximum(gamma - A @ u, 0)[:, None] * u
    return A, u


@container
@dtype
@order
@pytest.mark.parametrize("threshold", [0.0, 0.5])
def test_perceptron_finds_strict_solution(container, dtype, order, threshold):
    A, _ = _separable_cone(0)
    A = container(A.astype(dtype))
    res = perceptron_feasibility(A, threshold=threshold, order=order,
                                 random_state=0)  # fmt: skip
    assert res.success, res.message
    assert res.status == 0
    assert np.all(_exact64(A) @ res.x > threshold)
    assert res.maxcv == 0.0
    assert res.slack > 0
    # Scaling gives A w >= 1 (threshold 0: the cone LP form).
    w = res.x / np.min(_exact64(A) @ res.x)
    assert np.all(_exact64(A) @ w >= 1 - 1e-9)


@container
@order
def test_perceptron_infeasible(container, order):
    rng = np.random.RandomState(2)
    A = rng.randn(40, 3)  # 0 is inside the convex hull of the rows
    # A w > 0 is feasible iff A w >= 1 is (scale w).
    assert _lp_status(-A, -np.ones(40)) == 2
    res = perceptron_feasibility(container(A), order=order, max_iter=20,
                                 random_state=0)  # fmt: skip
    assert not res.success
    assert res.status == 1
    assert res.n_sweeps == 20
    assert "Iteration limit" in res.message
    assert res.slack <= 0


@container
@pytest.mark.parametrize("order", ["cyclic", "max_distance", "max_residual"])
def test_perceptron_matches_numpy_reference(container, order):
    A, _ = _separable_cone(3, n=30, p=5, gamma=0.05)
    w_ref, nit_ref = _ref_perceptron(A, threshold=0.3, order=order, max_iter=500)
    res = perceptron_feasibility(container(A), threshold=0.3, order=order,
                                 max_iter=500)  # fmt: skip
    assert res.nit == nit_ref
    assert_allclose(res.x, w_ref, rtol=1e-10, atol=1e-10)


def test_perceptron_zero_rows_and_negative_threshold():
    A = np.array([[1.0, 0.0], [0.0, 0.0]])
    res = perceptron_feasibility(A)
    assert not res.success and res.status == 2
    assert "row 1" in res.message
    # With threshold < 0 a zero row holds (0 > threshold), and so does w = 0.
    res = perceptron_feasibility(A, threshold=-1.0)
    assert res.success and res.nit == 0
    assert_array_equal(res.x, [0.0, 0.0])


def test_perceptron_textbook_cyclic():
    # w = a_0 = (1, 2): A w = (5, 4, 0), row 2 is on the threshold (a mistake);
    # w = (2, 1.5): A w = (5, 5.5, 1.25) > 0.
    A = np.array([[1.0, 2.0], [2.0, 1.0], [1.0, -0.5]])
    res = perceptron_feasibility(A)
    assert res.success
    assert res.nit == 2
    assert_allclose(res.x, [2.0, 1.5])


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 40),
    p=st.integers(1, 8),
    gamma=st.floats(0.05, 1.0),
    scale=st.floats(0.1, 10.0),
    threshold=st.sampled_from([0.0, 0.25, 1.0]),
    order=st.sampled_from(ORDERS),
    sparse=st.booleans(),
)
def test_novikoff_bound(seed, n, p, gamma, scale, threshold, order, sparse):
    """Block-Novikoff: at most (2 δ + R^2) ||w*||^2 / s^2 updates, where
    s = min_i a_i . w* > 0, R = max_i ||a_i||, whatever the order."""
    rng = np.random.RandomState(seed)
    w_star = rng.randn(p) * scale
    if not np.any(w_star):
        w_star[0] = scale
    u = w_star / np.linalg.norm(w_star)
    A = rng.randn(n, p) * rng.uniform(0.1, 3.0, size=(n, 1))
    if sparse:
        A *= rng.uniform(size=(n, p)) < 0.5
    A *= np.where(A @ u < 0, -1.0, 1.0)[:, None]
    A += np.maximum(gamma - A @ u, 0)[:, None] * u
    s = np.min(A @ w_star)
    assert s > 0
    R2 = np.max(np.einsum("ij,ij->i", A, A))
    bound = (2 * threshold + R2) * (w_star @ w_star) / s**2
    res = perceptron_feasibility(
        sp.csr_matrix(A) if sparse else A, threshold=threshold, order=order,
        max_iter=10 * int(bound) + 100, random_state=seed,
    )  # fmt: skip
    assert res.success, res.message
    assert res.nit <= bound * (1 + 1e-9)


# ---------------------------------------------------------------------------
# Randomness
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("order", ["permuted", "random"])
def test_determinism(order):
    A, b = _feasible_system(9, n=200, p=10)
    runs = [
        relaxation_method(A, b, order=order, eta=0.7, random_state=seed)
        for seed in (42, 42, np.random.RandomState(42), 43)
    ]
    for r in runs[1:3]:
        assert_array_equal(r.x, runs[0].x)
        assert r.nit == runs[0].nit
    assert not np.array_equal(runs[3].x, runs[0].x)
    p_runs = [
        perceptron_feasibility(_separable_cone(1)[0], order=order, random_state=s)
        for s in (5, 5)
    ]
    assert_array_equal(p_runs[0].x, p_runs[1].x)


def test_random_order_samples_proportionally_to_squared_norms():
    # The solver's own sampler (alias table + generator), through a hook.
    A = np.array([[1.0, 0.0], [0.0, 0.0], [2.0, 0.0], [1.0, 1.0], [0.0, 3.0]])
    weights = np.einsum("ij,ij->i", A, A)
    n_draws = 200_000
    draws = alias_sample(weights, n_draws, 12345)
    counts = np.bincount(draws, minlength=len(weights))
    assert counts[1] == 0  # a zero row is never drawn
    expected = n_draws * weights / weights.sum()
    keep = weights > 0
    assert chisquare(counts[keep], expected[keep]).pvalue > 1e-3
    # Highly skewed weights, too.
    w = np.r_[1e-6, np.ones(50), 1e3]
    counts = np.bincount(alias_sample(w, n_draws, 7), minlength=len(w))
    assert chisquare(counts, n_draws * w / w.sum()).pvalue > 1e-3


def test_random_order_draws_rows_proportionally_to_squared_norms():
    # End to end: from x0 = 0 both rows are violated and the first row drawn
    # decides the answer: row 0 (x1 + x2 <= -1, scaled to ||a_0||^2 = 3) ends
    # at (-0.5, -0.5) at once; row 1 (x1 <= -0.25, ||a_1||^2 = 1) leads to
    # (-0.625, -0.375). So P(answer 0) = 3 / 4 over seeds.
    c = np.sqrt(1.5)
    A = np.array([[c, c], [1.0, 0.0]])
    b = np.array([-c, -0.25])
    n_runs = 2000
    first_row0 = 0
    for seed in range(n_runs):
        res = relaxation_method(A, b, order="random", random_state=seed)
        assert res.success
        if np.allclose(res.x, [-0.5, -0.5]):
            first_row0 += 1
        else:
            assert_allclose(res.x, [-0.625, -0.375])
    sd = np.sqrt(n_runs * 0.75 * 0.25)
    assert abs(first_row0 - 0.75 * n_runs) < 5 * sd


# ---------------------------------------------------------------------------
# Errors of the contract
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "A, match",
    [
        (np.array([[1.0, np.nan]]), "NaN"),
        (np.array([[1.0, np.inf]]), "infinity"),
        (sp.csr_matrix(np.array([[1.0, np.nan]])), "NaN"),
        (np.zeros((0, 3)), "at least one row"),
        (np.zeros((3, 0)), "at least one row"),
        (sp.csr_matrix((0, 3)), "at least one row"),
        (np.ones(3), "2D"),
        # Rows whose squared norms leave float64 are scaled internally (see
        # tests/test_hardening3.py), not refused.
    ],
)
def test_bad_A(A, match):
    b = np.zeros(A.shape[0]) if A.ndim == 2 else np.zeros(1)
    with pytest.raises(ValueError, match=match):
        relaxation_method(A, b)
    with pytest.raises(ValueError, match=match):
        perceptron_feasibility(A)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"b": np.zeros(2)}, r"b must have shape \(3,\)"),
        ({"b": np.zeros((3, 1))}, r"b must have shape \(3,\)"),
        ({"b": [0.0, np.nan, 0.0]}, "b contains NaN"),
        ({"b": ["a", "b", "c"]}, "b must be an array"),
        ({"x0": np.zeros(3)}, r"x0 must have shape \(2,\)"),
        ({"x0": [np.inf, 0.0]}, "x0 contains NaN or infinity"),
        ({"eta": 0.0}, "eta must be in"),
        ({"eta": -1.0}, "eta must be in"),
        ({"eta": 2.5}, "eta must be in"),
        ({"eta": np.nan}, "eta must be finite"),
        ({"order": "greedy"}, "order must be one of"),
        ({"order": None}, "order must be one of"),
        ({"max_iter": -1}, "max_iter must be >= 0"),
        ({"tol": -1e-3}, "tol must be >= 0"),
        ({"tol": np.nan}, "tol must be finite"),
    ],
)
def test_bad_relaxation_parameters(kwargs, match):
    params = {"b": np.zeros(3), **kwargs}
    with pytest.raises(ValueError, match=match):
        relaxation_method(np.ones((3, 2)), **params)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"threshold": np.nan}, "threshold must be finite"),
        ({"threshold": np.inf}, "threshold must be finite"),
        ({"order": "max"}, "order must be one of"),
        ({"max_iter": -5}, "max_iter must be >= 0"),
    ],
)
def test_bad_perceptron_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        perceptron_feasibility(np.ones((3, 2)), **kwargs)


@pytest.mark.parametrize("bad", [1.5, "10", True, None])
def test_max_iter_must_be_an_integer(bad):
    if bad is not None:  # None is relaxation_method's order-dependent default
        with pytest.raises(TypeError, match="max_iter must be an integer"):
            relaxation_method(np.ones((1, 1)), [1.0], max_iter=bad)
    with pytest.raises(TypeError, match="max_iter must be an integer"):
        perceptron_feasibility(np.ones((1, 1)), max_iter=bad)


@pytest.mark.parametrize("order", ORDERS)
def test_bad_random_state(order):
    with pytest.raises(ValueError, match="(?i)seed"):
        relaxation_method(np.ones((1, 1)), [1.0], order=order, random_state="a")
    with pytest.raises(ValueError, match="(?i)seed"):
        perceptron_feasibility(np.ones((1, 1)), order=order, random_state=-1)


def test_numpy_integer_max_iter_accepted():
    res = relaxation_method(np.ones((1, 1)), [1.0], max_iter=np.int64(3))
    assert res.success


@pytest.mark.parametrize("value", [np.float32, np.float64])
@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("dense", [False, True])
def test_matrix_kinds_read_A(value, index, dense):
    """Every Matrix kind (value dtype x index dtype) reads A as it is:
    A @ x and A.T @ y through the compiled loops equal NumPy's."""
    from sklearn_perceptrons._feasibility import _feasibility_fast as fast

    rng = np.random.RandomState(0)
    A = sp.random(7, 5, density=0.5, random_state=rng, format="csr", dtype=value)
    if dense:
        dense_A = A.toarray()
        placeholder = np.zeros(1, dtype=index)
        mat = fast.matrix(dense_A, dense_A.reshape(-1), placeholder, placeholder, True)
    else:
        mat = fast.matrix(A, A.data, A.indices.astype(index), A.indptr.astype(index), False)
    assert type(mat).__name__ == (
        f"Matrix{np.dtype(value).itemsize * 8}_{np.dtype(index).itemsize * 8}")
    x, y = rng.normal(size=5), rng.normal(size=7)
    out, back = np.empty(7), np.empty(5)
    fast.matvec(mat, x, out)
    fast.rmatvec(mat, y, back)
    reference = A.toarray().astype(np.float64)
    assert_allclose(out, reference @ x, rtol=1e-12, atol=1e-12)
    assert_allclose(back, reference.T @ y, rtol=1e-12, atol=1e-12)


def test_matrix_refuses_arrays_it_cannot_read_in_place():
    from sklearn_perceptrons._feasibility import _feasibility_fast as fast

    A = np.ones((3, 4))
    flat = np.zeros(2, dtype=np.int32)
    with pytest.raises(ValueError, match="C-contiguous"):
        fast.matrix(A, np.ones(24)[::2], flat, flat, True)
    with pytest.raises(ValueError, match="C-contiguous"):
        fast.matrix(A, A.reshape(-1), np.zeros(0, dtype=np.int32), flat, True)
    with pytest.raises(ValueError, match="same dtype"):
        fast.matrix(A, A.reshape(-1), flat, flat.astype(np.int64), True)
