"""Every size and count option bounded before work (issue 35, finding 4).

``--repeats 10000000000`` printed nothing for two minutes while growing to 2 GB; ``--nested
1000000000:1000000000`` and ``en-relieff(n_estimators=100000000000)`` just ran; ``--permutations
10**12`` warned of 28,885,119 hours and ran. Now the counts bound the work (a floor per fit,
against 30 days on the machine's cores) and the memory of the results (against the memory
available) before a resample is drawn; the refusal is one line naming the estimate and the
option to change, and ``--allow-huge`` runs the run anyway (:mod:`stablefs.evaluation.budget`).
"""

from __future__ import annotations

import time

import pytest

from cli_helpers import run, write_toy
from stablefs import StablefsError
from stablefs._errors import EXIT_RESOURCE, EXIT_USAGE
from stablefs.evaluation import budget

CHEAP = ["-k", "3", "--classifiers", "1nn", "--no-report", "--no-progress"]


def refused(args, capsys, *needles, seconds: float = 10.0, code_: int = EXIT_USAGE) -> str:
    t0 = time.perf_counter()
    code, out, err = run(args, capsys)
    took = time.perf_counter() - t0
    said = [line for line in err.splitlines() if line.startswith("stablefs:")]
    assert code == code_ and len(said) == 1 and said[0].startswith("stablefs: error: "), err
    assert "Traceback" not in err  # (compare's header lines may come first: not messages)
    assert took < seconds, took  # before any resample is drawn or fit made
    for needle in needles:
        assert needle in err, (needle, err)
    return err


@pytest.mark.parametrize("options,needles", [
    (["-m", "ttest", "--repeats", "10000000000"],
     ["10,000,000,000 fits of ttest", "days of work", "lower --repeats", "--allow-huge"]),
    (["-m", "ttest", "--repeats", "3", "--nested", "1000000000:1000000000"],
     ["nested estimate", "lower --nested", "--allow-huge"]),
    (["-m", "en-relieff(n_estimators=100000000000)", "--repeats", "3"],
     ["n_estimators = 100,000,000,000 member fits", "lower n_estimators in -m"]),
    (["-m", "ttest", "--repeats", "3", "--permutations", str(10**12)],
     ["1,000,000,000,000 x 3 x 1 refits", "years of work", "lower --permutations"]),
    (["-m", "ttest", "--repeats", "3", "--permutation-resamples", str(10**12),
      "--permutations", "10"], ["lower --permutation-resamples"]),
    (["-m", "ttest", "--repeats", "100000000"],
     ["of memory, more than the", "lower --repeats"]),
], ids=["repeats", "nested", "n_estimators", "permutations", "permutation-resamples",
        "memory"])
def test_compare_refuses_huge_counts_in_one_line(tmp_path, capsys, monkeypatch, options,
                                                 needles):
    monkeypatch.setenv("STABLEFS_MEMORY_LIMIT", "4G")  # the same refusals on any machine
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"
    memory = any("of memory" in n for n in needles) or "--nested" in options
    refused(["compare", data, *CHEAP, *options, "--out", out], capsys, *needles,
            code_=EXIT_RESOURCE if memory else EXIT_USAGE)
    assert not out.exists()


def test_select_benchmark_and_reproduce_refuse_huge_counts(tmp_path, capsys):
    data = write_toy(tmp_path / "toy.csv")
    refused(["select", data, "-m", "en-relieff(n_estimators=100000000000)", "-k", "3"], capsys,
            "the fit of en-relieff", "member fits", "--allow-huge")
    refused(["select", data, "-m", "ttest", "-k", "3", "--resamples", "10000000000"], capsys,
            "lower --resamples")
    out = tmp_path / "bench"
    refused(["benchmark", data, "-m", "ttest", "--repeats", "10000000000", "--out", out],
            capsys, "lower --repeats")
    assert not out.exists()
    out = tmp_path / "repro"
    refused(["reproduce", "han2012-synthetic", "--set", "n_sets=1000000000", "--out", out],
            capsys, "the estimated wall time is", "years", "--set", "--allow-huge")
    assert not out.exists()


def test_pilot_estimate_beyond_the_horizon_is_refused_before_the_folder(tmp_path, capsys,
                                                                        monkeypatch):
    """The counts pass, the pilot fits estimate more than the horizon: refused (one line)
    before the output folder is made, unless --allow-huge."""
    from stablefs.comparison import _trust

    real = _trust.announce  # the real estimate by phase, its total made 1e9 s
    monkeypatch.setattr(_trust, "announce", lambda *a, **k: {**real(*a, **k), "total": 1e9})
    data = write_toy(tmp_path / "toy.csv")
    out = tmp_path / "run"
    args = ["compare", data, "-m", "ttest", "--repeats", "3", *CHEAP, "--out", out]
    refused(args, capsys, "this comparison: the estimated wall time is 32 years",
            "--allow-huge")
    assert not out.exists()
    code, _, err = run(args + ["--allow-huge"], capsys)
    assert code == 0, err


def test_allow_huge_lifts_both_checks():
    huge = budget.Part("x", "--repeats", 1e12, 1.0, 1e18)
    with pytest.raises(StablefsError, match="days|years"):
        budget.check_budget([huge], cores=2)
    budget.check_budget([huge], cores=2, allow=True)
    with pytest.raises(StablefsError, match="memory"):
        budget.check_budget([budget.Part("x", "--repeats", 10, 1.0, 1e18)], cores=2,
                            room=1 << 30)
    budget.check_budget([budget.Part("x", "--repeats", 10, 1.0, 1e18)], cores=2,
                        room=1 << 30, allow=True)
    with pytest.raises(StablefsError, match="estimated wall time"):
        budget.check_wall_time(1e9, "x", "lower it")
    budget.check_wall_time(1e9, "x", "lower it", allow=True)


def test_the_floor_is_below_what_fits_cost():
    """The floors must never refuse a run that fits the horizon: a t-test fit with its 1-NN
    evaluation, the cheapest task of stablefs, takes longer than TASK_FLOOR_SECONDS."""
    import numpy as np

    from stablefs.evaluation.protocols import Resample
    from stablefs.evaluation.runner import _fit_task
    from stablefs.methods import make_selector

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 12)), np.repeat(["a", "b"], 15)
    test = np.arange(2, 30, 3)
    res = Resample(0, np.setdiff1d(np.arange(30), test), test)
    _fit_task(make_selector("ttest"), X, y, res, [3], ["1nn"])  # imports
    t0 = time.process_time()
    for _ in range(20):
        _fit_task(make_selector("ttest"), X, y, res, [3], ["1nn"])
    assert (time.process_time() - t0) / 20 > budget.TASK_FLOOR_SECONDS


def test_defaults_and_the_readme_run_pass():
    """The README's command (default data 100 x 1000, three methods, 20 splits, 100
    permutations, nested 5:3) and the papers' largest settings are far from the limits."""
    parts = budget.comparison_parts(
        ["relieff", "iw-relieff", "en-relieff"], 20, n_samples=100, n_features=1000,
        n_sizes=5, n_classifiers=2, permutations=100, permutation_resamples=3,
        nested_outer=5, nested_inner=3)
    budget.check_budget(parts, cores=1, room=1 << 30)
    assert sum(p.seconds for p in parts) < 60  # a floor, far below the horizon


def test_method_members_without_scikit_learn():
    assert budget.method_members("relieff") == (1.0, None)
    assert budget.method_members("en-relieff") == (20.0, "n_estimators = 20")
    assert budget.method_members("stabsel-en-relieff") == (2000.0, "n_subsamples = 50")
    assert budget.method_members("en-relieff(n_estimators=7)") == (7.0, "n_estimators = 7")
    assert budget.method_members(object()) == (1.0, None)


def test_python_compare_is_bounded_and_allow_huge_lifts_it(tmp_path, monkeypatch):
    """``stablefs.compare`` refuses as the command line does; ``allow_huge=True`` is the
    ``--allow-huge`` of the API."""
    import stablefs

    data = str(write_toy(tmp_path / "toy.csv"))
    options = dict(methods="ttest", sizes=[3], classifiers="1nn", permutations=0, nested=0)
    with pytest.raises(StablefsError, match="days of work.*--allow-huge"):
        stablefs.compare(data, repeats=10**10, **options)
    monkeypatch.setattr(budget, "HORIZON_SECONDS", 1e-6)  # even 3 fits are too many now
    with pytest.raises(StablefsError, match="fits of ttest"):
        stablefs.compare(data, repeats=3, **options)
    result = stablefs.compare(data, repeats=3, allow_huge=True, **options)
    assert set(result.stability["method"]) == {"ttest"}
