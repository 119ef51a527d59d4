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
