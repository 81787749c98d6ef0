# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Radii and margins of a data set: ``radius``, ``margin``, ``max_margin``."""

import numbers

import numpy as np
from sklearn.utils._param_validation import StrOptions, validate_params

from .._core.docstrings import shared_doc
from .data import (
    check_coef,
    check_intercept,
    check_X,
    check_X_y,
    check_X_y_multiclass,
    divide,
    padded_margin,
    pow2_scale,
    squared_norms,
    unit_scale,
)
from .hard_margin import kesler, solve_max_margin, unflatten


@validate_params(
    {"X": ["array-like", "sparse matrix"], "fit_intercept": ["boolean"]},
    prefer_skip_nested_validation=True,
)
def radius(X, *, fit_intercept=False):
    """Radius of the data: the largest norm of a sample.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The samples. Sparse matrices are never densified.

    fit_intercept : bool, default=False
        If True, the norms are those of the padded samples ``[x_i; 1]``, the
        vectors seen by a perceptron that fits an intercept.

    Returns
    -------
    R : float
        ``max_i ||x_i||``, or ``max_i sqrt(||x_i||**2 + 1)`` when
        ``fit_intercept=True``.

    See Also
    --------
    mistake_bound : The Block--Novikoff bound ``(R / gamma)**2``.

    Examples
    --------
    >>> from sklearn_perceptrons.bounds import radius
    >>> X = [[3.0, 4.0], [1.0, 0.0]]
    >>> radius(X)
    5.0
    >>> round(radius(X, fit_intercept=True), 4)  # sqrt(26)
    5.099
    """
    X, pad, c = unit_scale(check_X(X), fit_intercept)
    return c * float(np.sqrt(squared_norms(X, pad).max()))


@validate_params(
    {
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like"],
        "coef": ["array-like"],
        "intercept": ["array-like", numbers.Real],
    },
    prefer_skip_nested_validation=True,
)
@shared_doc
def margin(X, y, coef, intercept=0.0):
    """Smallest signed distance of a sample to a hyperplane.

    The margin of the linear classifier ``sign(w . x + b)`` on ``(X, y)`` is
    ``min_i s_i (w . x_i + b) / ||[w; b]||``: the norm includes the
    intercept. This is the distance, in the padded space of the vectors
    ``[x; 1]``, from ``[x_i; 1]`` to the hyperplane through the origin with
    normal ``[w; b]`` -- the margin the perceptron with an intercept (and the
    margin perceptron) works with. With ``intercept=0`` it is the ordinary
    geometric margin ``min_i s_i (w . x_i) / ||w||``.

    {{bounds_X_y}}

    coef : array-like of shape (n_features,) or (1, n_features)
        The weight vector ``w``, e.g. a binary classifier's ``coef_``.

    intercept : float or array-like of shape (1,), default=0.0
        The bias ``b``, e.g. a binary classifier's ``intercept_``.

    Returns
    -------
    margin : float
        The smallest signed distance; negative when a sample is misclassified,
        0.0 when a sample lies on the hyperplane. By convention it is 0.0 for
        ``w = 0, b = 0`` (every sample lies on the boundary of that classifier).

    See Also
    --------
    max_margin : The largest margin a hyperplane achieves on the data.

    Notes
    -----
    The padded distance ``s_i (w . x_i + b) / ||[w; b]||`` is at most the
    geometric distance ``s_i (w . x_i + b) / ||w||`` when it is positive, and
    the two agree when ``b = 0``.

    Examples
    --------
    >>> from sklearn_perceptrons.bounds import margin
    >>> X = [[3.0, 4.0], [-3.0, -4.0]]
    >>> y = [1, 0]
    >>> margin(X, y, coef=[3.0, 4.0])  # 25 / 5
    5.0
    >>> margin(X, y, coef=[3.0, 4.0], intercept=12.0)  # min(37, 13) / 13
    1.0
    """
    X, signs = check_X_y(X, y)
    coef = check_coef(coef, X.shape[1])
    intercept = check_intercept(intercept)
    # The margin does not depend on the scale of (w, b); with both of unit
    # scale, s (w . x + b) = c s (w . x / c + b / c) for X of any scale.
    scale = pow2_scale(coef, intercept)
    coef, intercept = coef / scale, intercept / scale
    c = pow2_scale(X, intercept)
    pad = 1.0 / c if intercept else 0.0
    return c * padded_margin(divide(X, c), signs, coef, intercept, pad)


@validate_params(
    {
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like"],
        "fit_intercept": ["boolean"],
        "multi_class": [StrOptions({"ovr", "crammer_singer"})],
    },
    prefer_skip_nested_validation=True,
)
def max_margin(X, y, *, fit_intercept=True, multi_class="ovr"):
    """Exact hard-margin separator: the unit vector with the largest margin.

    Solves ``max min_i s_i (w~ . x~_i)`` over ``||w~|| <= 1``, with
    ``x~ = [x; 1]`` and ``w~ = [w; b]`` when ``fit_intercept=True`` (the bias
    is regularised like a weight: this is the margin that governs the
    perceptron with an intercept) and ``x~ = x``, ``w~ = w`` otherwise. For
    separable data this is the hard-margin SVM through the origin of the
    padded space, ``min ||w~||**2 / 2`` subject to ``s_i w~ . x~_i >= 1``,
    rescaled to unit norm.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The samples. Sparse matrices are never densified (the solver only
        needs products with X and a few of its rows).

    y : array-like of shape (n_samples,)
        Binary labels (exactly two classes). ``np.unique(y)[1]`` is the
        positive class.

    fit_intercept : bool, default=True
        Whether the separator has a bias, measured in the padded space.

    multi_class : {"ovr", "crammer_singer"}, default="ovr"
        "ovr": the binary problem above (exactly two classes).
        "crammer_singer": the multiclass margin of ``K >= 2`` classes, one
        weight row ``w~_k = [w_k; b_k]`` per class (see Notes).

    Returns
    -------
    gamma : float
        The maximum margin, ``> 0`` if and only if the data are strictly
        linearly separable (through the origin when ``fit_intercept=False``).
        ``0.0`` otherwise: it is then the optimal value of the problem above,
        attained by ``w~ = 0``.

    coef : ndarray of shape (n_features,) or (n_classes, n_features)
        The weights ``w`` of the separator, with ``||[w; b]|| = 1``; zeros
        when the data are not separable.  With
        ``multi_class="crammer_singer"``, one row per class (in the order of
        ``np.unique(y)``), with unit Frobenius norm of ``[W, b]``.

    intercept : float or ndarray of shape (n_classes,)
        The bias ``b``; always 0.0 when ``fit_intercept=False`` or when the
        data are not separable.  One per class with
        ``multi_class="crammer_singer"``.

    See Also
    --------
    margin : The margin of a given hyperplane;
        ``margin(X, y, coef, intercept) == gamma``.
    mistake_bound : The Block--Novikoff bound, computed from ``gamma``.

    Notes
    -----
    By minimax duality, with ``z_i = s_i x~_i``,

    ``max_{||w||<=1} min_i z_i . w = min_{p in simplex} ||sum_i p_i z_i||``,

    the distance from the origin to the convex hull of the ``z_i``; the
    separator is ``p* / ||p*||`` for the nearest point ``p*``, and the data
    are separable if and only if the origin is outside the hull. The nearest
    point is found with Wolfe's finite algorithm [1]_, which carries both
    certificates at every step: the direction ``x / ||x||`` of its iterate
    ``x`` achieves margin ``min_i z_i . x / ||x|| <= gamma``, while
    ``||x|| >= gamma``; it stops when they agree to rounding error. The
    support vectors it finds then give a polished solution of the KKT system
    ``z_i . w = 1`` (min-norm least squares), and the candidate with the
    larger *achieved* margin is returned. So ``gamma`` is always the exact
    margin of the returned ``(coef, intercept)`` -- never more than the true
    maximum -- and agrees with it to about machine precision relative to the
    radius ``R``. Margins below about ``16 (n_features + 1) eps R`` cannot be
    told apart from 0 in floating point and are reported as 0 (not
    separable).

    Each iteration costs one product with X plus O(k m) for a QR
    factorization of the ``k`` current support vectors (``m`` features, plus
    one with an intercept), kept up to date as vectors enter and leave; there
    are about as many iterations as support vectors, and the memory is
    O(k m). A few thousand samples with tens of features take a fraction of
    a second; a separable problem with as many features as samples costs a
    small multiple of a hard-margin SVM fit. The data are rescaled
    internally by a power of two, so huge or tiny finite inputs give the
    same separator and a margin scaled exactly. When the data are too
    degenerate for double precision to settle the question (a margin many
    orders of magnitude below ``R`` with a nearly flat hull), a
    :class:`~sklearn.exceptions.ConvergenceWarning` says so.

    **Multiclass margin** (``multi_class="crammer_singer"``).  With one row
    ``w~_k`` per class and ``||W~||_F = 1``, the margin is
    ``gamma = max_W min_i min_{k != y_i} (w~_{y_i} - w~_k) . x~_i``: by how
    much the true class's score beats every other on the worst sample.  In
    the Kesler construction [2]_ sample ``i`` becomes the ``K - 1`` points
    ``z_ik = e_{y_i} (x) x~_i - e_k (x) x~_i`` of ``R^{K m}`` (``m`` the
    padded dimension), and ``W~ . z_ik = (w~_{y_i} - w~_k) . x~_i``; so
    ``gamma`` is the binary margin through the origin of the points
    ``z_ik``, all of sign +1, and it is solved exactly as above on those
    ``n (K - 1)`` points of dimension ``K m`` (CSR when X is).  That costs
    ``K - 1`` times the memory of X (and more time than the binary
    problem): fine for modest sizes, such as checking a theorem on data of a
    few thousand samples and classes.

    References
    ----------
    .. [1] P. Wolfe, "Finding the nearest point in a polytope", Mathematical
       Programming 11, 128-149, 1976.
    .. [2] R. O. Duda and P. E. Hart, "Pattern Classification and Scene
       Analysis", Wiley, 1973 (Kesler's construction, section 5.12).

    Examples
    --------
    >>> from sklearn_perceptrons.bounds import max_margin
    >>> X = [[2.0], [0.0]]
    >>> y = [1, 0]
    >>> gamma, coef, intercept = max_margin(X, y, fit_intercept=False)
    >>> gamma  # through the origin, 0 cannot be separated from anything
    0.0
    >>> gamma, coef, intercept = max_margin(X, y)
    >>> round(gamma, 6), coef.round(6), round(intercept, 6)  # 1/sqrt(2)
    (0.707107, array([0.707107]), -0.707107)
    >>> X3 = [[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]
    >>> gamma, W, b = max_margin(X3, [0, 1, 2], fit_intercept=False,
    ...                          multi_class="crammer_singer")
    >>> W.shape, round(gamma, 6)
    ((3, 2), 0.866025)
    """
    if multi_class == "crammer_singer":
        X, y_class, n_classes = check_X_y_multiclass(X, y)
        Z = kesler(X, y_class, n_classes, fit_intercept)
        gamma, v, _ = solve_max_margin(Z, np.ones(Z.shape[0]), False)
        coef, intercept = unflatten(v, n_classes, fit_intercept)
        return float(gamma), coef, intercept
    X, signs = check_X_y(X, y)
    gamma, coef, intercept = solve_max_margin(X, signs, fit_intercept)
    return float(gamma), coef, float(intercept)
