# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""CSR rows at text scale (issue #35): the scores of CSR rows read only the
weights of the rows' columns, in SciPy's arithmetic (the same bits as
``X @ coef_.T + intercept_``), and one-row calls of every linear estimator
cost O(nnz) per weight row, whatever the width of the model."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from sklearn_perceptrons import (
    MarginPerceptron,
    OneVsAllPerceptron,
    OneVsOnePerceptron,
    Perceptron,
    SecondOrderPerceptron,
)
from sklearn_perceptrons._linear.rows import LinearState, sparse_decision

FLOATS = [np.float32, np.float64]


def _csr(rng, n_samples, n_features, density, dtype):
    X = sp.random(n_samples, n_features, density=density, format="csr",
                  random_state=rng, dtype=np.float64)
    X.data = (X.data * 4 - 2).astype(dtype)
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**16), n_samples=st.integers(1, 6),
       n_features=st.integers(1, 40), n_rows=st.integers(1, 4),
       density=st.floats(0.0, 1.0), x_dtype=st.sampled_from(FLOATS),
       w_dtype=st.sampled_from(FLOATS))
def test_sparse_decision_is_scipys_product(seed, n_samples, n_features, n_rows,
                                           density, x_dtype, w_dtype):
    """The compiled scores of CSR rows equal SciPy's product plus NumPy's
    sum of the intercepts, bit for bit, for every pair of dtypes (float32
    sums where both are float32, float64 otherwise)."""
    rng = np.random.RandomState(seed)
    X = _csr(rng, n_samples, n_features, density, x_dtype)
    coef = rng.normal(size=(n_rows, n_features)).astype(w_dtype)
    intercept = rng.normal(size=n_rows).astype(w_dtype)
    expected = X @ coef.T
    expected += intercept
    scores = sparse_decision(X, coef, intercept)
    assert scores.dtype == expected.dtype
    np.testing.assert_array_equal(scores, expected)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), n_features=st.integers(1, 30),
       n_rows=st.integers(1, 3), x_dtype=st.sampled_from(FLOATS),
       model_dtype=st.sampled_from(FLOATS), float64_state=st.booleans(),
       visits=st.sampled_from([0.0, 1.0, 7.0, 123.0]))
def test_sparse_decision_of_an_average_is_that_of_the_model(
        seed, n_features, n_rows, x_dtype, model_dtype, float64_state, visits):
    """Scores read from a state's averaging sums (only at the rows'
    columns) equal the scores of its ``model()``, bit for bit: the average
    of a Perceptron's state (of its dtype) or of a second-order state
    (float64, its model rounded to the dtype of the data)."""
    rng = np.random.RandomState(seed)
    X = _csr(rng, 3, n_features, 0.4, x_dtype)
    state_dtype = np.float64 if float64_state else model_dtype
    state = LinearState.zeros(n_rows, n_features, state_dtype, average=True)
    state.coef[...] = rng.normal(size=state.coef.shape)
    state.intercept[...] = rng.normal(size=n_rows)
    state.coef_sum[...] = rng.normal(size=state.coef_sum.shape) * 50
    state.intercept_sum[...] = rng.normal(size=n_rows) * 50
    state.visits[...] = visits + np.arange(n_rows)
    coef, intercept = state.model()
    coef, intercept = coef.astype(model_dtype), intercept.astype(model_dtype)
    expected = X @ coef.T
    expected += intercept
    scores = sparse_decision(X, state.coef, state.intercept, sums=state,
                             dtype=model_dtype)
    assert scores.dtype == expected.dtype
    np.testing.assert_array_equal(scores, expected)


LINEAR = [
    Perceptron(),
    Perceptron(average=True),
    MarginPerceptron(margin=0.1),
    MarginPerceptron(),
    MarginPerceptron(average=True),
    SecondOrderPerceptron(diagonal=True),
    SecondOrderPerceptron(diagonal=True, average=True),
    OneVsAllPerceptron(Perceptron(average=True)),
    OneVsOnePerceptron(),
    OneVsAllPerceptron(MarginPerceptron()),
]


def _text_like(n_features, dtype, n_samples=60, nnz=12, n_classes=3, seed=0):
    """Rows of ``nnz`` counts at random columns of a wide space, as hashed
    text gives them."""
    rng = np.random.RandomState(seed)
    indptr = np.arange(0, (n_samples + 1) * nnz, nnz, dtype=np.int32)
    indices = np.concatenate([np.sort(rng.choice(n_features, nnz, replace=False))
                              for _ in range(n_samples)]).astype(np.int32)
    data = rng.randint(1, 4, size=n_samples * nnz).astype(dtype)
    X = sp.csr_matrix((data, indices, indptr), shape=(n_samples, n_features))
    return X, rng.randint(n_classes, size=n_samples)


def _peak_bytes(func):
    tracemalloc.start()
    try:
        func()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("estimator", LINEAR, ids=repr)
@pytest.mark.parametrize("dtype", FLOATS)
def test_one_row_csr_calls_are_bit_for_bit_and_never_touch_the_width(estimator,
                                                                      dtype):
    """Streaming CSR rows one at a time through a model of 2**20 features
    (test-then-train): each one-row ``predict``, ``decision_function`` and
    ``partial_fit`` allocates O(nnz) memory, never a copy of the weights
    (8 MB per row of weights here), and the one-row decisions equal those
    of the same rows scored in one batch, bit for bit."""
    n_features = 2**20
    X, y = _text_like(n_features, dtype)
    est = clone(estimator).partial_fit(X[:10], y[:10], classes=[0, 1, 2])
    est.partial_fit(X[10:11], y[10:11])  # arms the lean stream
    rows = [(X[i:i + 1], y[i:i + 1]) for i in range(11, 40)]
    for row, _ in rows:
        row.has_canonical_format  # computed once, as a stream's rows have it
    budget = 64 * 1024

    def stream():
        for row, label in rows:
            est.predict(row)
            est.decision_function(row)
            est.partial_fit(row, label)

    assert _peak_bytes(stream) < budget
    batch = est.decision_function(X[40:])
    one_by_one = [est.decision_function(X[i:i + 1]) for i in range(40, 60)]
    np.testing.assert_array_equal(np.concatenate(one_by_one), batch)
    np.testing.assert_array_equal(
        np.concatenate([est.predict(X[i:i + 1]) for i in range(40, 60)]),
        est.predict(X[40:]))
    if not hasattr(est, "estimators_"):
        # The model the scores come from is the published one.
        dense = X[40:].toarray() @ est.coef_.T + est.intercept_
        np.testing.assert_allclose(batch, dense.reshape(batch.shape),
                                   rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dtype", FLOATS)
def test_averaged_coef_is_computed_when_read_after_lean_calls(dtype):
    """After one-row calls, ``coef_`` of an averaged perceptron is the
    average of every visit (as one batch call gives it), computed when
    read, and a pickle holds it."""
    import pickle

    X, y = _text_like(50, dtype, n_samples=40)
    stream = Perceptron(average=True).partial_fit(X[:1], y[:1], classes=[0, 1, 2])
    for i in range(1, 40):
        stream.partial_fit(X[i:i + 1], y[i:i + 1])
    batch = Perceptron(average=True).partial_fit(X, y, classes=[0, 1, 2])
    restored = pickle.loads(pickle.dumps(stream))
    for est in (stream, restored):
        np.testing.assert_array_equal(est.coef_, batch.coef_)
        np.testing.assert_array_equal(est.intercept_, batch.intercept_)
        assert "coef_" not in vars(est) or est is restored


@pytest.mark.parametrize("estimator", [Perceptron(eta0=4.0), Perceptron(
    eta0=4.0, penalty="l2", alpha=1e-3), Perceptron(
    eta0=4.0, multi_class="crammer_singer"), MarginPerceptron(margin=0.1)],
    ids=repr)
@pytest.mark.parametrize("dtype", FLOATS)
def test_csr_pass_refuses_weights_that_overflow(estimator, dtype):
    """A CSR pass tracks the weights its updates write (it does not read
    every weight after the epoch): an update that overflows a weight is
    refused with the error of the dense pass, and a failed partial_fit
    leaves the estimator as it was."""
    big = np.finfo(dtype).max / 2
    dense = np.array([[big, 0.0, 1.0], [0.0, big, 1.0], [big, big, 0.0]],
                     dtype=dtype)
    y = np.array([0, 1, 2])
    for X in (dense, sp.csr_matrix(dense)):
        with pytest.raises(ValueError, match="non-finite|overflow"):
            clone(estimator).set_params(max_iter=3, tol=None,
                                        shuffle=False).fit(X, y)
    est = clone(estimator).partial_fit(np.ones((3, 3), dtype=dtype), y,
                                       classes=[0, 1, 2])
    before = [est.coef_.copy(), est.intercept_.copy()]
    with pytest.raises(ValueError, match="non-finite|overflow"):
        est.partial_fit(sp.csr_matrix(dense), y)
    np.testing.assert_array_equal(est.coef_, before[0])
    np.testing.assert_array_equal(est.intercept_, before[1])


def _scipy_canonical(X):
    """SciPy's canonical form of X, in a copy (what validation did before
    ``sorted_csr``)."""
    X = X.copy()
    X.sum_duplicates()
    return X


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**16), order=st.sampled_from(
           ["increasing", "decreasing", "any"]),
       longest=st.sampled_from([8, 64, 100]), repeats=st.booleans(),
       dtype=st.sampled_from(FLOATS), array=st.booleans())
def test_sorted_csr_is_scipys_canonical_form(seed, order, longest, repeats,
                                             dtype, array):
    """``sorted_csr`` returns SciPy's ``copy`` + ``sum_duplicates`` bit for
    bit (same type, dtypes and arrays) for rows of distinct columns in any
    order, None where a row repeats a column or is long and in no order,
    and never touches the caller's matrix."""
    from sklearn_perceptrons._core._canonical import sorted_csr

    rng = np.random.default_rng(seed)
    n_features = 120
    rows = []
    for length in rng.integers(0, longest + 1, size=rng.integers(1, 12)):
        columns = rng.choice(n_features, size=min(length, n_features),
                             replace=repeats)
        if order == "increasing":
            columns = np.sort(columns)
        elif order == "decreasing":
            columns = np.sort(columns)[::-1]
        rows.append(columns)
    indptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])])
    X = (sp.csr_array if array else sp.csr_matrix)(
        (rng.standard_normal(indptr[-1]).astype(dtype),
         np.concatenate(rows).astype(np.int32), indptr.astype(np.int32)),
        shape=(len(rows), n_features))
    stored = [X.data.copy(), X.indices.copy(), X.indptr.copy()]
    has_repeats = any(len(np.unique(r)) < len(r) for r in rows)
    in_no_order = any(len(r) > 64 and (np.diff(r) > 0).any()
                      and (np.diff(r) < 0).any() for r in rows)
    ordered = sorted_csr(X)
    if has_repeats or in_no_order:
        assert ordered is None
    else:
        expected = _scipy_canonical(X)
        assert type(ordered) is type(X)
        assert ordered.has_canonical_format
        for name in ("data", "indices", "indptr"):
            got, want = getattr(ordered, name), getattr(expected, name)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
    for before, after in zip(stored, (X.data, X.indices, X.indptr)):
        np.testing.assert_array_equal(before, after)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_fit_on_rows_out_of_order_is_the_fit_on_canonical_rows():
    """Validation puts the rows of a CSR X in canonical form (sorted
    columns): a fit on rows stored in decreasing order (as a sparse
    product leaves them) or in no order is the fit on the sorted rows, bit
    for bit."""
    from sklearn_perceptrons import PassiveAggressiveClassifier

    rng = np.random.default_rng(3)
    X = _csr(rng, 60, 50, 0.2, np.float64)
    y = rng.integers(0, 2, size=60)
    reversed_rows = X.copy()
    shuffled_rows = X.copy()
    for i in range(X.shape[0]):
        a, b = X.indptr[i], X.indptr[i + 1]
        for target, permutation in ((reversed_rows, np.arange(b - a)[::-1]),
                                    (shuffled_rows, rng.permutation(b - a))):
            target.indices[a:b] = X.indices[a:b][permutation]
            target.data[a:b] = X.data[a:b][permutation]
    for estimator in (Perceptron(max_iter=5, tol=None, random_state=0),
                      PassiveAggressiveClassifier(max_iter=5, tol=None,
                                                  random_state=0)):
        reference = clone(estimator).fit(X, y)
        for stored in (reversed_rows, shuffled_rows):
            stored = sp.csr_matrix((stored.data, stored.indices, stored.indptr),
                                   shape=X.shape)
            assert not stored.has_sorted_indices
            fitted = clone(estimator).fit(stored, y)
            np.testing.assert_array_equal(fitted.coef_, reference.coef_)
            np.testing.assert_array_equal(fitted.intercept_,
                                          reference.intercept_)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("dtype", FLOATS)
def test_wide_csr_fits_are_those_of_the_narrow_model(dtype):
    """A model of 2**18 columns (whose CSR passes prefetch the weights of
    rows ahead) fits as the model of only the columns used, bit for bit:
    the prefetches change no result."""
    from sklearn_perceptrons import PassiveAggressiveClassifier

    rng = np.random.default_rng(4)
    narrow = _csr(rng, 80, 30, 0.3, dtype)
    columns = np.sort(rng.choice(2**18, size=30, replace=False))
    wide = sp.csr_matrix(
        (narrow.data, columns[narrow.indices].astype(np.int32), narrow.indptr),
        shape=(80, 2**18))
    y = rng.integers(0, 2, size=80)
    for estimator in (Perceptron(max_iter=4, tol=None, random_state=0),
                      Perceptron(max_iter=4, tol=None, shuffle=False,
                                 average=True),
                      PassiveAggressiveClassifier(max_iter=4, tol=None,
                                                  random_state=0)):
        small = clone(estimator).fit(narrow, y)
        large = clone(estimator).fit(wide, y)
        np.testing.assert_array_equal(large.coef_[:, columns], small.coef_)
        assert not np.delete(large.coef_, columns, axis=1).any()
        np.testing.assert_array_equal(large.intercept_, small.intercept_)
