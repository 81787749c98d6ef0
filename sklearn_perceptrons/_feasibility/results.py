# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The status codes, messages and results (``OptimizeResult``) of the
solvers of :mod:`sklearn_perceptrons.feasibility`.

Every result is read off the final point, checked on A itself: ``success``
means a verified feasible point, whatever the loop reported.
"""

import numpy as np
from scipy.optimize import OptimizeResult

from . import smooth
from ._feasibility_fast import (  # the status codes, defined by the loops
    STATUS_INFEASIBLE,
    STATUS_MAX_ITER,
    STATUS_NONFINITE,
    STATUS_SUCCESS,
)
from .rows import matvec_f64

NONFINITE_MESSAGE = (
    "Numerical failure: the iterate became non-finite (overflow); rescale "
    "the system."
)


def _unit(order):
    if order in ("max_distance", "max_residual"):
        return "greedy steps"
    return "sweeps over the rows"


def result(x, *, status, nit, n_sweeps, maxcv, message, **extra):
    """The result of the row-action solvers."""
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


def loop_result(x, feasible, finite, loop_status, nit, n_sweeps, maxcv,
                max_iter, order, success_message, **extra):
    """The result of a row-action or greedy run, its status read off the
    final point (success, overflow) before the loop's own exit code."""
    if feasible:
        status, message = STATUS_SUCCESS, success_message
    elif loop_status == STATUS_NONFINITE or not finite:
        status, message = STATUS_NONFINITE, NONFINITE_MESSAGE
    else:
        status = STATUS_MAX_ITER
        message = (
            f"Iteration limit reached: {max_iter} iteration(s) ({_unit(order)}) "
            "ended without a feasible point; the system may be infeasible, or "
            "need more iterations (increase max_iter)."
        )
    return result(
        x, status=status, nit=nit, n_sweeps=n_sweeps, maxcv=maxcv,
        message=message, **extra,
    )  # fmt: skip


def zero_row_result(p, zero, **extra):
    """The result of a smooth solver on an A with zero rows (``zero``)."""
    return OptimizeResult(
        x=np.zeros(p), success=False, status=STATUS_INFEASIBLE, nit=0,
        maxcv=0.0, slack=0.0,
        message=(
            f"Infeasible: row {zero[0]} of A is all zeros, so a . w = 0 > 0 "
            f"cannot hold ({zero.size} such row(s))."
        ),
        **extra,
    )  # fmt: skip


def primal_result(mat, w, reason, nit, max_iter, **extra):
    """The result of a smooth solver from its final ``w`` (original space)
    and why its iteration stopped (a reason of :mod:`.smooth`)."""
    finite = bool(np.all(np.isfinite(w)))
    n = mat.n
    Aw = matvec_f64(mat, w) if finite else np.full(n, np.nan)
    with np.errstate(invalid="ignore"):
        slack = float(np.min(Aw))
        maxcv = float(max(0.0, np.max(-Aw)))
    if reason == smooth.PRIMAL:
        status, message = STATUS_SUCCESS, "Found w with A @ w > 0."
    elif reason == smooth.NONFINITE or not finite:
        status, message = STATUS_NONFINITE, NONFINITE_MESSAGE
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


def certificate_result(mat, w, reason, nit, max_iter, certificate,
                       certificate_norm, message, **extra):
    """The result of a smooth solver that found a Gordan certificate."""
    res = primal_result(mat, w, reason, nit, max_iter)
    res.update(
        status=STATUS_INFEASIBLE, success=False, certificate=certificate,
        certificate_norm=certificate_norm, **extra, message=message,
    )  # fmt: skip
    return res


def certificate_message(certificate_norm, tol):
    return (
        "Infeasible (within tol): x >= 0, sum(x) = 1 with "
        f"||A.T @ x|| = {certificate_norm:.3g} <= tol = {tol:.3g}"
    )


def von_neumann_limit_message(max_iter, certificate_norm):
    return (
        f"Iteration limit reached: {max_iter} iteration(s) found "
        "neither w with A @ w > 0 nor a certificate with "
        f"||A.T @ x|| <= tol (best: {certificate_norm:.3g}); increase "
        "max_iter or tol."
    )


def rescaled_message(stop, nit, n_rescalings, max_iter, rho_floor):
    """Why the rescaled perceptron stopped without an answer: ``stop`` is
    None (the budget), ``"thin"`` or ``"degenerate"``."""
    if stop == "thin":
        return (
            f"Stopped after {n_rescalings} rescalings, which prove that "
            f"rho(A) < {rho_floor:g}: the system is infeasible, or too close "
            "to infeasible for double precision; the rest of max_iter found "
            "no certificate with ||A.T @ x|| <= tol (increase max_iter or tol)."
        )
    if stop == "degenerate":
        return (
            f"Stopped after {n_rescalings} rescalings: the rescaled rows "
            "degenerated, which happens only when the system is infeasible "
            "or has no interior (rho(A) <= 0); the rest of max_iter found no "
            "certificate with ||A.T @ x|| <= tol (increase max_iter or tol)."
        )
    return (
        f"Iteration limit reached: {nit} iteration(s) and {n_rescalings} "
        f"rescaling(s) (max_iter={max_iter} counts both) ended without a "
        "solution of A @ w > 0; the system may be infeasible, or too "
        "ill-conditioned for this budget (increase max_iter)."
    )
