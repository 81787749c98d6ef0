# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The budgeted walk of KernelPerceptron (``_kernel/budget.py``).

The oracle is a NumPy transcription of the definitions: every score
recomputed from the Gram matrix, the removed vector's coefficients carried
by an explicit least-squares projection (``np.linalg.solve`` / ``inv``),
the average as the explicit mean of the iterates.
"""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_digits, make_classification, make_moons
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.preprocessing import StandardScaler

from sklearn_perceptrons import KernelPerceptron
from sklearn_perceptrons._core import progress
from sklearn_perceptrons._kernel import budget as _kernel_budget
from sklearn_perceptrons._kernel.budget import NEIGHBOURS, RIDGE

ALL_STRATEGIES = ["local_projection", "projection", "forgetron", "random",
                  "oldest"]
PROJECTIONS = ["local_projection", "projection"]


def binary_data(n=80, n_features=4, seed=0):
    X, y = make_classification(n, n_features, n_informative=2, n_redundant=0,
                               flip_y=0.1, random_state=seed)
    return X, y


def multiclass_data(n=90, seed=0):
    X, y = make_classification(n, 5, n_informative=3, n_redundant=0,
                               n_classes=3, n_clusters_per_class=1,
                               flip_y=0.1, random_state=seed)
    return X, y


def reference_budgeted(gram, y_class, n_classes, orders, *, budget, strategy,
                       step, threshold=0.0, average=False):
    """The budgeted kernel perceptron with the projection strategies, from
    the definitions.  ``gram`` is the padded Gram matrix over all rows.
    Returns the (n, n_rows) dual coefficients of the model."""
    n = gram.shape[0]
    n_rows = 1 if n_classes == 2 else n_classes
    signs = (np.array([[-1.0], [1.0]]) if n_classes == 2
             else np.where(np.eye(n_classes, dtype=bool), 1.0, -1.0))
    alpha = np.zeros((n, n_rows))
    history = np.zeros((n, n_rows))
    visits = 0
    support = []
    for order in orders:
        for i in order:
            s = signs[y_class[i]]
            score = gram[i, support] @ alpha[support] if support else np.zeros(
                n_rows)
            update = (s * score <= threshold) & (step[i] != 0)
            if update.any():
                if i not in support and len(support) >= budget:
                    idx = np.array(support)
                    if strategy == "projection":
                        P = np.linalg.inv(gram[np.ix_(idx, idx)]
                                          + RIDGE * np.eye(len(idx)))
                        loss = (alpha[idx] ** 2).sum(1) / np.diag(P)
                        q = int(np.argmin(loss))
                        r = support[q]
                        keep = [p for p in range(len(idx)) if p != q]
                        near = idx[keep]
                        coef = -P[keep, q] / P[q, q]
                    else:
                        loss = (alpha[idx] ** 2).sum(1) * np.diag(gram)[idx]
                        q = int(np.argmin(loss))
                        r = support[q]
                        kept = [j for j in support if j != r]
                        near = sorted(kept, key=lambda j: -(
                            gram[r, j] ** 2 / gram[j, j]))[:NEIGHBOURS]
                        coef = np.linalg.solve(
                            gram[np.ix_(near, near)] + RIDGE * np.eye(len(near)),
                            gram[near, r])
                    alpha[near] += coef[:, None] * alpha[r]
                    history[near] += coef[:, None] * history[r]
                    alpha[r] = 0.0
                    history[r] = 0.0
                    support[q] = i
                elif i not in support:
                    support.append(i)
                alpha[i] += np.where(update, step[i] * s, 0.0)
            visits += 1
            history += alpha
    return history / max(visits, 1) if average else alpha


def dense_coef(est, n):
    coef = np.zeros((n, est.dual_coef_.shape[0]))
    coef[est.support_] = est.dual_coef_.T
    return coef


@pytest.mark.parametrize("strategy", PROJECTIONS)
@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("multiclass", [False, True])
@pytest.mark.parametrize("kernel", ["rbf", "precomputed"])
def test_carried_coefficients_match_numpy_projection(strategy, average,
                                                     multiclass, kernel):
    # A precomputed Gram matrix takes the same budgeted walk: the entry of
    # the visited row and a support vector's training row is their kernel
    # value.
    X, y = multiclass_data(60) if multiclass else binary_data(60)
    classes, y_class = np.unique(y, return_inverse=True)
    step = np.random.RandomState(0).uniform(0.5, 1.5, size=X.shape[0])
    gamma, budget = 0.3, 12
    gram = pairwise_kernels(X, metric="rbf", gamma=gamma)
    clf = KernelPerceptron(kernel=kernel, gamma=gamma, budget=budget,
                           budget_strategy=strategy, average=average,
                           threshold=0.2, shuffle=False, tol=None, max_iter=3)
    clf.fit(gram if kernel == "precomputed" else X, y, sample_weight=step)
    expected = reference_budgeted(
        gram + 1.0, y_class, len(classes), [np.arange(X.shape[0])] * 3,
        budget=budget, strategy=strategy, step=step, threshold=0.2,
        average=average)
    # The case matters: removals happened and carried something.
    assert clf.n_mistakes_ > 3 * budget
    assert clf._max_support_seen == budget
    assert_allclose(dense_coef(clf, X.shape[0]), expected, rtol=1e-7,
                    atol=1e-9)
    if kernel == "precomputed":
        assert_array_equal(clf.support_vectors_, gram[clf.support_])


@pytest.mark.parametrize("strategy", ALL_STRATEGIES)
@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("multiclass", [False, True])
def test_budget_never_exceeded(strategy, average, multiclass):
    X, y = multiclass_data(120) if multiclass else binary_data(120)
    budget = 9
    params = dict(budget=budget, budget_strategy=strategy, average=average)
    clf = KernelPerceptron(max_iter=4, **params).fit(X, y)
    assert clf._max_support_seen == budget
    assert clf.dual_coef_.shape[1] <= budget == clf.support_vectors_.shape[0]
    online = KernelPerceptron(**params)
    for i in range(X.shape[0]):
        online.partial_fit(X[i : i + 1], y[i : i + 1], classes=np.unique(y))
        assert online.support_vectors_.shape[0] <= budget
        assert online.dual_coef_.shape[1] == online.support_vectors_.shape[0]
    assert online._max_support_seen == budget


@pytest.mark.parametrize("strategy", PROJECTIONS)
@pytest.mark.parametrize("multiclass", [False, True])
def test_partial_fit_pass_equals_one_epoch(strategy, multiclass):
    X, y = multiclass_data(70) if multiclass else binary_data(70)
    params = dict(average=True, budget=9, budget_strategy=strategy,
                  threshold=0.2, gamma=0.3)
    epoch = KernelPerceptron(max_iter=1, shuffle=False, tol=None,
                             **params).fit(X, y)
    online = KernelPerceptron(**params)
    for start in range(0, X.shape[0], 7):
        online.partial_fit(X[start : start + 7], y[start : start + 7],
                           classes=np.unique(y))
    assert_allclose(online.support_vectors_, X[epoch.support_])
    assert_allclose(online.dual_coef_, epoch.dual_coef_, rtol=1e-7, atol=1e-9)
    assert online.n_mistakes_ == epoch.n_mistakes_


@pytest.mark.parametrize("strategy", ["local_projection", "forgetron"])
def test_csr_and_float32_agree_with_dense(strategy):
    X, y = multiclass_data(90)
    params = dict(budget=15, budget_strategy=strategy, average=True,
                  max_iter=5)
    ref = KernelPerceptron(**params).fit(X, y)
    csr = KernelPerceptron(**params).fit(sp.csr_matrix(X), y)
    assert sp.issparse(csr.support_vectors_)
    assert_array_equal(csr.support_, ref.support_)
    assert_allclose(csr.dual_coef_, ref.dual_coef_, rtol=1e-7, atol=1e-9)
    assert_allclose(csr.support_vectors_.toarray(), ref.support_vectors_)
    f32 = KernelPerceptron(**params).fit(X.astype(np.float32), y)
    assert f32.support_vectors_.dtype == np.float32
    assert np.mean(f32.predict(X) == ref.predict(X)) >= 0.95


def test_fit_does_not_copy_float32_X():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((20000, 50)).astype(np.float32)
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    clf = KernelPerceptron(budget=30, max_iter=1, tol=None)
    tracemalloc.start()
    clf.fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # Labels, weights and the epoch's order: O(n_samples) small arrays, no
    # copy of X (4 MB).
    assert peak < 0.5 * X.nbytes


def test_averaging_keeps_what_was_learned():
    # P12-like: digits, 10 classes, budget a fifth of the unbudgeted support.
    X, y = load_digits(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    train, test = slice(0, 1200), slice(1200, None)
    scores = {}
    for average in (False, True):
        clf = KernelPerceptron(budget=100, average=average).fit(X[train], y[train])
        scores[average] = clf.score(X[test], y[test])
    assert scores[True] >= scores[False] - 0.01
    assert scores[False] >= 0.85


def test_deterministic_random_state():
    X, y = binary_data(150)
    params = dict(budget=10, max_iter=4)
    a = KernelPerceptron(random_state=3, **params).fit(X, y)
    b = KernelPerceptron(random_state=3, **params).fit(X, y)
    c = KernelPerceptron(random_state=4, **params).fit(X, y)
    assert_array_equal(a.dual_coef_, b.dual_coef_)
    assert_array_equal(a.support_, b.support_)
    assert not (np.array_equal(a.support_, c.support_)
                and np.array_equal(a.dual_coef_, c.dual_coef_))


def test_verbose_reports_progress_within_an_epoch(capsys, monkeypatch):
    monkeypatch.setattr(_kernel_budget, "_CHUNK", 100)
    monkeypatch.setattr(progress, "PROGRESS_SECONDS", 0.0)
    X, y = make_moons(500, noise=0.2, random_state=0)
    KernelPerceptron(budget=20, verbose=1, max_iter=2, tol=None).fit(X, y)
    lines = capsys.readouterr().out.strip().splitlines()
    within = [line for line in lines if " samples, " in line]
    assert len(within) == 8  # 4 chunk boundaries per epoch
    assert within[0].startswith("-- Epoch 1 of 2: 100 of 500 samples, updates ")


def test_budget_at_least_the_data_keeps_the_unbudgeted_walk():
    X, y = binary_data(50)
    free = KernelPerceptron(max_iter=5).fit(X, y)
    roomy = KernelPerceptron(max_iter=5, budget=50).fit(X, y)
    assert_array_equal(roomy.dual_coef_, free.dual_coef_)


def exact_rbf(gamma):
    """An rbf kernel whose value for a pair does not depend on the other
    rows of the call (no BLAS blocking): blocks and one Gram matrix agree
    bit for bit."""
    def kernel(A, B):
        return np.exp(-gamma * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))
    return kernel


def test_precomputed_float32_gram_is_read_in_place():
    # A float32 Gram matrix is walked as it is (no float64 copy of it).
    X, y = make_moons(300, noise=0.2, random_state=0)
    gram = pairwise_kernels(X, metric="rbf", gamma=1.0)
    gram32 = gram.astype(np.float32)
    params = dict(kernel="precomputed", budget=20, max_iter=4, random_state=0)
    ref = KernelPerceptron(**params).fit(gram, y)
    tracemalloc.start()
    f32 = KernelPerceptron(**params).fit(gram32, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < gram32.nbytes / 2
    assert f32.support_vectors_.dtype == np.float32
    assert f32._max_support_seen == 20
    assert_array_equal(f32.support_, ref.support_)
    assert_allclose(f32.decision_function(gram32), ref.decision_function(gram),
                    rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("strategy", ALL_STRATEGIES)
@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("multiclass", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_precomputed_and_callable_budgets_equal_the_builtin_kernel(
        strategy, average, multiclass, weighted, monkeypatch):
    # The same kernel values, three ways in: the same budgeted perceptron
    # (with the default stopping rule, its checks and shuffling).  Blocks of
    # 16 rows make the callable's walk cross many blocks per epoch.
    monkeypatch.setattr(_kernel_budget, "PAIRWISE_BLOCK", 16)
    X, y = multiclass_data(120) if multiclass else binary_data(120)
    weights = (np.random.RandomState(1).uniform(0.5, 2.0, X.shape[0])
               if weighted else None)
    params = dict(budget=9, budget_strategy=strategy, average=average,
                  max_iter=4, random_state=3,
                  class_weight="balanced" if weighted else None)
    builtin = KernelPerceptron(gamma=0.3, **params).fit(X, y, weights)
    gram = pairwise_kernels(X, metric="rbf", gamma=0.3)
    pre = KernelPerceptron(kernel="precomputed", **params).fit(gram, y, weights)
    call = KernelPerceptron(kernel=exact_rbf(0.3), **params).fit(X, y, weights)
    for other in (pre, call):
        assert other._max_support_seen == 9
        assert_array_equal(other.support_, builtin.support_)
        assert_allclose(other.dual_coef_, builtin.dual_coef_, rtol=1e-9,
                        atol=1e-12)
        assert other.n_iter_ == builtin.n_iter_
    assert_array_equal(call.support_vectors_, X[builtin.support_])
    assert_allclose(pre.decision_function(gram), builtin.decision_function(X),
                    rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("strategy", ["local_projection", "forgetron"])
def test_callable_blocks_equal_one_gram_matrix(strategy, monkeypatch):
    # Blocks of a callable read the same values as one precomputed Gram
    # matrix of the same callable: the same model, bit for bit.
    X, y = multiclass_data(90)
    kernel = exact_rbf(0.5)
    params = dict(budget=8, budget_strategy=strategy, average=True,
                  max_iter=3, shuffle=False, tol=None)
    pre = KernelPerceptron(kernel="precomputed", **params).fit(kernel(X, X), y)
    for block in (5, 40, 1024):
        monkeypatch.setattr(_kernel_budget, "PAIRWISE_BLOCK", block)
        call = KernelPerceptron(kernel=kernel, **params).fit(X, y)
        assert_array_equal(call.support_, pre.support_)
        assert_array_equal(call.dual_coef_, pre.dual_coef_)


@pytest.mark.parametrize("strategy", ["local_projection", "projection",
                                      "random"])
def test_callable_partial_fit_equals_the_builtin_kernel(strategy):
    X, y = multiclass_data(70)
    params = dict(average=True, budget=9, budget_strategy=strategy,
                  threshold=0.2, random_state=0)
    builtin = KernelPerceptron(gamma=0.3, **params)
    call = KernelPerceptron(kernel=exact_rbf(0.3), **params)
    for start in range(0, X.shape[0], 7):
        for clf in (builtin, call):
            clf.partial_fit(X[start : start + 7], y[start : start + 7],
                            classes=np.unique(y))
        assert call.support_vectors_.shape[0] <= 9
    assert call._max_support_seen == 9
    assert_array_equal(call.support_vectors_, builtin.support_vectors_)
    assert_allclose(call.dual_coef_, builtin.dual_coef_, rtol=1e-9,
                    atol=1e-12)


def test_callable_warm_start_from_other_data():
    # Support vectors that are not rows of the new X join Z in front of it.
    X, y = binary_data(120)
    params = dict(budget=10, max_iter=3, warm_start=True, random_state=0)
    builtin = KernelPerceptron(gamma=0.3, **params).fit(X[:60], y[:60])
    call = KernelPerceptron(kernel=exact_rbf(0.3), **params).fit(X[:60], y[:60])
    builtin.fit(X[60:], y[60:])
    call.fit(X[60:], y[60:])
    assert call._max_support_seen == 10
    assert_array_equal(call.support_, builtin.support_)
    assert_allclose(call.dual_coef_, builtin.dual_coef_, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("strategy", ["local_projection", "oldest"])
def test_fit_returns_the_best_epoch_not_a_worse_late_one(strategy,
                                                         monkeypatch):
    # With the stopping rule on and one check per epoch, the model returned
    # is the epoch's model that classifies the check rows (here all training
    # rows) best: never worse than the last iterate of the same walk.
    monkeypatch.setattr(_kernel_budget, "CHECKS_PER_EPOCH", 1)
    X, y = make_moons(600, noise=0.3, random_state=1)
    params = dict(budget=15, budget_strategy=strategy, random_state=2)
    ruled = KernelPerceptron(**params).fit(X, y)
    last = KernelPerceptron(max_iter=ruled.n_iter_, tol=None, **params).fit(X, y)
    assert ruled.mistakes_per_epoch_ == last.mistakes_per_epoch_
    assert ruled.score(X, y) >= last.score(X, y)
    firsts = [KernelPerceptron(max_iter=e, tol=None, **params).fit(X, y).score(X, y)
              for e in range(1, ruled.n_iter_ + 1)]
    assert ruled.score(X, y) == max(firsts)


@pytest.mark.parametrize("strategy", ["local_projection", "forgetron"])
@pytest.mark.parametrize("average", [False, True])
def test_fit_keeps_the_best_of_the_quarter_checks(strategy, average,
                                                  monkeypatch):
    # Every epoch checks the model at its quarters and at its end; the fit
    # returns the first of the best-scoring checked models, whose training
    # accuracy (the check rows are all training rows here) is that score.
    # With averaging every check scores the average and the last iterate.
    # (Four checks per epoch, whatever the number of rows: see
    # test_checks_never_score_more_rows_than_an_epoch_visits for the rule.)
    scores = []
    accuracies = _kernel_budget._ModelCheck.accuracies

    def recorded(self, walk):
        result = accuracies(self, walk)
        scores.extend(score for _, score in result)
        return result

    monkeypatch.setattr(_kernel_budget._ModelCheck, "accuracies", recorded)
    monkeypatch.setattr(_kernel_budget, "checks_per_epoch",
                        lambda n, check: _kernel_budget.CHECKS_PER_EPOCH)
    X, y = multiclass_data(300)
    clf = KernelPerceptron(budget=12, budget_strategy=strategy,
                           average=average, random_state=0).fit(X, y)
    assert len(scores) == (8 if average else 4) * clf.n_iter_
    assert clf.score(X, y) == max(scores)
    # Not the last check: the walk swings, and a late model is worse.
    assert max(scores) > scores[-1]


@pytest.mark.parametrize("strategy", ["forgetron", "random", "oldest"])
def test_averaged_fit_never_checks_worse_than_the_plain_fit(strategy):
    # On ten classes nearly every visit removes a vector, and a share of the
    # average carried again and again keeps its intercept while its kernel
    # part fades: the carried average decays towards its intercept.  The
    # iterates of the walk do not depend on averaging, and the averaged fit
    # checks the iterate beside the average, so on the check rows (here all
    # training rows) it classifies at least as well as the plain fit.
    X, y = make_classification(600, 10, n_informative=6, n_classes=10,
                               random_state=0)
    params = dict(budget=20, budget_strategy=strategy, random_state=0)
    plain = KernelPerceptron(average=False, **params).fit(X, y)
    averaged = KernelPerceptron(average=True, **params).fit(X, y)
    assert averaged.mistakes_per_epoch_ == plain.mistakes_per_epoch_
    assert averaged.score(X, y) >= plain.score(X, y)


def test_averaged_fit_returns_the_iterate_when_it_checks_better(monkeypatch):
    # A check that prefers the iterate to the average: the averaged fit
    # returns the iterate (its average equal to it), the plain fit's model.
    def iterate_is_best(self, walk):
        return [(True, 0.0), (False, 1.0)] if self.average else [(False, 1.0)]

    monkeypatch.setattr(_kernel_budget._ModelCheck, "accuracies",
                        iterate_is_best)
    X, y = multiclass_data(200)
    params = dict(budget=15, budget_strategy="oldest", random_state=0)
    plain = KernelPerceptron(average=False, **params).fit(X, y)
    averaged = KernelPerceptron(average=True, **params).fit(X, y)
    assert_array_equal(averaged.dual_coef_, plain.dual_coef_)
    assert_array_equal(averaged.support_, plain.support_)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_checks_start_when_the_support_set_fills_the_budget(monkeypatch):
    # Before the set fills no vector has left it, so the walk is the
    # unbudgeted one and its models are not checked: every check sees the
    # full set.  A check that prefers the first model it sees returns that
    # one, a quarter into the first epoch after the set filled, with the
    # largest support set the fit held.
    calls = []

    def first_is_best(self, walk):
        calls.append(walk.n_sv)
        return [(True, -len(calls)), (False, -len(calls))]

    monkeypatch.setattr(_kernel_budget._ModelCheck, "accuracies", first_is_best)
    monkeypatch.setattr(_kernel_budget, "CHECK_ROWS", 40)
    X, y = binary_data(200)
    clf = KernelPerceptron(budget=30, random_state=0).fit(X, y)
    last = KernelPerceptron(budget=30, random_state=0, tol=None,
                            max_iter=clf.n_iter_).fit(X, y)
    assert len(calls) > 1 and set(calls) == {30}
    assert clf.support_vectors_.shape[0] == 30
    assert clf._max_support_seen == 30
    # The first model checked, not the last one.
    assert not np.array_equal(clf.dual_coef_, last.dual_coef_)


@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_budget_that_never_fills_fits_the_unbudgeted_model(average, seed,
                                                             monkeypatch):
    # The budget is above the largest support set the unbudgeted fit holds
    # (but below the number of rows, so the budgeted walk runs): no check is
    # made, and the fit returns the unbudgeted fit's last model (its support
    # set and, up to the rounding of the kernel values, its coefficients).
    checked = []
    original = _kernel_budget._ModelCheck.accuracies

    def spy(self, walk):
        checked.append(walk.n_sv)
        return original(self, walk)

    monkeypatch.setattr(_kernel_budget._ModelCheck, "accuracies", spy)
    X, y = make_moons(300, noise=0.2, random_state=seed)
    free = KernelPerceptron(average=average, random_state=seed).fit(X, y)
    budget = free.support_.shape[0] + 5
    assert budget < X.shape[0]
    clf = KernelPerceptron(budget=budget, average=average,
                           random_state=seed).fit(X, y)
    assert checked == []
    assert clf.n_iter_ == free.n_iter_
    assert_array_equal(clf.support_, free.support_)
    assert_allclose(clf.dual_coef_, free.dual_coef_, rtol=1e-6, atol=1e-9)
    assert_array_equal(clf.predict(X), free.predict(X))


def test_unweighted_fit_reads_the_step_of_each_class():
    # Without sample weights the walk reads a step per class instead of an
    # array of one step per sample: the same walk, bit for bit.
    X, y = multiclass_data(120)
    weights = {0: 0.5, 1: 2.0, 2: 1.0}
    for params in ({}, {"class_weight": weights}):
        by_class = KernelPerceptron(budget=10, average=True, max_iter=5,
                                    **params).fit(X, y)
        ones = KernelPerceptron(budget=10, average=True, max_iter=5,
                                **params).fit(X, y, sample_weight=np.ones(120))
        assert_array_equal(by_class.support_, ones.support_)
        assert_array_equal(by_class.dual_coef_, ones.dual_coef_)
    as_samples = KernelPerceptron(budget=10, average=True, max_iter=5).fit(
        X, y, sample_weight=np.array([weights[c] for c in y]))
    assert_array_equal(as_samples.dual_coef_, by_class.dual_coef_)


@pytest.mark.parametrize("class_weight", [None, "balanced", {0: 1.0, 1: 2.0}])
def test_fit_extra_memory_is_at_most_X_and_the_budget(class_weight):
    # P11's memory target on a small case: two float64 features make X only
    # 16 bytes a row, so every per-sample array (labels, the epoch's order)
    # weighs; their peak with the budget's state stays within X's size plus
    # O(B * (n_features + n_classes)), class weights included.
    X, y = make_moons(50000, noise=0.2, random_state=0)
    tracemalloc.start()
    KernelPerceptron(budget=50, max_iter=3, class_weight=class_weight).fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= X.nbytes + 200_000


def test_fit_forgets_the_inverse_a_partial_fit_left():
    # Regression: a fit whose budget cannot bind (the unbudgeted walk) kept
    # the inverse Gram matrix that an earlier partial_fit of "projection"
    # left; a later partial_fit on a support set of the same size then
    # projected with that stale inverse.  It must continue as it would from
    # a fresh estimator fitted the same way.
    rs = np.random.RandomState(0)
    X = rs.normal(size=(80, 3))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    params = dict(budget=10, budget_strategy="projection", gamma=0.5,
                  max_iter=20)
    clf = KernelPerceptron(**params)
    for i in range(40):
        clf.partial_fit(X[i : i + 1], y[i : i + 1], classes=[0, 1])
    X_small, y_small = rs.normal(size=(10, 3)), np.array([0, 1] * 5)
    clf.fit(X_small, y_small)
    assert clf.support_vectors_.shape[0] == 10  # the size of the old inverse
    fresh = KernelPerceptron(**params).fit(X_small, y_small)
    clf.partial_fit(X[40:], y[40:])
    fresh.partial_fit(X[40:], y[40:])
    assert_array_equal(clf.dual_coef_, fresh.dual_coef_)


def test_balanced_class_weight_is_scikit_learns():
    # "balanced" from the class counts equals scikit-learn's weights.
    from sklearn.utils import compute_class_weight

    X, y = multiclass_data(91)
    y = np.array(["b", "a", "c"])[y]
    clf = KernelPerceptron(class_weight="balanced")
    classes = np.unique(y)
    y_class = np.searchsorted(classes, y).astype(np.int32)
    assert_array_equal(clf._class_weights(classes, y_class),
                       compute_class_weight("balanced", classes=classes, y=y))


def test_projection_partial_fit_reuses_its_inverse():
    # Row by row, the inverse kept between calls gives the same model as
    # one call on the whole batch (which keeps it up to date in the walk).
    X, y = binary_data(80)
    params = dict(budget=10, budget_strategy="projection", gamma=0.3)
    batch = KernelPerceptron(**params).partial_fit(X, y, classes=[0, 1])
    rows = KernelPerceptron(**params)
    for i in range(X.shape[0]):
        rows.partial_fit(X[i : i + 1], y[i : i + 1], classes=[0, 1])
    assert_allclose(rows.dual_coef_, batch.dual_coef_, rtol=1e-9, atol=1e-12)
    G = pairwise_kernels(rows.support_vectors_, metric="rbf", gamma=0.3) + 1.0
    assert_allclose(rows._budget_inverse,
                    np.linalg.inv(G + RIDGE * np.eye(G.shape[0])), rtol=1e-6)


@pytest.mark.parametrize("kernel", ["rbf", "laplacian", "poly"])
@pytest.mark.parametrize("sparse", [False, True])
def test_avx2_build_equals_baseline_build(kernel, sparse, monkeypatch):
    # The AVX2 twin of the budgeted walk rounds as the baseline build: the
    # same support vectors and coefficients, bit for bit, through removals
    # (binary: one score, a dot product; 3 classes: one score per row).
    import importlib

    from sklearn_perceptrons._core.cpu import cpu_has_avx2

    if not cpu_has_avx2():
        pytest.skip("this CPU has no AVX2")
    try:
        avx2 = importlib.import_module(
            "sklearn_perceptrons._kernel._kernel_budget_fast_avx2")
    except ImportError:
        pytest.skip("the AVX2 build is not available on this platform")
    baseline = importlib.import_module("sklearn_perceptrons._kernel._kernel_budget_fast")
    noise = np.random.RandomState(5).normal(size=(90, 10))
    data = [(np.hstack([X, noise[:, :c]]), y) for (X, y), c in
            ((binary_data(90), 9), (multiclass_data(90), 10))]
    if sparse:
        data = [(sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X)), y)
                for X, y in data]
    results = []
    for module in (avx2, baseline):
        monkeypatch.setattr(_kernel_budget, "_kernel_budget_fast", module)
        fits = []
        for (X, y), strategy in zip(data, ["projection", "local_projection"]):
            clf = KernelPerceptron(kernel=kernel, gamma=0.05, degree=2,
                                   budget=12, budget_strategy=strategy,
                                   average=True, max_iter=4, tol=None)
            clf.fit(X, y)
            fits.append((clf.support_, clf.dual_coef_, clf.n_mistakes_))
        results.append(fits)
    for (_, _, n_mistakes), _ in zip(results[1], data):
        assert n_mistakes > 3 * 12  # removals happened
    for fit_a, fit_b in zip(*results):
        for a, b in zip(fit_a, fit_b):
            assert_array_equal(a, b)


# -- what a budget costs --------------------------------------------------------


@pytest.mark.parametrize("n, check_rows, checks", [(300, 2000, 1), (300, 100, 3),
                                                   (300, 60, 4), (300, 10, 4)])
def test_checks_never_score_more_rows_than_an_epoch_visits(n, check_rows,
                                                           checks, monkeypatch):
    # A check scores its rows from the support vectors, as a visit does: on
    # short epochs four checks of up to CHECK_ROWS rows would cost several
    # times the walk (on 300 rows, four checks of all of them: four epochs'
    # worth of kernel values).  Checks per epoch: at most one per
    # CHECK_ROWS visits, between one and CHECKS_PER_EPOCH.
    sizes = []
    accuracies = _kernel_budget._ModelCheck.accuracies

    def recorded(self, walk):
        sizes.append(self.rows.shape[0])
        return accuracies(self, walk)

    monkeypatch.setattr(_kernel_budget._ModelCheck, "accuracies", recorded)
    monkeypatch.setattr(_kernel_budget, "CHECK_ROWS", check_rows)
    X, y = binary_data(n)
    clf = KernelPerceptron(budget=20, random_state=0).fit(X, y)
    assert len(sizes) == checks * clf.n_iter_
    assert sum(sizes) <= max(n, sizes[0]) * clf.n_iter_


def test_long_rows_read_the_training_gram_matrix(monkeypatch):
    # Rows of many features and a budget near the number of rows: a visit
    # would compute B kernel values of n_features terms each, every epoch;
    # the fit computes the Gram matrix once and the walk reads it (as for
    # "precomputed"), to the same model.  Short rows, a Gram matrix larger
    # than cache_size or a small budget keep the walk on the features.
    kinds = []
    walk = _kernel_budget._BudgetState._walk

    def recorded(self, *args):
        kinds.append(self.params["kind"])  # the kernel's code
        return walk(self, *args)

    monkeypatch.setattr(_kernel_budget._BudgetState, "_walk", recorded)
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 200))
    y = (X[:, :3].sum(axis=1) + 0.5 * rng.normal(size=120) > 0).astype(int)
    params = dict(budget=40, gamma=0.002, random_state=0)
    gram = KernelPerceptron(**params).fit(X, y)
    assert set(kinds) == {_kernel_budget._PAIRWISE}
    kinds.clear()
    features = KernelPerceptron(cache_size=0.01, **params).fit(X, y)
    assert _kernel_budget._PAIRWISE not in kinds
    assert_array_equal(gram.support_, features.support_)
    assert gram.mistakes_per_epoch_ == features.mistakes_per_epoch_
    assert_allclose(gram.dual_coef_, features.dual_coef_, rtol=1e-9,
                    atol=1e-12)
    assert_allclose(gram.support_vectors_, X[gram.support_])
    for short_rows in (X[:, :20], X[:, :127]):
        kinds.clear()
        KernelPerceptron(**params).fit(short_rows, y)
        assert _kernel_budget._PAIRWISE not in kinds
    kinds.clear()
    KernelPerceptron(**{**params, "budget": 14}).fit(X, y)  # n > 8 B
    assert _kernel_budget._PAIRWISE not in kinds


def _epoch_the_rule_stops(totals, threshold, patience):
    """The epoch (1-based) at which the ``tol`` rule stops a sequence of
    per-epoch update counts: ``patience`` epochs in a row that do not fall
    below the best so far minus ``threshold`` (or an epoch without update);
    None if it never stops."""
    best, stalled = np.inf, 0
    for epoch, count in enumerate(totals, start=1):
        if count == 0:
            return epoch
        stalled = stalled + 1 if count > best - threshold else 0
        best = min(best, count)
        if stalled >= patience:
            return epoch
    return None


@pytest.mark.parametrize("bound", ["binds", "cannot bind"])
def test_multiclass_rows_stop_together_against_the_sum_of_their_thresholds(
        bound):
    # K one-vs-all rows that stop together compare their total of updates
    # with K * tol * n: each row's own threshold, summed.  A threshold of
    # tol * n alone on the total would ask of 5 rows 5 times the per-row
    # improvement; on this noisy problem the two rules stop at different
    # epochs, so the replay below tells them apart.
    X, y = make_classification(400, 6, n_informative=4, n_redundant=0,
                               n_classes=5, n_clusters_per_class=1,
                               flip_y=0.2, random_state=3)
    n, K, tol, patience = X.shape[0], 5, 0.01, 3
    budget = 60 if bound == "binds" else n + 1
    clf = KernelPerceptron(budget=budget, tol=tol, n_iter_no_change=patience,
                           max_iter=300, random_state=0).fit(X, y)
    totals = clf.mistakes_per_epoch_
    assert clf.n_iter_ == len(totals) < 300
    assert _epoch_the_rule_stops(totals, K * tol * n, patience) == clf.n_iter_
    # The rule on the total with one row's threshold would have gone on.
    assert _epoch_the_rule_stops(totals, tol * n, patience) != clf.n_iter_
