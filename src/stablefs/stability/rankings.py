r"""Stability of rankings and of weight vectors, and the stability–accuracy F-measure.

Rankings are an (m × p) matrix, one row per result, 1 = best (the ``ranking_`` of every
selector). Pairwise similarities are averaged over all m(m−1)/2 pairs (Han 2012, eq. 5.4).
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

from stablefs._errors import StablefsError
from stablefs.stability._inputs import as_rankings, as_weights, plain

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["f_measure", "kendall", "pearson", "spearman", "weight_variance"]


def _need_two(M: np.ndarray, what: str) -> None:
    if M.shape[0] < 2:
        raise StablefsError(f"{M.shape[0]} {what} given: stability needs at least two.")


def _mean_row_correlation(V: np.ndarray, what: str) -> float:
    C = V - V.mean(axis=1, keepdims=True)
    nrm = np.sqrt((C * C).sum(axis=1))
    if np.any(nrm <= 1e-12 * max(1.0, float(np.abs(V).max()))):
        r = int(np.flatnonzero(nrm <= 1e-12 * max(1.0, float(np.abs(V).max())))[0])
        raise StablefsError(
            f"{what} {r} is constant: its correlation with the others is undefined."
        )
    U = C / nrm[:, None]
    S = U @ U.T
    i, j = np.triu_indices(V.shape[0], 1)
    return float(np.clip(S[i, j], -1, 1).mean())


def _check_topk(k, p: int) -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 1 <= int(k) <= p:
        raise StablefsError(f"k = {plain(k)} must be a whole number in 1..{p}.")
    return int(k)


def _truncated(R: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-k membership and truncated positions (1..k, others k+1), ties → lower index."""
    order = np.argsort(R, axis=1, kind="stable")
    m, p = R.shape
    pos = np.empty_like(order)
    np.put_along_axis(pos, order, np.arange(1, p + 1)[None, :].repeat(m, 0), axis=1)
    top = pos <= k
    return top, np.where(top, pos, k + 1).astype(float)


def _topk_pairwise(R: np.ndarray, k: int, corr) -> float:
    top, T = _truncated(R, k)
    vals = []
    m = R.shape[0]
    for i in range(m):
        for j in range(i + 1, m):
            D = top[i] | top[j]
            a, b = T[i, D], T[j, D]
            if np.all(a == a[0]) and np.all(b == b[0]):
                vals.append(1.0)          # the same single feature on top of both lists
            else:
                vals.append(corr(a, b))
    return float(np.mean(vals))


def spearman(rankings: ArrayLike, k: int | None = None) -> float:
    r"""Mean pairwise Spearman rank correlation (Kalousis et al. 2007; Li et al. 2013, sec. 4.1).

    Full rankings: ρ(r, r') = Pearson correlation of the (tie-averaged) ranks, which for
    permutations is 1 − 6 Σ_f (r_f − r'_f)² / (p (p² − 1)).

    Top-k (``k`` given): each list keeps the positions 1..k of its k best features (ties
    by lower feature index) and gives every other feature position k + 1 (Fagin, Kumar &
    Sivakumar 2003, location parameter ℓ = k + 1); ρ is computed over the union of the two
    top-k lists. Identical top-k lists give 1, disjoint ones a negative value.

    * Range: [−1, 1]; 1 iff the rankings (top-k lists) are identical.
    * Corrected for chance: yes for full rankings (random permutations average 0); the top-k
      variant is not.
    * Needs: m ≥ 2 rankings of the same p ≥ 2 features; no constant ranking row.

    Parameters
    ----------
    rankings : array of shape (m, p)
        One ranking per result, 1 = best.
    k : int, optional
        Compare the top-k lists only.

    Returns
    -------
    float
        The mean pairwise correlation.

    References
    ----------
    .. [1] A. Kalousis, J. Prados and M. Hilario, "Stability of feature selection algorithms:
       a study on high-dimensional spaces", Knowledge and Information Systems 12(1), 95–116,
       2007.
    .. [2] Y. Li, S. Huang, S. Chen and J. Si, "Stable L2-regularized ensemble feature
       weighting", Multiple Classifier Systems (MCS 2013), LNCS 7872, Springer, 2013, sec. 4.1.
    .. [3] R. Fagin, R. Kumar and D. Sivakumar, "Comparing top k lists", SIAM Journal on
       Discrete Mathematics 17(1), 134–160, 2003 (the top-k form).

    Examples
    --------
    >>> from stablefs.stability import spearman
    >>> rankings = [[1, 2, 3, 4, 5], [2, 1, 3, 4, 5], [1, 3, 2, 5, 4]]
    >>> round(spearman(rankings), 3), round(spearman(rankings, k=2), 3)
    (0.767, -0.333)
    """
    R = as_rankings(rankings)
    _need_two(R, "rankings")
    if k is None:
        return _mean_row_correlation(stats.rankdata(R, axis=1), "ranking")
    k = _check_topk(k, R.shape[1])
    return _topk_pairwise(R, k, lambda a, b: float(np.corrcoef(a, b)[0, 1]))


def kendall(rankings: ArrayLike, k: int | None = None) -> float:
    r"""Mean pairwise Kendall τ_b of rankings, full or top-k.

    τ_b = (n_c − n_d) / sqrt((n_0 − n_1)(n_0 − n_2)) over feature pairs (ties handled as in
    ``scipy.stats.kendalltau``); for permutations τ = 1 − 4·(discordant pairs)/(p(p − 1)).
    Top-k: as :func:`spearman` (positions 1..k, others tied at k + 1, over the union of
    the two top-k lists).

    * Range: [−1, 1]; 1 iff identical.
    * Corrected for chance: yes for full rankings; not the top-k variant.
    * Needs: m ≥ 2 rankings, p ≥ 2. Cost O(m² p log p).

    Parameters
    ----------
    rankings : array of shape (m, p)
        One ranking per result, 1 = best.
    k : int, optional
        Compare the top-k lists only.

    Returns
    -------
    float
        The mean pairwise τ_b.

    References
    ----------
    .. [1] M. G. Kendall, "A new measure of rank correlation", Biometrika 30(1–2), 81–93,
       1938.
    .. [2] R. Fagin, R. Kumar and D. Sivakumar, "Comparing top k lists", SIAM Journal on
       Discrete Mathematics 17(1), 134–160, 2003 (the top-k form).

    Examples
    --------
    >>> from stablefs.stability import kendall
    >>> rankings = [[1, 2, 3, 4, 5], [2, 1, 3, 4, 5], [1, 3, 2, 5, 4]]
    >>> round(kendall(rankings), 3)
    0.6
    """
    R = as_rankings(rankings)
    _need_two(R, "rankings")

    def tau(a, b):
        t = stats.kendalltau(a, b).statistic
        if not np.isfinite(t):
            raise StablefsError("a ranking is constant: Kendall's tau is undefined.")
        return float(t)

    if k is None:
        m = R.shape[0]
        return float(np.mean([tau(R[i], R[j]) for i in range(m) for j in range(i + 1, m)]))
    k = _check_topk(k, R.shape[1])
    return _topk_pairwise(R, k, tau)


def pearson(weights: ArrayLike) -> float:
    r"""Mean pairwise Pearson correlation of feature-weight vectors (Kalousis et al. 2007).

    ρ(w, w') = Σ_f (w_f − w̄)(w'_f − w̄') / sqrt(Σ_f (w_f − w̄)² Σ_f (w'_f − w̄')²).

    * Range: [−1, 1]; 1 iff the weight vectors are equal up to a positive affine map.
    * Corrected for chance: yes (independent random weights average 0).
    * Needs: m ≥ 2 weight vectors of length p ≥ 2, none constant.

    Parameters
    ----------
    weights : array of shape (m, p)
        One weight vector per result.

    Returns
    -------
    float
        The mean pairwise correlation.

    References
    ----------
    .. [1] A. Kalousis, J. Prados and M. Hilario, "Stability of feature selection algorithms:
       a study on high-dimensional spaces", Knowledge and Information Systems 12(1), 95–116,
       2007.

    Examples
    --------
    >>> from stablefs.stability import pearson
    >>> weights = [[0.9, 0.5, 0.1, 0.0], [0.8, 0.6, 0.0, 0.1], [1.0, 0.4, 0.2, 0.0]]
    >>> round(pearson(weights), 3)
    0.938
    """
    W = as_weights(weights)
    _need_two(W, "weight vectors")
    return _mean_row_correlation(W, "weight vector")


def weight_variance(weights: ArrayLike, *, normalize: bool = False) -> float:
    r"""Average feature-weight variance (Han 2012, eqs. 3.3–3.4); lower is more stable.

    Var(X_j) = (1/m) Σ_i (w_ij − w̄_j)²  (the expectation over training sets of eq. 3.3
    estimated by the mean over the m results, ddof = 0, so that error = bias + variance holds
    exactly as in :func:`stablefs.evaluation.bias_variance`), and the measure is
    (1/p) Σ_j Var(X_j).

    * Range: [0, ∞); 0 iff all weight vectors are equal. **Lower = more stable.**
    * Corrected for chance: no; depends on the weights' scale — Han (2012, sec. 6.1) uses
      normalised weights |w_j| / Σ|w|, which ``normalize=True`` applies to each row.
    * Needs: m ≥ 2 weight vectors; with ``normalize`` no all-zero row.

    Parameters
    ----------
    weights : array of shape (m, p)
        One weight vector per result.
    normalize : bool
        Divide each row by the sum of its absolute values first.

    Returns
    -------
    float
        ``(1/p) Σ_j Var(X_j)``.

    See Also
    --------
    stablefs.evaluation.bias_variance : The whole decomposition, error = bias + variance.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 3.1, eqs. 3.3–3.4, and
       sec. 6.1.

    Examples
    --------
    >>> from stablefs.stability import weight_variance
    >>> weights = [[0.9, 0.5, 0.1, 0.0], [0.8, 0.6, 0.0, 0.1], [1.0, 0.4, 0.2, 0.0]]
    >>> round(weight_variance(weights), 5), round(weight_variance(weights, normalize=True), 5)
    (0.00556, 0.00221)
    """
    W = as_weights(weights)
    _need_two(W, "weight vectors")
    if normalize:
        tot = np.abs(W).sum(axis=1)
        if np.any(tot == 0):
            raise StablefsError("a weight vector is all zero: it cannot be normalised.")
        W = np.abs(W) / tot[:, None]
    return float(W.var(axis=0).mean())


def f_measure(stability: ArrayLike, accuracy: ArrayLike) -> float | NDArray[np.float64]:
    r"""Stability–accuracy F-measure 2·s·a/(s + a) (Saeys et al. 2008; Li et al. 2013).

    The harmonic mean of stability s and accuracy a, both in [0, 1].

    * Range: [0, 1]; 0 when either is 0 (s = a = 0 gives 0 by the harmonic-mean convention).
    * Needs: s and a in [0, 1] (a negative chance-corrected stability is an error — the
      harmonic mean is meaningless there; report it separately).

    Parameters
    ----------
    stability, accuracy : float or array_like (broadcast)
        Both in [0, 1].

    Returns
    -------
    float or ndarray
        The harmonic mean.

    References
    ----------
    .. [1] Y. Saeys, T. Abeel and Y. Van de Peer, "Robust feature selection using ensemble
       feature selection techniques", Proc. ECML PKDD 2008, LNCS 5212, 313–325, 2008.
    .. [2] Y. Li, S. Huang, S. Chen and J. Si, "Stable L2-regularized ensemble feature
       weighting", Multiple Classifier Systems (MCS 2013), LNCS 7872, Springer, 2013, sec. 4.2.

    Examples
    --------
    >>> from stablefs.stability import f_measure
    >>> round(f_measure(0.6, 0.9), 3)
    0.72
    >>> f_measure([0.2, 0.8], 0.9).round(3).tolist()
    [0.327, 0.847]
    """
    s = np.asarray(stability, dtype=float)
    a = np.asarray(accuracy, dtype=float)
    for name, v in (("stability", s), ("accuracy", a)):
        if not np.all(np.isfinite(v)) or np.any((v < 0) | (v > 1)):
            raise StablefsError(
                f"the F-measure needs {name} in [0, 1]; got {np.ravel(v)[:3].tolist()}."
            )
    tot = s + a
    out = np.divide(2 * s * a, tot, out=np.zeros(np.broadcast(s, a).shape), where=tot > 0)
    return float(out) if out.ndim == 0 else out
