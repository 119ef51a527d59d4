"""The analysis half of an experiment: from the Monte-Carlo units' results to an
:class:`~._base.Outcome`, and the wall time of the run's stages.

An experiment's ``run`` computes its units (:func:`~._montecarlo.run_units`) inside the stages
of a :class:`Stopwatch`, then hands their results to a subclass of :class:`Analysis`, which
computes the tables in its constructor and answers the parts of the report: the claims (the
paper's statements and our verdicts), the tables, the figures, the published numbers beside
ours (:mod:`._published`), the notes on the readings chosen, extra sections and the summary.
:meth:`Analysis.outcome` asks for them in one fixed order, claims first, so that an analysis
whose claims draw bootstrap resamples draws them in the same order on every run.
"""

from __future__ import annotations

import abc
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pandas as pd

from stablefs.experiments._base import Claim, FigureSpec, Outcome

__all__ = ["Analysis", "Stopwatch", "mean_sd"]


def mean_sd(frame: pd.DataFrame, by: list[str], column: str, *,
            count: bool = False) -> pd.DataFrame:
    """Mean and sample standard deviation of ``column`` over the runs of each cell ``by``
    (cells in their order of appearance): the ``mean ± sd`` the papers print, e.g. Han
    (2012, Tables 7.2-7.5) over the CV repetitions or Yu, Ding and Loscalzo (2008, Table 2)
    over the folds.

    Returns
    -------
    DataFrame
        The ``by`` columns, then ``mean``, ``sd`` (and ``n``, the runs, with ``count``).
    """
    stats = {"mean": "mean", "sd": "std", **({"n": "count"} if count else {})}
    return frame.groupby(by, sort=False)[column].agg(**stats).reset_index()


class Stopwatch:
    """Wall time of the named stages of a run (``Outcome.timings``, seconds to the ms).

    Examples
    --------
    >>> clock = Stopwatch()
    >>> with clock("load"):
    ...     pass
    >>> list(clock.timings)
    ['load']
    """

    def __init__(self) -> None:
        self.timings: dict[str, float] = {}

    @contextmanager
    def __call__(self, stage: str) -> Iterator[None]:
        """Time the block as ``stage``."""
        start = time.perf_counter()
        yield
        self.timings[stage] = round(time.perf_counter() - start, 3)


class Analysis(abc.ABC):
    """Tables, figures and claims of one run, from its units' results.

    Subclasses compute their tables in ``__init__`` (anything that draws from the run's
    bootstrap stream before the claims do belongs there too) and implement :meth:`claims` and
    :meth:`tables`; the other parts of the report default to nothing.
    """

    @abc.abstractmethod
    def claims(self) -> list[Claim]:
        """One :class:`~._base.Claim` per checkable statement of the paper."""

    @abc.abstractmethod
    def tables(self) -> dict[str, pd.DataFrame]:
        """``tables/<name>.csv``; called after :meth:`claims`."""

    def figures(self) -> list[FigureSpec]:
        """The figures of the report."""
        return []

    def published(self) -> pd.DataFrame | None:
        """The paper's numbers beside ours (:class:`~._published.PublishedTable`)."""
        return None

    def notes(self) -> list[str]:
        """The readings chosen where the paper is ambiguous."""
        return []

    def sections(self) -> list[tuple[str, str]]:
        """Extra report sections (heading, paragraph)."""
        return []

    def summary(self, claims: list[Claim]) -> list[str]:
        """The first lines of the report (:func:`~._stats.claims_overview` by default)."""
        from stablefs.experiments._stats import claims_overview

        return claims_overview(claims)

    def outcome(self) -> Outcome:
        """Every part of the report, claims first."""
        claims = self.claims()
        return Outcome(tables=self.tables(), figures=self.figures(), claims=claims,
                       published=self.published(), notes=self.notes(),
                       sections=self.sections(), summary=self.summary(claims))
