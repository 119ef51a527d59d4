"""Aggregation over pairs (Han 2012, eq. 5.4) and the jackknife variances behind the intervals."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from stablefs._errors import StablefsError


def with_sections(doc: str, block: str) -> str:
    """``doc`` with ``block`` (a shared Parameters / Returns text) put where numpydoc wants it.

    Before the first of See Also, Notes, References and Examples, else at the end: the
    measures whose parameters are documented once for all (decorators of
    :mod:`~stablefs.stability.subsets` and :mod:`~stablefs.stability.somol`).
    """
    doc = doc.rstrip() + "\n"
    cuts = [doc.find(f"\n    {name}\n") for name in ("See Also", "Notes", "References",
                                                     "Examples")]
    cut = min((c for c in cuts if c >= 0), default=-1)
    return doc + block if cut < 0 else doc[:cut] + block + doc[cut:]


@dataclass(frozen=True)
class PairScores:
    """Similarity of every unordered pair i < j of m results (or of each result to a reference).

    ``values[t]`` is the similarity of results ``i[t]`` and ``j[t]``; for the reference form
    ``j`` is None and ``values[i]`` compares result i to the reference.
    """

    values: np.ndarray
    i: np.ndarray
    j: np.ndarray | None
    m: int

    @property
    def mean(self) -> float:
        return float(np.mean(self.values))

    def jackknife_variance(self) -> float:
        """Delete-one-result jackknife variance of the mean; NaN when m < 3.

        All pairs (eq. 5.4): the mean is a U-statistic of order 2 over the m results; leaving
        result l out gives U_(-l) = (T - R_l) / C(m-1, 2) with T the sum over all pairs and R_l
        the sum over the pairs that involve l, and
        v = (m-1)/m * sum_l (U_(-l) - mean_l U_(-l))^2.
        Reference form (eq. 7): the mean of m independent terms; the jackknife equals
        s^2/m (sample variance, ddof=1), defined for m >= 2.
        """
        m = self.m
        if self.j is None:
            if m < 2:
                return float("nan")
            return float(np.var(self.values, ddof=1) / m)
        if m < 3:
            return float("nan")
        total = self.values.sum()
        row = np.bincount(self.i, self.values, minlength=m) + np.bincount(
            self.j, self.values, minlength=m)
        loo = (total - row) / ((m - 1) * (m - 2) / 2)
        return float((m - 1) / m * np.sum((loo - loo.mean()) ** 2))


def pair_index(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the pairs i < j."""
    i, j = np.triu_indices(m, k=1)
    return i, j


def normal_interval(estimate: float, variance: float, alpha: float,
                    bounds: tuple[float, float] | None = None) -> tuple[float, float]:
    """estimate ± z_{1-alpha/2} sqrt(variance), clipped to ``bounds`` when given; NaN bounds
    when the variance is NaN."""
    if not np.isfinite(variance):
        return float("nan"), float("nan")
    from scipy.special import ndtri  # on first use: the command line's checks do without it

    z = ndtri(1 - alpha / 2)  # scipy.stats.norm.ppf's own function: the same bits
    half = z * np.sqrt(max(variance, 0.0))
    low, high = clip_interval(float(estimate - half), float(estimate + half), bounds)
    return float(low), float(high)


def student_interval(estimate, variance, n, alpha: float = 0.05,
                     bounds: tuple[float | None, float | None] | None = None):
    """Student-t interval ``estimate ± t_{n-1, 1-alpha/2} sqrt(variance)`` over ``n``
    independent units, clipped to ``bounds`` (the measure's range) when given.

    With the variance of a mean, s²/n, this is the textbook t-interval; with a jackknife or
    bootstrap variance of another statistic of the n units, the t-interval with that standard
    error (Efron and Tibshirani 1993, sec. 12.2), whose t quantile keeps the coverage that
    the normal one loses at 10–20 units. Scalars give floats, arrays arrays; NaN bounds where
    ``n < 2`` or the variance is NaN.
    """
    # scipy.stats.t.ppf is this function (the same bits); scipy.special is imported in a
    # tenth of the time scipy.stats takes (a second here), which a rerun that reads a finished
    # run back and prints its summary would otherwise spend on one quantile
    from scipy.special import stdtrit

    est = np.asarray(estimate, dtype=float)
    var = np.asarray(variance, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = stdtrit(n - 1, 1 - alpha / 2) * np.sqrt(np.maximum(var, 0.0))
    half = np.where((n >= 2) & np.isfinite(var), half, np.nan)
    low, high = clip_interval(est - half, est + half, bounds)
    if np.ndim(low) == 0:
        return float(low), float(high)
    return low, high


def clip_interval(low, high, bounds: tuple[float | None, float | None] | None):
    """``(low, high)`` clipped to ``bounds = (lowest, highest)`` (NaN stays NaN; either end
    may be None or ±inf for no bound)."""
    if bounds is None:
        return low, high
    lo_b = -np.inf if bounds[0] is None else float(bounds[0])
    hi_b = np.inf if bounds[1] is None else float(bounds[1])
    return np.clip(low, lo_b, hi_b), np.clip(high, lo_b, hi_b)


def jackknife_variance(statistic, n: int) -> float:
    """Delete-one jackknife variance of ``statistic(rows)`` over n results; NaN when n < 3.

    ``statistic`` takes an index array of the rows to keep.
    """
    if n < 3:
        return float("nan")
    everything = np.arange(n)
    loo = np.array([statistic(np.delete(everything, l)) for l in range(n)], dtype=float)
    return float((n - 1) / n * np.sum((loo - loo.mean()) ** 2))


def fail_pairs(measure: str, bad: np.ndarray, sizes_i, sizes_j, reason: str) -> None:
    """Raise a one-line error naming the first undefined pair."""
    t = int(np.flatnonzero(bad)[0])
    raise StablefsError(
        f"{measure} is undefined for a pair of subsets of sizes {int(np.ravel(sizes_i)[t])} and "
        f"{int(np.ravel(sizes_j)[t])}: {reason}"
    )
