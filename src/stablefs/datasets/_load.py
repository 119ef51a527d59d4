""":func:`load`: one entry point for files, registry names and synthetic specs."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from stablefs._errors import StablefsError
from stablefs.datasets._dataset import Dataset
from stablefs.datasets._readers import SUPPORTED, file_stem, read_file
from stablefs.datasets._registry import REGISTRY, fetch
from stablefs.datasets._synthetic import GENERATORS, from_spec


def load(
    source,
    *,
    label=None,
    data_home=None,
    drop_nominal: bool = False,
    drop_missing: bool = False,
    encode_nominal: bool = False,
) -> Dataset:
    """Load a data set from a file, the registry, or a synthetic spec (``docs/DESIGN.md``, Data).

    Parameters
    ----------
    source : str or path-like
        * a path to a ``.csv`` / ``.tsv`` / ``.txt`` file (each optionally ``.gz``), an
          ``.arff`` file, an ``.npz`` archive (arrays ``X``, ``y``, optional
          ``feature_names``) or an ``.h5ad`` file (needs ``anndata``);
        * a registry name: ``"colon"``, ``"leukemia"``, ``"prostate"``, ``"lung"``,
          ``"srbct"``, ``"dlbcl"`` (any letter case), searched in ``data_home``, then the
          folders of ``STABLEFS_DATA``, then the user cache, and checked against its sha256;
        * a synthetic spec ``"synthetic:han2012"``, ``"synthetic:han2012?n_samples=200&
          random_state=3"``, ``"synthetic:xiao2007?model=bimodal&n_samples=50"``.

        An existing file always wins over a registry name of the same spelling.
    label : str or int, optional
        The class column (CLI ``--label``): a column / attribute / array / obs name, or for
        headerless tables and ARFF files a 0-based position. Default: the column ``label`` of
        a table, the last attribute of an ARFF file, the last column of a headerless table,
        the array ``y`` of an ``.npz``.
    data_home : path-like, optional
        Folder searched first for registry files.
    drop_nominal : bool
        Drop non-numeric feature columns (CLI ``--drop-nominal``) instead of refusing them.
    drop_missing : bool
        Drop samples that have a missing feature value (CLI ``--drop-missing``) instead of
        refusing them.
    encode_nominal : bool
        ARFF only: turn nominal feature attributes into 0/1 indicator columns instead of
        refusing them (needed for files whose features are all nominal, such as UCI vote).

    Returns
    -------
    Dataset
        ``X`` float64, C-contiguous; ``y`` a ``str`` array for files (integers for synthetic
        data). Whatever was dropped or encoded is recorded in ``meta`` and announced with a
        warning, never silently.

    Raises
    ------
    StablefsError
        One line naming the file and the problem: unknown source (with close registry names),
        unknown extension, empty/corrupt/binary file, missing label column, missing or
        non-numeric values, checksum mismatch, a named set that cannot be found or downloaded.
    """
    if isinstance(source, Dataset):
        return source
    try:
        text = os.fspath(source)
    except TypeError:
        raise StablefsError(
            f"cannot load {source!r}: give a file path, a registry name or a synthetic spec."
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
        return read_file(
            path,
            label=label,
            drop_nominal=drop_nominal,
            drop_missing=drop_missing,
            encode_nominal=encode_nominal,
        )
    key = text.strip().lower()
    if path.is_dir() and key not in REGISTRY:
        raise StablefsError(f"{text}: is a folder, not a data file ({SUPPORTED}).")
    # a registry name wins over a folder of the same name (e.g. the output of a former
    # ``stablefs compare colon`` run in the current directory)
    if key in REGISTRY:
        local = fetch(key, data_home)
        ds = read_file(
            local,
            label=label,
            drop_nominal=drop_nominal,
            drop_missing=drop_missing,
            encode_nominal=encode_nominal,
        )
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
