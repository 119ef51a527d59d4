"""DGF's compiled kernels (``_dgf_kernels``) and shortcuts against the NumPy/SciPy paths.

Each shortcut of the fast DGF (compiled top K, compiled window sums, seeds at one position
shifted once, isolated features merged only against moved peaks) is checked against the code
path it replaced, and the whole DGF/DRAGS fit with the compiled kernels against the NumPy path:
same bandwidth, groups and peaks.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from stablefs.selectors import DGF, DRAGS
from stablefs.selectors import _feature_space as fs
from stablefs.selectors import _mean_shift as ms
from stablefs.selectors._dgf_kernels import top_k_desc, window_sums
from stablefs.selectors.dense_groups import merge_peaks


def gene_blocks(n, p, seed):
    """Correlated blocks of genes (a latent factor each) among independent ones."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    j = 0
    while j < 0.6 * p:
        size = int(min(rng.geometric(0.05) + 1, 60))
        cols = np.arange(j, min(p, j + size))
        load = rng.uniform(0.3, 0.95, cols.size)
        X[:, cols] = rng.standard_normal(n)[:, None] * load + np.sqrt(1 - load**2) * X[:, cols]
        j += size
    return X * rng.uniform(0.5, 3, p) + rng.uniform(5, 10, p)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 20), p=st.integers(1, 400),
       k=st.integers(1, 6), ties=st.booleans())
def test_top_k_desc_equals_top_k_rows(seed, m, p, k, ties):
    rng = np.random.default_rng(seed)
    G = rng.integers(0, 4, (m, p)).astype(float) if ties else rng.normal(size=(m, p))
    G[rng.random((m, p)) < 0.1] = -np.inf
    if p >= k:
        assert_array_equal(top_k_desc(G, k), fs.top_k_rows(G, k))
    else:  # fewer values than k: -inf fill
        assert_array_equal(top_k_desc(G, k)[:, :p], -np.sort(-G, axis=1))
        assert np.all(top_k_desc(G, k)[:, p:] == -np.inf)


def test_top_k_desc_hand_case():
    G = np.array([[1.0, 5.0, 3.0, 5.0, -2.0], [0.0, -np.inf, 7.0, 1.0, 2.0]])
    assert_array_equal(top_k_desc(G, 3), [[5.0, 5.0, 3.0], [7.0, 2.0, 1.0]])


@pytest.mark.parametrize("kernel", ["flat", "gaussian"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_window_sums_equal_sparse_path(kernel, seed):
    rng = np.random.default_rng(seed)
    F = rng.normal(size=(300, 7))
    Fa = fs.augment(F)
    Y = F[rng.choice(300, 40)] + 0.1 * rng.normal(size=(40, 7))
    h = 2.5
    qq = np.einsum("ij,ij->i", Y, Y)
    G = fs.shifted_gram(Y, Fa)
    W = ms.window_weights(G.copy(), qq, h, kernel, h)           # CSR, the NumPy path
    num_ref = np.asarray(W @ Fa)[:, :-1]
    den_ref = np.asarray(W.sum(axis=1)).ravel()
    num, den = window_sums(G, (qq - h * h) / 2, qq, Fa, h, kernel)
    if kernel == "flat":   # the same additions in the same order
        assert_array_equal(num, num_ref)
        assert_array_equal(den, den_ref)
    else:                  # exp from another library: round-off only
        assert_allclose(num, num_ref, rtol=1e-13, atol=1e-13)
        assert_allclose(den, den_ref, rtol=1e-13)
    # brute force: the mean of the points within h
    D = np.linalg.norm(Y[:, None, :] - F[None, :, :], axis=2)
    if kernel == "flat":
        assert_allclose(num, (h >= D) @ F, atol=1e-12)
        assert_array_equal(den, (h >= D).sum(axis=1))


def _window_sums_row_by_row(G, thr, qq, Fa, scale, flat):
    """The kernel before issue 36: each point tested and, when inside, added in turn."""
    m, d = G.shape[0], Fa.shape[1] - 1
    return _row_by_row()(G, thr, qq, Fa, scale, flat, np.empty((m, d)), np.empty(m))


@functools.cache
def _row_by_row():
    from numba import njit

    @njit(cache=False)
    def run(G, thr, qq, Fa, scale, flat, num, den):
        m, p = G.shape
        d = num.shape[1]
        for i in range(m):
            acc = num[i]
            for c in range(d):
                acc[c] = 0.0
            s = 0.0
            for j in range(p):
                g = G[i, j]
                if thr[i] <= g:
                    f = Fa[j]
                    if flat:
                        for c in range(d):
                            acc[c] += f[c]
                        s += 1.0
                    else:
                        d2 = max(qq[i] - 2.0 * g, 0.0)
                        w = np.exp(d2 * scale)
                        for c in range(d):
                            acc[c] += w * f[c]
                        s += w
            den[i] = s
        return num, den

    return run


@pytest.mark.parametrize("kernel", ["flat", "gaussian"])
@pytest.mark.parametrize("m", [1, 17, 50])
def test_window_sums_equal_row_by_row_loop(kernel, m):
    """The window's points listed without a branch, then summed: the bits of the loop that
    tested and added each point in turn (the kernel before issue 36). Heavily overlapping
    windows, repeated points and a row with an empty window."""
    rng = np.random.default_rng(m)
    F = rng.normal(size=(500, 11))
    F[250:260] = F[0]
    Fa = fs.augment(F)
    Y = F[rng.choice(500, m)] + 0.3 * rng.normal(size=(m, 11))
    Y[-1] = 100.0  # no point within h
    h = 4.0
    qq = np.einsum("ij,ij->i", Y, Y)
    G = fs.shifted_gram(Y, Fa)
    thr = (qq - h * h) / 2
    num, den = window_sums(G, thr, qq, Fa, h, kernel)
    ref_num, ref_den = _window_sums_row_by_row(G, thr, qq, Fa, -0.5 / h**2, kernel == "flat")
    assert_array_equal(num, ref_num)
    assert_array_equal(den, ref_den)
    assert den[-1] == 0 and (m == 1 or den[:-1].min() > 0)


def test_mean_shift_duplicated_seeds_share_paths():
    rng = np.random.default_rng(3)
    F = np.vstack([rng.normal(size=(60, 4)), rng.normal(size=(60, 4)) + 4])
    Fa = fs.augment(F)
    seeds = F[rng.choice(120, 30)]
    Y1, it1, d1 = ms.mean_shift(Fa, 1.5, seeds=seeds)
    Y2, it2, d2 = ms.mean_shift(Fa, 1.5, seeds=np.vstack([seeds, seeds[::-1]]))
    assert_array_equal(Y2[:30], Y1)
    assert_array_equal(Y2[30:], Y1[::-1])
    assert_array_equal(it2[:30], it1)
    assert_array_equal(d2[:30], d1)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 600), h=st.floats(0.2, 3.0))
def test_merge_peaks_lone_shortcut(seed, m, h):
    rng = np.random.default_rng(seed)
    modes = rng.normal(size=(m, 3)) * 3
    # lone: points at least h from every other lone point (a greedy set)
    lone = np.zeros(m, dtype=bool)
    for i in rng.permutation(m):
        if not np.any(np.linalg.norm(modes[lone] - modes[i], axis=1) < h):
            lone[i] = True
    f1, a1 = merge_peaks(modes, h)
    f2, a2 = merge_peaks(modes, h, lone)
    assert_array_equal(f1, f2)
    assert_array_equal(a1, a2)


def _fit_both(monkeypatch, est, X, y=None):
    def result(e):
        e = e.fit(X, y)
        return (e.bandwidth_, [np.asarray(g) for g in e.groups_],
                np.array(getattr(e, "peaks_", getattr(e, "ranking_", None)), copy=True))

    fast = result(est)
    with monkeypatch.context() as mp:
        mp.setattr(ms, "COMPILED", False)
        mp.setattr(fs, "COMPILED_TOP_K", False)
        slow = result(est)
    return fast, slow


@pytest.mark.parametrize("kernel", ["flat", "gaussian"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_dgf_same_groups_as_numpy_path(monkeypatch, kernel, seed):
    X = gene_blocks(40, 1500, seed)
    (h1, g1, p1), (h2, g2, p2) = _fit_both(monkeypatch, DGF(kernel=kernel), X)
    assert h1 == h2
    assert len(g1) == len(g2)
    for a, b in zip(g1, g2):
        assert_array_equal(a, b)
    assert_allclose(p1, p2, rtol=0, atol=1e-12)
    if kernel == "flat":
        assert_array_equal(p1, p2)


@pytest.mark.parametrize("est", [DGF(), DRAGS(n_features_to_select=20)])
def test_colon_same_groups_as_numpy_path(shared_data, monkeypatch, est):
    from stablefs.datasets import load

    ds = load("colon")
    (h1, g1, p1), (h2, g2, p2) = _fit_both(monkeypatch, est, ds.X, ds.y)
    assert h1 == h2
    assert len(g1) == len(g2) > 50
    for a, b in zip(g1, g2):
        assert_array_equal(a, b)
    assert_array_equal(p1, p2)   # DGF: the peaks; DRAGS: the ranking


def test_distinct_rows_equal_np_unique_groups():
    """distinct_rows finds the same classes of bit-for-bit equal rows as np.unique(axis=0),
    hash collisions or not (rows of equal hash are compared in full)."""
    from stablefs.selectors._dgf_kernels import distinct_rows

    rng = np.random.default_rng(4)
    base = rng.normal(size=(6, 5))
    Y = base[rng.integers(0, 6, 40)]
    Y[3, 2] = -0.0 if Y[3, 2] == 0 else Y[3, 2]
    rows = rng.permutation(40)[:30]
    first, inverse = distinct_rows(Y, rows)
    _, ref_inverse = np.unique(Y[rows], axis=0, return_inverse=True)
    ref_inverse = ref_inverse.ravel()
    # the same partition of the rows, each class represented by its first member
    assert np.array_equal(Y[rows[first[inverse]]], Y[rows])
    for a in range(rows.size):
        for b in range(rows.size):
            assert (inverse[a] == inverse[b]) == (ref_inverse[a] == ref_inverse[b])
    assert np.all(first == np.sort(first))
    assert np.all([first[inverse[i]] <= i for i in range(rows.size)])
    # +0.0 and -0.0 differ in their bits: two classes, as for np.unique on the bit patterns
    Z = np.array([[0.0, 1.0], [-0.0, 1.0], [0.0, 1.0]])
    first, inverse = distinct_rows(Z, np.arange(3))
    assert first.tolist() == [0, 1] and inverse.tolist() == [0, 1, 0]


@pytest.mark.parametrize("kernel", ["flat", "gaussian"])
def test_window_sums_same_for_any_thread_count(monkeypatch, kernel):
    """Threads sum disjoint parts of the rows, each in the same order: the same bits for 1, 2
    and 3 threads (the threshold lowered so that this small block is split)."""
    monkeypatch.setattr(fs, "PARALLEL_MIN_ENTRIES", 1)
    rng = np.random.default_rng(4)
    F = rng.normal(size=(400, 6))
    Fa = fs.augment(F)
    Y = F[rng.choice(400, 70)] + 0.2 * rng.normal(size=(70, 6))
    qq = np.einsum("ij,ij->i", Y, Y)
    G = fs.shifted_gram(Y, Fa)
    thr = (qq - 9.0) / 2
    one = window_sums(G, thr, qq, Fa, 3.0, kernel, threads=1)
    for threads in (2, 3):
        num, den = window_sums(G, thr, qq, Fa, 3.0, kernel, threads=threads)
        assert_array_equal(num, one[0])
        assert_array_equal(den, one[1])


def test_mean_shift_same_for_any_kernel_thread_count(monkeypatch):
    """A whole DGF fit with its Gram rows and window sums on one thread and on two: the same
    groups, peaks, steps and densities, bit for bit."""
    from stablefs.selectors.dense_groups import dense_feature_groups

    monkeypatch.setattr(fs, "PARALLEL_MIN_ENTRIES", 1)
    X = gene_blocks(30, 500, 5)
    runs = []
    for threads in (1, 2):
        monkeypatch.setattr(ms, "kernel_threads", lambda threads=threads: threads)
        runs.append(dense_feature_groups(X, n_jobs=1))
    a, b = runs
    assert a.bandwidth == b.bandwidth
    assert_array_equal(a.peaks, b.peaks)
    assert_array_equal(a.n_iter, b.n_iter)
    assert_array_equal(a.feature_density, b.feature_density)
    assert len(a.groups) == len(b.groups)
    assert all(np.array_equal(g, h) for g, h in zip(a.groups, b.groups))


@pytest.mark.parametrize("threads", [2, 3, 5])
@pytest.mark.parametrize("m", [8, 21, 64, 85])
def test_gram_in_parts_equals_one_product(monkeypatch, threads, m):
    """Rows of the shifted Gram matrix computed in parts on threads: the bits of one product
    (the parts are whole multiples of 8 rows, the last padded as ``shifted_gram`` pads)."""
    monkeypatch.setattr(fs, "PARALLEL_MIN_ENTRIES", 1)
    rng = np.random.default_rng(m)
    Fa = fs.augment(rng.normal(size=(300, 13)))
    Y = rng.normal(size=(m, 13))
    rows = m + (-m) % fs.GEMM_ROWS
    one = fs.shifted_gram(Y, Fa, out=np.empty((rows, 300)))
    got = ms.gram_in_parts(Y, Fa, np.full((rows, 300), np.nan), threads)
    assert_array_equal(got, one)
