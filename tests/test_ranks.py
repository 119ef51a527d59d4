"""Ranks over data sets (stablefs.evaluation.ranks) against Demšar (2006) and our own
references of the Friedman statistic, the Nemenyi test and Holm's procedure."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from stablefs._errors import StablefsError
from stablefs.evaluation.ranks import (
    bayes_signed_rank,
    friedman,
    friedman_reference,
    holm_vs_control,
    nemenyi_cd,
    nemenyi_pvalues,
    nemenyi_q,
    rank_blocks,
    rank_tables,
)

pytest.importorskip("scikit_posthocs", reason="the optional extra stablefs[benchmark]")
pytest.importorskip("baycomp", reason="the optional extra stablefs[benchmark]")

#: Demšar (2006), Table 6: AUC of C4.5, C4.5+m, C4.5+cf and C4.5+m+cf on 14 UCI data sets
#: (adult, breast cancer, breast cancer wisconsin, cmc, ionosphere, iris, liver disorders,
#: lung cancer, lymphography, mushroom, primary tumor, rheum, voting, wine), as printed
DEMSAR_AUC = np.array([
    [0.763, 0.768, 0.771, 0.798], [0.599, 0.591, 0.590, 0.569], [0.954, 0.971, 0.968, 0.967],
    [0.628, 0.661, 0.654, 0.657], [0.882, 0.888, 0.886, 0.898], [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685], [0.583, 0.583, 0.563, 0.625], [0.775, 0.838, 0.866, 0.875],
    [1.000, 1.000, 1.000, 1.000], [0.940, 0.962, 0.965, 0.962], [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.975, 0.975], [0.957, 0.978, 0.946, 0.970],
])
#: the mean ranks Demšar prints: 3.143, 2.000, 2.893, 1.964
DEMSAR_RANKS = np.array([44.0, 28.0, 40.5, 27.5]) / 14


def _tie_corrected_chi2(scores) -> float:
    """Our own reference of the tie-corrected Friedman statistic: Demšar's chi2_F on the
    mid-ranks divided by 1 - sum(t^3 - t) / (N (k^3 - k)) over the tie groups of every
    block (Hollander and Wolfe's correction)."""
    r = rank_blocks(scores)
    n, k = r.shape
    chi2, _ = friedman_reference(r.mean(axis=0), n)
    ties = 0.0
    for row in np.round(np.asarray(scores, float), 12):
        _, counts = np.unique(row, return_counts=True)
        ties += float(np.sum(counts**3 - counts))
    return chi2 / (1 - ties / (n * (k**3 - k)))


def test_demsar_example_friedman_and_cd():
    # the printed table rounds voting's C4.5+cf and C4.5+m+cf to the same 0.975; Demšar's
    # ranks (from unrounded AUCs) put C4.5+cf ahead there: break that one tie his way
    table = DEMSAR_AUC.copy()
    table[12, 2] += 1e-4
    mean = rank_blocks(table).mean(axis=0)
    np.testing.assert_allclose(mean, DEMSAR_RANKS, atol=1e-12)
    np.testing.assert_allclose(np.round(mean, 3), [3.143, 2.000, 2.893, 1.964])
    chi2, F = friedman_reference(mean, 14)
    assert round(chi2, 2) == 9.28 and round(F, 2) == 3.69  # Demšar 2006, sec. 3.2.2
    # F(3, 39) critical value 2.85 at alpha 0.05: the null hypothesis is rejected
    assert stats.f.ppf(0.95, 3, 39) == pytest.approx(2.85, abs=0.01) and F > 2.85
    assert nemenyi_cd(4, 14) == pytest.approx(2.569 * math.sqrt(4 * 5 / (6 * 14)), abs=1e-3)
    assert round(nemenyi_cd(4, 14), 2) == 1.25
    # the library's statistic (tie-corrected) equals our corrected reference
    res = friedman(table)
    assert res.test == "friedman" and res.n_blocks == 14 and res.n_methods == 4
    assert res.statistic == pytest.approx(_tie_corrected_chi2(table), rel=1e-12)
    assert res.statistic > chi2  # ties (mushroom, ...) make the corrected statistic larger
    n, k = 14, 4
    F_id = (n - 1) * res.statistic / (n * (k - 1) - res.statistic)
    assert res.iman_davenport == pytest.approx(F_id, rel=1e-12)
    assert res.p_iman_davenport == pytest.approx(stats.f.sf(F_id, k - 1, (k - 1) * (n - 1)))
    assert res.p_value == pytest.approx(stats.chi2.sf(res.statistic, k - 1))


def test_demsar_holm_with_control():
    # Demšar 2006, sec. 3.2.2: C4.5+m+cf as the control, SE = sqrt(4*5/(6*14)) = 0.488
    p, p_holm = holm_vs_control(DEMSAR_RANKS, 14, control=3)
    se = math.sqrt(20 / 84)
    z = (DEMSAR_RANKS - DEMSAR_RANKS[3]) / se
    assert np.round(z[:3], 2).tolist() == [2.42, 0.07, 1.90]
    hand = [2 * (1 - stats.norm.cdf(abs(v))) for v in z[:3]]
    np.testing.assert_allclose(p[:3], hand, rtol=1e-12)
    assert np.isnan(p[3]) and np.isnan(p_holm[3])
    # Holm by hand: sorted 0.016 (x3), 0.057 (x2, running max), 0.942 (x1, running max)
    order = np.argsort(p[:3])
    adj = np.maximum.accumulate(np.minimum(1, (3 - np.arange(3)) * p[:3][order]))
    expect = np.empty(3)
    expect[order] = adj
    np.testing.assert_allclose(p_holm[:3], expect, rtol=1e-12)
    assert p_holm[0] < 0.05 < p_holm[2]  # C4.5 differs from the control, C4.5+cf does not


def test_nemenyi_q_matches_demsar_table():
    table = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]  # Table 5(a)
    for k, q in zip(range(2, 11), table):
        assert nemenyi_q(k) == pytest.approx(q, abs=2e-3)
    assert nemenyi_q(4, alpha=0.10) == pytest.approx(2.291, abs=2e-3)  # Table 5(a), 0.10


def _nemenyi_reference(scores) -> np.ndarray:
    """Our own Nemenyi p-values: the studentized range survival function of
    |R_i - R_j| / sqrt(k(k+1)/(6N)) * sqrt(2), infinite df."""
    r = rank_blocks(scores)
    n, k = r.shape
    R = r.mean(axis=0)
    q = np.abs(R[:, None] - R[None, :]) / math.sqrt(k * (k + 1) / (6 * n)) * math.sqrt(2)
    out = stats.studentized_range.sf(q, k, np.inf)
    np.fill_diagonal(out, 1.0)
    return out


def test_nemenyi_pvalues_against_reference_and_cd():
    rng = np.random.default_rng(3)
    scores = rng.uniform(size=(12, 5)) + np.linspace(0, 0.6, 5)
    names = list("abcde")
    pv = nemenyi_pvalues(scores, names)
    assert list(pv.index) == names and list(pv.columns) == names
    np.testing.assert_allclose(pv.to_numpy(), _nemenyi_reference(scores), atol=1e-6)
    # a pair differs at 0.05 exactly when its mean ranks differ by more than the CD
    R = rank_blocks(scores).mean(axis=0)
    cd = nemenyi_cd(5, 12)
    for i in range(5):
        for j in range(i + 1, 5):
            assert (abs(R[i] - R[j]) > cd) == (pv.iloc[i, j] < 0.05)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 9), st.integers(3, 7), st.integers(0, 10**6))
def test_friedman_equals_reference_without_ties(n, k, seed):
    scores = np.random.default_rng(seed).permuted(
        np.tile(np.arange(k, dtype=float), (n, 1)), axis=1)
    res = friedman(scores)
    chi2, F = friedman_reference(rank_blocks(scores).mean(axis=0), n)
    assert res.statistic == pytest.approx(chi2, rel=1e-9, abs=1e-9)
    if math.isfinite(F):
        assert res.iman_davenport == pytest.approx(F, rel=1e-9, abs=1e-9)


def test_rank_blocks_mid_ranks_and_direction():
    r = rank_blocks([[0.9, 0.8, 0.9, 0.1]])
    assert r.tolist() == [[1.5, 3.0, 1.5, 4.0]]
    assert rank_blocks([[0.9, 0.8]], higher_is_better=False).tolist() == [[2.0, 1.0]]
    # floating-point noise does not break a tie
    assert rank_blocks([[0.1 + 0.2, 0.3]]).tolist() == [[1.5, 1.5]]
    with pytest.raises(StablefsError, match="missing"):
        rank_blocks([[0.1, np.nan]])


def test_friedman_two_methods_uses_wilcoxon_and_degenerate_cases():
    a = np.array([[0.9, 0.8], [0.7, 0.6], [0.8, 0.75], [0.6, 0.62], [0.9, 0.7], [0.5, 0.4]])
    res = friedman(a)
    ref = stats.wilcoxon(a[:, 0] - a[:, 1], zero_method="pratt")
    assert res.test == "wilcoxon" and res.p_value == pytest.approx(ref.pvalue)
    assert friedman(a[:1]).test == "none"
    same = friedman(np.tile([[0.5, 0.5, 0.5]], (4, 1)))
    assert same.p_value == 1.0 and same.statistic == 0.0
    perfect = friedman(np.tile([[0.9, 0.5, 0.1]], (4, 1)))  # the same order everywhere
    assert perfect.iman_davenport == math.inf and perfect.p_iman_davenport == 0.0


def test_bayes_signed_rank_direction_and_seed():
    best = np.array([0.90, 0.85, 0.80, 0.95, 0.70, 0.88])
    worse = best - np.array([0.10, 0.08, 0.12, 0.09, 0.11, 0.10])
    p = bayes_signed_rank(best, worse, rope=0.01, seed=1)
    assert p[0] > 0.9 and p[2] < 0.05 and sum(p) == pytest.approx(1.0)
    assert bayes_signed_rank(best, worse, rope=0.01, seed=1) == p  # seeded
    q = bayes_signed_rank(best, best + 0.001, rope=0.01, seed=1)
    assert q[1] == pytest.approx(1.0)  # inside the rope everywhere
    assert all(np.isnan(bayes_signed_rank(best[:1], worse[:1], rope=0.01)))


def _cells(values: dict) -> pd.DataFrame:
    rows = [(s, m, 10, "nogueira", v, v - 0.1, v + 0.1)
            for s, row in values.items() for m, v in row.items()]
    return pd.DataFrame(rows, columns=["set", "method", "k", "measure", "estimate", "low",
                                       "high"])


def test_rank_tables_name_every_method_tied_for_best():
    """Three methods with the same mean rank: friedman.csv names all three, none singled out;
    the leaderboard bolds all three and says they tie."""
    from stablefs.report.leaderboard import _best_text

    cells = _cells({
        "s1": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.1},
        "s2": {"a": 0.7, "b": 0.9, "c": 0.8, "d": 0.2},
        "s3": {"a": 0.8, "b": 0.7, "c": 0.9, "d": 0.3},
    })
    ranks, tests = rank_tables(cells, ["nogueira"], seed=0)
    overall = ranks[ranks["scope"] == "overall"].set_index("method")["rank"]
    assert overall["a"] == overall["b"] == overall["c"] == 2.0 and overall["d"] == 4.0
    assert tests.iloc[0]["best"] == "a;b;c"
    assert _best_text(tests.iloc[0]["best"]) == "a, b, c (3 tied)"
    assert _best_text("a") == "a"
    single = rank_tables(_cells({"s1": {"a": 0.9, "b": 0.8}, "s2": {"a": 0.7, "b": 0.6}}),
                         ["nogueira"], seed=0)[1]
    assert single.iloc[0]["best"] == "a"


def test_rank_tables_by_hand():
    cells = _cells({
        "s1": {"a": 0.9, "b": 0.5, "c": 0.7},
        "s2": {"a": 0.8, "b": 0.8, "c": 0.1},
        "s3": {"a": 0.6, "b": 0.7, "c": 0.2},
        "s4": {"a": 0.5, "b": 0.4},  # c missing: ranked within s4, left out overall
    })
    ranks, tests = rank_tables(cells, ["nogueira"], seed=0)
    per = ranks[ranks["scope"] == "s1"].set_index("method")["rank"].to_dict()
    assert per == {"a": 1.0, "c": 2.0, "b": 3.0}
    assert ranks[ranks["scope"] == "s2"].set_index("method")["rank"].to_dict() == {
        "a": 1.5, "b": 1.5, "c": 3.0}
    assert ranks[ranks["scope"] == "s4"].set_index("method")["rank"].to_dict() == {
        "a": 1.0, "b": 2.0}
    overall = ranks[ranks["scope"] == "overall"].set_index("method")
    np.testing.assert_allclose(overall.loc[["a", "b", "c"], "rank"],
                               [(1 + 1.5 + 2) / 3, (3 + 1.5 + 1) / 3, (2 + 3 + 3) / 3])
    assert (overall["n_sets"] == 3).all()
    assert np.isnan(overall.loc["a", "p_nemenyi"])  # the best is the control
    assert overall.loc["c", "p_holm"] < overall.loc["b", "p_holm"]
    assert 0 <= overall.loc["c", "p_best_better"] <= 1
    row = tests.iloc[0]
    assert row["best"] == "a" and row["sets_left_out"] == "s4" and row["n_sets"] == 3
    assert row["cd_nemenyi"] == pytest.approx(nemenyi_cd(3, 3))
    ref = friedman(np.array([[0.9, 0.5, 0.7], [0.8, 0.8, 0.1], [0.6, 0.7, 0.2]]))
    assert row["statistic"] == pytest.approx(ref.statistic)
