"""``stablefs benchmark``: the grid, its files, reruns, resumption, validation, preparation."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_helpers import run, snapshot
from stablefs._errors import EXIT_DATA
from stablefs.datasets import load
from stablefs.evaluation import benchmark as bm
from stablefs.evaluation import runner as runner_mod
from stablefs.evaluation.benchmark import (
    CELL_COLUMNS,
    accuracy_interval,
    prepare_set,
    run_benchmark,
)
from stablefs.evaluation.outputs import read_csv
from stablefs.evaluation.protocols import Protocol
from stablefs.evaluation.runner import run_experiment

pytest.importorskip("scikit_posthocs", reason="the optional extra stablefs[benchmark]")
pytest.importorskip("baycomp", reason="the optional extra stablefs[benchmark]")

#: 15 splits: with 13 or fewer, scipy's Wilcoxon test of the per-set comparisons enumerates
#: its exact null distribution when accuracies tie, seconds per test. No permutation test:
#: it is three quarters of such a run's time (303 tasks of every method a set) and has tests
#: of its own (``test_signal_columns_reach_sets_csv``, ``tests/test_trust.py``)
FAST = ["-m", "ttest,relieff,svm-rfe", "-k", "4,8", "--repeats", "15", "--no-report",
        "--no-progress", "--permutations", "0"]


def write_set(path: Path, seed: int, n: int = 30, p: int = 40, classes=("a", "b"),
              counts=None) -> Path:
    rng = np.random.default_rng(seed)
    counts = counts or [n // len(classes)] * len(classes)
    y = np.repeat(classes, counts)
    X = rng.normal(size=(len(y), p))
    for i, c in enumerate(classes):
        X[y == c, i * 3:(i + 1) * 3] += 1.5
    df = pd.DataFrame(X, columns=[f"g{j}" for j in range(p)])
    df.insert(0, "label", y)
    df.to_csv(path, index=False)
    return path


@pytest.fixture
def sets(tmp_path):
    return [write_set(tmp_path / "one.csv", 0),
            write_set(tmp_path / "two.csv", 1, n=36, classes=("x", "y", "z")),
            write_set(tmp_path / "tiny.csv", 2, classes=("a", "b"), counts=[28, 2])]


def test_grid_files_and_cells_equal_a_direct_comparison(tmp_path, sets, capsys):
    out = tmp_path / "bench"
    code, stdout, err = run(["benchmark", *map(str, sets), *FAST, "--out", str(out)], capsys)
    assert code == 0, err
    for name in ("cells.csv", "ranks.csv", "friedman.csv", "sets.csv", "timing.csv",
                 "leaderboard.html", "run.json", "cells/one/stability.csv",
                 "cells/two/results.csv", "cells/one/preparation.json"):
        assert (out / name).is_file(), name
    assert not (out / ".partial").exists() and not (out / "cells" / "tiny").exists()
    assert "pilot fits: 6 cells timed" in err and "estimated wall time" in err
    assert "mean rank over the data sets at k = 8" in stdout

    cells = read_csv(out / "cells.csv")
    assert list(cells.columns) == CELL_COLUMNS
    assert set(cells["set"]) == {"one", "two"}
    assert len(cells) == 2 * 3 * 2 * 3  # sets x methods x k x (stability + 2 accuracies)
    assert set(cells["measure"]) == {"nogueira", "balanced_accuracy_svm",
                                     "balanced_accuracy_1nn"}

    # the cells of "two" are those of the comparison of its methods on its resamples
    ds = load(str(sets[1]))
    ref = run_experiment(ds.X, ds.y, ["ttest", "relieff", "svm-rfe"], [4, 8],
                         protocol=Protocol.parse("split", 15), classifiers=["svm", "1nn"],
                         measures=["nogueira"], random_state=0)
    two = cells[cells["set"] == "two"].set_index(["method", "k", "measure"])
    for r in ref.stability.itertuples(index=False):
        got = two.loc[(r.method, r.k, "nogueira")]
        assert (got["estimate"], got["low"], got["high"]) == (r.estimate, r.low, r.high)
    res = ref.results
    for (m, k), grp in res[res["metric"] == "balanced_accuracy_svm"].groupby(["method", "k"]):
        assert two.loc[(m, k, "balanced_accuracy_svm"), "estimate"] == pytest.approx(
            grp["value"].mean(), rel=1e-12)

    info = json.loads((out / "run.json").read_text())
    assert info["fits_computed"] == 2 * 3 * 15 and info["fits_reused"] == 0
    assert len(info["config_key"]) == 64 and info["estimated_seconds"] > 0
    assert info["tool"] == "stablefs"
    listed = set(info["files"])
    on_disk = {p.relative_to(out).as_posix() for p in out.rglob("*")
               if p.is_file() and p.name != ".lock"}
    assert listed == on_disk  # run.json lists every file the run wrote, itself included
    table = read_csv(out / "sets.csv").set_index("set")
    assert table.loc["tiny", "status"] == "excluded"
    assert "a class has too few samples" in table.loc["tiny", "reason"]
    assert "b has 2" in table.loc["tiny", "reason"]
    assert table.loc["two", "chance_balanced_accuracy"] == pytest.approx(1 / 3)
    assert table.loc["one", "majority_accuracy"] == pytest.approx(0.5)
    assert "no pre-filter" in table.loc["one", "preparation"]
    ranks = read_csv(out / "ranks.csv")
    assert {"one", "two", "overall"} == set(ranks["scope"])
    assert (ranks[ranks["scope"] == "overall"]["n_sets"] == 2).all()
    assert len(read_csv(out / "friedman.csv")) == 2 * 3  # k x measures


def test_identical_files_for_n_jobs_1_and_2(tmp_path, sets, capsys):
    outs = []
    for jobs in (1, 2):
        out = tmp_path / f"j{jobs}"
        code, _, err = run(["benchmark", *map(str, sets[:2]), *FAST, "--n-jobs", str(jobs),
                            "--out", str(out)], capsys)
        assert code == 0, err
        outs.append(out)
    for name in ("cells.csv", "ranks.csv", "friedman.csv", "sets.csv"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name


def test_interrupted_run_resumes_to_identical_results(tmp_path, sets, capsys, monkeypatch):
    args = ["benchmark", *map(str, sets[:2]), *FAST]
    code, _, err = run([*args, "--out", str(tmp_path / "fresh")], capsys)
    assert code == 0, err

    out = tmp_path / "resumed"
    orig = runner_mod._fit_task
    calls = []

    def interrupted(*a, **k):
        # 6 pilot fits, 45 fits of the first set, then 5 of the second
        if len(calls) == 56:
            raise KeyboardInterrupt
        calls.append(1)
        return orig(*a, **k)

    monkeypatch.setattr(runner_mod, "_fit_task", interrupted)
    code, _, err = run([*args, "--out", str(out)], capsys)
    assert code == 130 and "rerun the same command to resume" in err
    assert not (out / "run.json").exists() and (out / ".partial").is_dir()
    monkeypatch.setattr(runner_mod, "_fit_task", orig)
    code, _, err = run([*args, "--out", str(out)], capsys)
    assert code == 0, err
    info = json.loads((out / "run.json").read_text())
    assert info["fits_reused"] == 50 and info["fits_computed"] == 40
    assert "finished in an earlier run (fits reused): one" in err
    for name in ("cells.csv", "ranks.csv", "friedman.csv", "sets.csv"):
        assert (out / name).read_bytes() == (tmp_path / "fresh" / name).read_bytes(), name


def test_rerun_reuses_and_foreign_configuration_is_refused(tmp_path, sets, capsys,
                                                           monkeypatch):
    out = tmp_path / "bench"
    args = ["benchmark", *map(str, sets[:2]), *FAST, "--out", str(out)]
    code, first, err = run(args, capsys)
    assert code == 0, err
    before = snapshot(out)
    monkeypatch.setattr(runner_mod, "_fit_task",
                        lambda *a, **k: pytest.fail("a finished run was refitted"))
    monkeypatch.setattr(bm, "_pilot_one", lambda *a, **k: pytest.fail("pilot fit on reuse"))
    code, again, err = run(args, capsys)
    assert code == 0 and "holds this finished benchmark" in err
    assert again == first
    assert snapshot(out) == before

    other = [a if a != "4,8" else "4" for a in args]
    code, _, err = run(other, capsys)
    assert code == 2 and err.count("\n") == 1
    assert "another configuration" in err and "--force" in err and "sizes" in err
    assert snapshot(out) == before


def test_force_replaces_another_configuration(tmp_path, sets, capsys):
    out = tmp_path / "bench"
    base = ["benchmark", str(sets[0]), "-m", "ttest,relieff", "--repeats", "15",
            "--no-report", "--no-progress", "--permutations", "0", "--out", str(out)]
    assert run([*base, "-k", "4,8"], capsys)[0] == 0
    (out / "mine.txt").write_text("keep")
    code, _, err = run([*base, "-k", "4", "--force"], capsys)
    assert code == 0, err
    assert set(read_csv(out / "cells.csv")["k"]) == {4}
    assert (out / "mine.txt").read_text() == "keep"


@pytest.mark.parametrize("extra, message", [
    (["--n-jobs", "0"], "--n-jobs 0"),
    (["--repeats", "1"], "--repeats must be at least 2"),
    (["-m", "relieff,nosuchmethod"], "unknown method 'nosuchmethod'"),
    (["--sets", "alonn"], "unknown registry data set 'alonn'"),
    (["--prefilter", "-3"], "--prefilter must be 0"),
    (["-k", "ten"], "cannot read subset size"),
    (["--protocol", "bogus"], "unknown protocol"),
    (["--classifiers", "tree"], "unknown classifier"),
    (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler needs --backend dask"),
    (["--seed", "-1"], "--seed must be 0 or more"),
])
def test_bad_options_one_line_nothing_written(tmp_path, sets, capsys, extra, message):
    out = tmp_path / "bench"
    code, stdout, err = run(["benchmark", str(sets[0]), "--out", str(out), *extra], capsys)
    assert code == 2
    assert err.startswith("stablefs: error: ") and err.count("\n") == 1, err
    assert message in err
    assert not out.exists()


def test_missing_file_and_no_local_set(tmp_path, capsys, monkeypatch):
    code, _, err = run(["benchmark", str(tmp_path / "nothere.csv"), "--out",
                        str(tmp_path / "o")], capsys)
    assert code == EXIT_DATA and err.count("\n") == 1 and not (tmp_path / "o").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("STABLEFS_DATA", str(empty))
    monkeypatch.setenv("STABLEFS_CACHE", str(empty))
    code, _, err = run(["benchmark", "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and "no registry data set has a local copy" in err
    assert "--sets" in err and err.count("\n") == 1


def test_every_set_left_out_is_an_error(tmp_path, capsys):
    tiny = write_set(tmp_path / "tiny.csv", 2, counts=[28, 2])
    code, _, err = run(["benchmark", str(tiny), *FAST, "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and "every data set is left out: tiny:" in err
    assert not (tmp_path / "o").exists()


def test_dry_run_writes_nothing(tmp_path, sets, capsys):
    out = tmp_path / "bench"
    code, stdout, err = run(["benchmark", *map(str, sets[:2]), *FAST, "--dry-run", "--out",
                             str(out)], capsys)
    assert code == 0, err
    assert "estimated wall time" in err and "dry run: nothing written" in err
    assert not out.exists() and stdout == ""


def test_prepare_set_prefilter_sizes_and_exclusions(tmp_path):
    proto = Protocol.parse("split", 5)
    wide = load(str(write_set(tmp_path / "w.csv", 0, p=120)))
    b = prepare_set(wide, "w", "w", sizes=[10, 50, 100], protocol=proto, seed=0,
                    prefilter=60, prefilter_above=100)
    assert b.included and b.prefilter == 60 and b.sizes == [10, 50]
    assert any("pre-filter: the 60 features" in s for s in b.preparation)
    assert any("k = 100 left out (the pre-filter keeps 60)" in s for s in b.preparation)
    from stablefs.evaluation.benchmark_outputs import sets_table

    status = pd.DataFrame(columns=["set", "method", "status", "reason"])
    table = sets_table(bm.BenchmarkResult([b], {}, pd.DataFrame(), status, pd.DataFrame()))
    assert table.loc[0, "prefilter"] == 60 and ",60,10;50," in table.to_csv(index=False)
    narrow = prepare_set(wide, "w", "w", sizes=[10, 119, 120], protocol=proto, seed=0,
                         prefilter=60, prefilter_above=500)
    assert narrow.prefilter is None and narrow.sizes == [10, 119]
    assert any("no pre-filter (p = 120 ≤ 500)" in s for s in narrow.preparation)
    assert any("k = 120 left out (the set has 120 features)" in s
               for s in narrow.preparation)
    none = prepare_set(wide, "w", "w", sizes=[200], protocol=proto, seed=0, prefilter=None)
    assert not none.included and "no subset size k" in none.excluded
    small = load(str(write_set(tmp_path / "s.csv", 0, counts=[28, 2])))
    excl = prepare_set(small, "s", "s", sizes=[5], protocol=proto, seed=0)
    assert not excl.included and "2" in excl.excluded
    nan = load(str(write_set(tmp_path / "n.csv", 0)), missing="impute")
    nan.X[0, 0] = np.nan
    assert "missing values" in prepare_set(nan, "n", "n", sizes=[5], protocol=proto,
                                           seed=0).excluded


def test_accuracy_interval_by_hand():
    v = np.array([0.8, 0.9, 0.7, 0.85, 0.75])
    mean, low, high = accuracy_interval(v, n_train=20, n_test=10)
    s2 = np.var(v, ddof=1)
    half = 2.7764451051977987 * np.sqrt((1 / 5 + 10 / 20) * s2)  # t_{4, 0.975}
    assert mean == pytest.approx(0.8) and low == pytest.approx(0.8 - half)
    assert high == pytest.approx(0.8 + half)
    assert accuracy_interval([1.0, 1.0, 0.9], 20, 10)[2] == 1.0  # cut to the range
    m, lo, hi = accuracy_interval([0.5, np.nan], 20, 10)
    assert m == 0.5 and np.isnan(lo) and np.isnan(hi)


def test_failed_pilot_leaves_the_cell_out(tmp_path, sets, monkeypatch):
    proto = Protocol.parse("split", 15)
    prepared = [prepare_set(load(str(p)), p.stem, p.stem, sizes=[4], protocol=proto, seed=0)
                for p in sets[:2]]
    orig = bm._pilot_one

    def pilot(set_name, method, *rest):
        if (set_name, method) == ("two", "relieff"):
            return set_name, method, 0.0, 0.0, "ValueError: broken on purpose"
        return orig(set_name, method, *rest)

    monkeypatch.setattr(bm, "_pilot_one", pilot)
    methods = ["ttest", "relieff"]
    plt = bm.pilot_fits(prepared, methods, protocol=proto, classifiers=["svm"], seed=0)
    assert plt.set_index(["set", "method"]).loc[("two", "relieff"), "error"].startswith(
        "ValueError")
    res = run_benchmark(prepared, methods, protocol=proto, classifiers=["svm"], pilot=plt,
                        cache_dir=tmp_path / "cache")
    assert set(res.cells[res.cells["set"] == "two"]["method"]) == {"ttest"}
    assert set(res.cells[res.cells["set"] == "one"]["method"]) == {"ttest", "relieff"}
    st = res.status.set_index(["set", "method"])
    assert st.loc[("two", "relieff"), "status"] == "excluded"
    assert "broken on purpose" in st.loc[("two", "relieff"), "reason"]
    # a real failure: a method that needs two classes on a three-class set
    real = bm._pilot_one("two", "ttest(n_features_to_select=0)", prepared[1].dataset.X,
                         prepared[1].dataset.y, proto.resamples(prepared[1].dataset.y, 0)[0],
                         [4], {"svm": "svm"}, None, 0)
    assert real[4] != ""


def test_default_methods_hook(monkeypatch):
    assert bm.default_methods()[:2] == ["ttest", "relieff"] and "rf" in bm.default_methods()
    monkeypatch.setattr(bm, "OPTIONAL_DEFAULT_METHODS", ("logistic-margin", "no-such-thing"))
    got = bm.default_methods()
    assert got[-1] == "logistic-margin" and "no-such-thing" not in got


def test_local_registry_sets_finds_rdata_and_csv_copies(tmp_path, monkeypatch):
    """Every registry set with a local copy in a STABLEFS_DATA folder is a default set: a
    converted ``<alias>.csv.gz`` in one folder, ``<name>.RData`` in another (the shared
    layout, ``datasets:datasets/rdata``), in registry order; nothing else."""
    import os

    csv_dir, rdata_dir = tmp_path / "csv", tmp_path / "rdata"
    csv_dir.mkdir()
    rdata_dir.mkdir()
    (csv_dir / "colon.csv.gz").write_bytes(b"")
    for name in ("west", "borovecki", "nakayama"):
        (rdata_dir / f"{name}.RData").write_bytes(b"")
    (rdata_dir / "notaset.RData").write_bytes(b"")
    monkeypatch.setenv("STABLEFS_DATA", os.pathsep.join([str(csv_dir), str(rdata_dir)]))
    monkeypatch.setenv("STABLEFS_CACHE", str(tmp_path / "empty-cache"))
    assert bm.local_registry_sets() == ["alon", "borovecki", "nakayama", "west"]
    assert "stabsel" in bm.default_methods()


def test_default_methods_are_listed_in_the_help():
    from stablefs.cli.benchmark import benchmark

    methods = next(o for o in benchmark.params if o.name == "methods")
    listed = methods.help.partition("[default: ")[2].rstrip("].").split(", ")
    assert listed == bm.default_methods()


def test_log2_hook_transforms_raw_intensities_and_says_so():
    from stablefs.datasets import Dataset

    rng = np.random.default_rng(0)
    y = np.array(["a"] * 10 + ["b"] * 10)
    logged = rng.normal(8, 1.5, size=(20, 150))
    names = [f"g{j}" for j in range(150)]
    raw = Dataset(X=np.exp2(logged), y=y, feature_names=names, name="raw")
    ds, note = bm.log2_hook(raw)
    assert note.startswith("log2: raw intensities") and "log2(max(x, 0) + 1)" in note
    assert np.allclose(ds.X, np.log2(np.exp2(logged) + 1))
    ds2, note2 = bm.log2_hook(Dataset(X=logged.copy(), y=y, feature_names=names,
                                          name="logged"))
    assert note2.startswith("log2: not applied") and np.array_equal(ds2.X, logged)


@pytest.mark.parametrize("b, warned", [(9, True), (20, False)])
def test_too_few_permutations_are_said_before_the_work(tmp_path, sets, capsys, b, warned):
    # 1/(B + 1) is the smallest p-value: with B < 20 no set's test can reach 0.05
    code, _, err = run(["benchmark", str(sets[0]), *FAST[:-2], "--permutations", str(b),
                        "--dry-run", "--out", str(tmp_path / "bench")], capsys)
    assert code == 0, err
    lines = [line for line in err.splitlines() if "smallest p-value" in line]
    if warned:
        assert lines == ["stablefs: warning: with 9 permutations the smallest p-value is 1/10 "
                         "= 0.100, not below the 0.05 level, so no set's permutation test can "
                         "show evidence of signal (--permutations 20 or more can; the default "
                         "is 100)."]
    else:
        assert lines == []


def test_signal_columns_reach_sets_csv(tmp_path, sets, capsys):
    out = tmp_path / "bench"
    code, _, err = run(["benchmark", str(sets[0]), *FAST[:-2], "--permutations", "19",
                        "--out", str(out)], capsys)
    assert code == 0, err
    table = read_csv(out / "sets.csv")
    row = table.iloc[0]
    assert row["best_method"] in ("ttest", "relieff") and row["best_k"] > 0
    assert 1 / 20 <= row["permutation_p"] <= 1 and 1 <= row["permutations_used"] <= 19
    assert row["signal"] != "" and "majority_accuracy" in table.columns
    assert row["log2"].startswith("log2: not applied")
    info = json.loads((out / "run.json").read_text())
    assert info["config"]["permutations"] == 19


def test_quick_dry_run_on_the_shared_sets(shared_data, tmp_path, capsys):
    out = tmp_path / "q"
    code, _, err = run(["benchmark", "--quick", "--dry-run", "--out", str(out)], capsys)
    assert code == 0, err
    plan = err.splitlines()
    assert "3 data sets x 6 methods; 20 random stratified splits" in plan[0]
    names = [line.split()[0] for line in plan[1:4]]
    assert names == ["alon", "golub", "khan"]  # the three smallest of the shared sets
    assert "t-test pre-filter: the 1000 features" in plan[2]
    assert "pilot fits: 18 cells timed" in err and not out.exists()


def test_dask_backend_gives_the_same_cells(tmp_path, sets, capsys):
    pytest.importorskip("dask.distributed", reason="Dask not installed (stablefs[dask])")
    outs = []
    for backend in ("loky", "dask"):
        out = tmp_path / backend
        code, _, err = run(["benchmark", str(sets[0]), "-m", "ttest,relieff", "-k", "4",
                            "--repeats", "15", "--no-report", "--no-progress", "--n-jobs", "2",
                            "--permutations", "0", "--backend", backend, "--out", str(out)],
                           capsys)
        assert code == 0, err
        outs.append(out)
    assert json.loads((outs[1] / "run.json").read_text())["backend"] == "dask"
    for name in ("cells.csv", "ranks.csv", "friedman.csv"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name


def test_estimate_counts_the_permutation_test():
    """(B + 1) x R tasks of every method with one classifier, shared by the workers; the
    fits as before (tasks x resamples / workers) and the fixed costs per set."""
    pilot = pd.DataFrame({"set": ["a", "a", "b"], "method": ["ttest", "relieff", "ttest"],
                          "seconds": [0.3, 0.5, 0.2], "fit_seconds": [0.1, 0.3, 0.1],
                          "error": ["", "", ""]})
    est = bm.estimate_seconds(pilot, {"a": 20, "b": 10}, 2, report=False, n_classifiers=2,
                              permutations=99, permutation_resamples=3).set_index("set")
    choice_a = (0.1 + 0.2 / 2) + (0.3 + 0.2 / 2)  # fit + one classifier's evaluation
    assert est.loc["a", "permutation_seconds"] == pytest.approx(100 * 3 * choice_a / 2)
    assert est.loc["a", "seconds"] == pytest.approx(
        0.8 * 20 / 2 + 100 * 3 * choice_a / 2 + bm.SET_OVERHEAD_S)
    assert est.loc["b", "permutation_seconds"] == pytest.approx(100 * 3 * 0.15 / 2)
    none = bm.estimate_seconds(pilot, {"a": 20, "b": 10}, 2, report=False)
    assert (none["permutation_seconds"] == 0).all()


def test_pilot_fits_take_a_classifier_object(sets):
    # the pilot's warm-up gets the classifiers as pilot_fits normalised them: a scikit-learn
    # classifier object (not a name) must not make its cells fail
    from sklearn.linear_model import LogisticRegression

    proto = Protocol("split", 2)
    prepared = [prepare_set(load(str(sets[0])), "one", "one", sizes=[4], protocol=proto,
                            seed=0)]
    plt = bm.pilot_fits(prepared, ["ttest"], protocol=proto,
                        classifiers=[("lr", LogisticRegression())], seed=0)
    assert plt["error"].tolist() == [""]
