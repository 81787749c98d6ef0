# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""What every estimator family shares: parameters and input validation
(``base``), the epoch driver (``training``), row tables (``tables``), the
worker threads, the choice of compiled builds (``cpu``), docstring fragments,
and the compiled helpers of every loop (the generator, the shuffle, dot
products and prefetch hints)."""
