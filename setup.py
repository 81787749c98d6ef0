# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Declare the Cython extensions: every ``_*.pyx`` file of the package and
its subpackages (``sklearn_perceptrons/_linear/_linear_fast.pyx`` is the
module ``sklearn_perceptrons._linear._linear_fast``).

A module named ``*_avx2.pyx`` is the same source as its baseline twin,
compiled with AVX2 enabled; it is built on x86-64 with GCC or Clang only, and
the package imports it only on CPUs that have AVX2.  Every module is compiled
with ``-ffp-contract=off`` so that no build fuses multiplications and
additions: the two twins round alike and give bit-identical results (the
second-order perceptron's AVX2 matrix pass alone fuses them, explicitly: see
``sklearn_perceptrons/_cpu.py``).

Set ``SKLEARN_PERCEPTRONS_DEBUG=1`` to build with bounds checking and without
optimisation, which turns out-of-bounds accesses into Python exceptions.

Building once is enough: a ``.pyx`` file is translated to C again only when
its content, a shared source beside it (``.pxd``, ``.pxi``, ``.h``, ``.c``),
the Cython version or the compiler directives changed (fingerprints in
``build/cython-fingerprints.json``), and setuptools then recompiles only the
C files newer than their extension in ``build/``.  Without this, every
``pip install .`` would translate and compile everything again, because pip
builds in a fresh environment whose Cython headers look newer than the C
files.

The source distribution holds the Cython and hand-written C sources, never
the generated C files (they are specific to one Cython version).
"""
import hashlib
import json
import os
import platform
import sys
from glob import glob

import Cython
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_py import build_py as _build_py
from setuptools.command.sdist import sdist as _sdist

PACKAGE = "sklearn_perceptrons"
FINGERPRINTS = os.path.join("build", "cython-fingerprints.json")

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

# The C headers every compiled family shares (dot products, prefetch hints).
SHARED_HEADERS = os.path.join(PACKAGE, "_core")

extensions = []
for path in sorted(glob(os.path.join(PACKAGE, "**", "_*.pyx"), recursive=True)):
    name = os.path.splitext(path)[0].replace(os.sep, ".")
    args = list(compile_args)
    if name.endswith("_avx2"):
        if not BUILD_AVX2:
            continue
        args.append("-mavx2")
    extensions.append(
        Extension(
            name,
            [path],
            include_dirs=[SHARED_HEADERS],
            extra_compile_args=args,
            # The C headers of the package (rebuild when they change).
            depends=glob(os.path.join(PACKAGE, "**", "*.h"), recursive=True),
        )
    )



def _generated_c_files():
    """The C files that Cython generates from the package's ``.pyx`` files."""
    return {os.path.normpath(os.path.splitext(p)[0] + ".c")
            for p in glob(os.path.join(PACKAGE, "**", "*.pyx"), recursive=True)}


def _fingerprint(pyx, shared):
    digest = hashlib.sha256()
    digest.update(f"{Cython.__version__} {sorted(directives.items())}".encode())
    for path in [pyx] + shared:
        digest.update(path.encode())
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()


def translate(extensions):
    """Cythonize the extensions whose C file is missing or out of date; point
    the others at their current C file."""
    generated = _generated_c_files()
    shared = sorted(
        p for pattern in ("*.pxd", "*.pxi", "*.h", "*.c")
        for p in glob(os.path.join(PACKAGE, "**", pattern), recursive=True)
        if os.path.normpath(p) not in generated
    )
    try:
        with open(FINGERPRINTS) as f:
            known = json.load(f)
    except (OSError, ValueError):
        known = {}
    current, stale, fingerprints = [], [], {}
    for ext in extensions:
        pyx = ext.sources[0]
        c_file = os.path.splitext(pyx)[0] + ".c"
        fingerprints[c_file] = _fingerprint(pyx, shared)
        if os.path.exists(c_file) and known.get(c_file) == fingerprints[c_file]:
            ext.sources = [c_file] + ext.sources[1:]
            current.append(ext)
        else:
            stale.append(ext)
    if stale:
        current += cythonize(stale, compiler_directives=directives, force=True)
    os.makedirs(os.path.dirname(FINGERPRINTS), exist_ok=True)
    with open(FINGERPRINTS, "w") as f:
        json.dump({**known, **fingerprints}, f, indent=1, sort_keys=True)
    return sorted(current, key=lambda ext: ext.name)


class build_py(_build_py):
    """Leave the generated C files out of the wheel."""

    def exclude_data_files(self, package, src_dir, files):
        generated = _generated_c_files()
        return [f for f in super().exclude_data_files(package, src_dir, files)
                if os.path.normpath(f) not in generated]


class sdist(_sdist):
    """Leave the generated C files out of the source distribution."""

    def make_release_tree(self, base_dir, files):
        generated = _generated_c_files()
        super().make_release_tree(
            base_dir, [f for f in files if os.path.normpath(f) not in generated])


setup(
    ext_modules=translate(extensions),
    cmdclass={"build_py": build_py, "sdist": sdist},
)
