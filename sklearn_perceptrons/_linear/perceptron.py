# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The linear perceptrons: :class:`Perceptron` and what every linear
perceptron shares (:class:`BaseLinearPerceptron`).

A linear perceptron is a :class:`~sklearn_perceptrons._rows.LinearState`
trained by the compiled epoch; ``fit`` runs it through the driver of
:mod:`sklearn_perceptrons._training`.  A subclass says which rule triggers
an update (:meth:`BaseLinearPerceptron._rule`) and may replace the trainer
or the pass of ``partial_fit`` (the margin search of ``MarginPerceptron``).

The functions at the end (:func:`learning_rate`, :func:`update_rule`,
:func:`binary_state`, :func:`set_binary_fit`) are the internal API through
which the multiclass fast path and ParameterMixing train these estimators'
rows without touching their private attributes.
"""

import numbers
import operator

import numpy as np
from joblib import effective_n_jobs
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.extmath import safe_sparse_dot

from .._core.base import (
    N_JOBS_CONSTRAINT,
    BasePerceptron,
    DeclaredParameters,
    decision_shape,
    fit_method,
    forget_stream,
    fork,
    keep_state_on_error,
    partial_fit_context,
    label_index,
    param_names,
    set_init_params,
    stream_cache,
)
from .._core.callbacks import fit_tasks, model_attributes
from .._core.docstrings import shared_doc
from .._core.growth import register_flip
from .._core.progress import FitLog
from .rows import (
    RULE_CS_MAX,
    RULE_CS_UNIFORM,
    RULE_THRESHOLD,
    CoupledTrainer,
    LinearState,
    LinearTrainer,
    Penalty,
    Rule,
    run_epoch,
    sparse_decision,
)
from .stream import LinearStream, same_key, streams
from .._core.tables import crammer_singer_table, one_vs_all_table, sign_matrix
from .._core.training import (
    ArgmaxValidation,
    Validation,
    record_partial_pass,
    set_fit_results,
    stopping_rule,
    train,
    validation_split,
)


class ComputedAttribute:
    """A fitted attribute kept under a private name (``coef_`` in ``_coef``)
    and, while that is None, computed when read.

    ``compute`` names the owner's method that returns the pair the
    attribute is item ``position`` of; before the private name is set
    (unfitted), reading raises the AttributeError of a missing attribute.
    Assigning the attribute stores the value as it is.
    """

    def __init__(self, compute, position):
        self.compute, self.position = compute, position

    def __set_name__(self, owner, name):
        self.name, self.private = name, "_" + name.rstrip("_")

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        if self.private not in vars(instance):
            raise AttributeError(f"{type(instance).__name__!r} object has no "
                                 f"attribute {self.name!r}")
        return getattr(instance, self.compute)()[self.position]

    def __set__(self, instance, value):
        setattr(instance, self.private, value)


class BaseLinearPerceptron(BasePerceptron):
    """Weights, the fit and partial_fit drivers, and the decision function of
    the linear perceptrons.

    Subclasses say which rule triggers an update through :meth:`_rule`;
    everything else is shared.
    """

    _state_types = {"_state": LinearState}
    # The class of the state of a fit (a subclass's rule may keep more).
    _state_class = LinearState

    _parameter_constraints = {
        **BasePerceptron._parameter_constraints,
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(numbers.Real, 0, 1, closed="neither")],
        "grow_classes": ["boolean"],
    }

    # Learning rate of the update; estimators without eta0 use 1.
    def _learning_rate(self):
        return getattr(self, "eta0", 1.0)

    def _rule(self, X, n_rows):
        """The update :class:`~sklearn_perceptrons._rows.Rule` of every row."""
        raise NotImplementedError

    # Whether _rule reads X (else partial_fit reuses it while the parameters
    # stay the same).
    _rule_reads_data = False

    def _n_threads(self):
        """Threads of a one-vs-all pass (``n_jobs``; 1 without it)."""
        if not hasattr(self, "n_jobs"):
            return 1
        return max(1, effective_n_jobs(self.n_jobs))

    @property
    def _plain_pass(self):
        # Whether the pass of partial_fit is the plain compiled pass (not
        # replaced by a subclass), which the stream may run.
        return type(self)._partial_pass is BaseLinearPerceptron._partial_pass

    def _crammer_singer(self):
        """Whether the classes are learned by the native multiclass rule."""
        return getattr(self, "multi_class", "ovr") == "crammer_singer"

    def _layout(self, n_classes):
        """(n_rows, table) of the weight rows: one-vs-all (one row for two
        classes), or Crammer-Singer's one row per class (two for two)."""
        if self._crammer_singer():
            return n_classes, crammer_singer_table(n_classes)
        return (1 if n_classes == 2 else n_classes), one_vs_all_table(n_classes)

    def _public_model(self, model):
        """(coef_, intercept_) of a model: two Crammer-Singer rows of a binary
        problem become their difference ``w_1 - w_0``, the one row whose
        sign decides as the argmax of the two scores does (ties aside:
        ``predict`` of a 1-d decision takes ``classes_[0]`` at 0, as the
        argmax does)."""
        coef, intercept = model
        if self._crammer_singer() and coef.shape[0] == 2:
            return coef[1:] - coef[:1], intercept[1:] - intercept[:1]
        return coef, intercept

    # -- hooks of fit and partial_fit ----------------------------------------

    def _trainer(self, X, y_class, step, table, state, train_idx):
        """The trainer of ``fit`` (see :mod:`sklearn_perceptrons._training`)."""
        return LinearTrainer(X, y_class, step, table, state,
                             fit_intercept=self.fit_intercept,
                             rule=self._rule(X, state.coef.shape[0]),
                             n_threads=self._n_threads())

    def _finish_fit(self, trainer, record, X, y_class, signs_of_class):
        """The (coef, intercept) of a finished fit; sets extra attributes."""
        return trainer.state.model()

    def _current_model(self, trainer, stopper):
        """The (coef, intercept) a fit stopped now would return (for the
        callbacks that ask for the model of an epoch)."""
        return trainer.state.model()

    def _epoch_attributes(self, classes):
        """``model(trainer, stopper)`` of the driver: the attributes of the
        model of the current epoch."""
        def model(trainer, stopper):
            coef, intercept = self._public_model(
                self._current_model(trainer, stopper))

            def set_model(est):
                est.classes_, est.coef_, est.intercept_ = classes, coef, intercept

            # Under their public names (the properties' storage is private).
            public = {private: name for name, private
                      in self._published_attributes.items()}
            return {public.get(name, name): value for name, value
                    in model_attributes(self, set_model).items()}

        return model

    def _partial_pass(self, X, state, y_class, step, table):
        """The pass of ``partial_fit`` over the rows of X, in order.

        Returns the updates of every row.  A hook: ``MarginPerceptron``'s
        online margin search splits the pass where its margin changes.
        """
        n_rows = state.coef.shape[0]
        return run_epoch(
            X, state, np.arange(X.shape[0], dtype=np.int32), y_class, step, table,
            fit_intercept=self.fit_intercept, active=np.ones(n_rows, np.uint8),
            rule=self._rule(X, n_rows), n_threads=self._n_threads(),
        )

    def _grow_classes(self, growth):
        """Re-index the weight rows for the classes of ``growth`` (a
        :class:`~sklearn_perceptrons._core.growth.Growth`): one-vs-all rows,
        or Crammer-Singer's row per class; a new class's row starts at
        ``w = 0`` with nothing visited."""
        state = self._state
        n_rows = self._layout(growth.old.shape[0])[0]
        if state.coef.shape[0] != n_rows:
            raise ValueError(
                f"partial_fit needs the multi_class of the first call: the "
                f"model has {state.coef.shape[0]} weight row(s), multi_class="
                f"{getattr(self, 'multi_class', 'ovr')!r} learns {n_rows}. "
                "Call fit to start anew."
            )
        self._grow_rows(*(growth.class_rows() if self._crammer_singer()
                          else growth.one_vs_all_rows()))
        self.classes_ = growth.classes

    def _grow_rows(self, source, sign):
        """The state (and any per-row state of a subclass) with row ``j``
        taken from row ``source[j]`` times ``sign[j]``, fresh where
        ``source[j]`` is -1."""
        self._state = self._state.grown(source, sign)

    def _finish_row(self, X, samples):
        """Extra attributes of a binary fit built by the multiclass fast
        path (``samples()``: the row's training samples and signs)."""

    # -- public API --------------------------------------------------------

    def decision_function(self, X):
        """Signed confidence of every sample: ``X @ coef_.T + intercept_``.

        Costs one dot product per weight row and sample: O(n_features) for
        a dense row, O(nnz) for a CSR row (only the weights of its columns
        are read, whatever the width of the model).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples; float32 and CSR data are used without copies.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For binary problems, the score of ``classes_[1]`` (positive means
            ``classes_[1]`` is predicted); otherwise one column per class.
        """
        X = self._validate_predict_data(X)
        if type(X) is np.ndarray:
            coef = self.coef_
            if X.shape[0] == 1 and coef.shape[0] == 1:
                return np.array([binary_row_decision(X, coef, self.intercept_)])
            # safe_sparse_dot computes X @ coef_.T for a dense X: the same
            # product, without its dispatch.
            scores = X @ coef.T
            scores += self.intercept_
            return decision_shape(scores)
        return decision_shape(self._sparse_scores(X))

    def _sparse_scores(self, X):
        """``X @ coef_.T + intercept_`` of validated CSR rows, read from the
        published model, or from the state while the model moved since it
        was published (an average: only the weights of the rows' columns
        are averaged), in SciPy's arithmetic (the same bits)."""
        if getattr(self, "_coef", None) is None \
                and getattr(self, "_intercept", None) is None:
            state = self._state
            if state.coef.shape[0] == self._public_rows(state.coef.shape[0]):
                scores = sparse_decision(X, state.coef, state.intercept,
                                         sums=state, dtype=state.model_dtype)
                if scores is not None:
                    return scores
        coef, intercept = self._published()
        scores = sparse_decision(X, coef, intercept)
        if scores is None:  # weights set by hand: SciPy's product
            scores = safe_sparse_dot(X, coef.T, dense_output=True)
            scores += intercept
        return scores

    # -- the published model -----------------------------------------------

    # The fitted attributes that a pass may leave to be computed when read
    # (public name: private storage, None while stale).
    _published_attributes = {"coef_": "_coef", "intercept_": "_intercept"}

    coef_ = ComputedAttribute("_published", 0)
    intercept_ = ComputedAttribute("_published", 1)

    def _published(self):
        """``(coef_, intercept_)``: as set by the last fit or pass, or
        computed from the state when a pass moved the model since (an
        average, which a one-row call does not recompute)."""
        coef, intercept = self._coef, self._intercept
        if coef is None or intercept is None:
            model = self._public_model(self._state.model())
            if coef is None:
                self._coef = coef = model[0]
            if intercept is None:
                self._intercept = intercept = model[1]
        return coef, intercept

    def _public_rows(self, n_rows):
        """The number of rows of ``coef_`` for ``n_rows`` weight rows."""
        return 1 if self._crammer_singer() and n_rows == 2 else n_rows

    def _model_moved(self):
        """After a pass updated the state in place: ``coef_`` is computed
        when next read, unless it is the state's own weights (which the
        pass moved)."""
        if self._coef is not self._state.coef:
            self._coef = self._intercept = None

    def __getstate__(self):
        # A pickle holds every fitted attribute under its public name, as
        # it is when read.
        for name in self._published_attributes:
            getattr(self, name, None)
        state = super().__getstate__()
        for name, private in self._published_attributes.items():
            if private in state:
                state[name] = state.pop(private)
        state.pop("_last_batch", None)
        return state

    def __setstate__(self, state):
        state = dict(state)
        for name, private in self._published_attributes.items():
            if name in state:
                state[private] = state.pop(name)
        super().__setstate__(state)

    # -- fitting -----------------------------------------------------------

    @fit_method
    def fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        """Fit the perceptron by epochs over the training data.

        {{fit_X_y}}

        coef_init : ndarray of shape (n_classes, n_features), default=None
            Initial weights w₀ (shape (1, n_features) or (n_features,) for
            binary problems); for a margin search, the start of its first run.

        intercept_init : ndarray of shape (n_classes,), default=None
            Initial intercepts b₀.

        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights scaling the size of each sample's updates.

        {{fit_returns}}
        """
        return self._fit(X, y, coef_init, intercept_init, sample_weight)

    @shared_doc
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Make one pass over the given samples, in the given order.

        :class:`Perceptron` and :class:`MarginPerceptron` are built for
        streaming: after the first call, a call on a few rows of a float
        ndarray costs little more than the update itself (the parameters are
        validated again only when they changed, and the weights are updated
        in place, so ``coef_`` may change under a reference kept from an
        earlier call, as with scikit-learn's ``SGDClassifier``: copy it to
        keep a snapshot; with ``average=True``, ``coef_`` is computed when
        read).  CSR rows with int32 indices take the same path, at
        O(nnz) per weight row whatever the number of features, as does
        ``predict`` on them.
        :class:`SecondOrderPerceptron` copies its state once per call.  A
        failed call leaves the estimator as it was.

        {{partial_fit_params}}
        """
        # The armed stream (see stream.py) takes a whole call by itself; it
        # declines anything else, untouched.
        cache = getattr(self, "_stream", None)
        if cache is not None and classes is None and sample_weight is None:
            stream = cache.get("fast")
            if stream is not None:
                total = stream.learn(self._lean_key(), X, y)
                if total is not None:
                    self._after_learn(X, y, stream, total)
                    return self
        return self._checked_partial_fit(X, y, classes, sample_weight)

    @keep_state_on_error
    @partial_fit_context
    def _checked_partial_fit(self, X, y, classes=None, sample_weight=None):
        """``partial_fit`` the full way: every check, then the pass."""
        return self._partial_fit(X, y, classes, sample_weight)

    # What a lean call must find unchanged besides the parameters.
    _lean_key_attributes = ("_state", "classes_")

    def _lean_key(self):
        """The key of a lean call (see stream.py): the state, the classes
        and the parameters, read in one call."""
        getter = _LEAN_KEYS.get(type(self))
        if getter is None:
            getter = _LEAN_KEYS[type(self)] = operator.attrgetter(
                *self._lean_key_attributes, *param_names(self))
        return getter(self)

    @property
    def _stream_plain(self):
        # Whether the pass of partial_fit is, as far as the weights go, the
        # plain compiled pass, which the compiled stream may run.
        return self._plain_pass

    def _after_stream(self, X, state, y_class, table):
        """What a pass of the compiled stream in the checked path leaves to
        do (the diagnostics a subclass's own pass would set)."""

    def _after_learn(self, X, y, stream, total):
        """The bookkeeping of a call the armed stream took (``total``
        updates): the model moved, one more pass.  A subclass defers its
        diagnostics until they are read."""
        self._model_moved()
        record_partial_pass(self, total)

    def _defer_row_diagnostics(self, X, y):
        """Of a binary estimator of a reduction's lean call, on its rows X
        and labels y (0/1; private arrays that nothing writes to): the
        diagnostics its own lean call would defer (none here)."""

    def _check_warm_start_shape(self, n_rows, n_features):
        """A clear error when warm_start cannot continue the previous model."""
        previous_rows, previous_features = self._state.coef.shape
        if (previous_rows, previous_features) == (n_rows, n_features):
            return
        def n_classes(rows):
            return 2 if rows == 1 else rows
        previous = getattr(self, "classes_", None)
        named = "" if previous is None else f" {previous.tolist()!r}"
        if previous_features == n_features and {previous_rows, n_rows} == {1, 2}:
            raise ValueError(
                f"warm_start=True continues the previous fit, which learned "
                f"{previous_rows} weight row(s); multi_class="
                f"{getattr(self, 'multi_class', 'ovr')!r} learns {n_rows} for "
                "two classes. warm_start needs the multi_class of the previous "
                "fit: set warm_start=False to fit a new model."
            )
        raise ValueError(
            f"warm_start=True continues the previous fit, which had "
            f"{n_classes(previous_rows)} classes{named} and {previous_features} "
            f"features; this data has {n_classes(n_rows)} classes and "
            f"{n_features} features. warm_start needs the same classes and "
            "features: set warm_start=False to fit a new model."
        )

    def _initial_state(self, X, n_rows, coef_init, intercept_init):
        dtype = X.dtype
        n_features = X.shape[1]
        if coef_init is None and self.warm_start and hasattr(self, "_state"):
            self._check_warm_start_shape(n_rows, n_features)
            coef_init = self._state.coef
            if intercept_init is None and self.fit_intercept:
                intercept_init = self._state.intercept
        coef = np.zeros((n_rows, n_features), dtype=dtype)
        intercept = np.zeros(n_rows, dtype=dtype)
        if coef_init is not None:
            coef_init = np.asarray(coef_init, dtype=dtype)
            if coef_init.size != coef.size or (
                coef_init.ndim == 2 and coef_init.shape != coef.shape
            ):
                raise ValueError(
                    f"coef_init has shape {coef_init.shape}; expected "
                    f"{coef.shape} for {n_rows} binary sub-problem(s) of "
                    f"{n_features} features."
                )
            coef[:] = coef_init.reshape(coef.shape)
        if not self.fit_intercept:
            # Without an intercept the model has none: a nonzero starting
            # intercept would be an offset the loop never sees.
            if intercept_init is not None and np.any(np.asarray(intercept_init) != 0):
                raise ValueError(
                    "intercept_init is nonzero but fit_intercept=False; pass "
                    "fit_intercept=True or leave intercept_init out."
                )
            intercept_init = None
        if intercept_init is not None:
            intercept_init = np.asarray(intercept_init, dtype=dtype).ravel()
            if intercept_init.shape != intercept.shape:
                raise ValueError(
                    f"intercept_init has shape {intercept_init.shape}; expected "
                    f"{intercept.shape}."
                )
            intercept[:] = intercept_init
        if not (np.isfinite(coef).all() and np.isfinite(intercept).all()):
            raise ValueError("coef_init and intercept_init must be finite.")
        return self._state_class(coef, intercept, self.average)

    def _fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        X, classes, y_class, sample_weight = self._validate_fit_data(
            X, y, sample_weight
        )
        n_classes = classes.shape[0]
        n_rows, table = self._layout(n_classes)
        coupled = self._crammer_singer()
        class_weight = self._class_weights(classes, y_class,
                                           sample_weight=sample_weight)
        step = self._learning_rate() * sample_weight * class_weight[y_class]
        state = self._initial_state(X, n_rows, coef_init, intercept_init)
        rng = check_random_state(self.random_state)
        signs_of_class = sign_matrix(table, n_classes, n_rows)
        validation = None
        if self.early_stopping:
            train_idx, val_idx = validation_split(
                X.shape[0], self.validation_fraction, rng
            )
            validation = (ArgmaxValidation(val_idx, y_class) if coupled
                          else Validation(val_idx, y_class, signs_of_class))
        else:
            train_idx = np.arange(X.shape[0], dtype=np.int32)

        trainer = self._trainer(X, y_class, step, table, state, train_idx)
        if coupled:
            # A Crammer-Singer mistake moves several rows: they stop together.
            trainer = CoupledTrainer(trainer)
        record = train(
            trainer, train_idx=train_idx, rng=rng, shuffle=self.shuffle,
            max_iter=self.max_iter, validation=validation,
            keep_best=not getattr(trainer, "keeps_own_best", False), verbose=self.verbose,
            stopper=stopping_rule(self, trainer.n_rows, train_idx.shape[0]),
            callbacks=fit_tasks(self, self.max_iter),
            model=self._epoch_attributes(classes),
        )
        model = self._finish_fit(trainer, record, X, y_class, signs_of_class)
        set_fit_results(self, record)
        self.classes_ = classes
        self._state = trainer.state
        self.coef_, self.intercept_ = self._public_model(model)
        # A stream bound to the previous state is of no use any more.
        cache = getattr(self, "_stream", None)
        if cache:
            cache.pop("fast", None)
        return self

    def _partial_fit_steps(self, classes, y_class, sample_weight):
        """Update size of every sample of a partial_fit batch."""
        eta = self._learning_rate()
        if self.class_weight is not None:
            eta = eta * self._class_weights(classes, partial=True)[y_class]
        if sample_weight is None:
            return np.full(y_class.shape[0], eta, dtype=np.float64)
        return eta * sample_weight

    def _partial_fit(self, X, y, classes, sample_weight):
        X, y_class, sample_weight, classes = self._validate_partial_fit_data(
            X, y, classes, sample_weight
        )
        if hasattr(self, "_state") and X.dtype != self._state.coef.dtype:
            # The weights keep the dtype of the first batch; a batch of the
            # other float type is cast to it (a copy of this batch only).
            X = X.astype(self._state.coef.dtype)
        n_classes = classes.shape[0]
        n_rows, table = self._layout(n_classes)
        step = self._partial_fit_steps(classes, y_class, sample_weight)
        if hasattr(self, "_state") and self._state.coef.shape[0] != n_rows:
            raise ValueError(
                f"partial_fit needs the multi_class of the first call: the "
                f"model has {self._state.coef.shape[0]} weight row(s), "
                f"multi_class={getattr(self, 'multi_class', 'ovr')!r} learns "
                f"{n_rows}. Call fit to start anew."
            )
        cache = stream_cache(self)
        log = FitLog(self.verbose) if self.verbose else None
        previous = getattr(self, "_state", None)
        stream = cache.get("fast")
        updates = None
        if (type(stream) is LinearStream and previous is not None
                and stream.state is previous):
            # The stream's compiled pass, in place when provably safe (a
            # penalized or Crammer-Singer pass is never armed).
            updates = stream.run(X, y_class, step)
            if updates is not None:
                state = previous
                self._after_stream(X, state, y_class, table)
        if updates is None:
            stream = None
            state = (previous.copy() if previous is not None
                     else self._initial_state(X, n_rows, None, None))
            # The pass proves the weights finite (see rows.run_epoch).
            updates = self._partial_pass(X, state, y_class, step, table)
        # Nothing below can fail.
        total = int(updates.sum())
        if log is not None:
            log.partial(getattr(self, "n_iter_", 0) + 1, X.shape[0], total,
                        float(np.linalg.norm(state.coef)))
        self.classes_ = classes
        self._state = state
        # coef_ may share the state: later calls update it in place, as
        # scikit-learn's SGD partial_fit does.
        self.coef_, self.intercept_ = self._public_model(state.model(copy=False))
        record_partial_pass(self, total)
        self._arm_stream(cache, stream, state, classes, table)
        return self

    def _lean_calls(self):
        """Whether a stream may take whole calls by itself: no class
        weights to apply, no verbose lines to print, no feature names to
        compare."""
        return (not self.verbose and self.class_weight is None
                and "feature_names_in_" not in self.__dict__)

    def _arm_stream(self, cache, stream, state, classes, table):
        """Arm the stream of ``state`` for the next calls (see stream.py):
        the plain pass of one-vs-all rows without a penalty.  ``stream``:
        the one that made this call's pass (kept while its key holds)."""
        key = self._lean_key()
        if (stream is not None and stream.state is state
                and same_key(key, stream.key)):
            return
        cache.pop("fast", None)
        if (not self._stream_plain or self._rule_reads_data
                or self._crammer_singer()
                or getattr(self, "penalty", None) is not None):
            return
        rule = self._rule(None, state.coef.shape[0])
        if not streams(rule):
            return
        labels = label_index(classes) if self._lean_calls() else None
        cache["fast"] = LinearStream(
            state, table, rule, fit_intercept=self.fit_intercept,
            labels=labels, eta=self._learning_rate(), key=key,
            name=type(self).__name__)


_LEAN_KEYS = {}


class EpochParameters(DeclaredParameters):
    """The parameters of an epoch-trained linear estimator, declared once.

    Mixed in before :class:`BaseLinearPerceptron` by the estimators whose
    constructor is their own parameters followed by these (the shared
    docstring fragments ``{{epoch_params}}`` and
    ``{{early_stopping_params}}`` describe them): the margin, second-order,
    AROW, ALMA and ROMMA classifiers.  :class:`Perceptron` and
    :class:`~sklearn_perceptrons.PassiveAggressiveClassifier` keep
    scikit-learn's parameter order, with their own parameters among these,
    and so write their constructors out.
    """

    fit_intercept: bool = True
    max_iter: int = 1000
    tol: float | None = 1e-3
    n_iter_no_change: int = 5
    shuffle: bool = True
    average: bool = False
    class_weight: dict | str | None = None
    early_stopping: bool = False
    validation_fraction: float = 0.1
    warm_start: bool = False
    random_state: int | np.random.RandomState | None = 0
    verbose: int = 0
    grow_classes: bool = False


@shared_doc
class Perceptron(BaseLinearPerceptron):
    """The standard (Rosenblatt) perceptron, with a threshold and averaging.

    Visits the samples in epoch order and, for a sample ``x`` of sign
    ``s`` (+1 for ``classes_[1]``, -1 otherwise) and margin
    ``m = s * (w . x + b)``, updates ``w += eta0 * c * s * x`` and
    ``b += eta0 * c * s`` whenever ``m <= threshold``, where ``c`` is the
    sample's weight times its class weight.  Starts from ``w = 0, b = 0``.
    More than two classes are learned one-vs-all, all K rows in one pass
    over X per epoch, or with ``multi_class="crammer_singer"`` by the native
    multiclass perceptron (one row per class, prediction the argmax).

    **Cost.**  An epoch reads every row of X once, about the time of one
    matrix-vector product ``X @ w`` (K products for K classes); an update
    adds one row of X to w.  X is never copied: float32 stays float32 and
    CSR stays sparse.  ``n_jobs`` trains the K one-vs-all rows in parallel
    threads.  A penalty costs one more pass over each visited row (over
    every weight of a dense row for l1).  ``partial_fit`` and ``predict`` on a float ndarray
    check only what can fail (shape, finiteness, labels), so streaming one
    row at a time stays cheap: O(nnz) per row of weights for a CSR row (as
    hashed text gives them), whatever the number of features.

    **When to use it.**  A fast linear classifier for large or streaming
    data, and the exact textbook algorithm when you need it (``shuffle=False,
    tol=None``).  On data that are not linearly separable it never converges;
    ``average=True`` (the averaged perceptron) then often predicts
    better, as does :class:`MarginPerceptron`.  A drop-in replacement for
    :class:`sklearn.linear_model.Perceptron`: same parameters (``penalty``,
    ``alpha``, ``l1_ratio`` and ``n_jobs`` included) and ``fit`` signature.

    Parameters
    ----------
    penalty : {"l2", "l1", "elasticnet"} or None, default=None
        The regularization of scikit-learn's SGD perceptron (which
        :class:`sklearn.linear_model.Perceptron` is).  With ``r`` the l1
        share (0 for "l2", 1 for "l1", ``l1_ratio`` for "elasticnet"),
        every visit of a sample by a weight row, update or not, does in
        this order: (1) the weight decay ``w *= max(0, 1 - (1 - r) * eta0 *
        alpha)``; (2) the perceptron update, decided on the margin before
        the decay; (3) the cumulative l1 penalty of Tsuruoka, Tsujii and
        Ananiadou (2009): the row's total ``u`` grows by ``r * eta0 *
        alpha`` and each weight ``w_j`` of the sample's features (every
        feature of a dense row, the stored entries of a CSR row) moves
        toward 0 by ``u`` less what it already took, ``q_j``, without
        crossing 0 (``q_j`` then grows by the move).  The intercept is never
        penalized.  ``u`` and ``q`` run over all the epochs of one ``fit``
        and start anew at each ``partial_fit`` call, as in scikit-learn.
        Not with ``multi_class="crammer_singer"`` (ValueError).  None keeps
        the plain perceptron, bit for bit.

    alpha : float, default=0.0001
        Strength of the penalty (>= 0); no effect when ``penalty=None``.

    l1_ratio : float, default=0.15
        The l1 share ``r`` of ``penalty="elasticnet"``, in [0, 1]: 0 is
        "l2", 1 is "l1".

    threshold : float, default=0.0
        The threshold δ >= 0: a sample triggers an update when its margin
        ``s * (w . x + b)`` is <= δ.  With δ > 0 the perceptron also updates on
        correctly classified samples that are too close to the hyperplane.

    fit_intercept : bool, default=True
        Whether to learn an intercept ``b`` (updated like a weight of a
        constant feature 1).

    {{epoch_params}}

    eta0 : float, default=1.0
        Size of an update (multiplies ``x``).  With ``threshold=0`` and no
        initial weights it does not change the predictions.

    average : bool, default=False
        If True, ``coef_`` and ``intercept_`` are the average of ``(w, b)``
        over every sample visit of training (the averaged perceptron),
        computed without storing the history.  The default, scikit-learn's,
        returns the last iterate: on data that no hyperplane separates it
        depends on the last few mistakes and can predict worse than the
        majority class, where the average seldom does.  Prefer
        ``average=True`` unless you need scikit-learn's results.

    class_weight : dict, "balanced" or None, default=None
        Weights of the classes: an update on a sample of class ``j`` is scaled
        by ``class_weight[j]``.  "balanced" uses
        ``n_samples / (n_classes * np.bincount(y))``.  In the one-vs-all
        sub-problem of class ``k`` a sample keeps the weight of its own class
        (scikit-learn's SGD weights by the positive/negative role instead).
        Weights must be finite and >= 0 (ValueError otherwise): 0 makes the
        samples of a class never update.

    early_stopping : bool, default=False
        Whether to hold out ``validation_fraction`` of the training data and
        stop each row when its validation accuracy stops improving; the
        coefficients of each row's best validation epoch are kept.  The split
        does not depend on the labels, so row ``k`` of a multiclass problem
        sees exactly the split of its own binary problem.

    validation_fraction : float, default=0.1
        Fraction of the training data held out for early stopping.

    {{warm_start_iterate_param}}

    random_state : int, RandomState instance or None, default=0
        Seed of the epoch permutations and of the validation split.  Fixed by
        default, so that a default fit is reproducible.

    verbose : int, default=0
        {{verbose_lines}}
        The norm is ``||w||``, the Euclidean norm of the current weights of
        every row (the iterate, not the average; intercepts left out).  With
        a ``penalty`` no line comes within an epoch (the pass folds its
        weight decay in at its end, so it runs whole).

    multi_class : {"ovr", "crammer_singer"}, default="ovr"
        How the classes are learned.  "ovr": one-vs-all, one binary
        perceptron per class (one row for two classes).  "crammer_singer":
        the multiclass perceptron (Kesler; Crammer & Singer, 2003), one
        weight row per class (two for two classes, exposed as their
        difference, see ``coef_``) and the prediction the class of highest
        score ``w_k . x + b_k``; visiting sample ``x`` of class ``c`` is a
        mistake when some other row scores ``(w_c . x + b_c) - (w_r . x +
        b_r) <= threshold``: row ``c`` then gains ``eta0 * s * x`` (``s`` the
        sample's weight times its class weight) and the rows that scored too
        high lose it (see ``update``).  A mistake counts once in
        ``n_mistakes_`` however many rows it moves.  The rows stop together:
        one stopping rule on the total number of mistakes and, with early
        stopping, on the multiclass validation accuracy (the best epoch is
        kept for all rows).  Costs about one-vs-all's epoch; converges on
        data that a linear argmax separates (see
        :func:`~sklearn_perceptrons.bounds.mistake_bound`), where one-vs-all
        may not.

    update : {"max", "uniform"}, default="max"
        The rows a Crammer-Singer mistake moves away: "max", only the
        highest-scoring violating row (ties: the lowest class index), the
        Kesler construction's binary perceptron (Collins' multiclass
        perceptron); "uniform", every violating row by an equal share
        ``eta0 * s * x / r`` for ``r`` violating rows (Crammer & Singer's
        ultraconservative uniform update).  Ignored with
        ``multi_class="ovr"``.

    n_jobs : int, default=None
        Threads training the one-vs-all rows of more than two classes: each
        thread walks every sample, in the epoch's order, for its share of the
        rows (the compiled pass releases the GIL), so the result is identical
        bit for bit to ``n_jobs=1``.  Every thread pays the cost of reading
        each sample, so the threads gain most when each has many rows or
        long rows to score.  ``None`` means 1 unless in a
        :obj:`joblib.parallel_config` context; ``-1`` means all processors;
        ``0`` is refused.  No effect on binary problems (one row) nor with
        ``multi_class="crammer_singer"``, whose rows are coupled.

    {{grow_classes_param}}

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights, in the dtype of the training data.  For two classes with
        ``multi_class="crammer_singer"``, the difference ``w_1 - w_0`` of the
        two rows (and ``intercept_`` ``b_1 - b_0``), so that
        ``decision_function`` is the score of ``classes_[1]`` minus that of
        ``classes_[0]``, as for every binary classifier of the package.

    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts.

    {{classes_attrs}}

    {{ovr_n_iter_attr}}

    n_mistakes_ : int
        Updates made by the last ``fit`` over all rows; ``partial_fit`` adds
        to it (the online mistake count).

    {{epoch_record_attrs}}

    See Also
    --------
    MarginPerceptron : Updates on margin mistakes too; large-margin search.
    KernelPerceptron : The dual (kernelized) perceptron.
    sklearn.linear_model.Perceptron : scikit-learn's SGD-based perceptron.

    Notes
    -----
    With a penalty, ``fit(X, y)`` on dense X with ``shuffle=False``, ``tol=None``
    and no ``class_weight`` gives scikit-learn's ``Perceptron`` model up to
    rounding (scikit-learn keeps the decay as a scale of the weights, as
    this class does).  They differ elsewhere: scikit-learn moves the
    intercept by 0.01 of the update on sparse X, draws another permutation
    per one-vs-all row, stops on the training loss rather than on the number
    of updates, weights a one-vs-all sub-problem's samples by its positive
    or negative class, and has no ``average`` for its Perceptron.

    If the data are separable with margin γ (by a unit vector, on the padded
    vectors ``[x; 1]`` when ``fit_intercept``) and lie in a ball of radius R,
    ``fit`` with ``threshold=0`` makes at most ``(R / γ)²`` updates, whatever
    the order (Block and Novikoff); see
    :func:`sklearn_perceptrons.bounds.mistake_bound`.  With
    ``multi_class="crammer_singer"`` (either ``update``) and a multiclass
    margin γ (unit Frobenius norm of the rows), at most ``2 (R / γ)²``
    updates (``mistake_bound(..., multi_class="crammer_singer")``).

    References
    ----------
    .. [1] F. Rosenblatt, "The perceptron: a probabilistic model for
       information storage and organization in the brain", Psychological
       Review 65(6), 1958.
    {{novikoff_crammer_singer_references}}
    .. [4] Y. Freund and R. E. Schapire, "Large margin classification using
       the perceptron algorithm", Machine Learning 37(3), 1999.
    .. [5] Y. Tsuruoka, J. Tsujii and S. Ananiadou, "Stochastic gradient
       descent training for L1-regularized log-linear models with
       cumulative penalty", ACL-IJCNLP 2009.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_perceptrons import Perceptron
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = Perceptron(random_state=0).fit(X[:100], y[:100])
    >>> clf.converged_
    True
    >>> clf.score(X[:100], y[:100])
    1.0
    >>> clf.coef_.shape
    (1, 4)
    >>> cs = Perceptron(multi_class="crammer_singer", average=True).fit(X, y)
    >>> cs.coef_.shape
    (3, 4)
    >>> sparse = Perceptron(penalty="l1", alpha=0.01, n_jobs=2).fit(X, y)
    >>> int((sparse.coef_ == 0).sum()) > 0
    True
    """

    _parameter_constraints = {
        **BaseLinearPerceptron._parameter_constraints,
        "threshold": [Interval(numbers.Real, 0, None, closed="left")],
        "eta0": [Interval(numbers.Real, 0, None, closed="neither")],
        "multi_class": [StrOptions({"ovr", "crammer_singer"})],
        "update": [StrOptions({"max", "uniform"})],
        "penalty": [StrOptions({"l2", "l1", "elasticnet"}), None],
        "alpha": [Interval(numbers.Real, 0, None, closed="left")],
        "l1_ratio": [Interval(numbers.Real, 0, 1, closed="both")],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    def __init__(
        self,
        *,
        penalty=None,
        alpha=0.0001,
        l1_ratio=0.15,
        threshold=0.0,
        fit_intercept=True,
        max_iter=1000,
        tol=1e-3,
        n_iter_no_change=5,
        shuffle=True,
        eta0=1.0,
        average=False,
        class_weight=None,
        early_stopping=False,
        validation_fraction=0.1,
        warm_start=False,
        random_state=0,
        verbose=0,
        multi_class="ovr",
        update="max",
        n_jobs=None,
        grow_classes=False,
    ):
        set_init_params(self, locals())

    def _penalty(self):
        """The :class:`~sklearn_perceptrons._rows.Penalty` of a visit, in
        scikit-learn's terms (None without a penalty)."""
        if self.penalty is None:
            return None
        if self._crammer_singer():
            raise ValueError(
                f"penalty={self.penalty!r} is not supported with "
                "multi_class='crammer_singer' (its rows move together, the "
                "penalty is defined per one-vs-all row); use multi_class='ovr' "
                "or penalty=None."
            )
        l1_ratio = {"l2": 0.0, "l1": 1.0}.get(self.penalty, self.l1_ratio)
        eta, alpha = float(self.eta0), float(self.alpha)
        return Penalty(max(0.0, 1.0 - (1.0 - l1_ratio) * eta * alpha),
                       l1_ratio * eta * alpha)

    def _rule(self, X, n_rows):
        code = RULE_THRESHOLD
        if self._crammer_singer():
            code = RULE_CS_MAX if self.update == "max" else RULE_CS_UNIFORM
        return Rule(code, np.full(n_rows, float(self.threshold)),
                    np.zeros(n_rows), self._penalty())



# ---------------------------------------------------------------------------
# The internal API of the multiclass fast path and of ParameterMixing
# ---------------------------------------------------------------------------


def binary_row_decision(X, coef, intercept):
    """The decision of one row X (shape (1, n_features)) of a binary linear
    perceptron, a NumPy scalar: ``X @ coef.T + intercept`` as the one dot
    product it is (the same BLAS dot), the intercept added on the scalar,
    without the array operations of the general case (most of a one-row
    call).  Every one-row decision of the package computes it so."""
    return np.vdot(X, coef) + intercept[0]


def learning_rate(estimator):
    """The learning rate of a linear perceptron (1 when it has no eta0)."""
    return estimator._learning_rate()


def update_rule(estimator, X, n_rows):
    """The update :class:`~sklearn_perceptrons._rows.Rule` of ``n_rows`` rows
    of a linear perceptron, as its own ``fit`` would use it (X may be None
    for rules that do not depend on the data)."""
    return estimator._rule(X, n_rows)


def binary_state(estimator):
    """The :class:`LinearState` of a fitted binary linear perceptron (None
    before its first fit)."""
    return getattr(estimator, "_state", None)


def _flipped(estimator):
    """The copy of a fitted binary linear perceptron trained, as far as its
    rows tell, with the labels swapped: the negated weights and averaging
    sums (see :func:`~sklearn_perceptrons._core.growth.register_flip`)."""
    # Attributes computed when read are computed now: a margin is the same
    # for swapped labels, but not from the labels of the last batch.
    for name in estimator._published_attributes:
        getattr(estimator, name, None)
    flipped = fork(estimator)
    flipped.__dict__.pop("_stream", None)
    flipped.__dict__.pop("_last_batch", None)
    flipped._grow_rows(np.zeros(1, dtype=np.intp), np.array([-1.0]))
    flipped.coef_, flipped.intercept_ = flipped._public_model(
        flipped._state.model())
    return flipped


register_flip(BaseLinearPerceptron, _flipped)


def set_binary_fit(estimator, state, n_features, X=None, samples=None):
    """Make ``estimator`` a fitted binary estimator (labels 0/1) of ``state``
    (one row).  ``samples()`` returns the indices in X of the row's training
    samples and their signs, for estimators that report statistics of them
    (``margin_``)."""
    estimator.classes_ = np.array([0, 1])
    estimator.n_features_in_ = n_features
    estimator._state = state
    estimator.coef_, estimator.intercept_ = state.model()
    if X is not None:
        estimator._finish_row(X, samples)
    return estimator


def set_binary_state(estimator, state):
    """Make the fitted binary ``estimator`` hold ``state`` (a view of its row
    in a reduction's stacked state, equal to the state it held), whose
    passes it follows from now on."""
    estimator._state = state
    if not state.average:
        # As after its own partial_fit: coef_ follows the stream.
        estimator.coef_, estimator.intercept_ = state.model(copy=False)
    # Its own stream (of the state it held) is stale.
    forget_stream(estimator)


def lean_key(estimator):
    """What a lean call of a linear perceptron must find unchanged (see
    :mod:`.stream`)."""
    return estimator._lean_key()


def sparse_scores(estimator, X):
    """``X @ coef_.T + intercept_`` of a fitted linear perceptron on
    validated CSR rows X (2-d), as its ``decision_function`` computes it."""
    return estimator._sparse_scores(X)


def defers_row_diagnostics(estimator):
    """Whether a lean call leaves diagnostics of the rows to be computed
    when read (:meth:`~BaseLinearPerceptron._defer_row_diagnostics`): the
    attributes ``_finish_row`` sets after a full pass."""
    return (type(estimator)._defer_row_diagnostics
            is not BaseLinearPerceptron._defer_row_diagnostics)


def has_row_diagnostics(estimator):
    """Whether a binary estimator built by a reduction's fast path has
    attributes computed from its row's samples (``_finish_row``)."""
    return (type(estimator)._finish_row
            is not BaseLinearPerceptron._finish_row)


def after_lean_pass(estimator, updates, rows=None):
    """The bookkeeping of a binary estimator whose row a reduction's lean
    call updated (``updates`` updates), as its own lean call does: the
    model moved, one more pass; ``rows``: its rows X and labels y (0/1)
    when it defers diagnostics of them (:func:`defers_row_diagnostics`)."""
    estimator._model_moved()
    record_partial_pass(estimator, updates)
    if rows is not None:
        estimator._defer_row_diagnostics(*rows)
