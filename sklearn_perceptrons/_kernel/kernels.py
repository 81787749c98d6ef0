# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""What the estimators of the kernel family share: the kernels, the rows
they read, the dual scores ``sum_j coef[j] * K(sv_j, x)``, and the kernel
parameters.

The kernel values are computed by the compiled module ``kernel_fast`` (the
build of ``_kernel_fast`` that suits this CPU), whose codes (``KERNEL_*``)
are read from it here.
"""

import numbers

import numpy as np
import scipy.sparse as sp
from joblib import effective_n_jobs
from sklearn.utils._param_validation import Interval, StrOptions

from .._core.base import as_csr_int32
from .._core.cpu import select_build
from .._core.threads import run_tasks
from ._matrix import Matrix

kernel_fast = select_build(f"{__package__}._kernel_fast")

# The codes of the kernels, by name.
KERNEL_CODES = {
    "linear": kernel_fast.KERNEL_LINEAR,
    "poly": kernel_fast.KERNEL_POLY,
    "rbf": kernel_fast.KERNEL_RBF,
    "sigmoid": kernel_fast.KERNEL_SIGMOID,
    "laplacian": kernel_fast.KERNEL_LAPLACIAN,
    "cosine": kernel_fast.KERNEL_COSINE,
    "precomputed": kernel_fast.KERNEL_PRECOMPUTED,
}
KERNEL_PRECOMPUTED = kernel_fast.KERNEL_PRECOMPUTED
KERNEL_CALLABLE = kernel_fast.KERNEL_CALLABLE
# The codes of the budget strategies, by name.
STRATEGY_CODES = {
    "forgetron": kernel_fast.STRATEGY_FORGETRON,
    "random": kernel_fast.STRATEGY_RANDOM,
    "oldest": kernel_fast.STRATEGY_OLDEST,
    "projection": kernel_fast.STRATEGY_PROJECTION,
    "local_projection": kernel_fast.STRATEGY_LOCAL_PROJECTION,
}
# The exponential kernels: a fit keeps their kernel values in float32 cache
# lines, computed in single precision (see ``_kernel_core.pxi``).
SINGLE_PRECISION = (kernel_fast.KERNEL_RBF, kernel_fast.KERNEL_LAPLACIAN)
# The kernels that read gamma (the others ignore it, whatever its value).
GAMMA_KERNELS = frozenset({"poly", "rbf", "sigmoid", "laplacian"})

DUMMY_INT = np.zeros(1, dtype=np.int32)
DUMMY_DOUBLE = np.zeros(1)
MB = 2**20
# The largest cache_size (MB) accepted: a petabyte.
MAX_CACHE_MB = 1e9


# -- rows --------------------------------------------------------------------


def prepare_rows(X):
    """CSR with int32 indices and no duplicate entries (the compiled kernels
    scatter a row into a dense buffer); dense X is returned as is."""
    if not sp.issparse(X):
        return X
    X = as_csr_int32(X)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def view(X):
    """The rows of a C-ordered dense or a CSR X (int32 indices, see
    :func:`prepare_rows`) as the compiled code reads them (a ``Matrix``)."""
    return Matrix(X)


def parts(X):
    """(values, indices, indptr, sparse) of a C-ordered dense or a CSR X."""
    if sp.issparse(X):
        return X.data, X.indices, X.indptr, True
    return X.reshape(-1), DUMMY_INT, DUMMY_INT, False


def as_format_of(V, X):
    """Support vectors ``V`` in the format (dense / CSR) and dtype of ``X``."""
    if sp.issparse(X):
        return prepare_rows(sp.csr_matrix(V, dtype=X.dtype))
    if sp.issparse(V):
        V = V.toarray()
    return np.ascontiguousarray(V, dtype=X.dtype)


def stack_rows(V, X):
    """Rows of ``V`` (converted to the format of ``X``) followed by ``X``."""
    if V.shape[0] == 0:
        return X
    V = as_format_of(V, X)
    if sp.issparse(X):
        return prepare_rows(sp.vstack([V, X], format="csr"))
    return np.vstack([V, X])


def take_rows(X, rows):
    Z = X[rows]
    return prepare_rows(Z) if sp.issparse(Z) else np.ascontiguousarray(Z)


def rows_equal(A, B):
    if A.shape != B.shape:
        return False
    if sp.issparse(A) or sp.issparse(B):
        return (sp.csr_matrix(A) != sp.csr_matrix(B)).nnz == 0
    return np.array_equal(A, B)


def variance(X):
    """Variance of all entries of X (as ``X.var()``, as SVC's "scale"), in
    float64, in compiled passes without a temporary copy of X (X is
    C-ordered here)."""
    if sp.issparse(X):
        size = X.shape[0] * X.shape[1]
        data = X.data.astype(np.float64, copy=False)
        mean = data.sum() / size
        return max(np.dot(data, data) / size - mean * mean, 0.0)
    return kernel_fast.variance(X.reshape(-1))


def scale_gamma(X):
    """``1 / (n_features * X.var())`` (1.0 for a constant X, as SVC), exact
    also where the variance underflows or overflows: it is then computed on
    X / max|X|."""
    var = variance(X)
    if 1e-290 < var < 1e290:
        return 1.0 / (X.shape[1] * var)
    values = X.data if sp.issparse(X) else X
    top = float(np.abs(values).max()) if values.size else 0.0
    if top == 0.0:
        return 1.0
    var = variance(X / top if sp.issparse(X) else np.ascontiguousarray(X / top))
    if var == 0.0:
        return 1.0
    with np.errstate(over="ignore", under="ignore"):
        return 1.0 / (X.shape[1] * var) / top / top


# -- kernels -----------------------------------------------------------------


class Kernel:
    """A resolved kernel: its code, parameters and (for a callable) function."""

    def __init__(self, kernel, gamma, degree, coef0, kernel_params):
        self.function = kernel if callable(kernel) else None
        self.code = KERNEL_CALLABLE if callable(kernel) else KERNEL_CODES[kernel]
        self.gamma = float(gamma)
        self.degree = float(degree)
        self.coef0 = float(coef0)
        self.params = kernel_params or {}
        # The struct the compiled code reads.
        self.spec = {"kind": self.code, "gamma": self.gamma,
                     "coef0": self.coef0, "degree": self.degree}

    def norms(self, Z):
        """What the compiled kernels read about the rows of Z: their norms
        ("cosine"), or their squared norms (dense "rbf" with more than two
        features, which computes |z - x|^2 as |z|^2 + |x|^2 - 2 z.x)."""
        if Z.shape[0] == 0:
            return DUMMY_DOUBLE
        if self.code == KERNEL_CODES["cosine"]:
            out = np.empty(Z.shape[0])
            kernel_fast.row_norms(view(Z), out)
            return out
        if (self.code == KERNEL_CODES["rbf"] and not sp.issparse(Z)
                and Z.shape[1] != 2):
            out = np.empty(Z.shape[0])
            kernel_fast.dense_sq_norms(view(Z), out)
            if not np.isfinite(out).all():
                raise_nonfinite_kernel(self)
            return out
        return DUMMY_DOUBLE

    def call(self, A, B):
        """The callable kernel on (A, B), with its result checked; a sparse
        result (natural for a kernel of CSR rows) is a block of kernel
        values like any other, densified."""
        K = self.function(A, B, **self.params)
        K = K.toarray() if sp.issparse(K) else np.asarray(K)
        if np.iscomplexobj(K):
            raise ValueError(
                "The kernel callable returned complex values; a kernel must be "
                "real-valued."
            )
        K = K.astype(np.float64, copy=False)
        expected = (A.shape[0], B.shape[0])
        if K.shape != expected:
            raise ValueError(
                f"The kernel callable returned an array of shape {K.shape} for "
                f"inputs of {A.shape[0]} and {B.shape[0]} samples; expected "
                f"{expected}: k(A, B) must return the (n_A, n_B) kernel matrix."
            )
        if not np.isfinite(K).all():
            raise ValueError("The kernel callable returned non-finite values.")
        return K

    def matrix(self, X, Z):
        """The kernel matrix K(X, Z) as a float64 ndarray."""
        if self.code == KERNEL_CALLABLE:
            return self.call(X, Z)
        if self.code == KERNEL_PRECOMPUTED:
            return np.asarray(X, dtype=np.float64)
        X, Z = common_dtype(X, Z)
        out = np.zeros((X.shape[0], Z.shape[0]))
        bad = kernel_fast.kernel_rows(view(X), view(Z), self.norms(Z),
                                      self.spec, out)
        if bad:
            raise_nonfinite_kernel(self)
        return out


def common_dtype(X, Z):
    dtype = np.result_type(X.dtype, Z.dtype)
    if X.dtype != dtype:
        X = X.astype(dtype)
    if Z.dtype != dtype:
        Z = Z.astype(dtype)
    return X, Z


def raise_nonfinite_kernel(kernel):
    """A clear error for kernel values that overflowed, naming the values of
    the parameters that entered them."""
    if kernel.code == KERNEL_CODES["poly"]:
        where = (f"(gamma * <a, b> + coef0) ** degree with gamma_={kernel.gamma:g}, "
                 f"coef0={kernel.coef0:g}, degree={kernel.degree:g}")
        advice = "Scale the features, or lower degree, gamma or coef0."
    elif kernel.code == KERNEL_CODES["sigmoid"]:
        where = f"tanh(gamma * <a, b> + coef0) with gamma_={kernel.gamma:g}"
        advice = "Scale the features."
    elif kernel.code == KERNEL_PRECOMPUTED:
        where = "the precomputed Gram matrix"
        advice = "Pass a finite Gram matrix."
    else:
        where = "the dot products or squared norms of the samples"
        advice = "Scale the features."
    raise ValueError(
        f"The kernel produced non-finite values: floating-point overflow in "
        f"{where}. "
        f"{advice}"
    )


# -- dual scores -------------------------------------------------------------


# Multiply-adds of one block of dual scores (a few hundredths of a second):
# the compiled scoring runs without the GIL, and returns to Python, where a
# pending signal (Ctrl-C) is handled, between blocks.
BLOCK_WORK = 1 << 24

def row_blocks(n, n_blocks):
    """``n_blocks`` (at most ``n``) contiguous ranges ``(start, stop)`` that
    cover ``range(n)``."""
    if n_blocks <= 1 or n <= 1:
        # One block: what linspace gives, without its cost (most of a
        # one-row call's scoring).
        return [(0, n)]
    bounds = np.linspace(0, n, min(n_blocks, n) + 1).astype(np.intp)
    return list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))


def dual_scores(X, kernel, sv, sv_index, coef, cache_size, *, single=False,
                n_jobs=None, sv_norms=None):
    """``sum_j coef[j, k] * K(sv_j, x)`` for every row x of X, in chunks.

    ``sv_index`` are the columns of a precomputed X that belong to the
    support vectors; ``single``: the kernel values of a fit (see
    ``SINGLE_PRECISION``), for the scores a walk starts from; ``n_jobs``:
    threads scoring blocks of rows (every row is scored by the same
    arithmetic whatever its block, so the result does not depend on it);
    ``sv_norms``: ``kernel.norms(sv)`` when the caller keeps them.
    Returns an (n_samples, n_rows) float64 array.
    """
    n, n_rows = X.shape[0], coef.shape[1]
    n_sv = coef.shape[0]
    if n == 0 or n_sv == 0:
        return np.zeros((n, n_rows))
    # One row is one block whatever n_jobs: joblib's lookup is not needed.
    n_jobs = 1 if n == 1 else effective_n_jobs(n_jobs)
    out = np.empty((n, n_rows))
    if kernel.code in (KERNEL_CALLABLE, KERNEL_PRECOMPUTED):
        # Python-level kernels: bounded blocks of K(X, sv) times coef (the
        # same blocks whatever n_jobs, so that BLAS sums in the same order).
        chunk = max(1, int(cache_size * MB // (8 * n_sv)))

        def score_block(start, stop):
            block = X[start:stop]
            if kernel.code == KERNEL_CALLABLE:
                gram = kernel.call(block, sv)
            else:
                gram = np.asarray(block[:, sv_index], dtype=np.float64)
            out[start:stop] = gram @ coef

        run_tasks(score_block,
                  [(a, min(a + chunk, n)) for a in range(0, n, chunk)], n_jobs)
        return out
    X, sv = common_dtype(X, sv)
    if sv_norms is None:
        sv_norms = kernel.norms(sv)
    rows, sv_rows = view(X), view(sv)

    def score_block(start, stop):
        return kernel_fast.decision(rows.rows(start, stop), sv_rows, sv_norms,
                                    kernel.spec, coef, out[start:stop], single)

    # A few blocks per thread, so that a thread slowed down by other work
    # on the machine does not hold up the others; and blocks of at most
    # BLOCK_WORK multiply-adds (a kernel value costs a row of a support
    # vector, then one multiply-add per one-vs-all row), so that Ctrl-C
    # stops a long call within one of them.
    width = sv.nnz / n_sv if sp.issparse(sv) else X.shape[1]
    rows_per_block = max(1, int(BLOCK_WORK // (n_sv * (width + n_rows + 1))))
    blocks = row_blocks(n, max(1 if n_jobs <= 1 else 4 * n_jobs,
                               -(-n // rows_per_block)))
    if any(run_tasks(score_block, blocks, n_jobs)):
        raise_nonfinite_kernel(kernel)
    return out


# -- the kernel parameters of an estimator -----------------------------------


class KernelMixin:
    """What the estimators with a kernel share: the constraints of the kernel
    parameters (``kernel``, ``degree``, ``gamma``, ``coef0``,
    ``kernel_params``, ``cache_size``; merge them into
    ``_parameter_constraints``), the tags of a precomputed kernel, the value
    of ``gamma``, and the resolved :class:`Kernel`.  Put it before the base
    estimator in the bases."""

    kernel_parameter_constraints = {
        "kernel": [StrOptions(set(KERNEL_CODES)), callable],
        "degree": [Interval(numbers.Integral, 0, np.iinfo(np.int32).max,
                            closed="both")],
        "gamma": [
            StrOptions({"scale", "auto"}),
            Interval(numbers.Real, 0, None, closed="left"),
        ],
        "coef0": [Interval(numbers.Real, None, None, closed="neither")],
        "kernel_params": [dict, None],
        "cache_size": [Interval(numbers.Real, 0, MAX_CACHE_MB, closed="right")],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = self.kernel != "precomputed"
        return tags

    def _kernel(self, gamma):
        return Kernel(self.kernel, gamma, self.degree, self.coef0,
                      self.kernel_params)

    def _resolve_gamma(self, X):
        """The value of ``gamma`` on X.  "scale" out of the range of float64
        (X of extreme variance) is an error only for a kernel that reads it."""
        if not isinstance(self.gamma, str):
            return float(self.gamma)
        if self.gamma == "auto":
            return 1.0 / X.shape[1]
        gamma = scale_gamma(X)
        if (isinstance(self.kernel, str) and self.kernel in GAMMA_KERNELS
                and not np.finfo(np.float64).tiny <= gamma < np.inf):
            limit = "below" if gamma == np.inf else "above"
            raise ValueError(
                f"gamma='scale' is 1 / (n_features * X.var()), which is {gamma} "
                f"in float64: the variance of X is {limit} the range of float64. "
                "Scale the features, or pass gamma as a float."
            )
        return gamma

    def _validate_kernel_fit_data(self, X, y, sample_weight):
        """``_validate_fit_data`` for a kernel: a precomputed Gram matrix must
        be dense and square; the rows come back ready for the compiled walk
        (see :func:`prepare_rows`)."""
        self._reject_sparse_gram(X)
        X, classes, y_class, sample_weight = self._validate_fit_data(
            X, y, sample_weight
        )
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"kernel='precomputed' needs a square Gram matrix in fit; got "
                f"a {X.shape[0]}x{X.shape[1]} matrix."
            )
        return prepare_rows(X), classes, y_class, sample_weight

    def _reject_sparse_gram(self, X):
        if self.kernel == "precomputed" and sp.issparse(X):
            raise TypeError(
                "kernel='precomputed' needs a dense Gram matrix; got a sparse "
                "matrix. Convert it with X.toarray()."
            )
