# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
# The rows of X as the compiled kernel code reads them: one typed view of a
# dense or CSR matrix, float32 or float64, made once in Python
# (``Matrix(X)``) and passed to every compiled entry point of the kernel
# family in place of its separate arrays (``cimport`` it from here; the
# class is defined in ``_matrix.pyx``).  The values are a ``const void*``:
# an entry point casts them to the dtype of the view and calls a fused
# function, so that one source serves both dtypes.


cdef struct MatrixView:
    const void* values      # float32 (``float32``) or float64; NULL if empty
    const int* indices      # CSR: the column of every stored value
    const int* indptr       # CSR: n_rows + 1 offsets into values/indices
    Py_ssize_t n_rows
    Py_ssize_t n_features
    bint sparse
    bint float32


cdef class Matrix:
    cdef MatrixView view
    cdef object arrays


cdef inline bint same_dtype(Matrix a, Matrix b) except False:
    """Refuse two matrices that an entry point cannot read together."""
    if a.view.float32 != b.view.float32:
        raise TypeError("Both matrices must have the same dtype.")
    if a.view.n_features != b.view.n_features:
        raise ValueError("Both matrices must have the same number of features.")
    return True
