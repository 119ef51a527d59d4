"""The compiled penalised-logistic kernels (``_logistic_kernels``) against the NumPy/SciPy
computation they replaced (the NumPy FISTA loop, run to a tight tolerance), written out here as
the reference."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import logsumexp

from logistic_helpers import (
    reference_fista,
    reference_gradient,
    reference_kkt,
    reference_step,
)
from stablefs.selectors import penalized_logistic as pl
from stablefs.selectors._logistic_kernels import _fitted, _worst_violation, path


def _problem(seed, n=30, m=40, classes=3):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, m))
    codes = rng.integers(0, classes, n)
    codes[:classes] = np.arange(classes)
    binary = classes == 2
    Y = (codes[:, None] == (np.arange(1, 2) if binary else np.arange(classes))).astype(float)
    s = rng.random(n)
    return Z, Y, s / s.sum(), binary


@pytest.mark.parametrize("classes", [2, 3, 5])
def test_loss_gradient_and_kkt_equal_the_numpy_reference(classes):
    """The kernels' probabilities, residuals, loss and KKT residual against NumPy/SciPy."""
    Z, Y, s, binary = _problem(classes, classes=classes)
    rng = np.random.default_rng(9)
    W = rng.normal(size=(Z.shape[1], Y.shape[1])) * (rng.random((Z.shape[1], Y.shape[1])) < .4)
    b = rng.normal(size=Y.shape[1])
    eta = Z @ W
    P, R = np.empty_like(eta), np.empty_like(eta)
    loss = _fitted(eta, b, Y, s, binary, P, R)
    if binary:
        ref_loss = s @ (np.logaddexp(0, eta[:, 0] + b[0]) - Y[:, 0] * (eta[:, 0] + b[0]))
    else:
        ref_loss = s @ (logsumexp(eta + b, axis=1) - np.sum(Y * (eta + b), axis=1))
    assert loss == pytest.approx(ref_loss, rel=1e-12)
    rW, rb = reference_gradient(Z, Y, s, W, b, binary)
    assert_allclose(Z.T @ R, rW, rtol=1e-12, atol=1e-15)
    assert_allclose(R.sum(axis=0), rb, rtol=1e-12, atol=1e-15)
    assert _worst_violation(Z.T @ R, R.sum(axis=0), W, 0.01, 0.002) == pytest.approx(
        reference_kkt(Z, Y, s, binary, 0.01, 0.002, W, b), rel=1e-12)


@pytest.mark.parametrize("classes, l1_ratio", [(2, 1.0), (3, 1.0), (4, 0.5), (5, 1.0)])
def test_path_reaches_the_numpy_fista_optimum(classes, l1_ratio):
    """The proximal Newton path and the NumPy FISTA loop (run to a tight tolerance from zero
    on all features) find the same minimiser at every penalty of a decreasing grid, with the
    same nonzero coefficients; the KKT residual is within the bound asked."""
    Z, Y, s, binary = _problem(10 + classes, classes=classes)
    K = Y.shape[1]
    b0 = np.log(np.clip(s @ Y, 1e-12, None))
    lams = np.array([0.08, 0.04, 0.02, 0.01])
    l1s, l2s = lams * l1_ratio, lams * (1 - l1_ratio)
    W = np.zeros((Z.shape[1], K))
    selected, W_last, b_last, G, n_iter = path(np.ascontiguousarray(Z.T), Y, s, binary, l1s,
                                              l2s,
                                              1e-9 * lams, W, b0.copy(), 500, 3)
    assert n_iter < 40 * lams.size
    for q, lam in enumerate(lams):
        step = reference_step(Z, s, binary, l2s[q])
        rW, rb, _ = reference_fista(Z, Y, s, binary, l1s[q], l2s[q], lam,
                                    np.zeros_like(W), np.zeros(K), 1e-10, 200000, step)
        assert np.array_equal(selected[q], np.any(rW != 0, axis=1))
        if q == lams.size - 1:
            assert_allclose(W_last, rW, atol=1e-7)
            assert reference_kkt(Z, Y, s, binary, l1s[q], l2s[q], W_last, b_last) <= 1e-9 * lam
            gW, _ = reference_gradient(Z, Y, s, W_last, b_last, binary)
            assert_allclose(G, gW, rtol=1e-9, atol=1e-14)


@pytest.mark.parametrize("classes", [2, 4])
def test_the_working_set_and_the_warm_start_change_only_the_cost(classes):
    """One feature added at a time, every feature at once, a warm start from another
    penalty's solution, each penalty alone from zero, coordinate descent alone instead of
    the exact solve on the face (what a face too large for it gets), or the exact solve until
    the face outgrows it and then every KKT violator at once: the same selected sets and the
    same solution within the tolerance."""
    Z, Y, s, binary = _problem(30 + classes, n=25, m=120, classes=classes)
    Zt = np.ascontiguousarray(Z.T)
    K = Y.shape[1]
    b0 = np.log(np.clip(s @ Y, 1e-12, None))
    lams = np.array([0.1, 0.05, 0.03])
    runs = []
    for grow in (1, 10, 120):
        W = np.zeros((Z.shape[1], K))
        runs.append(path(Zt, Y, s, binary, lams, 0 * lams, 1e-9 * lams, W, b0.copy(), 500,
                         grow))
    W = np.zeros((Zt.shape[0], K))
    runs.append(path(Zt, Y, s, binary, lams, 0 * lams, 1e-9 * lams, W, b0.copy(), 5000, 10, 0))
    W = np.zeros((Zt.shape[0], K))  # exact solves on small faces, then every violator at once
    runs.append(path(Zt, Y, s, binary, lams, 0 * lams, 1e-9 * lams, W, b0.copy(), 5000, 1, 6))
    alone = [path(Zt, Y, s, binary, lams[q:q + 1], 0 * lams[:1], 1e-9 * lams[q:q + 1],
                  np.zeros((Z.shape[1], K)), b0.copy(), 500, 10)[0][0] for q in range(3)]
    for selected, W, *_ in runs[1:]:
        assert np.array_equal(selected, runs[0][0])
        assert_allclose(W, runs[0][1], atol=1e-7)
    assert np.array_equal(np.array(alone), runs[0][0])


def test_a_constant_feature_never_enters():
    Z, Y, s, binary = _problem(5, classes=3)
    Z[:, 4] = 0.0  # a constant feature, standardised
    lams = np.array([0.01, 0.002])
    selected, W, b, G, _ = path(np.ascontiguousarray(Z.T), Y, s, binary, lams, 0 * lams,
                                1e-8 * lams, np.zeros((Z.shape[1], 3)), np.zeros(3), 500, 40)
    assert not selected[:, 4].any() and np.all(np.isfinite(W))
    assert np.all(G[4] == 0)


def test_standardize_equals_the_numpy_formula_on_any_rows():
    """The weighted mean and SD of the rows asked, constant features 0; the same numbers
    for the same input (sums in a fixed order)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(37, 1000)) * 5 + 2
    X[:, 7] = 4.0  # constant: 0
    rows = np.sort(rng.choice(37, 20, replace=False))
    w = rng.random(20)
    w /= w.sum()
    part = X[rows]
    mean = w @ part
    Z = part - mean
    sd = np.sqrt(w @ (Z * Z))
    sd[sd <= 1e-12 * np.maximum(1.0, np.abs(mean))] = np.inf
    ref = Z / sd
    got = pl._standardize(X, w, rows).T
    assert_allclose(got, ref, rtol=1e-12, atol=1e-13)
    assert np.all(got[:, 7] == 0)
    assert np.array_equal(got, pl._standardize(np.asfortranarray(X), w, rows).T)
    assert np.array_equal(pl._standardize(part, w).T, got)
