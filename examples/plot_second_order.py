"""
=====================================================
The second-order perceptron on correlated features
=====================================================

The perceptron updates along the sample it erred on, ``w += s x``: on
features that are correlated or of very different scales, that direction is a
poor one, and its mistake bound ``(R / gamma)**2`` pays for the largest
scale.  The second-order perceptron (Cesa-Bianchi, Conconi & Gentile, 2005)
updates along ``A^-1 x`` instead, with ``A = a I + sum x x^T`` over its past
mistakes: it whitens the data by what its mistakes revealed, at O(d²) per
mistake.

Below, one pass over a stream of 20 correlated features spread over two
decades of scale, with labels from a hyperplane plus noise in the score, for
both algorithms (and the diagonal variant, which only rescales the
features).  The mistakes are counted online: each sample is predicted before
the model learns from it.  On the right, a fit's mistakes are checked against
the paper's Theorem 1, computed by
:func:`~sklearn_perceptrons.bounds.second_order_mistake_bound`.
"""

# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause

import matplotlib.pyplot as plt
import numpy as np

from sklearn_perceptrons import Perceptron, SecondOrderPerceptron
from sklearn_perceptrons.bounds import second_order_mistake_bound

rng = np.random.RandomState(0)
n_samples, n_features = 4000, 20
mixing = rng.standard_normal((n_features, n_features))
X = (rng.standard_normal((n_samples, n_features)) @ mixing
     * np.logspace(0, -2, n_features))
score = X @ rng.standard_normal(n_features)
y = (score + 0.1 * score.std() * rng.standard_normal(n_samples) > 0).astype(int)

# %%
# One pass, in batches of 100 samples: the mistakes of a ``partial_fit`` call
# are made on samples the model had not learned from yet.
models = {
    "Perceptron": Perceptron(),
    "SecondOrderPerceptron": SecondOrderPerceptron(),
    "SecondOrderPerceptron(diagonal=True)": SecondOrderPerceptron(diagonal=True),
}
batches = np.array_split(np.arange(n_samples), n_samples // 100)
curves = {}
for name, model in models.items():
    counts = []
    for batch in batches:
        model.partial_fit(X[batch], y[batch], classes=[0, 1])
        counts.append(model.n_mistakes_)
    curves[name] = counts
    print(f"{name:40s} {model.n_mistakes_:5d} mistakes in one pass")

# %%
# Theorem 1 against the mistakes of a short stream, fed one sample at a time
# to know which ones were mistakes; the comparison vector ``u`` is the true
# hyperplane, normalized, and ``gamma`` a margin level.
short = 400
model = SecondOrderPerceptron(fit_intercept=False)
mistakes = []
for i in range(short):
    before = getattr(model, "n_mistakes_", 0)
    model.partial_fit(X[i:i + 1], y[i:i + 1], classes=[0, 1])
    if model.n_mistakes_ > before:
        mistakes.append(i)
u = np.linalg.lstsq(X, score, rcond=None)[0]
u /= np.linalg.norm(u)
gammas = np.logspace(-3, 0, 30)
bounds = [
    second_order_mistake_bound(X[mistakes], y[mistakes], u, gamma=gamma,
                               fit_intercept=False, classes=[0, 1])
    for gamma in gammas
]

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
seen = [batch[-1] + 1 for batch in batches]
for name, counts in curves.items():
    left.plot(seen, counts, label=name)
left.set_xlabel("samples seen")
left.set_ylabel("mistakes so far")
left.set_title("One pass over a noisy stream")
left.legend()
right.loglog(gammas, bounds, label="Theorem 1 bound")
right.axhline(model.n_mistakes_, color="k", linestyle="--",
              label=f"mistakes made ({model.n_mistakes_})")
right.set_xlabel("gamma")
right.set_ylabel("mistakes")
right.set_title(f"The bound holds for every gamma ({short} samples)")
right.legend()
fig.tight_layout()
plt.show()
