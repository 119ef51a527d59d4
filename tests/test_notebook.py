"""The notebook of ``docs/notebooks``: the README's Colon comparison from Python, executed as a
user would run it, with its figures inline; the folder it saves equals the command line's for
the same configuration."""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

NOTEBOOK = ROOT / "docs" / "notebooks" / "colon_comparison.ipynb"
COLON = ["colon", "-m", "relieff,iw-relieff,en-relieff,svm-rfe,iw-svm-rfe", "-k", "10:50:10",
         "--repeats", "20"]


@pytest.mark.full_checks
@pytest.mark.slow
def test_the_colon_notebook_runs_and_saves_the_cli_folder(shared_data, tmp_path):
    nbformat = pytest.importorskip("nbformat", reason="the notebook test needs nbformat")
    nbclient = pytest.importorskip("nbclient", reason="the notebook test needs nbclient")
    pytest.importorskip("ipykernel", reason="the notebook test needs ipykernel")
    work = tmp_path / "nb"
    work.mkdir()
    shutil.copy(NOTEBOOK, work / NOTEBOOK.name)
    nb = nbformat.read(work / NOTEBOOK.name, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=1200, kernel_name="python3",
                                     resources={"metadata": {"path": str(work)}})
    # the command line's run of the same configuration, beside the notebook's (two cores)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])}
    cli = subprocess.Popen([sys.executable, "-m", "stablefs", "compare", *COLON, "--out",
                            str(tmp_path / "cli"), "--no-progress"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        client.execute()  # a cell that raises fails the test here, with its traceback
    finally:
        _, err = cli.communicate(timeout=1800)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    pngs = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(pngs) >= 3  # the three figures, inline
    text = "\n".join(o.get("text", "") + o.get("data", {}).get("text/plain", "")
                     for o in outputs)
    assert "Recommended:" in text or "No evidence of signal" in text
    assert "evidence of signal" in text or "no evidence of signal" in text  # the signal test
    html = [o for o in outputs if "text/html" in o.get("data", {})]
    assert html and "<table>" in html[0]["data"]["text/html"]
    saved = work / "stablefs-colon-notebook"
    assert (saved / "report.html").is_file()
    assert cli.returncode == 0, err
    for name in ("stability.csv", "frequencies.csv", "signature.csv", "permutation.csv",
                 "nested.csv"):
        assert filecmp.cmp(saved / name, tmp_path / "cli" / name, shallow=False), name
