"""Logistic instance weights, LIW (Prat Masramon 2016, sec. 8.2, eq. 8.2): the functions.

Every instance gets Relief's hypothesis margin (eq. 2.53), the margins are standardised over
the data, and a logistic function of the standardised margin is the weight.

These functions sit in the selectors layer so that :class:`~stablefs.selectors.Simba` with
``instance_weighting="logistic"`` does not reach up into the stabilizers;
:mod:`stablefs.stabilizers.logistic` (the ``LogisticInstanceWeighting`` wrapper) re-exports
them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.special import expit
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_consistent_length

from stablefs._errors import StablefsError
from stablefs._validation import check_classes
from stablefs.selectors._constraints import plain
from stablefs.selectors._neighbors import minmax_scale, pairwise_distances

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike, NDArray

#: the thesis' slope (sec. 8.2)
LIW_ALPHA = 3.03

#: standard deviations below this fraction of the largest |margin| count as zero
_ZERO_RTOL = 1e-12


#: the readings of "margin" in the thesis' eq. 8.2 (sec. 8.2)
MARGIN_READINGS = ("nearest", "all")


def relief_margins(X: ArrayLike, y: ArrayLike, *, scale: bool = True,
                   margin: Literal["nearest", "all"] = "nearest") -> NDArray[np.float64]:
    """Compute Relief's hypothesis margin of every instance (Prat Masramon 2016, eq. 2.53).

    ``theta(x) = (|x - nearmiss(x)| - |x - nearhit(x)|) / 2`` with the nearest hit and miss
    in ``D \\ {x}`` under the Manhattan distance (Relief's distance, eq. 2.18) on min-max
    scaled features (``scale=True``) or raw ones. Multi-class: the miss is the nearest
    instance of any other class. The sole member of a class has no hit; its hit distance is
    taken as 0. Ties do not matter (only the distance enters).

    ``margin="all"`` reads sec. 8.2's "the average margin between every instance in D and
    all the rest": ``theta(x) = (mean |x - m| - mean |x - h|) / 2`` over every miss ``m``
    and every other hit ``h`` of ``x``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data.
    y : array-like of shape (n_samples,)
        The class labels.
    scale : bool, default=True
        Min-max scale the features first.
    margin : {"nearest", "all"}, default="nearest"
        To the nearest hit and miss (eq. 2.53), or the average to all the rest.

    Returns
    -------
    ndarray of shape (n_samples,)
        ``theta(x)`` of every instance; negative when its nearest miss is nearer than its
        nearest hit.

    References
    ----------
    .. [1] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.4, eq. 2.53, and sec. 8.2.
    .. [2] R. Gilad-Bachrach, A. Navot and N. Tishby, "Margin based feature selection:
       theory and algorithms", Proc. 21st Int. Conf. on Machine Learning (ICML), 2004 (the
       hypothesis margin).

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.stabilizers import relief_margins
    >>> X = np.array([[0.0, 0.1], [0.2, 0.0], [0.1, 0.2], [1.0, 0.9], [0.9, 1.0], [1.1, 0.8],
    ...               [0.95, 0.9]])
    >>> y = np.array([0, 0, 0, 1, 1, 1, 0])
    >>> relief_margins(X, y).round(3).tolist()
    [0.755, 0.668, 0.659, -0.073, -0.023, 0.023, -0.714]
    """
    from stablefs.selectors.relief import nearest_hit_and_miss

    if margin not in MARGIN_READINGS:
        raise StablefsError(f"margin = {plain(margin)}: it must be one of "
                            f"{', '.join(MARGIN_READINGS)}.")
    X = np.asarray(X, dtype=np.float64)
    _, codes = np.unique(np.asarray(y), return_inverse=True)
    Xs = minmax_scale(X) if scale else X
    D = pairwise_distances(Xs, "cityblock")
    if margin == "all":
        same = codes[:, None] == codes[None, :]
        np.fill_diagonal(same, False)
        other = codes[:, None] != codes[None, :]
        n_hit = same.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            d_hit = np.where(n_hit > 0, (D * same).sum(axis=1) / np.maximum(n_hit, 1), 0.0)
        d_miss = (D * other).sum(axis=1) / other.sum(axis=1)
        return 0.5 * (d_miss - d_hit)
    hit, miss = nearest_hit_and_miss(D, codes)
    rows = np.arange(X.shape[0])
    d_hit = np.where(hit >= 0, D[rows, np.maximum(hit, 0)], 0.0)
    return 0.5 * (D[rows, miss] - d_hit)


def logistic_instance_weights(X: ArrayLike, y: ArrayLike, *, alpha: float = LIW_ALPHA,
                              scale: bool = True,
                              margin: Literal["nearest", "all"] = "nearest") -> NDArray[np.float64]:
    """Logistic instance weights (Prat Masramon 2016, sec. 8.2, eq. 8.2).

    ``omega(x) = 1 / (1 + exp(-alpha z(x)))`` with ``z(x) = (theta(x) - mean) / sd``, the
    margin of :func:`relief_margins` standardised by its mean and sample standard deviation
    (``ddof=1``) over the data.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data.
    y : array-like of shape (n_samples,)
        The class labels.
    alpha : float, default=3.03
        The slope. The thesis motivates 3.03 as giving "weight 0.954 at two standard
        deviations"; in fact ``1 / (1 + exp(-3.03)) = 0.954`` at **one** standard deviation
        (0.998 at two). We keep the thesis' value.
    scale : bool, default=True
        Min-max scale the features before the distances (Relief's ``diff``). The thesis does
        not say; microarray intensities span orders of magnitude.
    margin : {"nearest", "all"}, default="nearest"
        The margin of :func:`relief_margins`: to the nearest hit and miss (eq. 2.53, as the
        thesis' RLIW) or the average to all the rest (sec. 8.2's words).

    Returns
    -------
    ndarray of shape (n_samples,)
        In ``(0, 1)``; they do not sum to 1. Every instance gets 0.5 when all margins are
        equal (standard deviation numerically 0).

    See Also
    --------
    stablefs.stabilizers.LogisticInstanceWeighting : A selector fitted with these weights.

    Notes
    -----
    The thesis also speaks of "the average margin between every instance and all the rest";
    we follow its statement that RLIW "uses the exact margin definition as Relief does"
    (one nearest hit and miss).

    References
    ----------
    .. [1] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 8.2, eq. 8.2.

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.stabilizers import logistic_instance_weights
    >>> X = np.array([[0.0, 0.1], [0.2, 0.0], [0.1, 0.2], [1.0, 0.9], [0.9, 1.0], [1.1, 0.8],
    ...               [0.95, 0.9]])
    >>> y = np.array([0, 0, 0, 1, 1, 1, 0])
    >>> logistic_instance_weights(X, y).round(3).tolist()
    [0.961, 0.939, 0.936, 0.189, 0.236, 0.286, 0.006]
    """
    X = check_array(X, dtype=np.float64, ensure_min_samples=2)
    y = np.asarray(y)
    check_consistent_length(X, y)
    check_classification_targets(y)
    check_classes(y)
    if isinstance(alpha, bool) or not (isinstance(alpha, (int, float, np.number))
                                       and np.isfinite(alpha) and alpha > 0):
        raise StablefsError(f"alpha = {plain(alpha)}: it must be a number > 0.")
    theta = relief_margins(X, y, scale=scale, margin=margin)
    sd = float(np.std(theta, ddof=1))
    top = float(np.max(np.abs(theta)))
    if sd <= _ZERO_RTOL * top or sd == 0.0:
        return np.full(theta.shape, 0.5)
    return expit(alpha * (theta - theta.mean()) / sd)
