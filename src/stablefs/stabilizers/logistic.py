"""Logistic instance weighting, LIW (Prat Masramon 2016, sec. 8.2, eq. 8.2; "RLIW" in its
appendix C).

Every instance gets Relief's hypothesis margin (eq. 2.53), the margins are standardised over
the data, and a logistic function of the standardised margin is the weight: instances deep
inside their own class weigh close to 1, instances near or beyond the class boundary close
to 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import clone

from stablefs.selectors._base import BaseSelector
from stablefs.selectors._constraints import HasMethods, n_jobs_constraint, number
from stablefs.selectors._logistic_weights import (  # noqa: F401 - the functions live below
    LIW_ALPHA,
    logistic_instance_weights,
    relief_margins,
)
from stablefs.selectors._neighbors import positive_weight_subset
from stablefs.stabilizers.margin import _check_weightable, _scores_and_ranking

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

    from stablefs._validation import RandomStateLike


class LogisticInstanceWeighting(BaseSelector):
    """Wrap a selector in logistic instance weighting ("LIW", Prat Masramon 2016, sec. 8.2).

    ``fit`` computes :func:`logistic_instance_weights` on the training data and fits a clone
    of ``selector`` with ``sample_weight`` = those weights times the user's ``sample_weight``
    (if any), renormalised to sum 1 (selectors read only relative weights).

    Parameters
    ----------
    selector : estimator
        A selector whose ``fit`` takes ``sample_weight`` (refused otherwise).
    alpha : float, default=3.03
        Slope of the logistic function (see :func:`logistic_instance_weights`).
    scale : bool, default=True
        Min-max scale features before the margins.
    n_features_to_select : int, float or None, default=None
        ``None`` uses the inner selector's choice.
    random_state : int, RandomState or None, default=None
        Passed to the inner selector when it has one (the weighting is deterministic).
    n_jobs : int or None, default=None
        Passed to the inner selector when it has one; the result does not depend on it.

    Attributes
    ----------
    logistic_weights_ : ndarray of shape (n_samples,)
        ``omega`` in ``(0, 1)`` (0 for samples the user gave weight 0).
    instance_weights_ : ndarray of shape (n_samples,)
        The weights passed to the inner selector (sum 1).
    selector_ : estimator
        The fitted clone.
    scores_ : ndarray of shape (n_features,)
        From ``selector_``.
    ranking_, support_, n_features_to_select_, classes_, n_features_in_
        As in :class:`stablefs.selectors.ReliefF`.

    See Also
    --------
    logistic_instance_weights : The weights.
    MarginInstanceWeighting : Han's margin-based instance weights.

    References
    ----------
    .. [1] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 8.2, eq. 8.2, and sec. 8.3
       (combining instance and feature weighting).

    Examples
    --------
    >>> from stablefs.datasets import make_han2012
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> from stablefs.selectors import ReliefF
    >>> from stablefs.stabilizers import LogisticInstanceWeighting
    >>> liw = LogisticInstanceWeighting(ReliefF(), n_features_to_select=5).fit(data.X, data.y)
    >>> print(*liw.get_support(indices=True))
    3 6 7 8 9
    >>> round(float(liw.logistic_weights_.min()), 3), round(float(liw.logistic_weights_.max()), 3)
    (0.004, 0.999)

    The same from a method string: ``stablefs.make_selector("liw-relieff")``.
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "selector": [HasMethods(["fit"])],
        "alpha": [number(0, None, closed="neither")],
        "scale": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": n_jobs_constraint(),
    }

    def __init__(self, selector: BaseEstimator, *, alpha: float = LIW_ALPHA, scale: bool = True,
                 n_features_to_select: int | float | None = None,
                 random_state: RandomStateLike = None, n_jobs: int | None = None) -> None:
        self.selector = selector
        self.alpha = alpha
        self.scale = scale
        self.n_features_to_select = n_features_to_select
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _default_n_features_to_select(self, k: int) -> int:
        return int(np.count_nonzero(self.selector_.get_support()))

    def _rank(self, X, y, sample_weight):
        _check_weightable(self.selector)
        Xp, yp, wp, keep = positive_weight_subset(X, y, sample_weight)
        omega = np.zeros(X.shape[0])
        omega[keep] = logistic_instance_weights(Xp, yp, alpha=self.alpha, scale=self.scale)
        combined = np.zeros(X.shape[0])
        combined[keep] = omega[keep] * wp
        combined /= combined.sum()
        inner = clone(self.selector)
        params = inner.get_params(deep=False)
        extra = {k: getattr(self, k) for k in ("random_state", "n_jobs")
                 if k in params and getattr(self, k) is not None}
        if extra:
            inner.set_params(**extra)
        inner.fit(X, y, sample_weight=combined)
        self.selector_ = inner
        self.logistic_weights_ = omega
        self.instance_weights_ = combined
        return _scores_and_ranking(inner)
