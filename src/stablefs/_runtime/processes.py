"""Ending worker processes when a run is interrupted (``docs/security.md``, "Processes").

``stablefs compare --n-jobs N`` runs its fits in joblib's reusable loky executor. Ctrl-C and
SIGTERM (:func:`stablefs.cli.main` turns SIGTERM into :class:`KeyboardInterrupt`) end the
main process's work; :func:`kill_loky_workers` then ends the workers at once instead of
leaving them idle until loky's own timeout. After a SIGKILL of the parent no code of the parent
runs, and loky's workers do not watch their parent on POSIX: a busy worker finishes its task
and then idles for loky's timeout (300 s). :func:`exit_with_parent`, called by every task,
starts (once per worker process) a thread that checks every second that the process that
submitted the task is still the parent, and ends the worker when it is not. Once the workers
are gone, the resource trackers (children of the dead parent too) see their pipes close and
release the shared-memory folders and semaphores under ``/dev/shm`` (tested in
``tests/test_safety_processes.py``).

:func:`worker_setup` is what every task of ``compare``, ``benchmark`` and ``reproduce`` runs
first: the parent watch, and Python warnings printed as one ``stablefs: warning: ...`` line
(as the main process prints them) instead of Python's two lines with a source path.

Every such task is also a :func:`worker_task`: a joblib call nested inside it (scikit-learn's
nearest-neighbour search, an ensemble's members) runs in the task's own thread when the task
runs on Dask, as it does in a loky worker, instead of being handed back to the cluster.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from typing import ParamSpec, TypeVar

__all__ = ["exit_with_parent", "kill_loky_workers", "nested_in_task", "worker_setup",
           "worker_task"]

_P = ParamSpec("_P")
_R = TypeVar("_R")

#: seconds between two checks of the parent process in a worker
PARENT_POLL_SECONDS = 1.0

_watching: set[int] = set()
_lock = threading.Lock()


def kill_loky_workers() -> None:
    """Shut down joblib's reusable loky executor with ``kill_workers=True``, if one runs
    (without importing joblib when nothing did: a quick command's exit stays quick)."""
    reusable_executor = sys.modules.get("joblib.externals.loky.reusable_executor")
    if reusable_executor is None:
        return
    executor = getattr(reusable_executor, "_executor", None)
    if executor is None:
        return
    # an executor already broken or shut down has nothing left to end
    with contextlib.suppress(Exception):
        executor.shutdown(wait=True, kill_workers=True)


def _is_worker_of(parent_pid: int | None) -> bool:
    """Whether this process is a child of ``parent_pid`` (not the parent itself, nor a process
    of another parent such as a remote Dask worker)."""
    return parent_pid is not None and os.getpid() != parent_pid and os.getppid() == parent_pid


def exit_with_parent(parent_pid: int | None, *, interval: float = PARENT_POLL_SECONDS) -> None:
    """In a worker process of ``parent_pid``: end this process when its parent dies.

    Does nothing in the parent itself (a task run in-process, ``n_jobs=1``), in a process
    whose parent is another one (a worker of a remote Dask cluster), or when the watch already
    runs. The watch is a daemon thread that wakes every ``interval`` seconds and calls
    :func:`os._exit` (exit status 1) once the parent is no longer ``parent_pid`` (the process
    was re-parented because its parent died, even by SIGKILL).
    """
    if not _is_worker_of(parent_pid):
        return
    with _lock:
        if os.getpid() in _watching:
            return
        _watching.add(os.getpid())

    def watch() -> None:
        while True:
            time.sleep(interval)
            if os.getppid() != parent_pid:
                os._exit(1)

    threading.Thread(target=watch, name="stablefs-parent-watch", daemon=True).start()


def worker_setup(parent_pid: int | None, *, announce: bool = False) -> None:
    """In a worker process of ``parent_pid``: :func:`exit_with_parent`, and warnings as one
    ``stablefs: warning: ...`` line on stderr; with ``announce``, Numba's first-use
    compilations too (``stablefs: compiling ...``, :mod:`stablefs._runtime.compilation`). Does
    nothing in the parent itself (``n_jobs=1`` runs tasks in-process, where the command line
    already prints warnings that way) nor in a process whose parent is another one (a remote
    Dask worker)."""
    exit_with_parent(parent_pid)
    if not _is_worker_of(parent_pid):
        return
    if announce:
        from stablefs._runtime.compilation import announce_to

        announce_to(lambda line: print(f"stablefs: {line}", file=sys.stderr, flush=True))
    if getattr(warnings.showwarning, "_stablefs", False):
        return

    def showwarning(message, category, filename, lineno, file=None, line=None):
        from stablefs._runtime.escape import printable

        text = printable(" ".join(str(message).split()), keep_newlines=False)
        print(f"stablefs: warning: {text}", file=sys.stderr, flush=True)

    showwarning._stablefs = True  # type: ignore[attr-defined]
    warnings.showwarning = showwarning


@contextlib.contextmanager
def nested_in_task() -> Iterator[None]:
    """Inside a task on Dask: the joblib calls nested in it run in the task's thread.

    joblib's Dask backend runs every task under ``parallel_config(backend="dask")``, so a
    ``joblib.Parallel`` call inside the task (scikit-learn's ``KNeighborsClassifier.predict``
    makes one on each call for a tree search) is sent back to the cluster as more tasks while
    the task's thread leaves the worker's pool (Dask's ``secede``) and the worker starts the
    next task beside it: several fits at once in a one-thread worker, and a scheduler round
    trip per prediction. The README's command spent 7.7 s on its 60 fits with Dask against
    1.3 s with loky. Here such calls run one after another in the task's thread, as they do
    in a loky worker (whose nested calls get one thread each). Elsewhere (loky, a task run in
    the main process without Dask) nothing changes. Results never depend on it.
    """
    from joblib.parallel import get_active_backend, parallel_config

    if type(get_active_backend()[0]).__name__ != "DaskDistributedBackend":
        yield
        return
    with parallel_config(backend="sequential"):
        yield


def worker_task(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorator for a function that joblib runs as a task in the command's workers: the call
    runs under :func:`nested_in_task`.

    Examples
    --------
    >>> import joblib
    >>> from stablefs._runtime.processes import worker_task
    >>> @worker_task
    ... def square(x):
    ...     return x * x
    >>> joblib.Parallel(n_jobs=1)(joblib.delayed(square)(i) for i in range(4))
    [0, 1, 4, 9]
    """
    @functools.wraps(function)
    def task(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with nested_in_task():
            return function(*args, **kwargs)

    return task
