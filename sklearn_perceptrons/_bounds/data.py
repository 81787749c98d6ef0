# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The checks of the data, coefficients and runs that the bounds read, and the
arithmetic that keeps their squares and products in float64 (exact scaling
by powers of two)."""

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array, check_consistent_length, column_or_1d
from sklearn.utils.extmath import row_norms, safe_sparse_dot
from sklearn.utils.multiclass import check_classification_targets

from .._core.base import sum_duplicates


# A dot product of two m-vectors of norms a and b is computed to about
# m * eps * a * b; margins below this level (relative to the radius) cannot be
# told apart from zero, so they are reported as "not separable".
EPS = np.finfo(np.float64).eps


def check_X(X):
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


def check_X_y(X, y):
    """Validate X and y and encode y to signs in {-1, +1}."""
    X = check_X(X)
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


def check_coef(coef, n_features, name="coef"):
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


def check_class_coef(coef, n_classes, n_features, name="coef"):
    """Return coef as a finite float64 matrix of shape (n_classes, n_features)
    (one row per class, ``multi_class="crammer_singer"``)."""
    coef = np.asarray(coef, dtype=np.float64)
    if coef.shape != (n_classes, n_features):
        raise ValueError(
            f"{name} must have shape (n_classes, n_features) = ({n_classes}, "
            f"{n_features}) for multi_class='crammer_singer'; got shape "
            f"{coef.shape}."
        )
    return check_coef(coef.ravel(), coef.size, name=name).reshape(coef.shape)


def check_intercept(intercept, name="intercept"):
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


# Data whose largest entry lies in [2**-400, 2**400] have squares and
# products far from overflow and underflow: they are used as they are.
_SAFE_EXPONENT = 400


def pow2_scale(*arrays):
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


def divide(X, c):
    """X / c (a new matrix when c != 1), dense or CSR."""
    if c == 1.0:
        return X
    if sp.issparse(X):
        X = X.copy()
        X.data /= c
        return X
    return X / c


def unit_scale(X, fit_intercept):
    """(X / c, pad, c): the padded rows [x; 1] are c [x / c; pad], pad = 1 / c
    (0.0 without intercept), with X / c and pad of a safe scale."""
    c = pow2_scale(X, 1.0 if fit_intercept else 0.0)
    return divide(X, c), (1.0 / c if fit_intercept else 0.0), c


def safe_norm(v):
    """||v|| without overflow or underflow for any finite v."""
    c = pow2_scale(v)
    v = np.asarray(v) / c
    return c * float(np.sqrt(v @ v))


def squared_norms(X, pad):
    """Squared norms of the rows padded with the value pad (no padding for
    pad = 0 or False; True pads with 1), without densifying a sparse X."""
    sq = row_norms(X, squared=True)
    return sq + float(pad) * float(pad) if pad else sq


def functional_margins(X, signs, coef, intercept):
    """s_i (w . x_i + b) for every row, dense or CSR X."""
    return signs * (safe_sparse_dot(X, coef, dense_output=True) + intercept)


def padded_margin(X, signs, coef, intercept, pad=1.0):
    """min_i s_i (w . x_i + b pad) / ||[w; b]||, 0.0 for w = 0 and b = 0."""
    norm = np.sqrt(coef @ coef + intercept * intercept)
    if norm == 0.0:
        # The zero vector puts every sample on its decision boundary.
        return 0.0
    values = functional_margins(X, signs, coef, intercept * pad if pad else 0.0)
    return float(np.min(values) / norm)


def check_X_y_multiclass(X, y):
    """Validate X and y; (X, class index of every sample, n_classes >= 2)."""
    X = check_X(X)
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


def check_run_rows(X, y, u, intercept, fit_intercept, classes, name):
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
    u = check_coef(u, X.shape[1], name="u")
    intercept = check_intercept(intercept)
    if not fit_intercept and intercept != 0.0:
        raise ValueError(
            "intercept must be 0 when fit_intercept=False; got "
            f"{intercept}."
        )
    return X, signs, u, intercept
