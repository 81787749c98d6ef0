# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Classes that join a stream (``grow_classes=True``, issue #37).

The references: one-vs-all rows are independent, so after a class joins
(at the start of the call whose labels first name it) every old class's
row equals that of a model told every class from the start (it saw the
new class's samples as negatives too), and the new class's row equals a
binary model of its own trained on the calls since it joined.
Crammer-Singer's rows compete: the model equals a NumPy Crammer-Singer
pass that inserts a zero row when a class joins.  One-vs-one: the old
pairs are the pairs of a model told every class, the new pairs binary
models of the pair's samples since the class joined.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.linear_model import SGDClassifier
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_perceptrons import (
    ALMAClassifier,
    AROWClassifier,
    KernelPerceptron,
    MarginPerceptron,
    OneVsAllPerceptron,
    OneVsOnePerceptron,
    PassiveAggressiveClassifier,
    Perceptron,
    ROMMAClassifier,
    SecondOrderPerceptron,
    VotedPerceptron,
)

LABELS = np.array([10, 20, 30, 40])

LINEAR = [
    Perceptron(),
    Perceptron(average=True, threshold=0.5),
    Perceptron(class_weight={10: 2.0, 30: 0.5}),
    MarginPerceptron(margin=0.1),
    MarginPerceptron(),  # the online margin search
    MarginPerceptron(average=True),
    Perceptron(penalty="elasticnet", alpha=0.01, n_jobs=2),
    PassiveAggressiveClassifier(),
    PassiveAggressiveClassifier(loss="squared_hinge", average=True),
    ALMAClassifier(),
    ROMMAClassifier(),
    ROMMAClassifier(aggressive=True),
]
SECOND_ORDER = [SecondOrderPerceptron(),
                SecondOrderPerceptron(diagonal=True, average=True),
                AROWClassifier(), AROWClassifier(diagonal=True)]
KERNEL = [
    KernelPerceptron(kernel="linear", average=False),
    KernelPerceptron(kernel="rbf", gamma=0.3),  # averaged by default
    VotedPerceptron(),
    VotedPerceptron(kernel="rbf", gamma=0.3),
    KernelPerceptron(kernel="poly", degree=2, budget=6, average=False),
]
EVERY = LINEAR + SECOND_ORDER + KERNEL + [
    Perceptron(multi_class="crammer_singer"),
    Perceptron(multi_class="crammer_singer", update="uniform", average=True),
    PassiveAggressiveClassifier(multi_class="crammer_singer"),
    KernelPerceptron(kernel="linear", multi_class="crammer_singer"),
    OneVsAllPerceptron(),
    OneVsAllPerceptron(KernelPerceptron(kernel="linear", average=False)),
    OneVsOnePerceptron(),
    OneVsOnePerceptron(MarginPerceptron()),
]


def _grow(estimator):
    return clone(estimator).set_params(grow_classes=True)


@st.composite
def streams(draw, max_classes=4):
    """A stream of integer rows in calls of 1 to 4 rows, whose first call
    names ``first`` classes (at least 2) and whose other classes join at
    random times (the row where a class first appears)."""
    n_classes = draw(st.integers(3, max_classes))
    labels = LABELS[:n_classes]
    order = draw(st.permutations(range(n_classes)))
    n_first = draw(st.integers(2, n_classes - 1))
    first = np.sort(labels[list(order[:n_first])])
    late = labels[list(order[n_first:])]
    n = draw(st.integers(len(late) + 4, 30))
    arrivals = sorted(draw(st.lists(st.integers(1, n - 1), min_size=len(late),
                                    max_size=len(late), unique=True)))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.RandomState(seed)
    X = rng.randint(-3, 4, size=(n, 3)).astype(np.float64)
    y = np.empty(n, dtype=np.int64)
    known = list(first)
    for i in range(n):
        if i in arrivals:
            known.append(late[arrivals.index(i)])
            y[i] = known[-1]
        else:
            y[i] = known[rng.randint(len(known))]
    sizes, total = [], 0
    while total < n:
        sizes.append(min(draw(st.integers(1, 4)), n - total))
        total += sizes[-1]
    bounds = np.cumsum([0] + sizes)
    calls = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
    return X, y, first, labels, calls


def _feed(estimator, X, y, calls, classes, **kwargs):
    for k, part in enumerate(calls):
        estimator.partial_fit(X[part], y[part],
                              classes=classes if k == 0 else None, **kwargs)
    return estimator


def _joined(y, calls, label):
    """Index of the call in which ``label`` first appears."""
    return next(k for k, part in enumerate(calls) if label in y[part])


def _linear_rows(estimator):
    """{class: (w, b)} of the one-vs-all rows of a linear model; a binary
    model's row is classes_[1]'s, its negation classes_[0]'s."""
    coef, intercept = np.asarray(estimator.coef_), np.asarray(estimator.intercept_)
    classes = estimator.classes_.tolist()
    if coef.shape[0] == 1:
        return {classes[1]: (coef[0], intercept[0]),
                classes[0]: (-coef[0], -intercept[0])}
    return {c: (coef[k], intercept[k]) for k, c in enumerate(classes)}


def _scores(estimator, P):
    """{class: one-vs-all score of every row of P}."""
    d = estimator.decision_function(P)
    classes = estimator.classes_.tolist()
    if d.ndim == 1:
        return {classes[1]: d, classes[0]: -d}
    return {c: d[:, k] for k, c in enumerate(classes)}


def _binary_reference(estimator, X, y, calls, label, start):
    """A binary model of ``label`` (1) vs the rest (0), trained on the
    calls from ``start`` on, with each sample's class weight as its
    sample weight (a one-vs-all row weighs a sample by its own class)."""
    ref = clone(estimator).set_params(class_weight=None)
    weights = getattr(estimator, "class_weight", None) or {}
    for k, part in enumerate(calls[start:]):
        w = np.array([float(weights.get(c, 1.0)) for c in y[part]])
        ref.partial_fit(X[part], (y[part] == label).astype(np.int64),
                        classes=[0, 1] if k == 0 else None,
                        sample_weight=w if weights else None)
    return ref


def _assert_rows(grown, reference, exact):
    for c, (w, b) in reference.items():
        if exact:
            np.testing.assert_array_equal(grown[c][0], w)
            assert grown[c][1] == b
        else:
            np.testing.assert_allclose(grown[c][0], w, rtol=1e-9, atol=1e-9)
            np.testing.assert_allclose(grown[c][1], b, rtol=1e-9, atol=1e-9)


# ---------------------------------------------------------------------------
# (a) one-vs-all: linear models, kernel models
# ---------------------------------------------------------------------------


def _as(X, form):
    if form == "csr32":
        return sp.csr_matrix(X.astype(np.float32))
    return X


@pytest.mark.parametrize("form", ["dense", "csr32"])
@pytest.mark.parametrize("estimator", LINEAR + SECOND_ORDER, ids=repr)
@settings(max_examples=20, deadline=None)
@given(stream=streams())
def test_linear_one_vs_all_rows_against_references(estimator, form, stream):
    X, y, first, labels, calls = stream
    X = _as(X, form)
    exact = not isinstance(estimator, (SecondOrderPerceptron, AROWClassifier))
    grown = _feed(_grow(estimator), X, y, calls, first)
    if exact:  # the second-order state is float64
        assert grown.coef_.dtype == X.dtype
    np.testing.assert_array_equal(grown.classes_, labels)
    assert grown.coef_.shape == (labels.shape[0], X.shape[1])
    rows = _linear_rows(grown)
    # Old classes: the rows of a model told every class from the start.
    told = _linear_rows(_feed(clone(estimator), X, y, calls, labels))
    _assert_rows(rows, {c: told[c] for c in first}, exact)
    # New classes: a binary model of its own since the call it joined in.
    for label in np.setdiff1d(labels, first):
        ref = _binary_reference(estimator, X, y, calls, label,
                                _joined(y, calls, label))
        _assert_rows(rows, {label: _linear_rows(ref)[1]}, exact)


@pytest.mark.parametrize("estimator", KERNEL[:-1], ids=repr)
@settings(max_examples=15, deadline=None)
@given(stream=streams())
def test_kernel_one_vs_all_columns_against_references(estimator, stream):
    X, y, first, labels, calls = stream
    P = np.random.RandomState(0).randint(-3, 4, size=(7, 3)).astype(float)
    grown = _feed(_grow(estimator), X, y, calls, first)
    np.testing.assert_array_equal(grown.classes_, labels)
    rows = (grown.dual_coef_.shape[0] if hasattr(grown, "dual_coef_")
            else grown.mistake_ptr_.shape[0] - 1)
    assert rows == labels.shape[0]
    scores = _scores(grown, P)
    told = _scores(_feed(clone(estimator), X, y, calls, labels), P)
    for c in first:
        np.testing.assert_allclose(scores[c], told[c], rtol=1e-10, atol=1e-10)
    for label in np.setdiff1d(labels, first):
        ref = _binary_reference(estimator, X, y, calls, label,
                                _joined(y, calls, label))
        np.testing.assert_allclose(scores[label], ref.decision_function(P),
                                   rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("strategy", ["local_projection", "projection",
                                      "forgetron", "oldest", "random"])
def test_kernel_budget_grows_and_keeps_its_budget(strategy):
    # With a budget the support vectors are shared by the rows, so only
    # the growth itself is compared: the old columns as they were.
    X = np.random.RandomState(1).normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 10, 20)
    est = _grow(KERNEL[-1]).set_params(budget_strategy=strategy)
    est.partial_fit(X[:30], y[:30], classes=[10, 20])
    assert est.support_vectors_.shape[0] == 6  # full
    before = est.decision_function(X)
    # A sample of weight 0 moves no coefficient: the old columns as they
    # were, the new one at 0.
    est.partial_fit(X[30:31], [30], sample_weight=[0.0])
    assert est.support_vectors_.shape[0] <= 6
    after = est.decision_function(X)
    np.testing.assert_allclose(after[:, 1], before, rtol=1e-12)
    np.testing.assert_allclose(after[:, 0], -before, rtol=1e-12)
    np.testing.assert_array_equal(after[:, 2], 0.0)
    est.partial_fit(X[31:], np.r_[[30] * 5, y[36:]])
    assert est.support_vectors_.shape[0] <= 6
    assert set(est.predict(X).tolist()) <= {10, 20, 30}


# ---------------------------------------------------------------------------
# (b) Crammer-Singer: a NumPy pass that inserts zero rows
# ---------------------------------------------------------------------------


def _crammer_singer_stream(X, y, calls, first, update="max", average=False):
    """The multiclass perceptron (threshold 0; update "max": the highest
    violating row, Collins'; "uniform": every violating row by an equal
    share) over the calls, a zero row inserted (in sorted order) when a
    class joins.  With ``average``, each row's mean over the iterates after
    each of its visits since it joined."""
    classes = list(first)
    W = np.zeros((len(classes), X.shape[1]))
    b = np.zeros(len(classes))
    W_sum, b_sum, visits = np.zeros_like(W), np.zeros_like(b), np.zeros_like(b)
    for part in calls:
        for label in sorted(set(y[part].tolist()) - set(classes)):
            k = int(np.searchsorted(classes, label))
            classes.insert(k, label)
            W, W_sum = (np.insert(A, k, 0.0, axis=0) for A in (W, W_sum))
            b, b_sum, visits = (np.insert(a, k, 0.0) for a in (b, b_sum, visits))
        for x, label in zip(X[part], y[part]):
            c = classes.index(label)
            scores = W @ x + b
            gaps = scores[c] - scores
            gaps[c] = np.inf
            if (gaps <= 0).any():
                violating = np.flatnonzero(gaps <= 0)
                if update == "max":
                    losers = [violating[np.argmax(scores[violating])]]
                else:
                    losers = violating
                W[c] += x
                b[c] += 1.0
                for r in losers:
                    W[r] -= x / len(losers)
                    b[r] -= 1.0 / len(losers)
            W_sum += W
            b_sum += b
            visits += 1
    if average:
        return np.array(classes), W_sum / visits[:, None], b_sum / visits
    return np.array(classes), W, b


@pytest.mark.parametrize("kernel", [False, True])
@pytest.mark.parametrize("update, average", [("max", False), ("uniform", False),
                                             ("max", True)])
@settings(max_examples=20, deadline=None)
@given(stream=streams())
def test_crammer_singer_against_numpy(kernel, update, average, stream):
    X, y, first, labels, calls = stream
    params = dict(multi_class="crammer_singer", update=update, average=average)
    estimator = (KernelPerceptron(kernel="linear", **params) if kernel
                 else Perceptron(**params))
    grown = _feed(_grow(estimator), X, y, calls, first)
    classes, W, b = _crammer_singer_stream(X, y, calls, first, update, average)
    np.testing.assert_array_equal(grown.classes_, classes)
    # Integer data and unit steps: Collins' rule is exact in floats.
    check = (np.testing.assert_array_equal if (update, average) == ("max", False)
             else lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-9,
                                                          atol=1e-9))
    if kernel:
        P = np.random.RandomState(0).randint(-3, 4, size=(7, 3)).astype(float)
        check(grown.decision_function(P), P @ W.T + b)
    else:
        check(grown.coef_, W)
        check(grown.intercept_, b)


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("base", [Perceptron(), Perceptron(average=True),
                                  MarginPerceptron()], ids=repr)
@settings(max_examples=15, deadline=None)
@given(stream=streams())
def test_one_vs_all_reduction_against_references(base, stream):
    X, y, first, labels, calls = stream
    grown = _feed(OneVsAllPerceptron(base, grow_classes=True), X, y, calls, first)
    told = _feed(OneVsAllPerceptron(base), X, y, calls, labels)
    np.testing.assert_array_equal(grown.classes_, labels)
    rows = {c: _linear_rows(e)[1] for c, e in zip(labels, grown.estimators_)}
    _assert_rows(rows, {c: _linear_rows(e)[1] for c, e in
                        zip(labels, told.estimators_) if c in first}, True)
    for label in np.setdiff1d(labels, first):
        ref = _binary_reference(base, X, y, calls, label,
                                _joined(y, calls, label))
        _assert_rows(rows, {label: _linear_rows(ref)[1]}, True)


@pytest.mark.parametrize("base", [Perceptron(), MarginPerceptron(margin=0.2),
                                  KernelPerceptron(kernel="linear")], ids=repr)
@settings(max_examples=15, deadline=None)
@given(stream=streams())
def test_one_vs_one_old_pairs_kept_new_pairs_since_joining(base, stream):
    X, y, first, labels, calls = stream
    P = np.random.RandomState(0).randint(-3, 4, size=(7, 3)).astype(float)
    grown = _feed(OneVsOnePerceptron(base, grow_classes=True), X, y, calls, first)
    told = _feed(OneVsOnePerceptron(base), X, y, calls, labels)
    np.testing.assert_array_equal(grown.classes_, labels)
    pairs = [(i, j) for i in range(len(labels)) for j in range(i + 1, len(labels))]
    assert len(grown.estimators_) == len(pairs)
    for (i, j), est, ref in zip(pairs, grown.estimators_, told.estimators_):
        a, b = labels[i], labels[j]
        if a in first and b in first:
            reference = ref
        else:
            # Trained on the pair's samples of the calls since it joined.
            start = max(_joined(y, calls, c) for c in (a, b) if c not in first)
            reference = clone(base)
            seen = False
            for part in calls[start:]:
                mask = np.isin(y[part], [a, b])
                if mask.any():
                    reference.partial_fit(
                        X[part][mask], (y[part][mask] == b).astype(np.int64),
                        classes=None if seen else [0, 1])
                    seen = True
        if not hasattr(reference, "classes_"):
            assert not hasattr(est, "classes_")
            continue
        np.testing.assert_array_equal(est.decision_function(P),
                                      reference.decision_function(P))


@pytest.mark.parametrize("base", [Perceptron(), Perceptron(average=True),
                                  MarginPerceptron(),
                                  SecondOrderPerceptron(),
                                  KernelPerceptron(kernel="linear", average=False),
                                  KernelPerceptron(kernel="rbf")], ids=repr)
def test_binary_one_vs_all_becomes_three_rows(base):
    """A binary model (native or reduction) that meets a third class: the
    old row stays classes_[1]'s, its negation is classes_[0]'s, and the
    decision goes from 1-d to one column per class."""
    rng = np.random.RandomState(0)
    X = rng.randint(-3, 4, size=(30, 3)).astype(float)
    y = np.where(X[:, 0] + X[:, 1] > 0, 1, 2)
    P = X[:6]
    for binary in (_grow(base), OneVsAllPerceptron(base, grow_classes=True)):
        binary.partial_fit(X[:20], y[:20], classes=[1, 2])
        d = binary.decision_function(P)
        assert d.shape == (6,)
        # Weight 0: the rows do not move (the averages' visits do).
        binary.partial_fit(X[20:21], [0], sample_weight=[0.0])
        np.testing.assert_array_equal(binary.classes_, [0, 1, 2])
        grown = binary.decision_function(P)
        assert grown.shape == (6, 3)
        if not getattr(base, "average", False):
            np.testing.assert_allclose(grown[:, 2], d, rtol=1e-12)
            np.testing.assert_allclose(grown[:, 1], -d, rtol=1e-12)
            np.testing.assert_array_equal(grown[:, 0], 0.0)
        binary.partial_fit(X[21:], np.r_[[0] * 4, y[25:]])
        assert binary.predict(P).shape == (6,)


def test_binary_one_vs_all_of_a_foreign_base_refuses_to_grow():
    X = np.random.RandomState(0).normal(size=(10, 2))
    clf = OneVsAllPerceptron(SGDClassifier(), grow_classes=True)
    clf.partial_fit(X, np.r_[[0] * 5, [1] * 5], classes=[0, 1])
    before = clf.estimators_
    with pytest.raises(ValueError, match="outside this package"):
        clf.partial_fit(X[:2], [2, 0])
    assert clf.estimators_ is before and clf.classes_.tolist() == [0, 1]
    # With three classes from the start, a fourth joins.
    clf = OneVsAllPerceptron(SGDClassifier(), grow_classes=True)
    clf.partial_fit(X, np.r_[[0] * 4, [1] * 3, [2] * 3], classes=[0, 1, 2])
    clf.partial_fit(X[:2], [3, 3])
    assert clf.classes_.tolist() == [0, 1, 2, 3] and len(clf.estimators_) == 4


# ---------------------------------------------------------------------------
# (d) off by default; (e) failures, weights, declared classes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("estimator", EVERY, ids=repr)
def test_off_by_default_and_validated(estimator):
    assert estimator.get_params()["grow_classes"] is False
    assert "grow_classes" in type(estimator)._parameter_constraints
    X = np.random.RandomState(0).normal(size=(6, 3))
    est = clone(estimator).set_params(**(
        {"class_weight": None} if "class_weight" in estimator.get_params() else {}
    )).partial_fit(X, [0, 1, 0, 1, 0, 1], classes=[0, 1])
    with pytest.raises(ValueError,
                       match=r"partial_fit got labels \[7\] that are not in "
                             r"classes=\[0, 1\]"):
        est.partial_fit(X[:2], [7, 0])
    with pytest.raises(InvalidParameterError, match="grow_classes"):
        clone(estimator).set_params(grow_classes="yes").partial_fit(
            X, [0, 1, 0, 1, 0, 1], classes=[0, 1])


def _state(estimator):
    keys = ("coef_", "intercept_", "dual_coef_", "classes_", "n_mistakes_")
    out = {k: np.array(getattr(estimator, k)) for k in keys
           if hasattr(estimator, k)}
    if hasattr(estimator, "estimators_"):
        out["estimators"] = [_state(e) for e in estimator.estimators_]
    return out


def _assert_state(a, b):
    assert a.keys() == b.keys()
    for k in a:
        if k == "estimators":
            for x, z in zip(a[k], b[k]):
                _assert_state(x, z)
        else:
            np.testing.assert_array_equal(a[k], b[k])


@pytest.mark.parametrize("estimator", EVERY, ids=repr)
def test_failed_growth_leaves_the_model_as_it_was(estimator):
    X = np.random.RandomState(0).randint(-3, 4, size=(12, 3)).astype(float)
    y = np.array([0, 1, 2] * 4)
    est = _grow(estimator).partial_fit(X[:6], y[:6], classes=[0, 1, 2])
    before = _state(est)
    bad = [
        dict(X=X[:2], y=[5, 0], sample_weight=[-1.0, 1.0]),  # negative weight
        dict(X=X[:2, :2], y=[5, 0]),  # wrong width
        dict(X=X[:2], y=["a", 0]),  # numbers and text
        dict(X=X[:2], y=[np.nan, 0]),  # a missing label
        dict(X=X[:2], y=[5, 0], classes=[0, 1, 5]),  # a class left out
    ]
    for kwargs in bad:
        with pytest.raises(ValueError):
            est.partial_fit(**kwargs)
        _assert_state(_state(est), before)
    # Still the same model: it goes on as a twin that never failed.
    twin = _grow(estimator).partial_fit(X[:6], y[:6], classes=[0, 1, 2])
    est.partial_fit(X[6:], np.r_[[5, 0, 1], y[9:]])
    twin.partial_fit(X[6:], np.r_[[5, 0, 1], y[9:]])
    _assert_state(_state(est), _state(twin))
    assert est.classes_.tolist() == [0, 1, 2, 5]


@pytest.mark.parametrize("estimator", EVERY, ids=repr)
def test_declared_classes_grow_without_samples(estimator):
    X = np.random.RandomState(0).randint(-3, 4, size=(12, 3)).astype(float)
    y = np.array([0, 1, 2] * 4)
    est = _grow(estimator).partial_fit(X[:6], y[:6], classes=[0, 1, 2])
    est.partial_fit(X[6:9], y[6:9], classes=[0, 1, 2, 9, -1])
    assert est.classes_.tolist() == [-1, 0, 1, 2, 9]
    assert est.decision_function(X[:2]).shape == (2, 5)
    # The same classes again (or none) change nothing; a later call still
    # learns the new classes.
    est.partial_fit(X[9:], [9, -1, 0], classes=[-1, 0, 1, 2, 9])
    assert est.classes_.tolist() == [-1, 0, 1, 2, 9]


@pytest.mark.parametrize("cls", [Perceptron, MarginPerceptron,
                                 SecondOrderPerceptron, KernelPerceptron])
def test_class_weight_may_name_classes_not_yet_joined(cls):
    X = np.random.RandomState(0).randint(-3, 4, size=(12, 3)).astype(float)
    y = np.array([0, 1] * 3 + [7] * 6)
    weights = {0: 1.0, 1: 1.0, 7: 0.0}
    with pytest.raises(ValueError, match="class_weight names labels"):
        cls(class_weight=weights).partial_fit(X[:6], y[:6], classes=[0, 1])
    # Without averaging: visits of weight 0 move no average either.
    est = cls(class_weight=weights, grow_classes=True, average=False)
    est.partial_fit(X[:6], y[:6], classes=[0, 1])
    before = est.decision_function(X)
    est.partial_fit(X[6:], y[6:])
    # Class 7 weighs 0: its samples move no row, its own row stays 0.
    after = est.decision_function(X)
    np.testing.assert_allclose(after[:, 1], before, rtol=1e-12)
    np.testing.assert_allclose(after[:, 0], -before, rtol=1e-12)
    np.testing.assert_array_equal(after[:, 2], 0.0)
    with pytest.raises(ValueError, match="balanced"):
        cls(class_weight="balanced", grow_classes=True).partial_fit(
            X[:6], y[:6], classes=[0, 1])


@pytest.mark.parametrize("estimator", [Perceptron(), Perceptron(average=True),
                                       MarginPerceptron(), MarginPerceptron(margin=0.1),
                                       SecondOrderPerceptron(),
                                       KernelPerceptron(kernel="linear"),
                                       OneVsAllPerceptron(), OneVsOnePerceptron()],
                         ids=repr)
def test_one_row_stream_grows_as_one_call(estimator):
    """A stream of one-row calls (which the compiled streams take by
    themselves) meets new labels there and equals one call on the batch."""
    X = np.random.RandomState(3).randint(-3, 4, size=(25, 3)).astype(float)
    y = np.array([0, 1] * 5 + [2, 0, 1] * 5)
    first = _grow(estimator).partial_fit(X[:10], y[:10], classes=[0, 1])
    batch = clone(first).partial_fit(X[:10], y[:10], classes=[0, 1])
    batch.partial_fit(X[10:], y[10:])
    for i in range(10, 25):
        first.partial_fit(X[i:i + 1], y[i:i + 1])
    np.testing.assert_array_equal(first.classes_, [0, 1, 2])
    np.testing.assert_allclose(first.decision_function(X),
                               batch.decision_function(X), rtol=1e-12)
    assert first.n_mistakes_ if hasattr(first, "n_mistakes_") else True


def test_labels_of_other_types():
    X = np.random.RandomState(0).normal(size=(6, 2))
    est = Perceptron(grow_classes=True).partial_fit(
        X, ["b", "c"] * 3, classes=["b", "c"])
    est.partial_fit(X[:2], ["a", "zz"])
    assert est.classes_.tolist() == ["a", "b", "c", "zz"]
    est = Perceptron(grow_classes=True).partial_fit(X, [0, 1] * 3, classes=[0, 1])
    est.partial_fit(X[:1], [0.5])
    assert est.classes_.tolist() == [0.0, 0.5, 1.0]


def test_user_guide_example_runs():
    """The user guide's stream whose classes grow, as a doctest (the docs
    build runs every example of the page; this one runs with the tests)."""
    import doctest
    import os

    page = os.path.join(os.path.dirname(__file__), os.pardir, "docs",
                        "user_guide.rst")
    if not os.path.exists(page):
        pytest.skip("docs/user_guide.rst not beside tests/")
    text = open(page, encoding="utf-8").read()
    start = text.index(".. _growing_classes:")
    section = text[start:text.index("\n.. _", start + 1)]
    test = doctest.DocTestParser().get_doctest(section, {}, "growing_classes",
                                               page, 0)
    assert len(test.examples) >= 10
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0


@pytest.mark.parametrize("estimator", EVERY, ids=repr)
def test_a_fitted_model_grows(estimator):
    """partial_fit after fit grows too: a call of weight 0 leaves the old
    classes' decisions as they were (models without averaging), and the
    new class's column at 0 until its samples come."""
    X = np.random.RandomState(0).randint(-3, 4, size=(30, 3)).astype(float)
    y = np.array([0, 1, 2] * 10)
    est = _grow(estimator)
    if "class_weight" in est.get_params():
        est.set_params(class_weight=None)
    est.fit(X, y)
    before = est.decision_function(X)
    # Where partial_fit does not go on from fit's model: a penalty decays
    # the weights at every visit, and the margin search's fit returns its
    # certified pick, not the iterate that partial_fit continues.
    params = est.get_params()
    moves = (params.get("penalty") is not None
             or (isinstance(est, MarginPerceptron) and est.margin == "auto"))
    if "sample_weight" in getattr(est.partial_fit, "__wrapped__",
                                  est.partial_fit).__code__.co_varnames:
        est.partial_fit(X[:1], [3], sample_weight=[0.0])
        after = est.decision_function(X)
        assert after.shape == (30, 4)
        averaged = est.get_params().get("average", False) or getattr(
            est.get_params().get("estimator"), "average", False)
        if not (averaged or moves or isinstance(est, OneVsOnePerceptron)):
            np.testing.assert_allclose(after[:, :3], before, rtol=1e-12)
            np.testing.assert_array_equal(after[:, 3], 0.0)
    est.partial_fit(X[:6], [3, 3, 0, 1, 2, 3])
    np.testing.assert_array_equal(est.classes_, [0, 1, 2, 3])
    assert set(est.predict(X).tolist()) <= {0, 1, 2, 3}
