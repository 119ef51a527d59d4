"""Start-up: ``stablefs compare`` checks every option and prints its first line with NumPy alone
(scikit-learn, SciPy, pandas and Numba come with the work), and the lazily filled package
namespaces (:mod:`stablefs._runtime.lazy`) hold the same names as eager imports did."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

HEAVY = ("sklearn", "scipy", "numba", "pandas", "joblib")

# runs compare in a fresh interpreter; at its first stderr line, prints that line and the heavy
# modules already imported, then ends the process on the spot
FIRST_LINE = """
import json, os, sys
import click

def first_line(message=None, *args, **kwargs):
    heavy = [m for m in {heavy!r} if m in sys.modules]
    print(json.dumps([str(message).splitlines()[0], heavy]), flush=True)
    os._exit(0)

click.echo = first_line
from stablefs.cli import main
main({args!r})
print(json.dumps(["no first line", []]), flush=True)
"""


def _first_line(args: list[str]) -> tuple[str, list[str]]:
    code = FIRST_LINE.format(heavy=HEAVY, args=args)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    line, heavy = json.loads(out.stdout.strip().splitlines()[-1])
    return line, heavy


def test_compare_prints_its_first_line_before_importing_the_heavy_libraries(tmp_path):
    """The README's command on the default data, after every option check (the checks refuse
    bad input in one line before any work: tests/test_cli_validation.py)."""
    out = tmp_path / "run"
    line, heavy = _first_line(["compare", "--out", str(out)])
    assert line.startswith("Dataset('synthetic:han2012', 100 samples x 1000 features")
    assert heavy == []
    assert not out.exists()


def test_compare_from_a_file_adds_only_pandas_before_its_first_line(tmp_path):
    import numpy as np

    rng = np.random.default_rng(0)
    rows = ["label," + ",".join(f"g{j}" for j in range(20))]
    rows += [f"{'ab'[i % 2]}," + ",".join(f"{v:.3f}" for v in rng.normal(size=20))
             for i in range(24)]
    data = tmp_path / "toy.csv"
    data.write_text("\n".join(rows) + "\n")
    line, heavy = _first_line(["compare", str(data), "-m", "relieff,en-ttest,stabsel-ttest",
                               "-k", "5,10", "--classifiers", "svm,3nn,lda",
                               "--stability", "kuncheva,nogueira,npogr",
                               "--out", str(tmp_path / "run")])
    assert line.startswith("Dataset('toy'"), line
    assert heavy == ["pandas"]


def test_a_rerun_reads_the_finished_run_back_without_scipy_stats(tmp_path):
    """The same command again reuses the finished run and prints its summary: that needs
    neither scikit-learn nor ``scipy.stats`` (whose import alone took a second, for the t
    quantile of the intervals: ``scipy.special.stdtrit`` gives it, tests/test_quantiles.py)."""
    args = ["compare", "synthetic:han2012?n_samples=40", "-m", "relieff", "-k", "5",
            "--repeats", "3", "--permutations", "0", "--nested", "0", "--no-report",
            "--out", str(tmp_path / "run")]
    code = ("import sys; from stablefs.cli._app import main; code = main({args!r}); "
            "print(code, [m for m in ('scipy.stats', 'sklearn') if m in sys.modules])")
    runs = [subprocess.run([sys.executable, "-c", code.format(args=args)], capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    first, again = (run.stdout.strip().splitlines()[-1] for run in runs)
    assert first.startswith("0 "), runs[0].stderr
    assert "holds this finished run" in runs[1].stderr
    assert again == "0 []", runs[1].stderr


@pytest.mark.parametrize("package", ["stablefs.evaluation", "stablefs.stability"])
def test_lazy_namespace_holds_every_public_name(package):
    pkg = importlib.import_module(package)
    where = {name: sub for sub, names in pkg._EXPORTS.items() for name in names}
    assert sorted(where) == sorted(pkg.__all__)
    assert set(pkg.__all__) <= set(dir(pkg))
    for name, sub in where.items():
        __import__(f"{package}.{sub}")
        module = sys.modules[f"{package}.{sub}"]
        assert getattr(pkg, name) is getattr(module, name), name
    namespace: dict = {}
    exec(f"from {package} import *", namespace)
    assert set(pkg.__all__) <= set(namespace)
    with pytest.raises(AttributeError):
        pkg.no_such_name  # noqa: B018
    with pytest.raises(ImportError):
        exec(f"from {package} import no_such_name", {})


# a function named like its submodule stays the package's attribute whichever is imported
# first, as with eager imports
SHADOWED = """
import sys, types
{first}
import stablefs.evaluation as ev, stablefs.stability as st
from stablefs.evaluation import cridd, bias_variance
from stablefs.stability import nogueira, somol
import stablefs.evaluation.cridd, stablefs.stability.nogueira
objs = [cridd, bias_variance, nogueira, somol, ev.cridd, ev.bias_variance, st.nogueira, st.somol]
assert all(isinstance(o, types.FunctionType) for o in objs), objs
assert isinstance(sys.modules["stablefs.evaluation.cridd"], types.ModuleType)
print("ok")
"""


@pytest.mark.parametrize("first", [
    "",
    "import stablefs.evaluation.cridd, stablefs.stability.somol",
    "from stablefs.stability import _registry; from stablefs.evaluation import runner",
])
def test_functions_named_like_their_submodule_keep_the_name(first):
    out = subprocess.run([sys.executable, "-c", SHADOWED.format(first=first)],
                         capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == "ok", out.stderr


def test_packages_import_nothing_heavy_until_a_name_is_used():
    code = ("import sys, stablefs.evaluation, stablefs.stability; "
            "from stablefs.stability import available_measures, MEASURES; "
            "from stablefs.evaluation import Protocol, Preprocessing; "
            f"print([m for m in {HEAVY!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=300)
    assert out.stdout.strip() == "[]"


def test_the_recommendation_rule_loads_without_matplotlib():
    # a permutation test's worker unpickles the choice (stablefs.report.summary.choose_pair):
    # that must not cost it Matplotlib (0.5 s a worker), which only the figures need
    code = ("import sys; from stablefs.report.summary import choose_pair; "
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=300)
    assert out.stdout.strip() == "False"


def test_the_version_is_written_once_and_read_by_the_build():
    """``stablefs._version`` holds the version as a literal (no ``importlib.metadata`` at
    start-up); ``pyproject.toml`` takes it from there."""
    import re
    from pathlib import Path

    tomllib = pytest.importorskip("tomllib")
    import stablefs
    from stablefs._version import __version__

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "stablefs._version.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+([.-]?(a|b|rc|dev|post)\d+)?", __version__)
    assert stablefs.__version__ == __version__
