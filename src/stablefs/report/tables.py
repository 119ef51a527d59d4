"""Tidy inputs → summaries, formatted tables and the computed summary sentences.

Inputs are the runner's tidy frames (``docs/DESIGN.md``, "Files a run writes"):

* ``results``: ``method, k, resample, metric, value``. Metrics named ``<kind>_<classifier>``
  (``accuracy_svm``, ``auc_1nn``, ...) are per-k predictive metrics; metrics ending in
  ``time`` (``fit_time``) are per (method, resample) and their ``k`` (0 or NaN) is ignored.
* ``stability``: ``method, k, measure, estimate, low, high`` (``low``/``high`` may be NaN or
  absent).
* ``frequencies``: ``method, k, feature, frequency`` (possibly only rows with frequency > 0).

Every function here is pure (no files, no plotting).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from stablefs._errors import StablefsError
from stablefs.report.render import Strong, Table
from stablefs.stability.frequency import CONSENSUS_THRESHOLD, in_consensus

__all__ = [
    "CONSENSUS_THRESHOLD",
    "classifier_label",
    "consensus_table",
    "format_estimate",
    "format_k",
    "format_mean_sd",
    "format_seconds",
    "measure_label",
    "metric_label",
    "parse_metric",
    "performance_summary",
    "performance_table",
    "prepare_frequencies",
    "prepare_results",
    "prepare_stability",
    "primary_measure",
    "primary_metrics",
    "stability_table",
    "summary_sentences",
    "time_summary",
    "time_table",
]

# A feature is in a method's consensus signature when selected in MORE than this share of the
# resamples: the one rule of :func:`stablefs.stability.consensus` (Han 2012 sec. 7.4, Table 7.6).

DASH = "–"

_MEASURE_LABELS = {
    "kuncheva": "Kuncheva",
    "nogueira": "Nogueira",
    "jaccard": "Jaccard",
    "dice": "Dice",
    "hamming": "Hamming",
    "ochiai": "Ochiai",
    "somol": "Somol CWrel",
    "lustgarten": "Lustgarten",
    "phi": "Phi",
    "npogr": "nPOGR",
    "spearman": "Spearman",
    "kendall": "Kendall",
    "pearson": "Pearson",
    "weight_variance": "Weight variance",
}
_CLASSIFIER_LABELS = {"svm": "linear SVM", "lda": "LDA", "nb": "naive Bayes"}
_KIND_LABELS = {
    "accuracy": "Accuracy",
    "balanced_accuracy": "Balanced accuracy",
    "auc": "AUC",
    "error": "Error rate",
    "f1": "F1",
    "mcc": "MCC",
}
_KINDS_LOWER_IS_BETTER = {"error", "log_loss", "brier"}
_MEASURES_LOWER_IS_BETTER = {"weight_variance"}


# ------------------------------------------------------------------------- labels


def measure_label(measure: str) -> str:
    """Display name of a stability measure (``"kuncheva"`` → ``"Kuncheva"``)."""
    key = str(measure)
    return _MEASURE_LABELS.get(key.lower(), key)


def classifier_label(classifier: str) -> str:
    """Display name of a classifier key (``"svm"`` → ``"linear SVM"``, ``"3nn"`` → ``"3NN"``)."""
    key = str(classifier)
    low = key.lower()
    if low in _CLASSIFIER_LABELS:
        return _CLASSIFIER_LABELS[low]
    if low.endswith("nn") and low[:-2].isdigit():
        return low[:-2] + "NN"
    return key


def parse_metric(metric: str) -> tuple[str, str]:
    """Split a metric name into ``(kind, classifier)``.

    ``"accuracy_svm"`` → ``("accuracy", "svm")``, ``"balanced_accuracy_1nn"`` →
    ``("balanced_accuracy", "1nn")``; a name without a known kind prefix is split at its
    last underscore, and a name without underscore has classifier ``""``.
    """
    metric = str(metric)
    for kind in sorted(_KIND_LABELS, key=len, reverse=True):
        if metric == kind:
            return kind, ""
        if metric.startswith(kind + "_"):
            return kind, metric[len(kind) + 1 :]
    if "_" in metric:
        kind, clf = metric.rsplit("_", 1)
        return kind, clf
    return metric, ""


def metric_label(metric: str) -> str:
    """Display name of a metric (``"auc_svm"`` → ``"AUC (linear SVM)"``)."""
    kind, clf = parse_metric(metric)
    name = _KIND_LABELS.get(kind, kind.replace("_", " ").capitalize())
    return f"{name} ({classifier_label(clf)})" if clf else name


def _is_time_metric(metric: str) -> bool:
    return str(metric).lower().endswith("time")


# --------------------------------------------------------------------- formatting


def format_k(k) -> str:
    """``50.0`` → ``"50"``; non-integral sizes keep their decimals; NaN → ``"–"``."""
    try:
        x = float(k)
    except (TypeError, ValueError):
        return str(k)
    if not math.isfinite(x):
        return DASH
    return str(int(x)) if x.is_integer() else f"{x:g}"


def _fmt(x, digits: int) -> str:
    return f"{x:.{digits}f}" if x is not None and math.isfinite(x) else DASH


def format_estimate(estimate: float, low: float = math.nan, high: float = math.nan, *,
                    digits: int = 3) -> str:
    """Format an estimate with its interval: ``"0.712 [0.650, 0.774]"``.

    Both bounds NaN → the estimate alone; one bound NaN → ``"–"`` in its place; NaN
    estimate → ``"–"``.
    """
    if estimate is None or not math.isfinite(estimate):
        return DASH
    est = _fmt(estimate, digits)
    lo_ok = low is not None and math.isfinite(low)
    hi_ok = high is not None and math.isfinite(high)
    if not lo_ok and not hi_ok:
        return est
    return f"{est} [{_fmt(low, digits)}, {_fmt(high, digits)}]"


def format_mean_sd(mean: float, sd: float = math.nan, *, digits: int = 3) -> str:
    """``"0.843 ± 0.021"``; the mean alone when ``sd`` is NaN (a single resample)."""
    if mean is None or not math.isfinite(mean):
        return DASH
    if sd is None or not math.isfinite(sd):
        return _fmt(mean, digits)
    return f"{_fmt(mean, digits)} ± {_fmt(sd, digits)}"


def format_seconds(seconds: float, sd: float | None = None) -> str:
    """Human-readable duration with three significant digits: ``"1.23 s"``, ``"12.3 ms"``.

    With ``sd``, ``"1.23 ± 0.05 s"`` in the unit of the mean.
    """
    if seconds is None or not math.isfinite(seconds):
        return DASH
    a = abs(seconds)
    if a >= 3600:
        unit, scale = "h", 3600.0
    elif a >= 60:
        unit, scale = "min", 60.0
    elif a >= 1 or a == 0:
        unit, scale = "s", 1.0
    elif a >= 1e-3:
        unit, scale = "ms", 1e-3
    else:
        unit, scale = "µs", 1e-6

    x = seconds / scale
    decimals = 0 if x == 0 else max(0, 2 - int(math.floor(math.log10(abs(x)))))
    text = f"{x:.{decimals}f}"
    if sd is not None and math.isfinite(sd):
        text += f" ± {sd / scale:.{decimals}f}"  # sd to the precision of the mean
    return f"{text} {unit}"


# ------------------------------------------------------------------------ inputs


def _require(df: pd.DataFrame, name: str, columns: Sequence[str]) -> None:
    if not isinstance(df, pd.DataFrame):
        raise StablefsError(f"{name} must be a pandas DataFrame, not {type(df).__name__}.")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise StablefsError(
            f"{name} lacks the column(s) {', '.join(missing)}: expected columns "
            f"{', '.join(columns)}."
        )


def prepare_results(results: pd.DataFrame) -> pd.DataFrame:
    """Check and normalise ``results`` (``method, k, resample, metric, value``).

    ``method``/``metric`` become strings, ``k``/``value`` floats (NaN where missing or not
    numeric). Rows are otherwise kept as given.
    """
    _require(results, "results", ["method", "k", "resample", "metric", "value"])
    out = results[["method", "k", "resample", "metric", "value"]].copy()
    out["method"] = out["method"].astype(str)
    out["metric"] = out["metric"].astype(str)
    out["k"] = pd.to_numeric(out["k"], errors="coerce").astype(float)
    out["value"] = pd.to_numeric(out["value"], errors="coerce").astype(float)
    return out.reset_index(drop=True)


def prepare_stability(stability: pd.DataFrame) -> pd.DataFrame:
    """Check and normalise ``stability`` (``method, k, measure, estimate[, low, high]``).

    Missing ``low``/``high`` columns are added as NaN; rows with no ``k`` are dropped;
    duplicated (method, k, measure) rows keep the first.
    """
    _require(stability, "stability", ["method", "k", "measure", "estimate"])
    out = stability.copy()
    for col in ("low", "high"):
        if col not in out.columns:
            out[col] = np.nan
    out = out[["method", "k", "measure", "estimate", "low", "high"]].copy()
    out["method"] = out["method"].astype(str)
    out["measure"] = out["measure"].astype(str)
    for col in ("k", "estimate", "low", "high"):
        out[col] = pd.to_numeric(out[col], errors="coerce").astype(float)
    out = out[np.isfinite(out["k"].to_numpy())]
    out = out.drop_duplicates(["method", "k", "measure"], keep="first")
    return out.reset_index(drop=True)


def prepare_frequencies(frequencies: pd.DataFrame | None) -> pd.DataFrame | None:
    """Check and normalise ``frequencies``; ``None`` when absent or empty."""
    if frequencies is None:
        return None
    _require(frequencies, "frequencies", ["method", "k", "feature", "frequency"])
    out = frequencies[["method", "k", "feature", "frequency"]].copy()
    out["method"] = out["method"].astype(str)
    out["feature"] = out["feature"].astype(str)
    out["k"] = pd.to_numeric(out["k"], errors="coerce").astype(float)
    out["frequency"] = pd.to_numeric(out["frequency"], errors="coerce").astype(float)
    out = out[np.isfinite(out["k"].to_numpy()) & np.isfinite(out["frequency"].to_numpy())]
    if out.empty:
        return None
    return out.reset_index(drop=True)


def method_order(declared: Iterable | None, *frames: pd.DataFrame | None) -> list[str]:
    """Methods in the declared order (``run_info["methods"]``), then any others as met."""
    seen: dict[str, None] = {}
    for m in declared or []:
        seen.setdefault(str(m), None)
    for df in frames:
        if df is not None and "method" in df.columns:
            for m in pd.unique(df["method"].astype(str)):
                seen.setdefault(m, None)
    return list(seen)


def _present(methods: Sequence[str], *frames: pd.DataFrame | None) -> list[str]:
    have: set[str] = set()
    for df in frames:
        if df is not None and not df.empty:
            have.update(df["method"].unique())
    return [m for m in methods if m in have]


# --------------------------------------------------------------------- summaries


def performance_summary(results: pd.DataFrame) -> pd.DataFrame:
    """Mean and sd over resamples of every per-k predictive metric.

    Parameters
    ----------
    results : DataFrame
        Output of :func:`prepare_results`.

    Returns
    -------
    DataFrame
        ``method, k, metric, kind, classifier, mean, sd, n`` for rows with a finite k > 0
        and a metric that is not a time; ``sd`` uses ``ddof=1`` (NaN for one resample).
    """
    cols = ["method", "k", "metric", "kind", "classifier", "mean", "sd", "n"]
    keep = (
        np.isfinite(results["k"].to_numpy())
        & (results["k"].to_numpy() > 0)
        & ~results["metric"].map(_is_time_metric).to_numpy(dtype=bool)
    )
    df = results[keep]
    if df.empty:
        return pd.DataFrame(columns=cols)
    g = df.groupby(["method", "k", "metric"], sort=False)["value"]
    out = g.agg(mean="mean", sd="std", n="count").reset_index()
    parsed = out["metric"].map(parse_metric)
    out["kind"] = [p[0] for p in parsed]
    out["classifier"] = [p[1] for p in parsed]
    return out[cols]


def time_summary(results: pd.DataFrame) -> pd.DataFrame:
    """Mean and sd over resamples of each time metric (``fit_time``), per method.

    Per (method, resample), rows of one time metric are summed (one row per fit in the
    runner's output, whatever its ``k``), then mean and sd (``ddof=1``) are taken over
    resamples.

    Returns
    -------
    DataFrame
        ``method, metric, mean, sd, n``.
    """
    cols = ["method", "metric", "mean", "sd", "n"]
    df = results[results["metric"].map(_is_time_metric).to_numpy(dtype=bool)]
    df = df[np.isfinite(df["value"].to_numpy())]
    if df.empty:
        return pd.DataFrame(columns=cols)
    per = df.groupby(["method", "metric", "resample"], sort=False)["value"].sum().reset_index()
    out = per.groupby(["method", "metric"], sort=False)["value"].agg(
        mean="mean", sd="std", n="count"
    )
    return out.reset_index()[cols]


def primary_measure(stability: pd.DataFrame) -> str | None:
    """The measure the summary and the trade-off plot use: Kuncheva, else Nogueira, else..."""
    measures = list(pd.unique(stability["measure"])) if not stability.empty else []
    for pref in ("kuncheva", "nogueira", "jaccard"):
        for m in measures:
            if m.lower() == pref:
                return m
    return measures[0] if measures else None


def primary_metrics(perf: pd.DataFrame) -> list[str]:
    """One headline metric per classifier: its accuracy, else its first metric."""
    out: dict[str, str] = {}
    for metric, kind, clf in perf[["metric", "kind", "classifier"]].drop_duplicates().itertuples(
        index=False
    ):
        if clf not in out or (kind == "accuracy" and parse_metric(out[clf])[0] != "accuracy"):
            out[clf] = metric
    return list(out.values())


# ------------------------------------------------------------------------ tables


def _best_mask(values: Sequence[float], *, higher: bool, digits: int) -> list[bool]:
    vals = [round(v, digits) if v is not None and math.isfinite(v) else None for v in values]
    finite = [v for v in vals if v is not None]
    if len(finite) < 2:
        return [False] * len(vals)
    best = max(finite) if higher else min(finite)
    return [v is not None and v == best for v in vals]


def _pivot_table(methods: Sequence[str], ks: Sequence[float], cell, value, *,
                 higher: bool) -> Table:
    """Method × k table; the best value per k (at display precision) in bold."""
    rows: list[list] = [[m] for m in methods]
    for k in ks:
        best = _best_mask([value(m, k) for m in methods], higher=higher, digits=3)
        for r, (m, b) in enumerate(zip(methods, best, strict=True)):
            text = cell(m, k)
            rows[r].append(Strong(text) if b else text)
    return Table(header=["Method"] + [f"k = {format_k(k)}" for k in ks], rows=rows)


def stability_table(stability: pd.DataFrame, measure: str, methods: Sequence[str]) -> Table:
    """Method × k table of ``measure``, cells ``"0.712 [0.650, 0.774]"``, best per k in bold.

    Parameters
    ----------
    stability : DataFrame
        Output of :func:`prepare_stability`.
    measure : str
        Which measure.
    methods : sequence of str
        Row order; methods without any value of ``measure`` are left out.
    """
    df = stability[stability["measure"] == measure]
    lookup = {(m, k): (e, lo, hi) for m, k, e, lo, hi in
              df[["method", "k", "estimate", "low", "high"]].itertuples(index=False)}
    ks = sorted(df["k"].unique())
    rows = _present(methods, df)
    higher = measure.lower() not in _MEASURES_LOWER_IS_BETTER

    def cell(m, k):
        e, lo, hi = lookup.get((m, k), (math.nan, math.nan, math.nan))
        return format_estimate(e, lo, hi)

    def value(m, k):
        return lookup.get((m, k), (math.nan,))[0]

    return _pivot_table(rows, ks, cell, value, higher=higher)


def performance_table(perf: pd.DataFrame, metric: str, methods: Sequence[str]) -> Table:
    """Method × k table of ``metric`` as ``"mean ± sd"`` over resamples, best per k in bold."""
    df = perf[perf["metric"] == metric]
    lookup = {(m, k): (mu, sd) for m, k, mu, sd in
              df[["method", "k", "mean", "sd"]].itertuples(index=False)}
    ks = sorted(df["k"].unique())
    rows = _present(methods, df)
    higher = parse_metric(metric)[0] not in _KINDS_LOWER_IS_BETTER

    def cell(m, k):
        return format_mean_sd(*lookup.get((m, k), (math.nan, math.nan)))

    def value(m, k):
        return lookup.get((m, k), (math.nan,))[0]

    return _pivot_table(rows, ks, cell, value, higher=higher)


def frequency_k(frequencies: pd.DataFrame, method: str, k: float | None = None) -> float | None:
    """The size used for ``method``'s frequency plot and consensus: ``k`` if the method has
    it, else the method's largest k."""
    ks = frequencies.loc[frequencies["method"] == method, "k"]
    if ks.empty:
        return None
    if k is not None and (ks == k).any():
        return float(k)
    return float(ks.max())


def top_features(frequencies: pd.DataFrame, method: str, k: float, n: int | None = None
                 ) -> pd.DataFrame:
    """``feature, frequency`` of ``method`` at ``k``, most frequent first.

    Ties keep the input order (the runner lists features by index, so ties go to the lower
    feature index, as rankings do).
    """
    df = frequencies[(frequencies["method"] == method) & (frequencies["k"] == k)]
    df = df[df["frequency"] > 0].sort_values("frequency", ascending=False, kind="stable")
    df = df.drop_duplicates("feature", keep="first")
    return (df if n is None else df.head(n))[["feature", "frequency"]].reset_index(drop=True)


def consensus_table(frequencies: pd.DataFrame, methods: Sequence[str], *,
                    threshold: float = CONSENSUS_THRESHOLD, top: int = 20,
                    k: float | None = None) -> Table:
    """Per method, the features selected in more than ``threshold`` of the resamples (the rule
    of :func:`stablefs.stability.consensus`).

    Parameters
    ----------
    frequencies : DataFrame
        Output of :func:`prepare_frequencies`.
    methods : sequence of str
        Row order.
    threshold : float, default 0.5
        Minimal selection frequency.
    top : int, default 20
        How many of the consensus features to name (most frequent first).
    k : float, optional
        Subset size; default (and for methods without it) the method's largest k.

    Returns
    -------
    Table
        Columns: method, k, number of features with frequency > threshold, number selected
        in every resample, and the top names with their frequencies.
    """
    rows = []
    for m in _present(methods, frequencies):
        km = frequency_k(frequencies, m, k)
        feats = top_features(frequencies, m, km)
        cons = feats[in_consensus(feats["frequency"].to_numpy(), threshold)]
        always = int((feats["frequency"] >= 1 - 1e-12).sum())
        names = ", ".join(f"{f} ({q:.2f})" for f, q in cons.head(top).itertuples(index=False))
        if len(cons) > top:
            names += f", … and {len(cons) - top} more"
        rows.append([m, format_k(km), str(len(cons)), str(always), names or DASH])
    return Table(
        header=["Method", "k", f"Features with frequency > {threshold:g}", "In every resample",
                f"Top {top} (selection frequency)"],
        rows=rows,
        align=["l", "r", "r", "r", "l"],
    )


def time_table(timing: pd.DataFrame, methods: Sequence[str]) -> Table:
    """Mean ± sd of each time metric per method, with the number of fits."""
    metrics = list(pd.unique(timing["metric"]))
    rows = []
    for m in _present(methods, timing):
        row = [m]
        n = 0
        for metric in metrics:
            sel = timing[(timing["method"] == m) & (timing["metric"] == metric)]
            if sel.empty:
                row.append(DASH)
            else:
                r = sel.iloc[0]
                row.append(format_seconds(float(r["mean"]), float(r["sd"])))
                n = max(n, int(r["n"]))
        row.append(str(n))
        rows.append(row)
    labels = [("Fit time" if mt == "fit_time" else mt.replace("_", " ").capitalize())
              + " (mean ± sd)" for mt in metrics]
    return Table(header=["Method", *labels, "Resamples"], rows=rows)


# ---------------------------------------------------------------------- summary


def _names(methods: Sequence[str]) -> str:
    methods = list(methods)
    if len(methods) <= 1:
        return "".join(methods)
    return ", ".join(methods[:-1]) + " and " + methods[-1]


def _leaders(values: dict[str, float], *, higher: bool = True, digits: int = 2
             ) -> list[str]:
    """Methods whose value equals the best at the shown precision (ties kept)."""
    finite = {m: v for m, v in values.items() if v is not None and math.isfinite(v)}
    if not finite:
        return []
    best = (max if higher else min)(round(v, digits) for v in finite.values())
    return [m for m, v in finite.items() if round(v, digits) == best]


def _reference_k(frames: Sequence[pd.DataFrame], methods: Sequence[str]) -> float | None:
    """Largest k at which every method has a value in every frame; else the largest k."""
    ks_all: set[float] = set()
    common: set[float] | None = None
    for df in frames:
        if df.empty:
            continue
        ks_all.update(df["k"].unique())
        for m in methods:
            km = set(df.loc[df["method"] == m, "k"].unique())
            if km:
                common = km if common is None else common & km
    if common:
        return float(max(common))
    return float(max(ks_all)) if ks_all else None


def summary_sentences(methods: Sequence[str], stability: pd.DataFrame, perf: pd.DataFrame,
                      timing: pd.DataFrame, frequencies: pd.DataFrame | None, *,
                      digits: int = 2) -> list[str]:
    """The report's "Summary": a few sentences computed from the numbers.

    Values are shown with ``digits`` decimals, and methods whose values are equal at that
    precision are reported as tied rather than ranked. Overlapping confidence intervals of
    the two most stable methods are pointed out.

    Parameters
    ----------
    methods : sequence of str
        Method order.
    stability, perf, timing, frequencies : DataFrame
        Outputs of :func:`prepare_stability`, :func:`performance_summary`,
        :func:`time_summary` and :func:`prepare_frequencies` (or None).
    digits : int, default 2
        Decimals of the numbers in the sentences.

    Returns
    -------
    list of str
        Plain-text sentences (the renderers escape them).
    """
    out: list[str] = []
    measure = primary_measure(stability)
    stab = stability[stability["measure"] == measure] if measure else stability.iloc[:0]
    headline = primary_metrics(perf)
    perf_h = perf[perf["metric"].isin(headline)]
    stab_methods = _present(methods, stab)
    ref_k = _reference_k([stab, perf_h], _present(methods, stab, perf_h))

    def est_text(m: str, k: float, meas: str) -> str:
        r = stability[(stability["method"] == m) & (stability["k"] == k)
                      & (stability["measure"] == meas)].iloc[0]
        return format_estimate(r["estimate"], r["low"], r["high"], digits=digits)

    most_stable: list[str] = []
    if measure and ref_k is not None and not stab.empty:
        at = stab[stab["k"] == ref_k].set_index("method")
        vals = {m: float(at.loc[m, "estimate"]) for m in stab_methods if m in at.index}
        higher = measure.lower() not in _MEASURES_LOWER_IS_BETTER
        lab = measure_label(measure)
        kk = format_k(ref_k)
        most_stable = _leaders(vals, higher=higher, digits=digits)
        finite = [m for m in vals if math.isfinite(vals[m])]
        if len(finite) == 1:
            m = finite[0]
            out.append(f"Stability at k={kk} ({lab}): {m} {est_text(m, ref_k, measure)}"
                       + (" (the only method compared)." if len(methods) == 1 else "."))
        elif len(most_stable) > 1:
            ties = _names([f"{m} ({est_text(m, ref_k, measure)})" for m in most_stable])
            out.append(f"Most stable at k={kk} ({lab}): a tie between {ties}.")
        elif most_stable:
            best = most_stable[0]
            others = sorted((m for m in finite if m != best), key=lambda m: vals[m],
                            reverse=higher)
            second = others[0]
            s = (f"Most stable at k={kk} ({lab}): {best} ({est_text(best, ref_k, measure)}), "
                 f"ahead of {second} ({est_text(second, ref_k, measure)})")
            a, b = at.loc[best], at.loc[second]
            if all(math.isfinite(x) for x in (a["low"], a["high"], b["low"], b["high"])):
                if a["low"] <= b["high"] and b["low"] <= a["high"]:
                    s += "; their confidence intervals overlap, so the lead is not clear-cut"
                else:
                    s += "; their confidence intervals do not overlap"
            out.append(s + ".")
        # consistency across sizes
        ks = sorted(stab["k"].unique())
        if len(ks) > 1 and len(finite) > 1:
            wins: dict[str, int] = {}
            for k in ks:
                atk = stab[stab["k"] == k]
                lead = _leaders(dict(zip(atk["method"], atk["estimate"], strict=True)),
                                higher=higher, digits=digits)
                for m in lead:
                    wins[m] = wins.get(m, 0) + 1
            if wins:
                top_n = max(wins.values())
                winners = [m for m in stab_methods if wins.get(m) == top_n]
                if top_n == len(ks) and len(winners) == 1:
                    out.append(f"{winners[0]} is the most stable at every size k.")
                elif top_n == len(ks):
                    out.append(f"{_names(winners)} are jointly the most stable at every size k.")
                else:
                    out.append(f"Across sizes, {_names(winners)} "
                               f"{'is' if len(winners) == 1 else 'are each'} the most stable "
                               f"at {top_n} of {len(ks)} sizes (ties counted for each).")
        # do the other measures agree?
        for other in pd.unique(stability["measure"]):
            if other == measure:
                continue
            atk = stability[(stability["measure"] == other) & (stability["k"] == ref_k)]
            if atk["method"].nunique() < 2:
                continue
            h2 = other.lower() not in _MEASURES_LOWER_IS_BETTER
            lead = _leaders(dict(zip(atk["method"], atk["estimate"], strict=True)), higher=h2,
                            digits=digits)
            if not lead:
                continue
            if set(lead) == set(most_stable):
                out.append(f"{measure_label(other)} agrees at k={kk}.")
            else:
                vals2 = ", ".join(f"{m} {est_text(m, ref_k, other)}" for m in lead)
                out.append(f"{measure_label(other)} ranks differently at k={kk}: most stable "
                           f"{'is' if len(lead) == 1 else 'are'} {vals2}.")

    # accuracy
    for metric in headline:
        df = perf[perf["metric"] == metric]
        if df.empty:
            continue
        kind, clf = parse_metric(metric)
        kind_text = _KIND_LABELS.get(kind, kind.replace("_", " "))
        if kind_text != "AUC":
            kind_text = kind_text.lower()
        with_clf = f" with {classifier_label(clf)}" if clf else ""
        higher = kind not in _KINDS_LOWER_IS_BETTER
        if kind in ("accuracy", "balanced_accuracy"):
            word = f"Most accurate{' (balanced)' if kind != 'accuracy' else ''}"
        else:
            word = f"{'Highest' if higher else 'Lowest'} {kind_text}"
        k_here = ref_k if ref_k is not None and (df["k"] == ref_k).any() else df["k"].max()
        at = df[df["k"] == k_here].set_index("method")
        vals = {m: float(at.loc[m, "mean"]) for m in _present(methods, df) if m in at.index}
        lead = _leaders(vals, higher=higher, digits=digits)
        if not lead:
            continue

        def ms(m: str, at=at) -> str:
            return format_mean_sd(at.loc[m, "mean"], at.loc[m, "sd"], digits=digits)

        kk = format_k(k_here)
        finite = [m for m in vals if math.isfinite(vals[m])]
        if len(finite) == 1:
            s = f"{kind_text.capitalize() if kind_text != 'AUC' else 'AUC'}{with_clf} at " \
                f"k={kk}: {finite[0]} {ms(finite[0])}"
        elif len(lead) > 1:
            s = (f"{word}{with_clf} at k={kk}: a tie between "
                 + _names([f"{m} ({ms(m)})" for m in lead]))
        else:
            rest = sorted((m for m in finite if m != lead[0]), key=lambda m: vals[m],
                          reverse=higher)
            s = f"{word}{with_clf} at k={kk}: {lead[0]} ({ms(lead[0])}), then {rest[0]} " \
                f"({ms(rest[0])})"
        if df["k"].nunique() > 1:
            sign = 1.0 if higher else -1.0
            best_row = df.loc[(sign * df["mean"]).idxmax()]
            best = round(float(best_row["mean"]), digits)
            tied = [(r.method, r.k) for r in df.itertuples(index=False)
                    if math.isfinite(r.mean) and round(r.mean, digits) == best]
            if len(tied) == 1:
                s += (f"; best over all sizes: {best_row['method']} at "
                      f"k={format_k(best_row['k'])} "
                      f"({format_mean_sd(best_row['mean'], best_row['sd'], digits=digits)})")
            elif len(tied) <= 4:
                s += f"; best over all sizes, {best:.{digits}f}, reached by " + \
                    _names([f"{m} at k={format_k(k)}" for m, k in tied])
            else:
                s += f"; best over all sizes, {best:.{digits}f}, reached by {len(tied)} " \
                     "(method, k) pairs"
        out.append(s + ".")
        # trade-off sentence for the first headline metric only
        if metric == headline[0] and most_stable and len(finite) > 1 and k_here == ref_k:
            if set(lead) & set(most_stable):
                both = [m for m in lead if m in most_stable]
                best_word = "most accurate" if word.startswith("Most accurate") else \
                    f"best by {kind_text}"
                shared = " (tied)" if len(most_stable) > 1 else ""
                out.append(f"At k={kk}, {_names(both)} "
                           f"{'is' if len(both) == 1 else 'are'} both the most stable{shared} "
                           f"and the {best_word}{with_clf}.")
            else:
                s1 = most_stable[0]
                if s1 in at.index:
                    out.append(
                        f"Trade-off at k={kk}: the most stable method, {s1}, reaches "
                        f"{kind_text} {at.loc[s1, 'mean']:.{digits}f}{with_clf}, against "
                        f"{vals[lead[0]]:.{digits}f} for {lead[0]}.")

    # consensus
    if frequencies is not None:
        parts = []
        ks_used = set()
        for m in _present(methods, frequencies):
            km = frequency_k(frequencies, m)
            feats = top_features(frequencies, m, km)
            n_cons = int(in_consensus(feats["frequency"].to_numpy()).sum())
            parts.append(f"{m} {n_cons}")
            ks_used.add(km)
        if parts:
            where = f"k={format_k(next(iter(ks_used)))}" if len(ks_used) == 1 else \
                "each method's largest k"
            out.append(f"Features selected in more than half of the resamples at {where}: "
                       + ", ".join(parts) + ".")

    # running time
    ft = timing[timing["metric"] == "fit_time"] if not timing.empty else timing
    if ft is not None and not ft.empty:
        ft = ft.set_index("method")
        present = [m for m in methods if m in ft.index]
        if len(present) == 1:
            out.append(f"Mean time to fit {present[0]} once: "
                       f"{format_seconds(float(ft.loc[present[0], 'mean']))}.")
        elif len(present) > 1:
            fast = min(present, key=lambda m: ft.loc[m, "mean"])
            slow = max(present, key=lambda m: ft.loc[m, "mean"])
            tf, ts = float(ft.loc[fast, "mean"]), float(ft.loc[slow, "mean"])
            ratio = f", {ts / tf:.0f}× slower" if tf > 0 and ts / tf >= 1.95 else ""
            out.append(f"Fastest to fit: {fast} ({format_seconds(tf)} per fit); slowest: "
                       f"{slow} ({format_seconds(ts)}{ratio}).")
    return out
