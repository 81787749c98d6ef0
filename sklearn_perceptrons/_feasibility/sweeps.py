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
    A, data, indices, indptr, dense = mat
    n, p = A.shape
    if max_iter == 0 or not np.any(sqnorm > 0):
        # Nothing to do (an all-zero A was already found feasible or not).
        return fast.STATUS_MAX_ITER, 0, 0

    code = fast.ORDER_CODES[order]
    if code in (fast.CYCLIC, fast.PERMUTED, fast.RANDOM):
        seed = 0
        seq = np.zeros(1, dtype=np.intp)
        prob = np.zeros(1, dtype=np.float64)
        alias = np.zeros(1, dtype=np.intp)
        if code != fast.CYCLIC:
            # One seed for the compiled generator; the RandomState is not
            # touched by the deterministic orders.
            seed = int(random_state.randint(2**63 - 1, dtype=np.int64))
            seq = np.arange(n, dtype=np.intp)
        if code == fast.RANDOM:
            prob = np.empty(n, dtype=np.float64)
            alias = np.empty(n, dtype=np.intp)
            fast.build_alias(sqnorm, prob, alias)
        return fast.row_action(
            data, indices, indptr, n, p, dense, c, sqnorm, x, perceptron,
            eta, tol, code, max_iter, seed, seq, prob, alias,
        )  # fmt: skip

    # Greedy orders: an iteration is one step (one pass over a dense A).
    max_steps = min(max_iter, sys.maxsize)
    with np.errstate(divide="ignore"):
        inv_norm = np.where(sqnorm > 0, 1.0 / np.sqrt(sqnorm), 0.0)
    if dense:
        status, nit = fast.greedy_dense(
            data, n, p, c, sqnorm, inv_norm, x, perceptron, eta, tol, code,
            max_steps,
        )  # fmt: skip
    else:
        # The columns of A, to reach the rows whose residual a step changes.
        # This CSC copy is the memory price of the greedy orders (see the
        # module docstring of feasibility).
        At = A.tocsc()
        cindices = At.indices.astype(indices.dtype, copy=False)
        cindptr = At.indptr.astype(indices.dtype, copy=False)
        status, nit = fast.greedy_sparse(
            data, indices, indptr, At.data, cindices, cindptr, n, c, sqnorm,
            inv_norm, x, perceptron, eta, tol, code, max_steps,
        )  # fmt: skip
    return status, nit, nit
