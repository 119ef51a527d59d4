"""The kNN criterion part: squared distances updated by one feature, Monte-Carlo bolstering
with common random numbers, pruned forward steps (see :mod:`._criteria`)."""

from __future__ import annotations

import numpy as np

from stablefs.selectors.wrappers import _bolstering_widths as widths
from stablefs.selectors.wrappers._bolstering_widths import NN_PRUNE, WidthMixin
from stablefs.selectors.wrappers._criterion_base import CHUNK_ELEMENTS, RulePart, _ee

#: elements per temporary (candidates, points, draws, neighbours) tensor of KNNPart._mc_terms
KNN_CHUNK = 2**20

#: the two-class 1NN/3NN vote by running order statistics (KNNPart._vote_lfirst) instead of
#: a partition of every row
LFIRST = True

#: the running order statistics by the compiled kernel (KNNPart._errors_compiled) instead of
#: NumPy passes over the (neighbours, draws, points, candidates) tensor
COMPILED = True

#: doubles per vector body of the compiled vote's candidate loops: a block of candidates that
#: would leave 3 or more of them to the scalar remainder loop is padded to a multiple of this
#: (measured on 50 points at n = 50: 6 candidates took 189 us, 8 candidates 105 us)
LANES = 8

#: candidates evaluated in full before the others are pruned (KNNPart.sums_add_bounded; two
#: vector bodies: SFS of 10 from 200 at N = 50 took 18.9 ms with 6, 17.3 ms with 16)
PRUNE_FIRST = 16

#: points in the first block of the pruned evaluation (doubled at every block)
PRUNE_BLOCK = 4


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


class KNNPart(RulePart, WidthMixin):
    """kNN with squared distances updated by one feature (see the module docstring)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.K = self.rule.k
        self._ct64 = np.ascontiguousarray(self.ct, dtype=np.int64)  # the kernel's class codes
        counts = np.bincount(self.ct, minlength=self.g)
        self.fast = bool(np.count_nonzero(counts) >= 2)
        self._init_classes()

    def _dist(self, cols):
        return _ee().sq_distances(self.Xe[:, cols], self.Xt[:, cols])

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
        Xl = Xk[perm]
        A = np.empty((n, n))
        B = np.empty((n, M, n))
        rows = max(1, CHUNK_ELEMENTS // max(1, n * cols.size))  # memory bounded in k
        for s in range(0, n, rows):
            delta = Xk[s:s + rows, None, :] - Xl[None, :, :]            # (rows, n, k), l permuted
            A[s:s + rows] = np.square(delta).sum(axis=2)                # (n, n)
            B[s:s + rows] = np.einsum("ilf,imf->iml", delta, eps_S[s:s + rows])  # (n, M, n)
        C = np.square(eps_S).sum(axis=2)                                # (n, M)
        Dc = self._class_sq_cached(cols)
        sig = self._sigmas(Dc, cj, sign, dim)                           # (n, m)
        out = np.empty(cj.size)
        step = max(1, CHUNK_ELEMENTS // (n * M * n))
        two_class = self.g == 2 and self.K % 2 == 1 and 0 < n0 < n
        srank = (self.K + 1) // 2
        XT = self._XT                                                   # (p, n)
        compiled = COMPILED and sign < 0 and two_class and self.K in (1, 3)
        for s in range(0, cj.size, step):
            sl = slice(s, s + step)
            js = cj[sl]
            if compiled:
                terms = self._remove_errors_compiled(js, sig[:, sl], perm, n0, A, B, C) / M
                if self.kind == "semi":
                    terms = np.where(wrong[:, sl].T, 1.0, terms)
                out[sl] = terms.sum(axis=1)
                continue
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

    def _remove_errors_compiled(self, js, sig, perm, n0, A, B, C) -> np.ndarray:
        """Misclassified draws ``(len(js), n)`` of every point in ``S - {j}`` for the members
        ``js`` of ``S`` (``sig`` (n, len(js)) their kernel widths), by the compiled kernel
        (:func:`~stablefs.selectors.wrappers._wrapper_kernels.mc_errors_remove_two_class`:
        :meth:`_mc_values`' distances operation for operation, equal statistics decided by
        the same stable order, so the same votes bit for bit)."""
        from stablefs.selectors.wrappers._wrapper_kernels import (  # Numba
            _padded,
            mc_errors_remove_two_class,
        )

        mc = js.size
        lanes = np.ascontiguousarray(js, dtype=np.int64)
        sig = np.ascontiguousarray(sig)
        pad = _padded(mc, LANES) - mc  # copies of the first member, dropped below
        if pad:
            lanes = np.concatenate([lanes, np.full(pad, lanes[0])])
            sig = np.concatenate([sig, np.repeat(sig[:, :1], pad, axis=1)], axis=1)
        assert self.noise is not None  # bolstered by Monte Carlo: the part has draws
        wrong = mc_errors_remove_two_class(self.Xt, lanes, perm, n0, A, B, C,
                                           self.noise.block(js), sig, self.K, self._ct64)
        return np.ascontiguousarray(wrong[:mc])

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
        assert self.noise is not None  # bolstered by Monte Carlo: the part has draws
        eps_S = self.noise.get(cols)                                    # (n, M, k)
        A = np.square(Xk[:, None, :] - Xk[perm][None, :, :]).sum(axis=2)
        B = np.einsum("imf,if->im", eps_S, Xk)[:, :, None] - eps_S @ Xk[perm].T
        n0 = int(np.count_nonzero(self.ct == 0))
        skip = wrong if self.kind == "semi" else np.zeros(wrong.shape, dtype=bool)
        return {"cands": cands, "perm": perm, "inv": inv, "n0": n0, "A": A, "B": B,
                "NB": self.noise.block(cands),                          # (p', n, M)
                "half_inv_sig": 0.5 / sig, "wrong": wrong,
                "skip": np.ascontiguousarray(skip),
                "two": self.g == 2 and self.K % 2 == 1 and 0 < n0 < n}

    @staticmethod
    def _tensor(ctx, key) -> np.ndarray:
        """The NumPy paths' layouts of a step's draws and ``B``, made on first use: ``"E"``
        the candidates' draws ``(m, n, M)``, ``"EM"`` the same as ``(M, n, m)``, ``"BL"``
        ``B`` as ``(n_l, M, n_i)``."""
        if key not in ctx:
            if key == "E":
                ctx[key] = ctx["NB"][ctx["cands"]]
            elif key == "EM":
                ctx[key] = np.ascontiguousarray(KNNPart._tensor(ctx, "E").transpose(2, 1, 0))
            else:
                ctx[key] = np.ascontiguousarray(ctx["B"].transpose(2, 1, 0))
        return ctx[key]

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
            if COMPILED:  # the same terms: count / M is np.mean's sum / M of the indicators
                assert self.noise is not None  # bolstered by Monte Carlo: the part has draws
                return self._errors_compiled(ctx, ci, pts) / self.noise.n_draws
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
        T = self._tensor(ctx, "E")[ci][:, pts, :, None] * d[:, :, None, :]  # (mc, ni, M, n)
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

    def _errors_compiled(self, ctx, ci, pts) -> np.ndarray:
        """Misclassified draws per candidate and point, shape ``(len(ci), len(pts))``, by the
        compiled kernel without a bound
        (:func:`~stablefs.selectors.wrappers._wrapper_kernels.mc_pruned_sums`: each value
        computed with :meth:`_vote_lfirst`'s operations and equal statistics decided by the
        same stable order, so the same votes bit for bit). Semi-bolstering's misclassified
        points count 0. A view of a points-major array, so that the candidates' sums over the
        points add in the order they always did (NumPy sums a strided axis left to right)."""
        from stablefs.selectors.wrappers._wrapper_kernels import mc_pruned_sums  # Numba

        ci = np.ascontiguousarray(ci, dtype=np.int64)
        pts = np.ascontiguousarray(pts, dtype=np.int64)
        counts = np.zeros((pts.size, ci.size), dtype=np.int64)
        mc_pruned_sums(self.Xt, ctx["cands"][ci], ci, pts, ctx["perm"], ctx["n0"], ctx["A"],
                       ctx["B"], ctx["NB"], ctx["half_inv_sig"], self.K, self._ct64,
                       ctx["skip"], np.zeros(ci.size), np.inf, LANES, counts)
        return counts.T

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
        EM = self._tensor(ctx, "EM")[:, pts][:, :, ci]                 # (M, ni, mc)
        T = np.empty((n,) + EM.shape)
        np.multiply(dL[:, None], EM[None], out=T)                      # (n, M, ni, mc)
        T += self._tensor(ctx, "BL")[:, :, pts][..., None]
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
        n, M = ctx["perm"].size, ctx["NB"].shape[2]
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
        if widths.COMPILED:
            other = self._kth_compiled(D, cands, own=False, kth=2)
        else:
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
        ``U`` bounds the step's minimum from above. The others are then evaluated point by
        point (compiled, :func:`~stablefs.selectors.wrappers._wrapper_kernels.mc_pruned_sums`;
        the NumPy path on blocks of points), the points that contributed most to the first
        candidates first, and dropped as soon as their partial sum exceeds ``U`` (with a
        margin of ``1e-9`` far above round-off). Every candidate that can reach the minimum,
        ties included, is evaluated on every point, so the step's choice, its value (to
        round-off: the pruned candidates' sums add their points in another order, about 1e-16
        apart) and its tie count are those of :meth:`values_add`."""
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
        assert self.noise is not None  # bolstered by Monte Carlo: the part has draws
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
        if ctx["two"] and self.K in (1, 3) and LFIRST and COMPILED and alive.size:
            from stablefs.selectors.wrappers._wrapper_kernels import mc_pruned_sums  # Numba

            partial = np.ascontiguousarray(base[alive])
            done, _ = mc_pruned_sums(self.Xt, ctx["cands"][alive], alive, order, ctx["perm"],
                                     ctx["n0"], ctx["A"], ctx["B"], ctx["NB"],
                                     ctx["half_inv_sig"], self.K, self._ct64, ctx["skip"],
                                     partial, bound, LANES, np.zeros((0, 0), np.int64))
            out[alive[done]] = partial[done]
            return out
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
