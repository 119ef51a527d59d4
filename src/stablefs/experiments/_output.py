"""Files of a reproduction run (``stablefs reproduce NAME --out DIR``).

::

    DIR/
      run.json             configuration, seed, versions, timings, the command (written last)
      claims.csv           id, statement, test, ours, verdict, evidence
      tables/*.csv         tidy tables; tables/published.csv = the paper's numbers beside ours
      figures/*.png, *.svg
      report.md, report.html

Every file is written atomically (:mod:`stablefs._runtime.io`). ``run.json`` is written last and
carries the configuration key, so a folder with a ``run.json`` holds a finished run.
"""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from stablefs._runtime.escape import csv_text
from stablefs._runtime.io import atomic_write_bytes, atomic_write_text
from stablefs.experiments._base import VERDICTS, Claim, Experiment, Outcome

__all__ = ["CLAIM_COLUMNS", "SMOKE_TEST", "claims_frame", "default_out", "summary_text",
           "write_outcome"]

CLAIM_COLUMNS = ["id", "statement", "test", "ours", "verdict", "evidence"]

#: the first words of a ``--quick`` report and summary
SMOKE_TEST = "smoke test: verdicts from a small configuration"


def default_out(name: str) -> Path:
    """``./stablefs-reproduce-NAME``."""
    return Path("stablefs-reproduce-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-"))


def claims_frame(claims: Sequence[Claim]) -> pd.DataFrame:
    return pd.DataFrame([c.as_row() for c in claims], columns=CLAIM_COLUMNS)


def _csv(df: pd.DataFrame, path: Path) -> Path:
    return atomic_write_text(path, csv_text(df, float_format="%.10g"))


def _render_figure(spec) -> tuple[bytes, bytes]:
    """PNG and SVG bytes of a :class:`FigureSpec`, drawn in the report's style."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from stablefs.report.figures import DPI, _style

    with _style():
        fig = spec.build()
        FigureCanvasAgg(fig)
        png, svg = io.BytesIO(), io.BytesIO()
        fig.savefig(png, format="png", dpi=DPI)
        fig.set_layout_engine("none")  # keep the layout just computed: the SVG is the same
        # a fixed hash salt and no date make the SVG byte-identical across reruns
        import matplotlib as mpl

        with mpl.rc_context({"svg.hashsalt": "stablefs", "svg.fonttype": "none"}):
            fig.savefig(svg, format="svg", metadata={"Date": None})
        fig.clear()
    return png.getvalue(), svg.getvalue()


def write_outcome(out_dir, experiment: Experiment, outcome: Outcome, run_info: dict, *,
                  figures: bool = True) -> list[Path]:
    """Write every file of a finished run into ``out_dir`` (``run.json`` last).

    Parameters
    ----------
    out_dir : path-like
    experiment : Experiment
    outcome : Outcome
    run_info : dict
        Written as ``run.json`` (with the list of files and the verdict counts added).
    figures : bool, default True
        Draw the figures (False: tables, claims and the report without figures).

    Returns
    -------
    list of Path
        The files written.
    """
    out = Path(out_dir)
    written: list[Path] = []
    claims = claims_frame(outcome.claims)
    written.append(_csv(claims, out / "claims.csv"))
    if outcome.published is not None:
        written.append(_csv(outcome.published, out / "tables" / "published.csv"))
    for name, table in outcome.tables.items():
        written.append(_csv(table, out / "tables" / f"{name}.csv"))
    drawn = []
    for spec in outcome.figures if figures else []:
        png, svg = _render_figure(spec)
        written.append(atomic_write_bytes(out / "figures" / f"{spec.name}.png", png))
        written.append(atomic_write_bytes(out / "figures" / f"{spec.name}.svg", svg))
        drawn.append((spec, png))
    doc = _report(experiment, outcome, claims, drawn, run_info)
    from stablefs.report.render import to_html, to_markdown

    written.append(atomic_write_text(out / "report.md", to_markdown(doc)))
    footer = f"stablefs {run_info.get('versions', {}).get('stablefs', '')}".strip()
    written.append(atomic_write_text(out / "report.html", to_html(doc, footer=footer)))
    info = dict(run_info)
    info["verdicts"] = {v: int((claims["verdict"] == v).sum()) for v in VERDICTS}
    info["files"] = sorted(str(p.relative_to(out)) for p in written) + ["run.json"]
    text = json.dumps(info, indent=2, sort_keys=False, default=_json_default) + "\n"
    written.append(atomic_write_text(out / "run.json", text))
    return written


def _json_default(value):
    try:
        import numpy as np

        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, np.ndarray):
            return value.tolist()
    except ImportError:  # pragma: no cover
        pass
    return str(value)


def _fmt_seconds(seconds) -> str:
    if seconds is None or not math.isfinite(float(seconds)):
        return "unknown"
    s = float(seconds)
    if s < 90:
        return f"{s:.1f} s"
    if s < 5400:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.2f} h"


def _report(experiment: Experiment, outcome: Outcome, claims: pd.DataFrame, figures, run_info):
    from stablefs.report.render import (
        BulletList,
        Code,
        CodeBlock,
        Document,
        Figure,
        Heading,
        Paragraph,
        Strong,
        Table,
    )

    doc = Document(f"Reproduction of {experiment.citation}: {experiment.title}")
    if str(run_info.get("config_name", "")).startswith("quick"):
        doc.add(Paragraph([Strong(SMOKE_TEST), " (--quick); run without --quick for the "
                           "paper's configuration."]))
    doc.add(Paragraph(experiment.description))
    counts = {v: int((claims["verdict"] == v).sum()) for v in VERDICTS}
    told = ", ".join(f"{n} {v}" for v, n in counts.items() if n) or "no claims"
    doc.add(Paragraph([Strong("Verdicts:"), f" {told}"]))
    if outcome.summary:
        doc.add(BulletList(list(outcome.summary), css_class="summary"))
    doc.add(Heading(2, "Claims"))
    rows, previous = [], None
    for r in claims.itertuples():
        said = "(the same statement)" if r.statement == previous else r.statement
        previous = r.statement
        rows.append([r.id, said, r.ours, Strong(r.verdict)])
    doc.add(Table(["id", "the paper says", "ours", "verdict"], rows,
                  align=["l", "l", "l", "l"]))
    doc.add(Paragraph("How each verdict is decided:"))
    doc.add(BulletList([[Strong(f"{r.id}:"), f" {r.test}"] for r in claims.itertuples()]))
    if outcome.published is not None and len(outcome.published):
        doc.add(Heading(2, "Published numbers beside ours"))
        pub = outcome.published
        doc.add(Table(list(pub.columns), [[_cell(v) for v in row] for row in
                                          pub.itertuples(index=False)],
                      align=["l"] + ["r"] * (len(pub.columns) - 2) + ["l"]))
    if figures:
        doc.add(Heading(2, "Figures"))
        for spec, png in figures:
            doc.add(Figure(src=f"figures/{spec.name}.png", png=png, caption=spec.caption))
    for heading, text in outcome.sections:
        doc.add(Heading(2, heading), Paragraph(text))
    if outcome.notes:
        doc.add(Heading(2, "Readings of the paper's ambiguities"))
        doc.add(BulletList(list(outcome.notes)))
    doc.add(Heading(2, "Run"))
    cfg = run_info.get("config", {})
    doc.add(Table(["setting", "value"],
                  [[k, _cell(v)] for k, v in cfg.items()], align=["l", "l"]))
    items = [f"configuration: {run_info.get('config_name', '')}",
             f"seed: {run_info.get('seed')}",
             f"wall time: {_fmt_seconds(run_info.get('wall_time_s'))} "
             f"with {run_info.get('n_jobs')} worker(s)"]
    if run_info.get("units_resumed"):
        items.append(f"Monte-Carlo units resumed from an interrupted run: "
                     f"{run_info['units_resumed']} (the wall time counts only this run)")
    versions = run_info.get("versions") or {}
    if versions:
        items.append("software: " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    doc.add(BulletList(items, css_class="meta"))
    if run_info.get("command"):
        doc.add(Paragraph("Rerun with:"), CodeBlock(str(run_info["command"])))
    files = sorted(f"tables/{n}.csv" for n in outcome.tables)
    if files:
        doc.add(Paragraph(["Tables: ", *sum(([Code(f), " "] for f in files), [])]))
    return doc


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def summary_text(claims: pd.DataFrame, width: int = 100, quick: bool = False) -> str:
    """The claims as a short plain-text table for the terminal (opened by
    :data:`SMOKE_TEST` for a ``--quick`` run)."""
    w = max([5] + [len(str(i)) for i in claims["id"]])
    vw = max([7] + [len(str(v)) for v in claims["verdict"]])
    lines = [SMOKE_TEST] if quick else []
    lines.append(f"{'claim':<{w}}  {'verdict':<{vw}}  ours")
    for r in claims.itertuples():
        ours = str(r.ours)
        room = max(20, width - w - vw - 4)
        if len(ours) > room:
            ours = ours[: room - 1] + "…"
        lines.append(f"{str(r.id):<{w}}  {str(r.verdict):<{vw}}  {ours}")
    return "\n".join(lines)
