# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Tiny pure-NumPy online learners: the oracles of the online family.

One sample at a time, each straight from its paper's update rule (and, for
the passive-aggressive rule, from scikit-learn's documented behaviour):

* :func:`passive_aggressive` -- PA-I / PA-II of Crammer et al. (2006) as
  scikit-learn's ``PassiveAggressiveClassifier`` applies them;
* :func:`passive_aggressive_multiclass` -- the multiclass PA of the same
  paper (one weight row per class, the highest-scoring wrong row moves);
* :func:`alma` -- ALMA_p of Gentile (2001), any ``p >= 2``;
* :func:`romma` -- ROMMA and aggressive ROMMA of Li & Long (2002);
* :func:`arow` -- AROW of Crammer, Kulesza & Dredze (2009), full covariance
  or its diagonal.

Every function takes the samples ``X`` (n, d), their signs or class indices,
the epoch orders (a list of index arrays) and the weight ``c_i`` of every
sample (``sample_weight * class_weight``; ones by default), and returns a
dict with the final ``coef`` and ``intercept``, their averages over every
visit (``avg_coef``, ``avg_intercept``), the updates of every epoch
(``updates``) and the prediction mistakes made on the way (``mistakes``:
visits whose score had the wrong sign, or 0, before the update).  They are
written for clarity, not speed.
"""

import numpy as np


def _padded(X, fit_intercept):
    X = np.asarray(X, dtype=np.float64)
    if fit_intercept:
        return np.hstack([X, np.ones((X.shape[0], 1))])
    return X


def _weights(c, n):
    return np.ones(n) if c is None else np.asarray(c, dtype=np.float64)


class _Mean:
    """The mean of a vector over the visits it is shown."""

    def __init__(self, size):
        self.total = np.zeros(size)
        self.count = 0

    def add(self, v):
        self.total += v
        self.count += 1

    def value(self):
        return self.total / max(self.count, 1)


def passive_aggressive(X, signs, orders, *, C=1.0, loss="hinge",
                       fit_intercept=True, c=None, intercept_rate=1.0,
                       w0=None, b0=0.0):
    """Passive-aggressive learning as scikit-learn 1.9 applies it.

    On a visit of ``x`` with sign ``s`` and weight ``c``: ``l = max(0, 1 -
    s (w . x + b))``, ``q = ||x||^2`` (the intercept's constant feature is
    not part of it); PA-I (``loss="hinge"``) takes ``tau = min(C, l / q)``
    and skips the sample altogether when ``q = 0`` (not even a visit of the
    average), PA-II (``"squared_hinge"``) ``tau = l / (q + 1 / (2 C))``;
    then ``w += tau c s x`` and ``b += intercept_rate * tau c s``
    (scikit-learn's rate is 0.01 on sparse X).  An update is a visit with
    ``l > 0`` and ``c != 0``.  ``losses`` holds the sum of ``l`` over the
    visits of every epoch (scikit-learn's stopping statistic).
    """
    X = np.asarray(X, dtype=np.float64)
    c = _weights(c, X.shape[0])
    w = np.zeros(X.shape[1]) if w0 is None else np.array(w0, dtype=np.float64)
    b = float(b0)
    mean = _Mean(X.shape[1] + 1)
    updates, losses, mistakes = [], [], 0
    for order in orders:
        n_updates, loss_sum = 0, 0.0
        for i in order:
            x, s = X[i], signs[i]
            raw = w @ x + (b if fit_intercept else 0.0)
            margin = s * raw
            mistakes += margin <= 0
            ell = max(0.0, 1.0 - margin)
            loss_sum += ell
            q = x @ x
            if loss == "hinge":
                if q == 0.0:
                    continue
                tau = min(C, ell / q)
            else:
                tau = ell / (q + 1.0 / (2.0 * C))
            if ell > 0.0 and c[i] != 0.0:
                n_updates += 1
                w = w + tau * c[i] * s * x
                if fit_intercept:
                    b += intercept_rate * tau * c[i] * s
            mean.add(np.append(w, b))
        updates.append(n_updates)
        losses.append(loss_sum)
    avg = mean.value()
    return dict(coef=w, intercept=b, avg_coef=avg[:-1], avg_intercept=avg[-1],
                updates=updates, losses=losses, mistakes=int(mistakes))


def passive_aggressive_multiclass(X, y_class, n_classes, orders, *, C=1.0,
                                  loss="hinge", fit_intercept=True, c=None,
                                  intercept_rate=1.0):
    """The multiclass passive-aggressive rule (Crammer et al. 2006, one row
    per class, "max-loss" update).

    On a visit of ``x`` of class ``y``: the scores ``f_r = w_r . x + b_r``,
    ``r = argmax_{r != y} f_r`` (ties: the lowest class), ``l = max(0, 1 -
    (f_y - f_r))`` and ``q = 2 ||x||^2`` (the squared norm of the Kesler
    vector that moves row ``y`` up and row ``r`` down).  ``tau`` as in
    :func:`passive_aggressive`; then ``w_y += tau c x``, ``w_r -= tau c x``
    and the intercepts by ``intercept_rate * tau c``.  A prediction mistake
    is ``f_y <= f_r``.
    """
    X = np.asarray(X, dtype=np.float64)
    c = _weights(c, X.shape[0])
    W = np.zeros((n_classes, X.shape[1]))
    b = np.zeros(n_classes)
    mean = _Mean(n_classes * (X.shape[1] + 1))
    updates, losses, mistakes = [], [], 0
    for order in orders:
        n_updates, loss_sum = 0, 0.0
        for i in order:
            x, y = X[i], y_class[i]
            scores = W @ x + (b if fit_intercept else 0.0)
            others = [r for r in range(n_classes) if r != y]
            r = others[int(np.argmax(scores[others]))]
            gap = scores[y] - scores[r]
            mistakes += gap <= 0
            ell = max(0.0, 1.0 - gap)
            loss_sum += ell
            q = 2.0 * (x @ x)
            if loss == "hinge":
                if q == 0.0:
                    continue
                tau = min(C, ell / q)
            else:
                tau = ell / (q + 1.0 / (2.0 * C))
            if ell > 0.0 and c[i] != 0.0:
                n_updates += 1
                W[y] += tau * c[i] * x
                W[r] -= tau * c[i] * x
                if fit_intercept:
                    b[y] += intercept_rate * tau * c[i]
                    b[r] -= intercept_rate * tau * c[i]
            mean.add(np.hstack([W, b[:, None]]).ravel())
        updates.append(n_updates)
        losses.append(loss_sum)
    avg = mean.value().reshape(n_classes, -1)
    return dict(coef=W, intercept=b, avg_coef=avg[:, :-1],
                avg_intercept=avg[:, -1], updates=updates, losses=losses,
                mistakes=int(mistakes))


def _primal(theta, p):
    """``w = grad (1/2) ||theta||_p^2``: the p-norm link of ALMA_p (the
    identity for p = 2)."""
    if p == 2.0:
        return theta.copy()
    norm = np.sum(np.abs(theta) ** p) ** (1.0 / p)
    if norm == 0.0:
        return np.zeros_like(theta)
    return np.sign(theta) * np.abs(theta) ** (p - 1.0) / norm ** (p - 2.0)


def alma(X, signs, orders, *, p=2.0, alpha=0.9, B=None, C=np.sqrt(2.0),
         fit_intercept=True, c=None):
    """ALMA_p(alpha; B, C) of Gentile (2001).

    Works on the padded vectors ``x~`` normalized in the p-norm, ``x^ = x~
    / ||x~||_p`` (a zero vector is never an update).  The k-th correction
    (``k = 1, 2, ...``, counted over the whole sequence) happens on a visit
    with ``s w . x^ <= (1 - alpha) gamma_k``, ``gamma_k = B sqrt(p - 1) /
    sqrt(k)``, and does ``theta' = theta + eta_k min(c, 1) s x^`` with
    ``eta_k = C / (sqrt(p - 1) sqrt(k))``, ``theta <- theta' / max(1,
    ||theta'||_p)``,
    where ``theta = f(w)`` is the dual vector of the p-norm link and ``w =
    f^-1(theta)`` the weights (``||w||_q = ||theta||_p``, so the last step
    is the projection of ``w'`` onto the unit q-norm ball).  ``B=None``
    means ``1 / alpha``.
    """
    Xp = _padded(X, fit_intercept)
    c = _weights(c, Xp.shape[0])
    p = float(p)
    B = 1.0 / alpha if B is None else B
    theta = np.zeros(Xp.shape[1])
    w = np.zeros(Xp.shape[1])
    k = 1
    mean = _Mean(Xp.shape[1])
    updates, mistakes = [], 0
    for order in orders:
        n_updates = 0
        for i in order:
            x, s = Xp[i], signs[i]
            mistakes += s * (w @ x) <= 0
            norm = np.sum(np.abs(x) ** p) ** (1.0 / p)
            if norm > 0.0 and c[i] != 0.0:
                xh = x / norm
                gamma = B * np.sqrt(p - 1.0) / np.sqrt(k)
                if s * (w @ xh) <= (1.0 - alpha) * gamma:
                    eta = C / (np.sqrt(p - 1.0) * np.sqrt(k))
                    theta = theta + eta * min(c[i], 1.0) * s * xh
                    size = np.sum(np.abs(theta) ** p) ** (1.0 / p)
                    theta = theta / max(1.0, size)
                    w = _primal(theta, p)
                    k += 1
                    n_updates += 1
            mean.add(w)
        updates.append(n_updates)
    avg = mean.value()
    coef, intercept = (w[:-1], w[-1]) if fit_intercept else (w, 0.0)
    avg_coef, avg_intercept = (avg[:-1], avg[-1]) if fit_intercept else (avg, 0.0)
    return dict(coef=coef, intercept=intercept, avg_coef=avg_coef,
                avg_intercept=avg_intercept, updates=updates,
                mistakes=int(mistakes), corrections=k - 1)


# ROMMA's two constraints are parallel when ||x||^2 ||w||^2 - (w . x)^2 is
# this small relative to ||x||^2 ||w||^2; the rule then starts anew from the
# new constraint alone.
ROMMA_PARALLEL = 1e-12


def romma(X, signs, orders, *, aggressive=False, fit_intercept=True, c=None):
    """ROMMA and aggressive ROMMA of Li & Long (2002), on the padded vectors.

    ROMMA updates on a mistake (``m = s w . x <= 0``), aggressive ROMMA
    whenever ``m < 1``.  The new weights are the smallest vector ``v`` with
    ``v . w >= ||w||^2`` and ``s v . x >= t``, ``t = 1`` for ROMMA:
    ``v = t s x / ||x||^2`` when ``t m >= ||x||^2 ||w||^2`` (the first
    update, ``w = 0``, included), else ``v = a w + d x`` with ``a = 1 - (t
    - m) m / D``, ``d = s (t - m) ||w||^2 / D`` and ``D = ||x||^2 ||w||^2 -
    (w . x)^2`` (for ``t = 1``: ``a = (||x||^2 ||w||^2 - m) / D``, ``d =
    ||w||^2 (s - w . x) / D``, the paper's); when the two constraints are
    parallel (``D <= ROMMA_PARALLEL ||x||^2 ||w||^2``, which separable data
    never reach) the rule starts anew from ``t s x / ||x||^2``.  A sample
    of weight ``c`` asks for ``t = m + min(c, 1) (1 - m)``, the fraction
    ``c`` of the margin it lacks (weight 1 or more: ROMMA itself; 0: no
    update).  A zero vector never updates.
    """
    Xp = _padded(X, fit_intercept)
    c = _weights(c, Xp.shape[0])
    w = np.zeros(Xp.shape[1])
    mean = _Mean(Xp.shape[1])
    updates, mistakes = [], 0
    for order in orders:
        n_updates = 0
        for i in order:
            x, s = Xp[i], signs[i]
            raw = w @ x
            m = s * raw
            mistakes += m <= 0
            sq, ww = x @ x, w @ w
            trigger = m < 1.0 if aggressive else m <= 0.0
            if trigger and c[i] != 0.0 and sq > 0.0:
                n_updates += 1
                t = m + min(c[i], 1.0) * (1.0 - m)
                den = sq * ww - raw * raw
                if t * m >= sq * ww or den <= ROMMA_PARALLEL * sq * ww:
                    w = t * s * x / sq
                else:
                    w = (1.0 - (t - m) * m / den) * w + (s * (t - m) * ww / den) * x
            mean.add(w)
        updates.append(n_updates)
    avg = mean.value()
    coef, intercept = (w[:-1], w[-1]) if fit_intercept else (w, 0.0)
    avg_coef, avg_intercept = (avg[:-1], avg[-1]) if fit_intercept else (avg, 0.0)
    return dict(coef=coef, intercept=intercept, avg_coef=avg_coef,
                avg_intercept=avg_intercept, updates=updates,
                mistakes=int(mistakes))


def arow(X, signs, orders, *, r=1.0, diagonal=False, fit_intercept=True,
         c=None):
    """AROW of Crammer, Kulesza & Dredze (2009), in the paper's terms.

    The mean ``mu`` starts at 0 and the covariance ``Sigma`` at the
    identity (padded vectors when ``fit_intercept``).  A visit with ``m = s
    mu . x < 1`` and ``c != 0`` updates: ``v = x^T Sigma x``, ``beta = 1 /
    (v + r / c)``, ``alpha = (1 - m) beta``, ``mu += alpha s Sigma x`` and
    ``Sigma -= beta Sigma x x^T Sigma`` (full), or ``1 / Sigma_jj += c x_j^2
    / r`` (diagonal, the mean moving by the old diagonal).  A sample of
    weight ``c`` counts as ``c`` copies in the covariance (``r / c`` in
    place of ``r``).  Also returns the update rows (``update_rows``) and the
    number of updates that were not mistakes (``margin_errors``), for the
    mistake bound.
    """
    Xp = _padded(X, fit_intercept)
    c = _weights(c, Xp.shape[0])
    dim = Xp.shape[1]
    mu = np.zeros(dim)
    sigma = np.ones(dim) if diagonal else np.eye(dim)
    mean = _Mean(dim)
    updates, mistakes, rows, margin_errors = [], 0, [], 0
    for order in orders:
        n_updates = 0
        for i in order:
            x, s = Xp[i], signs[i]
            m = s * (mu @ x)
            mistakes += m <= 0
            if m < 1.0 and c[i] != 0.0:
                n_updates += 1
                rows.append(i)
                margin_errors += m > 0
                sx = sigma * x if diagonal else sigma @ x
                v = x @ sx
                beta = 1.0 / (v + r / c[i])
                mu = mu + (1.0 - m) * beta * s * sx
                if diagonal:
                    sigma = 1.0 / (1.0 / sigma + c[i] * x * x / r)
                else:
                    sigma = sigma - beta * np.outer(sx, sx)
            mean.add(mu)
        updates.append(n_updates)
    avg = mean.value()
    coef, intercept = (mu[:-1], mu[-1]) if fit_intercept else (mu, 0.0)
    avg_coef, avg_intercept = (avg[:-1], avg[-1]) if fit_intercept else (avg, 0.0)
    return dict(coef=coef, intercept=intercept, avg_coef=avg_coef,
                avg_intercept=avg_intercept, updates=updates,
                mistakes=int(mistakes), update_rows=np.array(rows, dtype=int),
                margin_errors=int(margin_errors))
