# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The Examples sections of the docstrings run, and every public name has one."""

import doctest
import importlib
import inspect
import pkgutil

import pytest

import sklearn_perceptrons

MODULES = sorted(
    info.name
    for info in pkgutil.iter_modules(sklearn_perceptrons.__path__, "sklearn_perceptrons.")
    if not info.name.rsplit(".", 1)[1].startswith("_") or info.name.endswith(
        ("_linear", "_margin", "_kernel", "_multiclass", "_voted", "_second_order"))
)


# Public modules that need an optional extra, and the package that extra brings.
OPTIONAL = {"sklearn_perceptrons.distributed": "dask"}


@pytest.mark.parametrize("module_name", MODULES)
def test_doctests(module_name):
    if module_name in OPTIONAL:
        pytest.importorskip(OPTIONAL[module_name])
    module = importlib.import_module(module_name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        verbose=False,
    )
    assert result.failed == 0


def public_objects():
    for name in sklearn_perceptrons.__all__:
        obj = getattr(sklearn_perceptrons, name)
        if inspect.ismodule(obj):
            for member in getattr(obj, "__all__", []):
                yield f"{name}.{member}", getattr(obj, member)
        elif not name.startswith("__"):
            yield name, obj


@pytest.mark.parametrize("name, obj", list(public_objects()), ids=lambda x: str(x)[:40])
def test_public_docstrings_have_examples(name, obj):
    doc = inspect.getdoc(obj) or ""
    assert "Examples\n--------" in doc, f"{name} has no Examples section"
    assert ">>>" in doc


def _documented(obj):
    yield obj
    if inspect.isclass(obj):
        for klass in obj.__mro__:
            if klass.__module__.startswith("sklearn_perceptrons"):
                yield from vars(klass).values()


@pytest.mark.parametrize("name, obj", list(public_objects()), ids=lambda x: str(x)[:40])
def test_shared_fragments_are_filled(name, obj):
    # A docstring that names a shared fragment reads it in full: no
    # placeholder is left, and the sections stay numpydoc-shaped.
    for member in _documented(obj):
        doc = getattr(member, "__doc__", None)
        doc = doc if isinstance(doc, str) else ""
        assert "{{" not in doc and "}}" not in doc, f"{name}: unfilled fragment"


def test_fill_indents_fragments_and_rejects_unknown_names():
    from sklearn_perceptrons._core import docstrings as _docstrings

    filled = _docstrings.fill("Intro.\n\n    Parameters\n    ----------\n    {{feasibility_A}}\n")
    lines = filled.split("\n")
    assert lines[4] == "    A : {array-like, sparse matrix} of shape (n_constraints, n_features)"
    assert all(line.startswith("        ") for line in lines[5:8])
    with pytest.raises(KeyError):
        _docstrings.fill("    {{no_such_fragment}}\n")
