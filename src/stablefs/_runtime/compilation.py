"""Numba's first-use compilation of stablefs's kernels, made visible.

The compiled kernels are cached on disk (``cache=True``), so they compile once per
installation, on first use: up to about half a minute for the penalised logistic solver, during
which a command would otherwise print nothing. Each kernel module calls
:func:`watch_compilation` when it is imported; from then on, whenever Numba starts *compiling*
one of stablefs's functions (not when it loads one from its cache), the kernel family is named
once per process: to the function given to :func:`announce_compilation` (the command line
prints it), or else as an INFO record of the ``stablefs`` logger (the Python API stays quiet
unless logging is configured). A command's first worker process prints its own compilations
(:func:`announced_in_workers`, :func:`announce_to`): with ``--n-jobs 2`` the pilot fits, and so
the first compile, run there. Importing this module does not import Numba.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator

__all__ = ["announce_compilation", "announce_to", "announced_in_workers",
           "compilation_message", "watch_compilation"]

#: what each kernel module compiles, in the user's words
_FAMILIES = {
    "_logistic_kernels": "the penalised logistic solver (l1-logistic, enet-logistic, stabsel)",
    "_relief_kernels": "the Relief family's kernels",
    "_dgf_kernels": "the mean-shift kernels (dgf, drags)",
    "_rfe_kernels": "the SVM-RFE kernels",
    "_smo": "the SVM solver",
    "_wrapper_kernels": "the wrapper searches' kernels",
    "_lda_kernels": "the bolstered LDA kernels",
}

_lock = threading.Lock()
_say: Callable[[str], None] | None = None
_announced: set[str] = set()
_watching = False


def compilation_message(module: str) -> str | None:
    """The line announcing the compilation of ``module``'s kernels (a dotted module name),
    ``None`` outside stablefs.

    Examples
    --------
    >>> compilation_message("stablefs.selectors._smo")  # doctest: +ELLIPSIS
    'compiling the SVM solver for this machine: once per installation (up to a minute; ...'
    >>> compilation_message("numpy.linalg") is None
    True
    """
    if module.partition(".")[0] != "stablefs":
        return None
    family = _FAMILIES.get(module.rpartition(".")[2], f"the compiled kernels of {module}")
    return (f"compiling {family} for this machine: once per installation (up to a minute; "
            "cached on disk for every later run)")


def _compiling(module: str) -> None:
    """Announce ``module``'s compilation, once per process."""
    message = compilation_message(module)
    with _lock:
        if message is None or module in _announced:
            return
        _announced.add(module)
        say = _say
    if say is None:
        logging.getLogger("stablefs").info(message)
    else:
        say(message)


def watch_compilation() -> None:
    """Listen to Numba's compile events in this process (once; each kernel module calls it
    when imported, after importing Numba)."""
    global _watching
    with _lock:
        if _watching:
            return
        _watching = True
    from numba.core import event

    class _Listener(event.Listener):
        def on_start(self, ev) -> None:
            func = getattr(ev.data.get("dispatcher"), "py_func", None)
            _compiling(getattr(func, "__module__", None) or "")

        def on_end(self, ev) -> None:
            pass

    event.register("numba:compile", _Listener())


def announce_to(say: Callable[[str], None] | None) -> Callable[[str], None] | None:
    """From now on, announce first-use compilations by calling ``say(line)`` (``None``: the
    INFO record); returns the previous ``say``."""
    global _say
    with _lock:
        previous, _say = _say, say
    return previous


@contextlib.contextmanager
def announce_compilation(say: Callable[[str], None]) -> Iterator[None]:
    """Within the block, first-use compilations are announced by calling ``say(line)``
    (instead of the INFO record)."""
    previous = announce_to(say)
    try:
        yield
    finally:
        announce_to(previous)


def announced_in_workers() -> bool:
    """Whether this command's first worker process should print its own first-use
    compilations: this process announces them (:func:`announce_compilation`, the command
    line) and the ``stablefs`` logger shows warnings (not ``-q``)."""
    with _lock:
        say = _say
    return say is not None and logging.getLogger("stablefs").isEnabledFor(logging.WARNING)
