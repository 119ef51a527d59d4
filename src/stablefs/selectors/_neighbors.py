"""Shared neighbour and distance helpers for the margin-based methods.

ReliefF (:mod:`stablefs.selectors.relieff`) and margin-based instance weighting
(:mod:`stablefs.stabilizers.margin`) both work with per-feature absolute differences
``|x_ij - x_lj|`` between instances (Han 2012, eqs. 4.2 and 5.1). The helpers here do the
O(n^2 p) parts without a Python loop over features and with bounded memory:

- :func:`minmax_scale` -- the range normalisation of ReliefF's ``diff`` (Prat Masramon 2016,
  eq. 2.20), and :func:`minmax_range`, its two numbers per feature for the kernels that scale
  on the fly;
- :func:`pairwise_distances` -- an ``n x n`` distance matrix (Manhattan: a compiled kernel;
  others: :func:`scipy.spatial.distance.pdist`), never an ``n x n x p`` array;
- :func:`nearest_in_class` -- K nearest neighbours of every instance inside one class, ties by
  lower sample index;
- :func:`weighted_pair_abs_diff` -- ``sum_t c_t |X[a_t] - X[b_t]|`` per feature (a compiled kernel).

The margin vectors' sums over all hits and misses (Han 2012, eq. 4.2) are a compiled kernel
too: :func:`stablefs.selectors._relief_kernels.margin_abs_diff_sums`.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import pdist, squareform

from stablefs._errors import StablefsError

#: float64 elements a temporary block may hold: 2**18 = 2 MiB, small enough to stay in cache
#: (measured: several times faster than 16 MiB blocks for ReliefF on Colon and Lung)
BLOCK_ELEMENTS = 2**18


def minmax_range(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(lo, span)`` of every feature: its minimum and range on ``X`` (1 for a constant
    feature), the two numbers of :func:`minmax_scale`'s ``(x - lo) / span``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)

    Returns
    -------
    lo, span : ndarray of shape (n_features,)
    """
    X = np.asarray(X, dtype=np.float64)
    lo = X.min(axis=0)
    span = X.max(axis=0) - lo
    span[span == 0] = 1.0
    return lo, span


def minmax_scale(X: np.ndarray) -> np.ndarray:
    """Scale every feature to ``[0, 1]`` by its range on ``X``; constant features become 0.

    ``|x'_a - x'_b|`` of the result is ReliefF's numeric ``diff`` (Prat Masramon 2016, eq. 2.20):
    ``|x_a - x_b| / (max - min)``. A constant feature has no range; its column is all zeros,
    so its ``diff`` is 0 for every pair. The compiled kernels compute the same numbers on the
    fly from :func:`minmax_range` (``scale=`` of :func:`pairwise_distances` and
    :func:`weighted_pair_abs_diff`), without this copy.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)

    Returns
    -------
    ndarray of shape (n_samples, n_features), C-contiguous float64
    """
    X = np.asarray(X, dtype=np.float64)
    lo, span = minmax_range(X)
    out = np.subtract(X, lo, order="C")  # one n x p result, scaled in place (no temporary)
    out /= span
    return out


def pairwise_distances(X: np.ndarray, metric="cityblock", *, scale=None) -> np.ndarray:
    """Square, symmetric matrix of distances between the rows of ``X`` (zero diagonal).

    ``"cityblock"`` (the distance of the Relief family) runs the compiled kernel
    :func:`stablefs.selectors._relief_kernels.cityblock_distances`, which returns what
    :func:`scipy.spatial.distance.pdist` does bit for bit, faster and on the free cores; any
    other metric uses ``pdist``, which computes each of the ``n (n - 1) / 2`` pairs once and
    keeps memory at O(n^2) whatever the number of features.

    ``scale=(lo, span)`` (cityblock only): the distances between the rows of
    ``(X - lo) / span`` (:func:`minmax_range`), the same numbers as on
    :func:`minmax_scale`'s copy, without making it.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    is_cityblock = isinstance(metric, str) and metric == "cityblock"
    if scale is not None and not is_cityblock:
        raise ValueError("pairwise_distances: scale= needs the cityblock metric")
    if X.shape[0] < 2:
        return np.zeros((X.shape[0], X.shape[0]))
    if is_cityblock:
        from stablefs.selectors._relief_kernels import cityblock_distances

        return cityblock_distances(X, *(scale or (None, None)))
    return squareform(pdist(X, metric=metric))


def nearest_in_class(
    D: np.ndarray, rows: np.ndarray, members: np.ndarray, k: int
) -> np.ndarray:
    """The ``k`` nearest ``members`` of each instance in ``rows``, nearest first.

    Parameters
    ----------
    D : ndarray of shape (n, n)
        Distances; ``D[i, i]`` must be ``+inf`` so that an instance is never its own neighbour
        (duplicates of it, at distance 0, are legitimate neighbours).
    rows : ndarray of int
        Instances whose neighbours are wanted.
    members : ndarray of int, sorted ascending
        Candidate neighbours (one class).
    k : int
        Number of neighbours; the caller makes sure ``k`` does not exceed the candidates
        available to every row (excluding the row itself).

    Returns
    -------
    ndarray of shape (len(rows), k) of sample indices

    Notes
    -----
    Equal distances are broken by the lower sample index (the first ``k`` of a stable sort
    of ``D[i, members]``, the tests' reference), found by the compiled
    :func:`stablefs.selectors._relief_kernels.nearest_members` without copying ``D``.
    """
    from stablefs.selectors._relief_kernels import nearest_members

    return nearest_members(D, rows, members, k)


def weighted_pair_abs_diff(
    X: np.ndarray, a: np.ndarray, b: np.ndarray, coef: np.ndarray, *, scale=None
) -> np.ndarray:
    """Per feature ``j``: ``sum_t coef[t] * |X[a[t], j] - X[b[t], j]|``.

    One fused pass of the compiled kernel
    :func:`stablefs.selectors._relief_kernels.pair_abs_diff_sums` (no gathered copies of the
    rows; memory: the output). ``scale=(lo, span)``: the same sums on ``(X - lo) / span``
    (:func:`minmax_range`) without the scaled copy.
    """
    from stablefs.selectors._relief_kernels import pair_abs_diff_sums

    return pair_abs_diff_sums(X, a, b, coef, *(scale or (None, None)))


def positive_weight_subset(
    X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Drop zero-weight samples: a sample with weight 0 is treated as absent.

    Returns ``(X, y, w, index)`` restricted to the samples with positive weight, ``w``
    renormalised to sum 1, and ``index`` the kept sample indices. When every weight is
    positive, ``X`` itself is returned (not a copy: callers must not modify it). Raises
    :class:`StablefsError` when fewer than two classes keep positive weight.
    """
    keep = np.flatnonzero(sample_weight > 0)
    every = keep.size == y.shape[0]  # every weight positive: X itself, no copy
    yk = y if every else y[keep]
    if np.unique(yk).size < 2:
        raise StablefsError(
            "sample_weight gives positive weight to a single class: at least two classes "
            "need samples with positive weight."
        )
    w = sample_weight[keep]
    return (X if every else X[keep]), yk, w / w.sum(), keep
