# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Theorem 1 of the second-order perceptron (``second_order_mistake_bound``)."""

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, validate_params
from sklearn.utils.extmath import safe_sparse_dot

from .._core.docstrings import shared_doc
from .data import check_run_rows


def run_bound(constraints):
    """Decorator of a bound computed from the updates of a run and a
    comparison vector ``u~ = [u; intercept]`` (this one and AROW's): fills
    its docstring and validates ``constraints`` (the updates and the
    algorithm's own parameters) with the parameters all such bounds take."""

    def decorate(func):
        return validate_params(
            {
                **constraints,
                "y": ["array-like"],
                "u": ["array-like"],
                "intercept": ["array-like", numbers.Real],
                "fit_intercept": ["boolean"],
                "classes": ["array-like", None],
            },
            prefer_skip_nested_validation=True,
        )(shared_doc(func))

    return decorate


@run_bound({
    "X_mistakes": ["array-like", "sparse matrix"],
    "a": [Interval(numbers.Real, 0, None, closed="neither")],
    "gamma": [Interval(numbers.Real, 0, None, closed="neither")],
})
def second_order_mistake_bound(X_mistakes, y, u, a=1.0, gamma=1.0, *,
                               intercept=0.0, fit_intercept=True, classes=None):
    """Mistake bound of the second-order perceptron (Theorem 1 of [1]_).

    For the mistakes ``x_1, ..., x_m`` (labels ``s_t``) that a run of the
    second-order perceptron with parameter ``a`` made, any comparison vector
    ``u~ = [u; intercept]`` and any ``gamma > 0``, the theorem states

    ``m <= (H + sqrt((a ||u~||² + sum_t (u~ . x~_t)²) * L)) / gamma``

    with the hinge losses ``H = sum_t max(0, gamma - s_t u~ . x~_t)`` and
    ``L = sum_i ln(1 + l_i / a) = ln det(I + X~ X~^T / a)``, ``l_i`` the
    eigenvalues of ``X~^T X~`` (both sums over the mistakes only).  This
    function returns the right-hand side, so that a run can be checked
    against it: ``clf.n_mistakes_ <= second_order_mistake_bound(...)``.

    Parameters
    ----------
    X_mistakes : {array-like, sparse matrix} of shape (m, n_features)
        The samples on which the run made its mistakes, one row per mistake
        (a sample mistaken twice appears twice; their order does not matter).

    y : array-like of shape (m,)
        Their labels: signs in {-1, +1}, or labels among ``classes``.

    u : array-like of shape (n_features,)
        The comparison vector (any vector; its scale matters through
        ``gamma``).

    a : float, default=1.0
        The parameter ``a`` of the run (``SecondOrderPerceptron(a=...)``).

    gamma : float, default=1.0
        The margin level ``gamma > 0`` against which ``u`` is measured; with
        ``u`` scaled so that ``s u~ . x~ >= 1`` on separable data,
        ``gamma=1`` makes ``H = 0``.

    intercept : float, default=0.0
        The intercept of the comparison vector (only with ``fit_intercept``).

    fit_intercept : bool, default=True
        Whether the run padded the samples with a constant 1
        (``SecondOrderPerceptron(fit_intercept=...)``).

    classes : array-like of shape (2,), default=None
        The two classes of the problem, ``classes[1]`` positive.  Needed when
        ``y`` holds labels rather than signs (the mistakes of a run may all be
        of one class).

    Returns
    -------
    bound : float
        The right-hand side of the theorem (0 when there is no mistake).

    See Also
    --------
    mistake_bound : Novikoff's bound of the first-order perceptron.
    hinge_mistake_bound : The first-order bound for non-separable data.

    Notes
    -----
    The bound holds for the full algorithm (``diagonal=False``) with unit
    sample and class weights, on any sequence: several epochs of ``fit`` are
    one long sequence.  The comparison with Novikoff: with ``||x~_t|| <= R``
    and a unit ``u~`` of margin ``gamma``, ``sum_t (u~ . x~_t)² <= m R²`` and
    ``L <= n ln(1 + m R² / (n a))``; the second-order bound is smaller when the
    mistaken samples spread little along ``u~`` or along most
    eigen-directions (correlated, badly scaled features).  The proof: with
    ``A_m = a I + X~^T X~`` and ``v = sum_t s_t x~_t``, every mistake adds at
    most ``x~^T A^-1 x~ <= ln(det A_t / det A_{t-1})`` to ``v^T A^-1 v``, and
    ``m gamma - H <= u~ . v <= sqrt(u~^T A_m u~) sqrt(v^T A_m^-1 v)``.

    {{second_order_reference}}

    Examples
    --------
    >>> from sklearn_perceptrons.bounds import second_order_mistake_bound
    >>> X_mistakes = [[1.0, 0.0], [0.0, 1.0]]
    >>> y = [1, -1]
    >>> round(second_order_mistake_bound(X_mistakes, y, [1.0, -1.0],
    ...                                  fit_intercept=False), 4)
    2.3548
    """
    X, signs, u, intercept = check_run_rows(X_mistakes, y, u, intercept,
                                             fit_intercept, classes,
                                             "X_mistakes")
    if X.shape[0] == 0:
        return 0.0
    scores = safe_sparse_dot(X, u, dense_output=True) + intercept
    hinge = float(np.maximum(0.0, gamma - signs * scores).sum())
    spread = float(a * (u @ u + intercept * intercept) + scores @ scores)
    log_det = log_det_term(X, a, fit_intercept)
    return float((hinge + np.sqrt(spread * log_det)) / gamma)


def log_det_term(X, a, fit_intercept):
    """``ln det(I + X~^T X~ / a) = sum_i ln(1 + l_i / a)`` over the
    eigenvalues ``l_i`` of ``X~^T X~`` (rows padded with a 1 when
    ``fit_intercept``)."""
    m = X.shape[0]
    # The non-zero eigenvalues of X~^T X~ are those of the Gram matrix
    # X~ X~^T: take the smaller of the two.
    n_dims = X.shape[1] + bool(fit_intercept)
    if m <= n_dims:
        gram = safe_sparse_dot(X, X.T, dense_output=True)
        if fit_intercept:
            gram = gram + 1.0
    else:
        dense = X.toarray() if sp.issparse(X) else X
        if fit_intercept:
            dense = np.hstack([dense, np.ones((m, 1))])
        gram = dense.T @ dense
    eigenvalues = np.clip(np.linalg.eigvalsh(gram), 0.0, None)
    return float(np.log1p(eigenvalues / a).sum())
