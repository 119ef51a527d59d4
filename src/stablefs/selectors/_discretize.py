"""Discretisation of numeric features for the entropy and rule filters (information gain, 1R).

- :func:`mdl_cut_points`: Fayyad and Irani's (1993) recursive minimum-entropy split with the
  MDL stopping rule, the supervised discretisation of Weka (``weka.filters.supervised.
  attribute.Discretize``, which Weka's ``InfoGainAttributeEval`` applies, and R FSelector's
  ``information.gain`` through it);
- :func:`quantile_bins`: equal-frequency bins, the unsupervised alternative.
"""

from __future__ import annotations

import numpy as np


def _entropy(counts: np.ndarray) -> np.ndarray:
    """Entropy in bits of class-count rows (last axis)."""
    total = counts.sum(axis=-1, keepdims=True)
    p = np.divide(counts, total, out=np.zeros_like(counts, dtype=float), where=total > 0)
    logs = np.log2(p, out=np.zeros_like(p), where=p > 0)
    return -(p * logs).sum(axis=-1)


def _split(x: np.ndarray, onehot: np.ndarray, out: list) -> None:
    """Append the accepted MDL cut points of one sorted segment to ``out`` (recursive)."""
    n = x.size
    if n < 2:
        return
    boundary = np.flatnonzero(x[1:] != x[:-1])  # cut after position t (distinct values only)
    if boundary.size == 0:
        return
    left = np.cumsum(onehot, axis=0)[boundary]
    total = onehot.sum(axis=0)
    right = total - left
    n_left = boundary + 1.0
    ent_left = _entropy(left)
    ent_right = _entropy(right)
    weighted = (n_left * ent_left + (n - n_left) * ent_right) / n
    best = int(np.argmin(weighted))  # the first of equal minima: the lowest cut
    ent = float(_entropy(total))
    gain = ent - float(weighted[best])
    k = np.count_nonzero(total)
    k1 = np.count_nonzero(left[best])
    k2 = np.count_nonzero(right[best])
    delta = np.log2(3.0**k - 2.0) - (k * ent - k1 * ent_left[best] - k2 * ent_right[best])
    if gain <= (np.log2(n - 1.0) + delta) / n:
        return
    t = int(boundary[best])
    _split(x[: t + 1], onehot[: t + 1], out)
    out.append(0.5 * (x[t] + x[t + 1]))
    _split(x[t + 1 :], onehot[t + 1 :], out)


def mdl_cut_points(x: np.ndarray, codes: np.ndarray, n_classes: int) -> np.ndarray:
    """Cut points of one feature by Fayyad and Irani's MDL discretisation (1993).

    The segment is split at the boundary (between two distinct values, cut at their midpoint)
    that minimises the class entropy of the two halves weighted by their sizes; the split is
    kept when its information gain exceeds ``(log2(N - 1) + Delta) / N`` with
    ``Delta = log2(3^k - 2) - (k Ent(S) - k1 Ent(S1) - k2 Ent(S2))`` (``k``: classes present),
    and both halves are split again in the same way.

    Parameters
    ----------
    x : ndarray of shape (n_samples,)
    codes : ndarray of int of shape (n_samples,)
        Class codes ``0 .. n_classes - 1``.
    n_classes : int

    Returns
    -------
    ndarray of sorted cut points (empty: the feature is one interval)
    """
    order = np.argsort(x, kind="stable")
    onehot = np.zeros((x.size, n_classes))
    onehot[np.arange(x.size), codes[order]] = 1.0
    cuts: list = []
    _split(np.asarray(x, float)[order], onehot, cuts)
    return np.asarray(cuts, dtype=float)


def mdl_bins(X: np.ndarray, codes: np.ndarray, *, block: int = 2048) -> np.ndarray:
    """Interval index of every value under each feature's MDL cut points (n x p, int).

    The same cut points as :func:`mdl_cut_points` feature by feature, computed level by level
    for all segments of a block of features at once: per level, every candidate cut of every
    open segment is scored from cumulative class counts, the best cut of each segment (the
    lowest among equal entropies) is tested with the MDL rule, and accepted cuts open two
    segments for the next level. O(n p C) per level, memory O(block n C).
    """
    n, p = X.shape
    n_classes = int(codes.max()) + 1
    bins = np.zeros((n, p), dtype=np.int64)
    eye = np.eye(n_classes)
    for start in range(0, p, block):
        XT = np.ascontiguousarray(X[:, start : start + block].T)
        pb = XT.shape[0]
        order = np.argsort(XT, axis=1, kind="stable")
        xs = np.take_along_axis(XT, order, axis=1)
        cum = np.zeros((pb, n + 1, n_classes))
        np.cumsum(eye[codes[order]], axis=1, out=cum[:, 1:])
        marks = np.zeros((pb, n), dtype=np.int64)
        seg_j = np.arange(pb)
        seg_a = np.zeros(pb, dtype=np.int64)
        seg_b = np.full(pb, n, dtype=np.int64)
        while seg_j.size:
            seg_j, seg_a, seg_b = _mdl_level(xs, cum, seg_j, seg_a, seg_b, marks)
        sorted_bins = np.cumsum(marks, axis=1)
        np.put_along_axis(bins[:, start : start + pb].T, order, sorted_bins, axis=1)
    return bins


def _mdl_level(xs, cum, seg_j, seg_a, seg_b, marks):
    """One level of the MDL splits of all open segments; returns the next level's segments."""
    lengths = np.maximum(seg_b - seg_a - 1, 0)  # candidate cuts after positions a .. b-2
    total = int(lengths.sum())
    if total == 0:
        return seg_j[:0], seg_a[:0], seg_b[:0]
    sid = np.repeat(np.arange(seg_j.size), lengths)
    offsets = np.cumsum(lengths) - lengths
    t = seg_a[sid] + (np.arange(total) - offsets[sid])
    j = seg_j[sid]
    valid = xs[j, t] != xs[j, t + 1]
    base = cum[j, seg_a[sid]]
    left = cum[j, t + 1] - base
    whole_counts = cum[seg_j, seg_b] - cum[seg_j, seg_a]
    right = whole_counts[sid] - left
    size = (seg_b - seg_a).astype(float)
    n_left = (t + 1 - seg_a[sid]).astype(float)
    ent_left = _entropy(left)
    ent_right = _entropy(right)
    weighted = np.where(valid, (n_left * ent_left + (size[sid] - n_left) * ent_right)
                        / size[sid], np.inf)
    best_val = np.minimum.reduceat(weighted, offsets[lengths > 0])
    has = lengths > 0
    seg_best = np.full(seg_j.size, np.inf)
    seg_best[has] = best_val
    is_best = (weighted == seg_best[sid]) & valid
    segs, first = np.unique(sid[is_best], return_index=True)  # lowest cut of equal minima
    pos = np.flatnonzero(is_best)[first]
    n_seg = size[segs]
    ent = _entropy(whole_counts[segs])
    gain = ent - weighted[pos]
    k = np.count_nonzero(whole_counts[segs], axis=1)
    k1 = np.count_nonzero(left[pos], axis=1)
    k2 = np.count_nonzero(right[pos], axis=1)
    delta = np.log2(3.0**k - 2.0) - (k * ent - k1 * ent_left[pos] - k2 * ent_right[pos])
    accept = gain > (np.log2(n_seg - 1.0) + delta) / n_seg
    segs, pos = segs[accept], pos[accept]
    cut_t = t[pos]
    jj = seg_j[segs]
    marks[jj, cut_t + 1] = 1
    new_j = np.concatenate([jj, jj])
    new_a = np.concatenate([seg_a[segs], cut_t + 1])
    new_b = np.concatenate([cut_t + 1, seg_b[segs]])
    return new_j, new_a, new_b


def quantile_bins(X: np.ndarray, n_bins: int) -> np.ndarray:
    """Equal-frequency interval index of every value (n x p, int in ``0 .. n_bins - 1``).

    The inner edges are the ``1/n_bins, ..., (n_bins-1)/n_bins`` quantiles of each feature; a
    value equal to an edge goes to the upper interval, so tied values share an interval.
    """
    edges = np.quantile(X, np.arange(1, n_bins) / n_bins, axis=0)
    bins = np.zeros(X.shape, dtype=np.int64)
    for edge in edges:
        bins += edge <= X
    return bins
