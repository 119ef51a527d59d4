"""Limiting the threads of BLAS and OpenMP with one cached ``threadpoolctl`` controller.

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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from threadpoolctl import ThreadpoolController

__all__ = ["limit_threads", "pool_map", "thread_controller"]

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
    results in the order of ``items``)."""
    from concurrent.futures import ThreadPoolExecutor

    if n_jobs <= 1 or len(items) <= 1:
        return [fn(it) for it in items]
    with ThreadPoolExecutor(max_workers=min(n_jobs, len(items))) as ex:
        return list(ex.map(fn, items))
