"""
=====================================================
Perceptrons for A w > 0: iterations and conditioning
=====================================================

How many iterations does a perceptron need to solve the homogeneous system
``A w > 0``? The answer depends on the Goffin--Cheung--Cucker condition
measure

.. math::

    \\rho(A) = \\max_{\\|w\\| = 1} \\min_i \\frac{a_i \\cdot w}{\\|a_i\\|},

the sine of the half-aperture of the widest circular cone of solutions
(:func:`~sklearn_perceptrons.bounds.condition_measure` computes it).

* The perceptron (:func:`~sklearn_perceptrons.feasibility.perceptron_feasibility`)
  makes at most :math:`1/\\rho^2` updates (Block--Novikoff, rows of norm 1).
* The smooth perceptron (:func:`~sklearn_perceptrons.feasibility.smooth_perceptron`,
  Soheili and Peña 2012) needs fewer than :math:`2\\sqrt{2 \\ln n}/\\rho`
  iterations.
* The rescaled perceptron (:func:`~sklearn_perceptrons.feasibility.rescaled_perceptron`)
  needs :math:`O(p \\log(1/\\rho))` rescalings.

We build a family of random cones whose condition measure halves from one
system to the next and plot the iteration counts against :math:`1/\\rho` on
log--log axes: the slopes are the exponents of the bounds.
"""

# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause

import matplotlib.pyplot as plt
import numpy as np

from sklearn_perceptrons.bounds import condition_measure
from sklearn_perceptrons.feasibility import (
    perceptron_feasibility,
    rescaled_perceptron,
    smooth_perceptron,
)


# %%
# A family of cones with a known condition measure
# ------------------------------------------------
# Half the rows sit at angular height ``rho`` above the hyperplane of a
# random unit direction ``d`` and their tangent parts average to zero, so the
# point of their convex hull nearest the origin is ``rho * d``: the condition
# measure is exactly ``rho``. The other rows are higher; all get random norms.
def cone(rho, n=150, p=6, seed=0):
    rng = np.random.RandomState(seed)
    Q, _ = np.linalg.qr(rng.randn(p, p))
    d, T = Q[:, 0], Q[:, 1:]
    z = rng.randn(n, p - 1)
    z[: n // 2] -= z[: n // 2].mean(axis=0)
    z /= np.linalg.norm(z, axis=1)[:, None]
    h = np.full(n, rho)
    h[n // 2 :] = np.minimum(rho + rng.uniform(0, 0.5, n - n // 2), 0.99)
    rows = h[:, None] * d + np.sqrt(1 - h**2)[:, None] * (z @ T.T)
    return rows * rng.uniform(0.5, 3.0, n)[:, None]


rhos = 0.1 / 2.0 ** np.arange(9)
systems = [cone(rho, seed=k) for k, rho in enumerate(rhos)]
measured = np.array([condition_measure(A) for A in systems])
fmt = {"float_kind": "{:.2e}".format}
print("rho requested:", np.array2string(rhos, formatter=fmt))
print("rho measured: ", np.array2string(measured, formatter=fmt))

# %%
# Iterations of the three perceptrons
# -----------------------------------
counts = {"perceptron (updates)": [], "smooth perceptron": [], "rescaled": []}
for A in systems:
    res = perceptron_feasibility(A, max_iter=100_000)
    counts["perceptron (updates)"].append(res.nit if res.success else np.nan)
    res = smooth_perceptron(A, max_iter=100_000)
    counts["smooth perceptron"].append(res.nit if res.success else np.nan)
    res = rescaled_perceptron(A)
    counts["rescaled"].append(res.nit if res.success else np.nan)

inv_rho = 1.0 / measured
for name, nit in counts.items():
    nit = np.asarray(nit, dtype=float)
    ok = np.isfinite(nit) & (nit > 0)
    slope = np.polyfit(np.log(inv_rho[ok]), np.log(nit[ok]), 1)[0]
    print(f"{name:<22} log-log slope {slope:.2f}")

# %%
# The log--log plot, with the bounds
# ----------------------------------
n = systems[0].shape[0]
fig, ax = plt.subplots(figsize=(6.5, 4.5))
markers = {"perceptron (updates)": "o", "smooth perceptron": "s", "rescaled": "^"}
for name, nit in counts.items():
    ax.loglog(inv_rho, nit, marker=markers[name], label=name)
ax.loglog(inv_rho, inv_rho**2, "k--", lw=1, label=r"$1/\rho^2$ (Novikoff)")
ax.loglog(
    inv_rho, 2 * np.sqrt(2 * np.log(n)) * inv_rho, "k:", lw=1,
    label=r"$2\sqrt{2\ln n}/\rho$ (smooth)",
)  # fmt: skip
ax.set_xlabel(r"$1/\rho(A)$")
ax.set_ylabel("iterations")
ax.set_title(f"A w > 0 with {n} rows: iterations against conditioning")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %%
# The perceptron's count grows like :math:`1/\rho^2` and the smooth
# perceptron's like :math:`1/\rho`, each below its bound. An iteration of the
# smooth perceptron costs two passes over ``A`` where a perceptron update
# costs one row, so the smooth perceptron pays off when :math:`\rho` is small.
# The rescaled perceptron follows the smooth one while no rescaling is
# needed; its advantage appears for much smaller :math:`\rho` (``1e-5`` and
# below), where it still finishes in a few thousand iterations while the
# others run out of budget (benchmark P16 in ``benchmarks/bench_feasibility.py``).
