# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The verbose output: one shape for every estimator (the formatter of
``_core/progress.py``), the stop reasons, the norms the docstrings name,
progress within long epochs (with results bit for bit those of a silent
fit), the margin search, the reductions' sub-problems, partial_fit.

The tests check the shapes of the lines, never their timings."""

import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.base import clone
from sklearn.datasets import make_blobs, make_classification, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel

from sklearn_perceptrons import (
    ALMAClassifier,
    AROWClassifier,
    KernelPerceptron,
    MarginPerceptron,
    OneVsAllPerceptron,
    OneVsOnePerceptron,
    PassiveAggressiveClassifier,
    Perceptron,
    ROMMAClassifier,
    SecondOrderPerceptron,
    VotedPerceptron,
)
from sklearn_perceptrons._core import progress
from sklearn_perceptrons._kernel import budget as _budget

TIME = r"(?:[\d.e+-]+ m?s|\d+ min \d\d s|\d+ h \d\d min)"
NORM = r"(?:\|\|w\|\||\|\|f\|\|)"
PREFIX = r"(?:\[[^\]]+\] )?"
EPOCH = re.compile(
    rf"^{PREFIX}-- (?P<unit>Epoch|Round) (?P<k>\d+) of (?P<max>\d+): "
    rf"updates (?P<updates>\d+)(?: over \d+ partition\(s\))?"
    rf"(?:, (?P<active>\d+) of (?P<rows>\d+) rows training)?, "
    rf"(?P<norm_name>{NORM}) (?P<norm>[\d.e+-]+|inf|nan), {TIME}; "
    rf"total {TIME}(?:, at most {TIME} left)?$"
)
WITHIN = re.compile(
    rf"^{PREFIX}-- Epoch (?P<k>\d+) of \d+: (?P<visited>[\d,]+) of "
    rf"(?P<n>[\d,]+) samples, updates \d+, {TIME}"
    rf"(?:, about {TIME} left in this epoch)?$"
)
CLOSING = re.compile(
    rf"^{PREFIX}-- Stopped after (?P<n>\d+) (?:epoch|round)s? "
    rf"\((?P<reason>.+)\), took {TIME}$"
)
PARTIAL = re.compile(
    rf"^{PREFIX}-- partial_fit pass (?P<k>\d+): (?P<n>\d+) samples?, updates "
    rf"(?P<updates>\d+), (?:{NORM}|support vectors) [\d.e+-]+, took {TIME}$"
)
DETAIL = re.compile(rf"^{PREFIX}   \S")


def quiet_fit(est, X, y, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y, **kwargs)


def lines_of(capsys):
    return capsys.readouterr().out.splitlines()


def check_fit_lines(lines, n_iter, max_iter):
    """Epoch lines 1..n_iter of max_iter, in order, then one closing line
    naming n_iter; every line of one of the known shapes."""
    for line in lines:
        assert (EPOCH.match(line) or CLOSING.match(line) or WITHIN.match(line)
                or DETAIL.match(line)), line
    epochs = [EPOCH.match(line) for line in lines if EPOCH.match(line)]
    assert [int(m["k"]) for m in epochs] == list(range(1, n_iter + 1))
    assert all(int(m["max"]) == max_iter for m in epochs)
    # The time left is given for all epochs but the last one max_iter allows.
    assert all(("left" in m.group(0)) == (int(m["k"]) < max_iter)
               for m in epochs)
    closing = CLOSING.match(lines[-1])
    assert closing and int(closing["n"]) == n_iter
    assert sum(bool(CLOSING.match(line)) for line in lines) == 1
    return epochs, closing["reason"]


def data(n_classes=2, n=200, seed=0):
    return make_classification(n, 6, n_informative=4, n_redundant=0,
                               n_classes=n_classes, random_state=seed)


ESTIMATORS = [
    Perceptron(max_iter=4, tol=None),
    Perceptron(max_iter=4, tol=None, multi_class="crammer_singer"),
    MarginPerceptron(max_iter=4, tol=None, margin=0.5),
    MarginPerceptron(max_iter=4, tol=None),
    SecondOrderPerceptron(max_iter=4, tol=None),
    KernelPerceptron(max_iter=4, tol=None),
    KernelPerceptron(max_iter=4, tol=None, budget=20),
    VotedPerceptron(max_iter=4),
    VotedPerceptron(max_iter=4, kernel="rbf"),
    OneVsAllPerceptron(Perceptron(max_iter=4, tol=None)),
    OneVsOnePerceptron(Perceptron(max_iter=4, tol=None)),    PassiveAggressiveClassifier(max_iter=4, tol=None, random_state=0),
    PassiveAggressiveClassifier(max_iter=4, tol=None, average=True, random_state=0,
                                multi_class="crammer_singer"),
    ALMAClassifier(max_iter=4, tol=None),
    ROMMAClassifier(max_iter=4, tol=None, aggressive=True),
    AROWClassifier(max_iter=4, tol=None),
    AROWClassifier(max_iter=4, tol=None, diagonal=True),
]


def _with_verbose(est, verbose=1):
    est = clone(est)
    if hasattr(est, "estimator"):
        return est.set_params(estimator__verbose=verbose)
    return est.set_params(verbose=verbose)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("est", ESTIMATORS, ids=repr)
def test_every_estimator_prints_the_same_shape(est, n_classes, capsys):
    X, y = data(n_classes)
    est = quiet_fit(_with_verbose(est), X, y)
    lines = lines_of(capsys)
    fitted = est.estimators_[0] if hasattr(est, "estimators_") else est
    epochs, reason = check_fit_lines(lines, fitted.n_iter_, 4)
    norm_name = "||f||" if (isinstance(fitted, KernelPerceptron) or (
        isinstance(fitted, VotedPerceptron) and fitted.kernel != "linear")) \
        else "||w||"
    assert {m["norm_name"] for m in epochs} == {norm_name}
    assert [int(m["updates"]) for m in epochs] == (
        est.mistakes_per_epoch_ if not hasattr(est, "estimators_") else
        [sum(e.mistakes_per_epoch_[i] for e in est.estimators_
             if len(e.mistakes_per_epoch_) > i)
         for i in range(len(epochs))])
    assert re.fullmatch(r"max_iter=4 reached(, all \d+ rows)?|.*converged.*",
                        reason)


def test_a_silent_fit_prints_nothing(capsys):
    X, y = data(3)
    for est in ESTIMATORS:
        quiet_fit(est, X, y)
    assert capsys.readouterr().out == ""


def test_stop_reasons(capsys):
    X, y = make_blobs(60, centers=[[-5, 0], [5, 0]], random_state=0)
    Perceptron(verbose=1).fit(X, y)
    assert CLOSING.match(lines_of(capsys)[-1])["reason"] == "converged"

    X, y = data(2, seed=1)
    clf = Perceptron(verbose=1, tol=1e-3, n_iter_no_change=3).fit(X, y)
    assert not clf.converged_
    assert CLOSING.match(lines_of(capsys)[-1])["reason"] == (
        "tol rule: no fewer updates in 3 epochs")

    clf = Perceptron(verbose=1, early_stopping=True, n_iter_no_change=2).fit(X, y)
    assert CLOSING.match(lines_of(capsys)[-1])["reason"] == (
        "early stopping: no better validation accuracy in 2 epochs")

    quiet_fit(Perceptron(verbose=1, tol=None, max_iter=3), X, y)
    assert CLOSING.match(lines_of(capsys)[-1])["reason"] == "max_iter=3 reached"


def test_rows_that_stop_apart_are_counted(capsys):
    # Class 0 is far from the others (its row converges), classes 1 and 2
    # overlap (their rows run to max_iter).
    rng = np.random.RandomState(0)
    X = np.vstack([rng.normal([-20, 0], 1, (30, 2)),
                   rng.normal([5, 0], 3, (60, 2))])
    y = np.repeat([0, 1, 2], 30)
    clf = quiet_fit(Perceptron(verbose=1, tol=None, max_iter=30,
                               random_state=0), X, y)
    lines = lines_of(capsys)
    epochs, reason = check_fit_lines(lines, clf.n_iter_, 30)
    assert reason == "3 rows: 1 converged, 2 at max_iter=30"
    # Once the first row has stopped, the lines say how many still train.
    assert epochs[-1]["active"] == "2" and epochs[-1]["rows"] == "3"
    assert epochs[0]["active"] is None


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_the_printed_norm_is_the_documented_one(kernel, capsys):
    X, y = data(2)
    clf = quiet_fit(Perceptron(verbose=1, tol=None, max_iter=3), X, y)
    norm = float(EPOCH.match(lines_of(capsys)[-2])["norm"])
    assert norm == pytest.approx(np.linalg.norm(clf.coef_), rel=1e-3)

    # The norm of the iterate: without averaging, that of dual_coef_.
    clf = quiet_fit(KernelPerceptron(kernel=kernel, verbose=1, tol=None,
                                     max_iter=3, average=False), X, y)
    norm = float(EPOCH.match(lines_of(capsys)[-2])["norm"])
    # ||f||^2 = a^T (K + 1) a, the intercept a constant feature.
    sv, a = clf.support_vectors_, clf.dual_coef_[0]
    K = sv @ sv.T if kernel == "linear" else rbf_kernel(sv, gamma=clf.gamma_)
    assert norm == pytest.approx(np.sqrt(a @ (K + 1.0) @ a), rel=1e-3)


def test_margin_search_lowerings_show_compactly(capsys):
    X, y = data(3)
    clf = quiet_fit(MarginPerceptron(verbose=1, max_iter=5, tol=None), X, y)
    lines = lines_of(capsys)
    check_fit_lines(lines, clf.n_iter_, 5)
    summaries = [line for line in lines if DETAIL.match(line)]
    assert summaries
    pattern = re.compile(r"   gamma lowered in (1 row|(\d) rows), now "
                         r"[\d.e+-]+( to [\d.e+-]+)?")
    assert all(pattern.fullmatch(line) for line in summaries), summaries
    # Each summary follows the line of its epoch.
    for i, line in enumerate(lines):
        if DETAIL.match(line):
            assert EPOCH.match(lines[i - 1])

    # verbose=2: a line per lowered row instead of each summary.
    quiet_fit(MarginPerceptron(verbose=2, max_iter=5, tol=None), X, y)
    details = [line for line in lines_of(capsys) if DETAIL.match(line)]
    lowered = sum(int(pattern.fullmatch(line)[2] or 1) for line in summaries)
    assert len(details) == lowered
    assert all(re.fullmatch(r"   row \d: gamma lowered by \d+ level\(s\) to "
                            r"[\d.e+-]+ \(the maximum margin is at most "
                            r"[\d.e+-]+\)", line)
               for line in details), details

    # A binary search names no rows.
    quiet_fit(MarginPerceptron(verbose=1, max_iter=3, tol=None), X, y == 0)
    summaries = [line for line in lines_of(capsys) if DETAIL.match(line)]
    assert summaries and all(line.startswith("   gamma lowered to ")
                             for line in summaries)


def test_partial_fit_prints_one_line_per_call(capsys):
    X, y = data(3)
    for est in [Perceptron(), MarginPerceptron(), MarginPerceptron(margin=0.5),
                SecondOrderPerceptron(), KernelPerceptron(),
                KernelPerceptron(budget=10), OneVsAllPerceptron(Perceptron()),
                OneVsOnePerceptron(Perceptron())]:
        est = _with_verbose(est)
        est.partial_fit(X[:50], y[:50], classes=[0, 1, 2])
        est.partial_fit(X[50:51], y[50:51])
        lines = lines_of(capsys)
        assert len(lines) == 2, (est, lines)
        matches = [PARTIAL.match(line) for line in lines]
        assert all(matches), lines
        assert [(int(m["k"]), int(m["n"])) for m in matches] == [(1, 50), (2, 1)]
        if not hasattr(est, "estimators_"):
            assert [int(m["updates"]) for m in matches] == est.mistakes_per_epoch_


def test_the_generic_path_names_its_sub_problems(capsys):
    X, y = data(3)
    base = Perceptron(verbose=1, tol=None, max_iter=2, class_weight="balanced")
    quiet_fit(OneVsAllPerceptron(base), X, y)
    lines = lines_of(capsys)
    assert {line.split("]")[0] + "]" for line in lines} == {
        "[0 vs rest]", "[1 vs rest]", "[2 vs rest]"}
    for name in ["0 vs rest", "1 vs rest", "2 vs rest"]:
        own = [line[len(name) + 3:] for line in lines if line.startswith(f"[{name}]")]
        check_fit_lines(own, 2, 2)

    quiet_fit(OneVsOnePerceptron(base), X, y)
    assert {line.split("]")[0] + "]" for line in lines_of(capsys)} == {
        "[0 vs 1]", "[0 vs 2]", "[1 vs 2]"}
    # The fast path prints one set of lines for every row, unnamed.
    quiet_fit(OneVsAllPerceptron(Perceptron(verbose=1, max_iter=2)), X, y)
    assert all(line.startswith("--") for line in lines_of(capsys))


# -- progress within an epoch -------------------------------------------------


@pytest.fixture
def every_chunk_prints(monkeypatch):
    """Chunks of one visit after the first few (the budgeted walk: of 10),
    and a line after each."""
    monkeypatch.setattr(_budget, "_CHUNK", 10)
    monkeypatch.setattr(progress, "CHUNK_FIRST", 7)
    monkeypatch.setattr(progress, "CHUNK_SECONDS", 0.0)
    monkeypatch.setattr(progress, "PROGRESS_SECONDS", 0.0)


WALKS = [
    KernelPerceptron(max_iter=2, tol=None),
    KernelPerceptron(max_iter=2, tol=None, average=True, kernel="poly",
                     cache_size=0.001),
    KernelPerceptron(max_iter=2, multi_class="crammer_singer", kernel="laplacian"),
    KernelPerceptron(max_iter=2, tol=None, budget=60, budget_strategy="forgetron"),
    KernelPerceptron(max_iter=2, tol=None, kernel=lambda A, B: (A @ B.T + 1.0) ** 2),
    VotedPerceptron(max_iter=2),
    VotedPerceptron(max_iter=2, kernel="rbf", cache_size=0.001),
    Perceptron(max_iter=2, tol=None),
    Perceptron(max_iter=2, tol=None, average=True, n_jobs=2),
    Perceptron(max_iter=2, tol=None, multi_class="crammer_singer"),
    MarginPerceptron(max_iter=2, tol=None),
    MarginPerceptron(max_iter=2, tol=None, margin=0.5, average=True),
    SecondOrderPerceptron(max_iter=2, tol=None),
    SecondOrderPerceptron(max_iter=2, tol=None, diagonal=True, average=True),
    OneVsOnePerceptron(Perceptron(max_iter=2, tol=None)),
]


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("est", WALKS, ids=repr)
def test_walks_report_within_epochs_and_keep_their_results(
        est, sparse, every_chunk_prints, capsys):
    X, y = data(3, n=150)
    if sparse:
        if callable(getattr(est, "kernel", None)):
            pytest.skip("the callable is written for dense rows")
        X = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0))
    silent = quiet_fit(clone(est), X, y)
    assert capsys.readouterr().out == ""
    loud = quiet_fit(_with_verbose(est), X, y)
    # The model bit for bit (the reductions' through their decisions).
    assert_array_equal(loud.decision_function(X), silent.decision_function(X))
    for name in ["coef_", "intercept_", "dual_coef_", "support_",
                 "mistake_coef_", "survival_counts_", "mistakes_per_epoch_"]:
        if hasattr(silent, name):
            assert_array_equal(getattr(loud, name), getattr(silent, name))
    lines = lines_of(capsys)
    fitted = loud.estimators_[0] if hasattr(loud, "estimators_") else loud
    check_fit_lines(lines, fitted.n_iter_, 2)
    within = [WITHIN.match(line) for line in lines if WITHIN.match(line)]
    visited = [int(m["visited"].replace(",", "")) for m in within
               if m["k"] == "1"]
    assert visited and visited == sorted(visited) and visited[-1] < 150
    assert all(int(m["n"].replace(",", "")) == 150 for m in within)
    if getattr(est, "budget", None) is None:
        # Chunks of 7, 3, then single visits: a line after each but the last.
        assert visited[:3] == [7, 10, 11] and len(visited) == 150 - 7 - 3 + 1
    else:
        assert visited == list(range(10, 150, 10))


def test_a_penalized_epoch_runs_whole(every_chunk_prints, capsys):
    X, y = data(3, n=150)
    params = dict(max_iter=2, tol=None, penalty="elasticnet", alpha=1e-3)
    silent = quiet_fit(Perceptron(**params), X, y)
    loud = quiet_fit(Perceptron(verbose=1, **params), X, y)
    assert_array_equal(loud.coef_, silent.coef_)
    lines = lines_of(capsys)
    assert not any(WITHIN.match(line) for line in lines)
    check_fit_lines(lines, 2, 2)


def test_no_line_within_short_epochs(capsys):
    X, y = make_moons(300, noise=0.2, random_state=0)
    clf = KernelPerceptron(verbose=1, max_iter=2, tol=None).fit(X, y)
    lines = lines_of(capsys)
    assert not any(WITHIN.match(line) for line in lines)
    check_fit_lines(lines, clf.n_iter_, 2)


def test_chunks_cover_the_visits_in_order(monkeypatch):
    monkeypatch.setattr(progress, "CHUNK_FIRST", 5)
    bounds = list(progress.chunks(1000))
    assert bounds[0] == (0, 5)
    assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))
    assert bounds[-1][1] == 1000
    assert list(progress.chunks(0)) == []


@pytest.mark.parametrize("seconds, text", [
    (0.00041, "0.41 ms"), (0.33, "330 ms"), (2.5, "2.5 s"), (59.4, "59.4 s"),
    (125, "2 min 05 s"), (3725, "1 h 02 min"),
])
def test_durations_read_as_a_person_says_them(seconds, text):
    assert progress.format_seconds(seconds) == text
