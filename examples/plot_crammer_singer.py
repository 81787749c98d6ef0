"""
===================================================
One-vs-all against the native multiclass perceptron
===================================================

Three classes in a row: the middle class cannot be cut from the two others
by one hyperplane, so its one-vs-all perceptron ("ovr") never converges and
the argmax of three unrelated binary models misplaces part of it.  The
multiclass perceptron (``multi_class="crammer_singer"``) trains the three
rows together: on a mistake the true class's row moves toward the sample and
the rows that scored at least as high move away.  The classes are separable
by the argmax of three linear scores, so it converges, and by the Kesler
construction it makes at most ``2 R² / γ²`` mistakes, ``γ`` the multiclass
margin (:func:`sklearn_perceptrons.bounds.mistake_bound` with
``multi_class="crammer_singer"``).

The panels show the decision regions and the held-out accuracy of each.
"""

# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause

import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split

from sklearn_perceptrons import Perceptron
from sklearn_perceptrons.bounds import mistake_bound

rng = np.random.RandomState(0)
centers = np.array([[-3.0, 0.0], [0.0, 0.0], [3.0, 0.0]])
y = rng.randint(3, size=600)
X = centers[y] + rng.uniform(-1.2, 1.2, size=(600, 2))
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)

models = {
    "one-vs-all (ovr)": Perceptron(tol=None, max_iter=50),
    "crammer_singer, update='max'": Perceptron(
        multi_class="crammer_singer", tol=None, max_iter=50
    ),
}
with warnings.catch_warnings():
    # The middle class's one-vs-all row cannot converge.
    warnings.simplefilter("ignore", ConvergenceWarning)
    for model in models.values():
        model.fit(X_train, y_train)

bound = mistake_bound(X_train, y_train, multi_class="crammer_singer")
multiclass = models["crammer_singer, update='max'"]
print(f"crammer_singer: {multiclass.n_mistakes_} mistakes, converged "
      f"{multiclass.converged_}; Kesler-Novikoff bound {bound:.0f}")

xx, yy = np.meshgrid(np.linspace(-5, 5, 300), np.linspace(-2, 2, 120))
grid = np.c_[xx.ravel(), yy.ravel()]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.2), sharey=True)
for ax, (name, model) in zip(axes, models.items()):
    regions = model.predict(grid).reshape(xx.shape)
    ax.contourf(xx, yy, regions, levels=[-0.5, 0.5, 1.5, 2.5], alpha=0.25,
                cmap="viridis")
    ax.scatter(X_test[:, 0], X_test[:, 1], c=y_test, s=8, cmap="viridis")
    ax.set_title(f"{name}\ntest accuracy {model.score(X_test, y_test):.3f}")
    ax.set_xlabel("feature 0")
axes[0].set_ylabel("feature 1")
fig.tight_layout()
plt.show()
