# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""Which instruction sets this CPU has, asked of the CPU itself (the
compiler's ``__builtin_cpu_supports``), for the choice of compiled builds."""

cdef extern from *:
    """
    #if (defined(__GNUC__) || defined(__clang__)) && \\
        (defined(__x86_64__) || defined(__i386__))
    static int skp_cpu_has_avx2(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2");
    }
    static int skp_cpu_has_fma3(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("fma");
    }
    #else
    static int skp_cpu_has_avx2(void) { return 0; }
    static int skp_cpu_has_fma3(void) { return 0; }
    #endif
    """
    int skp_cpu_has_avx2() nogil
    int skp_cpu_has_fma3() nogil


def cpu_features():
    """The set of the features the AVX2 builds may need that this CPU has,
    among "AVX2" and "FMA3" (empty on CPUs other than x86)."""
    features = set()
    if skp_cpu_has_avx2():
        features.add("AVX2")
    if skp_cpu_has_fma3():
        features.add("FMA3")
    return features
