"""Bootstrap intervals over Monte-Carlo training sets, and the verdict rules of claims.

A paper's "A is better than B" is judged by a bootstrap over the training sets (the
Monte-Carlo units): resample the M sets with replacement, recompute both statistics on the
same resample when A and B come from the same training sets (*paired*), on independent
resamples otherwise, and take the 95 % t-interval of the difference with the bootstrap
standard error (:func:`t_interval`; it covers at 10 runs, where the percentile interval does
not). Against the claim's effect-size margin (:data:`MARGINS`, stated in the claim's test):

* above the margin: **holds**;
* inside ± the margin: **no practical difference**;
* excluding an advantage of the margin otherwise: **does not hold**;
* otherwise: **inconclusive**;
* fewer than :data:`MIN_RUNS` runs: **too few runs** (never "does not hold").

"≈ 0" and "≈ 1" are judged the same way against a stated threshold. A claim judged on a
substitute method or data set is **not testable**. Every resample is
expressed as a count vector c (how often each set was drawn) so that a statistic of all B
resamples is one matrix product (B × M counts times M × p data).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "bootstrap_counts",
    "interval",
    "kuncheva_boot",
    "kuncheva_path",
    "mean_boot",
    "pair_mean_boot",
    "MARGINS",
    "MIN_RUNS",
    "better_rule",
    "claims_overview",
    "combine_verdicts",
    "count_verdicts",
    "fmt_fixed",
    "fmt_interval",
    "fmt_value",
    "t_interval",
    "tally",
    "threshold_rule",
    "verdict_at_least",
    "verdict_at_most",
    "verdict_positive",
    "verdict_within",
    "weight_error_boot",
]


def bootstrap_counts(rng: np.random.Generator, m: int, n_boot: int) -> np.ndarray:
    """(n_boot × m) counts of a bootstrap resample of m units (each row sums to m)."""
    return rng.multinomial(m, np.full(m, 1.0 / m), size=n_boot).astype(np.float64)


def interval(samples: np.ndarray, alpha: float = 0.05) -> tuple[float, float]:
    """Percentile interval of bootstrap samples (NaNs ignored)."""
    s = np.asarray(samples, dtype=float)
    s = s[np.isfinite(s)]
    if s.size == 0:
        return float("nan"), float("nan")
    lo, hi = np.quantile(s, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi)


def mean_boot(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Bootstrap replicates of the mean of per-unit ``values`` (length m)."""
    v = np.asarray(values, dtype=float)
    return counts @ v / v.size


def pair_mean_boot(values: np.ndarray, i: np.ndarray, j: np.ndarray, counts: np.ndarray,
                   block: int = 256) -> np.ndarray:
    """Bootstrap replicates of a mean over the pairs i < j of m results when the results are
    resampled: a pair weighs c_i c_j (pairs of two copies of one result are left out).

    Parameters
    ----------
    values : ndarray of shape (n_pairs,)
        One value per pair of results (e.g. a pairwise similarity, Han 2012 eq. 5.4).
    i, j : ndarray of shape (n_pairs,)
        The two results of each pair.
    counts : ndarray of shape (B, m)
        From :func:`bootstrap_counts`.
    block : int
        Resamples handled per matrix product (bounds memory at ``block x n_pairs``).

    Returns
    -------
    ndarray of shape (B,)
        NaN for a resample that drew one result m times (no pair of different results);
        :func:`interval` ignores those. Without resampling (all counts 1) this is the plain
        mean over the pairs.
    """
    v = np.asarray(values, dtype=float)
    out = np.empty(counts.shape[0])
    for s in range(0, counts.shape[0], block):
        c = counts[s:s + block]
        w = c[:, i] * c[:, j]
        with np.errstate(invalid="ignore", divide="ignore"):
            out[s:s + block] = (w @ v) / w.sum(axis=1)
    return out


def weight_error_boot(weights: np.ndarray, relevance: np.ndarray, counts: np.ndarray
                      ) -> dict[str, np.ndarray]:
    """Bootstrap replicates of the mean variance, bias and error of feature weights.

    The statistics of :func:`stablefs.evaluation.bias_variance` (Han 2012, eqs. 3.1–3.4,
    1/M normalisation) on each resample of the rows of ``weights``.

    Parameters
    ----------
    weights : ndarray of shape (m, p)
        One row of normalised weights per training set.
    relevance : ndarray of shape (p,)
        r*.
    counts : ndarray of shape (B, m)
        From :func:`bootstrap_counts`.

    Returns
    -------
    dict
        ``variance``, ``bias``, ``error``: arrays of shape (B,).
    """
    W = np.asarray(weights, dtype=np.float64)
    r = np.asarray(relevance, dtype=np.float64)
    m, p = W.shape
    mean = counts @ W / m                                   # (B, p): E_D r_j per resample
    row_sq = np.einsum("ij,ij->i", W, W)                    # Σ_j r_j(D)²
    row_err = np.einsum("ij,ij->i", W - r, W - r)           # Σ_j (r*_j − r_j(D))²
    second = counts @ row_sq / m                            # Σ_j E_D r_j²
    variance = (second - np.einsum("bj,bj->b", mean, mean)) / p
    bias = np.einsum("bj,bj->b", r - mean, r - mean) / p
    error = counts @ row_err / (m * p)
    return {"variance": variance, "bias": bias, "error": error}


def kuncheva_boot(subsets: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Bootstrap replicates of the mean pairwise Kuncheva index (Han 2012, eqs. 5.4–5.5).

    Pairs of two copies of the same drawn set are left out (they would count as perfect
    agreement that no two different training sets produce), so without resampling (all
    counts 1) this is exactly the mean over the m(m − 1)/2 pairs.

    Parameters
    ----------
    subsets : bool ndarray of shape (m, p)
        Selected features, every row of the same size k (0 < k < p).
    counts : ndarray of shape (B, m)

    Returns
    -------
    ndarray of shape (B,)
        NaN for a resample that drew one set m times (no pair of different sets);
        :func:`interval` ignores those.
    """
    S = np.asarray(subsets, dtype=np.float64)
    m, p = S.shape
    k = float(S[0].sum())
    F = counts @ S                                              # (B, p)
    c2 = np.einsum("bi,bi->b", counts, counts)
    with np.errstate(invalid="ignore", divide="ignore"):  # one set drawn m times: no pair
        overlap = (np.einsum("bj,bj->b", F, F) - k * c2) / (m * m - c2)
    chance = k * k / p
    return (overlap - chance) / (k - chance)


def kuncheva_path(orders: np.ndarray, n_features: int, ks, counts: np.ndarray | None = None
                  ) -> np.ndarray:
    """Kuncheva's index of the top-k subsets for every k of ``ks``, optionally bootstrapped.

    The mean over all pairs of training sets of
    ``(|S_i ∩ S_j| - k^2/p) / (k - k^2/p)`` (thesis eq. 2.34; Han 2012 eqs. 5.4-5.5), where
    ``S_i`` holds the first k entries of ``orders[i]``. The pair overlaps are summed through
    the selection counts ``F_f`` (``sum_{i != j} |S_i ∩ S_j| = sum_f F_f^2 - m k``), updated one
    rank at a time, so the whole path costs one pass over the ranks. With ``counts`` (the
    bootstrap count vectors of :func:`bootstrap_counts`) each row is a resample, and, as in
    :func:`kuncheva_boot`, pairs of two copies of the same drawn set are left out.

    Parameters
    ----------
    orders : int ndarray of shape (m, K)
        Row i lists the features of training set i from the best down.
    n_features : int
        p.
    ks : sequence of int
        Subset sizes, each in ``[1, min(K, p - 1)]``.
    counts : ndarray of shape (B, m), optional

    Returns
    -------
    ndarray of shape (len(ks),), or (B, len(ks)) with ``counts``
        NaN for a resample that drew a single set m times.
    """
    from scipy import sparse

    O = np.asarray(orders)
    m, K = O.shape
    p = int(n_features)
    ks = np.asarray(list(ks), dtype=int)
    if ks.size == 0 or ks.min() < 1 or ks.max() > min(K, p - 1):
        raise ValueError(f"every k must lie in [1, {min(K, p - 1)}]")
    C = np.ones((1, m)) if counts is None else np.asarray(counts, dtype=np.float64)
    B = C.shape[0]
    F = np.zeros((B, p))
    sq = np.zeros(B)  # sum_f F_f^2
    c2 = np.einsum("bi,bi->b", C, C)
    with np.errstate(invalid="ignore", divide="ignore"):
        norm = 1.0 / (m * m - c2)
    out = np.full((B, ks.size), np.nan)
    where = {int(k): j for j, k in enumerate(ks)}
    rows = np.arange(m)
    for k in range(1, int(ks.max()) + 1):
        cols, inv = np.unique(O[:, k - 1], return_inverse=True)
        E = sparse.csr_matrix((np.ones(m), (rows, inv.ravel())), shape=(m, cols.size))
        G = np.asarray((E.T @ C.T).T)  # (B, |cols|): the counts added to each feature
        Fc = F[:, cols]
        sq += np.einsum("bu,bu->b", G, 2.0 * Fc + G)
        F[:, cols] = Fc + G
        if k in where:
            with np.errstate(invalid="ignore"):
                overlap = (sq - k * c2) * norm
            chance = k * k / p
            out[:, where[k]] = (overlap - chance) / (k - chance)
    return out[0] if counts is None else out


#: the fewest Monte-Carlo runs (training sets, CV repetitions, splits) a verdict is drawn
#: from; below it the verdict is ``"too few runs"``, never ``"does not hold"``
MIN_RUNS = 10

#: effect-size margins of "A is better than B" claims, per quantity: a difference whose
#: interval lies inside ``[-margin, +margin]`` is "no practical difference"
MARGINS = {
    "kuncheva": 0.01,     # Kuncheva index (Kuncheva 2007), and the other similarity indices
    "similarity": 0.01,   # any similarity or stability index in [-1, 1]
    "npogr": 0.01,        # normalised POGR (Han 2012, eq. 5.6)
    "precision": 0.01,    # share of relevant features found
    "accuracy": 0.01,     # classification accuracy or error, as a proportion
    "angle": 1.0,         # degrees between a weight vector and the true one
    "rank": 1.0,          # mean rank of the relevant features
    "kappa": 0.01,        # share of the deviation variance due to selection (Xiao et al. 2007)
    "relative": 0.05,     # variance, bias, error of weights: 5 % of the reference's value
}


def t_interval(samples: np.ndarray, runs: int, alpha: float = 0.05,
               estimate: float | None = None,
               bounds: tuple[float, float] | None = None) -> tuple[float, float]:
    """Student-t interval from bootstrap replicates over ``runs`` Monte-Carlo units.

    ``estimate ± t_{runs-1, 1-alpha/2} · se`` with ``se`` the standard deviation of the
    replicates times ``sqrt(runs / (runs - 1))``: for a mean of per-run values the bootstrap
    standard deviation is ``sqrt((runs - 1) / runs) · s / sqrt(runs)``, so this is then the
    textbook t-interval of the mean (Efron and Tibshirani 1993, sec. 12.2), which keeps its
    95 % coverage at 10 runs where the percentile interval falls to about 90 %. For other
    statistics (means over pairs of runs, ratios) it is the t-interval with a bootstrap
    standard error. ``estimate`` defaults to the mean of the (finite) replicates; ``bounds``
    (the statistic's range, e.g. ``(-1, 1)`` for a correlation) clips the interval
    (:func:`stablefs.stability._common.student_interval`).
    """
    from stablefs.stability._common import student_interval

    s = np.asarray(samples, dtype=float)
    s = s[np.isfinite(s)]
    if s.size < 2 or runs < 2:
        return float("nan"), float("nan")
    centre = float(np.mean(s)) if estimate is None else float(estimate)
    variance = float(np.var(s)) * runs / (runs - 1.0)
    return student_interval(centre, variance, runs, alpha, bounds)


def _interval(samples, runs, alpha: float, estimate: float | None, min_runs: int
              ) -> tuple[str | None, float, float]:
    """The :func:`t_interval` ``(lo, hi)`` every verdict rule starts from, with the verdict
    that needs no comparison: ``"too few runs"`` below ``min_runs``, ``"inconclusive"`` when
    no interval can be formed; else ``None``."""
    runs = int(runs)
    lo, hi = t_interval(samples, runs, alpha, estimate)
    if runs < min_runs:
        return "too few runs", lo, hi
    if not np.isfinite(lo):
        return "inconclusive", lo, hi
    return None, lo, hi


def verdict_positive(samples: np.ndarray, alpha: float = 0.05, *, runs: int,
                     margin: float = 0.0, min_runs: int = MIN_RUNS,
                     estimate: float | None = None) -> tuple[str, float, float]:
    """Verdict on "A is better than B" from bootstrap replicates of the difference A − B.

    With ``[lo, hi]`` the :func:`t_interval` of the difference and ``margin`` the
    effect-size margin (:data:`MARGINS`):

    * fewer than ``min_runs`` runs: ``"too few runs"``;
    * ``lo > margin``: ``"holds"`` (better by more than the margin);
    * ``-margin <= lo`` and ``hi <= margin``: ``"no practical difference"``;
    * ``hi <= margin`` otherwise: ``"does not hold"`` (an advantage of the margin is
      excluded, and B may be better by more than the margin);
    * otherwise ``"inconclusive"``.

    With ``margin = 0`` this is the plain sign test of the interval.
    """
    early, lo, hi = _interval(samples, runs, alpha, estimate, min_runs)
    if early:
        return early, lo, hi
    if lo > margin:
        return "holds", lo, hi
    if margin > 0 and -margin <= lo and hi <= margin:
        return "no practical difference", lo, hi
    if hi < 0 or (margin > 0 and hi <= margin):
        return "does not hold", lo, hi
    return "inconclusive", lo, hi


def _verdict_threshold(samples, threshold: float, alpha: float, runs: int, min_runs: int,
                       estimate: float | None, above: bool) -> tuple[str, float, float]:
    """Verdict on "the value is at least (``above``) / at most ``threshold``"."""
    early, lo, hi = _interval(samples, runs, alpha, estimate, min_runs)
    if early:
        return early, lo, hi
    if (lo >= threshold) if above else (hi <= threshold):
        return "holds", lo, hi
    if (hi < threshold) if above else (lo > threshold):
        return "does not hold", lo, hi
    return "inconclusive", lo, hi


def verdict_at_most(samples: np.ndarray, threshold: float, alpha: float = 0.05, *,
                    runs: int, min_runs: int = MIN_RUNS, estimate: float | None = None
                    ) -> tuple[str, float, float]:
    """Verdict on "the value is at most ``threshold``" (e.g. "≈ 0"): holds if the
    :func:`t_interval` lies at or below it, does not hold if it lies above; ``"too few
    runs"`` below ``min_runs``."""
    return _verdict_threshold(samples, threshold, alpha, runs, min_runs, estimate, False)


def verdict_at_least(samples: np.ndarray, threshold: float, alpha: float = 0.05, *,
                     runs: int, min_runs: int = MIN_RUNS, estimate: float | None = None
                     ) -> tuple[str, float, float]:
    """Verdict on "the value is at least ``threshold``" (e.g. "≈ 1"); see
    :func:`verdict_at_most`."""
    return _verdict_threshold(samples, threshold, alpha, runs, min_runs, estimate, True)


def verdict_within(samples: np.ndarray, margin: float, alpha: float = 0.05, *, runs: int,
                   min_runs: int = MIN_RUNS, estimate: float | None = None
                   ) -> tuple[str, float, float]:
    """Verdict on "A and B are similar": the difference A − B lies within ``± margin``.

    Holds if the :func:`t_interval` of the difference lies inside ``[-margin, +margin]``, does
    not hold if it lies entirely outside (beyond either end), else inconclusive; ``"too few
    runs"`` below ``min_runs`` (e.g. Yu, Ding and Loscalzo 2008, sec. 6.3: "DRAGS performs
    similar to RFE under large k values").
    """
    early, lo, hi = _interval(samples, runs, alpha, estimate, min_runs)
    if early:
        return early, lo, hi
    if -margin <= lo and hi <= margin:
        return "holds", lo, hi
    if lo > margin or hi < -margin:
        return "does not hold", lo, hi
    return "inconclusive", lo, hi


def better_rule(margin: float, runs: int, alpha: float = 0.05, what: str = "difference",
                min_runs: int = MIN_RUNS) -> str:
    """The text of the verdict rule of an "A better than B" claim, for its ``test`` column."""
    return (f"{100 * (1 - alpha):g} % t-interval (bootstrap standard error) of the {what} over "
            f"the {runs} runs: above +{margin:g}: holds; inside ±{margin:g}: no practical "
            f"difference; at most +{margin:g} otherwise: does not hold; else inconclusive; "
            f"fewer than {min_runs} runs: too few runs")


def threshold_rule(threshold: float, side: str, runs: int, alpha: float = 0.05,
                   min_runs: int = MIN_RUNS) -> str:
    """The text of the verdict rule of an "at least / at most a threshold" claim."""
    return (f"{100 * (1 - alpha):g} % t-interval (bootstrap standard error) over the {runs} "
            f"runs {side} {threshold:g}: holds; entirely on the other side: does not hold; "
            f"fewer than {min_runs} runs: too few runs")


def combine_verdicts(verdicts) -> str:
    """One verdict from several (per data set, per size...).

    ``holds`` if every one holds; ``does not hold`` if any does not hold; else ``too few
    runs`` if any had too few runs; ``not testable`` if every one is, or if there is none (no
    case of the claim is in the run's configuration, e.g. a data set left out); ``no practical
    difference`` if each is either that or ``holds`` (the claim "on every set" fails where
    there is no practical difference); otherwise ``inconclusive``.
    """
    verdicts = list(verdicts)
    if not verdicts:
        return "not testable"
    if verdicts and all(v == "holds" for v in verdicts):
        return "holds"
    if any(v == "does not hold" for v in verdicts):
        return "does not hold"
    if any(v == "too few runs" for v in verdicts):
        return "too few runs"
    if verdicts and all(v == "not testable" for v in verdicts):
        return "not testable"
    if verdicts and all(v in ("holds", "no practical difference") for v in verdicts):
        return "no practical difference"
    return "inconclusive"


def count_verdicts(verdicts) -> str:
    """``"3 holds, 1 too few runs"``: the verdicts counted in the order of the vocabulary."""
    from stablefs.experiments._base import VERDICTS

    verdicts = list(verdicts)
    told = ", ".join(f"{sum(v == w for v in verdicts)} {w}" for w in VERDICTS if w in verdicts)
    return told or "no verdicts"


def claims_overview(claims, where: str = "") -> list[str]:
    """The first lines of an experiment's summary: the verdicts counted, then every claim's.

    ``where`` names the data sets (``"Colon, Lung"``); ``claims`` are
    :class:`~stablefs.experiments._base.Claim` objects."""
    claims = list(claims)
    on = f" checked on {where}" if where else ""
    return [f"Of the {len(claims)} claims{on}: {count_verdicts(c.verdict for c in claims)}.",
            ", ".join(f"{c.id} {c.verdict}" for c in claims) + "."]


def tally(verdicts) -> str:
    """The verdicts counted, for a majority-rule reading beside :func:`combine_verdicts`:
    e.g. ``"majority: holds (3 holds, 1 inconclusive of 4)"``."""
    verdicts = list(verdicts)
    if not verdicts:
        return "no cases"
    names, counts = np.unique(np.asarray(verdicts, dtype=object).astype(str),
                              return_counts=True)
    order = np.argsort(-counts, kind="stable")
    parts = ", ".join(f"{counts[i]} {names[i]}" for i in order)
    top = counts[order[0]]
    leader = names[order[0]] if top * 2 > len(verdicts) else "no majority"
    return f"majority: {leader} ({parts} of {len(verdicts)})"


def fmt_value(x: float, digits: int = 3) -> str:
    """A number for the claims table: fixed ``digits`` decimals, significant digits for
    magnitudes below 1e-3 (errors and variances), ``nan`` when not finite."""
    if not np.isfinite(x):
        return "nan"
    return f"{x:.{digits}g}" if abs(x) < 1e-3 and x != 0 else f"{x:.{digits}f}"


def fmt_fixed(x: float, digits: int = 3) -> str:
    """A number with fixed ``digits`` decimals whatever its size, ``nan`` when not finite."""
    return "nan" if not np.isfinite(x) else f"{x:.{digits}f}"


def fmt_interval(lo: float, hi: float) -> str:
    """``[lo, hi]`` with :func:`fmt_value`."""
    return f"[{fmt_value(lo)}, {fmt_value(hi)}]"
