"""Margin-based instance weighting against O(n^2 p) loop references of seed 000 eqs. 4.2/4.6/4.7."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn.feature_selection import SelectKBest

from stablefs import StablefsError
from stablefs.selectors import ReliefF, TTest
from stablefs.stabilizers import MarginInstanceWeighting, margin_instance_weights, margin_vectors


def _scaled(X):
    X = X.astype(float).copy()
    for j in range(X.shape[1]):
        lo, hi = min(X[:, j]), max(X[:, j])
        for i in range(X.shape[0]):
            X[i, j] = 0.0 if hi == lo else (X[i, j] - lo) / (hi - lo)
    return X


def margin_reference(X, y, v=None):
    """Eq. 4.2 (v = 1) / eq. 4.7 (v = previous weights), explicit loops."""
    n, p = X.shape
    v = [1.0] * n if v is None else list(v)
    M = np.zeros((n, p))
    for i in range(n):
        for j in range(p):
            total = 0.0
            for l in range(n):
                if l == i:
                    continue
                d = v[l] * abs(X[i, j] - X[l, j])
                total += d if y[l] != y[i] else -d
            M[i, j] = total
    return M


def weights_reference(M, metric="euclidean"):
    """Eq. 4.6 with the mean distance over the other n - 1 margin vectors, explicit loops."""
    n, p = M.shape
    inv = []
    for i in range(n):
        total = 0.0
        for k in range(n):
            if k == i:
                continue
            if metric == "euclidean":
                total += math.sqrt(sum((M[i, j] - M[k, j]) ** 2 for j in range(p)))
            else:
                total += sum(abs(M[i, j] - M[k, j]) for j in range(p))
        inv.append(1.0 / (total / (n - 1)))
    return np.array(inv) / sum(inv)


def _data(seed, sizes=(9, 12), p=7):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.normal(size=(y.size, p)) * rng.uniform(0.5, 30, size=p)
    X[:, 0] += 2 * y
    X[3, 1] += 15  # an outlier
    return X, y


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("sizes", [(9, 12), (5, 8, 7)])
def test_margin_vectors_and_weights_equal_loop_reference(seed, sizes):
    X, y = _data(seed, sizes)
    M = margin_reference(_scaled(X), y)
    assert_allclose(margin_vectors(_scaled(X), y), M, rtol=1e-10, atol=1e-10)
    assert_allclose(margin_instance_weights(X, y), weights_reference(M), rtol=1e-9)
    # unscaled features, Manhattan distance in margin space
    M_raw = margin_reference(X, y)
    assert_allclose(margin_instance_weights(X, y, scale=False, metric="cityblock"),
                    weights_reference(M_raw, "cityblock"), rtol=1e-9)


def test_iterative_variant_equals_loop_reference_of_eq47():
    X, y = _data(5)
    Xs = _scaled(X)
    w1 = weights_reference(margin_reference(Xs, y))
    w2 = weights_reference(margin_reference(Xs, y, v=w1))
    got, done = margin_instance_weights(X, y, n_iter=2, tol=0.0, return_n_iter=True)
    assert done == 2
    assert_allclose(got, w2, rtol=1e-9)


def test_iterative_variant_converges():
    X, y = _data(2, sizes=(15, 20), p=12)
    w, done = margin_instance_weights(X, y, n_iter=200, tol=1e-12, return_n_iter=True)
    assert done < 200
    again = margin_instance_weights(X, y, n_iter=done + 1, tol=0.0)
    assert_allclose(again, w, atol=1e-11)
    # the fixed point is close to the one-shot weights (seed 000 sec. 4.4: "little difference")
    assert np.max(np.abs(w - margin_instance_weights(X, y))) < 0.2 * w.max()


def test_duplicated_samples_get_finite_equal_weights():
    X, y = _data(1)
    X[4] = X[2]  # same class duplicate: identical margin vectors, distance 0
    w = margin_instance_weights(X, y)
    assert np.all(np.isfinite(w)) and np.all(w > 0)
    assert_allclose(w.sum(), 1.0)
    assert_allclose(w[4], w[2], rtol=1e-9)
    assert_allclose(w, weights_reference(margin_reference(_scaled(X), y)), rtol=1e-9)


def test_identical_margin_vectors_give_equal_weights():
    X = np.array([[0.0, 1.0], [2.0, 5.0]])
    y = np.array([0, 1])
    assert_allclose(margin_instance_weights(X, y), [0.5, 0.5])
    X = np.ones((6, 3))
    y = np.repeat([0, 1], 3)
    assert_allclose(margin_instance_weights(X, y), np.full(6, 1 / 6))


def test_outlier_gets_low_weight():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 20)
    X = rng.normal(size=(40, 10)) + 2 * y[:, None]
    X[0] = rng.normal(size=10) + 2  # a class-0 sample in the middle of class 1
    w = margin_instance_weights(X, y)
    assert w[0] == w.min()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n0=st.integers(1, 8), n1=st.integers(1, 8),
       p=st.integers(1, 6), ties=st.booleans())
def test_weights_are_a_distribution(seed, n0, n1, p, ties):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], [n0, n1])
    X = rng.integers(0, 2, size=(y.size, p)).astype(float) if ties \
        else rng.normal(size=(y.size, p))
    w = margin_instance_weights(X, y)
    assert np.all(np.isfinite(w)) and np.all(w > 0)
    assert_allclose(w.sum(), 1.0)
    perm = rng.permutation(y.size)  # equivariant under reordering the samples
    assert_allclose(margin_instance_weights(X[perm], y[perm]), w[perm], rtol=1e-7, atol=1e-12)


def test_bad_parameters():
    X, y = _data(0)
    with pytest.raises(StablefsError, match="n_iter"):
        margin_instance_weights(X, y, n_iter=0)
    with pytest.raises(StablefsError, match="tol"):
        margin_instance_weights(X, y, tol=-1)
    with pytest.raises(StablefsError, match="single class"):
        margin_instance_weights(X, np.zeros(y.size))


def test_wrapper_fits_inner_selector_with_the_weights():
    X, y = _data(3, sizes=(12, 14))
    iw = MarginInstanceWeighting(ReliefF(n_neighbors=3, n_features_to_select=2)).fit(X, y)
    w = margin_instance_weights(X, y)
    assert_allclose(iw.instance_weights_, w)
    assert iw.n_iter_ == 1
    expected = ReliefF(n_neighbors=3).fit(X, y, sample_weight=w)
    assert_allclose(iw.scores_, expected.scores_)
    assert (iw.ranking_ == expected.ranking_).all()
    assert iw.n_features_to_select_ == 2 and iw.support_.sum() == 2  # inner's choice
    assert iw.selector_ is not iw.selector and not hasattr(iw.selector, "scores_")
    iw4 = MarginInstanceWeighting(ReliefF(n_features_to_select=2), n_features_to_select=4)
    assert iw4.fit(X, y).support_.sum() == 4


def test_wrapper_multiplies_user_weights():
    X, y = _data(4, sizes=(12, 14))
    u = np.random.default_rng(0).uniform(0.5, 2, size=y.size)
    u[5] = 0.0
    iw = MarginInstanceWeighting(TTest()).fit(X, y, sample_weight=u)
    keep = u > 0
    w = np.zeros(y.size)
    w[keep] = margin_instance_weights(X[keep], y[keep]) * u[keep]
    w /= w.sum()
    assert_allclose(iw.instance_weights_, w)
    assert_allclose(iw.scores_, TTest().fit(X, y, sample_weight=w).scores_)


def test_wrapper_refuses_selector_without_sample_weight():
    X, y = _data(0)
    with pytest.raises(StablefsError, match="sample_weight"):
        MarginInstanceWeighting(SelectKBest(k=2)).fit(X, y)


def test_method_string_builds_the_wrapper():
    from stablefs import make_selector

    X, y = _data(0)
    sel = make_selector("iw-relieff(n_neighbors=3)")
    assert isinstance(sel, MarginInstanceWeighting) and sel.selector.n_neighbors == 3
    assert sel.fit(X, y).ranking_.shape == (X.shape[1],)


def test_lung_weights_are_a_distribution(shared_data):
    """Real data: finite, positive weights summing to 1 (speed is in benchmarks/)."""
    data = pd.read_csv(shared_data / "lung.csv.gz", dtype={"label": str})
    X = data.drop(columns="label").to_numpy(float)
    y = data["label"].to_numpy()
    w = margin_instance_weights(X, y)
    assert_allclose(w.sum(), 1.0)
    assert np.all(np.isfinite(w)) and np.all(w > 0)
