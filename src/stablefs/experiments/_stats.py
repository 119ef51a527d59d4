"""Bootstrap intervals over Monte-Carlo training sets, and the verdict rules of claims.

A paper's "A is significantly lower than B" is judged by a percentile bootstrap over the
training sets (the Monte-Carlo units): resample the M sets with replacement, recompute both
statistics on the same resample when A and B come from the same training sets (*paired*),
on independent resamples otherwise, and look at the 95 % interval of the difference:

* entirely on the claimed side of 0: **holds**;
* entirely on the other side: **does not hold**;
* containing 0: **inconclusive**.

"≈ 0" and "≈ 1" are judged the same way against a stated threshold. Every resample is
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
    "verdict_at_least",
    "verdict_at_most",
    "verdict_positive",
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


def verdict_positive(samples: np.ndarray, alpha: float = 0.05) -> tuple[str, float, float]:
    """Verdict on "the difference is > 0" from bootstrap replicates of the difference."""
    lo, hi = interval(samples, alpha)
    if not np.isfinite(lo):
        return "inconclusive", lo, hi
    if lo > 0:
        return "holds", lo, hi
    if hi < 0:
        return "does not hold", lo, hi
    return "inconclusive", lo, hi


def verdict_at_most(samples: np.ndarray, threshold: float, alpha: float = 0.05
                    ) -> tuple[str, float, float]:
    """Verdict on "the value is at most ``threshold``" (e.g. "≈ 0")."""
    lo, hi = interval(samples, alpha)
    if not np.isfinite(lo):
        return "inconclusive", lo, hi
    if hi <= threshold:
        return "holds", lo, hi
    if lo > threshold:
        return "does not hold", lo, hi
    return "inconclusive", lo, hi


def verdict_at_least(samples: np.ndarray, threshold: float, alpha: float = 0.05
                     ) -> tuple[str, float, float]:
    """Verdict on "the value is at least ``threshold``" (e.g. "≈ 1")."""
    lo, hi = interval(samples, alpha)
    if not np.isfinite(lo):
        return "inconclusive", lo, hi
    if lo >= threshold:
        return "holds", lo, hi
    if hi < threshold:
        return "does not hold", lo, hi
    return "inconclusive", lo, hi


def combine_verdicts(verdicts) -> str:
    """One verdict from several (per data set, per size...): ``holds`` if every one holds,
    ``does not hold`` if any fails, otherwise (or with none) ``inconclusive``."""
    verdicts = list(verdicts)
    if verdicts and all(v == "holds" for v in verdicts):
        return "holds"
    if any(v == "does not hold" for v in verdicts):
        return "does not hold"
    return "inconclusive"


def fmt_value(x: float, digits: int = 3) -> str:
    """A number for the claims table: fixed ``digits`` decimals, significant digits for
    magnitudes below 1e-3 (errors and variances), ``nan`` when not finite."""
    if not np.isfinite(x):
        return "nan"
    return f"{x:.{digits}g}" if abs(x) < 1e-3 and x != 0 else f"{x:.{digits}f}"


def fmt_interval(lo: float, hi: float) -> str:
    """``[lo, hi]`` with :func:`fmt_value`."""
    return f"[{fmt_value(lo)}, {fmt_value(hi)}]"
