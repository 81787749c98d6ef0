# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""PassiveAggressiveClassifier as a drop-in for scikit-learn's.

The first part ports the classifier tests of scikit-learn 1.9's
``linear_model/tests/test_passive_aggressive.py`` (rewritten, run against
this package's class; the regressor's tests have no counterpart here).
The second part compares the two classes fit for fit: same parameters, same
epochs, same coefficients.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_iris, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier
from sklearn.utils import check_random_state

from sklearn_perceptrons import PassiveAggressiveClassifier

from _reference_online import passive_aggressive

iris = load_iris()
_rng = check_random_state(12)
_indices = np.arange(iris.data.shape[0])
_rng.shuffle(_indices)
X = iris.data[_indices]
y = iris.target[_indices]
CONTAINERS = [None, sp.csr_matrix, sp.csr_array]


def _sklearn_pa():
    """scikit-learn's class, without its deprecation warning (None when a
    later scikit-learn has removed it)."""
    from sklearn import linear_model

    return getattr(linear_model, "PassiveAggressiveClassifier", None)


# -- scikit-learn's tests, ported ----------------------------------------------


@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("container", CONTAINERS)
def test_classifier_accuracy(container, fit_intercept, average):
    data = container(X) if container is not None else X
    clf = PassiveAggressiveClassifier(C=1.0, max_iter=30,
                                      fit_intercept=fit_intercept,
                                      random_state=1, average=average, tol=None)
    clf.fit(data, y)
    assert clf.score(data, y) > 0.79
    # (scikit-learn checks its private averaging attributes here; ours
    # keeps its sums in its state: the average is the model.)
    if average:
        plain = PassiveAggressiveClassifier(C=1.0, max_iter=30,
                                            fit_intercept=fit_intercept,
                                            random_state=1, tol=None).fit(data, y)
        assert not np.allclose(plain.coef_, clf.coef_)


@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("container", CONTAINERS)
def test_classifier_partial_fit(container, average):
    classes = np.unique(y)
    data = container(X) if container is not None else X
    clf = PassiveAggressiveClassifier(random_state=0, average=average, max_iter=5)
    for _ in range(30):
        clf.partial_fit(data, y, classes)
    assert clf.score(data, y) > 0.79
    assert clf.n_iter_ == 30
    assert clf.t_ == 30 * X.shape[0] + 1


def test_classifier_refit():
    # Classifier can be retrained on different labels and features.
    clf = PassiveAggressiveClassifier(max_iter=5).fit(X, y)
    assert_array_equal(clf.classes_, np.unique(y))
    clf.fit(X[:, :-1], iris.target_names[y])
    assert_array_equal(clf.classes_, iris.target_names)


def _my_passive_aggressive(data, y_bin, loss, n_iter):
    """scikit-learn's own reference of the test (``MyPassiveAggressive``),
    through the package's NumPy reference: the intercept moves by 0.01 of
    the step on sparse data, as scikit-learn's SGD does."""
    dense = data.toarray() if sp.issparse(data) else data
    return passive_aggressive(dense, y_bin.astype(float),
                              [np.arange(len(y_bin))] * n_iter, C=1.0, loss=loss,
                              intercept_rate=0.01 if sp.issparse(data) else 1.0)


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("loss", ("hinge", "squared_hinge"))
def test_classifier_correctness(loss, container):
    y_bin = y.copy()
    y_bin[y != 1] = -1
    data = container(X) if container is not None else X
    ref = _my_passive_aggressive(data, y_bin, loss, 4)
    clf = PassiveAggressiveClassifier(loss=loss, max_iter=4, shuffle=False,
                                      tol=None).fit(data, y_bin)
    assert_allclose(ref["coef"], clf.coef_.ravel())
    assert_allclose(ref["intercept"], clf.intercept_[0])


@pytest.mark.parametrize(
    "response_method", ["predict_proba", "predict_log_proba", "transform"])
def test_classifier_undefined_methods(response_method):
    clf = PassiveAggressiveClassifier(max_iter=100)
    with pytest.raises(AttributeError):
        getattr(clf, response_method)


def test_class_weights():
    X2 = np.array([[-1.0, -1.0], [-1.0, 0], [-0.8, -1.0], [1.0, 1.0], [1.0, 0.0]])
    y2 = [1, 1, 1, -1, -1]
    clf = PassiveAggressiveClassifier(C=0.1, max_iter=100, class_weight=None,
                                      random_state=100).fit(X2, y2)
    assert_array_equal(clf.predict([[0.2, -1.0]]), np.array([1]))
    # A small weight on class 1: the hyperplane rotates clockwise and the
    # prediction of this point shifts.
    clf = PassiveAggressiveClassifier(C=0.1, max_iter=100,
                                      class_weight={1: 0.001},
                                      random_state=100).fit(X2, y2)
    assert_array_equal(clf.predict([[0.2, -1.0]]), np.array([-1]))


def test_partial_fit_weight_class_balanced():
    clf = PassiveAggressiveClassifier(class_weight="balanced", max_iter=100)
    with pytest.raises(ValueError, match="balanced"):
        clf.partial_fit(X, y, classes=np.unique(y))


def test_equal_class_weight():
    X2 = [[1, 0], [1, 0], [0, 1], [0, 1]]
    y2 = [0, 0, 1, 1]
    clf = PassiveAggressiveClassifier(C=0.1, tol=None, class_weight=None,
                                      random_state=0).fit(X2, y2)
    # Already balanced: "balanced" weights change nothing.
    clf_balanced = PassiveAggressiveClassifier(
        C=0.1, tol=None, class_weight="balanced", random_state=0).fit(X2, y2)
    clf_weighted = PassiveAggressiveClassifier(
        C=0.1, tol=None, class_weight={0: 0.5, 1: 0.5}, random_state=0).fit(X2, y2)
    assert_allclose(clf.coef_, clf_weighted.coef_, atol=1e-2)
    assert_allclose(clf.coef_, clf_balanced.coef_, atol=1e-2)


def test_wrong_class_weight_label():
    X2 = np.array([[-1.0, -1.0], [-1.0, 0], [-0.8, -1.0], [1.0, 1.0], [1.0, 0.0]])
    y2 = [1, 1, 1, -1, -1]
    clf = PassiveAggressiveClassifier(class_weight={0: 0.5}, max_iter=100)
    with pytest.raises(ValueError, match="class_weight"):
        clf.fit(X2, y2)


def test_no_deprecation_warning():
    # scikit-learn's class warns (FutureWarning) at construction; ours is
    # here to stay.
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        warnings.simplefilter("error", DeprecationWarning)
        PassiveAggressiveClassifier(max_iter=5, tol=None).fit(X, y)


@pytest.mark.parametrize(["loss", "lr"], [("hinge", "pa1"), ("squared_hinge", "pa2")])
def test_passive_aggressive_classifier_vs_sgd(loss, lr):
    # scikit-learn's replacement, SGDClassifier(learning_rate="pa1" / "pa2"),
    # gives the same model on the same epochs (its shuffles are its own:
    # compare in row order).
    Xc, yc = make_classification(n_samples=100, n_features=10, n_informative=5,
                                 random_state=1234)
    pa = PassiveAggressiveClassifier(loss=loss, C=0.987, shuffle=False,
                                     tol=None, max_iter=7).fit(Xc, yc)
    sgd = SGDClassifier(loss="hinge", penalty=None, learning_rate=lr, eta0=0.987,
                        shuffle=False, tol=None, max_iter=7).fit(Xc, yc)
    assert_allclose(pa.decision_function(Xc), sgd.decision_function(Xc))


# -- fit for fit against scikit-learn's class ------------------------------------


def _both(**params):
    SklearnPA = _sklearn_pa()
    if SklearnPA is None:
        pytest.skip("scikit-learn no longer has PassiveAggressiveClassifier")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        theirs = SklearnPA(**params)
    return PassiveAggressiveClassifier(**params), theirs


def _fit_both(ours, theirs, data, labels):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (FutureWarning, ConvergenceWarning))
        ours.fit(data, labels)
        theirs.fit(data, labels)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_same_coefficients_as_scikit_learn(loss, container, average,
                                           fit_intercept):
    # Three classes (one-vs-all) and two; the same epochs in row order.
    Xc, yc = make_classification(n_samples=300, n_features=8, n_informative=5,
                                 n_classes=3, random_state=0)
    Xc[:3] = 0.0  # PA-I skips all-zero samples; so must ours
    data = container(Xc) if container is not None else Xc
    for labels in (yc, (yc == 1).astype(int)):
        ours, theirs = _both(loss=loss, C=0.3, shuffle=False, tol=None,
                             max_iter=6, average=average,
                             fit_intercept=fit_intercept)
        _fit_both(ours, theirs, data, labels)
        assert ours.coef_.shape == theirs.coef_.shape
        assert_allclose(ours.coef_, theirs.coef_, rtol=1e-6, atol=1e-8)
        assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-6, atol=1e-8)
        assert ours.n_iter_ == theirs.n_iter_


def test_same_stopping_as_scikit_learn():
    # The default tol=1e-3 stops both on the hinge loss at the same epoch.
    Xc, yc = make_classification(n_samples=400, n_features=10, flip_y=0.2,
                                 random_state=3)
    ours, theirs = _both(shuffle=False, C=0.5)
    _fit_both(ours, theirs, Xc, yc)
    assert ours.n_iter_ == theirs.n_iter_
    assert ours.t_ == theirs.t_
    assert_allclose(ours.coef_, theirs.coef_, rtol=1e-6, atol=1e-8)


def test_same_partial_fit_as_scikit_learn():
    # In row order: scikit-learn shuffles each batch when shuffle=True,
    # ours visits a batch in the given order (see the class's Notes).
    Xc, yc = make_classification(n_samples=200, n_features=6, random_state=4)
    ours, theirs = _both(C=0.7, shuffle=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        for start in range(0, 200, 10):
            ours.partial_fit(Xc[start:start + 10], yc[start:start + 10], [0, 1])
            theirs.partial_fit(Xc[start:start + 10], yc[start:start + 10], [0, 1])
    assert_allclose(ours.coef_, theirs.coef_, rtol=1e-6, atol=1e-8)
    assert ours.t_ == theirs.t_


def test_same_signature_as_scikit_learn():
    import inspect

    SklearnPA = _sklearn_pa()
    if SklearnPA is None:
        pytest.skip("scikit-learn no longer has PassiveAggressiveClassifier")
    theirs = inspect.signature(SklearnPA.__init__).parameters
    ours = inspect.signature(PassiveAggressiveClassifier.__init__).parameters
    # Every parameter of theirs, in their order, with their default; ours
    # adds multi_class and grow_classes at the end.
    assert list(ours)[:len(theirs)] == list(theirs)
    for name, parameter in theirs.items():
        assert ours[name].default == parameter.default, name
    assert list(ours)[len(theirs):] == ["multi_class", "grow_classes"]
    for method in ("fit", "partial_fit"):
        theirs_m = inspect.signature(getattr(SklearnPA, method)).parameters
        ours_m = inspect.signature(getattr(PassiveAggressiveClassifier,
                                           method)).parameters
        assert list(ours_m)[:len(theirs_m)] == list(theirs_m)
