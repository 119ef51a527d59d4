"""ReliefF against slow loop references of seed 000 eqs. 5.1 / 5.3, properties, and skrebate."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import spearmanr

from stablefs import StablefsError
from stablefs._validation import rank_from_scores
from stablefs.selectors import ReliefF, relieff_scores

# --------------------------------------------------------------------------------------------
# slow references, written straight from the equations with explicit Python loops


def _diff_fn(X):
    lo = [min(X[:, j]) for j in range(X.shape[1])]
    hi = [max(X[:, j]) for j in range(X.shape[1])]

    def diff(a, b, j):
        span = hi[j] - lo[j]
        return 0.0 if span == 0 else abs(X[a, j] - X[b, j]) / span

    return diff


def _neighbours(X, y, i, c, K, diff):
    """K nearest instances of class c to instance i (not i itself), ties by lower index."""
    p = X.shape[1]
    cands = []
    for l in range(X.shape[0]):
        if l != i and y[l] == c:
            dist = 0.0
            for j in range(p):
                dist += diff(i, l, j)
            cands.append((dist, l))
    cands.sort()
    return [l for _, l in cands[:K]]


def reference_eq51(X, y, K):
    """Seed 000 eq. 5.1 (two classes, K <= every class size - 1)."""
    n, p = X.shape
    diff = _diff_fn(X)
    W = [0.0] * p
    for i in range(n):
        hits = _neighbours(X, y, i, y[i], K, diff)
        misses = _neighbours(X, y, i, [c for c in set(y) if c != y[i]][0], K, diff)
        assert len(hits) == K and len(misses) == K
        for j in range(p):
            for l in range(K):
                W[j] += diff(i, misses[l], j) - diff(i, hits[l], j)
    return np.array(W) / (n * K)


def reference_eq53(X, y, K, w=None, neighbor_weights="instance"):
    """Seed 000 eq. 5.3 with Kononenko's priors; K_i = min(K, available) neighbours per class."""
    n = X.shape[0]
    w = [1.0 / n] * n if w is None else list(w)
    keep = [i for i in range(n) if w[i] > 0]
    X = X[keep]
    y = [y[i] for i in keep]
    total = sum(w[i] for i in keep)
    w = [w[i] / total for i in keep]
    n, p = X.shape
    diff = _diff_fn(X)
    classes = sorted(set(y))
    prior = {c: sum(w[i] for i in range(n) if y[i] == c) for c in classes}
    W = [0.0] * p
    for i in range(n):
        for c in classes:
            nb = _neighbours(X, y, i, c, K, diff)
            if not nb:
                continue
            if neighbor_weights == "instance":
                v = [w[l] / sum(w[m] for m in nb) for l in nb]
            else:
                v = [1.0 / len(nb)] * len(nb)
            factor = -1.0 if c == y[i] else prior[c] / (1.0 - prior[y[i]])
            for j in range(p):
                W[j] += w[i] * factor * sum(v[t] * diff(i, nb[t], j) for t in range(len(nb)))
    return np.array(W)


def _continuous(seed, sizes=(12, 14), p=8):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.normal(size=(y.size, p)) * rng.uniform(0.1, 10, size=p)
    X[:, 0] += 1.5 * y
    return X, y


def _integer_with_ties(seed, sizes=(10, 12), p=7):
    """Values 0..4 with repeated values and duplicated rows; every feature spans exactly 0..4,
    so diffs are multiples of 1/4 and distances (and their ties) are exact in floating point."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.integers(0, 5, size=(y.size, p)).astype(float)
    X[0] = 0.0
    X[1] = 4.0
    X[5] = X[3]  # duplicated rows, same class
    X[-1] = X[-2]
    X[-3] = X[2]  # and across classes
    return rng.permutation(X.shape[0]), X, y


# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("K", [1, 3, 10])
def test_two_classes_equal_eq51_reference(seed, K):
    X, y = _continuous(seed, sizes=(11, 15))
    assert_allclose(ReliefF(n_neighbors=K).fit(X, y).scores_, reference_eq51(X, y, K),
                    rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("seed", range(4))
def test_ties_and_duplicates_equal_reference(seed):
    perm, X, y = _integer_with_ties(seed)
    X, y = X[perm], y[perm]
    for K in (3, 5):
        expected = reference_eq51(X, y, K)
        assert_allclose(ReliefF(n_neighbors=K).fit(X, y).scores_, expected, atol=1e-13)
    # a constant feature gets diff 0 everywhere, hence score 0
    X[:, 2] = 7.0
    assert ReliefF(n_neighbors=3).fit(X, y).scores_[2] == 0.0


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("K", [3, 15])
def test_multiclass_with_priors_and_k_larger_than_a_class(seed, K):
    X, y = _continuous(seed, sizes=(6, 14, 9), p=6)
    assert_allclose(ReliefF(n_neighbors=K).fit(X, y).scores_, reference_eq53(X, y, K),
                    rtol=1e-10, atol=1e-13)
    perm, Xi, yi = _integer_with_ties(seed, sizes=(5, 11, 8), p=5)
    Xi, yi = Xi[perm], yi[perm]
    assert_allclose(ReliefF(n_neighbors=K).fit(Xi, yi).scores_, reference_eq53(Xi, yi, K),
                    atol=1e-13)


def test_k_larger_than_a_class_two_classes():
    X, y = _continuous(7, sizes=(4, 20), p=5)
    assert_allclose(ReliefF(n_neighbors=8).fit(X, y).scores_, reference_eq53(X, y, 8),
                    rtol=1e-10, atol=1e-13)


def test_equal_weights_equal_unweighted():
    X, y = _continuous(1, sizes=(9, 13, 10))
    plain = ReliefF(n_neighbors=4).fit(X, y).scores_
    for mode in ("instance", "uniform"):
        sel = ReliefF(n_neighbors=4, neighbor_weights=mode)
        assert_allclose(sel.fit(X, y, sample_weight=np.full(y.size, 3.0)).scores_, plain,
                        rtol=1e-12)


@pytest.mark.parametrize("mode", ["instance", "uniform"])
@pytest.mark.parametrize("seed", range(3))
def test_concentrated_weights_equal_eq53_reference(mode, seed):
    X, y = _continuous(seed, sizes=(10, 12, 7), p=6)
    rng = np.random.default_rng(seed)
    w = np.full(y.size, 1e-3)
    favoured = rng.choice(y.size, size=8, replace=False)
    w[favoured] = rng.uniform(1, 5, size=8)
    got = ReliefF(n_neighbors=3, neighbor_weights=mode).fit(X, y, sample_weight=w).scores_
    assert_allclose(got, reference_eq53(X, y, 3, w, mode), rtol=1e-10, atol=1e-14)
    # zero weights: the samples are absent (neither instances nor neighbours)
    w0 = np.where(np.isin(np.arange(y.size), favoured), w, 0.0)
    w0[y == 2] = 1.0  # keep every class
    got = ReliefF(n_neighbors=3, neighbor_weights=mode).fit(X, y, sample_weight=w0).scores_
    assert_allclose(got, reference_eq53(X, y, 3, w0, mode), rtol=1e-10, atol=1e-14)
    keep = w0 > 0
    assert_allclose(got, ReliefF(n_neighbors=3, neighbor_weights=mode)
                    .fit(X[keep], y[keep], sample_weight=w0[keep]).scores_, rtol=1e-12)


def test_instance_is_never_its_own_neighbour_but_duplicates_are():
    # two classes of two points; instance 0 and its duplicate 1
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0], [1.0, 0.5]])
    y = np.array([0, 0, 1, 1])
    s = ReliefF(n_neighbors=1).fit(X, y).scores_
    assert_allclose(s, reference_eq51(X, y, 1))
    # 0 and 1 are each other's hit (diff 0); the nearest miss of 0 and 1 is 3 (distance 1.5);
    # 2 and 3 are each other's hit and both have misses 0 and 1 at equal distance -> 0 (lower
    # index). Feature 1: misses 0.5 + 0.5 + 1 + 0.5, hits 0 + 0 + 0.5 + 0.5, over n K = 4.
    assert_allclose(s, [(4 - 0) / 4, (2.5 - 1.0) / 4])


def test_scores_on_bad_parameters():
    X, y = _continuous(0)
    with pytest.raises(StablefsError, match="n_neighbors"):
        ReliefF(n_neighbors=0).fit(X, y)
    with pytest.raises(StablefsError, match="neighbor_weights"):
        ReliefF(neighbor_weights="rank").fit(X, y)
    with pytest.raises(StablefsError, match="single class"):
        ReliefF().fit(X, y, sample_weight=(y == 1).astype(float))


def test_compiled_kernels_equal_the_numpy_computation():
    """The Numba kernels (distances, fused sums) against the NumPy/SciPy computation they
    replaced: pdist, stable argsort, ``coef @ |Xs[a] - Xs[b]|``."""
    from scipy.spatial.distance import pdist, squareform

    from stablefs.selectors._neighbors import minmax_scale
    from stablefs.selectors.relieff import _relieff_pairs

    X, y = _continuous(3, sizes=(15, 12, 9), p=300)
    Xs = minmax_scale(X)
    inst, nbrs, coefs = _relieff_pairs(squareform(pdist(Xs, "cityblock")), y,
                                       np.full(y.size, 1 / y.size), 4, "instance")
    ref = coefs @ np.abs(Xs[inst] - Xs[nbrs])
    assert_allclose(relieff_scores(X, y, n_neighbors=4), ref, rtol=1e-12, atol=1e-15)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), p=st.integers(2, 10), K=st.integers(1, 6),
       a=st.floats(-50, 50).filter(lambda v: abs(v) > 1e-2), b=st.floats(-1e3, 1e3))
def test_properties_permutation_and_affine_invariance(seed, p, K, a, b):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], [6, 8, 5])
    X = rng.normal(size=(y.size, p))
    sel = ReliefF(n_neighbors=K)
    base = sel.fit(X, y).scores_
    assert_array_equal(np.sort(sel.ranking_), np.arange(1, p + 1))
    assert np.all(base <= 1 + 1e-12) and np.all(base >= -1 - 1e-12)
    perm = rng.permutation(p)
    assert_allclose(sel.fit(X[:, perm], y).scores_, base[perm], rtol=1e-9, atol=1e-12)
    j = int(rng.integers(p))
    Xa = X.copy()
    Xa[:, j] = a * Xa[:, j] + b
    assert_allclose(sel.fit(Xa, y).scores_, base, rtol=1e-9, atol=1e-12)


def test_twenty_thousand_features():
    """Feature-chunked computation on 20,000 features (speed is in benchmarks/)."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 60)
    X = rng.normal(size=(120, 20_000))
    X[:, 7] += 3 * y
    s = ReliefF(n_neighbors=10).fit(X, y).scores_
    assert s.shape == (20_000,) and np.all(np.isfinite(s))
    assert np.argmax(s) == 7


def test_colon_agrees_with_skrebate(shared_data):
    """skrebate's ReliefF on Colon: same ranking up to floating-point rounding.

    skrebate differs from eq. 5.1 only in ways that Colon does not trigger: features with at
    most ``categorical_threshold`` (10) distinct values are treated as discrete (0/1 diff, and in
    mixed data continuous diffs above one standard deviation are set to 1 -- its "ramp"); ties
    between neighbour distances are broken by ``np.argsort``'s unstable quicksort rather than by
    the lower index; and for more than two classes it weighs each miss class by its share of the
    neighbour set (uniform over the other classes when every class supplies K misses) instead of
    Kononenko's ``P(C) / (1 - P(class))`` priors. Colon is two-class, every gene has >= 59
    distinct values, and the distances have no ties, so the scores agree to rounding; we still
    compare by rank statistics rather than demand equality.
    """
    skrebate = pytest.importorskip("skrebate")
    data = pd.read_csv(shared_data / "colon.csv.gz", dtype={"label": str})
    X = data.drop(columns="label").to_numpy(float)
    y = (data["label"].to_numpy() == data["label"].iloc[0]).astype(int)
    ours = ReliefF(n_neighbors=10).fit(X, y).scores_
    theirs = skrebate.ReliefF(n_neighbors=10, n_features_to_select=10, n_jobs=1) \
        .fit(X, y).feature_importances_
    rho = spearmanr(ours, theirs).statistic
    top_ours = set(np.argsort(-ours, kind="stable")[:50])
    top_theirs = set(np.argsort(-theirs, kind="stable")[:50])
    assert rho > 0.999
    assert len(top_ours & top_theirs) >= 48
    assert_allclose(ours, theirs, atol=1e-12)


# -- members of an ensemble computed together -------------------------------------------


def _bootstrap(rng, y, size=None):
    from stablefs.stabilizers.ensemble import draw_resample

    _, codes = np.unique(y, return_inverse=True)
    return draw_resample(rng, codes, "bootstrap", 1.0)


@pytest.mark.parametrize("n_classes, weighted, neighbor_weights",
                         [(2, False, "instance"), (3, True, "instance"), (3, True, "uniform")])
def test_resample_scores_equal_member_fits(n_classes, weighted, neighbor_weights):
    """relieff_scores_resamples = relieff_scores on every resample (repeats included), with
    the same neighbours; only the summation order differs."""
    from stablefs.selectors.relieff import relieff_scores, relieff_scores_resamples

    rng = np.random.default_rng(n_classes)
    n, p = 45, 60
    y = np.arange(n) % n_classes
    X = rng.normal(size=(n, p))
    X[:, :6] += y[:, None]
    X[:, 7] = 3.0  # constant
    X[5] = X[9]  # an exact duplicate sample
    w = rng.uniform(0.2, 2.0, size=n) if weighted else None
    resamples = [_bootstrap(rng, y) for _ in range(6)] + [np.arange(n)]
    got = relieff_scores_resamples(X, y, resamples, w, n_neighbors=4,
                                   neighbor_weights=neighbor_weights)
    for row, idx in zip(got, resamples, strict=True):
        want = relieff_scores(X[idx], y[idx], None if w is None else w[idx], n_neighbors=4,
                              neighbor_weights=neighbor_weights)
        np.testing.assert_allclose(row, want, rtol=1e-12, atol=1e-14)
        np.testing.assert_array_equal(rank_from_scores(row), rank_from_scores(want))


def test_ensemble_of_relieff_equals_member_by_member_fits():
    """The Ensemble's shared path gives the members of the plain per-member path."""
    from stablefs.stabilizers import Ensemble
    from stablefs.stabilizers.ensemble import _fit_member

    rng = np.random.default_rng(7)
    y = np.repeat([0, 1], 25)
    X = rng.normal(size=(50, 80))
    X[:, :5] += y[:, None]
    en = Ensemble(ReliefF(n_features_to_select=10), n_estimators=5, random_state=3).fit(X, y)
    for member, idx in zip(en.estimators_, en.resamples_, strict=True):
        ref = _fit_member(ReliefF(n_features_to_select=10), X, y, idx, None, None)[0]
        np.testing.assert_allclose(member.scores_, ref.scores_, rtol=1e-12, atol=1e-14)
        np.testing.assert_array_equal(member.ranking_, ref.ranking_)
        np.testing.assert_array_equal(member.support_, ref.support_)
        assert member.n_features_to_select_ == ref.n_features_to_select_
        np.testing.assert_array_equal(member.classes_, ref.classes_)
