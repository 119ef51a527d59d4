"""The memory a run may use: one reading of the machine's available memory.

``MemAvailable`` of ``/proc/meminfo``, lowered to what the cgroup (a container, a batch job)
still allows, or ``os.sysconf`` where there is no ``/proc``; the environment variable
``STABLEFS_MEMORY_LIMIT`` (bytes, or with a suffix: ``512M``, ``8G``) replaces it. The data
readers' size checks (:mod:`stablefs.datasets._limits`) and the stored-state reader
(:mod:`stablefs._runtime.stored`) both refuse against this one number (``docs/security.md``,
"Limits").
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path

from stablefs._errors import ResourceError, StablefsError

__all__ = ["MEMORY_LIMIT_ENV", "available_memory", "check_fits", "format_bytes",
           "recorded_estimates"]

MEMORY_LIMIT_ENV = "STABLEFS_MEMORY_LIMIT"

_UNITS = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def format_bytes(n: float) -> str:
    """``1536`` -> ``"1.5 KiB"``; powers of 1024."""
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PiB"  # pragma: no cover


def _parse_limit(text: str) -> int:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", text.upper())
    if not m or float(m.group(1)) <= 0:
        raise StablefsError(
            f"{MEMORY_LIMIT_ENV}={text!r}: give a number of bytes, e.g. 8G, 512M or 1000000."
        )
    return int(float(m.group(1)) * _UNITS[m.group(2)])


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cgroup_room() -> int | None:
    """What the cgroup (v2, else v1) still allows: limit minus usage; None without a limit."""
    for limit_file, usage_file in (
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
         "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
    ):
        try:
            limit_text = Path(limit_file).read_text().strip()
            if limit_text == "max":
                return None
            limit = int(limit_text)
            usage = int(Path(usage_file).read_text().strip())
        except (OSError, ValueError):
            continue
        if limit >= 1 << 60:  # cgroup v1's "no limit"
            return None
        return max(0, limit - usage)
    return None


def available_memory() -> int | None:
    """Bytes of memory a load may use: ``STABLEFS_MEMORY_LIMIT`` if set, else the smaller of
    ``MemAvailable`` and the cgroup's room, else ``os.sysconf`` (available pages); ``None``
    where none can be measured."""
    text = os.environ.get(MEMORY_LIMIT_ENV, "").strip()
    if text:
        return _parse_limit(text)
    found = [v for v in (_meminfo_available(), _cgroup_room()) if v is not None]
    if not found:
        try:
            found = [os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")]
        except (ValueError, OSError, AttributeError):
            return None
    return min(found)


#: the estimates of the checks made inside :func:`recorded_estimates`
_RECORD: contextvars.ContextVar[list | None] = contextvars.ContextVar(
    "stablefs_memory_estimates", default=None)


@contextlib.contextmanager
def recorded_estimates() -> Iterator[list[tuple[str, str, int]]]:
    """Collect ``(where, what, bytes)`` of every memory check made inside the block (the
    tests compare them with the measured peak; ``-vv`` logs each one)."""
    found: list[tuple[str, str, int]] = []
    token = _RECORD.set(found)
    try:
        yield found
    finally:
        _RECORD.reset(token)


#: what a refusal suggests for a data file
DATA_HINT = ("use a machine with more memory, or keep fewer features first (e.g. a prefilter "
             "of the most variable genes) and load that file")


def refusal(where: str, what: str, need: int, room: int,
            hint: str = DATA_HINT) -> ResourceError:
    """The one line refusing ``what`` of ``where``, which would need ``need`` bytes (the
    machine's refusal: exit status 4)."""
    source = (f"{MEMORY_LIMIT_ENV}" if os.environ.get(MEMORY_LIMIT_ENV, "").strip()
              else "available")
    return ResourceError(
        f"{where}: {what} would need about {format_bytes(need)} of memory, more than the "
        f"{format_bytes(room)} {source} ({MEMORY_LIMIT_ENV} sets the limit): {hint}."
    )


def check_fits(need: int, where: str, what: str, room: int | None = None, *,
               hint: str = DATA_HINT) -> None:
    """Refuse (one line) a load that would need ``need`` bytes when less is available;
    ``hint`` says what to do instead."""
    need = int(need)
    found = _RECORD.get()
    if found is not None:
        found.append((where, what, need))
    logging.getLogger("stablefs").debug(f"{where}: {what}: about {format_bytes(need)} of "
                                        "memory")
    room = available_memory() if room is None else room
    if room is not None and need > room:
        raise refusal(where, what, need, room, hint)
