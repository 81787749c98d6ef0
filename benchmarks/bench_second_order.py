# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Benchmark P15 of benchmarks/TARGETS.rst: ``SecondOrderPerceptron`` against ``Perceptron``.

* Per epoch, side by side in this process on the same data and the same
  epochs (``tol=None``, shuffled as by default), in process CPU time (the
  fits are single-threaded; the wall times are in the notes): the full
  algorithm on dense 50,000 x 100 data, the diagonal one on CSR text-like
  data (200,000 rows, 2**18 hashed features, about 60 stored words per row,
  tf-idf weights, unit rows).  The data carry label noise, so that every epoch keeps making
  mistakes: a mistake of the full algorithm costs one pass over the stored
  half of A^-1 (read and written), so its ratio grows with the share of
  mistakes; the dense case is measured with 10% of the labels flipped (about
  26% of the visits are mistakes) and with noise in the score only.  The
  dense rows are measured at the target's size in quick mode too (about two
  seconds): the ratio depends on the size of X, because a mistake of the
  full algorithm costs the same wherever X lives, while the perceptron's
  visit is two to three times cheaper when X fits in the last-level cache
  (10,000 x 100 doubles are 8 MB) than when it streams from memory (50,000 x
  100 are 40 MB).  One row at 10,000 x 100 shows that case, for information.
  The diagonal row is measured at its target's size in both modes too
  (about 10 s of CPU, half of it making the data): at 20,000 rows the
  perceptron's visit is again about twice as cheap as at 200,000, and the
  ratio there swung across the target (1.38-1.66) with the machine's load.
* The cost of one mistake of the full algorithm beyond its visit, at two
  widths (for information): the same fit timed against one whose sample
  weights are zero but one (the same visits, almost no mistakes).
* Mistakes in one pass over a noisy stream (``partial_fit``), against the
  perceptron's: correlated, badly scaled features, with noise in the score
  (the setting of the paper's claim) and with flipped labels.

Run ``python benchmarks/bench_second_order.py [--full]``.
"""

import warnings
from time import process_time

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from sklearn_perceptrons import Perceptron, SecondOrderPerceptron

from _common import format_table, interleaved_times, row, single_threaded, command_line

EPOCHS = 5


def dense_data(n_samples, n_features, *, flip=0.1, score_noise=0.0, seed=0):
    """Gaussian features, labels from a random hyperplane with noise in the
    score, then a fraction ``flip`` of them flipped."""
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n_samples, n_features))
    score = X @ rng.standard_normal(n_features)
    score += score_noise * score.std() * rng.standard_normal(n_samples)
    y = (score > 0).astype(np.int64)
    flipped = rng.rand(n_samples) < flip
    y[flipped] = 1 - y[flipped]
    return X, y


def text_data(n_samples, n_features=2**18, words=60, vocabulary=200_000, seed=0):
    """Hashed bag-of-words rows: Zipf word frequencies, tf-idf, unit norm.

    Labels come from a sparse linear model over the vocabulary (2,000
    informative words), with 10% of them flipped.
    """
    rng = np.random.RandomState(seed)
    lengths = rng.poisson(words, size=n_samples) + 1
    tokens = (rng.zipf(1.3, size=lengths.sum()) - 1) % vocabulary
    hashed = rng.randint(0, n_features, size=vocabulary)
    rows = np.repeat(np.arange(n_samples), lengths)
    X = sp.csr_matrix((np.ones(tokens.shape[0]), (rows, hashed[tokens])),
                      shape=(n_samples, n_features))
    X.sum_duplicates()
    df = np.bincount(X.indices, minlength=n_features)
    idf = np.log((1 + n_samples) / (1 + df)) + 1.0
    X.data = np.log1p(X.data) * idf[X.indices]
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = sp.diags(1.0 / norms) @ X
    X = X.tocsr()
    # Vectorizers give each row's entries in column order (the product above
    # reverses them): the data are what users bring.
    X.sort_indices()
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    word_weight = np.zeros(vocabulary)
    informative = rng.choice(vocabulary, 2000, replace=False)
    word_weight[informative] = rng.standard_normal(2000)
    counts = sp.csr_matrix((np.ones(tokens.shape[0]), (rows, tokens)),
                           shape=(n_samples, vocabulary))
    score = counts @ word_weight
    y = (score > np.median(score)).astype(np.int64)
    flip = rng.rand(n_samples) < 0.1
    y[flip] = 1 - y[flip]
    return X, y


def stream(n_samples, n_features, *, score_noise=0.0, label_noise=0.0, seed=0):
    """Correlated features scaled over two decades; noisy labels."""
    rng = np.random.RandomState(seed)
    mixing = rng.standard_normal((n_features, n_features))
    X = (rng.standard_normal((n_samples, n_features)) @ mixing
         * np.logspace(0, -2, n_features))
    score = X @ rng.standard_normal(n_features)
    score += score_noise * score.std() * rng.standard_normal(n_samples)
    y = (score > 0).astype(np.int64)
    flip = rng.rand(n_samples) < label_noise
    y[flip] = 1 - y[flip]
    return X, y


def _fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        estimator.fit(X, y)
    return estimator


def cpu_and_wall_times(funcs, repeats):
    """Median (process CPU, wall) seconds of each function, alternated.

    The fits are single-threaded: on an idle machine both clocks agree, and
    on a loaded one the CPU time leaves out the time the fit waited for the
    processor, which grows with its length (a fit five times longer is
    preempted more often) and would skew a wall-time ratio.
    """
    cpu = [[] for _ in funcs]

    def timed(func, record):
        def call():
            start = process_time()
            func()
            record.append(process_time() - start)
        return call

    wall = interleaved_times([timed(f, r) for f, r in zip(funcs, cpu)],
                             repeats=repeats)
    # The first call of each is interleaved_times' warm-up.
    return [float(np.median(r[1:])) for r in cpu], wall


def epoch_ratio(case, X, y, second, target, repeats):
    """The per-epoch CPU-time ratio row; ``target=None`` makes it an
    information row."""
    first = Perceptron(tol=None, max_iter=EPOCHS)
    second.set_params(tol=None, max_iter=EPOCHS)
    (t_first, t_second), (w_first, w_second) = cpu_and_wall_times(
        [lambda: _fit(first, X, y), lambda: _fit(second, X, y)], repeats=repeats)
    assert first.n_iter_ == second.n_iter_ == EPOCHS
    rate = second.n_mistakes_ / (EPOCHS * X.shape[0])
    return [
        row(case, "second-order / Perceptron per epoch, CPU time",
            t_second / t_first, at_most=target,
            note=f"{t_second / EPOCHS * 1e3:.1f} vs {t_first / EPOCHS * 1e3:.1f} "
                 f"ms; wall {w_second / EPOCHS * 1e3:.1f} vs "
                 f"{w_first / EPOCHS * 1e3:.1f} ms (ratio {w_second / w_first:.2f}); "
                 f"mistakes {rate:.1%} of visits"),
    ]


def mistake_cost(n_samples, n_features, repeats):
    """Microseconds per mistake of the full algorithm beyond its visit."""
    X, y = dense_data(n_samples, n_features)
    weight = np.zeros(n_samples)
    weight[0] = 1.0
    full = SecondOrderPerceptron(tol=None, max_iter=EPOCHS)
    visits = SecondOrderPerceptron(tol=None, max_iter=EPOCHS)
    (t_full, t_visits), (w_full, w_visits) = cpu_and_wall_times(
        [lambda: _fit(full, X, y),
         lambda: visits.fit(X, y, sample_weight=weight)], repeats=repeats)
    mistakes = full.n_mistakes_ - visits.n_mistakes_
    return row(f"full mode, dense {n_samples}x{n_features}, 10% flipped",
               "us per mistake beyond its visit, CPU time",
               (t_full - t_visits) / mistakes * 1e6,
               note=f"{mistakes} mistakes in {EPOCHS} epochs; a visit "
                    f"{t_visits / (EPOCHS * n_samples) * 1e9:.0f} ns; wall "
                    f"{(w_full - w_visits) / mistakes * 1e6:.2f} us per mistake")


def mistake_rows(n_samples, n_features):
    rows = []
    for label, params, target in [
        ("score noise 0.1 (3% wrong side)", dict(score_noise=0.1), 1.0),
        ("score noise 0.3 (9% wrong side)", dict(score_noise=0.3), 1.0),
        ("5% labels flipped", dict(label_noise=0.05), None),
    ]:
        X, y = stream(n_samples, n_features, **params)
        first = Perceptron().partial_fit(X, y, classes=[0, 1]).n_mistakes_
        second = SecondOrderPerceptron().partial_fit(X, y, classes=[0, 1]).n_mistakes_
        diagonal = SecondOrderPerceptron(diagonal=True).partial_fit(
            X, y, classes=[0, 1]).n_mistakes_
        case = f"stream {n_samples}x{n_features}, {label}"
        rows.append(row(case, "mistakes second-order / Perceptron",
                        second / first, at_most=target,
                        note=f"{second} vs {first} (diagonal: {diagonal})"))
    return rows


def run(quick=True):
    """Measure P15; returns the table rows."""
    repeats = 5
    rows = []
    with single_threaded() as threads:
        rows.append(row("setting", "BLAS threads", threads))
        # The target's size in both modes (see the module docstring).
        X, y = dense_data(50_000, 100)
        rows += epoch_ratio("P15 full, dense 50000x100, 10% flipped", X, y,
                            SecondOrderPerceptron(), 3.0, repeats)
        X, y = dense_data(50_000, 100, flip=0.0, score_noise=0.1)
        rows += epoch_ratio("P15 full, dense 50000x100, score noise 0.1", X, y,
                            SecondOrderPerceptron(), 3.0, repeats)
        X, y = dense_data(10_000, 100)
        rows += epoch_ratio("full, dense 10000x100 (X in cache), 10% flipped",
                            X, y, SecondOrderPerceptron(), None, repeats)
        del X
        X, y = text_data(200_000)
        rows += epoch_ratio("P15 diagonal, CSR 200000x2**18 text-like", X, y,
                            SecondOrderPerceptron(diagonal=True), 1.5, repeats)
        del X
        rows.append(mistake_cost(10_000, 100, repeats))
        rows.append(mistake_cost(3000, 300, repeats))
        rows += mistake_rows(5000 if quick else 20_000, 20)
    return rows


if __name__ == "__main__":
    print(format_table(run(quick=not command_line(__doc__).full)))
