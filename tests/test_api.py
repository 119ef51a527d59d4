"""The main job from Python: ``stablefs.compare`` and its ``Comparison`` (the same job, defaults
and files as ``stablefs compare``), ``read_comparison``, ``annotate``, and data as users have it
(DataFrames, ``(X, y)``, AnnData, sparse matrices)."""

from __future__ import annotations

import filecmp
import json

import numpy as np
import pandas as pd
import pytest

import stablefs
from cli_helpers import run
from stablefs import StablefsError
from stablefs.evaluation import runner as runner_mod

SMALL = dict(methods="ttest,relieff", sizes=[3, 6], repeats=4, classifiers="1nn",
             permutations=24, permutation_resamples=2, nested=0)
SMALL_CLI = ["-m", "ttest,relieff", "-k", "3,6", "--repeats", "4", "--classifiers", "1nn",
             "--permutations", "24", "--permutation-resamples", "2", "--nested", "0",
             "--no-progress"]


def toy_frame(n=30, p=12, seed=0, genes=None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = np.repeat(["healthy", "tumour"], n // 2)
    X[y == "tumour", :3] += 2.5
    genes = genes or [f"GENE{j}" for j in range(p)]
    df = pd.DataFrame(X, columns=genes, index=[f"patient{i}" for i in range(n)])
    df.insert(0, "label", y)
    return df


@pytest.fixture(scope="module")
def result():
    return stablefs.compare(toy_frame(), **SMALL)


def test_compare_returns_tidy_tables_with_the_gene_names(result):
    assert isinstance(result, stablefs.Comparison)
    assert set(result.stability["method"]) == {"ttest", "relieff"}
    assert set(result.stability["k"]) == {3, 6}
    assert list(result.stability.columns[:6]) == ["method", "k", "measure", "estimate", "low",
                                                 "high"]
    assert set(result.frequencies["feature"]) <= {f"GENE{j}" for j in range(12)}
    assert set(result.signature["feature"]) <= {f"GENE{j}" for j in range(12)}
    acc = result.accuracy
    assert list(acc.columns) == ["method", "k", "classifier", "mean", "sd", "n", "low", "high"]
    assert ((acc["mean"] >= 0) & (acc["mean"] <= 1)).all() and set(acc["classifier"]) == {"1nn"}
    assert not result.baseline.empty and not result.permutation.empty
    assert result.nested.empty  # nested=0
    assert result.folder is None and not result.reused
    assert result.run_info["command"] == (  # the report's "Rerun with"
        "stablefs.compare(data, methods='ttest,relieff', sizes=[3, 6], repeats=4, "
        "classifiers='1nn', permutations=24, permutation_resamples=2, nested=0)")


def test_recommendation_and_signal(result):
    rec, sig = result.recommendation, result.signal
    assert rec and rec.method in {"ttest", "relieff"} and rec.k in {3, 6}
    assert rec.measure == "nogueira" and rec.metric == "accuracy_1nn"
    assert 0 <= rec.stability <= 1 and rec.sentence.startswith("Recommended: ")
    assert sig.evidence is True and sig.tested and sig.p_value == pytest.approx(0.04)
    assert sig.verdict.startswith("evidence of signal")
    assert "Recommended:" in result.summary() and "nogueira stability" in result.summary()


def test_figures_draw_inline_without_pyplot(result):
    import matplotlib.figure

    for name in ("plot_stability", "plot_accuracy", "plot_tradeoff", "plot_frequencies",
                 "plot_selections", "plot_fit_time"):
        fig = getattr(result, name)()
        assert isinstance(fig, matplotlib.figure.Figure), name
        png = fig._repr_png_()  # what Jupyter shows
        assert png[:8] == b"\x89PNG\r\n\x1a\n", name
    with pytest.raises(StablefsError, match="no selections of method"):
        result.plot_selections("svm-rfe")


def test_html_and_repr(result):
    html = result._repr_html_()
    assert "<table>" in html and "nogueira stability" in html and "Recommended:" in html
    assert repr(result).startswith("<Comparison of 2 methods on 'DataFrame'")


def test_save_writes_the_cli_folder_byte_for_byte(result, tmp_path, capsys):
    """The same configuration through the CLI gives the same stability.csv (and the other
    deterministic tables); read_comparison reads either folder back."""
    folder = result.save(tmp_path / "api")
    data = tmp_path / "toy.csv"
    toy_frame().rename_axis("sample").to_csv(data)
    code, _, err = run(["compare", str(data), *SMALL_CLI, "--out", str(tmp_path / "cli")],
                       capsys)
    assert code == 0, err
    for name in ("stability.csv", "frequencies.csv", "signature.csv", "permutation.csv",
                 "comparisons.csv", "baseline.csv"):
        assert filecmp.cmp(folder / name, tmp_path / "cli" / name, shallow=False), name
    names = {p.name for p in (tmp_path / "cli").iterdir()}
    assert {p.name for p in folder.iterdir()} == names
    back = stablefs.read_comparison(folder)
    assert back.reused and back.dataset is None
    pd.testing.assert_frame_equal(back.stability, stablefs.read_comparison(
        tmp_path / "cli").stability)
    assert list(back.feature_names) == [f"GENE{j}" for j in range(12)]
    assert back.recommendation.method == result.recommendation.method
    # a read-back comparison saves the same folder again
    again = back.save(tmp_path / "copy")
    assert filecmp.cmp(again / "stability.csv", folder / "stability.csv", shallow=False)
    assert filecmp.cmp(again / "signature.csv", folder / "signature.csv", shallow=False)
    # saving onto the finished run of the same configuration leaves it as it is
    before = (folder / "run.json").read_bytes()
    assert result.save(folder) == folder and (folder / "run.json").read_bytes() == before


def test_out_reuses_and_resumes_from_python(tmp_path, monkeypatch):
    first = stablefs.compare(toy_frame(), out=tmp_path / "run", **SMALL)
    assert first.folder == tmp_path / "run" and (tmp_path / "run" / "report.html").exists()
    calls = []
    real = runner_mod._fit_task
    monkeypatch.setattr(runner_mod, "_fit_task", lambda *a, **k: calls.append(1) or real(*a, **k))
    second = stablefs.compare(toy_frame(), out=tmp_path / "run", **SMALL)
    assert calls == [] and second.reused
    pd.testing.assert_frame_equal(second.stability, stablefs.read_comparison(
        tmp_path / "run").stability)
    with pytest.raises(StablefsError, match="another configuration"):
        stablefs.compare(toy_frame(), out=tmp_path / "run", **{**SMALL, "repeats": 5})


def test_read_comparison_refuses_other_folders(tmp_path):
    with pytest.raises(StablefsError, match="no finished comparison"):
        stablefs.read_comparison(tmp_path)
    (tmp_path / "run.json").write_text(json.dumps({"tool": "other"}))
    with pytest.raises(StablefsError, match="does not hold a finished stablefs comparison"):
        stablefs.read_comparison(tmp_path)


def test_x_y_pairs_keep_names():
    df = toy_frame()
    X, y = df.drop(columns="label"), df["label"]
    by_frame = stablefs.compare((X, y), **{**SMALL, "permutations": 0})
    by_array = stablefs.compare((X.to_numpy(), y.to_numpy()), feature_names=list(X.columns),
                                **{**SMALL, "permutations": 0})
    pd.testing.assert_frame_equal(by_frame.stability, by_array.stability)
    assert set(by_array.frequencies["feature"]) <= set(X.columns)
    plain = stablefs.compare((X.to_numpy(), y.to_numpy()), **{**SMALL, "permutations": 0})
    assert set(plain.frequencies["feature"]) <= {f"f{j}" for j in range(12)}
    with pytest.raises(StablefsError, match="12 features"):
        stablefs.compare((X.to_numpy(), y.to_numpy()), feature_names=["a", "b"], **SMALL)
    with pytest.raises(StablefsError, match="29 labels"):
        stablefs.compare((X.to_numpy(), y.to_numpy()[:29]), **SMALL)


def test_run_experiment_keeps_dataframe_names_and_refuses_sparse():
    import scipy.sparse as sp

    from stablefs.evaluation import run_experiment

    df = toy_frame()
    X, y = df.drop(columns="label"), df["label"].to_numpy()
    res = run_experiment(X, y, ["ttest"], [3], n_repeats=3, classifiers=["1nn"],
                         measures=["nogueira"])
    assert set(res.frequencies["feature"]) <= set(X.columns)
    assert list(res.selections["train_samples"].iloc[0][:2]) == \
        list(X.index[res.selections["train"].iloc[0][:2]])
    with pytest.raises(StablefsError, match=r"sparse 30 x 12 matrix.*MiB as float64"):
        run_experiment(sp.csr_matrix(X.to_numpy()), y, ["ttest"], [3])


def test_options_are_checked_before_any_work(tmp_path):
    bad = [dict(methods="relif"), dict(measures="nogeuira"), dict(repeats=1),
           dict(permutations=-1), dict(nested="3"), dict(scale="log10"), dict(seed=-1),
           dict(n_jobs=0), dict(classifiers="knn9x")]
    for kwargs in bad:
        with pytest.raises(StablefsError):
            stablefs.compare(toy_frame(), out=tmp_path / "never", **kwargs)
    assert not (tmp_path / "never").exists()


def test_scale_auto_transforms_raw_looking_values_and_says_so(caplog):
    df = toy_frame(p=120)
    genes = df.columns[1:]
    df[genes] = np.exp2(df[genes] * 1.5 + 8)  # intensities: skewed, 99th percentile > 100
    with caplog.at_level("WARNING", logger="stablefs"):
        auto = stablefs.compare(df, scale="auto", **{**SMALL, "permutations": 0})
    assert "analysing log2(max(x, 0) + 1) (scale auto" in caplog.text
    assert auto.run_info["data_meta"]["scale"] == {"asked": "auto", "applied": "log2"}
    log2 = stablefs.compare(df, scale="log2", **{**SMALL, "permutations": 0})
    pd.testing.assert_frame_equal(auto.stability, log2.stability)


anndata = pytest.importorskip("anndata", reason="AnnData tests need the anndata package")


def toy_adata(**kwargs):
    df = toy_frame(**kwargs)
    obs = pd.DataFrame({"diagnosis": df["label"].to_numpy()}, index=df.index)
    var = pd.DataFrame({"symbol": [f"SYM{j}" for j in range(df.shape[1] - 1)]},
                       index=df.columns[1:])
    return anndata.AnnData(df.drop(columns="label").to_numpy(), obs=obs, var=var)


def test_anndata_in_memory_and_h5ad_give_the_same_comparison(tmp_path):
    adata = toy_adata()
    mem = stablefs.compare(adata, label="diagnosis", **SMALL)
    adata.write_h5ad(tmp_path / "toy.h5ad")
    disk = stablefs.compare(str(tmp_path / "toy.h5ad"), label="diagnosis", **SMALL)
    pd.testing.assert_frame_equal(mem.stability, disk.stability)
    assert set(mem.frequencies["feature"]) <= set(adata.var_names)
    assert set(disk.signature["feature"]) <= set(adata.var_names)
    by_symbol = stablefs.compare(adata, label="diagnosis", feature_names="symbol", **SMALL)
    assert set(by_symbol.frequencies["feature"]) <= set(adata.var["symbol"])


def test_annotate_writes_back_as_scanpy_tools_do(tmp_path):
    adata = toy_adata()
    result = stablefs.compare(adata, label="diagnosis", **SMALL)
    assert stablefs.annotate(adata, result) is None
    col = "stablefs_ttest_k3_frequency"
    assert col in adata.var and adata.var[col].between(0, 1).all()
    assert adata.var[col].nlargest(3).index.tolist() == ["GENE0", "GENE1", "GENE2"]
    assert adata.var["stablefs_ttest_k3_consensus"].dtype == bool
    rec = adata.uns["stablefs"]["recommendation"]
    assert rec["method"] == result.recommendation.method
    assert adata.var["stablefs_recommended"].sum() >= 1
    assert set(adata.uns["stablefs"]["stability"]["method"]) == {"ttest", "relieff"}
    adata.write_h5ad(tmp_path / "annotated.h5ad")  # everything written is storable
    back = anndata.read_h5ad(tmp_path / "annotated.h5ad")
    assert back.uns["stablefs"]["recommendation"]["method"] == rec["method"]
    copy = stablefs.annotate(toy_adata(), stablefs.read_comparison(result.save(tmp_path / "f")),
                             key_added="sfs", copy=True)
    assert "sfs_relieff_k6_frequency" in copy.var
    other = toy_adata(genes=[f"OTHER{j}" for j in range(12)])
    with pytest.raises(StablefsError, match="not in this AnnData's var_names"):
        stablefs.annotate(other, result)


def test_selectors_refuse_an_anndata_in_one_line():
    from stablefs.selectors import TTest

    with pytest.raises(StablefsError, match="is an AnnData: pass its matrix and labels"):
        TTest(n_features_to_select=3).fit(toy_adata(), np.arange(30) % 2)


def test_sparse_anndata_is_densified_with_a_line_or_refused(caplog, monkeypatch):
    import scipy.sparse as sp

    adata = toy_adata()
    adata.X = sp.csr_matrix(np.where(np.abs(adata.X) > 1, adata.X, 0.0))
    with caplog.at_level("WARNING", logger="stablefs"):
        ds = stablefs.load(adata, label="diagnosis")
    assert "sparse 30 × 12 matrix" in caplog.text and "made dense" in caplog.text
    assert ds.X.dtype == np.float64 and ds.X.flags.c_contiguous
    monkeypatch.setenv("STABLEFS_MEMORY_LIMIT", "1K")
    with pytest.raises(StablefsError, match="memory available"):
        stablefs.load(adata, label="diagnosis")


def test_plot_selections_shows_the_best_candidate_without_signal():
    # pure noise: the verdict is "no evidence of signal"; the map shows the pair the summary
    # names (the best candidate), as the report does, not the first method
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 60))
    y = np.repeat(["a", "b"], 20)
    result = stablefs.compare((X, y), methods="ttest,relieff", sizes=[5, 10], repeats=6,
                              permutations=0, nested=0)
    assert result.signal.evidence is False
    method, k = result.recommendation.candidate
    fig = result.plot_selections()
    title = " ".join(t.get_text() for ax in fig.axes for t in [ax.title]) + \
        (fig._suptitle.get_text() if fig._suptitle is not None else "")
    assert method in title, (method, title)
