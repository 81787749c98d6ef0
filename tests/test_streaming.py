# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Streaming one row at a time (issue #23): the lean path of ``partial_fit``
gives the same model as one call on the whole batch, and refuses every bad
input of API.md §1 without changing the estimator."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_perceptrons import (
    KernelPerceptron,
    MarginPerceptron,
    OneVsAllPerceptron,
    OneVsOnePerceptron,
    Perceptron,
    SecondOrderPerceptron,
)

STREAMING = [
    Perceptron(),
    Perceptron(average=True, threshold=0.3, eta0=0.5),
    MarginPerceptron(margin=0.05),
    MarginPerceptron(),  # the online margin search
    SecondOrderPerceptron(),
    KernelPerceptron(kernel="rbf", gamma=0.5),
    OneVsAllPerceptron(),
    OneVsOnePerceptron(),
    OneVsAllPerceptron(Perceptron(average=True)),
    OneVsOnePerceptron(MarginPerceptron(margin=0.1)),
]

def _ids(estimator):
    return repr(estimator)


def _model(estimator):
    """Every learned array of an estimator (of its binary estimators for a
    meta-estimator) and its mistake count."""
    if hasattr(estimator, "estimators_"):
        return [_model(e) for e in estimator.estimators_]
    if not hasattr(estimator, "classes_"):
        return ["not fitted"]  # a one-vs-one pair whose classes never came
    names = ["dual_coef_", "support_vectors_"] if hasattr(estimator, "dual_coef_") \
        else ["coef_"]
    arrays = [getattr(estimator, n) for n in names]
    arrays = [a.toarray() if sp.issparse(a) else np.asarray(a) for a in arrays]
    return arrays + [np.asarray(estimator.intercept_), estimator.n_mistakes_]


def _assert_same(a, b):
    if isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)  # bit for bit
    else:
        assert a == b


def _data(seed, n_samples, n_classes, sparse, dtype):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_samples, 6)).astype(dtype)
    X[rng.rand(*X.shape) < 0.3] = 0.0
    y = rng.randint(n_classes, size=n_samples)
    if sparse:
        X = sp.csr_matrix(X)
    return X, y


@pytest.mark.parametrize("estimator", STREAMING, ids=_ids)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**16), n_samples=st.integers(2, 25),
       n_classes=st.sampled_from([2, 3]), weighted=st.booleans())
def test_single_row_stream_equals_one_batch(estimator, sparse, dtype, seed,
                                            n_samples, n_classes, weighted):
    X, y = _data(seed, n_samples, n_classes, sparse, dtype)
    classes = np.arange(n_classes)
    weight = (np.random.RandomState(seed + 1).uniform(0, 2, n_samples)
              if weighted else None)
    batch = clone(estimator).partial_fit(X, y, classes=classes,
                                         sample_weight=weight)
    stream = clone(estimator)
    for i in range(n_samples):
        kwargs = {} if weight is None else {"sample_weight": weight[i:i + 1]}
        stream.partial_fit(X[i:i + 1], y[i:i + 1],
                           classes=classes if i == 0 else None, **kwargs)
    _assert_same(_model(stream), _model(batch))
    rows = X[:5]
    np.testing.assert_array_equal(stream.decision_function(rows),
                                  batch.decision_function(rows))
    np.testing.assert_array_equal(stream.predict(rows), batch.predict(rows))


@pytest.mark.parametrize("sparse", [False, True])
def test_second_order_stream_equals_batch_to_rounding(sparse):
    X, y = _data(7, 30, 3, sparse, np.float64)
    batch = SecondOrderPerceptron().partial_fit(X, y, classes=[0, 1, 2])
    stream = SecondOrderPerceptron()
    for i in range(30):
        stream.partial_fit(X[i:i + 1], y[i:i + 1], classes=[0, 1, 2])
    np.testing.assert_allclose(stream.coef_, batch.coef_, rtol=1e-10, atol=1e-12)
    assert stream.n_mistakes_ == batch.n_mistakes_


def _fitted(estimator, n_classes=3):
    X, y = _data(0, 40, n_classes, False, np.float64)
    est = clone(estimator).partial_fit(X[:20], y[:20], classes=np.arange(n_classes))
    for i in range(20, 30):
        est.partial_fit(X[i:i + 1], y[i:i + 1])
    return est, X, y


def _snapshot(estimator):
    return pickle.dumps(_model(estimator)), getattr(
        estimator, "mistakes_per_epoch_", None)


BAD_ROWS = {
    "nan": (np.array([[np.nan, 0, 0, 0, 0, 0]]), [1], None, "NaN"),
    "inf": (np.array([[0, np.inf, 0, 0, 0, 0]]), [1], None, "infinity"),
    "features": (np.zeros((1, 5)), [1], None, "features"),
    "label": (np.zeros((1, 6)), [7], None, "not in classes"),
    "weight": (np.zeros((1, 6)), [1], [-1.0], "sample_weight|Negative|>= 0"),
    "weight_nan": (np.zeros((1, 6)), [1], [np.nan], "NaN|finite|infinity"),
    "weight_length": (np.zeros((1, 6)), [1], [1.0, 2.0], "shape|samples"),
    "y_length": (np.zeros((1, 6)), [1, 2], None, "inconsistent"),
    "X_object": (np.array([["a", 0, 0, 0, 0, 0]], dtype=object), [1], None,
                 "could not convert|string"),
    "X_1d": (np.zeros(6), [1], None, "2D array|Expected 2D"),
    "y_2d": (np.zeros((1, 6)), [[1, 2]], None, "y should be a 1d array|shape"),
    "no_rows": (np.zeros((0, 6)), [], None, "0 sample"),
}


@pytest.mark.parametrize("estimator", STREAMING, ids=_ids)
@pytest.mark.parametrize("bad", list(BAD_ROWS))
def test_bad_row_refused_and_nothing_changes(estimator, bad):
    est, X, y = _fitted(estimator)
    before = _snapshot(est)
    X_bad, y_bad, weight, message = BAD_ROWS[bad]
    with pytest.raises(ValueError, match=message):
        est.partial_fit(X_bad, np.asarray(y_bad), sample_weight=weight)
    assert _snapshot(est) == before
    # The stream goes on exactly as if the bad row had never come.
    reference, _, _ = _fitted(estimator)
    for i in range(30, 40):
        est.partial_fit(X[i:i + 1], y[i:i + 1])
        reference.partial_fit(X[i:i + 1], y[i:i + 1])
    _assert_same(_model(est), _model(reference))


@pytest.mark.parametrize("estimator, name, value", [
    (Perceptron(), "eta0", -1.0),
    (Perceptron(), "threshold", "big"),
    (MarginPerceptron(margin=0.1), "margin", -0.5),
    (SecondOrderPerceptron(), "fit_intercept", "yes"),
    (KernelPerceptron(), "kernel", "unknown"),
    (OneVsAllPerceptron(Perceptron()), "estimator__eta0", 0.0),
    (OneVsOnePerceptron(Perceptron()), "estimator__threshold", -2.0),
    (OneVsAllPerceptron(), "n_jobs", "two"),
], ids=lambda v: repr(v) if not isinstance(v, str) else v)
def test_invalid_parameter_between_calls(estimator, name, value):
    est, X, y = _fitted(estimator)
    before = _snapshot(est)
    est.set_params(**{name: value})
    with pytest.raises(InvalidParameterError):
        est.partial_fit(X[30:31], y[30:31])
    assert _snapshot(est) == before


def test_changed_parameter_takes_effect_on_the_next_row():
    """A valid set_params between rows is seen by the next row (no stale
    cached rule or step)."""
    X, y = _data(3, 30, 2, False, np.float64)
    a = Perceptron(threshold=0.0).partial_fit(X[:10], y[:10], classes=[0, 1])
    b = Perceptron(threshold=0.0).partial_fit(X[:10], y[:10], classes=[0, 1])
    a.set_params(threshold=2.0, eta0=0.25)
    b.threshold = 2.0
    b.eta0 = 0.25
    fresh = Perceptron(threshold=2.0, eta0=0.25)
    fresh.partial_fit(X[:10], y[:10], classes=[0, 1])
    # fresh saw the first rows with other parameters: compare the updates
    # made after the change instead, through a model continued from a.
    for i in range(10, 30):
        a.partial_fit(X[i:i + 1], y[i:i + 1])
        b.partial_fit(X[i:i + 1], y[i:i + 1])
    _assert_same(_model(a), _model(b))
    c = Perceptron(threshold=0.0).partial_fit(X[:10], y[:10], classes=[0, 1])
    c.set_params(threshold=2.0, eta0=0.25)
    c.partial_fit(X[10:30], y[10:30])
    _assert_same(_model(a), _model(c))


def test_class_weight_dict_changed_in_place_is_seen():
    X, y = _data(4, 30, 2, False, np.float64)
    weights = {0: 1.0, 1: 1.0}
    a = Perceptron(class_weight=weights).partial_fit(X[:5], y[:5], classes=[0, 1])
    weights[1] = -1.0  # invalid now: must be refused, not cached
    with pytest.raises(ValueError, match="class_weight"):
        a.partial_fit(X[5:6], y[5:6])


def test_pickle_round_trip_mid_stream():
    X, y = _data(5, 40, 3, False, np.float64)
    a = Perceptron().partial_fit(X[:10], y[:10], classes=[0, 1, 2])
    for i in range(10, 20):
        a.partial_fit(X[i:i + 1], y[i:i + 1])
    b = pickle.loads(pickle.dumps(a))
    assert "_stream" not in b.__dict__
    for i in range(20, 40):
        a.partial_fit(X[i:i + 1], y[i:i + 1])
        b.partial_fit(X[i:i + 1], y[i:i + 1])
    _assert_same(_model(a), _model(b))


def test_weights_near_overflow_still_refused():
    """Close to overflow the in-place pass is not provably safe: the checked
    path runs, refuses the overflow and leaves the estimator as it was."""
    X = np.array([[1.0]])
    # The first update reaches 0.55 * max < threshold, so the next sample
    # updates again, and overflows.
    est = Perceptron(eta0=0.55 * np.finfo(np.float64).max, threshold=1e308,
                     fit_intercept=False)
    est.partial_fit(X, [1], classes=[0, 1])
    refused = 0
    for _ in range(5):
        before = _snapshot(est)
        try:
            est.partial_fit(X, [1])
        except ValueError as error:
            assert "non-finite" in str(error)
            assert _snapshot(est) == before
            refused += 1
        assert np.isfinite(est.coef_).all()
    assert refused >= 2


@pytest.mark.parametrize("estimator", [Perceptron(eta0=2.0, fit_intercept=False),
                                       MarginPerceptron(margin=0.1, fit_intercept=False)],
                         ids=_ids)
def test_margin_overflow_refused_and_nothing_changes(estimator):
    """A row whose margin overflows (inf - inf) is refused by the checked
    path: the in-place pass is not taken for rows that large."""
    est = clone(estimator).partial_fit(np.array([[1.0, 0.0], [0.0, 1.0]]), [1, 0],
                                       classes=[0, 1])
    est.partial_fit(np.array([[0.5, 0.5]]), [1])
    huge = np.array([[1.7e308, 1.7e308]])
    refused = 0
    for label in [1, 0, 1, 0]:
        before = _snapshot(est)
        try:
            est.partial_fit(huge, [label])
        except ValueError as error:
            assert "overflow" in str(error)
            assert _snapshot(est) == before
            refused += 1
        assert np.isfinite(est.coef_).all()
    assert refused >= 1


@pytest.mark.parametrize("estimator", [Perceptron(), Perceptron(average=True),
                                       Perceptron(threshold=0.5, eta0=0.3)],
                         ids=_ids)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**16), n_classes=st.sampled_from([2, 4]),
       chunks=st.lists(st.integers(1, 12), min_size=1, max_size=8),
       as_list=st.booleans(), strings=st.booleans())
def test_any_chunking_of_a_stream_equals_one_batch(estimator, seed, n_classes,
                                                   chunks, as_list, strings):
    """Calls of any size (the compiled stream takes up to 256 rows), labels
    as a list or an array, of any type: the model of one batch, bit for bit,
    with coef_ right whenever it is read."""
    n_samples = sum(chunks) + 1
    X, y = _data(seed, n_samples, n_classes, False, np.float64)
    classes = np.arange(n_classes)
    if strings:
        y = np.array([f"c{v}" for v in y])
        classes = np.array([f"c{v}" for v in classes])
    batch = clone(estimator).partial_fit(X, y, classes=classes)
    stream = clone(estimator).partial_fit(X[:1], y[:1], classes=classes)
    start = 1
    for size in chunks:
        labels = y[start:start + size]
        stream.partial_fit(X[start:start + size],
                           labels.tolist() if as_list else labels)
        # Read between calls: a lazily averaged coef_ must follow the stream.
        partial = clone(estimator).partial_fit(X[:start + size],
                                               y[:start + size], classes=classes)
        np.testing.assert_array_equal(stream.coef_, partial.coef_)
        start += size
    _assert_same(_model(stream), _model(batch))
    assert stream.mistakes_per_epoch_[0] + sum(stream.mistakes_per_epoch_[1:]) \
        == stream.n_mistakes_


def test_fit_between_calls_starts_the_stream_anew():
    """fit replaces the state the compiled stream was armed for: the next
    row updates the new model, never the old one."""
    X, y = _data(11, 60, 2, False, np.float64)
    est = Perceptron().partial_fit(X[:10], y[:10], classes=[0, 1])
    for i in range(10, 20):
        est.partial_fit(X[i:i + 1], y[i:i + 1])
    old_coef = est.coef_
    old_values = old_coef.copy()
    est.fit(X[20:40], y[20:40])
    reference = Perceptron().fit(X[20:40], y[20:40])
    for i in range(40, 60):
        est.partial_fit(X[i:i + 1], y[i:i + 1])
        reference.partial_fit(X[i:i + 1], y[i:i + 1])
    _assert_same(_model(est), _model(reference))
    np.testing.assert_array_equal(old_coef, old_values)


def test_other_dtype_and_weighted_rows_between_lean_rows():
    """float32 rows, weighted rows and lean rows mixed in one stream give the
    model of the same calls made the full way (the checked path)."""
    X, y = _data(12, 40, 3, False, np.float64)
    weight = np.random.RandomState(0).uniform(0.5, 2.0, 40)
    lean = Perceptron(average=True).partial_fit(X[:5], y[:5], classes=[0, 1, 2])
    full = Perceptron(average=True).partial_fit(X[:5], y[:5], classes=[0, 1, 2])
    for i in range(5, 40):
        kwargs = {"sample_weight": weight[i:i + 1]} if i % 3 == 0 else {}
        row = X[i:i + 1].astype(np.float32) if i % 4 == 0 else X[i:i + 1]
        lean.partial_fit(row, y[i:i + 1], **kwargs)
        full._checked_partial_fit(row, y[i:i + 1], **kwargs)
    _assert_same(_model(lean), _model(full))


@pytest.mark.parametrize("estimator", [MarginPerceptron(margin=0.1),
                                       MarginPerceptron(margin=0.3, average=True),
                                       Perceptron(average=True),
                                       SecondOrderPerceptron(),
                                       SecondOrderPerceptron(diagonal=True,
                                                             average=True)],
                         ids=_ids)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("sparse", [False, True])
def test_lean_calls_leave_the_attributes_of_the_full_way(estimator, n_classes,
                                                         sparse):
    """Every attribute a lean call defers (averaged coef_, margin_, gamma_)
    reads as after the same calls made the full way, also after pickling."""
    X, y = _data(13, 40, n_classes, sparse, np.float64)
    classes = np.arange(n_classes)
    lean = clone(estimator).partial_fit(X[:5], y[:5], classes=classes)
    full = clone(estimator).partial_fit(X[:5], y[:5], classes=classes)
    names = ["coef_", "intercept_", "margin_", "gamma_", "n_mistakes_",
             "n_iter_", "converged_", "mistakes_per_epoch_"]
    for i in range(5, 40):
        size = 1 + i % 3
        lean.partial_fit(X[i:i + size], y[i:i + size])
        full._checked_partial_fit(X[i:i + size], y[i:i + size])
        if i % 4 == 0:
            lean = pickle.loads(pickle.dumps(lean))
        for name in names:
            if hasattr(full, name):
                np.testing.assert_array_equal(getattr(lean, name),
                                              getattr(full, name))
            else:
                assert not hasattr(lean, name)


@pytest.mark.parametrize("estimator", STREAMING, ids=_ids)
@pytest.mark.parametrize("bad", ["nan", "inf", "features", "label", "no_rows"])
def test_bad_csr_row_refused_and_nothing_changes(estimator, bad):
    """CSR rows take the lean path of validation too: what can fail is
    still checked, with the messages of the full way."""
    est, X, y = _fitted(estimator)
    X_bad, y_bad, weight, message = BAD_ROWS[bad]
    X_bad = sp.csr_matrix(X_bad)
    X_bad.data[:] = X_bad.data  # explicit NaN/inf entries stay stored
    before = _snapshot(est)
    with pytest.raises(ValueError, match=message):
        est.partial_fit(X_bad, np.asarray(y_bad))
    assert _snapshot(est) == before
    if bad != "label":  # prediction has no labels to check
        with pytest.raises(ValueError, match=message):
            est.predict(X_bad)


@pytest.mark.parametrize("reduction", [OneVsAllPerceptron, OneVsOnePerceptron])
@pytest.mark.parametrize("change", ["set_params", "own_partial_fit", "replace"])
def test_reduction_binary_estimator_changed_between_rows(reduction, change):
    """A binary estimator changed by hand between rows (its parameters, its
    own partial_fit, a new estimator in estimators_) makes the next row go
    the full way: the same model as calls made the full way."""
    X, y = _data(14, 40, 3, False, np.float64)
    lean = reduction(Perceptron(average=True)).partial_fit(X[:9], y[:9],
                                                          classes=[0, 1, 2])
    full = reduction(Perceptron(average=True)).partial_fit(X[:9], y[:9],
                                                          classes=[0, 1, 2])
    for i in range(9, 40):
        if i == 20:
            for est in (lean, full):
                if change == "set_params":
                    est.estimators_[1].set_params(eta0=0.5)
                elif change == "own_partial_fit":
                    est.estimators_[1].partial_fit(X[i:i + 2], [0, 1])
                else:
                    est.estimators_[1] = clone(est.estimators_[1]).partial_fit(
                        X[:3], [0, 1, 0], classes=[0, 1])
        lean.partial_fit(X[i:i + 1], y[i:i + 1])
        full._checked_partial_fit(X[i:i + 1], y[i:i + 1])
        _assert_same(_model(lean), _model(full))
        np.testing.assert_array_equal(lean.decision_function(X[:4]),
                                      full.decision_function(X[:4]))


@pytest.mark.parametrize("estimator", [
    Perceptron(penalty="elasticnet", alpha=0.01),
    Perceptron(penalty="l2", alpha=0.05, average=True),
    OneVsAllPerceptron(Perceptron(penalty="l1", alpha=0.01)),
    OneVsOnePerceptron(Perceptron(penalty="l2", alpha=0.01)),
], ids=_ids)
def test_penalized_stream_equals_the_full_way(estimator):
    """A penalty is not part of the compiled stream: penalized one-row calls
    give the model of the same calls made the full way."""
    X, y = _data(15, 40, 3, False, np.float64)
    lean = clone(estimator).partial_fit(X[:5], y[:5], classes=[0, 1, 2])
    full = clone(estimator).partial_fit(X[:5], y[:5], classes=[0, 1, 2])
    for i in range(5, 40):
        lean.partial_fit(X[i:i + 1], y[i:i + 1])
        full._checked_partial_fit(X[i:i + 1], y[i:i + 1])
    _assert_same(_model(lean), _model(full))


@pytest.mark.parametrize("base", [Perceptron(), Perceptron(average=True),
                                  MarginPerceptron(margin=0.1)], ids=_ids)
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_reduction_one_row_decision_is_that_of_its_estimators(base, n_classes,
                                                              dtype):
    """The lean one-row decision of a reduction is, bit for bit, the
    combination of its binary estimators' own decisions (one-vs-one: votes
    plus normalized confidences, pairs added in order; a pair that saw no
    sample yet does not vote)."""
    X, y = _data(16, 30, n_classes, False, dtype)
    y[:10] = np.arange(10) % 2  # the first batch: classes 0 and 1 only
    for reduction in (OneVsAllPerceptron, OneVsOnePerceptron):
        est = reduction(clone(base)).partial_fit(X[:10], y[:10],
                                                 classes=np.arange(n_classes))
        for i in range(10, 30):
            row = X[i:i + 1]
            binary = [np.ravel(e.decision_function(row))
                      if hasattr(e, "classes_") else None
                      for e in est.estimators_]
            if reduction is OneVsAllPerceptron:
                expected = (binary[0] if len(binary) == 1
                            else np.column_stack(binary))
            else:
                votes = np.zeros((1, n_classes))
                confidence = np.zeros((1, n_classes))
                for (a, b), scores in zip(est._rows(n_classes), binary):
                    if scores is None:
                        continue
                    votes[:, b] += scores > 0
                    votes[:, a] += ~(scores > 0)
                    confidence[:, b] += scores
                    confidence[:, a] -= scores
                expected = votes + confidence / (3.0 * (np.abs(confidence) + 1.0))
                if n_classes == 2:
                    expected = expected[:, 1]
            np.testing.assert_array_equal(est.decision_function(row), expected)
            np.testing.assert_array_equal(
                est.predict(row), est.classes_[np.argmax(np.atleast_2d(expected), axis=1)]
                if expected.ndim == 2 else est.classes_[(expected > 0).astype(int)])
            est.partial_fit(row, y[i:i + 1])


@pytest.mark.parametrize("estimator", [Perceptron(), Perceptron(average=True),
                                       MarginPerceptron(margin=0.1)], ids=_ids)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_csr_rows_of_any_form_equal_one_batch(estimator, dtype):
    """CSR rows as csr_matrix or csr_array, with duplicate or unsorted
    entries or with no stored entry at all: the model of one batch, bit for
    bit."""
    X, y = _data(17, 30, 3, False, dtype)
    X[5] = 0.0
    batch = clone(estimator).partial_fit(sp.csr_matrix(X), y, classes=[0, 1, 2])
    stream = clone(estimator).partial_fit(sp.csr_matrix(X[:2]), y[:2],
                                          classes=[0, 1, 2])
    for i in range(2, 30):
        row = sp.csr_matrix(X[i:i + 1])
        if i % 4 == 0:
            row = sp.csr_array(row)
        elif i % 4 == 1 and row.nnz >= 2:
            # Split the first entry in two halves stored twice, unsorted.
            half = row.data[0] / 2
            row = sp.csr_matrix(
                (np.r_[row.data[1:], half, row.data[0] - half],
                 np.r_[row.indices[1:], row.indices[0], row.indices[0]],
                 [0, row.nnz + 1]), shape=row.shape)
            assert not row.has_canonical_format
        stream.partial_fit(row, y[i:i + 1])
    _assert_same(_model(stream), _model(batch))


@pytest.mark.parametrize("estimator", [Perceptron(), OneVsAllPerceptron(),
                                       OneVsOnePerceptron()], ids=_ids)
def test_classes_replaced_between_calls_go_the_full_way(estimator):
    """classes_ replaced by hand (the labels the stream's dict was made
    for): the next calls see the new labels, as the full way does."""
    X, y = _data(18, 30, 3, False, np.float64)
    lean = clone(estimator).partial_fit(X[:10], y[:10], classes=[0, 1, 2])
    full = clone(estimator).partial_fit(X[:10], y[:10], classes=[0, 1, 2])
    for i in range(10, 15):
        lean.partial_fit(X[i:i + 1], y[i:i + 1])
        full._checked_partial_fit(X[i:i + 1], y[i:i + 1])
    for est in (lean, full):
        est.classes_ = np.array([10, 11, 12])
    with pytest.raises(ValueError, match="not in classes"):
        lean.partial_fit(X[15:16], y[15:16])
    for i in range(15, 30):
        lean.partial_fit(X[i:i + 1], y[i:i + 1] + 10)
        full._checked_partial_fit(X[i:i + 1], y[i:i + 1] + 10)
    _assert_same(_model(lean), _model(full))


@pytest.mark.parametrize("diagonal", [False, True])
def test_second_order_overflow_refused_and_nothing_changes(diagonal):
    """A row whose score or update overflows: the lean call declines, the
    full way refuses it, and the estimator is as it was."""
    X, y = _data(19, 20, 2, False, np.float64)
    est = SecondOrderPerceptron(diagonal=diagonal).partial_fit(X[:10], y[:10],
                                                               classes=[0, 1])
    for i in range(10, 20):
        est.partial_fit(X[i:i + 1], y[i:i + 1])
    refused = 0
    for value in [1e200, 1e300, 1.7e308]:
        row = np.full((1, 6), value)
        label = 1 - int(est.predict(row)[0])  # a mistake: an update
        before = _snapshot(est)
        try:
            with np.errstate(over="ignore"):
                est.partial_fit(row, [label])
        except ValueError as error:
            assert "overflow" in str(error)
            assert _snapshot(est) == before
            refused += 1
        assert np.isfinite(est.coef_).all()
    assert refused >= 1
