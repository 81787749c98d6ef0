# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The one list of estimators that scikit-learn's checks run on, and the one
table of the checks they are expected to fail
(the conventions of docs/developers.rst).

An estimator added to the package must be added to ``CHECKED`` (its
defaults, and any configuration that takes another code path);
``tests/test_common.py`` fails until it is.
"""

from sklearn.linear_model import SGDClassifier
from sklearn.svm import LinearSVC

from sklearn_perceptrons import (
    ALMAClassifier,
    AROWClassifier,
    KernelPerceptron,
    MarginPerceptron,
    OneVsAllPerceptron,
    OneVsOnePerceptron,
    PassiveAggressiveClassifier,
    Perceptron,
    ROMMAClassifier,
    SecondOrderPerceptron,
    VotedPerceptron,
)

try:
    from sklearn_perceptrons.distributed import ParameterMixing
except ImportError:  # Dask is an optional dependency
    ParameterMixing = None

# An online algorithm scales an update by a sample's weight, which is not the
# same as visiting the sample twice; scikit-learn's own Perceptron is expected
# to fail these two checks for the same reason.
_ONLINE_SAMPLE_WEIGHT = (
    "an update scaled by a weight differs from two visits of the sample "
    "(online algorithm), as for scikit-learn's Perceptron"
)
EXPECTED_FAILED_CHECKS = {
    "check_sample_weight_equivalence_on_dense_data": _ONLINE_SAMPLE_WEIGHT,
    "check_sample_weight_equivalence_on_sparse_data": _ONLINE_SAMPLE_WEIGHT,
}


def expected_failed_checks(estimator):
    """The expected failures of ``estimator`` (the same for every one)."""
    return EXPECTED_FAILED_CHECKS


def checked_estimators():
    """Every configuration scikit-learn's checks run on, each once."""
    estimators = [
        Perceptron(),
        Perceptron(multi_class="crammer_singer"),
        Perceptron(penalty="elasticnet", alpha=0.001, n_jobs=2),
        MarginPerceptron(),
        KernelPerceptron(),
        KernelPerceptron(kernel="precomputed"),
        KernelPerceptron(kernel="poly", degree=2, average=True),
        KernelPerceptron(budget=60),
        OneVsAllPerceptron(),
        OneVsOnePerceptron(),
        OneVsAllPerceptron(LinearSVC()),
        OneVsOnePerceptron(SGDClassifier(random_state=0)),
        SecondOrderPerceptron(),
        SecondOrderPerceptron(diagonal=True),
        VotedPerceptron(),
        VotedPerceptron(kernel="rbf"),
        # PA-II (loss="squared_hinge") is left out: with the class weight of
        # 1000 of check_class_weight_classifiers its steps overflow, as
        # scikit-learn's own PA-II's do (tests/test_passive_aggressive.py).
        PassiveAggressiveClassifier(),
        PassiveAggressiveClassifier(multi_class="crammer_singer", average=True),
        ALMAClassifier(),
        ROMMAClassifier(),
        ROMMAClassifier(aggressive=True, average=True),
        AROWClassifier(),
        AROWClassifier(diagonal=True),
    ]
    if ParameterMixing is not None:
        estimators += [ParameterMixing(),
                       ParameterMixing(MarginPerceptron(margin=0.5))]
    return estimators
