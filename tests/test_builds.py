# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The AVX2 and baseline builds of the compiled epoch give identical results."""

import importlib
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_perceptrons._core.tables import one_vs_all_table
from sklearn_perceptrons._core.cpu import cpu_has_avx2


def _epoch_results(module, X, y_class, average, rule, power=2.0):
    n_rows = 3
    coef = np.zeros((n_rows, X.shape[1]), dtype=X.dtype)
    intercept = np.zeros(n_rows, dtype=X.dtype)
    coef_sum = np.zeros((n_rows, X.shape[1]))
    intercept_sum = np.zeros(n_rows)
    visits = np.zeros(n_rows)
    updates = np.zeros(n_rows, dtype=np.int64)
    order = np.random.RandomState(0).permutation(X.shape[0]).astype(np.int32)
    data = (X.data, X.indices, X.indptr) if sp.issparse(X) else (X,)
    kind = "csr" if sp.issparse(X) else "dense"
    head = (order, y_class, np.ones(X.shape[0]), *one_vs_all_table(3), coef,
            intercept, True, np.ones(n_rows, np.uint8), rule,
            np.full(n_rows, 0.1), np.full(n_rows, 0.7), np.zeros(n_rows))
    for _ in range(3):
        if rule >= 8:
            # The scaled walk (ALMA, ROMMA): exact norms at every pass start.
            norm = np.sqrt((coef.astype(np.float64) ** 2).sum(axis=1)
                           + intercept.astype(np.float64) ** 2)
            dual_rows = n_rows if power != 2.0 else 1
            (order, y_class, step, ptr, rows, signs, coef, intercept,
             fit_intercept, active, code, threshold, kappa, _) = head
            getattr(module, f"scaled_{kind}")(
                *data, (order, y_class, step), (ptr, rows, signs), coef,
                intercept, active,
                (code, threshold, kappa, 1.0, fit_intercept, average),
                (norm, coef_sum, intercept_sum, visits, updates),
                (np.zeros(n_rows), power,
                 np.zeros((dual_rows, X.shape[1] if power != 2.0 else 1)),
                 np.zeros((dual_rows, 3)), 1.0, 0.0, np.zeros(n_rows),
                 np.zeros((1, 1)), np.ones(n_rows), visits.copy()))
        else:
            (order, y_class, step, ptr, rows, signs, coef, intercept,
             fit_intercept, active, code, threshold, kappa, norm) = head
            getattr(module, f"epoch_{kind}")(
                *data, (order, y_class, step), (ptr, rows, signs), coef,
                intercept, active,
                (code, threshold, kappa, 0.5, fit_intercept, average),
                (norm, coef_sum, intercept_sum, visits, updates,
                 np.zeros(n_rows), np.zeros(n_rows)))
    return coef, intercept, coef_sum, updates


# The rules: threshold (one-vs-all), Crammer-Singer "max" and "uniform", the
# multiclass and one-vs-all passive-aggressive rules, ALMA, ROMMA and
# aggressive ROMMA (ALMA also with p = 3).
@pytest.mark.parametrize("rule", [0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 8.3])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sparse", [False, True])
def test_avx2_build_equals_baseline_build(dtype, sparse, rule):
    if not cpu_has_avx2():
        pytest.skip("this CPU has no AVX2")
    try:
        avx2 = importlib.import_module("sklearn_perceptrons._linear._linear_fast_avx2")
    except ImportError:
        pytest.skip("the AVX2 build is not available on this platform")
    baseline = importlib.import_module("sklearn_perceptrons._linear._linear_fast")
    rng = np.random.RandomState(0)
    X = rng.randn(300, 37).astype(dtype)
    if sparse:
        # Densities from 0 to 1: rows of every length, shorter and longer
        # than the eight partial sums of the sparse dot product.
        X[rng.rand(*X.shape) < rng.rand(X.shape[0], 1)] = 0
        X = sp.csr_matrix(X)
    y_class = rng.randint(0, 3, size=300).astype(np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        power = 3.0 if rule == 8.3 else 2.0
        rule = int(rule)
        for a, b in zip(_epoch_results(avx2, X, y_class, True, rule, power),
                        _epoch_results(baseline, X, y_class, True, rule, power)):
            np.testing.assert_array_equal(a, b)
