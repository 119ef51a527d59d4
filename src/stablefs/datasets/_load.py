""":func:`load`: one entry point for files, data in memory, registry names and synthetic specs."""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from stablefs._errors import StablefsError
from stablefs.datasets._dataset import Dataset
from stablefs.datasets._finish import show
from stablefs.datasets._inmemory import (
    DEFAULT_MAX_DENSE_BYTES,
    is_anndata,
    read_anndata,
    read_dataframe,
)
from stablefs.datasets._readers import SUPPORTED, ReadOptions, file_stem, read_file
from stablefs.datasets._registry import REGISTRY, fetch
from stablefs.datasets._scale import check_log2, log2_dataset, warn_if_raw
from stablefs.datasets._synthetic import GENERATORS, from_spec

if TYPE_CHECKING:
    from anndata import AnnData


def load(
    source: str | os.PathLike[str] | pd.DataFrame | AnnData,
    *,
    label: str | int | None = None,
    data_home: str | os.PathLike[str] | None = None,
    drop_nominal: bool = False,
    drop_missing: bool = False,
    encode_nominal: bool = False,
    transpose: bool = False,
    labels: str | os.PathLike[str] | pd.Series | None = None,
    missing: str | None = None,
    layer: str | None = None,
    feature_names: str | None = None,
    max_dense_bytes: int = DEFAULT_MAX_DENSE_BYTES,
    log2: bool = False,
) -> Dataset:
    """Load a data set from a file, data in memory, the registry, or a synthetic spec.

    The entry point of ``docs/DESIGN.md`` ("Data"). Every source goes through the same checks,
    each refusing bad input with one line that says what to do.

    Parameters
    ----------
    source : str, path-like, pandas.DataFrame or anndata.AnnData
        * a path to a ``.csv`` / ``.tsv`` / ``.txt`` file (each optionally ``.gz``), an
          ``.arff`` file, an ``.npz`` archive (arrays ``X``, ``y``, optional ``feature_names``
          and ``sample_names``) or an ``.h5ad`` file (needs ``anndata``);
        * a ``pandas.DataFrame`` (one row per sample; the index, unless it is the default
          0, 1, 2, ..., gives the sample names) or an ``anndata.AnnData`` (classes in an
          ``obs`` column);
        * a registry name: ``"colon"``, ``"leukemia"``, ``"prostate"``, ``"lung"``,
          ``"srbct"``, ``"dlbcl"`` (any letter case), searched in ``data_home``, then the
          folders of ``STABLEFS_DATA``, then the user cache, and checked against its sha256;
        * a synthetic spec ``"synthetic:han2012"``, ``"synthetic:han2012?n_samples=200&
          random_state=3"``, ``"synthetic:xiao2007?model=bimodal&n_samples=50"``.

        An existing file always wins over a registry name of the same spelling.
    label : str or int, optional
        The class column (CLI ``--label``): a column / attribute / array / obs name, the name of
        the class *row* with ``transpose=True``, or for headerless tables and ARFF files a
        0-based position. Default: the column (row) ``label`` of a table, the last attribute of
        an ARFF file, the last column of a headerless table, the array ``y`` of an ``.npz``.
    data_home : path-like, optional
        Folder searched first for registry files.
    drop_nominal : bool
        Drop non-numeric feature columns (CLI ``--drop-nominal``) instead of refusing them;
        with ``transpose=True``, drop gene rows holding text and text columns that are not
        samples.
    drop_missing : bool
        Same as ``missing="drop-samples"`` (CLI ``--drop-missing``).
    encode_nominal : bool
        ARFF only: turn nominal feature attributes into 0/1 indicator columns instead of
        refusing them (needed for files whose features are all nominal, such as UCI vote).
    transpose : bool
        Text tables only (CLI ``--transpose``): the file is genes × samples, as GEO and most
        expression tools write it: the first column holds the gene IDs (the feature names),
        the header row the sample IDs (``Dataset.sample_names``), and a row named ``label`` (or
        ``label=NAME``) the classes, unless ``labels=`` gives them.
    labels : str, path-like or pandas.Series, optional
        Classes from a separate sample sheet (CLI ``--labels FILE[:COLUMN]``):
        ``"samples.csv:diagnosis"`` (a .csv/.tsv/.txt file, optionally .gz, and its class
        column), ``"samples.csv"`` (column ``label``), or a Series indexed by sample ID. The
        sheet is joined on the data's sample IDs (its ID column is the one holding most of
        them); every sample must be in both, once; the data's sample order is kept. The data
        must then have no class column of its own.
    missing : {None, "refuse", "drop-samples", "drop-features", "impute"}
        Missing feature values (CLI ``--missing``): ``None``/``"refuse"`` refuses them with one
        line naming the columns; ``"drop-samples"`` drops the samples that have one;
        ``"drop-features"`` drops the features that have one (``meta["dropped_features"]``);
        ``"impute"`` keeps the NaNs in ``X`` and records ``meta["missing"] = "impute"`` and
        ``meta["n_missing"]``: the experiment runner imputes each feature's median fitted on
        each training part (a feature with no value at all is refused).
    layer : str, optional
        AnnData / ``.h5ad`` only: use ``adata.layers[layer]`` instead of ``adata.X``.
    feature_names : str, optional
        AnnData / ``.h5ad`` only: the ``var`` column holding the feature names (default
        ``var_names``).
    max_dense_bytes : int
        AnnData / ``.h5ad`` only: a sparse (or non-float64) matrix is made dense float64 only
        when ``n × p × 8`` bytes fit in this bound (default 4 GiB); otherwise the load is
        refused.
    log2 : bool
        Replace every value x by ``log2(max(x, 0) + 1)`` (CLI ``--log2``; the rule and why
        negatives are floored: :func:`stablefs.datasets._scale.log2_transform`), recorded in
        ``meta["log2"]``. Without it, data that look like raw (unlogged) intensities
        (:func:`stablefs.datasets._scale.value_scale`) get one warning line naming ``--log2``.

    Returns
    -------
    Dataset
        ``X`` float64, C-contiguous; ``y`` a ``str`` array for files and data in memory
        (integers for synthetic data); ``sample_names`` the sample IDs (``s0 … s{n-1}`` when
        the source has none). Whatever was dropped or encoded is recorded in ``meta`` and
        announced on the ``"stablefs"`` logger (one warning line), never silently.

    Raises
    ------
    StablefsError
        One line naming the source and the problem: unknown source (with close registry
        names), unknown extension, empty/corrupt/binary file, missing or duplicated label
        column, duplicated feature or sample names, missing or non-numeric values, sample IDs
        missing from the sample sheet (or the reverse), continuous labels, fewer than 2
        samples, every feature constant, a sparse matrix too large to densify, checksum
        mismatch, a named set that cannot be found or downloaded, an invalid option value.

    See Also
    --------
    stablefs.datasets.fetch : The verified local file of a registry name.
    stablefs.datasets.make_han2012, stablefs.datasets.make_xiao2007 : The synthetic generators.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 6.1
       (``"synthetic:han2012"``).
    .. [2] Y. Xiao, J. Hua and E. R. Dougherty, "Quantification of the impact of feature
       selection on the variance of cross-validation error estimation", EURASIP Journal on
       Bioinformatics and Systems Biology, 2007, Article ID 16354, sec. 2.2
       (``"synthetic:xiao2007"``).
    .. [3] J. A. Ramey, "datamicroarray: Collection of Data Sets for Classification", R package
       version 0.2.3, 2016, https://github.com/ramhiser/datamicroarray (the registry names).

    Examples
    --------
    A table in memory, one row per sample, its classes in the column ``label``:

    >>> import pandas as pd
    >>> from stablefs.datasets import load
    >>> frame = pd.DataFrame({"label": ["t", "t", "n", "n"], "TP53": [1.2, 0.8, 2.5, 2.9],
    ...                       "MYC": [0.3, 0.4, 0.2, 0.1]}, index=["p1", "p2", "p3", "p4"])
    >>> data = load(frame)
    >>> data
    Dataset('DataFrame', 4 samples x 2 features, classes {n: 2, t: 2})
    >>> print(*data.sample_names)
    p1 p2 p3 p4

    A genes × samples file, as GEO writes them, with a ``label`` row:

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "genes.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("gene,p1,p2,p3,p4\\nlabel,t,t,n,n\\nTP53,1.2,0.8,2.5,2.9\\n"
    ...                 "MYC,0.3,0.4,0.2,0.1\\n")
    >>> data = load(path, transpose=True)
    >>> print(*data.feature_names, "|", *data.y)
    TP53 MYC | t t n n

    A synthetic spec:

    >>> load("synthetic:xiao2007?model=unequal&n_samples=30&random_state=1").X.shape
    (30, 200)
    """
    if isinstance(source, Dataset):
        return source
    ds = _read_source(source, label=label, data_home=data_home, drop_nominal=drop_nominal,
                      drop_missing=drop_missing, encode_nominal=encode_nominal,
                      transpose=transpose, labels=labels, missing=missing, layer=layer,
                      feature_names=feature_names, max_dense_bytes=max_dense_bytes)
    return log2_dataset(ds) if check_log2(log2) else _warned_if_raw(ds)


def _warned_if_raw(ds: Dataset) -> Dataset:
    warn_if_raw(ds)
    return ds


def _read_source(source, *, label, data_home, drop_nominal, drop_missing, encode_nominal,
                 transpose, labels, missing, layer, feature_names,
                 max_dense_bytes) -> Dataset:
    """The reading part of :func:`load` (its parameters but ``log2``, which :func:`load`
    applies to the result)."""
    if not isinstance(transpose, (bool, np.bool_)):
        raise StablefsError(f"transpose={show(transpose)} must be True or False.")
    if isinstance(max_dense_bytes, bool) or not isinstance(max_dense_bytes, (int, np.integer)) \
            or max_dense_bytes <= 0:
        raise StablefsError(
            f"max_dense_bytes={show(max_dense_bytes)} must be a positive whole number of bytes."
        )
    if labels is not None and not isinstance(labels, (str, os.PathLike, pd.Series)):
        raise StablefsError(
            f"labels= must be a sample-sheet path such as 'samples.csv:diagnosis' or a pandas "
            f"Series indexed by sample ID, not a {type(labels).__name__}."
        )
    options = ReadOptions.make(
        label=label,
        labels=labels,
        drop_nominal=bool(drop_nominal),
        drop_missing=bool(drop_missing),
        encode_nominal=bool(encode_nominal),
        missing=missing,
        transpose=bool(transpose),
        layer=layer,
        feature_names=feature_names,
        max_dense_bytes=int(max_dense_bytes),
    )
    anndata_only = [n for n, v in (("layer", layer), ("feature_names", feature_names)) if v]
    if isinstance(source, pd.DataFrame):
        _refuse_options(options, "a DataFrame", anndata_only, transpose=True)
        return read_dataframe(source, options)
    if is_anndata(source):
        _refuse_options(options, "an AnnData", [], transpose=True)
        return read_anndata(source, options)
    try:
        text = os.fspath(source)
    except TypeError:
        raise StablefsError(
            f"cannot load {type(source).__name__} {_short(source)}: give a file path, a "
            "registry name, a synthetic spec, a pandas DataFrame or an AnnData."
        ) from None
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    text = str(text)
    if not text.strip():
        raise StablefsError(
            "no data source given: pass a file path, a registry name or a "
            "synthetic spec such as synthetic:han2012."
        )
    if text.strip().lower().startswith("synthetic:"):
        return from_spec(text.strip())
    path = Path(text).expanduser()
    if path.is_file():
        if not path.name.lower().endswith(".h5ad"):
            _refuse_options(options, str(path), anndata_only)
        return read_file(path, options)
    key = text.strip().lower()
    if path.is_dir() and key not in REGISTRY:
        raise StablefsError(f"{text}: is a folder, not a data file ({SUPPORTED}).")
    # a registry name wins over a folder of the same name (e.g. the output of a former
    # ``stablefs compare colon`` run in the current directory)
    if key in REGISTRY:
        _refuse_options(options, f"the registry set {key!r}", anndata_only, transpose=True)
        local = fetch(key, data_home)
        ds = read_file(local, options)
        entry = REGISTRY[key]
        ds.name = key
        ds.meta.update({"registry": key, "description": entry.description, "sha256": entry.sha256})
        return ds
    known = list(REGISTRY) + [f"synthetic:{g}" for g in GENERATORS]
    probe = file_stem(Path(key)) if key not in known else key
    close = difflib.get_close_matches(probe, known, n=3, cutoff=0.6)
    hint = f" Did you mean {' or '.join(close)}?" if close else ""
    raise StablefsError(
        f"{text}: no such file, and not a registry name.{hint} Registry names: "
        f"{', '.join(REGISTRY)}; synthetic data: synthetic:han2012, synthetic:xiao2007."
    )


def _short(obj) -> str:
    text = repr(obj)
    return text if len(text) <= 40 else text[:37] + "..."


def _refuse_options(options: ReadOptions, what: str, names: list[str], *,
                    transpose: bool = False) -> None:
    """Options that do not apply to ``what`` are errors, not silently ignored."""
    if names:
        raise StablefsError(
            f"{_name_and_verb(names)} for AnnData (.h5ad) data only, not for {what}: remove "
            f"{' and '.join(n + '=' for n in names)}."
        )
    if transpose and options.transpose:
        hint = " (transpose the frame yourself: frame.T)" if "DataFrame" in what else ""
        raise StablefsError(
            f"transpose=True (--transpose) is for genes × samples text tables, not for "
            f"{what}{hint}."
        )


def _name_and_verb(names: list[str]) -> str:
    return f"{' and '.join(n + '=' for n in names)} {'is' if len(names) == 1 else 'are'}"
