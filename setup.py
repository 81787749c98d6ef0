# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Declare the Cython extensions: every ``sklearn_perceptrons/_*.pyx`` file.

Set ``SKLEARN_PERCEPTRONS_DEBUG=1`` to build with bounds checking and without
optimisation, which turns out-of-bounds accesses into Python exceptions.
"""
import os
from glob import glob

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("SKLEARN_PERCEPTRONS_DEBUG", "0") == "1"

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": False,
    "initializedcheck": DEBUG,
    "nonecheck": False,
    "cdivision": True,
    "cpow": True,
}
compile_args = ["-O0", "-g"] if DEBUG else ["-O3"]

extensions = [
    Extension(
        "sklearn_perceptrons." + os.path.splitext(os.path.basename(path))[0],
        [path],
        extra_compile_args=compile_args,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_9_API_VERSION")],
    )
    for path in sorted(glob(os.path.join("sklearn_perceptrons", "_*.pyx")))
]

setup(ext_modules=cythonize(extensions, compiler_directives=directives))
