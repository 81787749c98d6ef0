"""
=========================================================
One-vs-one vs. one-vs-all on handwritten digits
=========================================================

A perceptron separates two classes; with ``K`` classes it needs a reduction.

* **One-vs-all** (:class:`~sklearn_perceptrons.OneVsAllPerceptron`, and what
  :class:`~sklearn_perceptrons.Perceptron` does natively): ``K`` binary
  problems, "class k vs. the rest", each on all ``n`` samples; predict the
  class of largest score.  Few models, but each must separate one class from
  a mixture of all the others, which is often not linearly possible.
* **One-vs-one** (:class:`~sklearn_perceptrons.OneVsOnePerceptron`):
  ``K (K - 1) / 2`` problems, one per pair of classes, each on the samples of
  its two classes only (about ``2 n / K``); predict by votes.  More models
  (45 for 10 digits), each trained on less data: a sample takes part in
  ``K - 1`` pairs instead of ``K`` rows, so an epoch costs about as much as
  one-vs-all's.  Prediction evaluates all the pairs; but two classes are far
  more often linearly separable than one class against all the others.

Here both reductions of the averaged perceptron learn the 8x8 digits.
"""

# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause

import warnings
from time import perf_counter

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from sklearn_perceptrons import OneVsAllPerceptron, OneVsOnePerceptron, Perceptron

X, y = load_digits(return_X_y=True)
X = StandardScaler().fit_transform(X)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.3, stratify=y, random_state=0
)

# %%
# Separable sub-problems
# ----------------------
# With ``tol=None`` a binary perceptron stops only when it converges (an
# epoch without mistakes, which proves its two sides linearly separable) or
# at ``max_iter``.  Count the sub-problems of each reduction that converged.

reductions = {
    "one-vs-all": OneVsAllPerceptron(Perceptron(tol=None, max_iter=200)),
    "one-vs-one": OneVsOnePerceptron(Perceptron(tol=None, max_iter=200)),
}
for name, model in reductions.items():
    # Unconverged sub-problems warn: that is what is being counted here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X_train, y_train)
    converged = sum(est.converged_ for est in model.estimators_)
    print(f"{name}: {converged} of {len(model.estimators_)} sub-problems "
          f"linearly separable on the training set; "
          f"test accuracy {model.score(X_test, y_test):.3f}")

# %%
# Accuracy and cost against the training set size
# ------------------------------------------------
# Averaged perceptrons with the default stopping rule.  The native
# one-vs-all of :class:`~sklearn_perceptrons.Perceptron` and
# :class:`~sklearn_perceptrons.OneVsAllPerceptron` learn the same rows;
# timings are medians of three fits.

models = {
    "Perceptron (native one-vs-all)": lambda: Perceptron(average=True),
    "OneVsAllPerceptron": lambda: OneVsAllPerceptron(Perceptron(average=True)),
    "OneVsOnePerceptron": lambda: OneVsOnePerceptron(Perceptron(average=True)),
}
sizes = [100, 200, 400, 800, len(y_train)]
accuracy = {name: [] for name in models}
fit_time = {name: [] for name in models}
predict_time = {name: [] for name in models}
for size in sizes:
    for name, make_model in models.items():
        fits, predicts = [], []
        for _ in range(3):
            model = make_model()
            start = perf_counter()
            model.fit(X_train[:size], y_train[:size])
            fits.append(perf_counter() - start)
            start = perf_counter()
            y_pred = model.predict(X_test)
            predicts.append(perf_counter() - start)
        accuracy[name].append(np.mean(y_pred == y_test))
        fit_time[name].append(1000 * np.median(fits))
        predict_time[name].append(1000 * np.median(predicts))

fig, axes = plt.subplots(1, 3, figsize=(12, 3.8))
for name in models:
    style = "--" if name.startswith("Perceptron") else "o-"
    axes[0].plot(sizes, accuracy[name], style, label=name)
    axes[1].plot(sizes, fit_time[name], style, label=name)
    axes[2].plot(sizes, predict_time[name], style, label=name)
for ax, label in zip(axes, ["test accuracy", "fit time (ms)", "predict time (ms)"]):
    ax.set_xlabel("training samples")
    ax.set_ylabel(label)
    ax.set_xscale("log")
axes[0].legend(fontsize=8)
fig.tight_layout()
plt.show()

# %%
# With the whole training set one-vs-one is the more accurate: every digit
# pair is linearly separable, "one digit vs. all the others" is not always.
# With few samples, one-vs-all, whose every sub-problem sees every sample,
# is ahead.  One-vs-one costs more to predict (45 dot products per sample
# instead of 10).  Its training is not 45/10 times slower: its sub-problems
# are trained together, in one compiled pass over X per epoch in which each
# sample updates only the 9 pairs of its class, and separable pairs stop
# early.  With many classes (say, hundreds), the
# quadratic number of pairs makes one-vs-all the practical choice again.
