"""The linear-SVM criterion part (two classes, C of the rule, 1 by default) under
(semi-)bolstering."""

from __future__ import annotations

import numpy as np

from stablefs.selectors._svm_convergence import libsvm_max_iter, not_converged
from stablefs.selectors.wrappers._bolstering_widths import WidthMixin
from stablefs.selectors.wrappers._criterion_base import RulePart, _ee

#: solve the SVMs of a step by the compiled SMO (_wrapper_kernels.svc_margins_add) instead of
#: one libsvm call per candidate (the same solutions on the same kernel matrix, tested)
COMPILED = True

#: libsvm's stopping tolerance in :class:`sklearn.svm.SVC` (C is the rule's, ``Rule.C``)
SVM_TOL = 1e-3


class SVMPart(RulePart, WidthMixin):
    """The two-class linear SVM (penalty ``rule.C``, 1 by default) under (semi-)bolstering:
    one SVM solve per candidate, then the signed distances, the kernel widths
    (:meth:`WidthMixin._dhat_add`) and the closed-form terms ``Phi(-s_i / sigma_i)`` of all
    candidates at once. Cross-validation parts count errors candidate by candidate
    (:class:`RulePart`).

    The solves of a step run in one compiled call
    (:func:`~stablefs.selectors.wrappers._wrapper_kernels.svc_margins_add`): libsvm's SMO
    (Fan, Chen and Lin 2005) step for step on the kernel matrix ``K_S + x_j x_j^T`` of each
    candidate, which gives libsvm's dual coefficients and offset to the last bit on that
    kernel matrix (tested against scikit-learn's libsvm given it precomputed; on raw data
    scikit-learn's kernel is a BLAS ``ddot`` whose summation order depends on the CPU, so the
    two paths agree to round-off); the direction ``a`` is then formed exactly as
    :func:`stablefs.selectors.wrappers._error_estimators.linear_svm` forms it (the same
    product of the same arrays). A backward step solves the subsets ``S - {q}`` on kernels
    downdated from ``K_S`` (:meth:`_fits_remove`,
    :func:`~stablefs.selectors.wrappers._wrapper_kernels.svc_duals_remove`): every
    single-precision entry of libsvm's ``Q`` is certified by a rounding-error bound to be the
    rounding of the subset's own kernel entry, or summed afresh, so the solutions are the
    refits' to the last bit in ``O(n^2)`` per candidate instead of ``O(n^2 k)``. With
    :data:`COMPILED` off, libsvm is called per candidate
    (:func:`~stablefs.selectors.wrappers._error_estimators.linear_svm`, the solver and
    arrays of :class:`sklearn.svm.SVC` without its per-call validation). A solve that reaches
    libsvm's iteration limit (:mod:`stablefs.selectors._svm_convergence`) stops the search
    with an error."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        counts = np.bincount(self.ct, minlength=self.g)
        self.fast = self.g == 2 and np.count_nonzero(counts) == 2 and self.kind != "count"
        self._init_classes()
        if self.fast:
            # libsvm's order: class 0 (its label +1) first, each class in data order
            self._gorder = np.argsort(self.ct, kind="stable")
            self._gsign = np.where(self.ct[self._gorder] == 0, 1, -1).astype(np.int64)

    def _direction(self, Xs, coef, rho) -> tuple[np.ndarray, float]:
        """``(a, b)`` from libsvm's dual coefficients (libsvm's order), as
        :func:`~stablefs.selectors.wrappers._error_estimators.linear_svm` forms them from
        scikit-learn's ``dual_coef_``, ``support_vectors_`` and ``intercept_ = -rho``."""
        nz = np.flatnonzero(coef)
        sv = Xs[self._gorder[nz]]
        a = ((-coef[nz])[None, :] @ sv)[0].copy()
        return a, float(rho)

    def _margins(self, Xs, coef, rho) -> tuple[np.ndarray, float]:
        """``(a^T x_i + b, ||a||)`` over the points of the SVM on the columns ``Xs`` from
        libsvm's dual coefficients and offset (:meth:`_direction`)."""
        a, b = self._direction(Xs, coef, rho)
        return Xs @ a + b, float(np.sqrt(a @ a))

    def _fits(self, subsets) -> tuple[np.ndarray, np.ndarray]:
        """``diff`` (n, m): ``a^T x_i + b`` of the SVM designed on each column subset (the
        columns in the given order, as :meth:`RulePart.value` passes them) and the norms
        ``||a||``."""
        n = self.Xt.shape[0]
        diff = np.empty((n, len(subsets)))
        norm = np.empty(len(subsets))
        svm = _ee().linear_svm
        yf = self.ct.astype(np.float64)
        limit = libsvm_max_iter(n)
        if COMPILED:
            from stablefs.selectors._smo import svc_dual
            from stablefs.selectors.wrappers._wrapper_kernels import linear_kernel

        for q, sub in enumerate(subsets):
            Xs = self.Xt[:, sub]
            if COMPILED:
                coef, rho, n_iter = svc_dual(
                    linear_kernel(np.ascontiguousarray(Xs[self._gorder])), self._gsign,
                    self.rule.C, SVM_TOL, limit)
                if n_iter >= limit:
                    raise not_converged(Xs, self.rule.C)
                diff[:, q], norm[q] = self._margins(Xs, coef, rho)
            else:
                a, b = svm(Xs, yf, self.rule.C, limit)
                diff[:, q] = Xs @ a + b
                norm[q] = np.sqrt(a @ a)
        return diff, norm

    def _fits_add(self, cols, cands) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_fits` of the subsets ``cols + [j]``, the candidate's column written into one
        reused buffer (the same arrays, so the same libsvm solutions)."""
        n, k = self.Xt.shape[0], cols.size
        diff = np.empty((n, cands.size))
        norm = np.empty(cands.size)
        svm = _ee().linear_svm
        yf = self.ct.astype(np.float64)
        buf = np.empty((n, k + 1))
        buf[:, :k] = self.Xt[:, cols]
        limit = libsvm_max_iter(n)
        if COMPILED:
            from stablefs.selectors.wrappers._wrapper_kernels import svc_margins_add

            Xg = self.Xt[self._gorder]
            dg, norm, n_iter = svc_margins_add(np.ascontiguousarray(Xg[:, cols]),
                                               np.ascontiguousarray(Xg[:, cands]),
                                               self._gsign, self.rule.C, SVM_TOL, limit)
            stopped = np.flatnonzero(n_iter >= limit)
            if stopped.size:
                raise not_converged(self.Xt[:, np.r_[cols, cands[stopped[0]]]], self.rule.C)
            diff[self._gorder] = dg.T
            return diff, norm
        for q, j in enumerate(cands):
            buf[:, k] = self._XT[j]
            a, b = svm(buf, yf, self.rule.C, limit)
            diff[:, q] = buf @ a + b
            norm[q] = np.sqrt(a @ a)
        return diff, norm

    def _fits_remove(self, cols) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_fits` of the subsets ``cols`` without one column each, the same values to
        the last bit: the SVMs solved on kernel matrices downdated from that of ``cols``
        (:func:`~stablefs.selectors.wrappers._wrapper_kernels.svc_duals_remove`, ``O(n^2)``
        per candidate instead of ``O(n^2 k)``), the directions and margins formed as there."""
        from stablefs.selectors.wrappers._wrapper_kernels import svc_duals_remove

        n, k = self.Xt.shape[0], cols.size
        limit = libsvm_max_iter(n)
        coef, rho, n_iter, _ = svc_duals_remove(
            np.ascontiguousarray(self.Xt[np.ix_(self._gorder, cols)]), self._gsign,
            self.rule.C, SVM_TOL, limit)
        stopped = np.flatnonzero(n_iter >= limit)
        if stopped.size:
            raise not_converged(self.Xt[:, np.delete(cols, stopped[0])], self.rule.C)
        diff = np.empty((n, k))
        norm = np.empty(k)
        for q in range(k):
            diff[:, q], norm[q] = self._margins(self.Xt[:, np.delete(cols, q)], coef[q], rho[q])
        return diff, norm

    def values_add(self, cols, cands) -> np.ndarray:
        cols = np.asarray(cols, dtype=np.int64)
        cands = np.asarray(cands, dtype=np.int64)
        if not self.fast or cols.size + 1 > self.Xt.shape[0]:
            return super().values_add(cols, cands)
        diff, norm = self._fits_add(cols, cands)
        wrong = (diff > 0) != (self.ct[:, None] == 1)
        dh = self._dhat_add(cols, cands, cols.size + 1)
        return self._bolstered_values(diff, norm, dh, cols.size + 1, wrong)

    def values_remove(self, cols) -> np.ndarray:
        cols = np.asarray(cols, dtype=np.int64)
        k = cols.size
        if k <= 1:
            return np.array([self.value(np.zeros(0, dtype=np.int64))] * k)
        if not self.fast:
            return super().values_remove(cols)
        diff, norm = self._fits_remove(cols) if COMPILED else self._fits(
            [np.delete(cols, i) for i in range(k)])
        wrong = (diff > 0) != (self.ct[:, None] == 1)
        dh = self._dhat(self._class_sq_cached(cols), cols, -1.0, k - 1)
        return self._bolstered_values(diff, norm, dh, k - 1, wrong)
