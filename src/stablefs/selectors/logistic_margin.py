"""L2-regularised logistic margin weighting, L2LW (Li et al. 2013, sec. 2.1, eq. 1).

Every instance is mapped to its one-neighbour margin vector
``z_i = |x_i - NM(x_i)| - |x_i - NH(x_i)|`` (element-wise; nearest hit ``NH`` and nearest miss
``NM`` under the Manhattan distance), and the feature weights are the minimiser of the
L2-regularised logistic loss of the margins,

``L(w) = sum_i s_i log(1 + exp(-w^T z_i)) + gamma ||w||^2``        (eq. 1, ``s_i = 1/n``)

which is strictly convex, so the minimiser is unique. Its subsampling ensembles WEn (mean
weight) and REn (rank sum) of sec. 2.2 are the ``wen-`` / ``ren-`` prefixes of
:class:`stablefs.stabilizers.Ensemble` around this selector (``"wen-logistic-margin"``).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Literal, overload

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit
from sklearn.exceptions import ConvergenceWarning

from stablefs._runtime.threads import limit_threads
from stablefs.selectors._base import BaseSelector
from stablefs.selectors._constraints import number, whole
from stablefs.selectors._neighbors import (
    BLOCK_ELEMENTS,
    minmax_scale,
    pairwise_distances,
    positive_weight_subset,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray


def logistic_margin_vectors(X: np.ndarray, y: np.ndarray, *, scale: bool = True) -> np.ndarray:
    """One-neighbour margin vectors ``z_i = |x_i - NM(x_i)| - |x_i - NH(x_i)|`` (Li et al. 2013,
    eq. 1).

    Nearest hit and miss in ``D \\ {x_i}`` under the Manhattan distance on min-max scaled
    features (``scale=True``, the range normalisation of the Relief comparators) or raw ones.
    Multi-class: the miss is the nearest instance of any other class. Equal distances are
    broken by the lower sample index; a duplicate of ``x_i`` is a legitimate neighbour at
    distance 0. The sole member of a class has no hit: its hit term is 0.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data.
    y : ndarray of shape (n_samples,)
        The class labels.
    scale : bool, default=True
        Min-max scale each feature to ``[0, 1]`` first.

    Returns
    -------
    ndarray of shape (n_samples, n_features)
        The margin vectors ``z_i``, one row per instance.
    """
    from stablefs.selectors.relief import nearest_hit_and_miss

    X = np.asarray(X, dtype=np.float64)
    _, codes = np.unique(np.asarray(y), return_inverse=True)
    Xs = minmax_scale(X) if scale else X
    D = pairwise_distances(Xs, "cityblock")
    hit, miss = nearest_hit_and_miss(D, codes)
    Z = Xs[miss]  # the only n x p result; the rest is done in place, in row blocks
    Z -= Xs
    np.abs(Z, out=Z)
    rows = max(1, BLOCK_ELEMENTS // max(X.shape[1], 1))
    for start in range(0, X.shape[0], rows):
        idx = np.arange(start, min(start + rows, X.shape[0]))
        idx = idx[hit[idx] >= 0]  # the sole member of a class has no hit term
        near = Xs[hit[idx]]
        near -= Xs[idx]
        np.abs(near, out=near)
        Z[idx] -= near
    return Z


def logistic_loss(w: np.ndarray, Z: np.ndarray, s: np.ndarray, gamma: float):
    """Loss and exact gradient of eq. 1 (Li et al. 2013) with instance weights ``s``.

    ``L(w) = sum_i s_i log(1 + exp(-w^T z_i)) + gamma ||w||^2`` and
    ``grad L(w) = -sum_i s_i sigma(-w^T z_i) z_i + 2 gamma w`` with ``sigma(t) = 1/(1+e^-t)``;
    ``s_i = 1/n`` is the paper's equation. Computed with ``log_expit`` / ``expit`` so that
    large margins neither overflow nor lose the gradient.

    Returns
    -------
    loss : float
    grad : ndarray of shape (n_features,)
    """
    t = Z @ w
    loss = -float(s @ log_expit(t)) + gamma * float(w @ w)
    grad = -((s * expit(-t)) @ Z) + 2.0 * gamma * w
    return loss, grad


@overload
def logistic_margin_weights(
    X: ArrayLike, y: ArrayLike, *, gamma: float = ..., scale: bool = ..., tol: float = ...,
    max_iter: int = ..., sample_weight: ArrayLike | None = ..., return_n_iter: Literal[False] = ...,
) -> NDArray[np.float64]: ...


@overload
def logistic_margin_weights(
    X: ArrayLike, y: ArrayLike, *, gamma: float = ..., scale: bool = ..., tol: float = ...,
    max_iter: int = ..., sample_weight: ArrayLike | None = ..., return_n_iter: Literal[True],
) -> tuple[NDArray[np.float64], int]: ...


def logistic_margin_weights(
    X: ArrayLike,
    y: ArrayLike,
    *,
    gamma: float = 1.0,
    scale: bool = True,
    tol: float = 1e-8,
    max_iter: int = 1000,
    sample_weight: ArrayLike | None = None,
    return_n_iter: bool = False,
) -> NDArray[np.float64] | tuple[NDArray[np.float64], int]:
    """Feature weights of L2-regularised logistic margin weighting (Li et al. 2013, eq. 1).

    Minimises ``L(w)`` (:func:`logistic_loss`) over the margin vectors of
    :func:`logistic_margin_vectors` with scipy's L-BFGS-B (a quasi-Newton method) and the
    exact gradient, from ``w = 0``, until the largest gradient component is at most ``tol``
    (the paper says only "gradient descent-based techniques"; the objective is strictly convex,
    so any convergent solver reaches the same minimiser).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data.
    y : array-like of shape (n_samples,)
        The class labels.
    gamma : float > 0, default=1.0
        Regularisation strength (the paper's default, sec. 4.1).
    scale : bool, default=True
        Min-max scale each feature to ``[0, 1]`` first (the paper states no preprocessing; its
        stability bound assumes normalised samples, ``||z_i|| <= 2``).
    tol : float, default=1e-8
        Stop when ``max_j |dL/dw_j| <= tol``.
    max_iter : int, default=1000
        Limit on L-BFGS iterations; a :class:`~sklearn.exceptions.ConvergenceWarning` is
        issued if it is reached.
    sample_weight : array-like of shape (n_samples,), optional
        Instance weights ``s_i`` (normalised to sum 1; ``None`` = ``1/n``, the paper). A sample
        of weight 0 is removed before the neighbour search.
    return_n_iter : bool, default=False
        Also return the number of L-BFGS iterations.

    Returns
    -------
    weights : ndarray of shape (n_features,)
        The minimiser ``w`` of eq. 1; the larger ``w_j``, the more relevant feature ``j``.
    n_iter : int
        Only when ``return_n_iter``.

    See Also
    --------
    LogisticMarginWeighting : The selector built on these weights.

    References
    ----------
    .. [1] Y. Li, S. Huang, S. Chen and J. Si, "Stable L2-regularized ensemble feature
       weighting", Multiple Classifier Systems (MCS 2013), LNCS 7872, Springer, 2013,
       sec. 2.1, eq. 1.

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.selectors import logistic_margin_weights
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 10)
    >>> X = rng.normal(size=(20, 4))
    >>> X[:, 1] += 2 * y
    >>> logistic_margin_weights(X, y).round(3).tolist()
    [0.005, 0.034, 0.005, 0.006]
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    s = (np.full(X.shape[0], 1.0 / X.shape[0]) if sample_weight is None
         else np.asarray(sample_weight, dtype=np.float64))
    X, y, s, _ = positive_weight_subset(X, y, s)
    Z = logistic_margin_vectors(X, y, scale=scale)
    # matrix-vector products are memory-bound: one BLAS thread is as fast on an idle machine
    # and several times faster on a busy one (measured on Lung, 2 shared cores)
    with limit_threads(1, user_api="blas"):
        res = minimize(
            logistic_loss, np.zeros(X.shape[1]), args=(Z, s, float(gamma)), jac=True,
            method="L-BFGS-B", options={"gtol": tol, "ftol": 0.0, "maxiter": max_iter},
        )
    w = res.x
    if float(np.max(np.abs(res.jac), initial=0.0)) > tol and res.nit >= max_iter:
        warnings.warn(
            f"logistic margin weighting stopped after {res.nit} iterations with gradient "
            f"{np.max(np.abs(res.jac)):.3g} > tol = {tol:g}: raise max_iter.",
            ConvergenceWarning, stacklevel=2,
        )
    return (w, int(res.nit)) if return_n_iter else w


class LogisticMarginWeighting(BaseSelector):
    """Feature weighting by L2-regularised logistic loss on margins, L2LW (Li et al. 2013).

    Li et al. (2013), sec. 2.1, eq. 1. Scores every feature by its weight ``w_j`` in the minimiser
    of the L2-regularised logistic loss of the one-neighbour Manhattan margin vectors (see
    :func:`logistic_margin_weights`); the largest weight ranks first. ``sample_weight`` weighs each
    instance's loss term, so the selector can sit inside instance weighting (``iw-``, ``liw-``); the
    ensembles of the paper are ``wen-logistic-margin`` (WEn) and ``ren-logistic-margin`` (REn): 20
    subsamples of 90 %.

    Parameters
    ----------
    gamma : float > 0, default=1.0
        Regularisation strength of eq. 1 (the paper's default).
    scale : bool, default=True
        Min-max scale features to ``[0, 1]`` before the margins.
    tol : float, default=1e-8
        Convergence tolerance on the largest gradient component.
    max_iter : int, default=1000
        L-BFGS iteration limit.
    n_features_to_select : int, float or None, default=None
        Size of ``support_`` (``None``: half of the features).

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        The weights ``w`` (may be negative: eq. 1 has no sign constraint).
    coef_ : ndarray of shape (n_features,)
        The same weights.
    n_iter_ : int
        L-BFGS iterations run.
    ranking_, support_, n_features_to_select_, classes_, n_features_in_
        As in :class:`stablefs.selectors.ReliefF`.

    See Also
    --------
    logistic_margin_weights : The weights.
    stablefs.stabilizers.Ensemble : The WEn and REn ensembles (``aggregate="weight"``,
        ``"rank"``).

    References
    ----------
    .. [1] Y. Li, S. Huang, S. Chen and J. Si, "Stable L2-regularized ensemble feature
       weighting", Multiple Classifier Systems (MCS 2013), LNCS 7872, Springer, 2013,
       sec. 2.1, eq. 1 (L2LW) and sec. 2.2 (WEn, REn).

    Examples
    --------
    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.selectors import LogisticMarginWeighting
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> selector = LogisticMarginWeighting(n_features_to_select=5).fit(data.X, data.y)
    >>> print(*selector.get_support(indices=True))
    1 2 4 7 8

    The weight-averaging ensemble WEn of the paper, from a method string:

    >>> import stablefs
    >>> wen = stablefs.make_selector("wen-logistic-margin(n_estimators=5, random_state=0)")
    >>> print(*wen.set_params(n_features_to_select=5).fit(data.X, data.y)
    ...       .get_support(indices=True))
    1 2 4 7 8
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "gamma": [number(0, None, closed="neither")],
        "scale": ["boolean"],
        "tol": [number(0, None, closed="neither")],
        "max_iter": [whole(1, None)],
    }

    def __init__(self, gamma: float = 1.0, *, scale: bool = True, tol: float = 1e-8,
                 max_iter: int = 1000, n_features_to_select: int | float | None = None) -> None:
        self.gamma = gamma
        self.scale = scale
        self.tol = tol
        self.max_iter = max_iter
        self.n_features_to_select = n_features_to_select

    def _score(self, X, y, sample_weight):
        w, n_iter = logistic_margin_weights(
            X, y, gamma=self.gamma, scale=self.scale, tol=self.tol, max_iter=self.max_iter,
            sample_weight=sample_weight, return_n_iter=True,
        )
        self.coef_ = w
        self.n_iter_ = n_iter
        return w
