"""Sphinx helpers of the stablefs site: the gallery's scraper for report figures.

:class:`stablefs.Comparison`'s figures (``plot_stability()``, ...) are
:class:`stablefs.report.figures.ReportFigure` objects: matplotlib figures on the Agg canvas
that are never registered with pyplot (so that drawing them in a script or a worker opens no
window and leaks no global state). sphinx-gallery's matplotlib scraper only sees pyplot's
figures, so :func:`report_figure_scraper` finds them in the example's variables instead (a
name bound to one, or the value of a block's last expression) and saves each one once, as
Jupyter shows it (``_repr_png_``).
"""

from __future__ import annotations

import re
import weakref
from pathlib import Path

_SHOWN: weakref.WeakSet = weakref.WeakSet()  # report figures already put on a page


def _report_figures(namespace: dict) -> list:
    from stablefs.report.figures import ReportFigure

    found, seen = [], set()
    for value in namespace.values():
        if isinstance(value, ReportFigure) and id(value) not in seen and value.axes:
            seen.add(id(value))
            found.append(value)
    return found


def report_figure_scraper(block, block_vars, gallery_conf, **kwargs) -> str:
    """sphinx-gallery image scraper for the report figures a code block made.

    A figure is shown after the block that first binds it (or leaves it as the block's last
    value); figures cleared by a report writer (no axes left) are skipped.
    """
    from sphinx_gallery.scrapers import figure_rst

    paths = []
    iterator = block_vars["image_path_iterator"]
    for fig in _report_figures(block_vars["example_globals"]):
        if fig in _SHOWN:
            continue
        _SHOWN.add(fig)
        path = Path(next(iterator))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(fig._repr_png_())
        paths.append(str(path))
    if not paths:
        return ""
    return figure_rst(paths, gallery_conf["src_dir"])


#: the gallery's reading order: the main job first, then the measures, the stabilizers, the
#: other families, and the ways in and out
GALLERY_ORDER = (
    "plot_first_comparison.py",
    "plot_measures_toy.py",
    "plot_instance_weighting.py",
    "plot_ensembles.py",
    "plot_stability_selection.py",
    "plot_feature_groups.py",
    "plot_wrappers_bolstered.py",
    "plot_sklearn_selectors.py",
    "plot_anndata.py",
    "plot_permutation_test.py",
)


class GalleryOrder:
    """sphinx-gallery's ``within_subsection_order``: :data:`GALLERY_ORDER`, then any other
    example by file name."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename: str):
        name = Path(filename).name
        return (GALLERY_ORDER.index(name), name) if name in GALLERY_ORDER else (
            len(GALLERY_ORDER), name)

    def __repr__(self) -> str:  # sphinx-gallery keys its cache on the repr
        return "GalleryOrder"


def skip_foreign_members(app, what, name, obj, skip, options):
    """Document a class's own members and those it inherits from stablefs, not the methods
    every scikit-learn estimator has (``get_params``, ``set_output``, the metadata routing's
    ``set_fit_request``, ...): their pages are scikit-learn's."""
    if what != "class" or skip:
        return None
    target = obj.fget if isinstance(obj, property) else obj
    module = getattr(target, "__module__", None) or ""
    if module and not module.startswith("stablefs"):
        return True
    return None


#: a bar touching text, as in ``|S_i ∩ S_j|`` or ``|S_i||S_j|`` written as plain text (a
#: cardinality, an absolute value), which reST reads as a substitution reference
_BARS = re.compile(r"(?<!\\)\|(?=\S)|(?<=[^\s\\])\|")
_QUOTED = re.compile(r"(``.*?``|`[^`]*`)")


def escape_plain_text_bars(app, what, name, obj, options, lines: list) -> None:
    """The docstrings are written to be read in ``help()`` too, and write the size of a set
    or an absolute value as ``|S_i ∩ S_j|``; reStructuredText takes that for a substitution
    reference, undefined. Escape such bars in running text, leaving literal and doctest
    blocks, quoted text (````...````, roles such as ``:math:``), tables and line blocks as
    they are, so that the site shows what ``help()`` shows."""
    literal_indent, in_doctest = None, False
    for i, line in enumerate(lines):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if not stripped:
            in_doctest = False
            continue
        if literal_indent is not None:
            if indent > literal_indent:
                continue
            literal_indent = None
        if stripped.startswith(">>>"):
            in_doctest = True
        if not in_doctest and not stripped.startswith(("| ", "+-", "+=")):
            parts = _QUOTED.split(line)
            lines[i] = "".join(part if k % 2 else _BARS.sub(r"\\|", part)
                               for k, part in enumerate(parts))
        if stripped.endswith("::") and not in_doctest:
            literal_indent = indent


_LONE_STAR = re.compile(r"(?<![*\\])\*(?!\*)")


def escape_click_text(app, ctx, lines: list) -> None:
    """The command line's help is plain text written for a terminal (``tables/*.csv``);
    sphinx-click hands it to reStructuredText, where a lone ``*`` starts emphasis. Escape
    every lone asterisk (``**Required**``, which sphinx-click adds, stays bold)."""
    lines[:] = [_LONE_STAR.sub(r"\\*", line) for line in lines]


def leaderboard_planes(docs: Path, k: int = 50) -> Path:
    """Draw the published leaderboard's stability–accuracy planes at size ``k`` from its
    committed tables (``docs/leaderboard/``) with the function that drew them for
    ``leaderboard.html``; return the PNG's path (``docs/_generated/``, not committed)."""
    import json

    import pandas as pd

    from stablefs.report.figures import figure_to_png
    from stablefs.report.leaderboard import plot_planes

    folder = docs / "leaderboard"
    cells = pd.read_csv(folder / "cells.csv")
    sets = pd.read_csv(folder / "sets.csv")
    sets = sets[sets["status"] == "included"]
    methods = json.loads((folder / "run.json").read_text(encoding="utf-8"))["methods"]
    fig = plot_planes(cells, list(sets["set"]), dict(zip(sets["set"], sets["label"])), k,
                      "balanced_accuracy_svm", methods,
                      dict(zip(sets["set"], sets["chance_balanced_accuracy"])))
    out = docs / "_generated" / f"leaderboard-plane-k{k}.png"
    out.parent.mkdir(exist_ok=True)
    out.write_bytes(figure_to_png(fig, dpi=110))
    return out


def _draw_generated_figures(app) -> None:
    leaderboard_planes(Path(app.srcdir))


def setup(app):
    app.connect("builder-inited", _draw_generated_figures)
    app.connect("autodoc-skip-member", skip_foreign_members)
    app.connect("autodoc-process-docstring", escape_plain_text_bars)
    for event in ("sphinx-click-process-description", "sphinx-click-process-options",
                  "sphinx-click-process-arguments", "sphinx-click-process-epilog"):
        app.connect(event, escape_click_text)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
