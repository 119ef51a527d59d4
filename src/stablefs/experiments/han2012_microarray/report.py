"""The report of ``stablefs reproduce han2012-microarray`` beyond its tables and claims: the
figures (Han 2012, Figs. 7.3-7.7), the thesis' Tables 7.2-7.6 beside ours, the readings chosen
where the thesis is silent, what the controls of the instance weighting show, and the summary.

:class:`Han2012MicroarrayReport` extends the analysis of
:mod:`stablefs.experiments.han2012_microarray.protocol` (which holds the protocol: configuration,
Monte-Carlo units, tables and claims).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from stablefs.experiments._base import Claim, FigureSpec
from stablefs.experiments._published import PublishedTable
from stablefs.experiments._stats import claims_overview
from stablefs.experiments.han2012_microarray.protocol import (
    CLASSIFIER_LABEL,
    CONTROLS,
    FAMILIES,
    LABEL,
    METHODS,
    PAPER_LABEL,
    _Analysis,
)
from stablefs.experiments.han2012_microarray.published import (
    published_consensus,
    published_tables,
)

__all__ = ["Han2012MicroarrayReport"]


class Han2012MicroarrayReport(_Analysis):
    """The analysis of a ``han2012-microarray`` run with its figures, notes and published
    numbers."""

    # -- published numbers beside ours ----------------------------------------------------
    def published(self) -> pd.DataFrame:
        pub = published_tables()
        ours = {"7.2": self.accuracy_summary(), "7.3": self.accuracy_summary(),
                "7.4": self.auc_summary(), "7.5": self.auc_summary()}
        label_to_spec = {v: k for k, v in METHODS.items()}
        clf_of = {v: k for k, v in CLASSIFIER_LABEL.items()}
        out = PublishedTable()
        for _, r in pub.iterrows():
            name = next((n for n in self.names if PAPER_LABEL[n] == r.data), None)
            clf = clf_of.get(r.classifier)
            if name is None or clf not in self.c.classifiers:
                continue
            s = ours[r.table]
            hit = s[(s.dataset == name) & (s.method == label_to_spec[r.method])
                    & (s.classifier == clf) & (s.k == r.k)]
            if hit.empty:
                continue
            what = "accuracy" if r.table in ("7.2", "7.3") else "AUC"
            out.add(f"{r.data} {r.classifier} {r.method} k = {r.k}: {what} (%)",
                    f"{r['mean']:.1f} ± {r.sd:.1f}",
                    f"{100 * hit['mean'].iloc[0]:.1f} ± {100 * hit.sd.iloc[0]:.1f}",
                    f"Han 2012, Table {r.table}")
        cons = published_consensus().set_index(["data", "method"])
        for _, r in self.consensus.iterrows():
            # the printed-weights control beside the thesis' IW row as well
            paper = "IW SVM-RFE" if r.method == "iw-svm-rfe-printed" else LABEL[r.method]
            key = (PAPER_LABEL[r.dataset], paper)
            if key not in cons.index or self.c.signature_size != 50:
                continue
            for col, what in (("distinct", "genes in at least one signature"),
                              ("over50", "genes in more than half"),
                              ("over85", "genes in more than 85 %")):
                out.add(f"{key[0]} {LABEL[r.method]}: {what}", int(cons.loc[key, col]),
                        int(r[col]), "Han 2012, Table 7.6")
        return out.frame()

    # -- figures --------------------------------------------------------------------------
    def figures(self) -> list[FigureSpec]:
        c = self.c
        return [
            FigureSpec("fig7_3_7_4_kuncheva",
                       f"Han 2012 Figs. 7.3-7.4: Kuncheva's index under {c.cv_repeats} x "
                       f"{c.cv_folds}-fold CV (within each repetition, mean over "
                       "repetitions; bars: sd over repetitions).",
                       lambda: self._fig_curves(self.kuncheva_summary(), "Kuncheva", "k")),
            FigureSpec("fig7_5_7_6_npogr",
                       f"Han 2012 Figs. 7.5-7.6: nPOGR over {c.n_splits} random 2/3 splits "
                       "(correlations on Dudoit-preprocessed data).",
                       lambda: self._fig_curves(
                           self.npogr.rename(columns={"npogr": "mean"}).assign(sd=np.nan),
                           "nPOGR", "k")),
            FigureSpec("fig7_7_consensus",
                       f"Han 2012 Fig. 7.7: number of genes in at least f of the "
                       f"{c.n_splits} signatures of size {c.signature_size} (SVM-RFE family; "
                       "perfect stability would be a rectangle).", self._fig_consensus),
        ]

    def _fig_curves(self, table: pd.DataFrame, ylabel: str, xlabel: str):
        from matplotlib.figure import Figure

        from stablefs.report.figures import method_styles

        styles = method_styles([LABEL[m] for m in self.methods])
        fig = Figure(figsize=(2.7 * len(self.names) + 1, 5.4), layout="constrained")
        axes = fig.subplots(2, len(self.names), sharey="row", squeeze=False)
        for col, name in enumerate(self.names):
            for row, (family, specs) in enumerate(self._families().items()):
                ax = axes[row, col]
                for spec in specs:
                    d = table[(table.dataset == name) & (table.method == spec)]
                    st = styles[LABEL[spec]]
                    ax.errorbar(d.k, d["mean"], yerr=d["sd"], label=LABEL[spec],
                                color=st["color"], marker=st["marker"], markersize=3,
                                capsize=2, linewidth=1,
                                linestyle="--" if spec in CONTROLS else "-")
                if row == 0:
                    ax.set_title(PAPER_LABEL[name])
                if col == 0:
                    ax.set_ylabel(f"{ylabel} ({family})")
                if row == 1:
                    ax.set_xlabel(xlabel)
        for row in range(2):
            handles, labels = axes[row, 0].get_legend_handles_labels()
            axes[row, -1].legend(handles, labels, fontsize=7, loc="best")
        return fig

    def _families(self) -> dict[str, tuple]:
        """The figures' rows: the thesis' families, the controls beside SVM-RFE's."""
        extra = tuple(m for m in self.methods if m in CONTROLS)
        return {"SVM-RFE": FAMILIES["SVM-RFE"] + extra, "ReliefF": FAMILIES["ReliefF"]}

    def _fig_consensus(self):
        from matplotlib.figure import Figure

        from stablefs.report.figures import method_styles

        c = self.c
        styles = method_styles([LABEL[m] for m in self.methods])
        fig = Figure(figsize=(2.7 * len(self.names) + 1, 3.2), layout="constrained")
        axes = fig.subplots(1, len(self.names), squeeze=False)[0]
        f = np.arange(1, c.n_splits + 1)
        for ax, name in zip(axes, self.names, strict=True):
            for spec in self._families()["SVM-RFE"]:
                orders = self.split_orders[(name, spec)][:, :c.signature_size]
                freq = np.bincount(orders.ravel(), minlength=self.p[name])
                at_least = (freq[None, :] >= f[:, None]).sum(axis=1)
                st = styles[LABEL[spec]]
                ax.plot(f, at_least, label=LABEL[spec], color=st["color"], linewidth=1.2,
                        linestyle="--" if spec in CONTROLS else "-")
            ax.plot([1, c.n_splits, c.n_splits], [c.signature_size] * 2 + [0], color="0.5",
                    linestyle=":", label="perfect stability")
            ax.set_yscale("log")
            ax.set_title(PAPER_LABEL[name])
            ax.set_xlabel("f (signatures)")
        axes[0].set_ylabel("genes in at least f signatures")
        axes[-1].legend(fontsize=7)
        return fig

    # -- text -----------------------------------------------------------------------------
    def notes(self) -> list[str]:
        c = self.c
        e = self.npogr
        ratio = (e.E_O / e.k)
        big = e[e.k >= 50]
        return [
            "Data as stored in the registry; Prostate has 12,600 probes here (the thesis: the "
            "6034-gene version).",
            (f"Lung: the {c.prefilter} genes with the largest Welch t-statistic are kept on "
             "each training part (the thesis filtered once on all 181 samples, which lets the "
             "test samples into the selection); Kuncheva's d is the number of genes of the "
             "data set (any of them can be chosen).") if c.prefilter and "lung" in c.prefilter_sets
            else "No t-test pre-filter.",
            "Kuncheva under CV: the index of the subsets of one repetition, averaged over the "
            "repetitions (the thesis says only 'the average over 10 runs').",
            "Classifiers as Weka's SMO (linear, C = 1) and IBk (1NN), both on features "
            "min-max scaled on the training part; accuracy is the mean over the folds of one "
            "repetition; AUC of 1NN comes from its 0/1 scores (as Weka's), so it equals the "
            "balanced accuracy.",
            "Ensembles: 20 bootstrap members, rank-sum aggregation; instance weights: margin "
            "based (Alg. 1), rescaled to mean 1 for SVM-RFE (eq. 5.2).",
            "nPOGR (eq. 5.8) correlates genes on the data preprocessed as Dudoit, Fridlyand and "
            "Speed (2002) do for these sets (floor 100, ceiling 16,000, log10) with every "
            "array standardised: raw intensities share an array-wide factor that makes almost "
            "every gene pair correlated. Even so, gene pairs are broadly co-expressed here: "
            f"by chance alone E(O)/k is {ratio.min():.2f} to {ratio.max():.2f} "
            f"({big.E_O.div(big.k).min():.2f} to {big.E_O.div(big.k).max():.2f} for "
            "k >= 50), so nPOGR's denominator k - E(r) - E(O) is small and its differences "
            f"are magnified. E(O) from {c.npogr_pairs} random subset pairs (Zhang et al. "
            "use 10,000), BH-FDR at "
            f"{c.npogr_fdr:g} within each comparison.",
        ] + self._controls_note()

    def _controls_note(self) -> list[str]:
        """What the controls show: the weights against the penalty (data computed here)."""
        if not self.c.controls:
            return []
        c = self.c
        kun = self.kuncheva_summary().groupby(["dataset", "method"])["mean"].mean()
        cons = self.consensus.set_index(["dataset", "method"])
        same, parts = [], []
        t = self.same_genes_table().set_index(["dataset", "k"])["same_as_svm_rfe"]
        by_k = "; ".join(
            f"{PAPER_LABEL[name]} " + ", ".join(f"k = {k}: {t[(name, k)]}" for k in
                                                 t.loc[name].index)
            for name in self.names)
        for name in self.names:
            same.append(f"{PAPER_LABEL[name]} {t[(name, c.signature_size)]}")
            parts.append(
                f"{PAPER_LABEL[name]}: Kuncheva (mean over k) SVM-RFE "
                f"{kun[(name, 'svm-rfe')]:.3f}, IW {kun[(name, 'iw-svm-rfe')]:.3f}, IW as "
                f"printed {kun[(name, 'iw-svm-rfe-printed')]:.3f}, SVM-RFE with C/n "
                f"{kun[(name, 'svm-rfe-small-c')]:.3f}; distinct genes "
                + "/".join(str(int(cons.loc[(name, m), "distinct"]))
                           for m in ("svm-rfe", "iw-svm-rfe", "iw-svm-rfe-printed",
                                     "svm-rfe-small-c")))
        return [
            f"Controls of the instance weighting: IW SVM-RFE (weights of mean 1) chose exactly "
            f"the same {c.signature_size} genes as SVM-RFE in "
            f"{', '.join(same)} of {c.n_splits} splits. With n much smaller than p the "
            "linear SVM separates the training samples with every dual variable below its "
            "bound C v_i, and then per-sample penalties cannot change the solution. With the "
            "weights as printed (summing to 1, penalties about C/n) the SVM is much more "
            "regularised; plain SVM-RFE with the same C/n separates the weights from the "
            "penalty. " + "; ".join(parts) + " (distinct genes in the 50-gene signatures: "
            "SVM-RFE / IW / IW as printed / SVM-RFE with C/n).",
            "Mean-1 weights change nothing only at larger k: splits (of "
            f"{c.n_splits}) in which IW SVM-RFE with weights of mean 1 keeps exactly SVM-RFE's "
            f"top k genes: {by_k} (tables/same_genes.csv). Late in the elimination, with few "
            "genes left, the SVM no longer separates the training samples and the bounds "
            "C v_i bind."]

    def summary(self, claims: list[Claim]) -> list[str]:
        return claims_overview(claims, ", ".join(PAPER_LABEL[n] for n in self.names))
