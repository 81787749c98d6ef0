# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Helpers shared by the benchmark modules: timing, rows and tables.

Every figure is a ratio measured side by side in one process, as the median of
repeats, because the machines are shared and absolute times drift.
"""

import time
import warnings
from contextlib import contextmanager

import numpy as np


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


def row(case, metric, value, *, at_most=None, at_least=None, note=""):
    """One line of the results table; ``met`` says whether the target holds."""
    target = met = None
    if at_most is not None:
        target, met = f"<= {at_most:g}", bool(value <= at_most)
    elif at_least is not None:
        target, met = f">= {at_least:g}", bool(value >= at_least)
    return dict(case=case, metric=metric, value=value, target=target, met=met,
                note=note)


@contextmanager
def single_threaded():
    """Limit BLAS and OpenMP pools to one thread, as PERFORMANCE.md asks."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is in the bench extra
        warnings.warn("threadpoolctl is not installed: BLAS threads not limited")
        yield "unlimited (threadpoolctl missing)"
        return
    with threadpool_limits(limits=1):
        yield "1 thread (threadpoolctl)"


def format_value(value):
    if isinstance(value, float):
        if value == 0 or 1e-3 <= abs(value) < 1e5:
            return f"{value:.3f}"
        return f"{value:.3g}"
    return str(value)


def format_table(rows):
    """Render rows as an RST simple table (it reads well in a terminal too)."""
    headers = ["case", "metric", "value", "target", "met", "note"]
    cells = [
        [
            str(r["case"]),
            str(r["metric"]),
            format_value(r["value"]),
            "" if r.get("target") is None else str(r["target"]),
            {True: "yes", False: "NO", None: ""}[r.get("met")],
            str(r.get("note", "")),
        ]
        for r in rows
    ]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers)]
    rule = "  ".join("=" * w for w in widths)
    lines = [rule, "  ".join(h.ljust(w) for h, w in zip(headers, widths)), rule]
    lines += ["  ".join(c.ljust(w) for c, w in zip(cell, widths)).rstrip()
              for cell in cells]
    lines.append(rule)
    return "\n".join(lines)
