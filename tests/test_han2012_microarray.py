"""``stablefs reproduce han2012-microarray`` (Han 2012, ch. 7)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from stablefs._errors import StablefsError
from stablefs.experiments._base import VERDICTS, parse_overrides
from stablefs.experiments.han2012_microarray.experiment import Han2012Microarray
from stablefs.experiments.han2012_microarray.protocol import (
    _CV,
    _SPLIT,
    METHODS,
    Han2012MicroarrayConfig,
    _cv_folds,
    _npogr_data,
    _prefiltered,
    _split_test,
    _unit,
    pair_mean_boot,
    published_consensus,
    published_tables,
    run_methods,
)

TINY = Han2012MicroarrayConfig(datasets=("colon",), cv_repeats=2, cv_folds=3, n_splits=4,
                               cv_sizes=(5, 10), split_sizes=(5, 10), signature_size=10,
                               npogr_pairs=50, n_bootstrap=50)


def test_published_tables_are_the_thesis():
    t = published_tables()
    assert len(t) == 4 * 24 * 5
    row = t[(t.table == "7.2") & (t.data == "Colon") & (t.classifier == "SVM")
            & (t.method == "IW SVM-RFE") & (t.k == 20)]
    assert row[["mean", "sd"]].to_numpy().tolist() == [[86.6, 1.3]]
    assert set(t[t.table == "7.4"].data) == {"Colon", "Leukemia", "Prostate", "Lung"}
    c = published_consensus()
    assert len(c) == 12
    colon = c[c.data == "Colon"].set_index("method")
    assert colon.loc["SVM-RFE"].tolist()[1:] == [642, 18, 1]
    assert colon.loc["IW SVM-RFE"].tolist()[1:] == [350, 36, 16]


def test_protocols_are_seeded_stratified_and_disjoint():
    y = np.repeat(["a", "b"], [40, 22])
    fold = _cv_folds(y, 10, seed=0, d=0, rep=3)
    assert sorted(set(fold.tolist())) == list(range(10))
    for c in "ab":
        counts = np.bincount(fold[y == c], minlength=10)
        assert counts.max() - counts.min() <= 1
    assert np.array_equal(fold, _cv_folds(y, 10, seed=0, d=0, rep=3))
    assert not np.array_equal(fold, _cv_folds(y, 10, seed=0, d=0, rep=4))
    test = _split_test(y, seed=0, d=0, split=5)
    assert test[y == "a"].sum() == 40 - round(40 * 2 / 3)
    assert test[y == "b"].sum() == 22 - round(22 * 2 / 3)
    assert np.array_equal(test, _split_test(y, seed=0, d=0, split=5))
    assert not np.array_equal(test, _split_test(y, seed=0, d=0, split=6))


def test_prefilter_uses_the_training_part_only():
    """The t-test filter is a function of the rows it is given: poisoning other rows changes
    nothing, and it keeps the genes of largest |t| (Welch)."""
    from scipy import stats

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 40))
    y = np.repeat(["a", "b"], 15)
    X[y == "b", :5] += 2.0
    kept = _prefiltered(X[:20], y[:20], 8)
    poisoned = X.copy()
    poisoned[20:] = 1e6
    assert np.array_equal(kept, _prefiltered(poisoned[:20], y[:20], 8))
    t = np.abs(stats.ttest_ind(X[:20][y[:20] == "a"], X[:20][y[:20] == "b"],
                               equal_var=False).statistic)
    assert np.array_equal(kept, np.sort(np.argsort(-t, kind="stable")[:8]))


def test_pair_mean_boot_matches_a_slow_reference():
    rng = np.random.default_rng(1)
    m = 6
    i, j = np.triu_indices(m, 1)
    values = rng.normal(size=i.size)
    counts = rng.multinomial(m, np.full(m, 1 / m), size=40).astype(float)
    got = pair_mean_boot(values, i, j, counts, block=7)
    for b, c in enumerate(counts):
        drawn = np.repeat(np.arange(m), c.astype(int))
        pairs = [(a, d) for x, a in enumerate(drawn) for d in drawn[x + 1:] if a != d]
        lookup = {(a, d): v for a, d, v in zip(i, j, values, strict=True)}
        want = np.mean([lookup[min(a, d), max(a, d)] for a, d in pairs]) if pairs else np.nan
        np.testing.assert_allclose(got[b], want, equal_nan=True)


def test_npogr_data_standardises_every_array():
    X = np.array([[50.0, 200.0, 20000.0, 1000.0], [100.0, 400.0, 800.0, 1600.0]])
    Z = _npogr_data(X)
    np.testing.assert_allclose(Z.mean(axis=1), 0, atol=1e-12)
    np.testing.assert_allclose(Z.std(axis=1), 1)
    L = np.log10([100.0, 200.0, 16000.0, 1000.0])  # floor 100, ceiling 16,000
    np.testing.assert_allclose(Z[0], (L - L.mean()) / L.std())


def test_overrides_and_bad_configurations():
    exp = Han2012Microarray()
    got = parse_overrides(Han2012MicroarrayConfig, ["datasets=colon,lung", "n_splits=20"])
    assert got == {"datasets": ("colon", "lung"), "n_splits": 20}
    exp.check_config(Han2012MicroarrayConfig(**got))
    for change, match in [({"datasets": ("colon", "srbct")}, "at most once"),
                          ({"signature_size": 40}, "must be one of split_sizes"),
                          ({"prefilter": 100}, "fewer genes than the largest k"),
                          ({"classifiers": ("lda",)}, "choose from svm, 1nn"),
                          ({"cv_sizes": (20, 10)}, "increasing order"),
                          ({"cv_repeats": 1}, "cv_repeats")]:
        with pytest.raises(StablefsError, match=match):
            exp.check_config(dataclasses.replace(Han2012MicroarrayConfig(), **change))
    quick = exp.quick_config()
    exp.check_config(quick)
    assert exp.estimate_seconds(quick, 2) < exp.estimate_seconds(exp.default_config(), 2)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory, shared_data):
    import os

    from stablefs.experiments._run import reproduce

    os.environ["STABLEFS_DATA"] = str(shared_data)
    out = tmp_path_factory.mktemp("han2012m")
    return reproduce(Han2012Microarray(), TINY, out / "run", seed=2, n_jobs=1)


def test_tiny_run_writes_tables_claims_and_figures(tiny_run):
    path = tiny_run.out_dir
    for name in ("claims.csv", "report.md", "report.html", "run.json",
                 "tables/cv_kuncheva.csv", "tables/cv_accuracy.csv", "tables/split_auc.csv",
                 "tables/npogr.csv", "tables/consensus.csv", "tables/times.csv",
                 "tables/published.csv", "figures/fig7_3_7_4_kuncheva.png",
                 "figures/fig7_5_7_6_npogr.svg", "figures/fig7_7_consensus.png"):
        assert (path / name).is_file(), name
    claims = pd.read_csv(path / "claims.csv")
    assert claims["id"].tolist() == ["5", "6a", "6b", "7a", "7b", "8", "9a", "9b", "10",
                                     "5-printed", "7a-printed", "9a-printed", "9b-printed"]
    assert set(claims["verdict"]) <= set(VERDICTS)
    cons = pd.read_csv(path / "tables/consensus.csv")
    assert (cons.total == TINY.n_splits * TINY.signature_size).all()
    assert (cons.distinct >= cons.over50).all() and (cons.over50 >= cons.over85).all()
    kun = pd.read_csv(path / "tables/cv_kuncheva_repeats.csv")
    assert len(kun) == len(run_methods(TINY)) * TINY.cv_repeats * len(TINY.cv_sizes)
    assert kun.kuncheva.between(-1, 1).all()
    pub = pd.read_csv(path / "tables/published.csv")
    assert pub.source.str.contains("Table 7.6").sum() == 0  # signature size 10, not 50
    same = pd.read_csv(path / "tables/same_genes.csv")
    assert (same.splits == TINY.n_splits).all()
    assert same.same_as_svm_rfe.between(0, TINY.n_splits).all()
    assert TINY.signature_size in set(same.k)


def test_tiny_run_kuncheva_and_accuracy_are_recomputable(tiny_run, shared_data):
    """One CV repetition recomputed from the public classes gives the run's numbers."""
    from stablefs.datasets import load
    from stablefs.evaluation.classifiers import make_classifier
    from stablefs.selectors import SVMRFE
    from stablefs.stability import kuncheva

    ds = load("colon")
    y = np.asarray(ds.y).astype(str)
    fold = _cv_folds(y, TINY.cv_folds, seed=2, d=0, rep=1)
    subsets, acc = [], []
    for f in range(TINY.cv_folds):
        test = fold == f
        rfe = SVMRFE().fit(ds.X[~test], y[~test])
        top = np.argsort(rfe.ranking_, kind="stable")[:10]
        subsets.append(top)
        model = make_classifier("svm").fit(ds.X[~test][:, top], y[~test])
        acc.append(np.mean(model.predict(ds.X[test][:, top]) == y[test]))
    kun = pd.read_csv(tiny_run.out_dir / "tables/cv_kuncheva_repeats.csv")
    row = kun[(kun.method == "svm-rfe") & (kun.repeat == 1) & (kun.k == 10)]
    assert row.kuncheva.item() == pytest.approx(kuncheva(subsets, ds.X.shape[1]))
    a = pd.read_csv(tiny_run.out_dir / "tables/cv_accuracy_repeats.csv")
    row = a[(a.method == "svm-rfe") & (a.classifier == "svm") & (a.k == 10) & (a.repeat == 1)]
    assert row.accuracy.item() == pytest.approx(np.mean(acc))
    assert len(pd.read_csv(tiny_run.out_dir / "tables/cv_accuracy.csv")) == 8 * 2 * 2


def test_units_are_deterministic(shared_data):
    from stablefs.datasets import load

    ds = load("colon")
    data = {"colon": (ds.X[:, :200], np.asarray(ds.y).astype(str))}
    cfg = dataclasses.asdict(dataclasses.replace(TINY, split_sizes=(5,), cv_sizes=(5,)))
    a = _unit((_SPLIT, 0, 1), cfg=cfg, seed=4, data=data)
    _unit((_CV, 0, 0, 0), cfg=cfg, seed=4, data=data)
    b = _unit((_SPLIT, 0, 1), cfg=cfg, seed=4, data=data)
    for key in a:
        if not key.endswith(":time"):
            np.testing.assert_array_equal(a[key], b[key])


def test_controls_are_the_printed_weights_and_the_small_penalty():
    """IW SVM-RFE as printed: every sample's penalty is C w_i with the margin weights summing
    to 1 (checked against SVC with those sample weights on the min-max scaled data); its
    control is plain SVM-RFE with C/n."""
    from sklearn.preprocessing import minmax_scale
    from sklearn.svm import SVC

    from stablefs.experiments.han2012_microarray.protocol import _make
    from stablefs.stabilizers import margin_instance_weights

    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], 15)
    X = rng.normal(size=(30, 40)) + 0.8 * y[:, None] * (np.arange(40) < 5)
    w = margin_instance_weights(X, y)
    assert w.sum() == pytest.approx(1.0)
    printed = _make("iw-svm-rfe-printed", y.size).fit(X, y)
    svc = SVC(kernel="linear", C=1.0).fit(minmax_scale(X), y, sample_weight=w)
    r = np.abs(svc.coef_[0]) / np.abs(svc.coef_[0]).sum()
    np.testing.assert_allclose(printed.selector_.weight_path_[0], r, atol=1e-6)
    small = _make("svm-rfe-small-c", y.size).fit(X, y)
    svc = SVC(kernel="linear", C=1.0 / y.size).fit(minmax_scale(X), y)
    r = np.abs(svc.coef_[0]) / np.abs(svc.coef_[0]).sum()
    np.testing.assert_allclose(small.weight_path_[0], r, atol=1e-6)
    assert run_methods({"controls": False}) == list(METHODS)
    # the experiment's "IW SVM-RFE" stays the mean-1 reading (the library default is printed)
    mean = _make("iw-svm-rfe", y.size).fit(X, y)
    assert mean.penalty == "mean" and printed.penalty == "printed"
    svc = SVC(kernel="linear", C=1.0).fit(minmax_scale(X), y, sample_weight=w * y.size)
    r = np.abs(svc.coef_[0]) / np.abs(svc.coef_[0]).sum()
    np.testing.assert_allclose(mean.selector_.weight_path_[0], r, atol=1e-6)
