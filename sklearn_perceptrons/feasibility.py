# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Linear inequality systems: the perceptron and the relaxation method.

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

Sweeps and ``max_iter``
    ``max_iter`` counts *sweeps* for every order: a sweep is ``n`` steps
    (``n`` = number of rows), so at most ``max_iter * n`` steps are taken.
    For ``"cyclic"`` and ``"permuted"`` a sweep is one pass over the rows; for
    ``"random"`` it is ``n`` draws; for the greedy ``"max_*"`` orders it is
    ``n`` updates, each on the most violated row. ``res.nit`` counts updates
    (rows actually added or projected on), ``res.n_sweeps`` the sweeps begun.
    A step on a row that is not violated does nothing and is not counted in
    ``nit``.

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
    * 1 -- iteration limit: ``max_iter`` sweeps ran without reaching a
      feasible point; the system may be infeasible, or need more sweeps.
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

import numbers
import sys

import numpy as np
import scipy.sparse as sp
from scipy.optimize import OptimizeResult
from sklearn.utils import check_array, check_random_state

from ._base import sum_duplicates
from ._feasibility_fast import (
    ORDER_CODES,
    _build_alias,
    _greedy_dense,
    _greedy_sparse,
    _matvec,
    _row_action,
    _row_sqnorms,
)

__all__ = ["perceptron_feasibility", "relaxation_method"]

_ORDERS = ("cyclic", "permuted", "random", "max_distance", "max_residual")

STATUS_SUCCESS = 0
STATUS_MAX_ITER = 1
STATUS_INFEASIBLE = 2
STATUS_NONFINITE = 3

_MESSAGES = {
    STATUS_MAX_ITER: (
        "Iteration limit reached: {max_iter} sweep(s) over the rows ended "
        "without a feasible point; the system may be infeasible, or need more "
        "iterations (increase max_iter)."
    ),
    STATUS_NONFINITE: (
        "Numerical failure: the iterate became non-finite (overflow); rescale "
        "the system."
    ),
}


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


def _check_order(order):
    if not isinstance(order, str) or order not in _ORDERS:
        raise ValueError(
            f"order must be one of {', '.join(map(repr, _ORDERS))}; got {order!r}."
        )
    return order


def _check_max_iter(max_iter):
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral):
        raise TypeError(f"max_iter must be an integer; got {max_iter!r}.")
    if max_iter < 0:
        raise ValueError(f"max_iter must be >= 0; got {max_iter}.")
    return int(max_iter)


def _check_real(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {value!r}.")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite; got {value}.")
    return value


def _check_matrix(A):
    """Validate A once: CSR (as-is) or C-contiguous dense, float32/float64.

    Returns the pieces the compiled loops read: ``(A, data, indices, indptr,
    dense)``; for dense A, ``data`` is a flat view and ``indices``/``indptr``
    are unused placeholders.
    """
    A = check_array(
        A,
        accept_sparse="csr",
        dtype=[np.float64, np.float32],
        order="C",
        ensure_all_finite=True,
        ensure_2d=True,
        ensure_min_samples=0,
        ensure_min_features=0,
        accept_large_sparse=True,
        input_name="A",
    )
    # Row norms read the stored values: duplicates must be summed first.
    A = sum_duplicates(A)
    n, p = A.shape
    if n == 0 or p == 0:
        raise ValueError(
            f"A must have at least one row and one column; got shape {A.shape}."
        )
    if sp.issparse(A):
        if not A.has_canonical_format:
            # Duplicate entries would make the row norms wrong: sum them,
            # in a copy (the caller's matrix is left alone).
            A = A.copy()
            A.sum_duplicates()
        indices, indptr = A.indices, A.indptr
        if indices.dtype != indptr.dtype:
            indices = indices.astype(np.int64)
            indptr = indptr.astype(np.int64)
        data = np.ascontiguousarray(A.data)
        indices = np.ascontiguousarray(indices)
        if data.size == 0:
            # The loops take the address of the first entry.
            data = np.zeros(1, dtype=data.dtype)
            indices = np.zeros(1, dtype=indices.dtype)
        return A, data, indices, np.ascontiguousarray(indptr), False
    placeholder = np.zeros(1, dtype=np.int32)
    return A, A.reshape(-1), placeholder, placeholder, True


def _check_vector(v, length, name, what):
    try:
        v = np.array(v, dtype=np.float64)  # always a fresh float64 copy
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array of {length} numbers.") from exc
    if v.ndim != 1 or v.shape[0] != length:
        raise ValueError(
            f"{name} must have shape ({length},) ({what}); got shape {v.shape}."
        )
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} contains NaN or infinity.")
    return v


# ---------------------------------------------------------------------------
# The shared driver
# ---------------------------------------------------------------------------


def _row_norms(mat):
    """Squared row norms of A in float64, computed once."""
    A, data, indices, indptr, dense = mat
    n, p = A.shape
    sqnorm = np.empty(n, dtype=np.float64)
    nonzero = np.empty(n, dtype=np.int8)
    _row_sqnorms(data, indices, indptr, n, p, dense, sqnorm, nonzero)
    if not np.all(np.isfinite(sqnorm)):
        raise ValueError(
            "The squared norms of some rows of A overflow float64; rescale A."
        )
    if np.any((sqnorm == 0) & (nonzero != 0)):
        raise ValueError(
            "The squared norms of some nonzero rows of A underflow to 0 in "
            "float64; rescale A."
        )
    return sqnorm


def _matvec_f64(mat, x):
    """A @ x in float64 without converting A."""
    A, data, indices, indptr, dense = mat
    n, p = A.shape
    out = np.empty(n, dtype=np.float64)
    _matvec(data, indices, indptr, n, p, dense, x, out)
    return out


def _solve(mat, sqnorm, c, x, *, perceptron, eta, tol, order, max_iter,
           random_state):  # fmt: skip
    """Run the compiled loop for ``r_i = sgn * a_i . x - c_i <= 0``.

    ``x`` is updated in place; ``random_state`` is a RandomState. Returns
    ``(status, nit, n_sweeps)`` as reported by the loop, status 0 (the loop
    saw no violated row), 1 or 3.
    """
    A, data, indices, indptr, dense = mat
    n, p = A.shape
    if max_iter == 0 or not np.any(sqnorm > 0):
        # Nothing to do (an all-zero A was already found feasible or not).
        return STATUS_MAX_ITER, 0, 0

    code = ORDER_CODES[order]
    if order in ("cyclic", "permuted", "random"):
        seed = 0
        seq = np.zeros(1, dtype=np.intp)
        prob = np.zeros(1, dtype=np.float64)
        alias = np.zeros(1, dtype=np.intp)
        if order in ("permuted", "random"):
            # One seed for the compiled generator; the RandomState is not
            # touched by the deterministic orders.
            seed = int(random_state.randint(2**63 - 1, dtype=np.int64))
            seq = np.arange(n, dtype=np.intp)
        if order == "random":
            prob = np.empty(n, dtype=np.float64)
            alias = np.empty(n, dtype=np.intp)
            _build_alias(sqnorm, prob, alias)
        return _row_action(
            data, indices, indptr, n, p, dense, c, sqnorm, x, perceptron,
            eta, tol, code, max_iter, seed, seq, prob, alias,
        )  # fmt: skip

    # Greedy orders: max_iter sweeps of n updates each.
    max_steps = min(max_iter * n, sys.maxsize)
    with np.errstate(divide="ignore"):
        inv_norm = np.where(sqnorm > 0, 1.0 / np.sqrt(sqnorm), 0.0)
    if dense:
        status, nit = _greedy_dense(
            data, n, p, c, sqnorm, inv_norm, x, perceptron, eta, tol, code,
            max_steps,
        )  # fmt: skip
    else:
        # The columns of A, to reach the rows whose residual a step changes.
        # This CSC copy is the memory price of the greedy orders (see the
        # module docstring).
        At = A.tocsc()
        cindices = At.indices.astype(indices.dtype, copy=False)
        cindptr = At.indptr.astype(indices.dtype, copy=False)
        status, nit = _greedy_sparse(
            data, indices, indptr, At.data, cindices, cindptr, n, c, sqnorm,
            inv_norm, x, perceptron, eta, tol, code, max_steps,
        )  # fmt: skip
    return status, nit, min(max_iter, nit // n + 1)


def _result(x, *, status, nit, n_sweeps, maxcv, message, **extra):
    return OptimizeResult(
        x=x,
        success=status == STATUS_SUCCESS,
        status=status,
        message=message,
        nit=nit,
        n_sweeps=n_sweeps,
        maxcv=maxcv,
        **extra,
    )


# ---------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------


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
    A : {array-like, sparse matrix} of shape (n_constraints, n_features)
        The constraint rows. float32 and float64 arrays and CSR matrices are
        used in place; other inputs are converted once. Must be finite, with
        at least one row and one column.

    threshold : float, default=0.0
        The right-hand side: the solver looks for ``A @ w > threshold``. With
        ``threshold = δ > 0``, ``w`` also satisfies ``A @ w > δ`` directly
        (updates keep happening until every row clears δ). With a negative
        threshold ``w = 0`` is already a solution.

    max_iter : int, default=10_000
        Maximum number of sweeps; a sweep is ``n_constraints`` steps (one pass
        over the rows for ``"cyclic"``/``"permuted"``, ``n_constraints``
        random draws for ``"random"``, ``n_constraints`` updates for the
        greedy orders). ``0`` only evaluates ``w = 0``.

    order : {"cyclic", "permuted", "random", "max_distance", "max_residual"}, \
            default="cyclic"
        Which violated row is added next: rows in order; a fresh permutation
        per sweep; rows drawn with probability ∝ ``||a_i||^2``; the row with
        the largest ``(threshold - a_i . w) / ||a_i||``; the row with the
        largest ``threshold - a_i . w``.

    random_state : int, RandomState instance or None, default=None
        Seeds the ``"permuted"`` and ``"random"`` orders (validated, but
        unused, by the others). Pass an int for reproducible results.

    Returns
    -------
    res : scipy.optimize.OptimizeResult
        With fields

        x : ndarray of shape (n_features,), float64
            The final ``w``.
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
            Number of sweeps begun (at most ``max_iter``).
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
    >>> import numpy as np
    >>> from sklearn_perceptrons.feasibility import perceptron_feasibility
    >>> A = np.array([[1.0, 2.0], [2.0, 1.0], [1.0, -0.5]])
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
    threshold = _check_real("threshold", threshold)
    max_iter = _check_max_iter(max_iter)
    order = _check_order(order)
    random_state = check_random_state(random_state)
    mat = _check_matrix(A)
    n, p = mat[0].shape

    w = np.zeros(p, dtype=np.float64)
    # r_i = -(a_i . w) - c_i with c_i = -threshold, i.e. threshold - a_i . w.
    c = np.full(n, -threshold, dtype=np.float64)

    sqnorm = _row_norms(mat)
    zero = np.flatnonzero(sqnorm == 0)
    if threshold >= 0 and zero.size:
        return _result(
            w,
            status=STATUS_INFEASIBLE, nit=0, n_sweeps=0,
            maxcv=threshold, slack=-threshold,
            message=(
                f"Infeasible: row {zero[0]} of A is all zeros, so "
                f"a . w = 0 > threshold = {threshold} cannot hold "
                f"({zero.size} such row(s))."
            ),
        )  # fmt: skip

    loop_status, nit, n_sweeps = _solve(
        mat, sqnorm, c, w, perceptron=True, eta=1.0, tol=0.0, order=order,
        max_iter=max_iter, random_state=random_state,
    )  # fmt: skip

    finite = bool(np.all(np.isfinite(w)))
    Aw = _matvec_f64(mat, w) if finite else np.full(n, np.nan)
    with np.errstate(invalid="ignore"):
        feasible = finite and bool(np.all(Aw > threshold))
        slack = float(np.min(Aw) - threshold)
        maxcv = float(max(0.0, np.max(threshold - Aw)))
    if feasible:
        status, message = STATUS_SUCCESS, "Found w with A @ w > threshold."
    elif loop_status == STATUS_NONFINITE or not finite:
        status, message = STATUS_NONFINITE, _MESSAGES[STATUS_NONFINITE]
    else:
        status = STATUS_MAX_ITER
        message = _MESSAGES[STATUS_MAX_ITER].format(max_iter=max_iter)
    return _result(
        w, status=status, nit=nit, n_sweeps=n_sweeps, maxcv=maxcv,
        message=message, slack=slack,
    )  # fmt: skip


def relaxation_method(
    A,
    b,
    *,
    eta=1.0,
    order="cyclic",
    x0=None,
    max_iter=100_000,
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
    A : {array-like, sparse matrix} of shape (n_constraints, n_features)
        The constraint rows. float32 and float64 arrays and CSR matrices are
        used in place; other inputs are converted once. Must be finite, with
        at least one row and one column.

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

    max_iter : int, default=100_000
        Maximum number of sweeps; a sweep is ``n_constraints`` steps (one pass
        over the rows for ``"cyclic"``/``"permuted"``, ``n_constraints``
        random draws for ``"random"``, ``n_constraints`` projections for the
        greedy orders). ``0`` only evaluates ``x0``.

    tol : float, default=1e-8
        A row is violated when ``a_i . x - b_i > tol``; success when no row
        is. Must be >= 0.

    random_state : int, RandomState instance or None, default=None
        Seeds the ``"permuted"`` and ``"random"`` orders (validated, but
        unused, by the others). Pass an int for reproducible results.

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
            Number of sweeps begun (at most ``max_iter``).
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
    ``max_iter`` sweeps with ``status=1``. Only the trivial certificate is
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
    eta = _check_real("eta", eta)
    if not 0.0 < eta <= 2.0:
        raise ValueError(f"eta must be in (0, 2]; got {eta}.")
    tol = _check_real("tol", tol)
    if tol < 0:
        raise ValueError(f"tol must be >= 0; got {tol}.")
    max_iter = _check_max_iter(max_iter)
    order = _check_order(order)
    random_state = check_random_state(random_state)
    mat = _check_matrix(A)
    n, p = mat[0].shape
    b = _check_vector(b, n, "b", "one entry per row of A")
    if x0 is None:
        x = np.zeros(p, dtype=np.float64)
    else:
        x = _check_vector(x0, p, "x0", "one entry per column of A")

    sqnorm = _row_norms(mat)
    bad = np.flatnonzero((sqnorm == 0) & (b < -tol))
    if bad.size:
        i = bad[0]
        return _result(
            x,
            status=STATUS_INFEASIBLE, nit=0, n_sweeps=0,
            maxcv=float(max(0.0, np.max(_matvec_f64(mat, x) - b))),
            message=(
                f"Infeasible: row {i} of A is all zeros and b[{i}] = {b[i]} "
                f"< -tol, so 0 <= b[{i}] cannot hold ({bad.size} such row(s))."
            ),
        )  # fmt: skip

    loop_status, nit, n_sweeps = _solve(
        mat, sqnorm, b, x, perceptron=False, eta=eta, tol=tol, order=order,
        max_iter=max_iter, random_state=random_state,
    )  # fmt: skip

    finite = bool(np.all(np.isfinite(x)))
    worst = float(np.max(_matvec_f64(mat, x) - b)) if finite else np.nan
    feasible = finite and worst <= tol
    maxcv = max(0.0, worst) if finite else np.nan
    if feasible:
        status = STATUS_SUCCESS
        message = "Found x with max(A @ x - b) <= tol."
    elif loop_status == STATUS_NONFINITE or not finite:
        status, message = STATUS_NONFINITE, _MESSAGES[STATUS_NONFINITE]
    else:
        status = STATUS_MAX_ITER
        message = _MESSAGES[STATUS_MAX_ITER].format(max_iter=max_iter)
    return _result(
        x, status=status, nit=nit, n_sweeps=n_sweeps, maxcv=maxcv,
        message=message,
    )  # fmt: skip
