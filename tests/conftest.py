"""Shared fixtures.

Real data sets live outside the repository (``../shared/datasets`` beside the project, or the
folders named in ``STABLEFS_DATA``); tests that need them skip with a clear reason when absent.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# pytest also runs the docstrings' examples of src/stablefs (--doctest-modules, pyproject.toml).
# Tests and doctests must import the same copy of the package, or pytest stops with an import
# mismatch (after a non-editable `pip install .`, `import stablefs` would find the installed copy
# while the doctests are collected from src): both use the code of this checkout.
_SRC = str(ROOT / "src")
if _SRC in sys.path:
    sys.path.remove(_SRC)
sys.path.insert(0, _SRC)


def _shared_data_dir() -> Path | None:
    candidates = [p for p in os.environ.get("STABLEFS_DATA", "").split(os.pathsep) if p]
    candidates.append(str(ROOT.parent / "shared" / "datasets"))
    for c in candidates:
        path = Path(c)
        if (path / "MANIFEST.md").is_file() or (path / "colon.csv.gz").is_file():
            return path
    return None


SHARED_DATA = _shared_data_dir()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Folder of the shared real data sets; skips the test when it is absent."""
    if SHARED_DATA is None:
        pytest.skip("shared data sets not found: set STABLEFS_DATA=../shared/datasets")
    return SHARED_DATA


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Keep the user download cache out of the tests and point STABLEFS_DATA at the shared sets."""
    monkeypatch.setenv("STABLEFS_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))
    if SHARED_DATA is not None:
        monkeypatch.setenv("STABLEFS_DATA", str(SHARED_DATA))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "full_checks: run `stablefs compare` with its default permutation test and "
        "nested estimate (other tests run it with --permutations 0 --nested 0)")


@pytest.fixture(autouse=True)
def _cheap_compare_checks(request):
    """`stablefs compare` runs a permutation test (100 permutations) and a nested estimate
    (5 x 3) by default; tests of everything else get the comparison alone, as if they passed
    --permutations 0 --nested 0 (an explicit option still wins). Tests marked ``full_checks``
    (and tests/test_trust.py) keep the real defaults."""
    if request.node.get_closest_marker("full_checks"):
        yield
        return
    from stablefs.cli import compare

    saved = {}
    for param in compare.params:
        if param.name in ("permutations", "nested"):
            saved[param.name] = param.default
            param.default = 0 if param.name == "permutations" else "0"
    try:
        yield
    finally:
        for param in compare.params:
            if param.name in saved:
                param.default = saved[param.name]
