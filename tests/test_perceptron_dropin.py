# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Perceptron as a drop-in for scikit-learn's: penalty, alpha, l1_ratio and
n_jobs, as scikit-learn's."""

import os
import threading
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_perceptrons import Perceptron
from sklearn_perceptrons._core.training import epoch_order

PENALTIES = ["l2", "l1", "elasticnet"]


@pytest.fixture(autouse=True)
def _no_convergence_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


def gaussian(n=200, d=6, n_classes=2, seed=0):
    """Continuous data: no margin is ever exactly 0, so rounding never
    decides an update and different summation orders agree."""
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n, d))
    y = np.argmax(X @ rng.standard_normal((d, n_classes))
                  + 0.7 * rng.standard_normal((n, n_classes)), axis=1)
    return X, y


def penalized_reference(X, signs, orders, *, eta, alpha, l1_ratio, penalty,
                        fit_intercept=True, step=None):
    """scikit-learn's SGD perceptron with a penalty, one visit at a time, in
    plain float64 (no scale trick): decay, update, cumulative l1 penalty.

    Returns the final (w, b) and the average of (w, b) over the visits.
    """
    ratio = {"l2": 0.0, "l1": 1.0}.get(penalty, l1_ratio)
    decay = max(0.0, 1.0 - (1.0 - ratio) * eta * alpha)
    l1_step = ratio * eta * alpha
    dense = not sp.issparse(X)
    X = sp.csr_matrix(X)
    n, d = X.shape
    step = np.full(n, eta) if step is None else step
    w, b, u, q = np.zeros(d), 0.0, 0.0, np.zeros(d)
    w_sum, b_sum, visits = np.zeros(d), 0.0, 0
    for order in orders:
        for i in order:
            row = X.getrow(i)
            x = row.toarray().ravel()
            m = signs[i] * (w @ x + (b if fit_intercept else 0.0))
            w = w * decay
            if m <= 0 and step[i] != 0:
                w = w + step[i] * signs[i] * x
                if fit_intercept:
                    b += step[i] * signs[i]
            if l1_step:
                u += l1_step
                features = range(d) if dense else row.indices
                for j in features:
                    z = w[j]
                    if z > 0:
                        w[j] = max(0.0, z - (u + q[j]))
                    elif z < 0:
                        w[j] = min(0.0, z + (u - q[j]))
                    q[j] += w[j] - z
            w_sum += w
            b_sum += b
            visits += 1
    return (w, b), (w_sum / visits, b_sum / visits)


# ---------------------------------------------------------------------------
# penalty=None and alpha=0: the plain perceptron, bit for bit
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("penalty", PENALTIES)
@pytest.mark.parametrize("kind", ["dense", "csr", "float32"])
@pytest.mark.parametrize("params", [
    dict(), dict(average=True), dict(shuffle=False, threshold=0.5),
    dict(early_stopping=True, class_weight="balanced"),
])
def test_zero_alpha_is_the_plain_perceptron_bit_for_bit(penalty, kind, params):
    X, y = gaussian(n=150, n_classes=3)
    if kind == "csr":
        X = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0))
    elif kind == "float32":
        X = X.astype(np.float32)
    plain = Perceptron(max_iter=20, **params).fit(X, y)
    penalized = Perceptron(max_iter=20, penalty=penalty, alpha=0.0,
                           **params).fit(X, y)
    assert_array_equal(penalized.coef_, plain.coef_)
    assert_array_equal(penalized.intercept_, plain.intercept_)
    assert penalized.mistakes_per_epoch_ == plain.mistakes_per_epoch_
    assert penalized.coef_.dtype == X.dtype


def test_penalty_changes_the_model():
    X, y = gaussian()
    plain = Perceptron(shuffle=False, tol=None, max_iter=5).fit(X, y)
    for penalty in PENALTIES:
        model = Perceptron(penalty=penalty, alpha=0.01, shuffle=False, tol=None,
                           max_iter=5).fit(X, y)
        assert not np.allclose(model.coef_, plain.coef_)


# ---------------------------------------------------------------------------
# The rule against a NumPy reference and against scikit-learn
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("penalty", PENALTIES)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("alpha", [1e-3, 0.05])
@pytest.mark.parametrize("average", [False, True])
def test_binary_matches_reference(penalty, sparse, alpha, average):
    X, y = gaussian(n=120, d=5)
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) > 0.4, X, 0.0))
    signs = np.where(y == 1, 1.0, -1.0)
    orders = [np.arange(X.shape[0])] * 4
    (w, b), (w_avg, b_avg) = penalized_reference(
        X, signs, orders, eta=0.5, alpha=alpha, l1_ratio=0.3, penalty=penalty)
    est = Perceptron(penalty=penalty, alpha=alpha, l1_ratio=0.3, eta0=0.5,
                     shuffle=False, tol=None, max_iter=4, average=average)
    est.fit(X, y)
    want_w, want_b = (w_avg, b_avg) if average else (w, b)
    assert_allclose(est.coef_.ravel(), want_w, rtol=1e-9, atol=1e-12)
    assert_allclose(est.intercept_[0], want_b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("penalty", PENALTIES)
def test_multiclass_rows_match_reference_and_shuffled_orders(penalty):
    X, y = gaussian(n=90, d=4, n_classes=3)
    est = Perceptron(penalty=penalty, alpha=0.01, shuffle=True, tol=None,
                     max_iter=3, random_state=5, average=True).fit(X, y)
    rng = check_random_state(5)
    orders = [epoch_order(np.arange(X.shape[0], dtype=np.int32), True, rng)
              for _ in range(3)]
    for k in range(3):
        signs = np.where(y == k, 1.0, -1.0)
        _, (w_avg, b_avg) = penalized_reference(
            X, signs, orders, eta=1.0, alpha=0.01, l1_ratio=0.15, penalty=penalty)
        assert_allclose(est.coef_[k], w_avg, rtol=1e-9, atol=1e-12)
        assert_allclose(est.intercept_[k], b_avg, rtol=1e-9, atol=1e-12)


def test_weights_scale_the_update_not_the_decay():
    X, y = gaussian(n=80, d=4)
    sample_weight = np.random.RandomState(3).uniform(0, 2, X.shape[0])
    est = Perceptron(penalty="elasticnet", alpha=0.02, shuffle=False, tol=None,
                     max_iter=3).fit(X, y, sample_weight=sample_weight)
    signs = np.where(y == 1, 1.0, -1.0)
    (w, b), _ = penalized_reference(
        X, signs, [np.arange(80)] * 3, eta=1.0, alpha=0.02, l1_ratio=0.15,
        penalty="elasticnet", step=sample_weight)
    assert_allclose(est.coef_.ravel(), w, rtol=1e-9, atol=1e-12)
    assert_allclose(est.intercept_[0], b, rtol=1e-9, atol=1e-12)


def test_strong_decay_to_zero_is_folded_in():
    # eta0 * alpha >= 1: the l2 factor is 0, every visit restarts from w = 0
    # (the scale is folded into the weights at once, never divided by 0).
    X, y = gaussian(n=60, d=3)
    est = Perceptron(penalty="l2", alpha=2.0, shuffle=False, tol=None,
                     max_iter=2, average=True).fit(X, y)
    signs = np.where(y == 1, 1.0, -1.0)
    _, (w_avg, b_avg) = penalized_reference(
        X, signs, [np.arange(60)] * 2, eta=1.0, alpha=2.0, l1_ratio=0.15,
        penalty="l2")
    assert_allclose(est.coef_.ravel(), w_avg, rtol=1e-9, atol=1e-12)
    assert_allclose(est.intercept_[0], b_avg, rtol=1e-9, atol=1e-12)
    assert np.isfinite(est.coef_).all()


def test_small_scale_is_folded_in_with_averaging():
    # The decay 0.97 per visit takes the scale below 1e-9 after 681 visits:
    # it is folded into the weights mid-pass, with the averaging sums.
    X, y = gaussian(n=700, d=4)
    est = Perceptron(penalty="l2", alpha=0.03, shuffle=False, tol=None,
                     max_iter=3, average=True).fit(X, y)
    signs = np.where(y == 1, 1.0, -1.0)
    _, (w_avg, b_avg) = penalized_reference(
        X, signs, [np.arange(700)] * 3, eta=1.0, alpha=0.03, l1_ratio=0.15,
        penalty="l2")
    assert_allclose(est.coef_.ravel(), w_avg, rtol=1e-8, atol=1e-12)
    assert_allclose(est.intercept_[0], b_avg, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("penalty", PENALTIES)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("alpha", [1e-4, 1e-2])
def test_matches_scikit_learn_in_order(penalty, n_classes, alpha):
    # Where the rules coincide (dense X, no shuffle, a fixed number of
    # epochs, no class_weight), scikit-learn's Perceptron gives the same
    # model up to rounding.
    X, y = gaussian(n=300, d=8, n_classes=n_classes)
    params = dict(penalty=penalty, alpha=alpha, shuffle=False, tol=None,
                  max_iter=6)
    ours = Perceptron(**params).fit(X, y)
    theirs = SklearnPerceptron(**params).fit(X, y)
    assert_allclose(ours.coef_, theirs.coef_, rtol=1e-9, atol=1e-12)
    assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-9, atol=1e-12)


def test_perceptron_l1_ratio():
    # scikit-learn's own test_perceptron_l1_ratio, with our class.
    iris = load_iris()
    random_state = check_random_state(12)
    indices = np.arange(iris.data.shape[0])
    random_state.shuffle(indices)
    X, y = iris.data[indices], iris.target[indices]

    clf1 = Perceptron(l1_ratio=0, penalty="elasticnet").fit(X, y)
    clf2 = Perceptron(l1_ratio=0.15, penalty="elasticnet").fit(X, y)
    assert clf1.score(X, y) != clf2.score(X, y)

    clf_l1 = Perceptron(penalty="l1").fit(X, y)
    clf_elasticnet = Perceptron(l1_ratio=1, penalty="elasticnet").fit(X, y)
    assert_allclose(clf_l1.coef_, clf_elasticnet.coef_)

    clf_l2 = Perceptron(penalty="l2").fit(X, y)
    clf_elasticnet = Perceptron(l1_ratio=0, penalty="elasticnet").fit(X, y)
    assert_allclose(clf_l2.coef_, clf_elasticnet.coef_)


def test_l1_makes_weights_sparse():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((400, 30))
    y = (X[:, :3].sum(axis=1) > 0).astype(int)
    plain = Perceptron(random_state=0).fit(X, y)
    l1 = Perceptron(penalty="l1", alpha=0.01, random_state=0).fit(X, y)
    assert np.count_nonzero(plain.coef_) == 30
    assert np.count_nonzero(l1.coef_) < 15
    assert l1.score(X, y) > 0.9


# ---------------------------------------------------------------------------
# partial_fit, warm start, parameters
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("penalty", PENALTIES)
def test_partial_fit_restarts_the_l1_sum_per_call(penalty):
    # As in scikit-learn, each partial_fit call is a fresh run of the
    # penalty: the cumulative l1 penalty starts at 0.
    X, y = gaussian(n=100, d=5)
    est = Perceptron(penalty=penalty, alpha=0.01)
    est.partial_fit(X[:50], y[:50], classes=[0, 1])
    est.partial_fit(X[50:], y[50:])
    signs = np.where(y == 1, 1.0, -1.0)
    (w1, b1), _ = penalized_reference(
        X[:50], signs[:50], [np.arange(50)], eta=1.0, alpha=0.01,
        l1_ratio=0.15, penalty=penalty)
    second = Perceptron(penalty=penalty, alpha=0.01, shuffle=False, tol=None,
                        max_iter=1)
    second.fit(X[50:], y[50:], coef_init=w1, intercept_init=[b1])
    assert_allclose(est.coef_, second.coef_, rtol=1e-12)
    assert_allclose(est.intercept_, second.intercept_, rtol=1e-12)
    # One row at a time (the streaming path is bypassed) gives the same as
    # the reference with restarts.
    one = Perceptron(penalty=penalty, alpha=0.01)
    one.partial_fit(X[:1], y[:1], classes=[0, 1])
    for i in range(1, 20):
        one.partial_fit(X[i:i + 1], y[i:i + 1])
    w, b = np.zeros(5), 0.0
    for i in range(20):
        w, b = _visit(w, b, X[i], signs[i], penalty)
    assert_allclose(one.coef_.ravel(), w, rtol=1e-12, atol=1e-15)
    assert_allclose(one.intercept_[0], b, rtol=1e-12, atol=1e-15)


def _visit(w, b, x, sign, penalty, eta=1.0, alpha=0.01, l1_ratio=0.15):
    """One visit of a fresh penalty run (u and q start at 0)."""
    ratio = {"l2": 0.0, "l1": 1.0}.get(penalty, l1_ratio)
    m = sign * (w @ x + b)
    w = w * max(0.0, 1.0 - (1.0 - ratio) * eta * alpha)
    if m <= 0:
        w, b = w + eta * sign * x, b + eta * sign
    u = ratio * eta * alpha
    if u:
        w = np.where(w > 0, np.maximum(0.0, w - u),
                     np.where(w < 0, np.minimum(0.0, w + u), w))
    return w, b


def test_crammer_singer_with_penalty_is_refused():
    X, y = gaussian(n=60, n_classes=3)
    est = Perceptron(multi_class="crammer_singer", penalty="l2")
    with pytest.raises(ValueError, match="crammer_singer"):
        est.fit(X, y)
    with pytest.raises(ValueError, match="crammer_singer"):
        est.partial_fit(X, y, classes=[0, 1, 2])
    # alpha has no effect without a penalty, Crammer-Singer included.
    Perceptron(multi_class="crammer_singer", alpha=0.5).fit(X, y)


@pytest.mark.parametrize("params", [
    dict(penalty="l3"), dict(alpha=-1.0), dict(l1_ratio=1.5), dict(n_jobs=1.5),
    dict(penalty="none"),
])
def test_invalid_parameters(params):
    X, y = gaussian(n=20)
    with pytest.raises(InvalidParameterError):
        Perceptron(**params).fit(X, y)


def test_parameters_of_scikit_learn_are_accepted():
    from inspect import signature
    ours = set(signature(Perceptron).parameters)
    theirs = set(signature(SklearnPerceptron).parameters)
    assert theirs <= ours


def test_overflow_with_penalty_raises():
    X = np.array([[1e300, 1e300], [-1e300, 1e300]])
    for penalty in PENALTIES:
        with pytest.raises(ValueError, match="non-finite|overflow"):
            Perceptron(penalty=penalty, eta0=1e10, max_iter=3).fit(X, [0, 1])


# ---------------------------------------------------------------------------
# n_jobs: one-vs-all rows in threads, bit for bit
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("params", [
    dict(),
    dict(average=True, shuffle=True),
    dict(early_stopping=True, n_iter_no_change=2),
    dict(class_weight="balanced", threshold=0.3),
    dict(penalty="elasticnet", alpha=0.01, average=True),
    dict(tol=None, max_iter=7, shuffle=False),
])
@pytest.mark.parametrize("kind", ["dense", "csr", "float32"])
def test_n_jobs_is_bit_identical(params, kind):
    X, y = gaussian(n=300, d=7, n_classes=5)
    if kind == "csr":
        X = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0))
    elif kind == "float32":
        X = X.astype(np.float32)
    sample_weight = np.random.RandomState(1).uniform(0.5, 2.0, X.shape[0])
    one = Perceptron(n_jobs=1, **params).fit(X, y, sample_weight=sample_weight)
    for n_jobs in (2, 3, -1):
        many = Perceptron(n_jobs=n_jobs, **params).fit(
            X, y, sample_weight=sample_weight)
        assert_array_equal(many.coef_, one.coef_)
        assert_array_equal(many.intercept_, one.intercept_)
        assert many.n_iter_ == one.n_iter_
        assert many.mistakes_per_epoch_ == one.mistakes_per_epoch_


def test_n_jobs_partial_fit_and_crammer_singer():
    X, y = gaussian(n=200, d=5, n_classes=4)
    one, two = Perceptron(n_jobs=1), Perceptron(n_jobs=2)
    for est in (one, two):
        est.partial_fit(X[:100], y[:100], classes=np.arange(4))
        est.partial_fit(X[100:], y[100:])
    assert_array_equal(two.coef_, one.coef_)
    # n_jobs has no effect on the coupled Crammer-Singer rows.
    cs1 = Perceptron(multi_class="crammer_singer", n_jobs=1).fit(X, y)
    cs2 = Perceptron(multi_class="crammer_singer", n_jobs=2).fit(X, y)
    assert_array_equal(cs2.coef_, cs1.coef_)


def test_n_jobs_overflow_still_raises():
    X = np.array([[1e300, 1e300], [-1e300, 1e300], [1e300, -1e300]])
    with pytest.raises(ValueError, match="non-finite|overflow"):
        Perceptron(n_jobs=2, eta0=1e10, max_iter=3).fit(X, [0, 1, 2])


@pytest.mark.parametrize("penalty", PENALTIES)
def test_one_vs_all_fast_path_keeps_the_penalty(penalty):
    # OneVsAllPerceptron trains the rows of binary Perceptrons in one pass:
    # each row gets its own penalty, as the native one-vs-all rows do.
    from sklearn_perceptrons import OneVsAllPerceptron
    X, y = gaussian(n=150, d=5, n_classes=3)
    base = Perceptron(penalty=penalty, alpha=0.01, shuffle=False, tol=None,
                      max_iter=4)
    native = Perceptron(**base.get_params()).fit(X, y)
    reduction = OneVsAllPerceptron(base).fit(X, y)
    scores = reduction.decision_function(X)
    assert_allclose(scores, native.decision_function(X), rtol=1e-12,
                    atol=1e-12)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_n_jobs_in_a_forked_child():
    # The pool's threads do not survive a fork: the child makes its own
    # pool (with the parent's, its tasks would wait forever).
    import pickle
    import select
    X, y = gaussian(n=120, d=4, n_classes=3)
    parent = Perceptron(n_jobs=2).fit(X, y).coef_  # the parent's pool exists
    read, write = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork + threads
        pid = os.fork()
    if pid == 0:  # the child
        try:
            os.write(write, pickle.dumps(Perceptron(n_jobs=2).fit(X, y).coef_))
        finally:
            os._exit(0)
    os.close(write)
    try:
        ready, _, _ = select.select([read], [], [], 120)
        if not ready:
            os.kill(pid, 9)
        assert ready, "the fit hung in the forked child"
        with os.fdopen(read, "rb") as pipe:
            child = pickle.loads(pipe.read())
    finally:
        os.waitpid(pid, 0)
    assert_array_equal(child, parent)


def test_n_jobs_none_follows_joblib_context():
    from joblib import parallel_config
    X, y = gaussian(n=120, d=4, n_classes=3)
    plain = Perceptron().fit(X, y)
    with parallel_config(n_jobs=2):
        est = Perceptron()
        assert est._n_threads() == 2
        assert_array_equal(est.fit(X, y).coef_, plain.coef_)


def test_an_error_in_a_thread_reaches_the_caller(monkeypatch):
    from sklearn_perceptrons._linear import rows as _rows

    X, y = gaussian(n=60, d=4, n_classes=4)
    calls = []
    in_worker = threading.Event()

    def failing(*args, **kwargs):
        calls.append(threading.current_thread())
        if threading.current_thread() is not threading.main_thread():
            in_worker.set()
            raise RuntimeError("boom in a worker")
        # The calling thread keeps its group until a pool thread has taken
        # the other (else it may run both itself).
        in_worker.wait(30)
        return False

    dtype_key = (X.dtype, False)
    monkeypatch.setitem(_rows._EPOCH, dtype_key, failing)
    est = Perceptron(n_jobs=2)
    with pytest.raises(RuntimeError, match="boom in a worker"):
        est.fit(X, y)
    assert len(calls) == 2


@pytest.mark.parametrize("penalty", PENALTIES)
@pytest.mark.parametrize("sparse", [False, True])
def test_float32_is_kept_with_a_penalty(penalty, sparse):
    X, y = gaussian(n=150, d=6, n_classes=3)
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) > 0.4, X, 0.0))
    params = dict(penalty=penalty, alpha=0.01, shuffle=False, tol=None,
                  max_iter=3, average=True)
    single = Perceptron(**params).fit(X.astype(np.float32), y)
    double = Perceptron(**params).fit(X, y)
    assert single.coef_.dtype == np.float32
    assert_allclose(single.coef_, double.coef_, rtol=1e-4, atol=1e-5)


def test_n_jobs_pool_tasks_in_order_and_nested():
    # The package's pool: results in task order, and a task that itself
    # runs tasks on the pool (whose threads are all busy) still completes.
    from sklearn_perceptrons._core.threads import run_tasks

    def inner(k):
        return run_tasks(lambda j: 10 * k + j, [(j,) for j in range(3)], 2)

    result = []
    caller = threading.Thread(target=lambda: result.append(
        run_tasks(inner, [(k,) for k in range(4)], 2)), daemon=True)
    caller.start()
    caller.join(timeout=60)
    assert not caller.is_alive(), "a nested call waits forever"
    assert result == [[[10 * k + j for j in range(3)] for k in range(4)]]
