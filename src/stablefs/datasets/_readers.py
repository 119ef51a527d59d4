"""Readers for the data-file formats that :func:`stablefs.datasets.load` accepts.

Every reader returns a :class:`~stablefs.datasets.Dataset` whose ``X`` is a C-contiguous float64
matrix (samples × features) and whose ``y`` is a NumPy array of ``str`` labels. Bad input is
reported as one :class:`~stablefs.StablefsError` line that names the file and the problem
(``docs/DESIGN.md``, "Errors"); exceptions of pandas, NumPy, gzip or zipfile never escape.

Formats
-------
``.csv`` / ``.tsv`` / ``.txt`` (each optionally ``.gz``)
    One row per sample. See :func:`read_table` for the header and label rules.
``.arff`` (optionally ``.gz``)
    Weka's attribute-relation format, read by a small reader of our own (:func:`read_arff`).
``.npz``
    Arrays ``X`` (2-D numeric), ``y`` (1-D) and optionally ``feature_names``.
``.h5ad``
    AnnData files, only when the optional ``anndata`` package is installed.

Nominal (non-numeric) feature columns and missing values are never fixed silently: they are
refused with one line that names them, unless the caller asks for ``drop_nominal=True`` /
``encode_nominal=True`` / ``drop_missing=True``; what was dropped or encoded is then recorded in
``Dataset.meta`` and announced with :func:`warnings.warn`.
"""

from __future__ import annotations

import csv
import gzip
import re
import sys
import warnings
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from stablefs._errors import StablefsError
from stablefs.datasets._dataset import Dataset

TABLE_SEPARATORS = {".csv": ",", ".tsv": "\t", ".txt": None}
SUPPORTED = ".csv, .tsv, .txt (each optionally .gz), .arff, .npz, .h5ad"

_GZIP_MAGIC = b"\x1f\x8b"
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_MISSING_TOKENS = {"", "na", "nan", "n/a", "null", "?", "none"}

_DROP_NOMINAL_HINT = "drop_nominal=True (CLI --drop-nominal)"
_ENCODE_NOMINAL_HINT = "encode_nominal=True (CLI --encode-nominal)"
_DROP_MISSING_HINT = "drop_missing=True (CLI --drop-missing)"


# --------------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------------


def name_list(names, k: int = 5) -> str:
    """``"a, b, c, d, e and 7 more"``: the first ``k`` names and how many are left."""
    names = [str(n) for n in names]
    if len(names) <= k:
        return ", ".join(names)
    return f"{', '.join(names[:k])} and {len(names) - k} more"


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


_PACKAGE_DIR = str(Path(__file__).resolve().parent)


def _warn(message: str) -> None:
    """``warnings.warn`` attributed to the first caller outside ``stablefs.datasets``."""
    level = 2  # stacklevel 1 is this function, 2 its caller
    frame = sys._getframe(1)
    while frame is not None and str(Path(frame.f_code.co_filename).resolve().parent) == (
        _PACKAGE_DIR
    ):
        frame = frame.f_back
        level += 1
    warnings.warn(" ".join(message.split()), UserWarning, stacklevel=level)


def _read_head(path: Path, gz: bool, nbytes: int = 65536) -> bytes:
    """First ``nbytes`` of the (decompressed) file; a bad gzip stream is a StablefsError."""
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
    try:
        if magic == _GZIP_MAGIC:
            with gzip.open(path, "rb") as fh:
                return fh.read(nbytes)
        with open(path, "rb") as fh:
            return fh.read(nbytes)
    except (OSError, EOFError, zlib.error) as exc:
        raise StablefsError(
            f"{path}: is a corrupt or truncated gzip file ({exc}): download or export it again."
        ) from None


def _decode_head(path: Path, head: bytes) -> str:
    """Decode the start of a text file; binary content is a StablefsError."""
    if b"\x00" in head:
        raise StablefsError(
            f"{path}: is not a text table (it contains binary data): expected {SUPPORTED}."
        )
    try:
        return head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start >= len(head) - 4:  # a multi-byte character cut by the sample boundary
            return head[: exc.start].decode("utf-8")
        control = sum(1 for b in head if b < 32 and b not in (9, 10, 13, 12))
        if control > 0.05 * max(1, len(head)):
            raise StablefsError(
                f"{path}: is not a text table (it contains binary data): expected {SUPPORTED}."
            ) from None
        return head.decode("latin-1")


def _is_gz(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(2) == _GZIP_MAGIC
    except OSError:
        return False


def _encoding_of(head: bytes) -> str:
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:
            return "latin-1"
    return "utf-8"


# --------------------------------------------------------------------------------------------
# common checks on the feature matrix
# --------------------------------------------------------------------------------------------


def _finish_matrix(
    X: np.ndarray,
    y: np.ndarray,
    names: np.ndarray,
    *,
    path: Path,
    drop_missing: bool,
    meta: dict,
    missing_word: str = "missing values",
    groups: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Refuse or drop samples with missing values; refuse infinite values.

    ``groups`` (one name per column, e.g. the ARFF attribute an indicator column encodes) is
    what the messages name; by default the column names.
    """
    if X.shape[1] == 0:
        raise StablefsError(f"{path}: has no feature columns besides the label.")
    nan = np.isnan(X)
    if nan.any():
        bad_cols = np.flatnonzero(nan.any(axis=0))
        bad_rows = np.flatnonzero(nan.any(axis=1))
        shown = list(dict.fromkeys((names if groups is None else groups)[bad_cols].tolist()))
        what = f"{missing_word} in {len(shown)} feature column(s) ({name_list(shown)})"
        if not drop_missing:
            raise StablefsError(
                f"{path}: {what}, in {len(bad_rows)} of {X.shape[0]} samples: impute them "
                f"first, or pass {_DROP_MISSING_HINT} to drop those samples."
            )
        keep = ~nan.any(axis=1)
        if not keep.any():
            raise StablefsError(
                f"{path}: {what}: every sample has a missing value, so dropping them "
                "leaves nothing; impute the values instead."
            )
        X, y = X[keep], y[keep]
        meta["dropped_samples"] = bad_rows.tolist()
        meta["n_dropped_samples"] = int(bad_rows.size)
        _warn(
            f"{path}: dropped {bad_rows.size} of {nan.shape[0]} samples with {what} "
            "(drop_missing=True); their row numbers are in Dataset.meta['dropped_samples']."
        )
    if not np.isfinite(X).all():
        bad_cols = np.flatnonzero(~np.isfinite(X).all(axis=0))
        raise StablefsError(
            f"{path}: infinite values in {len(bad_cols)} feature column(s) "
            f"({name_list(names[bad_cols])}): replace them with finite numbers."
        )
    return np.ascontiguousarray(X, dtype=np.float64), y


def _check_labels(labels, path: Path, column: str) -> np.ndarray:
    """Labels as a NumPy ``str`` array; missing labels are an error."""
    s = pd.Series(labels)
    missing = s.isna().to_numpy()
    if missing.any():
        rows = np.flatnonzero(missing)
        raise StablefsError(
            f"{path}: the label column {column!r} has {rows.size} missing value(s) (data rows "
            f"{name_list(rows.tolist())}): give every sample a class or remove those rows."
        )
    return np.asarray([str(v) for v in s.tolist()], dtype=str)


# --------------------------------------------------------------------------------------------
# CSV / TSV / TXT
# --------------------------------------------------------------------------------------------


def _split_line(line: str, sep: str | None) -> list[str]:
    if sep is None:
        return line.split()
    return next(csv.reader([line], delimiter=sep), [])


def _looks_like_data(fields: list[str], skip: int = -1) -> bool:
    """True when the first row is data, not a header (see :func:`read_table`).

    ``skip`` is the position of the class column, which may hold any text.
    """
    if len(fields) < 2:
        return False
    skip %= len(fields)
    body = [f.strip().strip("\"'") for i, f in enumerate(fields) if i != skip]
    numbers = sum(bool(_NUMBER.match(f)) for f in body)
    missing = sum(f.lower() in _MISSING_TOKENS for f in body)
    return numbers + missing == len(body) and numbers >= max(1, len(body) // 2)


def _as_position(label) -> int | None:
    """``label`` as a column position (an int, or text such as ``"0"`` / ``"-1"``), else None."""
    if label is None or isinstance(label, bool):
        return None
    if isinstance(label, int):
        return label
    text = str(label).strip()
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    return None


def _guess_separator(first_line: str, suffix: str) -> str | None:
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


def _resolve_position(label, n_cols: int, path: Path) -> int:
    try:
        pos = int(label)
    except (TypeError, ValueError):
        raise StablefsError(
            f"{path}: has no header row (its first line is numbers), so label= (--label) must "
            f"be a column position such as 0 or -1, not {label!r}."
        ) from None
    if not -n_cols <= pos < n_cols:
        raise StablefsError(
            f"{path}: label column position {pos} is outside the {n_cols} columns of the file."
        )
    return pos % n_cols


def _read_csv(path: Path, **kwargs) -> pd.DataFrame:
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


def _non_numeric(frame: pd.DataFrame) -> list:
    """Columns that are not int/uint/float (bool and text columns are non-numeric)."""
    return [
        c for c, dt in zip(frame.columns, frame.dtypes) if getattr(dt, "kind", "O") not in "iuf"
    ]


def _example_value(series: pd.Series) -> str:
    values = series.dropna()
    converted = pd.to_numeric(values, errors="coerce")
    bad = values[converted.isna()]
    return str(bad.iloc[0]) if len(bad) else ""


def read_table(
    path: Path,
    *,
    label=None,
    drop_nominal: bool = False,
    drop_missing: bool = False,
    encode_nominal: bool = False,
) -> Dataset:
    """Read a delimited text table (``.csv``, ``.tsv``, ``.txt``, optionally gzip-compressed).

    Parameters
    ----------
    path : Path
        The file. Compression is recognised from the content (gzip magic bytes); a name ending
        in ``.gz`` that is not gzip data is an error.
    label : str or int, optional
        The class column. By default the column named ``label`` (exact name, else the single
        column whose name is ``label`` in any letter case). For a headerless file, a column
        position (default: the last column).
    drop_nominal : bool
        Drop non-numeric feature columns (recorded in ``meta["dropped_columns"]``, with a
        warning) instead of refusing the file.
    drop_missing : bool
        Drop samples with a missing feature value (recorded in ``meta["dropped_samples"]``,
        with a warning) instead of refusing the file.
    encode_nominal : bool
        Ignored for text tables: their non-numeric columns have no declared set of values
        (use ``drop_nominal``, or encode them yourself). Accepted so that every reader takes
        the same options.

    Returns
    -------
    Dataset

    Notes
    -----
    *Separator*: ``,`` for ``.csv`` (``;`` when the first line has semicolons but no commas),
    tab for ``.tsv``; for ``.txt`` a tab if the first line has one, else a comma if it has one,
    else runs of whitespace.

    *Header detection*: the file is taken to have **no header row** when every field of its
    first line except the class field (the last one, or the position given by ``label``)
    parses as a number (fields that read as missing, such as ``NA`` or empty, are allowed, but
    at least half must be numbers) and no field is ``label`` or the name given by ``label``.
    Then the features are named ``f0 … f{p-1}`` and the class is the last column (or the
    position given by ``label``), as in the UCI sonar file (60 numbers and ``R``/``M``). A
    header made only of numbers cannot be told from data and is read as data.
    Otherwise the first line is the header. A header whose first cell is empty (a pandas index
    written by ``to_csv``) makes that first column a row index, which is dropped with a warning.

    The label column is read as text (so ``"01"`` stays ``"01"``); the remaining columns must be
    numeric.
    """
    suffix, gz = split_suffix(path)
    head = _read_head(path, gz)
    text = _decode_head(path, head)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise StablefsError(f"{path}: is empty (no header and no data rows).")
    first = lines[0].lstrip("\ufeff")
    sep = _guess_separator(first, suffix)
    fields = _split_line(first, sep)
    n_cols = len(fields)
    stripped = [f.strip() for f in fields]
    position = _as_position(label)
    label_name = None if label is None or position is not None else str(label)
    skip = position if position is not None and -n_cols <= position < n_cols else -1
    headerless = _looks_like_data(fields, skip) and not any(
        f.lower() == "label" or f == label_name for f in stripped
    )
    compression = "gzip" if _is_gz(path) else None
    kwargs = {
        "sep": r"\s+" if sep is None else sep,
        "compression": compression,
        "encoding": _encoding_of(head),
        "low_memory": False,
    }
    meta: dict = {"format": suffix.lstrip(".") + (".gz" if compression else "")}

    if headerless:
        pos = n_cols - 1 if label is None else _resolve_position(label, n_cols, path)
        df = _read_csv(path, header=None, dtype={pos: str}, **kwargs)
        if df.shape[1] != n_cols:
            raise StablefsError(
                f"{path}: rows have different numbers of fields ({n_cols} in the first row, "
                f"{df.shape[1]} overall)."
            )
        label_col = f"column {pos}"
        names = [f"f{i}" for i in range(n_cols - 1)]
        df.columns = names[:pos] + [label_col] + names[pos:]
        meta["headerless"] = True
        meta["label_column"] = pos
    else:
        meta["headerless"] = False
        if label is not None and not isinstance(label, str):
            raise StablefsError(
                f"{path}: has a header row, so label= (--label) must be a column name, not "
                f"{label!r}."
            )
        if label is None:
            exact = [f for f in stripped if f == "label"]
            loose = [f for f in stripped if f.lower() == "label"]
            label_col = exact[0] if exact else (loose[0] if len(loose) == 1 else None)
        else:
            label_col = label if label in stripped else None
            if label_col is None:
                loose = [f for f in stripped if f.lower() == label.lower()]
                label_col = loose[0] if len(loose) == 1 else None
        if label_col is None:
            sample = _read_csv(path, header=0, nrows=50, **kwargs)
            sample.columns = [str(c).strip() for c in sample.columns]
            candidates = _non_numeric(sample)
            if candidates:
                hint = f"non-numeric columns that could be the label: {name_list(candidates)}"
            else:
                hint = (
                    f"every column is numeric (first: {name_list(list(sample.columns), 3)}; "
                    f"last: {sample.columns[-1]})"
                )
            missing = (
                f"has no column {label!r}"
                if label is not None
                else "has a header row but no column named 'label'"
            )
            raise StablefsError(
                f"{path}: {missing}; {hint}; name the class column with label=NAME (CLI "
                "--label NAME)."
            )
        dtype = {fields[stripped.index(label_col)]: str}  # the raw header cell
        df = _read_csv(path, header=0, dtype=dtype, **kwargs)
        df.columns = [str(c).strip() for c in df.columns]
        if stripped and stripped[0] == "" and df.shape[1] > 1:
            df = df.drop(columns=[df.columns[0]])
            meta["dropped_index_column"] = True
            _warn(
                f"{path}: the first column has no name in the header row; it is taken as a "
                "row index (as written by pandas to_csv) and not used as a feature."
            )

    if df.shape[0] == 0:
        raise StablefsError(f"{path}: has a header row but no data rows.")
    y = _check_labels(df.pop(label_col), path, str(label_col))
    feats = df  # the label column was popped: no copy of the (wide) feature block
    bad = _non_numeric(feats)
    if bad:
        bad_names = [str(c) for c in bad]
        example = _example_value(feats[bad[0]])
        eg = f" (e.g. value {example!r} in {bad_names[0]})" if example else ""
        if not drop_nominal:
            extra = (
                ""
                if headerless
                else " name the class column with label=NAME (CLI --label) if it is one of them,"
            )
            raise StablefsError(
                f"{path}: {len(bad)} non-numeric feature column(s): {name_list(bad_names)}{eg}; "
                f"features must be numbers:{extra} fix the file, or pass {_DROP_NOMINAL_HINT} "
                "to drop those columns."
            )
        if len(bad) == feats.shape[1]:
            raise StablefsError(
                f"{path}: all {feats.shape[1]} feature columns are non-numeric, so dropping "
                "them leaves no features."
            )
        feats = feats.drop(columns=bad)
        meta["dropped_columns"] = bad_names
        _warn(
            f"{path}: dropped {len(bad)} non-numeric feature column(s) "
            f"({name_list(bad_names)}) (drop_nominal=True); listed in "
            "Dataset.meta['dropped_columns']."
        )
    feature_names = np.asarray([str(c) for c in feats.columns], dtype=str)
    try:
        X = feats.to_numpy(dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise StablefsError(f"{path}: feature values are not numbers ({exc}).") from None
    X, y = _finish_matrix(X, y, feature_names, path=path, drop_missing=drop_missing, meta=meta)
    return Dataset(
        X=X,
        y=y,
        feature_names=feature_names,
        name=file_stem(path),
        source=str(path),
        meta=meta,
    )


# --------------------------------------------------------------------------------------------
# ARFF
# --------------------------------------------------------------------------------------------


def _split_arff(line: str) -> list[tuple[str, bool]]:
    """Split an ARFF value list on commas, honouring ``'`` / ``"`` quotes and ``\\`` escapes.

    Returns ``(value, quoted)`` pairs; unquoted values are stripped of surrounding blanks.
    """
    if "'" not in line and '"' not in line:
        return [(t.strip(), False) for t in line.split(",")]
    out: list[tuple[str, bool]] = []
    plain: list[str] = []
    inner: list[str] = []
    quote = None
    quoted = False
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if quote is not None:
            if ch == "\\" and i + 1 < n:
                inner.append(line[i + 1])
                i += 2
                continue
            if ch == quote:
                quote = None
            else:
                inner.append(ch)
        elif ch in "'\"":
            quote, quoted = ch, True
        elif ch == ",":
            out.append(("".join(inner), True) if quoted else ("".join(plain).strip(), False))
            plain, inner, quoted = [], [], False
        else:
            plain.append(ch)
        i += 1
    if quote is not None:
        raise ValueError("unclosed quote")
    out.append(("".join(inner), True) if quoted else ("".join(plain).strip(), False))
    return out


def _take_name(rest: str) -> tuple[str, str]:
    """Split ``'my name' numeric`` into (name, remainder), honouring quotes."""
    rest = rest.strip()
    if rest[:1] in ("'", '"'):
        q = rest[0]
        end = 1
        while end < len(rest):
            if rest[end] == "\\":
                end += 2
                continue
            if rest[end] == q:
                break
            end += 1
        if end >= len(rest):
            raise ValueError("unclosed quote in attribute name")
        return rest[1:end].replace("\\" + q, q), rest[end + 1 :].strip()
    parts = rest.split(None, 1)
    if len(parts) < 2:
        return parts[0] if parts else "", ""
    # a bare name may be followed directly by {...}
    if "{" in parts[0]:
        name, brace = parts[0].split("{", 1)
        return name, "{" + brace + " " + parts[1]
    return parts[0], parts[1].strip()


def _parse_arff(path: Path, text: str):
    relation = ""
    attrs: list[tuple[str, str, list[str] | None]] = []
    rows: list[list[str | None]] = []
    lines = text.splitlines()
    in_data = False
    for lineno, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        if not in_data:
            low = line.lower()
            if low.startswith("@relation"):
                relation = line[len("@relation") :].strip().strip("'\"")
            elif low.startswith("@attribute"):
                try:
                    name, typ = _take_name(line[len("@attribute") :])
                except (ValueError, IndexError):
                    raise StablefsError(
                        f"{path}: line {lineno}: cannot read the @attribute declaration."
                    ) from None
                if not name or not typ:
                    raise StablefsError(
                        f"{path}: line {lineno}: @attribute needs a name and a type."
                    )
                if typ.startswith("{"):
                    body = typ[1 : typ.rfind("}")] if "}" in typ else None
                    if body is None:
                        raise StablefsError(
                            f"{path}: line {lineno}: nominal attribute {name!r} has no "
                            "closing '}'."
                        )
                    try:
                        values = [v for v, _ in _split_arff(body)]
                    except ValueError:
                        raise StablefsError(
                            f"{path}: line {lineno}: unclosed quote in the values of {name!r}."
                        ) from None
                    attrs.append((name, "nominal", values))
                else:
                    kind = typ.split()[0].lower()
                    if kind in ("numeric", "real", "integer"):
                        attrs.append((name, "numeric", None))
                    elif kind in ("string", "date"):
                        attrs.append((name, kind, None))
                    else:
                        raise StablefsError(
                            f"{path}: line {lineno}: attribute {name!r} has type {kind!r}, which "
                            "is not supported (numeric, real, integer, nominal {...}, string, "
                            "date are)."
                        )
            elif low.startswith("@data"):
                in_data = True
                if not attrs:
                    raise StablefsError(f"{path}: has no @attribute declarations before @data.")
            elif low.startswith("@end"):
                continue
            else:
                raise StablefsError(
                    f"{path}: line {lineno}: expected @relation, @attribute or @data, found "
                    f"{line[:40]!r}: is this an ARFF file?"
                )
            continue
        m = len(attrs)
        if line.startswith("{"):  # sparse row: {index value, ...}
            if not line.endswith("}"):
                raise StablefsError(f"{path}: line {lineno}: sparse row without closing '}}'.")
            row: list[str | None] = [
                "0" if kind != "nominal" else vals[0]  # type: ignore[index]
                for _, kind, vals in attrs
            ]
            body = line[1:-1].strip()
            try:
                entries = _split_arff(body) if body else []
                for entry, _q in entries:
                    idx_s, _, val = entry.strip().partition(" ")
                    idx = int(idx_s)
                    val = val.strip()
                    if val[:1] in ("'", '"'):
                        row[idx] = val[1:-1]
                    else:
                        row[idx] = None if val == "?" else val
            except (ValueError, IndexError):
                raise StablefsError(
                    f"{path}: line {lineno}: cannot read the sparse data row."
                ) from None
            rows.append(row)
            continue
        try:
            tokens = _split_arff(line)
        except ValueError:
            raise StablefsError(f"{path}: line {lineno}: unclosed quote in the data row.") from None
        if len(tokens) == m + 1 and tokens[-1][0].startswith("{"):
            tokens = tokens[:-1]  # an instance weight {w}; ignored
        if len(tokens) != m:
            raise StablefsError(
                f"{path}: line {lineno}: {len(tokens)} values, but {m} attributes are declared."
            )
        rows.append([None if (v == "?" and not q) else v for v, q in tokens])
    if not attrs:
        raise StablefsError(f"{path}: is not an ARFF file (no @attribute declarations).")
    if not in_data:
        raise StablefsError(f"{path}: has no @data section.")
    return relation, attrs, rows


def _find_attr(names: list[str], label, path: Path) -> int:
    if label is None:
        return len(names) - 1
    if isinstance(label, int) and not isinstance(label, bool):
        if not -len(names) <= label < len(names):
            raise StablefsError(
                f"{path}: label position {label} is outside the {len(names)} attributes."
            )
        return label % len(names)
    if label in names:
        return names.index(label)
    loose = [i for i, n in enumerate(names) if n.lower() == str(label).lower()]
    if len(loose) == 1:
        return loose[0]
    raise StablefsError(
        f"{path}: has no attribute {label!r}; attributes: {name_list(names, 8)}; name the class "
        "with label=NAME (CLI --label NAME)."
    )


def read_arff(
    path: Path,
    *,
    label=None,
    drop_nominal: bool = False,
    drop_missing: bool = False,
    encode_nominal: bool = False,
) -> Dataset:
    """Read a Weka ARFF file (optionally gzip-compressed) with a small reader of our own.

    Understood: ``@relation``; ``@attribute`` with ``numeric`` / ``real`` / ``integer``,
    nominal ``{a, 'b c', ...}``, ``string`` and ``date`` types; quoted names and values (``'``
    or ``"``, with ``\\`` escapes); ``%`` comment lines; ``?`` for a missing value; sparse rows
    ``{index value, ...}`` (omitted numeric values are 0); an optional trailing instance weight
    ``{w}`` (ignored).

    The class is the **last** attribute unless ``label=`` names another one (or gives its
    position). Its values are kept as text. Every other attribute is a feature and must be
    numeric:

    * nominal, string or date feature attributes are refused with one line naming them, unless
      ``drop_nominal=True`` (drop them) or ``encode_nominal=True`` (nominal attributes become
      0/1 indicator columns named ``attr=value``: one column for a two-valued attribute — the
      indicator of its second declared value, as Weka's NominalToBinary — and one per value
      otherwise; string/date attributes are still dropped only with ``drop_nominal``);
    * missing values (``?``) are refused, unless ``drop_missing=True`` drops the samples that
      have one. Nominal attributes are dropped/encoded *before* this check, so a ``?`` in a
      dropped attribute does not cost its sample.

    What was dropped or encoded is recorded in ``Dataset.meta`` (``dropped_columns``,
    ``encoded_columns``, ``dropped_samples``) and announced with a warning.
    """
    suffix, gz = split_suffix(path)
    head = _read_head(path, gz)
    _decode_head(path, head)
    try:
        if _is_gz(path):
            with gzip.open(path, "rb") as fh:
                raw = fh.read()
        else:
            raw = path.read_bytes()
    except (OSError, EOFError, zlib.error) as exc:
        raise StablefsError(f"{path}: is corrupt or truncated ({exc}).") from None
    if not raw.strip():
        raise StablefsError(f"{path}: is empty.")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    relation, attrs, rows = _parse_arff(path, text.lstrip("\ufeff"))
    if not rows:
        raise StablefsError(f"{path}: has no data rows after @data.")
    names = [a[0] for a in attrs]
    li = _find_attr(names, label, path)
    table = np.empty((len(rows), len(attrs)), dtype=object)
    table[:] = rows
    y = _check_labels(table[:, li], path, names[li])
    meta: dict = {"format": "arff" + (".gz" if gz else ""), "relation": relation}

    features = [i for i in range(len(attrs)) if i != li]
    if not features:
        raise StablefsError(f"{path}: has only the class attribute, no features.")
    nominal = [i for i in features if attrs[i][1] == "nominal"]
    other = [i for i in features if attrs[i][1] in ("string", "date")]
    non_numeric = nominal + other
    col_missing = [i for i in features if any(v is None for v in table[:, i])]
    if non_numeric and not (drop_nominal or (encode_nominal and not other)):
        nm = [names[i] for i in non_numeric]
        kinds = "nominal" if not other else "non-numeric (nominal, string or date)"
        msg = f"{path}: {len(nm)} {kinds} feature attribute(s) ({name_list(nm)})"
        rows_missing = int(
            np.sum([any(v is None for v in table[r, features]) for r in range(table.shape[0])])
        )
        if col_missing:
            mm = [names[i] for i in col_missing]
            msg += f" and missing values ('?') in {len(mm)} attribute(s) ({name_list(mm)})"
        msg += f": stablefs needs numeric features; pass {_DROP_NOMINAL_HINT} to drop them"
        if nominal and not other:
            msg += f" or {_ENCODE_NOMINAL_HINT} to turn them into 0/1 indicator columns"
        if col_missing:
            msg += (
                f", and {_DROP_MISSING_HINT} to drop the {rows_missing} samples with missing values"
            )
        raise StablefsError(msg + ".")

    columns: list[np.ndarray] = []
    col_names: list[str] = []
    col_groups: list[str] = []
    dropped: list[str] = []
    encoded: list[str] = []
    for i in features:
        name, kind, values = attrs[i]
        col = table[:, i]
        if kind == "numeric":
            try:
                columns.append(
                    np.array([np.nan if v is None else float(v) for v in col], dtype=np.float64)
                )
            except ValueError:
                bad = next(v for v in col if v is not None and not _is_float(v))
                raise StablefsError(
                    f"{path}: attribute {name!r} is declared numeric but has the value {bad!r}."
                ) from None
            col_names.append(name)
            col_groups.append(name)
        elif kind == "nominal" and encode_nominal and not drop_nominal:
            assert values is not None
            unknown = sorted({v for v in col if v is not None and v not in values})
            if unknown:
                raise StablefsError(
                    f"{path}: attribute {name!r} has value(s) {name_list(unknown, 3)} that are "
                    f"not among its declared values {{{', '.join(values)}}}."
                )
            levels = values[1:2] if len(values) == 2 else values
            for level in levels:
                columns.append(np.array([np.nan if v is None else float(v == level) for v in col]))
                col_names.append(f"{name}={level}")
                col_groups.append(name)
            encoded.append(name)
        else:
            dropped.append(name)
    if not columns:
        raise StablefsError(
            f"{path}: all {len(features)} feature attributes are nominal, so dropping them "
            f"leaves no features; pass {_ENCODE_NOMINAL_HINT} to use 0/1 indicator columns "
            "instead."
        )
    if dropped:
        meta["dropped_columns"] = dropped
        _warn(
            f"{path}: dropped {len(dropped)} non-numeric feature attribute(s) "
            f"({name_list(dropped)}) (drop_nominal=True); listed in "
            "Dataset.meta['dropped_columns']."
        )
    if encoded:
        meta["encoded_columns"] = encoded
        _warn(
            f"{path}: encoded {len(encoded)} nominal attribute(s) ({name_list(encoded)}) as "
            f"{sum(1 for c in col_names if '=' in c)} 0/1 indicator columns "
            "(encode_nominal=True); listed in Dataset.meta['encoded_columns']."
        )
    X = np.column_stack(columns)
    feature_names = np.asarray(col_names, dtype=str)
    X, y = _finish_matrix(
        X,
        y,
        feature_names,
        path=path,
        drop_missing=drop_missing,
        meta=meta,
        missing_word="missing values ('?')",
        groups=np.asarray(col_groups, dtype=str),
    )
    return Dataset(
        X=X,
        y=y,
        feature_names=feature_names,
        name=file_stem(path),
        source=str(path),
        meta=meta,
    )


def _is_float(v: str) -> bool:
    try:
        float(v)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# NPZ
# --------------------------------------------------------------------------------------------


def read_npz(path: Path, *, label=None, drop_missing: bool = False, **_ignored) -> Dataset:
    """Read a NumPy ``.npz`` archive with arrays ``X``, ``y`` and optional ``feature_names``.

    ``label=`` names the array holding the classes (default ``y``). Object (pickled) arrays
    are refused. Labels are converted to ``str`` like those of every other file format.
    """
    ykey = "y" if label is None else str(label)
    try:
        with np.load(path, allow_pickle=False) as z:
            keys = list(z.files)
            if "X" not in keys or ykey not in keys:
                raise StablefsError(
                    f"{path}: an .npz file needs arrays 'X' and {ykey!r}; it has "
                    f"{name_list(keys) or 'none'}."
                )
            X = z["X"]
            yy = z[ykey]
            names = z["feature_names"] if "feature_names" in keys else None
    except StablefsError:
        raise
    except ValueError as exc:
        if "allow_pickle" in str(exc) or "pickle" in str(exc):
            raise StablefsError(
                f"{path}: stores Python objects (pickled arrays), which are not loaded for "
                "safety: save X, y and feature_names as plain numeric/string arrays."
            ) from None
        raise StablefsError(f"{path}: is not a valid .npz archive ({exc}).") from None
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error, KeyError) as exc:
        raise StablefsError(f"{path}: is not a valid .npz archive ({exc}).") from None
    if X.ndim != 2:
        raise StablefsError(
            f"{path}: array 'X' must be 2-D (samples × features), it has shape {X.shape}."
        )
    if X.dtype.kind not in "biuf":
        raise StablefsError(f"{path}: array 'X' is not numeric (dtype {X.dtype}).")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise StablefsError(f"{path}: array 'X' is empty (shape {X.shape}).")
    yy = np.asarray(yy)
    if yy.ndim != 1 or yy.shape[0] != X.shape[0]:
        raise StablefsError(
            f"{path}: array {ykey!r} must be 1-D with one label per row of X ({X.shape[0]}), "
            f"it has shape {yy.shape}."
        )
    if yy.dtype.kind == "f" and np.isnan(yy).any():
        yy = yy.astype(object)
        yy[np.isnan(yy.astype(float))] = None
    y = _check_labels(yy.tolist(), path, ykey)
    if names is None:
        feature_names = np.asarray([f"f{i}" for i in range(X.shape[1])], dtype=str)
    else:
        feature_names = np.asarray(names).astype(str).ravel()
        if feature_names.shape[0] != X.shape[1]:
            raise StablefsError(
                f"{path}: 'feature_names' has {feature_names.shape[0]} entries for "
                f"{X.shape[1]} columns of X."
            )
    meta: dict = {"format": "npz"}
    X, y = _finish_matrix(
        X.astype(np.float64), y, feature_names, path=path, drop_missing=drop_missing, meta=meta
    )
    return Dataset(
        X=X, y=y, feature_names=feature_names, name=file_stem(path), source=str(path), meta=meta
    )


# --------------------------------------------------------------------------------------------
# H5AD
# --------------------------------------------------------------------------------------------


def read_h5ad(path: Path, *, label=None, drop_missing: bool = False, **_ignored) -> Dataset:
    """Read an AnnData ``.h5ad`` file (needs the optional ``anndata`` package).

    The class is the ``obs`` column named by ``label=`` (default ``label``); features are the
    ``var_names``; a sparse ``X`` is densified.
    """
    try:
        import anndata  # noqa: PLC0415
    except ImportError:
        raise StablefsError(
            f"{path}: reading .h5ad files needs the optional anndata package: "
            "pip install anndata (or pip install stablefs[anndata])."
        ) from None
    try:
        adata = anndata.read_h5ad(path)
    except Exception as exc:  # noqa: BLE001 - h5py raises many types
        raise StablefsError(f"{path}: is not a readable .h5ad file ({exc}).") from None
    key = "label" if label is None else str(label)
    if key not in adata.obs.columns:
        cols = [str(c) for c in adata.obs.columns]
        raise StablefsError(
            f"{path}: obs has no column {key!r}; obs columns: {name_list(cols) or 'none'}; "
            "name the class column with label=NAME (CLI --label NAME)."
        )
    X = adata.X
    if hasattr(X, "toarray"):
        X = X.toarray()
    X = np.asarray(X, dtype=np.float64)
    y = _check_labels(adata.obs[key].astype(object).where(adata.obs[key].notna(), None), path, key)
    feature_names = np.asarray(adata.var_names, dtype=str)
    meta: dict = {"format": "h5ad"}
    X, y = _finish_matrix(X, y, feature_names, path=path, drop_missing=drop_missing, meta=meta)
    return Dataset(
        X=X, y=y, feature_names=feature_names, name=file_stem(path), source=str(path), meta=meta
    )


# --------------------------------------------------------------------------------------------
# dispatch
# --------------------------------------------------------------------------------------------


def read_file(
    path: Path,
    *,
    label=None,
    drop_nominal: bool = False,
    drop_missing: bool = False,
    encode_nominal: bool = False,
) -> Dataset:
    """Read ``path`` with the reader of its extension (see the module docstring)."""
    path = Path(path)
    suffix, gz = split_suffix(path)
    kwargs = {
        "label": label,
        "drop_nominal": drop_nominal,
        "drop_missing": drop_missing,
        "encode_nominal": encode_nominal,
    }
    if suffix in TABLE_SEPARATORS:
        return read_table(path, **kwargs)
    if suffix == ".arff":
        return read_arff(path, **kwargs)
    if suffix == ".npz" and not gz:
        return read_npz(path, **kwargs)
    if suffix == ".h5ad" and not gz:
        return read_h5ad(path, **kwargs)
    shown = path.name[len(file_stem(path)) :] or "(none)"
    raise StablefsError(f"{path}: unknown file type {shown!r}: stablefs reads {SUPPORTED}.")
