"""Sphinx configuration of the stablefs documentation site.

Build it (offline, warnings as errors) with::

    pip install ".[docs]"
    sphinx-build -W -b html docs docs/_build/html

The gallery (``docs/examples`` -> ``docs/auto_examples``) and the API stubs
(``docs/api/generated``) are generated at build time and are not in the repository.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))  # the checkout's code, before an installed copy
sys.path.insert(0, str(HERE / "_ext"))

from stablefs._version import __version__  # noqa: E402

# -- project ---------------------------------------------------------------------------------
project = "stablefs"
author = "The stablefs developers"
copyright = "2026, The stablefs developers (BSD-3-Clause)"  # noqa: A001
version = release = __version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "sphinx_click",
    "myst_parser",
    "matplotlib.sphinxext.plot_directive",
    "stablefs_docs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = [
    "_build", "_ext", "_intersphinx", "_templates", "notebooks",
    # the design contract cites internal file names; the experiments' account is split into
    # one page per experiment (reproductions/), which include its sections, and the
    # leaderboard's is included by stability_leaderboard.md
    "DESIGN.md", "experiments.md", "leaderboard.md", "_generated",
    "examples/*.md",
]
default_role = "literal"
nitpicky = False
suppress_warnings = [
    # the reproductions include sections of docs/experiments.md, whose headings start at ##
    "myst.header",
]

# -- MyST (the Markdown pages) ---------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath", "amsmath", "attrs_inline"]
myst_heading_anchors = 3

# -- autodoc / autosummary / numpydoc --------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_typehints = "none"  # numpydoc's Parameters say the types
numpydoc_show_class_members = False  # the class template documents the members (autodoc)
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = True
numpydoc_xref_aliases = {
    "DataFrame": "pandas.DataFrame",
    "Series": "pandas.Series",
    "AnnData": "anndata.AnnData",
    "ndarray": "numpy.ndarray",
    "array": ":term:`numpy:array`",
    "array-like": ":term:`numpy:array_like`",
    "array_like": ":term:`numpy:array_like`",
    "Generator": "numpy.random.Generator",
    "RandomState": "numpy.random.RandomState",
    "Path": "pathlib.Path",
    "path": "pathlib.Path",
    "Figure": "matplotlib.figure.Figure",
    "Comparison": "stablefs.Comparison",
    "Dataset": "stablefs.datasets.Dataset",
    "Protocol": "stablefs.evaluation.Protocol",
    "ExperimentResult": "stablefs.evaluation.ExperimentResult",
    "StablefsError": "stablefs.StablefsError",
}
numpydoc_xref_ignore = {
    "of", "or", "and", "optional", "default", "shape", "None", "any", "the", "a", "an", "from",
    "each", "per", "one", "two", "with", "in", "to", "by", "as", "k", "n", "p", "m", "same",
    "length", "n_samples", "n_features", "n_subsets", "int", "float", "str", "bool", "dict",
    "list", "tuple", "callable", "object", "iterable", "sequence", "mapping", "scalar",
    "number", "string", "function", "name", "names", "pair", "pairs", "True", "False",
}

# -- intersphinx: inventories stored in docs/_intersphinx (the build has no network) ---------
_INV = HERE / "_intersphinx"
intersphinx_mapping = {
    "python": ("https://docs.python.org/3", str(_INV / "python.inv")),
    "numpy": ("https://numpy.org/doc/stable", str(_INV / "numpy.inv")),
    "scipy": ("https://docs.scipy.org/doc/scipy", str(_INV / "scipy.inv")),
    "sklearn": ("https://scikit-learn.org/stable", str(_INV / "sklearn.inv")),
    "pandas": ("https://pandas.pydata.org/docs", str(_INV / "pandas.inv")),
    "anndata": ("https://anndata.readthedocs.io/en/stable", str(_INV / "anndata.inv")),
}
intersphinx_disabled_reftypes = ["std:doc"]

# MathJax renders the equations when a page is viewed, from its CDN; STABLEFS_DOCS_MATHJAX names
# a local copy instead (the URL or file:// path of MathJax 3's tex-mml-chtml.js), for reading
# the site without a network
if os.environ.get("STABLEFS_DOCS_MATHJAX"):
    mathjax_path = os.environ["STABLEFS_DOCS_MATHJAX"]

# -- sphinx-gallery ---------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "stablefs_docs.GalleryOrder",
    "download_all_examples": False,
    "image_scrapers": ("matplotlib", "stablefs_docs.report_figure_scraper"),
    "capture_repr": ("_repr_html_", "__repr__"),
    "ignore_repr_types": r"matplotlib[\w.]*Figure|ReportFigure|NoneType",
    "doc_module": ("stablefs",),
    "backreferences_dir": "api/generated/backreferences",
    "reference_url": {"stablefs": None},
    "remove_config_comments": True,
    "show_memory": False,
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "matplotlib_animations": False,
    # an example whose source did not change is normally not run again; the tests set this
    # so that every build runs every example against the current code
    "run_stale_examples": os.environ.get("STABLEFS_DOCS_RUN_ALL") == "1",
}
# the examples read the real data sets (Colon) from the shared folder beside the checkout when
# STABLEFS_DATA does not name one; outside it, stablefs downloads them on first use
if not os.environ.get("STABLEFS_DATA"):
    shared = ROOT.parent / "shared" / "datasets"
    if shared.is_dir():
        os.environ["STABLEFS_DATA"] = os.pathsep.join([str(shared), str(shared / "rdata")])

# -- matplotlib's plot directive (the user guide's figures) ------------------------------------
plot_include_source = False
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 110)]
plot_rcparams = {"figure.autolayout": True}

# -- HTML ---------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"stablefs {version}"
html_static_path = ["_static"]
html_css_files = ["stablefs.css"]
html_show_sourcelink = False
html_last_updated_fmt = None
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": {"**": ["page-toc"], "index": []},
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "icon_links": [],
    "logo": {"text": "stablefs"},
}
html_sidebars = {"index": [], "getting_started": [], "changelog": [], "citing": [],
                 "license": [], "stability_leaderboard": [], "cli": []}
html_context = {"default_mode": "light"}


def _copy_leaderboard(app, exception) -> None:
    """The published leaderboard page (``docs/leaderboard/``) beside the site's pages, so that
    ``leaderboard/leaderboard.html`` opens from the leaderboard page."""
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "leaderboard"
    target.mkdir(exist_ok=True)
    for src in (HERE / "leaderboard").iterdir():
        if src.is_file():
            shutil.copy2(src, target / src.name)


def setup(app):
    app.connect("build-finished", _copy_leaderboard)
