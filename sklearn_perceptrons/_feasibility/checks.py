# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The input checks of :mod:`sklearn_perceptrons.feasibility`.

Bad parameters raise scikit-learn's ``InvalidParameterError``, as the
estimators' do (a subclass of both ``ValueError`` and ``TypeError``); bad
arrays raise ``ValueError``.
"""

import numbers
import sys

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array
from sklearn.utils._param_validation import InvalidParameterError

from .._core.base import sum_duplicates
from ._feasibility_fast import ORDER_CODES, matrix

ORDERS = tuple(ORDER_CODES)


def check_order(order):
    if not isinstance(order, str) or order not in ORDERS:
        raise InvalidParameterError(
            f"order must be one of {', '.join(map(repr, ORDERS))}; got {order!r}."
        )
    return order


def check_max_iter(max_iter):
    """max_iter as an int the compiled loops can count to (a C ssize_t)."""
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral):
        raise InvalidParameterError(
            f"max_iter must be an integer; got {max_iter!r}.")
    if max_iter < 0:
        raise InvalidParameterError(f"max_iter must be >= 0; got {max_iter}.")
    if max_iter > sys.maxsize:
        raise InvalidParameterError(
            f"max_iter must be at most {sys.maxsize} (2**63 - 1, the largest "
            f"count of the solvers' loops); got {max_iter}."
        )
    return int(max_iter)


def check_real(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(
            f"{name} must be a real number; got {value!r}.")
    value = float(value)
    if not np.isfinite(value):
        raise InvalidParameterError(f"{name} must be finite; got {value}.")
    return value


def check_eta(eta):
    eta = check_real("eta", eta)
    if not 0.0 < eta <= 2.0:
        raise InvalidParameterError(f"eta must be in (0, 2]; got {eta}.")
    return eta


def check_tol(tol):
    tol = check_real("tol", tol)
    if tol < 0:
        raise InvalidParameterError(f"tol must be >= 0; got {tol}.")
    return tol


def check_matrix(A):
    """Validate A once: CSR (as-is) or C-contiguous dense, float32/float64.

    Returns the view the compiled loops read (a ``Matrix`` of
    ``_feasibility_fast``, with ``A`` itself as ``.A``); for dense A, its
    ``data`` is a flat view and its ``indices``/``indptr`` are unused
    placeholders.
    """
    A = check_array(
        A,
        accept_sparse="csr",
        dtype=[np.float64, np.float32],
        order="C",
        ensure_all_finite=True,
        ensure_2d=True,
        ensure_min_samples=0,
        ensure_min_features=0,
        accept_large_sparse=True,
        input_name="A",
    )
    # Row norms read the stored values: duplicates must be summed first.
    A = sum_duplicates(A)
    n, p = A.shape
    if n == 0 or p == 0:
        raise ValueError(
            f"A must have at least one row and one column; got shape {A.shape}."
        )
    if sp.issparse(A):
        if not A.has_canonical_format:
            # Duplicate entries would make the row norms wrong: sum them,
            # in a copy (the caller's matrix is left alone).
            A = A.copy()
            A.sum_duplicates()
        indices, indptr = A.indices, A.indptr
        if indices.dtype != indptr.dtype:
            indices = indices.astype(np.int64)
            indptr = indptr.astype(np.int64)
        data = np.ascontiguousarray(A.data)
        indices = np.ascontiguousarray(indices)
        if data.size == 0:
            # The loops take the address of the first entry.
            data = np.zeros(1, dtype=data.dtype)
            indices = np.zeros(1, dtype=indices.dtype)
        return matrix(A, data, indices, np.ascontiguousarray(indptr), False)
    placeholder = np.zeros(1, dtype=np.int32)
    return matrix(A, A.reshape(-1), placeholder, placeholder, True)


def check_vector(v, length, name, what):
    try:
        v = np.array(v, dtype=np.float64)  # always a fresh float64 copy
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array of {length} numbers.") from exc
    if v.ndim != 1 or v.shape[0] != length:
        raise ValueError(
            f"{name} must have shape ({length},) ({what}); got shape {v.shape}."
        )
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} contains NaN or infinity.")
    return v
