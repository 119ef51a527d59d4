r"""Selection frequencies, consensus signatures and frequency-interval counts (Han 2012, sec. 7.4).

For m results, feature f's selection count is F_f = |{i : f ∈ S_i}| and its selection
frequency F_f / m.

**Consensus** (one definition everywhere in stablefs): a feature is a consensus feature when
its selection frequency is *strictly above* the threshold, F_f / m > threshold, with the
default threshold 0.5 (:data:`CONSENSUS_THRESHOLD`). This is Han (2012, sec. 7.4):
a consensus gene is "represented in more than 50 % of all gene signatures", and Table 7.6
counts the genes with frequency in (50, 100] and (85, 100] — half-open intervals, so a gene
in exactly 50 of 100 signatures is not a consensus gene. :func:`in_consensus` applies the
rule to frequencies already computed (e.g. ``frequencies.csv``).

Table 7.6 reports, per method, the number of genes selected at least once ([1, 100]) and the
numbers with frequency in (50, 100] and (85, 100] — :func:`frequency_intervals`;
Figs. 7.7–7.8 plot how many genes occur in at least c of the m signatures —
:func:`frequency_curve`.

Every function accepts subsets given as feature names together with ``feature_names=`` (see
:mod:`stablefs.stability._inputs`); :func:`selection_frequency` then returns a Series
indexed by the names and :func:`consensus` returns the names.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from stablefs._errors import StablefsError
from stablefs.stability._inputs import as_subsets, check_feature_names, plain

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike, NDArray

    from stablefs.stability._inputs import FeatureNames, Subsets

__all__ = [
    "CONSENSUS_THRESHOLD",
    "consensus",
    "frequency_curve",
    "frequency_intervals",
    "in_consensus",
    "selection_frequency",
]

#: Default consensus threshold: a consensus feature is selected in *more than* this share of
#: the results (Han 2012, sec. 7.4: "more than 50 % of all gene signatures").
CONSENSUS_THRESHOLD = 0.5


def _data(subsets, n_features, feature_names):
    names = check_feature_names(feature_names, n_features)
    return as_subsets(subsets, n_features, feature_names=names), names


def selection_frequency(subsets: Subsets, n_features: int | None = None, *, counts: bool = False,
                        feature_names: FeatureNames | None = None) -> np.ndarray | pd.Series:
    """Compute the selection frequency of every feature, F_f / m (or the counts F_f).

    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        Or collections of feature names, with ``feature_names``.
    n_features : int, optional
        p; required for index collections (not with ``feature_names``).
    counts : bool
        Return the integer counts F_f instead of the fractions.
    feature_names : sequence of str, optional
        The p column names, in order.

    Returns
    -------
    ndarray of shape (p,), or pandas.Series indexed by ``feature_names``
        Values in [0, 1] (or 0..m); features never selected are 0. m ≥ 1. With
        ``feature_names`` a Series named ``"frequency"`` (or ``"count"``) whose index (named
        ``"feature"``) is ``feature_names`` in their order.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 7.4 and Table 7.6.

    Examples
    --------
    >>> from stablefs.stability import selection_frequency
    >>> subsets = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [0, 1, 2]]
    >>> selection_frequency(subsets, n_features=6).tolist()
    [1.0, 0.75, 0.75, 0.5, 0.0, 0.0]
    >>> selection_frequency([["TP53", "MYC"], ["TP53", "EGFR"]],
    ...                     feature_names=["TP53", "MYC", "EGFR", "KRAS"]).to_dict()
    {'TP53': 1.0, 'MYC': 0.5, 'EGFR': 0.5, 'KRAS': 0.0}
    """
    data, names = _data(subsets, n_features, feature_names)
    F = data.counts()
    values = F if counts else F / data.m
    if names is None:
        return values
    return pd.Series(values, index=pd.Index(names, name="feature"),
                     name="count" if counts else "frequency")


def _check_threshold(threshold) -> float:
    if isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, numbers.Real):
        raise StablefsError(
            f"threshold = {plain(threshold)} must be a number in [0, 1), e.g. 0.5."
        )
    t = float(threshold)
    if not 0.0 <= t < 1.0:
        raise StablefsError(
            f"threshold = {plain(threshold)} must lie in [0, 1): a feature is kept when its "
            "selection frequency is strictly above it."
        )
    return t


def in_consensus(frequency: ArrayLike, threshold: float = CONSENSUS_THRESHOLD) -> NDArray[np.bool_]:
    """Tell which features are consensus features, given their selection frequencies.

    The one rule of this package: ``frequency > threshold`` (strictly; Han 2012, sec. 7.4).
    Frequencies computed as ``F_f / m`` compare exactly with a decimal threshold such as
    0.85 (``85 / 100`` and ``0.85`` are the same double), so no tolerance is needed.

    Parameters
    ----------
    frequency : array-like of float in [0, 1]
        Selection frequencies.
    threshold : float in [0, 1), default 0.5
        A feature is a consensus feature when its frequency is strictly above it.

    Returns
    -------
    ndarray of bool
        The shape of ``frequency``.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 7.4 and Table 7.6.

    Examples
    --------
    >>> from stablefs.stability import in_consensus
    >>> in_consensus([0.9, 0.5, 0.51, 0.0]).tolist()
    [True, False, True, False]
    >>> in_consensus([0.9, 0.85, 0.86], threshold=0.85).tolist()
    [True, False, True]
    """
    t = _check_threshold(threshold)
    f = np.asarray(frequency, dtype=float)
    return f > t


def consensus(subsets: Subsets, n_features: int | None = None, *,
              threshold: float = CONSENSUS_THRESHOLD,
              feature_names: FeatureNames | None = None) -> NDArray[np.intp] | NDArray[np.object_]:
    """Consensus signature: the features selected in *more than* ``threshold`` of the results.

    Han 2012, sec. 7.4: a consensus gene is represented in more than 50 % of the
    signatures, so the rule is F_f / m > threshold, strict (with m = 100 and the default 0.5,
    51 signatures or more); see :func:`in_consensus`.

    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        Or collections of feature names, with ``feature_names``.
    n_features : int, optional
        p; required for index collections (not with ``feature_names``).
    threshold : float, default 0.5 (:data:`CONSENSUS_THRESHOLD`)
        In [0, 1); 0 returns every feature selected at least once.
    feature_names : sequence of str, optional
        The p column names, in order; the result is then the names.

    Returns
    -------
    ndarray
        Feature indices (int), or names (``dtype=object``, Python ``str``) with
        ``feature_names``; most frequent first, ties by lower column index; possibly empty.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 7.4 and Table 7.6.

    Examples
    --------
    >>> from stablefs.stability import consensus
    >>> subsets = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [0, 1, 2]]
    >>> consensus(subsets, n_features=6).tolist()
    [0, 1, 2]
    >>> consensus([["TP53", "MYC"], ["TP53", "EGFR"], ["TP53", "MYC"]],
    ...           feature_names=["TP53", "MYC", "EGFR", "KRAS"]).tolist()
    ['TP53', 'MYC']
    """
    t = _check_threshold(threshold)
    data, names = _data(subsets, n_features, feature_names)
    F = data.counts()
    keep = np.flatnonzero(in_consensus(F / data.m, t))
    order = keep[np.argsort(-F[keep], kind="stable")]
    if names is None:
        return order
    out = np.empty(order.size, dtype=object)
    out[:] = [names[i] for i in order]
    return out


def frequency_intervals(subsets: Subsets, n_features: int | None = None,
                        thresholds: Sequence[float] = (0.0, 0.5, 0.85), *,
                        feature_names: FeatureNames | None = None) -> pd.Series:
    """Count the features whose selection frequency exceeds each threshold (Han 2012, Table 7.6).

    For m = 100 and the default thresholds the entries are the Table 7.6 columns
    ``[1,100]`` (selected at least once), ``(50,100]`` and ``(85,100]``; labels are written
    in counts out of m.

    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        The m selection results.
    n_features : int, optional
        p; required for index collections.
    thresholds : sequence of float in [0, 1)
        Each count uses the consensus rule, frequency > threshold (:func:`in_consensus`).
    feature_names : sequence of str, optional
        The p column names, when the subsets list names.

    Returns
    -------
    pandas.Series
        Integer counts indexed by the interval labels.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 7.4 and Table 7.6.

    Examples
    --------
    >>> from stablefs.stability import frequency_intervals
    >>> subsets = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [0, 1, 2]]
    >>> frequency_intervals(subsets, n_features=6).to_dict()
    {'[1,4]': 4, '(2,4]': 3, '(3.4,4]': 1}
    """
    data, _ = _data(subsets, n_features, feature_names)
    F = data.counts()
    m = data.m
    labels, values = [], []
    for thr in thresholds:
        t = _check_threshold(thr)
        labels.append(f"[1,{m}]" if t == 0 else f"({t * m:g},{m}]")
        values.append(int(np.sum(in_consensus(F / m, t))))
    return pd.Series(values, index=labels, name="n_features", dtype=np.int64)


def frequency_curve(subsets: Subsets, n_features: int | None = None, *,
                    feature_names: FeatureNames | None = None) -> pd.Series:
    """Count the features that occur in at least c of the m results, for c = 1..m.

    Han 2012, Figs. 7.7–7.8. The area under this curve is Σ_i |S_i| (for m signatures of size
    k: m·k, the area under the perfect-stability curve, which is k for every c).

    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        The m selection results.
    n_features : int, optional
        p; required for index collections.
    feature_names : sequence of str, optional
        The p column names, when the subsets list names.

    Returns
    -------
    pandas.Series
        Indexed by c = 1..m.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 7.4, Figs. 7.7–7.8.

    Examples
    --------
    >>> from stablefs.stability import frequency_curve
    >>> subsets = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [0, 1, 2]]
    >>> frequency_curve(subsets, n_features=6).to_dict()
    {1: 4, 2: 4, 3: 3, 4: 1}
    """
    data, _ = _data(subsets, n_features, feature_names)
    F = data.counts()
    m = data.m
    hist = np.bincount(F, minlength=m + 1)
    at_least = np.cumsum(hist[::-1])[::-1][1:]
    return pd.Series(at_least.astype(np.int64), index=pd.RangeIndex(1, m + 1, name="c"),
                     name="n_features")
