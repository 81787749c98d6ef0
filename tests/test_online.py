# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The online family (PassiveAggressiveClassifier, ALMAClassifier,
ROMMAClassifier, AROWClassifier) against the NumPy references of their
papers (tests/_reference_online.py): dense and CSR, float32, averaging,
weights, shuffled orders, one-vs-all rows, one-row streams."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_perceptrons import (
    ALMAClassifier,
    AROWClassifier,
    PassiveAggressiveClassifier,
    ROMMAClassifier,
)
from sklearn_perceptrons._core._shuffle import shuffle_indices
from sklearn_perceptrons.bounds import alma_mistake_bound, romma_mistake_bound

from _reference_online import (
    alma,
    arow,
    passive_aggressive,
    passive_aggressive_multiclass,
    romma,
)

# Most fits here run a fixed number of epochs on purpose.
pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning")

def _data(seed, n=40, d=4, *, zero_rows=True):
    """Gaussian samples of mixed scales, noisy binary labels, and (for the
    passive-aggressive rule's special case) a few all-zero rows."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.2, 3.0, size=d)
    y = (X @ rng.normal(size=d) + 0.5 * rng.normal(size=n) > 0).astype(int)
    if zero_rows:
        X[[3, n // 2]] = 0.0
    y[:2] = [0, 1]
    return X, y


def _orders(clf, n, n_epochs):
    """The epoch orders of a fit (see tests/test_perceptron.py)."""
    if not clf.shuffle:
        return [np.arange(n)] * n_epochs
    rng = check_random_state(clf.random_state)
    orders = []
    for _ in range(n_epochs):
        order = np.arange(n, dtype=np.int32)
        shuffle_indices(order, int(rng.randint(0, 2**63 - 1, dtype=np.int64)))
        orders.append(order.copy())
    return orders


def _reference_of(clf, X, y, orders, c=None, sparse=False):
    """The NumPy reference run of ``clf``'s parameters (binary labels)."""
    signs = np.where(y == np.unique(y)[1], 1.0, -1.0)
    params = clf.get_params()
    fit_intercept = params["fit_intercept"]
    if isinstance(clf, PassiveAggressiveClassifier):
        return passive_aggressive(X, signs, orders, C=params["C"],
                                  loss=params["loss"], fit_intercept=fit_intercept,
                                  c=c, intercept_rate=0.01 if sparse else 1.0)
    if isinstance(clf, ALMAClassifier):
        return alma(X, signs, orders, p=params["p"], alpha=params["alpha"],
                    B=params["B"], C=params["C"], fit_intercept=fit_intercept, c=c)
    if isinstance(clf, ROMMAClassifier):
        return romma(X, signs, orders, aggressive=params["aggressive"],
                     fit_intercept=fit_intercept, c=c)
    return arow(X, signs, orders, r=params["r"], diagonal=params["diagonal"],
                fit_intercept=fit_intercept, c=c)


def _check_against_reference(clf, X, y, n_epochs, *, sample_weight=None,
                             rtol=1e-9, atol=1e-12):
    sparse = sp.issparse(X)
    dense = X.toarray() if sparse else np.asarray(X)
    clf = clone(clf).set_params(max_iter=n_epochs, tol=None)
    clf.fit(X, y, sample_weight=sample_weight)
    ref = _reference_of(clf, dense.astype(np.float64), np.asarray(y),
                        _orders(clf, len(y), n_epochs), c=sample_weight,
                        sparse=sparse)
    key = "avg_" if clf.average else ""
    assert clf.coef_.dtype == dense.dtype
    assert_allclose(clf.coef_.ravel(), ref[key + "coef"], rtol=rtol, atol=atol)
    assert_allclose(clf.intercept_, [ref[key + "intercept"]], rtol=rtol, atol=atol)
    # Every epoch ran: a fit stops on an epoch without updates.
    stopped = next((e for e, u in enumerate(ref["updates"]) if u == 0), None)
    expected = ref["updates"] if stopped is None else ref["updates"][:stopped + 1]
    assert clf.mistakes_per_epoch_ == expected
    return clf, ref


CONFIGS = [
    PassiveAggressiveClassifier(C=0.3, shuffle=False),
    PassiveAggressiveClassifier(C=5.0, loss="squared_hinge", shuffle=False),
    PassiveAggressiveClassifier(C=0.8, fit_intercept=False, average=True,
                                random_state=3),
    PassiveAggressiveClassifier(loss="squared_hinge", average=True,
                                random_state=1),
    ALMAClassifier(shuffle=False),
    ALMAClassifier(alpha=0.3, B=2.0, C=0.7, average=True, random_state=5),
    ALMAClassifier(alpha=1.0, fit_intercept=False, random_state=2),
    ALMAClassifier(p=3.0, alpha=0.5, shuffle=False),
    ALMAClassifier(p=4.5, average=True, random_state=8),
    ROMMAClassifier(shuffle=False),
    ROMMAClassifier(aggressive=True, average=True, random_state=4),
    ROMMAClassifier(aggressive=True, fit_intercept=False, shuffle=False),
    AROWClassifier(shuffle=False),
    AROWClassifier(r=0.1, average=True, random_state=6),
    AROWClassifier(diagonal=True, shuffle=False),
    AROWClassifier(r=3.0, diagonal=True, fit_intercept=False, average=True,
                   random_state=7),
]


@pytest.mark.parametrize("clf", CONFIGS, ids=repr)
@pytest.mark.parametrize("container", ["dense", "csr"])
@pytest.mark.parametrize("weighted", [False, True])
def test_fit_matches_the_papers_rule(clf, container, weighted):
    X, y = _data(0)
    if isinstance(clf, AROWClassifier) and not clf.diagonal:
        X = X[:, :3]
    weights = None
    if weighted:
        weights = np.random.RandomState(1).uniform(0.0, 2.0, size=len(y))
        weights[5] = 0.0
    data = sp.csr_matrix(X) if container == "csr" else X
    _check_against_reference(clf, data, y, 4, sample_weight=weights)


@pytest.mark.parametrize("clf", CONFIGS, ids=repr)
def test_float32_is_kept_and_agrees(clf):
    X, y = _data(2)
    fitted32 = clone(clf).set_params(max_iter=3, tol=None).fit(
        X.astype(np.float32), y)
    fitted64 = clone(clf).set_params(max_iter=3, tol=None).fit(X, y)
    assert fitted32.coef_.dtype == np.float32
    assert fitted32.intercept_.dtype == np.float32
    assert_allclose(fitted32.coef_, fitted64.coef_, rtol=2e-3, atol=2e-4)
    # CSR float32 too, without a copy to float64.
    csr = clone(clf).set_params(max_iter=3, tol=None).fit(
        sp.csr_matrix(X.astype(np.float32)), y)
    assert csr.coef_.dtype == np.float32


@pytest.mark.parametrize("clf", CONFIGS, ids=repr)
def test_dense_and_csr_agree(clf):
    # Bit for bit, except the passive-aggressive intercept on sparse data.
    X, y = _data(3)
    dense = clone(clf).set_params(max_iter=3, tol=None).fit(X, y)
    csr = clone(clf).set_params(max_iter=3, tol=None).fit(sp.csr_matrix(X), y)
    if isinstance(clf, PassiveAggressiveClassifier) and clf.fit_intercept:
        assert not np.array_equal(dense.intercept_, csr.intercept_)
        return
    assert_array_equal(dense.coef_, csr.coef_)
    assert_array_equal(dense.intercept_, csr.intercept_)


def _multiclass_data(seed, n=60, d=4, k=3):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d))
    y = np.argmax(X @ rng.normal(size=(d, k)) + rng.normal(size=(n, k)), axis=1)
    y[:k] = np.arange(k)
    return X, y


@pytest.mark.parametrize("clf", CONFIGS, ids=repr)
def test_one_vs_all_rows_are_binary_runs(clf):
    # Row k of a multiclass fit is the binary fit of "k vs the rest", every
    # sample weighted by its own class's weight, bit for bit.
    X, y = _multiclass_data(0)
    class_weight = {0: 0.5, 1: 2.0, 2: 1.0}
    sample_weight = np.random.RandomState(2).uniform(0.5, 1.5, size=len(y))
    multi = clone(clf).set_params(max_iter=3, tol=None,
                                  class_weight=class_weight).fit(
        X, y, sample_weight=sample_weight)
    weights = sample_weight * np.array([class_weight[c] for c in y])
    for k in range(3):
        binary = clone(clf).set_params(max_iter=3, tol=None).fit(
            X, (y == k).astype(int), sample_weight=weights)
        assert_array_equal(multi.coef_[k], binary.coef_[0])
        assert_array_equal(multi.intercept_[k], binary.intercept_[0])


@pytest.mark.parametrize("clf", CONFIGS, ids=repr)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_partial_fit_one_row_at_a_time_is_one_batch(clf, n_classes):
    X, y = _multiclass_data(1, k=n_classes) if n_classes > 2 else _data(1)
    classes = np.unique(y)
    # Bit for bit, except for the rules that keep the weights as a scale
    # and a direction (ALMA, ROMMA): every call folds the two together.
    same = (assert_allclose if isinstance(clf, (ALMAClassifier, ROMMAClassifier))
            else assert_array_equal)
    batch = clone(clf).partial_fit(X, y, classes=classes)
    stream = clone(clf)
    for i in range(len(y)):
        stream.partial_fit(X[i:i + 1], y[i:i + 1], classes=classes)
    same(stream.coef_, batch.coef_)
    same(stream.intercept_, batch.intercept_)
    assert stream.n_mistakes_ == batch.n_mistakes_
    # Sparse rows one at a time, too.
    sparse_stream = clone(clf)
    csr = sp.csr_matrix(X)
    for i in range(len(y)):
        sparse_stream.partial_fit(csr[i], y[i:i + 1], classes=classes)
    sparse_batch = clone(clf).partial_fit(csr, y, classes=classes)
    same(sparse_stream.coef_, sparse_batch.coef_)
    same(sparse_stream.intercept_, sparse_batch.intercept_)


@pytest.mark.parametrize("clf", CONFIGS, ids=repr)
def test_partial_fit_passes_continue_the_fit(clf):
    # Two passes of partial_fit in row order are a fit of two epochs: the
    # state (ALMA's schedule, AROW's covariance) carries over.
    X, y = _data(4)
    fitted = clone(clf).set_params(max_iter=2, tol=None, shuffle=False).fit(X, y)
    if fitted.n_iter_ < 2:
        pytest.skip("the fit converged in its first epoch")
    stream = clone(clf).set_params(shuffle=False)
    stream.partial_fit(X, y, classes=[0, 1]).partial_fit(X, y)
    assert_allclose(stream.coef_, fitted.coef_, rtol=1e-12, atol=1e-14)
    assert_allclose(stream.intercept_, fitted.intercept_, rtol=1e-12, atol=1e-14)


def test_passive_aggressive_crammer_singer_matches_the_paper():
    X, y = _multiclass_data(2, k=4)
    X[7] = 0.0
    weights = np.random.RandomState(0).uniform(0.1, 2.0, size=len(y))
    for loss in ("hinge", "squared_hinge"):
        for container in (np.asarray, sp.csr_matrix):
            for average in (False, True):
                clf = PassiveAggressiveClassifier(
                    C=0.6, loss=loss, multi_class="crammer_singer",
                    shuffle=False, tol=None, max_iter=3, average=average,
                ).fit(container(X), y, sample_weight=weights)
                ref = passive_aggressive_multiclass(
                    X, y, 4, [np.arange(len(y))] * 3, C=0.6, loss=loss, c=weights,
                    intercept_rate=0.01 if container is sp.csr_matrix else 1.0)
                key = "avg_" if average else ""
                assert_allclose(clf.coef_, ref[key + "coef"], rtol=1e-9, atol=1e-12)
                assert_allclose(clf.intercept_, ref[key + "intercept"], rtol=1e-9,
                                atol=1e-12)
                assert clf.mistakes_per_epoch_ == ref["updates"]


def test_passive_aggressive_stops_on_the_hinge_loss():
    # scikit-learn's stopping rule: the sum of the epoch's hinge losses
    # no longer falls by tol * n_samples for n_iter_no_change epochs.
    X, y = _data(5, n=80, zero_rows=False)
    clf = PassiveAggressiveClassifier(C=0.5, shuffle=False, tol=1e-3,
                                      n_iter_no_change=3).fit(X, y)
    ref = passive_aggressive(X, np.where(y == 1, 1.0, -1.0),
                             [np.arange(80)] * 200, C=0.5)
    losses, best, stalled = ref["losses"], np.inf, 0
    for epoch, loss in enumerate(losses, start=1):
        stalled = stalled + 1 if loss > best - 1e-3 * 80 else 0
        best = min(best, loss)
        if stalled >= 3:
            break
    assert clf.n_iter_ == epoch
    assert clf.t_ == epoch * 80 + 1


def test_alma_keeps_its_weights_in_the_unit_ball_and_its_schedule():
    X, y = _data(6)
    for average in (False, True):
        clf = ALMAClassifier(alpha=0.5, C=5.0, average=average).fit(X, y)
        w = np.append(clf._state.coef, clf._state.intercept)
        assert np.linalg.norm(w) <= 1.0 + 1e-12
        assert clf._state.counts[0] == clf.n_mistakes_
    # warm_start continues the schedule (of the last iterate: an average
    # starts anew).
    warm = ALMAClassifier(warm_start=True, tol=None, max_iter=2, shuffle=False,
                          average=False)
    warm.fit(X, y).fit(X, y)
    cold = ALMAClassifier(tol=None, max_iter=4, shuffle=False,
                          average=False).fit(X, y)
    assert_allclose(warm.coef_, cold.coef_, rtol=1e-12)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), aggressive=st.booleans(),
       fit_intercept=st.booleans())
def test_romma_fit_respects_the_mistake_bound(seed, aggressive, fit_intercept):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(30, 3))
    u = rng.normal(size=3)
    X += 0.3 * np.sign(X @ u)[:, None] * u / np.linalg.norm(u)
    y = (X @ u > 0).astype(int)
    if np.unique(y).shape[0] < 2:
        return
    clf = ROMMAClassifier(aggressive=aggressive, fit_intercept=fit_intercept,
                          random_state=seed).fit(X, y)
    if not aggressive:
        assert clf.n_mistakes_ <= romma_mistake_bound(X, y, fit_intercept=fit_intercept)
    assert clf.converged_ or aggressive


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), alpha=st.floats(0.2, 1.0),
       fit_intercept=st.booleans(), p=st.sampled_from([2.0, 2.0, 3.0]))
def test_alma_fit_respects_the_correction_bound(seed, alpha, fit_intercept, p):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(25, 3))
    u = rng.normal(size=3)
    X += 0.3 * np.sign(X @ u)[:, None] * u / np.linalg.norm(u)
    y = (X @ u > 0).astype(int)
    if np.unique(y).shape[0] < 2:
        return
    clf = ALMAClassifier(p=p, alpha=alpha, fit_intercept=fit_intercept,
                         tol=None, max_iter=30, random_state=seed).fit(X, y)
    assert clf.n_mistakes_ <= alma_mistake_bound(
        X, y, p=p, alpha=alpha, fit_intercept=fit_intercept,
        coef=None if p == 2.0 else u)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_passive_aggressive_threads_give_identical_rows(loss):
    X, y = _multiclass_data(3, k=4)
    params = dict(loss=loss, max_iter=3, tol=None, random_state=0)
    one = PassiveAggressiveClassifier(n_jobs=1, **params).fit(X, y)
    two = PassiveAggressiveClassifier(n_jobs=2, **params).fit(X, y)
    assert_array_equal(one.coef_, two.coef_)
    assert_array_equal(one.intercept_, two.intercept_)


@pytest.mark.parametrize("params, message", [
    ({"C": 0.0}, "C"), ({"loss": "log"}, "loss"),
    ({"multi_class": "ovo"}, "multi_class"),
])
def test_passive_aggressive_parameters_are_validated(params, message):
    X, y = _data(0)
    with pytest.raises(InvalidParameterError, match=message):
        PassiveAggressiveClassifier(**params).fit(X, y)


@pytest.mark.parametrize("Estimator, params", [
    (ALMAClassifier, {"alpha": 0.0}), (ALMAClassifier, {"alpha": 1.5}),
    (ALMAClassifier, {"B": -1.0}), (ALMAClassifier, {"C": 0.0}),
    (ALMAClassifier, {"p": 1.5}), (ROMMAClassifier, {"aggressive": "yes"}),
    (AROWClassifier, {"r": 0.0}), (AROWClassifier, {"a": 1.0}),
])
def test_family_parameters_are_validated(Estimator, params):
    X, y = _data(0)
    error = TypeError if "a" in params else InvalidParameterError
    with pytest.raises(error):
        Estimator(**params).fit(X, y)


def test_arow_is_the_second_order_update_on_margin_errors():
    # AROW(r) and the second-order perceptron (a = r) share their update;
    # on samples that all come as mistakes they make the same moves.
    from sklearn_perceptrons import SecondOrderPerceptron

    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([1, 0, 0])
    arow_fit = AROWClassifier(r=2.0, shuffle=False).partial_fit(X[:1], y[:1], [0, 1])
    sop_fit = SecondOrderPerceptron(a=2.0, shuffle=False).partial_fit(
        X[:1], y[:1], [0, 1])
    assert_allclose(arow_fit.coef_, sop_fit.coef_, rtol=1e-15)
