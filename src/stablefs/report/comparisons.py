"""The report section on ``comparisons.csv``: which differences between methods are
significant after Holm's correction (:func:`stablefs.evaluation.compare_methods`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from stablefs.report.render import Heading, Paragraph, Strong, Table
from stablefs.report.tables import format_p_value

__all__ = ["comparison_blocks"]

_TESTS = {
    "wilcoxon": "Wilcoxon signed-rank",
    "corrected-t": "corrected resampled t (Nadeau and Bengio 2003)",
    "5x2cv-t": "5 × 2 cv t (Dietterich 1998)",
    "nogueira-z": "two-sample stability z (Nogueira et al. 2018)",
}


def _p(p: float) -> str:
    return format_p_value(p)


def comparison_blocks(comparisons, *, alpha: float = 0.05,
                      focus: tuple[str, float, str, str] | None = None,
                      candidate: bool = False) -> list:
    """Report blocks for a comparisons table (a DataFrame, or the path of
    ``comparisons.csv``); an empty list when there is nothing to compare.

    A sentence says how many tests were run and how they were corrected (all of them are in
    ``comparisons.csv``; hundreds with many methods and sizes). The table lists only the
    tests that bear on the recommendation: ``focus = (method, k, metric, measure)``, the
    recommended method against every other method at its k, on its accuracy metric and its
    stability measure, differences oriented as recommended − other; ``candidate`` words it
    as the best candidate (no evidence of signal). Without ``focus`` only the sentence.
    """
    from stablefs.report.tables import format_k, measure_label, metric_label

    if isinstance(comparisons, (str, Path)):
        path = Path(comparisons)
        if not path.is_file():
            return []
        comparisons = pd.read_csv(path)
    if comparisons is None or comparisons.empty:
        return []
    df = comparisons
    n_sig = int((df["p_holm"] < alpha).sum())
    tests = ", ".join(_TESTS.get(t, t) for t in dict.fromkeys(df["test"]))
    intro = (
        f"{len(df)} tests of method pairs on the same resamples ({tests}); {n_sig} "
        f"significant at {alpha:g} after Holm's correction. p-values are "
        f"adjusted with Holm's method across the pairs of methods, separately for each k, "
        f"metric and test. The Wilcoxon test ignores that the training sets of the resamples "
        f"overlap and is too liberal; the corrected t-test accounts for it. The stability test "
        f"treats the resamples of the two methods as independent, which makes it "
        f"conservative. All results are in comparisons.csv."
    )
    blocks: list = [Heading(2, "Method comparisons"), Paragraph(intro)]
    if focus is None:
        return blocks
    method, k, metric, measure = focus
    mine = df[((df["method_a"].astype(str) == method) | (df["method_b"].astype(str) == method))
              & (df["k"].astype(float) == float(k))
              & df["metric"].astype(str).isin([metric, measure])]
    if mine.empty:
        return blocks
    other = [b if a == method else a for a, b in
             mine[["method_a", "method_b"]].astype(str).itertuples(index=False)]
    first = {m: i for i, m in enumerate(dict.fromkeys(other))}
    ranked = mine.assign(other=other,
                         other_pos=[first[m] for m in other],
                         is_stability=(mine["metric"].astype(str) == measure).astype(int))
    ranked = ranked.sort_values(["other_pos", "is_stability"], kind="stable")
    rows, sig_here = [], 0
    for r in ranked.itertuples(index=False):
        sign = 1.0 if str(r.method_a) == method else -1.0
        significant = r.p_holm < alpha
        sig_here += bool(significant)
        holm = _p(r.p_holm)
        label = (measure_label(r.metric) if str(r.metric) == measure
                 else metric_label(str(r.metric)))
        rows.append([r.other, label, _TESTS.get(r.test, r.test),
                     f"{sign * r.mean_difference:+.3f}", _p(r.p_value),
                     Strong(holm) if significant else holm])
    who = "best candidate" if candidate else "recommended method"
    blocks.append(Paragraph(
        f"The {who}, {method}, against every other method at k = {format_k(k)}, on the two "
        f"measures the recommendation weighs ({metric_label(metric)}; "
        f"{measure_label(measure)} stability) (difference: {method} − other; bold: "
        f"significant at {alpha:g} after Holm's correction, {sig_here} of {len(rows)}):"))
    blocks.append(Table(header=["Other method", "Measure", "Test", f"{method} − other", "p",
                                "p (Holm)"], rows=rows,
                        align=["l", "l", "l", "r", "r", "r"]))
    return blocks
