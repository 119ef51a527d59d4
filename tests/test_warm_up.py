"""A process's one-off costs of a method (imports, compiled kernels loaded or compiled) stay
out of ``fit_time``: ``stablefs.evaluation.runner.warm_up`` before the first timed fit."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator

import stablefs.evaluation.runner as runner
from stablefs.evaluation.classifiers import check_classifiers
from stablefs.evaluation.protocols import Protocol
from stablefs.evaluation.runner import _fit_task, run_experiment

#: the one-off cost of the fake method's first fit in a process
FIRST_FIT = 0.4


class SlowStart(BaseEstimator):
    """Scores the features by their index; the first fit of the class in a process sleeps
    (an import, a kernel loaded from Numba's cache), as does every fit with ``warn``."""

    loaded = False

    def __init__(self, warn=False, refuse_below=0):
        self.warn = warn
        self.refuse_below = refuse_below

    def fit(self, X, y):
        if X.shape[1] < self.refuse_below:
            raise ValueError("too few features")
        if not SlowStart.loaded:
            time.sleep(FIRST_FIT)
            SlowStart.loaded = True
        if self.warn:
            warnings.warn("a warning of the fit", UserWarning, stacklevel=2)
        p = X.shape[1]
        self.scores_ = np.arange(p, 0, -1, dtype=float)
        self.ranking_ = np.arange(1, p + 1)
        return self


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(SlowStart, "loaded", False)
    monkeypatch.setattr(runner, "_WARMED", set())


def _task(selector, name, p=100):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, p))
    y = np.repeat([0, 1], 15)
    res = Protocol("split", 2).resamples(y, 0)[0]
    return _fit_task(selector, X, y, res, [5], check_classifiers(["1nn"]), None, name)


def test_the_first_fit_of_a_method_is_timed_without_its_one_off_costs(fresh):
    assert _task(SlowStart(), "slow-start")["fit_time"] < FIRST_FIT / 2
    assert sorted(runner._WARMED) == ["slow-start"]


def test_without_a_name_the_first_fit_carries_them(fresh):
    # the old behaviour, and what a method that cannot be warmed up still shows
    assert _task(SlowStart(), None)["fit_time"] >= FIRST_FIT


def test_once_per_method_and_process(fresh, monkeypatch):
    calls = []
    fit = SlowStart.fit
    monkeypatch.setattr(SlowStart, "fit", lambda self, X, y: calls.append(X.shape) or
                        fit(self, X, y))
    for _ in range(3):
        _task(SlowStart(), "slow-start")
    # one warm-up fit on the first WARM_UP_FEATURES features, then the three timed fits
    assert calls == [(20, runner.WARM_UP_FEATURES)] + [(20, 100)] * 3


def test_a_method_that_cannot_run_on_the_slice_is_timed_as_before(fresh):
    out = _task(SlowStart(refuse_below=runner.WARM_UP_FEATURES + 1), "refuses-the-slice")
    assert out["fit_time"] >= FIRST_FIT
    assert out["ranking"].size == 100


def test_the_warm_up_shows_no_warning(fresh):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        _task(SlowStart(warn=True), "warns")
    assert [str(w.message) for w in seen] == ["a warning of the fit"]  # the timed fit's


def test_the_runner_names_each_task(monkeypatch):
    # run_experiment warms each method up under its own name (in-process with n_jobs=1),
    # and the results do not depend on it
    names = []
    monkeypatch.setattr(runner, "warm_up", lambda name, *a: names.append(name))
    rng = np.random.default_rng(1)
    X = rng.normal(size=(24, 12))
    y = np.repeat([0, 1], 12)
    args = dict(protocol=Protocol("split", 2), classifiers=["1nn"], measures=["kuncheva"],
                random_state=0)
    a = run_experiment(X, y, ["ttest", "relieff"], [3], **args)
    assert sorted(names) == ["relieff", "relieff", "ttest", "ttest"]
    monkeypatch.setattr(runner, "_WARMED", set())
    monkeypatch.undo()
    b = run_experiment(X, y, ["ttest", "relieff"], [3], **args)
    keep = a.results["metric"] != "fit_time"
    assert a.results[keep].equals(b.results[b.results["metric"] != "fit_time"])
