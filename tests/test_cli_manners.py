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


def test_select_shows_the_steps_of_a_search(tmp_path, capsys, monkeypatch):
    # a sequential search's steps on the progress bar: one update per step with the subset
    # size and J (SBS from 8 features runs down to one, for the full ranking); another
    # method makes no bar
    import stablefs._runtime.progress as progress_mod

    made = []

    class Recorder:
        def __init__(self, **kw):
            self.kw, self.texts, self.closed = kw, [], False
            made.append(self)

        def update(self, n=1, text=None):
            self.texts.append(text)

        def close(self):
            self.closed = True

    monkeypatch.setattr(progress_mod, "make_progress", lambda mode, **kw: Recorder(**kw))
    data = toy(tmp_path / "toy.csv")
    assert main(["select", str(data), "-m", "sbs", "-k", "3", "--progress"]) == 0
    assert len(made) == 1 and made[0].closed and made[0].kw["desc"] == "sbs"
    assert [t.split(",")[0] for t in made[0].texts] == [f"{k} features" for k in range(7, 1, -1)
                                                         ] + ["1 feature"]
    assert all(" J = " in t for t in made[0].texts)
    assert main(["select", str(data), "-m", "ttest", "-k", "3", "--progress"]) == 0
    assert len(made) == 1
    assert main(["select", str(data), "-m", "sbs", "-k", "3", "--no-progress"]) == 0
    assert len(made) == 1
    capsys.readouterr()


def test_select_in_a_log_writes_a_line_now_and_then(tmp_path, capsys, monkeypatch):
    # stderr not a terminal (capsys): no bar, but a long search leaves a line every
    # LINE_INTERVAL seconds (0 here: one per step) with the steps so far, the subset size and
    # J; -q and --no-progress silence it, and other methods print nothing
    import stablefs._runtime.progress as progress_mod

    monkeypatch.setattr(progress_mod, "LINE_INTERVAL", 0.0)
    data = toy(tmp_path / "toy.csv")
    assert main(["select", str(data), "-m", "sbs", "-k", "3"]) == 0
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert lines[0].startswith("stablefs: sbs: 1 step, 7 features, J = ")
    assert lines[-1].startswith("stablefs: sbs: 7 steps, 1 feature, J = ")
    assert len(lines) == 7 and all(line.endswith(" s)") for line in lines)
    assert out.split()[:4] == ["rank", "feature", "score", "selected"]  # the ranking
    for quiet in (["-q"], ["--no-progress"]):
        assert main(["select", str(data), "-m", "sbs", "-k", "3", *quiet]) == 0
        assert capsys.readouterr().err == ""
    assert main(["select", str(data), "-m", "ttest", "-k", "3"]) == 0
    assert capsys.readouterr().err == ""
