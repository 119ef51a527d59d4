"""scikit-learn's libsvm called directly, as :class:`sklearn.svm.SVC` calls it: the reference
of the compiled SMO's tests."""

from __future__ import annotations

import numpy as np
import pytest


def libsvm_fit(X, codes, kernel="linear", max_iter=-1):
    """libsvm's C-SVC (C = 1, tol 1e-3, shrinking) on ``X``, or on the kernel matrix ``X``
    with ``kernel="precomputed"``: support indices, dual coefficients, intercept, status (1:
    stopped at ``max_iter``) and iteration count."""
    from stablefs.selectors.wrappers import _error_estimators as ee

    fns = ee._libsvm_fns()
    if fns is None:  # pragma: no cover - a future scikit-learn
        pytest.skip("scikit-learn's libsvm binding is not available")
    fit, quiet = fns
    quiet(0)
    sup, _, _, dual, intercept, _, _, status, n_iter = fit(
        np.ascontiguousarray(X), codes.astype(np.float64), svm_type=0,
        sample_weight=ee._EMPTY, class_weight=ee._ONES2, kernel=kernel, C=1.0, nu=0.5,
        probability=False, degree=3, shrinking=True, tol=1e-3, cache_size=200, coef0=0.0,
        gamma=1.0, epsilon=0.0, max_iter=max_iter, random_seed=0)
    return sup, dual[0], intercept[0], int(status), int(n_iter[0])
