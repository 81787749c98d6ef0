# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The voted perceptron of Freund & Schapire: :class:`VotedPerceptron`.

The Python layer owns the parameters, the validation, the labels, the
stopping rules and the model (the mistake sequence); the compiled walks of
``_voted_fast`` own the epochs and the vote.  The training state sits
behind ``run_epoch(order, active) -> updates``, the interface of an epoch
driver.
"""

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _voted_fast
from .._core.base import (
    BasePerceptron,
    fit_method,
    fork,
    keep_state_on_error,
    partial_fit_context,
    predict_from_decision,
    set_init_params,
)
from .._core.docstrings import shared_doc
from .._core.growth import register_flip, reindex_rows
from .._core.callbacks import fit_tasks, model_attributes
from .._core.progress import chunks
from .kernels import (
    KERNEL_CODES,
    Kernel,
    KernelMixin,
    prepare_rows,
    stack_rows,
    take_rows,
    view,
)
from .._core.tables import one_vs_all_table
from .._core.training import (
    StoppingRule,
    record_partial_pass,
    set_fit_results,
    train,
)

_MB = 2**20
# Log slots of the first epoch, per sample; the log doubles when full.
_LOG_PER_SAMPLE = 2
# Test samples voted together (see ``_voted_fast.vote``): at most _BLOCK,
# fewer when their kernel values would exceed _BLOCK_BYTES (a mistake then
# reads a line that is still in cache), but at least 16.
_BLOCK = 256
_BLOCK_BYTES = 2**20


class _VoteState:
    """The epoch of both training states: the compiled epoch
    (``_resume``) runs until it is done or stops for what only Python can
    provide (a larger log, a kernel row), which ``_serve`` provides before
    it resumes at the visit where it stopped."""

    reports_progress = True

    def run_epoch(self, order, active, progress=None):
        """One epoch over ``order``; returns the mistakes of every row (see
        :func:`_in_chunks` for ``progress``)."""
        updates = np.zeros(self.n_rows, dtype=np.int64)
        for part in _in_chunks(order, updates, progress):
            start = 0
            while True:
                status, start = self._resume(part, start, active, updates)
                if status == _voted_fast.STATUS_DONE:
                    break
                self._serve(status, part, start)
        if not self._finite():
            _raise_nonfinite()
        return updates


class _LinearVoteState(_VoteState):
    """Primal training state: one weight row per sub-problem, updated in
    place; a visit's score is one dot product."""

    def __init__(self, X, y_class, step, table, n_rows, fit_intercept):
        self.rows = view(X)
        self.fit_intercept = fit_intercept
        self.n_rows = n_rows
        self.coef = np.zeros((n_rows, X.shape[1]))
        self.intercept = np.zeros(n_rows)
        self.log = _voted_fast.Ledger(max(1024, _LOG_PER_SAMPLE * X.shape[0]),
                                      n_rows, y_class, step, table)

    def _resume(self, part, start, active, updates):
        return _voted_fast.linear_epoch(
            self.rows, self.log, part, start, active, self.coef,
            self.intercept, self.fit_intercept, updates,
        )

    def _serve(self, status, part, start):
        self.log.grow()

    def _finite(self):
        return np.isfinite(self.coef).all() and np.isfinite(self.intercept).all()

    def weight_norm(self):
        """||w||, the norm of the current perceptrons' weights (all rows)."""
        return float(np.linalg.norm(self.coef))


def _in_chunks(order, updates, progress):
    """The parts of ``order`` an epoch visits in turn: all of it, or with
    ``progress`` chunks of it (:func:`~sklearn_perceptrons._core.progress.chunks`),
    calling ``progress(visited, updates)`` after each but the last.  The
    compiled epochs resume from any visit, so the result is the same."""
    n = order.shape[0]
    if progress is None:
        yield order
        return
    for start, stop in chunks(n):
        yield order[start:stop]
        if stop < n:
            progress(stop, updates)


class _TrainingKernel(Kernel):
    """The kernel of a fit: what it reads about the training rows (their
    norms) is computed once, not once per kernel row."""

    def __init__(self, kernel, X):
        self.__dict__.update(vars(kernel))
        self._X = X
        self._X_norms = super().norms(X)

    def norms(self, Z):
        return self._X_norms if Z is self._X else super().norms(Z)


class _KernelVoteState(_VoteState):
    """Dual training state: the scores of every training sample under every
    row's current perceptron, kept up to date by adding one kernel row per
    mistake; kernel rows are cached (first in, first out) in ``cache_size``
    megabytes, and a precomputed Gram matrix is its own cache."""

    def __init__(self, X, y_class, step, table, n_rows, kernel, add, cache_size):
        n = X.shape[0]
        self.X = X
        self.kernel = _TrainingKernel(kernel, X)
        self.add = float(add)
        self.n_rows = n_rows
        self.scores = np.zeros((n_rows, n))
        self.alpha = np.zeros((n_rows, n))
        self.log = _voted_fast.Ledger(max(1024, _LOG_PER_SAMPLE * n), n_rows,
                                      y_class, step, table)
        if kernel.code == KERNEL_CODES["precomputed"]:
            self.cache = np.ascontiguousarray(X, dtype=np.float64)
            self.line_of_sample = np.arange(n, dtype=np.int32)
        else:
            lines = int(min(n, max(1, cache_size * _MB // (8 * n))))
            self.cache = np.empty((lines, n))
            self.line_of_sample = np.full(n, -1, dtype=np.int32)
            self.sample_of_line = np.full(lines, -1, dtype=np.int32)
            self.next_line = 0

    def _store_row(self, i):
        """Compute the kernel row of sample i into the oldest cache line."""
        line = self.next_line % self.cache.shape[0]
        self.next_line += 1
        old = self.sample_of_line[line]
        if old >= 0:
            self.line_of_sample[old] = -1
        self.cache[line] = self.kernel.matrix(self.X[i : i + 1], self.X)[0]
        self.line_of_sample[i] = line
        self.sample_of_line[line] = i

    def _resume(self, part, start, active, updates):
        return _voted_fast.kernel_epoch(
            self.log, part, start, active, self.scores, self.alpha,
            self.add, self.cache, self.line_of_sample, updates,
        )

    def _serve(self, status, part, start):
        if status == _voted_fast.STATUS_NEED_ROW:
            self._store_row(int(part[start]))
        else:
            self.log.grow()

    def _finite(self):
        return np.isfinite(self.scores).all()

    def weight_norm(self):
        """Norm of the current perceptrons in the (padded) kernel space:
        ``sum_i alpha_i * score_i``, over all rows."""
        return float(np.sqrt(max(np.sum(self.alpha * self.scores), 0.0)))


def _raise_nonfinite():
    raise ValueError(
        "The scores of the training samples became non-finite "
        "(floating-point overflow). Scale the features or lower gamma / "
        "degree, or the sample and class weights."
    )


@shared_doc
class VotedPerceptron(KernelMixin, BasePerceptron):
    """The voted perceptron (Freund & Schapire): every intermediate
    perceptron votes, weighted by how long it survived.

    Training is the perceptron rule run for ``max_iter`` epochs; every
    mistake (``s * w_k(x_i) <= 0``, s = +1 for ``classes_[1]``, -1
    otherwise) ends the perceptron ``w_k`` and starts ``w_{k+1} = w_k +
    c * s * phi(x_i)`` (c: the sample's weight times its class weight; phi
    the feature map of the kernel, padded by a constant 1 with
    ``fit_intercept``).  The survival count ``c_k`` of ``w_k`` is the total
    weight of the visits it survived, counting the one that created it (1
    per visit without weights, as in the paper).  The prediction is the
    weighted vote ``sign(sum_k c_k sign(w_k(x)))``; more than two classes
    are learned one-vs-all, one vote per class, and the class with the
    largest normalized vote wins.

    The model is the sequence of mistakes, never the K perceptrons: the
    score of ``w_k`` on x is the prefix sum over the first k mistakes of
    ``coef * (K(x_mistake, x) + 1)``.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf", "sigmoid", "laplacian", "cosine", \
"precomputed"} or callable, default="linear"
        The kernel, as in :class:`KernelPerceptron`: ``<a, b>``; ``(gamma
        <a, b> + coef0) ** degree``; ``exp(-gamma ||a - b||^2)``; ``tanh(gamma
        <a, b> + coef0)``; ``exp(-gamma ||a - b||_1)``; ``<a, b> / (||a||
        ||b||)``.  With "precomputed", X is a Gram matrix: (n_samples,
        n_samples) in ``fit``, (n_test, n_train) in ``predict``.  A callable
        ``k(A, B, **kernel_params)`` must return the (n_A, n_B) kernel
        matrix (an array, or a scipy sparse matrix, densified).  "linear"
        trains in the primal (weights updated in place).  A float32 Gram
        matrix is converted to float64 once in ``fit``.

    {{kernel_degree_gamma_params}}

    coef0 : float, default=1.0
        Independent term of "poly" and "sigmoid".

    kernel_params : dict, default=None
        Keyword arguments of a callable kernel (ignored by the built-in
        kernels).

    fit_intercept : bool, default=True
        Whether to learn an intercept (a constant feature 1, in kernel space
        for the kernels).

    max_iter : int, default=10
        Number of epochs, T in the paper: the vote is that of the
        perceptrons of T epochs, whether or not the data are separable (no
        ``ConvergenceWarning``).  An epoch without mistakes ends the walk of
        a sub-problem early without changing the vote: its perceptron never
        changes again, and the epochs left only add the visits to its
        survival count, which ``fit`` adds at once.

    shuffle : bool, default=True
        Whether to visit the samples in a fresh random order every epoch;
        otherwise cyclically, in the order of X.

    class_weight : dict, "balanced" or None, default=None
        Weights of the classes: an update on a sample of class j, and its
        contribution to a survival count, are scaled by ``class_weight[j]``.

    cache_size : float, default=200
        Memory (MB) for kernel rows during ``fit`` (the rows of the samples
        that made mistakes, first in, first out), and the bound of the
        blocks of kernel values in ``predict`` and ``decision_function``.

    random_state : int, RandomState instance or None, default=0
        Seed of the epoch permutations.

    verbose : int, default=0
        {{verbose_lines}}
        The updates are the mistakes, and the norm that of the current
        perceptrons: ``||w||`` (the Euclidean norm of their weights,
        intercepts left out) with the linear kernel, else ``||f||`` (in the
        kernel space, the intercept a constant feature).

    {{grow_classes_param}}

    Attributes
    ----------
    support_ : ndarray of shape (n_SV,)
        Indices in the training set of the samples that made at least one
        mistake, sorted (after ``partial_fit``, positions in the rows seen
        since the first call or ``fit``, in order).

    support_vectors_ : {ndarray, sparse matrix} of shape (n_SV, n_features)
        Those samples, in the format and dtype of the training data (for
        "precomputed": their rows of the training Gram matrix).

    mistake_support_ : ndarray of shape (n_mistakes_,)
        For each mistake, the index in ``support_vectors_`` of its sample.
        Mistakes are grouped by one-vs-all row (see ``mistake_ptr_``), in
        training order within a row.

    mistake_coef_ : ndarray of shape (n_mistakes_,)
        The signed update of each mistake, ``c * s``.

    survival_counts_ : ndarray of shape (n_mistakes_,)
        The survival count ``c_k`` of the perceptron each mistake created
        (the zero perceptron that precedes the first mistake of a row
        survives nothing, and is not stored).

    mistake_ptr_ : ndarray of shape (n_rows + 1,)
        The mistakes of one-vs-all row r are ``mistake_ptr_[r]`` to
        ``mistake_ptr_[r + 1]``; one row (the ``classes_[1]`` vs.
        ``classes_[0]`` problem) for binary problems, else one per class.
        (When ``grow_classes`` makes a binary model one-vs-all, the row of
        ``classes_[0]`` holds the binary row's mistakes, negated, which
        ``n_mistakes_`` does not count again.)

    gamma_ : float
        The kernel coefficient used.

    {{classes_attrs}}

    n_iter_ : int
        Epochs walked (the largest over one-vs-all rows): ``max_iter``, or
        fewer when every row had an epoch without mistakes (see
        ``max_iter``).

    n_mistakes_ : int
        Mistakes made over all rows: the number of stored perceptrons.

    mistakes_per_epoch_ : list of int
        Mistakes of every epoch, over all rows.

    converged_ : bool
        Whether every row ended on an epoch without mistakes.

    See Also
    --------
    Perceptron : ``average=True`` gives the averaged perceptron, the
        constant-cost approximation of the vote.
    KernelPerceptron : The kernel perceptron, with averaging and budgets.

    Notes
    -----
    Prediction costs, per test sample, O(n_SV * n_features) for the kernel
    values of the support vectors (once per support vector, shared by every
    row) plus O(n_mistakes_) for the prefix sums and the vote, in compiled
    code; the kernel values are computed in blocks of rows whose size is
    bounded by ``cache_size``.  ``n_mistakes_`` is about ``max_iter *
    n_samples`` times the training error rate, summed over the one-vs-all
    rows: on a large, noisy problem with many classes a prediction costs
    hundreds of times a linear model's.  The averaged perceptron
    (:class:`Perceptron` with ``average=True``) costs O(n_features) per
    sample and row: it replaces ``sign(w_k(x))`` by ``w_k(x)``, which makes
    the sum collapse to one weight vector.  Freund & Schapire found the two equally
    accurate, both better than the last perceptron, on handwritten digits;
    the vote is the variant their generalization bound covers.

    The default kernel is "linear", as for :class:`Perceptron`: the vote
    then trains in the primal and its support vectors are plain rows.  On
    data that no hyperplane separates well, ``kernel="rbf"`` (or another
    kernel) is more accurate, as :class:`KernelPerceptron` is, at a
    training and prediction cost that grow with the support vectors (a
    kernel row per mistake, O(n_SV * n_features) per prediction).  The
    default stays linear, the cheaper model, with the accuracy of the
    averaged linear perceptron; choose a kernel when that underfits.

    Training costs, per epoch, one dot product (linear) or one look-up
    (kernels, which keep every training sample's score) per visit, plus
    O(n_features) (linear) or one kernel row of O(n_samples * n_features)
    per mistake; the model keeps every mistake: O(n_mistakes_) memory
    beyond the support vectors.

    A perceptron whose score is exactly 0 votes for the negative class, as
    every perceptron of this package predicts.  The vote is Freund &
    Schapire's: that of every perceptron of ``max_iter`` epochs.  A row
    whose epoch makes no mistake (separable data) is not walked again, as
    its perceptron cannot change: the survival count of its last perceptron
    gets the visits of the epochs left at once, which is what walking them
    would give.  Running T epochs is the algorithm, not a limit that
    training failed to beat: unlike the other perceptrons of this package,
    this one never warns with a ``ConvergenceWarning``.  The epochs run in
    the package's epoch driver (the same epoch orders as
    :class:`Perceptron` and :class:`KernelPerceptron` for the same
    ``random_state``).

    There is no ``n_jobs``: training is one sequential run, and a
    prediction is a single-threaded compiled loop after the kernel values
    (BLAS threads, if any, compute those of the linear kernel).

    ``partial_fit`` continues the run over a stream, one pass per call; the
    vote keeps every perceptron it ever formed, so over a long stream both
    its memory and its prediction cost grow with the mistakes.
    ``Perceptron(average=True)`` streams at a constant cost per prediction.
    There is no ``warm_start``: ``fit`` starts a new run.

    References
    ----------
    .. [1] Y. Freund and R. E. Schapire, "Large margin classification using
       the perceptron algorithm", Machine Learning 37(3), 277-296, 1999.

    {{xor_example_data}}
    >>> from sklearn_perceptrons import VotedPerceptron
    >>> clf = VotedPerceptron(kernel="rbf", gamma=2.0).fit(X, y)
    >>> clf.predict(X)
    array([0, 1, 1, 0])
    >>> clf.decision_function(X).round(2)
    array([-0.85,  0.95,  0.9 , -0.9 ])
    """

    _parameter_constraints = {
        **{
            name: constraint
            for name, constraint in BasePerceptron._parameter_constraints.items()
            if name not in ("tol", "n_iter_no_change", "average", "warm_start")
        },
        **KernelMixin.kernel_parameter_constraints,
        "grow_classes": ["boolean"],
    }

    def __init__(
        self,
        *,
        kernel="linear",
        degree=3,
        gamma="scale",
        coef0=1.0,
        kernel_params=None,
        fit_intercept=True,
        max_iter=10,
        shuffle=True,
        class_weight=None,
        cache_size=200,
        random_state=0,
        verbose=0,
        grow_classes=False,
    ):
        set_init_params(self, locals())

    # -- helpers -------------------------------------------------------------

    # -- fit -----------------------------------------------------------------

    @fit_method
    def fit(self, X, y, sample_weight=None):
        """Run the perceptron for ``max_iter`` epochs and keep every
        intermediate perceptron with its survival count.

        {{kernel_fit_X_y}}

        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights: a sample's weight scales its updates and
            its contribution to survival counts (weight 0: the sample is
            ignored, apart from its place in the epoch order).

        {{fit_returns}}
        """
        X, classes, y_class, sample_weight = self._validate_kernel_fit_data(
            X, y, sample_weight
        )
        n, n_classes = X.shape[0], classes.shape[0]
        n_rows = 1 if n_classes == 2 else n_classes
        table = one_vs_all_table(n_classes)
        step = np.ascontiguousarray(
            sample_weight * self._class_weights(
                classes, y_class, sample_weight=sample_weight)[y_class],
            dtype=np.float64,
        )
        y_class = np.ascontiguousarray(y_class, dtype=np.int32)
        gamma = self._resolve_gamma(X)
        if self.kernel == "linear":
            state = _LinearVoteState(X, y_class, step, table, n_rows,
                                     self.fit_intercept)
        else:
            state = _KernelVoteState(X, y_class, step, table, n_rows,
                                     self._kernel(gamma), self.fit_intercept,
                                     self.cache_size)

        # The number of epochs is the algorithm's T: no tolerance rule, a row
        # stops walking only after an epoch without mistakes (see below).
        record = train(
            state, train_idx=np.arange(n, dtype=np.int32),
            rng=check_random_state(self.random_state), shuffle=self.shuffle,
            max_iter=self.max_iter,
            stopper=StoppingRule(n_rows, tol=None, n_iter_no_change=1,
                                 n_samples=n, early_stopping=False),
            verbose=self.verbose,
            norm="||w||" if self.kernel == "linear" else "||f||",
            callbacks=fit_tasks(self, self.max_iter),
            model=lambda trainer, stopper: self._model_attributes(
                X, state.log, n_rows, classes, gamma, step, stopper),
        )
        # T epochs are the algorithm, not a limit it failed to beat: no
        # ConvergenceWarning.
        set_fit_results(self, record, warn=False)
        # A row that made an epoch without mistakes keeps its perceptron for
        # good, so each of the T epochs it did not walk would only have added
        # the steps of all samples to its last perceptron's survival count.
        unwalked = (self.max_iter - record.n_iter) * float(np.sum(step))
        self._set_model(X, state.log, n_rows, unwalked)
        self.classes_ = classes
        self.gamma_ = gamma
        # What partial_fit continues from: the rows seen, and with the
        # linear kernel the current perceptrons (the kernel ones are the
        # prefix sums of the mistakes).
        self._n_seen = n
        self._current = ((state.coef, state.intercept)
                         if self.kernel == "linear" else None)
        return self

    def _model_attributes(self, X, log, n_rows, classes, gamma, step, stopper):
        """The attributes a fit stopped now (``max_iter`` the epochs run so
        far) sets: the model of an epoch, for the callbacks that ask for
        it."""
        unwalked = (stopper.n_iter.max() - stopper.n_iter) * float(np.sum(step))

        def set_model(est):
            est._set_model(X, log, n_rows, unwalked)
            est.classes_, est.gamma_ = classes, gamma

        return model_attributes(self, set_model)

    def _set_model(self, X, log, n_rows, unwalked):
        """The mistake sequence, grouped by row, over the distinct samples;
        ``unwalked[r]`` is added to the survival count of row r's last
        perceptron (the visits of the epochs it did not walk)."""
        row, sample, coef, count = log.trimmed()
        by_row = np.argsort(row, kind="stable")
        support, mistake_support = np.unique(sample[by_row], return_inverse=True)
        self.support_ = support.astype(np.intp)
        self.support_vectors_ = take_rows(X, support)
        self.mistake_support_ = mistake_support.astype(np.int32)
        self.mistake_coef_ = coef[by_row]
        self.survival_counts_ = count[by_row]
        self.mistake_ptr_ = np.concatenate(
            [[0], np.cumsum(np.bincount(row, minlength=n_rows))]
        ).astype(np.int64)
        last = self.mistake_ptr_[1:] - 1
        has_mistakes = np.diff(self.mistake_ptr_) > 0
        self.survival_counts_[last[has_mistakes]] += unwalked[has_mistakes]

    # -- partial_fit ---------------------------------------------------------

    @shared_doc
    @keep_state_on_error
    @partial_fit_context
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One pass of the voted perceptron over a batch, in its order,
        continuing the perceptrons and survival counts of the previous calls
        (or of ``fit``).

        The current perceptron of every row survives into the batch: its
        survival count grows by the steps of the samples it classifies
        right, and a mistake starts the next perceptron, as one long run
        over the concatenated batches would.  So a stream of one-row calls
        gives the model of one call on the whole batch.  ``support_`` then
        indexes the concatenation of the rows seen since the first call (or
        since ``fit``, whose rows come first).  A call costs its walk (one
        dot product per visit with the linear kernel; with another, the
        kernel values of the batch with the support vectors), plus
        O(n_mistakes_) to extend the model; the model grows with every
        mistake, as ``fit``'s does with ``max_iter``.  ``gamma="scale"``
        and ``"auto"`` are resolved on the first call's batch (set a number
        to fit a stream as one call would).  Not available for
        ``kernel="precomputed"``, whose columns are the rows of one
        training set.

        {{partial_fit_params}}

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_perceptrons import VotedPerceptron
        >>> X = np.array([[-2.0, -1.0], [-1.0, -2.0], [1.0, 2.0], [2.0, 1.0]])
        >>> y = np.array([0, 0, 1, 1])
        >>> clf = VotedPerceptron()
        >>> for i in range(4):
        ...     clf = clf.partial_fit(X[i:i + 1], y[i:i + 1], classes=[0, 1])
        >>> clf.predict(X)
        array([0, 0, 1, 1])
        >>> one_call = VotedPerceptron().partial_fit(X, y, classes=[0, 1])
        >>> bool(np.array_equal(one_call.survival_counts_, clf.survival_counts_))
        True
        """
        if self.kernel == "precomputed":
            raise ValueError(
                "partial_fit does not support kernel='precomputed': a Gram "
                "matrix's columns are the rows of one training set. Use fit, "
                "or a kernel computed from the features."
            )
        X, y_class, sample_weight, classes = self._validate_partial_fit_data(
            X, y, classes, sample_weight
        )
        X = prepare_rows(X)
        first_call = "mistake_ptr_" not in self.__dict__
        if not first_call and not hasattr(self, "_n_seen"):
            raise ValueError(
                "This VotedPerceptron was fitted by a release without "
                "VotedPerceptron.partial_fit (0.1.0): it does not record how "
                "many rows it has seen, which support_ counts from. Fit it "
                "again (fit, or partial_fit from a new estimator) to continue "
                "training."
            )
        n, n_classes = X.shape[0], classes.shape[0]
        n_rows = 1 if n_classes == 2 else n_classes
        table = one_vs_all_table(n_classes)
        if sample_weight is None:
            sample_weight = np.ones(n)
        step = np.ascontiguousarray(
            sample_weight * self._class_weights(classes, partial=True)[y_class],
            dtype=np.float64,
        )
        y_class = np.ascontiguousarray(y_class, dtype=np.int32)
        if first_call:
            gamma = self._resolve_gamma(X)
            self._empty_model(X, n_rows)
        else:
            gamma = self.gamma_
            # The support vectors keep the dtype of the first call.
            X = X.astype(self.support_vectors_.dtype, copy=False)
        ptr = self.mistake_ptr_
        # The rows whose current perceptron is a logged one (the others are
        # still at the zero perceptron, which survives nothing).
        carried = np.flatnonzero(np.diff(ptr) > 0).astype(np.int32)
        log = _voted_fast.Ledger(
            max(1024, carried.shape[0] + _LOG_PER_SAMPLE * n), n_rows,
            y_class, step, table)
        log.resume(carried)
        if self.kernel == "linear":
            state = _LinearVoteState(X, y_class, step, table, n_rows,
                                     self.fit_intercept)
            if self._current is not None:
                state.coef[...] = self._current[0]
                state.intercept[...] = self._current[1]
        else:
            state = _KernelVoteState(X, y_class, step, table, n_rows,
                                     self._kernel(gamma), self.fit_intercept,
                                     self.cache_size)
            state.scores[...] = self._current_scores(X, state.kernel, n_rows)
        state.log = log
        updates = state.run_epoch(np.arange(n, dtype=np.int32),
                                  np.ones(n_rows, dtype=np.uint8))
        self._extend_model(X, log, carried, n_rows)
        self._n_seen += n
        self._current = ((state.coef, state.intercept)
                         if self.kernel == "linear" else None)
        self.classes_ = classes
        self.gamma_ = gamma
        record_partial_pass(self, int(updates.sum()))
        return self

    def _grow_classes(self, growth):
        """Re-index the logged perceptrons of every one-vs-all row for the
        classes of ``growth`` (a :class:`~sklearn_perceptrons._core.growth.
        Growth`): a new class's row has no mistake yet (its current
        perceptron is 0, which survives nothing); a binary model's row
        becomes ``classes_[1]``'s and its negation ``classes_[0]``'s."""
        source, sign = growth.one_vs_all_rows()
        ptr = self.mistake_ptr_
        pieces = [np.arange(ptr[s], ptr[s + 1]) if s >= 0
                  else np.zeros(0, dtype=np.int64) for s in source.tolist()]
        order = np.concatenate(pieces).astype(np.intp)
        signs = np.concatenate([np.full(len(p), g) for p, g in zip(pieces, sign)])
        self.mistake_support_ = self.mistake_support_[order]
        self.mistake_coef_ = self.mistake_coef_[order] * signs
        self.survival_counts_ = self.survival_counts_[order]
        self.mistake_ptr_ = np.concatenate(
            [[0], np.cumsum([len(p) for p in pieces])]).astype(np.int64)
        # (A model saved before partial_fit existed has no current
        # perceptrons; partial_fit says so after the validation.)
        current = self.__dict__.get("_current")
        if current is not None:
            coef, intercept = current
            self._current = (reindex_rows(coef, source, sign),
                             reindex_rows(intercept, source, sign))
        self.classes_ = growth.classes

    def _empty_model(self, X, n_rows):
        """The model before the first ``partial_fit`` call: no mistake."""
        self.support_ = np.zeros(0, dtype=np.intp)
        self.support_vectors_ = take_rows(X, np.zeros(0, dtype=np.intp))
        self.mistake_support_ = np.zeros(0, dtype=np.int32)
        self.mistake_coef_ = np.zeros(0)
        self.survival_counts_ = np.zeros(0)
        self.mistake_ptr_ = np.zeros(n_rows + 1, dtype=np.int64)
        self._n_seen = 0
        self._current = ((np.zeros((n_rows, X.shape[1])), np.zeros(n_rows))
                         if self.kernel == "linear" else None)

    def _current_scores(self, X, kernel, n_rows):
        """(n_rows, n_samples): the scores of the rows of X under every
        row's current perceptron, the sum of its mistakes' updates."""
        scores = np.zeros((n_rows, X.shape[0]))
        if self.mistake_coef_.shape[0] == 0:
            return scores
        gram = kernel.matrix(self.support_vectors_, X) + float(
            self.fit_intercept)
        ptr = self.mistake_ptr_
        for r in range(n_rows):
            mistakes = slice(ptr[r], ptr[r + 1])
            scores[r] = self.mistake_coef_[mistakes] @ gram[
                self.mistake_support_[mistakes]]
        return scores

    def _extend_model(self, X, log, carried, n_rows):
        """Append the mistakes of a ``partial_fit`` batch to the model (new
        arrays: a failed call leaves the model as it was); the first
        ``carried.shape[0]`` log entries hold what the current perceptrons
        of those rows survived in the batch."""
        row, sample, coef, count = log.trimmed()
        ptr = self.mistake_ptr_
        n_carried = carried.shape[0]
        counts = self.survival_counts_.copy()
        counts[ptr[carried + 1] - 1] += count[:n_carried]
        row, sample = row[n_carried:], sample[n_carried:]
        coef, count = coef[n_carried:], count[n_carried:]
        if row.shape[0] == 0:
            self.survival_counts_ = counts
            return
        new, new_support = np.unique(sample, return_inverse=True)
        n_old = self.support_vectors_.shape[0]
        self.support_vectors_ = stack_rows(self.support_vectors_,
                                           take_rows(X, new))
        self.support_ = np.concatenate(
            [self.support_, self._n_seen + new]).astype(np.intp)
        # Grouped by row, the old mistakes of a row before its new ones.
        old_rows = np.repeat(np.arange(n_rows, dtype=np.int32), np.diff(ptr))
        by_row = np.argsort(np.concatenate([old_rows, row]), kind="stable")
        self.mistake_support_ = np.concatenate(
            [self.mistake_support_, n_old + new_support])[by_row].astype(
                np.int32)
        self.mistake_coef_ = np.concatenate([self.mistake_coef_, coef])[by_row]
        self.survival_counts_ = np.concatenate([counts, count])[by_row]
        self.mistake_ptr_ = ptr + np.concatenate(
            [[0], np.cumsum(np.bincount(row, minlength=n_rows))])

    # -- prediction ----------------------------------------------------------

    def _gram_t(self, X, kernel, support_vectors):
        """Kernel values between the support vectors and the rows of X,
        (n_SV, n_samples), float64, C-ordered."""
        if self.kernel == "precomputed":
            return np.ascontiguousarray(X[:, self.support_].T, dtype=np.float64)
        if self.kernel == "linear":
            return np.ascontiguousarray(
                safe_sparse_dot(support_vectors, X.T, dense_output=True),
                dtype=np.float64,
            )
        return kernel.matrix(support_vectors, X)

    def _votes(self, X):
        """Unnormalized votes ``sum_k c_k sign(w_k(x))``, (n_samples, n_rows)."""
        check_is_fitted(self)
        if self.kernel == "precomputed":
            self._reject_sparse_gram(X)
            X = validate_data(self, X, dtype=[np.float64, np.float32],
                              order="C", reset=False)
        else:
            X = prepare_rows(self._validate_predict_data(X))
        n_rows = self.mistake_ptr_.shape[0] - 1
        support_vectors = self.support_vectors_
        if self.kernel == "linear":
            # Dot products in double, as in training (blocks of X are cast
            # one at a time).
            support_vectors = support_vectors.astype(np.float64)
        kernel = self._kernel(self.gamma_)
        n_sv = max(self.support_.shape[0], 1)
        # Blocks of test samples whose kernel values fit in cache_size, and
        # at most _BLOCK of them, so the running scores stay in cache.
        chunk = min(_BLOCK, max(_BLOCK_BYTES // (8 * n_sv), 16))
        chunk = max(1, min(chunk, int(self.cache_size * _MB // (8 * n_sv))))
        votes = np.empty((n_rows, X.shape[0]))
        score = np.empty((1, chunk))
        for start in range(0, X.shape[0], chunk):
            block = X[start : start + chunk]
            if self.kernel == "linear":
                block = block.astype(np.float64, copy=False)
            out = np.empty((n_rows, block.shape[0]))
            _voted_fast.vote(
                self._gram_t(block, kernel, support_vectors),
                self.mistake_support_, self.mistake_coef_,
                self.survival_counts_, self.mistake_ptr_,
                float(self.fit_intercept), score, out,
            )
            votes[:, start : start + chunk] = out
        return votes.T

    @shared_doc
    def decision_function(self, X):
        """The normalized vote of every sample: ``sum_k c_k sign(w_k(x)) /
        sum_k c_k``, in [-1, 1].

        {{kernel_predict_X}}

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For binary problems, the vote for ``classes_[1]``; otherwise the
            vote of each class against the rest.
        """
        votes = self._votes(X)
        n_rows = self.mistake_ptr_.shape[0] - 1
        totals = np.bincount(
            np.repeat(np.arange(n_rows), np.diff(self.mistake_ptr_)),
            weights=self.survival_counts_, minlength=n_rows,
        )
        votes = np.divide(votes, totals, out=np.zeros_like(votes),
                          where=totals > 0)
        return votes.ravel() if votes.shape[1] == 1 else votes

    def predict(self, X):
        """Predict the class of every sample by the weighted vote.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features) \
or (n_samples, n_train)
            The samples (Gram matrix with the training samples for
            ``kernel="precomputed"``).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            ``classes_[1]`` where the vote is > 0 and ``classes_[0]``
            otherwise (binary), or the class of the largest normalized vote
            (ties go to the lowest class index).
        """
        return predict_from_decision(self.decision_function(X), self.classes_)


def _flipped(estimator):
    """The copy of a fitted binary voted perceptron trained with the labels
    swapped: the same mistakes and survival counts, every perceptron
    negated (see :func:`~sklearn_perceptrons._core.growth.register_flip`)."""
    flipped = fork(estimator)
    flipped.__dict__.pop("_stream", None)
    flipped.mistake_coef_ = -flipped.mistake_coef_
    current = flipped.__dict__.get("_current")
    if current is not None:
        flipped._current = tuple(-part for part in current)
    return flipped


register_flip(VotedPerceptron, _flipped)
