"""Compiled (Numba) kernels of penalised logistic regression: standardisation and the
path solver.

:func:`stablefs.selectors.penalized_logistic.penalized_logistic` minimises, on standardised
features ``Z``, ``F(W, b) = sum_i s_i l(y_i, W^T z_i + b) + lam (alpha ||W||_1 +
(1 - alpha)/2 ||W||^2)``. Stability selection fits it hundreds of times on half-samples of
tens of samples, along a grid of penalties, where each step is a few microseconds of
arithmetic; here a whole path is one compiled call:

- :func:`standardize` -- a half-sample's rows of ``X``, centred and scaled, one row per
  feature;
- the loss and its gradient -- ``R = (P - Y) * s`` with ``P`` the fitted probabilities (the
  logistic function for two classes, the softmax ``exp(eta - max) / sum exp(eta - max)`` for
  more, as :func:`scipy.special.expit` and :func:`scipy.special.softmax` compute them), then
  ``Z^T R`` and ``sum_i R_i``;
- :func:`path` -- the penalties from the largest down, each warm-started from the previous
  solution, on a working set of features (the nonzero ones and those the sequential strong
  rule of Tibshirani et al. 2012 keeps, largest gradient first; every feature outside it that
  violates the optimality condition is added and the fit repeated, so the result is the
  minimiser over all features);
- :func:`newton` -- on a working set, proximal Newton steps (Lee, Sun and Saunders 2014; for
  the L1-penalised logistic loss Yuan, Ho and Lin 2012): the quadratic model of the loss at
  the current point, one sweep of coordinate descent on it to find the coordinates that
  enter, then the model's exact minimiser on that face (its nonzero coordinates with their
  signs), moving to zero and dropping any coordinate whose sign would change as in the
  feature-sign search of Lee, Battle, Raina and Ng (2007); a backtracking line search on
  ``F`` (sufficient decrease) makes every step a descent. It stops when the largest violation
  of the optimality (KKT) conditions is at most the given bound, the criterion of the
  first-order solver this replaced; the solution is the same minimiser to that tolerance.

One thread (BLAS too: the caller limits it). Imported lazily by
:mod:`stablefs.selectors.penalized_logistic`; compiled code is cached on disk (``cache=True``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from stablefs._runtime.compilation import watch_compilation

watch_compilation()  # first-use compilation is announced


@njit(cache=True, nogil=True)
def standardize(X, rows, w):  # pragma: no cover - compiled
    """``((X[rows] - mean) / sd)^T`` with the weighted mean and SD (weights ``w`` summing to
    1): one row per feature, as :func:`path` reads them; a constant feature (SD at most
    ``1e-12 max(1, |mean|)``) becomes zeros.

    Two passes over the rows (the mean, then the centred squares, summed row by row in
    order: the same numbers on any host), then a product by ``1 / sd``; the result is the
    only new array.
    """
    n = rows.size
    p = X.shape[1]
    mean = np.zeros(p)
    for a in range(n):
        row = X[rows[a]]
        weight = w[a]
        for j in range(p):
            mean[j] += weight * row[j]
    var = np.zeros(p)
    for a in range(n):
        row = X[rows[a]]
        weight = w[a]
        for j in range(p):
            v = row[j] - mean[j]
            var[j] += weight * v * v
    inverse = np.empty(p)
    for j in range(p):
        sd = np.sqrt(var[j])
        inverse[j] = 0.0 if sd <= 1e-12 * max(1.0, abs(mean[j])) else 1.0 / sd
    Zt = np.empty((p, n))
    for start in range(0, p, 64):  # tiles of 64 features: reads along rows, writes in cache
        stop = min(p, start + 64)
        for a in range(n):
            row = X[rows[a]]
            for j in range(start, stop):
                Zt[j, a] = (row[j] - mean[j]) * inverse[j]
    return Zt


@njit(cache=True, nogil=True)
def _worst_violation(G, gb, W, l1, l2):  # pragma: no cover - compiled
    # the KKT residual of (W, b) from the loss gradient (G, gb) there: |g_b|; for a nonzero
    # w, |g + l2 w + l1 sign(w)|; for a zero one, max(|g| - l1, 0)
    worst = 0.0
    m, K = W.shape
    for j in range(m):
        for k in range(K):
            w = W[j, k]
            g = G[j, k] + l2 * w
            r = abs(g + l1 * np.sign(w)) if w != 0.0 else max(abs(g) - l1, 0.0)
            worst = max(worst, r)
    for k in range(K):
        worst = max(worst, abs(gb[k]))
    return worst


@njit(cache=True, nogil=True)
def _fitted(eta, b, Y, s, binary, P, R):  # pragma: no cover - compiled
    # P = the probabilities at eta + b, R = (P - Y) s (both in place); returns the loss
    # sum_i s_i l(y_i, eta_i + b), with log(1 + e^x) and log-sum-exp computed without overflow
    n, K = eta.shape
    loss = 0.0
    for i in range(n):
        if binary:
            e = eta[i, 0] + b[0]
            q = np.exp(-abs(e))
            p = 1.0 / (1.0 + q) if e >= 0.0 else q / (1.0 + q)
            P[i, 0] = p
            R[i, 0] = (p - Y[i, 0]) * s[i]
            loss += s[i] * (max(e, 0.0) + np.log1p(q) - Y[i, 0] * e)
        else:
            top = -np.inf
            for k in range(K):
                top = max(top, eta[i, k] + b[k])
            total = 0.0
            for k in range(K):
                P[i, k] = np.exp(eta[i, k] + b[k] - top)
                total += P[i, k]
            own = 0.0
            for k in range(K):
                P[i, k] /= total
                R[i, k] = (P[i, k] - Y[i, k]) * s[i]
                own += Y[i, k] * (eta[i, k] + b[k])
            loss += s[i] * (top + np.log(total) - own)
    return loss


@njit(cache=True, nogil=True)
def _penalty(W, l1, l2):  # pragma: no cover - compiled
    absolute = 0.0
    square = 0.0
    for v in W.ravel():
        absolute += abs(v)
        square += v * v
    return l1 * absolute + 0.5 * l2 * square


#: the largest face (coordinates) solved exactly (:func:`path`'s default), and the largest
#: face x samples product (its weighted columns' bytes / 8; the Hessian's cost is this times
#: the face); beyond, the model is minimised by coordinate descent alone, which is cheaper
#: there (the exact solve pays off on the small faces of wide, few-sample data)
FACE_MAX = 256
FACE_CELLS_MAX = 2**15


@njit(cache=True, nogil=True)
def _face_limit(n, face_max):  # pragma: no cover - compiled
    # the largest face (coordinates) solved exactly with n samples
    return min(face_max, FACE_CELLS_MAX // n)


@njit(cache=True, nogil=True)
def _sweep(Zt, cols, floored, G, gb, SP, Pk, binary, l1, l2, X, xb, U, t, curv,
           curv_b):  # pragma: no cover
    # one sweep of coordinate descent on the quadratic model of the loss (X, xb, U, t updated;
    # from X = W, xb = 0, U = 0, t = 0): the model's gradient at the step is G + (Hessian .
    # step); the step's effect on eta is U (K, n), t_i = sum_k P_ik U_ki (0 for two classes);
    # the Hessian's row of (j, k) times the step is sum_i z_ij SP_ki (U_ki - t_i), SP = s P
    # (two classes: s P (1 - P)); the coordinate's curvature sum_i z_ij^2 floored_ki, floored
    # = s max(P (1 - P), 1e-5), is the same in every sweep of a model: computed in the first
    # (curv, curv_b negative) and kept. Returns the largest change of a coordinate times its
    # curvature.
    n = Zt.shape[1]
    K = X.shape[1]
    largest = 0.0
    ones = np.ones(n)  # an intercept's column
    for k in range(K):
        g = gb[k]
        if curv_b[k] < 0.0:
            curvature = 0.0
            for i in range(n):
                g += SP[k, i] * (U[k, i] - t[i])
                curvature += floored[k, i]
            curv_b[k] = curvature
        else:
            for i in range(n):
                g += SP[k, i] * (U[k, i] - t[i])
        d = -g / curv_b[k]
        xb[k] += d
        largest = max(largest, abs(g))
        _move(U[k], t, Pk[k], d, ones, binary)
    for c in range(cols.size):
        z = Zt[cols[c]]
        for k in range(K):
            g = G[c, k]
            if curv[c, k] < 0.0:
                curvature = 0.0
                for i in range(n):
                    g += z[i] * SP[k, i] * (U[k, i] - t[i])
                    curvature += z[i] * z[i] * floored[k, i]
                curv[c, k] = curvature
            elif binary:  # t is zero: U - t is U
                for i in range(n):
                    g += z[i] * SP[k, i] * U[k, i]
            else:
                for i in range(n):
                    g += z[i] * SP[k, i] * (U[k, i] - t[i])
            curvature = curv[c, k]
            if curvature + l2 <= 0.0:
                continue  # a constant feature (standardised to zeros) stays at zero
            u = curvature * X[c, k] - g
            new = np.sign(u) * max(abs(u) - l1, 0.0) / (curvature + l2)
            d = new - X[c, k]
            if d != 0.0:
                X[c, k] = new
                largest = max(largest, curvature * abs(d))
                _move(U[k], t, Pk[k], d, z, binary)
    return largest


@njit(cache=True, nogil=True)
def _move(u, t, pk, d, z, binary):  # pragma: no cover - compiled
    # a coordinate's step d along z: its effect on eta (u) and, for several classes, on t
    if binary:
        for i in range(u.size):
            u[i] += d * z[i]
    else:
        for i in range(u.size):
            u[i] += d * z[i]
            t[i] += pk[i] * d * z[i]


@njit(cache=True, nogil=True)
def _solve(H, rhs, ridge):  # pragma: no cover - compiled
    # solve (H + ridge I) d = rhs by Gaussian elimination with partial pivoting, in place of
    # H (LAPACK's gesv, written out: numba's np.linalg.solve takes seconds to compile)
    f = H.shape[0]
    d = rhs.copy()
    for a in range(f):
        H[a, a] += ridge
    for a in range(f):
        pivot = a
        for r in range(a + 1, f):
            if abs(H[r, a]) > abs(H[pivot, a]):
                pivot = r
        if pivot != a:
            for c in range(f):
                H[a, c], H[pivot, c] = H[pivot, c], H[a, c]
            d[a], d[pivot] = d[pivot], d[a]
        if H[a, a] == 0.0:
            H[a, a] = ridge if ridge > 0.0 else 1e-300
        for r in range(a + 1, f):
            factor = H[r, a] / H[a, a]
            if factor != 0.0:
                for c in range(a + 1, f):
                    H[r, c] -= factor * H[a, c]
                d[r] -= factor * d[a]
    for a in range(f - 1, -1, -1):
        for c in range(a + 1, f):
            d[a] -= H[a, c] * d[c]
        d[a] /= H[a, a]
    return d


@njit(cache=True, nogil=True)
def _face(X, nb, rows, cls):  # pragma: no cover - compiled
    # the face of X: the first nb intercepts (row -1), then the nonzero (row, class)
    # coordinates, written to rows and cls; returns their number
    f = 0
    for k in range(nb):
        rows[f] = -1
        cls[f] = k
        f += 1
    for c in range(X.shape[0]):
        for k in range(X.shape[1]):
            if X[c, k] != 0.0:
                rows[f] = c
                cls[f] = k
                f += 1
    return f


@njit(cache=True, nogil=True)
def _add_product(Zt, cols, W, eta):  # pragma: no cover - compiled
    # eta += Z[:, cols] W, over W's nonzero entries
    for c in range(cols.size):
        z = Zt[cols[c]]
        for k in range(W.shape[1]):
            w = W[c, k]
            if w != 0.0:
                for i in range(eta.shape[0]):
                    eta[i, k] += z[i] * w


@njit(cache=True, nogil=True)
def _face_minimiser(Zt, cols, G, gb, W, SP, Pk, binary, l1, l2, X, xb,
                    face_max):  # pragma: no cover
    # move (X, xb) to the quadratic model's minimiser on the face of X (its nonzero
    # coordinates, their signs kept; the intercepts but the last class's in the multinomial
    # case, as the loss does not change when all move together): solve on the face; when a
    # coordinate would change sign on the way, stop where it reaches zero, drop it, solve
    # again. Returns False, X unchanged, when the face is larger than face_max or
    # FACE_CELLS_MAX allows.
    m = cols.size
    n = Zt.shape[1]
    K = W.shape[1]
    nb = 1 if binary else K - 1
    f = nb + np.count_nonzero(X)
    if f > _face_limit(n, face_max):
        return False
    rows = np.empty(f, dtype=np.int64)
    cls = np.empty(f, dtype=np.int64)
    root = np.sqrt(SP)
    root_p = np.sqrt(Pk)
    if not binary:  # the same point of the model, with the last intercept's step zero
        xb -= xb[K - 1]
    for _ in range(f):  # each pass drops a coordinate or ends
        f = _face(X, nb, rows, cls)
        # the effect on eta of zeroing the coordinates off the face (U0, t0 as in the sweep)
        U0 = np.zeros((K, n))
        for c in range(m):
            for k in range(K):
                if W[c, k] != 0.0 and X[c, k] == 0.0:
                    z = Zt[cols[c]]
                    for i in range(n):
                        U0[k, i] -= W[c, k] * z[i]
        t0 = np.zeros(n)
        if not binary:
            for k in range(K):
                for i in range(n):
                    t0[i] += Pk[k, i] * U0[k, i]
        # the model's Hessian on the face, H_ac = sum_i z_ia z_ic SP_i (two classes), or
        # sum_i s_i z_ia z_ic P_i,ka ([ka = kc] - P_i,kc): B B^T (masked to the same class)
        # with B_a = z_a sqrt(SP_ka), less C C^T with C_a = z_a sqrt(s) P_ka
        B = np.empty((f, n))
        rhs = np.empty(f)
        for a in range(f):
            k = cls[a]
            if rows[a] < 0:
                r = gb[k]
            else:
                r = G[rows[a], k] + l1 * np.sign(X[rows[a], k]) + l2 * W[rows[a], k]
            for i in range(n):
                z = 1.0 if rows[a] < 0 else Zt[cols[rows[a]], i]
                B[a, i] = z * root[k, i]
                r += z * SP[k, i] * (U0[k, i] - t0[i])
            rhs[a] = -r
        H = np.dot(B, B.T)
        if not binary:
            for a in range(f):
                for c in range(f):
                    if cls[a] != cls[c]:
                        H[a, c] = 0.0
            for a in range(f):
                for i in range(n):
                    B[a, i] *= root_p[cls[a], i]  # z sqrt(s P) sqrt(P) = z sqrt(s) P
            H -= np.dot(B, B.T)
        top = 0.0
        for a in range(f):
            if rows[a] >= 0:
                H[a, a] += l2
            top = max(top, H[a, a])
        if top <= 0.0:
            return True  # no curvature left (every probability 0 or 1): keep the sweep's point
        d = _solve(H, rhs, 1e-12 * top)
        # the first face coordinate to reach zero on the way from X to W + d
        frac = 1.0
        drop = -1
        for a in range(f):
            if rows[a] >= 0:
                x0 = X[rows[a], cls[a]]
                x1 = W[rows[a], cls[a]] + d[a]
                if x1 * x0 <= 0.0 and x0 / (x0 - x1) < frac:
                    frac = x0 / (x0 - x1)
                    drop = a
        for a in range(f):
            if rows[a] < 0:
                xb[cls[a]] += frac * (d[a] - xb[cls[a]])
            else:
                x0 = X[rows[a], cls[a]]
                X[rows[a], cls[a]] = x0 + frac * (W[rows[a], cls[a]] + d[a] - x0)
        if drop < 0:
            break
        X[rows[drop], cls[drop]] = 0.0
    return True


@njit(cache=True, nogil=True)
def _working_gradient(Zt, cols, R, G):  # pragma: no cover - compiled
    # G[c] = Z[:, cols[c]]^T R
    n, K = R.shape
    for c in range(cols.size):
        z = Zt[cols[c]]
        for k in range(K):
            v = 0.0
            for i in range(n):
                v += z[i] * R[i, k]
            G[c, k] = v


@njit(cache=True, nogil=True)
def _column_sums(R, out):  # pragma: no cover - compiled
    for k in range(R.shape[1]):
        out[k] = 0.0
    for i in range(R.shape[0]):
        for k in range(R.shape[1]):
            out[k] += R[i, k]


@njit(cache=True, nogil=True)
def newton(Zt, cols, Y, s, binary, l1, l2, stop, W, b, eta, max_iter,
           face_max=FACE_MAX):  # pragma: no cover
    """Proximal Newton steps on a working set until the KKT residual is at most ``stop``.

    Parameters
    ----------
    Zt : ndarray (p, n)
        The standardised features, one row per feature.
    cols : ndarray of int (m,)
        The working set (rows of ``Zt``).
    Y, s, binary
        Class indicators (n, K; two classes: one column, of the second class) and weights
        summing to 1 (n,); whether there are two classes.
    l1, l2 : float
        ``lam alpha`` and ``lam (1 - alpha)``.
    stop : float
        The bound on the KKT residual.
    W : ndarray (m, K), b : ndarray (K,), eta : ndarray (n, K)
        The start, and ``eta = Z[:, cols] W``; updated in place.
    max_iter : int
        At most this many steps.
    face_max : int
        The largest face solved exactly; 0: coordinate descent alone.

    Returns
    -------
    n_iter : int
    R : ndarray (n, K)
        ``(P - Y) s`` at the result (the loss gradient is ``Z^T R``).
    """
    m = cols.size
    n = Zt.shape[1]
    K = W.shape[1]
    P = np.empty((n, K))
    R = np.empty((n, K))
    P_try = np.empty((n, K))
    R_try = np.empty((n, K))
    eta_try = np.empty((n, K))
    W_try = np.empty((m, K))
    b_try = np.empty(K)
    G = np.empty((m, K))
    gb = np.empty(K)
    loss = _fitted(eta, b, Y, s, binary, P, R)
    _working_gradient(Zt, cols, R, G)
    _column_sums(R, gb)
    n_iter = 0
    unresolved = 0
    while n_iter < max_iter:
        worst = _worst_violation(G, gb, W, l1, l2)
        if worst <= stop:
            break
        n_iter += 1
        X = W.copy()
        xb = np.zeros(K)
        U = np.zeros((K, n))
        t = np.zeros(n)
        Pk = np.empty((K, n))
        SP = np.empty((K, n))
        floored = np.empty((K, n))
        for k in range(K):
            for i in range(n):
                Pk[k, i] = P[i, k]
                v = Pk[k, i] * (1.0 - Pk[k, i])
                SP[k, i] = s[i] * (v if binary else Pk[k, i])
                floored[k, i] = s[i] * max(v, 1e-5)
        curv = np.full((m, K), -1.0)
        curv_b = np.full(K, -1.0)
        largest = _sweep(Zt, cols, floored, G, gb, SP, Pk, binary, l1, l2, X, xb, U, t, curv,
                         curv_b)
        if not _face_minimiser(Zt, cols, G, gb, W, SP, Pk, binary, l1, l2, X, xb, face_max):
            # a large face: more sweeps, until the changes are small against the residual
            for _ in range(100):
                if largest <= 0.1 * max(worst, stop):
                    break
                largest = _sweep(Zt, cols, floored, G, gb, SP, Pk, binary, l1, l2, X, xb,
                                 U, t, curv, curv_b)
        # the step D = X - W, its effect on eta (Z D; the intercepts' step xb is b's), and
        # the model's first-order decrease
        moved = np.zeros((n, K))
        decrease = _penalty(X, l1, l2) - _penalty(W, l1, l2)
        for k in range(K):
            decrease += gb[k] * xb[k]
        D = X - W
        for c in range(m):
            for k in range(K):
                decrease += G[c, k] * D[c, k]
        _add_product(Zt, cols, D, moved)
        objective = loss + _penalty(W, l1, l2)
        step = 1.0
        accepted = False
        resolved = unresolved
        for _ in range(50):  # backtracking: sufficient decrease (Armijo, 1/4)
            for i in range(n):
                for k in range(K):
                    eta_try[i, k] = eta[i, k] + step * moved[i, k]
            for k in range(K):
                b_try[k] = b[k] + step * xb[k]
            for c in range(m):
                for k in range(K):
                    W_try[c, k] = W[c, k] + step * (X[c, k] - W[c, k])
            loss_try = _fitted(eta_try, b_try, Y, s, binary, P_try, R_try)
            if loss_try + _penalty(W_try, l1, l2) <= objective + 0.25 * step * decrease:
                accepted = True
                break
            if decrease > -1e-13 * max(1.0, abs(objective)):
                # a change below what F resolves: near the optimum, where the model is
                # exact, the full step (the KKT residual decides; five in a row end it)
                accepted = True
                unresolved += 1
                break
            step *= 0.5
        if not accepted or unresolved > 5:
            break  # no descent left at this precision
        if unresolved == resolved:
            unresolved = 0
        W[:] = W_try
        b[:] = b_try
        eta[:] = eta_try
        P[:] = P_try
        R[:] = R_try
        loss = loss_try
        _working_gradient(Zt, cols, R, G)
        _column_sums(R, gb)
    return n_iter, R


@njit(cache=True, nogil=True)
def _largest_per_row(G, out):  # pragma: no cover - compiled
    for j in range(G.shape[0]):
        v = 0.0
        for k in range(G.shape[1]):
            v = max(v, abs(G[j, k]))
        out[j] = v


@njit(cache=True, nogil=True)
def _nonzero_rows(W, out):  # pragma: no cover - compiled
    # out[j]: row j of W is nonzero; returns their number
    count = 0
    for j in range(W.shape[0]):
        out[j] = False
        for k in range(W.shape[1]):
            if W[j, k] != 0.0:
                out[j] = True
        count += out[j]
    return count


@njit(cache=True, nogil=True)
def _kth_largest(values, k):  # pragma: no cover - compiled
    # the k-th largest of values (k >= 1), by quickselect on a copy (middle pivots)
    v = values.copy()
    lo, hi, target = 0, v.size - 1, k - 1
    while lo < hi:
        pivot = v[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while v[i] > pivot:
                i += 1
            while v[j] < pivot:
                j -= 1
            if i <= j:
                v[i], v[j] = v[j], v[i]
                i += 1
                j -= 1
        if target <= j:
            hi = j
        elif target >= i:
            lo = i
        else:
            break
    return v[target]


@njit(cache=True, nogil=True)
def _strongest(score, chosen, floor, count):  # pragma: no cover - compiled
    # mark the count unchosen features of largest score above floor (all when fewer; ties
    # to the lower index)
    candidates = np.flatnonzero((score > floor) & ~chosen)
    if candidates.size > count:
        kth = _kth_largest(score[candidates], count)
        taken = 0
        for j in candidates:  # strictly larger first, then the ties in index order
            if score[j] > kth:
                chosen[j] = True
                taken += 1
        for j in candidates:
            if taken == count:
                break
            if score[j] == kth:
                chosen[j] = True
                taken += 1
    else:
        chosen[candidates] = True


@njit(cache=True, nogil=True)
def path(Zt, Y, s, binary, l1s, l2s, stops, W, b, max_iter, grow,
         face_max=FACE_MAX):  # pragma: no cover
    """Fit at each penalty of a decreasing grid, warm-started, on working sets.

    Parameters
    ----------
    Zt : ndarray (p, n), C order
        Standardised features, one row per feature.
    Y, s, binary
        Class indicators (n, K; two classes: one column, of the second class) and weights
        summing to 1 (n,); whether there are two classes.
    l1s, l2s, stops : ndarray (n_penalties,)
        ``lam alpha``, ``lam (1 - alpha)`` and the KKT bound at each penalty, ``lam``
        decreasing.
    W : ndarray (p, K), b : ndarray (K,)
        The start (zeros and the intercept-only model's ``b``, or a neighbouring solution);
        updated in place.
    max_iter : int
        Newton steps per working set at most.
    grow : int
        Features added to the working set at a time (at least; as many as it holds when
        that is more). Once the working set's solution has more nonzero coordinates than the
        exact face solve takes (``face_max``, ``FACE_CELLS_MAX``), every feature that
        violates the KKT conditions is added at once.
    face_max : int
        As in :func:`newton`.

    Returns
    -------
    selected : ndarray of bool (n_penalties, p)
        The nonzero features at each penalty.
    W, b
        The solution at the last penalty.
    G : ndarray (p, K)
        The loss gradient there.
    n_iter : int
        Newton steps in all.
    """
    p, n = Zt.shape
    K = Y.shape[1]
    selected = np.zeros((l1s.size, p), dtype=np.bool_)
    eta = np.zeros((n, K))
    _add_product(Zt, np.arange(p), W, eta)
    P = np.empty((n, K))
    R = np.empty((n, K))
    _fitted(eta, b, Y, s, binary, P, R)
    G = np.dot(Zt, R)
    score = np.empty(p)  # max_k |G_jk|: a zero feature violates the KKT conditions above l1
    _largest_per_row(G, score)
    previous = l1s[0]
    for j in range(p):
        previous = max(previous, score[j])
    chosen = np.zeros(p, dtype=np.bool_)
    nb = 1 if binary else K - 1
    exact = _face_limit(n, face_max)
    total = 0
    for q in range(l1s.size):
        l1 = l1s[q]
        # the working set: the nonzero features, then the sequential strong rule's survivors
        # |g_j| >= 2 l1 - l1_previous (Tibshirani et al. 2012), largest first
        held = _nonzero_rows(W, chosen)
        _strongest(score, chosen, 2.0 * l1 - previous, max(grow, held))
        while True:
            cols = np.flatnonzero(chosen)
            Wc = np.empty((cols.size, K))
            for c in range(cols.size):
                Wc[c] = W[cols[c]]
            eta[:] = 0.0
            _add_product(Zt, cols, Wc, eta)
            it, R = newton(Zt, cols, Y, s, binary, l1, l2s[q], stops[q], Wc, b, eta, max_iter,
                           face_max)
            total += it
            for c in range(cols.size):
                W[cols[c]] = Wc[c]
            G = np.dot(Zt, R)
            _largest_per_row(G, score)
            bound = l1 * (1 + 1e-6) + 1e-12
            violated = False
            for j in range(p):
                if not chosen[j] and score[j] > bound:
                    violated = True
                    break
            if not violated:
                break
            # past the exact face solve, coordinate descent does the work whatever the
            # working set's size: take every violator at once (as glmnet does); before it,
            # double the working set, so that a face stays small enough to solve exactly
            if nb + np.count_nonzero(Wc) > exact:
                _strongest(score, chosen, bound, p)
            else:
                _strongest(score, chosen, bound, max(grow, cols.size))
        _nonzero_rows(W, selected[q])
        previous = l1
    return selected, W, b, G, total
