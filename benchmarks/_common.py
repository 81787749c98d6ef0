# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Helpers shared by the benchmark modules: timing, rows and reports.

Every figure is a ratio measured side by side in one process, as the median of
repeats, because the machines are shared and absolute times drift.  A row with
a target (``at_most`` or ``at_least``) is a *target row*; a row without one is
an *information row*.  Reports fit in 100 columns.
"""

import argparse
import textwrap
import time
import warnings
from contextlib import contextmanager

import numpy as np

#: Width of every report line.
WIDTH = 100

# Functions called with every row as soon as it is made (``run.py`` prints
# progress through this, so that a long suite is never silent).
_listeners = []


def add_listener(func):
    """Call ``func(row)`` for every row made from now on; returns ``func``."""
    _listeners.append(func)
    return func


def remove_listener(func):
    _listeners.remove(func)


def median_time(func, repeats=5, warmup=1):
    """Median wall time of ``func()`` over ``repeats`` runs, after warm-up."""
    for _ in range(warmup):
        func()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def median_per_call(func, calls, repeats=5):
    """Median over ``repeats`` of the mean time of one call in a batch."""
    return median_time(lambda: [func() for _ in range(calls)], repeats) / calls


def interleaved_times(funcs, repeats=5, warmup=1):
    """Median time of each function, timed in alternation.

    Alternating the candidates inside every repeat exposes them to the same
    background load, which keeps their ratio honest on a shared machine.
    """
    for func in funcs:
        for _ in range(warmup):
            func()
    times = [[] for _ in funcs]
    for _ in range(repeats):
        for index, func in enumerate(funcs):
            start = time.perf_counter()
            func()
            times[index].append(time.perf_counter() - start)
    return [float(np.median(t)) for t in times]


def two_thread_ratio(repeats=5):
    """What two threads can gain on this machine now: the median time of a
    reference workload that releases the GIL (hashing 16 MB twice) on two
    threads over one, timed in alternation.  About 0.5 on two idle cores,
    near 1 when other work holds the cores; noted beside a measured thread
    speed-up so that it can be read."""
    import hashlib
    from concurrent.futures import ThreadPoolExecutor

    data = bytes(16 * 2**20)

    def work(_):
        hashlib.sha256(data).digest()

    with ThreadPoolExecutor(2) as pool:
        one, two = interleaved_times(
            [lambda: [work(0), work(1)], lambda: list(pool.map(work, [0, 1]))],
            repeats=repeats,
        )
    return two / one


def row(case, metric, value, *, at_most=None, at_least=None, note="",
        spread=None):
    """One result; ``met`` says whether the target holds (None: no target).

    ``spread`` is the standard deviation of ``value`` when it is a mean over
    repeats (see :func:`cv_accuracy`); it is shown as ``value ± spread``.
    """
    target = met = None
    if at_most is not None:
        target, met = f"<= {at_most:g}", bool(value <= at_most)
    elif at_least is not None:
        target, met = f">= {at_least:g}", bool(value >= at_least)
    result = dict(case=case, metric=metric, value=value, target=target, met=met,
                  note=note, spread=spread)
    for listener in list(_listeners):
        listener(result)
    return result


def cv_accuracy(estimator, X, y, *, n_splits=5, n_repeats=10, random_state=0):
    """Mean and standard deviation of the test accuracy over repeated
    stratified k-fold cross-validation (10 x 5 folds by default).

    One train/test split of a small data set moves an accuracy by several
    points; the mean over 50 splits, with its spread, compares estimators.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import RepeatedStratifiedKFold, cross_val_score

    cv = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats,
                                 random_state=random_state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        scores = cross_val_score(estimator, X, y, cv=cv, scoring="accuracy")
    return float(np.mean(scores)), float(np.std(scores))


def is_target(r):
    """Whether a row states a target (else it is for information)."""
    return r.get("target") is not None


@contextmanager
def single_threaded():
    """Limit BLAS and OpenMP pools to one thread, as benchmarks/TARGETS.rst says."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is in the bench extra
        warnings.warn("threadpoolctl is not installed: BLAS threads not limited")
        yield "unlimited (threadpoolctl missing)"
        return
    with threadpool_limits(limits=1):
        yield "1 thread (threadpoolctl)"


def format_value(value, spread=None):
    if isinstance(value, (bool, np.bool_)):
        text = "yes" if value else "no"
    elif isinstance(value, (float, np.floating)):
        value = float(value)
        if value == 0 or 1e-3 <= abs(value) < 1e5:
            text = f"{value:.3f}"
        else:
            text = f"{value:.3g}"
    else:
        text = str(value)
    if spread is not None:
        text += f" ± {format_value(float(spread))}"
    return text


# Columns of a row line: indent, metric, value, target, status ("MISSED").
_VALUE, _TARGET, _STATUS = 15, 9, 6
_METRIC = WIDTH - 2 - (2 + _VALUE) - (2 + _TARGET) - (2 + _STATUS)
_STATUS_TEXT = {True: "met", False: "MISSED", None: ""}


def format_row(r, indent=2):
    """The lines of one row: metric, value, target, status; then its note."""
    pad = " " * indent
    value = format_value(r["value"], r.get("spread"))
    target = r.get("target") or ""
    status = _STATUS_TEXT[r.get("met")]
    metric_lines = textwrap.wrap(str(r["metric"]), _METRIC) or [""]
    figures = f"{value:>{_VALUE}}  {target:<{_TARGET}}  {status}".rstrip()
    if len(pad) + _METRIC + 2 + len(figures) <= WIDTH:
        lines = [f"{pad}{metric_lines[0]:<{_METRIC}}  {figures}"]
        lines += [pad + m for m in metric_lines[1:]]
    else:  # a long textual value: figures on a line of their own
        lines = [pad + m for m in metric_lines]
        lines += textwrap.wrap(f"{value}  {target}  {status}".strip(), WIDTH,
                               initial_indent=pad + "    ",
                               subsequent_indent=pad + "    ")
    if r.get("note"):
        lines += textwrap.wrap(str(r["note"]), WIDTH,
                               initial_indent=pad + "    ",
                               subsequent_indent=pad + "    ")
    return [line.rstrip() for line in lines]


def format_table(rows):
    """Render rows as blocks, one per case, each line within 100 columns."""
    lines, case = [], None
    for r in rows:
        if r["case"] != case:
            case = r["case"]
            lines += textwrap.wrap(str(case), WIDTH, subsequent_indent="    ")
        lines += format_row(r)
    return "\n".join(lines)


def command_line(doc, *, sets=False):
    """The options of a benchmark script run on its own: ``--full`` for the
    full sizes (default: the quick sizes of the main job) and, with
    ``sets``, the names of the data sets to run.  ``--help`` prints them;
    an unknown option is an error, not a run at full length."""
    parser = argparse.ArgumentParser(
        description=doc.strip().splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true",
                        help="full sizes (default: the main job's quick sizes)")
    if sets:
        parser.add_argument("sets", nargs="*", metavar="NAME",
                            help="only these data sets (default: all)")
    return parser.parse_args()
