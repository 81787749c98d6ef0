# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Benchmark P17 of PERFORMANCE.md: streaming one sample at a time.

One pass over a stream with ``Perceptron.partial_fit``, rows one at a time
and in batches of 32 and 256, against River's ``Perceptron.learn_one`` (with
``OneVsRestClassifier`` for 10 classes) when River is installed.  River is an
optional dependency of the benchmarks only; without it the River rows say so
and only our throughputs are reported.  Each library gets its input in its
own native form, made before the clock starts (NumPy rows for ours, dicts for
River); the runs alternate inside every repeat so both see the same load.
Holdout accuracy: one pass over the training stream, scored on held-out rows.
"""

import sys

import numpy as np
from sklearn.datasets import make_classification

from sklearn_perceptrons import Perceptron

from _common import format_table, interleaved_times, row, single_threaded

try:
    from river import linear_model as river_linear
    from river import multiclass as river_multiclass
except ImportError:  # River is optional
    river_linear = river_multiclass = None


def _stream(n_samples, n_classes, n_holdout):
    X, y = make_classification(
        n_samples + n_holdout, 20, n_informative=10, n_redundant=2,
        n_classes=n_classes, flip_y=0.01, random_state=0,
    )
    return X[:n_samples], y[:n_samples], X[n_samples:], y[n_samples:]


def _ours(X, y, classes, batch):
    """One pass of ``partial_fit`` over (X, y) in batches of ``batch`` rows."""
    batches = [(X[i:i + batch], y[i:i + batch])
               for i in range(0, X.shape[0], batch)]

    def go():
        clf = Perceptron()
        clf.partial_fit(*batches[0], classes=classes)
        for xb, yb in batches[1:]:
            clf.partial_fit(xb, yb)
        return clf

    return go


def _river(X, y, n_classes):
    """One pass of River's ``learn_one`` (None when River is absent)."""
    if river_linear is None:
        return None
    names = [f"x{j}" for j in range(X.shape[1])]
    dicts = [dict(zip(names, x)) for x in X.tolist()]
    labels = y.tolist() if n_classes > 2 else [bool(v) for v in y]

    def go():
        if n_classes > 2:
            model = river_multiclass.OneVsRestClassifier(river_linear.Perceptron())
        else:
            model = river_linear.Perceptron()
        for x, label in zip(dicts, labels):
            model.learn_one(x, label)
        return model

    return go, names


def _river_accuracy(model, names, X, y, n_classes):
    predicted = [model.predict_one(dict(zip(names, x))) for x in X.tolist()]
    if n_classes == 2:
        predicted = [int(bool(p)) for p in predicted]
    return float(np.mean(np.asarray(predicted) == y))


def stream_rows(n_samples, n_classes, repeats):
    """P17 on one stream: samples/s of ours (1, 32, 256 rows per call) and
    River's ``learn_one``, their ratio, and holdout accuracies."""
    X, y, X_hold, y_hold = _stream(n_samples, n_classes, n_holdout=1000)
    classes = np.unique(y)
    case = f"P17 stream {n_samples}x20, {n_classes} classes"
    ours = {batch: _ours(X, y, classes, batch) for batch in (1, 32, 256)}
    river = _river(X, y, n_classes)
    funcs = list(ours.values()) + ([river[0]] if river else [])
    times = interleaved_times(funcs, repeats=repeats)
    rate = {batch: n_samples / t for batch, t in zip(ours, times)}
    rows = [row(case, f"ours, {b} row(s) per call, samples/s", rate[b])
            for b in ours]
    accuracy = ours[1]().score(X_hold, y_hold)
    rows.append(row(case, "holdout accuracy, ours (1 row per call)", accuracy))
    if river is None:
        rows.append(row(case, "River learn_one", "River not installed"))
        return rows
    river_rate = n_samples / times[-1]
    river_accuracy = _river_accuracy(river[0](), river[1], X_hold, y_hold,
                                     n_classes)
    rows += [
        row(case, "River learn_one, samples/s", river_rate),
        row(case, "ours 1 row / River, throughput", rate[1] / river_rate,
            at_least=0.5),
        row(case, "ours 32 rows / River, throughput", rate[32] / river_rate),
        row(case, "ours 256 rows / River, throughput", rate[256] / river_rate),
        row(case, "holdout accuracy, River", river_accuracy),
        # Same algorithm, same order: the accuracies agree within noise.
        row(case, "holdout accuracy, ours - River", accuracy - river_accuracy,
            at_least=-0.02),
    ]
    return rows


def run(quick=True):
    """Measure P17; returns the table rows."""
    repeats = 5
    n_samples = 2000 if quick else 5000
    rows = []
    with single_threaded() as threads:
        rows.append(row("setting", "BLAS threads", threads))
        rows += stream_rows(n_samples, 2, repeats)
        rows += stream_rows(n_samples, 10, repeats)
    return rows


if __name__ == "__main__":
    print(format_table(run(quick="--full" not in sys.argv)))
