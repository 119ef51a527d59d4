"""The wall-time estimates of compare and the phases' times over a resumed run (issue 34)."""

from __future__ import annotations

import json
import logging

import pytest

from cli_helpers import run
from stablefs.comparison._trust import (
    INNER_FIT_FACTOR,
    REPORT_FIGURE_UNITS,
    PhaseClock,
    PilotTime,
    TrustSettings,
    estimate_phases,
)


def _strong(path):
    """40 samples, two classes, three features shifted by 3 SD: evidence of signal."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)
    y = np.repeat(["a", "b"], 20)
    X = rng.normal(size=(40, 12))
    X[:, :3] += 3.0 * (y == "b")[:, None]
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(12)])
    frame.insert(0, "label", y)
    frame.to_csv(path, index=False)
    return path



def test_estimate_phases_by_hand():
    times = {"a": PilotTime(fit=2.0, evaluate=1.0), "b": PilotTime(fit=4.0, evaluate=3.0)}
    settings = TrustSettings(permutations=10, permutation_resamples=3, nested_outer=5,
                             nested_inner=3)
    est = estimate_phases(times, n_resamples=20, settings=settings, n_classifiers=2,
                          workers=2, report_figure=0.5)
    assert est["fits"] == pytest.approx(20 * (3.0 + 7.0) / 2)
    # the procedure on the real labels and in 10 permutations, 3 resamples each: every
    # method fitted and evaluated with one of the two classifiers at every k
    one_clf = (2.0 + 1.0 / 2) + (4.0 + 3.0 / 2)
    assert est["permutation"] == pytest.approx(11 * 3 * one_clf / 2)
    inner = INNER_FIT_FACTOR * 2.0 + 1.0 / 2 + INNER_FIT_FACTOR * 4.0 + 3.0 / 2
    assert est["nested"] == pytest.approx(5 * 3 * inner / 2)
    assert est["report"] == pytest.approx((REPORT_FIGURE_UNITS[0] + 2 * REPORT_FIGURE_UNITS[1])
                                          * 0.5)
    assert est["total"] == pytest.approx(sum(est[p] for p in ("fits", "permutation",
                                                              "nested", "report")))
    off = estimate_phases(times, n_resamples=20, settings=TrustSettings(0, 3, 0, 3),
                          n_classifiers=2, workers=1)
    assert off["permutation"] == 0 and off["nested"] == 0 and off["report"] == 0
    # the 10 permutations' tasks timed on permuted labels; the observed procedure's on the
    # real ones; the other phases do not use them
    null = {"a": PilotTime(fit=3.0, evaluate=2.0), "b": PilotTime(fit=5.0, evaluate=1.0)}
    with_null = estimate_phases(times, n_resamples=20, settings=settings, n_classifiers=2,
                                workers=2, report_figure=0.5, null_times=null)
    null_clf = (3.0 + 2.0 / 2) + (5.0 + 1.0 / 2)
    assert with_null["permutation"] == pytest.approx(3 * (one_clf + 10 * null_clf) / 2)
    assert all(with_null[p] == pytest.approx(est[p]) for p in ("fits", "nested", "report"))


def test_null_pilot_times_the_permutation_tests_first_task(monkeypatch):
    """The pilot of the permutation test fits each method on what the test's first
    permutation fits first: its permuted labels, its first resample drawn on them, its seed."""
    import numpy as np

    import stablefs.comparison._trust as trust
    from stablefs.evaluation import permutation as perm_mod
    from stablefs.evaluation.preprocessing import Preprocessing
    from stablefs.evaluation.protocols import Protocol

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 8)), np.repeat([0, 1], 15)
    seen = []

    def spy(name, template, X_, y_, res, *, seed, **kw):
        seen.append((name, y_.copy(), res, seed))
        return PilotTime(trust.REPEAT_BELOW_SECONDS, 0.2)  # timed once

    monkeypatch.setattr(trust, "_time_task", spy)
    times = trust.null_pilot_times(X, y, ["ttest", "relieff"], Protocol("split", 5),
                                   seed=3, prep=Preprocessing(), sizes=[2],
                                   classifiers=["svm"])
    perm, resamples = perm_mod.permuted_resamples(Protocol("split", 5), X, y, 3, 0, 3)
    assert list(times) == ["ttest", "relieff"] and [s[0] for s in seen] == list(times)
    for _, labels, res, seed in seen:
        assert np.array_equal(labels, y[perm]) and not np.array_equal(labels, y)
        assert np.array_equal(res.train, resamples[0].train)
        assert np.array_equal(res.test, resamples[0].test)
        assert seed == perm_mod._unit_seed(3, 0)


def test_a_cheap_pilot_task_is_timed_twice(monkeypatch):
    """A task below REPEAT_BELOW_SECONDS is run again and its second (warm) timing kept; a
    longer one is run once."""
    import numpy as np

    import stablefs.comparison._trust as trust
    from stablefs.evaluation.preprocessing import Preprocessing
    from stablefs.evaluation.protocols import Protocol

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 8)), np.repeat([0, 1], 15)
    cheap = trust.REPEAT_BELOW_SECONDS / 4
    timings = {"ttest": [PilotTime(cheap, cheap), PilotTime(cheap / 2, cheap)],
               "relieff": [PilotTime(trust.REPEAT_BELOW_SECONDS, 0.1)]}
    calls = []

    def fake(name, *a, **k):
        calls.append(name)
        return timings[name].pop(0)

    monkeypatch.setattr(trust, "_time_task", fake)
    times = trust.pilot_times(X, y, ["ttest", "relieff"], Protocol("split", 3).resamples(y, 0),
                              seed=0, prep=Preprocessing(), sizes=[2], classifiers=["svm"])
    assert calls == ["ttest", "ttest", "relieff"]
    assert times == {"ttest": PilotTime(cheap / 2, cheap),
                     "relieff": PilotTime(trust.REPEAT_BELOW_SECONDS, 0.1)}


def test_after_the_fits_the_rest_is_estimated_from_the_phase(capsys):
    """Each method's mean fit time; the evaluations take what the phase took beyond its
    fits; the fits on permuted labels scaled by each method's fit time over its pilot fit;
    the report by the phase's wall time over its estimate."""
    import pandas as pd

    from stablefs.comparison._trust import reannounce

    pilot = {"a": PilotTime(fit=1.0, evaluate=1.0), "b": PilotTime(fit=2.0, evaluate=3.0)}
    null = {"a": PilotTime(fit=1.5, evaluate=2.0), "b": PilotTime(fit=2.0, evaluate=4.0)}
    settings = TrustSettings(permutations=10, permutation_resamples=3, nested_outer=5,
                             nested_inner=3)
    before = estimate_phases(pilot, n_resamples=10, settings=settings, n_classifiers=2,
                             workers=1, report_figure=0.5, null_times=null)
    rows = [{"method": m, "resample": r, "k": 0, "metric": "fit_time", "value": v}
            for r in range(10) for m, v in (("a", 2.0), ("b", 4.0))]

    # per resample: fits 2 + 4 s, evaluations 12 s (three times the pilot's 1 + 3 s)
    fits_seconds = 10 * (6.0 + 12.0)

    class Result:
        results = pd.DataFrame(rows)
        # the phase's 30 s of stability and paired tests after the fits are not a task's
        info = {"tasks_seconds": fits_seconds}

    est = reannounce({**before, "pilot": pilot, "null_pilot": null, "report_figure": 0.5},
                     Result(), fits_seconds=fits_seconds + 30, settings=settings,
                     n_classifiers=2, workers=1)
    times = {"a": PilotTime(2.0, 3.0), "b": PilotTime(4.0, 9.0)}
    null_scaled = {"a": PilotTime(3.0, 6.0), "b": PilotTime(4.0, 12.0)}
    pace = fits_seconds / before["fits"]
    expected = estimate_phases(times, n_resamples=10, settings=settings, n_classifiers=2,
                               workers=1, report_figure=0.5 * pace, null_times=null_scaled)
    assert est == pytest.approx(expected)
    assert est["fits"] == pytest.approx(fits_seconds)
    err = capsys.readouterr().err
    assert "the fits took 3.5 min (estimated 70 s); about " in err and " to go: " in err


def test_phase_clock_adds_up_the_attempts(tmp_path, caplog):
    import time

    first = PhaseClock(tmp_path)
    with pytest.raises(KeyboardInterrupt), first.phase("permutation"):
        time.sleep(0.05)
        raise KeyboardInterrupt  # an interrupted attempt still counts its time
    spent = first.total("permutation")
    second = PhaseClock(tmp_path)
    assert second.total("permutation") == pytest.approx(spent, abs=1e-3)
    with second.phase("permutation"):
        pass
    assert second.total("permutation") >= spent - 1e-3 and spent >= 0.05
    assert second.this_run["permutation"] < second.total("permutation") + 1e-9
    (tmp_path / PhaseClock.FILE).write_text("{not json")
    with caplog.at_level(logging.WARNING, logger="stablefs"):
        assert PhaseClock(tmp_path).seconds == {}
    assert "does not parse" in caplog.text
    assert PhaseClock(None).total("fits") == 0.0


def test_a_resumed_permutation_test_reports_the_time_it_took(tmp_path, capsys, monkeypatch):
    """The first attempt is interrupted in the nested estimate, after the permutation test;
    the second reads the finished permutations back in milliseconds but reports the seconds
    the test took (it reported "106 ms" before)."""
    import time

    import stablefs.evaluation.nested as nested_mod
    import stablefs.evaluation.permutation as perm_mod

    data = _strong(tmp_path / "strong.csv")
    args = ["compare", data, "-m", "ttest", "-k", "3", "--repeats", "4", "--permutations",
            "20", "--nested", "2:2", "--out", tmp_path / "o", "--no-report"]
    unit = perm_mod._unit

    def slow_unit(*a, **k):
        time.sleep(0.05)
        return unit(*a, **k)

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(perm_mod, "_unit", slow_unit)
    monkeypatch.setattr(nested_mod, "nested_estimate", interrupted)
    code, _, _ = run(args, capsys)
    assert code == 130
    first = json.loads((tmp_path / "o" / ".partial" / PhaseClock.FILE).read_text())
    assert first["permutation"] >= 20 * 0.05
    monkeypatch.undo()
    code, _, err = run(args, capsys)
    assert code == 0, err
    info = json.loads((tmp_path / "o" / "run.json").read_text())
    perm = info["trust"]["permutation"]
    assert perm["units_reused"] == 20
    assert perm["seconds"] >= first["permutation"]
    assert perm["seconds_this_run"] < first["permutation"]
    assert info["phase_seconds"]["permutation"] == pytest.approx(perm["seconds"], abs=1e-3)
