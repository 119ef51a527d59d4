"""libsvm's SMO for the C-SVC dual, compiled (Numba): the solver of the linear-SVM criteria and
of SVM-RFE.

:func:`svc_dual` runs libsvm's solver (Fan, Chen and Lin 2005, working-set selection 3;
Chang and Lin 2011, shrinking and the offset ``rho``) step for step, in single-precision
``Q = y y^T K`` entries and a double diagonal as libsvm keeps them, so on the same kernel matrix
it returns the same dual coefficients and offset as :class:`sklearn.svm.SVC` to the last bit
(tested against scikit-learn's libsvm given the kernel precomputed, with and without per-sample
penalties). :func:`svc_dual_ordered` is the same solver on a kernel matrix in the caller's
point order, with one penalty per point (``C`` times the instance weight, as scikit-learn's
libsvm takes ``sample_weight``), for SVM-RFE (Guyon et al. 2002; Han 2012 eq. 5.2).

A solve can stop at libsvm's own iteration limit (:mod:`._svm_convergence`), which
scikit-learn's SVC lifts (``-1``: no limit, as SVM-RFE solves); each solution comes with its
iteration count (``SVC.n_iter_``, tested), so that a caller can tell a solve that stopped at
the limit.

One thread, float64 apart from ``Q``; the module imports Numba and is imported on first use only
(importing stablefs does not import Numba). Compiled code is cached on disk (``cache=True``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from stablefs._runtime.compilation import watch_compilation

watch_compilation()  # first-use compilation is announced

_LOWER, _UPPER, _FREE = 0, 1, 2
_TAU = 1e-12


@njit(cache=True, nogil=True)
def _status(a, C):  # pragma: no cover - compiled
    if a >= C:
        return _UPPER
    if a <= 0:
        return _LOWER
    return _FREE


@njit(cache=True, nogil=True)
def _shrinkable(st, yy, g, gmax1, gmax2):  # pragma: no cover - compiled
    if st == _UPPER:
        return -g > gmax1 if yy == 1 else -g > gmax2
    if st == _LOWER:
        return g > gmax2 if yy == 1 else g > gmax1
    return False


@njit(cache=True, nogil=True)
def _reconstruct(active, n, G, Gbar, alpha, st, Q):  # pragma: no cover - compiled
    # the gradient of the shrunk variables from G_bar and the free variables (the two loop
    # orders of the reference solver sum the same terms in different orders: both kept)
    if active == n:
        return
    for j in range(active, n):
        G[j] = Gbar[j] - 1.0
    nfree = 0
    for j in range(active):
        if st[j] == _FREE:
            nfree += 1
    if nfree * n > 2 * active * (n - active):
        for i in range(active, n):
            for j in range(active):
                if st[j] == _FREE:
                    G[i] += alpha[j] * np.float64(Q[i, j])
    else:
        for i in range(active):
            if st[i] == _FREE:
                ai = alpha[i]
                for j in range(active, n):
                    G[j] += ai * np.float64(Q[i, j])


@njit(cache=True, nogil=True)
def _select(active, yv, G, st, QD, Q, eps):  # pragma: no cover - compiled
    # the second-order working set (Fan, Chen and Lin 2005, WSS 3); (-1, -1) when optimal
    gmax = -np.inf
    gmax2 = -np.inf
    imax = -1
    jmin = -1
    best = np.inf
    for t in range(active):
        if yv[t] == 1:
            if st[t] != _UPPER and -G[t] >= gmax:
                gmax = -G[t]
                imax = t
        else:
            if st[t] != _LOWER and G[t] >= gmax:
                gmax = G[t]
                imax = t
    i = imax
    for j in range(active):
        if yv[j] == 1:
            if st[j] != _LOWER:
                gd = gmax + G[j]
                if G[j] >= gmax2:
                    gmax2 = G[j]
                if gd > 0:
                    qc = QD[i] + QD[j] - 2.0 * yv[i] * np.float64(Q[i, j])
                    od = -(gd * gd) / qc if qc > 0 else -(gd * gd) / _TAU
                    if od <= best:
                        jmin = j
                        best = od
        else:
            if st[j] != _UPPER:
                gd = gmax - G[j]
                if -G[j] >= gmax2:
                    gmax2 = -G[j]
                if gd > 0:
                    qc = QD[i] + QD[j] + 2.0 * yv[i] * np.float64(Q[i, j])
                    od = -(gd * gd) / qc if qc > 0 else -(gd * gd) / _TAU
                    if od <= best:
                        jmin = j
                        best = od
    if gmax + gmax2 < eps or jmin == -1:
        return -1, -1
    return imax, jmin


@njit(cache=True, nogil=True)
def _swap(a, b, yv, G, st, alpha, pos, Gbar, QD, Q, Cv):  # pragma: no cover - compiled
    n = Q.shape[0]
    for t in range(n):
        Q[a, t], Q[b, t] = Q[b, t], Q[a, t]
    for t in range(n):
        Q[t, a], Q[t, b] = Q[t, b], Q[t, a]
    yv[a], yv[b] = yv[b], yv[a]
    G[a], G[b] = G[b], G[a]
    st[a], st[b] = st[b], st[a]
    alpha[a], alpha[b] = alpha[b], alpha[a]
    pos[a], pos[b] = pos[b], pos[a]
    Gbar[a], Gbar[b] = Gbar[b], Gbar[a]
    QD[a], QD[b] = QD[b], QD[a]
    Cv[a], Cv[b] = Cv[b], Cv[a]


@njit(cache=True, nogil=True)
def svc_dual(K, ysign, C, eps, max_iter):  # pragma: no cover - compiled
    """The C-SVC dual by SMO with shrinking, step for step the solver of libsvm (Chang and
    Lin 2011; Fan, Chen and Lin 2005), which :class:`sklearn.svm.SVC` runs: the same working
    sets, the same updates and the same single-precision ``Q`` entries, so the same solution
    to the last bit on the same kernel matrix (tested against scikit-learn's libsvm given
    the kernel precomputed).

    Parameters
    ----------
    K : (n, n) float64 kernel matrix (points in libsvm's order: class +1 first).
    ysign : (n,) int64, +1 or -1. C : float, the box bound. eps : float, the tolerance.
    max_iter : int, the most iterations (libsvm's
    :func:`._svm_convergence.libsvm_max_iter`), or -1 for no limit (scikit-learn's SVC).

    Returns
    -------
    coef : (n,) ``alpha_i y_i``; rho : float (the decision function is ``sum coef K - rho``);
    n_iter : int, libsvm's iteration count (``max_iter``: stopped there, the solution unusable).
    """
    n = K.shape[0]
    Q = np.empty((n, n), dtype=np.float32)
    for a in range(n):
        for b in range(n):
            Q[a, b] = np.float32(ysign[a] * ysign[b] * K[a, b])
    QD = np.empty(n)
    for a in range(n):
        QD[a] = K[a, a]
    return _smo(Q, QD, ysign, np.full(n, np.float64(C)), eps, max_iter)


@njit(cache=True, nogil=True)
def svc_dual_ordered(K, order, ysign, Cv, eps, max_iter):  # pragma: no cover - compiled
    """:func:`svc_dual` on the points ``order`` of ``K``, with a penalty per point.

    Parameters
    ----------
    K : (r, r) float64 kernel matrix of the caller's rows; only its lower triangle (diagonal
        included) is read.
    order : (n,) int64, the row of ``K`` of each point, points in libsvm's order (class +1
        first, each class in the caller's order). A row may hold several points (duplicated
        samples): the SVM sees every point.
    ysign : (n,) int64, ``+1`` / ``-1`` of each point.
    Cv : (n,) float64, the box bound of each point (``C`` times its instance weight).
    eps : float, the tolerance. max_iter : int, the most iterations, or -1 (no limit).

    Returns
    -------
    coef : (r,) ``alpha y`` summed over the points of each row of ``K``; rho : float;
    n_iter : int (as :func:`svc_dual`'s).
    """
    n = order.size
    Q = np.empty((n, n), dtype=np.float32)
    QD = np.empty(n)
    for a in range(n):
        oa = order[a]
        for b in range(a + 1):
            ob = order[b]
            v = np.float32(ysign[a] * ysign[b] * (K[oa, ob] if oa >= ob else K[ob, oa]))
            Q[a, b] = v
            Q[b, a] = v
        QD[a] = K[oa, oa]
    coef, rho, n_iter = _smo(Q, QD, ysign, Cv.copy(), eps, max_iter)
    out = np.zeros(K.shape[0])
    for a in range(n):
        out[order[a]] += coef[a]
    return out, rho, n_iter


@njit(cache=True, nogil=True)
def fill_q_block(Kb, r0, order, ysign, Q, QD):  # pragma: no cover - compiled
    """Write the entries of libsvm's ``Q`` (as :func:`svc_dual_ordered` builds it) that a
    block of rows of the kernel matrix holds: ``Kb[k, c]`` is ``K[r0 + k, c]`` for
    ``c <= r0 + k`` (the lower triangle of those rows); every pair of points whose rows
    ``order[a] >= order[b]`` fall in the block gets ``Q[a, b] = Q[b, a] =
    float32(y_a y_b K[order[a], order[b]])``, and ``QD[a] = K[order[a], order[a]]``."""
    n = order.size
    r1 = r0 + Kb.shape[0]
    for a in range(n):
        oa = order[a]
        if oa < r0 or oa >= r1:
            continue
        row = Kb[oa - r0]
        for b in range(n):
            ob = order[b]
            if ob <= oa:
                v = np.float32(ysign[a] * ysign[b] * row[ob])
                Q[a, b] = v
                Q[b, a] = v
        QD[a] = row[oa]


@njit(cache=True, nogil=True)
def svc_dual_q(Q, QD, order, ysign, Cv, eps, max_iter, n_rows):  # pragma: no cover - compiled
    """:func:`svc_dual_ordered` given its ``Q`` and ``QD`` (built by :func:`fill_q_block`;
    both are overwritten): ``coef`` summed over the points of each of the ``n_rows`` rows,
    ``rho``, ``n_iter``."""
    coef, rho, n_iter = _smo(Q, QD, ysign, Cv.copy(), eps, max_iter)
    out = np.zeros(n_rows)
    for a in range(order.size):
        out[order[a]] += coef[a]
    return out, rho, n_iter


@njit(cache=True, nogil=True)
def _smo(Q, QD, ysign, Cv, eps, max_iter):  # pragma: no cover - compiled
    # svc_dual on libsvm's single-precision Q = y y^T K, its double diagonal QD and the
    # per-point box bounds Cv (all three overwritten: they follow the shrinking swaps);
    # stops after max_iter iterations (-1: no limit), counted as libsvm counts them
    n = Q.shape[0]
    yv = ysign.copy()
    alpha = np.zeros(n)
    G = np.full(n, -1.0)
    Gbar = np.zeros(n)
    st = np.zeros(n, dtype=np.int64)              # every alpha at its lower bound
    pos = np.arange(n)                             # position -> point (the active set)
    active = n
    unshrink = False
    counter = min(n, 1000) + 1
    n_iter = 0
    while max_iter < 0 or n_iter < max_iter:
        counter -= 1
        if counter == 0:
            counter = min(n, 1000)
            # shrinking
            g1 = -np.inf
            g2 = -np.inf
            for t in range(active):
                if yv[t] == 1:
                    if st[t] != _UPPER and -G[t] >= g1:
                        g1 = -G[t]
                    if st[t] != _LOWER and G[t] >= g2:
                        g2 = G[t]
                else:
                    if st[t] != _UPPER and -G[t] >= g2:
                        g2 = -G[t]
                    if st[t] != _LOWER and G[t] >= g1:
                        g1 = G[t]
            if not unshrink and g1 + g2 <= eps * 10:
                unshrink = True
                _reconstruct(active, n, G, Gbar, alpha, st, Q)
                active = n
            t = 0
            while t < active:
                if _shrinkable(st[t], yv[t], G[t], g1, g2):
                    active -= 1
                    while active > t:
                        if not _shrinkable(st[active], yv[active], G[active], g1, g2):
                            _swap(t, active, yv, G, st, alpha, pos, Gbar, QD, Q, Cv)
                            break
                        active -= 1
                t += 1
        i, j = _select(active, yv, G, st, QD, Q, eps)
        if i < 0:
            _reconstruct(active, n, G, Gbar, alpha, st, Q)
            active = n
            i, j = _select(active, yv, G, st, QD, Q, eps)
            if i < 0:
                break
            counter = 1
        n_iter += 1
        Ci = Cv[i]
        Cj = Cv[j]
        ai0 = alpha[i]
        aj0 = alpha[j]
        qij = np.float64(Q[i, j])
        if yv[i] != yv[j]:
            qc = QD[i] + QD[j] + 2.0 * qij
            if qc <= 0:
                qc = _TAU
            delta = (-G[i] - G[j]) / qc
            diff = alpha[i] - alpha[j]
            alpha[i] += delta
            alpha[j] += delta
            if diff > 0:
                if alpha[j] < 0:
                    alpha[j] = 0.0
                    alpha[i] = diff
            else:
                if alpha[i] < 0:
                    alpha[i] = 0.0
                    alpha[j] = -diff
            if diff > Ci - Cj:
                if alpha[i] > Ci:
                    alpha[i] = Ci
                    alpha[j] = Ci - diff
            else:
                if alpha[j] > Cj:
                    alpha[j] = Cj
                    alpha[i] = Cj + diff
        else:
            qc = QD[i] + QD[j] - 2.0 * qij
            if qc <= 0:
                qc = _TAU
            delta = (G[i] - G[j]) / qc
            s = alpha[i] + alpha[j]
            alpha[i] -= delta
            alpha[j] += delta
            if s > Ci:
                if alpha[i] > Ci:
                    alpha[i] = Ci
                    alpha[j] = s - Ci
            else:
                if alpha[j] < 0:
                    alpha[j] = 0.0
                    alpha[i] = s
            if s > Cj:
                if alpha[j] > Cj:
                    alpha[j] = Cj
                    alpha[i] = s - Cj
            else:
                if alpha[i] < 0:
                    alpha[i] = 0.0
                    alpha[j] = s
        dai = alpha[i] - ai0
        daj = alpha[j] - aj0
        for t in range(active):
            G[t] += np.float64(Q[i, t]) * dai + np.float64(Q[j, t]) * daj
        ui = st[i] == _UPPER
        uj = st[j] == _UPPER
        st[i] = _status(alpha[i], Ci)
        st[j] = _status(alpha[j], Cj)
        if ui != (st[i] == _UPPER):
            for t in range(n):
                if ui:
                    Gbar[t] -= Ci * np.float64(Q[i, t])
                else:
                    Gbar[t] += Ci * np.float64(Q[i, t])
        if uj != (st[j] == _UPPER):
            for t in range(n):
                if uj:
                    Gbar[t] -= Cj * np.float64(Q[j, t])
                else:
                    Gbar[t] += Cj * np.float64(Q[j, t])
    # rho: the mean of y G over the free variables, else the middle of the feasible interval
    ub = np.inf
    lb = -np.inf
    nfree = 0
    sfree = 0.0
    for t in range(active):
        yg = yv[t] * G[t]
        if st[t] == _UPPER:
            if yv[t] == -1:
                ub = min(ub, yg)
            else:
                lb = max(lb, yg)
        elif st[t] == _LOWER:
            if yv[t] == 1:
                ub = min(ub, yg)
            else:
                lb = max(lb, yg)
        else:
            nfree += 1
            sfree += yg
    rho = sfree / nfree if nfree > 0 else (ub + lb) / 2
    coef = np.empty(n)
    for t in range(n):
        coef[pos[t]] = alpha[t] * yv[t]
    return coef, rho, n_iter
