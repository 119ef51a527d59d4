"""Write ``numpy.inv`` and ``anndata.inv``: intersphinx inventories for the two projects whose
``objects.inv`` has no Debian package to take it from (see ``README.md`` beside this file).

The site is built without a network, so it cannot download the inventories that intersphinx
normally fetches. This script lists the public objects of the *installed* NumPy and AnnData by
introspection and gives each the address its project's documentation uses for it (the
patterns below, those of numpy.org/doc/stable and anndata.readthedocs.io/en/stable). Rerun it
after a major version of either changes its layout::

    python docs/_intersphinx/make_inventories.py
"""

from __future__ import annotations

import inspect
import warnings
import zlib
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _write(path: Path, project: str, version: str, entries: list[tuple[str, str, str]]) -> None:
    """Sphinx inventory version 2: a header, then zlib-compressed lines
    ``name domain:role priority uri dispname``."""
    lines = sorted({f"{name} {role} 1 {uri} -" for name, role, uri in entries})
    header = (f"# Sphinx inventory version 2\n# Project: {project}\n# Version: {version}\n"
              "# The remainder of this file is compressed using zlib.\n")
    path.write_bytes(header.encode() + zlib.compress(("\n".join(lines) + "\n").encode(), 9))
    print(f"{path.name}: {len(lines)} entries ({project} {version})")


def numpy_entries() -> list[tuple[str, str, str]]:
    import numpy as np

    out = []
    gen = "reference/generated/"
    for name in dir(np):
        if name.startswith("_"):
            continue
        try:
            obj = getattr(np, name)
        except AttributeError:
            continue
        full = f"numpy.{name}"
        if inspect.ismodule(obj):
            continue
        if isinstance(obj, type):
            if issubclass(obj, np.generic):  # scalar types share one page
                out.append((full, "py:class", f"reference/arrays.scalars.html#{full}"))
            else:
                out.append((full, "py:class", f"{gen}{full}.html#{full}"))
        elif callable(obj):
            out.append((full, "py:function", f"{gen}{full}.html#{full}"))
    for name in dir(np.ndarray):
        if name.startswith("_"):
            continue
        full = f"numpy.ndarray.{name}"
        role = "py:method" if callable(getattr(np.ndarray, name)) else "py:attribute"
        out.append((full, role, f"{gen}{full}.html#{full}"))
    for name in dir(np.linalg):
        if not name.startswith("_") and inspect.isfunction(getattr(np.linalg, name)):
            full = f"numpy.linalg.{name}"
            out.append((full, "py:function", f"{gen}{full}.html#{full}"))
    rnd = "reference/random/"
    out += [
        ("numpy.random.Generator", "py:class", f"{rnd}generator.html#numpy.random.Generator"),
        ("numpy.random.default_rng", "py:function",
         f"{rnd}generator.html#numpy.random.default_rng"),
        ("numpy.random.RandomState", "py:class", f"{rnd}legacy.html#numpy.random.RandomState"),
        ("numpy.random.SeedSequence", "py:class",
         f"{rnd}bit_generators/generated/numpy.random.SeedSequence.html"
         "#numpy.random.SeedSequence"),
        ("numpy.typing.ArrayLike", "py:data", "reference/typing.html#numpy.typing.ArrayLike"),
        ("numpy.typing.NDArray", "py:data", "reference/typing.html#numpy.typing.NDArray"),
        ("array_like", "std:term", "glossary.html#term-array_like"),
        ("array", "std:term", "glossary.html#term-array"),
    ]
    for name in dir(np.random.Generator):
        if not name.startswith("_"):
            full = f"numpy.random.Generator.{name}"
            out.append((full, "py:method", f"{rnd}generated/{full}.html#{full}"))
    return out


def anndata_entries() -> list[tuple[str, str, str]]:
    import anndata as ad

    gen = "generated/"
    out = [("anndata.AnnData", "py:class", f"{gen}anndata.AnnData.html#anndata.AnnData"),
           ("anndata", "py:module", "api.html#module-anndata")]
    for name in dir(ad.AnnData):
        if name.startswith("_"):
            continue
        full = f"anndata.AnnData.{name}"
        attr = inspect.getattr_static(ad.AnnData, name)
        role = "py:method" if inspect.isfunction(attr) else "py:attribute"
        out.append((full, role, f"{gen}{full}.html#{full}"))
    io = getattr(ad, "io", None)
    for name in dir(io) if io is not None else []:
        if name.startswith(("read_", "write_")) and callable(getattr(io, name)):
            full = f"anndata.io.{name}"
            out.append((full, "py:function", f"{gen}{full}.html#{full}"))
            with warnings.catch_warnings():  # the older top-level names: the same pages
                warnings.simplefilter("ignore", FutureWarning)
                older = hasattr(ad, name)
            if older:
                out.append((f"anndata.{name}", "py:function", f"{gen}{full}.html#{full}"))
    return out


def main() -> None:
    def minor(package: str) -> str:
        return ".".join(version(package).split(".")[:2])

    _write(HERE / "numpy.inv", "NumPy", minor("numpy"), numpy_entries())
    _write(HERE / "anndata.inv", "anndata", minor("anndata"), anndata_entries())


if __name__ == "__main__":
    main()
