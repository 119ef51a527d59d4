"""The compiled kernels of SVM-RFE's elimination loop (``selectors/_rfe_kernels.py``) against
their NumPy references: the row swaps, the working copy, the choice of the features that
leave and the step's bookkeeping."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from stablefs.selectors._rfe_kernels import (
    leaving,
    move_out,
    nonzero_beyond,
    permute_columns,
    permuted_transpose,
    scaled_transpose,
    weights_by_feature,
)


def _worst(importance, n_out):
    """The leaving positions worst first, as svm_rfe._eliminate computes them."""
    threshold = np.partition(importance, n_out - 1)[n_out - 1] if n_out < importance.size else 0
    remaining = np.arange(10, 10 + importance.size)
    chosen, values, kept = leaving(importance, n_out, threshold, remaining)
    assert np.all(np.diff(chosen) < 0)
    assert np.array_equal(values, importance[chosen])
    keep = np.ones(importance.size, dtype=bool)
    keep[chosen] = False
    assert np.array_equal(kept, remaining[keep])
    return chosen[np.argsort(values, kind="stable")]


def _worst_reference(importance, n_out):
    """The features that leave, by a full sort: smallest first, equal values higher position
    first."""
    order = np.lexsort((-np.arange(importance.size), importance))
    return order[:n_out]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=60), st.data())
def test_leaving_positions_equal_a_full_sort_with_many_ties(values, data):
    imp = np.array(values, dtype=float) / 4
    n_out = data.draw(st.integers(1, imp.size))
    expected = sorted(range(imp.size), key=lambda i: (imp[i], -i))[:n_out]
    assert _worst(imp, n_out).tolist() == expected
    assert _worst(imp, n_out).tolist() == _worst_reference(imp, n_out).tolist()


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 3000), st.integers(0, 2**32 - 1), st.data())
def test_leaving_positions_on_continuous_weights(m, seed, data):
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


def _numpy_minmax_t(X):
    """The NumPy reference of the scaled working copy (SVM-RFE's min-max scaling before the
    compiled pass)."""
    lo = X.min(axis=0)
    span = X.max(axis=0) - lo
    span[span == 0] = 1.0
    XT = np.empty((X.shape[1], X.shape[0]))
    np.subtract(X.T, lo[:, None], out=XT)
    XT /= span[:, None]
    return XT, lo, span


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 12), st.integers(1, 80), st.sampled_from("CF"), st.floats(1e-3, 1e6),
       st.booleans(), st.integers(0, 2**32 - 1))
def test_scaled_transpose_equals_numpy_bit_for_bit(n, p, order, scale, rounded, seed):
    rng = np.random.default_rng(seed)
    X = scale * rng.standard_normal((n, p)) + rng.uniform(-5, 5)
    if rounded:
        X = np.round(X)  # ties and constant features
    X = np.asarray(X, order=order)
    expected, lo, span = _numpy_minmax_t(X)
    XT = scaled_transpose(X, lo, span)
    assert XT.flags.c_contiguous
    assert np.array_equal(XT, expected)


def test_scaled_transpose_of_a_strided_view():
    X = np.arange(60.0).reshape(6, 10)[::2, 1::3] ** 1.5
    expected, lo, span = _numpy_minmax_t(X)
    assert np.array_equal(scaled_transpose(X, lo, span), expected)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 3), st.integers(1, 30), st.integers(0, 2**32 - 1), st.data())
def test_nonzero_beyond_equals_numpy(problems, n, seed, data):
    rng = np.random.default_rng(seed)
    dual = rng.standard_normal((problems, n)) * (rng.random((problems, n)) < 0.2)
    lead = data.draw(st.integers(0, n))
    expected = lead + np.flatnonzero(np.any(dual[:, lead:] != 0, axis=0))
    assert np.array_equal(nonzero_beyond(dual, lead), expected)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 4), st.integers(1, 300), st.integers(0, 2**32 - 1), st.data())
def test_weights_by_feature_equal_the_numpy_gather(problems, m, seed, data):
    rng = np.random.default_rng(seed)
    p = m + data.draw(st.integers(0, 20))  # rows beyond m: features gone earlier
    w = rng.standard_normal((p, problems)) * 10.0 ** rng.uniform(-8, 2, size=(p, 1))
    remaining = np.sort(rng.choice(p + 5, size=m, replace=False))
    row = np.zeros(p + 5, dtype=np.int64)
    row[remaining] = rng.permutation(p)[:m]
    coef, importance = weights_by_feature(w, row, remaining)
    expected = np.ascontiguousarray(w[row[remaining]].T)
    assert np.array_equal(coef, expected)
    sequential = np.zeros(m)
    for c in range(problems):
        sequential = sequential + expected[c] * expected[c]
    assert np.array_equal(importance, sequential)
    if problems == 1:
        assert np.array_equal(importance, expected[0] ** 2)
    elif m >= 2:  # the NumPy code it replaced (for one feature einsum takes a dot product,
        # summed in another order; one feature left is the last iteration, nothing leaves)
        assert np.array_equal(importance, np.einsum("cj,cj->j", expected, expected))


def test_permute_symmetric_equals_fancy_indexing():
    from stablefs.selectors._rfe_kernels import permute_symmetric

    rng = np.random.default_rng(7)
    for n in (1, 2, 5, 17):
        A = rng.normal(size=(n, n))
        for _ in range(5):
            perm = rng.permutation(n)
            expected = A[np.ix_(perm, perm)]
            B = A.copy()
            permute_symmetric(B, perm)
            np.testing.assert_array_equal(B, expected)
