"""Compiled (Numba) kernels of the wrapper criteria.

- :func:`kth_smallest_add` -- per point and candidate, the nearest (or second nearest)
  point of a range in ``S + {j}`` from the squared distances over ``S``: the bolstering
  kernel widths (Braga-Neto and Dougherty 2004) and the 3NN resubstitution of every
  candidate, with no pruning (the loop over all pairs is cheaper than the bound checks);
- :func:`svc_margins_add` -- the linear SVM of every candidate, solved by libsvm's SMO
  compiled (:mod:`stablefs.selectors._smo`: Fan, Chen and Lin 2005; Chang and Lin 2011)
  step for step in single-precision ``Q`` as libsvm runs it, so on the same kernel matrix
  the same dual coefficients and offset to the last bit (tested; scikit-learn's libsvm
  forms a linear kernel with BLAS ``ddot``, whose summation order depends on the CPU, so on
  raw data the two agree to round-off);
- :func:`svc_duals_remove` -- the linear SVM of every subset ``S - {q}`` of a backward step,
  on kernels downdated from ``K_S``: each entry of libsvm's single-precision ``Q`` is the
  downdated value rounded where a rounding-error bound certifies that this is the rounding
  of the subset's own left-to-right kernel (on Colon from 2000 genes all but 86 of 3.8
  million), else the sum itself; the diagonal (double precision in libsvm) is summed from
  prefix sums. The solutions are then the same as on each subset's kernel, bit for bit
  (tested);
- :func:`mc_pruned_sums` -- the two-class 1NN / 3NN vote of every Monte-Carlo draw of a
  forward step of the (semi-)bolstered kNN criterion (Braga-Neto and Dougherty 2004; the
  3NN criterion of Xiao, Hua and Dougherty 2007), counted per candidate and point against
  the point's class, point by point, with the step's pruning (a candidate leaves as soon as
  its partial sum exceeds the bound). The NumPy version
  (:meth:`~stablefs.selectors.wrappers._knn_criterion.KNNPart._vote_lfirst`) materialises
  the ``(neighbours, draws, points, candidates)`` tensor and passes over it about ten times;
  the kernel computes each value once, in registers, keeps each class's running minimum and
  second minimum, and reads the candidates' draws in place; :func:`mc_errors_remove_two_class`
  is the backward step's vote.

Every value is computed with the same operations in the same order as the NumPy version
(``((d * e) + B) + (d * d + A) * h``; no fast-math, so no fused multiply-adds), so the order
statistics, and the votes, are bit for bit the same (tested). Equal statistics of the two
classes are decided as the NumPy version decides them, by the ``K`` nearest neighbours in
the order of a stable sort (:func:`_sorted_vote`).

One thread, float64; the module imports Numba and is imported on first use only (importing
stablefs does not import Numba). Compiled code is cached on disk (``cache=True``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from stablefs._runtime.compilation import watch_compilation
from stablefs.selectors._smo import _smo

watch_compilation()  # first-use compilation is announced


@njit(cache=True, nogil=True)
def _sorted_vote(row, perm, ct, K):  # pragma: no cover - compiled
    """The vote of the ``K`` nearest neighbours of one draw, ``row[l]`` its distance key to
    training point ``perm[l]``: neighbours by key, equal keys by training index (the stable
    sort of :func:`~stablefs.selectors.wrappers._knn_criterion.knn_vote`), class 1 when it has
    more of them than class 0 (two classes; ties to class 0, as ``np.argmax``)."""
    n = row.size
    k = min(K, n)
    chosen = np.full(k, -1, dtype=np.int64)
    ones = 0
    for t in range(k):
        best = -1
        for l in range(n):
            taken = False
            for u in range(t):
                if chosen[u] == l:
                    taken = True
            if taken:
                continue
            if best < 0 or row[l] < row[best] or (row[l] == row[best] and perm[l] < perm[best]):
                best = l
        chosen[t] = best
        ones += ct[perm[best]]
    return 1 if 2 * ones > k else 0


@njit(cache=True, nogil=True, inline="always")
def _push(r1, r2, c, t):  # pragma: no cover - compiled
    """Lane ``c``'s running minimum ``r1`` and second minimum ``r2`` after the value ``t``,
    as plain selects (vectorised over the lanes; ``min()`` with its NaN rule is not)."""
    a1 = r1[c]
    x = a1 if a1 > t else t
    a2 = r2[c]
    r2[c] = a2 if a2 < x else x
    r1[c] = a1 if a1 < t else t


@njit(cache=True, nogil=True, inline="always")
def _add_point_errors(i, Xt, js, ss, skip, xp, perm, n0, A, B, NB, K, ct, xs, d, h, e, q, m1,
                      m2, row, cnt):  # pragma: no cover - compiled
    """Misclassified draws of point ``i`` in ``S + {js[c]}`` for every lane ``c`` into
    ``cnt[c]`` (0 where ``skip[c]``); ``ss`` the lanes' ``1 / (2 sigma_ic)``, ``xp`` (n, w)
    their columns in class order; the other arrays are work space. Equal class statistics are
    decided by :func:`_sorted_vote` on the draw's keys (:func:`mc_pruned_sums`)."""
    w = js.size
    n = perm.size
    M = NB.shape[2]
    r = (K + 1) // 2
    for c in range(w):
        xs[c] = Xt[i, js[c]]
    for l in range(n):
        ail = A[i, l]
        xl = xp[l]
        dl = d[l]
        hl = h[l]
        for c in range(w):
            v = xs[c] - xl[c]
            dl[c] = v
            hl[c] = (v * v + ail) * ss[c]
    for c in range(w):
        src = NB[js[c], i]
        for m in range(M):
            e[m, c] = src[m]
    for k in range(2):
        lo = 0 if k == 0 else n0
        hi = n0 if k == 0 else n
        m1[:, :] = np.inf
        m2[:, :] = np.inf
        if hi - lo >= r:
            if K == 1:
                for l in range(lo, hi):
                    dl = d[l]
                    hl = h[l]
                    for m in range(M):
                        b = B[i, m, l]
                        em = e[m]
                        r1 = m1[m]
                        # a running minimum as plain selects on row views (vectorised over
                        # the lanes; min() with its NaN rule is not)
                        for c in range(w):
                            t = (dl[c] * em[c] + b) + hl[c]
                            a1 = r1[c]
                            r1[c] = a1 if a1 < t else t
            else:
                for l in range(lo, hi):
                    dl = d[l]
                    hl = h[l]
                    for m in range(M):
                        b = B[i, m, l]
                        em = e[m]
                        r1 = m1[m]
                        r2 = m2[m]
                        for c in range(w):  # running minimum and second minimum
                            _push(r1, r2, c, (dl[c] * em[c] + b) + hl[c])
        if K == 1:
            q[k] = m1
        else:
            q[k] = m2
    own = ct[i]
    for c in range(w):
        count = 0
        if not skip[c]:
            for m in range(M):
                q0, q1 = q[0, m, c], q[1, m, c]
                if q0 == q1:
                    for l in range(n):
                        row[l] = (d[l, c] * e[m, c] + B[i, m, l]) + h[l, c]
                    vote = _sorted_vote(row, perm, ct, K)
                else:
                    vote = 1 if q1 < q0 else 0
                if vote != own:
                    count += 1
        cnt[c] = count


@njit(cache=True, nogil=True)
def _padded(count, lanes):  # pragma: no cover - compiled
    """Lanes for ``count`` candidates: rounded up to a multiple of ``lanes`` when 3 or more
    would be left to the scalar remainder loop (slower than a padded vector body)."""
    return count if count % lanes < 3 else count + lanes - count % lanes


@njit(cache=True, nogil=True)
def mc_pruned_sums(Xt, js, ci, order, perm, n0, A, B, NB, half_inv_sig, K, ct, skip, partial,
                   bound, lanes, counts):  # pragma: no cover - compiled
    """A forward step of the Monte-Carlo kNN criterion, one point at a time: the
    misclassified draws of point ``i`` in ``S + {js[c]}`` (the draws whose vote is not the
    point's class ``ct[i]``: each class's ``(K + 1)/2``-th smallest key decides, and when the
    two are equal the ``K`` nearest by key and training index vote, :func:`_sorted_vote`),
    for the points ``order`` in turn, are added over ``M`` to every candidate's partial sum
    ``partial[c]``, and a candidate is dropped as soon as its sum exceeds ``bound`` (every
    term is >= 0: the pruning of
    :meth:`~stablefs.selectors.wrappers._knn_criterion.KNNPart.sums_add_bounded`; ``bound =
    inf`` evaluates every pair). Pairs with ``skip[i, ci[c]]`` (the points semi-bolstering
    counts as misclassified: their term is 0) are not evaluated. The lanes (the live
    candidates, padded by :func:`_padded` with copies of the first) are compacted when that
    saves a vector body.

    Parameters
    ----------
    Xt : (n, p) training points; ``js`` (mc,) candidate features; ``ci`` (mc,) their
        positions in the step's candidate list; ``order`` (ni,) the points; ``perm`` (n,)
        training points in class order (``n0`` of class 0 first).
    A : (n, n) squared distances over ``S`` (neighbours in class order).
    B : (n, M, n) ``B_iml`` over ``S`` (neighbours in class order).
    NB : (p', n, M) every feature's draws (:meth:`Noise.block`): ``NB[js[c]]`` the
        candidate's; ``half_inv_sig`` (n, m) ``1 / (2 sigma_ij)``.
    K : 1 or 3; ``ct`` (n,) class codes (0 or 1); ``skip`` (n, m) bool.
    counts : (ni, mc) int64 or (0, 0)
        If not empty, ``counts[t, c]`` receives the misclassified draws of point
        ``order[t]`` for candidate ``c`` (0 where skipped or after ``c`` was dropped).

    Returns
    -------
    alive : (mc,) bool
        The candidates evaluated on every point, whose ``partial`` is then their whole sum
        (the others' ``partial`` exceed ``bound``).
    n_keys : int
        Keys computed (lanes x neighbours x draws over the evaluated points; for benchmarks).
    """
    mc = js.size
    n = perm.size
    M = NB.shape[2]
    W = _padded(mc, lanes)
    alive = np.ones(mc, dtype=np.bool_)
    # work space at the widest; the per-point code loops over the first w lanes of each row
    d, h, e = np.empty((n, W)), np.empty((n, W)), np.empty((M, W))
    q, m1, m2 = np.empty((2, M, W)), np.empty((M, W)), np.empty((M, W))
    row, xs, ss = np.empty(n), np.empty(W), np.empty(W)
    cnt, lane_skip = np.empty(W, dtype=np.int64), np.empty(W, dtype=np.bool_)
    xp = np.empty((n, W))
    lane = np.empty(W, dtype=np.int64)    # candidate of each lane
    live = np.zeros(W, dtype=np.bool_)    # lanes still summing (not padding, not dropped)
    ljs = np.empty(W, dtype=np.int64)
    n_live = mc
    w = 0
    n_keys = 0
    record = counts.shape[0] > 0
    for t in range(order.size):
        i = order[t]
        if n_live == 0:
            break
        if _padded(n_live, lanes) + lanes <= max(w, lanes) or w == 0:  # compact the lanes
            kept = np.empty(n_live, dtype=np.int64)
            k = 0
            if w == 0:
                for c in range(mc):
                    kept[c] = c
                k = mc
            else:
                for c in range(w):
                    if live[c]:
                        kept[k] = lane[c]
                        k += 1
            w = _padded(n_live, lanes)
            for c in range(w):
                lane[c] = kept[c] if c < n_live else kept[0]
                live[c] = c < n_live
                ljs[c] = js[lane[c]]
            for l in range(n):
                for c in range(w):
                    xp[l, c] = Xt[perm[l], ljs[c]]
        evaluated = 0
        for c in range(w):
            lane_skip[c] = (not live[c]) or skip[i, ci[lane[c]]]
            ss[c] = half_inv_sig[i, ci[lane[c]]]
            evaluated += not lane_skip[c]
        if evaluated:
            _add_point_errors(i, Xt, ljs[:w], ss, lane_skip, xp, perm, n0, A, B, NB, K, ct,
                              xs, d, h, e, q, m1, m2, row, cnt)
            n_keys += w * n * M
        for c in range(w):
            if not live[c]:
                continue
            cand = lane[c]
            if not lane_skip[c]:
                partial[cand] += cnt[c] / M
                if record:
                    counts[t, cand] = cnt[c]
            if partial[cand] > bound:
                alive[cand] = False
                live[c] = False
                n_live -= 1
    return alive, n_keys


@njit(cache=True, nogil=True)
def mc_errors_remove_two_class(Xt, js, perm, n0, A, B, C, NB, sig, K, ct):  # pragma: no cover
    """:func:`mc_pruned_sums`' vote for a backward step: the draws of every point in
    ``S - {js[c]}`` (every candidate ``c`` a member of ``S``), misclassified counts
    ``wrong[c, i]`` (all points, data order; equal class statistics decided by
    :func:`_sorted_vote` on the draw's distances).

    The squared distance of draw ``Z_im = x_i + sigma_ic eps_im`` to training point ``l`` is
    ``((A_il - d^2) + (2 sigma_ic) (B_iml - e d)) + sigma_ic^2 (C_im - e^2)``, clamped at 0,
    with ``d = x_ij - x_lj`` and ``e = eps_imj`` the removed feature's offset and draw:
    :meth:`~stablefs.selectors.wrappers._knn_criterion.KNNPart._mc_values`' NumPy expression,
    operation for operation, so the same values and, with each class's running minimum and
    second minimum for its partition, the same votes bit for bit.

    Parameters
    ----------
    A : (n, n), B : (n, M, n), C : (n, M)
        ``sum_S delta^2``, ``sum_S delta eps`` and ``sum_S eps^2`` (neighbours in class order).
    NB : (p', n, M) every feature's draws; ``sig`` (n, mc) the kernel widths of ``S - {j}``.
    """
    mc = js.size
    n = perm.size
    M = NB.shape[2]
    r = (K + 1) // 2
    wrong = np.zeros((mc, n), dtype=np.int64)
    row = np.empty(n)
    d = np.empty((n, mc))
    a1 = np.empty((n, mc))
    e = np.empty((M, mc))
    cm = np.empty((M, mc))
    s2 = np.empty(mc)
    q = np.empty((2, M, mc))
    m1 = np.empty((M, mc))
    m2 = np.empty((M, mc))
    for i in range(n):
        for l in range(n):
            ail = A[i, l]
            for c in range(mc):
                j = js[c]
                v = Xt[i, j] - Xt[perm[l], j]
                d[l, c] = v
                a1[l, c] = ail - v * v
        for c in range(mc):
            sc = sig[i, c]
            s2[c] = 2.0 * sc
            src = NB[js[c], i]
            for m in range(M):
                em = src[m]
                e[m, c] = em
                cm[m, c] = (sc * sc) * (C[i, m] - em * em)
        for k in range(2):
            lo = 0 if k == 0 else n0
            hi = n0 if k == 0 else n
            m1[:, :] = np.inf
            m2[:, :] = np.inf
            if hi - lo >= r:
                for l in range(lo, hi):
                    dl = d[l]
                    al = a1[l]
                    for m in range(M):
                        b = B[i, m, l]
                        em = e[m]
                        cmm = cm[m]
                        r1 = m1[m]
                        r2 = m2[m]
                        for c in range(mc):
                            t = al[c] + s2[c] * (b - em[c] * dl[c])
                            t = t + cmm[c]
                            _push(r1, r2, c, t if t >= 0.0 else 0.0)
            if K == 1:
                q[k] = m1
            else:
                q[k] = m2
        own = ct[i]
        for c in range(mc):
            count = 0
            for m in range(M):
                q0, q1 = q[0, m, c], q[1, m, c]
                if q0 == q1:
                    for l in range(n):
                        t = a1[l, c] + s2[c] * (B[i, m, l] - e[m, c] * d[l, c])
                        t = t + cm[m, c]
                        row[l] = t if t >= 0.0 else 0.0
                    vote = _sorted_vote(row, perm, ct, K)
                else:
                    vote = 1 if q1 < q0 else 0
                if vote != own:
                    count += 1
            wrong[c, i] = count
    return wrong


@njit(cache=True, nogil=True)
def kth_smallest_add(D, XT, J, lo, hi, kth):  # pragma: no cover - compiled
    """``out[i, c]``: the ``kth`` (1 or 2) smallest of ``(x_{l j} - x_{i j})^2 + D[i, l]`` over
    ``l`` in ``[lo[i], hi[i])``, ``l != i``, with ``j = J[c]`` (inf when there are fewer than
    ``kth`` such ``l``).

    The squared distances of a forward step ``S + {j}`` from those over ``S`` (``D``), every
    candidate at once, for the bolstering kernel widths (nearest same-class point) and the
    3NN resubstitution (second nearest point of the other class); the pruned NumPy versions
    (:meth:`~stablefs.selectors.wrappers._bolstering_widths.WidthMixin._nn_add`,
    :meth:`~stablefs.selectors.wrappers._bolstering_widths.WidthMixin._kth_add`) compute
    the same sums, so the same minima bit for bit. ``XT`` is ``(p, n)``.
    """
    n = D.shape[0]
    m = J.size
    X = np.empty((n, m))
    for c in range(m):
        row = XT[J[c]]
        for t in range(n):
            X[t, c] = row[t]
    out = np.empty((n, m))
    m1 = np.empty(m)
    m2 = np.empty(m)
    for i in range(n):
        m1[:] = np.inf
        m2[:] = np.inf
        xi = X[i]
        for l in range(lo[i], hi[i]):
            if l == i:
                continue
            d = D[i, l]
            xl = X[l]
            if kth == 1:
                for c in range(m):
                    v = xl[c] - xi[c]
                    t = v * v + d
                    a1 = m1[c]
                    m1[c] = a1 if a1 < t else t
            else:
                for c in range(m):
                    v = xl[c] - xi[c]
                    t = v * v + d
                    a1 = m1[c]
                    x = a1 if a1 > t else t
                    a2 = m2[c]
                    m2[c] = a2 if a2 < x else x
                    m1[c] = a1 if a1 < t else t
        if kth == 1:
            out[i] = m1
        else:
            out[i] = m2
    return out

# ------------------------------------------------------------------------------- linear SVM

@njit(cache=True, nogil=True)
def linear_kernel(X):  # pragma: no cover - compiled
    """``K[a, b] = sum_f X[a, f] X[b, f]``, each sum left to right over the features (libsvm's
    dense dot product)."""
    n, p = X.shape
    K = np.empty((n, n))
    for a in range(n):
        for b in range(a, n):
            s = 0.0
            for f in range(p):
                s += X[a, f] * X[b, f]
            K[a, b] = s
            K[b, a] = s
    return K


@njit(cache=True, nogil=True)
def svc_margins_add(XS, Xj, ysign, C, eps, max_iter):  # pragma: no cover - compiled
    """The linear SVM of ``S + {j}`` for every candidate column ``Xj[:, c]``, points in
    libsvm's order (``XS`` (n, k) the columns of ``S``).

    The kernel matrix is ``K_S + x_j x_j^T`` (the left-to-right sum with the candidate's
    product last, bit for bit the kernel of the columns ``S + [j]``), solved as
    :func:`stablefs.selectors._smo.svc_dual` solves it; the direction is
    ``a = -sum_t coef_t x_t`` over the support vectors (libsvm's order), the offset
    ``b = rho``.

    Every solve stops after ``max_iter`` iterations (libsvm's limit; -1: none); the first
    candidate whose solve reaches it ends the call.

    Returns
    -------
    diff : (m, n) ``a^T x_i + b``; norm : (m,) ``||a||``; n_iter : (m,) int64, each solve's
    iteration count (``max_iter``: that solve stopped at the limit, the call ended there, and
    ``diff`` and ``norm`` are unusable; 0 for the candidates after it).
    """
    n, m = Xj.shape
    k = XS.shape[1]
    KS = linear_kernel(XS)
    diff = np.empty((m, n))
    norm = np.empty(m)
    Q = np.empty((n, n), dtype=np.float32)
    QD = np.empty(n)
    a = np.empty(k + 1)
    Cv = np.full(n, np.float64(C))
    iters = np.zeros(m, dtype=np.int64)
    for c in range(m):
        # libsvm's Q and QD of S + [j] directly (svc_dual's, without the kernel matrix)
        for r in range(n):
            xr = Xj[r, c]
            for t in range(n):
                Q[r, t] = np.float32(ysign[r] * ysign[t] * (KS[r, t] + xr * Xj[t, c]))
            QD[r] = KS[r, r] + xr * Xj[r, c]
        coef, rho, n_iter = _smo(Q, QD, ysign, Cv, eps, max_iter)  # equal bounds: the swaps
        iters[c] = n_iter                                           # leave Cv as it is
        if 0 <= max_iter <= n_iter:
            break
        a[:] = 0.0
        for t in range(n):
            ct = coef[t]
            if ct != 0.0:
                for f in range(k):
                    a[f] += -ct * XS[t, f]
                a[k] += -ct * Xj[t, c]
        s2 = 0.0
        for f in range(k + 1):
            s2 += a[f] * a[f]
        norm[c] = np.sqrt(s2)
        for t in range(n):
            v = 0.0
            for f in range(k):
                v += XS[t, f] * a[f]
            v += Xj[t, c] * a[k]
            diff[c, t] = v + rho
    return diff, norm, iters


#: unit roundoff and smallest subnormal of float64 (the rounding error bounds' terms)
_U = 2.0 ** -53
_ETA = 2.0 ** -1074


@njit(cache=True, nogil=True)
def _certified_q(KS, Xg, ysign, q, Q, QD, P):  # pragma: no cover - compiled
    """libsvm's ``Q`` and ``QD`` of the columns ``S - {q}`` of ``Xg`` (points in libsvm's
    order), exactly as :func:`stablefs.selectors._smo.svc_dual` forms them from
    :func:`linear_kernel` of those columns, from ``KS`` (:func:`linear_kernel` of ``Xg``)
    and ``P`` (``P[f, a]``: the left-to-right sum of ``Xg[a, :f] ** 2``).

    The diagonal is the left-to-right sum itself (``P[q]`` then the terms after ``q``).
    An entry off it, ``v = KS[a, b] - x_aq x_bq``, is rounded to single precision when that
    is certified to be the rounding of the left-to-right sum over ``S - {q}``: both lie
    within ``delta = 2 (u |v| + (2 gamma_k + u) sqrt(KS_aa KS_bb) / (1 - gamma_k) + k eta)``
    of the exact sum (``u = 2^-53``, ``gamma_k = k u / (1 - k u)``, ``eta`` the smallest
    subnormal; Higham 2002, eq. 3.5, with Cauchy-Schwarz for ``sum |x_af x_bf|``), so when
    ``v - delta`` and ``v + delta`` round to the same single-precision number, so does the
    sum. Otherwise the sum is formed left to right. Returns how many entries were formed so.
    """
    n, k = Xg.shape
    gk = k * _U / (1.0 - k * _U)
    c = (2.0 * gk + _U) / (1.0 - gk)
    for a in range(n):
        s = P[q, a]
        for f in range(q + 1, k):
            s += Xg[a, f] * Xg[a, f]
        QD[a] = s
        Q[a, a] = np.float32(s)  # ysign[a]^2 = 1
    exact = 0
    for a in range(n):
        for b in range(a + 1, n):
            v = KS[a, b] - Xg[a, q] * Xg[b, q]
            d = 2.0 * (_U * abs(v) + c * np.sqrt(KS[a, a] * KS[b, b]) + k * _ETA)
            if np.float32(v - d) != np.float32(v + d):
                exact += 1
                v = 0.0
                for f in range(k):
                    if f != q:
                        v += Xg[a, f] * Xg[b, f]
            r = np.float32(ysign[a] * ysign[b] * v)
            Q[a, b] = r
            Q[b, a] = r
    return exact


@njit(cache=True, nogil=True)
def svc_duals_remove(Xg, ysign, C, eps, max_iter):  # pragma: no cover - compiled
    """The linear SVM of ``S - {q}`` for every column ``q`` of ``Xg`` (n, k), points in
    libsvm's order: libsvm's dual coefficients and offset, the same to the last bit as
    :func:`stablefs.selectors._smo.svc_dual` on :func:`linear_kernel` of the columns without
    ``q``, in ``O(n^2)`` per candidate instead of ``O(n^2 k)`` (:func:`_certified_q`).

    Every solve stops after ``max_iter`` iterations (libsvm's limit; -1: none); the first
    candidate whose solve reaches it ends the call.

    Returns
    -------
    coef : (k, n) ``alpha_i y_i``; rho : (k,); n_iter : (k,) int64 (as
    :func:`svc_margins_add`'s: ``max_iter`` marks the solve that stopped the call);
    exact : int, the entries of ``Q`` formed as sums (the others certified).
    """
    n, k = Xg.shape
    KS = linear_kernel(Xg)
    P = np.empty((k, n))
    for a in range(n):
        s = 0.0
        for f in range(k):
            P[f, a] = s
            s += Xg[a, f] * Xg[a, f]
    coef = np.zeros((k, n))
    rho = np.zeros(k)
    iters = np.zeros(k, dtype=np.int64)
    Q = np.empty((n, n), dtype=np.float32)
    QD = np.empty(n)
    Cv = np.full(n, np.float64(C))
    exact = 0
    for q in range(k):
        exact += _certified_q(KS, Xg, ysign, q, Q, QD, P)
        cq, rq, n_iter = _smo(Q, QD, ysign, Cv, eps, max_iter)  # equal bounds: Cv unchanged
        iters[q] = n_iter
        if 0 <= max_iter <= n_iter:
            break
        coef[q] = cq
        rho[q] = rq
    return coef, rho, iters, exact
