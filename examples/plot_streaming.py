"""
===========================================
Streaming: learning with ``partial_fit``
===========================================

A perceptron is an online algorithm: it looks at one sample at a time and
never needs to see it again.  ``partial_fit`` makes one pass over the batch it
is given, in order, continuing from the current weights, so a model can learn
from a stream that never fits in memory, batch after batch.  The first call
needs ``classes``, the list of every label the stream will contain.

Below, a stream of 100-sample batches.  Two measures of progress:

* *prequential* accuracy: each batch is predicted **before** the model learns
  from it (test-then-train), the honest accuracy of an online learner;
* accuracy on a fixed held-out test set after each batch.

The online mistake count is also bounded by theory, without any
separability: one pass of the perceptron over any sequence makes at most
:func:`~sklearn_perceptrons.bounds.hinge_mistake_bound` updates, for any
comparison vector.
"""

# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.preprocessing import StandardScaler

from sklearn_perceptrons import KernelPerceptron, MarginPerceptron, Perceptron
from sklearn_perceptrons.bounds import hinge_mistake_bound

X, y = make_classification(
    n_samples=12000, n_features=20, n_informative=5, n_clusters_per_class=2,
    class_sep=1.5, flip_y=0.02, random_state=0,
)
X = StandardScaler().fit_transform(X)
X_stream, y_stream = X[:10000], y[:10000]
X_test, y_test = X[10000:], y[10000:]
batches = np.array_split(np.arange(10000), 100)
classes = np.unique(y)

models = {
    "Perceptron": Perceptron(),
    "Perceptron(average=True)": Perceptron(average=True),
    "MarginPerceptron(average=True)": MarginPerceptron(average=True),
    "KernelPerceptron(average=True)": KernelPerceptron(average=True),
}

# %%
# Feed the stream, batch by batch, to every model.  The last iterate of the
# standard perceptron jumps after every mistake; averaging over all the
# samples seen smooths it out.  The kernel perceptron learns the non-linear
# part of the problem too (two clusters per class), at the price of a model
# that grows with every mistake; on an endless stream, give it a
# :ref:`budget <sphx_glr_auto_examples_plot_budget.py>`.
#
# The margin perceptron's default ``margin="auto"`` searches for its margin
# online too: when its updates exceed what the current margin allows, it
# halves the margin and restarts its run from ``w = 0``, and its average
# starts anew with the run.  A sharp, short dip of the held-out accuracy is
# such a restart.

prequential = {name: [] for name in models}
held_out = {name: [] for name in models}
for batch in batches:
    for name, model in models.items():
        if hasattr(model, "classes_"):  # test-then-train
            prequential[name].append(model.score(X_stream[batch], y_stream[batch]))
        model.partial_fit(X_stream[batch], y_stream[batch], classes=classes)
        held_out[name].append(model.score(X_test, y_test))

seen = np.cumsum([len(batch) for batch in batches])
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
for name in models:
    ax1.plot(seen[1:], np.cumsum(prequential[name]) / np.arange(1, len(seen)),
             label=name)
    ax2.plot(seen, held_out[name], label=name)
ax1.set_title("prequential accuracy (running mean)")
ax2.set_title("held-out test accuracy")
for ax in (ax1, ax2):
    ax.set_xlabel("samples seen")
ax1.set_ylabel("accuracy")
ax2.legend(fontsize=8, loc="lower right")
fig.tight_layout()

# %%
# The online mistake bound
# ------------------------
# After the stream, ``n_mistakes_`` holds the updates made by all the
# ``partial_fit`` calls together.  For the standard perceptron, the bound of
# :func:`~sklearn_perceptrons.bounds.hinge_mistake_bound` holds for *any*
# comparison vector ``(w, b)``: here the final averaged perceptron, a vector
# the learner could not know in advance.

stream_model = models["Perceptron"]
comparison = models["Perceptron(average=True)"]
bound = hinge_mistake_bound(
    X_stream, y_stream, comparison.coef_.ravel(), comparison.intercept_[0]
)
print(f"online updates of the perceptron: {stream_model.n_mistakes_}")
print(f"hinge-loss mistake bound with the averaged weights: {bound:.0f}")
assert stream_model.n_mistakes_ <= bound
plt.show()
