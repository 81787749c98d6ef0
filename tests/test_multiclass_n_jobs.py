# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""n_jobs on the fast path of OneVsAllPerceptron and OneVsOnePerceptron.

With ``n_jobs`` > 1 the rows are trained in groups on threads; the oracle is
the same fit with ``n_jobs=1``, which the threaded fit must equal bit for bit
(weights, intercepts and every diagnostic of every binary estimator).
"""

import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning

from sklearn_perceptrons import (
    MarginPerceptron,
    OneVsAllPerceptron,
    OneVsOnePerceptron,
    Perceptron,
)

META = [OneVsAllPerceptron, OneVsOnePerceptron]


def data(n_classes=5, seed=0):
    sizes = [60 + 25 * k for k in range(n_classes)]  # unequal pairs
    X, y = make_blobs(n_samples=sizes, n_features=6, cluster_std=3.0,
                      random_state=seed)
    order = np.random.RandomState(seed).permutation(len(y))
    return X[order], y[order]


def fit(clf, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clf.fit(*args, **kwargs)


def assert_identical(a, b):
    assert a._shared_input and b._shared_input  # both on the fast path
    assert len(a.estimators_) == len(b.estimators_)
    for e, f in zip(a.estimators_, b.estimators_):
        np.testing.assert_array_equal(e.coef_, f.coef_)
        np.testing.assert_array_equal(e.intercept_, f.intercept_)
        assert e.coef_.dtype == f.coef_.dtype
        assert e.n_iter_ == f.n_iter_
        assert e.n_mistakes_ == f.n_mistakes_
        assert e.mistakes_per_epoch_ == f.mistakes_per_epoch_
        assert e.converged_ == f.converged_


@pytest.mark.parametrize("Meta", META)
@pytest.mark.parametrize("base", [
    Perceptron(),  # shuffled, the tol rule per row
    Perceptron(average=True, shuffle=False, tol=None, max_iter=15),
    Perceptron(threshold=0.5, eta0=0.3, fit_intercept=False),
    Perceptron(penalty="elasticnet", alpha=1e-3, average=True),
    MarginPerceptron(margin=0.3, average=True),
])
@pytest.mark.parametrize("layout", ["dense", "float32", "csr"])
def test_threaded_fit_equals_n_jobs_1(Meta, base, layout):
    X, y = data()
    if layout == "float32":
        X = X.astype(np.float32)
    elif layout == "csr":
        X[np.abs(X) < 2.0] = 0.0
        X = sp.csr_matrix(X)
    weights = np.random.RandomState(1).uniform(0, 2, size=len(y))
    reference = fit(Meta(base), X, y, sample_weight=weights)
    for n_jobs in (2, 3, -1):
        assert_identical(fit(Meta(base, n_jobs=n_jobs), X, y, sample_weight=weights),
                         reference)


@pytest.mark.parametrize("Meta", META)
def test_threaded_partial_fit_equals_n_jobs_1(Meta):
    X, y = data(seed=2)
    classes = np.unique(y)
    one, two = Meta(Perceptron(average=True)), Meta(Perceptron(average=True), n_jobs=2)
    # Batches with absent classes (pairs without samples are not updated).
    batches = [np.flatnonzero(y < 2), np.flatnonzero(y >= 2), np.arange(len(y))]
    for batch in batches:
        one.partial_fit(X[batch], y[batch], classes=classes)
        two.partial_fit(X[batch], y[batch], classes=classes)
        for e, f in zip(one.estimators_, two.estimators_):
            assert hasattr(e, "coef_") == hasattr(f, "coef_")
            if hasattr(e, "coef_"):
                np.testing.assert_array_equal(e.coef_, f.coef_)
                np.testing.assert_array_equal(e.intercept_, f.intercept_)
                assert e.n_mistakes_ == f.n_mistakes_
    np.testing.assert_array_equal(one.decision_function(X), two.decision_function(X))


@pytest.mark.parametrize("Meta", META)
def test_more_threads_than_rows_and_verbose(Meta, capsys):
    X, y = data(n_classes=2, seed=3)  # a single row
    reference = fit(Meta(Perceptron()), X, y)
    threaded = fit(Meta(Perceptron(), n_jobs=8), X, y)
    assert_identical(threaded, reference)
    X, y = data(n_classes=4, seed=3)
    reference = fit(Meta(Perceptron(verbose=1)), X, y)
    expected = capsys.readouterr().out
    fit(Meta(Perceptron(verbose=1), n_jobs=2), X, y)
    # The same epochs, updates and norms (the times differ).
    def strip(text):
        return [re.split(r", [\d.]+ m?s|, took", line)[0]
                for line in text.splitlines()]
    assert strip(expected) == strip(capsys.readouterr().out)


@pytest.mark.parametrize("Meta", META)
def test_threaded_overflow_fails_cleanly(Meta):
    X, y = data(seed=4)
    clf = fit(Meta(Perceptron(), n_jobs=2), X, y)
    before = clf.decision_function(X)
    huge = X * 1e200  # finite, but w . x overflows
    with pytest.raises(ValueError, match="overflow|non-finite"):
        clf.fit(huge, y)
    np.testing.assert_array_equal(clf.decision_function(X), before)
