# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Benchmark P17 of benchmarks/TARGETS.rst: streaming one sample at a time.

One pass over a stream with ``Perceptron.partial_fit``, rows one at a time
and in batches of 32 and 256, against River's ``Perceptron.learn_one`` (with
``OneVsRestClassifier`` for 10 classes) when River is installed.  River is an
optional dependency of the benchmarks only; without it the River rows say so
and only our throughputs are reported.  Each library gets its input in its
own native form, made before the clock starts (NumPy rows for ours, dicts for
River); the runs alternate inside every repeat so both see the same load.
Holdout accuracy: one pass over the training stream, scored on held-out rows.
The last parts give the cost of one one-row ``partial_fit`` and ``predict``
call of every estimator that streams, beside River's ``learn_one`` and
``predict_one`` (the reductions of margin perceptrons included), and the
cost of calls of 1, 8 and 32 rows of
``MarginPerceptron``'s online margin search (``margin="auto"``) beside the
same calls with a fixed margin.
"""

import time

import numpy as np
from sklearn.base import clone
from sklearn.datasets import make_classification

from sklearn_perceptrons import (
    KernelPerceptron,
    MarginPerceptron,
    OneVsAllPerceptron,
    OneVsOnePerceptron,
    Perceptron,
    SecondOrderPerceptron,
)

from _common import format_table, interleaved_times, row, single_threaded, command_line

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


def _river_one_row(X, y, n_classes):
    """Seconds per ``learn_one`` and per ``predict_one`` of River's model
    (None when River is absent), one pass then predictions on the same rows."""
    river = _river(X, y, n_classes)
    if river is None:
        return None
    go, names = river
    dicts = [dict(zip(names, x)) for x in X.tolist()]
    learn = interleaved_times([go], repeats=3)[0] / X.shape[0]
    model = go()

    def predict():
        for x in dicts:
            model.predict_one(x)

    return learn, interleaved_times([predict], repeats=3)[0] / X.shape[0]


# Every estimator that streams, one row per call after a first call of 100
# rows (the rows of a one-row call stay one-row ndarrays, no copies).
STREAMING = {
    "Perceptron": Perceptron(),
    "Perceptron(average=True)": Perceptron(average=True),
    "MarginPerceptron(margin=0.1)": MarginPerceptron(margin=0.1),
    "MarginPerceptron(margin='auto')": MarginPerceptron(),
    "SecondOrderPerceptron": SecondOrderPerceptron(),
    "KernelPerceptron(rbf)": KernelPerceptron(kernel="rbf"),
    "OneVsAllPerceptron": OneVsAllPerceptron(),
    "OneVsOnePerceptron": OneVsOnePerceptron(),
    # Reductions of margin perceptrons: a fixed margin, and one online
    # margin search per binary problem.
    "OneVsAllPerceptron(MarginPerceptron(margin=0.1))":
        OneVsAllPerceptron(MarginPerceptron(margin=0.1)),
    "OneVsOnePerceptron(MarginPerceptron(margin=0.1))":
        OneVsOnePerceptron(MarginPerceptron(margin=0.1)),
    "OneVsAllPerceptron(MarginPerceptron(margin='auto'))":
        OneVsAllPerceptron(MarginPerceptron()),
    "OneVsOnePerceptron(MarginPerceptron(margin='auto'))":
        OneVsOnePerceptron(MarginPerceptron()),
}


def one_row_costs(n_classes, n_rows, repeats):
    """Microseconds of one one-row ``partial_fit`` and ``predict`` call of
    every streaming estimator (no target but P17's; beside River's
    ``learn_one``/``predict_one`` on the same rows)."""
    X, y, _, _ = _stream(n_rows + 100, n_classes, n_holdout=0)
    classes = np.unique(y)
    rows = [(X[i:i + 1], y[i:i + 1]) for i in range(100, X.shape[0])]
    case = f"one row per call, {n_classes} classes, us per call"
    out = []
    river = _river_one_row(X[100:], y[100:], n_classes)
    if river is not None:
        out += [row(case, "River learn_one", river[0] * 1e6),
                row(case, "River predict_one", river[1] * 1e6)]
    for name, template in STREAMING.items():
        def learn(template=template):
            est = clone(template).partial_fit(X[:100], y[:100], classes=classes)
            start = time.perf_counter()
            for xb, yb in rows:
                est.partial_fit(xb, yb)
            return time.perf_counter() - start, est

        times, fitted = [], None
        for _ in range(repeats):
            seconds, fitted = learn()
            times.append(seconds)
        predict = interleaved_times(
            [lambda: [fitted.predict(xb) for xb, _ in rows]], repeats=repeats)[0]
        out += [
            row(case, f"{name} partial_fit", float(np.median(times)) / len(rows) * 1e6),
            row(case, f"{name} predict", predict / len(rows) * 1e6),
        ]
    return out


def margin_search_costs(n_classes, n_rows, repeats):
    """Microseconds per ``partial_fit`` call of ``MarginPerceptron`` with the
    online margin search (``margin="auto"``) and with a fixed margin, calls
    of 1, 8 and 32 rows timed in alternation, and their ratio (no target)."""
    X, y, _, _ = _stream(n_rows + 100, n_classes, n_holdout=0)
    classes = np.unique(y)
    out = []
    for size in (1, 8, 32):
        calls = [(X[i:i + size], y[i:i + size]) for i in range(100, X.shape[0], size)]

        def learn(margin):
            est = MarginPerceptron(margin=margin).partial_fit(
                X[:100], y[:100], classes=classes)
            for xb, yb in calls:
                est.partial_fit(xb, yb)

        auto, fixed = interleaved_times(
            [lambda: learn("auto"), lambda: learn(0.1)], repeats=repeats)
        case = f"MarginPerceptron, {size} row(s) per call, {n_classes} classes"
        out += [row(case, "margin='auto' us per call", auto / len(calls) * 1e6),
                row(case, "margin=0.1 us per call", fixed / len(calls) * 1e6),
                row(case, "auto / fixed", auto / fixed,
                    note="the online search's bookkeeping over the plain pass")]
    return out


def run(quick=True):
    """Measure P17; returns the table rows."""
    repeats = 5
    n_samples = 2000 if quick else 5000
    rows = []
    with single_threaded() as threads:
        rows.append(row("setting", "BLAS threads", threads))
        rows += stream_rows(n_samples, 2, repeats)
        rows += stream_rows(n_samples, 10, repeats)
        rows += one_row_costs(2, 300 if quick else 1000, 3)
        rows += one_row_costs(10, 300 if quick else 1000, 3)
        rows += margin_search_costs(2, 640 if quick else 3200, repeats)
        rows += margin_search_costs(10, 640 if quick else 3200, repeats)
    return rows


if __name__ == "__main__":
    print(format_table(run(quick=not command_line(__doc__).full)))
