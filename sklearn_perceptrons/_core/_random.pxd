# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The package's one pseudo-random generator for compiled loops: SplitMix64
(Steele, Lea & Flood, 2014), seeded from Python so that results stay
deterministic, with the draws the loops need."""

from libc.stdint cimport uint32_t, uint64_t


cdef inline uint64_t splitmix64(uint64_t* state) noexcept nogil:
    """The next 64 random bits; advances ``state``."""
    cdef uint64_t z
    state[0] += <uint64_t>0x9E3779B97F4A7C15ULL
    z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline double uniform(uint64_t* state) noexcept nogil:
    """A double uniform on [0, 1) with 53 random bits."""
    return <double>(splitmix64(state) >> 11) * (1.0 / 9007199254740992.0)


cdef inline Py_ssize_t randint(uint64_t* state, Py_ssize_t m) noexcept nogil:
    """An integer uniform on {0, ..., m - 1} (bias below 2**-53 * m)."""
    cdef Py_ssize_t k = <Py_ssize_t>(uniform(state) * m)
    # The product can round up to m; clip rather than redraw.
    return k if k < m else m - 1


cdef inline uint32_t bounded32(uint64_t* state, uint32_t bound) noexcept nogil:
    """An integer uniform on [0, bound), without modulo bias (Lemire, 2019)."""
    cdef uint64_t product = (splitmix64(state) >> 32) * <uint64_t>bound
    cdef uint32_t low = <uint32_t>product
    cdef uint32_t limit
    if low < bound:
        limit = (<uint32_t>(-bound)) % bound
        while low < limit:
            product = (splitmix64(state) >> 32) * <uint64_t>bound
            low = <uint32_t>product
    return <uint32_t>(product >> 32)
