# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Pick the builds of the compiled loops that suit this CPU.

A compiled module ``<name>_avx2`` (``_linear/_linear_fast_avx2``,
``_kernel/_kernel_fast_avx2``, ``_kernel/_kernel_budget_fast_avx2``,
``_linear/_second_order_fast_avx2``) is the same source as ``<name>`` compiled
with AVX2, which doubles the width of the dot products (and of the kernel
perceptron's exponentials and the second-order perceptron's matrix pass).
Both builds round alike (no fused multiply-add), so the choice changes speed,
never results; the one exception is ``_second_order_fast_avx2``, whose
matrix pass fuses its multiply-adds (it is taken on CPUs with AVX2 and FMA3):
its fits agree with the baseline build's to rounding, as the BLAS it replaced
did.  Set ``SKLEARN_PERCEPTRONS_NO_AVX2=1`` to force the baseline builds.
"""

import importlib
import os

from ._cpu_features import cpu_features


def cpu_has_avx2(*others):
    """Whether the CPU has AVX2 (and the named ``others``, e.g. "FMA3")."""
    return {"AVX2", *others} <= cpu_features()


def select_build(name, *others):
    """The compiled module ``name`` (a full module name), or its AVX2 twin
    where the CPU allows (with the features ``others`` the twin also needs)."""
    if (os.environ.get("SKLEARN_PERCEPTRONS_NO_AVX2", "0") != "1"
            and cpu_has_avx2(*others)):
        try:
            return importlib.import_module(f"{name}_avx2")
        except ImportError:  # not built on this platform
            pass
    return importlib.import_module(name)
