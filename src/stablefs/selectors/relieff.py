"""ReliefF, deterministic (every instance used) and instance-weighted, vectorised.

Han 2012, eq. 5.1 (two classes) and eq. 5.3 (instance-weighted); Kononenko's multi-class update with
class priors (Kononenko 1994; Prat Masramon 2016, sec. 2.2.2). The cost is O(n^2 p) for the
distances plus O(n K C p) for the scores, both in compiled kernels
(:mod:`stablefs.selectors._relief_kernels`) with no Python loop over features, on the free
cores, and no temporary larger than a feature block beside the distance matrix (the min-max
scaling is applied on the fly).
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np
from sklearn.utils import check_random_state

from stablefs._errors import StablefsError
from stablefs.selectors._base import BaseSelector
from stablefs.selectors._constraints import StrOptions, number, plain, whole
from stablefs.selectors._neighbors import (
    minmax_range,
    nearest_in_class,
    pairwise_distances,
    positive_weight_subset,
    weighted_pair_abs_diff,
)

if TYPE_CHECKING:
    from typing import Literal

    from stablefs._validation import RandomStateLike

_NEIGHBOR_WEIGHTS = ("instance", "uniform", "distance")

#: Weka's default influence of the neighbours' rank with ``neighbor_weights="distance"``
RANK_SIGMA = 2.0


def relieff_scores(
    X: np.ndarray,
    y: np.ndarray,
    sample_weight: np.ndarray | None = None,
    *,
    n_neighbors: int = 10,
    neighbor_weights: Literal["instance", "uniform", "distance"] = "instance",
    sigma: float = RANK_SIGMA,
    n_samples: int | None = None,
    random_state: RandomStateLike = None,
) -> np.ndarray:
    """Compute ReliefF feature weights, instance-weighted (Han 2012, eqs. 5.1 and 5.3).

    For every instance ``x_i`` (or ``n_samples`` random ones), with ``diff_j(a, b) = |x_aj - x_bj| /
    (max_j - min_j)``::

        W_j = sum_i w_i [ sum_{C != y_i} P(C) / (1 - P(y_i))
                                * sum_{l=1..K_iC} v_il^{M(C)} diff_j(i, M_l(C))
                          - sum_{l=1..K_ih} v_il^H diff_j(i, H_l) ]

    With two classes the prior factor is 1 and this is eq. 5.3; with equal weights
    ``w_i = 1/n`` and ``v = 1/K`` it is eq. 5.1, ``(1/(nK)) sum_i sum_l (diff(M_l) - diff(H_l))``.
    It is eq. 5.1 with Weka's range-normalised ``diff`` (Han 2012 used Weka's ReliefF): the
    literal equation of Han 2012 uses raw differences ``|x_aj - x_bj|``, which weigh every
    feature by its range and rank the features differently.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data.
    y : ndarray of shape (n_samples,)
        The class labels.
    sample_weight : ndarray of shape (n_samples,), optional
        Instance weights ``w_i`` of eq. 5.3 (normalised to sum 1 here). ``None``: ``1/n`` each.
        A sample of weight 0 is treated as absent: it is neither an instance nor a neighbour.
    n_neighbors : int, default=10
        ``K``, the number of nearest hits and of nearest misses *from each other class*.
        When a class has fewer candidates, all of them are used:
        ``K_ih = min(K, n_{y_i} - 1)`` hits and ``K_iC = min(K, n_C)`` misses from class ``C``,
        each set weighted to sum 1 (so ``1/K_i`` instead of ``1/K``, as in Weka and skrebate).
    neighbor_weights : {"instance", "uniform", "distance"}, default="instance"
        The per-neighbour weights ``w^{M_l}``, ``w^{H_l}`` of eq. 5.3. Han (2012) calls them "the
        weight of ... its l-th closest Miss/Hit" and says eq. 5.3 reduces to eq. 5.1 when
        instances weigh ``1/n`` and neighbours ``1/K``. The reading that satisfies both is
        ``"instance"``: a neighbour weighs its own instance weight, normalised over the
        ``K`` neighbours of that kind (``v_l = w_{M_l} / sum_l' w_{M_l'}``), so down-weighted
        (outlying) instances also count less as neighbours. ``"uniform"``: ``v = 1/K``
        whatever the neighbours' weights; instance weights only scale each instance's own
        contribution. ``"distance"``: the ``l``-th nearest neighbour of a kind weighs
        ``exp(-(l / sigma)^2)``, normalised over the ``K`` (Robnik-Sikonja and Kononenko 2003;
        Weka's "weight nearest neighbours by their distance"); instance weights then only
        scale each instance's own contribution, as with ``"uniform"``.
    sigma : float, default=2.0
        Influence of the neighbours' rank with ``neighbor_weights="distance"`` (Weka's
        default).
    n_samples : int or None, default=None
        ``m`` (Kononenko's ReliefF): ``None`` uses every instance; an int draws ``m``
        instances uniformly with replacement, and instance ``i`` drawn ``c_i`` times counts
        ``c_i n / m`` times its weight (so equal weights give ``(1/(mK)) sum_t ...``).
    random_state : int, RandomState or None
        Seeds the draw of ``n_samples`` instances.

    Returns
    -------
    ndarray of shape (n_features,)
        The weights ``W_j``, in ``[-1, 1]``; higher = more relevant.

    See Also
    --------
    ReliefF : The selector built on these weights.

    Notes
    -----
    - Scaling: features are min-max scaled on the fitted (positive-weight) data, so ``diff``
      lies in ``[0, 1]``; a constant feature has ``diff = 0`` and scores 0.
    - Distance: Manhattan on the scaled features (``sum_j diff_j``, Prat Masramon 2016,
      eq. 2.18).
    - Neighbours: an instance is never its own neighbour; its duplicates (distance 0) are
      legitimate neighbours. Equal distances are broken by the lower sample index.
    - Priors: ``P(C)`` is the weighted class frequency ``sum_{i in C} w_i`` (the class
      frequency for equal weights); two classes give a factor of 1.
    - Scale: the scores are the full sums of eq. 5.1 / 5.3, in ``[-1, 1]``.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 5.2, eqs. 5.1 and 5.3.
    .. [2] I. Kononenko, "Estimating attributes: analysis and extensions of RELIEF", Proc.
       European Conf. on Machine Learning (ECML), LNCS 784, 171–182, 1994 (ReliefF, K
       neighbours and the multi-class rule).
    .. [3] M. Robnik-Šikonja and I. Kononenko, "Theoretical and empirical analysis of ReliefF
       and RReliefF", Machine Learning 53, 23–69, 2003 (neighbours weighted by rank).
    .. [4] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.2, eqs. 2.18 and 2.20
       (the distance and ``diff``).

    Examples
    --------
    Feature 2 separates the classes; the others are noise:

    >>> import numpy as np
    >>> from stablefs.selectors import relieff_scores
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 10)
    >>> X = rng.normal(size=(20, 4))
    >>> X[:, 2] += 3 * y
    >>> relieff_scores(X, y, n_neighbors=3).round(3).tolist()
    [-0.003, -0.005, 0.345, -0.033]

    Down-weighting an instance reduces its say (eq. 5.3):

    >>> w = np.ones(20)
    >>> w[0] = 0.1
    >>> relieff_scores(X, y, sample_weight=w, n_neighbors=3).round(3).tolist()
    [0.008, -0.016, 0.365, -0.04]
    """
    k = n_neighbors
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise StablefsError(f"n_neighbors = {plain(k)}: it must be a whole number >= 1.")
    if neighbor_weights not in _NEIGHBOR_WEIGHTS:
        raise StablefsError(
            f"neighbor_weights = {plain(neighbor_weights)}: use 'instance', 'uniform' or "
            "'distance'."
        )
    n_neighbors = int(k)
    if isinstance(sigma, bool) or not (isinstance(sigma, numbers.Real) and sigma > 0):
        raise StablefsError(f"sigma = {plain(sigma)}: it must be a number > 0.")
    if n_samples is not None and (isinstance(n_samples, bool) or not isinstance(
            n_samples, numbers.Integral) or n_samples < 1):
        raise StablefsError(f"n_samples = {plain(n_samples)}: it must be a whole number >= 1.")
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    w = np.full(n, 1.0 / n) if sample_weight is None else np.asarray(sample_weight, float)
    Xp, yp, wp, _ = positive_weight_subset(X, np.asarray(y), w)
    scale = minmax_range(Xp)  # diff_j on the fly: no scaled copy of X
    D = pairwise_distances(Xp, "cityblock", scale=scale)
    inst, nbrs, coefs = _relieff_pairs(D, yp, wp, n_neighbors, neighbor_weights, sigma)
    del D
    if n_samples is not None:
        kept = yp.size
        drawn = check_random_state(random_state).randint(kept, size=int(n_samples))
        coefs = coefs * (np.bincount(drawn, minlength=kept) * (kept / n_samples))[inst]
    if inst.size == 0:
        return np.zeros(X.shape[1])
    return weighted_pair_abs_diff(Xp, inst, nbrs, coefs, scale=scale)


def _relieff_pairs(D: np.ndarray, y: np.ndarray, w: np.ndarray, n_neighbors: int,
                   neighbor_weights: str, sigma: float = RANK_SIGMA,
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (instance, neighbour, coefficient) triples of :func:`relieff_scores`: the score of
    feature j is ``sum_t coef_t diff_j(inst_t, nbr_t)``. ``D`` is the distance matrix of the
    (positive-weight) samples; its diagonal is overwritten with ``inf``."""
    _, codes = np.unique(y, return_inverse=True)
    n_classes = int(codes.max()) + 1
    np.fill_diagonal(D, np.inf)
    priors = np.bincount(codes, weights=w, minlength=n_classes)
    rows_of = [np.flatnonzero(codes == c) for c in range(n_classes)]
    inst, nbrs, coefs = [], [], []
    for c in range(n_classes):  # neighbour class
        members = rows_of[c]
        for a in range(n_classes):  # instance class
            rows = rows_of[a]
            k = min(n_neighbors, members.size - (a == c))
            if k <= 0:
                continue
            nb = nearest_in_class(D, rows, members, k)
            if neighbor_weights == "uniform":
                v = np.full(nb.shape, 1.0 / k)
            elif neighbor_weights == "distance":
                v = np.exp(-((np.arange(1, k + 1) / sigma) ** 2))
                v = np.broadcast_to(v / v.sum(), nb.shape)
            else:
                v = w[nb]
                v = v / v.sum(axis=1, keepdims=True)
            factor = -1.0 if a == c else priors[c] / (1.0 - priors[a])
            inst.append(np.repeat(rows, k))
            nbrs.append(nb.ravel())
            coefs.append((factor * w[rows][:, None] * v).ravel())
    if not inst:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, np.empty(0)
    return np.concatenate(inst), np.concatenate(nbrs), np.concatenate(coefs)


def relieff_scores_resamples(
    X: np.ndarray,
    y: np.ndarray,
    resamples,
    sample_weight: np.ndarray | None = None,
    *,
    n_neighbors: int = 10,
    neighbor_weights: str = "instance",
) -> np.ndarray:
    """ReliefF scores of many resamples of one data set at once (the members of an ensemble).

    Row ``r`` equals ``relieff_scores(X[idx], y[idx], sample_weight[idx])`` for
    ``idx = resamples[r]`` (a resample may repeat samples, as a bootstrap does) up to
    round-off (about 1e-15 relative; the tests check it), with the same neighbours: every
    member keeps its own min-max scaling (Han 2012, sec. 5.2.3, members are plain ReliefF on
    their bootstrap samples). What members share:

    - distances are computed on a member's *distinct* samples only (a bootstrap holds about
      63 % of them) and expanded to its repeated ones, which gives the member's own distance
      matrix exactly (the same rows, the same kernel);
    - a member's (instance, neighbour) pairs are merged onto distinct sample pairs (the copies
      of a sample have the same neighbours and the same differences), and the pairs of all
      members are visited once: the compiled kernel forms ``|X_a - X_b|`` of a pair for a
      block of features and adds it to every member that holds the pair
      (:func:`~stablefs.selectors._relief_kernels.member_pair_abs_diff_sums`); each member's
      sums are then divided by its own feature ranges.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    resamples : sequence of int arrays
        Sample indices of each member, sorted (repeats allowed).
    sample_weight : ndarray of shape (n_samples,), optional
        Instance weights; each member uses its own, renormalised. Members must not draw
        zero-weight samples.
    n_neighbors, neighbor_weights
        As in :func:`relieff_scores`.

    Returns
    -------
    ndarray of shape (len(resamples), n_features)
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    p = X.shape[1]
    pair_a, pair_b, member_of, coef_of, spans = [], [], [], [], []
    for r, idx in enumerate(resamples):
        idx = np.asarray(idx)
        distinct, pos = np.unique(idx, return_inverse=True)
        Xd = X[distinct]
        lo, span = minmax_range(Xd)
        spans.append(span)
        D = pairwise_distances(Xd, "cityblock", scale=(lo, span))[np.ix_(pos, pos)]
        if sample_weight is None:
            w = np.full(idx.size, 1.0 / idx.size)
        else:
            w = np.asarray(sample_weight, dtype=float)[idx]
            if np.any(w <= 0):
                raise StablefsError("relieff_scores_resamples: a resample draws a sample of "
                                    "weight 0; draw from the positive-weight samples only.")
            w = w / w.sum()
        inst, nbrs, coefs = _relieff_pairs(D, y[idx], w, int(n_neighbors), neighbor_weights)
        a, b = distinct[pos[inst]], distinct[pos[nbrs]]
        lo_ab, hi_ab = np.minimum(a, b), np.maximum(a, b)  # |x_a - x_b| is symmetric
        keep = lo_ab != hi_ab  # copies of one sample differ by 0
        pair_a.append(lo_ab[keep])
        pair_b.append(hi_ab[keep])
        coef_of.append(coefs[keep])
        member_of.append(np.full(int(keep.sum()), r))
    m = len(spans)
    if m == 0:
        return np.empty((0, p))
    a = np.concatenate(pair_a)
    b = np.concatenate(pair_b)
    key = a.astype(np.int64) * X.shape[0] + b
    unique_keys, which = np.unique(key, return_inverse=True)
    C = np.zeros((m, unique_keys.size))
    np.add.at(C, (np.concatenate(member_of), which), np.concatenate(coef_of))
    ua, ub = unique_keys // X.shape[0], unique_keys % X.shape[0]
    from stablefs.selectors._relief_kernels import member_pair_abs_diff_sums

    pair, member = np.nonzero(C.T)  # by pair, members ascending: the kernel's sparse rows
    starts = np.searchsorted(pair, np.arange(unique_keys.size + 1))
    scores = member_pair_abs_diff_sums(X, ua, ub, starts, member, C[member, pair], m)
    scores /= np.vstack(spans)
    return scores


class ReliefF(BaseSelector):
    """ReliefF feature weighting, all instances (or ``n_samples``), instance-weight aware.

    The baseline margin-based selector of Han (2012, sec. 5.2.1, eq. 5.1; Weka's ReliefF with
    ``K = 10``) and its instance-weighted form (sec. 5.2.2, eq. 5.3), with Kononenko's multi-class
    rule (``K`` misses from each other class weighted by ``P(C) / (1 - P(class))``, Kononenko 1994;
    Prat Masramon 2016, sec. 2.2.2). See :func:`relieff_scores` for the formula and every convention
    (scaling, distance, ties, ``K`` larger than a class, neighbour weights).

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Size of ``support_`` (``None``: half of the features; a float: a fraction).
    n_neighbors : int, default=10
        ``K`` nearest hits and ``K`` nearest misses from each other class.
    neighbor_weights : {"instance", "uniform", "distance"}, default="instance"
        How neighbours are weighted in eq. 5.3 (see :func:`relieff_scores`). ``"instance"``
        and ``"uniform"`` equal eq. 5.1 when every sample has the same weight; ``"distance"``
        weighs the ``l``-th nearest by ``exp(-(l / sigma)^2)`` (Robnik-Sikonja and Kononenko
        2003).
    sigma : float, default=2.0
        Rank influence for ``neighbor_weights="distance"``.
    n_samples : int or None, default=None
        ``m`` instances drawn uniformly with replacement; ``None`` uses every instance.
    random_state : int, RandomState or None, default=None
        Seeds the draw of ``n_samples`` instances.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ReliefF weights in ``[-1, 1]``; higher = more relevant.
    ranking_ : ndarray of shape (n_features,)
        1 = best; ties by lower feature index.
    support_ : ndarray of bool of shape (n_features,)
        The top ``n_features_to_select_`` features.
    n_features_to_select_ : int
        The size of ``support_``.
    classes_ : ndarray
        The class labels seen by ``fit``.
    n_features_in_ : int
        Number of features seen by ``fit``.

    See Also
    --------
    relieff_scores : The weights, with every convention.
    stablefs.stabilizers.MarginInstanceWeighting : Instance weighting for a stabler ReliefF.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 5.2, eqs. 5.1 and 5.3.
    .. [2] I. Kononenko, "Estimating attributes: analysis and extensions of RELIEF", Proc.
       European Conf. on Machine Learning (ECML), LNCS 784, 171–182, 1994 (ReliefF, K
       neighbours and the multi-class rule).
    .. [3] M. Robnik-Šikonja and I. Kononenko, "Theoretical and empirical analysis of ReliefF
       and RReliefF", Machine Learning 53, 23–69, 2003 (neighbours weighted by rank).
    .. [4] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.2, eqs. 2.18 and 2.20
       (the distance and ``diff``).

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.selectors import ReliefF
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20)
    >>> X = rng.normal(size=(40, 5)); X[:, 2] += 3 * y
    >>> int(ReliefF(n_features_to_select=1).fit(X, y).ranking_.argmin())
    2

    On Han's synthetic data, whose first 10 features are the relevant ones:

    >>> from stablefs.datasets import make_han2012
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> selector = ReliefF(n_features_to_select=5).fit(data.X, data.y)
    >>> print(*selector.get_support(indices=True))
    1 6 7 8 9
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "n_neighbors": [whole(1, None)],
        "neighbor_weights": [StrOptions(set(_NEIGHBOR_WEIGHTS))],
        "sigma": [number(0, None, closed="neither")],
        "n_samples": [None, whole(1, None)],
        "random_state": ["random_state"],
    }

    def __init__(self, n_features_to_select: int | float | None = None, n_neighbors: int = 10,
                 neighbor_weights: Literal["instance", "uniform", "distance"] = "instance",
                 sigma: float = RANK_SIGMA, n_samples: int | None = None,
                 random_state: RandomStateLike = None) -> None:
        self.n_features_to_select = n_features_to_select
        self.n_neighbors = n_neighbors
        self.neighbor_weights = neighbor_weights
        self.sigma = sigma
        self.n_samples = n_samples
        self.random_state = random_state

    def _score(self, X, y, sample_weight):
        return relieff_scores(
            X, y, sample_weight, n_neighbors=self.n_neighbors,
            neighbor_weights=self.neighbor_weights, sigma=self.sigma,
            n_samples=self.n_samples, random_state=self.random_state,
        )

    @property
    def _score_resamples(self):
        """:meth:`_score_resamples_together`, or ``None`` (members fitted one by one, each
        with its own seed) when a random draw of instances or rank weights is asked for."""
        if self.n_samples is not None or self.neighbor_weights == "distance":
            return None
        return self._score_resamples_together

    def _score_resamples_together(self, X, y, resamples, sample_weight=None) -> np.ndarray:
        """The scores of this ReliefF fitted on each resample (rows), computed together
        (:func:`relieff_scores_resamples`); :class:`~stablefs.stabilizers.Ensemble` uses it.
        A subclass that changes :meth:`_score` must set ``_score_resamples = None``."""
        self._validate_params()
        return relieff_scores_resamples(
            X, y, resamples, sample_weight, n_neighbors=self.n_neighbors,
            neighbor_weights=self.neighbor_weights,
        )
