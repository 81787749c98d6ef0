# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Feasibility: relaxation_method vs HiGHS, and P16 (iterations against rho).

Two suites.

**P16, conditioning.** A family of random homogeneous systems ``A w > 0``
(``n`` rows, ``p`` columns) whose condition measure ``rho(A)`` (exactly
known by construction, checked with ``bounds.condition_measure``) halves
from one instance to the next. For each instance: iterations, median time
and status of ``perceptron_feasibility`` (updates; cyclic order),
``smooth_perceptron``, ``perceptron_von_neumann`` and
``rescaled_perceptron`` (iterations), and of HiGHS (``linprog`` on
``A w >= 1``). The log-log slopes of iterations against ``1 / rho`` over the
instances a method solved: the theory says 2 for the perceptron
(``1 / rho**2``), 1 for the smooth perceptron (``sqrt(log n) / rho``),
``log(1 / rho)`` for the rescaled one. Target: the smooth perceptron's slope
at most 1.3, and the rescaled perceptron solves the instances where the
perceptron (and the smooth one) run out of their default ``max_iter``.

**Time to a feasible point, A x <= b.**

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
repeats). linprog's repeats stop once they have used 8 s (quick) or 90 s (full; at
least one run; the count used is reported): a single "highs" solve takes
seconds (quick) or minutes (full).

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
from scipy.optimize import OptimizeResult, linprog

from sklearn_perceptrons.bounds import condition_measure
from sklearn_perceptrons.feasibility import (
    perceptron_feasibility,
    perceptron_von_neumann,
    relaxation_method,
    rescaled_perceptron,
    smooth_perceptron,
)

try:
    from benchmarks._common import format_table as _format_rows
    from benchmarks._common import row, single_threaded
except ImportError:  # run as a script from the benchmarks folder
    from _common import format_table as _format_rows
    from _common import row, single_threaded

try:
    from threadpoolctl import threadpool_limits
except ImportError:  # pragma: no cover
    threadpool_limits = None

PROFILES = {
    "quick": {"n": 20_000, "p": 500, "density": 0.01, "repeats": 3,
              "linprog_budget_s": 8.0},
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


# ---------------------------------------------------------------------------
# P16: iterations against the condition measure
# ---------------------------------------------------------------------------

P16_PROFILES = {
    # rho_0 / 2**k for k < steps, then the extra instances beyond the
    # perceptron's reach.
    "quick": {"n": 200, "p": 10, "rho0": 0.1, "steps": 8,
              "extra": (1e-5, 1e-7), "repeats": 3},
    "full": {"n": 1000, "p": 20, "rho0": 0.1, "steps": 12,
             "extra": (1e-6, 1e-7), "repeats": 5},
}  # fmt: skip
P16_SOLVERS = {
    "perceptron": lambda A: perceptron_feasibility(A),
    "smooth": lambda A: smooth_perceptron(A, max_iter=10**6),
    "von Neumann": lambda A: perceptron_von_neumann(A, max_iter=10**6),
    "rescaled": lambda A: rescaled_perceptron(A),
    "smooth (default max_iter)": lambda A: smooth_perceptron(A),
}


def cone(rho, n, p, seed=0):
    """A random system ``A w > 0`` with condition measure exactly ``rho``.

    Half the rows sit at angular height ``rho`` over the hyperplane of a
    random unit direction ``d``, with tangent parts averaging to 0, so that
    ``rho d`` is the point of their hull nearest the origin; the other rows
    are higher. Rows get random norms in [0.5, 3].
    """
    rng = np.random.RandomState(seed)
    Q, _ = np.linalg.qr(rng.randn(p, p))
    d, T = Q[:, 0], Q[:, 1:]
    z = rng.randn(n, p - 1)
    z[: n // 2] -= z[: n // 2].mean(axis=0)
    z /= np.linalg.norm(z, axis=1)[:, None]
    h = np.full(n, rho)
    h[n // 2 :] = np.minimum(rho + rng.uniform(0, 0.5, n - n // 2), 0.99)
    rows = h[:, None] * d + np.sqrt(1 - h**2)[:, None] * (z @ T.T)
    return rows * rng.uniform(0.5, 3.0, n)[:, None]


def _highs(A):
    res = linprog(
        np.zeros(A.shape[1]), A_ub=-A, b_ub=-np.ones(A.shape[0]),
        bounds=(None, None), method="highs",
    )  # fmt: skip
    ok = res.status == 0 and bool(np.all(A @ res.x > 0))
    return OptimizeResult(success=ok, status=res.status, nit=res.nit, x=res.x)


def measure_p16(quick=True):
    """One dict per (instance, method) of the P16 family."""
    cfg = P16_PROFILES["quick" if quick else "full"]
    n, p = cfg["n"], cfg["p"]
    rhos = [cfg["rho0"] / 2**k for k in range(cfg["steps"])] + list(cfg["extra"])
    solvers = dict(P16_SOLVERS, HiGHS=_highs)
    out = []
    for k, rho in enumerate(rhos):
        A = cone(rho, n, p, seed=k)
        measured = condition_measure(A)
        extra = k >= cfg["steps"]
        for name, solve in solvers.items():
            if name == "smooth (default max_iter)" and not extra:
                continue
            if extra and name in ("smooth", "von Neumann"):
                continue  # 10**6 iterations: not what the extra rows show
            t, reps, res = _timed(lambda s=solve: s(A), cfg["repeats"], budget=2.0)
            ok = bool(res.success) and bool(np.all(A @ res.x > 0))
            out.append({
                "rho": rho, "rho_measured": measured, "method": name,
                "nit": int(res.nit), "time_s": t, "repeats": reps,
                "status": int(res.status), "success": ok, "extra": extra,
                "n_rescalings": res.get("n_rescalings"),
            })  # fmt: skip
    return out


def p16_slopes(results):
    """Log-log slope of iterations against 1 / rho, per method, over the
    instances of the halving family it solved."""
    slopes = {}
    for name in P16_SOLVERS:
        pts = [(r["rho_measured"], r["nit"]) for r in results
               if r["method"] == name and r["success"] and not r["extra"]
               and r["nit"] > 0]  # fmt: skip
        if len(pts) >= 3:
            x = np.log([1 / q for q, _ in pts])
            y = np.log([k for _, k in pts])
            slopes[name] = float(np.polyfit(x, y, 1)[0])
    return slopes


def p16_rows(results, n, p):
    rows = []
    for r in results:
        note = (f"{r['time_s']:.4f} s, status {r['status']}, "
                f"{'solved' if r['success'] else 'NOT solved'}")  # fmt: skip
        if r["n_rescalings"] is not None:
            note += f", {r['n_rescalings']} rescalings"
        rows.append(row(
            f"P16 {n}x{p} rho={r['rho_measured']:.2e}, {r['method']}",
            "iterations", r["nit"], note=note,
        ))  # fmt: skip
    slopes = p16_slopes(results)
    for name, slope in slopes.items():
        target = {"smooth": dict(at_most=1.3), "von Neumann": dict(at_most=1.3)}
        rows.append(row(
            f"P16 {n}x{p}, {name}", "log-log slope of iterations vs 1/rho",
            slope, **target.get(name, {}),
            note="theory: 2" if name == "perceptron" else "",
        ))  # fmt: skip
    exhausted = {r["rho"] for r in results
                 if r["method"] == "perceptron" and r["status"] == 1}  # fmt: skip
    rescued = sum(
        1 for r in results if r["method"] == "rescaled" and r["success"]
        and r["rho"] in exhausted
    )  # fmt: skip
    rows.append(row(
        f"P16 {n}x{p}", "instances rescaled solves where the perceptron "
        "exhausts max_iter", rescued, at_least=len(exhausted),
        note=f"the perceptron exhausted its default max_iter on {len(exhausted)}",
    ))  # fmt: skip
    return rows


def run(quick=True):
    """Run the benchmark; rows in the common table format of benchmarks/run.py."""
    cfg = P16_PROFILES["quick" if quick else "full"]
    with single_threaded():
        rows = p16_rows(measure_p16(quick), cfg["n"], cfg["p"])
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


def format_p16(results, n, p):
    methods = list(dict.fromkeys(r["method"] for r in results))
    head = f"{'rho':>10}" + "".join(f"{m[:16]:>30}" for m in methods)
    lines = [f"P16: A w > 0, {n} x {p}; iterations / median time (s) / status",
             head, "-" * len(head)]  # fmt: skip
    for rho in dict.fromkeys(r["rho_measured"] for r in results):
        cells = []
        for m in methods:
            r = [q for q in results if q["rho_measured"] == rho and q["method"] == m]
            cells.append(
                f"{r[0]['nit']:>12} {r[0]['time_s']:>9.4f} {r[0]['status']:>3}"
                + (" " if r[0]["success"] else "!")
                if r else " " * 26
            )
        lines.append(f"{rho:>10.2e}" + "".join(f"{c:>30}" for c in cells))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--full", action="store_true", help="100,000 x 1,000 (default: quick)"
    )
    parser.add_argument("--p16", action="store_true", help="only P16")
    args = parser.parse_args(argv)
    cfg = P16_PROFILES["full" if args.full else "quick"]
    with single_threaded():
        p16 = measure_p16(quick=not args.full)
    print(format_p16(p16, cfg["n"], cfg["p"]))
    print(_format_rows(p16_rows(p16, cfg["n"], cfg["p"])[-len(P16_SOLVERS) - 1 :]))
    if args.p16:
        return
    rows = measure(quick=not args.full)
    r = rows[0]
    print(
        f"Feasibility, A x <= b: CSR {r['n']:,} x {r['p']:,}, nnz {r['nnz']:,}; "
        f"{r['profile']} profile; threads: {r['threads']}; medians of repeats."
    )
    print(format_table(rows))


if __name__ == "__main__":
    main()
