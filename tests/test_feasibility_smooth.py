# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the smooth, the certifying and the rescaled perceptron, and of
bounds.condition_measure.

Oracles: scipy.optimize.linprog(method="highs") decides feasibility of
``A w > 0`` (as ``A w >= 1``); every solution and every certificate is checked
on the exact entries of A in float64; the iteration counts are checked
against the proven bounds, with rho(A) from condition_measure; the condition
measure is checked against closed forms.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.optimize import linprog

from sklearn_perceptrons.bounds import condition_measure
from sklearn_perceptrons.feasibility import (
    perceptron_feasibility,
    perceptron_von_neumann,
    relaxation_method,
    rescaled_perceptron,
    smooth_perceptron,
)

SOLVERS = [smooth_perceptron, perceptron_von_neumann, rescaled_perceptron]
CONTAINERS = [np.asarray, sp.csr_matrix]
DTYPES = [np.float32, np.float64]

solver = pytest.mark.parametrize("solver", SOLVERS, ids=lambda f: f.__name__)
container = pytest.mark.parametrize(
    "container", CONTAINERS, ids=lambda c: "csr" if c is sp.csr_matrix else "dense"
)
dtype = pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])


def _exact64(A):
    if sp.issparse(A):
        return A.toarray().astype(np.float64)
    return np.asarray(A, np.float64)


def _lp_feasible(A):
    """HiGHS's verdict on A w > 0 (equivalently, by scaling, A w >= 1)."""
    A = _exact64(A)
    res = linprog(
        np.zeros(A.shape[1]), A_ub=-A, b_ub=-np.ones(A.shape[0]),
        bounds=(None, None), method="highs",
    )  # fmt: skip
    assert res.status in (0, 2)
    return res.status == 0


def cone(rho, n=120, p=6, seed=0):
    """A random system with condition measure exactly ``rho``.

    Half the rows sit at angular height ``rho`` above the hyperplane of a
    random unit direction d, with tangent parts whose hull contains 0, so
    that ``rho * d`` is the nearest point of the hull of the rows; the other
    rows are higher. Rows get random norms.
    """
    rng = np.random.RandomState(seed)
    Q, _ = np.linalg.qr(rng.randn(p, p))
    d, T = Q[:, 0], Q[:, 1:]
    z = rng.randn(n, p - 1)
    z -= z.mean(axis=0)  # 0 in the hull of the tangent parts
    z /= np.linalg.norm(z, axis=1)[:, None]
    h = np.full(n, rho)
    h[n // 2 :] = np.minimum(rho + rng.uniform(0, 0.5, n - n // 2), 0.99)
    z[: n // 2] -= z[: n // 2].mean(axis=0)
    z /= np.linalg.norm(z, axis=1)[:, None]
    rows = h[:, None] * d + np.sqrt(1 - h**2)[:, None] * (z @ T.T)
    return rows * rng.uniform(0.5, 3.0, n)[:, None]


def _check_solution(A, res):
    assert res.status == 0 and res.success
    assert res.x.dtype == np.float64
    Aw = _exact64(A) @ res.x
    assert np.all(Aw > 0)
    assert res.slack == pytest.approx(Aw.min(), rel=1e-9)
    assert res.maxcv == 0.0


def _check_certificate(A, res, tol):
    assert res.status == 2 and not res.success
    x = res.certificate
    assert x.shape == (A.shape[0],)
    assert np.all(x >= 0)
    assert x.sum() == pytest.approx(1.0, abs=1e-12)
    norm = np.linalg.norm(_exact64(A).T @ x)
    assert norm <= tol * (1 + 1e-9)
    assert res.certificate_norm == pytest.approx(norm, rel=1e-6, abs=1e-15)
    assert "Infeasible" in res.message


# ---------------------------------------------------------------------------
# condition_measure
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("phi", [0.1, 0.7, 1.3])
def test_condition_measure_two_rows_closed_form(phi):
    """Two unit rows at angles +-phi from d: rho = cos(phi)."""
    A = np.array([[np.cos(phi), np.sin(phi)], [np.cos(phi), -np.sin(phi)]])
    assert condition_measure(A * [[3.0], [0.5]]) == pytest.approx(np.cos(phi))


@pytest.mark.parametrize("k", [3, 4, 7])
def test_condition_measure_regular_polygon_is_minus_inradius(k):
    t = 2 * np.pi * np.arange(k) / k + 0.3
    A = np.c_[np.cos(t), np.sin(t)] * np.arange(1, k + 1)[:, None]
    assert condition_measure(A) == pytest.approx(-np.cos(np.pi / k), rel=1e-9)
    assert condition_measure(sp.csr_matrix(A)) == pytest.approx(-np.cos(np.pi / k))


@pytest.mark.parametrize("rho", [0.3, 1e-2, 1e-4])
def test_condition_measure_of_the_cone_family(rho):
    A = cone(rho)
    assert condition_measure(A) == pytest.approx(rho, rel=1e-6)
    assert condition_measure(sp.csr_matrix(A)) == pytest.approx(rho, rel=1e-6)


def test_condition_measure_sign_agrees_with_linprog():
    rng = np.random.RandomState(0)
    for trial in range(20):
        n, p = rng.randint(2, 12), rng.randint(1, 5)
        A = rng.randn(n, p)
        if trial % 2:
            A[:, 0] = np.abs(A[:, 0])
        rho = condition_measure(A)
        assert -1.0 <= rho <= 1.0
        assert (rho > 0) == _lp_feasible(A)


def test_condition_measure_bounds_every_solution_margin():
    """Any w's normalized margin is at most rho (rho is the maximum)."""
    A = cone(0.05, seed=3)
    rho = condition_measure(A)
    U = A / np.linalg.norm(A, axis=1)[:, None]
    for solver in SOLVERS + [perceptron_feasibility]:
        w = solver(A).x
        assert (U @ w).min() / np.linalg.norm(w) <= rho * (1 + 1e-9)


def test_condition_measure_special_rows():
    assert condition_measure([[2.0, 0.0]]) == 1.0
    assert condition_measure([[1.0, 0.0], [0.0, 0.0]]) == 0.0  # zero row
    assert condition_measure([[0.0, 0.0]]) == 0.0
    assert condition_measure([[1.0], [-2.0]]) == -1.0
    assert condition_measure([[1.0, 0.0], [-1.0, 0.0]]) == 0.0  # flat hull
    # Infeasible in more than 8 dimensions: only the sign is computed.
    A = np.random.RandomState(0).randn(40, 9)
    assert condition_measure(A) == 0.0


@pytest.mark.parametrize(
    "A", [np.zeros((0, 3)), [[np.nan, 1.0]], [[np.inf, 1.0]], [1.0, 2.0]]
)
def test_condition_measure_rejects_bad_input(A):
    with pytest.raises(ValueError):
        condition_measure(A)


# ---------------------------------------------------------------------------
# Feasible systems: verified solutions, iteration bounds
# ---------------------------------------------------------------------------


@solver
@container
@dtype
@pytest.mark.parametrize("rho", [0.2, 1e-2, 1e-3])
def test_feasible_family_solved_and_verified(solver, container, dtype, rho):
    A = container(cone(rho, seed=1).astype(dtype))
    res = solver(A)
    _check_solution(A, res)
    assert _lp_feasible(A)
    if solver is perceptron_von_neumann:
        assert res.certificate is None


@pytest.mark.parametrize("rho", [0.3, 3e-2, 3e-3, 1e-3])
@pytest.mark.parametrize("seed", [0, 1])
def test_smooth_iterations_within_the_proven_bound(rho, seed):
    """Soheili-Peña: fewer than 2 sqrt(2 log n) / rho iterations."""
    A = cone(rho, seed=seed)
    measured = condition_measure(A)
    bound = 2 * np.sqrt(2 * np.log(A.shape[0])) / measured
    for solver in (smooth_perceptron, perceptron_von_neumann):
        res = solver(A, max_iter=10**6)
        _check_solution(A, res)
        assert res.nit < bound


def test_smooth_iterations_scale_like_one_over_rho():
    """Halving rho roughly doubles the iterations (not quadruples)."""
    nits = [smooth_perceptron(cone(r, seed=2)).nit for r in (4e-3, 2e-3, 1e-3)]
    slope = np.polyfit(np.log([4e-3, 2e-3, 1e-3]), np.log(nits), 1)[0]
    assert -1.4 < slope < -0.6


@pytest.mark.parametrize("rho", [1e-2, 1e-4, 1e-6])
def test_rescalings_within_the_volume_bound(rho):
    A = cone(rho, n=80, p=4, seed=4)
    p = A.shape[1]
    measured = condition_measure(A)
    res = rescaled_perceptron(A)
    _check_solution(A, res)
    assert res.n_rescalings <= p * np.log(2 / measured) / np.log(2 / np.sqrt(np.e))
    assert res.nit + res.n_rescalings <= 50_000


def test_rescaled_solves_what_the_perceptron_cannot():
    A = cone(1e-6, n=80, p=4, seed=5)
    plain = perceptron_feasibility(A, max_iter=2000)
    assert plain.status == 1
    smooth = smooth_perceptron(A, max_iter=2000)
    assert smooth.status == 1
    res = rescaled_perceptron(A, max_iter=20_000)
    _check_solution(A, res)
    assert res.n_rescalings > 0


def test_rescaled_csr_float32_rows_follow_the_dense_ones():
    A = cone(1e-5, n=60, p=4, seed=6)
    dense = rescaled_perceptron(A)
    csr = rescaled_perceptron(sp.csr_matrix(A))
    _check_solution(A, dense)
    _check_solution(A, csr)
    assert csr.n_rescalings == dense.n_rescalings
    A32 = A.astype(np.float32)
    _check_solution(A32, rescaled_perceptron(A32))
    _check_solution(A32, rescaled_perceptron(sp.csr_matrix(A32)))


def test_input_is_not_modified():
    A = cone(1e-3, seed=7)
    A_csr = sp.csr_matrix(A)
    before, data_before = A.copy(), A_csr.data.copy()
    for solver in SOLVERS:
        solver(A)
        solver(A_csr)
    np.testing.assert_array_equal(A, before)
    np.testing.assert_array_equal(A_csr.data, data_before)


# ---------------------------------------------------------------------------
# Infeasible systems: verified certificates
# ---------------------------------------------------------------------------


@container
@dtype
@pytest.mark.parametrize("shape", [(30, 2), (200, 5), (400, 40)])
def test_infeasible_family_certificates(container, dtype, shape):
    rng = np.random.RandomState(shape[1])
    A = rng.randn(*shape) * rng.uniform(0.5, 2.0, shape[0])[:, None]
    A = container(A.astype(dtype))
    assert not _lp_feasible(A)
    for tol in (1e-3, 1e-6):
        res = perceptron_von_neumann(A, tol=tol)
        _check_certificate(A, res, tol)
    # Neither primal solver can succeed; both stop at their budget (or, for
    # the rescaled one, possibly with a verified certificate).
    for solver in (smooth_perceptron, rescaled_perceptron):
        res = solver(A, max_iter=300)
        assert not res.success and res.status in (1, 2)
        if res.status == 2:
            _check_certificate(A, res, 1e-6)
        else:
            assert "Iteration limit" in res.message or "rescalings" in res.message
        assert res.nit <= 300
        assert res.slack <= 0


def test_certificate_iterations_within_the_proven_bound():
    """Infeasible side: fewer than 2 sqrt(2 log n) R / tol iterations."""
    rng = np.random.RandomState(11)
    A = rng.randn(60, 3) * rng.uniform(0.5, 2.0, 60)[:, None]
    R = np.linalg.norm(A, axis=1).max()
    for tol in (1e-1, 1e-2, 1e-3):
        res = perceptron_von_neumann(A, tol=tol)
        _check_certificate(A, res, tol)
        assert res.nit < 2 * np.sqrt(2 * np.log(60)) * R / tol


def test_zero_row_is_an_exact_certificate():
    A = np.array([[1.0, 2.0], [0.0, 0.0], [3.0, 1.0]])
    res = perceptron_von_neumann(A, tol=0.0)
    _check_certificate(A, res, 0.0)
    np.testing.assert_array_equal(res.certificate, [0.0, 1.0, 0.0])
    for solver in (smooth_perceptron, rescaled_perceptron):
        res = solver(sp.csr_matrix(A))
        assert res.status == 2 and not res.success and res.nit == 0
        assert "all zeros" in res.message
    np.testing.assert_array_equal(
        rescaled_perceptron(A).certificate, [0.0, 1.0, 0.0]
    )


def test_von_neumann_limit_says_neither_side_was_reached():
    # Rows (1, 0) and (-1, 0): infeasible with rho = 0 and an exact
    # certificate (1/2, 1/2) -- found at once; a flat, tilted variant with a
    # tiny tol needs more than 5 iterations.
    A = np.array([[1.0, 1e-3], [-1.0, 1e-3], [0.0, -1.0]])
    res = perceptron_von_neumann(A, tol=1e-12, max_iter=5)
    assert res.status == 1 and res.nit == 5
    assert res.certificate is None
    assert "neither" in res.message
    assert res.certificate_norm > 1e-12


# ---------------------------------------------------------------------------
# Property test against HiGHS
# ---------------------------------------------------------------------------


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(
    st.integers(1, 4).flatmap(
        lambda p: st.lists(
            st.lists(st.integers(-4, 4), min_size=p, max_size=p),
            min_size=1, max_size=10,
        )  # fmt: skip
    )
)
def test_von_neumann_agrees_with_highs(rows):
    A = np.array(rows, dtype=np.float64)
    tol = 1e-9
    res = perceptron_von_neumann(A, tol=tol, max_iter=20_000)
    feasible = _lp_feasible(A)
    if res.status == 0:
        _check_solution(A, res)
        assert feasible
    elif res.status == 2:
        if np.any(~A.any(axis=1)):
            assert res.nit == 0
        else:
            _check_certificate(A, res, tol)
        assert not feasible
    else:
        # Only a degenerate system (rho = 0: the origin on the boundary of
        # the hull, where the certificate side converges like 1/k) may end at
        # the limit; it is infeasible.
        assert res.status == 1 and res.nit == 20_000
        assert not feasible
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert condition_measure(A) == 0.0


# ---------------------------------------------------------------------------
# Errors, budgets
# ---------------------------------------------------------------------------


@solver
@pytest.mark.parametrize(
    "A",
    [np.zeros((0, 3)), np.zeros((3, 0)), [[np.nan, 1.0]], [[1.0, np.inf]],
     [1.0, 2.0], np.ones((2, 2, 2))],  # fmt: skip
    ids=["no-rows", "no-columns", "nan", "inf", "1d", "3d"],
)
def test_bad_input_raises_value_error(solver, A):
    with pytest.raises(ValueError):
        solver(A)


@solver
def test_bad_max_iter(solver):
    with pytest.raises(ValueError):
        solver([[1.0]], max_iter=-1)
    with pytest.raises(TypeError):
        solver([[1.0]], max_iter=1.5)


@pytest.mark.parametrize("solver", [perceptron_von_neumann, rescaled_perceptron])
def test_bad_tol(solver):
    with pytest.raises(ValueError):
        solver([[1.0]], tol=-1.0)
    with pytest.raises(ValueError):
        solver([[1.0]], tol=np.nan)


@solver
@pytest.mark.parametrize("max_iter", [0, 1, 7])
def test_max_iter_is_respected(solver, max_iter):
    A = cone(1e-4, seed=8)  # needs many iterations
    res = solver(A, max_iter=max_iter)
    assert res.nit <= max_iter
    if res.status == 1:
        assert str(max_iter) in res.message
    if solver is rescaled_perceptron:
        assert res.nit + res.n_rescalings <= max_iter
        if res.status == 1:
            assert f"{res.n_rescalings} rescaling(s)" in res.message


def test_default_budgets_end_on_an_infeasible_system():
    """#18.13: the greedy orders take one step per iteration, so a default
    run on an infeasible dense system does max_iter steps, not max_iter * n
    (a full pass over A each)."""
    rng = np.random.RandomState(0)
    A = rng.randn(30, 10)
    A = np.vstack([A, -A])  # x <= -1 and -x <= -1 along every row
    b = -np.ones(A.shape[0])
    for order in ("max_distance", "max_residual"):
        res = relaxation_method(A, b, order=order)
        assert res.status == 1 and res.nit == 100_000 == res.n_sweeps
        assert "100000 iteration(s) (greedy steps)" in res.message
        res = perceptron_feasibility(A, order=order)
        assert res.status == 1 and res.nit == 10_000 == res.n_sweeps
    for order in ("cyclic", "permuted", "random"):
        res = relaxation_method(A[:20], b[:20], order=order, random_state=0)
        assert res.status == 1 and res.n_sweeps == 10_000
        assert "10000 iteration(s) (sweeps over the rows)" in res.message
    res = perceptron_von_neumann(A)
    _check_certificate(A, res, 1e-6)
    res = smooth_perceptron(A)
    assert res.status == 1 and res.nit == 10_000
    # The symmetric system has the exact certificate 1/n at once.
    res = rescaled_perceptron(A)
    _check_certificate(A, res, 1e-6)
    assert res.nit == 0


def test_rescaled_gives_up_when_the_rescalings_prove_rho_tiny():
    """k rescalings prove rho < 2 (sqrt(e)/2)**(k/p); below 1e-12 the
    rescalings stop, and the rest of the budget finds a certificate."""
    rng = np.random.RandomState(3)
    A = rng.randn(300, 3)
    assert not _lp_feasible(A)
    res = rescaled_perceptron(A)
    assert res.status == 2 and not res.success
    assert "proved rho(A) < 1e-12" in res.message
    k = res.n_rescalings
    assert 2 * (np.sqrt(np.e) / 2) ** (k / 3) < 1e-12
    assert 2 * (np.sqrt(np.e) / 2) ** ((k - 1) / 3) >= 1e-12
    x = res.certificate
    assert np.all(x >= 0) and np.isclose(x.sum(), 1.0)
    assert np.linalg.norm(A.T @ x) <= 1e-6
    # Without the budget for a certificate search, it says what it proved.
    res = rescaled_perceptron(A, max_iter=res.nit - 1 + k)
    assert res.status == 1 and res.certificate is None
    assert "prove that rho(A) < 1e-12" in res.message


def test_result_fields():
    A = cone(0.1)
    for solver in SOLVERS:
        res = solver(A)
        for key in ("x", "success", "status", "message", "nit", "maxcv", "slack"):
            assert key in res
    assert "n_rescalings" in rescaled_perceptron(A)
    res = perceptron_von_neumann(A)
    assert "certificate" in res and "certificate_norm" in res
    assert_allclose(np.linalg.norm(res.x) > 0, True)
