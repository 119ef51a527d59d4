"""Probe -> gene symbol annotation (CLI ``--annotation FILE``).

Microarray features are probe IDs (``1007_s_at``, ``X12345``); a biologist reads gene
symbols. :func:`read_annotation` reads any two-column table into a mapping and
:func:`symbols_for` looks the data's features up in it, so that the report, ``signature.csv``
(a ``symbol`` column beside ``feature``) and ``signature.gmt`` carry symbols beside the IDs.
"""

from __future__ import annotations

import csv
import gzip
import io
import itertools
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from stablefs._errors import StablefsError

#: cells that mean "no symbol" (Affymetrix annotation files write ``---``)
NO_SYMBOL = {"", "---", "--", "-", "na", "nan", "null", "none"}
#: the longest line an annotation table may have (characters): the table is read line by
#: line, so its memory is one line plus the symbols of the data's features, whatever its size
MAX_LINE_CHARS = 1 << 20
#: lines looked at to choose the delimiter
_HEAD_LINES = 20


def _open(path: Path):
    """The table as text (gzip by its magic bytes), undecodable bytes replaced."""
    with open(path, "rb") as fh:
        compressed = fh.read(2) == b"\x1f\x8b"
    if compressed:
        return gzip.open(path, "rt", encoding="utf-8-sig", errors="replace", newline="")
    return open(path, encoding="utf-8-sig", errors="replace", newline="")


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` without the line end, one at a time; a line longer than
    :data:`MAX_LINE_CHARS` is refused (no table of probes has one)."""
    try:
        with _open(path) as fh:
            number = 0
            while True:
                line = fh.readline(MAX_LINE_CHARS + 1)
                if not line:
                    return
                number += 1
                if "\0" in line:
                    raise StablefsError(
                        f"--annotation {path}: a binary file, not a csv/tsv table.")
                if len(line) > MAX_LINE_CHARS:
                    raise StablefsError(
                        f"--annotation {path}, line {number}: longer than "
                        f"{MAX_LINE_CHARS:,} characters: not a table of probes and symbols.")
                yield number, line.rstrip("\r\n")
    except (OSError, EOFError, zlib.error) as exc:
        raise StablefsError(f"--annotation {path}: cannot be read ({exc}).") from None


def _delimiter(lines: list[str]) -> str | None:
    """Tab when the first data lines hold one, else comma, else ``None`` (whitespace)."""
    head = [ln for ln in lines[:_HEAD_LINES] if ln.strip() and not ln.startswith("#")]
    if head and all("\t" in ln for ln in head):
        return "\t"
    if head and all("," in ln for ln in head):
        return ","
    return None


def _rows(path: Path) -> Iterator[tuple[int, str, str]]:
    """The ``(line number, probe, symbol)`` rows, read line by line."""
    lines = _lines(path)
    head: list[tuple[int, str]] = []
    for item in lines:
        head.append(item)
        if len([ln for _, ln in head if ln.strip() and not ln.startswith("#")]) >= _HEAD_LINES:
            break
    delim = _delimiter([ln for _, ln in head])
    for number, line in itertools.chain(head, lines):
        if not line.strip() or line.startswith("#"):
            continue
        if delim is None:
            cells = line.split()
        else:
            try:
                cells = next(csv.reader(io.StringIO(line), delimiter=delim))
            except csv.Error as exc:  # a field over the csv module's limit (131,072)
                raise StablefsError(
                    f"--annotation {path}, line {number}: cannot be split into cells "
                    f"({exc}).") from None
        cells = [c.strip() for c in cells]
        if len(cells) < 2:
            raise StablefsError(
                f"--annotation {path}, line {number}: {len(cells)} column; the table needs "
                "two, probe ID then gene symbol."
            )
        yield number, cells[0], cells[1]


def _existing(path) -> Path:
    path = Path(path).expanduser()
    if not path.is_file():
        raise StablefsError(f"--annotation {path}: no such file.")
    return path


def read_annotation(path) -> list[tuple[int, str, str]]:
    """The ``(line number, probe, symbol)`` rows of an annotation table.

    Any two-column table: ``.csv``, ``.tsv`` or ``.txt`` (optionally ``.gz``); the
    delimiter is a tab when every one of the first lines has one, else a comma when every one
    has one, else runs of white space. The first column is the probe ID, the second the gene
    symbol; further columns are ignored (a GEO platform table works once its first two
    columns are ID and symbol). Lines starting with ``#`` and blank lines are skipped.
    Whether the first row is a header is decided by :func:`symbols_for` (it is one when its
    probe cell is not a feature of the data). ``---``, ``NA`` and empty cells mean "no
    symbol". :func:`load_annotation` reads the table line by line and keeps only the
    symbols of the data's features; :func:`check_annotation` keeps nothing.

    Raises
    ------
    StablefsError
        A missing or binary file, a line longer than :data:`MAX_LINE_CHARS`, a row with
        fewer than two columns.
    """
    rows = list(_rows(_existing(path)))
    if not rows:
        raise StablefsError(f"--annotation {path}: the table is empty.")
    return rows


def check_annotation(path) -> None:
    """Refuse (one line) a missing, unreadable or malformed table, reading it line by line
    and keeping nothing (the command line's check before any work)."""
    path = _existing(path)
    if not any(True for _ in _rows(path)):
        raise StablefsError(f"--annotation {path}: the table is empty.")


def symbols_for(feature_names, rows: Iterable[tuple[int, str, str]], *,
                source: str = "the annotation") -> np.ndarray:
    """The gene symbol of every feature (``""`` when the table has none for it).

    The first row is a header when its probe cell is not one of ``feature_names`` (e.g.
    ``ID,Symbol`` or ``probe<TAB>gene``); probes of the table that are not features are
    ignored, features missing from the table get no symbol. A probe listed twice with
    different symbols is refused with one line (no silent choice); repeated identical rows
    are accepted. ``rows`` may be an iterator (only the features' rows are kept).

    Raises
    ------
    StablefsError
        A probe with two different symbols; no probe of the table among the features.
    """
    names = [str(f) for f in feature_names]
    known = set(names)
    mapping: dict[str, tuple[int, str]] = {}
    n_rows = 0
    for number, probe, symbol in rows:
        n_rows += 1
        if probe not in known:
            continue  # the first row, when it is not a feature, is a header
        symbol = "" if symbol.lower() in NO_SYMBOL else symbol
        if probe in mapping and mapping[probe][1] != symbol:
            first, other = mapping[probe]
            raise StablefsError(
                f"--annotation {source}: probe {probe!r} is listed twice with different "
                f"symbols ({other!r} on line {first}, {symbol!r} on line {number}); keep one "
                "row per probe."
            )
        mapping.setdefault(probe, (number, symbol))
    if not mapping:
        sample = ", ".join(names[:3])
        rows_count = n_rows - 1 if n_rows else 0  # without the header row
        raise StablefsError(
            f"--annotation {source}: none of its {rows_count} probe IDs is a feature of the "
            f"data (features look like {sample}); the first column must hold the data's "
            "probe IDs."
        )
    return np.asarray([mapping.get(f, (0, ""))[1] for f in names], dtype=object)


def load_annotation(path, feature_names) -> np.ndarray:
    """One symbol per feature, the table read line by line (:func:`symbols_for`)."""
    path = _existing(path)

    def rows():
        empty = True
        for row in _rows(path):
            empty = False
            yield row
        if empty:
            raise StablefsError(f"--annotation {path}: the table is empty.")

    return symbols_for(feature_names, rows(), source=str(path))
