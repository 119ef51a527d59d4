"""The report of ``stablefs reproduce wrapper-stability`` beyond its tables and claims: the
thesis' 1NN numbers beside ours (Prat Masramon 2016, Tables 6.2-6.5 and 7.1-7.2), the
readings chosen where the thesis is silent, and the summary.

:class:`WrapperStabilityReport` extends the analysis of
:mod:`stablefs.experiments.wrapper_stability.protocol` (which holds the protocol: configuration,
Monte-Carlo unit, tables and claims). The experiment draws no figures.
"""

from __future__ import annotations

import pandas as pd

from stablefs.experiments._base import Claim
from stablefs.experiments._claims import coverage
from stablefs.experiments._published import PublishedTable
from stablefs.experiments._stats import MARGINS, claims_overview
from stablefs.experiments.wrapper_stability.protocol import LABEL, PUBLISHED, SYNTHETIC, _Analysis

__all__ = ["WrapperStabilityReport"]


class WrapperStabilityReport(_Analysis):
    """The analysis of a ``wrapper-stability`` run with its published numbers and notes."""

    # -- published: the thesis' 1NN rows beside ours --------------------------------------
    def published(self) -> pd.DataFrame:
        """Error, subset size and Kuncheva's index of both wrappers of every 1NN comparison
        on a data set the thesis reports (Tables 6.2-6.5, 7.1-7.2)."""
        pub = PublishedTable()
        for r in self.comp.itertuples():
            if r.dataset in SYNTHETIC or r.inducer != "1nn":
                continue
            rows = PUBLISHED[(PUBLISHED.dataset == r.dataset)
                             & (PUBLISHED.table_error == r.table_error)]
            if rows.empty:
                continue
            p = rows.iloc[0]
            what = f"{LABEL[r.baseline]} vs {LABEL[r.modified]}, {r.dataset}, 1NN"
            for label, pv, ov, src in (
                ("error", p.error_base, r.error_base, r.table_error),
                ("error (modified)", p.error_mod, r.error_mod, r.table_error),
                ("#features", p.nf_base, r.nf_base, r.table_error),
                ("#features (modified)", p.nf_mod, r.nf_mod, r.table_error),
                ("Kuncheva", p.stab_base, r.stab_base, r.table_stability),
                ("Kuncheva (modified)", p.stab_mod, r.stab_mod, r.table_stability),
            ):
                pub.add(f"{label}: {what}", float(pv), float(ov), f"Table {src}")
        return pub.frame()

    # -- text -----------------------------------------------------------------------------
    def notes(self) -> list[str]:
        c = self.c
        return [
            "J = accuracy of the inducer (1NN Euclidean, ties by lower index; LDA) by an inner "
            "stratified 5x2 CV on the selection half, the same partitions for every subset of "
            "a run.",
            "No stopping rule: forward searches run to all features, backward ones down to one; "
            "the returned subset has the best J on the path (ties: the smaller).",
            f"Microarray sets: {c.n_genes} genes by BSS/WSS on the selection half of each outer "
            "run.",
            "J of the empty set and of an empty remainder: the majority-class rule's accuracy.",
            "Tie-breaking: the lowest feature index; the mean number of tied choices per run "
            "is in tables/wrappers.csv (ties).",
            "Stability: Kuncheva's index of the outer runs' path subsets of each size k = "
            "1..p-1, with the correct maximum 1 (not the thesis' 44/45 cap), mean +- sd over k.",
            f"Tests: every comparison is judged over the outer runs: the {coverage(c.alpha)} "
            "t-interval of the paired bootstrap (the outer runs resampled) of the difference in "
            "mean error and in Kuncheva's index averaged over k, against a margin of "
            f"{MARGINS['accuracy']:g} (error) and {MARGINS['kuncheva']:g} (Kuncheva); the "
            "thesis' Wilcoxon-Mann-Whitney p of the errors (p_error) and the earlier Wilcoxon "
            "test across subset sizes (p_stab_sizes) are reported beside them.",
            f"Inducers: {c.inducers[0]} on every data set; "
            + (", ".join(c.inducers[1:]) + " on " + ", ".join(
                d for d in c.datasets if d in c.other_inducer_datasets)
               if len(c.inducers) > 1 else "no other")
            + "; only the 1NN rows are compared with the thesis.",
            f"corrAl: {c.corral_samples} rows (every combination of A0, A1, B0, B1, I "
            f"{c.corral_samples // 32} times, C wrong on a quarter); antiCorrAl: "
            f"{c.anticorral_samples} rows.",
            "Data differ from the thesis' in places: Prostate has 102 samples here (136 in the "
            "thesis), Breast and GCM are not available.",
            f"SBG+: lambda = {c.lam:g}, w_x = 1, consistent bookkeeping (eqs. 7.8-7.9; the printed "
            "Alg. 7.1 divides by n-_x = 0 for every candidate, see SBGPlus).",
        ]

    def summary(self, claims: list[Claim]) -> list[str]:
        c = self.c
        return claims_overview(claims) + [
            f"{self.table.dataset.nunique()} data sets, {len(c.methods)} wrappers, "
            f"{2 * c.outer_repeats} outer runs each"]
