# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The online-learning family: :class:`PassiveAggressiveClassifier`,
:class:`ALMAClassifier`, :class:`ROMMAClassifier` and :class:`AROWClassifier`.

Each is the perceptron's machinery with another update rule: the first
three are rules of the one compiled linear epoch (``_linear_epoch.pxi``:
the passive-aggressive rules treat each row alone; ALMA and ROMMA rescale
the weights, in its scaled walk), AROW is a rule of the second-order core
(``_second_order_core.pxi``).  Everything else -- validation, labels,
weights, the epoch driver and its stopping rules, averaging, ``partial_fit``
and its one-row stream -- is shared with :class:`Perceptron` and
:class:`SecondOrderPerceptron`.
"""

import numbers

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from .._core.base import fit_method, set_init_params
from .._core.docstrings import shared_doc
from .perceptron import BaseLinearPerceptron, EpochParameters
from .rows import (
    RULE_ALMA,
    RULE_AROMMA,
    RULE_CS_PA1,
    RULE_CS_PA2,
    RULE_PA1,
    RULE_PA2,
    RULE_ROMMA,
    CountedState,
    Rule,
)
from .second_order import SO_AROW, BaseSecondOrder

# The fraction of an update scikit-learn's SGD gives the intercept on sparse
# data (``SPARSE_INTERCEPT_DECAY`` of its linear models).
SPARSE_INTERCEPT_RATE = 0.01


@shared_doc
class PassiveAggressiveClassifier(BaseLinearPerceptron):
    """Passive-aggressive classifier (Crammer et al. 2006): scikit-learn's,
    kept, plus the multiclass rule of the paper.

    For a sample ``x`` of sign ``s`` (+1 for ``classes_[1]``) and weight
    ``c`` (sample weight times class weight), with the hinge loss ``l =
    max(0, 1 - s (w . x + b))`` and ``q = ||x||²``: if ``l > 0``, ``w += tau
    c s x`` and ``b += tau c s``, with ``tau = min(C, l / q)`` (PA-I,
    ``loss="hinge"``) or ``tau = l / (q + 1 / (2 C))`` (PA-II,
    ``loss="squared_hinge"``).  The update is the smallest change of ``w``
    that gives ``x`` a margin of 1 (passive when it already has it,
    aggressive otherwise), capped by ``C`` (PA-I) or softened by it
    (PA-II).  More than two classes are learned one-vs-all in one pass over
    X per epoch, or with ``multi_class="crammer_singer"`` by the multiclass
    rule of [1]_.

    **A home for scikit-learn's.**  scikit-learn deprecated its
    ``PassiveAggressiveClassifier`` in 1.8 (removal in 1.10).  This class
    has its parameters, in the same order and with the same defaults
    (``random_state=None`` included), applies the update exactly as it does
    (the intercept's constant feature is not part of ``q``; PA-I skips an
    all-zero ``x``; the intercept moves by 0.01 of the update on sparse X)
    and stops by the same rule (the training hinge loss), so that a fit
    with ``shuffle=False`` gives its coefficients; and it emits no
    deprecation warning.  See Notes for what differs.

    **When to pick it.**  Among the linear online learners of the package,
    passive-aggressive updates converge in far fewer epochs than the
    perceptron's on separable data and are robust to label noise with a
    small ``C`` (PA-I caps every step); they have no margin schedule to
    tune.  :class:`AROWClassifier` is usually more accurate on noisy,
    badly scaled or sparse text features (it learns a scale per feature),
    at the cost of O(d²) memory (or its diagonal form);
    :class:`ALMAClassifier` approximates the maximum-margin hyperplane with
    a guarantee; :class:`Perceptron` is the cheapest per update.

    **Cost.**  As :class:`Perceptron`'s: an epoch reads every row of X once;
    an update adds a row of X to ``w`` (and reads it once more for ``q``).

    Parameters
    ----------
    C : float, default=1.0
        Aggressiveness ``C > 0``: the largest step of PA-I, the inverse of
        PA-II's regularization of the step.  Small ``C`` for noisy data.

    fit_intercept : bool, default=True
        Whether to learn an intercept ``b``.

    max_iter : int, default=1000
        Maximum number of epochs (passes over the training data) of ``fit``.

    tol : float or None, default=1e-3
        Stopping tolerance, scikit-learn's: when not None, a row stops
        after ``n_iter_no_change`` consecutive epochs whose sum of hinge
        losses (over the training samples, before their updates) did not
        fall below ``best - tol * n_samples`` (or, with early stopping, whose
        validation accuracy did not rise above ``best + tol``).  An epoch
        without any update also stops the row (converged).

    {{early_stopping_params}}

    n_iter_no_change : int, default=5
        Number of epochs without improvement before stopping.

    shuffle : bool, default=True
        Whether to visit the samples in a fresh random order every epoch;
        otherwise cyclically (row 0, 1, ..., n - 1).

    verbose : int, default=0
        If > 0, print one line per epoch: updates, ``||w||`` and time.

    loss : {"hinge", "squared_hinge"}, default="hinge"
        "hinge": PA-I; "squared_hinge": PA-II.

    n_jobs : int, default=None
        Threads training the one-vs-all rows of more than two classes, with
        results identical bit for bit to ``n_jobs=1`` (see
        :class:`Perceptron`).  ``None`` means 1 unless in a
        :obj:`joblib.parallel_config` context; ``-1`` means all processors.

    random_state : int, RandomState instance or None, default=None
        Seed of the epoch permutations and of the validation split.  None,
        as in scikit-learn's class, draws a fresh order at every fit: pass
        an int for reproducible fits.

    {{warm_start_iterate_param}}

    class_weight : dict, "balanced" or None, default=None
        Weights of the classes: ``c`` above is the sample weight times the
        weight of the sample's class ("balanced": ``n_samples / (n_classes
        * np.bincount(y))``).  In the one-vs-all sub-problem of class ``k``
        a sample keeps the weight of its own class (see Notes).

    average : bool, default=False
        If True, ``coef_`` and ``intercept_`` are the average of ``(w, b)``
        over every sample visit of training.

    multi_class : {"ovr", "crammer_singer"}, default="ovr"
        "ovr": one-vs-all, as scikit-learn.  "crammer_singer": the
        multiclass passive-aggressive rule of [1]_ (Section 7), one weight
        row per class (two for two classes, exposed as their difference):
        on a sample of class ``y`` whose highest-scoring other class ``r``
        scores within 1 of it, ``l = 1 - (f_y - f_r)`` with ``f_k = w_k . x
        + b_k``, row ``y`` gains ``tau c x`` and row ``r`` loses it, ``tau``
        as above with ``q = 2 ||x||²`` (the norm of the move).  Rows stop
        together.

    {{grow_classes_param}}

    {{linear_ovr_attrs}}

    t_ : float
        scikit-learn's count of sample visits: ``n_iter_ * n_samples + 1``
        after ``fit``, and the number of samples of each ``partial_fit``
        call added to it.

    n_mistakes_ : int
        Updates (visits of positive hinge loss, margin violations included)
        of the last ``fit`` over all rows; ``partial_fit`` adds to it.

    {{epoch_record_attrs}}

    See Also
    --------
    AROWClassifier : Passive-aggressive steps with a learned scale per feature.
    ALMAClassifier : Approximate maximum-margin classification.
    Perceptron : The perceptron: a fixed step on mistakes.
    sklearn_perceptrons.bounds.passive_aggressive_mistake_bound : Theorems 4
        and 5 of [1]_, computable.

    Notes
    -----
    **Differences from scikit-learn 1.9's class.**  (1) An epoch without any
    update stops ``fit`` with ``converged_ = True``, as every estimator of
    this package does; scikit-learn runs on until its ``tol`` rule fires,
    which changes only ``n_iter_`` unless ``average=True`` (its average
    then takes those extra epochs in).  (2) In a one-vs-all sub-problem a
    sample keeps its own class's weight; scikit-learn weights the positive
    class only (binary problems agree).  (3) ``shuffle=True`` draws this
    package's permutations, and early stopping's split is not stratified;
    ``partial_fit`` visits its rows in the given order (scikit-learn
    shuffles each batch when ``shuffle=True``).  (4) ``average`` is a bool
    (scikit-learn also takes the number of visits after which averaging
    starts).  (5) ``fit`` and ``partial_fit`` take ``sample_weight`` too,
    which scales ``tau`` as ``c``.

    **Mistake bounds.**  With ``fit_intercept=False`` and unit weights, the
    prediction mistakes of any run are bounded, for any ``u``, by
    ``max(R², 1 / C) (||u||² + 2 C sum_t l_t(u))`` (PA-I) and ``(R² + 1 / (2
    C)) (||u||² + 2 C sum_t l_t(u)²)`` (PA-II), ``R`` the largest ``||x||``
    and ``l_t(u)`` the hinge losses of ``u`` (Theorems 4 and 5 of [1]_;
    ``2 R²`` in place of ``R²`` for the multiclass rule); see
    :func:`~sklearn_perceptrons.bounds.passive_aggressive_mistake_bound`.

    {{passive_aggressive_reference}}

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn_perceptrons import PassiveAggressiveClassifier
    >>> X, y = make_classification(n_features=4, random_state=0)
    >>> clf = PassiveAggressiveClassifier(random_state=0).fit(X, y)
    >>> clf.coef_.shape
    (1, 4)
    >>> float(clf.score(X, y)) >= 0.85
    True
    >>> clf.predict([[0, 0, 0, 0]])
    array([1])
    """

    _parameter_constraints = {
        **BaseLinearPerceptron._parameter_constraints,
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "loss": [StrOptions({"hinge", "squared_hinge"})],
        "n_jobs": [numbers.Integral, None],
        "multi_class": [StrOptions({"ovr", "crammer_singer"})],
    }

    def __init__(
        self,
        *,
        C=1.0,
        fit_intercept=True,
        max_iter=1000,
        tol=1e-3,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        shuffle=True,
        verbose=0,
        loss="hinge",
        n_jobs=None,
        random_state=None,
        warm_start=False,
        class_weight=None,
        average=False,
        multi_class="ovr",
        grow_classes=False,
    ):
        set_init_params(self, locals())

    def _rule(self, X, n_rows):
        first = self.loss == "hinge"
        if self._crammer_singer():
            code = RULE_CS_PA1 if first else RULE_CS_PA2
        else:
            code = RULE_PA1 if first else RULE_PA2
        C = float(self.C)
        # PA-I never steps by more than C; PA-II's step has no such bound.
        return Rule(code, np.zeros(n_rows), np.full(n_rows, C), None,
                    sparse_intercept_rate=SPARSE_INTERCEPT_RATE,
                    reach=C if first else None)

    def _finish_fit(self, trainer, record, X, y_class, signs_of_class):
        self.t_ = float(record.n_iter.max(initial=0) * X.shape[0] + 1)
        return super()._finish_fit(trainer, record, X, y_class, signs_of_class)

    def _partial_fit(self, X, y, classes, sample_weight):
        result = super()._partial_fit(X, y, classes, sample_weight)
        self.t_ = self.__dict__.get("t_", 1.0) + X.shape[0]
        return result

    def _after_learn(self, X, y, stream, total):
        super()._after_learn(X, y, stream, total)
        self.t_ = self.__dict__.get("t_", 1.0) + X.shape[0]


@shared_doc
class ALMAClassifier(EpochParameters, BaseLinearPerceptron):
    """ALMA_p: the approximate large margin algorithm (Gentile 2001).

    A perceptron-like online algorithm that converges to a hyperplane whose
    margin is at least ``(1 - alpha)`` times the largest margin of the data
    (in the p-norm), with a mistake bound.  It works on the padded samples
    ``x~ = [x; 1]`` (``fit_intercept``) normalized, ``x^ = x~ / ||x~||``,
    and keeps ``||w~|| <= 1``.  The ``k``-th correction of a row happens on
    a sample whose normalized margin ``s w~ . x^`` is at most ``(1 - alpha)
    gamma_k`` with ``gamma_k = B sqrt(p - 1) / sqrt(k)``; it adds ``eta_k c
    s x^`` to ``w~``, ``eta_k = C / (sqrt(p - 1) sqrt(k))`` (``c`` the
    sample's weight, at most 1: see ``class_weight``), then divides ``w~``
    by ``max(1, ||w~||)`` (the projection onto the unit ball).  The schedule runs over a row's whole
    life: the epochs of ``fit``, then every ``partial_fit`` call (and a
    warm-started ``fit``).  More than two classes are learned one-vs-all in
    one pass over X per epoch.

    **When to pick it.**  When a large margin matters (the classifier will
    meet samples near the boundary, or its confidence ``w . x`` is used)
    and an SVM is too slow: ALMA gets within ``1 - alpha`` of the maximum
    margin in ``O((p - 1) / (alpha gamma)²)`` corrections, in one cheap
    pass per epoch; it is far less sensitive to the scale of the samples
    than the perceptron (they are normalized).  :class:`MarginPerceptron`
    certifies a margin instead (at least half the largest one);
    :class:`PassiveAggressiveClassifier` and :class:`AROWClassifier`
    handle label noise better.

    **Cost.**  As :class:`Perceptron`'s, plus ``||x~||`` of every visited
    sample (one more read of the row, from cache).  The projection is
    O(1): the weights are kept as a scale and a direction.  For ``p != 2``
    the p-norms and the link between ``w~`` and its dual vector cost a
    power per stored entry of a visited row (and of a corrected row of
    ``w~``), and O(n_features) per row per epoch.

    Parameters
    ----------
    p : float, default=2
        The norm ``p >= 2`` of the algorithm; 2 is the Euclidean ALMA_2.
        Larger ``p`` favours sparse separators (a few relevant features).

    alpha : float, default=0.9
        The approximation ``0 < alpha <= 1``: ALMA looks for a margin of
        ``(1 - alpha)`` times the largest one.  ``alpha = 1`` updates on
        mistakes only (a normalized perceptron with decreasing steps);
        small ``alpha`` makes more, smaller corrections.

    B : float, default=None
        The scale of the margin schedule; None means ``1 / alpha``, the value
        of the paper's guarantee.

    C : float, default=sqrt(2)
        The scale of the step schedule; ``sqrt(2)`` is the paper's (and
        River's) choice.

    fit_intercept : bool, default=True
        Whether to learn an intercept, as the weight of a constant feature
        1 appended to every sample (it is normalized with it).

    {{epoch_params}}

    {{average_default_param}}

    class_weight : dict, "balanced" or None, default=None
        Weights of the classes: a correction on a sample of class ``j`` takes
        the step ``c eta_k`` with ``c`` the sample's weight times
        ``class_weight[j]``, capped at 1 (a larger step along the unit
        vector ``x^`` would only turn ``w~`` toward ``x^`` once projected,
        not weigh the sample more); 0 never updates.  In the one-vs-all
        sub-problem of class ``k`` a sample keeps the weight of its own
        class.  With the cap, a weight cannot make one class dominate the
        average (the class is tagged ``poor_score`` for scikit-learn's
        estimator checks, whose class-weight check asks for that).

    {{early_stopping_params}}

    warm_start : bool, default=False
        If True, ``fit`` starts from the state of the previous fit, its
        schedule included (the running average, if any, starts anew).

    {{seed_verbose_params}}

    {{grow_classes_param}}

    {{linear_ovr_attrs}}

    n_mistakes_ : int
        Corrections (margin mistakes included) of the last ``fit`` over all
        rows; ``partial_fit`` adds to it.

    {{epoch_record_attrs}}

    See Also
    --------
    MarginPerceptron : A certified large margin, by halving a target margin.
    Perceptron : Updates on mistakes, with a fixed step.
    sklearn_perceptrons.bounds.alma_mistake_bound : The bound on the
        corrections, computable.

    Notes
    -----
    The paper's guarantee (p = 2): if a unit vector separates the
    normalized padded samples with margin ``gamma``, ALMA_2 with ``B =
    1 / alpha`` makes ``O(1 / (alpha gamma)²)`` corrections however long it
    runs, and the hyperplane it then holds has margin at least ``(1 -
    alpha) gamma`` on the samples it has seen (a correction happens on any
    sample below ``(1 - alpha) gamma_k``).  See
    :func:`~sklearn_perceptrons.bounds.alma_mistake_bound`.

    The projection is a scale, ``w~ = s u`` with ``u`` stored: a visit costs
    O(nnz) on CSR rows; the scale is folded into ``u`` at the end of every
    pass, so that ``partial_fit`` one row at a time and one call on the
    same rows agree to rounding (not bit for bit).  Sample weights scale
    the step ``eta_k`` up to weight 1 (the bound assumes unit weights).

    {{alma_reference}}

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_perceptrons import ALMAClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = ALMAClassifier(random_state=0).fit(X[:100], y[:100])
    >>> clf.score(X[:100], y[:100])
    1.0
    >>> bool((clf.coef_ ** 2).sum() + clf.intercept_[0] ** 2 <= 1.0 + 1e-12)
    True
    """

    p: float = 2
    alpha: float = 0.9
    B: float | None = None
    C: float = 2**0.5
    average: bool = True

    _state_types = {"_state": CountedState}
    _state_class = CountedState

    _parameter_constraints = {
        **BaseLinearPerceptron._parameter_constraints,
        "p": [Interval(numbers.Real, 2, None, closed="left")],
        "alpha": [Interval(numbers.Real, 0, 1, closed="right")],
        "B": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
    }

    def _initial_state(self, X, n_rows, coef_init, intercept_init):
        state = super()._initial_state(X, n_rows, coef_init, intercept_init)
        previous = self.__dict__.get("_state")
        if (coef_init is None and self.warm_start and previous is not None
                and previous.counts.shape == state.counts.shape):
            # A warm start continues the schedule where it stopped.
            state.counts[:] = previous.counts
        return state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Sample weights are capped at 1 (class_weight): scikit-learn's
        # class-weight check expects a weight of 1000 to dominate.
        tags.classifier_tags.poor_score = True
        return tags

    def _rule(self, X, n_rows):
        root = float(np.sqrt(float(self.p) - 1.0))
        B = 1.0 / float(self.alpha) if self.B is None else float(self.B)
        margin = (1.0 - float(self.alpha)) * B * root
        step = float(self.C) / root
        # Normalized rows: a correction moves a weight by at most eta c.
        return Rule(RULE_ALMA, np.full(n_rows, margin), np.full(n_rows, step),
                    None, reach=step, normalized=True, power=float(self.p))


@shared_doc
class ROMMAClassifier(EpochParameters, BaseLinearPerceptron):
    """ROMMA: the relaxed online maximum margin algorithm (Li & Long 2002).

    On a mistake (``s w~ . x~ <= 0``; with ``aggressive=True`` whenever the
    margin ``s w~ . x~`` is below 1), the weights become the smallest vector
    ``v`` with ``v . w~ >= ||w~||²`` (the half-space of the earlier
    constraints that ``w~`` summarises) and ``s v . x~ >= 1`` (the new
    sample): ``v = a w~ + d x~`` in closed form, O(nnz).  The relaxed
    problem's solution moves toward the maximum-margin hyperplane of the
    samples seen, with the perceptron's mistake bound.  Works on the padded
    vectors ``x~ = [x; 1]`` when ``fit_intercept``; more than two classes
    are learned one-vs-all in one pass over X per epoch.

    **When to pick it.**  A parameter-free large-margin learner: no step,
    no margin schedule.  Aggressive ROMMA is close to an SVM on separable
    data after a few epochs; on noisy data prefer
    :class:`PassiveAggressiveClassifier` (PA-I) or :class:`AROWClassifier`,
    whose steps are bounded (ROMMA's are not: one outlier can move ``w``
    far).  :class:`ALMAClassifier` trades a little margin for a guarantee
    on it.

    **Cost.**  As :class:`Perceptron`'s, plus ``||x~||²`` of an updating
    sample; ``||w~||`` is kept up to date and the rescaling of ``w~`` is
    O(1) (the weights are kept as a scale and a direction, folded together
    at the end of every pass: ``partial_fit`` one row at a time and one
    call on the same rows agree to rounding, not bit for bit).

    Parameters
    ----------
    aggressive : bool, default=False
        If True, aggressive ROMMA: update on every sample of margin below 1,
        not only on mistakes.

    fit_intercept : bool, default=True
        Whether to learn an intercept, as the weight of a constant feature
        1 appended to every sample.

    {{epoch_params}}

    {{average_default_param}}

    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, with the sample weights: a sample of weight
        ``c`` and margin ``m`` asks for the margin ``m + c (1 - m)`` instead
        of 1 (the fraction ``c`` of what it lacks; 0: no update).  A weight
        above 1 counts as 1: a second visit of the sample right after its
        update would change nothing (its margin is then 1).  In the
        one-vs-all sub-problem of class ``k`` a sample keeps the weight of
        its own class.

    {{early_stopping_params}}

    {{warm_start_iterate_param}}

    {{seed_verbose_params}}

    {{grow_classes_param}}

    {{linear_ovr_attrs}}

    n_mistakes_ : int
        Updates of the last ``fit`` over all rows (margin updates included
        with ``aggressive=True``); ``partial_fit`` adds to it.

    {{epoch_record_attrs}}

    See Also
    --------
    ALMAClassifier : Approximate maximum-margin classification.
    Perceptron : The perceptron, whose mistake bound ROMMA shares.
    sklearn_perceptrons.bounds.romma_mistake_bound : ``(R / gamma)²``.

    Notes
    -----
    The update, with ``m = s w~ . x~``: ``v = s x~ / ||x~||²`` when
    ``||x~||² ||w~||² <= m`` (the new constraint alone decides; the first
    update, ``w~ = 0``, is such), else ``v = a w~ + d x~`` with ``D =
    ||x~||² ||w~||² - (w~ . x~)²``, ``a = (||x~||² ||w~||² - m) / D`` and
    ``d = ||w~||² (s - w~ . x~) / D``.  When the two constraints are
    parallel (``D`` below ``1e-12 ||x~||² ||w~||²``, which separable data
    never reach), ROMMA starts anew from the new constraint.  A weight
    ``c < 1`` replaces the margin 1 of the new constraint by ``t = m + c
    (1 - m)`` (the same formulas with ``a = 1 - (t - m) m / D``, ``d = s (t
    - m) ||w~||² / D``): the update is the projection onto a nearer
    half-space, and weight 0 leaves ``w~`` where it is.

    ROMMA is a hard-margin algorithm: every update makes ``||w~||`` larger,
    and on data that are not separable it grows without bound (by a large
    factor when a mistaken sample is nearly opposite to ``w~``), until the
    weights overflow (a ValueError) if nothing stops the fit.  The default
    ``tol`` stops it when the updates stall; ``early_stopping=True`` keeps
    the best validation epoch.  One-vs-all rows of different norms then
    compare badly: for noisy data prefer
    :class:`PassiveAggressiveClassifier` or :class:`AROWClassifier`.  (The
    class is tagged ``poor_score`` for scikit-learn's estimator checks,
    whose class-weight check trains on such data.)

    On data separable with margin ``gamma`` in a ball of radius ``R``
    (padded vectors), ROMMA and aggressive ROMMA make at most ``(R /
    gamma)²`` mistakes, and ``||w~||`` never exceeds ``1 / gamma`` ([1]_;
    :func:`~sklearn_perceptrons.bounds.romma_mistake_bound`).

    {{romma_reference}}

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_perceptrons import ROMMAClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = ROMMAClassifier(random_state=0).fit(X[:100], y[:100])
    >>> clf.score(X[:100], y[:100])
    1.0
    >>> clf.converged_
    True
    >>> wide = ROMMAClassifier(aggressive=True, random_state=0).fit(X[:100], y[:100])
    >>> bool(wide.decision_function(X[:100]).min() < 0 < wide.decision_function(X[:100]).max())
    True
    """

    aggressive: bool = False
    average: bool = True

    _parameter_constraints = {
        **BaseLinearPerceptron._parameter_constraints,
        "aggressive": ["boolean"],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # A hard-margin algorithm: on data that are not separable (the very
        # noisy blobs of scikit-learn's class-weight check) its norms grow
        # without bound and its one-vs-all rows lose their common scale.
        tags.classifier_tags.poor_score = True
        return tags

    def _rule(self, X, n_rows):
        code = RULE_AROMMA if self.aggressive else RULE_ROMMA
        # The size of ROMMA's update has no bound in terms of x.
        return Rule(code, np.zeros(n_rows), np.zeros(n_rows), None, reach=None)


@shared_doc
class AROWClassifier(BaseSecondOrder):
    """AROW: adaptive regularization of weight vectors (Crammer, Kulesza &
    Dredze 2009).

    Keeps a Gaussian over the weights, a mean ``mu`` (the weights ``w~ =
    [w; b]``, padded when ``fit_intercept``) and a covariance ``Sigma``
    (the identity at first).  A sample ``x~`` of sign ``s`` and margin
    ``m = s mu . x~ < 1`` updates both: with ``v = x~^T Sigma x~`` and
    ``beta = 1 / (v + r)``,

    ``mu += (1 - m) beta s Sigma x~``,  ``Sigma -= beta Sigma x~ x~^T Sigma``.

    The step is large along directions the model is unsure of (large
    variance) and shrinks as they are confirmed; ``r > 0`` regularizes it
    (large ``r``: small, cautious steps).  ``diagonal=True`` keeps only the
    variances, one per feature.  More than two classes are learned
    one-vs-all, every row with its own ``Sigma``, all rows in one compiled
    pass over X per epoch.

    **When to pick it.**  The most accurate online linear learner of the
    package on noisy or badly scaled data, and on sparse text with
    ``diagonal=True`` (a learning rate per feature: rare words move fast,
    frequent ones settle), within a few thousandths of a linear SVM in
    published comparisons.  It is :class:`SecondOrderPerceptron`'s update
    (``a = r``) triggered by the hinge loss instead of mistakes, so it
    shares its cost: ``diagonal=False`` stores one ``(d + 1)²`` matrix per
    row and costs O(d²) per update (fine up to a few thousand features);
    ``diagonal=True`` costs O(nnz) per update and O(d) memory.  On clean,
    well-scaled data :class:`PassiveAggressiveClassifier` is as good and
    cheaper.

    Parameters
    ----------
    r : float, default=1.0
        The regularization ``r > 0`` of the step.  Small ``r`` trusts every
        sample more (fast, noisy learning); large ``r`` is cautious.  A
        sensible scale is that of ``||x||²``; as for
        :class:`SecondOrderPerceptron`'s ``a``, an ``r`` many orders of
        magnitude below it on nearly collinear features makes the full
        covariance lose its positive definiteness in floating point, and
        ``fit`` raises a ValueError that says so.

    diagonal : bool, default=False
        If True, keep only the diagonal of ``Sigma`` (the form of [1]_ for
        large feature spaces): the inverse variances grow by ``x_j² / r``
        and the mean moves along the old diagonal.  O(nnz) per update and
        O(d) memory instead of O(d²).

    fit_intercept : bool, default=True
        Whether to learn an intercept, as the weight of a constant feature
        1 appended to every sample (it has a variance like any weight).

    {{epoch_params}}

    average : bool, default=False
        If True, ``coef_`` and ``intercept_`` are the average of ``mu`` over
        every sample visit of training.

    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, with the sample weights: a sample of weight
        ``c`` counts as ``c`` samples in ``Sigma`` (``r / c`` in place of
        ``r``); weight 0 never updates.  In the one-vs-all sub-problem of
        class ``k`` a sample keeps the weight of its own class.

    {{early_stopping_params}}

    warm_start : bool, default=False
        If True, ``fit`` starts from the state of the previous fit: both
        ``mu`` and ``Sigma`` (the running average, if any, starts anew).

    {{seed_verbose_params}}

    {{grow_classes_param}}

    {{linear_ovr_attrs}}

    n_mistakes_ : int
        Updates (margin errors included) of the last ``fit`` over all rows;
        ``partial_fit`` adds to it.

    {{epoch_record_attrs}}

    See Also
    --------
    SecondOrderPerceptron : The same update on mistakes only.
    PassiveAggressiveClassifier : The first-order margin update.
    sklearn_perceptrons.bounds.arow_mistake_bound : Theorem 2 of [1]_.

    Notes
    -----
    With ``A = r Sigma^-1 = r I + sum_t x~_t x~_t^T`` over the updates,
    ``mu = A^-1 v`` with ``v = sum_t s_t x~_t``: the second-order
    perceptron's weights for ``a = r``, which this class computes with the
    same Sherman-Morrison updates of ``A^-1`` (float64, held back and fused
    into the next product).  Its mistake bound (Theorem 2 of [1]_), for any
    ``u``: ``M <= sqrt(r ||u||² + sum_t (u . x~_t)²) sqrt(ln det(I + X_A /
    r) + U) + sum_t max(0, 1 - s_t u . x~_t) - U``, over the updates ``t``
    (``U`` of them margin errors); see
    :func:`~sklearn_perceptrons.bounds.arow_mistake_bound`.

    {{arow_reference}}

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_perceptrons import AROWClassifier, Perceptron
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(2000, 2)) * [1.0, 0.01]  # badly scaled features
    >>> y = (X[:, 0] + 100 * X[:, 1] > 0).astype(int)
    >>> arow = AROWClassifier(shuffle=False).partial_fit(X, y, [0, 1])
    >>> first = Perceptron(shuffle=False).partial_fit(X, y, [0, 1])
    >>> bool(arow.score(X, y) > first.score(X, y))
    True
    >>> AROWClassifier(diagonal=True).fit(X, y).coef_.shape
    (1, 2)
    """

    r: float = 1.0

    _parameter_constraints = {
        **BaseSecondOrder._parameter_constraints,
        "r": [Interval(numbers.Real, 0, None, closed="neither")],
    }

    _update_rule_code = SO_AROW

    def _regularization(self):
        return float(self.r)

    @fit_method
    def fit(self, X, y, sample_weight=None):
        """Fit AROW by epochs over the training data.

        {{fit_X_y}}

        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights: a sample of weight ``c`` counts as ``c``
            samples in the covariance (``r / c`` in place of ``r``).

        {{fit_returns}}
        """
        return self._fit(X, y, None, None, sample_weight)
