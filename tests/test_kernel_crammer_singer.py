# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""``KernelPerceptron(multi_class="crammer_singer")`` (issue #20, part 1).

The oracle is the multiclass perceptron in NumPy, one sample at a time:
one coefficient per class on every training sample, every score recomputed
from the Gram matrix at every visit.
"""

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_blobs, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_perceptrons import KernelPerceptron


def reference_crammer_singer(gram, y_class, n_classes, orders, *, update,
                             threshold=0.0, add=1.0, steps=None):
    """Coefficients (n_samples, n_classes) and mistakes per epoch; stops
    after an epoch without mistakes."""
    n = gram.shape[0]
    steps = np.ones(n) if steps is None else steps
    alpha = np.zeros((n, n_classes))
    total, visits = np.zeros_like(alpha), 0
    per_epoch = []
    for order in orders:
        mistakes = 0
        for i in order:
            visits += 1
            f = (gram[:, i] + add) @ alpha
            c = y_class[i]
            others = [r for r in range(n_classes) if r != c]
            violators = [r for r in others if f[c] - f[r] <= threshold]
            if not violators or steps[i] == 0:
                total += alpha
                continue
            mistakes += 1
            alpha[i, c] += steps[i]
            if update == "max":
                # Highest score, ties to the lowest index.
                top = max(violators, key=lambda r: (f[r], -r))
                alpha[i, top] -= steps[i]
            else:
                for r in violators:
                    alpha[i, r] -= steps[i] / len(violators)
            total += alpha
        per_epoch.append(mistakes)
        if mistakes == 0:
            break
    reference_crammer_singer.average = total / visits
    return alpha, per_epoch


def _data(n_classes, seed=0, n=60):
    X, y = make_classification(
        n_samples=n, n_features=4, n_informative=3, n_redundant=0,
        n_classes=n_classes, n_clusters_per_class=1, flip_y=0.05,
        random_state=seed,
    )
    return X, y


@pytest.mark.parametrize("update", ["max", "uniform"])
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_matches_the_reference(update, n_classes, kernel):
    X, y = _data(n_classes)
    params = {"gamma": 0.5} if kernel == "rbf" else {}
    gram = pairwise_kernels(X, metric=kernel, **params)
    alpha, per_epoch = reference_crammer_singer(
        gram, y, n_classes, [np.arange(len(y))] * 6, update=update)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = KernelPerceptron(kernel=kernel, multi_class="crammer_singer",
                               update=update, shuffle=False, tol=None,
                               max_iter=6, average=False, **params).fit(X, y)
    assert clf.mistakes_per_epoch_ == per_epoch
    assert clf.dual_coef_.shape == (n_classes, clf.support_.shape[0])
    assert_array_equal(clf.support_, np.flatnonzero(np.abs(alpha).sum(axis=1)))
    assert_allclose(clf.dual_coef_.T, alpha[clf.support_], atol=1e-12)
    X_test = np.random.RandomState(1).normal(size=(30, 4))
    test_gram = pairwise_kernels(X_test, X, metric=kernel, **params)
    scores = (test_gram + 1.0) @ alpha
    expected = scores[:, 1] - scores[:, 0] if n_classes == 2 else scores
    assert_allclose(clf.decision_function(X_test), expected, atol=1e-9)
    assert_array_equal(clf.predict(X_test), scores.argmax(axis=1))


@pytest.mark.parametrize("sparse", [False, True])
def test_average_csr_and_float32_match_the_reference(sparse):
    import scipy.sparse as sp

    X, y = _data(3, seed=5)
    X[np.abs(X) < 0.4] = 0.0
    X = np.round(X * 8) / 8  # exact in float32
    gram = pairwise_kernels(X, metric="rbf", gamma=0.4)
    reference_crammer_singer(gram, y, 3, [np.arange(len(y))] * 4, update="uniform")
    average = reference_crammer_singer.average
    X_fit = X.astype(np.float32)
    X_fit = sp.csr_matrix(X_fit) if sparse else X_fit
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = KernelPerceptron(multi_class="crammer_singer", update="uniform",
                               average=True, gamma=0.4, shuffle=False, tol=None,
                               max_iter=4).fit(X_fit, y)
    assert clf.support_vectors_.dtype == np.float32
    # rbf is trained with float32 kernel values (see KernelPerceptron Notes).
    assert_allclose(clf.dual_coef_.T, average[clf.support_], atol=1e-5)


def test_separable_data_converge_and_the_rows_sum_to_zero_with_max():
    # "max" moves one row up and one down by the same amount: without an
    # intercept pull, the coefficients of every sample sum to zero.
    X, y = make_blobs(n_samples=90, centers=[[-5, 0], [5, 0], [0, 6]],
                      cluster_std=0.8, random_state=0)
    clf = KernelPerceptron(kernel="linear", multi_class="crammer_singer",
                           max_iter=200).fit(X, y)
    assert clf.converged_
    assert clf.mistakes_per_epoch_[-1] == 0
    assert_array_equal(clf.predict(X), y)
    assert_allclose(clf.dual_coef_.sum(axis=0), 0.0, atol=1e-12)


def test_partial_fit_is_the_first_epoch_of_fit():
    X, y = _data(3, seed=3)
    one_pass = KernelPerceptron(multi_class="crammer_singer", gamma=0.3)
    one_pass.partial_fit(X, y, classes=[0, 1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = KernelPerceptron(multi_class="crammer_singer", gamma=0.3,
                               shuffle=False, max_iter=1).fit(X, y)
    assert_allclose(one_pass.decision_function(X), fit.decision_function(X),
                    atol=1e-10)
    assert one_pass.n_mistakes_ == fit.n_mistakes_


def test_errors():
    X, y = _data(3, seed=4)
    with pytest.raises(ValueError, match="budget"):
        KernelPerceptron(multi_class="crammer_singer", budget=10).fit(X, y)
    X2, y2 = _data(2, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = KernelPerceptron(warm_start=True, max_iter=2).fit(X2, y2)
    dual = est.dual_coef_.copy()
    with pytest.raises(ValueError, match="multi_class"):
        est.set_params(multi_class="crammer_singer").fit(X2, y2)
    assert_array_equal(est.dual_coef_, dual)
    stream = KernelPerceptron().partial_fit(X2, y2, classes=[0, 1])
    with pytest.raises(ValueError, match="multi_class"):
        stream.set_params(multi_class="crammer_singer").partial_fit(X2, y2)


ONLINE_SAMPLE_WEIGHT = {
    name: "an update scaled by a weight differs from two visits of the sample"
    for name in ("check_sample_weight_equivalence_on_dense_data",
                 "check_sample_weight_equivalence_on_sparse_data")
}


@parametrize_with_checks(
    [KernelPerceptron(multi_class="crammer_singer"),
     KernelPerceptron(multi_class="crammer_singer", update="uniform")],
    expected_failed_checks=lambda est: ONLINE_SAMPLE_WEIGHT,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n_classes=st.integers(3, 5))
def test_max_update_obeys_the_kesler_novikoff_bound(seed, n_classes):
    # With update="max" the walk is a binary perceptron on Kesler's vectors
    # e_c x - e_r x (squared norm 2 |x|^2): on data that a W separates with
    # multiclass margin gamma_W, it makes at most 2 R^2 / gamma_W^2 mistakes
    # (R, W and gamma_W in the padded space of the intercept).
    rng = np.random.RandomState(seed)
    W = rng.normal(size=(n_classes, 3))
    X = rng.uniform(-6, 6, size=(400, 2))
    Xp = np.hstack([X, np.ones((400, 1))])
    scores = Xp @ W.T
    y = scores.argmax(axis=1)
    top2 = np.sort(scores, axis=1)[:, -2:]
    keep = top2[:, 1] - top2[:, 0] > 0.3
    X, Xp, y = X[keep], Xp[keep], y[keep]
    assume(len(np.unique(y)) == n_classes)
    own = (Xp @ W.T)[np.arange(len(y)), y]
    others = np.where(np.eye(n_classes, dtype=bool)[y], np.inf, Xp @ W.T)
    gamma = (own - others.min(axis=1)).min() / np.linalg.norm(W)
    bound = 2 * (Xp**2).sum(axis=1).max() / gamma**2
    clf = KernelPerceptron(kernel="linear", multi_class="crammer_singer",
                           max_iter=10_000, tol=None, average=False,
                           random_state=seed).fit(X, y)
    assert clf.converged_
    assert clf.n_mistakes_ <= bound
    assert_array_equal(clf.predict(X), y)
