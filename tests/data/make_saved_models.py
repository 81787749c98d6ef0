# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Write the saved models that ``tests/test_persistence.py`` loads.

Run with the release to record, from the repository's root::

    python tests/data/make_saved_models.py

It writes ``tests/data/saved_<version>/``: every public estimator, fitted in
its main configurations, as a pickle and (when skops is installed) a skops
file, and ``expected.npz`` with what the saved model predicts and what it
predicts after one more ``partial_fit`` call.  Later releases must load
these files and give the same answers.
"""

import os
import pickle

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import make_blobs

import sklearn_perceptrons
from sklearn_perceptrons import (
    KernelPerceptron,
    MarginPerceptron,
    OneVsAllPerceptron,
    OneVsOnePerceptron,
    Perceptron,
    SecondOrderPerceptron,
    VotedPerceptron,
)

CASES = {
    "perceptron": (Perceptron, {}, "dense", 2),
    "perceptron-ova-average-csr32": (Perceptron, {"average": True}, "csr32", 3),
    "margin-auto": (MarginPerceptron, {}, "dense", 3),
    "second-order": (SecondOrderPerceptron, {}, "dense", 2),
    "kernel-rbf": (KernelPerceptron, {"average": True}, "dense", 3),
    "kernel-budget": (KernelPerceptron, {"budget": 10}, "dense", 2),
    "voted": (VotedPerceptron, {}, "dense", 3),
    "ova": (OneVsAllPerceptron, {}, "dense", 3),
    "ovo-margin": (OneVsOnePerceptron, {"estimator": MarginPerceptron()}, "dense", 3),
}


def data(kind, n_classes, seed=0):
    X, y = make_blobs(n_samples=60, centers=n_classes, n_features=4,
                      cluster_std=2.5, random_state=seed)
    labels = np.array(["ant", "bee", "cat"])[y]
    if kind == "csr32":
        X = X.astype(np.float32)
        X[np.abs(X) < 1.0] = 0.0
        X = sp.csr_matrix(X)
    return X, labels


def main():
    folder = os.path.join(os.path.dirname(__file__),
                          f"saved_{sklearn_perceptrons.__version__}")
    os.makedirs(folder, exist_ok=True)
    try:
        import skops.io as sio
    except ImportError:
        sio = None
    expected = {}
    for name, (cls, params, kind, n_classes) in sorted(CASES.items()):
        X, y = data(kind, n_classes)
        model = cls(**params).fit(X, y)
        with open(os.path.join(folder, f"{name}.pkl"), "wb") as f:
            pickle.dump(model, f)
        if sio is not None:
            sio.dump(model, os.path.join(folder, f"{name}.skops"))
        expected[f"{name}/decision"] = model.decision_function(X)
        expected[f"{name}/predict"] = model.predict(X)
        if hasattr(model, "partial_fit"):
            X_more, y_more = data(kind, n_classes, seed=1)
            model.partial_fit(X_more, y_more)
            expected[f"{name}/decision_after_partial_fit"] = \
                model.decision_function(X)
    np.savez(os.path.join(folder, "expected.npz"), **expected)


if __name__ == "__main__":
    main()
