"""Compiled (Numba) kernel of the bolstered-LDA criterion's forward step.

:func:`lda_bolstered_add` computes, for every candidate ``j`` of a forward step from ``S``,
the two-class (semi-)bolstered resubstitution sum of LDA on ``S + {j}`` (Braga-Neto and
Dougherty 2004, the closed form for linear rules; the criterion of Xiao, Hua and Dougherty
2007): the rank-one (bordered) update of the pooled covariance, the discriminant of every
point, the direction norm and ``sum_i Phi(-s_i / sigma_i)``. It replaces about thirty NumPy
calls per step and ``scipy.special.ndtr`` on the ``n x m`` margins
(:meth:`~stablefs.selectors.wrappers._lda_criterion.LDAPart._add_bolstered_numpy`, its test
oracle); the values equal the NumPy ones to round-off (the products are summed in another
order than BLAS's) and the sums over the points run in the same order (class order, one
point after the other, as NumPy's reduction along axis 0).

``Phi`` is SciPy's own C ``ndtr`` (the double version exported by
``scipy.special.cython_special``), called from compiled code through a symbol registered
with LLVM, so every term is bit for bit ``scipy.special.ndtr`` of the same argument and the
kernel can be cached on disk (an address baked into the code could not).

Also :func:`lda_base`: ``S_SS^{-1}`` by the eigendecomposition, as
:meth:`~stablefs.selectors.wrappers._lda_criterion.LDAPart._base` computes it.

One thread, float64, no fast-math; the module imports Numba and is imported on first use
only (importing stablefs does not import Numba). Compiled code is cached (``cache=True``).
"""

from __future__ import annotations

import llvmlite.binding as _llvm
import numpy as np
from numba import njit, types
from numba.extending import get_cython_function_address

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
def ndtr(z):  # pragma: no cover - compiled
    """``scipy.special.ndtr`` of one value (the same C function)."""
    return _ndtr(z, 0)


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
def _srow(Srows, have, DtT, Dt, f):  # pragma: no cover - compiled
    """Row ``f`` of the pooled covariance ``S = D^T D / dof`` (``DtT``: ``D^T / dof``),
    computed once and kept in ``Srows``."""
    if have[f]:
        return
    row = Srows[f]
    row[:] = 0.0
    a = DtT[f]
    n, p = Dt.shape
    for i in range(n):
        ai = a[i]
        d = Dt[i]
        for j in range(p):
            row[j] += ai * d[j]
    have[f] = True


@njit(cache=True, nogil=True, error_model="numpy")
def lda_bolstered_add(A, cols, J, Srows, have, DtT, Dt, Xp, n0, means, sjj, thr, cst,
                      dh, present, alpha, semi):  # pragma: no cover - compiled
    """Per candidate ``J[c]``: the (semi-)bolstered sum of two-class LDA on ``cols + {J[c]}``.

    Parameters
    ----------
    A : (k, k) ``S_SS^{-1}``; ``cols`` (k,) the subset ``S``; ``J`` (m,) the candidates.
    Srows, have : (p, p), (p,) rows of the pooled covariance computed so far (filled here).
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
    vals : (m,) the sums ``sum_i Phi(-s_i / sigma_i)`` (terms of misclassified points 1 when
        ``semi``); valid where ``ok`` and when ``all_good``.
    ok : (m,) the Schur complement of ``j`` is above ``thr[j]`` (otherwise the caller refits).
    all_good : every direction norm and every present class's width is positive (otherwise
        the caller's general path decides and ``vals`` is not computed).
    """
    k = cols.size
    m = J.size
    n = Xp.shape[0]
    for t in range(k):
        _srow(Srows, have, DtT, Dt, cols[t])
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
        row = Srows[cols[t]]
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
    vals = np.zeros(m)
    if not all_good:
        return vals, ok, all_good
    sc0 = np.empty(m)
    sc1 = np.empty(m)
    for c in range(m):
        sc0[c] = alpha / (norm[c] * dh[0, c])
        sc1[c] = -(alpha / (norm[c] * dh[1, c]))
    # diff_ij = x_ij Td_j + ([x_S, 1] @ B)_ij, one point (row) at a time, the candidates
    # innermost; then the scaled margin, Phi and the running sum over the points
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
        sc = sc0 if i < n0 else sc1
        for c in range(m):
            d = xj[c] * Td[c] + z[c]
            if semi and (d > 0.0 if i < n0 else d <= 0.0):
                vals[c] += 1.0
            else:
                vals[c] += _ndtr(d * sc[c], 0)
    return vals, ok, all_good
