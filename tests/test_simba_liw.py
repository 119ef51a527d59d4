"""``stablefs reproduce simba-liw`` (Prat Masramon 2016, sec. 8.4.1) and its helpers."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

from stablefs._errors import StablefsError
from stablefs.datasets import make_han2012
from stablefs.experiments import EXPERIMENTS, reproduce
from stablefs.experiments._base import VERDICTS, parse_overrides
from stablefs.experiments._output import CLAIM_COLUMNS
from stablefs.experiments._stats import bootstrap_counts, kuncheva_boot, kuncheva_path
from stablefs.experiments.simba_liw.protocol import (
    PUBLISHED,
    READINGS,
    RELIEFF_READINGS,
    SimbaLiwConfig,
    _weight_diagnostics,
    top_k_precision,
    weight_angle,
    xor_data,
)
from stablefs.selectors import Simba
from stablefs.selectors.simba import simba_weights
from stablefs.stability import kuncheva

EXP = EXPERIMENTS["simba-liw"]
CLAIM_IDS = (["5a", "5b", "5c", "5d", "5e", "R", "10a", "10b"]
             + [f"{c}/{r}" for r in READINGS for c in ("5a", "5b")]
             + [f"R/{r}" for r in RELIEFF_READINGS])


# -------------------------------------------------------------------------- helpers


def test_top_k_precision_by_hand():
    orders = np.array([[0, 1, 7, 8], [9, 2, 3, 0], [5, 6, 7, 8]])
    relevant = [0, 1, 2, 3]
    np.testing.assert_allclose(top_k_precision(orders, relevant, 2), [1.0, 0.5, 0.0])
    np.testing.assert_allclose(top_k_precision(orders, relevant, 4), [0.5, 0.75, 0.0])
    with pytest.raises(ValueError):
        top_k_precision(orders, relevant, 5)


def test_kuncheva_path_matches_the_measure_and_the_bootstrap():
    rng = np.random.default_rng(0)
    p, m, K = 30, 7, 12
    # rankings that agree a little: a shared preference plus noise
    score = rng.normal(size=(m, p)) + np.linspace(2, 0, p)
    orders = np.argsort(-score, axis=1)[:, :K]
    ks = [1, 3, 5, 12]
    path = kuncheva_path(orders, p, ks)
    for j, k in enumerate(ks):
        assert path[j] == pytest.approx(kuncheva([o[:k] for o in orders], p))
    counts = bootstrap_counts(rng, m, 50)
    boot = kuncheva_path(orders, p, ks, counts)
    for j, k in enumerate(ks):
        S = np.zeros((m, p), dtype=bool)
        for i, o in enumerate(orders):
            S[i, o[:k]] = True
        np.testing.assert_allclose(boot[:, j], kuncheva_boot(S, counts), equal_nan=True)
    with pytest.raises(ValueError):
        kuncheva_path(orders, p, [13])


def test_weight_angle_by_hand():
    w = np.array([[1, 1, 1, 0, 0], [0, 0, 0, 2, 0], [3, 0, 0, 0, 0], [0, 0, 0, 0, 0]], float)
    np.testing.assert_allclose(weight_angle(w, 3),
                               [0.0, 90.0, np.degrees(np.arccos(1 / np.sqrt(3))), 90.0],
                               atol=1e-6)


def test_weight_diagnostics_by_hand():
    got = _weight_diagnostics(np.array([1.0, 1.0, 2.0, 0.1]), np.array([0, 0, 1, 0], bool))
    mean = 4.1 / 4
    np.testing.assert_allclose(got, [4.1**2 / 6.01 / 4, 0.25, 2 / mean, 0.25])
    assert np.isnan(_weight_diagnostics(np.ones(3), np.zeros(3, bool))[2])


def test_xor_labels_are_the_parity_of_the_first_signs():
    X, y = xor_data(200, 6, 3, random_state=4)
    assert X.shape == (200, 6) and X.min() >= -1 and X.max() <= 1
    for row, label in zip(X[:20], y[:20], strict=True):
        positives = int(row[0] > 0) + int(row[1] > 0) + int(row[2] > 0)
        assert label == positives % 2
    assert np.array_equal(xor_data(200, 6, 3, random_state=4)[1], y)


def test_sec_8_4_1_labels_and_components():
    """make_han2012(balanced=False, label_by="sign"): components by a fair coin, labels the
    sign of r . x with r = 0.02 on the first 50 features (the thesis' generator)."""
    ds = make_han2012(n_samples=400, balanced=False, label_by="sign", random_state=5)
    r = np.r_[np.full(50, 0.02), np.zeros(950)]
    np.testing.assert_array_equal(ds.y, np.where(ds.X @ r > 0, 1, -1))
    comp = ds.meta["component"]
    assert set(comp.tolist()) == {1, 2} and np.sum(comp == 1) != 200  # not forced to halves
    balanced = make_han2012(n_samples=400, balanced=True, random_state=5)
    assert np.sum(balanced.meta["component"] == 1) == 200


def test_simba_callback_follows_every_update_without_changing_the_result():
    X, y = xor_data(60, 5, 2, random_state=1)
    seen = []
    final = simba_weights(X, y, n_passes=2, random_state=3,
                          callback=lambda t, i, w: seen.append((t, i, w.copy())))
    assert [t for t, _, _ in seen] == list(range(1, 121))
    assert sorted(i for _, i, _ in seen[:60]) == list(range(60))  # one pass = a permutation
    last = seen[-1][2] ** 2
    np.testing.assert_allclose(final, last / last.max())
    np.testing.assert_array_equal(final, simba_weights(X, y, n_passes=2, random_state=3))
    sel = Simba(instance_weighting="logistic", delta=True, random_state=3).fit(X, y)
    again = simba_weights(X, y, sel.instance_weights_, delta=True, random_state=3,
                          callback=lambda *a: None)
    np.testing.assert_allclose(again, sel.scores_)


# -------------------------------------------------------------------------- configuration


def test_registry_and_configurations():
    assert EXP.citation.startswith("Prat Masramon 2016, sec. 8.4.1")
    default, quick = EXP.default_config(), EXP.quick_config()
    assert (default.n_sets, default.n_train, default.n_features, default.k_max) == (500, 100,
                                                                                   1000, 200)
    assert default.relieff_sets == 100 and default.relieff_k == 50
    EXP.check_config(default)
    EXP.check_config(quick)
    assert EXP.estimate_seconds(quick, 2) < 60 < EXP.estimate_seconds(default, 2)
    got = parse_overrides(SimbaLiwConfig, ["strategy=order", "balanced=true", "n_sets=50"])
    assert got == {"strategy": "order", "balanced": True, "n_sets": 50}


@pytest.mark.parametrize("change, match", [
    ({"n_sets": 1}, "n_sets = 1: it must be a whole number >= 2"),
    ({"strategy": "random"}, "use normal, sample or order"),
    ({"weight_scale": "sum"}, "use mean or none"),
    ({"k_max": 1000}, "k_max = 1000 must be below n_features"),
    ({"precision_k": 250}, "precision_k = 250 must be at most k_max"),
    ({"peak_low": 60}, "peak_low = 60 must be at most peak_high"),
    ({"relieff_sets": 600}, "relieff_sets = 600 must be at most n_sets"),
    ({"control_sets": 501}, "control_sets = 501 must be at most n_sets"),
    ({"xor_relevant": 10}, "xor_relevant = 10 must be below xor_features"),
    ({"rho": 1.0}, "rho = 1.0"),
    ({"alpha": 0.7}, "alpha = 0.7"),
    ({"n_relevant": 1000}, "n_relevant = 1000 must be below n_features"),
])
def test_bad_configurations_are_refused_in_one_line(change, match):
    with pytest.raises(StablefsError, match=match) as err:
        EXP.check_config(dataclasses.replace(SimbaLiwConfig(), **change))
    assert "\n" not in str(err.value)


# -------------------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def quick_runs(tmp_path_factory):
    """The --quick configuration, with one and with two workers."""
    base = tmp_path_factory.mktemp("simba_liw")
    cfg = EXP.quick_config()
    one = reproduce(EXP, cfg, base / "one", seed=0, n_jobs=1)
    two = reproduce(EXP, cfg, base / "two", seed=0, n_jobs=2, figures=False)
    return cfg, one, two


def test_quick_run_writes_claims_tables_and_figures(quick_runs):
    cfg, one, _ = quick_runs
    out = one.out_dir
    for name in ("claims.csv", "report.md", "report.html", "run.json", "tables/kuncheva.csv",
                 "tables/kuncheva_differences.csv", "tables/precision.csv",
                 "tables/relieff.csv", "tables/xor_weights.csv", "tables/xor_summary.csv",
                 "tables/xor_path.csv", "tables/published.csv", "tables/controls.csv",
                 "tables/instance_weights.csv",
                 "figures/fig8_2_stability_precision.png",
                 "figures/fig8_3_peak_precision_recall.svg",
                 "figures/fig8_4_xor_weights.png", "figures/xor_convergence.png",
                 "figures/relieff_stability.png"):
        assert (out / name).is_file(), name
    claims = pd.read_csv(out / "claims.csv")
    assert list(claims.columns) == CLAIM_COLUMNS
    assert claims["id"].tolist() == CLAIM_IDS
    assert set(claims["verdict"]) <= set(VERDICTS)
    info = json.loads((out / "run.json").read_text())
    assert info["experiment"] == "simba-liw" and info["config"]["n_sets"] == cfg.n_sets
    assert set(info["timings_s"]) == {"training_sets", "xor", "analysis"}
    report = (out / "report.md").read_text()
    assert "Prat Masramon 2016" in report and "seed 002" not in report
    assert "What the instance weights do" in report
    controls = pd.read_csv(out / "tables" / "controls.csv")
    assert len(controls) == 5 and (controls.sets == cfg.control_sets).all()
    simba = controls.iloc[0]
    assert simba.variant == "Simba" and simba.precision_minus_simba_low == 0
    weights = pd.read_csv(out / "tables" / "instance_weights.csv")
    assert weights.effective_share.between(0, 1).all()
    readings = pd.read_csv(out / "tables" / "readings.csv")
    assert readings.reading.tolist() == list(READINGS)
    assert (readings.sets == cfg.reading_sets).all()
    assert set(readings.verdict_5a) | set(readings.verdict_5b) <= set(VERDICTS)
    # Simba does not depend on eq. 8.2's margin: the two margin readings share its fits
    by = readings.set_index("reading")
    for rest in ("scaled/permutation", "unscaled/draws"):
        assert by.loc[f"nearest/{rest}", "simba_precision"] == \
            by.loc[f"all/{rest}", "simba_precision"]
    assert "Closest to the thesis' precisions" in report
    rr = pd.read_csv(out / "tables" / "relieff_readings.csv")
    assert rr.reading.tolist() == list(RELIEFF_READINGS)


def test_quick_run_numbers_are_recomputable(quick_runs):
    cfg, one, _ = quick_runs
    t = one.out_dir / "tables"
    kun = pd.read_csv(t / "kuncheva.csv")
    assert sorted(set(kun.method)) == ["Simba", "SimbaLIW", "SimbaMIW"]
    assert kun.k.max() == cfg.k_max and kun.kuncheva.between(-1, 1).all()
    prec = pd.read_csv(t / "precision.csv")
    assert len(prec) == 3 * cfg.n_sets
    means = prec.groupby("method")["precision_top50"].mean()
    claims = pd.read_csv(one.out_dir / "claims.csv").set_index("id")
    assert f"Simba {means['Simba']:.4f}, SimbaLIW {means['SimbaLIW']:.4f}" in claims.loc["5b",
                                                                                        "ours"]
    # the peak in 5c is the argmax of the table
    simba = kun[kun.method == "Simba"]
    peak = int(simba.k.iloc[int(np.argmax(simba.kuncheva.to_numpy()))])
    assert claims.loc["5c", "ours"].startswith(f"maximum at k = {peak} ")
    assert (prec.loc[prec.method == "Simba", "peak_k"] == peak).all()
    # recall at the peak = precision x k / 50
    np.testing.assert_allclose(prec.recall_at_peak, prec.precision_at_peak * prec.peak_k / 50)
    summary = pd.read_csv(t / "xor_summary.csv").set_index("method")
    assert summary.loc["Relief", "share_top3_correct"] <= 1
    assert summary["final_angle_deg"].between(0, 90).all()


def test_relief_margins_all_the_rest_by_hand():
    from stablefs.stabilizers import logistic_instance_weights, relief_margins

    X = np.array([[0.0], [1.0], [3.0], [7.0]])
    y = np.array([0, 0, 1, 1])
    # nearest: x0 hit 1 miss 3 -> (3-1)/2; x1 (2-1)/2; x2 (2-4)/2; x3 (6-4)/2
    np.testing.assert_allclose(relief_margins(X, y, scale=False), [1.0, 0.5, -1.0, 1.0])
    # all the rest: x0 misses 3, 7 (mean 5), hit 1 -> (5-1)/2 = 2; x1 (4-1)/2; x2 (2.5-4)/2;
    # x3 (6.5-4)/2
    np.testing.assert_allclose(relief_margins(X, y, scale=False, margin="all"),
                               [2.0, 1.5, -0.75, 1.25])
    # min-max scaling divides every distance by the range 7
    np.testing.assert_allclose(relief_margins(X, y, margin="all"),
                               np.array([2.0, 1.5, -0.75, 1.25]) / 7)
    w = logistic_instance_weights(X, y, scale=False, margin="all")
    assert np.argmin(w) == 2 and np.all((w > 0) & (w < 1))
    with pytest.raises(StablefsError, match="margin"):
        relief_margins(X, y, margin="mean")


def test_published_numbers_are_the_thesis(quick_runs):
    _, one, _ = quick_runs
    pub = pd.read_csv(one.out_dir / "tables" / "published.csv")
    assert list(pub.columns) == ["quantity", "published", "ours", "source"]
    rows = pub.set_index("quantity")["published"]
    assert float(rows["top-50 precision, Simba (mean over the training sets)"]) == 0.4722
    assert float(rows["top-50 precision, SimbaLIW"]) == 0.5414
    assert int(rows["k of maximum Kuncheva index, Simba"]) == 42
    assert int(rows["k of maximum Kuncheva index, SimbaLIW"]) == 40
    assert PUBLISHED == {"precision": {"simba": 0.4722, "simba-liw": 0.5414},
                         "peak": {"simba": 42, "simba-liw": 40}}


def test_results_do_not_depend_on_n_jobs(quick_runs):
    _, one, two = quick_runs
    for name in ("claims.csv", "tables/kuncheva.csv", "tables/precision.csv",
                 "tables/relieff.csv", "tables/xor_summary.csv", "tables/xor_path.csv"):
        assert (one.out_dir / name).read_bytes() == (two.out_dir / name).read_bytes(), name
