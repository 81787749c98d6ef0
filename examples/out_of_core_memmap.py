# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Out-of-core training on one machine: a memory-mapped array through partial_fit.

The data set is written to disk in chunks (never held in memory whole), then
streamed through ``Perceptron.partial_fit`` one chunk at a time, each chunk
read through its own ``np.memmap`` window.  The memory the loop uses is
bounded by the chunk size, which is derived from a memory budget smaller
than the data: the script measures the peak of Python/NumPy allocations
(tracemalloc) and the peak growth of the resident set size (RSS), and prints
both next to the size of the memory-mapped data.

Why one window per chunk: pages of a memory map that were read stay mapped
(and counted in the RSS, though the kernel can drop them) until the map is
closed; closing each window after its chunk keeps the RSS bounded as well.

Usage::

    python examples/out_of_core_memmap.py          # 2,000,000 x 20: 160 MiB, seconds
    python examples/out_of_core_memmap.py --big    # 20,000,000 x 50: 3.8 GiB
    python examples/out_of_core_memmap.py --n-samples 10000000 --budget-mb 32

A progress bar is shown when tqdm is installed (plain lines otherwise).
"""

import argparse
import os
import shutil
import sys
import tempfile
import time
import tracemalloc

import numpy as np

from sklearn_perceptrons import Perceptron

X_DTYPE = np.float32
Y_DTYPE = np.int32
# Bytes a row costs inside partial_fit besides its features: the labels, the
# class index, the update size and their temporaries (a generous estimate).
PER_ROW_OVERHEAD = 64


def current_rss():
    """Resident set size of this process in bytes, or None if unknown."""
    try:
        import psutil

        return psutil.Process().memory_info().rss
    except ImportError:
        pass
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


class Progress:
    """tqdm when installed, otherwise a line every 10%."""

    def __init__(self, total, desc, enabled=True):
        self.total, self.desc, self.done, self.enabled = total, desc, 0, enabled
        self.bar = None
        if enabled:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, desc=desc, unit="chunk")
            except ImportError:
                pass
        self._next = 0.1

    def update(self):
        self.done += 1
        if self.bar is not None:
            self.bar.update(1)
        elif self.enabled and self.done >= self._next * self.total:
            print(f"{self.desc}: {self.done}/{self.total} chunks", flush=True)
            self._next += 0.1

    def close(self):
        if self.bar is not None:
            self.bar.close()


def chunk_bounds(n_rows, chunk_rows):
    return [(a, min(a + chunk_rows, n_rows)) for a in range(0, n_rows, chunk_rows)]


def write_dataset(x_path, y_path, n_samples, n_features, chunk_rows, seed,
                  progress=True):
    """Write a linear problem with 2% label noise, chunk by chunk."""
    rng = np.random.RandomState(seed)
    w = rng.standard_normal(n_features)
    bar = Progress(len(chunk_bounds(n_samples, chunk_rows)), "write", progress)
    with open(x_path, "wb") as fx, open(y_path, "wb") as fy:
        for a, b in chunk_bounds(n_samples, chunk_rows):
            X = rng.standard_normal((b - a, n_features)).astype(X_DTYPE)
            y = (X @ w > 0).astype(Y_DTYPE)
            flip = rng.rand(b - a) < 0.02
            y[flip] = 1 - y[flip]
            fx.write(X.tobytes())
            fy.write(y.tobytes())
            bar.update()
    bar.close()


def window(path, dtype, start, stop, n_columns=None):
    """A read-only memory map of rows [start, stop) of a row-major file."""
    row = np.dtype(dtype).itemsize * (n_columns or 1)
    shape = (stop - start, n_columns) if n_columns else (stop - start,)
    return np.memmap(path, dtype=dtype, mode="r", offset=start * row, shape=shape)


def stream(x_path, y_path, n_features, start, stop, chunk_rows, on_chunk,
           bar=None):
    """Call ``on_chunk(X, y)`` on windows of rows [start, stop), then unmap."""
    for a, b in chunk_bounds(stop - start, chunk_rows):
        X = window(x_path, X_DTYPE, start + a, start + b, n_features)
        y = window(y_path, Y_DTYPE, start + a, start + b)
        on_chunk(X, y)
        # Close the maps (munmap), so that pages read stay out of the RSS.
        X._mmap.close()
        y._mmap.close()
        del X, y
        if bar is not None:
            bar.update()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=2_000_000)
    parser.add_argument("--n-features", type=int, default=20)
    parser.add_argument("--budget-mb", type=float, default=16.0,
                        help="memory budget of the streaming loop (MiB)")
    parser.add_argument("--epochs", type=int, default=1,
                        help="passes over the training rows")
    parser.add_argument("--big", action="store_true",
                        help="20,000,000 x 50 (3.8 GiB on disk), budget 64 MiB")
    parser.add_argument("--workdir", help="where to write the data "
                        "(default: a new temporary directory)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the data files (default: delete them)")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.big:
        args.n_samples, args.n_features, args.budget_mb = 20_000_000, 50, 64.0

    n, d = args.n_samples, args.n_features
    budget = int(args.budget_mb * 2**20)
    row_bytes = d * np.dtype(X_DTYPE).itemsize + np.dtype(Y_DTYPE).itemsize
    # Half the budget for a chunk's mapped rows and partial_fit's per-row
    # arrays; the rest is headroom for the model and Python objects.
    chunk_rows = max(1, budget // (2 * (row_bytes + PER_ROW_OVERHEAD)))
    n_train = n - max(1, n // 10)
    workdir = args.workdir or tempfile.mkdtemp(prefix="out_of_core_")
    os.makedirs(workdir, exist_ok=True)
    x_path = os.path.join(workdir, "X.f32")
    y_path = os.path.join(workdir, "y.i32")
    progress = not args.no_progress
    try:
        start = time.perf_counter()
        write_dataset(x_path, y_path, n, d, chunk_rows, args.seed, progress)
        data_bytes = os.path.getsize(x_path) + os.path.getsize(y_path)
        print(f"data: {n:,} x {d} float32 + labels = {data_bytes / 2**20:.1f} MiB "
              f"on disk in {workdir} ({time.perf_counter() - start:.1f} s); "
              f"budget {budget / 2**20:.2f} MiB, chunks of {chunk_rows:,} rows",
              flush=True)

        clf = Perceptron()
        n_chunks = len(chunk_bounds(n_train, chunk_rows))
        rss_before = current_rss()
        rss_peak = [rss_before or 0]

        def learn(X, y):
            clf.partial_fit(X, y, classes=[0, 1])
            rss = current_rss()
            if rss is not None:
                rss_peak[0] = max(rss_peak[0], rss)

        tracemalloc.start()
        start = time.perf_counter()
        bar = Progress(n_chunks * args.epochs, "partial_fit", progress)
        for _ in range(args.epochs):
            stream(x_path, y_path, d, 0, n_train, chunk_rows, learn, bar)
        bar.close()
        fit_seconds = time.perf_counter() - start
        peak_traced = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()

        correct = [0]

        def evaluate(X, y):
            correct[0] += int((clf.predict(X) == y).sum())

        stream(x_path, y_path, d, n_train, n, chunk_rows, evaluate)
        accuracy = correct[0] / (n - n_train)
        rss_growth = None if rss_before is None else rss_peak[0] - rss_before
        print(f"partial_fit: {n_train:,} rows x {args.epochs} pass(es) in "
              f"{n_chunks * args.epochs} chunks, {fit_seconds:.2f} s "
              f"({n_train * args.epochs / fit_seconds / 1e6:.1f} M rows/s), "
              f"{clf.n_mistakes_:,} updates")
        print(f"memory: peak traced allocations {peak_traced / 2**20:.2f} MiB, "
              + ("peak RSS growth unknown" if rss_growth is None else
                 f"peak RSS growth {rss_growth / 2**20:.2f} MiB")
              + f", vs {data_bytes / 2**20:.1f} MiB of memory-mapped data "
              f"(budget {budget / 2**20:.2f} MiB)")
        print(f"held-out accuracy on the last {n - n_train:,} rows: {accuracy:.4f}")
        return dict(
            model=clf, data_bytes=data_bytes, budget_bytes=budget,
            peak_traced_bytes=peak_traced, peak_rss_growth_bytes=rss_growth,
            n_chunks=n_chunks, chunk_rows=chunk_rows, n_train=n_train,
            test_accuracy=accuracy, fit_seconds=fit_seconds,
            x_path=x_path, y_path=y_path,
        )
    finally:
        if not args.keep:
            for path in (x_path, y_path):
                if os.path.exists(path):
                    os.remove(path)
            if not args.workdir:
                shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
    sys.exit(0)
