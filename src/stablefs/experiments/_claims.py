"""Building the claims of an experiment: verdicts judged cell by cell, and the claims' text.

Most claims of the papers are judged on many *cells* at once (every data set, subset size,
classifier...): each cell gets a verdict from a rule of :mod:`._stats` (``verdict_positive``
for "A is better than B by more than a margin", ``verdict_at_least`` / ``verdict_at_most`` for
a threshold, ``verdict_within`` for "similar"), and the claim's verdict is
:func:`~._stats.combine_verdicts` of the cells (DESIGN.md, "Verdicts"). :class:`Cells`
collects the cells' verdicts and interval ends and writes their counts; the small functions
below write the parts of the ``test`` and ``ours`` columns that every experiment shares.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

import numpy as np

from stablefs.experiments._base import Claim
from stablefs.experiments._stats import combine_verdicts, count_verdicts, fmt_fixed, tally

__all__ = [
    "Cells",
    "bootstrap_over",
    "claims_line",
    "coverage",
    "on_substitute",
    "per_name",
    "size_list",
]


class Cells:
    """The per-cell verdicts of one claim, with the ends of their intervals.

    Feed it the ``(verdict, low, high)`` triples the verdict rules of :mod:`._stats` return
    (:meth:`add`); read the claim's verdict (:attr:`verdict`, the all-cells rule of
    :func:`~._stats.combine_verdicts`), the cells counted (:meth:`count`, :meth:`counted`,
    :meth:`majority`) and the extreme interval ends (:meth:`lowest`, :meth:`highest`).

    Examples
    --------
    >>> cells = Cells()
    >>> _ = cells.add(("holds", 0.02, 0.05))
    >>> _ = cells.add(("inconclusive", -0.01, 0.04))
    >>> cells.verdict, cells.count("holds"), cells.lowest()
    ('inconclusive', 1, -0.01)
    """

    def __init__(self) -> None:
        self.verdicts: list[str] = []
        self.lows: list[float] = []
        self.highs: list[float] = []

    def add(self, judged: tuple[str, float, float]) -> tuple[str, float, float]:
        """Record one cell's ``(verdict, low, high)`` and return it unchanged."""
        verdict, low, high = judged
        self.verdicts.append(verdict)
        self.lows.append(low)
        self.highs.append(high)
        return judged

    def __len__(self) -> int:
        return len(self.verdicts)

    @property
    def verdict(self) -> str:
        """The claim's verdict: :func:`~._stats.combine_verdicts` of the cells."""
        return combine_verdicts(self.verdicts)

    def count(self, verdict: str) -> int:
        """The cells with ``verdict``."""
        return self.verdicts.count(verdict)

    def counted(self) -> str:
        """``"of 12: 10 holds, 2 inconclusive"``."""
        return f"of {len(self.verdicts)}: " + count_verdicts(self.verdicts)

    def majority(self, empty: str = "no cases") -> str:
        """The majority-rule reading beside the all-cells verdict (:func:`~._stats.tally`),
        or ``empty`` when there are no cells."""
        return tally(self.verdicts) if self.verdicts else empty

    def lowest(self) -> float:
        """The smallest lower end (NaN without cells)."""
        return min(self.lows) if self.lows else np.nan

    def highest(self) -> float:
        """The largest upper end (NaN without cells)."""
        return max(self.highs) if self.highs else np.nan


def coverage(alpha: float) -> str:
    """The intervals' coverage as text: ``"95 %"`` for ``alpha = 0.05``."""
    return f"{100 * (1 - alpha):g} %"


def bootstrap_over(runs: int, n_bootstrap: int, units: str = "training sets") -> str:
    """``"paired bootstrap over the 500 training sets (2000 resamples)"``: the resampling
    behind a paired comparison, for a claim's ``test``."""
    return f"paired bootstrap over the {runs} {units} ({n_bootstrap} resamples)"


def claims_line(claims: Iterable[Claim]) -> str:
    """``"2a holds, 2b inconclusive"``: every claim's id and verdict, for a summary."""
    return ", ".join(f"{c.id} {c.verdict}" for c in claims)


def size_list(ks: Iterable[int]) -> str:
    """A grid of sizes for a claim's text: all of up to eight, else ``"4, 6, ..., 50"``."""
    ks = list(ks)
    if len(ks) <= 8:
        return ", ".join(map(str, ks))
    return f"{ks[0]}, {ks[1]}, ..., {ks[-1]}"


def per_name(names: Sequence[str], values: Sequence[float], digits: int = 3) -> str:
    """``"colon 0.912, srbct 0.871"`` (fixed decimals, :func:`~._stats.fmt_fixed`), or
    ``"none"``."""
    return ", ".join(f"{n} {fmt_fixed(v, digits)}" for n, v in zip(names, values)) or "none"


def on_substitute(claim: Claim, substitute: str) -> Claim:
    """A claim judged on a substitute method or data set (e.g. one whose code is not public):
    its verdict becomes ``"not testable"`` (DESIGN.md, "Verdicts"), and the substitute's own
    verdict is kept at the end of the ``test`` column.

    Parameters
    ----------
    claim : Claim
        The claim as judged on the substitute.
    substitute : str
        What stands for what, e.g. ``"IW-L2LW for VR-Lmba"``.
    """
    return dataclasses.replace(
        claim, verdict="not testable",
        test=f"{claim.test}. Judged on a substitute ({substitute}), so not testable; "
             f"the substitute's verdict: {claim.verdict}")
