# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The margin perceptron, :class:`MarginPerceptron`, and its certified
search for a large margin (``margin="auto"``).

The update rule is ``RULE_MARGIN`` of the compiled linear epoch.  The search
plugs into the driver of :mod:`sklearn_perceptrons._core.training` as a
trainer (:class:`_SearchTrainer`) whose ``end_epoch`` lowers the margin of
rows to the level of their certified bound on the maximum margin, and which
keeps the running average of the iterates; its online form splits the pass
of ``partial_fit``.
"""

import dataclasses
import math
import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from .._core.base import class_indices, label_index
from .._core.docstrings import shared_doc
from .._core.growth import reindex_rows
from .._core.progress import in_chunks
from .perceptron import (
    BaseLinearPerceptron,
    ComputedAttribute,
    EpochParameters,
    set_binary_state,
)
from .rows import (
    RULE_MARGIN,
    LinearState,
    LinearTrainer,
    Rule,
    check_finite_weights,
    padded_sq_norms as _padded_sq_norms,
    row_scores,
    run_epoch,
    weight_norms,
)
from .stream import MarginStream
from .._core.tables import sign_matrix


def _weight_norms(coef, intercept, fit_intercept):
    """``||[w_k; b_k]||`` (or ``||w_k||``) of every weight row, in float64."""
    sq = np.einsum("ij,ij->i", coef, coef, dtype=np.float64)
    if fit_intercept:
        sq = sq + intercept.astype(np.float64) ** 2
    return np.sqrt(sq)


def _row_geometry(sq_norms, y_class, step, signs_of_class):
    """Squared radius and step range of every row's binary problem.

    Only the samples that take part in a row (sign != 0) with a positive
    step can ever update it, so only they count.  Returns per-row arrays
    ``sq_radius`` (0 where no sample counts), ``step_min`` (inf) and
    ``step_max`` (0).
    """
    n_classes, n_rows = signs_of_class.shape
    counted = step > 0
    classes = y_class[counted]
    class_sq = np.zeros(n_classes)
    class_max = np.zeros(n_classes)
    class_min = np.full(n_classes, np.inf)
    np.maximum.at(class_sq, classes, sq_norms[counted])
    np.maximum.at(class_max, classes, step[counted])
    np.minimum.at(class_min, classes, step[counted])
    part = signs_of_class != 0
    return (
        np.where(part, class_sq[:, None], 0.0).max(axis=0),
        np.where(part, class_min[:, None], np.inf).min(axis=0),
        np.where(part, class_max[:, None], 0.0).max(axis=0),
    )


@dataclasses.dataclass(eq=False)
class _MarginSearch:
    """State of the certified margin search of every row (``margin="auto"``).

    Row ``k`` runs the margin perceptron with ``gamma_k = R_k / 2**h_k``;
    ``run_updates_k`` counts the updates of its current run, since its γ
    last changed or the fit or stream started, at an iterate of norm
    ``start_norm_k`` (0 for ``w~ = 0``).  Plain arrays,
    replaced rather than mutated once fitted by the full way, so that the
    all-or-nothing snapshot of ``keep_state_on_error`` stays valid; only the
    lean stream (:class:`~.stream.MarginStream`) writes them in place, once
    its call can no longer fail.
    """

    sq_radius: np.ndarray
    halvings: np.ndarray
    run_updates: np.ndarray
    start_norm: np.ndarray
    step_min: np.ndarray
    step_max: np.ndarray

    def copy(self):
        return _MarginSearch(
            *(np.array(getattr(self, f.name)) for f in dataclasses.fields(self))
        )

    def gamma(self):
        return np.ldexp(np.sqrt(self.sq_radius), -self.halvings)

    def budget(self, epsilon):
        """Updates a run may make if a separator of margin gamma exists.

        Unit steps from ``w~ = 0`` on data of radius R: ``4 R² / (ε² γ²)``.
        Steps ``c_i`` in ``[c_min, c_max]``: that times ``c_max / c_min``.
        A run started at ``||w~_0|| = a > 0``: at most
        ``4 (a + max(a, 2 c_max R² / (ε γ) + c_max R)) / (3 ε γ c_min)``
        (see the Notes of :class:`MarginPerceptron`).  Infinite where
        ``gamma = 0`` or no sample can update the row.
        """
        usable = (self.sq_radius > 0) & (self.step_max > 0)
        if not usable.all():
            if not usable.any():
                return np.full(usable.shape, np.inf)
            return np.where(usable, self._budget(epsilon, usable), np.inf)
        return self._budget(epsilon, slice(None))

    def _budget(self, epsilon, rows):
        # R / gamma = 2**h exactly; beyond 2**500 the bound (> 4**500) can
        # never be reached, and capping h keeps the arithmetic finite.
        ratio = np.ldexp(1.0, np.minimum(self.halvings[rows], 500)) / epsilon
        radius = np.sqrt(self.sq_radius[rows])
        step_min, step_max = self.step_min[rows], self.step_max[rows]
        a = self.start_norm[rows]
        out = (step_max / step_min) * 4.0 * ratio * ratio
        warm = a > 0
        if warm.any():
            # From ||w~|| = a: 4 (a + max(a, 2 c_max R ratio + c_max R))
            # ratio / (3 R c_min), the same bound written with gamma = R / 2**h.
            bound = (4.0 * ratio
                     * (a + np.maximum(a, step_max * radius * (2.0 * ratio + 1.0)))
                     / (3.0 * radius * step_min))
            out = np.where(warm, np.maximum(out, bound), out)
        if isinstance(rows, slice):
            return out
        full = np.full(self.sq_radius.shape, np.inf)
        full[rows] = out
        return full

    def lower(self, rows, halvings, norms):
        """Lower the γ of ``rows`` to ``R / 2**halvings`` and go on from their
        current iterates (of norms ``norms``): the updates are counted anew
        from here, against the bound of a run started at that norm."""
        self.halvings[rows] = halvings
        self.run_updates[rows] = 0
        self.start_norm[rows] = norms

    def restart(self, state, rows):
        """Halve gamma of ``rows`` and restart their runs at ``w~ = 0``."""
        self.halvings[rows] += 1
        self.run_updates[rows] = 0
        self.start_norm[rows] = 0.0
        state.reset_rows(rows)


_EPS64 = np.finfo(np.float64).eps
# Epochs between two exact computations of the norms of the iterates, at
# most (see _SearchTrainer).
_SYNC = 8


def _class_mean_gaps(X, idx, y_class, step, signs_of_class, radius):
    """Half the distance between the means of the positive and the negative
    samples of every row (its samples ``idx`` of positive step), plus the
    rounding of the computed means: an upper bound on the maximum margin γ*
    of the row, or its radius where one side has no sample.

    Why a bound: for any convex combination ``z = sum p_i s_i x~_i`` of the
    signed padded samples and any unit ``u``, ``u . z >= min_i s_i u . x~_i``,
    so ``γ* <= ||z||``; the midpoint of the two means is such a ``z``, and its
    intercept coordinate is ``1/2 - 1/2 = 0``.  Costs one pass over X (a
    float32 X in blocks of rows) and ``O(n_rows * n_features)``.
    """
    n_classes, n_rows = signs_of_class.shape
    n_samples, n_features = X.shape
    idx = idx[step[idx] > 0]
    classes = y_class[idx]
    counts = np.bincount(classes, minlength=n_classes).astype(np.float64)
    # Sums of the samples of every class, in float64 (a float32 X in
    # blocks of about 1M values, never converted whole).
    class_of = np.full(n_samples, -1, dtype=np.int64)
    class_of[idx] = classes
    if sp.issparse(X):
        # Every stored value adds to the cell (its class, its column).
        sums = np.zeros(n_classes * n_features)
        width = max(1, X.nnz // max(1, n_samples))
        block = n_samples if X.dtype == np.float64 else max(1, (1 << 20) // width)
        for start in range(0, n_samples, block):
            stop = min(start + block, n_samples)
            lo, hi = X.indptr[start], X.indptr[stop]
            cells = np.repeat(class_of[start:stop],
                              np.diff(X.indptr[start:stop + 1])) * n_features
            cells += X.indices[lo:hi]
            counted = cells >= 0
            sums += np.bincount(cells[counted],
                                weights=X.data[lo:hi][counted].astype(np.float64),
                                minlength=n_classes * n_features)
        sums = sums.reshape(n_classes, n_features)
    else:
        sums = np.zeros((n_classes, n_features))
        block = (n_samples if X.dtype == np.float64
                 else max(1, (1 << 20) // max(1, n_features)))
        for start in range(0, n_samples, block):
            stop = min(start + block, n_samples)
            keep = np.flatnonzero(class_of[start:stop] >= 0)
            indicator = sp.csr_matrix(
                (np.ones(len(keep)), (class_of[start:stop][keep], keep)),
                shape=(n_classes, stop - start))
            sums += indicator @ X[start:stop].astype(np.float64, copy=False)
    total = sums.sum(axis=0)
    positive, negative = signs_of_class > 0, signs_of_class < 0
    n_pos, n_neg = counts @ positive, counts @ negative
    gaps = np.array(radius, dtype=np.float64, copy=True)
    for k in range(n_rows):
        if not (n_pos[k] > 0 and n_neg[k] > 0):
            continue
        members = np.flatnonzero(positive[:, k])
        pos = sums[members[0]] if len(members) == 1 else sums[members].sum(axis=0)
        if np.count_nonzero(positive[:, k] | negative[:, k]) == n_classes:
            neg = total - pos
        else:
            neg = sums[negative[:, k]].sum(axis=0)
        diff = pos / n_pos[k] - neg / n_neg[k]
        # (A sum of squares of our own: no BLAS threads for one vector.)
        gap = math.sqrt(np.einsum("i,i->", diff, diff)) / 2.0
        # Each computed mean is within n eps R of the exact one (summation),
        # the rest within a few eps of the gap.
        gap = (gap * (1.0 + 8.0 * _EPS64)
               + (n_pos[k] + n_neg[k] + 4.0) * _EPS64 * radius[k])
        gaps[k] = min(gaps[k], gap)
    return gaps


def _levels(radius, bound):
    """The smallest ``h >= 0`` with ``radius / 2**h <= bound``, per row (the
    level of the search whose γ is at most ``bound`` and more than half of
    it); 0 where the bound is not positive and finite."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        h = np.ceil(np.log2(radius / bound))
    # 1100 halvings take any float64 radius below the smallest float.
    h = np.where(np.isfinite(h), np.clip(h, 0, 1100), 0).astype(np.int64)
    # log2 is rounded: settle the level on the exact comparisons.
    h += np.ldexp(radius, -h) > bound
    h -= (h > 0) & (np.ldexp(radius, -(h - 1)) <= bound)
    return h


class _SearchTrainer(LinearTrainer):
    """The trainer of ``margin="auto"`` (see the Notes of
    :class:`MarginPerceptron`): the margin rule at every row's current γ,
    which after every epoch drops to the level of the row's certified upper
    bound on the maximum margin (or one level down, when the run made more
    updates than a margin-γ separator allows).  The iterates go on from
    where they are; their average over every visit of the fit is kept
    alongside (in the state itself when the estimator averages), the model
    of a row that does not converge.  Rows stop by the driver's rules
    (convergence, the tol rule, early stopping, ``max_iter``); with a
    validation set the trainer keeps every row's best validation epoch.  A
    row that drops two levels or more at once starts again from ``w~ = 0``;
    the tol rule stops a row only once its γ has come down."""

    keeps_own_best = True

    def __init__(self, X, y_class, step, table, state, *, fit_intercept, search,
                 bound, epsilon, train_idx, signs_of_class, keep_best, tol):
        n_rows = state.coef.shape[0]
        self.train_idx = train_idx
        self.signs_of_class = signs_of_class
        self.averaged = state.average
        if not state.average:
            # The running average, over the iterates themselves (no copy).
            state = LinearState(state.coef, state.intercept, True)
        super().__init__(X, y_class, step, table, state,
                         fit_intercept=fit_intercept,
                         rule=Rule(RULE_MARGIN, np.zeros(n_rows), np.zeros(n_rows)))
        self.search = search
        self.bound = bound
        self.epsilon = epsilon
        self.tol = tol
        self.radius = np.sqrt(search.sq_radius)
        # Rows that no sample can update never prove anything.
        self.usable = (search.sq_radius > 0) & (search.step_max > 0)
        self.step_min = np.where(self.usable, search.step_min, 1.0)
        self.reach = np.where(self.usable, search.step_max, 0.0) * self.radius
        # ||w~|| at the start of the fit (as the margin rule computes it),
        # and the updates since.
        self.start = weight_norms(state.coef, state.intercept, fit_intercept)
        self.updates = np.zeros(n_rows, dtype=np.int64)
        # Rows that converged: an epoch in which they were trained made no
        # update (the driver's verdict too); their iterate is then fixed.
        self.fixed = np.zeros(n_rows, dtype=bool)
        # Rows whose γ came down at least once in this fit.
        self.dropped = np.zeros(n_rows, dtype=bool)
        # The norms of the iterates that the passes start from and keep up
        # to date; ``exact`` where computed from the weights since their last
        # update.  Computing them costs O(n_features) per row, as much as a
        # pass over wide sparse data: it is done only when a bound may have
        # fallen below γ, when a row converged from a kept norm, and every
        # _SYNC epochs (see end_epoch).
        self.norm = self.start.copy()
        self.exact = np.ones(n_rows, dtype=bool)
        self.unsynced = 0
        # Rows that converged in the last pass from a kept norm, and the
        # norms they started from.
        self.unverified = np.zeros(n_rows, dtype=bool)
        self.pass_norm = self.norm.copy()
        # Rounding: of the iterate (per update, see _certified_bounds), and
        # of the norm, accumulated in float64 over n_features + 1 squares.
        self.rounding = 2.0 * np.finfo(state.coef.dtype).eps
        self.norm_slack = 1.0 + (X.shape[1] + 8) * _EPS64
        self.best = None
        if keep_best:
            self.best = (*self.model(), np.full(n_rows, -np.inf))
        self._level_changed()

    def _level_changed(self):
        self.gamma = np.ldexp(self.radius, -self.search.halvings)
        self.rule = self.rule._replace(kappa=(1.0 - self.epsilon) * self.gamma)
        self.budget = self.search.budget(self.epsilon)

    def run_epoch(self, order, active, progress=None):
        state = self.state
        self.pass_norm[:] = self.norm

        def walk(part):
            # The compiled pass updates the kept norms in place, so a pass
            # in chunks (``progress``) resumes with the same arithmetic.
            return run_epoch(
                self.X, state, part, self.y_class, self.step, self.table,
                fit_intercept=self.fit_intercept, active=active,
                rule=self.rule, norm=self.norm,
            )

        updates = in_chunks(walk, order, progress)
        self.search.run_updates += updates
        self.updates += updates
        still = updates == 0
        converged = still & (active != 0)
        self.fixed |= converged
        # A pass without update checked every margin against the norm it
        # started from: a kept one is certified in end_epoch.
        self.unverified = converged & ~self.exact
        self.exact &= still
        return updates

    def _sync(self):
        """Compute the exact norms (and check that the weights are finite:
        a non-finite weight makes its norm so)."""
        state = self.state
        self.norm = weight_norms(state.coef, state.intercept, self.fit_intercept)
        if not np.isfinite(self.norm).all():
            check_finite_weights(state)
        self.exact[:] = True
        self.unsynced = 0

    def _certify(self, stopper, last):
        """Certify the rows that converged in a pass started from kept norms:
        every margin ``m`` passed ``m >= kappa * norm`` with the kept norm,
        which certifies ``m >= kappa * ||w~||`` where the exact norm is not
        larger, or else where the smallest margin passes against it.  A row
        that fails (a tie within rounding) runs again from its exact norm."""
        rows = np.flatnonzero(self.unverified & (self.norm > self.pass_norm))
        self.unverified[:] = False
        if not len(rows):
            return
        idx = self.train_idx
        signs = self.signs_of_class[self.y_class[idx]][:, rows]
        margins = row_scores(self.X, idx, self.state.coef[rows],
                             self.state.intercept[rows]) * signs
        margins[(signs == 0) | (self.step[idx] == 0)[:, None]] = np.inf
        failed = rows[margins.min(axis=0) < self.rule.kappa[rows] * self.norm[rows]]
        if len(failed):
            self.fixed[failed] = False
            stopper.converged[failed] = False
            if not last:
                stopper.active[failed] = 1

    def model(self):
        """Every row's model: its iterate after an epoch without update
        (unless the estimator averages), otherwise its average."""
        coef, intercept = self.state.model()
        if not self.averaged:
            fixed = self.fixed
            coef[fixed] = self.state.coef[fixed]
            intercept[fixed] = self.state.intercept[fixed]
        return coef, intercept

    def scores(self, rows):
        return row_scores(self.X, rows, *self.model())

    def weight_norm(self):
        return float(np.linalg.norm(self.state.coef))

    def _certified_bounds(self, scale=1.0):
        """Upper bounds on every row's maximum margin γ* from its iterate.

        A unit ``u`` with ``s_i u . x~_i >= γ*`` for every sample gains
        ``u . w~ >= γ* c`` from any update of step ``c``, whatever rule
        triggered it; after ``n`` updates from a start of norm ``a``,
        ``||w~|| >= u . w~ >= γ* c_min n - a``, so ``γ* <= (||w~|| + a) /
        (c_min n)``.  The computed iterate differs from the exact one by at
        most ``eps (a + (n + 1) c_max R)`` per update (each update rounds
        once per coordinate, and ``||w~|| <= a + n c_max R`` all along):
        that slack, doubled, is added to the norm, itself inflated by the
        rounding of its float64 sum.
        """
        n = self.updates.astype(np.float64)
        slack = self.rounding * n * (self.start + (n + 1.0) * self.reach)
        with np.errstate(divide="ignore", invalid="ignore"):
            bound = ((self.norm * (self.norm_slack * scale) + slack + self.start)
                     / (self.step_min * n))
        return np.where(self.usable & (n > 0), bound, np.inf)

    def end_epoch(self, epoch, active, updates, stopper, val_score, *, last):
        search = self.search
        if val_score is not None:
            coef, intercept, best_score = self.best
            better = active & (val_score > best_score)
            if np.count_nonzero(better):
                model_coef, model_intercept = self.model()
                coef[better] = model_coef[better]
                intercept[better] = model_intercept[better]
                best_score[better] = val_score[better]
        if val_score is None:
            # The tol rule stops a row only once its γ has come down at least
            # once (see the Notes of MarginPerceptron).
            stopper.active[active & ~stopper.converged & ~self.dropped] = 1
        # A row goes down when its bound fell below its γ, or when its run
        # went over the update budget (no separator of margin γ: one level).
        # The bound is computed exactly when the kept norms (within far less
        # than 1/1000 of the exact ones) say that it may have.
        proved = search.run_updates > self.budget
        self.unsynced += 1
        maybe = self._certified_bounds(1.0 - 1e-3) < self.gamma
        maybe |= proved
        # (And before the fit ends: the final check that the weights are
        # finite, and the certificates of the last passes.)
        if (np.count_nonzero(maybe) or np.count_nonzero(self.unverified)
                or self.unsynced >= _SYNC or last
                or not np.count_nonzero(stopper.active)):
            self._sync()
            self._certify(stopper, last)
            np.minimum(self.bound, self._certified_bounds(), out=self.bound)
        lower = self.bound < self.gamma
        lower |= proved
        lower &= stopper.active != 0
        if last or not np.count_nonzero(lower):
            return ()
        rows = np.flatnonzero(lower)
        self.dropped[rows] = True
        halvings = search.halvings[rows]
        target = np.maximum(_levels(self.radius[rows], self.bound[rows]),
                            halvings + proved[rows])
        target = np.maximum(target, halvings)
        search.lower(rows, target, self.norm[rows])
        # Two levels or more at once: the iterate and its average were made
        # at a γ far above the row's margin (nearly every sample a margin
        # mistake, as in a first epoch); the row starts again from w~ = 0.
        jump = rows[target - halvings >= 2]
        if len(jump):
            self.state.reset_rows(jump)
            search.start_norm[jump] = 0.0
            self.norm[jump] = 0.0
            self.start[jump] = 0.0
            self.updates[jump] = 0
            stopper.restart(jump)
        self._level_changed()
        return _Lowerings(rows, target - halvings, search, self.bound)

    def training_errors(self, model):
        """The weighted training errors of every row of ``model`` (the sum
        of the steps of the training samples its classifier, positive iff
        the score is > 0 as ``predict``, gets wrong)."""
        idx = self.train_idx
        signs = self.signs_of_class[self.y_class[idx]]
        wrong = (row_scores(self.X, idx, *model) > 0) != (signs > 0)
        wrong &= signs != 0
        return self.step[idx] @ wrong

    def _best_intercept(self, k, coef, intercept):
        """The intercept of row ``k``'s model ``(coef, intercept)``, or if it
        does no better on the training data than a constant answer (weighted
        errors), the intercept with the fewest weighted training errors: an
        exact search over the cuts between the sorted scores, the two ends
        (a constant answer) included, the cut nearest to the old one among
        equals, and a constant answer unless a cut errs less by more than
        ``tol`` of the total weight.  Costs a scoring pass and a sort."""
        idx = self.train_idx
        signs = self.signs_of_class[self.y_class[idx], k]
        weights = np.where(signs != 0, self.step[idx], 0.0)
        positive = signs > 0
        scores = row_scores(self.X, idx, coef[None], np.zeros(1, coef.dtype))[:, 0]
        errors = weights @ ((scores + intercept > 0) != positive)
        if errors < min(weights @ positive, weights @ ~positive):
            return intercept
        order = np.argsort(scores, kind="stable")
        ordered, w = scores[order], weights[order]
        is_positive = positive[order]
        # Cutting after the j smallest scores (negative below, positive
        # above) errs on the positives below and the negatives above; only
        # cuts between distinct scores can be made by a threshold.
        below = np.concatenate([[0.0], np.cumsum(np.where(is_positive, w, 0.0))])
        above = np.concatenate(
            [np.cumsum(np.where(is_positive, 0.0, w)[::-1])[::-1], [0.0]])
        cut_errors = below + above
        valid = np.ones(len(ordered) + 1, dtype=bool)
        valid[1:-1] = ordered[1:] > ordered[:-1]
        thresholds = np.concatenate([
            [ordered[0] - max(1.0, abs(ordered[0]))],
            (ordered[:-1] + ordered[1:]) / 2.0,
            [ordered[-1] + max(1.0, abs(ordered[-1]))]])
        best = np.flatnonzero(valid & (cut_errors == cut_errors[valid].min()))
        cut = best[np.argmin(np.abs(thresholds[best] + intercept))]
        if self.tol is not None:
            # A cut within the scores must beat the better constant answer
            # by more than tol (of the total weight), as an epoch must beat
            # the best so far for the tol rule: a hair's gain on the
            # training data predicts worse than the majority.
            ends = np.array([0, len(ordered)])
            end = ends[np.argmin(cut_errors[ends])]
            if cut_errors[cut] >= cut_errors[end] - self.tol * weights.sum():
                cut = end
        return -thresholds[cut]

    def current_model(self):
        """The model of every row (see :meth:`model`), or with a validation
        set its best validation epoch: what :meth:`final_model` would return
        now, without changing the state."""
        if self.best is not None:
            coef, intercept = self.best[0].copy(), self.best[1].copy()
        else:
            coef, intercept = self.model()
            if (self.n_rows == 1 and self.fit_intercept
                    and not (self.averaged or self.fixed[0])):
                # A binary model that does no better on its training data
                # than a constant answer gets the intercept that errs least
                # (see the Notes of MarginPerceptron).
                intercept[0] = self._best_intercept(0, coef[0], intercept[0])
        return coef, intercept

    def final_model(self):
        """:meth:`current_model`, after which the state becomes the
        estimator's own kind again (without averaging sums unless it
        averages)."""
        coef, intercept = self.current_model()
        if not self.averaged:
            plain = LinearState(self.state.coef, self.state.intercept, False)
            plain.visits[:] = self.state.visits
            self.state = plain
        return coef, intercept


class _Lowerings:
    """The lowerings of gamma at the end of an epoch, for the verbose lines
    (formatted only when printed: see the driver's ``end_epoch``)."""

    def __init__(self, rows, levels, search, bound):
        self.rows, self.levels, self.search = rows, levels, search
        self.bound = bound[rows].copy()

    def summary(self):
        """One phrase: the new gamma (its range over several rows)."""
        gamma = self.search.gamma()[self.rows]
        low, high = float(gamma.min()), float(gamma.max())
        now = f"{low:.4g}" if low == high else f"{low:.4g} to {high:.4g}"
        if self.search.halvings.shape[0] == 1:
            return f"gamma lowered to {now}"
        n = len(self.rows)
        rows = "1 row" if n == 1 else f"{n} rows"
        return f"gamma lowered in {rows}, now {now}"

    def details(self):
        """A line per row."""
        gamma = self.search.gamma()
        return [f"row {k}: gamma lowered by {int(levels)} level(s) to "
                f"{gamma[k]:.6g} (the maximum margin is at most {bound:.6g})"
                for k, levels, bound in zip(self.rows, self.levels, self.bound)]


def searches_margin(estimator):
    """Whether ``estimator`` is a :class:`MarginPerceptron` with the online
    margin search (``margin="auto"``), whose binary problems a reduction
    can stack in one :class:`~.stream.MarginStream` (see
    :func:`~.stream.reduction_search`)."""
    return type(estimator) is MarginPerceptron and estimator.margin == "auto"


def search_state(estimator):
    """The state of the online margin search of a fitted
    ``MarginPerceptron(margin="auto")`` (None before its first pass)."""
    return getattr(estimator, "_search_state", None)


def adopt_search_row(estimator, state, search):
    """Make the fitted binary ``estimator`` hold ``state`` and ``search``,
    the views of its row in a reduction's stacked search (see
    :func:`~.stream.reduction_search`): the passes over the stacked rows
    then update it in place."""
    set_binary_state(estimator, state)
    estimator._search_state = search


@shared_doc
class MarginPerceptron(EpochParameters, BaseLinearPerceptron):
    """The margin perceptron, with a certified search for a large margin.

    Works on the padded vectors ``x~ = [x; 1]`` and weights ``w~ = [w; b]``
    when ``fit_intercept`` (on ``x`` and ``w`` otherwise).  A sample of sign
    ``s`` (+1 for ``classes_[1]``, -1 otherwise) triggers the perceptron
    update ``w~ += c * s * x~`` (``c`` its sample weight times its class
    weight) when ``w~ = 0`` or when its signed distance to the hyperplane,
    ``d = s * (w~ . x~) / ||w~||``, is below ``(1 - epsilon) * gamma``: a
    mistake, or a correct answer too close to the hyperplane (a margin
    mistake).  Starts from ``w~ = 0``.  More than two classes are learned
    one-vs-all, all K rows in one pass over X per epoch.

    **When to use it.**  When you want a perceptron whose answer keeps a
    margin: on separable data it finds a hyperplane with at least a quarter
    of the largest margin (``margin="auto"``), a certified approximation of
    the hard-margin SVM at the cost of a few perceptron epochs; where it
    does not converge (data that are not separable, or a search the tol
    rule ends first) it returns the average of its iterates, as
    ``Perceptron(average=True)`` does.

    **Cost.**  With a float ``margin`` an epoch costs the same as
    :class:`Perceptron`'s.  "auto" keeps the running average of the
    iterates (one more float64 array the size of ``coef_``; an update costs
    about twice a plain one), computes the norms of the weight rows
    (``O(n_classes * n_features)``) when γ may change and at least every 8
    epochs, reads X once more before the first epoch (the class means) and
    scores the training data once after the last; it runs until every row
    converges or the tol rule stops it (see Notes).  A ``partial_fit`` call
    on a few rows with "auto" adds to the pass only the rows' norms and the
    search's bookkeeping of every row.

    Parameters
    ----------
    margin : float > 0 or "auto", default="auto"
        The target margin γ.  A float is used as is.  "auto" searches for a
        large margin (see Notes): γ stays within a factor 2 below a
        certified upper bound on the maximum margin, which the class means
        give at the start and the iterates lower as they learn, so that a
        row that converges has at least a quarter of the maximum margin.

    epsilon : float in (0, 1], default=0.5
        Approximation parameter ε: samples closer to the hyperplane than
        ``(1 - epsilon) * gamma`` trigger an update.  On data of radius R
        separable with margin γ, a run makes at most ``4 R² / (ε² γ²)``
        updates (``16 R² / γ²`` at ε = 1/2).  ``epsilon=1`` is the perceptron
        with the strict rule ``d < 0`` (or ``w~ = 0``).

    fit_intercept : bool, default=True
        Whether to learn an intercept ``b``; margins and radii are then those
        of the padded vectors.

    max_iter : int, default=1000
        Maximum number of epochs of ``fit``; with "auto", over all the
        levels of the search together.

    tol : float or None, default=1e-3
        Stopping tolerance, as in :class:`Perceptron`: when not None, a row
        stops after ``n_iter_no_change`` consecutive epochs whose number of
        updates did not fall below ``best - tol * n_samples`` (or, with early
        stopping, whose validation accuracy did not rise above
        ``best + tol``), unconverged; with "auto", only once its γ has come
        down at least once, and it then returns the average of its iterates
        (see Notes).  ``None``: only convergence or ``max_iter`` end a fit.

    n_iter_no_change : int, default=5
        Number of epochs without improvement before the tol rule stops a
        row.

    shuffle : bool, default=True
        Whether to visit the samples in a fresh random order every epoch;
        otherwise cyclically (row 0, 1, ..., n - 1).

    average : bool, default=False
        If True, ``coef_`` and ``intercept_`` are the average of ``(w, b)``
        over every sample visit of training, computed without storing the
        history (also for rows that converge; with "auto" a row that does
        not converge gets the average anyway, see Notes).

    class_weight : dict, "balanced" or None, default=None
        Weights of the classes: an update on a sample of class ``j`` is
        scaled by ``class_weight[j]`` (in the one-vs-all sub-problem of class
        ``k`` a sample keeps the weight of its own class). Weights must be
        finite and >= 0.

    early_stopping : bool, default=False
        Whether to hold out ``validation_fraction`` of the training data and
        stop each row when its validation accuracy has not risen above
        ``best + tol`` for ``n_iter_no_change`` epochs (with "auto" too); the
        coefficients of each row's best validation epoch are kept, as in
        :class:`Perceptron` (with "auto", its model then: see Notes).

    validation_fraction : float, default=0.1
        Fraction of the training data held out for early stopping.

    warm_start : bool, default=False
        If True, ``fit`` starts from the last iterate of the previous fit
        (and, with "auto", at most at the previous fit's last γ: no
        higher level than ``h`` of its ``gamma_ = R / 2**h``).

    random_state : int, RandomState instance or None, default=0
        Seed of the epoch permutations and of the validation split.

    verbose : int, default=0
        {{verbose_lines}}
        The norm is ``||w||``, the Euclidean norm of the current weights of
        every row (the iterate, not the average; intercepts left out).
        With ``margin="auto"``, an epoch after which the search lowered γ is
        followed by a line with the new γ (its range over the rows); at
        ``verbose > 1``, a line per row with the bound on the maximum margin
        that lowered it.

    {{grow_classes_param}}

    {{linear_coef_attrs}}

    margin_ : float or ndarray of shape (n_classes,)
        The smallest signed distance ``s * (w~ . x~) / ||w~||`` of a sample
        of the last ``fit`` (every sample of X, whatever its weight) to the
        learned hyperplane ``(coef_, intercept_)``; negative when a sample is
        misclassified, 0.0 for ``w~ = 0``.  After ``partial_fit``: over the
        samples of the last batch.  One value per one-vs-all row when
        multiclass.  Equal to :func:`sklearn_perceptrons.bounds.margin`.

    gamma_ : float or ndarray of shape (n_classes,)
        The γ used: ``margin`` for a float; with "auto", the last γ tried,
        ``R / 2**h`` (R the radius of the padded training data of the row,
        ``h >= 0`` its level).

    {{classes_attrs}}

    n_iter_ : int
        Epochs run by the last ``fit`` (the largest number over one-vs-all
        rows, all levels of the search included); after ``partial_fit``, the
        number of passes since the first.

    n_mistakes_ : int
        Updates (mistakes and margin mistakes) made by the last ``fit`` over
        all rows; ``partial_fit`` adds to it.

    {{epoch_record_attrs}}

    See Also
    --------
    Perceptron : The standard perceptron.
    sklearn.svm.LinearSVC : The (soft) maximum-margin linear classifier.
    sklearn_perceptrons.bounds.max_margin : The exact maximum margin.

    Notes
    -----
    **The guarantee.**  If every ``||x~_i|| <= R`` and a unit vector separates
    the data with margin γ (``s_i u . x~_i >= γ``), a run from ``w~ = 0``
    with unit steps makes at most ``4 R² / (ε² γ²)`` updates, in any order:
    ``u . w~`` grows by ≥ γ per update while, once ``||w~|| >= 2 R² / (ε γ)``,
    ``||w~||`` grows by at most ``(1 - 3ε/4) γ``.  When it converges (an
    epoch without update), every sample is at distance ``>= (1 - epsilon)
    * gamma`` (γ/2 at ε = 1/2) from the hyperplane.  With steps ``c_i``
    between ``c_min`` and ``c_max`` (sample and class weights) the same
    argument bounds ``sum c / c_max``, hence the number of updates by
    ``(c_max / c_min) * 4 R² / (ε² γ²)``; from a start of norm ``a > 0`` by
    ``4 (a + max(a, 2 c_max R² / (ε γ) + c_max R)) / (3 ε γ c_min)``.

    **margin="auto".**  Every one-vs-all row searches on its own, with
    ``R`` the radius of the padded training samples that can update it
    (positive weight), at ``gamma = R / 2**h``: the level ``h >= 0`` is the
    smallest whose γ is at most ``U``, a certified upper bound on the row's
    maximum margin γ*, so that ``γ* <= U < 2 γ``.  ``U`` only falls:

    * before the first epoch it is half the distance between the means of
      the row's positive and negative samples (their midpoint is a convex
      combination of the signed samples ``s_i x~_i``, and no such
      combination is shorter than γ*: ``u . z >= min_i s_i u . x~_i`` for any
      of them), at most R.  Starting at R instead would spend the first
      epochs where every sample is a margin mistake when a few rare, large
      feature values (a pixel that is nonzero on a few images, standardized)
      make R many times the typical norm of a sample;
    * after every epoch it takes the bound of the iterate: after ``n``
      updates from a start of norm ``a``, a unit separator ``u`` of margin
      γ* would give ``||w~|| >= u . w~ >= γ* c_min n - a``, so ``γ* <=
      (||w~|| + ρ + a) / (c_min n)`` (ρ a bound on the rounding of the
      iterate).  The margin rule lets ``||w~||`` grow by about
      ``(1 - ε) γ`` per update, so while a row keeps making updates at a γ
      above γ* this bound falls below γ and the row moves down.

    A row whose updates since its γ last changed exceed the bound of the
    guarantee (that of a run started at the norm of the iterate then) also
    moves one level down.  The iterate goes on from where it is, unless the
    row moves down two levels or more at once: that iterate was made at a γ
    far above the row's margin (nearly every sample a margin mistake, as in
    a first epoch: the sum of the signed samples, intercept included), and
    the row starts again from ``w~ = 0``, its average and its tol rule
    anew (the bound stays).  Rows stop when they converge (an epoch without
    update), by the tol rule (as in :class:`Perceptron`, also with early
    stopping), or at ``max_iter`` (with a ``ConvergenceWarning``).  Without
    early stopping the tol rule
    stops a row only once its γ has come down at least once: a run that
    converges can make the same few updates for several epochs, and on
    data that are not separable γ comes down within a few epochs (the bound
    of the iterate falls like ``1 / n`` there).

    **The model.**  A row that converges keeps its last iterate (unless
    ``average=True``): every training sample is at distance
    ``>= (1 - epsilon) * gamma``, and since ``γ* < 2 gamma``, ``margin_ >
    (1 - epsilon) * γ* / 2`` (γ*/4 at ε = 1/2), whatever ``tol``; only a
    warm start on other data, whose level is carried over, voids it.  A row
    that does not converge (data that are not separable, or a search that
    the tol rule or ``max_iter`` ends first; ``converged_`` is then False)
    gets the average of its iterates over every visit of the fit.  The
    average damps the oscillation of the iterates on data that are not
    separable and generalizes better than the epoch with the fewest
    training errors (a pocket, which also ranks the one-vs-all rows
    poorly), or than the last iterate, which often makes fewer training
    errors.  A binary average that does no better on the training data than
    a constant answer (weighted training errors: the sum of the sample and
    class weights of the samples a model gets wrong) gets the intercept
    with the fewest weighted training errors (an exact search over the
    thresholds between its sorted scores, the constant answers included; a
    threshold within the scores only if it errs less than both constant
    answers by more than ``tol`` of the total weight), so that a binary
    model never does worse on its training data than predicting one class: under very uneven class weights the average lags
    behind iterates whose intercept keeps growing, and on data that no
    hyperplane separates well it can end on the wrong side of the majority
    rate.  (In one-vs-all the rows only rank the classes, and are left as
    they are.)  With ``early_stopping`` every row keeps the model of its
    best validation epoch.

    **partial_fit with "auto"** runs the same certified rule online: row
    ``k`` uses ``gamma_k = R_k / 2**h_k`` with ``R_k`` the radius of the
    rows seen so far (so γ starts at that radius, and follows it when it
    grows), and as soon as the updates of its current run exceed the bound
    (with the running radius and step range) ``h_k`` increases by one and
    the run restarts from ``w~ = 0``.  The bound holds with the γ and R of
    the moment, since both only grew during the run.  The check is exact
    (the pass is split where the bound can be reached or the radius grows),
    so one call on a batch equals one call per row.  After a ``fit`` with
    "auto" the online search continues that fit's last run.  With unit
    weights, from ``w~ = 0``, on a stream separable with margin γ* it makes
    at most ``64 R² / (3 ε² γ*²) + log2(2 R / γ*)`` updates in total.

    **No eta0.**  The margin rule does not depend on the scale of ``w~``, so
    the update size is ``sample_weight * class_weight``.

    References
    ----------
    .. [1] W. Krauth and M. Mézard, "Learning algorithms with optimal
       stability in neural networks", Journal of Physics A 20(11), 1987.
    .. [2] A. Blum and J. Dunagan, "Smoothed analysis of the perceptron
       algorithm for linear programming", SODA, 2002.
    .. [3] P. Tsampouka and J. Shawe-Taylor, "Approximate maximum margin
       algorithms with rules controlled by the number of mistakes", ICML,
       2007.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_perceptrons import MarginPerceptron
    >>> from sklearn_perceptrons.bounds import max_margin
    >>> X, y = load_iris(return_X_y=True)
    >>> y = y == 0  # setosa vs. the rest: separable
    >>> clf = MarginPerceptron(tol=None, random_state=0).fit(X, y)
    >>> clf.converged_
    True
    >>> gamma_star = max_margin(X, y)[0]
    >>> bool(clf.margin_ >= gamma_star / 4)
    True
    >>> clf.score(X, y)
    1.0
    """

    margin: float | str = "auto"
    epsilon: float = 0.5

    _state_types = {"_state": LinearState, "_search_state": _MarginSearch}

    _parameter_constraints = {
        **BaseLinearPerceptron._parameter_constraints,
        "margin": [
            Interval(numbers.Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "epsilon": [Interval(numbers.Real, 0, 1, closed="right")],
    }

    @property
    def _rule_reads_data(self):
        # The first level of the search is read from X.
        return self.margin == "auto"

    def _rule(self, X, n_rows):
        if self.margin == "auto":
            # The first level of the search (the search itself sets the
            # margin of every row; see _SearchTrainer and _partial_pass).
            gamma = np.sqrt(_padded_sq_norms(X, self.fit_intercept).max())
        else:
            gamma = float(self.margin)
        return Rule(RULE_MARGIN, np.zeros(n_rows),
                    np.full(n_rows, (1.0 - self.epsilon) * gamma))

    # -- fit -----------------------------------------------------------------

    def _trainer(self, X, y_class, step, table, state, train_idx):
        if self.margin != "auto":
            return super()._trainer(X, y_class, step, table, state, train_idx)
        n_rows = state.coef.shape[0]
        signs_of_class = sign_matrix(table, len(table[0]) - 1, n_rows)
        sq_radius, step_min, step_max = _row_geometry(
            _padded_sq_norms(X, self.fit_intercept)[train_idx],
            y_class[train_idx], step[train_idx], signs_of_class,
        )
        radius = np.sqrt(sq_radius)
        # The first level: that of the class means' bound on γ* (R at most).
        bound = _class_mean_gaps(X, train_idx, y_class, step, signs_of_class,
                                 radius)
        halvings = np.where(sq_radius > 0, _levels(radius, bound), 0)
        previous = getattr(self, "_search_state", None)
        if (self.warm_start and previous is not None
                and previous.halvings.shape == (n_rows,)):
            halvings = np.maximum(halvings, previous.halvings)
        search = _MarginSearch(
            sq_radius, halvings, np.zeros(n_rows, dtype=np.int64),
            _weight_norms(state.coef, state.intercept, self.fit_intercept),
            step_min, step_max,
        )
        return _SearchTrainer(
            X, y_class, step, table, state, fit_intercept=self.fit_intercept,
            search=search, bound=np.where(sq_radius > 0, bound, np.inf),
            epsilon=float(self.epsilon), train_idx=train_idx, tol=self.tol,
            signs_of_class=signs_of_class, keep_best=bool(self.early_stopping),
        )

    def _finish_fit(self, trainer, record, X, y_class, signs_of_class):
        n_rows = trainer.n_rows
        if isinstance(trainer, _SearchTrainer):
            coef, intercept = trainer.final_model()
            search, gamma = trainer.search, trainer.search.gamma()
        else:
            coef, intercept = trainer.state.model()
            search, gamma = None, np.full(n_rows, float(self.margin))
        self._search_state = search
        self._set_margins(X, y_class, signs_of_class, coef, intercept, gamma)
        return coef, intercept

    def _current_model(self, trainer, stopper):
        if isinstance(trainer, _SearchTrainer):
            return trainer.current_model()
        return super()._current_model(trainer, stopper)

    def _finish_row(self, X, samples):
        indices, signs = samples()
        coef, intercept = self.coef_, self.intercept_
        scores = row_scores(X, indices, coef, intercept).ravel()
        norm = _weight_norms(coef, intercept, self.fit_intercept)[0]
        self.margin_ = float((signs * scores).min() / norm) if norm > 0 else 0.0
        self.gamma_ = float(self.margin)
        # What the margin perceptron's own fit leaves for a float margin: no
        # margin search in progress.
        self._search_state = None

    # -- partial_fit ---------------------------------------------------------

    _published_attributes = {
        **BaseLinearPerceptron._published_attributes,
        "margin_": "_margin", "gamma_": "_gamma",
    }

    margin_ = ComputedAttribute("_margin_and_gamma", 0)
    gamma_ = ComputedAttribute("_margin_and_gamma", 1)

    def _margin_and_gamma(self):
        """``(margin_, gamma_)``: as set by the last fit or pass, or
        computed from the batch of the last lean call (see
        :meth:`_after_learn`) when first read after it."""
        margin, gamma = self._margin, self._gamma
        if margin is None or gamma is None:
            X, y, fixed = self._last_batch
            classes, state = self.classes_, self._state
            n_rows, table = self._layout(classes.shape[0])
            self._set_margins(
                X, class_indices(classes, np.asarray(y)),
                sign_matrix(table, len(table[0]) - 1, n_rows),
                *state.model(),
                self._search_state.gamma() if fixed is None
                else np.full(n_rows, fixed),
            )
            margin, gamma = self._margin, self._gamma
        return margin, gamma

    # The search state of "auto" is part of what a lean call must find
    # unchanged.
    _lean_key_attributes = ("_state", "_search_state", "classes_")

    @property
    def _stream_plain(self):
        # A fixed margin is the plain pass with the margin rule (and
        # diagnostics, see _after_stream); "auto" searches online.
        return self.margin != "auto"

    def _after_stream(self, X, state, y_class, table):
        n_rows = state.coef.shape[0]
        self._search_state = None
        self._set_margins(X, y_class, sign_matrix(table, len(table[0]) - 1, n_rows),
                          *state.model(), np.full(n_rows, float(self.margin)))

    def _after_learn(self, X, y, stream, total):
        super()._after_learn(X, y, stream, total)
        self._defer_row_diagnostics(
            X.copy(), y.copy() if type(y) is np.ndarray else list(y))

    def _defer_row_diagnostics(self, X, y):
        # margin_ and gamma_ are computed from this batch when read (gamma_
        # of "auto" from the search state, which only a later call changes).
        self._last_batch = (X, y, None if self.margin == "auto"
                            else float(self.margin))
        self._margin = self._gamma = None

    def _arm_stream(self, cache, stream, state, classes, table):
        if self.margin != "auto":
            return super()._arm_stream(cache, stream, state, classes, table)
        # The online search: its own lean stream over the compiled pass of
        # the state, armed anew after every full call (which replaces the
        # search state).
        cache.pop("fast", None)
        search = getattr(self, "_search_state", None)
        if search is None or self._crammer_singer() or not self._lean_calls():
            return
        labels = label_index(classes)
        if labels is None:
            return
        cache["fast"] = MarginStream(
            state, search, table, fit_intercept=self.fit_intercept,
            epsilon=self.epsilon, eta=self._learning_rate(), labels=labels,
            key=self._lean_key(), name=type(self).__name__)

    def _grow_rows(self, source, sign):
        # The online search of a new class's row starts as a new search
        # does: no radius, no step seen, gamma to be found.
        super()._grow_rows(source, sign)
        search = self.__dict__.get("_search_state")
        if search is not None:
            self._search_state = _MarginSearch(
                reindex_rows(search.sq_radius, source),
                reindex_rows(search.halvings, source),
                reindex_rows(search.run_updates, source),
                reindex_rows(search.start_norm, source),
                reindex_rows(search.step_min, source, fresh=np.inf),
                reindex_rows(search.step_max, source),
            )

    def _partial_pass(self, X, state, y_class, step, table):
        n_rows = state.coef.shape[0]
        signs_of_class = sign_matrix(table, len(table[0]) - 1, n_rows)
        if self.margin == "auto":
            updates, search = self._online_search_pass(
                X, state, y_class, step, table, signs_of_class
            )
            gamma = search.gamma()
        else:
            updates = super()._partial_pass(X, state, y_class, step, table)
            search, gamma = None, np.full(n_rows, float(self.margin))
        self._search_state = search
        self._set_margins(X, y_class, signs_of_class, *state.model(), gamma)
        return updates

    def _online_search_pass(self, X, state, y_class, step, table, signs_of_class):
        """One pass of the online certified search (see Notes)."""
        n_samples, n_rows = X.shape[0], state.coef.shape[0]
        epsilon = float(self.epsilon)
        previous = getattr(self, "_search_state", None)
        if previous is not None and previous.halvings.shape == (n_rows,):
            search = previous.copy()
        else:
            search = _MarginSearch(
                np.zeros(n_rows), np.zeros(n_rows, dtype=np.int64),
                np.zeros(n_rows, dtype=np.int64),
                _weight_norms(state.coef, state.intercept, self.fit_intercept),
                np.full(n_rows, np.inf), np.zeros(n_rows),
            )
        # Running radius and step range of every row after each sample (the
        # rows before the first are the state carried over).
        counts = (signs_of_class[y_class] != 0) & (step > 0)[:, None]
        sq_norms = _padded_sq_norms(X, self.fit_intercept)[:, None]
        sq_radius = np.maximum.accumulate(np.concatenate(
            [search.sq_radius[None], np.where(counts, sq_norms, 0.0)]), axis=0)
        step_min = np.minimum.accumulate(np.concatenate(
            [search.step_min[None], np.where(counts, step[:, None], np.inf)]),
            axis=0)[1:]
        step_max = np.maximum.accumulate(np.concatenate(
            [search.step_max[None], np.where(counts, step[:, None], 0.0)]),
            axis=0)[1:]
        # The margin of a row changes where its radius grows: split there.
        breaks = np.append(
            np.flatnonzero((sq_radius[1:] > sq_radius[:-1]).any(axis=1)), n_samples)
        sq_radius = sq_radius[1:]
        total = np.zeros(n_rows, dtype=np.int64)
        all_rows = np.ones(n_rows, dtype=np.uint8)
        no_threshold = np.zeros(n_rows)
        start = 0
        while start < n_samples:
            search.sq_radius = sq_radius[start]
            search.step_min, search.step_max = step_min[start], step_max[start]
            # Up to ``floor(budget) - run_updates + 1`` visits cannot exceed
            # the budget before their last one: check right after it.
            room = np.floor(search.budget(epsilon)) - search.run_updates + 1
            room = room.min() if np.isfinite(room).any() else np.inf
            stop = min(breaks[np.searchsorted(breaks, start, side="right")],
                       start + max(int(min(room, n_samples)), 1))
            updates = run_epoch(
                X, state, np.arange(start, stop, dtype=np.int32), y_class, step,
                table, fit_intercept=self.fit_intercept, active=all_rows,
                rule=Rule(RULE_MARGIN, no_threshold,
                          (1.0 - epsilon) * search.gamma()),
            )
            total += updates
            search.run_updates += updates
            search.step_min, search.step_max = step_min[stop - 1], step_max[stop - 1]
            proved = np.flatnonzero(search.run_updates > search.budget(epsilon))
            if len(proved):
                search.restart(state, proved)
            start = stop
        return total, search

    # -- diagnostics -------------------------------------------------------

    def _set_margins(self, X, y_class, signs_of_class, coef, intercept, gamma):
        """Set ``margin_`` (over the samples of X) and ``gamma_``."""
        scores = row_scores(X, np.arange(X.shape[0], dtype=np.int32),
                            coef, intercept)
        signs = signs_of_class[y_class]
        functional = scores * signs
        takes_part = signs != 0
        if not takes_part.all():
            functional[~takes_part] = np.inf
        smallest = functional.min(axis=0)
        norms = _weight_norms(coef, intercept, self.fit_intercept)
        # min_i (m_i / ||w~||) = (min_i m_i) / ||w~|| exactly (division by a
        # positive number is monotone in floating point too).
        margin = np.zeros(coef.shape[0])
        np.divide(smallest, norms, out=margin, where=norms > 0)
        margin[np.isinf(smallest)] = np.nan  # no sample of this row
        binary = coef.shape[0] == 1
        self.margin_ = float(margin[0]) if binary else margin
        self.gamma_ = float(gamma[0]) if binary else np.asarray(gamma, dtype=float)
