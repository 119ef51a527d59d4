"""No run fails after the work (issue 34): every stage's class check runs before the first
fit; the nested estimate splits too-small classes leave-one-out within the class; an outer
resample without an inner choice counts; a stage that fails after the fits is skipped with
one line and the comparison's files are still written."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import stablefs
from cli_helpers import run
from stablefs._errors import StablefsError
from stablefs.comparison._options import CompareOptions
from stablefs.comparison._stages import StagePlan, plan_stages
from stablefs.evaluation.nested import inner_splits, nested_estimate
from stablefs.evaluation.protocols import Protocol, Resample
from stablefs.evaluation.runner import run_experiment


def _small_class_data(n_small=3, seed=0, p=40):
    """Two classes of 12 and one of ``n_small``, with signal in the first features."""
    rng = np.random.default_rng(seed)
    y = np.array(["a"] * 12 + ["b"] * 12 + ["c"] * n_small)
    X = rng.normal(size=(y.size, p))
    X[:, :4] += 2.0 * (y == "b")[:, None]
    X[:, 4:8] += 2.5 * (y == "c")[:, None]
    return X, y


# ------------------------------------------------------------------ inner splits


def test_inner_splits_are_the_protocols_when_classes_are_large_enough():
    y = np.array(["a"] * 7 + ["b"] * 5)
    got, small = inner_splits(y, 4, 11)
    want = Protocol("split", 4).resamples(y, 11)
    assert small == []
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g.train, w.train)
        np.testing.assert_array_equal(g.test, w.test)


def test_inner_splits_leave_one_out_within_a_small_class():
    """A class of 2 holds out its sample r mod 2 in split r; a class of 1 stays in every
    training part; the large class is split as the protocol splits it."""
    y = np.array(["a"] * 9 + ["b"] * 2 + ["c"])
    got, small = inner_splits(y, 5, 3)
    assert small == ["b", "c"]
    b, c = np.flatnonzero(y == "b"), np.flatnonzero(y == "c")
    want = Protocol("split", 5)
    from stablefs.evaluation.protocols import _resamples

    plain = _resamples(want, y, np.arange(y.size), 3)
    for r, res in enumerate(got):
        assert np.intersect1d(res.train, res.test).size == 0
        assert np.union1d(res.train, res.test).size == y.size
        np.testing.assert_array_equal(np.intersect1d(res.test, b), [b[r % 2]])
        np.testing.assert_array_equal(np.intersect1d(res.train, b), [b[(r + 1) % 2]])
        assert c[0] in res.train
        a = np.flatnonzero(y == "a")
        np.testing.assert_array_equal(np.intersect1d(res.train, a),
                                      np.intersect1d(plain[r].train, a))


def test_the_old_inner_protocol_refused_a_class_of_two():
    """What stopped the nakayama run after its fits: the inner 2/3 splits' class check."""
    with pytest.raises(StablefsError, match="too few samples"):
        Protocol("split", 3).resamples(np.array(["a"] * 9 + ["b"] * 2), 0)


# ------------------------------------------------------------------ nested estimate


def _outer(X, y, methods, sizes, seed=2, n=4):
    proto = Protocol("split", n)
    main = run_experiment(X, y, methods, sizes, protocol=proto, classifiers=["svm"],
                          measures=["nogueira"], random_state=seed)
    return main, proto.resamples(y, seed)


def test_nested_estimate_runs_with_a_class_of_three():
    """A class of 3 keeps 2 samples in each outer training part: the inner splits hold one of
    them out in turn, and the estimate says which classes were so treated."""
    X, y = _small_class_data(3)
    main, resamples = _outer(X, y, ["ttest"], [4, 8])
    got = nested_estimate(X, y, ["ttest"], [4, 8], resamples=resamples, results=main.results,
                          selections=main.selections, recommended=("ttest", 4),
                          choose=lambda s, r: ("ttest", 4.0), classifier="svm", n_outer=3,
                          n_inner=3, random_state=2, baseline=main.baseline)
    assert got.small_classes == ["c"]
    assert got.to_dict()["small_classes"] == ["c"]
    assert got.fits == 3 * 3
    assert np.isfinite(got.nested)


def test_an_outer_resample_without_an_inner_choice_counts_at_the_baseline():
    """The inner comparison of the second outer resample recommends nothing: it counts at
    the majority-class rule's held-out accuracy on that outer test part, in the mean."""
    X, y = _small_class_data(6)
    main, resamples = _outer(X, y, ["ttest"], [4])
    calls = []

    def choose(stability, results):
        calls.append(1)
        return None if len(calls) == 2 else ("ttest", 4.0)

    got = nested_estimate(X, y, ["ttest"], [4], resamples=resamples, results=main.results,
                          selections=main.selections, recommended=("ttest", 4),
                          choose=choose, classifier="svm", n_outer=3, n_inner=2,
                          random_state=2, baseline=main.baseline)
    res = main.results
    acc = res[(res["metric"] == "accuracy_svm") & (res["k"] == 4)].set_index("resample")
    base = main.baseline[main.baseline["metric"] == "accuracy"].set_index("resample")
    ids = [r.index for r in resamples[:3]]
    by_hand = [acc.loc[ids[0], "value"], base.loc[ids[1], "value"], acc.loc[ids[2], "value"]]
    assert got.without_choice == 1
    assert got.nested == pytest.approx(np.mean(by_hand))
    assert got.choices["value"].notna().all()
    assert got.agreement == pytest.approx(2 / 3)
    # without the baseline the estimate is undefined, never the mean of the others
    calls.clear()
    blind = nested_estimate(X, y, ["ttest"], [4], resamples=resamples, results=main.results,
                            selections=main.selections, recommended=("ttest", 4),
                            choose=choose, classifier="svm", n_outer=3, n_inner=2,
                            random_state=2)
    assert np.isnan(blind.nested)


# ------------------------------------------------------------------ the plan


def _options(**kw):
    return CompareOptions(**kw).check()


def test_plan_states_the_nested_adaptation_before_any_fit():
    X, y = _small_class_data(3)
    opts = _options(repeats=6, permutations=10, nested=(5, 3))
    resamples = Protocol("split", 6).resamples(y, 0)
    plan = plan_stages(opts, X, y, resamples)
    assert plan.skipped == {}
    assert "class c has 2 samples in an outer training part" in plan.notes["nested"]
    assert "leave-one-out within the class" in plan.notes["nested"]
    assert any(line.startswith("the nested estimate: class c has 2 samples")
               for line in plan.lines())


@pytest.mark.parametrize("b, warned", [(1, True), (19, True), (20, False), (100, False)])
def test_too_few_permutations_to_reach_the_level_are_said_before_the_work(b, warned):
    """With B permutations the smallest p-value is 1/(B + 1): below 20 it is not below 0.05,
    so the run can never show evidence of signal; one line says so before any fit."""
    X, y = _small_class_data(6)
    opts = _options(repeats=6, permutations=b, nested=0)
    plan = plan_stages(opts, X, y, Protocol("split", 6).resamples(y, 0))
    lines = [line for line in plan.lines() if "smallest p-value" in line]
    assert plan.skipped == {}
    if warned:
        assert len(lines) == 1 and f"1/{b + 1} = {1 / (b + 1):.3f}" in lines[0]
        assert "--permutations 20 or more" in lines[0]
    else:
        assert lines == []


def test_plan_adapts_the_permutation_resamples_and_skips_what_cannot_run():
    y = np.array(["a"] * 6 + ["b"] * 6)
    resamples = Protocol("split", 2).resamples(y, 0)
    X = np.zeros((y.size, 3))
    plan = plan_stages(_options(repeats=2, permutations=5, permutation_resamples=3,
                                nested=0), X, y, resamples)
    assert plan.permutation_resamples == 2
    assert "2 resamples per permutation, not 3" in plan.notes["permutation"]
    # an outer training part with a single class (a user's splitter): nested skipped
    odd = [Resample(0, np.arange(6), np.arange(6, 12)), Resample(1, np.arange(12), np.arange(0))]
    plan = plan_stages(_options(permutations=0, nested=(2, 3)), X, y, odd)
    assert "single class" in plan.skipped["nested"]
    assert plan.lines() == [f"the nested estimate is skipped: {plan.skipped['nested']} "
                            "(--nested 0 skips it without this line)."]
    assert plan.info() == {"notes": {}, "skipped": {"nested": plan.skipped["nested"]}}
    # one resample with a test part: the test of the procedure cannot repeat its choice
    plan = plan_stages(_options(permutations=5, nested=0), X, y, odd)
    assert plan.skipped["permutation"].startswith("the protocol gives 1 resample(s) with a "
                                                  "test part")
    assert plan.lines()[0].endswith("(--permutations 0 skips it without this line).")


# ------------------------------------------------------------------ end to end


def test_compare_with_a_class_of_three_finishes_with_its_nested_line(tmp_path, caplog):
    X, y = _small_class_data(3)
    with caplog.at_level("WARNING", logger="stablefs"):
        result = stablefs.compare((X, y), methods="ttest,relieff", sizes=[4, 8], repeats=5,
                                  permutations=0, nested=(3, 3), out=tmp_path / "run")
    lines = [r.getMessage() for r in caplog.records]
    assert any(line.startswith("the nested estimate: class c has 2 samples") for line in lines)
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert info["trust"]["nested"]["small_classes"] == ["c"]
    assert "c" in info["trust"]["stages"]["notes"]["nested"]
    text = " ".join(result.summary().split())  # the terminal wraps its lines
    assert "Class c had fewer than 3 samples in an outer training part" in text
    assert (tmp_path / "run" / "nested.csv").is_file()
    assert "leave-one-out within the class" in (tmp_path / "run" / "report.md").read_text()


def test_a_stage_that_fails_after_the_fits_is_skipped_and_the_files_written(
        tmp_path, monkeypatch, capsys):
    """The safety net: a StablefsError in a stage after the fits gives one warning line
    naming the option, the comparison's files, and exit status 0."""
    import stablefs.evaluation.nested as nested_mod

    def broken(*args, **kwargs):
        raise StablefsError("the inner splits cannot be drawn")

    monkeypatch.setattr(nested_mod, "nested_estimate", broken)
    X, y = _small_class_data(6)
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(X.shape[1])])
    frame.insert(0, "label", y)
    frame.to_csv(tmp_path / "d.csv", index=False)
    code, _, err = run(["compare", tmp_path / "d.csv", "-m", "ttest", "-k", "4", "--repeats",
                        "4", "--permutations", "0", "--nested", "2:2", "--out", tmp_path / "o"],
                       capsys)
    assert code == 0, err
    assert ("the nested estimate failed and is skipped: the inner splits cannot be drawn; "
            "the comparison's files are written (--nested 0 skips it)") in err
    assert (tmp_path / "o" / "report.html").is_file()
    info = json.loads((tmp_path / "o" / "run.json").read_text())
    assert info["trust"]["stages"]["skipped"] == {"nested": "the inner splits cannot be drawn"}
    assert "No nested estimate: the inner splits cannot be drawn (--nested 0 skips it)." in \
        (tmp_path / "o" / "report.md").read_text()


def test_stage_plan_skip_replaces_a_note():
    plan = StagePlan(notes={"nested": "adapted"})
    plan.skip("nested", "why")
    assert plan.notes == {} and plan.skipped == {"nested": "why"}
