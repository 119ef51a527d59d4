"""Every bad input is refused before any work: a non-zero exit, one line on stderr, no
traceback, and ``--out`` untouched (docs/DESIGN.md, "Errors")."""

from __future__ import annotations

import socket
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from stablefs._errors import EXIT_DATA, EXIT_RESOURCE
from stablefs.cli import main
from stablefs.evaluation.runner import check_n_jobs


def write(path: Path, df: pd.DataFrame) -> Path:
    df.to_csv(path, index=False)
    return path


def toy_frame(n=30, p=12, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"g{j}" for j in range(p)])
    df.insert(0, "label", np.repeat(["a", "b"], n // 2))
    return df


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bad_files(tmp: Path) -> dict[str, Path]:
    files = {"toy": write(tmp / "toy.csv", toy_frame())}
    df = toy_frame()
    text = df.to_csv(index=False).splitlines()
    text[0] = text[0].replace("g1", "g0")
    (tmp / "dupfeat.csv").write_text("\n".join(text) + "\n")
    files["dupfeat"] = tmp / "dupfeat.csv"
    text = toy_frame().to_csv(index=False).splitlines()
    text[0] = text[0].replace("g1", "label")
    (tmp / "duplabel.csv").write_text("\n".join(text) + "\n")
    files["duplabel"] = tmp / "duplabel.csv"
    cont = toy_frame()
    cont["label"] = np.linspace(0.1, 9.3, len(cont))
    files["continuous"] = write(tmp / "continuous.csv", cont)
    const = toy_frame()
    const.iloc[:, 1:] = 1.0
    files["constant"] = write(tmp / "constant.csv", const)
    files["one"] = write(tmp / "one.csv", toy_frame().iloc[:1])
    (tmp / "afile").write_text("x")
    files["afile"] = tmp / "afile"
    return files


CASES = {
    "unknown method parameter": (["-m", "relieff(foo=1)"], "foo"),
    "negative n_neighbors": (["-m", "relieff(n_neighbors=-3)"], "n_neighbors"),
    "zero ensemble members": (["-m", "en-relieff(n_estimators=0)"], "n_estimators"),
    "empty range": (["-k", "10:5"], "10:5"),
    "four-part range": (["-k", "1:2:3:4"], "1:2:3:4"),
    "k = p with kuncheva": (["-k", "12"], "undefined at k = 12"),
    "k above p": (["-k", "13"], "13"),
    "one repeat": (["--repeats", "1"], "--repeats"),
    "empty stability": (["--stability", ""], "--stability"),
    "unknown measure": (["--stability", "kunchev"], "kuncheva"),
    "zero jobs": (["--n-jobs", "0"], "--n-jobs 0"),
    "scheduler without dask": (["--scheduler", "tcp://127.0.0.1:1"], "--backend dask"),
    "negative seed": (["--seed", "-1"], "--seed"),
    "unknown classifier": (["--classifiers", "forest"], "forest"),
    "non-ASCII digit in Knn": (["--classifiers", "svm,\u00b2nn"], "\u00b2nn"),
    "unknown method without parameters": (["-m", "ttest,relieef"], "relieff"),
    "stability selection's default q above p": (["-m", "iw-stabsel-ttest"], "q = 20"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_option_is_one_line_and_writes_nothing(case, tmp_path, capsys):
    files = bad_files(tmp_path)
    extra, needle = CASES[case]
    out = tmp_path / "out"
    args = ["compare", str(files["toy"]), "-m", "ttest", "--repeats", "3", "--no-progress",
            "--out", str(out)]
    code = main(args + extra)
    stdout, err = capsys.readouterr()
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("stablefs: error: ") and "Traceback" not in err
    assert needle in lines[0]
    assert "np.str_" not in lines[0]
    assert not out.exists()


def test_unreachable_scheduler_fails_fast(tmp_path, capsys):
    import time

    files = bad_files(tmp_path)
    out = tmp_path / "out"
    t0 = time.perf_counter()
    code = main(["compare", str(files["toy"]), "-m", "ttest", "--backend", "dask",
                 "--scheduler", f"tcp://127.0.0.1:{closed_port()}", "--out", str(out)])
    elapsed = time.perf_counter() - t0
    err = capsys.readouterr().err
    assert code == EXIT_RESOURCE and "cannot be reached" in err
    assert len(err.strip().splitlines()) == 1
    assert elapsed < 10
    assert not out.exists()


@pytest.mark.parametrize("which,needle", [
    ("dupfeat", "g0"),
    ("duplabel", "label"),
    ("continuous", "classification"),
    ("constant", "constant"),
])
def test_bad_data_is_one_line_and_writes_nothing(which, needle, tmp_path, capsys):
    files = bad_files(tmp_path)
    out = tmp_path / "out"
    code = main(["compare", str(files[which]), "-m", "ttest", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == EXIT_DATA, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("stablefs: error: ")
    assert needle in err and "np.str_" not in err
    assert not out.exists()


def test_out_that_is_a_file_or_below_a_file(tmp_path, capsys):
    files = bad_files(tmp_path)
    for out in (files["afile"], files["afile"] / "sub"):
        code = main(["compare", str(files["toy"]), "-m", "ttest", "--out", str(out)])
        err = capsys.readouterr().err
        assert code == 2 and "file" in err and len(err.strip().splitlines()) == 1
    assert files["afile"].read_text() == "x"


def test_select_refuses_a_one_sample_file(tmp_path, capsys):
    files = bad_files(tmp_path)
    code = main(["select", str(files["one"]), "-m", "ttest", "-k", "2"])
    err = capsys.readouterr().err
    assert code == EXIT_DATA and len(err.strip().splitlines()) == 1 and "sample" in err


def test_select_refuses_one_resample(tmp_path, capsys):
    files = bad_files(tmp_path)
    code = main(["select", str(files["toy"]), "-m", "ttest", "-k", "2", "--resamples", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "--resamples" in err


def test_n_jobs_is_capped_at_the_work_available():
    assert check_n_jobs(10000, 5) == 5
    assert check_n_jobs(-1, 1000) >= 1
    assert check_n_jobs(None) == 1
    with pytest.raises(ValueError):
        check_n_jobs(0)
