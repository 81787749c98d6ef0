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

import numbers
import sys

import numpy as np
import scipy.sparse as sp
from scipy.optimize import OptimizeResult
from sklearn.utils import check_array, check_random_state
from sklearn.utils._param_validation import InvalidParameterError

from ._feasibility import smooth as _smooth
from ._core.base import sum_duplicates
from ._core.docstrings import shared_doc
from ._feasibility._feasibility_fast import (
    ORDER_CODES,
    _build_alias,
    _greedy_dense,
    _greedy_sparse,
    _matvec,
    _row_action,
    _row_sqnorms,
)

__all__ = [
    "perceptron_feasibility",
    "perceptron_von_neumann",
    "relaxation_method",
    "rescaled_perceptron",
    "smooth_perceptron",
]

_ORDERS = ("cyclic", "permuted", "random", "max_distance", "max_residual")

STATUS_SUCCESS = 0
STATUS_MAX_ITER = 1
STATUS_INFEASIBLE = 2
STATUS_NONFINITE = 3

_MESSAGES = {
    STATUS_MAX_ITER: (
        "Iteration limit reached: {max_iter} iteration(s) ({unit}) ended "
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


# Bad parameters raise scikit-learn's InvalidParameterError, as the
# estimators' do (a subclass of both ValueError and TypeError).


def _check_order(order):
    if not isinstance(order, str) or order not in _ORDERS:
        raise InvalidParameterError(
            f"order must be one of {', '.join(map(repr, _ORDERS))}; got {order!r}."
        )
    return order


def _check_max_iter(max_iter):
    """max_iter as an int the compiled loops can count to (a C ssize_t)."""
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral):
        raise InvalidParameterError(
            f"max_iter must be an integer; got {max_iter!r}.")
    if max_iter < 0:
        raise InvalidParameterError(f"max_iter must be >= 0; got {max_iter}.")
    if max_iter > sys.maxsize:
        raise InvalidParameterError(
            f"max_iter must be at most {sys.maxsize} (2**63 - 1, the largest "
            f"count of the solvers' loops); got {max_iter}."
        )
    return int(max_iter)


def _check_real(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(
            f"{name} must be a real number; got {value!r}.")
    value = float(value)
    if not np.isfinite(value):
        raise InvalidParameterError(f"{name} must be finite; got {value}.")
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


# A nonzero row's squared norm below this is inexact: its squares reach the
# subnormal numbers, whose precision falls to 0 (2**53 times the smallest
# normal number keeps every square that matters normal).
_SQNORM_FLOOR = float(np.ldexp(np.finfo(np.float64).tiny, 53))


def _squared_norms(mat):
    """Squared row norms of A in float64 (computed once), and whether some
    left float64 (overflow; or, for a nonzero row, an underflow to 0 or to
    the imprecise numbers below ``_SQNORM_FLOOR``)."""
    A, data, indices, indptr, dense = mat
    n, p = A.shape
    sqnorm = np.empty(n, dtype=np.float64)
    nonzero = np.empty(n, dtype=np.int8)
    _row_sqnorms(data, indices, indptr, n, p, dense, sqnorm, nonzero)
    overflow = not np.all(np.isfinite(sqnorm))
    underflow = bool(np.any((sqnorm < _SQNORM_FLOOR) & (nonzero != 0)))
    return sqnorm, overflow, underflow


def _row_exponents(mat):
    """``e_i`` with ``max_j |a_ij| = f * 2**e_i``, ``f`` in [0.5, 1) (0 for a
    zero row), and which rows are nonzero."""
    A, data, indices, indptr, dense = mat
    if dense:
        # Two reductions rather than np.abs(A): no temporary of A's size.
        top = np.maximum(A.max(axis=1), -A.min(axis=1))
    else:
        top = np.zeros(A.shape[0])
        rows = np.flatnonzero(np.diff(A.indptr))
        if rows.size:
            top[rows] = np.maximum.reduceat(np.abs(A.data), A.indptr[rows])
    return np.frexp(top)[1], top > 0


def _scaled_rows(mat, shift):
    """A copy of A with row i multiplied by ``2**-shift[i]`` (exactly: a power
    of two), in the pieces ``_check_matrix`` returns."""
    A = mat[0]
    if mat[4]:
        return _check_matrix(np.ldexp(A, -shift[:, None]))
    counts = np.diff(A.indptr)
    data = np.ldexp(A.data, -np.repeat(shift, counts))
    return _check_matrix(sp.csr_matrix((data, A.indices, A.indptr),
                                       shape=A.shape))


def _homogeneous_rows(mat):
    """The rows the solvers of ``A @ w > 0`` iterate on: ``(rows, sqnorm,
    shift)``.

    A positive scaling of a row does not change the solutions, so when some
    squared row norm leaves float64 or its precise range (rows beyond about
    1e154, or below 1e-146, in norm), every row ``i`` is scaled by ``2**-shift[i]``, which
    brings its largest entry into [0.5, 1) exactly (a copy of A, made only
    then); ``shift`` is None otherwise.  Answers are checked on A itself.
    """
    sqnorm, overflow, underflow = _squared_norms(mat)
    if not (overflow or underflow):
        return mat, sqnorm, None
    shift = _row_exponents(mat)[0]
    rows = _scaled_rows(mat, shift)
    return rows, _squared_norms(rows)[0], shift


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

    # Greedy orders: an iteration is one step (one pass over a dense A).
    max_steps = min(max_iter, sys.maxsize)
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
    return status, nit, nit


def _unit(order):
    if order in ("max_distance", "max_residual"):
        return "greedy steps"
    return "sweeps over the rows"


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


def _loop_result(x, feasible, finite, loop_status, nit, n_sweeps, maxcv,
                 max_iter, order, success_message, **extra):
    """The result of a row-action or greedy run, its status read off the
    final point (success, overflow) before the loop's own exit code."""
    if feasible:
        status, message = STATUS_SUCCESS, success_message
    elif loop_status == STATUS_NONFINITE or not finite:
        status, message = STATUS_NONFINITE, _MESSAGES[STATUS_NONFINITE]
    else:
        status = STATUS_MAX_ITER
        message = _MESSAGES[STATUS_MAX_ITER].format(
            max_iter=max_iter, unit=_unit(order)
        )
    return _result(
        x, status=status, nit=nit, n_sweeps=n_sweeps, maxcv=maxcv,
        message=message, **extra,
    )  # fmt: skip


# ---------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------


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
    threshold = _check_real("threshold", threshold)
    max_iter = _check_max_iter(max_iter)
    order = _check_order(order)
    random_state = check_random_state(random_state)
    mat = _check_matrix(A)
    n, p = mat[0].shape

    w = np.zeros(p, dtype=np.float64)
    # r_i = -(a_i . w) - c_i with c_i = -threshold, i.e. threshold - a_i . w.
    c = np.full(n, -threshold, dtype=np.float64)

    rows, sqnorm, shift = _homogeneous_rows(mat)
    if shift is not None:
        # Row i scaled by 2**-shift[i]: so is its threshold.
        c = np.ldexp(c, -shift)
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
        rows, sqnorm, c, w, perceptron=True, eta=1.0, tol=0.0, order=order,
        max_iter=max_iter, random_state=random_state,
    )  # fmt: skip

    finite = bool(np.all(np.isfinite(w)))
    Aw = _matvec_f64(mat, w) if finite else np.full(n, np.nan)
    with np.errstate(invalid="ignore"):
        feasible = finite and bool(np.all(Aw > threshold))
        slack = float(np.min(Aw) - threshold)
        maxcv = float(max(0.0, np.max(threshold - Aw)))
    return _loop_result(
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
    eta = _check_real("eta", eta)
    if not 0.0 < eta <= 2.0:
        raise InvalidParameterError(f"eta must be in (0, 2]; got {eta}.")
    tol = _check_real("tol", tol)
    if tol < 0:
        raise InvalidParameterError(f"tol must be >= 0; got {tol}.")
    order = _check_order(order)
    if max_iter is None:
        max_iter = 100_000 if order.startswith("max_") else 10_000
    max_iter = _check_max_iter(max_iter)
    random_state = check_random_state(random_state)
    mat = _check_matrix(A)
    n, p = mat[0].shape
    b = _check_vector(b, n, "b", "one entry per row of A")
    if x0 is None:
        x = np.zeros(p, dtype=np.float64)
    else:
        x = _check_vector(x0, p, "x0", "one entry per column of A")

    rows, sqnorm, c, loop_tol = _relaxation_rows(mat, b, tol)
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
        rows, sqnorm, c, x, perceptron=False, eta=eta, tol=loop_tol,
        order=order, max_iter=max_iter, random_state=random_state,
    )  # fmt: skip

    finite = bool(np.all(np.isfinite(x)))
    worst = float(np.max(_matvec_f64(mat, x) - b)) if finite else np.nan
    feasible = finite and worst <= tol
    maxcv = max(0.0, worst) if finite else np.nan
    return _loop_result(
        x, feasible, finite, loop_status, nit, n_sweeps, maxcv, max_iter,
        order, "Found x with max(A @ x - b) <= tol.",
    )  # fmt: skip


def _relaxation_rows(mat, b, tol):
    """The rows, squared norms, right-hand sides and ``tol`` the relaxation
    loop runs on: A, b and tol themselves, or all three times one power of
    two when some squared row norm leaves float64 and one scale brings
    every one back (every step is then the same, exactly).  Rows of norms
    too far apart for that are refused: scaling rows one by one would change
    what the absolute ``tol`` means."""
    sqnorm, overflow, underflow = _squared_norms(mat)
    if not (overflow or underflow):
        return mat, sqnorm, b, tol
    exponents, nonzero = _row_exponents(mat)
    exponents = exponents[nonzero]
    k = int(exponents.max())
    # The largest entries after scaling are in [2**(e - 1 - k), 2**(e - k)),
    # so the squared norms in (2**(2 (e_min - 1 - k)), p 2**(2 (e_max - k)))
    if 2 * (int(exponents.min()) - 1 - k) > -1000:
        rows = _scaled_rows(mat, np.full(mat[0].shape[0], k))
        sqnorm, overflow, underflow = _squared_norms(rows)
        if not (overflow or underflow):
            return rows, sqnorm, np.ldexp(b, -k), float(np.ldexp(tol, -k))
    raise ValueError(
        "The squared norms of the rows of A span more than float64 holds "
        "(row norms from about 1e-146 to 1e154 can be solved together); "
        "relaxation_method cannot rescale rows one by one for you, since tol "
        "bounds a_i . x - b_i itself: scale those rows of A, and the same "
        "entries of b and your tol, yourself."
    )


# ---------------------------------------------------------------------------
# The smooth, the certifying and the rescaled perceptron
# ---------------------------------------------------------------------------


def _smooth_setup(A, max_iter):
    """Validate; the rows to iterate on (:func:`_homogeneous_rows`); the zero
    rows (each is an exact Gordan certificate).  Returns ``(mat, rows,
    sqnorm, shift, max_iter, zero)``."""
    max_iter = _check_max_iter(max_iter)
    mat = _check_matrix(A)
    rows, sqnorm, shift = _homogeneous_rows(mat)
    return mat, rows, sqnorm, shift, max_iter, np.flatnonzero(sqnorm == 0)


def _zero_row_result(p, zero, **extra):
    return OptimizeResult(
        x=np.zeros(p), success=False, status=STATUS_INFEASIBLE, nit=0,
        maxcv=0.0, slack=0.0,
        message=(
            f"Infeasible: row {zero[0]} of A is all zeros, so a . w = 0 > 0 "
            f"cannot hold ({zero.size} such row(s))."
        ),
        **extra,
    )  # fmt: skip


def _certifying_setup(A, tol, max_iter, **extra):
    """`_smooth_setup` for the solvers that return a Gordan certificate, and
    the finished result (the first zero row as the certificate) if A has a
    zero row, else None."""
    tol = _check_real("tol", tol)
    if tol < 0:
        raise InvalidParameterError(f"tol must be >= 0; got {tol}.")
    mat, rows, sqnorm, shift, max_iter, zero = _smooth_setup(A, max_iter)
    n, p = mat[0].shape
    zero_result = None
    if zero.size:
        x = np.zeros(n)
        x[zero[0]] = 1.0
        zero_result = _zero_row_result(
            p, zero, **extra, certificate=x, certificate_norm=0.0
        )
    return mat, rows, sqnorm, shift, max_iter, zero_result


def _verifier(mat, op):
    """``check(w)``: does the original ``A`` satisfy ``A @ (B w) > 0``, the
    products accumulated in float64 by the compiled loop?"""

    def check(w):
        Aw = _matvec_f64(mat, op.original(w))
        return bool(np.all(Aw > 0))

    return check


def _primal_result(mat, w, reason, nit, max_iter, **extra):
    """The result of a primal solver from its final ``w`` (original space)."""
    finite = bool(np.all(np.isfinite(w)))
    n = mat[0].shape[0]
    Aw = _matvec_f64(mat, w) if finite else np.full(n, np.nan)
    with np.errstate(invalid="ignore"):
        slack = float(np.min(Aw))
        maxcv = float(max(0.0, np.max(-Aw)))
    if reason == _smooth.PRIMAL:
        status, message = STATUS_SUCCESS, "Found w with A @ w > 0."
    elif reason == _smooth.NONFINITE or not finite:
        status, message = STATUS_NONFINITE, _MESSAGES[STATUS_NONFINITE]
    else:
        status = STATUS_MAX_ITER
        message = (
            f"Iteration limit reached: {max_iter} iteration(s) ended without "
            "a solution of A @ w > 0; the system may be infeasible, or too "
            "ill-conditioned for this budget (increase max_iter)."
        )
    return OptimizeResult(
        x=w, success=status == STATUS_SUCCESS, status=status, message=message,
        nit=nit, maxcv=maxcv, slack=slack, **extra,
    )  # fmt: skip


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
    mat, rows, sqnorm, _, max_iter, zero = _smooth_setup(A, max_iter)
    p = mat[0].shape[1]
    if zero.size:
        return _zero_row_result(p, zero)
    op = _smooth.UnitRows(rows, sqnorm)
    reason, nit, w, _, _ = _smooth.run(
        op, max_iter, check_primal=_verifier(mat, op)
    )
    return _primal_result(mat, w, reason, nit, max_iter)


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
    mat, rows, sqnorm, shift, max_iter, zero_result = _certifying_setup(
        A, tol, max_iter)
    if zero_result is not None:
        return zero_result
    op = _smooth.UnitRows(rows, sqnorm, original=mat, shift=shift)
    reason, nit, w, xhat, _ = _smooth.run(
        op, max_iter, check_primal=_verifier(mat, op), cert_tol=tol
    )
    xa, cert_norm = op.certificate(xhat)
    if reason != _smooth.CERTIFICATE:
        res = _primal_result(
            mat, w, reason, nit, max_iter, certificate=None,
            certificate_norm=cert_norm,
        )  # fmt: skip
        if res.status == STATUS_MAX_ITER:
            res.message = (
                f"Iteration limit reached: {max_iter} iteration(s) found "
                "neither w with A @ w > 0 nor a certificate with "
                f"||A.T @ x|| <= tol (best: {cert_norm:.3g}); increase "
                "max_iter or tol."
            )
        return res
    res = _primal_result(mat, w, reason, nit, max_iter)
    res.update(
        status=STATUS_INFEASIBLE, success=False, certificate=xa,
        certificate_norm=cert_norm,
        message=(
            "Infeasible (within tol): x >= 0, sum(x) = 1 with "
            f"||A.T @ x|| = {cert_norm:.3g} <= tol = {tol:.3g}, so no w has "
            "min_i a_i . w > tol * ||w||."
        ),
    )  # fmt: skip
    return res


# A rescaling multiplies the volume fraction of the cone by at least this.
_RESCALE_GAIN = 2.0 / np.sqrt(np.e)
# The rescaled perceptron gives up once the count of rescalings proves that
# rho(A) is below this (no solution that double precision could verify).
_RHO_FLOOR = 1e-12


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
    mat, rows, sqnorm, shift, max_iter, zero_result = _certifying_setup(
        A, tol, max_iter, n_rescalings=0
    )
    if zero_result is not None:
        return zero_result
    n, p = mat[0].shape
    op = _smooth.UnitRows(rows, sqnorm, original=mat, shift=shift)
    check = _verifier(mat, op)
    delta = 1.0 / np.sqrt(3.0 * p)
    nit, n_rescalings = 0, 0
    degenerate = thin = False
    cert_norm = np.nan
    while True:
        # A rescaling counts against the budget too, so that phases which
        # end at once (possible on an infeasible system) cannot loop forever.
        reason, nit, w, x, u = _smooth.run(
            op, max_iter - n_rescalings, check_primal=check,
            phase_delta=delta, phase_rows=p, start_nit=nit,
        )  # fmt: skip
        if reason != _smooth.PHASE:
            break
        # x on the rows of A: Aᵀ y = B⁻ᵀ Âᵀ x / sum(D⁻¹ x).
        y, cert_norm = op.certificate(x)
        if cert_norm <= tol:
            res = _primal_result(mat, op.original(w), reason, nit, max_iter)
            res.update(
                status=STATUS_INFEASIBLE, success=False, certificate=y,
                certificate_norm=cert_norm, n_rescalings=n_rescalings,
                message=(
                    "Infeasible (within tol): x >= 0, sum(x) = 1 with "
                    f"||A.T @ x|| = {cert_norm:.3g} <= tol = {tol:.3g}."
                ),
            )  # fmt: skip
            return res
        # Every row j with ||Âᵀx|| / x_j <= delta bounds the cone by a slab;
        # a rescaling along one row widens the others' slabs by at most the
        # factor its norm shrank, so several valid rescalings can follow
        # from one phase (largest x_j first).
        norm_u = float(np.linalg.norm(u))
        widen = np.ones(n)
        for j in np.argsort(-x, kind="stable"):
            if not norm_u <= delta * x[j]:
                break  # x is sorted: no later row qualifies
            if norm_u * widen[j] > delta * x[j]:
                continue
            if nit + n_rescalings >= max_iter:
                reason = _smooth.LIMIT
                break
            widen *= op.rescale(op.row(int(j)))
            n_rescalings += 1
            if _RESCALE_GAIN ** (n_rescalings / p) * _RHO_FLOOR / 2 > 1:
                # The volume argument now proves rho(A) < _RHO_FLOOR.
                thin, reason = True, _smooth.LIMIT
                break
            if not op.sqnorm.min() > 1e-250:
                # Rows shrunk by 4**k relative to others: the cone has
                # collapsed (only when the system is infeasible or flat).
                degenerate, reason = True, _smooth.LIMIT
                break
        if reason != _smooth.PHASE:
            break
    if thin or degenerate:
        # The rescalings prove the system infeasible, or too close to it for
        # double precision: the rest of the budget searches a certificate
        # (the iteration of perceptron_von_neumann, on the rows of A).
        found = _certify(mat, rows, sqnorm, shift, tol,
                         max_iter - nit - n_rescalings)
        if found is not None:
            found_reason, found_nit, found_w, y, found_norm = found
            nit += found_nit
            if found_reason == _smooth.PRIMAL:
                return _primal_result(
                    mat, found_w, found_reason, nit, max_iter,
                    n_rescalings=n_rescalings, certificate=None,
                    certificate_norm=cert_norm,
                )  # fmt: skip
            if found_reason == _smooth.CERTIFICATE:
                res = _primal_result(mat, found_w, found_reason, nit, max_iter)
                res.update(
                    status=STATUS_INFEASIBLE, success=False, certificate=y,
                    certificate_norm=found_norm, n_rescalings=n_rescalings,
                    message=(
                        f"Infeasible (within tol): {n_rescalings} rescalings "
                        f"proved rho(A) < {_RHO_FLOOR:g}, and x >= 0, "
                        f"sum(x) = 1 has ||A.T @ x|| = {found_norm:.3g} <= "
                        f"tol = {tol:.3g}."
                    ),
                )  # fmt: skip
                return res
    res = _primal_result(
        mat, op.original(w), reason, nit, max_iter, n_rescalings=n_rescalings,
        certificate=None, certificate_norm=cert_norm,
    )  # fmt: skip
    if res.status == STATUS_MAX_ITER:
        res.message = (
            f"Iteration limit reached: {nit} iteration(s) and {n_rescalings} "
            f"rescaling(s) (max_iter={max_iter} counts both) ended without a "
            "solution of A @ w > 0; the system may be infeasible, or too "
            "ill-conditioned for this budget (increase max_iter)."
        )
    if thin:
        res.message = (
            f"Stopped after {n_rescalings} rescalings, which prove that "
            f"rho(A) < {_RHO_FLOOR:g}: the system is infeasible, or too close "
            "to infeasible for double precision; the rest of max_iter found "
            "no certificate with ||A.T @ x|| <= tol (increase max_iter or tol)."
        )
    if degenerate:
        res.message = (
            f"Stopped after {n_rescalings} rescalings: the rescaled rows "
            "degenerated, which happens only when the system is infeasible "
            "or has no interior (rho(A) <= 0); the rest of max_iter found no "
            "certificate with ||A.T @ x|| <= tol (increase max_iter or tol)."
        )
    return res


def _certify(mat, rows, sqnorm, shift, tol, max_iter):
    """The iteration of :func:`perceptron_von_neumann` on the rows of A for
    at most ``max_iter`` iterations: ``(reason, nit, w, certificate,
    certificate_norm)``, or None without a budget."""
    if max_iter <= 0:
        return None
    op = _smooth.UnitRows(rows, sqnorm, original=mat, shift=shift)
    reason, nit, w, x, _ = _smooth.run(
        op, max_iter, check_primal=_verifier(mat, op), cert_tol=tol
    )
    y, norm = op.certificate(x)
    return reason, nit, op.original(w), y, norm
