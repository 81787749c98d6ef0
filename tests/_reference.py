# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Tiny pure-NumPy perceptrons: the oracles the compiled loops are tested against.

They are written for clarity, one sample at a time, straight from the update
rules of the contract (the user guide's Perceptron and MarginPerceptron sections).
"""

import numpy as np


def padded(X, fit_intercept):
    """X with a constant column 1 appended when ``fit_intercept``."""
    X = np.asarray(X, dtype=np.float64)
    if fit_intercept:
        return np.hstack([X, np.ones((X.shape[0], 1))])
    return X


def perceptron_epochs(X, signs, orders, *, threshold=0.0, eta=None,
                      fit_intercept=True, w0=None, margin_kappa=None):
    """Run the perceptron over the given epoch orders.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    signs : ndarray of +1/-1 of shape (n_samples,)
    orders : list of index arrays, one per epoch
    threshold : float
        Update when ``s * (w~ . x~) <= threshold`` (standard rule).
    eta : ndarray of shape (n_samples,) or None
        Update size of every sample (eta0 * sample_weight * class_weight).
    w0 : ndarray of shape (n_features [+ 1],) or None
        Starting padded weights.
    margin_kappa : float or None
        If given, use the margin rule instead: update when ``w~ = 0`` or
        ``s * (w~ . x~) < margin_kappa * ||w~||``.

    Returns
    -------
    iterates : list of ndarray
        The padded weights after each visit (the last is the final iterate).
    updates_per_epoch : list of int
    """
    Xp = padded(X, fit_intercept)
    n = Xp.shape[0]
    eta = np.ones(n) if eta is None else np.asarray(eta, dtype=float)
    w = np.zeros(Xp.shape[1]) if w0 is None else np.array(w0, dtype=float)
    iterates, updates_per_epoch = [], []
    for order in orders:
        updates = 0
        for i in order:
            m = signs[i] * (w @ Xp[i])
            if margin_kappa is None:
                update = m <= threshold
            else:
                norm = np.linalg.norm(w)
                update = norm == 0 or m < margin_kappa * norm
            if update and eta[i] != 0:
                w = w + eta[i] * signs[i] * Xp[i]
                updates += 1
            iterates.append(w.copy())
        updates_per_epoch.append(updates)
    return iterates, updates_per_epoch


def split_weights(w_padded, fit_intercept):
    """(coef, intercept) of padded weights."""
    if fit_intercept:
        return w_padded[:-1], w_padded[-1]
    return w_padded, 0.0
