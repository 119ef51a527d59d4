"""The compiled Relief kernels against NumPy/SciPy references (Numba, ``_relief_kernels``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.spatial.distance import pdist, squareform

from stablefs.selectors._neighbors import minmax_range, minmax_scale
from stablefs.selectors._relief_kernels import (
    cityblock_distances,
    coefficient_abs_diff_sums,
    member_pair_abs_diff_sums,
    nearest_members,
    pair_abs_diff_sums,
)


def _sequential_pair_sums(X, a, b, c):
    """The reference: pairs added one after the other, as the kernel adds them."""
    out = np.zeros(X.shape[1])
    for t in range(a.size):
        out += c[t] * np.abs(X[a[t]] - X[b[t]])
    return out


@pytest.mark.parametrize("n, p", [(2, 1), (3, 7), (8, 64), (9, 65), (17, 130), (40, 300)])
def test_cityblock_equals_pdist_bit_for_bit(n, p):
    X = np.random.default_rng(n * 1000 + p).random((n, p))
    D = cityblock_distances(X)
    assert_array_equal(D, squareform(pdist(X, "cityblock")))
    assert_array_equal(D, D.T)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30), p=st.integers(1, 150),
       ties=st.booleans())
def test_cityblock_property(seed, n, p, ties):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (n, p)).astype(float) if ties else rng.normal(size=(n, p))
    D = cityblock_distances(X)
    ref = squareform(pdist(X, "cityblock")) if n > 1 else np.zeros((n, n))
    assert_array_equal(D, ref)


def test_pair_sums_equal_the_sequential_reference():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(25, 700))  # 700 features: two full blocks and a partial one
    a, b = rng.integers(0, 25, 300), rng.integers(0, 25, 300)
    c = rng.normal(size=300)
    got = pair_abs_diff_sums(X, a, b, c)
    assert_allclose(got, _sequential_pair_sums(X, a, b, c), rtol=1e-13, atol=1e-13)
    assert_allclose(got, c @ np.abs(X[a] - X[b]), rtol=1e-12, atol=1e-12)
    assert_array_equal(pair_abs_diff_sums(X, a[:0], b[:0], c[:0]), np.zeros(700))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 12), p=st.integers(1, 600),
       n_pairs=st.integers(0, 40))
def test_pair_sums_property(seed, n, p, n_pairs):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    a, b = rng.integers(0, n, n_pairs), rng.integers(0, n, n_pairs)
    c = rng.normal(size=n_pairs)
    assert_allclose(pair_abs_diff_sums(X, a, b, c), _sequential_pair_sums(X, a, b, c),
                    rtol=1e-12, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), p=st.integers(1, 600), m=st.integers(1, 5))
def test_member_pair_sums_equal_a_dense_product(seed, p, m):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(10, p))
    n_pairs = 15
    a, b = rng.integers(0, 10, n_pairs), rng.integers(0, 10, n_pairs)
    C = rng.normal(size=(m, n_pairs)) * (rng.random((m, n_pairs)) < 0.5)
    pair, member = np.nonzero(C.T)
    starts = np.searchsorted(pair, np.arange(n_pairs + 1))
    got = member_pair_abs_diff_sums(X, a, b, starts, member, C[member, pair], m)
    assert_allclose(got, C @ np.abs(X[a] - X[b]), rtol=1e-12, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 15), p=st.integers(1, 600))
def test_coefficient_sums_equal_the_direct_sum(seed, n, p):
    from stablefs.selectors._relief_kernels import coefficient_abs_diff_sums

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    C = rng.normal(size=(n, n)) * (rng.random((n, n)) < 0.7)
    ref = np.einsum("il,ilj->ij", C, np.abs(X[:, None, :] - X[None, :, :]))
    assert_allclose(coefficient_abs_diff_sums(X, C), ref, rtol=1e-12, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 20), p=st.integers(1, 300),
       squared=st.booleans())
def test_weighted_distances_to_one_row(seed, n, p, squared):
    from stablefs.selectors._relief_kernels import weighted_distances_to

    rng = np.random.default_rng(seed)
    X = rng.random((n, p))
    f = rng.random(p)
    i = int(rng.integers(n))
    diff = X - X[i]
    ref = (diff * diff) @ f if squared else np.abs(diff) @ f
    out = weighted_distances_to(X, i, f, np.empty(n), squared=squared)
    assert_allclose(out, ref, rtol=1e-12, atol=1e-14)
    assert out[i] == 0.0


def _stable_nearest(D, rows, members, k):
    """The reference: the first ``k`` of a stable sort of each row's distances to the members
    (ties to the lower index)."""
    sub = D[np.ix_(rows, members)]
    return members[np.argsort(sub, axis=1, kind="stable")[:, :k]]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 40), k=st.integers(1, 12),
       ties=st.booleans())
def test_nearest_members_equal_a_stable_sort(seed, n, k, ties):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (n, 4)).astype(float) if ties else rng.normal(size=(n, 4))
    D = cityblock_distances(X)
    np.fill_diagonal(D, np.inf)
    members = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
    rows = rng.permutation(n)[: int(rng.integers(1, n + 1))]
    k = min(k, members.size)
    assert_array_equal(nearest_members(D, rows, members, k),
                       _stable_nearest(D, rows, members, k))


def test_nearest_members_hand_case():
    # distances from row 0: members 1..4 at 2, 1, 2, 1 -> by distance, ties by index: 2, 4, 1, 3
    D = np.array([[np.inf, 2, 1, 2, 1]] * 5, dtype=float)
    assert_array_equal(nearest_members(D, np.array([0]), np.arange(1, 5), 3), [[2, 4, 1]])
    assert_array_equal(nearest_members(D, np.array([0]), np.arange(5), 5), [[2, 4, 1, 3, 0]])


def test_scaled_distances_and_sums_equal_the_scaled_copy_bit_for_bit():
    """With ``lo`` and ``span`` the kernels scale on the fly: the same numbers as on
    minmax_scale's copy, bit for bit (so the same neighbours and scores)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(37, 300)) * rng.uniform(0.1, 50, 300) + rng.uniform(-9, 9, 300)
    X[:, 3] = 1.5  # a constant feature: span 1, scaled value 0
    lo, span = minmax_range(X)
    Xs = minmax_scale(X)
    assert_array_equal(cityblock_distances(X, lo, span), squareform(pdist(Xs, "cityblock")))
    a, b = rng.integers(0, 37, 90), rng.integers(0, 37, 90)
    c = rng.normal(size=90)
    assert_array_equal(pair_abs_diff_sums(X, a, b, c, lo, span), pair_abs_diff_sums(Xs, a, b, c))
    assert_allclose(pair_abs_diff_sums(X, a, b, c, lo, span), _sequential_pair_sums(Xs, a, b, c),
                    rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("threads", [2, 3, 5])
def test_every_kernel_gives_the_same_bits_for_any_thread_count(threads):
    """Rows (distances) and feature blocks (sums) are split into tasks; each entry is summed
    in the same order whatever the split, so the results are bit for bit those of one
    thread."""
    rng = np.random.default_rng(threads)
    n, p = 53, 1500  # several row tiles and feature blocks, partial ones included
    X = rng.normal(size=(n, p))
    lo, span = minmax_range(X)
    assert_array_equal(cityblock_distances(X, lo, span, threads=threads),
                       cityblock_distances(X, lo, span, threads=1))
    a, b = rng.integers(0, n, 400), rng.integers(0, n, 400)
    c = rng.normal(size=400)
    assert_array_equal(pair_abs_diff_sums(X, a, b, c, lo, span, threads=threads),
                       pair_abs_diff_sums(X, a, b, c, lo, span, threads=1))
    C = rng.normal(size=(3, 400)) * (rng.random((3, 400)) < 0.5)
    pair, member = np.nonzero(C.T)
    starts = np.searchsorted(pair, np.arange(401))
    args = (X, a, b, starts, member, C[member, pair], 3)
    assert_array_equal(member_pair_abs_diff_sums(*args, threads=threads),
                       member_pair_abs_diff_sums(*args, threads=1))
    W = rng.normal(size=(n, n)) * (rng.random((n, n)) < 0.3)
    assert_array_equal(coefficient_abs_diff_sums(X, W, threads=threads),
                       coefficient_abs_diff_sums(X, W, threads=1))


def test_wide_and_tall_shapes_against_pdist():
    """Many samples (several column chunks of the distance kernel, more rows than a tile
    multiple) and one feature."""
    rng = np.random.default_rng(2)
    for n, p in [(1100, 3), (70, 1), (5, 1000)]:
        X = rng.normal(size=(n, p))
        assert_array_equal(cityblock_distances(X, threads=2), squareform(pdist(X, "cityblock")))
