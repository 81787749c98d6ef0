# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The compiled sweeps and the smooth iterations behind the public module
:mod:`sklearn_perceptrons.feasibility`."""
