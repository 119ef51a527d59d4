r"""Nogueira, Sechidis & Brown (JMLR 18(174), 2018): stability estimator, variance, CI, tests.

Notation: Z is the (m × p) 0/1 selection matrix, p̂_f = (1/m) Σ_i z_if the selection
frequency of feature f, k_i = Σ_f z_if, k̄ = (1/m) Σ_i k_i and s_f² = m/(m−1) p̂_f (1 − p̂_f)
the unbiased variance of column f.

**Estimator** (the paper's Φ̂):

    Φ̂(Z) = 1 − [(1/p) Σ_f s_f²] / [(k̄/p)(1 − k̄/p)].

**Exact identity.** Because Σ_f p̂_f = k̄ and Σ_f p̂_f² = (1/m²) Σ_{i,j} |S_i ∩ S_j|,

    Φ̂ = (ā − k̄²/p) / (k̄ − k̄²/p),   ā = mean of |S_i ∩ S_j| over the m(m−1)/2 pairs i < j.

So Φ̂ is a ratio of *averages*. When every subset has the same size k (k̄ = k) the
denominator is the same for every pair and Φ̂ equals, exactly and for every finite m, the
mean pairwise Kuncheva index (= mean pairwise Phi, since Phi = Kuncheva for equal sizes).
This holds only with the unbiased s_f² (the factor m/(m−1)); with the plug-in variance
p̂_f(1 − p̂_f) one gets 1/m + (m−1)/m · (mean Kuncheva) instead.
For unequal sizes Φ̂ is *not* the mean pairwise Phi (each pair has its own denominator);
only the ratio-of-averages identity above holds. Both statements are tested.

**Variance** (the paper's asymptotic-normality theorem, m → ∞). With

    φ_i = 1/((k̄/p)(1 − k̄/p)) · [ (1/p) Σ_f z_if p̂_f − k_i k̄/p²
                                  + (Φ̂/2) (2 k_i k̄/p² − k_i/p − k̄/p + 1) ],

    v(Φ̂) = 4/m² · Σ_i (φ_i − φ̄)².

We re-derived this by the delta method: Φ̂ = g(ā, k̄) with g(A, K) = (A − K²/p)/(K − K²/p);
ā is a U-statistic of order 2 with kernel ⟨z_i, z_j⟩ whose Hájek projection is
(2/m) Σ_i ⟨z_i, π⟩, so Φ̂ − Φ ≈ (1/m) Σ_i [2 g_A ⟨z_i, π⟩ + g_K k_i] = (2/m) Σ_i φ_i +
const with g_A = 1/D, g_K = −(2K/p + Φ (1 − 2K/p))/D, D = K(1 − K/p). The bracket above is
exactly g_A ⟨z_i, p̂⟩ + (g_K/2) k_i up to terms constant in i (which cancel in φ_i − φ̄),
and Var ≈ Var(2φ)/m estimated by 4/m² Σ (φ_i − φ̄)². Variants that scale by
4/(m(m−1)), or drop the Φ̂/2 term (which carries the dependence of the denominator on the
sizes), give different numbers; ``tests/test_stability_nogueira.py`` checks our φ_i against
a finite-difference influence function and against a literal transcription of the theorem.

Simulation check (``tests/test_stability_nogueira.py``; two models with p = 200: independent
Bernoulli selections, and top-20 of noisy scores; 1,500 replications each). The estimator is
consistent, but optimistic for small m because the second-order term of the U-statistic is
ignored (ratio = mean v / Monte-Carlo Var(Φ̂); coverage of the nominal 95 % interval):

    m    ratio (paper)   coverage (paper)   ratio (jackknife)   coverage (jackknife)
    10   0.51–0.65       0.80–0.85          1.04–1.13           0.92–0.93
    20   0.70–0.84       0.88–0.91          0.98–1.09           0.93–0.94
    50   0.88–0.97       0.93–0.94          1.01–1.07           0.95
    100  0.94–0.95       —                  —                   —

The default interval of :func:`nogueira_ci` is therefore the delete-one-result jackknife
variance with a Student-t quantile (m − 1 degrees of freedom), Φ̂ ± t_{m−1, 1−α/2} sqrt(v_J):
it covers 94.6–97.2 % at m = 10, 20 and 50 where the paper's covers 83–92 % at 10–20
(``benchmarks/bench_coverage.py``, with a known population value). ``variance="asymptotic"``
gives the paper's interval, Φ̂ ± z_{1−α/2} sqrt(v). Both are clipped to Φ̂'s range
[−1/(m−1), 1].
**Tests:** one-sample z = (Φ̂ − Φ₀)/sqrt(v); two-sample (independent results of two
algorithms) z = (Φ̂_a − Φ̂_b)/sqrt(v_a + v_b); p-values from the standard normal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from stablefs._errors import StablefsError
from stablefs.stability._common import normal_interval, student_interval
from stablefs.stability._inputs import SubsetData, as_subsets, check_alpha, named, plain

if TYPE_CHECKING:
    from typing import Literal

    from stablefs.stability._inputs import FeatureNames, Subsets

__all__ = [
    "NogueiraTest",
    "nogueira",
    "nogueira_ci",
    "nogueira_test",
    "nogueira_two_sample_test",
    "nogueira_variance",
]


class NogueiraTest(NamedTuple):
    """Result of a Nogueira z-test (a named tuple).

    Parameters
    ----------
    statistic : float
        The z statistic.
    pvalue : float
        Its p-value under the standard normal.
    estimate : float
        Φ̂ (one sample) or Φ̂_a − Φ̂_b (two samples).
    variance : float
        The variance of ``estimate``.

    References
    ----------
    .. [1] S. Nogueira, K. Sechidis and G. Brown, "On the stability of feature selection
       algorithms", Journal of Machine Learning Research 18(174), 1–54, 2018.

    Examples
    --------
    >>> from stablefs.stability import nogueira_test
    >>> result = nogueira_test([[0, 1, 2], [0, 1, 3], [0, 1, 2], [0, 2, 3]], n_features=20)
    >>> round(result.estimate, 3), round(result.pvalue, 4)
    (0.673, 0.0)
    """

    statistic: float
    pvalue: float
    estimate: float
    variance: float


def _data(subsets, n_features, feature_names=None) -> SubsetData:
    subsets, n_features, _ = named(subsets, n_features, feature_names)
    data = as_subsets(subsets, n_features, min_subsets=2)
    kbar = data.sizes.mean()
    if kbar == 0 or kbar == data.p:
        what = "empty" if kbar == 0 else f"all p = {data.p} features"
        raise StablefsError(
            f"Nogueira's stability is undefined when every subset is {what} "
            "(no variance is possible; k̄ must satisfy 0 < k̄ < p)."
        )
    return data


def _estimate(data: SubsetData) -> float:
    m, p = data.m, data.p
    ph = data.Z.sum(axis=0) / m
    kbar = data.sizes.mean()
    s2 = m / (m - 1) * np.sum(ph * (1 - ph))
    return float(1 - (s2 / p) / ((kbar / p) * (1 - kbar / p)))


def _phi_terms(data: SubsetData, est: float) -> np.ndarray:
    m, p = data.m, data.p
    Zf = data.Z.astype(np.float64)
    ph = Zf.sum(axis=0) / m
    k = data.sizes.astype(np.float64)
    kbar = k.mean()
    denom = (kbar / p) * (1 - kbar / p)
    return (1 / denom) * (
        (Zf @ ph) / p - k * kbar / p**2
        + (est / 2) * (2 * k * kbar / p**2 - k / p - kbar / p + 1)
    )


def _asymptotic_variance(data: SubsetData, est: float) -> float:
    phi = _phi_terms(data, est)
    return float(4 / data.m**2 * np.sum((phi - phi.mean()) ** 2))


def _jackknife_variance(data: SubsetData) -> float:
    m, p = data.m, data.p
    if m < 3:
        return float("nan")
    Zf = data.Z.astype(np.float64)
    F = Zf.sum(axis=0)
    Floo = (F[None, :] - Zf) / (m - 1)                       # p̂ without result l
    kloo = (data.sizes.sum() - data.sizes) / (m - 1)
    s2 = (m - 1) / (m - 2) * np.sum(Floo * (1 - Floo), axis=1)
    den = (kloo / p) * (1 - kloo / p)
    if np.any(den == 0):
        return float("nan")
    loo = 1 - (s2 / p) / den
    return float((m - 1) / m * np.sum((loo - loo.mean()) ** 2))


def nogueira(subsets: Subsets, n_features: int | None = None, *,
             feature_names: FeatureNames | None = None) -> float:
    r"""Nogueira, Sechidis & Brown (2018) stability estimator Φ̂.

    Φ̂ = 1 − [(1/p) Σ_f s_f²] / [(k̄/p)(1 − k̄/p)],  s_f² = m/(m−1) p̂_f (1 − p̂_f),
    equivalently (ā − k̄²/p)/(k̄ − k̄²/p) with ā the mean pairwise intersection size.

    * Range: [−1/(m−1), 1]; 1 iff all subsets are identical.
    * Corrected for chance: yes (≈ 0, exactly 0 in expectation for equal sizes, under random
      selection); the only measure here satisfying all five properties of the paper.
    * Needs: m ≥ 2 results, p, any sizes, 0 < k̄ < p (otherwise a
      :class:`~stablefs.StablefsError`). Empty subsets are allowed.
    * For equal sizes it equals the mean pairwise :func:`kuncheva` / :func:`phi` exactly;
      see the module docstring for the precise identity.

    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        The m selection results.
    n_features : int, optional
        p; required for index collections.
    feature_names : sequence of str, optional
        The p column names, in order; subsets may then list names instead of indices
        (``n_features`` defaults to their number).

    Returns
    -------
    float
        Φ̂.

    See Also
    --------
    nogueira_ci : Φ̂ with its variance and confidence interval.
    nogueira_test, nogueira_two_sample_test : z-tests.

    References
    ----------
    .. [1] S. Nogueira, K. Sechidis and G. Brown, "On the stability of feature selection
       algorithms", Journal of Machine Learning Research 18(174), 1–54, 2018.

    Examples
    --------
    >>> from stablefs.stability import kuncheva, nogueira
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> Z = np.zeros((20, 50), dtype=bool)
    >>> for row in Z:  # 20 results: features 0-4 always, 5 of 45 others at random
    ...     row[:5] = True
    ...     row[5 + rng.choice(45, size=5, replace=False)] = True
    >>> round(nogueira(Z), 3)
    0.443

    The paper's one-line formula, and the mean pairwise Kuncheva index (equal sizes):

    >>> kbar = Z.sum(axis=1).mean()
    >>> round(float(1 - Z.var(axis=0, ddof=1).mean() / ((kbar / 50) * (1 - kbar / 50))), 3)
    0.443
    >>> round(kuncheva(Z), 3)
    0.443
    """
    return _estimate(_data(subsets, n_features, feature_names))


def nogueira_variance(subsets: Subsets, n_features: int | None = None, *,
                      method: Literal["asymptotic", "jackknife"] = "asymptotic",
                      feature_names: FeatureNames | None = None) -> float:
    """Estimate the variance of Φ̂: asymptotic (Nogueira et al. 2018) or jackknife.

    See the module docstring for the formula, its derivation and its small-m behaviour.

    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        The m selection results.
    n_features : int, optional
        p; required for index collections.
    method : {"asymptotic", "jackknife"}
        The paper's asymptotic variance 4/m² Σ (φ_i − φ̄)², or the delete-one-result
        jackknife (recommended for m < 50; NaN when m < 3).
    feature_names : sequence of str, optional
        As in :func:`nogueira`.

    Returns
    -------
    float
        The variance estimate.

    References
    ----------
    .. [1] S. Nogueira, K. Sechidis and G. Brown, "On the stability of feature selection
       algorithms", Journal of Machine Learning Research 18(174), 1–54, 2018.
    .. [2] B. Efron and C. Stein, "The jackknife estimate of variance", The Annals of
       Statistics 9(3), 586–596, 1981.

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.stability import nogueira_variance
    >>> rng = np.random.default_rng(0)
    >>> Z = np.zeros((20, 50), dtype=bool)
    >>> for row in Z:  # 20 results: features 0-4 always, 5 of 45 others at random
    ...     row[:5] = True
    ...     row[5 + rng.choice(45, size=5, replace=False)] = True
    >>> round(nogueira_variance(Z), 5), round(nogueira_variance(Z, method="jackknife"), 5)
    (5e-05, 7e-05)
    """
    data = _data(subsets, n_features, feature_names)
    if method == "asymptotic":
        return _asymptotic_variance(data, _estimate(data))
    if method == "jackknife":
        return _jackknife_variance(data)
    raise StablefsError(
        f"unknown variance method {plain(method)}: use 'asymptotic' or 'jackknife'."
    )


def nogueira_ci(subsets: Subsets, n_features: int | None = None, alpha: float = 0.05, *,
                variance: Literal["asymptotic", "jackknife"] = "jackknife",
                feature_names: FeatureNames | None = None) -> tuple[float, float, float, float]:
    """Φ̂ with its variance and (1 − alpha) confidence interval.

    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        The m selection results.
    n_features : int, optional
        p; required for index collections.
    alpha : float
        1 − confidence level.
    variance : {"jackknife", "asymptotic"}
        ``"jackknife"`` (default): the delete-one-result jackknife variance v_J and the
        Student-t interval Φ̂ ± t_{m−1, 1−α/2} sqrt(v_J), which keeps its coverage at 10–20
        results (NaN bounds when m < 3). ``"asymptotic"``: the paper's
        v(Φ̂) = 4/m² Σ (φ_i − φ̄)² and the normal interval Φ̂ ± z_{1−α/2} sqrt(v), too narrow
        for small m (see the module docstring).
    feature_names : sequence of str, optional
        The p column names, in order; subsets may then list names instead of indices
        (``n_features`` defaults to their number).

    Returns
    -------
    (estimate, variance, low, high)
        low/high clipped to Φ̂'s range [−1/(m−1), 1].

    References
    ----------
    .. [1] S. Nogueira, K. Sechidis and G. Brown, "On the stability of feature selection
       algorithms", Journal of Machine Learning Research 18(174), 1–54, 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.stability import nogueira_ci
    >>> rng = np.random.default_rng(0)
    >>> Z = np.zeros((20, 50), dtype=bool)
    >>> for row in Z:  # 20 results: features 0-4 always, 5 of 45 others at random
    ...     row[:5] = True
    ...     row[5 + rng.choice(45, size=5, replace=False)] = True
    >>> estimate, variance, low, high = nogueira_ci(Z, alpha=0.05)
    >>> round(estimate, 3), round(low, 3), round(high, 3)
    (0.443, 0.425, 0.46)
    """
    alpha = check_alpha(alpha)
    data = _data(subsets, n_features, feature_names)
    est = _estimate(data)
    bounds = (-1.0 / (data.m - 1), 1.0)
    if variance == "asymptotic":
        var = _asymptotic_variance(data, est)
        low, high = normal_interval(est, var, alpha, bounds)
    elif variance == "jackknife":
        var = _jackknife_variance(data)
        low, high = student_interval(est, var, data.m, alpha, bounds)
    else:
        raise StablefsError(
            f"unknown variance method {plain(variance)}: use 'asymptotic' or 'jackknife'."
        )
    return est, var, low, high


def _pvalue(z: float, alternative: str) -> float:
    from scipy import stats  # on first use (stablefs._runtime.lazy)

    if alternative == "greater":
        return float(stats.norm.sf(z))
    if alternative == "less":
        return float(stats.norm.cdf(z))
    if alternative == "two-sided":
        return float(2 * stats.norm.sf(abs(z)))
    raise StablefsError(
        f"unknown alternative {plain(alternative)}: use 'greater', 'less' or 'two-sided'."
    )


def _z(diff: float, var: float) -> float:
    if var > 0:
        return diff / np.sqrt(var)
    return 0.0 if diff == 0 else float(np.copysign(np.inf, diff))


def nogueira_test(subsets: Subsets, n_features: int | None = None, *, null: float = 0.0,
                  alternative: Literal["greater", "less", "two-sided"] = "greater",
                  feature_names: FeatureNames | None = None) -> NogueiraTest:
    """One-sample z-test of H0: Φ = ``null`` (Nogueira et al. 2018).

    z = (Φ̂ − Φ₀)/sqrt(v(Φ̂)) with the asymptotic variance; ``null=0`` tests whether the
    algorithm is more stable than random selection.

    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        The m selection results.
    n_features : int, optional
        p; required for index collections.
    null : float
        Φ₀.
    alternative : {"greater", "less", "two-sided"}
        H1: Φ > Φ₀ (default), Φ < Φ₀, or Φ ≠ Φ₀.
    feature_names : sequence of str, optional
        The p column names, in order; subsets may then list names instead of indices
        (``n_features`` defaults to their number).

    Returns
    -------
    NogueiraTest
        ``statistic`` (z), ``pvalue``, ``estimate``, ``variance``. With zero variance (all
        φ_i equal, e.g. identical subsets) z is ±inf, or 0 when Φ̂ = Φ₀.

    References
    ----------
    .. [1] S. Nogueira, K. Sechidis and G. Brown, "On the stability of feature selection
       algorithms", Journal of Machine Learning Research 18(174), 1–54, 2018.

    Examples
    --------
    Is the selection more stable than random selection (Φ = 0)?

    >>> import numpy as np
    >>> from stablefs.stability import nogueira_test
    >>> rng = np.random.default_rng(0)
    >>> Z = np.zeros((20, 50), dtype=bool)
    >>> for row in Z:  # 20 results: features 0-4 always, 5 of 45 others at random
    ...     row[:5] = True
    ...     row[5 + rng.choice(45, size=5, replace=False)] = True
    >>> result = nogueira_test(Z)
    >>> round(result.statistic, 2), result.pvalue < 0.001
    (60.7, True)
    """
    data = _data(subsets, n_features, feature_names)
    est = _estimate(data)
    var = _asymptotic_variance(data, est)
    z = _z(est - float(null), var)
    return NogueiraTest(float(z), _pvalue(z, alternative), est, var)


def nogueira_two_sample_test(subsets_a: Subsets, subsets_b: Subsets, n_features: int | None = None,
                             *, alternative: Literal["greater", "less", "two-sided"] = "two-sided",
                             feature_names: FeatureNames | None = None) -> NogueiraTest:
    """Two-sample z-test of H0: Φ_a = Φ_b for two algorithms (Nogueira et al. 2018).

    z = (Φ̂_a − Φ̂_b)/sqrt(v_a + v_b). The two systems of results are assumed independent
    (different resamples); on shared resamples the results are positively correlated and the
    test is conservative.

    Parameters
    ----------
    subsets_a, subsets_b : sequence of index collections, or boolean matrix of shape (m, p)
        The results of the two algorithms (m may differ, p may not).
    n_features : int, optional
        p; required for index collections.
    alternative : {"two-sided", "greater", "less"}
        H1: Φ_a ≠ Φ_b, Φ_a > Φ_b or Φ_a < Φ_b.
    feature_names : sequence of str, optional
        Shared by both systems, as in :func:`nogueira`.

    Returns
    -------
    NogueiraTest
        ``estimate`` is Φ̂_a − Φ̂_b and ``variance`` is v_a + v_b.

    References
    ----------
    .. [1] S. Nogueira, K. Sechidis and G. Brown, "On the stability of feature selection
       algorithms", Journal of Machine Learning Research 18(174), 1–54, 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.stability import nogueira_two_sample_test
    >>> rng = np.random.default_rng(0)
    >>> Z = np.zeros((20, 50), dtype=bool)
    >>> for row in Z:  # 20 results: features 0-4 always, 5 of 45 others at random
    ...     row[:5] = True
    ...     row[5 + rng.choice(45, size=5, replace=False)] = True
    >>> Z_random = np.zeros((20, 50), dtype=bool)
    >>> for row in Z_random:  # 10 features at random
    ...     row[rng.choice(50, size=10, replace=False)] = True
    >>> result = nogueira_two_sample_test(Z, Z_random)
    >>> round(result.estimate, 3), result.pvalue < 0.001
    (0.439, True)
    """
    da = _data(subsets_a, n_features, feature_names)
    db = _data(subsets_b, n_features, feature_names)
    if da.p != db.p:
        raise StablefsError(f"the two systems have {da.p} and {db.p} features: they must match.")
    ea, eb = _estimate(da), _estimate(db)
    var = _asymptotic_variance(da, ea) + _asymptotic_variance(db, eb)
    z = _z(ea - eb, var)
    return NogueiraTest(float(z), _pvalue(z, alternative), ea - eb, var)
