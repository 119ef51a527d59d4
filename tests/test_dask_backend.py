"""The Dask backend gives the same results as the default one (DESIGN: identical results for the
same seed, whatever the engine)."""

import numpy as np
import pytest

from stablefs.evaluation import run_experiment

pytest.importorskip("distributed", reason="Dask is optional: pip install 'stablefs[dask]'")


def test_dask_matches_loky():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 15)
    X = rng.normal(size=(30, 25))
    X[:, :3] += y[:, None]
    kw = dict(n_repeats=3, measures=["kuncheva"], random_state=2)
    a = run_experiment(X, y, ["ttest", "en-ttest(n_estimators=3)"], [4], **kw)
    b = run_experiment(X, y, ["ttest", "en-ttest(n_estimators=3)"], [4], backend="dask",
                       n_jobs=2, **kw)
    for ra, rb in zip(a.selections["ranking"], b.selections["ranking"]):
        np.testing.assert_array_equal(ra, rb)
    np.testing.assert_allclose(a.stability["estimate"], b.stability["estimate"])


def test_one_dask_client_serves_every_phase_of_a_comparison(monkeypatch):
    """The comparison, the permutation test and each outer resample of the nested estimate
    share one local cluster (each used to start and close its own), with the same files."""
    import pandas as pd

    import stablefs
    from stablefs.evaluation import runner

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 20))
    y = np.repeat(["a", "b"], 15)
    X[y == "b", :3] += 3  # clear signal: the permutation test of the procedure passes
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(20)])
    frame.insert(0, "label", y)
    kw = dict(methods="ttest,relieff", sizes=[3], repeats=4, classifiers="1nn",
              permutations=24, permutation_resamples=2, nested="2:2")
    clients = []
    real = runner._new_client
    monkeypatch.setattr(runner, "_new_client",
                        lambda *a, **k: clients.append(1) or real(*a, **k))
    dask = stablefs.compare(frame, backend="dask", n_jobs=2, **kw)
    assert len(clients) == 1
    loky = stablefs.compare(frame, **kw)
    pd.testing.assert_frame_equal(dask.stability, loky.stability)
    pd.testing.assert_frame_equal(dask.permutation, loky.permutation)
    assert len(dask.nested) == 2  # the nested estimate ran, on the same client
    pd.testing.assert_frame_equal(dask.nested, loky.nested)


def _nested_backend(_):
    """The backend and worker count a joblib call nested in this task would get."""
    import joblib
    from joblib.parallel import get_active_backend

    return type(get_active_backend()[0]).__name__, joblib.effective_n_jobs(None)


def test_a_task_on_dask_keeps_its_nested_joblib_calls_in_its_thread():
    """joblib's Dask backend runs each task under parallel_config(backend="dask"): a joblib
    call nested in it (scikit-learn's kneighbors) went back to the cluster. A worker task
    runs such calls one after another in its own thread, as in a loky worker."""
    import joblib
    from distributed import Client

    from stablefs._runtime.processes import worker_task

    with Client(processes=False, n_workers=1, threads_per_worker=1,
                dashboard_address=None) as client, joblib.parallel_config(backend="dask"):
        assert client.ncores()
        plain = joblib.Parallel(n_jobs=2)(joblib.delayed(_nested_backend)(i) for i in range(2))
        task = joblib.Parallel(n_jobs=2)(joblib.delayed(worker_task(_nested_backend))(i)
                                         for i in range(2))
    assert plain[0][0] == "DaskDistributedBackend"  # what a task saw before
    assert task == [("SequentialBackend", 1)] * 2
    # elsewhere nothing changes: a task run here, without Dask, keeps joblib's defaults
    assert worker_task(_nested_backend)(0) == _nested_backend(0)


def test_fits_on_dask_never_hand_work_back_to_the_cluster(monkeypatch):
    """The README's command spent 7.7 s on its 60 fits with Dask against 1.3 s with loky:
    each 1-NN prediction's nested joblib call seceded from the worker's thread pool and
    went back to the scheduler. A fit's nested calls now stay in its thread (no secede)."""
    import joblib._dask
    from distributed import Client

    from stablefs.evaluation import runner

    seceded = []
    real_secede = joblib._dask.secede
    monkeypatch.setattr(joblib._dask, "secede",
                        lambda *a, **k: seceded.append(1) or real_secede(*a, **k))
    monkeypatch.setattr(runner, "_new_client", lambda n_jobs, scheduler: Client(
        processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None))
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], 15)
    X = rng.normal(size=(30, 40))
    X[:, :4] += y[:, None]
    with runner.backend_session("dask", 2):
        result = run_experiment(X, y, ["ttest"], [3, 5], n_repeats=4, classifiers=["1nn"],
                                measures=["kuncheva"], backend="dask", n_jobs=2)
    assert len(result.selections) == 4
    assert seceded == []


def test_the_commands_own_cluster_has_no_profiler_and_no_trim_threshold(monkeypatch):
    """The local cluster of --backend dask: no dashboard, so no statistical profiler (a
    sample of every thread's stack each 10 ms, which nothing reads), a tick each second
    (not each 20 ms), and no MALLOC_TRIM_THRESHOLD_ in its workers; the one-thread caps
    stay. (A default Dask cluster started earlier in this process leaves the variable in
    os.environ, which every later worker inherits: the test starts without it.)"""
    from stablefs.evaluation import runner

    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)

    def probe(dask_worker):
        import os

        import dask

        return (dask.config.get("distributed.worker.profile.enabled"),
                "profile" in dask_worker.periodic_callbacks,
                os.environ.get("MALLOC_TRIM_THRESHOLD_"), os.environ.get("OMP_NUM_THREADS"),
                dask.config.get("distributed.admin.tick.interval"),
                "MALLOC_TRIM_THRESHOLD_" in dask.config.get("distributed.nanny.pre-spawn-environ"))

    client = runner._new_client(1, None)
    try:
        assert list(client.run(probe).values()) == [(False, False, None, "1", "1s", False)]
    finally:
        client.close()
