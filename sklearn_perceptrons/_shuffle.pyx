# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""A compiled in-place shuffle for the epoch orders of the perceptrons.

``numpy.random.RandomState.shuffle`` costs about as much as one pass over a
200,000 x 50 float64 X, which would make the shuffled epoch of the perceptron
twice as slow as it needs to be.  This Fisher-Yates shuffle is driven by a
SplitMix64 generator seeded from the estimator's ``random_state`` (one seed
drawn in Python per epoch), so it stays deterministic.
"""

from libc.stdint cimport uint32_t, uint64_t


cdef inline uint64_t _splitmix64(uint64_t* state) noexcept nogil:
    cdef uint64_t z
    state[0] += <uint64_t>0x9E3779B97F4A7C15
    z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline uint32_t _bounded(uint64_t* state, uint32_t bound) noexcept nogil:
    """Uniform integer in [0, bound) without modulo bias (Lemire, 2019)."""
    cdef uint64_t product = (_splitmix64(state) >> 32) * <uint64_t>bound
    cdef uint32_t low = <uint32_t>product
    cdef uint32_t limit
    if low < bound:
        limit = (<uint32_t>(-bound)) % bound
        while low < limit:
            product = (_splitmix64(state) >> 32) * <uint64_t>bound
            low = <uint32_t>product
    return <uint32_t>(product >> 32)


def shuffle_indices(int[::1] indices, uint64_t seed):
    """Shuffle ``indices`` in place (Fisher-Yates) from the 64-bit ``seed``."""
    cdef Py_ssize_t i, j
    cdef int tmp
    cdef uint64_t state = seed
    with nogil:
        for i in range(indices.shape[0] - 1, 0, -1):
            j = _bounded(&state, <uint32_t>(i + 1))
            tmp = indices[i]
            indices[i] = indices[j]
            indices[j] = tmp
