"""Readers for the data-file formats that :func:`stablefs.datasets.load` accepts.

Every reader returns a :class:`~stablefs.datasets.Dataset` whose ``X`` is a C-contiguous float64
matrix (samples × features), whose ``y`` is a NumPy array of ``str`` labels and whose
``sample_names`` are the samples' IDs. Bad input is reported as one
:class:`~stablefs.StablefsError` line that names the file and the problem (``docs/DESIGN.md``,
"Errors"); exceptions of pandas, NumPy, gzip or zipfile never escape. The last steps (labels
from a sample sheet, missing values, the load-time checks) are shared by every format
(:mod:`stablefs.datasets._finish`).

Formats
-------
``.csv`` / ``.tsv`` / ``.txt`` (each optionally ``.gz``)
    One row per sample, or one row per gene with ``transpose=True``; see
    :func:`stablefs.datasets._table.read_table` for the header, label and sample-ID rules.
``.arff`` (optionally ``.gz``)
    Weka's attribute-relation format, read by a small reader of our own (:func:`read_arff`).
    ``scipy.io.arff`` cannot replace it: it refuses sparse rows (``{0 1.5, 2 v}``) and string
    attributes, and its errors name no line (a row with too few values reads as "could not
    convert string to float: 'x'", a missing ``@data`` section as an empty ``StopIteration``).
    liac-arff would be a new dependency for a format this package reads rarely.
``.npz``
    Arrays ``X`` (2-D numeric), ``y`` (1-D) and optionally ``feature_names`` and
    ``sample_names``.
``.h5ad``
    AnnData files, only when the optional ``anndata`` package is installed.

Nominal (non-numeric) feature columns and missing values are never fixed silently: they are
refused with one line that names them, unless the caller asks for ``drop_nominal=True`` /
``encode_nominal=True`` / ``missing=...``; what was dropped or encoded is then recorded in
``Dataset.meta`` and announced on the ``"stablefs"`` logger (``logging.getLogger("stablefs")``).
"""

from __future__ import annotations

import gzip
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from stablefs._errors import StablefsError
from stablefs.datasets._dataset import Dataset
from stablefs.datasets._finish import (
    DROP_MISSING_HINT,
    check_labels,
    check_unique,
    finish,
    missing_mode,
    name_list,
    show,
    warn,
)
from stablefs.datasets._h5ad import check_h5ad_sizes
from stablefs.datasets._inmemory import DEFAULT_MAX_DENSE_BYTES, read_anndata
from stablefs.datasets._limits import check_fits, finish_bytes, scan_text_values
from stablefs.datasets._table import (
    SUPPORTED,
    TABLE_SEPARATORS,
    decode_head,
    file_stem,
    is_gzip,
    read_head,
    read_table,
    split_suffix,
)

__all__ = [
    "SUPPORTED",
    "TABLE_SEPARATORS",
    "ReadOptions",
    "file_stem",
    "name_list",
    "read_arff",
    "read_file",
    "read_h5ad",
    "read_npz",
    "read_table",
    "split_suffix",
]

#: memory per value while an ARFF file is parsed (a Python string, its place in a row list
#: and in an object array, the float64 column and matrix), besides 3 bytes per byte of text
ARFF_BYTES_PER_VALUE = 90

_DROP_NOMINAL_HINT = "drop_nominal=True (CLI --drop-nominal)"
_ENCODE_NOMINAL_HINT = "encode_nominal=True (CLI --encode-nominal)"
_DROP_MISSING_HINT = DROP_MISSING_HINT


@dataclass(frozen=True)
class ReadOptions:
    """The reading options of :func:`stablefs.datasets.load`, validated, for every reader."""

    label: object = None
    labels: object = None
    drop_nominal: bool = False
    encode_nominal: bool = False
    missing: str = "refuse"
    transpose: bool = False
    layer: str | None = None
    feature_names: str | None = None
    max_dense_bytes: int = DEFAULT_MAX_DENSE_BYTES

    @classmethod
    def make(cls, *, drop_missing: bool = False, missing=None, **kwargs) -> ReadOptions:
        """Options from ``load``'s keywords; ``drop_missing=True`` is ``missing="drop-samples"``."""
        return cls(missing=missing_mode(missing, drop_missing), **kwargs)


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
                # every row becomes a list of one entry per declared attribute, even a sparse
                # row that lists none: rows x attributes is a declared size
                n_rows = len(lines) - lineno
                check_fits(n_rows * len(attrs) * 24, str(path),
                           f"{n_rows:,} rows of {len(attrs):,} declared attributes")
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


def read_arff(path: Path, options: ReadOptions) -> Dataset:
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
    * missing values (``?``) are refused, unless ``missing=`` says what to do (``drop_missing=True``
      drops the samples that have one). Nominal attributes are dropped/encoded *before* this
      check, so a ``?`` in a dropped attribute does not cost its sample.

    What was dropped or encoded is recorded in ``Dataset.meta`` (``dropped_columns``,
    ``encoded_columns``, ``dropped_samples``) and announced on the ``"stablefs"`` logger. ARFF
    files carry no sample IDs, so the samples are named ``s0 … s{n-1}`` and ``labels=`` (a
    sample sheet) cannot be joined.
    """
    label = options.label
    drop_nominal = options.drop_nominal
    encode_nominal = options.encode_nominal
    if options.labels is not None:
        raise StablefsError(
            f"{path}: labels= joins a sample sheet on sample IDs, which ARFF files do not have: "
            "put the class in the ARFF file (its last attribute, or name it with label=)."
        )
    suffix, gz = split_suffix(path)
    head = read_head(path, gz)
    decode_head(path, head)
    # the whole text, its lines and one Python string per value are held while parsing
    scan_text_values(path, is_gzip(path, gz), ",", bytes_per_value=ARFF_BYTES_PER_VALUE,
                     bytes_per_text_byte=3, what="reading this ARFF file")
    try:
        if is_gzip(path, gz):
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
    y = check_labels(list(table[:, li]), str(path), names[li])
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
        warn(
            f"{path}: dropped {len(dropped)} non-numeric feature attribute(s) "
            f"({name_list(dropped)}) (drop_nominal=True); listed in "
            "Dataset.meta['dropped_columns']."
        )
    if encoded:
        meta["encoded_columns"] = encoded
        warn(
            f"{path}: encoded {len(encoded)} nominal attribute(s) ({name_list(encoded)}) as "
            f"{sum(1 for c in col_names if '=' in c)} 0/1 indicator columns "
            "(encode_nominal=True); listed in Dataset.meta['encoded_columns']."
        )
    X = np.column_stack(columns)
    check_unique(col_names, str(path), what="attribute names", unit="features")
    return finish(
        X,
        y,
        np.asarray(col_names, dtype=str),
        where=str(path),
        name=file_stem(path),
        source=str(path),
        meta=meta,
        missing=options.missing,
        label_column=names[li],
        missing_word="missing values ('?')",
        groups=np.asarray(col_groups, dtype=str),
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


def npz_declared_arrays(path: Path) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """Shape and dtype of every array of an ``.npz`` archive, read from the ``.npy`` headers
    alone (:func:`numpy.lib.format.read_array_header_1_0` / ``_2_0``): nothing is allocated.
    A damaged archive or header is a one-line StablefsError."""
    from numpy.lib import format as npy

    out: dict[str, tuple[tuple[int, ...], np.dtype]] = {}
    try:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                if not info.filename.endswith(".npy"):
                    continue
                with zf.open(info) as fh:
                    version = npy.read_magic(fh)
                    if version == (1, 0):
                        shape, _, dtype = npy.read_array_header_1_0(fh)
                    elif version == (2, 0):
                        shape, _, dtype = npy.read_array_header_2_0(fh)
                    else:
                        # a private NumPy helper (other .npy versions), not in its stubs
                        shape, _, dtype = npy._read_array_header(  # type: ignore[attr-defined]
                            fh, version)
                out[info.filename[:-4]] = (tuple(int(d) for d in shape), np.dtype(dtype))
    except Exception as exc:  # noqa: BLE001 - a header is parsed by tokenize, zipfile, ...
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise StablefsError(f"{path}: is not a valid .npz archive ({first[:200]}).") from None
    return out


def check_npz_sizes(path: Path) -> None:
    """Refuse an ``.npz`` whose arrays, as their headers declare them, cannot be loaded in the
    memory available: every array's bytes, plus a float64 copy of ``X`` (the conversion),
    before any array is read."""
    arrays = npz_declared_arrays(path)
    total = 0
    for shape, dtype in arrays.values():
        total += int(np.prod(shape, dtype=object)) * max(1, dtype.itemsize)
    if "X" in arrays:  # the float64 copy made of it, or the load's last steps
        values = int(np.prod(arrays["X"][0], dtype=object))
        total = max(total + 8 * values, finish_bytes(values))
    declared = ", ".join(f"{k} {'x'.join(map(str, s)) or 'scalar'} {d}"
                         for k, (s, d) in list(arrays.items())[:4])
    check_fits(total, str(path), f"the arrays its headers declare ({declared})")


def read_npz(path: Path, options: ReadOptions) -> Dataset:
    """Read a NumPy ``.npz`` archive with arrays ``X``, ``y`` and optional ``feature_names`` and
    ``sample_names``.

    ``label=`` names the array holding the classes (default ``y``; not needed when ``labels=``
    gives a sample sheet, joined on ``sample_names``). Object (pickled) arrays are refused.
    Labels are converted to ``str`` like those of every other file format.
    """
    external = options.labels is not None
    ykey = "y" if options.label is None else str(options.label)
    check_npz_sizes(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            keys = list(z.files)
            if "X" not in keys or (ykey not in keys and not external):
                raise StablefsError(
                    f"{path}: an .npz file needs arrays 'X' and {show(ykey)}; it has "
                    f"{name_list(keys) or 'none'}."
                )
            X = z["X"]
            yy = z[ykey] if ykey in keys else None
            names = z["feature_names"] if "feature_names" in keys else None
            samples = z["sample_names"] if "sample_names" in keys else None
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
    y = None
    if external:
        if yy is not None and options.label is None and ykey == "y":
            raise StablefsError(
                f"{path}: has its own class array 'y' and labels= gives a sample sheet: use one "
                "source of classes."
            )
    else:
        yy = np.asarray(yy)
        if yy.ndim != 1 or yy.shape[0] != X.shape[0]:
            raise StablefsError(
                f"{path}: array {show(ykey)} must be 1-D with one label per row of X "
                f"({X.shape[0]}), it has shape {yy.shape}."
            )
        if yy.dtype.kind == "f" and np.isnan(yy).any():
            yy = yy.astype(object)
            yy[np.isnan(yy.astype(float))] = None
        y = check_labels(yy.tolist(), str(path), ykey, rows="rows")
    if names is None:
        feature_names = np.asarray([f"f{i}" for i in range(X.shape[1])], dtype=str)
    else:
        feature_names = np.asarray(names).astype(str).ravel()
        if feature_names.shape[0] != X.shape[1]:
            raise StablefsError(
                f"{path}: 'feature_names' has {feature_names.shape[0]} entries for "
                f"{X.shape[1]} columns of X."
            )
        check_unique(feature_names, str(path), what="feature names ('feature_names')",
                     unit="entries")
    if samples is not None:
        samples = np.asarray(samples).astype(str).ravel()
        if samples.shape[0] != X.shape[0]:
            raise StablefsError(
                f"{path}: 'sample_names' has {samples.shape[0]} entries for {X.shape[0]} rows "
                "of X."
            )
    return finish(
        X.astype(np.float64),
        y,
        feature_names,
        where=str(path),
        name=file_stem(path),
        source=str(path),
        meta={"format": "npz"},
        sample_names=samples,
        labels=options.labels,
        missing=options.missing,
        label_column=ykey,
    )


# --------------------------------------------------------------------------------------------
# H5AD
# --------------------------------------------------------------------------------------------


def read_h5ad(path: Path, options: ReadOptions) -> Dataset:
    """Read an AnnData ``.h5ad`` file (needs the optional ``anndata`` package).

    As an in-memory AnnData (:func:`stablefs.datasets._inmemory.read_anndata`): the class is the
    ``obs`` column named by ``label=`` (default ``label``), features are the ``var_names`` (or
    the ``var`` column ``feature_names=``), ``layer=`` picks a layer, and a sparse ``X`` is
    densified only within ``max_dense_bytes``. The file is checked first, with ``h5py`` alone
    (:func:`stablefs.datasets._h5ad.check_h5ad_sizes`): values kept in other files (external
    links, virtual datasets, external storage) and sizes beyond the memory are refused.
    """
    check_h5ad_sizes(path)
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
    return read_anndata(adata, options, where=str(path), name=file_stem(path),
                        source=str(path), fmt="h5ad")


# --------------------------------------------------------------------------------------------
# dispatch
# --------------------------------------------------------------------------------------------


def read_file(path: Path, options: ReadOptions | None = None, **kwargs) -> Dataset:
    """Read ``path`` with the reader of its extension (see the module docstring).

    ``options`` are the validated reading options; keywords (``label``, ``drop_nominal``,
    ``drop_missing``, ``encode_nominal``, ...) build them when ``options`` is not given.
    """
    if options is None:
        options = ReadOptions.make(**kwargs)
    path = Path(path)
    suffix, gz = split_suffix(path)
    if suffix in TABLE_SEPARATORS:
        return read_table(path, options)
    if options.transpose:
        raise StablefsError(
            f"{path}: transpose=True (--transpose) applies to text tables (.csv, .tsv, .txt) "
            "only: this file is already one row per sample."
        )
    if suffix == ".arff":
        return read_arff(path, options)
    if suffix == ".npz" and not gz:
        return read_npz(path, options)
    if suffix == ".h5ad" and not gz:
        return read_h5ad(path, options)
    shown = path.name[len(file_stem(path)) :] or "(none)"
    raise StablefsError(f"{path}: unknown file type {shown!r}: stablefs reads {SUPPORTED}.")
