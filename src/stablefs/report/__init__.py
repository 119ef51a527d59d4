"""Tables, figures and the Markdown/HTML report of a comparison.

:func:`write_report` turns the tidy outputs of the experiment runner (``docs/DESIGN.md``,
"Files a run writes") into ``report.md`` with ``figures/*.png`` and ``*.svg`` and a
self-contained ``report.html`` carrying the same content. The pieces are usable on their
own: :mod:`stablefs.report.tables` (summaries, formatted tables),
:mod:`stablefs.report.ties` (the one tie rule, the Pareto front),
:mod:`stablefs.report.summary` (the computed summary and the recommendation),
:mod:`stablefs.report.figures` (Matplotlib figures), :mod:`stablefs.report.signature`
(``signature.csv`` / ``.gmt``) and :mod:`stablefs.report.render` (the document model and
its two renderers).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd

from stablefs._runtime.io import atomic_write_bytes, atomic_write_text
from stablefs._version import __version__

# stablefs.report.figures (Matplotlib, 0.5 s to import) is imported where a figure is made:
# a worker process that needs only the recommendation rule (the permutation test's choice,
# in stablefs.report.summary) imports this package without it
from stablefs.report import summary as _sum
from stablefs.report import tables as _tab
from stablefs.report.render import (
    BulletList,
    CodeBlock,
    Details,
    Document,
    Figure,
    Heading,
    Paragraph,
    Strong,
    to_html,
    to_markdown,
)

__all__ = ["DrawnFigure", "FigureJob", "draw_figure", "figure_jobs", "write_report"]

_MEASURE_NOTES = {
    "kuncheva": "Kuncheva index: overlap of two equal-size subsets corrected for the overlap "
    "expected by chance, averaged over all pairs of resamples; 1 = identical lists, "
    "0 = no better than random.",
    "nogueira": "Nogueira stability: one minus the average variance of each feature's "
    "selection indicator, scaled so that 1 = identical lists and 0 = random selection.",
    "jaccard": "Jaccard index: |A ∩ B| / |A ∪ B| averaged over pairs of resamples; not "
    "corrected for chance, so it grows with k.",
    "dice": "Dice coefficient: 2|A ∩ B| / (|A| + |B|) averaged over pairs of resamples; not "
    "corrected for chance.",
    "npogr": "nPOGR: Kuncheva-like overlap that also credits significantly correlated "
    "features; unreliable when most genes are correlated with each other (stablefs warns).",
    "spearman": "Spearman rank correlation between the full rankings of pairs of resamples.",
}


# ------------------------------------------------------------------------ header


def _thousands(x) -> str:
    try:
        return f"{int(x):,}"
    except (TypeError, ValueError):
        return str(x)


def _parse_time(value) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    return None


def _duration(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, sec = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min {sec} s"


def _header(run_info: Mapping) -> tuple[list, str | None]:
    """Header list items (label in bold, then the value) and the command line."""
    items: list = []

    def add(label: str, text: str) -> None:
        items.append([Strong(f"{label}:"), f" {text}"])

    data = run_info.get("data")
    n, p = run_info.get("n_samples"), run_info.get("n_features")
    shape = f"{_thousands(n)} samples × {_thousands(p)} features" if n is not None and \
        p is not None else ""
    if data is not None or shape:
        add("Data", " — ".join(str(x) for x in (data, shape) if x not in (None, "")))
    classes = run_info.get("classes")
    if isinstance(classes, Mapping) and classes:
        add("Classes", ", ".join(f"{lab} ({_thousands(c)})" for lab, c in classes.items()))
    elif classes:
        add("Classes", ", ".join(map(str, classes)))
    scale = _scale_text(run_info.get("data_meta") or {})
    if scale:
        add("Values", scale)
    if run_info.get("protocol"):
        add("Protocol", str(run_info["protocol"]))
    if run_info.get("methods"):
        add("Methods", ", ".join(map(str, run_info["methods"])))
    if run_info.get("sizes") is not None:
        add("Sizes k", ", ".join(_tab.format_k(k) for k in run_info["sizes"]))
    if run_info.get("seed") is not None:
        add("Seed", str(run_info["seed"]))
    started, finished = run_info.get("started"), run_info.get("finished")
    if started or finished:
        t0, t1 = _parse_time(started), _parse_time(finished)
        text = f"{started or '?'} → {finished or 'not finished'}"
        if t0 is not None and t1 is not None:
            with contextlib.suppress(TypeError):  # naive vs aware datetimes
                text += f" ({_duration((t1 - t0).total_seconds())})"
        add("Run", text)
    versions = dict(run_info.get("versions") or {})
    add("stablefs version", str(versions.pop("stablefs", None) or __version__))
    if versions:
        add("Other software", ", ".join(f"{k} {v}" for k, v in versions.items()))
    command = run_info.get("command")
    return items, (str(command) if command else None)


def _scale_text(meta: Mapping) -> str | None:
    """The value scale analysed (``data_meta["scale"]``, ``["log2"]`` of ``run.json``)."""
    scale = meta.get("scale") or {}
    asked, applied = scale.get("asked"), scale.get("applied")
    if applied is None:
        return None
    if applied == "log2":
        log2 = meta.get("log2") or {}
        floored = int(log2.get("negative_floored") or 0)
        text = "log2(max(x, 0) + 1)"
        if asked == "auto":
            text += (" (scale auto, the default: the values looked like raw intensities; "
                     "--scale raw keeps them as given)")
        else:
            text += " (--scale log2)"
        if floored:
            text += f"; {_thousands(floored)} negative values counted as 0"
        return text
    if asked == "auto":
        return "as given (scale auto: the values look log-scale, or not like intensities)"
    return "as given (--scale raw)"


# ---------------------------------------------------------------------- assembly


@dataclass(frozen=True)
class FigureJob:
    """One figure of the report to draw: ``plot(*args, **kwargs)`` (a ``plot_*`` function of
    :mod:`stablefs.report.figures`), rendered to PNG and, with ``svg``, SVG. Plain data and
    a module-level function: a job can be drawn in another process."""

    name: str
    plot: Callable
    args: tuple
    kwargs: dict
    svg: bool = False


#: a drawn figure: its PNG bytes and its SVG bytes (``None`` without SVG)
DrawnFigure = tuple[bytes, "bytes | None"]


def draw_figure(job: FigureJob) -> DrawnFigure | None:
    """Draw and render one :class:`FigureJob` (``None`` when there is nothing to draw)."""
    from stablefs.report import figures as _fig
    fig = job.plot(*job.args, **job.kwargs)
    if fig is None:
        return None
    if job.svg:
        return _fig.figure_to_png_svg(fig)
    return _fig.figure_to_png(fig), None


def _draw_here(jobs: list[FigureJob]) -> list[DrawnFigure | None]:
    return [draw_figure(job) for job in jobs]


def _figure(fig_dir: Path, name: str, drawn: DrawnFigure | None, caption: str,
            written: list[Path], *, alt: str) -> Figure | None:
    """Write ``name`` (``.png``) and, when drawn, its ``.svg`` twin; the report shows the
    PNG."""
    if drawn is None:
        return None
    png, svg_bytes = drawn
    path = fig_dir / name
    atomic_write_bytes(path, png)
    written.append(path)
    if svg_bytes is not None:
        svg_path = path.with_suffix(".svg")
        atomic_write_bytes(svg_path, svg_bytes)
        written.append(svg_path)
    return Figure(src=f"figures/{name}", png=png, caption=caption, alt=alt)


def _rankings(selections: pd.DataFrame | None, method: str) -> np.ndarray | None:
    if selections is None or selections.empty or "ranking" not in selections.columns:
        return None
    sel = selections[selections["method"].astype(str) == method]
    if sel.empty:
        return None
    if "resample" in sel.columns:
        sel = sel.sort_values("resample", kind="stable")
    return np.vstack([np.asarray(r, dtype=float) for r in sel["ranking"]])


def _jobs(stab, perf, timing, freq, methods, styles, rec, base, verdict, selections,
          feature_names, svg: bool) -> list[FigureJob]:
    """The report's figures, in the report's order, from its prepared tables."""
    from stablefs.report import figures as _fig
    shown = None if verdict.signal is False else rec
    jobs: list[FigureJob] = []

    def job(name: str, plot: Callable, *args, **kwargs) -> None:
        jobs.append(FigureJob(name, plot, args, kwargs, svg))

    if not stab.empty:
        job("stability.png", _fig.plot_stability, stab, methods, styles)
    if not perf.empty:
        job("performance.png", _fig.plot_performance, perf, methods, styles, base or None)
    job("tradeoff.png", _fig.plot_tradeoff, stab, perf, methods, styles,
        recommended=(shown.method, shown.k, shown.metric) if shown else None,
        baseline=base or None)
    # the selection map: the recommended pair, or without evidence of signal the best
    # candidate (the pair the method comparisons are about), else the first method
    heat = shown or (rec if verdict.signal is False else None)
    heat_method = heat.method if heat else None
    heat_k = heat.k if heat else None
    if freq is not None:
        job("frequency.png", _fig.plot_frequency_rank, freq, methods, styles)
        if heat_method is None:
            present = [m for m in methods if m in set(freq["method"])]
            heat_method = present[0] if present else None
            heat_k = _tab.frequency_k(freq, heat_method) if heat_method else None
        ranks = _rankings(selections, heat_method) if heat_method else None
        if ranks is not None and feature_names is not None and \
                ranks.shape[1] == len(feature_names):
            job("selections.png", _fig.plot_selection_heatmap, ranks,
                list(map(str, feature_names)), heat_k, method=heat_method)
    if not timing.empty:
        job("fit_time.png", _fig.plot_fit_time, timing, methods, styles)
    return jobs


def _prepared(run_info: dict, results, stability, frequencies, baseline):
    """The tables the report is built from."""
    from stablefs.report import figures as _fig
    res = _tab.prepare_results(results)
    stab = _tab.prepare_stability(stability)
    res, stab, dup_notes = _tab.drop_duplicates(res, stab)
    freq = _tab.prepare_frequencies(frequencies)
    methods = _tab.method_order(run_info.get("methods"), res, stab, freq)
    perf = _tab.performance_summary(res)
    timing = _tab.time_summary(res)
    styles = _fig.method_styles(methods, linestyles=True)
    rec = _sum.recommendation(stab, perf)
    base = _tab.baseline_means(baseline)
    verdict = _sum.judge_evidence(rec, base, run_info.get("trust"))
    return res, stab, dup_notes, freq, methods, perf, timing, styles, rec, base, verdict


def figure_jobs(*, run_info: dict, results: pd.DataFrame, stability: pd.DataFrame,
                frequencies: pd.DataFrame | None = None,
                selections: pd.DataFrame | None = None, feature_names=None,
                baseline: pd.DataFrame | None = None, svg: bool = False) -> list[FigureJob]:
    """The figures :func:`write_report` draws from the same arguments, as independent jobs
    (:func:`draw_figure`). ``stablefs compare --n-jobs N`` draws those that do not depend on
    the permutation test and the nested estimate while they run (``run_info`` without
    ``trust``); the report then uses every drawn job equal to one of its own."""
    (_, stab, _, freq, methods, perf, timing, styles, rec, base,
     verdict) = _prepared(run_info, results, stability, frequencies, baseline)
    return _jobs(stab, perf, timing, freq, methods, styles, rec, base, verdict, selections,
                 feature_names, svg)


def write_report(out_dir: str | Path, *, run_info: dict, results: pd.DataFrame,
                 stability: pd.DataFrame, frequencies: pd.DataFrame | None = None,
                 title: str | None = None, selections: pd.DataFrame | None = None,
                 feature_names=None, signature: pd.DataFrame | None = None,
                 svg: bool = True, baseline: pd.DataFrame | None = None,
                 draw: Callable[[list[FigureJob]], list[DrawnFigure | None]] | None = None
                 ) -> dict[str, Path | list[Path]]:
    """Write ``report.md``, ``figures/*.png`` and ``*.svg`` and a self-contained ``report.html``.

    Parameters
    ----------
    out_dir : str or Path
        Output folder (created if missing). Files there with the same names are replaced
        atomically; other files are left alone.
    run_info : dict
        Run description; used keys: ``data``, ``n_samples``, ``n_features``, ``classes``
        (label → count), ``methods``, ``sizes``, ``protocol``, ``seed``, ``started``,
        ``finished``, ``versions`` (name → version), ``command``. Missing keys are skipped.
    results : DataFrame
        Tidy ``method, k, resample, metric, value``. Metrics ``<kind>_<classifier>``
        (``accuracy_svm``, ``auc_1nn``, ...) are summarised per (method, k) as mean ± sd
        and a 95 % t-interval over resamples; metrics ending in ``time`` (``fit_time``) per
        method, ignoring k.
    stability : DataFrame
        ``method, k, measure, estimate, low, high`` (bounds may be NaN or absent).
    frequencies : DataFrame, optional
        ``method, k, feature, frequency``; rows with frequency 0 may be omitted. Without it
        (or when empty) the frequency figure and consensus tables are left out.
    title : str, optional
        Report title; default ``"Feature selection stability and accuracy: <data>"``.
    selections : DataFrame, optional
        The runner's ``method, resample, ranking`` rows; with ``feature_names`` they give the
        features × resamples map of the recommended method.
    feature_names : sequence of str, optional
        Names of the ranked features, in the order of ``ranking``.
    signature : DataFrame, optional
        :func:`stablefs.report.signature.signature_table`; adds mean rank, class, effect size
        and FDR to the consensus lists.
    svg : bool, default True
        Also write each figure as a deterministic SVG (same name, ``.svg``).
    baseline : DataFrame, optional
        ``resample, metric, value`` of the majority-class rule
        (:func:`stablefs.evaluation.baseline.majority_baseline`): a sentence of the summary
        and a dashed line on the accuracy plots. ``run_info["trust"]`` (the permutation
        test and the nested estimate, as in ``run.json``) adds their sentences; without
        evidence of signal the summary opens with "No evidence of signal" and nothing is
        marked as recommended.
    draw : callable, optional
        ``draw(jobs) -> [drawn or None, ...]``: renders the report's figures
        (:class:`FigureJob`, each independent of the others) with :func:`draw_figure`, in
        order; default one after the other in this process. ``stablefs compare --n-jobs N``
        draws them in its worker processes: the same bytes.

    Returns
    -------
    dict
        ``{"report.md": Path, "report.html": Path, "figures": [Path, ...]}``.

    Raises
    ------
    stablefs.StablefsError
        When a frame lacks a required column.

    Notes
    -----
    What would be shown twice is shown once, with a sentence why
    (:func:`stablefs.report.tables.drop_duplicates`). "Best" and "tied" follow one rule
    everywhere (:mod:`stablefs.report.ties`). Every file is written atomically (temporary
    file, then rename), figures first and ``report.html`` last. Figures use Matplotlib's Agg
    backend without touching pyplot.
    """
    out_dir = Path(out_dir)
    fig_dir = out_dir / "figures"
    (res, stab, dup_notes, freq, methods, perf, timing, styles, rec, base,
     verdict) = _prepared(run_info, results, stability, frequencies, baseline)
    trust = run_info.get("trust")
    shown = None if verdict.signal is False else rec  # nothing marked "recommended"
    written: list[Path] = []

    # the figures first (independent of each other: drawn by ``draw``, in parallel there)
    jobs = _jobs(stab, perf, timing, freq, methods, styles, rec, base, verdict, selections,
                 feature_names, svg)
    heat = shown or (rec if verdict.signal is False else None)
    drawn = dict(zip([j.name for j in jobs], (draw or _draw_here)(jobs), strict=True))

    data_name = run_info.get("data")
    doc = Document(title or "Feature selection stability and accuracy"
                   + (f": {data_name}" if data_name else ""))
    items, command = _header(run_info)
    doc.add(BulletList(items, css_class="meta"))
    if command:
        doc.add(Paragraph("Rerun with:"), CodeBlock(command))

    # summary
    doc.add(Heading(2, "Summary"))
    sentences = _sum.summary_sentences(methods, stab, perf, timing, freq, rec,
                                       baseline=base or None, trust=trust)
    doc.add(BulletList(sentences or ["No stability or accuracy values were given."],
                       css_class="summary"))
    if dup_notes:
        doc.add(BulletList(dup_notes, css_class="note"))
    bold_note = ("Bold: the best value at each k and every value tied with it (overlapping "
                 "95% intervals; see the summary).")

    # stability
    doc.add(Heading(2, "Stability"))
    if stab.empty:
        doc.add(Paragraph("No stability values were given."))
    else:
        f = _figure(fig_dir, "stability.png", drawn["stability.png"],
                    "Stability against the number of selected features k, one panel per "
                    "measure; error bars are the confidence intervals of stability.csv where "
                    "available; methods are offset slightly along k so that bars do not "
                    "hide each other. Higher is more stable.", written,
                    alt="Stability against k")
        doc.add(f)
        notes = [_MEASURE_NOTES[m.lower()] for m in pd.unique(stab["measure"])
                 if m.lower() in _MEASURE_NOTES]
        if notes:
            doc.add(BulletList(notes))
        for measure in pd.unique(stab["measure"]):
            doc.add(Heading(3, f"{_tab.measure_label(measure)}"),
                    _tab.stability_table(stab, measure, methods))
        doc.add(Paragraph("Cells: estimate [lower, upper 95% confidence bound: the "
                          "delete-one-resample jackknife standard error with a Student-t "
                          "quantile, clipped to the measure's range, which covers at 95% from "
                          "10 resamples on]. " + bold_note, css_class="note"))

    # predictive performance
    doc.add(Heading(2, "Predictive performance"))
    if perf.empty:
        doc.add(Paragraph("No accuracy or AUC values were given."))
    else:
        f = _figure(fig_dir, "performance.png", drawn["performance.png"],
                    "Held-out accuracy and other metrics against k, one column per "
                    "classifier: mean over resamples with its 95% t-interval as error bars. "
                    "The y axes span at least 0.1 (and end at 1 when the values come within "
                    "0.1 of it), so a difference of 0.001 looks as small as it is; an "
                    "interval reaching past 1 is drawn whole."
                    + (" Dashed grey line: always answering the majority class of the "
                       "training part (for balanced accuracy: chance); named in a note at "
                       "the bottom instead when it lies far below the values." if base
                       else ""),
                    written, alt="Accuracy and AUC against k")
        doc.add(f)
        kinds_first = sorted(pd.unique(perf["metric"]),
                             key=lambda mt: (_tab.parse_metric(mt)[0] != "accuracy",
                                             _tab.parse_metric(mt)[0] != "auc"))
        for metric in kinds_first:
            doc.add(Heading(3, _tab.metric_label(metric)),
                    _tab.performance_table(perf, metric, methods))
        doc.add(Paragraph("Cells: mean over resamples [95% t-interval of the mean: the "
                          "interval the bold rule compares, so equal means can differ in "
                          "bolding when their spreads differ]. " + bold_note,
                          css_class="note"))
        if base:
            doc.add(Paragraph(
                [Strong("Baseline"), f": always answering the majority class of the training "
                 f"part scores accuracy {base.get('accuracy', float('nan')):.3f} and balanced "
                 f"accuracy {base.get('balanced_accuracy', float('nan')):.3f} (chance) on "
                 "the same test parts (baseline.csv)."], css_class="note"))

    # trade-off
    trade = drawn["tradeoff.png"]
    if trade is not None:
        measure = _tab.measure_label(_tab.primary_measure(stab))
        doc.add(Heading(2, "Stability–accuracy trade-off"))
        doc.add(_figure(fig_dir, "tradeoff.png", trade,
                        f"Stability ({measure}) against mean accuracy, one point per method "
                        "and k, one panel per classifier. Outlined and labelled: the Pareto "
                        "front (no other point is both more stable and more accurate); ringed: "
                        "the recommended (method, k) of the summary"
                        + (" (none: no evidence of signal)" if shown is None and rec else "")
                        + "." + (" Dashed grey line: the majority-class accuracy (a note "
                                 "at the bottom when it lies far below the points, so that "
                                 "they are not squeezed against the top)." if base
                                 else ""), written,
                        alt="Stability against accuracy with the Pareto front"))

    # frequencies and consensus
    doc.add(Heading(2, "Selection frequency and consensus signatures"))
    if freq is None:
        doc.add(Paragraph("No selection frequencies were given."))
    else:
        doc.add(_figure(fig_dir, "frequency.png", drawn["frequency.png"],
                        "Selection frequency of the features, sorted decreasingly, against "
                        "their position, one line per k: a stable method keeps frequency 1 up "
                        "to about k and then drops; dashed line: consensus threshold "
                        f"{_tab.CONSENSUS_THRESHOLD:g}.", written,
                        alt="Selection frequency against rank for every k"))
        if "selections.png" in drawn:
            heat_job = next(j for j in jobs if j.name == "selections.png")
            heat_method, heat_k = heat_job.kwargs["method"], heat_job.args[2]
            which = ("the recommended method" if shown else "the best candidate" if heat
                     else "the first method")
            doc.add(_figure(fig_dir, "selections.png", drawn["selections.png"],
                            f"Which features {which}, {heat_method}, selected in "
                            f"each resample at k = {_tab.format_k(heat_k)}: coloured cells are "
                            "selections (colour: rank), blank cells are not; rows above the "
                            "black line are the consensus signature.", written,
                            alt="Features by resamples selection map"))
        doc.add(Paragraph([
            "Consensus signature: the features selected in more than ",
            f"{_tab.CONSENSUS_THRESHOLD:.0%}",
            " of the resamples (Han 2012, sec. 7.4). Number of consensus features per method "
            "and k (in brackets: selected in every resample):",
        ]))
        doc.add(_tab.consensus_table(freq, methods))
        if verdict.signal is False:
            doc.add(Paragraph([Strong("No evidence of signal"), ": the best candidate does not "
                               "predict the classes better than chance (see the summary), "
                               "so none of these consensus lists is recommended; "
                               "signature.csv marks them the same way (column signal)."],
                              css_class="note"))
        lists = _tab.consensus_lists(freq, methods)
        if shown is not None:  # the recommended signature first, open
            lists.sort(key=lambda t: (t[0], t[1]) != (shown.method, shown.k))
        if signature is not None and not signature.empty:
            doc.add(Paragraph("Effect size* and FDR*: descriptive, computed on the whole "
                              "data on which the features were also selected, so optimistic; "
                              "see signature.csv for the test used.", css_class="note"))
        for m, k, feats in lists:
            if feats.empty:
                continue
            sig = None
            if signature is not None and not signature.empty:
                sig = signature[(signature["method"].astype(str) == m)
                                & (signature["k"].astype(float) == k)]
            is_rec = shown is not None and (m, k) == (shown.method, shown.k)
            label = (f"{m}, k = {_tab.format_k(k)}: {len(feats)} consensus feature"
                     f"{'' if len(feats) == 1 else 's'}"
                     + (" (recommended)" if is_rec else ""))
            doc.add(Details(label, [_tab.consensus_feature_table(feats, sig)], open=is_rec))

    # paired tests between methods (comparisons.csv, written before the report)
    from stablefs.report.comparisons import comparison_blocks

    focus = shown or (rec if verdict.signal is False else None)
    doc.add(*comparison_blocks(out_dir / "comparisons.csv",
                               focus=(focus.method, focus.k, focus.metric, focus.measure)
                               if focus is not None else None,
                               candidate=shown is None))

    # running times
    doc.add(Heading(2, "Running time"))
    if timing.empty:
        doc.add(Paragraph("No running times were given."))
    else:
        doc.add(_figure(fig_dir, "fit_time.png", drawn["fit_time.png"],
                        "Mean time to fit each selector once on a training set (without the "
                        "one-off costs of a method's first fit in a process: imports and "
                        "compiled code, paid in an untimed warm-up); error bars: ± one "
                        "standard deviation over resamples.", written,
                        alt="Mean fit time per method"))
        doc.add(_tab.time_table(timing, methods))

    doc.blocks = [b for b in doc.blocks if b is not None]
    footer = f"Generated by stablefs {__version__}."
    md = to_markdown(doc) + "\n---\n\n" + footer + "\n"
    md_path = atomic_write_text(out_dir / "report.md", md)
    html_path = atomic_write_text(out_dir / "report.html", to_html(doc, footer=footer))
    return {"report.md": md_path, "report.html": html_path, "figures": written}
