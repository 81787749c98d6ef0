# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""scikit-learn's experimental callbacks (``sklearn.callback``, scikit-learn
>= 1.9) with the estimators of the package: the epochs as tasks, the model
of every epoch (checked against a fit stopped there), stopping on request,
ProgressBar and ScoringMonitor, partial_fit calls as tasks.  Skipped where
the installed scikit-learn has no callback API."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning

callback = pytest.importorskip("sklearn.callback")

from sklearn_perceptrons import (  # noqa: E402
    ALMAClassifier,
    AROWClassifier,
    KernelPerceptron,
    MarginPerceptron,
    OneVsAllPerceptron,
    OneVsOnePerceptron,
    PassiveAggressiveClassifier,
    Perceptron,
    ROMMAClassifier,
    SecondOrderPerceptron,
    VotedPerceptron,
)


class Recorder:
    """A callback that records every hook, and at the end of every epoch
    the decision function of the model offered (``fitted_estimator``) on
    the training data; ``stop_after`` epochs, it asks the fit to stop."""

    def __init__(self, stop_after=None):
        self.events, self.decisions = [], []
        self.stop_after = stop_after

    def setup(self, estimator, context):
        self.events.append("setup")

    def teardown(self, estimator, context):
        self.events.append("teardown")

    def on_fit_task_begin(self, estimator, context):
        self.events.append(("begin", context.task_name))

    def on_fit_task_end(self, estimator, context, *, X=None, y=None,
                        fitted_estimator=None):
        self.events.append(("end", context.task_name))
        if context.task_name in ("epoch", "round") and fitted_estimator is not None:
            self.decisions.append(fitted_estimator.decision_function(X))
            return (self.stop_after is not None
                    and len(self.decisions) == self.stop_after)
        return False


def data(n_classes=3, seed=0):
    return make_classification(200, 6, n_informative=4, n_redundant=0,
                               n_classes=n_classes, random_state=seed)


def quiet_fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y)


EPOCH_ESTIMATORS = [
    Perceptron(max_iter=4, tol=None),
    Perceptron(max_iter=4, tol=None, average=True),
    Perceptron(max_iter=4, tol=None, multi_class="crammer_singer"),
    MarginPerceptron(max_iter=4, tol=None),
    MarginPerceptron(max_iter=4, tol=None, margin=0.5),
    SecondOrderPerceptron(max_iter=4, tol=None),
    KernelPerceptron(max_iter=4, tol=None),
    KernelPerceptron(max_iter=4, tol=None, budget=30),
    VotedPerceptron(max_iter=4),
    VotedPerceptron(max_iter=4, kernel="rbf"),
    OneVsAllPerceptron(Perceptron(max_iter=4, tol=None)),
    OneVsOnePerceptron(Perceptron(max_iter=4, tol=None)),    PassiveAggressiveClassifier(max_iter=4, tol=None, random_state=0),
    PassiveAggressiveClassifier(max_iter=4, tol=None, average=True, random_state=0,
                                multi_class="crammer_singer"),
    ALMAClassifier(max_iter=4, tol=None),
    ROMMAClassifier(max_iter=4, tol=None, aggressive=True),
    AROWClassifier(max_iter=4, tol=None),
    AROWClassifier(max_iter=4, tol=None, diagonal=True),
]


def _max_iter(est, k):
    if hasattr(est, "estimator"):
        return clone(est).set_params(estimator__max_iter=k)
    return clone(est).set_params(max_iter=k)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("est", EPOCH_ESTIMATORS, ids=repr)
def test_the_model_of_every_epoch_is_that_of_a_fit_stopped_there(est, n_classes):
    X, y = data(n_classes)
    recorder = Recorder()
    fitted = quiet_fit(clone(est).set_callbacks(recorder), X, y)
    assert recorder.events[0] == "setup" and recorder.events[-1] == "teardown"
    assert recorder.events[1] == ("begin", "fit")
    assert recorder.events[-2] == ("end", "fit")
    n_epochs = recorder.events.count(("end", "epoch"))
    assert n_epochs == len(recorder.decisions) >= 1
    for k, decision in enumerate(recorder.decisions, 1):
        reference = quiet_fit(_max_iter(est, k), X, y)
        assert_array_equal(decision, reference.decision_function(X))
    # The callbacks change nothing of the fit, and leave nothing behind.
    silent = quiet_fit(clone(est), X, y)
    assert_array_equal(fitted.decision_function(X), silent.decision_function(X))
    assert "_callback_fit_ctx" not in vars(fitted)


def test_a_callback_can_stop_the_fit(capsys):
    X, y = data()
    recorder = Recorder(stop_after=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # no warning
        clf = Perceptron(max_iter=50, tol=None, verbose=1).set_callbacks(
            recorder).fit(X, y)
    assert clf.n_iter_ == 2 and not clf.converged_
    assert recorder.events.count(("end", "epoch")) == 2
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("-- Stopped after 2 epochs (a callback asked to stop)")


def test_parameter_mixing_rounds_are_tasks():
    pytest.importorskip("dask")
    import dask.array as da

    from sklearn_perceptrons.distributed import ParameterMixing

    X, y = data()
    dX, dy = da.from_array(X, chunks=(50, 6)), da.from_array(y, chunks=50)
    recorder = Recorder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        pm = ParameterMixing(Perceptron(), max_rounds=3, tol=None).set_callbacks(
            recorder).fit(dX, dy)
    assert recorder.events.count(("end", "round")) == 3 == len(recorder.decisions)
    assert_array_equal(recorder.decisions[-1], pm.decision_function(dX).compute())


def test_the_generic_path_propagates_to_the_binary_estimators():
    X, y = data()
    base = Perceptron(max_iter=3, tol=None, class_weight="balanced")
    recorder = Recorder()
    quiet_fit(OneVsOnePerceptron(base).set_callbacks(recorder), X, y)
    # A task per binary problem; the recorder is not propagated (it is no
    # AutoPropagatedCallback), so the binary fits' epochs are not its own.
    assert recorder.events.count(("end", "binary problem")) == 3
    assert ("end", "epoch") not in recorder.events


def test_scoring_monitor_logs_every_epoch():
    pytest.importorskip("pandas")
    X, y = data()
    monitor = callback.ScoringMonitor(scoring="accuracy")
    clf = quiet_fit(KernelPerceptron(max_iter=3, tol=None).set_callbacks(monitor),
                    X, y)
    log = monitor.get_logs()
    rows = log.data
    assert [r["task_name"] for r in rows] == ["fit", "epoch", "epoch", "epoch"]
    assert rows[0]["accuracy"] == clf.score(X, y) == rows[-1]["accuracy"]
    frame = log.data_as_pandas
    assert list(frame["task_name"]) == ["fit", "epoch", "epoch", "epoch"]


def test_progress_bar(capsys):
    pytest.importorskip("rich")
    X, y = data()
    quiet_fit(Perceptron(max_iter=3, tol=None).set_callbacks(
        callback.ProgressBar()), X, y)
    out = capsys.readouterr().out
    assert "Perceptron - fit" in out and "100%" in out
    # Nested: the binary estimators' bars under the reduction's.
    base = Perceptron(max_iter=3, tol=None, class_weight="balanced")
    quiet_fit(OneVsAllPerceptron(base).set_callbacks(
        callback.ProgressBar(max_propagation_depth=None)), X, y)
    out = capsys.readouterr().out
    assert "OneVsAllPerceptron - fit" in out
    assert out.count("binary problem | Perceptron - fit") == 3


@pytest.mark.parametrize("est", [
    Perceptron(), MarginPerceptron(), SecondOrderPerceptron(), KernelPerceptron(),
    OneVsAllPerceptron(Perceptron()), OneVsOnePerceptron(Perceptron()),
], ids=repr)
def test_every_partial_fit_call_is_a_task(est):
    X, y = data()
    recorder = Recorder()
    plain = clone(est)
    est = clone(est).set_callbacks(recorder)
    for start in [0, 50, 100, 101, 102]:
        stop = start + 50 if start < 100 else start + 1
        for e in (est, plain):
            e.partial_fit(X[start:stop], y[start:stop], classes=[0, 1, 2])
    # One task per call, even for the one-row calls that the lean streaming
    # path would otherwise take.
    assert recorder.events.count(("begin", "partial_fit")) == 5
    assert recorder.events.count("teardown") == 5
    assert_array_equal(est.decision_function(X), plain.decision_function(X))
    assert "_stream" not in vars(est)
    # Without callbacks, the lean path is back.
    est.set_callbacks()
    est.partial_fit(X[:1], y[:1])
    est.partial_fit(X[1:2], y[1:2])
    assert "_stream" in vars(est)


def test_a_failed_fit_tears_its_callbacks_down():
    X, y = data()
    recorder = Recorder()
    clf = Perceptron().set_callbacks(recorder)
    with pytest.raises(ValueError, match="class"):
        clf.fit(X, np.zeros_like(y))
    assert recorder.events.count("setup") == recorder.events.count("teardown")
    assert "_callback_fit_ctx" not in vars(clf) and not hasattr(clf, "coef_")


def test_set_callbacks_checks_its_arguments():
    with pytest.raises(TypeError, match="FitCallback"):
        Perceptron().set_callbacks(object())
    clf = Perceptron().set_callbacks(Recorder())
    assert clone(clf)._skl_callbacks == clf._skl_callbacks
