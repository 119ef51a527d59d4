"""compare --n-jobs N starts its worker processes before its first phase (issue 36): they run
the pilot of the time estimate and warm up while the main process goes on, and every later
phase (the fits, the permutation test, the nested estimate, the report's figures) reuses the
same processes: one loky executor per command, never restarted between phases."""

from __future__ import annotations

import numpy as np

from stablefs._runtime.processes import kill_loky_workers
from stablefs.comparison import _trust
from stablefs.evaluation._checks import _protocol_resamples
from stablefs.evaluation.nested import nested_estimate
from stablefs.evaluation.permutation import permutation_test
from stablefs.evaluation.preprocessing import Preprocessing
from stablefs.evaluation.protocols import Protocol
from stablefs.evaluation.runner import map_in_workers, run_experiment
from stablefs.report.summary import choose_pair

METHODS = ["relieff", "ttest"]
SIZES = [3, 6]


def _data(n=48, p=40, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, p))
    X[:, :4] += 1.2 * y[:, None]
    return X, y


def _pool():
    from joblib.externals.loky import reusable_executor

    executor = reusable_executor._executor
    return executor, frozenset(executor._processes)


def _choose(stability, results):
    return choose_pair(stability, results)


def test_started_workers_run_the_pilot_and_every_phase_reuses_them():
    X, y = _data()
    protocol = Protocol("split", 4)
    resamples = _protocol_resamples(protocol, None, X, y, 0)[0]
    kill_loky_workers()  # a pool of this test's own
    started = _trust.start_workers(
        X, y, METHODS, resamples, workers=2, backend="loky", scheduler=None, seed=0,
        prep=Preprocessing(), sizes=SIZES, classifiers=["svm"], pilot=True)
    assert started is not None
    started.wait()
    assert started.pilot is not None and set(started.pilot) == set(METHODS)
    assert all(t.fit >= 0 and t.evaluate >= 0 for t in started.pilot.values())
    executor, pids = _pool()
    assert len(pids) == 2

    common = dict(protocol=protocol, classifiers=["svm"], random_state=0)
    two = run_experiment(X, y, METHODS, SIZES, n_jobs=2, **common)
    assert _pool() == (executor, pids)
    kw = dict(protocol=protocol, choose=_choose, classifier="svm", n_permutations=6,
              n_resamples=2, random_state=0, h=7, resamples=resamples)
    perm = permutation_test(X, y, METHODS, SIZES, n_jobs=2, **kw)
    assert _pool() == (executor, pids)
    nested = nested_estimate(X, y, METHODS, SIZES, resamples=resamples,
                             results=two.results, selections=two.selections,
                             recommended=(METHODS[0], SIZES[0]), choose=_choose,
                             n_outer=2, n_inner=2, n_jobs=2)
    assert _pool() == (executor, pids)
    assert map_in_workers(abs, [-1, -2, 3], backend="loky", n_jobs=2,
                          scheduler=None) == [1, 2, 3]
    assert _pool() == (executor, pids)

    # the same numbers as in one process
    one = run_experiment(X, y, METHODS, SIZES, n_jobs=1, **common)
    keep = one.results["metric"] != "fit_time"
    assert one.results[keep].reset_index(drop=True).equals(
        two.results[two.results["metric"] != "fit_time"].reset_index(drop=True))
    perm1 = permutation_test(X, y, METHODS, SIZES, n_jobs=1, **kw)
    assert (perm1.observed, perm1.method, perm1.k, perm1.p_value) == \
        (perm.observed, perm.method, perm.k, perm.p_value)
    np.testing.assert_array_equal(perm1.statistics, perm.statistics)
    nested1 = nested_estimate(X, y, METHODS, SIZES, resamples=resamples,
                              results=one.results, selections=one.selections,
                              recommended=(METHODS[0], SIZES[0]), choose=_choose,
                              n_outer=2, n_inner=2, n_jobs=1)
    assert nested1.choices.equals(nested.choices)


def test_no_workers_to_start_in_one_process_or_on_dask():
    X, y = _data()
    resamples = _protocol_resamples(Protocol("split", 2), None, X, y, 0)[0]
    kw = dict(scheduler=None, seed=0, prep=Preprocessing(), sizes=SIZES,
              classifiers=["svm"], pilot=True)
    assert _trust.start_workers(X, y, METHODS, resamples, workers=1, backend="loky",
                                **kw) is None
    assert _trust.start_workers(X, y, METHODS, resamples, workers=2, backend="dask",
                                **kw) is None


def test_in_a_dask_session_its_workers_run_the_pilot():
    # compare enters its Dask session before the pilot: the cluster's workers then import the
    # stack and time the pilot while the main process goes on, as loky's do
    from stablefs.evaluation.runner import backend_session

    X, y = _data()
    resamples = _protocol_resamples(Protocol("split", 2), None, X, y, 0)[0]
    with backend_session("dask", 2):
        pool = _trust.start_workers(X, y, METHODS, resamples, workers=2, backend="dask",
                                    scheduler=None, seed=0, prep=Preprocessing(),
                                    sizes=SIZES, classifiers=["svm"], pilot=True,
                                    protocol=Protocol("split", 2))
        assert pool is not None
        pool.wait()
    assert set(pool.pilot) == set(METHODS) and pool.null_done
    assert all(t.fit > 0 and t.evaluate > 0 for t in pool.pilot.values())


def _figure_calls(monkeypatch) -> list:
    """The figures the report of a compare draws at its end in the workers (a list per call of
    :func:`~stablefs.evaluation.runner.map_in_workers`)."""
    from stablefs.evaluation import runner

    asked = []
    real = runner.map_in_workers

    def spy(func, items, **kw):
        items = list(items)
        asked.append([getattr(i, "name", None) for i in items])
        return real(func, items, **kw)

    monkeypatch.setattr(runner, "map_in_workers", spy)
    return asked


def test_with_evidence_of_signal_every_figure_is_drawn_ahead(tmp_path, monkeypatch):
    """compare --n-jobs 2 on data with signal: the trade-off, drawn ahead with the ring of the
    fits' recommendation, is the report's own (the permutation test keeps the ring): the
    report draws no figure at its end. The bytes are those of --n-jobs 1."""
    import stablefs

    asked = _figure_calls(monkeypatch)
    data = "synthetic:han2012?n_samples=60&n_features=200&n_blocks=20"
    kw = dict(methods="ttest", sizes=[5], repeats=3, permutations=20,
              permutation_resamples=2, nested=0)
    two = stablefs.compare(data, n_jobs=2, out=tmp_path / "two", **kw)
    assert two.signal.evidence is True
    assert asked == []
    stablefs.compare(data, n_jobs=1, out=tmp_path / "one", **kw)
    assert (tmp_path / "one/figures/tradeoff.png").read_bytes() == \
        (tmp_path / "two/figures/tradeoff.png").read_bytes()


def test_compare_draws_the_figures_of_the_fits_ahead_and_the_same_bytes(tmp_path, monkeypatch):
    """compare --n-jobs 2: the figures that depend on the fits alone are drawn while the
    permutation test runs and used by the report. The trade-off drawn ahead rings the fits'
    recommendation; 4 permutations (p >= 0.2) withdraw it, so the report draws the trade-off
    again, without the ring. Every figure but the fit times (measured) is byte for byte that
    of --n-jobs 1."""
    import stablefs

    asked = _figure_calls(monkeypatch)
    data = "synthetic:han2012?n_samples=60&n_features=200&n_blocks=20"
    kw = dict(methods="relieff,ttest", sizes=[5, 10], repeats=4, permutations=4, nested=0)
    stablefs.compare(data, n_jobs=2, out=tmp_path / "two", **kw)
    assert asked == [["tradeoff.png"]]
    stablefs.compare(data, n_jobs=1, out=tmp_path / "one", **kw)
    assert asked == [["tradeoff.png"]]  # one worker: all drawn here, as before
    one = sorted((tmp_path / "one" / "figures").iterdir())
    two = sorted((tmp_path / "two" / "figures").iterdir())
    assert [p.name for p in one] == [p.name for p in two] and len(one) == 6
    for a, b in zip(one, two, strict=True):
        if a.name != "fit_time.png":
            assert a.read_bytes() == b.read_bytes(), a.name


def test_the_second_worker_times_the_permuted_labels_for_the_estimate(monkeypatch):
    """With a permutation test to estimate, the second worker runs the pilot on permuted
    labels beside the first worker's pilot, and the estimate takes both from the workers:
    this process times no task (it need not load the compiled kernels)."""
    X, y = _data()
    protocol = Protocol("split", 4)
    resamples = _protocol_resamples(protocol, None, X, y, 0)[0]
    kill_loky_workers()
    started = _trust.start_workers(
        X, y, METHODS, resamples, workers=2, backend="loky", scheduler=None, seed=0,
        prep=Preprocessing(), sizes=SIZES, classifiers=["svm"], pilot=True,
        protocol=protocol)
    assert started is not None

    def timed_here(*a, **k):
        raise AssertionError("a pilot task timed in the main process")

    monkeypatch.setattr(_trust, "pilot_times", timed_here)
    monkeypatch.setattr(_trust, "null_pilot_times", timed_here)
    settings = _trust.TrustSettings(permutations=9, permutation_resamples=2)
    est = _trust.announce(X, y, METHODS, resamples, seed=0, prep=Preprocessing(), workers=2,
                          settings=settings, n_features=X.shape[1], prefilter=None,
                          sizes=SIZES, classifiers=["svm"], report=False, started=started,
                          protocol=protocol)
    assert set(est["pilot"]) == set(METHODS) and set(est["null_pilot"]) == set(METHODS)
    assert est["permutation"] > 0
    kill_loky_workers()
