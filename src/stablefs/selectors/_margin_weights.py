"""Margin-based instance weights (Han 2012, ch. 4, Algorithm 1, eqs. 4.2-4.7): the functions.

Every instance is mapped to its *margin vector* (eq. 4.2) -- per feature, the summed distance
to all misses minus the summed distance to all hits, or with every hit and miss weighted by
its normalised inverse distance (eqs. 4.3-4.5) -- and weighted by the inverse of its mean
distance to the other margin vectors (eq. 4.6).

These functions sit in the selectors layer so that a selector that weighs its instances itself
(:class:`~stablefs.selectors.Simba` with ``instance_weighting="margin"``) does not reach up
into the stabilizers; :mod:`stablefs.stabilizers.margin` (the ``MarginInstanceWeighting``
wrapper) re-exports them under their public names.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, overload

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_consistent_length

from stablefs._errors import StablefsError
from stablefs._validation import check_classes
from stablefs.selectors._constraints import plain
from stablefs.selectors._neighbors import (
    minmax_scale,
    pairwise_distances,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

#: mean distances below this fraction of the largest margin-vector norm count as zero
_ZERO_RTOL = 1e-12

#: how hits and misses enter a margin vector: all equally (eq. 4.2) or by inverse distance
#: (eqs. 4.3-4.5)
NEIGHBOR_WEIGHTINGS = ("none", "distance")

#: scipy ``pdist`` metrics that suit real-valued margin vectors (any callable is also accepted)
MARGIN_METRICS = frozenset({
    "braycurtis", "canberra", "chebyshev", "cityblock", "correlation", "cosine", "euclidean",
    "minkowski", "seuclidean", "sqeuclidean",
})


def margin_vectors(
    X: np.ndarray, y: np.ndarray, neighbor_weights: np.ndarray | None = None
) -> np.ndarray:
    """Map every instance to its margin vector against all hits and misses (Han 2012, eq. 4.2).

    ``x'_ij = sum_{l: y_l != y_i} v_l |x_ij - x_lj| - sum_{l != i: y_l = y_i} v_l |x_ij - x_lj|``
    with ``v_l = 1`` (eq. 4.2) or ``v_l = W(l)``, the instance weights of the previous round
    (eq. 4.7). With more than two classes the misses are all samples of every other class.

    Computed per feature by one sort and prefix sums (``sum_l v_l |a - b_l|`` for all ``a`` at
    once, over all samples and over each class) in the compiled kernel
    :func:`stablefs.selectors._relief_kernels.margin_abs_diff_sums`: O(n log n p) time, memory
    the output, the same bits for any number of threads and on any host; no scaling is
    applied here.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data (not scaled here).
    y : ndarray of shape (n_samples,)
        The class labels.
    neighbor_weights : ndarray of shape (n_samples,), optional
        ``v``; ``None`` means 1 for every instance (eq. 4.2); the instance weights of the
        previous round give eq. 4.7.

    Returns
    -------
    ndarray of shape (n_samples, n_features)
        The margin vectors ``x'_i``, one row per instance.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 4.1, eq. 4.2, and
       sec. 4.4, eq. 4.7.

    Examples
    --------
    The last instance is labelled 0 but lies among the instances of class 1: its margin
    vector is negative.

    >>> import numpy as np
    >>> from stablefs.stabilizers import margin_vectors
    >>> X = np.array([[0.0, 0.1], [0.2, 0.0], [0.1, 0.2], [1.0, 0.9], [0.9, 1.0], [1.1, 0.8],
    ...               [0.95, 0.9]])
    >>> y = np.array([0, 0, 0, 1, 1, 1, 0])
    >>> margin_vectors(X, y).round(2).tolist()
    [[1.75, 1.4], [1.35, 1.5], [1.65, 1.1], [2.55, 2.2], [2.15, 2.5], [2.85, 1.9], [-2.3, -2.2]]
    """
    from stablefs.selectors._relief_kernels import margin_abs_diff_sums

    X = np.asarray(X, dtype=np.float64)
    _, codes = np.unique(np.asarray(y), return_inverse=True)
    v = np.ones(X.shape[0]) if neighbor_weights is None else np.asarray(neighbor_weights, float)
    return margin_abs_diff_sums(X, codes, v)


def neighbor_distance_weights(
    X: np.ndarray, y: np.ndarray, metric: str | Callable = "cityblock"
) -> np.ndarray:
    """Signed inverse-distance weights of every hit and miss (Han 2012, eqs. 4.4 and 4.5).

    ``C[i, l] = +(1/d_il) / sum_{misses m} (1/d_im)`` for a miss ``l`` of ``x_i`` and
    ``C[i, l] = -(1/d_il) / sum_{hits h} (1/d_ih)`` for a hit, 0 for ``l = i``, with ``d`` the
    distance ``metric`` between instances (Han 2012 does not name it; Manhattan by default,
    the distance of ReliefF's ``diff``). Each row's miss weights sum to 1 and its hit weights
    to -1 (no hits: the sole member of a class has hit weights 0).

    Zero distances (duplicates) are taken in the limit ``d -> 0``: the neighbours at distance
    0 share the class's unit weight equally, the others get 0. A duplicate differs from
    ``x_i`` in no feature, so such a row's hit (or miss) term of eq. 4.3 is 0.

    Returns
    -------
    ndarray of shape (n_samples, n_samples)
    """
    _, codes = np.unique(np.asarray(y), return_inverse=True)
    D = pairwise_distances(X, metric)
    n = D.shape[0]
    same = codes[:, None] == codes[None, :]
    np.fill_diagonal(same, False)
    other = codes[:, None] != codes[None, :]
    C = np.zeros((n, n))
    for mask, sign in ((other, 1.0), (same, -1.0)):
        zero = mask & (D == 0)
        has_zero = zero.any(axis=1)
        inv = np.zeros((n, n))
        np.divide(1.0, D, out=inv, where=mask & (D > 0))
        inv[has_zero] = zero[has_zero]
        total = inv.sum(axis=1, keepdims=True)
        np.divide(inv, total, out=inv, where=total > 0)
        C += sign * inv
    return C


def coefficient_abs_diff(X: np.ndarray, C: np.ndarray) -> np.ndarray:
    """``out[i, j] = sum_l C[i, l] |x_ij - x_lj|`` (eq. 4.3 of Han 2012 with the weights ``C``).

    O(n^2 p) in one fused pass of the compiled kernel
    :func:`stablefs.selectors._relief_kernels.coefficient_abs_diff_sums` (terms added in the
    order of ``l``, zero weights skipped, feature blocks in cache); memory: the output.
    """
    from stablefs.selectors._relief_kernels import coefficient_abs_diff_sums

    return coefficient_abs_diff_sums(X, C)


def distance_weighted_margin_vectors(
    X: np.ndarray, y: np.ndarray, metric: str | Callable = "cityblock"
) -> np.ndarray:
    """Map every instance to its margin vector with distance-weighted hits and misses.

    Han (2012), eqs. 4.3-4.5: ``x'_ij = sum_{misses l} w^{M_l} |x_ij - x_lj| - sum_{hits l}
    w^{H_l} |x_ij - x_lj|`` with the normalised inverse distances of
    :func:`neighbor_distance_weights`.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data (not scaled here).
    y : ndarray of shape (n_samples,)
        The class labels.
    metric : str or callable, default="cityblock"
        Distance between instances for the weights of eqs. 4.4-4.5 (Han 2012 does not name
        it; Manhattan is the distance of ReliefF's ``diff``).

    Returns
    -------
    ndarray of shape (n_samples, n_features)
        The margin vectors, one row per instance.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 4.1, eqs. 4.3–4.5.

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.stabilizers import distance_weighted_margin_vectors
    >>> X = np.array([[0.0, 0.1], [0.2, 0.0], [0.1, 0.2], [1.0, 0.9], [0.9, 1.0], [1.1, 0.8],
    ...               [0.95, 0.9]])
    >>> y = np.array([0, 0, 0, 1, 1, 1, 0])
    >>> distance_weighted_margin_vectors(X, y).round(2).tolist()
    [[0.81, 0.66], [0.6, 0.69], [0.75, 0.52], [0.02, -0.04], [0.07, 0.13], [0.28, 0.15],
     [-0.79, -0.76]]
    """
    X = np.asarray(X, dtype=np.float64)
    return coefficient_abs_diff(X, neighbor_distance_weights(X, y, metric))


def _weights_from_margins(M: np.ndarray, metric, data_scale: float = 0.0) -> np.ndarray:
    """Eq. 4.6: ``w_i`` proportional to ``1 / mean_{k != i} dist(x'_i, x'_k)``, summing to 1.

    ``data_scale`` is the size a margin vector can reach (n × the largest feature range ×
    sqrt(p)): mean distances below ``1e-12`` of it are round-off of margin vectors that are
    identical in exact arithmetic (for example every margin vector 0 when every hit and miss
    difference cancels), and then every instance gets ``1/n``. Comparing with the margins
    themselves would not do: their own norms are then that same round-off."""
    n = M.shape[0]
    D = pairwise_distances(M, metric)
    mean_dist = D.sum(axis=1) / (n - 1)
    if not np.all(np.isfinite(mean_dist)):
        raise StablefsError(
            f"the margin-space distance {plain(metric)} gave non-finite values: use a metric such "
            "as 'euclidean' or 'cityblock'."
        )
    # largest row norm without an n x p temporary
    norm = float(np.sqrt(np.max(np.einsum("ij,ij->i", M, M)))) if M.size else 0.0
    norm = max(norm, float(data_scale))
    top = float(mean_dist.max())
    if top <= _ZERO_RTOL * norm or top == 0.0:
        return np.full(n, 1.0 / n)  # all margin vectors identical: no instance is outlying
    inv = 1.0 / np.maximum(mean_dist, _ZERO_RTOL * top)
    return inv / inv.sum()


@overload
def margin_instance_weights(
    X: ArrayLike, y: ArrayLike, *, scale: bool = ..., metric: str | Callable = ...,
    n_iter: int = ..., tol: float = ..., neighbor_weighting: Literal["none", "distance"] = ...,
    neighbor_metric: str | Callable = ..., return_n_iter: Literal[False] = ...,
) -> NDArray[np.float64]: ...


@overload
def margin_instance_weights(
    X: ArrayLike, y: ArrayLike, *, scale: bool = ..., metric: str | Callable = ...,
    n_iter: int = ..., tol: float = ..., neighbor_weighting: Literal["none", "distance"] = ...,
    neighbor_metric: str | Callable = ..., return_n_iter: Literal[True],
) -> tuple[NDArray[np.float64], int]: ...


def margin_instance_weights(
    X: ArrayLike,
    y: ArrayLike,
    *,
    scale: bool = True,
    metric: str | Callable = "euclidean",
    n_iter: int = 1,
    tol: float = 1e-8,
    neighbor_weighting: Literal["none", "distance"] = "none",
    neighbor_metric: str | Callable = "cityblock",
    return_n_iter: bool = False,
) -> NDArray[np.float64] | tuple[NDArray[np.float64], int]:
    """Compute margin-based instance weights (Han 2012, Algorithm 1).

    Eqs. 4.2 and 4.6; with distance-weighted hits and misses eqs. 4.3-4.5; iterative: eq. 4.7.

    1. Map every instance to its margin vector against **all** hits and **all** misses
       (eq. 4.2, :func:`margin_vectors`).
    2. Weight instance ``x`` by ``w(x) = (1 / dbar(x')) / sum_i (1 / dbar(x'_i))`` (eq. 4.6)
       with ``dbar(x') = (1 / (n - 1)) sum_{k != i} dist(x', x'_k)``, the mean distance to the
       other ``n - 1`` margin vectors.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data.
    y : array-like of shape (n_samples,)
        The class labels.
    scale : bool, default=True
        Min-max scale every feature to ``[0, 1]`` first (as ReliefF's ``diff`` does), so that
        features with large raw ranges do not dominate the margin vectors and their distances.
        Han (2012) does not say; microarray intensities span orders of magnitude, and the
        margin vector is meant as a per-feature relevance profile, which scaling makes
        comparable across features. ``False`` uses the raw values.
    metric : str or callable, default="euclidean"
        Distance between margin vectors in eq. 4.6: a callable or one of the real-valued
        :func:`scipy.spatial.distance.pdist` metrics in :data:`MARGIN_METRICS`. Han (2012) leaves it
        open; Euclidean is the usual reading and penalises a margin vector that deviates strongly on
        a few features.
    n_iter : int, default=1
        Maximum number of weighting rounds. 1 is the one-shot Algorithm 1 used in Han's
        experiments. ``n_iter > 1`` is the iterative variant of sec. 4.4: round ``t`` recomputes
        the margin vectors with every hit and miss weighted by the instance weights of round
        ``t - 1`` (eq. 4.7, ``W(M_l)``, ``W(H_l)`` used as they are, summing to 1 over all
        instances) and stops early when ``max_i |w_i^(t) - w_i^(t-1)| <= tol``.
    tol : float, default=1e-8
        Convergence tolerance of the iterative variant.
    neighbor_weighting : {"none", "distance"}, default="none"
        ``"none"``: every hit and miss counts once (eq. 4.2, what Han's experiments
        use). ``"distance"``: the first round's margin vectors weight each miss and each hit
        by its normalised inverse distance to the instance (eqs. 4.3-4.5,
        :func:`distance_weighted_margin_vectors`). Later rounds of the iterative variant use
        the previous round's instance weights in their place (eq. 4.7, as sec. 4.4 says).
    neighbor_metric : str or callable, default="cityblock"
        Instance distance of eqs. 4.4-4.5 (Han 2012 does not name it; Manhattan is the
        distance of ReliefF's ``diff``), on the scaled features when ``scale``.
    return_n_iter : bool, default=False
        Also return the number of rounds run.

    Returns
    -------
    weights : ndarray of shape (n_samples,)
        Positive, summing to 1.
    n_iter : int
        Only when ``return_n_iter``.

    See Also
    --------
    stablefs.stabilizers.MarginInstanceWeighting : A selector fitted with these weights.

    Notes
    -----
    - Multi-class: the misses of ``x`` are all samples of every other class.
    - Duplicates: identical margin vectors have distance 0, which enters the mean like any
      other distance, so duplicated samples get finite weights. If every margin vector is the
      same (all mean distances numerically 0), every instance gets ``1/n``; a zero mean
      distance next to positive ones (possible only for a non-metric ``metric``) is raised to
      ``1e-12`` of the largest so the weights stay finite.
    - Cost: O(n log n p) for the margin vectors (sorting and prefix sums per feature), O(n^2 p)
      for distance-weighted ones and for the margin-space distances; memory: the scaled copy
      of ``X`` (only when ``scale``), the margin vectors and O(n^2) (about 2x ``X`` at peak).

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, ch. 4: Algorithm 1,
       eqs. 4.2–4.7; ch. 3 (why weighting reduces the variance of feature weights).

    Examples
    --------
    The last instance is labelled 0 but lies among the instances of class 1: it gets the
    lowest weight.

    >>> import numpy as np
    >>> from stablefs.stabilizers import margin_instance_weights
    >>> X = np.array([[0.0, 0.1], [0.2, 0.0], [0.1, 0.2], [1.0, 0.9], [0.9, 1.0], [1.1, 0.8],
    ...               [0.95, 0.9]])
    >>> y = np.array([0, 0, 0, 1, 1, 1, 0])
    >>> w = margin_instance_weights(X, y)
    >>> w.round(3).tolist()
    [0.178, 0.168, 0.166, 0.151, 0.144, 0.144, 0.049]
    >>> round(float(w.sum()), 6)
    1.0
    """
    X = check_array(X, dtype=np.float64, ensure_min_samples=2)
    y = np.asarray(y)
    check_consistent_length(X, y)
    check_classification_targets(y)
    check_classes(y)
    if isinstance(n_iter, bool) or not isinstance(n_iter, numbers.Integral) or n_iter < 1:
        raise StablefsError(f"n_iter = {plain(n_iter)}: it must be a whole number >= 1.")
    if isinstance(tol, bool) or not (isinstance(tol, numbers.Real) and tol >= 0):
        raise StablefsError(f"tol = {plain(tol)}: it must be a number >= 0.")
    if not (callable(metric) or metric in MARGIN_METRICS):
        raise StablefsError(
            f"metric = {plain(metric)}: give a callable or one of "
            f"{', '.join(sorted(MARGIN_METRICS))}."
        )
    if not (callable(neighbor_metric) or neighbor_metric in MARGIN_METRICS):
        raise StablefsError(
            f"neighbor_metric = {plain(neighbor_metric)}: give a callable or one of "
            f"{', '.join(sorted(MARGIN_METRICS))}."
        )
    if neighbor_weighting not in NEIGHBOR_WEIGHTINGS:
        raise StablefsError(
            f"neighbor_weighting = {plain(neighbor_weighting)}: use 'none' (eq. 4.2) or "
            "'distance' (eqs. 4.3-4.5)."
        )
    Xs = minmax_scale(X) if scale else X
    span = float(np.max(np.ptp(Xs, axis=0))) if Xs.size else 0.0
    data_scale = Xs.shape[0] * span * np.sqrt(Xs.shape[1])
    if neighbor_weighting == "distance":
        first = distance_weighted_margin_vectors(Xs, y, neighbor_metric)
    else:
        first = margin_vectors(Xs, y)
    weights = _weights_from_margins(first, metric, data_scale)
    del first
    done = 1
    while done < n_iter:
        new = _weights_from_margins(margin_vectors(Xs, y, weights), metric, data_scale)
        done += 1
        change = float(np.max(np.abs(new - weights)))
        weights = new
        if change <= tol:
            break
    return (weights, done) if return_n_iter else weights
