# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The Python side of the compiled sweeps: what the row-action and greedy
loops of ``_feasibility_fast`` need, prepared once per solve."""

import sys

import numpy as np

from . import _feasibility_fast as fast


def solve(mat, sqnorm, c, x, *, perceptron, eta, tol, order, max_iter,
          random_state):  # fmt: skip
    """Run the compiled loop for ``r_i = sgn * a_i . x - c_i <= 0``.

    ``x`` is updated in place; ``random_state`` is a RandomState. Returns
    ``(status, nit, n_sweeps)`` as reported by the loop: ``STATUS_SUCCESS``
    (the loop saw no violated row), ``STATUS_MAX_ITER`` or
    ``STATUS_NONFINITE``.
    """
    if max_iter == 0 or not np.any(sqnorm > 0):
        # Nothing to do (an all-zero A was already found feasible or not).
        return fast.STATUS_MAX_ITER, 0, 0

    rule = {"perceptron": perceptron, "eta": eta, "tol": tol}
    code = fast.ORDER_CODES[order]
    if code in (fast.CYCLIC, fast.PERMUTED, fast.RANDOM):
        seed = 0
        if code != fast.CYCLIC:
            # One seed for the compiled generator; the RandomState is not
            # touched by the deterministic orders.
            seed = int(random_state.randint(2**63 - 1, dtype=np.int64))
        run = {"order": code, "max_iter": max_iter, "seed": seed}
        return fast.row_action(mat, c, sqnorm, x, rule, run)

    # Greedy orders: an iteration is one step (one pass over a dense A).
    run = {"order": code, "max_iter": min(max_iter, sys.maxsize), "seed": 0}
    with np.errstate(divide="ignore"):
        inv_norm = np.where(sqnorm > 0, 1.0 / np.sqrt(sqnorm), 0.0)
    if mat.dense:
        status, nit = fast.greedy_dense(mat, c, sqnorm, inv_norm, x, rule, run)
    else:
        # The columns of A, to reach the rows whose residual a step changes.
        # This CSC copy is the memory price of the greedy orders (see the
        # module docstring of feasibility).
        At = mat.A.tocsc()
        columns = fast.matrix(
            At.T, At.data, At.indices.astype(mat.indices.dtype, copy=False),
            At.indptr.astype(mat.indices.dtype, copy=False), False,
        )  # fmt: skip
        status, nit = fast.greedy_sparse(
            mat, columns, c, sqnorm, inv_norm, x, rule, run)
    return status, nit, nit
