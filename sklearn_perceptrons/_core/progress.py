# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The verbose output of every estimator, written by one formatter.

A fit with ``verbose > 0`` prints, through :class:`FitLog`:

* one line per epoch (``Epoch 3 of 1000``: the epoch and the bound on
  them), with the updates of the epoch, the norm the estimator's docstring
  names (``||w||`` or ``||f||``), the time of the epoch, the time since the
  fit began and, as ``max_iter`` bounds the fit, at most how long the
  remaining epochs take at the mean pace so far;
* inside an epoch that runs longer than :data:`PROGRESS_SECONDS`, a line
  at least that often with the samples visited, the updates so far and the
  time left in the epoch at its pace so far (for the walks that can report
  between chunks of visits);
* a closing line with the number of epochs, why the fit stopped
  (converged, the ``tol`` rule, early stopping, ``max_iter``, a callback)
  and the total time.

A ``partial_fit`` call prints one line of the same shape.  The sub-problems
of a reduction's generic path carry the name of their problem in front of
their lines (:func:`sub_problem`).  Times are wall-clock times.
"""

import contextlib
import contextvars
from time import perf_counter

#: Seconds after which an epoch still running prints a line (and again every
#: as many seconds): under the ~10 s a person waits before wondering whether
#: anything happens.
PROGRESS_SECONDS = 9.0

#: Visits of the first chunk of a walk that reports progress (see ``chunks``).
CHUNK_FIRST = 256
#: Seconds a chunk should take: long enough that the calls between chunks
#: cost nothing beside the walk, short enough for the lines to come on time.
CHUNK_SECONDS = 0.25

# The name of the sub-problem whose fit prints (see ``sub_problem``).
_PREFIX = contextvars.ContextVar("sklearn_perceptrons_verbose_prefix", default="")


@contextlib.contextmanager
def sub_problem(name):
    """Put ``[name] `` in front of the verbose lines printed within (the
    binary problems of a reduction's generic path)."""
    token = _PREFIX.set(f"[{name}] ")
    try:
        yield
    finally:
        _PREFIX.reset(token)


def chunks(n):
    """``(start, stop)`` of consecutive chunks of ``n`` visits, for a walk
    that reports progress between them: the size doubles while a chunk takes
    less than half :data:`CHUNK_SECONDS` (timed from one ``next`` to the
    following) and halves while it takes more than twice as long, so that
    a walk whose visits cost anything from nanoseconds to seconds comes back
    about every :data:`CHUNK_SECONDS`."""
    start, size = 0, CHUNK_FIRST
    while start < n:
        stop = min(n, start + size)
        began = perf_counter()
        yield start, stop
        took = perf_counter() - began
        if took < CHUNK_SECONDS / 2:
            size *= 2
        elif took > CHUNK_SECONDS * 2:
            size = max(1, size // 2)
        start = stop


def in_chunks(walk, order, progress):
    """``walk(part)`` over the whole of ``order`` (``progress`` None), or
    over its :func:`chunks` in turn, calling ``progress(visited, updates)``
    between them; returns the sum of the updates ``walk`` returns.  For the
    walks whose result does not depend on where a call ends."""
    n = order.shape[0]
    if progress is None:
        return walk(order)
    total = None
    for start, stop in chunks(n):
        updates = walk(order[start:stop])
        total = updates if total is None else total + updates
        if stop < n:
            progress(stop, total)
    return total


def format_seconds(seconds):
    """A duration for a person: ``0.41 ms``, ``330 ms``, ``2.5 s``,
    ``2 min 05 s``, ``1 h 02 min``."""
    if seconds < 1.0:
        return f"{seconds * 1e3:.2g} ms" if seconds < 1e-3 else (
            f"{seconds * 1e3:.3g} ms")
    if seconds < 60.0:
        return f"{seconds:.3g} s"
    if seconds < 3600.0:
        minutes, rest = divmod(int(round(seconds)), 60)
        return f"{minutes} min {rest:02d} s"
    hours, rest = divmod(int(round(seconds)) // 60, 60)
    return f"{hours} h {rest:02d} min"


def _plural(n, word):
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# Why a row stopped, as the closing line says it.
CONVERGED, TOL, EARLY_STOPPING, MAX_ITER, CALLBACK = (
    "converged", "tol", "early stopping", "max_iter", "callback")


class FitLog:
    """The verbose lines of one fit (or one ``partial_fit`` call).

    Parameters
    ----------
    verbose : int
        Nothing is printed at 0; at 1 the lines of the module docstring; at 2
        also the details a trainer gives about an epoch (``details``).
    max_iter : int or None
        The bound on the epochs (``Epoch k of max_iter`` and the time left);
        None for a ``partial_fit`` call.
    norm : str
        The name of the printed norm, as the estimator's docstring says it.
    unit : str
        What an epoch is called (``"Epoch"``, ``"Round"``).
    note : str
        Text after the updates of every epoch line.
    limit : str
        The name of the parameter that is ``max_iter``.
    """

    def __init__(self, verbose, *, max_iter=None, norm="||w||", unit="Epoch",
                 note="", limit="max_iter"):
        self.verbose = int(verbose)
        self.max_iter = max_iter
        self.limit = limit
        self.norm = norm
        self.unit = unit
        self.note = note
        self.prefix = _PREFIX.get()
        self.start = perf_counter()
        self.epoch_start = self.start

    def _print(self, text):
        print(f"{self.prefix}-- {text}", flush=True)

    def begin_epoch(self):
        """Mark the start of an epoch (its time, and the in-epoch lines)."""
        self.epoch_start = perf_counter()

    def _epoch_name(self, k):
        bound = "" if self.max_iter is None else f" of {self.max_iter}"
        return f"{self.unit} {k}{bound}"

    def epoch(self, k, updates, norm, *, rows=None, summary="", details=()):
        """The line of epoch ``k``: ``updates`` (total), ``norm``, times;
        ``rows`` = (active, total) when some rows had stopped before it;
        ``summary`` follows on a line of its own, or at ``verbose > 1`` the
        lines ``details``."""
        if not self.verbose:
            return
        now = perf_counter()
        elapsed = now - self.start
        parts = [f"updates {int(updates)}{self.note}"]
        if rows is not None and rows[0] < rows[1]:
            parts.append(f"{rows[0]} of {rows[1]} rows training")
        parts.append(f"{self.norm} {norm:.4g}")
        parts.append(format_seconds(now - self.epoch_start))
        line = f"{self._epoch_name(k)}: {', '.join(parts)}"
        if self.max_iter is not None:
            line += f"; total {format_seconds(elapsed)}"
            left = self.max_iter - k
            if left > 0:
                line += f", at most {format_seconds(elapsed / k * left)} left"
        self._print(line)
        for text in details if self.verbose > 1 else [summary] if summary else []:
            print(f"{self.prefix}   {text}", flush=True)

    def within(self, k, n_samples):
        """The in-epoch reporter of epoch ``k`` over ``n_samples`` visits: a
        function ``(visited, updates)`` that prints a line when
        :data:`PROGRESS_SECONDS` have passed since the epoch began or since
        its last line (None when not verbose)."""
        if not self.verbose:
            return None
        last = [self.epoch_start]

        def report(visited, updates):
            now = perf_counter()
            if now - last[0] < PROGRESS_SECONDS:
                return
            last[0] = now
            elapsed = now - self.epoch_start
            left = ""
            if 0 < visited < n_samples:
                left = (f", about {format_seconds(elapsed / visited * (n_samples - visited))}"
                        " left in this epoch")
            self._print(
                f"{self._epoch_name(k)}: {visited:,} of {n_samples:,} samples, "
                f"updates {int(updates.sum())}, {format_seconds(elapsed)}"
                f"{left}"
            )

        return report

    def done(self, n_epochs, reasons, *, details=None):
        """The closing line: ``n_epochs`` run, ``reasons`` the stop reason of
        every row (one of ``CONVERGED``, ``TOL``, ``EARLY_STOPPING``,
        ``MAX_ITER``, ``CALLBACK``); ``details`` names the tol rule."""
        if not self.verbose:
            return
        reasons = list(reasons)
        counts = {r: reasons.count(r) for r in dict.fromkeys(reasons)}
        if len(counts) == 1:
            reason = _REASON_TEXT[reasons[0]].format(
                details=details, limit=self.limit, max_iter=self.max_iter)
            if len(reasons) > 1 and reasons[0] != CALLBACK:
                reason = f"{reason}, all {len(reasons)} rows"
        else:
            reason = f"{len(reasons)} rows: " + ", ".join(
                f"{n} {_SHORT_TEXT[r]}" for r, n in counts.items()).format(
                    limit=self.limit, max_iter=self.max_iter)
        unit = _plural(n_epochs, self.unit.lower())
        self._print(f"Stopped after {unit} ({reason}), took "
                    f"{format_seconds(perf_counter() - self.start)}")

    def partial(self, k, n_samples, updates, norm):
        """The line of ``partial_fit`` call (pass) ``k`` on ``n_samples``
        (``norm``: the value of what ``norm`` names)."""
        if not self.verbose:
            return
        self._print(
            f"partial_fit pass {k}: {_plural(n_samples, 'sample')}, updates "
            f"{int(updates)}, {self.norm} {norm:.4g}, took "
            f"{format_seconds(perf_counter() - self.start)}"
        )


_REASON_TEXT = {
    CONVERGED: "converged",
    TOL: "tol rule: {details}",
    EARLY_STOPPING: "early stopping: {details}",
    MAX_ITER: "{limit}={max_iter} reached",
    CALLBACK: "a callback asked to stop",
}
_SHORT_TEXT = {
    CONVERGED: "converged",
    TOL: "by the tol rule",
    EARLY_STOPPING: "by early stopping",
    MAX_ITER: "at {limit}={max_iter}",
    CALLBACK: "by a callback",
}
