"""Instance- and feature-weighted kNN (Prat Masramon 2016, Alg. 8.2) against a slow
reference, and its place among the classifiers of ``compare``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from stablefs import StablefsError
from stablefs.evaluation.classifiers import evaluate_subset, make_classifier
from stablefs.evaluation.wknn import WeightedKNN
from stablefs.stabilizers import logistic_instance_weights


def _slow_predict(Xtr, ytr, Xte, w, omega, k):
    classes = sorted(set(ytr))
    out = []
    for x in Xte:
        d = [math.sqrt(sum(max(wi, 0.0) * (a - b) ** 2 for wi, a, b in zip(w, x, z)))
             for z in Xtr]
        order = sorted(range(len(Xtr)), key=lambda i: (d[i], i))[:k]
        score = {c: 0.0 for c in classes}
        for i in order:
            score[ytr[i]] += omega[i]
        best = max(score.values())
        out.append(next(c for c in classes if score[c] == best))
    return np.array(out)


@pytest.mark.parametrize("k", [1, 3, 5])
def test_matches_slow_reference_with_feature_and_instance_weights(k):
    rng = np.random.default_rng(k)
    Xtr = rng.integers(0, 3, size=(25, 4)).astype(float)  # many equal distances
    ytr = np.arange(25) % 3
    Xte = rng.integers(0, 3, size=(15, 4)).astype(float)
    w = np.array([2.0, 0.5, -1.0, 1.0])  # the negative weight counts as 0
    omega = rng.random(25)
    clf = WeightedKNN(n_neighbors=k, feature_weights=w).fit(Xtr, ytr, sample_weight=omega)
    assert np.array_equal(clf.predict(Xte), _slow_predict(Xtr, ytr, Xte, w, omega, k))
    proba = clf.predict_proba(Xte)
    assert np.allclose(proba.sum(axis=1), 1.0)


def test_instance_weights_decide_the_vote():
    Xtr = np.array([[0.0], [0.1], [0.2], [5.0]])
    ytr = np.array(["a", "b", "b", "a"])
    clf = WeightedKNN(n_neighbors=3).fit(Xtr, ytr, sample_weight=[5.0, 1.0, 1.0, 1.0])
    assert clf.predict([[0.05]])[0] == "a"  # 5 against 1 + 1
    assert WeightedKNN(n_neighbors=3).fit(Xtr, ytr).predict([[0.05]])[0] == "b"


def test_feature_weights_change_the_neighbours():
    Xtr = np.array([[0.0, 1.0], [1.0, 0.0]])
    ytr = np.array([0, 1])
    x = [[0.1, 0.1]]
    assert WeightedKNN(1, feature_weights=[1.0, 0.0]).fit(Xtr, ytr).predict(x)[0] == 0
    assert WeightedKNN(1, feature_weights=[0.0, 1.0]).fit(Xtr, ytr).predict(x)[0] == 1


def test_equal_weights_are_plain_knn():
    rng = np.random.default_rng(0)
    Xtr = rng.normal(size=(30, 5))
    ytr = (Xtr[:, 0] > 0).astype(int)
    Xte = rng.normal(size=(20, 5))
    ours = WeightedKNN(n_neighbors=3).fit(Xtr, ytr).predict(Xte)
    ref = KNeighborsClassifier(n_neighbors=3).fit(Xtr, ytr).predict(Xte)
    assert np.array_equal(ours, ref)


def test_logistic_instance_weighting_and_compare_registry():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 6))
    y = (X[:, 0] + 0.3 * rng.normal(size=40) > 0).astype(int)
    clf = WeightedKNN(instance_weighting="logistic").fit(X, y)
    assert np.allclose(clf.instance_weights_, logistic_instance_weights(X, y))
    model = make_classifier("wknn")
    assert isinstance(model[-1], WeightedKNN) and model[-1].instance_weighting == "logistic"
    out = evaluate_subset(X[:30], y[:30], X[30:], y[30:], ["wknn"])
    assert 0.0 <= out["accuracy_wknn"] <= 1.0 and np.isfinite(out["auc_wknn"])


def test_bad_feature_weights_are_one_line():
    with pytest.raises(StablefsError, match="feature_weights"):
        WeightedKNN(feature_weights=[1.0, 2.0]).fit(np.zeros((4, 3)), [0, 1, 0, 1])


@parametrize_with_checks([WeightedKNN(), WeightedKNN(instance_weighting="logistic")],
                         expected_failed_checks=lambda est: {
                             "check_sample_weight_equivalence_on_dense_data": (
                                 "omega are votes (Alg. 8.2), not repetition counts: a "
                                 "repeated sample takes two of the k neighbour places")})
def test_sklearn_compatible(estimator, check):
    check(estimator)
