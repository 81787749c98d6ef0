# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The kernelized (dual) perceptron: :class:`KernelPerceptron`.

The estimator owns the parameters, the validation, the labels and the
choice of walk; a walk (``dual.py``, which keeps every training sample's
score, or ``budget.py``, with a budget that binds) runs the epochs and
returns a ``WalkResult``, which the estimator sets as its model.
"""

import copy
import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _num_samples, check_is_fitted, validate_data

from .._core.base import (
    N_JOBS_CONSTRAINT,
    BasePerceptron,
    fit_method,
    fork,
    keep_state_on_error,
    partial_fit_context,
    set_init_params,
    stream_cache,
)
from .._core.docstrings import shared_doc
from .._core.growth import register_flip, reindex_rows
from .._core.callbacks import fit_tasks, model_attributes
from .._core.progress import FitLog
from .._core.tables import crammer_singer_table, one_vs_all_table
from .._core.training import record_partial_pass, set_fit_results
from . import budget, dual
from .dual import DualState
from .kernels import (
    STRATEGY_CODES,
    KernelMixin,
    dual_scores,
    kernel_fast,
    prepare_rows,
    rows_equal,
    take_rows,
)
from .stream import KernelStream

# Update rules of the walk, by ``(multi_class, update)``; "ovr" is the
# one-vs-all table (``RULE_TABLE``).
_RULE_CODES = {
    ("crammer_singer", "max"): kernel_fast.RULE_CS_MAX,
    ("crammer_singer", "uniform"): kernel_fast.RULE_CS_UNIFORM,
}


def _not_precomputed(estimator):
    """``partial_fit`` exists unless the kernel is precomputed: the kernel
    between a new sample and earlier support vectors would be unknown."""
    if estimator.kernel == "precomputed":
        raise AttributeError(
            "partial_fit is not available with kernel='precomputed': the kernel "
            "between a new sample and the support vectors is not known. Use "
            "fit, or a callable kernel."
        )
    return True



@shared_doc
class KernelPerceptron(KernelMixin, BasePerceptron):
    """The kernel perceptron: a perceptron in the feature space of a kernel.

    Learns ``f(x) = sum_j dual_coef_[j] * K(support_vectors_[j], x) +
    intercept_`` by the perceptron rule in its dual form: when a training
    sample is misclassified (``s * f(x_i) <= threshold``, with s = +1 for
    ``classes_[1]`` and -1 otherwise), it becomes a support vector, or its
    coefficient grows by ``s`` times its weight.  Like :class:`~sklearn.svm.SVC`
    it learns non-linear boundaries (rbf, polynomial, ... kernels), but it
    makes a few passes over the data instead of solving a quadratic program,
    and it can learn online (``partial_fit``) and on a fixed budget of
    support vectors.  More than two classes are learned one-vs-all over one
    shared set of support vectors.

    **Cost.**  ``fit`` keeps every training sample's score up to date: an
    epoch costs one look-up per sample plus, per mistake, one kernel column
    (O(n_samples * n_features); on dense X, new columns are computed four
    per read of X).  Columns are cached (``cache_size``); the
    whole n x n Gram matrix is formed only when it fits there.  ``predict``
    costs O(n_support * n_features) per sample, in bounded memory.

    **When to use it.**  For non-linear problems of up to some tens of
    thousands of samples, where SVC is too slow or a model that can keep
    learning is needed; the averaged model (the default) gives accuracy
    close to SVC's.  For large data, set ``budget``; for linear problems,
    :class:`Perceptron` is faster.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf", "sigmoid", "laplacian", "cosine", \
"precomputed"} or callable, default="rbf"
        The kernel: ``<a, b>``; ``(gamma <a, b> + coef0) ** degree``;
        ``exp(-gamma ||a - b||^2)``; ``tanh(gamma <a, b> + coef0)``;
        ``exp(-gamma ||a - b||_1)``; ``<a, b> / (||a|| ||b||)`` (0 for a zero
        row), as :func:`sklearn.metrics.pairwise.pairwise_kernels` computes
        them.  With "precomputed", X is a Gram matrix: (n_samples, n_samples)
        in ``fit``, (n_test, n_train) in ``predict``.  A callable ``k(A, B,
        **kernel_params)`` must return the real (n_A, n_B) kernel matrix
        (an array, or a scipy sparse matrix, densified).

    {{kernel_degree_gamma_params}}
        ``partial_fit`` computes ``gamma_`` on its first batch and keeps it.

    coef0 : float, default=1.0
        Independent term of "poly" and "sigmoid".

    kernel_params : dict, default=None
        Keyword arguments of a callable kernel.

    threshold : float, default=0.0
        A sample triggers an update when its margin ``s * f(x)`` is
        <= threshold.

    fit_intercept : bool, default=True
        Whether to learn an intercept (a constant feature in kernel space).

    max_iter : int, default=1000
        Maximum number of epochs of ``fit``.

    tol : float or None, default=1e-3
        When not None, stop after ``n_iter_no_change`` consecutive epochs
        whose number of updates did not fall below
        ``best - tol * n_samples``.

    n_iter_no_change : int, default=5
        Number of epochs without improvement before stopping.

    shuffle : bool, default=True
        Whether to visit the samples in a fresh random order every epoch.

    average : bool, default=True
        If True (the default), the averaged kernel perceptron: ``dual_coef_``
        is the average of the coefficients over every visit of training (the
        updates are still decided by the current ones).  If False, the last
        iterate.  Averaging is the default because on data that are not
        separable the last iterate depends on the last few mistakes: it can
        fall below the accuracy of predicting the majority class, where the
        average stays close to SVC's (Freund & Schapire's comparison, and the
        real-data tour of the benchmarks, ``benchmarks/bench_tour.py``); it
        costs no more per epoch, and with the same support vectors the same
        prediction time.  ``average=False`` gives the textbook (dual)
        perceptron, equal to :class:`Perceptron` with a linear kernel.

    budget : int, default=None
        If set, at most ``budget`` (B) support vectors at any time, in
        ``fit`` and in ``partial_fit``: before a new one enters a full set,
        one leaves it (``budget_strategy``).  A visit then computes its
        scores from the B support vectors, so an epoch costs
        O(n_samples * B * n_features) (CSR: O(B * nnz) per visit) and the
        memory beside X is O(B * (n_features + n_classes)), whatever the
        number of samples (in ``partial_fit``, that of the vectors the call
        can hold when they are fewer than B, so a huge budget costs nothing
        until it fills); ``predict`` costs O(B * n_features) per sample.
        Use it for large data (a fit on a million rows is a few passes over
        X) or to bound the size of the model: a budget of about half the
        unbudgeted number of support vectors keeps most of the accuracy,
        far smaller ones lose more (see the user guide).  With ``tol`` set,
        ``fit`` returns the best model among those checked at the end of
        every epoch and at up to three points within it, scored on at most
        2,000 training rows (never more rows per epoch than the epoch
        visits, so the checks cost at most an epoch; with ``average=True``
        the average and the last iterate are both candidates), from the
        first check after the support set has filled the budget; when it
        never fills, ``fit`` returns the last model, as without a budget.
        On rows of at least 128 values, with a budget of at least an eighth
        of the rows and a training Gram matrix that fits in ``cache_size``,
        ``fit`` computes that matrix once (O(n_samples**2 * n_features)) and
        reads the kernel values from it, O(B) per visit.  With a budget of at
        least a quarter of the rows, or an eighth when the n_samples * B
        kernel values take at most 4 MiB (and strategy "local_projection",
        "random" or "oldest", a built-in kernel, n_samples * (B +
        n_classes) values within ``cache_size``), ``fit`` keeps the kernel
        columns of the support vectors over the training rows and every
        row's scores: a visit then costs O(n_classes), a new support vector
        O(n_samples * n_features) (its kernel column; O(n_samples), a copy,
        for a row whose column was computed before, when the n_samples**2
        values of every row's column also fit in ``cache_size``) and a
        removal O(n_samples * (n_neighbours + n_classes)); the model is that
        of the walk without them, up to rounding.  A budget of at least the
        number of training rows changes nothing.  "precomputed" and
        callable kernels are supported: a visit reads B entries of the Gram
        matrix; a callable is called on blocks of 1,024 rows (at least B)
        and the support vectors, O(B) kernel values per visit.

    budget_strategy : {"local_projection", "projection", "forgetron", \
"random", "oldest"}, default="local_projection"
        Which support vector leaves a full set, and what happens to its
        coefficients:

        - "local_projection" (default): the one of smallest contribution
          (``||dual coefficients||^2 * K(v, v)``) leaves; its current and
          averaged coefficients are projected onto its 8 nearest kept
          vectors in kernel space.  O(B * n_features) per removal.  The
          most accurate per unit of time: the choice for batch training.
        - "projection": the Projectron (Orabona, Keshet & Caputo): the one
          whose projection onto all the kept vectors loses least leaves,
          its coefficients carried by that projection.  O(B**2) per
          update and B**2 memory; as accurate as "local_projection", or
          slightly more on high-dimensional data, for moderate B.
        - "forgetron": the self-tuned Forgetron (Dekel, Shalev-Shwartz &
          Singer): shrink the coefficients, then remove the oldest; its
          mistake bound holds for ``budget >= 84`` with a kernel bounded
          by 1 and unit sample weights.
        - "random": the randomized budget perceptron (Cavallanti,
          Cesa-Bianchi & Gentile): a uniformly random one; it tracks a
          drifting target.
        - "oldest": the least recently updated one, without shrinking.

        The last three follow their published algorithms (the removed
        coefficients are dropped; with ``average=True`` only the removed
        vector's share of the average is projected, onto its 32 nearest
        kept vectors).  Use them online (``partial_fit``), where their
        mistake bounds hold; with a budget well below the number of support
        vectors the data need, they predict far worse than the projection
        strategies.

    class_weight : dict, "balanced" or None, default=None
        Weights of the classes: an update on a sample of class j is scaled
        by ``class_weight[j]``. Weights must be finite and >= 0.

    multi_class : {"ovr", "crammer_singer"}, default="ovr"
        How the classes are learned.  "ovr": one-vs-all, one binary
        perceptron per class (one row for two classes).  "crammer_singer":
        the multiclass perceptron (Crammer & Singer, 2003), one row per class
        (two rows for two classes) over the shared support vectors, the
        prediction the class of highest score; visiting sample i of class
        c is a mistake when another row r scores ``f_c(x_i) - f_r(x_i) <=
        threshold``: row c then gains ``c_i * K(x_i, .)`` and the rows that
        scored too high lose it (see ``update``).  A mistake counts once in
        ``n_mistakes_`` however many rows it moves; the rows stop together
        (one stopping rule on the mistakes).  Not available with a budget.

    update : {"max", "uniform"}, default="max"
        The rows a Crammer-Singer mistake moves away: "max", only the
        highest-scoring violating row (ties: the lowest class index), which
        is the Kesler construction's binary perceptron (Collins'
        multiclass perceptron); "uniform", every violating row, by an equal
        share (Crammer & Singer's ultraconservative uniform update).
        Ignored with ``multi_class="ovr"``.

    cache_size : float, default=200
        Memory (MB) for kernel columns during training (and the bound of the
        blocks of a callable or precomputed kernel in ``predict``).  It
        changes speed, never results.

    warm_start : bool, default=False
        If True, ``fit`` starts from the last iterate of the previous fit
        (its support vectors and coefficients; averaging starts anew).

    random_state : int, RandomState instance or None, default=0
        Seed of the epoch orders and of the "random" budget strategy.

    verbose : int, default=0
        {{verbose_lines}}
        The norm is ``||f||``, the norm of the current iterate in the kernel
        space (the intercept counted as a constant feature), over all rows.
        A ``partial_fit`` line gives the
        number of support vectors instead of ``||f||`` (which would cost the
        kernel values among all of them at every call).

    n_jobs : int, default=None
        Number of threads that score the rows of X in ``predict`` and
        ``decision_function`` (blocks of rows in parallel, without the GIL;
        the results are the same bit for bit whatever ``n_jobs``).
        ``None`` means 1 unless in a :obj:`joblib.parallel_backend`
        context; ``-1`` means all processors; ``0`` is refused.  Training
        is not affected.

    {{grow_classes_param}}

    Attributes
    ----------
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training set of ``fit`` (-1
        for support vectors carried over by ``warm_start`` that are not rows
        of it).  Not set by ``partial_fit``.

    support_vectors_ : {ndarray, sparse matrix} of shape (n_SV, n_features)
        The support vectors, in the format and dtype of the training data
        (for "precomputed": rows of the training Gram matrix).

    dual_coef_ : ndarray of shape (1, n_SV) or (n_classes, n_SV)
        Signed dual coefficients, of ``classes_[1]`` for binary problems and
        of each class vs. the rest otherwise.

    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts: ``dual_coef_.sum(axis=1)`` with ``fit_intercept``, else 0.

    n_support_ : ndarray of shape (n_classes,)
        Number of support vectors of each class.

    gamma_ : float
        The kernel coefficient used.

    {{classes_attrs}}

    n_iter_ : int
        Epochs run by the last ``fit``; after ``partial_fit``, the number of
        calls since the first.

    n_mistakes_ : int
        Updates made by the last ``fit``; ``partial_fit`` adds to it.

    mistakes_per_epoch_ : list of int
        Updates of every epoch of the last ``fit``; ``partial_fit`` appends
        one entry per call.

    converged_ : bool
        Whether the last ``fit`` ended on an epoch without updates (after
        ``partial_fit``: whether its pass made none).

    See Also
    --------
    Perceptron : The primal perceptron; equal to this one with a linear
        kernel (``average`` alike).
    sklearn.svm.SVC : Kernel support vector machine.

    Notes
    -----
    Dual = primal: with ``kernel="linear"`` the decision function equals
    :class:`Perceptron`'s with the same parameters and the same epoch
    orders (``shuffle=False``, or the same ``random_state``), up to
    rounding: with ``average=False`` it equals ``Perceptron()`` (the last
    iterates), and with the default ``average=True`` it equals
    ``Perceptron(average=True)`` (the averages over the same visits).  The
    two are the primal and dual forms of one algorithm.

    Each one-vs-all row stops on its own rule, as in :class:`Perceptron`,
    except with a budget, where a removal changes every row: there they stop
    together, when the total of their updates has not fallen below its best
    by ``tol * n_samples`` per row for ``n_iter_no_change`` epochs.

    During training the kernel values of "rbf" and "laplacian" are computed
    in single precision (relative error below 1.2e-7), as SVC's kernel cache
    stores them; ``decision_function`` uses double precision.

    With a budget that binds, a visited sample's scores are computed from
    the support vectors themselves, with kernel values in double
    precision.  A removal's carried coefficients keep the intercept
    consistent: the projections are taken with the padded kernel
    ``K + 1`` when ``fit_intercept``.

    References
    ----------
    .. [1] M. A. Aizerman, E. M. Braverman and L. I. Rozonoer, "Theoretical
       foundations of the potential function method in pattern recognition
       learning", Automation and Remote Control 25, 1964.
    .. [2] Y. Freund and R. E. Schapire, "Large margin classification using
       the perceptron algorithm", Machine Learning 37(3), 1999.
    .. [3] O. Dekel, S. Shalev-Shwartz and Y. Singer, "The Forgetron: a
       kernel-based perceptron on a budget", SIAM Journal on Computing 37(5),
       2008.
    .. [4] G. Cavallanti, N. Cesa-Bianchi and C. Gentile, "Tracking the best
       hyperplane with a simple budget perceptron", Machine Learning 69, 2007.
    .. [5] F. Orabona, J. Keshet and B. Caputo, "Bounded kernel-based online
       learning", Journal of Machine Learning Research 10, 2009.
    .. [6] Z. Wang, K. Crammer and S. Vucetic, "Breaking the curse of
       kernelization: budgeted stochastic gradient descent for large-scale
       SVM training", Journal of Machine Learning Research 13, 2012.

    {{xor_example_data}}
    >>> from sklearn_perceptrons import KernelPerceptron
    >>> clf = KernelPerceptron(kernel="rbf", gamma=2.0).fit(X, y)
    >>> clf.predict(X)
    array([0, 1, 1, 0])
    >>> clf.dual_coef_.shape
    (1, 4)

    On a larger, noisy problem: the averaged model (the default), and a
    model of at most 100 support vectors:

    >>> from sklearn.datasets import make_moons
    >>> X, y = make_moons(2000, noise=0.2, random_state=0)
    >>> averaged = KernelPerceptron().fit(X[:1500], y[:1500])
    >>> round(averaged.score(X[1500:], y[1500:]), 2)
    0.97
    >>> small = KernelPerceptron(budget=100).fit(X[:1500], y[:1500])
    >>> small.support_vectors_.shape[0]
    100
    """

    _parameter_constraints = {
        **BasePerceptron._parameter_constraints,
        **KernelMixin.kernel_parameter_constraints,
        "grow_classes": ["boolean"],
        "threshold": [Interval(numbers.Real, 0, None, closed="left")],
        "budget": [
            Interval(numbers.Integral, 1, np.iinfo(np.int64).max, closed="both"),
            None,
        ],
        "budget_strategy": [StrOptions(set(STRATEGY_CODES))],
        "multi_class": [StrOptions({"ovr", "crammer_singer"})],
        "update": [StrOptions({"max", "uniform"})],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    def __init__(
        self,
        *,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=1.0,
        kernel_params=None,
        threshold=0.0,
        fit_intercept=True,
        max_iter=1000,
        tol=1e-3,
        n_iter_no_change=5,
        shuffle=True,
        average=True,
        budget=None,
        budget_strategy="local_projection",
        class_weight=None,
        multi_class="ovr",
        update="max",
        cache_size=200,
        warm_start=False,
        random_state=0,
        verbose=0,
        n_jobs=None,
        grow_classes=False,
    ):
        set_init_params(self, locals())

    def _rows_and_rule(self, n_classes):
        """(n_rows, table, rule code) of the training walk: one-vs-all, or
        Crammer-Singer's one row per class (two rows for two classes), where
        every row of the table is visited and the scores decide the rows
        that move."""
        if self.multi_class == "ovr":
            return (1 if n_classes == 2 else n_classes,
                    one_vs_all_table(n_classes), kernel_fast.RULE_TABLE)
        if self.budget is not None:
            raise ValueError(
                "multi_class='crammer_singer' does not support a budget: use "
                "budget=None, or multi_class='ovr' with a budget."
            )
        return (n_classes, crammer_singer_table(n_classes),
                _RULE_CODES[(self.multi_class, self.update)])

    def _random_seed(self, rng):
        """Seed of the "random" budget strategy, drawn from a copy of ``rng``
        so that the epoch permutations do not depend on the budget."""
        if self.budget is not None and self.budget_strategy == "random":
            draw = int(copy.deepcopy(rng).randint(np.iinfo(np.int64).max,
                                                  dtype=np.int64))
            # Another stream than the first permutation's, which starts from
            # the same draw.
            return draw ^ 0x5851F42D4C957F2D
        return 0

    def _model_attributes(self, state, classes, gamma):
        """The attributes a fit that ended at the iterate ``state`` sets (the
        model of an epoch, for the callbacks that ask for it)."""
        def set_model(est):
            est._set_model(state, classes)
            est.gamma_ = gamma
            est.support_ = state.sv_index

        return model_attributes(self, set_model)

    def _set_model(self, state, classes):
        coef = state.model(self.average)
        # A plain dict of arrays and numbers: persistence formats such as
        # skops then need to trust no private class of this module.
        self._state = dict(vars(state))
        self.classes_ = classes
        self.support_vectors_ = state.sv
        self.dual_coef_ = np.ascontiguousarray(coef.T)
        if self.fit_intercept:
            self.intercept_ = self.dual_coef_.sum(axis=1)
        else:
            self.intercept_ = np.zeros(coef.shape[1])
        self.n_support_ = np.bincount(
            state.sv_class, minlength=classes.shape[0]).astype(np.int32)

    def _apply_walk(self, result, classes, gamma, *, fit):
        """Set the model and the diagnostics from the
        :class:`~sklearn_perceptrons._kernel.dual.WalkResult` of a walk
        (``fit``: of a whole fit, else of a ``partial_fit`` pass)."""
        if fit:
            set_fit_results(self, result.record)
        self._set_model(result.state, classes)
        self.gamma_ = gamma
        if fit:
            self.support_ = result.state.sv_index
            self._max_support_seen = result.max_support_seen
        else:
            self.__dict__.pop("support_", None)
            record_partial_pass(self, result.updates)
            self._max_support_seen = max(getattr(self, "_max_support_seen", 0),
                                         result.max_support_seen)
        # What the next partial_fit of the "projection" strategy starts from.
        if result.inverse is None:
            self.__dict__.pop("_budget_inverse", None)
        else:
            self._budget_inverse = result.inverse

    def _warm_start_rows(self, X, classes):
        """The previous iterate and the rows of X its support vectors are
        (None when they are not rows of X at their ``support_`` indices)."""
        state = DualState(**self._state)
        if not np.array_equal(self.classes_, classes):
            raise ValueError(
                f"warm_start=True needs the classes of the previous fit "
                f"{self.classes_.tolist()!r}; got {classes.tolist()!r}."
            )
        precomputed_error = ValueError(
            "warm_start=True with kernel='precomputed' needs the Gram matrix "
            "of the training samples of the previous fit."
        )
        if state.sv.shape[1] != X.shape[1]:
            if self.kernel == "precomputed":
                raise precomputed_error
            raise ValueError(
                f"warm_start=True needs the {state.sv.shape[1]} features of the "
                f"previous fit; X has {X.shape[1]}."
            )
        index = state.sv_index
        if index.shape[0] == 0 or (
            index.min() >= 0 and index.max() < X.shape[0]
            and rows_equal(take_rows(X, index), state.sv)
        ):
            return state, index.astype(np.int32)
        if self.kernel == "precomputed":
            raise precomputed_error
        return state, None

    # -- fit -----------------------------------------------------------------

    @fit_method
    def fit(self, X, y, sample_weight=None):
        """Fit the kernel perceptron by epochs over the training data.

        {{kernel_fit_X_y}}

        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights scaling the size of each sample's updates.

        {{fit_returns}}
        """
        unweighted = sample_weight is None
        X, classes, y_class, sample_weight = self._validate_kernel_fit_data(
            X, y, sample_weight
        )
        n, n_classes = X.shape[0], classes.shape[0]
        n_rows, table, rule = self._rows_and_rule(n_classes)
        class_step = self._class_weights(classes, y_class,
                                         sample_weight=sample_weight)
        gamma = self._resolve_gamma(X)
        kernel = self._kernel(gamma)
        rng = check_random_state(self.random_state)
        seed = self._random_seed(rng)
        # The callbacks of the fit, and the model of an iterate they may ask
        # for at the end of an epoch.
        callbacks = fit_tasks(self, self.max_iter)

        def model(state):
            return self._model_attributes(state, classes, gamma)

        start = None
        if self.warm_start and hasattr(self, "_state"):
            start = self._warm_start_rows(X, classes)
        state, matched = start if start is not None else (None, None)
        n_possible = n if state is None or matched is not None else (
            n + state.sv.shape[0])
        if budget.applies(self, kernel, n_possible):
            # Unweighted samples: the walk reads the step of each class, and
            # the array of ones of the validation is released.
            if unweighted:
                sample_weight = None
            result = budget.fit(self, X, n_classes, y_class, sample_weight,
                                class_step, kernel, rng, seed, start,
                                callbacks=callbacks, model=model)
        else:
            if state is not None and state.alpha.shape[1] != n_rows:
                raise ValueError(
                    f"warm_start=True needs the multi_class of the previous "
                    f"fit; it learned {state.alpha.shape[1]} row(s), "
                    f"multi_class={self.multi_class!r} learns {n_rows}."
                )
            step = sample_weight * class_step[y_class]
            result = dual.fit(self, X, y_class, step, (n_rows, table, rule),
                              kernel, rng, seed, start, callbacks=callbacks,
                              model=model)
        self._apply_walk(result, classes, gamma, fit=True)
        return self

    # -- partial_fit ---------------------------------------------------------

    @available_if(_not_precomputed)
    @shared_doc
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Make one online pass over the given samples, in the given order.

        New support vectors are appended to ``support_vectors_``; the budget,
        if any, holds at every step.  Without a budget, a one-row call costs
        one kernel sum over the support vectors (the iterate is not copied).

        {{partial_fit_params}}
        """
        cache = self.__dict__.get("_stream")
        if cache is not None and classes is None and sample_weight is None:
            fast = cache.get("fast")
            if fast is not None:
                step = fast.learn(self, self.__dict__.get("_state"), X, y)
                if step is not None:
                    self._apply_stream_step(step)
                    return self
        return self._checked_partial_fit(X, y, classes, sample_weight)

    def _apply_stream_step(self, step):
        """Set what a one-row call of the armed stream changed (a
        :class:`~sklearn_perceptrons._kernel.stream.StreamStep`)."""
        self._state = step.state
        self.support_vectors_ = step.state["sv"]
        self.dual_coef_ = step.dual_coef
        self.intercept_ = step.intercept
        if step.n_support is not None:
            self.n_support_ = step.n_support
        self.__dict__.pop("support_", None)
        record_partial_pass(self, step.updates)
        self._max_support_seen = max(getattr(self, "_max_support_seen", 0),
                                     step.n_support_vectors)

    @keep_state_on_error
    @partial_fit_context
    def _checked_partial_fit(self, X, y, classes=None, sample_weight=None):
        """``partial_fit`` the full way: every check, then the walk."""
        log = FitLog(self.verbose, norm="support vectors") if self.verbose else None
        self._partial_walk(X, y, classes, sample_weight)
        if log is not None:
            # The line gives the number of support vectors: ||f|| would
            # cost the kernel values among all of them at every call.
            log.partial(self.n_iter_, _num_samples(X),
                        self.mistakes_per_epoch_[-1],
                        self.support_vectors_.shape[0])
        return self

    def _grow_classes(self, growth):
        """Re-index the dual coefficients for the classes of ``growth`` (a
        :class:`~sklearn_perceptrons._core.growth.Growth`): a new class's
        column starts at 0 with nothing visited; the support vectors stay."""
        state = self._state
        n_rows = self._rows_and_rule(growth.old.shape[0])[0]
        if state["alpha"].shape[1] != n_rows:
            raise ValueError(
                f"partial_fit needs the multi_class of the first call; the "
                f"model has {state['alpha'].shape[1]} row(s), multi_class="
                f"{self.multi_class!r} learns {n_rows}."
            )
        source, sign = (growth.one_vs_all_rows() if self.multi_class == "ovr"
                        else growth.class_rows())
        grown = dict(state)
        for name in ("alpha", "alpha_sum", "sv_scores"):
            if state[name] is not None:
                grown[name] = reindex_rows(state[name], source, sign, axis=1)
        grown["visits"] = reindex_rows(state["visits"], source)
        grown["forget"] = reindex_rows(state["forget"], source, axis=1)
        grown["sv_class"] = growth.class_index(state["sv_class"])
        self._state = grown
        self.classes_ = growth.classes

    def _partial_walk(self, X, y, classes, sample_weight):
        """One pass over a validated batch, from the current iterate."""
        X, y_class, sample_weight, classes = self._validate_partial_fit_data(
            X, y, classes, sample_weight
        )
        X = prepare_rows(X)
        n_classes = classes.shape[0]
        n_rows, table, rule = self._rows_and_rule(n_classes)
        if sample_weight is None:
            sample_weight = np.ones(X.shape[0])
        step = sample_weight * self._class_weights(classes, partial=True)[y_class]
        if hasattr(self, "_state"):
            state, gamma = DualState(**self._state), self.gamma_
            if state.alpha.shape[1] != n_rows:
                raise ValueError(
                    f"partial_fit needs the multi_class of the first call; the "
                    f"model has {state.alpha.shape[1]} row(s), multi_class="
                    f"{self.multi_class!r} learns {n_rows}."
                )
            # The support vectors keep the dtype of the first fit; a batch of
            # the other float type is cast to it (a copy of this batch only).
            X = X.astype(state.sv.dtype, copy=False)
        else:
            gamma = self._resolve_gamma(X)
            rng = check_random_state(self.random_state)
            state = DualState.empty(X, n_rows, self._random_seed(rng))
        kernel = self._kernel(gamma)
        if budget.applies(self, kernel):
            result = budget.partial_fit(
                self, X, n_classes, y_class, step, kernel, state,
                inverse=getattr(self, "_budget_inverse", None))
        else:
            result = dual.partial_fit(self, X, y_class, step,
                                      (n_rows, table, rule), kernel, state)
        self._apply_walk(result, classes, gamma, fit=False)
        cache = stream_cache(self)
        cache.pop("fast", None)
        if (isinstance(self.kernel, str) and self.kernel_params is None
                and self.class_weight is None and not self.verbose
                and self.budget is None and self._state["sv"].shape[0] > 0
                and not sp.issparse(self._state["sv"])
                and "feature_names_in_" not in self.__dict__):
            try:
                cache["fast"] = KernelStream(self, self._state, classes, table,
                                             rule, kernel)
            except TypeError:  # unhashable labels: no dict to look them up
                pass
        return self

    # -- prediction ----------------------------------------------------------

    @shared_doc
    def decision_function(self, X):
        """Signed confidence of every sample: ``sum_j dual_coef_[:, j] *
        K(support_vectors_[j], x) + intercept_``.

        Computed in compiled code without the GIL, one sample at a time, so
        the extra memory is one kernel column per sample and thread (blocks
        bounded by ``cache_size`` for callable and precomputed kernels);
        ``n_jobs`` threads score blocks of rows in parallel.  The blocks are
        small (a few hundredths of a second of work), and Ctrl-C stops the
        call between two of them.

        {{kernel_predict_X}}

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For binary problems, the score of ``classes_[1]``; otherwise one
            column per class.
        """
        check_is_fitted(self)
        if self.kernel == "precomputed":
            self._reject_sparse_gram(X)
            # Not the lean path: NaN must be reported before a wrong shape.
            X = validate_data(self, X, dtype=[np.float64, np.float32],
                              order="C", reset=False)
            if not hasattr(self, "support_"):
                raise ValueError("kernel='precomputed' needs a model from fit.")
        else:
            X = prepare_rows(self._validate_predict_data(X))
        coef = np.ascontiguousarray(self.dual_coef_.T, dtype=np.float64)
        scores = dual_scores(
            X, self._kernel(self.gamma_), self.support_vectors_,
            getattr(self, "support_", None), coef, self.cache_size,
            n_jobs=self.n_jobs,
        )
        scores += self.intercept_
        if scores.shape[1] == 2 and self.classes_.shape[0] == 2:
            # Crammer-Singer on two classes: one row per class.
            return scores[:, 1] - scores[:, 0]
        return scores.ravel() if scores.shape[1] == 1 else scores

    @property
    def coef_(self):
        """Primal weights ``dual_coef_ @ support_vectors_`` (linear kernel
        only; a read-only array of shape (1, n_features) or (n_classes,
        n_features))."""
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available with kernel='linear'.")
        check_is_fitted(self)
        coef = self.dual_coef_ @ self.support_vectors_
        coef = np.asarray(coef, dtype=np.float64)
        coef.flags.writeable = False
        return coef


def _flipped(estimator):
    """The copy of a fitted binary kernel perceptron trained, as far as its
    dual coefficients tell, with the labels swapped: negated coefficients,
    the support vectors' classes swapped (see
    :func:`~sklearn_perceptrons._core.growth.register_flip`)."""
    flipped = fork(estimator)
    flipped.__dict__.pop("_stream", None)
    state = dict(flipped._state)
    for name in ("alpha", "alpha_sum", "sv_scores"):
        if state[name] is not None:
            state[name] = -state[name]
    state["sv_class"] = (1 - state["sv_class"]).astype(state["sv_class"].dtype)
    flipped._set_model(DualState(**state), flipped.classes_)
    return flipped


register_flip(KernelPerceptron, _flipped)

