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
from stablefs.report.ties import leaders, t_interval
from stablefs.stability.frequency import CONSENSUS_THRESHOLD, in_consensus

__all__ = [
    "CONSENSUS_THRESHOLD",
    "classifier_label",
    "consensus_feature_table",
    "consensus_lists",
    "consensus_table",
    "drop_duplicates",
    "format_estimate",
    "format_k",
    "format_mean_sd",
    "format_p_value",
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
    if x is None or not math.isfinite(x):
        return DASH
    text = f"{x:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text  # no "-0.000"


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


#: the levels a printed p-value is read against: never rounded onto or across one of them
P_LEVELS = (0.001, 0.005, 0.01, 0.05, 0.1)


def format_p_value(p: float, *, small: str = "< 0.001") -> str:
    """A p-value with two significant digits, more where two would round it onto or across a
    level of :data:`P_LEVELS`: 5/101 prints ``"0.0495"``, not ``"0.050"``; 1/101
    ``"0.0099"``; 0.42 ``"0.42"``. Below 0.001 ``small`` (``"sci"``: ``"1.2e-05"``); NaN
    ``"–"``."""
    if p is None or not math.isfinite(p):
        return DASH
    if p < 1e-3:
        return f"{p:.2g}" if small == "sci" else small
    for sig in range(2, 8):
        decimals = max(0, sig - 1 - math.floor(math.log10(p)))
        text = f"{p:.{decimals}f}"
        shown = float(text)
        if all((shown < level) == (p < level) and (shown == level) == (p == level)
               for level in P_LEVELS):
            return text
    return f"{p:.8f}"


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
        ``method, k, metric, kind, classifier, mean, sd, n, low, high`` for rows with a
        finite k > 0 and a metric that is not a time; ``sd`` uses ``ddof=1`` (NaN for one
        resample); ``low, high`` the 95 % Student-t interval of the mean
        (:func:`stablefs.report.ties.t_interval`), the intervals of the tie rule.
    """
    cols = ["method", "k", "metric", "kind", "classifier", "mean", "sd", "n", "low", "high"]
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
    out["low"], out["high"] = t_interval(out["mean"], out["sd"], out["n"])
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


def _pivot_table(methods: Sequence[str], ks: Sequence[float], cell, interval, *,
                 higher: bool) -> Table:
    """Method × k table; at each k the best method and those tied with it (overlapping
    intervals, :func:`stablefs.report.ties.leaders`) in bold. Nothing is bold when only one
    method has a value."""
    rows: list[list] = [[m] for m in methods]
    for k in ks:
        vals = {m: interval(m, k) for m in methods}
        finite = [m for m in methods if math.isfinite(vals[m][0])]
        best = set(leaders(vals, higher=higher)) if len(finite) > 1 else set()
        for r, m in enumerate(methods):
            text = cell(m, k)
            rows[r].append(Strong(text) if m in best else text)
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

    def interval(m, k):
        return lookup.get((m, k), (math.nan, math.nan, math.nan))

    return _pivot_table(rows, ks, cell, interval, higher=higher)


def performance_table(perf: pd.DataFrame, metric: str, methods: Sequence[str]) -> Table:
    """Method × k table of ``metric``, cells ``"0.954 [0.931, 0.977]"``: the mean over
    resamples and the 95 % t-interval that the bold rule compares
    (:mod:`stablefs.report.ties`), so that two equal means with different bolding show why;
    best per k in bold."""
    df = perf[perf["metric"] == metric]
    lookup = {(m, k): (mu, sd, lo, hi) for m, k, mu, sd, lo, hi in
              df[["method", "k", "mean", "sd", "low", "high"]].itertuples(index=False)}
    ks = sorted(df["k"].unique())
    rows = _present(methods, df)
    higher = parse_metric(metric)[0] not in _KINDS_LOWER_IS_BETTER

    def cell(m, k):
        mu, _, lo, hi = lookup.get((m, k), (math.nan,) * 4)
        return format_estimate(mu, lo, hi)

    def interval(m, k):
        mu, _, lo, hi = lookup.get((m, k), (math.nan,) * 4)
        return mu, lo, hi

    return _pivot_table(rows, ks, cell, interval, higher=higher)


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


def consensus_lists(frequencies: pd.DataFrame, methods: Sequence[str], *,
                    threshold: float = CONSENSUS_THRESHOLD
                    ) -> list[tuple[str, float, pd.DataFrame]]:
    """Every consensus feature of every (method, k): ``[(method, k, features), ...]`` with
    ``features`` the ``feature, frequency`` rows with frequency > ``threshold``
    (:func:`stablefs.stability.in_consensus`), most frequent first."""
    out = []
    for m in _present(methods, frequencies):
        for k in sorted(frequencies.loc[frequencies["method"] == m, "k"].unique()):
            feats = top_features(frequencies, m, float(k))
            out.append((m, float(k),
                        feats[in_consensus(feats["frequency"].to_numpy(), threshold)]
                        .reset_index(drop=True)))
    return out


def consensus_table(frequencies: pd.DataFrame, methods: Sequence[str], *,
                    threshold: float = CONSENSUS_THRESHOLD) -> Table:
    """Method × k table of the number of consensus features (frequency > ``threshold``, the
    rule of :func:`stablefs.stability.consensus`), with the number selected in every
    resample in brackets."""
    lists = consensus_lists(frequencies, methods, threshold=threshold)
    ks = sorted({k for _, k, _ in lists})
    cells = {(m, k): f"{len(f)} ({int((f['frequency'] >= 1 - 1e-12).sum())})"
             for m, k, f in lists}
    rows = [[m] + [cells.get((m, k), DASH) for k in ks] for m in _present(methods, frequencies)]
    return Table(header=["Method"] + [f"k = {format_k(k)}" for k in ks], rows=rows)


def consensus_feature_table(features: pd.DataFrame, signature: pd.DataFrame | None = None
                            ) -> Table:
    """All consensus features of one (method, k): name and frequency, and, when the
    ``signature`` rows of that (method, k) are given, mean rank, the class in which the
    feature is higher, effect size and FDR (descriptive, whole data)."""
    sig = None
    if signature is not None and not signature.empty:
        sig = signature.drop_duplicates("feature").set_index("feature")
        # same order as signature.csv and the selection map: frequency, then mean rank
        rank = features["feature"].map(sig["mean_rank"]).astype(float)
        features = features.assign(_r=rank.to_numpy()).sort_values(
            ["frequency", "_r"], ascending=[False, True], kind="stable")
    header = ["#", "Feature", "Frequency"]
    align = ["r", "l", "r"]
    if sig is not None:
        header += ["Mean rank", "Higher in", "Effect size*", "FDR*"]
        align += ["r", "l", "r", "r"]
    rows = []
    for i, (f, q) in enumerate(features[["feature", "frequency"]].itertuples(index=False)):
        row = [str(i + 1), _with_symbol(f, sig), f"{q:.2f}"]
        if sig is not None:
            if f in sig.index:
                r = sig.loc[f]
                row += [_fmt(float(r["mean_rank"]), 1), str(r["higher_in"]),
                        _fmt(float(r["effect_size_whole_data"]), 2),
                        _fmt_p(float(r["fdr_bh_whole_data"]))]
            else:
                row += [DASH] * 4
        rows.append(row)
    return Table(header=header, rows=rows, align=align)


def _with_symbol(feature: str, sig: pd.DataFrame | None) -> str:
    """``"1007_s_at (DDR1)"`` when the signature has a symbol for the feature
    (``--annotation``), else the feature."""
    if sig is None or "symbol" not in sig.columns or feature not in sig.index:
        return feature
    symbol = str(sig.loc[feature, "symbol"])
    return f"{feature} ({symbol})" if symbol else feature


def _fmt_p(p: float) -> str:
    return format_p_value(p, small="sci")


_SAME_AS = {"nogueira": "kuncheva"}


def drop_duplicates(results: pd.DataFrame, stability: pd.DataFrame
                    ) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Leave out what would be shown twice, and say why.

    * Nogueira's measure equals the Kuncheva index when every subset has the same size k
      (Nogueira, Sechidis and Brown 2018, sec. 4): when both are present and agree to 1e-9 on
      every (method, k), only Kuncheva is kept.
    * The AUC of a classifier whose scores are 0/1 labels (1NN) equals its balanced accuracy
      for two classes, (sensitivity + specificity) / 2: ``auc_<clf>`` is left out when it
      equals ``balanced_accuracy_<clf>`` on every resample.

    Returns
    -------
    (results, stability, notes)
        The frames without the duplicates and one sentence per thing left out.
    """
    notes = []
    measures = {m.lower(): m for m in pd.unique(stability["measure"])}
    for dup, keep in _SAME_AS.items():
        if dup in measures and keep in measures:
            a = stability[stability["measure"] == measures[dup]]
            b = stability[stability["measure"] == measures[keep]]
            j = a.merge(b, on=["method", "k"], suffixes=("_d", "_k"))
            if len(j) == len(a) and len(j) and np.allclose(j["estimate_d"], j["estimate_k"],
                                                          rtol=1e-9, atol=1e-9,
                                                          equal_nan=True):
                stability = stability[stability["measure"] != measures[dup]]
                notes.append(f"{measure_label(dup)} is not shown separately: with subsets of "
                             f"equal size k it equals the {measure_label(keep)} index "
                             "(Nogueira et al. 2018), and here the two agree at every k; "
                             "its own intervals are in stability.csv.")
    metrics = set(results["metric"])
    for metric in sorted(metrics):
        kind, clf = parse_metric(metric)
        other = f"balanced_accuracy_{clf}"
        if kind != "auc" or not clf or other not in metrics:
            continue
        keys = ["method", "k", "resample"]
        a = results[results["metric"] == metric][keys + ["value"]]
        b = results[results["metric"] == other][keys + ["value"]]
        j = a.merge(b, on=keys, suffixes=("_a", "_b"))
        if len(j) == len(a) and len(j) and np.allclose(j["value_a"], j["value_b"],
                                                      rtol=1e-9, atol=1e-12, equal_nan=True):
            results = results[results["metric"] != metric]
            notes.append(f"AUC ({classifier_label(clf)}) is not shown: this classifier scores "
                         "with 0/1 labels, so its AUC equals its balanced accuracy, "
                         "(sensitivity + specificity) / 2, which is shown.")
    return results, stability, notes


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


def baseline_means(baseline: pd.DataFrame | None) -> dict[str, float]:
    """``{"accuracy": mean, "balanced_accuracy": mean}`` over resamples ({} when absent)."""
    if baseline is None or baseline.empty or "metric" not in baseline.columns:
        return {}
    return {str(m): float(v) for m, v in baseline.groupby("metric")["value"].mean().items()}
