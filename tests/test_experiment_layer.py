"""The experiments' shared layer (issue 18, item 8): per-cell verdicts, the published-vs-ours
table, the papers' printed tables, the analysis base, and the helpers units share."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

from stablefs._errors import StablefsError
from stablefs.experiments._analysis import Analysis, Stopwatch, mean_sd
from stablefs.experiments._base import (
    Claim,
    check_block_generator,
    check_classifiers,
    check_datasets,
    estimate_wall,
)
from stablefs.experiments._claims import (
    Cells,
    claims_line,
    coverage,
    on_substitute,
    per_name,
    size_list,
)
from stablefs.experiments._montecarlo import stratified_fold_labels, top_k_scores, unit_seed
from stablefs.experiments._published import PUBLISHED_COLUMNS, PublishedTable, printed_rows
from stablefs.experiments._stats import MIN_RUNS, combine_verdicts, tally, verdict_within


def test_cells_combine_count_and_bound_their_verdicts():
    cells = Cells()
    assert cells.verdict == combine_verdicts([]) == "not testable" and len(cells) == 0
    assert np.isnan(cells.lowest()) and np.isnan(cells.highest())
    assert cells.majority("nothing here") == "nothing here"
    judged = [("holds", 0.02, 0.05), ("holds", 0.03, 0.09), ("inconclusive", -0.01, 0.04)]
    for j in judged:
        assert cells.add(j) == j
    assert cells.verdict == "inconclusive" == combine_verdicts(v for v, _, _ in judged)
    assert cells.count("holds") == 2 and cells.count("does not hold") == 0
    assert cells.counted() == "of 3: 2 holds, 1 inconclusive"
    assert cells.majority() == tally(["holds", "holds", "inconclusive"])
    assert (cells.lowest(), cells.highest()) == (-0.01, 0.09)
    cells.add(("does not hold", -0.2, -0.1))
    assert cells.verdict == "does not hold"


def test_claim_text_helpers():
    assert coverage(0.05) == "95 %" and coverage(0.1) == "90 %"
    assert size_list([4, 6, 8]) == "4, 6, 8"
    assert size_list(range(4, 51, 2)) == "4, 6, ..., 50"
    assert per_name(["colon", "lung"], [0.9123, np.nan], 2) == "colon 0.91, lung nan"
    assert per_name([], []) == "none"
    claims = [Claim("1", "s", "t", "o", "holds"), Claim("2a", "s", "t", "o", "too few runs")]
    assert claims_line(claims) == "1 holds, 2a too few runs"


def test_on_substitute_keeps_the_substitute_s_verdict_in_the_test():
    claim = Claim("3b", "statement", "the rule", "ours", "holds", "tables/x.csv")
    out = on_substitute(claim, "IW-L2LW for VR-Lmba")
    assert out.verdict == "not testable"
    assert out.test == ("the rule. Judged on a substitute (IW-L2LW for VR-Lmba), so not "
                        "testable; the substitute's verdict: holds")
    assert (out.id, out.statement, out.ours, out.evidence) == (
        claim.id, claim.statement, claim.ours, claim.evidence)


def test_published_table_rows_settings_and_sources():
    pub = PublishedTable("Han 2012, sec. 6.1")
    pub.add("features at iteration 28", 48, 48, "Han 2012, sec. 6.2")
    pub.setting("training sets", 500, 40)
    frame = pub.frame()
    assert list(frame.columns) == list(PUBLISHED_COLUMNS)
    assert frame.values.tolist() == [
        ["features at iteration 28", 48, 48, "Han 2012, sec. 6.2"],
        ["training sets (setting)", 500, 40, "Han 2012, sec. 6.1"]]
    assert PublishedTable().frame().empty


def test_printed_rows_reads_mean_sd_cells_and_the_average():
    text = "Prost|SVM|RFE|71.1±3.6|74.7±5|72.9\nColon|1NN|DRAGS|80±1.5|81.2±0.4|80.6\n"
    rows = printed_rows(text, (4, 6), average=True, rename={"Prost": "Prostate"})
    assert rows[:3] == [("Prostate", "SVM", "RFE", 4, 71.1, 3.6),
                        ("Prostate", "SVM", "RFE", 6, 74.7, 5.0),
                        ("Prostate", "SVM", "RFE", 0, 72.9, rows[2][-1])]
    assert np.isnan(rows[2][-1]) and len(rows) == 6
    plain = printed_rows("A|B|1.0±0.1|2.0±0.2", (10, 20))
    assert plain == [("A", "B", 10, 1.0, 0.1), ("A", "B", 20, 2.0, 0.2)]
    with pytest.raises(ValueError):  # a cell missing: the columns do not match the sizes
        printed_rows("A|B|1.0±0.1", (10, 20))


def test_verdict_within_reads_similar_as_inside_the_margin():
    rng = np.random.default_rng(0)
    near = rng.normal(0.0, 0.1, 2000)  # bootstrap replicates of a difference near 0
    assert verdict_within(near, 3.0, runs=30)[0] == "holds"
    assert verdict_within(near + 10.0, 3.0, runs=30)[0] == "does not hold"
    assert verdict_within(near - 10.0, 3.0, runs=30)[0] == "does not hold"
    assert verdict_within(near + 3.0, 3.0, runs=30)[0] == "inconclusive"
    assert verdict_within(near, 3.0, runs=MIN_RUNS - 1)[0] == "too few runs"


def test_stopwatch_and_mean_sd():
    clock = Stopwatch()
    with clock("load"):
        pass
    with clock("fits"):
        sum(range(1000))
    assert list(clock.timings) == ["load", "fits"]
    assert all(v >= 0 and round(v, 3) == v for v in clock.timings.values())
    runs = pd.DataFrame({"set": ["b", "b", "a", "a", "a"], "k": [1, 1, 1, 1, 2],
                         "value": [1.0, 3.0, 2.0, 4.0, 5.0]})
    out = mean_sd(runs, ["set", "k"], "value", count=True)
    assert out[["set", "k"]].values.tolist() == [["b", 1], ["a", 1], ["a", 2]]  # as they come
    assert out["mean"].tolist() == [2.0, 3.0, 5.0]
    assert out["sd"].iloc[0] == pytest.approx(np.sqrt(2.0)) and np.isnan(out["sd"].iloc[2])
    assert out["n"].tolist() == [2, 2, 1]
    assert "n" not in mean_sd(runs, ["set"], "value").columns


class _Recorder(Analysis):
    def __init__(self):
        self.calls = []

    def claims(self):
        self.calls.append("claims")
        return [Claim("1", "s", "t", "o", "holds")]

    def tables(self):
        self.calls.append("tables")
        return {"t": pd.DataFrame({"a": [1]})}

    def notes(self):
        self.calls.append("notes")
        return ["a note"]


def test_analysis_assembles_the_outcome_claims_first():
    rec = _Recorder()
    outcome = rec.outcome()
    assert rec.calls == ["claims", "tables", "notes"]
    assert [c.id for c in outcome.claims] == ["1"] and list(outcome.tables) == ["t"]
    assert outcome.notes == ["a note"] and outcome.figures == [] and outcome.published is None
    assert outcome.summary[0] == "Of the 1 claims: 1 holds."


def test_stratified_fold_labels_are_seeded_and_stratified():
    y = np.repeat([0, 1], [20, 10])
    fold = stratified_fold_labels(y, 5, unit_seed(3, 1, 0))
    assert np.array_equal(fold, stratified_fold_labels(y, 5, unit_seed(3, 1, 0)))
    assert not np.array_equal(fold, stratified_fold_labels(y, 5, unit_seed(3, 1, 1)))
    assert sorted(set(fold.tolist())) == [0, 1, 2, 3, 4]
    for f in range(5):  # 4 of class 0 and 2 of class 1 in every fold
        assert np.bincount(y[fold == f], minlength=2).tolist() == [4, 2]


def test_top_k_scores_scores_each_k_and_classifier():
    from stablefs.evaluation.classifiers import evaluate_subset

    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], 20)
    X = rng.normal(size=(40, 6)) + 1.5 * y[:, None] * (np.arange(6) < 2)
    order = np.array([1, 0, 5, 4, 3, 2])
    train = np.arange(40) % 2 == 0
    scores = top_k_scores(X[train], y[train], X[~train], y[~train], order, (1, 3),
                          ("svm", "1nn"), "accuracy")
    assert scores.shape == (2, 2)
    direct = evaluate_subset(X[train][:, order[:3]], y[train], X[~train][:, order[:3]],
                             y[~train], ["svm", "1nn"])
    assert scores[1].tolist() == [direct["accuracy_svm"], direct["accuracy_1nn"]]


def test_shared_config_checks():
    with pytest.raises(StablefsError, match="name at least one data set, e.g. colon,lung"):
        check_datasets((), "colon,lung")
    with pytest.raises(StablefsError, match="list each set once"):
        check_datasets(("colon", "colon"), "colon")
    with pytest.raises(StablefsError, match="list each of colon, lung at most once, or not"):
        check_datasets(("sonar",), "colon", ("colon", "lung"), ", or not")
    check_datasets(("lung", "colon"), "colon", ("colon", "lung"))
    with pytest.raises(StablefsError, match="choose from svm, 1nn"):
        check_classifiers(("svm", "3nn"), ("svm", "1nn"))
    check_classifiers(("1nn",), ("svm", "1nn"))

    @dataclasses.dataclass
    class Gen:
        n_features: int = 100
        n_relevant: int = 10
        block_size: int = 10
        rho: float = 0.8
        mean: float = 0.5

    check_block_generator(Gen())
    for bad, message in (({"n_relevant": 100}, "must be below n_features"),
                         ({"block_size": 200}, "must be at most n_features"),
                         ({"rho": 1.0}, r"must lie in \[-0.111, 1\)"),
                         ({"rho": -0.2}, r"must lie in \[-0.111, 1\)"),
                         ({"mean": 0.0}, "mean = 0.0")):
        with pytest.raises(StablefsError, match=message):
            check_block_generator(Gen(**bad))
    assert estimate_wall(100.0, 1, 5.0) == 105.0 and estimate_wall(100.0, -1, 5.0) == 55.0
    assert estimate_wall(100.0, 8, 0.0) == 50.0  # calibrated on two cores: at most two
