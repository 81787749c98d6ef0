# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause

"""The theory of the perceptron, computable.

Radii, margins and the classic mistake bounds of the perceptron, evaluated on a
data set, so that the theorems can be checked against a run:

* :func:`radius` -- the radius ``R = max_i ||x_i||`` of the data;
* :func:`margin` -- the smallest signed distance of a sample to a hyperplane;
* :func:`max_margin` -- the exact hard-margin separator and its margin;
* :func:`mistake_bound` -- the Block--Novikoff bound ``(R / gamma)**2`` and its
  general form for a threshold and a non-zero start;
* :func:`hinge_mistake_bound` -- the mistake bound for non-separable data, in
  terms of the hinge loss of any comparison vector;
* :func:`second_order_mistake_bound` -- Theorem 1 of the second-order
  perceptron, from the mistakes of a run;
* the bounds of the online family: :func:`passive_aggressive_mistake_bound`
  (PA-I and PA-II, binary and multiclass), :func:`alma_mistake_bound`
  (ALMA_p), :func:`romma_mistake_bound` (ROMMA and aggressive ROMMA) and
  :func:`arow_mistake_bound` (AROW, from the updates of a run).

Binary labels (except for ``multi_class="crammer_singer"`` of
:func:`max_margin` and :func:`mistake_bound`, the native multiclass
perceptron): ``classes = np.unique(y)`` (sorted) must hold exactly two
labels; ``classes[1]`` is the positive class (``s_i = +1``) and ``classes[0]``
the negative class (``s_i = -1``), as in the estimators of this package.

The perceptron with an intercept is the homogeneous perceptron run on the
*padded* vectors ``x~ = [x; 1]`` with weights ``w~ = [w; b]``: an update
``w += s x, b += s`` is exactly ``w~ += s x~``. Its theorems are therefore
about padded quantities, and so is this module: with ``fit_intercept=True``
radii are ``max_i ||[x_i; 1]||``, margins are measured with ``||[w; b]||``
(the bias is regularised like a weight) and :func:`max_margin` maximises that
padded margin. It is never larger than the usual geometric margin
``min_i s_i (w . x_i + b) / ||w||``, and can be much smaller when the data lie
far from the origin; the perceptron's mistake bounds depend on the padded one.

The bounds count updates made with learning rate ``eta0 = 1`` and unit sample
weights. The mistake count of a perceptron started at ``w = 0`` with
threshold 0 does not depend on ``eta0`` (every weight vector is scaled by it);
with a threshold ``delta`` and a start ``w0``, a run with learning rate
``eta0`` makes the same updates as a run with learning rate 1, threshold
``delta / eta0`` and start ``w0 / eta0``.
"""

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.linalg import lstsq, qr_delete, solve_triangular
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_array, check_consistent_length, column_or_1d
from sklearn.utils._param_validation import Interval, StrOptions, validate_params
from sklearn.utils.extmath import row_norms, safe_sparse_dot
from sklearn.utils.multiclass import check_classification_targets

from ._core.base import sum_duplicates
from ._core.docstrings import shared_doc

__all__ = [
    "alma_mistake_bound",
    "arow_mistake_bound",
    "condition_measure",
    "hinge_mistake_bound",
    "margin",
    "max_margin",
    "mistake_bound",
    "passive_aggressive_mistake_bound",
    "radius",
    "romma_mistake_bound",
    "second_order_mistake_bound",
]

# A dot product of two m-vectors of norms a and b is computed to about
# m * eps * a * b; margins below this level (relative to the radius) cannot be
# told apart from zero, so they are reported as "not separable".
_EPS = np.finfo(np.float64).eps


# ----------------------------------------------------------------------------
# Validation helpers
# ----------------------------------------------------------------------------


def _check_X(X):
    """Validate X once: CSR or dense, float64, finite, at least one row."""
    # float64 even for float32 input: the bounds are statements about exact
    # arithmetic, computed here as accurately as cheaply possible.
    # Norms read the stored values of a CSR matrix, so duplicate entries
    # (which SciPy reads as their sum) are summed first.
    return sum_duplicates(check_array(
        X,
        accept_sparse="csr",
        dtype=np.float64,
        ensure_all_finite=True,
        input_name="X",
    ))


def _check_X_y(X, y):
    """Validate X and y and encode y to signs in {-1, +1}."""
    X = _check_X(X)
    y = column_or_1d(y, warn=True)
    check_consistent_length(X, y)
    check_classification_targets(y)
    classes = np.unique(y)
    if classes.shape[0] != 2:
        raise ValueError(
            "The bounds are defined for binary problems: y must contain exactly "
            f"2 classes, got {classes.shape[0]} class(es): {classes.tolist()!r}."
        )
    # classes[1] is the positive class, as in the estimators (see the user guide).
    signs = np.where(y == classes[1], 1.0, -1.0)
    return X, signs


def _check_coef(coef, n_features, name="coef"):
    """Return coef as a float64 vector of shape (n_features,)."""
    coef = np.asarray(coef, dtype=np.float64)
    if coef.ndim == 2 and coef.shape[0] == 1:
        coef = coef[0]
    if coef.ndim != 1 or coef.shape[0] != n_features:
        raise ValueError(
            f"{name} must have shape (n_features,) = ({n_features},) or "
            f"(1, {n_features}) to match X; got shape {coef.shape}."
        )
    if not np.all(np.isfinite(coef)):
        raise ValueError(f"{name} must be finite; it contains NaN or infinity.")
    return coef


def _check_intercept(intercept, name="intercept"):
    """Return intercept as a finite Python float (scalar or shape (1,))."""
    intercept = np.asarray(intercept, dtype=np.float64)
    if intercept.size != 1 or intercept.ndim > 1:
        raise ValueError(
            f"{name} must be a scalar or an array of shape (1,); got shape "
            f"{intercept.shape}."
        )
    intercept = float(intercept.reshape(-1)[0])
    if not np.isfinite(intercept):
        raise ValueError(f"{name} must be finite; got {intercept}.")
    return intercept


# ----------------------------------------------------------------------------
# Computational helpers (validated inputs only)
# ----------------------------------------------------------------------------


# Data whose largest entry lies in [2**-400, 2**400] have squares and
# products far from overflow and underflow: they are used as they are.
_SAFE_EXPONENT = 400


def _pow2_scale(*arrays):
    """A power of two c with max |entry| / c in [1, 2), or 1.0 when the
    largest entry is 0 or already of a safe scale.

    Dividing by c is exact and brings huge or tiny finite data to unit scale,
    where squares and products neither overflow nor underflow; every quantity
    of this module then scales back by a power of c. (Scaling by a power of
    two commutes with every rounding, so data of a safe scale, left as they
    are, give the same results bit for bit, without a copy.)
    """
    top = 0.0
    for a in arrays:
        a = a.data if sp.issparse(a) else np.asarray(a)
        if a.size:
            top = max(top, float(np.max(np.abs(a))))
    if not (top > 0.0 and np.isfinite(top)):
        return 1.0
    exponent = int(np.frexp(top)[1]) - 1
    if abs(exponent) <= _SAFE_EXPONENT:
        return 1.0
    return float(np.ldexp(1.0, exponent))


def _divide(X, c):
    """X / c (a new matrix when c != 1), dense or CSR."""
    if c == 1.0:
        return X
    if sp.issparse(X):
        X = X.copy()
        X.data /= c
        return X
    return X / c


def _unit_scale(X, fit_intercept):
    """(X / c, pad, c): the padded rows [x; 1] are c [x / c; pad], pad = 1 / c
    (0.0 without intercept), with X / c and pad of a safe scale."""
    c = _pow2_scale(X, 1.0 if fit_intercept else 0.0)
    return _divide(X, c), (1.0 / c if fit_intercept else 0.0), c


def _norm(v):
    """||v|| without overflow or underflow for any finite v."""
    c = _pow2_scale(v)
    v = np.asarray(v) / c
    return c * float(np.sqrt(v @ v))


def _squared_norms(X, pad):
    """Squared norms of the rows padded with the value pad (no padding for
    pad = 0 or False; True pads with 1), without densifying a sparse X."""
    sq = row_norms(X, squared=True)
    return sq + float(pad) * float(pad) if pad else sq


def _functional_margins(X, signs, coef, intercept):
    """s_i (w . x_i + b) for every row, dense or CSR X."""
    return signs * (safe_sparse_dot(X, coef, dense_output=True) + intercept)


def _margin(X, signs, coef, intercept, pad=1.0):
    """min_i s_i (w . x_i + b pad) / ||[w; b]||, 0.0 for w = 0 and b = 0."""
    norm = np.sqrt(coef @ coef + intercept * intercept)
    if norm == 0.0:
        # The zero vector puts every sample on its decision boundary.
        return 0.0
    values = _functional_margins(X, signs, coef, intercept * pad if pad else 0.0)
    return float(np.min(values) / norm)


def _points(X, signs, idx, pad):
    """Dense rows z_i = s_i x~_i for the indices idx, shape (len(idx), m)."""
    rows = X[idx]
    rows = rows.toarray() if sp.issparse(rows) else np.asarray(rows)
    if pad:
        rows = np.hstack([rows, np.full((rows.shape[0], 1), float(pad))])
    return rows * signs[idx, np.newaxis]


def _point_dots(X, signs, v, pad):
    """z_i . v for every i, with v of length n_features (+ 1)."""
    n_features = X.shape[1]
    intercept = v[n_features] * float(pad) if pad else 0.0
    return _functional_margins(X, signs, v[:n_features], intercept)


class _Corral:
    """The support of Wolfe's algorithm and a QR factorization kept with it.

    For the support's points P (rows z_i), B = [P / scale, 1] and
    B.T = Q R. The affine min-norm weights are proportional to
    (B B.T)^-1 1 = (R.T R)^-1 1: two triangular solves, with the conditioning
    of B rather than of its Gram matrix. A point enters by Gram-Schmidt
    against Q (repeated once when it cancels, which makes it as accurate as
    Householder), a point leaves by a Givens downdate: O(k m) per change of
    the support instead of a least-squares solve O(k^2 m) at every step.
    """

    def __init__(self, m, scale):
        self.m = m
        self.scale = scale
        self.k = 0
        self.support = []
        self._alloc(16)

    def _alloc(self, capacity):
        P, Qt = np.empty((capacity, self.m)), np.empty((capacity, self.m + 1))
        if self.k:
            P[: self.k] = self._P[: self.k]
            Qt[: self.k] = self._Qt[: self.k]
        else:
            # R is kept at its exact size in Fortran order, the layout the
            # triangular solves read without a copy.
            self._R = np.zeros((0, 0), order="F")
        self._P, self._Qt = P, Qt

    @property
    def P(self):
        return self._P[: self.k]

    def add(self, index, z):
        """Append the point z (row index of X); False, and nothing changes,
        when z lies numerically in the affine hull of the support."""
        k = self.k
        b = np.append(z / self.scale, 1.0)
        b_norm = float(np.sqrt(b @ b))
        Qt = self._Qt[:k]
        r = Qt @ b
        v = b - Qt.T @ r
        if np.sqrt(v @ v) < 0.5 * b_norm:
            correction = Qt @ v
            v -= Qt.T @ correction
            r += correction
        rho = float(np.sqrt(v @ v))
        if not rho > (self.m + 1) * _EPS * b_norm:
            return False
        if k == self._P.shape[0]:
            self._alloc(2 * k)
        self._P[k] = z
        self._Qt[k] = v / rho
        R = np.zeros((k + 1, k + 1), order="F")
        R[:k, :k] = self._R
        R[:k, k] = r
        R[k, k] = rho
        self._R = R
        self.k += 1
        self.support.append(index)
        return True

    def remove(self, i):
        """Drop the i-th point of the support."""
        k = self.k
        if k == 1:
            self._R = np.zeros((0, 0), order="F")
        else:
            Q, R = qr_delete(
                self._Qt[:k].T, self._R, i, which="col", check_finite=False
            )
            # A square Q (k = m + 1) is downdated as a full factorization.
            self._Qt[: k - 1] = Q[:, : k - 1].T
            self._R = np.asfortranarray(R[: k - 1, : k - 1])
            self._P[i : k - 1] = self._P[i + 1 : k]
        del self.support[i]
        self.k -= 1

    def affine_weights(self):
        """Weights mu (sum 1) of the min-norm point of the support's affine
        hull, or None when rounding makes them meaningless."""
        R = self._R
        ones = np.ones(self.k)
        with np.errstate(all="ignore"):
            t = solve_triangular(R, ones, trans="T", check_finite=False)
            mu = solve_triangular(R, t, check_finite=False)
            total = mu.sum()
        if not np.isfinite(total) or total <= 0.0:
            return None
        return mu / total


def _min_norm_point(X, signs, pad, sq_norms, max_iter):
    """Wolfe's algorithm for the point of conv{z_i} nearest to the origin.

    Returns (x, support, P): the last iterate x = sum_i lambda_i z_i (lambda
    in the simplex), the rows `support` carrying lambda > 0 and their points
    P = z[support]. The iterates' norms decrease strictly; the loop stops when
    the duality gap is closed to rounding error, when x reaches the origin
    (not separable), or when floating point stops making progress.
    """
    scale = np.sqrt(sq_norms.max())
    m = X.shape[1] + int(bool(pad))
    # Noise level of a computed dot product z_i . x, relative to ||x||.
    noise = 16.0 * m * _EPS * scale

    corral = _Corral(m, scale)
    first = int(np.argmin(sq_norms))
    corral.add(first, _points(X, signs, np.array([first]), pad)[0])
    lam = np.ones(1)
    x = corral.P[0].copy()
    xx = x @ x
    # The support of the iterate x; the corral may hold a tentative step.
    support = list(corral.support)
    for _ in range(max_iter):
        norm_x = np.sqrt(xx)
        if norm_x <= noise:
            # The origin is (numerically) in the hull: not separable.
            break
        dots = _point_dots(X, signs, x, pad)
        j = int(np.argmin(dots))
        # Duality gap: min_j z_j.x / ||x|| <= gamma* <= ||x||.
        gap_closed = xx - dots[j] <= norm_x * max(1e-13 * norm_x, noise)
        if gap_closed or j in support:
            break
        if not corral.add(j, _points(X, signs, np.array([j]), pad)[0]):
            break
        new_lam = np.append(lam, 0.0)
        # Minor cycles: move towards the affine min-norm point, dropping the
        # points whose weight would turn negative. Each cycle drops at least
        # one point, so there are at most len(support) of them.
        for _ in range(corral.k):
            mu = corral.affine_weights()
            if mu is None:
                break
            if np.all(mu > 0.0):
                new_lam = mu
                break
            neg = np.flatnonzero(mu <= 0.0)
            ratios = new_lam[neg] / (new_lam[neg] - mu[neg])
            theta = ratios.min()
            new_lam = new_lam + theta * (mu - new_lam)
            new_lam[neg[np.argmin(ratios)]] = 0.0
            drop = np.flatnonzero(~(new_lam > 0.0))
            for i in drop[::-1]:
                corral.remove(int(i))
            new_lam = np.delete(new_lam, drop)
        if new_lam.shape[0] == 0:
            break
        new_lam = np.maximum(new_lam, 0.0)
        new_lam /= new_lam.sum()
        new_x = new_lam @ corral.P
        new_xx = new_x @ new_x
        if not new_xx < xx:
            # No progress in floating point: keep the last iterate.
            break
        support, lam, x, xx = list(corral.support), new_lam, new_x, new_xx
    support = np.array(support, dtype=np.intp)
    if support.tolist() == corral.support:
        P = corral.P.copy()
    else:
        P = _points(X, signs, support, pad)
    return x, support, P


def _lstsq(A, b):
    """Min-norm least squares by a complete orthogonal factorization (LAPACK
    gelsy), with NumPy's default rank cutoff: as accurate as the SVD for
    these well-posed systems, at about half its cost."""
    cond = _EPS * max(A.shape)
    return lstsq(A, b, cond=cond, lapack_driver="gelsy", check_finite=False)[0]


def _max_margin_unit(X, signs, pad):
    """(gamma, coef, intercept) of the max-margin unit vector for rows
    [x_i; pad] (no padding for pad = 0); validated input of unit scale."""
    n_samples, n_features = X.shape
    sq_norms = _squared_norms(X, pad)
    zero = (0.0, np.zeros(n_features), 0.0)
    if sq_norms.max() == 0.0:
        return zero
    m = n_features + int(bool(pad))
    x, support, P = _min_norm_point(
        X, signs, pad, sq_norms, max_iter=10 * (n_samples + m)
    )
    # Polish: at the optimum the support vectors satisfy z_i . w = 1 for the
    # min-norm solution w of that system (KKT), which least squares finds to
    # near machine precision even when gamma is tiny relative to R.
    polished = _lstsq(P, np.ones(P.shape[0]))
    best = zero
    for v in (x, polished):
        norm = np.linalg.norm(v)
        if not (np.isfinite(norm) and norm > 0.0):
            continue
        v = v / norm
        coef = v[:n_features]
        intercept = float(v[n_features]) if pad else 0.0
        gamma = _margin(X, signs, coef, intercept, pad)
        if gamma > best[0]:
            best = (gamma, coef, intercept)
    # A positive margin is a certificate of separability, provided it is above
    # the rounding noise of the dot products that computed it; ||x|| is an
    # upper bound on the maximum margin (x is a point of the hull).
    noise = 16.0 * m * _EPS * np.sqrt(sq_norms.max())
    upper = float(np.linalg.norm(x))
    # The polished w is also sum_i lam_i z_i over the support; when lam >= 0,
    # w / sum(lam) is a point of the hull too, a second upper bound.
    lam = _lstsq(P.T, polished)
    if np.all(lam >= 0.0) and lam.sum() > 0.0:
        upper = min(upper, float(np.linalg.norm(lam @ P)) / lam.sum())
    return best, upper, noise


def _scaled_max_margin(X, signs, fit_intercept):
    """The max-margin problem solved on X / c (c a power of two, see
    _pow2_scale): the padded rows are [x; 1] = c [x / c; 1 / c], so the unit
    separator is the same and the margin is c times that of the scaled rows.

    Returns (gamma / c, coef, intercept, X / c, pad, c); gamma is 0 and coef
    zeros when the data are not separable.
    """
    X, pad, c = _unit_scale(X, fit_intercept)
    (gamma, coef, intercept), upper, noise = _max_margin_unit(X, signs, pad)
    if gamma > noise:
        if upper - gamma > 1e-7 * upper:
            warnings.warn(
                "max_margin did not close its duality gap: the maximum margin "
                f"lies in [{gamma * c:.10g}, {upper * c:.10g}]; the returned "
                "margin is the lower end (the data are nearly degenerate for "
                "double precision).",
                ConvergenceWarning,
            )
        return gamma, coef, intercept, X, pad, c
    if upper > noise:
        warnings.warn(
            "max_margin could not decide whether the data are separable: no "
            "separator was found and the maximum margin is at most "
            f"{upper * c:.3g} (the data are nearly degenerate for double "
            "precision); reporting them as not separable.",
            ConvergenceWarning,
        )
    return 0.0, np.zeros(X.shape[1]), 0.0, X, pad, c


def _max_margin(X, signs, fit_intercept):
    """(gamma, coef, intercept) of the max-margin unit vector; validated input."""
    gamma, coef, intercept, _, _, c = _scaled_max_margin(X, signs, fit_intercept)
    return gamma * c, coef, intercept


# ----------------------------------------------------------------------------
# The Kesler construction (multi_class="crammer_singer")
# ----------------------------------------------------------------------------


def _check_X_y_multiclass(X, y):
    """Validate X and y; (X, class index of every sample, n_classes >= 2)."""
    X = _check_X(X)
    y = column_or_1d(y, warn=True)
    check_consistent_length(X, y)
    check_classification_targets(y)
    classes, y_class = np.unique(y, return_inverse=True)
    if classes.shape[0] < 2:
        raise ValueError(
            "The multiclass bounds need at least 2 classes; got "
            f"{classes.shape[0]} class(es): {classes.tolist()!r}."
        )
    return X, y_class, classes.shape[0]


def _kesler(X, y_class, n_classes, fit_intercept):
    """The Kesler points ``z_ik = e_{y_i} (x) x~_i - e_k (x) x~_i`` for every
    sample i and class k != y_i: n (K - 1) rows of K (n_features [+ 1])
    columns (CSR for a CSR X), with ``W . z_ik = (w_{y_i} - w_k) . x~_i`` for
    the weight rows W flattened class by class."""
    n = X.shape[0]
    sparse = sp.issparse(X)
    if fit_intercept:
        ones = np.ones((n, 1))
        X = sp.hstack([X, sp.csr_matrix(ones)], format="csr") if sparse else (
            np.hstack([X, ones]))
    sample = np.repeat(np.arange(n), n_classes - 1)
    other = np.array([k for c in y_class for k in range(n_classes) if k != c],
                     dtype=np.intp)
    rows = X[sample]
    blocks = []
    for k in range(n_classes):
        factor = ((y_class[sample] == k).astype(np.float64)
                  - (other == k).astype(np.float64))[:, None]
        blocks.append(rows.multiply(factor) if sparse else rows * factor)
    if sparse:
        Z = sp.hstack([sp.csr_matrix(b) for b in blocks], format="csr")
        Z.eliminate_zeros()
        return Z
    return np.hstack(blocks)


def _unflatten(v, n_classes, fit_intercept):
    """(coef of shape (K, n_features), intercept of shape (K,)) of a
    flattened unit vector of the Kesler space."""
    W = v.reshape(n_classes, -1)
    if fit_intercept:
        return W[:, :-1].copy(), W[:, -1].copy()
    return W.copy(), np.zeros(n_classes)


# ----------------------------------------------------------------------------
# Public API
# ----------------------------------------------------------------------------


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
    X, pad, c = _unit_scale(_check_X(X), fit_intercept)
    return c * float(np.sqrt(_squared_norms(X, pad).max()))


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
    X, signs = _check_X_y(X, y)
    coef = _check_coef(coef, X.shape[1])
    intercept = _check_intercept(intercept)
    # The margin does not depend on the scale of (w, b); with both of unit
    # scale, s (w . x + b) = c s (w . x / c + b / c) for X of any scale.
    scale = _pow2_scale(coef, intercept)
    coef, intercept = coef / scale, intercept / scale
    c = _pow2_scale(X, intercept)
    pad = 1.0 / c if intercept else 0.0
    return c * _margin(_divide(X, c), signs, coef, intercept, pad)


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
        X, y_class, n_classes = _check_X_y_multiclass(X, y)
        Z = _kesler(X, y_class, n_classes, fit_intercept)
        gamma, v, _ = _max_margin(Z, np.ones(Z.shape[0]), False)
        coef, intercept = _unflatten(v, n_classes, fit_intercept)
        return float(gamma), coef, intercept
    X, signs = _check_X_y(X, y)
    gamma, coef, intercept = _max_margin(X, signs, fit_intercept)
    return float(gamma), coef, float(intercept)


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
        X, y_class, n_classes = _check_X_y_multiclass(X, y)
        if coef_init is not None:
            W0 = np.asarray(coef_init, dtype=np.float64)
            if W0.shape != (n_classes, X.shape[1]):
                raise ValueError(
                    f"coef_init must have shape (n_classes, n_features) = "
                    f"({n_classes}, {X.shape[1]}) with "
                    f"multi_class='crammer_singer'; got shape {W0.shape}."
                )
            w0_norm = _norm(_check_coef(W0.ravel(), W0.size, name="coef_init"))
        # The binary bound of the Kesler points (norm sqrt(2) ||x~||), whose
        # margin through the origin is the multiclass margin.
        X = _kesler(X, y_class, n_classes, fit_intercept)
        signs = np.ones(X.shape[0])
        fit_intercept = False
    else:
        X, signs = _check_X_y(X, y)
    if coef_init is not None and multi_class != "crammer_singer":
        w0 = _check_coef(coef_init, X.shape[1], name="coef_init")
        w0_norm = _norm(w0)
    # Computed at unit scale: with R = c r and gamma = c g the bound is
    # (2 delta / c**2 + r**2 + 2 g ||w0|| / c) / g**2.
    gamma, _, _, X, pad, c = _scaled_max_margin(X, signs, fit_intercept)
    if gamma <= 0.0:
        return float("inf")
    r2 = float(_squared_norms(X, pad).max())
    w0_norm /= c
    bound = (2.0 * (delta / c) / c + r2 + 2.0 * gamma * w0_norm) / gamma**2
    # The other branch of the proof (k gamma <= ||w0||) only matters for a
    # threshold below -R**2 / 2; a count is never negative.
    return float(max(bound, w0_norm / gamma, 0.0))


def _min_hinge_objective(scores, a):
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
    X, signs = _check_X_y(X, y)
    coef = _check_coef(coef, X.shape[1])
    intercept = _check_intercept(intercept)
    if not fit_intercept and intercept != 0.0:
        raise ValueError(
            "intercept must be 0 when fit_intercept=False: the perceptron "
            f"without intercept compares with homogeneous vectors; got {intercept}."
        )
    # The bound is a minimum over the scale of u~, and the scale of X is
    # absorbed by it too (x~ = c [x / c; 1 / c]): compute at unit scales.
    scale = _pow2_scale(coef, intercept)
    coef, intercept = coef / scale, intercept / scale
    X, pad, _ = _unit_scale(X, fit_intercept)
    scores = _functional_margins(X, signs, coef, intercept * pad)
    r2 = float(_squared_norms(X, pad).max())
    a = r2 * float(coef @ coef + intercept * intercept)
    return _min_hinge_objective(scores, a)


# ----------------------------------------------------------------------------
# The condition measure of a homogeneous system (feasibility solvers)
# ----------------------------------------------------------------------------

# Beyond this many columns the inradius of an infeasible system's hull is not
# computed (Qhull's facet count grows exponentially with the dimension).
_HULL_MAX_FEATURES = 8


def _rows_at_unit_scale(A):
    """A with every nonzero row divided by a power of two near its largest
    absolute entry (exact; a new matrix), dense or CSR."""
    if sp.issparse(A):
        top = abs(A).max(axis=1).toarray().ravel() if A.shape[1] else np.zeros(A.shape[0])
    else:
        top = np.abs(A).max(axis=1) if A.shape[1] else np.zeros(A.shape[0])
    scale = np.ones(A.shape[0])
    nonzero = top > 0
    scale[nonzero] = np.ldexp(1.0, np.frexp(top[nonzero])[1] - 1)
    if sp.issparse(A):
        A = A.copy()
        A.data /= np.repeat(scale, np.diff(A.indptr))
        return A
    return A / scale[:, None]


def condition_measure(A):
    """The Goffin-Cheung-Cucker condition measure ``rho(A)`` of ``A w > 0``.

    ``rho(A) = max_{||w|| = 1} min_i a_i . w / ||a_i||``: the largest angular
    margin by which a unit vector can clear every (normalized) row. It is
    positive if and only if the system ``A @ w > 0`` is feasible, and then
    equals the sine of the half-aperture of the widest circular cone inside
    the solution cone. It sets the cost of the solvers of
    :mod:`sklearn_perceptrons.feasibility`: the perceptron makes at most
    ``1 / rho**2`` updates, the smooth perceptron fewer than
    ``2 sqrt(2 log n) / rho`` iterations, the rescaled perceptron
    ``O(p log(1 / rho))`` rescalings.

    Parameters
    ----------
    A : {array-like, sparse matrix} of shape (n_constraints, n_features)
        The constraint rows. Must be finite, with at least one row and one
        column.

    Returns
    -------
    rho : float
        In ``[-1, 1]``. ``rho > 0``: feasible, computed exactly (to rounding).
        ``rho <= 0``: infeasible; then ``-rho`` is the radius of the largest
        ball around the origin inside the convex hull of the normalized rows
        (0 when the rows span fewer than ``n_features`` dimensions or the
        origin is on the hull's boundary).

    See Also
    --------
    max_margin : The hard-margin problem this is solved as.
    sklearn_perceptrons.feasibility.smooth_perceptron : A solver whose
        iteration bound is stated in terms of ``rho``.

    Notes
    -----
    By minimax duality, for a feasible system ``rho(A) = min_{x in simplex}
    ||sum_i x_i a_i / ||a_i||||``, the distance from the origin to the convex
    hull of the normalized rows; it is computed by :func:`max_margin` (the
    hard-margin problem through the origin, Wolfe's exact nearest-point
    algorithm). Margins below about ``16 (n_features + 1) eps`` cannot be
    told apart from 0 in double precision and count as infeasible.

    For an infeasible system, ``-rho`` (the inradius of the hull around the
    origin) is computed exactly from the facets of the hull with Qhull when
    ``n_features <= 8``. In more dimensions computing it is hard in general
    (the facet count grows exponentially), so only the sign is returned:
    ``0.0``.

    An all-zero row satisfies ``a . w > 0`` for no ``w``; it is taken as a row
    with ``a . w / ||a|| = 0``, so ``rho(A) = min(0, rho(other rows))``.

    References
    ----------
    .. [1] J.-L. Goffin, "The relaxation method for solving systems of linear
       inequalities", Mathematics of Operations Research 5(3), 388-414, 1980.
    .. [2] D. Cheung and F. Cucker, "A new condition number for linear
       programming", Mathematical Programming 91, 163-174, 2001.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_perceptrons.bounds import condition_measure
    >>> A = np.array([[1.0, 1.0], [1.0, -1.0]])  # a cone of half-angle 45°
    >>> round(condition_measure(A), 6)
    0.707107
    >>> condition_measure([[1.0, 0.0], [-1.0, 0.0]])  # infeasible, flat hull
    0.0
    >>> round(condition_measure([[1.0, 0.0], [-1.0, 1.0], [-1.0, -1.0]]), 6)
    -0.382683
    """
    A = check_array(
        A, accept_sparse="csr", dtype=np.float64, ensure_all_finite=True,
        input_name="A",
    )  # fmt: skip
    # The measure depends on the rows' directions only: each row is divided
    # by a power of two near its largest entry, so that its squared norm
    # neither overflows nor underflows (and CSR duplicates are summed first).
    A = _rows_at_unit_scale(sum_duplicates(A))
    n, p = A.shape
    norms = np.sqrt(row_norms(A, squared=True))
    if not np.all(np.isfinite(norms)):
        raise ValueError("The norms of some rows of A overflow; rescale A.")
    nonzero = norms > 0
    has_zero_row = not np.all(nonzero)
    if not np.any(nonzero):
        return 0.0
    if sp.issparse(A):
        U = sp.diags(1.0 / norms[nonzero]) @ A[nonzero]
        U = sp.csr_matrix(U)
    else:
        U = A[nonzero] / norms[nonzero, None]
    m = U.shape[0]
    if m == 1:
        rho = 1.0  # w = the row itself
    else:
        # The rows as samples of alternating labels: s_i (s_i u_i) = u_i.
        signs = np.where(np.arange(m) % 2 == 0, 1.0, -1.0)
        X = sp.diags(signs) @ U if sp.issparse(U) else U * signs[:, None]
        rho = float(max_margin(X, signs, fit_intercept=False)[0])
        if rho <= 0:
            rho = _infeasible_measure(U)
    return min(rho, 0.0) if has_zero_row else rho


def _infeasible_measure(U):
    """``-inradius`` of the hull of the unit rows ``U`` around the origin
    (the origin lies in the hull), or 0.0 when it is not computed."""
    m, p = U.shape
    if p > _HULL_MAX_FEATURES:
        return 0.0
    U = U.toarray() if sp.issparse(U) else np.asarray(U)
    if p == 1:
        return -1.0  # rows +1 and -1: the hull is [-1, 1]
    if np.linalg.matrix_rank(U) < p:
        return 0.0
    from scipy.spatial import ConvexHull, QhullError

    try:
        hull = ConvexHull(U)
    except QhullError:
        return 0.0  # flat or degenerate: the origin is on its boundary
    # Facets are normal . y + offset <= 0 with unit normals: the origin is at
    # distance -offset from each.
    return float(min(0.0, np.max(hull.equations[:, -1])))

@validate_params(
    {
        "X_mistakes": ["array-like", "sparse matrix"],
        "y": ["array-like"],
        "u": ["array-like"],
        "a": [Interval(numbers.Real, 0, None, closed="neither")],
        "gamma": [Interval(numbers.Real, 0, None, closed="neither")],
        "intercept": ["array-like", numbers.Real],
        "fit_intercept": ["boolean"],
        "classes": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
@shared_doc
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
    X, signs, u, intercept = _check_run_rows(X_mistakes, y, u, intercept,
                                             fit_intercept, classes,
                                             "X_mistakes")
    if X.shape[0] == 0:
        return 0.0
    scores = safe_sparse_dot(X, u, dense_output=True) + intercept
    hinge = float(np.maximum(0.0, gamma - signs * scores).sum())
    spread = float(a * (u @ u + intercept * intercept) + scores @ scores)
    log_det = _log_det_term(X, a, fit_intercept)
    return float((hinge + np.sqrt(spread * log_det)) / gamma)


def _check_run_rows(X, y, u, intercept, fit_intercept, classes, name):
    """Validate the rows of a run (mistakes or updates, maybe none), their
    labels (signs, or labels among ``classes``) and a comparison vector;
    returns (X, signs, u, intercept)."""
    X = check_array(X, accept_sparse="csr", dtype=np.float64,
                    ensure_all_finite=True, ensure_min_samples=0,
                    input_name=name)
    y = column_or_1d(y, warn=True)
    check_consistent_length(X, y)
    if classes is None:
        signs = np.asarray(y, dtype=np.float64) if y.dtype.kind in "iufb" else None
        if signs is None or not np.all(np.isin(signs, (-1.0, 1.0))):
            raise ValueError(
                "y must hold signs in {-1, +1} when classes is not given; pass "
                "classes=[negative, positive] to use labels."
            )
    else:
        classes = np.asarray(classes)
        if classes.shape != (2,) or classes[0] == classes[1]:
            raise ValueError(
                f"classes must hold 2 distinct labels; got {classes.tolist()!r}."
            )
        unknown = ~np.isin(y, classes)
        if unknown.any():
            raise ValueError(
                f"y holds labels {np.unique(y[unknown]).tolist()!r} that are not "
                f"in classes={classes.tolist()!r}."
            )
        signs = np.where(y == classes[1], 1.0, -1.0)
    u = _check_coef(u, X.shape[1], name="u")
    intercept = _check_intercept(intercept)
    if not fit_intercept and intercept != 0.0:
        raise ValueError(
            "intercept must be 0 when fit_intercept=False; got "
            f"{intercept}."
        )
    return X, signs, u, intercept


def _log_det_term(X, a, fit_intercept):
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


# ----------------------------------------------------------------------------
# The online family: passive-aggressive, ALMA, ROMMA, AROW
# ----------------------------------------------------------------------------


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
        return _min_hinge_objective(scores, a)
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

    References
    ----------
    .. [1] K. Crammer, O. Dekel, J. Keshet, S. Shalev-Shwartz and Y. Singer,
       "Online passive-aggressive algorithms", Journal of Machine Learning
       Research 7, 551-585, 2006.

    Examples
    --------
    >>> from sklearn_perceptrons.bounds import passive_aggressive_mistake_bound
    >>> X = [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]
    >>> y = [1, 1, 0]
    >>> float(passive_aggressive_mistake_bound(X, y, [1.0, 1.0]))
    2.0
    """
    if multi_class == "ovr":
        X, signs = _check_X_y(X, y)
        u = _check_coef(coef, X.shape[1])
        scores = signs * safe_sparse_dot(X, u, dense_output=True)
        u_sq = float(u @ u)
        kesler = 1.0
    else:
        X, y_class, n_classes = _check_X_y_multiclass(X, y)
        u = np.asarray(coef, dtype=np.float64)
        if u.shape != (n_classes, X.shape[1]):
            raise ValueError(
                f"coef must have shape (n_classes, n_features) = ({n_classes}, "
                f"{X.shape[1]}) for multi_class='crammer_singer'; got shape "
                f"{u.shape}."
            )
        if not np.isfinite(u).all():
            raise ValueError("coef must be finite.")
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

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The samples. Sparse matrices are never densified.

    y : array-like of shape (n_samples,)
        Binary labels (exactly two classes). ``np.unique(y)[1]`` is the
        positive class.

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

    References
    ----------
    .. [1] C. Gentile, "A new approximate maximal margin classification
       algorithm", Journal of Machine Learning Research 2, 213-242, 2001.

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
    X, signs = _check_X_y(X, y)
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
        u = _check_coef(coef, X.shape[1] - bool(fit_intercept))
        intercept = _check_intercept(intercept)
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

    References
    ----------
    .. [1] Y. Li and P. M. Long, "The relaxed online maximum margin
       algorithm", Machine Learning 46, 361-387, 2002.

    Examples
    --------
    >>> from sklearn_perceptrons.bounds import romma_mistake_bound
    >>> X = [[2.0, 0.0], [-2.0, 0.0]]
    >>> y = [1, 0]
    >>> romma_mistake_bound(X, y, fit_intercept=False)
    1.0
    """
    return mistake_bound(X, y, fit_intercept=fit_intercept)


@validate_params(
    {
        "X_updates": ["array-like", "sparse matrix"],
        "y": ["array-like"],
        "u": ["array-like"],
        "r": [Interval(numbers.Real, 0, None, closed="neither")],
        "n_margin_errors": [Interval(numbers.Integral, 0, None, closed="left")],
        "intercept": ["array-like", numbers.Real],
        "fit_intercept": ["boolean"],
        "classes": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
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

    References
    ----------
    .. [1] K. Crammer, A. Kulesza and M. Dredze, "Adaptive regularization of
       weight vectors", Advances in Neural Information Processing Systems
       22, 2009.

    Examples
    --------
    >>> from sklearn_perceptrons.bounds import arow_mistake_bound
    >>> X_updates = [[1.0, 0.0], [0.0, 1.0]]
    >>> round(arow_mistake_bound(X_updates, [1, -1], [1.0, -1.0],
    ...                          fit_intercept=False), 4)
    2.3548
    """
    X, signs, u, intercept = _check_run_rows(X_updates, y, u, intercept,
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
    log_det = _log_det_term(X, r, fit_intercept)
    U = float(n_margin_errors)
    return float(np.sqrt(spread) * np.sqrt(log_det + U) + hinge - U)
