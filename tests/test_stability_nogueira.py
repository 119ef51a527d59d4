"""Nogueira, Sechidis & Brown (2018): estimator, identities, variance, CI and tests."""

import numpy as np
import pytest

from stablefs import StablefsError
from stablefs.stability import (
    kuncheva,
    nogueira,
    nogueira_ci,
    nogueira_test,
    nogueira_two_sample_test,
    nogueira_variance,
    phi,
)


def _matrix(subsets, p):
    Z = np.zeros((len(subsets), p), dtype=bool)
    for i, s in enumerate(subsets):
        Z[i, list(s)] = True
    return Z


def test_hand_computed():
    # p̂ = (.5,.5,1,1,.5,.5,0,0,0,0): Σ s_f² = 2·Σ p̂(1-p̂) = 2; k̄ = 4
    assert nogueira([[0, 1, 2, 3], [2, 3, 4, 5]], 10) == pytest.approx(1 - 0.2 / 0.24)
    # unequal sizes, same Σ s_f² and k̄
    assert nogueira([[0, 1, 2], [1, 2, 3, 4, 5]], 10) == pytest.approx(1 / 6)


def test_equal_sizes_equal_mean_pairwise_kuncheva_and_phi_exactly():
    rng = np.random.default_rng(3)
    for m in (2, 3, 7):
        subsets = [rng.choice(25, 6, replace=False) for _ in range(m)]
        est = nogueira(subsets, 25)
        assert est == pytest.approx(kuncheva(subsets, 25), abs=1e-13)
        assert est == pytest.approx(phi(subsets, 25), abs=1e-13)


def test_plugin_variance_breaks_the_equality():
    rng = np.random.default_rng(4)
    m, p = 5, 25
    Z = _matrix([rng.choice(p, 6, replace=False) for _ in range(m)], p)
    ph = Z.mean(0)
    kbar = Z.sum(1).mean()
    plugin = 1 - np.mean(ph * (1 - ph)) / ((kbar / p) * (1 - kbar / p))
    assert plugin == pytest.approx(1 / m + (m - 1) / m * kuncheva(Z))
    assert plugin != pytest.approx(kuncheva(Z))


def test_unequal_sizes_ratio_of_averages_identity_not_mean_phi():
    rng = np.random.default_rng(5)
    p, m = 30, 6
    subsets = [rng.choice(p, k, replace=False) for k in (3, 5, 8, 4, 10, 6)]
    Z = _matrix(subsets, p)
    A = Z.astype(int) @ Z.T.astype(int)
    i, j = np.triu_indices(m, 1)
    abar = A[i, j].mean()
    kbar = Z.sum(1).mean()
    assert nogueira(Z) == pytest.approx((abar - kbar**2 / p) / (kbar - kbar**2 / p), abs=1e-13)
    assert abs(nogueira(Z) - phi(Z)) > 1e-3


def test_bounds_and_maximum():
    assert nogueira([[1, 2, 3]] * 4, 10) == 1.0
    # most even spread: every feature selected by exactly half -> lower bound -1/(m-1)
    Z = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=bool)
    assert nogueira(Z) >= -1 / 3 - 1e-12


def _paper_variance_loop(Z):
    """Literal transcription of the paper's v(Φ̂), one φ_i at a time."""
    Z = Z.astype(float)
    M, d = Z.shape
    hatPF = Z.mean(0)
    kbar = hatPF.sum()
    k = Z.sum(1)
    denom = (kbar / d) * (1 - kbar / d)
    stab = 1 - (M / (M - 1)) * np.mean(hatPF * (1 - hatPF)) / denom
    phis = np.array([
        (1 / denom) * (np.mean(Z[i] * hatPF) - k[i] * kbar / d**2
                       + (stab / 2) * (2 * k[i] * kbar / d**2 - k[i] / d - kbar / d + 1))
        for i in range(M)])
    return stab, 4 / M**2 * np.sum((phis - phis.mean()) ** 2)


def test_variance_matches_paper_formula():
    rng = np.random.default_rng(6)
    Z = rng.random((12, 40)) < np.linspace(0.05, 0.9, 40)
    est, var, low, high = nogueira_ci(Z, variance="asymptotic")
    s, v = _paper_variance_loop(Z)
    assert est == pytest.approx(s)
    assert var == pytest.approx(v, rel=1e-12)
    assert nogueira_variance(Z) == pytest.approx(v, rel=1e-12)
    assert (low, high) == pytest.approx((est - 1.959963984540054 * np.sqrt(v),
                                         est + 1.959963984540054 * np.sqrt(v)))


def test_phi_terms_are_the_influence_function_delta_method():
    """φ_i − φ̄ = (IF_i − mean IF)/2 where IF is the derivative of the V-statistic form
    (Σ p̂² − K²/p)/(K − K²/p) under a weight perturbation towards result i, evaluated with the
    same Φ: this is the algebra behind v = 4/m² Σ (φ_i − φ̄)² = (1/m²) Σ IF_i²."""
    from stablefs.stability._inputs import as_subsets
    from stablefs.stability.nogueira import _phi_terms

    rng = np.random.default_rng(7)
    Z = (rng.random((9, 15)) < np.linspace(0.1, 0.8, 15)).astype(float)
    m, p = Z.shape

    def phi_v(w):
        ph = w @ Z
        K = ph.sum()
        return (np.sum(ph**2) - K**2 / p) / (K - K**2 / p)

    u = np.full(m, 1 / m)
    eps = 1e-6
    E = np.eye(m)
    IF = np.array([(phi_v(u + eps * (E[i] - u)) - phi_v(u - eps * (E[i] - u))) / (2 * eps)
                   for i in range(m)])
    phis = _phi_terms(as_subsets(Z.astype(bool)), phi_v(u))
    np.testing.assert_allclose(phis - phis.mean(), (IF - IF.mean()) / 2, atol=1e-6)


def _simulate(m, reps, rng, p=40):
    pi = np.full(p, 0.08)
    pi[:6] = 0.85
    out = np.empty((reps, 3))
    for r in range(reps):
        Z = rng.random((m, p)) < pi
        est, var, _, _ = nogueira_ci(Z, variance="asymptotic")
        out[r] = est, var, nogueira_variance(Z, method="jackknife")
    return out


def test_variance_by_simulation():
    """The asymptotic variance is consistent (m = 100) but optimistic for small m (m = 8),
    where the jackknife is closer to the Monte-Carlo variance."""
    rng = np.random.default_rng(8)
    big = _simulate(100, 300, rng)
    ratio = big[:, 1].mean() / big[:, 0].var(ddof=1)
    assert 0.8 < ratio < 1.25
    small = _simulate(8, 400, rng)
    emp = small[:, 0].var(ddof=1)
    asym, jack = small[:, 1].mean() / emp, small[:, 2].mean() / emp
    assert asym < 0.85                       # documented: too narrow for small m
    assert abs(jack - 1) < abs(asym - 1)


def test_one_sample_test():
    rng = np.random.default_rng(9)
    stable = [np.r_[0:8, rng.choice(np.arange(8, 100), 2, replace=False)] for _ in range(10)]
    res = nogueira_test(stable, 100)
    assert res.estimate > 0.5 and res.statistic > 3 and res.pvalue < 1e-3
    assert nogueira_test(stable, 100, null=0.99).pvalue > 0.99           # H1: Φ > 0.99
    assert nogueira_test(stable, 100, null=0.99, alternative="less").pvalue < 0.01
    two = nogueira_test(stable, 100, null=res.estimate, alternative="two-sided")
    assert two.statistic == pytest.approx(0) and two.pvalue == pytest.approx(1)
    with pytest.raises(StablefsError, match="alternative"):
        nogueira_test(stable, 100, alternative="bigger")


def test_two_sample_test():
    rng = np.random.default_rng(10)
    stable = [np.r_[0:8, rng.choice(np.arange(8, 100), 2, replace=False)] for _ in range(10)]
    random = [rng.choice(100, 10, replace=False) for _ in range(10)]
    res = nogueira_two_sample_test(stable, random, 100)
    va, vb = nogueira_variance(stable, 100), nogueira_variance(random, 100)
    assert res.estimate == pytest.approx(nogueira(stable, 100) - nogueira(random, 100))
    assert res.variance == pytest.approx(va + vb)
    assert res.statistic == pytest.approx(res.estimate / np.sqrt(va + vb))
    assert res.pvalue < 1e-3


def test_identical_subsets_zero_variance():
    for how in ("jackknife", "asymptotic"):
        est, var, low, high = nogueira_ci([[1, 2]] * 5, 10, variance=how)
        assert (est, var, low, high) == (1.0, 0.0, 1.0, 1.0)
    res = nogueira_test([[1, 2]] * 5, 10)
    assert res.statistic == np.inf and res.pvalue == 0.0


def test_degenerate():
    with pytest.raises(StablefsError, match="at least two"):
        nogueira([[1]], 5)
    with pytest.raises(StablefsError, match="empty"):
        nogueira([[], []], 5)
    with pytest.raises(StablefsError, match="all p"):
        nogueira([[0, 1], [0, 1]], 2)
    assert np.isfinite(nogueira([[0], []], 1))          # one feature, k̄ = 0.5
    assert np.isnan(nogueira_ci([[0, 1], [1, 2]], 5, variance="jackknife")[2])  # m < 3
    with pytest.raises(StablefsError, match="alpha"):
        nogueira_ci([[0, 1], [1, 2]], 5, alpha=1.5)
