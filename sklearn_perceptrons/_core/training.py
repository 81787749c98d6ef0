# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The one epoch driver of every perceptron of the package.

An estimator plugs in with a *trainer*: an object that owns the model being
trained and can run one compiled epoch of it.  The driver owns everything
around the epochs: the epoch order, the per-row stopping rules
(:class:`StoppingRule`), early stopping with the best validation epoch kept,
the verbose lines, the record of the diagnostics, and the
``ConvergenceWarning``.

The trainer interface (duck-typed; :class:`sklearn_perceptrons._rows.LinearTrainer`
is the reference implementation):

``n_rows``
    Number of weight rows (binary sub-problems), each with its own stopping
    rule.
``run_epoch(order, active) -> ndarray of int64, shape (n_rows,)``
    Visit the training samples ``order`` (int32 indices) once, updating only
    the rows whose ``active`` flag (uint8) is 1; return the updates of every
    row.  Raise ``ValueError`` for weights that became non-finite.
``weight_norm() -> float``
    The norm of the weights the estimator's ``verbose`` documents
    (``||w||``, or ``||f||`` of a kernel model), for the verbose line.
``scores(rows) -> ndarray, shape (len(rows), n_rows)``
    Decision values of the current model on training samples ``rows``;
    needed only with a validation set (early stopping).
``snapshot() / keep_rows(snapshot, rows) / restore(snapshot)``
    A copy of the training state, the copy of the current values of some
    rows into it, and its adoption at the end; needed only to keep the best
    validation epoch of every row (``keep_best=True``).
``end_epoch(epoch, active, updates, stopper, val_score, *, last) -> events``
    Optional: called after the stopping rule has seen the epoch (``active``:
    the rows trained in it; ``last``: no epoch follows), to change the rule
    of rows, stop or revive them (``stopper.active``); returns None or what
    happened, for the verbose line: an object whose ``summary()`` is a short
    text for the epoch's line and ``details()`` lines for ``verbose > 1``.
    The margin search of ``MarginPerceptron`` uses it.
``reports_progress``
    Optional, True for a trainer whose ``run_epoch`` takes a keyword
    ``progress``: None, or a function ``(visited, updates)`` to call between
    chunks of visits (the verbose lines within long epochs).  A trainer
    walks in chunks only when given one, and its results do not depend on
    it.
``keeps_own_best``
    Optional, True for a trainer that keeps its best epochs itself (the
    driver then takes no snapshot).
``stopping_statistic() -> ndarray or None``
    Optional: after ``run_epoch``, what the ``tol`` rule should compare
    instead of the updates (one number per row; the passive-aggressive
    rules' sums of hinge losses), or None.

A ``fit`` then reads, top to bottom::

    trainer = SomeTrainer(X, y_class, step, ...)
    record = train(trainer, train_idx=..., rng=rng, shuffle=..., max_iter=...,
                   stopper=StoppingRule(trainer.n_rows, ...), verbose=...)
    ...set the model from trainer...
    set_fit_results(estimator, record)

and a ``partial_fit`` runs ``trainer.run_epoch`` once on its rows in order,
then calls :func:`record_partial_pass`.

``mistakes_per_epoch_`` after ``partial_fit``: one entry is appended per
call.  Copying the list at every call would make a long stream quadratic,
and appending to the list in place would change a list a user (or a
shallow copy of the estimator) holds, and could not be undone by a failed
call.  So the estimator keeps the entries in a private buffer that is only
ever appended to, with the number of entries that are its own
(``_mistakes_log = (buffer, length)``); the attribute is a property that
returns a new list of those entries.  Two versions of an estimator that share
the buffer (a snapshot restored after a failed call, a shallow copy) see only
their own prefix, and the first one to append past a prefix that is no longer
the end of the buffer copies it.
"""

import dataclasses
import warnings
from math import ceil
from time import perf_counter

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from . import progress
from ._shuffle import shuffle_indices


class StoppingRule:
    """The per-row stopping rules of ``fit``, shared by every perceptron.

    Each binary sub-problem (row) stops on its own: (1) after an epoch with
    zero updates (converged); (2) if ``tol`` is not None, after
    ``n_iter_no_change`` consecutive epochs whose number of updates did not
    fall below ``best - tol * n_samples`` or, with early stopping, whose
    validation accuracy did not rise above ``best + tol``.  Rows still going
    at ``max_iter`` stop there unconverged.  ``n_samples`` may be an array
    with each row's own number of training samples (one-vs-one pairs).
    """

    def __init__(self, n_rows, *, tol, n_iter_no_change, n_samples, early_stopping):
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.n_samples = n_samples
        self.early_stopping = early_stopping
        self.active = np.ones(n_rows, dtype=np.uint8)
        self.converged = np.zeros(n_rows, dtype=bool)
        self.n_iter = np.zeros(n_rows, dtype=np.int64)
        self.best_updates = np.full(n_rows, np.inf)
        self.best_score = np.full(n_rows, -np.inf)
        self.no_improvement = np.zeros(n_rows, dtype=np.int64)
        self._all_false = np.zeros(n_rows, dtype=bool)

    def update(self, updates, val_score=None, statistic=None):
        """Record one epoch of the active rows.

        ``statistic`` (one number per row, or None for the updates) is what
        the ``tol`` rule compares from epoch to epoch without early stopping:
        the passive-aggressive rules give the sums of their hinge losses,
        which scikit-learn's stopping rule reads.

        Returns the boolean mask of the rows whose validation score is the best
        so far (their coefficients should be kept); all False without early
        stopping (a shared array: read it, do not change it).
        """
        # In place and with few operations: this runs after every epoch,
        # when the epoch has left the caches cold.
        active = self.active.astype(bool)
        self.n_iter += active
        improved = self._all_false
        if self.early_stopping:
            improved = active & (val_score > self.best_score)
            if self.tol is not None:
                stalled = val_score < self.best_score + self.tol
            np.copyto(self.best_score, val_score, where=improved)
        elif self.tol is not None:
            count = updates if statistic is None else statistic
            stalled = count > self.best_updates - self.tol * self.n_samples
            np.minimum(self.best_updates, count, out=self.best_updates,
                       where=active)
        if self.tol is not None:
            # +1 where active and stalled, else back to 0.
            stalled &= active
            self.no_improvement += stalled
            self.no_improvement *= stalled
            stopped = self.no_improvement >= self.n_iter_no_change
        else:
            stopped = self._all_false.copy()
        # Rows with no update in the epoch converged.
        converged = updates == 0
        converged &= active
        self.converged |= converged
        stopped |= converged
        self.active[stopped] = 0
        return improved

    def restart(self, rows):
        """Forget the history of ``rows``: their rule starts anew."""
        self.best_updates[rows] = np.inf
        self.best_score[rows] = -np.inf
        self.no_improvement[rows] = 0

    @property
    def done(self):
        return not self.active.any()


def stopping_rule(estimator, n_rows, n_samples):
    """The :class:`StoppingRule` of an estimator's parameters (``tol``,
    ``n_iter_no_change``, ``early_stopping`` if it has one)."""
    return StoppingRule(
        n_rows, tol=estimator.tol, n_iter_no_change=estimator.n_iter_no_change,
        n_samples=n_samples,
        early_stopping=getattr(estimator, "early_stopping", False),
    )


def validation_split(n_samples, validation_fraction, random_state):
    """Split sample indices into a training and a validation part.

    The split does not look at the labels, so that in a one-vs-all problem
    every row sees the split its own binary problem would see (a stratified
    split would depend on all K classes).
    """
    n_val = int(ceil(validation_fraction * n_samples))
    n_train = n_samples - n_val
    if n_val < 1 or n_train < 1:
        raise ValueError(
            f"early_stopping=True with validation_fraction={validation_fraction} "
            f"leaves {n_train} training and {n_val} validation samples out of "
            f"{n_samples}; both must be at least 1. Use more samples or another "
            "validation_fraction."
        )
    permutation = random_state.permutation(n_samples)
    return (
        np.sort(permutation[n_val:]).astype(np.int32),
        np.sort(permutation[:n_val]).astype(np.int32),
    )


class Validation:
    """Held-out samples and how to score every row on them.

    ``idx`` are sample indices of the training data, ``y_class`` the class
    index of every training sample and ``signs_of_class`` the dense sign
    matrix of the row table (see :func:`sklearn_perceptrons._rows.sign_matrix`).
    """

    def __init__(self, idx, y_class, signs_of_class):
        self.idx = idx
        self.y_class = y_class[idx]
        self.signs_of_class = signs_of_class

    def accuracy(self, scores):
        """Accuracy of every row (positive iff score > 0, as ``predict``)."""
        signs = self.signs_of_class[self.y_class]
        correct = np.where(signs > 0, scores > 0, scores <= 0) & (signs != 0)
        counts = (signs != 0).sum(axis=0)
        return np.divide(correct.sum(axis=0), counts,
                         out=np.zeros(scores.shape[1]), where=counts > 0)


class ArgmaxValidation(Validation):
    """Held-out samples scored by the multiclass accuracy of the argmax of
    the rows' scores (row ``k`` is class ``k``; ties: the lowest class), one
    score for rows that stop together (Crammer-Singer)."""

    def __init__(self, idx, y_class):
        self.idx = idx
        self.y_class = y_class[idx]

    def accuracy(self, scores):
        return np.array([np.mean(scores.argmax(axis=1) == self.y_class)])


def epoch_order(train_idx, shuffle, rng):
    """Indices of the next epoch: ``train_idx``, or a fresh permutation of it
    drawn from ``rng`` (one 63-bit seed per epoch) when ``shuffle``."""
    if shuffle:
        order = train_idx.copy()
        shuffle_indices(order, int(rng.randint(0, 2**63 - 1, dtype=np.int64)))
        return order
    return train_idx


@dataclasses.dataclass(eq=False)
class TrainingRecord:
    """What :func:`train` reports: per-row epochs and convergence, and the
    updates of every epoch and row (``history``, shape (n_epochs, n_rows))."""

    n_iter: object
    converged: object
    unconverged: object
    history: object

    @property
    def mistakes_per_epoch(self):
        return [int(u) for u in self.history.sum(axis=1)]

    def row(self, k):
        """The record of row ``k`` alone (its own epochs only)."""
        n_iter = self.n_iter[k : k + 1]
        return TrainingRecord(n_iter, self.converged[k : k + 1],
                              self.unconverged[k : k + 1],
                              self.history[: int(n_iter[0]), k : k + 1])


def stop_reasons(stopper, *, callback=False):
    """Why every row of a finished fit stopped (see
    :meth:`~sklearn_perceptrons._core.progress.FitLog.done`): converged, by
    its rule (the tol rule or early stopping), or still going at the end
    (``max_iter``, or a callback that stopped the fit)."""
    ruled = progress.EARLY_STOPPING if stopper.early_stopping else progress.TOL
    going = progress.CALLBACK if callback else progress.MAX_ITER
    return [
        progress.CONVERGED if converged else going if active else ruled
        for converged, active in zip(stopper.converged.tolist(),
                                     stopper.active.tolist())
    ]


def rule_text(stopper):
    """The stopping rule of ``stopper``, as the closing verbose line says it."""
    if stopper.early_stopping:
        return (f"no better validation accuracy in {stopper.n_iter_no_change} "
                "epochs")
    return f"no fewer updates in {stopper.n_iter_no_change} epochs"


def train(trainer, *, train_idx, rng, shuffle, max_iter, stopper,
          validation=None, keep_best=True, verbose=0, label="Epoch", note="",
          norm="||w||", limit="max_iter", callbacks=None, model=None):
    """Run the epochs of ``fit`` until every row has stopped.

    Parameters
    ----------
    trainer : object
        The trainer (see the module docstring).
    train_idx : ndarray of int32
        The training samples; every epoch visits each once.
    rng : numpy.random.RandomState
        Source of the epoch permutations (``shuffle=True``).
    shuffle : bool
        A fresh permutation per epoch, or ``train_idx`` in order.
    max_iter : int
        Largest number of epochs.
    stopper : StoppingRule
        The per-row stopping rules; read and updated.
    validation : Validation or None
        Held-out samples, scored after every epoch (early stopping).
    keep_best : bool
        With ``validation``: give the trainer back the state of every row's
        best validation epoch at the end.
    verbose : int
        If > 0, print the lines of
        :class:`~sklearn_perceptrons._core.progress.FitLog` (one per epoch,
        ``label`` and its number, the updates and ``note``, the weight norm
        named ``norm``, the times; progress within the epochs of a trainer
        that reports it; a closing line with the stop reason, ``limit``
        naming ``max_iter``); if > 1, also the details ``end_epoch`` gives.
    callbacks : FitTasks or None
        The callback tasks of the fit
        (:func:`~sklearn_perceptrons._core.callbacks.fit_tasks`): every
        epoch is a subtask; a callback may stop the fit after an epoch (the
        rows still going then end unconverged, without a warning).
    model : callable or None
        ``model(trainer, stopper) -> dict``: the attributes of the fitted
        model at the end of an epoch, for the callbacks that ask for it.

    Returns
    -------
    record : TrainingRecord
    """
    log = progress.FitLog(verbose, max_iter=max_iter, norm=norm, unit=label,
                          note=note, limit=limit)
    reports = getattr(trainer, "reports_progress", False)
    best = trainer.snapshot() if validation is not None and keep_best else None
    end_epoch = getattr(trainer, "end_epoch", None)
    statistic = getattr(trainer, "stopping_statistic", None)
    history = []
    stopped_by_callback = False
    for epoch in range(1, max_iter + 1):
        log.begin_epoch()
        if callbacks is not None:
            callbacks.begin()
        order = epoch_order(train_idx, shuffle, rng)
        active = stopper.active.astype(bool)
        if reports:
            updates = trainer.run_epoch(order, stopper.active,
                                        progress=log.within(epoch, len(order)))
        else:
            updates = trainer.run_epoch(order, stopper.active)
        history.append(updates)
        val_score = None
        if validation is not None:
            val_score = validation.accuracy(trainer.scores(validation.idx))
        improved = stopper.update(
            updates, val_score,
            None if statistic is None else statistic())
        if best is not None and improved.any():
            trainer.keep_rows(best, improved)
        # The norm of the epoch's weights, before end_epoch may change them.
        norm_value = trainer.weight_norm() if verbose else 0.0
        # Callbacks see the model of the epoch before end_epoch may change
        # it, the model a fit stopped here returns; an epoch a callback
        # stops is the last one for end_epoch too.
        stop_requested = callbacks is not None and callbacks.end(
            None if model is None else lambda: model(trainer, stopper))
        events = None
        if end_epoch is not None:
            events = end_epoch(epoch, active, updates, stopper, val_score,
                               last=epoch == max_iter or stop_requested)
        if verbose:
            log.epoch(epoch, updates.sum(), norm_value,
                      rows=(int(np.count_nonzero(active)), active.shape[0]),
                      summary=events.summary() if events else "",
                      details=events.details() if events and verbose > 1
                      else ())
        if stop_requested:
            stopped_by_callback = not stopper.done
            break
        if stopper.done:
            break
    if best is not None:
        trainer.restore(best)
    history = (np.array(history, dtype=np.int64) if history
               else np.zeros((0, stopper.active.shape[0]), dtype=np.int64))
    if verbose:
        log.done(len(history),
                 stop_reasons(stopper, callback=stopped_by_callback),
                 details=rule_text(stopper))
    unconverged = stopper.active.astype(bool)
    if stopped_by_callback:
        # Stopped on request, not at max_iter: no ConvergenceWarning.
        unconverged[:] = False
    return TrainingRecord(stopper.n_iter.copy(), stopper.converged.copy(),
                          unconverged, history)


def warn_not_converged(estimator, n_unconverged, *, limit="max_iter"):
    """The ``ConvergenceWarning`` of a fit that ended at its epoch limit.

    It names only remedies the user has not taken yet.
    """
    value = getattr(estimator, limit)
    remedies = [f"increase {limit}"]
    if getattr(estimator, "tol", 0) is None:
        remedies.append("set tol (e.g. tol=1e-3) to stop when the updates stall")
    if getattr(estimator, "early_stopping", True) is False:
        remedies.append("set early_stopping=True")
    remedies.append("scale the features (e.g. with StandardScaler)")
    warnings.warn(
        f"{type(estimator).__name__} reached {limit}={value} with "
        f"{n_unconverged} binary sub-problem(s) still making updates; the data "
        f"may not be separable. To stop earlier or converge: "
        f"{', '.join(remedies)}; or accept the current solution.",
        ConvergenceWarning,
    )


def set_fit_results(estimator, record, *, limit="max_iter", warn=True):
    """Set ``n_iter_``, ``mistakes_per_epoch_``, ``n_mistakes_`` and
    ``converged_`` of a fit (new objects, nothing changed in place), after
    the ``ConvergenceWarning`` when a row ended unconverged."""
    unconverged = int(record.unconverged.sum())
    if warn and unconverged:
        warn_not_converged(estimator, unconverged, limit=limit)
    mistakes = record.mistakes_per_epoch
    estimator.n_iter_ = int(record.n_iter.max()) if record.n_iter.size else 0
    estimator.mistakes_per_epoch_ = mistakes
    estimator.n_mistakes_ = int(sum(mistakes))
    estimator.converged_ = bool(record.converged.all())


def record_partial_pass(estimator, total):
    """The diagnostics of one ``partial_fit`` pass that made ``total`` updates.

    Appends one entry to ``mistakes_per_epoch_`` in O(1) without changing
    any list seen before (see the module docstring).
    """
    buffer, length = getattr(estimator, "_mistakes_log", ([], 0))
    if len(buffer) != length:
        buffer = buffer[:length]
    buffer.append(int(total))
    estimator._mistakes_log = (buffer, length + 1)
    estimator.n_mistakes_ = getattr(estimator, "n_mistakes_", 0) + int(total)
    estimator.n_iter_ = getattr(estimator, "n_iter_", 0) + 1
    estimator.converged_ = total == 0


def record_partial_passes(dicts, rows, updates):
    """:func:`record_partial_pass` of the binary estimators ``rows`` of a
    reduction (given by their ``__dict__``), row ``k`` having made
    ``updates[k]`` updates: the same attributes, written to the dicts."""
    for k in rows:
        d = dicts[k]
        total = int(updates[k])
        buffer, length = d.get("_mistakes_log", ([], 0))
        if len(buffer) != length:
            buffer = buffer[:length]
        buffer.append(total)
        d["_mistakes_log"] = (buffer, length + 1)
        d["n_mistakes_"] = d.get("n_mistakes_", 0) + total
        d["n_iter_"] = d.get("n_iter_", 0) + 1
        d["converged_"] = total == 0


class MistakesLog:
    """Mixin: ``mistakes_per_epoch_`` as a property over ``_mistakes_log``."""

    @property
    def mistakes_per_epoch_(self):
        """Updates of every epoch of the last ``fit`` (one entry per
        ``partial_fit`` call after it)."""
        try:
            buffer, length = self.__dict__["_mistakes_log"]
        except KeyError:
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute "
                "'mistakes_per_epoch_'"
            ) from None
        return buffer[:length]

    @mistakes_per_epoch_.setter
    def mistakes_per_epoch_(self, value):
        value = [int(v) for v in value]
        self._mistakes_log = (value, len(value))
