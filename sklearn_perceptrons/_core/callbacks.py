# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""scikit-learn's callbacks (``sklearn.callback``, experimental since
scikit-learn 1.9) for the estimators of the package.

Where the installed scikit-learn has the API, every estimator has
``set_callbacks`` (scikit-learn's ``CallbackSupportMixin``) and reports its
work as scikit-learn's own estimators do, through the public API only
(``CallbackSupportMixin``, ``with_callbacks``, the documented
``_init_callback_context`` and the ``CallbackContext`` methods):

* ``fit`` is the root task; its subtasks are the epochs (``"epoch"``, at most
  ``max_iter`` of them) or the rounds of ``ParameterMixing`` (``"round"``),
  or, on a reduction's generic path, the binary problems, whose estimators
  receive the propagated callbacks (their epochs nest below);
* the end of an epoch offers the model of that epoch (``fitted_estimator``,
  built only if a callback asks for it), and a callback that returns True
  from ``on_fit_task_end`` stops the fit after that epoch;
* every ``partial_fit`` call is a task of its own (``"partial_fit"``), as
  for scikit-learn's ``StandardScaler``.

Without the API (scikit-learn < 1.9) nothing here does anything and the
estimators have no ``set_callbacks``.  An estimator without callbacks pays
one dictionary lookup per ``fit``.
"""

import contextvars
import copy
import dataclasses
import functools
import inspect

try:  # scikit-learn >= 1.9
    from sklearn.callback import CallbackSupportMixin, with_callbacks
except ImportError:  # pragma: no cover - the API is absent
    CallbackSupportMixin = with_callbacks = None

#: Whether the installed scikit-learn has the callback API.
AVAILABLE = CallbackSupportMixin is not None


class CallbackSupport(CallbackSupportMixin if AVAILABLE else object):
    """Mixin: scikit-learn's ``set_callbacks``, where it exists."""

    if AVAILABLE:

        def set_callbacks(self, *callbacks):
            """Set callbacks for ``fit`` and ``partial_fit`` (scikit-learn's
            experimental ``sklearn.callback`` API, e.g. ``ProgressBar`` and
            ``ScoringMonitor``).

            Parameters
            ----------
            *callbacks : callback instances
                The callbacks; none removes them.

            Returns
            -------
            self : object
                The estimator.
            """
            super().set_callbacks(*callbacks)
            # The lean one-row paths of partial_fit call no hooks: drop them
            # (stream_cache keeps none while callbacks are set).
            self.__dict__.pop("_stream", None)
            return self


def has_callbacks(estimator):
    """Whether ``estimator`` has callbacks to call."""
    return "_skl_callbacks" in estimator.__dict__


@dataclasses.dataclass
class _Call:
    """A ``fit`` call of an estimator with callbacks: what its hooks
    receive, and its tasks once the fit started them."""

    estimator: object
    X: object
    y: object
    metadata: dict
    tasks: object = None


# The fit call with callbacks that runs in this context (nested fits, e.g.
# a reduction's binary estimators, have their own).
_CALL = contextvars.ContextVar("sklearn_perceptrons_callback_fit", default=None)


class FitTasks:
    """The tasks of one ``fit``: the root task and its subtasks (epochs,
    rounds or binary problems), started in order."""

    def __init__(self, call, max_subtasks, subtask_name):
        self.call = call
        self.subtask_name = subtask_name
        self.root = call.estimator._init_callback_context(
            max_subtasks=max_subtasks)
        self.current = None
        self.root.call_on_fit_task_begin(**self._args())

    def _args(self):
        call = self.call
        return dict(estimator=call.estimator, X=call.X, y=call.y,
                    metadata=call.metadata)

    def begin(self):
        """Start the next subtask (an epoch)."""
        self.current = self.root.subcontext(task_name=self.subtask_name)
        self.current.call_on_fit_task_begin(**self._args())

    def end(self, model=None):
        """End the current subtask; ``model()`` (called only if a callback
        asks for the fitted model) gives the attributes of the model at
        this point.  Returns whether a callback asks to stop."""
        current, self.current = self.current, None
        return bool(current.call_on_fit_task_end(
            **self._args(), reconstruction_attributes=model))

    def subcontexts(self, n):
        """Leaf contexts of ``n`` binary problems, to pass to their fits
        (:func:`fit_in_context`)."""
        return [self.root.subcontext(task_name=self.subtask_name)
                for _ in range(n)]

    def finish(self):
        self.root.call_on_fit_task_end(**self._args(),
                                       reconstruction_attributes={})


def fit_tasks(estimator, max_subtasks, subtask_name="epoch"):
    """The :class:`FitTasks` of the running ``fit`` of ``estimator`` (the
    root task begins at the first call, with ``max_subtasks`` subtasks), or
    None without callbacks."""
    call = _CALL.get()
    if call is None or call.estimator is not estimator:
        return None
    if call.tasks is None:
        call.tasks = FitTasks(call, max_subtasks, subtask_name)
    return call.tasks


def model_attributes(estimator, set_model):
    """The attributes that ``set_model(other)`` sets on a shallow copy of
    ``estimator`` (the model of an epoch, for the callbacks that ask for
    it: scikit-learn sets them on another copy); ``estimator`` is left as
    it is."""
    scratch = copy.copy(estimator)
    before = dict(vars(scratch))
    set_model(scratch)
    return {name: value for name, value in vars(scratch).items()
            if before.get(name, _MISSING) is not value}


_MISSING = object()


def _call_arguments(method):
    signature = inspect.signature(method)

    def arguments(self, args, kwargs):
        bound = signature.bind(self, *args, **kwargs).arguments
        sample_weight = bound.get("sample_weight")
        metadata = {} if sample_weight is None else {"sample_weight": sample_weight}
        return bound.get("X"), bound.get("y"), metadata

    return arguments


def _managed_when_called_back(method, managed):
    """``method`` as it is when no callback is set (no cost), ``managed``
    when the estimator has callbacks."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if "_skl_callbacks" not in self.__dict__:
            return method(self, *args, **kwargs)
        return managed(self, args, kwargs)

    return wrapper


def callback_fit(method):
    """Decorator of a ``fit``: with callbacks, the body may start its tasks
    (:func:`fit_tasks`); the root task ends when the fit returns (a leaf
    task, if the body started none), and the callbacks are torn down
    however it ends."""
    if not AVAILABLE:
        return method
    arguments = _call_arguments(method)

    @with_callbacks
    def managed(self, args, kwargs):
        call = _Call(self, *arguments(self, args, kwargs))
        token = _CALL.set(call)
        try:
            result = method(self, *args, **kwargs)
        finally:
            _CALL.reset(token)
        tasks = call.tasks or FitTasks(call, 0, None)
        tasks.finish()
        return result

    return _managed_when_called_back(method, managed)


def callback_partial_fit(method):
    """Decorator of a ``partial_fit``: with callbacks, the call is a task
    (``"partial_fit"``) whose end offers the updated estimator."""
    if not AVAILABLE:
        return method
    arguments = _call_arguments(method)

    @with_callbacks
    def managed(self, args, kwargs):
        X, y, metadata = arguments(self, args, kwargs)
        context = self._init_callback_context(task_name="partial_fit")
        context.call_on_fit_task_begin(estimator=self, X=X, y=y,
                                       metadata=metadata)
        result = method(self, *args, **kwargs)
        context.call_on_fit_task_end(estimator=self, X=X, y=y,
                                     metadata=metadata,
                                     reconstruction_attributes={})
        return result

    return _managed_when_called_back(method, managed)


def fit_in_context(context, owner, estimator, fit):
    """Run ``fit()`` of the binary ``estimator`` of the reduction ``owner``
    as the leaf task ``context`` (None: without callbacks), the reduction's
    auto-propagated callbacks (``ProgressBar``) propagated to it."""
    if context is None:
        return fit()
    with context.propagate_callback_context(estimator):
        context.call_on_fit_task_begin(estimator=owner)
        result = fit()
        context.call_on_fit_task_end(estimator=owner)
    return result
