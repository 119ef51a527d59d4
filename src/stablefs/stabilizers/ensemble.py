"""Resampling ensembles of a selector: bagging (Han 2012, sec. 5.2.3) and WEn / REn (Li et al.
2013).

Each member fits a clone of the selector on a stratified resample of the training data; the
members' outputs are aggregated by rank sum, by mean weight, or by top-k frequency. Members
run in parallel with joblib; every member's resample and seed are drawn in the parent process
from ``np.random.SeedSequence(random_state).spawn(n_estimators)``, so the result is identical
for any ``n_jobs``.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np
from joblib import Parallel, delayed
from sklearn import config_context
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import has_fit_parameter

from stablefs._errors import StablefsError
from stablefs._validation import (
    check_classes,
    check_n_features_to_select,
    rank_from_scores,
    ranking_from_order,
)
from stablefs.selectors._base import BaseSelector
from stablefs.selectors._constraints import (
    HasMethods,
    StrOptions,
    n_jobs_constraint,
    number,
    plain,
    whole,
)
from stablefs.stabilizers.margin import _scores_and_ranking

if TYPE_CHECKING:
    from typing import Literal

    from sklearn.base import BaseEstimator

    from stablefs._validation import RandomStateLike, SeedLike

_SAMPLING = ("bootstrap", "subsample")
_AGGREGATE = ("rank", "weight", "frequency")
_DEFAULT_FRACTION = {"bootstrap": 1.0, "subsample": 0.9}


def _seed_sequence(random_state) -> np.random.SeedSequence:
    """A SeedSequence from an int, None, RandomState, Generator or SeedSequence."""
    if isinstance(random_state, np.random.SeedSequence):
        return random_state
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(random_state.integers(0, 2**32, size=4).tolist())
    if random_state is None:
        return np.random.SeedSequence()
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise StablefsError(
                f"random_state = {plain(random_state)}: use a whole number >= 0 or None."
            )
        return np.random.SeedSequence(int(random_state))
    rs = check_random_state(random_state)
    return np.random.SeedSequence(rs.randint(0, 2**32, size=4, dtype=np.uint64).tolist())


def stratified_sizes(counts: np.ndarray, fraction: float) -> np.ndarray:
    """Per-class resample sizes: ``round(fraction * n)`` in total, proportional to the classes.

    The total ``m = round(fraction * n)`` (at least one per class, at most ``n``) is split by
    largest remainders of ``m n_c / n`` (ties to the lower class), then every class gets at
    least one sample. Each size is therefore within one of ``fraction * n_c`` and at most
    ``n_c`` (for ``fraction <= 1``).
    """
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    n_classes = counts.size
    total = int(np.floor(fraction * n + 0.5))
    total = min(max(total, n_classes), n)
    quotas = total * counts / n
    sizes = np.floor(quotas).astype(np.int64)
    rest = total - int(sizes.sum())
    if rest > 0:
        order = np.lexsort((np.arange(n_classes), -(quotas - sizes)))
        sizes[order[:rest]] += 1
    for c in np.flatnonzero(sizes == 0):
        sizes[int(np.argmax(sizes))] -= 1
        sizes[c] = 1
    return sizes


def draw_resample(
    rng: np.random.Generator, codes: np.ndarray, sampling: str, fraction: float
) -> np.ndarray:
    """Sample indices of one stratified resample, sorted ascending.

    ``"bootstrap"``: each class ``c`` is drawn *with* replacement, ``size_c`` times from its own
    samples; ``"subsample"``: ``size_c`` distinct samples of the class, without replacement
    (``size_c`` from :func:`stratified_sizes`). Every class is present in every resample.
    """
    n_classes = int(codes.max()) + 1
    members = [np.flatnonzero(codes == c) for c in range(n_classes)]
    sizes = stratified_sizes(np.array([m.size for m in members]), fraction)
    replace = sampling == "bootstrap"
    parts = [rng.choice(m, size=int(s), replace=replace) for m, s in zip(members, sizes)]
    return np.sort(np.concatenate(parts))


def _fit_member(selector, X, y, index, sample_weight, seed):
    """Fit a clone of ``selector`` on the rows ``index`` of ``X`` (already validated by the
    ensemble's ``fit``: finite, so the member skips scikit-learn's finiteness scan)."""
    member = clone(selector)
    if seed is not None and "random_state" in member.get_params(deep=False):
        member.set_params(random_state=seed)
    with config_context(assume_finite=True):
        if sample_weight is None:
            member.fit(X[index], y[index])
        else:
            member.fit(X[index], y[index], sample_weight=sample_weight[index])
    scores, ranking = _scores_and_ranking(member)
    support = np.asarray(member.get_support(), dtype=bool) if hasattr(member, "get_support") \
        else None
    return member, scores, ranking, support


def _member_from_scores(selector, X, y, index, scores):
    """A fitted member built from scores computed with the other members' (the same
    attributes as ``clone(selector).fit(X[index], y[index])``)."""
    member = clone(selector)
    member.n_features_in_ = X.shape[1]
    member.classes_ = check_classes(y[index])
    member._set_result(np.asarray(scores, dtype=float), rank_from_scores(scores))
    return member, member.scores_, member.ranking_, member.support_


class Ensemble(BaseSelector):
    """Ensemble of a selector over stratified resamples, with rank, weight or frequency aggregation.

    - Bagging ensemble (Han 2012, sec. 5.2.3, "En-ReliefF", "En-SVM-RFE"): ``sampling="bootstrap"``,
      20 members, ``aggregate="rank"`` (complete linear aggregation: ``score = -sum_t rank_t``).
    - Subsampling ensembles of Li et al. (2013, sec. 2.2 and 4): ``m`` subsamples of size
      ``alpha n`` drawn without replacement (``sampling="subsample"``, ``fraction=alpha``, 0.9
      by default);
      ``aggregate="weight"`` is WEn (``w_e = (1/m) sum_t w_t``, the mean weight vector) and
      ``aggregate="rank"`` is REn (sum of the rank vectors, best rank 1).
    - ``aggregate="frequency"``: how often a feature is in a member's top ``k``
      (``k`` = ``n_features_to_select``), ties broken by the rank sum, then the feature index.

    Parameters
    ----------
    selector : estimator
        Any stablefs selector (exposing ``scores_`` and/or ``ranking_``); cloned per member.
    n_estimators : int, default=20
        Number of members (Han 2012 uses 20).
    sampling : {"bootstrap", "subsample"}, default="bootstrap"
        With or without replacement. Resamples are stratified by class so that every member
        sees every class: the bootstrap draws each class with replacement from its own samples
        (class sizes kept), the subsample draws ``fraction`` of each class (sizes from
        :func:`stratified_sizes`, total ``round(fraction n)``, at least one per class).
    fraction : float in (0, 1] or None, default=None
        Resample size as a fraction of ``n``: ``None`` = 1.0 for the bootstrap, 0.9 for the
        subsample (the ``alpha`` of Li et al. 2013).
    aggregate : {"rank", "weight", "frequency"}, default="rank"
        How member results are combined (see above).
    n_features_to_select : int, float or None, default=None
        Size of ``support_`` and the ``k`` of ``"frequency"``. ``None`` uses the inner
        selector's own choice.
    normalize : bool, default=False
        For ``aggregate="weight"`` only: divide each member's score vector by the sum of its
        absolute values before averaging, so that every member gets the same say whatever
        the scale of its scores. The default ``False`` is the plain mean of the weight vectors
        of Li et al. (2013) (on resamples of equal size the members' scales are comparable,
        and their stability analysis is for the plain mean).
    random_state : int >= 0, RandomState, Generator, SeedSequence or None, default=None
        Seeds the resamples and, for inner selectors with a ``random_state``, the members.
    n_jobs : int or None, default=None
        Members fitted in parallel (joblib); the result does not depend on it.

    Attributes
    ----------
    estimators_ : list of fitted selectors
        The members.
    resamples_ : list of ndarray
        Sample indices of each member (sorted; repeated indices for the bootstrap).
    member_scores_ : ndarray of shape (n_estimators, n_features)
        The members' ``scores_``.
    member_rankings_ : ndarray of shape (n_estimators, n_features), int
        The members' ``ranking_``.
    selection_frequency_ : ndarray of shape (n_features,)
        Fraction of members whose top ``n_features_to_select_`` contains the feature.
    scores_ : ndarray of shape (n_features,)
        ``-sum of ranks`` (rank), mean weight (weight) or selection frequency (frequency).
    ranking_, support_, n_features_to_select_, classes_, n_features_in_
        As in :class:`stablefs.selectors.ReliefF`.

    See Also
    --------
    StabilitySelection : Selection probabilities over half-samples, with an error bound.

    Notes
    -----
    ``sample_weight`` is passed to each member restricted to its resample (and renormalised
    by it); a sample of weight 0 is treated as absent and never drawn. Equal weights are not
    passed on, so selectors without ``sample_weight`` can be ensembled.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 5.2.3 (bagging ensembles,
       rank aggregation).
    .. [2] Y. Li, S. Huang, S. Chen and J. Si, "Stable L2-regularized ensemble feature
       weighting", Multiple Classifier Systems (MCS 2013), LNCS 7872, Springer, 2013, sec. 2.2
       (WEn and REn).
    .. [3] Y. Saeys, T. Abeel and Y. Van de Peer, "Robust feature selection using ensemble
       feature selection techniques", Proc. ECML PKDD 2008, LNCS 5212, 313–325, 2008.

    Examples
    --------
    A bagging ensemble of 10 ReliefF members (Han's "En-ReliefF" has 20):

    >>> from stablefs.datasets import make_han2012
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> from stablefs.selectors import ReliefF
    >>> from stablefs.stabilizers import Ensemble
    >>> ensemble = Ensemble(ReliefF(), n_estimators=10, n_features_to_select=5,
    ...                     random_state=0).fit(data.X, data.y)
    >>> print(*ensemble.get_support(indices=True))
    1 2 7 8 9
    >>> print(*ensemble.selection_frequency_[:10].round(1))
    0.5 0.5 0.4 0.3 0.4 0.0 0.6 0.8 0.9 0.6

    The same from a method string: ``stablefs.make_selector("en-relieff(n_estimators=10)")``.
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "selector": [HasMethods(["fit"])],
        "n_estimators": [whole(1, None)],
        "sampling": [StrOptions(set(_SAMPLING))],
        "fraction": [None, number(0, 1, closed="right")],
        "aggregate": [StrOptions(set(_AGGREGATE))],
        "normalize": ["boolean"],
        "random_state": [None, whole(0, None), np.random.RandomState, np.random.Generator,
                         np.random.SeedSequence],
        "n_jobs": n_jobs_constraint(),
    }

    def __init__(
        self,
        selector: BaseEstimator,
        n_estimators: int = 20,
        sampling: Literal["bootstrap", "subsample"] = "bootstrap",
        fraction: float | None = None,
        aggregate: Literal["rank", "weight", "frequency"] = "rank",
        n_features_to_select: int | float | None = None,
        normalize: bool = False,
        random_state: RandomStateLike | SeedLike = None,
        n_jobs: int | None = None,
    ) -> None:
        self.selector = selector
        self.n_estimators = n_estimators
        self.sampling = sampling
        self.fraction = fraction
        self.aggregate = aggregate
        self.n_features_to_select = n_features_to_select
        self.normalize = normalize
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _fraction(self) -> float:
        """``fraction``, or its default for the sampling scheme (the values are checked by
        ``_parameter_constraints`` before ``fit`` does any work)."""
        if self.fraction is None:
            return _DEFAULT_FRACTION[self.sampling]
        return float(self.fraction)

    def _default_n_features_to_select(self, k: int) -> int:
        return self._inner_k

    def _rank(self, X, y, sample_weight):
        fraction = self._fraction()
        p = X.shape[1]
        positive = np.flatnonzero(sample_weight > 0)
        _, codes = np.unique(y[positive], return_inverse=True)
        if np.ptp(sample_weight) == 0:
            weights = None
        else:
            if not has_fit_parameter(self.selector, "sample_weight"):
                raise StablefsError(
                    f"{type(self.selector).__name__}.fit takes no sample_weight: fit the "
                    "ensemble without sample_weight or wrap a weight-aware selector."
                )
            weights = sample_weight
        children = _seed_sequence(self.random_state).spawn(self.n_estimators)
        resamples, seeds = [], []
        for child in children:
            draw_seq, member_seq = child.spawn(2)
            rng = np.random.default_rng(draw_seq)
            resamples.append(positive[draw_resample(rng, codes, self.sampling, fraction)])
            seeds.append(int(member_seq.generate_state(1)[0]))
        together = getattr(self.selector, "_score_resamples", None)
        if together is not None:  # e.g. ReliefF: members share distances and gathers
            member_scores = together(X, y, resamples, weights)
            out = [_member_from_scores(self.selector, X, y, idx, scores)
                   for idx, scores in zip(resamples, member_scores)]
        else:
            X = np.ascontiguousarray(X)  # members gather rows: fast from a C array
            out = Parallel(n_jobs=self.n_jobs)(
                delayed(_fit_member)(self.selector, X, y, idx, weights, seed)
                for idx, seed in zip(resamples, seeds)
            )
        self.estimators_ = [o[0] for o in out]
        self.resamples_ = resamples
        self.member_scores_ = np.vstack([o[1] for o in out]).astype(float)
        self.member_rankings_ = np.vstack([o[2] for o in out]).astype(np.int64)
        if self.n_features_to_select is None:
            support = out[0][3]
            k = int(support.sum()) if support is not None else max(1, p // 2)
        else:
            k = check_n_features_to_select(self.n_features_to_select, p)
        self._inner_k = k
        top = self.member_rankings_ <= k
        self.selection_frequency_ = top.mean(axis=0)
        rank_sum = self.member_rankings_.sum(axis=0)
        if self.aggregate == "rank":
            scores = -rank_sum.astype(float)
            return scores, rank_from_scores(scores)
        if self.aggregate == "weight":
            member = self.member_scores_
            if self.normalize:
                member = _l1_normalise(member)
            scores = member.mean(axis=0)
            return scores, rank_from_scores(scores)
        scores = self.selection_frequency_.copy()
        order = np.lexsort((np.arange(p), rank_sum, -scores))
        return scores, ranking_from_order(order)


def _l1_normalise(scores: np.ndarray) -> np.ndarray:
    """Rows divided by the sum of their absolute values (rows of zeros unchanged).

    An infinite score (e.g. a perfectly separating feature for the t-test) is taken in the
    limit: the infinite entries share the unit mass equally, the finite ones get 0.
    """
    out = np.array(scores, dtype=float)
    for row in out:
        inf = np.isinf(row)
        if inf.any():
            row[:] = np.where(inf, np.sign(row) / inf.sum(), 0.0)
            continue
        total = np.nansum(np.abs(row))
        if total > 0:
            row /= total
    return out
