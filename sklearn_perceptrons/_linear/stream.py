# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The one-row path of the linear family: ``partial_fit`` on a few rows at
the cost of their updates, O(nnz) per weight row for CSR rows.

A full ``partial_fit`` call (every check, then the pass) arms a *stream*, an
object bound to the estimator's state.  The stream takes the next calls by
itself while nothing it was armed with has changed (its *key*: the state,
the classes and the parameters, compared by identity or equality), and
declines anything else, touching nothing, for the full path, which reports
what is wrong.  Every stream reads the rows of a call through
:func:`~sklearn_perceptrons._core.base.lean_rows`, the package's one check
of the rows of a lean call, and looks its labels up in a dict
(:func:`~sklearn_perceptrons._core.base.lean_codes`).  The pass itself is
compiled (``Stream`` of ``_linear_epoch.pxi``, or the second-order pass): it
updates the state in place only once it cannot fail.  A stream never
touches its estimator: it returns what changed, and the estimator applies
its own bookkeeping.

* :class:`LinearStream`: the plain rules (``Perceptron``,
  ``MarginPerceptron`` with a fixed margin), binary or one-vs-all, and the
  stacked rows of a reduction's binary estimators;
* :class:`MarginStream`: the online margin search of
  ``MarginPerceptron(margin="auto")``, of one estimator or of a reduction's
  binary estimators stacked (:func:`reduction_search`);
* :class:`SecondOrderStream`: ``SecondOrderPerceptron``;
* :class:`ReductionStream`: the lean call of ``OneVsAllPerceptron`` and
  ``OneVsOnePerceptron`` over a :class:`LinearStream` or a
  :class:`MarginStream` of their stacked rows.
"""

import collections
import dataclasses
import math

import numpy as np

from .._core.base import lean_codes, lean_rows
from .rows import (
    RULE_ALMA,
    RULE_MARGIN,
    SAFE_LIMIT,
    LinearState,
    Rule,
    coupled_rule,
    linear_fast,
    padded_sq_norms,
    row_arrays,
    row_views,
    safe_bound,
    scaled_rule,
    weight_bound,
)


def same_key(key, armed):
    """Whether ``key`` is the key a stream was armed with: the same objects,
    or values that compare equal (False for values without a truth value)."""
    try:
        return key == armed
    except (ValueError, TypeError):
        return False


def lean_call(stream, key, X, y, dtype=None):
    """``(X, codes)`` of a call that ``stream`` can take, or None (the
    caller then goes the full way): the key it was armed with, rows of its
    width (and of ``dtype`` when given) and labels it knows, checked in the
    one order every stream uses."""
    if stream.labels is None or not same_key(key, stream.key):
        return None
    X = lean_rows(X, stream.n_features, stream.name)
    if X is None or (dtype is not None and X.dtype != dtype):
        return None
    codes = lean_codes(stream.labels, y, X.shape[0])
    return None if codes is None else (X, codes)


def streams(rule):
    """Whether a stream takes the passes of ``rule``: a rule whose updates
    are bounded (``rule.reach``), without a penalty, of the plain walk or
    ALMA_2 (the one rule of the scaled walk whose bound holds per pass).
    Any other rule's passes are checked on a copy of the state."""
    return (rule.penalty is None and rule.reach is not None
            and rule.power == 2.0
            and (not scaled_rule(rule.code) or rule.code == RULE_ALMA)
            and not coupled_rule(rule.code))


def compiled_stream(state, table, rule, fit_intercept, kappa=None):
    """The compiled pass (``Stream``) bound to ``state``, its ``table`` and
    its ``rule`` (``kappa``: an array of margin thresholds to use in place
    of the rule's, which the caller may change between passes)."""
    return linear_fast.Stream(
        (state.coef, state.intercept, state.coef_sum, state.intercept_sum,
         state.visits),
        tuple(table),
        (rule.code, np.ascontiguousarray(rule.threshold, dtype=np.float64),
         np.ascontiguousarray(rule.kappa, dtype=np.float64)
         if kappa is None else kappa,
         rule.sparse_intercept_rate, fit_intercept, state.average),
        weight_bound(state), SAFE_LIMIT[state.coef.dtype],
        float(rule.reach), rule.normalized, getattr(state, "counts", None),
    )


class LinearStream:
    """The lean ``partial_fit`` of a linear state trained by a plain rule
    (the rule of :class:`~.rows.Rule` without a penalty, the rows of a
    table treated alone).

    Parameters
    ----------
    state : LinearState
        The estimator's state, updated in place.
    table : tuple of ndarrays
        The row table of the classes.
    rule : Rule
        The update rule of every row.
    fit_intercept : bool
        Whether the rows learn an intercept.
    labels : dict or None
        ``{label: class index}``; None: the stream takes no whole call
        (:meth:`learn` declines), only the passes of the full path
        (:meth:`run`).
    eta : float
        The size of an update of a lean call.
    key : tuple
        What a lean call must find unchanged (see the module).
    name : str
        The estimator's class name, for the messages.
    """

    def __init__(self, state, table, rule, *, fit_intercept, labels, eta, key,
                 name):
        self.state = state
        self.rule = rule
        self.compiled = compiled_stream(state, table, rule, fit_intercept)
        self.labels, self.eta, self.key, self.name = labels, float(eta), key, name
        self.n_features, self.dtype = state.coef.shape[1], state.coef.dtype

    def learn(self, key, X, y):
        """A whole call: the total of its updates (those of every row in
        ``compiled.updates``), or None, having changed nothing."""
        checked = lean_call(self, key, X, y, self.dtype)
        if checked is None:
            return None
        X, codes = checked
        total = self.compiled.learn(*row_arrays(X), codes, self.eta)
        return None if total < 0 else total

    def run(self, X, y_class, step):
        """The pass of the full path over checked rows X (the state's dtype,
        canonical int32 CSR or C-ordered) of class indices ``y_class`` and
        update sizes ``step``: the updates of every row, or None, having
        changed nothing, when the pass is not provably free of overflow."""
        return self.compiled.run(*row_arrays(X), y_class, step)


# ---------------------------------------------------------------------------
# The online margin search
# ---------------------------------------------------------------------------


class MarginStream:
    """The lean ``partial_fit`` of ``margin="auto"``: the pass of
    ``MarginPerceptron._online_search_pass``, with its segments and its
    arithmetic, for unweighted rows (dense or CSR).

    The search state of every row (radius, level, run, step range) is
    mirrored in Python floats, and its γ, margin threshold and update budget
    are recomputed only when they change (the radius grows, a run restarts),
    so that a call costs the rows' norms, the compiled pass (whose margin
    thresholds are this stream's ``kappa``) and a comparison.  The pass
    runs in place only once it is known to succeed (weights provably
    bounded), and the search arrays are written after it, so a declined
    call changes nothing.

    ``rows_of_class`` (a list per class of the rows its samples take part
    in, for the stacked rows of a reduction's binary estimators, see
    :func:`reduction_search`): a sample grows the radius and step range of
    those rows only, and :meth:`run_rows` counts the updates of every row.
    """

    def __init__(self, state, search, table, *, fit_intercept, epsilon, eta,
                 labels, key, name, rows_of_class=None):
        self.state, self.search = state, search
        self.n_rows, self.n_features = state.coef.shape
        self.dtype = state.coef.dtype
        self.kappa = np.zeros(self.n_rows)
        self.compiled = compiled_stream(
            state, table,
            Rule(RULE_MARGIN, np.zeros(self.n_rows), np.zeros(self.n_rows)),
            fit_intercept, self.kappa)
        self.labels, self.key, self.name = labels, key, name
        self.epsilon = float(epsilon)
        self.fit_intercept = bool(fit_intercept)
        self.eta = float(eta)
        self.sq_radius = search.sq_radius.tolist()
        self.halvings = search.halvings.tolist()
        self.run_updates = search.run_updates.tolist()
        self.start_norm = search.start_norm.tolist()
        self.step_min = search.step_min.tolist()
        self.step_max = search.step_max.tolist()
        self.budget = [0.0] * self.n_rows
        for k in range(self.n_rows):
            self._level(k)
        self.min_sq = min(self.sq_radius)
        self.rows_of_class = rows_of_class
        self.all_rows = range(self.n_rows)
        # The updates of every row in the current call (for a reduction).
        self.row_totals = None
        # Whether some class's samples take part in only some of the rows.
        self.partial = rows_of_class is not None and any(
            len(rows) != self.n_rows for rows in rows_of_class)
        # Whether the step range of some row does not hold eta yet.
        self.new_steps = any(b > self.eta for b in self.step_min) or any(
            b < self.eta for b in self.step_max)

    def _level(self, k):
        """γ's margin threshold and the update budget of row ``k``, from its
        mirrored state, as the search's ``gamma`` and ``budget`` compute
        them (the same operations, on floats)."""
        sq, h, step_max = self.sq_radius[k], self.halvings[k], self.step_max[k]
        self.kappa[k] = (1.0 - self.epsilon) * math.ldexp(math.sqrt(sq), -h)
        if not (sq > 0 and step_max > 0):
            self.budget[k] = math.inf
            return
        ratio = math.ldexp(1.0, min(h, 500)) / self.epsilon
        radius = math.sqrt(sq)
        step_min, a = self.step_min[k], self.start_norm[k]
        out = (step_max / step_min) * 4.0 * ratio * ratio
        if a > 0:
            bound = (4.0 * ratio
                     * (a + max(a, step_max * radius * (2.0 * ratio + 1.0)))
                     / (3.0 * radius * step_min))
            out = max(out, bound)
        self.budget[k] = out

    def _grow(self, value, steps, rows=None):
        """Take a sample of padded squared norm ``value`` (and, with
        ``steps``, of step ``eta``) into the radius and step range of the
        rows it takes part in (``rows``; None: every row); returns the rows
        whose level changed, with their old values."""
        changed = []
        eta = self.eta
        for k in (self.all_rows if rows is None else rows):
            old = (self.sq_radius[k], self.step_min[k], self.step_max[k])
            new = (value if value > old[0] else old[0],
                   min(old[1], eta) if steps else old[1],
                   max(old[2], eta) if steps else old[2])
            if new != old:
                changed.append((k, old))
                self.sq_radius[k], self.step_min[k], self.step_max[k] = new
                self._level(k)
        if changed:
            self.min_sq = min(self.sq_radius)
        return changed

    def _undo(self, changed):
        for k, old in changed:
            self.sq_radius[k], self.step_min[k], self.step_max[k] = old
            self._level(k)
        self.min_sq = min(self.sq_radius)

    def _write(self, changed):
        if self.new_steps and changed:
            eta = self.eta
            self.new_steps = any(b > eta for b in self.step_min) or any(
                b < eta for b in self.step_max)
        search = self.search
        for k, _ in changed:
            search.sq_radius[k] = self.sq_radius[k]
            search.step_min[k] = self.step_min[k]
            search.step_max[k] = self.step_max[k]

    def _after_segment(self, updates, changed):
        """Count the updates of a segment, and restart every row whose run
        went over its budget (the search's ``restart``).  Every run is
        within its budget before the segment (the full way and this stream
        check after every segment), so only the rows that made updates or
        whose level ``changed`` need the check."""
        search = self.search
        counts = updates.tolist()
        total = sum(counts)
        if not total and not changed:
            return 0
        totals = self.row_totals
        for k, u in enumerate(counts):
            if u:
                self.run_updates[k] += u
                search.run_updates[k] = self.run_updates[k]
                if totals is not None:
                    totals[k] += u
        restarted = False
        for k in range(self.n_rows):
            if self.run_updates[k] > self.budget[k]:
                self.halvings[k] += 1
                self.run_updates[k] = 0
                self.start_norm[k] = 0.0
                search.halvings[k] = self.halvings[k]
                search.run_updates[k] = 0
                search.start_norm[k] = 0.0
                self.state.reset_rows([k])
                self._level(k)
                restarted = True
        if restarted:
            # The restarted rows are zero: their norms too.
            self.compiled.refresh_norms()
        return total

    def learn(self, key, X, y):
        """A whole call: the total of its updates, or None, having changed
        nothing."""
        checked = lean_call(self, key, X, y, self.dtype)
        if checked is None:
            return None
        X, codes = checked
        total = self.run(X, codes)
        return None if total < 0 else total

    def _sq_norms(self, X):
        """The padded squared norms of the rows of X, as the full path
        computes them (:func:`~.rows.padded_sq_norms`; None when one is not
        finite: huge rows, which the full path decides)."""
        if type(X) is np.ndarray:
            wide = X if X.dtype == np.float64 else X.astype(np.float64)
            sq = np.einsum("ij,ij->i", wide, wide).tolist()
            if self.fit_intercept:
                sq = [value + 1.0 for value in sq]
        else:
            sq = padded_sq_norms(X, self.fit_intercept).tolist()
        return sq if all(map(math.isfinite, sq)) else None

    def run_rows(self, X, codes):
        """:meth:`run`, returning the updates of every row (None: declined,
        nothing changed)."""
        self.row_totals = [0] * self.n_rows
        try:
            if self.run(X, codes) < 0:
                return None
            return self.row_totals
        finally:
            self.row_totals = None

    @staticmethod
    def _segment(X, start, stop):
        """The arrays of rows ``start:stop`` of X (views, no copy)."""
        if type(X) is np.ndarray:
            return X[start:stop], None, None
        return X.data, X.indices, X.indptr[start:stop + 1]

    def run(self, X, codes):
        """The pass over the rows of a checked X (of this stream's dtype and
        width) of class indices ``codes``; returns its updates, or -1 having
        changed nothing."""
        sq = self._sq_norms(X)
        if sq is None:
            return -1
        n = X.shape[0]
        compiled = self.compiled
        members = self.rows_of_class
        eta = self.eta
        if n == 1:
            changed = (self._grow(sq[0], self.new_steps,
                                  None if members is None else members[codes[0]])
                       if sq[0] > self.min_sq or self.new_steps else ())
            if compiled.learn(*row_arrays(X), codes, eta) < 0:
                if changed:
                    self._undo(changed)
                return -1
            if changed:
                self._write(changed)
            return self._after_segment(compiled.updates, changed)
        if self.new_steps and self.partial:
            # The step range of a row then changes at its first sample,
            # where the full way does not split the pass: it decides.
            return -1
        # Several rows: every segment of the pass must succeed once the first
        # has changed the model, which this bound of the whole call proves
        # (with room for the rounding of the per-segment bounds).
        values = X if type(X) is np.ndarray else X.data
        largest = float(np.abs(values).max(initial=0.0))
        reach = 1.0 if self.fit_intercept and largest < 1.0 else largest
        if not safe_bound((compiled.bound + reach * eta * n) * (1.0 + 1e-9),
                          largest, self.n_features, self.dtype):
            return -1
        total, start = 0, 0
        while start < n:
            changed = self._grow(sq[start], start == 0 and self.new_steps,
                                 None if members is None else members[codes[start]])
            # The pass is split where a radius grows, as the full way does,
            # and where a budget can be reached.
            stop = start + 1
            while stop < n and not sq[stop] > self.min_sq:
                stop += 1
            room = math.inf
            for k in range(self.n_rows):
                b = self.budget[k]
                if b != math.inf:
                    room = min(room, float(math.floor(b)) - self.run_updates[k] + 1.0)
            stop = min(stop, start + max(int(min(room, n)), 1))
            if compiled.learn(*self._segment(X, start, stop), codes[start:stop],
                              eta) < 0:
                if start == 0:
                    self._undo(changed)
                    return -1
                raise RuntimeError("the pass of a proven-safe call was declined")
            self._write(changed)
            total += self._after_segment(compiled.updates, changed)
            start = stop
        return total


def reduction_search(estimators, states, searches, table, *, fit_intercept,
                     epsilon, eta, labels, key, name, rows_of_class):
    """The lean stream of a reduction's binary
    ``MarginPerceptron(margin="auto")`` estimators (same parameters, fitted,
    without class weights): their ``states`` (one row each) and search
    states ``searches`` stacked, or None when they do not stack.

    Returns ``(stream, rows)``: the :class:`MarginStream` of the stacked
    rows (the reduction's ``table``; ``rows_of_class`` the rows of every
    class) and, per binary estimator, the ``(state, search)`` views of its
    row that it must hold from now on, so that the passes of the stream
    update every binary estimator in place.  A row's search sees only the
    samples that take part in it, with its own radius, level and run, and
    is checked after every segment of the pass, as its own ``partial_fit``
    would do on its samples: the same weights and search state, bit for
    bit.
    """
    if any(state is None for state in states) or any(
            type(search) is not type(searches[0]) for search in searches):
        return None
    average = states[0].average
    dtype, (_, n_features) = states[0].coef.dtype, states[0].coef.shape
    if any(state.coef.dtype != dtype or state.coef.shape != (1, n_features)
           or state.average != average for state in states) or any(
            search.halvings.shape != (1,) for search in searches):
        return None
    fields = [field.name for field in dataclasses.fields(searches[0])]
    make = type(searches[0])
    state = LinearState.stack(states, n_features, dtype, average)
    search = make(*(np.concatenate([getattr(s, name) for s in searches])
                    for name in fields))
    rows = [(view, make(*(getattr(search, name)[k:k + 1] for name in fields)))
            for k, view in enumerate(row_views(state))]
    stream = MarginStream(state, search, table, fit_intercept=fit_intercept,
                          epsilon=epsilon, eta=eta, labels=labels, key=key,
                          name=name, rows_of_class=rows_of_class)
    return stream, rows


# ---------------------------------------------------------------------------
# The second-order perceptron
# ---------------------------------------------------------------------------


class SecondOrderStream:
    """The lean ``partial_fit`` of a fitted ``SecondOrderPerceptron``: rows
    of a float ndarray or CSR matrix (any float dtype: the state is
    float64), labels known, no weights, while the key is the one it was
    armed with.  Anything else, an overflow included, returns None having
    changed nothing, and the full path reports it.

    A call updates the state in place, with an undo record of what the
    pass can touch before it is checked: weights, averaging sums, visits
    and ``diag(A)``/``v``, of every row at the columns of the call's rows
    (O(nnz) per row for CSR rows in diagonal mode).  ``A^-1`` needs none: a
    one-row pass visits every row once, so the pass holds its downdates
    back and they are applied only once the pass is known good.  A
    full-mode call of several rows may change ``A^-1`` mid-pass and runs on
    a copy of the state, which the estimator adopts (:attr:`adopted`).
    """

    def __init__(self, state, table, *, labels, eta, key, name):
        self.labels, self.key, self.name = labels, key, name
        self.table = table
        self.eta = float(eta)
        self.n_features = state.coef.shape[1]
        n_rows = state.coef.shape[0]
        self.active = np.ones(n_rows, dtype=np.uint8)
        self.diagonal = state.diagonal
        self.order = np.arange(256, dtype=np.int32)
        self.step = np.full(256, self.eta)
        self.y_class = np.zeros(256, dtype=np.int32)
        # The state a call of several full-mode rows made (the estimator's
        # new state), None otherwise.
        self.adopted = None
        self._bind(state)

    def _bind(self, state):
        """Bind the stream to ``state``: the arguments of the compiled pass
        (its scratch space made once)."""
        self.state = state
        self.updates = np.zeros(state.coef.shape[0], dtype=np.int64)
        self.held = state.held_pass_arguments(self.table, self.active,
                                              self.updates)

    def _written(self, X):
        """The arrays (or parts of them) a pass over the rows of X writes
        before it is checked: ``(array, index)`` pairs, ``index`` None for
        all of it."""
        state = self.state
        cols = None
        if self.diagonal and type(X) is not np.ndarray:
            cols = X.indices[X.indptr[0]:X.indptr[-1]]
        rows = slice(None)
        written = [(state.intercept, None), (state.visits, None)]
        if state.average:
            written.append((state.intercept_sum, None))
        if cols is None:
            written.append((state.coef, None))
            if state.average:
                written.append((state.coef_sum, None))
            if self.diagonal:
                written.append((state.precision, None))
            return written
        written.append((state.coef, (rows, cols)))
        if state.average:
            written.append((state.coef_sum, (rows, cols)))
        written.append((state.precision, (rows, cols)))
        if state.fit_intercept:
            written.append((state.precision, (rows, self.n_features)))
        return written

    def learn(self, key, X, y):
        """A whole call: the total of its updates, or None, having changed
        nothing (:attr:`adopted`: the state the estimator must adopt)."""
        self.adopted = None
        checked = lean_call(self, key, X, y)
        if checked is None:
            return None
        X, codes = checked
        n = len(codes)
        if n > self.order.shape[0]:
            return None  # a long call: the full path
        if n > 1 and not self.diagonal:
            return self._learn_on_copy(X, codes)
        saved = [(array, index, np.array(array if index is None else array[index]))
                 for array, index in self._written(X)]
        self.y_class[:n] = codes
        self.updates[:] = 0
        state = self.state
        overflow = state.held_pass(X, self.order[:n], self.y_class[:n],
                                   self.step[:n], self.held)
        if not overflow:
            coef = next(array if index is None else array[index]
                        for array, index, _ in saved if array is state.coef)
            overflow = not (np.isfinite(coef).all()
                            and np.isfinite(state.intercept).all())
        if overflow:  # undo, and the full path reports it
            for array, index, values in reversed(saved):
                if index is None:
                    np.copyto(array, values)
                else:
                    array[index] = values
            state.drop_held(self.held)
            return None
        state.apply_held(self.held)
        return int(self.updates.sum())

    def _learn_on_copy(self, X, codes):
        """A full-mode pass of several rows, on a copy adopted if it succeeds."""
        n = len(codes)
        state = self.state.copy()
        try:
            updates = state.run_epoch(
                X, self.order[:n], np.array(codes, dtype=np.int32),
                self.step[:n], self.table, self.active)
        except ValueError:  # an overflow: the full path reports it
            return None
        if not (np.isfinite(state.coef).all() and np.isfinite(state.intercept).all()):
            return None
        # Nothing below can fail.
        self.adopted = state
        self.key = (state,) + tuple(self.key[1:])
        self._bind(state)
        return int(updates.sum())


# ---------------------------------------------------------------------------
# The reductions
# ---------------------------------------------------------------------------

# What a lean call of a reduction did: the class index of every row of the
# call, the weight rows it touched (sorted) and their updates.
ReductionStep = collections.namedtuple("ReductionStep", "codes rows updates")


class ReductionStream:
    """The lean ``partial_fit`` of a reduction whose binary estimators are
    the stacked rows of one state: a :class:`LinearStream` (``stream``) of
    the plain rules, or a :class:`MarginStream` (``search``) of binary
    margin searches.

    ``touched``: the rows the samples of every class take part in.
    :meth:`learn` returns a :class:`ReductionStep`, or None having changed
    nothing, declining unless the key is the one it was armed with.
    """

    def __init__(self, *, stream, search, labels, touched, key, name):
        self.stream, self.search = stream, search
        self.labels, self.touched, self.key, self.name = labels, touched, key, name
        inner = stream if stream is not None else search
        self.n_features, self.dtype = inner.n_features, inner.dtype
        self.eta = inner.eta

    def learn(self, key, X, y):
        checked = lean_call(self, key, X, y, self.dtype)
        if checked is None:
            return None
        X, codes = checked
        if self.search is not None:
            updates = self.search.run_rows(X, codes)
        elif self.stream.compiled.learn(*row_arrays(X), codes, self.eta) < 0:
            updates = None
        else:
            updates = self.stream.compiled.updates.tolist()
        if updates is None:
            return None
        if len(codes) == 1:
            rows = self.touched[codes[0]]
        else:
            rows = sorted(set().union(*(self.touched[c] for c in set(codes))))
        return ReductionStep(codes, rows, updates)
