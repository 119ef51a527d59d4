r"""Dense feature groups: DGF and DRAGS (Yu, Ding and Loscalzo 2008, Algs. 1 and 2).

**DGF** (Dense Group Finder, Yu, Ding and Loscalzo 2008, Alg. 1) finds groups of highly
correlated features as the dense cores of the feature density. Every feature is a point in
sample space (the transposed data, each feature standardised to mean 0 and sd 1, so that
``||f_a - f_b||^2 = 2 d (1 - r_ab)``, sec. 6.1; see :mod:`._feature_space`). Then

1. bandwidth ``h`` = the mean over features of the mean distance to their ``K = 5`` nearest
   neighbours (sec. 4.1 and 6.1);
2. mean shift from every feature (eqs. 2-4):
   ``y_{j+1} = sum_l f_l K((y_j - f_l)/h) / sum_l K((y_j - f_l)/h)`` until
   ``||y_{j+1} - y_j|| <= tol h`` (or ``max_iter`` steps);
3. in feature order, each stationary point is merged with its closest peak if their distance
   is ``< h`` (the existing peak is kept), otherwise it is a new peak;
4. group ``G_r`` = the features within ``h`` of peak ``p_r`` (``||p_r - f_i|| < h``); groups
   may overlap and a feature may be in none;
5. (optional, used by the paper) a group is dropped when the mean distance of its peak to its
   ``K`` nearest features exceeds ``h`` (low density); empty groups are dropped.

Groups are ordered by the kernel density estimate at their peak (eq. 1), densest first.

**DRAGS** (Dense Relevant Attribute Group Selector, Alg. 2) ranks the dense groups by the mean
relevance of their members (the F-statistic by default, sec. 4.2) and selects the top ``k``;
each selected group contributes one representative feature, "the one with the highest average
similarity to all other features in the group" (sec. 6.1), read as the highest mean Pearson
correlation to the other members.

Readings where the paper is silent or ambiguous (also in the class docstrings):

- **A point is its own first neighbour.** The ``K`` nearest neighbours of a feature include
  the feature itself (distance 0) and its ``K - 1`` nearest others. The paper says so
  indirectly twice: "when K=1, the bandwidth will be zero, and every data point will be a
  peak" (sec. 4.1), and its Fig. 1 shows the mean correlation to the K nearest "highly skewed"
  with "little spread before K reaches 4" (at ``K = 1`` it is 1 for every feature). The
  low-density test of step 5 uses the same convention for the peak: a peak that sits on a
  feature counts it at distance 0. (Excluding the point itself gives a bandwidth about 1.3
  times larger and, in step 5, drops every group of one feature.)
- **Kernel: flat by default.** The paper names the flat and the Gaussian kernel without saying
  which it used. An *untruncated* Gaussian kernel is degenerate here: standardised features lie
  on a sphere of radius ``sqrt(d)``, and the thousands of uncorrelated features (``r ~ 0``, at
  distance ``sqrt(2d)``) each keep a small weight ``exp(-d/h^2)`` whose total outweighs every
  local mode: on Colon and SRBCT all mean shifts end at one peak near the origin, with no
  feature within ``h`` of it (the paper's Fig. 2 shows 50 dense groups on every set).
  ``kernel="gaussian"`` is therefore truncated at ``truncate * h`` (default ``1``: the window
  of the flat kernel; Comaniciu and Meer 2002 use truncated normal kernels), and
  ``truncate=None`` gives the untruncated Gaussian. Flat and truncated Gaussian find nearly the
  same groups (Colon: 522 groups either way, the largest 48 and 47 features).
- Convergence: ``||y_{j+1} - y_j|| <= 1e-3 h``, at most 300 steps (scikit-learn's
  ``MeanShift`` rule and defaults, so that the two agree step for step with the flat kernel).
- The flat kernel's window includes its boundary (``<= h``, as scikit-learn); group membership
  and merging use the paper's strict ``< h``.
- "Merge" keeps the existing peak (no averaging); ties go to the earlier peak.
- Representatives are distinct: when groups overlap, a group's representative is its best
  member that does not already represent a higher-ranked group; a group all of whose members
  already represent higher-ranked groups adds no feature and is dropped.
- Constant features (no correlation with anything) are in no group and rank last.

Speed and memory. Every distance computation is a blocked BLAS product with the augmented
points ``[F | -||f||^2/2]`` (:func:`._feature_space.shifted_gram`), so a threshold on the
product is a window test, over at most :data:`._feature_space.BLOCK_BYTES` of temporaries per
thread whatever the number of features. The mean shift runs all seeds together, freezes
converged seeds, and sums each window with a sparse or a dense product as its size calls for
(:mod:`._mean_shift`). An isolated feature (no other feature within ``h``) is its own peak and
needs no second pass. ``n_jobs`` threads share the blocks, with single-threaded BLAS, so the
result does not depend on ``n_jobs``. Cost ``O(lambda p^2 d)`` time (``lambda`` the mean number
of mean-shift steps: 2-3 on Colon and SRBCT, where most features are isolated), ``O(p d)``
memory.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import _fit_context, clone
from sklearn.utils.validation import _check_sample_weight, validate_data

from stablefs._errors import StablefsError
from stablefs._runtime.threads import limit_threads
from stablefs._validation import check_n_features_to_select
from stablefs.selectors import _mean_shift as _ms
from stablefs.selectors._base import BaseSelector
from stablefs.selectors._constraints import (
    HasMethods,
    StrOptions,
    n_jobs_constraint,
    number,
    whole,
)
from stablefs.selectors._feature_space import (
    GEMM_ROWS,
    FeatureSpace,
    Scratch,
    augment,
    block_rows,
    feature_space,
    group_ranking,
    knn_distances,
    scratch_budget,
    shifted_gram,
    sq_distances,
)

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal

    import pandas as pd
    from numpy.typing import ArrayLike
    from sklearn.base import BaseEstimator
    from typing_extensions import Self

__all__ = ["DGF", "DRAGS", "dense_feature_groups", "mean_shift", "merge_peaks"]

KERNELS = ("flat", "gaussian")


# -- mean shift -----------------------------------------------------------------------------

def mean_shift(F: np.ndarray, bandwidth: float, *, kernel: str = "flat",
               truncate: float | None = 1.0, tol: float = 1e-3, max_iter: int = 300,
               seeds: np.ndarray | None = None, n_jobs: int | None = None):
    """Mean shift (Yu, Ding and Loscalzo 2008, eqs. 2-4) from each seed, all seeds at once.

    ``y_{j+1} = sum_l f_l K((y_j - f_l)/h) / sum_l K((y_j - f_l)/h)`` (eq. 3), stopped when
    ``||y_{j+1} - y_j|| <= tol * h`` or after ``max_iter`` steps (scikit-learn's ``MeanShift``
    rule); a seed whose window holds no point stops where it is. Seeds run together in blocks
    of rows (bounded memory), distances come from BLAS products, and a converged seed is
    frozen (:mod:`stablefs.selectors._mean_shift`).

    Parameters
    ----------
    F : ndarray of shape (p, d)
        The points (features in sample space).
    bandwidth : float
        ``h > 0``.
    kernel : {"flat", "gaussian"}, default="flat"
        ``"flat"``: ``K(u) = 1`` for ``||u|| <= 1``, else 0. ``"gaussian"``:
        ``K(u) = exp(-||u||^2 / 2)``, truncated at ``||u|| <= truncate``.
    truncate : float or None, default=1.0
        Support radius of the Gaussian kernel in units of ``h``; None = untruncated.
    tol : float, default=1e-3
        Stopping threshold relative to ``h``.
    max_iter : int, default=300
    seeds : ndarray of shape (m, d), optional
        Starting points (default: the points themselves).
    n_jobs : int or None, default=None
        Threads (None: 1; -1: all cores). The result does not depend on it.

    Returns
    -------
    modes : ndarray of shape (m, d)
        The stationary points.
    n_iter : ndarray of int, shape (m,)
        Steps taken by each seed.
    density : ndarray of shape (m,)
        Mean kernel weight ``(1/p) sum_l K((seed - f_l)/h)`` at each *starting* point,
        proportional to the density estimate of eq. 1.
    """
    with limit_threads(1, user_api="blas"):
        return _ms.mean_shift(augment(F), bandwidth, kernel=kernel, truncate=truncate,
                              tol=tol, max_iter=max_iter, seeds=seeds,
                              n_jobs=_threads(n_jobs))


def _threads(n_jobs) -> int:
    """``n_jobs`` as a thread count (None: 1; negative: joblib's convention). Not the free
    cores by default: the threads share the block budget, and the smaller blocks cost more
    than a second core gained on a busy machine (Chowdary at load 10: 45 s CPU and 124 s wall
    on two threads against 37 s and 78 s on one)."""
    from joblib import effective_n_jobs

    return max(1, int(effective_n_jobs(1 if n_jobs is None else n_jobs)))


def merge_peaks(modes: np.ndarray, bandwidth: float, lone: np.ndarray | None = None, *,
                overwrite: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Merge stationary points into peaks, in order (Yu, Ding and Loscalzo 2008, Alg. 1).

    Point ``i`` joins its closest existing peak if their distance is ``< h`` (the peak is not
    moved; ties go to the earlier peak); otherwise it becomes a new peak. Exact sequential
    semantics, computed in chunks: distances to the peaks known before a chunk are one BLAS
    product, and only the comparisons with peaks created inside the chunk are sequential.

    Parameters
    ----------
    modes : ndarray of shape (m, d)
    bandwidth : float
    lone : ndarray of bool, shape (m,), optional
        Points known to be at least ``h`` from every other ``lone`` point (in DGF: features
        that did not move because no other feature is within ``h``). A lone point is compared
        only with the peaks founded by points that are not lone: a lone peak can neither
        absorb it nor be the closest peak below ``h``, so the result is the same, and most
        of the distances of a microarray's many isolated features are not computed.
    overwrite : bool, default=False
        Keep the peaks in ``modes`` itself: on return its first ``n_peaks`` rows are the
        peaks (``modes[peaks]`` of the unmodified array) and the other rows are undefined.
        Saves a copy of the peaks (DGF).

    Returns
    -------
    peaks : ndarray of int, shape (n_peaks,)
        Row of ``modes`` that founded each peak, ascending.
    assignment : ndarray of int, shape (m,)
        Peak (position in ``peaks``) that each point merged into.
    """
    modes = np.asarray(modes, dtype=np.float64)
    m, d = modes.shape
    lone = np.zeros(m, dtype=bool) if lone is None else np.asarray(lone, dtype=bool)
    h2 = float(bandwidth) ** 2
    sqm = np.einsum("ij,ij->i", modes, modes)
    founders: list[int] = []
    assignment = np.empty(m, dtype=np.int64)
    # the peaks so far, first n_known rows (in `modes` itself: a peak's row is never after its
    # founder's, and only the current chunk's rows of `modes` are read again)
    P = modes if overwrite else np.empty((m, d))
    sqP = np.empty(m)
    lone_peak = np.zeros(m, dtype=bool)
    n_known = 0
    budget = scratch_budget(modes)
    # the chunk-by-peaks distances and the chunk's copies, and the shared peaks gathered a
    # block at a time, each within the budget
    chunk = min(256, block_rows(m, budget=budget), block_rows(d, n_arrays=4, budget=budget))
    width = block_rows(d, n_arrays=2, budget=budget)
    for start in range(0, m, chunk):
        stop = min(m, start + chunk)
        Yc, sqc, lc = modes[start:stop], sqm[start:stop], lone[start:stop]
        if overwrite:
            Yc = Yc.copy()  # the chunk's peaks are written over its first rows below
        c = stop - start
        best_e = np.zeros(c, dtype=np.int64)
        dist_e = np.full(c, np.inf)
        if n_known:
            shared = np.flatnonzero(~lone_peak[:n_known])  # peaks every point is compared with
            for rows, cols in ((np.flatnonzero(~lc), None), (np.flatnonzero(lc), shared)):
                if rows.size == 0 or (cols is not None and cols.size == 0):
                    continue
                if cols is None:
                    De = sq_distances(Yc[rows], sqc[rows], P[:n_known], sqP[:n_known])
                    best = np.argmin(De, axis=1)
                    dist_e[rows] = De[np.arange(rows.size), best]
                    best_e[rows] = best
                    continue
                # the shared peaks gathered a block at a time (a copy of them all could be as
                # large as the points); the first minimum over the blocks, as one argmin
                Yr, sr = Yc[rows], sqc[rows]
                for at in range(0, cols.size, width):
                    part = cols[at:at + width]
                    De = sq_distances(Yr, sr, P[part], sqP[part])
                    best = np.argmin(De, axis=1)
                    value = De[np.arange(rows.size), best]
                    better = value < dist_e[rows]
                    dist_e[rows[better]] = value[better]
                    best_e[rows[better]] = part[best[better]]
        Dc = sq_distances(Yc, sqc, Yc, sqc)
        local: list[int] = []
        local_shared: list[int] = []
        for j in range(c):
            best, pid = dist_e[j], best_e[j]
            cand = local_shared if lc[j] else local
            if cand:
                dl = Dc[j, cand]
                k = int(np.argmin(dl))
                if dl[k] < best:
                    best, pid = dl[k], n_known + local.index(cand[k])
            if best < h2:
                assignment[start + j] = pid
            else:
                assignment[start + j] = n_known + len(local)
                local.append(j)
                if not lc[j]:
                    local_shared.append(j)
        if local:
            founders.extend(start + j for j in local)
            P[n_known:n_known + len(local)] = Yc[local]
            sqP[n_known:n_known + len(local)] = sqc[local]
            lone_peak[n_known:n_known + len(local)] = lc[local]
            n_known += len(local)
    return np.asarray(founders, dtype=np.int64), assignment


# -- dense groups ---------------------------------------------------------------------------

@dataclass
class DenseGroups:
    """The result of :func:`dense_feature_groups` (indices are columns of ``X``)."""

    bandwidth: float
    groups: list          # index arrays, densest first, members closest to the peak first
    density: np.ndarray   # mean kernel weight at each group's peak
    peaks: np.ndarray     # (n_groups, d_+) peak positions in feature space (a view of a
    #                       buffer of all the features' modes: copy what you keep)
    n_peaks: int          # peaks before dropping sparse and empty groups
    n_iter: np.ndarray    # mean-shift steps per feature (feature-space order)
    feature_density: np.ndarray  # (p,) mean kernel weight at each feature; 0 for constant
    space: FeatureSpace


def dense_feature_groups(X: np.ndarray, sample_weight: np.ndarray | None = None, *,
                         n_neighbors: int = 5, bandwidth: float | None = None,
                         kernel: str = "flat", truncate: float | None = 1.0,
                         drop_sparse: bool = True, standardize: bool = True,
                         self_neighbor: bool = True, tol: float = 1e-3, max_iter: int = 300,
                         n_jobs: int | None = None) -> DenseGroups:
    """DGF on ``X`` (Yu, Ding and Loscalzo 2008, Alg. 1); see the module docstring.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    sample_weight : ndarray of shape (n_samples,), optional
    n_neighbors, bandwidth, kernel, truncate, drop_sparse, standardize, self_neighbor, tol,
    max_iter, n_jobs
        As in :class:`DGF`.

    Returns
    -------
    DenseGroups
    """
    space = feature_space(X, sample_weight, standardize=standardize)
    Fa = space.Fa
    p_eff = Fa.shape[0]
    K = int(n_neighbors)
    # the K nearest of a feature: itself and its K - 1 nearest others (self_neighbor, the
    # paper's "when K=1, the bandwidth will be zero"), or its K nearest others
    others = K - 1 if self_neighbor else K
    if self_neighbor and K == 1 and bandwidth is None:
        raise StablefsError(
            "n_neighbors = 1 with self_neighbor=True: a feature is its own nearest neighbour, "
            "so the bandwidth is 0 (Yu, Ding and Loscalzo 2008, sec. 4.1); use n_neighbors >= 2."
        )
    if p_eff < others + 1:
        raise StablefsError(
            f"DGF needs at least {others + 1} non-constant features for n_neighbors = {K}, but "
            f"X has {p_eff} (n_features = {space.n_features}): lower n_neighbors or give more "
            "features."
        )
    jobs = _threads(n_jobs)
    with limit_threads(1, user_api="blas"):
        near = knn_distances(space.F, Fa, max(others, 1), self_rows=np.arange(p_eff),
                             n_jobs=jobs)
        if bandwidth is None:
            h = float(near[:, :others].sum(axis=1).mean() / K)
            # distances from the Gram matrix carry round-off ~ sqrt(eps) * ||f||: below
            # 1e-6 ||f|| a bandwidth is zero
            if not h > 1e-6 * float(np.sqrt(space.sq.max())):
                raise StablefsError(
                    f"the bandwidth from the K = {K} nearest features is 0 (every feature has "
                    f"{others} exact duplicates): set bandwidth= explicitly or remove "
                    "duplicated features."
                )
        else:
            h = float(bandwidth)
        modes, n_iter, density = _shift_all(Fa, near, h, kernel, truncate, tol, max_iter,
                                            jobs)
        # features that stayed where they are and whose nearest other feature is beyond h
        # (with a margin far above the round-off of the distances) are >= h from each other
        lone = None
        if near.shape[1]:
            lone = near[:, 0] > h * (1 + 1e-9)
            rows = np.flatnonzero(lone)
            lone[rows] = _at_points(modes, rows, Fa, rows)
        founders, _ = merge_peaks(modes, h, lone, overwrite=True)
        peaks = modes[:founders.size]  # merge_peaks kept the peaks in place
        del modes
        groups, dens, knn, peaks = _peak_groups(space, peaks, founders, near, h, K, kernel,
                                                truncate, self_neighbor, tol, jobs)
    keep = np.array([g.size > 0 for g in groups], dtype=bool)
    if drop_sparse:
        keep &= knn <= h
    kept = np.flatnonzero(keep)
    kept = kept[np.lexsort((kept, -dens[kept]))]  # densest first; ties: earlier peak
    fdens = np.zeros(space.n_features)
    fdens[space.index] = density
    return DenseGroups(bandwidth=h, groups=[groups[i] for i in kept], density=dens[kept],
                       peaks=_take_rows_in_place(peaks, kept), n_peaks=int(founders.size),
                       n_iter=n_iter,
                       feature_density=fdens, space=space)


def _shift_all(Fa, near, h, kernel, truncate, tol, max_iter, jobs):
    """Mean shift from every feature. A feature with no other feature in its window (its
    nearest other is farther than the window radius) does not move: its first step returns
    it, with density ``K(0)/p``; only the others are shifted."""
    p_eff, d = Fa.shape[0], Fa.shape[1] - 1
    window = _ms.window_radius(h, kernel, truncate)
    if window is None or near.shape[1] == 0:
        return _ms.mean_shift(Fa, h, kernel=kernel, truncate=truncate, tol=tol,
                              max_iter=max_iter, n_jobs=jobs)
    movable = np.flatnonzero(near[:, 0] <= window)
    modes = np.array(Fa[:, :d], copy=True)
    n_iter = np.ones(p_eff, dtype=np.int64)
    density = np.full(p_eff, 1.0 / p_eff)
    if movable.size:  # the movable seeds shifted in place (no copy of them)
        modes, it, dens = _ms.mean_shift(Fa, h, kernel=kernel, truncate=truncate, tol=tol,
                                         max_iter=max_iter, seeds=modes, rows=movable,
                                         copy=False, n_jobs=jobs)
        n_iter[movable], density[movable] = it[movable], dens[movable]
    return modes, n_iter, density


def _take_rows_in_place(A: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``A[idx]`` (distinct ``idx``) in the first ``len(idx)`` rows of ``A`` itself, a view;
    the other rows of ``A`` are left undefined (DGF's peaks: no second copy of them)."""
    ks = np.sort(idx)
    for i, r in enumerate(ks.tolist()):  # ks[i] >= i: each row moves up or stays
        if r != i:
            A[i] = A[r]
    target = np.searchsorted(ks, idx)  # row j of the result is now in row target[j]
    done = np.zeros(idx.size, dtype=bool)
    for j in range(idx.size):  # apply the permutation cycle by cycle, one spare row
        if done[j] or target[j] == j:
            continue
        spare = A[j].copy()
        k = j
        while True:
            done[k] = True
            src = target[k]
            if src == j:
                A[k] = spare
                break
            A[k] = A[src]
            k = src
    return A[:idx.size]


def _at_points(Y, rows, Fa, points, block: int = 256) -> np.ndarray:
    """Whether ``Y[rows[i]]`` equals the point ``Fa[points[i], :-1]`` bit for bit, for each
    ``i``, compared a block of rows at a time (no copy of all of them)."""
    out = np.empty(rows.size, dtype=bool)
    for at in range(0, rows.size, block):
        r, q = rows[at:at + block], points[at:at + block]
        out[at:at + block] = np.all(Y[r] == Fa[q, :-1], axis=1)
    return out


def _peak_groups(space, peaks, founders, near, h, K, kernel, truncate, self_neighbor, tol,
                 jobs) -> tuple[list, np.ndarray, np.ndarray, np.ndarray]:
    """Members (``< h``, closest first), density and mean ``K``-nearest distance of each peak.

    ``near``: each feature's distances to its nearest other features. An isolated feature (no
    other feature within ``max(h, window)``) is its own stationary point: its group is itself,
    its density ``K(0)/p``, and its ``K`` nearest are those found for ``h`` (itself first with
    ``self_neighbor``); only the other peaks need a pass over the features. Without
    ``self_neighbor`` a peak is not its own neighbour either: a feature at the peak (within
    the convergence tolerance) is left out of the peak's ``K`` nearest.
    """
    Fa = space.Fa
    p_eff = Fa.shape[0]
    n_peaks = founders.size
    window = _ms.window_radius(h, kernel, truncate)
    reach = max(h, window) if window is not None else np.inf
    nearest = near[founders, 0] if near.shape[1] else np.full(n_peaks, np.inf)
    alone = (nearest > reach) & _at_points(peaks, np.arange(n_peaks), Fa, founders)
    groups: list = [None] * n_peaks
    dens = np.empty(n_peaks)
    knn = np.empty(n_peaks)
    lone = np.flatnonzero(alone)
    for r in lone:
        groups[r] = space.index[founders[r]: founders[r] + 1]
    dens[lone] = 1.0 / p_eff
    others = K - 1 if self_neighbor else K
    knn[lone] = near[founders[lone], :others].sum(axis=1) / K
    rest = np.flatnonzero(~alone)
    P = peaks[rest]
    knn[rest] = knn_distances(P, Fa, K, exclude_within=None if self_neighbor else tol * h,
                              n_jobs=jobs).mean(axis=1)
    b = block_rows(2 * p_eff + Fa.shape[1], n_arrays=jobs, budget=scratch_budget(Fa))

    scratch = Scratch()

    def block(start):
        stop = min(P.shape[0], start + b)
        Pb = P[start:stop]
        qq = np.einsum("ij,ij->i", Pb, Pb)
        G = shifted_gram(Pb, Fa, out=scratch.get("G", (b + (-b) % GEMM_ROWS, p_eff)))
        thr = (qq - h * h) / 2
        rows, cols = np.nonzero(thr[:, None] < G)   # ||p - f|| < h
        order = np.lexsort((cols, -G[rows, cols], rows))           # closest first
        rows, cols = rows[order], cols[order]
        members = np.split(cols, np.searchsorted(rows, np.arange(1, stop - start)))
        W = _ms.window_weights(G, qq, h, kernel, window)
        return start, members, np.asarray(W.sum(axis=1)).ravel() / p_eff

    for start, members, d in _ms.pool_map(block, list(range(0, P.shape[0], b)), jobs):
        for r, c in zip(rest[start:start + len(members)], members):
            groups[r] = space.index[c]
        dens[rest[start:start + len(members)]] = d
    return groups, dens, knn, peaks


def representatives(groups: list, space: FeatureSpace) -> tuple[list, np.ndarray]:
    """Distinct representatives, in group order: the member with the highest mean Pearson
    correlation to the other members (Yu, Ding and Loscalzo 2008, sec. 6.1) among those not
    already representing an earlier group (ties: lower feature index).

    Returns ``(kept, reps)``: positions of the groups that have a representative (a group
    whose members all represent earlier groups is dropped) and their representatives.
    """
    pos = np.full(space.n_features, -1, dtype=np.int64)
    pos[space.index] = np.arange(space.index.size)
    used = np.zeros(space.n_features, dtype=bool)
    kept, reps = [], []
    for r, g in enumerate(groups):
        g = np.asarray(g, dtype=np.int64)
        free = g[~used[g]]
        if free.size == 0:
            continue
        if g.size == 1:
            best = int(g[0])
        else:
            U = space.unit_rows(pos[g])
            mean_corr = (U @ U.sum(axis=0) - 1.0) / (g.size - 1)
            cand = ~used[g]
            mc = mean_corr[cand]
            best = int(free[np.lexsort((free, -mc))[0]])
        used[best] = True
        kept.append(r)
        reps.append(best)
    return kept, np.asarray(reps, dtype=np.int64)


# -- estimators -----------------------------------------------------------------------------

_DGF_CONSTRAINTS = {
    "n_neighbors": [whole(1, None)],
    "bandwidth": [None, number(0, None, closed="neither")],
    "kernel": [StrOptions(set(KERNELS))],
    "truncate": [None, number(0, None, closed="neither")],
    "drop_sparse": ["boolean"],
    "standardize": ["boolean"],
    "self_neighbor": ["boolean"],
    "tol": [number(0, None, closed="neither")],
    "max_iter": [whole(1, None)],
    "n_jobs": n_jobs_constraint(),
}


def _dgf_kwargs(est) -> dict:
    return {k: getattr(est, k) for k in _DGF_CONSTRAINTS}


def _check_k_groups(est, n_groups: int, p: int) -> None:
    """Warn (one line) when more groups are asked for than exist."""
    if est.n_features_to_select is None:
        return
    k = check_n_features_to_select(est.n_features_to_select, p)
    if k > n_groups:
        warnings.warn(
            f"{type(est).__name__} found {n_groups} groups, fewer than the {k} asked for: the "
            f"other {k - n_groups} selected features are further group members (by rank).",
            UserWarning, stacklevel=4,
        )


class DGF(BaseSelector):
    """Dense Group Finder: groups of highly correlated features by mean shift in sample space.

    Yu, Ding and Loscalzo (2008), Alg. 1 (eqs. 1-4, sec. 4.1 and 6.1); the algorithm and every
    choice where the paper is silent are in :mod:`stablefs.selectors.dense_groups`. DGF is
    unsupervised (``y`` is ignored). As a selector it picks one representative per dense
    group, densest groups first.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Number of groups whose representatives form ``support_`` (``None``: every group).
    n_neighbors : int, default=5
        ``K`` of the bandwidth rule and of the low-density test (the paper's ``K = 5``).
    bandwidth : float or None, default=None
        ``h``; None estimates it as the mean over features of the mean distance to their
        ``K`` nearest neighbours, themselves included (sec. 4.1).
    kernel : {"flat", "gaussian"}, default="flat"
        Mean-shift kernel. The Gaussian is truncated at ``truncate * h``; untruncated
        (``truncate=None``) it merges every feature of a microarray into one peak (module
        docstring).
    truncate : float or None, default=1.0
        Support of the Gaussian kernel in units of ``h`` (ignored by the flat kernel).
    drop_sparse : bool, default=True
        Drop a group whose peak's mean distance to its ``K`` nearest features exceeds ``h``
        (the optional step of Alg. 1, used in the paper).
    standardize : bool, default=True
        Standardise each feature (mean 0, population sd 1) on the training samples, so that
        distances are correlations (sec. 6.1). ``False`` uses the values as given (e.g.
        standardised once on all samples, the other reading of the paper).
    self_neighbor : bool, default=True
        A feature is its own first neighbour: its ``K`` nearest are itself and its
        ``K - 1`` nearest others, for the bandwidth and (for a peak on a feature) the
        low-density test, as the paper's "when K=1, the bandwidth will be zero" implies
        (module docstring). ``False``: the ``K`` nearest *other* features, and a feature at a
        peak is not the peak's neighbour (larger bandwidth; no group of one feature passes
        the low-density test).
    tol : float, default=1e-3
        Mean shift stops when a step is at most ``tol * h``.
    max_iter : int, default=300
        At most this many mean-shift steps per feature.
    n_jobs : int or None, default=None
        Threads for the distance computations (None: 1; -1: all cores). BLAS runs
        single-threaded inside, so the result does not depend on ``n_jobs``.

    Attributes
    ----------
    bandwidth_ : float
        ``h`` used.
    groups_ : list of ndarray of int
        Dense groups (columns of ``X``), densest first; members closest to the peak first.
        Groups may overlap.
    group_scores_ : ndarray of shape (n_groups,)
        Density at each group's peak, the mean kernel weight ``(1/p) sum_l K((p_r - f_l)/h)``
        (proportional to eq. 1).
    peaks_ : ndarray of shape (n_groups, n_samples)
        Peak positions in the (standardised, transposed) training space.
    representatives_ : ndarray of int, shape (n_groups,)
        One feature per group: highest mean correlation to the other members, distinct
        across groups.
    n_peaks_ : int
        Unique peaks found, before the low-density and empty groups were dropped.
    n_iter_ : int
        Largest number of mean-shift steps of any feature.
    feature_density_ : ndarray of shape (n_features,)
        Mean kernel weight at every feature (0 for constant features).
    ranking_ : ndarray of shape (n_features,)
        The representatives in group order, then the other members group by group (closest
        to the peak first), then the features in no group by density, then constant features.
    scores_ : ndarray of shape (n_features,)
        ``n_features + 1 - ranking_`` (a group method has no single score per feature).
    support_ : ndarray of bool
        The representatives of the first ``n_features_to_select_`` groups.
    n_features_to_select_ : int
        The number of groups selected.

    References
    ----------
    .. [1] L. Yu, C. Ding and S. Loscalzo, "Stable feature selection via dense feature
       groups", Proc. 14th ACM SIGKDD Int. Conf. on Knowledge Discovery and Data Mining,
       803–811, 2008, sec. 4.1, Alg. 1 and eqs. 1–4; sec. 6.1.
    .. [2] D. Comaniciu and P. Meer, "Mean shift: a robust approach toward feature space
       analysis", IEEE Transactions on Pattern Analysis and Machine Intelligence 24(5),
       603–619, 2002.

    Examples
    --------
    Three blocks of 8 correlated features and 16 independent ones; DGF finds the blocks and
    drops the scattered features as low-density:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> base = rng.normal(size=(30, 3))
    >>> blocks = np.repeat(base, 8, axis=1) + 0.3 * rng.normal(size=(30, 24))
    >>> X = np.hstack([blocks, rng.normal(size=(30, 16))])
    >>> dgf = DGF().fit(X)
    >>> [sorted(int(j) // 8 for j in g) for g in dgf.groups_]
    [[0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2]]
    """

    _parameter_constraints: dict = {**BaseSelector._parameter_constraints, **_DGF_CONSTRAINTS}

    def __init__(self, n_features_to_select: int | float | None = None, n_neighbors: int = 5,
                 bandwidth: float | None = None, kernel: Literal["flat", "gaussian"] = "flat",
                 truncate: float | None = 1.0, drop_sparse: bool = True, standardize: bool = True,
                 self_neighbor: bool = True, tol: float = 1e-3, max_iter: int = 300,
                 n_jobs: int | None = None) -> None:
        self.n_features_to_select = n_features_to_select
        self.n_neighbors = n_neighbors
        self.bandwidth = bandwidth
        self.kernel = kernel
        self.truncate = truncate
        self.drop_sparse = drop_sparse
        self.standardize = standardize
        self.self_neighbor = self_neighbor
        self.tol = tol
        self.max_iter = max_iter
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: ArrayLike, y: ArrayLike | None = None,
            sample_weight: ArrayLike | None = None) -> Self:
        """Find the dense feature groups of ``X`` (``y`` is ignored).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored
        sample_weight : array-like of shape (n_samples,), optional
            Instance weights (weighted standardisation and coordinates scaled by
            ``sqrt(weight)``, see :mod:`stablefs.selectors._feature_space`).

        Returns
        -------
        self
        """
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2)
        sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64)
        if np.any(sample_weight < 0):
            raise ValueError("sample_weight must be non-negative.")
        if not sample_weight.sum() > 0:
            raise ValueError("sample_weight sums to zero: at least one sample needs weight.")
        p = X.shape[1]
        k = check_n_features_to_select(self.n_features_to_select, p)
        res = dense_feature_groups(X, sample_weight, **_dgf_kwargs(self))
        kept, reps = representatives(res.groups, res.space)
        self.bandwidth_ = res.bandwidth
        self.groups_ = [res.groups[i] for i in kept]
        self.group_scores_ = res.density[kept]
        self.peaks_ = res.peaks[kept]
        self.representatives_ = reps
        self.n_peaks_ = res.n_peaks
        self.n_iter_ = int(res.n_iter.max(initial=0))
        self.feature_density_ = res.feature_density
        _check_k_groups(self, len(kept), p)
        ranking = group_ranking(p, [reps, *self.groups_], res.feature_density,
                                res.space.constant)
        if self.n_features_to_select is None:
            k = max(1, len(kept))
        self.ranking_ = ranking
        self.scores_ = (p + 1 - ranking).astype(float)
        self.support_ = ranking <= k
        self.n_features_to_select_ = k
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = False
        return tags


class DRAGS(BaseSelector):
    """Dense Relevant Attribute Group Selector: the most relevant dense feature groups.

    Yu, Ding and Loscalzo (2008), Alg. 2 (sec. 4.2 and 6.1): the dense groups of :class:`DGF`
    are ranked by ``Phi(G)``, the mean relevance of their members (the one-way ANOVA
    F-statistic by default, as in the paper); the top ``k`` groups are selected and each
    contributes its representative, the member with the highest mean Pearson correlation to
    the other members (distinct across groups, see the module docstring). ``transform``
    returns the ``k`` representatives; ``groups_`` keeps all members.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        ``k``, the number of groups (= representative features) selected; ``None``: all
        dense groups. More than there are groups selects further members (warning).
    relevance : estimator, str or None, default=None
        Univariate relevance: a selector whose ``fit(X, y[, sample_weight])`` sets
        ``scores_`` (higher = more relevant); None = :class:`~stablefs.selectors.FStatistic`
        (the paper's choice). In a method string it may be a method string itself
        (``"drags(relevance='ttest')"``); in Python, pass ``stablefs.make_selector("ttest")``.
    n_neighbors, bandwidth, kernel, truncate, drop_sparse
        The DGF parameters, see :class:`DGF`.
    standardize, self_neighbor, tol, max_iter, n_jobs
        The DGF parameters, see :class:`DGF`.

    Attributes
    ----------
    groups_ : list of ndarray of int
        Every dense group, most relevant first (members closest to the peak first).
    group_scores_ : ndarray of shape (n_groups,)
        ``Phi(G)``: mean relevance of the members (descending).
    representatives_ : ndarray of int, shape (n_groups,)
        The representative of each group, in the same order.
    group_density_ : ndarray of shape (n_groups,)
        Density at each group's peak (as :attr:`DGF.group_scores_`).
    feature_scores_ : ndarray of shape (n_features,)
        Relevance of every feature.
    bandwidth_, n_peaks_, n_iter_
        As in :class:`DGF`.
    ranking_ : ndarray of shape (n_features,)
        The representatives in group order, then the other members group by group, then
        the features in no dense group by relevance, then constant features. The top ``k``
        of ``ranking_`` are the representatives of the top ``k`` groups.
    scores_ : ndarray of shape (n_features,)
        ``n_features + 1 - ranking_``.
    support_ : ndarray of bool
        The representatives of the first ``n_features_to_select_`` groups.
    n_features_to_select_ : int
        The number of groups selected.
    classes_ : ndarray
        The class labels seen by ``fit``.

    References
    ----------
    .. [1] L. Yu, C. Ding and S. Loscalzo, "Stable feature selection via dense feature
       groups", Proc. 14th ACM SIGKDD Int. Conf. on Knowledge Discovery and Data Mining,
       803–811, 2008, sec. 4.2, Alg. 2; sec. 6.1.

    Examples
    --------
    Three blocks of 6 correlated features (the third one differs between the classes) and 12
    independent features:

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> y = np.repeat([0, 1], 20)
    >>> base = rng.normal(size=(40, 3))
    >>> base[:, 2] += 2.0 * y
    >>> blocks = np.repeat(base, 6, axis=1) + 0.3 * rng.normal(size=(40, 18))
    >>> X = np.hstack([blocks, rng.normal(size=(40, 12))])
    >>> drags = DRAGS(n_features_to_select=1).fit(X, y)
    >>> [int(j) // 6 for j in drags.groups_[0]], int(drags.representatives_[0]) // 6
    ([2, 2, 2, 2, 2, 2], 2)
    >>> drags.transform(X).shape
    (40, 1)
    """

    #: parameters that take a selector: a method string given to one inside a method string is
    #: built by :func:`stablefs.methods.make_selector`
    _selector_params = ("relevance",)

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        **_DGF_CONSTRAINTS,
        "relevance": [None, str, HasMethods(["fit"])],
    }

    def __init__(self, n_features_to_select: int | float | None = None,
                 relevance: str | BaseEstimator | None = None, n_neighbors: int = 5,
                 bandwidth: float | None = None, kernel: Literal["flat", "gaussian"] = "flat",
                 truncate: float | None = 1.0, drop_sparse: bool = True, standardize: bool = True,
                 self_neighbor: bool = True, tol: float = 1e-3, max_iter: int = 300,
                 n_jobs: int | None = None) -> None:
        self.n_features_to_select = n_features_to_select
        self.relevance = relevance
        self.n_neighbors = n_neighbors
        self.bandwidth = bandwidth
        self.kernel = kernel
        self.truncate = truncate
        self.drop_sparse = drop_sparse
        self.standardize = standardize
        self.self_neighbor = self_neighbor
        self.tol = tol
        self.max_iter = max_iter
        self.n_jobs = n_jobs

    def _rank(self, X, y, sample_weight):
        p = X.shape[1]
        relevance = relevance_scores(self.relevance, X, y, sample_weight)
        res = dense_feature_groups(X, sample_weight, **_dgf_kwargs(self))
        phi = np.array([relevance[g].mean() for g in res.groups])
        phi = np.where(np.isnan(phi), -np.inf, phi)
        order = np.lexsort((np.arange(phi.size), -phi))  # ties: the denser group
        groups = [res.groups[i] for i in order]
        kept, reps = representatives(groups, res.space)
        self.groups_ = [groups[i] for i in kept]
        self.group_scores_ = phi[order][kept]
        self.group_density_ = res.density[order][kept]
        self.representatives_ = reps
        self.feature_scores_ = relevance
        self.bandwidth_ = res.bandwidth
        self.n_peaks_ = res.n_peaks
        self.n_iter_ = int(res.n_iter.max(initial=0))
        _check_k_groups(self, len(kept), p)
        ranking = group_ranking(p, [reps, *self.groups_], relevance, res.space.constant)
        return (p + 1 - ranking).astype(float), ranking

    def _default_n_features_to_select(self, k: int) -> int:
        return max(1, len(self.groups_))

    def signature(self, feature_names: Sequence[str] | None = None, *,
                  all_groups: bool = False) -> pd.DataFrame:
        """The selected groups as a table, one row per member (a group-aware signature).

        Parameters
        ----------
        feature_names : sequence of str, optional
            Names of the columns of ``X`` (default ``x0, x1, ...``).
        all_groups : bool, default=False
            Every dense group instead of the ``n_features_to_select_`` selected ones.

        Returns
        -------
        pandas.DataFrame
            Columns ``group`` (1 = most relevant), ``group_score`` (``Phi``), ``group_size``,
            ``feature``, ``representative`` (bool), ``relevance`` (the feature's score),
            ``rank`` (its position in ``ranking_``).
        """
        return group_signature(self, feature_names, all_groups=all_groups)


def relevance_scores(relevance, X, y, sample_weight) -> np.ndarray:
    """Per-feature relevance from a selector (clone fitted on the data), or the F-statistic
    when ``relevance`` is None.

    A method string is resolved one layer up, where method strings live: in a method string
    (``"drags(relevance='ttest')"``) :func:`stablefs.methods.make_selector` turns it into the
    selector (the class lists ``relevance`` in ``_selector_params``); given directly, it is
    refused with a one-line error that says so."""
    if relevance is None:
        from stablefs.selectors.univariate import anova_f

        return anova_f(X, y, sample_weight)
    if isinstance(relevance, str):
        raise StablefsError(
            f"relevance = {relevance!r}: give a selector, e.g. "
            f"stablefs.make_selector({relevance!r}); a method string is read inside a method "
            f"string such as \"drags(relevance='{relevance}')\"."
        )
    est = clone(relevance)
    try:
        est.fit(X, y, sample_weight=sample_weight)
    except TypeError:
        if sample_weight is not None and np.ptp(sample_weight) > 0:
            raise StablefsError(
                f"the relevance selector {type(est).__name__} takes no sample_weight: use "
                "one that does (e.g. FStatistic) or fit without instance weights."
            ) from None
        est.fit(X, y)
    scores = getattr(est, "scores_", None)
    if scores is None or np.shape(scores) != (X.shape[1],):
        raise StablefsError(
            f"the relevance selector {type(est).__name__} sets no scores_ of one value per "
            "feature: use a univariate selector such as FStatistic or TTest."
        )
    return np.asarray(scores, dtype=float)


def group_signature(est, feature_names=None, *, all_groups: bool = False):
    """One row per member of the selected groups of a fitted group method (see
    :meth:`DRAGS.signature`)."""
    import pandas as pd

    p = est.ranking_.size
    names = (np.asarray([f"x{j}" for j in range(p)]) if feature_names is None
             else np.asarray([str(n) for n in feature_names]))
    if names.size != p:
        raise StablefsError(
            f"{names.size} feature names given for {p} features: pass one name per column."
        )
    n = len(est.groups_) if all_groups else min(len(est.groups_), est.n_features_to_select_)
    rel = getattr(est, "feature_scores_", None)
    rows = []
    for r in range(n):
        g = est.groups_[r]
        for j in g:
            rows.append({
                "group": r + 1,
                "group_score": float(est.group_scores_[r]),
                "group_size": int(g.size),
                "feature": names[j],
                "representative": bool(j == est.representatives_[r]),
                "relevance": float(rel[j]) if rel is not None else np.nan,
                "rank": int(est.ranking_[j]),
            })
    cols = ["group", "group_score", "group_size", "feature", "representative", "relevance",
            "rank"]
    return pd.DataFrame(rows, columns=cols)
