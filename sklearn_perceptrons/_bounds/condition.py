# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The condition measure of a homogeneous system ``A w > 0``
(``condition_measure``), which governs the feasibility solvers."""

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array
from sklearn.utils.extmath import row_norms

from .._core.base import sum_duplicates
from .margins import max_margin


# Beyond this many columns the inradius of an infeasible system's hull is not
# computed (Qhull's facet count grows exponentially with the dimension).
_HULL_MAX_FEATURES = 8


def _rows_at_unit_scale(A):
    """A with every nonzero row divided by a power of two near its largest
    absolute entry (exact; a new matrix), dense or CSR."""
    if sp.issparse(A):
        top = abs(A).max(axis=1).toarray().ravel() if A.shape[1] else np.zeros(A.shape[0])
    else:
        top = np.abs(A).max(axis=1) if A.shape[1] else np.zeros(A.shape[0])
    scale = np.ones(A.shape[0])
    nonzero = top > 0
    scale[nonzero] = np.ldexp(1.0, np.frexp(top[nonzero])[1] - 1)
    if sp.issparse(A):
        A = A.copy()
        A.data /= np.repeat(scale, np.diff(A.indptr))
        return A
    return A / scale[:, None]


def condition_measure(A):
    """The Goffin-Cheung-Cucker condition measure ``rho(A)`` of ``A w > 0``.

    ``rho(A) = max_{||w|| = 1} min_i a_i . w / ||a_i||``: the largest angular
    margin by which a unit vector can clear every (normalized) row. It is
    positive if and only if the system ``A @ w > 0`` is feasible, and then
    equals the sine of the half-aperture of the widest circular cone inside
    the solution cone. It sets the cost of the solvers of
    :mod:`sklearn_perceptrons.feasibility`: the perceptron makes at most
    ``1 / rho**2`` updates, the smooth perceptron fewer than
    ``2 sqrt(2 log n) / rho`` iterations, the rescaled perceptron
    ``O(p log(1 / rho))`` rescalings.

    Parameters
    ----------
    A : {array-like, sparse matrix} of shape (n_constraints, n_features)
        The constraint rows. Must be finite, with at least one row and one
        column.

    Returns
    -------
    rho : float
        In ``[-1, 1]``. ``rho > 0``: feasible, computed exactly (to rounding).
        ``rho <= 0``: infeasible; then ``-rho`` is the radius of the largest
        ball around the origin inside the convex hull of the normalized rows
        (0 when the rows span fewer than ``n_features`` dimensions or the
        origin is on the hull's boundary).

    See Also
    --------
    max_margin : The hard-margin problem this is solved as.
    sklearn_perceptrons.feasibility.smooth_perceptron : A solver whose
        iteration bound is stated in terms of ``rho``.

    Notes
    -----
    By minimax duality, for a feasible system ``rho(A) = min_{x in simplex}
    ||sum_i x_i a_i / ||a_i||||``, the distance from the origin to the convex
    hull of the normalized rows; it is computed by :func:`max_margin` (the
    hard-margin problem through the origin, Wolfe's exact nearest-point
    algorithm). Margins below about ``16 (n_features + 1) eps`` cannot be
    told apart from 0 in double precision and count as infeasible.

    For an infeasible system, ``-rho`` (the inradius of the hull around the
    origin) is computed exactly from the facets of the hull with Qhull when
    ``n_features <= 8``. In more dimensions computing it is hard in general
    (the facet count grows exponentially), so only the sign is returned:
    ``0.0``.

    An all-zero row satisfies ``a . w > 0`` for no ``w``; it is taken as a row
    with ``a . w / ||a|| = 0``, so ``rho(A) = min(0, rho(other rows))``.

    References
    ----------
    .. [1] J.-L. Goffin, "The relaxation method for solving systems of linear
       inequalities", Mathematics of Operations Research 5(3), 388-414, 1980.
    .. [2] D. Cheung and F. Cucker, "A new condition number for linear
       programming", Mathematical Programming 91, 163-174, 2001.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_perceptrons.bounds import condition_measure
    >>> A = np.array([[1.0, 1.0], [1.0, -1.0]])  # a cone of half-angle 45°
    >>> round(condition_measure(A), 6)
    0.707107
    >>> condition_measure([[1.0, 0.0], [-1.0, 0.0]])  # infeasible, flat hull
    0.0
    >>> round(condition_measure([[1.0, 0.0], [-1.0, 1.0], [-1.0, -1.0]]), 6)
    -0.382683
    """
    A = check_array(
        A, accept_sparse="csr", dtype=np.float64, ensure_all_finite=True,
        input_name="A",
    )  # fmt: skip
    # The measure depends on the rows' directions only: each row is divided
    # by a power of two near its largest entry, so that its squared norm
    # neither overflows nor underflows (and CSR duplicates are summed first).
    A = _rows_at_unit_scale(sum_duplicates(A))
    n, p = A.shape
    norms = np.sqrt(row_norms(A, squared=True))
    if not np.all(np.isfinite(norms)):
        raise ValueError("The norms of some rows of A overflow; rescale A.")
    nonzero = norms > 0
    has_zero_row = not np.all(nonzero)
    if not np.any(nonzero):
        return 0.0
    if sp.issparse(A):
        U = sp.diags(1.0 / norms[nonzero]) @ A[nonzero]
        U = sp.csr_matrix(U)
    else:
        U = A[nonzero] / norms[nonzero, None]
    m = U.shape[0]
    if m == 1:
        rho = 1.0  # w = the row itself
    else:
        # The rows as samples of alternating labels: s_i (s_i u_i) = u_i.
        signs = np.where(np.arange(m) % 2 == 0, 1.0, -1.0)
        X = sp.diags(signs) @ U if sp.issparse(U) else U * signs[:, None]
        rho = float(max_margin(X, signs, fit_intercept=False)[0])
        if rho <= 0:
            rho = _infeasible_measure(U)
    return min(rho, 0.0) if has_zero_row else rho


def _infeasible_measure(U):
    """``-inradius`` of the hull of the unit rows ``U`` around the origin
    (the origin lies in the hull), or 0.0 when it is not computed."""
    m, p = U.shape
    if p > _HULL_MAX_FEATURES:
        return 0.0
    U = U.toarray() if sp.issparse(U) else np.asarray(U)
    if p == 1:
        return -1.0  # rows +1 and -1: the hull is [-1, 1]
    if np.linalg.matrix_rank(U) < p:
        return 0.0
    from scipy.spatial import ConvexHull, QhullError

    try:
        hull = ConvexHull(U)
    except QhullError:
        return 0.0  # flat or degenerate: the origin is on its boundary
    # Facets are normal . y + offset <= 0 with unit normals: the origin is at
    # distance -offset from each.
    return float(min(0.0, np.max(hull.equations[:, -1])))
