"""Compiled (Numba) kernels of SVM-RFE's elimination loop (:mod:`stablefs.selectors.svm_rfe`).

- :func:`move_out` -- the row swaps that keep the remaining features in the first rows of
  the (features x samples) working copy and put the leaving ones right after them, so that
  the Gram downdate reads the leaving rows as one contiguous block: direct swaps and the
  feature <-> row maps in one call, where NumPy needed fancy indexing (gathering both sets
  of rows into temporaries) and about ten calls per iteration;
- :func:`worst_positions` -- the features that leave: the smallest ``w_j^2``, ties to the
  higher feature index, by selection instead of a sort (NumPy needed about ten calls per
  iteration for the same, 4 ms of a 55 ms Lung path);
- :func:`permute_columns` -- the samples reordered in place, support vectors first, once per
  path (see :func:`stablefs.selectors.svm_rfe._eliminate`).

Each kernel computes exactly what its NumPy reference computes (tested bit for bit in
``tests/test_rfe_kernels.py``). One thread; the module imports Numba and is imported on first
use only (importing stablefs does not import Numba). Compiled code is cached (``cache=True``).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def move_out(A, feature, row, out, m_next):  # pragma: no cover - compiled
    """Move the features ``out`` to the rows ``m_next .. m_next + out.size - 1`` of ``A``.

    ``A`` holds feature ``feature[r]`` in row ``r``, and ``row`` is the inverse map; the rows
    below ``m + out.size`` hold the remaining features and ``out`` are among them. The
    leaving features in rows ``< m_next`` are swapped, in ascending row order, with the
    staying ones in rows ``>= m_next``, also ascending; ``feature`` and ``row`` follow. Every
    row is swapped directly (NumPy's fancy indexing would copy both sets of rows first).
    """
    m = m_next + out.size
    leaving = np.zeros(m, dtype=np.bool_)
    for f in out:
        leaving[row[f]] = True
    n = A.shape[1]
    j = m_next
    for i in range(m_next):
        if not leaving[i]:
            continue
        while leaving[j]:
            j += 1
        for c in range(n):
            v = A[i, c]
            A[i, c] = A[j, c]
            A[j, c] = v
        fi = feature[i]
        fj = feature[j]
        feature[i] = fj
        feature[j] = fi
        row[fj] = i
        row[fi] = j
        j += 1


@njit(cache=True, nogil=True)
def worst_positions(importance, n_out, threshold):  # pragma: no cover - compiled
    """Positions of the ``n_out`` smallest ``importance`` values, worst first; equal values:
    the higher position first (positions follow the feature order, so the higher feature
    index leaves first). ``threshold`` is the ``n_out``-th smallest value
    (``np.partition(importance, n_out - 1)[n_out - 1]``: NumPy's introselect is about eight
    times faster than Numba's ``np.partition``), ignored when ``n_out >= importance.size``.

    One pass for the values below the threshold and a backward pass for the tied ones, then a
    stable sort of the ``n_out`` chosen: O(m) plus O(n_out log n_out), the same positions in
    the same order as the full ``np.lexsort((-position, importance))[:n_out]``.
    """
    m = importance.size
    if n_out >= m:
        chosen = np.arange(m)[::-1].copy()
    else:
        v = threshold
        chosen = np.empty(n_out, dtype=np.int64)
        k = 0
        for i in range(m - 1, -1, -1):  # descending positions, values below the threshold
            if importance[i] < v:
                chosen[k] = i
                k += 1
        tied = n_out - k
        below = k
        for i in range(m - 1, -1, -1):  # the last positions holding the threshold value
            if tied == 0:
                break
            if importance[i] == v:
                chosen[k] = i
                k += 1
                tied -= 1
        # one descending sequence of positions for the stable sort: merge the two runs
        merged = np.empty(n_out, dtype=np.int64)
        a, b = 0, below
        for t in range(n_out):
            if b >= n_out or (a < below and chosen[a] > chosen[b]):
                merged[t] = chosen[a]
                a += 1
            else:
                merged[t] = chosen[b]
                b += 1
        chosen = merged
    values = np.empty(chosen.size)
    for t in range(chosen.size):
        values[t] = importance[chosen[t]]
    return chosen[np.argsort(values, kind="mergesort")]


@njit(cache=True, nogil=True)
def permute_columns(A, perm):  # pragma: no cover - compiled
    """``A[:, :] = A[:, perm]`` in place, one row at a time (one pass over ``A``)."""
    n = A.shape[1]
    tmp = np.empty(n)
    for r in range(A.shape[0]):
        for c in range(n):
            tmp[c] = A[r, perm[c]]
        for c in range(n):
            A[r, c] = tmp[c]
