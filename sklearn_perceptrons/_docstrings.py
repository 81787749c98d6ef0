# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Docstring fragments that several public objects share, written once.

A docstring names a fragment on a line of its own, ``{{name}}``, indented
where the fragment belongs; :func:`fill` (or the :func:`shared_doc`
decorator, at class or function creation) replaces that line by the
fragment, every line indented as the placeholder was. The filled docstring
is a plain string, so ``help()``, ``inspect.getdoc``, numpydoc and doctest
read it as if it had been written out in full. An unknown name raises
``KeyError`` at import time.
"""

import re
import textwrap

_SLOT = re.compile(r"^([ \t]*)\{\{(\w+)\}\}[ \t]*$", re.MULTILINE)

FRAGMENTS = {}


def fragment(name, text):
    """Register ``text`` (dedented, stripped of blank edge lines) as ``name``."""
    if name in FRAGMENTS:
        raise ValueError(f"docstring fragment {name!r} is defined twice")
    FRAGMENTS[name] = textwrap.dedent(text).strip("\n")


def fill(doc):
    """``doc`` with each ``{{name}}`` line replaced by its fragment."""

    def expand(match):
        indent, name = match.groups()
        lines = FRAGMENTS[name].split("\n")
        return "\n".join(indent + line if line.strip() else "" for line in lines)

    return _SLOT.sub(expand, doc)


def shared_doc(obj):
    """Decorator: fill ``obj.__doc__`` in place and return ``obj``."""
    if obj.__doc__:
        obj.__doc__ = fill(obj.__doc__)
    return obj


# ---------------------------------------------------------------------------
# feasibility.py
# ---------------------------------------------------------------------------

fragment("feasibility_A", """
    A : {array-like, sparse matrix} of shape (n_constraints, n_features)
        The constraint rows. float32 and float64 arrays and CSR matrices are
        used in place; other inputs are converted once. Must be finite, with
        at least one row and one column.
""")

fragment("feasibility_random_state", """
    random_state : int, RandomState instance or None, default=None
        Seeds the ``"permuted"`` and ``"random"`` orders (validated, but
        unused, by the others). Pass an int for reproducible results.
""")

fragment("feasibility_result_w", """
    res : scipy.optimize.OptimizeResult
        With fields

        x : ndarray of shape (n_features,), float64
            The final ``w``.
""")

fragment("feasibility_example_A", """
    >>> import numpy as np
    >>> A = np.array([[1.0, 2.0], [2.0, 1.0], [1.0, -0.5]])  # a feasible system
""")
