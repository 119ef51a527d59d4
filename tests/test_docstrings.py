"""Every public object has a numpydoc docstring with the sections that apply to it.

Public objects: the functions and classes in the ``__all__`` of :mod:`stablefs` (the main job:
``compare``, ``Comparison``, ``read_comparison``, ``annotate``, ``load``, ``make_selector``,
``StablefsError``), :mod:`stablefs.datasets`,
:mod:`stablefs.selectors`, :mod:`stablefs.stabilizers`, :mod:`stablefs.stability` and
:mod:`stablefs.evaluation` and the ``__all__`` of
:mod:`stablefs.methods` (the names ``docs/DESIGN.md`` fixes). Constants (``MEASURES``,
``CLASSIFIERS``, ...) are data, documented where they are defined, and not counted.

Which sections apply:

- a summary line: every object;
- ``Parameters``: a function that takes an argument, a class whose constructor does;
- ``Returns`` (or ``Yields``): a function not annotated ``-> None``; for an estimator (a class
  with ``fit``), ``Attributes`` (its fitted attributes); a record's fields are its Parameters;
- ``Examples``: every object (they run as doctests: ``pytest`` collects ``src/stablefs`` with
  ``--doctest-modules``);
- ``References``: every object except those in :data:`NO_REFERENCE` (plumbing that implements
  no published method: reading files, the registry, method strings).

``python tests/test_docstrings.py`` prints the counts.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

import pytest

docscrape = pytest.importorskip("numpydoc.docscrape", reason="numpydoc is not installed "
                                "(pip install '.[test]')")

PACKAGES = (
    "stablefs.datasets", "stablefs.selectors", "stablefs.stabilizers", "stablefs.stability",
    "stablefs.evaluation", "stablefs.methods",
)

#: public objects that implement no published method, so have no paper to cite: the parser
#: and the registry of the method strings
NO_REFERENCE = frozenset({
    "stablefs.StablefsError",
    "stablefs.read_comparison",
    "stablefs.methods.MethodInfo",
    "stablefs.methods.parse_method",
    "stablefs.methods.register_prefix",
    "stablefs.methods.register_selector",
})

SECTIONS = ("Summary", "Parameters", "Returns", "Examples", "References")


def public_objects() -> dict[str, object]:
    """``{qualified name: object}`` of every public function and class."""
    import stablefs

    found = {f"stablefs.{name}": getattr(stablefs, name) for name in stablefs.__all__
             if name != "__version__"}
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.isclass(obj) or callable(obj):
                found[f"{package}.{name}"] = obj
    return found


def _takes_arguments(obj) -> bool:
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return False
    names = [p for p in signature.parameters.values() if p.name not in ("self", "cls")]
    return bool(names)


def _returns_value(obj) -> bool:
    annotation = inspect.signature(obj).return_annotation
    return annotation not in (None, "None")


def _doc(obj):
    if inspect.isclass(obj):
        return docscrape.ClassDoc(obj, config={"show_class_members": False})
    return docscrape.FunctionDoc(obj)


def sections(name: str, obj) -> dict[str, bool | None]:
    """``{section: present}`` for the sections of :data:`SECTIONS`; ``None`` where one does not
    apply."""
    doc = _doc(obj)
    out: dict[str, bool | None] = {"Summary": bool(doc["Summary"])}
    out["Parameters"] = bool(doc["Parameters"]) if _takes_arguments(obj) else None
    if inspect.isclass(obj):
        out["Returns"] = bool(doc["Attributes"]) if hasattr(obj, "fit") else None
    else:
        out["Returns"] = (bool(doc["Returns"] or doc["Yields"]) if _returns_value(obj)
                          else None)
    out["Examples"] = bool("".join(doc["Examples"]).count(">>>"))
    out["References"] = None if name in NO_REFERENCE else bool("".join(doc["References"]).strip())
    return out


def counts() -> tuple[int, dict[str, tuple[int, int]], dict[str, list[str]]]:
    """The number of objects, ``{section: (present, applicable)}`` and ``{section: missing}``."""
    objects = public_objects()
    tally = {s: [0, 0] for s in SECTIONS}
    missing: dict[str, list[str]] = {s: [] for s in SECTIONS}
    for name, obj in objects.items():
        for section, present in sections(name, obj).items():
            if present is None:
                continue
            tally[section][1] += 1
            if present:
                tally[section][0] += 1
            else:
                missing[section].append(name)
    return len(objects), {s: tuple(v) for s, v in tally.items()}, missing


@pytest.mark.parametrize("section", SECTIONS)
def test_every_public_object_has(section):
    _, _, missing = counts()
    assert not missing[section], f"{len(missing[section])} without {section}: {missing[section]}"


def test_no_seed_file_numbers_in_docstrings():
    """Users read "seed" as a random seed: docstrings cite papers by author and year."""
    pattern = re.compile(r"(?i)\bseeds?[ -]00\d")
    bad = [name for name, obj in public_objects().items()
           if pattern.search(inspect.getdoc(obj) or "")]
    assert not bad, bad


def test_no_seed_file_numbers_in_source_text():
    """No docstring, help text or report string anywhere in the package names a seed file."""
    root = Path(__file__).resolve().parents[1] / "src" / "stablefs"
    pattern = re.compile(r"(?i)seeds?[ -]00\d")
    bad = [f"{path.relative_to(root)}:{i}" for path in sorted(root.rglob("*.py"))
           for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
           if pattern.search(line)]
    assert not bad, bad


if __name__ == "__main__":
    n, tally, missing = counts()
    print(f"{n} public objects")
    for section, (present, applicable) in tally.items():
        print(f"  {section:<11} {present:>4} / {applicable}")
    if "-v" in sys.argv:
        for section, names in missing.items():
            for name in names:
                print(f"missing {section}: {name}")
