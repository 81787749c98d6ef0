# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Benchmarks P1-P6, P9, P10 and P13 (threads) of TARGETS.rst for ``Perceptron``.

Each figure is a ratio measured side by side in this process: against one pass
``X @ w`` over the same X (the floor of an epoch) and against scikit-learn's
``Perceptron`` on the same epochs.  Per-epoch times come from fits of a fixed
number of epochs (``tol=None``) on data with label noise, so that neither
estimator stops early.  Accuracies on held-out data are reported beside them.

Run ``python benchmarks/bench_linear.py [--full]``.
"""

import os
import time
import tracemalloc
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_digits, load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_perceptrons import Perceptron

from _common import (
    command_line,
    cv_accuracy,
    format_table,
    interleaved_times,
    median_per_call,
    row,
    single_threaded,
    two_thread_ratio,
)

EPOCHS = 10


def noisy_linear_data(n_samples, n_features, n_classes=2, dtype=np.float64, seed=0):
    """Gaussian features, labels from random hyperplanes plus 10% label noise."""
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n_samples, n_features)).astype(dtype)
    if n_classes == 2:
        y = (X @ rng.standard_normal(n_features) > 0).astype(np.int64)
    else:
        y = np.argmax(X @ rng.standard_normal((n_features, n_classes)), axis=1)
    flip = rng.rand(n_samples) < 0.1
    y[flip] = rng.randint(0, n_classes, size=flip.sum())
    return X, y


def sparse_data(n_samples, n_features, nnz_per_row, seed=0):
    """CSR X in canonical form (what vectorizers make): exactly
    ``nnz_per_row`` distinct, sorted column indices per row.  (Duplicate
    entries would make ``fit`` sum them in a copy of X first.)"""
    rng = np.random.RandomState(seed)
    indices = np.sort(
        rng.randint(0, n_features, size=(n_samples, nnz_per_row)), axis=1
    )
    while True:
        repeated = np.flatnonzero((np.diff(indices, axis=1) == 0).any(axis=1))
        if not repeated.size:
            break
        indices[repeated] = np.sort(
            rng.randint(0, n_features, size=(repeated.size, nnz_per_row)), axis=1
        )
    indices = indices.astype(np.int32).ravel()
    data = rng.standard_normal(n_samples * nnz_per_row)
    indptr = np.arange(0, n_samples * nnz_per_row + 1, nnz_per_row, dtype=np.int32)
    X = sp.csr_matrix((data, indices, indptr), shape=(n_samples, n_features))
    w = rng.standard_normal(n_features)
    y = (X @ w > 0).astype(np.int64)
    flip = rng.rand(n_samples) < 0.1
    y[flip] = 1 - y[flip]
    return X, y


def _fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        estimator.fit(X, y)
    return estimator


def epoch_ratios(case, X, y, *, shuffle, repeats, compare_sklearn=True,
                 floor_target=None, sklearn_target=None):
    """Per-epoch time of Perceptron vs one X @ w (or X @ W) and scikit-learn."""
    n_classes = len(np.unique(y))
    rng = np.random.RandomState(1)
    w = rng.standard_normal((X.shape[1], n_classes if n_classes > 2 else 1))
    w = w.astype(X.dtype)
    if n_classes == 2:
        w = w.ravel()
    ours = Perceptron(shuffle=shuffle, tol=None, max_iter=EPOCHS)
    funcs = [lambda: X @ w, lambda: _fit(ours, X, y)]
    if compare_sklearn:
        theirs = SklearnPerceptron(shuffle=shuffle, tol=None, max_iter=EPOCHS,
                                   random_state=0)
        funcs.append(lambda: _fit(theirs, X, y))
    times = interleaved_times(funcs, repeats=repeats)
    floor, ours_epoch = times[0], times[1] / EPOCHS
    assert ours.n_iter_ == EPOCHS
    rows = [row(case, "ours per epoch / floor", ours_epoch / floor,
                at_most=floor_target)]
    if compare_sklearn:
        sk_epoch = times[2] / EPOCHS
        rows.append(row(case, "ours / scikit-learn per epoch", ours_epoch / sk_epoch,
                        at_most=sklearn_target))
        rows.append(row(case, "scikit-learn per epoch / floor", sk_epoch / floor))
    return rows, ours_epoch


def per_call_ratios(n_classes, repeats):
    """P5 and P6: partial_fit and predict on one row, per call."""
    X, y = noisy_linear_data(2000, 50, n_classes=n_classes)
    classes = np.unique(y)
    ours, theirs = Perceptron(), SklearnPerceptron()
    ours.partial_fit(X[:200], y[:200], classes=classes)
    theirs.partial_fit(X[:200], y[:200], classes=classes)
    x1, y1 = X[500:501], y[500:501]
    case = f"1 row, {n_classes} classes"
    pf_ours = median_per_call(lambda: ours.partial_fit(x1, y1), 2000, repeats)
    pf_theirs = median_per_call(lambda: theirs.partial_fit(x1, y1), 300, repeats)
    pr_ours = median_per_call(lambda: ours.predict(x1), 2000, repeats)
    pr_theirs = median_per_call(lambda: theirs.predict(x1), 1000, repeats)
    return [
        row(case, "partial_fit ours / scikit-learn", pf_ours / pf_theirs,
            at_most=0.1, note=f"{pf_ours * 1e6:.1f} us vs {pf_theirs * 1e6:.1f} us"),
        row(case, "predict ours / scikit-learn", pr_ours / pr_theirs, at_most=0.3,
            note=f"{pr_ours * 1e6:.1f} us vs {pr_theirs * 1e6:.1f} us"),
    ]


def threads_rows(repeats):
    """P13 (information): fit with n_jobs=2 against n_jobs=1 on 10 classes,
    and whether the two models are identical bit for bit.

    The time ratio has no target: with results bit-identical to one thread
    only a split by weight rows is possible, and each thread still pays the
    per-sample cost of reading every row (P13's target is on
    ``KernelPerceptron.predict``, in bench_kernel.py).

    At Perceptron's defaults the epochs are shuffled: each thread trains its
    own rows and reads the rows of X in the same random order, so the
    random reads of X, about half of a one-thread epoch here, are made by
    both threads.  The load and the reference two-thread ratio are noted
    beside the ratio (near 1: no second core was free)."""
    X, y = noisy_linear_data(100_000, 50, n_classes=10)
    one = Perceptron(n_jobs=1, tol=None, max_iter=EPOCHS)
    two = Perceptron(n_jobs=2, tol=None, max_iter=EPOCHS)
    load, reference = os.getloadavg()[0], two_thread_ratio()
    times = interleaved_times([lambda: _fit(one, X, y), lambda: _fit(two, X, y)],
                              repeats=repeats)
    # CPU time of all threads: on a loaded machine (where the scheduler may
    # give a process one share however many threads it runs) the wall-time
    # ratio says little, this one says what the threads cost.
    cpu = [np.median([_cpu_time(lambda: _fit(est, X, y)) for _ in range(3)])
           for est in (one, two)]
    case = "P13 dense 100000x50, 10 classes, n_jobs=2"
    identical = (np.array_equal(one.coef_, two.coef_)
                 and np.array_equal(one.intercept_, two.intercept_))
    return [
        row(case, "n_jobs=2 / n_jobs=1 fit time (information)",
            times[1] / times[0],
            note=f"{times[1]:.3f} s vs {times[0]:.3f} s, load {load:.1f}, "
                 f"reference two-thread ratio {reference:.2f}"),
        row(case, "n_jobs=2 / n_jobs=1 CPU time of all threads", cpu[1] / cpu[0]),
        row(case, "identical coef_ and intercept_", identical, at_least=1),
    ]


def _cpu_time(func):
    start = time.process_time()
    func()
    return time.process_time() - start


def memory_row(n_samples, n_features):
    """P9: peak extra memory of fit on a float32 X, as a share of X."""
    X, y = noisy_linear_data(n_samples, n_features, dtype=np.float32)
    estimator = Perceptron(max_iter=2, tol=None, shuffle=True)
    tracemalloc.start()
    try:
        _fit(estimator, X, y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    share = peak / X.nbytes
    return row(f"float32 {n_samples}x{n_features} fit", "peak extra memory / X",
               share, at_most=0.10,
               note=f"{peak / 2**20:.1f} MiB over {X.nbytes / 2**20:.0f} MiB")


def accuracy_rows():
    """Accuracy of ours and scikit-learn's on bundled data sets, as the mean
    and spread over 10 x 5-fold cross-validation (one split misleads)."""
    rows = []
    for name, loader in [("iris", load_iris), ("digits", load_digits),
                         ("breast_cancer", load_breast_cancer)]:
        X, y = loader(return_X_y=True)
        for label, estimator in [
            ("ours", Perceptron()),
            ("ours, average=True", Perceptron(average=True)),
            ("scikit-learn", SklearnPerceptron(random_state=0)),
        ]:
            mean, std = cv_accuracy(make_pipeline(StandardScaler(), estimator),
                                    X, y)
            rows.append(row(f"{name}, standardized, 10 x 5-fold CV",
                            f"accuracy, {label}", mean, spread=std))
    return rows


def run(quick=True):
    """Measure P1-P6, P9, P10, P13; returns the table rows."""
    repeats = 5
    rows = []
    with single_threaded() as threads:
        rows.append(row("setting", "BLAS threads", threads))
        X, y = noisy_linear_data(200_000, 50)
        r, epoch64 = epoch_ratios("P1 dense 200000x50 binary", X, y, shuffle=False,
                                  repeats=repeats, floor_target=1.5,
                                  sklearn_target=0.6)
        rows += r
        r, _ = epoch_ratios("P2 dense 200000x50 shuffle", X, y, shuffle=True,
                            repeats=repeats, compare_sklearn=True,
                            floor_target=3)
        rows += r
        X32 = X.astype(np.float32)
        _, epoch32 = epoch_ratios("P10 float32 200000x50", X32, y, shuffle=False,
                                  repeats=repeats, compare_sklearn=False)
        rows.append(row("P10 dense 200000x50", "float32 / float64 per epoch",
                        epoch32 / epoch64, at_most=1.0))
        del X, X32
        X, y = noisy_linear_data(50_000, 500)
        rows += epoch_ratios("P1 dense 50000x500 binary", X, y, shuffle=False,
                             repeats=repeats, floor_target=1.5,
                             sklearn_target=0.6)[0]
        del X
        n, d = (200_000, 100_000) if not quick else (50_000, 100_000)
        X, y = sparse_data(n, d, 100)
        rows += epoch_ratios(f"P3 CSR {n}x{d}, 100 nnz/row", X, y, shuffle=False,
                             repeats=repeats, floor_target=1.2,
                             sklearn_target=1.0)[0]
        del X
        X, y = noisy_linear_data(100_000, 50, n_classes=10)
        rows += epoch_ratios("P4 dense 100000x50, 10 classes", X, y, shuffle=False,
                             repeats=repeats, floor_target=2,
                             sklearn_target=0.3)[0]
        del X
        rows += threads_rows(repeats)
        rows += per_call_ratios(2, repeats)
        rows += per_call_ratios(10, repeats)
        rows.append(memory_row(*((500_000, 200) if not quick else (100_000, 200))))
    rows += accuracy_rows()
    return rows


if __name__ == "__main__":
    print(format_table(run(quick=not command_line(__doc__).full)))
