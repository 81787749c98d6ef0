"""
==========================================
Decision boundaries of every estimator
==========================================

Each column is one estimator of the package, each row one small 2-D data
set: two linearly separable blobs, two interleaving half moons (not linearly
separable) and three blobs (a multiclass problem).  The shaded regions are
the predicted classes, the points the training samples, and the number in
the corner ("test accuracy") the share of the held-out 30% of the samples,
not drawn, that the estimator classifies correctly.

* The linear perceptrons (:class:`~sklearn_perceptrons.Perceptron`, its
  averaged variant, :class:`~sklearn_perceptrons.MarginPerceptron`) draw
  straight boundaries: perfect on separable blobs, a compromise on the moons.
  The margin perceptron leaves room on both sides of its boundary.  On the
  moons no margin can be reached: its certified search halves the margin
  until ``max_iter`` epochs are spent, keeps the "pocket" (the epoch with the
  fewest training errors) and warns that it did not converge.
* :class:`~sklearn_perceptrons.KernelPerceptron` with an RBF kernel bends
  its boundary around the moons.
* :class:`~sklearn_perceptrons.OneVsAllPerceptron` and
  :class:`~sklearn_perceptrons.OneVsOnePerceptron` reduce a multiclass
  problem to binary perceptrons; on two classes they are a single binary
  perceptron.
"""

# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause

import warnings

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from sklearn.datasets import make_blobs, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_perceptrons import (
    KernelPerceptron,
    MarginPerceptron,
    OneVsAllPerceptron,
    OneVsOnePerceptron,
    Perceptron,
)

# %%
# The data sets and the estimators.  Every estimator follows a
# ``StandardScaler``, as is usual for perceptrons: the updates add samples to
# the weights, so features on very different scales would dominate them.

datasets = {
    "separable blobs": make_blobs(
        n_samples=200, centers=[[-2, -1], [2, 1]], cluster_std=0.8, random_state=0
    ),
    "half moons": make_moons(n_samples=200, noise=0.15, random_state=0),
    "three blobs": make_blobs(
        n_samples=300, centers=[[-2, -2], [2, -1], [0, 2.5]], cluster_std=0.9,
        random_state=1,
    ),
}

estimators = {
    "Perceptron": Perceptron(),
    "Perceptron\n(average=True)": Perceptron(average=True),
    "MarginPerceptron": MarginPerceptron(max_iter=200),
    "KernelPerceptron\n(rbf, average=True)": KernelPerceptron(average=True),
    "OneVsAllPerceptron": OneVsAllPerceptron(),
    "OneVsOnePerceptron": OneVsOnePerceptron(),
}

# %%
# Fit every estimator on every data set and draw its predictions on a grid.

cmap = ListedColormap(["#d6604d", "#4393c3", "#5aae61"])
fig, axes = plt.subplots(
    len(datasets), len(estimators),
    figsize=(2.2 * len(estimators), 2.3 * len(datasets)),
    sharex="row", sharey="row",
)
for i, (data_name, (X, y)) in enumerate(datasets.items()):
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=0
    )
    lo, hi = X.min(axis=0) - 0.5, X.max(axis=0) + 0.5
    xx, yy = np.meshgrid(np.linspace(lo[0], hi[0], 150), np.linspace(lo[1], hi[1], 150))
    grid = np.c_[xx.ravel(), yy.ravel()]
    for j, (name, estimator) in enumerate(estimators.items()):
        with warnings.catch_warnings():
            # The margin perceptron warns on the moons: not separable.
            warnings.simplefilter("ignore", ConvergenceWarning)
            model = make_pipeline(StandardScaler(), estimator).fit(X_train, y_train)
        ax = axes[i, j]
        ax.contourf(
            xx, yy, model.predict(grid).reshape(xx.shape), alpha=0.3, cmap=cmap,
            levels=[-0.5, 0.5, 1.5, 2.5],
        )
        ax.scatter(X_train[:, 0], X_train[:, 1], c=y_train, cmap=cmap, vmin=0,
                   vmax=2, s=8, edgecolors="k", linewidths=0.3)
        ax.text(0.97, 0.03, f"test accuracy {model.score(X_test, y_test):.2f}",
                ha="right", va="bottom", transform=ax.transAxes, fontsize=7.5,
                bbox=dict(facecolor="white", alpha=0.7, lw=0))
        ax.set_xticks([])
        ax.set_yticks([])
        if i == 0:
            ax.set_title(name, fontsize=9)
        if j == 0:
            ax.set_ylabel(data_name, fontsize=9)
fig.text(
    0.5, 0.005,
    "Shaded: predicted class.  Points: training samples (70%).  "
    "Test accuracy: share of the other 30% classified correctly.",
    ha="center", va="bottom", fontsize=8,
)
fig.tight_layout(rect=(0, 0.03, 1, 1))
plt.show()
