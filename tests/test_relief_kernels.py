"""The compiled Relief kernels against NumPy/SciPy references (Numba, ``_relief_kernels``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.spatial.distance import pdist, squareform

from stablefs.selectors._relief_kernels import (
    cityblock_distances,
    member_pair_abs_diff_sums,
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
