# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Pick the build of the compiled epoch that suits this CPU.

``_linear_fast_avx2`` is the same source as ``_linear_fast`` compiled with
AVX2, which doubles the width of the dot products (it matters most for the
one-vs-all epoch, which computes K dot products per row).  Both builds round
alike (no fused multiply-add), so the choice changes speed, never results.
Set ``SKLEARN_PERCEPTRONS_NO_AVX2=1`` to force the baseline build.
"""

import os


def _cpu_has_avx2():
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # numpy < 2
        try:
            from numpy.core._multiarray_umath import __cpu_features__
        except ImportError:
            return False
    return bool(__cpu_features__.get("AVX2", False))


def _select_linear_fast():
    if os.environ.get("SKLEARN_PERCEPTRONS_NO_AVX2", "0") != "1" and _cpu_has_avx2():
        try:
            from . import _linear_fast_avx2

            return _linear_fast_avx2
        except ImportError:  # not built on this platform
            pass
    from . import _linear_fast

    return _linear_fast


linear_fast = _select_linear_fast()
