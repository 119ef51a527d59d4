"""The second review's smaller findings (issue 35, findings 5 to 7), each kept fixed.

Tracebacks that became one line (``--scheduler-timeout 1e308``, 1000 stacked prefixes, a
parameter of 100,000 unary minus signs, an annotation symbol over 131,072 characters, click's
usage errors); deletion that checks every component of every path it removes; a 100 kB
feature name in ``select``'s table; a quoted line break in a header; repeated and ignored
method parameters; control characters in the CSV, GMT, HTML and Markdown files; the ELOOP
message; a resumed run's old ``.lock``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_helpers import run, write_toy
from stablefs import StablefsError
from stablefs._errors import EXIT_DATA, EXIT_RESOURCE, EXIT_USAGE
from stablefs.cli import main
from stablefs.evaluation import runner as runner_mod

#: a usage error, data that cannot be used, the machine's refusal (``stablefs._errors``)
ERROR_CODES = (EXIT_USAGE, EXIT_DATA, EXIT_RESOURCE)

FAST = ["-m", "ttest", "-k", "3", "--repeats", "4", "--classifiers", "1nn", "--no-report",
        "--no-progress"]


def one_error_line(code, err, *needles) -> str:
    said = [line for line in err.splitlines() if line.startswith("stablefs:")]
    assert code in ERROR_CODES and len(said) == 1 and said[0].startswith("stablefs: error: "), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in said[0], (needle, said[0])
    return said[0]


# ---------------------------------------------------------------------- 5. one line each


@pytest.mark.parametrize("value", ["1e308", "inf", "nan", "-1", "0", "86401"])
def test_scheduler_timeout_out_of_range_is_one_line(tmp_path, capsys, value):
    data = write_toy(tmp_path / "toy.csv")
    code, _, err = run(["compare", data, *FAST, "--backend", "dask", "--scheduler",
                        "tcp://127.0.0.1:9", "--scheduler-timeout", value, "--out",
                        tmp_path / "run"], capsys)
    one_error_line(code, err, "--scheduler-timeout must be a positive number of seconds")


@pytest.mark.parametrize("method,needle", [
    ("iw-" * 1000 + "relieff", "longer than 1,000 characters"),
    ("iw-" * 300 + "relieff", "stacks more than 8 prefixes"),
    ("relieff(n_neighbors=" + "-" * 100_000 + "3)", "longer than 1,000 characters"),
    ("relieff(n_neighbors=" + "-" * 900 + "3)", "the value of 'n_neighbors' must be a number"),
    ("relieff(n_neighbors=" + "(" * 300 + "3" + ")" * 300 + ")", "cannot read the parameters"),
    ("relieff(n_neighbors=3,n_neighbors=4)", "'n_neighbors' is given twice"),
    ("stabsel(C=0.5)", "C = 0.5 would be ignored"),
    ("relieff(**{'a': 1})", "must be named"),
])
def test_method_strings_that_broke_the_parser_are_one_line(tmp_path, capsys, method, needle):
    data = write_toy(tmp_path / "toy.csv", p=30)
    code, _, err = run(["select", data, "-m", method, "-k", "3"], capsys)
    one_error_line(code, err, needle)


def test_unknown_parameters_still_list_the_valid_ones():
    from stablefs.methods import make_selector

    with pytest.raises(StablefsError, match="unknown parameter 'C'; valid parameters are"):
        make_selector("relieff(C=1)")
    make_selector("stabsel(q=5)")  # stability selection's own parameters pass
    make_selector("stabsel-relieff(n_neighbors=3)")


def test_annotation_symbol_beyond_the_csv_field_limit_is_one_line(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    annotation = tmp_path / "a.csv"
    annotation.write_text("probe,symbol\ng0,A\ng1," + "S" * 140_000 + "\n")
    code, _, err = run(["select", data, "-m", "ttest", "-k", "3", "--annotation", annotation],
                       capsys)
    one_error_line(code, err, "line 3: cannot be split into cells", "field larger")


@pytest.mark.parametrize("args,needle", [
    (["compare", "x", "--repeats", "abc"], "'abc' is not a valid integer; see 'stablefs compare"),
    (["compare", "--nosuch"], "No such option '--nosuch'"),
    (["frobnicate"], "No such command 'frobnicate'; see 'stablefs -h'"),
    (["select"], "Missing argument 'DATA'"),
    (["compare", "--backend", "spark"], "'spark' is not one of"),
])
def test_usage_errors_are_one_line(capsys, args, needle):
    code = main(args)
    out, err = capsys.readouterr()
    assert code == EXIT_USAGE and err.count("\n") == 1 and err.startswith("stablefs: error: "), err
    assert needle in err and "Usage:" not in err


# ---------------------------------------------------------------------- 6. deletion


def test_journal_entry_under_a_symlinked_folder_removes_nothing_outside(tmp_path, capsys):
    """An unfinished run's journal lists ``.partial/link/sub`` (a folder) and
    ``.partial/link/file.txt``, where ``link`` inside ``.partial`` leads outside the run
    folder: the rerun's cleanup removes neither the empty folder nor the file out there (it
    removed the folder before: only the last component was checked)."""
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"
    args = ["compare", data, *FAST, "--out", out]
    orig = runner_mod._fit_task
    count = []

    def flaky(*a, **k):
        if len(count) == 2:
            raise KeyboardInterrupt
        count.append(1)
        return orig(*a, **k)

    runner_mod._fit_task = flaky
    try:
        assert run(args, capsys)[0] == 130
    finally:
        runner_mod._fit_task = orig
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "file.txt").write_text("precious")
    (out / ".partial" / "link").symlink_to(outside, target_is_directory=True)
    journal = {"tool": "stablefs", "files": [".partial/link/file.txt"],
               "dirs": [".partial/link/sub"]}
    (out / ".partial" / "files.json").write_text(json.dumps(journal))
    code, _, err = run(args, capsys)
    assert code == 0, err
    assert (outside / "sub").is_dir() and (outside / "file.txt").read_text() == "precious"
    assert (out / ".partial" / "link").is_symlink()  # left alone, and named in a warning


def test_link_on_path_names_the_first_link(tmp_path):
    from stablefs._runtime.rundir import link_on_path

    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "l").symlink_to(tmp_path / "a", target_is_directory=True)
    assert link_on_path(tmp_path, "a/b") is None
    assert link_on_path(tmp_path, "l/b") == tmp_path / "l"
    assert link_on_path(tmp_path, "l", itself=False) is None
    assert link_on_path(tmp_path, "a/nothing/here") is None


def test_force_refuses_a_listed_file_reached_through_a_link(tmp_path, capsys):
    """--force deletes what run.json lists; a listed file reached through a link to another
    folder of the run is not deleted (the link is never followed)."""
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"
    assert run(["compare", data, *FAST, "--out", out], capsys)[0] == 0
    (out / "kept").mkdir()
    (out / "kept" / "mine.csv").write_text("user")
    (out / "alias").symlink_to(out / "kept", target_is_directory=True)
    info = json.loads((out / "run.json").read_text())
    info["files"].append("alias/mine.csv")
    (out / "run.json").write_text(json.dumps(info))
    code, _, err = run(["compare", data, *FAST, "--out", out, "--seed", "1", "--force"],
                       capsys)
    one_error_line(code, err, "alias/mine.csv is reached through the symbolic link",
                   "deletes nothing")
    assert (out / "kept" / "mine.csv").read_text() == "user"


# ---------------------------------------------------------------------- 7. small ones


def test_long_feature_name_does_not_pad_selects_table(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    text = data.read_text().replace("g5", "G" * 100_000, 1)
    data.write_text(text)
    code, out, err = run(["select", data, "-m", "ttest", "-k", "12"], capsys)
    assert code == 0, err
    assert len(out) < 5000 and "(100,000 characters)" in out
    path = tmp_path / "ranking.csv"
    assert run(["select", data, "-m", "ttest", "-k", "12", "--out", path, "-q"],
               capsys)[0] == 0
    assert "G" * 100_000 in path.read_text()  # the file keeps the name whole


def test_quoted_line_break_in_a_header_name_is_diagnosed(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text('label,g0,"g\n1",g2\n' + "".join(
        f"{'ab'[i % 2]},{i},{i * 2 % 7},{i % 3}\n" for i in range(20)))
    code, _, err = run(["select", path, "-m", "ttest", "-k", "2"], capsys)
    one_error_line(code, err, "the header row has an unclosed quote", "line break")
    ok = tmp_path / "ok.csv"  # quotes that close are read as before
    ok.write_text('label,g0,"g,1",g2\n' + "".join(
        f"{'ab'[i % 2]},{i},{i * 2 % 7},{i % 3}\n" for i in range(20)))
    assert run(["select", ok, "-m", "ttest", "-k", "2"], capsys)[0] == 0


CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_escape_and_rlo_characters_never_reach_the_files_raw(tmp_path, capsys):
    from stablefs._runtime.escape import unescape_cell

    rng = np.random.default_rng(0)
    y = np.repeat(["a", "b"], 20)
    X = rng.normal(size=(40, 8))
    X[:, :4] += 3.0 * (y == "b")[:, None]
    names = ["\x1b[31mred\x1b[0m", "\u202eevil", "tab\tname", "line\nbreak", "g4", "g5",
             "g6", "back\\slash\x07"]
    path = tmp_path / "d.npz"
    np.savez(path, X=X, y=y, feature_names=np.array(names))
    out = tmp_path / "run"
    code, _, err = run(["compare", path, "-m", "ttest", "-k", "4", "--repeats", "3",
                        "--classifiers", "1nn", "--no-progress", "--out", out, "-q"], capsys)
    assert code == 0, err
    for name in ("signature.csv", "signature.gmt", "frequencies.csv", "report.html",
                 "report.md"):
        text = (out / name).read_text()
        assert not CONTROL.search(text), (name, CONTROL.search(text))
    gmt = (out / "signature.gmt").read_text().splitlines()
    assert all(len(line.split("\t")) >= 3 for line in gmt)  # no name split a line or field
    sig = pd.read_csv(out / "signature.csv")
    assert set(sig["feature"].map(unescape_cell)) >= set(names[:4])  # exact round trip
    html = (out / "report.html").read_text()
    assert "\\u202eevil" in html and "\\x1b[31mred" in html


def test_eloop_during_a_run_is_one_line_without_a_resume_promise(tmp_path, capsys):
    """.partial's fit folder becomes a loop of links while the run computes: one line that
    names the loop and does not promise that the same command resumes."""
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"
    orig = runner_mod._fit_task
    done = []

    def loop(*a, **k):
        if len(done) == 1:
            key = next(p for p in (out / ".partial").iterdir() if p.is_dir())
            for f in key.iterdir():
                f.unlink()
            key.rmdir()
            key.symlink_to(key.name)  # key -> key
        done.append(1)
        return orig(*a, **k)

    runner_mod._fit_task = loop
    try:
        code, _, err = run(["compare", data, *FAST, "--out", out], capsys)
    finally:
        runner_mod._fit_task = orig
    line = one_error_line(code, err, "loop of symbolic links")
    assert "resumes" not in line and "cannot resume until then" in line


def test_resumed_run_removes_its_old_lock(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"
    args = ["compare", data, *FAST, "--out", out]
    orig = runner_mod._fit_task
    count = []

    def flaky(*a, **k):
        if len(count) == 1:
            raise KeyboardInterrupt
        count.append(1)
        return orig(*a, **k)

    runner_mod._fit_task = flaky
    try:
        assert run(args, capsys)[0] == 130
    finally:
        runner_mod._fit_task = orig
    assert (out / ".lock").is_file()
    code, _, err = run(args, capsys)
    assert code == 0, err
    assert not os.path.lexists(out / ".lock")
    info = json.loads((out / "run.json").read_text())
    present = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert present == set(info["files"])
    assert not Path(out / ".partial").exists()
