"""Bias–variance decomposition of feature-weight error (seed 000 ch. 3, eqs. 3.1–3.4)."""

from __future__ import annotations

import numpy as np

from stablefs._errors import StablefsError


def bias_variance(weights, relevance) -> dict[str, np.ndarray]:
    """Per-feature expected loss, bias and variance of a feature weighting algorithm.

    With M training sets D_1..D_M standing in for the distribution of training sets, and
    r_j(D) the normalised weight of feature j on D (seed 000 sec. 6.1: r_j = |w_j| / Σ|w|):

    - error (eq. 3.1): ``EL_j = mean_D (r*_j − r_j(D))²``
    - bias (eq. 3.2): ``Bias_j = (r*_j − mean_D r_j(D))²``
    - variance (eq. 3.3): ``Var_j = mean_D (r_j(D) − mean_D r_j(D))²``

    so that ``error = bias + variance`` for every feature, and their means over features
    decompose the same way (eq. 3.4). The variance uses the 1/M (population) form, as the
    expectation over ``p(D)`` with equal mass on each training set; that is what makes the
    decomposition exact.

    Parameters
    ----------
    weights : array-like of shape (M, p)
        Normalised feature weights, one row per training set.
    relevance : array-like of shape (p,)
        The true relevance vector r*.

    Returns
    -------
    dict
        ``error``, ``bias``, ``variance``: arrays of shape (p,); ``mean_error``,
        ``mean_bias``, ``mean_variance``: their means (eq. 3.4).
    """
    W = np.asarray(weights, dtype=float)
    r = np.asarray(relevance, dtype=float)
    if W.ndim != 2 or r.ndim != 1 or W.shape[1] != r.size:
        raise StablefsError(
            f"bias_variance needs weights of shape (M, p) and relevance of shape (p,); got "
            f"{W.shape} and {r.shape}."
        )
    if W.shape[0] < 1 or not np.all(np.isfinite(W)) or not np.all(np.isfinite(r)):
        raise StablefsError("bias_variance needs at least one row of finite weights.")
    mean = W.mean(axis=0)
    error = ((W - r) ** 2).mean(axis=0)
    bias = (r - mean) ** 2
    variance = ((W - mean) ** 2).mean(axis=0)
    return {
        "error": error, "bias": bias, "variance": variance,
        "mean_error": float(error.mean()), "mean_bias": float(bias.mean()),
        "mean_variance": float(variance.mean()),
    }
