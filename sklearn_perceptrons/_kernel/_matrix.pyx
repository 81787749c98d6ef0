# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The typed view of the rows of X that every compiled entry point of the
kernel family reads (see ``_matrix.pxd``)."""

import numpy as np


cdef class Matrix:
    """The rows of a matrix ``X``, without a copy: a C-ordered 2-d
    ndarray, or a CSR matrix with int32 indices (``X.format == "csr"``),
    of float32 or float64 values.  The arrays are kept alive by the view.

    Parameters
    ----------
    X : ndarray of shape (n_rows, n_features) or CSR matrix
        The rows.
    """

    def __init__(self, X):
        cdef const int[::1] indices
        cdef const int[::1] indptr
        n_rows, n_features = X.shape
        if getattr(X, "format", None) == "csr":
            values = X.data
            indices = X.indices
            indptr = X.indptr
            if indptr.shape[0] != n_rows + 1 or indices.shape[0] < values.shape[0]:
                raise ValueError("A CSR matrix needs n_rows + 1 offsets and "
                                 "an index per stored value.")
            self.view.indices = &indices[0] if indices.shape[0] else NULL
            self.view.indptr = &indptr[0]
            self.view.sparse = True
            self.arrays = (values, X.indices, X.indptr)
        else:
            if X.ndim != 2 or not X.flags.c_contiguous:
                raise ValueError("A dense matrix must be 2-d and C-ordered.")
            values = X.reshape(-1)
            self.view.indices = NULL
            self.view.indptr = NULL
            self.view.sparse = False
            self.arrays = (values,)
        self.view.n_rows = n_rows
        self.view.n_features = n_features
        self.view.values = _values_pointer(values, &self.view.float32)

    @property
    def n_rows(self):
        return self.view.n_rows

    @property
    def n_features(self):
        return self.view.n_features

    @property
    def sparse(self):
        return self.view.sparse

    def rows(self, Py_ssize_t start, Py_ssize_t stop):
        """The rows ``start:stop``, a view of the same arrays (CSR offsets
        stay absolute)."""
        cdef Matrix out = Matrix.__new__(Matrix)
        cdef Py_ssize_t itemsize = 4 if self.view.float32 else 8
        if not 0 <= start <= stop <= self.view.n_rows:
            raise ValueError(f"rows {start}:{stop} of a matrix of "
                             f"{self.view.n_rows} rows.")
        out.view = self.view
        out.arrays = self.arrays
        out.view.n_rows = stop - start
        if self.view.sparse:
            out.view.indptr = self.view.indptr + start
        elif self.view.values != NULL:
            out.view.values = (<const char*> self.view.values
                               + start * self.view.n_features * itemsize)
        return out


cdef const void* _values_pointer(values, bint* float32) except? NULL:
    """The data pointer of a 1-d float32 or float64 array (NULL if empty);
    ``float32`` tells which."""
    cdef const float[::1] values_f
    cdef const double[::1] values_d
    if values.dtype == np.float32:
        float32[0] = True
        values_f = values
        return &values_f[0] if values_f.shape[0] else NULL
    if values.dtype == np.float64:
        float32[0] = False
        values_d = values
        return &values_d[0] if values_d.shape[0] else NULL
    raise TypeError(f"Rows of float32 or float64 values; got {values.dtype}.")
