"""Reproducible experiments of the papers (``stablefs reproduce NAME``, ``stablefs experiments``).

One module per experiment holds its configuration (the paper's setting as defaults, and a
``--quick`` one), the paper's published numbers as data, and the checks of the paper's claims;
the shared layer (:mod:`._base`, :mod:`._montecarlo`, :mod:`._stats`, :mod:`._output`,
:mod:`._run`) runs them, seeded and in parallel, and writes ``claims.csv``, ``tables/*.csv``,
``figures/*.png|svg``, ``report.md``, ``report.html`` and ``run.json``.

This package composes the layers below it (datasets, selectors, stabilizers, evaluation,
stability, report); nothing imports it but the command line.
"""

from __future__ import annotations

import difflib

from stablefs._errors import StablefsError
from stablefs.experiments._base import Claim, Experiment, FigureSpec, Outcome
from stablefs.experiments._run import RunSummary, reproduce
from stablefs.experiments.han2012_synthetic import Han2012Synthetic

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

#: the registry: command-line name -> experiment
EXPERIMENTS: dict[str, Experiment] = {e.name: e for e in (Han2012Synthetic(),)}


def get_experiment(name: str) -> Experiment:
    """The experiment registered as ``name``; an unknown name lists the close matches."""
    key = str(name).strip().lower()
    if key in EXPERIMENTS:
        return EXPERIMENTS[key]
    close = difflib.get_close_matches(key, list(EXPERIMENTS), n=3, cutoff=0.4)
    hint = (f"did you mean {', '.join(close)}?" if close
            else f"available: {', '.join(sorted(EXPERIMENTS))}.")
    raise StablefsError(f"unknown experiment {str(name)!r}: {hint} (see 'stablefs experiments')")
