"""Somol C / CW / CW_rel, Křížek, Davis, Novovičová: hand values, bounds, degenerate input."""

import itertools

import numpy as np
import pytest

from stablefs import StablefsError
from stablefs.stability import (
    davis,
    krizek,
    novovicova,
    somol,
    somol_c,
    somol_cw,
    somol_cw_rel,
)
from stablefs.stability.somol import cw_bounds

# F = (3, 2, 1, 1, 1, 0): |V| = 5, N = 8, m = 3, p = 6
SYS = [[0, 1, 2], [0, 1, 3], [0, 4]]


def test_hand_computed():
    assert somol_c(SYS, 6) == pytest.approx((2 / 2 + 1 / 2) / 5)                   # 0.3
    assert somol_cw(SYS, 6) == pytest.approx(3 / 8 * 2 / 2 + 2 / 8 * 1 / 2)        # 0.5
    # D = 8 mod 6 = 2, H = 8 mod 3 = 2: CW_min = 24/96, CW_max = 14/16
    assert cw_bounds(8, 3, 6) == pytest.approx((0.25, 0.875))
    assert somol_cw_rel(SYS, 6) == pytest.approx((0.5 - 0.25) / (0.875 - 0.25))  # 0.4
    assert somol(SYS, 6) == somol_cw_rel(SYS, 6)
    assert somol(SYS, 6, variant="c") == somol_c(SYS, 6)
    assert krizek(SYS) == pytest.approx(0.0, abs=1e-12)          # no subset repeats
    assert krizek(SYS, normalize=False) == pytest.approx(np.log(3))
    assert davis(SYS) == pytest.approx((1 + 2 / 3 + 3 * (1 / 3)) / 5)
    assert davis(SYS, 6, penalty=0.5) == pytest.approx(max(0, 8 / 15 - 0.5 * 3 / 6))
    expected = (3 * np.log2(3) + 2 * np.log2(2)) / (8 * np.log2(3))
    assert novovicova(SYS) == pytest.approx(expected)


def test_krizek_partial_repeats_and_entropy_blindness():
    assert krizek([[0, 1], [0, 1], [2, 3], [4, 5]]) == pytest.approx(
        1 - (-(0.5 * np.log(0.5) + 2 * 0.25 * np.log(0.25))) / np.log(4))
    # seed 002 sec. 2.2: disjoint vs nearly identical subsets have the same entropy
    left = [list(range(4 * i, 4 * i + 4)) for i in range(5)]
    right = [sorted(set(range(20)) - {7, 8, 9, 10, 11} | {6 + i}) for i in range(5)]
    assert krizek(left, 20) == pytest.approx(krizek(right, 20))


def test_cw_bounds_by_enumeration():
    p, m = 4, 3
    subsets = [np.array(s, dtype=bool) for s in itertools.product([0, 1], repeat=p)]
    lo, hi = {}, {}
    for system in itertools.product(range(len(subsets)), repeat=m):
        Z = np.array([subsets[i] for i in system])
        F = Z.sum(0)
        N = int(F.sum())
        if N == 0:
            continue
        cw = np.sum(F / N * (F - 1) / (m - 1))
        lo[N] = min(lo.get(N, np.inf), cw)
        hi[N] = max(hi.get(N, -np.inf), cw)
    for N in lo:
        assert cw_bounds(N, m, p) == pytest.approx((lo[N], hi[N]), abs=1e-12), N


def test_identical_systems_score_one():
    same = [[1, 4, 6]] * 5
    for f in (somol_c, somol_cw, somol_cw_rel, krizek, davis, novovicova):
        assert f(same, 10) == pytest.approx(1.0)


def test_cw_rel_is_not_zero_under_random_selection():
    """Documented: CW_rel is relative to the most even spread, not to chance."""
    rng = np.random.default_rng(0)
    vals = [somol_cw_rel([rng.choice(200, 10, replace=False) for _ in range(5)], 200)
            for _ in range(200)]
    assert 0.03 < np.mean(vals) < 0.08        # ≈ k/p = 0.05 when m k < p


def test_degenerate():
    with pytest.raises(StablefsError, match="no feature is selected"):
        somol_c([[], []], 5)
    with pytest.raises(StablefsError, match="no feature is selected"):
        novovicova([[], []], 5)
    assert krizek([[], []], 5) == 1.0                 # identical (empty) results
    with pytest.raises(StablefsError, match="coincide"):
        somol_cw_rel([[0], []], 5)                  # a single selection overall
    with pytest.raises(StablefsError, match="at least two"):
        somol_c([[0, 1]], 5)
    with pytest.raises(StablefsError, match="n_features is required"):
        somol_cw_rel(SYS)
    with pytest.raises(StablefsError, match="variant"):
        somol(SYS, 6, variant="x")
    with pytest.raises(StablefsError, match="penalty"):
        davis(SYS, 6, penalty=-1)
