"""Rankings and weights: Spearman, Kendall (full and top-k), Pearson, weight variance, F."""

import numpy as np
import pytest
from scipy import stats

from stablefs import StablefsError
from stablefs.stability import f_measure, kendall, pearson, spearman, weight_variance

R = np.array([[1, 2, 3, 4, 5], [2, 1, 3, 5, 4], [5, 4, 3, 2, 1]])


def test_spearman_full_hand():
    # (0,1): Σd² = 4 → 1 − 24/120 = 0.8; (0,2): −1; (1,2) by the same formula
    rho = [1 - 6 * np.sum((R[i] - R[j]) ** 2) / (5 * 24) for i, j in [(0, 1), (0, 2), (1, 2)]]
    assert spearman(R) == pytest.approx(np.mean(rho))
    assert rho[0] == pytest.approx(0.8)


def test_kendall_full_hand():
    taus = [stats.kendalltau(R[i], R[j]).statistic for i, j in [(0, 1), (0, 2), (1, 2)]]
    assert kendall(R) == pytest.approx(np.mean(taus))
    assert taus[0] == pytest.approx(1 - 4 * 2 / 20)        # two discordant pairs


def test_top_k():
    A = np.array([[1, 2, 3, 4, 5, 6], [2, 1, 3, 4, 5, 6]])
    # k = 2: same set, swapped order: over the union {0,1} positions (1,2) vs (2,1)
    assert spearman(A, k=2) == pytest.approx(-1.0)
    assert kendall(A, k=2) == pytest.approx(-1.0)
    # k = 3: union {0,1,2}: (1,2,3) vs (2,1,3)
    assert spearman(A, k=3) == pytest.approx(np.corrcoef([1, 2, 3], [2, 1, 3])[0, 1])
    B = np.array([[1, 2, 3, 4, 5, 6], [3, 4, 5, 6, 1, 2]])
    # disjoint top-2 lists: union {0,1,4,5}: (1,2,3,3) vs (3,3,1,2)
    assert spearman(B, k=2) == pytest.approx(np.corrcoef([1, 2, 3, 3], [3, 3, 1, 2])[0, 1])
    assert kendall(B, k=2) == pytest.approx(
        stats.kendalltau([1, 2, 3, 3], [3, 3, 1, 2]).statistic)
    # identical top-1
    assert spearman(np.array([[1, 2, 3], [1, 3, 2]]), k=1) == 1.0
    assert spearman(np.array([[1, 2, 3], [1, 3, 2]]), k=3) == pytest.approx(0.5)


def test_identical_rankings_and_chance():
    rng = np.random.default_rng(0)
    perm = rng.permutation(20) + 1
    assert spearman(np.tile(perm, (3, 1))) == pytest.approx(1.0)
    assert kendall(np.tile(perm, (3, 1))) == pytest.approx(1.0)
    rand = np.array([rng.permutation(50) + 1 for _ in range(40)])
    assert abs(spearman(rand)) < 0.02
    assert abs(kendall(rand)) < 0.02


def test_pearson_and_weight_variance():
    W = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.5], [3.0, 2.0, 1.0]])
    r = [np.corrcoef(W[i], W[j])[0, 1] for i, j in [(0, 1), (0, 2), (1, 2)]]
    assert pearson(W) == pytest.approx(np.mean(r))
    assert weight_variance(W) == pytest.approx(np.mean(W.var(axis=0)))
    Wn = np.abs(W) / np.abs(W).sum(1, keepdims=True)
    assert weight_variance(W, normalize=True) == pytest.approx(np.mean(Wn.var(axis=0)))
    assert weight_variance(np.tile(W[0], (4, 1))) == 0.0
    # seed 000 eq. 3.3 by hand for one feature: values 1, 2, 3 -> variance 2/3
    assert weight_variance(np.array([[1.0], [2.0], [3.0]])) == pytest.approx(2 / 3)


def test_f_measure():
    assert f_measure(0.5, 0.9) == pytest.approx(2 * 0.45 / 1.4)
    assert f_measure(0.0, 0.0) == 0.0
    np.testing.assert_allclose(f_measure([0.5, 1.0], 0.8), [0.8 / 1.3, 1.6 / 1.8])
    with pytest.raises(StablefsError, match="stability in \\[0, 1\\]"):
        f_measure(-0.1, 0.9)


def test_errors():
    with pytest.raises(StablefsError, match="at least two"):
        spearman(R[:1])
    with pytest.raises(StablefsError, match="constant"):
        spearman(np.array([[1, 1, 1], [1, 2, 3]]))
    with pytest.raises(StablefsError, match="constant"):
        pearson(np.array([[1.0, 1.0], [1.0, 2.0]]))
    with pytest.raises(StablefsError, match="k = 9"):
        kendall(R, k=9)
    with pytest.raises(StablefsError, match="missing"):
        spearman(np.array([[1, np.nan], [1, 2]]))
    with pytest.raises(StablefsError, match="all zero"):
        weight_variance(np.array([[0.0, 0.0], [1.0, 2.0]]), normalize=True)
