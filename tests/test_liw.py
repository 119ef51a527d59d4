"""Logistic instance weighting (Prat Masramon 2016 sec. 8.2) against direct references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_selection import SelectKBest

from stablefs import make_selector
from stablefs._errors import StablefsError
from stablefs.selectors import ReliefF, TTest
from stablefs.stabilizers import (
    LogisticInstanceWeighting,
    logistic_instance_weights,
    relief_margins,
)


def _slow_margins(X, y, scale=True):
    X = np.asarray(X, float)
    if scale:
        span = X.max(0) - X.min(0)
        span[span == 0] = 1.0
        X = (X - X.min(0)) / span
    n = len(y)
    out = []
    for i in range(n):
        d = [sum(abs(a - b) for a, b in zip(X[i], X[l])) for l in range(n)]
        hits = [d[l] for l in range(n) if l != i and y[l] == y[i]]
        misses = [d[l] for l in range(n) if y[l] != y[i]]
        out.append(0.5 * (min(misses) - (min(hits) if hits else 0.0)))
    return np.array(out)


def _slow_liw(X, y, alpha=3.03, scale=True):
    theta = _slow_margins(X, y, scale)
    n = len(theta)
    mu = sum(theta) / n
    sd = math.sqrt(sum((t - mu) ** 2 for t in theta) / (n - 1))
    return np.array([1 / (1 + math.exp(-alpha * (t - mu) / sd)) for t in theta])


def _data(seed=0, n_classes=3):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), 7)
    X = rng.normal(size=(y.size, 6))
    X[:, 0] += 1.5 * y
    X[:, 4] = -2.0  # constant
    X[3] = X[2]  # duplicate: nearest hit at distance 0
    X[10] = X[1]  # duplicate in another class: nearest miss at distance 0
    return X, y


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("scale", [True, False])
def test_margins_and_weights_match_slow_reference(n_classes, scale):
    X, y = _data(1, n_classes)
    assert np.allclose(relief_margins(X, y, scale=scale), _slow_margins(X, y, scale), atol=1e-12)
    assert np.allclose(logistic_instance_weights(X, y, scale=scale), _slow_liw(X, y, scale=scale),
                       atol=1e-12)
    w = logistic_instance_weights(X, y, alpha=0.7)
    assert np.allclose(w, _slow_liw(X, y, alpha=0.7), atol=1e-12)


def test_singleton_class_has_zero_hit_distance():
    X, y = _data(2)
    y = y.copy()
    y[0] = 7
    assert np.allclose(relief_margins(X, y), _slow_margins(X, y), atol=1e-12)


def test_erratum_alpha_gives_0954_at_one_standard_deviation():
    """The thesis says 0.954 at two standard deviations; 3.03 gives it at one."""
    theta = np.array([-1.0, 1.0])  # mean 0, sd (ddof=1) sqrt(2): z = -/+ 1/sqrt(2)
    assert 1 / (1 + math.exp(-3.03)) == pytest.approx(0.954, abs=5e-4)
    assert 1 / (1 + math.exp(-2 * 3.03)) == pytest.approx(0.998, abs=5e-4)
    # two points, one per class, on a line: both margins equal, so every weight is 0.5
    X = theta[:, None]
    assert np.array_equal(logistic_instance_weights(X, [0, 1]), [0.5, 0.5])


def test_fig_8_1_boundary_instances_get_low_weight():
    """The thesis' 2-D demo: an instance inside the other class weighs near 0, deep ones near 1."""
    rng = np.random.default_rng(3)
    a = rng.normal([0, 0], 0.1, size=(15, 2))
    b = rng.normal([0, 0.25], 0.1, size=(15, 2))
    a[0] = [0.0, 0.5]  # a class-0 point far inside class 1
    X, y = np.vstack([a, b]), np.repeat([0, 1], 15)
    w = logistic_instance_weights(X, y)
    assert np.all((w > 0) & (w < 1))
    assert w[0] < 0.05 and np.median(w) > 0.4  # the classes overlap: some others are low too
    assert np.argmax(relief_margins(X, y)) == np.argmax(w)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), shift=st.floats(-5, 5), factor=st.floats(0.1, 10))
def test_weights_invariant_to_affine_feature_maps_and_monotone_in_margin(seed, shift, factor):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], 8)
    X = rng.normal(size=(16, 4))
    w = logistic_instance_weights(X, y)
    assert np.allclose(logistic_instance_weights(X * factor + shift, y), w, atol=1e-9)
    theta = relief_margins(X, y)
    order = np.argsort(theta, kind="stable")
    assert np.all(np.diff(w[order]) >= -1e-15)


def test_wrapper_fits_inner_selector_with_normalised_weights():
    X, y = _data(4)
    liw = LogisticInstanceWeighting(ReliefF(n_neighbors=3)).fit(X, y)
    omega = _slow_liw(X, y)
    assert np.allclose(liw.logistic_weights_, omega, atol=1e-12)
    assert liw.instance_weights_.sum() == pytest.approx(1.0)
    direct = ReliefF(n_neighbors=3).fit(X, y, sample_weight=omega)
    assert np.allclose(liw.scores_, direct.scores_, atol=1e-13)
    assert np.array_equal(liw.ranking_, direct.ranking_)


def test_wrapper_zero_user_weight_is_removal():
    X, y = _data(5)
    w = np.ones(y.size)
    w[[0, 9]] = 0.0
    keep = w > 0
    a = LogisticInstanceWeighting(TTest()).fit(X, y, sample_weight=w)
    b = LogisticInstanceWeighting(TTest()).fit(X[keep], y[keep])
    assert np.allclose(a.scores_, b.scores_, atol=1e-12)
    assert np.all(a.logistic_weights_[~keep] == 0)


def test_liw_prefix_and_refusals():
    est = make_selector("liw-relieff(alpha=2.0)")
    assert isinstance(est, LogisticInstanceWeighting) and est.alpha == 2.0
    assert isinstance(est.selector, ReliefF)
    X, y = _data(0)
    with pytest.raises(StablefsError, match="sample_weight"):
        LogisticInstanceWeighting(SelectKBest(k=2)).fit(X, y)
    with pytest.raises(StablefsError, match="alpha"):
        LogisticInstanceWeighting(ReliefF(), alpha=-1).fit(X, y)
    with pytest.raises(StablefsError, match="alpha"):
        logistic_instance_weights(X, y, alpha=0)
    with pytest.raises(StablefsError, match="single class"):
        logistic_instance_weights(X, np.zeros(y.size))
