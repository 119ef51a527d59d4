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
        path.write_bytes(fig._repr_png_())
        paths.append(str(path))
    if not paths:
        return ""
    return figure_rst(paths, gallery_conf["src_dir"])


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


def setup(app):
    app.connect("autodoc-skip-member", skip_foreign_members)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
