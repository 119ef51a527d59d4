"""CRIDD (Xiao, Hua and Dougherty 2007, eq. 1 and Algorithm 1): a slow reference of one
Monte-Carlo run written with scikit-learn and SciPy, seeding independent of grouping and
workers (joblib and a Dask LocalCluster), the summary by hand, and one-line errors."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import ttest_ind
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.neighbors import KNeighborsClassifier

from stablefs._errors import StablefsError
from stablefs.datasets import make_xiao2007
from stablefs.evaluation.cridd import (
    cridd,
    cridd_runs,
    cridd_summary,
    kappa,
    parse_cv,
    run_streams,
    xiao2007_test_sampler,
)
from stablefs.evaluation.error_estimators import stratified_folds


def _reference_run(run, seed, classifier, n_samples, n_folds, n_test=5000):
    """Algorithm 1 for the t-test, step by step, with SciPy's t-test and scikit-learn's rules
    (LDA equals ours with equal classes; 3NN is the same rule)."""
    s = run_streams(seed, run)
    ds = make_xiao2007("equal", n_samples=n_samples, random_state=s["sample"])
    X, y, best = ds.X, ds.y, ds.relevant

    def top(Xa, ya):
        t = np.abs(ttest_ind(Xa[ya == 1], Xa[ya == 0]).statistic)  # pooled variance
        return np.sort(np.argsort(-t, kind="stable")[:10])

    def model():
        return (LinearDiscriminantAnalysis(solver="lsqr") if classifier == "lda"
                else KNeighborsClassifier(3))

    F = top(X, y)
    union = np.union1d(F, best)
    Xt, yt = xiao2007_test_sampler(ds.meta)(s["test"], n_test, union)
    col = {int(f): i for i, f in enumerate(union)}
    E = np.mean(model().fit(X[:, F], y).predict(Xt[:, [col[f] for f in F]]) != yt)
    Eb = np.mean(model().fit(X[:, best], y).predict(Xt[:, [col[f] for f in best]]) != yt)
    fold = stratified_folds(y, n_folds, s["folds"])
    err = err_b = 0
    for f in range(n_folds):
        te, tr = fold == f, fold != f
        Fi = top(X[tr], y[tr])
        err += np.sum(model().fit(X[tr][:, Fi], y[tr]).predict(X[te][:, Fi]) != y[te])
        err_b += np.sum(model().fit(X[tr][:, best], y[tr]).predict(X[te][:, best]) != y[te])
    return err / n_samples - E, err_b / n_samples - Eb


@pytest.mark.parametrize("classifier,cv,folds", [("lda", "cv10", 10), ("3nn", "loo", 30)])
def test_runs_equal_a_slow_reference(classifier, cv, folds):
    out = cridd_runs("equal", selector="ttest", classifier=classifier, cv=cv, n_samples=30,
                     runs=[0, 7], random_state=3)
    for i, run in enumerate((0, 7)):
        dE, dEb = _reference_run(run, 3, classifier, 30, folds)
        assert out["dE"][i] == pytest.approx(dE, abs=1e-12)
        assert out["dEb"][i] == pytest.approx(dEb, abs=1e-12)


def test_test_sampler_draws_the_model_distribution():
    for model in ("equal", "unequal", "bimodal"):
        ds = make_xiao2007(model, n_samples=2, random_state=0)
        cols = np.array([0, 1, 2, 20, 199])
        X, y = xiao2007_test_sampler(ds.meta)(np.random.default_rng(1), 60_000, cols)
        m = ds.meta["scale"] * ds.meta["mu"][cols]
        scale1 = np.sqrt(2.0) if model == "unequal" else 1.0
        mean0 = np.zeros(5) if model == "bimodal" else m
        mean1 = np.zeros(5) if model == "bimodal" else -m
        cov = np.eye(5)
        cov[:3, :3] = 0.1
        np.fill_diagonal(cov, 1.0)
        cov1 = cov * scale1**2 + (np.outer(m, m) if model == "bimodal" else 0.0)
        for c, mean, cv in ((0, mean0, cov), (1, mean1, cov1)):
            Z = X[y == c]
            assert np.abs(Z.mean(axis=0) - mean).max() < 0.03
            assert np.abs(np.cov(Z.T) - cv).max() < 0.06


def test_results_do_not_depend_on_grouping_or_workers():
    kw = dict(selector="ttest", classifier="lda", cv="cv10", n_samples=30, random_state=5,
              n_boot=50)
    a = cridd("equal", n_runs=12, runs_per_task=12, **kw)
    b = cridd("equal", n_runs=12, runs_per_task=5, **kw)
    for key in ("dE", "dEb", "F"):
        assert np.array_equal(a[key], b[key])
    assert a["kappa"] == b["kappa"] and a["kappa_low"] == b["kappa_low"]
    part = cridd_runs("equal", runs=[3, 4], **{k: v for k, v in kw.items() if k != "n_boot"})
    assert np.array_equal(part["dE"], a["dE"][3:5])


@pytest.mark.slow
def test_dask_local_cluster_gives_the_joblib_numbers():
    pytest.importorskip("dask.distributed")
    kw = dict(selector="sfs", classifier="lda", cv="cv10", n_samples=30, random_state=2,
              n_boot=50, n_runs=4, runs_per_task=1)
    joblib_run = cridd("equal", n_jobs=2, **kw)
    dask_run = cridd("equal", n_jobs=2, backend="dask", **kw)
    for key in ("dE", "dEb", "F"):
        assert np.array_equal(joblib_run[key], dask_run[key])


def test_wrapper_selection_uses_the_seed_criterion():
    out = cridd_runs("equal", selector="sfs", classifier="lda", cv="cv10", n_samples=30,
                     runs=[1], random_state=0)
    from stablefs.selectors import SFS

    ds = make_xiao2007("equal", n_samples=30, random_state=run_streams(0, 1)["sample"])
    sel = SFS(10, estimator="lda", criterion="bolstered").fit(ds.X, ds.y)
    assert np.array_equal(out["F"][0], sel.get_support(indices=True))


def test_summary_by_hand():
    dE = np.array([0.1, -0.1, 0.2, -0.2])
    dEb = np.array([0.05, -0.05, 0.0, 0.0])
    vE = np.var(dE, ddof=1)
    vEb = np.var(dEb, ddof=1)
    assert kappa(dE, dEb) == pytest.approx((vE - vEb) / vE)
    s = cridd_summary(dE, dEb, n_boot=200)
    assert s["var_dE"] == pytest.approx(vE) and s["bias2_dE"] == pytest.approx(0.0)
    assert s["bias2_dEb"] == pytest.approx(0.0)
    assert s["kappa_low"] <= s["kappa_high"]
    pooled = cridd_summary(dE, np.r_[dEb, dEb, dEb], paired=False, n_boot=100)
    assert pooled["var_dEb"] == pytest.approx(np.var(np.r_[dEb, dEb, dEb], ddof=1))
    with pytest.raises(StablefsError, match="differ in length"):
        cridd_summary(dE, dEb[:3])


def test_kappa_interval_covers_a_known_value():
    # Var(dE) = 4, Var(dEb) = 1: kappa = 0.75
    rng = np.random.default_rng(0)
    dE = rng.normal(0, 2, 4000)
    dEb = rng.normal(0, 1, 4000)
    s = cridd_summary(dE, dEb, paired=False, n_boot=500)
    assert s["kappa_low"] < 0.75 < s["kappa_high"]
    assert s["kappa_high"] - s["kappa_low"] < 0.05


def test_dataset_model_subsamples_and_tests_on_the_rest():
    ds = make_xiao2007("equal", n_samples=120, random_state=4)
    out = cridd_runs(ds, selector="ttest", classifier="lda", cv="cv7", n_samples=35,
                     runs=[0, 1], random_state=1)
    assert out["E"].shape == (2,)
    # E is a fraction of the 85 points left out
    assert np.allclose(out["E"] * 85, np.round(out["E"] * 85))


def test_parse_cv():
    assert parse_cv("cv10", 50) == 10 and parse_cv("loo", 50) == 50 and parse_cv(7, 35) == 7


def test_bad_input_one_line():
    with pytest.raises(StablefsError, match="model = 'linear'"):
        cridd("linear", n_runs=2)
    with pytest.raises(StablefsError, match="cv = 'kfold'"):
        cridd("equal", cv="kfold", n_runs=2)
    with pytest.raises(StablefsError, match="n_runs = 1"):
        cridd("equal", n_runs=1)
    with pytest.raises(StablefsError, match="n_jobs = 0"):
        cridd("equal", n_runs=2, n_jobs=0)
    with pytest.raises(StablefsError, match="unknown method"):
        cridd("equal", selector="relief-ish", n_runs=2)
    with pytest.raises(StablefsError, match="best= is needed"):
        from stablefs.datasets import Dataset

        data = Dataset(X=np.zeros((40, 3)) + np.arange(40)[:, None], y=np.arange(40) % 2,
                       feature_names=np.array(["a", "b", "c"]), name="toy")
        cridd(data, n_runs=2, n_samples=10)


def test_reproduce_xiao2007_cridd_tiny_configuration(tmp_path):
    from stablefs.experiments import get_experiment, reproduce
    from stablefs.experiments._base import config_from

    exp = get_experiment("xiao2007-cridd")
    config = config_from(exp.quick_config(), {
        "sample_sizes": (30,), "classifiers": ("lda", "3nn"), "cvs": ("cv10",),
        "n_runs": 6, "n_runs_slow": 0, "runs_per_unit": 4, "n_bootstrap": 50})
    exp.check_config(config)
    summary = reproduce(exp, config, tmp_path / "run", seed=1, figures=False)
    table = __import__("pandas").read_csv(tmp_path / "run" / "tables" / "cridd.csv")
    assert len(table) == 4 and set(table.selector) == {"ttest", "sfs", "sffs"}
    # the t-test and wrapper cells of a row share one pooled Var(dE_b)
    lda = table[table.classifier == "lda"]
    assert lda.var_dEb_pooled.nunique() == 1
    assert set(summary.claims.id) >= {"1", "3", "7", "9"}
    published = tmp_path / "run" / "tables" / "published.csv"
    assert not published.exists() or not published.read_text().strip()  # N = 30: not printed
    with pytest.raises(StablefsError, match="models = cubic"):
        exp.check_config(config_from(config, {"models": ("cubic",)}))


def test_experiment_units_use_mu_other():
    """mu_other reaches the model: with the other features' means raised towards the best
    ones, the t-test picks fewer of the best ten; 0 and values at or above mu_best are checked."""
    import dataclasses

    from stablefs.experiments import get_experiment
    from stablefs.experiments.xiao2007_cridd.protocol import MU_OTHER, Xiao2007Config, _unit, cells

    config = Xiao2007Config(models=("equal",), sample_sizes=(50,), classifiers=("lda",),
                            cvs=("cv10",), selectors=("ttest",), n_runs=20, runs_per_unit=20)
    by_key = {c["key"]: c for c in cells(config)}
    key = next(iter(by_key)) + (0,)
    best = set(range(0, 200, 20))
    found = {}
    for h in (0.0, MU_OTHER, 0.25):
        cfg = dataclasses.asdict(dataclasses.replace(config, mu_other=h))
        F = _unit(key, cells_by_key=by_key, cfg=cfg, seed=0)["F"]
        found[h] = sum(len(best & set(map(int, f))) for f in F)
    assert found[0.25] < found[MU_OTHER] <= found[0.0]
    exp = get_experiment("xiao2007-cridd")
    exp.check_config(dataclasses.replace(config, mu_other=0.0))
    for bad in (-0.01, config.mu_best, 1.0):
        with pytest.raises(StablefsError, match="mu_other"):
            exp.check_config(dataclasses.replace(config, mu_other=bad))


def test_reproduce_xiao2007_cridd_states_a_control_penalty(tmp_path):
    """A run with svm_c other than 1 or mu_other other than 0.05 says so at the top of its
    report and in its notes."""
    from stablefs.experiments import get_experiment, reproduce
    from stablefs.experiments._base import config_from

    exp = get_experiment("xiao2007-cridd")
    config = config_from(exp.quick_config(), {
        "sample_sizes": (20,), "classifiers": ("svm",), "cvs": ("cv5",),
        "selectors": ("ttest",), "n_runs": 4, "runs_per_unit": 2, "n_test": 300,
        "n_bootstrap": 20, "svm_c": 0.5, "mu_other": 0.0})
    exp.check_config(config)
    reproduce(exp, config, tmp_path / "run", seed=2, figures=False)
    report = (tmp_path / "run" / "report.md").read_text()
    assert "The SVM's C is 0.5, a control of the reading C = 1" in report
    assert "the SVM is linear with C = 0.5 (libsvm)" in report
    assert "mu on the other features is 0 (pure noise), a control of the reading 0.05" in report
    assert "and 0 (pure noise) on the others" in report


def test_mu_best_default_reproduces_table1_var_dEb():
    """The default height of mu on the ten best features is calibrated to Table 1 of Xiao, Hua
    and Dougherty (2007): the pooled Var(dE_b) of LDA, CV10, N = 50 is 17.48e-4. A small run
    reproduces it within its Monte-Carlo error; with the same draws (common random numbers) the
    earlier reading 0.3 gives a larger variance."""
    from stablefs.experiments.xiao2007_cridd.protocol import (
        CALIBRATION_TARGET,
        MU_BEST,
        Xiao2007Config,
        var_dEb_lda_cv10,
    )

    assert Xiao2007Config().mu_best == MU_BEST
    v, se = var_dEb_lda_cv10(MU_BEST, 1000, seed=3)
    assert abs(v - CALIBRATION_TARGET) < 3 * se, (v, se)
    v_old, _ = var_dEb_lda_cv10(0.3, 1000, seed=3)
    assert v_old > v


def test_experiment_units_use_mu_best():
    """The experiment's Monte-Carlo units draw the model with the configured height: a larger
    height separates the classes more, so the best features' true error E_b falls."""
    import dataclasses

    from stablefs.experiments.xiao2007_cridd.protocol import Xiao2007Config, _unit, cells

    config = Xiao2007Config(models=("equal",), sample_sizes=(30,), classifiers=("lda",),
                            cvs=("cv10",), selectors=("ttest",), n_runs=4, runs_per_unit=4)
    by_key = {c["key"]: c for c in cells(config)}
    key = next(iter(by_key)) + (0,)
    eb = {}
    for h in (0.3, 0.6):
        cfg = dataclasses.asdict(dataclasses.replace(config, mu_best=h))
        eb[h] = _unit(key, cells_by_key=by_key, cfg=cfg, seed=0)["Eb"]
    assert np.all(eb[0.6] < eb[0.3])
    from stablefs.experiments import get_experiment

    with pytest.raises(StablefsError, match="mu_best"):
        get_experiment("xiao2007-cridd").check_config(dataclasses.replace(config, mu_best=-1.0))


def test_experiment_units_use_the_svm_penalty():
    """svm_c reaches the SVM cells' rule and criterion on the same samples: the best features'
    true error E_b changes with it and the t-test's selections do not; other cells ignore it."""
    import dataclasses

    from stablefs.experiments import get_experiment
    from stablefs.experiments.xiao2007_cridd.protocol import Xiao2007Config, _unit, cells

    config = Xiao2007Config(models=("equal",), sample_sizes=(30,), classifiers=("lda", "svm"),
                            cvs=("cv10",), selectors=("ttest",), n_runs=3, runs_per_unit=3)
    by_key = {c["key"]: c for c in cells(config)}
    out = {}
    for C in (1.0, 1e-3):
        cfg = dataclasses.asdict(dataclasses.replace(config, svm_c=C))
        out[C] = {by_key[k]["classifier"]: _unit(k + (0,), cells_by_key=by_key, cfg=cfg, seed=0)
                  for k in by_key}
    assert np.array_equal(out[1.0]["svm"]["F"], out[1e-3]["svm"]["F"])
    assert not np.array_equal(out[1.0]["svm"]["Eb"], out[1e-3]["svm"]["Eb"])
    assert np.array_equal(out[1.0]["lda"]["Eb"], out[1e-3]["lda"]["Eb"])
    for bad in (0.0, -1.0, float("inf")):
        with pytest.raises(StablefsError, match="svm_c"):
            get_experiment("xiao2007-cridd").check_config(
                dataclasses.replace(config, svm_c=bad))


def _semi_bolstered_3nn_sklearn(X, y, cols, noise_seed, n_draws=10):
    """Semi-bolstered resubstitution of 3NN (Braga-Neto and Dougherty 2004) written with
    scikit-learn's KNeighborsClassifier and SciPy's chi-square median, on the wrappers' draws
    (feature f's standard normals from ``default_rng([noise_seed, f])``)."""
    from scipy.stats import chi2

    Xs = X[:, cols]
    n, k = Xs.shape
    knn = KNeighborsClassifier(3).fit(Xs, y)
    wrong = knn.predict(Xs) != y
    sigma = np.empty(n)
    for c in (0, 1):
        Xc = Xs[y == c]
        D = np.sqrt(((Xc[:, None] - Xc[None]) ** 2).sum(-1))
        np.fill_diagonal(D, np.inf)
        sigma[y == c] = D.min(axis=1).mean() / np.sqrt(chi2.ppf(0.5, k))
    eps = np.stack([np.random.default_rng([noise_seed, f]).standard_normal((n, n_draws))
                    for f in cols], axis=2)
    Z = (Xs[:, None, :] + sigma[:, None, None] * eps).reshape(n * n_draws, k)
    terms = (knn.predict(Z).reshape(n, n_draws) != y[:, None]).mean(axis=1)
    return float(np.where(wrong, 1.0, terms).mean())


@pytest.mark.parametrize("seed", [0, 1])
def test_3nn_wrapper_matches_a_slow_sklearn_search(seed):
    """The 3NN wrapper of the CRIDD runs (SFS on the semi-bolstered resubstitution error, Xiao,
    Hua and Dougherty 2007, sec. 3) against a slow SFS on a scikit-learn computation of the
    same criterion: the same subset and the same criterion values on the chosen and the known
    best features (docs/experiments.md: the wrapper's misses of the best features come from the
    criterion, not from our implementation of it)."""
    from stablefs.selectors.wrappers import make_criterion, sfs

    ds = make_xiao2007("equal", n_samples=40, n_features=60, random_state=100 + seed)
    X, y, best = ds.X, ds.y, ds.relevant
    crit = make_criterion(X, y, estimator="3nn", criterion="semi-bolstered", random_state=seed)
    chosen = sfs(crit, 3).subset
    noise_seed = crit.parts[0].noise.seed
    S: list[int] = []
    for _ in range(3):
        cands = [j for j in range(60) if j not in S]
        v = np.array([_semi_bolstered_3nn_sklearn(X, y, S + [j], noise_seed) for j in cands])
        S.append(cands[int(np.flatnonzero(v <= v.min() + 1e-12)[0])])
    np.testing.assert_array_equal(np.sort(S), chosen)
    for cols in (chosen, best):
        assert crit.error(cols) == pytest.approx(
            _semi_bolstered_3nn_sklearn(X, y, np.asarray(cols), noise_seed), abs=1e-12)


def test_wrapper_choice_counts_the_best_features():
    """wrapper_choice (the 3NN investigation of docs/experiments.md): its t-test share equals
    one computed with SciPy's t-test on the same samples, and every share is a fraction."""
    from stablefs.experiments.xiao2007_cridd.protocol import base_mu, wrapper_choice

    out = wrapper_choice("equal", n_samples=30, mu_best=0.315, n_sets=2, seed=40)
    found = []
    for r in range(2):
        ds = make_xiao2007("equal", n_samples=30, random_state=40 + r, mu=base_mu(0.315))
        t = np.abs(ttest_ind(ds.X[ds.y == 1], ds.X[ds.y == 0]).statistic)
        found.append(np.isin(np.argsort(-t, kind="stable")[:10], ds.relevant).mean())
    assert out["ttest"] == pytest.approx(np.mean(found))
    assert all(0.0 <= v <= 1.0 for v in out.values())
