# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The real-data tour (benchmarks/bench_tour.py): its targets are read right
from what it measured, its tables fit 80 columns, and a data set whose
package is absent is skipped with a line saying so."""

import importlib
import os
import sys

import numpy as np
import pytest

BENCHMARKS = os.path.join(os.path.dirname(__file__), os.pardir, "benchmarks")
pytestmark = pytest.mark.skipif(
    not os.path.exists(os.path.join(BENCHMARKS, "bench_tour.py")),
    reason="benchmarks/ not beside tests/",
)


@pytest.fixture(scope="module")
def tour():
    sys.path.insert(0, os.path.abspath(BENCHMARKS))
    try:
        yield importlib.import_module("bench_tour")
    finally:
        sys.path.remove(os.path.abspath(BENCHMARKS))


def _result(tour, name="set", n_samples=500, majority=(0.6,) * 5, **fits):
    """A SetResult with ``fits[name] = (accuracy, fit_time, warned,
    zero_rows)``, each a value or a list of one per fold."""
    result = tour.SetResult(name, n_samples, 4, 3, list(majority))
    for est, (accuracy, fit_time, warned, zero_rows) in fits.items():
        per_fold = [v if isinstance(v, list) else [v] * 5
                    for v in (accuracy, fit_time, warned)]
        result.accuracy[est], result.fit_time[est], result.warned[est] = per_fold
        result.zero_rows[est] = (zero_rows if isinstance(zero_rows, list)
                                 and len(zero_rows) == 5 else [zero_rows] * 5)
    return result


def _by_metric(rows):
    return {r["metric"].split(",")[0].split(" (")[0]: r for r in rows}


def _healthy(tour, **changes):
    """Every estimator the targets read, all targets met."""
    fits = {
        "KernelPerceptron": (0.90, 1.0, False, None),
        "MarginPerceptron": (0.85, 1.0, False, []),
        "Perceptron": (0.80, 1.0, False, []),
        "VotedPerceptron": (0.86, 1.0, False, None),
        tour.AVERAGED: (0.86, 1.0, False, []),
        tour.BUDGETED: (0.89, 1.4, False, None),
        "sk SVC": (0.905, 2.0, False, None),
    }
    fits.update(changes)
    return fits


def test_every_target_met_on_healthy_results(tour, monkeypatch):
    monkeypatch.setattr(tour, "package_estimators", lambda: dict.fromkeys(
        ["KernelPerceptron", "MarginPerceptron", "Perceptron",
         "VotedPerceptron"]))
    rows = tour.target_rows([_result(tour, **_healthy(tour))])
    targets = [r for r in rows if r["target"] is not None]
    assert len(targets) == 7
    assert all(r["met"] for r in targets), [r for r in rows if not r["met"]]
    # scikit-learn's models are counted for reference, with no target.
    reference, = [r for r in rows if r["target"] is None]
    assert reference["metric"].startswith("scikit-learn's models: folds below")
    assert reference["value"] == 0


def test_reference_models_below_the_majority_are_counted(tour, monkeypatch):
    monkeypatch.setattr(tour, "package_estimators", lambda: dict.fromkeys(
        ["KernelPerceptron", "MarginPerceptron", "Perceptron",
         "VotedPerceptron"]))
    fits = _healthy(tour, **{"sk Perceptron": ([0.5, 0.7, 0.55, 0.7, 0.7],
                                                1.0, False, None)})
    rows = _by_metric(tour.target_rows([_result(tour, **fits)]))
    reference = rows["scikit-learn's models: folds below the majority class"]
    assert reference["value"] == 2 and reference["met"] is None
    assert rows["folds below the majority class"]["value"] == 0


def test_each_target_catches_its_failure(tour, monkeypatch):
    monkeypatch.setattr(tour, "package_estimators", lambda: dict.fromkeys(
        ["KernelPerceptron", "MarginPerceptron", "Perceptron",
         "VotedPerceptron"]))
    fits = _healthy(
        tour,
        # one fold of the last iterate below the majority class (0.6)
        Perceptron=([0.8, 0.8, 0.55, 0.8, 0.8], 1.0, False, []),
        # row 1 all zeros on fold 0, where the averaged perceptron learns it
        MarginPerceptron=(0.80, 1.0, False, [[1], [], [], [], []]),
        # 0.02 below SVC, and slower than it
        KernelPerceptron=(0.885, 2.5, False, None),
        # warns on 1 fit in 5
        VotedPerceptron=(0.86, 1.0, [True, False, False, False, False], None),
        **{tour.BUDGETED: (0.89, 4.0, False, None)},
    )
    rows = _by_metric(tour.target_rows([_result(tour, **fits)]))
    below = rows["folds below the majority class"]
    assert below["value"] == 1 and below["met"] is False
    assert "Perceptron on set fold 2: 0.550 < 0.600" in below["note"]
    lost = rows["all-zero one-vs-all rows that Perceptron(average=True) learns"]
    assert lost["value"] == 1 and "MarginPerceptron on set fold 0 row 1" in (
        lost["note"])
    margin = rows["MarginPerceptron - Perceptron(average=True)"]
    assert margin["value"] == pytest.approx(-0.06) and margin["met"] is False
    kernel = rows["KernelPerceptron - SVC"]
    assert kernel["value"] == pytest.approx(-0.02) and kernel["met"] is False
    time = rows["KernelPerceptron / SVC"]
    assert time["value"] == pytest.approx(1.25) and time["met"] is False
    budget = rows["KernelPerceptron(budget=n/4) / KernelPerceptron"]
    assert budget["value"] == pytest.approx(1.6) and budget["met"] is False
    warned = rows["share of fits with a ConvergenceWarning"]
    assert warned["value"] == pytest.approx(0.2) and "VotedPerceptron 0.20" in (
        warned["note"])


def test_details_of_the_targets(tour, monkeypatch):
    monkeypatch.setattr(tour, "package_estimators", lambda: dict.fromkeys(
        ["KernelPerceptron", "MarginPerceptron"]))
    # A row that the averaged perceptron does not learn either is no loss;
    # a fold that ties the majority class is not below it; estimators that
    # are not the package's defaults (scikit-learn's, the variants) carry no
    # target; the worst set is reported; SVC's fit-time target stops at
    # 20,000 rows; the budget ratio is the median of the per-fold ratios.
    small = _result(
        tour, "small", majority=[0.6] * 5,
        MarginPerceptron=(0.6, 1.0, False, [0, 1]),
        **{tour.AVERAGED: (0.9, 1.0, False, [1]),
           "sk SVC": ([0.5] * 5, 1.0, False, None),
           "KernelPerceptron": (0.95, 2.0, False, None),
           tour.BUDGETED: (0.95, [2.0, 2.0, 2.0, 100.0, 100.0], False, None)})
    large = _result(
        tour, "large", n_samples=20_001,
        KernelPerceptron=(0.9, 5.0, False, None),
        **{"sk SVC": (0.85, 1.0, False, None),
           tour.BUDGETED: (0.9, 5.0, False, None)})
    rows = _by_metric(tour.target_rows([small, large]))
    assert rows["folds below the majority class"]["value"] == 0
    # (row 0 on each of the 5 folds; row 1 is all zeros for both)
    assert rows["all-zero one-vs-all rows that Perceptron(average=True) "
                "learns"]["value"] == 5
    assert rows["KernelPerceptron / SVC"]["value"] == pytest.approx(2.0)
    assert rows["KernelPerceptron / SVC"]["note"] == "on small"
    assert rows["KernelPerceptron(budget=n/4) / KernelPerceptron"]["value"] == (
        pytest.approx(1.0))
    assert rows["MarginPerceptron - Perceptron(average=True)"]["value"] == (
        pytest.approx(-0.3))


def test_tables_fit_80_columns_and_mark_the_misses(tour, monkeypatch):
    monkeypatch.setattr(tour, "package_estimators", lambda: dict.fromkeys(
        ["Perceptron", "MarginPerceptron"]))
    results = [
        _result(tour, f"set number {i}", n_samples=12_345,
                Perceptron=([0.5] + [0.8] * 4, 123456.0, True, [])
                if i == 0 else (1.0, 0.001, False, []),
                MarginPerceptron=(0.7, 0.01, False, [[2]] + [[]] * 4),
                **{tour.AVERAGED: (0.7, 0.01, False, []),
                   "sk LogisticRegression": (0.7, 0.5, True, [])})
        for i in range(11)
    ]
    lines = tour.format_tables(results)
    assert max(len(line) for line in lines) <= 80
    text = "\n".join(lines)
    perceptron = [line for line in lines if line.startswith("Perceptron")][0]
    assert ".740<w" in perceptron  # mean, below the majority, warnings
    margin = [line for line in lines if line.startswith("Margin")][0]
    assert ".700z" in margin
    assert "sk LogReg" in text and ".700w" not in text.split("sk LogReg")[1][:20]


def test_a_missing_package_skips_its_set_with_a_line(tour, monkeypatch,
                                                     capsys):
    def absent():
        raise tour.Missing("no-such-package")

    def tiny():
        rng = np.random.RandomState(0)
        X = rng.normal(size=(60, 3))
        return X, (X[:, 0] > 0).astype(int), False

    monkeypatch.setattr(tour, "DATASETS", [
        tour.DataSet("gone", "no-such-package", absent),
        tour.DataSet("tiny", "numpy", tiny),
    ])
    rows = tour.run(quick=True, names=["Perceptron", tour.AVERAGED],
                    verbose=False)
    skipped = [r for r in rows if r["metric"] == "gone skipped"]
    assert skipped and skipped[0]["value"] == "no-such-package not installed"
    assert "tiny" in capsys.readouterr().out
