"""Ensemble: determinism, n_jobs invariance, aggregation, stratified resampling, weights."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from joblib import parallel_backend
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin

from stablefs import StablefsError, make_selector
from stablefs.selectors import BaseSelector, ReliefF, TTest
from stablefs.stabilizers import Ensemble
from stablefs.stabilizers.ensemble import stratified_sizes


def _data(seed=0, sizes=(18, 12), p=15):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.normal(size=(y.size, p))
    X[:, :3] += y[:, None] * np.array([2.0, 1.0, 0.5])
    return X, y


class FixedScores(BaseSelector):
    """Returns the scores it is given, whatever the data (to hand-compute aggregations)."""

    def __init__(self, n_features_to_select=None, table=None):
        self.n_features_to_select = n_features_to_select
        self.table = table

    def _score(self, X, y, sample_weight):
        # the member's scores depend on which samples it saw: row = number of samples of
        # class 0 that are among the first three samples of the data
        return np.asarray(self.table[int(X[:, 0].sum())], dtype=float)


class NoWeights(SelectorMixin, BaseEstimator):
    """A selector whose fit has no sample_weight."""

    def fit(self, X, y):
        self.scores_ = np.asarray(X).var(axis=0)
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def _get_support_mask(self):
        return self.scores_ >= np.median(self.scores_)


def test_same_seed_same_result_and_different_seed_differs():
    X, y = _data()
    a = Ensemble(TTest(), n_estimators=6, random_state=3).fit(X, y)
    b = Ensemble(TTest(), n_estimators=6, random_state=3).fit(X, y)
    c = Ensemble(TTest(), n_estimators=6, random_state=4).fit(X, y)
    assert_array_equal(a.member_rankings_, b.member_rankings_)
    assert_array_equal(a.scores_, b.scores_)
    assert not all(np.array_equal(r, s) for r, s in zip(a.resamples_, c.resamples_))


@pytest.mark.parametrize("sampling", ["bootstrap", "subsample"])
def test_n_jobs_does_not_change_the_result(sampling):
    X, y = _data(1)
    kw = dict(n_estimators=5, sampling=sampling, random_state=11)
    one = Ensemble(ReliefF(n_neighbors=3), n_jobs=1, **kw).fit(X, y)
    two = Ensemble(ReliefF(n_neighbors=3), n_jobs=2, **kw).fit(X, y)
    assert_array_equal(one.member_scores_, two.member_scores_)
    assert_array_equal(one.member_rankings_, two.member_rankings_)
    assert_array_equal(one.ranking_, two.ranking_)
    for r, s in zip(one.resamples_, two.resamples_):
        assert_array_equal(r, s)


def test_rank_aggregation_hand_computed():
    # X[:, 0] is 1 for the first three samples (class 0), 0 elsewhere; a subsample of 9 of the
    # 10 samples of class 0 holds 2 or 3 of them, and FixedScores picks the member's row by it
    y = np.repeat([0, 1], [10, 10])
    X = np.zeros((20, 4))
    X[:3, 0] = 1.0
    X[:, 1] = np.arange(20)  # not constant
    table = {2: [4.0, 3.0, 2.0, 1.0], 3: [1.0, 4.0, 3.0, 2.0]}
    ens = Ensemble(FixedScores(table=table), n_estimators=7, sampling="subsample",
                   fraction=0.9, random_state=0).fit(X, y)
    seen = [int(X[idx, 0].sum()) for idx in ens.resamples_]
    n2, n3 = seen.count(2), seen.count(3)
    assert n2 + n3 == 7 and n2 > 0 and n3 > 0
    # rankings: row 2 -> [1, 2, 3, 4]; row 3 -> [4, 1, 2, 3]
    rank_sum = n2 * np.array([1, 2, 3, 4]) + n3 * np.array([4, 1, 2, 3])
    assert_array_equal(ens.scores_, -rank_sum)
    expected = np.argsort(np.argsort(rank_sum, kind="stable"), kind="stable") + 1
    assert_array_equal(ens.ranking_, expected)
    # mean weights (WEn)
    wen = Ensemble(FixedScores(table=table), n_estimators=7, sampling="subsample",
                   aggregate="weight", random_state=0).fit(X, y)
    assert_allclose(wen.scores_, (n2 * np.array(table[2]) + n3 * np.array(table[3])) / 7)


def test_rank_aggregation_ties_by_lower_index():
    y = np.repeat([0, 1], [5, 5])
    X = np.zeros((10, 4))
    X[:, 1] = np.arange(10)
    table = {0: [1.0, 1.0, 0.0, 0.0]}  # features 0 and 1 tie in every member
    ens = Ensemble(FixedScores(table=table), n_estimators=3, random_state=0).fit(X, y)
    assert_array_equal(ens.member_rankings_, [[1, 2, 3, 4]] * 3)
    assert_array_equal(ens.scores_, [-3, -6, -9, -12])
    assert_array_equal(ens.ranking_, [1, 2, 3, 4])


def test_frequency_aggregation_ties_by_rank_sum():
    y = np.repeat([0, 1], [10, 10])
    X = np.zeros((20, 4))
    X[:3, 0] = 1.0
    X[:, 1] = np.arange(20)
    # row 2: ranking [3, 1, 2, 4]; row 3: ranking [2, 3, 1, 4]
    table = {2: [2.0, 4.0, 3.0, 1.0], 3: [3.0, 2.0, 4.0, 1.0]}
    ens = Ensemble(FixedScores(table=table), n_estimators=9, sampling="subsample",
                   aggregate="frequency", n_features_to_select=2, random_state=1).fit(X, y)
    seen = [int(X[idx, 0].sum()) for idx in ens.resamples_]
    n2, n3 = seen.count(2), seen.count(3)
    freq = (n2 * np.array([0, 1, 1, 0]) + n3 * np.array([1, 0, 1, 0])) / 9
    assert_allclose(ens.scores_, freq)
    assert_allclose(ens.selection_frequency_, freq)
    assert ens.ranking_[2] == 1 and ens.ranking_[3] == 4  # feature 2 is always in the top 2
    rank_sum = n2 * np.array([3, 1, 2, 4]) + n3 * np.array([2, 3, 1, 4])
    first = 0 if (freq[0], -rank_sum[0]) > (freq[1], -rank_sum[1]) else 1
    assert ens.ranking_[first] == 2 and ens.support_.sum() == 2


def test_stratified_sizes():
    assert_array_equal(stratified_sizes([30, 20], 0.9), [27, 18])
    assert_array_equal(stratified_sizes([40, 22], 0.9), [36, 20])  # 55.8 -> 56
    assert_array_equal(stratified_sizes([1, 1, 8], 0.5), [1, 1, 3])
    assert_array_equal(stratified_sizes([3, 7], 1.0), [3, 7])


@settings(max_examples=60, deadline=None)
@given(counts=st.lists(st.integers(1, 40), min_size=2, max_size=5),
       fraction=st.floats(0.05, 1.0))
def test_stratified_sizes_properties(counts, fraction):
    counts = np.array(counts)
    sizes = stratified_sizes(counts, fraction)
    n = counts.sum()
    total = min(max(int(np.floor(fraction * n + 0.5)), counts.size), n)
    assert sizes.sum() == total
    assert np.all(sizes >= 1) and np.all(sizes <= counts)


def test_subsample_and_bootstrap_resamples():
    X, y = _data(2, sizes=(30, 20))
    sub = Ensemble(TTest(), n_estimators=4, sampling="subsample", random_state=0).fit(X, y)
    for idx in sub.resamples_:
        assert idx.size == 45 and np.unique(idx).size == 45
        assert_array_equal(np.bincount(y[idx]), [27, 18])
    boot = Ensemble(TTest(), n_estimators=4, random_state=0).fit(X, y)
    for idx in boot.resamples_:
        assert idx.size == 50 and np.unique(idx).size < 50
        assert_array_equal(np.bincount(y[idx]), [30, 20])
    assert boot.member_rankings_.shape == (4, X.shape[1])
    assert boot.member_scores_.shape == (4, X.shape[1])
    assert len(boot.estimators_) == 4


def test_one_sample_class_does_not_crash():
    X, y = _data(0, sizes=(1, 6), p=4)
    for sampling in ("bootstrap", "subsample"):
        ens = Ensemble(TTest(), n_estimators=3, sampling=sampling, random_state=0).fit(X, y)
        assert all((y[idx] == 0).sum() == 1 for idx in ens.resamples_)


def test_sample_weight_is_restricted_to_each_resample():
    X, y = _data(3)
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=y.size)
    w[4] = 0.0
    ens = Ensemble(TTest(), n_estimators=4, random_state=5).fit(X, y, sample_weight=w)
    for idx, scores in zip(ens.resamples_, ens.member_scores_):
        assert 4 not in idx  # zero weight = absent, never drawn
        assert_allclose(scores, TTest().fit(X[idx], y[idx], sample_weight=w[idx]).scores_)


def test_selector_without_sample_weight():
    X, y = _data(0)
    ens = Ensemble(NoWeights(), n_estimators=3, random_state=0).fit(X, y)
    assert ens.n_features_to_select_ == NoWeights().fit(X, y).get_support().sum()
    with pytest.raises(StablefsError, match="sample_weight"):
        Ensemble(NoWeights(), n_estimators=3).fit(X, y, sample_weight=np.arange(y.size) + 1.0)


def test_weight_aggregation_and_normalisation():
    X, y = _data(4)
    ens = Ensemble(ReliefF(n_neighbors=3), n_estimators=4, aggregate="weight",
                   random_state=0).fit(X, y)
    assert_allclose(ens.scores_, ens.member_scores_.mean(axis=0))
    norm = Ensemble(ReliefF(n_neighbors=3), n_estimators=4, aggregate="weight", normalize=True,
                    random_state=0).fit(X, y)
    m = ens.member_scores_
    assert_allclose(norm.scores_, (m / np.abs(m).sum(axis=1, keepdims=True)).mean(axis=0))


def test_inner_n_features_to_select_is_used_by_default():
    X, y = _data(0)
    assert Ensemble(TTest(n_features_to_select=3), n_estimators=2).fit(X, y) \
        .support_.sum() == 3
    assert Ensemble(TTest(n_features_to_select=3), n_estimators=2, n_features_to_select=5) \
        .fit(X, y).support_.sum() == 5


@pytest.mark.parametrize(
    "kwargs, match",
    [({"n_estimators": 0}, "n_estimators"), ({"sampling": "jackknife"}, "sampling"),
     ({"aggregate": "median"}, "aggregate"), ({"fraction": 1.5}, "fraction")],
)
def test_bad_parameters(kwargs, match):
    X, y = _data(0)
    with pytest.raises(StablefsError, match=match):
        Ensemble(TTest(), **kwargs).fit(X, y)


def test_method_strings_build_ensembles():
    X, y = _data(0)
    en = make_selector("en-ttest(n_estimators=3)", random_state=0)
    assert en.sampling == "bootstrap" and en.aggregate == "rank" and en.n_estimators == 3
    wen = make_selector("wen-relieff(n_estimators=2)", random_state=0).fit(X, y)
    assert wen.sampling == "subsample" and wen.aggregate == "weight"
    ren = make_selector("ren-iw-ttest(n_estimators=2)", random_state=0).fit(X, y)
    assert ren.resamples_[0].size == round(0.9 * y.size)


# -- ReliefF members computed together (shared distances and gathers) vs one by one -----------


class MemberByMember(ReliefF):
    """ReliefF without the shared path: the Ensemble fits a clone per member (the plain path)."""

    _score_resamples = None


@pytest.mark.parametrize("aggregate", ["rank", "weight", "frequency"])
@pytest.mark.parametrize("weighted", [False, True])
def test_relieff_members_together_equal_member_by_member_fits(aggregate, weighted):
    """Bootstrap members share distances on distinct rows and one gather of all pairs; every
    member's neighbours, rankings and the aggregate equal the plain per-member fits (scores to
    round-off), with the plain path run on 1 and 2 processes."""
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1, 2], [14, 11, 9])
    X = rng.normal(size=(y.size, 40))
    X[:, :4] += y[:, None]
    X[3] = X[7]  # an exact duplicate pair of samples, on top of the bootstrap's repeats
    X[:, 9] = -1.5  # a constant feature
    w = rng.uniform(0.3, 2.0, size=y.size) if weighted else None
    kw = dict(n_estimators=7, aggregate=aggregate, n_features_to_select=6, random_state=2)
    together = Ensemble(ReliefF(n_neighbors=4), **kw).fit(X, y, sample_weight=w)
    assert any(np.unique(r).size < r.size for r in together.resamples_)  # repeats present
    for n_jobs in (1, 2) if aggregate == "rank" and weighted else (1,):
        plain_fit = Ensemble(MemberByMember(n_neighbors=4), n_jobs=n_jobs, **kw)
        with parallel_backend("threading"):  # 2 workers without process start-up (~20 s)
            plain_fit.fit(X, y, sample_weight=w)
        for r, s in zip(together.resamples_, plain_fit.resamples_, strict=True):
            assert_array_equal(r, s)
        assert_allclose(together.member_scores_, plain_fit.member_scores_, rtol=1e-12,
                        atol=1e-14)
        assert_array_equal(together.member_rankings_, plain_fit.member_rankings_)
        assert_array_equal(together.ranking_, plain_fit.ranking_)
        assert_array_equal(together.support_, plain_fit.support_)
        assert_allclose(together.scores_, plain_fit.scores_, rtol=1e-12, atol=1e-14)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_classes=st.integers(2, 3),
       levels=st.integers(2, 4), k=st.integers(1, 5))
def test_relieff_members_together_with_ties_and_duplicates(seed, n_classes, levels, k):
    """Few distinct values: many equal distances (ties broken by the lower sample index) and
    many duplicated samples; the shared path still finds each member's own neighbours."""
    rng = np.random.default_rng(seed)
    y = np.arange(24) % n_classes
    X = rng.integers(0, levels, size=(24, 7)).astype(float)
    en = Ensemble(ReliefF(n_neighbors=k), n_estimators=4, random_state=seed).fit(X, y)
    ref = Ensemble(MemberByMember(n_neighbors=k), n_estimators=4, random_state=seed).fit(X, y)
    assert_allclose(en.member_scores_, ref.member_scores_, rtol=1e-12, atol=1e-13)
