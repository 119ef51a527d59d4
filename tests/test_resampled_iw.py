"""Instance weighting by weighted resampling (Prat Masramon 2016, Alg. 8.3)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stablefs import StablefsError, make_selector
from stablefs.selectors import InfoGain, Relief, TTest
from stablefs.stabilizers import (
    ResampledInstanceWeighting,
    logistic_instance_weights,
    margin_instance_weights,
)
from stablefs.stabilizers.resampled import resample_by_weight


def _data(n=30, p=6, seed=0, n_classes=2):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    X = rng.normal(size=(n, p)) + y[:, None] * np.linspace(2, 0, p)
    return X, y


def test_order_is_every_instance_by_weight_descending_ties_to_lower_index():
    omega = np.array([0.1, 0.3, 0.3, 0.05, 0.25])
    codes = np.array([0, 1, 0, 1, 0])
    assert np.array_equal(resample_by_weight(omega, codes, "order", None), [1, 2, 4, 0, 3])


def test_sample_draws_follow_the_weights():
    rng = np.random.default_rng(0)
    omega = rng.random(20) ** 2
    omega /= omega.sum()
    codes = np.arange(20) % 2  # a one-class bag of 20 draws is practically impossible
    counts = np.zeros(20)
    for _ in range(300):
        idx = resample_by_weight(omega, codes, "sample", rng)
        assert idx.size == 20 and np.all(np.diff(idx) >= 0)  # data order
        counts += np.bincount(idx, minlength=20)
    assert np.allclose(counts / counts.sum(), omega, atol=0.01)


def test_single_class_weights_are_refused_in_one_line():
    omega = np.array([1.0, 0.0, 0.0])
    with pytest.raises(StablefsError, match="single class"):
        resample_by_weight(omega, np.array([0, 1, 1]), "sample", np.random.default_rng(0))


@pytest.mark.parametrize("weighting", ["logistic", "margin"])
def test_selector_sees_the_resample(weighting):
    X, y = _data()
    sel = ResampledInstanceWeighting(InfoGain(discretization="quantile"),
                                     instance_weighting=weighting, random_state=3).fit(X, y)
    omega = (logistic_instance_weights(X, y) if weighting == "logistic"
             else margin_instance_weights(X, y))
    assert np.allclose(sel.instance_weights_, omega / omega.sum())
    direct = InfoGain(discretization="quantile").fit(X[sel.resample_], y[sel.resample_])
    assert np.array_equal(sel.scores_, direct.scores_)
    again = ResampledInstanceWeighting(InfoGain(discretization="quantile"),
                                       instance_weighting=weighting, random_state=3).fit(X, y)
    assert np.array_equal(again.resample_, sel.resample_)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 1000))
def test_order_leaves_an_order_invariant_selector_unchanged(seed):
    X, y = _data(seed=seed)
    ours = ResampledInstanceWeighting(TTest(), strategy="order").fit(X, y).scores_
    assert np.allclose(ours, TTest().fit(X, y).scores_, rtol=1e-10)


def test_zero_weight_samples_are_never_drawn_and_order_changes_relief():
    X, y = _data(n=24, seed=4)
    sw = np.ones(len(y))
    sw[[0, 5]] = 0.0
    sel = ResampledInstanceWeighting(TTest(), random_state=0).fit(X, y, sample_weight=sw)
    assert not np.isin([0, 5], sel.resample_).any() and sel.instance_weights_[[0, 5]].sum() == 0
    # Relief with n_samples random visits depends on which indices it draws: order matters
    plain = Relief(n_samples=5, random_state=0).fit(X, y).scores_
    ordered = ResampledInstanceWeighting(Relief(n_samples=5), strategy="order",
                                         random_state=0).fit(X, y)
    assert ordered.resample_.size == len(y)
    assert not np.allclose(plain, ordered.scores_)


def test_method_string():
    sel = make_selector("rw-infogain(strategy='order')", random_state=2)
    assert isinstance(sel, ResampledInstanceWeighting) and sel.strategy == "order"
    assert sel.instance_weighting == "logistic"
    with pytest.raises(StablefsError):
        make_selector("rw-infogain(strategy='shuffle')")
