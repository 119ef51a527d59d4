import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stablefs import StablefsError
from stablefs.evaluation import run_experiment
from stablefs.evaluation.outputs import read_selections, save_result


def toy(n=36, p=40, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, p))
    X[:, :4] += 1.5 * y[:, None]
    return X, y


def test_records_every_selection_and_metric():
    X, y = toy()
    res = run_experiment(X, y, ["ttest", "relieff"], [3, 5], n_repeats=4,
                         measures=["kuncheva", "nogueira"])
    assert len(res.selections) == 8
    for rank in res.selections["ranking"]:
        assert sorted(rank) == list(range(1, 41))
    metrics = set(res.results["metric"])
    assert {"accuracy_svm", "auc_svm", "accuracy_1nn", "auc_1nn", "fit_time"} <= metrics
    assert len(res.results.query("metric == 'accuracy_svm'")) == 2 * 2 * 4
    assert set(res.stability["measure"]) == {"kuncheva", "nogueira"}
    # the informative features are found: accuracy well above chance
    acc = res.results.query("metric == 'accuracy_svm' and method == 'ttest'")["value"].mean()
    assert acc > 0.75
    # frequencies agree with the recorded rankings
    f = res.frequencies.query("method == 'ttest' and k == 3").set_index("feature")["frequency"]
    R = np.stack(res.selections.query("method == 'ttest'")["ranking"].to_list())
    for name, value in f.items():
        assert value == pytest.approx(np.mean(R[:, int(name[1:])] <= 3))


def test_results_do_not_depend_on_n_jobs():
    X, y = toy()
    kw = dict(n_repeats=3, measures=["kuncheva"], random_state=5)
    a = run_experiment(X, y, ["en-ttest(n_estimators=4)"], [5], n_jobs=1, **kw)
    b = run_experiment(X, y, ["en-ttest(n_estimators=4)"], [5], n_jobs=2, **kw)
    for ra, rb in zip(a.selections["ranking"], b.selections["ranking"]):
        np.testing.assert_array_equal(ra, rb)
    np.testing.assert_allclose(a.stability["estimate"], b.stability["estimate"])
    np.testing.assert_allclose(
        a.results.query("metric != 'fit_time'")["value"],
        b.results.query("metric != 'fit_time'")["value"])


def test_resume_reuses_finished_fits(tmp_path):
    X, y = toy()
    kw = dict(n_repeats=3, measures=["kuncheva"], cache_dir=tmp_path)
    first = run_experiment(X, y, ["ttest"], [5], **kw)
    partial = sorted(tmp_path.glob("*/*.npz"))
    assert len(partial) == 3
    partial[0].unlink()  # as if interrupted before this fit finished
    stamps = {p: p.stat().st_mtime_ns for p in partial[1:]}
    second = run_experiment(X, y, ["ttest"], [5], **kw)
    assert all(p.stat().st_mtime_ns == t for p, t in stamps.items())
    for a, b in zip(first.selections["ranking"], second.selections["ranking"]):
        np.testing.assert_array_equal(a, b)
    assert second.info["fits_reused"] == 2 and second.info["fits_computed"] == 1
    # another configuration keeps its fits apart: nothing is reused, nothing is mixed
    third = run_experiment(X, y, ["ttest"], [6], **kw)
    assert third.info["fits_reused"] == 0
    assert len(list(tmp_path.iterdir())) == 2


def test_outputs_round_trip(tmp_path):
    X, y = toy()
    res = run_experiment(X, y, ["ttest"], [5], n_repeats=3, measures=["kuncheva"])
    info = {"data": "toy", "n_samples": 36, "n_features": 40, "classes": {"0": 18, "1": 18},
            "methods": ["ttest"], "sizes": [5], "protocol": "3 splits", "seed": 0,
            "started": "", "finished": "", "versions": {}, "command": "test"}
    paths = save_result(res, tmp_path, info)
    for name in ("run.json", "results.csv", "stability.csv", "report.md", "report.html"):
        assert (tmp_path / name).exists(), name
    back = read_selections(tmp_path)
    for a, b in zip(back["ranking"], res.selections["ranking"]):
        np.testing.assert_array_equal(a, b)
    assert "selections" in paths


def test_bad_inputs():
    X, y = toy()
    with pytest.raises(StablefsError):
        run_experiment(X, y, ["ttest"], [41])
    with pytest.raises(StablefsError):
        run_experiment(X, y, ["ttest"], [0])
    with pytest.raises(StablefsError, match="unknown method"):
        run_experiment(X, y, ["tt"], [3])
    with pytest.raises(StablefsError, match="measure"):
        run_experiment(X, y, ["ttest"], [3], measures=["nonsense"])
    with pytest.raises(StablefsError, match="classifier"):
        run_experiment(X, y, ["ttest"], [3], classifiers=["forest"])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1,
                max_size=30))
def test_csv_numbers_read_back_bit_for_bit(tmp_path_factory, values):
    """write_csv / read_csv give back the same float64 bits on the installed pandas (the
    parser pinned by EXACT_FLOATS), subnormals and 17-digit values included."""
    from stablefs.evaluation.outputs import read_csv, write_csv

    path = tmp_path_factory.mktemp("csv") / "t.csv"
    edge = [0.1, 0.30000000000000004, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
            1.2345678901234567e-300, 9007199254740993.0]
    column = np.array(values + edge)
    write_csv(pd.DataFrame({"x": column}), path)
    back = read_csv(path)["x"].to_numpy()
    np.testing.assert_array_equal(back.view(np.int64), column.view(np.int64))
