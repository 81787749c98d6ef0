# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The benchmark report (benchmarks/run.py) is readable: 100 columns, progress
as rows are made, targets apart from information, missed targets by name."""

import importlib
import os
import sys

import numpy as np
import pytest

BENCHMARKS = os.path.join(os.path.dirname(__file__), os.pardir, "benchmarks")
pytestmark = pytest.mark.skipif(
    not os.path.exists(os.path.join(BENCHMARKS, "run.py")),
    reason="benchmarks/ not beside tests/",
)


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, os.path.abspath(BENCHMARKS))
    try:
        common = importlib.import_module("_common")
        run = importlib.import_module("run")
        yield common, run
    finally:
        sys.path.remove(os.path.abspath(BENCHMARKS))


def _rows(common):
    row = common.row
    return [
        row("setting", "BLAS threads", "1 thread (threadpoolctl)"),
        row("P1 dense 200000x50 binary", "ours per epoch / floor", 1.08,
            at_most=1.5, note="ours 3.1 ms, floor 2.9 ms " * 8),
        row("P3 CSR 200000x100000, 100 nnz/row", "ours per epoch / CSR matvec",
            1.45, at_most=1.2),
        row("P7 moons " + "with a very long case name " * 6,
            "a metric whose name is much longer than its column " * 2, 0.5,
            at_least=0.9),
        row("iris, 10 x 5-fold CV", "accuracy, ours", 0.881, spread=0.034),
        row("distributed", "skipped", "dask not installed " * 5),
        row("1 worker", "bit for bit", True),
    ]


def test_every_line_fits_100_columns(bench):
    common, run = bench
    rows = _rows(common)
    for r in rows:
        r["suite"] = "linear"
    text = run.report(rows, failed=[("kernel", "ValueError: " + "x" * 300)])
    text += "\n" + common.format_table(rows)
    assert max(len(line) for line in text.splitlines()) <= 100


def test_report_names_the_missed_targets_and_separates_information(bench):
    common, run = bench
    rows = _rows(common)
    for r in rows:
        r["suite"] = "linear"
    text = run.report(rows)
    targets, rest = text.split("FOR INFORMATION (no target)")
    information, missed = rest.split("MISSED TARGETS (2):")
    assert "1 targets met, 2 missed" in missed
    assert "P3 CSR 200000x100000" in missed and "P7 moons" in missed
    assert "P1 dense" not in missed
    assert "ours per epoch / floor" in targets and "accuracy, ours" not in targets
    assert "accuracy, ours" in information and "0.881 ± 0.034" in information
    assert "ours per epoch / CSR matvec" not in information
    assert "BLAS threads" not in text  # settings are printed once, above


def test_a_row_missed_through_another_row_says_so(bench):
    common, run = bench
    fit = common.row("P7 digits", "fit time / SVC's", 0.19, at_most=0.25)
    accuracy = common.row("P7 digits", "test accuracy", 0.969, at_least=0.976)
    fit["met"] = fit["met"] and accuracy["met"]
    for r in (fit, accuracy):
        r["suite"] = "kernel"
    missed = run.report([fit, accuracy]).split("MISSED TARGETS (2):")[1]
    assert ("fit time / SVC's = 0.190, target <= 0.25 (met, but a row it "
            "depends on is missed)") in " ".join(missed.split())
    assert "test accuracy = 0.969, target >= 0.976\n" in missed


def test_rows_are_reported_as_they_are_made(bench, capsys):
    common, run = bench
    settings = set()
    progress = run._Progress("linear", settings)
    listener = common.add_listener(progress)
    try:
        common.row("P1 dense", "ours per epoch / floor", 1.08, at_most=1.5)
        assert "ours per epoch / floor: 1.080  (target <= 1.5)" in (
            capsys.readouterr().out)
        common.row("setting", "BLAS threads", "1 thread")
    finally:
        common.remove_listener(listener)
    common.row("P2", "not reported once the listener is removed", 1.0)
    assert capsys.readouterr().out == ""
    assert settings == {"BLAS threads: 1 thread"}


def test_cv_accuracy_is_the_mean_and_spread_over_repeated_folds(bench):
    from sklearn.datasets import load_iris
    from sklearn.model_selection import RepeatedStratifiedKFold

    from sklearn_perceptrons import Perceptron

    common, _ = bench
    X, y = load_iris(return_X_y=True)
    mean, std = common.cv_accuracy(Perceptron(), X, y, n_splits=3, n_repeats=2)
    scores = [
        Perceptron().fit(X[train], y[train]).score(X[test], y[test])
        for train, test in RepeatedStratifiedKFold(
            n_splits=3, n_repeats=2, random_state=0).split(X, y)
    ]
    assert mean == pytest.approx(np.mean(scores))
    assert std == pytest.approx(np.std(scores))
