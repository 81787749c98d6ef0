# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of :class:`VotedPerceptron`.

The oracle is the paper's pseudo-code in NumPy (Freund & Schapire 1999,
Figure 1), which stores every intermediate perceptron: explicitly as a
weight vector in the primal (linear kernel), as a vector of dual
coefficients over the training samples for the other kernels.  The
estimator, which stores only the mistakes, must make the same mistakes,
give the same survival counts and the same votes.
"""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_blobs, make_classification
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.metrics.pairwise import pairwise_kernels

from sklearn_perceptrons import Perceptron, VotedPerceptron, bounds


# -- the reference -------------------------------------------------------------


def reference_train(gram, signs, steps, orders, add):
    """The paper's training loop for one binary problem, on kernel values.

    ``gram[i, j] = K(x_i, x_j)``; a perceptron is (alpha, c), its score on
    sample j is ``alpha @ (gram[:, j] + add)``.  Mistake when ``s * score
    <= 0`` (sign(0) counts as a mistake) on a sample of positive step; the
    new perceptron starts with count ``step``, a correct visit adds
    ``step`` to the current count.  Every epoch of ``orders`` is walked,
    with or without mistakes (T epochs in the paper).  Returns the list of
    every (alpha copy, count) and the mistakes.
    """
    n = gram.shape[0]
    alpha = np.zeros(n)
    perceptrons = [[alpha.copy(), 0.0]]
    mistakes = []
    for order in orders:
        for i in order:
            score = alpha @ (gram[:, i] + add)
            if steps[i] > 0 and signs[i] * score <= 0:
                alpha = alpha.copy()
                alpha[i] += steps[i] * signs[i]
                perceptrons.append([alpha, steps[i]])
                mistakes.append((i, steps[i] * signs[i]))
            else:
                perceptrons[-1][1] += steps[i]
    return perceptrons, mistakes


def reference_primal_train(X, signs, steps, orders, fit_intercept):
    """The same loop in the primal: every w_k stored as a weight vector."""
    Xp = np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X
    w = np.zeros(Xp.shape[1])
    perceptrons = [[w.copy(), 0.0]]
    mistakes = []
    for order in orders:
        for i in order:
            if steps[i] > 0 and signs[i] * (w @ Xp[i]) <= 0:
                w = w + steps[i] * signs[i] * Xp[i]
                perceptrons.append([w.copy(), steps[i]])
                mistakes.append((i, steps[i] * signs[i]))
            else:
                perceptrons[-1][1] += steps[i]
    return perceptrons, mistakes


def reference_vote(scores_per_perceptron, counts):
    """Normalized vote: sum_k c_k sign(score_k) / sum_k c_k, sign(0) = -1."""
    votes = sum(c * np.where(s > 0, 1.0, -1.0)
                for s, c in zip(scores_per_perceptron, counts))
    return votes / sum(counts)


def reference_fit_predict(X, y, X_test, *, kernel, max_iter, fit_intercept=True,
                          sample_weight=None, gamma=None):
    """Decision values (one column per one-vs-all row) and mistakes of the
    reference, visiting the samples in the order of X every epoch."""
    X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
    X_test = np.asarray(
        X_test.toarray() if sp.issparse(X_test) else X_test, dtype=np.float64)
    classes = np.unique(y)
    steps = np.ones(len(y)) if sample_weight is None else sample_weight
    orders = [np.arange(len(y))] * max_iter
    positives = [classes[1]] if len(classes) == 2 else list(classes)
    columns, all_mistakes = [], []
    for positive in positives:
        signs = np.where(y == positive, 1.0, -1.0)
        if kernel == "linear":
            perceptrons, mistakes = reference_primal_train(
                X, signs, steps, orders, fit_intercept)
            Xt = np.hstack([X_test, np.ones((len(X_test), 1))]) \
                if fit_intercept else X_test
            scores = [Xt @ w for w, _ in perceptrons]
        else:
            params = {"gamma": gamma}
            gram = pairwise_kernels(X, X, metric=kernel, filter_params=True, **params)
            test = pairwise_kernels(X, X_test, metric=kernel, filter_params=True,
                                    **params)
            add = float(fit_intercept)
            perceptrons, mistakes = reference_train(gram, signs, steps, orders, add)
            scores = [alpha @ (test + add) for alpha, _ in perceptrons]
        # The zero perceptron never survives a visit of positive weight.
        assert perceptrons[0][1] == 0
        columns.append(reference_vote(scores, [c for _, c in perceptrons]))
        all_mistakes.append(mistakes)
    return np.column_stack(columns), all_mistakes


def _noisy(n=60, n_classes=2, seed=0):
    X, y = make_classification(
        n_samples=n, n_features=5, n_informative=3, n_redundant=0,
        n_classes=n_classes, n_clusters_per_class=1, flip_y=0.1,
        random_state=seed,
    )
    return X, y


def _fit(X, y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return VotedPerceptron(shuffle=False, **params).fit(X, y)


# -- the estimator against the reference ------------------------------------


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_matches_the_reference(kernel, n_classes, sparse, fit_intercept):
    X, y = _noisy(n_classes=n_classes)
    X_test = np.random.RandomState(1).normal(size=(40, 5))
    Xf = sp.csr_matrix(X) if sparse else X
    clf = _fit(Xf, y, kernel=kernel, gamma=0.3, max_iter=7,
               fit_intercept=fit_intercept)
    expected, mistakes = reference_fit_predict(
        X, y, X_test, kernel=kernel, gamma=0.3, max_iter=7,
        fit_intercept=fit_intercept)
    # The same mistakes, row by row, in the same order.
    for r, row_mistakes in enumerate(mistakes):
        span = slice(clf.mistake_ptr_[r], clf.mistake_ptr_[r + 1])
        samples = clf.support_[clf.mistake_support_[span]]
        assert_array_equal(samples, [i for i, _ in row_mistakes])
        assert_array_equal(clf.mistake_coef_[span], [a for _, a in row_mistakes])
    assert clf.n_mistakes_ == sum(len(m) for m in mistakes)
    decision = clf.decision_function(X_test)
    decision = decision.reshape(len(X_test), -1)
    assert_allclose(decision, expected, atol=1e-12)
    classes = np.unique(y)
    predicted = (classes[(expected[:, 0] > 0).astype(int)] if n_classes == 2
                 else classes[expected.argmax(axis=1)])
    assert_array_equal(clf.predict(X_test), predicted)
    assert_array_equal(clf.predict(sp.csr_matrix(X_test)), predicted)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_separable_data_vote_over_all_max_iter_epochs(kernel, n_classes):
    # Freund & Schapire's vote is that of T = max_iter epochs: on separable
    # data the perceptron that ends the mistakes survives every epoch left,
    # and its vote weighs as much.  (Stopping at the first epoch without
    # mistakes instead leaves its survival count at one epoch.)
    centers = [[-8.0, 0.0], [8.0, 0.0], [0.0, 12.0]][:n_classes]
    X, y = make_blobs(n_samples=60, centers=centers, cluster_std=1.0,
                      random_state=3)
    X_test = np.random.RandomState(4).uniform(-12, 12, size=(300, 2))
    clf = _fit(X, y, kernel=kernel, gamma=0.5, max_iter=12)
    assert clf.converged_ and clf.n_iter_ < 12
    expected, mistakes = reference_fit_predict(
        X, y, X_test, kernel=kernel, gamma=0.5, max_iter=12)
    decision = clf.decision_function(X_test).reshape(len(X_test), -1)
    assert_allclose(decision, expected, atol=1e-12)
    # The last perceptron of every row survives max_iter - (the epoch of its
    # creation) epochs and more; the row's counts add up to 12 epochs.
    ptr = clf.mistake_ptr_
    for r in range(ptr.shape[0] - 1):
        assert clf.survival_counts_[ptr[r]:ptr[r + 1]].sum() == 12 * len(y)
        assert clf.survival_counts_[ptr[r + 1] - 1] >= (12 - clf.n_iter_ + 1) * len(y)


@pytest.mark.parametrize("kernel", ["poly", "sigmoid", "laplacian", "cosine"])
def test_every_kernel_matches_the_reference(kernel):
    X, y = _noisy(n=40, n_classes=3, seed=2)
    X_test = np.random.RandomState(3).normal(size=(30, 5))
    params = {"gamma": 0.2}
    if kernel in ("poly", "sigmoid"):
        params["coef0"] = 1.0
    clf = _fit(X, y, kernel=kernel, max_iter=5, **params)
    # pairwise_kernels' poly and sigmoid default coef0 is 1 as ours.
    expected, _ = reference_fit_predict(X, y, X_test, kernel=kernel, gamma=0.2,
                                        max_iter=5)
    assert_allclose(clf.decision_function(X_test), expected, atol=1e-12)


def test_sample_weights_match_the_reference():
    X, y = _noisy(n=50, seed=4)
    weights = np.random.RandomState(0).uniform(0, 3, size=50)
    weights[::7] = 0.0
    X_test = np.random.RandomState(5).normal(size=(20, 5))
    for kernel in ("linear", "rbf"):
        clf = _fit(X, y, kernel=kernel, gamma=0.5, max_iter=6)
        clf.fit(X, y, sample_weight=weights)
        expected, _ = reference_fit_predict(
            X, y, X_test, kernel=kernel, gamma=0.5, max_iter=6,
            sample_weight=weights)
        assert_allclose(clf.decision_function(X_test), expected[:, 0], atol=1e-12)
        # A sample of weight 0 never makes a mistake.
        assert not np.isin(clf.support_, np.flatnonzero(weights == 0)).any()


def test_zero_weight_samples_are_the_same_as_absent_ones():
    X, y = _noisy(n=60, n_classes=3, seed=6)
    weights = np.ones(60)
    weights[::3] = 0.0
    keep = weights > 0
    for kernel in ("linear", "rbf"):
        weighted = _fit(X, y, kernel=kernel, max_iter=4, gamma=0.4)
        weighted.fit(X, y, sample_weight=weights)
        dropped = _fit(X[keep], y[keep], kernel=kernel, max_iter=4, gamma=0.4)
        assert_allclose(weighted.decision_function(X),
                        dropped.decision_function(X), atol=1e-12)
        assert_allclose(weighted.survival_counts_, dropped.survival_counts_)


def test_class_weight_is_a_sample_weight_per_class():
    X, y = _noisy(n=50, seed=7)
    by_class = _fit(X, y, class_weight={0: 0.5, 1: 2.0})
    by_sample = _fit(X, y).fit(X, y, sample_weight=np.where(y == 1, 2.0, 0.5))
    assert_allclose(by_class.decision_function(X), by_sample.decision_function(X))


# -- properties ----------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), max_iter=st.integers(1, 6),
       n_classes=st.sampled_from([2, 3]), kernel=st.sampled_from(["linear", "rbf"]),
       separable=st.booleans())
def test_survival_counts_add_up_to_the_visits(seed, max_iter, n_classes, kernel,
                                              separable):
    # Every visit of a row either creates a perceptron (count 1) or adds 1
    # to the current one, for T = max_iter epochs (walked or not): a row's
    # counts sum to max_iter times n_samples.
    if separable:
        centers = [[-8.0, 0.0], [8.0, 0.0], [0.0, 12.0]][:n_classes]
        X, y = make_blobs(n_samples=30, centers=centers, cluster_std=1.0,
                          random_state=seed)
    else:
        X, y = _noisy(n=30, n_classes=n_classes, seed=seed)
    clf = VotedPerceptron(kernel=kernel, max_iter=max_iter, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf.fit(X, y)
    ptr = clf.mistake_ptr_
    n_rows = ptr.shape[0] - 1
    totals = [clf.survival_counts_[ptr[r]:ptr[r + 1]].sum() for r in range(n_rows)]
    assert totals == [30 * max_iter] * n_rows
    assert (clf.survival_counts_ >= 1).all()
    assert clf.n_mistakes_ == ptr[-1] == sum(clf.mistakes_per_epoch_)
    assert np.abs(clf.decision_function(X)).max() <= 1.0


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_mistakes_obey_the_novikoff_bound(seed):
    # Separable data: the perceptron behind the vote makes at most (R/gamma)^2
    # mistakes whatever the order, and stops on an epoch without mistakes.
    X, y = make_blobs(n_samples=40, centers=[[-3, -3], [3, 3]], cluster_std=1.0,
                      random_state=seed)
    bound = bounds.mistake_bound(X, y)
    clf = VotedPerceptron(max_iter=1000, random_state=seed).fit(X, y)
    assert clf.converged_
    assert clf.n_mistakes_ <= bound
    assert clf.mistakes_per_epoch_[-1] == 0
    assert_array_equal(clf.predict(X), y)


def test_last_perceptron_is_the_perceptron():
    # The vote and Perceptron walk the same epoch orders for the same
    # random_state: the last stored perceptron of every row is Perceptron's
    # last iterate, so "vote vs. last" compares two predictors of one run.
    X, y = _noisy(n=80, n_classes=3, seed=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = VotedPerceptron(max_iter=3).fit(X, y)
        per = Perceptron(max_iter=3, tol=None).fit(X, y)
    for r in range(3):
        span = slice(clf.mistake_ptr_[r], clf.mistake_ptr_[r + 1])
        w = clf.mistake_coef_[span] @ clf.support_vectors_[clf.mistake_support_[span]]
        assert_allclose(w, per.coef_[r], atol=1e-10)
        assert_allclose(clf.mistake_coef_[span].sum(), per.intercept_[r], atol=1e-10)
    assert clf.mistakes_per_epoch_ == per.mistakes_per_epoch_


# -- storage, caching and chunks -------------------------------------------------


def test_growing_log_evicting_cache_and_chunked_predict_change_nothing():
    # Many mistakes (more than the first log), one cache line, one-row blocks.
    X, y = _noisy(n=200, n_classes=3, seed=9)
    big = _fit(X, y, kernel="rbf", max_iter=15)
    assert big.n_mistakes_ > 2 * 200
    tiny = _fit(X, y, kernel="rbf", max_iter=15, cache_size=1e-6)
    for name in ("support_", "mistake_support_", "mistake_coef_",
                 "survival_counts_", "mistake_ptr_"):
        assert_array_equal(getattr(big, name), getattr(tiny, name), err_msg=name)
    assert_array_equal(big.decision_function(X), tiny.decision_function(X))


def test_float32_is_kept_and_agrees():
    X, y = _noisy(n=60, n_classes=3, seed=10)
    X = np.round(X * 4).astype(np.float64)  # exact in float32
    for kernel in ("linear", "rbf"):
        c64 = _fit(X, y, kernel=kernel, max_iter=5)
        c32 = _fit(X.astype(np.float32), y, kernel=kernel, max_iter=5)
        assert c32.support_vectors_.dtype == np.float32
        assert_array_equal(c32.mistake_coef_, c64.mistake_coef_)
        assert_array_equal(c32.predict(X), c64.predict(X))
        assert_allclose(c32.decision_function(X), c64.decision_function(X))
        X32 = sp.csr_matrix(X.astype(np.float32))
        csr = _fit(X32, y, kernel=kernel, max_iter=5)
        assert csr.support_vectors_.dtype == np.float32
        assert_array_equal(csr.mistake_coef_, c64.mistake_coef_)
        assert_allclose(csr.decision_function(X32), c64.decision_function(X))


def test_precomputed_and_callable_kernels_agree_with_rbf():
    X, y = _noisy(n=50, n_classes=3, seed=11)
    X_test = np.random.RandomState(2).normal(size=(25, 5))
    rbf = _fit(X, y, kernel="rbf", gamma=0.3, max_iter=5)
    gram = pairwise_kernels(X, metric="rbf", gamma=0.3)
    pre = _fit(gram, y, kernel="precomputed", max_iter=5)
    test_gram = pairwise_kernels(X_test, X, metric="rbf", gamma=0.3)
    assert_allclose(pre.decision_function(test_gram),
                    rbf.decision_function(X_test), atol=1e-12)
    call = _fit(X, y, kernel=lambda A, B, g: pairwise_kernels(
        A, B, metric="rbf", gamma=g), kernel_params={"g": 0.3}, max_iter=5)
    assert_allclose(call.decision_function(X_test),
                    rbf.decision_function(X_test), atol=1e-12)


def test_shuffle_is_seeded():
    X, y = _noisy(n=80, n_classes=3, seed=12)
    fits = [VotedPerceptron(random_state=s, max_iter=3) for s in (1, 1, 2)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a, b, c = (f.fit(X, y) for f in fits)
    assert_array_equal(a.mistake_coef_, b.mistake_coef_)
    assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert not np.array_equal(a.support_, c.support_) or not np.array_equal(
        a.survival_counts_, c.survival_counts_)


# -- diagnostics and errors ------------------------------------------------------


def test_diagnostics_no_warning_and_verbose(capsys):
    # T epochs are the algorithm: no ConvergenceWarning on data that are
    # not separable.
    X, y = _noisy(n=60, seed=13)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = VotedPerceptron(max_iter=4, verbose=1).fit(X, y)
    assert clf.n_iter_ == 4 and not clf.converged_
    assert len(clf.mistakes_per_epoch_) == 4
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 5 and all("updates" in line for line in lines[:4])
    assert lines[4].startswith("-- Stopped after 4 epochs (max_iter=4 reached")


def test_no_proba():
    clf = VotedPerceptron()
    for name in ("predict_proba", "predict_log_proba"):
        assert not hasattr(clf, name)


_MODEL = ("support_", "mistake_support_", "mistake_coef_", "survival_counts_",
          "mistake_ptr_")


def _assert_same_vote(a, b, X):
    for name in _MODEL:
        assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    A, B = a.support_vectors_, b.support_vectors_
    assert sp.issparse(A) == sp.issparse(B) and A.dtype == B.dtype
    assert_array_equal(A.toarray() if sp.issparse(A) else A,
                       B.toarray() if sp.issparse(B) else B)
    assert_array_equal(a.decision_function(X), b.decision_function(X))


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("container", [np.asarray, sp.csr_matrix])
def test_partial_fit_one_row_stream_equals_one_call(kernel, n_classes,
                                                    container):
    # The current perceptron of every row and its survival count carry
    # from call to call: a stream of one-row calls is one call on the batch,
    # mistake for mistake (weights too: a count grows by one step a visit
    # either way).
    X, y = _noisy(n=80, n_classes=n_classes, seed=3)
    X = container(X)
    weight = np.random.RandomState(0).uniform(0.5, 2.0, size=80)
    weight[5] = 0.0
    classes = np.unique(y)
    params = dict(kernel=kernel, gamma=0.2)  # "scale" reads the first batch
    batch = VotedPerceptron(**params).partial_fit(X, y, classes=classes,
                                                  sample_weight=weight)
    stream = VotedPerceptron(**params)
    for i in range(80):
        stream.partial_fit(X[i:i + 1], y[i:i + 1], sample_weight=weight[i:i + 1],
                           classes=classes if i == 0 else None)
    assert batch.n_mistakes_ > 10 and stream.n_mistakes_ == batch.n_mistakes_
    assert stream.n_iter_ == 80 and batch.n_iter_ == 1
    _assert_same_vote(stream, batch, X)
    # One pass over the batch in its order is fit's first epoch without
    # shuffling: the same vote.
    fitted = VotedPerceptron(max_iter=1, shuffle=False, **params).fit(
        X, y, sample_weight=weight)
    _assert_same_vote(batch, fitted, X)


@pytest.mark.parametrize("kernel", ["linear", "poly"])
def test_partial_fit_continues_fit(kernel):
    # After fit, partial_fit continues its run: fit on the first rows and a
    # call on the others is fit's one epoch over all of them, support_
    # indexing the rows in the order seen.
    X, y = _noisy(n=90, n_classes=3, seed=4)
    params = dict(kernel=kernel, gamma=0.3, max_iter=1, shuffle=False)
    split = VotedPerceptron(**params).fit(X[:50], y[:50])
    before = {name: getattr(split, name).copy() for name in _MODEL}
    split.partial_fit(X[50:], y[50:])
    _assert_same_vote(split, VotedPerceptron(**params).fit(X, y), X)
    assert split.n_iter_ == 2
    # The arrays of the fit were not changed in place (a copy taken before
    # the call still holds them).
    assert before["survival_counts_"].shape[0] <= split.survival_counts_.shape[0]


def test_partial_fit_classes_and_errors():
    X, y = _noisy(n=30, seed=5)
    clf = VotedPerceptron()
    with pytest.raises(ValueError, match="classes must be passed"):
        clf.partial_fit(X, y)
    clf.partial_fit(X[:10], y[:10], classes=[0, 1])
    with pytest.raises(ValueError, match="not the same"):
        clf.partial_fit(X, y, classes=[0, 1, 2])
    # A label outside classes: an error, and the model as it was.
    model = {name: getattr(clf, name) for name in _MODEL}
    with pytest.raises(ValueError):
        clf.partial_fit(X[:3], np.array([0, 1, 7]))
    for name, value in model.items():
        assert getattr(clf, name) is value
    with pytest.raises(ValueError, match="precomputed"):
        VotedPerceptron(kernel="precomputed").partial_fit(
            X @ X.T, y, classes=[0, 1])


def test_errors():
    X, y = _noisy(n=30, seed=14)
    with pytest.raises(NotFittedError):
        VotedPerceptron().predict(X)
    clf = VotedPerceptron(max_iter=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :3])
    with pytest.raises(ValueError, match="square"):
        VotedPerceptron(kernel="precomputed").fit(X, y)
    with pytest.raises(TypeError, match="dense Gram"):
        VotedPerceptron(kernel="precomputed").fit(sp.csr_matrix(np.eye(30)), y)
    before = pickle.dumps(clf)
    with pytest.raises(ValueError, match="non-finite"):
        clf.set_params(kernel="poly", degree=60, gamma=1e3).fit(X * 1e3, y)
    clf.set_params(kernel="linear", degree=3, gamma="scale")
    assert pickle.dumps(clf) == before
    with pytest.raises(ValueError, match="class"):
        VotedPerceptron().fit(X, np.zeros(30))


def test_csr_with_duplicate_entries_is_its_sum():
    X, y = _noisy(n=40, n_classes=3, seed=15)
    X[np.abs(X) < 0.5] = 0.0
    dense = sp.csr_matrix(X)
    doubled = sp.csr_matrix(
        (np.repeat(dense.data / 2, 2), np.repeat(dense.indices, 2),
         2 * dense.indptr), shape=X.shape)
    assert not doubled.has_canonical_format
    for kernel in ("linear", "rbf"):
        expected = _fit(X, y, kernel=kernel, max_iter=4).decision_function(X)
        clf = _fit(doubled, y, kernel=kernel, max_iter=4)
        assert_allclose(clf.decision_function(doubled), expected, atol=1e-12)
        assert not doubled.has_canonical_format
