# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause

"""Adversarial properties of every public estimator and solver (issue 33).

The families of the adversarial run worth keeping, as hypothesis tests over
small generated data sets:

* bad input: NaN, infinity, too few or too many features, a single class,
  negative or mismatched weights, no rows, an unfitted model -- each with
  the error the contract names, and nothing else;
* bad parameters: a value outside a parameter's constraints is an
  ``InvalidParameterError`` at fit; an extreme value inside them fits or
  raises a ``ValueError``, never an ``OverflowError``, a ``MemoryError`` or
  an error from deep inside;
* state kept after a failed call: the model pickles to the same bytes as
  before the call, and its next calls match those of its saved copy;
* persistence: a model pickled in the middle of a stream (its lean
  streaming paths armed) continues exactly as the original;
* extreme but finite magnitudes: data scaled by ``2**k`` fit to finite
  decisions or raise a ``ValueError`` that names the cause; the
  scale-invariant estimators and solvers give the same answer bit for bit.

Every estimator of ``tests/_common_checks.checked_estimators`` (the one list
scikit-learn's checks run on) and every solver of ``feasibility`` is
covered; the examples are small, and no assertion is about time.
"""

import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from joblib import parallel_config
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import get_tags
from sklearn.utils._param_validation import InvalidParameterError, make_constraint

from sklearn_perceptrons import (
    KernelPerceptron,
    OneVsAllPerceptron,
    Perceptron,
    VotedPerceptron,
    feasibility,
)

from _common_checks import checked_estimators

ESTIMATORS = checked_estimators()
IDS = [repr(est) for est in ESTIMATORS]

# Few examples per estimator: the families run on every estimator, and the
# suite must stay fast on a busy machine.
FAMILY = settings(max_examples=6, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow,
                                         HealthCheck.data_too_large])

pytestmark = pytest.mark.filterwarnings("ignore")


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


@st.composite
def datasets(draw):
    """A small classification problem: X (float64), y with 2 or 3 classes
    (every class present), and the format to present X in."""
    n = draw(st.integers(8, 24))
    d = draw(st.integers(1, 4))
    k = draw(st.integers(2, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    y = np.arange(n) % k
    rng.shuffle(y)
    X = rng.normal(size=(n, d)) + 1.5 * y[:, None]
    fmt = draw(st.sampled_from(["dense", "dense32", "csr", "csr64"]))
    return X, y, fmt


def _fast(estimator):
    """``estimator`` with few epochs (every max_iter it has, nested too)."""
    estimator = clone(estimator)
    params = {name: 5 for name in estimator.get_params()
              if name.endswith("max_iter") or name == "max_rounds"}
    return estimator.set_params(**params)


def _pairwise(estimator):
    return get_tags(estimator).input_tags.pairwise


def _present(estimator, X, fmt):
    """X as the estimator reads it: a Gram matrix for a precomputed kernel,
    else in the format ``fmt``."""
    if _pairwise(estimator):
        return X @ X.T
    if fmt == "dense32":
        return X.astype(np.float32)
    if fmt.startswith("csr"):
        Z = sp.csr_matrix(X)
        if fmt == "csr64":
            Z.indices = Z.indices.astype(np.int64)
            Z.indptr = Z.indptr.astype(np.int64)
        return Z
    return X


def _state(estimator):
    """The estimator as bytes (its pickle: the streaming caches excluded)."""
    return pickle.dumps(estimator)


def _assert_finite_decisions(estimator, X):
    decision = np.asarray(estimator.decision_function(X))
    assert np.all(np.isfinite(decision))


def _ours(estimator):
    """Whether the estimator, and its base if any, is of this package
    (scikit-learn's own bases, e.g. liblinear's, are not tested here for
    data near the limits of float64)."""
    base = estimator.get_params(deep=False).get("estimator")
    return type(estimator).__module__.startswith("sklearn_perceptrons") and (
        base is None or type(base).__module__.startswith("sklearn_perceptrons"))


# ---------------------------------------------------------------------------
# Family 1: bad input
# ---------------------------------------------------------------------------

_BAD_INPUTS = ["nan", "inf", "features", "one_class", "negative_weight",
               "no_rows", "unfitted", "y_length"]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
@FAMILY
@given(data=datasets(), bad=st.sampled_from(_BAD_INPUTS),
       where=st.integers(0, 10**6))
def test_bad_input_raises_the_error_of_the_contract(estimator, data, bad, where):
    X, y, fmt = data
    estimator = _fast(estimator)
    n, d = X.shape
    i, j = where % n, where % d
    if bad == "unfitted":
        with pytest.raises(NotFittedError):
            estimator.predict(_present(estimator, X, fmt))
        return
    if bad in ("nan", "inf"):
        X = X.copy()
        X[i, j] = np.nan if bad == "nan" else -np.inf
        if _pairwise(estimator):
            # The Gram matrix itself holds the bad value.
            Z = X @ X.T
        else:
            Z = _present(estimator, X, "dense" if fmt == "dense32" else fmt)
        with pytest.raises(ValueError):
            estimator.fit(Z, y)
        return
    Z = _present(estimator, X, fmt)
    if bad == "features":
        estimator.fit(Z, y)
        before = _state(estimator)
        # One column too many (of the Gram matrix: one training row too many).
        query = (np.ones((2, n + 1)) if _pairwise(estimator)
                 else np.hstack([X, X[:, :1]]))
        with pytest.raises(ValueError):
            estimator.predict(query)
        assert _state(estimator) == before
        return
    if bad == "one_class":
        with pytest.raises(ValueError, match="class"):
            estimator.fit(Z, np.full(n, y[0]))
        return
    if bad == "negative_weight":
        if not _ours(estimator):
            return  # the base judges its weights (SGDClassifier takes them)
        weight = np.ones(n)
        weight[i] = -1.0
        with pytest.raises(ValueError):
            estimator.fit(Z, y, sample_weight=weight)
        return
    if bad == "no_rows":
        empty = Z[:0, :0] if _pairwise(estimator) else Z[:0]
        with pytest.raises(ValueError):
            estimator.fit(empty, y[:0])
        return
    assert bad == "y_length"
    with pytest.raises(ValueError):
        estimator.fit(Z, y[:-1])


# ---------------------------------------------------------------------------
# Family 2: bad parameters
# ---------------------------------------------------------------------------

_VALUES = [0, -1, 1, 2, 2**31, 2**70, -(2**70), 0.5, 1.5, -0.5, 1e-300, 1e300,
           float("nan"), float("inf"), "bogus", None, True, [], {}]
# Values of these parameters ask for that much work (epochs, not errors).
_WORK = {"max_iter", "n_iter_no_change", "degree"}


def _satisfies(constraints, value):
    return any(make_constraint(c).is_satisfied_by(value) for c in constraints)


def _constraints(estimator):
    return {name: constraints for name, constraints
            in type(estimator)._parameter_constraints.items()
            if name in estimator.get_params(deep=False)}


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
@FAMILY
@given(data=datasets(), pick=st.integers(0, 10**6),
       value=st.sampled_from(_VALUES))
def test_parameters_are_refused_at_fit_or_work(estimator, data, pick, value):
    X, y, fmt = data
    estimator = _fast(estimator)
    table = _constraints(estimator)
    name = sorted(table)[pick % len(table)]
    if name in _WORK and isinstance(value, int) and value > 1000:
        value = 1000
    # The tags of a reduction are its base's: read them while it is valid.
    Z = _present(estimator, X, fmt)
    estimator.set_params(**{name: value})
    # Processes would cost seconds to start: joblib's threads instead.
    with parallel_config(backend="threading"):
        if not _satisfies(table[name], value):
            with pytest.raises(InvalidParameterError, match=name):
                estimator.fit(Z, y)
            return
        try:
            estimator.fit(Z, y)
        except ValueError:
            # Data-dependent refusals (a class_weight naming no class, an
            # overflow, a cross-parameter rule) are ValueErrors, by contract.
            return
        _assert_finite_decisions(estimator, Z)
        assert set(np.unique(estimator.predict(Z))) <= set(np.unique(y))


_FEASIBILITY_PARAMETERS = {
    # name: (is the value valid?)
    "max_iter": lambda v: (isinstance(v, int) and not isinstance(v, bool)
                           and 0 <= v <= 2**63 - 1),
    "order": lambda v: v in ("cyclic", "permuted", "random", "max_distance",
                             "max_residual"),
    "tol": lambda v: (isinstance(v, (int, float)) and not isinstance(v, bool)
                      and math.isfinite(v) and v >= 0),
    "eta": lambda v: (isinstance(v, (int, float)) and not isinstance(v, bool)
                      and 0 < v <= 2),
    "threshold": lambda v: (isinstance(v, (int, float))
                            and not isinstance(v, bool) and math.isfinite(v)),
}
_SOLVERS = {
    "perceptron": (feasibility.perceptron_feasibility,
                   ["max_iter", "order", "threshold"]),
    "relaxation": (feasibility.relaxation_method,
                   ["max_iter", "order", "tol", "eta"]),
    "smooth": (feasibility.smooth_perceptron, ["max_iter"]),
    "von_neumann": (feasibility.perceptron_von_neumann, ["max_iter", "tol"]),
    "rescaled": (feasibility.rescaled_perceptron, ["max_iter", "tol"]),
}


def _feasible_system(rng, n, p):
    """Rows with a positive product with a common direction (A @ u > 0),
    and b with A @ x <= b feasible."""
    u = rng.normal(size=p)
    A = rng.normal(size=(n, p))
    A *= np.sign(A @ u)[:, None]
    A[A @ u == 0] = u
    return A, A @ rng.normal(size=p) + 1.0


@pytest.mark.parametrize("solver", _SOLVERS, ids=_SOLVERS)
@settings(max_examples=40, deadline=None, database=None)
@given(seed=st.integers(0, 2**16), pick=st.integers(0, 10**6),
       value=st.sampled_from(_VALUES + ["cyclic", "max_residual", 2.0]))
def test_solver_parameters_are_refused_or_work(solver, seed, pick, value):
    solve, names = _SOLVERS[solver]
    name = names[pick % len(names)]
    rng = np.random.default_rng(seed)
    A, b = _feasible_system(rng, 12, 3)
    args = (A, b) if solver == "relaxation" else (A,)
    # relaxation_method's max_iter=None picks a default by order.
    default = solver == "relaxation" and name == "max_iter" and value is None
    if not (default or _FEASIBILITY_PARAMETERS[name](value)):
        with pytest.raises(InvalidParameterError, match=name):
            solve(*args, **{name: value})
        return
    res = solve(*args, **{name: value})
    assert res.status in (0, 1, 2, 3)
    if res.status == 0:
        assert res.success
        if solver == "relaxation":
            assert np.max(A @ res.x - b) <= (value if name == "tol" else 1e-8)
        else:
            threshold = value if name == "threshold" else 0.0
            assert np.all(A @ res.x > threshold)


# ---------------------------------------------------------------------------
# Family 3: the state after a failed call
# ---------------------------------------------------------------------------

_FAILURES = ["nan_fit", "bad_parameter", "unknown_label", "features",
             "nan_row", "negative_weight", "huge_row"]


def _failing_call(failure, estimator, X, Z, y, fmt):
    """The call of ``failure`` on ``estimator`` (a function of no argument)."""
    if failure == "nan_fit":
        bad = X.copy()
        bad[0, 0] = np.nan
        bad = bad @ bad.T if _pairwise(estimator) else bad
        return lambda: estimator.fit(bad, y)
    if failure == "bad_parameter":
        # The first parameter that refuses a string, set to one for the
        # call, and back.
        table = _constraints(estimator)
        target = next(name for name in sorted(table)
                      if not _satisfies(table[name], "bogus"))

        def call():
            original = estimator.get_params()[target]
            estimator.set_params(**{target: "bogus"})
            try:
                estimator.fit(Z, y)
            finally:
                estimator.set_params(**{target: original})
        return call
    if not hasattr(estimator, "partial_fit"):
        return None
    # Rows in the format of the fit (scikit-learn's SGDClassifier, a base
    # here, cannot take float64 rows after a float32 fit).
    row = Z[:1]
    if fmt == "dense32":
        X = X.astype(np.float32)
    query = (lambda r: r @ X.T) if _pairwise(estimator) else (lambda r: r)
    if failure == "unknown_label":
        return lambda: estimator.partial_fit(query(row), [max(y) + 7])
    if failure == "features":
        wider = sp.hstack([row, row], format="csr") if sp.issparse(row) \
            else np.hstack([row, row])
        return lambda: estimator.partial_fit(wider, y[:1])
    if failure == "nan_row":
        bad = X[:1].copy()
        bad[0, 0] = np.nan
        return lambda: estimator.partial_fit(query(bad), y[:1])
    if failure == "negative_weight":
        return lambda: estimator.partial_fit(Z[:2], y[:2],
                                             sample_weight=[1.0, -1.0])
    assert failure == "huge_row"
    # May fail (an overflow) or not: both the model and its copy see it.
    huge = row * (1e300 if row.dtype == np.float64 else 1e38)
    return lambda: estimator.partial_fit(huge, y[:1])


def _streamable(estimator):
    return hasattr(estimator, "partial_fit") and not _pairwise(estimator)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
@FAMILY
@given(data=datasets(), failure=st.sampled_from(_FAILURES))
def test_a_failed_call_leaves_the_model_as_it_was(estimator, data, failure):
    X, y, fmt = data
    estimator = _fast(estimator)
    Z = _present(estimator, X, fmt)
    with parallel_config(backend="threading"):
        estimator.fit(Z, y)
        if _streamable(estimator):
            # Arm the lean one-row paths, which update models in place.
            for i in range(3):
                estimator.partial_fit(Z[i:i + 1], y[i:i + 1])
        call = _failing_call(failure, estimator, X, Z, y, fmt)
        if call is None:
            return
        before = _state(estimator)
        twin = pickle.loads(before)
        try:
            call()
        except (ValueError, TypeError):
            assert _state(estimator) == before
        else:
            # Only a huge row may be learned; and negative weights by a
            # scikit-learn base, which judges its weights itself.
            assert failure == "huge_row" or (
                failure == "negative_weight" and not _ours(estimator))
            _failing_call(failure, twin, X, Z, y, fmt)()
        # The next calls match those of the saved copy.
        if _streamable(estimator):
            for i in range(3, 6):
                estimator.partial_fit(Z[i:i + 1], y[i:i + 1])
                twin.partial_fit(Z[i:i + 1], y[i:i + 1])
        np.testing.assert_array_equal(estimator.decision_function(Z),
                                      twin.decision_function(Z))


# ---------------------------------------------------------------------------
# Family 4: persistence in the middle of a stream
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
@FAMILY
@given(data=datasets(), calls=st.integers(1, 6))
def test_a_model_saved_mid_stream_continues_as_the_original(estimator, data,
                                                            calls):
    X, y, fmt = data
    estimator = _fast(estimator)
    Z = _present(estimator, X, fmt)
    with parallel_config(backend="threading"):
        estimator.fit(Z, y)
        if not _streamable(estimator):
            copy = pickle.loads(pickle.dumps(estimator))
            np.testing.assert_array_equal(copy.decision_function(Z),
                                          estimator.decision_function(Z))
            return
        rows = Z
        for i in range(calls):
            estimator.partial_fit(rows[i:i + 1], y[i:i + 1])
        copy = pickle.loads(pickle.dumps(estimator))
        for i in range(calls, calls + 2):  # n >= 8 rows
            estimator.partial_fit(rows[i:i + 1], y[i:i + 1])
            copy.partial_fit(rows[i:i + 1], y[i:i + 1])
        np.testing.assert_array_equal(copy.decision_function(Z),
                                      estimator.decision_function(Z))
        for name in ("n_iter_", "n_mistakes_", "mistakes_per_epoch_"):
            if hasattr(estimator, name):
                assert getattr(copy, name) == getattr(estimator, name)


# ---------------------------------------------------------------------------
# Family 5: extreme but finite magnitudes
# ---------------------------------------------------------------------------

# What a refusal of extreme data names ("infinity": a precomputed Gram
# matrix of such data overflows before the estimator sees it).
_CAUSES = ("overflow", "underflow", "non-finite", "scale", "gamma", "infinity")
# ... and, when that overflow adds an infinity to its opposite in a sum of
# products, the NaN it made.
_GRAM_CAUSES = _CAUSES + ("nan",)


@pytest.mark.parametrize("estimator", [e for e in ESTIMATORS if _ours(e)],
                         ids=[i for e, i in zip(ESTIMATORS, IDS) if _ours(e)])
@FAMILY
@given(data=datasets(), exponent=st.integers(-1000, 1000))
def test_extreme_magnitudes_fit_or_name_the_cause(estimator, data, exponent):
    X, y, fmt = data
    estimator = _fast(estimator)
    X = np.ldexp(X, exponent)
    Z = _present(estimator, X, "dense" if fmt == "dense32" else fmt)
    with parallel_config(backend="threading"):
        try:
            with np.errstate(all="ignore"):
                estimator.fit(Z, y)
                decision = np.asarray(estimator.decision_function(Z))
        except ValueError as error:
            message = str(error).lower()
            causes = _GRAM_CAUSES if _pairwise(estimator) and np.isnan(
                Z).any() else _CAUSES
            assert any(cause in message for cause in causes), message
            return
    assert not np.any(np.isnan(decision))


def _invariant_estimators():
    """Estimators whose predictions do not change when X is scaled by a
    power of two (every sum scales exactly): no intercept, threshold 0."""
    return [
        Perceptron(fit_intercept=False, shuffle=False, max_iter=20),
        Perceptron(fit_intercept=False, max_iter=20,
                   multi_class="crammer_singer"),
        OneVsAllPerceptron(Perceptron(fit_intercept=False, max_iter=20)),
        # Not OneVsOnePerceptron: its tie-break, votes + s / (3 (|s| + 1)),
        # saturates at 1/3 for large confidences s, so ties among classes
        # of equal votes depend on the scale.
        KernelPerceptron(kernel="linear", fit_intercept=False, max_iter=20),
        KernelPerceptron(kernel="cosine", max_iter=20),
        VotedPerceptron(fit_intercept=False, max_iter=5),
    ]


@pytest.mark.parametrize("estimator", _invariant_estimators(), ids=repr)
@settings(max_examples=15, deadline=None, database=None)
@given(data=datasets(), exponent=st.integers(-200, 200))
def test_scale_free_estimators_predict_the_same_on_scaled_data(
        estimator, data, exponent):
    X, y, fmt = data
    X = np.round(X, 3)  # no entry so small that its scaled copy is subnormal
    X[X == 0] = 0.5
    model = clone(estimator).fit(X, y)
    scaled = clone(estimator).fit(np.ldexp(X, exponent), y)
    np.testing.assert_array_equal(scaled.predict(np.ldexp(X, exponent)),
                                  model.predict(X))


@settings(max_examples=25, deadline=None, database=None)
@given(seed=st.integers(0, 2**16), exponent=st.integers(-900, 900),
       infeasible=st.booleans())
def test_solvers_answer_the_same_on_rows_scaled_by_a_power_of_two(
        seed, exponent, infeasible):
    """The smooth solvers read the unit rows ``a_i / ||a_i||``, the same for
    ``A * 2**k`` bit for bit, also when rows of extreme norms are scaled
    internally; the perceptron's iterate scales with A while the norms stay
    in range; the relaxation method on ``(A, b) * 2**k`` takes the same
    steps.  Certificates bound ``||A.T @ x||``: their tol scales with A."""
    rng = np.random.default_rng(seed)
    A, b = _feasible_system(rng, 10, 3)
    A = np.round(A, 2)
    A[A == 0] = 0.25
    if infeasible:
        A = np.vstack([A, -A[:1]])
        b = np.append(b, -b[0] - 1.0)
    S = np.ldexp(A, exponent)
    # Beyond about 2**500 (or 2**-500) the squared row norms leave float64
    # and the rows are scaled internally.
    in_range = abs(exponent) < 450
    tol = float(np.ldexp(1e-6, exponent))
    for solve in (feasibility.smooth_perceptron,
                  feasibility.perceptron_von_neumann,
                  feasibility.rescaled_perceptron):
        if solve is feasibility.smooth_perceptron:
            reference, res = solve(A, max_iter=400), solve(S, max_iter=400)
        else:
            reference = solve(A, tol=1e-6, max_iter=400)
            res = solve(S, tol=tol, max_iter=400)
        if res.status == 0:
            assert np.all(S @ res.x > 0)
        if res.status == 2:
            x = res.certificate
            assert np.all(x >= 0) and np.isclose(x.sum(), 1.0)
            assert np.linalg.norm(np.ldexp(A, 0).T @ x) <= 1e-6 * (1 + 1e-9)
        if solve is not feasibility.rescaled_perceptron:
            assert res.status == reference.status
            assert res.nit == reference.nit
            np.testing.assert_array_equal(res.x, reference.x)
        elif in_range:
            # Its change of variables is normalized by the largest row norm,
            # so its w scales by 2**-k (internal scaling changes that norm).
            assert res.status == reference.status
            assert res.nit == reference.nit
            np.testing.assert_array_equal(res.x,
                                          np.ldexp(reference.x, -exponent)
                                          if res.n_rescalings else reference.x)
    reference = feasibility.perceptron_feasibility(A, max_iter=300)
    res = feasibility.perceptron_feasibility(S, max_iter=300)
    assert res.status == reference.status
    if res.status == 0:
        assert np.all(S @ res.x > 0)
    if in_range:
        np.testing.assert_array_equal(res.x, np.ldexp(reference.x, exponent))
        reference = feasibility.relaxation_method(A, b, max_iter=300)
        res = feasibility.relaxation_method(
            S, np.ldexp(b, exponent), max_iter=300,
            tol=float(np.ldexp(1e-8, exponent)))
        assert res.status == reference.status and res.nit == reference.nit
        np.testing.assert_array_equal(res.x, reference.x)
