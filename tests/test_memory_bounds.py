"""Peak memory of one fit against the data array (issue 36): at most 3x ``X.nbytes``
beyond ``X`` itself, by ``tracemalloc`` (NumPy's and Python's allocations), at sizes small
enough for the test suite; ``benchmarks/bench_memory.py`` measures the resident set size at
n = 5000 x p = 2000 and n = 100 x p = 50,000."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from stablefs.methods import make_selector


def _peak_ratio(method: str, n: int, p: int) -> float:
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], [n // 2, n - n // 2])
    X = rng.normal(size=(n, p))
    X[:, :10] += 0.6 * y[:, None]
    make_selector(method).fit(X[:, :40].copy(), y)  # imports and compiled code first
    tracemalloc.start()
    try:
        make_selector(method).fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak / X.nbytes


@pytest.mark.parametrize("method", ["relieff", "l1-logistic", "drags"])
@pytest.mark.parametrize("n, p", [(1500, 600), (100, 20000)])
def test_peak_memory_within_three_times_the_data(method, n, p):
    """n > p (the n x n distances of ReliefF, DGF's points of n coordinates) and p >> n (with
    100 samples, as in the benchmark: with far fewer, DGF's per-feature bookkeeping, a group
    array per feature, is no longer small beside a feature's few coordinates)."""
    assert _peak_ratio(method, n, p) <= 3.0


def test_svm_rfe_peak_memory_wide_data():
    """SVM-RFE on wide data (its n x n Gram matrix is small): within 3x. (With n > p the Gram
    matrix and libsvm's single-precision copy of it are 3.75 n / p times the data.)"""
    assert _peak_ratio("svm-rfe", 100, 20000) <= 3.0
