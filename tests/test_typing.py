"""The public API's type hints (issue 32): ``mypy`` on the files and settings of
``[tool.mypy]`` in ``pyproject.toml`` (the package root, datasets, selectors, stabilizers,
stability, evaluation, comparison) reports no error, and the lazily loaded names of the
package namespaces are visible to it.

mypy runs in a subprocess with its cache in pytest's cache folder (``.pytest_cache/d/mypy``,
ignored by git; a temporary folder when pytest runs without its cache): a cold run (a fresh
checkout, CI) costs about 20-25 s of CPU, a rerun with unchanged sources under 1 s."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
import time

import pytest

from conftest import ROOT

SRC = ROOT / "src" / "stablefs"


def test_mypy_reports_no_error_in_the_public_api(request, tmp_path):
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed: pip install '.[test]' installs it")
    cache = getattr(request.config, "cache", None)
    cache_dir = cache.mkdir("mypy") if cache is not None else tmp_path / "mypy_cache"
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache_dir)],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    seconds = time.perf_counter() - t0
    lines = proc.stdout.strip().splitlines()
    assert lines, proc.stderr[-2000:]
    assert lines[-1].startswith("Success: no issues found"), "\n".join(lines[-40:])
    assert proc.returncode == 0
    print(f"mypy: {lines[-1]} ({seconds:.1f} s)")


def _exports(path) -> dict[str, str]:
    """``{name: module}`` of a lazy namespace's ``_EXPORTS`` (module names as imported)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = "stablefs." + path.parent.name
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "_EXPORTS":
            exports = ast.literal_eval(node.value)
    if all(isinstance(v, str) for v in exports.values()):   # {name: module}
        return dict(exports)
    return {name: f"{package}.{sub}" for sub, names in exports.items() for name in names}


def _typing_imports(path) -> dict[str, str]:
    """``{name: module}`` of the imports under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom):
                    out.update({a.asname or a.name: stmt.module for a in stmt.names})
    return out


@pytest.mark.parametrize("package", ["stability", "evaluation", "comparison"])
def test_type_checkers_see_every_lazily_loaded_name(package):
    """A lazy namespace imports its names on first use (``stablefs._runtime.lazy``); the same
    names, from the same modules, are imported under ``TYPE_CHECKING`` for mypy and editors,
    so that a name added to one and not to the other fails here."""
    init = SRC / package / "__init__.py"
    assert _typing_imports(init) == _exports(init)
