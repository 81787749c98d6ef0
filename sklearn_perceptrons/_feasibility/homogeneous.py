# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""What the smooth solvers of ``A @ w > 0`` share: their setup (checks, the
rows to iterate on, zero rows), the check of a solution on A itself, and the
search for a Gordan certificate."""

import numpy as np

from . import smooth
from .checks import check_matrix, check_max_iter, check_tol
from .results import zero_row_result
from .rows import homogeneous_rows, matvec_f64


def smooth_setup(A, max_iter):
    """Validate; the rows to iterate on (:func:`.rows.homogeneous_rows`); the
    zero rows (each is an exact Gordan certificate).  Returns ``(mat, rows,
    sqnorm, shift, max_iter, zero)``."""
    max_iter = check_max_iter(max_iter)
    mat = check_matrix(A)
    rows, sqnorm, shift = homogeneous_rows(mat)
    return mat, rows, sqnorm, shift, max_iter, np.flatnonzero(sqnorm == 0)


def certifying_setup(A, tol, max_iter, **extra):
    """:func:`smooth_setup` for the solvers that return a Gordan certificate,
    and the finished result (the first zero row as the certificate) if A has
    a zero row, else None."""
    tol = check_tol(tol)
    mat, rows, sqnorm, shift, max_iter, zero = smooth_setup(A, max_iter)
    n, p = mat.n, mat.p
    zero_result = None
    if zero.size:
        x = np.zeros(n)
        x[zero[0]] = 1.0
        zero_result = zero_row_result(
            p, zero, **extra, certificate=x, certificate_norm=0.0
        )
    return mat, rows, sqnorm, shift, max_iter, zero_result


def verifier(mat, op):
    """``check(w)``: does the original ``A`` satisfy ``A @ (B w) > 0``, the
    products accumulated in float64 by the compiled loop?"""

    def check(w):
        Aw = matvec_f64(mat, op.original(w))
        return bool(np.all(Aw > 0))

    return check


def certify(mat, rows, sqnorm, shift, tol, max_iter):
    """The iteration of ``perceptron_von_neumann`` on the rows of A for at
    most ``max_iter`` iterations: ``(reason, nit, w, certificate,
    certificate_norm)``, or None without a budget."""
    if max_iter <= 0:
        return None
    op = smooth.UnitRows(rows, sqnorm, original=mat, shift=shift)
    reason, nit, w, x, _ = smooth.run(
        op, max_iter, check_primal=verifier(mat, op), cert_tol=tol
    )
    y, norm = op.certificate(x)
    return reason, nit, op.original(w), y, norm
