"""Data sets: file readers, the registry of named microarray sets, synthetic generators.

* :func:`load` reads a file (csv/tsv/txt[.gz], arff, npz, h5ad), a registry name (the 16
  sets of the ``datamicroarray`` collection, ``"alon"`` ... ``"west"``, or the aliases the
  papers use, ``"colon"``, ``"leukemia"``, ``"prostate"``, ``"lung"``, ``"srbct"``, ``"dlbcl"``) or
  a synthetic spec (``"synthetic:han2012?n_samples=200"``) into a :class:`Dataset`.
* :func:`make_han2012` (Han 2012, sec. 6.1) and :func:`make_xiao2007` (Xiao, Hua and Dougherty
  2007, sec. 2.2) generate data with known relevant features.
* :func:`registry_table` lists the named sets and where their files were found (the
  ``stablefs datasets`` command); :func:`fetch` returns a verified local ``.csv.gz`` of one,
  downloading the ``.RData`` and converting it (:func:`read_rdata`) when it is missing.
"""

from typing import TYPE_CHECKING

from stablefs.datasets._dataset import Dataset
from stablefs.datasets._rdata import read_rdata
from stablefs.datasets._registry import (
    ALIASES,
    REGISTRY,
    FetchResult,
    RegistryEntry,
    fetch,
    fetch_dataset,
    registry_table,
)
from stablefs.datasets._synthetic import make_han2012, make_xiao2007, xiao2007_mu

if TYPE_CHECKING:  # imported on first use (below), for type checkers
    from stablefs.datasets._load import load


def __getattr__(name: str):
    # load and its readers import pandas: on first use, so that a synthetic data set (and the
    # CLI's first line) does not wait for it
    if name == "load":
        from stablefs.datasets._load import load

        return load
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "ALIASES",
    "REGISTRY",
    "Dataset",
    "FetchResult",
    "RegistryEntry",
    "fetch",
    "fetch_dataset",
    "load",
    "make_han2012",
    "make_xiao2007",
    "read_rdata",
    "registry_table",
    "xiao2007_mu",
]
