"""Data already in memory: a ``pandas.DataFrame`` or an ``anndata.AnnData`` (and ``.h5ad`` files).

Both go through the same checks as files (:func:`stablefs.datasets._finish.finish`): duplicated
names, non-numeric columns, missing values, continuous labels, constant data, fewer than two
samples.
"""

from __future__ import annotations

import logging
import sys

import numpy as np
import pandas as pd

from stablefs._errors import ResourceError, StablefsError
from stablefs.datasets._dataset import Dataset
from stablefs.datasets._finish import check_labels, check_unique, finish, name_list, show, warn

logger = logging.getLogger("stablefs")

#: Default ceiling on the dense float64 matrix made from a sparse (or non-float64) AnnData ``X``.
DEFAULT_MAX_DENSE_BYTES = 4 * 2**30

_DROP_NOMINAL_HINT = "drop_nominal=True"


def is_anndata(obj) -> bool:
    """Whether ``obj`` is an ``anndata.AnnData`` (without importing anndata when it is not
    loaded: an object of that class cannot exist before its module is imported)."""
    module = sys.modules.get("anndata")
    return module is not None and isinstance(obj, module.AnnData)


def _find_column(columns: list[str], label, where: str, *, kind: str = "column") -> int | None:
    """Position of the class column: the exact name, else the single case-insensitive match."""
    want = "label" if label is None else str(label)
    exact = [i for i, c in enumerate(columns) if c == want]
    if len(exact) > 1:
        raise StablefsError(
            f"{where}: duplicated label {kind}: {show(want)} appears {len(exact)} times: keep one "
            f"class {kind}."
        )
    if exact:
        return exact[0]
    loose = [i for i, c in enumerate(columns) if c.lower() == want.lower()]
    return loose[0] if len(loose) == 1 else None


def _is_default_index(index: pd.Index) -> bool:
    return (
        isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1
    )


def read_dataframe(frame: pd.DataFrame, options) -> Dataset:
    """A ``pandas.DataFrame``, one row per sample.

    The class column is ``label=`` (default ``label``; exact name, else the single column named
    ``label`` in any letter case), unless ``labels=`` gives the classes from a sample sheet or
    Series joined on the sample IDs. The index becomes ``Dataset.sample_names`` unless it is the
    default ``RangeIndex`` (0, 1, 2, ...); then a first column (not the class column) of text
    with unique values is taken as the sample IDs, as in files. Every other column must be
    numeric (nullable integer/float columns are fine; ``pd.NA`` counts as missing); duplicated
    column names are refused.
    """
    where = "the DataFrame"
    if frame.shape[0] == 0:
        raise StablefsError(f"{where}: has no rows (samples).")
    columns = [str(c) for c in frame.columns]
    check_unique(columns, where, what="column names")
    external = options.labels is not None
    if external and options.label is not None:
        raise StablefsError(
            f"{where}: label= ({show(options.label)}) and labels= both given: the classes come "
            "either from a column (label=) or from a sample sheet (labels=), not both."
        )
    li = _find_column(columns, options.label, where)
    meta: dict = {"format": "DataFrame"}
    y = None
    label_text = "label"
    if external:
        if li is not None:
            raise StablefsError(
                f"{where}: has its own class column {show(columns[li])} and labels= gives a "
                "sample sheet: use one source of classes."
            )
    else:
        if li is None:
            want = "label" if options.label is None else str(options.label)
            text_cols = [c for c, dt in zip(columns, frame.dtypes) if dt.kind not in "iuf"]
            hint = f" (non-numeric columns: {name_list(text_cols)})" if text_cols else ""
            raise StablefsError(
                f"{where}: has no column {show(want)}{hint}; name the class column with "
                "label=NAME, or give the classes with labels=."
            )
        label_text = columns[li]
        meta["label_column"] = label_text
        col = frame.iloc[:, li]
        y = check_labels(col.astype(object).where(col.notna(), None), where, label_text,
                         rows="rows")
    positions = [i for i in range(frame.shape[1]) if i != li]
    sample_names = None
    if not _is_default_index(frame.index):
        sample_names = [str(v) for v in frame.index.tolist()]
        meta["sample_id_column"] = "(index)"
    elif li != 0 and positions and frame.dtypes.iloc[positions[0]].kind not in "iuf":
        first = frame.iloc[:, positions[0]]
        if first.notna().all() and first.is_unique:
            sample_names = [str(v) for v in first.tolist()]
            meta["sample_id_column"] = columns[positions[0]]
            positions = positions[1:]
    bad = [i for i in positions if frame.dtypes.iloc[i].kind not in "iuf"]
    if bad:
        names = [columns[i] for i in bad]
        if not options.drop_nominal:
            raise StablefsError(
                f"{where}: {len(bad)} non-numeric feature column(s): {name_list(names)} (dtypes "
                f"{name_list([str(frame.dtypes.iloc[i]) for i in bad], 3)}); features must be "
                f"numbers: convert them, or pass {_DROP_NOMINAL_HINT} to drop those columns."
            )
        if len(bad) == len(positions):
            raise StablefsError(
                f"{where}: all {len(positions)} feature columns are non-numeric, so dropping "
                "them leaves no features."
            )
        meta["dropped_columns"] = names
        warn(
            f"{where}: dropped {len(bad)} non-numeric feature column(s) ({name_list(names)}) "
            "(drop_nominal=True); listed in Dataset.meta['dropped_columns']."
        )
        positions = [i for i in positions if i not in set(bad)]
    block = frame.iloc[:, positions]
    X = block.to_numpy(dtype=np.float64, na_value=np.nan, copy=True)
    return finish(
        X,
        y,
        [columns[i] for i in positions],
        where=where,
        name="DataFrame",
        source="<pandas.DataFrame>",
        meta=meta,
        sample_names=sample_names,
        labels=options.labels,
        missing=options.missing,
        label_column=label_text,
    )


def read_anndata(adata, options, *, where: str = "the AnnData", name: str = "AnnData",
                 source: str = "<anndata.AnnData>", fmt: str = "AnnData") -> Dataset:
    """An ``anndata.AnnData`` (observations = samples, variables = features).

    ``label=`` names the ``obs`` column of classes (default ``label``), unless ``labels=``
    gives them (joined on ``obs_names``); ``layer=`` takes ``adata.layers[layer]`` instead of
    ``adata.X``; ``feature_names=`` names a ``var`` column to use instead of ``var_names``.
    ``obs_names`` become ``Dataset.sample_names``. A sparse (or non-float64) matrix is turned
    into a dense float64 one only when ``n_obs × n_vars × 8`` bytes fit in
    ``max_dense_bytes`` (default 4 GiB); otherwise the load is refused with one line.
    """
    layer = options.layer
    if layer is None:
        matrix = adata.X
        if matrix is None:
            raise StablefsError(f"{where}: has no X matrix: name a layer with layer=NAME.")
    else:
        layers = [str(k) for k in adata.layers]
        if str(layer) not in layers:
            raise StablefsError(
                f"{where}: has no layer {show(layer)}; layers: {name_list(layers) or 'none'}."
            )
        matrix = adata.layers[str(layer)]
    n, p = adata.n_obs, adata.n_vars
    meta: dict = {"format": fmt}
    if layer is not None:
        meta["layer"] = str(layer)
    sparse = hasattr(matrix, "toarray") or hasattr(matrix, "todense")
    dtype = getattr(matrix, "dtype", None)
    if sparse or dtype != np.float64:
        need = int(n) * int(p) * 8
        if need > options.max_dense_bytes:
            raise StablefsError(
                f"{where}: its {'sparse ' if sparse else ''}{n} × {p} matrix would need "
                f"{need / 2**30:.1f} GiB as dense float64, more than max_dense_bytes="
                f"{options.max_dense_bytes} ({options.max_dense_bytes / 2**30:.1f} GiB): select "
                "fewer features first (e.g. highly variable genes), or raise max_dense_bytes."
            )
        from stablefs._runtime.memory import available_memory

        free = available_memory()
        if free is not None and need > free:
            raise ResourceError(
                f"{where}: its {'sparse ' if sparse else ''}{n} × {p} matrix would need "
                f"{need / 2**30:.1f} GiB as dense float64, more than the "
                f"{free / 2**30:.1f} GiB of memory available: select fewer features first "
                "(e.g. highly variable genes).")
        if sparse:
            nnz = getattr(matrix, "nnz", None)
            share = f", {100 * nnz / max(1, n * p):.1f}% non-zero" if nnz is not None else ""
            logger.warning(f"{where}: its sparse {n} × {p} matrix{share} is made dense for "
                           f"the selectors: {need / 2**20:,.0f} MiB as float64.")
    if sparse:
        X = matrix.astype(np.float64).toarray()  # one dense copy, never two
    else:
        X = np.array(matrix, dtype=np.float64, copy=True)
    if options.feature_names is None:
        feature_names = [str(v) for v in adata.var_names]
    else:
        key = str(options.feature_names)
        if key not in adata.var.columns:
            cols = [str(c) for c in adata.var.columns]
            raise StablefsError(
                f"{where}: var has no column {show(key)}; var columns: "
                f"{name_list(cols) or 'none'}."
            )
        col = adata.var[key]
        if col.isna().any():
            raise StablefsError(f"{where}: var column {show(key)} has missing names.")
        feature_names = [str(v) for v in col.tolist()]
        meta["feature_names_column"] = key
    check_unique(feature_names, where, what="feature names (var)", unit="variables")
    external = options.labels is not None
    if external and options.label is not None:
        raise StablefsError(
            f"{where}: label= ({show(options.label)}) and labels= both given: the classes come "
            "either from an obs column (label=) or from a sample sheet (labels=), not both."
        )
    y = None
    label_text = "label"
    obs_cols = [str(c) for c in adata.obs.columns]
    li = _find_column(obs_cols, options.label, where, kind="obs column")
    if external:
        if li is not None:
            raise StablefsError(
                f"{where}: has its own class column obs[{show(obs_cols[li])}] and labels= gives a "
                "sample sheet: use one source of classes."
            )
    else:
        if li is None:
            want = "label" if options.label is None else str(options.label)
            raise StablefsError(
                f"{where}: obs has no column {show(want)}; obs columns: "
                f"{name_list(obs_cols) or 'none'}; name the class column with label=NAME (CLI "
                "--label NAME)."
            )
        label_text = obs_cols[li]
        col = adata.obs.iloc[:, li]
        y = check_labels(col.astype(object).where(col.notna(), None), where, label_text,
                         rows="observations")
        meta["label_column"] = label_text
    return finish(
        X,
        y,
        feature_names,
        where=where,
        name=name,
        source=source,
        meta=meta,
        sample_names=[str(v) for v in adata.obs_names],
        labels=options.labels,
        missing=options.missing,
        label_column=label_text,
    )
