"""
================================================
Kernel perceptron vs. support vector machine
================================================

The kernel trick: the perceptron only ever adds training samples to its
weight vector, so ``w = sum_j alpha_j phi(x_j)`` and every score is a sum of
kernel values, ``f(x) = sum_j alpha_j K(x_j, x) + b``.
:class:`~sklearn_perceptrons.KernelPerceptron` runs the perceptron in that
dual form: a mistake on ``x_i`` adds ``x_i`` as a support vector (or grows its
coefficient), and nothing else changes.  With ``average=True`` (the voted /
averaged perceptron of Freund and Schapire) it generalises about as well as a
support vector machine on many problems, while training by a few passes over
the data instead of solving a quadratic program.

Here both learn the same RBF kernel (``gamma="scale"``) on two non-linear
problems; the titles give the test accuracy, the fit time and the number of
support vectors.
"""

# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause

from time import perf_counter

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_circles, make_moons
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

from sklearn_perceptrons import KernelPerceptron

datasets = {
    "moons": make_moons(n_samples=2000, noise=0.2, random_state=0),
    "circles": make_circles(n_samples=2000, noise=0.1, factor=0.5, random_state=0),
}
models = {
    "KernelPerceptron(average=True)": lambda: KernelPerceptron(average=True),
    "SVC(kernel='rbf')": lambda: SVC(kernel="rbf"),
}

fig, axes = plt.subplots(2, 2, figsize=(8, 8), sharex="row", sharey="row")
for i, (data_name, (X, y)) in enumerate(datasets.items()):
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.25, random_state=0
    )
    lo, hi = X.min(axis=0) - 0.3, X.max(axis=0) + 0.3
    xx, yy = np.meshgrid(np.linspace(lo[0], hi[0], 200), np.linspace(lo[1], hi[1], 200))
    for j, (name, make_model) in enumerate(models.items()):
        model = make_model()
        start = perf_counter()
        model.fit(X_train, y_train)
        fit_time = perf_counter() - start
        accuracy = model.score(X_test, y_test)
        n_sv = model.support_vectors_.shape[0]
        print(f"{data_name:8s} {name:32s} accuracy {accuracy:.3f}  "
              f"fit {1000 * fit_time:6.1f} ms  {n_sv} support vectors")

        ax = axes[i, j]
        scores = model.decision_function(np.c_[xx.ravel(), yy.ravel()])
        ax.contourf(xx, yy, scores.reshape(xx.shape) > 0, alpha=0.3, cmap="RdBu",
                    levels=[-0.5, 0.5, 1.5])
        ax.scatter(X_train[:, 0], X_train[:, 1], c=y_train, cmap="RdBu", s=4)
        sv = model.support_vectors_
        ax.scatter(sv[:, 0], sv[:, 1], s=18, facecolors="none", edgecolors="k",
                   linewidths=0.5)
        ax.set_title(f"{name}\n{data_name}: accuracy {accuracy:.3f}, "
                     f"{1000 * fit_time:.0f} ms, {n_sv} SV", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
fig.tight_layout()
plt.show()

# %%
# The circled points are the support vectors.  The perceptron's support
# vectors are the samples it made a mistake on; the SVM's are the samples on
# or inside its margin.  Both numbers grow with the noise in the data: a
# :ref:`budget <sphx_glr_auto_examples_plot_budget.py>` caps the
# perceptron's.
