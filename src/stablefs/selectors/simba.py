"""Simba (Gilad-Bachrach, Navot and Tishby 2004) and its instance-weighted forms SimbaLIW and
SimbaMIW (Prat Masramon 2016, Alg. 2.5 and Alg. 8.1).

Simba climbs the gradient of the summed hypothesis margin ``theta(x) = (||x - nm(x)||_w -
||x - nh(x)||_w) / 2`` (Prat Masramon 2016, eq. 2.57) with the feature-weighted norm
``||z||_w = sqrt(sum_j w_j^2 z_j^2)``, one instance at a time, the neighbours found afresh under
the current weights.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.special import expit
from sklearn.utils import check_random_state

from stablefs._errors import StablefsError
from stablefs.selectors._base import BaseSelector
from stablefs.selectors._constraints import StrOptions, number, plain, whole
from stablefs.selectors._neighbors import minmax_scale, positive_weight_subset

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Literal

    from stablefs._validation import RandomStateLike

_UTILITIES = ("linear", "sigmoid")
_STRATEGIES = ("normal", "sample", "order")
_WEIGHTINGS = ("logistic", "margin")
_WEIGHT_SCALES = ("mean", "none")


def _visit_order(strategy: str, omega: np.ndarray, rng) -> np.ndarray:
    """Alg. 8.1's instance choice for one pass of ``n`` instances."""
    n = omega.size
    if strategy == "normal":
        return rng.permutation(n)
    if strategy == "sample":
        return rng.choice(n, size=n, replace=True, p=omega / omega.sum())
    return np.argsort(-omega, kind="stable")  # "order": descending weight, ties by index


def simba_weights(
    X: np.ndarray,
    y: np.ndarray,
    instance_weights: np.ndarray | None = None,
    *,
    n_passes: int = 1,
    utility: Literal["linear", "sigmoid"] = "linear",
    beta: float = 1.0,
    strategy: Literal["normal", "sample", "order"] = "normal",
    delta: bool = False,
    scale: bool = True,
    random_state: RandomStateLike = None,
    callback: Callable[[int, int, np.ndarray], object] | None = None,
) -> np.ndarray:
    """Compute Simba feature weights (Prat Masramon 2016, Alg. 2.5; instance-weighted Alg. 8.1).

    Starting from ``w = (1, ..., 1)``, for every visited instance ``x`` with nearest miss
    ``m`` and nearest hit ``h`` in ``D \\ {x}`` under ``||.||_w``::

        Delta_j = 1/2 u'(theta(x)) [ (x_j - m_j)^2 / ||x - m||_w
                                     - (x_j - h_j)^2 / ||x - h||_w ] w_j
        w <- w + omega(x) Delta    (delta=True, Alg. 8.1's Delta-combination)
        w <- w + Delta             (otherwise)

    and at the end ``w <- w^2 / max_j w_j^2``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data.
    y : ndarray of shape (n_samples,)
        The class labels.
    instance_weights : ndarray of shape (n_samples,), optional
        ``omega``, positive, used as given (no rescaling here); ``None``: all 1.
    n_passes : int, default=1
        ``T / n``: passes of ``n`` instances each (Alg. 8.1 makes one).
    utility : {"linear", "sigmoid"}, default="linear"
        ``u(theta) = theta`` (``u' = 1``) or ``u(theta) = 1 / (1 + exp(-beta theta))``
        (``u' = beta u (1 - u)``).
    beta : float, default=1.0
        Slope of the sigmoid utility.
    strategy : {"normal", "sample", "order"}, default="normal"
        Alg. 8.1's instance choice per pass: a random permutation; ``n`` draws with
        probabilities ``omega / sum(omega)`` (with replacement); or every instance once in
        descending ``omega`` (ties by the lower index).
    delta : bool, default=False
        Scale each update by the visited instance's ``omega`` (Alg. 8.1's Delta-combination).
    scale : bool, default=True
        Min-max scale the features first. The thesis leaves scaling open; unscaled microarray
        intensities would let the features of largest range decide every neighbour.
    random_state : int, RandomState or None
        Seeds the order (or the draw) of the instances.
    callback : callable, optional
        Called as ``callback(t, i, w)`` after the ``t``-th update (``t = 1 .. T``), ``i`` the
        visited instance and ``w`` the current weights *before* the final squaring (a view
        into the working array: copy what you keep). Lets a caller follow the gradient
        ascent, e.g. the convergence plots of the XOR demonstration (thesis Fig. 8.4); it
        does not change the result.

    Returns
    -------
    ndarray of shape (n_features,)
        In ``[0, 1]``, maximum 1 (all 0 if every weight reached 0).

    See Also
    --------
    Simba : The selector built on these weights.

    Notes
    -----
    - Zero distances (a duplicate as nearest hit or miss): its term is
      ``0 / 0`` in exact arithmetic because every ``(x_j - m_j)^2`` is 0; we take it as 0.
    - The sole member of a class has no hit: the hit term is 0 (and ``||x - h||_w = 0`` in
      the margin).
    - Ties in distance go to the lower sample index.
    - Cost O(T n p) time; each instance's distances to all others are one fused pass of a
      compiled kernel (:func:`~stablefs.selectors._relief_kernels.weighted_distances_to`).

    References
    ----------
    .. [1] R. Gilad-Bachrach, A. Navot and N. Tishby, "Margin based feature selection:
       theory and algorithms", Proc. 21st Int. Conf. on Machine Learning (ICML), 2004 (Simba).
    .. [2] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.4.2, Alg. 2.5 and eq. 2.57;
       sec. 8.3, Alg. 8.1 (SimbaLIW, SimbaMIW).

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.selectors import simba_weights
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 10)
    >>> X = rng.normal(size=(20, 4))
    >>> X[:, 1] += 2 * y
    >>> simba_weights(X, y, random_state=0).round(3).tolist()
    [0.296, 1.0, 0.32, 0.525]
    """
    X = np.asarray(X, dtype=np.float64)
    Xs = minmax_scale(X) if scale else np.ascontiguousarray(X)
    n, p = Xs.shape
    _, codes = np.unique(np.asarray(y), return_inverse=True)
    omega = np.ones(n) if instance_weights is None else np.asarray(instance_weights, float)
    if omega.shape != (n,) or not np.all(omega > 0) or not np.all(np.isfinite(omega)):
        raise StablefsError("instance_weights must be one positive finite number per sample.")
    rng = check_random_state(random_state)
    w = np.ones(p)
    dist = np.empty(n)
    from stablefs.selectors._relief_kernels import weighted_distances_to  # Numba, on first use

    same_of = [codes == c for c in range(int(codes.max()) + 1)]
    t = 0
    for _ in range(n_passes):
        for i in _visit_order(strategy, omega, rng):
            w2 = w * w
            xi = Xs[i]
            weighted_distances_to(Xs, i, w2, dist, squared=True)  # one fused pass (compiled)
            np.sqrt(dist, out=dist)
            dist[i] = np.inf
            same = same_of[codes[i]]
            miss = int(np.argmin(np.where(same, np.inf, dist)))
            dh = np.where(same, dist, np.inf)
            hit = int(np.argmin(dh))
            d_miss = dist[miss]
            d_hit = dh[hit] if np.isfinite(dh[hit]) else 0.0
            if utility == "linear":
                uprime = 1.0
            else:
                u = expit(beta * 0.5 * (d_miss - d_hit))
                uprime = beta * u * (1.0 - u)
            step = np.zeros(p)
            if d_miss > 0:
                step += (xi - Xs[miss]) ** 2 / d_miss
            if d_hit > 0:
                step -= (xi - Xs[hit]) ** 2 / d_hit
            step *= 0.5 * uprime * w
            w += omega[i] * step if delta else step
            if callback is not None:
                t += 1
                callback(t, int(i), w)
    w2 = w * w
    top = float(w2.max())
    return w2 / top if top > 0 else np.zeros(p)


class Simba(BaseSelector):
    """Simba feature weighting, and its instance-weighted forms SimbaLIW and SimbaMIW.

    Simba is Gilad-Bachrach, Navot and Tishby (2004), as Prat Masramon (2016) states it in Alg. 2.5;
    SimbaLIW and SimbaMIW are his Alg. 8.1. See :func:`simba_weights` for the update. The instance
    weights ``omega`` of Alg. 8.1 are ``sample_weight`` times, with ``instance_weighting``, the
    logistic (sec. 8.2) or margin-based (Han 2012 ch. 4) instance weights of the training data.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Size of ``support_`` (``None``: half of the features; a float: a fraction).
    n_passes : int, default=1
        Passes of ``n`` instances (``T = n_passes * n``); the thesis' Alg. 8.1 makes one.
    utility : {"linear", "sigmoid"}, default="linear"
        The utility of the margin, ``u(theta) = theta`` or a sigmoid (see
        :func:`simba_weights`).
    beta : float, default=1.0
        Sigmoid slope (only with ``utility="sigmoid"``).
    instance_weighting : {None, "logistic", "margin"}, default=None
        ``None``: plain Simba (``omega`` = ``sample_weight`` only); ``"logistic"``: SimbaLIW
        (:func:`~stablefs.stabilizers.logistic_instance_weights`, alpha = 3.03);
        ``"margin"``: SimbaMIW (:func:`~stablefs.stabilizers.margin_instance_weights`).
    strategy : {"normal", "sample", "order"}, default="normal"
        Alg. 8.1's instance choice (see :func:`simba_weights`).
    delta : bool, default=False
        Alg. 8.1's Delta-combination ``w <- w + omega(x) Delta``.
    weight_scale : {"mean", "none"}, default="mean"
        Scale of ``omega`` in the Delta-combination and the sampling. ``"mean"`` rescales
        ``omega`` to mean 1: every variant then takes steps of the same overall size as plain
        Simba, and only the *relative* weights of the instances differ. ``"none"`` uses the
        weights as their definitions give them: LIW's in ``(0, 1)``, MBIW's summing to 1, so
        that SimbaMIW-Delta shrinks every update by about ``1/n`` and its ``w`` barely moves
        from 1 (``benchmarks/bench_simba.py`` measures both). We default to ``"mean"``
        because under ``"none"`` the comparison of SimbaLIW and SimbaMIW would measure the
        arbitrary normalisation of the weights rather than which instances they favour.
        With equal ``sample_weight`` and no instance weighting, ``"mean"`` gives plain Simba
        exactly.
    scale : bool, default=True
        Min-max scale features first.
    random_state : int, RandomState or None, default=None
        Seeds the order (or the draw) of the instances.

    Attributes
    ----------
    instance_weights_ : ndarray of shape (n_samples,)
        ``omega`` as used (0 for samples of weight 0).
    scores_ : ndarray of shape (n_features,)
        The Simba weights, in ``[0, 1]``; higher = more relevant.
    ranking_, support_, n_features_to_select_, classes_, n_features_in_
        As in :class:`stablefs.selectors.ReliefF`.

    See Also
    --------
    simba_weights : The update, with every convention.

    References
    ----------
    .. [1] R. Gilad-Bachrach, A. Navot and N. Tishby, "Margin based feature selection:
       theory and algorithms", Proc. 21st Int. Conf. on Machine Learning (ICML), 2004.
    .. [2] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.4.2, Alg. 2.5; sec. 8.2
       (logistic instance weights) and sec. 8.3, Alg. 8.1.
    .. [3] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, ch. 4 (margin-based instance
       weights).

    Examples
    --------
    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.selectors import Simba
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> plain = Simba(n_features_to_select=5, random_state=0).fit(data.X, data.y)
    >>> print(*plain.get_support(indices=True))
    1 4 7 8 9
    >>> liw = Simba(n_features_to_select=5, instance_weighting="logistic", delta=True,
    ...             random_state=0).fit(data.X, data.y)
    >>> print(*liw.get_support(indices=True))
    1 2 6 7 8
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "n_passes": [whole(1, None)],
        "utility": [StrOptions(set(_UTILITIES))],
        "beta": [number(0, None, closed="neither")],
        "instance_weighting": [None, StrOptions(set(_WEIGHTINGS))],
        "strategy": [StrOptions(set(_STRATEGIES))],
        "delta": ["boolean"],
        "weight_scale": [StrOptions(set(_WEIGHT_SCALES))],
        "scale": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, n_features_to_select: int | float | None = None, n_passes: int = 1,
                 utility: Literal["linear", "sigmoid"] = "linear", beta: float = 1.0,
                 instance_weighting: Literal["logistic", "margin"] | None = None,
                 strategy: Literal["normal", "sample", "order"] = "normal", delta: bool = False,
                 weight_scale: Literal["mean", "none"] = "mean", scale: bool = True,
                 random_state: RandomStateLike = None) -> None:
        self.n_features_to_select = n_features_to_select
        self.n_passes = n_passes
        self.utility = utility
        self.beta = beta
        self.instance_weighting = instance_weighting
        self.strategy = strategy
        self.delta = delta
        self.weight_scale = weight_scale
        self.scale = scale
        self.random_state = random_state

    def _score(self, X, y, sample_weight):
        Xp, yp, wp, keep = positive_weight_subset(X, y, sample_weight)
        omega = wp * wp.size  # 1 each for equal weights
        if self.instance_weighting == "logistic":
            from stablefs.selectors._logistic_weights import logistic_instance_weights

            omega = omega * logistic_instance_weights(Xp, yp, scale=self.scale)
        elif self.instance_weighting == "margin":
            from stablefs.selectors._margin_weights import margin_instance_weights

            omega = omega * margin_instance_weights(Xp, yp, scale=self.scale)
        if self.weight_scale == "mean":
            omega = omega / omega.mean()
        if not np.all(omega > 0):
            raise StablefsError(
                f"the instance weights underflowed to 0 ({plain(float(omega.min()))}): "
                "use weight_scale='mean'."
            )
        self.instance_weights_ = np.zeros(X.shape[0])
        self.instance_weights_[keep] = omega
        return simba_weights(
            Xp, yp, omega, n_passes=self.n_passes, utility=self.utility, beta=self.beta,
            strategy=self.strategy, delta=self.delta, scale=self.scale,
            random_state=self.random_state,
        )
