"""Features as points in sample space: the transposed, standardised data of feature grouping.

Yu, Ding and Loscalzo (2008, sec. 4.1 and 6.1) group *features*: the data matrix is transposed
so that every feature is a point in ``R^d`` (``d`` = number of samples), after each feature
vector is standardised to mean 0 and standard deviation 1 over the samples, so that

    ||f_a - f_b||^2 = 2 d (1 - r_ab)                 (Yu, Ding and Loscalzo 2008, sec. 6.1)

with ``r_ab`` the Pearson correlation: Euclidean neighbourhoods are correlation neighbourhoods.
The identity needs the population standard deviation (``1/d``), which is what is used here.

Instance weights. A sample of weight ``v_i`` (rescaled to mean 1 over the samples of positive
weight, so that equal weights are the unweighted case exactly) enters with the weighted mean
and variance, and its coordinate is multiplied by ``sqrt(v_i)``; then
``||f_a - f_b||^2 = 2 d_+ (1 - r^w_ab)`` with the weighted correlation ``r^w`` and ``d_+`` the
number of samples of positive weight. A weight of 0 is the same as removing the sample, and an
integer weight is the same as repeating the sample, up to a common scale factor of all
distances (which the data-driven bandwidth follows, so groups are unchanged).

Constant features (all values equal on the samples of positive weight) have no correlation
with anything; they are not points of the feature space, belong to no group, and rank last.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from stablefs._runtime.threads import limit_threads
from stablefs._validation import ranking_from_order

#: bytes allowed for one temporary block (rows x features) in blocked distance computations
BLOCK_BYTES = 48 * 2**20
#: blocks of queries are padded to a multiple of this many rows (see :func:`shifted_gram`)
GEMM_ROWS = 8
#: the blocks' budget is a third of the points' size when that is more than this, else up to
#: this much (a BLAS product packs all the points at every call, so blocks of fewer rows spend more
#: of their time packing: on Chowdary's 11,141 first genes 4.7 MB blocks took 25 % longer than
#: 16 MB or 48 MB ones)
FAST_BLOCK_BYTES = 16 * 2**20
#: the smallest block budget
MIN_BLOCK_BYTES = 2**20
#: bytes of the temporaries of :func:`feature_space` (columns of X standardised a block at a
#: time; at most an eighth of X's size, at least :data:`MIN_BLOCK_BYTES`)
STANDARDIZE_BYTES = 8 * 2**20
#: blocks of at least this many Gram entries use the kernel threads of a mean shift that runs
#: one block at a time (``_mean_shift.gram_in_parts``, ``_dgf_kernels.window_sums``)
PARALLEL_MIN_ENTRIES = 2**20
#: nearest-neighbour searches take each row's top K with the compiled kernel
#: (:func:`stablefs.selectors._dgf_kernels.top_k_desc`, same values); False: :func:`top_k_rows`
COMPILED_TOP_K = True


def block_rows(n_cols: int, n_arrays: int = 2, budget: int = BLOCK_BYTES) -> int:
    """Rows per block so that ``n_arrays`` float64 blocks of ``rows x n_cols`` fit ``budget``
    (a multiple of :data:`GEMM_ROWS` when more than that fit)."""
    rows = int(max(1, min(8192, budget // (8 * max(1, n_cols) * max(1, n_arrays)))))
    return rows - rows % GEMM_ROWS if rows > GEMM_ROWS else rows


def scratch_budget(points: np.ndarray) -> int:
    """The bytes of the temporary blocks of a pass over ``points``: a third of the points'
    size, or up to :data:`FAST_BLOCK_BYTES` (at most the points' size) when that is more, never more
    than :data:`BLOCK_BYTES` nor less than :data:`MIN_BLOCK_BYTES`. A block's rows are computed
    the same way whatever its size (:func:`shifted_gram`), so the budget changes only the
    memory and the speed."""
    size = points.nbytes
    return int(min(BLOCK_BYTES, max(MIN_BLOCK_BYTES, size // 3, min(FAST_BLOCK_BYTES, size))))


@dataclass
class FeatureSpace:
    """Non-constant features as points ``f`` (rows of ``F``, ``p_eff x d_+``), with bookkeeping.

    ``F`` is stored augmented, ``Fa = [F | -||f||^2 / 2]`` (one extra column), so that one BLAS
    product gives the *shifted Gram matrix* ``q.f - ||f||^2/2`` of any queries ``q``
    (:func:`shifted_gram`), from which ``||q - f||^2 = ||q||^2 - 2 (q.f - ||f||^2/2)``: window
    tests and nearest-neighbour searches then need no further pass over the block.

    Attributes
    ----------
    Fa : ndarray of shape (p_eff, d_plus + 1)
        ``[F | -||f||^2/2]``, C order.
    index : ndarray of int, shape (p_eff,)
        Column of ``X`` of each row of ``F`` (ascending).
    constant : ndarray of bool, shape (p,)
        Constant features of ``X`` (not in ``F``).
    sqrt_v : ndarray of shape (d_plus,)
        Square roots of the mean-1 instance weights of the samples of positive weight.
    n_features : int
        ``p``, the number of columns of ``X``.
    """

    Fa: np.ndarray
    index: np.ndarray
    constant: np.ndarray
    sqrt_v: np.ndarray
    n_features: int

    @property
    def F(self) -> np.ndarray:
        """The points, a view ``(p_eff, d_+)`` of ``Fa`` without its last column."""
        return self.Fa[:, :-1]

    @property
    def sq(self) -> np.ndarray:
        """Squared norms ``||f||^2`` of the points."""
        return -2.0 * self.Fa[:, -1]

    def unit_rows(self, rows: np.ndarray) -> np.ndarray:
        """Rows of ``F`` (positions ``rows``) weighted-centred and scaled to unit norm.

        The dot product of two unit rows is the (weighted) Pearson correlation of the two
        features, whether or not ``F`` was standardised.
        """
        sv = self.sqrt_v
        B = self.F[rows]
        mean = (B @ sv) / (sv @ sv)
        B = B - np.outer(mean, sv)
        nrm = np.sqrt(np.einsum("ij,ij->i", B, B))
        return np.divide(B, nrm[:, None], out=np.zeros_like(B), where=nrm[:, None] > 0)


class Scratch(threading.local):
    """Per-thread scratch blocks, kept from block to block (rows x points)."""

    def get(self, name: str, shape: tuple) -> np.ndarray:
        arr = getattr(self, name, None)
        if arr is None or arr.shape[0] < shape[0] or arr.shape[1] != shape[1]:
            arr = np.empty(shape)
            setattr(self, name, arr)
        return arr


def augment(F: np.ndarray) -> np.ndarray:
    """``[F | -||f||^2 / 2]``, C order (see :class:`FeatureSpace`)."""
    F = np.asarray(F, dtype=np.float64)
    Fa = np.empty((F.shape[0], F.shape[1] + 1))
    Fa[:, :-1] = F
    Fa[:, -1] = -0.5 * np.einsum("ij,ij->i", F, F)
    return Fa


def feature_space(X: np.ndarray, sample_weight: np.ndarray | None = None, *,
                  standardize: bool = True) -> FeatureSpace:
    """The transposed data of Yu, Ding and Loscalzo (2008, sec. 4.1 and 6.1).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Finite values.
    sample_weight : ndarray of shape (n_samples,), optional
        Non-negative instance weights (any scale); see the module docstring.
    standardize : bool, default=True
        Standardise every feature to (weighted) mean 0 and population sd 1, so that distances
        are correlations (the paper's setting). ``False`` uses the raw values, e.g. for data
        standardised once on all samples before resampling.

    Returns
    -------
    FeatureSpace
    """
    X = np.asarray(X, dtype=np.float64)
    n, p = X.shape
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    keep = w > 0
    Xp = X[keep] if not keep.all() else X
    v = w[keep] / w[keep].mean()
    constant = np.ptp(Xp, axis=0) == 0
    index = np.flatnonzero(~constant)
    d = Xp.shape[0]
    sqrt_v = np.sqrt(v)
    Fa = np.empty((index.size, d + 1))
    F = Fa[:, :d]
    # column blocks of X (each feature is standardised on its own): temporaries of a block,
    # not copies of X. Blocks of a multiple of 64 columns give the same numbers as the whole
    # matrix at once (BLAS's matrix-vector kernels treat columns in small groups and the
    # leftover ones by another path, so a block of any width could round differently).
    # One BLAS thread: a product split over threads rounds some columns differently (Chowdary's
    # points depended on the BLAS thread count before).
    budget = min(STANDARDIZE_BYTES, max(MIN_BLOCK_BYTES, Xp.nbytes // 8))
    width = max(64, block_rows(d, n_arrays=3, budget=budget) // 64 * 64)
    with limit_threads(1, user_api="blas"):
        for start in range(0, index.size, width):
            Xk = Xp[:, index[start:start + width]]
            if standardize:
                Xk -= Xk[0].copy()  # exact zeros stay zeros; reduces cancellation in the mean
                Xk -= (v @ Xk) / d
                Xk /= np.sqrt((v @ np.square(Xk)) / d)
            Xk *= sqrt_v[:, None]
            F[start:start + width] = Xk.T
    Fa[:, d] = -0.5 * np.einsum("ij,ij->i", F, F)
    return FeatureSpace(Fa=Fa, index=index, constant=constant, sqrt_v=sqrt_v, n_features=p)


def shifted_gram(Q: np.ndarray, Fa: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``q.f - ||f||^2 / 2`` for every row ``q`` of ``Q`` and point ``f`` (one BLAS product).

    ``out``: where to write it (the result is then ``out[:len(Q)]``, or ``out`` itself when it
    has exactly ``len(Q)`` rows); scratch reused from block to block keeps a thread's large
    temporaries from being freed and allocated again (glibc keeps such memory in the thread's
    arena: the resident size grew by the data's size with two threads).

    With ``G`` this matrix, ``||q - f||^2 = ||q||^2 - 2 G``: the nearest points are the
    largest entries of a row, and ``||q - f|| <= r`` is ``G >= (||q||^2 - r^2) / 2``.
    """
    d = Fa.shape[1] - 1
    m = Q.shape[0]
    # whole multiples of GEMM_ROWS rows (the padding rows are zeros): BLAS computes a row of
    # the product the same way whatever the block, only in a block of such a multiple (a
    # leftover single row goes through another kernel and rounds differently)
    rows = m + (-m) % GEMM_ROWS
    Qa = np.zeros((rows, d + 1))
    Qa[:m, :d] = Q
    Qa[:m, d] = 1.0
    if out is not None and out.shape[0] >= rows:  # scratch with room for the padding rows
        return np.matmul(Qa, Fa.T, out=out[:rows])[:m]
    if rows == m:
        return np.matmul(Qa, Fa.T, out=out)
    G = np.matmul(Qa, Fa.T)
    if out is None:
        return G[:m]
    out[...] = G[:m]
    return out


def sq_distances(A: np.ndarray, sq_a: np.ndarray, F: np.ndarray, sq_f: np.ndarray,
                 out: np.ndarray | None = None) -> np.ndarray:
    """Squared Euclidean distances between the rows of ``A`` and of ``F`` (one BLAS product).

    ``||a||^2 + ||f||^2 - 2 a.f``, clipped at 0 (round-off can make it slightly negative).
    For small sets (peaks against peaks); feature-sized ones use :func:`shifted_gram`.
    """
    D2 = np.matmul(A, F.T, out=out)
    D2 *= -2.0
    D2 += sq_a[:, None]
    D2 += sq_f[None, :]
    np.maximum(D2, 0.0, out=D2)
    return D2


def top_k_rows(G: np.ndarray, k: int, chunk: int = 64) -> np.ndarray:
    """The ``k`` largest values of every row of ``G``, in descending order.

    Faster than ``np.partition`` on wide rows: the maxima of column chunks give each row a
    threshold that at least ``k`` values reach (the ``k``-th largest chunk maximum), and only
    the values above it are sorted. ``-inf`` marks excluded entries.
    """
    m, p = G.shape
    n_chunks = p // chunk
    if n_chunks < 4 * k:
        top = np.partition(G, p - k, axis=1)[:, p - k:]
        return -np.sort(-top, axis=1)
    cut = n_chunks * chunk
    maxima = G[:, :cut].reshape(m, n_chunks, chunk).max(axis=2)
    if cut < p:
        maxima = np.concatenate([maxima, G[:, cut:].max(axis=1, keepdims=True)], axis=1)
    thr = np.partition(maxima, maxima.shape[1] - k, axis=1)[:, maxima.shape[1] - k]
    rows, cols = np.nonzero(thr[:, None] <= G)
    vals = G[rows, cols]
    order = np.lexsort((-vals, rows))
    rows, vals = rows[order], vals[order]
    starts = np.searchsorted(rows, np.arange(m))
    return vals[starts[:, None] + np.arange(k)[None, :]]


def _knn_block(Qb, Fa, K, own=None, exclude_within=None, scratch=None):
    """Sorted distances of the rows of ``Qb`` to their ``K`` nearest points (``scratch``: a
    block to hold the shifted Gram matrix, see :func:`shifted_gram`)."""
    qq = np.einsum("ij,ij->i", Qb, Qb)
    G = shifted_gram(Qb, Fa, out=scratch)
    if own is not None:
        G[np.arange(Qb.shape[0]), own] = -np.inf
    if exclude_within is not None:
        thr = (qq - exclude_within**2) / 2
        G[thr[:, None] <= G] = -np.inf
    if COMPILED_TOP_K:
        from stablefs.selectors._dgf_kernels import top_k_desc  # Numba, on first use

        top = top_k_desc(G, K)
    else:
        top = top_k_rows(G, K)
    return np.sqrt(np.maximum(qq[:, None] - 2.0 * top, 0.0))


def knn_distances(Q: np.ndarray, Fa: np.ndarray, n_neighbors: int, *,
                  self_rows: np.ndarray | None = None, exclude_within: float | None = None,
                  n_jobs: int = 1) -> np.ndarray:
    """Distances of each row of ``Q`` to its ``n_neighbors`` nearest points, nearest first.

    Blocked over the rows of ``Q`` (memory ``O(block x p)``, see :func:`scratch_budget`); blocks
    run in ``n_jobs`` threads.

    Parameters
    ----------
    Q : ndarray of shape (m, d)
    Fa : ndarray of shape (p, d + 1)
        The augmented points (:func:`augment`).
    n_neighbors : int
        ``K``, at most the number of points left as neighbours (missing ones are ``inf``).
    self_rows : ndarray of int, shape (m,), optional
        Point that each query *is*, left out of its own neighbours by index (so duplicated
        features still count as neighbours at distance 0).
    exclude_within : float, optional
        Leave out the points within this distance of the query (a query is not its own
        neighbour when it sits on a point).
    n_jobs : int, default=1

    Returns
    -------
    ndarray of shape (m, n_neighbors)
    """
    from stablefs._runtime.threads import pool_map

    m, p = Q.shape[0], Fa.shape[0]
    K = int(n_neighbors)
    # per thread: the block's shifted Gram rows (p columns) and its augmented queries (d + 1)
    b = block_rows(p + Fa.shape[1], n_arrays=max(1, n_jobs), budget=scratch_budget(Fa))

    scratch = Scratch()

    def block(start):
        stop = min(m, start + b)
        own = None if self_rows is None else self_rows[start:stop]
        G = scratch.get("G", (b + (-b) % GEMM_ROWS, p))
        return _knn_block(Q[start:stop], Fa, K, own, exclude_within, G)

    parts = pool_map(block, list(range(0, m, b)), n_jobs)
    return np.concatenate(parts) if parts else np.empty((0, K))


def knn_mean_distance(Q: np.ndarray, Fa: np.ndarray, n_neighbors: int, **kwargs) -> np.ndarray:
    """Mean distance of each row of ``Q`` to its ``n_neighbors`` nearest points (the bandwidth
    rule of Yu, Ding and Loscalzo 2008, sec. 4.1); arguments as :func:`knn_distances`."""
    return knn_distances(Q, Fa, n_neighbors, **kwargs).mean(axis=1)


def group_ranking(n: int, first: list[np.ndarray], tail_scores: np.ndarray,
                            constant: np.ndarray) -> np.ndarray:
    """A ranking 1..n that lists ``first`` (concatenated, first occurrence wins), then the
    remaining non-constant features by ``tail_scores`` (descending; ties: lower index), then
    the constant features by index.
    """
    seq = np.concatenate([np.asarray(a, dtype=np.int64).ravel() for a in first]) if first \
        else np.empty(0, np.int64)
    if seq.size:
        _, pos = np.unique(seq, return_index=True)
        head = seq[np.sort(pos)]
    else:
        head = seq
    seen = np.zeros(n, dtype=bool)
    seen[head] = True
    rest = np.flatnonzero(~seen & ~constant)
    key = np.where(np.isnan(tail_scores[rest]), -np.inf, tail_scores[rest])
    rest = rest[np.lexsort((rest, -key))]
    last = np.flatnonzero(~seen & constant)
    return ranking_from_order(np.concatenate([head, rest, last]))
