# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
# Kernel values: the column ``K(z_j, x)`` of a probe row x against rows of
# Z, for the built-in kernels, over dense and CSR rows, float32 and float64
# (the fused type ``floating``); and the entry points that score samples
# with them (``decision``, ``kernel_rows``) or compute what the kernels
# read about rows (``row_norms``, ``dense_sq_norms``, ``variance``).  Every
# kernel value is computed by one function in one summation order whichever
# pass needs it.  Included by ``_kernel_core.pxi`` (after
# ``_matrix.pxd``).

cdef extern from "_kernel_fast.h":
    double skp_clamp_log(double t) noexcept nogil
    double skp_dot_d(const double* z, const double* x, Py_ssize_t d) noexcept nogil
    void skp_dense_pass_d(int mode, const double* values, Py_ssize_t d,
                          Py_ssize_t start, Py_ssize_t stop, const double* x,
                          const double* zsq, double xsq, double gamma,
                          double* out) noexcept nogil
    void skp_dense_pass_f(int mode, const float* values, Py_ssize_t d,
                          Py_ssize_t start, Py_ssize_t stop, const double* x,
                          const double* zsq, double xsq, double gamma,
                          double* out) noexcept nogil
    double skp_variance_d(const double* x, Py_ssize_t n) noexcept nogil
    double skp_variance_f(const float* x, Py_ssize_t n) noexcept nogil
    void skp_exp_line(double* buf, Py_ssize_t n) noexcept nogil
    void skp_exp_line_single(const double* arg, Py_ssize_t n,
                             float* out) noexcept nogil
    int skp_any_nonfinite(const double* x, Py_ssize_t n) noexcept nogil


cdef struct Kernel:
    int kind
    double gamma
    double coef0
    double degree


cdef struct Rows:
    # The rows of Z as the column loops read them (the values pointer is
    # passed separately, typed: fused).
    const int* indices
    const int* indptr
    bint sparse
    Py_ssize_t n_features
    Py_ssize_t n_z
    # Rows >= track_from have their scores kept up to date (and cached
    # columns cover them only).
    Py_ssize_t track_from
    Py_ssize_t n_track
    # Norms ("cosine") or squared norms (dense "rbf") of the rows.
    const double* znorm



# -- kernel columns ------------------------------------------------------------

cdef inline void _load_probe(
    const floating* values, const Rows* z, Py_ssize_t row, double* xd,
    double* stats,
) noexcept nogil:
    """Write row ``row`` of Z to the dense buffer ``xd`` (all zeros on
    entry for a CSR row, see :func:`_unload_probe`); ``stats`` gets its
    squared norm, l1 norm and norm."""
    cdef Py_ssize_t p, start, stop
    cdef double v, sq = 0.0, l1 = 0.0
    if z.sparse:
        for p in range(z.indptr[row], z.indptr[row + 1]):
            v = values[p]
            xd[z.indices[p]] = v
            sq += v * v
            l1 += fabs(v)
    else:
        start = row * z.n_features
        for p in range(z.n_features):
            v = values[start + p]
            xd[p] = v
            sq += v * v
            l1 += fabs(v)
    stats[0] = sq
    stats[1] = l1
    stats[2] = sqrt(sq)


cdef inline void _unload_probe(const Rows* z, Py_ssize_t row, double* xd) noexcept nogil:
    """Put ``xd`` back to zeros after a CSR probe."""
    cdef Py_ssize_t p
    if z.sparse:
        for p in range(z.indptr[row], z.indptr[row + 1]):
            xd[z.indices[p]] = 0.0


cdef inline double _int_power(double base, int n) noexcept nogil:
    """base ** n for an integer n >= 0, by repeated squaring."""
    cdef double result = 1.0
    while n > 0:
        if n & 1:
            result *= base
        base *= base
        n >>= 1
    return result


cdef inline int _pass_mode(const Kernel* kern) noexcept nogil:
    """The ``mode`` of the dense passes of ``_kernel_fast.h`` for a kernel:
    1 for "rbf", 2 for "laplacian", 0 (dot products) otherwise."""
    if kern.kind == KERNEL_RBF:
        return 1
    return 2 if kern.kind == KERNEL_LAPLACIAN else 0


cdef void _reduce(
    const floating* values, const Rows* z, Py_ssize_t start, Py_ssize_t stop,
    const double* xd, const double* stats, const Kernel* kern, double* out,
) noexcept nogil:
    """Pass 1 of a column: for the rows ``start <= j < stop`` of Z, the dot
    product with the probe ``xd`` or, for "rbf" and "laplacian", the clamped
    argument of the exponential, to ``out[j - start]``."""
    cdef Py_ssize_t j, p
    cdef int mode = _pass_mode(kern)
    cdef double s, v, x, norm
    if not z.sparse:
        # The probe's squared norm in the order of the rows' (mode 1).
        norm = skp_dot_d(xd, xd, z.n_features) if mode == 1 else 0.0
        if floating is double:
            skp_dense_pass_d(mode, values, z.n_features, start, stop, xd,
                             z.znorm, norm, kern.gamma, out)
        else:
            skp_dense_pass_f(mode, values, z.n_features, start, stop, xd,
                             z.znorm, norm, kern.gamma, out)
        return
    if mode == 0:
        for j in range(start, stop):
            s = 0.0
            for p in range(z.indptr[j], z.indptr[j + 1]):
                s += values[p] * xd[z.indices[p]]
            out[j - start] = s
        return
    # A distance over the pattern of z only: with the probe's squared (l1)
    # norm, d(z, x) = |x| + sum over z's entries of (|z_f - x_f|^p - |x_f|^p).
    norm = stats[0] if mode == 1 else stats[1]
    for j in range(start, stop):
        s = 0.0
        for p in range(z.indptr[j], z.indptr[j + 1]):
            x = xd[z.indices[p]]
            v = values[p] - x
            if mode == 1:
                s += v * v - x * x
            else:
                s += fabs(v) - fabs(x)
        s = s + norm
        out[j - start] = skp_clamp_log(-kern.gamma * (s if s > 0.0 else 0.0))


cdef int _transform(
    const Kernel* kern, const double* znorm, double x_norm, double* out,
    Py_ssize_t n,
) noexcept nogil:
    """Pass 2 of a column: turn the reductions ``out[:n]`` into kernel
    values (``znorm``: the rows' norms, ``x_norm``: the probe's, for
    "cosine").  Returns 1 if a value is not finite, else 0."""
    cdef Py_ssize_t j
    cdef double gamma = kern.gamma, coef0 = kern.coef0, s
    cdef int degree = <int> kern.degree
    if kern.kind == KERNEL_RBF or kern.kind == KERNEL_LAPLACIAN:
        # Clamped arguments: the values are finite.
        skp_exp_line(out, n)
        return 0
    if kern.kind == KERNEL_POLY:
        for j in range(n):
            out[j] = _int_power(gamma * out[j] + coef0, degree)
    elif kern.kind == KERNEL_SIGMOID:
        for j in range(n):
            out[j] = tanh(gamma * out[j] + coef0)
    elif kern.kind == KERNEL_COSINE:
        for j in range(n):
            s = znorm[j] * x_norm
            out[j] = out[j] / s if s > 0.0 else 0.0
    return skp_any_nonfinite(out, n)


cdef inline bint _probe_overflows(const Kernel* kern, const double* stats) noexcept nogil:
    """Whether the squared norm of a probe overflows, which would make its
    rbf distances meaningless (clamped, not infinite)."""
    return kern.kind == KERNEL_RBF and not stats[0] < INFINITY


cdef int _column(
    const floating* values, const Rows* z, Py_ssize_t start, Py_ssize_t stop,
    const double* xd, const double* stats, const Kernel* kern, double* out,
) noexcept nogil:
    """``out[j - start] = K(z_j, x)`` for the rows ``start <= j < stop`` of
    Z, with the probe ``x`` in ``xd`` and ``stats`` from
    :func:`_load_probe`.  Returns 1 if a value is not finite, else 0."""
    if _probe_overflows(kern, stats):
        return 1
    _reduce(values, z, start, stop, xd, stats, kern, out)
    return _transform(kern, z.znorm + start, stats[2], out, stop - start)


# -- scoring samples -----------------------------------------------------------

cdef inline void _rows_of(Rows* z, const MatrixView* m, const double* norms) noexcept:
    """The column loops' view of the rows of ``m`` (all of them tracked)."""
    z.indices = m.indices
    z.indptr = m.indptr
    z.sparse = m.sparse
    z.n_features = m.n_features
    z.n_z = m.n_rows
    z.track_from = 0
    z.n_track = m.n_rows
    z.znorm = norms


cdef struct Probe:
    # The work buffers of scoring one sample at a time against the rows of
    # Z: a dense probe (zeros between uses) and one column of kernel values.
    double* xd
    double* column
    float* column32


cdef int _decision(
    const floating* data, const Rows* x_rows, const floating* sv_data,
    const Rows* sv_rows, const Kernel* kern, const double[:, ::1] coef,
    double[:, ::1] out, Probe* work, bint single,
) noexcept nogil:
    """The loop of :func:`decision` over the samples."""
    cdef Py_ssize_t t, j, k, K = coef.shape[1], n_sv = sv_rows.n_z
    cdef double stats[3]
    cdef double s
    cdef int bad = 0
    cdef bint exponential = kern.kind == KERNEL_RBF or kern.kind == KERNEL_LAPLACIAN
    for t in range(x_rows.n_z):
        _load_probe(data, x_rows, t, work.xd, stats)
        if single and exponential:
            bad |= _probe_overflows(kern, stats)
            _reduce(sv_data, sv_rows, 0, n_sv, work.xd, stats, kern,
                    work.column)
            skp_exp_line_single(work.column, n_sv, work.column32)
            for j in range(n_sv):
                work.column[j] = work.column32[j]
        else:
            bad |= _column(sv_data, sv_rows, 0, n_sv, work.xd, stats, kern,
                           work.column)
        _unload_probe(x_rows, t, work.xd)
        for k in range(K):
            s = 0.0
            for j in range(n_sv):
                s += coef[j, k] * work.column[j]
            out[t, k] = s
    return bad


def decision(
    Matrix X, Matrix sv, const double[::1] sv_norm, Kernel kernel,
    const double[:, ::1] coef, double[:, ::1] out, bint single=False,
):
    """Write ``sum_j coef[j, k] * K(sv_j, x_t)`` to ``out[t, k]``.

    The samples ``x_t`` and the support vectors ``sv_j`` (norms ``sv_norm``
    from ``Kernel.norms``) may each be dense or CSR, in the same dtype;
    ``kernel`` is the struct of the kernel (a dict ``kind``, ``gamma``,
    ``coef0``, ``degree`` from Python).  One sample at a time: the extra
    memory is one kernel column and one dense probe.  With ``single``, the
    exponentials are those of a fit's cache lines (the scores a walk starts
    from).  Returns 1 if a kernel value is not finite, else 0."""
    cdef Rows x_rows, sv_rows
    cdef Probe work
    cdef int bad
    cdef Py_ssize_t n_sv = sv.view.n_rows
    cdef double[::1] xd = np.zeros(max(X.view.n_features, 1))
    cdef double[::1] column = np.zeros(max(n_sv, 1))
    cdef float[::1] column32 = np.zeros(max(n_sv, 1), dtype=np.float32)
    same_dtype(X, sv)
    if (coef.shape[0] != n_sv or out.shape[0] != X.view.n_rows
            or out.shape[1] != coef.shape[1] or sv_norm.shape[0] < 1):
        raise ValueError("decision: coef must be (n_sv, K) and out (n, K).")
    if n_sv == 0:
        out[:, :] = 0.0
        return 0
    _rows_of(&x_rows, &X.view, &sv_norm[0])
    _rows_of(&sv_rows, &sv.view, &sv_norm[0])
    work.xd = &xd[0]
    work.column = &column[0]
    work.column32 = &column32[0]
    with nogil:
        if X.view.float32:
            bad = _decision(<const float*> X.view.values, &x_rows,
                            <const float*> sv.view.values, &sv_rows, &kernel,
                            coef, out, &work, single)
        else:
            bad = _decision(<const double*> X.view.values, &x_rows,
                            <const double*> sv.view.values, &sv_rows, &kernel,
                            coef, out, &work, single)
    return bad


cdef int _kernel_rows(
    const floating* data, const Rows* x_rows, const floating* z_data,
    const Rows* z_rows, const Kernel* kern, double[:, ::1] out, double* xd,
) noexcept nogil:
    """The loop of :func:`kernel_rows` over the samples."""
    cdef Py_ssize_t t
    cdef double stats[3]
    cdef int bad = 0
    for t in range(x_rows.n_z):
        _load_probe(data, x_rows, t, xd, stats)
        bad |= _column(z_data, z_rows, 0, z_rows.n_z, xd, stats, kern,
                       &out[t, 0])
        _unload_probe(x_rows, t, xd)
    return bad


def kernel_rows(Matrix X, Matrix Z, const double[::1] z_norm, Kernel kernel,
                double[:, ::1] out):
    """Write the kernel matrix ``K(x_t, z_j)`` to ``out[t, j]`` (inputs as
    in :func:`decision`).  Returns 1 if a value is not finite, else 0."""
    cdef Rows x_rows, z_rows
    cdef int bad
    cdef double[::1] xd = np.zeros(max(X.view.n_features, 1))
    same_dtype(X, Z)
    if out.shape[0] != X.view.n_rows or out.shape[1] != Z.view.n_rows:
        raise ValueError("kernel_rows: out must be (n_X, n_Z).")
    if Z.view.n_rows == 0:
        return 0
    _rows_of(&x_rows, &X.view, &z_norm[0])
    _rows_of(&z_rows, &Z.view, &z_norm[0])
    with nogil:
        if X.view.float32:
            bad = _kernel_rows(<const float*> X.view.values, &x_rows,
                               <const float*> Z.view.values, &z_rows, &kernel,
                               out, &xd[0])
        else:
            bad = _kernel_rows(<const double*> X.view.values, &x_rows,
                               <const double*> Z.view.values, &z_rows, &kernel,
                               out, &xd[0])
    return bad


# -- what the kernels read about rows ------------------------------------------

def variance(const floating[::1] values):
    """The variance of ``values`` in float64 (0 when empty), as
    ``values.var()`` up to rounding, without a temporary array."""
    cdef double result = 0.0
    if values.shape[0] == 0:
        return 0.0
    with nogil:
        if floating is double:
            result = skp_variance_d(&values[0], values.shape[0])
        else:
            result = skp_variance_f(&values[0], values.shape[0])
    return result


cdef void _row_norms(const floating* data, const MatrixView* m,
                     double* out) noexcept nogil:
    cdef Py_ssize_t t, p, start, stop
    cdef double s
    for t in range(m.n_rows):
        if m.sparse:
            start, stop = m.indptr[t], m.indptr[t + 1]
        else:
            start, stop = t * m.n_features, (t + 1) * m.n_features
        s = 0.0
        for p in range(start, stop):
            s += <double> data[p] * data[p]
        out[t] = sqrt(s)


def row_norms(Matrix X, double[::1] out):
    """The euclidean norm of every row, accumulated in float64."""
    if out.shape[0] != X.view.n_rows:
        raise ValueError("row_norms: one entry of out per row.")
    if X.view.n_rows == 0:
        return
    with nogil:
        if X.view.float32:
            _row_norms(<const float*> X.view.values, &X.view, &out[0])
        else:
            _row_norms(<const double*> X.view.values, &X.view, &out[0])


cdef void _dense_sq_norms(const floating* data, const MatrixView* m,
                          double* work, double* out) noexcept nogil:
    cdef Py_ssize_t t, p, d = m.n_features
    for t in range(m.n_rows):
        for p in range(d):
            work[p] = data[t * d + p]
        out[t] = skp_dot_d(work, work, d)


def dense_sq_norms(Matrix X, double[::1] out):
    """The squared norm of every row of a dense matrix, in the order of the
    dense passes (what their "rbf" reads as the rows' squared norms)."""
    cdef double[::1] work = np.zeros(max(X.view.n_features, 1))
    if X.view.sparse or out.shape[0] != X.view.n_rows:
        raise ValueError("dense_sq_norms: a dense matrix, one entry of out "
                         "per row.")
    if X.view.n_rows == 0:
        return
    with nogil:
        if X.view.float32:
            _dense_sq_norms(<const float*> X.view.values, &X.view, &work[0],
                            &out[0])
        else:
            _dense_sq_norms(<const double*> X.view.values, &X.view, &work[0],
                            &out[0])
