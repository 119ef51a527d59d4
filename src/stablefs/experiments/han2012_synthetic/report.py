"""The report of ``stablefs reproduce han2012-synthetic`` beyond its tables and claims: the
figures (Han 2012, Figs. 6.1-6.4), the paper's numbers and settings beside ours, the readings
chosen where the paper is ambiguous, and the summary.

:class:`Han2012SyntheticReport` extends the analysis of
:mod:`stablefs.experiments.han2012_synthetic.protocol` (which holds the protocol: configuration,
Monte-Carlo units, tables and claims).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from stablefs.experiments._base import Claim, FigureSpec
from stablefs.experiments._claims import claims_line, coverage
from stablefs.experiments._published import PublishedTable
from stablefs.experiments._stats import count_verdicts
from stablefs.experiments._stats import fmt_value as _fmt
from stablefs.experiments.han2012_synthetic.methods import METHODS, PLAIN, PRINTED, SMALL_C
from stablefs.experiments.han2012_synthetic.protocol import _Analysis

__all__ = ["Han2012SyntheticReport"]


class Han2012SyntheticReport(_Analysis):
    """The analysis of a ``han2012-synthetic`` run with its figures, notes and published
    numbers."""

    # -- figures --------------------------------------------------------------------------
    def figures(self) -> list[FigureSpec]:
        t, k = self.t_star, int(self.n_remaining[self.t_star])
        last = int(self.iterations[-1])
        n_end = int(self.n_remaining[-1])
        return [
            FigureSpec("fig6_1_bias_variance",
                       f"Han 2012 Fig. 6.1: mean variance, bias and error of the normalised "
                       f"feature weights at each RFE iteration ({self.c.n_sets} training sets "
                       f"of {self.c.n_train}); dotted line: iteration {t}, {k} features left.",
                       self._fig_iter_bv),
            FigureSpec("fig6_1b_decomposition",
                       "Error = bias + variance for each method (eq. 3.4): the shaded areas "
                       "stack the bias and the variance, the line is the separately computed "
                       "error.", self._fig_decomposition),
            FigureSpec("fig6_2_stability_accuracy",
                       f"Han 2012 Fig. 6.2: Kuncheva index over the {self.c.n_sets} subsets "
                       f"and mean test accuracy of a linear SVM ({self.c.n_test} test samples;"
                       f" band: {100 * (1 - self.c.alpha):g} % interval of the mean) at each "
                       f"iteration from {int(self.n_remaining[1])} to {n_end} features "
                       f"(iteration {last}).", self._fig_iter_stab),
            FigureSpec("fig6_3_sample_size_bias_variance",
                       f"Han 2012 Fig. 6.3: variance, bias and error of the weights with "
                       f"{self.c.size_k} features selected, against the training-set size "
                       f"({self.c.n_sets_sizes} training sets per size).", self._fig_size_bv),
            FigureSpec("fig6_4_sample_size_stability_accuracy",
                       f"Han 2012 Fig. 6.4: Kuncheva index and test accuracy with "
                       f"{self.c.size_k} features selected, against the training-set size "
                       f"(band: {100 * (1 - self.c.alpha):g} % interval of the mean accuracy).",
                       self._fig_size_stab),
        ]

    def _styles(self) -> dict:
        from stablefs.report.figures import method_styles

        labels = [METHODS[m] for m in self.methods]
        styles = method_styles(labels)
        for m in (PRINTED, SMALL_C):  # the literal reading and its control: dashed
            if m in self.methods:
                styles[METHODS[m]]["linestyle"] = "--"
        return styles

    def _lines(self, ax, table: pd.DataFrame, x: str, y: str, styles: dict, *,
               band: float | None = None, markersize: float = 3, scaled: bool = False) -> None:
        """One line per method; ``scaled`` divides by a power of ten named in the y label
        (Matplotlib's offset text would collide with the top axis)."""
        factor = 1.0
        if scaled:
            top = float(np.nanmax(np.abs(table[y]))) if len(table) else 0.0
            exp = int(np.floor(np.log10(top))) if top > 0 else 0
            factor = 10.0 ** exp
            if exp:
                ax.set_ylabel(f"× 1e{exp}")
        for m in self.methods:
            label = METHODS[m]
            d = table[table.method == label]
            st = styles[label]
            ax.plot(d[x], d[y] / factor, label=label, color=st["color"], marker=st["marker"],
                    markersize=markersize, linestyle=st.get("linestyle", "-"))
            if band is not None:
                half = band * d[f"{y}_sd"]
                ax.fill_between(d[x], d[y] - half, d[y] + half, color=st["color"], alpha=0.18,
                                linewidth=0)

    def _iter_axes(self, ax) -> None:
        ax.axvline(self.t_star, color="#888888", linestyle=":", linewidth=1)
        ax.set_xlabel("RFE iteration")
        top = ax.secondary_xaxis("top")
        ticks = sorted({i for i in (0, 10, 20, self.t_star, int(self.iterations[-1]))
                        if i <= self.iterations[-1]})
        top.set_xticks(ticks, [str(int(self.n_remaining[i])) for i in ticks])
        top.set_xlabel("features remaining", fontsize=8)
        top.tick_params(labelsize=8)

    def _size_axes(self, ax) -> None:
        ax.set_xlabel("training-set size n")
        ax.axvline(self.c.claim_n, color="#888888", linestyle=":", linewidth=1)

    def _legend(self, fig, axes) -> None:
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=min(4, len(labels)))

    def _three(self, table, x, axes_fn, markersize):
        from matplotlib.figure import Figure

        fig = Figure(figsize=(12, 4.3), layout="constrained")
        axes = fig.subplots(1, 3)
        styles = self._styles()
        for ax, metric, label in zip(axes, ("variance", "bias", "error"),
                                     ("Variance", "Bias", "Error (EL)"), strict=True):
            self._lines(ax, table, x, metric, styles, markersize=markersize, scaled=True)
            ax.set_title(label)
            axes_fn(ax)
        self._legend(fig, axes)
        return fig

    def _two(self, table, x, axes_fn, n_sets, markersize):
        from matplotlib.figure import Figure
        from scipy import stats

        fig = Figure(figsize=(10, 4.3), layout="constrained")
        axes = fig.subplots(1, 2)
        styles = self._styles()
        z = stats.norm.ppf(1 - self.c.alpha / 2) / np.sqrt(n_sets)
        self._lines(axes[0], table, x, "kuncheva", styles, markersize=markersize)
        self._lines(axes[1], table, x, "accuracy", styles, band=z, markersize=markersize)
        axes[0].set_title("Stability (Kuncheva index)")
        axes[1].set_title("Test accuracy, linear SVM")
        for ax in axes:
            axes_fn(ax)
        self._legend(fig, axes)
        return fig

    def _fig_iter_bv(self):
        return self._three(self.iter_table, "iteration", self._iter_axes, 3)

    def _fig_iter_stab(self):
        table = self.iter_table[self.iter_table.iteration > 0]
        return self._two(table, "iteration", self._iter_axes, self.c.n_sets, 3)

    def _fig_size_bv(self):
        return self._three(self.size_table, "n_train", self._size_axes, 5)

    def _fig_size_stab(self):
        return self._two(self.size_table, "n_train", self._size_axes, self.c.n_sets_sizes, 5)

    def _fig_decomposition(self):
        from matplotlib.figure import Figure

        n = len(self.methods)
        fig = Figure(figsize=(3.4 * n, 3.9), layout="constrained")
        axes = np.atleast_1d(fig.subplots(1, n, sharey=True))
        top = float(self.iter_table["error"].max())
        exp = int(np.floor(np.log10(top))) if top > 0 else 0
        f = 10.0 ** exp
        for ax, m in zip(axes, self.methods, strict=True):
            d = self.iter_table[self.iter_table.method == METHODS[m]]
            ax.fill_between(d.iteration, 0, d.bias / f, color="#4c72b0", alpha=0.45,
                            label="bias", linewidth=0)
            ax.fill_between(d.iteration, d.bias / f, (d.bias + d.variance) / f, color="#dd8452",
                            alpha=0.45, label="variance", linewidth=0)
            ax.plot(d.iteration, d.error / f, color="black", linewidth=1.3, label="error (EL)")
            ax.set_title(METHODS[m], fontsize=10)
            self._iter_axes(ax)
        if exp:
            axes[0].set_ylabel(f"× 1e{exp}")
        axes[0].legend(loc="upper left")
        return fig

    def published(self) -> pd.DataFrame:
        c = self.c
        counts = self.n_remaining

        def at(i):
            return int(counts[i]) if i < counts.size else "not reached"

        hit10 = np.flatnonzero(counts == 10)
        pub = PublishedTable("Han 2012, sec. 6.1")
        pub.add("features remaining at RFE iteration 28", 48, at(28), "Han 2012, sec. 6.2")
        pub.add("RFE iteration at which 10 features remain", 40,
                int(hit10[0]) if hit10.size else "not reached", "Han 2012, sec. 6.2")
        pub.setting("training sets", 500, c.n_sets)
        pub.setting("samples per training set", 100, c.n_train)
        pub.setting("test samples", 5000, c.n_test)
        pub.setting("features / relevant features", "1000 / 50",
                    f"{c.n_features} / {c.n_relevant}")
        pub.setting("features selected in the sample-size study", 50, c.size_k,
                    "Han 2012, sec. 6.4")
        pub.setting("sample sizes", "50 to 1000, grid not stated",
                    ",".join(map(str, c.sample_sizes)), "Han 2012, sec. 6.4")
        return pub.frame()

    def notes(self) -> list[str]:
        c = self.c
        return [
            "Labels: y = sign(r*·x), the paper's literal rule (about 11 % of the points get the "
            "label of the other mixture component); set label_by=component for the other "
            "reading.",
            "SVM: libsvm linear SVM, C = 1, features min-max scaled on each training set (as "
            "Weka's SMO, which Han 2012 used). RFE removes ceil(10 %) of the remaining "
            "features per iteration, which reproduces the paper's 48 features at iteration 28 "
            "and 10 at iteration 40.",
            "IW SVM-RFE: margin-based weights (Alg. 1, eqs. 4.2 and 4.6) computed once on the "
            "min-max scaled training set. Eq. 5.2 is said to become the original objective "
            "for equal weights, which needs weights of mean 1, but eq. 4.6 makes them sum to "
            "1. 'IW SVM-RFE' rescales them to mean 1; 'IW SVM-RFE (weights sum to 1)' takes "
            "them as printed (penalties C w_i, about C/n), and 'SVM-RFE (C/n)' is plain "
            "SVM-RFE with that smaller penalty. Claims with the suffix '-printed' are judged "
            "with the weights as printed.",
            "Accuracy: the evaluation SVM of every method is trained without instance weights, "
            f"with C = {c.C:g}, on the selected features of the training set; the test set is "
            f"one draw of {c.n_test} samples shared by all training sets.",
            "Bias, variance and error: means over all features of eqs. 3.1-3.3 with 1/M "
            "normalisation (weights stored as 32-bit floats).",
            f"Sample-size study: RFE with the same 10 % schedule stops exactly at {c.size_k} "
            "features (the last removal is shortened), so the weights and the subset are those "
            f"of the SVM trained on {c.size_k} features. The grid of sizes is ours: "
            f"{', '.join(map(str, c.sample_sizes))}; {c.n_sets_sizes} training sets per size.",
            f"Significance: percentile bootstrap over the training sets ({c.n_bootstrap} "
            f"resamples, {coverage(c.alpha)} intervals), paired when the methods use "
            "the same training sets, unpaired across sample sizes; 'almost zero' and 'almost "
            "perfect' use the thresholds stated in each claim's test.",
        ]

    def summary(self, claims: list[Claim]) -> list[str]:
        """One line per reading of IW: how many of the paper's claims about IW hold."""
        out = []
        for _, suffix, reading in self._readings():
            mine = [cl for cl in claims if cl.id[:1] in "234" and cl.id != "4h"
                    and cl.id.endswith(suffix) and (suffix or "-" not in cl.id)]
            told = count_verdicts(cl.verdict for cl in mine)
            out.append(f"{reading}: of the {len(mine)} claims comparing IW SVM-RFE with "
                       f"SVM-RFE (2a-4g{suffix}), {told}.")
        general = [cl for cl in claims if cl.id in ("1", "1b", "4h")]
        out.append("Claims on SVM-RFE itself and on the decomposition (1, 1b, 4h): "
                   + claims_line(general) + ".")
        return out

    def sections(self) -> list[tuple[str, str]]:
        """Instance weights or a smaller penalty: tables/weights_vs_penalty.csv in words."""
        if self.attribution_table is None:
            return []
        c = self.c
        t, k_star = self.t_star, int(self.n_remaining[self.t_star])
        rows = self.attribution_table.to_dict("records")
        better, worse, same = [], [], []
        for r in rows:
            lo, hi = r["printed_minus_small_c_low"], r["printed_minus_small_c_high"]
            up = r["metric"] in ("kuncheva", "accuracy")  # higher is better
            if lo <= 0 <= hi or not np.isfinite(lo):
                same.append(r["metric"])
            elif (lo > 0) == up:
                better.append(r["metric"])
            else:
                worse.append(r["metric"])
        verdict = "; ".join(f"{word} on {', '.join(names)}" for word, names in (
            ("better", better), ("worse", worse), ("no detectable difference", same)) if names)
        gains = {r["metric"]: (r[METHODS[SMALL_C]], r[METHODS[PLAIN]]) for r in rows}
        text = (
            f"Eq. 5.2 with the margin weights as printed (summing to 1) gives every sample the "
            f"penalty C w_i, about C/n = {c.C / c.n_train:g}: a much more regularised SVM than "
            f"SVM-RFE's C = {c.C:g}. Plain SVM-RFE with C/n separates the two effects. At "
            f"iteration {t} ({k_star} features), SVM-RFE with C/n has Kuncheva "
            f"{_fmt(gains['kuncheva'][0])} (C = {c.C:g}: {_fmt(gains['kuncheva'][1])}) and "
            f"error {_fmt(gains['error'][0])} (C = {c.C:g}: {_fmt(gains['error'][1])}). "
            f"IW SVM-RFE with the weights as printed, against SVM-RFE with the same C/n "
            f"({coverage(c.alpha)} paired bootstrap intervals of the difference): {verdict}; "
            "see tables/weights_vs_penalty.csv."
        )
        return [("Instance weights or a smaller penalty?", text)]
