"""The inputs of a comparison: the data (loaded with the data options), the subset sizes, the
lists of methods, classifiers and measures, and the fingerprints that key a finished run.

The command line and :func:`stablefs.compare` read their inputs through these functions, so
that both accept the same values and refuse the same ones with the same line.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from stablefs._errors import StablefsError, as_data_error

if TYPE_CHECKING:
    from typing import TypeAlias

    import pandas as pd
    from anndata import AnnData
    from numpy.typing import ArrayLike

    #: what a comparison reads: a path, a registry name or a synthetic spec (anything
    #: :func:`stablefs.datasets.load` takes), a DataFrame, an AnnData, or ``(X, y)``
    DataSource: TypeAlias = (str | os.PathLike[str] | pd.DataFrame | AnnData
                             | tuple[ArrayLike, ArrayLike])

#: the subset sizes of ``compare`` and ``select`` without ``-k``
DEFAULT_SIZES = (10, 20, 30, 40, 50)

#: how the values are analysed: as given, log2(max(x, 0) + 1), or log2 when they look raw
SCALES = ("raw", "log2", "auto")


def split_list(text: str) -> list[str]:
    """Split a comma-separated list, keeping commas inside parentheses.

    Parameters
    ----------
    text : str
        Such as ``"relieff(n_neighbors=5,x=1),ttest"``.

    Returns
    -------
    list of str
        The items, stripped, empty items left out.

    Examples
    --------
    >>> split_list("relieff(n_neighbors=5,x=1), ttest")
    ['relieff(n_neighbors=5,x=1)', 'ttest']
    """
    items: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        if ch == "," and depth == 0:
            items.append("".join(current).strip())
            current = []
            continue
        depth += (ch == "(") - (ch == ")")
        current.append(ch)
    items.append("".join(current).strip())
    return [i for i in items if i]


def as_list(value, what: str) -> list:
    """A comma-separated string or a sequence, as a list (``what`` names the option in the
    error line)."""
    if value is None:
        return []
    if isinstance(value, str):
        return split_list(value)
    if isinstance(value, (list, tuple)):
        return list(value)
    raise StablefsError(f"{what} must be a comma-separated string or a list, not "
                        f"{type(value).__name__}.")


def parse_sizes(text, n_features: int) -> list[int]:
    """The subset sizes k, checked against the number of features.

    Parameters
    ----------
    text : str, sequence of int or None
        ``"10,20,50"``, a range ``"10:50"`` / ``"10:50:10"`` (both ends included), or a list
        of whole numbers. ``None``: 10, 20, 30, 40, 50 (those below ``n_features``).
    n_features : int
        Every size must lie in 1..``n_features``.

    Returns
    -------
    list of int

    Examples
    --------
    >>> parse_sizes("10:30:10", 2000)
    [10, 20, 30]
    >>> parse_sizes(None, 25)
    [10, 20]
    """
    from stablefs._validation import check_n_features_to_select, check_sizes

    if text is None:
        sizes = [k for k in DEFAULT_SIZES if k < n_features]
        return sizes or [max(1, n_features // 2)]
    if not isinstance(text, str):
        try:
            values = list(text)
        except TypeError:
            values = [text]
        for v in values:
            check_n_features_to_select(v, n_features)
        return check_sizes([int(v) for v in values], n_features)
    out = []
    parts = split_list(text)
    if not parts:
        raise StablefsError("-k is empty: give sizes like -k 10,20,50 or -k 10:50:10.")
    for part in parts:
        try:
            bounds = [int(v) for v in part.split(":")]
        except ValueError:
            raise StablefsError(
                f"cannot read subset size {part!r}: use whole numbers like -k 10,20,50 or a "
                "range like -k 10:50:10."
            ) from None
        if len(bounds) == 1:
            out.append(bounds[0])
            continue
        if len(bounds) > 3:
            raise StablefsError(
                f"cannot read the range {part!r}: write START:STOP or START:STOP:STEP, "
                "e.g. -k 10:50:10."
            )
        a, b, step = bounds[0], bounds[1], bounds[2] if len(bounds) == 3 else 1
        if step < 1:
            raise StablefsError(f"the range {part!r} needs a step of at least 1, not {step}.")
        if b < a:
            raise StablefsError(
                f"the range {part!r} is empty: its end {b} is below its start {a} "
                f"(write {b}:{a}{':' + str(step) if len(bounds) == 3 else ''})."
            )
        # the ends are checked arithmetically before the range is expanded, so that
        # -k 1:10000000000 is one line, not a list of ten billion sizes
        last = a + (b - a) // step * step
        for end in (a, last):
            check_n_features_to_select(end, n_features)
        out.extend(range(a, last + 1, step))
    return check_sizes(out, n_features)


def check_scale(scale) -> str:
    """``scale`` as one of :data:`SCALES`, or one line naming them."""
    text = str(scale).strip().lower() if isinstance(scale, str) else scale
    if text not in SCALES:
        raise StablefsError(f"scale = {scale!r}: use one of {', '.join(SCALES)} (raw: the "
                            "values as given; log2: log2(max(x, 0) + 1); auto: log2 when the "
                            "values look like raw intensities).")
    return text


def is_synthetic(data) -> bool:
    """Whether ``data`` is a synthetic spec such as ``"synthetic:han2012?n_samples=200"``."""
    return isinstance(data, str) and data.strip().lower().startswith("synthetic:")


def load_data(data, opts: dict, seed: int = 0):
    """Load ``data`` (anything :func:`stablefs.datasets.load` takes, or ``(X, y)``) with the
    data options ``opts``, then apply the value scale and the annotation.

    A synthetic spec without ``random_state`` is drawn from ``seed`` (``--seed``), never from
    entropy, so the same command gives the same data.
    """
    scale = check_scale(opts.get("scale") or ("log2" if opts.get("log2") else "auto"))
    if is_synthetic(data):
        from stablefs.datasets._synthetic import from_spec

        ds = from_spec(str(data).strip(), random_state=seed)
    else:
        from stablefs.datasets import load  # the readers (pandas)

        pair = isinstance(data, tuple)
        if pair:
            data = _frame_from_pair(data, opts.get("feature_names"))
        elif opts.get("feature_names") is not None and not isinstance(opts["feature_names"],
                                                                      str):
            raise StablefsError("feature_names= as a list names the columns of an (X, y) "
                                "array; for an AnnData it is the var column of the names.")
        keys = ("label", "labels", "transpose", "missing", "drop_nominal", "encode_nominal",
                "layer")
        kwargs = {k: opts[k] for k in keys if opts.get(k) not in (None, False)}
        if isinstance(opts.get("feature_names"), str) and not pair:
            kwargs["feature_names"] = opts["feature_names"]  # AnnData: a var column
        from stablefs.datasets._scale import raw_hint_off

        try:
            with raw_hint_off():  # the scale is decided below, and said there
                ds = load(data, **kwargs)
        except StablefsError as exc:  # the data cannot be read or used: exit status 3
            raise as_data_error(exc) from None
    ds = apply_scale(ds, scale)
    try:
        return annotate_dataset(ds, opts)
    except StablefsError as exc:
        raise as_data_error(exc) from None


def _frame_from_pair(pair: tuple, feature_names):
    """``(X, y)``: arrays (``feature_names`` names the columns; else ``f0 ... f{p-1}``) or a
    DataFrame and a Series (the frame's columns name the features, its index the samples)."""
    import numpy as np
    import pandas as pd

    if len(pair) != 2:
        raise StablefsError(f"data as a tuple must be (X, y), not {len(pair)} items.")
    if isinstance(feature_names, str):
        raise StablefsError("feature_names= for (X, y) is the list of the columns' names.")
    X, y = pair
    if isinstance(X, pd.DataFrame):
        if feature_names is not None:
            raise StablefsError("feature_names= is for arrays: a DataFrame's columns name its "
                                "features already.")
        frame = X.copy()
        labels = y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y)
        if isinstance(y, pd.Series) and not y.index.equals(X.index):
            if set(y.index) != set(X.index):
                raise StablefsError("(X, y): the Series' index does not match the DataFrame's "
                                    "index: give y for the same samples.")
            labels = y.reindex(X.index).to_numpy()
    else:
        if hasattr(X, "toarray"):
            raise StablefsError("(X, y): X is a sparse matrix: pass an AnnData (which stablefs "
                                "densifies after checking the memory it needs) or a dense "
                                "array.")
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise StablefsError(f"(X, y): X must be 2-dimensional (samples x features), not "
                                f"of shape {arr.shape}.")
        names = ([f"f{j}" for j in range(arr.shape[1])] if feature_names is None
                 else [str(f) for f in feature_names])
        if len(names) != arr.shape[1]:
            raise StablefsError(f"feature_names has {len(names)} names for {arr.shape[1]} "
                                "features.")
        frame = pd.DataFrame(arr, columns=names)
        labels = np.asarray(y)
    if len(labels) != len(frame):
        raise StablefsError(f"(X, y): {len(frame)} samples in X but {len(labels)} labels in y.")
    if "label" in frame.columns:
        raise StablefsError("(X, y): X has a column named 'label'; rename it, or pass the "
                            "DataFrame alone with label='label'.")
    frame.insert(0, "label", labels)
    return frame


def apply_scale(ds, scale: str):
    """``ds`` on the value scale asked for, the decision recorded in ``ds.meta["scale"]``
    (``asked``, ``applied``).

    ``auto`` log2-transforms data that look like raw intensities
    (:func:`stablefs.datasets._scale.value_scale`), with one line that says so; ``raw``
    keeps them, with one line when they look raw (:func:`~stablefs.datasets._scale.raw_hint`
    in its ``kept`` wording); ``log2`` always transforms.
    """
    import logging

    from stablefs.datasets._scale import log2_dataset, raw_hint, value_scale

    if ds.meta.get("log2"):
        ds.meta["scale"] = {"asked": scale, "applied": "log2"}
        return ds
    before = value_scale(ds.X)
    if scale == "raw":
        if before.raw:
            logging.getLogger("stablefs").warning(raw_hint(ds.name, before, kept=True))
        ds.meta["scale"] = {"asked": "raw", "applied": "raw"}
        return ds
    if scale == "log2" or before.raw:
        ds = log2_dataset(ds, before=before)
        if scale == "auto":
            logging.getLogger("stablefs").warning(raw_hint(ds.name, before, applied=True))
        ds.meta["scale"] = {"asked": scale, "applied": "log2"}
        return ds
    ds.meta["scale"] = {"asked": scale, "applied": "raw"}  # auto, on log-scale values
    return ds


def annotate_dataset(ds, opts: dict):
    """``ds.symbols`` from the ``annotation`` option (checked against the data's probe IDs
    before any work), recorded in ``ds.meta["annotation"]``."""
    if not opts.get("annotation"):
        return ds
    from stablefs.datasets._annotation import load_annotation

    ds.symbols = load_annotation(opts["annotation"], ds.feature_names)
    ds.meta["annotation"] = {"file": str(opts["annotation"]),
                             "features_with_symbol": int(sum(1 for s in ds.symbols if s))}
    return ds


def input_fingerprints(ds, opts: dict) -> dict[str, str]:
    """sha256 of every input file by its role (``data``, ``labels``, ``annotation``): a
    changed input is a changed configuration, and the same input at another path is the same
    configuration (a pipeline that stages its inputs reuses the finished run)."""
    from stablefs._runtime.rundir import file_sha256

    files = {}
    if ds.source and not is_synthetic(ds.source) and Path(ds.source).is_file():
        files["data"] = file_sha256(ds.source)
    if opts.get("annotation") and Path(opts["annotation"]).is_file():
        files["annotation"] = file_sha256(opts["annotation"])
    labels = opts.get("labels")
    if isinstance(labels, (str, os.PathLike)):
        text = os.fspath(labels)
        path = Path(text) if Path(text).is_file() else Path(text.rsplit(":", 1)[0])
        if path.is_file():
            files["labels"] = file_sha256(path)
    return files


def data_digest(ds) -> str:
    """sha256 of the data matrix and the labels as analysed."""
    from stablefs.evaluation._checks import _digest

    return _digest(ds.X, ds.y)


def names_of(items: Sequence) -> list[str]:
    """Printable names of methods given as strings, selector objects or (name, selector)."""
    out = []
    for m in items:
        if isinstance(m, str):
            out.append(m.strip())
        elif isinstance(m, tuple) and len(m) == 2 and isinstance(m[0], str):
            out.append(m[0])
        else:
            out.append(type(m).__name__)
    return out
