"""stablefs: stable feature selection for high-dimensional, small-sample data.

The package follows the data flow of ``docs/DESIGN.md``: :mod:`stablefs.datasets` →
:mod:`stablefs.selectors` (optionally wrapped by :mod:`stablefs.stabilizers`) →
:mod:`stablefs.evaluation` → :mod:`stablefs.stability` → :mod:`stablefs.report`.
"""

from stablefs._errors import StablefsError


def make_selector(spec: str, **overrides):
    """Build a selector from a method string such as ``"en-relieff(n_neighbors=5)"``.

    See :func:`stablefs.methods.make_selector` for the grammar.
    """
    from stablefs.methods import make_selector as _make

    return _make(spec, **overrides)


def __getattr__(name: str):
    """``stablefs.__version__``, from :mod:`stablefs._version` on first use."""
    if name == "__version__":
        from stablefs._version import __version__

        return __version__
    raise AttributeError(f"module 'stablefs' has no attribute {name!r}")


__all__ = ["StablefsError", "__version__", "make_selector"]
