"""Subset criteria for the wrappers, evaluated incrementally: all candidates of a step at once.

A criterion is an error estimate ``J(S)`` of a feature subset ``S`` (lower is better). A
sequential search needs, at every step, ``J(S + {j})`` for every candidate ``j`` outside ``S``
(a forward step) or ``J(S - {x})`` for every ``x`` in ``S`` (a backward step). Refitting a
classifier per candidate costs ``O(m)`` fits; here every step is a handful of array operations
whose cost is linear in the number of candidates:

- **LDA** (resubstitution, bolstered, semi-bolstered, hold-out parts of a cross-validation):
  the pooled covariance of ``S + {j}`` is the bordered matrix ``[[S_SS, s], [s^T, s_jj]]``; with
  ``A = S_SS^{-1}``, ``v = A s`` and the Schur complement ``c = s_jj - s^T v`` its inverse
  applied to a class mean ``m`` is ``[A m_S - v t; t]`` with ``t = (m_j - v^T m_S)/c``, so every
  discriminant value, the LDA direction's norm and the bolstered term ``Phi(-s_i/sigma_i)``
  follow for all candidates from ``A``, ``V = A S_{S,cand}`` and ``c`` (rank-one updates of the
  pooled covariance, ``O(n k m)`` per step). Removing ``x`` uses the inverse of a principal
  sub-matrix, ``(A_{-x,-x} - A_{-x,x} A_{x,-x}/A_xx)``, again for all ``x`` at once.
  A forward step of the two-class (semi-)bolstered criterion computes every feature at once
  (rows ordered by class, one matrix product for all discriminants) when the candidates are
  most of the features.
- **kNN** (resubstitution, hold-out, Monte-Carlo bolstering): squared distances over ``S`` are
  kept and updated by one feature, ``D + (x_ij - x_lj)^2``; bolstered draws
  ``Z = x_i + sigma eps`` use common random numbers per feature (:class:`Noise`), so that
  ``|Z - x_l|^2 = A_il + 2 sigma B_iml + sigma^2 C_im`` is updated by one feature as well. In a
  forward step the last term, the same for every ``l``, is dropped and the rest divided by
  ``2 sigma > 0`` (:meth:`KNNPart._mc_terms`: the same neighbours, fewer passes), and the
  resubstitution errors of 3NN come from two order statistics (:meth:`KNNPart._resub3_add`).
- **Bolstering kernel widths** (Braga-Neto and Dougherty 2004) need each class's mean distance
  to the nearest other point of the class in the candidate subspace: the squared distances of
  ``S`` (:meth:`_WidthMixin._sq_cached`) and, for all candidates at once, the coordinates of
  each point's few nearest same-class points in ``S`` (adding a feature only lengthens
  distances, so the nearest in ``S + {j}`` is among them unless a bound check fails; those
  pairs are computed in full: :meth:`_WidthMixin._kth_add`).
- **Linear SVM**: one libsvm solve per candidate
  (:func:`stablefs.selectors.wrappers._error_estimators.linear_svm`, bit for bit scikit-learn's
  ``SVC(kernel="linear", C=1)`` without its per-call validation), widths and closed-form terms
  for all candidates at once (:class:`SVMPart`). The SVM has no exact incremental update that
  reproduces libsvm's tolerance-1e-3 solution, so the solves stay.
- **Pruned forward steps** (:meth:`Criterion.best_add`, used by SFS and SFFS): the
  Monte-Carlo kNN criteria evaluate a few candidates in full and the others point block by
  point block, dropping a candidate once its partial sum (a lower bound: every term is >= 0)
  exceeds the best value seen; the step's choice, value and tie count are unchanged.

Any other rule (a scikit-learn classifier) or a user callable is evaluated candidate by
candidate (:class:`RulePart`); so is an LDA candidate whose bordered covariance is singular
(the Moore-Penrose pseudo-inverse of
:func:`stablefs.selectors.wrappers._error_estimators.fit_lda` then decides). The incremental
values equal the refit ones to round-off (tested).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import ndtr

from stablefs._errors import StablefsError

if TYPE_CHECKING:
    from stablefs.selectors.wrappers._error_estimators import Rule


_CHI: dict[int, float] = {}


def _chi_median(dim: int) -> float:
    """:func:`stablefs.selectors.wrappers._error_estimators.chi_median`, memoised here."""
    out = _CHI.get(dim)
    if out is None:
        out = _CHI[dim] = _ee().chi_median(dim)
    return out


def _ee():
    """:mod:`stablefs.selectors.wrappers._error_estimators` (the estimators' kernels, beside
    the criteria), imported on first use: it loads libsvm and scikit-learn's neighbours, which
    a process that never builds a criterion does not need."""
    from stablefs.selectors.wrappers import _error_estimators

    return _error_estimators


#: elements per temporary tensor (candidates are processed in chunks of this size)
CHUNK_ELEMENTS = 2**21

#: a bordered covariance whose Schur complement is below this fraction of the candidate's own
#: variance is treated as singular (that candidate is refitted with the pseudo-inverse)
SCHUR_RTOL = 1e-9

CRITERIA = ("bolstered", "semi-bolstered", "resubstitution", "cv")


class Noise:
    """Standard normal draws for Monte-Carlo bolstering, ``(n, M)`` per feature, drawn once per
    feature from its own stream (common random numbers: every subset containing feature ``f``
    sees the same draws on ``f``, so the bolstered error of a subset does not depend on the
    order of the search, and incremental updates are exact)."""

    def __init__(self, seed: int, n: int, n_draws: int):
        self.seed = int(seed)
        self.n = int(n)
        self.n_draws = int(n_draws)
        self._cache: dict[int, np.ndarray] = {}
        self._block: np.ndarray | None = None
        self._have = np.zeros(0, dtype=bool)

    def feature(self, f: int) -> np.ndarray:
        f = int(f)
        out = self._cache.get(f)
        if out is None:
            out = np.random.default_rng([self.seed, f]).standard_normal((self.n, self.n_draws))
            self._cache[f] = out
        return out

    def stack(self, cols) -> np.ndarray:
        """Draws of the features ``cols``, shape ``(len(cols), n, M)``; the features' draws
        are also kept side by side, so that a step's candidates are one gather."""
        cols = np.asarray(cols, dtype=np.int64)
        top = int(cols.max()) + 1 if cols.size else 0
        if self._block is None or self._block.shape[0] < top:
            size = max(top, 2 * (0 if self._block is None else self._block.shape[0]))
            block = np.empty((size, self.n, self.n_draws))
            have = np.zeros(size, dtype=bool)
            if self._block is not None:
                block[:self._have.size] = self._block
                have[:self._have.size] = self._have
            self._block, self._have = block, have
        for f in cols[~self._have[cols]]:
            self._block[f] = self.feature(f)
            self._have[f] = True
        return self._block[cols]

    def get(self, cols) -> np.ndarray:
        """Draws of the features ``cols``, shape ``(n, M, len(cols))``."""
        cols = np.asarray(cols, dtype=np.int64)
        out = np.empty((self.n, self.n_draws, cols.size))
        for i, f in enumerate(cols):
            out[:, :, i] = self.feature(f)
        return out


# ------------------------------------------------------------------------------------ parts


class RulePart:
    """One design/evaluate unit of a criterion, evaluated by refitting the rule.

    ``kind`` is ``"count"`` (design on ``train``, count the errors on ``evl``: resubstitution
    when both are everything, one fold of a cross-validation otherwise), ``"bolstered"`` or
    ``"semi"`` (design on everything, sum of the bolstered terms over every point). The value of
    a part is a *sum* over its evaluation points; the criterion divides by the total count.
    """

    def __init__(self, X, codes, n_classes, rule: Rule, kind: str, train=None, evl=None,
                 noise: Noise | None = None):
        self.X = X
        self.codes = codes
        self.g = int(n_classes)
        self.rule = rule
        self.kind = kind
        n = X.shape[0]
        self.train = np.arange(n) if train is None else np.asarray(train)
        self.evl = np.arange(n) if evl is None else np.asarray(evl)
        self.noise = noise
        self.Xt = X[self.train]
        self.ct = codes[self.train]
        self.Xe = X[self.evl]
        self.ce = codes[self.evl]

    # the plain definition, one subset at a time
    def value(self, cols) -> float:
        cols = np.asarray(cols, dtype=np.int64)
        Xt = self.Xt[:, cols]
        fitted = self.rule.fit(Xt, self.ct, self.g)
        if self.kind == "count":
            return float(np.count_nonzero(fitted.predict(self.Xe[:, cols]) != self.ce))
        wrong = fitted.predict(Xt) != self.ct
        if cols.size == 0 or fitted.constant >= 0:
            return float(np.count_nonzero(wrong))
        sigma = _ee()._widths(Xt, self.ct, self.g)
        if fitted.linear is not None:
            a, b = fitted.linear
            norm = float(np.sqrt(a @ a))
            if norm == 0.0:
                terms = wrong.astype(float)
            else:
                margin = (2 * self.ct - 1) * (Xt @ a + b) / norm
                terms = _ee().linear_bolstered_terms(margin, sigma, self.ct)
        else:
            eps = self.noise.get(cols)
            n, M = eps.shape[0], eps.shape[1]
            Z = (Xt[:, None, :] + sigma[:, None, None] * eps).reshape(n * M, cols.size)
            pred = fitted.predict(Z).reshape(n, M)
            terms = np.mean(pred != self.ct[:, None], axis=1)
        if self.kind == "semi":
            terms = np.where(wrong, 1.0, terms)
        return float(terms.sum())

    def values_add(self, cols, cands) -> np.ndarray:
        cols = list(np.asarray(cols, dtype=np.int64))
        return np.array([self.value(np.array(cols + [int(j)], dtype=np.int64))
                         for j in np.asarray(cands)])

    def values_remove(self, cols) -> np.ndarray:
        cols = np.asarray(cols, dtype=np.int64)
        return np.array([self.value(np.delete(cols, i)) for i in range(cols.size)])


class _WidthMixin:
    """Bolstering kernel widths of candidate subspaces from per-class distance matrices."""

    def _init_classes(self):
        self._class_idx = [np.flatnonzero(self.ct == c) for c in range(self.g)]
        self._XT = np.ascontiguousarray(self.Xt.T)                    # (p, nt)
        self._sgn = (2 * self.ct - 1).astype(float)
        self._layout: bool | None = None                              # see _class_layout
        self._nn_memo: tuple | None = None
        self._dc_key: bytes | None = None
        self._dc: list[np.ndarray] | None = None

    def _class_layout(self) -> bool:
        """Class-ordered copies of the training points (``_Xc``: rows ordered by class,
        ``_XTc`` its transpose, ``_cperm`` the order) for the updates of :meth:`_kth_add`;
        False when a class has fewer than 5 points (the widths are then computed by
        :meth:`_dhat`)."""
        if self._layout is None:
            sizes = np.array([idx.size for idx in self._class_idx])
            present = sizes[sizes > 0]
            if present.min() < 5:
                self._layout = False
            else:
                self._layout = True
                starts = np.cumsum(np.r_[0, sizes])[:-1]
                self._cstart = starts[sizes > 0]
                self._cstart_all = starts
                self._csize = present.astype(float)
                self._cpresent = sizes > 0
                self._cmin = int(present.min())
                self._cperm = np.concatenate(self._class_idx)
                self._Xc = np.ascontiguousarray(self.Xt[self._cperm])        # (n, p)
                self._XTc = np.ascontiguousarray(self._Xc.T)                 # (p, n)
                cls = self.ct[self._cperm]
                self._same = cls[:, None] == cls[None, :]
                # the same-class distances side by side (:meth:`_nn_add`): row i holds
                # i's class block, inf on i itself and past the end of a smaller class
                n, w = cls.size, int(present.max())
                s0 = starts[cls]                                             # (n,)
                self._wbuf = np.full((n, w), np.inf)
                self._wself = np.arange(n) * w + (np.arange(n) - s0)
                self._wrow = np.arange(n)[:, None] * w
                self._wstart = s0[:, None]
                # row u of _Xw: feature j of the u-th point of each class at column
                # q p + j (q: the class's rank), zero past a smaller class's end
                p = self._XTc.shape[0]
                self._Xw = np.zeros((w, present.size * p))
                for q, (a, nc) in enumerate(zip(self._cstart, present)):
                    self._Xw[:nc, q * p:(q + 1) * p] = self._Xc[a:a + nc]
                self._wcol0 = np.repeat(np.arange(present.size) * p, present)  # (n,)
        return bool(self._layout)

    def _sq_cached(self, cols) -> np.ndarray:
        """Squared distances over ``cols`` between all training points in class order
        (:meth:`_class_layout`), updated by one feature from the previous call's when
        ``cols`` extends it by one feature (a forward step after a forward step)."""
        key = cols.tobytes()
        if key == self._dc_key:
            return self._dc
        if cols.size and self._dc_key == cols[:-1].tobytes():
            v = self._XTc[int(cols[-1])]
            D = v[:, None] - v[None, :]
            D *= D
            D += self._dc
        else:
            Xk = self._Xc[:, cols]
            D = np.square(Xk[:, None, :] - Xk[None, :, :]).sum(axis=2)
        self._dc_key, self._dc = key, D
        return D

    def _class_sq_cached(self, cols) -> list[np.ndarray]:
        """:meth:`_class_sq` of ``cols`` (blocks of :meth:`_sq_cached` when available)."""
        if not self._class_layout():
            return self._class_sq(cols)
        D = self._sq_cached(cols)
        out = []
        for c, idx in enumerate(self._class_idx):
            s0, nc = self._cstart_all[c], idx.size
            blk = D[s0:s0 + nc, s0:s0 + nc].copy()
            np.fill_diagonal(blk, np.inf)
            out.append(blk)
        return out

    def _kth_add(self, Dm: np.ndarray, J, r: int, kth: int) -> np.ndarray:
        """For every point ``i`` (class order) and candidate ``j`` of ``J`` (an index array or
        ``slice(None)``), the ``kth`` (1 or 2; ``r >= 2``) smallest of ``Dm_il + (x_ij -
        x_lj)^2`` over ``l``, where ``Dm`` holds squared distances over ``S`` with ``inf`` at
        excluded pairs; shape ``(n, m)``.

        Adding a feature only lengthens distances, so the ``kth`` smallest is among the ``r``
        nearest ``l`` in ``S`` whenever the value found among them does not exceed the ``r +
        1``-th distance in ``S``: the ``r`` nearest points' coordinates are gathered for all
        candidates at once, and the (point, candidate) pairs failing the check are computed
        against every point. Exact."""
        full = isinstance(J, slice)
        Xc = self._Xc if full else self._Xc[:, J]                     # (n, m)
        n, m = Xc.shape
        # the r nearest in any order, the (r + 1)-th at position r
        near = np.argpartition(Dm, r, axis=1)[:, :r + 1]              # (n, r + 1)
        dr = np.take_along_axis(Dm, near, axis=1).T                   # (r + 1, n)
        T = Xc[near[:, :r].T]                                         # (r, n, m)
        T -= Xc
        np.square(T, out=T)
        T += np.ascontiguousarray(dr[:r])[:, :, None]
        if kth == 1:
            q = T.min(axis=0)
        else:  # running minimum and second minimum over the r contiguous slices
            m1 = np.minimum(T[0], T[1])
            q = np.maximum(T[0], T[1])
            aux = np.empty_like(q)
            for t in range(2, r):
                np.maximum(m1, T[t], out=aux)
                np.minimum(q, aux, out=q)
                np.minimum(m1, T[t], out=m1)
        bad = q > dr[r][:, None]
        flat = np.flatnonzero(bad)
        if flat.size:
            ii, jj = np.divmod(flat, m)
            rows = self._XTc[jj if full else J[jj]]                   # (nb, n)
            rows -= rows[np.arange(ii.size), ii][:, None]
            np.square(rows, out=rows)
            rows += Dm[ii]
            q[ii, jj] = rows.min(axis=1) if kth == 1 else \
                np.partition(rows, kth - 1, axis=1)[:, kth - 1]
        return q

    def _nn_add(self, cols, J, k_new: int) -> np.ndarray:
        """Squared distance of every point (class order) to its nearest other point of its
        class in ``S + {j}``, for the candidates ``J``; shape ``(n, m)``.

        :meth:`_kth_add` with ``kth = 1`` on the same-class distances only: each point's row
        holds its own class (``_wbuf``, inf on the point itself), so the partition runs over a
        class, and the ``r`` nearest are added one at a time into an ``(n, m)`` running
        minimum (no ``(r, n, m)`` tensor). The (point, candidate) pairs failing the bound are
        computed against their class. Exact: the same sums and minima as :meth:`_kth_add`."""
        key = (cols.tobytes(), None if isinstance(J, slice) else J.tobytes())
        if self._nn_memo is not None and self._nn_memo[0] == key:
            return self._nn_memo[1]
        D = self._sq_cached(cols)
        W = self._wbuf                                                # (n, w)
        for s0, nc in zip(self._cstart, self._csize.astype(np.int64)):
            W[s0:s0 + nc, :nc] = D[s0:s0 + nc, s0:s0 + nc]
        W.flat[self._wself] = np.inf
        r = min(2 * NN_PRUNE if k_new == 2 else NN_PRUNE, self._cmin - 3)
        full = isinstance(J, slice)
        Xc = self._Xc if full else self._Xc[:, J]                     # (n, m)
        m = Xc.shape[1]
        near = np.argpartition(W, r, axis=1)[:, :r + 1]               # (n, r + 1), in class
        dr = W.ravel()[near + self._wrow].T[:, :, None]               # (r + 1, n, 1)
        nbr = (near[:, :r] + self._wstart).T                          # (r, n), class order
        q = Xc[nbr[0]]
        q -= Xc
        np.square(q, out=q)
        q += dr[0]
        buf = np.empty_like(q)
        for t in range(1, r):
            np.subtract(Xc[nbr[t]], Xc, out=buf)
            np.square(buf, out=buf)
            buf += dr[t]
            np.minimum(q, buf, out=q)
        flat = np.flatnonzero(q > dr[r])
        if flat.size:  # pairs along axis 1, the class's points along axis 0
            ii, jj = np.divmod(flat, m)
            rows = np.take(self._Xw, self._wcol0[ii] + (jj if full else J[jj]), axis=1)
            rows -= Xc.ravel()[flat]
            np.square(rows, out=rows)
            rows += np.take(W.T, ii, axis=1)
            q.ravel()[flat] = np.minimum.reduce(rows, axis=0)
        self._nn_memo = (key, q)
        return q

    def _dh_from_nn(self, nn: np.ndarray) -> np.ndarray:
        """``d_c(j)`` (g, m) from the squared nearest same-class distances (class order)."""
        dh = np.zeros((self.g, nn.shape[1]))
        dh[self._cpresent] = np.add.reduceat(np.sqrt(nn), self._cstart, axis=0) \
            / self._csize[:, None]
        return dh

    def _dhat_add(self, cols, J, k_new: int) -> np.ndarray:
        """:meth:`_dhat` of a forward step (``sign=+1``) from ``S = cols`` for the candidates
        ``J`` (an index array, or ``slice(None)`` for every feature), all classes at once
        (:meth:`_nn_add`; more neighbours are kept for the second feature, where distances on
        one feature bound weakly). Equal to :meth:`_dhat` to round-off."""
        p = self.Xt.shape[1]
        if k_new == 1 or not self._class_layout():
            return self._dhat(self._class_sq(cols), np.arange(p) if isinstance(J, slice)
                              else J, +1.0, k_new)
        return self._dh_from_nn(self._nn_add(cols, J, k_new))

    def _class_sq(self, cols) -> list[np.ndarray]:
        """Per class, squared distances over ``cols`` with ``inf`` on the diagonal (a point is
        not its own nearest other point)."""
        out = []
        for idx in self._class_idx:
            Xc = self.Xt[np.ix_(idx, cols)] if len(cols) else np.zeros((idx.size, 0))
            D = np.square(Xc[:, None, :] - Xc[None, :, :]).sum(axis=2)
            np.fill_diagonal(D, np.inf)
            out.append(D)
        return out

    def _dhat(self, Dc: list[np.ndarray], cols_feat: np.ndarray, sign: float,
              k_new: int) -> np.ndarray:
        """``d_c(j)``: per class, the mean distance of its points to their nearest other point
        of the class in the subspace after adding (``sign=+1``) or removing (``sign=-1``)
        feature ``cols_feat[j]``; shape ``(g, m)`` (0 for a class with fewer than 2 points).

        Adding a feature only lengthens distances, so the nearest other point of ``i`` in
        ``S + {j}`` is among its :data:`NN_PRUNE` nearest in ``S`` whenever the distance found
        among them does not exceed the next one in ``S``; only the (point, candidate) pairs
        where this check fails are computed against every point (exact either way). From the
        empty set (one feature) the nearest other point is a neighbour in sorted order.
        Candidates are processed in blocks, so memory stays bounded for any number of
        features."""
        m = cols_feat.size
        nt = self._XT.shape[1]
        block = max(1, CHUNK_ELEMENTS // (nt * (NN_PRUNE + 2)))
        if m > block:
            return np.concatenate([self._dhat(Dc, cols_feat[s:s + block], sign, k_new)
                                   for s in range(0, m, block)], axis=1)
        dh = np.zeros((self.g, m))
        XT = self._XT[cols_feat]                                      # (m, nt)
        pruned = []
        for c, idx in enumerate(self._class_idx):
            nc = idx.size
            if nc < 2:
                continue
            if sign > 0 and k_new == 1:
                srt = np.sort(XT[:, idx], axis=1)
                gap = np.diff(srt, axis=1)
                nn = np.empty((m, nc))
                nn[:, 0] = gap[:, 0]
                nn[:, -1] = gap[:, -1]
                if nc > 2:
                    nn[:, 1:-1] = np.minimum(gap[:, :-1], gap[:, 1:])
                dh[c] = nn.mean(axis=1)
            elif sign > 0 and nc - 1 > NN_PRUNE + 1:
                pruned.append(c)
            else:
                dh[c] = np.sqrt(_nn_full(Dc[c], XT[:, idx], sign)).mean(axis=1)
        if pruned:
            self._dhat_pruned(Dc, XT, pruned, dh)
        return dh

    def _dhat_pruned(self, Dc, XT, classes, dh):
        r = NN_PRUNE
        pts, nbr, dr, starts = [], [], [], []
        pos = 0
        for c in classes:
            idx = self._class_idx[c]
            order = np.argsort(Dc[c], axis=1)[:, :r + 1]
            pts.append(idx)
            nbr.append(idx[order[:, :r]])
            dr.append(np.take_along_axis(Dc[c], order, axis=1))
            starts.append(pos)
            pos += idx.size
        pts = np.concatenate(pts)
        nbr = np.concatenate(nbr).T                                   # (r, np) global
        dr = np.concatenate(dr).T                                     # (r + 1, np)
        Xs = np.ascontiguousarray(XT.T)                               # (nt, m)
        base = Xs[pts]                                                # (np, m)
        tmp = Xs[nbr]                                                 # (r, np, m)
        tmp -= base[None]
        np.square(tmp, out=tmp)
        tmp += dr[:r, :, None]
        nn = tmp.min(axis=0)
        bad = nn > dr[r][:, None]
        if bad.any():
            iv, jv = np.nonzero(bad)
            cls_of = np.repeat(np.arange(len(classes)), [self._class_idx[c].size
                                                         for c in classes])
            for q, c in enumerate(classes):
                sel = cls_of[iv] == q
                if not sel.any():
                    continue
                j, ii = jv[sel], iv[sel]
                li = ii - starts[q]
                idx = self._class_idx[c]
                full = np.square(XT[j, pts[ii]][:, None] - XT[j][:, idx]) + Dc[c][li]
                nn[ii, j] = full.min(axis=1)
        np.sqrt(nn, out=nn)
        sums = np.add.reduceat(nn, starts, axis=0)                    # (n_classes, m)
        for q, c in enumerate(classes):
            dh[c] = sums[q] / self._class_idx[c].size

    def _bolstered_values(self, diff, norm, dh, dim, wrong) -> np.ndarray:
        """Sum over the points of ``Phi(-s_i / sigma_i)`` per candidate column, with the
        signed distance ``s_i = (2 y_i - 1) diff_i / ||a||`` and ``sigma_i = d_{y_i} /
        alpha_dim``; misclassified points count 1 in semi-bolstering; a zero direction
        (constant rule) or a zero width falls back to the general formula."""
        alpha = _ee().chi_median(dim)
        present = np.bincount(self.ct, minlength=self.g) >= 2
        good = (norm > 0) & np.all(dh[present] > 0, axis=0)
        if good.all():
            scale = alpha / (norm[None, :] * dh)                      # (g, m)
            z = diff * self._sgn[:, None]
            z *= scale[self.ct]
            np.negative(z, out=z)
            terms = ndtr(z)
            if self.kind == "semi":
                terms[wrong] = 1.0
            return terms.sum(axis=0)
        sigma = dh[self.ct] / alpha
        with np.errstate(divide="ignore", invalid="ignore"):
            margin = self._sgn[:, None] * diff / np.where(norm > 0, norm, 1.0)
        vals = _bolstered_sum(margin, sigma, self.ct, wrong, self.kind == "semi")
        zero = ~(norm > 0)
        if np.any(zero):
            vals[zero] = np.count_nonzero(wrong[:, zero], axis=0)
        return vals

    def _sigmas(self, Dc: list[np.ndarray], cols_feat: np.ndarray, sign: float,
                dim: int) -> np.ndarray:
        """Widths ``sigma[i, j]`` (training points x candidates), ``d_{y_i}(j) / alpha_dim``."""
        return self._dhat(Dc, cols_feat, sign, dim)[self.ct] / _ee().chi_median(dim)


#: elements per temporary (candidates, points, draws, neighbours) tensor of KNNPart._mc_terms
KNN_CHUNK = 2**20

#: the two-class 1NN/3NN vote with the neighbour axis first (KNNPart._vote_lfirst)
LFIRST = True

#: candidates evaluated in full before the others are pruned (KNNPart.sums_add_bounded)
PRUNE_FIRST = 6

#: points in the first block of the pruned evaluation (doubled at every block)
PRUNE_BLOCK = 4

#: neighbours kept per point by the pruned nearest-neighbour update (see _WidthMixin._dhat)
NN_PRUNE = 6


def _nn_full(D: np.ndarray, XfT: np.ndarray, sign: float) -> np.ndarray:
    """``min_l D[i, l] + sign (x_ij - x_lj)^2`` for every candidate row ``j`` of ``XfT``
    (``D`` has ``inf`` on its diagonal); shape ``(m, nc)``."""
    m, nc = XfT.shape
    out = np.empty((m, nc))
    step = max(1, CHUNK_ELEMENTS // (nc * nc))
    for s in range(0, m, step):
        diff = XfT[s:s + step, :, None] - XfT[s:s + step, None, :]     # (mc, nc, nc)
        np.square(diff, out=diff)
        if sign > 0:
            diff += D[None]
        else:
            np.subtract(D[None], diff, out=diff)
        out[s:s + step] = diff.min(axis=2)
    if sign < 0:
        np.maximum(out, 0.0, out=out)
    return out


def _bolstered_sum(margin, sigma, codes, wrong, semi):
    """Sum over points (axis 0) of the closed-form bolstered terms, per candidate column."""
    out = np.empty_like(margin)
    pos = sigma > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(pos, ndtr(-margin / np.where(pos, sigma, 1.0)), 0.0)
    zero = ~pos
    if np.any(zero):
        ind = (margin < 0) | ((margin == 0) & (codes[:, None] == 1))
        out = np.where(zero, ind.astype(float), out)
    if semi:
        out = np.where(wrong, 1.0, out)
    return out.sum(axis=0)


class LDAPart(RulePart, _WidthMixin):
    """LDA with rank-one updates of the pooled covariance (see the module docstring)."""

    def __init__(self, *args, **kwargs):
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
        self.fast = np.count_nonzero(counts) == g and (self.kind == "count" or g == 2)
        self._base_memo: tuple | None = None
        self._init_classes()

    def _base(self, cols):
        """``S_SS^{-1}`` of the pooled covariance on ``cols`` (None when it is singular to
        :data:`~stablefs.selectors.wrappers._error_estimators.PINV_RTOL`: the pseudo-inverse refits
        decide); the last one is kept (a floating search asks for the same subset twice)."""
        key = cols.tobytes()
        if self._base_memo is not None and self._base_memo[0] == key:
            return self._base_memo[1]
        k = cols.size
        if k == 0:
            return np.zeros((0, 0))
        if k >= self.dof:
            return None
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
            return super().values_add(cols, cands)
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

    def _add_bolstered(self, cols, cands, A) -> np.ndarray | None:
        """Forward step of the two-class (semi-)bolstered criterion for every candidate at once.

        With ``A = S_SS^{-1}``, ``V = A S_{S,J}``, the Schur complements ``c_j = s_jj -
        s_j^T v_j``, ``H = M_J - M_S V`` and ``T = H / c``, the LDA discriminant of point ``i``
        on ``S + {j}`` is ``diff_ij = base_i + (T_1j - T_0j)(x_ij - x_iS v_j) - (T_1j H_1j -
        T_0j H_0j)/2`` (one matrix product for all candidates: ``x_ij Td_j + ([X_S, 1] @ [u_d - V
        Td; const_j])_ij`` with ``u_d = A (m_1 - m_0)_S``; ``||a_j||^2 = ||u_d - v_j Td_j||^2 +
        Td_j^2``) and the bolstered term is ``Phi(-(2 y_i - 1) diff_ij alpha_{k+1} / (||a_j||
        d_{y_i}(j)))`` (Braga-Neto and Dougherty 2004; ``reproduction-targets.md`` sec. 5.5).
        Rows are ordered by class so that the per-class scale is two in-place products. When
        candidates are most of the features every feature is computed (no gathers) and the
        candidates picked at the end. Returns None (the caller's general path decides) when a
        direction norm or a width is zero."""
        k = cols.size
        p = self.Xt.shape[1]
        if not hasattr(self, "_perm"):
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
            return super().values_remove(cols)
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
        a = ud
        Aa = A @ a
        colnorm2 = np.einsum("kx,kx->x", A, A)
        r = a / dA
        norm2 = (a @ a) - a**2 - 2 * r * (Aa - dA * a) + r**2 * (colnorm2 - dA**2)
        norm = np.sqrt(np.maximum(norm2, 0.0))
        Dc = self._class_sq_cached(cols)
        dh = self._dhat(Dc, cols, -1.0, k - 1)
        return self._bolstered_values(diff, norm, dh, k - 1, wrong)


class SVMPart(RulePart, _WidthMixin):
    """The two-class linear SVM (C = 1) under (semi-)bolstering: one libsvm solve per
    candidate (:func:`stablefs.selectors.wrappers._error_estimators.linear_svm`, the solver and
    arrays of :class:`sklearn.svm.SVC` without its per-call validation), then the signed
    distances, the kernel widths (:meth:`_WidthMixin._dhat_add`) and the closed-form terms
    ``Phi(-s_i / sigma_i)`` of all candidates at once. Cross-validation parts count errors
    candidate by candidate (:class:`RulePart`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        counts = np.bincount(self.ct, minlength=self.g)
        self.fast = self.g == 2 and np.count_nonzero(counts) == 2 and self.kind != "count"
        self._init_classes()

    def _fits(self, subsets) -> tuple[np.ndarray, np.ndarray]:
        """``diff`` (n, m): ``a^T x_i + b`` of the SVM designed on each column subset (the
        columns in the given order, as :meth:`RulePart.value` passes them) and the norms
        ``||a||``."""
        n = self.Xt.shape[0]
        diff = np.empty((n, len(subsets)))
        norm = np.empty(len(subsets))
        svm = _ee().linear_svm
        yf = self.ct.astype(np.float64)
        for q, sub in enumerate(subsets):
            Xs = self.Xt[:, sub]
            a, b = svm(Xs, yf)
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
        for q, j in enumerate(cands):
            buf[:, k] = self._XT[j]
            a, b = svm(buf, yf)
            diff[:, q] = buf @ a + b
            norm[q] = np.sqrt(a @ a)
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
        diff, norm = self._fits([np.delete(cols, i) for i in range(k)])
        wrong = (diff > 0) != (self.ct[:, None] == 1)
        dh = self._dhat(self._class_sq_cached(cols), cols, -1.0, k - 1)
        return self._bolstered_values(diff, norm, dh, k - 1, wrong)


def knn_vote(D: np.ndarray, ct: np.ndarray, K: int, g: int) -> np.ndarray:
    """kNN majority vote along the last axis of a distance tensor ``D`` (neighbours ordered by
    distance, ties by lower training index; vote ties to the lowest class)."""
    nt = D.shape[-1]
    K = min(int(K), nt)
    if K == 1:
        return ct[np.argmin(D, axis=-1)]
    if g == 2 and K % 2 == 1:
        r = (K + 1) // 2
        v = []
        for c in (0, 1):
            Dc = D[..., ct == c]
            if Dc.shape[-1] >= r:
                v.append(np.partition(Dc, r - 1, axis=-1)[..., r - 1])
            else:
                v.append(np.full(D.shape[:-1], np.inf))
        pred = (v[1] < v[0]).astype(np.int64)
        tie = v[1] == v[0]
        if np.any(tie):
            rows = D[tie]
            pred[tie] = _vote_sorted(rows, ct, K, g)
        return pred
    flat = D.reshape(-1, nt)
    return _vote_sorted(flat, ct, K, g).reshape(D.shape[:-1])


def _vote_sorted(rows: np.ndarray, ct: np.ndarray, K: int, g: int) -> np.ndarray:
    order = np.argsort(rows, axis=-1, kind="stable")[:, :K]
    votes = np.zeros((rows.shape[0], g), dtype=np.int64)
    np.add.at(votes, (np.repeat(np.arange(rows.shape[0]), K), ct[order].ravel()), 1)
    return np.argmax(votes, axis=1)


class KNNPart(RulePart, _WidthMixin):
    """kNN with squared distances updated by one feature (see the module docstring)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.K = self.rule.k
        counts = np.bincount(self.ct, minlength=self.g)
        self.fast = bool(np.count_nonzero(counts) >= 2)
        self._init_classes()

    def _dist(self, cols):
        Ek, Tk = self.Xe[:, cols], self.Xt[:, cols]
        return np.square(Ek[:, None, :] - Tk[None, :, :]).sum(axis=2)

    def _count_values(self, D, cj, sign):
        """Error counts for each candidate column (hold-out/resubstitution)."""
        ne, nt = D.shape
        m = cj.size
        out = np.empty(m)
        wrong_all = np.empty((ne, m), dtype=bool)
        step = max(1, CHUNK_ELEMENTS // (ne * nt))
        for s in range(0, m, step):
            sl = slice(s, s + step)
            d = self.Xe[:, None, cj[sl]] - self.Xt[None, :, cj[sl]]     # (ne, nt, mc)
            T = D[:, :, None] + sign * np.square(d)
            if sign < 0:
                np.maximum(T, 0.0, out=T)
            T = np.moveaxis(T, 2, 0)                                    # (mc, ne, nt)
            pred = knn_vote(T, self.ct, self.K, self.g)                 # (mc, ne)
            wrong = pred != self.ce[None, :]
            out[sl] = np.count_nonzero(wrong, axis=1)
            wrong_all[:, sl] = wrong.T
        return out, wrong_all

    def _mc_values(self, cols, cj, sign, dim, wrong):
        """Sum of Monte-Carlo bolstered terms (training = evaluation points) per candidate.

        The squared distance of draw ``Z_im = x_i + sigma eps_im`` to training point ``l`` in
        ``S +/- {j}`` is ``A_il + 2 sigma B_iml + sigma^2 C_im`` plus or minus feature ``j``'s
        term, with ``A``, ``B``, ``C`` the sums over ``S`` of ``delta^2``, ``delta eps`` and
        ``eps^2`` (``delta = x_i - x_l``). The neighbour axis is ordered by class so that a
        two-class vote reads each class's order statistic from a contiguous block."""
        n = self.Xt.shape[0]
        eps_S = self.noise.get(cols)                                    # (n, M, k)
        M = eps_S.shape[1]
        perm = np.argsort(self.ct, kind="stable")                       # neighbours by class
        inv = np.empty_like(perm)
        inv[perm] = np.arange(n)
        n0 = int(np.count_nonzero(self.ct == 0))
        Xk = self.Xt[:, cols]
        delta = Xk[:, None, :] - Xk[perm][None, :, :]                   # (n, n, k), l permuted
        A = np.square(delta).sum(axis=2)                                # (n, n)
        B = np.einsum("ilf,imf->iml", delta, eps_S)                     # (n, M, n)
        C = np.square(eps_S).sum(axis=2)                                # (n, M)
        Dc = self._class_sq_cached(cols)
        sig = self._sigmas(Dc, cj, sign, dim)                           # (n, m)
        out = np.empty(cj.size)
        step = max(1, CHUNK_ELEMENTS // (n * M * n))
        two_class = self.g == 2 and self.K % 2 == 1 and 0 < n0 < n
        srank = (self.K + 1) // 2
        XT = self._XT                                                   # (p, n)
        for s in range(0, cj.size, step):
            sl = slice(s, s + step)
            js = cj[sl]
            E = np.moveaxis(self.noise.get(js), 2, 0)                   # (mc, n, M)
            sg = sig[:, sl].T                                           # (mc, n)
            xj = XT[js]                                                 # (mc, n)
            dj = xj[:, :, None] - xj[:, perm][:, None, :]               # (mc, n, n)
            if sign > 0:
                T = dj[:, :, None, :] + (sg[:, :, None] * E)[..., None]
                np.square(T, out=T)
                T += A[None, :, None, :]
                T += (2.0 * sg)[:, :, None, None] * B[None]
                T += (np.square(sg)[:, :, None] * C[None])[..., None]
            else:
                T = (A[None] - np.square(dj))[:, :, None, :] + (2.0 * sg)[:, :, None, None] * (
                    B[None] - E[..., None] * dj[:, :, None, :])
                T += (np.square(sg)[:, :, None] * (C[None] - np.square(E)))[..., None]
                np.maximum(T, 0.0, out=T)
            if two_class:
                q0 = np.partition(T[..., :n0], srank - 1, axis=-1)[..., srank - 1] \
                    if n0 >= srank else np.full(T.shape[:-1], np.inf)
                q1 = np.partition(T[..., n0:], srank - 1, axis=-1)[..., srank - 1] \
                    if n - n0 >= srank else np.full(T.shape[:-1], np.inf)
                pred = (q1 < q0).astype(np.int64)
                tie = q1 == q0
                if tie.any():
                    pred[tie] = _vote_sorted(T[tie][:, inv], self.ct, self.K, self.g)
            else:
                pred = _vote_sorted(T.reshape(-1, n)[:, inv], self.ct, self.K,
                                    self.g).reshape(T.shape[:-1])
            terms = np.mean(pred != self.ct[None, :, None], axis=2)     # (mc, n)
            if self.kind == "semi":
                terms = np.where(wrong[:, sl].T, 1.0, terms)
            out[sl] = terms.sum(axis=1)
        return out

    # -- forward steps of the Monte-Carlo criteria ------------------------------------------
    def _mc_context(self, cols, cands, wrong) -> dict | None:
        """What every candidate of a forward step shares (see :meth:`_mc_terms`), or None
        when a kernel width is zero (then :meth:`_mc_values` decides)."""
        cols = np.asarray(cols, dtype=np.int64)
        n = self.Xt.shape[0]
        perm = np.argsort(self.ct, kind="stable")                       # neighbours by class
        inv = np.empty_like(perm)
        inv[perm] = np.arange(n)
        dim = cols.size + 1
        sig = self._dhat_add(cols, cands, dim)[self.ct] / _ee().chi_median(dim)
        if not np.all(sig > 0):
            return None
        Xk = self.Xt[:, cols]
        eps_S = self.noise.get(cols)                                    # (n, M, k)
        A = np.square(Xk[:, None, :] - Xk[perm][None, :, :]).sum(axis=2)
        B = np.einsum("imf,if->im", eps_S, Xk)[:, :, None] - eps_S @ Xk[perm].T
        E = self.noise.stack(cands)                                     # (m, n, M)
        n0 = int(np.count_nonzero(self.ct == 0))
        return {"cands": cands, "perm": perm, "inv": inv, "n0": n0, "A": A, "B": B,
                "BL": np.ascontiguousarray(B.transpose(2, 1, 0)),       # (n_l, M, n_i)
                "EM": np.ascontiguousarray(E.transpose(2, 1, 0)),       # (M, n, m)
                "half_inv_sig": 0.5 / sig, "E": E, "wrong": wrong,
                "two": self.g == 2 and self.K % 2 == 1 and 0 < n0 < n}

    def _mc_terms(self, ctx, ci, pts) -> np.ndarray:
        """Monte-Carlo bolstered terms (fractions of misclassified draws), shape
        ``(len(ci), len(pts))``, of candidates ``ctx["cands"][ci]`` at training points ``pts``;
        in semi-bolstering 0 where the point is misclassified (it counts 1 elsewhere).

        The draw ``Z_im = x_i + sigma_ij eps_im`` of point ``i`` in ``S + {j}`` is at squared
        distance ``|Z_im - x_l|^2 = G_il + 2 sigma_ij W_iml + sigma_ij^2 |eps_im|^2`` from
        training point ``l``, with ``G_il = A_il + delta_ilj^2`` the squared distance of the
        points and ``W_iml = B_iml + delta_ilj E_imj`` (``A``, ``B`` over ``S``; ``delta_ilj =
        x_ij - x_lj``; ``E`` the candidate's draws). The last term does not depend on ``l``
        and ``sigma_ij > 0``, so the neighbours of ``Z_im`` are ordered by ``G_il / (2
        sigma_ij) + W_iml``: three passes over the ``(candidates, points, draws, neighbours)``
        tensor instead of the distances' seven; the vote is :func:`knn_vote`'s (two classes:
        each class's ``(K + 1)/2``-th order statistic, ties by the sorted neighbour list)."""
        if ctx["two"] and self.K in (1, 3) and LFIRST:
            pred = self._vote_lfirst(ctx, ci, pts)
            terms = np.mean(pred != self.ct[pts][None, :, None], axis=2)
            if self.kind == "semi":
                terms[ctx["wrong"][np.ix_(pts, ci)].T] = 0.0
            return terms
        perm, n0 = ctx["perm"], ctx["n0"]
        n = perm.size
        js = ctx["cands"][ci]
        xj = self._XT[js]                                              # (mc, n)
        d = xj[:, pts, None] - xj[:, None, perm]                       # (mc, ni, n)
        H = ctx["A"][pts][None] + d * d
        H *= ctx["half_inv_sig"][pts][:, ci].T[:, :, None]
        T = ctx["E"][ci][:, pts, :, None] * d[:, :, None, :]           # (mc, ni, M, n)
        T += ctx["B"][pts][None]
        T += H[:, :, None, :]
        if ctx["two"]:
            r = (self.K + 1) // 2
            q0 = np.partition(T[..., :n0], r - 1, axis=-1)[..., r - 1] \
                if n0 >= r else np.full(T.shape[:-1], np.inf)
            q1 = np.partition(T[..., n0:], r - 1, axis=-1)[..., r - 1] \
                if n - n0 >= r else np.full(T.shape[:-1], np.inf)
            pred = (q1 < q0).astype(np.int64)
            tie = q1 == q0
            if tie.any():
                pred[tie] = _vote_sorted(T[tie][:, ctx["inv"]], self.ct, self.K, self.g)
        else:
            pred = _vote_sorted(T.reshape(-1, n)[:, ctx["inv"]], self.ct, self.K,
                                self.g).reshape(T.shape[:-1])
        terms = np.mean(pred != self.ct[pts][None, :, None], axis=2)   # (mc, ni)
        if self.kind == "semi":
            terms[ctx["wrong"][np.ix_(pts, ci)].T] = 0.0
        return terms

    def _vote_lfirst(self, ctx, ci, pts) -> np.ndarray:
        """The two-class 1NN / 3NN vote of every draw with the neighbour axis first and the
        candidates last: ``T[l]`` (every draw, point and candidate against training point
        ``l``) is contiguous and every element-wise pass runs along the candidates, so each
        class's smallest (1NN) or second smallest (3NN: a running minimum and second minimum
        over ``l``) costs a few passes instead of a partition of every row. The values are
        :meth:`_mc_terms`' ``G_il / (2 sigma_ij) + B_iml + delta_ilj E_imj``; equal statistics
        go to the vote on the sorted row, as in :func:`knn_vote`. Returns the predicted codes,
        shape ``(mc, ni, M)``."""
        perm, n0 = ctx["perm"], ctx["n0"]
        n = perm.size
        js = ctx["cands"][ci]
        Xj = self.Xt[:, js]                                            # (n, mc)
        dL = Xj[pts][None, :, :] - Xj[perm][:, None, :]                # (n, ni, mc)
        H = dL * dL
        H += ctx["A"][pts].T[:, :, None]
        H *= ctx["half_inv_sig"][pts][:, ci][None]
        EM = ctx["EM"][:, pts][:, :, ci]                               # (M, ni, mc)
        T = np.empty((n,) + EM.shape)
        np.multiply(dL[:, None], EM[None], out=T)                      # (n, M, ni, mc)
        T += ctx["BL"][:, :, pts][..., None]
        T += H[:, None]
        q = []
        for lo, hi in ((0, n0), (n0, n)):
            if self.K == 1:
                q.append(T[lo:hi].min(axis=0))
                continue
            m1 = np.minimum(T[lo], T[lo + 1])
            m2 = np.maximum(T[lo], T[lo + 1])
            aux = np.empty_like(m1)
            for l in range(lo + 2, hi):
                np.maximum(m1, T[l], out=aux)
                np.minimum(m2, aux, out=m2)
                np.minimum(m1, T[l], out=m1)
            q.append(m2)
        pred = (q[1] < q[0]).astype(np.int64)
        tie = q[1] == q[0]
        if tie.any():
            rows = T[:, tie].T                                         # (nt, n), by class
            pred[tie] = _vote_sorted(np.ascontiguousarray(rows)[:, ctx["inv"]], self.ct,
                                     self.K, self.g)
        return pred.transpose(2, 1, 0)

    def _mc_block(self, ctx, ci, pts) -> np.ndarray:
        """Row sums of :meth:`_mc_terms` in chunks of :data:`KNN_CHUNK` tensor elements."""
        n, M = ctx["perm"].size, ctx["E"].shape[2]
        out = np.zeros(ci.size)
        per = max(1, KNN_CHUNK // (M * n))                              # (candidate, point)s
        step_c = max(1, per // max(1, pts.size))
        if step_c > 1 or pts.size <= per:
            for s in range(0, ci.size, step_c):
                out[s:s + step_c] = self._mc_terms(ctx, ci[s:s + step_c], pts).sum(axis=1)
        else:
            for q in range(ci.size):
                for s in range(0, pts.size, per):
                    out[q] += self._mc_terms(ctx, ci[q:q + 1], pts[s:s + per]).sum()
        return out

    def _step_add(self, cols, cands):
        """Resubstitution errors of every candidate: counts (m,) and the indicator (n, m)."""
        cols = np.asarray(cols, dtype=np.int64)
        if self.K == 3 and self.g == 2 and self.kind != "count" and self._class_layout():
            return self._resub3_add(cols, cands)
        return self._count_values(self._dist(cols), cands, +1.0)

    def _resub3_add(self, cols, cands):
        """:meth:`_count_values` of a forward step for 3NN and two classes, from order
        statistics instead of a vote over all distances.

        In resubstitution a point is its own nearest neighbour (distance 0), so 3NN errs on
        ``x_i`` exactly when the second nearest point of the other class is nearer than the
        nearest other point of ``x_i``'s class: both order statistics come from
        :meth:`_kth_add` (pruned, exact), the first shared with the kernel widths. Equal
        statistics go to the vote on the sorted distances, as in :func:`knn_vote`."""
        k_new = cols.size + 1
        own = self._nn_add(cols, cands, k_new)                        # (n, m), class order
        D = self._sq_cached(cols)
        Dx = np.where(self._same, np.inf, D)
        other = self._kth_add(Dx, cands, min(NN_PRUNE + 2, self._cmin - 2), 2)
        wrong_c = other < own
        tie = other == own
        if tie.any():
            D0 = self._dist(cols)
            for i, q in zip(*np.nonzero(tie)):
                o = int(self._cperm[i])
                j = int(cands[q])
                row = D0[o] + np.square(self.Xe[o, j] - self.Xt[:, j])
                pred = _vote_sorted(row[None], self.ct, self.K, self.g)[0]
                wrong_c[i, q] = pred != self.ce[o]
        wrong = np.empty_like(wrong_c)
        wrong[self._cperm] = wrong_c
        return np.count_nonzero(wrong, axis=0).astype(float), wrong

    def values_add(self, cols, cands) -> np.ndarray:
        cols = np.asarray(cols, dtype=np.int64)
        cands = np.asarray(cands, dtype=np.int64)
        if not self.fast:
            return super().values_add(cols, cands)
        counts, wrong = self._step_add(cols, cands)
        if self.kind == "count":
            return counts
        ctx = self._mc_context(cols, cands, wrong)
        if ctx is None:
            return self._mc_values(cols, cands, +1.0, cols.size + 1, wrong)
        base = counts if self.kind == "semi" else np.zeros(cands.size)
        return base + self._mc_block(ctx, np.arange(cands.size), np.arange(self.Xt.shape[0]))

    def sums_add_bounded(self, cols, cands) -> np.ndarray:
        """:meth:`values_add` where a candidate can be the step's best, ``inf`` where it
        cannot (exact pruning, for the searches' forward steps, :meth:`Criterion.best_add`).

        Every term is >= 0, so a candidate's partial sum over some points (plus, in
        semi-bolstering, its misclassified points, 1 each) bounds its value from below. A few
        candidates with the fewest resubstitution errors are evaluated first; their best value
        ``U`` bounds the step's minimum from above. The others are then evaluated on blocks of
        points, the points that contributed most to the first candidates first, and dropped
        as soon as their partial sum exceeds ``U`` (with a margin of ``1e-9`` far above
        round-off). Every candidate that can reach the minimum, ties included, is evaluated
        on every point, so the step's choice, its value and its tie count are those of
        :meth:`values_add`."""
        cols = np.asarray(cols, dtype=np.int64)
        cands = np.asarray(cands, dtype=np.int64)
        if not self.fast or self.kind == "count":
            return self.values_add(cols, cands)
        counts, wrong = self._step_add(cols, cands)
        ctx = self._mc_context(cols, cands, wrong)
        if ctx is None:
            return self._mc_values(cols, cands, +1.0, cols.size + 1, wrong)
        n = self.Xt.shape[0]
        m = cands.size
        base = counts.astype(float) if self.kind == "semi" else np.zeros(m)
        first = np.argsort(base, kind="stable")[:PRUNE_FIRST]
        allpts = np.arange(n)
        if first.size * n * n * self.noise.n_draws <= KNN_CHUNK:
            tf = self._mc_terms(ctx, first, allpts)                     # (len(first), n)
        else:
            tf = np.vstack([self._mc_terms(ctx, first[q:q + 1], allpts)
                            for q in range(first.size)])
        out = np.full(m, np.inf)
        out[first] = base[first] + tf.sum(axis=1)
        bound = out[first].min() + 1e-9
        order = np.argsort(-tf.sum(axis=0), kind="stable")            # risky points first
        keep = base <= bound
        keep[first] = False
        alive = np.flatnonzero(keep)
        partial = base.copy()
        s = 0
        block = PRUNE_BLOCK
        while alive.size and s < n:
            pts = order[s:s + block]
            partial[alive] += self._mc_block(ctx, alive, pts)
            alive = alive[partial[alive] <= bound]
            s += pts.size
            block *= 2
        out[alive] = partial[alive]
        return out

    def values_remove(self, cols) -> np.ndarray:
        cols = np.asarray(cols, dtype=np.int64)
        k = cols.size
        if k <= 1:
            return np.array([self.value(np.zeros(0, dtype=np.int64))] * k)
        if not self.fast:
            return super().values_remove(cols)
        D = self._dist(cols)
        counts, wrong = self._count_values(D, cols, -1.0)
        if self.kind == "count":
            return counts
        return self._mc_values(cols, cols, -1.0, k - 1, wrong)


class CallablePart:
    """A user criterion ``criterion(X_subset, y) -> error``; the value is the error itself.

    The **empty subset** is never passed to the callable (a scikit-learn model cannot be fitted
    on zero features): its value is the error of the majority-class rule on ``y``
    (:func:`majority_error`), the error of a classifier that sees no feature, which is also
    what the built-in resubstitution criteria give the empty set. An exception raised by the
    callable is reported as one :class:`~stablefs.StablefsError` line naming the subset size
    and the exception.
    """

    kind = "callable"

    def __init__(self, X, y, fn: Callable):
        self.X, self.y, self.fn = X, y, fn
        self._empty = majority_error(y)

    def value(self, cols) -> float:
        cols = np.asarray(cols, dtype=np.int64)
        if cols.size == 0:
            return self._empty
        try:
            out = self.fn(self.X[:, cols], self.y)
        except Exception as exc:  # noqa: BLE001 - the user's code: reported, not hidden
            first = (str(exc).strip().splitlines() or [""])[0]
            raise StablefsError(
                f"the criterion callable raised {type(exc).__name__} on a subset of "
                f"{cols.size} feature(s) (columns {_first_columns(cols)}): {first}"
            ) from exc
        try:
            v = float(out)
        except (TypeError, ValueError) as exc:
            raise StablefsError(
                f"the criterion callable must return one number (an error, lower is better): "
                f"{exc}"
            ) from None
        if not np.isfinite(v):
            raise StablefsError(
                f"the criterion callable returned {v} for a subset of {cols.size} features: it "
                "must return a finite error."
            )
        return v

    def values_add(self, cols, cands):
        cols = list(np.asarray(cols, dtype=np.int64))
        return np.array([self.value(np.array(cols + [int(j)], dtype=np.int64)) for j in cands])


    def values_remove(self, cols):
        cols = np.asarray(cols, dtype=np.int64)
        return np.array([self.value(np.delete(cols, i)) for i in range(cols.size)])


def _first_columns(cols, limit: int = 5) -> str:
    shown = ", ".join(str(int(c)) for c in cols[:limit])
    return shown + (", ..." if cols.size > limit else "")


# ------------------------------------------------------------------------------- criterion


class Criterion:
    """``J(S)``: an error estimate of a feature subset, lower is better, with batched forward
    (:meth:`errors_add`) and backward (:meth:`errors_remove`) steps.

    Build one with :func:`make_criterion`. ``n_evaluations`` counts the subsets evaluated.
    """

    def __init__(self, parts: Sequence, denominator: float, n_features: int, description: str):
        self.parts = list(parts)
        self.denominator = float(denominator)
        self.n_features = int(n_features)
        self.description = description
        self.n_evaluations = 0

    def error(self, cols) -> float:
        """``J(cols)``."""
        self.n_evaluations += 1
        cols = np.asarray(cols, dtype=np.int64)
        return float(sum(p.value(cols) for p in self.parts) / self.denominator)

    def errors_add(self, cols, cands) -> np.ndarray:
        """``J(cols + {j})`` for every ``j`` in ``cands``."""
        cands = np.asarray(cands, dtype=np.int64)
        self.n_evaluations += cands.size
        if cands.size == 0:
            return np.zeros(0)
        total = np.zeros(cands.size)
        for p in self.parts:
            total += p.values_add(np.asarray(cols, dtype=np.int64), cands)
        return total / self.denominator

    def best_add(self, cols, cands) -> tuple[int, float, int]:
        """The best forward step of SFS / SFFS (Xiao, Hua and Dougherty 2007, App. A;
        ``reproduction-targets.md`` sec. 5.4): ``argmin_j J(cols + {j})``.

        Exactly :func:`~stablefs.selectors.wrappers._search.pick_min` of :meth:`errors_add`;
        a criterion of one Monte-Carlo part (the semi-bolstered 3NN criterion of seed 004)
        skips candidates that cannot be the minimum (:meth:`KNNPart.sums_add_bounded`).

        Parameters
        ----------
        cols : array-like of int
            The current subset ``S``.
        cands : array-like of int
            The candidates ``j``.

        Returns
        -------
        i : int
            Position in ``cands`` of the lowest ``J`` (ties within ``TIE_TOL``: the first).
        value : float
            ``J(cols + {cands[i]})``.
        ties : int
            Other candidates tied with it.
        """
        from stablefs.selectors.wrappers._search import pick_min

        cands = np.asarray(cands, dtype=np.int64)
        part = self.parts[0] if len(self.parts) == 1 else None
        if cands.size and hasattr(part, "sums_add_bounded"):
            self.n_evaluations += cands.size
            e = part.sums_add_bounded(np.asarray(cols, dtype=np.int64), cands) \
                / self.denominator
        else:
            e = self.errors_add(cols, cands)
        i, t = pick_min(e)
        return i, float(e[i]), t

    def errors_remove(self, cols) -> np.ndarray:
        """``J(cols - {x})`` for every ``x`` in ``cols`` (in the order of ``cols``)."""
        cols = np.asarray(cols, dtype=np.int64)
        self.n_evaluations += cols.size
        if cols.size == 0:
            return np.zeros(0)
        total = np.zeros(cols.size)
        for p in self.parts:
            total += p.values_remove(cols)
        return total / self.denominator


def _check_cv(cv) -> tuple[int, int]:
    """``cv`` as ``(repeats, folds)``: an int k is one k-fold partition; ``"RxK"`` is R
    repetitions of K-fold (``"5x2"``: the inner 5x2 cross-validation of seed-002 sec. 3.2)."""
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        if cv >= 2:
            return 1, int(cv)
    elif isinstance(cv, str):
        head, sep, tail = cv.lower().partition("x")
        if sep and head.strip().isdigit() and tail.strip().isdigit():
            r, k = int(head), int(tail)
            if r >= 1 and k >= 2:
                return r, k
    raise StablefsError(
        f"cv = {cv!r}: use a whole number of folds >= 2, or 'RxK' such as '5x2' (R repetitions "
        "of K-fold)."
    )


def make_criterion(X, y, *, estimator="lda", criterion="bolstered", cv=5, n_draws: int = 10,
                   random_state=None) -> Criterion:
    """The subset criterion ``J`` of a wrapper, bound to the data.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    estimator : str or scikit-learn classifier, default="lda"
        ``"lda"``, ``"svm"`` (linear, C = 1), ``"Knn"`` (e.g. ``"3nn"``) or a classifier.
    criterion : str or callable, default="bolstered"
        ``"bolstered"``, ``"semi-bolstered"``, ``"resubstitution"``, ``"cv"``, or a callable
        ``criterion(X_subset, y) -> error``.
    cv : int or str, default=5
        For ``criterion="cv"``: folds (one stratified partition) or ``"RxK"``.
    n_draws : int, default=10
        Monte-Carlo draws per point for bolstering rules without a closed form.
    random_state : int, Generator or None
        Seeds the cross-validation partitions and the bolstering draws (drawn once: every
        subset is judged on the same partitions and draws).

    Returns
    -------
    Criterion
    """
    X = np.ascontiguousarray(X, dtype=float)
    y = np.asarray(y)
    n, p = X.shape
    if callable(criterion) and not isinstance(criterion, str):
        return Criterion([CallablePart(X, y, criterion)], 1.0, p, "callable criterion")
    if not isinstance(criterion, str) or criterion not in CRITERIA:
        raise StablefsError(
            f"criterion = {criterion!r}: choose one of {', '.join(map(repr, CRITERIA))} or "
            "pass a callable criterion(X_subset, y) -> error."
        )
    ee = _ee()
    rule = ee.make_rule(estimator)
    classes, codes = np.unique(y, return_inverse=True)
    codes = codes.astype(np.int64)
    g = classes.size
    rng = np.random.default_rng(random_state) if not isinstance(
        random_state, np.random.Generator) else random_state
    cls = {"lda": LDAPart, "knn": KNNPart, "svm": SVMPart}.get(rule.kind, RulePart)
    if criterion == "cv":
        repeats, folds = _check_cv(cv)
        counts = np.bincount(codes, minlength=g)
        if folds > n:
            raise StablefsError(f"cv = {cv!r}: {folds} folds for {n} samples; use fewer folds.")
        parts = []
        for _ in range(repeats):
            fold = ee.stratified_folds(codes, folds, rng)
            for f in range(folds):
                test = np.flatnonzero(fold == f)
                train = np.flatnonzero(fold != f)
                parts.append(cls(X, codes, g, rule, "count", train=train, evl=test))
        desc = f"{rule.name} {repeats}x{folds}-fold cross-validation error"
        del counts
        return Criterion(parts, repeats * n, p, desc)
    if criterion == "resubstitution":
        return Criterion([cls(X, codes, g, rule, "count")], n, p, f"{rule.name} resubstitution")
    if not isinstance(n_draws, numbers.Integral) or isinstance(n_draws, bool) or n_draws < 1:
        raise StablefsError(f"n_draws = {n_draws!r}: use a whole number >= 1.")
    noise = Noise(int(rng.integers(2**63)), n, int(n_draws))
    kind = "semi" if criterion == "semi-bolstered" else "bolstered"
    desc = f"{rule.name} {criterion} resubstitution"
    return Criterion([cls(X, codes, g, rule, kind, noise=noise)], n, p, desc)


def majority_error(y) -> float:
    """Error of the majority-class rule on ``y`` (``J`` of the empty set, resubstitution)."""
    _, codes = np.unique(np.asarray(y), return_inverse=True)
    g = int(codes.max()) + 1
    return float(np.mean(codes != _ee().majority_code(codes, g)))
