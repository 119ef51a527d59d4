"""Margin vectors with distance-weighted hits and misses (Han 2012, eqs. 4.3-4.5) against a
slow direct reference, and the memory of margin-based instance weighting."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stablefs import StablefsError, make_selector
from stablefs.selectors._neighbors import positive_weight_subset
from stablefs.stabilizers import (
    MarginInstanceWeighting,
    distance_weighted_margin_vectors,
    margin_instance_weights,
)
from stablefs.stabilizers.margin import _weights_from_margins, margin_vectors


def _slow_distance_margins(X, y):
    """Eqs. 4.3-4.5 by explicit loops; Manhattan distance; zero distances in the limit."""
    X = np.asarray(X, float)
    n, p = X.shape
    M = np.zeros((n, p))
    for i in range(n):
        for is_miss, sign in ((True, 1.0), (False, -1.0)):
            group = [k for k in range(n) if k != i and (y[k] != y[i]) == is_miss]
            if not group:
                continue
            d = [sum(abs(X[i, j] - X[k, j]) for j in range(p)) for k in group]
            zero = min(d) == 0  # the limit d -> 0: the duplicates share the weight
            inv = [float(dk == 0) if zero else 1.0 / dk for dk in d]
            total = sum(inv)
            for k, wk in zip(group, inv):
                for j in range(p):
                    M[i, j] += sign * wk / total * abs(X[i, j] - X[k, j])
    return M


def _slow_weights(M):
    """Eq. 4.6 by loops (Euclidean distance between margin vectors)."""
    n = M.shape[0]
    dbar = [sum(np.sqrt(sum((M[i] - M[k]) ** 2)) for k in range(n) if k != i) / (n - 1)
            for i in range(n)]
    inv = [1.0 / d for d in dbar]
    return np.array(inv) / sum(inv)


def _scaled(X):
    span = X.max(0) - X.min(0)
    span[span == 0] = 1.0
    return (X - X.min(0)) / span


def _data(n=15, p=6, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    X = rng.normal(size=(n, p)) + y[:, None]
    return X, y


@pytest.mark.parametrize("n_classes", [2, 3])
def test_distance_weighted_margins_match_loops(n_classes):
    X, y = _data(n_classes=n_classes)
    X[:, 3] = 2.0  # constant feature
    assert np.allclose(distance_weighted_margin_vectors(X, y), _slow_distance_margins(X, y),
                       atol=1e-12)
    w = margin_instance_weights(X, y, neighbor_weighting="distance")
    assert np.allclose(w, _slow_weights(_slow_distance_margins(_scaled(X), y)), atol=1e-12)
    assert np.all(distance_weighted_margin_vectors(X, y)[:, 3] == 0)


def test_duplicates_ties_and_singleton_class():
    X, y = _data(n=12, p=4, n_classes=3)
    X[4] = X[7]  # duplicates in the same class (hit at distance 0)
    X[5] = X[1]  # duplicates across classes (miss at distance 0)
    X[9] = X[0] + np.array([1.0, 0, 0, 0])
    X[10] = X[0] - np.array([1.0, 0, 0, 0])  # two neighbours of x0 at equal distance
    y = y.copy()
    y[11] = 3  # a class of one: no hits
    ours = distance_weighted_margin_vectors(X, y)
    assert np.allclose(ours, _slow_distance_margins(X, y), atol=1e-12)
    assert np.all(np.isfinite(ours))
    w = margin_instance_weights(X, y, neighbor_weighting="distance")
    assert np.all(w > 0) and w.sum() == pytest.approx(1.0)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 3))
def test_rows_of_weights_are_distributions_over_hits_and_misses(seed, n_classes):
    from stablefs.stabilizers.margin import neighbor_distance_weights

    rng = np.random.default_rng(seed)
    n = 9
    X = rng.integers(0, 3, size=(n, 3)).astype(float)  # many duplicates and ties
    y = np.arange(n) % n_classes
    C = neighbor_distance_weights(X, y)
    other = y[:, None] != y[None, :]
    assert np.allclose(np.where(other, C, 0).sum(1), 1.0)
    assert np.allclose(np.where(~other, C, 0).sum(1), -1.0)
    assert np.all(np.diag(C) == 0)
    assert np.allclose(distance_weighted_margin_vectors(X, y), _slow_distance_margins(X, y),
                       atol=1e-12)


def test_iterative_distance_variant_uses_eq47_after_the_first_round():
    X, y = _data(n=14, p=5)
    Xs = _scaled(X)
    w1 = _weights_from_margins(distance_weighted_margin_vectors(Xs, y), "euclidean")
    w2 = _weights_from_margins(margin_vectors(Xs, y, w1), "euclidean")
    ours, done = margin_instance_weights(X, y, neighbor_weighting="distance", n_iter=2,
                                         tol=0.0, return_n_iter=True)
    assert done == 2
    assert np.allclose(ours, w2, atol=1e-14)
    conv, n_done = margin_instance_weights(X, y, neighbor_weighting="distance", n_iter=200,
                                           tol=1e-10, return_n_iter=True)
    assert n_done < 200
    again = _weights_from_margins(margin_vectors(Xs, y, conv), "euclidean")
    assert np.max(np.abs(again - conv)) <= 1e-9


def test_wrapper_and_method_string():
    X, y = _data(n=20, p=8)
    sel = make_selector("iw-relieff(neighbor_weighting='distance')")
    assert isinstance(sel, MarginInstanceWeighting) and sel.neighbor_weighting == "distance"
    sel.fit(X, y)
    assert np.allclose(sel.instance_weights_,
                       margin_instance_weights(X, y, neighbor_weighting="distance"))
    with pytest.raises(StablefsError):
        make_selector("iw-relieff(neighbor_weighting='inverse')")
    with pytest.raises(StablefsError, match="neighbor_weighting"):
        margin_instance_weights(X, y, neighbor_weighting="inverse")
    with pytest.raises(StablefsError, match="neighbor_metric"):
        margin_instance_weights(X, y, neighbor_metric="hamming")


def test_no_copy_when_every_weight_is_positive():
    X, y = _data()
    Xp, yp, wp, keep = positive_weight_subset(X, y, np.ones(len(y)))
    assert Xp is X and keep.size == len(y) and wp.sum() == pytest.approx(1.0)
    Xp, *_ = positive_weight_subset(X, y, np.r_[0.0, np.ones(len(y) - 1)])
    assert Xp.shape[0] == len(y) - 1


@pytest.mark.parametrize("neighbor_weighting", ["none", "distance"])
def test_peak_memory_is_under_three_times_x(neighbor_weighting, monkeypatch):
    # blocks as small relative to X as the default blocks are at 200 x 50,000
    import stablefs.selectors._relief_kernels as kernels

    monkeypatch.setattr(kernels, "SUM_BLOCK", 16)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 10_000))
    y = np.arange(40) % 2
    tracemalloc.start()
    margin_instance_weights(X, y, neighbor_weighting=neighbor_weighting)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2.5 * X.nbytes
