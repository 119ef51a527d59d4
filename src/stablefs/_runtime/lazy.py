"""Package namespaces whose public names are imported on first use (PEP 562).

``stablefs.evaluation`` and ``stablefs.stability`` re-export names from their submodules; with
plain imports in their ``__init__``, the command line's option checks (which need a few light
submodules) would wait for scikit-learn, SciPy and pandas before the first line. :func:`install`
gives such a package a module ``__getattr__`` that imports the submodule holding a name when the
name is first used, and a ``__dir__`` that lists every public name. ``from package import name``,
``package.name``, ``__all__`` and ``dir(package)`` behave as with eager imports.

A public function named like the submodule that defines it (``stablefs.evaluation.cridd``,
``stablefs.stability.nogueira``) keeps the package attribute, as it did when the ``__init__``
imported it: importing the submodule does not replace the function by the module.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Mapping, Sequence


def submodule(name: str) -> types.ModuleType:
    """The module ``name``, imported if needed, whatever its parent package's attribute of that
    name holds. Through ``__import__``, so that ``python -X importtime`` shows it (it does not
    time ``importlib.import_module``)."""
    __import__(name)
    return sys.modules[name]


def install(package: str, exports: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Make the names of ``exports`` (``{submodule: names}``) attributes of ``package`` that are
    imported on first use; returns ``{name: submodule}``.

    Any other submodule is imported when first used as an attribute (``package.runner``), as
    if the package had imported it.
    """
    module = sys.modules[package]
    where = {name: sub for sub, names in exports.items() for name in names}
    shadowed = frozenset(name for name, sub in where.items() if name == sub)

    def __getattr__(name: str):
        sub = where.get(name)
        if sub is not None:
            value = getattr(submodule(f"{package}.{sub}"), name)
            module.__dict__[name] = value  # later uses skip this function
            return value
        if not name.startswith("__"):
            try:
                return submodule(f"{package}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    public = set(where) | {sub for sub in exports if not sub.startswith("_")}

    def __dir__() -> list[str]:
        return sorted(set(module.__dict__) | public)

    module.__getattr__ = __getattr__
    module.__dir__ = __dir__
    if shadowed:
        class _Package(types.ModuleType):
            def __setattr__(self, name, value):
                # the import system binds a submodule to its parent's attribute after loading
                # it; a public function of the same name keeps that attribute
                if name in shadowed and isinstance(value, types.ModuleType):
                    return
                super().__setattr__(name, value)

        module.__class__ = _Package
    return where
