"""Safety of what a run stores and where it writes (issue 16; docs/DESIGN.md, "Safety"):
nothing executes from disk, the output folder is owned, symbolic links never lead a run out of
it, and write failures give one line and a resumable folder. The attacks are run from the
command line (``stablefs.cli.main``) and the user's files are compared byte for byte."""

from __future__ import annotations

import errno
import io
import json
import os
import pickle
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import run, write_toy
from stablefs._errors import EXIT_RESOURCE, StablefsError
from stablefs._runtime.pandas_compat import EXACT_FLOATS
from stablefs._runtime.stored import StoredFileError, read_arrays, write_arrays
from stablefs.cli import main
from stablefs.evaluation import runner as runner_mod
from stablefs.evaluation.outputs import read_selections
from stablefs.evaluation.protocols import Resample
from stablefs.experiments._montecarlo import TaskCache, run_units

SRC = Path(__file__).resolve().parents[1] / "src"
FAST = ["-m", "ttest", "-k", "3", "--repeats", "4", "--classifiers", "1nn", "--no-report",
        "--no-progress"]


class Payload:
    """Unpickling this creates ``marker``: the proof that stored code ran."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def snapshot(folder: Path) -> dict:
    """Every entry under ``folder`` (not following links): bytes of files, targets of links."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            rel = p.relative_to(folder).as_posix()
            if p.is_symlink():
                out[rel] = ("link", os.readlink(p))
            elif p.is_file():
                out[rel] = p.read_bytes()
            else:
                out[rel] = "dir"
    return out


def interrupted(args, capsys, after: int):
    """Run ``args`` and stop it with Ctrl-C after ``after`` finished fits."""
    orig = runner_mod._fit_task
    count = []

    def flaky(*a, **k):
        if len(count) == after:
            raise KeyboardInterrupt
        count.append(1)
        return orig(*a, **k)

    runner_mod._fit_task = flaky
    try:
        code, _, err = run(args, capsys)
    finally:
        runner_mod._fit_task = orig
    assert code == 130, err


def warnings_in(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("stablefs: warning:")]


def one_error(err: str) -> bool:
    """stderr says exactly one thing from stablefs, an error line (the run's header lines and
    the time estimates, which a loaded machine prints after the fits too, are not messages)."""
    said = [line for line in err.splitlines()
            if line.startswith(("stablefs: error:", "stablefs: warning:"))]
    return len(said) == 1 and said[0].startswith("stablefs: error: ")


def without_fit_time(folder: Path) -> pd.DataFrame:
    res = pd.read_csv(folder / "results.csv")
    return res[res["metric"] != "fit_time"].reset_index(drop=True)


# ------------------------------------------------------------------ nothing runs from disk

UNSAFE = re.compile(r"\bimport pickle\b|\bfrom pickle\b|\bpickle\.(load|loads|Unpickler)\b"
                    r"|cloudpickle|\bdill\b|\bshelve\b|\bmarshal\.loads?\b|joblib\.(load|dump)\b"
                    r"|allow_pickle\s*=\s*True|read_pickle|torch\.load|yaml\.(unsafe_)?load\(")


def test_source_never_unpickles():
    """No module of stablefs loads pickles (or writes what would need one to be read back)."""
    hits = []
    for path in sorted(SRC.rglob("*.py")):
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if UNSAFE.search(line):
                hits.append(f"{path.relative_to(SRC)}:{i}: {line.strip()}")
    assert hits == []
    assert UNSAFE.search("x = joblib.load(path)") and UNSAFE.search("np.load(p, allow_pickle=True)")


def _plant(folder: Path, marker: Path) -> list[Path]:
    """Replace every stored fit under ``folder`` by a file whose loading would run code: a
    pickle, an .npz with a pickled object array, a joblib-style pickle."""
    files = sorted(folder.rglob("*.npz"))
    assert files
    for i, f in enumerate(files):
        if i % 2 == 0:
            f.write_bytes(pickle.dumps(Payload(marker)))
        else:
            buf = io.BytesIO()
            np.savez(buf, ranking=np.array([Payload(marker)], dtype=object))
            f.write_bytes(buf.getvalue())
        # a file in the format of earlier versions, beside it
        f.with_suffix(".pkl").write_bytes(pickle.dumps(Payload(marker)))
    return files


def test_planted_payload_resume_runs_no_code_and_gives_the_same_results(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    out, fresh = tmp_path / "run", tmp_path / "fresh"
    args = ["compare", data, *FAST, "--out", out]
    interrupted(args, capsys, after=2)
    marker = tmp_path / "PWNED"
    planted = _plant(out / ".partial", marker)
    assert len(planted) == 2
    code, _, err = run(args, capsys)
    assert code == 0, err
    assert not marker.exists()
    warn = warnings_in(err)
    assert len(warn) == 1 and "2 stored fit(s)" in warn[0] and "recomputed" in warn[0], err
    info = json.loads((out / "run.json").read_text())
    assert info["fits_reused"] == 0 and info["fits_computed"] == 4
    assert run(["compare", data, *FAST, "--out", fresh], capsys)[0] == 0
    assert (out / "stability.csv").read_bytes() == (fresh / "stability.csv").read_bytes()
    pd.testing.assert_frame_equal(without_fit_time(out), without_fit_time(fresh))


def test_resume_reuses_every_finished_fit_exactly(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"
    args = ["compare", data, *FAST, "--out", out]
    interrupted(args, capsys, after=3)
    stored = {int(f.stem.rsplit("-", 1)[1]): float(read_arrays(f)["fit_time"])
              for f in (out / ".partial").rglob("*.npz")}
    assert len(stored) == 3
    code, _, err = run(args, capsys)
    assert code == 0 and warnings_in(err) == [], err
    info = json.loads((out / "run.json").read_text())
    assert info["fits_reused"] == 3 and info["fits_computed"] == 1
    res = pd.read_csv(out / "results.csv", **EXACT_FLOATS)  # exact parsing on every pandas
    times = res[res["metric"] == "fit_time"].set_index("resample")["value"]
    for resample, t in stored.items():
        assert times[resample] == t  # the stored numbers, bit for bit


def test_one_bad_fit_among_good_ones_is_recomputed_alone(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"
    args = ["compare", data, *FAST, "--out", out]
    interrupted(args, capsys, after=3)
    victim = sorted((out / ".partial").rglob("*.npz"))[0]
    victim.write_bytes(victim.read_bytes()[:100])  # truncated
    code, _, err = run(args, capsys)
    assert code == 0
    assert len(warnings_in(err)) == 1 and "1 stored fit(s)" in err and victim.name in err
    info = json.loads((out / "run.json").read_text())
    assert info["fits_reused"] == 2 and info["fits_computed"] == 2


def _fit_cache(tmp_path, p=5, sizes=(2, 3)):
    cache = runner_mod._FitCache(tmp_path, {"a": 1}, p, list(sizes), {"1nn": "1nn"},
                                 promises={"ttest": True})
    metrics = {k: {"accuracy_1nn": k / 3, "auc_1nn": 0.25} for k in sizes}
    result = {"fit_time": 0.125, "ranking": np.arange(1, p + 1, dtype=np.int32),
              "scores": np.linspace(0, 1, p), "metrics": metrics}
    return cache, result, Resample(0, np.arange(6), np.arange(6, 9))


def test_fit_cache_round_trip_is_exact(tmp_path):
    cache, result, res = _fit_cache(tmp_path)
    cache.save("ttest", res, result)
    back = cache.load("ttest", res)
    assert back["fit_time"] == result["fit_time"] and back["metrics"] == result["metrics"]
    np.testing.assert_array_equal(back["ranking"], result["ranking"])
    assert back["ranking"].dtype == np.int32
    np.testing.assert_array_equal(back["scores"], result["scores"])
    assert cache.rejected == []
    # a reference fit (no test part) records no metrics
    reference = Resample(-1, np.arange(9), np.arange(0))
    cache.save("ttest", reference, {**result, "metrics": {}})
    ref = cache.load("ttest", reference)
    assert ref["metrics"] == {}


def _npy_member(header_shape, dtype="<f8", data=b"") -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": dtype, "fortran_order": False, "shape": header_shape})
    return buf.getvalue() + data


@pytest.mark.parametrize("case", ["other_method", "other_resample", "wrong_shape",
                                  "wrong_dtype", "extra_member", "huge_header", "not_zip",
                                  "other_sizes", "other_metrics"])
def test_fit_cache_refuses_what_does_not_match(tmp_path, case):
    cache, result, res = _fit_cache(tmp_path)
    cache.save("ttest", res, result)
    path = cache._path("ttest", 0)
    good = read_arrays(path)
    bad = dict(good)
    if case == "other_method":
        bad["method_key"] = np.asarray("relieff")
    elif case == "other_resample":
        bad["resample"] = np.int64(3)
    elif case == "wrong_shape":
        bad["ranking"] = np.arange(4, dtype=np.int32)
    elif case == "wrong_dtype":
        bad["ranking"] = np.arange(5, dtype=np.int64)
    elif case == "extra_member":
        bad["extra"] = np.zeros(2)
    elif case == "other_sizes":
        bad["metric_k"] = np.array([2, 4])
    elif case == "other_metrics":
        bad["metric_names"] = np.array(["accuracy_svm", "auc_svm"])
    if case == "huge_header":  # declares 10^12 values: refused before any allocation
        from stablefs._runtime.stored import DIGEST, digest

        with zipfile.ZipFile(path, "w") as zf:
            for name, arr in {**good, DIGEST: np.asarray(digest(good))}.items():
                b = io.BytesIO()
                np.lib.format.write_array(b, arr)
                zf.writestr(name + ".npy", b.getvalue() if name != "scores"
                            else _npy_member((10**12,)))
    elif case == "not_zip":
        path.write_bytes(b"\x80\x04not a zip at all")
    else:
        write_arrays(path, bad)
    assert cache.load("ttest", res) is None
    assert len(cache.rejected) == 1


def test_read_arrays_refuses_objects_and_lies_about_sizes(tmp_path):
    marker = tmp_path / "PWNED"
    path = tmp_path / "x.npz"
    np.savez(path, a=np.array([Payload(marker)], dtype=object))
    with pytest.raises(StoredFileError, match="Python objects"):
        read_arrays(path)
    with zipfile.ZipFile(path, "w") as zf:  # header says 3 values, 1 is stored
        zf.writestr("a.npy", _npy_member((3,), data=np.zeros(1).tobytes()))
    with pytest.raises(StoredFileError, match="declares 24 bytes"):
        read_arrays(path)
    with pytest.raises(TypeError):
        write_arrays(path, {"a": np.array([None], dtype=object)})
    assert not marker.exists()


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_read_arrays_outcome_is_arrays_or_one_error(tmp_path, data):
    """Random and mutated bytes: the only outcomes are arrays or StoredFileError."""
    buf = io.BytesIO()
    compress = data.draw(st.booleans())
    (np.savez_compressed if compress else np.savez)(
        buf, a=np.arange(6, dtype=np.int32).reshape(2, 3), b=np.asarray("unit"))
    good = bytearray(buf.getvalue())
    if data.draw(st.booleans()):
        blob = bytes(data.draw(st.binary(max_size=400)))
    else:
        for _ in range(data.draw(st.integers(1, 8))):
            i = data.draw(st.integers(0, len(good) - 1))
            good[i] = data.draw(st.integers(0, 255))
        cut = data.draw(st.integers(0, len(good)))
        blob = bytes(good[:cut]) if data.draw(st.booleans()) else bytes(good)
    path = tmp_path / "f.npz"
    path.write_bytes(blob)
    try:
        out = read_arrays(path)
    except StoredFileError:
        return
    assert all(isinstance(v, np.ndarray) and not v.dtype.hasobject for v in out.values())


def test_task_cache_never_unpickles_and_checks_the_unit(tmp_path, caplog):
    cache = TaskCache(tmp_path / "cache")
    keys = [(1, i) for i in range(3)]
    first = run_units(_unit, keys, study="s", cache=cache)
    marker = tmp_path / "PWNED"
    files = sorted((tmp_path / "cache").glob("*.npz"))
    files[0].write_bytes(pickle.dumps(Payload(marker)))
    os.replace(files[2], files[1])  # unit 2's file under unit 1's name
    again = TaskCache(tmp_path / "cache")
    with caplog.at_level("WARNING", logger="stablefs"):
        second = run_units(_unit, keys, study="s", cache=again)
    assert not marker.exists()
    assert again.hits == 0  # unit 2's file is missing now, units 0 and 1 are refused
    lines = [r.getMessage() for r in caplog.records if r.name == "stablefs"]
    assert len(lines) == 1 and "2 stored unit(s)" in lines[0]
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a["x"], b["x"])
    assert "__unit__" not in second[0]


def _unit(key):
    return {"x": np.full(2, float(key[1]))}


def test_read_selections_refuses_pickled_npz(tmp_path):
    marker = tmp_path / "PWNED"
    ragged = np.empty(2, dtype=object)
    ragged[:] = [np.arange(3), Payload(marker)]
    np.savez(tmp_path / "selections.npz", method=np.array(["a", "a"]), resample=np.arange(2),
             fit_time=np.zeros(2), train=ragged, ranking=ragged, scores=ragged)
    with pytest.raises(StablefsError, match="does not unpickle"):
        read_selections(tmp_path)
    assert not marker.exists()
    np.savez(tmp_path / "selections.npz", method=np.array(["a", "a"]), resample=np.arange(2),
             fit_time=np.zeros(2), train=np.zeros((2, 3), dtype=int),
             ranking=np.ones((2, 4), dtype=np.int32), scores=np.zeros((2, 4)))
    back = read_selections(tmp_path)  # plain arrays of an older run are still read
    assert list(back["method"]) == ["a", "a"] and back["ranking"][1].tolist() == [1] * 4


# ------------------------------------------------------------------ ownership of the folder

def _user_folder(path: Path) -> Path:
    (path / "figures").mkdir(parents=True)
    (path / "report.html").write_text("<p>my own report</p>")
    (path / "figures" / "stability.png").write_bytes(b"my figure")
    (path / "notes.txt").write_text("do not touch")
    return path


@pytest.mark.parametrize("force", [False, True])
def test_foreign_folder_is_refused_before_any_work(tmp_path, capsys, force):
    data = write_toy(tmp_path / "toy.csv")
    user = _user_folder(tmp_path / "project")
    before = snapshot(user)
    calls = []
    orig = runner_mod._fit_task
    runner_mod._fit_task = lambda *a, **k: calls.append(1) or orig(*a, **k)
    try:
        code, out, err = run(["compare", data, *FAST, "--out", user]
                             + (["--force"] if force else []), capsys)
    finally:
        runner_mod._fit_task = orig
    assert code == 2 and calls == []
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "not made by stablefs" in lines[0], err
    assert "stablefs-run" in lines[0]  # a new folder is suggested
    assert snapshot(user) == before  # byte-identical, and no .lock or .partial left


@pytest.mark.parametrize("force", [False, True])
def test_run_json_of_another_program_is_refused(tmp_path, capsys, force):
    data = write_toy(tmp_path / "toy.csv")
    user = _user_folder(tmp_path / "other")
    (user / "tables").mkdir()
    (user / "tables" / "t.csv").write_text("a,b\n1,2\n")
    (user / "run.json").write_text(json.dumps({"tool": "snakemake", "config_key": "x"}))
    before = snapshot(user)
    code, _, err = run(["compare", data, *FAST, "--out", user]
                       + (["--force"] if force else []), capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "run.json was not written by stablefs" in err
    assert snapshot(user) == before


def test_empty_folder_and_unfinished_own_folder_are_used(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / ".DS_Store").write_bytes(b"finder")
    code, _, err = run(["compare", data, *FAST, "--out", empty], capsys)
    assert code == 0, err
    info = json.loads((empty / "run.json").read_text())
    assert info["tool"] == "stablefs"
    listed = set(info["files"])
    present = {k for k, v in snapshot(empty).items() if v != "dir"}
    assert present == listed | {".DS_Store"}  # the finished run removed its lock file
    # an unfinished run's folder (.lock and .partial only) is its own: it resumes
    out = tmp_path / "run"
    interrupted(["compare", data, *FAST, "--out", out], capsys, after=1)
    assert {p.name for p in out.iterdir()} == {".lock", ".partial"}
    code, _, err = run(["compare", data, *FAST, "--out", out], capsys)
    assert code == 0 and "resumed: 1 fits reused" in err, err


def test_force_deletes_only_what_the_manifest_lists(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"
    base = ["compare", data, "-m", "ttest", "-k", "3", "--repeats", "3", "--classifiers",
            "1nn", "--no-progress", "--out", out]
    assert run(base, capsys)[0] == 0  # with the report: figures/ exists
    (out / "notes.txt").write_text("mine")
    (out / "figures" / "mine.png").write_bytes(b"my figure")
    mine = {k: v for k, v in snapshot(out).items() if "mine" in k or "notes" in k}
    code, _, err = run(base + ["--seed", "1", "--force", "--no-report"], capsys)
    assert code == 0, err
    after = snapshot(out)
    assert {k: after[k] for k in mine} == mine
    info = json.loads((out / "run.json").read_text())
    assert info["seed"] == 1 and "report.html" not in info["files"]
    assert not (out / "report.html").exists() and not (out / "figures" / "stability.png").exists()


def _finished(tmp_path, capsys, name="run"):
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / name
    assert run(["compare", data, *FAST, "--out", out], capsys)[0] == 0
    return data, out


@pytest.mark.parametrize("entry", ["../victim.txt", "/etc/hostname", "link.csv", "sub"])
def test_force_checks_every_entry_before_deleting_anything(tmp_path, capsys, entry):
    data, out = _finished(tmp_path, capsys)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (out / "link.csv").symlink_to(victim)
    (out / "sub").mkdir()
    info = json.loads((out / "run.json").read_text())
    info["files"] = ["results.csv", entry] + info["files"]
    (out / "run.json").write_text(json.dumps(info))
    before, outside = snapshot(out), victim.read_bytes()
    code, _, err = run(["compare", data, *FAST, "--out", out, "--seed", "2", "--force"],
                       capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "deletes nothing" in err, err
    assert snapshot(out) == before and victim.read_bytes() == outside


def test_symlinked_figures_is_never_followed(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    user = tmp_path / "my-pictures"
    user.mkdir()
    (user / "stability.png").write_bytes(b"holiday")
    (user / "stability.svg").write_bytes(b"<svg/>")
    user_before = snapshot(user)
    out = tmp_path / "run"
    args = ["compare", data, "-m", "ttest", "-k", "3", "--repeats", "3", "--classifiers",
            "1nn", "--no-progress", "--out", out]
    assert run(args, capsys)[0] == 0
    # 1. a finished run whose figures/ became a link to the user's folder: --force refuses
    import shutil

    shutil.rmtree(out / "figures")
    (out / "figures").symlink_to(user, target_is_directory=True)
    before = snapshot(out)
    code, _, err = run(args + ["--seed", "1", "--force"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "leads out of" in err, err
    assert snapshot(out) == before and snapshot(user) == user_before
    # 2. a fresh folder holding only that link is not a stablefs folder
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "figures").symlink_to(user, target_is_directory=True)
    code, _, err = run(args[:-1] + [fresh], capsys)
    assert code == 2 and "not made by stablefs" in err and snapshot(user) == user_before
    # 3. the link appears while the run computes: the write is refused, nothing outside
    # changes, and the files this run wrote are removed (its fits are kept)
    late = tmp_path / "late"
    orig = runner_mod._fit_task

    def sneaky(*a, **k):
        if not (late / "figures").exists():
            (late / "figures").symlink_to(user, target_is_directory=True)
        return orig(*a, **k)

    runner_mod._fit_task = sneaky
    try:
        code, _, err = run(args[:-1] + [late], capsys)
    finally:
        runner_mod._fit_task = orig
    assert code == 2 and one_error(err), err
    assert "symbolic link leading out of" in err and snapshot(user) == user_before
    left = {p.name for p in late.iterdir()}
    assert left == {".lock", ".partial", "figures"}, left


def test_a_file_dropped_in_during_the_run_is_not_replaced(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"
    orig = runner_mod._fit_task

    def drop(*a, **k):
        if not (out / "stability.csv").exists():
            (out / "stability.csv").write_text("the user's own table")
        return orig(*a, **k)

    runner_mod._fit_task = drop
    try:
        code, _, err = run(["compare", data, *FAST, "--out", out], capsys)
    finally:
        runner_mod._fit_task = orig
    assert code == 2 and one_error(err) and "stablefs did not write it" in err, err
    assert (out / "stability.csv").read_text() == "the user's own table"
    assert not (out / "results.csv").exists() and not (out / "run.json").exists()


def test_legacy_run_without_manifest_force_deletes_fixed_names_only(tmp_path, capsys):
    data, out = _finished(tmp_path, capsys)
    info = json.loads((out / "run.json").read_text())
    del info["tool"], info["files"]  # as written before this version
    (out / "run.json").write_text(json.dumps(info))
    (out / "figures").mkdir()
    (out / "figures" / "stability.png").write_bytes(b"old run's figure")
    (out / "figures" / "mine.png").write_bytes(b"user")
    (out / "tables").mkdir()
    (out / "tables" / "t.csv").write_text("user")
    code, _, err = run(["compare", data, *FAST, "--out", out, "--seed", "3", "--force"],
                       capsys)
    assert code == 0, err
    assert not (out / "figures" / "stability.png").exists()
    assert (out / "figures" / "mine.png").read_bytes() == b"user"
    assert (out / "tables" / "t.csv").read_text() == "user"


def test_reproduce_refuses_a_foreign_folder_and_marks_its_own(tmp_path, capsys):
    from stablefs.experiments import get_experiment, reproduce
    from stablefs.experiments.han2012_synthetic.protocol import Han2012Config

    user = _user_folder(tmp_path / "project")
    before = snapshot(user)
    code, _, err = run(["reproduce", "han2012-synthetic", "--quick", "--out", user, "-q"],
                       capsys)
    assert code == 2 and "not made by stablefs" in err and snapshot(user) == before
    tiny = Han2012Config(
        methods=("svm-rfe", "iw-svm-rfe"), n_sets=3, n_train=30, n_test=60, n_features=30,
        n_relevant=10, block_size=5, n_final=5, size_k=10, sample_sizes=(20, 40), claim_n=20,
        n_sets_sizes=2, n_bootstrap=20)
    out = tmp_path / "repro"
    reproduce(get_experiment("han2012-synthetic"), tiny, out, figures=False)
    info = json.loads((out / "run.json").read_text())
    assert info["tool"] == "stablefs"
    present = {k for k, v in snapshot(out).items() if v != "dir"} - {".lock"}
    assert set(info["files"]) == present


def test_failed_run_in_an_empty_folder_leaves_it_empty(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "mine"
    out.mkdir()
    orig = runner_mod._fit_task
    runner_mod._fit_task = lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom"))
    try:
        with pytest.raises(RuntimeError):
            main(["compare", str(data), *FAST, "--out", str(out)])
    finally:
        runner_mod._fit_task = orig
    capsys.readouterr()
    assert out.is_dir() and list(out.iterdir()) == []


def test_removing_partial_never_follows_a_link_nor_deletes_foreign_files(tmp_path, caplog):
    """``.partial`` is removed when a run completes or fails: its stored .npz/.json state
    goes, but a link inside it (to a user folder) is neither followed nor removed, a file
    stablefs does not write stays, and a ``.partial`` that is itself a link is left alone."""
    import logging

    from stablefs._runtime.rundir import RunFolder

    user = tmp_path / "user"
    user.mkdir()
    (user / "keep.npz").write_bytes(b"user data")
    out = tmp_path / "run"
    key = out / ".partial" / "0123456789abcdef"
    key.mkdir(parents=True)
    (key / "aaaaaaaaaaaa-00000.npz").write_bytes(b"fit")
    (key / ".00001.json.0f0f0f0f.tmp.json").write_bytes(b"{")
    (out / ".partial" / "permutation").symlink_to(user, target_is_directory=True)
    (out / ".partial" / "notes.txt").write_text("mine")
    folder = RunFolder(out, {"a": 1})
    with caplog.at_level(logging.WARNING, logger="stablefs"):
        folder.complete()
    assert not key.exists()
    assert (out / ".partial" / "notes.txt").read_text() == "mine"
    assert (out / ".partial" / "permutation").is_symlink()
    assert (user / "keep.npz").read_bytes() == b"user data"
    assert [r for r in caplog.records if "did not write" in r.getMessage()]
    # a .partial that is a link to a user folder is not touched at all
    other = tmp_path / "other"
    other.mkdir()
    (other / ".partial").symlink_to(user, target_is_directory=True)
    RunFolder(other, {"a": 1}).complete()
    assert (user / "keep.npz").read_bytes() == b"user data"


# ------------------------------------------------------------------ failures while writing

@pytest.mark.parametrize("code_, words", [(errno.ENOSPC, "the disk is full (ENOSPC)"),
                                         (errno.EFBIG, "file-size limit"),
                                         (errno.EACCES, "permission denied (EACCES)")])
def test_write_failure_is_one_line_and_the_rerun_resumes(tmp_path, capsys, monkeypatch,
                                                         code_, words):
    from stablefs._runtime import io as _io

    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"
    args = ["compare", data, *FAST, "--out", out]
    real = _io._final_mode

    def failing(path):
        if Path(path).name == "stability.csv":
            raise OSError(code_, os.strerror(code_))
        return real(path)

    monkeypatch.setattr(_io, "_final_mode", failing)
    code, _, err = run(args, capsys)
    assert code == EXIT_RESOURCE and one_error(err), err
    line = err.strip().splitlines()[-1]
    assert str(out) in line and words in line, err
    assert not (out / "run.json").exists() and not (out / "results.csv").exists()
    assert not list(out.glob(".*.tmp*"))
    assert len(list((out / ".partial").rglob("*.npz"))) == 4
    monkeypatch.setattr(_io, "_final_mode", real)
    code, _, err = run(args, capsys)
    assert code == 0, err
    assert json.loads((out / "run.json").read_text())["fits_reused"] == 4


def test_pyarrow_style_error_without_errno_is_named(tmp_path, capsys, monkeypatch):
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"

    def full(*a, **k):
        raise OSError("Error writing bytes to file. Detail: [errno 28] No space left on device")

    import pyarrow.parquet as pq

    monkeypatch.setattr(pd.DataFrame, "to_parquet", full)
    monkeypatch.setattr(pq, "write_table", full)
    code, _, err = run(["compare", data, *FAST, "--out", out], capsys)
    assert code == EXIT_RESOURCE and one_error(err) and "ENOSPC" in err, err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_FSIZE on Linux")
def test_a_real_file_size_limit_gives_one_line_and_the_rerun_completes(tmp_path):
    import resource

    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "stablefs", "compare", str(data), "-m", "ttest", "-k", "3",
           "--repeats", "4", "--classifiers", "1nn", "--no-progress", "-q", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONDONTWRITEBYTECODE": "1"}
    limit = 48 * 1024  # fits and tables pass; the report's figures do not

    def limited():  # SIGXFSZ is left at its default: stablefs itself ignores it
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = subprocess.run(cmd, env=env, preexec_fn=limited, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == EXIT_RESOURCE, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "EFBIG" in lines[0] and str(out) in lines[0], proc.stderr
    assert not (out / "run.json").exists()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((out / "run.json").read_text())["fits_reused"] == 4


def test_os_errors_outside_a_run_folder_are_one_line(tmp_path, capsys, monkeypatch):
    import stablefs.comparison._compare as compare_mod
    from stablefs._runtime import io as _io

    data = write_toy(tmp_path / "toy.csv")
    real = _io._final_mode

    def full(path):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(_io, "_final_mode", full)
    code, _, err = run(["select", data, "-m", "ttest", "-k", "3", "--out",
                        tmp_path / "ranking.csv"], capsys)
    assert code == EXIT_RESOURCE and err.count("\n") == 1, err
    assert f"writing {tmp_path / 'ranking.csv'} failed: the disk is full (ENOSPC)" in err
    assert not (tmp_path / "ranking.csv").exists()
    monkeypatch.setattr(_io, "_final_mode", real)

    def broken(*a, **k):
        raise OSError(errno.EIO, os.strerror(errno.EIO), "/mnt/data/toy.csv")

    monkeypatch.setattr(compare_mod, "load_data", broken)
    code, _, err = run(["compare", data, *FAST, "--out", tmp_path / "o"], capsys)
    assert code == EXIT_RESOURCE and err.count("\n") == 1, err
    assert "input/output error of the device (EIO) (/mnt/data/toy.csv)" in err
