"""Reruns (docs/DESIGN.md, "Reruns"): reuse, refusal, --force, resumption, the lock, and
fingerprints."""

from __future__ import annotations

import json
import multiprocessing as mp
from pathlib import Path

import pandas as pd
import pytest

from cli_helpers import run, snapshot, write_toy
from stablefs._runtime.rundir import RunFolder
from stablefs.cli import main
from stablefs.evaluation import runner as runner_mod

FAST = ["-m", "ttest", "-k", "3", "--repeats", "3", "--classifiers", "1nn", "--no-report",
        "--no-progress"]


def test_same_command_twice_reuses_the_finished_run(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"
    args = ["compare", str(data), *FAST, "--out", str(out)]
    code, first, err = run(args, capsys)
    assert code == 0, err
    assert not (out / ".partial").exists()  # leftovers removed on success
    before = snapshot(out)
    info = json.loads((out / "run.json").read_text())
    assert info["fits_reused"] == 0 and info["fits_computed"] == 3
    assert list(info["config"]["inputs"]) == ["data"]  # by role and content, not path
    assert len(info["config"]["inputs"]["data"]) == 64

    calls = []
    orig = runner_mod._fit_task
    try:
        runner_mod._fit_task = lambda *a, **k: calls.append(1) or orig(*a, **k)
        code, second, err = run(args, capsys)
    finally:
        runner_mod._fit_task = orig
    assert code == 0, err
    assert calls == []  # nothing refitted
    assert second == first  # the same summary
    assert "nothing refitted" in err
    assert snapshot(out) == before  # every file identical


def test_a_finished_run_is_read_back_without_planning_its_stages(tmp_path, capsys,
                                                                 monkeypatch):
    """Drawing every permutation's resamples (the stages' dry run) is for a run that will
    fit: a rerun that reads the finished run back skips it (a third of its time)."""
    import stablefs.comparison._compare as compare_mod

    data = write_toy(tmp_path / "toy.csv")
    args = ["compare", str(data), *FAST, "--permutations", "20", "--out", str(tmp_path / "run")]
    planned = []
    orig = compare_mod.plan_stages
    monkeypatch.setattr(compare_mod, "plan_stages",
                        lambda *a, **k: planned.append(1) or orig(*a, **k))
    assert run(args, capsys)[0] == 0
    assert planned == [1]
    code, _, err = run(args, capsys)
    assert code == 0 and "nothing refitted" in err
    assert planned == [1]


def test_other_configuration_is_refused_then_forced(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"
    assert run(["compare", str(data), *FAST, "--out", str(out)], capsys)[0] == 0
    before = snapshot(out)
    code, stdout, err = run(["compare", str(data), *FAST, "--out", str(out), "--seed", "1"],
                            capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "--force" in lines[0] and "--out" in lines[0]
    assert "seed 0 -> 1" in lines[0]
    assert snapshot(out) == before
    code, _, err = run(["compare", str(data), *FAST, "--out", str(out), "--seed", "1",
                        "--force"], capsys)
    assert code == 0, err
    assert json.loads((out / "run.json").read_text())["seed"] == 1


def test_changed_input_file_is_a_changed_configuration(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"
    assert run(["compare", str(data), *FAST, "--out", str(out)], capsys)[0] == 0
    write_toy(data, seed=1)
    code, _, err = run(["compare", str(data), *FAST, "--out", str(out)], capsys)
    assert code == 2 and "another configuration" in err and "changed" in err


def test_interrupted_run_resumes_and_says_so(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"
    args = ["compare", str(data), *FAST, "--repeats", "4", "--out", str(out)]
    orig = runner_mod._fit_task
    count = []

    def flaky(*a, **k):
        if len(count) == 2:
            raise KeyboardInterrupt
        count.append(1)
        return orig(*a, **k)

    try:
        runner_mod._fit_task = flaky
        code, _, err = run(args, capsys)
    finally:
        runner_mod._fit_task = orig
    assert code == 130 and "rerun the same command" in err
    assert not (out / "run.json").exists()
    assert len(list((out / ".partial").rglob("*.npz"))) == 2
    code, _, err = run(args, capsys)
    assert code == 0, err
    info = json.loads((out / "run.json").read_text())
    assert info["fits_reused"] == 2 and info["fits_computed"] == 2
    assert "resumed: 2 fits reused" in err
    assert not (out / ".partial").exists()
    # the resumed run equals an uninterrupted one
    fresh = tmp_path / "fresh"
    assert run(["compare", str(data), *FAST, "--repeats", "4", "--out", str(fresh)], capsys)[0] == 0
    pd.testing.assert_frame_equal(pd.read_csv(out / "stability.csv"),
                                  pd.read_csv(fresh / "stability.csv"))


def test_failed_run_leaves_no_folder_behind(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"
    orig = runner_mod._fit_task
    try:
        runner_mod._fit_task = lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom"))
        with pytest.raises(RuntimeError):
            main(["compare", str(data), *FAST, "--out", str(out)])
    finally:
        runner_mod._fit_task = orig
    capsys.readouterr()
    assert not out.exists()


def test_lock_refuses_a_second_writer(tmp_path):
    folder = RunFolder(tmp_path / "run", {"a": 1})
    with folder:
        other = RunFolder(tmp_path / "run", {"a": 2})
        with pytest.raises(Exception, match="another stablefs run is writing"):
            other.__enter__()


def _race(data, out, seed, barrier, queue):
    import io
    import sys

    sys.stderr = io.StringIO()
    sys.stdout = io.StringIO()
    barrier.wait()
    code = main(["compare", str(data), *FAST, "--out", str(out), "--seed", str(seed)])
    queue.put((seed, code, sys.stderr.getvalue()))


def _metrics(folder: Path) -> pd.DataFrame:
    """results.csv without the fit times (measured, so they differ between fresh runs)."""
    res = pd.read_csv(folder / "results.csv")
    return res[res["metric"] != "fit_time"].reset_index(drop=True)


def test_two_runs_into_one_folder_never_mix(tmp_path):
    """20 races of two different configurations into one folder: each time one is refused (or
    finds the other's finished run and is refused), and the folder holds one configuration."""
    data = write_toy(tmp_path / "toy.csv")
    ctx = mp.get_context("fork")
    references = {}
    for seed in (0, 1):
        ref = tmp_path / f"ref{seed}"
        assert main(["compare", str(data), *FAST, "--out", str(ref), "--seed", str(seed)]) == 0
        references[seed] = _metrics(ref)
    for trial in range(20):
        out = tmp_path / f"race{trial}"
        barrier, queue = ctx.Barrier(2), ctx.Queue()
        procs = [ctx.Process(target=_race, args=(data, out, s, barrier, queue)) for s in (0, 1)]
        for p in procs:
            p.start()
        outcomes = [queue.get(timeout=120) for _ in procs]
        for p in procs:
            p.join(timeout=60)
        codes = {seed: code for seed, code, _ in outcomes}
        assert sorted(codes.values()) == [0, 2], outcomes
        winner = next(s for s, c in codes.items() if c == 0)
        loser_err = next(e for s, _, e in outcomes if s != winner)
        assert ("another stablefs run is writing" in loser_err
                or "another configuration" in loser_err), loser_err
        info = json.loads((out / "run.json").read_text())
        assert info["seed"] == winner
        pd.testing.assert_frame_equal(_metrics(out), references[winner])
