"""leaderboard.html in headless Chromium: no console errors, figures load, sorting by a click
on a column head and the k filter work.

A copy of the page gets a script appended that clicks like a reader and writes what it sees
into the page; ``--dump-dom`` then returns it. Skips with its reason when Chromium is not
installed (Debian: ``apt-get install chromium``).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None,
                                reason="headless Chromium not installed (apt-get install "
                                       "chromium)")
pytest.importorskip("scikit_posthocs", reason="the optional extra stablefs[benchmark]")
pytest.importorskip("baycomp", reason="the optional extra stablefs[benchmark]")
CONSOLE = re.compile(r"CONSOLE[:(]|Uncaught|Failed to load resource")

SETS = ["s1", "s2", "s3", "s4"]
METHODS = ["ttest", "relieff", "a<b>&c"]


def _chromium(page: Path, profile: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--no-first-run", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
           "--virtual-time-budget=5000", *extra, page.resolve().as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def _tables():
    """Cells of 4 sets x 3 methods x k = 5, 10 with known stabilities."""
    rng = np.random.default_rng(0)
    rows = []
    stab = {"ttest": 0.8, "relieff": 0.6, "a<b>&c": 0.4}
    for si, s in enumerate(SETS):
        for m in METHODS:
            for k in (5, 10):
                st = stab[m] - 0.01 * si + 0.001 * k
                rows.append((s, m, k, "nogueira", st, st - 0.05, st + 0.05))
                for clf in ("svm", "1nn"):
                    acc = 0.8 + 0.02 * rng.normal()
                    rows.append((s, m, k, f"balanced_accuracy_{clf}", acc, acc - 0.1,
                                 min(1.0, acc + 0.1)))
    cells = pd.DataFrame(rows, columns=["set", "method", "k", "measure", "estimate", "low",
                                        "high"])
    sets = pd.DataFrame({
        "set": SETS + ["gone"], "label": [f"{s} (alias)" for s in SETS] + ["gone"],
        "source": SETS + ["gone"], "n_samples": [30] * 5, "n_features": [100] * 5,
        "classes": ["a 15, b 15"] * 5,
        "status": ["included"] * 4 + ["excluded"],
        "reason": [""] * 4 + ["a class has too few samples"],
        "prefilter": [None] * 5, "sizes": ["5;10"] * 5, "log2": [""] * 5,
        "methods_left_out": [""] * 5, "chance_balanced_accuracy": [0.5] * 5,
        "majority_accuracy": [0.5] * 5, "preparation": ["no pre-filter"] * 5})
    timing = pd.DataFrame([(s, m, 0.01 * (i + 1), 0.02) for s in SETS
                           for i, m in enumerate(METHODS)],
                          columns=["set", "method", "fit_time", "pilot_seconds"])
    return cells, sets, timing


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    from stablefs.evaluation.ranks import nemenyi_pvalues, rank_tables
    from stablefs.report.leaderboard import write_leaderboard

    out = tmp_path_factory.mktemp("lb")
    cells, sets, timing = _tables()
    measures = ["nogueira", "balanced_accuracy_svm", "balanced_accuracy_1nn"]
    ranks, friedman = rank_tables(cells, measures)
    paths = write_leaderboard(out, cells=cells, ranks=ranks, friedman=friedman,
                              sets_table=sets, timing=timing,
                              run_info={"protocol": "15 random stratified splits",
                                        "classifiers": ["svm", "1nn"], "seed": 0,
                                        "command": "stablefs benchmark a.csv"},
                              methods=METHODS, measures=measures,
                              pairwise_pvalues=nemenyi_pvalues,
                              links={s: f"cells/{s}/report.html" for s in SETS}, svg=False)
    return paths


SELFTEST = r"""
<script>
window.addEventListener("load", function () {
  var out = {};
  var imgs = Array.prototype.slice.call(document.images);
  out.images = imgs.length;
  out.loaded = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  var t = document.getElementById("table-cells");
  function visible() {
    return Array.prototype.filter.call(t.tBodies[0].rows, function (r) { return !r.hidden; });
  }
  function column(i) { return visible().map(function (r) { return r.cells[i].textContent; }); }
  out.visibleAtStart = visible().length;
  var ov = document.getElementById("table-overall");
  out.overallFirst = Array.prototype.filter.call(ov.tBodies[0].rows, function (r) {
    return !r.hidden; }).map(function (r) { return r.cells[0].textContent; });
  out.ks = column(2).filter(function (v, i, a) { return a.indexOf(v) === i; });
  var heads = t.tHead.rows[0].cells;
  heads[3].click();                       // stability: first click sorts descending
  out.sortFirst = heads[3].getAttribute("aria-sort");
  out.methodsDesc = column(1).slice(0, 4);
  out.valuesDesc = visible().map(function (r) { return Number(r.cells[3].dataset.value); });
  heads[3].click();                       // second click: ascending
  out.sortSecond = heads[3].getAttribute("aria-sort");
  out.methodsAsc = column(1).slice(0, 4);
  heads[0].click();                       // text column: ascending first
  out.setsAsc = column(0);
  var sel = document.querySelector('select[data-table="table-cells"]');
  sel.value = "all";
  sel.dispatchEvent(new Event("change"));
  out.visibleAll = visible().length;
  var links = t.querySelectorAll("a[href]");
  out.link = links.length ? links[0].getAttribute("href") : null;
  var pre = document.createElement("pre");
  pre.id = "selftest";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
"""


def _selftest(page_path: Path, tmp_path: Path) -> dict:
    html = page_path.read_text(encoding="utf-8")
    probe = tmp_path / "probe.html"
    probe.write_text(html.replace("</body>", SELFTEST + "</body>"), encoding="utf-8")
    run = _chromium(probe, tmp_path / "profile", "--dump-dom")
    assert run.returncode == 0, run.stderr[-2000:]
    assert [ln for ln in run.stderr.splitlines() if CONSOLE.search(ln)] == []
    found = re.search(r'<pre id="selftest">(.*?)</pre>', run.stdout, flags=re.S)
    assert found, "the self-test did not run"
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&")
                      .replace("&lt;", "<").replace("&gt;", ">"))


def test_console_errors_are_detected(tmp_path):
    """The check can fail: a page whose script throws is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><body><script>null.x = 1;</script></body></html>",
                   encoding="utf-8")
    run = _chromium(bad, tmp_path / "profile", "--dump-dom")
    assert any(CONSOLE.search(ln) for ln in run.stderr.splitlines()), run.stderr[-2000:]


def test_page_sorts_filters_and_loads_figures(page, tmp_path):
    path = page["leaderboard.html"]
    html = path.read_text(encoding="utf-8")
    assert "http://" not in html and "https://" not in html  # self-contained
    assert "a&lt;b&gt;&amp;c" in html and "a<b>&c" not in html.split("<script>")[0]
    got = _selftest(path, tmp_path)
    # every figure (CD diagrams at both k, planes at both k) is embedded and decodes
    assert got["images"] == len([p for p in page["figures"] if p.suffix == ".png"]) == 8
    assert got["loaded"] == got["images"]
    # the k filter starts at the headline k (10 of 5, 10): 4 sets x 3 methods rows
    assert got["visibleAtStart"] == 12 and got["ks"] == ["10"]
    # the overall ranking at k = 10, best stability first
    assert got["overallFirst"] == ["ttest", "relieff", "a<b>&c"]
    assert got["sortFirst"] == "descending" and got["sortSecond"] == "ascending"
    assert got["methodsDesc"] == ["ttest"] * 4 and got["methodsAsc"] == ["a<b>&c"] * 4
    assert got["valuesDesc"] == sorted(got["valuesDesc"], reverse=True)
    assert got["setsAsc"] == sorted(got["setsAsc"])
    assert got["visibleAll"] == 24
    assert got["link"] == "cells/s1/report.html" or got["link"].startswith("cells/")


def test_page_screenshot_is_drawn(page, tmp_path):
    shot = tmp_path / "shot.png"
    run = _chromium(page["leaderboard.html"], tmp_path / "profile", "--hide-scrollbars",
                    "--window-size=1400,2400", f"--screenshot={shot}")
    assert [ln for ln in run.stderr.splitlines() if CONSOLE.search(ln)] == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 50_000
