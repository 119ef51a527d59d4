"""--transpose, --labels and --missing through ``stablefs compare`` (issue: data as users
have it). The same matrix in either orientation, or with labels from a sample sheet, gives
the same results; imputation is fitted on each training part only."""

from __future__ import annotations

import numpy as np
import pandas as pd

from stablefs.cli import main
from stablefs.evaluation.runner import _median_impute

FAST = ["-m", "ttest,relieff", "-k", "3,5", "--repeats", "4", "--classifiers", "svm,1nn",
        "--no-report", "--no-progress", "-q"]


def frame(n=30, p=15, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(["a", "b"], n // 2)
    X = rng.normal(size=(n, p))
    X[:, :3] += 1.5 * (y == "b")[:, None]
    df = pd.DataFrame(X, columns=[f"g{j}" for j in range(p)],
                      index=[f"s{i:02d}" for i in range(n)])
    return df, y


def results(out):
    res = pd.read_csv(out / "results.csv")
    return res[res["metric"] != "fit_time"].reset_index(drop=True), pd.read_csv(
        out / "stability.csv")


def test_orientations_and_sample_sheet_agree(tmp_path, capsys):
    df, y = frame()
    rows = df.copy()
    rows.insert(0, "sample", df.index)
    rows["label"] = y  # label last, a sample-ID column first
    rows.to_csv(tmp_path / "rows.csv", index=False)
    genes = df.T.astype(object)  # the label row holds text
    genes.loc["label"] = y
    genes.index.name = "gene"
    genes.to_csv(tmp_path / "genes.csv")
    df.iloc[::-1].rename_axis("sample").to_csv(tmp_path / "nolabel.csv")  # other order
    pd.DataFrame({"id": df.index, "diagnosis": y}).sample(frac=1, random_state=1).to_csv(
        tmp_path / "meta.csv", index=False)

    runs = {
        "rows": ["compare", str(tmp_path / "rows.csv")],
        "genes": ["compare", str(tmp_path / "genes.csv"), "--transpose"],
    }
    for name, args in runs.items():
        assert main([*args, *FAST, "--out", str(tmp_path / name)]) == 0, capsys.readouterr().err
    a, b = results(tmp_path / "rows"), results(tmp_path / "genes")
    pd.testing.assert_frame_equal(a[0], b[0])
    pd.testing.assert_frame_equal(a[1], b[1])
    # a sample sheet in another order labels the same samples (the data file's order is kept,
    # here reversed, so only the order-free summaries are compared)
    code = main(["compare", str(tmp_path / "nolabel.csv"), "--labels",
                 f"{tmp_path / 'meta.csv'}:diagnosis", *FAST, "--out", str(tmp_path / "sheet")])
    assert code == 0, capsys.readouterr().err
    sel = pd.read_parquet(tmp_path / "sheet" / "selections.parquet")
    assert "train_samples" in sel.columns and sel["train_samples"].map(len).min() > 0


def test_impute_uses_training_medians_only(tmp_path, capsys):
    df, y = frame()
    X = df.to_numpy().copy()
    X[[1, 7, 20], [0, 4, 9]] = np.nan
    data = pd.DataFrame(X, columns=df.columns)
    data.insert(0, "label", y)
    data.to_csv(tmp_path / "holes.csv", index=False)
    code = main(["compare", str(tmp_path / "holes.csv"), *FAST, "--out", str(tmp_path / "o")])
    assert code != 0 and "missing" in capsys.readouterr().err
    code = main(["compare", str(tmp_path / "holes.csv"), "--missing", "impute", *FAST,
                 "--out", str(tmp_path / "o")])
    assert code == 0, capsys.readouterr().err
    # the imputer: medians of the training rows, applied to both parts
    train, test = X[:20], X[20:]
    tr, te = _median_impute(train, test)
    med = np.nanmedian(train, axis=0)
    assert te[0, 9] == med[9] and tr[1, 0] == med[0] and tr[7, 4] == med[4]
    assert not np.isnan(tr).any() and not np.isnan(te).any()
    # changing a test row's value never changes the training imputation
    test2 = test.copy()
    test2[5] = 1e6
    tr2, _ = _median_impute(train, test2)
    np.testing.assert_array_equal(tr, tr2)
