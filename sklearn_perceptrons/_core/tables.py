# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Row tables: which weight rows a sample of each class updates, and with
which sign.

A perceptron of this package trains one or several *weight rows*, each a
binary sub-problem.  The rows touched by a sample of class ``c`` are
``rows[rows_ptr[c]:rows_ptr[c + 1]]``, with ``signs`` at the same places
(:func:`one_vs_all_table`, :func:`one_vs_one_table`,
:func:`crammer_singer_table`: the true class +1 and every other -1 on one
row per class, where the rule, not the table, decides which rows move).
:func:`sign_matrix` turns a table into a dense (n_classes, n_rows) matrix.
Every estimator family shares them: the linear and kernel perceptrons, the
voted perceptron and the multiclass reductions.
"""

import functools

import numpy as np

def _read_only(*arrays):
    """Freeze the arrays of a cached table, so no caller can corrupt it."""
    for array in arrays:
        array.flags.writeable = False
    return arrays


@functools.lru_cache(maxsize=64)
def one_vs_all_table(n_classes):
    """Rows touched by each class, and signs, for one-vs-all sub-problems.

    Binary problems have one row, in which ``classes_[1]`` is the positive
    class; otherwise row ``k`` is "class k vs. the rest".

    Returns
    -------
    rows_ptr, rows, signs : ndarrays of int32, int32, int8
        The rows touched by a sample of class ``c`` are
        ``rows[rows_ptr[c]:rows_ptr[c + 1]]`` with signs at the same places.
    """
    if n_classes == 2:
        return _read_only(
            np.array([0, 1, 2], dtype=np.int32),
            np.array([0, 0], dtype=np.int32),
            np.array([-1, 1], dtype=np.int8),
        )
    rows = np.tile(np.arange(n_classes, dtype=np.int32), n_classes)
    signs = np.where(
        rows.reshape(n_classes, n_classes) == np.arange(n_classes)[:, None], 1, -1
    ).astype(np.int8)
    rows_ptr = np.arange(0, n_classes * n_classes + 1, n_classes, dtype=np.int32)
    return _read_only(rows_ptr, rows, signs.ravel())


@functools.lru_cache(maxsize=64)
def one_vs_one_table(n_classes):
    """Rows touched by each class, and signs, for one-vs-one sub-problems.

    Row ``p`` is the pair ``(i, j)``, ``i < j``, in lexicographic order, with
    class ``j`` positive (as scikit-learn's ``OneVsOneClassifier``).  A sample
    of class ``c`` touches only the ``n_classes - 1`` pairs that involve ``c``.
    """
    pairs = [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]
    rows, signs, rows_ptr = [], [], [0]
    for c in range(n_classes):
        for p, (i, j) in enumerate(pairs):
            if c in (i, j):
                rows.append(p)
                signs.append(1 if c == j else -1)
        rows_ptr.append(len(rows))
    return _read_only(
        np.asarray(rows_ptr, dtype=np.int32),
        np.asarray(rows, dtype=np.int32),
        np.asarray(signs, dtype=np.int8),
    )


@functools.lru_cache(maxsize=64)
def crammer_singer_table(n_classes):
    """Every row (one per class) for every class, +1 on the class's own row
    and -1 on the others: the rows a Crammer-Singer visit scores (two rows
    for two classes too)."""
    if n_classes > 2:
        return one_vs_all_table(n_classes)
    return _read_only(
        np.array([0, 2, 4], dtype=np.int32),
        np.array([0, 1, 0, 1], dtype=np.int32),
        np.array([1, -1, -1, 1], dtype=np.int8),
    )


def sign_matrix(table, n_classes, n_rows):
    """Dense (n_classes, n_rows) matrix of the sign of each class in each row.

    Zero where a class does not take part in a row's binary problem.
    """
    rows_ptr, rows, signs = table
    matrix = np.zeros((n_classes, n_rows), dtype=np.int8)
    for c in range(n_classes):
        span = slice(rows_ptr[c], rows_ptr[c + 1])
        matrix[c, rows[span]] = signs[span]
    return matrix


