"""Compiled (Numba) kernels of the wrapper criteria.

- :func:`mc_vote_two_class` -- the two-class 1NN / 3NN vote of every Monte-Carlo draw of a
  forward step of the (semi-)bolstered kNN criterion (Braga-Neto and Dougherty 2004; the
  3NN criterion of Xiao, Hua and Dougherty 2007), for a block of candidates and points. The
  NumPy version (:meth:`~stablefs.selectors.wrappers._knn_criterion.KNNPart._vote_lfirst`)
  materialises the ``(neighbours, draws, points, candidates)`` tensor and passes over it
  about ten times; the kernel computes each value once, in registers, and keeps each
  class's running minimum and second minimum.

Every value is computed with the same operations in the same order as the NumPy version
(``((d * e) + B) + (d * d + A) * h``; no fast-math, so no fused multiply-adds), so the order
statistics, and the votes, are bit for bit the same (tested). Equal statistics of the two
classes are returned as ``-1``: the caller votes on the sorted row, as before.

One thread, float64; the module imports Numba and is imported on first use only (importing
stablefs does not import Numba). Compiled code is cached on disk (``cache=True``).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def mc_vote_two_class(Xt, js, ci, pts, perm, n0, A, B, EM, half_inv_sig, K):  # pragma: no cover
    """Predicted class of every draw: ``pred[m, i, c]`` (0 or 1, ``-1`` on a tie; the
    layout of the NumPy version before its transpose).

    Parameters
    ----------
    Xt : (n, p) training points; ``js`` (mc,) candidate features; ``ci`` (mc,) their
        positions in the step's candidate list; ``pts`` (ni,) evaluated points; ``perm`` (n,)
        training points in class order (``n0`` of class 0 first).
    A : (n, n) squared distances over ``S`` (neighbours in class order).
    B : (n, M, n) ``B_iml`` over ``S`` (neighbours in class order).
    EM : (M, n, m) the candidates' draws; ``half_inv_sig`` (n, m) ``1 / (2 sigma_ij)``.
    K : 1 or 3.
    """
    mc = js.size
    ni = pts.size
    n = perm.size
    M = EM.shape[0]
    r = (K + 1) // 2
    pred = np.empty((M, ni, mc), dtype=np.int64)
    # per point: its candidates' offsets d (n, mc), the scaled distances h (n, mc), the draws
    # e (M, mc) and each class's running minimum m1 and second minimum m2 (M, mc), the
    # candidates innermost (independent lanes: SIMD)
    d = np.empty((n, mc))
    h = np.empty((n, mc))
    e = np.empty((M, mc))
    xp = np.empty((n, mc))
    for l in range(n):
        for c in range(mc):
            xp[l, c] = Xt[perm[l], js[c]]
    q = np.empty((2, M, mc))
    m1 = np.empty((M, mc))
    m2 = np.empty((M, mc))
    for ii in range(ni):
        i = pts[ii]
        for c in range(mc):
            s = half_inv_sig[i, ci[c]]
            xi = Xt[i, js[c]]
            for l in range(n):
                dl = xi - xp[l, c]
                d[l, c] = dl
                h[l, c] = (dl * dl + A[i, l]) * s
        for m in range(M):
            for c in range(mc):
                e[m, c] = EM[m, i, ci[c]]
        for k in range(2):
            lo = 0 if k == 0 else n0
            hi = n0 if k == 0 else n
            m1[:, :] = np.inf
            m2[:, :] = np.inf
            if hi - lo >= r:
                for l in range(lo, hi):
                    for m in range(M):
                        b = B[i, m, l]
                        if K == 1:
                            for c in range(mc):
                                t = (d[l, c] * e[m, c] + b) + h[l, c]
                                m1[m, c] = min(m1[m, c], t)
                        else:
                            for c in range(mc):
                                t = (d[l, c] * e[m, c] + b) + h[l, c]
                                m2[m, c] = min(m2[m, c], max(m1[m, c], t))
                                m1[m, c] = min(m1[m, c], t)
            if K == 1:
                q[k] = m1
            else:
                q[k] = m2
        for m in range(M):
            for c in range(mc):
                if q[1, m, c] < q[0, m, c]:
                    pred[m, ii, c] = 1
                elif q[1, m, c] == q[0, m, c]:
                    pred[m, ii, c] = -1
                else:
                    pred[m, ii, c] = 0
    return pred
