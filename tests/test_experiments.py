"""The experiments layer and ``stablefs reproduce han2012-synthetic`` on tiny configurations."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stablefs._errors import StablefsError
from stablefs.cli import main
from stablefs.datasets import make_han2012
from stablefs.evaluation import bias_variance
from stablefs.evaluation.classifiers import make_classifier
from stablefs.experiments import EXPERIMENTS, get_experiment, reproduce
from stablefs.experiments._base import VERDICTS, Claim, config_from, parse_overrides
from stablefs.experiments._montecarlo import TaskCache, run_units, unit_seed
from stablefs.experiments._output import CLAIM_COLUMNS
from stablefs.experiments._stats import (
    bootstrap_counts,
    kuncheva_boot,
    mean_boot,
    verdict_at_least,
    verdict_at_most,
    verdict_positive,
    weight_error_boot,
)
from stablefs.experiments.han2012_synthetic.protocol import (
    METHODS,
    Han2012Config,
    linear_svm_accuracy,
    rfe_stages,
)
from stablefs.selectors import SVMRFE
from stablefs.stability import kuncheva
from stablefs.stabilizers import MarginInstanceWeighting

EXP = get_experiment("han2012-synthetic")

#: a few seconds end to end: 60 features, 6 + 3 x 4 training sets
TINY = Han2012Config(
    methods=("svm-rfe", "iw-svm-rfe"), n_sets=6, n_train=30, n_test=200, n_features=60,
    n_relevant=10, block_size=5, n_final=5, size_k=10, sample_sizes=(20, 40, 80), claim_n=40,
    n_sets_sizes=4, n_bootstrap=100,
)
TINY_SET = ["methods=svm-rfe,iw-svm-rfe", "n_sets=6", "n_train=30", "n_test=200",
            "n_features=60", "n_relevant=10", "block_size=5", "n_final=5", "size_k=10",
            "sample_sizes=20,40,80", "claim_n=40", "n_sets_sizes=4", "n_bootstrap=100"]


def cli(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def tiny_runs(tmp_path_factory):
    """The tiny configuration with all four methods, run with one and with two workers."""
    cfg = dataclasses.replace(TINY, methods=tuple(METHODS))
    base = tmp_path_factory.mktemp("tiny")
    one = reproduce(EXP, cfg, base / "one", seed=3, n_jobs=1, figures=False)
    two = reproduce(EXP, cfg, base / "two", seed=3, n_jobs=2, figures=False)
    return cfg, one, two


# -------------------------------------------------------------------------- registry


def test_registry_lists_the_experiment():
    assert "han2012-synthetic" in EXPERIMENTS
    exp = EXPERIMENTS["han2012-synthetic"]
    assert exp.citation == "Han 2012, ch. 6"
    assert exp.default_config().n_sets == 500 and exp.default_config().n_test == 5000
    quick = exp.quick_config()
    exp.check_config(exp.default_config())
    exp.check_config(quick)
    assert quick.n_sets < 500
    assert exp.estimate_seconds(quick, 2) < exp.estimate_seconds(exp.default_config(), 2)


def test_unknown_experiment_names_close_matches():
    with pytest.raises(StablefsError, match="did you mean han2012-synthetic"):
        get_experiment("han2012-synthetc")


# -------------------------------------------------------------------------- end to end


def test_tiny_run_writes_every_file(tiny_runs):
    cfg, one, _ = tiny_runs
    out = one.out_dir
    for name in ("run.json", "claims.csv", "report.md", "report.html", "tables/iterations.csv",
                 "tables/sample_sizes.csv", "tables/published.csv",
                 "tables/weights_vs_penalty.csv"):
        assert (out / name).is_file(), name
    assert not (out / ".partial").exists()
    info = json.loads((out / "run.json").read_text())
    assert info["seed"] == 3 and info["config"]["n_sets"] == 6
    assert info["experiment"] == "han2012-synthetic" and "versions" in info
    assert set(info["timings_s"]) == {"iterations", "sample_sizes", "analysis"}
    assert info["units_resumed"] == 0
    claims = pd.read_csv(out / "claims.csv")
    assert list(claims.columns) == CLAIM_COLUMNS
    assert set(claims["verdict"]) <= set(VERDICTS)
    # 6 training sets are fewer than the verdicts need: never "does not hold" from them
    assert "too few runs" in set(claims["verdict"])
    assert {"1", "1b", "2a", "2a-printed", "3a", "4a", "4g-printed", "4h"} <= set(claims["id"])
    report = (out / "report.md").read_text()
    assert "Han 2012" in report and "seed 000" not in report
    assert "Instance weights or a smaller penalty?" in report


def test_tables_follow_the_schedule_and_decompose(tiny_runs):
    cfg, one, _ = tiny_runs
    it = pd.read_csv(one.out_dir / "tables" / "iterations.csv")
    plain = it[it.method == "SVM-RFE"]
    # 60 features, 10 % (ceil) per iteration, down to 5
    expected = [60]
    while expected[-1] > cfg.n_final:
        expected.append(max(expected[-1] - math.ceil(0.1 * expected[-1]), cfg.n_final))
    assert plain["n_features"].tolist() == expected
    np.testing.assert_allclose(it["error"], it["bias"] + it["variance"], rtol=1e-9)
    assert it.loc[it.iteration == 0, "kuncheva"].isna().all()  # all features: undefined
    assert it.loc[it.iteration > 0, "kuncheva"].between(-1, 1).all()
    assert it["accuracy"].between(0, 1).all()
    sizes = pd.read_csv(one.out_dir / "tables" / "sample_sizes.csv")
    assert sorted(set(sizes["n_train"])) == list(cfg.sample_sizes)
    assert (sizes["n_features"] == cfg.size_k).all()
    pub = pd.read_csv(one.out_dir / "tables" / "published.csv")
    assert list(pub.columns) == ["quantity", "published", "ours", "source"]


def test_claims_are_computed_from_the_data(tiny_runs):
    """Claim 1 (EL = Bias + Var) holds exactly; the others follow their stated rules."""
    _, one, _ = tiny_runs
    claims = pd.read_csv(one.out_dir / "claims.csv").set_index("id")
    assert claims.loc["1", "verdict"] == "holds"
    gap = float(claims.loc["1", "ours"].split("gap ")[1].split()[0])
    assert gap <= 1e-9
    it = pd.read_csv(one.out_dir / "tables" / "iterations.csv")
    # claim 4h recomputed: Spearman correlations of SVM-RFE's quantities with n
    from scipy.stats import spearmanr

    sizes = pd.read_csv(one.out_dir / "tables" / "sample_sizes.csv")
    sub = sizes[sizes.method == "SVM-RFE"].sort_values("n_train")
    rho = spearmanr(sub["n_train"], sub["variance"]).statistic
    assert f"variance {rho:+.2f}" in claims.loc["4h", "ours"]
    # claim 1b recomputed from the table
    first = it[(it.method == "SVM-RFE") & (it.iteration == 0)].iloc[0]
    share = round(100 * first.bias / first.error)
    assert f"SVM-RFE: bias {share:.0f} %" in claims.loc["1b", "ours"]


def test_results_do_not_depend_on_n_jobs(tiny_runs):
    _, one, two = tiny_runs
    for name in ("tables/iterations.csv", "tables/sample_sizes.csv", "claims.csv",
                 "tables/weights_vs_penalty.csv"):
        assert (one.out_dir / name).read_bytes() == (two.out_dir / name).read_bytes(), name
    assert one.claims.equals(two.claims)


def test_rerun_reuses_refuses_and_forces(tmp_path):
    out = tmp_path / "run"
    first = reproduce(EXP, TINY, out, seed=0, figures=False)
    stamp = (out / "run.json").read_bytes()
    again = reproduce(EXP, TINY, out, seed=0, figures=False)
    assert again.reused and (out / "run.json").read_bytes() == stamp
    assert again.claims["verdict"].tolist() == first.claims["verdict"].tolist()
    other = config_from(TINY, {"n_sets": 5})
    with pytest.raises(StablefsError, match="--force"):
        reproduce(EXP, other, out, seed=0, figures=False)
    replaced = reproduce(EXP, other, out, seed=0, force=True, figures=False)
    assert not replaced.reused
    assert json.loads((out / "run.json").read_text())["config"]["n_sets"] == 5


# -------------------------------------------------------------------------- Monte Carlo


def _noise_unit(key, *, scale):
    rng = np.random.default_rng(unit_seed(7, *key))
    return {"x": rng.normal(size=3) * scale}


def test_run_units_are_seeded_by_key_and_resume_from_cache(tmp_path):
    keys = [(1, i) for i in range(5)]
    plain = run_units(_noise_unit, keys, study="s", common={"scale": 2.0})
    shuffled = run_units(_noise_unit, keys[::-1], study="s", common={"scale": 2.0})
    for a, b in zip(plain, shuffled[::-1], strict=True):
        np.testing.assert_array_equal(a["x"], b["x"])
    cache = TaskCache(tmp_path / "cache")
    run_units(_noise_unit, keys[:3], study="s", common={"scale": 2.0}, cache=cache)
    assert len(list((tmp_path / "cache").glob("s-*.npz"))) == 3
    # cached units are loaded, not recomputed: a different scale shows which is which
    mixed = run_units(_noise_unit, keys, study="s", common={"scale": -1.0}, cache=cache)
    assert cache.hits == 3
    np.testing.assert_array_equal(mixed[0]["x"], plain[0]["x"])
    np.testing.assert_array_equal(mixed[4]["x"], -plain[4]["x"] / 2)
    (tmp_path / "cache" / "s-1-0.npz").write_bytes(b"truncated")
    assert cache.load("s", (1, 0)) is None


# -------------------------------------------------------------------------- statistics


def test_bootstrap_statistics_without_resampling_match_the_library():
    rng = np.random.default_rng(0)
    m, p = 12, 40
    W = rng.dirichlet(np.ones(p), size=m)
    r = np.zeros(p)
    r[:5] = 0.2
    ones = np.ones((1, m))
    bv = bias_variance(W, r)
    boot = weight_error_boot(W, r, ones)
    for key in ("variance", "bias", "error"):
        assert boot[key][0] == pytest.approx(bv[f"mean_{key}"], rel=1e-10)
    S = np.zeros((m, p), dtype=bool)
    for i in range(m):
        S[i, rng.choice(p, 8, replace=False)] = True
    assert kuncheva_boot(S, ones)[0] == pytest.approx(kuncheva(S, p), rel=1e-12)
    assert mean_boot(np.arange(m), ones)[0] == pytest.approx((m - 1) / 2)


def test_kuncheva_bootstrap_leaves_out_pairs_of_copies():
    """A resample drawing set 0 twice and set 1 once: the pairs are (0,1), (0,1), (0,0')
    minus the copy pair, so the mean is the Kuncheva index of sets 0 and 1."""
    p = 10
    S = np.zeros((3, p), dtype=bool)
    S[0, [0, 1, 2]] = S[1, [0, 1, 3]] = S[2, [5, 6, 7]] = True
    counts = np.array([[2.0, 1.0, 0.0]])
    expected = kuncheva(S[:2], p)
    assert kuncheva_boot(S, counts)[0] == pytest.approx(expected)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 30), st.integers(1, 50), st.integers(0, 2**31))
def test_bootstrap_counts_are_resamples(m, b, seed):
    C = bootstrap_counts(np.random.default_rng(seed), m, b)
    assert C.shape == (b, m) and np.all(C >= 0)
    np.testing.assert_array_equal(C.sum(axis=1), m)


def test_verdict_rules():
    # replicates of 100 runs' statistic: a t-interval about 2 sds wide each side
    assert verdict_positive(np.linspace(0.5, 1, 100), runs=100)[0] == "holds"
    assert verdict_positive(np.linspace(-1, -0.5, 100), runs=100)[0] == "does not hold"
    assert verdict_positive(np.linspace(-1, 1, 100), runs=100)[0] == "inconclusive"
    assert verdict_at_most(np.linspace(0, 1, 100), 2.0, runs=100)[0] == "holds"
    assert verdict_at_most(np.linspace(3, 4, 100), 2.0, runs=100)[0] == "does not hold"
    assert verdict_at_most(np.linspace(1, 3, 100), 2.0, runs=100)[0] == "inconclusive"
    assert verdict_at_least(np.linspace(0.97, 1, 100), 0.9, runs=100)[0] == "holds"
    assert verdict_at_least(np.linspace(0.1, 0.5, 100), 0.9, runs=100)[0] == "does not hold"
    assert verdict_positive(np.array([np.nan]), runs=100)[0] == "inconclusive"
    with pytest.raises(ValueError):
        Claim("x", "s", "t", "o", "maybe")


# -------------------------------------------------------------------------- building blocks


def test_linear_svm_accuracy_matches_the_weka_like_pipeline():
    tr = make_han2012(n_samples=40, n_features=30, n_blocks=3, n_relevant=10, random_state=1)
    te = make_han2012(n_samples=300, n_features=30, n_blocks=3, n_relevant=10, random_state=2)
    rng = np.random.default_rng(0)
    subsets = np.zeros((4, 30), dtype=bool)
    for i, k in enumerate((30, 12, 5, 1)):
        subsets[i, rng.choice(30, k, replace=False)] = True
    got = linear_svm_accuracy(tr.X, tr.y, te.X, te.y, subsets)
    for i, mask in enumerate(subsets):
        model = make_classifier("svm").fit(tr.X[:, mask], tr.y)
        assert got[i] == pytest.approx(np.mean(model.predict(te.X[:, mask]) == te.y), abs=1e-12)


@pytest.mark.parametrize("method", list(METHODS))
def test_rfe_stages_are_the_selectors_weight_path(method):
    """rfe_stages stops early but is the same computation as SVMRFE / MarginInstanceWeighting
    (for the printed weights: C / n)."""
    d = make_han2012(n_samples=40, n_features=80, n_blocks=8, n_relevant=10, random_state=5)
    C = 1.0 / 40 if method in ("iw-svm-rfe-printed", "svm-rfe-small-c") else 1.0
    sel = SVMRFE(n_features_to_select=8, C=C)
    if method.startswith("iw-"):
        sel = MarginInstanceWeighting(sel, penalty="mean")  # C is set above
    fitted = sel.fit(d.X, d.y)
    rfe = getattr(fitted, "selector_", fitted)
    stages = list(rfe_stages(method, d.X, d.y, 8))
    assert [r.size for r, _ in stages] == rfe.n_remaining_[: len(stages)].tolist()
    assert stages[-1][0].size == 8
    W = np.zeros((len(stages), 80))
    for t, (remaining, w) in enumerate(stages):
        W[t, remaining] = w
    np.testing.assert_allclose(W, rfe.weight_path_[: len(stages)], atol=1e-12)


def test_iw_with_printed_weights_equals_the_penalty_c_over_n():
    """Eq. 5.2 with weights summing to 1 is the mean-1 weights with C / n (the rescaling
    the selector documents)."""
    d = make_han2012(n_samples=30, n_features=40, n_blocks=4, n_relevant=10, random_state=2)
    v = MarginInstanceWeighting(SVMRFE(n_features_to_select=5)).fit(d.X, d.y).instance_weights_
    assert v.sum() == pytest.approx(1.0) and np.ptp(v) > 0
    a = list(rfe_stages("iw-svm-rfe-printed", d.X, d.y, 5))
    b = list(rfe_stages("iw-svm-rfe", d.X, d.y, 5, C=1.0 / 30))
    for (ra, wa), (rb, wb) in zip(a, b, strict=True):
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_allclose(wa, wb, atol=1e-12)


# -------------------------------------------------------------------------- configuration


def test_overrides_are_parsed_by_field_kind():
    got = parse_overrides(Han2012Config, ["n_sets=7", "rho=0.5", "sample_sizes=10, 20,40",
                                          "label_by=component", "methods=svm-rfe,iw-svm-rfe"])
    assert got == {"n_sets": 7, "rho": 0.5, "sample_sizes": (10, 20, 40),
                   "label_by": "component", "methods": ("svm-rfe", "iw-svm-rfe")}


@pytest.mark.parametrize("items, match", [
    (["n_set=3"], "did you mean n_sets"),
    (["n_sets"], "KEY=VALUE"),
    (["n_sets=many"], "whole number"),
    (["rho=nan"], "finite number"),
    (["sample_sizes=10,x"], "comma-separated list"),
])
def test_bad_overrides_are_one_line_errors(items, match):
    with pytest.raises(StablefsError, match=match) as info:
        parse_overrides(Han2012Config, items)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("change, match", [
    ({"n_sets": 1}, "n_sets = 1"),
    ({"methods": ("svm-rfe",)}, "iw-svm-rfe are needed"),
    ({"methods": ("svm-rfe", "iw-svm-rfe", "relieff")}, "choose each at most once"),
    ({"sample_sizes": (100, 50, 200)}, "increasing order"),
    ({"claim_n": 150}, "claim_n = 150 must be one of sample_sizes"),
    ({"size_k": 1000}, "size_k = 1000 must be below n_features"),
    ({"step": 1.5}, r"step = 1.5: it must be a number in \(0, 1\)"),
    ({"label_by": "median"}, "label_by"),
    ({"rho": 1.0}, "rho = 1.0"),
])
def test_bad_configurations_are_refused(change, match):
    with pytest.raises(StablefsError, match=match):
        EXP.check_config(config_from(Han2012Config(), change))


# -------------------------------------------------------------------------- command line


def test_cli_experiments_lists_names_and_sizes(capsys):
    code, out, _ = cli(["experiments"], capsys)
    assert code == 0
    assert "han2012-synthetic" in out and "Han 2012, ch. 6" in out
    assert "--quick" in out and "M = 500" in out
    assert "settings (--set KEY=VALUE): methods, n_sets" in out


def test_cli_reproduce_writes_and_reuses(tmp_path, capsys):
    out = tmp_path / "repro"
    args = ["reproduce", "han2012-synthetic", "--out", str(out), "--no-progress"]
    for item in TINY_SET:
        args += ["--set", item]
    code, stdout, err = cli(args, capsys)
    assert code == 0, err
    assert "claim" in stdout and "holds" in stdout
    for fig in ("fig6_1_bias_variance", "fig6_1b_decomposition", "fig6_2_stability_accuracy",
                "fig6_3_sample_size_bias_variance", "fig6_4_sample_size_stability_accuracy"):
        assert (out / "figures" / f"{fig}.png").read_bytes()[:4] == b"\x89PNG"
        assert b"<svg" in (out / "figures" / f"{fig}.svg").read_bytes()[:500]
    assert "figures/fig6_1_bias_variance.png" in (out / "report.md").read_text()
    assert "data:image/png;base64," in (out / "report.html").read_text()
    info = json.loads((out / "run.json").read_text())
    assert info["config_name"] == "custom"
    assert info["command"].startswith("stablefs reproduce han2012-synthetic --set=")
    code, stdout2, err = cli(args, capsys)
    assert code == 0 and "nothing recomputed" in err
    assert stdout2 == stdout


@pytest.mark.parametrize("extra, match", [
    (["--n-jobs", "0"], "--n-jobs 0"),
    (["--seed", "-1"], "--seed -1"),
    (["--set", "n_sets=0"], "n_sets = 0"),
    (["--set", "bogus=1"], "unknown setting"),
])
def test_cli_bad_options_fail_before_any_output(tmp_path, capsys, extra, match):
    out = tmp_path / "never"
    code, _, err = cli(["reproduce", "han2012-synthetic", "--out", str(out), *extra], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("stablefs: error:") and match in lines[0]
    assert not out.exists()


def test_cli_unknown_experiment(capsys):
    code, _, err = cli(["reproduce", "han2013-synthetic"], capsys)
    assert code == 2 and "did you mean han2012-synthetic" in err


def test_cli_says_how_to_shorten_a_very_long_run(tmp_path, capsys, monkeypatch):
    exp = get_experiment("han2012-synthetic")
    args = ["reproduce", "han2012-synthetic", "--out", str(tmp_path / "r"), "--no-progress"]
    for item in TINY_SET:
        args += ["--set", item]
    code, _, err = cli(args, capsys)
    assert code == 0 and "resumes where it stopped" not in err
    monkeypatch.setattr(type(exp), "estimate_seconds", lambda self, config, n_jobs: 40 * 86400)
    code, _, err = cli(args, capsys)  # beyond the 30 days a run may take (issue 35)
    assert code == 2 and "the estimated wall time is 40 days" in err and "--allow-huge" in err
    code, _, err = cli(args + ["--allow-huge"], capsys)
    assert code == 0 and "expected ~40 days" in err
    assert "resumes where it stopped" in err and "--quick" in err
    assert "full setting" not in err  # a custom configuration is not the paper's


def test_shared_verdict_and_number_helpers():
    from stablefs.experiments._stats import combine_verdicts, fmt_interval, fmt_value

    assert combine_verdicts(["holds", "holds"]) == "holds"
    assert combine_verdicts(["holds", "inconclusive"]) == "inconclusive"
    assert combine_verdicts(["inconclusive", "does not hold", "holds"]) == "does not hold"
    assert combine_verdicts([]) == "not testable"  # no case of the claim in the run
    assert combine_verdicts(["holds", "too few runs"]) == "too few runs"
    assert fmt_value(0.12345) == "0.123"
    assert fmt_value(2.3e-6) == "2.3e-06"
    assert fmt_value(0.0) == "0.000"
    assert fmt_value(float("nan")) == "nan"
    assert fmt_interval(-0.0125, 2e-4) == "[-0.013, 0.0002]"


def test_reproduce_does_not_advise_log2(tmp_path, shared_data, caplog, monkeypatch):
    """Experiments use the values as stored; ``--log2`` is not an option of ``reproduce``, so
    loading a raw-looking registry set (Colon) inside a run gives no hint naming it."""
    from stablefs.datasets import load

    exp = get_experiment("li-ensembles")

    def run(config, **kwargs):
        load("colon")
        raise StablefsError("stop here")

    monkeypatch.setattr(exp, "run", run)
    with caplog.at_level("WARNING", logger="stablefs"), pytest.raises(StablefsError):
        reproduce(exp, exp.quick_config(), tmp_path / "run")
    assert "--log2" not in caplog.text
    caplog.clear()
    with caplog.at_level("WARNING", logger="stablefs"):
        load("colon")  # outside a run the hint is given
    assert "--log2" in caplog.text
