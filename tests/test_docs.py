"""The documentation site (``docs/``): it builds with warnings as errors, offline, every
gallery example run; no internal link of the built pages is broken; the API reference lists
every public class and function; no page cites a paper by an internal file number.

The build needs the ``docs`` extra (``pip install ".[docs]"``) and is skipped with a reason
without it; the checks of the API page's sources run everywhere.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from conftest import SHARED_DATA

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
DOCS_EXTRA = ("sphinx", "pydata_sphinx_theme", "numpydoc", "sphinx_gallery", "sphinx_click",
              "myst_parser")
API_MODULES = ("stablefs", "stablefs.datasets", "stablefs.selectors", "stablefs.stabilizers",
               "stablefs.stability", "stablefs.evaluation")
#: how a paper must not be cited anywhere a user reads (author and year instead)
SEED_NUMBER = re.compile(r"\bseeds? ?0\d\d\b|\bseed[_ -]?file", re.IGNORECASE)


def _docs_extra_missing() -> str | None:
    for name in DOCS_EXTRA:
        try:
            importlib.import_module(name)
        except ImportError:
            return name
    return None


# ---------------------------------------------------------------- the API page's sources


def _autosummary_entries(rst: str) -> dict[str, set[str]]:
    """``{module: names}`` listed under ``.. autosummary::`` after each ``currentmodule``."""
    entries: dict[str, set[str]] = {}
    module, in_summary = None, False
    for line in rst.splitlines():
        if line.startswith(".. currentmodule::"):
            module = line.split("::", 1)[1].strip()
            in_summary = False
        elif line.startswith(".. autosummary::"):
            in_summary = True
        elif in_summary and line.startswith("   ") and line.strip() and \
                not line.strip().startswith(":"):
            entries.setdefault(module, set()).add(line.strip())
        elif line.strip() and not line.startswith(" "):
            in_summary = False
    return entries


def test_the_api_reference_lists_every_public_class_and_function():
    listed = _autosummary_entries((DOCS / "api" / "index.rst").read_text(encoding="utf-8"))
    missing = {}
    for name in API_MODULES:
        module = importlib.import_module(name)
        public = {n for n in module.__all__
                  if inspect.isclass(getattr(module, n)) or inspect.isroutine(getattr(module, n))}
        if public - listed.get(name, set()):
            missing[name] = sorted(public - listed.get(name, set()))
        unknown = listed.get(name, set()) - set(module.__all__)
        assert not unknown, f"docs/api/index.rst lists names {name} does not export: {unknown}"
    assert not missing, f"public objects missing from docs/api/index.rst: {missing}"


def test_the_autosummary_parser_sees_the_entries():
    rst = ".. currentmodule:: m\n\nText\n\n.. autosummary::\n   :toctree: g\n\n   a\n   B\n\nx\n"
    assert _autosummary_entries(rst) == {"m": {"a", "B"}}


def test_the_site_sources_cite_no_internal_file_numbers():
    sources = [p for p in DOCS.rglob("*") if p.suffix in {".md", ".rst", ".py", ".txt"}
               and "_build" not in p.parts and "auto_examples" not in p.parts
               and "generated" not in p.parts and p.name != "DESIGN.md"]
    assert sources
    found = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in sources
             for m in SEED_NUMBER.finditer(p.read_text(encoding="utf-8"))]
    assert not found, found


# ---------------------------------------------------------------- the built site


class _Links(HTMLParser):
    """Every ``href``/``src`` of a page, and every ``id`` (and old-style ``name``) in it."""

    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if value is None:
                continue
            if key in ("href", "src"):
                self.links.append(value)
            elif key == "id" or (tag == "a" and key == "name"):
                self.ids.add(value)


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    return parser


def broken_internal_links(site: Path) -> list[str]:
    """Local links of every page of ``site`` whose file, or whose ``#fragment`` in an HTML
    file, does not exist. External links (with a scheme or a host) are not followed: the
    build is offline."""
    pages = {p.resolve(): None for p in site.rglob("*.html")
             if not {"_static", "_sources"} & set(p.relative_to(site).parts)}
    broken = []
    for page in list(pages):
        for link in _parse(page).links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:")):
                continue
            target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site)}: {link}")
                continue
            if parts.fragment and target.suffix == ".html":
                if pages.get(target) is None:
                    pages[target] = _parse(target).ids
                if unquote(parts.fragment) not in pages[target]:
                    broken.append(f"{page.relative_to(site)}: {link} (no such anchor)")
    return broken


def test_the_link_checker_finds_broken_links(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "index.html").write_text(
        '<a href="sub/page.html#there">ok</a> <a href="sub/page.html#nowhere">anchor</a> '
        '<a href="missing.html">file</a> <img src="img.png"> <a href="https://x.org/y">ext</a>'
        ' <a href="#top">self</a><p id="top"></p> <a href="sub/">dir</a>')
    (tmp_path / "sub" / "page.html").write_text('<h1 id="there">x</h1><a href="../index.html">'
                                                 "up</a>")
    (tmp_path / "sub" / "index.html").write_text("<p>dir index</p>")
    assert sorted(broken_internal_links(tmp_path)) == [
        "index.html: img.png", "index.html: missing.html",
        "index.html: sub/page.html#nowhere (no such anchor)"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site, built once as the README says: ``sphinx-build -W -b html docs <out>``."""
    missing = _docs_extra_missing()
    if missing:
        pytest.skip(f"the docs extra is not installed ({missing} is missing): "
                    'pip install ".[docs]"')
    out = tmp_path_factory.mktemp("site") / "html"
    env = dict(os.environ, STABLEFS_DOCS_RUN_ALL="1", MPLBACKEND="Agg")
    if SHARED_DATA is not None:  # the Colon examples read the shared copy, never the network
        env["STABLEFS_DATA"] = os.pathsep.join([str(SHARED_DATA), str(SHARED_DATA / "rdata")])
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-E", "-b", "html", str(DOCS),
         str(out), "-d", str(out.parent / "doctrees")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    seconds = time.perf_counter() - start
    assert done.returncode == 0, (
        f"sphinx-build -W failed (exit {done.returncode}, {seconds:.0f} s):\n"
        + done.stderr[-6000:])
    print(f"\nsphinx-build -W: exit 0 in {seconds:.0f} s, "
          f"{sum(1 for _ in out.rglob('*.html'))} pages")
    return out


def test_the_site_builds_with_warnings_as_errors(site):
    pages = {p.relative_to(site).as_posix() for p in site.rglob("*.html")}
    for page in ("index.html", "getting_started.html", "user_guide/index.html",
                 "user_guide/measures.html", "auto_examples/index.html", "api/index.html",
                 "cli.html", "stability_leaderboard.html", "reproductions/index.html",
                 "changelog.html", "citing.html", "license.html",
                 "api/generated/stablefs.compare.html"):
        assert page in pages, page
    examples = sorted(p.name for p in (site / "auto_examples").glob("plot_*.html"))
    assert len(examples) >= 10, examples
    reproductions = [p for p in (site / "reproductions").glob("*.html") if p.name != "index.html"]
    assert len(reproductions) == 7, reproductions


def test_every_gallery_example_shows_a_figure(site):
    for page in sorted((site / "auto_examples").glob("plot_*.html")):
        images = [s for s in _parse(page).links
                  if f"sphx_glr_{page.stem}_" in s and s.endswith(".png") and "thumb" not in s]
        assert images, f"{page.name} shows no figure"


def test_the_built_site_has_no_broken_internal_link(site):
    assert (site / "leaderboard" / "leaderboard.html").exists()
    broken = broken_internal_links(site)
    assert not broken, "\n".join(broken[:50])


def test_no_page_cites_a_paper_by_an_internal_file_number(site):
    found = []
    for page in site.rglob("*.html"):
        text = re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8", errors="replace"))
        found += [f"{page.relative_to(site)}: {m.group(0)}" for m in SEED_NUMBER.finditer(text)]
    assert not found, found[:20]
