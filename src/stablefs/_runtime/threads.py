"""Threads: limiting BLAS and OpenMP (one cached ``threadpoolctl`` controller), and the
threads a compiled kernel may use within one fit.

``threadpoolctl.threadpool_limits(...)`` builds a new ``ThreadpoolController`` on every call,
which scans every loaded shared library (about 5 ms, more on a busy machine): longer than
many of the small fits it wraps. :func:`limit_threads` does the same limiting with one
controller per process, kept while the set of imported modules stays the same.

A controller only sees the libraries loaded when it is built, so it is made lazily, on first
use in the process that uses it (a worker process builds its own), and built again when a
module has been imported since (an extension module may have loaded another BLAS or OpenMP
runtime, e.g. SciPy's OpenBLAS or scikit-learn's OpenMP). Like ``threadpool_limits``, a limit
applies to the libraries loaded when the ``with`` block is entered.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from threadpoolctl import ThreadpoolController

__all__ = ["kernel_threads", "limit_threads", "map_tasks", "pool_map", "run_tasks",
           "thread_controller"]

#: environment variables whose value caps :func:`kernel_threads` (joblib's loky workers get
#: ``cpu_count() // n_jobs`` in each, Dask's nanny ``OMP_NUM_THREADS=1``)
THREAD_LIMIT_VARIABLES = ("STABLEFS_NUM_THREADS", "NUMBA_NUM_THREADS", "OMP_NUM_THREADS")

#: the cached controller and the (process id, number of imported modules) it was built for
_CACHE: dict = {"key": None, "controller": None}


def thread_controller() -> ThreadpoolController:
    """The process's ``ThreadpoolController``, built on first use and again after imports.

    Returns
    -------
    threadpoolctl.ThreadpoolController
        Controls the BLAS and OpenMP libraries loaded in this process.
    """
    from threadpoolctl import ThreadpoolController  # here, not at start-up; before the key

    key = (os.getpid(), len(sys.modules))
    if _CACHE["key"] != key:
        _CACHE["controller"] = ThreadpoolController()
        _CACHE["key"] = key
    return _CACHE["controller"]


def limit_threads(limits: int = 1, user_api: str | None = None):
    """Context manager: at most ``limits`` threads in the thread pools of ``user_api``.

    The same as ``threadpoolctl.threadpool_limits(limits, user_api=user_api)`` without its
    scan of the loaded libraries on every call; the previous limits are restored on leaving
    the ``with`` block.

    Parameters
    ----------
    limits : int, default=1
        Maximal number of threads.
    user_api : {None, "blas", "openmp"}, default=None
        The libraries to limit: ``None`` for all (BLAS and OpenMP), ``"blas"`` for BLAS only.

    Returns
    -------
    context manager
        A ``threadpoolctl`` limiter, already in effect; use it in a ``with`` statement.

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs._runtime.threads import limit_threads
    >>> with limit_threads(1, user_api="blas"):
    ...     x = np.ones((50, 50)) @ np.ones(50)
    """
    return thread_controller().limit(limits=limits, user_api=user_api)


def pool_map(fn, items: list, n_jobs: int) -> list:
    """``[fn(x) for x in items]``, in ``n_jobs`` threads when that is more than one (the
    results in the order of ``items``): :func:`map_tasks`, on the calling thread and the
    helper threads kept for the process (a caller's per-thread scratch blocks then live from
    call to call instead of being freed and allocated again in new threads' malloc arenas)."""
    return map_tasks(fn, items, n_jobs)


def kernel_threads() -> int:
    """The threads one compiled kernel may use in this process (at least 1).

    The CPUs this process may run on, capped by each of :data:`THREAD_LIMIT_VARIABLES` that
    holds a positive whole number: ``STABLEFS_NUM_THREADS`` (the user's),
    ``NUMBA_NUM_THREADS`` and ``OMP_NUM_THREADS`` (joblib sets both to
    ``cpu_count() // n_jobs`` in its worker processes, Dask's nanny sets
    ``OMP_NUM_THREADS=1`` in its workers). So a fit run alone (``select``, ``--n-jobs 1``)
    uses the free cores, and fits run side by side in worker processes use one thread each
    instead of oversubscribing the machine. A kernel's result never depends on it.

    Returns
    -------
    int
    """
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    for name in THREAD_LIMIT_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value.isdigit() and int(value) >= 1:
            n = min(n, int(value))
    return max(1, n)


#: the helper threads of :func:`run_tasks`: (process id, executor, its size), made on first use
_POOL: dict = {"pid": None, "executor": None, "size": 0}
_POOL_LOCK = threading.Lock()


def _helpers(size: int):
    """A thread pool of at least ``size`` threads, kept for the process (starting threads on
    every call costs about 0.2 ms); a forked child makes its own."""
    from concurrent.futures import ThreadPoolExecutor

    with _POOL_LOCK:
        if _POOL["pid"] != os.getpid() or _POOL["size"] < size:
            if _POOL["pid"] == os.getpid() and _POOL["executor"] is not None:
                _POOL["executor"].shutdown(wait=False)
            _POOL.update(pid=os.getpid(), size=size, executor=ThreadPoolExecutor(
                max_workers=size, thread_name_prefix="stablefs-kernel"))
        return _POOL["executor"]


def run_tasks(function, tasks, threads: int) -> None:
    """Call ``function(*task)`` for every task, on up to ``threads`` threads.

    The tasks must be independent (each writes its own part of an output): the calling
    thread and up to ``threads - 1`` helper threads each take the next task when free (a
    thread slowed by other processes takes fewer), so which thread runs a task varies from
    run to run, and nothing else does. ``function`` should release the GIL (a Numba kernel
    compiled with ``nogil=True``). With one thread or one task the calls run in order in the
    calling thread. The first exception of a task is raised once every thread has stopped.

    Parameters
    ----------
    function : callable
    tasks : sequence of tuples
        The arguments of each call.
    threads : int
    """
    map_tasks(lambda task: function(*task), tasks, threads)


def map_tasks(function, items, threads: int) -> list:
    """``[function(item) for item in items]`` on up to ``threads`` threads (the calling
    thread and the kept helper threads, each taking the next item when free; see
    :func:`run_tasks`). The results are in the order of ``items``.
    """
    items = list(items)
    out = [None] * len(items)
    threads = min(int(threads), len(items))
    if threads <= 1:
        for i, item in enumerate(items):
            out[i] = function(item)
        return out
    lock = threading.Lock()
    state = {"next": 0, "error": None}

    def work() -> None:
        while True:
            with lock:
                i = state["next"]
                if i >= len(items) or state["error"] is not None:
                    return
                state["next"] = i + 1
            try:
                out[i] = function(items[i])
            except BaseException as error:  # handed to the calling thread
                with lock:
                    state["error"] = state["error"] or error
                return

    helpers = [_helpers(threads - 1).submit(work) for _ in range(threads - 1)]
    work()
    for helper in helpers:
        helper.result()
    if state["error"] is not None:
        raise state["error"]
    return out
