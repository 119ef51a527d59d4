"""Statistics for comparing methods: paired tests, Holm, the two-sample stability test,
bootstrap intervals of pairwise stability, and comparisons.csv of a run."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from stablefs._errors import StablefsError
from stablefs._runtime.rundir import RUN_FILES
from stablefs.evaluation import (
    COMPARISON_COLUMNS,
    Resample,
    bootstrap_pair_interval,
    compare_methods,
    corrected_resampled_ttest,
    dietterich_5x2cv_ttest,
    holm,
    interval_kind,
    is_five_by_two,
    run_experiment,
    stability_interval,
    stability_two_sample_test,
    wilcoxon_test,
)
from stablefs.evaluation.outputs import read_csv, read_result, save_result
from stablefs.evaluation.statistics import (
    signed_rank_permutation_p,
    signed_rank_pratt,
)
from stablefs.stability import measure_interval, measure_pair_scores, nogueira, nogueira_variance
from stablefs.stability.subsets import pair_scores

finite = st.floats(-1, 1, allow_nan=False, width=32)


# ----------------------------------------------------------------------------- Wilcoxon
def test_wilcoxon_hand_computed():
    # d = 1, -2, 3, 4, 5: W- = 2, W+ = 13; exact P(W <= 2) = #{{}, {1}, {2}} / 2^5 = 3/32
    res = wilcoxon_test([1, 2, 3, 4, 5], [0, 4, 0, 0, 0])
    assert res.statistic == 2.0
    assert res.p_value == pytest.approx(2 * 3 / 32)
    assert res.mean_difference == pytest.approx(2.2)
    assert res.n == 5


def test_wilcoxon_zeros_ties_and_nan():
    a = np.array([0.9, 0.8, 0.8, 0.7, 0.95, 0.85, np.nan, 0.6])
    b = np.array([0.8, 0.8, 0.7, 0.6, 0.85, 0.80, 0.9, 0.7])
    res = wilcoxon_test(a, b)
    # d = .1, 0, .1, .1, .1, .05, -.1 (the NaN pair left out). Pratt: ranks of |d| with the
    # zero: 0 -> 1, .05 -> 2, the five .1 -> mid-rank 5; the zero dropped: W+ = 2 + 4 * 5 = 22,
    # W- = 5 (Wilcoxon's "wilcox" rule would drop the zero first: W- = 4).
    assert res.n == 7
    assert res.statistic == 5.0
    d = np.array([0.1, 0, 0.1, 0.1, 0.1, 0.05, -0.1])
    ref = stats.wilcoxon(d, zero_method="pratt", method="auto")
    assert res.p_value == pytest.approx(ref.pvalue)
    assert stats.wilcoxon(d, zero_method="wilcox").statistic == 4.0
    same = wilcoxon_test([0.5, 0.6, 0.7], [0.5, 0.6, 0.7])
    assert (same.statistic, same.p_value) == (0.0, 1.0)
    assert np.isnan(wilcoxon_test([1.0], [0.0]).p_value)


def test_wilcoxon_exact_permutation_matches_scipy():
    # ties and zeros with n <= 13: scipy >= 1.15 runs a permutation test over all 2^n signs
    # (about 1 s a call); signed_rank_pratt forms the same null vectorised. Accuracies in
    # steps of 1/30 (test parts of 30) give the ties and zeros of real runs.
    rng = np.random.default_rng(3)
    seen = set()
    for trial in range(41):  # scipy's own takes up to seconds a call: small n but one 13
        n = 13 if trial == 0 else int(rng.integers(2, 10))
        d = np.round((rng.integers(-3, 4, size=n) + rng.integers(0, 2, size=n) * 0.5) / 30, 12)
        if not np.any(d):
            continue
        ref = stats.wilcoxon(d, zero_method="pratt", alternative="two-sided", method="auto")
        statistic, p = signed_rank_pratt(d)
        assert statistic == float(ref.statistic)
        assert p == pytest.approx(float(ref.pvalue), rel=1e-12, abs=1e-15), (trial, d)
        seen.add((n, bool(np.any(d == 0)), np.unique(np.abs(d)).size < n))
    assert {(z, t) for _, z, t in seen} >= {(True, True), (False, True)}


def test_wilcoxon_exact_permutation_hand_computed():
    # d = 1, 1, -2 (a tie): ranks 1.5, 1.5, 3; W+ = 3 over the 8 subsets of {1.5, 1.5, 3}:
    # sums 0, 1.5, 1.5, 3, 3, 4.5, 4.5, 6: P(W+ <= 3) = 5/8, P(W+ >= 3) = 5/8 -> p = 1
    assert signed_rank_permutation_p(np.array([1.5, 1.5, 3.0]), 3.0) == 1.0
    # W+ = 6 (all positive): P(W+ >= 6) = 1/8 -> p = 1/4
    assert signed_rank_permutation_p(np.array([1.5, 1.5, 3.0]), 6.0) == 0.25
    res = wilcoxon_test([1.0, 1.0, 0.0], [0.0, 0.0, 2.0])
    assert (res.statistic, res.p_value) == (3.0, 1.0)


def test_paired_shape_errors():
    with pytest.raises(StablefsError, match="equal length"):
        wilcoxon_test([1, 2, 3], [1, 2])
    with pytest.raises(StablefsError, match="positive"):
        corrected_resampled_ttest([1, 2, 3], [1, 2, 2], n_train=0, n_test=5)
    with pytest.raises(StablefsError, match="5 replications"):
        dietterich_5x2cv_ttest(np.zeros(8), np.zeros(8))


# --------------------------------------------------------------- Nadeau and Bengio 2003
def test_corrected_t_hand_computed():
    # d = 1, 2, 3: mean 2, s^2 = 1, J = 3, n_test/n_train = 1/2 -> var = (1/3 + 1/2) = 5/6
    res = corrected_resampled_ttest([1, 2, 3], [0, 0, 0], n_train=20, n_test=10)
    t = 2 / np.sqrt(5 / 6)
    assert res.statistic == pytest.approx(t)
    assert res.p_value == pytest.approx(2 * stats.t.sf(t, 2))
    assert res.n == 3


def test_corrected_t_reduces_to_paired_t_and_slow_reference():
    rng = np.random.default_rng(4)
    a, b = rng.normal(0.8, 0.05, 30), rng.normal(0.78, 0.05, 30)
    # without the overlap term it is scipy's paired t-test
    plain = corrected_resampled_ttest(a, b, n_train=1.0, n_test=1e-300)
    ref = stats.ttest_rel(a, b)
    assert plain.statistic == pytest.approx(ref.statistic)
    assert plain.p_value == pytest.approx(ref.pvalue)
    # the correction, written out term by term (10-fold: n_test / n_train = 1/9)
    d = [x - y for x, y in zip(a, b, strict=True)]
    mean = sum(d) / len(d)
    s2 = sum((x - mean) ** 2 for x in d) / (len(d) - 1)
    t = mean / (s2 * (1 / len(d) + 6 / 54)) ** 0.5
    res = corrected_resampled_ttest(a, b, n_train=54, n_test=6)
    assert res.statistic == pytest.approx(t)
    assert res.p_value == pytest.approx(2 * stats.t.sf(abs(t), len(d) - 1))
    assert res.p_value > plain.p_value  # the correction is conservative
    same = corrected_resampled_ttest(a, a, n_train=54, n_test=6)
    assert (same.statistic, same.p_value) == (0.0, 1.0)


# --------------------------------------------------------------------- Dietterich 1998
def test_dietterich_hand_computed():
    # p_i^(j) = a - b per replication i (rows) and fold j (columns)
    p = np.array([[0.10, 0.00], [0.02, 0.04], [0.00, 0.00], [-0.02, 0.02], [0.05, 0.01]])
    b = np.full((5, 2), 0.7)
    res = dietterich_5x2cv_ttest(b + p, b)
    # s_i^2 = (p1 - p2)^2 / 2: 0.005, 0.0002, 0, 0.0008, 0.0008 -> mean 0.00136
    t = 0.10 / np.sqrt((0.005 + 0.0002 + 0 + 0.0008 + 0.0008) / 5)
    assert res.statistic == pytest.approx(t, rel=1e-9)
    assert res.p_value == pytest.approx(2 * stats.t.sf(t, 5))
    assert res.mean_difference == pytest.approx(p.mean())
    # flat input in replication-major order gives the same
    assert dietterich_5x2cv_ttest((b + p).ravel(), b.ravel()) == res


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, (5, 2), elements=finite), arrays(np.float64, (5, 2), elements=finite))
def test_dietterich_against_slow_reference(a, b):
    res = dietterich_5x2cv_ttest(a, b)
    s2 = 0.0
    for i in range(5):
        p1, p2 = a[i, 0] - b[i, 0], a[i, 1] - b[i, 1]
        pbar = (p1 + p2) / 2
        s2 += (p1 - pbar) ** 2 + (p2 - pbar) ** 2
    num = a[0, 0] - b[0, 0]
    if s2 > 0:
        assert res.statistic == pytest.approx(num / (s2 / 5) ** 0.5, rel=1e-6, abs=1e-9)
    back = dietterich_5x2cv_ttest(b, a)  # antisymmetric, same p-value
    assert back.statistic == pytest.approx(-res.statistic, nan_ok=True)
    assert back.p_value == pytest.approx(res.p_value, nan_ok=True)


# ------------------------------------------------------------------------------- Holm
def test_holm_hand_computed():
    # sorted 0.005, 0.01, 0.03, 0.04 -> 4*0.005, 3*0.01, 2*0.03, 1*0.04 = .02 .03 .06 .04
    # running maximum -> .02 .03 .06 .06
    out = holm([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(out, [0.03, 0.06, 0.06, 0.02])
    out = holm([0.5, np.nan, 0.01])  # NaN is not part of the family (m = 2)
    np.testing.assert_allclose(out, [0.5, np.nan, 0.02])
    assert holm([0.9, 0.8]).tolist() == [1.0, 1.0]  # 2 * 0.8 capped at 1, then the max
    np.testing.assert_allclose(holm([0.02, 0.9]), [0.04, 0.9])
    assert holm([]).size == 0


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.integers(1, 12), elements=st.floats(0, 1)))
def test_holm_properties(p):
    adj = holm(p)
    assert np.all(adj >= p - 1e-15) and np.all(adj <= 1)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(adj[order]) >= -1e-15)  # monotone in p
    # slow reference: adj_(i) = max_{l <= i} min(1, (m - l + 1) p_(l))
    m = p.size
    srt = sorted(p)
    ref = [max(min(1.0, (m - l) * srt[l]) for l in range(i + 1)) for i in range(m)]
    np.testing.assert_allclose(adj[order], ref)


# -------------------------------------------------- Nogueira et al. 2018, two-sample test
def _bernoulli_system(rng, probs, m):
    return rng.random((m, probs.size)) < probs


def test_two_sample_stability_formula():
    rng = np.random.default_rng(1)
    za = _bernoulli_system(rng, np.linspace(0.05, 0.9, 30), 12)
    zb = _bernoulli_system(rng, np.full(30, 0.3), 12)
    res = stability_two_sample_test(za, zb)
    diff = nogueira(za) - nogueira(zb)
    z = diff / np.sqrt(nogueira_variance(za) + nogueira_variance(zb))
    assert res.statistic == pytest.approx(z)
    assert res.p_value == pytest.approx(2 * stats.norm.sf(abs(z)))
    assert res.mean_difference == pytest.approx(diff)
    assert res.n == 12


def test_two_sample_stability_uniform_under_h0():
    """Two systems drawn from the same selection probabilities (H0: equal stability): the
    p-values are roughly uniform. Coarse and seeded; fails if the variance were off by a
    factor of 2 (rejection rate near 0.17 or 0.006)."""
    rng = np.random.default_rng(2018)
    probs = np.concatenate([np.full(8, 0.8), np.full(32, 0.15)])
    pv = np.array([stability_two_sample_test(_bernoulli_system(rng, probs, 40),
                                             _bernoulli_system(rng, probs, 40)).p_value
                   for _ in range(300)])
    assert stats.kstest(pv, "uniform").pvalue > 0.001
    assert 0.02 <= np.mean(pv < 0.05) <= 0.10
    # and it has power against a clearly more stable system
    stable = np.concatenate([np.full(8, 0.97), np.full(32, 0.03)])
    pw = [stability_two_sample_test(_bernoulli_system(rng, stable, 40),
                                    _bernoulli_system(rng, probs, 40)).p_value
          for _ in range(50)]
    assert np.mean(np.array(pw) < 0.05) > 0.9


# ------------------------------------------------------------ bootstrap over resamples
def _slow_bootstrap(S, idx):
    """Mean over the pairs of distinct drawn results, one draw at a time."""
    out = []
    for row in idx:
        vals = [S[a, b] for x, a in enumerate(row) for b in row[x + 1:] if a != b]
        if vals:
            out.append(sum(vals) / len(vals))
    return np.array(out)


def test_bootstrap_pair_interval_against_slow_reference():
    rng = np.random.default_rng(0)
    Z = rng.random((7, 25)) < 0.3
    scores = measure_pair_scores("jaccard", Z, 25)
    S = np.zeros((7, 7))
    S[scores.i, scores.j] = scores.values
    S = S + S.T
    idx = np.random.default_rng(11).integers(0, 7, size=(200, 7))
    draws = _slow_bootstrap(S, idx)
    low, high = bootstrap_pair_interval(scores, n_boot=200, alpha=0.1, random_state=11)
    ref = np.quantile(draws, [0.05, 0.95])
    assert (low, high) == pytest.approx(tuple(ref))
    assert low <= scores.mean <= high
    again = bootstrap_pair_interval(scores, n_boot=200, alpha=0.1, random_state=11)
    assert again == (low, high)


def test_bootstrap_reference_form_and_small_m():
    rng = np.random.default_rng(3)
    Z = rng.random((6, 20)) < 0.4
    scores = pair_scores("dice", Z, 20, reference=np.flatnonzero(Z[0]))
    idx = np.random.default_rng(5).integers(0, 6, size=(300, 6))
    draws = scores.values[idx].mean(axis=1)
    low, high = bootstrap_pair_interval(scores, n_boot=300, random_state=5)
    assert (low, high) == pytest.approx(tuple(np.quantile(draws, [0.025, 0.975])))
    two = measure_pair_scores("kuncheva", [[0, 1], [1, 2]], 5)
    assert np.isnan(bootstrap_pair_interval(two)).all()
    with pytest.raises(StablefsError, match="n_boot"):
        bootstrap_pair_interval(scores, n_boot=0)
    with pytest.raises(StablefsError, match="alpha"):
        bootstrap_pair_interval(scores, alpha=1.5)


def test_stability_interval_kinds():
    rng = np.random.default_rng(8)
    Z = np.zeros((10, 40), dtype=bool)
    for r in range(10):
        Z[r, rng.choice(40, 6, replace=False)] = True
    for name in ("kuncheva", "nogueira", "somol", "jaccard"):
        est, low, high = stability_interval(name, Z, 40, random_state=1)
        assert (est, low, high) == measure_interval(name, Z, 40, random_state=1)
        assert low <= est <= high
        assert interval_kind(name) == "jackknife-t"
    X = rng.normal(size=(30, 40))
    X[:, 1] = X[:, 0] + 0.01 * rng.normal(size=30)  # a correlated pair for Zucknick
    est, low, high = stability_interval("zucknick", Z, 40, X=X, random_state=1)
    assert est == pytest.approx(measure_interval("zucknick", Z, 40, X=X)[0])
    assert low <= est <= high and interval_kind("zucknick") == "jackknife-t"
    assert interval_kind("kuncheva", "reference") == "jackknife-t"
    assert measure_pair_scores("nogueira", Z, 40) is None


# -------------------------------------------------------------- a run: comparisons.csv
def _five_by_two(n=20, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for r in range(5):
        perm = rng.permutation(n)
        halves = np.sort(perm[: n // 2]), np.sort(perm[n // 2:])
        for f in range(2):
            out.append(Resample(2 * r + f, halves[f], halves[1 - f], repeat=r, fold=f))
    return out


def test_is_five_by_two():
    rs = _five_by_two()
    assert is_five_by_two(rs)
    assert not is_five_by_two(rs[:8])
    broken = list(rs)
    broken[3] = Resample(3, rs[3].train[:-1], rs[3].test, repeat=1, fold=1)
    assert not is_five_by_two(broken)


def test_compare_methods_five_by_two_rows():
    rs = _five_by_two()
    rng = np.random.default_rng(1)
    vals = {m: rng.uniform(0.6, 0.9, 10) for m in ("a", "b", "c")}
    results = pd.DataFrame([(m, 5, r.index, "accuracy_svm", vals[m][r.index])
                            for m in vals for r in rs],
                           columns=["method", "k", "resample", "metric", "value"])
    df = compare_methods(results, None, rs, [5])
    assert df.columns.tolist() == COMPARISON_COLUMNS
    assert sorted(set(df["test"])) == ["5x2cv-t", "corrected-t", "wilcoxon"]
    assert len(df) == 3 * 3  # three pairs, three tests
    row = df[(df.method_a == "a") & (df.method_b == "c") & (df.test == "5x2cv-t")].iloc[0]
    ref = dietterich_5x2cv_ttest(vals["a"].reshape(5, 2), vals["c"].reshape(5, 2))
    assert row.statistic == pytest.approx(ref.statistic)
    row = df[(df.method_a == "b") & (df.method_b == "c") & (df.test == "corrected-t")].iloc[0]
    ref = corrected_resampled_ttest(vals["b"], vals["c"], n_train=10, n_test=10)
    assert (row.statistic, row.p_value) == pytest.approx((ref.statistic, ref.p_value))
    for _, fam in df.groupby("test"):
        np.testing.assert_allclose(fam["p_holm"], holm(fam["p_value"]))


@pytest.fixture(scope="module")
def small_run():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(36, 50))
    y = np.repeat([0, 1], 18)
    X[y == 1, :4] += 1.5
    return run_experiment(X, y, ["ttest", "fstat", "relieff"], [4, 8], n_repeats=6,
                          classifiers=("1nn",),
                          measures=("kuncheva", "nogueira", "jaccard", "somol"))


def test_run_comparisons_and_intervals(small_run, tmp_path):
    res = small_run
    comp = res.comparisons
    assert comp.columns.tolist() == COMPARISON_COLUMNS
    pairs = list(itertools.combinations(["ttest", "fstat", "relieff"], 2))
    for k in (4, 8):
        nog = comp[(comp.k == k) & (comp.metric == "nogueira")]
        assert list(zip(nog.method_a, nog.method_b, strict=True)) == pairs
        assert set(nog["test"]) == {"nogueira-z"}
        sel = res.selections
        za = np.vstack(sel[sel.method == "ttest"]["ranking"].to_list()) <= k
        zb = np.vstack(sel[sel.method == "relieff"]["ranking"].to_list()) <= k
        ref = stability_two_sample_test(za, zb)
        row = nog[nog.method_b == "relieff"].iloc[0]
        assert row.statistic == pytest.approx(ref.statistic)
    acc = comp[comp.metric == "accuracy_1nn"]
    assert set(acc["test"]) == {"wilcoxon", "corrected-t"}  # not 5 x 2: no Dietterich
    assert (acc["n"] == 6).all()
    # stability: every row has its interval, and says which kind
    stab = res.stability
    assert stab.columns.tolist()[:7] == ["method", "k", "measure", "estimate", "low", "high",
                                         "interval"]
    assert np.isfinite(stab[["low", "high"]].to_numpy()).all()
    kinds = dict(zip(stab["measure"], stab["interval"], strict=False))
    assert kinds == {"kuncheva": "jackknife-t", "nogueira": "jackknife-t",
                     "jaccard": "jackknife-t", "somol": "jackknife-t"}
    # written, read back, and cleared by reruns
    paths = save_result(res, tmp_path, {"finished": True}, report=False)
    back = read_csv(paths["comparisons.csv"])
    pd.testing.assert_frame_equal(back, comp.reset_index(drop=True), check_dtype=False)
    pd.testing.assert_frame_equal(read_result(tmp_path).comparisons, back)
    assert "comparisons.csv" in RUN_FILES


def test_run_with_five_by_two_protocol_adds_dietterich():
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(24, 15)), np.repeat([0, 1], 12)
    X[y == 1, :3] += 2
    res = run_experiment(X, y, ["ttest", "relieff"], [3], protocol="5x2", classifiers=("1nn",),
                         measures=("nogueira",))
    comp = res.comparisons
    row = comp[(comp.test == "5x2cv-t") & (comp.metric == "accuracy_1nn")].iloc[0]
    acc = res.results[res.results.metric == "accuracy_1nn"]
    by = {m: g.set_index("resample")["value"] for m, g in acc.groupby("method")}
    order = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]  # resample index = 2 * repeat + fold here
    ref = dietterich_5x2cv_ttest(by["ttest"][order].to_numpy(), by["relieff"][order].to_numpy())
    assert np.isfinite(ref.statistic) and ref.statistic != 0
    assert row.statistic == pytest.approx(ref.statistic)
    assert row.n == 10


def test_single_method_has_empty_comparisons(tmp_path):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(24, 12)), np.repeat([0, 1], 12)
    res = run_experiment(X, y, ["ttest"], [3], n_repeats=3, classifiers=("1nn",))
    assert res.comparisons.empty
    assert res.comparisons.columns.tolist() == COMPARISON_COLUMNS
    save_result(res, tmp_path, {}, report=False)
    assert read_csv(tmp_path / "comparisons.csv").columns.tolist() == COMPARISON_COLUMNS


# ---------------------------------------------------------------------- report section
def test_report_section(small_run, tmp_path):
    from stablefs.report.comparisons import comparison_blocks
    from stablefs.report.render import Document, Strong, Table, to_html, to_markdown

    comp = small_run.comparisons.copy()
    assert comparison_blocks(comp.iloc[:0]) == []
    assert comparison_blocks(tmp_path / "missing.csv") == []
    comp["p_holm"] = 0.5
    text = to_markdown(Document("t").add(*comparison_blocks(comp)))
    assert "Method comparisons" in text
    assert f"{len(comp)} tests of method pairs" in text
    assert "0 significant at 0.05 after Holm's correction" in text
    comp.loc[comp.index[:3], "p_holm"] = [0.01, 0.0001, 0.03]
    assert "3 significant at 0.05" in to_html(Document("t").add(*comparison_blocks(comp)))
    # the table lists the focus method against the others at its k only (all in the csv)
    row = comp.iloc[1]
    blocks = comparison_blocks(comp, focus=(str(row.method_a), row.k, str(row.metric),
                                            "nogueira"))
    table = blocks[-1]
    assert isinstance(table, Table) and table.rows
    mine = comp[((comp.method_a == row.method_a) | (comp.method_b == row.method_a))
                & (comp.k == row.k) & comp.metric.isin([row.metric, "nogueira"])]
    assert len(table.rows) == len(mine)
    holm = [r[-1] for r in table.rows]  # p_holm 0.0001 (the focus row): bold, "< 0.001"
    assert any(isinstance(c, Strong) and c.text == "< 0.001" for c in holm)
    # (the hook in write_report is checked by tests/test_cli.py::test_compare_end_to_end)
