r"""Selection frequencies, consensus signatures and frequency-interval counts (seed 000 sec. 7.4).

For m results, feature f's selection count is F_f = |{i : f ∈ S_i}| and its selection
frequency F_f / m. A *consensus* gene is one "represented in more than 50 % of all gene
signatures" (seed 000 sec. 7.4), i.e. F_f / m > threshold (strictly). Table 7.6 of seed 000
reports, per method, the number of genes selected at least once ([1, 100]) and the numbers
with frequency in (50, 100] and (85, 100] — :func:`frequency_intervals`; Figs. 7.7–7.8 plot
how many genes occur in at least c of the m signatures — :func:`frequency_curve`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from stablefs._errors import StablefsError
from stablefs.stability._inputs import as_subsets

__all__ = ["consensus", "frequency_curve", "frequency_intervals", "selection_frequency"]


def selection_frequency(subsets, n_features=None, *, counts: bool = False) -> np.ndarray:
    """Selection frequency of every feature, F_f / m (or the counts F_f).

    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
    n_features : int, optional
        p; required for index collections.
    counts : bool
        Return the integer counts F_f instead of the fractions.

    Returns
    -------
    ndarray of shape (p,)
        Values in [0, 1] (or 0..m); features never selected are 0. m ≥ 1.
    """
    data = as_subsets(subsets, n_features)
    F = data.counts()
    return F if counts else F / data.m


def _check_threshold(threshold) -> float:
    t = float(threshold)
    if not 0.0 <= t < 1.0:
        raise StablefsError(
            f"threshold = {threshold!r} must lie in [0, 1): a feature is kept when its "
            "selection frequency is strictly above it."
        )
    return t


def consensus(subsets, threshold: float = 0.5, n_features=None) -> np.ndarray:
    """Consensus signature: features selected in more than ``threshold`` of the results.

    Seed 000 sec. 7.4: a consensus gene is represented in *more than* 50 % of the signatures
    (strict inequality; with m = 100, 51 signatures or more).

    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
    threshold : float
        In [0, 1); 0 returns every feature selected at least once.
    n_features : int, optional
        p; required for index collections.

    Returns
    -------
    ndarray of int
        Feature indices, most frequent first (ties by lower index); possibly empty.
    """
    t = _check_threshold(threshold)
    data = as_subsets(subsets, n_features)
    F = data.counts()
    keep = np.flatnonzero(t * data.m < F)
    return keep[np.argsort(-F[keep], kind="stable")]


def frequency_intervals(subsets, n_features=None, thresholds=(0.0, 0.5, 0.85)) -> pd.Series:
    """Number of features whose selection frequency exceeds each threshold (seed 000 Table 7.6).

    For m = 100 and the default thresholds the entries are the Table 7.6 columns
    ``[1,100]`` (selected at least once), ``(50,100]`` and ``(85,100]``; labels are written
    in counts out of m.

    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
    n_features : int, optional
    thresholds : sequence of float in [0, 1)

    Returns
    -------
    pandas.Series
        Integer counts indexed by the interval labels.
    """
    data = as_subsets(subsets, n_features)
    F = data.counts()
    m = data.m
    labels, values = [], []
    for thr in thresholds:
        t = _check_threshold(thr)
        lo = t * m
        labels.append(f"[1,{m}]" if t == 0 else f"({lo:g},{m}]")
        values.append(int(np.sum(lo < F)))
    return pd.Series(values, index=labels, name="n_features", dtype=np.int64)


def frequency_curve(subsets, n_features=None) -> pd.Series:
    """How many features occur in at least c of the m results, c = 1..m (seed 000 Figs. 7.7–7.8).

    The area under this curve is Σ_i |S_i| (for m signatures of size k: m·k, the area under
    the perfect-stability curve, which is k for every c).

    Returns
    -------
    pandas.Series
        Indexed by c = 1..m.
    """
    data = as_subsets(subsets, n_features)
    F = data.counts()
    m = data.m
    hist = np.bincount(F, minlength=m + 1)
    at_least = np.cumsum(hist[::-1])[::-1][1:]
    return pd.Series(at_least.astype(np.int64), index=pd.RangeIndex(1, m + 1, name="c"),
                     name="n_features")
