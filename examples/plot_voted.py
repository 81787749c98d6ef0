"""
=========================================
The voted perceptron against the average
=========================================

Freund and Schapire's voted perceptron keeps every perceptron that training
goes through, each with the number of visits it survived, and predicts by
their weighted vote: ``sign(sum_k c_k sign(w_k . x))``.  The averaged
perceptron replaces ``sign(w_k . x)`` by ``w_k . x``, so that the sum
collapses to one weight vector.  The paper found the two about equally
accurate on handwritten digits, and both better than the last perceptron,
most of all after few epochs.

Below, on the bundled 8x8 digits (standardized), the test accuracy of the
three predictors of the same run after each number of epochs (left), and
what the vote costs: it stores every mistake, and a prediction walks them
all (right).
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

from sklearn_perceptrons import Perceptron, VotedPerceptron

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(
    StandardScaler().fit_transform(X), y, test_size=0.5, random_state=0
)

epochs = np.arange(1, 11)
accuracy = {"vote": [], "average": [], "last": []}
mistakes, vote_ms, average_ms = [], [], []
with warnings.catch_warnings():
    # A fixed number of epochs on data that are not separable.
    warnings.simplefilter("ignore", ConvergenceWarning)
    for max_iter in epochs:
        # The same random_state gives the three predictors the same run.
        vote = VotedPerceptron(max_iter=max_iter).fit(X_train, y_train)
        average = Perceptron(average=True, max_iter=max_iter, tol=None)
        last = Perceptron(max_iter=max_iter, tol=None)
        average.fit(X_train, y_train)
        last.fit(X_train, y_train)
        for name, model in (("vote", vote), ("average", average), ("last", last)):
            accuracy[name].append(model.score(X_test, y_test))
        mistakes.append(vote.n_mistakes_)
        for model, times in ((vote, vote_ms), (average, average_ms)):
            start = perf_counter()
            model.predict(X_test)
            times.append((perf_counter() - start) * 1e3)

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
for name, style in (("vote", "o-"), ("average", "s--"), ("last", "^:")):
    left.plot(epochs, accuracy[name], style, label=name)
left.set_xlabel("epochs")
left.set_ylabel("test accuracy")
left.set_title("Digits, one-vs-all, linear")
left.legend()

right.plot(epochs, mistakes, "o-", color="C0")
right.set_xlabel("epochs")
right.set_ylabel("stored mistakes (perceptrons)", color="C0")
twin = right.twinx()
twin.plot(epochs, vote_ms, "s--", color="C3", label="vote")
twin.plot(epochs, average_ms, "^:", color="C2", label="average")
twin.set_ylabel(f"predict time for {len(X_test)} rows (ms)")
twin.legend(loc="center right")
right.set_title("The cost of the vote")
fig.tight_layout()
plt.show()

for name, values in accuracy.items():
    print(f"{name:8s} " + " ".join(f"{v:.3f}" for v in values))
