"""CLI manners: -q / -v, warnings as one logged line, the whole command in run.json."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd

from stablefs.cli import main
from stablefs.evaluation import runner as runner_mod


def toy(path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(30, 8)), columns=[f"g{j}" for j in range(8)])
    df.insert(0, "label", np.repeat(["a", "b"], 15))
    df.to_csv(path, index=False)
    return path


ARGS = ["-m", "ttest", "-k", "3", "--repeats", "3", "--classifiers", "1nn", "--no-report"]


def test_quiet_prints_only_results(tmp_path, capsys):
    data = toy(tmp_path / "toy.csv")
    assert main(["compare", str(data), *ARGS, "--out", str(tmp_path / "o"), "-q"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "nogueira stability" in out


def test_warnings_are_one_logged_line(tmp_path, capsys):
    data = toy(tmp_path / "toy.csv")
    orig = runner_mod._fit_task

    def noisy(*a, **k):
        warnings.warn("something odd\nacross two lines", UserWarning, stacklevel=1)
        return orig(*a, **k)

    runner_mod._fit_task = noisy
    try:
        assert main(["compare", str(data), *ARGS, "--out", str(tmp_path / "o")]) == 0
    finally:
        runner_mod._fit_task = orig
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if "something odd" in ln]
    assert lines and all(ln == "stablefs: warning: something odd across two lines"
                         for ln in lines)
    assert "UserWarning" not in err and ".py:" not in err


def test_run_json_holds_the_whole_command(tmp_path, capsys):
    data = toy(tmp_path / "toy.csv")
    out = tmp_path / "my out"
    assert main(["compare", str(data), *ARGS, "--out", str(out)]) == 0
    capsys.readouterr()
    command = json.loads((out / "run.json").read_text())["command"]
    assert command.startswith("stablefs compare ") and "'" + str(out) + "'" in command
    assert "--repeats 3" in command


def test_an_interrupted_select_promises_no_resume(tmp_path, capsys, monkeypatch):
    # select keeps nothing to resume: Ctrl-C (or SIGTERM) says only that it was interrupted,
    # while compare's line keeps the resume hint (test_safety_processes, test_reruns)
    from stablefs.selectors._base import BaseSelector

    def stop(self, X, y=None, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(BaseSelector, "fit", stop)
    data = toy(tmp_path / "toy.csv")
    code = main(["select", str(data), "-m", "ttest", "-k", "3"])
    out, err = capsys.readouterr()
    assert code == 130
    assert err.strip().splitlines() == ["stablefs: interrupted."]
    assert out == ""
