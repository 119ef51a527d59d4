"""Mean shift from every feature, vectorised (the engine of DGF).

The mean shift of Yu, Ding and Loscalzo (2008, eqs. 2-4) moves each seed ``y`` to the kernel-
weighted mean of the points in its window, ``||y - f|| <= w`` (``w = h`` for the flat kernel,
``truncate * h`` for the truncated Gaussian). Every step of every seed needs the distances to
all ``p`` points, ``O(p d)``; with thousands of seeds taking 10-80 steps this is the whole cost
of DGF. It is organised as:

- **Blocks and BLAS.** The active seeds run together, a block of rows at a time (bounded
  memory). A block's distances are one matrix product with the augmented points
  (``shifted_gram``), its windows a threshold on it, and the weighted sums a sparse product when
  the windows are small or a second matrix product when they hold over 1/:data:`DENSE_SHARE` of
  the points (on the microarray sets the seeds that move at all end in windows of hundreds to
  thousands of features). A seed stops when its step is at most ``tol * h`` and is then frozen.
- **Threads.** Blocks are independent; with ``n_jobs > 1`` they run in a thread pool (NumPy and
  BLAS release the GIL). Call with single-threaded BLAS (``threadpoolctl``): each row is then
  computed the same way whatever ``n_jobs``, and the result does not depend on it. (On a busy
  machine, multi-threaded BLAS on these products was also up to 5 times slower than one thread,
  its threads waiting for each other.)

Tried and dropped: exact neighbour caches (triangle inequality: a seed's window found from a
list of points near an earlier position) gained about 10 % on Lung and lost on smaller sets,
because distances concentrate in high dimension (every cache radius beyond ~1.3 h holds a large
share of all features) and the seeds that move have large windows.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from stablefs._runtime.threads import kernel_threads, pool_map, run_tasks
from stablefs.selectors import _feature_space as _fs
from stablefs.selectors._feature_space import (
    GEMM_ROWS,
    Scratch,
    block_rows,
    scratch_budget,
    shifted_gram,
)

#: windows holding more than 1/DENSE_SHARE of the points (on average over a block) are summed
#: with a dense matrix product instead of a sparse one
DENSE_SHARE = 8
#: finite-support kernels sum their windows with the compiled kernel
#: (:func:`stablefs.selectors._dgf_kernels.window_sums`); False: the NumPy/SciPy path above
COMPILED = True


def window_radius(bandwidth: float, kernel: str, truncate: float | None) -> float | None:
    """Radius of the kernel's support (None: unbounded)."""
    if kernel == "flat":
        return float(bandwidth)
    return None if truncate is None else float(truncate) * float(bandwidth)


def window_weights(G: np.ndarray, qq: np.ndarray, bandwidth: float, kernel: str,
                   window: float | None):
    """Kernel weights of a block from its shifted Gram matrix ``G`` (``shifted_gram``): a CSR
    matrix (columns ascending) for a finite-support kernel, a dense array (``G`` overwritten)
    for the untruncated Gaussian."""
    scale = -0.5 / bandwidth**2
    if window is None:
        G *= -2.0
        G += qq[:, None]
        np.maximum(G, 0.0, out=G)
        G *= scale
        return np.exp(G, out=G)
    thr = (qq - window * window) / 2
    rows, cols = np.nonzero(thr[:, None] <= G)
    if kernel == "flat":
        vals = np.ones(rows.size)
    else:
        d2 = np.maximum(qq[rows] - 2.0 * G[rows, cols], 0.0)
        vals = np.exp(d2 * scale)
    indptr = np.zeros(G.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=G.shape[0]), out=indptr[1:])
    return sparse.csr_matrix((vals, cols, indptr), shape=G.shape)


def _dense_weights(G, qq, bandwidth, kernel, window, inside, out):
    """Dense kernel weights of a block into ``out`` (``G`` is left unchanged)."""
    if kernel == "flat":
        np.copyto(out, inside)
        return out
    np.multiply(G, -2.0, out=out)
    out += qq[:, None]
    np.maximum(out, 0.0, out=out)
    out *= -0.5 / bandwidth**2
    np.exp(out, out=out)
    out *= inside
    return out


def gram_in_parts(Yb: np.ndarray, Fa: np.ndarray, G_out: np.ndarray, threads: int = 1):
    """``shifted_gram(Yb, Fa, out=G_out)``; for blocks of at least
    :data:`~stablefs.selectors._feature_space.PARALLEL_MIN_ENTRIES` entries, in up to
    ``threads`` parts of whole :data:`GEMM_ROWS` rows, one BLAS product each on its own thread
    (call with single-threaded BLAS). A row's values do not depend on the rows computed with
    it (:func:`shifted_gram`), so the result is the same for any count."""
    m = Yb.shape[0]
    big = m * Fa.shape[0] >= _fs.PARALLEL_MIN_ENTRIES
    parts = min(int(threads), m // GEMM_ROWS) if big else 1
    if parts <= 1 or G_out is None:
        return shifted_gram(Yb, Fa, out=G_out)
    step = -(-m // (parts * GEMM_ROWS)) * GEMM_ROWS  # every part but the last a whole multiple
    run_tasks(lambda a: shifted_gram(Yb[a:a + step], Fa, out=G_out[a:]),
              [(a,) for a in range(0, m, step)], parts)
    return G_out[:m]


def kernel_sums(Yb: np.ndarray, Fa: np.ndarray, bandwidth: float, kernel: str,
                window: float | None, G_out: np.ndarray, W_out: np.ndarray, threads: int = 1):
    """``(num, den)``: ``sum_l f_l K((y - f_l)/h)`` and ``sum_l K((y - f_l)/h)`` for the rows
    ``y`` of ``Yb`` (``G_out``, ``W_out``: scratch blocks of shape at least ``(rows, p)``;
    ``threads``: of the Gram rows and the compiled window sums, same result for any count)."""
    rows = Yb.shape[0]
    qq = np.einsum("ij,ij->i", Yb, Yb)
    G = gram_in_parts(Yb, Fa, G_out, threads)
    if window is None:
        W = window_weights(G, qq, bandwidth, kernel, window)
        return (W @ Fa)[:, :-1], W.sum(axis=1)
    thr = (qq - window * window) / 2
    if COMPILED:
        from stablefs.selectors._dgf_kernels import window_sums  # Numba, on first use

        big = G.size >= _fs.PARALLEL_MIN_ENTRIES  # threads pay off on large blocks only
        return window_sums(G, thr, qq, Fa, bandwidth, kernel, threads if big else 1)
    inside = thr[:, None] <= G
    if np.count_nonzero(inside) * DENSE_SHARE > inside.size:
        W = _dense_weights(G, qq, bandwidth, kernel, window, inside, W_out[:rows])
        return (W @ Fa)[:, :-1], W.sum(axis=1)
    W = window_weights(G, qq, bandwidth, kernel, window)
    return np.asarray(W @ Fa)[:, :-1], np.asarray(W.sum(axis=1)).ravel()


def mean_shift(Fa: np.ndarray, bandwidth: float, *, kernel: str = "flat",
               truncate: float | None = 1.0, tol: float = 1e-3, max_iter: int = 300,
               seeds: np.ndarray | None = None, n_jobs: int = 1,
               rows: np.ndarray | None = None, copy: bool = True):
    """Mean shift from each seed over the augmented points ``Fa`` (``augment``); see
    :func:`stablefs.selectors.dense_groups.mean_shift`. ``n_jobs`` threads; call with
    single-threaded BLAS.

    ``rows``: shift only these seeds (the others are left as they are, with 0 steps and
    density); ``copy=False``: shift ``seeds`` in place when it is a C-ordered float64 array
    (DGF's memory: no second copy of the points); use the returned modes either way."""
    from stablefs.selectors._dgf_kernels import distinct_rows  # Numba, on first use

    p, d = Fa.shape[0], Fa.shape[1] - 1
    h = float(bandwidth)
    if seeds is None:
        Y = np.array(Fa[:, :d], copy=True)
    elif copy or seeds.dtype != np.float64 or not seeds.flags.c_contiguous:
        Y = np.array(seeds, dtype=np.float64, order="C", copy=True)
    else:
        Y = seeds
    m = Y.shape[0]
    w = window_radius(h, kernel, truncate)
    n_iter = np.zeros(m, dtype=np.int64)
    density = np.zeros(m)
    stop = float(tol) * h
    dense_scratch = not (COMPILED and w is not None)  # W: only the NumPy paths use it
    # per thread: the Gram rows (p columns; twice for the NumPy paths) and the block's copies of
    # its seeds (the seeds, the augmented queries, the new positions and the steps: 4 d)
    b = block_rows((2 if dense_scratch else 1) * p + 4 * (d + 1), n_arrays=max(1, n_jobs),
                   budget=scratch_budget(Fa))
    scratch = Scratch()
    # one block at a time (n_jobs = 1): its Gram rows and window sums on the free cores (the
    # same numbers for any count)
    threads = kernel_threads() if n_jobs == 1 else 1
    active = np.arange(m) if rows is None else np.asarray(rows, dtype=np.int64)
    for step in range(int(max_iter)):
        if active.size == 0:
            break

        def block(blk):
            Yb = Y[blk]
            rows = b + (-b) % GEMM_ROWS  # room for shifted_gram's padding rows
            num, den = kernel_sums(Yb, Fa, h, kernel, w, scratch.get("G", (rows, p)),
                                   scratch.get("W", (rows, p)) if dense_scratch else None,
                                   threads)
            new = np.divide(num, den[:, None], out=Yb.copy(), where=den[:, None] > 0)
            diff = new - Yb
            Y[blk] = new  # the blocks' rows are disjoint, and each block reads only its own
            return den, np.sqrt(np.einsum("ij,ij->i", diff, diff))

        # seeds at the same position (bit for bit) have the same window and the same path
        # from here on: each position is shifted once (the result is unchanged)
        first, inv = distinct_rows(Y, active)
        rep = active[first]
        den_u, shift_u = [], []
        for den, shift in pool_map(block, [rep[i:i + b] for i in range(0, rep.size, b)],
                                   n_jobs):
            den_u.append(den)
            shift_u.append(shift)
        den, shift = (np.concatenate(a)[inv] for a in (den_u, shift_u))
        copies = np.flatnonzero(first[inv] != np.arange(active.size))
        for at in range(0, copies.size, b):  # seeds that shared a position follow its shift
            part = copies[at:at + b]
            Y[active[part]] = Y[rep[inv[part]]]
        empty = den <= 0
        if step == 0:
            density[active] = den / p
        n_iter[active[~empty]] += 1
        active = active[(shift > stop) & ~empty]
    return Y, n_iter, density
