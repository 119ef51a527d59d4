"""Stability selection against a reference written here: selection probabilities, the
threshold, the error bound, complementary pairs."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from stablefs._errors import StablefsError
from stablefs.methods import make_selector
from stablefs.selectors import L1Logistic, TTest
from stablefs.selectors.penalized_logistic import lambda_max, penalized_logistic
from stablefs.stabilizers import Ensemble, StabilitySelection
from stablefs.stabilizers.stability_selection import error_bound


def _data(n=40, p=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = np.where(X[:, 0] + 0.8 * X[:, 1] + 0.7 * rng.normal(size=n) > 0, "a", "b")
    return X, y


def test_error_bound_formula():
    assert error_bound(10, 0.6, 1000) == pytest.approx(100 / (0.2 * 1000))
    assert error_bound(3, 0.9, 50) == pytest.approx(9 / (0.8 * 50))
    assert error_bound(3, 0.5, 50) == float("inf")


def test_complementary_pairs_partition_the_samples_and_are_stratified():
    X, y = _data(n=41)
    sel = StabilitySelection(TTest(), n_subsamples=7, q=3, random_state=1).fit(X, y)
    sets = sel.subsamples_
    assert len(sets) == 14
    for a, b in zip(sets[::2], sets[1::2]):
        assert np.intersect1d(a, b).size == 0
        assert np.array_equal(np.union1d(a, b), np.arange(41))
        assert abs(a.size - b.size) <= 1 + 1  # at most one extra per class
        for part in (a, b):
            assert set(y[part]) == {"a", "b"}
    plain = StabilitySelection(TTest(), n_subsamples=7, q=3, complementary_pairs=False,
                               random_state=1).fit(X, y)
    assert len(plain.subsamples_) == 7


def test_generic_selector_reference():
    """Probabilities = fraction of half-samples whose top-q contains the feature."""
    X, y = _data()
    sel = StabilitySelection(TTest(), n_subsamples=10, q=4, threshold=0.7,
                             random_state=3).fit(X, y)
    tops = []
    for idx in sel.subsamples_:
        r = clone(TTest()).fit(X[idx], y[idx]).ranking_
        tops.append(r <= 4)
    prob = np.mean(tops, axis=0)
    np.testing.assert_allclose(sel.selection_probabilities_[0], prob)
    np.testing.assert_allclose(sel.scores_, prob)
    stable = np.flatnonzero(prob >= 0.7)
    assert set(sel.stable_set_) == set(stable)
    assert sel.support_.sum() == stable.size and set(np.flatnonzero(sel.support_)) == set(stable)
    assert sel.q_ == 4.0
    assert sel.error_bound_ == pytest.approx(16 / (0.4 * 30))
    assert sorted(sel.ranking_) == list(range(1, 31))
    assert set(sel.ranking_[:2]) == {1, 2}  # the two informative features


def test_penalized_grid_reference():
    """Probabilities at each C = fraction of half-samples with a nonzero coefficient; the
    score is the maximum over the grid; q_ is the mean size of the union over the grid."""
    X, y = _data(n=50, p=25, seed=2)
    base = L1Logistic(tol=1e-8)
    sel = StabilitySelection(base, n_subsamples=6, threshold=0.75, random_state=0).fit(X, y)
    m = int(np.median([s.size for s in sel.subsamples_]))
    ratios = np.geomspace(0.5, 0.1, 5)
    np.testing.assert_allclose(sel.grid_, 1 / (ratios * lambda_max(X, y) * m))
    chosen = np.zeros((len(sel.subsamples_), 5, 25), dtype=bool)
    for i, idx in enumerate(sel.subsamples_):
        for g, C in enumerate(sel.grid_):
            W, *_ = penalized_logistic(X[idx], y[idx], C=C, tol=1e-8)
            chosen[i, g] = np.abs(W).sum(axis=1) > 0
    prob = chosen.mean(axis=0)
    np.testing.assert_allclose(sel.selection_probabilities_, prob)
    np.testing.assert_allclose(sel.scores_, prob.max(axis=0))
    assert set(sel.stable_set_) == set(np.flatnonzero(prob.max(axis=0) >= 0.75))
    q = chosen.any(axis=1).sum(axis=1).mean()
    assert sel.q_ == pytest.approx(q)
    assert sel.error_bound_ == pytest.approx(q**2 / (0.5 * 25))
    # more penalty, fewer selections (on average)
    assert prob.sum(axis=1)[0] <= prob.sum(axis=1)[-1]


def test_explicit_grid_and_threshold_edge():
    X, y = _data()
    sel = StabilitySelection(L1Logistic(), grid=[0.05, 0.2], n_subsamples=4,
                             threshold=1.0, random_state=0).fit(X, y)
    np.testing.assert_allclose(sel.grid_, [0.05, 0.2])
    assert np.all(sel.scores_[sel.stable_set_] == 1.0)
    gen = StabilitySelection(TTest(), grid=[2, 5], n_subsamples=4, random_state=0).fit(X, y)
    # nested top-q sets: the max over the grid is the probability at the largest q
    np.testing.assert_allclose(gen.scores_, gen.selection_probabilities_[1])
    with pytest.raises(StablefsError, match="whole numbers"):
        StabilitySelection(TTest(), grid=[2.5], n_subsamples=2).fit(X, y)


def test_independent_of_n_jobs_and_seeded():
    X, y = _data()
    a = StabilitySelection(TTest(), n_subsamples=5, q=3, random_state=7, n_jobs=1).fit(X, y)
    b = StabilitySelection(TTest(), n_subsamples=5, q=3, random_state=7, n_jobs=2).fit(X, y)
    c = StabilitySelection(TTest(), n_subsamples=5, q=3, random_state=8).fit(X, y)
    np.testing.assert_array_equal(a.ranking_, b.ranking_)
    np.testing.assert_array_equal(a.selection_probabilities_, b.selection_probabilities_)
    assert any(not np.array_equal(s, t) for s, t in zip(a.subsamples_, c.subsamples_))


def test_method_strings():
    sel = make_selector("stabsel")
    assert isinstance(sel, StabilitySelection) and isinstance(sel.selector, L1Logistic)
    assert make_selector("stabsel").selector is not make_selector("stabsel").selector
    pre = make_selector("stabsel-relieff(q=5, threshold=0.8)")
    assert pre.q == 5 and pre.threshold == 0.8 and type(pre.selector).__name__ == "ReliefF"
    nested = make_selector("stabsel-en-ttest(n_estimators=3)")
    assert isinstance(nested.selector, Ensemble)
    with pytest.raises(StablefsError, match="threshold"):
        make_selector("stabsel(threshold=1.5)")


def test_ranking_breaks_probability_ties_by_mean_rank():
    X, y = _data()
    sel = StabilitySelection(TTest(), n_subsamples=3, q=2, random_state=0).fit(X, y)
    order = np.argsort(sel.ranking_)
    key = list(zip(-sel.scores_[order], sel.mean_rank_[order]))
    assert key == sorted(key)



def test_multiclass_probabilities_equal_the_numpy_solver_within_monte_carlo_error(monkeypatch):
    """The compiled path (proximal Newton on working sets, warm starts, half-samples on
    threads) against the NumPy FISTA loop on every feature, each penalty from zero, on a
    small 4-class set: every selection probability within 3 binomial standard errors of the
    reference's (plus one fit), most of them equal."""
    from logistic_helpers import reference_selected
    from stablefs.stabilizers import stability_selection as ss

    rng = np.random.default_rng(11)
    n, p = 48, 40
    y = np.repeat(np.arange(4), n // 4)
    X = rng.normal(size=(n, p))
    X[:, :6] += 0.9 * (y[:, None] == np.array([0, 1, 2, 3, 0, 1])[None, :])
    new = StabilitySelection(L1Logistic(), n_subsamples=8, random_state=4).fit(X, y)

    def numpy_fit(selector, X, y, index, weights, Cs):
        return reference_selected(X, y, index, Cs, selector.tol, 20000), np.arange(1, p + 1)

    monkeypatch.setattr(ss, "_fit_penalized", numpy_fit)
    old = StabilitySelection(L1Logistic(), n_subsamples=8, n_jobs=1, random_state=4).fit(X, y)
    fits = len(new.subsamples_)
    P, Q = new.selection_probabilities_, old.selection_probabilities_
    se = np.sqrt(np.maximum(Q * (1 - Q), 1 / fits) / fits)
    assert np.all(np.abs(P - Q) <= 3 * se + 1 / fits)
    assert np.mean(P == Q) > 0.95
