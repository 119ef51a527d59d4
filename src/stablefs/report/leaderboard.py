"""The leaderboard page of ``stablefs benchmark``: ``leaderboard.html`` and its figures.

One self-contained HTML page (inline CSS and JavaScript, figures as ``data:`` URIs, no
network): the overall ranking of the methods (mean ranks over the data sets with the
Friedman test and the post-hoc tests of :mod:`stablefs.evaluation.ranks`), the
critical-difference diagrams of Demšar (2006, Fig. 1 and 2), the stability–accuracy plane of
every set, a sortable table of every cell with a link to the set's full comparison report,
and the preparation of each set. Tables sort by a click on a column head (numbers as numbers,
missing values last) and filter by k; nothing else needs JavaScript.

The figures are also written as ``figures/*.png`` and ``*.svg``.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from stablefs._runtime.io import atomic_write_bytes, atomic_write_text
from stablefs.report import figures as _fig

__all__ = ["MEASURE_LABELS", "plot_cd_diagram", "plot_planes", "write_leaderboard"]

#: how the page names the measures of ``cells.csv``
MEASURE_LABELS = {
    "nogueira": "stability (Nogueira)",
    "balanced_accuracy_svm": "balanced accuracy, linear SVM",
    "balanced_accuracy_1nn": "balanced accuracy, 1-NN",
    "balanced_accuracy_3nn": "balanced accuracy, 3-NN",
    "balanced_accuracy_lda": "balanced accuracy, LDA",
}


#: short forms for table heads
SHORT_LABELS = {"nogueira": "stability", "balanced_accuracy_svm": "bal. acc. SVM",
                "balanced_accuracy_1nn": "bal. acc. 1-NN", "balanced_accuracy_3nn":
                "bal. acc. 3-NN", "balanced_accuracy_lda": "bal. acc. LDA"}


def short_label(measure: str) -> str:
    if measure in SHORT_LABELS:
        return SHORT_LABELS[measure]
    if measure.startswith("balanced_accuracy_"):
        return "bal. acc. " + measure[len("balanced_accuracy_"):]
    return measure


def measure_label(measure: str) -> str:
    if measure in MEASURE_LABELS:
        return MEASURE_LABELS[measure]
    if measure.startswith("balanced_accuracy_"):
        return "balanced accuracy, " + measure[len("balanced_accuracy_"):]
    return measure


def _esc(text) -> str:
    from stablefs.report.render import html_escape

    return html_escape(text)


def _num(v, digits: int = 3) -> str:
    try:
        v = float(v)
    except (TypeError, ValueError):
        return ""
    return "" if not math.isfinite(v) else f"{v:.{digits}f}"


def _p(v) -> str:
    try:
        v = float(v)
    except (TypeError, ValueError):
        return ""
    if not math.isfinite(v):
        return ""
    from stablefs.report.tables import format_p_value

    return format_p_value(v)


# --------------------------------------------------------------------------- figures


def plot_cd_diagram(mean_ranks: Mapping[str, float], pvalues: pd.DataFrame, cd: float, *,
                    alpha: float = 0.05, title: str = ""):
    """Critical-difference diagram (Demšar 2006, Fig. 1): methods on the axis of mean ranks
    (1 = best, on the left), joined by a bar where the Nemenyi test finds no difference at
    ``alpha``; the critical difference CD is drawn above the axis. The layout is
    :func:`scikit_posthocs.critical_difference_diagram`'s."""
    import scikit_posthocs as sp

    ranks = pd.Series({_fig.plot_label(m, 32): float(r) for m, r in mean_ranks.items()})
    names = dict(zip(mean_ranks, ranks.index))
    sig = pvalues.rename(index=names, columns=names)
    n = len(ranks)
    with _fig._style():
        fig = _fig._new_figure(7.5, 1.1 + 0.26 * n)
        ax = fig.add_subplot()
        sp.critical_difference_diagram(ranks, sig, alpha=alpha, ax=ax,
                                       label_fmt_left="{label} ({rank:.2f})",
                                       label_fmt_right="({rank:.2f}) {label}")
        ax.grid(False)
        lo, hi = 1.0, float(n)
        ax.set_xlim(lo - 0.05, hi + 0.05)
        bottom, _ = ax.get_ylim()
        ax.set_ylim(bottom, 1.6)
        if math.isfinite(cd) and cd > 0:  # the critical difference, above the axis
            ax.plot([lo, lo + cd], [1.0, 1.0], color="black", linewidth=1.6, clip_on=False)
            for x in (lo, lo + cd):
                ax.plot([x, x], [0.85, 1.15], color="black", linewidth=1.2, clip_on=False)
            ax.text(lo + cd / 2, 1.2, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=9)
        if title:
            ax.set_title(title, loc="left", pad=18)
    return fig


def plot_planes(cells: pd.DataFrame, sets: Sequence[str], labels: Mapping[str, str], k: int,
                accuracy: str, methods: Sequence[str], chance: Mapping[str, float], *,
                stability: str = "nogueira"):
    """Stability–accuracy plane of every set at size ``k``: one panel per set, a point per
    method at (mean balanced accuracy, stability) with both intervals; the dotted line is the
    chance level of balanced accuracy (1 / number of classes). Top right is best."""
    styles = _fig.method_styles(list(methods))
    sub = cells[cells["k"] == k]
    sets = [s for s in sets if (sub["set"] == s).any()]
    if not sets:
        return None
    ncols = min(3, len(sets))
    extra = _fig._legend_height(len(methods), 4.2 * ncols, list(methods))
    with _fig._style():
        fig, axes = _fig._grid(len(sets), 3, 4.2, 3.4, extra)
        for ax, s in zip(axes, sets):
            d = sub[sub["set"] == s]
            st = d[d["measure"] == stability].set_index("method")
            ac = d[d["measure"] == accuracy].set_index("method")
            for m in methods:
                if m not in st.index or m not in ac.index:
                    continue
                x, y = ac.loc[m, "estimate"], st.loc[m, "estimate"]
                xerr = [[max(0, x - ac.loc[m, "low"])], [max(0, ac.loc[m, "high"] - x)]]
                yerr = [[max(0, y - st.loc[m, "low"])], [max(0, st.loc[m, "high"] - y)]]
                ax.errorbar([x], [y], xerr=np.nan_to_num(xerr), yerr=np.nan_to_num(yerr),
                            color=styles[m]["color"], marker=styles[m]["marker"],
                            markersize=6, linewidth=1.0, capsize=2)
            c = chance.get(s)
            if c is not None and math.isfinite(c):
                ax.axvline(c, color="#888888", linestyle=":", linewidth=1.2)
            xs = np.r_[ac["low"].to_numpy(float), ac["high"].to_numpy(float),
                       [c if c is not None else np.nan]]
            xs = xs[np.isfinite(xs)]
            if xs.size:
                ax.set_xlim(max(0.0, xs.min() - 0.03), min(1.02, xs.max() + 0.03))
            ax.set_title(_fig.plot_label(labels.get(s, s), 36), loc="left")
            ax.set_xlabel(measure_label(accuracy))
            ax.set_ylabel(measure_label(stability))
        _fig._legend(fig, list(methods), styles, width=4.2 * ncols)
    return fig


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


# --------------------------------------------------------------------------- page

_CSS_EXTRA = """
main { max-width: 1280px; }
table.sortable thead th { cursor: pointer; user-select: none; }
table.sortable thead th:focus { outline: 2px solid var(--accent); outline-offset: -2px; }
table.sortable thead th::after { content: " \\2195"; color: #9aa4ad; font-weight: 400; }
table.sortable thead th[aria-sort=ascending]::after { content: " \\25B2"; color: var(--fg); }
table.sortable thead th[aria-sort=descending]::after { content: " \\25BC"; color: var(--fg); }
td .ci { color: var(--muted); font-size: .82em; }
label.filter { font-size: .92rem; color: var(--muted); margin-right: 1rem; }
td.best { font-weight: 700; }
td.nowrap { white-space: nowrap; }
#table-overall th, #table-overall td { padding: .34rem .5rem; }
#table-overall thead th { white-space: normal; min-width: 4.2rem; vertical-align: bottom; }
p.lead { font-size: 1.05rem; }
"""

_JS = r"""
(function () {
  "use strict";
  function key(td) {
    var v = td.getAttribute("data-value");
    if (v === null) { return td.textContent.trim().toLowerCase(); }
    if (v === "") { return null; }
    var n = Number(v);
    return isNaN(n) ? v.toLowerCase() : n;
  }
  function sortBy(table, col, dir) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.forEach(function (r, i) { r._order = i; });
    rows.sort(function (a, b) {
      var x = key(a.cells[col]), y = key(b.cells[col]);
      if (x === null || y === null) {
        if (x === y) { return a._order - b._order; }
        return x === null ? 1 : -1;
      }
      if (typeof x !== typeof y) { x = String(x); y = String(y); }
      if (x < y) { return -dir; }
      if (x > y) { return dir; }
      return a._order - b._order;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    var heads = table.tHead.rows[0].cells;
    for (var i = 0; i < heads.length; i++) { heads[i].removeAttribute("aria-sort"); }
    heads[col].setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
  }
  function makeSortable(table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      th.tabIndex = 0;
      var go = function () {
        var now = th.getAttribute("aria-sort");
        var first = th.getAttribute("data-first") === "desc" ? -1 : 1;
        var dir = now === "ascending" ? -1 : now === "descending" ? 1 : first;
        sortBy(table, col, dir);
      };
      th.addEventListener("click", go);
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(); }
      });
    });
  }
  function applyFilter(select) {
    var table = document.getElementById(select.getAttribute("data-table"));
    var want = select.value;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
      r.hidden = want !== "all" && r.getAttribute("data-k") !== want;
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), makeSortable);
  Array.prototype.forEach.call(document.querySelectorAll("select.kfilter"), function (s) {
    s.addEventListener("change", function () { applyFilter(s); });
    applyFilter(s);
  });
  window.stablefsSort = sortBy;
})();
""".strip()


def _td(text, value=None, cls: str = "", raw: bool = False) -> str:
    attrs = ""
    if value is not None:
        try:
            fv = float(value)
            v = "" if not math.isfinite(fv) else repr(fv)
        except (TypeError, ValueError):
            v = str(value)
        attrs += f' data-value="{_esc(v)}"'
    if cls:
        attrs += f' class="{cls}"'
    return f"<td{attrs}>{text if raw else _esc(text)}</td>"


def _with_ci(est, low, high) -> str:
    if not math.isfinite(float(est)):
        return ""
    ci = ""
    if math.isfinite(float(low)) and math.isfinite(float(high)):
        ci = f' <span class="ci">[{_num(low)}, {_num(high)}]</span>'
    return f"{_num(est)}{ci}"


def _table(table_id: str, head: Sequence[tuple[str, str, str]], rows: Sequence[str],
           caption: str = "") -> str:
    """``head``: (label, alignment class, first sort direction)."""
    ths = "".join(f'<th scope="col" class="{a}" data-first="{d}">{_esc(h)}</th>'
                  for h, a, d in head)
    cap = f"<caption>{_esc(caption)}</caption>" if caption else ""
    return (f'<div class="table-wrap"><table id="{table_id}" class="sortable">{cap}'
            f"<thead><tr>{ths}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")


def _k_select(table_id: str, sizes: Sequence[int], selected: int) -> str:
    opts = "".join(f'<option value="{k}"{" selected" if k == selected else ""}>k = {k}</option>'
                   for k in sizes)
    return (f'<label class="filter">Show <select class="kfilter" data-table="{table_id}">'
            f'{opts}<option value="all">every k</option></select></label>')


def _overall_rows(ranks: pd.DataFrame, cells: pd.DataFrame, friedman: pd.DataFrame,
                  measures: Sequence[str], methods: Sequence[str]) -> list[str]:
    rows = []
    left_out = {(int(r.k), r.measure): set(str(r.sets_left_out).split(";"))
                if isinstance(r.sets_left_out, str) and r.sets_left_out else set()
                for r in friedman.itertuples(index=False)}
    overall = ranks[ranks["scope"] == "overall"]
    for k in sorted(cells["k"].unique()):
        # best first by the first measure (stability); methods without a rank last
        first = overall[(overall["k"] == k) & (overall["measure"] == measures[0])]
        order = dict(zip(first["method"], first["rank"]))
        lowest = {q: overall[(overall["k"] == k) & (overall["measure"] == q)]["rank"].min()
                  for q in measures}
        for m in sorted(methods, key=lambda m: order.get(m, np.inf)):
            tds = [_td(m, cls="l nowrap"), _td(k, k, cls="r")]
            present = False
            for q in measures:
                r = overall[(overall["k"] == k) & (overall["measure"] == q)
                            & (overall["method"] == m)]
                c = cells[(cells["k"] == k) & (cells["measure"] == q) & (cells["method"] == m)
                          & ~cells["set"].isin(left_out.get((int(k), q), set()))]
                rank = float(r["rank"].iloc[0]) if len(r) else float("nan")
                mean = float(c["estimate"].mean()) if len(c) else float("nan")
                present |= bool(len(r))
                best = len(r) and np.isclose(rank, lowest[q], rtol=0, atol=1e-9)  # ties too
                tds.append(_td(_num(rank, 2), rank, cls="r best" if best else "r"))
                tds.append(_td(_num(mean), mean, cls="r"))
                tds.append(_td(_p(r["p_holm"].iloc[0]) if len(r) else "",
                               r["p_holm"].iloc[0] if len(r) else None, cls="r"))
            if present:
                rows.append(f'<tr data-k="{k}">' + "".join(tds) + "</tr>")
    return rows


def _cell_rows(cells: pd.DataFrame, measures: Sequence[str], timing: pd.DataFrame,
               labels: Mapping[str, str], links: Mapping[str, str],
               ranks: pd.DataFrame) -> list[str]:
    rows = []
    idx = cells.set_index(["set", "method", "k", "measure"]).sort_index()
    fit = ({(r.set, r.method): r.fit_time for r in timing.itertuples(index=False)}
           if len(timing) else {})
    per_set = ranks[(ranks["scope"] != "overall") & (ranks["measure"] == measures[0])]
    rank_of = {(r.scope, r.method, int(r.k)): r.rank for r in per_set.itertuples(index=False)}
    keys = cells[["set", "method", "k"]].drop_duplicates()
    for s, m, k in keys.itertuples(index=False):
        tds = [_td(labels.get(s, s), s, cls="l nowrap"), _td(m, cls="l nowrap"),
               _td(k, k, cls="r")]
        for q in measures:
            key = (s, m, k, q)
            if key in idx.index:
                r = idx.loc[key]
                r = r.iloc[0] if isinstance(r, pd.DataFrame) else r
                tds.append(_td(_with_ci(r["estimate"], r["low"], r["high"]), r["estimate"],
                               cls="r", raw=True))
            else:
                tds.append(_td("", "", cls="r"))
        rk = rank_of.get((s, m, int(k)), float("nan"))
        tds.append(_td(_num(rk, 1), rk, cls="r"))
        ft = fit.get((s, m), float("nan"))
        tds.append(_td(_num(ft, 3), ft, cls="r"))
        link = links.get(s)
        tds.append(_td(f'<a href="{_esc(link)}">report</a>' if link else "", None, raw=True))
        rows.append(f'<tr data-k="{k}">' + "".join(tds) + "</tr>")
    return rows


def _friedman_rows(friedman: pd.DataFrame) -> list[str]:
    rows = []
    for r in friedman.itertuples(index=False):
        test = {"friedman": "Friedman", "wilcoxon": "Wilcoxon signed-rank",
                "none": "none (fewer than two sets)"}.get(r.test, r.test)
        rows.append(f'<tr data-k="{r.k}">' + "".join([
            _td(measure_label(r.measure), cls="l"), _td(r.k, r.k, cls="r"),
            _td(r.n_sets, r.n_sets, cls="r"), _td(test, cls="l"),
            _td(_num(r.statistic, 2), r.statistic, cls="r"), _td(_p(r.p_value), r.p_value,
                                                                cls="r"),
            _td(_p(r.p_iman_davenport), r.p_iman_davenport, cls="r"),
            _td(_num(r.cd_nemenyi, 2), r.cd_nemenyi, cls="r"), _td(_best_text(r.best),
                                                                    cls="l"),
        ]) + "</tr>")
    return rows


def _best_text(best) -> str:
    """``friedman.csv``'s ``best``: one method, or the tied ones (``a;b;c``) named as a tie."""
    names = [b for b in str(best).split(";") if b] if isinstance(best, str) else []
    if len(names) > 1:
        return ", ".join(names) + f" ({len(names)} tied)"
    return names[0] if names else ""


def _set_rows(sets_table: pd.DataFrame) -> list[str]:
    rows = []
    for r in sets_table.itertuples(index=False):
        status = "included" if r.status == "included" else f"left out: {r.reason}"
        rows.append("<tr>" + "".join([
            _td(r.label, r.set, cls="l nowrap"), _td(r.n_samples, r.n_samples, cls="r"),
            _td(r.n_features, r.n_features, cls="r"), _td(r.classes, cls="l"),
            _td(_num(r.chance_balanced_accuracy), r.chance_balanced_accuracy, cls="r"),
            _td(r.preparation, cls="l"), _td(status, cls="l"),
        ]) + "</tr>")
    return rows


def headline_k(sizes: Sequence[int]) -> int:
    """The size the leaderboard leads with: the upper median of ``sizes`` (50 of 10, 20, 50,
    100)."""
    s = sorted(int(k) for k in sizes)
    return s[len(s) // 2]


def write_leaderboard(out_dir, *, cells: pd.DataFrame, ranks: pd.DataFrame,
                      friedman: pd.DataFrame, sets_table: pd.DataFrame, timing: pd.DataFrame,
                      run_info: Mapping, methods: Sequence[str], measures: Sequence[str],
                      pairwise_pvalues: Callable[[np.ndarray, Sequence[str]], pd.DataFrame],
                      links: Mapping[str, str] | None = None, alpha: float = 0.05,
                      svg: bool = True) -> dict[str, object]:
    """Write ``figures/cd-*.png``, ``figures/plane-k*.png`` (and ``.svg``) and
    ``leaderboard.html`` into ``out_dir``.

    Parameters
    ----------
    cells, ranks, friedman, sets_table, timing : DataFrame
        ``cells.csv``, ``ranks.csv``, ``friedman.csv``, ``sets.csv``, ``timing.csv``.
    pairwise_pvalues : callable
        ``(scores (sets x methods), methods) -> methods x methods p-values`` of the post-hoc
        test the critical-difference diagrams join methods by
        (:func:`stablefs.evaluation.ranks.nemenyi_pvalues`, passed in by the caller so that the
        report computes no statistics of its own).
    run_info : mapping
        ``run.json`` so far (protocol, command, seed, wall time, ...).
    methods, measures : sequences of str
        In the order to show them; ``measures[0]`` is the stability measure, the others
        accuracies.
    links : mapping, optional
        Set name -> relative link of its comparison report.

    Returns
    -------
    dict
        ``"leaderboard.html"`` -> path, ``"figures"`` -> list of paths.
    """
    out_dir = Path(out_dir)
    fig_dir = out_dir / "figures"  # created by the first atomic write (the folder's journal)
    links = dict(links or {})
    written: list[Path] = []
    sizes = sorted(int(k) for k in cells["k"].unique()) if len(cells) else []
    k0 = headline_k(sizes) if sizes else None
    labels = dict(zip(sets_table["set"], sets_table["label"]))
    included = sets_table[sets_table["status"] == "included"]
    chance = dict(zip(sets_table["set"], sets_table["chance_balanced_accuracy"]))

    def save(name: str, fig) -> str:
        png, svg_bytes = _fig.figure_to_png_svg(fig)
        atomic_write_bytes(fig_dir / f"{name}.png", png)
        written.append(fig_dir / f"{name}.png")
        if svg:
            atomic_write_bytes(fig_dir / f"{name}.svg", svg_bytes)
            written.append(fig_dir / f"{name}.svg")
        return _data_uri(png)

    # critical-difference diagrams: every measure at every k
    cd_html: dict[int, list[str]] = {}
    overall = ranks[ranks["scope"] == "overall"]
    for r in friedman.itertuples(index=False):
        sub = overall[(overall["k"] == r.k) & (overall["measure"] == r.measure)]
        if r.n_sets < 2 or len(sub) < 2:
            continue
        scores = (cells[(cells["k"] == r.k) & (cells["measure"] == r.measure)]
                  .pivot_table(index="set", columns="method", values="estimate",
                               aggfunc="first").dropna(axis=0, how="any"))
        order = list(sub["method"])
        scores = scores[order]
        pv = pairwise_pvalues(scores.to_numpy(float), order)
        fig = plot_cd_diagram(dict(zip(sub["method"], sub["rank"])), pv, r.cd_nemenyi,
                              alpha=alpha,
                              title=f"{measure_label(r.measure)}, k = {r.k} "
                                    f"({r.n_sets} sets)")
        uri = save(f"cd-{r.measure}-k{r.k}", fig)
        test = ("Friedman p = " + _p(r.p_value)) if r.test == "friedman" else (
            f"{r.test} p = {_p(r.p_value)}")
        cd_html.setdefault(int(r.k), []).append(
            f'<figure><img src="{uri}" alt="critical-difference diagram of '
            f'{_esc(measure_label(r.measure))} at k = {r.k}"><figcaption>'
            f"{_esc(measure_label(r.measure))} at k = {r.k}: mean ranks over {r.n_sets} sets "
            f"(1 = best); methods joined by a bar are not different by the Nemenyi test at "
            f"α = {alpha} (CD = {_num(r.cd_nemenyi, 2)}); {_esc(test)}.</figcaption></figure>")

    # stability-accuracy planes
    accuracy = [q for q in measures[1:]]
    plane_html: dict[int, str] = {}
    for k in sizes:
        fig = plot_planes(cells, list(included["set"]), labels, k, accuracy[0], methods,
                          chance, stability=measures[0]) if accuracy else None
        if fig is None:
            continue
        uri = save(f"plane-k{k}", fig)
        plane_html[k] = (
            f'<figure><img src="{uri}" alt="stability against accuracy per set at k = {k}">'
            f"<figcaption>Each set at k = {k}: {_esc(measure_label(measures[0]))} against "
            f"{_esc(measure_label(accuracy[0]))}, with their intervals; the dotted line is "
            "chance (1 / number of classes). Top right is best.</figcaption></figure>")

    parts = [_header(run_info, sets_table, methods, sizes, k0)]
    # overall ranking
    head = [("Method", "l", "asc"), ("k", "r", "asc")]
    for q in measures:
        head += [(f"rank: {short_label(q)}", "r", "asc"),
                 (f"mean {short_label(q)}", "r", "desc"), ("p Holm", "r", "asc")]
    parts.append('<h2 id="ranking">Overall ranking</h2>')
    parts.append(
        "<p>For each measure: the mean rank of each method over the data sets where every "
        "method ran (1 = best in a set; ties share the mean rank), the mean of its estimates "
        "over those sets, and the Holm-adjusted p-value of its comparison with the best method "
        "(Demšar 2006). Stability is Nogueira's; bal. acc. is the balanced accuracy of a "
        "classifier trained on the selected features. Bold: the best mean rank; rows start in "
        "the order of the stability ranks. Click a column head to sort.</p>")
    if k0 is not None:
        parts.append(_k_select("table-overall", sizes, k0))
    parts.append(_table("table-overall", head, _overall_rows(ranks, cells, friedman, measures,
                                                              methods)))
    parts.append("<h3>Tests over the data sets</h3>")
    parts.append(_table("table-tests", [("Measure", "l", "asc"), ("k", "r", "asc"),
                                  ("sets", "r", "desc"), ("test", "l", "asc"),
                                  ("statistic", "r", "desc"), ("p", "r", "asc"),
                                  ("p Iman–Davenport", "r", "asc"), ("CD Nemenyi", "r", "asc"),
                                  ("best", "l", "asc")], _friedman_rows(friedman)))
    # CD diagrams
    parts.append('<h2 id="cd">Critical-difference diagrams</h2>')
    if not cd_html:
        parts.append("<p>None: the diagrams need at least two data sets and two methods.</p>")
    for k in sizes:
        if k not in cd_html:
            continue
        block = "".join(cd_html[k])
        if k == k0:
            parts.append(block)
        else:
            parts.append(f"<details><summary>k = {k}</summary>{block}</details>")
    # planes
    parts.append('<h2 id="plane">Stability and accuracy per data set</h2>')
    for k in sizes:
        if k not in plane_html:
            continue
        parts.append(plane_html[k] if k == k0 else
                     f"<details><summary>k = {k}</summary>{plane_html[k]}</details>")
    # every cell
    parts.append('<h2 id="cells">Every cell</h2>')
    parts.append(
        "<p>One row per data set, method and size k: the estimate with its 95% interval "
        "(stability: the jackknife t-interval over the resamples; balanced accuracy: mean "
        "over the resamples with the corrected resampled t interval of Nadeau and Bengio "
        "2003), the method's rank in its set by stability, its mean fit time, and a link to "
        "the set's full comparison report.</p>")
    head = [("Data set", "l", "asc"), ("Method", "l", "asc"), ("k", "r", "asc")]
    head += [(short_label(q), "r", "desc") for q in measures]
    head += [("rank in set", "r", "asc"), ("fit time (s)", "r", "asc"), ("report", "l", "asc")]
    if k0 is not None:
        parts.append(_k_select("table-cells", sizes, k0))
    parts.append(_table("table-cells", head, _cell_rows(cells, measures, timing, labels, links,
                                                  ranks)))
    # sets
    parts.append('<h2 id="sets">Data sets and their preparation</h2>')
    parts.append(_table("table-sets", [("Data set", "l", "asc"), ("samples", "r", "desc"),
                                 ("features", "r", "desc"), ("classes", "l", "asc"),
                                 ("chance", "r", "asc"), ("preparation", "l", "asc"),
                                 ("status", "l", "asc")], _set_rows(sets_table)))
    parts.append(_methods_section(methods))
    parts.append(_notes(alpha))
    page = _page("stablefs leaderboard", "\n".join(parts), run_info)
    path = out_dir / "leaderboard.html"
    atomic_write_text(path, page)
    return {"leaderboard.html": path, "figures": written}


def _header(run_info: Mapping, sets_table: pd.DataFrame, methods, sizes, k0) -> str:
    n_in = int((sets_table["status"] == "included").sum())
    n_out = len(sets_table) - n_in
    items = [
        ("Data sets", f"{n_in} included" + (f", {n_out} left out (see below)" if n_out else "")),
        ("Methods", ", ".join(methods)),
        ("Protocol", str(run_info.get("protocol", ""))),
        ("Sizes k", ", ".join(map(str, sizes)) + (f" (the page leads with k = {k0})"
                                                  if k0 is not None else "")),
        ("Classifiers", ", ".join(run_info.get("classifiers", []))),
        ("Seed", str(run_info.get("seed", ""))),
    ]
    if run_info.get("wall_time_s") is not None:
        items.append(("Wall time", f"{float(run_info['wall_time_s']):.1f} s"))
    if run_info.get("finished"):
        items.append(("Finished", str(run_info["finished"])))
    lis = "".join(f"<li><strong>{_esc(a)}:</strong> {_esc(b)}</li>" for a, b in items)
    cmd = run_info.get("command")
    code = f"<pre><code>{_esc(cmd)}</code></pre>" if cmd else ""
    toc = ('<nav class="toc"><a href="#ranking">Overall ranking</a><a href="#cd">'
           'Critical-difference diagrams</a><a href="#plane">Stability and accuracy</a>'
           '<a href="#cells">Every cell</a><a href="#sets">Data sets</a>'
           '<a href="#methods">Methods</a><a href="#notes">Notes</a></nav>')
    return (f'{toc}<p class="lead">Stability and accuracy of feature-selection methods on '
            f'every data set, under one protocol.</p><ul class="meta">{lis}</ul>{code}')


def _methods_section(methods: Sequence[str]) -> str:
    from stablefs.methods import PREFIXES, SELECTORS, parse_method

    items = []
    for m in methods:
        try:
            prefixes, name, params = parse_method(m)
        except Exception:  # an object's name: nothing to describe
            items.append(f"<li><code>{_esc(m)}</code></li>")
            continue
        parts = [PREFIXES[p].description for p in prefixes]
        parts.append(SELECTORS[name].description if name in SELECTORS else name)
        items.append(f"<li><code>{_esc(m)}</code>: {_esc(' — '.join(parts))}</li>")
    return f'<h2 id="methods">Methods</h2><ul>{"".join(items)}</ul>'


def _notes(alpha: float) -> str:
    notes = [
        "Ranks: within each data set the methods are ranked by the estimate (1 = best, ties "
        "share the mean rank); a set where some method has no value is left out of that "
        "size's overall ranking (the tests table lists them).",
        "Friedman test with Iman and Davenport's F (Demšar 2006, sec. 3.2.2); with two "
        "methods the Wilcoxon signed-rank test over the sets instead. The chi-square "
        "approximation is rough below about ten sets.",
        f"Nemenyi test: two methods differ at α = {alpha} when their mean ranks differ by "
        "more than the critical difference CD = q_α sqrt(k(k+1)/(6N)) (Demšar 2006).",
        "Holm: each method against the best one, z = (R_i − R_best)/sqrt(k(k+1)/(6N)), "
        "Holm-adjusted (Demšar 2006, sec. 3.2.2).",
        "ranks.csv also gives, for the best method against each other, the posterior "
        "probabilities of the Bayesian signed-rank test (Benavoli et al. 2017) that the best "
        "is better, that the two are practically equivalent (within 0.01), or that the other "
        "is better.",
    ]
    return ('<h2 id="notes">Notes</h2><ul>' + "".join(f"<li>{_esc(n)}</li>" for n in notes)
            + "</ul>")


def _page(title: str, body: str, run_info: Mapping) -> str:
    from stablefs._version import __version__
    from stablefs.report.render import _CSS

    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_esc(title)}</title>\n<style>\n{_CSS}\n{_CSS_EXTRA}\n</style>\n</head>\n"
        f"<body>\n<main>\n<h1>{_esc(title)}</h1>\n{body}\n"
        f"<footer>stablefs {_esc(__version__)} benchmark</footer>\n</main>\n"
        f"<script>\n{_JS}\n</script>\n</body>\n</html>\n"
    )
