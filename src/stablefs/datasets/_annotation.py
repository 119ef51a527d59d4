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
from pathlib import Path

import numpy as np

from stablefs._errors import StablefsError

#: cells that mean "no symbol" (Affymetrix annotation files write ``---``)
NO_SYMBOL = {"", "---", "--", "-", "na", "nan", "null", "none"}
#: the annotation file is read whole; larger files are refused (a probe table of 50,000
#: probes with long descriptions is a few MB)
MAX_ANNOTATION_BYTES = 256 * 2**20


def _text(path: Path) -> str:
    size = path.stat().st_size
    if size > MAX_ANNOTATION_BYTES:
        raise StablefsError(f"--annotation {path}: {size / 2**20:.0f} MB is more than the "
                            f"{MAX_ANNOTATION_BYTES // 2**20} MB an annotation table may have.")
    raw = path.read_bytes()
    if path.name.lower().endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError):
            raise StablefsError(f"--annotation {path}: not a readable gzip file.") from None
    if b"\0" in raw[:65536]:
        raise StablefsError(f"--annotation {path}: a binary file, not a csv/tsv table.")
    return raw.decode("utf-8-sig", errors="replace")


def _delimiter(lines: list[str]) -> str | None:
    """Tab when the first data lines hold one, else comma, else ``None`` (whitespace)."""
    head = [ln for ln in lines[:20] if ln.strip() and not ln.startswith("#")]
    if head and all("\t" in ln for ln in head):
        return "\t"
    if head and all("," in ln for ln in head):
        return ","
    return None


def read_annotation(path) -> list[tuple[int, str, str]]:
    """The ``(line number, probe, symbol)`` rows of an annotation table.

    Any two-column table: ``.csv``, ``.tsv`` or ``.txt`` (optionally ``.gz``); the
    delimiter is a tab when every one of the first lines has one, else a comma when every one
    has one, else runs of white space. The first column is the probe ID, the second the gene
    symbol; further columns are ignored (a GEO platform table works once its first two
    columns are ID and symbol). Lines starting with ``#`` and blank lines are skipped.
    Whether the first row is a header is decided by :func:`symbols_for` (it is one when its
    probe cell is not a feature of the data). ``---``, ``NA`` and empty cells mean "no
    symbol".

    Raises
    ------
    StablefsError
        A missing, binary or oversized file; a row with fewer than two columns.
    """
    path = Path(path).expanduser()
    if not path.is_file():
        raise StablefsError(f"--annotation {path}: no such file.")
    lines = _text(path).splitlines()
    delim = _delimiter(lines)
    rows = []
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith("#"):
            continue
        if delim is None:
            cells = line.split()
        else:
            cells = next(csv.reader(io.StringIO(line), delimiter=delim))
        cells = [c.strip() for c in cells]
        if len(cells) < 2:
            raise StablefsError(
                f"--annotation {path}, line {number}: {len(cells)} column; the table needs "
                "two, probe ID then gene symbol."
            )
        rows.append((number, cells[0], cells[1]))
    if not rows:
        raise StablefsError(f"--annotation {path}: the table is empty.")
    return rows


def symbols_for(feature_names, rows: list[tuple[int, str, str]], *,
                source: str = "the annotation") -> np.ndarray:
    """The gene symbol of every feature (``""`` when the table has none for it).

    The first row is a header when its probe cell is not one of ``feature_names`` (e.g.
    ``ID,Symbol`` or ``probe<TAB>gene``); probes of the table that are not features are
    ignored, features missing from the table get no symbol. A probe listed twice with
    different symbols is refused with one line (no silent choice); repeated identical rows
    are accepted.

    Raises
    ------
    StablefsError
        A probe with two different symbols; no probe of the table among the features.
    """
    names = [str(f) for f in feature_names]
    known = set(names)
    if rows and rows[0][1] not in known:
        rows = rows[1:]  # a header row
    mapping: dict[str, tuple[int, str]] = {}
    for number, probe, symbol in rows:
        if probe not in known:
            continue
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
        raise StablefsError(
            f"--annotation {source}: none of its {len(rows)} probe IDs is a feature of the "
            f"data (features look like {sample}); the first column must hold the data's "
            "probe IDs."
        )
    return np.asarray([mapping.get(f, (0, ""))[1] for f in names], dtype=object)


def load_annotation(path, feature_names) -> np.ndarray:
    """:func:`read_annotation` then :func:`symbols_for`: one symbol per feature."""
    return symbols_for(feature_names, read_annotation(path), source=str(path))
