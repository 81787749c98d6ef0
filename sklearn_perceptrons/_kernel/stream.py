# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The lean one-row ``partial_fit`` of :class:`KernelPerceptron`.

A :class:`KernelStream` is armed by a full ``partial_fit`` call and takes the
next single-row calls by itself while nothing else changed: it scores the row
against the current support vectors with the sums the dual walk starts from,
applies the walk's update rule and appends a support vector in place.
Anything else (several rows, another dtype, changed parameters, state or
classes, a bad row) is declined and goes the full way.  It returns what the
estimator sets (a :class:`StreamStep`), and changes no attribute of it.
"""

import collections
import math
import operator

import numpy as np

from .._core.base import lean_codes, param_names
from .kernels import DUMMY_DOUBLE, SINGLE_PRECISION, dual_scores, kernel_fast

# What a one-row call changed: the new iterate (the dict the estimator
# keeps), its ``dual_coef_`` and ``intercept_``, ``n_support_`` (None when
# unchanged), the updates of the call and the number of support vectors.
StreamStep = collections.namedtuple(
    "StreamStep",
    "state dual_coef intercept n_support updates n_support_vectors")


class KernelStream:
    """The lean one-row ``partial_fit`` of a :class:`KernelPerceptron`
    without a budget (armed by its full path, kept in its stream cache):
    one C-ordered dense row of the support vectors' dtype, its label known,
    no weights, while the iterate, the classes, ``gamma_`` and the
    parameters are those it was armed with.  Anything else returns None
    having changed nothing, and the full path takes the call.

    The row is scored against the current support vectors as the walk of
    the full path scores it (the same compiled kernel sums), the rule of the
    walk decides its updates, and a new support vector is appended to
    buffers with spare room (doubling capacity, as a list grows): the arrays
    of the model are views of their first rows, never written once made.
    """

    _FLOAT = (np.dtype(np.float64), np.dtype(np.float32))

    # A call writes only past the rows its owner's arrays view (and makes new
    # dicts and arrays for the rest), so a shallow copy of the owner may
    # share the stream (see ``fork`` in ``_core.base``).
    appends_only = True

    def __init__(self, owner, state, classes, table, rule, kernel):
        self.getter = operator.itemgetter(
            "classes_", "gamma_", *param_names(owner))
        self.values = self.getter(owner.__dict__)
        self.state = state
        self.n_support = owner.n_support_
        self.labels = {label: i for i, label in enumerate(classes.tolist())}
        self.n_classes = classes.shape[0]
        rows_ptr, rows, signs = table
        self.table = (rows_ptr.tolist(), rows.tolist(), signs.tolist())
        self.rule = rule
        self.kernel = kernel
        self.single = kernel.code in SINGLE_PRECISION
        self.threshold = float(owner.threshold)
        self.add = float(owner.fit_intercept)
        self.average = bool(owner.average)
        self.fit_intercept = bool(owner.fit_intercept)
        self.cache_size = owner.cache_size
        self.n = state["sv"].shape[0]
        self.n_features = state["sv"].shape[1]
        self.dtype = state["sv"].dtype
        self.n_rows = state["alpha"].shape[1]
        self.buffers = {}
        self._grow(state, max(16, 2 * self.n))

    _APPENDED = ("sv", "sv_class", "sv_index", "alpha", "alpha_sum", "sv_time",
                 "sv_order")

    def _grow(self, state, capacity):
        """Move the per-support-vector arrays into buffers of ``capacity`` rows."""
        for name in self._APPENDED:
            array = state[name]
            buffer = np.empty((capacity,) + array.shape[1:], dtype=array.dtype)
            buffer[:self.n] = array
            self.buffers[name] = buffer
        # The (squared) norms the kernel reads, one per support vector, kept
        # rather than recomputed by every call ("rbf", "cosine").
        norms = self.kernel.norms(state["sv"])
        if norms is DUMMY_DOUBLE:
            self.norms = None
        else:
            self.norms = np.empty(capacity)
            self.norms[:self.n] = norms

    def _scores(self, x, state):
        """The scores of row ``x`` under the iterate, as the walk starts."""
        coef = state["alpha"]
        norms = None if self.norms is None else self.norms[:self.n]
        return dual_scores(x, self.kernel, state["sv"], None, coef,
                           self.cache_size, single=self.single,
                           sv_norms=norms) + self.add * coef.sum(axis=0)

    def _mistakes(self, c, value):
        """The (row, delta) updates of a sample of class ``c`` with scores
        ``value`` (the rules of the compiled walk), or None if a score is
        not finite."""
        rows_ptr, rows, signs = self.table
        span = range(rows_ptr[c], rows_ptr[c + 1])
        if not all(math.isfinite(value[rows[p]]) for p in span):
            return None
        if self.rule == kernel_fast.RULE_TABLE:
            return [(rows[p], 1.0 * signs[p]) for p in span
                    if signs[p] * value[rows[p]] <= self.threshold]
        own = value[c]
        violators = [rows[p] for p in span if rows[p] != c
                     and own - value[rows[p]] <= self.threshold]
        if not violators:
            return []
        if self.rule == kernel_fast.RULE_CS_MAX:
            best = violators[0]
            for k in violators[1:]:
                if value[k] > value[best]:
                    best = k
            return [(c, 1.0), (best, -1.0)]
        return [(c, 1.0)] + [(k, -1.0 / len(violators)) for k in violators]

    def learn(self, owner, state, X, y):
        """Learn the row ``X`` of label ``y`` from the iterate ``state`` (the
        owner's); returns a :class:`StreamStep`, or None (declined)."""
        if state is not self.state:
            return None
        try:
            if self.getter(owner.__dict__) != self.values:
                return None
        except (KeyError, ValueError, TypeError):  # missing, or no truth value
            return None
        if (type(X) is not np.ndarray or X.shape != (1, self.n_features)
                or X.dtype != self.dtype or not X.flags.c_contiguous
                or not math.isfinite(np.add.reduce(X, axis=None))):
            return None
        codes = lean_codes(self.labels, y, 1)
        if codes is None:
            return None
        c = codes[0]
        if self.norms is not None:
            try:
                x_norm = self.kernel.norms(X)[0]
            except ValueError:  # not finite: the full path reports it
                return None
        value = self._scores(X, state)[0].tolist()
        updates = self._mistakes(c, value)
        if updates is None:  # the full path reports the overflow
            return None
        # Nothing below can fail (but a memory error, before any change).
        new = dict(state)
        rows_ptr, rows, _ = self.table
        visits = state["visits"].copy()
        if updates:
            n = self.n
            if n == self.buffers["sv"].shape[0]:
                self._grow(state, 2 * n)
            b = self.buffers
            alpha, alpha_sum = b["alpha"], b["alpha_sum"]
            alpha[n] = 0.0
            alpha_sum[n] = 0.0
            forget = state["forget"].copy()
            for k, delta in updates:
                alpha[n, k] += delta
                if self.average:
                    alpha_sum[n, k] += visits[k] * delta
                forget[1, k] += 1.0
            b["sv"][n] = X[0]
            if self.norms is not None:
                self.norms[n] = x_norm
            b["sv_class"][n] = c
            b["sv_index"][n] = -1
            b["sv_time"][n] = new["clock"] = state["clock"] + 1
            b["sv_order"][n] = n
            self.n = n + 1
            for name in self._APPENDED:
                new[name] = b[name][:n + 1]
            new["forget"] = forget
        new["sv_scores"] = None
        for p in range(rows_ptr[c], rows_ptr[c + 1]):
            visits[rows[p]] += 1.0
        new["visits"] = visits
        total = (len(updates) if self.rule == kernel_fast.RULE_TABLE
                 else min(len(updates), 1))
        # The attributes the full path sets.
        if self.average:
            coef = new["alpha"] - new["alpha_sum"] / np.maximum(visits, 1.0)
        else:
            coef = new["alpha"].copy()
        dual = np.ascontiguousarray(coef.T)
        intercept = (dual.sum(axis=1) if self.fit_intercept
                     else np.zeros(coef.shape[1]))
        n_support = None
        if updates:
            n_support = self.n_support = self.n_support.copy()
            n_support[c] += 1
        self.state = new
        return StreamStep(new, dual, intercept, n_support, total, self.n)
