"""What every reader does last: labels, missing values, and the load-time checks.

Every source that :func:`stablefs.datasets.load` reads (text tables in both orientations, ARFF,
``.npz``, ``.h5ad``, in-memory ``pandas.DataFrame`` / ``anndata.AnnData``) hands its matrix to
:func:`finish`, so the same input gets the same one-line :class:`~stablefs.StablefsError`
whatever its format (``docs/DESIGN.md``, "Errors"):

* labels come from the source's own class column, or from a separate sample sheet given with
  ``labels=`` (``"meta.csv:COLUMN"``, a path whose column ``label`` holds the classes, or a
  ``pandas.Series`` indexed by sample ID), joined on the sample IDs (:func:`attach_labels`);
* missing feature values are refused, or handled as ``missing=`` asks (:func:`handle_missing`);
* a data set with fewer than 2 samples, with continuous labels, or whose every feature is
  constant is refused (:func:`check_dataset`).

What is dropped is announced with one line on the ``"stablefs"`` logger
(``logging.getLogger("stablefs")``), and recorded in ``Dataset.meta``; nothing is fixed
silently.
"""

from __future__ import annotations

import csv
import gzip
import logging
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from stablefs._errors import StablefsError
from stablefs.datasets._dataset import Dataset
from stablefs.datasets._limits import scan_text

logger = logging.getLogger("stablefs")

#: Values of ``missing=``; ``None`` means ``"refuse"``.
MISSING_CHOICES = ("refuse", "drop-samples", "drop-features", "impute")

#: The text fields pandas reads as missing by default (``pandas.read_csv``'s ``na_values``);
#: the fast text reader treats a class label spelled like this as missing, as pandas does.
NA_TOKENS = frozenset(
    [
        "",
        "#N/A",
        "#N/A N/A",
        "#NA",
        "-1.#IND",
        "-1.#QNAN",
        "-NaN",
        "-nan",
        "1.#IND",
        "1.#QNAN",
        "<NA>",
        "N/A",
        "NA",
        "NULL",
        "NaN",
        "None",
        "n/a",
        "nan",
        "null",
    ]
)

DROP_MISSING_HINT = "drop_missing=True (CLI --drop-missing)"


# --------------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------------


def name_list(names, k: int = 5) -> str:
    """``"a, b, c, d, e and 7 more"``: the first ``k`` names and how many are left."""
    names = [str(n) for n in names]
    if len(names) <= k:
        return ", ".join(names)
    return f"{', '.join(names[:k])} and {len(names) - k} more"


def show(value) -> str:
    """A value quoted for a message: ``'x'`` for text (never ``np.str_('x')``), else ``str``."""
    if isinstance(value, (str, np.str_)):
        return repr(str(value))
    if isinstance(value, np.generic):
        return str(value.item())
    return str(value)


def warn(message: str) -> None:
    """Announce a change to the data (dropped columns, samples, ...) as one logged line."""
    logger.warning(" ".join(str(message).split()))


def check_unique(names, where: str, *, what: str = "feature names", unit: str = "columns",
                 offset: int = 1, hint: str = "") -> None:
    """Refuse duplicated names, showing a few with their (1-based) positions.

    ``offset`` is added to the 0-based index to give the position shown (1: first column is 1).
    """
    names = [str(n) for n in names]
    if len(set(names)) == len(names):
        return
    positions: dict[str, list[int]] = {}
    for i, n in enumerate(names):
        positions.setdefault(n, []).append(i + offset)
    dups = [(n, pos) for n, pos in positions.items() if len(pos) > 1]
    shown = [f"{show(n)} ({unit} {', '.join(str(p) for p in pos[:3])}"
             f"{' ...' if len(pos) > 3 else ''})" for n, pos in dups]
    todo = hint or (
        "stablefs never renames them: make every name unique (for example add the probe ID), or "
        "merge the duplicates first"
    )
    raise StablefsError(f"{where}: duplicated {what}: {name_list(shown, 3)}; {todo}.")


def check_labels(labels, where: str, column: str, *, rows: str = "data rows") -> np.ndarray:
    """Labels as a NumPy ``str`` array; a missing label is an error naming its rows."""
    s = pd.Series(labels, dtype=object) if not isinstance(labels, pd.Series) else labels
    missing = s.isna().to_numpy()
    if missing.any():
        bad = np.flatnonzero(missing)
        raise StablefsError(
            f"{where}: the label column {show(column)} has {bad.size} missing value(s) ({rows} "
            f"{name_list(bad.tolist())}): give every sample a class or remove those rows."
        )
    return np.asarray([str(v) for v in s.tolist()], dtype=str)


def missing_mode(missing, drop_missing: bool = False) -> str:
    """Validate ``missing=`` (and the older ``drop_missing=``) into one of MISSING_CHOICES."""
    if missing is None:
        mode = "refuse"
    elif isinstance(missing, str) and missing in MISSING_CHOICES:
        mode = str(missing)
    else:
        raise StablefsError(
            f"missing={show(missing)} is not a choice: use None (refuse missing values), "
            "'drop-samples', 'drop-features' or 'impute' (CLI --missing)."
        )
    if drop_missing:
        if mode in ("refuse", "drop-samples"):
            return "drop-samples"
        raise StablefsError(
            f"drop_missing=True (drop samples) and missing={show(mode)} ask for two different "
            "things: give only one of them."
        )
    return mode


# --------------------------------------------------------------------------------------------
# labels from a separate sample sheet
# --------------------------------------------------------------------------------------------


def parse_labels_spec(labels) -> tuple[Path, str | None]:
    """``"meta.csv:COLUMN"`` / ``"meta.csv"`` / a path → (path, column or None)."""
    text = os.fspath(labels)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    text = str(text).strip()
    path = Path(text).expanduser()
    if path.is_file():
        return path, None
    head, sep, column = text.rpartition(":")
    if sep and head and Path(head).expanduser().is_file() and column.strip():
        return Path(head).expanduser(), column.strip()
    raise StablefsError(
        f"labels={show(text)}: no such sample-sheet file: give FILE or FILE:COLUMN, e.g. "
        "labels='samples.csv:diagnosis' (CLI --labels samples.csv:diagnosis)."
    )


#: memory of a sample sheet read by pandas as text cells (a Python string per cell, the
#: tokenizer's copy of the text) and joined, measured (``tests/test_safety_memory.py``)
SHEET_BYTES_PER_VALUE = 100
SHEET_BYTES_PER_TEXT_BYTE = 3


def _read_sheet(path: Path) -> pd.DataFrame:
    """A small sample sheet (csv/tsv/txt, optionally .gz), every cell as text."""
    name = path.name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    try:
        with open(path, "rb") as fh:
            compressed = fh.read(2) == b"\x1f\x8b"
        opener = gzip.open if compressed else open
        with opener(path, "rt", encoding="utf-8-sig", errors="replace", newline="") as fh:
            first = fh.readline()
    except (OSError, EOFError) as exc:
        raise StablefsError(f"{path}: the sample sheet cannot be read ({exc}).") from None
    if name.endswith(".tsv") or "\t" in first:
        sep = "\t"
    elif name.endswith(".csv") or "," in first:
        sep = ","
    elif ";" in first:
        sep = ";"
    else:
        sep = r"\s+"
    # read whole as text cells: refused before pandas starts when it cannot fit in memory
    scan_text(path, compressed, None if sep == r"\s+" else sep,
              lambda c: c.values * SHEET_BYTES_PER_VALUE + c.text * SHEET_BYTES_PER_TEXT_BYTE,
              what="reading this sample sheet",
              hint="a sample sheet needs one row per sample of the data: keep those rows only")
    try:
        sheet = pd.read_csv(path, sep=sep, dtype=str, header=None,
                            compression="gzip" if compressed else None,
                            encoding="utf-8-sig", encoding_errors="replace")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError, OSError) as exc:
        msg = str(exc).strip().splitlines()[-1] if str(exc).strip() else "empty"
        raise StablefsError(
            f"{path}: the sample sheet cannot be read as a table ({msg})."
        ) from None
    if sheet.shape[0] < 2:
        raise StablefsError(f"{path}: the sample sheet needs a header row and one row per sample.")
    header = [("" if pd.isna(v) else str(v).strip()) for v in sheet.iloc[0].tolist()]
    sheet = sheet.iloc[1:].reset_index(drop=True)
    sheet.columns = range(sheet.shape[1])
    sheet.attrs["header"] = header
    return sheet


def attach_labels(sample_names: np.ndarray, has_ids: bool, labels, where: str,
                  feature_names=None) -> tuple:
    """Class labels for ``sample_names`` from a sample sheet, in the data's sample order.

    Parameters
    ----------
    sample_names : ndarray of str
        The data's sample IDs, in the data's order.
    has_ids : bool
        Whether the data carries real sample IDs (not the default ``s0 … s{n-1}``).
    labels : str, path-like or pandas.Series
        ``"FILE:COLUMN"``, ``"FILE"`` (column ``label``), or a Series indexed by sample ID.
        The sheet's sample-ID column is the column (other than the label column) that holds
        the most of the data's sample IDs; every data sample must be in the sheet, exactly
        once, with a class. Samples of the sheet that are not in the data are left out, with
        one line giving the counts (a sheet often describes more samples than one file holds).
    where : str
        The data source, for messages.
    feature_names : sequence of str, optional
        The data's feature names: a sheet whose IDs are these names (not the sample IDs) means
        the file is genes × samples, and the error names ``--transpose``.

    Returns
    -------
    y : ndarray of str
    info : dict
        ``labels_from``, ``labels_column``, ``labels_id_column`` for ``Dataset.meta``, and
        ``labels_sheet_extra`` (the sheet's samples left out) when there were any.
    """
    ids = [str(s) for s in sample_names]
    column: str | None
    if isinstance(labels, pd.Series):
        sheet_name = "the labels Series"
        sheet_ids = [str(v) for v in labels.index.tolist()]
        values = labels.astype(object).where(labels.notna(), None).tolist()
        column, id_column = str(labels.name) if labels.name is not None else "label", "index"
        if not has_ids:
            raise StablefsError(
                f"{where}: labels= is a Series joined on sample IDs, but the data has no sample "
                "IDs (no leading sample-ID column or index): give the data sample IDs first."
            )
    else:
        path, column = parse_labels_spec(labels)
        sheet_name = str(path)
        if not has_ids:
            raise StablefsError(
                f"{where}: labels={show(str(labels))} joins a sample sheet on sample IDs, but the "
                "data has none (a table needs a first column of unique text IDs, an .npz an "
                "array 'sample_names'): add them, or for a genes × samples file pass "
                "transpose=True (CLI --transpose)."
            )
        sheet = _read_sheet(path)
        header = sheet.attrs["header"]
        want = column or "label"
        exact = [i for i, h in enumerate(header) if h == want]
        loose = [i for i, h in enumerate(header) if h.lower() == want.lower()]
        if len(exact) > 1 or (not exact and len(loose) > 1):
            raise StablefsError(f"{path}: the sample sheet has {show(want)} twice: keep one.")
        hits = exact or loose
        if not hits:
            raise StablefsError(
                f"{path}: the sample sheet has no column {show(want)}; its columns: "
                f"{name_list(header, 8)}; name the class column as FILE:COLUMN (CLI --labels "
                f"{path.name}:COLUMN)."
            )
        li = hits[0]
        column = header[li]
        wanted = set(ids)
        best, best_hits = None, 0
        for j in range(sheet.shape[1]):
            if j == li:
                continue
            col = sheet[j].dropna().astype(str).str.strip()
            n_hits = int(col.isin(wanted).sum())
            if n_hits > best_hits:
                best, best_hits = j, n_hits
        if best is None:
            raise StablefsError(
                f"{path}: no column of the sample sheet holds the sample IDs of {where} "
                f"({name_list(ids, 3)}); its columns: {name_list(header, 8)}: "
                + (_transposed_sheet_hint(sheet, li, feature_names, where) or
                   "check that both files spell the sample IDs the same way.")
            )
        id_column = header[best] or f"column {best + 1}"
        raw_ids = sheet[best]
        if raw_ids.isna().any():
            rows = np.flatnonzero(raw_ids.isna().to_numpy()) + 2
            raise StablefsError(
                f"{path}: the sample-ID column {show(id_column)} of the sample sheet is empty in "
                f"line(s) {name_list(rows.tolist())}: fill in or remove those lines."
            )
        sheet_ids = raw_ids.astype(str).str.strip().tolist()
        values = sheet[li].where(sheet[li].notna(), None).tolist()
    check_unique(sheet_ids, sheet_name, what="sample IDs in the sample sheet", unit="rows",
                 hint="give each sample one row")
    position = {s: i for i, s in enumerate(sheet_ids)}
    absent = [s for s in ids if s not in position]
    if absent:
        raise StablefsError(
            f"{sheet_name}: {len(absent)} of the {len(ids)} samples of {where} are not in the "
            f"sample sheet ({name_list(absent, 4)}): add them to the sheet, or check that both "
            "spell the sample IDs the same way."
        )
    data_ids = set(ids)
    extra = [s for s in sheet_ids if s not in data_ids]
    if extra:  # every data sample is in the sheet: the join is on the samples present
        logger.warning(
            f"{sheet_name}: {len(sheet_ids)} samples in the sample sheet, {len(ids)} in "
            f"{where}: labels joined on the {len(ids)} present in both; {len(extra)} of the "
            f"sheet left out ({name_list(extra, 4)})."
        )
    ordered = [values[position[s]] for s in ids]
    missing = [s for s, v in zip(ids, ordered) if v is None or (isinstance(v, float) and v != v)]
    if missing:
        raise StablefsError(
            f"{sheet_name}: the label column {show(column)} has no class for {len(missing)} "
            f"sample(s) ({name_list(missing, 4)}): give every sample a class."
        )
    y = np.asarray([str(v) for v in ordered], dtype=str)
    info = {"labels_from": sheet_name, "labels_column": column, "labels_id_column": id_column}
    if extra:
        info["labels_sheet_extra"] = len(extra)
    return y, info


def _transposed_sheet_hint(sheet: pd.DataFrame, label_pos: int, feature_names,
                           where: str) -> str | None:
    """The ``--transpose`` hint when a column of the sample sheet holds the data's column
    names (its features) rather than its row IDs: the file is genes × samples."""
    if feature_names is None:
        return None
    names = {str(f) for f in feature_names}
    for j in range(sheet.shape[1]):
        if j == label_pos:
            continue
        col = sheet[j].dropna().astype(str).str.strip()
        if len(col) and col.isin(names).mean() >= 0.5:
            return (f"its IDs are column names of {where}, so the file looks like genes × "
                    "samples (samples in columns): pass transpose=True (CLI --transpose).")
    return None


# --------------------------------------------------------------------------------------------
# missing values
# --------------------------------------------------------------------------------------------


def handle_missing(
    X: np.ndarray,
    y: np.ndarray,
    feature_names: np.ndarray,
    sample_names: np.ndarray,
    *,
    where: str,
    mode: str,
    meta: dict,
    missing_word: str = "missing values",
    groups: np.ndarray | None = None,
):
    """Refuse missing feature values, or drop samples / drop features / keep them for imputing.

    ``mode`` is one of :data:`MISSING_CHOICES`:

    * ``"refuse"``: one line naming the columns with missing values and the choices;
    * ``"drop-samples"``: drop the samples that have a missing value (``meta["dropped_samples"]``
      holds their 0-based row numbers);
    * ``"drop-features"``: drop the features that have a missing value
      (``meta["dropped_features"]``);
    * ``"impute"``: keep the NaNs; ``meta["missing"] = "impute"`` and ``meta["n_missing"]`` tell
      the experiment runner to replace them by the median of each feature on each training part
      (never on the whole data, which would leak the test part into training).

    ``groups`` (one name per column, e.g. the ARFF attribute an indicator column encodes) is
    what the messages name; by default the feature names.
    """
    if X.shape[1] == 0:
        raise StablefsError(f"{where}: has no feature columns besides the label.")
    if _all_finite(X):  # the common case, without an n × p mask
        if mode != "refuse":
            meta["missing"] = mode
            meta["n_missing"] = 0
        return X, y, feature_names, sample_names
    nan = np.isnan(X)
    col_nan = nan.any(axis=0)
    if not col_nan.any():
        if mode != "refuse":
            meta["missing"] = mode
            meta["n_missing"] = 0
        return X, y, feature_names, sample_names
    row_nan = nan.any(axis=1)
    bad_cols = np.flatnonzero(col_nan)
    bad_rows = np.flatnonzero(row_nan)
    label_names = feature_names if groups is None else groups
    shown = list(dict.fromkeys(label_names[bad_cols].tolist()))
    what = f"{missing_word} in {len(shown)} feature column(s) ({name_list(shown)})"
    meta["missing"] = mode
    if mode == "refuse":
        raise StablefsError(
            f"{where}: {what}, in {len(bad_rows)} of {X.shape[0]} samples: impute them first, or "
            f"pass {DROP_MISSING_HINT} to drop those samples, missing='drop-features' to drop "
            "those features, or missing='impute' to impute each training part's medians."
        )
    if mode == "drop-samples":
        keep = ~row_nan
        if not keep.any():
            raise StablefsError(
                f"{where}: {what}: every sample has a missing value, so dropping them leaves "
                "nothing; use missing='drop-features' or missing='impute' instead."
            )
        X, y, sample_names = X[keep], y[keep], sample_names[keep]
        meta["dropped_samples"] = bad_rows.tolist()
        meta["n_dropped_samples"] = int(bad_rows.size)
        warn(
            f"{where}: dropped {bad_rows.size} of {nan.shape[0]} samples with {what} "
            "(drop_missing=True); their row numbers are in Dataset.meta['dropped_samples']."
        )
    elif mode == "drop-features":
        if col_nan.all():
            raise StablefsError(
                f"{where}: every feature has a missing value, so dropping them leaves nothing; "
                "use missing='drop-samples' or missing='impute' instead."
            )
        dropped = feature_names[bad_cols].tolist()
        X = np.ascontiguousarray(X[:, ~col_nan])
        feature_names = feature_names[~col_nan]
        meta["dropped_features"] = dropped
        meta["n_dropped_features"] = len(dropped)
        warn(
            f"{where}: dropped {len(dropped)} of {nan.shape[1]} features with missing values "
            f"({name_list(dropped)}) (missing='drop-features'); listed in "
            "Dataset.meta['dropped_features']."
        )
    else:  # impute: keep the NaNs, the runner imputes per training part
        empty = np.flatnonzero(nan.all(axis=0))
        if empty.size:
            raise StablefsError(
                f"{where}: {empty.size} feature(s) have no value at all "
                f"({name_list(label_names[empty].tolist())}), so there is nothing to impute "
                "from: drop them first, or use missing='drop-features'."
            )
        meta["n_missing"] = int(nan.sum())
        meta["n_features_with_missing"] = int(bad_cols.size)
        logger.info(
            "%s: %d missing values in %d features are kept for imputation by the median of "
            "each training part (missing='impute').",
            where,
            meta["n_missing"],
            bad_cols.size,
        )
    return X, y, feature_names, sample_names


# --------------------------------------------------------------------------------------------
# load-time checks
# --------------------------------------------------------------------------------------------


def _all_finite(X: np.ndarray) -> bool:
    """No NaN and no infinity, from the column sums (no n × p mask); an overflowing sum of
    finite values only sends the caller to the exact check."""
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.isfinite(X.sum(axis=0)).all())


def check_dataset(X: np.ndarray, y: np.ndarray, feature_names: np.ndarray, *, where: str,
                  label_column: str = "label", after: str = "") -> None:
    """Refuse data that cannot give a meaningful stability experiment.

    * fewer than 2 samples;
    * infinite feature values;
    * continuous labels: every label a number and more than ``max(10, n / 2)`` distinct values
      (stablefs selects features for classification);
    * every feature constant (every selection would then be arbitrary and every stability
      measure a meaningless 1.0 or 0.0).
    """
    n = X.shape[0]
    if n < 2:
        raise StablefsError(
            f"{where}: has {n} sample{'s' if n != 1 else ''}{after}: stablefs needs at least 2 "
            "samples (one row per sample; for a genes × samples file pass transpose=True, CLI "
            "--transpose)."
        )
    if not _all_finite(X) and np.isinf(X).any():
        bad_cols = np.flatnonzero(np.isinf(X).any(axis=0))
        raise StablefsError(
            f"{where}: infinite values in {len(bad_cols)} feature column(s) "
            f"({name_list(feature_names[bad_cols])}): replace them with finite numbers."
        )
    classes = np.unique(y)
    if classes.size > max(10, n / 2):
        try:
            numbers = [float(c) for c in classes]
        except ValueError:
            numbers = None
        if numbers is not None:
            shown = ", ".join(str(c) for c in classes[:4])
            raise StablefsError(
                f"{where}: stablefs is for classification, but the label column "
                f"{show(label_column)} holds {classes.size} distinct numbers in {n} samples "
                f"(e.g. {shown}), a continuous outcome: cut it into classes first, or name the "
                "class column with label=NAME (CLI --label)."
            )
    if X.shape[1] and n:
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
            varying = np.nanmax(X, axis=0) > np.nanmin(X, axis=0)
        any_varying = bool(np.any(varying))
        if not any_varying:
            raise StablefsError(
                f"{where}: every one of its {X.shape[1]} features is constant across the {n} "
                "samples, so no feature can be told from another and any stability would be "
                "meaningless: check that the right file and orientation were read."
            )


def finish(
    X: np.ndarray,
    y,
    feature_names,
    *,
    where: str,
    name: str,
    source: str,
    meta: dict,
    sample_names=None,
    labels=None,
    missing: str = "refuse",
    label_column: str = "label",
    missing_word: str = "missing values",
    groups: np.ndarray | None = None,
) -> Dataset:
    """Attach labels, handle missing values, run the load-time checks, build the Dataset.

    ``y`` is the source's own labels (a ``str`` array), or ``None`` when ``labels=`` (a sample
    sheet or Series) gives them; ``sample_names`` is ``None`` when the source has no sample
    IDs (then ``s0 … s{n-1}``).
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    has_ids = sample_names is not None
    if has_ids:
        sample_names = np.asarray([str(s) for s in sample_names], dtype=str)
        check_unique(sample_names, where, what="sample IDs", unit="samples",
                     hint="give every sample its own ID")
    else:
        sample_names = np.asarray([f"s{i}" for i in range(n)], dtype=str)
    feature_names = np.asarray(feature_names, dtype=str)
    if labels is not None:
        y, info = attach_labels(sample_names, has_ids, labels, where, feature_names)
        meta.update(info)
        label_column = info["labels_column"]
    y = np.asarray(y, dtype=str)
    if n == 0:
        raise StablefsError(f"{where}: has no samples (no data rows).")
    n_before = n
    X, y, feature_names, sample_names = handle_missing(
        X, y, feature_names, sample_names, where=where, mode=missing, meta=meta,
        missing_word=missing_word, groups=groups,
    )
    after = (f" left after dropping samples with missing values (of {n_before})"
             if X.shape[0] < n_before else "")
    check_dataset(X, y, feature_names, where=where, label_column=label_column, after=after)
    return Dataset(
        X=np.ascontiguousarray(X, dtype=np.float64),
        y=y,
        feature_names=feature_names,
        name=name,
        source=source,
        meta=meta,
        sample_names=sample_names,
    )


def split_fields(line: str, sep: str | None) -> list[str]:
    """Fields of one text line: ``csv`` rules (``"`` quotes) for a separator, else whitespace."""
    if sep is None:
        return line.split()
    try:
        return next(csv.reader([line], delimiter=sep), [])
    except csv.Error as exc:  # a bare carriage return (old Mac line ends), a NUL, ...
        raise StablefsError(
            f"cannot split the line {show(line[:60])} into fields ({exc}): save the file as "
            "plain text with LF or CRLF line ends."
        ) from None
