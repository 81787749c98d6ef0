# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Benchmark P8 of benchmarks/TARGETS.rst: the multiclass reductions' fast path.

``OneVsOnePerceptron(Perceptron())`` against scikit-learn's
``OneVsOneClassifier(Perceptron())`` at 10 classes, and the one-vs-all
equivalent against ``OneVsRestClassifier(Perceptron())``, timed side by side
in this process (medians of interleaved repeats, BLAS limited to one thread).

Two settings are compared:

* *fixed epochs*: ``max_iter=10, tol=None, shuffle=False`` for both, so every
  binary problem runs exactly 10 cyclic epochs on either side (the data have
  label noise, so no problem converges early): the same work, epoch for
  epoch;
* *defaults*: both estimators' default parameters (shuffle, ``tol=1e-3``).
  The ``tol`` rules differ (ours counts updates, scikit-learn's watches the
  loss), so the epochs run differ too; the held-out accuracies are reported
  beside the ratio.

Held-out accuracies on the synthetic data and on scikit-learn's bundled
digits are reported for both packages.

P13 (threads): the fast path of ``OneVsOnePerceptron(Perceptron(),
n_jobs=2)`` and of ``OneVsAllPerceptron`` against ``n_jobs=1`` on the
10-class data (fixed 10 epochs), timed in alternation (medians), reported
as information (no target: P13's target is on ``KernelPerceptron.predict``),
with a row that says whether the binary estimators are identical bit for
bit (required).  The load average is noted beside the ratio.  The
threads split the binary problems, not the samples (a row's updates depend
on the order of its samples), so each thread walks all of X: the gain is
bounded by the cost of reading X once per thread.

Run ``python benchmarks/bench_multiclass.py [--full]``.
"""

import os
import warnings

import numpy as np
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.model_selection import train_test_split
from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier

from sklearn_perceptrons import OneVsAllPerceptron, OneVsOnePerceptron, Perceptron

try:
    from benchmarks._common import (
        command_line, cv_accuracy, format_table, interleaved_times, row, single_threaded,
        two_thread_ratio,
    )
except ImportError:  # run as a script from the benchmarks folder
    from _common import (
        command_line, cv_accuracy, format_table, interleaved_times, row, single_threaded,
        two_thread_ratio,
    )

N_CLASSES = 10
TARGET = 0.25  # fit time of ours / scikit-learn's


def ten_class_data(n_samples, n_features, seed=0):
    """Gaussian features, labels of 10 random hyperplanes, 10% label noise."""
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n_samples, n_features))
    y = np.argmax(X @ rng.standard_normal((n_features, N_CLASSES)), axis=1)
    flip = rng.rand(n_samples) < 0.1
    y[flip] = rng.randint(0, N_CLASSES, size=flip.sum())
    return X, y


def _fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(X, y)


def compare(case, ours, theirs, X_train, y_train, X_test, y_test, repeats):
    """Rows of one comparison: the fit-time ratio and both accuracies."""
    t_ours, t_theirs = interleaved_times(
        [lambda: _fit(ours, X_train, y_train), lambda: _fit(theirs, X_train, y_train)],
        repeats=repeats,
    )
    acc_ours = _fit(ours, X_train, y_train).score(X_test, y_test)
    acc_theirs = _fit(theirs, X_train, y_train).score(X_test, y_test)
    note = (f"ours {t_ours * 1e3:.1f} ms, scikit-learn {t_theirs * 1e3:.1f} ms; "
            f"accuracy ours {acc_ours:.3f}, scikit-learn {acc_theirs:.3f}")
    return [row(case, "fit time / scikit-learn", t_ours / t_theirs, at_most=TARGET,
                note=note)]


def thread_rows(case, Meta, params, X, y, repeats):
    """P13 rows (information): the fast path with two threads against one.

    The time ratio has no target (P13's is on ``KernelPerceptron.predict``):
    the pairs or rows split between threads each read every row of X.
    Identical results are still required."""
    one, two = Meta(Perceptron(**params)), Meta(Perceptron(**params), n_jobs=2)
    load, reference = os.getloadavg()[0], two_thread_ratio()
    t_one, t_two = interleaved_times(
        [lambda: _fit(one, X, y), lambda: _fit(two, X, y)], repeats=repeats
    )
    identical = all(
        np.array_equal(a.coef_, b.coef_) and np.array_equal(a.intercept_, b.intercept_)
        and a.n_mistakes_ == b.n_mistakes_
        for a, b in zip(_fit(one, X, y).estimators_, _fit(two, X, y).estimators_)
    )
    return [
        row(case, "fit time n_jobs=2 / n_jobs=1 (information)", t_two / t_one,
            note=f"{t_one * 1e3:.1f} / {t_two * 1e3:.1f} ms, "
                 f"{os.cpu_count()} CPUs, load {load:.1f}, reference "
                 f"two-thread ratio {reference:.2f}"),
        row(case, "estimators identical to n_jobs=1", identical, at_least=True),
    ]


def accuracy_rows(case, pairs, X, y):
    """Mean ± spread of the accuracy over 10 x 5-fold cross-validation."""
    rows = []
    for name, estimator in pairs:
        mean, std = cv_accuracy(estimator, X, y)
        rows.append(row(case, f"accuracy, {name}", mean, spread=std))
    return rows


def run(quick=True):
    """Measure P8 (one-vs-one and one-vs-all, 10 classes); returns table rows."""
    # The targets ask for medians of at least 5 repeats.
    repeats = 5 if quick else 7
    n_samples, n_features = (20_000, 50) if quick else (100_000, 50)
    X, y = ten_class_data(n_samples, n_features)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.25, random_state=0
    )
    fixed = dict(max_iter=10, tol=None, shuffle=False)
    shape = f"{X_train.shape[0]}x{n_features}, 10 classes"
    rows = []
    with single_threaded() as threads:
        rows.append(row("setting", "BLAS threads", threads))
        for label, params in (("fixed 10 epochs", fixed), ("defaults", {})):
            rows += compare(
                f"P8 one-vs-one {shape}, {label}",
                OneVsOnePerceptron(Perceptron(**params)),
                OneVsOneClassifier(SklearnPerceptron(**params)),
                X_train, y_train, X_test, y_test, repeats,
            )
            rows += compare(
                f"P8 one-vs-all {shape}, {label}",
                OneVsAllPerceptron(Perceptron(**params)),
                OneVsRestClassifier(SklearnPerceptron(**params)),
                X_train, y_train, X_test, y_test, repeats,
            )
        for Meta, name in ((OneVsOnePerceptron, "one-vs-one"),
                           (OneVsAllPerceptron, "one-vs-all")):
            rows += thread_rows(f"P13 {name} fast path {shape}, fixed 10 epochs",
                            Meta, fixed, X_train, y_train, max(repeats, 7))
        X, y = load_digits(return_X_y=True)
        X = X / 16.0
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.25, random_state=0, stratify=y
        )
        rows += compare(
            "P8 digits one-vs-one, defaults",
            OneVsOnePerceptron(), OneVsOneClassifier(SklearnPerceptron()),
            X_train, y_train, X_test, y_test, repeats,
        )
        rows += accuracy_rows(
            "digits, 10 x 5-fold CV",
            [
                ("OneVsOnePerceptron()", OneVsOnePerceptron()),
                ("OneVsOnePerceptron(Perceptron(average=True))",
                 OneVsOnePerceptron(Perceptron(average=True))),
                ("OneVsOneClassifier(sklearn Perceptron())",
                 OneVsOneClassifier(SklearnPerceptron())),
                ("OneVsAllPerceptron()", OneVsAllPerceptron()),
                ("OneVsAllPerceptron(Perceptron(average=True))",
                 OneVsAllPerceptron(Perceptron(average=True))),
                ("OneVsRestClassifier(sklearn Perceptron())",
                 OneVsRestClassifier(SklearnPerceptron())),
            ],
            X, y,
        )
    return rows


if __name__ == "__main__":
    print(format_table(run(quick=not command_line(__doc__).full)))
