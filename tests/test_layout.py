"""The layout shows the architecture (``docs/DESIGN.md``, "Package layout"): no import cycles
anywhere in ``src/``, and every package imports only the layers below it.

The graph is read from the source with :mod:`ast`: every ``import`` and ``from ... import``,
at module level or inside a function (a lazy import is a dependency too; only imports under
``if TYPE_CHECKING:`` are left out), each resolved to the module it names (``from a.b import c``
is ``a.b.c`` when that is a module, else ``a.b``)."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

SRC = ROOT / "src"

#: the layers, bottom first: a module may import its own layer and the layers below it
LAYERS = [
    {"stablefs._errors", "stablefs._version", "stablefs._validation", "stablefs._runtime"},
    {"stablefs.datasets", "stablefs.stability"},
    {"stablefs.selectors"},
    {"stablefs.methods", "stablefs.stabilizers"},
    {"stablefs.report", "stablefs.evaluation"},
    {"stablefs.comparison"},
    {"stablefs.experiments"},
    {"stablefs.cli", "stablefs.__main__"},
]


def _modules() -> dict[str, Path]:
    out = {}
    for path in (SRC / "stablefs").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for stmt in ast.walk(tree) if isinstance(stmt, ast.If)
                   and ast.unparse(stmt.test).endswith("TYPE_CHECKING")
                   for n in ast.walk(stmt)}
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue  # for type checkers only: never imported at run time
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in modules else mod
                       for a in node.names]
        else:
            continue
        found.update(t for t in targets if t in modules and t != name)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def _layer(module: str) -> int | None:
    for i, layer in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in layer):
            return i
    return None


def test_no_import_cycles_in_src():
    assert _cycles(_graph()) == []


def test_every_package_imports_only_the_layers_below_it():
    wrong = []
    for module, targets in _graph().items():
        if module == "stablefs":
            continue  # the package's lazy names (compare, load, ...) point up by design
        mine = _layer(module)
        assert mine is not None, f"{module} is in no layer of LAYERS"
        for t in targets:
            if t != "stablefs" and _layer(t) > mine:
                wrong.append(f"{module} -> {t}")
    assert wrong == []


def test_the_root_holds_only_the_public_packages_and_a_handful_of_modules():
    root = sorted(p.name for p in (SRC / "stablefs").iterdir()
                  if p.name != "__pycache__" and not p.name.endswith(".typed"))
    modules = [n for n in root if n.endswith(".py")]
    assert modules == ["__init__.py", "__main__.py", "_errors.py", "_validation.py",
                       "_version.py", "methods.py"]


def test_each_experiment_is_a_subpackage_whose_report_imports_its_protocol():
    graph = _graph()
    experiments = [p.name for p in (SRC / "stablefs" / "experiments").iterdir()
                   if p.is_dir() and (p / "protocol.py").exists()]
    assert len(experiments) == 7
    for name in experiments:
        pkg = f"stablefs.experiments.{name}"
        assert f"{pkg}.protocol" in graph[f"{pkg}.report"]
        assert f"{pkg}.report" not in graph[f"{pkg}.protocol"]
        assert {f"{pkg}.protocol", f"{pkg}.report"} <= graph[f"{pkg}.experiment"]


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
