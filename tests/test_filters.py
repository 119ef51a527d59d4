"""Information gain, 1R and random-forest importance (the filters of the 2019 stability
thesis, ch. 8) against hand computations and slow references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import RandomForestClassifier

from stablefs import StablefsError, make_selector
from stablefs.selectors import InfoGain, OneR, RandomForestImportance
from stablefs.selectors._discretize import mdl_bins, mdl_cut_points, quantile_bins
from stablefs.selectors.filters import information_gain, one_rule_accuracy


def _h(counts):
    total = sum(counts)
    return -sum(c / total * math.log2(c / total) for c in counts if c > 0)


def _slow_ig_and_1r(bins, y, w):
    """IG and 1R of one discretised feature from weighted counts, by loops."""
    classes = sorted(set(y))
    values = sorted(set(bins))
    total = sum(w)
    by_class = [sum(wi for wi, yi in zip(w, y) if yi == c) for c in classes]
    cond = 0.0
    correct = 0.0
    for v in values:
        cell = [sum(wi for wi, bi, yi in zip(w, bins, y) if bi == v and yi == c)
                for c in classes]
        cond += sum(cell) / total * _h(cell)
        correct += max(cell)
    return _h(by_class) - cond, correct / total


def test_mdl_hand_computed_cases():
    # perfectly separated classes: gain 1 bit > (log2(7) + log2(7) - 2) / 8: one cut at 4.5
    x = np.array([1.0, 2, 3, 4, 5, 6, 7, 8])
    codes = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    assert np.array_equal(mdl_cut_points(x, codes, 2), [4.5])
    # the same with one label flipped is not worth a cut for so few samples
    assert mdl_cut_points(x, np.array([0, 0, 0, 1, 0, 1, 1, 1]), 2).size == 0
    # constant feature: no boundary, no cut
    assert mdl_cut_points(np.ones(8), codes, 2).size == 0
    # three blocks of three classes: two cuts, found recursively
    x3 = np.arange(30, dtype=float)
    c3 = np.repeat([0, 1, 2], 10)
    assert np.array_equal(mdl_cut_points(x3, c3, 3), [9.5, 19.5])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 3))
def test_vectorised_mdl_equals_recursive_reference(seed, n_classes):
    rng = np.random.default_rng(seed)
    n, p = 40, 6
    codes = np.sort(rng.integers(0, n_classes, size=n))
    codes[:n_classes] = np.arange(n_classes)
    X = rng.normal(size=(n, p)) + codes[:, None] * rng.uniform(0, 3, size=p)
    X[:, 0] = np.round(X[:, 0])  # ties
    X[:, 1] = 1.0  # constant
    bins = mdl_bins(X, codes, block=4)
    for j in range(p):
        cuts = mdl_cut_points(X[:, j], codes, n_classes)
        assert np.array_equal(bins[:, j], np.searchsorted(cuts, X[:, j], side="right"))


def test_quantile_bins_are_equal_frequency_and_keep_ties_together():
    x = np.arange(20, dtype=float)[:, None]
    bins = quantile_bins(x, 4)
    assert np.array_equal(np.bincount(bins[:, 0]), [5, 5, 5, 5])
    tied = np.array([[1.0], [1.0], [1.0], [2.0]])
    b = quantile_bins(tied, 2)[:, 0]
    assert b[0] == b[1] == b[2]


@pytest.mark.parametrize("discretization", ["mdl", "quantile"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_ig_and_1r_match_loops(discretization, n_classes):
    rng = np.random.default_rng(n_classes)
    n, p = 36, 5
    y = np.arange(n) % n_classes
    X = rng.normal(size=(n, p)) + y[:, None] * np.array([3.0, 1.0, 0.0, 0.5, 0.0])
    X[:, 4] = 7.0
    w = rng.random(n)
    _, codes = np.unique(y, return_inverse=True)
    bins = mdl_bins(X, codes) if discretization == "mdl" else quantile_bins(X, 10)
    ig = information_gain(X, y, discretization=discretization, sample_weight=w)
    acc = one_rule_accuracy(X, y, discretization=discretization, sample_weight=w)
    for j in range(p):
        ref_ig, ref_acc = _slow_ig_and_1r(list(bins[:, j]), list(y), list(w))
        assert ig[j] == pytest.approx(max(ref_ig, 0.0), abs=1e-12)
        assert acc[j] == pytest.approx(ref_acc, abs=1e-12)
    assert ig[4] == 0.0 and ig[0] == ig.max()


def test_perfect_feature_scores_and_zero_weight_is_removal():
    y = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    X = np.c_[np.arange(10.0), np.zeros(10)]
    assert InfoGain().fit(X, y).scores_[0] == pytest.approx(1.0)
    assert OneR().fit(X, y).scores_[0] == 1.0
    assert OneR().fit(X, y).scores_[1] == 0.5
    sw = np.ones(10)
    sw[[1, 8]] = 0
    keep = sw > 0
    for cls in (InfoGain, OneR):
        assert np.allclose(cls(discretization="quantile").fit(X, y, sample_weight=sw).scores_,
                           cls(discretization="quantile").fit(X[keep], y[keep]).scores_)


def test_random_forest_importance_is_seeded_sklearn_and_independent_of_n_jobs():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 12))
    y = (X[:, 3] > 0).astype(int)
    a = RandomForestImportance(n_estimators=30, random_state=5, n_jobs=1).fit(X, y)
    b = RandomForestImportance(n_estimators=30, random_state=5, n_jobs=2).fit(X, y)
    assert np.array_equal(a.scores_, b.scores_)
    ref = RandomForestClassifier(n_estimators=30, max_features="sqrt", random_state=5).fit(X, y)
    assert np.allclose(a.scores_, ref.feature_importances_)
    assert a.ranking_[3] == 1


def test_method_strings():
    assert isinstance(make_selector("infogain"), InfoGain)
    assert isinstance(make_selector("oner(discretization='quantile')"), OneR)
    rf = make_selector("rf(n_estimators=10)", random_state=3)
    assert isinstance(rf, RandomForestImportance) and rf.random_state == 3
    for bad in ("infogain(discretization='kmeans')", "oner(n_bins=1)", "rf(n_estimators=0)"):
        with pytest.raises(StablefsError):
            make_selector(bad)
