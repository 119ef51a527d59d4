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
  path (see :func:`stablefs.selectors.svm_rfe._eliminate`);
- :func:`permuted_transpose` -- the working copy made in one pass, features x samples, with
  the samples already in that order (the first fit needs only the Gram matrix, which comes
  from the caller's data directly);
- :func:`eliminate` -- one iteration's bookkeeping in one call: the weights in feature order,
  ``sum_c w_cj^2``, the threshold of the leaving ones (a selection), the leaving positions and
  the features that stay, where NumPy needed about a dozen calls per iteration (~5 ms of a
  48 ms Lung path);
- :func:`nonzero_beyond` -- the support vectors outside the leading columns.

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


@njit(cache=True, nogil=True)
def permuted_transpose(X, columns):  # pragma: no cover - compiled
    """A new C array ``XT`` of shape ``(p, n)`` with ``XT[f, c] = X[columns[c], f]``: the
    transposed copy of ``X`` (n x p) with its rows (samples) in the order ``columns``.

    One pass over ``X``; a C-ordered ``X`` is read in blocks of 32 features per sample, so
    that both sides move through whole cache lines.
    """
    n, p = X.shape
    XT = np.empty((p, n))
    if X.strides[0] <= X.strides[1]:  # feature-major: each feature's values are contiguous
        for f in range(p):
            for c in range(n):
                XT[f, c] = X[columns[c], f]
    else:
        for f0 in range(0, p, 32):
            f1 = min(f0 + 32, p)
            for c in range(n):
                s = columns[c]
                for f in range(f0, f1):
                    XT[f, c] = X[s, f]
    return XT


@njit(cache=True, nogil=True)
def nonzero_beyond(dual, lead):  # pragma: no cover - compiled
    """Columns ``c >= lead`` of ``dual`` (problems x samples) with a nonzero entry,
    ascending: ``lead + np.flatnonzero(np.any(dual[:, lead:] != 0, axis=0))``."""
    found = np.empty(dual.shape[1] - lead, dtype=np.int64)
    k = 0
    for c in range(lead, dual.shape[1]):
        for r in range(dual.shape[0]):
            if dual[r, c] != 0:
                found[k] = c
                k += 1
                break
    return found[:k].copy()


@njit(cache=True, nogil=True)
def _kth_smallest(values, k):  # pragma: no cover - compiled
    """The ``k``-th smallest of ``values`` (0-based), ``np.partition(values, k)[k]``, by
    quickselect (median of three, Hoare partition) on a copy; after ``2 log2(m) + 4`` rounds
    without convergence (adversarial input) the rest is sorted. Values are compared with
    ``<`` only, so the result is the exact order statistic whatever the path."""
    a = values.copy()
    lo, hi = 0, a.size - 1
    rounds = 4
    m = a.size
    while m > 1:
        rounds += 2
        m >>= 1
    while hi > lo:
        if rounds == 0:
            a[lo:hi + 1] = np.sort(a[lo:hi + 1])
            return a[k]
        rounds -= 1
        mid = (lo + hi) >> 1
        # median of three into a[mid]
        if a[mid] < a[lo]:
            a[mid], a[lo] = a[lo], a[mid]
        if a[hi] < a[lo]:
            a[hi], a[lo] = a[lo], a[hi]
        if a[hi] < a[mid]:
            a[hi], a[mid] = a[mid], a[hi]
        pivot = a[mid]
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while pivot < a[j]:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        # now a[lo..j] <= pivot <= a[i..hi], and a[j+1..i-1] == pivot
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return a[k]
    return a[k]


@njit(cache=True, nogil=True)
def eliminate(w, row, remaining, n_out):  # pragma: no cover - compiled
    """One SVM-RFE iteration's choice of the leaving features.

    ``w`` (rows x problems) holds the weight of the feature of each row of the working copy,
    ``row`` maps a feature to its row, ``remaining`` lists the remaining features ascending
    (``m`` of them). Returns

    - ``coef`` (problems x m): the weights in feature order, ``w[row[remaining]].T``;
    - ``worst``: the positions (in ``remaining``) of the ``n_out`` smallest
      ``importance_j = sum_c coef[c, j]^2`` (summed in problem order), worst first, equal
      values the higher position first (:func:`worst_positions`); empty when ``n_out == 0``;
    - ``kept``: ``remaining`` without them, ascending.

    The same values as the NumPy computation (``coef[0] ** 2`` or
    ``np.einsum("cj,cj->j", coef, coef)``, ``np.partition`` for the threshold), tested bit for
    bit.
    """
    m = remaining.size
    n_problems = w.shape[1]
    coef = np.empty((n_problems, m))
    importance = np.empty(m)
    for j in range(m):
        r = row[remaining[j]]
        total = 0.0
        for c in range(n_problems):
            v = w[r, c]
            coef[c, j] = v
            total += v * v
        importance[j] = total
    if n_out == 0:
        return coef, np.empty(0, dtype=np.int64), remaining.copy()
    threshold = _kth_smallest(importance, n_out - 1) if n_out < m else 0.0
    worst = worst_positions(importance, n_out, threshold)
    leaving = np.zeros(m, dtype=np.bool_)
    for t in range(worst.size):
        leaving[worst[t]] = True
    kept = np.empty(m - worst.size, dtype=np.int64)
    k = 0
    for j in range(m):
        if not leaving[j]:
            kept[k] = remaining[j]
            k += 1
    return coef, worst, kept
