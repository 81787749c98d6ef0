# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The kernelized (dual) perceptron: :class:`KernelPerceptron`.

The Python layer owns the parameters, the validation, the labels, the support
set between calls and the stopping rules; the compiled walk
(``_kernel_core.pxi``, built as ``_kernel_fast`` and its AVX2 twin) owns the
epoch: see its docstring for the algorithm and the column cache.
"""

import dataclasses
import copy
import numbers
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp
from joblib import effective_n_jobs
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _num_samples, check_is_fitted, validate_data

from . import budget as _kernel_budget
from .._core.cpu import select_build
from .._core.base import (
    N_JOBS_CONSTRAINT,
    BasePerceptron,
    fit_method,
    fork,
    keep_state_on_error,
    partial_fit_context,
    set_init_params,
    stream_cache,
)
from .._core.docstrings import shared_doc
from .._core.growth import register_flip, reindex_rows
from .._core.callbacks import fit_tasks, model_attributes
from .._core.progress import FitLog, chunks
from .stream import KernelStream
from .._core.base import as_csr_int32
from .._core.tables import crammer_singer_table, one_vs_all_table
from .._core.threads import run_tasks
from .._core.training import StoppingRule, record_partial_pass, set_fit_results, train

_kernel_fast = select_build(f"{__package__}._kernel_fast")

# Mirrors of the enums of _kernel_fast.pyx.
_KERNEL_CODES = {
    "linear": 0,
    "poly": 1,
    "rbf": 2,
    "sigmoid": 3,
    "laplacian": 4,
    "cosine": 5,
    "precomputed": 6,
}
_PRECOMPUTED = 6
_CALLABLE = 7
# The kernels that read gamma (the others ignore it, whatever its value).
_GAMMA_KERNELS = frozenset({"poly", "rbf", "sigmoid", "laplacian"})
# The exponential kernels: a fit keeps their kernel values in float32 cache
# lines, computed in single precision (see ``_kernel_fast``).
_SINGLE_PRECISION = (_KERNEL_CODES["rbf"], _KERNEL_CODES["laplacian"])
# The projection strategies reach this walk only with a budget that cannot
# bind (see ``_kernel_budget.applies``).
# Update rules of the walk (mirrors of ``_kernel_core.pxi``), by
# ``(multi_class, update)``; "ovr" is the one-vs-all table.
_RULE_CODES = {("crammer_singer", "max"): 1, ("crammer_singer", "uniform"): 2}
_STRATEGY_CODES = {"forgetron": 0, "random": 1, "oldest": 2, "projection": 0,
                   "local_projection": 0}
_STATUS_DONE = 0
_STATUS_NEED_COLUMN = 1
_STATUS_NONFINITE_KERNEL = 2
_STATUS_NONFINITE_SCORE = 3
# Indices of the walk's int64 counters.
_C_N_SV = 0
_C_CLOCK = 1
_C_MAX_SV = 2
_C_LINES_USED = 4
# Lines of the walk's cache after the LRU lines (mirror of ``SCRATCH_LINES``).
_SCRATCH_LINES = 4

_DUMMY_INT = np.zeros(1, dtype=np.int32)
_DUMMY_DOUBLE = np.zeros(1)
_MB = 2**20
# The largest cache_size (MB) accepted: a petabyte.
_MAX_CACHE_MB = 1e9


# -- rows and kernels --------------------------------------------------------


def _prepare_rows(X):
    """CSR with int32 indices and no duplicate entries (the compiled kernels
    scatter a row into a dense buffer); dense X is returned as is."""
    if not sp.issparse(X):
        return X
    X = as_csr_int32(X)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def _parts(X):
    """(values, indices, indptr, sparse) of a C-ordered dense or a CSR X."""
    if sp.issparse(X):
        return X.data, X.indices, X.indptr, True
    return X.reshape(-1), _DUMMY_INT, _DUMMY_INT, False


def _as_format_of(V, X):
    """Support vectors ``V`` in the format (dense / CSR) and dtype of ``X``."""
    if sp.issparse(X):
        return _prepare_rows(sp.csr_matrix(V, dtype=X.dtype))
    if sp.issparse(V):
        V = V.toarray()
    return np.ascontiguousarray(V, dtype=X.dtype)


def _stack_rows(V, X):
    """Rows of ``V`` (converted to the format of ``X``) followed by ``X``."""
    if V.shape[0] == 0:
        return X
    V = _as_format_of(V, X)
    if sp.issparse(X):
        return _prepare_rows(sp.vstack([V, X], format="csr"))
    return np.vstack([V, X])


def _take_rows(X, rows):
    Z = X[rows]
    return _prepare_rows(Z) if sp.issparse(Z) else np.ascontiguousarray(Z)


def _rows_equal(A, B):
    if A.shape != B.shape:
        return False
    if sp.issparse(A) or sp.issparse(B):
        return (sp.csr_matrix(A) != sp.csr_matrix(B)).nnz == 0
    return np.array_equal(A, B)


def _variance(X):
    """Variance of all entries of X (as ``X.var()``, as SVC's "scale"), in
    float64, in compiled passes without a temporary copy of X (X is
    C-ordered here)."""
    if sp.issparse(X):
        size = X.shape[0] * X.shape[1]
        data = X.data.astype(np.float64, copy=False)
        mean = data.sum() / size
        return max(np.dot(data, data) / size - mean * mean, 0.0)
    return _kernel_fast.variance(X.reshape(-1))


def _scale_gamma(X):
    """``1 / (n_features * X.var())`` (1.0 for a constant X, as SVC), exact
    also where the variance underflows or overflows: it is then computed on
    X / max|X|."""
    variance = _variance(X)
    if 1e-290 < variance < 1e290:
        return 1.0 / (X.shape[1] * variance)
    values = X.data if sp.issparse(X) else X
    top = float(np.abs(values).max()) if values.size else 0.0
    if top == 0.0:
        return 1.0
    variance = _variance(X / top if sp.issparse(X) else np.ascontiguousarray(X / top))
    if variance == 0.0:
        return 1.0
    with np.errstate(over="ignore", under="ignore"):
        return 1.0 / (X.shape[1] * variance) / top / top


class _Kernel:
    """A resolved kernel: its code, parameters and (for a callable) function."""

    def __init__(self, kernel, gamma, degree, coef0, kernel_params):
        self.function = kernel if callable(kernel) else None
        self.code = _CALLABLE if callable(kernel) else _KERNEL_CODES[kernel]
        self.gamma = float(gamma)
        self.degree = float(degree)
        self.coef0 = float(coef0)
        self.params = kernel_params or {}

    def norms(self, Z):
        """What the compiled kernels read about the rows of Z: their norms
        ("cosine"), or their squared norms (dense "rbf" with more than two
        features, which computes |z - x|^2 as |z|^2 + |x|^2 - 2 z.x)."""
        if Z.shape[0] == 0:
            return _DUMMY_DOUBLE
        values, _, indptr, sparse = _parts(Z)
        if self.code == _KERNEL_CODES["cosine"]:
            out = np.empty(Z.shape[0])
            _kernel_fast.row_norms(values, indptr, sparse, Z.shape[0], Z.shape[1],
                                   out)
            return out
        if self.code == _KERNEL_CODES["rbf"] and not sparse and Z.shape[1] != 2:
            out = np.empty(Z.shape[0])
            _kernel_fast.dense_sq_norms(values, Z.shape[0], Z.shape[1], out)
            if not np.isfinite(out).all():
                _raise_nonfinite_kernel(self)
            return out
        return _DUMMY_DOUBLE

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
        if self.code == _CALLABLE:
            return self.call(X, Z)
        if self.code == _PRECOMPUTED:
            return np.asarray(X, dtype=np.float64)
        X, Z = _common_dtype(X, Z)
        out = np.zeros((X.shape[0], Z.shape[0]))
        bad = _kernel_fast.kernel_rows(
            *_parts(X), X.shape[0], *_parts(Z), Z.shape[0], X.shape[1],
            self.norms(Z), self, out,
        )
        if bad:
            _raise_nonfinite_kernel(self)
        return out


def _common_dtype(X, Z):
    dtype = np.result_type(X.dtype, Z.dtype)
    if X.dtype != dtype:
        X = X.astype(dtype)
    if Z.dtype != dtype:
        Z = Z.astype(dtype)
    return X, Z


def _raise_nonfinite_kernel(kernel):
    """A clear error for kernel values that overflowed, naming the values of
    the parameters that entered them."""
    if kernel.code == _KERNEL_CODES["poly"]:
        where = (f"(gamma * <a, b> + coef0) ** degree with gamma_={kernel.gamma:g}, "
                 f"coef0={kernel.coef0:g}, degree={kernel.degree:g}")
        advice = "Scale the features, or lower degree, gamma or coef0."
    elif kernel.code == _KERNEL_CODES["sigmoid"]:
        where = f"tanh(gamma * <a, b> + coef0) with gamma_={kernel.gamma:g}"
        advice = "Scale the features."
    elif kernel.code == _PRECOMPUTED:
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


# Multiply-adds of one block of dual scores (a few hundredths of a second):
# the compiled scoring runs without the GIL, and returns to Python, where a
# pending signal (Ctrl-C) is handled, between blocks.
BLOCK_WORK = 1 << 24


def _row_blocks(n, n_blocks):
    """``n_blocks`` (at most ``n``) contiguous ranges ``(start, stop)`` that
    cover ``range(n)``."""
    if n_blocks <= 1 or n <= 1:
        # One block: what linspace gives, without its cost (most of a
        # one-row call's scoring).
        return [(0, n)]
    bounds = np.linspace(0, n, min(n_blocks, n) + 1).astype(np.intp)
    return list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))


def _run_blocks(score_block, blocks, n_jobs):
    """``score_block(start, stop)`` for every block, on ``n_jobs`` threads
    of the package's pool when more than one (the compiled scoring releases
    the GIL); returns the results in block order."""
    return run_tasks(score_block, blocks, n_jobs)


def _dual_scores(X, kernel, sv, sv_index, coef, cache_size, *, single=False,
                 n_jobs=None, sv_norms=None):
    """``sum_j coef[j, k] * K(sv_j, x)`` for every row x of X, in chunks.

    ``sv_index`` are the columns of a precomputed X that belong to the
    support vectors; ``single``: the kernel values of a fit (see
    ``_SINGLE_PRECISION``), for the scores a walk starts from; ``n_jobs``:
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
    if kernel.code in (_CALLABLE, _PRECOMPUTED):
        # Python-level kernels: bounded blocks of K(X, sv) times coef (the
        # same blocks whatever n_jobs, so that BLAS sums in the same order).
        chunk = max(1, int(cache_size * _MB // (8 * n_sv)))

        def score_block(start, stop):
            block = X[start:stop]
            if kernel.code == _CALLABLE:
                gram = kernel.call(block, sv)
            else:
                gram = np.asarray(block[:, sv_index], dtype=np.float64)
            out[start:stop] = gram @ coef

        _run_blocks(score_block, [(a, min(a + chunk, n)) for a in range(0, n, chunk)],
                    n_jobs)
        return out
    X, sv = _common_dtype(X, sv)
    if sv_norms is None:
        sv_norms = kernel.norms(sv)
    sv_parts = (*_parts(sv), n_sv, X.shape[1], sv_norms, kernel)
    values, indices, indptr, sparse = _parts(X)
    n_features = X.shape[1]

    def score_block(start, stop):
        # Views of the rows start:stop (CSR: indptr keeps absolute offsets).
        if sparse:
            rows = (values, indices, indptr[start : stop + 1], True)
        else:
            rows = (values[start * n_features : stop * n_features], indices,
                    indptr, False)
        return _kernel_fast.decision(
            *rows, stop - start, *sv_parts, coef, out[start:stop], single,
        )

    # A few blocks per thread, so that a thread slowed down by other work
    # on the machine does not hold up the others; and blocks of at most
    # BLOCK_WORK multiply-adds (a kernel value costs a row of a support
    # vector, then one multiply-add per one-vs-all row), so that Ctrl-C
    # stops a long call within one of them.
    width = sv.nnz / n_sv if sp.issparse(sv) else n_features
    rows_per_block = max(1, int(BLOCK_WORK // (n_sv * (width + n_rows + 1))))
    blocks = _row_blocks(n, max(1 if n_jobs <= 1 else 4 * n_jobs,
                                -(-n // rows_per_block)))
    if any(_run_blocks(score_block, blocks, n_jobs)):
        _raise_nonfinite_kernel(kernel)
    return out


# -- the state of a dual perceptron between calls ---------------------------


@dataclasses.dataclass(eq=False, kw_only=True)
class _DualState:
    """Support vectors and dual coefficients of the current iterate.

    ``alpha`` is (n_SV, n_rows) (the transpose of ``dual_coef_``); with
    averaging, ``alpha_sum`` and ``visits`` hold Daume's sums so that the
    average is ``alpha - alpha_sum / visits``.  ``sv_index`` are the indices
    of the support vectors in the training set of the last ``fit`` (-1 for
    support vectors that are not rows of it), ``sv_time`` the time of their
    last update (the order of the "oldest" strategies), ``clock`` the number
    of updates so far, ``forget`` the Forgetron's damage and mistakes per row
    (shape (2, n_rows)), ``rng`` the generator state of the "random"
    strategy, ``sv_scores`` the scores of the support vectors (None when not
    tracked) and ``sv_order`` the order of the support vectors in the walk's
    list (the "random" strategy draws a position in it).
    """

    sv: object
    sv_class: object
    sv_index: object
    alpha: object
    alpha_sum: object
    visits: object
    sv_time: object
    clock: int
    forget: object
    rng: int
    sv_scores: object
    sv_order: object

    def restore_counters(self, counters, clock_index, forget, rng, visits, *,
                         keep_average):
        """Copy the clock, the Forgetron's state, the generator state and,
        with ``keep_average``, the visit counts into a walker's arrays."""
        counters[clock_index] = self.clock
        forget[:] = self.forget
        rng[0] = np.uint64(self.rng)
        if keep_average:
            visits[:] = self.visits

    @classmethod
    def empty(cls, X, n_rows, rng):
        """No support vector yet, in the format and dtype of X."""
        shape = (0, X.shape[1])
        sv = sp.csr_matrix(shape, dtype=X.dtype) if sp.issparse(X) else np.empty(
            shape, dtype=X.dtype)
        return cls(
            sv=sv, sv_class=np.empty(0, dtype=np.int32),
            sv_index=np.empty(0, dtype=np.intp), alpha=np.empty((0, n_rows)),
            alpha_sum=np.empty((0, n_rows)), visits=np.zeros(n_rows),
            sv_time=np.empty(0, dtype=np.int64), clock=0,
            forget=np.zeros((2, n_rows)), rng=rng, sv_scores=np.empty((0, n_rows)),
            sv_order=np.empty(0, dtype=np.intp),
        )

    def model(self, average):
        """Dual coefficients (n_SV, n_rows) of the predictor: the average of
        the iterates over all visits, or the last iterate."""
        if not average:
            return self.alpha.copy()
        return self.alpha - self.alpha_sum / np.maximum(self.visits, 1.0)


class _DualWalk:
    """The arrays of one fit (or one ``partial_fit`` call) of the compiled walk.

    Z is the matrix of all rows the walk knows: the support vectors carried
    over from earlier calls (rows ``< n_ext``), then the training rows.  The
    arrays are grouped as ``_kernel_fast.Walker`` reads them (``rows``,
    ``samples``, ``dual``, ``cache``) and updated in place by the walk.
    """

    def __init__(self, Z, y_class, step, table, n_rows, kernel, *, add, threshold,
                 average, budget, strategy, track_from, cache_size, passes,
                 rule=0):
        n_z = Z.shape[0]
        self.Z = Z
        self.kernel = kernel
        self.add = add
        self.track_from = track_from
        self.average = average
        values, indices, indptr, sparse = _parts(Z)
        self.rows = SimpleNamespace(
            values=values, indices=indices, indptr=indptr, sparse=sparse,
            n_features=Z.shape[1], n_z=n_z, track_from=track_from,
            znorm=kernel.norms(Z),
        )
        rows_ptr, rows, signs = table
        self.y_class = np.ascontiguousarray(y_class, dtype=np.int32)
        self.samples = SimpleNamespace(
            y_class=self.y_class, step=np.ascontiguousarray(step, dtype=np.float64),
            rows_ptr=rows_ptr, rows=rows, signs=signs, threshold=float(threshold),
            add=float(add), rule=rule,
        )
        # (n_z, n_rows) in Fortran order: the walk reads its transpose, one
        # contiguous line of scores per sub-problem.
        self.scores = np.zeros((n_z, n_rows), order="F")
        self.alpha = np.zeros((n_z, n_rows))
        self.alpha_sum = np.zeros((n_z, n_rows) if average else (1, 1))
        self.visits = np.zeros(n_rows)
        self.in_support = np.zeros(n_z, dtype=np.uint8)
        self.sv_list = np.zeros(n_z, dtype=np.int32)
        self.last_time = np.zeros(n_z, dtype=np.int64)
        self.counters = np.zeros(5, dtype=np.int64)
        self.forget = np.zeros((2, n_rows))
        self.rng = np.zeros(1, dtype=np.uint64)
        # A budget of at least n_z is never reached.
        budget = -1 if budget is None else min(int(budget), n_z)
        self.dual = SimpleNamespace(
            scores=self.scores.T, alpha=self.alpha, average=average,
            alpha_sum=self.alpha_sum, visits=self.visits,
            in_support=self.in_support, sv_list=self.sv_list,
            sv_pos=np.full(n_z, -1, dtype=np.int32), last_time=self.last_time,
            counters=self.counters, budget=budget,
            strategy=_STRATEGY_CODES[strategy], forget=self.forget, rng=self.rng,
        )
        self.cache = self._make_cache(cache_size, passes)
        self._compiled = None

    def _make_cache(self, cache_size, passes):
        n_z = self.Z.shape[0]
        n_track = n_z - self.track_from
        cache_bytes = float(cache_size) * _MB
        # The exponential kernels keep their lines in single precision.
        self.single = self.kernel.code in _SINGLE_PRECISION
        line_bytes = (4 if self.single else 8) * max(n_track, 1)
        if self.kernel.code == _PRECOMPUTED:
            # Columns are read from the Gram matrix X itself.
            capacity = 0
        else:
            capacity = int(min(cache_bytes // line_bytes, n_z))
            if self.kernel.code == _CALLABLE:
                # A visit may need two columns at once, both from the LRU lines.
                capacity = max(capacity, 2)
        # ``capacity`` LRU lines, then scratch lines; in single precision,
        # double lines where the exponent arguments of columns are computed.
        shape = (capacity + _SCRATCH_LINES, max(n_track, 1))
        cache = SimpleNamespace(
            lines=np.empty((_SCRATCH_LINES, shape[1]) if self.single else shape),
            lines32=np.empty(shape, dtype=np.float32) if self.single else None,
            line_of_row=np.full(n_z, -1, dtype=np.int32),
            row_of_line=np.full(max(capacity, 1), -1, dtype=np.int32),
            line_used=np.zeros(max(capacity, 1), dtype=np.int64),
            seen=np.zeros(n_z, dtype=np.uint8),
            # A column enters the cache on its first use when the samples will
            # be visited again (several epochs), else on its second use.
            admit_first=passes > 1,
        )
        if (self.kernel.code == _CALLABLE and capacity >= n_z
                and 8.0 * n_z * n_track <= cache_bytes):
            # The Gram matrix fits: one call of the callable fills the cache.
            cache.lines[:n_z] = self.kernel.call(self.Z[self.track_from:], self.Z).T
            cache.line_of_row[:] = np.arange(n_z, dtype=np.int32)
            cache.row_of_line[:n_z] = np.arange(n_z, dtype=np.int32)
            self.counters[_C_LINES_USED] = n_z
        return cache

    def load(self, state, rows, *, keep_average):
        """Start from the iterate ``state`` whose support vectors are the Z
        rows ``rows``; averaging restarts unless ``keep_average``."""
        m = rows.shape[0]
        state.restore_counters(self.counters, _C_CLOCK, self.forget, self.rng,
                               self.visits, keep_average=keep_average)
        if m == 0:
            return
        self.alpha[rows] = state.alpha
        if self.average and keep_average:
            self.alpha_sum[rows] = state.alpha_sum
        self.in_support[rows] = 1
        listed = rows[state.sv_order]
        self.sv_list[:m] = listed
        self.dual.sv_pos[listed] = np.arange(m, dtype=np.int32)
        self.last_time[rows] = state.sv_time
        self.counters[_C_N_SV] = m
        self.counters[_C_MAX_SV] = m

    def _walker(self):
        """The compiled walker over these arrays, made on the first pass
        (after ``load``) and kept for the next ones."""
        if self._compiled is None:
            self._compiled = _kernel_fast.Walker(
                self.rows, self.kernel, self.samples, self.dual, self.cache)
        return self._compiled

    def run(self, order, active, progress=None):
        """One walk over the Z rows ``order``; returns the updates per row.
        With ``progress``, the walk goes in chunks of visits
        (:func:`~sklearn_perceptrons._core.progress.chunks`) and calls
        ``progress(visited, updates)`` between them; the result is the
        same bit for bit (a chunk ends with no update waiting, as a walk
        stopped for a callable's column does)."""
        updates = np.zeros(self.scores.shape[1], dtype=np.int64)
        n = order.shape[0]
        if n == 0:
            return updates
        walker = self._walker()
        for start, stop in [(0, n)] if progress is None else chunks(n):
            self._run_part(walker, order[start:stop], active, updates)
            if progress is not None and stop < n:
                progress(stop, updates)
        return updates

    def _run_part(self, walker, order, active, updates):
        t = 0
        while True:
            status, t, row = walker.run(order, t, active, updates)
            if status == _STATUS_DONE:
                return
            if status == _STATUS_NEED_COLUMN:
                self._store_callable_column(row)
            elif status == _STATUS_NONFINITE_KERNEL:
                _raise_nonfinite_kernel(self.kernel)
            else:
                raise ValueError(
                    "The scores of the training samples became non-finite "
                    "(floating-point overflow). Scale the features or lower "
                    "gamma / degree, or the sample and class weights."
                )

    def _store_callable_column(self, row):
        column = self.kernel.call(self.Z[self.track_from:], self.Z[row : row + 1])
        _kernel_fast.cache_store(np.ascontiguousarray(column[:, 0]), row,
                                 self.cache, self.counters)

    def weight_norm(self):
        """||f||, over all rows, in the (padded) kernel space: sum over the
        support vectors of alpha * score (their scores are tracked in fit)."""
        rows = self.sv_list[: self.counters[_C_N_SV]]
        rows = rows[rows >= self.track_from]
        return float(np.sqrt(max(np.sum(self.alpha[rows] * self.scores[rows]), 0.0)))

    @property
    def max_support_seen(self):
        return int(self.counters[_C_MAX_SV])

    def result(self, n_ext, *, training_rows):
        """The iterate as a :class:`_DualState`, support vectors in the order
        of the rows of Z.  With ``training_rows`` (``fit``), ``sv_index`` is
        the index in X (``row - n_ext``, -1 for carried-over rows), else -1."""
        listed = self.sv_list[: self.counters[_C_N_SV]]
        # The support vectors in row order, and where each listed one goes
        # (O(n_z) flags and scatters instead of a sort and a search).
        rows = np.flatnonzero(self.in_support)
        position = np.empty(self.in_support.shape[0], dtype=np.intp)
        position[rows] = np.arange(rows.shape[0])
        if training_rows:
            sv_index = rows if n_ext == 0 else np.where(
                rows >= n_ext, rows - n_ext, -1)
        else:
            sv_index = np.full(rows.shape[0], -1, dtype=np.intp)
        return _DualState(
            sv=_take_rows(self.Z, rows),
            sv_class=self.y_class[rows],
            sv_index=sv_index,
            alpha=self.alpha[rows],
            alpha_sum=self.alpha_sum[rows] if self.average else np.zeros_like(
                self.alpha[rows]),
            visits=self.visits.copy(),
            sv_time=self.last_time[rows],
            clock=int(self.counters[_C_CLOCK]),
            forget=self.forget.copy(),
            rng=int(self.rng[0]),
            sv_scores=self.scores[rows] if self.track_from == 0 else None,
            sv_order=position[listed],
        )


class _WalkTrainer:
    """The dual walk as a trainer of :func:`sklearn_perceptrons._training.train`.

    With a budget and several rows, a removal takes a support vector away
    from every row, so the rows share one stopping rule (``coupled``): the
    driver then sees one row, the total of the updates.
    """

    reports_progress = True

    def __init__(self, walk, n_rows, coupled):
        self.walk = walk
        self.coupled = coupled
        self.n_rows = 1 if coupled else n_rows
        self._repeat = n_rows

    def run_epoch(self, order, active, progress=None):
        if self.coupled:
            return self.walk.run(order, np.repeat(active, self._repeat),
                                 progress).sum(keepdims=True)
        return self.walk.run(order, active, progress)

    def weight_norm(self):
        return self.walk.weight_norm()


def _not_precomputed(estimator):
    """``partial_fit`` exists unless the kernel is precomputed: the kernel
    between a new sample and earlier support vectors would be unknown."""
    if estimator.kernel == "precomputed":
        raise AttributeError(
            "partial_fit is not available with kernel='precomputed': the kernel "
            "between a new sample and the support vectors is not known. Use "
            "fit, or a callable kernel."
        )
    return True


class KernelMixin:
    """What the estimators with a kernel share: the constraints of the kernel
    parameters (``kernel``, ``degree``, ``gamma``, ``coef0``,
    ``kernel_params``, ``cache_size``; merge them into
    ``_parameter_constraints``), the tags of a precomputed kernel, the value
    of ``gamma``, and the resolved :class:`_Kernel`.  Put it before the base
    estimator in the bases."""

    kernel_parameter_constraints = {
        "kernel": [StrOptions(set(_KERNEL_CODES)), callable],
        "degree": [Interval(numbers.Integral, 0, np.iinfo(np.int32).max,
                            closed="both")],
        "gamma": [
            StrOptions({"scale", "auto"}),
            Interval(numbers.Real, 0, None, closed="left"),
        ],
        "coef0": [Interval(numbers.Real, None, None, closed="neither")],
        "kernel_params": [dict, None],
        "cache_size": [Interval(numbers.Real, 0, _MAX_CACHE_MB, closed="right")],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = self.kernel != "precomputed"
        return tags

    def _kernel(self, gamma):
        return _Kernel(self.kernel, gamma, self.degree, self.coef0,
                       self.kernel_params)

    def _resolve_gamma(self, X):
        """The value of ``gamma`` on X.  "scale" out of the range of float64
        (X of extreme variance) is an error only for a kernel that reads it."""
        if not isinstance(self.gamma, str):
            return float(self.gamma)
        if self.gamma == "auto":
            return 1.0 / X.shape[1]
        gamma = _scale_gamma(X)
        if (isinstance(self.kernel, str) and self.kernel in _GAMMA_KERNELS
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
        return _prepare_rows(X), classes, y_class, sample_weight

    def _reject_sparse_gram(self, X):
        if self.kernel == "precomputed" and sp.issparse(X):
            raise TypeError(
                "kernel='precomputed' needs a dense Gram matrix; got a sparse "
                "matrix. Convert it with X.toarray()."
            )


@shared_doc
class KernelPerceptron(KernelMixin, BasePerceptron):
    """The kernel perceptron: a perceptron in the feature space of a kernel.

    Learns ``f(x) = sum_j dual_coef_[j] * K(support_vectors_[j], x) +
    intercept_`` by the perceptron rule in its dual form: when a training
    sample is misclassified (``s * f(x_i) <= threshold``, with s = +1 for
    ``classes_[1]`` and -1 otherwise), it becomes a support vector, or its
    coefficient grows by ``s`` times its weight.  Like :class:`~sklearn.svm.SVC`
    it learns non-linear boundaries (rbf, polynomial, ... kernels), but it
    makes a few passes over the data instead of solving a quadratic program,
    and it can learn online (``partial_fit``) and on a fixed budget of
    support vectors.  More than two classes are learned one-vs-all over one
    shared set of support vectors.

    **Cost.**  ``fit`` keeps every training sample's score up to date: an
    epoch costs one look-up per sample plus, per mistake, one kernel column
    (O(n_samples * n_features); on dense X, new columns are computed four
    per read of X).  Columns are cached (``cache_size``); the
    whole n x n Gram matrix is formed only when it fits there.  ``predict``
    costs O(n_support * n_features) per sample, in bounded memory.

    **When to use it.**  For non-linear problems of up to some tens of
    thousands of samples, where SVC is too slow or a model that can keep
    learning is needed; the averaged model (the default) gives accuracy
    close to SVC's.  For large data, set ``budget``; for linear problems,
    :class:`Perceptron` is faster.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf", "sigmoid", "laplacian", "cosine", \
"precomputed"} or callable, default="rbf"
        The kernel: ``<a, b>``; ``(gamma <a, b> + coef0) ** degree``;
        ``exp(-gamma ||a - b||^2)``; ``tanh(gamma <a, b> + coef0)``;
        ``exp(-gamma ||a - b||_1)``; ``<a, b> / (||a|| ||b||)`` (0 for a zero
        row), as :func:`sklearn.metrics.pairwise.pairwise_kernels` computes
        them.  With "precomputed", X is a Gram matrix: (n_samples, n_samples)
        in ``fit``, (n_test, n_train) in ``predict``.  A callable ``k(A, B,
        **kernel_params)`` must return the real (n_A, n_B) kernel matrix
        (an array, or a scipy sparse matrix, densified).

    degree : int, default=3
        Degree of the "poly" kernel.

    gamma : {"scale", "auto"} or float, default="scale"
        Kernel coefficient of "poly", "rbf", "sigmoid" and "laplacian":
        "scale" is ``1 / (n_features * X.var())`` (1 when X is constant),
        "auto" is ``1 / n_features``.  ``partial_fit`` computes it on its
        first batch and keeps it; ``gamma_`` holds the value used.  The
        other kernels ignore it: "scale" out of the range of float64 (X of
        extreme variance, e.g. 1e-160) is an error only for the four that
        read it.

    coef0 : float, default=1.0
        Independent term of "poly" and "sigmoid".

    kernel_params : dict, default=None
        Keyword arguments of a callable kernel.

    threshold : float, default=0.0
        A sample triggers an update when its margin ``s * f(x)`` is
        <= threshold.

    fit_intercept : bool, default=True
        Whether to learn an intercept (a constant feature in kernel space).

    max_iter : int, default=1000
        Maximum number of epochs of ``fit``.

    tol : float or None, default=1e-3
        When not None, stop after ``n_iter_no_change`` consecutive epochs
        whose number of updates did not fall below
        ``best - tol * n_samples``.

    n_iter_no_change : int, default=5
        Number of epochs without improvement before stopping.

    shuffle : bool, default=True
        Whether to visit the samples in a fresh random order every epoch.

    average : bool, default=True
        If True (the default), the averaged kernel perceptron: ``dual_coef_``
        is the average of the coefficients over every visit of training (the
        updates are still decided by the current ones).  If False, the last
        iterate.  Averaging is the default because on data that are not
        separable the last iterate depends on the last few mistakes: it can
        fall below the accuracy of predicting the majority class, where the
        average stays close to SVC's (Freund & Schapire's comparison, and the
        real-data tour of the benchmarks, ``benchmarks/bench_tour.py``); it
        costs no more per epoch, and with the same support vectors the same
        prediction time.  ``average=False`` gives the textbook (dual)
        perceptron, equal to :class:`Perceptron` with a linear kernel.

    budget : int, default=None
        If set, at most ``budget`` support vectors at any time, in ``fit`` and
        in ``partial_fit``: before a new support vector enters a full set, one
        leaves it (see ``budget_strategy``).  What a budget B costs and buys,
        with the built-in kernels other than "precomputed": memory O(B *
        (n_features + n_classes)) beside X (no per-sample scores; B**2 more
        for "projection"), or that of the vectors a ``partial_fit`` call can
        hold when they are fewer than B (so a huge budget costs nothing until
        it fills); a visit computes its scores from the B support
        vectors, so an epoch costs O(n_samples * B * n_features) (CSR:
        O(nnz * B)) instead of O(n_samples) per update: with B much smaller
        than the unbudgeted number of support vectors, ``fit`` on a million
        rows takes a few passes over X; ``predict`` costs O(B * n_features)
        per sample.  Accuracy: with the default strategy, a budget of half
        the unbudgeted number of support vectors loses at most about 0.01
        of test accuracy on the benchmarks (moons, circles, digits, a
        10-class problem); far smaller budgets lose more (see the user's
        guide).  With ``tol`` set (the default), ``fit`` checks the model on
        a sample of at most 2,000 training rows at the end of every epoch,
        and at evenly spaced points within it when the epoch visits several
        times as many rows (one check per sample's worth of visits, at most
        four per epoch: its quarters), and returns the best one (the earliest of equals; with
        ``average=True`` the average and the iterate are both candidates,
        the average winning ties): a late iterate of a budgeted walk can be
        worse than an earlier one.  The checks score at most as many rows
        per epoch as the epoch visits, B kernel values each (1% of the walk
        on a million rows).  On rows of at least 128 values, when the
        training Gram matrix fits in ``cache_size`` and ``budget`` is at
        least an eighth of the rows, ``fit`` computes the Gram matrix once
        (O(n_samples**2 * n_features)) and the walk and the checks read
        their kernel values from it, O(B) per visit.  A budget at least the
        number of training rows changes nothing.  "precomputed" and callable kernels take the same
        walk, with every strategy: a visit reads B entries of the Gram
        matrix (at the support vectors' training rows) instead of
        computing kernels; a callable is called once per block of 1,024
        visits (at least B) on the support vectors and the block's rows,
        about 4 * B kernel values per visit and (B + 1024)**2 doubles of
        memory.

    budget_strategy : {"local_projection", "projection", "forgetron", \
"random", "oldest"}, default="local_projection"
        Which support vector leaves a full set, and what happens to its
        coefficients:

        - "local_projection" (default): the vector of smallest contribution
          (``||dual coefficients||^2 * K(v, v)``) leaves, and its current
          and averaged coefficients are carried onto the span of its 8
          nearest kept vectors in kernel space, by projection (a ridge
          least-squares fit in kernel space, as the Projectron of Orabona,
          Keshet & Caputo does over all vectors).  O(B * n_features) per
          removal.  The right choice by default: the most accurate
          per unit of time in the benchmarks, and the averaged model works.
        - "projection": the Projectron's projection onto the span of all
          kept vectors, keeping the inverse of their Gram matrix up to date
          in O(B**2) per update (B**2 doubles of memory); the vector whose
          projection loses the least leaves.  As accurate as
          "local_projection" or slightly more on high-dimensional data, but
          each update costs O(B**2): for moderate B and data sets.
        - "forgetron": the self-tuned Forgetron (Dekel, Shalev-Shwartz &
          Singer): shrink every coefficient by the largest factor that
          keeps the cumulative damage of removals below 15/32 of the number
          of mistakes so far (per one-vs-all row), then remove the oldest;
          its mistake bound holds for ``budget >= 84`` with a kernel bounded
          by 1 and unit sample weights.
        - "random": the randomized budget perceptron (Cavallanti,
          Cesa-Bianchi & Gentile): a uniformly random one; it tracks a
          drifting target (shifting bounds).
        - "oldest": the oldest, without shrinking.

        For these three the current iterate follows the published algorithm
        (the removed coefficients are dropped, as their bounds analyse), and
        with ``average=True`` only the removed vector's share of the average
        is carried, by projection onto its 32 nearest kept vectors (with a
        budget far below what the data need, shares carried again and again
        decay towards their constant part; ``fit`` then returns the iterate
        when it classifies the check rows better than the average, see
        ``budget``).  They are
        for online use (``partial_fit``) where their guarantees matter
        (their bounds count the mistakes of the online walk, whichever model
        ``fit`` returns); on batch problems with a budget well below the
        natural number of support vectors, they predict far worse than the
        projection strategies (multiclass problems especially).  "Oldest"
        means the least recently updated: a support vector that is updated
        again keeps its slot and becomes the youngest.

    class_weight : dict, "balanced" or None, default=None
        Weights of the classes: an update on a sample of class j is scaled
        by ``class_weight[j]``. Weights must be finite and >= 0.

    multi_class : {"ovr", "crammer_singer"}, default="ovr"
        How the classes are learned.  "ovr": one-vs-all, one binary
        perceptron per class (one row for two classes).  "crammer_singer":
        the multiclass perceptron (Crammer & Singer, 2003), one row per class
        (two rows for two classes) over the shared support vectors, the
        prediction the class of highest score; visiting sample i of class
        c is a mistake when another row r scores ``f_c(x_i) - f_r(x_i) <=
        threshold``: row c then gains ``c_i * K(x_i, .)`` and the rows that
        scored too high lose it (see ``update``).  A mistake counts once in
        ``n_mistakes_`` however many rows it moves; the rows stop together
        (one stopping rule on the mistakes).  Not available with a budget.

    update : {"max", "uniform"}, default="max"
        The rows a Crammer-Singer mistake moves away: "max", only the
        highest-scoring violating row (ties: the lowest class index), which
        is the Kesler construction's binary perceptron (Collins'
        multiclass perceptron); "uniform", every violating row, by an equal
        share (Crammer & Singer's ultraconservative uniform update).
        Ignored with ``multi_class="ovr"``.

    cache_size : float, default=200
        Memory (MB) for kernel columns during training (and the bound of the
        blocks of a callable or precomputed kernel in ``predict``).  It
        changes speed, never results.

    warm_start : bool, default=False
        If True, ``fit`` starts from the last iterate of the previous fit
        (its support vectors and coefficients; averaging starts anew).

    random_state : int, RandomState instance or None, default=0
        Seed of the epoch orders and of the "random" budget strategy.

    verbose : int, default=0
        {{verbose_lines}}
        The norm is ``||f||``, the norm of the current iterate in the kernel
        space (the intercept counted as a constant feature), over all rows.
        A ``partial_fit`` line gives the
        number of support vectors instead of ``||f||`` (which would cost the
        kernel values among all of them at every call).

    n_jobs : int, default=None
        Number of threads that score the rows of X in ``predict`` and
        ``decision_function`` (blocks of rows in parallel, without the GIL;
        the results are the same bit for bit whatever ``n_jobs``).
        ``None`` means 1 unless in a :obj:`joblib.parallel_backend`
        context; ``-1`` means all processors; ``0`` is refused.  Training
        is not affected.

    {{grow_classes_param}}

    Attributes
    ----------
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training set of ``fit`` (-1
        for support vectors carried over by ``warm_start`` that are not rows
        of it).  Not set by ``partial_fit``.

    support_vectors_ : {ndarray, sparse matrix} of shape (n_SV, n_features)
        The support vectors, in the format and dtype of the training data
        (for "precomputed": rows of the training Gram matrix).

    dual_coef_ : ndarray of shape (1, n_SV) or (n_classes, n_SV)
        Signed dual coefficients, of ``classes_[1]`` for binary problems and
        of each class vs. the rest otherwise.

    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts: ``dual_coef_.sum(axis=1)`` with ``fit_intercept``, else 0.

    n_support_ : ndarray of shape (n_classes,)
        Number of support vectors of each class.

    gamma_ : float
        The kernel coefficient used.

    {{classes_attrs}}

    n_iter_ : int
        Epochs run by the last ``fit``; after ``partial_fit``, the number of
        calls since the first.

    n_mistakes_ : int
        Updates made by the last ``fit``; ``partial_fit`` adds to it.

    mistakes_per_epoch_ : list of int
        Updates of every epoch of the last ``fit``; ``partial_fit`` appends
        one entry per call.

    converged_ : bool
        Whether the last ``fit`` ended on an epoch without updates (after
        ``partial_fit``: whether its pass made none).

    See Also
    --------
    Perceptron : The primal perceptron; equal to this one with a linear
        kernel (``average`` alike).
    sklearn.svm.SVC : Kernel support vector machine.

    Notes
    -----
    Dual = primal: with ``kernel="linear"`` the decision function equals
    :class:`Perceptron`'s with the same parameters and the same epoch
    orders (``shuffle=False``, or the same ``random_state``), up to
    rounding: with ``average=False`` it equals ``Perceptron()`` (the last
    iterates), and with the default ``average=True`` it equals
    ``Perceptron(average=True)`` (the averages over the same visits).  The
    two are the primal and dual forms of one algorithm.

    Each one-vs-all row stops on its own rule, as in :class:`Perceptron`,
    except with a budget, where a removal changes every row: there they stop
    together.

    During training the kernel values of "rbf" and "laplacian" are computed
    in single precision (relative error below 1.2e-7), as SVC's kernel cache
    stores them; ``decision_function`` uses double precision.

    With a budget, ``fit`` and ``partial_fit`` take another walk
    (``_kernel_budget``): the scores of a visited sample are computed from
    the support vectors themselves, the kernel values in double precision,
    and the support vectors are kept in a dense buffer of B rows (CSR
    input: the fitted ``support_vectors_`` are CSR again); with
    "precomputed" the walk reads the Gram matrix's entries at the support
    vectors' training rows instead, and a callable's blocks of rows are
    read as precomputed Gram matrices.  A removal's carried coefficients
    keep the intercept consistent: the projections are taken with the
    padded kernel ``K + 1`` when ``fit_intercept``.

    References
    ----------
    .. [1] M. A. Aizerman, E. M. Braverman and L. I. Rozonoer, "Theoretical
       foundations of the potential function method in pattern recognition
       learning", Automation and Remote Control 25, 1964.
    .. [2] Y. Freund and R. E. Schapire, "Large margin classification using
       the perceptron algorithm", Machine Learning 37(3), 1999.
    .. [3] O. Dekel, S. Shalev-Shwartz and Y. Singer, "The Forgetron: a
       kernel-based perceptron on a budget", SIAM Journal on Computing 37(5),
       2008.
    .. [4] G. Cavallanti, N. Cesa-Bianchi and C. Gentile, "Tracking the best
       hyperplane with a simple budget perceptron", Machine Learning 69, 2007.
    .. [5] F. Orabona, J. Keshet and B. Caputo, "Bounded kernel-based online
       learning", Journal of Machine Learning Research 10, 2009.
    .. [6] Z. Wang, K. Crammer and S. Vucetic, "Breaking the curse of
       kernelization: budgeted stochastic gradient descent for large-scale
       SVM training", Journal of Machine Learning Research 13, 2012.

    {{xor_example_data}}
    >>> from sklearn_perceptrons import KernelPerceptron
    >>> clf = KernelPerceptron(kernel="rbf", gamma=2.0).fit(X, y)
    >>> clf.predict(X)
    array([0, 1, 1, 0])
    >>> clf.dual_coef_.shape
    (1, 4)

    On a larger, noisy problem: the averaged model (the default), and a
    model of at most 100 support vectors:

    >>> from sklearn.datasets import make_moons
    >>> X, y = make_moons(2000, noise=0.2, random_state=0)
    >>> averaged = KernelPerceptron().fit(X[:1500], y[:1500])
    >>> round(averaged.score(X[1500:], y[1500:]), 2)
    0.97
    >>> small = KernelPerceptron(budget=100).fit(X[:1500], y[:1500])
    >>> small.support_vectors_.shape[0]
    100
    """

    _parameter_constraints = {
        **BasePerceptron._parameter_constraints,
        **KernelMixin.kernel_parameter_constraints,
        "grow_classes": ["boolean"],
        "threshold": [Interval(numbers.Real, 0, None, closed="left")],
        "budget": [
            Interval(numbers.Integral, 1, np.iinfo(np.int64).max, closed="both"),
            None,
        ],
        "budget_strategy": [StrOptions(set(_kernel_budget.STRATEGY_CODES))],
        "multi_class": [StrOptions({"ovr", "crammer_singer"})],
        "update": [StrOptions({"max", "uniform"})],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    def __init__(
        self,
        *,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=1.0,
        kernel_params=None,
        threshold=0.0,
        fit_intercept=True,
        max_iter=1000,
        tol=1e-3,
        n_iter_no_change=5,
        shuffle=True,
        average=True,
        budget=None,
        budget_strategy="local_projection",
        class_weight=None,
        multi_class="ovr",
        update="max",
        cache_size=200,
        warm_start=False,
        random_state=0,
        verbose=0,
        n_jobs=None,
        grow_classes=False,
    ):
        set_init_params(self, locals())

    def _rows_and_rule(self, n_classes):
        """(n_rows, table, rule code) of the training walk: one-vs-all, or
        Crammer-Singer's one row per class (two rows for two classes), where
        every row of the table is visited and the scores decide the rows
        that move."""
        if self.multi_class == "ovr":
            return (1 if n_classes == 2 else n_classes,
                    one_vs_all_table(n_classes), 0)
        if self.budget is not None:
            raise ValueError(
                "multi_class='crammer_singer' does not support a budget: use "
                "budget=None, or multi_class='ovr' with a budget."
            )
        return (n_classes, crammer_singer_table(n_classes),
                _RULE_CODES[(self.multi_class, self.update)])

    def _random_seed(self, rng):
        """Seed of the "random" budget strategy, drawn from a copy of ``rng``
        so that the epoch permutations do not depend on the budget."""
        if self.budget is not None and self.budget_strategy == "random":
            draw = int(copy.deepcopy(rng).randint(np.iinfo(np.int64).max,
                                                  dtype=np.int64))
            # Another stream than the first permutation's, which starts from
            # the same draw.
            return draw ^ 0x5851F42D4C957F2D
        return 0

    def _model_attributes(self, state, classes, gamma):
        """The attributes a fit that ended at the iterate ``state`` sets (the
        model of an epoch, for the callbacks that ask for it)."""
        def set_model(est):
            est._set_model(state, classes)
            est.gamma_ = gamma
            est.support_ = state.sv_index

        return model_attributes(self, set_model)

    def _set_model(self, state, classes):
        coef = state.model(self.average)
        # A plain dict of arrays and numbers: persistence formats such as
        # skops then need to trust no private class of this module.
        self._state = dict(vars(state))
        self.classes_ = classes
        self.support_vectors_ = state.sv
        self.dual_coef_ = np.ascontiguousarray(coef.T)
        if self.fit_intercept:
            self.intercept_ = self.dual_coef_.sum(axis=1)
        else:
            self.intercept_ = np.zeros(coef.shape[1])
        self.n_support_ = np.bincount(
            state.sv_class, minlength=classes.shape[0]).astype(np.int32)

    def _warm_start_rows(self, X, classes):
        """The previous iterate and the rows of X its support vectors are
        (None when they are not rows of X at their ``support_`` indices)."""
        state = _DualState(**self._state)
        if not np.array_equal(self.classes_, classes):
            raise ValueError(
                f"warm_start=True needs the classes of the previous fit "
                f"{self.classes_.tolist()!r}; got {classes.tolist()!r}."
            )
        precomputed_error = ValueError(
            "warm_start=True with kernel='precomputed' needs the Gram matrix "
            "of the training samples of the previous fit."
        )
        if state.sv.shape[1] != X.shape[1]:
            if self.kernel == "precomputed":
                raise precomputed_error
            raise ValueError(
                f"warm_start=True needs the {state.sv.shape[1]} features of the "
                f"previous fit; X has {X.shape[1]}."
            )
        index = state.sv_index
        if index.shape[0] == 0 or (
            index.min() >= 0 and index.max() < X.shape[0]
            and _rows_equal(_take_rows(X, index), state.sv)
        ):
            return state, index.astype(np.int32)
        if self.kernel == "precomputed":
            raise precomputed_error
        return state, None

    # -- fit -----------------------------------------------------------------

    @fit_method
    def fit(self, X, y, sample_weight=None):
        """Fit the kernel perceptron by epochs over the training data.

        {{kernel_fit_X_y}}

        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights scaling the size of each sample's updates.

        {{fit_returns}}
        """
        unweighted = sample_weight is None
        X, classes, y_class, sample_weight = self._validate_kernel_fit_data(
            X, y, sample_weight
        )
        n, n_classes = X.shape[0], classes.shape[0]
        n_rows, table, rule = self._rows_and_rule(n_classes)
        class_step = self._class_weights(classes, y_class,
                                         sample_weight=sample_weight)
        gamma = self._resolve_gamma(X)
        kernel = self._kernel(gamma)
        rng = check_random_state(self.random_state)

        state, matched = None, None
        if self.warm_start and hasattr(self, "_state"):
            state, matched = self._warm_start_rows(X, classes)
        # -- budgeted walk: its own module (see _kernel_budget) --
        n_possible = n if state is None or matched is not None else (
            n + state.sv.shape[0])
        if _kernel_budget.applies(self, kernel, n_possible):
            # Unweighted samples: the walk reads the step of each class, and
            # the array of ones of the validation is released.
            if unweighted:
                sample_weight = None
            return _kernel_budget.fit(
                self, X, classes, y_class, sample_weight, class_step, kernel,
                rng, state, matched,
                model=lambda state: self._model_attributes(state, classes,
                                                           kernel.gamma))
        # -- end of the budgeted walk --
        step = sample_weight * class_step[y_class]
        if state is not None and state.alpha.shape[1] != n_rows:
            raise ValueError(
                f"warm_start=True needs the multi_class of the previous fit; "
                f"it learned {state.alpha.shape[1]} row(s), multi_class="
                f"{self.multi_class!r} learns {n_rows}."
            )
        if state is not None and matched is None:
            # Support vectors from other data: extra rows in front of X, in a
            # dtype that does not round them.
            X = X.astype(np.result_type(X.dtype, state.sv.dtype), copy=False)
            Z = _stack_rows(state.sv, X)
            n_ext = state.sv.shape[0]
            y_class = np.concatenate([state.sv_class, y_class])
            step = np.concatenate([np.zeros(n_ext), step])
            sv_rows = np.arange(n_ext, dtype=np.int32)
        else:
            Z, n_ext, sv_rows = X, 0, matched

        walk = _DualWalk(
            Z, y_class, step, table, n_rows, kernel,
            add=float(self.fit_intercept), threshold=self.threshold,
            average=self.average, budget=self.budget,
            strategy=self.budget_strategy, track_from=0,
            cache_size=self.cache_size, passes=self.max_iter, rule=rule,
        )
        seed = self._random_seed(rng)
        if state is not None:
            walk.load(state, sv_rows, keep_average=False)
            self._initial_scores(walk, state, sv_rows, n_ext)
        walk.rng[0] = np.uint64(seed)

        # Each one-vs-all row stops on its own rule, as in Perceptron, except
        # with a budget: a removal takes a support vector away from every row,
        # which would change a stopped row that can no longer correct itself,
        # so the rows share one rule on their total number of updates.
        # Crammer-Singer's rows move together by construction: one rule too.
        coupled = (self.budget is not None or rule != 0) and n_rows > 1
        stopper = StoppingRule(
            1 if coupled else n_rows, tol=self.tol,
            n_iter_no_change=self.n_iter_no_change, n_samples=n,
            early_stopping=False,
        )
        train_idx = np.arange(n_ext, n_ext + n, dtype=np.int32)
        record = train(
            _WalkTrainer(walk, n_rows, coupled), train_idx=train_idx, rng=rng,
            shuffle=self.shuffle, max_iter=self.max_iter, stopper=stopper,
            verbose=self.verbose, norm="||f||",
            callbacks=fit_tasks(self, self.max_iter),
            model=lambda trainer, stopper: self._model_attributes(
                walk.result(n_ext, training_rows=True), classes, gamma),
        )
        set_fit_results(self, record)

        new_state = walk.result(n_ext, training_rows=True)
        self._set_model(new_state, classes)
        self.gamma_ = gamma
        self.support_ = new_state.sv_index
        self._max_support_seen = walk.max_support_seen
        return self

    def _initial_scores(self, walk, state, sv_rows, n_ext):
        """Scores of the tracked rows of Z under the iterate ``state``."""
        Z = walk.Z
        coef = np.ascontiguousarray(state.alpha)
        constant = walk.add * coef.sum(axis=0)
        first = max(n_ext, walk.track_from)
        walk.scores[first:] = _dual_scores(
            Z[first:], walk.kernel, _take_rows(Z, sv_rows), sv_rows, coef,
            self.cache_size, single=walk.single,
        ) + constant
        if walk.track_from < n_ext:
            if state.sv_scores is not None:
                walk.scores[:n_ext] = state.sv_scores
            else:
                walk.scores[:n_ext] = _dual_scores(
                    Z[:n_ext], walk.kernel, state.sv, sv_rows, coef,
                    self.cache_size, single=walk.single,
                ) + constant

    # -- partial_fit ---------------------------------------------------------

    @available_if(_not_precomputed)
    @shared_doc
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Make one online pass over the given samples, in the given order.

        New support vectors are appended to ``support_vectors_``; the budget,
        if any, holds at every step.  Without a budget, a one-row call costs
        one kernel sum over the support vectors (the iterate is not copied).

        {{partial_fit_params}}
        """
        cache = self.__dict__.get("_stream")
        if cache is not None and classes is None and sample_weight is None:
            fast = cache.get("fast")
            if fast is not None and fast.learn(self, X, y) >= 0:
                return self
        return self._checked_partial_fit(X, y, classes, sample_weight)

    @keep_state_on_error
    @partial_fit_context
    def _checked_partial_fit(self, X, y, classes=None, sample_weight=None):
        """``partial_fit`` the full way: every check, then the walk."""
        log = FitLog(self.verbose, norm="support vectors") if self.verbose else None
        self._partial_walk(X, y, classes, sample_weight)
        if log is not None:
            # The line gives the number of support vectors: ||f|| would
            # cost the kernel values among all of them at every call.
            log.partial(self.n_iter_, _num_samples(X),
                        self.mistakes_per_epoch_[-1],
                        self.support_vectors_.shape[0])
        return self

    def _grow_classes(self, growth):
        """Re-index the dual coefficients for the classes of ``growth`` (a
        :class:`~sklearn_perceptrons._core.growth.Growth`): a new class's
        column starts at 0 with nothing visited; the support vectors stay."""
        state = self._state
        n_rows = self._rows_and_rule(growth.old.shape[0])[0]
        if state["alpha"].shape[1] != n_rows:
            raise ValueError(
                f"partial_fit needs the multi_class of the first call; the "
                f"model has {state['alpha'].shape[1]} row(s), multi_class="
                f"{self.multi_class!r} learns {n_rows}."
            )
        source, sign = (growth.one_vs_all_rows() if self.multi_class == "ovr"
                        else growth.class_rows())
        grown = dict(state)
        for name in ("alpha", "alpha_sum", "sv_scores"):
            if state[name] is not None:
                grown[name] = reindex_rows(state[name], source, sign, axis=1)
        grown["visits"] = reindex_rows(state["visits"], source)
        grown["forget"] = reindex_rows(state["forget"], source, axis=1)
        grown["sv_class"] = growth.class_index(state["sv_class"])
        self._state = grown
        self.classes_ = growth.classes

    def _partial_walk(self, X, y, classes, sample_weight):
        """One pass over a validated batch, from the current iterate."""
        X, y_class, sample_weight, classes = self._validate_partial_fit_data(
            X, y, classes, sample_weight
        )
        X = _prepare_rows(X)
        n_classes = classes.shape[0]
        n_rows, table, rule = self._rows_and_rule(n_classes)
        if sample_weight is None:
            sample_weight = np.ones(X.shape[0])
        step = sample_weight * self._class_weights(classes, partial=True)[y_class]
        if hasattr(self, "_state"):
            state, gamma = _DualState(**self._state), self.gamma_
            if state.alpha.shape[1] != n_rows:
                raise ValueError(
                    f"partial_fit needs the multi_class of the first call; the "
                    f"model has {state.alpha.shape[1]} row(s), multi_class="
                    f"{self.multi_class!r} learns {n_rows}."
                )
            # The support vectors keep the dtype of the first fit; a batch of
            # the other float type is cast to it (a copy of this batch only).
            X = X.astype(state.sv.dtype, copy=False)
        else:
            gamma = self._resolve_gamma(X)
            rng = check_random_state(self.random_state)
            state = _DualState.empty(X, n_rows, self._random_seed(rng))
        kernel = self._kernel(gamma)
        # -- budgeted walk: its own module (see _kernel_budget) --
        if _kernel_budget.applies(self, kernel):
            return _kernel_budget.partial_fit(self, X, classes, y_class, step,
                                              kernel, state)
        # -- end of the budgeted walk --

        n_ext = state.sv.shape[0]
        Z = _stack_rows(state.sv, X)
        budgeted_forgetron = (self.budget is not None
                              and self.budget_strategy == "forgetron")
        # The Forgetron reads the scores of the support vectors it removes;
        # otherwise only the batch's scores are tracked.
        walk = _DualWalk(
            Z, np.concatenate([state.sv_class, y_class]),
            np.concatenate([np.zeros(n_ext), step]), table, n_rows, kernel,
            add=float(self.fit_intercept), threshold=self.threshold,
            average=self.average, budget=self.budget,
            strategy=self.budget_strategy,
            track_from=0 if budgeted_forgetron else n_ext,
            cache_size=self.cache_size, passes=1, rule=rule,
        )
        sv_rows = np.arange(n_ext, dtype=np.int32)
        walk.load(state, sv_rows, keep_average=True)
        self._initial_scores(walk, state, sv_rows, n_ext)
        updates = walk.run(
            np.arange(n_ext, Z.shape[0], dtype=np.int32),
            np.ones(n_rows, dtype=np.uint8),
        )
        total = int(updates.sum())
        self._set_model(walk.result(n_ext, training_rows=False), classes)
        self.gamma_ = gamma
        self.__dict__.pop("support_", None)
        record_partial_pass(self, total)
        self._max_support_seen = max(getattr(self, "_max_support_seen", 0),
                                     walk.max_support_seen)
        cache = stream_cache(self)
        cache.pop("fast", None)
        if (isinstance(self.kernel, str) and self.kernel_params is None
                and self.class_weight is None and not self.verbose
                and self.budget is None and self._state["sv"].shape[0] > 0
                and not sp.issparse(self._state["sv"])
                and "feature_names_in_" not in self.__dict__):
            try:
                cache["fast"] = KernelStream(self, classes, table, rule, kernel)
            except TypeError:  # unhashable labels: no dict to look them up
                pass
        return self

    # -- prediction ----------------------------------------------------------

    @shared_doc
    def decision_function(self, X):
        """Signed confidence of every sample: ``sum_j dual_coef_[:, j] *
        K(support_vectors_[j], x) + intercept_``.

        Computed in compiled code without the GIL, one sample at a time, so
        the extra memory is one kernel column per sample and thread (blocks
        bounded by ``cache_size`` for callable and precomputed kernels);
        ``n_jobs`` threads score blocks of rows in parallel.  The blocks are
        small (a few hundredths of a second of work), and Ctrl-C stops the
        call between two of them.

        {{kernel_predict_X}}

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For binary problems, the score of ``classes_[1]``; otherwise one
            column per class.
        """
        check_is_fitted(self)
        if self.kernel == "precomputed":
            self._reject_sparse_gram(X)
            # Not the lean path: NaN must be reported before a wrong shape.
            X = validate_data(self, X, dtype=[np.float64, np.float32],
                              order="C", reset=False)
            if not hasattr(self, "support_"):
                raise ValueError("kernel='precomputed' needs a model from fit.")
        else:
            X = _prepare_rows(self._validate_predict_data(X))
        coef = np.ascontiguousarray(self.dual_coef_.T, dtype=np.float64)
        scores = _dual_scores(
            X, self._kernel(self.gamma_), self.support_vectors_,
            getattr(self, "support_", None), coef, self.cache_size,
            n_jobs=self.n_jobs,
        )
        scores += self.intercept_
        if scores.shape[1] == 2 and self.classes_.shape[0] == 2:
            # Crammer-Singer on two classes: one row per class.
            return scores[:, 1] - scores[:, 0]
        return scores.ravel() if scores.shape[1] == 1 else scores

    @property
    def coef_(self):
        """Primal weights ``dual_coef_ @ support_vectors_`` (linear kernel
        only; a read-only array of shape (1, n_features) or (n_classes,
        n_features))."""
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available with kernel='linear'.")
        check_is_fitted(self)
        coef = self.dual_coef_ @ self.support_vectors_
        coef = np.asarray(coef, dtype=np.float64)
        coef.flags.writeable = False
        return coef


def _flipped(estimator):
    """The copy of a fitted binary kernel perceptron trained, as far as its
    dual coefficients tell, with the labels swapped: negated coefficients,
    the support vectors' classes swapped (see
    :func:`~sklearn_perceptrons._core.growth.register_flip`)."""
    flipped = fork(estimator)
    flipped.__dict__.pop("_stream", None)
    state = dict(flipped._state)
    for name in ("alpha", "alpha_sum", "sv_scores"):
        if state[name] is not None:
            state[name] = -state[name]
    state["sv_class"] = (1 - state["sv_class"]).astype(state["sv_class"].dtype)
    flipped._set_model(_DualState(**state), flipped.classes_)
    return flipped


register_flip(KernelPerceptron, _flipped)


# ---------------------------------------------------------------------------
# What other estimators of the package use (VotedPerceptron): the kernels and
# the row helpers, under names that are not private to this module.
# ---------------------------------------------------------------------------

KERNEL_CODES = _KERNEL_CODES
Kernel = _Kernel
parts = _parts
prepare_rows = _prepare_rows
take_rows = _take_rows
variance = _variance
DUMMY_DOUBLE = _DUMMY_DOUBLE
RULE_CODES = _RULE_CODES
SINGLE_PRECISION = _SINGLE_PRECISION
dual_scores = _dual_scores
