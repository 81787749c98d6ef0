# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of sklearn_perceptrons.distributed and of streaming on Dask.

The oracles: the base estimator's own ``fit`` (one partition is the serial
perceptron, epoch by epoch, bit for bit), a pure-NumPy implementation of
iterative parameter mixing, the binary problems of a one-vs-all model, the
mixed-mistake bound of McDonald, Hall and Mann (2010, Theorem 3) computed
with :func:`sklearn_perceptrons.bounds.mistake_bound`, sequential
``partial_fit`` calls for dask-ml's ``Incremental``, and one ``partial_fit``
pass over the whole array for the out-of-core example.

The cluster tests run on a ``distributed.LocalCluster`` of two worker
processes on 127.0.0.1, shared by the module; the two tests that kill or
restart workers get a cluster of their own, so that no test waits for workers
to come back. Waits are bounded and sized for a loaded 2-core machine.  Everything is skipped when
Dask is not installed (``pip install "sklearn_perceptrons[dask]"``).
"""

import importlib.util
import inspect
import os
import pickle
import signal
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

import scipy.sparse as sp  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.exceptions import ConvergenceWarning, NotFittedError  # noqa: E402
from sklearn.utils._param_validation import InvalidParameterError  # noqa: E402

import sklearn_perceptrons  # noqa: E402
from sklearn_perceptrons import MarginPerceptron, Perceptron  # noqa: E402
from sklearn_perceptrons import distributed as pmod  # noqa: E402
from sklearn_perceptrons.bounds import mistake_bound  # noqa: E402
from sklearn_perceptrons.distributed import ParameterMixing  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------
# Data and helpers
# ---------------------------------------------------------------------------


def separable(n_samples=300, n_features=4, margin=0.3, seed=0):
    """Gaussian points pushed apart from a random hyperplane (with offset).

    Every point is moved ``margin`` along the normal on its own side, so the
    data are separable with a margin of at least ``margin`` (in x-space).
    """
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n_samples, n_features))
    u = rng.standard_normal(n_features)
    u /= np.linalg.norm(u)
    score = X @ u + 0.2
    y = (score > 0).astype(np.int64)
    X += np.where(y == 1, margin, -margin)[:, None] * u
    return X, y


def noisy(n_samples=300, n_features=5, n_classes=2, seed=0):
    """Linear labels with 10% label noise (not separable)."""
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n_samples, n_features))
    if n_classes == 2:
        y = (X @ rng.standard_normal(n_features) > 0).astype(np.int64)
    else:
        y = np.argmax(X @ rng.standard_normal((n_features, n_classes)), axis=1)
    flip = rng.rand(n_samples) < 0.1
    y[flip] = rng.randint(0, n_classes, size=flip.sum())
    return X, y


def to_dask(X, y, chunks, sample_weight=None):
    """X, y (and sample_weight) as Dask arrays with the given row chunks."""
    chunks = (tuple(chunks),) if not isinstance(chunks, int) else chunks
    dX = da.from_array(X, chunks=(chunks if isinstance(chunks, int)
                                  else chunks[0], X.shape[1]))
    dy = da.from_array(y, chunks=chunks)
    if sample_weight is None:
        return dX, dy
    return dX, dy, da.from_array(sample_weight, chunks=chunks)


def quiet(estimator, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(*args, **kwargs)


def reference_mixing(X, y, parts, rounds, mixing):
    """Iterative parameter mixing of the textbook perceptron, in NumPy.

    Binary, threshold 0, unit steps, with intercept (padded vectors), rows of
    each part visited in order.  Returns the mixed weights and the updates of
    every part in every round.
    """
    signs = np.where(y == np.unique(y)[1], 1.0, -1.0)
    Xp = np.hstack([X, np.ones((X.shape[0], 1))])
    w = np.zeros(Xp.shape[1])
    history = []
    for _ in range(rounds):
        weights, updates = [], []
        for rows in parts:
            v, k = w.copy(), 0
            for i in rows:
                if signs[i] * (v @ Xp[i]) <= 0:
                    v += signs[i] * Xp[i]
                    k += 1
            weights.append(v)
            updates.append(k)
        history.append(updates)
        if sum(updates) == 0:
            break
        if mixing == "uniform":
            mu = np.full(len(parts), 1.0 / len(parts))
        else:
            mu = np.asarray(updates, float) / sum(updates)
        w = sum(m * v for m, v in zip(mu, weights))
    return w, np.array(history)


def mixed_updates(history, mixing):
    """sum_n sum_i mu[n, i] k[n, i]: the count Theorem 3 bounds."""
    history = np.asarray(history, dtype=float)
    if mixing == "uniform":
        return float(history.sum() / history.shape[1])
    totals = history.sum(axis=1)
    nonzero = totals > 0
    return float((history[nonzero] ** 2).sum(axis=1).__truediv__(
        totals[nonzero]).sum())


@pytest.fixture
def local(monkeypatch):
    """Run ParameterMixing on Dask's local scheduler even if a client exists."""
    monkeypatch.setattr(pmod, "_default_client", lambda: None)


# ---------------------------------------------------------------------------
# Packaging: dask stays optional
# ---------------------------------------------------------------------------


def test_package_import_does_not_import_dask(tmp_path):
    code = "import sys, sklearn_perceptrons; print('dask' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        # The subprocess must import the same installation as this process:
        # run it outside the source tree, with that installation on its path.
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": os.path.dirname(
            os.path.dirname(sklearn_perceptrons.__file__))},
    )
    assert out.stdout.strip() == "False"


def test_missing_dask_raises_import_error_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "dask.array", None)
    monkeypatch.delitem(sys.modules, "sklearn_perceptrons.distributed")
    with pytest.raises(ImportError, match=r"sklearn_perceptrons\[dask\]"):
        importlib.import_module("sklearn_perceptrons.distributed")
    # monkeypatch puts the real module back into sys.modules afterwards.


# ---------------------------------------------------------------------------
# One partition is the base estimator, epoch by epoch
# ---------------------------------------------------------------------------

BASES = {
    "cyclic": Perceptron(shuffle=False),
    "shuffled": Perceptron(shuffle=True, random_state=3),
    "threshold-eta": Perceptron(shuffle=False, threshold=0.5, eta0=0.1),
    "no-intercept": Perceptron(shuffle=True, fit_intercept=False),
    "balanced": Perceptron(shuffle=False, class_weight="balanced"),
    "margin": MarginPerceptron(margin=0.2, epsilon=0.3, shuffle=False),
    # The cumulative l1 penalty runs on from round to round, as from epoch
    # to epoch.
    "l1": Perceptron(shuffle=False, penalty="l1", alpha=0.05),
    "elasticnet": Perceptron(shuffle=True, random_state=2, penalty="elasticnet",
                             alpha=0.05, l1_ratio=0.5),
}


@pytest.mark.parametrize("mixing", ["uniform", "mistakes"])
def test_penalty_state_is_mixed_like_the_weights(local, mixing):
    # Two copies of the same partition run the same epochs: mixing them is
    # the serial fit, the cumulative l1 penalty included (restarting it each
    # round would give another model from the second round on).
    X, y = noisy(100, 4, 3, seed=9)
    base = Perceptron(shuffle=False, penalty="l1", alpha=0.05)
    twice = (np.concatenate([X, X]), np.concatenate([y, y]))
    for k in (2, 4):
        mixed = quiet(ParameterMixing(base, max_rounds=k, tol=None,
                                      mixing=mixing), *to_dask(*twice, 100))
        serial = quiet(clone(base).set_params(max_iter=k, tol=None), X, y)
        assert mixed.n_partitions_ == 2
        np.testing.assert_array_equal(mixed.coef_, serial.coef_)
        np.testing.assert_array_equal(mixed.intercept_, serial.intercept_)


@pytest.mark.parametrize("name", sorted(BASES))
@pytest.mark.parametrize("n_classes", [2, 3])
def test_one_partition_is_the_base_estimator_epoch_by_epoch(local, name, n_classes):
    X, y = noisy(120, 4, n_classes, seed=1)
    sample_weight = np.random.RandomState(0).uniform(0.5, 2.0, size=y.shape[0])
    dX, dy, dw = to_dask(X, y, 120, sample_weight)
    base = BASES[name]
    for k in range(1, 5):
        mixed = quiet(ParameterMixing(base, max_rounds=k, tol=None),
                      dX, dy, sample_weight=dw)
        serial = quiet(clone(base).set_params(max_iter=k, tol=None), X, y,
                       sample_weight=sample_weight)
        np.testing.assert_array_equal(mixed.coef_, serial.coef_)
        np.testing.assert_array_equal(mixed.intercept_, serial.intercept_)
        np.testing.assert_array_equal(mixed.classes_, serial.classes_)
        assert mixed.n_mistakes_ == serial.n_mistakes_
        assert mixed.mistakes_per_round_[:, 0].tolist() == serial.mistakes_per_epoch_
        assert mixed.n_iter_ == serial.n_iter_


@pytest.mark.parametrize("n_classes", [2, 4])
def test_one_partition_same_stopping_rule_as_base(local, n_classes):
    X, y = noisy(200, 5, n_classes, seed=2)
    dX, dy = to_dask(X, y, 200)
    mixed = quiet(ParameterMixing(Perceptron(), max_rounds=1000, tol=1e-3), dX, dy)
    serial = quiet(Perceptron(max_iter=1000, tol=1e-3), X, y)
    assert mixed.n_iter_ == serial.n_iter_ < 1000
    assert mixed.converged_ == serial.converged_
    np.testing.assert_array_equal(mixed.coef_, serial.coef_)


def test_one_partition_averaged(local):
    # The average over every visit: equal to the serial averaged perceptron,
    # up to the rounding of summing the iterates round by round.
    X, y = noisy(150, 4, 3, seed=3)
    dX, dy = to_dask(X, y, 150)
    for k in (1, 3):
        mixed = quiet(ParameterMixing(Perceptron(average=True), max_rounds=k,
                                      tol=None), dX, dy)
        serial = quiet(Perceptron(average=True, max_iter=k, tol=None), X, y)
        np.testing.assert_allclose(mixed.coef_, serial.coef_, rtol=1e-10,
                                   atol=1e-12)
        np.testing.assert_allclose(mixed.intercept_, serial.intercept_,
                                   rtol=1e-10, atol=1e-12)


def test_float32_stays_float32(local):
    X, y = noisy(100, 3, seed=4)
    X = X.astype(np.float32)
    dX, dy = to_dask(X, y, 50)
    clf = quiet(ParameterMixing(Perceptron(shuffle=False), max_rounds=3), dX, dy)
    assert clf.coef_.dtype == np.float32
    assert clf.intercept_.dtype == np.float32
    one = quiet(ParameterMixing(Perceptron(), max_rounds=3, tol=None),
                *to_dask(X, y, 100))
    serial = quiet(Perceptron(max_iter=3, tol=None), X, y)
    np.testing.assert_array_equal(one.coef_, serial.coef_)


# ---------------------------------------------------------------------------
# Several partitions: the mixing itself
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("mixing", ["uniform", "mistakes"])
def test_equals_numpy_reference(local, mixing):
    X, y = noisy(160, 3, seed=5)
    chunks = (50, 30, 80)
    bounds = np.cumsum((0,) + chunks)
    parts = [range(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
    for rounds in (1, 2, 6):
        clf = quiet(ParameterMixing(Perceptron(shuffle=False), max_rounds=rounds,
                                    mixing=mixing, tol=None), *to_dask(X, y, chunks))
        w, history = reference_mixing(X, y, parts, rounds, mixing)
        # The mixing sums in another order: equal up to rounding.
        np.testing.assert_allclose(clf.coef_.ravel(), w[:-1], rtol=1e-10,
                                   atol=1e-12)
        np.testing.assert_allclose(clf.intercept_, w[-1:], rtol=1e-10,
                                   atol=1e-12)
        np.testing.assert_array_equal(clf.mistakes_per_round_, history)


@pytest.mark.parametrize("mixing", ["uniform", "mistakes"])
def test_multiclass_rows_are_the_binary_problems(local, mixing):
    # Every one-vs-all row is mixed on its own: row k is the binary
    # ParameterMixing of "class k vs. the rest" on the same partitions.
    X, y = noisy(150, 4, 3, seed=6)
    base = Perceptron(shuffle=True, random_state=1)
    params = dict(max_rounds=4, mixing=mixing, tol=None)
    multi = quiet(ParameterMixing(base, **params), *to_dask(X, y, 50))
    for k in range(3):
        binary = quiet(ParameterMixing(base, **params), *to_dask(X, y == k, 50))
        np.testing.assert_array_equal(multi.coef_[k], binary.coef_[0])
        np.testing.assert_array_equal(multi.intercept_[k], binary.intercept_[0])


def test_empty_partitions_are_skipped(local):
    X, y = noisy(90, 3, seed=7)
    with_empty = quiet(ParameterMixing(Perceptron(), max_rounds=5, tol=None),
                       *to_dask(X, y, (0, 45, 0, 45)))
    without = quiet(ParameterMixing(Perceptron(), max_rounds=5, tol=None),
                    *to_dask(X, y, (45, 45)))
    assert with_empty.n_partitions_ == 2
    np.testing.assert_array_equal(with_empty.coef_, without.coef_)


def test_sparse_partitions_equal_dense(local):
    X, y = noisy(120, 6, seed=8)
    X[np.abs(X) < 0.8] = 0.0
    dX, dy = to_dask(X, y, 40)
    dense = quiet(ParameterMixing(Perceptron(), max_rounds=4, tol=None), dX, dy)
    sparse = quiet(ParameterMixing(Perceptron(), max_rounds=4, tol=None),
                   dX.map_blocks(sp.csr_matrix), dy)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-12)
    np.testing.assert_allclose(sparse.decision_function(sp.csr_matrix(X)),
                               dense.decision_function(X), rtol=1e-12)


# ---------------------------------------------------------------------------
# The convergence theorem (McDonald, Hall and Mann, 2010, Theorem 3)
# ---------------------------------------------------------------------------


@settings(deadline=None, max_examples=25)
@given(
    cuts=st.lists(st.integers(1, 119), min_size=1, max_size=6, unique=True),
    mixing=st.sampled_from(["uniform", "mistakes"]),
    shuffle=st.booleans(),
    seed=st.integers(0, 2**31 - 1),
)
def test_mixed_updates_obey_the_perceptron_bound(cuts, mixing, shuffle, seed):
    # Theorem 3: on data separable with margin gamma in a ball of radius R,
    # sum over rounds n and partitions i of mu[n, i] * k[n, i] <= (R/gamma)^2,
    # for any partition and any mixing weights mu[n, .] >= 0 summing to 1.
    # So the total over partitions is at most S (R/gamma)^2, not (R/gamma)^2.
    X, y = separable(120, 3, margin=0.4, seed=11)
    bound = mistake_bound(X, y)
    assert np.isfinite(bound)
    edges = [0, *sorted(cuts), 120]
    chunks = tuple(np.diff(edges))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pmod, "_default_client", lambda: None)
        clf = ParameterMixing(
            Perceptron(shuffle=shuffle), max_rounds=1000, tol=None,
            mixing=mixing, random_state=seed,
        ).fit(*to_dask(X, y, chunks))
    assert clf.converged_
    assert clf.score(X, y) == 1.0
    assert mixed_updates(clf.mistakes_per_round_, mixing) <= bound
    assert clf.n_mistakes_ <= clf.n_partitions_ * bound


def test_the_bound_is_on_mixed_updates_not_on_the_total(local):
    # Every partition holds samples that each need one update from w = 0:
    # the total is S * (R/gamma)^2 while the mixed count meets the bound
    # exactly, so "total <= (R/gamma)^2" would be false.
    X = np.array([[1.0], [-1.0]] * 4)
    y = np.array([1, 0] * 4)
    bound = mistake_bound(X, y, fit_intercept=False)
    assert bound == pytest.approx(1.0)
    clf = ParameterMixing(Perceptron(shuffle=False, fit_intercept=False),
                          max_rounds=10, tol=None).fit(*to_dask(X, y, 2))
    assert clf.n_partitions_ == 4
    assert clf.converged_
    assert clf.n_mistakes_ == 4 > bound
    assert mixed_updates(clf.mistakes_per_round_, "uniform") == pytest.approx(bound)


# ---------------------------------------------------------------------------
# Input, output and errors
# ---------------------------------------------------------------------------


def test_dask_dataframe_input_and_lazy_prediction(local):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, y = noisy(150, 4, 3, seed=9)
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(4)])
    ddf = dd.from_pandas(df, npartitions=3)
    dy = dd.from_pandas(pd.Series(y, name="y"), npartitions=3)
    sizes = tuple(int(n) for n in ddf.map_partitions(len).compute())
    clf = quiet(ParameterMixing(Perceptron(), max_rounds=5, tol=None), ddf, dy)
    same = quiet(ParameterMixing(Perceptron(), max_rounds=5, tol=None),
                 *to_dask(X, y, sizes))
    np.testing.assert_array_equal(clf.coef_, same.coef_)
    assert clf.feature_names_in_.tolist() == list(df.columns)
    assert clf.n_features_in_ == 4
    scores = clf.decision_function(ddf)
    assert isinstance(scores, da.Array)
    np.testing.assert_allclose(scores.compute(), clf.decision_function(df))
    predicted = clf.predict(ddf)
    assert isinstance(predicted, da.Array)
    np.testing.assert_array_equal(predicted.compute(), clf.predict(df))
    assert clf.score(ddf, dy) == pytest.approx(clf.score(df, y))


def test_prediction_on_dask_arrays_is_lazy_and_per_block(local):
    X, y = noisy(200, 4, 3, seed=10)
    dX, dy = to_dask(X, y, 50)
    clf = quiet(ParameterMixing(Perceptron(), max_rounds=5), dX, dy)
    scores = clf.decision_function(dX)
    assert isinstance(scores, da.Array)
    assert scores.shape == (200, 3) and scores.numblocks == (4, 1)
    np.testing.assert_allclose(scores.compute(),
                               X @ clf.coef_.T + clf.intercept_, rtol=1e-12)
    np.testing.assert_array_equal(clf.predict(dX).compute(), clf.predict(X))
    binary = quiet(ParameterMixing(Perceptron(), max_rounds=5),
                   *to_dask(X, y == 1, 50))
    assert binary.decision_function(dX).shape == (200,)
    np.testing.assert_array_equal(binary.predict(dX).compute(),
                                  binary.predict(X))
    assert clf.score(dX, dy) == pytest.approx(clf.score(X, y))
    # Pickle round trip.
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))


def test_y_is_aligned_with_the_blocks_of_x(local):
    X, y = noisy(90, 3, seed=23)
    dX, dy = to_dask(X, y, 30)
    ref = quiet(ParameterMixing(max_rounds=3, tol=None), dX, dy)
    for other in (da.from_array(y, chunks=45), y, list(y)):
        clf = quiet(ParameterMixing(max_rounds=3, tol=None), dX, other)
        np.testing.assert_array_equal(clf.coef_, ref.coef_)
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    with pytest.raises(ValueError, match="partition them alike"):
        ParameterMixing().fit(dd.from_pandas(pd.DataFrame(X), npartitions=3),
                              dd.from_pandas(pd.Series(y), npartitions=2))


def test_string_labels_and_column_chunks(local):
    X, y = noisy(120, 6, 3, seed=12)
    labels = np.array(["ant", "bee", "cat"])[y]
    dX = da.from_array(X, chunks=(40, 2))  # three blocks of columns
    dy = da.from_array(labels, chunks=40)
    clf = quiet(ParameterMixing(Perceptron(), max_rounds=3, tol=None), dX, dy)
    ref = quiet(ParameterMixing(Perceptron(), max_rounds=3, tol=None),
                *to_dask(X, y, 40))
    assert clf.classes_.tolist() == ["ant", "bee", "cat"]
    np.testing.assert_array_equal(clf.coef_, ref.coef_)
    assert set(clf.predict(dX).compute()) <= {"ant", "bee", "cat"}


def test_errors(local):
    X, y = noisy(60, 3, seed=13)
    dX, dy = to_dask(X, y, 20)
    bad = X.copy()
    bad[45, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ParameterMixing().fit(da.from_array(bad, chunks=(20, 3)), dy)
    with pytest.raises(ValueError, match=r"class.*'only'|'only'.*class"):
        ParameterMixing().fit(dX, da.from_array(np.array(["only"] * 60), chunks=20))
    with pytest.raises(ValueError, match="Incremental"):
        ParameterMixing(sklearn_perceptrons.KernelPerceptron()).fit(dX, dy)
    with pytest.raises(ValueError, match="float margin|margin='auto'"):
        ParameterMixing(MarginPerceptron()).fit(dX, dy)
    with pytest.raises(ValueError, match="early_stopping"):
        ParameterMixing(Perceptron(early_stopping=True)).fit(dX, dy)
    with pytest.raises(ValueError, match="60 rows but y has 50"):
        ParameterMixing().fit(dX, y[:50])
    with pytest.raises(ValueError, match="continuous|Unknown label"):
        ParameterMixing().fit(dX, da.from_array(X[:, 0], chunks=20))
    with pytest.raises(InvalidParameterError):
        ParameterMixing(mixing="median").fit(dX, dy)
    with pytest.raises(InvalidParameterError):
        ParameterMixing(max_rounds=0).fit(dX, dy)
    with pytest.raises(InvalidParameterError):
        ParameterMixing(Perceptron(eta0=-1.0)).fit(dX, dy)
    with pytest.raises(ValueError, match="(?i)negative"):
        ParameterMixing().fit(dX, dy, sample_weight=da.from_array(
            -np.ones(60), chunks=20))
    with pytest.raises(NotFittedError):
        ParameterMixing().predict(dX)
    clf = quiet(ParameterMixing(max_rounds=3), dX, dy)
    with pytest.raises(ValueError, match="features"):
        clf.predict(da.from_array(X[:, :2], chunks=(20, 2)))
    # A failed fit leaves the fitted estimator as it was.
    before = clf.coef_.copy(), clf.n_iter_, clf.n_features_in_
    with pytest.raises(ValueError):
        clf.fit(da.from_array(bad[:, :2], chunks=(20, 2)), dy)
    np.testing.assert_array_equal(clf.coef_, before[0])
    assert (clf.n_iter_, clf.n_features_in_) == before[1:]


def test_verbose_prints_one_line_per_round(local, capsys):
    X, y = separable(100, 3, seed=14)
    clf = ParameterMixing(Perceptron(), verbose=1, tol=None).fit(*to_dask(X, y, 25))
    lines = [ln for ln in capsys.readouterr().out.splitlines()
             if ln.startswith("-- Round")]
    assert len(lines) == clf.n_iter_
    assert "over 4 partition(s)" in lines[0]
    assert lines[-1].startswith(
        f"-- Round {clf.n_iter_} of {clf.max_rounds}: updates 0 ")


def test_max_rounds_warns():
    X, y = noisy(100, 3, seed=15)
    with pytest.warns(ConvergenceWarning, match="max_rounds=2"):
        clf = ParameterMixing(max_rounds=2, tol=None).fit(X, y)
    assert clf.n_iter_ == 2 and not clf.converged_


# ---------------------------------------------------------------------------
# On a cluster: two worker processes on the loopback interface
# ---------------------------------------------------------------------------


# Every wait is bounded, but sized for a loaded 2-core machine, where
# starting a worker process (importing NumPy, SciPy, scikit-learn and Dask)
# and connecting it can take a minute or more.
WORKER_WAIT = 240
CLUSTER_CONFIG = {
    "distributed.comm.timeouts.connect": "180s",
    "distributed.comm.timeouts.tcp": "300s",
}


def start_cluster():
    """A LocalCluster of two worker processes on the loopback interface, with
    both workers up; a start that fails (a timeout under load) is retried
    once with a fresh cluster, as a user would."""
    distributed = pytest.importorskip("distributed")
    for attempt in range(2):
        cluster = client = None
        try:
            cluster = distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True,
                dashboard_address=None, host="127.0.0.1",
            )
            client = distributed.Client(cluster)
            client.wait_for_workers(2, timeout=WORKER_WAIT)
            return cluster, client
        except Exception:
            stop_cluster(cluster, client)
            if attempt:
                raise
    raise AssertionError("unreachable")


def stop_cluster(cluster, client):
    """Close the client and the cluster without waiting on lost workers."""
    if client is not None:
        client.close(timeout=60)
    if cluster is not None:
        cluster.close(timeout=60)


@pytest.fixture(scope="module")
def client():
    """The cluster shared by the module's tests. No test harms it: the tests
    that kill or restart workers have a cluster of their own."""
    with dask.config.set(CLUSTER_CONFIG):
        cluster, client = start_cluster()
        try:
            yield client
        finally:
            stop_cluster(cluster, client)


@pytest.fixture
def two_workers(client):
    """The shared client, with both workers up, current for the test."""
    client.wait_for_workers(2, timeout=WORKER_WAIT)
    with client.as_current():
        yield client


@pytest.fixture
def own_cluster(client):
    """A cluster for one test that kills or restarts workers: nothing waits
    for them to come back, and the shared cluster stays whole. (It depends on
    the shared one only to be created after it, as the current client.)"""
    with dask.config.set(CLUSTER_CONFIG):
        cluster, own = start_cluster()
        try:
            with own.as_current():
                yield own
        finally:
            stop_cluster(cluster, own)


def test_cluster_one_partition_is_the_base_estimator(two_workers):
    X, y = noisy(300, 5, seed=16)
    dX, dy = to_dask(X, y, 300)
    for k in (1, 2, 3):
        mixed = quiet(ParameterMixing(Perceptron(shuffle=False), max_rounds=k,
                                      tol=None), dX, dy)
        serial = quiet(Perceptron(shuffle=False, tol=None, max_iter=k), X, y)
        np.testing.assert_array_equal(mixed.coef_, serial.coef_)
        np.testing.assert_array_equal(mixed.intercept_, serial.intercept_)


def test_cluster_errors_raised_on_workers_reach_fit(two_workers):
    X, y = noisy(90, 3, seed=24)
    X[70, 2] = np.inf
    clf = quiet(ParameterMixing(max_rounds=2), *to_dask(X[:60], y[:60], 30))
    before = clf.coef_.copy()
    with pytest.raises(ValueError, match="infinity"):
        clf.fit(*to_dask(X, y, 30))
    np.testing.assert_array_equal(clf.coef_, before)


@pytest.mark.parametrize("mixing", ["uniform", "mistakes"])
def test_cluster_converges_within_the_bound(two_workers, mixing):
    X, y = separable(400, 4, margin=0.3, seed=17)
    bound = mistake_bound(X, y)
    clf = ParameterMixing(Perceptron(), mixing=mixing, tol=None,
                          max_rounds=1000).fit(*to_dask(X, y, 100))
    assert clf.converged_ and clf.n_partitions_ == 4
    assert clf.score(X, y) == 1.0
    assert mixed_updates(clf.mistakes_per_round_, mixing) <= bound
    assert clf.n_mistakes_ <= 4 * bound


def round_workers(stream):
    """{(task name, partition): worker} of the ParameterMixing tasks run."""
    placed = {}
    for record in stream.data:
        key = record["key"]
        if isinstance(key, str) and key.startswith(("parameter-mixing-", "pinned-")):
            _, name, partition, _ = key.rsplit("-", 3)
            placed[name, int(partition)] = record["worker"]
    return placed


def test_epochs_run_where_the_partitions_are(two_workers):
    from distributed import get_task_stream

    X, y = noisy(40000, 10, seed=18)
    with get_task_stream(two_workers) as stream:
        clf = quiet(ParameterMixing(Perceptron(), max_rounds=4, tol=None),
                    *to_dask(X, y, 20000))
    placed = round_workers(stream)
    for p in range(2):
        for r in range(1, clf.n_iter_ + 1):
            # The partition was encoded (and is held) where its epochs ran.
            assert placed[f"round{r}", p] == placed["encode", p]


@pytest.mark.parametrize("mixing", ["uniform", "mistakes"])
def test_result_does_not_depend_on_placement(two_workers, monkeypatch, mixing):
    # Pin every task of partition p to a chosen worker (strictly), with
    # assignments that differ between fits and even change from round to
    # round (partitions then travel between workers): the weights must be
    # the same, bit for bit, as on Dask's local scheduler.
    from distributed import get_task_stream

    client = two_workers
    workers = sorted(client.scheduler_info()["workers"])
    X, y = noisy(400, 5, 3, seed=18)
    params = dict(mixing=mixing, max_rounds=6, tol=None)
    with monkeypatch.context() as m:
        m.setattr(pmod, "_default_client", lambda: None)
        reference = quiet(ParameterMixing(Perceptron(), **params),
                          *to_dask(X, y, 100))
    assignments = {
        "blocks": lambda name, p: workers[p // 2],
        "swapped": lambda name, p: workers[1 - p // 2],
        "rotating": lambda name, p: workers[
            (p + int(name[5:]) if name.startswith("round") else p) % 2],
    }
    for label, assign in assignments.items():
        def pinned_map(self, func, handles, per_handle_args=None,
                       common_args=(), name=""):
            per_handle_args = per_handle_args or [()] * len(handles)
            return [
                self.client.submit(
                    func, handle, *args, *common_args,
                    key=f"pinned-{name}-{p}-{self._token}", pure=False,
                    workers=[assign(name, p)], allow_other_workers=False,
                )
                for p, (handle, args) in enumerate(zip(handles, per_handle_args))
            ]

        monkeypatch.setattr(pmod._ClientRunner, "map", pinned_map)
        with get_task_stream(client) as stream:
            clf = quiet(ParameterMixing(Perceptron(), **params),
                        *to_dask(X, y, 100))
        placed = round_workers(stream)
        assert len([k for k in placed if k[0].startswith("round")]) == 4 * 6
        for (name, p), worker in placed.items():
            assert worker == assign(name, p), label
        np.testing.assert_array_equal(clf.coef_, reference.coef_)
        np.testing.assert_array_equal(clf.intercept_, reference.intercept_)
        np.testing.assert_array_equal(clf.mistakes_per_round_,
                                      reference.mistakes_per_round_)


def test_only_weights_travel_to_the_client(two_workers, monkeypatch):
    # Per round, each partition returns its (n_rows, n_features) weights,
    # n_rows intercepts and n_rows update counts, and nothing else.
    X, y = noisy(2000, 7, 3, seed=19)
    gathered = []
    original = pmod._ClientRunner.gather

    def recording_gather(self, handles, what=""):
        results = original(self, handles, what)
        if what.startswith("round"):
            gathered.append(sum(
                sum(v.nbytes for v in r if isinstance(v, np.ndarray))
                for r in results
            ))
        return results

    monkeypatch.setattr(pmod._ClientRunner, "gather", recording_gather)
    clf = quiet(ParameterMixing(Perceptron(), max_rounds=3, tol=None),
                *to_dask(X, y, 500))
    n_rows, n_features = clf.coef_.shape
    per_partition = n_rows * (n_features + 1) * 8 + n_rows * 8
    assert gathered == [4 * per_partition] * 3


def test_worker_killed_mid_fit_retries_the_round(own_cluster, monkeypatch):
    from distributed import wait

    client = own_cluster
    X, y = noisy(2000, 5, seed=20)
    dX, dy = to_dask(X, y, 500)
    params = dict(max_rounds=5, tol=None)
    reference = quiet(ParameterMixing(Perceptron(), **params), dX, dy)
    killed = []
    original = pmod._ClientRunner.gather

    def gather_after_a_crash(self, handles, what=""):
        if what == "round 3":
            # The round's results (and the partitions) of one worker are lost
            # with its process; Dask recomputes them elsewhere.
            wait(handles)
            worker = next(iter(client.who_has(handles[:1]).values()))[0]
            pid = client.run(os.getpid, workers=[worker])[worker]
            os.kill(pid, signal.SIGKILL)
            killed.append(worker)
        return original(self, handles, what)

    monkeypatch.setattr(pmod._ClientRunner, "gather", gather_after_a_crash)
    clf = quiet(ParameterMixing(Perceptron(), **params), dX, dy)
    assert killed and killed[0] not in client.scheduler_info()["workers"]
    np.testing.assert_array_equal(clf.coef_, reference.coef_)
    np.testing.assert_array_equal(clf.mistakes_per_round_,
                                  reference.mistakes_per_round_)


def test_cluster_restart_mid_fit_raises_and_keeps_the_estimator(
        own_cluster, monkeypatch):
    client = own_cluster
    X, y = noisy(600, 4, seed=21)
    dX, dy = to_dask(X, y, 200)
    clf = quiet(ParameterMixing(Perceptron(), max_rounds=4, tol=None), dX, dy)
    before = pickle.dumps(clf)
    original = pmod._ClientRunner.gather

    def gather_after_restart(self, handles, what=""):
        if what == "round 2":
            # Not waiting for the workers to come back: the round is lost
            # either way, and a loaded machine can take minutes to restart.
            client.restart(wait_for_workers=False)
        return original(self, handles, what)

    monkeypatch.setattr(pmod._ClientRunner, "gather", gather_after_restart)
    with pytest.raises(RuntimeError, match=r"(?s)round 2.*left as it was"):
        quiet(clf.set_params(max_rounds=5), dX, dy)
    clf.set_params(max_rounds=4)
    assert pickle.dumps(clf) == before


# ---------------------------------------------------------------------------
# Streaming through partial_fit with dask-ml's Incremental
# ---------------------------------------------------------------------------


def partial_fit_estimators():
    for name in sklearn_perceptrons.__all__:
        obj = getattr(sklearn_perceptrons, name)
        if inspect.isclass(obj) and hasattr(obj, "partial_fit"):
            yield name


@pytest.mark.parametrize("name", sorted(partial_fit_estimators()))
def test_incremental_equals_sequential_partial_fit(two_workers, name):
    Incremental = pytest.importorskip("dask_ml.wrappers").Incremental
    X, y = noisy(240, 4, 3, seed=22)
    params = {"margin": 0.5} if name == "MarginPerceptron" else {}
    estimator = getattr(sklearn_perceptrons, name)(**params)
    dX, dy = to_dask(X, y, 60)
    streamed = Incremental(clone(estimator), shuffle_blocks=False)
    streamed.fit(dX, dy, classes=[0, 1, 2])
    sequential = clone(estimator)
    for a in range(0, 240, 60):
        sequential.partial_fit(X[a:a + 60], y[a:a + 60], classes=[0, 1, 2])
    np.testing.assert_array_equal(streamed.estimator_.decision_function(X),
                                  sequential.decision_function(X))
    predicted = streamed.predict(dX)
    assert isinstance(predicted, da.Array)
    np.testing.assert_array_equal(predicted.compute(), sequential.predict(X))
    assert set(partial_fit_estimators()) >= {"Perceptron", "MarginPerceptron"}


# ---------------------------------------------------------------------------
# Out of core on one machine: the memmap example
# ---------------------------------------------------------------------------


def test_out_of_core_memmap_example(tmp_path, capsys):
    path = ROOT / "examples" / "out_of_core_memmap.py"
    spec = importlib.util.spec_from_file_location("out_of_core_memmap", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    result = example.main([
        "--n-samples", "60000", "--n-features", "8", "--budget-mb", "1",
        "--workdir", str(tmp_path), "--keep", "--no-progress",
    ])
    out = capsys.readouterr().out
    assert "peak" in out
    # The data exceed the budget; the streamed fit stayed within it.
    assert result["data_bytes"] == 60000 * 9 * 4  # X float32 and y int32
    assert result["data_bytes"] > result["budget_bytes"]
    assert result["peak_traced_bytes"] <= result["budget_bytes"]
    assert result["n_chunks"] > 1
    # Streaming chunk by chunk is one partial_fit pass over the whole array.
    X = np.fromfile(result["x_path"], dtype=np.float32).reshape(60000, 8)
    y = np.fromfile(result["y_path"], dtype=np.int32)
    one_pass = Perceptron().partial_fit(X[:result["n_train"]],
                                        y[:result["n_train"]], classes=[0, 1])
    np.testing.assert_array_equal(result["model"].coef_, one_pass.coef_)
    assert result["test_accuracy"] == pytest.approx(
        one_pass.score(X[result["n_train"]:], y[result["n_train"]:]))
    assert result["test_accuracy"] > 0.9
