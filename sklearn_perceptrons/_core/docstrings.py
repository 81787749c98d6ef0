# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Docstring fragments that several public objects share, written once.

A docstring names a fragment on a line of its own, ``{{name}}``, indented
where the fragment belongs; :func:`fill` (or the :func:`shared_doc`
decorator, at class or function creation) replaces that line by the
fragment, every line indented as the placeholder was. The filled docstring
is a plain string, so ``help()``, ``inspect.getdoc``, numpydoc and doctest
read it as if it had been written out in full. An unknown name raises
``KeyError`` at import time.
"""

import re
import textwrap

_SLOT = re.compile(r"^([ \t]*)\{\{(\w+)\}\}[ \t]*$", re.MULTILINE)

FRAGMENTS = {}


def fragment(name, text):
    """Register ``text`` (dedented, stripped of blank edge lines) as ``name``;
    the fragments it names, defined before it, are filled in."""
    if name in FRAGMENTS:
        raise ValueError(f"docstring fragment {name!r} is defined twice")
    FRAGMENTS[name] = fill(textwrap.dedent(text).strip("\n"))


def fill(doc):
    """``doc`` with each ``{{name}}`` line replaced by its fragment."""

    def expand(match):
        indent, name = match.groups()
        lines = FRAGMENTS[name].split("\n")
        return "\n".join(indent + line if line.strip() else "" for line in lines)

    return _SLOT.sub(expand, doc)


def shared_doc(obj):
    """Decorator: fill ``obj.__doc__`` in place and return ``obj``."""
    if obj.__doc__:
        obj.__doc__ = fill(obj.__doc__)
    return obj


# ---------------------------------------------------------------------------
# feasibility.py
# ---------------------------------------------------------------------------

fragment("feasibility_A", """
    A : {array-like, sparse matrix} of shape (n_constraints, n_features)
        The constraint rows. float32 and float64 arrays and CSR matrices are
        used in place; other inputs are converted once. Must be finite, with
        at least one row and one column. Rows whose squared norms leave
        float64 (norms beyond about 1e154 or below 1e-146) are scaled by
        powers of two in a copy (see the module docstring).
""")

fragment("feasibility_random_state", """
    random_state : int, RandomState instance or None, default=None
        Seeds the ``"permuted"`` and ``"random"`` orders (validated, but
        unused, by the others). Pass an int for reproducible results.
""")

fragment("feasibility_result_w", """
    res : scipy.optimize.OptimizeResult
        With fields

        x : ndarray of shape (n_features,), float64
            The final ``w``.
""")

fragment("feasibility_example_A", """
    >>> import numpy as np
    >>> A = np.array([[1.0, 2.0], [2.0, 1.0], [1.0, -0.5]])  # a feasible system
""")


# ---------------------------------------------------------------------------
# _multiclass.py: OneVsAllPerceptron, OneVsOnePerceptron
# ---------------------------------------------------------------------------

fragment("reduction_parameters", """
    Parameters
    ----------
    estimator : estimator object, default=None
        A binary classifier with ``fit`` and ``decision_function``, cloned for
        every binary problem.  ``None`` means :class:`Perceptron()`.

    n_jobs : int, default=None
        Number of jobs training the binary problems in parallel: joblib
        workers for the generic path; threads for the fast path, each
        training a group of the binary problems in its own compiled pass
        over X, without the GIL, with results equal to ``n_jobs=1`` bit for
        bit (the base estimator's own ``n_jobs`` is then not used).  Every
        thread pays the cost of reading each sample, so the threads gain
        most when each has many problems, or long rows, to score.  ``None``
        means 1 unless in a :obj:`joblib.parallel_backend` context; ``-1``
        means all processors; ``0`` is refused.  No more workers start than
        there are binary problems.

    grow_classes : bool, default=False
        Whether ``partial_fit`` accepts labels outside the ``classes`` of
        its first call (False: a ValueError, scikit-learn's rule).  True: a
        new label joins ``classes_`` (kept sorted) at the start of the call
        that first names it, in ``y`` or in ``classes``; the binary
        estimators of the old classes (of the old pairs) are kept as they
        are, and a new class gets new unfitted copies of ``estimator`` for
        its binary problems (one-vs-all: its own; one-vs-one: its pairs
        with every other class), which learn from the samples since it
        joined.  A binary one-vs-all model (one estimator, ``classes_[1]``
        positive) that meets a third class gets for ``classes_[0]`` the
        copy of its estimator with the labels swapped (the negated weights,
        what training on the swapped labels learns); only this package's
        estimators can be swapped, so another binary ``estimator`` needs
        every class known at the start (at least 3).  See
        :ref:`growing_classes`.
""")

fragment("grow_classes_param", """
    grow_classes : bool, default=False
        Whether ``partial_fit`` accepts labels outside the ``classes`` of
        its first call.  False keeps scikit-learn's rule: such a label is a
        ValueError.  True: a new label joins ``classes_`` (kept sorted) at
        the start of the call that first names it, in ``y`` or in
        ``classes``; what the model learned of every old class is
        re-indexed, unchanged, and the new class's row (a weight row, a
        column of dual coefficients, a list of voted perceptrons) starts as
        a row of a new model does: zero, having seen nothing of the past,
        and averaged (``average=True``) over the visits since the class
        joined.  One-vs-all, it then learns exactly what a binary model of
        its own would learn from the samples since the class joined (the
        class positive, every other sample negative; with a budget, the
        support vectors kept are shared by all the rows).  Crammer-Singer,
        the rows compete: the model goes on as a Crammer-Singer model of
        all the classes started from the old rows and a zero row.  A binary
        model that meets a third class becomes one-vs-all, and
        ``decision_function`` one column per class: its one row stays that
        of ``classes_[1]`` and its negation becomes that of
        ``classes_[0]``, which is what a one-vs-all row of two classes
        learns.  ``class_weight`` may name classes that have not joined
        yet.  See :ref:`growing_classes`.
""")



fragment("reduction_classes", """
    classes_ : ndarray of shape (n_classes,)
        The sorted class labels.

    n_classes_ : int
        Number of classes.
""")

fragment("reduction_fast_path", """
    The fast path is used when the base estimator's type is exactly
    :class:`Perceptron` or :class:`MarginPerceptron`, except with
    ``class_weight`` (the binary estimators see labels 0/1, so their class
    weights are those of their binary problem), ``early_stopping=True`` (each
    binary estimator draws its own validation split from its own samples) or
    ``margin="auto"`` (a search per binary problem, on its own samples);
    these use the generic path.  Streaming one row at a time after the
    first calls is lean on both paths for ``MarginPerceptron(margin="auto")``
    too: every binary search then runs in one compiled stream over all the
    rows, each on its own samples, with the same result.
""")

fragment("reduction_example_iris", """
    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
""")


# ---------------------------------------------------------------------------
# bounds.py
# ---------------------------------------------------------------------------

fragment("bounds_X_y", """
    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The samples. Sparse matrices are never densified.

    y : array-like of shape (n_samples,)
        Binary labels (exactly two classes). ``np.unique(y)[1]`` is the
        positive class.
""")


# References [2] and [3] of mistake_bound and of Perceptron.
fragment("novikoff_crammer_singer_references", """
    .. [2] A. B. J. Novikoff, "On convergence proofs on perceptrons",
       Proceedings of the Symposium on the Mathematical Theory of Automata
       12, 615-622, 1962.
    .. [3] K. Crammer and Y. Singer, "Ultraconservative online algorithms
       for multiclass problems", Journal of Machine Learning Research 3,
       951-991, 2003.
""")


# ---------------------------------------------------------------------------
# distributed.py
# ---------------------------------------------------------------------------

fragment("dask_X", """
    Parameters
    ----------
    X : dask array, dask DataFrame, array-like or sparse matrix of \
shape (n_samples, n_features)
        The samples.
""")


# ---------------------------------------------------------------------------
# The binary/one-vs-all perceptrons (Perceptron, MarginPerceptron,
# SecondOrderPerceptron, KernelPerceptron, VotedPerceptron)
# ---------------------------------------------------------------------------

fragment("fit_X_y", """
    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Training data; float32 and CSR data are used without copies (CSR
        indices other than int32 are narrowed once, in a copy of the
        indices).

    y : array-like of shape (n_samples,)
        Target labels.
""")

fragment("linear_coef_attrs", """
    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights, in the dtype of the training data.

    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts.
""")

fragment("kernel_fit_X_y", """
    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features) \
or (n_samples, n_samples)
        Training data (float32 and CSR data are used without copies), or
        the Gram matrix for ``kernel="precomputed"``.

    y : array-like of shape (n_samples,)
        Target labels.
""")

fragment("classes_attrs", """
    classes_ : ndarray of shape (n_classes,)
        The sorted class labels.

    n_features_in_ : int
        Number of features seen during ``fit``.

    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features, when X has string column names.
""")

fragment("kernel_predict_X", """
    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features) \
or (n_samples, n_train)
        The samples, or their kernel with the training samples for
        ``kernel="precomputed"``.
""")

fragment("epoch_record_attrs", """
    mistakes_per_epoch_ : list of int
        Updates of every epoch of the last ``fit``; ``partial_fit`` appends
        one entry per call.

    converged_ : bool
        Whether every row of the last ``fit`` ended on an epoch with zero
        updates (after ``partial_fit``: whether its pass made no update).
""")

fragment("partial_fit_params", """
    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        A batch of training data (never shuffled).

    y : array-like of shape (n_samples,)
        Target labels of the batch.

    classes : array-like of shape (n_classes,), default=None
        Every label of the stream; required on the first call (at least
        two).  With ``grow_classes=True`` a later call may name more
        classes, and labels outside ``classes_`` join it.

    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights of the samples, as in ``fit``.

    Returns
    -------
    self : object
        The updated estimator.
""")


# ---------------------------------------------------------------------------
# SecondOrderPerceptron and its mistake bound
# ---------------------------------------------------------------------------

fragment("second_order_reference", """
    References
    ----------
    .. [1] N. Cesa-Bianchi, A. Conconi and C. Gentile, "A second-order
       perceptron algorithm", SIAM Journal on Computing 34(3), 640-668, 2005.
""")

fragment("epoch_params", """
    max_iter : int, default=1000
        Maximum number of epochs (passes over the training data) of ``fit``.

    tol : float or None, default=1e-3
        Stopping tolerance: when not None, a row stops after
        ``n_iter_no_change`` consecutive epochs whose number of updates did
        not fall below ``best - tol * n_samples`` (or, with early stopping,
        whose validation accuracy did not rise above ``best + tol``).

    n_iter_no_change : int, default=5
        Number of epochs without improvement before stopping.

    shuffle : bool, default=True
        Whether to visit the samples in a fresh random order every epoch;
        otherwise cyclically (row 0, 1, ..., n - 1).
""")


fragment("verbose_lines", """
    If > 0, ``fit`` prints a line per epoch ("Epoch k of max_iter": its
    updates, the norm named below, its time, the total time and at most how
    long the remaining epochs take at the pace so far), a line at least
    every 10 s within an epoch that runs longer (the samples visited, the
    updates so far, the time left in the epoch), and a closing line with
    why it stopped (converged, the tol rule, early stopping, ``max_iter``,
    or a callback) and the total time; a ``partial_fit`` call prints one
    line.  See :ref:`ug_verbose` in the user guide.
""")


# ---------------------------------------------------------------------------
# KernelPerceptron, VotedPerceptron
# ---------------------------------------------------------------------------

fragment("kernel_degree_gamma_params", """
    degree : int, default=3
        Degree of the "poly" kernel.

    gamma : {"scale", "auto"} or float, default="scale"
        Kernel coefficient of "poly", "rbf", "sigmoid" and "laplacian":
        "scale" is ``1 / (n_features * X.var())`` (1 when X is constant),
        "auto" is ``1 / n_features``; ``gamma_`` holds the value used.  The
        other kernels ignore it: "scale" out of the range of float64 (X of
        extreme variance, e.g. 1e-160) is an error only for the four that
        read it.
""")

fragment("xor_example_data", """
    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    >>> y = np.array([0, 1, 1, 0])  # XOR: not linearly separable
""")

fragment("fit_returns", """
    Returns
    -------
    self : object
        The fitted estimator.
""")


# ---------------------------------------------------------------------------
# The linear online learners (Perceptron, SecondOrderPerceptron and the
# online-learning family: PassiveAggressiveClassifier, ALMAClassifier,
# ROMMAClassifier, AROWClassifier)
# ---------------------------------------------------------------------------

fragment("early_stopping_params", """
    early_stopping : bool, default=False
        Whether to hold out ``validation_fraction`` of the training data and
        stop each row when its validation accuracy stops improving; the model
        of each row's best validation epoch (its weights, and the matrix of a
        second-order learner) is kept.

    validation_fraction : float, default=0.1
        Fraction of the training data held out for early stopping.
""")

fragment("warm_start_iterate_param", """
    warm_start : bool, default=False
        If True, ``fit`` starts from the last iterate of the previous fit (the
        running average, if any, starts anew).
""")

fragment("average_default_param", """
    average : bool, default=True
        If True, ``coef_`` and ``intercept_`` are the average of ``w~`` over
        every sample visit of training; False gives the last iterate, the
        paper's output.  The average is the default because it is as
        accurate or more on nearly every real data set (the last iterate of
        a noisy stream can fall below the majority class); it costs O(d)
        more per update.
""")

fragment("seed_verbose_params", """
    random_state : int, RandomState instance or None, default=0
        Seed of the epoch permutations and of the validation split.

    verbose : int, default=0
        If > 0, print one line per epoch: updates, ``||w||`` and time.
""")

fragment("ovr_n_iter_attr", """
    n_iter_ : int
        Epochs run by the last ``fit`` (the largest number over one-vs-all
        rows); after ``partial_fit``, the number of passes since the first.
""")

# The references of the online learners, shared with their mistake bounds
# (sklearn_perceptrons.bounds).

fragment("passive_aggressive_reference", """
    References
    ----------
    .. [1] K. Crammer, O. Dekel, J. Keshet, S. Shalev-Shwartz and Y. Singer,
       "Online passive-aggressive algorithms", Journal of Machine Learning
       Research 7, 551-585, 2006.
""")

fragment("alma_reference", """
    References
    ----------
    .. [1] C. Gentile, "A new approximate maximal margin classification
       algorithm", Journal of Machine Learning Research 2, 213-242, 2001.
""")

fragment("romma_reference", """
    References
    ----------
    .. [1] Y. Li and P. M. Long, "The relaxed online maximum margin
       algorithm", Machine Learning 46, 361-387, 2002.
""")

fragment("arow_reference", """
    References
    ----------
    .. [1] K. Crammer, A. Kulesza and M. Dredze, "Adaptive regularization of
       weight vectors", Advances in Neural Information Processing Systems
       22, 2009.
""")

# The attributes every linear one-vs-all learner starts with.
fragment("linear_ovr_attrs", """
    {{linear_coef_attrs}}

    {{classes_attrs}}

    {{ovr_n_iter_attr}}
""")
