"""The papers' published numbers beside ours (``tables/published.csv``, shown first in the
report).

Every experiment writes one frame of the columns :data:`PUBLISHED_COLUMNS`: the quantity, the
paper's number (or text such as ``"not reported"``), ours, and where the paper gives it.
:class:`PublishedTable` builds it row by row; settings (the paper's sizes against the run's)
carry the suffix ``" (setting)"``. Tables the papers print as ``mean±sd`` cells are kept
verbatim in the experiment modules and read with :func:`printed_rows`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["PUBLISHED_COLUMNS", "PublishedTable", "printed_rows"]

#: the columns of ``tables/published.csv``
PUBLISHED_COLUMNS = ("quantity", "published", "ours", "source")


class PublishedTable:
    """The rows of ``tables/published.csv``, added one at a time.

    Parameters
    ----------
    source : str, optional
        The default ``source`` of the rows (e.g. ``"Han 2012, sec. 6.2"``).

    Examples
    --------
    >>> pub = PublishedTable("Han 2012, sec. 6.1")
    >>> print(*pub.setting("training sets", 500, 40).frame().iloc[0], sep=" | ")
    training sets (setting) | 500 | 40 | Han 2012, sec. 6.1
    """

    def __init__(self, source: str = "") -> None:
        self.source = source
        self.rows: list[tuple[Any, Any, Any, str]] = []

    def add(self, quantity: str, published: Any, ours: Any,
            source: str | None = None) -> PublishedTable:
        """One number of the paper beside ours."""
        self.rows.append((quantity, published, ours, self.source if source is None else source))
        return self

    def setting(self, quantity: str, published: Any, ours: Any,
                source: str | None = None) -> PublishedTable:
        """One setting of the paper beside the run's (``quantity`` gets ``" (setting)"``)."""
        return self.add(f"{quantity} (setting)", published, ours, source)

    def frame(self) -> pd.DataFrame:
        """The rows as a frame of :data:`PUBLISHED_COLUMNS`."""
        return pd.DataFrame(self.rows, columns=list(PUBLISHED_COLUMNS))


def printed_rows(text: str, sizes: Sequence[int], *, average: bool = False,
                 rename: Mapping[str, str] | None = None) -> list[tuple]:
    """The rows of a table printed as ``key|key|...|mean±sd|mean±sd|...``, one per cell.

    Parameters
    ----------
    text : str
        One line per row of the paper's table: the row's keys (data set, classifier, method,
        ...), then one ``mean±sd`` cell per entry of ``sizes``, then with ``average`` the
        printed average (a plain number).
    sizes : sequence of int
        The column each cell belongs to (e.g. the subset sizes k).
    average : bool, default False
        The line ends with the row's printed average; it becomes a row with ``k = 0`` and
        ``sd`` NaN after the row's cells.
    rename : mapping of str to str, optional
        Keys spelled otherwise in the paper (e.g. ``{"Prost": "Prostate"}``).

    Returns
    -------
    list of tuple
        ``(*keys, k, mean, sd)`` in the order of the text.
    """
    rename = dict(rename or {})
    n_cells = len(sizes) + (1 if average else 0)
    rows = []
    for line in text.strip().splitlines():
        parts = line.split("|")
        keys = tuple(rename.get(p, p) for p in parts[: len(parts) - n_cells])
        cells = parts[len(parts) - n_cells:]
        for k, cell in zip(sizes, cells[: len(sizes)], strict=True):
            mean, sd = cell.split("±")
            rows.append((*keys, k, float(mean), float(sd)))
        if average:
            rows.append((*keys, 0, float(cells[-1]), np.nan))
    return rows
