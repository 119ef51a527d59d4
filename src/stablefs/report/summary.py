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
    format_p_value,
    format_seconds,
    measure_label,
    parse_metric,
    primary_measure,
    primary_metrics,
    top_features,
)
from stablefs.report.ties import leaders, recommend
from stablefs.stability.frequency import in_consensus

__all__ = ["BANDS", "BANDS_SOURCE", "TIE_RULE", "Evidence", "Recommendation", "best_by_k",
           "choose_pair", "edge_warning", "judge_evidence", "recommend_from_tables",
           "recommendation", "stability_band", "summary_sentences", "trust_sentences",
           "verdict_lines"]

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
                      rec: Recommendation | None = None, *, digits: int = 2,
                      baseline: dict | None = None, trust: dict | None = None) -> list[str]:
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
    baseline : dict, optional
        ``{"accuracy": ..., "balanced_accuracy": ...}``: the majority-class rule's means
        (:func:`stablefs.report.tables.baseline_means`).
    trust : dict, optional
        ``{"permutation": ..., "nested": ...}`` as in ``run.json``
        (:meth:`~stablefs.evaluation.permutation.PermutationTest.to_dict`,
        :meth:`~stablefs.evaluation.nested.NestedEstimate.to_dict`). Without evidence of
        signal (:func:`judge_evidence`) the summary opens with "No evidence of signal" and
        recommends nothing.

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

    verdict = judge_evidence(rec, baseline, trust)
    if verdict.signal is False:  # said first, in plain words
        out.insert(0, verdict.opening(rec, digits=digits))
    if rec is not None and verdict.signal is not False:
        pts = rec.points
        r = pts[(pts["method"] == rec.method) & (pts["k"] == rec.k)].iloc[0]
        top = pts[pts["front"]].sort_values("accuracy", ascending=False).iloc[0]
        kind, clf = parse_metric(rec.metric)
        acc_name = _KIND_LABELS.get(kind, kind).lower() + (
            f" with {classifier_label(clf)}" if clf else "")
        n_front = int(pts["front"].sum())
        front_of = (f"the Pareto front of {measure_label(rec.measure)} stability against "
                    f"{acc_name}")
        band = stability_band(r["stability"], rec.measure)
        values = (f"{measure_label(rec.measure)} {r['stability']:.{digits}f}"
                  + (f", {band};" if band else ",") + f" {acc_name} "
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
        edge = edge_warning(rec, digits=digits)
        if edge:
            out.append(edge)
        if band == "poor":
            out.append(f"Its stability is poor ({measure_label(rec.measure)} "
                       f"{r['stability']:.{digits}f}, below {BANDS[0][0]:.2f}): another set "
                       "of samples of the same kind would give a largely different gene list; "
                       "treat single genes of this signature with caution.")
        if band:
            out.append(BANDS_SOURCE.strip("()"))
    out[len(out):] = trust_sentences(rec, baseline, trust, verdict, digits=digits)

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


def edge_warning(rec: Recommendation | None, *, digits: int = 2) -> str | None:
    """One line when the recommended k is the largest size tried: the best k may lie beyond
    the grid (accuracy still rising, as on Gravier's or Sorlie's breast cancer sets), so
    larger sizes are worth a run. None otherwise, and for a grid of one size."""
    if rec is None:
        return None
    pts = rec.points
    ks = sorted(float(k) for k in pd.unique(pts["k"]))
    if len(ks) < 2 or float(rec.k) != ks[-1]:
        return None
    own = pts[pts["method"] == rec.method].sort_values("k")
    kind, clf = parse_metric(rec.metric)
    name = _KIND_LABELS.get(kind, kind).lower()
    text = f"Warning: k={format_k(rec.k)} is the largest size tried"
    if len(own) >= 2:
        prev, last = own.iloc[-2], own.iloc[-1]
        higher = kind not in _KINDS_LOWER_IS_BETTER
        if (last["accuracy"] > prev["accuracy"]) == higher and \
                last["accuracy"] != prev["accuracy"]:
            text += (f", and the {name} of {rec.method} still improves towards it "
                     f"({prev['accuracy']:.{digits}f} at k={format_k(prev['k'])}, "
                     f"{last['accuracy']:.{digits}f} at k={format_k(last['k'])})")
    step = ks[-1] - ks[-2]
    bigger = f"{format_k(ks[0])}:{format_k(2 * ks[-1])}:{format_k(step)}"
    return (text + f": a larger k may do better; try larger sizes (-k {bigger}, or "
            f"sizes=\"{bigger}\" in Python).")


# ------------------------------------------------------------------ trust in the choice

#: Upper limits of the bands in which the summary reads a chance-corrected stability
#: (Nogueira's measure; Kuncheva's index equals it for equal-size subsets)
BANDS = ((0.4, "poor"), (0.75, "intermediate"), (math.inf, "excellent"))
BANDS_SOURCE = ("(Scale: below 0.40 poor, 0.40 to 0.75 intermediate to good, above 0.75 "
                "excellent agreement beyond chance: the bands of Fleiss's kappa (Fleiss 1981) "
                "with which Nogueira, Sechidis and Brown 2018 read their measure, itself a "
                "generalised Fleiss's kappa.)")
_BANDED = {"nogueira", "kuncheva"}


def stability_band(value: float, measure: str = "nogueira") -> str | None:
    """``"poor"`` (< 0.4), ``"intermediate"`` (0.4–0.75) or ``"excellent"`` (> 0.75) for
    Nogueira's measure and Kuncheva's index (:data:`BANDS`, :data:`BANDS_SOURCE`); None for
    other measures or a NaN."""
    if measure.lower() not in _BANDED or not math.isfinite(float(value)):
        return None
    for upper, name in BANDS:
        if float(value) < upper or (name == "intermediate" and float(value) == upper):
            return name
    return None


def recommend_from_tables(results: pd.DataFrame, stability: pd.DataFrame
                          ) -> Recommendation | None:
    """The recommendation of a comparison's raw ``results`` and ``stability`` tables, exactly
    as the report computes it (normalised tables, duplicate measures dropped)."""
    from stablefs.report.tables import (
        drop_duplicates,
        performance_summary,
        prepare_results,
        prepare_stability,
    )

    res, stab, _ = drop_duplicates(prepare_results(results), prepare_stability(stability))
    return recommendation(stab, performance_summary(res))


def choose_pair(stability: pd.DataFrame, results: pd.DataFrame) -> tuple[str, float] | None:
    """The recommendation rule as ``(method, k)`` (the nested estimate's inner choice,
    :func:`stablefs.evaluation.nested.nested_estimate`)."""
    rec = recommend_from_tables(results, stability)
    return None if rec is None else (rec.method, rec.k)


@dataclass
class Evidence:
    """Whether the recommended pair predicts better than chance.

    ``signal`` is True (evidence), False (no evidence: nothing is recommended) or None (no
    recommended pair to judge); ``reasons`` say why not; ``tested`` whether a permutation
    test was run.
    """

    signal: bool | None
    reasons: list[str]
    tested: bool
    accuracy: float = math.nan
    baseline: float = math.nan
    p_value: float = math.nan

    @property
    def label(self) -> str:
        if self.signal is False:
            return "no evidence of signal"
        if self.signal and self.tested:
            return f"evidence of signal (permutation p {_p(self.p_value)})"
        if self.signal:
            return "above the majority-class baseline (no permutation test)"
        return ""

    def opening(self, rec: Recommendation | None, *, digits: int = 2) -> str:
        what = (f"for the best candidate, {rec.method} at k={format_k(rec.k)}, " if rec
                else "")
        return ("No evidence of signal: " + what + ", and ".join(self.reasons)
                + ". No signature is recommended: the per-method tables, figures and "
                "signature.csv are kept for inspection, but these gene lists are not shown "
                "to predict the classes better than chance.")


def format_p(p: float) -> str:
    """``= 0.0099`` / ``= 0.035`` / ``= 0.0495`` / ``< 0.001``: two significant digits, more
    where they would round the value onto or across a level (5/101 is 0.0495, not 0.050;
    :func:`~stablefs.report.tables.format_p_value`)."""
    if not np.isfinite(p):
        return "undecided"
    text = format_p_value(p)
    return text if text.startswith("<") else f"= {text}"


def _p(p: float) -> str:
    return format_p(p)


def _rec_accuracy(rec: Recommendation) -> float:
    pts = rec.points
    return float(pts[(pts["method"] == rec.method) & (pts["k"] == rec.k)]["accuracy"].iloc[0])


def judge_evidence(rec: Recommendation | None, baseline: dict | None, trust: dict | None
                   ) -> Evidence:
    """No evidence of signal when the recommended pair's mean accuracy is not above the
    majority-class baseline, or when its permutation test gives p >= alpha (0.05).

    Without a permutation test (``--permutations 0``) only the baseline is checked, and the
    summary says the test was not run.
    """
    perm = (trust or {}).get("permutation")
    if rec is None:
        return Evidence(None, [], perm is not None)
    reasons = []
    acc = _rec_accuracy(rec)
    base = (baseline or {}).get("accuracy", math.nan)
    kind, clf = parse_metric(rec.metric)
    acc_name = _KIND_LABELS.get(kind, kind).lower() + (
        f" with {classifier_label(clf)}" if clf else "")
    if kind == "accuracy" and math.isfinite(base) and not acc > base:
        reasons.append(f"its mean {acc_name}, {acc:.2f}, is not above {base:.2f}, the "
                       "accuracy of always answering the majority class of the training "
                       "part")
    p = math.nan
    if perm is not None:
        p = float(perm["p_value"])
        alpha = float(perm.get("alpha", 0.05))
        if not p < alpha:
            reasons.append(f"a permutation test of the procedure (labels permuted, the "
                           f"selectors refitted, the choice repeated) gives p {_p(p)}, not "
                           f"below {alpha:g}")
    return Evidence(not reasons, reasons, perm is not None, acc, base, p)


def trust_sentences(rec: Recommendation | None, baseline: dict | None, trust: dict | None,
                    verdict: Evidence | None = None, *, digits: int = 2) -> list[str]:
    """The baseline, the permutation test and the nested estimate, as sentences."""
    verdict = verdict or judge_evidence(rec, baseline, trust)
    out = []
    if baseline:
        out.append(f"Baseline: always answering the majority class of each training part "
                   f"scores accuracy {baseline.get('accuracy', math.nan):.{digits}f} and "
                   f"balanced accuracy {baseline.get('balanced_accuracy', math.nan):.{digits}f}"
                   " (chance) on the test parts.")
    perm = (trust or {}).get("permutation")
    if perm is not None:
        how = (f"stopped after {perm['permutations_used']} of "
               f"{perm['permutations_requested']} permutations once {perm['exceedances']} "
               "reached the observed value, Besag and Clifford 1991" if perm["stopped_early"]
               else f"{perm['permutations_used']} permutations, {perm['exceedances']} "
               "reaching the observed value")
        lead = "Evidence of signal: p" if verdict.signal else "P"
        methods = perm.get("methods") or []
        grid = (f"the choice among {len(methods)} method{'s' if len(methods) != 1 else ''} x "
                f"{len(perm.get('sizes') or [])} k" if methods else "the choice")
        chose = (f"it chose {perm['method']} at k={format_k(perm['k'])}" if perm.get("method")
                 else "it chose nothing")
        observed = perm.get("observed")
        observed = math.nan if observed is None else float(observed)
        null_mean = perm.get("null_mean")
        null_mean = math.nan if null_mean is None else float(null_mean)
        out.append(f"{lead}ermutation test of the whole procedure ({grid} repeated on "
                   f"{perm['resamples_per_permutation']} resamples): {chose}, mean held-out "
                   f"balanced accuracy {observed:.{digits + 1}f}, against "
                   f"{null_mean:.{digits + 1}f} on average with the labels permuted, the "
                   "resamples stratified on them, every selector refitted and the choice "
                   f"repeated (Ambroise and McLachlan 2002): p {_p(perm['p_value'])} ({how}; "
                   f"{perm['fits']} fits, {format_seconds(perm['seconds'])}).")
    elif rec is not None and trust is not None:
        skipped = "permutation" in ((trust.get("stages") or {}).get("skipped") or {})
        out.append("No permutation test was run" + ("" if skipped else " (--permutations 0)")
                   + ": the recommendation is judged against the majority-class baseline "
                   "only.")
    nested = (trust or {}).get("nested")
    if nested is not None and verdict.signal is not False:
        kind, clf = parse_metric(nested["metric"])
        name = _KIND_LABELS.get(kind, kind).lower()
        n = nested["outer_resamples"]
        agree = round(nested["choice_agreement"] * n)
        magree = round(nested["method_agreement"] * n)
        out.append(
            f"Nested estimate (the choice of method and k repeated inside {n} outer resamples "
            f"on {nested['inner_resamples']} inner splits of each training part): {name} "
            f"{nested['nested']:.{digits}f} against {nested['plain']:.{digits}f} for "
            f"{nested['method']} at k={format_k(nested['k'])} on the same resamples (gap "
            f"{nested['gap']:+.{digits}f}); the inner choice was this pair in {agree} of {n} "
            f"and this method in {magree} of {n}; Nogueira stability of the inner-chosen "
            f"signatures {nested['stability_nested']:.{digits}f} against "
            f"{nested['stability_plain']:.{digits}f} ({nested['fits']} fits, "
            f"{format_seconds(nested['seconds'])})." + _nested_notes(nested, n))
    out.extend(_stage_sentences(rec, trust))
    return out


def _nested_notes(nested: dict, n: int) -> str:
    """What the nested estimate adapted: small classes split leave-one-out, outer resamples
    without an inner choice (counted at the majority-class rule's value)."""
    text = ""
    small = nested.get("small_classes") or []
    if small:
        shown = ", ".join(map(str, small[:4])) + (f" and {len(small) - 4} more"
                                                  if len(small) > 4 else "")
        many = len(small) > 1
        text += (f" Class{'es' if many else ''} {shown} had fewer than 3 samples in an outer "
                 f"training part, too few for a 2/3 split: {'their' if many else 'its'} inner "
                 "splits were leave-one-out within the class.")
    none = int(nested.get("outer_without_choice") or 0)
    if none:
        text += (f" In {none} of {n} outer resamples the inner comparison recommended "
                 "nothing; they count at the majority-class rule's held-out value.")
    return text


def _stage_sentences(rec: Recommendation | None, trust: dict | None) -> list[str]:
    """The stages skipped because of the data's classes, and the permutation test's
    adaptation, each a sentence naming the option."""
    stages = (trust or {}).get("stages") or {}
    if rec is None:
        return []
    out = []
    note = (stages.get("notes") or {}).get("permutation")
    if note:
        out.append(f"Permutation test: {note}.")
    options = {"permutation": ("permutation test", "--permutations 0"),
               "nested": ("nested estimate", "--nested 0")}
    for stage, reason in (stages.get("skipped") or {}).items():
        name, option = options.get(stage, (stage, ""))
        out.append(f"No {name}: {reason} ({option} skips it).")
    return out


def verdict_lines(results: pd.DataFrame, stability: pd.DataFrame, frequencies=None, *,
                  baseline: dict | None = None, trust: dict | None = None,
                  digits: int = 2) -> list[str]:
    """What the terminal prints after the tables: the no-evidence opening or the
    recommendation with its stability band, then :func:`trust_sentences`."""
    from stablefs.report.tables import prepare_frequencies

    rec = recommend_from_tables(results, stability)
    verdict = judge_evidence(rec, baseline, trust)
    out = []
    if verdict.signal is False:
        out.append(verdict.opening(rec, digits=digits))
    elif rec is not None:
        r = rec.points[(rec.points["method"] == rec.method) & (rec.points["k"] == rec.k)]
        r = r.iloc[0]
        band = stability_band(r["stability"], rec.measure)
        kind, clf = parse_metric(rec.metric)
        text = (f"Recommended: {rec.method} at k={format_k(rec.k)}: "
                f"{measure_label(rec.measure)} stability {r['stability']:.{digits}f}"
                + (f" ({band})" if band else "") + f", {_KIND_LABELS.get(kind, kind).lower()}"
                + (f" with {classifier_label(clf)}" if clf else "")
                + f" {format_mean_sd(r['accuracy'], r['acc_sd'], digits=digits)}.")
        freq = prepare_frequencies(frequencies) if frequencies is not None and len(
            frequencies) else None
        if freq is not None:
            feats = top_features(freq, rec.method, rec.k)
            n_cons = int(in_consensus(feats["frequency"].to_numpy()).sum())
            text += f" Consensus signature: {n_cons} features (signature.csv)."
        if band == "poor":
            text += " Its stability is poor: expect a different list from new samples."
        out.append(text)
        edge = edge_warning(rec, digits=digits)
        if edge:
            out.append(edge)
    out.extend(trust_sentences(rec, baseline, trust, verdict, digits=digits))
    return out
