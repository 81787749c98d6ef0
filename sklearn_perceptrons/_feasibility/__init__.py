# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""What the public module :mod:`sklearn_perceptrons.feasibility` runs on: its
input checks (``checks``), the rows of A (``rows``), its results
(``results``), the drivers of the compiled sweeps (``sweeps``, over
``_feasibility_fast``) and of the smooth iterations (``smooth``,
``homogeneous``)."""
