"""Bolstering kernel widths of candidate subspaces (Braga-Neto and Dougherty 2004): per class,
the mean distance of its points to their nearest other point of the class, for every candidate
of a step at once (:class:`WidthMixin`), and the closed-form bolstered sums of linear rules.

Adding a feature only lengthens distances, so a point's nearest other point in ``S + {j}`` is
among its few nearest in ``S`` unless a bound check fails; the failing (point, candidate)
pairs are computed in full (exact).
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from stablefs.selectors.wrappers._criterion_base import CHUNK_ELEMENTS, _ee

#: neighbours kept per point by the pruned nearest-neighbour update (see WidthMixin._dhat)
NN_PRUNE = 6

#: a backward path's per-class distances (WidthMixin._class_sq_shrinking) are recomputed from
#: the features after this many removed features have been subtracted, which bounds the
#: round-off the subtractions accumulate
SHRINK_REFRESH = 64

#: forward-step nearest distances by the compiled kernel (WidthMixin._kth_compiled) instead
#: of the pruned NumPy updates (the same values bit for bit)
COMPILED = True


class WidthMixin:
    """Bolstering kernel widths of candidate subspaces from per-class distance matrices."""

    # set by the RulePart this is mixed into
    Xt: np.ndarray
    ct: np.ndarray
    g: int
    kind: str

    def _init_classes(self) -> None:
        self._class_idx = [np.flatnonzero(self.ct == c) for c in range(self.g)]
        self._XT = np.ascontiguousarray(self.Xt.T)                    # (p, nt)
        self._sgn = (2 * self.ct - 1).astype(float)
        self._layout: bool | None = None                              # see _class_layout
        self._nn_memo: tuple | None = None
        self._dc_key: bytes | None = None
        self._dc: np.ndarray | None = None

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
                self._wbuf: np.ndarray | None = None                 # see _window_layout
        return bool(self._layout)

    @property
    def _same(self) -> np.ndarray:
        """``(n, n)``: the two points (class order) are of the same class (built on first
        use)."""
        same = self.__dict__.get("_same_classes")
        if same is None:
            cls = self.ct[self._cperm]
            same = self.__dict__["_same_classes"] = cls[:, None] == cls[None, :]
        return same

    def _window_layout(self):
        """The buffers of the NumPy :meth:`_nn_add` (built on its first use): the same-class
        distances side by side (``_wbuf``: row i holds i's class block, inf on i itself and
        past the end of a smaller class) and ``_Xw`` (row u: feature j of the u-th point of
        each class at column q p + j, q the class's rank, zero past a smaller class's
        end)."""
        if self._wbuf is not None:
            return
        sizes = np.array([idx.size for idx in self._class_idx])
        present = sizes[sizes > 0]
        cls = self.ct[self._cperm]
        n, w = cls.size, int(present.max())
        s0 = self._cstart_all[cls]                                           # (n,)
        self._wbuf = np.full((n, w), np.inf)
        self._wself = np.arange(n) * w + (np.arange(n) - s0)
        self._wrow = np.arange(n)[:, None] * w
        self._wstart = s0[:, None]
        p = self._XTc.shape[0]
        self._Xw = np.zeros((w, present.size * p))
        for q, (a, nc) in enumerate(zip(self._cstart, present)):
            self._Xw[:nc, q * p:(q + 1) * p] = self._Xc[a:a + nc]
        self._wcol0 = np.repeat(np.arange(present.size) * p, present)      # (n,)

    def _sq_cached(self, cols) -> np.ndarray:
        """Squared distances over ``cols`` between all training points in class order
        (:meth:`_class_layout`), updated by one feature from the previous call's when
        ``cols`` extends it by one feature (a forward step after a forward step)."""
        key = cols.tobytes()
        if key == self._dc_key and self._dc is not None:
            return self._dc
        if cols.size and self._dc_key == cols[:-1].tobytes():
            v = self._XTc[int(cols[-1])]
            D = v[:, None] - v[None, :]
            D *= D
            D += self._dc
        else:
            Xk = self._Xc[:, cols]
            D = _ee().sq_distances(Xk, Xk)
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

    def _class_sq_shrinking(self, cols) -> list[np.ndarray]:
        """:meth:`_class_sq` of ``cols`` for a backward path: when ``cols`` is the previous
        call's subset less a few features, their squared differences are subtracted from the
        previous distances (``O(n^2)`` per feature instead of ``O(n^2 k)``); recomputed from
        the features every :data:`SHRINK_REFRESH` removed features."""
        memo = self.__dict__.get("_shrink_memo")
        if memo is not None:
            prev, Dc, removed = memo
            if prev.size > cols.size and prev.size - cols.size + removed <= SHRINK_REFRESH:
                gone = prev[~np.isin(prev, cols)]
                if gone.size == prev.size - cols.size:   # cols is prev less ``gone``
                    for c, idx in enumerate(self._class_idx):
                        for f in gone:
                            v = self._XT[f, idx]
                            d = v[:, None] - v[None, :]
                            Dc[c] -= d * d
                    self._shrink_memo = (cols.copy(), Dc, removed + gone.size)
                    return Dc
        Dc = self._class_sq(cols)
        self._shrink_memo = (cols.copy(), Dc, 0)
        return Dc

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

    def _kth_compiled(self, D, J, own: bool, kth: int) -> np.ndarray:
        """:meth:`_nn_add` (``own``: each point's class) or :meth:`_kth_add` on the other
        class of two (``not own``) by the compiled kernel
        (:func:`~stablefs.selectors.wrappers._wrapper_kernels.kth_smallest_add`): the same
        sums and order statistics, every pair, no pruning."""
        from stablefs.selectors.wrappers._wrapper_kernels import kth_smallest_add  # Numba

        if getattr(self, "_ranges", None) is None:
            cls = self.ct[self._cperm]
            lo = self._cstart_all[cls].astype(np.int64)
            hi = lo + np.bincount(self.ct, minlength=self.g)[cls]
            n = cls.size
            olo = np.where(cls == 0, hi, 0).astype(np.int64)         # two classes: the other
            ohi = np.where(cls == 0, n, lo).astype(np.int64)
            self._ranges = (lo, hi.astype(np.int64), olo, ohi)
        lo, hi, olo, ohi = self._ranges
        Jx = np.arange(self._XTc.shape[0], dtype=np.int64) if isinstance(J, slice) else \
            np.ascontiguousarray(J, dtype=np.int64)
        return kth_smallest_add(D, self._XTc, Jx, lo if own else olo, hi if own else ohi, kth)

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
        if COMPILED:
            q = self._kth_compiled(D, J, own=True, kth=1)
            self._nn_memo = (key, q)
            return q
        self._window_layout()
        W = self._wbuf                                                # (n, w)
        assert W is not None  # built by _window_layout
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
            D = _ee().sq_distances(Xc, Xc)
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
