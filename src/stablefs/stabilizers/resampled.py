"""Instance weighting by resampling, for selectors that take no instance weights (Prat Masramon
2016, Alg. 8.3, the generic IW+FW framework).

The instance weights ``omega`` (logistic, thesis sec. 8.2, or margin-based, Han 2012 ch. 4)
do not enter the selector; they decide which training set ``S'`` of size ``N`` it sees:

- ``"sample"``: ``N`` draws from the training data with probabilities ``omega / sum omega``,
  with replacement (heavily weighted instances appear several times, light ones may vanish);
  the drawn instances are given to the selector in data order, as the thesis' implementations
  process a bag;
- ``"order"``: every instance once, sorted by ``omega`` descending. Only selectors whose
  result depends on the order of the instances (those that visit them one by one) can change;
  for order-invariant ones (sums, counts) it is the plain selector up to round-off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import clone

from stablefs._errors import StablefsError
from stablefs.selectors._base import BaseSelector
from stablefs.selectors._constraints import HasMethods, StrOptions, n_jobs_constraint, whole
from stablefs.selectors._neighbors import positive_weight_subset
from stablefs.stabilizers.ensemble import _seed_sequence
from stablefs.stabilizers.logistic import logistic_instance_weights
from stablefs.stabilizers.margin import _scores_and_ranking, margin_instance_weights

if TYPE_CHECKING:
    from typing import Literal

    from sklearn.base import BaseEstimator

    from stablefs._validation import RandomStateLike, SeedLike

STRATEGIES = ("sample", "order")
WEIGHTINGS = ("logistic", "margin")

#: redraws allowed when a "sample" bag holds a single class
_MAX_DRAWS = 100


def resample_by_weight(omega: np.ndarray, codes: np.ndarray, strategy: str, rng) -> np.ndarray:
    """Indices of ``S'`` (Alg. 8.3): ``N`` weighted draws sorted ascending (``"sample"``,
    redrawn while the bag holds fewer than two classes), or all indices by ``omega``
    descending, ties to the lower index (``"order"``)."""
    n = omega.size
    if strategy == "order":
        return np.lexsort((np.arange(n), -omega))
    prob = omega / omega.sum()
    for _ in range(_MAX_DRAWS):
        idx = np.sort(rng.choice(n, size=n, replace=True, p=prob))
        if np.unique(codes[idx]).size >= 2:
            return idx
    raise StablefsError(
        f"{_MAX_DRAWS} weighted draws each held a single class: the instance weights are "
        "concentrated on one class; use strategy='order'."
    )


class ResampledInstanceWeighting(BaseSelector):
    """Instance weighting for any selector, by weighted resampling (Prat Masramon 2016, Alg. 8.3).

    The "MBIW + FW" and "LIW + FW" of the thesis' sec. 8.5; the module docstring gives the
    two strategies.

    Parameters
    ----------
    selector : estimator
        Any stablefs selector; it is fitted on ``S'`` without ``sample_weight``.
    instance_weighting : {"logistic", "margin"}, default="logistic"
        ``omega``: logistic instance weights (alpha = 3.03) or margin-based instance weights
        (Han 2012, eq. 4.6).
    strategy : {"sample", "order"}, default="sample"
        How ``S'`` is built (see the module docstring). ``"sample"`` is the strategy of the
        thesis' appendix tables and the only one that can change an order-invariant selector.
    n_features_to_select : int, float or None, default=None
        ``None`` uses the inner selector's choice.
    random_state : int >= 0, RandomState, Generator, SeedSequence or None, default=None
        Seeds the draws of ``"sample"``; passed on to the inner selector when it has one.
    n_jobs : int or None, default=None
        Passed to the inner selector when it has one; the result does not depend on it.

    Attributes
    ----------
    instance_weights_ : ndarray of shape (n_samples,)
        ``omega`` (times the user's ``sample_weight``, summing to 1; 0 for removed samples).
    resample_ : ndarray of int
        Indices (into ``X``) of ``S'`` in the order given to the selector.
    selector_ : estimator
        The fitted clone of ``selector``.
    scores_, ranking_, support_, n_features_to_select_, classes_
        From ``selector_``.
    n_features_in_ : int
        Number of features seen by ``fit``.

    See Also
    --------
    LogisticInstanceWeighting, MarginInstanceWeighting : The weights as ``sample_weight``.

    References
    ----------
    .. [1] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 8.5, Alg. 8.3.
    .. [2] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, eq. 4.6 (margin-based weights).

    Examples
    --------
    ``rw-`` prefix of the method strings; here around a t-test:

    >>> from stablefs.datasets import make_han2012
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> from stablefs.selectors import TTest
    >>> from stablefs.stabilizers import ResampledInstanceWeighting
    >>> rw = ResampledInstanceWeighting(TTest(), n_features_to_select=5,
    ...                                 random_state=0).fit(data.X, data.y)
    >>> print(*rw.get_support(indices=True))
    4 6 7 8 9
    >>> len(rw.resample_), len(set(rw.resample_.tolist())) < 40
    (40, True)
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "selector": [HasMethods(["fit"])],
        "instance_weighting": [StrOptions(set(WEIGHTINGS))],
        "strategy": [StrOptions(set(STRATEGIES))],
        "random_state": [None, whole(0, None), np.random.RandomState, np.random.Generator,
                         np.random.SeedSequence],
        "n_jobs": n_jobs_constraint(),
    }

    def __init__(self, selector: BaseEstimator, *,
                 instance_weighting: Literal["logistic", "margin"] = "logistic",
                 strategy: Literal["sample", "order"] = "sample",
                 n_features_to_select: int | float | None = None,
                 random_state: RandomStateLike | SeedLike = None,
                 n_jobs: int | None = None) -> None:
        self.selector = selector
        self.instance_weighting = instance_weighting
        self.strategy = strategy
        self.n_features_to_select = n_features_to_select
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _default_n_features_to_select(self, k: int) -> int:
        return int(np.count_nonzero(self.selector_.get_support()))

    def _rank(self, X, y, sample_weight):
        Xp, yp, wp, keep = positive_weight_subset(X, y, sample_weight)
        if self.instance_weighting == "logistic":
            omega = logistic_instance_weights(Xp, yp)
        else:
            omega = margin_instance_weights(Xp, yp)
        omega = omega * wp
        omega /= omega.sum()
        _, codes = np.unique(yp, return_inverse=True)
        draw_seq, member_seq = _seed_sequence(self.random_state).spawn(2)
        idx = resample_by_weight(omega, codes, self.strategy, np.random.default_rng(draw_seq))
        inner = clone(self.selector)
        params = inner.get_params(deep=False)
        extra = {}
        if "random_state" in params and self.random_state is not None:
            extra["random_state"] = int(member_seq.generate_state(1)[0])
        if "n_jobs" in params and self.n_jobs is not None:
            extra["n_jobs"] = self.n_jobs
        if extra:
            inner.set_params(**extra)
        inner.fit(Xp[idx], yp[idx])
        self.selector_ = inner
        self.instance_weights_ = np.zeros(X.shape[0])
        self.instance_weights_[keep] = omega
        self.resample_ = keep[idx]
        return _scores_and_ranking(inner)
