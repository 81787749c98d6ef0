# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The README's tour runs as written."""

import doctest
import os

import pytest

README = os.path.join(os.path.dirname(__file__), os.pardir, "README.rst")


@pytest.mark.skipif(not os.path.exists(README), reason="README.rst not beside tests/")
def test_readme_tour():
    result = doctest.testfile(
        os.path.abspath(README), module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.attempted > 0
    assert result.failed == 0


ROOT = os.path.dirname(README)
# The design notes the team wrote the package from live outside the
# repository; a reader of the repository cannot follow a reference to them.
OUTSIDE_DOCUMENTS = ("API.md", "PERFORMANCE.md", "ARCHITECTURE.md", "STYLE.md",
                     "shared/design")
SKIPPED_FOLDERS = {".git", ".venv", "build", "dist", "_build", "auto_examples",
                   "generated", "_generated", "__pycache__", ".hypothesis"}


def _repository_text_files():
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders
                         if name not in SKIPPED_FOLDERS
                         and not name.endswith(".egg-info")]
        for name in files:
            if name.endswith((".py", ".pyx", ".pxd", ".pxi", ".h", ".rst",
                              ".txt", ".cfg", ".toml", ".md", ".in")) \
                    or name == "run":
                yield os.path.join(folder, name)


@pytest.mark.skipif(not os.path.exists(README), reason="README.rst not beside tests/")
def test_no_file_cites_a_document_outside_the_repository():
    citing = []
    for path in _repository_text_files():
        if os.path.samefile(path, __file__):
            continue
        with open(path, encoding="utf-8", errors="replace") as file:
            for number, line in enumerate(file, 1):
                if any(name in line for name in OUTSIDE_DOCUMENTS):
                    citing.append(f"{os.path.relpath(path, ROOT)}:{number}")
    assert citing == []
