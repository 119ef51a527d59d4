"""Compiled (Numba) kernels of the two-class (semi-)bolstered LDA criterion.

The criterion of Xiao, Hua and Dougherty (2007): the bolstered resubstitution error of LDA in
closed form (Braga-Neto and Dougherty 2004, linear rules: ``sum_i Phi(-s_i / sigma_i)``),
one step of a sequential search at a time. Each kernel replaces a NumPy computation that
stays in :class:`~stablefs.selectors.wrappers._lda_criterion.LDAPart` as its test oracle
(``COMPILED = False`` in ``_lda_criterion`` switches back to it):

- :func:`lda_bolstered_add` -- a forward step, every candidate ``j``: the rank-one (bordered)
  update of the pooled covariance of ``S + {j}``, every point's discriminant, the direction
  norm and the sum of ``Phi`` over the points (oracle:
  :meth:`~stablefs.selectors.wrappers._lda_criterion.LDAPart._add_bolstered_numpy`, about
  thirty NumPy calls per step and ``scipy.special.ndtr`` on the ``n x m`` margins). The
  values equal the NumPy ones to round-off (products summed in another order than BLAS's;
  the sums over the points run point after point in class order, as NumPy's sum along the
  points does for two or more candidates);
- :func:`lda_bolstered_best` -- the same step for the searches (SFS, SFFS), exactly pruned:
  ``Phi`` is increasing, so tables of ``Phi`` on a grid (:func:`ndtr_bound_tables`) bound
  every term from below and above without calling it, and only the candidates whose lower
  bound does not exceed the smallest upper bound (with a margin) are summed exactly, bit
  for bit as :func:`lda_bolstered_add` sums them; on the data of Xiao, Hua and Dougherty
  (2007), about one candidate in a hundred;
- :func:`lda_bolstered_remove` -- a backward step (SFFS's conditional exclusion) from
  ``S_SS^{-1}`` by the inverse of a principal sub-matrix (oracle:
  :meth:`~stablefs.selectors.wrappers._lda_criterion.LDAPart._remove_numpy`);
- :func:`nn_widths_add` and :func:`first_widths` -- the bolstering kernel widths of every
  candidate subspace (each class's mean distance to the nearest other point of the class),
  bit for bit those of :class:`~stablefs.selectors.wrappers._bolstering_widths.WidthMixin`
  (the same sums, minima and NumPy's pairwise summation);
- :func:`lda_base` -- ``S_SS^{-1}`` by the eigendecomposition and its singularity test, as
  :meth:`~stablefs.selectors.wrappers._lda_criterion.LDAPart._base` computes it.

``Phi`` is SciPy's own C ``ndtr`` (the double version exported by
``scipy.special.cython_special``), called from compiled code through a symbol registered
with LLVM, so every term is bit for bit ``scipy.special.ndtr`` of the same argument and the
kernels can be cached on disk (an address baked into the code could not).

One thread, float64, no fast-math; the module imports Numba and is imported on first use
only (importing stablefs does not import Numba). Compiled code is cached (``cache=True``).
"""

from __future__ import annotations

import llvmlite.binding as _llvm
import numpy as np
from numba import njit, types
from numba.extending import get_cython_function_address

from stablefs._runtime.compilation import watch_compilation

watch_compilation()  # first-use compilation is announced

#: the name under which SciPy's double ``ndtr`` is known to the compiled code
_NDTR_SYMBOL = "stablefs_scipy_special_ndtr"


def _register_ndtr():
    """Register SciPy's C ``ndtr(double x, int skip_dispatch)`` (``cpdef``: the second
    argument is Cython's dispatch flag, unused for a module function) under
    :data:`_NDTR_SYMBOL`; every process does this before the kernels load."""
    import scipy.special.cython_special as cs

    names = [k for k in cs.__pyx_capi__ if k.endswith("ndtr") and "log" not in k
             and "chndtr" not in k]
    sig = "double (double, int __pyx_skip_dispatch)"
    name = next((k for k in names if sig in repr(cs.__pyx_capi__[k])), None)
    if name is None:  # pragma: no cover - another SciPy layout
        raise ImportError(f"scipy.special.cython_special exports no double ndtr ({names})")
    _llvm.add_symbol(_NDTR_SYMBOL,
                     get_cython_function_address("scipy.special.cython_special", name))


_register_ndtr()
_ndtr = types.ExternalFunction(_NDTR_SYMBOL, types.float64(types.float64, types.intc))


@njit(cache=True, nogil=True, error_model="numpy")
def ndtr_array(z):  # pragma: no cover - compiled
    """``scipy.special.ndtr`` of every element of a 1-d array (for the tests)."""
    out = np.empty(z.size)
    for i in range(z.size):
        out[i] = _ndtr(z[i], 0)
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def lda_base(Dt, cols, dof, rtol):  # pragma: no cover - compiled
    """``(A, ok)``: ``A = S_SS^{-1}`` of the pooled covariance ``S_SS = D_S^T D_S / dof``
    (``Dt``: centred training points, ``(n, p)``) as ``(V / w) V^T`` from ``eigh``; ``ok``
    is False when ``S_SS`` is singular to ``rtol`` (smallest eigenvalue not above ``rtol``
    times the largest, or the largest not positive)."""
    n = Dt.shape[0]
    k = cols.size
    Dk = np.empty((n, k))
    for i in range(n):
        for t in range(k):
            Dk[i, t] = Dt[i, cols[t]]
    S = (Dk.T @ Dk) / dof
    w, V = np.linalg.eigh(S)
    if not (w[0] > rtol * w[k - 1]) or not (w[k - 1] > 0):
        return np.zeros((k, k)), False
    return (V / w) @ V.T, True


@njit(cache=True, nogil=True, error_model="numpy")
def _srow(Srows, slot, DtT, Dt, f):  # pragma: no cover - compiled
    """Row ``f`` of the pooled covariance ``S = D^T D / dof`` (``DtT``: ``D^T / dof``):
    ``Srows[slot[f]]``, computed on first use into the next free row (``slot[-1]`` rows are
    in use; the caller leaves room for the subset's rows)."""
    if slot[f] >= 0:
        return Srows[slot[f]]
    q = slot[slot.size - 1]
    slot[f] = q
    slot[slot.size - 1] = q + 1
    row = Srows[q]
    row[:] = 0.0
    a = DtT[f]
    n, p = Dt.shape
    for i in range(n):
        ai = a[i]
        d = Dt[i]
        for j in range(p):
            row[j] += ai * d[j]
    return row


@njit(cache=True, nogil=True, error_model="numpy")
def _margins(A, cols, J, Srows, slot, DtT, Dt, Xp, n0, means, sjj, thr, cst, dh, present,
             alpha):  # pragma: no cover - compiled
    """The scaled margins of a forward step: ``(Z, W, ok, all_good)`` with ``Z[i, c] =
    -(2 y_i - 1) diff_ic alpha / (||a_c|| d_{y_i}(c))`` (the argument of ``Phi``) and ``W[i,
    c]`` point ``i`` misclassified on ``cols + {J[c]}`` (points in class order); see
    :func:`lda_bolstered_add` for the parameters. ``Z`` and ``W`` are not filled when not
    ``all_good``."""
    k = cols.size
    m = J.size
    n = Xp.shape[0]
    # U = A M_S^T, ud = U_1 - U_0, us = U_1 + U_0, and the constant of the discriminant
    ud = np.empty(k)
    us = np.empty(k)
    q1 = 0.0
    q0 = 0.0
    for t in range(k):
        u0 = 0.0
        u1 = 0.0
        for s in range(k):
            u0 += A[t, s] * means[0, cols[s]]
            u1 += A[t, s] * means[1, cols[s]]
        ud[t] = u1 - u0
        us[t] = u1 + u0
        q1 += means[1, cols[t]] * u1
        q0 += means[0, cols[t]] * u0
    base = cst - 0.5 * (q1 - q0)
    # Sxc = S_{S,J} (k, m), V = A Sxc
    Sxc = np.empty((k, m))
    for t in range(k):
        row = _srow(Srows, slot, DtT, Dt, cols[t])
        for c in range(m):
            Sxc[t, c] = row[J[c]]
    V = np.zeros((k, m))
    for t in range(k):
        vt = V[t]
        for s in range(k):
            a = A[t, s]
            ss = Sxc[s]
            for c in range(m):
                vt[c] += a * ss[c]
    # Schur complements, Td = T_1 - T_0, B = [ud - V Td; const_j], the direction norms
    csum = np.zeros(m)
    P0 = np.zeros(m)
    P1 = np.zeros(m)
    for t in range(k):
        st = Sxc[t]
        vt = V[t]
        a0 = ud[t]
        a1 = us[t]
        for c in range(m):
            csum[c] += st[c] * vt[c]
            P0[c] += a0 * st[c]
            P1[c] += a1 * st[c]
    ok = np.empty(m, dtype=np.bool_)
    Td = np.empty(m)
    B = np.empty((k + 1, m))
    norm = np.empty(m)
    all_good = True
    for c in range(m):
        j = J[c]
        cc = sjj[j] - csum[c]
        ok[c] = cc > thr[j]
        if not ok[c]:
            cc = 1.0
        hd = (means[1, j] - means[0, j]) - P0[c]
        td = hd / cc
        Td[c] = td
        nrm = 0.0
        for t in range(k):
            b = ud[t] - V[t, c] * td
            B[t, c] = b
            nrm += b * b
        nrm += td * td
        B[k, c] = ((means[1, j] + means[0, j]) - P1[c]) * td * -0.5 + base
        norm[c] = np.sqrt(nrm)
        w = np.inf
        for g in range(2):
            if present[g] and dh[g, c] < w:
                w = dh[g, c]
        if not (min(norm[c], w) > 0):
            all_good = False
    Z = np.empty((n, m))
    W = np.empty((n, m), dtype=np.bool_)
    if not all_good:
        return Z, W, ok, all_good
    sc0 = np.empty(m)
    sc1 = np.empty(m)
    for c in range(m):
        sc0[c] = alpha / (norm[c] * dh[0, c])
        sc1[c] = -(alpha / (norm[c] * dh[1, c]))
    # diff_ic = x_ij Td_c + ([x_S, 1] @ B)_ic, one point (row) at a time, the candidates
    # innermost (independent lanes)
    z = np.empty(m)
    xj = np.empty(m)
    for i in range(n):
        xi = Xp[i]
        for c in range(m):
            z[c] = B[k, c]
            xj[c] = xi[J[c]]
        for t in range(k):
            a = xi[cols[t]]
            bt = B[t]
            for c in range(m):
                z[c] += a * bt[c]
        zi = Z[i]
        wi = W[i]
        if i < n0:
            for c in range(m):
                d = xj[c] * Td[c] + z[c]
                wi[c] = d > 0.0
                zi[c] = d * sc0[c]
        else:
            for c in range(m):
                d = xj[c] * Td[c] + z[c]
                wi[c] = d <= 0.0
                zi[c] = d * sc1[c]
    return Z, W, ok, all_good


@njit(cache=True, nogil=True, error_model="numpy")
def lda_bolstered_add(A, cols, J, Srows, slot, DtT, Dt, Xp, n0, means, sjj, thr, cst,
                      dh, present, alpha, semi):  # pragma: no cover - compiled
    """Per candidate ``J[c]``: the (semi-)bolstered sum of two-class LDA on ``cols + {J[c]}``.

    Parameters
    ----------
    A : (k, k) ``S_SS^{-1}``; ``cols`` (k,) the subset ``S``; ``J`` (m,) the candidates.
    Srows, slot : (r, p), (p + 1,) rows of the pooled covariance computed so far, row
        ``slot[f]`` for feature ``f`` (-1: not yet), ``slot[p]`` rows in use (filled here;
        room for ``k`` more rows).
    DtT : (p, n) centred training points transposed, divided by the degrees of freedom;
        ``Dt`` (n, p) the centred points.
    Xp : (n, p) training points in class order (``n0`` of class 0 first).
    means : (2, p) class means; ``sjj`` (p,) pooled variances; ``thr`` (p,) the Schur
        complement below which a candidate is singular; ``cst`` ``log(p_1 / p_0)``.
    dh : (2, m) each class's mean nearest-neighbour distance in ``S + {j}``; ``present``
        (2,) classes with at least two points; ``alpha`` the chi median of ``k + 1``.
    semi : misclassified points count 1 (semi-bolstering).

    Returns
    -------
    vals : (m,) the sums ``sum_i Phi(-s_i / sigma_i)`` over the points in class order
        (terms of misclassified points 1 when ``semi``); valid where ``ok`` and when
        ``all_good``.
    ok : (m,) the Schur complement of ``j`` is above ``thr[j]`` (otherwise the caller refits).
    all_good : every direction norm and every present class's width is positive (otherwise
        the caller's general path decides and ``vals`` is not computed).
    """
    Z, W, ok, all_good = _margins(A, cols, J, Srows, slot, DtT, Dt, Xp, n0, means, sjj, thr,
                                  cst, dh, present, alpha)
    n, m = Z.shape
    vals = np.zeros(m)
    if not all_good:
        return vals, ok, all_good
    for i in range(n):
        zi = Z[i]
        wi = W[i]
        for c in range(m):
            if semi and wi[c]:
                vals[c] += 1.0
            else:
                vals[c] += _ndtr(zi[c], 0)
    return vals, ok, all_good


@njit(cache=True, nogil=True, error_model="numpy")
def lda_bolstered_best(A, cols, J, Srows, slot, DtT, Dt, Xp, n0, means, sjj, thr, cst,
                       dh, present, alpha, semi, pad, tlo, tup, zmin, inv_h
                       ):  # pragma: no cover - compiled
    """:func:`lda_bolstered_add` where a candidate can be the step's minimum, ``inf`` where
    it cannot (exact pruning; the same parameters, ``pad`` the margin of the bound and
    ``tlo``, ``tup``, ``zmin``, ``inv_h`` the bounding tables of :func:`ndtr_bound_tables`).

    ``Phi`` is increasing, so a term ``Phi(z)`` lies between the table's values at grid
    points below and above ``z`` (a misclassified point in semi-bolstering: exactly 1); the
    sums of these bounds bound each candidate's sum from below (``L_c``) and above
    (``U_c``) without calling ``Phi``. A candidate with ``L_c`` above ``min_c U_c + pad``
    cannot be within ``pad`` of the step's minimum and gets ``inf``; every other candidate
    (on the data of Xiao, Hua and Dougherty 2007 about one in a hundred) gets its exact sum,
    computed as :func:`lda_bolstered_add` computes it (the same terms summed in class
    order: bit for bit the same value). Candidates with a singular Schur complement (not
    ``ok``) are left to the caller (``inf``) and do not enter the bound; a NaN argument
    keeps its candidate.
    """
    Z, W, ok, all_good = _margins(A, cols, J, Srows, slot, DtT, Dt, Xp, n0, means, sjj, thr,
                                  cst, dh, present, alpha)
    n, m = Z.shape
    out = np.full(m, np.inf)
    if not all_good:
        return out, ok, all_good
    top = tlo.size - 1
    lb = np.zeros(m)
    ub = np.zeros(m)
    keep = np.zeros(m, dtype=np.bool_)
    for i in range(n):
        zi = Z[i]
        wi = W[i]
        for c in range(m):
            z = zi[c]
            if semi and wi[c]:
                lb[c] += 1.0
                ub[c] += 1.0
            elif z != z:
                keep[c] = True
            else:
                t = (z - zmin) * inv_h
                q = 0 if t < 0.0 else (top if t >= top else int(t))
                lb[c] += tlo[q]
                ub[c] += tup[q]
    best = np.inf
    for c in range(m):
        if ok[c] and ub[c] < best:
            best = ub[c]
    for c in range(m):
        if not ok[c] or not (keep[c] or lb[c] <= best + pad):
            continue
        v = 0.0
        for i in range(n):
            if semi and W[i, c]:
                v += 1.0
            else:
                v += _ndtr(Z[i, c], 0)
        out[c] = v
    return out, ok, all_good


#: the grid of :func:`ndtr_bound_tables`: ``Phi`` at ``-10, -10 + h, ..., 10``, ``h = 1/256``
NDTR_GRID = (-10.0, 10.0, 256.0)

#: relative slack of the tables' bounds, far above the accuracy of SciPy's ``ndtr`` (about
#: 1e-14 relative, so that rounding can never make a bound cross the value it bounds)
NDTR_SLACK = 1e-10


def ndtr_bound_tables(zmin: float = NDTR_GRID[0], zmax: float = NDTR_GRID[1],
                      inv_h: float = NDTR_GRID[2]) -> tuple[np.ndarray, np.ndarray]:
    """``(tlo, tup)``: for ``q = floor((z - zmin) inv_h)`` clamped to ``[0, N - 1]`` (``N``
    grid points ``g_q = zmin + q / inv_h``), ``tlo[q] <= ndtr(z) <= tup[q]`` for every
    ``z``: ``tlo[q] = ndtr(g_{q-1})(1 - s)`` (0 for ``q = 0``) and ``tup[q] = ndtr(g_{q+2})
    (1 + s)`` (``1 + s`` past the grid), ``s`` = :data:`NDTR_SLACK`, one grid step of margin
    on each side for the rounding of ``q``. Values of ``scipy.special.ndtr`` itself."""
    from scipy.special import ndtr as sp_ndtr

    N = int(round((zmax - zmin) * inv_h)) + 1
    g = zmin + np.arange(N) / inv_h
    v = sp_ndtr(g)
    tlo = np.zeros(N)
    tlo[1:] = v[:-1] * (1.0 - NDTR_SLACK)
    tup = np.full(N, 1.0 + NDTR_SLACK)
    tup[:-2] = v[2:] * (1.0 + NDTR_SLACK)
    return tlo, tup


@njit(cache=True, nogil=True, error_model="numpy")
def nn_widths_add(D, Xc, XT, J, starts, sizes, r):  # pragma: no cover - compiled
    """``dh[g, c]``: the mean over the points of class ``g`` of the distance to the nearest
    other point of the class in ``S + {J[c]}`` (Braga-Neto and Dougherty 2004, the
    bolstering kernel widths before division by the chi median), from the squared distances
    over ``S`` in class order (``D``, ``(n, n)``; class ``g`` holds rows ``starts[g]`` to
    ``starts[g] + sizes[g]``) and the points' coordinates in class order, ``Xc`` ``(n, p)``
    and its transpose ``XT``.

    Adding a feature only lengthens distances, so the nearest other point in ``S + {j}`` is
    among the ``r`` nearest in ``S`` whenever the value found among them does not exceed the
    ``(r + 1)``-th distance in ``S``; the (point, candidate) pairs failing this check are
    computed against the whole class. Each squared distance is ``(x_lj - x_ij)^2 + D_il``
    as in :func:`~stablefs.selectors.wrappers._wrapper_kernels.kth_smallest_add`, so the
    minima are bit for bit the unpruned ones, and the square roots are summed over each
    class in class order as ``np.add.reduceat`` along the points sums them (the first point,
    plus NumPy's pairwise sum of the others: :func:`_pairwise_rows`), so the widths are bit
    for bit those of
    :meth:`~stablefs.selectors.wrappers._bolstering_widths.WidthMixin._dh_from_nn`.
    A class of fewer than two points gets 0.
    """
    n = D.shape[0]
    m = J.size
    g = starts.size
    X = np.empty((n, m))
    for t in range(n):
        row = Xc[t]
        xt = X[t]
        for c in range(m):
            xt[c] = row[J[c]]
    dh = np.zeros((g, m))
    Q = np.empty((n, m))
    near = np.empty(r + 1, dtype=np.int64)
    nd = np.empty(r + 1)
    for gi in range(g):
        lo = starts[gi]
        hi = lo + sizes[gi]
        if sizes[gi] < 2:
            continue
        for i in range(lo, hi):
            # the r + 1 smallest D[i, l] of the class (l != i), sorted (insertion)
            cnt = 0
            Di = D[i]
            for l in range(lo, hi):
                if l == i:
                    continue
                d = Di[l]
                if cnt <= r:
                    s = cnt
                    cnt += 1
                elif d < nd[r]:
                    s = r
                else:
                    continue
                while s > 0 and nd[s - 1] > d:
                    nd[s] = nd[s - 1]
                    near[s] = near[s - 1]
                    s -= 1
                nd[s] = d
                near[s] = l
            rr = cnt if cnt <= r else r
            bound = nd[r] if cnt > r else np.inf
            xi = X[i]
            q = Q[i]
            q[:] = np.inf
            for s in range(rr):
                xl = X[near[s]]
                d = nd[s]
                for c in range(m):
                    v = xl[c] - xi[c]
                    t = v * v + d
                    a1 = q[c]
                    q[c] = a1 if a1 < t else t
            nf = 0
            for c in range(m):
                if q[c] > bound:
                    nf += 1
            if 4 * nf > m:  # the bound fails often: every candidate against the class
                for l in range(lo, hi):
                    if l == i:
                        continue
                    xl = X[l]
                    d = Di[l]
                    for c in range(m):
                        v = xl[c] - xi[c]
                        t = v * v + d
                        a1 = q[c]
                        q[c] = a1 if a1 < t else t
            elif nf:  # the failing candidates against the class
                for c in range(m):
                    if q[c] > bound:
                        best = q[c]
                        row = XT[J[c]]
                        xc = xi[c]
                        for l in range(lo, hi):
                            if l == i:
                                continue
                            v = row[l] - xc
                            t = v * v + Di[l]
                            best = best if best < t else t
                        q[c] = best
            for c in range(m):
                q[c] = np.sqrt(q[c])
        acc = dh[gi]
        acc[:] = Q[lo]
        _pairwise_rows(Q, lo + 1, sizes[gi] - 1, acc)
        for c in range(m):
            acc[c] /= sizes[gi]
    return dh


@njit(cache=True, nogil=True, error_model="numpy")
def _pairwise_rows(Q, lo, n, acc):  # pragma: no cover - compiled
    """``acc += `` NumPy's pairwise sum of the rows ``Q[lo:lo + n]``, column by column (the
    order of :func:`_pairwise_sum`, computed for all columns at once when ``n <= 128``)."""
    m = Q.shape[1]
    if n > 128:
        col = np.empty(n)
        for c in range(m):
            for t in range(n):
                col[t] = Q[lo + t, c]
            acc[c] += _pairwise_sum(col, 0, n)
        return
    res = np.zeros(m)
    if n < 8:
        for t in range(n):
            qt = Q[lo + t]
            for c in range(m):
                res[c] += qt[c]
    else:
        R = Q[lo:lo + 8].copy()
        i = 8
        while i < n - (n % 8):
            for j in range(8):
                rj = R[j]
                qj = Q[lo + i + j]
                for c in range(m):
                    rj[c] += qj[c]
            i += 8
        for c in range(m):
            res[c] = ((R[0, c] + R[1, c]) + (R[2, c] + R[3, c])) + (
                (R[4, c] + R[5, c]) + (R[6, c] + R[7, c]))
        while i < n:
            qt = Q[lo + i]
            for c in range(m):
                res[c] += qt[c]
            i += 1
    for c in range(m):
        acc[c] += res[c]


@njit(cache=True, nogil=True, error_model="numpy")
def _pairwise_block(a, lo, n):  # pragma: no cover - compiled
    """NumPy's pairwise sum of a block of at most 128 values (eight running sums)."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r0 = a[lo]
    r1 = a[lo + 1]
    r2 = a[lo + 2]
    r3 = a[lo + 3]
    r4 = a[lo + 4]
    r5 = a[lo + 5]
    r6 = a[lo + 6]
    r7 = a[lo + 7]
    i = 8
    while i < n - (n % 8):
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True, nogil=True, error_model="numpy")
def _pairwise_sum(a, lo, n):  # pragma: no cover - compiled
    """NumPy's pairwise summation of ``a[lo:lo + n]`` (``np.add.reduce`` along a contiguous
    axis: blocks of at most 128 values, larger ranges split in halves rounded down to a
    multiple of 8 and the halves' sums added), so that a mean over a row is bit for bit
    NumPy's. The recursion is unrolled with an explicit stack (a cached Numba function
    must not call itself): the partial sums are combined in the same tree."""
    if n <= 128:
        return _pairwise_block(a, lo, n)
    # post-order walk of the split tree: (lo, n, state) with state 0 = not expanded
    stack_lo = np.empty(64, dtype=np.int64)
    stack_n = np.empty(64, dtype=np.int64)
    stack_s = np.empty(64, dtype=np.int64)
    vals = np.empty(64)
    top = 0
    nv = 0
    stack_lo[0] = lo
    stack_n[0] = n
    stack_s[0] = 0
    top = 1
    while top:
        t = top - 1
        if stack_n[t] <= 128:
            vals[nv] = _pairwise_block(a, stack_lo[t], stack_n[t])
            nv += 1
            top -= 1
        elif stack_s[t] == 0:
            stack_s[t] = 1
            n2 = stack_n[t] // 2
            n2 -= n2 % 8
            # right half pushed first, so the left one is summed first
            stack_lo[top] = stack_lo[t] + n2
            stack_n[top] = stack_n[t] - n2
            stack_s[top] = 0
            stack_lo[top + 1] = stack_lo[t]
            stack_n[top + 1] = n2
            stack_s[top + 1] = 0
            top += 2
        else:  # both halves done: left + right
            vals[nv - 2] = vals[nv - 2] + vals[nv - 1]
            nv -= 1
            top -= 1
    return vals[0]


@njit(cache=True, nogil=True, error_model="numpy")
def first_widths(Xc, J, starts, sizes):  # pragma: no cover - compiled
    """``dh[g, c]``: the mean over the points of class ``g`` of the distance to the nearest
    other point of the class on the single feature ``J[c]`` (the widths of a first forward
    step): the class's values sorted, each point's nearest neighbour one of its two
    neighbours in the order. ``Xc`` is ``(n, p)``, the points in class order (class ``g``:
    rows ``starts[g]`` to ``starts[g] + sizes[g]``). The same sorted values, gaps, minima and
    mean (NumPy's pairwise sum, in sorted order) as
    :meth:`~stablefs.selectors.wrappers._bolstering_widths.WidthMixin._dhat`, bit for bit;
    a class of fewer than two points gets 0. The values of all candidates are sorted at
    once by odd-even transposition (compare-exchanges along the points, the candidates
    innermost: no data-dependent branches)."""
    m = J.size
    g = starts.size
    dh = np.zeros((g, m))
    w = sizes.max()  # the largest class
    V = np.empty((w, m))
    nn = np.empty(w)
    for gi in range(g):
        nc = sizes[gi]
        if nc < 2:
            continue
        s0 = starts[gi]
        for t in range(nc):
            row = Xc[s0 + t]
            vt = V[t]
            for c in range(m):
                vt[c] = row[J[c]]
        for r in range(nc):
            for t in range(r % 2, nc - 1, 2):
                va = V[t]
                vb = V[t + 1]
                for c in range(m):
                    x = va[c]
                    y = vb[c]
                    lo = x if x < y else y
                    hi = y if x < y else x
                    va[c] = lo
                    vb[c] = hi
        for c in range(m):
            nn[0] = V[1, c] - V[0, c]
            nn[nc - 1] = V[nc - 1, c] - V[nc - 2, c]
            for t in range(1, nc - 1):
                a = V[t, c] - V[t - 1, c]
                b = V[t + 1, c] - V[t, c]
                nn[t] = a if a < b else b
            dh[gi, c] = _pairwise_sum(nn, 0, nc) / nc
    return dh


@njit(cache=True, nogil=True, error_model="numpy")
def lda_bolstered_remove(A, cols, Xt, ct, means, cst, D, Xc, starts, sizes, present, alpha,
                         semi):  # pragma: no cover - compiled
    """Per member ``cols[t]``: the (semi-)bolstered sum of two-class LDA on ``cols`` without
    it (a backward step of the floating search), from ``A = S_SS^{-1}`` by the inverse of a
    principal sub-matrix, as
    :meth:`~stablefs.selectors.wrappers._lda_criterion.LDAPart._remove_bolstered_numpy`.

    Parameters
    ----------
    A : (k, k) ``S_SS^{-1}``, ``k >= 2``; ``cols`` (k,) the subset.
    Xt : (n, p) training points; ``ct`` (n,) their classes (0 or 1); ``means`` (2, p);
        ``cst`` ``log(p_1 / p_0)``.
    D : (n, n) squared distances over ``cols`` in class order; ``Xc`` (n, p) the points in
        class order (class ``g``: rows ``starts[g]`` to ``starts[g] + sizes[g]``, in the
        points' own order).
    present : (2,) classes of at least two points; ``alpha`` the chi median of ``k - 1``.

    Returns
    -------
    vals : (k,) sums over the points (in their own order) of ``Phi(-s_i / sigma_i)``
        (misclassified points 1 when ``semi``); valid when ``all_good``.
    all_good : every direction norm and every present class's width is positive (otherwise
        the caller's general path decides).

    The widths: per class, each point's nearest other point of the class without feature
    ``cols[t]``, ``max(min_l (D_il - (x_it - x_lt)^2), 0)``, the square roots averaged with
    NumPy's pairwise sum (as ``_nn_full`` and ``mean`` compute them, bit for bit).
    """
    k = cols.size
    n = Xt.shape[0]
    U0 = np.zeros(k)
    U1 = np.zeros(k)
    for t in range(k):
        u0 = 0.0
        u1 = 0.0
        for s in range(k):
            u0 += A[t, s] * means[0, cols[s]]
            u1 += A[t, s] * means[1, cols[s]]
        U0[t] = u0
        U1[t] = u1
    q0 = 0.0
    q1 = 0.0
    for t in range(k):
        q0 += means[0, cols[t]] * U0[t]
        q1 += means[1, cols[t]] * U1[t]
    ud = np.empty(k)
    rr = np.empty(k)
    half = np.empty(k)
    for t in range(k):
        ud[t] = U1[t] - U0[t]
        rr[t] = ud[t] / A[t, t]
        half[t] = 0.5 * (U1[t] ** 2 - U0[t] ** 2) / A[t, t]
    # the direction norms ||a_{-t}||
    aa = 0.0
    for t in range(k):
        aa += ud[t] * ud[t]
    norm = np.empty(k)
    for t in range(k):
        Aa = 0.0
        cn = 0.0
        for s in range(k):
            Aa += A[t, s] * ud[s]
            cn += A[s, t] * A[s, t]
        dA = A[t, t]
        r = rr[t]
        a = ud[t]
        n2 = aa - a ** 2 - 2 * r * (Aa - dA * a) + r ** 2 * (cn - dA ** 2)
        norm[t] = np.sqrt(max(n2, 0.0))
    # widths without each member
    g = starts.size
    dh = np.zeros((g, k))
    w = sizes.max()  # the largest class
    nn = np.empty(w)
    for gi in range(g):
        nc = sizes[gi]
        if nc < 2:
            continue
        lo = starts[gi]
        for t in range(k):
            f = cols[t]
            for ii in range(nc):
                i = lo + ii
                xi = Xc[i, f]
                best = np.inf
                for ll in range(nc):
                    if ll == ii:
                        continue
                    v = xi - Xc[lo + ll, f]
                    x = D[i, lo + ll] - v * v
                    best = best if best < x else x
                nn[ii] = np.sqrt(best if best > 0.0 else 0.0)
            dh[gi, t] = _pairwise_sum(nn, 0, nc) / nc
    all_good = True
    for t in range(k):
        wd = np.inf
        for gi in range(2):
            if present[gi] and dh[gi, t] < wd:
                wd = dh[gi, t]
        if not (min(norm[t], wd) > 0):
            all_good = False
    vals = np.zeros(k)
    if not all_good:
        return vals, all_good
    scale = np.empty((2, k))
    for gi in range(2):
        for t in range(k):
            scale[gi, t] = alpha / (norm[t] * dh[gi, t])
    e = np.empty(k)
    for i in range(n):
        eu0 = 0.0
        eu1 = 0.0
        for t in range(k):
            e[t] = Xt[i, cols[t]]
            eu0 += e[t] * U0[t]
            eu1 += e[t] * U1[t]
        base = eu1 - eu0 - 0.5 * (q1 - q0) + cst
        ci = ct[i]
        sg = 1.0 if ci == 1 else -1.0
        for t in range(k):
            ea = 0.0
            for s in range(k):
                ea += e[s] * A[s, t]
            diff = base - ea * rr[t] + half[t]
            if semi and (diff > 0.0) != (ci == 1):
                vals[t] += 1.0
            else:
                vals[t] += _ndtr(-((diff * sg) * scale[ci, t]), 0)
    return vals, all_good


#: :func:`ndtr_bound_tables` on :data:`NDTR_GRID` (``tlo``, ``tup``), computed on import
BOUND_TABLES = ndtr_bound_tables()
