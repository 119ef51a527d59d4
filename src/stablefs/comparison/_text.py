"""A comparison as text (what ``stablefs compare`` prints) and as HTML (Jupyter)."""

from __future__ import annotations

import html
import textwrap

import pandas as pd


def tables_text(results: pd.DataFrame, stability: pd.DataFrame,
                baseline: pd.DataFrame | None) -> str:
    """The stability and mean accuracy tables (rows: method, columns: k), the majority-class
    baseline and the mean fit times."""
    from stablefs.report.tables import baseline_means

    lines = []
    stab = stability
    for measure in stab["measure"].unique():
        t = stab[stab["measure"] == measure].pivot(index="method", columns="k", values="estimate")
        t = t.reindex(stab["method"].unique())
        lines.append(f"\n{measure} stability (rows: method, columns: k)\n"
                     + t.to_string(float_format=lambda v: f"{v:.3f}"))
    res = results
    for metric in [m for m in res["metric"].unique() if m.startswith("accuracy_")]:
        t = (res[res["metric"] == metric].groupby(["method", "k"])["value"].mean()
             .unstack("k").reindex(res["method"].unique()))
        lines.append(f"\nmean {metric.replace('_', ' ')} on held-out samples\n"
                     + t.to_string(float_format=lambda v: f"{v:.3f}"))
    base = baseline_means(baseline)
    if base:
        lines.append(f"\nmajority-class baseline (the training part's majority class "
                     f"predicted): accuracy {base['accuracy']:.3f}, balanced accuracy "
                     f"{base['balanced_accuracy']:.3f}")
    ft = res[res["metric"] == "fit_time"].groupby("method")["value"].mean()
    ft = ft.reindex(res["method"].unique())
    lines.append("\nmean fit time per resample (s)\n"
                 + pd.DataFrame({"seconds": ft}).to_string(float_format=lambda v: f"{v:.3f}"))
    return "\n".join(lines)


def verdict_text(comparison) -> str:
    """The recommendation (or "no evidence of signal") and its checks, wrapped at 100."""
    return "\n" + "\n".join(textwrap.fill(t, 100, subsequent_indent="  ")
                            for t in comparison._verdict_lines())


def summary_text(comparison) -> str:
    """:func:`tables_text` then :func:`verdict_text`."""
    return (tables_text(comparison.results, comparison.stability, comparison.baseline)
            + "\n" + verdict_text(comparison))


def _pivot_html(df: pd.DataFrame, value: str, low: str, high: str, title: str) -> str:
    rows = []
    ks = sorted(df["k"].unique())
    head = "".join(f"<th>k = {int(k) if float(k).is_integer() else k}</th>" for k in ks)
    for method in pd.unique(df["method"]):
        cells = []
        for k in ks:
            r = df[(df["method"] == method) & (df["k"] == k)]
            if r.empty:
                cells.append("<td></td>")
                continue
            r = r.iloc[0]
            interval = (f" <small>[{r[low]:.2f}, {r[high]:.2f}]</small>"
                        if pd.notna(r.get(low)) and pd.notna(r.get(high)) else "")
            cells.append(f"<td>{r[value]:.3f}{interval}</td>")
        rows.append(f"<tr><th>{html.escape(str(method))}</th>{''.join(cells)}</tr>")
    return (f"<p><b>{html.escape(title)}</b></p><table><tr><th>method</th>{head}</tr>"
            + "".join(rows) + "</table>")


def comparison_html(comparison) -> str:
    """The summary for Jupyter: the data, the recommendation and the evidence of signal, the
    primary stability table and the accuracy table of the first classifier (95 % intervals
    in brackets)."""
    info = comparison.run_info
    t = comparison._tables()
    parts = [f"<div><p><b>stablefs comparison</b> of {html.escape(str(info.get('data', '')))} "
             f"({info.get('n_samples', '?')} samples &times; {info.get('n_features', '?')} "
             f"features); {html.escape(str(info.get('protocol', '')))}</p>"]
    for line in comparison._verdict_lines():
        parts.append(f"<p>{html.escape(line)}</p>")
    stab = t["stab"]
    if not stab.empty:
        measure = stab["measure"].iloc[0]
        parts.append(_pivot_html(stab[stab["measure"] == measure], "estimate", "low", "high",
                                 f"{measure} stability"))
    acc = comparison.accuracy
    if not acc.empty:
        clf = acc["classifier"].iloc[0]
        parts.append(_pivot_html(acc[acc["classifier"] == clf], "mean", "low", "high",
                                 f"mean held-out accuracy, {clf}"))
    if comparison.folder is not None:
        parts.append(f"<p>Run folder: <code>{html.escape(str(comparison.folder))}</code></p>")
    parts.append("</div>")
    return "".join(parts)
