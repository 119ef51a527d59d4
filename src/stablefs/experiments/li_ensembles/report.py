"""The report of ``stablefs reproduce li-ensembles`` beyond its tables and claims: the figures
(Li, Huang, Chen and Si 2013, Figs. 1-3), the paper's data sets beside ours, the readings
chosen where the paper is silent, and the summary.

:class:`LiEnsemblesReport` extends the analysis of :mod:`stablefs.experiments.li_ensembles.protocol`
(which holds the protocol: configuration, Monte-Carlo unit, tables and claims).
"""

from __future__ import annotations

import pandas as pd

from stablefs.experiments._base import Claim, FigureSpec
from stablefs.experiments._claims import coverage
from stablefs.experiments._published import PublishedTable
from stablefs.experiments._stats import claims_overview
from stablefs.experiments.li_ensembles.protocol import (
    CLASSIFIER_LABEL,
    ENSEMBLES,
    METHODS,
    PAPER_LABEL,
    PAPER_SETS,
    REN,
    WEN,
    _Analysis,
)

__all__ = ["LiEnsemblesReport"]


class LiEnsemblesReport(_Analysis):
    """The analysis of a ``li-ensembles`` run with its figures, notes and published numbers."""

    # -- published: the paper's data sets beside ours ----------------------------------------
    def published(self) -> pd.DataFrame:
        pub = PublishedTable("Li et al. 2013, sec. 4")
        for label, size in PAPER_SETS.items():
            name = next((n for n, lab in PAPER_LABEL.items() if lab == label), None)
            if name in self.names:
                ours = f"{self.n[name]} x {self.p[name]}"
            elif name is None:
                ours = "not available"
            else:
                ours = "not run"
            pub.add(f"{label}: samples x features", size, ours)
        pub.add("numbers printed for Figs. 1-3", "none", "tables/stability.csv, "
                "tables/tradeoff.csv")
        return pub.frame()

    # -- figures --------------------------------------------------------------------------
    def figures(self) -> list[FigureSpec]:
        c = self.c
        specs = [FigureSpec(
            "fig1_stability",
            f"Li et al. 2013 Fig. 1: mean Spearman correlation of the full rankings over the "
            f"pairs of {c.n_subsamples} subsamples of {100 * c.fraction:g} %, against the "
            f"ensemble size m (bars: {coverage(c.alpha)} bootstrap intervals over the "
            "subsamples; dashed, with the interval as a band: methods that are not ensembles).",
            self._fig_stability)]
        for clf in c.classifiers:
            fig = {"3nn": "Fig. 2", "svm": "Fig. 3"}.get(clf, "Figs. 2-3")
            specs.append(FigureSpec(
                f"fig2_3_fmeasure_{clf}",
                f"Li et al. 2013 {fig}: F-measure of stability and {CLASSIFIER_LABEL[clf]} "
                f"accuracy (m = {c.cv_ensemble_size}, {c.cv_folds}-fold CV) against the number "
                "of top features k (bars: bootstrap intervals over the folds).",
                lambda clf=clf: self._fig_tradeoff(clf)))
        return specs

    def _styles(self):
        from stablefs.report.figures import method_styles

        return method_styles(list(METHODS.values()))

    def _fig_stability(self):
        from matplotlib.figure import Figure

        styles = self._styles()
        fig = Figure(figsize=(2.8 * len(self.names) + 0.6, 3.4), layout="constrained")
        axes = fig.subplots(1, len(self.names), squeeze=False)[0]
        for ax, name in zip(axes, self.names, strict=True):
            t = self.stability[self.stability.dataset == name]
            for spec, label in METHODS.items():
                d = t[t.spec == spec]
                st = styles[label]
                if spec in ENSEMBLES:
                    ax.errorbar(d.m, d.spearman, yerr=[d.spearman - d.low, d.high - d.spearman],
                                label=label, color=st["color"], marker=st["marker"],
                                markersize=3, capsize=2, linewidth=1)
                else:  # one value for every m: a dashed line, its interval as a band
                    ax.plot(d.m, d.spearman, label=label, color=st["color"], linestyle="--",
                            linewidth=1)
                    ax.fill_between(d.m, d.low, d.high, color=st["color"], alpha=0.12,
                                    linewidth=0)
            ax.set_title(PAPER_LABEL[name])
            ax.set_xlabel("ensemble size m")
        axes[0].set_ylabel("stability (mean Spearman)")
        axes[-1].legend(fontsize=7, loc="best")
        return fig

    def _fig_tradeoff(self, clf):
        from matplotlib.figure import Figure

        styles = self._styles()
        fig = Figure(figsize=(2.8 * len(self.names) + 0.6, 3.4), layout="constrained")
        axes = fig.subplots(1, len(self.names), squeeze=False)[0]
        for ax, name in zip(axes, self.names, strict=True):
            t = self.tradeoff[(self.tradeoff.dataset == name) & (self.tradeoff.clf == clf)]
            for spec, label in METHODS.items():
                d = t[t.spec == spec]
                st = styles[label]
                ax.errorbar(d.k, d.F, yerr=[d.F - d.F_low, d.F_high - d.F], label=label,
                            color=st["color"], marker=st["marker"], markersize=3, capsize=2,
                            linewidth=1, linestyle="-" if spec in (REN, WEN) else "--")
            ax.set_title(f"{PAPER_LABEL[name]}, {CLASSIFIER_LABEL[clf]}")
            ax.set_xlabel("top k features")
        axes[0].set_ylabel("F-measure")
        axes[-1].legend(fontsize=7, loc="best")
        return fig

    # -- text -----------------------------------------------------------------------------
    def notes(self) -> list[str]:
        c = self.c
        notes = [
            "Data: Sonar (208 x 60) and Ionosphere (351 x 34, one constant feature) from the "
            "UCI files; Colon (62 x 2000); Lung is Gordon et al.'s 181 x 12533 (adenocarcinoma "
            "vs mesothelioma), not the paper's Bhattacharjee et al. 203 x 12600. Musk and "
            "Arcene are not available here and are left out.",
            "L2LW (eq. 1): one nearest hit and miss under the Manhattan distance on features "
            "min-max scaled on the training set (the paper states no scaling; its bound "
            f"assumes normalised samples), gamma = {c.gamma:g}, L-BFGS from w = 0 until the "
            "largest gradient component is at most 1e-8 (the paper: 'gradient descent-based "
            "techniques'; the minimiser is unique).",
            f"WEn and REn: members on subsamples of round({c.member_fraction:g} n) drawn "
            "without replacement, stratified by class (the project's ensemble keeps every "
            "class in every member; the paper says only 'randomly'); WEn averages the weight "
            "vectors, REn sums the rank vectors (rank 1 = largest weight). Both are "
            "aggregated from the same members, so their comparison is paired.",
            f"Ensemble sizes: the members are fitted once per training set (m = "
            f"{max(c.ensemble_sizes)}) and the ensemble of size m is the aggregate of the "
            "first m, which is exactly the ensemble an m-member fit gives (its members' "
            "random streams do not depend on m); for En-Relief the shared computation of "
            "the members sums in another order, so scores agree to about 1e-12.",
            "En-Relief (Saeys et al. 2008): ReliefF with K = 10 nearest hits and misses and "
            "every instance, m stratified bootstrap members, rank sum; m follows the x-axis "
            "like WEn's and REn's.",
            "VR-Lmba (Han and Yu 2010 instance weighting followed by Li and Lu 2009's Lmba) is "
            "not specified in the paper and Lmba is not implemented here. In its place: "
            "margin-based instance weights (Han 2012, Alg. 1, eqs. 4.2 and 4.6, all hits and "
            "misses, Euclidean distance between margin vectors) used as the instance weights "
            "s_i of eq. 1 (IW-L2LW). It keeps the variance-reduction idea and the base "
            "weighting fixed, so it isolates instance weighting against ensembling; like "
            "VR-Lmba it is not an ensemble and its curve is flat in m.",
            f"E3.1: {c.n_subsamples} subsamples of floor({c.fraction:g} n) drawn at random "
            "without replacement (not stratified); Spearman of the full rankings (ties "
            "averaged), mean over all pairs.",
            f"E3.2: one stratified {c.cv_folds}-fold CV; the stability of a method is the "
            "mean Spearman of the full rankings of its training folds, the same for every k; "
            "accuracy is pooled over the held-out folds (correct / n) for the top k "
            "features; F = 2 s a / (s + a), both in [0, 1]. The paper does not say at which "
            "number of features accuracy is measured, nor whether its stability is that of "
            "E3.1; k runs over "
            f"{', '.join(map(str, c.cv_sizes))}, below each set's number of features.",
            "Classifiers as in the rest of the project: linear SVM (C = 1) and kNN, features "
            "min-max scaled on the training part.",
            f"'Similar' is a difference whose bootstrap interval lies at or above "
            f"-{c.similar:g} (fixed before the run; the paper gives no tolerance).",
            "Plain L2LW (one fit on the whole training set) is drawn for reference; no claim "
            "is about it.",
        ]
        if self.negative_stability:
            notes.append("A negative mean Spearman counts as 0 in F: "
                         + ", ".join(self.negative_stability) + ".")
        return notes

    def summary(self, claims: list[Claim]) -> list[str]:
        return claims_overview(claims, ", ".join(PAPER_LABEL[n] for n in self.names))
