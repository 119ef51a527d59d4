"""Statistics for comparing selection methods: paired tests on the same resamples, Holm's
correction, the two-sample stability test, and bootstrap intervals of pairwise stability.

Paired tests (one value per resample for each method, the same resamples for both):

* :func:`wilcoxon_test`: Wilcoxon signed-rank test (``scipy.stats.wilcoxon``);
* :func:`corrected_resampled_ttest`: the corrected resampled t-test of Nadeau and Bengio
  (2003), whose variance is inflated by (1/J + n_test/n_train) because the J training sets
  overlap;
* :func:`dietterich_5x2cv_ttest`: the 5 × 2 cv paired t-test of Dietterich (1998).

Stability: :func:`stability_two_sample_test` is the two-sample z-test of Nogueira, Sechidis
and Brown (2018), Z = (Φ̂_1 − Φ̂_2)/sqrt(v_1 + v_2). :func:`stability_interval` is the
interval of a run's ``stability.csv``: the jackknife t-interval of every measure
(:func:`~stablefs.stability.measure_interval`). :func:`bootstrap_pair_interval`, the
percentile bootstrap over resamples of a pairwise-average measure (Han 2012, eq. 5.4) that
runs used before, stays available; it under-covers with few resamples (about 88–90 % at 10,
90–94 % at 20: ``benchmarks/bench_coverage.py``).

:func:`compare_methods` applies them to every pair of methods of a run (``comparisons.csv``),
with :func:`holm` across the pairs.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from stablefs._errors import StablefsError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike, NDArray

    from stablefs._validation import SeedLike
    from stablefs.evaluation.protocols import Resample
    from stablefs.stability._common import PairScores
    from stablefs.stability._inputs import Subsets

__all__ = [
    "COMPARISON_COLUMNS",
    "INTERVAL_KINDS",
    "ComparisonResult",
    "add_interval_column",
    "bootstrap_pair_interval",
    "compare_methods",
    "corrected_resampled_ttest",
    "dietterich_5x2cv_ttest",
    "holm",
    "interval_kind",
    "is_five_by_two",
    "stability_interval",
    "stability_two_sample_test",
    "wilcoxon_test",
]

#: the columns of ``comparisons.csv``, in order
COMPARISON_COLUMNS = ["k", "metric", "method_a", "method_b", "test", "statistic", "p_value",
                      "p_holm", "mean_difference", "n"]


@dataclass(frozen=True)
class ComparisonResult:
    """Outcome of a two-sided test of "no difference between methods a and b".

    Parameters
    ----------
    statistic : float
        The test statistic (W, t or z; see each test).
    p_value : float
        Two-sided p-value; NaN when the test is undefined (too few pairs).
    mean_difference : float
        Mean of a − b over the pairs used (Φ̂_a − Φ̂_b for the stability test).
    n : int
        Number of pairs used (resamples with both values finite; results per system for the
        stability test).

    References
    ----------
    .. [1] T. G. Dietterich, "Approximate statistical tests for comparing supervised
       classification learning algorithms", Neural Computation 10(7), 1895–1923, 1998.

    Examples
    --------
    >>> from stablefs.evaluation import wilcoxon_test
    >>> a = [0.90, 0.85, 0.80, 0.95, 0.90, 0.70]  # accuracy of method a on 6 resamples
    >>> b = [0.80, 0.80, 0.75, 0.90, 0.85, 0.72]
    >>> result = wilcoxon_test(a, b)
    >>> result.n, round(result.mean_difference, 3), round(result.p_value, 4)
    (6, 0.047, 0.0625)
    """

    statistic: float
    p_value: float
    mean_difference: float
    n: int


def _paired(a, b) -> np.ndarray:
    """Differences a − b over the pairs where both are finite."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.ndim != 1 or a.shape != b.shape:
        raise StablefsError(
            f"paired tests need two 1-D arrays of equal length; got shapes {a.shape} and "
            f"{b.shape}."
        )
    ok = np.isfinite(a) & np.isfinite(b)
    return a[ok] - b[ok]


_NAN = float("nan")


def wilcoxon_test(a: ArrayLike, b: ArrayLike) -> ComparisonResult:
    """Wilcoxon signed-rank test of paired values (two-sided).

    ``scipy.stats.wilcoxon`` on d = a − b with ``zero_method="pratt"``: zero differences (equal
    accuracy on a resample, frequent with small test parts) are ranked with the others and
    then dropped (Pratt 1959), so they make the test more conservative instead of being
    ignored as in Wilcoxon's original ``"wilcox"`` rule. Tied |d| get mid-ranks.
    The p-value is exact when n ≤ 50 and there are neither ties nor zeros (scipy's
    ``method="exact"``); with ties or zeros it is the exact sign-flip permutation p over all
    2^n signs when n ≤ 13 (:func:`signed_rank_permutation_p`, what scipy ≥ 1.15 computes
    with ``method="auto"``, vectorised: scipy's took about 1 s a test, a minute for the
    comparisons of a run with 10 resamples), otherwise the normal approximation with scipy's
    tie correction. Differences are
    rounded to 12 decimals first, so that floating-point noise in a − b (0.9 − 0.8 versus
    0.8 − 0.7) does not break real ties between accuracies. Pairs with a NaN (e.g. an
    undefined AUC) are left out.

    The test treats the J resamples as independent; their training sets overlap, so like the
    plain paired t-test it is liberal (on Colon, 20 splits, t-test against ReliefF at k = 10:
    Wilcoxon p = 0.004, corrected resampled t p = 0.28). Prefer
    :func:`corrected_resampled_ttest` for decisions; the Wilcoxon test is reported as the
    distribution-free view.

    Parameters
    ----------
    a, b : array-like of shape (J,)
        One value per resample for each method, the same resamples.

    Returns
    -------
    ComparisonResult
        ``statistic`` is scipy's (min(W+, W−) for the two-sided test). All differences zero:
        statistic 0, p-value 1. Fewer than 2 pairs: NaN.

    See Also
    --------
    corrected_resampled_ttest : The test to decide with.

    References
    ----------
    .. [1] F. Wilcoxon, "Individual comparisons by ranking methods", Biometrics Bulletin
       1(6), 80–83, 1945.
    .. [2] J. W. Pratt, "Remarks on zeros and ties in the Wilcoxon signed rank procedures",
       Journal of the American Statistical Association 54(287), 655–667, 1959.

    Examples
    --------
    >>> from stablefs.evaluation import wilcoxon_test
    >>> a = [0.90, 0.85, 0.80, 0.95, 0.90, 0.70]  # accuracy of method a on 6 resamples
    >>> b = [0.80, 0.80, 0.75, 0.90, 0.85, 0.72]
    >>> result = wilcoxon_test(a, b)
    >>> result.statistic, round(result.p_value, 4)
    (1.0, 0.0625)
    """
    d = _paired(a, b)
    n = int(d.size)
    mean = float(d.mean()) if n else _NAN
    if n < 2:
        return ComparisonResult(_NAN, _NAN, mean, n)
    d = np.round(d, 12)  # 0.9 - 0.8 and 0.8 - 0.7 are the same difference: rank them as ties
    if not np.any(d != 0):
        return ComparisonResult(0.0, 1.0, mean, n)
    statistic, p = signed_rank_pratt(d)
    return ComparisonResult(statistic, p, mean, n)


#: up to this many differences with ties or zeros, the signed-rank p-value is the exact
#: sign-flip permutation p (scipy's ``method="auto"`` threshold: 2^13 < its 9999 resamples)
EXACT_SIGN_FLIPS = 13


def signed_rank_pratt(d: NDArray[np.float64]) -> tuple[float, float]:
    """Two-sided Wilcoxon signed-rank test of differences ``d`` with Pratt's zeros.

    ``scipy.stats.wilcoxon(d, zero_method="pratt", method="auto")``, except that with ties
    or zeros and at most :data:`EXACT_SIGN_FLIPS` differences the exact permutation p-value
    comes from :func:`signed_rank_permutation_p` (the same number, vectorised) and not from
    ``scipy.stats.permutation_test`` calling the statistic once per sign vector.

    Parameters
    ----------
    d : array of shape (n,)
        Finite differences, not all zero.

    Returns
    -------
    statistic, p_value : float
        min(W+, W−) and the two-sided p-value.

    Examples
    --------
    >>> from stablefs.evaluation.statistics import signed_rank_pratt
    >>> signed_rank_pratt(np.array([0.1, 0.0, 0.1, 0.1, 0.1, 0.05, -0.1]))
    (5.0, 0.21875)
    """
    d = np.asarray(d, dtype=float)
    ranks = stats.rankdata(np.abs(d))  # Pratt: the zeros take the smallest ranks
    w_plus, w_minus = float(ranks[d > 0].sum()), float(ranks[d < 0].sum())
    tied = np.unique(np.abs(d)).size < d.size
    if (tied or np.any(d == 0)) and d.size <= EXACT_SIGN_FLIPS:
        return min(w_plus, w_minus), signed_rank_permutation_p(ranks[d != 0], w_plus)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns when it switches to the approximation
        res = stats.wilcoxon(d, zero_method="pratt", alternative="two-sided", method="auto")
    return float(res.statistic), float(res.pvalue)


def signed_rank_permutation_p(ranks: NDArray[np.float64], w_plus: float) -> float:
    """Exact two-sided sign-flip permutation p-value of the signed-rank sum W+.

    Under the null each difference is + or − with probability 1/2: W+ is the sum of the
    ranks of a random subset of the non-zero differences (a zero difference, flipped,
    stays zero: its flips repeat every subset, so the proportions are those over the
    subsets of the non-zero ones, which ``scipy.stats.permutation_test`` reaches over all
    2^n sign vectors). p = min(1, 2 min(P(W ≤ w), P(W ≥ w))) with scipy's relative tolerance
    of 100 machine epsilons on w.

    Parameters
    ----------
    ranks : array of shape (n_nonzero,)
        The (mid-)ranks of the non-zero differences.
    w_plus : float
        The observed sum of the ranks of the positive differences (2^n_nonzero sums are
        formed: keep n_nonzero small, about 20 at most).

    Returns
    -------
    float
        The p-value.

    Examples
    --------
    d = 1, −2, 3, 4, 5: W+ = 13; P(W+ ≥ 13) = P(W+ ≤ 2) = 3/32:

    >>> from stablefs.evaluation.statistics import signed_rank_permutation_p
    >>> signed_rank_permutation_p(np.arange(1.0, 6.0), 13.0)
    0.1875
    """
    ranks = np.asarray(ranks, dtype=float)
    signs = (np.arange(2 ** ranks.size)[:, None] >> np.arange(ranks.size)) & 1
    null = signs @ ranks  # each subset of the non-zero differences once
    gamma = abs(np.finfo(float).eps * 100 * w_plus)
    less = np.count_nonzero(null <= w_plus + gamma) / null.size
    greater = np.count_nonzero(null >= w_plus - gamma) / null.size
    return float(min(1.0, 2 * min(less, greater)))


def corrected_resampled_ttest(a: ArrayLike, b: ArrayLike, n_train: float,
                              n_test: float) -> ComparisonResult:
    """Corrected resampled t-test of paired values, two-sided (Nadeau and Bengio 2003).

    With d_j = a_j − b_j on J resamples, d̄ their mean and σ̂² their sample variance
    (ddof = 1)::

        t = d̄ / sqrt((1/J + n_test/n_train) σ̂²),   t ~ Student t with J − 1 df.

    The plain paired t-test uses 1/J alone and ignores that the training sets overlap, which
    makes it far too liberal; the n_test/n_train term is Nadeau and Bengio's correction
    (for repeated k-fold CV, n_test/n_train = 1/(k − 1)).

    Parameters
    ----------
    a, b : array-like of shape (J,)
        One value per resample for each method (pairs with a NaN are left out).
    n_train, n_test : float
        Training and test sizes of a resample (their means when they vary by one).

    Returns
    -------
    ComparisonResult
        With σ̂² = 0: t = 0 and p = 1 if d̄ = 0, else ±inf and p = 0. Fewer than 2 pairs: NaN.

    References
    ----------
    .. [1] C. Nadeau and Y. Bengio, "Inference for the generalization error", Machine
       Learning 52(3), 239–281, 2003 (the corrected resampled t-test).

    Examples
    --------
    Six random splits of 40 samples, 26 to train and 14 to test:

    >>> from stablefs.evaluation import corrected_resampled_ttest
    >>> a = [0.90, 0.85, 0.80, 0.95, 0.90, 0.70]  # accuracy of method a on 6 resamples
    >>> b = [0.80, 0.80, 0.75, 0.90, 0.85, 0.72]
    >>> result = corrected_resampled_ttest(a, b, n_train=26, n_test=14)
    >>> round(result.statistic, 3), round(result.p_value, 3)
    (1.451, 0.206)
    """
    if not (np.isfinite(n_train) and np.isfinite(n_test) and n_train > 0 and n_test > 0):
        raise StablefsError(
            f"n_train and n_test must be positive; got {n_train} and {n_test}."
        )
    d = _paired(a, b)
    J = int(d.size)
    mean = float(d.mean()) if J else _NAN
    if J < 2:
        return ComparisonResult(_NAN, _NAN, mean, J)
    var = float(np.var(d, ddof=1)) * (1.0 / J + float(n_test) / float(n_train))
    t = _ratio(mean, var)
    return ComparisonResult(t, float(2 * stats.t.sf(abs(t), J - 1)), mean, J)


def _ratio(diff: float, var: float) -> float:
    if var > 0:
        return float(diff / np.sqrt(var))
    return 0.0 if diff == 0 else float(np.copysign(np.inf, diff))


def dietterich_5x2cv_ttest(a: ArrayLike, b: ArrayLike) -> ComparisonResult:
    """Dietterich's (1998) 5 × 2 cv paired t-test, two-sided.

    ``a`` and ``b`` hold the values of 5 replications of 2-fold CV, shape (5, 2) (or 10 values
    in replication-major order). With p_i^(j) = a − b on fold j of replication i,
    p̄_i = (p_i^(1) + p_i^(2))/2 and s_i² = (p_i^(1) − p̄_i)² + (p_i^(2) − p̄_i)²::

        t = p_1^(1) / sqrt((1/5) Σ_i s_i²),   t ~ Student t with 5 df

    (Dietterich 1998, eq. 9): the numerator is the first fold's difference of the first
    replication only, the denominator pools the five replications' variances.

    Parameters
    ----------
    a, b : array-like of shape (5, 2) or (10,)
        The values of the two methods on the ten folds.

    Returns
    -------
    ComparisonResult
        ``mean_difference`` is the mean of the 10 differences. NaN when a value is missing.
        With Σ s_i² = 0: t = 0 if p_1^(1) = 0, else ±inf.

    References
    ----------
    .. [1] T. G. Dietterich, "Approximate statistical tests for comparing supervised
       classification learning algorithms", Neural Computation 10(7), 1895–1923, 1998, eq. 9.

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.evaluation import dietterich_5x2cv_ttest
    >>> rng = np.random.default_rng(0)
    >>> a = 0.90 + 0.02 * rng.standard_normal((5, 2))
    >>> b = 0.85 + 0.02 * rng.standard_normal((5, 2))
    >>> result = dietterich_5x2cv_ttest(a, b)
    >>> round(result.statistic, 3), round(result.p_value, 4)
    (3.292, 0.0217)
    """
    a = np.asarray(a, dtype=float).reshape(-1)
    b = np.asarray(b, dtype=float).reshape(-1)
    if a.size != 10 or b.size != 10:
        raise StablefsError(
            f"the 5 x 2 cv t-test needs 5 replications of 2 folds (10 values per method); got "
            f"{a.size} and {b.size}."
        )
    p = (a - b).reshape(5, 2)
    if not np.all(np.isfinite(p)):
        return ComparisonResult(_NAN, _NAN, _NAN, int(np.isfinite(p).sum()))
    s2 = ((p - p.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    t = _ratio(float(p[0, 0]), float(s2.mean()))
    return ComparisonResult(t, float(2 * stats.t.sf(abs(t), 5)), float(p.mean()), 10)


def holm(p_values: ArrayLike) -> NDArray[np.float64]:
    """Holm's (1979) step-down adjusted p-values (family-wise error control).

    Sorted ascending p_(1) ≤ … ≤ p_(m): adj_(i) = max_{l ≤ i} min(1, (m − l + 1) p_(l)).
    NaN p-values are not part of the family (they stay NaN and do not count in m). Holm is
    chosen over Bonferroni (uniformly more powerful, same guarantee, no assumption on the
    dependence between the pairwise tests, which share resamples).

    Parameters
    ----------
    p_values : array-like of float
        The family's p-values (NaN allowed).

    Returns
    -------
    ndarray of float
        The adjusted p-values, in the input order.

    References
    ----------
    .. [1] S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian
       Journal of Statistics 6(2), 65–70, 1979.

    Examples
    --------
    >>> from stablefs.evaluation import holm
    >>> holm([0.01, 0.04, 0.03, float("nan")]).round(3).tolist()
    [0.03, 0.06, 0.06, nan]
    """
    p = np.asarray(p_values, dtype=float).reshape(-1)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = ok.size
    if m == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    adj = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(adj)
    return out


def stability_two_sample_test(subsets_a: Subsets, subsets_b: Subsets,
                              n_features: int | None = None) -> ComparisonResult:
    """Test whether two methods are equally stable, two-sided (Nogueira et al. 2018).

    Z = (Φ̂_a − Φ̂_b)/sqrt(v_a + v_b) with v the asymptotic variance of each estimator;
    under H0 Z is standard normal. The two systems are taken as independent; on the same
    resamples their selections are positively correlated, which makes the test conservative.
    The statistic and the two-sided p-value 2(1 − Φ(|Z|)) agree with the authors' reference
    code (``getTStatistic.m`` of their JMLR 2018 material, which reports Φ̂_2 − Φ̂_1).
    See :func:`stablefs.stability.nogueira_two_sample_test`, which this wraps.

    Parameters
    ----------
    subsets_a, subsets_b : sequence of index collections, or boolean matrix of shape (m, p)
        The top-k subsets of the two methods.
    n_features : int, optional
        p; required for index collections.

    Returns
    -------
    ComparisonResult
        ``statistic`` Z, ``p_value``, ``mean_difference`` Φ̂_a − Φ̂_b, ``n`` the results of a.

    References
    ----------
    .. [1] S. Nogueira, K. Sechidis and G. Brown, "On the stability of feature selection
       algorithms", Journal of Machine Learning Research 18(174), 1–54, 2018.

    Examples
    --------
    >>> from stablefs.evaluation import stability_two_sample_test
    >>> stable = [[0, 1, 2], [0, 1, 3], [0, 1, 2], [0, 2, 3]]
    >>> unstable = [[0, 4, 7], [1, 5, 8], [2, 6, 9], [3, 4, 5]]
    >>> result = stability_two_sample_test(stable, unstable, n_features=10)
    >>> round(result.mean_difference, 3), result.p_value < 0.001
    (0.873, True)
    """
    from stablefs.stability import nogueira_two_sample_test
    from stablefs.stability._inputs import as_subsets

    res = nogueira_two_sample_test(subsets_a, subsets_b, n_features, alternative="two-sided")
    m = as_subsets(subsets_a, n_features).m
    return ComparisonResult(float(res.statistic), float(res.pvalue), float(res.estimate), m)


def bootstrap_pair_interval(scores: PairScores, *, n_boot: int = 1000, alpha: float = 0.05,
                            random_state: SeedLike = 0) -> tuple[float, float]:
    """Percentile bootstrap interval, over resamples, of a pairwise-average stability measure.

    The estimate is the mean over all pairs i < j of the m results (Han 2012, eq. 5.4). A
    bootstrap draw picks m results with replacement (counts w); its statistic is the mean
    over the pairs of *distinct* drawn results, Σ_{a≠b} w_a w_b S_ab / Σ_{a≠b} w_a w_b,
    taken from the pair-score matrix S (a result drawn twice is never compared with itself,
    which would count as perfect agreement). The reference form (each result against one
    reference, Yu et al. 2008 eq. 7) resamples the m terms. Nothing is refitted; all draws
    are one matrix product. Draws with a single distinct result (no pair) are skipped.

    Parameters
    ----------
    scores : PairScores
        From :func:`stablefs.stability.measure_pair_scores`.
    n_boot : int
        Number of bootstrap draws.
    alpha : float
        1 − confidence level; the bounds are the alpha/2 and 1 − alpha/2 quantiles.
    random_state : int or None
        Seed of the draws.

    Returns
    -------
    low, high : float
        NaN when m < 3 (with 2 results every draw gives the only pair or none).

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall,
       1993 (the percentile interval).
    .. [2] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, eq. 5.4.

    Examples
    --------
    >>> from stablefs.evaluation import bootstrap_pair_interval
    >>> from stablefs.stability import measure_pair_scores
    >>> subsets = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [0, 1, 2], [1, 2, 3]]
    >>> low, high = bootstrap_pair_interval(measure_pair_scores("kuncheva", subsets, 10),
    ...                                     n_boot=200)
    >>> round(low, 3), round(high, 3)
    (0.524, 0.762)
    """
    if not isinstance(n_boot, (int, np.integer)) or n_boot < 1:
        raise StablefsError(f"n_boot must be a positive integer, not {n_boot!r}.")
    if not (0 < alpha < 1):
        raise StablefsError(f"alpha must lie in (0, 1), not {alpha!r}.")
    m = int(scores.m)
    values = np.asarray(scores.values, dtype=float)
    if m < 3 or not np.all(np.isfinite(values)):
        return _NAN, _NAN
    rng = np.random.default_rng(random_state)
    idx = rng.integers(0, m, size=(n_boot, m))
    W = np.bincount((idx + m * np.arange(n_boot)[:, None]).ravel(),
                    minlength=n_boot * m).reshape(n_boot, m).astype(float)
    if scores.j is None:
        draws = W @ values / m
    else:
        S = np.zeros((m, m))
        S[scores.i, scores.j] = values
        S = S + S.T
        num = np.einsum("ra,ra->r", W @ S, W)
        den = m * m - np.einsum("ra,ra->r", W, W)
        draws = num[den > 0] / den[den > 0]
    low, high = np.quantile(draws, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


#: the ``interval`` column of ``stability.csv``: how each row's low/high were formed (runs
#: write ``jackknife-t``; the other kinds are those of earlier versions' files)
INTERVAL_KINDS = {
    "jackknife-t": "delete-one-result jackknife standard error, Student-t interval with "
                   "m - 1 degrees of freedom, clipped to the measure's range",
    "analytic": "Nogueira et al. 2018 asymptotic normal interval (earlier versions)",
    "bootstrap": "percentile bootstrap over resamples of the pair-score matrix (earlier "
                 "versions)",
    "jackknife": "delete-one-result jackknife variance, normal interval (earlier versions)",
}


def stability_interval(name: str, subsets: Subsets, n_features: int | None = None, *,
                       X: ArrayLike | None = None, alpha: float = 0.05,
                       random_state: SeedLike = 0) -> tuple[float, float, float]:
    """Estimate a registered stability measure with its (1 − alpha) interval, as a run does.

    :func:`~stablefs.stability.measure_interval`: the delete-one-result jackknife standard
    error with a Student-t quantile (m − 1 degrees of freedom), clipped to the measure's
    range, for Nogueira's estimator, the pairwise-average measures and the whole-system ones
    alike. Simulated with a known population stability it covers at its nominal rate at 10,
    20 and 50 resamples, where Nogueira's asymptotic interval and the percentile bootstrap
    over resamples did not (``benchmarks/bench_coverage.py``). :func:`interval_kind` names
    the kind. Same signature as :func:`~stablefs.stability.measure_interval`, so the runner
    takes either.

    Parameters
    ----------
    name : str
        One of :func:`stablefs.stability.available_measures`.
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        The m selection results.
    n_features : int, optional
        p; required for index collections.
    X : array of shape (n_samples, p), optional
        For the correlation-aware measures.
    alpha : float
        1 − confidence level.
    random_state : int or None
        Seed of the Monte-Carlo parts of some measures.

    Returns
    -------
    estimate, low, high : float
        The measure and its interval.

    References
    ----------
    .. [1] S. Nogueira, K. Sechidis and G. Brown, "On the stability of feature selection
       algorithms", Journal of Machine Learning Research 18(174), 1–54, 2018.
    .. [2] B. Efron and C. Stein, "The jackknife estimate of variance", The Annals of
       Statistics 9(3), 586–596, 1981.

    Examples
    --------
    >>> from stablefs.evaluation import interval_kind, stability_interval
    >>> subsets = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [0, 1, 2], [1, 2, 3]]
    >>> [round(v, 3) for v in stability_interval("kuncheva", subsets, 10)]
    [0.571, 0.356, 0.787]
    >>> interval_kind("kuncheva"), interval_kind("nogueira"), interval_kind("somol")
    ('jackknife-t', 'jackknife-t', 'jackknife-t')
    """
    from stablefs.stability import measure_interval

    return measure_interval(name, subsets, n_features, X=X, alpha=alpha,
                            random_state=random_state)


def interval_kind(measure: str, against: str = "resamples") -> str:
    """Name the kind of interval :func:`stability_interval` gives a measure.

    Parameters
    ----------
    measure : str
        A name of :data:`stablefs.stability.MEASURES`.
    against : {"resamples", "reference"}
        ``"reference"``: the runner's full-data reference rows
        (:func:`~stablefs.evaluation.reference.reference_interval`).

    Returns
    -------
    str
        A key of :data:`INTERVAL_KINDS`: always ``"jackknife-t"``.

    References
    ----------
    .. [1] B. Efron and C. Stein, "The jackknife estimate of variance", The Annals of
       Statistics 9(3), 586–596, 1981.

    Examples
    --------
    >>> from stablefs.evaluation import interval_kind
    >>> interval_kind("nogueira"), interval_kind("jaccard", "reference")
    ('jackknife-t', 'jackknife-t')
    """
    from stablefs.stability import MEASURES

    if measure not in MEASURES:
        raise StablefsError(f"unknown stability measure {measure!r}.")
    return "jackknife-t"


def add_interval_column(stability: pd.DataFrame) -> pd.DataFrame:
    """Add the column ``interval`` (:func:`interval_kind` of each row) right after ``high``.

    So the columns ``docs/DESIGN.md`` fixes come first.

    Parameters
    ----------
    stability : pandas.DataFrame
        Rows ``method, k, measure, estimate, low, high`` (and ``against``).

    Returns
    -------
    pandas.DataFrame
        A copy with the column ``interval`` (replaced if there was one).

    References
    ----------
    .. [1] S. Nogueira, K. Sechidis and G. Brown, "On the stability of feature selection
       algorithms", Journal of Machine Learning Research 18(174), 1–54, 2018 (the analytic
       interval).

    Examples
    --------
    >>> import pandas as pd
    >>> from stablefs.evaluation import add_interval_column
    >>> table = pd.DataFrame({"method": ["ttest", "ttest"], "k": [5, 5],
    ...                       "measure": ["kuncheva", "nogueira"], "estimate": [0.7, 0.7],
    ...                       "low": [0.6, 0.6], "high": [0.8, 0.8]})
    >>> add_interval_column(table)["interval"].tolist()
    ['jackknife-t', 'jackknife-t']
    """
    out = stability.drop(columns="interval", errors="ignore")
    against = out["against"] if "against" in out else pd.Series("resamples", index=out.index)
    kinds = [interval_kind(m, a) for m, a in zip(out["measure"], against, strict=True)]
    out.insert(int(out.columns.get_loc("high")) + 1, "interval", kinds)
    return out


def is_five_by_two(resamples: Sequence[Resample]) -> bool:
    """Tell whether ``resamples`` are 5 replications of 2-fold cross-validation.

    Ten resamples, ``repeat`` 0–4 each with ``fold`` 0 and 1, the two folds of a replication
    complementary (each one's training part is the other's test part).

    Parameters
    ----------
    resamples : sequence of Resample
        The resamples of a run.

    Returns
    -------
    bool
        True when :func:`dietterich_5x2cv_ttest` applies.

    References
    ----------
    .. [1] T. G. Dietterich, "Approximate statistical tests for comparing supervised
       classification learning algorithms", Neural Computation 10(7), 1895–1923, 1998.

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.evaluation import Protocol, is_five_by_two
    >>> y = np.repeat([0, 1], 10)
    >>> is_five_by_two(Protocol.parse("5x2").resamples(y)), is_five_by_two(
    ...     Protocol.parse("cv:2", n_repeats=5).resamples(y))
    (True, True)
    >>> is_five_by_two(Protocol.parse("split", n_repeats=10).resamples(y))
    False
    """
    rs = list(resamples)
    if len(rs) != 10:
        return False
    by = {(int(getattr(r, "repeat", -1)), int(getattr(r, "fold", -1))): r for r in rs}
    if set(by) != {(i, j) for i in range(5) for j in range(2)}:
        return False
    for i in range(5):
        r0, r1 = by[(i, 0)], by[(i, 1)]
        if not (np.array_equal(np.sort(r0.train), np.sort(r1.test))
                and np.array_equal(np.sort(r0.test), np.sort(r1.train))):
            return False
    return True


def compare_methods(results: pd.DataFrame, selections: pd.DataFrame | None,
                    resamples: Sequence[Resample], sizes: Sequence[int]) -> pd.DataFrame:
    """Every pair of methods compared at every k (the rows of ``comparisons.csv``).

    * Predictive metrics (every ``results`` metric but ``fit_time``): paired over the
      resamples with :func:`wilcoxon_test` and :func:`corrected_resampled_ttest`
      (n_train, n_test = the mean training and test sizes), plus :func:`dietterich_5x2cv_ttest`
      when the resamples are 5 × 2 CV (:func:`is_five_by_two`; the first fold of the first
      replication is resample ``repeat=0, fold=0``).
    * Stability (metric ``nogueira``): :func:`stability_two_sample_test` on the top-k subsets
      of every resample (from the rankings in ``selections``).

    ``p_holm`` is Holm's adjustment (:func:`holm`) within each family (k, metric, test),
    across the pairs of methods. ``mean_difference`` is method_a − method_b; methods are
    paired in the order they first appear in ``results``.

    Parameters
    ----------
    results : pandas.DataFrame
        ``ExperimentResult.results``: ``method, k, resample, metric, value``.
    selections : pandas.DataFrame or None
        ``ExperimentResult.selections`` (the rankings, for the stability test); None skips
        the stability test.
    resamples : sequence of Resample
        The resamples of the run.
    sizes : sequence of int
        The subset sizes k.

    Returns
    -------
    pandas.DataFrame
        The columns :data:`COMPARISON_COLUMNS` (empty with those columns for one method).

    References
    ----------
    .. [1] C. Nadeau and Y. Bengio, "Inference for the generalization error", Machine
       Learning 52(3), 239–281, 2003.
    .. [2] T. G. Dietterich, "Approximate statistical tests for comparing supervised
       classification learning algorithms", Neural Computation 10(7), 1895–1923, 1998.
    .. [3] S. Nogueira, K. Sechidis and G. Brown, "On the stability of feature selection
       algorithms", Journal of Machine Learning Research 18(174), 1–54, 2018.
    .. [4] S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian
       Journal of Statistics 6(2), 65–70, 1979.

    Examples
    --------
    What :func:`run_experiment` puts in ``comparisons``:

    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.evaluation import run_experiment
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> result = run_experiment(data.X, data.y, ["ttest", "en-ttest(n_estimators=5)"], [5],
    ...                         n_repeats=5, classifiers=["svm"],
    ...                         measures=["kuncheva", "nogueira"])
    >>> from stablefs.evaluation import Protocol, compare_methods
    >>> resamples = Protocol.parse("split", n_repeats=5).resamples(data.y, random_state=0)
    >>> table = compare_methods(result.results, result.selections, resamples, [5])
    >>> table.equals(result.comparisons)
    True
    >>> row = table.query("metric == 'nogueira'").iloc[0]
    >>> row["test"], round(float(row["mean_difference"]), 3), round(float(row["p_value"]), 3)
    ('nogueira-z', -0.109, 0.003)
    """
    resamples = [r for r in resamples if r.index >= 0]  # not the full-data reference fit
    methods = list(dict.fromkeys(results["method"])) if len(results) else []
    rows: list[tuple] = []
    if len(methods) >= 2 and resamples:
        n_train = float(np.mean([len(r.train) for r in resamples]))
        n_test = float(np.mean([len(r.test) for r in resamples]))
        five_two = is_five_by_two(resamples)
        order = [r.index for r in resamples]
        if five_two:
            order = [r.index for r in sorted(resamples, key=lambda r: (r.repeat, r.fold))]
        perf = results[results["metric"] != "fit_time"]
        table = perf.pivot_table(index=["k", "metric", "resample"], columns="method",
                                 values="value", aggfunc="first", dropna=False)
        metrics = list(dict.fromkeys(perf["metric"]))
        masks = _subset_masks(selections, order)
        for k in sizes:
            for metric in metrics:
                key = (int(k), metric)
                if key not in table.index.droplevel(2):
                    continue
                block = table.loc[key].reindex(order)
                for ma, mb in itertools.combinations(methods, 2):
                    if ma not in block or mb not in block:
                        continue
                    va, vb = block[ma].to_numpy(float), block[mb].to_numpy(float)
                    tests = [("wilcoxon", wilcoxon_test(va, vb)),
                             ("corrected-t", corrected_resampled_ttest(va, vb, n_train,
                                                                       n_test))]
                    if five_two:
                        tests.append(("5x2cv-t", dietterich_5x2cv_ttest(va, vb)))
                    rows += [(int(k), metric, ma, mb, name, *_fields(r)) for name, r in tests]
            if masks:
                for ma, mb in itertools.combinations(methods, 2):
                    if ma in masks and mb in masks:
                        r = stability_two_sample_test(masks[ma] <= k, masks[mb] <= k)
                        rows.append((int(k), "nogueira", ma, mb, "nogueira-z", *_fields(r)))
    cols = [c for c in COMPARISON_COLUMNS if c != "p_holm"]
    df = pd.DataFrame(rows, columns=cols)
    df.insert(cols.index("p_value") + 1, "p_holm", np.nan)
    for _, idx in df.groupby(["k", "metric", "test"], sort=False).groups.items():
        df.loc[idx, "p_holm"] = holm(df.loc[idx, "p_value"].to_numpy(float))
    return df[COMPARISON_COLUMNS]


def _fields(r: ComparisonResult) -> tuple:
    return r.statistic, r.p_value, r.mean_difference, r.n


def _subset_masks(selections, order) -> dict[str, np.ndarray]:
    """Rankings (m × p, 1 = best) per method, resamples in ``order``; ``ranking <= k`` is the
    top-k mask. Empty when the selections are not available (a run read back from disk)."""
    if selections is None or not len(selections) or "ranking" not in selections:
        return {}
    out = {}
    for name, grp in selections.groupby("method", sort=False):
        grp = grp.set_index("resample").reindex(order)
        if grp["ranking"].isna().any():
            continue
        out[name] = np.vstack([np.asarray(r) for r in grp["ranking"]])
    return out
