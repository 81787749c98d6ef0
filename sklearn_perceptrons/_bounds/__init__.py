# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""What ``sklearn_perceptrons.bounds`` computes with, by what it computes: the
checks and exact scaling of the data (``data``), the hard-margin solver
(``hard_margin``), margins (``margins``), the perceptron's bounds
(``perceptron``), the condition measure (``condition``), the second-order
perceptron's bound (``second_order``) and the online family's (``online``).
The public functions are documented and imported from
``sklearn_perceptrons.bounds``."""
