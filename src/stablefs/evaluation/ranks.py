"""Ranks of methods over many data sets: Friedman test, post-hoc tests, Bayesian signed-rank.

The statistics of Demšar (2006, "Statistical comparisons of classifiers over multiple data
sets", JMLR 7) for the leaderboard of ``stablefs benchmark``: each data set is a *block*, each
method is ranked within it (1 = best, mid-ranks for ties), and

* the **Friedman test** (Demšar 2006, sec. 3.2.2) asks whether the mean ranks differ more
  than chance allows: ``chi2_F = 12 N / (k (k + 1)) [sum_j R_j^2 - k (k + 1)^2 / 4]`` with N
  blocks, k methods and R_j the mean rank of method j (here :func:`scipy.stats.friedmanchisquare`,
  which also corrects for ties; :func:`friedman_reference` is the textbook formula the tests
  check it against), and Iman and Davenport's (1980) less conservative
  ``F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F)`` on (k − 1, (k − 1)(N − 1)) degrees of
  freedom. With two methods the Wilcoxon signed-rank test over the blocks replaces it (Demšar
  2006, sec. 3.1.3).
* the **Nemenyi test** compares every pair: two methods differ when their mean ranks differ by
  at least the critical difference ``CD = q_alpha sqrt(k (k + 1) / (6 N))`` with q_alpha the
  studentized range quantile over sqrt 2 (Demšar 2006, eq. of sec. 3.2.2 and Table 5(a));
  p-values from :func:`scikit_posthocs.posthoc_nemenyi_friedman`.
* the **Holm procedure** compares every method with the best one (the *control*):
  ``z = (R_i - R_best) / sqrt(k (k + 1) / (6 N))``, two-sided normal p-values adjusted by Holm
  (1979) (Demšar 2006, sec. 3.2.2, "comparisons with a control").
* the **Bayesian signed-rank test** of Benavoli et al. (2014, 2017) gives, for the best method
  against each other, the posterior probabilities that the best is better, that the two are
  practically equivalent (inside a region of practical equivalence, ``rope``) and that the
  other is better (:func:`baycomp.two_on_multiple`, seeded).

``scikit-posthocs`` and ``baycomp`` are the optional extra ``stablefs[benchmark]``; this module
imports them only where they are used.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from stablefs._errors import StablefsError

__all__ = [
    "FriedmanResult",
    "bayes_signed_rank",
    "check_rank_libraries",
    "friedman",
    "friedman_reference",
    "holm_vs_control",
    "nemenyi_cd",
    "nemenyi_pvalues",
    "nemenyi_q",
    "rank_blocks",
    "rank_tables",
]

#: digits to which estimates are rounded before ranking, so that values equal up to floating
#: point noise tie (the same rule as the paired tests of :mod:`stablefs.evaluation.statistics`)
RANK_DECIMALS = 12


def check_rank_libraries() -> None:
    """Refuse, with one line, to rank when the optional libraries are missing."""
    missing = []
    for module, name in (("scikit_posthocs", "scikit-posthocs"), ("baycomp", "baycomp")):
        try:
            __import__(module)
        except ImportError:
            missing.append(name)
    if missing:
        raise StablefsError(
            f"stablefs benchmark needs {' and '.join(missing)} for its rank statistics: "
            "pip install 'stablefs[benchmark]'."
        )


def rank_blocks(scores, *, higher_is_better: bool = True) -> np.ndarray:
    """Rank the methods (columns) within each block (row): 1 = best, mid-ranks for ties.

    Parameters
    ----------
    scores : array-like of shape (n_blocks, n_methods)
    higher_is_better : bool
        Whether a larger score is better (stability, accuracy) or worse (an error).

    Returns
    -------
    ndarray of shape (n_blocks, n_methods)
    """
    s = np.round(np.asarray(scores, dtype=float), RANK_DECIMALS)
    if s.ndim != 2:
        raise StablefsError(f"scores must be a blocks x methods matrix, not shape {s.shape}.")
    if np.isnan(s).any():
        raise StablefsError("scores hold missing values: rank complete blocks only.")
    return stats.rankdata(-s if higher_is_better else s, axis=1)


def friedman_reference(mean_ranks, n_blocks: int) -> tuple[float, float]:
    """The Friedman statistic and the Iman–Davenport F from mean ranks, without tie
    correction: Demšar (2006), sec. 3.2.2, the formulas as printed.

    ``chi2_F = 12 N / (k (k + 1)) [sum_j R_j^2 - k (k + 1)^2 / 4]`` and
    ``F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F)``.
    """
    R = np.asarray(mean_ranks, dtype=float)
    k, N = R.size, int(n_blocks)
    chi2 = 12.0 * N / (k * (k + 1)) * (np.sum(R**2) - k * (k + 1) ** 2 / 4.0)
    denom = N * (k - 1) - chi2
    F = (N - 1) * chi2 / denom if denom > 0 else np.inf
    return float(chi2), float(F)


@dataclass(frozen=True)
class FriedmanResult:
    """Omnibus test of equal mean ranks over ``n_blocks`` data sets.

    Attributes
    ----------
    test : {"friedman", "wilcoxon", "none"}
        ``wilcoxon`` with two methods (Demšar 2006, sec. 3.1.3), ``none`` when fewer than two
        blocks or methods.
    statistic, p_value : float
        Friedman's chi-square (tie-corrected) and its p-value on k − 1 df; for ``wilcoxon`` the
        signed-rank statistic and its two-sided p-value.
    iman_davenport, p_iman_davenport : float
        Iman and Davenport's F and its p-value (Friedman only; NaN otherwise).
    n_blocks, n_methods : int
    """

    test: str
    statistic: float
    p_value: float
    iman_davenport: float
    p_iman_davenport: float
    n_blocks: int
    n_methods: int


def friedman(scores, *, higher_is_better: bool = True) -> FriedmanResult:
    """Friedman test (with Iman–Davenport's F) over blocks × methods ``scores``.

    :func:`scipy.stats.friedmanchisquare` computes the statistic (tie-corrected: equal to
    :func:`friedman_reference` when no block has ties, larger otherwise); the F and its
    degrees of freedom are Iman and Davenport's (Demšar 2006, sec. 3.2.2). With two methods
    the Wilcoxon signed-rank test over the blocks is used instead; with fewer than two blocks
    or methods nothing is tested.
    """
    s = np.asarray(scores, dtype=float)
    n, k = s.shape
    nan = float("nan")
    if n < 2 or k < 2:
        return FriedmanResult("none", nan, nan, nan, nan, n, k)
    if k == 2:
        d = np.round(s[:, 0] - s[:, 1], RANK_DECIMALS)
        if not np.any(d):
            return FriedmanResult("wilcoxon", nan, 1.0, nan, nan, n, k)
        res = stats.wilcoxon(d, zero_method="pratt")
        return FriedmanResult("wilcoxon", float(res.statistic), float(res.pvalue), nan, nan,
                              n, k)
    r = np.round(s, RANK_DECIMALS)
    if not higher_is_better:
        r = -r
    if np.all(r == r[:, :1]):  # every block a complete tie: nothing to test
        return FriedmanResult("friedman", 0.0, 1.0, 0.0, 1.0, n, k)
    chi2, p = stats.friedmanchisquare(*r.T)
    chi2 = float(chi2)
    denom = n * (k - 1) - chi2
    if denom > 1e-12:
        F = (n - 1) * chi2 / denom
        pF = float(stats.f.sf(F, k - 1, (k - 1) * (n - 1)))
    else:  # the same order in every block: F is infinite
        F, pF = float("inf"), 0.0
    return FriedmanResult("friedman", chi2, float(p), float(F), pF, n, k)


def nemenyi_q(n_methods: int, alpha: float = 0.05) -> float:
    """q_alpha of the Nemenyi test: the studentized range quantile (infinite df) over sqrt 2
    (Demšar 2006, Table 5(a): 1.960, 2.343, 2.569, ... for k = 2, 3, 4, ...)."""
    if n_methods < 2:
        return float("nan")
    return float(stats.studentized_range.ppf(1 - alpha, n_methods, np.inf) / np.sqrt(2.0))


def nemenyi_cd(n_methods: int, n_blocks: int, alpha: float = 0.05) -> float:
    """Critical difference of the Nemenyi test: ``q_alpha sqrt(k (k + 1) / (6 N))``
    (Demšar 2006, sec. 3.2.2)."""
    if n_methods < 2 or n_blocks < 1:
        return float("nan")
    k = n_methods
    return nemenyi_q(k, alpha) * float(np.sqrt(k * (k + 1) / (6.0 * n_blocks)))


def nemenyi_pvalues(scores, methods) -> pd.DataFrame:
    """Pairwise Nemenyi p-values (methods × methods) from :mod:`scikit_posthocs`.

    Its rank order (higher scores ranked higher) does not matter: the test uses the absolute
    differences of the mean ranks.
    """
    import scikit_posthocs as sp

    s = np.round(np.asarray(scores, dtype=float), RANK_DECIMALS)
    out = sp.posthoc_nemenyi_friedman(s)
    out.index = out.columns = list(methods)
    return out


def holm_vs_control(mean_ranks, n_blocks: int, control: int) -> tuple[np.ndarray, np.ndarray]:
    """Comparison of every method with a control (Demšar 2006, sec. 3.2.2).

    ``z = (R_i - R_control) / sqrt(k (k + 1) / (6 N))``, two-sided normal p-values, adjusted by
    Holm (1979) over the k − 1 comparisons. The control's own entries are NaN.

    Returns
    -------
    (p, p_holm) : ndarrays of shape (k,)
    """
    from stablefs.evaluation.statistics import holm

    R = np.asarray(mean_ranks, dtype=float)
    k = R.size
    se = np.sqrt(k * (k + 1) / (6.0 * n_blocks))
    z = (R - R[control]) / se
    p = 2 * stats.norm.sf(np.abs(z))
    p[control] = np.nan
    return p, holm(p)


def bayes_signed_rank(best, other, *, rope: float, seed: int = 0,
                      n_samples: int = 10000) -> tuple[float, float, float]:
    """Bayesian signed-rank test over data sets (Benavoli et al. 2014, 2017), via
    :func:`baycomp.two_on_multiple` with a Dirichlet-process prior of strength 1 (baycomp's
    default, prior = 1) and ``n_samples`` seeded posterior draws.

    Returns
    -------
    (p_best, p_rope, p_other)
        Posterior probabilities that ``best`` is better by more than ``rope``, that the two
        differ by less than ``rope``, and that ``other`` is better by more than ``rope``.
    """
    import baycomp

    x, y = np.asarray(best, dtype=float), np.asarray(other, dtype=float)
    if x.size < 2:
        return (float("nan"),) * 3
    # baycomp's order: p_left = P(x > y), p_rope, p_right = P(y > x)
    p = baycomp.two_on_multiple(x, y, rope=rope, nsamples=n_samples, random_state=seed)
    return tuple(float(v) for v in p)  # type: ignore[return-value]


#: columns of ``ranks.csv`` and ``friedman.csv``
RANK_COLUMNS = ["scope", "k", "measure", "method", "rank", "n_sets", "p_nemenyi", "p_holm",
                "p_best_better", "p_rope", "p_other_better"]
FRIEDMAN_COLUMNS = ["k", "measure", "n_sets", "n_methods", "test", "statistic", "p_value",
                    "iman_davenport", "p_iman_davenport", "cd_nemenyi", "alpha", "best",
                    "sets_left_out"]


def rank_tables(cells: pd.DataFrame, measures, *, alpha: float = 0.05, rope: float = 0.01,
                seed: int = 0, bayes_samples: int = 10000) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Ranks per data set and overall, with the tests, from a tidy ``cells`` table.

    Parameters
    ----------
    cells : DataFrame
        ``set, method, k, measure, estimate, ...`` (``cells.csv`` of ``stablefs benchmark``).
    measures : sequence of str
        The measures to rank; larger is better for each.
    alpha : float
        Level of the Nemenyi critical difference.
    rope : float
        Half-width of the region of practical equivalence of the Bayesian test, in the units
        of the measure (0.01: one point of balanced accuracy or stability).
    seed : int
        Seed of the Bayesian test's posterior draws.

    Returns
    -------
    (ranks, friedman) : DataFrames
        ``ranks``: :data:`RANK_COLUMNS`; ``scope`` is a set's name (the method's rank in that
        set) or ``"overall"`` (the mean rank over the sets where every method has a value,
        with the post-hoc p-values against the best method). ``friedman``:
        :data:`FRIEDMAN_COLUMNS`, one row per (k, measure); ``best`` names every method with
        the lowest mean rank, joined by ``;`` when several tie (none is singled out; the
        post-hoc tests compare with the first of them, and give the others p = 1).
    """
    rank_rows, test_rows = [], []
    nan = float("nan")
    for measure in measures:
        sub = cells[cells["measure"] == measure]
        for k in sorted(sub["k"].unique()):
            table = sub[sub["k"] == k].pivot_table(index="set", columns="method",
                                                   values="estimate", aggfunc="first",
                                                   sort=False)
            methods = [m for m in pd.unique(sub["method"]) if m in table.columns]
            table = table.reindex(columns=methods)
            complete = table.dropna(axis=0, how="any")
            left_out = [s for s in table.index if s not in complete.index]
            for set_name, row in table.iterrows():
                ok = row.notna().to_numpy()
                if ok.sum() == 0:
                    continue
                r = np.full(len(methods), np.nan)
                r[ok] = rank_blocks(row.to_numpy()[ok][None, :])[0]
                for m, v in zip(methods, r):
                    if np.isfinite(v):
                        rank_rows.append([set_name, int(k), measure, m, float(v), 1,
                                          nan, nan, nan, nan, nan])
            n, kk = complete.shape
            if n == 0 or kk == 0:
                continue
            scores = complete.to_numpy(dtype=float)
            mean = rank_blocks(scores).mean(axis=0)
            best = int(np.argmin(mean))  # the post-hoc tests' control: the first of the best
            tied = [methods[j] for j in range(kk) if np.isclose(mean[j], mean[best],
                                                                rtol=0, atol=1e-9)]
            test = friedman(scores)
            p_nem = (nemenyi_pvalues(scores, methods).iloc[best].to_numpy() if n >= 2 and kk >= 2
                     else np.full(kk, nan))
            p_nem = np.where(np.arange(kk) == best, nan, p_nem)
            if n >= 2 and kk >= 2:
                _, p_holm = holm_vs_control(mean, n, best)
            else:
                p_holm = np.full(kk, nan)
            for j, m in enumerate(methods):
                if j == best or n < 2:
                    bayes = (nan, nan, nan)
                else:
                    bayes = bayes_signed_rank(scores[:, best], scores[:, j], rope=rope,
                                              seed=seed, n_samples=bayes_samples)
                rank_rows.append(["overall", int(k), measure, m, float(mean[j]), n,
                                  float(p_nem[j]), float(p_holm[j]), *bayes])
            test_rows.append([int(k), measure, n, kk, test.test, test.statistic, test.p_value,
                              test.iman_davenport, test.p_iman_davenport,
                              nemenyi_cd(kk, n, alpha) if n >= 2 else nan, alpha,
                              ";".join(map(str, tied)), ";".join(map(str, left_out))])
    ranks = pd.DataFrame(rank_rows, columns=RANK_COLUMNS)
    if len(ranks):  # per-set rows first, then the overall rows, each in the input order
        ranks["_overall"] = ranks["scope"] == "overall"
        ranks = (ranks.sort_values(["_overall", "measure", "k"], kind="stable")
                 .drop(columns="_overall").reset_index(drop=True))
    return ranks, pd.DataFrame(test_rows, columns=FRIEDMAN_COLUMNS)
