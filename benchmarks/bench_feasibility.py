# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Time to a feasible point: relaxation_method vs scipy's linprog (HiGHS).

The case: a large sparse feasible system ``A x <= b`` (CSR, standard normal
nonzeros at 1% density, ``b = A x* + u`` with ``x* ~ N(0, I)`` and ``u ~
U(0, 1)``, so the system has an interior point), which linprog solves as an LP
with a zero objective and free variables. For every order of
``relaxation_method`` (eta = 1, the projection, and eta = 1.9, an
over-relaxation), and for float64 and float32 A, the benchmark reports the
median wall time over the repeats, its ratio to linprog(method="highs") and to
the fastest linprog method (``"highs"`` lets HiGHS pick, the dual simplex
here; ``"highs-ipm"`` is its interior-point method), whether the solver
succeeded and the final largest violation ``max(0, max(A x - b))``.

Profiles: quick (20,000 x 500, 3 repeats) and full (100,000 x 1,000, 5
repeats). In the full profile linprog's repeats stop once they have used 90
seconds (at least one run; the count used is reported): there a single
"highs" solve takes minutes.

BLAS and OpenMP pools are limited to one thread with threadpoolctl when it is
installed (the solvers are sequential; HiGHS is run single-threaded by
default in scipy).

Usage::

    python benchmarks/bench_feasibility.py          # quick
    python benchmarks/bench_feasibility.py --full

``run(quick=True)`` returns the rows as a list of dicts, for benchmarks/run.py.
"""

import argparse
import contextlib
import statistics
import time

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from sklearn_perceptrons.feasibility import relaxation_method

try:
    from threadpoolctl import threadpool_limits
except ImportError:  # pragma: no cover
    threadpool_limits = None

PROFILES = {
    "quick": {"n": 20_000, "p": 500, "density": 0.01, "repeats": 3,
              "linprog_budget_s": None},
    "full": {"n": 100_000, "p": 1_000, "density": 0.01, "repeats": 5,
             "linprog_budget_s": 90.0},
}  # fmt: skip
ORDERS = ("cyclic", "permuted", "random", "max_distance", "max_residual")
ETAS = (1.0, 1.9)
LINPROG_METHODS = ("highs", "highs-ipm")


def make_system(n, p, density, seed=0):
    """A random sparse feasible system with an interior point (CSR, float64)."""
    rng = np.random.RandomState(seed)
    A = sp.random(
        n, p, density=density, format="csr", random_state=rng,
        data_rvs=rng.standard_normal,
    )  # fmt: skip
    x_star = rng.standard_normal(p)
    b = A @ x_star + rng.uniform(0.0, 1.0, size=n)
    return A, b


def _timed(func, repeats, budget=None):
    """Median wall time of ``func()`` over repeats; also its last result."""
    times = []
    result = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - t0)
        if budget is not None and sum(times) > budget:
            break
    return statistics.median(times), len(times), result


def _maxcv(A, b, x):
    return float(max(0.0, np.max(A @ x - b)))


def run(quick=True):
    """Run the benchmark; rows in the common table format of benchmarks/run.py."""
    rows = []
    for r in measure(quick):
        solver = r["solver"] if r["solver"].startswith("linprog") else (
            f"relaxation {r['order']} eta={r['eta']:g}")
        case = f"{r['n']}x{r['p']} CSR {r['dtype']}, {solver}"
        note = (f"{r['time_s']:.3f} s, {'success' if r['success'] else 'FAILED'}, "
                f"maxcv {r['maxcv']:.1e}, {r['repeats']} runs")
        rows.append(dict(case=case, metric="time / fastest linprog (HiGHS)",
                         value=r["ratio_vs_best_linprog"], target=None, met=None,
                         note=note))
    return rows


def measure(quick=True):
    """Run the benchmark; return one dict per (solver, order, eta, dtype)."""
    profile = "quick" if quick else "full"
    cfg = PROFILES[profile]
    A, b = make_system(cfg["n"], cfg["p"], cfg["density"])
    A32 = A.astype(np.float32)
    repeats = cfg["repeats"]
    limits = (
        threadpool_limits(limits=1)
        if threadpool_limits is not None
        else contextlib.nullcontext()
    )
    threads = "1" if threadpool_limits is not None else "default"
    common = {
        "profile": profile,
        "n": A.shape[0],
        "p": A.shape[1],
        "nnz": A.nnz,
        "threads": threads,
    }
    rows = []
    with limits:
        for method in LINPROG_METHODS:
            t, k, res = _timed(
                lambda m=method: linprog(
                    np.zeros(A.shape[1]), A_ub=A, b_ub=b, bounds=(None, None),
                    method=m,
                ),
                repeats,
                budget=cfg["linprog_budget_s"],
            )  # fmt: skip
            rows.append({
                **common, "solver": f"linprog {method}", "order": "", "eta": None,
                "dtype": "float64", "time_s": t, "repeats": k,
                "success": bool(res.status == 0), "maxcv": _maxcv(A, b, res.x),
                "nit": int(res.nit), "n_sweeps": None,
            })  # fmt: skip
        for dtype, M in (("float64", A), ("float32", A32)):
            for order in ORDERS:
                for eta in ETAS:
                    t, k, res = _timed(
                        lambda M=M, o=order, e=eta: relaxation_method(
                            M, b, order=o, eta=e, random_state=0
                        ),
                        repeats,
                    )
                    rows.append({
                        **common, "solver": "relaxation", "order": order,
                        "eta": eta, "dtype": dtype, "time_s": t, "repeats": k,
                        "success": bool(res.success), "maxcv": float(res.maxcv),
                        "nit": int(res.nit), "n_sweeps": int(res.n_sweeps),
                    })  # fmt: skip
    t_highs = rows[0]["time_s"]
    t_best = min(r["time_s"] for r in rows if r["solver"].startswith("linprog"))
    for r in rows:
        r["ratio_vs_highs"] = r["time_s"] / t_highs
        r["ratio_vs_best_linprog"] = r["time_s"] / t_best
    return rows


def format_table(rows):
    head = (
        f"{'solver':<18}{'order':<14}{'eta':>5}{'dtype':>9}{'time (s)':>11}"
        f"{'rep':>5}{'/highs':>9}{'/best LP':>10}{'ok':>4}{'maxcv':>10}"
        f"{'nit':>10}{'sweeps':>8}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        eta = "" if r["eta"] is None else f"{r['eta']:.1f}"
        sweeps = "" if r["n_sweeps"] is None else str(r["n_sweeps"])
        lines.append(
            f"{r['solver']:<18}{r['order']:<14}{eta:>5}{r['dtype']:>9}"
            f"{r['time_s']:>11.4f}{r['repeats']:>5}{r['ratio_vs_highs']:>9.4f}"
            f"{r['ratio_vs_best_linprog']:>10.3f}{'y' if r['success'] else 'n':>4}"
            f"{r['maxcv']:>10.1e}{r['nit']:>10}{sweeps:>8}"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--full", action="store_true", help="100,000 x 1,000 (default: quick)"
    )
    args = parser.parse_args(argv)
    rows = measure(quick=not args.full)
    r = rows[0]
    print(
        f"Feasibility, A x <= b: CSR {r['n']:,} x {r['p']:,}, nnz {r['nnz']:,}; "
        f"{r['profile']} profile; threads: {r['threads']}; medians of repeats."
    )
    print(format_table(rows))


if __name__ == "__main__":
    main()
