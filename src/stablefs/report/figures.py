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
from matplotlib.ticker import MaxNLocator

from stablefs.report.tables import (
    CONSENSUS_THRESHOLD,
    classifier_label,
    format_k,
    format_seconds,
    measure_label,
    metric_label,
    parse_metric,
    primary_measure,
    primary_metrics,
)
from stablefs.report.ties import pareto_front
from stablefs.stability.frequency import in_consensus

__all__ = [
    "DPI",
    "baseline_in_view",
    "figure_to_png",
    "figure_to_png_svg",
    "honest_limits",
    "method_styles",
    "plot_frequency_rank",
    "plot_selection_heatmap",
    "plot_fit_time",
    "plot_performance",
    "plot_stability",
    "plot_tradeoff",
    "plot_label",
]

DPI = 150
_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "*", "p"]
_LINESTYLES = ["-", "--", "-.", ":"]
#: the smallest span of a bounded metric's y axis (accuracy, AUC): 0.001 never looks large
MIN_SPAN = 0.1
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


class ReportFigure(Figure):
    """A report figure that shows itself inline in Jupyter (``_repr_png_``) without pyplot:
    the figures of :class:`stablefs.Comparison` (``plot_stability()``, ...) are built on the
    Agg canvas, never registered with pyplot, so that drawing them in a script or a worker
    opens no window and leaks no global state."""

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        with _style():
            FigureCanvasAgg(self)
            self.savefig(buf, format="png", dpi=100)
        return buf.getvalue()


def _new_figure(width: float, height: float) -> Figure:
    fig = ReportFigure(figsize=(width, height), layout="constrained")
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


def figure_to_png_svg(fig: Figure, *, dpi: int = DPI) -> tuple[bytes, bytes]:
    """Render ``fig`` to PNG and SVG bytes and release it.

    The SVG has the same layout as the PNG, a fixed hash salt for its element ids and no
    date, so the same figure gives byte-identical SVG files on every run; text stays text
    (``svg.fonttype = "none"``).
    """
    png, svg = io.BytesIO(), io.BytesIO()
    with _style():
        FigureCanvasAgg(fig)
        fig.savefig(png, format="png", dpi=dpi)
        fig.set_layout_engine("none")  # keep the layout just computed for the SVG
        with mpl.rc_context({"svg.hashsalt": "stablefs", "svg.fonttype": "none"}):
            fig.savefig(svg, format="svg", metadata={"Date": None})
    fig.clear()
    return png.getvalue(), svg.getvalue()


def honest_limits(low, high, *, bounded: bool, min_span: float = MIN_SPAN
                  ) -> tuple[float, float]:
    """Y-axis limits that never magnify a small difference.

    The data range (``low`` to ``high``, e.g. interval bounds) is widened to at least
    ``min_span`` and its ends rounded outwards to multiples of 0.05. For bounded metrics
    (accuracy, AUC: at most 1) the extra span goes below the data when the data are near 1,
    so that 0.994–1.000 is drawn on 0.9–1.0, not on its own 0.006 range; the top is
    ``max(1, highest bound)`` when the data reach within ``min_span`` of 1 (an interval past
    1 is drawn whole, not cut).
    """
    vals = np.concatenate([np.ravel(np.asarray(low, float)), np.ravel(np.asarray(high, float))])
    vals = vals[np.isfinite(vals)]
    if vals.size == 0:
        return (0.0, 1.0) if bounded else (-1.0, 1.0)
    lo, hi = float(vals.min()), float(vals.max())
    step = 0.05
    hi_r = math.ceil(hi / step - 1e-9) * step
    lo_r = math.floor(lo / step + 1e-9) * step
    if bounded and hi >= 1 - min_span - 1e-9:  # the data, not their rounded top (0.865 -> 0.9)
        hi_r = max(1.0, hi)
    if hi_r - lo_r < min_span:
        if bounded and hi_r >= 1.0:
            lo_r = hi_r - min_span
            lo_r = math.floor(lo_r / step + 1e-9) * step
        else:
            mid = (lo + hi) / 2
            lo_r = math.floor((mid - min_span / 2) / step + 1e-9) * step
            hi_r = lo_r + max(min_span, math.ceil((hi - lo_r) / step - 1e-9) * step)
    if bounded and lo >= 0 and lo_r < 0:  # no room below 0: the span goes above instead
        lo_r = 0.0
        hi_r = max(hi_r, min_span)
    pad = 0.01 * (hi_r - lo_r)
    return lo_r - pad, hi_r + pad


def plot_label(text: str, width: int = 28) -> str:
    """Text safe for a Matplotlib label: cut to ``width`` characters with "…", and ``$``
    escaped so that names are never read as mathtext."""
    text = " ".join(str(text).split())
    if len(text) > width:
        text = text[: max(1, width - 1)].rstrip() + "…"
    return text.replace("$", r"\$")


def method_styles(methods: Sequence[str], *, linestyles: bool = False) -> dict[str, dict]:
    """One colour and marker per method, the same in every figure.

    Colours come from ``tab10`` for up to 10 methods, ``tab20`` for up to 20, and evenly
    spaced hues of ``turbo`` beyond; markers cycle independently, so methods stay
    distinguishable in greyscale and for colour-blind readers.

    Returns
    -------
    dict
        ``{method: {"color": rgba, "marker": str}}``, and with ``linestyles`` also
        ``"linestyle"``: line styles cycle with period 4 against the markers' 12, so lines
        stay apart where they overlap (the comparison report uses them; the experiments'
        figures give line styles their own meaning).
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
    out = {m: {"color": colors[i], "marker": _MARKERS[i % len(_MARKERS)]}
           for i, m in enumerate(methods)}
    if linestyles:
        for i, m in enumerate(methods):
            out[m]["linestyle"] = _LINESTYLES[i % len(_LINESTYLES)]
    return out


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
                      linestyle=styles[m].get("linestyle", "-"), linewidth=1.8)
               for m in methods]
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


def _dodge(x, i: int, n: int, ks: Sequence[float], log: bool) -> np.ndarray:
    """Positions of method ``i`` of ``n`` around each k, spread over 40 % of the smallest gap
    between sizes (a factor on a log axis), so that points and error bars of different
    methods never sit on top of each other."""
    x = np.asarray(x, float)
    if n < 2:
        return x
    ks = np.asarray(sorted(ks), float)
    if ks.size == 1:
        return x + (i - (n - 1) / 2) * (1.2 / n)
    if log:
        gap = float(np.min(np.diff(np.log(ks))))
        return x * np.exp((i - (n - 1) / 2) * 0.4 * gap / n)
    gap = float(np.min(np.diff(ks)))
    return x + (i - (n - 1) / 2) * 0.4 * gap / n


def _band(ax, x, y, low, high, color) -> None:
    """Error bars from low to high (never cut: the axis is made to hold them)."""
    low = np.asarray(low, float)
    high = np.asarray(high, float)
    ok = np.isfinite(low) & np.isfinite(high)
    if not ok.any():
        return
    yv = np.asarray(y, float)[ok]
    err = np.vstack([yv - low[ok], high[ok] - yv]).clip(min=0)
    ax.errorbar(np.asarray(x, float)[ok], yv, yerr=err, fmt="none", ecolor=color,
                capsize=2.5, linewidth=1.0, alpha=0.85)


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
            _k_axis(ax, ks)
            _method_lines(ax, df, present, styles, ks, "estimate",
                          lambda d: (d["low"], d["high"]))
            lo, hi = honest_limits(df[["estimate", "low"]].min(axis=1),
                                   df[["estimate", "high"]].max(axis=1), bounded=False)
            ax.set_ylim(min(lo, 0.0) if lo < 0.05 else lo, hi)
            ax.set_title(plot_label(measure_label(meas), 40))
            ax.set_ylabel("stability")
        _legend(fig, present, styles, width=w * ncols)
    return fig


def _method_lines(ax, df: pd.DataFrame, present: Sequence[str], styles: dict, ks: list,
                  value: str, bounds) -> None:
    """One line with markers per method against k (dodged so that methods do not overlap),
    and its band ``bounds(rows) -> (low, high)`` shaded around it."""
    log = ax.get_xscale() == "log"
    for i, m in enumerate(present):
        d = df[df["method"] == m].sort_values("k")
        if d.empty:
            continue
        st = styles[m]
        x = _dodge(d["k"], i, len(present), ks, log)
        low, high = bounds(d)
        ax.plot(x, d[value], color=st["color"], marker=st["marker"],
                linestyle=st.get("linestyle", "-"), markeredgecolor="white",
                markeredgewidth=0.6)
        _band(ax, x, d[value], low, high, st["color"])


def _ci_band(d: pd.DataFrame):
    """The 95 % t-interval of the mean (the tie rule's interval), never clipped."""
    return d["low"], d["high"]


BASELINE_STYLE = {"color": "#888888", "linestyle": (0, (5, 3)), "linewidth": 1.1, "zorder": 1}


def _baseline_value(baseline: dict | None, kind: str) -> float | None:
    """The majority-class rule's mean for a metric kind (accuracy, balanced accuracy)."""
    if not baseline or kind not in ("accuracy", "balanced_accuracy"):
        return None
    value = baseline.get(kind)
    return float(value) if value is not None and math.isfinite(float(value)) else None


def _baseline_line(ax, value: float | None, kind: str = "accuracy") -> None:
    """The dashed grey line of the majority-class baseline, labelled at its right end; when
    the axis does not reach down to it (:func:`baseline_in_view`), a note at the bottom
    right names it instead."""
    if value is None:
        return
    name = "chance (majority class)" if kind == "balanced_accuracy" else "majority class"
    lo, hi = ax.get_ylim()
    if lo <= value <= hi:
        ax.axhline(value, **BASELINE_STYLE)
        ax.annotate(f"{name} {value:.2f}", xy=(1.0, value), xycoords=("axes fraction",
                    "data"), xytext=(-2, 2), textcoords="offset points", ha="right",
                    va="bottom", fontsize=7, color="#666666")
        return
    where = "below" if value < lo else "above"
    ax.annotate(f"{name} {value:.2f}, {where} the axis " + ("↓" if value < lo else "↑"),
                xy=(1.0, 0.0 if value < lo else 1.0), xycoords="axes fraction",
                xytext=(-2, 2 if value < lo else -2), textcoords="offset points", ha="right",
                va="bottom" if value < lo else "top", fontsize=7, color="#666666")


def baseline_in_view(values, baseline: float | None) -> list[float]:
    """The values the y axis must hold for the baseline: ``[b - 0.02, b + 0.02]`` when the
    baseline ``b`` lies within one span of the data (at least :data:`MIN_SPAN`) of them,
    else nothing. A baseline far below strong-signal accuracies (0.21 under 0.55–0.66 on a
    ten-class set, 0.6 under 0.95–1.0) would stretch the axis down to it and squeeze every
    point against the top; it is then named in a note at the axis' edge instead
    (:func:`_baseline_line`)."""
    if baseline is None:
        return []
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return [baseline - 0.02, baseline + 0.02]
    lo, hi = float(v.min()), float(v.max())
    reach = max(hi - lo, MIN_SPAN)
    if lo - reach <= baseline <= hi + reach:
        return [baseline - 0.02, baseline + 0.02]
    return []


def plot_performance(perf: pd.DataFrame, methods: Sequence[str], styles: dict,
                     baseline: dict | None = None) -> Figure | None:
    """Predictive metrics against k: one column per classifier, one row per metric kind
    (accuracy, AUC, ...): mean over resamples with its 95 % t-interval as error bars (the
    interval of the report's tie rule), y axes from :func:`honest_limits`.

    Parameters
    ----------
    perf : DataFrame
        Output of :func:`stablefs.report.tables.performance_summary`.
    methods, styles
        As for :func:`plot_stability`.
    baseline : dict, optional
        ``{"accuracy": ..., "balanced_accuracy": ...}`` of the majority-class rule
        (:func:`stablefs.report.tables.baseline_means`): a dashed grey line on the
        accuracy and balanced-accuracy panels, inside the y range.
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
                _k_axis(ax, ks)
                _method_lines(ax, df, present, styles, ks, "mean", _ci_band)
                base = _baseline_value(baseline, kind)
                extra = baseline_in_view(list(df["low"]) + list(df["high"]) + list(df["mean"]),
                                         base)
                ax.set_ylim(*honest_limits(list(df[["mean", "low"]].min(axis=1)) + extra,
                                           list(df[["mean", "high"]].max(axis=1)) + extra,
                                           bounded=bounded))
                _baseline_line(ax, base, kind)
                metric = df["metric"].iloc[0]
                ax.set_title(plot_label(metric_label(metric), 44))
                ax.set_ylabel(f"{metric_label(parse_metric(metric)[0])} (mean, 95% CI)")
        _legend(fig, present, styles, width=w * len(clfs))
    return fig


def plot_tradeoff(stability: pd.DataFrame, perf: pd.DataFrame, methods: Sequence[str],
                  styles: dict, *, measure: str | None = None,
                  recommended: tuple[str, float, str] | None = None,
                  baseline: dict | None = None) -> Figure | None:
    """Stability–accuracy trade-off with its Pareto front, one panel per classifier.

    x = stability (``measure``), y = mean accuracy; every (method, k) is a point in its
    method's colour and marker (larger for larger k, joined in order of k). The points of the
    Pareto front (:func:`stablefs.report.ties.pareto_front`: no other point is at least as
    stable and as accurate) are outlined, joined by a grey step line and labelled
    "method, k" in a column to the right of the panel, spread so that labels never collide
    (readable with 10 methods); ``recommended`` is ringed and its label marked.

    Parameters
    ----------
    stability, perf : DataFrame
        Normalised stability and :func:`~stablefs.report.tables.performance_summary`.
    methods, styles
        As for :func:`plot_stability`.
    measure : str, optional
        Stability measure on x (default: Kuncheva, else Nogueira, else the first).
    recommended : (str, float, str), optional
        The recommended (method, k) and the metric it was chosen on
        (:func:`stablefs.report.summary.recommendation`); marked in that metric's panel only.
    baseline : dict, optional
        The majority-class rule's means: a dashed grey line at its accuracy.
    """
    measure = measure or primary_measure(stability)
    metrics = primary_metrics(perf)
    if measure is None or not metrics:
        return None
    stab = stability[stability["measure"] == measure][["method", "k", "estimate"]]
    panels = []
    for metric in metrics:
        d = perf[perf["metric"] == metric][["method", "k", "mean", "low", "high"]].merge(
            stab, on=["method", "k"])
        d = d[np.isfinite(d["mean"]) & np.isfinite(d["estimate"])].reset_index(drop=True)
        if not d.empty:
            panels.append((metric, d))
    if not panels:
        return None
    present = [m for m in methods if any(m in set(d["method"]) for _, d in panels)]
    w, h = 7.6, 4.2  # one panel per row: labels stay legible at page width
    with _style():
        fig, axes = _grid(len(panels), 1, w, h, _legend_height(len(present), w, present))
        for ax, (metric, d) in zip(axes, panels, strict=True):
            ks = sorted(d["k"].unique())
            size = {k: 18 + 60 * i / max(1, len(ks) - 1) for i, k in enumerate(ks)}
            for m in present:
                dm = d[d["method"] == m].sort_values("k")
                if dm.empty:
                    continue
                st = styles[m]
                ax.plot(dm["estimate"], dm["mean"], color=st["color"], linewidth=0.8,
                        alpha=0.6, linestyle=st.get("linestyle", "-"))
                ax.scatter(dm["estimate"], dm["mean"], s=[size[k] for k in dm["k"]],
                           color=st["color"], marker=st["marker"], alpha=0.75, linewidths=0,
                           zorder=3)
            front = pareto_front(d["estimate"], d["mean"])
            fd = d.loc[front]
            ax.step(fd["estimate"], fd["mean"], where="post", color="#666666",
                    linewidth=0.9, linestyle="--", zorder=2)
            for r in fd.itertuples(index=False):
                st = styles[r.method]
                ax.scatter([r.estimate], [r.mean], s=size[r.k] + 25, facecolors="none",
                           edgecolors="black", linewidths=1.0, marker=st["marker"], zorder=4)
            base = _baseline_value(baseline, parse_metric(metric)[0])
            extra = baseline_in_view(d["mean"], base)
            ax.set_ylim(*honest_limits(list(d["mean"]) + extra, list(d["mean"]) + extra,
                                       bounded=True))
            _baseline_line(ax, base)
            ax.margins(x=0.08)
            ax.set_xlabel(f"stability ({plot_label(measure_label(measure), 30)})")
            kind, clf = parse_metric(metric)
            ax.set_ylabel(f"mean {metric_label(kind).lower()}")
            ax.set_title(plot_label(classifier_label(clf) or metric_label(metric), 40))
            _front_labels(ax, fd, styles, recommended[:2] if recommended is not None
                          and recommended[2] == metric else None)
        fig.suptitle("Pareto front outlined and labelled (dashed); marker size grows with k; "
                     "up and to the right is better", fontsize=9, color="#555555")
        _legend(fig, present, styles, width=w)
    return fig


def _front_labels(ax, fd: pd.DataFrame, styles: dict,
                  recommended: tuple[str, float] | None) -> None:
    """Label the front's points in a column right of the axes, spread to a minimal gap."""
    if fd.empty:
        return
    y0, y1 = ax.get_ylim()
    height_pt = ax.get_position().height * ax.figure.get_figheight() * 72
    gap = 10.5 / max(height_pt, 1.0)  # one 7.5 pt line, in axes fractions
    order = fd.sort_values(["mean", "estimate"]).reset_index(drop=True)
    target = ((order["mean"] - y0) / (y1 - y0)).to_numpy(float)
    pos = target.copy()
    for i in range(1, len(pos)):
        pos[i] = max(pos[i], pos[i - 1] + gap)
    if len(pos) and pos[-1] > 1.0:  # push down from the top, then keep the gaps
        pos[-1] = 1.0
        for i in range(len(pos) - 2, -1, -1):
            pos[i] = min(pos[i], pos[i + 1] - gap)
    for r, ty in zip(order.itertuples(index=False), pos, strict=True):
        rec = recommended is not None and r.method == recommended[0] and \
            float(r.k) == float(recommended[1])
        text = f"{plot_label(r.method, 24)}, k={format_k(r.k)}" + ("  ◀ recommended" if rec
                                                                 else "")
        ax.annotate(text, xy=(r.estimate, r.mean), xycoords="data", xytext=(1.03, ty),
                    textcoords="axes fraction", fontsize=7.5, va="center",
                    color=styles[r.method]["color"], fontweight="bold" if rec else "normal",
                    annotation_clip=False,
                    arrowprops={"arrowstyle": "-", "color": "#999999", "linewidth": 0.5,
                                "shrinkA": 0, "shrinkB": 3})
        if rec:
            ax.scatter([r.estimate], [r.mean], s=260, facecolors="none", edgecolors="#d62728",
                       linewidths=1.6, zorder=5)


def plot_frequency_rank(frequencies: pd.DataFrame, methods: Sequence[str], styles: dict,
                        *, max_rank: int | None = None) -> Figure | None:
    """Selection frequency against frequency rank, one line per k, one panel per method.

    For each method and k the features' selection frequencies are sorted decreasingly and
    drawn against their rank 1, 2, ...: a stable method keeps a plateau at 1 up to about k
    and then drops steeply; an unstable one decays slowly. The dashed line is the consensus
    threshold (0.5; features above it form the consensus signature).

    Parameters
    ----------
    frequencies : DataFrame
        ``method, k, feature, frequency``.
    methods, styles
        As for :func:`plot_stability` (``styles`` is unused: k is the colour here).
    max_rank : int, optional
        Right end of the x axis; default twice the largest k.
    """
    if frequencies is None or frequencies.empty:
        return None
    present = [m for m in methods if m in set(frequencies["method"])]
    ks = sorted(frequencies["k"].unique())
    cmap = mpl.colormaps["viridis"]
    colors = {k: cmap(0.85 * i / max(1, len(ks) - 1)) for i, k in enumerate(ks)}
    right = int(max_rank or max(2 * max(ks), 10))
    w, h = 4.2, 3.0
    with _style():
        fig, axes = _grid(len(present), 3, w, h, 0.55)
        for ax, m in zip(axes, present, strict=True):
            for k in ks:
                q = np.sort(frequencies.loc[(frequencies["method"] == m)
                                            & (frequencies["k"] == k), "frequency"]
                            .to_numpy(float))[::-1][:right]
                if q.size == 0:
                    continue
                ax.plot(np.arange(1, q.size + 1), q, color=colors[k], linewidth=1.4,
                        drawstyle="steps-mid")
            ax.axhline(CONSENSUS_THRESHOLD, color="#444444", linestyle="--", linewidth=0.9)
            ax.set_xlim(0.5, right + 0.5)
            ax.set_ylim(0, 1.03)
            ax.set_title(plot_label(m, 36))
            ax.set_xlabel("features, by decreasing frequency")
            ax.set_ylabel("selection frequency")
        handles = [Line2D([], [], color=colors[k], linewidth=2) for k in ks]
        fig.legend(handles, [f"k = {format_k(k)}" for k in ks], loc="outside lower center",
                   ncols=min(len(ks), 8))
    return fig


def plot_selection_heatmap(rankings: np.ndarray, feature_names: Sequence[str], k: float, *,
                           method: str, top: int = 60) -> Figure | None:
    """Features × resamples map of one method's selections at one k.

    A cell is coloured by the feature's rank in that resample when it is among the top k,
    and left blank otherwise. Rows are the ``top`` most often selected features (most
    frequent first; ties by mean rank); a black line separates the consensus features
    (frequency > 0.5) from the rest.

    Parameters
    ----------
    rankings : array of shape (n_resamples, n_features)
        Rank of every feature in every resample (1 = best), as the runner records.
    feature_names : sequence of str
        Names of the n_features columns.
    k : float
        Subset size.
    method : str
        Method name, for the title.
    top : int, default 60
        Number of rows.
    """
    ranks = np.asarray(rankings, float)
    if ranks.ndim != 2 or ranks.size == 0:
        return None
    chosen = ranks <= k
    freq = chosen.mean(axis=0)
    mean_rank = ranks.mean(axis=0)
    ever = np.flatnonzero(freq > 0)
    if ever.size == 0:
        return None
    order = ever[np.lexsort((mean_rank[ever], -freq[ever]))][:top]
    data = np.where(chosen[:, order], ranks[:, order], np.nan).T
    n_cons = int(in_consensus(freq[order]).sum())
    n_res = ranks.shape[0]
    with _style():
        fig = _new_figure(min(11.0, 3.6 + 0.09 * n_res), 1.5 + 0.13 * len(order))
        ax = fig.subplots()
        cmap = mpl.colormaps["viridis_r"].with_extremes(bad="#f2f2f2")
        im = ax.imshow(data, aspect="auto", interpolation="nearest", cmap=cmap, vmin=1,
                       vmax=max(float(k), 1.0))
        ax.set_yticks(np.arange(len(order)), [plot_label(feature_names[j], 24) for j in order],
                      fontsize=6.5)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("resample")
        ax.grid(False)
        if 0 < n_cons < len(order):
            ax.axhline(n_cons - 0.5, color="black", linewidth=1.2)
        # two lines, each narrower than the narrowest map (few resamples), so that the
        # method's name is never cut off at the figure's edge
        ax.set_title(f"{plot_label(method, 30)}, k = {format_k(k)}\nthe {len(order)} most "
                     f"often selected of {ever.size} features", fontsize=9)
        cb = fig.colorbar(im, ax=ax, shrink=0.6, pad=0.02)
        cb.locator = MaxNLocator(integer=True)  # ranks are whole numbers
        cb.update_ticks()
        cb.set_label("rank when in the top k", fontsize=8)
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
