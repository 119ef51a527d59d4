"""The ``penalty`` reading of margin-based instance weighting around SVM-RFE (Han 2012,
eq. 5.2; issue 18): weights as printed (bounds C w_i, the default) or of mean 1."""

from __future__ import annotations

import numpy as np
import pytest

from stablefs._errors import StablefsError
from stablefs.datasets import make_han2012
from stablefs.methods import describe_methods, make_selector
from stablefs.selectors import SVMRFE, ReliefF
from stablefs.stabilizers import MarginInstanceWeighting, margin_instance_weights


@pytest.fixture(scope="module")
def data():
    ds = make_han2012(n_samples=60, n_features=200, n_blocks=20, n_relevant=20,
                      random_state=3)
    return ds.X, ds.y


def test_printed_is_svm_rfe_with_bounds_c_times_w(data):
    X, y = data
    w = margin_instance_weights(X, y)
    assert w.sum() == pytest.approx(1.0)
    printed = MarginInstanceWeighting(SVMRFE(C=2.0)).fit(X, y)
    # SVMRFE rescales sample weights to mean 1 (v = n w): C / n gives the bounds C w_i
    direct = SVMRFE(C=2.0 / X.shape[0]).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(printed.ranking_, direct.ranking_)
    assert abs(printed.selector_.C - 2.0 / X.shape[0]) < 1e-15


def test_mean_reading_is_the_rescaled_weights(data):
    X, y = data
    w = margin_instance_weights(X, y)
    mean = MarginInstanceWeighting(SVMRFE(), penalty="mean").fit(X, y)
    direct = SVMRFE().fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(mean.ranking_, direct.ranking_)
    printed = make_selector("iw-svm-rfe").fit(X, y)
    assert not np.array_equal(printed.ranking_, mean.ranking_)


def test_penalty_does_not_touch_other_selectors(data):
    X, y = data
    a = MarginInstanceWeighting(ReliefF(), penalty="printed").fit(X, y)
    b = MarginInstanceWeighting(ReliefF(), penalty="mean").fit(X, y)
    np.testing.assert_array_equal(a.ranking_, b.ranking_)


def test_penalty_is_validated_and_described():
    with pytest.raises((StablefsError, ValueError), match="penalty"):
        make_selector("iw-svm-rfe", penalty="half").fit(np.eye(4), [0, 0, 1, 1])
    text = dict(describe_methods())["iw-<method>"]
    assert "penalty=printed (default)" in text and "penalty=mean" in text
