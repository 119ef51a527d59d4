"""The report's one rule for "best", "tied" and "recommended".

Everywhere in the report (the summary, the bold cells of the tables, the recommendation) a
method is *best* at a k when it has the best estimate, and *tied* with the best when its
interval overlaps the best one's interval. The intervals are those of ``stability.csv``
(``low``/``high``: the jackknife t-interval over resamples,
:func:`stablefs.evaluation.statistics.stability_interval`) for stability, and for
accuracy-like metrics a Student-t interval for the mean over resamples (:func:`t_interval`).
Without intervals only exactly equal values tie.

The recommendation (:func:`recommend`) is taken from the stability–accuracy Pareto front of
the (method, k) pairs (:func:`pareto_front`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["LEVEL", "leaders", "overlaps", "pareto_front", "recommend", "t_interval"]

#: confidence level of the accuracy intervals (and the runner's default for stability)
LEVEL = 0.95


def t_interval(mean, sd, n, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Student-t interval ``mean ± t_{(1+level)/2, n-1} sd / sqrt(n)`` for a mean over ``n``
    resamples (NaN bounds when ``n < 2`` or ``sd`` is NaN).

    Resamples share training samples, so this interval treats dependent values as independent
    and is too narrow (Nadeau and Bengio 2003); the report says so. It is used only to decide
    ties, where too narrow errs towards naming a winner.
    """
    from stablefs.stability._common import student_interval

    mean = np.asarray(mean, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.asarray(sd, dtype=float) ** 2 / n
    low, high = student_interval(mean, var, n, 1 - level)
    return np.asarray(low, dtype=float), np.asarray(high, dtype=float)


def overlaps(a: tuple[float, float, float], b: tuple[float, float, float]) -> bool:
    """Whether two ``(estimate, low, high)`` intervals overlap (closed intervals).

    A missing bound is replaced by the estimate, so two values without intervals overlap only
    when equal.
    """
    def bounds(t):
        e, lo, hi = (float(x) for x in t)
        lo = lo if math.isfinite(lo) else e
        hi = hi if math.isfinite(hi) else e
        return min(lo, e), max(hi, e)

    alo, ahi = bounds(a)
    blo, bhi = bounds(b)
    return alo <= bhi and blo <= ahi


def leaders(values: Mapping[str, tuple[float, float, float]], *, higher: bool = True
            ) -> list[str]:
    """The best method and every method tied with it (overlapping intervals), best first.

    Parameters
    ----------
    values : mapping
        ``{method: (estimate, low, high)}``; entries with a NaN estimate are ignored.
    higher : bool, default True
        Whether a higher estimate is better.

    Returns
    -------
    list of str
        Empty when no estimate is finite; otherwise the best method first, then the tied ones
        in order of their estimates.
    """
    finite = {m: v for m, v in values.items() if math.isfinite(float(v[0]))}
    if not finite:
        return []
    sign = 1.0 if higher else -1.0
    order = sorted(finite, key=lambda m: -sign * float(finite[m][0]))
    best = order[0]
    return [best] + [m for m in order[1:] if overlaps(finite[m], finite[best])]


def pareto_front(stability: Sequence[float], accuracy: Sequence[float]) -> np.ndarray:
    """Indices of the points not dominated in (stability, accuracy), both higher-is-better.

    A point is dominated when another is at least as good in both and better in one. Points
    with a NaN coordinate are never on the front. Returned in order of decreasing stability.
    """
    s = np.asarray(stability, dtype=float)
    a = np.asarray(accuracy, dtype=float)
    ok = np.isfinite(s) & np.isfinite(a)
    ge = (s[None, :] >= s[:, None]) & (a[None, :] >= a[:, None])
    gt = (s[None, :] > s[:, None]) | (a[None, :] > a[:, None])
    dominated = (ge & gt & ok[None, :]).any(axis=1)
    idx = np.flatnonzero(ok & ~dominated)
    return idx[np.lexsort((-a[idx], -s[idx]))]


def recommend(points: Sequence[Mapping]) -> tuple[int | None, np.ndarray]:
    """The recommended (method, k) of the stability–accuracy Pareto front.

    Rule: among the Pareto-optimal points, those whose accuracy interval overlaps the interval
    of the most accurate point (accuracy tied with the best); of these the most stable; among
    equally stable ones the smallest k (the shorter signature).

    Parameters
    ----------
    points : sequence of mappings
        Each with ``stability``, ``accuracy``, ``acc_low``, ``acc_high``, ``k``.

    Returns
    -------
    (int or None, ndarray)
        Index of the recommended point (None when no point has both values) and the indices
        of the Pareto front.
    """
    s = np.array([float(p["stability"]) for p in points], dtype=float)
    a = np.array([float(p["accuracy"]) for p in points], dtype=float)
    front = pareto_front(s, a)
    if front.size == 0:
        return None, front
    best = max(front, key=lambda i: a[i])
    iv = [(a[i], float(points[i]["acc_low"]), float(points[i]["acc_high"])) for i in
          range(len(points))]
    tied = [i for i in front if overlaps(iv[i], iv[best])]
    pick = min(tied, key=lambda i: (-s[i], float(points[i]["k"])))
    return int(pick), front
