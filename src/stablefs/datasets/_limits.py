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
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from stablefs._errors import StablefsError
from stablefs._runtime.memory import (
    DATA_HINT,
    MEMORY_LIMIT_ENV,
    available_memory,
    check_fits,
    format_bytes,
    recorded_estimates,
)
from stablefs._runtime.memory import refusal as _refusal

__all__ = ["DATA_HINT", "MEMORY_LIMIT_ENV", "TextCounts", "available_memory", "check_fits",
           "finish_bytes", "format_bytes", "recorded_estimates", "scan_inflated", "scan_text",
           "scan_text_values", "table_bytes"]

#: bytes of memory per value while NumPy's reader parses a text table (the matrix as it grows;
#: ``tests/test_safety_memory.py`` measures every figure here against the peak)
TABLE_BYTES_PER_VALUE = 13
#: bytes per judged value of the load's last step, the raw-scale check
#: (:func:`stablefs.datasets._scale.value_scale`: the finite values, their partition for the
#: percentiles and the centred values with one temporary, at most ``SAMPLE_VALUES`` of them)
SCALE_BYTES_PER_VALUE = 25


def finish_bytes(values: int) -> int:
    """Memory of a load's last steps for a matrix of ``values`` values: the float64 matrix and
    the raw-scale check of (a sample of) its values. Every reader's estimate is at least
    this."""
    from stablefs.datasets._scale import SAMPLE_VALUES

    return 8 * int(values) + SCALE_BYTES_PER_VALUE * min(int(values), SAMPLE_VALUES)


def table_bytes(values: int) -> int:
    """Memory of reading a text table of ``values`` values with NumPy's reader."""
    return max(TABLE_BYTES_PER_VALUE * int(values), finish_bytes(values))

_CHUNK = 1 << 20


@dataclass(frozen=True)
class TextCounts:
    """What a streaming scan of a text file counted."""

    #: bytes of (inflated) text
    text: int
    #: fields: separators plus line ends (``sep`` ``None``: runs of blanks plus line ends)
    values: int
    #: line ends
    lines: int


def scan_text(path: Path, compressed: bool, sep: str | None,
              need: Callable[[TextCounts], int], *,
              what: str = "reading this table", hint: str = DATA_HINT) -> TextCounts | None:
    """Count the values, lines and bytes of a (possibly gzip-compressed) text file by
    streaming it, and refuse it (one line) once ``need(counts)``, the memory its reading would
    take, exceeds the memory available; the final estimate is checked (and recorded) by
    :func:`check_fits`.

    Only one 1 MiB piece of the inflated text is held at a time, and the scan stops at the
    first piece past the limit: a bomb is refused after inflating at most that much. ``need``
    must grow with the counts. Returns ``None`` for a file that cannot be read (the reader
    then gives its own one-line error).
    """
    room = available_memory()
    values = text = lines = 0
    seps = [sep.encode()] if sep else []
    try:
        with (gzip.open(path, "rb") if compressed else open(path, "rb")) as fh:  # noqa: SIM115
            previous_blank = True
            while True:
                chunk = fh.read(_CHUNK)
                if not chunk:
                    break
                text += len(chunk)
                ends = chunk.count(b"\n")
                lines += ends
                if sep is None:
                    values += _blank_runs(chunk, previous_blank) + ends
                    previous_blank = chunk[-1:] in (b" ", b"\t")
                else:
                    values += ends + sum(chunk.count(s) for s in seps)
                partial = need(TextCounts(text, values, lines))
                if room is not None and partial > room:
                    kind = "inflates to more than" if compressed else "holds more than"
                    raise _refusal(
                        str(path),
                        f"{what} ({kind} {format_bytes(text)} of text, at least {values:,} "
                        "values so far)", partial, room, hint)
    except (OSError, EOFError, zlib.error):
        return None  # a damaged file: the reader gives its own one-line error
    counts = TextCounts(text, values, lines)
    check_fits(need(counts), str(path),
               f"{what} ({format_bytes(text)} of text, {values:,} values)", room, hint=hint)
    return counts


def scan_inflated(path: Path, need: Callable[[int], int], *, what: str) -> int | None:
    """Stream the inflated bytes of a gzip, bzip2 or xz file (by its magic bytes; others are
    counted as they are) and refuse it (one line) once ``need(bytes so far)`` exceeds the
    memory available; the final estimate goes through :func:`check_fits`. Returns the
    inflated size, or ``None`` for a file that cannot be read (the reader then says why)."""
    import bz2
    import lzma

    room = available_memory()
    size = 0
    try:
        with open(path, "rb") as fh:
            magic = fh.read(6)
        opener = (gzip.open if magic[:2] == b"\x1f\x8b" else
                  bz2.open if magic[:3] == b"BZh" else
                  lzma.open if magic == b"\xfd7zXZ\x00" else open)
        with opener(path, "rb") as fh:
            while chunk := fh.read(_CHUNK):
                size += len(chunk)
                if room is not None and need(size) > room:
                    raise _refusal(str(path), f"{what} (inflates to more than "
                                   f"{format_bytes(size)})", need(size), room)
    except StablefsError:
        raise
    except (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError):
        return None
    check_fits(need(size), str(path), f"{what} ({format_bytes(size)} inflated)", room)
    return size


def scan_text_values(path: Path, compressed: bool, sep: str | None, *,
                     bytes_per_value: int = TABLE_BYTES_PER_VALUE,
                     bytes_per_text_byte: int = 0,
                     what: str = "reading this table") -> TextCounts | None:
    """:func:`scan_text` with a memory of ``bytes_per_value × values + bytes_per_text_byte ×
    text bytes``, and at least :func:`finish_bytes`."""
    return scan_text(path, compressed, sep,
                     lambda c: max(c.values * bytes_per_value + c.text * bytes_per_text_byte,
                                   finish_bytes(c.values)),
                     what=what)


def _blank_runs(chunk: bytes, previous_blank: bool) -> int:
    """Number of runs of spaces/tabs that follow a non-blank byte (field ends)."""
    import numpy as np

    a = np.frombuffer(chunk, dtype=np.uint8)
    blank = (a == 32) | (a == 9)
    starts = blank[1:] & ~blank[:-1]
    first = int(bool(blank[0]) and not previous_blank)
    return int(np.count_nonzero(starts)) + first
