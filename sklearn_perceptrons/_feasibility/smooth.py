# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The iteration shared by the smooth solvers of :mod:`.feasibility`.

The smooth perceptron (Soheili and Peña, 2012) works on the normalized rows
``â_i = a_i / ||a_i||`` and keeps a primal point ``w`` (a candidate solution
of ``Â w > 0``) and a dual point ``x`` in the simplex (a candidate Gordan
certificate, ``Âᵀ x ≈ 0``). With the entropy prox-function
``d(x) = sum_i x_i log(n x_i)`` and

    ``x_mu(w) = argmin_{x in simplex} <Â w, x> + mu d(x)
              = softmax(-Â w / mu)``,

one iteration (``theta_k = 2 / (k + 3)``, ``mu_0 = 2``) is

    ``w <- (1 - theta) (w + theta Âᵀx) + theta² Âᵀ x_mu(w)``,
    ``mu <- (1 - theta) mu``,
    ``x <- (1 - theta) x + theta x_mu(w)``  (with the new ``w`` and ``mu``).

It keeps Nesterov's excessive gap condition
``||Âᵀx_k||² / 2 <= min_x <Â w_k, x> + mu_k d(x) - ||w_k||² / 2``, so while
``Â w_k > 0`` fails, ``||Âᵀx_k||² <= 2 mu_k log n`` with
``mu_k = 4 / ((k + 1)(k + 2))``: the dual iterate shrinks like ``1 / k``. As
``||Âᵀx|| >= rho(A)`` for every ``x`` of the simplex when ``rho(A) > 0``, the
primal test succeeds before ``k + 1 >= 2 sqrt(2 log n) / rho(A)``.

``x_mu(w_{k+1})`` at the end of iteration ``k`` is the ``x_mu(w)`` of
iteration ``k + 1`` (same ``w``, same ``mu``), so an iteration costs one
product with ``Â`` and one with ``Âᵀ``.

The rescaled perceptron (:func:`rescaled_run`) alternates phases of this
iteration with rescalings of the space.  The public functions live in
:mod:`sklearn_perceptrons.feasibility`; their setup and results in
:mod:`.homogeneous` and :mod:`.results`.
"""

from dataclasses import dataclass

import numpy as np

from . import _feasibility_fast as fast

# Why an iteration stopped.
PRIMAL = "primal"  # Â w > 0 (verified on A)
CERTIFICATE = "certificate"  # ||Aᵀ x|| <= tol (verified on A)
PHASE = "phase"  # rescaled perceptron: the cone lies in a thin slab
LIMIT = "limit"
NONFINITE = "nonfinite"

# A rescaling multiplies the volume fraction of the cone by at least this.
RESCALE_GAIN = 2.0 / np.sqrt(np.e)
# The rescaled perceptron gives up once the count of rescalings proves that
# rho(A) is below this (no solution that double precision could verify).
RHO_FLOOR = 1e-12


class UnitRows:
    """The operator ``Â = D⁻¹ A B`` with unit rows, never formed.

    ``A`` is read in place (``mat`` as returned by ``checks.check_matrix``):
    float64 products go through BLAS (dense) or SciPy's CSR kernels, float32
    ones through the compiled loops, which accumulate in float64 without
    converting A. ``B`` (the rescaled perceptron's change of variables) is
    ``None`` (the identity) until :meth:`rescale` is called.
    """

    def __init__(self, mat, sqnorm, *, original=None, shift=None):
        self.mat = mat
        self.A = mat.A
        self.n, self.p = mat.n, mat.p
        self._native = self.A.dtype == np.float64
        self.sqnorm = np.array(sqnorm, dtype=np.float64)
        self.inv = 1.0 / np.sqrt(self.sqnorm)
        self.B = None
        # ``mat`` may hold the rows of the system scaled by ``2**-shift``
        # (rows of extreme norms, see ``rows.homogeneous_rows``):
        # certificates are for the rows of ``original``.
        self.original_A = self.A if original is None else original.A
        self.shift = shift

    # Certificates on the rows of A ---------------------------------------
    def _cert_weights(self):
        """``D⁻¹`` with the scaling of the rows undone (``2**-shift``),
        relative to the smallest shift so that no weight overflows; and the
        exponent of that factor."""
        if self.shift is None:
            return self.inv, 0
        low = int(self.shift.min())
        return np.ldexp(self.inv, low - self.shift), -low

    def certificate_scale(self, x):
        """``S`` with ``||Aᵀ y|| = ||Aᵀ D⁻¹ x|| / S`` for the certificate
        ``y`` of :meth:`certificate` (``Âᵀ x`` when B = I)."""
        weights, exponent = self._cert_weights()
        return float(np.ldexp(x @ weights, exponent))

    def certificate(self, x):
        """The dual point ``x`` of ``Â`` as a point ``y`` of the simplex on
        the rows of A (``y ∝ D⁻¹ x``, with the scaling of the rows undone),
        and ``||Aᵀ y||`` computed on A."""
        y = x * self._cert_weights()[0]
        y /= y.sum()
        if self.shift is None:
            return y, float(np.linalg.norm(self.AT_dot(y)))
        g = np.asarray(self.original_A.T @ y, dtype=np.float64).ravel()
        # Without squaring entries that may be near the largest float.
        top = float(np.abs(g).max())
        return y, top * float(np.linalg.norm(g / top)) if top > 0 else 0.0

    # Products with A itself ---------------------------------------------
    def A_dot(self, v):
        if self._native:
            return np.asarray(self.A @ v, dtype=np.float64).ravel()
        out = np.empty(self.n, dtype=np.float64)
        fast.matvec(self.mat, v, out)
        return out

    def AT_dot(self, y):
        if self._native:
            return np.asarray(self.A.T @ y, dtype=np.float64).ravel()
        out = np.empty(self.p, dtype=np.float64)
        fast.rmatvec(self.mat, y, out)
        return out

    # Products with Â = D⁻¹ A B ----------------------------------------------
    def matvec(self, w):
        v = w if self.B is None else self.B @ w
        return self.A_dot(v) * self.inv

    def rmatvec(self, x):
        g = self.AT_dot(x * self.inv)
        return g if self.B is None else self.B.T @ g

    def original(self, w):
        """The point of the original system that ``w`` stands for."""
        return w.copy() if self.B is None else self.B @ w

    def row(self, j):
        """Row j of ``Â`` (a unit vector), as a dense float64 array."""
        if self.mat.dense:
            a = np.asarray(self.A[j], dtype=np.float64)
        else:
            a = np.asarray(self.A[j].toarray(), dtype=np.float64).ravel()
        if self.B is not None:
            a = self.B.T @ a
        return a * self.inv[j]

    def rescale(self, v):
        """``B <- B (I - v vᵀ / 2)`` for a unit ``v``: doubles the feasible
        cone along ``v``. Row norms follow in one product:
        ``||a_i B'||² = ||a_i B||² - 3/4 (a_i B . v)²``.

        Returns ``||a_i B|| / ||a_i B'||`` (in ``[1, 2]``) for every row.
        """
        if self.B is None:
            self.B = np.eye(self.p)
        Bv = self.B @ v
        c = self.A_dot(Bv)  # a_i B . v, unnormalized
        new = np.maximum(self.sqnorm - 0.75 * c * c, 0.25 * self.sqnorm)
        shrink = np.sqrt(self.sqnorm / new)
        self.sqnorm = new
        self.inv = 1.0 / np.sqrt(self.sqnorm)
        self.B -= 0.5 * np.outer(Bv, v)
        # The cone does not change when B is scaled: keep the largest row
        # norm at 1, so that norms shrinking by up to 4x per rescaling never
        # underflow as a whole.
        top = self.sqnorm.max()
        self.B /= np.sqrt(top)
        self.sqnorm /= top
        self.inv = 1.0 / np.sqrt(self.sqnorm)
        return shrink


def _softmin(s, mu):
    """``x_mu(w)`` for ``s = Â w``: the softmax of ``-s / mu``, computed
    stably (the smallest entry gets ``exp(0)``)."""
    t = np.exp((s.min() - s) / mu)
    return t / t.sum()


def run(op, max_iter, *, check_primal, cert_tol=None, phase_delta=None,
        phase_rows=1, start_nit=0):  # fmt: skip
    """Smooth perceptron iterations on ``op`` from the standard start.

    Stops on the first of: ``Â w > 0`` (verified by ``check_primal(w)``,
    which sees the original system); ``||Aᵀ x_A|| <= cert_tol`` with
    ``x_A`` the certificate on the rows of A (verified on a fresh product);
    ``||Âᵀ x|| <= phase_delta * max(x)`` (the rescaled perceptron's phase
    test; once it holds, the phase goes on until the ``phase_rows``-th
    largest weight passes it too, or the phase has doubled in length);
    ``max_iter`` iterations in all (``start_nit`` already spent).

    Returns ``(reason, nit, w, x, u)`` with ``u = Âᵀ x``; ``nit`` counts
    iterations since ``start_nit`` plus ``start_nit``.
    """
    n = op.n
    mu = 2.0
    w = op.rmatvec(np.full(n, 1.0 / n))
    s = op.matvec(w)
    xm = _softmin(s, mu)
    g = op.rmatvec(xm)  # Âᵀ x_mu(w)
    x, u = xm, g.copy()
    k = 0
    nit = start_nit
    first_ok = None
    while True:
        if not (np.all(np.isfinite(s)) and np.all(np.isfinite(u))):
            return NONFINITE, nit, w, x, u
        if np.all(s > 0) and check_primal(w):
            return PRIMAL, nit, w, x, u
        norm_u = np.linalg.norm(u)
        if cert_tol is not None:
            # x_A = D⁻¹ x / sum(D⁻¹ x) has Aᵀ x_A = Âᵀ x / sum(D⁻¹ x).
            if norm_u <= cert_tol * op.certificate_scale(x):
                if op.certificate(x)[1] <= cert_tol:
                    return CERTIFICATE, nit, w, x, u
                # Rounding drift in the running u: resynchronize.
                u = op.rmatvec(x)
        if phase_delta is not None and norm_u <= phase_delta * x.max():
            # The largest weight gives one valid rescaling. Go on (at most
            # as long again) until phase_rows weights do, so that one phase
            # pays for several rescalings.
            if first_ok is None:
                first_ok = k
            q = min(phase_rows, n)
            if k >= 2 * first_ok or (
                q > 1 and norm_u <= phase_delta * np.partition(x, n - q)[n - q]
            ):
                return PHASE, nit, w, x, u
        if nit >= max_iter:
            return LIMIT, nit, w, x, u
        theta = 2.0 / (k + 3)
        w = (1.0 - theta) * (w + theta * u) + (theta * theta) * g
        mu *= 1.0 - theta
        s = op.matvec(w)
        xm = _softmin(s, mu)
        g = op.rmatvec(xm)
        x = (1.0 - theta) * x + theta * xm
        u = (1.0 - theta) * u + theta * g
        k += 1
        nit += 1


@dataclass
class RescaledRun:
    """How the phases of :func:`rescaled_run` ended."""

    reason: str  # why the last phase stopped
    nit: int  # iterations, over all phases
    w: np.ndarray  # the last iterate, in the original variables
    n_rescalings: int
    certificate: np.ndarray  # found by a phase's dual point, or None
    certificate_norm: float  # of the last phase's dual point (NaN if none)
    stop: str  # None, "thin" (rho(A) < RHO_FLOOR proved) or "degenerate"


def rescaled_run(op, max_iter, *, check_primal, tol):
    """Phases of the smooth perceptron on ``op`` and rescalings of the space,
    until a solution (verified by ``check_primal``), a phase's dual point
    with ``||Aᵀ x|| <= tol`` on the rows of A, ``max_iter`` iterations and
    rescalings in all, or a proof that ``rho(A) < RHO_FLOOR`` (``"thin"``)
    or that the rescaled rows degenerated (``"degenerate"``)."""
    n, p = op.n, op.p
    delta = 1.0 / np.sqrt(3.0 * p)
    nit, n_rescalings = 0, 0
    stop = None
    cert_norm = np.nan
    while True:
        # A rescaling counts against the budget too, so that phases which
        # end at once (possible on an infeasible system) cannot loop forever.
        reason, nit, w, x, u = run(
            op, max_iter - n_rescalings, check_primal=check_primal,
            phase_delta=delta, phase_rows=p, start_nit=nit,
        )  # fmt: skip
        if reason != PHASE:
            break
        # x on the rows of A: Aᵀ y = B⁻ᵀ Âᵀ x / sum(D⁻¹ x).
        y, cert_norm = op.certificate(x)
        if cert_norm <= tol:
            return RescaledRun(reason, nit, op.original(w), n_rescalings, y,
                               cert_norm, None)  # fmt: skip
        # Every row j with ||Âᵀx|| / x_j <= delta bounds the cone by a slab;
        # a rescaling along one row widens the others' slabs by at most the
        # factor its norm shrank, so several valid rescalings can follow
        # from one phase (largest x_j first).
        norm_u = float(np.linalg.norm(u))
        widen = np.ones(n)
        for j in np.argsort(-x, kind="stable"):
            if not norm_u <= delta * x[j]:
                break  # x is sorted: no later row qualifies
            if norm_u * widen[j] > delta * x[j]:
                continue
            if nit + n_rescalings >= max_iter:
                reason = LIMIT
                break
            widen *= op.rescale(op.row(int(j)))
            n_rescalings += 1
            if RESCALE_GAIN ** (n_rescalings / p) * RHO_FLOOR / 2 > 1:
                # The volume argument now proves rho(A) < RHO_FLOOR.
                stop, reason = "thin", LIMIT
                break
            if not op.sqnorm.min() > 1e-250:
                # Rows shrunk by 4**k relative to others: the cone has
                # collapsed (only when the system is infeasible or flat).
                stop, reason = "degenerate", LIMIT
                break
        if reason != PHASE:
            break
    return RescaledRun(reason, nit, op.original(w), n_rescalings, None,
                       cert_norm, stop)  # fmt: skip
