"""The report's "Summary": sentences computed from the numbers, and the recommendation.

One rule decides "best" and "tied" here and in the tables' bold cells
(:mod:`stablefs.report.ties`): the best estimate wins, and every method whose interval
overlaps the winner's is tied with it. The recommended (method, k) comes from the
stability–accuracy Pareto front (:func:`recommendation`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from stablefs.report.tables import (
    _KIND_LABELS,
    _KINDS_LOWER_IS_BETTER,
    _MEASURES_LOWER_IS_BETTER,
    _present,
    classifier_label,
    format_estimate,
    format_k,
    format_mean_sd,
    format_seconds,
    measure_label,
    parse_metric,
    primary_measure,
    primary_metrics,
    top_features,
)
from stablefs.report.ties import leaders, recommend
from stablefs.stability.frequency import in_consensus

__all__ = ["TIE_RULE", "Recommendation", "best_by_k", "recommendation", "summary_sentences"]

TIE_RULE = ("Ties: at each k the method with the best estimate is best, and every method whose "
            "95% interval overlaps the best one's is tied with it (stability: the intervals of "
            "stability.csv; accuracy: a Student-t interval of the mean over resamples, which "
            "treats resamples as independent and is therefore narrow). The same rule sets the "
            "bold cells of the tables. Overlap is a cautious criterion: a paired test on the "
            "same resamples (the method comparisons, where present) can still find a "
            "difference between tied methods.")


@dataclass
class Recommendation:
    """The recommended (method, k) and the Pareto front it was taken from.

    ``points`` has one row per (method, k): ``method, k, stability, accuracy, acc_sd,
    acc_low, acc_high, front`` (bool).
    """

    method: str
    k: float
    measure: str
    metric: str
    points: pd.DataFrame = field(repr=False)


def recommendation(stability: pd.DataFrame, perf: pd.DataFrame) -> Recommendation | None:
    """The (method, k) to take: on the Pareto front of stability (the primary measure,
    :func:`~stablefs.report.tables.primary_measure`) against mean accuracy (the first
    headline metric), accuracy tied with the front's most accurate point (overlapping
    intervals), and of those the most stable, then the smallest k
    (:func:`stablefs.report.ties.recommend`). None without both values for some point."""
    measure = primary_measure(stability)
    metrics = primary_metrics(perf)
    if measure is None or not metrics:
        return None
    st = stability[stability["measure"] == measure][["method", "k", "estimate"]]
    pf = perf[perf["metric"] == metrics[0]][["method", "k", "mean", "sd", "low", "high"]]
    d = st.merge(pf, on=["method", "k"]).rename(columns={
        "estimate": "stability", "mean": "accuracy", "sd": "acc_sd", "low": "acc_low",
        "high": "acc_high"})
    d = d[np.isfinite(d["stability"]) & np.isfinite(d["accuracy"])].reset_index(drop=True)
    if measure.lower() in _MEASURES_LOWER_IS_BETTER or d.empty:
        return None
    pick, front = recommend(d.to_dict("records"))
    if pick is None:
        return None
    d["front"] = False
    d.loc[front, "front"] = True
    return Recommendation(str(d.loc[pick, "method"]), float(d.loc[pick, "k"]), measure,
                          metrics[0], d)


def best_by_k(df: pd.DataFrame, value: str, methods: Sequence[str], *, higher: bool,
              low: str = "low", high: str = "high") -> dict[float, list[str]]:
    """``{k: leaders}``: at each k the best method and those tied with it (best first)."""
    out = {}
    for k in sorted(df["k"].unique()):
        at = df[df["k"] == k].drop_duplicates("method").set_index("method")
        vals = {m: (float(at.loc[m, value]), float(at.loc[m, low]), float(at.loc[m, high]))
                for m in methods if m in at.index}
        if len([v for v in vals.values() if math.isfinite(v[0])]) > 1:
            out[float(k)] = leaders(vals, higher=higher)
    return out


def _names(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _per_k_text(best: dict[float, list[str]], fmt, n_at: dict[float, int]) -> str:
    parts = []
    for k, lead in best.items():
        if len(lead) > 2 and len(lead) == n_at[k]:
            parts.append(f"k={format_k(k)}: all {len(lead)} tied (best {lead[0]}, "
                         f"{fmt(lead[0], k)})")
            continue
        text = f"k={format_k(k)}: {lead[0]} ({fmt(lead[0], k)})"
        if len(lead) > 1:
            text += f", tied with {_names(lead[1:])}"
        parts.append(text)
    return "; ".join(parts)


def _n_at(df: pd.DataFrame, value: str) -> dict[float, int]:
    ok = df[np.isfinite(df[value].to_numpy(dtype=float))]
    return {float(k): int(n) for k, n in ok.groupby("k")["method"].nunique().items()}


def _tally(best: dict[float, list[str]], methods: Sequence[str]) -> str:
    n = len(best)
    counts = {m: sum(m in lead for lead in best.values()) for m in methods}
    ranked = sorted((m for m in methods if counts[m]), key=lambda m: -counts[m])
    if len(ranked) > 1 and all(counts[m] == n for m in ranked) and \
            all(len(lead) == len(ranked) for lead in best.values()):
        return f"all {len(ranked)} methods at all {n}"
    return ", ".join(f"{m} {counts[m]} of {n}" for m in ranked)


def summary_sentences(methods: Sequence[str], stability: pd.DataFrame, perf: pd.DataFrame,
                      timing: pd.DataFrame, frequencies: pd.DataFrame | None,
                      rec: Recommendation | None = None, *, digits: int = 2) -> list[str]:
    """The report's "Summary": a few sentences computed from the numbers.

    Says at each k which method is the most stable (primary measure) and the most accurate
    (each classifier's headline metric), with ties decided by overlapping intervals
    (:data:`TIE_RULE`); whether the other stability measures name the same leaders; the
    recommended (method, k) of the Pareto front (:func:`recommendation`); consensus sizes;
    running times.

    Parameters
    ----------
    methods : sequence of str
        Method order.
    stability, perf, timing, frequencies : DataFrame
        Outputs of :func:`~stablefs.report.tables.prepare_stability`,
        :func:`~stablefs.report.tables.performance_summary`,
        :func:`~stablefs.report.tables.time_summary` and
        :func:`~stablefs.report.tables.prepare_frequencies` (or None).
    rec : Recommendation, optional
        Output of :func:`recommendation`.
    digits : int, default 2
        Decimals of the numbers in the sentences.

    Returns
    -------
    list of str
        Plain-text sentences (the renderers escape them).
    """
    out: list[str] = []
    several = len(_present(methods, stability, perf)) > 1
    measure = primary_measure(stability)
    if measure is not None:
        stab = stability[stability["measure"] == measure]
        higher = measure.lower() not in _MEASURES_LOWER_IS_BETTER
        lookup = {(m, k): (e, lo, hi) for m, k, e, lo, hi in
                  stab[["method", "k", "estimate", "low", "high"]].itertuples(index=False)}
        best = best_by_k(stab, "estimate", methods, higher=higher)
        if best:
            out.append(f"Most stable ({measure_label(measure)}) at each k: "
                       + _per_k_text(best, lambda m, k: format_estimate(
                           *lookup[(m, k)], digits=digits), _n_at(stab, "estimate"))
                       + f". Best or tied at: {_tally(best, methods)} sizes.")
        elif not stab.empty and not several:
            m = stab["method"].iloc[0]
            out.append(f"Stability ({measure_label(measure)}) of {m}: " + "; ".join(
                f"k={format_k(k)} {format_estimate(e, lo, hi, digits=digits)}"
                for k, e, lo, hi in stab[["k", "estimate", "low", "high"]].itertuples(
                    index=False)) + ".")
        for other in pd.unique(stability["measure"]):
            if other == measure:
                continue
            so = stability[stability["measure"] == other]
            b2 = best_by_k(so, "estimate", methods,
                           higher=other.lower() not in _MEASURES_LOWER_IS_BETTER)
            differ = [k for k in b2 if k in best and b2[k][0] not in best[k]
                      and best[k][0] not in b2[k]]
            if not b2:
                continue
            if not differ:
                out.append(f"{measure_label(other)} agrees: at every k its best method is "
                           f"best or tied by {measure_label(measure)}.")
            else:
                out.append(f"{measure_label(other)} disagrees at "
                           + ", ".join(f"k={format_k(k)} (best: {b2[k][0]})" for k in differ)
                           + ".")

    for metric in primary_metrics(perf):
        df = perf[perf["metric"] == metric]
        kind, clf = parse_metric(metric)
        higher = kind not in _KINDS_LOWER_IS_BETTER
        name = _KIND_LABELS.get(kind, kind.replace("_", " "))
        word = "Most accurate" if kind == "accuracy" else f"Best by {name}"
        with_clf = f" with {classifier_label(clf)}" if clf else ""
        look = {(m, k): (mu, sd) for m, k, mu, sd in
                df[["method", "k", "mean", "sd"]].itertuples(index=False)}
        best = best_by_k(df, "mean", methods, higher=higher)
        if best:
            out.append(f"{word}{with_clf} at each k: "
                       + _per_k_text(best, lambda m, k, look=look: format_mean_sd(
                           *look[(m, k)], digits=digits), _n_at(df, "mean"))
                       + f". Best or tied at: {_tally(best, methods)} sizes.")
        elif not df.empty and not several:
            m = df["method"].iloc[0]
            out.append(f"{name}{with_clf} of {m}: " + "; ".join(
                f"k={format_k(k)} {format_mean_sd(mu, sd, digits=digits)}"
                for k, mu, sd in df[["k", "mean", "sd"]].itertuples(index=False)) + ".")

    if rec is not None:
        pts = rec.points
        r = pts[(pts["method"] == rec.method) & (pts["k"] == rec.k)].iloc[0]
        top = pts[pts["front"]].sort_values("accuracy", ascending=False).iloc[0]
        kind, clf = parse_metric(rec.metric)
        acc_name = _KIND_LABELS.get(kind, kind).lower() + (
            f" with {classifier_label(clf)}" if clf else "")
        n_front = int(pts["front"].sum())
        front_of = (f"the Pareto front of {measure_label(rec.measure)} stability against "
                    f"{acc_name}")
        values = (f"{measure_label(rec.measure)} {r['stability']:.{digits}f}, {acc_name} "
                  f"{format_mean_sd(r['accuracy'], r['acc_sd'], digits=digits)}")
        if n_front == 1:
            text = (f"Recommended: {rec.method} at k={format_k(rec.k)} ({values}): the only "
                    f"point of {front_of}, i.e. at least as stable and as accurate as every "
                    "other (method, k).")
        else:
            text = (f"Recommended: {rec.method} at k={format_k(rec.k)} ({values}). Of the "
                    f"{n_front} (method, k) pairs on {front_of}, it is the most stable whose "
                    f"{acc_name} is tied with the best")
            if (top["method"], top["k"]) != (rec.method, rec.k):
                text += (f" ({top['method']} at k={format_k(top['k'])}, "
                         f"{format_mean_sd(top['accuracy'], top['acc_sd'], digits=digits)})")
            text += "; among equally stable pairs the smaller k wins."
        if frequencies is not None:
            feats = top_features(frequencies, rec.method, rec.k)
            n_cons = int(in_consensus(feats["frequency"].to_numpy()).sum())
            text += (f" Its consensus signature has {n_cons} feature"
                     f"{'' if n_cons == 1 else 's'} (selected in more than half of the "
                     "resamples; all listed below and in signature.csv).")
        out.append(text)

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
    if out and several:
        out.append(TIE_RULE)
    return out
