"""Compiled (Numba) kernels of the Relief family: Manhattan distances and weighted ``|a - b|`` sums.

The O(n^2 p) parts of ReliefF, Relief, IW-ReliefF and the margin instance weights (Han 2012,
eqs. 4.2-4.3 and 5.1-5.3; Kononenko 1994) are two loops over pairs of samples:

- :func:`cityblock_distances` -- ``D[i, l] = sum_j |x_ij - x_lj|`` for every pair;
- :func:`pair_abs_diff_sums` -- ``s_j = sum_t c_t |x_{a_t j} - x_{b_t j}|`` over a list of
  (instance, neighbour, coefficient) triples, and :func:`member_pair_abs_diff_sums`, the same
  for the members of an ensemble at once (pair ``t`` adds ``c_tm |...|`` to member ``m``'s row).

How they are fast, and why they give the same result on every run:

- Distances: for one instance ``i``, eight later instances ``l`` at a time keep their running
  sums in registers while a block of :data:`FEATURE_BLOCK` features is added, one feature
  after the other, from a transposed copy of the block (so the eight values of a feature are
  contiguous; the copy is the kernel's only temporary, ``FEATURE_BLOCK x n``). The
  compiler turns the eight sums into SIMD operations across ``l`` without reassociating any
  sum: every ``D[i, l]`` is the plain left-to-right sum over the features, bit for bit what
  :func:`scipy.spatial.distance.pdist` returns (tested), so the nearest hits and misses are
  the same as before. Only ``l > i`` is computed. The block stays in cache while every
  instance passes over it.
- Weighted sums: over blocks of :data:`SUM_BLOCK` features, every pair adds
  ``c_t |x_a - x_b|`` to a cache-resident accumulator in the pairs' order (one fused pass:
  no gathered copies of the rows, which cost most of the NumPy version's time).
- One thread, float64. fast-select runs float32 with fast-math over threads; float32 sums of
  12,000 features move distances by about 1e-7 relative, enough to swap near-tied neighbours,
  and threads only contend on a shared machine, where stablefs parallelises over resamples
  and splits in processes instead.

The module imports Numba; it is imported lazily by :mod:`stablefs.selectors._neighbors`, so
importing stablefs does not import Numba. Compiled code is cached on disk (``cache=True``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: features per block of the distance kernel (its transposed copy, ``FEATURE_BLOCK x n``
#: float64, stays in L2)
FEATURE_BLOCK = 64
#: features per block of the weighted-sum kernels (an accumulator of this size stays in L1)
SUM_BLOCK = 256


@njit(cache=True, nogil=True)
def _cityblock_upper(X, out):  # pragma: no cover - compiled
    # out[i, l] (l > i) += sum_j |X[i, j] - X[l, j]| over feature blocks, in feature order.
    # A block of features is first copied transposed into XT (FEATURE_BLOCK x n, in cache), so
    # that eight entries of a row can be held in registers over the block (a tile the compiler
    # turns into SIMD operations across l); each entry still adds its features one after the
    # other.
    n, p = X.shape
    XT = np.empty((FEATURE_BLOCK, n))
    for base in range(0, p, FEATURE_BLOCK):
        width = min(p, base + FEATURE_BLOCK) - base
        for i in range(n):
            for j in range(width):
                XT[j, i] = X[i, base + j]
        start = 0
        stop = width
        for i in range(n - 1):
            l0 = i + 1
            while l0 + 8 <= n:
                a0 = out[i, l0]
                a1 = out[i, l0 + 1]
                a2 = out[i, l0 + 2]
                a3 = out[i, l0 + 3]
                a4 = out[i, l0 + 4]
                a5 = out[i, l0 + 5]
                a6 = out[i, l0 + 6]
                a7 = out[i, l0 + 7]
                for j in range(start, stop):
                    xi = XT[j, i]
                    r = XT[j]
                    a0 += abs(xi - r[l0])
                    a1 += abs(xi - r[l0 + 1])
                    a2 += abs(xi - r[l0 + 2])
                    a3 += abs(xi - r[l0 + 3])
                    a4 += abs(xi - r[l0 + 4])
                    a5 += abs(xi - r[l0 + 5])
                    a6 += abs(xi - r[l0 + 6])
                    a7 += abs(xi - r[l0 + 7])
                out[i, l0] = a0
                out[i, l0 + 1] = a1
                out[i, l0 + 2] = a2
                out[i, l0 + 3] = a3
                out[i, l0 + 4] = a4
                out[i, l0 + 5] = a5
                out[i, l0 + 6] = a6
                out[i, l0 + 7] = a7
                l0 += 8
            for ell in range(l0, n):
                a = out[i, ell]
                for j in range(start, stop):
                    a += abs(XT[j, i] - XT[j, ell])
                out[i, ell] = a


def cityblock_distances(X: np.ndarray) -> np.ndarray:
    """Manhattan distances between the rows of ``X`` (square, symmetric, zero diagonal).

    Each entry is the left-to-right sum over the features of ``|x_ij - x_lj|`` in float64.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)

    Returns
    -------
    ndarray of shape (n_samples, n_samples)
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    D = np.zeros((n, n))
    if n > 1 and X.shape[1] > 0:
        _cityblock_upper(X, D)
    iu = np.triu_indices(n, 1)
    D.T[iu] = D[iu]
    return D


@njit(cache=True, nogil=True)
def _pair_sums(X, a, b, c, out):  # pragma: no cover - compiled
    p = X.shape[1]
    n_blocks = (p + SUM_BLOCK - 1) // SUM_BLOCK
    for blk in range(n_blocks):
        start = blk * SUM_BLOCK
        stop = min(p, start + SUM_BLOCK)
        acc = np.zeros(stop - start)
        for t in range(a.size):
            xa = X[a[t]]
            xb = X[b[t]]
            ct = c[t]
            for j in range(start, stop):
                acc[j - start] += ct * abs(xa[j] - xb[j])
        out[start:stop] = acc


def pair_abs_diff_sums(X: np.ndarray, a: np.ndarray, b: np.ndarray,
                       coef: np.ndarray) -> np.ndarray:
    """Per feature ``j``: ``sum_t coef[t] |X[a[t], j] - X[b[t], j]|``, summed in the order of ``t``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    a, b : ndarray of int, shape (n_pairs,)
        Row indices of the two samples of each pair.
    coef : ndarray of shape (n_pairs,)

    Returns
    -------
    ndarray of shape (n_features,)
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    out = np.zeros(X.shape[1])
    if a.size and X.shape[1]:
        _pair_sums(X, np.ascontiguousarray(a, dtype=np.int64),
                   np.ascontiguousarray(b, dtype=np.int64),
                   np.ascontiguousarray(coef, dtype=np.float64), out)
    return out


@njit(cache=True, nogil=True)
def _member_pair_sums(X, a, b, starts, members, coefs, out):  # pragma: no cover - compiled
    p = X.shape[1]
    m = out.shape[0]
    n_blocks = (p + SUM_BLOCK - 1) // SUM_BLOCK
    for blk in range(n_blocks):
        start = blk * SUM_BLOCK
        stop = min(p, start + SUM_BLOCK)
        width = stop - start
        acc = np.zeros((m, width))
        diff = np.empty(width)
        for t in range(a.size):
            xa = X[a[t]]
            xb = X[b[t]]
            for j in range(width):
                diff[j] = abs(xa[start + j] - xb[start + j])
            for q in range(starts[t], starts[t + 1]):
                row = acc[members[q]]
                ct = coefs[q]
                for j in range(width):
                    row[j] += ct * diff[j]
        out[:, start:stop] = acc


def member_pair_abs_diff_sums(X: np.ndarray, a: np.ndarray, b: np.ndarray, starts: np.ndarray,
                              members: np.ndarray, coefs: np.ndarray,
                              n_members: int) -> np.ndarray:
    """``out[m, j] = sum_t C[m, t] |X[a[t], j] - X[b[t], j]|`` for a sparse ``C`` (CSR by pair).

    Pair ``t`` contributes to the members ``members[starts[t]:starts[t + 1]]`` with the
    coefficients ``coefs[starts[t]:starts[t + 1]]``; every member's sum runs in the order of
    ``t``.

    Returns
    -------
    ndarray of shape (n_members, n_features)
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    out = np.zeros((int(n_members), X.shape[1]))
    if a.size and X.shape[1] and n_members:
        _member_pair_sums(X, np.ascontiguousarray(a, dtype=np.int64),
                          np.ascontiguousarray(b, dtype=np.int64),
                          np.ascontiguousarray(starts, dtype=np.int64),
                          np.ascontiguousarray(members, dtype=np.int64),
                          np.ascontiguousarray(coefs, dtype=np.float64), out)
    return out


@njit(cache=True, nogil=True)
def _coefficient_sums(X, C, out):  # pragma: no cover - compiled
    n, p = X.shape
    for base in range(0, p, SUM_BLOCK):
        stop = min(p, base + SUM_BLOCK)
        for i in range(n):
            xi = X[i]
            row = out[i]
            for ell in range(n):
                c = C[i, ell]
                if c == 0.0:
                    continue
                xl = X[ell]
                for j in range(base, stop):
                    row[j] += c * abs(xi[j] - xl[j])


def coefficient_abs_diff_sums(X: np.ndarray, C: np.ndarray) -> np.ndarray:
    """``out[i, j] = sum_l C[i, l] |x_ij - x_lj|`` (Han 2012, eq. 4.3 with the weights ``C``).

    Every ``out[i, j]`` adds its terms in the order of ``l`` (zero coefficients skipped), over
    blocks of :data:`SUM_BLOCK` features that stay in cache; memory: the output.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    C : ndarray of shape (n_samples, n_samples)

    Returns
    -------
    ndarray of shape (n_samples, n_features)
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    out = np.zeros(X.shape)
    if X.size:
        _coefficient_sums(X, np.ascontiguousarray(C, dtype=np.float64), out)
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
