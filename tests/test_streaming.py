# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Streaming one row at a time (issue #23): the lean path of ``partial_fit``
gives the same model as one call on the whole batch, and refuses every bad
input of the estimators' conventions without changing the estimator."""

import copy
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_perceptrons import _multiclass
from sklearn_perceptrons._linear import margin as _margin
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
    OneVsAllPerceptron(MarginPerceptron()),  # binary margin searches
    OneVsOnePerceptron(MarginPerceptron(average=True)),
]


def _csr_row_form(X, i):
    """Row i of X as CSR in one of the forms a stream meets, by i: a
    csr_array, a non-canonical csr_matrix (the first entry split in two
    halves stored twice, unsorted), or a plain csr_matrix."""
    row = sp.csr_matrix(X[i:i + 1])
    if i % 4 == 0:
        return sp.csr_array(row)
    if i % 4 == 1 and row.nnz >= 2:
        half = row.data[0] / 2
        row = sp.csr_matrix(
            (np.r_[row.data[1:], half, row.data[0] - half],
             np.r_[row.indices[1:], row.indices[0], row.indices[0]],
             [0, row.nnz + 1]), shape=row.shape)
        assert not row.has_canonical_format
    return row


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
    (MarginPerceptron(), "epsilon", 2.0),
    (SecondOrderPerceptron(), "fit_intercept", "yes"),
    (KernelPerceptron(), "kernel", "unknown"),
    (OneVsAllPerceptron(Perceptron()), "estimator__eta0", 0.0),
    (OneVsOnePerceptron(Perceptron()), "estimator__threshold", -2.0),
    (OneVsAllPerceptron(), "n_jobs", "two"),
    (OneVsOnePerceptron(MarginPerceptron()), "n_jobs", 1.5),
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
                                       MarginPerceptron(),
                                       MarginPerceptron(average=True, epsilon=0.8),
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
        row = _csr_row_form(X, i)
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
        before = _snapshot(est), _so_state(est)
        try:
            with np.errstate(over="ignore"):
                est.partial_fit(row, [label])
        except ValueError as error:
            assert "overflow" in str(error)
            assert (_snapshot(est), _so_state(est)) == before
            refused += 1
        assert np.isfinite(est.coef_).all()
    assert refused >= 1


def _so_state(est):
    """Every array of a second-order state (A^-1 or diag(A) and v included)."""
    return pickle.dumps({name: value for name, value in vars(est._state).items()})


@pytest.mark.parametrize("diagonal", [False, True])
@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_second_order_in_place_stream_equals_the_full_way(diagonal, average,
                                                          n_classes, dtype):
    """The lean calls update the state in place (A^-1's downdates held back
    until the pass is checked): the state of the full way, bit for bit, A^-1
    included, over calls of one row and of a few rows (a copy in full mode)."""
    X, y = _data(21, 60, n_classes, False, dtype)
    params = dict(diagonal=diagonal, average=average)
    lean = SecondOrderPerceptron(**params).partial_fit(
        X[:5], y[:5], classes=np.arange(n_classes))
    full = SecondOrderPerceptron(**params).partial_fit(
        X[:5], y[:5], classes=np.arange(n_classes))
    state = lean._state
    start = 5
    handed_out = []
    for size in [1] * 20 + [3, 1, 7, 1, 1, 4] + [1] * 18:
        rows = slice(start, start + size)
        lean.partial_fit(X[rows], y[rows])
        full._checked_partial_fit(X[rows], y[rows])
        start += size
        handed_out.append((lean.coef_, lean.coef_.copy()))
    # The weights read between calls are the model's then, not live views.
    for coef, snapshot in handed_out:
        np.testing.assert_array_equal(coef, snapshot)
    if diagonal:
        assert lean._state is state  # every call took the state in place
    assert lean.n_mistakes_ == full.n_mistakes_ > 0
    assert _so_state(lean) == _so_state(full)
    _assert_same(_model(lean), _model(full))


@pytest.mark.parametrize("diagonal", [False, True])
def test_second_order_bad_rows_between_in_place_rows(diagonal):
    """Refused rows (and an overflow) between in-place one-row calls leave
    the state as it was, and the stream goes on as the full way does."""
    X, y = _data(22, 40, 3, False, np.float64)
    lean = SecondOrderPerceptron(diagonal=diagonal).partial_fit(
        X[:10], y[:10], classes=[0, 1, 2])
    full = SecondOrderPerceptron(diagonal=diagonal).partial_fit(
        X[:10], y[:10], classes=[0, 1, 2])
    bad = [(np.array([[np.nan, 0, 0, 0, 0, 0]]), [1]), (np.zeros((1, 5)), [1]),
           (np.zeros((1, 6)), [7]), (np.full((1, 6), 1e200), [0]),
           (np.full((1, 6), 1e200), [1]), (np.full((1, 6), -1e200), [2])]
    for i in range(10, 40):
        if i % 5 == 0:
            row, label = bad[(i // 5) % len(bad)]
            before = _so_state(lean)
            with np.errstate(over="ignore", invalid="ignore"):
                # The lean pass itself declines (after running, for the
                # rows of 1e200: its undo record restores the state).
                assert lean._stream["fast"].learn(lean.__dict__, row, label) == -1
                assert _so_state(lean) == before
                with pytest.raises(ValueError):
                    lean.partial_fit(row, label)
            assert _so_state(lean) == before
        lean.partial_fit(X[i:i + 1], y[i:i + 1])
        full._checked_partial_fit(X[i:i + 1], y[i:i + 1])
    assert _so_state(lean) == _so_state(full)
    _assert_same(_model(lean), _model(full))


def test_second_order_changed_parameter_goes_the_full_way():
    """A changed parameter between in-place calls: the next row is learned
    with it, as the full way does (a changed a restarts nothing: it only
    enters a fresh state)."""
    X, y = _data(23, 30, 2, False, np.float64)
    lean = SecondOrderPerceptron(average=False).partial_fit(X[:10], y[:10],
                                                            classes=[0, 1])
    full = SecondOrderPerceptron(average=False).partial_fit(X[:10], y[:10],
                                                            classes=[0, 1])
    for i in range(10, 30):
        if i == 20:
            for est in (lean, full):
                est.set_params(fit_intercept=est.fit_intercept)
                est.set_params(average=True)
        lean.partial_fit(X[i:i + 1], y[i:i + 1])
        full._checked_partial_fit(X[i:i + 1], y[i:i + 1])
    assert _so_state(lean) == _so_state(full)
    _assert_same(_model(lean), _model(full))


def _assert_same_kernel_state(a, b):
    """The iterates of two kernel perceptrons, array for array, bit for bit."""
    assert a._state.keys() == b._state.keys()
    for name, value in a._state.items():
        other = b._state[name]
        if isinstance(value, np.ndarray):
            assert value.dtype == other.dtype and value.shape == other.shape, name
            np.testing.assert_array_equal(value, other, err_msg=name)
        else:
            assert value == other, name
    for name in ["n_support_", "dual_coef_", "intercept_", "support_vectors_"]:
        _assert_same(getattr(a, name), getattr(b, name))
    assert a.mistakes_per_epoch_ == b.mistakes_per_epoch_
    assert a._max_support_seen == b._max_support_seen
    assert a.n_iter_ == b.n_iter_ and a.converged_ == b.converged_


@pytest.mark.parametrize("params", [
    dict(kernel="rbf", gamma=0.5),
    dict(kernel="rbf", average=True, fit_intercept=False),
    dict(kernel="poly", degree=2, threshold=0.3),
    dict(kernel="cosine"),
    dict(kernel="rbf", multi_class="crammer_singer"),
    dict(kernel="laplacian", multi_class="crammer_singer", update="uniform",
         average=True),
], ids=repr)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kernel_one_row_calls_equal_the_full_way(params, n_classes, dtype):
    """A one-row call appends to the support set in place and scores the row
    against it: the iterate of the full way (which rebuilds the walk), array
    for array, over more rows than the first capacity; the arrays handed out
    earlier never change."""
    X, y = _data(24, 70, n_classes, False, dtype)
    X *= 2.0  # rows far enough apart for many mistakes
    lean = KernelPerceptron(**params).partial_fit(
        X[:3], y[:3], classes=np.arange(n_classes))
    full = KernelPerceptron(**params).partial_fit(
        X[:3], y[:3], classes=np.arange(n_classes))
    handed_out = []
    for i in range(3, 70):
        if i == 40:  # a call of several rows between one-row calls
            lean.partial_fit(X[40:43], y[40:43])
            full._checked_partial_fit(X[40:43], y[40:43])
        if 40 <= i < 43:
            continue
        lean.partial_fit(X[i:i + 1], y[i:i + 1].tolist())
        full._checked_partial_fit(X[i:i + 1], y[i:i + 1])
        handed_out.append((lean.support_vectors_, lean.support_vectors_.copy(),
                           lean.dual_coef_, lean.dual_coef_.copy()))
        _assert_same_kernel_state(lean, full)
    assert lean.support_vectors_.shape[0] > 16  # grown past the first capacity
    for array, snapshot, dual, dual_snapshot in handed_out:
        np.testing.assert_array_equal(array, snapshot)
        np.testing.assert_array_equal(dual, dual_snapshot)
    np.testing.assert_array_equal(lean.decision_function(X), full.decision_function(X))


def test_kernel_changed_parameter_or_iterate_goes_the_full_way():
    """A changed parameter, a fit, or a pickled-and-restored estimator
    between one-row calls: the next rows are learned as the full way learns
    them."""
    X, y = _data(25, 60, 3, False, np.float64)
    lean = KernelPerceptron(kernel="rbf").partial_fit(X[:5], y[:5], classes=[0, 1, 2])
    full = KernelPerceptron(kernel="rbf").partial_fit(X[:5], y[:5], classes=[0, 1, 2])
    for i in range(5, 60):
        if i == 20:
            for est in (lean, full):
                est.set_params(threshold=0.5, average=True)
        if i == 35:
            lean = pickle.loads(pickle.dumps(lean))
        if i == 45:
            for est in (lean, full):
                est.fit(X[:30], y[:30])
        lean.partial_fit(X[i:i + 1], y[i:i + 1])
        full._checked_partial_fit(X[i:i + 1], y[i:i + 1])
        _assert_same_kernel_state(lean, full)


def test_kernel_bad_rows_between_one_row_calls():
    """Refused rows between in-place one-row calls change nothing, and the
    stream goes on as the full way does."""
    X, y = _data(26, 40, 3, False, np.float64)
    lean = KernelPerceptron(kernel="rbf").partial_fit(X[:5], y[:5], classes=[0, 1, 2])
    full = KernelPerceptron(kernel="rbf").partial_fit(X[:5], y[:5], classes=[0, 1, 2])
    bad = [(np.array([[np.nan, 0, 0, 0, 0, 0]]), [1]), (np.zeros((1, 5)), [1]),
           (np.zeros((1, 6)), [7]), (np.array([["a", 0, 0, 0, 0, 0]], dtype=object), [1]),
           (np.full((1, 6), 1e200), [1])]  # its squared norm overflows
    for i in range(5, 40):
        if i % 6 == 0:
            row, label = bad[(i // 6) % len(bad)]
            before = pickle.dumps(lean)
            with pytest.raises(ValueError), np.errstate(over="ignore"):
                lean.partial_fit(row, label)
            assert pickle.dumps(lean) == before
        lean.partial_fit(X[i:i + 1], y[i:i + 1])
        full._checked_partial_fit(X[i:i + 1], y[i:i + 1])
    _assert_same_kernel_state(lean, full)


def _search_arrays(estimator):
    search = estimator._search_state
    return [np.asarray(getattr(search, name)) for name in
            ("sq_radius", "halvings", "run_updates", "start_norm", "step_min",
             "step_max")]


def _margin_attributes(estimator):
    return [np.asarray(estimator.coef_), np.asarray(estimator.intercept_),
            np.asarray(estimator.margin_), np.asarray(estimator.gamma_),
            estimator.n_mistakes_, estimator.mistakes_per_epoch_,
            estimator.n_iter_, estimator.converged_] + _search_arrays(estimator)


@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**16),
       sizes=st.lists(st.integers(1, 9), min_size=4, max_size=14),
       params=st.sampled_from([{}, {"epsilon": 0.9}, {"fit_intercept": False},
                               {"average": True, "epsilon": 0.25}]),
       after_fit=st.booleans())
def test_margin_search_lean_calls_equal_the_full_way(n_classes, dtype, seed, sizes,
                                                     params, after_fit):
    """The online margin search (margin="auto") of lean calls of one or a few
    rows, between weighted and other-dtype calls (the full way), and after a
    fit's search: coef_, intercept_, margin_, gamma_, the mistake record and
    the search state of the same calls made the full way, bit for bit."""
    rng = np.random.RandomState(seed)
    n_samples = sum(sizes) + 10
    X = rng.normal(size=(n_samples, 5)).astype(dtype)
    # Rows of growing norm: the radius grows, and so every γ, mid-stream.
    X *= np.linspace(0.2, 3.0, n_samples)[:, None].astype(dtype)
    y = rng.randint(n_classes, size=n_samples)
    classes = np.arange(n_classes)
    lean, full = MarginPerceptron(**params), MarginPerceptron(**params)
    if after_fit:
        lean.fit(X[:10], y[:10])
        full.fit(X[:10], y[:10])
    lean.partial_fit(X[:10], y[:10], classes=classes)
    full.partial_fit(X[:10], y[:10], classes=classes)
    start = 10
    for call, size in enumerate(sizes):
        rows, labels = X[start:start + size], y[start:start + size]
        kwargs = {}
        if call % 5 == 3:
            kwargs = {"sample_weight": rng.uniform(0.5, 2.0, size)}
        elif call % 5 == 4:
            rows = rows.astype(np.float32 if dtype == np.float64 else np.float64)
        lean.partial_fit(rows, labels.tolist() if call % 2 else labels, **kwargs)
        full._checked_partial_fit(rows, labels, **kwargs)
        _assert_same(_margin_attributes(lean), _margin_attributes(full))
        start += size
    assert lean.n_mistakes_ > 0
    np.testing.assert_array_equal(lean.decision_function(X), full.decision_function(X))


def test_margin_search_lean_calls_take_the_lean_path():
    """After the first call, one-row calls of margin="auto" are taken by the
    lean stream (the search state changes in place, never copied), and halve
    γ (restart a run) as the full way does."""
    X, y = _data(31, 400, 2, False, np.float64)
    y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    est = MarginPerceptron().partial_fit(X[:2], y[:2], classes=[0, 1])
    full = MarginPerceptron().partial_fit(X[:2], y[:2], classes=[0, 1])
    search = est._search_state
    for i in range(2, 400):
        est.partial_fit(X[i:i + 1], y[i:i + 1])
        full._checked_partial_fit(X[i:i + 1], y[i:i + 1])
    assert est._search_state is search
    assert search.halvings[0] >= 2  # runs restarted at halved γ
    _assert_same(_margin_attributes(est), _margin_attributes(full))


@pytest.mark.parametrize("bad", ["nan", "inf", "features", "label", "y_length",
                                 "X_1d", "no_rows"])
def test_margin_search_bad_rows_between_lean_rows(bad):
    """A bad row between lean rows of margin="auto" is refused with nothing
    changed (search state included), and the stream goes on as without it;
    so does a huge finite row whose squared norm overflows."""
    X, y = _data(32, 60, 3, False, np.float64)
    est = MarginPerceptron().partial_fit(X[:5], y[:5], classes=[0, 1, 2])
    reference = MarginPerceptron().partial_fit(X[:5], y[:5], classes=[0, 1, 2])
    X_bad, y_bad, _, message = BAD_ROWS[bad]
    for i in range(5, 60):
        if i == 30:
            before = _snapshot(est), pickle.dumps(_search_arrays(est))
            with pytest.raises(ValueError, match=message):
                est.partial_fit(X_bad, np.asarray(y_bad))
            assert (_snapshot(est), pickle.dumps(_search_arrays(est))) == before
        est.partial_fit(X[i:i + 1], y[i:i + 1])
        reference.partial_fit(X[i:i + 1], y[i:i + 1])
    _assert_same(_margin_attributes(est), _margin_attributes(reference))
    # Finite, but its squared norm is not: the full way decides (here it
    # refuses the overflow of the margins), on both.
    huge = np.full((1, 6), 1e160)
    before = _snapshot(est)
    for model in (est, reference):
        with pytest.raises(ValueError, match="overflow"):
            model.partial_fit(huge, [1])
    assert _snapshot(est) == before
    _assert_same(_margin_attributes(est), _margin_attributes(reference))


def test_margin_search_lean_calls_continue_a_warm_run_of_fit():
    """After a fit whose last halving was by the tol rule, the run goes on
    from a nonzero iterate (its budget is that of a warm start): lean calls
    follow it as the full way does."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(160, 4))
    y = (X[:, 0] + 0.8 * rng.normal(size=160) > 0).astype(int)
    lean = MarginPerceptron(n_iter_no_change=2).fit(X[:30], y[:30])
    full = MarginPerceptron(n_iter_no_change=2).fit(X[:30], y[:30])
    assert lean._search_state.start_norm[0] > 0
    lean.partial_fit(X[30:31], y[30:31])
    full.partial_fit(X[30:31], y[30:31])
    for i in range(31, 160, 2):
        size = 1 + i % 3
        lean.partial_fit(X[i:i + size], y[i:i + size])
        full._checked_partial_fit(X[i:i + size], y[i:i + size])
        _assert_same(_margin_attributes(lean), _margin_attributes(full))
    assert lean._search_state.run_updates[0] > 0


@settings(max_examples=40, deadline=None)
@given(sq_radius=st.floats(0.0, 1e6), halvings=st.integers(0, 700),
       start_norm=st.sampled_from([0.0, 1e-3, 0.7, 5.0, 1e4, 1e9]),
       step_min=st.floats(1e-3, 1.0), spread=st.floats(1.0, 50.0),
       epsilon=st.sampled_from([0.5, 1.0, 0.1, 1 / 3]))
# A warm run whose start is long: its own bound is above the cold one.
@example(sq_radius=1.0, halvings=0, start_norm=1e4, step_min=0.5, spread=3.0,
         epsilon=0.5)
def test_margin_stream_levels_equal_the_search(sq_radius, halvings, start_norm,
                                               step_min, spread, epsilon):
    """The lean stream's margin threshold and update budget of a row, on
    floats, are those of the search state's arrays, bit for bit (cold and
    warm runs, any level)."""
    X, y = _data(33, 12, 3, False, np.float64)
    est = MarginPerceptron(epsilon=epsilon).partial_fit(X, y, classes=[0, 1, 2])
    stream = est.__dict__["_stream"]["fast"]
    step_max = step_min * spread
    for name, value in [("sq_radius", sq_radius), ("halvings", halvings),
                        ("start_norm", start_norm), ("step_min", step_min),
                        ("step_max", step_max)]:
        getattr(stream, name)[1] = value
        getattr(est._search_state, name)[1] = value
    stream._level(1)
    search = est._search_state
    assert stream.kappa[1] == ((1.0 - epsilon) * search.gamma())[1]
    assert stream.budget[1] == search.budget(epsilon)[1]


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("change", [{"epsilon": 0.9}, {"fit_intercept": False},
                                    {"margin": 0.2}, {"average": True}], ids=repr)
def test_margin_search_changed_parameter_goes_the_full_way(n_classes, change):
    """A parameter changed between lean rows of margin="auto" is seen by the
    next row (no stale margin threshold, norm or search state): the model of
    the same calls made the full way, and back to "auto" after."""
    X, y = _data(34, 80, n_classes, False, np.float64)
    classes = np.arange(n_classes)
    lean = MarginPerceptron().partial_fit(X[:5], y[:5], classes=classes)
    full = MarginPerceptron().partial_fit(X[:5], y[:5], classes=classes)
    for i in range(5, 80):
        if i in (30, 55):
            params = change if i == 30 else {k: MarginPerceptron().get_params()[k]
                                             for k in change}
            lean.set_params(**params)
            full.set_params(**params)
        lean.partial_fit(X[i:i + 1], y[i:i + 1])
        full._checked_partial_fit(X[i:i + 1], y[i:i + 1])
        _assert_same([np.asarray(getattr(m, name)) for m in (lean,)
                      for name in ("coef_", "intercept_", "margin_", "gamma_")]
                     + [lean.mistakes_per_epoch_],
                     [np.asarray(getattr(m, name)) for m in (full,)
                      for name in ("coef_", "intercept_", "margin_", "gamma_")]
                     + [full.mistakes_per_epoch_])
    assert isinstance(lean.__dict__["_stream"]["fast"], _margin._MarginStream)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("average", [False, True])
def test_margin_search_csr_rows_equal_the_full_way(dtype, average):
    """One CSR row per call of a binary margin="auto" stream (csr_matrix or
    csr_array, duplicate entries, no entry, a NaN entry refused): the model,
    margins and search state of the same calls made the full way."""
    X, y = _data(35, 60, 2, False, dtype)
    X *= np.linspace(0.3, 2.0, 60)[:, None].astype(dtype)
    X[7] = 0.0
    lean = MarginPerceptron(average=average).partial_fit(
        sp.csr_matrix(X[:2]), y[:2], classes=[0, 1])
    full = MarginPerceptron(average=average).partial_fit(
        sp.csr_matrix(X[:2]), y[:2], classes=[0, 1])
    for i in range(2, 60):
        row = _csr_row_form(X, i)
        if i == 30:
            bad = row.copy()
            bad.data[:1] = np.nan
            before = _snapshot(lean), pickle.dumps(_search_arrays(lean))
            with pytest.raises(ValueError, match="NaN"):
                lean.partial_fit(bad, y[i:i + 1])
            assert (_snapshot(lean), pickle.dumps(_search_arrays(lean))) == before
        lean.partial_fit(row, y[i:i + 1])
        full._checked_partial_fit(row, y[i:i + 1])
        _assert_same(_margin_attributes(lean), _margin_attributes(full))
    assert isinstance(lean.__dict__["_stream"]["fast"], _margin._MarginStream)


# ---------------------------------------------------------------------------
# Reductions of margin perceptrons: fixed margin and binary margin searches
# ---------------------------------------------------------------------------


def _binary_attributes(estimator):
    """Every attribute a fitted binary estimator of a reduction has (the
    lazy ones read), its weight state and its margin search state."""
    if not hasattr(estimator, "classes_"):
        return ["not fitted"]
    names = sorted(n for n in vars(estimator) if n.endswith("_")
                   and not n.startswith("_"))
    names = sorted(set(names) | {"coef_", "intercept_", "margin_", "gamma_",
                                 "mistakes_per_epoch_"})
    values = [names] + [getattr(estimator, n) for n in names]
    values = [np.asarray(v) if isinstance(v, (np.ndarray, float)) else v
              for v in values]
    state = estimator._state
    values += [getattr(state, n) for n in ("coef", "intercept", "visits")]
    if state.average:
        values += [state.coef_sum, state.intercept_sum]
    search = estimator._search_state
    values.append(None if search is None else _search_arrays(estimator))
    return values


def _assert_same_binaries(a, b):
    assert len(a.estimators_) == len(b.estimators_)
    for x, y in zip(a.estimators_, b.estimators_):
        _assert_same(_binary_attributes(x), _binary_attributes(y))


MARGIN_BASES = [MarginPerceptron(margin=0.3),
                MarginPerceptron(margin=0.2, average=True, fit_intercept=False),
                MarginPerceptron(epsilon=0.9),
                MarginPerceptron(average=True, epsilon=0.8, fit_intercept=False)]


@pytest.mark.parametrize("reduction", [OneVsAllPerceptron, OneVsOnePerceptron])
@pytest.mark.parametrize("base", MARGIN_BASES, ids=_ids)
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_reduction_of_margin_perceptrons_lean_calls_equal_the_full_way(
        reduction, base, n_classes, dtype):
    """One-row (and few-row) calls of a reduction of margin perceptrons,
    fixed margin or margin searches, between CSR, weighted and bad calls:
    every binary estimator's attributes, weights and search state equal
    those of the same calls made the full way, bit for bit; the calls are
    taken by the lean stream, and a bad row changes nothing."""
    rng = np.random.RandomState(n_classes)
    n_samples = 90
    X = rng.normal(size=(n_samples, 5)).astype(dtype)
    # Rows of growing norm: the radius, and so every γ, grows mid-stream.
    X *= np.linspace(0.2, 3.0, n_samples)[:, None].astype(dtype)
    y = rng.randint(n_classes, size=n_samples)
    classes = np.arange(n_classes)
    lean = reduction(clone(base)).partial_fit(X[:12], y[:12], classes=classes)
    full = reduction(clone(base)).partial_fit(X[:12], y[:12], classes=classes)
    full_calls = []
    checked = lean._checked_partial_fit

    def counted(*args, **kwargs):
        full_calls.append(1)
        return checked(*args, **kwargs)

    lean._checked_partial_fit = counted
    start, call = 12, 0
    while start < n_samples:
        size = 1 + call % 4 if call % 3 == 2 else 1
        rows, labels = X[start:start + size], y[start:start + size]
        kwargs = {}
        if call % 11 == 5:
            kwargs = {"sample_weight": rng.uniform(0.5, 2.0, rows.shape[0])}
        elif call % 11 == 8:
            rows = sp.csr_matrix(rows)
        elif call == 14:
            before = copy.deepcopy([_binary_attributes(e)
                                    for e in lean.estimators_])
            with pytest.raises(ValueError, match="NaN"):
                lean.partial_fit(np.full_like(rows, np.nan), labels)
            _assert_same([_binary_attributes(e) for e in lean.estimators_],
                         before)
        lean.partial_fit(rows, labels.tolist() if call % 2 else labels, **kwargs)
        full._checked_partial_fit(rows, labels, **kwargs)
        _assert_same_binaries(lean, full)
        start += rows.shape[0]
        call += 1
    # Only the weighted, CSR and bad calls went the full way (and the call
    # after the first, which arms the stream).
    assert len(full_calls) == 2 + sum(1 for c in range(call) if c % 11 in (5, 8))
    np.testing.assert_array_equal(lean.decision_function(X),
                                  full.decision_function(X))
    if getattr(base, "margin", None) == "auto":
        assert max(e._search_state.halvings[0] for e in lean.estimators_) >= 1


@pytest.mark.parametrize("reduction", [OneVsAllPerceptron, OneVsOnePerceptron])
@pytest.mark.parametrize("change", ["own_set_params", "own_partial_fit",
                                    "set_params", "own_margin", "pickle"])
def test_reduction_of_margin_searches_changed_between_rows(reduction, change):
    """A binary margin search changed by hand between rows (a parameter, its
    own partial_fit, a fixed margin), the reduction's base estimator
    changed (which only a new fit uses), or the reduction pickled: the next
    rows give the model of the same calls made the full way."""
    X, y = _data(36, 50, 3, False, np.float64)
    lean = reduction(MarginPerceptron()).partial_fit(X[:9], y[:9],
                                                     classes=[0, 1, 2])
    full = reduction(MarginPerceptron()).partial_fit(X[:9], y[:9],
                                                     classes=[0, 1, 2])
    for i in range(9, 50):
        if i == 25:
            for est in (lean, full):
                if change == "own_set_params":
                    est.estimators_[1].set_params(epsilon=0.7)
                elif change == "own_partial_fit":
                    est.estimators_[1].partial_fit(X[i:i + 2], [0, 1])
                elif change == "own_margin":
                    est.estimators_[0].margin = 0.2
                elif change == "set_params":
                    est.set_params(estimator__epsilon=0.3)
            if change == "pickle":
                lean = pickle.loads(pickle.dumps(lean))
        lean.partial_fit(X[i:i + 1], y[i:i + 1])
        full._checked_partial_fit(X[i:i + 1], y[i:i + 1])
        _assert_same_binaries(lean, full)
    np.testing.assert_array_equal(lean.decision_function(X[:4]),
                                  full.decision_function(X[:4]))


# ---------------------------------------------------------------------------
# One-row prediction
# ---------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), n_features=st.integers(1, 300),
       model_dtype=st.sampled_from([np.float64, np.float32]),
       row_dtype=st.sampled_from([np.float64, np.float32]),
       scale=st.sampled_from([1e-3, 1.0, 1e3]), fit_intercept=st.booleans(),
       labels=st.sampled_from([[0, 1], ["no", "yes"], [-3, 7]]))
def test_one_row_binary_prediction_is_the_general_formula(
        seed, n_features, model_dtype, row_dtype, scale, fit_intercept, labels):
    """The one-row decision of a binary linear perceptron is
    ``X @ coef_.T + intercept_`` bit for bit (dtype included, for a row of
    either float type), and its prediction the class that decision picks, in
    a new array."""
    rng = np.random.RandomState(seed)
    X = (rng.normal(size=(12, n_features)) * scale).astype(model_dtype)
    y = np.array(labels)[np.arange(12) % 2]
    est = Perceptron(fit_intercept=fit_intercept, max_iter=3, tol=None).fit(X, y)
    for row in (X[:1].astype(row_dtype), X[5:6].astype(row_dtype)):
        expected = row @ est.coef_.T
        expected += est.intercept_
        expected = expected.ravel()
        decision = est.decision_function(row)
        assert decision.dtype == expected.dtype and decision.shape == (1,)
        np.testing.assert_array_equal(decision, expected)
        predicted = est.predict(row)
        reference = est.classes_[(expected > 0).astype(int)]
        assert predicted.dtype == reference.dtype
        np.testing.assert_array_equal(predicted, reference)
        predicted[0] = est.classes_[0]  # a new array, not a view of classes_
        np.testing.assert_array_equal(est.classes_, np.unique(y))


@pytest.mark.parametrize("reduction", [OneVsAllPerceptron, OneVsOnePerceptron])
@pytest.mark.parametrize("base", [MarginPerceptron(),
                                  Perceptron(class_weight={0: 2.0, 1: 1.0})],
                         ids=_ids)
def test_generic_reduction_of_our_perceptrons_validates_rows_as_ours(reduction,
                                                                     base):
    """A reduction of this package's perceptrons on the generic path (margin
    searches, class weights) validates X for prediction by the package's
    rules: the binary estimators' decisions, and their errors."""
    X, y = _data(37, 40, 3, False, np.float64)
    est = reduction(base).fit(X, y)
    assert est._shared_input
    for rows in (X[:1], X[:7], sp.csr_matrix(X[:3]), X[:2].tolist()):
        form = rows if sp.issparse(rows) else np.asarray(rows, dtype=np.float64)
        binary = [np.ravel(e.decision_function(form)) for e in est.estimators_]
        if reduction is OneVsAllPerceptron:
            np.testing.assert_array_equal(est.decision_function(rows),
                                          np.column_stack(binary))
        else:
            assert est.decision_function(rows).shape == (len(binary[0]), 3)
    for bad in ("nan", "inf", "features"):
        X_bad, _, _, message = BAD_ROWS[bad]
        with pytest.raises(ValueError, match=message):
            est.predict(X_bad)


@pytest.mark.parametrize("reduction", [OneVsAllPerceptron, OneVsOnePerceptron])
@pytest.mark.parametrize("start", ["fit", "weighted", "two_classes"])
def test_reduction_of_margin_searches_from_any_start(reduction, start):
    """Lean one- and few-row calls of binary margin searches continue any
    start as the full way does: a fit's searches, a weighted first batch
    (whose step ranges lack the unit step: a row's range then grows at its
    first lean sample), or a first batch of two classes of four (the other
    one-vs-one pairs unfitted until their classes come)."""
    X, y = _data(38, 70, 4, False, np.float64)
    X *= np.linspace(0.3, 2.5, 70)[:, None]
    classes = np.arange(4)
    first, weight = slice(0, 10), None
    if start == "weighted":
        weight = np.full(10, 2.0)
    elif start == "two_classes":
        y[:10] = np.arange(10) % 2
    models = []
    for _ in range(2):
        est = reduction(MarginPerceptron(epsilon=0.9))
        if start == "fit":
            est.fit(X[first], y[first])
        est.partial_fit(X[first], y[first], classes=classes, sample_weight=weight)
        models.append(est)
    lean, full = models
    for i, size in zip(range(10, 70, 3), [1, 3, 1, 2, 1, 1, 3, 1] * 3):
        lean.partial_fit(X[i:i + size], y[i:i + size])
        full._checked_partial_fit(X[i:i + size], y[i:i + size])
        _assert_same_binaries(lean, full)
    fast = lean.__dict__["_stream"].get("fast")
    assert isinstance(fast, _multiclass._ReductionStream)
    assert fast.search is not None


@pytest.mark.parametrize("reduction", [OneVsAllPerceptron, OneVsOnePerceptron])
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**16), n_classes=st.sampled_from([2, 3, 5]),
       sizes=st.lists(st.integers(1, 6), min_size=6, max_size=16),
       params=st.sampled_from([{}, {"epsilon": 0.95}, {"average": True},
                               {"fit_intercept": False, "epsilon": 0.8}]),
       weighted_call=st.integers(0, 20))
def test_reduction_margin_search_streams_equal_the_full_way(
        reduction, seed, n_classes, sizes, params, weighted_call):
    """Any chunking of a stream into lean calls of binary margin searches,
    one weighted call among them: the binary estimators of the full way,
    bit for bit (weights, search states, every attribute)."""
    rng = np.random.RandomState(seed)
    n_samples = sum(sizes) + 6
    X = rng.normal(size=(n_samples, 4)) * rng.uniform(0.2, 3.0, (n_samples, 1))
    y = rng.randint(n_classes, size=n_samples)
    classes = np.arange(n_classes)
    lean = reduction(MarginPerceptron(**params)).partial_fit(X[:6], y[:6],
                                                             classes=classes)
    full = reduction(MarginPerceptron(**params)).partial_fit(X[:6], y[:6],
                                                             classes=classes)
    start = 6
    for call, size in enumerate(sizes):
        rows, labels = X[start:start + size], y[start:start + size]
        kwargs = ({"sample_weight": rng.uniform(0.5, 2.0, size)}
                  if call == weighted_call else {})
        lean.partial_fit(rows, labels, **kwargs)
        full._checked_partial_fit(rows, labels, **kwargs)
        start += size
    _assert_same_binaries(lean, full)
