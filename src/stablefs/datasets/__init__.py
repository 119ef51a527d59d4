"""Data sets: file readers, the registry of named microarray sets, synthetic generators.

* :func:`load` reads a file (csv/tsv/txt[.gz], arff, npz, h5ad), a registry name (``"colon"``,
  ``"leukemia"``, ``"prostate"``, ``"lung"``, ``"srbct"``, ``"dlbcl"``) or a synthetic spec
  (``"synthetic:han2012?n_samples=200"``) into a :class:`Dataset`.
* :func:`make_han2012` (seed 000 sec. 6.1) and :func:`make_xiao2007` (seed 004 sec. 2.2) generate
  data with known relevant features.
* :func:`registry_table` lists the named sets and where their files were found (the
  ``stablefs datasets`` command); :func:`fetch` returns a verified local copy of one.
"""

from stablefs.datasets._dataset import Dataset
from stablefs.datasets._load import load
from stablefs.datasets._registry import REGISTRY, RegistryEntry, fetch, registry_table
from stablefs.datasets._synthetic import make_han2012, make_xiao2007, xiao2007_mu

__all__ = [
    "REGISTRY",
    "Dataset",
    "RegistryEntry",
    "fetch",
    "load",
    "make_han2012",
    "make_xiao2007",
    "registry_table",
    "xiao2007_mu",
]
