"""The command line: real runs on small data, and one clear line for every kind of bad input."""

import gzip
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from stablefs._errors import EXIT_DATA, EXIT_USAGE
from stablefs.cli import main, parse_sizes, split_list


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def write_csv(path, n=30, p=12, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(["a", "b"], n // 2)
    X = rng.normal(size=(n, p))
    X[:, 0] += 2 * (y == "b")
    df = pd.DataFrame(X, columns=[f"g{i}" for i in range(p)])
    df.insert(0, "label", y)
    df.to_csv(path, index=False)
    return df


def test_split_list_keeps_parenthesised_commas():
    assert split_list("relieff(n_neighbors=5, x=1),ttest") == ["relieff(n_neighbors=5, x=1)",
                                                                "ttest"]
    assert parse_sizes("10:30:10,5", 100) == [5, 10, 20, 30]  # sorted, unique
    assert parse_sizes(None, 25) == [10, 20]


def test_compare_end_to_end(tmp_path, capsys):
    data = tmp_path / "toy.csv"
    write_csv(data)
    out = tmp_path / "run"
    code, stdout, err = run(["compare", str(data), "-m", "ttest,iw-ttest", "-k", "2,4",
                             "--repeats", "4", "--out", str(out), "--no-progress"], capsys)
    assert code == 0, err
    assert "nogueira stability" in stdout
    for name in ("run.json", "results.csv", "stability.csv", "comparisons.csv", "report.md",
                 "report.html"):
        assert (out / name).exists()
    stab = pd.read_csv(out / "stability.csv")
    # DESIGN.md's columns first, then how each interval was formed
    assert stab.columns.tolist()[:7] == ["method", "k", "measure", "estimate", "low", "high",
                                         "interval"]
    assert set(stab["measure"]) == {"nogueira"}
    assert "## Method comparisons" in (out / "report.md").read_text()  # from comparisons.csv
    info = json.loads((out / "run.json").read_text())
    assert info["methods"] == ["ttest", "iw-ttest"] and info["n_samples"] == 30
    # rerun resumes: same numbers
    code, _, _ = run(["compare", str(data), "-m", "ttest,iw-ttest", "-k", "2,4", "--repeats", "4",
                      "--out", str(out), "--no-progress"], capsys)
    assert code == 0
    pd.testing.assert_frame_equal(stab, pd.read_csv(out / "stability.csv"))


def test_select_writes_ranking_with_frequencies(tmp_path, capsys):
    data = tmp_path / "toy.csv"
    write_csv(data)
    out = tmp_path / "ranked.csv"
    code, _, err = run(["select", str(data), "-m", "relieff", "-k", "3", "--resamples", "5",
                        "--out", str(out)], capsys)
    assert code == 0, err
    table = pd.read_csv(out)
    assert list(table.columns) == ["rank", "feature", "score", "selected", "frequency"]
    assert table["rank"].tolist() == list(range(1, 13))
    assert table["selected"].sum() == 3
    assert table.loc[0, "feature"] == "g0"


def test_select_reports_nogueira_with_its_interval_and_takes_prefilter(tmp_path, capsys):
    """select speaks compare's measure (Nogueira, with its interval, equal to what compare
    writes for the same resamples) and takes --prefilter: the selector sees the N features
    of largest t-statistic, the others follow in the order of that statistic."""
    from stablefs.evaluation.preprocessing import ttest_filter
    from stablefs.evaluation.protocols import Protocol
    from stablefs.evaluation.runner import run_experiment
    from stablefs.methods import make_selector

    data = tmp_path / "toy.csv"
    df = write_csv(data)
    X = df.drop(columns="label").to_numpy(float)
    y = df["label"].to_numpy()
    code, out, err = run(["select", str(data), "-m", "relieff", "-k", "3", "--resamples", "5",
                          "--json"], capsys)
    assert code == 0, err
    payload = json.loads(out)
    want = run_experiment(X, y, ["relieff"], [3], protocol=Protocol("split", 5),
                          classifiers=["1nn"], measures=["nogueira"]).stability.iloc[0]
    assert payload["stability"]["measure"] == "nogueira"
    for key in ("estimate", "low", "high"):
        assert payload["stability"][key] == pytest.approx(float(want[key]))
    assert (f"Nogueira stability of the top 3 over 5 subsamples: {want['estimate']:.3f} "
            f"[{want['low']:.3f}, {want['high']:.3f}]") in err
    assert "Kuncheva" not in err
    out_csv = tmp_path / "ranked.csv"
    code, _, err = run(["select", str(data), "-m", "relieff", "-k", "3", "--prefilter", "5",
                        "--out", str(out_csv)], capsys)
    assert code == 0, err
    table = pd.read_csv(out_csv)
    keep = ttest_filter(X, y, 5)
    sel = make_selector("relieff", random_state=0).fit(X[:, keep], y)
    top = [f"g{keep[j]}" for j in np.argsort(sel.ranking_, kind="stable")]
    assert table["feature"].tolist()[:5] == top
    assert table["score"].iloc[5:].isna().all()  # the selector never saw them
    assert table["selected"].sum() == 3
    code, _, err = run(["select", str(data), "-m", "relieff", "-k", "3", "--prefilter", "2"],
                       capsys)
    assert code == 2 and "--prefilter" in err and "-k 3" in err


def bad_files(tmp_path):
    """(description, args) pairs for every kind of bad input the issue names."""
    cases = {}
    df = write_csv(tmp_path / "ok.csv")
    missing = df.copy()
    missing.loc[3, "g2"] = np.nan
    missing.to_csv(tmp_path / "missing.csv", index=False)
    cases["missing values"] = [str(tmp_path / "missing.csv")]
    text = df.copy()
    text["g5"] = "x"
    text.to_csv(tmp_path / "text.csv", index=False)
    cases["non-numeric column"] = [str(tmp_path / "text.csv")]
    single = df.copy()
    single["label"] = "a"
    single.to_csv(tmp_path / "single.csv", index=False)
    cases["single class"] = [str(tmp_path / "single.csv")]
    few = df.copy()
    few.loc[:1, "label"] = "c"
    few.to_csv(tmp_path / "few.csv", index=False)
    cases["class too small"] = [str(tmp_path / "few.csv")]
    cases["k > p"] = [str(tmp_path / "ok.csv"), "-k", "13"]
    cases["k <= 0"] = [str(tmp_path / "ok.csv"), "-k", "0"]
    cases["unknown method"] = [str(tmp_path / "ok.csv"), "-m", "relif"]
    df.rename(columns={"label": "class"}).to_csv(tmp_path / "nolabel.csv", index=False)
    cases["missing label column"] = [str(tmp_path / "nolabel.csv")]
    (tmp_path / "empty.csv").write_text("")
    cases["empty file"] = [str(tmp_path / "empty.csv")]
    (tmp_path / "broken.csv.gz").write_bytes(b"this is not gzip data at all")
    cases["unreadable file"] = [str(tmp_path / "broken.csv.gz")]
    cases["missing file"] = [str(tmp_path / "nope.csv")]
    return cases


#: data that cannot be read or used (also: classes too small for the protocol) exit with 3
#: (EXIT_DATA); an option the data cannot meet (k) or an unknown method with 2
DATA_ERRORS = {"missing values", "non-numeric column", "single class", "missing label column",
               "empty file", "unreadable file", "missing file", "class too small"}


def test_every_bad_input_gives_one_line(tmp_path, capsys):
    for what, args in bad_files(tmp_path).items():
        code, out, err = run(["compare", *args, "--repeats", "3", "--no-progress",
                              "--out", str(tmp_path / "o")], capsys)
        lines = [ln for ln in err.strip().splitlines() if ln.startswith("stablefs: error:")]
        assert code == (EXIT_DATA if what in DATA_ERRORS else EXIT_USAGE), (what, code, err)
        assert len(lines) == 1 and "Traceback" not in err, (what, err)


def test_unknown_method_suggests(tmp_path, capsys):
    write_csv(tmp_path / "ok.csv")
    code, _, err = run(["compare", str(tmp_path / "ok.csv"), "-m", "relif"], capsys)
    assert code == 2 and "relieff" in err


def test_console_script_exit_code_and_no_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "stablefs", "compare", str(tmp_path / "x.csv")],
                          capture_output=True, text=True)
    assert proc.returncode == EXIT_DATA  # a data file that is not there
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("stablefs: error:")
    assert "Traceback" not in proc.stderr


def test_version_and_listings(capsys):
    code, out, _ = run(["--version"], capsys)
    assert code == 0 and "stablefs" in out
    code, out, _ = run(["methods"], capsys)
    assert code == 0 and "iw-<method>" in out and "relieff" in out
    code, out, _ = run(["measures"], capsys)
    assert code == 0 and "kuncheva" in out


def test_gzip_input(tmp_path, capsys):
    df = write_csv(tmp_path / "ok.csv")
    with gzip.open(tmp_path / "ok.csv.gz", "wt") as fh:
        df.to_csv(fh, index=False)
    code, _, err = run(["select", str(tmp_path / "ok.csv.gz"), "-m", "ttest", "-k", "2"], capsys)
    assert code == 0, err
