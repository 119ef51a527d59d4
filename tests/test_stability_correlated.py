"""Similarity-adjusted measures: nPOGR, Zucknick, intersection count, Sechidis."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from stablefs import StablefsError
from stablefs.stability import (
    intersection_count,
    kuncheva,
    nogueira,
    npogr,
    sechidis,
    unadjusted,
    zucknick,
)
from stablefs.stability.correlated import (
    _Blocks,
    _critical_r,
    _npogr_overlaps,
    _npogr_pairs,
    standardized_columns,
)


@pytest.fixture(scope="module")
def X():
    """40 samples × 30 features: 0–3 ≈ latent z1, 4–7 ≈ z2, 8–11 z1 + growing noise
    (moderate correlations, to exercise every branch of the BH step), 12–29 noise."""
    rng = np.random.default_rng(0)
    n = 40
    z1, z2 = rng.standard_normal(n), rng.standard_normal(n)
    cols = [z1 + 0.2 * rng.standard_normal(n) for _ in range(4)]
    cols += [z2 + 0.2 * rng.standard_normal(n) for _ in range(4)]
    cols += [z1 + s * rng.standard_normal(n) for s in (1.0, 1.5, 2.0, 2.5)]
    cols += [rng.standard_normal(n) for _ in range(18)]
    return np.column_stack(cols)


def _reference_O(X, Si, Sj, q):
    """Independent implementation: scipy's one-sided pearsonr and BH adjustment."""
    shared = set(Si) & set(Sj)
    tests = [(x, y) for x in Si for y in Sj
             if x != y and not (x in shared and y in shared)]
    if not tests:
        return 0.0
    pv = np.array([stats.pearsonr(X[:, x], X[:, y], alternative="greater").pvalue
                   for x, y in tests])
    sig = stats.false_discovery_control(pv, method="bh") <= q
    o_ij = {x for (x, y), s in zip(tests, sig) if s and x not in shared}
    o_ji = {y for (x, y), s in zip(tests, sig) if s and y not in shared}
    return (len(o_ij) + len(o_ji)) / 2


@pytest.mark.parametrize("q", [0.001, 0.05])
def test_npogr_O_matches_scipy_reference(X, q):
    rng = np.random.default_rng(1)
    p = X.shape[1]
    ia = np.array([rng.choice(p, 5, replace=False) for _ in range(150)])
    ib = np.array([rng.choice(p, 5, replace=False) for _ in range(150)])
    ib[:20] = ia[:20]                                   # identical pairs
    ib[20:40, :2] = ia[20:40, :2]                       # partial overlaps
    ib[20:40] = np.array([np.r_[a[:2], rng.choice(np.setdiff1d(np.arange(p), a), 3,
                                                   replace=False)] for a in ia[20:40]])
    n = X.shape[0]
    r, O = _npogr_overlaps(_Blocks(standardized_columns(X)), ia, ib, q,
                           float(_critical_r(q, n)), n)
    expected = [_reference_O(X, list(a), list(b), q) for a, b in zip(ia, ib)]
    np.testing.assert_array_equal(O, expected)
    np.testing.assert_array_equal(r, [len(set(a) & set(b)) for a, b in zip(ia, ib)])


@pytest.mark.parametrize("q", [0.001, 0.05])
def test_npogr_O_from_union_table_matches_scipy_reference(X, q):
    """The union path (correlations and p-values tabulated once per feature pair) gives the
    reference's counts, like the per-block path above."""
    rng = np.random.default_rng(2)
    p, n = X.shape[1], X.shape[0]
    ia = np.array([rng.choice(p, 6, replace=False) for _ in range(120)])
    ib = np.array([rng.choice(p, 6, replace=False) for _ in range(120)])
    ib[:15] = ia[:15]
    blocks = _Blocks(standardized_columns(X), np.arange(p))
    r, O = _npogr_overlaps(blocks, ia, ib, q, float(_critical_r(q, n)), n)
    expected = [_reference_O(X, list(a), list(b), q) for a, b in zip(ia, ib)]
    np.testing.assert_array_equal(O, expected)
    np.testing.assert_array_equal(r, [len(set(a) & set(b)) for a, b in zip(ia, ib)])


def test_npogr_expected_correlated_skips_only_the_monte_carlo(X):
    rng = np.random.default_rng(3)
    subsets = [rng.choice(X.shape[1], 8, replace=False) for _ in range(12)]
    first, e_o = _npogr_pairs(subsets, X, fdr=0.05, n_pairs=500, random_state=4)
    again, e_o2 = _npogr_pairs(subsets, X, fdr=0.05, n_pairs=500, random_state=4,
                               expected_correlated=e_o)
    assert e_o2 == e_o
    np.testing.assert_array_equal(again.values, first.values)
    shifted, _ = _npogr_pairs(subsets, X, fdr=0.05, n_pairs=500, random_state=4,
                              expected_correlated=e_o + 0.5)
    assert not np.array_equal(shifted.values, first.values)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bh_step_equals_scipy_per_block(seed):
    """The BH step of every block (sure rejections, p-values only for the rest, the
    candidates that cannot pass dropped before the sort) against scipy's adjusted p-values."""
    from stablefs.stability.correlated import _bh_significant, _pvalue_r

    rng = np.random.default_rng(seed)
    n, q = 30, 0.05
    R = rng.uniform(-0.2, 0.75, size=(40, 7, 9))
    R[::3] *= 0.5                                   # blocks with few candidates
    family = rng.random(R.shape) < 0.9
    family[5] = False                               # an empty family
    G = _bh_significant(R.copy(), family, q, n, float(_critical_r(q, n)))
    for b in range(R.shape[0]):
        expected = np.zeros(R.shape[1:], dtype=bool)
        if family[b].any():
            pv = _pvalue_r(R[b][family[b]], n)
            expected[family[b]] = stats.false_discovery_control(pv, method="bh") <= q
        np.testing.assert_array_equal(G[b], expected)


def test_npogr_hand_example(X):
    s1, s2 = [0, 4, 20], [1, 5, 21]          # r = 0; 0~1 and 4~5 strongly correlated
    scores, e_o = _npogr_pairs([s1, s2], X, fdr=0.001, n_pairs=2000, random_state=0)
    O = _reference_O(X, s1, s2, 0.001)
    assert O == 2
    e_r = 9 / 30
    assert scores.mean == pytest.approx((0 + O - e_r - e_o) / (3 - e_r - e_o))
    assert npogr([s1, s2], X, n_pairs=2000) == pytest.approx(scores.mean)
    assert npogr([s1, s2], X, n_pairs=2000) > kuncheva([s1, s2], 30)


def test_npogr_eo_is_the_mean_over_random_pairs(X):
    _, e_o = _npogr_pairs([[0, 1, 2], [3, 4, 5]], X, fdr=0.001, n_pairs=4000, random_state=3)
    rng = np.random.default_rng(11)
    ref = np.mean([_reference_O(X, list(rng.choice(30, 3, replace=False)),
                                list(rng.choice(30, 3, replace=False)), 0.001)
                   for _ in range(400)])
    assert e_o == pytest.approx(ref, abs=0.08)


def test_npogr_properties(X):
    same = [[0, 8, 15]] * 3
    assert npogr(same, X, n_pairs=500) == pytest.approx(1.0)
    # reproducible by seed, reference form
    subs = [[0, 8, 15], [1, 9, 16], [2, 4, 17]]
    assert npogr(subs, X, n_pairs=500, random_state=5) == npogr(subs, X, n_pairs=500,
                                                                random_state=5)
    ref = npogr(subs, X, n_pairs=500, reference=[0, 8, 15])
    assert -1 < ref <= 1


def test_npogr_without_correlation_is_kuncheva():
    rng = np.random.default_rng(2)
    Xn = rng.standard_normal((12, 40))
    subs = [rng.choice(40, 6, replace=False) for _ in range(5)]
    # with n = 12 nothing passes BH at 0.1 %: nPOGR reduces to Kuncheva
    assert npogr(subs, Xn, n_pairs=300) == pytest.approx(kuncheva(subs, 40))


def test_npogr_errors(X):
    with pytest.raises(StablefsError, match="equal size"):
        npogr([[0, 1], [2, 3, 4]], X)
    with pytest.raises(StablefsError, match="pass X"):
        npogr([[0, 1], [2, 3]], None)
    with pytest.raises(StablefsError, match="feature columns"):
        npogr(np.zeros((2, 12), bool), X)
    with pytest.raises(StablefsError, match="0 < k < p"):
        npogr([[], []], X)
    with pytest.raises(StablefsError, match="fdr"):
        npogr([[0, 1], [2, 3]], X, fdr=0)
    Xnan = X.copy()
    Xnan[0, 0] = np.nan
    with pytest.raises(StablefsError, match="missing"):
        npogr([[0, 1], [2, 3]], Xnan)


def test_zucknick_hand_example(X):
    s1, s2 = [0, 4, 20], [1, 5, 21]
    R = np.corrcoef(X.T)
    A = np.where(np.abs(R) >= 0.9, np.abs(R), 0.0)
    c12 = sum(A[x, y] for x in s1 for y in s2) / 3
    c21 = sum(A[y, x] for y in s2 for x in s1) / 3
    assert zucknick([s1, s2], X) == pytest.approx((0 + c12 + c21) / 6)
    assert zucknick([[0, 4], [0, 4]], X) == pytest.approx(1.0)
    # no feature pair reaches the threshold: Jaccard
    assert zucknick([[20, 21], [21, 22]], X) == pytest.approx(1 / 3)


def test_intersection_count(X):
    s1, s2 = [0, 4, 20], [1, 5, 21]
    v = intersection_count([s1, s2], X, n_pairs=3000)
    assert 0.5 < v <= 1                     # I = 0 + min(2, 2) = 2 of 3
    assert intersection_count([s1, s1], X, n_pairs=200) == pytest.approx(1.0)
    rng = np.random.default_rng(4)
    subs = [list(rng.choice(30, 4, replace=False)) for _ in range(4)]
    Xn = rng.standard_normal((40, 30))
    assert (np.abs(np.corrcoef(Xn.T)) - np.eye(30)).max() < 0.9
    # no correlated pair anywhere in the data: exactly the unadjusted measure
    assert intersection_count(subs, Xn, n_pairs=100) == pytest.approx(unadjusted(subs, 30))


def _sechidis_bruteforce(Z, X, thr):
    m, p = Z.shape
    S = np.cov(Z.T.astype(float), ddof=1)
    R = np.abs(np.corrcoef(X.T))
    C = np.where(thr <= R, R, 0.0)
    np.fill_diagonal(C, 1.0)
    kbar = Z.sum(1).mean()
    Sigma0 = np.full((p, p), (kbar**2 - kbar) / (p**2 - p) - kbar**2 / p**2)
    np.fill_diagonal(Sigma0, kbar / p * (1 - kbar / p))
    return 1 - np.trace(C @ S) / np.trace(C @ Sigma0)


def test_sechidis_against_brute_force(X):
    rng = np.random.default_rng(5)
    Z = np.zeros((6, 30), bool)
    for i in range(6):
        Z[i, rng.choice(12, rng.integers(2, 6), replace=False)] = True
    exact = sechidis(Z, X, n_pairs=None)
    assert exact == pytest.approx(_sechidis_bruteforce(Z, X, 0.9), abs=1e-12)
    assert sechidis(Z, X, n_pairs=200_000) == pytest.approx(exact, abs=0.01)


def test_sechidis_reduces_to_nogueira(X):
    rng = np.random.default_rng(6)
    Z = np.zeros((5, 30), bool)
    for i in range(5):
        Z[i, 12 + rng.choice(18, 4, replace=False)] = True
    Xn = X.copy()
    Xn[:, :12] = rng.standard_normal((40, 12))          # no |r| >= 0.9 anywhere
    assert sechidis(Z, Xn, n_pairs=None) == pytest.approx(nogueira(Z), abs=1e-12)


def test_correlated_measures_on_lung(shared_data):
    """Real data (Lung, 181 × 12533): 30 bootstrap t-test signatures of 50 genes."""
    df = pd.read_csv(shared_data / "lung.csv.gz", dtype={"label": str})
    y = df["label"].to_numpy()
    Xl = df.drop(columns="label").to_numpy(float)
    major = pd.Series(y).value_counts().index[0]
    rng = np.random.default_rng(0)
    subsets = []
    for _ in range(30):
        b = rng.integers(0, len(y), len(y))
        Xb, yb = Xl[b], y[b] == major
        t = stats.ttest_ind(Xb[yb], Xb[~yb], equal_var=False).statistic
        subsets.append(np.argsort(-np.abs(np.nan_to_num(t)), kind="stable")[:50])
    v = npogr(subsets, Xl, n_pairs=3000)        # timing: benchmarks/bench_stability.py
    k = kuncheva(subsets, Xl.shape[1])
    assert k < v <= 1


def test_npogr_warns_when_chance_correlation_fills_the_subsets():
    """Broadly correlated genes (one shared factor): nearly every random gene is significantly
    correlated with some gene of another random subset, so E(O) approaches k."""
    import warnings

    rng = np.random.default_rng(0)
    factor = rng.normal(size=(60, 1))
    X = 0.85 * factor + rng.normal(size=(60, 200))  # E(r) + E(O) ~ 9.3 of k = 10
    subsets = [rng.choice(200, 10, replace=False) for _ in range(4)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        npogr(subsets, X, n_pairs=200)
    assert any("ill-conditioned" in str(w.message) for w in caught)
