"""Bias–variance decomposition of feature-weight error (Han 2012, ch. 3, eqs. 3.1–3.4)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from stablefs._errors import StablefsError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike


def bias_variance(weights: ArrayLike, relevance: ArrayLike) -> dict[str, np.ndarray]:
    """Decompose the error of a feature weighting into bias and variance (Han 2012, eqs. 3.1–3.4).

    With M training sets D_1..D_M standing in for the distribution of training sets, and
    r_j(D) the normalised weight of feature j on D (Han 2012, sec. 6.1: r_j = |w_j| / Σ|w|):

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

    See Also
    --------
    bias_variance_path : The same at every iteration of SVM-RFE.
    stablefs.stability.weight_variance : The variance term alone.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 3.1, eqs. 3.1–3.4.

    Examples
    --------
    Three training sets, four features, the first two relevant:

    >>> from stablefs.evaluation import bias_variance
    >>> weights = [[0.5, 0.3, 0.2, 0.0], [0.4, 0.4, 0.0, 0.2], [0.6, 0.2, 0.1, 0.1]]
    >>> parts = bias_variance(weights, relevance=[0.5, 0.5, 0.0, 0.0])
    >>> round(parts["mean_error"], 4), round(parts["mean_bias"], 4)
    (0.0217, 0.015)
    >>> round(parts["mean_variance"], 4)
    0.0067
    >>> parts["error"].round(4).tolist() == (parts["bias"] + parts["variance"]).round(4).tolist()
    True
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


def bias_variance_path(weight_paths: np.ndarray | Sequence[ArrayLike],
                       relevance: ArrayLike) -> dict[str, np.ndarray]:
    """Decompose the feature-weight error at every iteration of a recursive elimination.

    Han 2012, sec. 6.2, Fig. 6.1: eqs. 3.1–3.4 at each iteration.

    ``weight_paths[m][t]`` is the normalised weight vector of training set ``m`` at iteration
    ``t`` (for SVM-RFE: :attr:`stablefs.selectors.SVMRFE.weight_path_`, ``|w_j| / Σ|w|`` with
    0 for eliminated features, Han 2012 sec. 6.1). Iteration ``t`` is :func:`bias_variance`
    applied to the ``M`` rows ``weight_paths[:, t]``, so ``error = bias + variance`` holds at
    every iteration, per feature and on average (1/M normalisation).

    Parameters
    ----------
    weight_paths : array-like of shape (M, T, p), or a sequence of M arrays of shape (T, p)
        One weight path per training set, all with the same iterations (the same schedule:
        same ``p``, ``step`` and ``n_features_to_select``; compare ``n_remaining_``).
    relevance : array-like of shape (p,)
        The true relevance vector r*.

    Returns
    -------
    dict
        ``error``, ``bias``, ``variance``: arrays of shape (T, p); ``mean_error``,
        ``mean_bias``, ``mean_variance``: arrays of shape (T,), their means over features
        (eq. 3.4).

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 3.1 (eqs. 3.1–3.4),
       sec. 6.2 and Fig. 6.1.

    Examples
    --------
    SVM-RFE on three training sets of Han's synthetic data, down to 5 features:

    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.evaluation import bias_variance_path
    >>> from stablefs.selectors import SVMRFE
    >>> paths, relevance = [], None
    >>> for seed in range(3):
    ...     data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                         random_state=seed)
    ...     paths.append(SVMRFE(n_features_to_select=5).fit(data.X, data.y).weight_path_)
    ...     relevance = data.relevance
    >>> parts = bias_variance_path(paths, relevance)
    >>> parts["mean_error"].shape
    (24,)
    >>> print(*parts["mean_variance"][[0, -1]].round(5))
    5e-05 0.01111
    """
    shapes = {np.shape(path) for path in weight_paths} if not isinstance(
        weight_paths, np.ndarray) else {weight_paths.shape[1:]}
    if len(shapes) > 1:
        listed = sorted(shapes)
        more = f" and {len(listed) - 3} more" if len(listed) > 3 else ""
        raise StablefsError(
            "bias_variance_path needs the same iterations for every training set; got paths "
            f"of shapes {', '.join(str(tuple(int(d) for d in s)) for s in listed[:3])}{more}: "
            "fit every set with the same step and n_features_to_select."
        )
    W = np.asarray(weight_paths, dtype=float)
    r = np.asarray(relevance, dtype=float)
    if W.ndim != 3 or r.ndim != 1 or W.shape[2] != r.size or W.shape[1] < 1:
        raise StablefsError(
            f"bias_variance_path needs weight paths of shape (M, T, p) and relevance of shape "
            f"(p,); got {W.shape} and {r.shape}."
        )
    parts = [bias_variance(W[:, t], r) for t in range(W.shape[1])]
    out = {key: np.vstack([part[key] for part in parts]) for key in ("error", "bias", "variance")}
    for key in ("mean_error", "mean_bias", "mean_variance"):
        out[key] = np.array([part[key] for part in parts])
    return out
