# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Run the benchmarks of sklearn_perceptrons and print one results table.

Usage::

    python benchmarks/run.py              # quick: every target, smaller cases
    python benchmarks/run.py --full       # the full sizes of PERFORMANCE.md
    python benchmarks/run.py --only linear margin
    python benchmarks/run.py --output results.rst

Every figure is a ratio measured side by side in this process (against
scikit-learn and against one ``X @ w`` pass), as a median of repeats, with
BLAS limited to one thread.  Data are generated or come bundled with
scikit-learn: nothing is downloaded.
"""

import argparse
import importlib
import os
import platform
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _common import format_table  # noqa: E402

# The benchmark modules, in the order of the table.
SUITES = ["linear", "margin", "kernel", "kernel_budget", "multiclass", "feasibility",
          "distributed"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true",
                        help="the full problem sizes (takes much longer)")
    parser.add_argument("--only", nargs="+", choices=SUITES, default=SUITES,
                        help="run only these suites")
    parser.add_argument("--output", help="also write the table to this file")
    args = parser.parse_args(argv)

    import numpy
    import sklearn

    import sklearn_perceptrons

    header = (
        f"sklearn_perceptrons {sklearn_perceptrons.__version__}, scikit-learn "
        f"{sklearn.__version__}, numpy {numpy.__version__}, Python "
        f"{platform.python_version()}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs, mode {'full' if args.full else 'quick'}"
    )
    print(header, flush=True)
    rows, missed = [], []
    for suite in args.only:
        module_name = f"bench_{suite}"
        if not os.path.exists(os.path.join(HERE, module_name + ".py")):
            continue
        start = time.perf_counter()
        module = importlib.import_module(module_name)
        suite_rows = module.run(quick=not args.full)
        for r in suite_rows:
            r["case"] = f"[{suite}] {r['case']}"
        rows += suite_rows
        missed += [r for r in suite_rows if r.get("met") is False]
        print(f"... {suite}: {len(suite_rows)} rows in "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    table = format_table(rows)
    print(table)
    print(f"{sum(r.get('met') is True for r in rows)} targets met, "
          f"{len(missed)} missed")
    if args.output:
        with open(args.output, "w") as f:
            f.write(header + "\n\n" + table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
