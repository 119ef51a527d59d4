"""
AnnData in, results written back
================================

Single-cell and bulk expression data in Python usually live in an ``anndata.AnnData``:
samples in ``obs``, genes in ``var``, the matrix in ``X`` or in ``layers``. ``stablefs.compare``
takes one directly (the class is an ``obs`` column, ``label=``; another layer with
``layer=``), and :func:`stablefs.annotate` writes the results back into it as scanpy's tools
do: per method and k, each gene's selection frequency and consensus flag in ``var``, the
summary in ``uns``.
"""

# %%
# An AnnData of the Colon data: raw intensities in ``X`` (stablefs says so when it loads
# them), their log2 in a layer, the tissue in ``obs``.
import textwrap

import anndata
import numpy as np
import pandas as pd

import stablefs

colon = stablefs.load("colon")
adata = anndata.AnnData(
    X=colon.X,
    obs=pd.DataFrame({"tissue": np.where(colon.y == "t", "tumour", "normal")},
                     index=[f"patient{i}" for i in range(colon.n_samples)]),
    var=pd.DataFrame(index=colon.feature_names),
)
adata.layers["log2"] = np.log2(np.maximum(adata.X, 0) + 1)
adata

# %%
# The comparison reads the class from ``obs["tissue"]`` and the values from the log2 layer.
result = stablefs.compare(adata, label="tissue", layer="log2",
                          methods="ttest,relieff,iw-relieff", sizes=[10, 20, 50],
                          permutations=20, nested=0)
print(textwrap.fill(result.recommendation.sentence, 88))

# %%
# Written back
# ------------
stablefs.annotate(adata, result)
rec = result.recommendation
print([c for c in adata.var.columns if c.startswith(f"stablefs_{rec.method}_")])
columns = [f"stablefs_{rec.method}_k{rec.k}_frequency", f"stablefs_{rec.method}_k{rec.k}_consensus",
           "stablefs_recommended"]
print(adata.var.loc[adata.var["stablefs_recommended"], columns])

# %%
# ``uns["stablefs"]`` holds the recommendation, the evidence of signal, the stability and
# accuracy tables and the configuration:
summary = adata.uns["stablefs"]
print(sorted(summary))
print(summary["recommendation"])

# %%
# Everything travels with the data: write the file, read it back.
import tempfile
from pathlib import Path

path = Path(tempfile.mkdtemp()) / "colon.h5ad"
adata.write_h5ad(path)
back = anndata.read_h5ad(path)
print(back.var["stablefs_recommended"].sum(), "genes flagged in", path.name)

# %%
# The selection frequencies, as the report draws them: for each k, the genes sorted by how
# often a method selected them. A stable method has a few genes at frequency 1 and then a
# sharp drop.
result.plot_frequencies()
