# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause

"""The theory of the perceptron, computable.

Radii, margins and the classic mistake bounds of the perceptron, evaluated on a
data set, so that the theorems can be checked against a run:

* :func:`radius` -- the radius ``R = max_i ||x_i||`` of the data;
* :func:`margin` -- the smallest signed distance of a sample to a hyperplane;
* :func:`max_margin` -- the exact hard-margin separator and its margin;
* :func:`mistake_bound` -- the Block--Novikoff bound ``(R / gamma)**2`` and its
  general form for a threshold and a non-zero start;
* :func:`hinge_mistake_bound` -- the mistake bound for non-separable data, in
  terms of the hinge loss of any comparison vector;
* :func:`second_order_mistake_bound` -- Theorem 1 of the second-order
  perceptron, from the mistakes of a run;
* the bounds of the online family: :func:`passive_aggressive_mistake_bound`
  (PA-I and PA-II, binary and multiclass), :func:`alma_mistake_bound`
  (ALMA_p), :func:`romma_mistake_bound` (ROMMA and aggressive ROMMA) and
  :func:`arow_mistake_bound` (AROW, from the updates of a run).

Binary labels (except for ``multi_class="crammer_singer"`` of
:func:`max_margin` and :func:`mistake_bound`, the native multiclass
perceptron): ``classes = np.unique(y)`` (sorted) must hold exactly two
labels; ``classes[1]`` is the positive class (``s_i = +1``) and ``classes[0]``
the negative class (``s_i = -1``), as in the estimators of this package.

The perceptron with an intercept is the homogeneous perceptron run on the
*padded* vectors ``x~ = [x; 1]`` with weights ``w~ = [w; b]``: an update
``w += s x, b += s`` is exactly ``w~ += s x~``. Its theorems are therefore
about padded quantities, and so is this module: with ``fit_intercept=True``
radii are ``max_i ||[x_i; 1]||``, margins are measured with ``||[w; b]||``
(the bias is regularised like a weight) and :func:`max_margin` maximises that
padded margin. It is never larger than the usual geometric margin
``min_i s_i (w . x_i + b) / ||w||``, and can be much smaller when the data lie
far from the origin; the perceptron's mistake bounds depend on the padded one.

The bounds count updates made with learning rate ``eta0 = 1`` and unit sample
weights. The mistake count of a perceptron started at ``w = 0`` with
threshold 0 does not depend on ``eta0`` (every weight vector is scaled by it);
with a threshold ``delta`` and a start ``w0``, a run with learning rate
``eta0`` makes the same updates as a run with learning rate 1, threshold
``delta / eta0`` and start ``w0 / eta0``.
"""

from ._bounds.condition import condition_measure
from ._bounds.margins import margin, max_margin, radius
from ._bounds.online import (
    alma_mistake_bound,
    arow_mistake_bound,
    passive_aggressive_mistake_bound,
    romma_mistake_bound,
)
from ._bounds.perceptron import hinge_mistake_bound, mistake_bound
from ._bounds.second_order import second_order_mistake_bound

__all__ = [
    "alma_mistake_bound",
    "arow_mistake_bound",
    "condition_measure",
    "hinge_mistake_bound",
    "margin",
    "max_margin",
    "mistake_bound",
    "passive_aggressive_mistake_bound",
    "radius",
    "romma_mistake_bound",
    "second_order_mistake_bound",
]

# Users, pickles and the documentation see the functions as this module's.
for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
