# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Constructors: the declared ones are what scikit-learn asks of a
hand-written ``__init__``, every signature is the published one, and every
docstring documents its class's parameters in the signature's order."""

import inspect
import pickle
import re

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone

import sklearn_perceptrons
from sklearn_perceptrons import (
    ALMAClassifier,
    AROWClassifier,
    MarginPerceptron,
    ROMMAClassifier,
    SecondOrderPerceptron,
)
from sklearn_perceptrons._core.base import DeclaredParameters


def _signature(cls):
    return [(p.name, p.default, p.kind)
            for p in inspect.signature(cls.__init__).parameters.values()][1:]


class _Base(DeclaredParameters, BaseEstimator):
    first: int = 1
    second: str = "b"
    third: object = None


class _Child(_Base):
    own: float = 0.5
    second: str = "changed"


class _Grandchild(_Child):
    last: bool = False


def test_declared_parameters_order_defaults_and_kind():
    # Own parameters first, in the order written; then the bases' in
    # theirs, a redeclared one in its place with its new default.
    kw = inspect.Parameter.KEYWORD_ONLY
    assert _signature(_Base) == [("first", 1, kw), ("second", "b", kw),
                                 ("third", None, kw)]
    assert _signature(_Child) == [("own", 0.5, kw), ("first", 1, kw),
                                  ("second", "changed", kw), ("third", None, kw)]
    assert [name for name, _, _ in _signature(_Grandchild)] == [
        "last", "own", "first", "second", "third"]


def test_declared_constructor_stores_arguments_unchanged_and_only_them():
    marker = object()
    est = _Child(third=marker, own=2)
    assert est.third is marker
    assert vars(est) == {"own": 2, "first": 1, "second": "changed", "third": marker}
    assert est.get_params() == {"own": 2, "first": 1, "second": "changed",
                                "third": marker}
    copy = clone(_Child(own=2, third=(1, 2)))
    assert copy.get_params() == {"own": 2, "first": 1, "second": "changed",
                                 "third": (1, 2)}
    assert est.set_params(first=7).first == 7
    assert pickle.loads(pickle.dumps(_Grandchild(last=True))).last is True


def test_declared_constructor_refuses_what_a_written_one_refuses():
    with pytest.raises(TypeError, match="unexpected keyword argument 'fourth'"):
        _Base(fourth=1)
    with pytest.raises(TypeError, match="positional"):
        _Base(1)


def test_declarations_leave_no_class_attribute():
    # As with a written __init__, only an instance has the parameters.
    for name in ("first", "second", "third", "own", "last"):
        assert not hasattr(_Grandchild, name)
    for name in inspect.signature(AROWClassifier.__init__).parameters:
        if name != "self":
            assert not hasattr(AROWClassifier, name)


def test_a_declaration_needs_a_default():
    with pytest.raises(TypeError, match="without a default"):
        class _NoDefault(DeclaredParameters):
            value: int


def test_a_written_constructor_is_kept():
    class _Written(_Base):
        extra: int = 3

        def __init__(self, *, extra=3, first=1, second="b", third=None):
            self.extra, self.first = extra, first
            self.second, self.third = second, third

    assert _Written.__dict__["__init__"].__qualname__.endswith("_Written.__init__")
    assert _Written(extra=4).extra == 4


EPOCH_TAIL = [
    ("fit_intercept", True), ("max_iter", 1000), ("tol", 1e-3),
    ("n_iter_no_change", 5), ("shuffle", True), ("average", False),
    ("class_weight", None), ("early_stopping", False),
    ("validation_fraction", 0.1), ("warm_start", False), ("random_state", 0),
    ("verbose", 0), ("grow_classes", False),
]


def _tail(**defaults):
    return [(name, defaults.get(name, value)) for name, value in EPOCH_TAIL]


@pytest.mark.parametrize("cls, expected", [
    (MarginPerceptron, [("margin", "auto"), ("epsilon", 0.5)] + _tail()),
    (SecondOrderPerceptron, [("a", 1.0), ("diagonal", False)] + _tail()),
    (AROWClassifier, [("r", 1.0), ("diagonal", False)] + _tail()),
    (ALMAClassifier, [("p", 2), ("alpha", 0.9), ("B", None), ("C", 2**0.5)]
     + _tail(average=True)),
    (ROMMAClassifier, [("aggressive", False)] + _tail(average=True)),
], ids=lambda x: getattr(x, "__name__", ""))
def test_declared_estimators_keep_their_published_signatures(cls, expected):
    signature = _signature(cls)
    assert [(name, default) for name, default, _ in signature] == expected
    assert {kind for _, _, kind in signature} == {inspect.Parameter.KEYWORD_ONLY}
    assert set(cls._parameter_constraints) == {name for name, _ in expected}


def _public_estimators():
    for name in sklearn_perceptrons.__all__:
        obj = getattr(sklearn_perceptrons, name)
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
            yield obj


def _documented_parameters(cls):
    doc = inspect.getdoc(cls)
    section = re.search(r"^Parameters\n-+\n(.*?)(?=^\w[^\n]*\n-+\n|\Z)", doc,
                        re.MULTILINE | re.DOTALL)
    assert section, f"{cls.__name__} has no Parameters section"
    return re.findall(r"^(\w+) : ", section.group(1), re.MULTILINE)


@pytest.mark.parametrize("cls", list(_public_estimators()),
                         ids=lambda cls: cls.__name__)
def test_docstring_documents_the_signature_in_order(cls):
    names = [name for name, _, _ in _signature(cls)]
    assert _documented_parameters(cls) == names


def test_default_random_state_gives_the_same_model_twice():
    # A declared default is the very value a written one would be: an int
    # seed, so two fits of one estimator agree bit for bit.
    X = np.random.RandomState(0).normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    for cls in (ALMAClassifier, ROMMAClassifier, AROWClassifier):
        first, second = cls().fit(X, y), cls().fit(X, y)
        np.testing.assert_array_equal(first.coef_, second.coef_)
