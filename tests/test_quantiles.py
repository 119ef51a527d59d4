"""The t and normal quantiles of the intervals come from ``scipy.special`` (``stdtrit``,
``ndtri``): the functions ``scipy.stats.t.ppf`` and ``scipy.stats.norm.ppf`` call, without
importing ``scipy.stats`` (a second of a rerun that only prints a finished run's summary)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from stablefs.stability._common import normal_interval, student_interval

alphas = st.sampled_from([0.001, 0.01, 0.05, 0.1, 0.2, 0.5]) | st.floats(1e-6, 0.999)


@settings(max_examples=200, deadline=None)
@given(estimate=st.floats(-10, 10), variance=st.floats(0, 100) | st.just(np.nan),
       n=st.integers(0, 2000), alpha=alphas)
def test_student_interval_is_scipy_stats_t_bit_for_bit(estimate, variance, n, alpha):
    low, high = student_interval(estimate, variance, n, alpha)
    with np.errstate(invalid="ignore"):
        half = stats.t.ppf(1 - alpha / 2, n - 1) * np.sqrt(max(variance, 0.0))
    if n < 2 or not np.isfinite(variance):
        assert np.isnan(low) and np.isnan(high)
    else:
        assert (low, high) == (float(estimate - half), float(estimate + half))


def test_student_interval_of_arrays_and_bounds():
    est = np.array([0.5, 0.9, 0.2])
    var = np.array([0.01, 0.04, np.nan])
    n = np.array([10, 3, 20])
    low, high = student_interval(est, var, n, 0.05, bounds=(0.0, 1.0))
    half = stats.t.ppf(0.975, n[:2] - 1) * np.sqrt(var[:2])
    np.testing.assert_array_equal(low[:2], np.clip(est[:2] - half, 0, 1))
    np.testing.assert_array_equal(high[:2], np.clip(est[:2] + half, 0, 1))
    assert np.isnan(low[2]) and np.isnan(high[2])


@settings(max_examples=100, deadline=None)
@given(estimate=st.floats(-10, 10), variance=st.floats(0, 100), alpha=alphas)
def test_normal_interval_is_scipy_stats_norm_bit_for_bit(estimate, variance, alpha):
    half = stats.norm.ppf(1 - alpha / 2) * np.sqrt(variance)
    assert normal_interval(estimate, variance, alpha) == (float(estimate - half),
                                                          float(estimate + half))
