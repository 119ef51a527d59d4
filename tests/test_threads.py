"""``stablefs._runtime.threads``: the cached ``threadpoolctl`` controller and
:func:`limit_threads`."""

from __future__ import annotations

import sys
import types

import pytest
import scipy.linalg  # noqa: F401  (loads SciPy's own BLAS before the controller is built)
from threadpoolctl import threadpool_info, threadpool_limits

from stablefs._runtime import threads as _threads
from stablefs._runtime.threads import limit_threads, thread_controller


def _threads_by_lib():
    return {lib["filepath"]: (lib["user_api"], lib["num_threads"]) for lib in threadpool_info()}


def _has(user_api):
    return any(api == user_api for api, _ in _threads_by_lib().values())


@pytest.mark.parametrize("user_api", [None, "blas"])
def test_limits_like_threadpool_limits_and_restores(user_api):
    if not _has("blas"):
        pytest.skip("no BLAS library that threadpoolctl controls")
    before = _threads_by_lib()
    with threadpool_limits(1, user_api=user_api):
        expected = _threads_by_lib()
    assert _threads_by_lib() == before
    with limit_threads(1, user_api=user_api):
        inside = _threads_by_lib()
    assert inside == expected
    assert _threads_by_lib() == before
    for api, n in inside.values():
        if user_api is None or api == user_api:
            assert n == 1


def test_controller_is_cached_and_rebuilt_after_an_import(monkeypatch):
    first = thread_controller()
    assert thread_controller() is first
    # a newly imported module may have loaded another BLAS or OpenMP: build the controller again
    monkeypatch.setitem(sys.modules, "_stablefs_test_fake_module", types.ModuleType("fake"))
    second = thread_controller()
    assert second is not first
    assert thread_controller() is second


def test_controller_is_rebuilt_in_another_process(monkeypatch):
    first = thread_controller()
    monkeypatch.setattr(_threads.os, "getpid", lambda: -1)
    assert thread_controller() is not first


def test_wrapper_searches_run_blas_on_one_thread():
    # a search makes thousands of small BLAS calls, where a second thread only spins: the
    # selector limits BLAS to one thread while it searches and restores it afterwards
    import numpy as np

    from stablefs.selectors import SBS

    if not _has("blas"):
        pytest.skip("no BLAS library that threadpoolctl controls")
    seen = []

    def criterion(Xs, y):
        seen.append(max(n for api, n in _threads_by_lib().values() if api == "blas"))
        return float(Xs.shape[1])  # any value: the search only has to run

    rng = np.random.default_rng(0)
    with threadpool_limits(2, user_api="blas"):  # two threads outside, on any machine
        before = _threads_by_lib()
        SBS(n_features_to_select=2, criterion=criterion).fit(rng.normal(size=(12, 4)),
                                                              np.arange(12) % 2)
        assert _threads_by_lib() == before
    assert seen and set(seen) == {1}


def test_kernel_threads_follows_the_cpus_and_the_limit_variables(monkeypatch):
    from stablefs._runtime.threads import THREAD_LIMIT_VARIABLES, kernel_threads

    for name in THREAD_LIMIT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(_threads.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3},
                        raising=False)
    assert kernel_threads() == 4
    monkeypatch.setenv("OMP_NUM_THREADS", "2")  # a Dask nanny's or loky worker's limit
    assert kernel_threads() == 2
    monkeypatch.setenv("NUMBA_NUM_THREADS", "1")
    assert kernel_threads() == 1
    monkeypatch.setenv("NUMBA_NUM_THREADS", "")  # empty and invalid values are ignored
    monkeypatch.setenv("STABLEFS_NUM_THREADS", "many")
    assert kernel_threads() == 2
    monkeypatch.setenv("STABLEFS_NUM_THREADS", "8")  # never more than the CPUs
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert kernel_threads() == 4


def test_kernel_threads_in_a_joblib_worker_is_one_per_worker():
    """joblib's loky workers get ``cpu_count() // n_jobs`` threads each (the environment
    variables it sets), so parallel fits do not oversubscribe the machine."""
    import os

    from joblib import Parallel, delayed

    from stablefs._runtime.threads import kernel_threads

    n_jobs = max(2, os.cpu_count() or 2)
    got = Parallel(n_jobs=n_jobs, backend="loky")(delayed(kernel_threads)() for _ in range(2))
    assert got == [max(1, (os.cpu_count() or 1) // n_jobs)] * 2


def test_run_tasks_runs_every_task_and_raises_a_task_error():
    from stablefs._runtime.threads import run_tasks

    done = []
    run_tasks(lambda i: done.append(i), [(i,) for i in range(7)], 3)
    assert sorted(done) == list(range(7))
    done.clear()
    run_tasks(lambda i: done.append(i), [(i,) for i in range(4)], 1)
    assert done == [0, 1, 2, 3]  # one thread: in order, in this thread

    def fail(i):
        if i == 2:
            raise ValueError("task 2")

    with pytest.raises(ValueError, match="task 2"):
        run_tasks(fail, [(i,) for i in range(4)], 2)
