# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Classes that join a stream (``grow_classes=True``): the shared mechanism.

A ``partial_fit`` call whose labels (or whose ``classes``) name labels
outside ``classes_`` finds them here (:func:`find_growth`), which builds the
grown, sorted ``classes_`` and where every old class now sits
(:class:`Growth`).  Each family then re-indexes its own state through its
``_grow_classes(growth)`` hook, with the row maps of :class:`Growth`
(which new row comes from which old row, and with which sign) and
:func:`reindex_rows`; a row without a source starts as a fresh row of the
family would.  The hook replaces the arrays it changes, never writes into
them, so that a call that fails afterwards leaves the estimator as it was
(:func:`~sklearn_perceptrons._core.base.keep_state_on_error`).
"""

from itertools import combinations

import numpy as np

_NUMERIC = "biuf"


class Growth:
    """The classes of a stream before and after new labels joined.

    ``old``: ``classes_`` before; ``classes``: after, sorted (``np.unique``
    order, as scikit-learn's); ``position[k]``: the index in ``classes`` of
    ``old[k]`` (increasing, since both are sorted).
    """

    def __init__(self, old, classes):
        self.old = old
        self.classes = classes
        self.position = np.searchsorted(classes, old).astype(np.intp)

    @property
    def n_classes(self):
        return self.classes.shape[0]

    def one_vs_all_rows(self):
        """(source, sign) of every one-vs-all row of the grown classes: the
        old row of the same class (sign +1), or -1 for the rows of the new
        classes.  A binary model's one row is ``classes_[1]``'s; the row of
        ``classes_[0]`` is its negation (sign -1), what a one-vs-all row of
        two classes learns: every sample of the two is a mistake of both
        rows or of neither, with opposite signs."""
        source = np.full(self.n_classes, -1, dtype=np.intp)
        sign = np.ones(self.n_classes)
        if self.old.shape[0] == 2:
            source[self.position] = 0
            sign[self.position[0]] = -1.0
        else:
            source[self.position] = np.arange(self.old.shape[0])
        return source, sign

    def class_rows(self):
        """(source, sign) of a model with one row per class (Crammer-Singer,
        two rows for two classes too)."""
        source = np.full(self.n_classes, -1, dtype=np.intp)
        source[self.position] = np.arange(self.old.shape[0])
        return source, np.ones(self.n_classes)

    def pair_rows(self):
        """Source of every one-vs-one pair ``(i, j)``, ``i < j``, of the grown
        classes, in lexicographic order: the index of the old pair of the
        same two classes, or -1 (a pair with a new class).  The positions
        increase, so an old pair keeps its orientation."""
        old_pairs = {pair: p for p, pair in enumerate(
            combinations(self.position.tolist(), 2))}
        return np.array([old_pairs.get(pair, -1) for pair in
                         combinations(range(self.n_classes), 2)], dtype=np.intp)

    def class_index(self, old_index):
        """The new class index of old class indices (an int array)."""
        return self.position[old_index].astype(old_index.dtype)


def reindex_rows(array, source, sign=None, fresh=0.0, axis=0):
    """A new array whose rows (along ``axis``) are ``array``'s rows
    ``source`` (times ``sign``, when given), and ``fresh`` where ``source``
    is -1."""
    array = np.asarray(array)
    moved = np.moveaxis(array, axis, 0)
    out = np.empty((source.shape[0],) + moved.shape[1:], dtype=array.dtype)
    out[...] = fresh
    old = source >= 0
    taken = moved[source[old]]
    if sign is not None:
        factor = sign[old].reshape((-1,) + (1,) * (moved.ndim - 1))
        taken = (taken * factor).astype(array.dtype, copy=False)
    out[old] = taken
    return np.ascontiguousarray(np.moveaxis(out, 0, axis))


def check_classes(classes, name="classes"):
    """The sorted unique labels of a ``classes`` argument: a 1-d array-like
    of sortable labels, none of them missing (NaN or None), as scikit-learn
    requires."""
    classes = np.asarray(classes)
    if classes.ndim != 1:
        raise ValueError(
            f"{name} must be a 1-d array-like of labels; got an array of shape "
            f"{classes.shape}."
        )
    missing = (
        np.isnan(classes) if classes.dtype.kind in "fc"
        else np.array([c is None or (isinstance(c, float) and c != c)
                       for c in classes.tolist()], dtype=bool)
        if classes.dtype.kind == "O" else np.zeros(classes.shape, dtype=bool)
    )
    if missing.any():
        raise ValueError(
            f"{name}={classes.tolist()!r} contains a missing label (NaN or "
            "None); every class must be a proper label."
        )
    try:
        return np.unique(classes)
    except TypeError as error:
        raise ValueError(
            f"{name}={classes.tolist()!r} mixes labels that cannot be "
            "compared with each other; use labels of one type."
        ) from error


def _merge(old, labels):
    """The sorted union of the classes ``old`` and the labels ``labels``
    (neither missing labels nor a mix of numbers and text)."""
    kinds = (old.dtype.kind, labels.dtype.kind)
    if "O" in kinds:
        merged = np.concatenate([old.astype(object), labels.astype(object)])
    elif (kinds[0] in _NUMERIC) != (kinds[1] in _NUMERIC):
        raise ValueError(
            f"partial_fit got labels {labels.tolist()!r} that cannot join the "
            f"classes {old.tolist()!r}: numbers and text do not mix; use "
            "labels of one type."
        )
    else:
        merged = np.concatenate([old, labels])
    return check_classes(merged, "the classes with the labels of y")


def unknown_labels(classes, labels):
    """The labels of ``labels`` (sorted, distinct) that are not in
    ``classes``."""
    labels = check_classes(labels, "y")
    try:
        index = np.minimum(np.searchsorted(classes, labels), classes.shape[0] - 1)
        known = classes[index] == labels
    except TypeError:
        # Labels that do not compare with the classes: every one is new, and
        # the merge says whether they may join.
        known = np.zeros(labels.shape[0], dtype=bool)
    return labels[~np.asarray(known, dtype=bool)]


def find_growth(classes, y, declared=None):
    """The :class:`Growth` of a ``partial_fit`` call of a fitted estimator
    whose classes are ``classes`` on labels ``y`` (and a ``classes``
    argument ``declared``, or None), or None when every label is known."""
    new = unknown_labels(classes, np.asarray(y))
    if declared is not None:
        new = np.union1d(new, unknown_labels(classes, np.asarray(declared)))
    if new.shape[0] == 0:
        return None
    return Growth(classes, _merge(classes, new))


# The function of every family that swaps the labels of one of its fitted
# binary estimators (see flipped_binary), by the family's base class: the
# reductions reach every family's estimators through it, importing none.
_FLIPS = {}


def register_flip(cls, flip):
    """Register ``flip(estimator) -> estimator``: a copy of a fitted binary
    estimator of ``cls`` (or of a subclass) whose decision is the negation
    of the original's, its state what training with the labels swapped
    would have learned.  ``estimator`` itself is left unchanged."""
    _FLIPS[cls] = flip


def flipped_binary(estimator):
    """:func:`register_flip`'s copy of ``estimator``, or None for an
    estimator of no registered family (one outside this package)."""
    for cls in type(estimator).__mro__:
        if cls in _FLIPS:
            return _FLIPS[cls](estimator)
    return None
