"""The compiled kernels of SVM-RFE's elimination loop (``selectors/_rfe_kernels.py``) against
their NumPy references: the row swaps, the working copy, the choice of the features that
leave and the step's bookkeeping."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stablefs.selectors._rfe_kernels import (
    _kth_smallest,
    eliminate,
    move_out,
    nonzero_beyond,
    permute_columns,
    permuted_transpose,
    worst_positions,
)


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


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 60), st.integers(1, 5), st.integers(0, 2**32 - 1), st.data())
def test_move_out_equals_the_numpy_swaps(m, cols, seed, data):
    """The compiled move against the NumPy computation it replaced: the leaving rows below
    m_next swapped, ascending, with the staying rows from m_next on, ascending."""
    rng = np.random.default_rng(seed)
    p = m + data.draw(st.integers(0, 5))  # rows beyond m: features gone earlier
    A = rng.standard_normal((p, cols))
    feature = rng.permutation(p)
    row = np.argsort(feature)
    n_out = data.draw(st.integers(0, m - 1))
    out = rng.choice(feature[:m], size=n_out, replace=False)
    m_next = m - n_out
    # the reference
    A_ref, feature_ref, row_ref = A.copy(), feature.copy(), row.copy()
    leaving = np.zeros(m, dtype=bool)
    leaving[row_ref[out]] = True
    holes = np.flatnonzero(leaving[:m_next])
    stayers = m_next + np.flatnonzero(~leaving[m_next:])
    A_ref[holes], A_ref[stayers] = A_ref[stayers].copy(), A_ref[holes].copy()
    feature_ref[holes], feature_ref[stayers] = feature_ref[stayers], feature_ref[holes]
    row_ref[feature_ref[holes]] = holes
    row_ref[feature_ref[stayers]] = stayers
    move_out(A, feature, row, out, m_next)
    assert np.array_equal(A, A_ref)
    assert np.array_equal(feature, feature_ref)
    assert np.array_equal(row, row_ref)
    assert sorted(feature[m_next:m].tolist()) == sorted(out.tolist())


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 30), st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_permute_columns_equals_fancy_indexing(rows, cols, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((rows, cols))
    perm = rng.permutation(cols)
    expected = A[:, perm]
    permute_columns(A, perm)
    assert np.array_equal(A, expected)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(1, 80), st.sampled_from("CF"), st.integers(0, 2**32 - 1))
def test_permuted_transpose_equals_fancy_indexing(n, p, order, seed):
    rng = np.random.default_rng(seed)
    X = np.asarray(rng.standard_normal((n, p)), order=order)
    columns = rng.permutation(n)
    XT = permuted_transpose(X, columns)
    assert XT.flags.c_contiguous
    assert np.array_equal(XT, X[columns].T)


def test_permuted_transpose_of_a_strided_view():
    X = np.arange(60.0).reshape(6, 10)[::2, 1::3]
    columns = np.array([2, 0, 1])
    assert np.array_equal(permuted_transpose(X, columns), X[columns].T)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 3), st.integers(1, 30), st.integers(0, 2**32 - 1), st.data())
def test_nonzero_beyond_equals_numpy(problems, n, seed, data):
    rng = np.random.default_rng(seed)
    dual = rng.standard_normal((problems, n)) * (rng.random((problems, n)) < 0.2)
    lead = data.draw(st.integers(0, n))
    expected = lead + np.flatnonzero(np.any(dual[:, lead:] != 0, axis=0))
    assert np.array_equal(nonzero_beyond(dual, lead), expected)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=200), st.data())
def test_kth_smallest_equals_numpy_partition_with_ties(values, data):
    a = np.array(values, dtype=float)
    k = data.draw(st.integers(0, a.size - 1))
    before = a.copy()
    assert _kth_smallest(a, k) == np.partition(a, k)[k]
    assert np.array_equal(a, before)  # works on a copy


@pytest.mark.parametrize("shape", ["sorted", "reversed", "equal", "organ pipe", "sawtooth"])
def test_kth_smallest_on_adversarial_orders(shape):
    m = 5000
    a = {"sorted": np.arange(m), "reversed": np.arange(m)[::-1], "equal": np.zeros(m),
         "organ pipe": np.r_[np.arange(m // 2), np.arange(m // 2)[::-1]],
         "sawtooth": np.arange(m) % 37}[shape].astype(float)
    for k in (0, 1, m // 10, m // 2, m - 1):
        assert _kth_smallest(a, k) == np.partition(a, k)[k]


def _eliminate_reference(w, row, remaining, n_out):
    """The NumPy computation the kernel replaced."""
    coef = np.ascontiguousarray(w[row[remaining]].T)
    importance = coef[0] ** 2 if coef.shape[0] == 1 else np.einsum("cj,cj->j", coef, coef)
    order = np.lexsort((-np.arange(importance.size), importance))
    worst = order[:n_out]
    keep = np.ones(remaining.size, dtype=bool)
    keep[worst] = False
    return coef, worst, remaining[keep]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4), st.integers(1, 300), st.booleans(), st.integers(0, 2**32 - 1),
       st.data())
def test_eliminate_equals_the_numpy_step(problems, m, ties, seed, data):
    """Weights in feature order, sum of squares summed as NumPy does (bit for bit), the
    leaving positions worst first (ties: higher position first) and the features kept."""
    rng = np.random.default_rng(seed)
    p = m + data.draw(st.integers(0, 20))  # rows beyond m: features gone earlier
    if ties:  # few distinct values: many ties, and exact zeros (constant features)
        w = rng.integers(-2, 3, size=(p, problems)) / 4.0
    else:
        w = rng.standard_normal((p, problems)) * 10.0 ** rng.uniform(-8, 2, size=(p, 1))
    remaining = np.sort(rng.choice(p + 5, size=m, replace=False))
    row = np.zeros(p + 5, dtype=np.int64)
    row[remaining] = rng.permutation(p)[:m]
    n_out = data.draw(st.integers(0, m))
    coef, worst, kept = eliminate(w, row, remaining, n_out)
    ref_coef, ref_worst, ref_kept = _eliminate_reference(w, row, remaining, n_out)
    assert np.array_equal(coef, ref_coef)
    assert np.array_equal(worst, ref_worst)
    assert np.array_equal(kept, ref_kept)
    assert kept is not remaining


def test_eliminate_sum_of_squares_is_einsums_to_the_bit():
    """The kernel sums w_cj^2 over the problems in order, from 0.0; NumPy's einsum (the
    reference for more than two classes) must give the same bits, so the leaving features
    are the same at exact ties of the reference."""
    rng = np.random.default_rng(7)
    coef = rng.standard_normal((5, 4000)) * 10.0 ** rng.uniform(-9, 3, size=(5, 4000))
    sequential = np.zeros(4000)
    for c in range(5):
        sequential = sequential + coef[c] * coef[c]
    assert np.array_equal(np.einsum("cj,cj->j", coef, coef), sequential)
