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

from ._random cimport bounded32


def shuffle_indices(int[::1] indices, uint64_t seed):
    """Shuffle ``indices`` in place (Fisher-Yates) from the 64-bit ``seed``."""
    cdef Py_ssize_t i, j
    cdef int tmp
    cdef uint64_t state = seed
    with nogil:
        for i in range(indices.shape[0] - 1, 0, -1):
            j = bounded32(&state, <uint32_t>(i + 1))
            tmp = indices[i]
            indices[i] = indices[j]
            indices[j] = tmp
