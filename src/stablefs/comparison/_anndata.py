"""Results written back into an ``anndata.AnnData``, as scanpy's tools do
(``adata.var`` columns per feature, ``adata.uns[key_added]`` for the rest)."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from stablefs._errors import StablefsError

if TYPE_CHECKING:
    from anndata import AnnData

    from stablefs.comparison._result import Comparison

__all__ = ["annotate"]


def _column(key: str, method: str, k, what: str) -> str:
    method = re.sub(r"[^A-Za-z0-9+.-]+", "_", str(method)).strip("_")
    k = int(k) if float(k).is_integer() else k
    return f"{key}_{method}_k{k}_{what}"


def _plain(value):
    """A value h5ad can store (no None)."""
    if value is None:
        return ""
    if isinstance(value, float) and math.isnan(value):
        return np.nan
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (str, bool, int, float, np.generic)):
        return value
    return str(value)


def _feature_index(adata, comparison) -> pd.Index:
    """The comparison's feature names as they appear in ``adata.var``: ``var_names``, or the
    ``var`` column the comparison took its names from (``feature_names=``)."""
    names = [str(n) for n in adata.var_names]
    column = (comparison.config.get("data_options") or {}).get("feature_names")
    if isinstance(column, str) and column in adata.var.columns:
        names = [str(n) for n in adata.var[column]]
    used = comparison.frequencies["feature"].astype(str).unique() \
        if not comparison.frequencies.empty else []
    missing = set(used) - set(names)
    if missing:
        example = sorted(missing)[0]
        raise StablefsError(f"annotate: {len(missing)} selected feature(s) of the comparison "
                            f"are not in this AnnData's var_names (e.g. {example!r}): pass the "
                            "AnnData the comparison was run on.")
    return pd.Index(names)


def annotate(adata: AnnData, comparison: Comparison, *, key_added: str = "stablefs",
             copy: bool = False) -> AnnData | None:
    """Write a comparison's results into an AnnData.

    For every method and subset size k, ``adata.var`` gets the selection frequency of each
    feature (``<key>_<method>_k<k>_frequency``: the share of resamples whose top k held it)
    and whether it is in the consensus signature (``..._consensus``: selected in more than
    half of the resamples); ``<key>_recommended`` marks the consensus signature of the
    recommended pair. ``adata.uns[key_added]`` holds the recommendation, the evidence of
    signal, the stability and accuracy tables and the configuration.

    Parameters
    ----------
    adata : anndata.AnnData
        The data the comparison was run on (features matched by ``var_names``, or by the
        ``var`` column named with ``feature_names=``).
    comparison : Comparison
        From :func:`stablefs.compare` or :func:`stablefs.read_comparison`.
    key_added : str, default "stablefs"
        Prefix of the ``var`` columns and key in ``uns``.
    copy : bool, default False
        Return an annotated copy instead of writing into ``adata``.

    Returns
    -------
    anndata.AnnData or None
        The copy when ``copy=True``, else ``None`` (``adata`` is changed in place).

    References
    ----------
    Wolf, Angerer and Theis 2018, "SCANPY: large-scale single-cell gene expression data
    analysis", Genome Biology 19, 15 (tools write into ``obs``, ``var`` and ``uns`` under
    ``key_added``). Meinshausen and Bühlmann 2010, "Stability selection", JRSS B 72 (selection
    frequencies over resamples).

    Examples
    --------
    >>> import anndata, numpy as np, pandas as pd, stablefs
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 30)); X[:20, :3] += 2
    >>> adata = anndata.AnnData(X, obs=pd.DataFrame({"group": ["a"] * 20 + ["b"] * 20},
    ...                         index=[f"s{i}" for i in range(40)]),
    ...                         var=pd.DataFrame(index=[f"g{j}" for j in range(30)]))
    >>> result = stablefs.compare(adata, label="group", methods="ttest", sizes=[3],
    ...                           repeats=5, permutations=0, nested=0)
    >>> stablefs.annotate(adata, result)
    >>> adata.var["stablefs_ttest_k3_frequency"].nlargest(3).index.tolist()
    ['g0', 'g1', 'g2']
    >>> adata.uns["stablefs"]["recommendation"]["method"]
    'ttest'
    """
    from stablefs.stability.frequency import in_consensus

    if not hasattr(adata, "var") or not hasattr(adata, "uns"):
        raise StablefsError(f"annotate needs an anndata.AnnData, not {type(adata).__name__}.")
    target = adata.copy() if copy else adata
    index = _feature_index(target, comparison)
    position = pd.Series(np.arange(len(index)), index=index)
    freq = comparison.frequencies
    rec = comparison.recommendation
    if not freq.empty:
        for (method, k), d in freq.groupby(["method", "k"], sort=False):
            values = np.zeros(len(index))
            values[position.reindex(d["feature"].astype(str)).to_numpy(dtype=int)] = \
                d["frequency"].to_numpy(dtype=float)
            target.var[_column(key_added, method, k, "frequency")] = values
            target.var[_column(key_added, method, k, "consensus")] = in_consensus(values)
            if rec and rec.k is not None and method == rec.method and float(k) == float(rec.k):
                target.var[f"{key_added}_recommended"] = in_consensus(values)
    sig = comparison.signal
    target.uns[key_added] = _plain({
        "recommendation": {"method": rec.method, "k": rec.k, "measure": rec.measure,
                           "metric": rec.metric, "stability": rec.stability,
                           "accuracy": rec.accuracy, "sentence": rec.sentence,
                           "candidate": list(rec.candidate) if rec.candidate else []},
        "signal": {"evidence": "" if sig.evidence is None else bool(sig.evidence),
                   "verdict": sig.verdict, "p_value": sig.p_value, "tested": sig.tested},
        "params": {k: v for k, v in comparison.config.items()
                   if k in ("methods", "sizes", "classifiers", "measures", "seed",
                            "permutations", "nested", "protocol", "data_options")},
    })
    target.uns[key_added]["stability"] = comparison.stability.reset_index(drop=True)
    target.uns[key_added]["accuracy"] = comparison.accuracy
    return target if copy else None
