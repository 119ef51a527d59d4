"""Compiled (Numba) kernels of SVM-RFE's elimination loop (:mod:`stablefs.selectors.svm_rfe`).

- :func:`move_out` -- the row swaps that keep the remaining features in the first rows of
  the (features x samples) working copy and put the leaving ones right after them, so that
  the Gram downdate reads the leaving rows as one contiguous block: direct swaps and the
  feature <-> row maps in one call, where NumPy needed fancy indexing (gathering both sets
  of rows into temporaries) and about ten calls per iteration;
- :func:`weights_by_feature` and :func:`leaving` -- the weights in feature order with their
  ``sum_c w_cj^2``, and the features that leave (the smallest, ties to the higher feature
  index) and stay, by selection instead of a sort, around NumPy's ``np.partition`` for the
  threshold and its stable ``argsort`` for the order of the few that leave (NumPy alone
  needed about a dozen calls per iteration, ~5 ms of a 48 ms Lung path);
- :func:`permute_columns` -- the samples reordered in place, support vectors first, once per
  path (see :func:`stablefs.selectors.svm_rfe._eliminate`);
- :func:`permuted_transpose` -- the working copy made in one pass, features x samples, with
  the samples already in that order (the first fit needs only the Gram matrix, which comes
  from the caller's data directly);
- :func:`scaled_transpose` -- the min-max scaled working copy, features x samples, in one
  pass (NumPy needed a transposing subtraction and an in-place division: 4.0 against
  1.3 ms on Lung's 181 x 12533 from pandas);
- :func:`nonzero_beyond` -- the support vectors outside the leading columns.

Each kernel computes exactly what its NumPy reference computes (tested bit for bit in
``tests/test_rfe_kernels.py``). One thread; the module imports Numba and is imported on first
use only (importing stablefs does not import Numba). Compiled code is cached (``cache=True``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from stablefs._runtime.compilation import watch_compilation

watch_compilation()  # first-use compilation is announced


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
def leaving(importance, n_out, threshold, remaining):  # pragma: no cover - compiled
    """The features that leave: the ``n_out`` smallest ``importance`` values, equal values the
    higher position first (positions follow the feature order, so the higher feature index
    leaves first), and the features that stay.

    ``threshold`` is the ``n_out``-th smallest value (``np.partition(importance, n_out - 1)
    [n_out - 1]``, which NumPy computes with its SIMD selection several times faster than
    compiled code here), ignored when ``n_out >= importance.size``. One pass for the values
    below the threshold and a backward pass for the tied ones: O(m).

    Returns ``(chosen, values, kept)``: the chosen positions in descending order, their
    values, and ``remaining`` without them (ascending). A stable sort of ``values``,
    ``chosen[np.argsort(values, kind="stable")]``, orders them worst first, the same
    positions in the same order as the full ``np.lexsort((-position, importance))[:n_out]``.
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
        # one descending sequence of positions: merge the two runs
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
    out = np.zeros(m, dtype=np.bool_)
    for t in range(chosen.size):
        values[t] = importance[chosen[t]]
        out[chosen[t]] = True
    kept = np.empty(m - chosen.size, dtype=np.int64)
    k = 0
    for j in range(m):
        if not out[j]:
            kept[k] = remaining[j]
            k += 1
    return chosen, values, kept


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
def permute_symmetric(A, perm):  # pragma: no cover - compiled
    """``A[:, :] = A[perm][:, perm]`` in place (``A`` square): the rows by cycles of the
    permutation, one spare row, then the columns one row at a time (no second matrix)."""
    n = A.shape[0]
    spare = np.empty(n)
    done = np.zeros(n, dtype=np.bool_)
    for start in range(n):
        if done[start]:
            continue
        done[start] = True
        if perm[start] == start:
            continue
        for c in range(n):
            spare[c] = A[start, c]
        k = start
        while True:
            src = perm[k]
            done[k] = True
            if src == start:
                for c in range(n):
                    A[k, c] = spare[c]
                break
            for c in range(n):
                A[k, c] = A[src, c]
            k = src
    permute_columns(A, perm)


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
def scaled_transpose(X, lo, span):  # pragma: no cover - compiled
    """A new C array ``XT`` of shape ``(p, n)`` with ``XT[f, c] = (X[c, f] - lo[f]) /
    span[f]``: ``((X - lo) / span).T`` rounded exactly as NumPy rounds it (one subtraction
    and one division per value, IEEE correctly rounded). One pass over ``X``, read in blocks
    of 32 features per sample when ``X`` is sample-major (as :func:`permuted_transpose`)."""
    n, p = X.shape
    XT = np.empty((p, n))
    if X.strides[0] <= X.strides[1]:  # feature-major: each feature's values are contiguous
        for f in range(p):
            a = lo[f]
            b = span[f]
            for c in range(n):
                XT[f, c] = (X[c, f] - a) / b
    else:
        for f0 in range(0, p, 32):
            f1 = min(f0 + 32, p)
            for c in range(n):
                for f in range(f0, f1):
                    XT[f, c] = (X[c, f] - lo[f]) / span[f]
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
def weights_by_feature(w, row, remaining):  # pragma: no cover - compiled
    """One SVM-RFE iteration's weights in feature order and their importance.

    ``w`` (rows x problems) holds the weight of the feature of each row of the working copy,
    ``row`` maps a feature to its row, ``remaining`` lists the remaining features ascending.
    Returns ``coef`` (problems x m), ``w[row[remaining]].T``, and ``importance_j =
    sum_c coef[c, j]^2`` summed in problem order from 0.0: the bits of ``coef[0] ** 2`` and,
    for two or more features, of ``np.einsum("cj,cj->j", coef, coef)`` (tested; for a single
    feature einsum sums in another order, but then nothing leaves: it is the last iteration).
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
    return coef, importance
