"""Compiled (Numba) kernels of the Relief family: Manhattan distances, nearest neighbours within a
class, and weighted ``|a - b|`` sums.

The O(n^2 p) parts of ReliefF, Relief, IW-ReliefF and the margin instance weights (Han 2012,
eqs. 4.2-4.3 and 5.1-5.3; Kononenko 1994) are loops over pairs of samples:

- :func:`cityblock_distances` -- ``D[i, l] = sum_j |x_ij - x_lj|`` for every pair, optionally
  of the min-max scaled data ``(x - lo) / span`` without making the scaled copy;
- :func:`nearest_members` -- the ``k`` nearest members of a class for each instance, ties to
  the lower index (a stable sort's first ``k``), read from the distance matrix in place;
- :func:`pair_abs_diff_sums` -- ``s_j = sum_t c_t |x_{a_t j} - x_{b_t j}|`` over a list of
  (instance, neighbour, coefficient) triples, and :func:`member_pair_abs_diff_sums`, the same
  for the members of an ensemble at once (pair ``t`` adds ``c_tm |...|`` to member ``m``'s row);
- :func:`coefficient_abs_diff_sums` -- ``out[i, j] = sum_l C[i, l] |x_ij - x_lj|``;
- :func:`margin_abs_diff_sums` -- every sample's summed differences to all its misses minus
  all its hits (the margin vectors of eqs. 4.2 and 4.7), by one sort and prefix sums per
  feature.

How they are fast, and why they give the same result on every run and for any number of threads:

- Memory. Each kernel works on blocks of features that stay in cache: it first copies the
  block, scaled, into a compact buffer (the distances: transposed, ``FEATURE_BLOCK x n``; the
  sums: ``n x block``, at most :data:`SUM_BLOCK_BYTES`), then every pair reads the buffer,
  not rows of ``X`` scattered over memory. The scaled value is computed as
  :func:`~stablefs.selectors._neighbors.minmax_scale` computes it (``(x - lo) / span``, the
  same two operations), so it is the same number and no scaled copy of ``X`` is needed.
- Distances: for a tile of :data:`ROW_TILE` instances, each feature of the block adds
  ``|x_ij - x_lj|`` to the running sums of every later instance ``l`` in one loop over ``l``
  (contiguous in the transposed block, whole SIMD iterations: the loop is padded to
  :data:`LANES`), so the compiler vectorises across ``l`` without reassociating any sum: every
  ``D[i, l]`` is the plain left-to-right sum over the features, bit for bit what
  :func:`scipy.spatial.distance.pdist` returns (tested), and the neighbours are the same as
  before. Only ``l > i`` is computed (a few entries left of the diagonal are computed and then
  overwritten by the mirror image); the lower triangle is filled in place.
- Weighted sums: in each block, every pair adds ``c_t |x_a - x_b|`` to a block accumulator in
  the pairs' order, so feature ``j``'s sum is the same sequence of operations whatever the
  block size.
- Threads: the distance rows and the feature blocks of the sums are split into independent
  tasks (each writes its own rows or features, each entry is summed in the same order
  whatever the split), run on :func:`stablefs._runtime.threads.kernel_threads` threads: the free
  cores when one fit runs alone, one thread inside joblib's or Dask's workers. Results are
  bit for bit the same for any thread count (tested). Small problems run on one thread.
- Divisions by ``span`` are compiled with NumPy's error model (no zero-divisor check per
  element, so they run as SIMD instructions; ``span`` is never 0) and give the same numbers.
- float64 throughout. fast-select runs float32 with fast-math; float32 sums of 12,000
  features move distances by about 1e-7 relative, enough to swap near-tied neighbours.

The module imports Numba; it is imported lazily by :mod:`stablefs.selectors._neighbors`, so
importing stablefs does not import Numba. Compiled code is cached on disk (``cache=True``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from stablefs._runtime.compilation import watch_compilation
from stablefs._runtime.threads import kernel_threads, run_tasks

watch_compilation()  # first-use compilation is announced

#: features per block of the distance kernel (its transposed scaled copy, ``FEATURE_BLOCK x n``
#: float64, stays in L2)
FEATURE_BLOCK = 64
#: instances whose distances share one pass over a block's columns (the column values are
#: read once from L1 for all of them)
ROW_TILE = 4
#: columns of the distance matrix per pass: the tile's running sums (``ROW_TILE x
#: COLUMN_CHUNK``) stay in L1 however many samples there are
COLUMN_CHUNK = 512
#: the passes over columns run in whole multiples of this many (four AVX2 registers)
LANES = 16
#: bytes of the weighted-sum kernels' block copy (``n x block`` float64): fits in L2
SUM_BLOCK_BYTES = 2**17
#: most and fewest features per block of the weighted-sum kernels
SUM_BLOCK = 256
MIN_SUM_BLOCK = 8
#: terms (``|a - b|`` evaluations) below which a kernel runs on one thread: starting threads
#: costs about 0.1 ms
PARALLEL_MIN_TERMS = 4_000_000
#: tasks per thread of the weighted-sum kernels (a thread slowed by other processes takes
#: fewer of them); the distance kernel runs one task per thread, since each task copies the
#: columns it reads
TASKS_PER_THREAD = 3


def _threads_for(terms: float, threads: int | None) -> int:
    """The threads a kernel of ``terms`` operations uses: one when small, else ``threads``
    (default :func:`~stablefs._runtime.threads.kernel_threads`)."""
    if threads is None:
        threads = kernel_threads() if terms >= PARALLEL_MIN_TERMS else 1
    return max(1, int(threads))


def _scale_range(X, lo, span):
    """Float64 C-contiguous ``X`` and its ``lo``, ``span`` (zeros and ones when ``None``)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    p = X.shape[1]
    lo = np.zeros(p) if lo is None else np.ascontiguousarray(lo, dtype=np.float64)
    span = np.ones(p) if span is None else np.ascontiguousarray(span, dtype=np.float64)
    return X, lo, span


@njit(cache=True, nogil=True, error_model="numpy")
def _cityblock_rows(X, lo, span, i_start, i_stop, out):  # pragma: no cover - compiled
    # out[i, l] (i in [i_start, i_stop), l > i) += sum_j |s_ij - s_lj| over the features in
    # order, s = (x - lo) / span. Per feature block: a scaled transposed copy XT of the columns
    # from col0 on (padded with zeros to whole LANES); per tile of ROW_TILE rows and chunk of
    # columns, the running sums are copied to buf, every feature of the block adds its term to
    # each sum (one vectorisable loop over columns per row and feature), and the sums are
    # copied back. Entries left of the diagonal in a tile's first chunk are computed too (the
    # caller overwrites them), the diagonal stays 0.
    n, p = X.shape
    col0 = i_start - i_start % LANES
    cols = n - col0
    XT = np.zeros((FEATURE_BLOCK, cols + (-cols) % LANES))
    buf = np.zeros((ROW_TILE, COLUMN_CHUNK))
    for base in range(0, p, FEATURE_BLOCK):
        width = min(p, base + FEATURE_BLOCK) - base
        for i in range(col0, n):
            xi = X[i]
            for j in range(width):
                XT[j, i - col0] = (xi[base + j] - lo[base + j]) / span[base + j]
        for i0 in range(i_start, i_stop, ROW_TILE):
            rows = min(ROW_TILE, i_stop - i0)
            first = i0 + 1 - (i0 + 1 - col0) % LANES
            for c0 in range(first, n, COLUMN_CHUNK):
                c1 = min(c0 + COLUMN_CHUNK, n)
                lanes = c1 - c0 + (c0 - c1) % LANES
                for r in range(rows):
                    for q in range(c1 - c0):
                        buf[r, q] = out[i0 + r, c0 + q]
                for j in range(width):
                    xl = XT[j, c0 - col0:c0 - col0 + lanes]
                    for r in range(rows):
                        xi = XT[j, i0 + r - col0]
                        acc = buf[r]
                        for q in range(lanes):
                            acc[q] += abs(xi - xl[q])
                for r in range(rows):
                    for q in range(c1 - c0):
                        out[i0 + r, c0 + q] = buf[r, q]


@njit(cache=True, nogil=True)
def _mirror_upper(D):  # pragma: no cover - compiled
    # D[l, i] = D[i, l] for l > i, in square tiles (both stay in cache)
    n = D.shape[0]
    for i0 in range(0, n, 64):
        for l0 in range(i0, n, 64):
            for i in range(i0, min(i0 + 64, n)):
                for ell in range(max(l0, i + 1), min(l0 + 64, n)):
                    D[ell, i] = D[i, ell]


def _row_ranges(n: int, parts: int) -> list[tuple[int, int]]:
    """Split rows ``0..n-1`` of the upper triangle into up to ``parts`` ranges of about equal
    work (row ``i`` has ``n - 1 - i`` entries), cut at multiples of :data:`ROW_TILE`."""
    if parts <= 1:
        return [(0, n)]
    done = np.cumsum(np.arange(n - 1, -1, -1, dtype=np.float64))
    cuts = [0]
    for k in range(1, parts):
        cut = int(np.searchsorted(done, done[-1] * k / parts))
        cut -= cut % ROW_TILE
        if cuts[-1] < cut < n:
            cuts.append(cut)
    cuts.append(n)
    return list(zip(cuts[:-1], cuts[1:]))


def cityblock_distances(X: np.ndarray, lo: np.ndarray | None = None,
                        span: np.ndarray | None = None, *, threads: int | None = None,
                        ) -> np.ndarray:
    """Manhattan distances between the rows of ``(X - lo) / span`` (square, symmetric, zero
    diagonal).

    Each entry is the left-to-right sum over the features of ``|s_ij - s_lj|`` in float64,
    ``s = (x - lo) / span`` computed as :func:`~stablefs.selectors._neighbors.minmax_scale`
    does (without ``lo`` and ``span``: ``X`` itself), bit for bit the same for any number of
    threads. Memory: the ``n x n`` result and one transposed feature block per thread.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    lo, span : ndarray of shape (n_features,), optional
        The offset and divisor of every feature (min-max scaling: the minimum and the range).
    threads : int, optional
        Default: :func:`stablefs._runtime.threads.kernel_threads` (one for small problems).

    Returns
    -------
    ndarray of shape (n_samples, n_samples)
    """
    X, lo, span = _scale_range(X, lo, span)
    n, p = X.shape
    D = np.zeros((n, n))
    if n > 1 and p > 0:
        threads = _threads_for(n * n * p / 2, threads)
        run_tasks(_cityblock_rows, [(X, lo, span, a, b, D) for a, b in _row_ranges(n, threads)],
                  threads)
        _mirror_upper(D)
    return D


@njit(cache=True, nogil=True)
def _nearest_members(D, rows, members, k, out):  # pragma: no cover - compiled
    # for each row: the k smallest (D[row, m], m) in lexicographic order, ascending, by
    # insertion into a sorted list; members ascend, so a tie keeps the earlier (lower) member
    dist = np.empty(k)
    for r in range(rows.size):
        d_row = D[rows[r]]
        count = 0
        for m in members:
            d = d_row[m]
            if count == k and not d < dist[k - 1]:
                continue
            pos = count if count < k else k - 1
            while pos > 0 and d < dist[pos - 1]:
                if pos < k:
                    dist[pos] = dist[pos - 1]
                    out[r, pos] = out[r, pos - 1]
                pos -= 1
            dist[pos] = d
            out[r, pos] = m
            if count < k:
                count += 1


def nearest_members(D: np.ndarray, rows: np.ndarray, members: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` nearest ``members`` of each instance in ``rows``, nearest first, ties to the
    lower sample index: the first ``k`` of a stable sort of ``D[i, members]`` (NaN-free
    ``D``; ``k <= len(members)``), without sorting and without copying ``D``.

    Parameters
    ----------
    D : ndarray of shape (n, n)
    rows : ndarray of int
    members : ndarray of int, ascending
    k : int

    Returns
    -------
    ndarray of shape (len(rows), k)
    """
    out = np.empty((len(rows), int(k)), dtype=np.int64)
    if out.size:
        _nearest_members(np.ascontiguousarray(D, dtype=np.float64),
                         np.ascontiguousarray(rows, dtype=np.int64),
                         np.ascontiguousarray(members, dtype=np.int64), int(k), out)
    return out


def _sum_block(n: int) -> int:
    """Features per block of the weighted-sum kernels for ``n`` samples: the block copy
    ``n x block`` within :data:`SUM_BLOCK_BYTES`, a multiple of :data:`MIN_SUM_BLOCK`."""
    block = SUM_BLOCK_BYTES // (8 * max(n, 1))
    return int(min(SUM_BLOCK, max(MIN_SUM_BLOCK, block - block % MIN_SUM_BLOCK)))


def _feature_ranges(p: int, block: int, parts: int) -> list[tuple[int, int]]:
    """Split features ``0..p-1`` into up to ``parts`` ranges of whole blocks."""
    n_blocks = -(-p // block)
    parts = max(1, min(parts, n_blocks))
    cuts = [min(p, (n_blocks * k // parts) * block) for k in range(parts + 1)]
    return [(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _copy_block(X, lo, span, base, width, out):  # pragma: no cover - compiled
    # out[i, :width] = (X[i, base:base + width] - lo) / span
    for i in range(X.shape[0]):
        xi = X[i]
        oi = out[i]
        for j in range(width):
            oi[j] = (xi[base + j] - lo[base + j]) / span[base + j]


@njit(cache=True, nogil=True, error_model="numpy")
def _pair_sums(X, lo, span, a, b, c, start, stop, block, out):  # pragma: no cover - compiled
    # out[j] = sum_t c[t] |s[a[t], j] - s[b[t], j]| (t in order) for j in [start, stop)
    Xb = np.empty((X.shape[0], block))
    acc = np.empty(block)
    for base in range(start, stop, block):
        width = min(stop, base + block) - base
        _copy_block(X, lo, span, base, width, Xb)
        acc[:] = 0.0
        for t in range(a.size):
            xa = Xb[a[t]]
            xb = Xb[b[t]]
            ct = c[t]
            for j in range(width):
                acc[j] += ct * abs(xa[j] - xb[j])
        out[base:base + width] = acc[:width]


def _run_by_feature_blocks(kernel, X, terms, threads, args, out):
    """Run ``kernel(X, *args, start, stop, block, out)`` over ranges of feature blocks."""
    n, p = X.shape
    block = _sum_block(n)
    threads = _threads_for(terms, threads)
    parts = 1 if threads == 1 else threads * TASKS_PER_THREAD
    run_tasks(kernel, [(X, *args, a, b, block, out) for a, b in _feature_ranges(p, block, parts)],
              threads)


def pair_abs_diff_sums(X: np.ndarray, a: np.ndarray, b: np.ndarray, coef: np.ndarray,
                       lo: np.ndarray | None = None, span: np.ndarray | None = None, *,
                       threads: int | None = None) -> np.ndarray:
    """Per feature ``j``: ``sum_t coef[t] |s[a[t], j] - s[b[t], j]|``, summed in the order of
    ``t``, for ``s = (X - lo) / span`` (``X`` without ``lo`` and ``span``).

    Bit for bit the same for any block size and number of threads.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    a, b : ndarray of int, shape (n_pairs,)
        Row indices of the two samples of each pair.
    coef : ndarray of shape (n_pairs,)
    lo, span : ndarray of shape (n_features,), optional
        Min-max scaling applied on the fly (as in :func:`cityblock_distances`).
    threads : int, optional

    Returns
    -------
    ndarray of shape (n_features,)
    """
    X, lo, span = _scale_range(X, lo, span)
    out = np.zeros(X.shape[1])
    if a.size and X.shape[1]:
        _run_by_feature_blocks(
            _pair_sums, X, a.size * X.shape[1], threads,
            (lo, span, np.ascontiguousarray(a, dtype=np.int64),
             np.ascontiguousarray(b, dtype=np.int64),
             np.ascontiguousarray(coef, dtype=np.float64)), out)
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def _member_pair_sums(X, lo, span, a, b, starts, members, coefs, start, stop, block,
                      out):  # pragma: no cover - compiled
    m = out.shape[0]
    Xb = np.empty((X.shape[0], block))
    acc = np.empty((m, block))
    diff = np.empty(block)
    for base in range(start, stop, block):
        width = min(stop, base + block) - base
        _copy_block(X, lo, span, base, width, Xb)
        acc[:, :] = 0.0
        for t in range(a.size):
            xa = Xb[a[t]]
            xb = Xb[b[t]]
            for j in range(width):
                diff[j] = abs(xa[j] - xb[j])
            for q in range(starts[t], starts[t + 1]):
                row = acc[members[q]]
                ct = coefs[q]
                for j in range(width):
                    row[j] += ct * diff[j]
        out[:, base:base + width] = acc[:, :width]


def member_pair_abs_diff_sums(X: np.ndarray, a: np.ndarray, b: np.ndarray, starts: np.ndarray,
                              members: np.ndarray, coefs: np.ndarray,
                              n_members: int, *, threads: int | None = None) -> np.ndarray:
    """``out[m, j] = sum_t C[m, t] |X[a[t], j] - X[b[t], j]|`` for a sparse ``C`` (CSR by pair).

    Pair ``t`` contributes to the members ``members[starts[t]:starts[t + 1]]`` with the
    coefficients ``coefs[starts[t]:starts[t + 1]]``; every member's sum runs in the order of
    ``t`` (bit for bit the same for any number of threads).

    Returns
    -------
    ndarray of shape (n_members, n_features)
    """
    X, lo, span = _scale_range(X, None, None)
    out = np.zeros((int(n_members), X.shape[1]))
    if a.size and X.shape[1] and n_members:
        _run_by_feature_blocks(
            _member_pair_sums, X, (a.size + members.size) * X.shape[1], threads,
            (lo, span, np.ascontiguousarray(a, dtype=np.int64),
             np.ascontiguousarray(b, dtype=np.int64),
             np.ascontiguousarray(starts, dtype=np.int64),
             np.ascontiguousarray(members, dtype=np.int64),
             np.ascontiguousarray(coefs, dtype=np.float64)), out)
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def _coefficient_sums(X, lo, span, C, start, stop, block, out):  # pragma: no cover - compiled
    n = X.shape[0]
    Xb = np.empty((n, block))
    for base in range(start, stop, block):
        width = min(stop, base + block) - base
        _copy_block(X, lo, span, base, width, Xb)
        for i in range(n):
            xi = Xb[i]
            row = out[i, base:base + width]
            for ell in range(n):
                c = C[i, ell]
                if c == 0.0:
                    continue
                xl = Xb[ell]
                for j in range(width):
                    row[j] += c * abs(xi[j] - xl[j])


def coefficient_abs_diff_sums(X: np.ndarray, C: np.ndarray, *,
                              threads: int | None = None) -> np.ndarray:
    """``out[i, j] = sum_l C[i, l] |x_ij - x_lj|`` (Han 2012, eq. 4.3 with the weights ``C``).

    Every ``out[i, j]`` adds its terms in the order of ``l`` (zero coefficients skipped), over
    blocks of features that stay in cache (bit for bit the same for any number of threads);
    memory: the output.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    C : ndarray of shape (n_samples, n_samples)
    threads : int, optional

    Returns
    -------
    ndarray of shape (n_samples, n_features)
    """
    X, lo, span = _scale_range(X, None, None)
    out = np.zeros(X.shape)
    if X.size:
        C = np.ascontiguousarray(C, dtype=np.float64)
        _run_by_feature_blocks(_coefficient_sums, X, np.count_nonzero(C) * X.shape[1],
                               threads, (lo, span, C), out)
    return out


@njit(cache=True, nogil=True, fastmath={"reassoc"})
def _weighted_l1_to(X, i, f, out):  # pragma: no cover - compiled
    n, p = X.shape
    xi = X[i]
    for ell in range(n):
        xl = X[ell]
        s = 0.0
        for j in range(p):
            s += f[j] * abs(xl[j] - xi[j])
        out[ell] = s


@njit(cache=True, nogil=True, fastmath={"reassoc"})
def _weighted_sq_to(X, i, w2, out):  # pragma: no cover - compiled
    n, p = X.shape
    xi = X[i]
    for ell in range(n):
        xl = X[ell]
        s = 0.0
        for j in range(p):
            d = xl[j] - xi[j]
            s += w2[j] * (d * d)
        out[ell] = s


def weighted_distances_to(X: np.ndarray, i: int, weights: np.ndarray, out: np.ndarray, *,
                          squared: bool = False) -> np.ndarray:
    """Weighted distances of every row of ``X`` to row ``i``, into ``out``, in one pass.

    ``out[l] = sum_j weights_j |x_lj - x_ij|`` (the feature-weighted Manhattan distance of the
    iterative ReliefF variants), or with ``squared=True``
    ``out[l] = sum_j weights_j (x_lj - x_ij)^2`` (Simba's squared weighted Euclidean distance,
    ``weights = w^2``). The sum over features may be reassociated (SIMD), as a BLAS
    dot product is: equal to the NumPy form to round-off.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), C-contiguous float64
    i : int
    weights : ndarray of shape (n_features,)
    out : ndarray of shape (n_samples,)

    Returns
    -------
    out
    """
    if squared:
        _weighted_sq_to(X, int(i), weights, out)
    else:
        _weighted_l1_to(X, int(i), weights, out)
    return out


@njit(cache=True, nogil=True)
def _margin_block(XT, order, codes, n_classes, v, base, out):  # pragma: no cover - compiled
    # For feature base + j (row j of XT, its argsort order[j]): centre the column, put equal
    # centred values in index order, then one pass in that order with exclusive prefix sums,
    # for all samples and for the sample's own class:
    #   sum_l v_l |a - x_l| = a (2 L_W - T_W) + T_WB - 2 L_WB
    # out[r, base + j] = (all - own) - own = misses - hits.
    width, n = XT.shape
    col = np.empty(n)
    idx = np.empty(n, dtype=np.int64)
    tw = np.empty(n_classes)
    twb = np.empty(n_classes)
    lw = np.empty(n_classes)
    lwb = np.empty(n_classes)
    for j in range(width):
        xj = XT[j]
        s = 0.0
        for i in range(n):
            s += xj[i]
        mean = s / n
        for i in range(n):
            col[i] = xj[i] - mean
        oj = order[j]
        for q in range(n):
            idx[q] = oj[q]
        # centring keeps the order (rounding is monotonic) but may join values into ties:
        # each run of equal values goes in index order, the order of a stable sort, so the
        # sums below do not depend on how the sort placed ties
        q = 0
        while q < n:
            end = q + 1
            while end < n and col[idx[end]] == col[idx[q]]:
                end += 1
            for t in range(q + 1, end):  # insertion sort of the run (runs are short)
                key = idx[t]
                u = t - 1
                while u >= q and idx[u] > key:
                    idx[u + 1] = idx[u]
                    u -= 1
                idx[u + 1] = key
            q = end
        total_w = 0.0
        total_wb = 0.0
        tw[:] = 0.0
        twb[:] = 0.0
        lw[:] = 0.0
        lwb[:] = 0.0
        for q in range(n):
            r = idx[q]
            c = codes[r]
            wb = v[r] * col[r]
            total_w += v[r]
            total_wb += wb
            tw[c] += v[r]
            twb[c] += wb
        prefix_w = 0.0
        prefix_wb = 0.0
        for q in range(n):
            r = idx[q]
            a = col[r]
            c = codes[r]
            every = a * (2.0 * prefix_w - total_w) + (total_wb - 2.0 * prefix_wb)
            own = a * (2.0 * lw[c] - tw[c]) + (twb[c] - 2.0 * lwb[c])
            out[r, base + j] = every - 2.0 * own
            wa = v[r] * a
            prefix_w += v[r]
            prefix_wb += wa
            lw[c] += v[r]
            lwb[c] += wa


def _margin_task(X, codes, n_classes, v, start, stop, block, out):
    """Features ``start..stop - 1`` of :func:`margin_abs_diff_sums`, ``block`` at a time: the
    block's transposed copy, sorted by NumPy (which releases the GIL), then the compiled
    pass."""
    for base in range(start, stop, block):
        XT = np.array(X[:, base:min(stop, base + block)].T, order="C")
        _margin_block(XT, np.argsort(XT, axis=1), codes, n_classes, v, base, out)


def margin_abs_diff_sums(X: np.ndarray, codes: np.ndarray, v: np.ndarray, *,
                         threads: int | None = None) -> np.ndarray:
    """``out[i, j] = sum_{l: codes_l != codes_i} v_l |x_ij - x_lj| - sum_{l != i: codes_l =
    codes_i} v_l |x_ij - x_lj|``: every sample's margin vector against all its misses and all
    its hits (Han 2012, eqs. 4.2 and 4.7).

    Per feature the column is centred (``|a - b|`` does not change, and the prefix sums below
    then cancel less), sorted once, and the sums over all samples and over each sample's own
    class are read off exclusive prefix sums in the sorted order: O(n log n) per feature, one
    sort and one compiled pass for every class at once. Equal values are taken in index order
    whatever order the sort gave them, so the result is bit for bit the same on every host
    (NumPy's sort is SIMD-dispatched and does not fix the order of ties), for any block size
    and number of threads.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    codes : ndarray of int, shape (n_samples,)
        Class codes ``0 .. n_classes - 1``.
    v : ndarray of shape (n_samples,)
        Weights of the hits and misses (1 for eq. 4.2, the previous round's instance weights
        for eq. 4.7).
    threads : int, optional
        Default :func:`~stablefs._runtime.threads.kernel_threads` when the data are large.

    Returns
    -------
    ndarray of shape (n_samples, n_features)
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    n, p = X.shape
    out = np.empty((n, p))
    if n == 0 or p == 0:
        return out
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    v = np.ascontiguousarray(v, dtype=np.float64)
    _run_by_feature_blocks(_margin_task, X, n * max(1.0, np.log2(n)) * p * 4, threads,
                           (codes, int(codes.max()) + 1, v), out)
    return out
