"""The consensus signature of each method and k, described on the whole data.

:func:`signature_table` lists, per (method, k), the consensus features (selected in more than
half of the resamples: :func:`stablefs.stability.in_consensus`, Han 2012 sec. 7.4 and
Table 7.6) with their selection frequency, their mean rank over the resamples, the class in
which each is higher, an effect size and a p-value with its Benjamini–Hochberg FDR.
:func:`write_signature` writes it as ``signature.csv`` and ``signature.gmt``
(``docs/DESIGN.md``, "Files a run writes").

The effect sizes and p-values are **descriptive**: they are computed on the whole data, on
which the features were also selected, so they are optimistic and are not a test of the
signature. The column names say so (``*_whole_data``). The FDR is taken over every feature
of the data (the family a gene was picked from), not over the few listed.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from stablefs._errors import StablefsError
from stablefs._runtime.escape import csv_text, escape_cell
from stablefs._runtime.io import atomic_write_text
from stablefs.stability.frequency import in_consensus

__all__ = ["SIGNATURE_COLUMNS", "add_symbols", "bh_fdr", "feature_statistics",
           "signature_gmt", "signature_table", "write_signature"]

SIGNATURE_COLUMNS = [
    "method", "k", "feature", "frequency", "mean_rank", "higher_in", "test",
    "effect_size_whole_data", "p_value_whole_data", "fdr_bh_whole_data",
]


def bh_fdr(p: np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (the step-up FDR of Benjamini and Hochberg 1995).

    ``q_(i) = min_{j >= i} min(1, m p_(j) / j)`` over the ``m`` finite p-values sorted
    increasingly; NaN p-values stay NaN and do not count in ``m``.
    """
    p = np.asarray(p, dtype=float)
    q = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = ok.size
    if m == 0:
        return q
    order = ok[np.argsort(p[ok], kind="stable")]
    scaled = p[order] * m / np.arange(1, m + 1)
    q[order] = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    return q


def feature_statistics(X, y) -> pd.DataFrame:
    """Per-feature class comparison on the whole data (descriptive).

    Two classes: Welch's t-test p-value and Cohen's d with the pooled standard deviation,
    ``d = (mean_a - mean_b) / s_pooled``, reported as ``|d|``; ``higher_in`` is the class
    with the larger mean. More classes: one-way ANOVA F-test p-value and
    ``eta^2 = SS_between / SS_total``; ``higher_in`` is the class with the largest mean.
    Constant features get NaN statistics and an empty ``higher_in``. Missing values are
    replaced by the feature's median (as ``stablefs compare --missing impute`` does); a
    feature with no value at all is treated as constant.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
    y : array of shape (n_samples,)

    Returns
    -------
    DataFrame
        One row per feature, in column order: ``higher_in, test, effect_size, p_value,
        fdr_bh`` (FDR over all features).
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise StablefsError(f"X must be (n_samples, n_features) with one label per sample; "
                            f"got X {X.shape} and y {y.shape}.")
    if np.isnan(X).any():
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
            med = np.nanmedian(X, axis=0)
        X = np.where(np.isnan(X), np.nan_to_num(med, nan=0.0)[None, :], X)
    classes, codes = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise StablefsError("the signature needs at least two classes in y.")
    counts = np.bincount(codes)
    means = np.vstack([X[codes == c].mean(axis=0) for c in range(classes.size)])
    top = classes[np.argmax(means, axis=0)].astype(str)
    total_ss = ((X - X.mean(axis=0)) ** 2).sum(axis=0)
    constant = total_ss <= 1e-12 * np.maximum(1.0, (X**2).sum(axis=0))
    with np.errstate(divide="ignore", invalid="ignore"):
        if classes.size == 2:
            a, b = X[codes == 0], X[codes == 1]
            p = stats.ttest_ind(a, b, axis=0, equal_var=False).pvalue
            va, vb = a.var(axis=0, ddof=1), b.var(axis=0, ddof=1)
            na, nb = counts
            pooled = np.sqrt(((na - 1) * va + (nb - 1) * vb) / (na + nb - 2))
            effect = np.abs(means[0] - means[1]) / pooled
            test = "Welch t-test; effect size |Cohen's d|"
        else:
            p = stats.f_oneway(*[X[codes == c] for c in range(classes.size)], axis=0).pvalue
            between = (counts[:, None] * (means - X.mean(axis=0)) ** 2).sum(axis=0)
            effect = between / total_ss
            test = "one-way ANOVA F-test; effect size eta^2"
    p = np.where(constant, np.nan, p)
    effect = np.where(constant, np.nan, effect)
    top = np.where(constant, "", top)
    return pd.DataFrame({"higher_in": top, "test": test, "effect_size": effect,
                         "p_value": p, "fdr_bh": bh_fdr(p)})


def signature_table(frequencies: pd.DataFrame, X, y, feature_names,
                    selections: pd.DataFrame | None = None) -> pd.DataFrame:
    """Consensus features of every (method, k) with their descriptive statistics.

    Parameters
    ----------
    frequencies : DataFrame
        ``method, k, feature, frequency`` (the runner's ``frequencies``).
    X, y : arrays
        The whole data the run used (features in the order of ``feature_names``).
    feature_names : sequence of str
        The column names of ``X``.
    selections : DataFrame, optional
        The runner's ``selections`` (``method, ranking``); gives ``mean_rank``, the mean over
        resamples of the feature's rank (1 = best). Without it ``mean_rank`` is NaN.

    Returns
    -------
    DataFrame
        :data:`SIGNATURE_COLUMNS`; per (method, k) the features with frequency > 0.5, most
        frequent first (ties: better mean rank first, then name).
    """
    names = np.asarray([str(f) for f in feature_names], dtype=object)
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != names.size:
        raise StablefsError(f"X has {X.shape[-1]} columns but {names.size} feature names "
                            "were given.")
    if len(set(names)) != names.size:
        raise StablefsError("feature names must be unique to write a signature.")
    feat_stats = feature_statistics(X, y)
    feat_stats.index = names
    mean_ranks: dict[str, pd.Series] = {}
    if selections is not None and not selections.empty:
        for method, sel in selections.groupby("method", sort=False):
            ranks = np.vstack([np.asarray(r, dtype=float) for r in sel["ranking"]])
            mean_ranks[str(method)] = pd.Series(ranks.mean(axis=0), index=names)
    rows = []
    freq = frequencies[in_consensus(frequencies["frequency"].to_numpy(dtype=float))]
    for (method, k), d in freq.groupby(["method", "k"], sort=False):
        d = d.drop_duplicates("feature")
        feats = d["feature"].astype(str).to_numpy()
        unknown = [f for f in feats if f not in feat_stats.index]
        if unknown:
            raise StablefsError(f"feature {unknown[0]!r} of the frequencies is not a column "
                                "of the data.")
        st = feat_stats.loc[feats]
        mr = mean_ranks.get(str(method))
        rows.append(pd.DataFrame({
            "method": str(method), "k": k, "feature": feats,
            "frequency": d["frequency"].to_numpy(dtype=float),
            "mean_rank": mr.loc[feats].to_numpy() if mr is not None else np.nan,
            "higher_in": st["higher_in"].to_numpy(), "test": st["test"].to_numpy(),
            "effect_size_whole_data": st["effect_size"].to_numpy(),
            "p_value_whole_data": st["p_value"].to_numpy(),
            "fdr_bh_whole_data": st["fdr_bh"].to_numpy(),
        }))
    if not rows:
        return pd.DataFrame(columns=SIGNATURE_COLUMNS)
    out = pd.concat(rows, ignore_index=True)
    out["_order"] = np.arange(len(out))
    order_m = {m: i for i, m in enumerate(pd.unique(out["method"]))}
    out["_m"] = out["method"].map(order_m)
    out = out.sort_values(["_m", "k", "frequency", "mean_rank", "feature"],
                          ascending=[True, True, False, True, True], kind="stable")
    return out[SIGNATURE_COLUMNS].reset_index(drop=True)


def add_symbols(signature: pd.DataFrame, feature_names, symbols) -> pd.DataFrame:
    """``signature`` with a ``symbol`` column right after ``feature`` (``--annotation``).

    ``symbols`` holds one gene symbol per entry of ``feature_names`` (``""`` for a probe
    without one, as :func:`stablefs.datasets._annotation.symbols_for` gives them).
    """
    lookup = dict(zip((str(f) for f in feature_names), (str(s) for s in symbols)))
    out = signature.copy()
    column = out["feature"].astype(str).map(lookup).fillna("") if len(out) else []
    out.insert(out.columns.get_loc("feature") + 1, "symbol", column)
    return out


def _gmt_members(d: pd.DataFrame) -> list[str]:
    """A GMT line's genes: the symbols when the signature has them (each once, in signature
    order; a probe without a symbol keeps its ID), else the feature IDs."""
    if "symbol" not in d.columns:
        return [_gmt_field(f) for f in d["feature"]]
    genes = [s if s else f for f, s in zip(d["feature"].astype(str), d["symbol"].astype(str))]
    return [_gmt_field(g) for g in dict.fromkeys(genes)]


def _gmt_field(text) -> str:
    # no tab or newline inside a GMT field; a leading formula character is escaped (OWASP)
    return escape_cell(" ".join(str(text).split()))


def signature_gmt(signature: pd.DataFrame, *, data_name: str | None = None) -> str:
    """The signatures as a GMT gene set file: one line per (method, k) with a consensus,
    ``name<TAB>description<TAB>gene<TAB>gene...``; the name is ``<method>_k<k>``. With a
    ``symbol`` column (:func:`add_symbols`) the genes are the symbols (what enrichment tools
    match) and the description lists the probe IDs beside them.

    A field that a spreadsheet would run as a formula (a gene named ``=cmd()``) gets a leading
    ``'`` (:func:`stablefs._runtime.escape.escape_cell`); the raw names stay in the data file."""
    lines = []
    for (method, k), d in signature.groupby(["method", "k"], sort=False):
        kk = f"{float(k):g}"
        name = _gmt_field(f"{method}_k{kk}")
        desc = _gmt_field(f"stablefs consensus of {method} at k={kk}"
                          + (f" on {data_name}" if data_name else "")
                          + ": features selected in more than half of the resamples"
                          + _gmt_probes(d))
        lines.append("\t".join([name, desc, *_gmt_members(d)]))
    return "".join(line + "\n" for line in lines)


def _gmt_probes(d: pd.DataFrame) -> str:
    if "symbol" not in d.columns:
        return ""
    return "; probes " + ", ".join(f"{f} ({s})" if s else str(f) for f, s in
                                   zip(d["feature"].astype(str), d["symbol"].astype(str)))


def write_signature(out_dir, signature: pd.DataFrame, *, data_name: str | None = None
                    ) -> dict[str, Path]:
    """Write a :func:`signature_table` as ``signature.csv`` and ``signature.gmt`` into
    ``out_dir`` (atomically). Text cells that a spreadsheet would run as a formula are escaped
    with a leading ``'`` (OWASP; :mod:`stablefs._runtime.escape`).

    Returns ``{"signature.csv": Path, "signature.gmt": Path}``.
    """
    out_dir = Path(out_dir)
    csv = atomic_write_text(out_dir / "signature.csv",
                            csv_text(signature, lineterminator="\n"))
    gmt = atomic_write_text(out_dir / "signature.gmt",
                            signature_gmt(signature, data_name=data_name))
    return {"signature.csv": csv, "signature.gmt": gmt}
