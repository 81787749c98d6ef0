# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause

"""Regression tests of issue #33 (hardening III): one test per row at least.

Each test failed on the code before its fix; the docstring says how.
Row 4 (the second-order perceptron's numerical stability) is not here: it
belongs to the second-order core's own work.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_perceptrons import (
    KernelPerceptron,
    MarginPerceptron,
    OneVsAllPerceptron,
    OneVsOnePerceptron,
    Perceptron,
    SecondOrderPerceptron,
    VotedPerceptron,
    feasibility,
)


def _four_corners(scale, n=10, seed=0):
    """Four classes around four directions, separable pair by pair, scaled."""
    rng = np.random.default_rng(seed)
    centers = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])
    y = np.repeat(np.arange(4), n)
    X = centers[y] + rng.uniform(-0.1, 0.1, size=(4 * n, 2))
    return X * scale, y


# ----------------------------------------------------------------------------
# Row 1: one-vs-one confidences near the largest float
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("n_rows", [40, 1])
def test_one_vs_one_votes_stay_finite_near_the_largest_float(n_rows):
    """Row 1: every pair converged on X ~ 1e154 (scores ~ 1e308), but the
    sum of two pairs' confidences overflowed to inf and inf / inf made the
    decision NaN (score 0.375 instead of 1.0); the one-row path too."""
    X, y = _four_corners(1e154)
    model = OneVsOnePerceptron().fit(X, y)
    assert all(est.converged_ for est in model.estimators_)
    rows = X[:n_rows]
    decision = model.decision_function(rows)
    assert np.isfinite(decision).all()
    np.testing.assert_array_equal(model.predict(rows), y[:n_rows])
    # The confidences only break ties: within 1/3 of the pairs' votes.
    votes = np.zeros_like(decision)
    pairs = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    for est, (i, j) in zip(model.estimators_, pairs):
        positive = est.predict(rows) == 1
        votes[:, j] += positive
        votes[:, i] += ~positive
    assert np.all(np.abs(decision - votes) <= 1 / 3 + 1e-12)
    assert model.score(X, y) == 1.0


# ----------------------------------------------------------------------------
# Row 2: a reduction's one-row partial_fit around a base without a fast path
# ----------------------------------------------------------------------------


def _python_calls(function):
    """The number of Python function calls made by ``function()``."""
    import sys

    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event == "call":
            count += 1

    sys.setprofile(profile)
    try:
        function()
    finally:
        sys.setprofile(None)
    return count


def _traced_peak(function):
    """The peak of the memory traced by ``tracemalloc`` during ``function()``."""
    import tracemalloc

    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("Meta", [OneVsAllPerceptron, OneVsOnePerceptron])
@pytest.mark.parametrize("base", [SecondOrderPerceptron(),
                                  KernelPerceptron(kernel="rbf")],
                         ids=["second_order", "kernel"])
def test_reduction_partial_fit_costs_the_same_late_in_a_stream(Meta, base):
    """Row 2: every one-row call deep-copied each binary estimator (the
    state kept for a failed call), its history included: the log of
    ``mistakes_per_epoch_`` and the support vectors.  The Python calls of a
    call grew 3x and its traced memory 3-8x from call 100 to call 1,400.
    Counted here, not timed: call 1,000 must cost what call 100 costs."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1100, 4))
    y = rng.integers(0, 3, size=1100)
    model = Meta(base).partial_fit(X[:3], y[:3], classes=[0, 1, 2])
    measures = {}
    for i in range(3, 1100):
        call = lambda i=i: model.partial_fit(X[i:i + 1], y[i:i + 1])  # noqa: E731
        if i in (100, 1000):
            measures[i] = (_python_calls(call),)
        elif i in (101, 102, 103, 1001, 1002, 1003):
            measures[i] = (_traced_peak(call),)
        else:
            call()
    early_calls, late_calls = measures[100][0], measures[1000][0]
    assert late_calls <= early_calls + 20
    early_peak = np.median([measures[i][0] for i in (101, 102, 103)])
    late_peak = np.median([measures[i][0] for i in (1001, 1002, 1003)])
    assert late_peak <= 1.5 * early_peak + 4096
    # The stream learned: the binary estimators saw every row of their problem.
    assert sum(est.n_iter_ for est in model.estimators_) >= 1000


@pytest.mark.parametrize("base", [SecondOrderPerceptron(), KernelPerceptron()],
                         ids=["second_order", "kernel"])
def test_reduction_partial_fit_failing_in_one_pair_changes_nothing(
        base, monkeypatch):
    """Row 2 (what the fix must keep): the copies that ``partial_fit``
    updates are independent of the estimators a failed call keeps, even
    though they share the history (the log of ``mistakes_per_epoch_``, the
    support vectors and their stream's buffers)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    y = rng.integers(0, 3, size=60)
    model = OneVsOnePerceptron(base).partial_fit(X[:3], y[:3], classes=[0, 1, 2])
    twin = OneVsOnePerceptron(base).partial_fit(X[:3], y[:3], classes=[0, 1, 2])
    for i in range(3, 30):
        model.partial_fit(X[i:i + 1], y[i:i + 1])
        twin.partial_fit(X[i:i + 1], y[i:i + 1])
    # A row that pair (0, 1) gets wrong (an update of its stream), of class
    # 1 or 0; the next pair to see it, (1, 2) or (0, 2), fails.
    first = model.estimators_[0]
    pool = 3 * rng.normal(size=(500, 3))
    scores = first.decision_function(pool)
    label = 1 if scores.min() <= 0 else 0
    row = pool[np.argmin(scores) if label == 1 else np.argmax(scores)][None, :]
    original = type(base).partial_fit
    calls = []

    def failing(self, *args, **kwargs):
        calls.append(self)
        if len(calls) == 2:
            raise RuntimeError("the second pair fails")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(type(base), "partial_fit", failing)
    with pytest.raises(RuntimeError, match="second pair"):
        model.partial_fit(row, [label])
    monkeypatch.undo()
    assert len(calls) == 2
    for i in range(30, 60):
        model.partial_fit(X[i:i + 1], y[i:i + 1])
        twin.partial_fit(X[i:i + 1], y[i:i + 1])
    np.testing.assert_array_equal(model.decision_function(X),
                                  twin.decision_function(X))
    for est, ref in zip(model.estimators_, twin.estimators_):
        assert est.mistakes_per_epoch_ == ref.mistakes_per_epoch_
        assert est.n_mistakes_ == ref.n_mistakes_


# ----------------------------------------------------------------------------
# Row 3: gamma='scale' of kernels that do not use it
# ----------------------------------------------------------------------------


def _two_blobs(n=40, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 3)) + 3.0 * (2 * y[:, None] - 1)
    return X, y


@pytest.mark.parametrize("scale", [1e-160, 1e300])
@pytest.mark.parametrize("make", [
    lambda: KernelPerceptron(kernel="linear"),
    lambda: KernelPerceptron(kernel="cosine"),
    lambda: VotedPerceptron(),
    lambda: VotedPerceptron(kernel="cosine"),
], ids=["kernel-linear", "kernel-cosine", "voted-linear", "voted-cosine"])
def test_gamma_is_resolved_only_for_kernels_that_use_it(make, scale):
    """Row 3: ``gamma='scale'`` is ``1 / (n_features X.var())``, inf or 0 in
    float64 for X * 1e-160 or X * 1e300 (finite X), and fit refused it with
    "gamma='scale' ... is inf" although "linear" and "cosine" never read
    gamma.  A kernel that reads it still refuses it.  (At 1e300 the dot
    products of the dual forms overflow: that is their own, named, error.)"""
    X, y = _two_blobs()
    try:
        model = make().fit(X * scale, y)
    except ValueError as error:
        assert scale == 1e300 and "overflow" in str(error)
        assert "gamma" not in str(error)
    else:
        assert np.isfinite(model.decision_function(X * scale)).all()
    with pytest.raises(ValueError, match="gamma='scale'"):
        make().set_params(kernel="rbf").fit(X * scale, y)


# ----------------------------------------------------------------------------
# Row 5: n_jobs=0 and huge n_jobs
# ----------------------------------------------------------------------------

_N_JOBS_ESTIMATORS = {
    "kernel": lambda n_jobs: KernelPerceptron(n_jobs=n_jobs),
    "perceptron": lambda n_jobs: Perceptron(n_jobs=n_jobs),
    "ova-fast": lambda n_jobs: OneVsAllPerceptron(n_jobs=n_jobs),
    "ovo-fast": lambda n_jobs: OneVsOnePerceptron(n_jobs=n_jobs),
    "ova-generic": lambda n_jobs: OneVsAllPerceptron(SecondOrderPerceptron(),
                                                     n_jobs=n_jobs),
    "ovo-generic": lambda n_jobs: OneVsOnePerceptron(SecondOrderPerceptron(),
                                                     n_jobs=n_jobs),
}


@pytest.mark.parametrize("make", _N_JOBS_ESTIMATORS.values(),
                         ids=_N_JOBS_ESTIMATORS.keys())
def test_n_jobs_zero_is_an_invalid_parameter_at_fit(make):
    """Row 5: ``n_jobs=0`` fitted KernelPerceptron (``predict`` then raised
    joblib's "n_jobs == 0 in Parallel has no meaning"); the others raised
    that plain ValueError."""
    from sklearn.utils._param_validation import InvalidParameterError

    X, y = _four_corners(1.0)
    with pytest.raises(InvalidParameterError, match="n_jobs"):
        make(0).fit(X, y)
    if hasattr(make(0), "partial_fit"):
        with pytest.raises(InvalidParameterError, match="n_jobs"):
            make(0).partial_fit(X, y, classes=np.unique(y))


@pytest.mark.parametrize("n_jobs", [10**9, 2**63, -(2**63)])
@pytest.mark.parametrize("make", _N_JOBS_ESTIMATORS.values(),
                         ids=_N_JOBS_ESTIMATORS.keys())
def test_huge_n_jobs_is_clipped_to_the_work(make, n_jobs):
    """Row 5: on the generic one-vs-all/one-vs-one path, ``n_jobs=10**9``
    raised joblib's "Numeric literal ... too large" and ``2**63`` an
    ``OverflowError``; the compiled paths clip it to the work there is.
    Results equal those of ``n_jobs=1``.  (joblib's threads: starting
    processes would cost seconds.)"""
    from joblib import parallel_config

    X, y = _four_corners(1.0)
    with parallel_config(backend="threading"):
        model = make(n_jobs).fit(X, y)
        reference = make(1).fit(X, y)
        np.testing.assert_array_equal(model.decision_function(X),
                                      reference.decision_function(X))
        if hasattr(model, "partial_fit"):
            model.partial_fit(X[:5], y[:5])
            reference.partial_fit(X[:5], y[:5])
            np.testing.assert_array_equal(model.decision_function(X),
                                          reference.decision_function(X))


# ----------------------------------------------------------------------------
# Row 6: partial_fit with a budget far above what a stream holds
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["local_projection", "projection",
                                      "forgetron", "random", "oldest"])
def test_partial_fit_allocates_for_the_support_vectors_that_can_arrive(strategy):
    """Row 6: ``partial_fit`` allocated the arrays of a full budget:
    ``budget=10**6`` took 116 MB per call (``"projection"``: a 10**6 x 10**6
    inverse, a MemoryError of 7.28 TiB) and ``budget=2**62`` raised "array
    is too big", while ``fit`` worked.  A budget that cannot bind gives the
    model of any other budget that cannot bind."""
    import tracemalloc

    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    y = rng.integers(0, 2, size=40)  # noise: many mistakes
    models = {}
    for budget in (60, 10**6, 2**62):
        model = KernelPerceptron(budget=budget, budget_strategy=strategy)
        tracemalloc.start()
        try:
            model.partial_fit(X[:20], y[:20], classes=[0, 1])
            for i in range(20, 40):
                model.partial_fit(X[i:i + 1], y[i:i + 1])
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 2**20  # 1 MiB: what 40 rows of 3 features can need
        models[budget] = model
    for budget in (10**6, 2**62):
        np.testing.assert_array_equal(models[budget].dual_coef_,
                                      models[60].dual_coef_)
        np.testing.assert_array_equal(models[budget].support_vectors_,
                                      models[60].support_vectors_)
    assert models[60].support_vectors_.shape[0] > 5


# ----------------------------------------------------------------------------
# Row 7: a callable kernel that returns a sparse matrix
# ----------------------------------------------------------------------------


def _sparse_linear_kernel(A, B):
    """<a, b> as a scipy sparse matrix (what ``A @ B.T`` gives on CSR)."""
    return sp.csr_matrix(A) @ sp.csr_matrix(B).T


@pytest.mark.parametrize("Estimator", [KernelPerceptron, VotedPerceptron])
@pytest.mark.parametrize("sparse_input", [True, False])
def test_callable_kernel_may_return_a_sparse_matrix(Estimator, sparse_input):
    """Row 7: ``np.asarray`` of a sparse matrix is a 0-d object array, and
    the fit failed with "setting an array element with a sequence".  The
    block is densified: the model equals that of the dense kernel."""
    X, y = _two_blobs()
    X[X < 0.5] = 0.0
    Z = sp.csr_matrix(X) if sparse_input else X
    sparse_model = Estimator(kernel=_sparse_linear_kernel).fit(Z, y)
    dense_model = Estimator(
        kernel=lambda A, B: _sparse_linear_kernel(A, B).toarray()).fit(Z, y)
    np.testing.assert_array_equal(sparse_model.decision_function(Z),
                                  dense_model.decision_function(Z))
    if hasattr(sparse_model, "partial_fit"):
        sparse_model.partial_fit(Z[:3], y[:3])
        dense_model.partial_fit(Z[:3], y[:3])
        np.testing.assert_array_equal(sparse_model.decision_function(Z),
                                      dense_model.decision_function(Z))


# ----------------------------------------------------------------------------
# Row 8: KernelPerceptron.decision_function stops on a signal (Ctrl-C)
# ----------------------------------------------------------------------------


class _Alarm(Exception):
    pass


@pytest.mark.skipif(not hasattr(__import__("signal"), "setitimer"),
                    reason="needs POSIX interval timers")
def test_kernel_decision_function_stops_on_a_signal(monkeypatch):
    """Row 8: the dual scores of all rows were one compiled call without the
    GIL, where Python cannot act on a signal: Ctrl-C waited 10-17 s on
    400,000 rows x 2,500 support vectors.  They are now computed in blocks
    of bounded work, and a signal is handled between two of them.  A timer
    signal (SIGALRM, handled as Ctrl-C is) arrives while the scores are being
    computed: the call must stop before it scored every block.  No timing is
    asserted: the timer starts with the first block, and a call that ends
    before the signal (a fast machine) is retried on four times the rows."""
    import signal

    from sklearn_perceptrons._kernel import kernels as _kernels

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 10))
    y = rng.integers(0, 2, size=400)  # noise: most rows are support vectors
    model = KernelPerceptron(max_iter=2).fit(X, y)
    assert model.support_vectors_.shape[0] > 150
    calls = []
    compiled = _kernels.kernel_fast

    class Counting:
        def __getattr__(self, name):
            return getattr(compiled, name)

        def decision(self, *args, **kwargs):
            if not calls:
                # The timer starts with the first block (validation before
                # it may take longer than the timer on a busy machine).
                signal.setitimer(signal.ITIMER_REAL, 0.02)
            calls.append(args[5].shape[0])  # the rows of the block (out)
            return compiled.decision(*args, **kwargs)

    monkeypatch.setattr(_kernels, "kernel_fast", Counting())
    armed = [False]

    def handler(signum, frame):
        if armed[0]:
            raise _Alarm

    previous = signal.signal(signal.SIGALRM, handler)
    try:
        n_rows = 20_000
        for _ in range(6):
            rows = rng.normal(size=(n_rows, 10))
            calls.clear()
            armed[0] = True
            try:
                model.decision_function(rows)
            except _Alarm:
                scored = sum(calls)
                break
            finally:
                armed[0] = False
                signal.setitimer(signal.ITIMER_REAL, 0)
            n_rows *= 4
        else:
            pytest.fail("every call ended before the timer signal")
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert 0 < scored < n_rows
    # Each block is bounded: a few hundredths of a second of work.
    per_row = model.support_vectors_.shape[0] * (10 + 1)
    assert max(calls) * per_row <= 2 * _kernels.BLOCK_WORK


# ----------------------------------------------------------------------------
# Row 9: every sample of weight 0 through class_weight
# ----------------------------------------------------------------------------

_WEIGHTED = {
    "perceptron": Perceptron,
    "margin": MarginPerceptron,
    "second_order": SecondOrderPerceptron,
    "kernel": KernelPerceptron,
    "kernel-budget": lambda **kw: KernelPerceptron(budget=5, **kw),
    "voted": VotedPerceptron,
    "ova": lambda **kw: OneVsAllPerceptron(Perceptron(**kw)),
    "ovo": lambda **kw: OneVsOnePerceptron(Perceptron(**kw)),
    "mixing": lambda **kw: _parameter_mixing(Perceptron(**kw)),
}


def _parameter_mixing(base):
    from sklearn_perceptrons.distributed import ParameterMixing

    return ParameterMixing(base)


@pytest.mark.parametrize("make", _WEIGHTED.values(), ids=_WEIGHTED.keys())
def test_all_zero_class_weights_are_refused_as_all_zero_sample_weights(make):
    """Row 9: ``class_weight={0: 0.0, 1: 0.0}`` fitted with
    ``converged_=True`` and 0 mistakes (accuracy 0.425), while an all-zero
    ``sample_weight`` raised: no sample can update the model in either case.
    The same error for both, and for sample weights that are 0 on every
    class of positive weight."""
    X, y = _two_blobs()
    with pytest.raises(ValueError, match="at least one non-zero") as by_sample:
        make().fit(X, y, sample_weight=np.zeros(len(y)))
    with pytest.raises(ValueError, match="at least one non-zero") as by_class:
        make(class_weight={0: 0.0, 1: 0.0}).fit(X, y)
    assert by_class.type is by_sample.type is ValueError
    with pytest.raises(ValueError, match="at least one non-zero"):
        make(class_weight={0: 0.0, 1: 2.0}).fit(
            X, y, sample_weight=(y == 0).astype(float))
    # One class of weight 0 with samples of the other that weigh: a model.
    model = make(class_weight={0: 0.0, 1: 1.0}).fit(X, y)
    assert model.predict(X[y == 1]).tolist() == [1] * int((y == 1).sum())


# ----------------------------------------------------------------------------
# Row 10: feasibility systems with rows of extreme (finite) magnitude
# ----------------------------------------------------------------------------

_HOMOGENEOUS = {
    "perceptron": feasibility.perceptron_feasibility,
    "smooth": feasibility.smooth_perceptron,
    "von_neumann": feasibility.perceptron_von_neumann,
    "rescaled": feasibility.rescaled_perceptron,
}

_EXTREME_SYSTEMS = {
    "tiny": np.array([[1e-300, 0.0], [0.0, 1e-300]]),
    "huge-and-tiny": np.array([[1e200, 0.0], [0.0, 1e-200]]),
    "huge": np.array([[1e300, 1e299], [-1e299, 1e300], [2e300, 3e300]]),
    "subnormal": np.array([[5e-320, 1e-321], [1e-321, 5e-320]]),
}


@pytest.mark.parametrize("sparse_A", [False, True])
@pytest.mark.parametrize("system", _EXTREME_SYSTEMS.values(),
                         ids=_EXTREME_SYSTEMS.keys())
@pytest.mark.parametrize("solve", _HOMOGENEOUS.values(), ids=_HOMOGENEOUS.keys())
def test_homogeneous_solvers_scale_extreme_rows(solve, system, sparse_A):
    """Row 10: rows whose squared norms leave float64 were refused ("underflow
    to 0 ... rescale A", "overflow float64; rescale A"), though the systems
    are finite and feasible (w = (1, 1) solves the first two).  A positive
    scaling of a row does not change the solutions of ``A @ w > 0``: the
    rows are scaled internally, and the answer is checked on A itself."""
    A = sp.csr_matrix(system) if sparse_A else system
    res = solve(A)
    assert res.success and res.status == 0
    assert np.all(system @ res.x > 0)


@pytest.mark.parametrize("exponent", [-512, -520, -530])
def test_unit_rows_are_exact_where_squares_are_subnormal(exponent):
    """Row 10, found by tests/test_adversarial.py: rows of norm about 1e-155
    have subnormal squares (a few bits of precision), not 0, so they were
    not scaled and their unit rows were off by rounding; a row is now
    scaled whenever its squared norm leaves the normal range (below 2**53
    times the smallest normal), and ``A * 2**k`` gives the answer of A bit
    for bit."""
    rng = np.random.default_rng(0)
    A = np.round(rng.normal(size=(10, 3)), 2)
    A[A == 0] = 0.25
    A *= np.sign(A @ np.array([1.0, 0.5, -0.25]))[:, None]
    scaled = np.ldexp(A, exponent)
    for solve in (feasibility.smooth_perceptron,
                  feasibility.perceptron_von_neumann):
        reference, res = solve(A), solve(scaled)
        assert res.success and reference.success
        np.testing.assert_array_equal(res.x, reference.x)


def test_relaxation_method_scales_uniformly_tiny_or_huge_rows():
    """Row 10, ``A @ x <= b``: scaling rows changes what ``tol`` means, but
    one power of two for all of A, b and tol changes nothing (every step is
    the same, exactly): a system of tiny rows is solved."""
    A = np.array([[1e-300, 0.0], [0.0, 1e-300], [-1e-300, -1e-300]])
    b = np.array([1e-300, 1e-300, 0.5e-300])
    tol = 1e-310
    res = feasibility.relaxation_method(A, b, x0=[5.0, -7.0], tol=tol)
    assert res.success
    assert np.all(A @ res.x - b <= tol)
    reference = feasibility.relaxation_method(
        np.ldexp(A, 996), np.ldexp(b, 996), x0=[5.0, -7.0],
        tol=float(np.ldexp(tol, 996)))
    assert res.nit == reference.nit > 0
    np.testing.assert_array_equal(res.x, reference.x)


@pytest.mark.parametrize("scale, tol", [(1e-300, 1e-9), (1e200, 1e196)])
def test_certificates_of_scaled_rows_hold_on_the_rows_of_A(scale, tol):
    """Row 10, infeasible side: a certificate found on the internally
    scaled rows is mapped back to the rows of A and checked there
    (``x >= 0``, ``sum(x) = 1``, ``||A.T @ x|| <= tol`` on A itself; tol is
    absolute, so it is on the scale of the rows)."""
    A = np.array([[1.0, 0.5], [-1.0, -0.5], [0.0, 0.0]]) * scale
    A[2] = [0.0, -1.0]  # a row of norm 1: the norms are mixed
    for solve in (feasibility.perceptron_von_neumann,
                  feasibility.rescaled_perceptron):
        res = solve(A, tol=tol)
        assert res.status == 2
        x = res.certificate
        assert np.all(x >= 0) and np.isclose(x.sum(), 1.0)
        assert np.linalg.norm(A.T @ x) <= tol


def test_relaxation_method_refuses_rows_too_far_apart_and_says_why():
    """Row 10: rows one power of two cannot bring into range together stay
    refused, with the reason (tol is absolute) and what to do."""
    with pytest.raises(ValueError, match="cannot rescale rows one by one"):
        feasibility.relaxation_method([[1e200, 0.0], [0.0, 1e-200]],
                                      [1.0, 1.0])


# ----------------------------------------------------------------------------
# Row 11: CSR matrices with int64 indices
# ----------------------------------------------------------------------------


def _csr_int64(X):
    """CSR with int64 indices (scipy's constructor would narrow them)."""
    X = sp.csr_matrix(X)
    X.indices = X.indices.astype(np.int64)
    X.indptr = X.indptr.astype(np.int64)
    return X


_CSR_ESTIMATORS = {
    "perceptron": Perceptron,
    "margin": MarginPerceptron,
    "second_order": SecondOrderPerceptron,
    "kernel": KernelPerceptron,
    "kernel-budget": lambda: KernelPerceptron(budget=5),
    "voted": VotedPerceptron,
    "ova": OneVsAllPerceptron,
    "ovo": OneVsOnePerceptron,
    "ova-generic": lambda: OneVsAllPerceptron(SecondOrderPerceptron()),
    "ova-sklearn": lambda: OneVsAllPerceptron(_linear_svc()),
    "mixing": lambda: _parameter_mixing(Perceptron()),
}


def _linear_svc():
    from sklearn.svm import LinearSVC

    # liblinear refuses int64 indices: the reduction narrows them for its
    # base (found by tests/test_adversarial.py).
    return LinearSVC()


@pytest.mark.parametrize("make", _CSR_ESTIMATORS.values(),
                         ids=_CSR_ESTIMATORS.keys())
def test_csr_with_int64_indices_is_converted_once(make):
    """Row 11: every estimator refused a CSR matrix with int64 ``indices``
    and ``indptr`` (scipy's choice for large matrices, or after some
    operations) with scikit-learn's "Only sparse matrices with 32-bit
    integer indices are accepted ... report a minimal reproducer"; the
    solvers accepted it.  It is converted once, like the other sparse
    formats: the same model as from int32 indices."""
    X, y = _four_corners(1.0)
    X = np.hstack([X, np.zeros((X.shape[0], 2))])
    X32, X64 = sp.csr_matrix(X), _csr_int64(X)
    assert X64.indices.dtype == np.int64
    model, reference = make().fit(X64, y), make().fit(X32, y)
    np.testing.assert_array_equal(model.decision_function(X64),
                                  reference.decision_function(X32))
    if hasattr(model, "partial_fit"):
        model.partial_fit(X64[:3], y[:3])
        reference.partial_fit(X32[:3], y[:3])
        np.testing.assert_array_equal(model.predict(X64), reference.predict(X32))


def test_csr_beyond_int32_is_refused_with_the_reason():
    """Row 11: int64 indices are narrowed only when every index and offset
    fits in int32; a matrix too large for the compiled loops says so."""
    from sklearn_perceptrons._core.base import as_csr_int32

    wide = sp.csr_matrix((1, 2**31 + 1))
    wide.indices = np.array([2**31], dtype=np.int64)
    wide.indptr = np.array([0, 1], dtype=np.int64)
    wide.data = np.ones(1)
    with pytest.raises(ValueError, match="int32"):
        as_csr_int32(wide)


# ----------------------------------------------------------------------------
# Row 12: the rescaled perceptron certifies infeasible systems
# ----------------------------------------------------------------------------


def _feasible_by_highs(A):
    """HiGHS: is there w with A @ w >= 1 (equivalently A @ w > 0)?"""
    from scipy.optimize import linprog

    res = linprog(np.zeros(A.shape[1]), A_ub=-A, b_ub=-np.ones(A.shape[0]),
                  bounds=[(None, None)] * A.shape[1], method="highs")
    assert res.status in (0, 2)
    return res.status == 0


@pytest.mark.parametrize("seed", range(6))
def test_rescaled_perceptron_certifies_infeasible_systems(seed):
    """Row 12: on random infeasible 11 x 3 systems the rescaled perceptron
    stopped after 440 rescalings (rho(A) < 1e-12 proven) with status 1,
    never with the certificate its result has a field for, while
    ``perceptron_von_neumann`` certified them within ~150 iterations.  Once
    the rescalings prove the system infeasible or nearly so, the rest of
    the budget searches a Gordan certificate.  HiGHS is the oracle."""
    A = np.random.default_rng(seed).normal(size=(11, 3))
    tol = 1e-6
    res = feasibility.rescaled_perceptron(A, tol=tol)
    if _feasible_by_highs(A):
        assert res.success and np.all(A @ res.x > 0)
        return
    assert res.status == 2 and not res.success
    x = res.certificate
    assert np.all(x >= 0) and np.isclose(x.sum(), 1.0)
    assert np.linalg.norm(A.T @ x) <= tol
    assert res.certificate_norm == pytest.approx(np.linalg.norm(A.T @ x))


# ----------------------------------------------------------------------------
# Row 13: max_iter beyond what the loops count; overflow caused by weights
# ----------------------------------------------------------------------------

_ORDERS = ["cyclic", "permuted", "random", "max_distance", "max_residual"]


@pytest.mark.parametrize("max_iter", [2**63, 2**70, -1, 1.5, True])
def test_feasibility_max_iter_out_of_range_is_an_invalid_parameter(max_iter):
    """Row 13: ``max_iter=2**70`` raised ``OverflowError`` ("Python int too
    large to convert to C ssize_t") for the row-action orders and was taken
    by the greedy ones and the smooth solvers.  Every solver and order now
    refuses what its loops cannot count, as the estimators refuse bad
    parameters (InvalidParameterError, a ValueError and a TypeError)."""
    from sklearn.utils._param_validation import InvalidParameterError

    A = np.array([[1.0, 2.0], [2.0, 1.0]])
    for order in _ORDERS:
        with pytest.raises(InvalidParameterError, match="max_iter"):
            feasibility.perceptron_feasibility(A, max_iter=max_iter, order=order)
        with pytest.raises(InvalidParameterError, match="max_iter"):
            feasibility.relaxation_method(A, [1.0, 1.0], max_iter=max_iter,
                                          order=order)
    for solve in (feasibility.smooth_perceptron,
                  feasibility.perceptron_von_neumann,
                  feasibility.rescaled_perceptron):
        with pytest.raises(InvalidParameterError, match="max_iter"):
            solve(A, max_iter=max_iter)


def test_feasibility_largest_max_iter_is_taken_by_every_order():
    """Row 13: the largest count the loops hold works for every order."""
    A = np.array([[1.0, 2.0], [2.0, 1.0]])
    for order in _ORDERS:
        assert feasibility.perceptron_feasibility(
            A, max_iter=2**63 - 1, order=order).success
        assert feasibility.relaxation_method(
            A, [1.0, 1.0], x0=[3.0, 3.0], max_iter=2**63 - 1, order=order).success


@pytest.mark.parametrize("Estimator", [MarginPerceptron, SecondOrderPerceptron,
                                       Perceptron])
def test_overflow_from_huge_sample_weights_names_them(Estimator):
    """Row 13: ``sample_weight=1e300`` made an update 1e300 x and a margin
    overflow, and the error said "values of X, or of X times the weights,
    near the largest float" about an X of magnitude 2.  The message gives
    the largest feature and update size, and leads its advice with what is
    extreme.  (The perceptron's rule is invariant to a common scale of the
    weights: it does not overflow there, only with huge features.)"""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = rng.integers(0, 2, size=40)  # noise: updates to the end
    if Estimator is not Perceptron:
        with pytest.raises(ValueError, match=r"sample_weight.*1e\+300") as error:
            Estimator().fit(X, y, sample_weight=np.full(len(y), 1e300))
        message = str(error.value).lower()
        assert message.index("lower sample_weight") < message.index(
            "scale the features")
    # Huge features with unit weights: the features are named first.
    with pytest.raises(ValueError, match=r"2\.\d+e\+200") as error:
        Estimator().fit(X * 1e200, y)
    message = str(error.value).lower()
    assert message.index("scale the features") < message.index(
        "lower sample_weight")
