# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Declare the Cython extensions: every ``sklearn_perceptrons/_*.pyx`` file.

A module named ``*_avx2.pyx`` is the same source as its baseline twin,
compiled with AVX2 enabled; it is built on x86-64 with GCC or Clang only, and
the package imports it only on CPUs that have AVX2.  Every module is compiled
with ``-ffp-contract=off`` so that no build fuses multiplications and
additions: the two twins round alike and give bit-identical results.

Set ``SKLEARN_PERCEPTRONS_DEBUG=1`` to build with bounds checking and without
optimisation, which turns out-of-bounds accesses into Python exceptions.
"""
import os
import platform
import sys
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
UNIX_COMPILER = sys.platform != "win32"
if UNIX_COMPILER:
    compile_args.append("-ffp-contract=off")
BUILD_AVX2 = UNIX_COMPILER and platform.machine().lower() in ("x86_64", "amd64")

extensions = []
for path in sorted(glob(os.path.join("sklearn_perceptrons", "_*.pyx"))):
    name = os.path.splitext(os.path.basename(path))[0]
    args = list(compile_args)
    if name.endswith("_avx2"):
        if not BUILD_AVX2:
            continue
        args.append("-mavx2")
    extensions.append(
        Extension(
            "sklearn_perceptrons." + name,
            [path],
            extra_compile_args=args,
            # The C headers beside the .pyx files (rebuild when they change).
            depends=glob(os.path.join("sklearn_perceptrons", "*.h")),
        )
    )

setup(ext_modules=cythonize(extensions, compiler_directives=directives))
