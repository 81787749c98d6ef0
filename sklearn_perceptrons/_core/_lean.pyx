# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The one check of the rows of a lean call: ``partial_fit``, ``predict``
and ``decision_function`` of a fitted estimator on a few rows, and the
compiled streams of the linear family, all check their rows here.

X is *lean* when it is a 2-d C-ordered float64 or float32 ndarray, or a
``csr_matrix``/``csr_array`` of such values with int32 indices in canonical
form (sorted, no duplicates): what scikit-learn's ``validate_data`` would
return unchanged for the package's compiled loops.  A lean X is checked for
what can still fail (the number of features, at least one row, finite
values), with ``validate_data``'s errors; any other X goes the general way.
Compiled, so that the check of a one-row call costs a fraction of a
microsecond: type and dtype tests on the buffer, one pass over the values.
"""

from cpython.buffer cimport (
    PyBUF_C_CONTIGUOUS,
    PyBUF_FORMAT,
    PyBuffer_Release,
    PyObject_GetBuffer,
)
from libc.math cimport isfinite

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import assert_all_finite

_NDARRAY = np.ndarray
_CSR_TYPES = (sp.csr_matrix, sp.csr_array)


cdef int _float_format(const char* fmt) noexcept:
    """4 or 8 for a buffer of float32 or float64 values in native order,
    0 otherwise.  NumPy writes a native format without a byte-order
    prefix ("d", "f") and a foreign one with it (">d"): only "=" and "@",
    which say native, are skipped."""
    if fmt == NULL:
        return 0
    if fmt[0] == b'=' or fmt[0] == b'@':
        fmt += 1
    if fmt[0] == 0 or fmt[1] != 0:
        return 0
    if fmt[0] == b'd':
        return 8
    if fmt[0] == b'f':
        return 4
    return 0


cdef bint _int32_format(const char* fmt, Py_ssize_t itemsize) noexcept:
    """Whether a buffer holds 4-byte integers in native order ("i", or "l"
    where a C long has 4 bytes)."""
    if fmt == NULL or itemsize != 4:
        return False
    if fmt[0] == b'=' or fmt[0] == b'@':
        fmt += 1
    return fmt[0] != 0 and fmt[1] == 0 and (fmt[0] == b'i' or fmt[0] == b'l')


cdef bint _values_finite(const void* buf, Py_ssize_t n, int itemsize) noexcept nogil:
    cdef Py_ssize_t i
    cdef const double* d = <const double*> buf
    cdef const float* f = <const float*> buf
    if itemsize == 8:
        for i in range(n):
            if not isfinite(d[i]):
                return False
    else:
        for i in range(n):
            if not isfinite(f[i]):
                return False
    return True


cdef int _check_shape(Py_ssize_t n_rows, Py_ssize_t width, Py_ssize_t n_features,
                      str name, object shape) except -1:
    if width != n_features:
        raise ValueError(
            f"X has {width} features, but {name} "
            f"is expecting {n_features} features as input."
        )
    if n_rows == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={tuple(shape)}) while a "
            "minimum of 1 is required."
        )
    return 0


cdef int _check_dense(object X, Py_ssize_t n_features, str name) except -1:
    cdef Py_buffer view
    cdef int itemsize
    cdef bint finite
    try:
        PyObject_GetBuffer(X, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
    except (BufferError, ValueError, TypeError):
        return 1  # not C-ordered: the general way copies it
    try:
        itemsize = _float_format(view.format)
        if view.ndim != 2 or itemsize == 0 or view.itemsize != itemsize:
            return 1
        _check_shape(view.shape[0], view.shape[1], n_features, name, X.shape)
        with nogil:
            finite = _values_finite(view.buf, view.shape[0] * view.shape[1],
                                    itemsize)
    finally:
        PyBuffer_Release(&view)
    if not finite:
        assert_all_finite(X, input_name="X")
    return 0


cdef bint _int32_array(object array):
    """Whether ``array`` is a 1-d C-contiguous ndarray of native int32."""
    cdef Py_buffer view
    cdef bint good
    if type(array) is not _NDARRAY:
        return False
    try:
        PyObject_GetBuffer(array, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
    except (BufferError, ValueError, TypeError):
        return False
    good = view.ndim == 1 and _int32_format(view.format, view.itemsize)
    PyBuffer_Release(&view)
    return good


cdef int _check_csr(object X, Py_ssize_t n_features, str name) except -1:
    cdef Py_buffer view
    cdef int itemsize
    cdef bint finite
    data = X.data
    if (type(data) is not _NDARRAY or not _int32_array(X.indices)
            or not _int32_array(X.indptr)):
        return 1
    try:
        PyObject_GetBuffer(data, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
    except (BufferError, ValueError, TypeError):
        return 1
    try:
        itemsize = _float_format(view.format)
        if view.ndim != 1 or itemsize == 0 or view.itemsize != itemsize:
            return 1
        shape = X.shape
        # SciPy >= 1.14 has 1-d CSR arrays: the general way refuses them.
        if len(shape) != 2:
            return 1
        # The canonical form last: SciPy may have to compute it.
        if not X.has_canonical_format:
            return 1
        _check_shape(shape[0], shape[1], n_features, name, shape)
        with nogil:
            finite = _values_finite(view.buf, view.shape[0], itemsize)
    finally:
        PyBuffer_Release(&view)
    if not finite:
        assert_all_finite(data, input_name="X")
    return 0


cpdef int check_rows(object X, Py_ssize_t n_features, str name) except -1:
    """Check the rows X of a lean call of a fitted estimator of
    ``n_features`` features fitted without feature names (``name``: its
    class name, for the messages).

    Returns 0 when X is lean (see the module) and good, 1 when it is not
    lean (the caller then validates it the general way, which converts or
    refuses it); raises ValueError, with ``validate_data``'s messages, for
    a lean X of another number of features, of no rows, or with values
    that are not finite.
    """
    cdef type kind = type(X)
    if kind is _NDARRAY:
        return _check_dense(X, n_features, name)
    if kind is _CSR_TYPES[0] or kind is _CSR_TYPES[1]:
        return _check_csr(X, n_features, name)
    return 1

