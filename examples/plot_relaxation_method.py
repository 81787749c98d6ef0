"""
================================================
The relaxation method: convergence of each order
================================================

:func:`sklearn_perceptrons.feasibility.relaxation_method` finds a point of
the polyhedron ``A x <= b`` (Agmon; Motzkin and Schoenberg, 1954): while
some inequality is violated, it moves ``x`` towards, onto (``eta=1``) or
across (up to the reflection, ``eta=2``) the boundary of a violated
half-space,

.. math::

    x \\leftarrow x - \\eta \\, \\frac{a_i \\cdot x - b_i}{\\|a_i\\|^2} \\, a_i .

Which violated row comes next is the ``order``: ``"cyclic"`` (row after
row), ``"permuted"`` (a fresh random permutation per sweep), ``"random"``
(rows drawn with probability proportional to ``||a_i||²``, the randomized
Kaczmarz method), ``"max_distance"`` (the row farthest from ``x``, Agmon's
and Motzkin--Schoenberg's rule) and ``"max_residual"`` (the largest
``a_i . x - b_i``).  On a feasible system every order drives the largest
violation to zero, geometrically fast; how fast depends on the order and
on the geometry of the system.

The perceptron is the same method on the homogeneous system ``A w > 0``,
with the whole row as its step instead of the projection
(:func:`~sklearn_perceptrons.feasibility.perceptron_feasibility`).
"""

# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause

import matplotlib.pyplot as plt
import numpy as np

from sklearn_perceptrons.feasibility import relaxation_method

# %%
# A feasible system
# -----------------
# 300 random inequalities in 30 unknowns, with rows of very different norms,
# all satisfied with some slack at a hidden point ``x_star``.  The start
# ``x = 0`` violates about half of them.

rng = np.random.RandomState(0)
n_constraints, n_features = 300, 30
A = rng.randn(n_constraints, n_features) * rng.lognormal(0, 1, (n_constraints, 1))
x_star = rng.randn(n_features)
b = A @ x_star + rng.uniform(0.0, 0.5, n_constraints)
print(f"largest violation at x = 0: {np.max(A @ np.zeros(n_features) - b):.2f}")

# %%
# Convergence, sweep by sweep
# ---------------------------
# ``max_iter`` counts sweeps (``n_constraints`` steps each), and ``x0``
# restarts from a given point, so one sweep per call records the whole
# trajectory: the largest violation ``res.maxcv`` against the number of
# projections made so far (``res.nit``).  A shared ``RandomState`` keeps the
# random orders going from call to call.


def trajectory(order, eta=1.0, n_sweeps=60):
    x, steps, updates, violations = np.zeros(n_features), 0, [0], []
    violations.append(np.max(A @ x - b))
    random_state = np.random.RandomState(0)
    for _ in range(n_sweeps):
        res = relaxation_method(A, b, eta=eta, order=order, x0=x, max_iter=1,
                                tol=1e-10, random_state=random_state)
        x, steps = res.x, steps + res.nit
        updates.append(steps)
        violations.append(res.maxcv)
        if res.success:
            break
    return np.array(updates), np.maximum(np.array(violations), 1e-12)


orders = ["cyclic", "permuted", "random", "max_distance", "max_residual"]
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
for order in orders:
    updates, violations = trajectory(order)
    ax1.plot(updates, violations, label=order)
    ax2.plot(np.arange(len(violations)), violations, label=order)
ax1.set_xlabel("projections (res.nit)")
ax2.set_xlabel("sweeps (res.n_sweeps)")
ax1.set_ylabel("largest violation  max(A x - b)")
ax1.set_yscale("log")
ax2.legend(fontsize=8)
fig.tight_layout()

# %%
# The greedy orders make the most progress per projection, since each
# projection is on the worst row; but finding that row costs a pass over
# all the rows, so a greedy sweep of ``n_constraints`` projections costs as
# much as ``n_constraints`` cyclic sweeps.  The cyclic and permuted orders
# cost one row per step.  The random order draws the rows of large norm
# most often; measured by the largest residual, which the rows of small
# norm dominate once the large ones are satisfied, it is the slowest here.
#
# The relaxation parameter
# ------------------------
# Over-relaxation (``1 < eta < 2``) often speeds the method up;
# under-relaxation slows it down; ``eta=2``, the reflection, terminates in
# finitely many steps when the polyhedron has an interior point, but can
# wander for long before it does.

fig, ax = plt.subplots(figsize=(6.4, 4))
for eta in [0.5, 1.0, 1.5, 1.9, 2.0]:
    updates, violations = trajectory("permuted", eta=eta)
    ax.plot(np.arange(len(violations)), violations, label=f"eta = {eta}")
ax.set_xlabel("sweeps")
ax.set_ylabel("largest violation")
ax.set_yscale("log")
ax.set_title('order="permuted"')
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()
