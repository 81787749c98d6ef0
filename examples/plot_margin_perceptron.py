"""
======================================================
Margin of the margin perceptron vs. the maximum margin
======================================================

The standard perceptron stops at the first separating hyperplane it finds,
which may pass very close to some samples.
:class:`~sklearn_perceptrons.MarginPerceptron` also updates on samples that
are correctly classified but closer than ``(1 - epsilon) * gamma`` to the
hyperplane.  With a known margin ``gamma`` on data of radius ``R`` it makes
at most ``4 R² / (epsilon² gamma²)`` updates (``16 R² / gamma²`` at the
default ``epsilon=0.5``), and ends with every sample at distance at least
``(1 - epsilon) * gamma``.  With ``margin="auto"`` (the default) it searches
for ``gamma`` itself, keeping it within a factor 2 below a certified upper
bound on the maximum margin ``gamma*``, and so guarantees, when it
converges, a margin of at least a quarter of ``gamma*`` at ``epsilon=0.5``
(``tol=None`` below lets every fit run until it converges).

The exact maximum margin comes from
:func:`sklearn_perceptrons.bounds.max_margin`.  With an intercept, margins
are those of the padded vectors ``[x; 1]`` (see :mod:`sklearn_perceptrons.bounds`).
"""

# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause

import matplotlib.pyplot as plt
import numpy as np

from sklearn_perceptrons import MarginPerceptron, Perceptron
from sklearn_perceptrons.bounds import margin, max_margin, radius


def separable_data(gap, n_samples=200, n_features=2, seed=0):
    """Uniform points of the unit square, minus a slab of width 2 * gap."""
    rng = np.random.RandomState(seed)
    u = rng.randn(n_features) + 1.0
    u /= np.linalg.norm(u)
    X = rng.uniform(-1, 1, size=(20 * n_samples, n_features))
    score = X @ u - 0.2
    X, score = X[np.abs(score) >= gap][:n_samples], score[np.abs(score) >= gap]
    return X, (score[:n_samples] > 0).astype(int)


# %%
# The hyperplanes on one data set
# -------------------------------
# The perceptron's boundary, the margin perceptron's and the maximum-margin
# one, with the distance of the closest sample to each.

X, y = separable_data(gap=0.15)
gamma_star, coef_star, intercept_star = max_margin(X, y)
models = {
    "Perceptron": Perceptron(tol=None).fit(X, y),
    "MarginPerceptron": MarginPerceptron(tol=None).fit(X, y),
}
lines = {name: (m.coef_.ravel(), m.intercept_[0]) for name, m in models.items()}
lines["maximum margin"] = (coef_star, intercept_star)

fig, ax = plt.subplots(figsize=(5.5, 6))
ax.scatter(X[:, 0], X[:, 1], c=np.where(y == 1, "#4393c3", "#d6604d"), s=12)
xs = np.linspace(-1, 1, 2)
for (name, (w, b)), style in zip(lines.items(), ["-", "-", "--"]):
    ax.plot(xs, -(w[0] * xs + b) / w[1], style,
            label=f"{name}: margin {margin(X, y, w, b):.3f}")
ax.set_xlim(-1.05, 1.05)
ax.set_ylim(-1.05, 1.05)
ax.set_aspect("equal")
ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.06), fontsize=8)
ax.set_title("Separating hyperplanes")
fig.tight_layout()

# %%
# Margin achieved, over many data sets
# ------------------------------------
# For data sets of various maximum margins ``gamma*`` (and three seeds each),
# the margin reached by the margin perceptron (``margin_``) and by the
# perceptron, against ``gamma*``.  The margin perceptron is always above its
# guarantee ``gamma* / 4``, usually well above; the perceptron's margin can be
# anything down to almost zero.

results = []
for gap in [0.05, 0.1, 0.15, 0.2, 0.25, 0.3]:
    for seed in range(3):
        X, y = separable_data(gap, seed=seed)
        gamma_star = max_margin(X, y)[0]
        mp = MarginPerceptron(tol=None, random_state=seed).fit(X, y)
        p = Perceptron(tol=None, random_state=seed).fit(X, y)
        assert mp.converged_ and mp.margin_ >= gamma_star / 4
        results.append((gamma_star, mp.margin_, margin(X, y, p.coef_, p.intercept_)))
results = np.array(results)

fig, ax = plt.subplots(figsize=(6.4, 4.5))
grid = np.linspace(0, results[:, 0].max() * 1.05, 2)
ax.plot(grid, grid, "k-", lw=1, label=r"maximum margin $\gamma^*$")
ax.plot(grid, grid / 4, "k:", lw=1, label=r"guarantee $\gamma^*/4$")
ax.scatter(results[:, 0], results[:, 1], label="MarginPerceptron", zorder=3)
ax.scatter(results[:, 0], results[:, 2], marker="x", label="Perceptron", zorder=3)
ax.set_xlabel(r"maximum margin $\gamma^*$ (padded)")
ax.set_ylabel("margin reached")
ax.legend(fontsize=8)
fig.tight_layout()

# %%
# The price of a larger margin: epsilon
# -------------------------------------
# Given the margin ``gamma = gamma*`` as a float, the margin perceptron ends
# with every sample at distance at least ``(1 - epsilon) * gamma*``, after at
# most ``4 R² / (epsilon² gamma*²)`` updates.  A smaller ``epsilon`` buys a
# margin closer to the maximum with more updates.

X, y = separable_data(gap=0.2)
gamma_star = max_margin(X, y)[0]
R = radius(X, fit_intercept=True)
epsilons = np.array([0.9, 0.7, 0.5, 0.4, 0.3, 0.2, 0.1])
fits = [
    MarginPerceptron(margin=gamma_star, epsilon=e, tol=None, max_iter=5000).fit(X, y)
    for e in epsilons
]
assert all(f.converged_ for f in fits)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.8))
ax1.plot(epsilons, [f.margin_ / gamma_star for f in fits], "o-", label="reached")
ax1.plot(epsilons, 1 - epsilons, "k:", label=r"guarantee $1 - \epsilon$")
ax1.set_xlabel("epsilon")
ax1.set_ylabel(r"margin / $\gamma^*$")
ax1.invert_xaxis()
ax1.legend(fontsize=8)
ax2.plot(epsilons, [f.n_mistakes_ for f in fits], "o-", label="updates")
ax2.plot(epsilons, 4 * R**2 / (epsilons * gamma_star) ** 2, "k:",
         label=r"bound $4R^2/(\epsilon^2\gamma^{*2})$")
ax2.set_xlabel("epsilon")
ax2.set_yscale("log")
ax2.invert_xaxis()
ax2.legend(fontsize=8)
fig.tight_layout()
plt.show()
