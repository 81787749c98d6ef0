# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The canonical form of a CSR matrix whose rows are out of order, in one
compiled pass: the entries of every row sorted by column, in new arrays.

SciPy's ``copy`` then ``sum_duplicates`` (a copy, a general sort of every
row, a pass for duplicates) costs several passes over the matrix; rows
whose columns are distinct and short, or already in increasing or
decreasing order (as a sparse product leaves them), are put in order here
in one.  The result is the matrix SciPy's way gives, bit for bit: with
distinct columns, sorting leaves a single order and sums nothing.  A row
that repeats a column, or a long row in no order, is left to SciPy (the
function returns None).
"""

from cython cimport floating

import numpy as np
import scipy.sparse as sp

cdef enum:
    # Rows in no order up to this length are sorted by insertion (a few
    # comparisons per entry for the short rows of text data); longer ones
    # are left to SciPy's sort.
    INSERTION_MAX = 64


cdef int _sort_rows(
    const floating* data, const int* indices, const int* indptr,
    Py_ssize_t n_rows, floating* out_data, int* out_indices,
) noexcept nogil:
    """Write every row of the CSR arrays to ``out_*`` sorted by column;
    returns 1 when a row repeats a column or is too long to sort here (the
    output is then incomplete), else 0."""
    cdef Py_ssize_t i, j, a, b, length, h
    cdef bint increasing, decreasing
    cdef int column
    cdef floating value
    for i in range(n_rows):
        a, b = indptr[i], indptr[i + 1]
        length = b - a
        increasing = decreasing = True
        for j in range(a + 1, b):
            increasing &= indices[j - 1] < indices[j]
            decreasing &= indices[j - 1] > indices[j]
        if increasing:
            for j in range(a, b):
                out_indices[j] = indices[j]
                out_data[j] = data[j]
        elif decreasing:
            for j in range(length):
                out_indices[a + j] = indices[b - 1 - j]
                out_data[a + j] = data[b - 1 - j]
        elif length <= INSERTION_MAX:
            for j in range(a, b):
                column, value = indices[j], data[j]
                h = j
                while h > a and out_indices[h - 1] > column:
                    out_indices[h] = out_indices[h - 1]
                    out_data[h] = out_data[h - 1]
                    h -= 1
                if h > a and out_indices[h - 1] == column:
                    return 1
                out_indices[h] = column
                out_data[h] = value
        else:
            return 1
    return 0


def _sort_typed(const floating[::1] data, const int[::1] indices,
                const int[::1] indptr, floating[::1] out_data,
                int[::1] out_indices):
    """:func:`_sort_rows` on the arrays (the output as long as the input)."""
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1
    cdef int status
    if data.shape[0] == 0:
        return 0
    with nogil:
        status = _sort_rows(&data[0], &indices[0], &indptr[0], n_rows,
                            &out_data[0], &out_indices[0])
    return status


def sorted_csr(X):
    """X (a CSR matrix or array not in canonical form) with the entries of
    every row sorted by column, in new arrays; the caller's matrix is left
    as it is.

    Returns None where SciPy's ``copy`` and ``sum_duplicates`` must do it:
    a row that repeats a column (its entries are summed there), a long row
    in no order, or arrays other than float32/float64 values with int32
    indices starting at 0.  Costs one pass over the entries (a few more for
    short rows in no order).
    """
    data, indices, indptr = X.data, X.indices, X.indptr
    if (data.dtype not in (np.float64, np.float32)
            or not data.dtype.isnative
            or indices.dtype != np.int32 or indptr.dtype != np.int32
            or indptr.shape[0] == 0 or indptr[0] != 0):
        return None
    nnz = int(indptr[indptr.shape[0] - 1])
    data = np.ascontiguousarray(data[:nnz])
    indices = np.ascontiguousarray(indices[:nnz])
    out_data = np.empty_like(data)
    out_indices = np.empty_like(indices)
    if _sort_typed(data, indices, np.ascontiguousarray(indptr), out_data,
                   out_indices):
        return None
    out = type(X)((out_data, out_indices, indptr.copy()), shape=X.shape,
                  copy=False)
    out.has_canonical_format = True
    return out
