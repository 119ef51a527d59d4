"""``stablefs reproduce li-ensembles`` (Li et al. 2013, sec. 4)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from stablefs._errors import StablefsError
from stablefs.experiments import EXPERIMENTS
from stablefs.experiments._base import VERDICTS, parse_overrides
from stablefs.experiments.li_ensembles.experiment import LiEnsembles
from stablefs.experiments.li_ensembles.protocol import (
    LiEnsemblesConfig,
    prefix_ranking,
    spearman_pairs,
)

EXP = LiEnsembles()


def test_spearman_pairs_match_scipy():
    rng = np.random.default_rng(0)
    R = np.argsort(rng.normal(size=(6, 40)), axis=1) + 1
    R[5] = R[4]  # an identical pair gives 1
    values, i, j = spearman_pairs(R)
    assert values.size == 15 and np.all(i < j)
    want = [stats.spearmanr(R[a], R[b]).statistic for a, b in zip(i, j)]
    np.testing.assert_allclose(values, want, atol=1e-12)
    assert values[(i == 4) & (j == 5)] == pytest.approx(1.0)
    from stablefs.stability import spearman

    assert values.mean() == pytest.approx(spearman(R))
    ties = np.array([[1, 1, 3, 4, 5], [2, 1, 3, 5, 4], [5, 4, 3, 2, 1]])
    values, i, j = spearman_pairs(ties)
    want = [stats.spearmanr(ties[a], ties[b]).statistic for a, b in zip(i, j)]
    np.testing.assert_allclose(values, want, atol=1e-12)
    with pytest.raises(StablefsError):
        spearman_pairs(R[:1])


@pytest.mark.parametrize("spec,aggregate", [("wen-logistic-margin", "weight"),
                                            ("ren-logistic-margin", "rank"),
                                            ("en-relieff", "rank")])
def test_prefix_of_members_equals_a_separate_fit(spec, aggregate):
    """The first m members of a large ensemble aggregate to the ensemble of m."""
    from stablefs.methods import make_selector

    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 25))
    y = np.repeat([0, 1], 20)
    X[y == 1, :4] += 1.0
    big = make_selector(spec, n_estimators=7, random_state=11).fit(X, y)
    for m in (1, 3, 7):
        small = make_selector(spec, n_estimators=m, random_state=11).fit(X, y)
        scores, ranking = prefix_ranking(big, m, aggregate)
        np.testing.assert_array_equal(ranking, small.ranking_)
        if spec == "en-relieff":  # members computed together: summation order differs
            np.testing.assert_allclose(scores, small.scores_, rtol=1e-12)
        else:
            np.testing.assert_array_equal(scores, small.scores_)
    with pytest.raises(StablefsError):
        prefix_ranking(big, 8, aggregate)


def test_config_validation_one_line_errors():
    got = parse_overrides(LiEnsemblesConfig, ["datasets=sonar,lung", "ensemble_sizes=5,10"])
    assert got == {"datasets": ("sonar", "lung"), "ensemble_sizes": (5, 10)}
    EXP.check_config(LiEnsemblesConfig(**got))
    for change, match in [({"datasets": ("sonar", "musk")}, "at most once"),
                          ({"datasets": ("colon", "colon")}, "at most once"),
                          ({"ensemble_sizes": (10, 5)}, "increasing order"),
                          ({"n_subsamples": 1}, "n_subsamples"),
                          ({"fraction": 1.0}, "fraction"),
                          ({"fraction": 0.5}, "smallest class"),
                          ({"member_fraction": 0.0}, "member_fraction"),
                          ({"gamma": 0.0}, "gamma"),
                          ({"cv_folds": 30}, "smallest class"),
                          ({"cv_sizes": (40, 50), "datasets": ("ionosphere",)}, "no k below"),
                          ({"classifiers": ("wknn",)}, "choose from"),
                          ({"similar": -0.1}, "similar"),
                          ({"n_bootstrap": 5}, "n_bootstrap")]:
        with pytest.raises(StablefsError, match=match) as err:
            EXP.check_config(dataclasses.replace(LiEnsemblesConfig(), **change))
        assert "\n" not in str(err.value)
    quick = EXP.quick_config()
    EXP.check_config(quick)
    EXP.check_config(EXP.default_config())
    assert EXP.estimate_seconds(quick, 2) < 60 < EXP.estimate_seconds(EXP.default_config(), 2)
    assert EXPERIMENTS["li-ensembles"].citation == "Li et al. 2013, sec. 4"


@pytest.fixture(scope="module")
def quick_runs(tmp_path_factory, shared_data):
    """The --quick configuration, run with one and with two workers."""
    import os

    from stablefs.experiments._run import reproduce

    os.environ["STABLEFS_DATA"] = str(shared_data)
    base = tmp_path_factory.mktemp("li")
    cfg = EXP.quick_config()
    one = reproduce(EXP, cfg, base / "one", seed=5, n_jobs=1, config_name="quick")
    two = reproduce(EXP, cfg, base / "two", seed=5, n_jobs=2, figures=False,
                    config_name="quick")
    return cfg, one, two


def test_quick_run_writes_claims_tables_and_figures(quick_runs):
    cfg, one, _ = quick_runs
    out = one.out_dir
    for name in ("claims.csv", "report.md", "report.html", "run.json", "tables/stability.csv",
                 "tables/tradeoff.csv", "tables/times.csv", "tables/published.csv",
                 "figures/fig1_stability.png", "figures/fig2_3_fmeasure_svm.svg",
                 "figures/fig2_3_fmeasure_3nn.png"):
        assert (out / name).is_file(), name
    claims = pd.read_csv(out / "claims.csv")
    assert claims["id"].tolist() == ["1a", "1b", "1c", "2a", "2b", "3a", "3b"]
    assert set(claims["verdict"]) <= set(VERDICTS)
    assert claims["statement"].str.len().min() > 20
    report = (out / "report.md").read_text()
    assert "Li et al. 2013" in report and "seed 003" not in report
    stab = pd.read_csv(out / "tables/stability.csv")
    assert len(stab) == len(cfg.datasets) * 5 * len(cfg.ensemble_sizes)
    assert stab.spearman.between(-1, 1).all()
    assert ((stab.low <= stab.spearman + 1e-12) & (stab.spearman <= stab.high + 1e-12)).all()
    flat = stab[stab.method.str.startswith("IW")].groupby("dataset").spearman.nunique()
    assert (flat == 1).all()  # not an ensemble: the same value for every m
    trade = pd.read_csv(out / "tables/tradeoff.csv")
    # Sonar has 60 features: both k; Colon 2000
    assert len(trade) == len(cfg.datasets) * 5 * len(cfg.classifiers) * len(cfg.cv_sizes)
    f = 2 * trade.stability * trade.accuracy / (trade.stability + trade.accuracy)
    np.testing.assert_allclose(trade.F, f)
    comp = pd.read_csv(out / "tables/comparisons.csv")
    per_claim = comp.groupby("claim").size()
    assert (per_claim[["1a", "1b", "1c", "2a", "2b"]] == 2 * len(cfg.ensemble_sizes)).all()
    assert (per_claim[["3a", "3b"]] == 2 * len(cfg.classifiers) * len(cfg.cv_sizes)).all()
    assert set(comp.verdict) <= set(VERDICTS)
    # a claim holds only if every comparison behind it holds
    for cid, g in comp.groupby("claim"):
        verdict = claims.set_index("id").loc[cid, "verdict"]
        assert (verdict == "holds") == (g.verdict == "holds").all()
    pub = pd.read_csv(out / "tables/published.csv")
    assert "not available" in pub.ours.tolist()
    info = json.loads((out / "run.json").read_text())
    assert info["experiment"] == "li-ensembles" and info["seed"] == 5


def test_results_do_not_depend_on_n_jobs(quick_runs):
    _, one, two = quick_runs
    for name in ("claims.csv", "tables/stability.csv", "tables/tradeoff.csv",
                 "tables/comparisons.csv"):
        pd.testing.assert_frame_equal(pd.read_csv(one.out_dir / name),
                                      pd.read_csv(two.out_dir / name))


def test_stability_is_recomputable_from_the_public_classes(quick_runs, shared_data):
    """E3.1 for REn at the largest m on Sonar, recomputed by hand with separate fits."""
    from stablefs.experiments._base import load_dataset
    from stablefs.experiments._montecarlo import unit_seed
    from stablefs.experiments.li_ensembles.protocol import _STAB, _subsample
    from stablefs.methods import make_selector
    from stablefs.stability import spearman

    cfg, one, _ = quick_runs
    X, y = load_dataset("sonar")
    m = max(cfg.ensemble_sizes)
    rankings = []
    for s in range(cfg.n_subsamples):
        train = _subsample(y.size, cfg.fraction, 5, 0, s)
        state = int(np.random.default_rng(unit_seed(5, _STAB, 0, s)).integers(2**31 - 1))
        ren = make_selector("ren-logistic-margin", n_estimators=m, random_state=state)
        rankings.append(ren.fit(X[train], y[train]).ranking_)
    stab = pd.read_csv(one.out_dir / "tables/stability.csv")
    row = stab[(stab.dataset == "sonar") & (stab.method == "REn") & (stab.m == m)]
    assert row.spearman.item() == pytest.approx(spearman(np.array(rankings)))
