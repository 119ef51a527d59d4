"""The report's figures, drawn with Matplotlib's Agg backend.

Figures are built as :class:`matplotlib.figure.Figure` objects attached explicitly to an
Agg canvas (:class:`~matplotlib.backends.backend_agg.FigureCanvasAgg`), never through
``pyplot``: nothing is registered in pyplot's figure manager, the user's interactive
backend (e.g. in a notebook) is not switched, and :func:`figure_to_png` releases the
figure after rendering it. A fixed style (Matplotlib defaults plus a few readability
tweaks) is applied inside :func:`matplotlib.rc_context`, so the user's matplotlibrc does not
change the report and the report does not change the user's settings.

Each method keeps one colour and marker in every figure (:func:`method_styles`). Every
plotting function takes the normalised frames of :mod:`stablefs.report.tables` and returns
a figure, or ``None`` when there is nothing to draw.
"""

from __future__ import annotations

import contextlib
import io
import math
from collections.abc import Iterator, Sequence

import matplotlib as mpl
import matplotlib.style
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from stablefs.report.tables import (
    CONSENSUS_THRESHOLD,
    classifier_label,
    format_k,
    format_seconds,
    frequency_k,
    measure_label,
    metric_label,
    parse_metric,
    primary_measure,
    primary_metrics,
    top_features,
)

__all__ = [
    "DPI",
    "figure_to_png",
    "method_styles",
    "plot_fit_time",
    "plot_frequencies",
    "plot_performance",
    "plot_stability",
    "plot_tradeoff",
    "plot_label",
]

DPI = 150
_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "*", "p"]
_STYLE = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.axisbelow": True,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "lines.linewidth": 1.8,
    "lines.markersize": 5.5,
    "figure.facecolor": "white",
    "savefig.facecolor": "white",
}


@contextlib.contextmanager
def _style() -> Iterator[None]:
    with mpl.rc_context():
        matplotlib.style.use("default")
        mpl.rcParams.update(_STYLE)
        yield


def _new_figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def figure_to_png(fig: Figure, *, dpi: int = DPI) -> bytes:
    """Render ``fig`` to PNG bytes (Agg) and release it.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        A figure from one of the ``plot_*`` functions.
    dpi : int, default 150
        Resolution.

    Returns
    -------
    bytes
        The PNG file content.
    """
    buf = io.BytesIO()
    with _style():
        FigureCanvasAgg(fig)
        fig.savefig(buf, format="png", dpi=dpi)
    fig.clear()  # the figure is not known to pyplot: clearing it frees its artists
    return buf.getvalue()


def plot_label(text: str, width: int = 28) -> str:
    """Text safe for a Matplotlib label: cut to ``width`` characters with "…", and ``$``
    escaped so that names are never read as mathtext."""
    text = " ".join(str(text).split())
    if len(text) > width:
        text = text[: max(1, width - 1)].rstrip() + "…"
    return text.replace("$", r"\$")


def method_styles(methods: Sequence[str]) -> dict[str, dict]:
    """One colour and marker per method, the same in every figure.

    Colours come from ``tab10`` for up to 10 methods, ``tab20`` for up to 20, and evenly
    spaced hues of ``turbo`` beyond; markers cycle independently, so methods stay
    distinguishable in greyscale and for colour-blind readers.

    Returns
    -------
    dict
        ``{method: {"color": rgba, "marker": str}}``.
    """
    n = len(methods)
    if n <= 10:
        cmap = mpl.colormaps["tab10"]
        colors = [cmap(i) for i in range(n)]
    elif n <= 20:
        cmap = mpl.colormaps["tab20"]
        order = list(range(0, 20, 2)) + list(range(1, 20, 2))  # strong shades first
        colors = [cmap(order[i]) for i in range(n)]
    else:
        cmap = mpl.colormaps["turbo"]
        colors = [cmap(x) for x in np.linspace(0.05, 0.95, n)]
    return {m: {"color": colors[i], "marker": _MARKERS[i % len(_MARKERS)]}
            for i, m in enumerate(methods)}


def _grid(n: int, ncols_max: int, w: float, h: float, extra_h: float = 0.0):
    ncols = max(1, min(n, ncols_max))
    nrows = math.ceil(n / ncols)
    fig = _new_figure(w * ncols, h * nrows + extra_h)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, list(axes[:n])


def _legend(fig: Figure, methods: Sequence[str], styles: dict, *, width: float) -> None:
    handles = [Line2D([], [], color=styles[m]["color"], marker=styles[m]["marker"],
                      linewidth=1.8) for m in methods]
    labels = [plot_label(m, 40) for m in methods]
    longest = max((len(s) for s in labels), default=10)
    ncols = max(1, min(len(methods), int(width * 72 / (7 * longest + 40))))
    fig.legend(handles, labels, loc="outside lower center", ncols=ncols)


def _legend_height(n_methods: int, width: float, methods: Sequence[str]) -> float:
    longest = max((len(plot_label(m, 40)) for m in methods), default=10)
    ncols = max(1, min(n_methods, int(width * 72 / (7 * longest + 40))))
    return 0.25 * math.ceil(n_methods / ncols) + 0.3


def _k_axis(ax, ks: Sequence[float]) -> None:
    ks = sorted({float(k) for k in ks})
    if len(ks) > 1 and ks[0] > 0 and ks[-1] / ks[0] >= 20:
        ax.set_xscale("log")
    if len(ks) <= 12:
        ax.set_xticks(ks, [format_k(k) for k in ks])
        ax.minorticks_off()
    if len(ks) == 1:
        ax.set_xlim(ks[0] - 1, ks[0] + 1)
    ax.set_xlabel("number of selected features k")


def _dodge(i: int, n: int, n_k: int) -> float:
    """Horizontal offset of method ``i`` of ``n`` when there is a single k (so that points
    and error bars do not hide each other); 0 otherwise."""
    if n_k != 1 or n < 2:
        return 0.0
    return (i - (n - 1) / 2) * (1.2 / n)


def _band(ax, x, y, low, high, color, *, single: bool) -> None:
    """Shaded band between low and high (error bars when there is a single k)."""
    low = np.asarray(low, float)
    high = np.asarray(high, float)
    ok = np.isfinite(low) & np.isfinite(high)
    if not ok.any():
        return
    if single:
        yv = np.asarray(y, float)[ok]
        err = np.vstack([yv - low[ok], high[ok] - yv]).clip(min=0)
        ax.errorbar(np.asarray(x, float)[ok], yv, yerr=err, fmt="none", ecolor=color,
                    capsize=4, linewidth=1.2)
    else:
        ax.fill_between(x, np.where(ok, low, np.nan), np.where(ok, high, np.nan),
                        color=color, alpha=0.15, linewidth=0)


def plot_stability(stability: pd.DataFrame, methods: Sequence[str], styles: dict
                   ) -> Figure | None:
    """Stability against k: one panel per measure, CI as a shaded band.

    Parameters
    ----------
    stability : DataFrame
        ``method, k, measure, estimate, low, high`` (see
        :func:`stablefs.report.tables.prepare_stability`).
    methods : sequence of str
        Methods in legend order.
    styles : dict
        Output of :func:`method_styles`.
    """
    if stability.empty:
        return None
    measures = list(pd.unique(stability["measure"]))
    present = [m for m in methods if m in set(stability["method"])]
    w, h = 4.6, 3.4
    ncols = min(len(measures), 3)
    with _style():
        fig, axes = _grid(len(measures), 3, w, h,
                          _legend_height(len(present), w * ncols, present))
        for ax, meas in zip(axes, measures, strict=True):
            df = stability[stability["measure"] == meas]
            ks = sorted(df["k"].unique())
            _method_lines(ax, df, present, styles, ks, "estimate",
                          lambda d: (d["low"], d["high"]))
            _k_axis(ax, ks)
            ax.set_title(plot_label(measure_label(meas), 40))
            ax.set_ylabel("stability")
        _legend(fig, present, styles, width=w * ncols)
    return fig


def _method_lines(ax, df: pd.DataFrame, present: Sequence[str], styles: dict, ks: list,
                  value: str, bounds) -> None:
    """One line with markers per method against k (dodged so that methods do not overlap),
    and its band ``bounds(rows) -> (low, high)`` shaded around it."""
    for i, m in enumerate(present):
        d = df[df["method"] == m].sort_values("k")
        if d.empty:
            continue
        st = styles[m]
        x = d["k"] + _dodge(i, len(present), len(ks))
        low, high = bounds(d)
        ax.plot(x, d[value], color=st["color"], marker=st["marker"])
        _band(ax, x, d[value], low, high, st["color"], single=len(ks) == 1)


def _sd_band(d: pd.DataFrame, bounded: bool):
    """mean ± sd, clipped to [0, 1] for bounded metrics (accuracy, AUC, ...)."""
    low, high = d["mean"] - d["sd"], d["mean"] + d["sd"]
    if bounded:
        low, high = low.clip(lower=0), high.clip(upper=1)
    return low, high


def plot_performance(perf: pd.DataFrame, methods: Sequence[str], styles: dict
                     ) -> Figure | None:
    """Predictive metrics against k: one column per classifier, one row per metric kind
    (accuracy, AUC, ...), mean ± sd over resamples as a shaded band.

    Parameters
    ----------
    perf : DataFrame
        Output of :func:`stablefs.report.tables.performance_summary`.
    methods, styles
        As for :func:`plot_stability`.
    """
    if perf.empty:
        return None
    kinds = list(pd.unique(perf["kind"]))
    kinds = sorted(kinds, key=lambda k: (k != "accuracy", k != "auc"))
    clfs = list(pd.unique(perf["classifier"]))
    present = [m for m in methods if m in set(perf["method"])]
    w, h = 4.6, 3.3
    with _style():
        fig = _new_figure(w * len(clfs),
                          h * len(kinds) + _legend_height(len(present), w * len(clfs), present))
        grid = fig.subplots(len(kinds), len(clfs), squeeze=False)
        for i, kind in enumerate(kinds):
            for j, clf in enumerate(clfs):
                ax = grid[i, j]
                df = perf[(perf["kind"] == kind) & (perf["classifier"] == clf)]
                if df.empty:
                    ax.set_visible(False)
                    continue
                ks = sorted(df["k"].unique())
                bounded = kind in ("accuracy", "auc", "balanced_accuracy", "error")
                _method_lines(ax, df, present, styles, ks, "mean",
                              lambda d, b=bounded: _sd_band(d, b))
                _k_axis(ax, ks)
                metric = df["metric"].iloc[0]
                ax.set_title(plot_label(metric_label(metric), 44))
                ax.set_ylabel(f"{metric_label(parse_metric(metric)[0])} (mean ± sd)")
        _legend(fig, present, styles, width=w * len(clfs))
    return fig


def plot_tradeoff(stability: pd.DataFrame, perf: pd.DataFrame, methods: Sequence[str],
                  styles: dict, *, measure: str | None = None) -> Figure | None:
    """Stability–accuracy trade-off: x = stability, y = mean accuracy, one point per
    (method, k) labelled by k, joined in order of k; one panel per classifier.

    Parameters
    ----------
    stability, perf : DataFrame
        Normalised stability and :func:`~stablefs.report.tables.performance_summary`.
    methods, styles
        As for :func:`plot_stability`.
    measure : str, optional
        Stability measure on x (default: Kuncheva, else Nogueira, else the first).
    """
    measure = measure or primary_measure(stability)
    metrics = primary_metrics(perf)
    if measure is None or not metrics:
        return None
    stab = stability[stability["measure"] == measure][["method", "k", "estimate"]]
    panels = []
    for metric in metrics:
        d = perf[perf["metric"] == metric][["method", "k", "mean"]].merge(
            stab, on=["method", "k"])
        d = d[np.isfinite(d["mean"]) & np.isfinite(d["estimate"])]
        if not d.empty:
            panels.append((metric, d))
    if not panels:
        return None
    present = [m for m in methods if any(m in set(d["method"]) for _, d in panels)]
    w, h = 5.0, 4.0
    ncols = min(len(panels), 3)
    with _style():
        fig, axes = _grid(len(panels), 3, w, h,
                          _legend_height(len(present), w * ncols, present))
        for ax, (metric, d) in zip(axes, panels, strict=True):
            for m in present:
                dm = d[d["method"] == m].sort_values("k")
                if dm.empty:
                    continue
                st = styles[m]
                ax.plot(dm["estimate"], dm["mean"], color=st["color"], marker=st["marker"],
                        linewidth=1.2, alpha=0.9)
                for x, y, k in dm[["estimate", "mean", "k"]].itertuples(index=False):
                    ax.annotate(format_k(k), (x, y), xytext=(4, 3), textcoords="offset points",
                                fontsize=7.5, color=st["color"])
            ax.set_xlabel(f"stability ({plot_label(measure_label(measure), 30)})")
            kind, clf = parse_metric(metric)
            ax.set_ylabel(f"mean {metric_label(kind).lower()}")
            ax.set_title(plot_label(classifier_label(clf) or metric_label(metric), 40))
            ax.margins(0.12)
        fig.suptitle("points labelled by k; up and to the right is better", fontsize=9,
                     color="#555555")
        _legend(fig, present, styles, width=w * ncols)
    return fig


def plot_frequencies(frequencies: pd.DataFrame, methods: Sequence[str], styles: dict, *,
                     k: float | None = None, top: int = 30) -> Figure | None:
    """Selection frequency of each method's most frequently selected features.

    One panel per method with horizontal bars, most frequent at the top, and a dashed line
    at the consensus threshold (0.5). Long feature names are cut for the plot.

    Parameters
    ----------
    frequencies : DataFrame
        ``method, k, feature, frequency`` (see
        :func:`stablefs.report.tables.prepare_frequencies`).
    methods, styles
        As for :func:`plot_stability`.
    k : float, optional
        Subset size; default (and for methods without it) each method's largest k.
    top : int, default 30
        Number of features per panel.
    """
    if frequencies is None or frequencies.empty:
        return None
    present = [m for m in methods if m in set(frequencies["method"])]
    data = []
    for m in present:
        km = frequency_k(frequencies, m, k)
        data.append((m, km, top_features(frequencies, m, km, top)))
    n_bars = max((len(d) for _, _, d in data), default=1)
    w, h = 4.4, 0.19 * max(n_bars, 5) + 1.0
    with _style():
        fig, axes = _grid(len(data), 4, w, h)
        for ax, (m, km, d) in zip(axes, data, strict=True):
            color = styles[m]["color"]
            y = np.arange(len(d))
            ax.barh(y, d["frequency"], color=color, height=0.72)
            ax.set_yticks(y, [plot_label(f, 26) for f in d["feature"]], fontsize=7.5)
            ax.set_ylim(max(n_bars, 1) - 0.5, -0.5)  # most frequent at the top
            ax.set_xlim(0, 1.0)
            ax.axvline(CONSENSUS_THRESHOLD, color="#444444", linestyle="--", linewidth=0.9,
                       zorder=3)
            ax.grid(axis="y", visible=False)
            ax.set_xlabel("selection frequency")
            ax.set_title(f"{plot_label(m, 30)}\nk = {format_k(km)}", fontsize=9.5)
            if d.empty:
                ax.text(0.5, 0.5, "no feature selected", transform=ax.transAxes,
                        ha="center", va="center", color="#777777")
    return fig


def plot_fit_time(timing: pd.DataFrame, methods: Sequence[str], styles: dict, *,
                  metric: str = "fit_time") -> Figure | None:
    """Mean time to fit each selector once, with sd over resamples, as horizontal bars.

    A log scale is used when the times span more than two orders of magnitude.

    Parameters
    ----------
    timing : DataFrame
        Output of :func:`stablefs.report.tables.time_summary`.
    methods, styles
        As for :func:`plot_stability`.
    metric : str, default "fit_time"
        Which time metric (falls back to the first one present).
    """
    if timing is None or timing.empty:
        return None
    if metric not in set(timing["metric"]):
        metric = timing["metric"].iloc[0]
    df = timing[timing["metric"] == metric].set_index("method")
    present = [m for m in methods if m in df.index]
    if not present:
        return None
    means = np.array([float(df.loc[m, "mean"]) for m in present])
    sds = np.array([float(df.loc[m, "sd"]) for m in present])
    sds = np.where(np.isfinite(sds), sds, 0.0)
    with _style():
        fig = _new_figure(7.0, 0.42 * len(present) + 1.3)
        ax = fig.subplots()
        y = np.arange(len(present))
        ax.barh(y, means, xerr=sds, color=[styles[m]["color"] for m in present], height=0.65,
                error_kw={"ecolor": "#333333", "capsize": 3, "linewidth": 1})
        ax.set_yticks(y, [plot_label(m, 34) for m in present])
        ax.set_ylim(len(present) - 0.5, -0.5)
        ax.grid(axis="y", visible=False)
        positive = means[means > 0]
        if positive.size > 1 and positive.max() / positive.min() > 100:
            ax.set_xscale("log")
        for yi, (mu, sd) in enumerate(zip(means, sds, strict=True)):
            if np.isfinite(mu):
                ax.annotate(format_seconds(mu), (mu + sd, yi), xytext=(4, 0),
                            textcoords="offset points", va="center", fontsize=8)
        ax.margins(x=0.18)
        label = "fit time" if metric == "fit_time" else metric.replace("_", " ")
        ax.set_xlabel(f"{label} per fit, seconds (mean ± sd over resamples)")
    return fig
