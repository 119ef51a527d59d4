"""``evaluate_sizes`` (every top-k subset of one ranking, the built-in classifiers' min-max
scaling fitted once) gives the same numbers, bit for bit, as ``evaluate_subset`` on each
subset, and as the classifiers' scikit-learn pipelines fitted from scratch."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from stablefs.evaluation.classifiers import (
    balanced_accuracy,
    evaluate_sizes,
    evaluate_subset,
    make_classifier,
)


def _same(a: dict, b: dict) -> bool:
    """Equal dicts of floats, NaN equal to NaN."""
    return a.keys() == b.keys() and all(
        (np.isnan(a[k]) and np.isnan(b[k])) or a[k] == b[k] for k in a)


def _parts(seed: int, n_classes: int, p: int, constant: int = 0, ties: bool = False):
    rng = np.random.default_rng(seed)
    n = 12 * n_classes
    y = np.repeat(np.arange(n_classes), 12)
    X = rng.normal(size=(n, p)) + 0.8 * (y[:, None] == np.arange(p)[None, :] % n_classes)
    if ties:
        X = np.round(X, 1)
    X[:, :constant] = 3.0  # constant columns: a zero range, scaled by 1
    idx = rng.permutation(n)
    tr, te = idx[: 2 * n // 3], idx[2 * n // 3:]
    return X[tr], y[tr], X[te], y[te], rng.permutation(p)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n_classes=st.sampled_from([2, 3]),
       p=st.integers(6, 40), constant=st.integers(0, 3), ties=st.booleans())
def test_every_size_equals_its_own_subset_bit_for_bit(seed, n_classes, p, constant, ties):
    Xtr, ytr, Xte, yte, order = _parts(seed, n_classes, p, constant, ties)
    sizes = sorted({1, 2, p // 3 or 1, p // 2, p})
    clfs = ["svm", "1nn", "3nn", "lda"]
    every = evaluate_sizes(Xtr, ytr, Xte, yte, order, sizes, clfs)
    assert list(every) == sizes
    for k in sizes:
        cols = np.sort(order[:k])
        assert _same(every[k], evaluate_subset(Xtr[:, cols], ytr, Xte[:, cols], yte, clfs))


@pytest.mark.parametrize("n_classes", [2, 3])
def test_matches_the_pipelines_fitted_from_scratch(n_classes):
    Xtr, ytr, Xte, yte, order = _parts(7, n_classes, 30)
    every = evaluate_sizes(Xtr, ytr, Xte, yte, order, [5, 10, 20], ["svm", "1nn"])
    for k in (5, 10, 20):
        cols = np.sort(order[:k])
        for name in ("svm", "1nn"):
            pred = make_classifier(name).fit(Xtr[:, cols], ytr).predict(Xte[:, cols])
            assert every[k][f"accuracy_{name}"] == np.mean(pred == yte)
            assert every[k][f"balanced_accuracy_{name}"] == balanced_accuracy(yte, pred)


def test_user_classifiers_get_the_raw_columns_beside_the_built_in_ones():
    Xtr, ytr, Xte, yte, order = _parts(3, 2, 25)
    mine = make_pipeline(StandardScaler(), SVC(kernel="rbf", gamma=0.1))
    clfs = [("mine", mine), "svm", ("knn", KNeighborsClassifier(2))]
    every = evaluate_sizes(Xtr, ytr, Xte, yte, order, [3, 12], clfs)
    for k in (3, 12):
        cols = np.sort(order[:k])
        assert _same(every[k], evaluate_subset(Xtr[:, cols], ytr, Xte[:, cols], yte, clfs))
        pred = make_pipeline(StandardScaler(), SVC(kernel="rbf", gamma=0.1)).fit(
            Xtr[:, cols], ytr).predict(Xte[:, cols])
        assert every[k]["accuracy_mine"] == np.mean(pred == yte)


def test_no_sizes_no_work():
    Xtr, ytr, Xte, yte, order = _parts(1, 2, 8)
    assert evaluate_sizes(Xtr, ytr, Xte, yte, order, [], ["svm"]) == {}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([-1.5, 0.0, 0.25, 2.0, 3.0, np.inf, np.nan]) | st.floats(
    -5, 5, allow_nan=False), min_size=1, max_size=40))
def test_mid_ranks_equal_scipy(values):
    """The AUC's ranks (ties at their mean rank) are scipy's ``rankdata``, bit for bit."""
    from scipy.stats import rankdata

    from stablefs.evaluation.classifiers import _mid_ranks

    values = np.array(values, dtype=np.float64)
    assert np.array_equal(_mid_ranks(values), rankdata(values), equal_nan=True)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 30), p=st.integers(1, 12),
       constant=st.booleans(), spread=st.sampled_from([1e-17, 1e-9, 1.0, 1e6]))
def test_the_minmax_scaling_is_minmaxscalers(seed, n, p, constant, spread):
    """The classifiers' min-max scaling gives MinMaxScaler's bits on both parts (constant and
    nearly constant features, negative zeros included)."""
    from sklearn.preprocessing import MinMaxScaler

    from stablefs.evaluation.classifiers import _minmax

    rng = np.random.default_rng(seed)
    X_train = rng.normal(size=(n, p)) * spread
    X_test = rng.normal(size=(5, p)) * spread
    if constant:
        X_train[:, 0] = -0.0
    scaler = MinMaxScaler().fit(X_train)
    mine = _minmax(X_train, X_test)
    theirs = scaler.transform(X_train), scaler.transform(X_test)
    for a, b in zip(mine, theirs):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.array_equal(a, b) and np.array_equal(np.signbit(a), np.signbit(b))
