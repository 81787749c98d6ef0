# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Linear inequality systems: the perceptron, its faster variants, and the
relaxation method.

For the homogeneous system ``A @ w > 0``, besides :func:`perceptron_feasibility`:

* :func:`smooth_perceptron` (Soheili and Peña, 2012): fewer than
  ``2 sqrt(2 log n) / rho(A)`` iterations of two matrix-vector products each,
  against the perceptron's ``1 / rho(A)**2`` updates;
* :func:`perceptron_von_neumann` (Soheili and Peña, 2013): the same iteration,
  which also stops with a Gordan certificate ``x >= 0``, ``sum(x) = 1``,
  ``||A.T @ x|| <= tol`` when the system is infeasible;
* :func:`rescaled_perceptron` (the deterministic rescaling of Peña and
  Soheili, 2016): ``O(p log(1 / rho(A)))`` rescalings, polynomial time on
  ill-conditioned systems; once they prove a system infeasible (or nearly
  so), it searches a certificate as :func:`perceptron_von_neumann` does.

``rho(A)`` is the condition measure of
:func:`sklearn_perceptrons.bounds.condition_measure`. These three share the
result fields, the status codes and the error rules below; their
``max_iter`` counts iterations of two products with ``A`` each.

The rest of this page describes the two row-action solvers.

Two row-action solvers that find a point of a polyhedron by looking at one
inequality at a time, in the compiled loops of ``_feasibility_fast``:

* :func:`perceptron_feasibility` finds ``w`` with ``A @ w > threshold`` (the
  homogeneous system, i.e. a point in the interior of the cone
  ``{w : A w >= 0}``): start from ``w = 0``; while some row has
  ``a_i . w <= threshold``, add it, ``w <- w + a_i``. With ``threshold=0``,
  ``w / min(A @ w)`` then satisfies ``A @ w >= 1``.
* :func:`relaxation_method` (Agmon; Motzkin and Schoenberg) finds ``x`` with
  ``A @ x <= b``: while some row has ``r_i = a_i . x - b_i > tol``, move
  ``x <- x - eta * r_i / ||a_i||^2 * a_i``, the projection on the violated
  half-space (``eta=1``), under-relaxed (``eta < 1``) or over-relaxed up to
  the reflection (``eta=2``).

The perceptron is the relaxation method on the homogeneous system ``-A w <= -
threshold`` with a fixed step (the whole row, ``w <- w + a_i``) instead of the
projection, and a non-strict test (``a_i . w = threshold`` is a violation). Both
solvers share every order and every rule below.

Orders (``order``)
    Which violated row is used next.

    * ``"cyclic"``: rows ``0, 1, ..., n - 1``, again and again.
    * ``"permuted"``: a fresh random permutation of the rows per sweep.
    * ``"random"``: each step draws row ``i`` with probability
      ``||a_i||^2 / ||A||_F^2``, independently (randomized Kaczmarz). Zero rows
      are never drawn.
    * ``"max_distance"``: the violated row farthest from ``x`` in Euclidean
      distance, ``r_i / ||a_i||`` (Agmon's and Motzkin-Schoenberg's rule).
    * ``"max_residual"``: the violated row with the largest residual ``r_i``.

    For the perceptron, ``r_i = threshold - a_i . w``. Ties go to the lowest
    row index.

Iterations and ``max_iter``
    ``max_iter`` counts *iterations*, and an iteration costs about one pass
    over ``A`` (``O(nnz(A))``) for every order, so that ``max_iter`` bounds
    the work the same way whatever the order. For the row-action orders an
    iteration is a *sweep* of ``n`` steps (``n`` = number of rows): one pass
    over the rows for ``"cyclic"`` and ``"permuted"``, ``n`` draws for
    ``"random"``. For the greedy ``"max_*"`` orders an iteration is *one*
    step -- one update on the most violated row -- because finding that row
    takes a pass over a dense ``A`` (and at most one over a CSR ``A``).
    ``res.nit`` counts updates (rows actually added or projected on),
    ``res.n_sweeps`` the iterations begun. A step on a row that is not
    violated does nothing and is not counted in ``nit``.

Stopping
    ``"cyclic"`` stops as soon as ``n`` consecutive rows (possibly across the
    end of a sweep) needed no update; ``"permuted"`` after a sweep without an
    update; ``"random"`` after a sweep without an update *and* a read-only
    pass that finds no violated row; the greedy orders as soon as no row is
    violated. The solvers then check the answer once more against ``A`` and
    report ``success`` from that final check: ``success`` means a verified
    feasible point.

Status codes (``res.status``)
    * 0 -- success: ``max_i (a_i . x - b_i) <= tol`` (relaxation), or
      ``A @ w > threshold`` (perceptron).
    * 1 -- iteration limit: ``max_iter`` iterations ran without reaching a
      feasible point; the system may be infeasible, or need more iterations.
      The default budgets end in seconds on systems of thousands of rows
      (each iteration being about one pass over ``A``).
    * 2 -- infeasible: a row of ``A`` is all zeros and its inequality cannot
      hold (``0 <= b_i`` fails by more than ``tol``; for the perceptron,
      ``0 > threshold`` fails, i.e. ``threshold >= 0``). Detected before any
      sweep. Other infeasible systems end with status 1: no finite test
      certifies infeasibility from these iterations.
    * 3 -- numerical failure: the iterate became non-finite (overflow).

    A zero row whose inequality holds is satisfied for every ``x``; it is
    skipped (it has no direction to project on). An ``A`` with no rows at all
    (or no columns) is rejected with ``ValueError``.

Cost per step and memory
    A is never copied or converted when it is a C-contiguous float32/float64
    array or a canonical CSR matrix (float32 stays float32; other layouts and
    sparse formats are converted once; a CSR matrix with duplicate or
    unsorted indices is canonicalized in a copy). Row norms are computed once.
    The iterate and every accumulation are float64, whatever the dtype of A,
    so that ``tol`` means the same for float32 data (the iterate is only ``p``
    numbers; ``res.x`` is float64).

    Rows of extreme magnitude. The solvers read squared row norms, which
    leave float64, or its precise (normal) range, for rows of norm beyond
    about 1e154 or below 1e-146 (finite rows all the same). A positive
    scaling of a row does not change the
    solutions of ``A @ w > 0``, so the solvers of the homogeneous system
    then iterate on a copy of A whose every row is scaled by a power of two
    (its largest entry into [0.5, 1), exactly; ``perceptron_feasibility``
    scales each row's threshold with it) and check the answer, and map any
    certificate, on A itself. ``relaxation_method`` scales A, b and ``tol``
    by one power of two when that brings every row into range (each step
    is then the same, exactly); rows further apart are refused with
    ``ValueError``, since scaling them one by one would change what the
    absolute ``tol`` means.

    * Row-action orders: a step costs one row (``O(p)`` dense, ``O(nnz(a_i))``
      CSR) plus the same again when it updates; a sweep of ``"cyclic"`` costs
      about one ``A @ x``. ``"permuted"`` and ``"random"`` draw the sweep's
      row sequence before the sweep (extra memory ``O(n)``: the sequence, and
      a Walker alias table for ``"random"``) and prefetch the rows a few
      steps ahead, which hides most of the latency of visiting rows in
      random order.
    * Greedy orders, CSR ``A``: the residual vector ``r = A x - b`` is kept up
      to date. A step on row ``i`` moves ``x`` along ``a_i``, so ``r_j``
      changes by ``-step * (a_j . a_i)``, and only for the rows ``j`` sharing
      a column with ``a_i``; these are reached through the columns of ``A``,
      for which the solver builds **one CSC copy of A** (the same size as A:
      the memory price of the greedy orders on sparse data; the other orders
      never copy A). The priorities (``r_j`` or ``r_j / ||a_j||``, ``-inf``
      when satisfied) sit in a tournament tree (a max-heap of
      ``2^(ceil(log2 n) + 1)`` (key, row) nodes) whose root is the most
      violated row; only rows whose priority changed are replayed, level by
      level, each shared ancestor once. Cost of a step on row ``i``:
      ``O(sum_{k in supp(a_i)} nnz(column k))`` to update the residuals (a
      row satisfied before and after costs one update of ``r_j`` and of a
      flag byte), plus ``O(m log(n / m) + m)`` tree work for the ``m`` rows
      whose priority changed -- against ``O(nnz(A))`` for a rescan. For
      100,000 x 1,000 at 1% density that is about 10,000 residual updates
      per step instead of 1,000,000. Every ``n`` steps, and before declaring
      success, the residuals are recomputed exactly (``O(nnz(A))``, i.e.
      ``O(nnz(A) / n)`` amortised per step) so that rounding drift never
      accumulates and success is always exact. Extra memory: the CSC copy
      plus an ``O(n)`` workspace (under 100 bytes per row).
    * Greedy orders, dense ``A``: keeping ``r`` up to date needs ``A a_i``,
      which costs a full pass over a dense A -- the same as recomputing ``r``.
      So each step recomputes ``r = A x - b`` in one pass fused with the
      argmax: ``O(n p)`` per step, no extra memory, no drift. (Only the
      ``n x n`` Gram matrix ``A A^T`` would make a step ``O(n)``; it is not
      built.) Use CSR data, or a row-action order, for large dense systems.

Randomness
    ``random_state`` (``None``, an int, or a ``numpy.random.RandomState``) is
    used only by ``"permuted"`` and ``"random"``: one 63-bit seed is drawn
    from it, and the compiled loop draws every index from a splitmix64
    generator seeded with it (permutations by Fisher-Yates, weighted rows from
    a Walker alias table built once in ``O(n)``, ``O(1)`` per draw). The same
    seed gives bit-identical results; no index block is ever materialised in
    Python.

Long runs release the GIL and can be interrupted with Ctrl-C.
"""

import numpy as np
from sklearn.utils import check_random_state

from ._core.docstrings import shared_doc
from ._feasibility import results, smooth
from ._feasibility.checks import (
    check_eta,
    check_matrix,
    check_max_iter,
    check_order,
    check_real,
    check_tol,
    check_vector,
)
from ._feasibility.homogeneous import (
    certify,
    certifying_setup,
    smooth_setup,
    verifier,
)
from ._feasibility.rows import homogeneous_rows, matvec_f64, relaxation_rows
from ._feasibility.sweeps import solve

__all__ = [
    "perceptron_feasibility",
    "perceptron_von_neumann",
    "relaxation_method",
    "rescaled_perceptron",
    "smooth_perceptron",
]


@shared_doc
def perceptron_feasibility(
    A, *, threshold=0.0, max_iter=10_000, order="cyclic", random_state=None
):
    """Find ``w`` with ``A @ w > threshold`` by the perceptron algorithm.

    Each row ``a_i`` of ``A`` is a constraint ``a_i . w > threshold``. Starting
    from ``w = 0``, while some row has ``a_i . w <= threshold``, the row is
    added to ``w``: ``w <- w + a_i``. With ``threshold=0`` this solves the
    homogeneous system (a point in the open cone ``{w : A w > 0}``, the
    feasibility form of a cone LP); ``w / min(A @ w)`` then satisfies
    ``A @ w >= 1``. A binary classification problem with samples ``x_i`` and
    labels ``y_i = ±1`` is linearly separable through the origin iff the
    system with rows ``y_i x_i`` is feasible.

    Read more in the module docstring (orders, sweeps, status codes, costs).

    Parameters
    ----------
    {{feasibility_A}}

    threshold : float, default=0.0
        The right-hand side: the solver looks for ``A @ w > threshold``. With
        ``threshold = δ > 0``, ``w`` also satisfies ``A @ w > δ`` directly
        (updates keep happening until every row clears δ). With a negative
        threshold ``w = 0`` is already a solution.

    max_iter : int, default=10_000
        Maximum number of iterations, each about one pass over ``A``: a
        sweep of ``n_constraints`` steps for the row-action orders (one pass
        over the rows for ``"cyclic"``/``"permuted"``, ``n_constraints``
        random draws for ``"random"``), one update on the most violated row
        for the greedy orders. ``0`` only evaluates ``w = 0``.

    order : {"cyclic", "permuted", "random", "max_distance", "max_residual"}, \
            default="cyclic"
        Which violated row is added next: rows in order; a fresh permutation
        per sweep; rows drawn with probability ∝ ``||a_i||^2``; the row with
        the largest ``(threshold - a_i . w) / ||a_i||``; the row with the
        largest ``threshold - a_i . w``.

    {{feasibility_random_state}}

    Returns
    -------
    {{feasibility_result_w}}
        success : bool
            True iff ``A @ x > threshold`` holds for every row (checked on the
            final ``x``).
        status : int
            0 success, 1 iteration limit, 2 infeasible (an all-zero row with
            ``threshold >= 0``), 3 numerical failure (overflow).
        message : str
            Description of the status.
        nit : int
            Number of updates ``w <- w + a_i``.
        n_sweeps : int
            Number of iterations begun (at most ``max_iter``): sweeps for
            the row-action orders, steps for the greedy ones.
        maxcv : float
            Largest violation, ``max(0, max_i (threshold - a_i . x))``. It is
            0 on success, and also when the worst row sits exactly on the
            threshold (which is still a violation: the inequality is strict).
        slack : float
            ``min_i a_i . x - threshold``; positive iff success.

    See Also
    --------
    relaxation_method : Inhomogeneous systems ``A @ x <= b``.
    sklearn_perceptrons.Perceptron : The classifier, with an intercept.

    Notes
    -----
    **Finite termination (Block, 1962; Novikoff, 1962).** If some ``w*``
    satisfies ``min_i a_i . w* = s > 0``, then with ``threshold=0`` the
    perceptron makes at most

        ``max_i ||a_i||^2 * ||w*||^2 / s^2``

    updates, *whatever the order* in which violated rows are chosen: each
    update raises ``w . w*`` by at least ``s`` while it raises ``||w||^2`` by
    at most ``max_i ||a_i||^2``. With ``threshold = δ >= 0`` the bound becomes
    ``(2 δ + max_i ||a_i||^2) ||w*||^2 / s^2``. If the system is infeasible,
    the iterates stay bounded (the perceptron cycling theorem, Block and
    Levin, 1970) and the solver stops at ``max_iter`` with ``status=1``.

    An all-zero row can never satisfy ``0 > threshold`` when ``threshold >=
    0``: the system is then reported infeasible (``status=2``) without any
    sweep. With ``threshold < 0`` zero rows always hold and are skipped.

    References
    ----------
    .. [1] H. D. Block, "The perceptron: a model for brain functioning. I",
       Reviews of Modern Physics 34(1), 123-135, 1962.
    .. [2] A. B. J. Novikoff, "On convergence proofs on perceptrons",
       Symposium on the Mathematical Theory of Automata 12, 615-622, 1962.
    .. [3] H. D. Block and S. A. Levin, "On the boundedness of an iterative
       procedure for solving a system of linear inequalities", Proceedings of
       the AMS 26(2), 229-235, 1970.

    Examples
    --------
    {{feasibility_example_A}}
    >>> from sklearn_perceptrons.feasibility import perceptron_feasibility
    >>> res = perceptron_feasibility(A)
    >>> res.success
    True
    >>> bool(np.all(A @ res.x > 0))
    True
    >>> w = res.x / np.min(A @ res.x)  # now A @ w >= 1
    >>> bool(np.all(A @ w >= 1 - 1e-12))
    True

    An infeasible system (``a . w > 0`` and ``-a . w > 0``) stops at the limit:

    >>> res = perceptron_feasibility([[1.0, 1.0], [-1.0, -1.0]], max_iter=50)
    >>> res.success, res.status
    (False, 1)
    """
    threshold = check_real("threshold", threshold)
    max_iter = check_max_iter(max_iter)
    order = check_order(order)
    random_state = check_random_state(random_state)
    mat = check_matrix(A)
    n, p = mat.n, mat.p

    w = np.zeros(p, dtype=np.float64)
    # r_i = -(a_i . w) - c_i with c_i = -threshold, i.e. threshold - a_i . w.
    c = np.full(n, -threshold, dtype=np.float64)

    rows, sqnorm, shift = homogeneous_rows(mat)
    if shift is not None:
        # Row i scaled by 2**-shift[i]: so is its threshold.
        c = np.ldexp(c, -shift)
    zero = np.flatnonzero(sqnorm == 0)
    if threshold >= 0 and zero.size:
        return results.result(
            w,
            status=results.STATUS_INFEASIBLE, nit=0, n_sweeps=0,
            maxcv=threshold, slack=-threshold,
            message=(
                f"Infeasible: row {zero[0]} of A is all zeros, so "
                f"a . w = 0 > threshold = {threshold} cannot hold "
                f"({zero.size} such row(s))."
            ),
        )  # fmt: skip

    loop_status, nit, n_sweeps = solve(
        rows, sqnorm, c, w, perceptron=True, eta=1.0, tol=0.0, order=order,
        max_iter=max_iter, random_state=random_state,
    )  # fmt: skip

    finite = bool(np.all(np.isfinite(w)))
    Aw = matvec_f64(mat, w) if finite else np.full(n, np.nan)
    with np.errstate(invalid="ignore"):
        feasible = finite and bool(np.all(Aw > threshold))
        slack = float(np.min(Aw) - threshold)
        maxcv = float(max(0.0, np.max(threshold - Aw)))
    return results.loop_result(
        w, feasible, finite, loop_status, nit, n_sweeps, maxcv, max_iter,
        order, "Found w with A @ w > threshold.", slack=slack,
    )  # fmt: skip


@shared_doc
def relaxation_method(
    A,
    b,
    *,
    eta=1.0,
    order="cyclic",
    x0=None,
    max_iter=None,
    tol=1e-8,
    random_state=None,
):
    """Find ``x`` with ``A @ x <= b`` by the relaxation method.

    The Agmon-Motzkin-Schoenberg relaxation method: from ``x0``, while some
    row has residual ``r_i = a_i . x - b_i > tol``, move towards (``eta <
    1``), onto (``eta = 1``) or across (``1 < eta <= 2``; ``eta = 2`` is the
    reflection) the boundary of its half-space:

        ``x <- x - eta * r_i / ||a_i||^2 * a_i``.

    For ``eta = 1`` and ``order="cyclic"`` applied to equalities this is
    Kaczmarz's method; ``order="random"`` is the randomized Kaczmarz method
    for inequalities.

    Read more in the module docstring (orders, sweeps, status codes, costs).

    Parameters
    ----------
    {{feasibility_A}}

    b : array-like of shape (n_constraints,)
        The right-hand sides. Must be finite.

    eta : float, default=1.0
        Relaxation parameter, in ``(0, 2]``.

    order : {"cyclic", "permuted", "random", "max_distance", "max_residual"}, \
            default="cyclic"
        Which violated row is used next: rows in order; a fresh permutation
        per sweep; rows drawn with probability ∝ ``||a_i||^2``; the row
        farthest from ``x`` (largest ``r_i / ||a_i||``); the row with the
        largest residual ``r_i``.

    x0 : array-like of shape (n_features,), default=None
        Starting point; ``None`` means zeros. Not modified.

    max_iter : int or None, default=None
        Maximum number of iterations, each about one pass over ``A``: a
        sweep of ``n_constraints`` steps for the row-action orders (one pass
        over the rows for ``"cyclic"``/``"permuted"``, ``n_constraints``
        random draws for ``"random"``), one projection on the farthest (most
        violated) row for the greedy orders. ``None`` means 10,000 sweeps
        for the row-action orders and 100,000 steps for the greedy ones
        (whose steps cost at most a pass over a dense ``A`` and usually far
        less on a sparse one): on an infeasible dense system of a few
        thousand rows either ends within seconds. ``0`` only evaluates
        ``x0``.

    tol : float, default=1e-8
        A row is violated when ``a_i . x - b_i > tol``; success when no row
        is. Must be >= 0.

    {{feasibility_random_state}}

    Returns
    -------
    res : scipy.optimize.OptimizeResult
        With fields

        x : ndarray of shape (n_features,), float64
            The final point.
        success : bool
            True iff ``max_i (a_i . x - b_i) <= tol`` (checked on the final
            ``x``).
        status : int
            0 success, 1 iteration limit, 2 infeasible (an all-zero row with
            ``b_i < -tol``), 3 numerical failure (overflow).
        message : str
            Description of the status.
        nit : int
            Number of updates (projections actually performed).
        n_sweeps : int
            Number of iterations begun (at most ``max_iter``): sweeps for
            the row-action orders, steps for the greedy ones.
        maxcv : float
            Final largest violation, ``max(0, max_i (a_i . x - b_i))``.

    See Also
    --------
    perceptron_feasibility : Homogeneous systems ``A @ w > threshold``.
    scipy.optimize.linprog : Exact LP solvers (``A_ub @ x <= b_ub`` with a
        zero objective is the same feasibility problem).

    Notes
    -----
    **Convergence (Agmon, 1954; Motzkin and Schoenberg, 1954).** If the
    system ``A x <= b`` is feasible, then for every ``eta`` in ``(0, 2)`` the
    iterates of the maximal-distance rule converge to a feasible point, and
    the distance to the feasible set decreases at least geometrically
    (linearly), at a rate set by the conditioning (Hoffman constant) of the
    system; the same holds for the cyclic order, and in expectation for the
    random order with probabilities ∝ ``||a_i||^2`` (Leventhal and Lewis,
    2010, after Strohmer and Vershynin, 2009). If the feasible set has an
    interior point, then with ``eta = 2`` the method terminates after finitely
    many steps (Motzkin and Schoenberg). So on a feasible system the maximal
    violation reaches any ``tol > 0`` in finitely many steps; how many
    depends on the geometry, not only on the size, of the system.

    On an infeasible system the iterates never settle: the solver stops at
    ``max_iter`` iterations with ``status=1``. Only the trivial certificate is
    detected up front: an all-zero row with ``b_i < -tol`` (``status=2``). A
    zero row with ``b_i >= -tol`` holds for every ``x`` and is skipped.

    References
    ----------
    .. [1] S. Agmon, "The relaxation method for linear inequalities", Canadian
       Journal of Mathematics 6, 382-392, 1954.
    .. [2] T. S. Motzkin and I. J. Schoenberg, "The relaxation method for
       linear inequalities", Canadian Journal of Mathematics 6, 393-404, 1954.
    .. [3] T. Strohmer and R. Vershynin, "A randomized Kaczmarz algorithm with
       exponential convergence", Journal of Fourier Analysis and Applications
       15, 262-278, 2009.
    .. [4] D. Leventhal and A. S. Lewis, "Randomized methods for linear
       constraints: convergence rates and conditioning", Mathematics of
       Operations Research 35(3), 641-654, 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_perceptrons.feasibility import relaxation_method
    >>> A = np.array([[1.0, 1.0], [-1.0, 2.0], [0.0, -1.0]])
    >>> b = np.array([2.0, 2.0, 0.0])
    >>> res = relaxation_method(A, b, x0=[5.0, 5.0])
    >>> res.success
    True
    >>> bool(np.all(A @ res.x - b <= 1e-8))
    True

    The greedy rule on a large sparse system:

    >>> import scipy.sparse as sp
    >>> rng = np.random.RandomState(0)
    >>> A = sp.random(2000, 50, density=0.1, format="csr", random_state=rng)
    >>> b = A @ rng.randn(50) + 0.1
    >>> res = relaxation_method(A, b, order="max_distance")
    >>> res.success, res.maxcv <= 1e-8
    (True, True)

    An infeasible system (``x <= -1`` and ``-x <= -1``) stops at the limit:

    >>> res = relaxation_method([[1.0], [-1.0]], [-1.0, -1.0], max_iter=100)
    >>> res.success, res.status
    (False, 1)
    """
    eta = check_eta(eta)
    tol = check_tol(tol)
    order = check_order(order)
    if max_iter is None:
        max_iter = 100_000 if order.startswith("max_") else 10_000
    max_iter = check_max_iter(max_iter)
    random_state = check_random_state(random_state)
    mat = check_matrix(A)
    n, p = mat.n, mat.p
    b = check_vector(b, n, "b", "one entry per row of A")
    if x0 is None:
        x = np.zeros(p, dtype=np.float64)
    else:
        x = check_vector(x0, p, "x0", "one entry per column of A")

    rows, sqnorm, c, loop_tol = relaxation_rows(mat, b, tol)
    bad = np.flatnonzero((sqnorm == 0) & (b < -tol))
    if bad.size:
        i = bad[0]
        return results.result(
            x,
            status=results.STATUS_INFEASIBLE, nit=0, n_sweeps=0,
            maxcv=float(max(0.0, np.max(matvec_f64(mat, x) - b))),
            message=(
                f"Infeasible: row {i} of A is all zeros and b[{i}] = {b[i]} "
                f"< -tol, so 0 <= b[{i}] cannot hold ({bad.size} such row(s))."
            ),
        )  # fmt: skip

    loop_status, nit, n_sweeps = solve(
        rows, sqnorm, c, x, perceptron=False, eta=eta, tol=loop_tol,
        order=order, max_iter=max_iter, random_state=random_state,
    )  # fmt: skip

    finite = bool(np.all(np.isfinite(x)))
    worst = float(np.max(matvec_f64(mat, x) - b)) if finite else np.nan
    feasible = finite and worst <= tol
    maxcv = max(0.0, worst) if finite else np.nan
    return results.loop_result(
        x, feasible, finite, loop_status, nit, n_sweeps, maxcv, max_iter,
        order, "Found x with max(A @ x - b) <= tol.",
    )  # fmt: skip


# ---------------------------------------------------------------------------
# The smooth, the certifying and the rescaled perceptron
# ---------------------------------------------------------------------------


@shared_doc
def smooth_perceptron(A, *, max_iter=10_000):
    """Find ``w`` with ``A @ w > 0`` by the smooth perceptron.

    The smooth perceptron of Soheili and Peña (2012) is the perceptron
    accelerated by Nesterov's smoothing. It solves the same homogeneous
    system as :func:`perceptron_feasibility`, but needs fewer than

        ``2 * sqrt(2 * log(n_constraints)) / rho(A)``

    iterations instead of the perceptron's up to ``1 / rho(A)**2`` updates,
    where ``rho(A) = max_{||w|| = 1} min_i a_i . w / ||a_i||`` is the
    Goffin-Cheung-Cucker condition measure (computed by
    :func:`sklearn_perceptrons.bounds.condition_measure`). Use it when the
    system is feasible but ill-conditioned (small ``rho``); on a well
    conditioned system the plain perceptron is as fast and simpler.

    Parameters
    ----------
    A : {array-like, sparse matrix} of shape (n_constraints, n_features)
        The constraint rows ``a_i``; the solver looks for ``a_i . w > 0``.
        float32 and float64 arrays and CSR matrices are used in place (never
        copied); other inputs are converted once. Must be finite, with at
        least one row and one column.

    max_iter : int, default=10_000
        Maximum number of iterations. An iteration costs one product with
        ``A`` and one with ``A.T`` (two passes over A) plus ``O(n + p)``.
        ``0`` only tests the starting point, the mean of the normalized rows.

    Returns
    -------
    {{feasibility_result_w}}
        success : bool
            True iff ``A @ x > 0`` holds for every row (checked on the final
            ``x`` with float64 products).
        status : int
            0 success, 1 iteration limit, 2 infeasible (an all-zero row), 3
            numerical failure.
        message : str
            Description of the status.
        nit : int
            Number of iterations.
        maxcv : float
            Largest violation, ``max(0, max_i (-a_i . x))``.
        slack : float
            ``min_i a_i . x``; positive iff success.

    See Also
    --------
    perceptron_von_neumann : The same iteration, which also stops with a
        certificate when the system is infeasible.
    rescaled_perceptron : Polynomial time, for very small ``rho(A)``.
    perceptron_feasibility : The classical perceptron.

    Notes
    -----
    With ``Â`` the matrix of normalized rows and ``Δ`` the simplex,
    ``rho(A) = min_{x in Δ} ||Âᵀ x||`` when the system is feasible. The smooth
    perceptron keeps a primal ``w`` and a dual ``x in Δ`` and maintains
    Nesterov's excessive gap condition for the entropy-smoothed problem with
    smoothing parameter ``mu_k = 4 / ((k + 1)(k + 2))`` [1]_. While
    ``Â w_k > 0`` fails this implies ``||Âᵀ x_k||**2 <= 2 mu_k log n``, which
    is incompatible with ``||Âᵀ x_k|| >= rho(A)`` once
    ``k + 1 >= 2 sqrt(2 log n) / rho(A)``: the iteration count is
    ``O(sqrt(log n) / rho(A))``. Each iteration is two matrix-vector
    products (BLAS for dense float64, SciPy's CSR kernel for sparse, compiled
    float64 loops for float32), so the total work is
    ``O(nnz(A) sqrt(log n) / rho(A))``.

    If the system is infeasible the iteration never succeeds and stops at
    ``max_iter`` (``status=1``); :func:`perceptron_von_neumann` then returns a
    certificate instead. An all-zero row makes the system infeasible
    (``status=2``, no iteration).

    References
    ----------
    .. [1] N. Soheili and J. Peña, "A smooth perceptron algorithm", SIAM
       Journal on Optimization 22(2), 728-737, 2012.

    Examples
    --------
    {{feasibility_example_A}}
    >>> from sklearn_perceptrons.feasibility import smooth_perceptron
    >>> res = smooth_perceptron(A)
    >>> res.success, bool(np.all(A @ res.x > 0))
    (True, True)

    The iteration bound, from the condition measure:

    >>> from sklearn_perceptrons.bounds import condition_measure
    >>> rho = condition_measure(A)
    >>> bool(res.nit < 2 * np.sqrt(2 * np.log(A.shape[0])) / rho)
    True
    """
    mat, rows, sqnorm, _, max_iter, zero = smooth_setup(A, max_iter)
    p = mat.p
    if zero.size:
        return results.zero_row_result(p, zero)
    op = smooth.UnitRows(rows, sqnorm)
    reason, nit, w, _, _ = smooth.run(
        op, max_iter, check_primal=verifier(mat, op)
    )
    return results.primal_result(mat, w, reason, nit, max_iter)


@shared_doc
def perceptron_von_neumann(A, *, tol=1e-6, max_iter=10_000):
    """Solve ``A @ w > 0``, or certify that it has no solution.

    Gordan's alternative: either some ``w`` has ``A @ w > 0``, or some ``x >=
    0`` with ``sum(x) = 1`` has ``A.T @ x = 0``, never both. The primal-dual
    smooth perceptron-von Neumann algorithm (Soheili and Peña, 2013) runs the
    smooth perceptron (:func:`smooth_perceptron`) and watches both sides of
    the alternative at every iteration: it stops with ``w`` (``status=0``) as
    soon as ``A @ w > 0``, or with a certificate ``x`` (``status=2``) as soon
    as ``||A.T @ x|| <= tol``, whichever comes first.

    Use it when you do not know whether the system is feasible and want a
    proof either way (for example: are two point sets linearly separable?).

    Parameters
    ----------
    {{feasibility_A}}

    tol : float, default=1e-6
        The certificate's accuracy: the solver stops with ``x`` once
        ``||A.T @ x|| <= tol`` (Euclidean norm, in the units of ``A``).
        Must be >= 0; ``0`` asks for an exact certificate, which is found
        only when it is exact in floating point (an all-zero row, for
        example).

    max_iter : int, default=10_000
        Maximum number of iterations; each costs one product with ``A`` and
        one with ``A.T``.

    Returns
    -------
    res : scipy.optimize.OptimizeResult
        The fields of :func:`smooth_perceptron`, and

        certificate : ndarray of shape (n_constraints,) or None
            On ``status=2``: ``x >= 0`` with ``sum(x) = 1`` and
            ``||A.T @ x|| <= tol`` (verified on the final ``x`` with a fresh
            float64 product). ``None`` otherwise.
        certificate_norm : float
            ``||A.T @ x||`` for the final dual iterate (the certificate when
            there is one).

        ``status`` is 0 (``w`` found), 1 (iteration limit: neither side
        reached), 2 (certificate found) or 3 (numerical failure).

    See Also
    --------
    smooth_perceptron : The primal side alone.
    scipy.optimize.linprog : Decides feasibility exactly (an LP).

    Notes
    -----
    **What a certificate proves.** If ``x`` is in the simplex and
    ``||A.T @ x|| <= tol``, then for every unit ``w``, ``min_i a_i . w <=
    sum_i x_i a_i . w <= tol``: no ``w`` clears every row by more than
    ``tol ||w||``. With ``tol = 0`` (or in the limit) this is Gordan's
    certificate that ``A @ w > 0`` is infeasible; with ``tol > 0`` it says the
    system is infeasible or within ``tol`` of being so (moving each row by at
    most ``tol`` makes it infeasible). The certificate ``x`` is on the rows
    of ``A`` as given (not the normalized ones).

    **Iterations.** With ``R = max_i ||a_i||`` and ``rho = rho(A)`` the
    condition measure (:func:`sklearn_perceptrons.bounds.condition_measure`),
    the excessive gap condition of the smooth perceptron gives
    ``||A.T @ x_k|| <= R * 2 sqrt(2 log n) / (k + 1)`` while no ``w`` is
    found, so the solver stops after fewer than

        ``2 * sqrt(2 * log(n)) / max(rho, tol / R)``

    iterations: ``O(sqrt(log n) / rho)`` on a feasible system, and
    ``O(R sqrt(log n) / tol)`` on an infeasible one. In practice the dual side
    converges much faster than this worst case when ``-rho`` is not tiny.
    A feasible system with ``0 < rho < tol / R`` may end either way.

    An all-zero row ``a_j`` gives the exact certificate ``x = e_j`` at once.

    References
    ----------
    .. [1] N. Soheili and J. Peña, "A primal-dual smooth perceptron-von
       Neumann algorithm", in Discrete Geometry and Optimization, Fields
       Institute Communications 69, 303-320, 2013.
    .. [2] P. Gordan, "Über die Auflösung linearer Gleichungen mit reellen
       Coefficienten", Mathematische Annalen 6, 23-28, 1873.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_perceptrons.feasibility import perceptron_von_neumann
    >>> res = perceptron_von_neumann([[1.0, 2.0], [2.0, 1.0], [1.0, -0.5]])
    >>> res.status, res.certificate is None
    (0, True)

    Three directions around the origin: no ``w`` has a positive product with
    all of them, and the certificate weighs them to (almost) cancel.

    >>> A = np.array([[1.0, 0.0], [-0.5, 1.0], [-0.5, -1.0]])
    >>> res = perceptron_von_neumann(A, tol=1e-8)
    >>> res.status
    2
    >>> x = res.certificate
    >>> bool(np.all(x >= 0)), bool(np.isclose(x.sum(), 1.0))
    (True, True)
    >>> bool(np.linalg.norm(A.T @ x) <= 1e-8)
    True
    """
    mat, rows, sqnorm, shift, max_iter, zero_result = certifying_setup(
        A, tol, max_iter)
    if zero_result is not None:
        return zero_result
    op = smooth.UnitRows(rows, sqnorm, original=mat, shift=shift)
    reason, nit, w, xhat, _ = smooth.run(
        op, max_iter, check_primal=verifier(mat, op), cert_tol=tol
    )
    xa, cert_norm = op.certificate(xhat)
    if reason != smooth.CERTIFICATE:
        res = results.primal_result(
            mat, w, reason, nit, max_iter, certificate=None,
            certificate_norm=cert_norm,
        )  # fmt: skip
        if res.status == results.STATUS_MAX_ITER:
            res.message = results.von_neumann_limit_message(max_iter, cert_norm)
        return res
    return results.certificate_result(
        mat, w, reason, nit, max_iter, xa, cert_norm,
        results.certificate_message(cert_norm, tol)
        + ", so no w has min_i a_i . w > tol * ||w||.",
    )  # fmt: skip


def rescaled_perceptron(A, *, tol=1e-6, max_iter=50_000):
    """Find ``w`` with ``A @ w > 0`` in polynomial time, by rescaling.

    A deterministic rescaled perceptron in the scheme of Peña and Soheili
    (2016): phases of the smooth perceptron (:func:`smooth_perceptron`)
    alternate with rescalings of the space. A phase ends either with a
    solution, or with a dual point ``x`` in the simplex whose normalized row
    combination is short compared with its largest weight,
    ``||Âᵀ x|| <= max_j x_j / sqrt(3 p)``. Then the feasible cone lies in the
    thin slab ``0 <= â_j . w <= ||w|| / sqrt(3 p)`` around the hyperplane of
    row ``j = argmax x``, and the change of variables that doubles the
    direction ``â_j`` multiplies the volume of the cone (within the unit
    ball) by at least ``2 / sqrt(e) > 1.21``.

    Use it for feasible systems so ill-conditioned that
    :func:`perceptron_feasibility` (``1 / rho**2`` updates) and even
    :func:`smooth_perceptron` (``sqrt(log n) / rho`` iterations) run out of
    ``max_iter``: the cost grows only like ``log(1 / rho)``.

    Parameters
    ----------
    A : {array-like, sparse matrix} of shape (n_constraints, n_features)
        The constraint rows. float32 and float64 arrays and CSR matrices are
        used in place (A is never copied or rescaled: the change of variables
        is a ``p x p`` matrix applied to the iterates; only rows whose
        squared norms leave float64 are scaled, in a copy, as the module
        docstring says); other inputs are converted once. Must be finite,
        with at least one row and one column.

    tol : float, default=1e-6
        At the end of every phase the phase's dual point is mapped back to
        the rows of ``A``; if ``||A.T @ x|| <= tol`` the solver stops with
        this certificate of (near-)infeasibility, as
        :func:`perceptron_von_neumann` does (``status=2``). Must be >= 0.

    max_iter : int, default=50_000
        Maximum number of smooth perceptron iterations and rescalings, over
        all phases.
        Each costs one product with ``A`` and one with ``A.T``, plus
        ``O(p**2)`` once the space has been rescaled; a rescaling costs one
        more product with ``A`` and ``O(p**2)``.

    Returns
    -------
    res : scipy.optimize.OptimizeResult
        The fields of :func:`smooth_perceptron` (``x`` is the solution in the
        original variables), and

        n_rescalings : int
            Number of rescalings.
        certificate : ndarray of shape (n_constraints,) or None
            On ``status=2``: ``x >= 0``, ``sum(x) = 1``, ``||A.T @ x|| <=
            tol``. ``None`` otherwise.
        certificate_norm : float
            ``||A.T @ x||`` for the certificate on ``status=2``; otherwise
            for the dual point of the last phase that ended with a
            rescaling (NaN if none did).

    See Also
    --------
    smooth_perceptron : One phase, without rescaling.
    perceptron_von_neumann : Also certifies infeasibility.

    Notes
    -----
    **Bound.** Let ``p`` be the number of features and ``rho = rho(A) > 0``
    the condition measure (:func:`sklearn_perceptrons.bounds.condition_measure`).
    The feasible cone contains a ball of radius ``rho`` around a unit vector,
    so its part in the unit ball has at least ``(rho / 2)**p`` of the ball's
    volume, and each rescaling multiplies that fraction by at least
    ``2 / (1 + 1 / p)**(p / 2) >= 2 / sqrt(e)``. Hence at most

        ``p * log(2 / rho) / log(2 / sqrt(e))  (about 5.2 p log(2 / rho))``

    rescalings happen. The first row passes the test within
    ``2 n sqrt(6 p log n)`` iterations of a phase (the smooth perceptron's
    dual iterate shrinks like ``1 / k`` and ``max_j x_j >= 1 / n``); the
    phase then goes on, at most as long again, until ``p`` rows pass it, and
    rescales along each of them whose slab (widened by the rescalings already
    made, at most by the factor its row norm shrank) is still thin enough:
    every rescaling made this way obeys the volume argument. So a phase
    costs at most ``4 n sqrt(6 p log n)`` iterations, usually far fewer. The total is
    ``O(n p**1.5 sqrt(log n) log(1 / rho))`` iterations: polynomial, where
    the perceptron needs ``1 / rho**2``. This is the deterministic rescaling
    of Peña and Soheili [1]_ (the randomized scheme of Dunagan and Vempala
    [2]_ has a similar ``O(p log(1 / rho))`` count of rescalings, with high
    probability).

    Conversely, ``k`` rescalings prove ``rho(A) < 2 (sqrt(e) / 2)**(k / p)``;
    once that is below ``1e-12`` (after about ``150 p`` rescalings; or once
    the rescaled rows degenerate, which only an infeasible system or one
    without interior makes them do) the system is infeasible, or too close
    to it for double precision, and the rest of ``max_iter`` runs the
    iteration of :func:`perceptron_von_neumann` on the rows of ``A``: it
    ends with a certificate (``status=2``, ``x >= 0``, ``sum(x) = 1``,
    ``||A.T @ x|| <= tol``), or, on a system that is feasible after all,
    with a solution, or at ``max_iter`` (``status=1``, the message says
    which). A phase may also end with a certificate (``status=2``) before
    that, when its dual point already has ``||A.T @ x|| <= tol``. An
    all-zero row gives ``status=2`` at once.

    References
    ----------
    .. [1] J. Peña and N. Soheili, "A deterministic rescaled perceptron
       algorithm", Mathematical Programming 155, 497-510, 2016.
    .. [2] J. Dunagan and S. Vempala, "A simple polynomial-time rescaling
       algorithm for solving linear programs", Mathematical Programming 114,
       101-114, 2008.

    Examples
    --------
    A cone of half-width about ``1e-6``: the perceptron would need on the
    order of ``10**12`` updates.

    >>> import numpy as np
    >>> from sklearn_perceptrons.feasibility import rescaled_perceptron
    >>> rng = np.random.RandomState(0)
    >>> A = rng.randn(200, 5)
    >>> A[:, 0] = 1e-6 + np.abs(A[:, 0]) * 1e-6  # a . e_0 > 0, barely
    >>> res = rescaled_perceptron(A)
    >>> res.success, bool(np.all(A @ res.x > 0))
    (True, True)
    """
    mat, rows, sqnorm, shift, max_iter, zero_result = certifying_setup(
        A, tol, max_iter, n_rescalings=0
    )
    if zero_result is not None:
        return zero_result
    op = smooth.UnitRows(rows, sqnorm, original=mat, shift=shift)
    run = smooth.rescaled_run(op, max_iter, check_primal=verifier(mat, op),
                              tol=tol)  # fmt: skip
    nit, n_rescalings = run.nit, run.n_rescalings
    if run.certificate is not None:
        return results.certificate_result(
            mat, run.w, run.reason, nit, max_iter, run.certificate,
            run.certificate_norm,
            results.certificate_message(run.certificate_norm, tol) + ".",
            n_rescalings=n_rescalings,
        )  # fmt: skip
    if run.stop is not None:
        # The rescalings prove the system infeasible, or too close to it for
        # double precision: the rest of the budget searches a certificate
        # (the iteration of perceptron_von_neumann, on the rows of A).
        found = certify(mat, rows, sqnorm, shift, tol,
                        max_iter - nit - n_rescalings)
        if found is not None:
            found_reason, found_nit, found_w, y, found_norm = found
            nit += found_nit
            if found_reason == smooth.PRIMAL:
                return results.primal_result(
                    mat, found_w, found_reason, nit, max_iter,
                    n_rescalings=n_rescalings, certificate=None,
                    certificate_norm=run.certificate_norm,
                )  # fmt: skip
            if found_reason == smooth.CERTIFICATE:
                return results.certificate_result(
                    mat, found_w, found_reason, nit, max_iter, y, found_norm,
                    f"Infeasible (within tol): {n_rescalings} rescalings "
                    f"proved rho(A) < {smooth.RHO_FLOOR:g}, and x >= 0, "
                    f"sum(x) = 1 has ||A.T @ x|| = {found_norm:.3g} <= "
                    f"tol = {tol:.3g}.",
                    n_rescalings=n_rescalings,
                )  # fmt: skip
    res = results.primal_result(
        mat, run.w, run.reason, nit, max_iter, n_rescalings=n_rescalings,
        certificate=None, certificate_norm=run.certificate_norm,
    )  # fmt: skip
    if run.stop is not None or res.status == results.STATUS_MAX_ITER:
        res.message = results.rescaled_message(
            run.stop, nit, n_rescalings, max_iter, smooth.RHO_FLOOR)
    return res
