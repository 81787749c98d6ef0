# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The mistake bounds of the online family: passive-aggressive (PA-I, PA-II),
ALMA_p, ROMMA and AROW."""

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions, validate_params
from sklearn.utils.extmath import row_norms, safe_sparse_dot

from .._core.docstrings import shared_doc
from .data import (
    check_class_coef,
    check_coef,
    check_intercept,
    check_run_rows,
    check_X_y,
    check_X_y_multiclass,
)
from .margins import max_margin
from .perceptron import min_hinge_objective, mistake_bound
from .second_order import log_det_term, run_bound


def _min_scaled_loss(scores, a, squared):
    """min over alpha >= 0 of ``a alpha**2 + sum_i h(1 - alpha scores_i)``
    with ``h(z) = 2 max(0, z)`` (hinge) or ``h(z) = max(0, z)**2``
    (``squared``); never more than its value at 0.

    Both objectives are convex; the squared one is quadratic between the
    breakpoints ``1 / scores_i`` (``scores_i > 0``), so its exact minimum is
    the smallest of the clipped stationary points of its pieces.
    """
    n = scores.shape[0]
    if not squared:
        return min_hinge_objective(scores, a)
    pos = np.sort(scores[scores > 0.0])[::-1]  # breakpoints 1/pos increasing
    nonpos = scores[scores <= 0.0]
    # On piece j the loss is active on the non-positive scores and on
    # pos[j:]: sum (1 - alpha s)^2 = count - 2 alpha S1 + alpha^2 S2.
    s1 = nonpos.sum() + np.concatenate([np.cumsum(pos[::-1])[::-1], [0.0]])
    s2 = (nonpos @ nonpos) + np.concatenate(
        [np.cumsum((pos * pos)[::-1])[::-1], [0.0]])
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        inv = 1.0 / pos
        lo = np.concatenate([[0.0], inv])
        hi = np.concatenate([inv, [np.inf]])
        alpha = np.clip(s1 / (a + s2), lo, hi)
    alpha[~np.isfinite(alpha)] = 0.0
    values = [a * t * t + float((np.maximum(0.0, 1.0 - t * scores) ** 2).sum())
              for t in np.unique(alpha)]
    return float(min(min(values), float(n)))


def _multiclass_gaps(X, y_class, coef):
    """``u_{y_i} . x_i - max_{r != y_i} u_r . x_i`` for every sample."""
    scores = np.asarray(safe_sparse_dot(X, coef.T, dense_output=True))
    own = scores[np.arange(scores.shape[0]), y_class]
    scores[np.arange(scores.shape[0]), y_class] = -np.inf
    return own - scores.max(axis=1)


@validate_params(
    {
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like"],
        "coef": ["array-like"],
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "loss": [StrOptions({"hinge", "squared_hinge"})],
        "multi_class": [StrOptions({"ovr", "crammer_singer"})],
    },
    prefer_skip_nested_validation=True,
)
@shared_doc
def passive_aggressive_mistake_bound(X, y, coef, *, C=1.0, loss="hinge",
                                     multi_class="ovr"):
    """Mistake bound of the passive-aggressive algorithms (PA-I and PA-II).

    For any comparison vector ``u`` (separating or not), one pass of
    PA-I (``loss="hinge"``) or PA-II (``loss="squared_hinge"``) started at
    ``w = 0`` over the samples of ``(X, y)``, in any order, makes at most

    * PA-I: ``max(R**2, 1 / C) (||u||**2 + 2 C sum_i l_i)`` prediction
      mistakes (Theorem 4 of [1]_),
    * PA-II: ``(R**2 + 1 / (2 C)) (||u||**2 + 2 C sum_i l_i**2)`` (Theorem
      5 of [1]_, which bounds the sum of the squared losses of the run, at
      least 1 on every mistake),

    with ``R = max_i ||x_i||`` and ``l_i = max(0, 1 - s_i u . x_i)`` the
    hinge losses of ``u``.  Both hold for every ``u``; this function
    returns their minimum over the scale of the given ``u``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The samples of the pass, as the algorithm sees them. To bound
        several passes, stack the data once per pass.

    y : array-like of shape (n_samples,)
        Labels: exactly two classes (``np.unique(y)[1]`` positive) with
        ``multi_class="ovr"``, at least two with ``"crammer_singer"``.

    coef : array-like of shape (n_features,) or (n_classes, n_features)
        The comparison vector ``u`` (one row per class for the multiclass
        rule, ``np.unique(y)`` order). Only its direction matters: the bound
        is minimised over its scale.

    C : float, default=1.0
        The aggressiveness ``C > 0`` of the run.

    loss : {"hinge", "squared_hinge"}, default="hinge"
        PA-I or PA-II, as in
        :class:`~sklearn_perceptrons.PassiveAggressiveClassifier`.

    multi_class : {"ovr", "crammer_singer"}, default="ovr"
        "ovr": the binary rule. "crammer_singer": the multiclass rule of
        Section 7 of [1]_ (one row per class; a visit moves the row of the
        sample's class toward ``x`` and the highest-scoring other row away),
        whose Kesler vectors have squared norm ``2 ||x||**2``: ``R**2``
        becomes ``2 R**2``, ``||u||`` the Frobenius norm of the rows and
        ``l_i = max(0, 1 - (u_{y_i} . x_i - max_{r != y_i} u_r . x_i))``.

    Returns
    -------
    bound : float
        The bound above, at most its value at ``u = 0``:
        ``2 C n max(R**2, 1 / C)`` (PA-I) or
        ``2 C n (R**2 + 1 / (2 C))`` (PA-II).

    See Also
    --------
    hinge_mistake_bound : The perceptron's bound in the same terms.

    Notes
    -----
    The bounds are about the algorithm of [1]_ on the vectors ``x`` it is
    given: :class:`~sklearn_perceptrons.PassiveAggressiveClassifier` with
    ``fit_intercept=False`` and unit sample and class weights.  With
    ``fit_intercept=True`` scikit-learn's step leaves the intercept's
    constant feature out of ``||x||**2`` and no bound of [1]_ applies; the
    algorithm of [1]_ with a bias is the one run on ``[x; 1]`` without an
    intercept, which this function bounds when given ``[x; 1]``.

    The proof, in brief (Lemma 1 of [1]_): every update
    ``w += tau s x`` brings ``w`` closer to ``u`` by at least
    ``tau (2 l_t - tau ||x_t||**2 - 2 l*_t)``, with ``l_t`` the loss of the
    run and ``l*_t`` that of ``u``; the sum is at most ``||u||**2``.  PA-I's
    step ``tau_t = min(C, l_t / ||x_t||**2)`` makes each term at least
    ``tau_t l_t - 2 C l*_t`` and ``tau_t l_t >= min(C, 1 / R**2)`` on a
    mistake (``l_t >= 1``); PA-II's step makes it at least
    ``l_t**2 / (R**2 + 1 / (2 C)) - 2 C l*_t**2``.

    {{passive_aggressive_reference}}

    Examples
    --------
    >>> from sklearn_perceptrons.bounds import passive_aggressive_mistake_bound
    >>> X = [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]
    >>> y = [1, 1, 0]
    >>> float(passive_aggressive_mistake_bound(X, y, [1.0, 1.0]))
    2.0
    """
    if multi_class == "ovr":
        X, signs = check_X_y(X, y)
        u = check_coef(coef, X.shape[1])
        scores = signs * safe_sparse_dot(X, u, dense_output=True)
        u_sq = float(u @ u)
        kesler = 1.0
    else:
        X, y_class, n_classes = check_X_y_multiclass(X, y)
        u = check_class_coef(coef, n_classes, X.shape[1])
        scores = _multiclass_gaps(X, y_class, u)
        u_sq = float(np.sum(u * u))
        kesler = 2.0
    r2 = kesler * float(row_norms(X, squared=True).max())
    if loss == "hinge":
        # K (a^2 ||u||^2 + 2 C sum l) = K C (a^2 ||u||^2 / C + 2 sum l).
        factor = max(r2, 1.0 / C)
        return float(factor * C * _min_scaled_loss(scores, u_sq / C, False))
    # (R^2 + 1/2C) (a^2 ||u||^2 + 2 C sum l^2) = (..) 2 C (a^2 ||u||^2 / 2C + ..).
    factor = r2 + 0.5 / C
    return float(factor * 2.0 * C * _min_scaled_loss(scores, u_sq / (2.0 * C), True))


# The lower bound of ALMA's potential is followed for at most this many
# corrections; a bound beyond it is reported as inf.
_ALMA_MAX_CORRECTIONS = 2**27


def _alma_corrections(gamma, p, alpha, B, C):
    """The largest ``m`` with ``L_{m+1} <= 1``, where ``L_1 = 0`` and
    ``L_{k+1} = (L_k + gamma C / (sqrt(p - 1) sqrt(k))) / sqrt(1 + A / k)``,
    ``A = 2 (1 - alpha) B C + C**2`` (see :func:`alma_mistake_bound`).

    Computed in log space, in blocks of corrections (the sums of the
    recursion are cumulative log-sum-exps), until ``L`` is provably above 1
    for good: past ``k >= A**2 / 4``, once ``c sqrt(k) > 1`` with ``c = 2 b
    sqrt(k) / A`` and ``L_k > 1``, every later ``L`` exceeds 1.
    """
    step = gamma * C / np.sqrt(p - 1.0)
    A = 2.0 * (1.0 - alpha) * B * C + C * C
    c = 2.0 * step / A
    block = 1 << 16
    log_r_prev = 0.0   # sum_{j < k0} log r_j, r_j = (1 + A / j)^(-1/2)
    lse_prev = -np.inf  # log sum_{k < k0} b_k / prod_{j < k} r_j
    last_ok = 0
    k0 = 1
    while k0 <= _ALMA_MAX_CORRECTIONS:
        k = np.arange(k0, k0 + block, dtype=np.float64)
        log_r = -0.5 * np.log1p(A / k)
        cum = log_r_prev + np.cumsum(log_r)            # log R_k
        before = np.concatenate([[log_r_prev], cum[:-1]])  # log R_{k-1}
        terms = np.log(step) - 0.5 * np.log(k) - before
        lse = np.logaddexp.accumulate(np.concatenate([[lse_prev], terms]))[1:]
        log_next = cum + lse                            # log L_{k+1}
        ok = np.flatnonzero(log_next <= 0.0)
        if ok.size:
            last_ok = int(k[ok[-1]])
        # L_{k+1} > 1 for good from the first k + 1 of the settled region.
        settled = ((k + 1.0 >= A * A / 4.0) & (c * np.sqrt(k + 1.0) > 1.0)
                   & (log_next > 0.0))
        if settled.any():
            return float(last_ok)
        log_r_prev, lse_prev = float(cum[-1]), float(lse[-1])
        k0 += block
    return np.inf


@validate_params(
    {
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like"],
        "p": [Interval(numbers.Real, 2, None, closed="left")],
        "alpha": [Interval(numbers.Real, 0, 1, closed="right")],
        "B": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "coef": ["array-like", None],
        "intercept": ["array-like", numbers.Real],
    },
    prefer_skip_nested_validation=True,
)
@shared_doc
def alma_mistake_bound(X, y, *, p=2.0, alpha=0.9, B=None, C=2**0.5,
                       fit_intercept=True, coef=None, intercept=0.0):
    """Bound on the corrections of ALMA_p on separable data.

    ALMA_p(alpha; B, C) of [1]_ works on the normalized padded samples
    ``x^ = x~ / ||x~||_p``.  If a vector ``u~`` of unit q-norm (``1 / p +
    1 / q = 1``) separates them with margin ``gamma = min_i s_i u~ . x^_i >
    0``, the number ``m`` of corrections (updates, margin mistakes
    included) of any run, over any number of epochs in any order, satisfies
    ``L_{m+1} <= 1`` for the sequence

    ``L_1 = 0``,
    ``L_{k+1} = (L_k + gamma C / (sqrt(p - 1) sqrt(k))) / sqrt(1 + A / k)``,
    ``A = 2 (1 - alpha) B C + C**2``.

    ``L_k`` grows like ``2 gamma C sqrt(k) / (sqrt(p - 1) (A + 1))``, so
    ``m = O((p - 1) (A + 1)**2 / (gamma C)**2)``: for the paper's ``B =
    1 / alpha`` and ``C = sqrt(2)``, ``O((p - 1) / (alpha gamma)**2)``, the
    order of [1]_.  This function returns the largest such ``m``.

    {{bounds_X_y}}

    p : float, default=2.0
        The norm ``p >= 2`` of the run (``ALMAClassifier(p=...)``).

    alpha : float, default=0.9
        The approximation parameter ``0 < alpha <= 1`` of the run.

    B : float, default=None
        The margin scale of the run; None means ``1 / alpha``.

    C : float, default=sqrt(2)
        The step scale of the run.

    fit_intercept : bool, default=True
        Whether the run padded the samples with a constant 1.

    coef : array-like of shape (n_features,), default=None
        A comparison vector (with ``intercept``) whose margin on the
        normalized samples is used.  None: the largest margin of the data,
        which is computed for ``p = 2`` only (:func:`max_margin` on the
        normalized samples).

    intercept : float, default=0.0
        The intercept of ``coef`` (only with ``fit_intercept``).

    Returns
    -------
    bound : float
        The largest ``m`` above; ``inf`` when the margin is not positive (or
        the bound exceeds 2**27 corrections).

    See Also
    --------
    mistake_bound : The perceptron's ``(R / gamma)**2``.

    Notes
    -----
    The proof follows [1]_.  Let ``theta_k`` be the dual weights before
    the ``k``-th correction (``||theta_k||_p <= 1``, ``w_k =
    grad (1/2) ||theta_k||_p**2``).  (i) As ``(1/2) ||.||_p**2`` is
    ``(p - 1)``-smooth, the correction ``theta' = theta_k + eta_k s x^``,
    made when ``s w_k . x^ <= (1 - alpha) gamma_k``, has ``||theta'||_p**2
    <= 1 + 2 (1 - alpha) eta_k gamma_k + (p - 1) eta_k**2 = 1 + A / k``, so
    the projection divides by at most ``sqrt(1 + A / k)``.  (ii)
    ``u~ . theta' >= u~ . theta_k + eta_k gamma``.  So ``u~ . theta_k >=
    L_k`` by induction, and ``u~ . theta_{m+1} <= ||u~||_q ||theta_{m+1}||_p
    <= 1``.  Unit sample weights are assumed.

    {{alma_reference}}

    Examples
    --------
    >>> from sklearn_perceptrons.bounds import alma_mistake_bound
    >>> X = [[1.0, 0.2], [0.9, -0.1], [-1.0, 0.1], [-0.8, -0.3]]
    >>> y = [1, 1, 0, 0]
    >>> alma_mistake_bound(X, y, fit_intercept=False)
    1.0
    >>> alma_mistake_bound(X, y, alpha=0.1)  # a closer approximation costs more
    231.0
    """
    X, signs = check_X_y(X, y)
    p = float(p)
    B = 1.0 / alpha if B is None else float(B)
    if sp.issparse(X):
        X = X.toarray()
    if fit_intercept:
        X = np.hstack([X, np.ones((X.shape[0], 1))])
    # Rows of zero norm are never corrections.
    norms = np.sum(np.abs(X) ** p, axis=1) ** (1.0 / p)
    keep = norms > 0.0
    X, signs = X[keep] / norms[keep, None], signs[keep]
    if coef is None:
        if p != 2.0:
            raise ValueError(
                "alma_mistake_bound computes the largest margin for p=2 only; "
                "pass coef (a comparison vector) for p != 2."
            )
        if X.shape[0] == 0:
            return 0.0
        # The margin depends on the points z_i = s_i x^_i only; the points
        # and their mirror images, labelled 1 and 0, are the same points
        # for max_margin (and two classes, whatever y held).
        Z = X * signs[:, None]
        n = Z.shape[0]
        gamma = max_margin(np.vstack([Z, -Z]), np.repeat([1, 0], n),
                           fit_intercept=False)[0]
    else:
        u = check_coef(coef, X.shape[1] - bool(fit_intercept))
        intercept = check_intercept(intercept)
        if not fit_intercept and intercept != 0.0:
            raise ValueError(
                f"intercept must be 0 when fit_intercept=False; got {intercept}."
            )
        if fit_intercept:
            u = np.append(u, intercept)
        q = p / (p - 1.0)
        size = float(np.sum(np.abs(u) ** q) ** (1.0 / q))
        if X.shape[0] == 0:
            return 0.0
        gamma = float(np.min(signs * (X @ u)) / size) if size > 0 else 0.0
    if not gamma > 0.0:
        return np.inf
    return _alma_corrections(gamma, p, float(alpha), B, float(C))


@validate_params(
    {
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like"],
        "fit_intercept": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
@shared_doc
def romma_mistake_bound(X, y, *, fit_intercept=True):
    """Mistake bound of ROMMA and aggressive ROMMA on separable data.

    If the data are separable with margin ``gamma`` (:func:`max_margin`)
    and lie in a ball of radius ``R`` (:func:`radius`), ROMMA and
    aggressive ROMMA make at most ``(R / gamma)**2`` prediction mistakes,
    over any number of epochs in any order ([1]_): the perceptron's bound.
    With ``fit_intercept=True`` all quantities are those of the padded
    vectors, as :class:`~sklearn_perceptrons.ROMMAClassifier` uses them.

    {{bounds_X_y}}

    fit_intercept : bool, default=True
        Whether the run padded the samples with a constant 1.

    Returns
    -------
    bound : float
        ``(R / gamma)**2``, or ``inf`` when the data are not separable.

    See Also
    --------
    mistake_bound : The same number, the perceptron's bound.

    Notes
    -----
    ROMMA's weights after an update are the smallest vector ``v`` with
    ``v . w >= ||w||**2`` and ``s v . x >= 1``.  Every vector ``u~ / gamma``
    that separates the data with functional margin 1 satisfies every such
    pair of constraints (by induction: ``w`` is the smallest vector of a
    convex set that contains ``u~ / gamma``), so ``||w|| <= 1 / gamma``
    always; and ``||v||**2 >= ||w||**2 + ||v - w||**2 >= ||w||**2 + (1 - s w
    . x)**2 / R**2``, at least ``1 / R**2`` more on a mistake.  Aggressive
    ROMMA's margin updates only make ``||w||`` grow faster.  Unit sample
    weights are assumed.

    {{romma_reference}}

    Examples
    --------
    >>> from sklearn_perceptrons.bounds import romma_mistake_bound
    >>> X = [[2.0, 0.0], [-2.0, 0.0]]
    >>> y = [1, 0]
    >>> romma_mistake_bound(X, y, fit_intercept=False)
    1.0
    """
    return mistake_bound(X, y, fit_intercept=fit_intercept)


@run_bound({
    "X_updates": ["array-like", "sparse matrix"],
    "r": [Interval(numbers.Real, 0, None, closed="neither")],
    "n_margin_errors": [Interval(numbers.Integral, 0, None, closed="left")],
})
def arow_mistake_bound(X_updates, y, u, r=1.0, *, n_margin_errors=0,
                       intercept=0.0, fit_intercept=True, classes=None):
    """Mistake bound of AROW (Theorem 2 of [1]_), from the updates of a run.

    AROW updates on every sample of margin ``s mu . x~ < 1``: the mistakes
    (``<= 0``) and the margin errors.  For the ``k`` updates ``x~_1, ...,
    x~_k`` of a run with parameter ``r``, ``U`` of them margin errors, and
    for any comparison vector ``u~ = [u; intercept]``, the number ``M = k -
    U`` of mistakes satisfies

    ``M <= sqrt(r ||u~||**2 + sum_t (u~ . x~_t)**2) sqrt(L + U) + G - U``

    with ``L = ln det(I + X~^T X~ / r) = sum_i ln(1 + l_i / r)`` (``l_i`` the
    eigenvalues of ``X~^T X~``) and the hinge losses ``G = sum_t max(0, 1 -
    s_t u~ . x~_t)``, both over the updates.  This function returns the
    right-hand side, so that a run can be checked against it.

    Parameters
    ----------
    X_updates : {array-like, sparse matrix} of shape (k, n_features)
        The samples on which the run updated, one row per update (their
        order does not matter).

    y : array-like of shape (k,)
        Their labels: signs in {-1, +1}, or labels among ``classes``.

    u : array-like of shape (n_features,)
        The comparison vector (any vector: its scale matters).

    r : float, default=1.0
        The parameter ``r`` of the run (``AROWClassifier(r=...)``).

    n_margin_errors : int, default=0
        ``U``, the number of updates that were not mistakes.

    intercept : float, default=0.0
        The intercept of the comparison vector (only with ``fit_intercept``).

    fit_intercept : bool, default=True
        Whether the run padded the samples with a constant 1.

    classes : array-like of shape (2,), default=None
        The two classes, ``classes[1]`` positive; needed when ``y`` holds
        labels rather than signs.

    Returns
    -------
    bound : float
        The right-hand side above (``k - U`` for ``u = 0``).

    See Also
    --------
    second_order_mistake_bound : The same argument for the second-order
        perceptron, which updates on mistakes only.

    Notes
    -----
    AROW's mean is ``mu = A^-1 v`` with ``A = r I + sum_t x~_t x~_t^T`` and
    ``v = sum_t s_t x~_t`` over the updates (the second-order perceptron's
    weights, ``a = r``).  An update raises ``v^T A^-1 v`` by ``x~^T A^-1
    x~ + (1 - (1 - m)**2) / (1 + x~^T A_old^-1 x~)``, ``m`` its margin:
    at most ``x~^T A^-1 x~ <= ln(det A_new / det A_old)`` on a mistake and
    one more on a margin error.  With ``u~ . v >= k - G`` and ``u~ . v <=
    sqrt(u~^T A u~) sqrt(v^T A^-1 v)`` the bound follows.  It holds for the
    full covariance (``diagonal=False``) with unit weights, on any sequence:
    several epochs are one long sequence.

    {{arow_reference}}

    Examples
    --------
    >>> from sklearn_perceptrons.bounds import arow_mistake_bound
    >>> X_updates = [[1.0, 0.0], [0.0, 1.0]]
    >>> round(arow_mistake_bound(X_updates, [1, -1], [1.0, -1.0],
    ...                          fit_intercept=False), 4)
    2.3548
    """
    X, signs, u, intercept = check_run_rows(X_updates, y, u, intercept,
                                             fit_intercept, classes,
                                             "X_updates")
    k = X.shape[0]
    if n_margin_errors > k:
        raise ValueError(
            f"n_margin_errors={n_margin_errors} exceeds the {k} updates given."
        )
    if k == 0:
        return 0.0
    scores = safe_sparse_dot(X, u, dense_output=True) + intercept
    hinge = float(np.maximum(0.0, 1.0 - signs * scores).sum())
    spread = float(r * (u @ u + intercept * intercept) + scores @ scores)
    log_det = log_det_term(X, r, fit_intercept)
    U = float(n_margin_errors)
    return float(np.sqrt(spread) * np.sqrt(log_det + U) + hinge - U)
