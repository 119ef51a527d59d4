"""TTest and FStatistic: equal weights give the textbook statistics; weights as documented."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import ttest_ind
from sklearn.feature_selection import f_classif

from stablefs import StablefsError
from stablefs.selectors import FStatistic, TTest, anova_f, welch_t


def _data(seed, n=(12, 17), p=9, n_classes=2):
    rng = np.random.default_rng(seed)
    sizes = list(n) if n_classes == 2 else [n[0]] * n_classes
    y = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.normal(size=(y.size, p)) * rng.uniform(0.5, 20, size=p) + rng.normal(size=p) * 50
    X[:, 1] += 2.0 * y
    return X, y


@pytest.mark.parametrize("seed", range(5))
def test_ttest_equals_scipy_welch(seed):
    X, y = _data(seed)
    expected = np.abs(ttest_ind(X[y == 0], X[y == 1], equal_var=False).statistic)
    assert_allclose(TTest().fit(X, y).scores_, expected, rtol=1e-12)
    assert_allclose(welch_t(X, y), expected, rtol=1e-12)


@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_fstatistic_equals_f_classif(n_classes):
    X, y = _data(n_classes, n=(8, 11), n_classes=n_classes)
    assert_allclose(FStatistic().fit(X, y).scores_, f_classif(X, y)[0], rtol=1e-10)


def test_ttest_with_more_than_two_classes_is_the_f_statistic():
    X, y = _data(3, n=(7, 7), n_classes=3)
    assert_allclose(TTest().fit(X, y).scores_, f_classif(X, y)[0], rtol=1e-10)


def test_constant_features_score_zero_not_nan():
    X, y = _data(0)
    X[:, 0] = 0.1
    X[:, 4] = -3e7
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = TTest().fit(X, y).scores_
        f = FStatistic().fit(X, y).scores_
    assert t[0] == 0 and t[4] == 0 and f[0] == 0 and f[4] == 0
    assert np.all(np.isfinite(t)) and np.all(np.isfinite(f))


def test_constant_classes_with_different_values_score_inf():
    X, y = _data(1)
    X[:, 2] = y * 5.0
    assert TTest().fit(X, y).scores_[2] == np.inf
    assert FStatistic().fit(X, y).scores_[2] == np.inf
    assert TTest().fit(X, y).ranking_[2] == 1


def _weighted_t_reference(X, y, w):
    """Welch t from numpy's reliability-weighted covariance (np.cov with aweights, ddof=1)."""
    out = []
    for j in range(X.shape[1]):
        terms, means = [], []
        for c in (0, 1):
            xc, wc = X[y == c, j], w[y == c]
            means.append(np.average(xc, weights=wc))
            var = np.cov(xc, aweights=wc, ddof=1)
            terms.append(var * np.sum(wc**2) / np.sum(wc) ** 2)
        out.append(abs(means[0] - means[1]) / np.sqrt(sum(terms)))
    return np.array(out)


def _weighted_f_reference(X, y, w):
    w = w / w.sum()
    classes = np.unique(y)
    n_eff = 1.0 / np.sum(w**2)
    out = []
    for j in range(X.shape[1]):
        m = np.sum(w * X[:, j])
        ssb = sum(w[y == c].sum() * (np.average(X[y == c, j], weights=w[y == c]) - m) ** 2
                  for c in classes)
        ssw = sum(np.sum(w[y == c] * (X[y == c, j]
                                      - np.average(X[y == c, j], weights=w[y == c])) ** 2)
                  for c in classes)
        out.append((ssb / (len(classes) - 1)) / (ssw / (n_eff - len(classes))))
    return np.array(out)


@pytest.mark.parametrize("seed", range(3))
def test_weighted_statistics_match_reference(seed):
    X, y = _data(seed)
    w = np.random.default_rng(seed + 10).uniform(0.1, 3.0, size=y.size)
    assert_allclose(TTest().fit(X, y, sample_weight=w).scores_,
                    _weighted_t_reference(X, y, w), rtol=1e-10)
    X3, y3 = _data(seed, n=(9, 9), n_classes=3)
    w3 = np.random.default_rng(seed).uniform(0.1, 3.0, size=y3.size)
    assert_allclose(FStatistic().fit(X3, y3, sample_weight=w3).scores_,
                    _weighted_f_reference(X3, y3, w3), rtol=1e-10)


def test_weights_are_scale_free_and_zero_weight_is_removal():
    X, y = _data(4)
    w = np.random.default_rng(0).uniform(0.2, 2.0, size=y.size)
    for sel in (TTest(), FStatistic()):
        a = sel.fit(X, y, sample_weight=w).scores_
        assert_allclose(sel.fit(X, y, sample_weight=7.5 * w).scores_, a, rtol=1e-12)
        w0 = w.copy()
        w0[[0, 3, 20]] = 0
        keep = w0 > 0
        assert_allclose(sel.fit(X, y, sample_weight=w0).scores_,
                        sel.fit(X[keep], y[keep], sample_weight=w[keep]).scores_, rtol=1e-12)
    eq = np.ones(y.size)
    assert_allclose(TTest().fit(X, y, sample_weight=eq).scores_, TTest().fit(X, y).scores_)


def test_weights_leaving_one_class_are_an_error():
    X, y = _data(0)
    w = (y == 0).astype(float)
    with pytest.raises(StablefsError, match="single class"):
        TTest().fit(X, y, sample_weight=w)
    with pytest.raises(StablefsError):
        anova_f(X, y, w)


def test_single_sample_class_gives_finite_scores():
    X, y = _data(0, n=(1, 6))
    s = TTest().fit(X, y).scores_
    assert not np.any(np.isnan(s))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), p=st.integers(1, 12), ties=st.booleans())
def test_ranking_is_permutation_and_feature_order_equivariant(seed, p, ties):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], [5, 7])
    X = rng.integers(0, 3, size=(12, p)).astype(float) if ties else rng.normal(size=(12, p))
    perm = rng.permutation(p)
    for sel in (TTest(), FStatistic()):
        sel.fit(X, y)
        assert_array_equal(np.sort(sel.ranking_), np.arange(1, p + 1))
        assert not np.any(np.isnan(sel.scores_))
        # BLAS may sum columns in a different order: equal up to rounding
        assert_allclose(sel.fit(X[:, perm], y).scores_, sel.fit(X, y).scores_[perm],
                        rtol=1e-10, atol=1e-12)
