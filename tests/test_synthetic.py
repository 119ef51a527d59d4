"""Tests of the synthetic generators (seed 000 sec. 6.1; seed 004 sec. 2.2)."""

from __future__ import annotations

import numpy as np
import pytest

from stablefs import StablefsError
from stablefs.datasets import load, make_han2012, make_xiao2007, xiao2007_mu

# --------------------------------------------------------------------------------------------
# make_han2012
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def han_big():
    return make_han2012(n_samples=20000, random_state=0)


def _block_corr(C: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray]:
    idx = np.arange(C.shape[0]) // block
    same = (idx[:, None] == idx[None, :]) & ~np.eye(C.shape[0], dtype=bool)
    other = idx[:, None] != idx[None, :]
    return C[same], C[other]


def test_han_defaults_shape_and_relevance():
    ds = make_han2012(random_state=1)
    assert ds.X.shape == (100, 1000)
    assert ds.X.dtype == np.float64 and ds.X.flags.c_contiguous
    assert set(np.unique(ds.y)) <= {1, -1}
    assert ds.relevance.shape == (1000,)
    assert ds.relevance.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(ds.relevance[:50], 0.02)
    assert np.all(ds.relevance[50:] == 0)
    np.testing.assert_array_equal(ds.relevant, np.arange(50))
    # exactly 50 samples from each component (seed: "50 from N1 and 50 from N2")
    assert np.bincount(ds.meta["component"])[1:].tolist() == [50, 50]
    assert ds.feature_names[0] == "f0" and len(ds.feature_names) == 1000


def test_han_deterministic():
    a = make_han2012(n_samples=30, random_state=7)
    b = make_han2012(n_samples=30, random_state=7)
    c = make_han2012(n_samples=30, random_state=8)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert not np.array_equal(a.X, c.X)
    d = make_han2012(n_samples=30, random_state=np.random.default_rng(7))
    np.testing.assert_array_equal(a.X, d.X)


def test_han_labels_are_sign_of_optimal_weights(han_big):
    ds = han_big
    np.testing.assert_array_equal(ds.y, np.where(ds.X @ ds.relevance > 0, 1, -1))
    # labels disagree with the component for about 11 % of the samples (documented)
    disagree = np.mean(ds.y != np.where(ds.meta["component"] == 1, 1, -1))
    assert 0.09 < disagree < 0.13


def test_han_label_by_component():
    ds = make_han2012(n_samples=40, label_by="component", random_state=0)
    np.testing.assert_array_equal(ds.y, np.where(ds.meta["component"] == 1, 1, -1))
    assert np.bincount(ds.y + 1)[[0, 2]].tolist() == [20, 20]


def test_han_covariance_structure(han_big):
    X, comp = han_big.X, han_big.meta["component"]
    # irrelevant features (no mean shift): plain correlation
    C = np.corrcoef(X[:, 100:140], rowvar=False)
    within, across = _block_corr(C, 10)
    assert np.all(np.abs(within - 0.8) < 0.02)
    assert abs(across.mean()) < 0.01 and np.max(np.abs(across)) < 0.05
    assert np.all(np.abs(X[:, 100:140].var(axis=0) - 1) < 0.05)
    # relevant features: centred within each component
    R = X[:, :50].copy()
    for k in (1, 2):
        R[comp == k] -= R[comp == k].mean(axis=0)
    within, across = _block_corr(np.corrcoef(R, rowvar=False), 10)
    assert np.all(np.abs(within - 0.8) < 0.02)
    assert abs(across.mean()) < 0.02 and np.max(np.abs(across)) < 0.05


def test_han_means(han_big):
    X, comp = han_big.X, han_big.meta["component"]
    m1, m2 = X[comp == 1].mean(axis=0), X[comp == 2].mean(axis=0)
    np.testing.assert_allclose(m1[:50], 0.5, atol=0.05)
    np.testing.assert_allclose(m2[:50], -0.5, atol=0.05)
    np.testing.assert_allclose(m1[50:], 0.0, atol=0.05)
    np.testing.assert_allclose(m2[50:], 0.0, atol=0.05)


def test_han_parameters():
    ds = make_han2012(
        n_samples=11,
        n_features=60,
        n_blocks=4,
        block_size=5,
        rho=0.3,
        n_relevant=6,
        mean=1.0,
        weight=[1, 1, 1, 2, 2, 2],
        balanced=False,
        random_state=0,
    )
    assert ds.X.shape == (11, 60)
    np.testing.assert_allclose(ds.relevance[:6], np.array([1, 1, 1, 2, 2, 2]) / 9)
    np.testing.assert_array_equal(ds.y, np.where(ds.X @ ds.relevance > 0, 1, -1))
    with pytest.raises(StablefsError, match="exceeds n_features"):
        make_han2012(n_features=50, n_blocks=10, block_size=10)
    with pytest.raises(StablefsError, match="rho"):
        make_han2012(rho=-0.5)
    with pytest.raises(StablefsError, match="label_by"):
        make_han2012(label_by="majority")
    with pytest.raises(StablefsError, match="whole number"):
        make_han2012(n_samples=10.5)
    with pytest.raises(StablefsError, match="weight"):
        make_han2012(weight=[1, 2])


def test_han_tail_features_independent():
    ds = make_han2012(n_samples=20000, n_features=120, n_blocks=10, random_state=3)
    C = np.corrcoef(ds.X[:, 95:120], rowvar=False)
    assert np.all(np.abs(C[5:, 5:][~np.eye(20, dtype=bool)]) < 0.05)
    assert np.abs(C[0, 1:5] - 0.8).max() < 0.02


# --------------------------------------------------------------------------------------------
# make_xiao2007
# --------------------------------------------------------------------------------------------


def test_xiao_mu():
    mu = xiao2007_mu()
    assert mu.shape == (200,)
    best = np.arange(0, 200, 20)
    assert np.all(mu[best] == 0.3)
    others = np.delete(mu, best)
    assert others.max() < 0.3 / 5 and others.min() > 0
    assert mu.min() >= 0 and mu.max() <= 0.35  # the range of the seed's Figure 2


@pytest.mark.parametrize("model", ["equal", "unequal", "bimodal"])
def test_xiao_shapes_balance_determinism(model):
    a = make_xiao2007(model, n_samples=50, random_state=4)
    b = make_xiao2007(model, n_samples=50, random_state=4)
    assert a.X.shape == (50, 200)
    assert np.bincount(a.y).tolist() == [25, 25]
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    np.testing.assert_array_equal(a.relevant, np.arange(0, 200, 20))
    assert a.relevance.sum() == pytest.approx(1.0)
    assert np.count_nonzero(a.relevance) == 10
    odd = make_xiao2007(model, n_samples=51, random_state=0)
    assert np.bincount(odd.y).tolist() == [26, 25]


def _within_block_cov(X: np.ndarray, block: int = 20) -> tuple[float, float, float]:
    S = np.cov(X, rowvar=False)
    idx = np.arange(S.shape[0]) // block
    same = (idx[:, None] == idx[None, :]) & ~np.eye(S.shape[0], dtype=bool)
    other = idx[:, None] != idx[None, :]
    return float(np.diag(S).mean()), float(S[same].mean()), float(np.abs(S[other]).max())


def test_xiao_equal_model():
    ds = make_xiao2007("equal", n_samples=20000, random_state=0)
    mu = 1.75 * xiao2007_mu()
    X0, X1 = ds.X[ds.y == 0], ds.X[ds.y == 1]
    np.testing.assert_allclose(X0.mean(axis=0), mu, atol=0.05)
    np.testing.assert_allclose(X1.mean(axis=0), -mu, atol=0.05)
    for Xc in (X0, X1):
        var, cov_in, cov_out = _within_block_cov(Xc[:, :60])
        assert var == pytest.approx(1.0, abs=0.03)
        assert cov_in == pytest.approx(0.1, abs=0.01)
        assert cov_out < 0.06


def test_xiao_unequal_model_has_twice_the_covariance_in_class_1():
    ds = make_xiao2007("unequal", n_samples=20000, random_state=1)
    mu = 1.75 * xiao2007_mu()
    X0, X1 = ds.X[ds.y == 0], ds.X[ds.y == 1]
    np.testing.assert_allclose(X0.mean(axis=0), mu, atol=0.05)
    np.testing.assert_allclose(X1.mean(axis=0), -mu, atol=0.07)
    var0, cov0, _ = _within_block_cov(X0[:, :60])
    var1, cov1, _ = _within_block_cov(X1[:, :60])
    assert var0 == pytest.approx(1.0, abs=0.03) and cov0 == pytest.approx(0.1, abs=0.01)
    assert var1 == pytest.approx(2.0, abs=0.06) and cov1 == pytest.approx(0.2, abs=0.02)


def test_xiao_bimodal_model():
    ds = make_xiao2007("bimodal", n_samples=20000, random_state=2)
    mu_c = 4.0 * xiao2007_mu()
    comp = ds.meta["component"]
    X0, X1 = ds.X[ds.y == 0], ds.X[ds.y == 1]
    assert np.all(comp[ds.y == 0] == 0) and set(np.unique(comp[ds.y == 1])) == {-1, 1}
    np.testing.assert_allclose(X0.mean(axis=0), 0.0, atol=0.05)
    # class 1 mean ≈ 0 (equal mixture of ±μc), but each component has mean ±μc
    np.testing.assert_allclose(X1.mean(axis=0), 0.0, atol=0.1)
    np.testing.assert_allclose(ds.X[comp == 1].mean(axis=0), mu_c, atol=0.07)
    np.testing.assert_allclose(ds.X[comp == -1].mean(axis=0), -mu_c, atol=0.07)
    share = np.mean(comp[ds.y == 1] == 1)
    assert 0.48 < share < 0.52
    var, cov_in, _ = _within_block_cov(ds.X[comp == 1][:, :60])
    assert var == pytest.approx(1.0, abs=0.05) and cov_in == pytest.approx(0.1, abs=0.015)


def test_xiao_parameters_and_errors():
    ds = make_xiao2007("equal", n_features=50, block_size=20, scale=1.0, random_state=0)
    np.testing.assert_array_equal(ds.relevant, [0, 20, 40])  # last block of 10
    assert ds.meta["scale"] == 1.0
    custom = np.linspace(0, 1, 200)
    ds = make_xiao2007(mu=custom, random_state=0)
    np.testing.assert_array_equal(ds.meta["mu"], custom)
    with pytest.raises(StablefsError, match="did you mean 'bimodal'"):
        make_xiao2007("bimodel")
    with pytest.raises(StablefsError, match="mu must be 200"):
        make_xiao2007(mu=[1, 2, 3])


# --------------------------------------------------------------------------------------------
# synthetic specs through load()
# --------------------------------------------------------------------------------------------


def test_synthetic_specs():
    ds = load("synthetic:han2012")
    assert ds.X.shape == (100, 1000)
    ds = load("synthetic:han2012?n_samples=200&random_state=3")
    assert ds.X.shape == (200, 1000)
    assert ds.name == "synthetic:han2012?n_samples=200&random_state=3"
    np.testing.assert_array_equal(ds.X, make_han2012(n_samples=200, random_state=3).X)
    ds = load("synthetic:xiao2007?model=bimodal&n_samples=50")
    assert ds.X.shape == (50, 200) and ds.meta["model"] == "bimodal"
    ds = load("synthetic:han2012?rho=0.5&mean=1e-1&balanced=false&random_state=1&n_samples=20")
    assert ds.meta["params"]["rho"] == 0.5 and ds.meta["params"]["mean"] == 0.1
    assert ds.meta["params"]["balanced"] is False


@pytest.mark.parametrize(
    "spec, match",
    [
        ("synthetic:han2011", "did you mean synthetic:han2012"),
        ("synthetic:han2012?n_sample=10", "did you mean 'n_samples'"),
        ("synthetic:han2012?n_samples", "key=value"),
        ("synthetic:xiao2007?model=weird", "not one of"),
        ("synthetic:han2012?n_samples=abc", "whole number"),
    ],
)
def test_synthetic_spec_errors(spec, match):
    with pytest.raises(StablefsError, match=match) as info:
        load(spec)
    assert "\n" not in str(info.value)
