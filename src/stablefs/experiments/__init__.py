"""Reproducible experiments of the papers (``stablefs reproduce NAME``, ``stablefs experiments``).

One module per experiment holds its protocol: its configuration (the paper's setting as
defaults, and a ``--quick`` one), its Monte-Carlo units, its tables and the checks of the
paper's claims; siblings of it hold the paper's published numbers as data, experiment-specific
parts (readings, sub-studies) and the report (``<name>_report.py``: figures, notes, published
numbers beside ours). The shared layer (:mod:`._base`, :mod:`._registry`,
:mod:`._montecarlo`, :mod:`._stats`, :mod:`._claims`, :mod:`._published`, :mod:`._analysis`,
:mod:`._output`, :mod:`._run`) runs them, seeded and in parallel, and writes ``claims.csv``,
``tables/*.csv``, ``figures/*.png|svg``, ``report.md``, ``report.html`` and ``run.json``.

This package composes the layers below it (datasets, selectors, stabilizers, evaluation,
stability, report); nothing imports it but the command line.
"""

from __future__ import annotations

import importlib

__all__ = [
    "EXPERIMENTS",
    "Claim",
    "Experiment",
    "FigureSpec",
    "Outcome",
    "RunSummary",
    "get_experiment",
    "reproduce",
]

# Names are loaded on first use, so that ``stablefs --help`` and the other commands do not pay
# for NumPy, pandas and scikit-learn when they import the ``reproduce`` command.
_LAZY = {
    "Claim": "stablefs.experiments._base",
    "Experiment": "stablefs.experiments._base",
    "FigureSpec": "stablefs.experiments._base",
    "Outcome": "stablefs.experiments._base",
    "RunSummary": "stablefs.experiments._run",
    "reproduce": "stablefs.experiments._run",
    "EXPERIMENTS": "stablefs.experiments._registry",
    "get_experiment": "stablefs.experiments._registry",
}


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'stablefs.experiments' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
