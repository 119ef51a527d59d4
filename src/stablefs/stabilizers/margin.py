"""Margin-based instance weighting (Han 2012, ch. 4, Algorithm 1, eqs. 4.2-4.7).

Every instance is mapped to its *margin vector* (eq. 4.2) -- per feature, the summed distance
to all misses minus the summed distance to all hits, or with every hit and miss weighted by
its normalised inverse distance (eqs. 4.3-4.5, ``neighbor_weighting="distance"``) -- and
weighted by the inverse of its mean
distance to the other margin vectors (eq. 4.6): instances with an outlying local relevance
profile get low weight, which reduces the variance of the feature weights a selector computes
from the weighted data (importance sampling, Han 2012, ch. 3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import has_fit_parameter

from stablefs._errors import StablefsError
from stablefs._validation import rank_from_scores
from stablefs.selectors._base import BaseSelector
from stablefs.selectors._constraints import (
    HasMethods,
    StrOptions,
    n_jobs_constraint,
    number,
    whole,
)
from stablefs.selectors._margin_weights import (  # noqa: F401 - the functions live below
    MARGIN_METRICS,
    NEIGHBOR_WEIGHTINGS,
    _weights_from_margins,  # noqa: F401 - tests
    coefficient_abs_diff,
    distance_weighted_margin_vectors,
    margin_instance_weights,
    margin_vectors,
    neighbor_distance_weights,
)
from stablefs.selectors._neighbors import (
    positive_weight_subset,
)
from stablefs.selectors.svm_rfe import SVMRFE

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Literal

    from sklearn.base import BaseEstimator

    from stablefs._validation import RandomStateLike

#: the readings of eq. 5.2's per-sample penalties for an SVM-RFE inside (Han 2012)
PENALTY_READINGS = ("printed", "mean")


class MarginInstanceWeighting(BaseSelector):
    """Wrap a selector in margin-based instance weighting ("IW", Han 2012, ch. 4, sec. 5.2.2).

    ``fit`` computes :func:`margin_instance_weights` on the training data and fits a clone of
    ``selector`` with ``sample_weight`` = those weights (times the user's ``sample_weight``, if
    any, renormalised). IW-ReliefF (eq. 5.3) and IW-SVM-RFE (eq. 5.2) are this wrapper around
    :class:`~stablefs.selectors.ReliefF` and an SVM-RFE.

    Parameters
    ----------
    selector : estimator
        A selector whose ``fit`` accepts ``sample_weight`` and that exposes ``scores_`` and/or
        ``ranking_`` (any :class:`~stablefs.selectors.BaseSelector`). Refused otherwise.
    scale : bool, default=True
        Min-max scale features before the margin vectors (see :func:`margin_instance_weights`).
    metric : str or callable, default="euclidean"
        Distance in the margin vector space (a name in :data:`MARGIN_METRICS` or a callable).
    n_iter : int, default=1
        1 = one-shot Algorithm 1; more = iterative variant (sec. 4.4, eq. 4.7).
    tol : float, default=1e-8
        Convergence tolerance of the iterative variant.
    neighbor_weighting : {"none", "distance"}, default="none"
        Hits and misses counted equally (eq. 4.2) or by inverse distance (eqs. 4.3-4.5).
    neighbor_metric : str or callable, default="cityblock"
        Instance distance of the distance weighting.
    penalty : {"printed", "mean"}, default="printed"
        How an SVM-RFE inside (:class:`~stablefs.selectors.SVMRFE`) uses the weights as
        per-sample penalties (Han 2012, eq. 5.2). ``"printed"``: the weights as eq. 4.6 prints
        them (summing to 1), every dual variable bounded at ``C w_i`` as Weka's SMO does with
        instance weights, about ``C / n``: the behaviour the thesis reports (IW SVM-RFE far
        more stable than SVM-RFE). ``"mean"``: the weights rescaled to mean 1, bounds
        ``C v_i`` with ``v_i = n w_i``, so that equal weights give plain SVM-RFE exactly (eq.
        5.2's "becomes the original objective"); with n << p the SVM separates the training
        samples below every bound and the weights change nothing at k >= 50. Other selectors
        read only relative weights, so this has no effect on them.
    n_features_to_select : int, float or None, default=None
        Size of ``support_``. ``None`` uses the inner selector's own choice.
    random_state : int, RandomState or None, default=None
        Passed to the inner selector when it has a ``random_state`` (the weighting itself is
        deterministic).
    n_jobs : int or None, default=None
        Passed to the inner selector when it has ``n_jobs``; the result does not depend on it.

    Attributes
    ----------
    instance_weights_ : ndarray of shape (n_samples,)
        The margin-based weights (sum 1; zero for samples the user gave weight 0).
    n_iter_ : int
        Weighting rounds run.
    selector_ : estimator
        The fitted clone of ``selector``.
    scores_, ranking_, support_, n_features_to_select_, classes_
        From ``selector_`` (``support_`` recomputed when ``n_features_to_select`` is set).
    n_features_in_ : int
        Number of features seen by ``fit``.

    See Also
    --------
    margin_instance_weights : The weights.
    LogisticInstanceWeighting : Logistic instance weights (Prat Masramon 2016).

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, ch. 4 (Algorithm 1,
       eqs. 4.2–4.7) and sec. 5.2.2 (IW SVM-RFE, eq. 5.2; IW ReliefF, eq. 5.3).

    Examples
    --------
    IW-ReliefF (the method string ``"iw-relieff"``):

    >>> from stablefs.datasets import make_han2012
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> from stablefs.selectors import ReliefF
    >>> from stablefs.stabilizers import MarginInstanceWeighting
    >>> iw = MarginInstanceWeighting(ReliefF(), n_features_to_select=5).fit(data.X, data.y)
    >>> print(*iw.get_support(indices=True))
    3 6 7 8 9
    >>> round(float(iw.instance_weights_.sum()), 6), iw.instance_weights_.shape
    (1.0, (40,))
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "selector": [HasMethods(["fit"])],
        "scale": ["boolean"],
        "metric": [StrOptions(set(MARGIN_METRICS)), callable],
        "n_iter": [whole(1, None)],
        "tol": [number(0, None)],
        "neighbor_weighting": [StrOptions(set(NEIGHBOR_WEIGHTINGS))],
        "neighbor_metric": [StrOptions(set(MARGIN_METRICS)), callable],
        "penalty": [StrOptions(set(PENALTY_READINGS))],
        "random_state": ["random_state"],
        "n_jobs": n_jobs_constraint(),
    }

    def __init__(
        self,
        selector: BaseEstimator,
        *,
        scale: bool = True,
        metric: str | Callable = "euclidean",
        n_iter: int = 1,
        tol: float = 1e-8,
        neighbor_weighting: Literal["none", "distance"] = "none",
        neighbor_metric: str | Callable = "cityblock",
        penalty: Literal["printed", "mean"] = "printed",
        n_features_to_select: int | float | None = None,
        random_state: RandomStateLike = None,
        n_jobs: int | None = None,
    ) -> None:
        self.selector = selector
        self.scale = scale
        self.metric = metric
        self.n_iter = n_iter
        self.tol = tol
        self.neighbor_weighting = neighbor_weighting
        self.neighbor_metric = neighbor_metric
        self.penalty = penalty
        self.n_features_to_select = n_features_to_select
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _default_n_features_to_select(self, k: int) -> int:
        return int(np.count_nonzero(self.selector_.get_support()))

    def _rank(self, X, y, sample_weight):
        _check_weightable(self.selector)
        Xp, yp, wp, keep = positive_weight_subset(X, y, sample_weight)
        margin_w, done = margin_instance_weights(
            Xp, yp, scale=self.scale, metric=self.metric, n_iter=self.n_iter, tol=self.tol,
            neighbor_weighting=self.neighbor_weighting, neighbor_metric=self.neighbor_metric,
            return_n_iter=True,
        )
        combined = np.zeros(X.shape[0])
        combined[keep] = margin_w * wp
        combined /= combined.sum()
        inner = clone(self.selector)
        params = inner.get_params(deep=False)
        extra = {k: getattr(self, k) for k in ("random_state", "n_jobs")
                 if k in params and getattr(self, k) is not None}
        if extra:
            inner.set_params(**extra)
        if self.penalty == "printed" and isinstance(inner, SVMRFE):
            # SVMRFE rescales its weights to mean 1 over the n_+ positive-weight samples
            # (bounds C v_i, v_i = n_+ w_i): C / n_+ makes the bounds C w_i as printed
            inner.set_params(C=inner.C / int(np.count_nonzero(combined > 0)))
        inner.fit(X, y, sample_weight=combined)
        self.selector_ = inner
        self.instance_weights_ = combined
        self.n_iter_ = done
        return _scores_and_ranking(inner)


def _check_weightable(selector) -> None:
    """Refuse a selector that cannot take instance weights (one clear line)."""
    name = type(selector).__name__
    if not hasattr(selector, "fit"):
        raise StablefsError(f"{name!r} is not a selector: it has no fit method.")
    if not has_fit_parameter(selector, "sample_weight") or not getattr(
        selector, "_supports_sample_weight", True
    ):
        raise StablefsError(
            f"{name}.fit takes no sample_weight, so it cannot use instance weights: wrap an "
            "instance-weight aware selector (e.g. ReliefF, TTest, SVMRFE)."
        )


def _scores_and_ranking(fitted) -> tuple[np.ndarray, np.ndarray]:
    """``(scores, ranking)`` of a fitted selector, from ``scores_`` and/or ``ranking_``."""
    scores = getattr(fitted, "scores_", None)
    ranking = getattr(fitted, "ranking_", None)
    if scores is None and ranking is None:
        raise StablefsError(
            f"{type(fitted).__name__} exposes neither scores_ nor ranking_ after fit: "
            "wrap a stablefs selector."
        )
    if ranking is None:
        scores = np.asarray(scores, dtype=float)
        return scores, rank_from_scores(scores)
    ranking = np.asarray(ranking, dtype=np.int64)
    if scores is None:
        scores = -ranking.astype(float)
    return np.asarray(scores, dtype=float), ranking
