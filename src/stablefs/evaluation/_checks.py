"""The checks that :func:`~stablefs.evaluation.runner.run_experiment` and the command line make
before any work: the number of workers, the backend and a Dask scheduler, the method strings,
the stability measures at each size, the resamples of a protocol, the data's digest.

This module needs NumPy alone (scikit-learn, SciPy, pandas and joblib are imported only where a
check needs them: a method string with parameters, a scikit-learn selector, ``n_jobs < 0``), so
that ``stablefs compare`` checks every option and prints its first line without waiting for
them. :mod:`stablefs.evaluation.runner` re-exports every name.
"""

from __future__ import annotations

import hashlib
import math
import numbers
import time

import numpy as np

from stablefs._errors import ResourceError, StablefsError
from stablefs.evaluation.protocols import Protocol, Resample
from stablefs.methods import validate_method

__all__ = [
    "SCHEDULER_TIMEOUT", "check_backend", "check_measures_defined", "check_n_jobs",
    "check_scheduler",
]


def _digest(X: np.ndarray, y: np.ndarray) -> str:
    """sha256 of the data matrix and the labels: a changed input is a changed configuration."""
    h = hashlib.sha256(np.ascontiguousarray(X).data.cast("B"))
    h.update("\x1f".join(map(str, y)).encode())
    return h.hexdigest()


def check_n_jobs(n_jobs, n_tasks: int | None = None) -> int:
    """Resolve ``n_jobs`` (None = 1, -1 = all cores, -2 = all but one, ...) to a worker count,
    capped at the number of tasks so that ``--n-jobs 10000`` never spawns idle workers."""
    if n_jobs is None:
        n_jobs = 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise StablefsError(
            f"n_jobs = {n_jobs}: use a positive number of parallel fits, or -1 for all cores."
        )
    if int(n_jobs) > 0:
        n = int(n_jobs)
    else:  # joblib (the cores this process may use) only when asked for "all but ..."
        import joblib

        n = max(1, joblib.cpu_count() + 1 + int(n_jobs))
    if n_tasks is not None:
        n = min(n, max(1, n_tasks))
    return n


#: seconds a Dask scheduler gets to complete its handshake (CLI ``--scheduler-timeout``)
SCHEDULER_TIMEOUT = 30.0

#: the largest first message accepted from a scheduler before the Dask handshake (a Dask
#: handshake is a few hundred bytes; an HTTP or other server's first bytes read as a length of
#: exabytes, which distributed would try to allocate)
_MAX_HANDSHAKE_BYTES = 1 << 20


#: the longest handshake a --scheduler gets (one day): a larger timeout is no timeout, and
#: past the platform's time range it would overflow the socket's deadline
MAX_SCHEDULER_TIMEOUT = 86400.0


def check_scheduler_timeout(timeout) -> None:
    """Refuse (one line) a ``--scheduler-timeout`` that is not a number of seconds in
    (0, :data:`MAX_SCHEDULER_TIMEOUT`]: zero, negative, NaN, infinite or ``1e308``."""
    try:
        seconds = float(timeout)
    except (TypeError, ValueError, OverflowError):
        seconds = math.nan
    if (isinstance(timeout, bool) or not isinstance(timeout, numbers.Real)
            or not 0 < seconds <= MAX_SCHEDULER_TIMEOUT):
        raise StablefsError(f"--scheduler-timeout must be a positive number of seconds, at most "
                            f"{MAX_SCHEDULER_TIMEOUT:g} (a day), not {timeout}.")


def check_scheduler(address: str, timeout: float = SCHEDULER_TIMEOUT) -> None:
    """Refuse, within ``timeout`` seconds in total, a Dask scheduler address that does not
    complete a Dask handshake (one line naming the address).

    Three steps share one deadline: a TCP connection; a *protocol sniff* (a Dask scheduler
    speaks first, sending its handshake as one frame of ``<8-byte length><frames>``; the length
    must be at most 1 MiB and the frame must arrive whole, so that an HTTP server or a listener
    that accepts but never answers cannot make distributed allocate the exabytes its first
    bytes would declare); then distributed's own handshake (``distributed.comm.connect``).
    ``tls://`` and other schemes skip the sniff (their bytes are encrypted) and rely on the
    deadline of the handshake alone.
    """
    import socket
    import struct
    from urllib.parse import urlparse

    check_scheduler_timeout(timeout)
    text = address if "://" in address else f"tcp://{address}"
    parsed = urlparse(text)
    try:
        host, port = parsed.hostname, parsed.port
    except ValueError:
        host = port = None
    if not host or not port:
        raise StablefsError(
            f"cannot read the scheduler address {address!r}: use HOST:PORT or "
            "tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786."
        )
    deadline = time.monotonic() + float(timeout)
    silent = (f"the Dask scheduler at {address} did not complete a handshake within "
              f"{float(timeout):g} s (it accepts connections but does not answer as a Dask "
              "scheduler): check the address and port (the scheduler's, usually 8786, not its "
              "dashboard's), or allow more time with --scheduler-timeout SECONDS.")

    def left() -> float:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ResourceError(silent)
        return remaining

    try:
        sock = socket.create_connection((host, port), timeout=left())
    except TimeoutError:
        raise ResourceError(silent) from None
    except OSError as exc:
        raise ResourceError(
            f"the Dask scheduler at {address} cannot be reached ({exc.strerror or exc}): start "
            "it, or drop --scheduler to run on a local cluster."
        ) from None
    with sock:
        if parsed.scheme == "tcp":
            try:
                head = _recv_exactly(sock, 8, left)
                (size,) = struct.unpack("<Q", head)
                if not 8 <= size <= _MAX_HANDSHAKE_BYTES:
                    raise ResourceError(
                        f"{address} answered, but not as a Dask scheduler (its first bytes "
                        f"{head!r} are not a Dask handshake): give the scheduler's address "
                        "(tcp://HOST:8786 by default)."
                    )
                _recv_exactly(sock, size, left)
            except (TimeoutError, ConnectionError, OSError) as exc:
                if isinstance(exc, TimeoutError) or deadline <= time.monotonic():
                    raise ResourceError(silent) from None
                raise ResourceError(
                    f"the Dask scheduler at {address} closed the connection during the "
                    f"handshake ({exc.strerror or exc}): check that it is a Dask scheduler."
                ) from None
    _dask_handshake(text, left(), silent, address)


def _recv_exactly(sock, n: int, left) -> bytes:
    """``n`` bytes from ``sock``, each wait bounded by what is left of the deadline."""
    chunks, got = [], 0
    while got < n:
        sock.settimeout(left())
        chunk = sock.recv(min(n - got, 1 << 16))
        if not chunk:
            raise ConnectionError("connection closed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _dask_handshake(address: str, timeout: float, silent: str, shown: str) -> None:
    """distributed's own connection and handshake to ``address``, within ``timeout`` s."""
    import asyncio

    from distributed.comm import connect

    async def handshake():
        comm = await asyncio.wait_for(connect(address, timeout=timeout), timeout)
        await comm.close()

    try:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # the usual case: no event loop in this thread
            asyncio.run(handshake())
        else:  # inside a running loop (a notebook): run the handshake in its own thread
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(1) as pool:
                pool.submit(asyncio.run, handshake()).result()
    except (asyncio.TimeoutError, TimeoutError):
        raise StablefsError(silent) from None
    except (OSError, ValueError, TypeError, EOFError) as exc:
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise StablefsError(f"the Dask scheduler at {shown} failed the Dask handshake "
                            f"({first}): check the address.") from None


def check_backend(backend: str, scheduler: str | None = None,
                  scheduler_timeout: float = SCHEDULER_TIMEOUT) -> None:
    """Refuse, before any work, an unknown backend, a scheduler without ``"dask"``, a missing
    Dask installation or a scheduler that does not complete a Dask handshake within
    ``scheduler_timeout`` seconds (one line each; :func:`check_scheduler`)."""
    if backend not in ("loky", "dask"):
        raise StablefsError(f"unknown backend {backend!r}: choose loky or dask.")
    check_scheduler_timeout(scheduler_timeout)
    if scheduler and backend != "dask":
        raise StablefsError("--scheduler needs --backend dask.")
    if backend == "dask":
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            raise StablefsError(
                "--backend dask needs Dask: pip install 'stablefs[dask]'."
            ) from None
    if scheduler:
        check_scheduler(scheduler, scheduler_timeout)


def check_measures_defined(measures, sizes, n_features: int) -> None:
    """Refuse, before any fit, a size k at which a chosen measure is undefined (for example
    Kuncheva's index at k = p: every subset is the whole feature set, nothing is left to
    chance). Each measure that does not need the data is tried on three toy subsets of size k;
    the measures that need the data are probed at k = p only."""
    from stablefs.stability import MEASURES, measure_interval

    for k in sizes:
        subsets = np.zeros((3, n_features), dtype=bool)
        subsets[0, :k] = True
        subsets[1, n_features - k:] = True
        subsets[2, np.roll(np.arange(n_features), k // 2)[:k]] = True
        for name in measures:
            if MEASURES[name].kind.startswith("correlated"):
                if k == n_features:
                    raise StablefsError(
                        f"stability measure {name} is undefined at k = {k} = p (every subset "
                        f"is the whole feature set): choose sizes below {n_features}."
                    )
                continue
            try:
                measure_interval(name, subsets, n_features, _interval=False)
            except StablefsError as exc:
                raise StablefsError(
                    f"stability measure {name} is undefined at k = {k} with p = {n_features} "
                    f"features ({exc}); choose other sizes or another measure."
                ) from None


def _method_templates(methods) -> dict:
    """``{name: template}`` from method strings, selector objects or ``(name, selector)`` pairs;
    a scikit-learn selector (``SelectKBest``, ``SelectFromModel``, ``RFE``) is wrapped in
    :class:`stablefs.selectors.sklearn_adapter.SklearnSelector` for its full ranking."""
    templates: dict = {}
    for m in methods:
        if isinstance(m, str):
            validate_method(m)  # fail fast on a bad string or parameter value, before any work
            name, template = m.strip(), m.strip()
        elif isinstance(m, tuple) and len(m) == 2 and isinstance(m[0], str):
            name, template = m
        else:
            name, template = type(m).__name__, m
        if not isinstance(template, str):  # scikit-learn selectors get a full ranking
            from stablefs.selectors.sklearn_adapter import as_stablefs_selector

            template = as_stablefs_selector(template)
        if not isinstance(template, str) and not (
            hasattr(template, "fit") and hasattr(template, "get_params")
        ):
            raise StablefsError(
                f"method {name!r} is neither a method string nor a scikit-learn selector."
            )
        if name in templates:
            raise StablefsError(
                f"method {name!r} is named twice: give (name, selector) pairs with distinct "
                "names."
            )
        templates[name] = template
    if not templates:
        raise StablefsError("no method given: use e.g. -m relieff,iw-relieff.")
    return templates


def _protocol_resamples(protocol, n_repeats, X, y, random_state) -> tuple[list, str]:
    """Resamples and a description from a Protocol, a protocol string or a scikit-learn
    splitter (anything with ``split(X, y)``, e.g. ``RepeatedStratifiedKFold``)."""
    if isinstance(protocol, str):
        protocol = Protocol.parse(protocol, n_repeats)
    if isinstance(protocol, Protocol):
        resamples = protocol.resamples(y, random_state)
        if protocol.has_reference:  # the full-data fit of Yu et al. 2008, resample -1
            resamples.append(Resample(-1, np.arange(y.size), np.arange(0)))
        return resamples, protocol.describe()
    if hasattr(protocol, "split"):
        resamples = []
        for i, (train, test) in enumerate(protocol.split(X, y)):
            train, test = np.sort(np.asarray(train)), np.sort(np.asarray(test))
            if np.unique(y[train]).size < 2:
                raise StablefsError(
                    f"{protocol!r}: training part {i} holds a single class; use a stratified "
                    "splitter."
                )
            resamples.append(Resample(i, train, test))
        if len(resamples) < 2:
            raise StablefsError(
                f"{protocol!r} gives {len(resamples)} resample(s): stability needs at least 2."
            )
        return resamples, repr(protocol)
    raise StablefsError(
        f"protocol {protocol!r}: give 'split', 'cv', a Protocol, or a scikit-learn splitter."
    )
