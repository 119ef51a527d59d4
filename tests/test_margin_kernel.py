"""The margin vectors' compiled kernel (Han 2012, eqs. 4.2 and 4.7) against NumPy references.

``margin_abs_diff_sums`` sorts each feature once and reads the sums over all samples and over
each sample's own class off prefix sums. It must equal the O(n^2 p) definition to round-off,
the former NumPy prefix-sum formulation (one sort per class) to round-off, and itself bit for
bit for any thread count, block size and order the sort gives to equal values.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from stablefs.selectors import _relief_kernels as kernels
from stablefs.selectors._relief_kernels import _margin_block, margin_abs_diff_sums


def definition(X, codes, v):
    """``sum over misses - sum over hits`` of ``v_l |x_ij - x_lj|``, pair by pair."""
    n = X.shape[0]
    out = np.zeros(X.shape)
    for i in range(n):
        d = v[:, None] * np.abs(X[i] - X)
        sign = np.where(codes == codes[i], -1.0, 1.0)
        sign[i] = 0.0
        out[i] = sign @ d
    return out


def numpy_prefix_sums(X, codes, v):
    """The NumPy formulation the kernel replaced: per feature a sort of all samples and one
    of each class, exclusive prefix sums by ``cumsum``."""

    def abs_diff_sums(XT, w):  # S[j, i] = sum_l w_l |XT[j, i] - XT[j, l]|
        order = np.argsort(XT, axis=1)
        xs = np.take_along_axis(XT, order, axis=1)
        ws = w[order]
        cw, cwb = np.cumsum(ws, axis=1), np.cumsum(ws * xs, axis=1)
        tw, twb = cw[:, -1:], cwb[:, -1:]
        sums = xs * (2 * (cw - ws) - tw) + twb - 2 * (cwb - ws * xs)
        out = np.empty_like(XT)
        np.put_along_axis(out, order, sums, axis=1)
        return out

    XT = X.T - X.T.mean(axis=1, keepdims=True)
    block = abs_diff_sums(XT, v)
    for c in np.unique(codes):
        idx = np.flatnonzero(codes == c)
        block[:, idx] -= 2.0 * abs_diff_sums(np.ascontiguousarray(XT[:, idx]), v[idx])
    return block.T


def _problem(seed, n=23, p=37, classes=3, ties=False):
    rng = np.random.default_rng(seed)
    codes = np.arange(n) % classes
    rng.shuffle(codes)
    X = rng.integers(0, 4, size=(n, p)).astype(float) if ties else rng.normal(size=(n, p))
    X[:, 0] += 3 * codes
    v = rng.uniform(0.1, 2.0, size=n)
    return X, codes, v


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("classes", [1, 2, 4])
def test_equals_definition_and_numpy_formulation(ties, classes):
    X, codes, v = _problem(0, classes=classes, ties=ties)
    got = margin_abs_diff_sums(X, codes, v)
    assert_allclose(got, definition(X, codes, v), rtol=1e-12, atol=1e-12)
    assert_allclose(got, numpy_prefix_sums(X, codes, v), rtol=1e-12, atol=1e-12)
    ones = np.ones(len(codes))
    assert_allclose(margin_abs_diff_sums(X, codes, ones), definition(X, codes, ones),
                    rtol=1e-12, atol=1e-12)


def test_hand_computed_case():
    # one feature with values 0, 1 (class 0) and 3 (class 1), unit weights: the sample at 0
    # has miss |0 - 3| and hit |0 - 1|: 2; at 1: 2 - 1 = 1; at 3: misses 3 + 2, no hit: 5
    X = np.array([[0.0], [1.0], [3.0]])
    got = margin_abs_diff_sums(X, np.array([0, 0, 1]), np.ones(3))
    assert_array_equal(got, [[2.0], [1.0], [5.0]])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 40), p=st.integers(1, 30),
       classes=st.integers(1, 4), ties=st.booleans())
def test_same_bits_for_any_threads_and_block(seed, n, p, classes, ties):
    X, codes, v = _problem(seed, n=n, p=p, classes=min(classes, n), ties=ties)
    one = margin_abs_diff_sums(X, codes, v, threads=1)
    assert_allclose(one, definition(X, codes, v), rtol=1e-11, atol=1e-11)
    for threads in (2, 3):
        assert_array_equal(margin_abs_diff_sums(X, codes, v, threads=threads), one)
    saved = kernels.SUM_BLOCK
    try:
        kernels.SUM_BLOCK = 3
        assert_array_equal(margin_abs_diff_sums(X, codes, v, threads=2), one)
    finally:
        kernels.SUM_BLOCK = saved


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 40), classes=st.integers(1, 4))
def test_same_bits_whatever_order_the_sort_gives_equal_values(seed, n, classes):
    # NumPy's argsort is SIMD-dispatched and leaves the order of ties to the host
    X, codes, v = _problem(seed, n=n, p=9, classes=min(classes, n), ties=True)
    XT = np.ascontiguousarray(X.T)
    index = np.arange(n)
    orders = [np.argsort(XT, axis=1, kind="stable"), np.argsort(XT, axis=1),
              np.stack([np.lexsort((-index, row)) for row in XT])]  # ties by falling index
    outs = []
    for order in orders:
        out = np.empty(X.shape)
        _margin_block(XT, np.ascontiguousarray(order), codes.astype(np.int64),
                      int(codes.max()) + 1, v, 0, out)
        outs.append(out)
    for out in outs[1:]:
        assert_array_equal(out, outs[0])


def test_empty_inputs():
    assert margin_abs_diff_sums(np.empty((0, 3)), np.empty(0, int), np.empty(0)).shape == (0, 3)
    assert margin_abs_diff_sums(np.empty((4, 0)), np.zeros(4, int), np.ones(4)).shape == (4, 0)
