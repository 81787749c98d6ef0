# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""``Perceptron(multi_class="crammer_singer")`` (issue #20, part 1).

The oracle is the multiclass perceptron in NumPy, one sample at a time, on
the padded vectors ``[x; 1]``: one weight row per class, every score
recomputed at every visit, the average taken over every visit.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_blobs, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_perceptrons import Perceptron
from sklearn_perceptrons.bounds import max_margin, mistake_bound
from sklearn_perceptrons._core.training import epoch_order

from _reference import padded


def reference_crammer_singer(X, y_class, n_classes, orders, *, update,
                             threshold=0.0, steps=None, fit_intercept=True):
    """Padded weights (n_classes, n_features [+ 1]), their average over every
    visit, and the mistakes per epoch; stops after an epoch without one."""
    Xp = padded(X, fit_intercept)
    n = Xp.shape[0]
    steps = np.ones(n) if steps is None else np.asarray(steps, dtype=float)
    W = np.zeros((n_classes, Xp.shape[1]))
    total, visits, per_epoch = np.zeros_like(W), 0, []
    for order in orders:
        mistakes = 0
        for i in order:
            visits += 1
            f = W @ Xp[i]
            c = y_class[i]
            violators = [r for r in range(n_classes)
                         if r != c and f[c] - f[r] <= threshold]
            if violators and steps[i] != 0:
                mistakes += 1
                W[c] += steps[i] * Xp[i]
                if update == "max":
                    # Highest score, ties to the lowest index.
                    top = max(violators, key=lambda r: (f[r], -r))
                    W[top] -= steps[i] * Xp[i]
                else:
                    for r in violators:
                        W[r] -= (steps[i] / len(violators)) * Xp[i]
            total += W
        per_epoch.append(mistakes)
        if mistakes == 0:
            break
    return W, total / visits, per_epoch


def _data(n_classes, seed=0, n=80, n_features=5):
    X, y = make_classification(
        n_samples=n, n_features=n_features, n_informative=3, n_redundant=0,
        n_classes=n_classes, n_clusters_per_class=1, flip_y=0.05,
        random_state=seed,
    )
    return X, y


def _fit(clf, X, y, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clf.fit(X, y, **kwargs)


def _public(W):
    """The (coef_, intercept_) the estimator exposes for padded rows W."""
    if W.shape[0] == 2:
        W = W[1:] - W[:1]
    return W[:, :-1], W[:, -1]


@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n_classes", [2, 3, 4])
@pytest.mark.parametrize("update", ["max", "uniform"])
def test_matches_the_reference(update, n_classes, sparse, average):
    X, y = _data(n_classes)
    epochs = 7
    W, W_avg, per_epoch = reference_crammer_singer(
        X, y, n_classes, [np.arange(len(y))] * epochs, update=update)
    clf = Perceptron(multi_class="crammer_singer", update=update,
                     shuffle=False, tol=None, max_iter=epochs, average=average)
    _fit(clf, sp.csr_matrix(X) if sparse else X, y)
    coef, intercept = _public(W_avg if average else W)
    assert_allclose(clf.coef_, coef, rtol=1e-10, atol=1e-10)
    assert_allclose(clf.intercept_, intercept, rtol=1e-10, atol=1e-10)
    # A mistake counts once, however many rows it moves.
    assert clf.mistakes_per_epoch_ == per_epoch
    assert clf.n_mistakes_ == sum(per_epoch)
    assert clf.n_iter_ == len(per_epoch)
    assert clf.converged_ == (per_epoch[-1] == 0)
    assert clf.coef_.shape == ((1, 5) if n_classes == 2 else (n_classes, 5))


@pytest.mark.parametrize("update", ["max", "uniform"])
def test_shuffled_epochs_and_threshold_match_the_reference(update):
    X, y = _data(3, seed=1)
    rng = check_random_state(3)
    orders = [epoch_order(np.arange(len(y), dtype=np.int32), True, rng)
              for _ in range(5)]
    W, _, per_epoch = reference_crammer_singer(
        X, y, 3, orders, update=update, threshold=0.5, fit_intercept=False)
    clf = _fit(Perceptron(multi_class="crammer_singer", update=update,
                          threshold=0.5, fit_intercept=False, tol=None,
                          max_iter=5, random_state=3), X, y)
    assert_allclose(clf.coef_, W, rtol=1e-10, atol=1e-10)
    assert_array_equal(clf.intercept_, 0.0)
    assert clf.mistakes_per_epoch_ == per_epoch


@pytest.mark.parametrize("update", ["max", "uniform"])
def test_sample_and_class_weights_scale_the_steps(update):
    X, y = _data(4, seed=2)
    rng = np.random.RandomState(0)
    sample_weight = rng.uniform(0, 2, size=len(y))
    sample_weight[::7] = 0.0
    class_weight = {0: 1.0, 1: 2.0, 2: 0.5, 3: 1.5}
    eta0 = 0.3
    steps = eta0 * sample_weight * np.array([class_weight[c] for c in y])
    W, W_avg, per_epoch = reference_crammer_singer(
        X, y, 4, [np.arange(len(y))] * 5, update=update, steps=steps)
    clf = _fit(Perceptron(multi_class="crammer_singer", update=update,
                          shuffle=False, tol=None, max_iter=5, eta0=eta0,
                          class_weight=class_weight, average=True),
               X, y, sample_weight=sample_weight)
    coef, intercept = _public(W_avg)
    assert_allclose(clf.coef_, coef, rtol=1e-10, atol=1e-12)
    assert_allclose(clf.intercept_, intercept, rtol=1e-10, atol=1e-12)
    assert clf.mistakes_per_epoch_ == per_epoch


@pytest.mark.parametrize("update", ["max", "uniform"])
def test_float32_keeps_its_dtype_and_matches_float64(update):
    # Small integer features: the scores are exact in both precisions, so
    # the same samples update and only the uniform shares round.
    rng = np.random.RandomState(0)
    X = rng.randint(-4, 5, size=(60, 6)).astype(np.float64)
    y = rng.randint(0, 3, size=60)
    clf64 = _fit(Perceptron(multi_class="crammer_singer", update=update,
                            shuffle=False, tol=None, max_iter=4), X, y)
    clf32 = _fit(Perceptron(multi_class="crammer_singer", update=update,
                            shuffle=False, tol=None, max_iter=4),
                 X.astype(np.float32), y)
    assert clf32.coef_.dtype == np.float32
    assert clf32.mistakes_per_epoch_ == clf64.mistakes_per_epoch_
    assert_allclose(clf32.coef_, clf64.coef_, rtol=1e-5, atol=1e-5)
    assert_allclose(clf32.intercept_, clf64.intercept_, rtol=1e-5, atol=1e-5)
    X32s = sp.csr_matrix(X.astype(np.float32))
    clf32s = _fit(Perceptron(multi_class="crammer_singer", update=update,
                             shuffle=False, tol=None, max_iter=4), X32s, y)
    assert_allclose(clf32s.coef_, clf32.coef_, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("update", ["max", "uniform"])
def test_partial_fit_pass_is_one_epoch_of_fit(update, n_classes):
    X, y = _data(n_classes, seed=4)
    params = dict(multi_class="crammer_singer", update=update, average=True)
    fitted = _fit(Perceptron(shuffle=False, tol=None, max_iter=2, **params),
                  X, y)
    online = Perceptron(**params)
    online.partial_fit(X, y, classes=np.unique(y))
    online.partial_fit(X, y)
    assert_array_equal(online.coef_, fitted.coef_)
    assert_array_equal(online.intercept_, fitted.intercept_)
    assert online.mistakes_per_epoch_ == fitted.mistakes_per_epoch_
    assert online.n_mistakes_ == fitted.n_mistakes_


def test_binary_decision_is_the_difference_of_the_two_rows():
    X, y = _data(2, seed=5)
    labels = np.array(["no", "yes"])[y]
    clf = _fit(Perceptron(multi_class="crammer_singer", max_iter=5), X, labels)
    rows = clf._state.model()
    scores = X @ rows[0].T + rows[1]
    decision = clf.decision_function(X)
    assert decision.shape == (len(y),)
    assert_allclose(decision, scores[:, 1] - scores[:, 0], rtol=1e-12,
                    atol=1e-12)
    assert_array_equal(clf.predict(X), clf.classes_[scores.argmax(axis=1)])


def test_multiclass_predict_is_the_argmax():
    X, y = _data(4, seed=6)
    clf = _fit(Perceptron(multi_class="crammer_singer", update="uniform",
                          max_iter=5), X, y)
    scores = clf.decision_function(X)
    assert scores.shape == (len(y), 4)
    assert_array_equal(clf.predict(X), clf.classes_[scores.argmax(axis=1)])


@pytest.mark.parametrize("n_classes", [2, 3])
def test_ovr_is_unchanged_and_ignores_update(n_classes):
    X, y = _data(n_classes, seed=7)
    default = _fit(Perceptron(max_iter=6, average=True), X, y)
    for update in ("max", "uniform"):
        ovr = _fit(Perceptron(max_iter=6, average=True, multi_class="ovr",
                              update=update), X, y)
        assert_array_equal(ovr.coef_, default.coef_)
        assert ovr.mistakes_per_epoch_ == default.mistakes_per_epoch_


def test_early_stopping_stops_the_rows_together():
    X, y = _data(4, seed=8, n=200)
    clf = _fit(Perceptron(multi_class="crammer_singer", early_stopping=True,
                          n_iter_no_change=2, max_iter=200), X, y)
    # One stopping rule for all rows: every epoch ran on every row.
    assert len(clf.mistakes_per_epoch_) == clf.n_iter_
    assert clf.n_iter_ < 200
    assert clf.score(X, y) > 0.5


def test_a_separable_fit_converges_without_a_warning():
    rng = np.random.RandomState(0)
    centers = np.array([[4.0, 0.0], [-4.0, 0.0], [0.0, 4.0], [0.0, -4.0]])
    y = rng.randint(0, 4, size=120)
    X = centers[y] + rng.uniform(-1, 1, size=(120, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = Perceptron(multi_class="crammer_singer", tol=None).fit(X, y)
    assert clf.converged_
    assert clf.mistakes_per_epoch_[-1] == 0
    assert clf.score(X, y) == 1.0


def test_errors():
    X, y = _data(2, seed=9)
    with pytest.raises(InvalidParameterError):
        Perceptron(multi_class="ovo").fit(X, y)
    with pytest.raises(InvalidParameterError):
        Perceptron(multi_class="crammer_singer", update="all").fit(X, y)
    clf = Perceptron(max_iter=3, tol=None, shuffle=False)
    _fit(clf, X, y)
    before = clf.coef_.copy()
    clf.set_params(multi_class="crammer_singer")
    with pytest.raises(ValueError, match="multi_class"):
        clf.partial_fit(X, y)
    assert_array_equal(clf.coef_, before)
    clf.set_params(warm_start=True)
    with pytest.raises(ValueError, match="multi_class"):
        clf.fit(X, y)
    assert_array_equal(clf.coef_, before)
    with pytest.raises(ValueError, match="coef_init"):
        Perceptron(multi_class="crammer_singer").fit(
            X, y, coef_init=np.zeros((1, X.shape[1])))
    # Overflowing margins: a clear error, never NaN weights.
    X_huge = np.array([[1e308, 1e308], [-1e308, 1e308], [1e308, -1e308]])
    for update in ("max", "uniform"):
        with pytest.raises(ValueError, match="overflowed"):
            Perceptron(multi_class="crammer_singer", update=update,
                       max_iter=3).fit(X_huge, [0, 1, 2])


# -- the multiclass margin and Novikoff bound (Kesler construction) ---------


def _kesler_margins(X, y_class, coef, intercept):
    """(w_{y_i} - w_k) . x~_i for every i and k != y_i."""
    scores = X @ coef.T + intercept
    own = scores[np.arange(len(y_class)), y_class]
    others = scores.copy()
    others[np.arange(len(y_class)), y_class] = -np.inf
    return own[:, None] - others


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_two_class_margin_is_sqrt2_times_the_binary_margin(fit_intercept):
    # Rows w_1 = -w_0 = u / sqrt(2) of the binary optimum u are optimal.
    rng = np.random.RandomState(0)
    X = rng.randn(30, 3)
    y = (X @ [1.0, -2.0, 0.5] + 0.3 > 0).astype(int)
    gamma2, _, _ = max_margin(X, y, fit_intercept=fit_intercept)
    gamma, W, b = max_margin(X, y, fit_intercept=fit_intercept,
                             multi_class="crammer_singer")
    assert gamma2 > 0
    assert gamma == pytest.approx(np.sqrt(2) * gamma2, rel=1e-9)
    assert W.shape == (2, 3) and b.shape == (2,)
    assert mistake_bound(X, y, fit_intercept=fit_intercept,
                         multi_class="crammer_singer") == pytest.approx(
        mistake_bound(X, y, fit_intercept=fit_intercept), rel=1e-8)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_multiclass_margin_is_achieved_and_sparse_agrees(fit_intercept):
    X, y = make_blobs(n_samples=40, centers=[[5, 0], [-5, 0], [0, 5]],
                      cluster_std=0.7, random_state=0)
    gamma, W, b = max_margin(X, y, fit_intercept=fit_intercept,
                             multi_class="crammer_singer")
    assert gamma > 0
    assert np.sum(W**2) + np.sum(b**2) == pytest.approx(1.0)
    achieved = _kesler_margins(X, y, W, b if fit_intercept else 0.0).min()
    assert achieved == pytest.approx(gamma, rel=1e-9)
    gamma_s, W_s, _ = max_margin(sp.csr_matrix(X), y,
                                 fit_intercept=fit_intercept,
                                 multi_class="crammer_singer")
    assert gamma_s == pytest.approx(gamma, rel=1e-9)
    # No other unit W does better: random unit directions never beat gamma.
    rng = np.random.RandomState(1)
    for _ in range(200):
        V = W + 0.1 * rng.randn(*W.shape)
        c = b + 0.1 * rng.randn(3) if fit_intercept else np.zeros(3)
        norm = np.sqrt(np.sum(V**2) + np.sum(c**2))
        assert _kesler_margins(X, y, V / norm, c / norm).min() <= gamma + 1e-12


def test_not_separable_gives_zero_margin_and_infinite_bound():
    X = [[0.0], [1.0], [2.0], [3.0]]
    y = [0, 1, 0, 2]
    assert max_margin(X, y, multi_class="crammer_singer")[0] == 0.0
    assert mistake_bound(X, y, multi_class="crammer_singer") == np.inf
    with pytest.raises(ValueError, match="coef_init"):
        mistake_bound(X, y, multi_class="crammer_singer",
                      coef_init=np.zeros((2, 1)))
    with pytest.raises(ValueError, match="at least 2 classes"):
        mistake_bound(X, [0, 0, 0, 0], multi_class="crammer_singer")


@st.composite
def _separable_multiclass(draw):
    n_classes = draw(st.integers(2, 4))
    n_features = draw(st.integers(1, 3))
    n = draw(st.integers(n_classes, 25))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.RandomState(seed)
    W = rng.randn(n_classes, n_features + 1)
    X = rng.uniform(-3, 3, size=(4 * n, n_features))
    scores = X @ W[:, :-1].T + W[:, -1]
    top2 = np.sort(scores, axis=1)[:, -2:]
    keep = (top2[:, 1] - top2[:, 0]) > 0.3
    X, y = X[keep][:n], scores[keep][:n].argmax(axis=1)
    return X, y, draw(st.booleans()), draw(st.sampled_from(["max", "uniform"]))


@settings(max_examples=25, deadline=None)
@given(_separable_multiclass())
def test_updates_never_exceed_the_multiclass_novikoff_bound(case):
    X, y, shuffle, update = case
    assume(len(np.unique(y)) >= 2)
    bound = mistake_bound(X, y, multi_class="crammer_singer")
    assume(np.isfinite(bound))
    clf = Perceptron(multi_class="crammer_singer", update=update, threshold=0,
                     shuffle=shuffle, tol=None, max_iter=int(bound) + 2,
                     random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf.fit(X, y)
    assert clf.converged_
    assert clf.n_mistakes_ <= bound * (1 + 1e-9)
    assert clf.score(X, y) == 1.0


def test_one_vs_all_and_parameter_mixing_of_a_crammer_singer_base():
    from sklearn_perceptrons import OneVsAllPerceptron

    X, y = _data(3, seed=10)
    base = Perceptron(multi_class="crammer_singer", max_iter=5)
    # The generic path: each binary estimator is a two-row Crammer-Singer fit.
    ova = _fit(OneVsAllPerceptron(base), X, y)
    for k, estimator in enumerate(ova.estimators_):
        alone = _fit(Perceptron(multi_class="crammer_singer", max_iter=5), X,
                     (y == k).astype(int))
        assert_array_equal(estimator.coef_, alone.coef_)
    distributed = pytest.importorskip("sklearn_perceptrons.distributed")
    with pytest.raises(ValueError, match="crammer_singer"):
        distributed.ParameterMixing(base).fit(X, y)


def test_early_stopping_keeps_the_best_epoch_of_all_rows():
    from sklearn_perceptrons._core.training import validation_split

    X, y = _data(4, seed=11, n=150)
    _, val_idx = validation_split(len(y), 0.2, check_random_state(0))
    accuracies = []
    for epochs in range(1, 7):
        clf = _fit(Perceptron(multi_class="crammer_singer", update="uniform",
                              early_stopping=True, validation_fraction=0.2,
                              tol=None, max_iter=epochs), X, y)
        accuracies.append(clf.score(X[val_idx], y[val_idx]))
    # The kept model is the best so far: its accuracy never goes down.
    assert all(b >= a for a, b in zip(accuracies, accuracies[1:]))
    # ...and it is a trained model (w = 0 would predict class 0 only).
    assert accuracies[-1] > 0.6


def test_warm_start_continues_the_rows():
    X, y = _data(3, seed=12)
    params = dict(multi_class="crammer_singer", shuffle=False, tol=None)
    whole = _fit(Perceptron(max_iter=5, **params), X, y)
    clf = _fit(Perceptron(max_iter=2, warm_start=True, **params), X, y)
    clf.set_params(max_iter=3)
    _fit(clf, X, y)
    assert_array_equal(clf.coef_, whole.coef_)
    assert_array_equal(clf.intercept_, whole.intercept_)


def test_verbose_prints_one_line_per_epoch(capsys):
    X, y = _data(3, seed=13)
    _fit(Perceptron(multi_class="crammer_singer", verbose=1, max_iter=3,
                    tol=None), X, y)
    assert capsys.readouterr().out.count("-- Epoch") == 3


@pytest.mark.parametrize("n_classes", [2, 4])
def test_a_stream_of_single_rows_equals_one_batch(n_classes):
    X, y = _data(n_classes, seed=14, n=40)
    params = dict(multi_class="crammer_singer", update="uniform", average=True)
    batch = Perceptron(**params).partial_fit(X, y, classes=np.unique(y))
    stream = Perceptron(**params)
    stream.partial_fit(X[:1], y[:1], classes=np.unique(y))
    for i in range(1, len(y)):
        stream.partial_fit(X[i : i + 1], y[i : i + 1])
    assert_allclose(stream.coef_, batch.coef_, rtol=1e-12, atol=1e-12)
    assert_allclose(stream.intercept_, batch.intercept_, rtol=1e-12, atol=1e-12)
    assert stream.n_mistakes_ == batch.n_mistakes_
