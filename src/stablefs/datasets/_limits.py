"""Sizes checked before anything is allocated (``docs/security.md``, "Limits").

A data file can declare or inflate to far more than the machine holds: a 6 MB ``.csv.gz`` of
zeros inflates to 4 GB of text (16 GB of float64), an ``.npz`` header can declare 10^12 values,
a sparse ARFF file can declare a million attributes for rows that hold none. Each reader
estimates the memory the load would need **before** it allocates it and compares it with the
memory available; a load that cannot fit is refused with one line that names the size.

The estimate
    ``bytes per value × values``, with the values counted from the file (separators and line
    ends of the inflated text, streamed in 1 MiB pieces and never kept; the shapes an ``.npz``
    or ``.h5ad`` declares; rows × declared attributes of an ARFF file). Bytes per value: 16
    for text tables (the float64 matrix and one working copy), 24 plus the text for ARFF
    (rows of Python strings), the declared arrays plus two float64 copies of ``X`` for
    ``.npz``. Streaming stops as soon as the estimate exceeds the limit, so a bomb is refused
    after inflating at most that much, not all of it.
The limit
    the memory available to this process: ``MemAvailable`` of ``/proc/meminfo``, lowered to
    what the cgroup (a container, a batch job) still allows, or ``os.sysconf`` where there is
    no ``/proc``. The environment variable ``STABLEFS_MEMORY_LIMIT`` (bytes, or with a suffix:
    ``512M``, ``8G``) replaces it, e.g. to allow a load on a machine whose free memory is
    misreported, or to refuse early in tests. Where nothing can be measured, nothing is refused.
"""

from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path

from stablefs._errors import StablefsError
from stablefs._runtime.memory import MEMORY_LIMIT_ENV, available_memory, format_bytes

__all__ = ["MEMORY_LIMIT_ENV", "available_memory", "check_fits", "format_bytes",
           "scan_text_values"]

#: bytes of memory per value of a text table: the float64 matrix and one working copy
TABLE_BYTES_PER_VALUE = 16

_CHUNK = 1 << 20


def _refusal(where: str, what: str, need: int, room: int) -> StablefsError:
    source = (f"{MEMORY_LIMIT_ENV}" if os.environ.get(MEMORY_LIMIT_ENV, "").strip()
              else "available")
    return StablefsError(
        f"{where}: {what} would need about {format_bytes(need)} of memory, more than the "
        f"{format_bytes(room)} {source} ({MEMORY_LIMIT_ENV} sets the limit): use a machine with "
        "more memory, or keep fewer features first (e.g. a prefilter of the most variable "
        "genes) and load that file."
    )


def check_fits(need: int, where: str, what: str, room: int | None = None) -> None:
    """Refuse (one line) a load that would need ``need`` bytes when less is available."""
    room = available_memory() if room is None else room
    if room is not None and need > room:
        raise _refusal(where, what, int(need), room)


def scan_text_values(path: Path, compressed: bool, sep: str | None, *,
                     bytes_per_value: int = TABLE_BYTES_PER_VALUE,
                     bytes_per_text_byte: int = 0, what: str = "reading this table") -> None:
    """Count the values of a (possibly gzip-compressed) text file by streaming it, and refuse
    it once ``bytes_per_value × values + bytes_per_text_byte × text bytes`` exceeds the memory
    available.

    Values are counted as separators plus line ends (``sep`` ``None``: runs of blanks). An
    uncompressed file whose size alone bounds the estimate below the limit is not read. Only
    one 1 MiB piece of the inflated text is held at a time, and the scan stops at the first
    piece past the limit.
    """
    room = available_memory()
    if room is None:
        return
    try:
        size = path.stat().st_size
    except OSError:
        return  # the reader reports it
    # at most one value per two bytes ("0,"): an uncompressed file this small cannot exceed it
    if not compressed and (size // 2 + 1) * bytes_per_value + size * bytes_per_text_byte <= room:
        return
    values = text = 0
    seps = [b"\n"] + ([sep.encode()] if sep else [])
    try:
        with (gzip.open(path, "rb") if compressed else open(path, "rb")) as fh:  # noqa: SIM115
            previous_blank = True
            while True:
                chunk = fh.read(_CHUNK)
                if not chunk:
                    break
                text += len(chunk)
                if sep is None:
                    values += _blank_runs(chunk, previous_blank)
                    previous_blank = chunk[-1:] in (b" ", b"\t")
                    values += chunk.count(b"\n")
                else:
                    values += sum(chunk.count(s) for s in seps)
                need = values * bytes_per_value + text * bytes_per_text_byte
                if need > room:
                    kind = "inflates to more than" if compressed else "holds more than"
                    raise _refusal(
                        str(path),
                        f"{what} ({kind} {format_bytes(text)} of text, at least {values:,} "
                        "values so far)", need, room)
    except (OSError, EOFError, zlib.error):
        return  # a damaged file: the reader gives its own one-line error


def _blank_runs(chunk: bytes, previous_blank: bool) -> int:
    """Number of runs of spaces/tabs that follow a non-blank byte (field ends)."""
    import numpy as np

    a = np.frombuffer(chunk, dtype=np.uint8)
    blank = (a == 32) | (a == 9)
    starts = blank[1:] & ~blank[:-1]
    first = int(bool(blank[0]) and not previous_blank)
    return int(np.count_nonzero(starts)) + first
