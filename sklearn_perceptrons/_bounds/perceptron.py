# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The perceptron's mistake bounds: Block--Novikoff's (``mistake_bound``) and
the hinge-loss bound for non-separable data (``hinge_mistake_bound``)."""

import numbers

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from .._core.docstrings import shared_doc
from .data import (
    check_class_coef,
    check_coef,
    check_intercept,
    check_X_y,
    check_X_y_multiclass,
    functional_margins,
    pow2_scale,
    safe_norm,
    squared_norms,
    unit_scale,
)
from .hard_margin import kesler, scaled_max_margin


@validate_params(
    {
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like"],
        "fit_intercept": ["boolean"],
        "threshold": [Interval(numbers.Real, None, None, closed="neither")],
        "coef_init": ["array-like", None],
        "multi_class": [StrOptions({"ovr", "crammer_singer"})],
    },
    prefer_skip_nested_validation=True,
)
@shared_doc
def mistake_bound(X, y, *, fit_intercept=True, threshold=0.0, coef_init=None,
                  multi_class="ovr"):
    """Block--Novikoff bound on the number of updates of the perceptron.

    For data separable with margin ``gamma`` (:func:`max_margin`) and radius
    ``R`` (:func:`radius`), the perceptron started at ``w = 0`` with
    threshold 0 makes at most ``(R / gamma)**2`` updates, in total, whatever
    the order in which the samples are visited (any number of epochs, any
    shuffling, repetitions allowed). With ``fit_intercept=True`` all
    quantities are those of the padded vectors, which is exactly
    :class:`~sklearn_perceptrons.Perceptron` with ``fit_intercept=True``.

    {{bounds_X_y}}

    fit_intercept : bool, default=True
        Whether the perceptron fits an intercept (runs on ``[x; 1]``).

    threshold : float, default=0.0
        The threshold ``delta`` of the update rule: an update is made when
        ``s_i (w . x_i + b) <= delta``.

    coef_init : array-like of shape (n_features,) or (1, n_features), \
            default=None
        The starting weights ``w0`` (``None`` means zeros). The starting
        intercept is taken to be 0, so ``w0~ = [w0; 0]`` and
        ``||w0~|| = ||w0||``.  Shape (n_classes, n_features) with
        ``multi_class="crammer_singer"`` (its Frobenius norm is used).

    multi_class : {"ovr", "crammer_singer"}, default="ovr"
        "ovr": the binary perceptron (exactly two classes).
        "crammer_singer": the native multiclass perceptron of ``K >= 2``
        classes, ``Perceptron(multi_class="crammer_singer")`` with either
        ``update``: the bound ``(2 delta + 2 R**2 + 2 gamma ||W0||) /
        gamma**2`` with the multiclass margin ``gamma`` of
        :func:`max_margin` (``2 R**2 / gamma**2`` for ``delta = 0`` and
        ``W0 = 0``; see Notes).

    Returns
    -------
    bound : float
        ``(2 delta + R**2 + 2 gamma ||w0||) / gamma**2``, which is
        ``(R / gamma)**2`` for ``delta = 0`` and ``w0 = 0``; ``inf`` when the
        data are not separable. (For a very negative threshold,
        ``delta < -R**2 / 2``, the bound is the larger of that value, 0 and
        ``||w0|| / gamma``; see Notes.)

    See Also
    --------
    hinge_mistake_bound : The bound for one pass over non-separable data.

    Notes
    -----
    All vectors are padded when ``fit_intercept=True``. Let ``u`` be the unit
    max-margin vector, ``s_i u . x_i >= gamma``, and ``w_k`` the weights after
    ``k`` updates (learning rate 1, starting from ``w0``). Each update adds ``s_i x_i`` on a sample with
    ``s_i w . x_i <= delta``, so

    * ``u . w_k >= u . w0 + k gamma >= k gamma - ||w0||``;
    * ``||w_k||**2 = ||w_{k-1}||**2 + 2 s_i w_{k-1} . x_i + ||x_i||**2
      <= ||w0||**2 + k (2 delta + R**2)``.

    If ``k gamma > ||w0||``, Cauchy--Schwarz ``u . w_k <= ||w_k||`` gives
    ``(k gamma - ||w0||)**2 <= ||w0||**2 + k (2 delta + R**2)``, i.e.
    ``k**2 gamma**2 <= k (2 delta + R**2 + 2 gamma ||w0||)``, hence

    ``k <= (2 delta + R**2 + 2 gamma ||w0||) / gamma**2``;

    otherwise ``k <= ||w0|| / gamma``, which is smaller as soon as
    ``2 delta + R**2 >= 0``. This is the contract's
    ``((2 delta + R**2) ||w*||**2 + 2 s ||w*|| ||w0||) / s**2`` for the
    max-margin separator ``w*`` (any scaling: ``s = min_i s_i w* . x_i``
    scales with ``w*`` and the expression is scale-free); the max-margin
    ``w*`` gives the smallest such bound, since it decreases with the margin.
    The bound holds at every moment of the run, so it bounds the total number
    of updates; the run therefore converges (an epoch with no update occurs)
    after at most that many updates.

    ``gamma`` is the margin actually achieved by the vector returned by
    :func:`max_margin`, never larger than the true maximum, so the computed
    bound is never smaller than the exact one (beyond rounding in the last
    digit).

    The bound is for unit sample weights and learning rate 1; see the module
    docstring for how a learning rate rescales ``delta`` and ``w0``.

    **The multiclass bound** (``multi_class="crammer_singer"``).  Let ``U``
    (rows ``u_k``, ``||U||_F = 1``) achieve the multiclass margin ``gamma``
    of :func:`max_margin`, ``(u_{y_i} - u_k) . x~_i >= gamma`` for all
    ``i`` and ``k != y_i``, and ``W_t`` the weight rows after ``t`` updates.
    An update on sample ``x~`` of class ``y`` with violating set ``E`` (the
    rows ``r != y`` with ``(w_y - w_r) . x~ <= delta``) adds ``tau (x) x~``
    where ``tau = e_y - (1 / |S|) sum_{r in S} e_r`` for a nonempty ``S``
    in ``E``: ``S = E`` ("uniform") or ``S`` the top row of ``E`` ("max":
    the Kesler construction's binary perceptron on the point
    ``z = e_y (x) x~ - e_r (x) x~``).  Hence, as for the binary bound,

    * ``U . W_t = U . W_{t-1} + (the average over S of (u_y - u_r) . x~)
      >= U . W_{t-1} + gamma``, so ``U . W_k >= k gamma - ||W0||``;
    * ``||W_t||**2 = ||W_{t-1}||**2 + 2 (the average over S of
      (w_y - w_r) . x~) + ||tau||**2 ||x~||**2 <= ||W_{t-1}||**2 + 2 delta
      + 2 R**2``, since every ``r in S`` violates and ``||tau||**2 = 1 +
      1/|S| <= 2`` (the Kesler points have norm ``sqrt(2) ||x~||``).

    Cauchy--Schwarz then gives ``k <= (2 delta + 2 R**2 + 2 gamma ||W0||) /
    gamma**2`` (the binary proof with ``R**2`` replaced by ``2 R**2``), which
    is ``2 R**2 / gamma**2`` for ``delta = 0`` and ``W0 = 0``.  Both rules
    are ultraconservative in the sense of Crammer and Singer [3]_.  For two
    classes the two rules coincide, the optimal rows are ``w_1 = -w_0`` and
    the multiclass margin is ``sqrt(2)`` times the binary one, so the bound
    is the binary ``(R / gamma_binary)**2``.

    References
    ----------
    .. [1] H. D. Block, "The perceptron: a model for brain functioning. I",
       Reviews of Modern Physics 34(1), 123-135, 1962.
    {{novikoff_crammer_singer_references}}

    Examples
    --------
    >>> from sklearn_perceptrons.bounds import mistake_bound
    >>> X = [[1.0], [-1.0]]
    >>> y = [1, 0]
    >>> round(mistake_bound(X, y, fit_intercept=False), 6)  # R = 1, gamma = 1
    1.0
    >>> round(mistake_bound(X, y), 6)  # R = sqrt(2), gamma = 1
    2.0
    >>> round(mistake_bound(X, y, threshold=1.0, coef_init=[0.5]), 6)
    5.0
    >>> mistake_bound([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]],
    ...               [0, 0, 1, 1])  # XOR
    inf
    >>> X3 = [[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]
    >>> round(mistake_bound(X3, [0, 1, 2], fit_intercept=False,
    ...                     multi_class="crammer_singer"), 6)  # 2 * 2 / 0.75
    5.333333
    """
    delta = float(threshold)
    w0_norm = 0.0
    if multi_class == "crammer_singer":
        X, y_class, n_classes = check_X_y_multiclass(X, y)
        if coef_init is not None:
            W0 = check_class_coef(coef_init, n_classes, X.shape[1], "coef_init")
            w0_norm = safe_norm(W0.ravel())
        # The binary bound of the Kesler points (norm sqrt(2) ||x~||), whose
        # margin through the origin is the multiclass margin.
        X = kesler(X, y_class, n_classes, fit_intercept)
        signs = np.ones(X.shape[0])
        fit_intercept = False
    else:
        X, signs = check_X_y(X, y)
    if coef_init is not None and multi_class != "crammer_singer":
        w0 = check_coef(coef_init, X.shape[1], name="coef_init")
        w0_norm = safe_norm(w0)
    # Computed at unit scale: with R = c r and gamma = c g the bound is
    # (2 delta / c**2 + r**2 + 2 g ||w0|| / c) / g**2.
    gamma, _, _, X, pad, c = scaled_max_margin(X, signs, fit_intercept)
    if gamma <= 0.0:
        return float("inf")
    r2 = float(squared_norms(X, pad).max())
    w0_norm /= c
    bound = (2.0 * (delta / c) / c + r2 + 2.0 * gamma * w0_norm) / gamma**2
    # The other branch of the proof (k gamma <= ||w0||) only matters for a
    # threshold below -R**2 / 2; a count is never negative.
    return float(max(bound, w0_norm / gamma, 0.0))


def min_hinge_objective(scores, a):
    """min over alpha >= 0 of a alpha**2 + 2 sum_i max(0, 1 - alpha scores_i).

    The objective is convex and quadratic between the breakpoints
    1 / scores_i (scores_i > 0); on each piece its minimiser is the clipped
    stationary point, so the exact minimum is the smallest piece minimum.
    """
    n = scores.shape[0]
    if a <= 0.0:
        # u = 0 (or all x~ = 0): every score is 0 and the objective is 2 n.
        return 2.0 * n
    pos = np.sort(scores[scores > 0.0])[::-1]  # breakpoints 1/pos increasing
    n_nonpos = n - pos.shape[0]
    sum_nonpos = scores[scores <= 0.0].sum()
    cum = np.concatenate([[0.0], np.cumsum(pos)])
    # On piece j, alpha in [lo_j, hi_j]: the hinge is active on the non-positive
    # scores and on the positive scores pos[j:], where it is linear.
    count = n_nonpos + pos.shape[0] - np.arange(pos.shape[0] + 1)
    slope = sum_nonpos + (cum[-1] - cum)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        inv = 1.0 / pos
        lo = np.concatenate([[0.0], inv])
        hi = np.concatenate([inv, [np.inf]])
        alpha = np.clip(slope / a, lo, hi)
        values = a * alpha**2 + 2.0 * (count - alpha * slope)
    values[~np.isfinite(values)] = np.inf
    best = alpha[np.argmin(values)]
    # Evaluate the objective directly at the minimiser (any alpha >= 0 gives a
    # valid bound; this avoids the cancellation in the piecewise sums).
    direct = a * best**2 + 2.0 * np.maximum(0.0, 1.0 - best * scores).sum()
    return float(min(direct, 2.0 * n))


@validate_params(
    {
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like"],
        "coef": ["array-like"],
        "intercept": ["array-like", numbers.Real],
        "fit_intercept": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def hinge_mistake_bound(X, y, coef, intercept=0.0, *, fit_intercept=True):
    """Mistake bound of one perceptron pass, for any comparison vector.

    For any vector ``u~ = [coef; intercept]`` (padded space when
    ``fit_intercept=True``) -- separating or not -- one pass of the
    perceptron (threshold 0, learning rate 1, started at 0) over the samples
    of ``(X, y)`` in any order makes at most

    ``min_{alpha >= 0} R**2 ||alpha u~||**2 + 2 sum_i max(0, 1 - s_i alpha u~ . x~_i)``

    updates, with ``R`` = :func:`radius`.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The samples of the pass. To bound several passes, stack the data
        once per pass. Sparse matrices are never densified.

    y : array-like of shape (n_samples,)
        Binary labels (exactly two classes). ``np.unique(y)[1]`` is the
        positive class.

    coef : array-like of shape (n_features,) or (1, n_features)
        The direction ``u`` to compare with (e.g. the coefficients of any
        linear classifier). Only its direction matters: the bound is
        minimised over its scale.

    intercept : float or array-like of shape (1,), default=0.0
        The bias of the comparison vector. Must be 0 when
        ``fit_intercept=False``.

    fit_intercept : bool, default=True
        Whether the perceptron fits an intercept (runs on ``[x; 1]``).

    Returns
    -------
    bound : float
        The bound above. It is at most ``2 * n_samples`` (``alpha = 0``) and,
        for the unit max-margin vector of separable data, at most
        ``(R / gamma)**2`` (``alpha = 1 / gamma``, no hinge loss).

    See Also
    --------
    mistake_bound : The bound for any number of passes over separable data.

    Notes
    -----
    Let ``u`` be any vector, ``l_i = max(0, 1 - s_i u . x_i)`` its hinge
    losses, ``L = sum_i l_i`` and ``k`` the number of updates in the pass.
    Each update is made on a sample with ``s_i w . x_i <= 0`` and adds
    ``s_i x_i``; each sample is visited once. Then

    * ``u . w >= sum_{updates} s_i u . x_i >= sum_{updates} (1 - l_i)
      >= k - L``;
    * ``||w||**2 <= k R**2`` (each update adds at most ``||x_i||**2``).

    If ``k <= L`` the claim holds. Otherwise Cauchy--Schwarz gives
    ``k - L <= ||u|| ||w|| <= R ||u|| sqrt(k)``, and
    ``R ||u|| sqrt(k) <= (R**2 ||u||**2 + k) / 2`` (AM-GM), hence

    ``k <= R**2 ||u||**2 + 2 L``.

    This holds for every ``u``, in particular for every ``alpha u~``; the
    objective is convex and piecewise quadratic in ``alpha`` (breakpoints
    ``1 / (s_i u~ . x~_i)``), and is minimised exactly over its pieces. The
    tighter ``k <= ((R ||u|| + sqrt(R**2 ||u||**2 + 4 L)) / 2)**2`` follows
    from the same two inequalities (see [1]_, where it appears as
    ``L + R ||u|| sqrt(L) + R**2 ||u||**2`` after a further relaxation); the
    form above is the one of the contract.

    References
    ----------
    .. [1] S. Shalev-Shwartz, "Online Learning and Online Convex
       Optimization", Foundations and Trends in Machine Learning 4(2),
       107-194, 2012 (the Perceptron, Section 3).
    .. [2] Y. Freund and R. E. Schapire, "Large margin classification using
       the perceptron algorithm", Machine Learning 37(3), 277-296, 1999.

    Examples
    --------
    >>> from sklearn_perceptrons.bounds import hinge_mistake_bound
    >>> X = [[1.0], [-1.0], [0.5]]
    >>> y = [1, 0, 0]  # the last sample is misclassified by u = 1
    >>> round(hinge_mistake_bound(X, y, [1.0], fit_intercept=False), 6)
    4.0
    """
    X, signs = check_X_y(X, y)
    coef = check_coef(coef, X.shape[1])
    intercept = check_intercept(intercept)
    if not fit_intercept and intercept != 0.0:
        raise ValueError(
            "intercept must be 0 when fit_intercept=False: the perceptron "
            f"without intercept compares with homogeneous vectors; got {intercept}."
        )
    # The bound is a minimum over the scale of u~, and the scale of X is
    # absorbed by it too (x~ = c [x / c; 1 / c]): compute at unit scales.
    scale = pow2_scale(coef, intercept)
    coef, intercept = coef / scale, intercept / scale
    X, pad, _ = unit_scale(X, fit_intercept)
    scores = functional_margins(X, signs, coef, intercept * pad)
    r2 = float(squared_norms(X, pad).max())
    a = r2 * float(coef @ coef + intercept * intercept)
    return min_hinge_objective(scores, a)
