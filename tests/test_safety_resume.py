"""Resume state validated by meaning, not only by dtype and shape (issue 35, finding 3).

A shared or downloaded run folder's ``.partial`` may hold stored fits that parse but lie: a
ranking of 99999s, an all-zero ranking, NaN scores with an accuracy of 7.0, the fit of another
resample. A careful attacker also recomputes the digest each file records. Every such fit is
recomputed with the one warning line, every valid fit is still reused, and the results equal a
fresh run's.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_helpers import run, write_toy
from stablefs._runtime.stored import DIGEST, StoredFileError, read_arrays, write_arrays
from stablefs.evaluation import runner as runner_mod
from stablefs.evaluation.protocols import Resample

FAST = ["-m", "ttest", "-k", "3", "--repeats", "4", "--classifiers", "1nn", "--no-report",
        "--no-progress"]


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


def without_fit_time(folder: Path) -> pd.DataFrame:
    res = pd.read_csv(folder / "results.csv")
    return res[res["metric"] != "fit_time"].reset_index(drop=True)


def _edit(path: Path, change) -> None:
    """Rewrite a stored fit with ``change`` applied, its digest recomputed (what a careful
    attacker, or a helpful script, does)."""
    arrays = read_arrays(path)
    change(arrays)
    write_arrays(path, arrays)


TAMPERING = {
    "ranking of 99999s": lambda a: a.__setitem__("ranking", np.full_like(a["ranking"], 99999)),
    "all-zero ranking": lambda a: a.__setitem__("ranking", np.zeros_like(a["ranking"])),
    "NaN scores, accuracy 7.0": lambda a: (
        a.__setitem__("scores", np.full_like(a["scores"], np.nan)),
        a.__setitem__("metric_values", np.where(
            np.char.startswith(a["metric_names"], "accuracy_")[None, :], 7.0,
            a["metric_values"]))),
    "wrong resample id": lambda a: a.__setitem__("resample", np.int64(int(a["resample"]) + 1)),
}


def test_tampered_fits_are_recomputed_with_one_warning(tmp_path, capsys):
    """The issue's attack, replayed: four edited fits among six stored ones; the rerun warns
    once, reuses the two valid fits and gives a fresh run's results."""
    data = write_toy(tmp_path / "toy.csv")
    out, fresh = tmp_path / "run", tmp_path / "fresh"
    args = ["compare", data, *FAST, "--repeats", "7", "--out", out]
    interrupted(args, capsys, after=6)
    files = sorted((out / ".partial").rglob("*.npz"))
    assert len(files) == 6
    for path, change in zip(files, TAMPERING.values()):
        _edit(path, change)
    code, _, err = run(args, capsys)
    assert code == 0, err
    warn = warnings_in(err)
    assert len(warn) == 1 and "4 stored fit(s)" in warn[0] and "recomputed" in warn[0], err
    info = json.loads((out / "run.json").read_text())
    assert info["fits_reused"] == 2 and info["fits_computed"] == 5
    assert run(["compare", data, *FAST, "--repeats", "7", "--out", fresh], capsys)[0] == 0
    assert (out / "stability.csv").read_bytes() == (fresh / "stability.csv").read_bytes()
    pd.testing.assert_frame_equal(without_fit_time(out), without_fit_time(fresh))
    assert (without_fit_time(out)["value"] <= 1).all()


# ---------------------------------------------------------------------- each check, alone


def _cache(tmp_path, promises=True, prefilter=None, p=6):
    return runner_mod._FitCache(tmp_path, {"a": 1}, p, [2, 3], {"1nn": "1nn"},
                                promises={"m": promises}, prefilter=prefilter)


RES = Resample(0, np.arange(8), np.arange(8, 12))  # 4 test samples


def _fit(p=6, **over):
    fit = {"fit_time": 0.25, "ranking": np.arange(p, 0, -1, dtype=np.int32),
           "scores": np.linspace(0, 1, p),
           "metrics": {2: {"accuracy_1nn": 0.75, "balanced_accuracy_1nn": 0.75,
                           "mcc_1nn": 0.5, "auc_1nn": 0.75},
                       3: {"accuracy_1nn": 0.5, "balanced_accuracy_1nn": 0.5,
                           "mcc_1nn": 0.0, "auc_1nn": float("nan")}}}
    fit.update(over)
    return fit


def _stored_then_loaded(tmp_path, edit, **cache_options):
    cache = _cache(tmp_path, **cache_options)
    cache.save("m", RES, _fit())
    path = cache._path("m", 0)
    assert path.is_file()
    _edit(path, edit)
    return cache, cache.load("m", RES)


def test_a_valid_fit_round_trips(tmp_path):
    cache, back = _stored_then_loaded(tmp_path, lambda a: None)
    assert back is not None and cache.rejected == []
    np.testing.assert_array_equal(back["ranking"], _fit()["ranking"])
    assert np.isnan(back["metrics"][3]["auc_1nn"])  # an AUC may be NaN (one class)


def _metric(name, k_row, value):
    def change(a):
        j = list(a["metric_names"]).index(name)
        a["metric_values"][k_row, j] = value
    return change


BAD = {
    "rank 99999": lambda a: a["ranking"].__setitem__(0, 99999),
    "rank 0": lambda a: a["ranking"].__setitem__(0, 0),
    "repeated rank": lambda a: a["ranking"].__setitem__(0, a["ranking"][1]),
    "NaN score": lambda a: a["scores"].__setitem__(2, np.nan),
    "infinite score": lambda a: a["scores"].__setitem__(2, np.inf),
    "accuracy 7.0": _metric("accuracy_1nn", 0, 7.0),
    "accuracy not a count of 4": _metric("accuracy_1nn", 0, 0.6),
    "negative balanced accuracy": _metric("balanced_accuracy_1nn", 1, -0.25),
    "NaN accuracy": _metric("accuracy_1nn", 1, np.nan),
    "mcc 2": _metric("mcc_1nn", 0, 2.0),
    "auc 1.5": _metric("auc_1nn", 0, 1.5),
    "negative fit time": lambda a: a.__setitem__("fit_time", np.float64(-1.0)),
    "NaN fit time": lambda a: a.__setitem__("fit_time", np.float64(np.nan)),
    "other training samples": lambda a: a.__setitem__("indices", np.asarray("0" * 64)),
    "other resample": lambda a: a.__setitem__("resample", np.int64(5)),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_fit_that_cannot_be_is_refused(tmp_path, case):
    cache, back = _stored_then_loaded(tmp_path, BAD[case])
    assert back is None and len(cache.rejected) == 1, case


def test_digest_catches_an_edit_that_keeps_the_old_digest(tmp_path):
    import io
    import zipfile

    cache = _cache(tmp_path)
    cache.save("m", RES, _fit())
    path = cache._path("m", 0)
    with zipfile.ZipFile(path) as zf:
        members = {i.filename: zf.read(i) for i in zf.infolist()}
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.linspace(0, 1, 6)[::-1].copy())
    members["scores.npy"] = buf.getvalue()  # another valid array, the old digest kept
    with zipfile.ZipFile(path, "w") as zf:
        for name, blob in members.items():
            zf.writestr(name, blob)
    with pytest.raises(StoredFileError, match="do not match the digest"):
        read_arrays(path)
    assert cache.load("m", RES) is None and "digest" in cache.rejected[0][1]
    # a file without a digest (an earlier version's) is not a fit of this version
    with zipfile.ZipFile(path, "w") as zf:
        for name, blob in members.items():
            if name != DIGEST + ".npy":
                zf.writestr(name, blob)
    with pytest.raises(StoredFileError, match="no digest"):
        read_arrays(path, require_digest=True)


def test_prefiltered_scores_may_be_nan_only_outside_the_kept_features(tmp_path):
    """With --prefilter 4 of 6 features, the two features the selector never saw have NaN
    scores and ranks 5 and 6; a NaN at a kept feature is refused."""
    scores = np.array([0.9, np.nan, 0.5, 0.7, np.nan, 0.1])
    ranking = np.array([1, 5, 3, 2, 6, 4], dtype=np.int32)
    cache = _cache(tmp_path, prefilter=4)
    cache.save("m", RES, _fit(scores=scores, ranking=ranking))
    assert cache.load("m", RES) is not None and cache.rejected == []
    _edit(cache._path("m", 0), lambda a: a.__setitem__(
        "ranking", np.array([1, 3, 5, 2, 6, 4], np.int32)))  # a NaN-scored feature ranked 3
    assert cache.load("m", RES) is None and len(cache.rejected) == 1


def test_user_selectors_with_tied_ranks_are_reused(tmp_path):
    """A user's selector object promises no permutation (scikit-learn's RFE ranks every
    selected feature 1): its fits are checked for ranks in 1..p only, and reused."""
    tied = np.array([1, 1, 1, 2, 3, 4], dtype=np.int32)
    cache = _cache(tmp_path, promises=False)
    cache.save("m", RES, _fit(ranking=tied, scores=np.full(6, np.nan)))
    back = cache.load("m", RES)
    assert back is not None and cache.rejected == []
    np.testing.assert_array_equal(back["ranking"], tied)


def test_a_fresh_fit_breaking_the_promise_is_not_stored(tmp_path):
    cache = _cache(tmp_path)
    cache.save("m", RES, _fit(scores=np.full(6, np.nan)))
    assert not cache._path("m", 0).exists()


def test_promises_of_method_strings():
    from stablefs.methods import promises_permutation

    assert promises_permutation("relieff") and promises_permutation("en-iw-relieff(n_neighbors=5)")
    assert not promises_permutation("nosuch-method")
    from sklearn.feature_selection import RFE

    assert not promises_permutation(RFE(None))


# ---------------------------------------------------------------------- permutation units


def test_tampered_permutation_units_are_recomputed_with_one_warning(tmp_path, caplog):
    from stablefs.evaluation.permutation import _UnitCache

    cache = _UnitCache(tmp_path, {"a": 1}, methods=["relieff", "ttest"], sizes=[10, 20])
    for b in range(10):
        cache.save(b, 0.75, "relieff", 10, 0.125)
    cache.save(10, -float("inf"), None, None, 0.125)  # a procedure that chose nothing
    unit = {"statistic": 0.5, "method": "ttest", "k": 20, "fit_time": 0.1}
    edits = {0: {**unit, "b": 0, "statistic": 7.0},
             1: {**unit, "b": 1, "statistic": float("nan")},
             2: {**unit, "b": 2, "method": "nosuch"},
             3: {**unit, "b": 9},
             4: {**unit, "b": 4, "fit_time": -3.0},
             5: {**unit, "b": 5, "k": 30},
             6: {**unit, "b": 6, "statistic": None},
             7: {**unit, "b": 7, "method": None, "k": None}}
    for b, content in edits.items():
        (cache.dir / f"{b:05d}.json").write_text(json.dumps(content))
    with caplog.at_level("WARNING", logger="stablefs"):
        loaded = [cache.load(b) for b in range(11)]
        cache.warn()
    assert loaded[:8] == [None] * 8
    assert loaded[8:10] == [(0.75, "relieff", 10, 0.125)] * 2
    assert loaded[10] == (-float("inf"), None, None, 0.125)
    lines = [r.getMessage() for r in caplog.records if r.name == "stablefs"]
    assert len(lines) == 1 and "8 stored permutation(s)" in lines[0], lines


def test_resume_in_the_permutation_test_reuses_every_valid_unit(tmp_path, capsys,
                                                                monkeypatch):
    """compare stopped inside its permutation test: the rerun reuses every comparison fit and
    every finished permutation, warns of nothing, and writes an uninterrupted run's tables."""
    from stablefs.evaluation import permutation

    data = write_toy(tmp_path / "toy.csv")
    out, fresh = tmp_path / "run", tmp_path / "fresh"
    args = ["compare", data, *FAST, "--permutations", "20", "--out", out]
    orig, count = permutation._unit, []

    def flaky(*a, **k):
        if len(count) == 5:
            raise KeyboardInterrupt
        count.append(1)
        return orig(*a, **k)

    monkeypatch.setattr(permutation, "_unit", flaky)
    assert run(args, capsys)[0] == 130
    monkeypatch.setattr(permutation, "_unit", orig)
    code, _, err = run(args, capsys)
    assert code == 0 and warnings_in(err) == [], err
    info = json.loads((out / "run.json").read_text())
    assert info["fits_reused"] == 4 and info["fits_computed"] == 0
    assert info["trust"]["permutation"]["units_reused"] == 5
    assert run(["compare", data, *FAST, "--permutations", "20", "--out", fresh],
               capsys)[0] == 0
    for name in ("stability.csv", "permutation.csv"):
        assert (out / name).read_bytes() == (fresh / name).read_bytes(), name


def test_resume_in_the_nested_estimate_reuses_every_valid_fit(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    out, fresh = tmp_path / "run", tmp_path / "fresh"
    args = ["compare", data, *FAST, "--nested", "2:2", "--out", out]
    interrupted(args, capsys, after=4 + 3)  # the comparison's 4 fits, 3 of the nested's
    code, _, err = run(args, capsys)
    assert code == 0 and warnings_in(err) == [], err
    info = json.loads((out / "run.json").read_text())
    assert info["fits_reused"] == 4 and info["fits_computed"] == 0
    nested = info["trust"]["nested"]
    assert nested["fits_computed"] == nested["fits"] - 3
    assert run(["compare", data, *FAST, "--nested", "2:2", "--out", fresh], capsys)[0] == 0
    for name in ("stability.csv", "nested.csv"):
        assert (out / name).read_bytes() == (fresh / name).read_bytes(), name


@pytest.mark.parametrize("content", ['{"fits": Infinity}', '{"fits": -3}', '{"fits": NaN}',
                                     '[1, 2]', '{"fits": "soon"}', '{"fits": 1e999}'])
def test_tampered_phase_times_are_not_counted(tmp_path, caplog, content):
    """``.partial/phase_seconds.json`` (the earlier attempts' phase times, reported in run.json
    and the report) holds durations or is dropped with one warning line."""
    from stablefs.comparison._trust import PhaseClock

    (tmp_path / PhaseClock.FILE).write_text(content)
    with caplog.at_level("WARNING", logger="stablefs"):
        assert PhaseClock(tmp_path).seconds == {}
    lines = [r.getMessage() for r in caplog.records if r.name == "stablefs"]
    assert len(lines) == 1 and "not counted" in lines[0], lines
    (tmp_path / PhaseClock.FILE).write_text('{"fits": 1.5, "permutation": 0}')
    assert PhaseClock(tmp_path).seconds == {"fits": 1.5, "permutation": 0.0}
