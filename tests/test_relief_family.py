"""Relief, dReliefF and pdReliefF against slow direct references written here."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad

from stablefs import make_selector
from stablefs._errors import StablefsError
from stablefs.selectors import DReliefF, PDReliefF, Relief, ReliefF, relief_scores, relieff_scores
from stablefs.selectors.relief import PD_A, PD_S, distance_weighted_relieff_scores


def _scaled(X):
    X = np.asarray(X, float)
    span = X.max(0) - X.min(0)
    span[span == 0] = 1.0
    return (X - X.min(0)) / span


def _nearest(dist, cands, k):
    """The k nearest of ``cands`` (ascending indices), ties to the lower index: a plain loop."""
    chosen = []
    for _ in range(min(k, len(cands))):
        best = None
        for c in cands:
            if c in chosen:
                continue
            if best is None or dist[c] < dist[best]:
                best = c
        chosen.append(best)
    return chosen


def _slow_relief(X, y, inst, coef):
    Xs = _scaled(X)
    n, p = Xs.shape
    W = np.zeros(p)
    for i, c in zip(inst, coef):
        dist = [sum(abs(Xs[i, j] - Xs[l, j]) for j in range(p)) for l in range(n)]
        hits = [l for l in range(n) if l != i and y[l] == y[i]]
        misses = [l for l in range(n) if y[l] != y[i]]
        (m,) = _nearest(dist, misses, 1)
        W += c * np.abs(Xs[i] - Xs[m])
        if hits:
            (h,) = _nearest(dist, hits, 1)
            W -= c * np.abs(Xs[i] - Xs[h])
    return W


def _slow_distance_weighted(X, y, order, k, schedule, a=PD_A, s=PD_S):
    Xs = _scaled(X)
    n, p = Xs.shape
    classes = sorted(set(y.tolist()))
    prior = {c: np.mean(y == c) for c in classes}
    m = len(order)
    total = np.zeros(p)
    for t, i in enumerate(order):
        f = np.ones(p)
        if t > 0 and schedule != "constant":
            wbar = np.array([max(v / t, 0.0) for v in total])
            if schedule == "weights":
                f = wbar if wbar.any() else np.ones(p)
            else:
                ct = (t / m) ** a
                f = np.array([(v - 1) * ct / (ct + s) + 1 for v in wbar])
        dist = [sum(f[j] * abs(Xs[i, j] - Xs[l, j]) for j in range(p)) for l in range(n)]
        for c in classes:
            cands = [l for l in range(n) if y[l] == c and l != i]
            if not cands:
                continue
            nb = _nearest(dist, cands, k)
            factor = -1.0 if c == y[i] else prior[c] / (1 - prior[y[i]])
            for l in nb:
                total += factor / len(nb) * np.abs(Xs[i] - Xs[l])
    return total / m


def _awkward_data(seed=0, n_classes=3):
    """Multi-class, a duplicated sample, many tied distances, a constant feature.

    Values are whole numbers 0..8 with range 8 in every non-constant feature, so the scaled
    values are multiples of 1/8 and every Manhattan distance is exact: ties are true ties
    in floating point too, and both sides must break them by the lower index."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), 6)
    X = rng.integers(0, 5, size=(y.size, 5)).astype(float)
    X[:, 1] += 2.0 * y
    X[0], X[1] = 0.0, 8.0
    X[:, 3] = 7.0  # constant
    X[5] = X[4]  # duplicate within a class
    X[8] = X[2]  # duplicate across classes
    return X, y


def _continuous_data(seed=0, n_classes=3):
    """Multi-class, duplicated samples and a constant feature, no chance ties (weighted
    distances are sums of inexact products: their ties depend on the summation order)."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), 6)
    X = rng.normal(size=(y.size, 5))
    X[:, 1] += y
    X[:, 3] = 7.0
    X[5] = X[4]
    X[8] = X[2]
    return X, y


@pytest.mark.parametrize("n_classes", [2, 3])
def test_relief_matches_slow_reference(n_classes):
    X, y = _awkward_data(1, n_classes)
    n = y.size
    assert np.allclose(relief_scores(X, y), _slow_relief(X, y, range(n), [1 / n] * n),
                       atol=1e-12)
    m = 25
    inst = np.random.RandomState(4).randint(n, size=m)
    ours = relief_scores(X, y, n_samples=m, random_state=4)
    assert np.allclose(ours, _slow_relief(X, y, inst, [1 / m] * m), atol=1e-12)


def test_relief_constant_feature_and_singleton_class():
    X, y = _awkward_data(2)
    y = y.copy()
    y[0] = 9  # a class of one sample: no hit
    n = y.size
    ours = relief_scores(X, y)
    assert ours[3] == 0.0
    assert np.allclose(ours, _slow_relief(X, y, range(n), [1 / n] * n), atol=1e-12)


def test_relief_weights_scale_instances_and_zero_means_removed():
    X, y = _awkward_data(3)
    w = np.linspace(0.5, 2.0, y.size)
    n = y.size
    assert np.allclose(relief_scores(X, y, w), _slow_relief(X, y, range(n), w / w.sum()),
                       atol=1e-12)
    w[[0, 7]] = 0.0
    keep = w > 0
    a = Relief().fit(X, y, sample_weight=w).scores_
    b = Relief().fit(X[keep], y[keep], sample_weight=w[keep]).scores_
    assert np.allclose(a, b, atol=1e-14)


@pytest.mark.parametrize("schedule", ["weights", "progressive", "constant"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_distance_weighted_relieff_matches_slow_reference(schedule, n_classes):
    X, y = (_awkward_data if schedule == "constant" else _continuous_data)(5, n_classes)
    for k in (1, 3, 10):
        ours = distance_weighted_relieff_scores(X, y, schedule=schedule, n_neighbors=k,
                                                random_state=7)
        order = np.random.RandomState(7).permutation(y.size)
        assert np.allclose(ours, _slow_distance_weighted(X, y, order, k, schedule), atol=1e-12)
    ours = distance_weighted_relieff_scores(X, y, schedule=schedule, n_neighbors=2,
                                            n_samples=30, random_state=3)
    order = np.random.RandomState(3).randint(y.size, size=30)
    assert np.allclose(ours, _slow_distance_weighted(X, y, order, 2, schedule), atol=1e-12)


def test_constant_schedule_and_huge_s_are_relieff():
    """f = 1 is ReliefF (the thesis: ReliefF is the special case f = 1)."""
    X, y = _awkward_data(6)
    ref = relieff_scores(X, y, n_neighbors=3)
    const = distance_weighted_relieff_scores(X, y, schedule="constant", n_neighbors=3,
                                             random_state=0)
    assert np.allclose(const, ref, atol=1e-13)
    flat = PDReliefF(n_neighbors=3, s=1e300, random_state=0).fit(X, y).scores_
    assert np.allclose(flat, ref, atol=1e-13)


def test_pdrelieff_parameters_satisfy_the_area_condition():
    """Eq. 5.17 in the continuous limit: int_0^1 (f - w)/(1 - w) dt = 1/3 at a = 2."""
    ratio, _ = quad(lambda t: PD_S / (t**PD_A + PD_S), 0.0, 1.0)
    assert ratio == pytest.approx(1 / 3, abs=1e-6)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), negate=st.booleans(), n_classes=st.sampled_from([2, 3]))
def test_lemma_5_1_copy_gets_equal_weight(seed, negate, n_classes):
    """Lemma 5.1 (Prat Masramon 2016): an attribute and its exact (or negated) copy weigh the
    same."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), 7)
    X = rng.normal(size=(y.size, 4))
    X[:, 0] += y
    X = np.column_stack([X, -X[:, 0] if negate else X[:, 0]])
    for est in (Relief(), ReliefF(n_neighbors=3), ReliefF(neighbor_weights="distance"),
                DReliefF(n_neighbors=3, random_state=seed),
                PDReliefF(n_neighbors=3, random_state=seed)):
        s = est.fit(X, y).scores_
        assert s[0] == pytest.approx(s[4], abs=1e-12), type(est).__name__


def test_relevant_feature_ranked_first_and_seeded():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 30)
    X = rng.normal(size=(60, 20))
    X[:, 7] += 2.5 * y
    for spec in ("relief", "drelieff", "pdrelieff"):
        est = make_selector(spec)
        est.set_params(**({"random_state": 1}))
        assert est.fit(X, y).ranking_[7] == 1, spec
    a = PDReliefF(random_state=5).fit(X, y).scores_
    b = PDReliefF(random_state=5).fit(X, y).scores_
    assert np.array_equal(a, b)


def test_bad_input_one_line():
    X, y = _awkward_data(0)
    with pytest.raises(StablefsError, match="n_samples"):
        relief_scores(X, y, n_samples=0)
    with pytest.raises(StablefsError, match="schedule"):
        distance_weighted_relieff_scores(X, y, schedule="linear")
    with pytest.raises(StablefsError, match="n_samples"):
        Relief(n_samples=-1).fit(X, y)
    with pytest.raises(StablefsError, match="s"):
        PDReliefF(s=0).fit(X, y)


def _slow_relieff(X, y, counts, k, rank_sigma=None):
    """Kononenko's ReliefF by loops: instance i counts ``counts[i]`` times; the l-th
    neighbour weighs 1/K, or exp(-(l/sigma)^2) normalised (rank weights)."""
    Xs = _scaled(X)
    n, p = Xs.shape
    classes = sorted(set(y.tolist()))
    prior = {c: np.mean(y == c) for c in classes}
    W = np.zeros(p)
    for i in range(n):
        if counts[i] == 0:
            continue
        dist = [sum(abs(Xs[i, j] - Xs[l, j]) for j in range(p)) for l in range(n)]
        for c in classes:
            cands = [l for l in range(n) if y[l] == c and l != i]
            nb = _nearest(dist, cands, k)
            if not nb:
                continue
            if rank_sigma is None:
                v = [1 / len(nb)] * len(nb)
            else:
                raw = [math.exp(-((r + 1) / rank_sigma) ** 2) for r in range(len(nb))]
                v = [r / sum(raw) for r in raw]
            factor = -1.0 if c == y[i] else prior[c] / (1 - prior[y[i]])
            for vl, l in zip(v, nb):
                W += counts[i] * factor * vl * np.abs(Xs[i] - Xs[l])
    return W


@pytest.mark.parametrize("n_classes", [2, 3])
def test_relieff_options_match_slow_reference(n_classes):
    """ReliefF with m sampled instances and with rank-weighted ("distance") neighbours."""
    X, y = _awkward_data(8, n_classes)
    n = y.size
    ones = np.full(n, 1 / n)
    for sigma in (2.0, 0.7):
        ours = relieff_scores(X, y, n_neighbors=4, neighbor_weights="distance", sigma=sigma)
        assert np.allclose(ours, _slow_relieff(X, y, ones, 4, sigma), atol=1e-12)
    m = 23
    drawn = np.random.RandomState(9).randint(n, size=m)
    counts = np.bincount(drawn, minlength=n) / m
    est = ReliefF(n_neighbors=3, n_samples=m, random_state=9).fit(X, y)
    assert np.allclose(est.scores_, _slow_relieff(X, y, counts, 3), atol=1e-12)


def test_relieff_options_in_an_ensemble_do_not_depend_on_n_jobs():
    from stablefs.stabilizers import Ensemble

    X, y = _continuous_data(2)
    for inner in (ReliefF(n_neighbors=2, n_samples=10), ReliefF(neighbor_weights="distance")):
        a = Ensemble(inner, n_estimators=3, random_state=1, n_jobs=1).fit(X, y)
        b = Ensemble(inner, n_estimators=3, random_state=1, n_jobs=2).fit(X, y)
        assert np.array_equal(a.member_scores_, b.member_scores_)
    with pytest.raises(StablefsError, match="sigma"):
        ReliefF(neighbor_weights="distance", sigma=0).fit(X, y)
