"""
=====================================================================
The online family on handwritten digits: PA, ALMA, ROMMA and AROW
=====================================================================

Four online linear learners share the perceptron's machinery and differ in
when they update and by how much: the passive-aggressive rules (Crammer et
al., 2006) take the smallest step that gives a sample a margin of 1, capped
(PA-I) or softened (PA-II) by ``C``; ALMA (Gentile, 2001) approximates the
maximum-margin hyperplane with a schedule of margins and steps; ROMMA (Li &
Long, 2002) solves a relaxed maximum-margin problem at every update; AROW
(Crammer, Kulesza & Dredze, 2009) keeps a variance per direction of the
weights, so that well-confirmed directions move little.

Below, on scikit-learn's bundled handwritten digits (1,797 images of 8 x 8
pixels, 10 classes, standardized), each learner makes one pass over a
stream: every image is predicted before the model learns from it, so the
left panel shows the *online* error rate as the stream goes on.  The right
panel shows the test accuracy after ``fit`` for a few epochs on 70% of the
images, against the averaged perceptron and a linear SVM.
"""

# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause

import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from sklearn_perceptrons import (
    ALMAClassifier,
    AROWClassifier,
    PassiveAggressiveClassifier,
    Perceptron,
    ROMMAClassifier,
)

X, y = load_digits(return_X_y=True)
X = StandardScaler().fit_transform(X)
classes = np.unique(y)
order = np.random.RandomState(0).permutation(X.shape[0])
X_stream, y_stream = X[order], y[order]


def learners():
    return {
        "Perceptron": Perceptron(),
        "PA-I (C=0.1)": PassiveAggressiveClassifier(C=0.1, random_state=0),
        "PA-II (C=0.1)": PassiveAggressiveClassifier(C=0.1, loss="squared_hinge",
                                                     random_state=0),
        "ALMA (alpha=0.9)": ALMAClassifier(),
        "ROMMA (aggressive)": ROMMAClassifier(aggressive=True),
        "AROW (r=10)": AROWClassifier(r=10.0),
        "AROW diagonal (r=10)": AROWClassifier(r=10.0, diagonal=True),
    }


# %%
# One pass, one image at a time: predict, then learn.
curves = {}
for name, model in learners().items():
    wrong = np.zeros(X_stream.shape[0])
    model.partial_fit(X_stream[:1], y_stream[:1], classes=classes)
    for i in range(1, X_stream.shape[0]):
        row = X_stream[i:i + 1]
        wrong[i] = model.predict(row)[0] != y_stream[i]
        model.partial_fit(row, y_stream[i:i + 1])
    curves[name] = np.cumsum(wrong) / np.arange(1, X_stream.shape[0] + 1)
    print(f"{name:24s} online error rate after one pass: {curves[name][-1]:.3f}")

# %%
# A few epochs of ``fit`` on a training split, scored on the rest.
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.3, stratify=y, random_state=0)
scores = {}
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    for name, model in learners().items():
        model.set_params(max_iter=10)
        scores[name] = model.fit(X_train, y_train).score(X_test, y_test)
    scores["Perceptron (average)"] = Perceptron(average=True, max_iter=10).fit(
        X_train, y_train).score(X_test, y_test)
    scores["LinearSVC"] = LinearSVC().fit(X_train, y_train).score(X_test, y_test)
for name, score in scores.items():
    print(f"{name:24s} test accuracy {score:.3f}")

fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
seen = np.arange(1, X_stream.shape[0] + 1)
for name, curve in curves.items():
    left.plot(seen[20:], curve[20:], label=name)
left.set_xlabel("images seen")
left.set_ylabel("online error rate so far")
left.set_title("One pass over the digits stream")
left.legend(fontsize="small")
names = list(scores)
right.barh(names, [scores[n] for n in names], color="tab:blue")
right.set_xlim(min(scores.values()) - 0.05, 1.0)
right.set_xlabel("test accuracy after fit (10 epochs at most)")
right.set_title("Fit on 70% of the digits")
fig.tight_layout()
plt.show()
