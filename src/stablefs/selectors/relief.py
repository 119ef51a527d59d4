"""Relief (Kira and Rendell 1992) and the weighted-distance ReliefF variants dReliefF and
pdReliefF (Prat Masramon 2016, ch. 5, eqs. 5.13-5.17).

Every variant uses Relief's numeric ``diff`` (``|x_aj - x_bj| / (max_j - min_j)``, Prat Masramon
2016, eq. 2.20) and the Manhattan distance on it (eq. 2.18); features are min-max scaled on the
fitted data, so a constant feature has ``diff = 0`` everywhere and scores 0.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np
from sklearn.utils import check_random_state

from stablefs._errors import StablefsError
from stablefs.selectors._base import BaseSelector
from stablefs.selectors._constraints import number, plain, whole
from stablefs.selectors._neighbors import (
    minmax_scale,
    pairwise_distances,
    positive_weight_subset,
    weighted_pair_abs_diff,
)

if TYPE_CHECKING:
    from stablefs._validation import RandomStateLike

#: pdReliefF's defaults (Prat Masramon 2016, sec. 5.3.1): they make the area ratio of eq. 5.17 1/3
PD_A = 2.0
PD_S = 0.0633657


def nearest_hit_and_miss(D: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest hit and nearest miss of every instance under the distances ``D``.

    Parameters
    ----------
    D : ndarray of shape (n, n)
        Distances; the diagonal is ignored (an instance is never its own neighbour, its
        duplicates at distance 0 are).
    codes : ndarray of int of shape (n,)
        Class codes. The miss is the nearest instance of *any* other class (RELIEF-E).

    Returns
    -------
    hit, miss : ndarray of int of shape (n,)
        Sample indices; ``hit`` is ``-1`` for the sole member of a class (it has no hit).
        Equal distances are broken by the lower sample index.
    """
    n = D.shape[0]
    same = codes[:, None] == codes[None, :]
    np.fill_diagonal(same, False)
    own = np.eye(n, dtype=bool)
    hit = np.argmin(np.where(same, D, np.inf), axis=1)
    miss = np.argmin(np.where(same | own, np.inf, D), axis=1)
    hit[~same.any(axis=1)] = -1
    return hit, miss


def _check_n_samples(n_samples) -> int | None:
    if n_samples is None:
        return None
    if isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral) or n_samples < 1:
        raise StablefsError(f"n_samples = {plain(n_samples)}: it must be a whole number >= 1.")
    return int(n_samples)


def _instances(n: int, n_samples: int | None, rng, *, shuffle: bool) -> np.ndarray:
    """The instances an iterative Relief visits: all ``n`` (in data order, or a random
    permutation when ``shuffle``) or ``n_samples`` drawn uniformly with replacement."""
    if n_samples is None:
        return rng.permutation(n) if shuffle else np.arange(n)
    return rng.randint(n, size=n_samples)


def relief_scores(
    X: np.ndarray,
    y: np.ndarray,
    sample_weight: np.ndarray | None = None,
    *,
    n_samples: int | None = None,
    random_state: RandomStateLike = None,
) -> np.ndarray:
    """Compute Relief feature weights (Kira and Rendell 1992; Prat Masramon 2016, Alg. 2.3).

    ``W_j = (1/m) sum_{t=1..m} n w_{R_t} [diff_j(R_t, M(R_t)) - diff_j(R_t, H(R_t))]`` with
    ``H`` the nearest hit and ``M`` the nearest miss (of any other class, RELIEF-E) under the
    Manhattan distance on range-normalised features. With equal weights ``n w = 1`` and this
    is Alg. 2.3 literally; instance weights make it the one-neighbour form of Han 2012
    eq. 5.3.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data.
    y : ndarray of shape (n_samples,)
        The class labels.
    sample_weight : ndarray of shape (n_samples,), optional
        Instance weights (normalised to sum 1); a zero weight removes the sample.
    n_samples : int or None, default=None
        ``m``. ``None``: every instance once (deterministic "Relieved"); an int: ``m``
        instances drawn uniformly with replacement, as Alg. 2.3's "random instance".
    random_state : int, RandomState or None
        Seeds the draw (only used when ``n_samples`` is set).

    Returns
    -------
    ndarray of shape (n_features,)
        The weights ``W_j``, in ``[-1, 1]`` for equal weights; they estimate the difference
        of probabilities of eq. 2.21 (a different value at the nearest miss, at the nearest
        hit).

    See Also
    --------
    Relief : The selector built on these weights.
    relieff_scores : ReliefF, with ``K`` neighbours of each kind.

    Notes
    -----
    The sole member of a class has no hit: its hit term is 0. Ties in distance go to the lower
    sample index.

    References
    ----------
    .. [1] K. Kira and L. A. Rendell, "A practical approach to feature selection", Proc. 9th
       Int. Workshop on Machine Learning (ML92), 249–256, 1992.
    .. [2] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.2.1, Alg. 2.3 and
       eqs. 2.18–2.21.
    .. [3] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, eq. 5.3 (instance
       weights).

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.selectors import relief_scores
    >>> X = np.array([[0.0, 1.0], [0.1, 0.0], [0.9, 1.0], [1.0, 0.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> relief_scores(X, y).round(3).tolist()
    [0.8, -1.0]
    """
    m = _check_n_samples(n_samples)
    X = np.asarray(X, dtype=np.float64)
    w = np.full(X.shape[0], 1.0 / X.shape[0]) if sample_weight is None else sample_weight
    Xp, yp, wp, _ = positive_weight_subset(X, np.asarray(y), np.asarray(w, dtype=float))
    _, codes = np.unique(yp, return_inverse=True)
    Xs = minmax_scale(Xp)
    hit, miss = nearest_hit_and_miss(pairwise_distances(Xs, "cityblock"), codes)
    n = Xs.shape[0]
    inst = _instances(n, m, check_random_state(random_state), shuffle=False)
    coef = wp[inst] if m is None else n * wp[inst] / m
    has_hit = hit[inst] >= 0
    a = np.concatenate([inst, inst[has_hit]])
    b = np.concatenate([miss[inst], hit[inst[has_hit]]])
    c = np.concatenate([coef, -coef[has_hit]])
    return weighted_pair_abs_diff(Xs, a, b, c)


def distance_weighted_relieff_scores(
    X: np.ndarray,
    y: np.ndarray,
    sample_weight: np.ndarray | None = None,
    *,
    schedule: str = "progressive",
    n_neighbors: int = 10,
    n_samples: int | None = None,
    a: float = PD_A,
    s: float = PD_S,
    random_state=None,
) -> np.ndarray:
    """ReliefF whose neighbour search weighs features by the weights found so far (Prat
    Masramon 2016, sec. 5.3: dReliefF eq. 5.13, pdReliefF eqs. 5.14-5.16).

    The instances ``R_1..R_m`` are visited in turn. Before instance ``t`` the running
    estimate is ``Wbar_{t-1} = (1/(t-1)) sum_{tau < t} c_tau`` (on the scale of the final
    weights; 0 before the first instance), and the neighbours of ``R_t`` are the nearest under

        ``delta(x1, x2) = sum_j f_j diff_j(x1, x2)``

    with ``f_j = max(Wbar_j, 0)`` (``"weights"``: dReliefF, eq. 5.13),
    ``f_j = (max(Wbar_j, 0) - 1) c / (c + s) + 1`` with ``c = ((t - 1)/m)^a``
    (``"progressive"``: pdReliefF, eqs. 5.14-5.16), or ``f_j = 1`` (``"constant"``: ReliefF).
    Instance ``t`` contributes Kononenko's ReliefF term (Prat Masramon 2016, sec. 2.2.2)

        ``c_t = n w_t [ sum_{C != y_t} P(C)/(1 - P(y_t)) (1/K) sum_l diff(R_t, M_l(C))
                        - (1/K) sum_l diff(R_t, H_l) ]``

    and the result is ``W = (1/m) sum_t c_t``.

    Parameters
    ----------
    X, y, sample_weight
        As :func:`relief_scores`; ``P(C)`` is the weighted class frequency.
    schedule : {"progressive", "weights", "constant"}
    n_neighbors : int, default=10
        ``K`` hits and ``K`` misses per other class (fewer when a class has fewer; each set
        then weighs ``1/K_i``, as in :func:`~stablefs.selectors.relieff_scores`).
    n_samples : int or None
        ``m``. ``None``: every instance once in a random order (the order matters here);
        an int: ``m`` instances drawn uniformly with replacement.
    a, s : float
        pdReliefF's ``c(t) = (t/m)^a`` and ``f``'s offset (defaults 2 and 0.0633657).
    random_state : int, RandomState or None

    Returns
    -------
    ndarray of shape (n_features,)
        The weights ``W``.

    Notes
    -----
    The thesis leaves three things open; our readings:

    - ``W(A)_t`` is the running *mean* of the contributions, so that it is on the scale of the
      final weights when ``f`` approaches ``w`` (a raw running sum would be at most ``t/m``).
    - Negative weights are clipped at 0 in the distance: a negative weight would make a
      difference *shorten* the distance, which is no metric.
    - When every ``f_j`` is 0 (dReliefF before the first instance, or when no weight is
      positive yet) the unweighted distance is used, so the first instance is ReliefF's.
      pdReliefF has ``f = 1`` there by construction (``c(0) = 0``).

    Cost O(m n p) time; the distances are computed over cache-sized row blocks, so the extra
    memory is O(n + K C p).
    """
    if schedule not in ("progressive", "weights", "constant"):
        raise StablefsError(
            f"schedule = {plain(schedule)}: use 'progressive', 'weights' or 'constant'."
        )
    if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, numbers.Integral) \
            or n_neighbors < 1:
        raise StablefsError(f"n_neighbors = {plain(n_neighbors)}: it must be a whole number >= 1.")
    m_draw = _check_n_samples(n_samples)
    X = np.asarray(X, dtype=np.float64)
    w = np.full(X.shape[0], 1.0 / X.shape[0]) if sample_weight is None else sample_weight
    Xp, yp, wp, _ = positive_weight_subset(X, np.asarray(y), np.asarray(w, dtype=float))
    _, codes = np.unique(yp, return_inverse=True)
    n_classes = int(codes.max()) + 1
    Xs = minmax_scale(Xp)
    n, p = Xs.shape
    priors = np.bincount(codes, weights=wp, minlength=n_classes)
    members = [np.flatnonzero(codes == c) for c in range(n_classes)]
    order = _instances(n, m_draw, check_random_state(random_state), shuffle=True)
    m = order.size
    total = np.zeros(p)
    dist = np.empty(n)
    ones = np.ones(p)
    from stablefs.selectors._relief_kernels import weighted_distances_to  # Numba, on first use

    for t, i in enumerate(order):
        if schedule == "constant" or t == 0:
            f = ones
        else:
            wbar = np.maximum(total / t, 0.0)
            if schedule == "weights":
                f = wbar if wbar.any() else ones
            else:
                ct = (t / m) ** a
                f = (wbar - 1.0) * (ct / (ct + s)) + 1.0
        xi = Xs[i]
        weighted_distances_to(Xs, i, f, dist)  # one fused pass (compiled)
        dist[i] = np.inf
        ci = codes[i]
        nbrs, coefs = [], []
        for c in range(n_classes):
            cand = members[c] if c != ci else members[c][members[c] != i]
            if cand.size == 0:
                continue
            k = min(n_neighbors, cand.size)
            nb = cand[np.argsort(dist[cand], kind="stable")[:k]]
            factor = -1.0 if c == ci else priors[c] / (1.0 - priors[ci])
            nbrs.append(nb)
            coefs.append(np.full(k, factor / k))
        nb = np.concatenate(nbrs)
        total += (n * wp[i]) * (np.concatenate(coefs) @ np.abs(Xs[nb] - xi))
    return total / m


class Relief(BaseSelector):
    """Relief feature weighting: one nearest hit and one nearest miss per instance.

    Kira and Rendell (1992); Prat Masramon (2016), Alg. 2.3. See :func:`relief_scores` for the
    formula and conventions.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Size of ``support_`` (``None``: half of the features; a float: a fraction).
    n_samples : int or None, default=None
        ``m`` random instances (with replacement); ``None`` uses every instance once.
    random_state : int, RandomState or None, default=None
        Seeds the draw of ``n_samples`` instances.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Relief weights; higher = more relevant.
    ranking_, support_, n_features_to_select_, classes_, n_features_in_
        As in :class:`stablefs.selectors.ReliefF`.

    See Also
    --------
    relief_scores : The weights.
    ReliefF : ``K`` neighbours of each kind, instance weights.

    References
    ----------
    .. [1] K. Kira and L. A. Rendell, "A practical approach to feature selection", Proc. 9th
       Int. Workshop on Machine Learning (ML92), 249–256, 1992.
    .. [2] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.2.1, Alg. 2.3.

    Examples
    --------
    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.selectors import Relief
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> selector = Relief(n_features_to_select=5).fit(data.X, data.y)
    >>> print(*selector.get_support(indices=True))
    1 2 4 7 8
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "n_samples": [None, whole(1, None)],
        "random_state": ["random_state"],
    }

    def __init__(self, n_features_to_select: int | float | None = None,
                 n_samples: int | None = None, random_state: RandomStateLike = None) -> None:
        self.n_features_to_select = n_features_to_select
        self.n_samples = n_samples
        self.random_state = random_state

    def _score(self, X, y, sample_weight):
        return relief_scores(X, y, sample_weight, n_samples=self.n_samples,
                             random_state=self.random_state)


class DReliefF(BaseSelector):
    """Double ReliefF (dReliefF): neighbours found under the feature-weighted distance.

    Prat Masramon (2016), sec. 5.3, eq. 5.13: before each instance, the feature weights
    estimated so far weigh the features in the distance that finds its nearest hits and misses.
    See :func:`~stablefs.selectors.relief.distance_weighted_relieff_scores`
    (``schedule="weights"``) for the formula and the readings of what the thesis leaves open.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Size of ``support_`` (``None``: half of the features; a float: a fraction).
    n_neighbors : int, default=10
        ``K`` nearest hits and ``K`` nearest misses from each other class.
    n_samples : int or None, default=None
        ``m``; ``None`` visits every instance once in a random order.
    random_state : int, RandomState or None, default=None
        Seeds the order (or the draw) of the instances.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        The weights after the last instance; higher = more relevant.
    ranking_, support_, n_features_to_select_, classes_, n_features_in_
        As in :class:`stablefs.selectors.ReliefF`.

    See Also
    --------
    PDReliefF : Moves from ReliefF's distance to this one as the iterations proceed.

    References
    ----------
    .. [1] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 5.3, eq. 5.13.
    .. [2] I. Kononenko, "Estimating attributes: analysis and extensions of RELIEF", Proc.
       European Conf. on Machine Learning (ECML), LNCS 784, 171–182, 1994.

    Examples
    --------
    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.selectors import DReliefF
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> selector = DReliefF(n_features_to_select=5, random_state=0).fit(data.X, data.y)
    >>> print(*selector.get_support(indices=True))
    0 1 7 8 9
    """

    _schedule = "weights"

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "n_neighbors": [whole(1, None)],
        "n_samples": [None, whole(1, None)],
        "random_state": ["random_state"],
    }

    def __init__(self, n_features_to_select: int | float | None = None, n_neighbors: int = 10,
                 n_samples: int | None = None, random_state: RandomStateLike = None) -> None:
        self.n_features_to_select = n_features_to_select
        self.n_neighbors = n_neighbors
        self.n_samples = n_samples
        self.random_state = random_state

    def _score(self, X, y, sample_weight):
        return distance_weighted_relieff_scores(
            X, y, sample_weight, schedule=self._schedule, n_neighbors=self.n_neighbors,
            n_samples=self.n_samples, random_state=self.random_state,
            **self._schedule_params(),
        )

    def _schedule_params(self) -> dict:
        return {}


class PDReliefF(DReliefF):
    """Progressively weighted double ReliefF (pdReliefF).

    Prat Masramon (2016), sec. 5.3.1, eqs. 5.14-5.17: the neighbour distance moves from plain
    ReliefF's (``f = 1``) towards the current feature weights as the iterations proceed. See
    :func:`~stablefs.selectors.relief.distance_weighted_relieff_scores`
    (``schedule="progressive"``).

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Size of ``support_`` (``None``: half of the features; a float: a fraction).
    n_neighbors : int, default=10
        ``K`` nearest hits and ``K`` nearest misses from each other class.
    n_samples : int or None, default=None
        ``m``; ``None`` visits every instance once in a random order.
    a : float, default=2
        Exponent of ``c(t) = (t/m)^a`` (eq. 5.16).
    s : float, default=0.0633657
        Offset of ``f(w, t) = (w - 1) c(t) / (c(t) + s) + 1`` (eq. 5.15); with ``a = 2`` it
        makes the area ratio of eq. 5.17 equal 1/3.
    random_state : int, RandomState or None, default=None
        Seeds the order (or the draw) of the instances.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        The weights after the last instance; higher = more relevant.
    ranking_, support_, n_features_to_select_, classes_, n_features_in_
        As in :class:`stablefs.selectors.ReliefF`.

    See Also
    --------
    DReliefF : The weighted distance from the first instance on.

    References
    ----------
    .. [1] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 5.3.1, eqs. 5.14–5.17.

    Examples
    --------
    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.selectors import PDReliefF
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> selector = PDReliefF(n_features_to_select=5, random_state=0).fit(data.X, data.y)
    >>> print(*selector.get_support(indices=True))
    1 6 7 8 9
    """

    _schedule = "progressive"

    _parameter_constraints: dict = {
        **DReliefF._parameter_constraints,
        "a": [number(0, None, closed="neither")],
        "s": [number(0, None, closed="neither")],
    }

    def __init__(self, n_features_to_select: int | float | None = None, n_neighbors: int = 10,
                 n_samples: int | None = None, a: float = PD_A, s: float = PD_S,
                 random_state: RandomStateLike = None) -> None:
        super().__init__(n_features_to_select=n_features_to_select, n_neighbors=n_neighbors,
                         n_samples=n_samples, random_state=random_state)
        self.a = a
        self.s = s

    def _schedule_params(self) -> dict:
        return {"a": self.a, "s": self.s}
