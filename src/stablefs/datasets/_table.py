"""Delimited text tables (``.csv``, ``.tsv``, ``.txt``, each optionally gzip-compressed).

Two orientations:

* **samples × features** (the default): one row per sample, a header row of feature names with a
  class column (``label``), optionally a leading sample-ID column;
* **features × samples** (``transpose=True``): one row per gene, the first column holds the gene
  IDs, the header row the sample IDs, and a row named ``label`` the classes (or the classes come
  from a sample sheet, ``labels=``). This is how GEO series matrices and most expression tools
  write their tables.

Parsing
-------
A header can be of any length (50,000+ columns, several MB): it is read as one whole line, never
from a fixed-size sample. The numbers are parsed by NumPy's C reader (:func:`numpy.loadtxt`) in
one pass: the class column and the sample-ID column go through converters, the rest straight into
one float64 matrix, which is then compacted in place, so the peak memory is about one copy of the
matrix (two for ``transpose=True``, which needs a transposed copy). It parses each number with
Python's own correctly rounded conversion (``float(text)``), so a file reads to the same bits on
every supported NumPy version. Files that this fast reader cannot take (missing-value tokens such
as ``NA``, text in feature columns, rows of different lengths, quoted line breaks) are read
again by pandas' C parser with its correctly rounded converter (``float_precision="round_trip"``
before pandas 3.1, the only converter since), so both paths give identical numbers, and
diagnosed column by column. On a
100 × 60,000 table (46 MiB of float64) the fast path was 3–6× faster than
``pandas.read_csv`` and its peak allocation a third of pandas' (69 MiB against 221 MiB;
``benchmarks/bench_load.py``).
"""

from __future__ import annotations

import gzip
import re
import warnings
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from stablefs._errors import StablefsError
from stablefs._runtime.pandas_compat import EXACT_FLOATS
from stablefs.datasets._dataset import Dataset
from stablefs.datasets._finish import (
    NA_TOKENS,
    check_labels,
    check_unique,
    finish,
    name_list,
    show,
    split_fields,
    warn,
)
from stablefs.datasets._limits import (
    TextCounts,
    check_fits,
    finish_bytes,
    scan_text,
    table_bytes,
)

TABLE_SEPARATORS = {".csv": ",", ".tsv": "\t", ".txt": None}
SUPPORTED = ".csv, .tsv, .txt (each optionally .gz), .arff, .npz, .h5ad"

_GZIP_MAGIC = b"\x1f\x8b"
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_MISSING_TOKENS = {"", "na", "nan", "n/a", "null", "?", "none"}

DROP_NOMINAL_HINT = "drop_nominal=True (CLI --drop-nominal)"
TRANSPOSE_HINT = "transpose=True (CLI --transpose)"
LABELS_HINT = "labels=FILE:COLUMN (CLI --labels FILE:COLUMN)"

#: Bytes of a file's start checked for binary content.
_HEAD_BYTES = 65536

#: Rows compacted per block when columns are removed in place (bounded temporary memory).
_BLOCK_BYTES = 8 << 20

#: Memory of pandas' reader (the fallback of files NumPy's cannot parse), by orientation:
#: bytes per value, per byte of text (its tokenizer keeps the text) and per column of the
#: file, measured (``tests/test_safety_memory.py``; the fast reader's is
#: :func:`~stablefs.datasets._limits.table_bytes`)
PANDAS_MEMORY = {False: (17, 1, 2048), True: (24, 1, 3584)}


# --------------------------------------------------------------------------------------------
# file names, compression, the first lines
# --------------------------------------------------------------------------------------------


def split_suffix(path: Path) -> tuple[str, bool]:
    """Format suffix (``".csv"``) and whether the name ends in ``.gz``."""
    name = path.name.lower()
    gz = name.endswith(".gz")
    if gz:
        name = name[:-3]
    return Path(name).suffix, gz


def file_stem(path: Path) -> str:
    """``colon.csv.gz`` → ``colon``; ``my.data.arff`` → ``my.data``."""
    name = path.name
    if name.lower().endswith(".gz"):
        name = name[:-3]
    return Path(name).stem


def is_gzip(path: Path, gz: bool) -> bool:
    """Whether ``path`` is gzip data (from its magic bytes); a ``.gz`` name that is not is an
    error."""
    try:
        with open(path, "rb") as fh:
            magic = fh.read(2)
    except OSError as exc:
        raise StablefsError(f"{path}: cannot be read ({exc.strerror or exc}).") from None
    if gz and magic != _GZIP_MAGIC:
        raise StablefsError(
            f"{path}: is not a valid gzip file (its name ends in .gz but it is not "
            "gzip-compressed): re-compress it or remove the .gz suffix."
        )
    return magic == _GZIP_MAGIC


def _open_binary(path: Path, compressed: bool):
    return gzip.open(path, "rb") if compressed else open(path, "rb")


def read_head(path: Path, gz: bool, nbytes: int = _HEAD_BYTES) -> bytes:
    """First ``nbytes`` of the (decompressed) file; a bad gzip stream is a StablefsError."""
    compressed = is_gzip(path, gz)
    try:
        with _open_binary(path, compressed) as fh:
            return fh.read(nbytes)
    except (OSError, EOFError, zlib.error) as exc:
        raise StablefsError(
            f"{path}: is a corrupt or truncated gzip file ({exc}): download or export it again."
        ) from None


def decode_head(path: Path, head: bytes) -> str:
    """Decode the start of a text file; binary content is a StablefsError."""
    if b"\x00" in head:
        raise StablefsError(
            f"{path}: is not a text table (it contains binary data): expected {SUPPORTED}."
        )
    try:
        return head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if len(head) == _HEAD_BYTES and exc.start >= len(head) - 4:
            return head[: exc.start].decode("utf-8")  # a character cut at the sample's end
        control = sum(1 for b in head if b < 32 and b not in (9, 10, 13, 12))
        if control > 0.05 * max(1, len(head)):
            raise StablefsError(
                f"{path}: is not a text table (it contains binary data): expected {SUPPORTED}."
            ) from None
        return head.decode("latin-1")


class _Sniff:
    """What the first lines of a text table say: compression, encoding, header, first rows."""

    def __init__(self, path: Path, gz: bool, n_lines: int = 3):
        self.compressed = is_gzip(path, gz)
        head = read_head(path, gz)
        decode_head(path, head)  # binary content is refused before reading whole lines
        raw: list[bytes] = []
        self.skip = 0  # physical lines up to and including the header
        try:
            with _open_binary(path, self.compressed) as fh:
                while len(raw) < n_lines:
                    line = fh.readline()  # a whole line, however long (wide headers)
                    if not line:
                        break
                    if not raw:
                        self.skip += 1
                    if line.strip():
                        raw.append(line)
        except (OSError, EOFError, zlib.error) as exc:
            raise StablefsError(
                f"{path}: is a corrupt or truncated gzip file ({exc}): download or export it "
                "again."
            ) from None
        self.encoding = "utf-8-sig"
        for blob in (head, b"".join(raw)):
            try:
                blob.decode("utf-8")
            except UnicodeDecodeError as exc:
                cut = blob is head and len(head) == _HEAD_BYTES and exc.start >= len(head) - 4
                if not cut:
                    self.encoding = "latin-1"
        text = [ln.decode(self.encoding).rstrip("\r\n") for ln in raw]
        if text:
            text[0] = text[0].lstrip("\ufeff")
        self.lines = text
        #: what the memory check counted (:func:`stablefs.datasets._limits.scan_text`)
        self.counts: TextCounts | None = None  # the scan's counts, set by the reader

    def open_text(self, path: Path):
        """The file as text (universal newlines), positioned at its start."""
        if self.compressed:
            return gzip.open(path, "rt", encoding=self.encoding)
        return open(path, encoding=self.encoding)


def guess_separator(first_line: str, suffix: str) -> str | None:
    """``,`` for .csv (``;`` if the line has no comma but semicolons), tab for .tsv; for .txt a
    tab, else a comma, else runs of whitespace (``None``)."""
    sep = TABLE_SEPARATORS.get(suffix)
    if sep == "," and "," not in first_line and ";" in first_line:
        return ";"
    if sep is None:
        if "\t" in first_line:
            return "\t"
        if "," in first_line:
            return ","
        return None  # whitespace
    return sep


def _check_header_quotes(path: Path, line: str, sep: str | None) -> None:
    """Refuse a header row whose quotes do not close: a quoted column name that holds a line
    break (``"g<newline>1"``) would otherwise be diagnosed as rows of different lengths."""
    if sep is None or line.count('"') % 2 == 0:
        return
    start = line.rfind('"')
    name = line[start:start + 40]
    raise StablefsError(
        f"{path}: the header row has an unclosed quote ({show(name)} at its end): a quoted "
        "column name holds a line break, or a quote is missing; write every name on one line "
        "with its quotes closed."
    )


def _looks_like_data(fields: list[str], skip: int | None = -1) -> bool:
    """True when the first row is data, not a header (see :func:`read_table`).

    ``skip`` is the position of the class column, which may hold any text.
    """
    if len(fields) < 2:
        return False
    skip = None if skip is None else skip % len(fields)
    body = [f.strip().strip("\"'") for i, f in enumerate(fields) if i != skip]
    numbers = sum(bool(_NUMBER.match(f)) for f in body)
    missing = sum(f.lower() in _MISSING_TOKENS for f in body)
    return numbers + missing == len(body) and numbers >= max(1, len(body) // 2)


def _is_value(text: str) -> bool:
    """A field that reads as a number or as missing (not text)."""
    t = text.strip().strip('"')
    if t in NA_TOKENS or t.lower() in _MISSING_TOKENS:
        return True
    try:
        float(t)
    except ValueError:
        return False
    return True


def _as_position(label) -> int | None:
    """``label`` as a column position (an int, or text such as ``"0"`` / ``"-1"``), else None."""
    if label is None or isinstance(label, bool):
        return None
    if isinstance(label, (int, np.integer)):
        return int(label)
    text = str(label).strip()
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    return None


def _resolve_position(label, n_cols: int, path: Path) -> int:
    try:
        pos = int(label)
    except (TypeError, ValueError):
        raise StablefsError(
            f"{path}: has no header row (its first line is numbers), so label= (--label) must "
            f"be a column position such as 0 or -1, not {show(label)}."
        ) from None
    if not -n_cols <= pos < n_cols:
        raise StablefsError(
            f"{path}: label column position {pos} is outside the {n_cols} columns of the file."
        )
    return pos % n_cols


# --------------------------------------------------------------------------------------------
# the two parsers
# --------------------------------------------------------------------------------------------


class _Collect:
    """A ``loadtxt`` converter that keeps a column's text and stores its index as the value."""

    def __init__(self) -> None:
        self.values: list[str] = []

    def __call__(self, text: str) -> float:
        self.values.append(text)
        return float(len(self.values) - 1)

    def ordered(self, codes: np.ndarray) -> list[str]:
        return [self.values[int(c)] for c in codes]


def _loadtxt(lines, sep: str | None, converters: dict) -> np.ndarray:
    """NumPy's C reader; ``ValueError`` (text, missing tokens, ragged rows) → the caller falls
    back to pandas."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*[Ee]mpty input", category=UserWarning)
        warnings.filterwarnings("ignore", message=".*contained no data", category=UserWarning)
        return np.loadtxt(
            lines,
            delimiter=sep,
            quotechar='"',
            comments=None,
            converters=converters,
            dtype=np.float64,
            ndmin=2,
        )


def _fast_read(path: Path, sniff: _Sniff, lines_filter, sep, converters) -> np.ndarray | None:
    """Run the fast reader; ``None`` means "use pandas" (the file has something it cannot
    parse)."""
    try:
        with sniff.open_text(path) as fh:
            for _ in range(sniff.skip):
                fh.readline()
            return _loadtxt(lines_filter(fh) if lines_filter else fh, sep, converters)
    except UnicodeDecodeError as exc:
        raise StablefsError(
            f"{path}: is not a readable text table ({exc.reason} at byte {exc.start}): save it "
            "as UTF-8 text."
        ) from None
    except ValueError:
        return None
    except (OSError, EOFError, zlib.error) as exc:
        raise StablefsError(f"{path}: is corrupt or truncated ({exc}).") from None


def read_csv(path: Path, **kwargs) -> pd.DataFrame:
    """``pandas.read_csv`` with its errors turned into one-line StablefsErrors."""
    try:
        return pd.read_csv(path, **kwargs)
    except pd.errors.EmptyDataError:
        raise StablefsError(f"{path}: is empty (no header and no data rows).") from None
    except pd.errors.ParserError as exc:
        msg = str(exc).strip().splitlines()[-1] if str(exc).strip() else "parse error"
        raise StablefsError(
            f"{path}: cannot be parsed as a table ({msg}): check that every row has the same "
            "number of fields."
        ) from None
    except UnicodeDecodeError as exc:
        raise StablefsError(
            f"{path}: is not a readable text table ({exc.reason} at byte {exc.start})."
        ) from None
    except (OSError, EOFError, zlib.error) as exc:
        raise StablefsError(f"{path}: is corrupt or truncated ({exc}).") from None
    except (ValueError, TypeError, MemoryError) as exc:
        raise StablefsError(f"{path}: cannot be read as a table ({exc}).") from None


def _pandas_kwargs(sniff: _Sniff, sep: str | None) -> dict:
    return {
        "sep": r"\s+" if sep is None else sep,
        "compression": "gzip" if sniff.compressed else None,
        "encoding": sniff.encoding,
        "low_memory": False,
        "header": None,
        **EXACT_FLOATS,
    }


def drop_columns_inplace(A: np.ndarray, drop) -> np.ndarray:
    """``np.delete(A, drop, axis=1)`` without a second copy of ``A``.

    The kept columns are moved to the front of ``A``'s own buffer, row block by row block (a
    row's destination never overlaps a later row's source), and a C-contiguous view of the
    first ``n × (p - len(drop))`` values is returned. ``A`` is overwritten.
    """
    n, m = A.shape
    drop = sorted({int(d) % m for d in drop}) if m else []
    if not drop:
        return A
    keep = np.setdiff1d(np.arange(m), drop)
    p = keep.size
    flat = A.reshape(-1)
    out = flat[: n * p].reshape(n, p)
    block = max(1, _BLOCK_BYTES // max(1, 8 * m))
    for start in range(0, n, block):
        stop = min(n, start + block)
        out[start:stop] = A[start:stop][:, keep]  # fancy indexing copies the block first
    return out


def _nominal_error(where, bad_names, example, id_note: str = "", headerless=False):
    eg = f" (e.g. value {show(example[1])} in {example[0]})" if example else ""
    extra = (
        ""
        if headerless
        else " name the class column with label=NAME (CLI --label) if it is one of them,"
    )
    return StablefsError(
        f"{where}: {len(bad_names)} non-numeric feature column(s): {name_list(bad_names)}{eg}"
        f"{id_note}; features must be numbers:{extra} fix the file, or pass {DROP_NOMINAL_HINT} "
        "to drop those columns."
    )


_STRICT_NUMBER = re.compile(r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$")


def coerce_text(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """A text column as float64 (``float(text)``, the conversion of both parsers) and the mask
    of its cells that are text, not numbers (missing cells are NaN and not text).

    pandas leaves some plain numbers as text (e.g. ``18446744073709551616.000``, an integer
    beyond uint64 written with a decimal point); they are numbers here.
    """
    values = series.tolist()
    out = np.full(len(values), np.nan)
    text = np.zeros(len(values), dtype=bool)
    for i, v in enumerate(values):
        if v is None or (isinstance(v, float) and v != v):
            continue
        numeric = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
        if numeric or (isinstance(v, str) and _STRICT_NUMBER.match(v)):
            try:
                out[i] = float(v)
                continue
            except ValueError:  # blanks float() does not strip, e.g. "1.5\x1c"
                pass
        text[i] = True
    return out, text


def _example_value(series: pd.Series) -> str:
    _, text = coerce_text(series)
    hits = np.flatnonzero(text)
    return str(series.iloc[hits[0]]) if hits.size else ""


def _id_note(name: str, values: list) -> str:
    present = [v for v in values if v is not None and not (isinstance(v, float) and v != v)]
    if len(present) < len(values):
        why = "it has missing values"
    else:
        seen: set = set()
        dup = None
        for v in present:
            if v in seen:
                dup = v
                break
            seen.add(v)
        why = f"its values repeat (e.g. {show(dup)})"
    return (
        f" (the first column, {show(name)}, is not a sample-ID column: {why}; sample IDs must be "
        "unique)"
    )


# --------------------------------------------------------------------------------------------
# samples × features
# --------------------------------------------------------------------------------------------


def _find_label_rows(path: Path, sniff: _Sniff, sep, target: str
                     ) -> tuple[list[tuple[int, str]], int]:
    """Physical line numbers (0-based) and text of the rows whose first field is ``target``
    (any letter case), and the number of lines of the file."""
    want = target.lower()
    found = []
    n_lines = 0
    with sniff.open_text(path) as fh:
        for i, line in enumerate(fh):
            n_lines = i + 1
            first = (line.split(None, 1) if sep is None else line.split(sep, 1))[:1]
            if first and first[0].strip().strip("\"'").lower() == want:
                found.append((i, line.rstrip("\r\n")))
    return found, n_lines


#: a table without a class column and this many times more rows than columns looks
#: genes × samples (expression matrices have thousands of genes and tens of samples)
TRANSPOSED_RATIO = 4


def _no_label_column(path, sniff, sep, label, stripped, kwargs) -> StablefsError:
    """The error for a header without the class column, with the most useful hint."""
    rows, n_lines = _find_label_rows(path, sniff, sep, "label" if label is None else str(label))
    name = "label" if label is None else str(label)
    if rows:
        return StablefsError(
            f"{path}: has no column {show(name)}, but its line {rows[0][0] + 1} is a row named "
            f"{show(name)}: this looks like a genes × samples file; pass {TRANSPOSE_HINT}."
        )
    n_rows = n_lines - sniff.skip  # lines below the header
    if n_rows > TRANSPOSED_RATIO * len(stripped):
        return StablefsError(
            f"{path}: has no column {show(name)} and {n_rows} rows for {len(stripped)} "
            f"columns: this looks like a genes × samples file (samples in columns); pass "
            f"{TRANSPOSE_HINT} with the classes in a row (label=NAME names it) or in a sample "
            f"sheet ({LABELS_HINT})."
        )
    sample = read_csv(path, skiprows=sniff.skip, nrows=50, **kwargs)
    sample.columns = stripped[: sample.shape[1]] + [
        f"column {i + 1}" for i in range(len(stripped), sample.shape[1])
    ]
    candidates = [
        str(c) for c, dt in zip(sample.columns, sample.dtypes) if getattr(dt, "kind", "O")
        not in "iuf"
    ]
    if candidates:
        hint = f"non-numeric columns that could be the label: {name_list(candidates)}"
    else:
        hint = (
            f"every column is numeric (first: {name_list(list(sample.columns), 3)}; last: "
            f"{sample.columns[-1]})"
        )
    missing = f"has no column {show(label)}" if label is not None else (
        "has a header row but no column named 'label'"
    )
    return StablefsError(
        f"{path}: {missing}; {hint}; name the class column with label=NAME (CLI --label NAME), "
        f"or give the classes in a sample sheet with {LABELS_HINT}."
    )


def read_table(path: Path, options, *, engine: str = "auto") -> Dataset:
    """Read a delimited text table (``.csv``, ``.tsv``, ``.txt``, optionally gzip-compressed).

    Parameters
    ----------
    path : Path
        The file. Compression is recognised from the content (gzip magic bytes); a name ending
        in ``.gz`` that is not gzip data is an error.
    options : ReadOptions
        ``label``, ``labels``, ``transpose``, ``drop_nominal``, ``missing`` (see
        :func:`stablefs.datasets.load`).
    engine : {"auto", "pandas"}
        ``"auto"``: NumPy's C reader, pandas for files it cannot parse; ``"pandas"`` forces the
        second path (used by the tests to check that both give identical data).

    Notes
    -----
    *Separator*: ``,`` for ``.csv`` (``;`` when the first line has semicolons but no commas),
    tab for ``.tsv``; for ``.txt`` a tab if the first line has one, else a comma if it has one,
    else runs of whitespace. Fields may be quoted with ``"``.

    *Header detection* (samples × features): the file has **no header row** when every field of
    its first line except the class field (the last one, or the position given by ``label``)
    parses as a number (fields that read as missing, such as ``NA`` or empty, are allowed, but
    at least half must be numbers) and no field is ``label`` or the name given by ``label``.
    Then the features are named ``f0 … f{p-1}`` and the class is the last column (or the
    position given by ``label``), as in the UCI sonar file. Otherwise the first line is the
    header: the class column is ``label`` (exact name, else the single column named ``label``
    in any letter case) or the name given by ``label``; duplicated or empty column names are
    refused (pandas would rename them ``g1.1`` / ``Unnamed: 3`` silently).

    *Sample IDs*: a header whose first cell is empty (pandas ``to_csv``), or that has one name
    fewer than the data rows (R ``write.table``), makes the first column a row index; its
    values become ``Dataset.sample_names``. Otherwise a first column (when it is not the class
    column) whose values are text and all different is a sample-ID column
    (``Dataset.sample_names``); a text first column whose values repeat is a non-numeric feature
    (refused, or dropped with ``drop_nominal``). A column of numbers is always a feature, even
    when it holds sample numbers.

    The label column is read as text (so ``"01"`` stays ``"01"``); the remaining columns must be
    numeric.
    """
    suffix, _gz = split_suffix(path)
    sniff = _Sniff(path, _gz)
    if not sniff.lines:
        raise StablefsError(f"{path}: is empty (no header and no data rows).")
    sep = guess_separator(sniff.lines[0], suffix)
    _check_header_quotes(path, sniff.lines[0], sep)
    # a table that cannot fit in memory (a gzip bomb, a huge file) is refused before parsing
    sniff.counts = scan_text(path, sniff.compressed, sep, lambda c: table_bytes(c.values))
    meta: dict = {"format": suffix.lstrip(".") + (".gz" if sniff.compressed else "")}
    if options.transpose:
        return _read_transposed(path, sniff, sep, options, meta, engine)
    label = options.label
    external = options.labels is not None
    if external and label is not None:
        raise StablefsError(
            f"{path}: label= ({show(label)}) and labels= both given: the classes come either "
            "from a column of the data file (label=) or from a sample sheet (labels=), not both."
        )
    fields = split_fields(sniff.lines[0], sep)
    if not fields:
        raise StablefsError(f"{path}: its first line has no fields (only blanks or control "
                            "characters): is this a text table?")
    n_cols = len(fields)
    stripped = [f.strip() for f in fields]
    position = _as_position(label)
    label_name = None if label is None or position is not None else str(label)
    if external:
        skip = None
    else:
        skip = position if position is not None and -n_cols <= position < n_cols else -1
    headerless = _looks_like_data(fields, skip) and not any(
        f.lower() == "label" or f == label_name for f in stripped
    )
    kwargs = _pandas_kwargs(sniff, sep)

    index_col = False
    if headerless:
        meta["headerless"] = True
        names = [f"f{i}" for i in range(n_cols)]
        if external:
            label_pos = None
        else:
            label_pos = n_cols - 1 if label is None else _resolve_position(label, n_cols, path)
            names = [f"f{i}" for i in range(n_cols - 1)]
            names = names[:label_pos] + [f"column {label_pos}"] + names[label_pos:]
            meta["label_column"] = label_pos
        sniff.skip = 0  # the first line is data
        id_pos = None
    else:
        meta["headerless"] = False
        if label is not None and not isinstance(label, str):
            raise StablefsError(
                f"{path}: has a header row, so label= (--label) must be a column name, not "
                f"{show(label)}."
            )
        row1 = split_fields(sniff.lines[1], sep) if len(sniff.lines) > 1 else []
        if len(row1) == n_cols + 1:
            if row1[-1].strip() == "":
                raise StablefsError(
                    f"{path}: the data rows have one field more than the header row, and it is "
                    "empty (a separator at the end of each row?): remove the trailing "
                    "separators."
                )
            stripped = [""] + stripped  # R write.table: no header cell above the row names
            meta["row_names"] = True
            n_cols += 1
        index_col = stripped[0] == "" and n_cols > 1
        empty = [i + 1 for i, f in enumerate(stripped) if f == "" and not (i == 0 and index_col)]
        if empty:
            raise StablefsError(
                f"{path}: {len(empty)} column(s) have no name in the header row (column(s) "
                f"{name_list(empty)}): name every column (stablefs never invents names)."
            )
        want = "label" if label is None else label
        exact = [i for i, f in enumerate(stripped) if f == want]
        loose = [i for i, f in enumerate(stripped) if f.lower() == want.lower()]
        if len(exact) > 1:
            raise StablefsError(
                f"{path}: duplicated label column: {show(want)} is the name of columns "
                f"{name_list([i + 1 for i in exact])}: keep one class column."
            )
        hit = exact[0] if exact else (loose[0] if len(loose) == 1 else None)
        if external:
            if hit is not None:
                raise StablefsError(
                    f"{path}: has its own class column {show(stripped[hit])} and labels= gives a "
                    "sample sheet: use one source of classes (remove the column, or drop "
                    "labels=)."
                )
            label_pos = None
        else:
            if hit is None:
                raise _no_label_column(path, sniff, sep, label, stripped, kwargs)
            label_pos = hit
            meta["label_column"] = stripped[hit]
        check_unique(stripped[1:] if index_col else stripped, str(path),
                     offset=2 if index_col else 1)
        names = stripped
        if len(sniff.lines) < 2:
            raise StablefsError(f"{path}: has a header row but no data rows.")
        first_row = split_fields(sniff.lines[1], sep)
        if index_col:
            id_pos = 0
        elif label_pos != 0 and n_cols > 1 and first_row and not _is_value(first_row[0]):
            id_pos = 0  # a leading text column: sample IDs if its values are unique
        else:
            id_pos = None
    label_text = names[label_pos] if label_pos is not None else "label"

    A = None
    converters: dict = {}
    label_conv, id_conv = _Collect(), _Collect()
    if label_pos is not None:
        converters[label_pos] = label_conv
    if id_pos is not None:
        converters[id_pos] = id_conv
    if engine == "auto":
        A = _fast_read(path, sniff, None, sep, converters)
    if A is not None:
        meta["parser"] = "numpy"
        if A.shape[0] == 0 or A.size == 0:
            raise StablefsError(f"{path}: has a header row but no data rows.")
        if A.shape[1] != n_cols:
            raise StablefsError(
                f"{path}: the header row has {n_cols} fields but the data rows have "
                f"{A.shape[1]}: every row needs one value per column."
            )
        y_raw = None
        if label_pos is not None:
            y_raw = [None if v in NA_TOKENS else v for v in label_conv.ordered(A[:, label_pos])]
        ids = [v.strip() for v in id_conv.ordered(A[:, id_pos])] if id_pos is not None else None
        drop = [c for c in (label_pos, id_pos) if c is not None]
        feature_cols = [c for c in range(n_cols) if c not in drop]
        nominal: list[int] = []
        if ids is not None and id_pos is not None:  # ids come from the column id_pos
            ids_ok = len(set(ids)) == len(ids) and not any(v in NA_TOKENS for v in ids)
            if not ids_ok:
                if index_col:
                    ids = None
                    warn(_index_warning(path, unique=False))
                else:
                    nominal = [id_pos]
                    ids_values = [None if v in NA_TOKENS else v for v in ids]
                    note = _id_note(names[id_pos], ids_values)
                    if not options.drop_nominal:
                        example = (names[id_pos], next(v for v in ids if v not in NA_TOKENS))
                        raise _nominal_error(path, [names[id_pos]], example, note)
                    ids = None
            elif index_col:
                warn(_index_warning(path, unique=True))
        X = drop_columns_inplace(A, drop)
        del A
        if nominal:
            meta["dropped_columns"] = [names[c] for c in nominal]
            warn(_dropped_warning(path, meta["dropped_columns"]))
        feature_names = [names[c] for c in feature_cols]
    else:
        meta["parser"] = "pandas"
        X, y_raw, ids, feature_names, id_pos = _pandas_samples(
            path, sniff, kwargs, names, n_cols, label_pos, id_pos, index_col, headerless, options,
            meta,
        )
    if id_pos is not None and ids is not None:
        meta["sample_id_column"] = names[id_pos] if not index_col else "(row index)"
    y = None if y_raw is None else check_labels(y_raw, str(path), label_text)
    return finish(
        X,
        y,
        feature_names,
        where=str(path),
        name=file_stem(path),
        source=str(path),
        meta=meta,
        sample_names=ids,
        labels=options.labels,
        missing=options.missing,
        label_column=label_text,
    )


def _index_warning(path: Path, *, unique: bool) -> str:
    if unique:
        return (
            f"{path}: the first column has no name in the header row; it is taken as a row index "
            "(as written by pandas to_csv or R write.table): its values are the sample names, "
            "not a feature."
        )
    return (
        f"{path}: the first column has no name in the header row; it is taken as a row index "
        "(as written by pandas to_csv) and not used as a feature; its values repeat, so the "
        "samples are named s0, s1, ..."
    )


def _dropped_warning(path, dropped: list[str]) -> str:
    return (
        f"{path}: dropped {len(dropped)} non-numeric feature column(s) ({name_list(dropped)}) "
        "(drop_nominal=True); listed in Dataset.meta['dropped_columns']."
    )


def _check_pandas(path: Path, sniff: _Sniff, n_columns: int, *, transposed: bool) -> None:
    """Refuse (one line) a file whose reading by pandas would not fit in memory, before it
    starts (:data:`PANDAS_MEMORY`)."""
    if sniff.counts is None:
        return
    per_value, per_byte, per_column = PANDAS_MEMORY[transposed]
    counts = sniff.counts
    check_fits(max(counts.values * per_value + counts.text * per_byte + n_columns * per_column,
                   finish_bytes(counts.values)),
               str(path), f"reading this table with pandas ({counts.values:,} values in "
               f"{n_columns:,} columns: it has text or missing values)")


def _pandas_samples(path, sniff, kwargs, names, n_cols, label_pos, id_pos, index_col, headerless,
                    options, meta):
    """The pandas path for samples × features tables: diagnoses text and missing values."""
    dtype = {c: str for c in (label_pos, id_pos) if c is not None}
    _check_pandas(path, sniff, n_cols, transposed=False)
    df = read_csv(path, skiprows=sniff.skip, dtype=dtype, **kwargs)
    if df.shape[0] == 0:
        raise StablefsError(f"{path}: has a header row but no data rows.")
    if df.shape[1] != n_cols:
        what = "first row" if headerless else "header row"
        raise StablefsError(
            f"{path}: rows have different numbers of fields ({n_cols} in the {what}, "
            f"{df.shape[1]} in the data rows): every row needs one value per column."
        )
    df.columns = range(n_cols)
    y_raw = None
    if label_pos is not None:
        y_raw = df.pop(label_pos)
    ids = None
    id_note = ""
    text_first = getattr(df[0].dtype, "kind", "O") not in "iuf" if 0 in df.columns else False
    if id_pos is None and not headerless and label_pos != 0 and n_cols > 1 and text_first:
        id_pos = 0
    if id_pos is not None:
        col = df[id_pos]
        values = col.where(col.notna(), None).tolist()
        if col.notna().all() and col.is_unique:
            ids = [str(v).strip() for v in values]
            df = df.drop(columns=[id_pos])
            if index_col:
                warn(_index_warning(path, unique=True))
        elif index_col:
            df = df.drop(columns=[id_pos])
            warn(_index_warning(path, unique=False))
        else:
            id_note = _id_note(names[id_pos], values)
    bad = []
    for c, dt in zip(list(df.columns), list(df.dtypes)):
        if getattr(dt, "kind", "O") not in "iuf":
            values, text = coerce_text(df[c])
            if text.any():
                bad.append(c)
            else:
                df[c] = values  # numbers pandas left as text
    if bad:
        bad_names = [names[c] for c in bad]
        example = _example_value(df[bad[0]])
        example = (bad_names[0], example) if example else None
        if not options.drop_nominal:
            raise _nominal_error(path, bad_names, example, id_note, headerless)
        if len(bad) == df.shape[1]:
            raise StablefsError(
                f"{path}: all {df.shape[1]} feature columns are non-numeric, so dropping "
                "them leaves no features."
            )
        df = df.drop(columns=bad)
        meta["dropped_columns"] = bad_names
        warn(_dropped_warning(path, bad_names))
    feature_names = [names[c] for c in df.columns]
    try:
        X = df.to_numpy(dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise StablefsError(f"{path}: feature values are not numbers ({exc}).") from None
    return X, y_raw, ids, feature_names, id_pos


# --------------------------------------------------------------------------------------------
# features × samples (transpose=True)
# --------------------------------------------------------------------------------------------


def _read_transposed(path: Path, sniff: _Sniff, sep, options, meta: dict, engine: str):
    """A genes × samples table: first column gene IDs, header sample IDs, a ``label`` row."""
    label = options.label
    external = options.labels is not None
    if external and label is not None:
        raise StablefsError(
            f"{path}: label= ({show(label)}) and labels= both given: the classes come either "
            "from a row of the data file (label=) or from a sample sheet (labels=), not both."
        )
    if label is not None and not isinstance(label, str):
        raise StablefsError(
            f"{path}: with transpose=True, label= (--label) names the row that holds the "
            f"classes, not a position ({show(label)})."
        )
    header = [f.strip() for f in split_fields(sniff.lines[0], sep)]
    if len(sniff.lines) < 2:
        raise StablefsError(f"{path}: has a header row of sample IDs but no gene rows.")
    n_fields = len(split_fields(sniff.lines[1], sep))
    if n_fields == len(header) + 1:
        sample_ids = header  # R write.table: no header cell above the gene IDs
        meta["row_names"] = True
    elif n_fields == len(header):
        sample_ids = header[1:]
    else:
        raise StablefsError(
            f"{path}: the header row has {len(header)} fields but the next row has {n_fields}: "
            "every row needs one value per column (gene ID, then one value per sample)."
        )
    if not sample_ids:
        raise StablefsError(f"{path}: has no sample columns (the header row has one field).")
    empty = [i + 2 for i, s in enumerate(sample_ids) if s == ""]
    if empty:
        raise StablefsError(
            f"{path}: {len(empty)} sample column(s) have no ID in the header row (column(s) "
            f"{name_list(empty)}): with transpose=True the header row holds the sample IDs."
        )
    if any(s.lower() == "label" for s in sample_ids) and not external:
        hint = f" (the header has a column {show('label')}: this is a samples × features file; " \
               "drop transpose=True)"
    else:
        hint = ""
    check_unique(sample_ids, str(path), what="sample IDs", unit="columns", offset=2,
                 hint="give every sample its own ID")
    n = len(sample_ids)
    target = "label" if label is None else label
    want = target.lower()
    label_rows: list[tuple[int, str]] = []

    def without_label_rows(fh):
        for i, line in enumerate(fh, start=sniff.skip):
            first = (line.split(None, 1) if sep is None else line.split(sep, 1))[:1]
            if first and first[0].strip().strip("\"'").lower() == want:
                label_rows.append((i, line.rstrip("\r\n")))
                continue
            yield line

    names_conv = _Collect()
    A = None
    if engine == "auto":
        A = _fast_read(path, sniff, without_label_rows, sep, {0: names_conv})
    if A is None:
        label_rows = [r for r in _find_label_rows(path, sniff, sep, target)[0]
                      if r[0] >= sniff.skip]
    if len(label_rows) > 1:
        raise StablefsError(
            f"{path}: duplicated label row: lines {name_list([r[0] + 1 for r in label_rows])} "
            f"are all named {show(target)} (in some letter case): keep one row of classes."
        )
    if external and label_rows:
        raise StablefsError(
            f"{path}: has its own class row {show(target)} (line {label_rows[0][0] + 1}) and "
            "labels= gives a sample sheet: use one source of classes."
        )
    if not external and not label_rows:
        what = f"row named {show(target)}"
        raise StablefsError(
            f"{path}: transpose=True, but no {what} holds the classes{hint}: add that row, name "
            f"it with label=NAME (CLI --label NAME), or give the classes in a sample sheet with "
            f"{LABELS_HINT}."
        )
    y_raw = None
    if label_rows:
        meta["label_row"] = label_rows[0][0] + 1
        cells = split_fields(label_rows[0][1], sep)
        values = cells[1:]
        if len(values) != n:
            raise StablefsError(
                f"{path}: the label row (line {label_rows[0][0] + 1}) has {len(values)} classes "
                f"for {n} samples: give one class per sample column."
            )
        y_raw = [None if v in NA_TOKENS else v for v in values]
    keep_samples = np.arange(n)
    if A is not None:
        meta["parser"] = "numpy"
        if A.shape[0] == 0:
            raise StablefsError(f"{path}: has no gene rows besides the header and label rows.")
        if A.shape[1] != n + 1:
            raise StablefsError(
                f"{path}: the header row names {n} samples but the gene rows have "
                f"{A.shape[1] - 1} values: every row needs one value per sample."
            )
        feature_names = names_conv.ordered(A[:, 0])
        X = np.ascontiguousarray(A[:, 1:].T)
        del A
    else:
        meta["parser"] = "pandas"
        X, feature_names, keep_samples = _pandas_transposed(
            path, sniff, sep, label_rows, sample_ids, options, meta
        )
    feature_names = [str(f).strip() for f in feature_names]
    blank = [i + 1 for i, f in enumerate(feature_names) if f == ""]
    if blank:
        raise StablefsError(
            f"{path}: {len(blank)} gene row(s) have no ID in the first column (data row(s) "
            f"{name_list(blank)}): name every row."
        )
    check_unique(feature_names, str(path), what="feature names (gene IDs in the first column)",
                 unit="data rows")
    sample_ids = [sample_ids[i] for i in keep_samples]
    y = None
    if y_raw is not None:
        y = check_labels([y_raw[i] for i in keep_samples], str(path), target, rows="samples")
    meta["transposed"] = True
    return finish(
        X,
        y,
        feature_names,
        where=str(path),
        name=file_stem(path),
        source=str(path),
        meta=meta,
        sample_names=sample_ids,
        labels=options.labels,
        missing=options.missing,
        label_column=target,
    )


def _pandas_transposed(path, sniff, sep, label_rows, sample_ids, options, meta):
    """The pandas path for genes × samples tables: diagnoses text cells."""
    skip = list(range(sniff.skip)) + [r[0] for r in label_rows]
    _check_pandas(path, sniff, len(sample_ids) + 1, transposed=True)
    df = read_csv(path, skiprows=skip, dtype={0: str}, **_pandas_kwargs(sniff, sep))
    n = len(sample_ids)
    if df.shape[0] == 0:
        raise StablefsError(f"{path}: has no gene rows besides the header and label rows.")
    if df.shape[1] != n + 1:
        raise StablefsError(
            f"{path}: the header row names {n} samples but the gene rows have {df.shape[1] - 1} "
            "values: every row needs one value per sample."
        )
    feature_names = df.iloc[:, 0].where(df.iloc[:, 0].notna(), "").astype(str).tolist()
    values = df.iloc[:, 1:].copy()
    values.columns = range(n)
    text_cols = [c for c, dt in zip(values.columns, values.dtypes) if dt.kind not in "iuf"]
    keep_samples = np.arange(n)
    if text_cols:
        coerced, bad = {}, {}
        for c in text_cols:
            numbers, text = coerce_text(values[c])
            coerced[c] = pd.Series(numbers, index=values.index)
            bad[c] = pd.Series(text, index=values.index)
        annotation = [c for c in text_cols if bad[c].sum() > 0 and bad[c].sum() ==
                      values[c].notna().sum()]
        if annotation:
            shown = [sample_ids[c] for c in annotation]
            if not options.drop_nominal:
                raise StablefsError(
                    f"{path}: {len(annotation)} column(s) hold text, not measurements "
                    f"({name_list(shown)}): with transpose=True every column after the first "
                    f"must be a sample; remove them, or pass {DROP_NOMINAL_HINT} to drop them."
                )
            meta["dropped_non_sample_columns"] = shown
            warn(
                f"{path}: dropped {len(annotation)} text column(s) ({name_list(shown)}) that are "
                "not samples (drop_nominal=True); listed in "
                "Dataset.meta['dropped_non_sample_columns']."
            )
            values = values.drop(columns=annotation)
            keep_samples = np.asarray([c for c in range(n) if c not in set(annotation)])
            text_cols = [c for c in text_cols if c not in set(annotation)]
        if text_cols:
            rows_bad = np.zeros(values.shape[0], dtype=bool)
            for c in text_cols:
                rows_bad |= bad[c].to_numpy()
            bad_rows = np.flatnonzero(rows_bad)
            if bad_rows.size:
                r0 = bad_rows[0]
                c0 = next(c for c in text_cols if bad[c].iloc[r0])
                shown = [feature_names[r] for r in bad_rows]
                if not options.drop_nominal:
                    raise StablefsError(
                        f"{path}: non-numeric values in {bad_rows.size} gene row(s) "
                        f"({name_list(shown)}) (e.g. {show(values[c0].iloc[r0])} in row "
                        f"{feature_names[r0]}, sample {sample_ids[c0]}): features must be "
                        f"numbers: fix the file, or pass {DROP_NOMINAL_HINT} to drop those rows."
                    )
                meta["dropped_columns"] = shown  # non-numeric features, as in the other layout
                warn(
                    f"{path}: dropped {bad_rows.size} gene row(s) with text values "
                    f"({name_list(shown)}) (drop_nominal=True); listed in "
                    "Dataset.meta['dropped_columns']."
                )
                keep_rows = ~rows_bad
                values = values.loc[keep_rows]
                feature_names = [f for f, k in zip(feature_names, keep_rows) if k]
            for c in text_cols:
                values[c] = coerced[c][values.index]
    X = np.ascontiguousarray(values.to_numpy(dtype=np.float64).T)
    return X, feature_names, keep_samples
