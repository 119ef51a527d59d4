"""Property tests (hypothesis): maximum, symmetry, bounds, relabelling, chance correction."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stablefs import StablefsError
from stablefs.stability import (
    davis,
    dice,
    hamming,
    jaccard,
    kappa,
    krizek,
    kuncheva,
    lustgarten,
    nogueira,
    novovicova,
    ochiai,
    phi,
    somol_c,
    somol_cw,
    somol_cw_rel,
    unadjusted,
    wald,
)

FAST = settings(max_examples=60, deadline=None)

ANY_SIZE = [jaccard, dice, hamming, ochiai]            # defined for every pair
INNER = [phi, kappa, lustgarten, wald, unadjusted]     # need 0 < k_i < p
SYSTEM = [somol_c, somol_cw, somol_cw_rel, krizek, davis, novovicova]


@st.composite
def systems(draw, equal=False, inner=True, min_m=2, max_m=6):
    p = draw(st.integers(2, 30))
    m = draw(st.integers(min_m, max_m))
    lo, hi = (1, p - 1) if inner else (0, p)
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if equal:
        k = draw(st.integers(lo, hi))
        sizes = [k] * m
    else:
        sizes = [draw(st.integers(lo, hi)) for _ in range(m)]
    return p, [np.sort(rng.choice(p, k, replace=False)) for k in sizes]


@FAST
@given(systems(equal=True))
def test_identical_subsets_give_the_maximum(case):
    p, subsets = case
    same = [subsets[0]] * len(subsets)
    for f in [kuncheva, nogueira, jaccard, dice, hamming, ochiai, phi, kappa, wald,
              unadjusted, somol_c, somol_cw, krizek, davis, novovicova]:
        assert f(same, p) == pytest.approx(1.0), f.__name__
    assert somol_cw_rel(same, p) == pytest.approx(1.0)


@FAST
@given(systems(inner=True, min_m=2, max_m=2))
def test_symmetry(case):
    p, (a, b) = case
    for f in ANY_SIZE + INNER:
        assert f([a, b], p) == pytest.approx(f([b, a], p), abs=1e-12), f.__name__
    if len(a) == len(b):
        assert kuncheva([a, b], p) == pytest.approx(kuncheva([b, a], p))


@FAST
@given(systems(inner=False, max_m=2, min_m=2))
def test_symmetry_any_size(case):
    p, (a, b) = case
    for f in ANY_SIZE:
        assert f([a, b], p) == pytest.approx(f([b, a], p), abs=1e-12)


@FAST
@given(systems(inner=True))
def test_bounds(case):
    p, subsets = case
    eps = 1e-12
    for f in ANY_SIZE + [somol_c, somol_cw, krizek, davis, novovicova]:
        assert -eps <= f(subsets, p) <= 1 + eps, f.__name__
    for f in (phi, kappa, lustgarten):
        assert -1 - eps <= f(subsets, p) <= 1 + eps, f.__name__
    assert 1 - p - eps <= wald(subsets, p) <= 1 + eps
    assert unadjusted(subsets, p) <= 1 + eps
    m = len(subsets)
    assert -1 / (m - 1) - eps <= nogueira(subsets, p) <= 1 + eps
    try:
        v = somol_cw_rel(subsets, p)
    except StablefsError as e:
        assert "coincide" in str(e)
    else:
        assert -eps <= v <= 1 + eps


@FAST
@given(systems(equal=True))
def test_equal_size_bounds_of_kuncheva(case):
    p, subsets = case
    k = len(subsets[0])
    v = kuncheva(subsets, p)
    assert (max(0, 2 * k - p) * p - k * k) / (k * (p - k)) - 1e-12 <= v <= 1 + 1e-12
    assert unadjusted(subsets, p) >= -1 - 1e-12


@FAST
@given(systems(inner=True), st.integers(0, 2**32 - 1))
def test_invariance_to_relabelling_features_and_reordering_results(case, seed):
    p, subsets = case
    rng = np.random.default_rng(seed)
    perm = rng.permutation(p)
    relabelled = [perm[s] for s in subsets]
    shuffled = [subsets[i] for i in rng.permutation(len(subsets))]
    for f in ANY_SIZE + INNER + SYSTEM + [nogueira]:
        try:
            v = f(subsets, p)
        except StablefsError as e:
            assert "coincide" in str(e)
            continue
        assert f(relabelled, p) == pytest.approx(v, abs=1e-12), f.__name__
        assert f(shuffled, p) == pytest.approx(v, abs=1e-12), f.__name__


@FAST
@given(systems(equal=True))
def test_kuncheva_equals_phi_equals_nogueira_for_equal_sizes(case):
    p, subsets = case
    k = kuncheva(subsets, p)
    assert phi(subsets, p) == pytest.approx(k, abs=1e-12)
    assert nogueira(subsets, p) == pytest.approx(k, abs=1e-12)


@FAST
@given(systems(inner=False))
def test_nogueira_is_a_ratio_of_average_intersections(case):
    p, subsets = case
    m = len(subsets)
    sizes = np.array([len(s) for s in subsets])
    kbar = sizes.mean()
    if kbar == 0 or kbar == p:
        return
    inter = [len(np.intersect1d(subsets[i], subsets[j]))
             for i in range(m) for j in range(i + 1, m)]
    abar = np.mean(inter)
    assert nogueira(subsets, p) == pytest.approx(
        (abar - kbar**2 / p) / (kbar - kbar**2 / p), abs=1e-12)


@pytest.mark.parametrize("func", [kuncheva, phi, kappa, wald, unadjusted, lustgarten,
                                  nogueira])
def test_chance_corrected_measures_average_zero_for_random_subsets(func):
    rng = np.random.default_rng(12)
    p, k, m, reps = 40, 7, 5, 3000
    vals = np.array([func([rng.choice(p, k, replace=False) for _ in range(m)], p)
                     for _ in range(reps)])
    se = vals.std(ddof=1) / np.sqrt(reps)
    assert abs(vals.mean()) < 4 * se


def test_uncorrected_measures_do_not():
    rng = np.random.default_rng(13)
    p, k = 40, 20
    vals = [jaccard([rng.choice(p, k, replace=False) for _ in range(5)], p)
            for _ in range(200)]
    assert np.mean(vals) > 0.3          # ≈ 1/3 for k = p/2
