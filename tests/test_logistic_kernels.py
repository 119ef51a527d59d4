"""The compiled penalised-logistic kernels (``_logistic_kernels``) against the NumPy/SciPy
computation they replaced, written out here as the reference."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from logistic_helpers import reference_fista, reference_gradient, reference_kkt
from stablefs.selectors import penalized_logistic as pl
from stablefs.selectors._logistic_kernels import fista, kkt_residual, loss_gradient


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
def test_gradient_and_kkt_equal_the_numpy_reference(classes):
    Z, Y, s, binary = _problem(classes, classes=classes)
    rng = np.random.default_rng(9)
    W = rng.normal(size=(Z.shape[1], Y.shape[1])) * (rng.random((Z.shape[1], Y.shape[1])) < .4)
    b = rng.normal(size=Y.shape[1])
    gW, gb = loss_gradient(Z, Y, s, W, b, binary)
    rW, rb = reference_gradient(Z, Y, s, W, b, binary)
    assert_allclose(gW, rW, rtol=1e-12, atol=1e-15)
    assert_allclose(gb, rb, rtol=1e-12, atol=1e-15)
    assert kkt_residual(Z, Y, s, binary, 0.01, 0.002, W, b) == pytest.approx(
        reference_kkt(Z, Y, s, binary, 0.01, 0.002, W, b), rel=1e-12)


@pytest.mark.parametrize("classes, l1_ratio", [(2, 1.0), (3, 1.0), (4, 0.5)])
def test_fista_follows_the_numpy_loop(classes, l1_ratio):
    """Same iterations, the same solution to round-off (the kernel sums the restart test and
    the intercept gradient left to right, NumPy in pairs)."""
    Z, Y, s, binary = _problem(10 + classes, classes=classes)
    lam = 0.02
    l1, l2 = lam * l1_ratio, lam * (1 - l1_ratio)
    step = 1.0 / ((0.25 if binary else 0.5) * pl._lipschitz(Z, s) + l2)
    W0 = np.zeros((Z.shape[1], Y.shape[1]))
    b0 = np.zeros(Y.shape[1])
    W, b, it = fista(Z, Y, s, binary, l1, l2, 1e-6 * lam, W0, b0, 3000, step)
    rW, rb, rit = reference_fista(Z, Y, s, binary, l1, l2, lam, W0, b0, 1e-6, 3000, step)
    assert it == rit
    assert_allclose(W, rW, rtol=1e-9, atol=1e-12)
    assert_allclose(b, rb, rtol=1e-9, atol=1e-12)
    assert np.array_equal(W != 0, rW != 0)


@pytest.mark.parametrize("n, m", [(30, 8), (8, 30), (200, 50)])
def test_lipschitz_constant_equals_the_svd_norm(n, m):
    """The top eigenvalue of the smaller Gram matrix (row blocks) is the squared spectral norm
    of ``[diag(sqrt s) Z, sqrt(s)]`` that the SVD gave before."""
    rng = np.random.default_rng(n + m)
    Z = rng.normal(size=(n, m))
    s = rng.random(n)
    s /= s.sum()
    ref = np.linalg.norm(np.column_stack([Z * np.sqrt(s)[:, None], np.sqrt(s)]), 2) ** 2
    assert pl._lipschitz(Z, s) == pytest.approx(ref, rel=1e-12)
    old_budget = pl.BLOCK_BYTES
    try:
        pl.BLOCK_BYTES = 8 * (m + 1) * 7  # blocks of 7 rows
        assert pl._lipschitz(Z, s) == pytest.approx(ref, rel=1e-12)
    finally:
        pl.BLOCK_BYTES = old_budget


def test_standardize_in_blocks_equals_the_whole_matrix():
    """Column blocks (multiples of 64 columns, one BLAS thread) give the numbers of the
    whole-matrix computation."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(37, 1000)) * 5 + 2
    X[:, 7] = 4.0  # constant: 0
    w = rng.random(37)
    w /= w.sum()
    mean = w @ X
    Z = X - mean
    sd = np.sqrt(w @ (Z * Z))
    sd[sd <= 1e-12 * np.maximum(1.0, np.abs(mean))] = np.inf
    ref = Z / sd
    old_budget = pl.BLOCK_BYTES
    try:
        for budget in (old_budget, 8 * 37 * 128):
            pl.BLOCK_BYTES = budget
            np.testing.assert_array_equal(pl._standardize(X, w), ref)
    finally:
        pl.BLOCK_BYTES = old_budget
    assert np.all(pl._standardize(X, w)[:, 7] == 0)
