# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The exact hard-margin separator: the minimum-norm point of the signed
(padded) samples' hull, by a corral of active points and least squares; the
Kesler construction for the native multiclass perceptron."""

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.linalg import lstsq, qr_delete, solve_triangular
from sklearn.exceptions import ConvergenceWarning

from .data import EPS, functional_margins, padded_margin, squared_norms, unit_scale


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
    return functional_margins(X, signs, v[:n_features], intercept)


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
        if not rho > (self.m + 1) * EPS * b_norm:
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
    noise = 16.0 * m * EPS * scale

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
    cond = EPS * max(A.shape)
    return lstsq(A, b, cond=cond, lapack_driver="gelsy", check_finite=False)[0]


def _max_margin_unit(X, signs, pad):
    """(gamma, coef, intercept) of the max-margin unit vector for rows
    [x_i; pad] (no padding for pad = 0); validated input of unit scale."""
    n_samples, n_features = X.shape
    sq_norms = squared_norms(X, pad)
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
        gamma = padded_margin(X, signs, coef, intercept, pad)
        if gamma > best[0]:
            best = (gamma, coef, intercept)
    # A positive margin is a certificate of separability, provided it is above
    # the rounding noise of the dot products that computed it; ||x|| is an
    # upper bound on the maximum margin (x is a point of the hull).
    noise = 16.0 * m * EPS * np.sqrt(sq_norms.max())
    upper = float(np.linalg.norm(x))
    # The polished w is also sum_i lam_i z_i over the support; when lam >= 0,
    # w / sum(lam) is a point of the hull too, a second upper bound.
    lam = _lstsq(P.T, polished)
    if np.all(lam >= 0.0) and lam.sum() > 0.0:
        upper = min(upper, float(np.linalg.norm(lam @ P)) / lam.sum())
    return best, upper, noise


def scaled_max_margin(X, signs, fit_intercept):
    """The max-margin problem solved on X / c (c a power of two, see
    pow2_scale): the padded rows are [x; 1] = c [x / c; 1 / c], so the unit
    separator is the same and the margin is c times that of the scaled rows.

    Returns (gamma / c, coef, intercept, X / c, pad, c); gamma is 0 and coef
    zeros when the data are not separable.
    """
    X, pad, c = unit_scale(X, fit_intercept)
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


def solve_max_margin(X, signs, fit_intercept):
    """(gamma, coef, intercept) of the max-margin unit vector; validated input."""
    gamma, coef, intercept, _, _, c = scaled_max_margin(X, signs, fit_intercept)
    return gamma * c, coef, intercept


def kesler(X, y_class, n_classes, fit_intercept):
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


def unflatten(v, n_classes, fit_intercept):
    """(coef of shape (K, n_features), intercept of shape (K,)) of a
    flattened unit vector of the Kesler space."""
    W = v.reshape(n_classes, -1)
    if fit_intercept:
        return W[:, :-1].copy(), W[:, -1].copy()
    return W.copy(), np.zeros(n_classes)
