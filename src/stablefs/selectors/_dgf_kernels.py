"""Compiled (Numba) kernels of DGF's feature space: row-wise top ``K`` and window sums.

Yu, Ding and Loscalzo (2008, sec. 4.1, eqs. 2-4) need, over the ``p`` features as points,

- each feature's ``K`` nearest features (the bandwidth ``h``): :func:`top_k_desc` takes the
  ``K`` largest entries of every row of a shifted Gram block (``shifted_gram``) in one pass,
  keeping a sorted list of ``K`` per row (insertion: ``K`` is 4-5), instead of NumPy's
  chunk maxima, threshold, ``nonzero`` and sort (three passes over a ``block x p`` array);
- every mean-shift step's kernel-weighted sums over the seed's window: :func:`window_sums`
  reads the Gram block once, lists each row's points inside the window (``G >= thr``)
  without a branch, and adds each of them (flat kernel) or ``exp(-||y - f||^2 / 2h^2)``
  times it (truncated Gaussian) to the row's sums -- ``|window| x d`` operations per row
  instead of a sparse matrix built in NumPy or a second dense ``p x d`` product.

Same result: :func:`top_k_desc` selects values (no arithmetic), so the neighbour distances and
the bandwidth are bit for bit those of the NumPy version. :func:`window_sums` adds the window's
points in ascending index order, exactly as SciPy's CSR product does (``y += a x`` row after
row), so the flat kernel's sums are bit for bit those of the sparse path; blocks whose windows
NumPy summed with a dense BLAS product differed from these only in the order of additions
(round-off). Float64; :func:`window_sums` splits a large block's rows over threads when asked
(each row is summed the same way by whichever thread), the other kernels run on one.
Imported lazily by :mod:`stablefs.selectors._mean_shift` and
:mod:`stablefs.selectors._feature_space` (importing stablefs does not import Numba); compiled
code is cached on disk (``cache=True``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from stablefs._runtime.compilation import watch_compilation

watch_compilation()  # first-use compilation is announced


@njit(cache=True, nogil=True)
def _top_k_desc(G, k, out):  # pragma: no cover - compiled
    m, p = G.shape
    for i in range(m):
        top = out[i]
        for t in range(k):
            top[t] = -np.inf
        low = -np.inf
        row = G[i]
        for j in range(p):
            v = row[j]
            if v > low:
                t = k - 1
                while t > 0 and top[t - 1] < v:
                    top[t] = top[t - 1]
                    t -= 1
                top[t] = v
                low = top[k - 1]
    return out


def top_k_desc(G: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` largest values of every row of ``G``, in descending order (``-inf`` where a
    row has fewer than ``k`` values above ``-inf``).

    Parameters
    ----------
    G : ndarray of shape (m, p), float64
    k : int

    Returns
    -------
    ndarray of shape (m, k)
    """
    G = np.ascontiguousarray(G, dtype=np.float64)
    return _top_k_desc(G, int(k), np.empty((G.shape[0], int(k))))


@njit(cache=True, nogil=True)
def _window_sums(G, thr, qq, Fa, scale, flat, num, den):  # pragma: no cover - compiled
    # per row: the window's points listed first without a branch (whether a point is inside
    # is unpredictable, and on Chowdary's 22,283 points the mispredicted branches cost more
    # than the sums), then added in ascending order, as before (the same bits)
    m, p = G.shape
    d = num.shape[1]
    inside = np.empty(p, dtype=np.int64)
    for i in range(m):
        acc = num[i]
        for c in range(d):
            acc[c] = 0.0
        s = 0.0
        t = thr[i]
        row = G[i]
        k = 0
        for j in range(p):
            inside[k] = j
            k += t <= row[j]
        for q in range(k):
            j = inside[q]
            f = Fa[j]
            if flat:
                for c in range(d):
                    acc[c] += f[c]
                s += 1.0
            else:
                d2 = qq[i] - 2.0 * row[j]
                if d2 < 0.0:
                    d2 = 0.0
                w = np.exp(d2 * scale)
                for c in range(d):
                    acc[c] += w * f[c]
                s += w
        den[i] = s
    return num, den


def window_sums(G: np.ndarray, thr: np.ndarray, qq: np.ndarray, Fa: np.ndarray,
                bandwidth: float, kernel: str, threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Kernel-weighted sums over the windows of a block (Yu, Ding and Loscalzo 2008, eq. 4).

    Parameters
    ----------
    G : ndarray of shape (m, p)
        Shifted Gram block ``y.f - ||f||^2/2`` of the rows ``y`` (``shifted_gram``).
    thr : ndarray of shape (m,)
        ``(||y||^2 - r^2) / 2``: point ``f`` is in the window of radius ``r`` of ``y`` when
        ``G >= thr``.
    qq : ndarray of shape (m,)
        ``||y||^2``.
    Fa : ndarray of shape (p, d + 1)
        The augmented points; only their first ``d`` columns are summed.
    bandwidth : float
    kernel : {"flat", "gaussian"}
    threads : int, default=1
        Threads: the rows are split into parts, each thread sums its own rows in the same
        order, so the result is the same for any count (the caller,
        :func:`stablefs.selectors._mean_shift.kernel_sums`, asks for more than one only for
        blocks of at least :data:`~stablefs.selectors._feature_space.PARALLEL_MIN_ENTRIES`
        entries).

    Returns
    -------
    num : ndarray of shape (m, d)
        ``sum_{f in window} K f``.
    den : ndarray of shape (m,)
        ``sum_{f in window} K``.
    """
    m, d = G.shape[0], Fa.shape[1] - 1
    G = np.ascontiguousarray(G)
    thr = np.ascontiguousarray(thr, dtype=np.float64)
    qq = np.ascontiguousarray(qq, dtype=np.float64)
    Fa = np.ascontiguousarray(Fa)
    scale, flat = -0.5 / float(bandwidth) ** 2, kernel == "flat"
    num, den = np.empty((m, d)), np.empty(m)
    parts = min(int(threads), m)
    if parts <= 1:
        return _window_sums(G, thr, qq, Fa, scale, flat, num, den)
    from stablefs._runtime.threads import run_tasks

    step = -(-m // parts)
    run_tasks(_window_sums, [(G[a:a + step], thr[a:a + step], qq[a:a + step], Fa, scale,
                              flat, num[a:a + step], den[a:a + step])
                             for a in range(0, m, step)], parts)
    return num, den


@njit(cache=True, nogil=True)
def _row_hashes(Y, rows, out):  # pragma: no cover - compiled
    # FNV-1a over the 64-bit patterns of each row (equal rows, bit for bit, hash equally)
    for r in range(rows.size):
        bits = Y[rows[r]].view(np.uint64)
        h = np.uint64(14695981039346656037)
        for c in range(bits.size):
            h = (h ^ bits[c]) * np.uint64(1099511628211)
        out[r] = h
    return out


@njit(cache=True, nogil=True)
def _split_equal_rows(Y, rows, order, keys, rep_of):  # pragma: no cover - compiled
    # rep_of[order[i]]: the first position (in `order`) of a row bit-for-bit equal to row
    # order[i]; only rows of equal hash (adjacent in `order`) are compared
    start = 0
    n = order.size
    while start < n:
        stop = start + 1
        while stop < n and keys[order[stop]] == keys[order[start]]:
            stop += 1
        for i in range(start, stop):
            a = Y[rows[order[i]]].view(np.uint64)
            rep_of[order[i]] = order[i]
            for j in range(start, i):
                if rep_of[order[j]] != order[j]:
                    continue
                b = Y[rows[order[j]]].view(np.uint64)
                same = True
                for c in range(a.size):
                    if a[c] != b[c]:
                        same = False
                        break
                if same:
                    rep_of[order[i]] = order[j]
                    break
        start = stop
    return rep_of


def distinct_rows(Y: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``Y`` (positions ``rows``) that are bit-for-bit distinct, without copying
    them: ``(first, inverse)`` with ``rows[first]`` one row of each distinct value (the first
    of its kind among ``rows``, in ``rows`` order) and ``first[inverse[i]]`` the one equal to
    ``rows[i]``.

    Rows are hashed (FNV-1a on their bit patterns), sorted by hash, and rows of equal hash are
    compared in full, so equal means equal in every bit. Memory: a few integers per row
    (``np.unique(Y[rows], axis=0)`` copies and sorts the rows).

    Parameters
    ----------
    Y : ndarray of shape (m, d), float64, C order
    rows : ndarray of int

    Returns
    -------
    first, inverse : ndarray of int
    """
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    keys = _row_hashes(Y, rows, np.empty(rows.size, dtype=np.uint64))
    order = np.argsort(keys, kind="stable")
    rep_of = _split_equal_rows(Y, rows, order, keys, np.empty(rows.size, dtype=np.int64))
    first = np.flatnonzero(rep_of == np.arange(rows.size))
    inverse = np.searchsorted(first, rep_of)
    return first, inverse
