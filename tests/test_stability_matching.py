"""Matching-based similarity Sim^M_ID / Sim^M_V (seed 001 eqs. 5–7)."""

import itertools

import numpy as np
import pytest

from stablefs import StablefsError
from stablefs.stability import dice, matching_similarity, matching_stability


def _brute_force(W):
    """Maximum over all matchings of size min(rows, cols) of the summed weight."""
    r, c = W.shape
    if r <= c:
        return max(sum(W[i, j] for i, j in zip(range(r), perm))
                   for perm in itertools.permutations(range(c), r))
    return _brute_force(W.T)


def test_groups_by_index_hand_example():
    A = [[0, 1, 2], [3, 4], [5]]
    B = [[3, 4, 9], [0, 1], [7, 8]]
    # Sim_ID weights: A0-B1 = 2·2/5 = .8, A1-B0 = 2·2/5 = .8, A2-* = 0 → (0.8+0.8+0)/3
    assert matching_similarity(A, B) == pytest.approx(1.6 / 3)
    assert matching_similarity(B, A) == pytest.approx(1.6 / 3)


def test_unequal_number_of_groups_uses_min():
    A = [[0, 1], [2, 3], [4, 5]]
    B = [[0, 1]]
    assert matching_similarity(A, B) == pytest.approx(1.0)     # |M| = 1


def test_plain_subsets():
    # equal sizes: Sim^M_ID = Sim_ID = Dice
    s1, s2 = [0, 1, 2, 3], [2, 3, 4, 5]
    assert matching_similarity(s1, s2) == pytest.approx(dice([s1, s2]))
    # unequal sizes: a / min(k1, k2), not Dice (documented)
    s1, s2 = [0, 1, 2], [1, 2, 3, 4, 5]
    assert matching_similarity(s1, s2) == pytest.approx(2 / 3)
    assert dice([s1, s2]) == pytest.approx(0.5)
    mask = np.zeros(6, bool)
    mask[[1, 2, 3, 4, 5]] = True
    assert matching_similarity(s1, mask) == pytest.approx(2 / 3)


def test_by_value_against_brute_force():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((25, 12))
    X[:, 6] = X[:, 0] + 0.1 * rng.standard_normal(25)
    A = [[0, 1], [2], [3, 4, 5]]
    B = [[6], [7, 8], [9, 10], [11]]
    Z = (X - X.mean(0)) / X.std(0)
    ca = np.column_stack([Z[:, g].mean(1) for g in A])
    cb = np.column_stack([Z[:, g].mean(1) for g in B])
    W = np.corrcoef(ca.T, cb.T)[:3, 3:]
    assert matching_similarity(A, B, X, by="value") == pytest.approx(_brute_force(W) / 3)
    # single features: plain correlation; identical results give 1
    assert matching_similarity([0, 3], [6, 3], X, by="value") == pytest.approx(
        (np.corrcoef(X[:, 0], X[:, 6])[0, 1] + 1) / 2)
    assert matching_similarity(A, A, X, by="value") == pytest.approx(1.0)


def test_stability_eq_7_and_pairwise():
    ref = [[0, 1], [2, 3]]
    runs = [[[0, 1], [2, 3]], [[0, 1], [2, 4]], [[5], [6]]]
    expected = np.mean([1.0, (1 + 2 * 1 / 4) / 2, 0.0])     # {2,3} vs {2,4}: 2·1/4
    assert matching_stability(runs, reference=ref) == pytest.approx(expected)
    pair = np.mean([matching_similarity(runs[i], runs[j]) for i, j in [(0, 1), (0, 2), (1, 2)]])
    assert matching_stability(runs) == pytest.approx(pair)


def test_errors():
    with pytest.raises(StablefsError, match="empty"):
        matching_similarity([], [[1]])
    with pytest.raises(StablefsError, match="empty"):
        matching_similarity([[1], []], [[1]])
    with pytest.raises(StablefsError, match="pass X"):
        matching_similarity([1], [2], by="value")
    with pytest.raises(StablefsError, match="by ="):
        matching_similarity([1], [2], by="name")
    with pytest.raises(StablefsError, match="twice"):
        matching_similarity([[1, 1]], [[2]])
    with pytest.raises(StablefsError, match="at least two"):
        matching_stability([[[1]]])
