# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Benchmarks P11 and P12 of benchmarks/TARGETS.rst: the budgeted kernel perceptron.

P11 (scale): ``KernelPerceptron(budget=500)`` (rbf, other parameters at
their defaults) on make_moons(n, noise=0.2) with 10,000 more rows held out,
n = 1,000,000 (quick mode: 200,000), against
``make_pipeline(Nystroem(n_components=500, gamma=<the same gamma>),
sklearn Perceptron())``.  Targets: fit <= 0.25x the pipeline's time, test
accuracy >= the pipeline's - 0.005, peak extra memory during ``fit``
(tracemalloc, which sees NumPy's allocations) <= X's size + O(B (d + K))
(reported as the ratio of the peak to X's size, the O(B (d + K)) part being
a few hundred kB here, with what the shared validation of labels and
weights allocates per sample); with ``verbose=1``, the largest time between
two lines (or the start or end of ``fit``) <= 10 s.  Fit times are medians of 5 repeats in
alternation, BLAS limited to one thread.

P12 (budgets that work): standardized digits (75% train), make_moons(20000,
noise=0.2), make_circles(20000, noise=0.1, factor=0.5) and
make_classification(20000, 20 features, 10 informative, 10 classes), 75%
train / 25% test; B in {50, 100, 200, 400} and no budget, each strategy,
``average`` False and True.  Targets, for every strategy: accuracy
non-decreasing in B within 0.01 (the value is the smallest change of
accuracy from one budget to the next larger one, "none" last) and
``average=True`` never below ``average=False`` - 0.01 (the value is the
smallest difference); for the default strategy, at B = half the unbudgeted
number of support vectors, accuracy >= unbudgeted - 0.02.  Quick mode runs
the default strategy and "forgetron", with 5,000 samples instead of 20,000
(the unbudgeted fit of the 10-class problem keeps nearly every sample as a
support vector and takes about a minute at 20,000); full mode every
strategy at the sizes above.  Each fit
runs once per split (the fits are deterministic; accuracies are the
measure); every accuracy is the mean over 3 (quick) or 5 (full) random
75/25 splits, the targets read on the means, and each row's note gives
the spread (std over the splits) and split 0's value alone.

Information (no target): the cost of the model checks of a budgeted
``fit`` with ``tol`` set (the best model among the quarters and the end of
every epoch, scored on at most 2,000 training rows): the time of two epochs
with the checks over two epochs without (``tol=None``), B = 100, on
make_moons of 1,000 and 100,000 rows (full mode: also 1,000,000).  The
checks cost a fixed number of kernel values per epoch, so the ratio falls
towards 1 as the data grow.

Run ``python benchmarks/bench_kernel_budget.py [--full]``.
"""

import contextlib
import io
import time
import tracemalloc
import warnings

import numpy as np
from sklearn.datasets import (
    load_digits,
    make_circles,
    make_classification,
    make_moons,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import Perceptron
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_perceptrons import KernelPerceptron

from _common import format_table, interleaved_times, row, single_threaded, command_line

BUDGETS = [50, 100, 200, 400, None]
DEFAULT = KernelPerceptron().budget_strategy
ALL_STRATEGIES = ["local_projection", "projection", "forgetron", "random",
                  "oldest"]
# P12's accuracies are means over this many train/test splits (the split's
# random_state 0, 1, ...): on test sets of a few hundred rows one split
# moves by 0.01-0.02 from one fit to another (digits: 450 rows, 0.016 is 7
# of them), beside the change the targets look for.
SPLITS_QUICK = 3
SPLITS_FULL = 5


def _quiet_fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(X, y)


def p11(quick):
    n = 200_000 if quick else 1_000_000
    X, y = make_moons(n + 10_000, noise=0.2, random_state=0)
    X_train, y_train, X_test, y_test = X[:n], y[:n], X[n:], y[n:]
    ours = KernelPerceptron(budget=500)
    _quiet_fit(ours, X_train, y_train)
    gamma = ours.gamma_
    pipe = make_pipeline(Nystroem(n_components=500, gamma=gamma, random_state=0),
                         Perceptron())
    case = f"P11 moons {n:,}, B=500"
    t_ours, t_pipe = interleaved_times(
        [lambda: _quiet_fit(ours, X_train, y_train),
         lambda: _quiet_fit(pipe, X_train, y_train)],
        repeats=5, warmup=0)
    acc_ours = ours.score(X_test, y_test)
    acc_pipe = pipe.score(X_test, y_test)
    tracemalloc.start()
    _quiet_fit(KernelPerceptron(budget=500), X_train, y_train)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    gap, n_lines = _largest_verbose_gap(KernelPerceptron(budget=500, verbose=1),
                                        X_train, y_train)
    accurate = acc_ours >= acc_pipe - 0.005
    fit_row = row(case, "fit time / Nystroem+Perceptron", t_ours / t_pipe,
                  at_most=0.25,
                  note=f"{t_ours:.2f} s vs {t_pipe:.2f} s, "
                       f"{ours.n_iter_} epochs")
    if not accurate:
        fit_row["met"] = False
    return [
        fit_row,
        row(case, "test accuracy - pipeline's", acc_ours - acc_pipe,
            at_least=-0.005, note=f"{acc_ours:.4f} vs {acc_pipe:.4f}"),
        row(case, "peak extra memory / X's size", peak / X_train.nbytes,
            note=f"{peak / 2**20:.1f} MB, X {X_train.nbytes / 2**20:.1f} MB"),
        row(case, "verbose: largest gap between lines (s)", gap, at_most=10.0,
            note=f"{n_lines} lines"),
    ]


class _Stamps(io.TextIOBase):
    """A stdout that notes the time of every non-empty line written."""

    def __init__(self):
        self.times = []

    def write(self, text):
        if text.strip():
            self.times.append(time.perf_counter())
        return len(text)


def _largest_verbose_gap(estimator, X, y):
    """The largest time between the start of ``fit``, its verbose lines and
    its end, and the number of lines."""
    stamps = _Stamps()
    start = time.perf_counter()
    with contextlib.redirect_stdout(stamps):
        _quiet_fit(estimator, X, y)
    times = [start] + stamps.times + [time.perf_counter()]
    return max(b - a for a, b in zip(times, times[1:])), len(stamps.times)


def p12_datasets(quick):
    n = 5000 if quick else 20000
    X_digits, y_digits = load_digits(return_X_y=True)
    X_digits = StandardScaler().fit_transform(X_digits)
    return [
        ("digits", X_digits, y_digits),
        (f"moons {n}", *make_moons(n, noise=0.2, random_state=0)),
        (f"circles {n}",
         *make_circles(n, noise=0.1, factor=0.5, random_state=0)),
        (f"classification {n}x20, 10 classes",
         *make_classification(n, 20, n_informative=10, n_classes=10,
                              random_state=0)),
    ]


def _fit_score(params, X_train, y_train, X_test, y_test):
    start = time.perf_counter()
    clf = _quiet_fit(KernelPerceptron(**params), X_train, y_train)
    return clf.score(X_test, y_test), time.perf_counter() - start, clf


def p12(quick):
    strategies = [DEFAULT, "forgetron"] if quick else ALL_STRATEGIES
    n_splits = SPLITS_QUICK if quick else SPLITS_FULL
    rows = []
    for name, X, y in p12_datasets(quick):
        splits = [train_test_split(X, y, test_size=0.25, random_state=seed)
                  for seed in range(n_splits)]
        # Without a budget the strategy plays no part: one fit per split.
        free = {}
        for s, (X_train, X_test, y_train, y_test) in enumerate(splits):
            for average in (False, True):
                free[s, average] = _fit_score(dict(average=average), X_train,
                                              y_train, X_test, y_test)
        for strategy in strategies:
            # acc[average, budget]: the test accuracy of every split.
            acc, seconds = {}, {}
            for average in (False, True):
                for budget in BUDGETS:
                    got = [free[s, average] if budget is None else _fit_score(
                        dict(budget=budget, budget_strategy=strategy,
                             average=average), split[0], split[2],
                        split[1], split[3])
                        for s, split in enumerate(splits)]
                    acc[average, budget] = np.array([g[0] for g in got])
                    seconds[average, budget] = np.median([g[1] for g in got])
            case = f"P12 {name}, {strategy}"
            times = " ".join(f"{seconds[False, b]:.2f}" for b in BUDGETS)
            for average, label in ((False, "plain"), (True, "average")):
                mean = [acc[average, b].mean() for b in BUDGETS]
                steps = np.diff(mean)
                first = np.diff([acc[average, b][0] for b in BUDGETS])
                curve = " ".join(
                    f"{b or 'none'}:{m:.3f}+-{acc[average, b].std():.3f}"
                    for b, m in zip(BUDGETS, mean))
                rows.append(row(
                    case, f"accuracy change as B grows ({label})",
                    float(steps.min()), at_least=-0.01,
                    note=f"mean of {n_splits} splits (+- std), B: acc {curve}"
                         f"; split 0 alone {first.min():+.3f}"
                         + ("" if average else f"; fit s {times}")))
            diff = [acc[True, b] - acc[False, b] for b in BUDGETS]
            rows.append(row(
                case, "average=True - average=False",
                float(min(d.mean() for d in diff)), at_least=-0.01,
                note=f"mean of {n_splits} splits; per split min "
                     f"{min(d.min() for d in diff):+.3f}, split 0 alone "
                     f"{min(d[0] for d in diff):+.3f}"))
        gaps, notes = [], []
        for s, (X_train, X_test, y_train, y_test) in enumerate(splits):
            acc_free, _, model = free[s, False]
            n_sv = model.dual_coef_.shape[1]
            half = max(1, n_sv // 2)
            acc_half = _fit_score(dict(budget=half), X_train, y_train, X_test,
                                  y_test)[0]
            gaps.append(acc_free - acc_half)
            notes.append(f"B={half}/{n_sv}: {acc_half:.3f} vs {acc_free:.3f}")
        rows.append(row(
            f"P12 {name}, {DEFAULT}", "unbudgeted - B=half SVs accuracy",
            float(np.mean(gaps)), at_most=0.02,
            note=f"mean of {n_splits} splits; " + "; ".join(notes)))
    return rows


def check_cost(quick):
    """What the model checks of ``fit`` (with ``tol``) add to its epochs."""
    rows = []
    for n in [1_000, 100_000] + ([] if quick else [1_000_000]):
        X, y = make_moons(n, noise=0.2, random_state=0)
        params = dict(budget=100, max_iter=2, n_iter_no_change=10)
        checked, plain = interleaved_times(
            [lambda: _quiet_fit(KernelPerceptron(**params), X, y),
             lambda: _quiet_fit(KernelPerceptron(tol=None, **params), X, y)],
            repeats=5, warmup=1)
        rows.append(row(f"model checks, moons {n:,}, B=100",
                        "fit with checks / without", checked / plain,
                        note=f"{checked:.3f} s vs {plain:.3f} s, 2 epochs"))
    return rows


def run(quick=True):
    with single_threaded():
        return p11(quick) + p12(quick) + check_cost(quick)


if __name__ == "__main__":
    print(format_table(run(quick=not command_line(__doc__).full)))
