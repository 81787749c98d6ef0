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
