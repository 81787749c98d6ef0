# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The main job (benchmarks/run.py) is readable: each result once on an
80-column terminal as it is made, a line at least every few seconds, the
summary of the targets last; the full report (100 columns, targets apart
from information, missed targets by name) in a file."""

import importlib
import os
import re
import sys
import time

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
    progress = run.Progress("linear", settings, run.Console())
    listener = common.add_listener(progress)
    try:
        common.row("P1 dense", "ours per epoch / floor", 1.08, at_most=1.5)
        out = capsys.readouterr().out
        assert out.splitlines()[0] == "  P1 dense"
        assert re.fullmatch(r"  +\d+ s  ours per epoch / floor +1\.080  <= 1\.5 +met",
                            out.splitlines()[1])
        common.row("setting", "BLAS threads", "1 thread")
    finally:
        common.remove_listener(listener)
    common.row("P2", "not reported once the listener is removed", 1.0)
    assert capsys.readouterr().out == ""
    assert settings == {"BLAS threads: 1 thread"}


class _Suite:
    """A stand-in for a bench module: ``run`` makes the given rows, waiting
    ``pause`` seconds before each; ``error`` makes it fail after them."""

    def __init__(self, common, rows, pause=0.0, error=None):
        self.common, self.rows = common, rows
        self.pause, self.error = pause, error

    def run(self, quick):
        made = []
        for args, kwargs in self.rows:
            time.sleep(self.pause)
            if args == "print":
                print(kwargs)  # a suite's own table line
                continue
            made.append(self.common.row(*args, **kwargs))
        if self.error is not None:
            raise self.error
        return made


def _main_job(bench, monkeypatch, tmp_path, suites, **overrides):
    """``run.main`` on stand-in suites; returns the terminal's lines and
    the report file's text."""
    common, run = bench
    for name, value in overrides.items():
        monkeypatch.setattr(run, name, value)
    monkeypatch.setattr(run, "suites_in", lambda: list(suites))
    monkeypatch.setattr(run, "load_suite", suites.__getitem__)
    output = tmp_path / "results.txt"
    status = run.main(["--output", str(output)])
    return status, output.read_text(encoding="utf-8")


LONG = "a metric whose name is much longer than the column it has " * 2


def _suites(common, **kwargs):
    return {
        "linear": _Suite(common, [
            (("setting", "BLAS threads", "1 thread (threadpoolctl)"), {}),
            (("P1 dense 200000x50 binary " * 4, "ours per epoch / floor", 1.08),
             dict(at_most=1.5, note="ours 3.1 ms, floor 2.9 ms " * 8)),
            (("P3 CSR", LONG, 1.45), dict(at_most=1.2)),
            (("iris, 10 x 5-fold CV", "accuracy, ours", 0.881),
             dict(spread=0.034)),
            ("print", "A TABLE THE SUITE PRINTS " + "=" * 70),
        ], **kwargs),
        "kernel": _Suite(common, [
            (("P7 moons", "fit time / SVC's", 0.2), dict(at_most=0.25)),
        ], error=ValueError("x" * 300)),
    }


def test_the_main_job_prints_each_result_once_in_80_columns(
        bench, monkeypatch, tmp_path, capsys):
    common, run = bench
    status, text = _main_job(bench, monkeypatch, tmp_path, _suites(common))
    lines = capsys.readouterr().out.splitlines()
    assert status == 1  # a suite failed
    assert max(map(len, lines)) <= 80
    # Each result once, with its target and status.
    assert sum("ours per epoch / floor" in line for line in lines) == 1
    assert sum("accuracy, ours" in line for line in lines) == 1
    assert sum("fit time / SVC's" in line for line in lines) == 1
    # A long metric name wraps under its figures, whole.
    at = next(i for i, line in enumerate(lines) if "a metric whose" in line)
    assert lines[at].endswith("1.450  <= 1.2    MISSED")
    words = lines[at][11:11 + 36].split()
    for line in lines[at + 1:]:
        if not line.startswith(" " * 11) or line[11] == " ":
            break
        words += line.split()
    assert words == LONG.split()
    # Notes go to the file only.
    assert not any("floor 2.9 ms" in line for line in lines)
    # The summary comes last: counts, the missed target by name, the failed
    # suite, the settings, the file.
    end = "\n".join(lines[lines.index("=" * 80):])
    assert "2 targets met, 1 missed" in end
    assert "[linear] P3 CSR: a metric whose name" in end
    assert "Suite failed: kernel: ValueError: xxx" in end
    assert "Settings: BLAS threads: 1 thread (threadpoolctl)" in end
    assert "results.txt" in end
    # The file has the full report, 100 columns, notes included.
    assert "ours 3.1 ms, floor 2.9 ms" in text
    assert "MISSED TARGETS (1):" in text and "SUITE FAILED: kernel" in text
    assert max(map(len, text.splitlines())) <= 100
    assert "Settings: BLAS threads: 1 thread (threadpoolctl)" in text
    # What a suite prints itself: on the terminal (clipped) and in the file.
    assert sum("A TABLE THE SUITE PRINTS" in line for line in lines) == 1
    assert "PRINTED BY THE SUITE linear" in text
    assert "A TABLE THE SUITE PRINTS " + "=" * 70 in text


def test_a_long_measurement_gets_a_line_every_heartbeat(
        bench, monkeypatch, tmp_path, capsys):
    common, run = bench
    suites = {"linear": _Suite(common, [
        (("P1", "alpha-metric", 1.0), {}), (("P1", "beta-metric", 1.0), {}),
    ], pause=0.7)}
    _main_job(bench, monkeypatch, tmp_path, suites, HEARTBEAT=0.2)
    lines = capsys.readouterr().out.splitlines()
    beats = [i for i, line in enumerate(lines) if "still measuring (" in line]
    # Before each result (0.7 s of silence) at least two lines.
    first = next(i for i, line in enumerate(lines) if "alpha-metric" in line)
    second = next(i for i, line in enumerate(lines) if "beta-metric" in line)
    assert sum(i < first for i in beats) >= 2
    assert sum(first < i < second for i in beats) >= 2
    assert lines[second - 1].endswith("still measuring (linear: after P1)")
    assert max(map(len, lines)) <= 80

    # A quick suite gets none.
    suites = {"linear": _Suite(common, [(("P1", "alpha-metric", 1.0), {})])}
    _main_job(bench, monkeypatch, tmp_path, suites, HEARTBEAT=5.0)
    assert "still measuring (" not in capsys.readouterr().out


def test_every_bench_file_runs_listed_first(bench, tmp_path):
    _, run = bench
    for name in ["linear", "zeta", "alpha", "margin"]:
        (tmp_path / f"bench_{name}.py").write_text("")
    (tmp_path / "_common.py").write_text("")
    assert run.suites_in(str(tmp_path), ["margin", "linear", "gone"]) == [
        "margin", "linear", "alpha", "zeta"]
    # The real registry: no name twice, every listed suite has its file.
    assert len(set(run.SUITES)) == len(run.SUITES)
    assert set(run.SUITES) <= set(run.suites_in())


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
