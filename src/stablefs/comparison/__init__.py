"""The main job from Python: :func:`compare` and its :class:`Comparison`.

:func:`compare` does what ``stablefs compare`` does, with the same defaults, on anything
:func:`stablefs.datasets.load` reads (a file, a registry name, a synthetic spec, a
``pandas.DataFrame``, an ``anndata.AnnData``) or on ``(X, y)``. The command line is a thin
shell over it. :func:`read_comparison` reads a run folder back, :func:`annotate` writes a
comparison into an AnnData.

Names are loaded on first use, so that the command line's first line does not wait for
pandas and scikit-learn.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the names below, for type checkers (never imported here at run time)
    from stablefs.comparison._anndata import annotate as annotate
    from stablefs.comparison._compare import compare as compare
    from stablefs.comparison._options import CompareOptions as CompareOptions
    from stablefs.comparison._result import Comparison as Comparison
    from stablefs.comparison._result import Recommendation as Recommendation
    from stablefs.comparison._result import Signal as Signal
    from stablefs.comparison._result import read_comparison as read_comparison

_EXPORTS = {
    "compare": "stablefs.comparison._compare",
    "Comparison": "stablefs.comparison._result",
    "Recommendation": "stablefs.comparison._result",
    "Signal": "stablefs.comparison._result",
    "read_comparison": "stablefs.comparison._result",
    "annotate": "stablefs.comparison._anndata",
    "CompareOptions": "stablefs.comparison._options",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'stablefs.comparison' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
