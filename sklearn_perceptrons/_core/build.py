# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""A clear error when the package is imported where its compiled extensions
are not built (a clone's source tree, typically: Python run from the
clone's root finds the source folder before the installed package)."""

import os


def check_build():
    """Import one compiled module of the package, or raise an ImportError
    that says what to do."""
    try:
        from . import _shuffle  # noqa: F401  (every build has it)
    except ImportError as error:
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        source_tree = os.path.exists(os.path.join(package, os.pardir, "setup.py"))
        where = ("a source tree" if source_tree else "a folder")
        raise ImportError(
            f"sklearn_perceptrons is imported from {package}, {where} whose "
            f"compiled (Cython) extensions are not built ({error}).\n"
            "- If you installed the package (pip install .) and run Python "
            "from the root of its clone, the source folder hides the "
            "installed package: run Python from another folder.\n"
            "- To use the source tree itself, build the extensions in place "
            "first: python setup.py build_ext --inplace (it needs Cython >= 3 "
            "and a C compiler; README.rst's Quick start installs everything)."
        ) from error
