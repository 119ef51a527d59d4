"""Evidence of signal: the majority-class baseline, the permutation test of the recommended
pair, its nested estimate, the stability bands and the CLI's no-evidence summary."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import balanced_accuracy_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC

from stablefs.evaluation import permutation as perm_mod
from stablefs.evaluation.baseline import majority_baseline
from stablefs.evaluation.nested import nested_estimate
from stablefs.evaluation.permutation import (
    permutation_p_value,
    permutation_test,
    sequential_stop,
    stop_after,
)
from stablefs.evaluation.protocols import Protocol, Resample
from stablefs.evaluation.runner import run_experiment, task_seed
from stablefs.methods import make_selector
from stablefs.report.summary import judge_evidence, recommend_from_tables, stability_band
from stablefs.report.tables import baseline_means

#: these tests exercise compare's checks: the conftest keeps its real defaults for them
pytestmark = pytest.mark.full_checks


def _data(n=36, p=12, signal=1.5, seed=0):
    rng = np.random.default_rng(seed)
    y = np.array(["a"] * (n // 2) + ["b"] * (n - n // 2))
    X = rng.normal(size=(n, p))
    X[y == "b", :3] += signal
    return X, y


# ------------------------------------------------------------------------ baseline


def test_majority_baseline_by_hand():
    y = np.array(list("aaaabbc"))
    res = [Resample(0, np.array([0, 1, 2, 4]), np.array([3, 5, 6])),  # train a a a b -> a
           Resample(1, np.array([4, 5, 6, 0]), np.array([1, 2, 3])),  # b b c a -> b
           Resample(-1, np.arange(7), np.arange(0))]  # reference fit: skipped
    b = majority_baseline(y, res)
    got = {(r, m): v for r, m, v in b.itertuples(index=False)}
    assert got[(0, "accuracy")] == pytest.approx(1 / 3)  # a, b, c: one a
    assert got[(0, "balanced_accuracy")] == pytest.approx(1 / 3)  # recall 1, 0, 0
    assert got[(1, "accuracy")] == 0.0  # test a a a, predicted b
    assert got[(1, "balanced_accuracy")] == 0.0
    assert set(b["resample"]) == {0, 1}
    assert baseline_means(b) == pytest.approx({"accuracy": 1 / 6, "balanced_accuracy": 1 / 6})


def test_run_experiment_records_the_baseline():
    X, y = _data()
    r = run_experiment(X, y, ["ttest"], [2], protocol=Protocol("split", 3),
                       classifiers=["1nn"], measures=["nogueira"])
    assert len(r.baseline) == 6
    assert baseline_means(r.baseline)["balanced_accuracy"] == pytest.approx(0.5)


# -------------------------------------------------------------------- permutation


def _hand_choice(table):
    """The simple rule both sides use: best mean accuracy, then the smaller k, then name."""
    best = max(table.items(), key=lambda kv: (round(kv[1], 12), -kv[0][1], kv[0][0]))
    return best[0]


def _choose(stability, results):
    acc = results[results["metric"] == "accuracy_svm"].groupby(["method", "k"])["value"].mean()
    return _hand_choice({(m, float(k)): v for (m, k), v in acc.items()})


def _svm(Xtr, ytr, Xte):
    return make_pipeline(MinMaxScaler(), SVC(kernel="linear", C=1.0)).fit(Xtr, ytr).predict(Xte)


def _reference_procedure(X, y, resamples, methods, sizes, seed):
    """The procedure written out: every method fitted on every resample, SVM accuracy at every
    k, the hand rule's choice, and the chosen pair's mean balanced accuracy."""
    acc, bal = {}, {}
    for m in methods:
        for pos, r in enumerate(resamples):
            sel = make_selector(m, random_state=task_seed(seed, pos, m), n_jobs=1).fit(
                X[r.train], y[r.train])
            order = np.argsort(sel.ranking_, kind="stable")
            for k in sizes:
                cols = np.sort(order[:k])
                pred = _svm(X[r.train][:, cols], y[r.train], X[r.test][:, cols])
                acc.setdefault((m, float(k)), []).append(np.mean(pred == y[r.test]))
                bal.setdefault((m, float(k)), []).append(balanced_accuracy_score(y[r.test],
                                                                                 pred))
    pick = _hand_choice({key: float(np.mean(v)) for key, v in acc.items()})
    return float(np.mean(bal[pick])), pick


def _reference_permutation(X, y, methods, sizes, seed, b, n_resamples=3):
    """Permutation b written out: the labels permuted, the splits drawn on (stratified on)
    the permuted labels, the whole procedure repeated with its own seed."""
    from stablefs.evaluation.runner import derive_seed

    perm = np.random.default_rng(np.random.SeedSequence([seed, 0x5EED, b])).permutation(y.size)
    yb = y[perm]
    res = Protocol("split", 20).resamples(yb, derive_seed(seed, 0x5B17, b))[:n_resamples]
    return _reference_procedure(X, yb, res, methods, sizes, derive_seed(seed, 0xBE55, b))


def test_permutation_p_value_equals_a_slow_reference():
    """The observed statistic and every permuted one are the same procedure, the choice of
    (method, k) repeated inside each permutation on resamples drawn on its labels."""
    X, y = _data(signal=0.8)
    proto = Protocol("split", 20)
    methods, sizes, B, seed = ["ttest", "relieff"], [2, 4], 12, 4
    got = permutation_test(X, y, methods, sizes, protocol=proto, choose=_choose,
                           classifier="svm", n_permutations=B, n_resamples=3, h=B + 1,
                           random_state=seed)
    ref_obs, ref_pick = _reference_procedure(X, y, proto.resamples(y, seed)[:3], methods,
                                             sizes, seed)
    ref = [_reference_permutation(X, y, methods, sizes, seed, b) for b in range(B)]
    assert got.observed == pytest.approx(ref_obs)
    assert (got.method, float(got.k)) == ref_pick
    np.testing.assert_allclose(got.statistics, [t for t, _ in ref])
    assert [(m, float(k)) for m, k in got.choices] == [pick for _, pick in ref]
    assert len(set(got.choices)) > 1  # the choice is remade, not carried over
    expected = (1 + sum(t >= ref_obs for t, _ in ref)) / (1 + B)
    assert got.p_value == pytest.approx(expected)
    assert not got.stopped and got.n_used == B
    table = got.table()
    assert list(table.columns) == ["permutation", "statistic", "method", "k"]
    assert table["method"].iloc[0] == got.method and len(table) == B + 1
    assert got.to_dict()["fits"] == (B + 1) * 3 * 2


def test_permuted_splits_are_stratified_on_the_permuted_labels():
    from stablefs.evaluation.permutation import permuted_resamples

    y = np.array(["a"] * 20 + ["b"] * 10 + ["c"] * 6)
    proto = Protocol("split", 20)
    real = proto.resamples(y, 0)[:3]
    stratified = {c: int(np.sum(y[real[0].train] == c)) for c in "abc"}
    carried_over_differs = False
    for b in range(10):
        perm, res = permuted_resamples(proto, None, y, 0, b, 3)
        yb = y[perm]
        assert len(res) == 3
        for r in res:  # every training part holds each permuted class in its share
            assert {c: int(np.sum(yb[r.train] == c)) for c in "abc"} == stratified
        # the real-label splits, as the test used before, are not stratified on yb
        carried_over_differs |= any({c: int(np.sum(yb[r.train] == c)) for c in "abc"}
                                    != stratified for r in real)
        again = permuted_resamples(proto, None, y, 0, b, 3)  # determined by the seed and b
        assert np.array_equal(again[0], perm)
        assert all(np.array_equal(u.train, v.train) for u, v in zip(again[1], res,
                                                                     strict=True))
    assert carried_over_differs


def test_p_value_formula_and_stop_rule():
    assert permutation_p_value([0.4, 0.6, 0.5, 0.7], 0.6) == pytest.approx(3 / 5)
    assert stop_after(199, 0.05) == 10
    assert stop_after(99, 0.05) == 5
    assert stop_after(3, 0.05) == 1


def test_sequential_stopping_gives_the_full_decision_in_a_constructed_case():
    # exceedances at permutations 3, 5, 6, ...: the 10th exceedance comes at permutation 40
    B, obs = 199, 0.8
    stats = np.full(B, 0.5)
    hits = [2, 4, 5, 9, 14, 20, 25, 30, 35, 39, 60, 80]
    stats[hits] = 0.9
    p_seq, n_used, e, stopped = sequential_stop(stats, obs, B, stop_after(B))
    assert stopped and n_used == 40 and e == 10 and p_seq == pytest.approx(10 / 40)
    p_full = permutation_p_value(stats, obs)
    assert p_full == pytest.approx(13 / 200)
    assert (p_seq < 0.05) == (p_full < 0.05) is False
    # nine exceedances: never stopped, the full p = 10/200 is not below 0.05 either
    stats2 = np.full(B, 0.5)
    stats2[hits[:9]] = 0.9
    p2, n2, e2, s2 = sequential_stop(stats2, obs, B, stop_after(B))
    assert not s2 and n2 == B and p2 == pytest.approx(permutation_p_value(stats2, obs))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), min_size=19, max_size=60), st.sampled_from([0.05, 0.01, 0.1]))
def test_sequential_decision_always_equals_the_full_test(hits, alpha):
    stats = np.where(hits, 1.0, 0.0)
    B = len(stats)
    p_seq, _, _, stopped = sequential_stop(stats, 0.5, B, stop_after(B, alpha))
    p_full = permutation_p_value(stats, 0.5)
    assert (p_seq < alpha) == (p_full < alpha)
    if stopped:
        assert p_seq >= alpha


def test_permutation_test_stops_early_without_signal():
    X, y = _data(signal=0.0, seed=3)
    t = permutation_test(X, y, ["ttest"], [2], protocol=Protocol("split", 2), choose=_choose,
                         classifier="svm", n_permutations=99, n_resamples=2, random_state=0)
    assert t.stopped and t.n_used < 99 and t.p_value >= 0.05 and not t.significant


def test_an_early_stop_is_the_same_for_any_n_jobs():
    # the workers take permutations in order as they free up; the stop falls on the same
    # permutation
    X, y = _data(signal=0.0, seed=3)
    kw = dict(protocol=Protocol("split", 2), choose=_choose, classifier="svm",
              n_permutations=99, n_resamples=2, random_state=0)
    a = permutation_test(X, y, ["ttest"], [2], n_jobs=1, **kw)
    b = permutation_test(X, y, ["ttest"], [2], n_jobs=2, **kw)
    assert a.stopped and b.stopped and a.n_used == b.n_used < 99
    np.testing.assert_array_equal(a.statistics, b.statistics)
    assert (a.p_value, a.exceedances, a.choices) == (b.p_value, b.exceedances, b.choices)
    assert a.units_computed == a.n_used  # one process: not one unit past the stop
    # the workers: the units handed out before the stop was seen (a few when units take
    # longer than reading a result; these take milliseconds) are computed, not used
    assert b.n_used <= b.units_computed <= 99


def test_permutation_test_independent_of_n_jobs():
    X, y = _data(signal=0.7)
    kw = dict(protocol=Protocol("split", 4), choose=_choose, classifier="svm",
              n_permutations=12, n_resamples=2, random_state=7, h=13)
    a = permutation_test(X, y, ["relieff", "ttest"], [3, 5], n_jobs=1, **kw)
    b = permutation_test(X, y, ["relieff", "ttest"], [3, 5], n_jobs=2, **kw)
    np.testing.assert_array_equal(a.statistics, b.statistics)
    assert a.p_value == b.p_value and a.observed == b.observed and a.choices == b.choices
    # the observed procedure ran in a worker beside the first permutations (n_jobs=2): the same
    assert (a.method, a.k, a.observed_values) == (b.method, b.k, b.observed_values)
    assert a.units_computed == b.units_computed == 12


def test_permutation_test_resumes_after_an_interruption(tmp_path, monkeypatch):
    X, y = _data(signal=0.7)
    kw = dict(protocol=Protocol("split", 3), choose=_choose, classifier="svm",
              n_permutations=20, n_resamples=2, random_state=5, h=21, cache_dir=tmp_path)
    full = permutation_test(X, y, ["ttest"], [3], **{**kw, "cache_dir": None})
    saved = perm_mod._UnitCache.save
    calls = {"n": 0}

    def save_then_stop(self, b, *args):
        saved(self, b, *args)
        calls["n"] += 1
        if calls["n"] == 7:
            raise KeyboardInterrupt

    monkeypatch.setattr(perm_mod._UnitCache, "save", save_then_stop)
    with pytest.raises(KeyboardInterrupt):
        permutation_test(X, y, ["ttest"], [3], **kw)
    monkeypatch.setattr(perm_mod._UnitCache, "save", saved)
    files = list(tmp_path.rglob("*.json"))
    assert len(files) == 7 and all("pickle" not in f.read_text() for f in files)
    again = permutation_test(X, y, ["ttest"], [3], **kw)
    assert again.units_reused == 7 and again.units_computed == 13
    np.testing.assert_array_equal(again.statistics, full.statistics)
    # a damaged unit is recomputed, not trusted
    files[0].write_text("{not json")
    third = permutation_test(X, y, ["ttest"], [3], **kw)
    assert third.units_computed == 1
    np.testing.assert_array_equal(third.statistics, full.statistics)


# ------------------------------------------------------------------------- nested


def _svm_accuracy(Xtr, ytr, Xte, yte):
    clf = make_pipeline(MinMaxScaler(), SVC(kernel="linear", C=1.0)).fit(Xtr, ytr)
    return float(np.mean(clf.predict(Xte) == yte))


def test_nested_estimate_equals_a_hand_written_reference():
    X, y = _data(n=45, p=10, signal=0.9, seed=5)
    methods, sizes, seed = ["ttest", "relieff"], [2, 4], 3
    proto = Protocol("split", 4)
    main = run_experiment(X, y, methods, sizes, protocol=proto, classifiers=["svm"],
                          measures=["nogueira"], random_state=seed)
    resamples = proto.resamples(y, seed)
    got = nested_estimate(X, y, methods, sizes, resamples=resamples, results=main.results,
                          selections=main.selections, recommended=("ttest", 2),
                          choose=_choose, classifier="svm", n_outer=3, n_inner=3,
                          random_state=seed)
    values, picks = [], []
    for outer in resamples[:3]:
        Xo, yo = X[outer.train], y[outer.train]
        seed_i = int(np.random.SeedSequence([seed, 0x0E57, outer.index]).generate_state(1)[0]
                     % (2**31 - 1))
        table = {}
        for m in methods:
            accs = {k: [] for k in sizes}
            for inner in Protocol("split", 3).resamples(yo, seed_i):
                sel = make_selector(m, random_state=task_seed(seed_i, inner.index, m),
                                    n_jobs=1).fit(Xo[inner.train], yo[inner.train])
                order = np.argsort(sel.ranking_, kind="stable")
                for k in sizes:
                    cols = np.sort(order[:k])
                    accs[k].append(_svm_accuracy(Xo[inner.train][:, cols], yo[inner.train],
                                                 Xo[inner.test][:, cols], yo[inner.test]))
            for k in sizes:
                table[(m, float(k))] = float(np.mean(accs[k]))
        m, k = _hand_choice(table)
        picks.append((m, k))
        sel = make_selector(m, random_state=task_seed(seed, outer.index, m),
                            n_jobs=1).fit(Xo, yo)
        cols = np.sort(np.argsort(sel.ranking_, kind="stable")[:int(k)])
        values.append(_svm_accuracy(Xo[:, cols], yo, X[outer.test][:, cols], y[outer.test]))
    assert list(zip(got.choices["method"], got.choices["k"], strict=True)) == picks
    assert got.nested == pytest.approx(np.mean(values))
    plain = main.results[(main.results["method"] == "ttest") & (main.results["k"] == 2)
                         & (main.results["metric"] == "accuracy_svm")]
    assert got.plain == pytest.approx(plain[plain["resample"] < 3]["value"].mean())
    assert got.gap == pytest.approx(got.plain - got.nested)
    assert got.agreement == pytest.approx(np.mean([p == ("ttest", 2.0) for p in picks]))
    assert got.fits == 3 * 3 * 2


# ------------------------------------------------------------------- bands, verdict


def test_stability_bands():
    assert stability_band(0.39) == "poor"
    assert stability_band(0.4) == "intermediate"
    assert stability_band(0.75) == "intermediate"
    assert stability_band(0.76, "kuncheva") == "excellent"
    assert stability_band(0.9, "jaccard") is None


def _tables(acc):
    results = pd.DataFrame([("m", 5, r, "accuracy_svm", acc + 0.01 * (r % 2 - 0.5))
                            for r in range(6)],
                           columns=["method", "k", "resample", "metric", "value"])
    stability = pd.DataFrame([("m", 5, "nogueira", 0.3, 0.2, 0.4)],
                             columns=["method", "k", "measure", "estimate", "low", "high"])
    return results, stability


def test_no_evidence_when_accuracy_is_not_above_the_majority_class():
    results, stability = _tables(0.61)
    rec = recommend_from_tables(results, stability)
    v = judge_evidence(rec, {"accuracy": 0.65, "balanced_accuracy": 0.5}, None)
    assert v.signal is False and "not above 0.65" in v.reasons[0]
    v2 = judge_evidence(rec, {"accuracy": 0.5}, {"permutation": {"p_value": 0.2,
                                                                   "alpha": 0.05}})
    assert v2.signal is False and "p = 0.20" in v2.reasons[0]
    v3 = judge_evidence(rec, {"accuracy": 0.5}, {"permutation": {"p_value": 0.005,
                                                                   "alpha": 0.05}})
    assert v3.signal is True and "p = 0.005" in v3.label


def test_cli_recommends_nothing_on_noise(tmp_path, capsys):
    from stablefs.cli import main

    rng = np.random.default_rng(11)
    n, p = 40, 30
    df = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"g{j}" for j in range(p)])
    df.insert(0, "label", rng.permutation(["x"] * 26 + ["y"] * 14))
    data = tmp_path / "noise.csv"
    df.to_csv(data, index=False)
    out = tmp_path / "run"
    code = main(["compare", str(data), "-m", "ttest,relieff", "-k", "3,6", "--repeats", "5",
                 "--permutations", "19", "--permutation-resamples", "2", "--nested", "0",
                 "--out", str(out), "--no-progress"])
    assert code == 0
    text = capsys.readouterr().out
    verdict = text.split("mean fit time per resample")[1]
    assert "\nNo evidence of signal" in verdict and "Recommended" not in verdict
    assert "majority-class baseline" in text and "Permutation test of" in verdict
    md = (out / "report.md").read_text()
    summary = md.split("## Summary")[1]
    assert summary.lstrip().startswith("- No evidence of signal")
    assert "(recommended)" not in md and "Recommended:" not in md
    sig = pd.read_csv(out / "signature.csv")
    assert set(sig["signal"]) == {"no evidence of signal"}
    run = json.loads((out / "run.json").read_text())
    assert run["trust"]["evidence_of_signal"] is False
    assert run["config"]["permutations"] == 19
    perm = pd.read_csv(out / "permutation.csv")
    assert list(perm.columns) == ["permutation", "statistic", "method", "k"]
    assert len(perm) == run["trust"]["permutation"]["permutations_used"] + 1
    assert (out / "baseline.csv").exists()
    # the finished run, reused, prints the same verdict
    assert main(["compare", str(data), "-m", "ttest,relieff", "-k", "3,6", "--repeats", "5",
                 "--permutations", "19", "--permutation-resamples", "2", "--nested", "0",
                 "--out", str(out), "--no-progress"]) == 0
    assert "\nNo evidence of signal" in capsys.readouterr().out


def test_cli_refuses_bad_trust_options(tmp_path, capsys):
    from stablefs.cli import main

    for args, words in ((["--permutations", "-1"], "--permutations"),
                        (["--nested", "3"], "--nested"),
                        (["--nested", "2:1"], "INNER"),
                        (["--permutation-resamples", "0"], "--permutation-resamples")):
        assert main(["compare", "-m", "ttest", *args, "--out", str(tmp_path / "x")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("stablefs: error:") and words in err
        assert not (tmp_path / "x").exists()


def test_progress_lines_every_tenth(capsys):
    from stablefs._runtime.progress import make_progress

    bar = make_progress("lines", total=20, desc="compare")
    for _ in range(20):
        bar.update(1)
    bar.close()
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 10 and lines[0].startswith("stablefs: compare: 10% (2 of 20 fits")
    assert lines[-1].startswith("stablefs: compare: 100% (20 of 20")


def test_observed_statistic_is_the_rule_applied_to_the_comparisons_first_resamples():
    """The observed procedure is the comparison's own fits on its first R resamples (same
    resamples and seeds, to the last bit), the recommendation rule applied to those R alone:
    its choice need not be the comparison's recommendation, which saw every resample."""
    from stablefs.report.summary import choose_pair

    X, y = _data(signal=0.8, seed=2)
    proto = Protocol("split", 6)
    methods = ["en-ttest(n_estimators=5)", "relieff"]  # randomised: the runner's seeds
    main = run_experiment(X, y, methods, [3, 6], protocol=proto, classifiers=["1nn", "svm"],
                          measures=["nogueira"], random_state=6)
    t = permutation_test(X, y, methods, [3, 6], protocol=proto, choose=choose_pair,
                         classifier="1nn", n_permutations=3, n_resamples=3, random_state=6,
                         resamples=proto.resamples(y, 6))
    first = main.results[main.results["resample"] < 3]
    first = first[first["metric"].str.endswith("_1nn") | (first["metric"] == "fit_time")]
    stab = run_experiment(X, y, methods, [3, 6], protocol=Protocol("split", 3),
                          classifiers=["1nn"], measures=["nogueira"], random_state=6).stability
    m, k = choose_pair(stab, first)
    assert (t.method, t.k) == (m, int(k))
    res = first[(first["method"] == m) & (first["k"] == k)
                & (first["metric"] == "balanced_accuracy_1nn")].sort_values("resample")
    assert t.observed_values == list(res["value"])


def test_accuracy_plots_draw_the_baseline():
    from stablefs.report.figures import method_styles, plot_performance, plot_tradeoff
    from stablefs.report.tables import performance_summary, prepare_results, prepare_stability

    rows = [(m, k, r, f"{kind}_svm", 0.8 + 0.01 * r)
            for m in ("a", "b") for k in (5, 10) for r in range(4)
            for kind in ("accuracy", "balanced_accuracy")]
    perf = performance_summary(prepare_results(pd.DataFrame(
        rows, columns=["method", "k", "resample", "metric", "value"])))
    stab = prepare_stability(pd.DataFrame(
        [(m, k, "nogueira", 0.5 + 0.1 * (m == "b"), 0.4, 0.7) for m in ("a", "b")
         for k in (5, 10)], columns=["method", "k", "measure", "estimate", "low", "high"]))
    styles = method_styles(["a", "b"])
    base = {"accuracy": 0.74, "balanced_accuracy": 0.72}  # within a span of the values

    def flat_lines(fig):
        return sorted({round(float(ln.get_ydata()[0]), 3) for ax in fig.axes for ln in ax.lines
                       if len(set(map(float, ln.get_ydata()))) == 1
                       and ln.get_linestyle() != "-"})

    assert {0.74, 0.72} <= set(flat_lines(plot_performance(perf, ["a", "b"], styles, base)))
    assert 0.74 not in flat_lines(plot_performance(perf, ["a", "b"], styles))
    fig = plot_tradeoff(stab, perf, ["a", "b"], styles, baseline=base)
    assert 0.74 in flat_lines(fig)
    assert all(ax.get_ylim()[0] < 0.74 for ax in fig.axes if ax.get_visible() and ax.lines)
    # far below the values (0.80-0.83): no line stretching the axis, a note at its bottom
    far = plot_tradeoff(stab, perf, ["a", "b"], styles,
                        baseline={"accuracy": 0.5, "balanced_accuracy": 0.5})
    assert 0.5 not in flat_lines(far)
    assert any("majority class 0.50, below the axis" in t.get_text()
               for ax in far.axes for t in ax.texts)


def test_announce_estimates_and_names_prefilter_when_long(capsys, monkeypatch):
    from stablefs.comparison import _trust
    from stablefs.evaluation.preprocessing import Preprocessing

    X, y = _data()
    res = Protocol("split", 4).resamples(y, 0)
    settings = _trust.TrustSettings(10, 2, 2, 2)
    kw = dict(seed=0, prep=Preprocessing(), workers=1, settings=settings, prefilter=None,
              sizes=[2, 4], classifiers=["svm"])
    est = _trust.announce(X, y, ["ttest"], res, n_features=X.shape[1], report=False, **kw)
    assert est["total"] < _trust.ANNOUNCE_SECONDS and capsys.readouterr().err == ""  # quiet
    monkeypatch.setattr(_trust, "ANNOUNCE_SECONDS", 0.0)
    est = _trust.announce(X, y, ["ttest"], res, n_features=X.shape[1], **kw)
    err = capsys.readouterr().err
    assert est["total"] > 0 and err.startswith("stablefs: estimated wall time about")
    assert est["report"] > 0 and "for the report" in err
    assert "for the 4 fits" in err and "10 x 2 fits" in err and "--prefilter" not in err
    monkeypatch.setattr(_trust, "LONG_RUN_SECONDS", 0.0)
    _trust.announce(X, y, ["ttest"], res, n_features=22283, **kw)
    assert "this is a long run: --prefilter 2000" in capsys.readouterr().err


def test_verbose_prints_options_resamples_and_timings(tmp_path, capsys):
    from stablefs.cli import main

    X, y = _data(n=24, p=6)
    df = pd.DataFrame(X, columns=[f"g{j}" for j in range(6)])
    df.insert(0, "label", y)
    df.to_csv(tmp_path / "d.csv", index=False)
    args = ["compare", str(tmp_path / "d.csv"), "-m", "ttest", "-k", "2", "--repeats", "3",
            "--permutations", "0", "--nested", "0", "--no-report", "--no-progress"]
    assert main([*args, "--out", str(tmp_path / "a"), "-v"]) == 0
    err = capsys.readouterr().err
    assert "stablefs: options: classifiers svm, 1nn" in err and "permutations 0" in err
    assert "3 resamples; training/test sizes 16/8" in err
    assert "pilot task on one training part" in err and "fit time per method: ttest" in err
    assert "resample 0: train" not in err
    assert main([*args, "--out", str(tmp_path / "b"), "-vv"]) == 0
    err = capsys.readouterr().err
    assert "resample 0: train (a 8, b 8), test (a 4, b 4)" in err


def test_cli_defaults_run_both_checks_and_recommend_on_signal(tmp_path, capsys):
    """With no option, compare runs the permutation test (100 permutations) and the nested
    estimate (5 x 3); on data with a clear signal the recommendation stands with p < 0.01."""
    from stablefs.cli import main

    out = tmp_path / "run"
    code = main(["compare", "synthetic:han2012?n_samples=40&n_features=60&n_blocks=6",
                 "-m", "ttest", "-k", "5,10", "--repeats", "4", "--out", str(out),
                 "--no-progress", "--no-report"])
    assert code == 0
    verdict = capsys.readouterr().out.split("mean fit time per resample")[1]
    assert "Recommended: ttest" in verdict and "No evidence" not in verdict
    run = json.loads((out / "run.json").read_text())
    assert run["config"]["permutations"] == 100
    assert run["trust"]["evidence_of_signal"] is True
    assert run["trust"]["permutation"]["p_value"] == pytest.approx(1 / 101)
    perm = pd.read_csv(out / "permutation.csv")
    assert len(perm) == 101
    nested = pd.read_csv(out / "nested.csv")
    assert len(nested) == 4  # 5 outer resamples asked, capped at the run's 4
    assert {"permutation.csv", "nested.csv", "baseline.csv"} <= set(run["files"])


def test_refits_build_the_selector_as_the_comparison_did(monkeypatch):
    """A forward wrapper searches only as far as the comparison's largest -k in its fits; the
    permutation refits and the pilot fit of the time estimate are built the same way
    (stablefs.methods.build_selector), so they neither search further nor differ from the
    fits whose accuracy they are compared with."""
    import stablefs.methods as methods
    from stablefs.comparison._trust import pilot_times
    from stablefs.evaluation.preprocessing import Preprocessing

    assert methods.build_selector("sfs", 0, [2, 5]).max_features == 5
    assert methods.build_selector("sfs", 0).max_features is None
    assert methods.build_selector("sfs(max_features=3)", 0, [2, 5]).max_features == 3
    X, y = _data(p=8)
    res = Protocol("split", 3).resamples(y, 1)  # the comparison's (random_state=1)
    seen = []
    real = methods.build_selector

    def spy(template, seed, sizes=None):
        selector = real(template, seed, sizes)
        seen.append(selector.max_features)
        return selector

    monkeypatch.setattr(methods, "build_selector", spy)
    monkeypatch.setattr("stablefs.evaluation.runner.build_selector", spy)
    result = run_experiment(X, y, ["sfs"], [2, 4], protocol=Protocol("split", 3),
                            classifiers=["svm"], measures=["kuncheva"], random_state=1)
    assert set(seen) == {4}
    seen.clear()
    t = permutation_test(X, y, ["sfs"], [2, 4], protocol=Protocol("split", 3), choose=_choose,
                         classifier="svm", n_permutations=3, n_resamples=2, random_state=1,
                         h=4)
    assert set(seen) == {4} and t.n_used == 3
    observed = result.results.query(f"method == 'sfs' and k == {t.k} and metric == "
                                    "'balanced_accuracy_svm'").set_index("resample")["value"]
    assert t.observed == pytest.approx(observed.loc[[r.index for r in res[:2]]].mean())
    seen.clear()
    pilot_times(X, y, ["sfs"], res, seed=1, prep=Preprocessing(), sizes=[2, 4],
                classifiers=["svm"])
    assert seen and set(seen) == {4}


def test_p_values_never_round_onto_the_level():
    """5/101 is not "0.050": a p just below a level keeps the digits that show it, in the
    summary's verdict, the comparisons table and the leaderboard alike."""
    from stablefs.report import comparisons, leaderboard
    from stablefs.report.summary import format_p
    from stablefs.report.tables import format_p_value

    assert format_p(5 / 101) == "= 0.0495" and format_p(1 / 101) == "= 0.0099"
    assert format_p(0.42) == "= 0.42" and format_p(0.0004) == "< 0.001"
    assert format_p(0.05) == "= 0.050" and format_p(0.0999) == "= 0.0999"
    assert comparisons._p(5 / 101) == "0.0495" and leaderboard._p(5 / 101) == "0.0495"
    for p in np.r_[np.linspace(0.001, 0.2, 4001), [k / 101 for k in range(1, 20)]]:
        shown = float(format_p_value(p))
        for level in (0.001, 0.005, 0.01, 0.05, 0.1):
            assert (shown < level) == (p < level) and (shown == level) == (p == level), p
    results, stability = _tables(0.7)
    rec = recommend_from_tables(results, stability)
    v = judge_evidence(rec, {"accuracy": 0.5}, {"permutation": {"p_value": 5 / 101,
                                                                  "alpha": 0.05}})
    assert v.signal is True and "p = 0.0495" in v.label
