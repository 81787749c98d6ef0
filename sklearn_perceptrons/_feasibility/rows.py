# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The rows of A as the solvers read them: products in float64, squared
norms, and the scaling of rows whose squares leave float64.

The solvers read squared row norms, which overflow for rows of norm beyond
about 1e154 and lose their precision (subnormal numbers) below about 1e-146.
A positive scaling of a row does not change the solutions of ``A @ w > 0``,
so the solvers of the homogeneous system then iterate on a copy of A whose
rows are scaled by powers of two (:func:`homogeneous_rows`); the relaxation
method scales A, b and ``tol`` by one power of two, when one suffices
(:func:`relaxation_rows`).
"""

import numpy as np
import scipy.sparse as sp

from ._feasibility_fast import matvec, row_sqnorms
from .checks import check_matrix

# A nonzero row's squared norm below this is inexact: its squares reach the
# subnormal numbers, whose precision falls to 0 (2**53 times the smallest
# normal number keeps every square that matters normal).
SQNORM_FLOOR = float(np.ldexp(np.finfo(np.float64).tiny, 53))


def matvec_f64(mat, x):
    """A @ x in float64 without converting A."""
    out = np.empty(mat.n, dtype=np.float64)
    matvec(mat, x, out)
    return out


def squared_norms(mat):
    """Squared row norms of A in float64 (computed once), and whether some
    left float64 (overflow; or, for a nonzero row, an underflow to 0 or to
    the imprecise numbers below ``SQNORM_FLOOR``)."""
    sqnorm = np.empty(mat.n, dtype=np.float64)
    nonzero = np.empty(mat.n, dtype=np.int8)
    row_sqnorms(mat, sqnorm, nonzero)
    overflow = not np.all(np.isfinite(sqnorm))
    underflow = bool(np.any((sqnorm < SQNORM_FLOOR) & (nonzero != 0)))
    return sqnorm, overflow, underflow


def row_exponents(mat):
    """``e_i`` with ``max_j |a_ij| = f * 2**e_i``, ``f`` in [0.5, 1) (0 for a
    zero row), and which rows are nonzero."""
    A = mat.A
    if mat.dense:
        # Two reductions rather than np.abs(A): no temporary of A's size.
        top = np.maximum(A.max(axis=1), -A.min(axis=1))
    else:
        top = np.zeros(A.shape[0])
        rows = np.flatnonzero(np.diff(A.indptr))
        if rows.size:
            top[rows] = np.maximum.reduceat(np.abs(A.data), A.indptr[rows])
    return np.frexp(top)[1], top > 0


def scaled_rows(mat, shift):
    """A copy of A with row i multiplied by ``2**-shift[i]`` (exactly: a power
    of two), in the pieces ``check_matrix`` returns."""
    A = mat.A
    if mat.dense:
        return check_matrix(np.ldexp(A, -shift[:, None]))
    counts = np.diff(A.indptr)
    data = np.ldexp(A.data, -np.repeat(shift, counts))
    return check_matrix(sp.csr_matrix((data, A.indices, A.indptr),
                                      shape=A.shape))


def homogeneous_rows(mat):
    """The rows the solvers of ``A @ w > 0`` iterate on: ``(rows, sqnorm,
    shift)``.

    A positive scaling of a row does not change the solutions, so when some
    squared row norm leaves float64 or its precise range (rows beyond about
    1e154, or below 1e-146, in norm), every row ``i`` is scaled by
    ``2**-shift[i]``, which brings its largest entry into [0.5, 1) exactly (a
    copy of A, made only then); ``shift`` is None otherwise.  Answers are
    checked on A itself.
    """
    sqnorm, overflow, underflow = squared_norms(mat)
    if not (overflow or underflow):
        return mat, sqnorm, None
    shift = row_exponents(mat)[0]
    rows = scaled_rows(mat, shift)
    return rows, squared_norms(rows)[0], shift


def relaxation_rows(mat, b, tol):
    """The rows, squared norms, right-hand sides and ``tol`` the relaxation
    loop runs on: A, b and tol themselves, or all three times one power of
    two when some squared row norm leaves float64 and one scale brings
    every one back (every step is then the same, exactly).  Rows of norms
    too far apart for that are refused: scaling rows one by one would change
    what the absolute ``tol`` means."""
    sqnorm, overflow, underflow = squared_norms(mat)
    if not (overflow or underflow):
        return mat, sqnorm, b, tol
    exponents, nonzero = row_exponents(mat)
    exponents = exponents[nonzero]
    k = int(exponents.max())
    # The largest entries after scaling are in [2**(e - 1 - k), 2**(e - k)),
    # so the squared norms in (2**(2 (e_min - 1 - k)), p 2**(2 (e_max - k)))
    if 2 * (int(exponents.min()) - 1 - k) > -1000:
        rows = scaled_rows(mat, np.full(mat.n, k))
        sqnorm, overflow, underflow = squared_norms(rows)
        if not (overflow or underflow):
            return rows, sqnorm, np.ldexp(b, -k), float(np.ldexp(tol, -k))
    raise ValueError(
        "The squared norms of the rows of A span more than float64 holds "
        "(row norms from about 1e-146 to 1e154 can be solved together); "
        "relaxation_method cannot rescale rows one by one for you, since tol "
        "bounds a_i . x - b_i itself: scale those rows of A, and the same "
        "entries of b and your tol, yourself."
    )
