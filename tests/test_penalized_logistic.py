"""L1 and elastic-net logistic selectors: the optimum, the full ranking, scikit-learn."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

from stablefs.methods import make_selector
from stablefs.selectors import ElasticNetLogistic, L1Logistic
from stablefs.selectors.penalized_logistic import _standardize, lambda_max, penalized_logistic


def _data(n=40, p=8, classes=2, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * rng.uniform(0.5, 20, size=p) + rng.uniform(-5, 5, size=p)
    t = (X[:, 0] - X[:, 0].mean()) / X[:, 0].std() - (X[:, 1] - X[:, 1].mean()) / X[:, 1].std()
    t = t + 0.5 * rng.normal(size=n)
    y = (t > 0).astype(int) if classes == 2 else np.digitize(t, [-0.7, 0.7])
    return X, y


def _saga(Z, y, C, l1_ratio):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return LogisticRegression(l1_ratio=l1_ratio, solver="saga", C=C, tol=1e-11,
                                  max_iter=200000).fit(Z, y)


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("l1_ratio", [1.0, 0.5])
def test_same_optimum_as_scikit_learn_saga(classes, l1_ratio):
    """lam = 1/(C n) gives scikit-learn's C: the same coefficients on standardised data."""
    X, y = _data(classes=classes)
    W, b, _, _ = penalized_logistic(X, y, C=0.5, l1_ratio=l1_ratio, tol=1e-9)
    ref = _saga(_standardize(X, np.full(len(y), 1 / len(y))).T, y, 0.5, l1_ratio)
    np.testing.assert_allclose(W.T, ref.coef_, atol=2e-4)
    assert np.array_equal(W.T != 0, np.abs(ref.coef_) > 1e-8)


@pytest.mark.parametrize("classes", [2, 3])
def test_kkt_conditions_hold_and_working_set_changes_nothing(classes):
    X, y = _data(n=30, p=300, classes=classes, seed=4)
    C = 2.0
    W, b, grad, _ = penalized_logistic(X, y, C=C, tol=1e-7, working_set=5)
    W_full, _, _, _ = penalized_logistic(X, y, C=C, tol=1e-7, working_set=300)
    np.testing.assert_allclose(W, W_full, atol=1e-5)
    lam = 1 / (C * len(y))
    # zero coefficients: gradient within the penalty; the ones that entered: equality
    zero = np.all(W == 0, axis=1)
    assert zero.sum() > 200  # a sparse solution
    s = np.full(len(y), 1 / len(y))
    Z = _standardize(X, s).T
    K = W.shape[1]
    Y = (y[:, None] == (np.arange(1, 2) if K == 1 else np.arange(K))).astype(float)
    eta = Z @ W + b
    P = 1 / (1 + np.exp(-eta)) if K == 1 else np.exp(eta) / np.exp(eta).sum(1, keepdims=True)
    G = Z.T @ ((P - Y) * s[:, None])
    assert np.all(np.abs(G[zero]) <= lam * (1 + 1e-3))
    nz = W != 0
    np.testing.assert_allclose(G[nz], -lam * np.sign(W[nz]), atol=lam * 2e-3)
    np.testing.assert_allclose(grad, np.abs(G).sum(axis=1), rtol=1e-6, atol=1e-12)


def test_lambda_max_is_where_the_first_feature_enters():
    X, y = _data(p=20)
    lam0 = lambda_max(X, y)
    n = len(y)
    W_above, *_ = penalized_logistic(X, y, C=1 / (1.01 * lam0 * n))
    W_below, *_ = penalized_logistic(X, y, C=1 / (0.9 * lam0 * n))
    assert np.count_nonzero(W_above) == 0
    assert np.count_nonzero(W_below) >= 1


def test_scores_are_abs_coef_summed_over_classes_and_ranking_is_full():
    X, y = _data(p=30, classes=3, seed=2)
    sel = L1Logistic(C=0.3).fit(X, y)
    np.testing.assert_allclose(sel.scores_, np.abs(sel.coef_).sum(axis=0))
    assert sorted(sel.ranking_) == list(range(1, 31))
    # nonzero before zero; among the zeros, larger gradient first (path entry order)
    order = np.argsort(sel.ranking_)
    nnz = sel.n_nonzero_
    assert 0 < nnz < 30
    assert np.all(sel.scores_[order[:nnz]] > 0) and np.all(sel.scores_[order[nnz:]] == 0)
    assert np.all(np.diff(sel.scores_[order[:nnz]]) <= 0)
    assert np.all(np.diff(sel.gradient_[order[nnz:]]) <= 1e-15)


def test_zero_order_predicts_the_next_feature_to_enter():
    """The zero feature ranked first enters first when C grows a little."""
    X, y = _data(n=50, p=40, seed=7)
    sel = L1Logistic(C=0.05, tol=1e-6).fit(X, y)
    nnz = sel.n_nonzero_
    first_zero = int(np.argsort(sel.ranking_)[nnz])
    for factor in np.geomspace(1.01, 3, 40):
        W, *_ = penalized_logistic(X, y, C=0.05 * factor, tol=1e-6)
        new = np.flatnonzero(np.any(W != 0, axis=1))
        extra = set(new) - set(np.flatnonzero(sel.scores_ > 0))
        if extra:
            assert first_zero in extra
            break
    else:
        pytest.fail("no feature entered")


def test_elastic_net_keeps_correlated_features_together():
    rng = np.random.default_rng(3)
    z = rng.normal(size=60)
    X = np.column_stack([z + 0.05 * rng.normal(size=60), z + 0.05 * rng.normal(size=60),
                         rng.normal(size=(60, 6))])
    y = (z + 0.3 * rng.normal(size=60) > 0).astype(int)
    lasso = L1Logistic(C=0.2).fit(X, y)
    enet = ElasticNetLogistic(C=0.2, l1_ratio=0.2).fit(X, y)
    assert max(lasso.scores_[:2]) > 0
    assert enet.scores_[0] > 0 and enet.scores_[1] > 0
    ratio = min(enet.scores_[:2]) / max(enet.scores_[:2])
    lasso_ratio = min(lasso.scores_[:2]) / max(lasso.scores_[:2])
    assert ratio > lasso_ratio


def test_method_strings_and_bad_values():
    assert isinstance(make_selector("l1-logistic"), L1Logistic)
    sel = make_selector("enet-logistic(l1_ratio=0.3, C=2)")
    assert isinstance(sel, ElasticNetLogistic) and sel.l1_ratio == 0.3 and sel.C == 2
    from stablefs._errors import StablefsError

    with pytest.raises(StablefsError, match="l1_ratio"):
        make_selector("enet-logistic(l1_ratio=0)")
    with pytest.raises(StablefsError, match="C = -1"):
        make_selector("l1-logistic(C=-1)")


def test_sample_weight_equals_repeated_rows():
    X, y = _data(n=20, p=6, seed=5)
    w = np.ones(20)
    w[:5] = 2
    rep = np.r_[np.arange(20), np.arange(5)]
    a = L1Logistic(C=1.0, tol=1e-7).fit(X, y, sample_weight=w)
    b = L1Logistic(C=1.0, tol=1e-7).fit(X[rep], y[rep])
    # standardisation uses the same weighted moments in both
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-5)


@parametrize_with_checks([L1Logistic(), ElasticNetLogistic()])
def test_sklearn_compatible(estimator, check):
    check(estimator)
