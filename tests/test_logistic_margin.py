"""L2-regularised logistic margin weighting (Li et al. 2013, eq. 1) against slow references."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import check_grad

from stablefs import make_selector
from stablefs.selectors import LogisticMarginWeighting
from stablefs.selectors.logistic_margin import (
    logistic_loss,
    logistic_margin_vectors,
    logistic_margin_weights,
)
from stablefs.stabilizers import Ensemble


def _slow_margins(X, y, scale=True):
    """z_i = |x_i - NM| - |x_i - NH| by explicit loops (Manhattan, ties to the lower index)."""
    X = np.asarray(X, float)
    if scale:
        span = X.max(0) - X.min(0)
        span[span == 0] = 1.0
        X = (X - X.min(0)) / span
    n = len(y)
    Z = np.zeros_like(X)
    for i in range(n):
        best_h = best_m = None
        dh = dm = np.inf
        for j in range(n):
            if j == i:
                continue
            d = sum(abs(X[i, f] - X[j, f]) for f in range(X.shape[1]))
            if y[j] == y[i] and d < dh:
                dh, best_h = d, j
            if y[j] != y[i] and d < dm:
                dm, best_m = d, j
        Z[i] = np.abs(X[i] - X[best_m])
        if best_h is not None:
            Z[i] -= np.abs(X[i] - X[best_h])
    return Z


def _slow_loss(w, Z, gamma):
    n = Z.shape[0]
    return sum(np.log1p(np.exp(-Z[i] @ w)) for i in range(n)) / n + gamma * w @ w


def _data(n=24, p=7, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    X = rng.normal(size=(n, p)) + y[:, None] * np.linspace(1.5, 0, p)
    return X, y


@pytest.mark.parametrize("n_classes", [2, 3])
def test_margins_match_slow_reference(n_classes):
    X, y = _data(n_classes=n_classes)
    X[3] = X[8]  # a duplicate: the nearest neighbour at distance 0 (a hit or a miss)
    X[:, 2] = 5.0  # a constant feature: margin 0
    for scale in (True, False):
        Z = logistic_margin_vectors(X, y, scale=scale)
        assert np.allclose(Z, _slow_margins(X, y, scale), atol=1e-12)
    assert np.all(logistic_margin_vectors(X, y)[:, 2] == 0)


def test_margins_ties_go_to_lower_index_and_singleton_has_no_hit():
    # x0's neighbours x1 (miss) and x2 (miss) are at equal distance; x3 is alone in class 2
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [3.0, 3.0], [0.2, 0.1]])
    y = np.array([0, 1, 1, 2, 0])
    Z = logistic_margin_vectors(X, y, scale=False)
    assert np.allclose(Z, _slow_margins(X, y, scale=False))
    # x3: miss is the nearest of classes 0 and 1 (x1 at distance 5 vs x2 at 5: lower index)
    assert np.allclose(Z[3], np.abs(X[3] - X[1]))


def test_gradient_is_exact():
    X, y = _data(p=12, n_classes=3)
    Z = logistic_margin_vectors(X, y)
    s = np.random.default_rng(1).random(len(y))
    s /= s.sum()
    rng = np.random.default_rng(2)
    for _ in range(3):
        w0 = rng.normal(scale=2.0, size=Z.shape[1])
        err = check_grad(lambda w: logistic_loss(w, Z, s, 0.7)[0],
                         lambda w: logistic_loss(w, Z, s, 0.7)[1], w0)
        assert err < 1e-6 * max(1.0, np.linalg.norm(logistic_loss(w0, Z, s, 0.7)[1]))


def test_loss_matches_eq1_and_is_stable_for_large_margins():
    X, y = _data()
    Z = logistic_margin_vectors(X, y)
    w = np.linspace(-1, 1, Z.shape[1])
    s = np.full(len(y), 1 / len(y))
    assert logistic_loss(w, Z, s, 1.0)[0] == pytest.approx(_slow_loss(w, Z, 1.0), rel=1e-12)
    big = 1e4 * w
    loss, grad = logistic_loss(big, Z, s, 0.0)
    assert np.isfinite(loss) and np.all(np.isfinite(grad))


def _newton(Z, gamma, n_steps=50):
    """Slow reference solver: Newton's method with the exact Hessian of eq. 1, by loops."""
    n, p = Z.shape
    w = np.zeros(p)
    for _ in range(n_steps):
        g = 2 * gamma * w
        H = 2 * gamma * np.eye(p)
        for i in range(n):
            t = Z[i] @ w
            sig_neg = 1 / (1 + np.exp(t))
            g = g - sig_neg * Z[i] / n
            H = H + sig_neg * (1 - sig_neg) * np.outer(Z[i], Z[i]) / n
        w = w - np.linalg.solve(H, g)
    return w


@pytest.mark.parametrize(("gamma", "n_classes"), [(0.1, 2), (1.0, 3), (10.0, 2)])
def test_weights_are_the_minimiser_of_eq1(gamma, n_classes):
    X, y = _data(n=30, p=6, n_classes=n_classes, seed=3)
    X[:, 4] = 1.0
    X[5] = X[11]
    w = logistic_margin_weights(X, y, gamma=gamma)
    Z = _slow_margins(X, y)
    assert np.allclose(w, _newton(Z, gamma), atol=1e-8)
    assert _slow_loss(w, Z, gamma) <= _slow_loss(w + 1e-4, Z, gamma)
    assert w[4] == 0.0  # a constant feature has zero margin, hence weight exactly 0


def test_sample_weight_scales_loss_terms_and_zero_weight_is_removal():
    X, y = _data(n=20, p=5)
    sw = np.ones(len(y))
    sw[[2, 7]] = 0.0
    ours = LogisticMarginWeighting().fit(X, y, sample_weight=sw).scores_
    keep = sw > 0
    assert np.allclose(ours, LogisticMarginWeighting().fit(X[keep], y[keep]).scores_)
    s = np.random.default_rng(0).random(len(y))
    w = logistic_margin_weights(X, y, sample_weight=s)
    Z = logistic_margin_vectors(X, y)
    sig = 1 / (1 + np.exp(Z @ w))
    assert np.allclose(w, ((s / s.sum()) * sig) @ Z / 2.0, atol=1e-8)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_feature_permutation_permutes_weights(seed):
    rng = np.random.default_rng(seed)
    n, p = 12, 5
    X = rng.integers(0, 4, size=(n, p)).astype(float)  # integers: exact Manhattan distances
    y = np.arange(n) % 2
    perm = rng.permutation(p)
    # unscaled: integer Manhattan distances are exact, so ties break the same way
    w = logistic_margin_weights(X, y, scale=False)
    wp = logistic_margin_weights(X[:, perm], y, scale=False)
    assert np.allclose(wp, w[perm], atol=1e-7)


def test_selector_ranks_by_weight_and_relevant_feature_first():
    X, y = _data(n=40, p=8)
    sel = LogisticMarginWeighting(n_features_to_select=2).fit(X, y)
    assert np.array_equal(sel.scores_, sel.coef_)
    assert sel.ranking_[0] == 1
    assert sel.support_.sum() == 2
    assert sel.n_iter_ >= 1


def test_method_strings_and_ensembles():
    X, y = _data(n=30, p=6)
    for spec, aggregate in (("wen-logistic-margin", "weight"), ("ren-logistic-margin", "rank")):
        ens = make_selector(spec, random_state=0)
        assert isinstance(ens, Ensemble) and isinstance(ens.selector, LogisticMarginWeighting)
        assert ens.sampling == "subsample" and ens.aggregate == aggregate
        assert ens.n_estimators == 20 and ens._fraction() == 0.9
        ens.fit(X, y)
        assert ens.member_scores_.shape == (20, 6)
    wen = make_selector("wen-logistic-margin(n_estimators=4)", random_state=1).fit(X, y)
    assert np.allclose(wen.scores_, wen.member_scores_.mean(axis=0))
    assert make_selector("logistic-margin(gamma=2.0)").gamma == 2.0


@pytest.mark.parametrize("bad", ["logistic-margin(gamma=0)", "logistic-margin(tol=-1)",
                                 "logistic-margin(max_iter=0)"])
def test_bad_parameters_are_one_line(bad):
    from stablefs import StablefsError

    with pytest.raises(StablefsError):
        make_selector(bad)


def test_weights_equal_scikit_learn_logistic_regression():
    """Eq. 1 has the minimiser of scikit-learn's C sum log(1 + exp(-y w.x)) + |w|^2 / 2 with
    C = 1 / (2 gamma n), no intercept, on the margin vectors (half of them sign-flipped so
    that there are two classes; a flipped row with label -1 is the same loss term)."""
    from sklearn.linear_model import LogisticRegression

    X, y = _data(n=40, p=9, n_classes=3, seed=7)
    gamma = 0.3
    Z = logistic_margin_vectors(X, y)
    sign = np.where(np.arange(len(y)) % 2 == 0, 1.0, -1.0)
    ref = LogisticRegression(C=1 / (2 * gamma * len(y)), fit_intercept=False, tol=1e-12,
                             max_iter=10_000).fit(Z * sign[:, None], sign).coef_.ravel()
    assert np.allclose(logistic_margin_weights(X, y, gamma=gamma), ref, atol=1e-7)
