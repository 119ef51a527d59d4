"""The report section on ``comparisons.csv``: which differences between methods are
significant after Holm's correction (:func:`stablefs.evaluation.compare_methods`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from stablefs.report.render import Heading, Paragraph, Table
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


def comparison_blocks(comparisons, *, alpha: float = 0.05, max_rows: int = 40) -> list:
    """Report blocks for a comparisons table (a DataFrame, or the path of
    ``comparisons.csv``); an empty list when there is nothing to compare.

    The table lists the pairs whose Holm-adjusted p-value is below ``alpha`` (at most
    ``max_rows``, smallest first); the sentence above it says how many tests were run and
    how they were corrected.
    """
    if isinstance(comparisons, (str, Path)):
        path = Path(comparisons)
        if not path.is_file():
            return []
        comparisons = pd.read_csv(path)
    if comparisons is None or comparisons.empty:
        return []
    df = comparisons
    sig = df[df["p_holm"] < alpha].sort_values(["p_holm", "k", "metric"], kind="stable")
    tests = ", ".join(_TESTS.get(t, t) for t in dict.fromkeys(df["test"]))
    intro = (
        f"{len(df)} tests of method pairs on the same resamples ({tests}). p-values are "
        f"adjusted with Holm's method across the pairs of methods, separately for each k, "
        f"metric and test. The Wilcoxon test ignores that the training sets of the resamples "
        f"overlap and is too liberal; the corrected t-test accounts for it. The stability test "
        f"treats the resamples of the two methods as independent, which makes it "
        f"conservative. All results are in comparisons.csv."
    )
    blocks: list = [Heading(2, "Method comparisons"), Paragraph(intro)]
    if sig.empty:
        blocks.append(Paragraph(f"No difference is significant at {alpha:g} after Holm's "
                                "correction."))
        return blocks
    shown = sig.head(max_rows)
    rows = [[f"{r.method_a} − {r.method_b}", str(int(r.k)), str(r.metric),
             _TESTS.get(r.test, r.test), f"{r.mean_difference:+.3f}", _p(r.p_value),
             _p(r.p_holm)] for r in shown.itertuples(index=False)]
    blocks.append(Paragraph(f"{len(sig)} difference(s) significant at {alpha:g} after "
                            f"Holm's correction (a − b: positive means the first method is "
                            f"higher)" + (f"; the {len(shown)} smallest p-values:"
                                          if len(sig) > len(shown) else ":")))
    blocks.append(Table(header=["Methods (a − b)", "k", "Metric", "Test", "Mean a − b", "p",
                                "p (Holm)"], rows=rows,
                        align=["l", "r", "l", "l", "r", "r", "r"]))
    return blocks
