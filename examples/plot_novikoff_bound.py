"""
=============================================
Updates per epoch against the Novikoff bound
=============================================

On linearly separable data the perceptron converges, and the Block--Novikoff
theorem says how fast: if every sample has norm at most ``R`` and some unit
vector separates the data with margin ``gamma``, the perceptron started at
``w = 0`` makes at most ``(R / gamma) ** 2`` updates in total, **whatever the
order** in which the samples are visited.

:func:`sklearn_perceptrons.bounds.mistake_bound` computes that bound from the
data (with the exact maximum margin, :func:`~sklearn_perceptrons.bounds.max_margin`),
and the diagnostics of a fitted :class:`~sklearn_perceptrons.Perceptron`
(``mistakes_per_epoch_``, ``n_mistakes_``) say how many updates it made.
"""

# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause

import matplotlib.pyplot as plt
import numpy as np

from sklearn_perceptrons import Perceptron
from sklearn_perceptrons.bounds import max_margin, mistake_bound, radius

# %%
# Separable data with a chosen margin
# -----------------------------------
# Points drawn uniformly in the unit ball of R^5, labelled by the side of a
# random hyperplane through the origin; the points closer to it than
# ``gap`` are dropped, so the margin is at least ``gap``.  The perceptron
# is fitted without intercept, the setting of the theorem.


def separable_data(gap, n_samples=300, n_features=5, seed=0):
    rng = np.random.RandomState(seed)
    u = rng.randn(n_features)
    u /= np.linalg.norm(u)
    X = np.empty((0, n_features))
    while X.shape[0] < n_samples:
        Z = rng.randn(4 * n_samples, n_features)
        Z *= rng.uniform(size=(Z.shape[0], 1)) ** (1 / n_features) / np.linalg.norm(
            Z, axis=1, keepdims=True
        )
        X = np.vstack([X, Z[np.abs(Z @ u) >= gap]])
    X = X[:n_samples]
    return X, (X @ u > 0).astype(int)


X, y = separable_data(gap=0.01, n_samples=1000)
bound = mistake_bound(X, y, fit_intercept=False)
gamma = max_margin(X, y, fit_intercept=False)[0]
print(f"R = {radius(X):.3f}, gamma = {gamma:.4f}, bound (R/gamma)^2 = {bound:.0f}")

clf = Perceptron(fit_intercept=False, tol=None, random_state=0).fit(X, y)
print(f"converged after {clf.n_iter_} epochs with {clf.n_mistakes_} updates")

# %%
# One run, epoch by epoch
# -----------------------
# Most updates happen in the first epochs; the last epoch makes none (that is
# how ``fit`` knows it converged).  The running total stays below the bound.

epochs = np.arange(1, clf.n_iter_ + 1)
fig, ax = plt.subplots(figsize=(6.4, 4))
ax.bar(epochs, clf.mistakes_per_epoch_, color="#4393c3", label="updates in the epoch")
ax.plot(epochs, np.cumsum(clf.mistakes_per_epoch_), "o-", color="#2166ac",
        label="updates so far")
ax.axhline(bound, color="#b2182b", ls="--", label=r"Novikoff bound $(R/\gamma)^2$")
ax.set_xlabel("epoch")
ax.set_ylabel("updates")
ax.set_yscale("log")
ax.set_title("Perceptron on separable data")
ax.legend()
fig.tight_layout()

# %%
# Any order, any margin
# ---------------------
# For data sets of decreasing margin, twenty random visiting orders each
# (``random_state``): every run stays below its bound, which grows like
# ``1 / gamma ** 2``.  The bound is a worst case over all orders; typical runs
# use a small fraction of it.

gaps = [0.3, 0.2, 0.1, 0.05, 0.02]
fig, ax = plt.subplots(figsize=(6.4, 4))
for gap in gaps:
    X, y = separable_data(gap)
    bound = mistake_bound(X, y, fit_intercept=False)
    runs = [
        Perceptron(fit_intercept=False, tol=None, random_state=seed).fit(X, y)
        for seed in range(20)
    ]
    assert all(run.converged_ and run.n_mistakes_ <= bound for run in runs)
    ax.scatter(np.full(len(runs), bound), [run.n_mistakes_ for run in runs],
               s=12, alpha=0.6, label=f"gap {gap}")
limits = np.array([5, 2 * mistake_bound(X, y, fit_intercept=False)])
ax.plot(limits, limits, "k--", lw=1, label="updates = bound")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel(r"Novikoff bound $(R/\gamma)^2$")
ax.set_ylabel("updates until convergence")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()
