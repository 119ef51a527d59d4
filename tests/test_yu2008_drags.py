"""``stablefs reproduce yu2008-drags`` (Yu, Ding and Loscalzo 2008, sec. 6)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from stablefs._errors import StablefsError
from stablefs.experiments._base import VERDICTS, parse_overrides
from stablefs.experiments.yu2008_drags.experiment import Yu2008Drags
from stablefs.experiments.yu2008_drags.protocol import (
    _FOLD,
    Yu2008Config,
    _folds,
    _unit,
    published_table2,
)

TINY = Yu2008Config(datasets=("colon",), n_partitions=2, n_folds=2, sizes=(4, 10),
                    dgf_sizes=(4, 10), kmeans_sizes=(4, 30), kmeans_clusters=12,
                    kmeans_n_init=1, n_bootstrap=50)


def test_published_table2_is_the_paper_s():
    t = published_table2()
    assert len(t) == 36 * 9
    row = t[(t.data == "Colon") & (t.classifier == "SVM") & (t.method == "DRAGS")]
    assert row[row.k == 4][["mean", "sd"]].to_numpy().tolist() == [[80.5, 9.6]]
    assert row[row.k == 0]["mean"].item() == 84.5
    # the printed averages are the means of the eight values, to rounding
    means = t[t.k > 0].groupby(["data", "classifier", "method"], sort=False)["mean"].mean()
    printed = t[t.k == 0].set_index(["data", "classifier", "method"])["mean"]
    assert np.all(np.abs(means - printed.loc[means.index]) <= 0.1)


def test_folds_are_stratified_partitions():
    y = np.repeat(["a", "b", "c"], [10, 7, 5])
    fold = _folds(y, 3, seed=0, d=0, partition=1)
    assert sorted(set(fold.tolist())) == [0, 1, 2]
    for c in "abc":
        counts = np.bincount(fold[y == c], minlength=3)
        assert counts.max() - counts.min() <= 1
    assert np.array_equal(fold, _folds(y, 3, seed=0, d=0, partition=1))
    assert not np.array_equal(fold, _folds(y, 3, seed=0, d=0, partition=2))


def test_overrides_and_bad_configurations():
    exp = Yu2008Drags()
    got = parse_overrides(Yu2008Config, ["datasets=colon,srbct", "self_neighbor=false",
                                         "kmeans_sizes=4,10"])
    assert got == {"datasets": ("colon", "srbct"), "self_neighbor": False,
                   "kmeans_sizes": (4, 10)}
    exp.check_config(Yu2008Config(**got))
    for change, match in [({"kmeans_clusters": 50}, "must exceed the largest k"),
                          ({"classifiers": ("svm", "lda")}, "choose from svm, 1nn"),
                          ({"sizes": (10, 4)}, "increasing order"),
                          ({"datasets": ("colon", "colon")}, "each set once"),
                          ({"kernel": "epanechnikov"}, "kernel"),
                          ({"n_partitions": 1}, "n_partitions")]:
        with pytest.raises(StablefsError, match=match):
            exp.check_config(dataclasses.replace(Yu2008Config(), **change))


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory, shared_data):
    import os

    from stablefs.experiments._run import reproduce

    os.environ["STABLEFS_DATA"] = str(shared_data)
    out = tmp_path_factory.mktemp("yu2008")
    return reproduce(Yu2008Drags(), TINY, out / "run", seed=3, n_jobs=1)


def test_tiny_run_writes_tables_claims_and_figures(tiny_run):
    path = tiny_run.out_dir
    for name in ("claims.csv", "report.md", "report.html", "run.json",
                 "tables/table2.csv", "tables/stability.csv", "tables/accuracy_folds.csv",
                 "tables/drags_signature.csv", "tables/published.csv",
                 "figures/fig2_dgf_kmeans.png", "figures/fig3_selection.png",
                 "figures/table2_accuracy.png"):
        assert (path / name).is_file(), name
    claims = pd.read_csv(path / "claims.csv")
    assert claims["id"].tolist() == ["2a", "2b", "2c", "2d", "T2a", "T2b", "T2c", "T2d",
                                     "T2e", "T2f", "3a", "3b", "3e", "3c", "3d"]
    assert set(claims["verdict"]) <= set(VERDICTS)
    # claims about sets not in the run cannot be tested by it, and say so
    t2b = claims.set_index("id").loc["T2b"]
    assert t2b.verdict == "not testable" and "no cases" in t2b.ours
    t2 = pd.read_csv(path / "tables/table2.csv")
    paper = published_table2()
    colon = paper[(paper.data == "Colon") & (paper.classifier == "SVM")
                  & (paper.method == "RFE") & (paper.k == 10)]["mean"].item()
    row = t2[(t2.classifier == "SVM") & (t2.method == "SVM-RFE") & (t2.k == 10)]
    assert row["paper_mean"].item() == colon
    stab = pd.read_csv(path / "tables/stability_folds.csv")
    assert len(stab) == 4 * (2 * 2 + 2 * 2 + 3 * 2 * 2)  # folds x (DGF, K-means, Fig. 3)
    ids = stab[stab.measure == "index"]["value"]
    assert ids.between(0, 1).all()
    sig = pd.read_csv(path / "tables/drags_signature.csv")
    assert (sig.groupby("group")["representative"].sum() == 1).all()


def test_tiny_run_accuracy_is_the_selectors_and_classifiers(tiny_run, shared_data):
    """One fold recomputed from the public classes: the same held-out accuracies."""
    from stablefs.datasets import load
    from stablefs.evaluation.classifiers import make_classifier
    from stablefs.selectors import DRAGS, SVMRFE

    ds = load("colon")
    y = np.asarray(ds.y).astype(str)
    test = _folds(y, 2, seed=3, d=0, partition=1) == 0
    drags = DRAGS(n_features_to_select=10).fit(ds.X[~test], y[~test])
    rfe = SVMRFE(n_features_to_select=4, step="halve").fit(ds.X[~test], y[~test])
    acc = pd.read_csv(tiny_run.out_dir / "tables/accuracy_folds.csv")
    acc = acc[(acc.partition == 1) & (acc.fold == 0)]
    for method, sel in (("DRAGS", drags), ("SVM-RFE", rfe)):
        for k in (4, 10):
            cols = np.argsort(sel.ranking_, kind="stable")[:k]
            for clf, name in (("SVM", "svm"), ("1NN", "1nn")):
                model = make_classifier(name).fit(ds.X[~test][:, cols], y[~test])
                want = 100 * np.mean(model.predict(ds.X[test][:, cols]) == y[test])
                got = acc[(acc.method == method) & (acc.k == k) & (acc.classifier == clf)]
                assert got["accuracy"].item() == pytest.approx(want)


def test_units_do_not_depend_on_order(shared_data):
    from stablefs.datasets import load

    ds = load("colon")
    data = {"colon": (ds.X[:, :300], np.asarray(ds.y).astype(str))}
    cfg = dataclasses.asdict(dataclasses.replace(TINY, kmeans_sizes=(4,)))
    a = _unit((_FOLD, 0, 1, 1), cfg=cfg, seed=5, data=data)
    _unit((_FOLD, 0, 0, 0), cfg=cfg, seed=5, data=data)
    b = _unit((_FOLD, 0, 1, 1), cfg=cfg, seed=5, data=data)
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
