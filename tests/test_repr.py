# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The notebook (HTML) and text representations of every estimator."""

import inspect
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import sklearn_perceptrons
from sklearn_perceptrons import MarginPerceptron, OneVsOnePerceptron, Perceptron

ESTIMATORS = [
    getattr(sklearn_perceptrons, name) for name in sklearn_perceptrons.__all__
    if inspect.isclass(getattr(sklearn_perceptrons, name))
]
try:
    from sklearn_perceptrons.distributed import ParameterMixing

    ESTIMATORS.append(ParameterMixing)
except ImportError:  # Dask is an optional dependency
    pass


def _fit(estimator):
    X, y = make_blobs(n_samples=60, centers=3, random_state=0)
    if type(estimator).__name__ == "ParameterMixing":
        import dask.array as da

        X, y = da.from_array(X, chunks=(20, 2)), da.from_array(y, chunks=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(X, y)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_html_repr(cls):
    """``_repr_html_`` (what Jupyter shows) names the estimator and tells
    fitted from unfitted, as scikit-learn's own estimators do."""
    estimator = cls()
    unfitted = estimator._repr_html_()
    assert unfitted.lstrip().startswith("<")
    assert cls.__name__ in unfitted
    assert "sk-estimator fitted" not in unfitted
    assert "text/html" in estimator._repr_mimebundle_()

    fitted = _fit(estimator)._repr_html_()
    assert cls.__name__ in fitted
    assert "sk-estimator fitted" in fitted


def test_html_repr_shows_the_base_estimator_and_changed_parameters():
    meta = OneVsOnePerceptron(MarginPerceptron(epsilon=0.25))
    html = meta._repr_html_()
    assert "OneVsOnePerceptron" in html
    assert "MarginPerceptron" in html
    assert "0.25" in html
    pipe = make_pipeline(StandardScaler(), Perceptron(threshold=0.5))
    html = _fit(pipe)._repr_html_()
    assert "Perceptron" in html and "StandardScaler" in html


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_text_repr_shows_changed_parameters_only(cls):
    estimator = cls()
    assert repr(estimator) == f"{cls.__name__}()"
    params = estimator.get_params(deep=False)
    # A parameter with a non-default value appears in the repr.
    name = next(
        (n for n in ("random_state", "n_jobs", "max_rounds") if n in params), None
    )
    if name is None:
        pytest.skip(f"{cls.__name__} has no simple integer parameter")
    estimator.set_params(**{name: 3})
    assert f"{name}=3" in repr(estimator)
    # A fitted estimator prints the same.
    assert repr(_fit(estimator)) == repr(estimator)
    np.testing.assert_equal(estimator.get_params(deep=False)[name], 3)
