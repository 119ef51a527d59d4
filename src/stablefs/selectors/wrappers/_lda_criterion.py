"""The LDA criterion part: rank-one updates of the pooled covariance (see :mod:`._criteria`).

The two-class (semi-)bolstered criterion of Xiao, Hua and Dougherty (2007) (Braga-Neto and
Dougherty 2004, closed form) runs its forward and backward steps and the widths in compiled
kernels (:mod:`._lda_kernels`); SFS and SFFS forward steps are pruned exactly
(:meth:`LDAPart.sums_add_bounded`). ``COMPILED = False`` switches back to the NumPy
computations (:meth:`LDAPart._add_bolstered_numpy`, :meth:`LDAPart._remove_numpy`), which
are the kernels' test oracles. With more than two classes the Monte-Carlo bolstering follows
the same updates (:meth:`LDAPart._mc_sums`); subsets of at least ``n - g`` features, where
the pooled covariance has no inverse, are stepped by rank-one updates of the samples' Gram
pseudo-inverse (:mod:`._lda_wide`).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import ndtr

from stablefs.selectors.wrappers._bolstering_widths import WidthMixin
from stablefs.selectors.wrappers._criterion_base import (
    CHUNK_ELEMENTS,
    SCHUR_RTOL,
    RulePart,
    _chi_median,
    _ee,
)

#: the two-class (semi-)bolstered criterion's forward and backward steps, widths and
#: ``S_SS^{-1}`` by the compiled kernels (:mod:`._lda_kernels`) instead of the NumPy
#: computations (:meth:`LDAPart._add_bolstered_numpy`, :meth:`LDAPart._remove_numpy`; the same
#: values to round-off, the same search paths), and the searches' forward steps pruned
COMPILED = True

_LK = None


def _kernels():
    """:mod:`stablefs.selectors.wrappers._lda_kernels` (imports Numba on first use), or None
    when :data:`COMPILED` is off or the kernels cannot be loaded (for instance a SciPy that
    does not export its ``ndtr`` to Cython): then the NumPy computations run, after a one-line
    warning."""
    global _LK
    if not COMPILED:
        return None
    if _LK is None:
        try:
            from stablefs.selectors.wrappers import _lda_kernels
        except ImportError as exc:
            warnings.warn(f"stablefs: the compiled LDA kernels could not be loaded ({exc}); "
                          "the NumPy computation is used.", RuntimeWarning, stacklevel=3)
            _LK = False
        else:
            _LK = _lda_kernels
    return _LK or None


#: neighbours kept by the compiled width update (second feature, later ones); any number
#: gives the same widths (exact bound), these were the fastest on the equal-covariance model
#: of Xiao, Hua and Dougherty (2007) at N = 50, p = 200
NN_KEEP = (16, 10)


class LDAPart(RulePart, WidthMixin):
    """LDA with rank-one updates of the pooled covariance (see the module docstring)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        g = self.g
        counts = np.bincount(self.ct, minlength=g)
        self.means = np.zeros((g, self.X.shape[1]))
        for c in range(g):
            if counts[c]:
                self.means[c] = self.Xt[self.ct == c].mean(axis=0)
        self.Dt = self.Xt - self.means[self.ct]
        self.dof = max(self.Xt.shape[0] - int(np.count_nonzero(counts)), 1)
        with np.errstate(divide="ignore"):
            self.logp = np.log(counts / counts.sum())
        # every class present: the steps update the fitted rule (two-class bolstering in
        # closed form, more classes by the Monte-Carlo draws, :meth:`_mc_sums`)
        self.fast = bool(np.count_nonzero(counts) == g)
        self._base_memo: tuple | None = None
        self._init_classes()

    def _base(self, cols):
        """``S_SS^{-1}`` of the pooled covariance on ``cols`` (None when it is singular to
        :data:`~stablefs.selectors.wrappers._error_estimators.PINV_RTOL`: the pseudo-inverse refits
        decide); the last one is kept (a floating search asks for the same subset twice).
        The two-class (semi-)bolstered criterion computes it by the compiled
        :func:`~stablefs.selectors.wrappers._lda_kernels.lda_base` (the same eigendecomposition
        and test, without NumPy's per-call overhead) when ``COMPILED``."""
        key = cols.tobytes()
        if self._base_memo is not None and self._base_memo[0] == key:
            return self._base_memo[1]
        k = cols.size
        if k == 0:
            return np.zeros((0, 0))
        if k >= self.dof:
            return None
        lk = _kernels() if self.g == 2 and self.kind != "count" else None
        if lk is not None:
            A, good = lk.lda_base(self.Dt, cols, float(self.dof), _ee().PINV_RTOL)
            self._base_memo = (key, A if good else None)
            return self._base_memo[1]
        Dk = self.Dt[:, cols]
        S = Dk.T @ Dk / self.dof
        vals, vecs = np.linalg.eigh(S)
        if not vals[0] > _ee().PINV_RTOL * vals[-1] or not vals[-1] > 0:
            A = None
        else:
            A = (vecs / vals) @ vecs.T
        self._base_memo = (key, A)
        return A

    def values_add(self, cols, cands) -> np.ndarray:
        cols = np.asarray(cols, dtype=np.int64)
        cands = np.asarray(cands, dtype=np.int64)
        A = self._base(cols) if self.fast else None
        if A is None:
            out = self._wide_values(cols, cands, +1)
            return super().values_add(cols, cands) if out is None else out
        if self.g == 2 and self.kind != "count":
            out = self._add_bolstered(cols, cands, A)
            if out is not None:
                return out
        k = cols.size
        Ms = self.means[:, cols]                     # (g, k)
        U = A @ Ms.T                                  # (k, g)
        q = np.einsum("ck,kc->c", Ms, U)              # (g,)
        EU = self.Xe[:, cols] @ U                     # (ne, g)
        Dk = self.Dt[:, cols]
        out = np.empty(cands.size)
        ne = self.Xe.shape[0]
        step = max(1, CHUNK_ELEMENTS // (8 * max(ne, k + 1)))
        if self.kind != "count":
            Dc = self._class_sq(cols)
        mc = self.g > 2 and self.kind != "count"
        if mc:  # Monte-Carlo bolstering: the draws' scores of a chunk, (n M, g, m)
            assert self.noise is not None  # bolstered by Monte Carlo: the part has draws
            eps = self.noise.get(cols)
            E = eps.reshape(eps.shape[0] * eps.shape[1], k)
            EU_draws = E @ U                           # (n M, g)
            step = max(1, min(step, CHUNK_ELEMENTS // (E.shape[0] * self.g)))
        for s in range(0, cands.size, step):
            cj = cands[s:s + step]
            Dj = self.Dt[:, cj]
            Sxc = Dk.T @ Dj / self.dof                 # (k, m)
            sjj = np.einsum("ij,ij->j", Dj, Dj) / self.dof
            V = A @ Sxc                                # (k, m)
            c = sjj - np.einsum("km,km->m", Sxc, V)
            ok = c > SCHUR_RTOL * np.maximum(sjj, np.finfo(float).tiny)
            c_safe = np.where(ok, c, 1.0)
            H = self.means[:, cj] - Ms @ V             # (g, m)
            T = H / c_safe                             # (g, m)
            R = self.Xe[:, cj] - self.Xe[:, cols] @ V  # (ne, m)
            if self.g == 2:
                base = EU[:, 1] - EU[:, 0] - 0.5 * (q[1] - q[0]) + self.logp[1] - self.logp[0]
                Td = T[1] - T[0]
                diff = base[:, None] + Td[None, :] * R - 0.5 * (T[1] * H[1] - T[0] * H[0])
                pred = (diff > 0).astype(np.int64)
            else:
                delta = (EU - 0.5 * q + self.logp)[:, :, None] + T[None, :, :] * (
                    R[:, None, :] - 0.5 * H[None, :, :])
                pred = np.argmax(delta, axis=1)
            wrong = pred != self.ce[:, None]
            if self.kind == "count":
                vals = np.count_nonzero(wrong, axis=0).astype(float)
            elif mc:  # scores linear in the point: z = x + sigma eps adds sigma (eps's part)
                assert self.noise is not None  # bolstered by Monte Carlo: the part has draws
                EJ = self.noise.get(cj).reshape(E.shape[0], cj.size)
                Le = EU_draws[:, :, None] + T[None, :, :] * (EJ - E @ V)[:, None, :]
                dh = self._dhat(Dc, cj, +1.0, k + 1)
                vals = self._mc_sums(delta, Le, dh, k + 1, wrong)
            else:
                ud = U[:, 1] - U[:, 0]
                norm2 = ud @ ud - 2 * Td * (ud @ V) + Td**2 * (np.einsum("km,km->m", V, V) + 1)
                norm = np.sqrt(np.maximum(norm2, 0.0))
                dh = self._dhat(Dc, cj, +1.0, k + 1)
                vals = self._bolstered_values(diff, norm, dh, k + 1, wrong)
            bad = np.flatnonzero(~ok)
            for b in bad:
                vals[b] = self.value(np.append(cols, cj[b]))
            out[s:s + step] = vals
        return out

    def _prepare_bolstered(self):
        """The class-ordered copies and per-feature constants of :meth:`_add_bolstered`
        (built on the first forward step)."""
        if hasattr(self, "_perm"):
            return
        self._perm = np.argsort(self.ct, kind="stable")
        self._n0 = int(np.count_nonzero(self.ct == 0))
        self._Xp = np.ascontiguousarray(self.Xt[self._perm])
        self._Xp1 = np.hstack([self._Xp, np.ones((self._Xp.shape[0], 1))])  # (n, p + 1)
        self._DtT = np.ascontiguousarray(self.Dt.T) / self.dof    # (p, n)
        sjj = np.einsum("ij,ij->j", self.Dt, self.Dt) / self.dof
        self._sjj = sjj
        self._thr = SCHUR_RTOL * np.maximum(sjj, np.finfo(float).tiny)
        self._present = np.bincount(self.ct, minlength=2) >= 2
        self._cst = self.logp[1] - self.logp[0]
        self._mdiff = self.means[1] - self.means[0]
        self._msum = self.means[1] + self.means[0]

    def _add_bolstered(self, cols, cands, A) -> np.ndarray | None:
        """Forward step of the two-class (semi-)bolstered criterion for every candidate at
        once: the compiled kernel (:meth:`_add_bolstered_compiled`) or, with ``COMPILED``
        off, the NumPy computation (:meth:`_add_bolstered_numpy`, the kernel's test oracle).
        Returns None (the caller's general path decides) when a direction norm or a width
        is zero."""
        self._prepare_bolstered()
        if _kernels() is not None:
            return self._add_bolstered_compiled(cols, cands, A)
        return self._add_bolstered_numpy(cols, cands, A)

    def _add_bolstered_compiled(self, cols, cands, A, pad: float | None = None
                                ) -> np.ndarray | None:
        """:meth:`_add_bolstered_numpy` by one compiled call after the widths
        (:meth:`_widths_add`): :func:`~stablefs.selectors.wrappers._lda_kernels.lda_bolstered_add`
        (every candidate; the same values to round-off, the same singular candidates,
        refitted, and the same None) or, with ``pad``,
        :func:`~stablefs.selectors.wrappers._lda_kernels.lda_bolstered_best` (``inf`` for the
        candidates that cannot be within ``pad`` of the step's minimum)."""
        lk = _kernels()
        k = cols.size
        p = self.Xt.shape[1]
        if not hasattr(self, "_slot"):   # rows of the pooled covariance, as needed
            self._slot = np.full(p + 1, -1, dtype=np.int64)
            self._slot[p] = 0
            self._Srows = np.empty((16, p))
            self._DtC = np.ascontiguousarray(self.Dt)
        if self._slot[p] + k > self._Srows.shape[0]:
            grown = np.empty((2 * (self._slot[p] + k), p))
            grown[:self._slot[p]] = self._Srows[:self._slot[p]]
            self._Srows = grown
        dh = self._widths_add(cols, cands, k + 1)
        args = (np.ascontiguousarray(A), cols, cands, self._Srows, self._slot, self._DtT,
                self._DtC, self._Xp, self._n0, self.means, self._sjj, self._thr, self._cst, dh,
                self._present, _chi_median(k + 1), self.kind == "semi")
        if pad is None:
            vals, ok, good = lk.lda_bolstered_add(*args)
        else:
            vals, ok, good = lk.lda_bolstered_best(*args, pad, *lk.BOUND_TABLES,
                                                   lk.NDTR_GRID[0], lk.NDTR_GRID[2])
        if not good:
            return None
        if not ok.all():
            for b in np.flatnonzero(~ok):
                vals[b] = self.value(np.append(cols, cands[b]))
        return vals

    def sums_add_bounded(self, cols, cands) -> np.ndarray:
        """:meth:`values_add` where a candidate can be the step's best, ``inf`` where it
        cannot (exact pruning, for the searches' forward steps, :meth:`Criterion.best_add`):
        the two-class (semi-)bolstered forward step by the compiled
        :func:`~stablefs.selectors.wrappers._lda_kernels.lda_bolstered_best` (a candidate is
        dropped when a lower bound of its sum exceeds an upper bound of the step's smallest
        sum by more than ``max(1e-9, 4 n TIE_TOL)``, far above round-off and above the ties'
        tolerance ``n TIE_TOL`` on sums); every
        candidate that can reach the minimum, ties included, gets its full value, bit for
        bit that of :meth:`values_add`, so the step's choice, value and tie count are those of
        :meth:`values_add`. Other criteria, a class of fewer than two points, or ``COMPILED``
        off: :meth:`values_add`."""
        from stablefs.selectors.wrappers._search import TIE_TOL

        cols = np.asarray(cols, dtype=np.int64)
        cands = np.asarray(cands, dtype=np.int64)
        if _kernels() is None or not (self.fast and self.g == 2 and self.kind != "count"):
            return self.values_add(cols, cands)
        A = self._base(cols)
        self._prepare_bolstered()
        if A is None or not self._present.all():
            return self.values_add(cols, cands)
        pad = max(1e-9, 4 * TIE_TOL * self.Xt.shape[0])
        out = self._add_bolstered_compiled(cols, cands, A, pad)
        return self.values_add(cols, cands) if out is None else out

    def _class_ranges(self):
        """Class sizes, first rows in class order and the class order of the points, as
        ``int64`` arrays for the compiled kernels."""
        if not hasattr(self, "_csizes"):
            self._csizes = np.bincount(self.ct, minlength=self.g).astype(np.int64)
            self._cstarts = np.r_[0, np.cumsum(self._csizes)[:-1]].astype(np.int64)
            self._corder = np.concatenate(self._class_idx).astype(np.int64)

    def _widths_add(self, cols, cands, k_new: int) -> np.ndarray:
        """:meth:`WidthMixin._dhat_add` of the candidates ``cands`` (bit for bit): the first
        feature's by :func:`~stablefs.selectors.wrappers._lda_kernels.first_widths`; from the
        second on, with classes of at least 5 points, by the compiled pruned update
        (:func:`~stablefs.selectors.wrappers._lda_kernels.nn_widths_add`, :data:`NN_KEEP`
        neighbours) on the distances of :meth:`WidthMixin._sq_cached`."""
        lk = _kernels()
        self._class_ranges()
        if k_new == 1:
            if not hasattr(self, "_Xcls"):
                self._Xcls = np.ascontiguousarray(self.Xt[self._corder])
            return lk.first_widths(self._Xcls, cands, self._cstarts, self._csizes)
        if not self._class_layout():
            return np.ascontiguousarray(self._dhat_add(cols, cands, k_new))
        r = min(NN_KEEP[0] if k_new == 2 else NN_KEEP[1], self._cmin - 3)
        return lk.nn_widths_add(self._sq_cached(cols), self._Xc, self._XTc, cands,
                                self._cstarts, self._csizes, r)

    def _add_bolstered_numpy(self, cols, cands, A) -> np.ndarray | None:
        """Forward step of the two-class (semi-)bolstered criterion for every candidate at once.

        With ``A = S_SS^{-1}``, ``V = A S_{S,J}``, the Schur complements ``c_j = s_jj -
        s_j^T v_j``, ``H = M_J - M_S V`` and ``T = H / c``, the LDA discriminant of point ``i``
        on ``S + {j}`` is ``diff_ij = base_i + (T_1j - T_0j)(x_ij - x_iS v_j) - (T_1j H_1j -
        T_0j H_0j)/2`` (one matrix product for all candidates: ``x_ij Td_j + ([X_S, 1] @ [u_d - V
        Td; const_j])_ij`` with ``u_d = A (m_1 - m_0)_S``; ``||a_j||^2 = ||u_d - v_j Td_j||^2 +
        Td_j^2``) and the bolstered term is ``Phi(-(2 y_i - 1) diff_ij alpha_{k+1} / (||a_j||
        d_{y_i}(j)))`` (Braga-Neto and Dougherty 2004).
        Rows are ordered by class so that the per-class scale is two in-place products. When
        candidates are most of the features every feature is computed (no gathers) and the
        candidates picked at the end. Returns None (the caller's general path decides) when a
        direction norm or a width is zero."""
        k = cols.size
        p = self.Xt.shape[1]
        full = 2 * cands.size >= p
        J = slice(None) if full else cands
        Xp, n0 = self._Xp, self._n0
        Ms = self.means[:, cols]                      # (2, k)
        U = A @ Ms.T                                  # (k, 2)
        ud = U[:, 1] - U[:, 0]
        Sxc = self._DtT[cols] @ (self.Dt if full else self.Dt[:, cands])   # (k, m)
        V = A @ Sxc                                   # (k, m)
        c = self._sjj[J] - (Sxc * V).sum(axis=0)
        # H = M_J - M_S V = M_J - U^T Sxc: its difference and sum over the two classes
        P = np.stack([ud, U[:, 1] + U[:, 0]]) @ Sxc   # (2, m)
        Hd = self._mdiff[J] - P[0]
        if full:  # a feature of S has a zero Schur complement: not a candidate
            c[cols] = 1.0
        ok = c > self._thr[J]
        all_ok = ok.all()
        Td = Hd / c if all_ok else Hd / np.where(ok, c, 1.0)    # T_1 - T_0
        # B = [ud - V Td; const - (T_1 H_1 - T_0 H_0) / 2], with T_1 H_1 - T_0 H_0 = Td Hs
        B = np.empty((k + 1, Td.size))
        np.multiply(V, Td, out=B[:k])
        np.subtract(ud[:, None], B[:k], out=B[:k])
        np.subtract(self._msum[J], P[1], out=B[k])
        B[k] *= Td
        B[k] *= -0.5
        B[k] += self._cst - 0.5 * ((Ms[1] @ U[:, 1]) - (Ms[0] @ U[:, 0]))
        norm2 = (B[:k] * B[:k]).sum(axis=0)           # ||a||^2 = ||ud - V Td||^2 + Td^2
        norm2 += Td * Td
        norm = np.sqrt(norm2)
        dh = self._dhat_add(cols, J, k + 1)
        if self._present.all():
            good = np.minimum(norm, np.minimum(dh[0], dh[1])) > 0
        else:
            good = np.minimum(norm, dh[self._present].min(axis=0, initial=np.inf)) > 0
        if full:
            good[cols] = True
        if not good.all():
            return None
        # diff = x_j Td - x_S (V Td) + base + const_j = [x_S, 1] @ B + x_j Td
        Z = np.multiply(Xp if full else Xp[:, cands], Td)
        Z += self._Xp1[:, np.append(cols, p)] @ B     # diff, rows by class
        semi = self.kind == "semi"
        if semi:
            wrong = np.empty(Z.shape, dtype=bool)
            np.greater(Z[:n0], 0.0, out=wrong[:n0])
            np.less_equal(Z[n0:], 0.0, out=wrong[n0:])
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = _chi_median(k + 1) / (norm * dh)  # (2, m)
        if n0:
            Z[:n0] *= scale[0]
        if n0 < Z.shape[0]:
            Z[n0:] *= -scale[1]
        ndtr(Z, out=Z)
        if semi:
            np.putmask(Z, wrong, 1.0)
        vals = Z.sum(axis=0)
        if full:
            vals = vals[cands]
        if not all_ok:
            for b in np.flatnonzero(~(ok[cands] if full else ok)):
                vals[b] = self.value(np.append(cols, cands[b]))
        return vals

    def values_remove(self, cols) -> np.ndarray:
        cols = np.asarray(cols, dtype=np.int64)
        k = cols.size
        if k <= 1:
            return np.array([self.value(np.zeros(0, dtype=np.int64))] * k)
        A = self._base(cols) if self.fast else None
        if A is None:
            out = self._wide_values(cols, cols, -1)
            return super().values_remove(cols) if out is None else out
        if (_kernels() is not None and self.g == 2 and self.kind != "count"
                and self._class_layout()):
            out = self._remove_bolstered_compiled(cols, A)
            if out is not None:
                return out
        return self._remove_numpy(cols, A)

    def _wide_values(self, cols, J, sign: int) -> np.ndarray | None:
        """Values of adding (``sign = +1``) or removing (``sign = -1``, ``J = cols``) each
        feature of ``J`` when ``cols`` has at least as many features as the pooled
        covariance's degrees of freedom (its inverse does not exist): rank-one updates of the
        samples' Gram pseudo-inverse (:mod:`._lda_wide`), the same values as refitting LDA on
        each subset to round-off, the candidates a chunk at a time (memory ``O(n m)``). None
        (the caller refits every subset) for a removal down to fewer features than the
        degrees of freedom, a class absent from the design, or a Gram matrix below the full
        rank. More than two classes: :meth:`_wide_values_classes`."""
        k = cols.size
        if k + sign < self.dof or k < self.dof:
            return None
        if self.g != 2 or not self.fast:
            return self._wide_values_classes(cols, J, sign)
        from stablefs.selectors.wrappers._lda_wide import wide_gram, wide_step

        mid = 0.5 * (self.means[0] + self.means[1])
        delta = self.means[1] - self.means[0]
        gram = wide_gram(self.Dt[:, cols], delta[cols], self.dof, _ee().PINV_RTOL,
                         E=self.Xe[:, cols] - mid[cols])
        if gram is None:
            return None
        m = J.size
        vals, ok = np.empty(m), np.empty(m, dtype=bool)
        if self.kind != "count":
            dh = self._step_widths(cols, J, sign)
        chunk = max(1, CHUNK_ELEMENTS // (4 * max(self.Xe.shape[0], self.Xt.shape[0])))
        for s in range(0, m, chunk):
            jj = J[s:s + chunk]
            step = wide_step(gram, self.Dt[:, jj], self.Xe[:, jj] - mid[jj], delta[jj], sign)
            diff = self.dof * step.projection + (self.logp[1] - self.logp[0])
            wrong = (diff > 0) != (self.ce == 1)[:, None]
            if self.kind == "count":
                vals[s:s + chunk] = np.count_nonzero(wrong, axis=0)
            else:
                norm = self.dof * np.sqrt(np.maximum(step.norm2, 0.0))
                vals[s:s + chunk] = self._bolstered_values(diff, norm, dh[:, s:s + chunk],
                                                           k + sign, wrong)
            ok[s:s + chunk] = step.ok
        return self._refit_failed(vals, ok, cols, J, sign)

    def _step_widths(self, cols, J, sign: int) -> np.ndarray:
        """Per-class mean nearest-neighbour distances ``(g, m)`` after removing (``sign =
        -1``, ``J = cols``) or adding each feature of ``J``."""
        k = cols.size
        if sign < 0:
            return self._dhat(self._class_sq_shrinking(cols), cols, -1.0, k - 1)
        return self._dhat_add(cols, J, k + 1)

    def _refit_failed(self, vals, ok, cols, J, sign: int) -> np.ndarray:
        """``vals`` with the candidates whose update failed the rank bound refitted."""
        for b in np.flatnonzero(~ok):
            vals[b] = self.value(np.delete(cols, b) if sign < 0 else np.append(cols, J[b]))
        return vals

    def _wide_values_classes(self, cols, J, sign: int) -> np.ndarray | None:
        """:meth:`_wide_values` for more than two classes (:func:`~._lda_wide.wide_class_step`):
        the largest of the class scores, for the evaluation points (``count``) or for the
        training points and their Monte-Carlo bolstering draws ``x_i + sigma_i eps`` (the
        scores are linear in the point, so the draws' part is scaled by each candidate's
        width). None (refits) when a class is absent from the training points."""
        counts = np.bincount(self.ct, minlength=self.g)
        if np.count_nonzero(counts) < self.g:
            return None
        from stablefs.selectors.wrappers._lda_wide import wide_class_step, wide_gram

        k, m = cols.size, J.size
        gram = wide_gram(self.Dt[:, cols], self.means[:, cols].T, self.dof, _ee().PINV_RTOL)
        if gram is None:
            return None
        vals, ok = np.empty(m), np.empty(m, dtype=bool)
        dof, g = float(self.dof), self.g
        if self.kind == "count":
            P = self.Xe[:, cols] @ gram.D.T
            chunk = max(1, CHUNK_ELEMENTS // (P.shape[0] * g))
        else:
            dh = self._step_widths(cols, J, sign)
            P = self.Xt[:, cols] @ gram.D.T
            assert self.noise is not None  # bolstered by Monte Carlo: the part has draws
            block = self.noise.block(np.r_[cols, J])   # (features, n, M), no copy
            n, M = block.shape[1], block.shape[2]
            PE = np.zeros((n * M, P.shape[1]))          # the draws' products with D
            fc = max(1, CHUNK_ELEMENTS // (n * M))
            for s in range(0, k, fc):
                PE += block[cols[s:s + fc]].reshape(-1, n * M).T @ gram.D[:, s:s + fc].T
            chunk = max(1, CHUNK_ELEMENTS // (n * M * g))
        for s in range(0, m, chunk):
            jj = J[s:s + chunk]
            st = wide_class_step(gram, self.Dt[:, jj], self.means[:, jj].T, sign)
            if self.kind == "count":
                sc = dof * st.linear(P, self.Xe[:, jj]) + st.constant(dof, self.logp)
                vals[s:s + chunk] = np.count_nonzero(np.argmax(sc, axis=1) != self.ce[:, None],
                                                     axis=0)
            else:
                sx = dof * st.linear(P, self.Xt[:, jj]) + st.constant(dof, self.logp)
                wrong = np.argmax(sx, axis=1) != self.ct[:, None]
                EJ = np.moveaxis(block[jj], 0, 2).reshape(n * M, jj.size)
                vals[s:s + chunk] = self._mc_sums(sx, dof * st.linear(PE, EJ),
                                                  dh[:, s:s + chunk], k + sign, wrong)
            ok[s:s + chunk] = st.ok
        return self._refit_failed(vals, ok, cols, J, sign)

    def _mc_sums(self, scores, draws, dh, dim, wrong) -> np.ndarray:
        """The Monte-Carlo (semi-)bolstered sums of :meth:`RulePart.value` for rules whose
        class scores are linear in the point, every candidate at once: ``scores`` (n, g, m)
        at the training points, ``draws`` (n M, g, m) the scores' linear part at the unit
        draws ``eps`` (point-major, as :meth:`Noise.get`), ``dh`` (g, m) the per-class mean
        nearest-neighbour distances on each candidate's subspace of dimension ``dim``, so that
        the draw ``x_i + sigma_i eps`` scores ``scores_i + sigma_i draws``; ``wrong`` (n, m)
        the resubstitution errors (counted whole in semi-bolstering)."""
        n, g, m = scores.shape
        sigma = dh[self.ct] / _chi_median(dim)                     # (n, m)
        se = draws.reshape(n, -1, g, m)
        se *= sigma[:, None, None, :]
        se += scores[:, None]
        terms = np.mean(np.argmax(se, axis=2) != self.ct[:, None, None], axis=1)
        if self.kind == "semi":
            terms[wrong] = 1.0
        return terms.sum(axis=0)

    def _remove_bolstered_compiled(self, cols, A) -> np.ndarray | None:
        """The two-class (semi-)bolstered backward step of :meth:`_remove_numpy` by one
        compiled call (:func:`~stablefs.selectors.wrappers._lda_kernels.lda_bolstered_remove`;
        the same values to round-off); None when a direction norm or a width is zero (the
        NumPy path's general formula decides)."""
        lk = _kernels()
        self._prepare_bolstered()
        self._class_ranges()
        k = cols.size
        vals, good = lk.lda_bolstered_remove(
            np.ascontiguousarray(A), cols, self.Xt, self.ct, self.means, self._cst,
            self._sq_cached(cols), self._Xc, self._cstarts, self._csizes, self._present,
            _chi_median(k - 1), self.kind == "semi")
        return vals if good else None

    def _remove_numpy(self, cols, A) -> np.ndarray:
        """``values_remove`` from ``A = S_SS^{-1}`` by the inverse of a principal sub-matrix,
        every member at once (the NumPy computation; the compiled kernel's test oracle)."""
        k = cols.size
        Ms = self.means[:, cols]
        U = A @ Ms.T                                  # (k, g)
        q = np.einsum("ck,kc->c", Ms, U)
        Ek = self.Xe[:, cols]
        EU = Ek @ U                                   # (ne, g)
        EA = Ek @ A                                   # (ne, k)
        dA = np.diag(A)
        if self.g == 2:
            ud = U[:, 1] - U[:, 0]
            base = EU[:, 1] - EU[:, 0] - 0.5 * (q[1] - q[0]) + self.logp[1] - self.logp[0]
            diff = base[:, None] - EA * (ud / dA)[None, :] + 0.5 * (U[:, 1]**2 - U[:, 0]**2) / dA
            pred = (diff > 0).astype(np.int64)
        else:
            delta = (EU - 0.5 * q + self.logp)[:, :, None] - EA[:, None, :] * (U / dA[:, None]).T[
                None, :, :] + 0.5 * (U**2 / dA[:, None]).T[None, :, :]
            pred = np.argmax(delta, axis=1)
        wrong = pred != self.ce[:, None]
        if self.kind == "count":
            return np.count_nonzero(wrong, axis=0).astype(float)
        if self.g > 2:  # Monte-Carlo bolstering: the draws' part of the scores, (n M, g, k)
            assert self.noise is not None  # bolstered by Monte Carlo: the part has draws
            eps = self.noise.get(cols)
            E = eps.reshape(eps.shape[0] * eps.shape[1], k)
            Le = (E @ U)[:, :, None] - (E @ A)[:, None, :] * (U / dA[:, None]).T[None, :, :]
            dh = self._dhat(self._class_sq_cached(cols), cols, -1.0, k - 1)
            return self._mc_sums(delta, Le, dh, k - 1, wrong)
        a = ud
        Aa = A @ a
        colnorm2 = np.einsum("kx,kx->x", A, A)
        r = a / dA
        norm2 = (a @ a) - a**2 - 2 * r * (Aa - dA * a) + r**2 * (colnorm2 - dA**2)
        norm = np.sqrt(np.maximum(norm2, 0.0))
        Dc = self._class_sq_cached(cols)
        dh = self._dhat(Dc, cols, -1.0, k - 1)
        return self._bolstered_values(diff, norm, dh, k - 1, wrong)
