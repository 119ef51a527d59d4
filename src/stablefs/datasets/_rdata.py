"""Conversion of the ``datamicroarray`` ``.RData`` files to the registry's ``.csv.gz`` form.

Each file of the public ``ramhiser/datamicroarray`` collection (``docs/DESIGN.md``, Data →
Registry) holds one R object named like the file: a list with ``x`` (samples × genes, a
``data.frame`` or a ``matrix``) and ``y`` (a ``factor`` of class labels). The `rdata` package
parses it without R. The converted form is a gzip-compressed CSV with a first column ``label``
and one column per feature, the form of ``../shared/datasets/*.csv.gz``:

* feature names are the column names of ``x`` when they are real probe IDs; the placeholders
  R invents for unnamed columns (``X1..Xp``, ``V1..Vp``, and the ``GENE1..GENEp`` of Khan
  et al. 2001) and absent names become ``f0..f{p-1}`` (``f{i}`` is placeholder ``i + 1``);
* values are written with Python's shortest round-trip ``repr`` (so ``float(text)`` gives
  back the exact float64 stored in the ``.RData``; integer columns appear as ``-104.0``), a
  missing value as an empty field;
* the gzip stream is written at level 1 with a zero time stamp and no file name, so the bytes
  are a pure function of the data. The shared ``../shared/datasets`` files were written at
  level 9, and at that level this converter reproduces them byte for byte (zlib 1.2), but on
  these files level 9 writes 6-13 times slower than level 1 (singh: 15.8 s against 1.2 s;
  level 6: 2.4 s) for files 20-25 % smaller, and the cost is paid on the user's first load.
  The registry therefore checks a converted file by the sha256 of its uncompressed CSV text,
  which is the same at every level and with every deflate implementation.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from stablefs._errors import StablefsError
from stablefs._runtime.io import atomic_path
from stablefs.datasets._limits import scan_inflated

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["RDataSet", "convert_rdata", "read_rdata", "write_csv_gz"]

#: prefixes R (or the collection's scripts) use for unnamed columns: X1.., V1.., GENE1..
_PLACEHOLDER = re.compile(r"(X|V|GENE)1")


@dataclass
class RDataSet:
    """The content of one ``datamicroarray`` object: ``X`` (float64, n × p, C order), ``y``
    (``str`` labels), ``feature_names`` (``str``; ``f0..`` for placeholders)."""

    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]


def _shorten(items, limit: int = 4) -> str:
    items = [str(i) for i in items]
    if len(items) <= limit:
        return ", ".join(items)
    return f"{', '.join(items[:limit])} and {len(items) - limit} more"


def _feature_names(names: list[str] | None, p: int) -> list[str]:
    """Real names kept; the placeholder sequences ``X1..Xp``, ``V1..Vp``, ``GENE1..GENEp`` and
    absent names become ``f0..f{p-1}``."""
    if names is not None and len(names) == p and p > 0:
        m = _PLACEHOLDER.fullmatch(names[0])
        if m is None or names != [f"{m.group(1)}{i}" for i in range(1, p + 1)]:
            return names
    return [f"f{i}" for i in range(p)]


def _matrix(x, where: str) -> tuple[np.ndarray, list[str] | None]:
    """float64 matrix and column names of an R data.frame (pandas), matrix (xarray) or
    unnamed matrix (numpy)."""
    names = None
    if hasattr(x, "columns") and hasattr(x, "dtypes"):  # data.frame -> pandas.DataFrame
        bad = [str(c) for c, t in zip(x.columns, x.dtypes) if t.kind not in "biuf"]
        if bad:
            raise StablefsError(
                f"{where}: x has non-numeric columns ({_shorten(bad)}); this is not a "
                "datamicroarray expression matrix: use the original file."
            )
        names = [str(c) for c in x.columns]
        values = x.to_numpy(dtype=np.float64, na_value=np.nan)
    elif hasattr(x, "dims") and hasattr(x, "coords"):  # matrix with dimnames -> DataArray
        if len(x.dims) != 2:
            raise StablefsError(f"{where}: x has {len(x.dims)} dimensions, expected 2.")
        col = x.dims[1]
        if col in x.coords:
            names = [str(c) for c in x.coords[col].values]
        values = x.values
    else:  # matrix without dimnames -> ndarray
        values = np.asarray(x)
    if values.ndim != 2:
        raise StablefsError(
            f"{where}: x has {values.ndim} dimension(s), expected a samples × genes matrix."
        )
    if values.dtype.kind not in "biuf":
        raise StablefsError(
            f"{where}: x holds {values.dtype.kind!s}-type values, not numbers; use the "
            "original datamicroarray file."
        )
    return np.ascontiguousarray(values, dtype=np.float64), names


def _labels(y, n: int, where: str) -> np.ndarray:
    """``str`` labels of an R factor (pandas Categorical) or character vector."""
    try:
        import pandas as pd

        missing = np.asarray(pd.isna(y))
    except (TypeError, ValueError):  # pragma: no cover - exotic label containers
        missing = np.zeros(len(y), dtype=bool)
    if missing.ndim != 1 or len(missing) != n:
        raise StablefsError(
            f"{where}: y has {len(missing) if missing.ndim == 1 else 'a non-vector of'} "
            f"labels but x has {n} samples; the file is not a datamicroarray set."
        )
    if missing.any():
        idx = np.flatnonzero(missing) + 1
        raise StablefsError(
            f"{where}: {int(missing.sum())} sample(s) have no class label (sample "
            f"{_shorten(idx.tolist())}); the file is not a datamicroarray set."
        )
    return np.array([str(v) for v in np.asarray(y, dtype=object)], dtype=str)


#: memory of parsing and converting an ``.RData`` file per byte of its inflated content,
#: measured on the registry's largest sets (4.5 to 7.8; ``tests/test_safety_memory.py``)
RDATA_BYTES_PER_INFLATED_BYTE = 5.5


def read_rdata(path: str | os.PathLike[str], name: str | None = None) -> RDataSet:
    """Read the data set ``name`` (default: the file's stem) of a ``datamicroarray`` ``.RData``.

    Parameters
    ----------
    path : path-like
        An ``.RData`` file (gzip, bzip2 or xz compressed, as R writes them).
    name : str, optional
        The R object to read; the collection stores each set under the file's stem (the
        ``golub`` file also holds ``golub_train`` and ``golub_test``).

    Returns
    -------
    RDataSet
        ``X`` (float64, n × p), ``y`` (``str`` labels) and ``feature_names`` (``f0 …`` where
        R holds placeholders).

    Raises
    ------
    StablefsError
        Not an R data file, no object ``name``, no ``x``/``y``, non-numeric ``x``, missing
        labels, or ``x`` and ``y`` of different lengths.

    References
    ----------
    .. [1] J. A. Ramey, "datamicroarray: Collection of Data Sets for Classification", R package
       version 0.2.3, 2016, https://github.com/ramhiser/datamicroarray.

    Examples
    --------
    A small file in the collection's form (a list with ``x`` and the factor ``y``), written
    with the ``rdata`` package:

    >>> import os, tempfile
    >>> import pandas as pd
    >>> import rdata
    >>> from stablefs.datasets import read_rdata
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.RData")
    >>> x = pd.DataFrame({"g1": [0.5, 1.5, 2.5], "g2": [1.0, 2.0, 4.0]})
    >>> rdata.write_rda(path, {"toy": {"x": x, "y": pd.Categorical(["t", "n", "t"])}})
    >>> data = read_rdata(path)
    >>> data.X.shape, data.feature_names, data.y.tolist()
    ((3, 2), ['g1', 'g2'], ['t', 'n', 't'])
    """
    import rdata

    path = Path(path)
    name = name or path.name.split(".")[0]
    where = f"{path}"
    # the parse holds R's serialization and the objects made of it: refused before it starts
    # when it cannot fit in memory
    scan_inflated(path, lambda size: int(size * RDATA_BYTES_PER_INFLATED_BYTE),
                  what="reading this R data file")
    try:
        with warnings.catch_warnings():
            # rdata warns that strings of these (R 2.x era) files carry no encoding mark (they
            # are ASCII), and about guessed formats of foreign files, which fail just below
            warnings.simplefilter("ignore")
            parsed = rdata.parser.parse_file(path)
            converted = rdata.conversion.convert(parsed)
    except OSError as exc:
        raise StablefsError(f"{path}: cannot be read ({exc.strerror or exc}).") from None
    except MemoryError:
        raise
    except Exception as exc:  # rdata raises many types for foreign files
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise StablefsError(
            f"{path}: not a readable R data file ({msg}); download it again."
        ) from None
    if not isinstance(converted, dict) or name not in converted:
        found = list(converted) if isinstance(converted, dict) else []
        raise StablefsError(
            f"{where}: holds no object {name!r} (found: {_shorten(found) or 'nothing'}); "
            "a datamicroarray file stores its set under the file's name."
        )
    obj = converted[name]
    if not isinstance(obj, dict) or "x" not in obj or "y" not in obj:
        keys = list(obj) if isinstance(obj, dict) else [type(obj).__name__]
        raise StablefsError(
            f"{where}: object {name!r} is not a list with x and y (has {_shorten(keys)}); "
            "the file is not a datamicroarray set."
        )
    X, names = _matrix(obj["x"], where)
    y = _labels(obj["y"], X.shape[0], where)
    return RDataSet(X, y, _feature_names(names, X.shape[1]))


def _csv_field(text: str) -> str:
    """One CSV field, quoted only when needed (as ``csv.QUOTE_MINIMAL`` and pandas do)."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow([text])
    return buf.getvalue()


def write_csv_gz(
    path: str | os.PathLike[str],
    data: RDataSet,
    *,
    expected_content_sha256: str | None = None,
    name: str | None = None,
    compresslevel: int = 1,
) -> str:
    """Write ``data`` as ``label`` + features gzip CSV at ``path``, atomically.

    The file appears complete or not at all (``stablefs._runtime.io.atomic_path``), so processes
    converting the same set at the same time each rename a whole file into place.

    Parameters
    ----------
    path : path-like
        Final ``.csv.gz`` path.
    data : RDataSet
        What :func:`read_rdata` returned.
    expected_content_sha256 : str, optional
        When given, the sha256 the CSV text must have; otherwise nothing is written and a
        StablefsError says the conversion differs from the registry's reference.
    name : str, optional
        The set's name, for that message.
    compresslevel : int
        gzip level (1, fastest; 9 reproduces the shared files byte for byte, slowly).

    Returns
    -------
    str
        sha256 of the uncompressed CSV text (what the registry records as
        ``content_sha256``).
    """
    h = hashlib.sha256()
    X = data.X
    missing = bool(np.isnan(X).any())
    with atomic_path(path) as tmp, open(tmp, "wb") as raw:
        # no time stamp, no file name: the bytes depend on the data (and level) only
        with gzip.GzipFile(
            filename="", mode="wb", compresslevel=compresslevel, fileobj=raw, mtime=0
        ) as gz:
            header = ",".join(_csv_field(t) for t in ["label", *data.feature_names]) + "\n"
            chunk = header.encode()
            h.update(chunk)
            gz.write(chunk)
            for label, row in zip(data.y, X):
                values: Iterable[str] = map(float.__repr__, row.tolist())
                if missing:
                    values = ("" if v == "nan" else v for v in values)
                chunk = (_csv_field(str(label)) + "," + ",".join(values) + "\n").encode()
                h.update(chunk)
                gz.write(chunk)
        digest = h.hexdigest()
        if expected_content_sha256 is not None and digest != expected_content_sha256:
            raise StablefsError(
                f"converting {name or Path(path).stem} gave a table with sha256 {digest}, not "
                f"the registry's {expected_content_sha256}: this stablefs or rdata version reads "
                "the file differently; nothing was written: please report it, and load an "
                "existing .csv.gz copy by its path meanwhile."
            )
    return digest


def convert_rdata(
    src: str | os.PathLike[str], dest: str | os.PathLike[str], name: str | None = None
) -> str:
    """Convert a ``datamicroarray`` ``.RData`` file to the ``.csv.gz`` form at ``dest``.

    Returns the sha256 of the uncompressed CSV text (see :func:`write_csv_gz`).
    """
    data = read_rdata(src, name)
    return write_csv_gz(dest, data)
