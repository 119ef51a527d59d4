"""The command line in pipelines (Snakemake, Nextflow): reuse keyed on the input's content, not
its path; ``--config`` / ``--print-config``; ``--json``; distinct exit codes."""

from __future__ import annotations

import json
import shutil

import pytest

from cli_helpers import run, write_toy
from stablefs._errors import EXIT_DATA, EXIT_RESOURCE, EXIT_USAGE
from stablefs.evaluation import runner as runner_mod

FAST = ["-m", "ttest", "-k", "3", "--repeats", "3", "--classifiers", "1nn", "--no-report",
        "--no-progress"]


def test_the_same_input_at_another_path_reuses_the_finished_run(tmp_path, capsys, monkeypatch):
    (tmp_path / "a").mkdir()
    data = write_toy(tmp_path / "a" / "toy.csv")
    out = tmp_path / "run"
    assert run(["compare", str(data), *FAST, "--out", str(out)], capsys)[0] == 0
    staged = tmp_path / "staging" / "work" / "toy.csv"  # a pipeline's own copy
    staged.parent.mkdir(parents=True)
    shutil.copy(data, staged)
    calls = []
    real = runner_mod._fit_task
    monkeypatch.setattr(runner_mod, "_fit_task", lambda *a, **k: calls.append(1) or real(*a, **k))
    code, _, err = run(["compare", str(staged), *FAST, "--out", str(out)], capsys)
    assert code == 0 and calls == [] and "nothing refitted" in err, err
    write_toy(staged, seed=1)  # other content at the same path: another configuration
    code, _, err = run(["compare", str(staged), *FAST, "--out", str(out)], capsys)
    assert code == EXIT_USAGE and "another configuration" in err


def test_config_file_gives_every_option_and_flags_win(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    config = tmp_path / "run.toml"
    config.write_text(f'[compare]\ndata = "{data}"\nmethods = ["ttest", "relieff"]\n'
                      'sizes = "3,5"\nrepeats = 3\nclassifiers = "1nn"\nno-report = true\n'
                      'permutations = 0\nnested = 0\nprogress = false\n'
                      f'out = "{tmp_path / "from-file"}"\n')
    code, printed, _ = run(["compare", "--config", str(config), "--repeats", "4",
                            "--print-config"], capsys)
    assert code == 0
    assert 'repeats = 4' in printed and 'methods = "ttest,relieff"' in printed
    assert f'data = "{data}"' in printed and "no-report = true" in printed
    code, _, err = run(["compare", "--config", str(config), "--repeats", "4"], capsys)
    assert code == 0, err
    info = json.loads((tmp_path / "from-file" / "run.json").read_text())
    assert info["config"]["protocol"]["n_repeats"] == 4  # the flag won
    assert info["options"]["methods"] == "ttest,relieff" and info["options"]["repeats"] == 4
    # the printed configuration runs the same job
    (tmp_path / "printed.toml").write_text(printed)
    code, _, err = run(["compare", "--config", str(tmp_path / "printed.toml")], capsys)
    assert code == 0 and "nothing refitted" in err, err


@pytest.mark.parametrize("text,words", [
    ("bogus = 1\n", "unknown option 'bogus'"),
    ("metods = 'ttest'\n", "Did you mean methods"),
    ("repeats = [1, [2]]\n", "list of names or numbers"),
    ("not toml at all\n", "not valid TOML"),
])
def test_a_bad_config_file_is_one_line(tmp_path, capsys, text, words):
    (tmp_path / "bad.toml").write_text(text)
    code, _, err = run(["compare", "--config", str(tmp_path / "bad.toml")], capsys)
    assert code == EXIT_USAGE and err.count("\n") == 1 and words in err, err


def test_json_is_one_object_on_stdout(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"
    args = ["compare", str(data), *FAST, "--permutations", "19", "--nested", "0", "--out",
            str(out), "--json"]
    code, stdout, err = run(args, capsys)
    assert code == 0, err
    payload = json.loads(stdout)  # nothing else on stdout
    assert payload["command"] == "compare" and payload["status"] == "ok"
    assert payload["out"] == str(out) and "stability.csv" in payload["files"]
    assert payload["recommendation"]["method"] in ("ttest", None)
    assert payload["signal"]["tested"] and 0 < payload["signal"]["p_value"] <= 1
    assert "nogueira stability" in err  # the tables went to stderr
    code, stdout, _ = run(args, capsys)
    assert json.loads(stdout)["reused"] is True
    code, stdout, err = run(["select", str(data), "-m", "ttest", "-k", "3", "--json"], capsys)
    payload = json.loads(stdout)
    assert code == 0 and payload["command"] == "select" and len(payload["features"]) == 3


def test_json_errors_are_one_object_too(tmp_path, capsys):
    code, stdout, err = run(["compare", str(tmp_path / "nope.csv"), "--json"], capsys)
    payload = json.loads(stdout)
    assert code == EXIT_DATA and payload["status"] == "error"
    assert payload["exit_code"] == EXIT_DATA and payload["error"] in err


def test_exit_codes_are_distinct_and_listed(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    assert run(["compare", str(data), "-m", "relif"], capsys)[0] == EXIT_USAGE
    assert run(["compare", str(tmp_path / "missing.csv")], capsys)[0] == EXIT_DATA
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _, err = run(["compare", str(data), *FAST, "--out", str(blocker / "run")], capsys)
    assert code == EXIT_USAGE and "is a file" in err
    code, out, _ = run(["--help"], capsys)
    assert code == 0 and "Exit status: 0 success" in " ".join(out.split())
    code, out, _ = run(["compare", "--help"], capsys)
    text = " ".join(out.split())
    for words in ("2 a bad option", "3 data that cannot be read or used", "4 the machine",
                  "130 interrupted"):
        assert words in text
    assert EXIT_RESOURCE == 4
