"""The compiled wrapper-criterion kernels against their NumPy references (``_wrapper_kernels``)."""

from __future__ import annotations

import numpy as np
import pytest

import stablefs.selectors.wrappers._knn_criterion as K
from libsvm_helpers import libsvm_fit
from stablefs.selectors.wrappers import make_criterion, sffs, sfs

#: libsvm's iteration limit for up to 100,000 points
MAX_ITER = 10_000_000


def _data(n0, n1, p, seed, shift=0.8, informative=3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n0 + n1, p))
    y = np.r_[np.zeros(n0, dtype=int), np.ones(n1, dtype=int)]
    X[y == 1, :informative] += shift
    return X, y


def _contexts(X, y, estimator, criterion, seed):
    crit = make_criterion(X, y, estimator=estimator, criterion=criterion, random_state=seed)
    part = crit.parts[0]
    p = X.shape[1]
    for cols in ([], [3], [3, 7, 1], [3, 7, 1, 0, 5]):
        cols = np.asarray(cols, dtype=np.int64)
        cands = np.setdiff1d(np.arange(p), cols)
        counts, wrong = part._step_add(cols, cands)
        ctx = part._mc_context(cols, cands, wrong)
        if ctx is not None:
            yield part, ctx, cands


@pytest.mark.parametrize("estimator", ["1nn", "3nn"])
@pytest.mark.parametrize("criterion", ["semi-bolstered", "bolstered"])
@pytest.mark.parametrize("rounded", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compiled_errors_equal_the_numpy_votes_bit_for_bit(estimator, criterion, rounded, seed,
                                                            monkeypatch):
    # the kernel's counts (equal statistics decided by its stable order) against the NumPy
    # running order statistics over the (neighbours, draws, points, candidates) tensor (equal
    # statistics by the sorted vote), on arbitrary candidate and point subsets; rounded data
    # give equal statistics
    X, y = _data(11 + seed, 13, 10, seed=50 + seed)
    if rounded:
        X = np.round(2 * X) / 2
        X[4] = X[2]
    rng = np.random.default_rng(seed)
    sorted_votes = []
    vote = K._vote_sorted
    monkeypatch.setattr(K, "_vote_sorted",
                        lambda rows, *a: sorted_votes.append(len(rows)) or vote(rows, *a))
    checked = skipped = 0
    for part, ctx, cands in _contexts(X, y, estimator, criterion, seed):
        ci = np.sort(rng.choice(cands.size, size=max(1, cands.size - 2), replace=False))
        pts = rng.permutation(X.shape[0])[:17]
        fast = part._errors_compiled(ctx, ci, pts)
        pred = part._vote_lfirst(ctx, ci, pts)                      # (mc, ni, M)
        ref = np.count_nonzero(pred != part.ct[pts][None, :, None], axis=2)
        mask = ctx["wrong"][np.ix_(pts, ci)].T
        if criterion == "semi-bolstered":
            ref[mask] = 0
            skipped += int(np.count_nonzero(mask))
        else:
            assert not ctx["skip"].any()
        assert fast.shape == ref.shape and fast.dtype == np.int64
        assert np.array_equal(fast, ref)
        assert np.array_equal(part._mc_terms(ctx, ci, pts), ref / part.noise.n_draws)
        checked += 1
    assert checked >= 2
    if rounded and estimator == "1nn":
        assert sum(sorted_votes) > 0  # equal statistics occurred (the NumPy path sorted them)
    if criterion == "semi-bolstered" and estimator == "3nn":
        assert skipped > 0  # so is the skip of misclassified points (1NN has none)


def _reference_errors(Xt, js, ci, pts, perm, n0, A, B, NB, his, K, ct, skip):
    """The kernel's definition, one draw at a time: each class's ``(K + 1)/2``-th smallest
    key (inf for a smaller class) decides the vote; on equality the ``K`` nearest by key and
    training index vote. Returns the counts ``(ni, mc)`` and the number of equalities."""
    r = (K + 1) // 2
    M = NB.shape[2]
    wrong = np.zeros((pts.size, js.size), dtype=np.int64)
    ties = 0
    for c, (j, cc) in enumerate(zip(js, ci)):
        for ii, i in enumerate(pts):
            if skip[i, cc]:
                continue
            d = Xt[i, j] - Xt[perm, j]
            h = (d * d + A[i]) * his[i, cc]
            for m in range(M):
                t = (d * NB[j, i, m] + B[i, m]) + h
                q = [np.sort(part)[r - 1] if part.size >= r else np.inf
                     for part in (t[:n0], t[n0:])]
                if q[1] == q[0]:
                    ties += 1
                    nearest = np.lexsort((perm, t))[:K]
                    vote = int(2 * ct[perm[nearest]].sum() > nearest.size)
                else:
                    vote = int(q[1] < q[0])
                wrong[ii, c] += vote != ct[i]
    return wrong, ties


def _kernel_counts(Xt, js, ci, pts, perm, n0, A, B, NB, his, K, ct, skip):
    """The compiled kernel without a bound: the counts ``(ni, mc)`` of every pair."""
    from stablefs.selectors.wrappers._wrapper_kernels import mc_pruned_sums

    counts = np.zeros((pts.size, js.size), dtype=np.int64)
    alive, _ = mc_pruned_sums(Xt, js, ci, pts, perm, n0, A, B, NB, his, K, ct, skip,
                              np.zeros(js.size), np.inf, 8, counts)
    assert alive.all()
    return counts


@pytest.mark.parametrize("K", [1, 3])
@pytest.mark.parametrize("n0, n", [(6, 11), (1, 7), (5, 6), (3, 3)])
def test_kernel_equals_its_definition(K, n0, n):
    # small classes (one point: no second neighbour for 3NN), an empty class, integer data
    # (equal statistics), skipped pairs; arbitrary candidate and point subsets
    rng = np.random.default_rng(10 * K + n0 + n)
    p, M = 7, 4
    Xt = rng.integers(-2, 3, (n, p)).astype(float)
    perm = rng.permutation(n)
    ct = np.zeros(n, dtype=np.int64)
    ct[perm[n0:]] = 1
    A = rng.integers(0, 4, (n, n)).astype(float)
    B = rng.integers(-2, 3, (n, M, n)).astype(float)
    NB = rng.standard_normal((p, n, M))
    his = rng.random((n, 5)) + 0.5
    skip = rng.random((n, 5)) < 0.2
    js = np.array([0, 3, 6], dtype=np.int64)
    ci = np.array([0, 2, 4], dtype=np.int64)
    pts = rng.permutation(n)[:max(1, n - 1)].astype(np.int64)
    args = (Xt, js, ci, pts, perm.astype(np.int64), n0, A, B, NB, his, K, ct, skip)
    ref, _ = _reference_errors(*args)
    assert np.array_equal(_kernel_counts(*args), ref)
    NB[:] = np.round(NB)  # integer values: many equal statistics
    ref, ties = _reference_errors(*args)
    assert np.array_equal(_kernel_counts(*args), ref)
    r = (K + 1) // 2
    if min(n0, n - n0) >= r:
        assert ties > 0
        # every key equal: every draw's vote is its K lowest training indices'
        flat = (np.zeros_like(Xt), js, ci, pts, perm.astype(np.int64), n0, np.zeros_like(A),
                np.zeros_like(B), np.zeros_like(NB), his, K, ct, skip)
        ref, ties = _reference_errors(*flat)
        assert np.array_equal(_kernel_counts(*flat), ref)
        assert ties == M * np.count_nonzero(~skip[np.ix_(pts, ci)])
        vote = int(2 * ct[:K].sum() > K)
        evaluated = ~skip[np.ix_(pts, ci)].T
        assert np.array_equal(ref.T, np.where(evaluated, M * (ct[pts] != vote)[None, :], 0))
    else:  # a class without its order statistic never wins and never ties
        assert ties == 0
        winner = 0 if n - n0 < r else 1
        evaluated = ~skip[np.ix_(pts, ci)].T
        got = _kernel_counts(*args)
        assert np.array_equal(got.T, np.where(evaluated, M * (ct[pts] != winner)[None, :], 0))


@pytest.mark.parametrize("criterion", ["semi-bolstered", "bolstered"])
@pytest.mark.parametrize("seed", range(4))
def test_searches_with_the_compiled_vote_equal_the_numpy_ones(criterion, seed, monkeypatch):
    X, y = _data(12 + seed, 14, 24, seed=70 + seed, informative=5, shift=0.7)
    out = {}
    for compiled in (True, False):
        monkeypatch.setattr(K, "COMPILED", compiled)
        out[compiled] = [search(make_criterion(X, y, estimator="3nn", criterion=criterion,
                                               random_state=seed), 6) for search in (sfs, sffs)]
    for a, b in zip(out[True], out[False]):
        assert a.moves == b.moves and a.ties == b.ties
        # the compiled pruning adds a candidate's points one at a time, the NumPy one by block
        np.testing.assert_allclose(a.errors, b.errors, rtol=0, atol=1e-14)


@pytest.mark.parametrize("estimator", ["1nn", "3nn"])
@pytest.mark.parametrize("criterion", ["semi-bolstered", "bolstered"])
@pytest.mark.parametrize("rounded", [False, True])
def test_compiled_backward_step_equals_the_numpy_one_bit_for_bit(estimator, criterion, rounded,
                                                                 monkeypatch):
    # every member of S removed in turn: the kernel's counts (ties by the sorted vote) against
    # the partition of the NumPy distances, 1 to 11 members (lanes padded or not)
    X, y = _data(12, 14, 16, seed=90, informative=4)
    if rounded:
        X = np.round(2 * X) / 2
        X[5] = X[3]
    crit = make_criterion(X, y, estimator=estimator, criterion=criterion, random_state=4)
    part = crit.parts[0]
    sorted_votes = []
    vote = K._vote_sorted
    monkeypatch.setattr(K, "_vote_sorted",
                        lambda rows, *a: sorted_votes.append(len(rows)) or vote(rows, *a))
    for cols in ([2, 9], [2, 9, 4], [0, 1, 2, 3, 5, 8, 13], list(range(11)),
                 [15, 3, 7, 1, 12, 6, 10, 0, 9, 2, 11]):
        cols = np.asarray(cols, dtype=np.int64)
        monkeypatch.setattr(K, "COMPILED", True)
        fast = part.values_remove(cols)
        monkeypatch.setattr(K, "COMPILED", False)
        slow = part.values_remove(cols)
        assert np.array_equal(fast, slow), cols
    if rounded and estimator == "1nn":
        assert sum(sorted_votes) > 0  # equal statistics occurred (the NumPy path sorted them)


# ------------------------------------------------------------------------------ linear SVM


def _svm_problem(seed):
    # sizes 4..60, 1..12 features, separable and overlapping classes, integer data (ties in
    # the working-set choice), unequal classes
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(4, 61)), int(rng.integers(1, 13))
    X = rng.standard_normal((n, k))
    codes = (rng.random(n) < rng.uniform(0.2, 0.8)).astype(np.int64)
    codes[:2] = (0, 1)
    X[codes == 1, :2] += 3 * rng.random()
    if seed % 4 == 0:
        X = np.round(X)
    return X, codes


@pytest.mark.parametrize("block", range(4))
def test_compiled_smo_equals_libsvm_bit_for_bit(block):
    """libsvm's SMO step for step: on the same kernel matrix (libsvm given it precomputed) the
    same support vectors, dual coefficients and offset to the last bit, on every machine, after
    as many iterations as libsvm counts (``SVC.n_iter_``)."""
    from stablefs.selectors._smo import svc_dual
    from stablefs.selectors.wrappers._wrapper_kernels import linear_kernel

    for seed in range(60 * block, 60 * (block + 1)):
        X, codes = _svm_problem(seed)
        sup, dual, intercept, _, n_iter = libsvm_fit(linear_kernel(np.ascontiguousarray(X)),
                                                     codes, kernel="precomputed")
        order = np.argsort(codes, kind="stable")
        ysign = np.where(codes[order] == 0, 1, -1).astype(np.int64)
        coef, rho, ours = svc_dual(linear_kernel(np.ascontiguousarray(X[order])), ysign, 1.0,
                                   1e-3, MAX_ITER)
        nz = np.flatnonzero(coef)
        assert np.array_equal(order[nz], sup), seed
        assert np.array_equal(coef[nz], dual), seed
        assert -rho == intercept, seed
        assert ours == n_iter, seed


def test_compiled_smo_equals_scikit_learn_on_the_data_to_round_off():
    """On the data themselves scikit-learn's libsvm forms the linear kernel with BLAS ``ddot``,
    whose summation order depends on the CPU (OpenBLAS picks its kernel at run time: on an
    AVX-512 machine it differs from the left-to-right sum in 139 of these 240 problems); the
    solutions then agree to round-off, with the same support vectors."""
    from stablefs.selectors._smo import svc_dual
    from stablefs.selectors.wrappers._wrapper_kernels import linear_kernel

    for seed in range(240):
        X, codes = _svm_problem(seed)
        sup, dual, intercept, _, _ = libsvm_fit(X, codes)
        order = np.argsort(codes, kind="stable")
        ysign = np.where(codes[order] == 0, 1, -1).astype(np.int64)
        coef, rho, _ = svc_dual(linear_kernel(np.ascontiguousarray(X[order])), ysign, 1.0, 1e-3,
                                MAX_ITER)
        nz = np.flatnonzero(coef)
        assert np.array_equal(order[nz], sup), seed
        np.testing.assert_allclose(coef[nz], dual, rtol=0, atol=1e-12, err_msg=str(seed))
        assert abs(-rho - intercept) <= 1e-12, seed


def test_candidate_kernels_are_the_kernels_of_the_extended_subsets():
    # K_S + x_j x_j^T equals the left-to-right kernel of S + [j] bit for bit, so every
    # candidate's SVM is libsvm's on the columns S + [j]; the margins equal linear_svm's to
    # round-off (the direction is summed in a fixed order, not by BLAS)
    from stablefs.selectors.wrappers._error_estimators import linear_svm
    from stablefs.selectors.wrappers._wrapper_kernels import linear_kernel, svc_margins_add

    X, y = _data(14, 17, 9, seed=5, informative=3, shift=1.0)
    cols = [4, 0, 7]
    cands = np.array([1, 2, 3, 5, 6, 8])
    XS = np.ascontiguousarray(X[:, cols])
    for j in cands:
        full = np.ascontiguousarray(X[:, cols + [int(j)]])
        assert np.array_equal(linear_kernel(XS) + np.outer(X[:, j], X[:, j]),
                              linear_kernel(full))
    order = np.argsort(y, kind="stable")
    ysign = np.where(y[order] == 0, 1, -1).astype(np.int64)
    diff, norm, _ = svc_margins_add(np.ascontiguousarray(XS[order]),
                                    np.ascontiguousarray(X[order][:, cands]), ysign, 1.0, 1e-3,
                                    MAX_ITER)
    for q, j in enumerate(cands):
        Xs = X[:, cols + [int(j)]]
        a, b = linear_svm(Xs, y)
        np.testing.assert_allclose(diff[q], (Xs @ a + b)[order], rtol=1e-12, atol=1e-12)
        assert norm[q] == pytest.approx(np.sqrt(a @ a), rel=1e-13)


def _removal_data(kind, seed):
    X, y = _data(9 + seed % 5, 12, 16, seed=300 + seed, informative=4, shift=0.9)
    if kind == "scaled":
        X *= 10.0 ** (seed % 5 - 3)
    elif kind == "positive":  # intensities: every kernel entry large and positive
        X = np.abs(X) * 3.0 + 7.0
    elif kind == "rounded":  # exact kernels, equal entries
        X = np.round(2 * X) / 2
        X[5] = X[2]
    elif kind == "midpoints":
        # kernels of the columns without column 2 fall on midpoints between single-precision
        # numbers (1 + 2^-24 + multiples of 2^-12): no entry can be certified by the bound
        # and each is summed; columns of zeros and of equal values
        rng = np.random.default_rng(seed)
        X[:, 0] = 1.0
        X[:, 1] = 2.0**-12
        X[:, 3] = rng.choice([-1.0, 0.0, 1.0, 2.0], size=X.shape[0]) * 2.0**-6
        X[:, 4:] = 0.0
    return X, y


@pytest.mark.parametrize("kind", ["normal", "scaled", "positive", "rounded", "midpoints"])
@pytest.mark.parametrize("seed", range(5))
def test_removal_steps_equal_the_refits_bit_for_bit(kind, seed):
    # the backward step's SVMs on kernels downdated from K_S, with every single-precision Q
    # entry certified by the rounding-error bound or summed, against the refit of every
    # subset S - {q}: the same margins and norms to the last bit (so the same errors, moves
    # and ties); the midpoint data force the summed entries
    from stablefs.selectors.wrappers._wrapper_kernels import svc_duals_remove

    X, y = _removal_data(kind, seed)
    part = make_criterion(X, y, estimator="svm", criterion="bolstered",
                          random_state=seed).parts[0]
    cols = np.random.default_rng(seed).permutation(X.shape[1])[:12]
    if kind == "midpoints":
        cols = np.r_[0, 1, 2, 3, cols[~np.isin(cols, [0, 1, 2, 3])][:4]]
    diff, norm = part._fits([np.delete(cols, q) for q in range(cols.size)])
    fast, fast_norm = part._fits_remove(cols)
    assert np.array_equal(fast, diff) and np.array_equal(fast_norm, norm)
    if kind == "midpoints":
        Xg = np.ascontiguousarray(part.Xt[np.ix_(part._gorder, cols)])
        assert svc_duals_remove(Xg, part._gsign, 1.0, 1e-3, -1)[3] > 0


def test_certified_q_is_libsvms_q_of_the_reduced_kernel():
    # Q and QD of S - {q} from the downdate against svc_dual's, formed from the kernel of
    # the columns themselves. Points 0 and 1 are built so that the plain downdate rounds to
    # the wrong single-precision number: over the first three columns their kernel is
    # 1 + 2^-24 + 2^-30 (just above a midpoint, so 1 + 2^-23), but with the fourth
    # column's 2^30 the float64 sum over S loses the small terms and K_S - 2^30 = 1
    from stablefs.selectors.wrappers._wrapper_kernels import _certified_q, linear_kernel

    rng = np.random.default_rng(7)
    X = rng.standard_normal((9, 6))
    X[0, :4] = X[1, :4] = [1.0, 2.0**-12, 2.0**-15, 2.0**15]
    X[1, 4:] = 0.0
    X[0, 4:] = [3.0, 1.0]
    ysign = np.array([1, 1, 1, 1, -1, -1, -1, -1, -1], dtype=np.int64)
    n, k = X.shape
    KS = linear_kernel(X)
    P = np.zeros((k, n))
    for f in range(1, k):
        for a in range(n):
            P[f, a] = P[f - 1, a] + X[a, f - 1] * X[a, f - 1]
    Q = np.empty((n, n), dtype=np.float32)
    QD = np.empty(n)
    for q in range(k):
        K = linear_kernel(np.ascontiguousarray(np.delete(X, q, axis=1)))
        _certified_q(KS, X, ysign, q, Q, QD, P)
        assert np.array_equal(Q, (np.outer(ysign, ysign) * K).astype(np.float32)), q
        assert np.array_equal(QD, np.diagonal(K)), q
    K3 = linear_kernel(np.ascontiguousarray(X[:, :3]))[0, 1]
    assert K3 == 1 + 2.0**-24 + 2.0**-30 and np.float32(K3) == np.float32(1 + 2.0**-23)
    assert np.float32(KS[0, 1] - X[0, 3] * X[1, 3]) == np.float32(1.0)  # the plain downdate


@pytest.mark.parametrize("seed", range(3))
def test_backward_svm_searches_keep_their_moves(seed, monkeypatch):
    # SBS and SFFS (its conditional exclusions) with the downdated removal steps against the
    # refits of before (the same compiled solver on each subset's own kernel)
    import stablefs.selectors.wrappers._svm_criterion as S
    from stablefs.selectors.wrappers import sbs

    X, y = _data(13, 15, 20, seed=400 + seed, informative=5, shift=0.7)
    out = {}
    for downdated in (True, False):
        if not downdated:
            monkeypatch.setattr(S.SVMPart, "_fits_remove", lambda self, cols: self._fits(
                [np.delete(cols, q) for q in range(cols.size)]))
        out[downdated] = [search(make_criterion(X, y, estimator="svm", criterion="bolstered",
                                                random_state=seed), 6)
                          for search in (sbs, sffs)]
    for a, b in zip(out[True], out[False]):
        assert a.moves == b.moves and a.ties == b.ties and a.errors == b.errors


def test_a_removal_step_stops_at_the_limit_as_the_refits_do(monkeypatch):
    # the first subset whose SVM reaches libsvm's limit ends the step, with the same line
    import stablefs.selectors.wrappers._svm_criterion as S
    from stablefs import StablefsError

    X, y = _data(14, 14, 5, seed=9, informative=2, shift=0.3)
    X[:, 2] *= 300.0  # subsets holding it need many iterations
    part = make_criterion(X, y, estimator="svm", criterion="bolstered",
                          random_state=0).parts[0]
    cols = np.arange(5)
    monkeypatch.setattr(S, "libsvm_max_iter", lambda n: 40)
    errors = []
    for fits in (lambda: part._fits([np.delete(cols, q) for q in range(5)]),
                 lambda: part._fits_remove(cols)):
        with pytest.raises(StablefsError, match="did not converge") as info:
            fits()
        errors.append(str(info.value))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("criterion", ["semi-bolstered", "bolstered"])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("C", [1.0, 0.05, 20.0])
def test_svm_searches_with_the_compiled_solver_equal_libsvm_ones(criterion, seed, C,
                                                                  monkeypatch):
    import stablefs.selectors.wrappers._svm_criterion as S
    from stablefs.selectors.wrappers._error_estimators import make_rule

    X, y = _data(12 + seed, 14, 24, seed=80 + seed, informative=5, shift=0.7)
    out = {}
    for compiled in (True, False):
        monkeypatch.setattr(S, "COMPILED", compiled)
        out[compiled] = [search(make_criterion(X, y, estimator=make_rule("svm", C=C),
                                               criterion=criterion, random_state=seed), 7)
                         for search in (sfs, sffs)]
    for a, b in zip(out[True], out[False]):
        assert a.moves == b.moves and a.ties == b.ties
        np.testing.assert_allclose(a.errors, b.errors, rtol=0, atol=1e-13)


def test_svm_criterion_uses_the_rules_penalty():
    # a penalty small enough that every point is a bounded support vector changes the SVM
    # and so the criterion's values; the default rule is C = 1
    from stablefs.selectors.wrappers._error_estimators import make_rule

    X, y = _data(20, 8, 10, seed=3, informative=3, shift=0.8)
    cols = np.array([0, 1])
    cands = np.arange(2, 10)
    vals = {C: make_criterion(X, y, estimator=make_rule("svm", C=C), criterion="bolstered",
                              random_state=0).parts[0].values_add(cols, cands)
            for C in (1.0, 1e-3)}
    default = make_criterion(X, y, estimator="svm", criterion="bolstered",
                             random_state=0).parts[0].values_add(cols, cands)
    assert np.array_equal(default, vals[1.0])
    assert not np.allclose(vals[1.0], vals[1e-3])


# ------------------------------------------------------------------ nearest distances


@pytest.mark.parametrize("kth", [1, 2])
@pytest.mark.parametrize("rounded", [False, True])
def test_kth_smallest_add_equals_its_definition(kth, rounded):
    from stablefs.selectors.wrappers._wrapper_kernels import kth_smallest_add

    rng = np.random.default_rng(kth + 2 * rounded)
    n, p = 13, 9
    X = rng.standard_normal((n, p))
    if rounded:
        X = np.round(X)
    D = rng.random((n, n)) * 3
    D = D + D.T
    J = np.array([8, 0, 3, 5], dtype=np.int64)
    lo = rng.integers(0, n, n).astype(np.int64)
    hi = np.minimum(n, lo + rng.integers(0, 6, n)).astype(np.int64)
    got = kth_smallest_add(D, np.ascontiguousarray(X.T), J, lo, hi, kth)
    for i in range(n):
        ls = [l for l in range(lo[i], hi[i]) if l != i]
        for c, j in enumerate(J):
            vals = np.sort([(X[l, j] - X[i, j]) ** 2 + D[i, l] for l in ls])
            assert got[i, c] == (vals[kth - 1] if vals.size >= kth else np.inf)


@pytest.mark.parametrize("estimator, criterion", [("lda", "bolstered"), ("svm", "semi-bolstered"),
                                                  ("3nn", "semi-bolstered")])
@pytest.mark.parametrize("seed", range(3))
def test_compiled_nearest_distances_equal_the_pruned_ones(estimator, criterion, seed,
                                                          monkeypatch):
    # the widths' nearest same-class distances and the 3NN resubstitution's second nearest
    # other-class distances: bit for bit the pruned NumPy updates, along a search
    import stablefs.selectors.wrappers._bolstering_widths as W

    X, y = _data(9 + seed, 12, 15, seed=90 + seed, informative=4)
    if seed == 2:
        X = np.round(X * 2) / 2   # equal distances
    crit = make_criterion(X, y, estimator=estimator, criterion=criterion, random_state=seed)
    part = crit.parts[0]
    assert part._class_layout()
    cols: list[int] = []
    for _ in range(5):
        c = np.asarray(cols, dtype=np.int64)
        cands = np.setdiff1d(np.arange(15), c)
        D = part._sq_cached(c)
        out = {}
        for compiled in (True, False):
            monkeypatch.setattr(W, "COMPILED", compiled)
            part._nn_memo = None
            if c.size:   # the first feature's widths come from sorted values, not _nn_add
                out[compiled] = [part._nn_add(c, cands, c.size + 1)]
            else:
                out[compiled] = []
            if estimator == "3nn":
                out[compiled].append(part._resub3_add(c, cands)[1])
        for a, b in zip(out[True], out[False]):
            assert np.array_equal(a, b)
        Dx = np.where(part._same, np.inf, D)
        assert np.array_equal(part._kth_compiled(D, cands, own=False, kth=2),
                              part._kth_add(Dx, cands, min(8, part._cmin - 2), 2))
        cols.append(int(cands[crit.best_add(c, cands)[0]]))
