# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The voted perceptron: prediction cost and accuracy (issue #20).

Prediction: batch ``predict`` of 10,000 rows after ``fit`` with 10 epochs, on
standardized digits (1,347 training rows; the 450 test rows tiled to 10,000)
and on make_moons(20,000, noise=0.2) (15,000 training rows, 10,000 fresh test
rows), for ``VotedPerceptron`` against ``Perceptron(average=True)`` (linear)
and ``KernelPerceptron(average=True)`` (rbf), both 10 epochs (``tol=None``).
The vote costs O(n_mistakes * n_features) per row where the averaged
perceptron costs O(n_features) (linear) or O(n_SV * n_features) (rbf), so
the rows report the ratio and the time per row and per stored mistake.

Accuracy: 5-fold cross-validated accuracy (mean and standard deviation) of
the vote, the average and the last perceptron of the same run (same
``random_state``, hence the same epoch orders) after 1 and 10 epochs, on
standardized digits and on a standardized make_classification(5,000
samples, 20 features, 10 classes, 2% label noise), linear and rbf: the
comparison of Freund & Schapire (1999), whose shape is vote ~ average >
last.  The accuracy rows of the vote carry a target: at least the last
perceptron's mean minus 0.005.

Times are medians of 5 repeats in alternation, BLAS limited to one thread.
Run ``python benchmarks/bench_voted.py [--full]`` (quick mode: 10 epochs only
in the accuracy table).
"""

import warnings

import numpy as np
from sklearn.datasets import load_digits, make_classification, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.preprocessing import StandardScaler

from sklearn_perceptrons import KernelPerceptron, Perceptron, VotedPerceptron

from _common import format_table, interleaved_times, row, single_threaded, command_line

N_PREDICT = 10_000


def _fit(estimator, X, y):
    with warnings.catch_warnings():
        # A fixed number of epochs on data that are not separable.
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(X, y)


def _models(kernel, max_iter):
    """The vote, the average and the last perceptron of the same run."""
    if kernel == "linear":
        def base(average):
            return Perceptron(average=average, max_iter=max_iter, tol=None)
    else:
        def base(average):
            return KernelPerceptron(kernel=kernel, average=average,
                                    max_iter=max_iter, tol=None)
    return {
        "vote": VotedPerceptron(kernel=kernel, max_iter=max_iter),
        "average": base(True),
        "last": base(False),
    }


def _digits():
    X, y = load_digits(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _classification():
    X, y = make_classification(
        n_samples=5000, n_features=20, n_informative=15, n_redundant=3,
        n_classes=10, flip_y=0.02, random_state=0,
    )
    return StandardScaler().fit_transform(X), y


def prediction_rows(repeats):
    X, y = _digits()
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.25,
                                                   random_state=0)
    cases = [("digits", X_train, y_train, np.resize(X_test, (N_PREDICT, 64)))]
    X, y = make_moons(20000, noise=0.2, random_state=0)
    X_train, _, y_train, _ = train_test_split(X, y, test_size=0.25,
                                              random_state=0)
    cases.append(("moons 20000", X_train, y_train,
                  make_moons(N_PREDICT, noise=0.2, random_state=1)[0]))
    rows = []
    for name, X_train, y_train, X_predict in cases:
        for kernel in ("linear", "rbf"):
            models = _models(kernel, 10)
            vote, average = models["vote"], models["average"]
            _fit(vote, X_train, y_train)
            _fit(average, X_train, y_train)
            vote_time, average_time = interleaved_times(
                [lambda: vote.predict(X_predict), lambda: average.predict(X_predict)],
                repeats,
            )
            case = f"predict {N_PREDICT} rows, {name}, {kernel}"
            rows += [
                row(case, "voted / averaged predict time",
                    vote_time / average_time,
                    note=f"{vote_time * 1e3:.1f} ms vs {average_time * 1e3:.1f} ms"),
                row(case, "voted: ns per row per stored mistake",
                    vote_time / (N_PREDICT * vote.n_mistakes_) * 1e9,
                    note=f"{vote.n_mistakes_} mistakes, "
                         f"{vote.support_.shape[0]} support vectors"),
            ]
    return rows


def accuracy_rows(epochs):
    rows = []
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    for name, (X, y) in [("digits", _digits()),
                         ("make_classification 10 classes", _classification())]:
        for kernel in ("linear", "rbf"):
            for max_iter in epochs:
                scores = {label: [] for label in ("vote", "average", "last")}
                for train, test in folds.split(X, y):
                    for label, model in _models(kernel, max_iter).items():
                        _fit(model, X[train], y[train])
                        scores[label].append(model.score(X[test], y[test]))
                last = float(np.mean(scores["last"]))
                case = f"accuracy, {name}, {kernel}, {max_iter} epochs"
                for label, values in scores.items():
                    target = {"at_least": round(last - 0.005, 4)} \
                        if label == "vote" else {}
                    rows.append(row(case, f"{label}: 5-fold mean",
                                    float(np.mean(values)),
                                    note=f"std {np.std(values):.3f}", **target))
    return rows


def run(quick=True):
    """Measure the voted perceptron; returns the table rows."""
    rows = []
    with single_threaded() as threads:
        rows.append(row("setting", "BLAS threads", threads))
        rows += prediction_rows(repeats=5)
        rows += accuracy_rows([10] if quick else [1, 10])
    return rows


if __name__ == "__main__":
    print(format_table(run(quick=not command_line(__doc__).full)))
