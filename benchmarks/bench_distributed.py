# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Distributed training by iterative parameter mixing on a local Dask cluster.

Rounds to convergence and time of ``ParameterMixing(Perceptron())`` with one
worker (one partition: the serial perceptron, epoch for epoch) and with two
workers (two partitions), on separable data of 2,000,000 x 20 (``--full``)
or 200,000 x 20 (quick), generated on the workers and persisted there before
timing.  Also: the fixed cost of a round (a tiny problem), the same fit in
process without Dask (``Perceptron.fit``), the number of floats a partition
exchanges per round, and the convergence theorem checked on the run
(McDonald et al., 2010: the uniformly mixed update count is at most
``(R / gamma)**2``, here with the margin ``gamma`` of the generating
hyperplane, an upper bound of the exact one).

Each cluster is a ``distributed.LocalCluster`` on 127.0.0.1 with one thread
per worker process, BLAS limited to one thread.  Without Dask the module
returns a single row saying so.

Run ``python benchmarks/bench_distributed.py [--full]``.
"""

import logging
import time
import warnings

import numpy as np

from _common import format_table, row, single_threaded, command_line

N_FEATURES = 20
MARGIN = 0.05


def _dask_available():
    try:
        import dask.array  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


def _hyperplane(seed=0):
    rng = np.random.RandomState(seed)
    u = rng.standard_normal(N_FEATURES)
    return u / np.linalg.norm(u), 0.1


def make_data(n_samples, n_partitions, seed=0):
    """Separable data, generated lazily in 8 blocks (so that every
    partitioning holds the same rows): Gaussian points pushed ``MARGIN``
    away from a random hyperplane ``u . x + b = 0``."""
    import dask.array as da

    u, b = _hyperplane(seed)
    X = da.random.RandomState(seed).standard_normal(
        (n_samples, N_FEATURES), chunks=(-(-n_samples // 8), N_FEATURES))
    y = (X @ u + b > 0).astype(np.int64)
    X = X + da.where(y[:, None] == 1, MARGIN, -MARGIN) * u
    rows = -(-n_samples // n_partitions)
    return X.rechunk((rows, N_FEATURES)), y.rechunk(rows)


def geometry(X, y, seed=0):
    """R**2 (padded) and the margin of the generating hyperplane (padded)."""
    import dask
    import dask.array as da

    u, b = _hyperplane(seed)
    signs = da.where(y == 1, 1.0, -1.0)
    sq_radius, min_score = dask.compute(
        ((X ** 2).sum(axis=1) + 1.0).max(), (signs * (X @ u + b)).min())
    return float(sq_radius), float(min_score) / float(np.hypot(1.0, b))


def _cluster(n_workers):
    from distributed import Client, LocalCluster

    with warnings.catch_warnings():
        # The second cluster's HTTP server (health checks; no dashboard)
        # takes another port than 8787 on 127.0.0.1: nothing to report.
        warnings.filterwarnings("ignore", message="Port .* is already in use")
        cluster = LocalCluster(
            n_workers=n_workers, threads_per_worker=1, processes=True,
            dashboard_address=None, host="127.0.0.1", silence_logs=logging.ERROR,
        )
    return cluster, Client(cluster)


def _fit(make, X, y):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make().fit(X, y)
    return time.perf_counter() - start, model


def _limit_worker_threads():
    """Every pool of a worker to one thread (run on each worker)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)


def _mixing(max_rounds=1000):
    from sklearn_perceptrons import Perceptron
    from sklearn_perceptrons.distributed import ParameterMixing

    return ParameterMixing(Perceptron(), max_rounds=max_rounds, tol=None)


def run(quick=True):
    if not _dask_available():
        return [row("distributed", "skipped", "dask not installed",
                    note='pip install "sklearn_perceptrons[dask]"')]
    from sklearn_perceptrons import Perceptron

    n_samples = 200_000 if quick else 2_000_000
    repeats = 3 if quick else 5
    size = f"{n_samples:,}x{N_FEATURES}"
    scale_note = "quick: 200,000 rows (--full: 2,000,000)" if quick else ""
    workers = (1, 2)
    clusters, data, tiny, times = {}, {}, {}, {}
    logger = logging.getLogger("distributed")
    log_level = logger.level
    with single_threaded() as threads:
        try:
            # Both clusters stay up and the fits alternate between them, so
            # that both see the same background load of a shared machine.
            for n in workers:
                cluster, client = _cluster(n)
                clusters[n] = (cluster, client)
                try:
                    client.run(_limit_worker_threads)
                except ImportError:  # threadpoolctl missing on the workers
                    pass
                data[n] = client.persist(list(make_data(n_samples, n)))
                tiny[n] = client.persist(list(make_data(1000, n)))
                times[n] = {"fit": [], "first": [], "tiny": []}
            with clusters[1][1].as_current():
                X_local, y_local = clusters[1][1].compute(data[1], sync=True)
                sq_radius, gamma = geometry(*data[1])
            times["serial"] = []
            models = {}
            for _ in range(repeats):
                for n in workers:
                    with clusters[n][1].as_current():
                        seconds, models[n] = _fit(_mixing, *data[n])
                        times[n]["fit"].append(seconds)
                        # Setup (load, labels, encoding) plus one round.
                        times[n]["first"].append(_fit(lambda: _mixing(1), *data[n])[0])
                        # The fixed cost of a round: 20 rounds on 1,000 rows.
                        times[n]["tiny"].append(
                            _fit(lambda: _mixing(20), *tiny[n])[0] / 20)
                seconds, serial = _fit(
                    lambda: Perceptron(max_iter=1000, tol=None), X_local, y_local)
                times["serial"].append(seconds)
        finally:
            logger.setLevel(logging.ERROR)  # the closing chatter
            for cluster, client in reversed(list(clusters.values())):
                client.close()
                cluster.close()
            logger.setLevel(log_level)
    med = {n: {k: float(np.median(v)) for k, v in times[n].items()} for n in workers}
    serial_seconds = float(np.median(times["serial"]))
    rows, per_round = [], {}
    bound = sq_radius / gamma ** 2
    for n in workers:
        model, m = models[n], med[n]
        per_round[n] = (m["fit"] - m["first"]) / max(model.n_iter_ - 1, 1)
        label = f"{size}, {n} worker(s), {model.n_partitions_} partition(s)"
        mixed = model.mistakes_per_round_.sum() / model.n_partitions_
        rows += [
            row(label, "rounds to convergence", model.n_iter_,
                note=f"converged={model.converged_}; {scale_note}".rstrip("; ")),
            row(label, "fit time (s)", m["fit"], note=threads),
            row(label, "time per round (ms)", 1e3 * per_round[n],
                note="(fit - fit of 1 round) / (rounds - 1)"),
            row(label, "setup: load, labels, encode (ms)",
                1e3 * max(m["first"] - per_round[n], 0.0)),
            row(f"{n} worker(s), 1,000 rows", "fixed cost of a round (ms)",
                1e3 * m["tiny"], note="scheduling + weights round trip"),
            row(label, "mixed updates / (R/gamma)^2", float(mixed / bound),
                at_most=1.0,
                note=f"{mixed:.0f} mixed updates, bound {bound:.0f} (Theorem 3)"),
        ]
    one, two = models[1], models[2]
    rows += [
        row(f"{size}, in process", "Perceptron.fit time (s)", serial_seconds,
            note=f"{serial.n_iter_} epochs, no Dask"),
        row(f"{size}", "1 worker / in-process time", med[1]["fit"] / serial_seconds,
            note="Dask overhead of the 1-partition run"),
        row(f"{size}", "1 worker = Perceptron.fit (bit for bit)",
            bool(np.array_equal(one.coef_, serial.coef_)),
            note="same rounds, same weights"),
        row(f"{size}", "speedup 1 -> 2 workers (time per round)",
            per_round[1] / per_round[2]),
        row(f"{size}", "speedup 1 -> 2 workers (total time)",
            med[1]["fit"] / med[2]["fit"],
            note=f"rounds {one.n_iter_} -> {two.n_iter_}"),
        row("per round, per partition", "floats sent and received each way",
            two.coef_.shape[0] * (N_FEATURES + 1),
            note="K x (n_features + 1); K = 1 for binary"),
    ]
    return rows


if __name__ == "__main__":
    print(format_table(run(quick=not command_line(__doc__).full)))
