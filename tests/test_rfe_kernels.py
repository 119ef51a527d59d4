"""The compiled kernels of SVM-RFE's elimination loop (``selectors/_rfe_kernels.py``) against
their NumPy references: the row swaps and the choice of the features that leave."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from stablefs.selectors._rfe_kernels import swap_rows, worst_positions


def _worst(importance, n_out):
    threshold = np.partition(importance, n_out - 1)[n_out - 1] if n_out < importance.size else 0
    return worst_positions(importance, n_out, threshold)


def _worst_reference(importance, n_out):
    """The features that leave, by a full sort: smallest first, equal values higher position
    first."""
    order = np.lexsort((-np.arange(importance.size), importance))
    return order[:n_out]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=60), st.data())
def test_worst_positions_equal_a_full_sort_with_many_ties(values, data):
    imp = np.array(values, dtype=float) / 4
    n_out = data.draw(st.integers(1, imp.size))
    expected = sorted(range(imp.size), key=lambda i: (imp[i], -i))[:n_out]
    assert _worst(imp, n_out).tolist() == expected
    assert _worst(imp, n_out).tolist() == _worst_reference(imp, n_out).tolist()


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 3000), st.integers(0, 2**32 - 1), st.data())
def test_worst_positions_on_continuous_weights(m, seed, data):
    rng = np.random.default_rng(seed)
    imp = rng.standard_normal(m) ** 2
    imp[rng.integers(0, m, size=m // 10)] = 0.0  # constant features: w = 0
    n_out = data.draw(st.integers(1, m))
    assert np.array_equal(_worst(imp, n_out), _worst_reference(imp, n_out))


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 50), st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_swap_rows_equals_fancy_index_swap(rows, cols, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((rows, cols))
    perm = rng.permutation(rows)
    half = rng.integers(0, rows // 2 + 1)
    first, second = perm[:half], perm[half:2 * half]
    expected = A.copy()
    expected[first], expected[second] = A[second], A[first]
    swap_rows(A, first, second)
    assert np.array_equal(A, expected)
