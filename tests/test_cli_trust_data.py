"""The CLI on data as it comes off the array (--log2, the raw hint, --annotation,
'datasets NAME'), the new methods in 'stablefs methods', and bad input named in CLI terms."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from stablefs.cli import main
from stablefs.cli._terms import cli_terms


def _raw_file(tmp: Path, n=40, p=150, seed=0) -> Path:
    rng = np.random.default_rng(seed)
    y = np.repeat(["tumour", "normal"], n // 2)
    X = rng.normal(6, 1.3, size=(n, p))
    X[y == "tumour", :5] += 1.5  # five informative probes
    frame = pd.DataFrame(np.exp2(X * 1.4), columns=[f"{200000 + j}_at" for j in range(p)])
    frame.insert(0, "label", y)
    path = tmp / "raw.csv"
    frame.to_csv(path, index=False)
    return path


def _run(capsys, argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _compare(path, out, *extra):
    return ["compare", path, "-m", "relieff,ttest", "-k", "5,10", "--repeats", "4",
            "--classifiers", "1nn", "--no-report", "--out", out, "-q", *extra]


def test_raw_hint_log2_and_run_json(tmp_path, capsys):
    """--scale auto, the default: raw-looking values are log2-transformed with one line and
    the decision recorded in run.json; --scale raw keeps them, with one line saying so;
    the same values analysed the same way are one configuration, whichever option asked."""
    path = _raw_file(tmp_path)
    code, _, err = _run(capsys, ["compare", path, "-m", "ttest", "-k", "5", "--repeats", "2",
                                 "--classifiers", "1nn", "--no-report", "--out",
                                 tmp_path / "a"])
    assert code == 0
    hints = [line for line in err.splitlines() if "raw (unlogged)" in line]
    assert len(hints) == 1 and hints[0].startswith("stablefs: warning:")
    assert "analysing log2(max(x, 0) + 1) (scale auto, the default; --scale raw keeps" in \
        hints[0]
    auto = json.loads((tmp_path / "a" / "run.json").read_text())
    assert auto["data_meta"]["scale"] == {"asked": "auto", "applied": "log2"}
    assert auto["config"]["data_options"]["scale"] == "log2"  # what was applied
    code, _, err = _run(capsys, ["compare", path, "-m", "ttest", "-k", "5", "--repeats", "2",
                                 "--classifiers", "1nn", "--no-report", "--out",
                                 tmp_path / "a", "--log2"])
    assert code == 0 and "holds this finished run" in err  # the same analysis: reused
    code, _, err = _run(capsys, ["compare", path, "-m", "ttest", "-k", "5", "--repeats", "2",
                                 "--classifiers", "1nn", "--no-report", "--out",
                                 tmp_path / "a", "--scale", "raw"])
    assert code == 2 and "--force" in err  # the values as given: a changed configuration
    code, _, err = _run(capsys, _compare(path, tmp_path / "b", "--scale", "raw"))
    assert code == 0
    plain = json.loads((tmp_path / "b" / "run.json").read_text())
    assert "scale" not in plain["config"]["data_options"]  # raw: the key of earlier runs
    assert plain["data_meta"]["scale"] == {"asked": "raw", "applied": "raw"}
    code, _, err = _run(capsys, _compare(path, tmp_path / "c", "--log2"))
    assert code == 0 and "raw (unlogged)" not in err
    run = json.loads((tmp_path / "c" / "run.json").read_text())
    assert run["config"]["data_options"]["scale"] == "log2"
    assert run["data_meta"]["log2"]["formula"] == "log2(max(x, 0) + 1)"
    a = pd.read_csv(tmp_path / "b" / "stability.csv")
    b = pd.read_csv(tmp_path / "c" / "stability.csv")
    relieff = (a["method"] == "relieff")
    assert not np.allclose(a.loc[relieff, "estimate"], b.loc[relieff, "estimate"])
    # the t-test ranks are invariant to a monotone map only per feature: still changed
    assert run["config"]["data_digest"] != json.loads(
        (tmp_path / "b" / "run.json").read_text())["config"]["data_digest"]


def test_annotation_in_signature_and_select(tmp_path, capsys):
    path = _raw_file(tmp_path)
    annot = tmp_path / "annot.tsv"
    annot.write_text("probe\tsymbol\n200000_at\tTP53\n200001_at\tEGFR\n200002_at\t---\n")
    code, _, err = _run(capsys, _compare(path, tmp_path / "o", "--log2", "--annotation", annot))
    assert code == 0, err
    sig = pd.read_csv(tmp_path / "o" / "signature.csv", keep_default_na=False)
    assert list(sig.columns[:4]) == ["method", "k", "feature", "symbol"]
    row = sig[sig["feature"] == "200000_at"]
    assert not row.empty and set(row["symbol"]) == {"TP53"}
    assert set(sig.loc[sig["feature"] == "200002_at", "symbol"]) <= {""}
    gmt = (tmp_path / "o" / "signature.gmt").read_text()
    assert "\tTP53" in gmt and "200000_at (TP53)" in gmt
    run = json.loads((tmp_path / "o" / "run.json").read_text())
    assert len(run["config"]["inputs"]["annotation"]) == 64  # its sha256, keyed by role
    code, out, _ = _run(capsys, ["select", path, "-m", "ttest", "-k", "5", "--log2",
                                 "--annotation", annot, "-q"])
    assert code == 0 and "symbol" in out.splitlines()[0]
    assert "200000_at   TP53" in out


def test_datasets_name_describes(capsys, shared_data):
    code, out, _ = _run(capsys, ["datasets", "colon"])
    assert code == 0
    assert "predicts     2 classes: t 40, n 22" in out
    assert "platform     Affymetrix Hum6000" in out
    assert "looks like raw (unlogged) intensities" in out


def test_methods_lists_the_new_methods(capsys):
    code, out, _ = _run(capsys, ["methods"])
    lines = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    assert "Tibshirani 1996" in lines["l1-logistic"]
    assert "Zou and Hastie 2005" in lines["enet-logistic"]
    assert "Meinshausen and Buhlmann 2010" in lines["stabsel"]
    assert "Shah and Samworth 2013" in lines["stabsel-<method>"]


def _toy(tmp: Path) -> Path:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(12, 6)), columns=[f"g{j}" for j in range(6)])
    frame.insert(0, "label", np.repeat(["a", "b"], 6))
    path = tmp / "toy.csv"
    frame.to_csv(path, index=False)
    missing = frame.copy()
    missing.iloc[2, 3] = np.nan
    missing.to_csv(tmp / "missing.csv", index=False)
    (tmp / "sheet.csv").write_text("id,label\n")
    (tmp / "dup.csv").write_text("g0,A\ng0,B\n")
    return path


#: (arguments after the file, the CLI option the message must name)
BAD = [
    (["compare", "missing.csv"], "--missing impute"),
    (["compare", "missing.csv"], "--drop-missing"),
    (["select", "missing.csv", "-m", "ttest", "-k", "1", "--missing", "impute"],
     "--missing drop-samples"),
    (["compare", "toy.csv", "-k", "9"], "-k 9"),
    (["compare", "toy.csv", "-k", "0"], "-k 0"),
    (["select", "toy.csv", "-m", "ttest", "-k", "9"], "-k 9"),
    (["compare", "toy.csv", "-m", "sfs(n_features_to_select=9)", "-k", "2"], "-k"),
    (["compare", "toy.csv", "-m", "stabsel-ttest", "-k", "2"], "stabsel-ttest"),
    (["compare", "toy.csv", "--transpose"], "--label NAME"),
    (["compare", "toy.csv", "--label", "nope"], "--label NAME"),
    (["compare", "toy.csv", "--labels", "sheet.csv"], "--labels"),
    (["compare", "toy.csv", "--prefilter", "0", "-k", "1"], "--prefilter 0"),
    (["compare", "toy.csv", "--n-jobs", "0"], "--n-jobs 0"),
    (["compare", "toy.csv", "--repeats", "1"], "--repeats"),
    (["compare", "toy.csv", "--annotation", "nope.csv"], "--annotation"),
    (["compare", "toy.csv", "--annotation", "dup.csv"], "--annotation"),
    (["compare", "toy.csv", "--stability", "nope"], "stablefs measures"),
    (["compare", "toy.csv", "-m", "nope"], "stablefs methods"),
    (["compare", "toy.csv", "-m", "l1-logistic(C=0)"], "l1-logistic(C=0)"),
    (["compare", "toy.csv", "--drop-missing", "--missing", "impute"], "--drop-missing"),
]

#: Python spellings that must never reach a CLI user
PYTHON_TERMS = ["drop_missing=", "missing='", 'missing="', "label=", "labels=", "transpose=",
                "impute='median'", "drop_nominal=", "n_jobs =", "prefilter =", "k = "]


@pytest.mark.parametrize("argv,option", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_is_one_line_in_cli_terms(tmp_path, capsys, monkeypatch, argv, option):
    _toy(tmp_path)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    code, stdout, err = _run(capsys, [*argv, "--out", out] if argv[0] == "compare" else argv)
    assert code in (2, 3)  # a bad option, or data (a side file) that cannot be used
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("stablefs: error: "), err
    assert option in lines[0]
    assert not any(term in lines[0] for term in PYTHON_TERMS), lines[0]
    assert not out.exists()


def test_cli_terms_rewrites():
    assert cli_terms("pass drop_missing=True (CLI --drop-missing) to drop, "
                     "missing='drop-features' or missing=\"impute\"") == \
        "pass --drop-missing to drop, --missing drop-features or --missing impute"
    assert cli_terms("name it with label=NAME (CLI --label NAME), or labels=FILE:COLUMN "
                     "(CLI --labels FILE:COLUMN)") == \
        "name it with --label NAME, or --labels FILE:COLUMN"
    assert cli_terms("label= ('x') and labels= both given") == \
        "--label ('x') and --labels both given"
    assert cli_terms("so label= (--label) must be") == "so --label must be"
    assert cli_terms("X has 3 missing values: pass impute='median' (CLI --missing impute)") == \
        "X has 3 missing values: pass --missing impute"
    assert cli_terms("method 'relieff(n_neighbors=5)': fine") == \
        "method 'relieff(n_neighbors=5)': fine"


def test_select_stabsel_states_the_bound(tmp_path, capsys):
    path = _raw_file(tmp_path, p=120)
    code, out, err = _run(capsys, ["select", path, "-m", "stabsel-ttest(n_subsamples=5, q=5)",
                                   "-k", "5", "--log2"])
    assert code == 0
    line = [x for x in err.splitlines() if x.startswith("stability selection:")]
    assert len(line) == 1
    assert "q = 5.0 of 120; expected false selections <= " + f"{25 / (0.2 * 120):.3g}" in line[0]


def test_scale_auto_is_the_default_of_compare_select_and_the_api(tmp_path, capsys):
    """The report's header says how the values were analysed; select and stablefs.compare
    default to scale auto as compare does."""
    import stablefs
    from stablefs.comparison._options import CompareOptions

    path = _raw_file(tmp_path)
    code, _, err = _run(capsys, ["compare", path, "-m", "ttest", "-k", "5", "--repeats", "2",
                                 "--classifiers", "1nn", "--permutations", "0", "--nested",
                                 "0", "--out", tmp_path / "r"])
    assert code == 0
    report = (tmp_path / "r" / "report.md").read_text()
    assert ("**Values:** log2(max(x, 0) + 1) (scale auto, the default: the values looked "
            "like raw intensities; --scale raw keeps them as given)") in report
    code, out, err = _run(capsys, ["select", path, "-m", "ttest", "-k", "3"])
    assert code == 0 and "analysing log2(max(x, 0) + 1) (scale auto" in err
    code, out_raw, err = _run(capsys, ["select", path, "-m", "ttest", "-k", "3", "--scale",
                                       "raw"])
    assert code == 0 and "analysed as given, as --scale raw asks" in err
    assert CompareOptions().scale == "auto"
    import inspect

    assert inspect.signature(stablefs.compare).parameters["scale"].default == "auto"
