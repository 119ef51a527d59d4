"""report.html renders in headless Chromium without console messages.

Skips with its reason when Chromium is not installed (Debian: ``apt-get install chromium``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from stablefs.report import write_report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None,
                                reason="headless Chromium not installed (apt-get install "
                                       "chromium)")
CONSOLE = re.compile(r"CONSOLE[:(]|Uncaught|Failed to load resource")


def _chromium(page: Path, profile: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--no-first-run", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
           *extra, page.resolve().as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def _console_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if CONSOLE.search(line)]


def _frames():
    rng = np.random.default_rng(0)
    methods, sizes = ["relieff", "ttest", "a<b>&c"], [5, 10]
    res, stab, freq = [], [], []
    for i, m in enumerate(methods):
        for r in range(4):
            res.append((m, 0, r, "fit_time", 0.01 * (i + 1)))
            for k in sizes:
                acc = min(1.0, 0.97 + 0.01 * i + rng.normal(0, 0.005))
                res.append((m, k, r, "accuracy_svm", acc))
        for k in sizes:
            est = 0.4 + 0.1 * i
            stab.append((m, k, "kuncheva", est, est - 0.05, est + 0.05))
            for j in range(3 * k):
                freq.append((m, k, f"G{j}", max(0.25, 1 - j / (2 * k))))
    return (pd.DataFrame(res, columns=["method", "k", "resample", "metric", "value"]),
            pd.DataFrame(stab, columns=["method", "k", "measure", "estimate", "low", "high"]),
            pd.DataFrame(freq, columns=["method", "k", "feature", "frequency"]))


def test_console_errors_are_detected(tmp_path):
    """The check can fail: a page that logs an error is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><body><p>x</p><script>console.error("boom")'
                   "</script></body></html>", encoding="utf-8")
    run = _chromium(bad, tmp_path / "profile", "--dump-dom")
    assert any("boom" in line for line in _console_lines(run.stderr)), run.stderr[-2000:]


def test_report_renders_without_console_errors(tmp_path):
    results, stability, frequencies = _frames()
    paths = write_report(tmp_path / "run", run_info={"data": "toy", "methods": None,
                                                     "command": "stablefs compare toy"},
                         results=results, stability=stability, frequencies=frequencies,
                         svg=False)
    run = _chromium(paths["report.html"], tmp_path / "profile", "--dump-dom")
    assert run.returncode == 0, run.stderr[-2000:]
    assert _console_lines(run.stderr) == []
    dom = run.stdout
    assert "<h2" in dom and "Summary" in dom and "Recommended:" in dom
    assert dom.count("<img") == len(paths["figures"])
    assert "<details" in dom and "a&lt;b&gt;&amp;c" in dom
    shot = tmp_path / "shot.png"
    run = _chromium(paths["report.html"], tmp_path / "profile2", "--hide-scrollbars",
                    "--window-size=1200,3000", f"--screenshot={shot}")
    assert _console_lines(run.stderr) == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
