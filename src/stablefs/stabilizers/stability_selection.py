"""Stability selection (Meinshausen and Bühlmann 2010) with complementary pairs (Shah and
Samworth 2013).

A base selector is run on many half-samples of the data; a feature's **selection
probability** at a regularisation value ``lam`` is the fraction of half-samples on which the
selector picks it, ``Pi_j(lam)``, and its stability score is the maximum over the grid,
``max_lam Pi_j(lam)`` (Meinshausen and Bühlmann 2010, Definition 1 and eq. 7 of the stable
set ``{j : max_lam Pi_j(lam) >= pi_thr}``).

Subsamples. ``complementary_pairs=True`` (default; Shah and Samworth 2013, sec. 2.1) draws
``n_subsamples`` = B random splits of the samples into two halves ``A_2b-1, A_2b`` and fits on
both (2B fits); ``False`` draws ``n_subsamples`` independent half-samples (Meinshausen and
Bühlmann's scheme). Halves are stratified by class (each class split as evenly as its size
allows, :func:`stablefs.stabilizers.ensemble.draw_resample` with fraction 0.5), so every fit
sees every class; the papers draw plain random halves of size ``floor(n/2)`` - for a
classification selector a half without one class is unusable, hence the stratification.

What "selected" means.

- L1 / elastic-net logistic base (:class:`stablefs.selectors.L1Logistic`,
  :class:`~stablefs.selectors.ElasticNetLogistic`): the features with a nonzero coefficient,
  on a grid of penalties. ``grid=None`` takes five values ``lam / lam_max`` in
  ``geomspace(0.5, 0.1, 5)`` of the whole data's ``lam_max`` (the penalty at which the first
  feature enters; :func:`stablefs.selectors.penalized_logistic.lambda_max`), converted to the
  base's ``C = 1 / (lam m)`` for half-samples of ``m`` samples; an explicit ``grid`` gives
  the ``C`` values. The base's own ``C`` is not used.
- Any other selector: its top ``q`` features (``grid`` = a list of ``q`` values to
  maximise over; since top-``q`` sets are nested, the maximum over a grid of ``q`` equals the
  probability at the largest ``q``).

Error control. With ``q_Lambda`` the expected number of features selected over the grid (the
size of the union of the sets over the grid; estimated by its average over the fits) and
``pi_thr`` in (0.5, 1], Meinshausen and Bühlmann 2010, Theorem 1, bound the expected number
of falsely selected features by

``E(V) <= q_Lambda^2 / ((2 pi_thr - 1) p)``

under exchangeability of the noise features and a selector no worse than random guessing.
Shah and Samworth 2013, Theorem 1, prove for complementary pairs, with no such assumption,
that the expected number of selected features of low selection probability
``theta`` is at most ``theta / (2 pi_thr - 1)`` times the expected number selected by the base
procedure on a half-sample; with ``theta = q / p`` this gives the same
``q^2 / ((2 pi_thr - 1) p)`` under the exchangeability of Meinshausen and Bühlmann, and holds
for every finite B. ``error_bound_`` reports it (``inf`` for ``pi_thr <= 0.5``). The tighter
bounds of Shah and Samworth's Theorem 2 (r-concavity) are not computed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.utils.validation import has_fit_parameter

from stablefs._errors import StablefsError
from stablefs._runtime.threads import kernel_threads, limit_threads
from stablefs._validation import ranking_from_order
from stablefs.selectors._base import BaseSelector
from stablefs.selectors._constraints import HasMethods, n_jobs_constraint, number, whole
from stablefs.selectors.penalized_logistic import (
    _PenalizedLogistic,
    coefficient_order,
    lambda_max,
    penalized_logistic_path,
)
from stablefs.stabilizers.ensemble import _seed_sequence, draw_resample
from stablefs.stabilizers.margin import _scores_and_ranking

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sklearn.base import BaseEstimator

    from stablefs._validation import RandomStateLike, SeedLike

#: ``lam / lam_max`` of the default penalty grid
DEFAULT_LAMBDA_RATIOS = tuple(np.geomspace(0.5, 0.1, 5))


def error_bound(q: float, threshold: float, n_features: int) -> float:
    """Bound the expected number of falsely selected features: ``q^2 / ((2 pi_thr - 1) p)``.

    Meinshausen and Bühlmann (2010), Theorem 1; for complementary pairs Shah and Samworth
    (2013), Theorem 1 with ``theta = q/p``.

    Parameters
    ----------
    q : float
        The expected number of features selected over the grid, ``q_Lambda``.
    threshold : float
        ``pi_thr``.
    n_features : int
        ``p``.

    Returns
    -------
    float
        The bound on ``E(V)``; ``inf`` when ``pi_thr <= 0.5``.

    References
    ----------
    .. [1] N. Meinshausen and P. Bühlmann, "Stability selection", Journal of the Royal
       Statistical Society B 72(4), 417–473, 2010, Theorem 1.
    .. [2] R. D. Shah and R. J. Samworth, "Variable selection with error control: another
       look at stability selection", Journal of the Royal Statistical Society B 75(1), 55–80,
       2013, Theorem 1.

    Examples
    --------
    Ten features selected on average out of 1000, a threshold of 0.9:

    >>> from stablefs.stabilizers.stability_selection import error_bound
    >>> round(error_bound(10, 0.9, 1000), 3)
    0.125
    """
    if threshold <= 0.5:
        return float("inf")
    return float(q) ** 2 / ((2 * float(threshold) - 1) * n_features)


def _half_samples(codes, n_subsamples, complementary_pairs, random_state):
    """The index sets to fit on and one seed per fit (drawn in the parent: the result does
    not depend on ``n_jobs``)."""
    n = codes.size
    sets, seeds = [], []
    for child in _seed_sequence(random_state).spawn(n_subsamples):
        draw_seq, seed_seq = child.spawn(2)
        half = draw_resample(np.random.default_rng(draw_seq), codes, "subsample", 0.5)
        state = seed_seq.generate_state(2)
        sets.append(half)
        seeds.append(int(state[0]))
        if complementary_pairs:
            sets.append(np.setdiff1d(np.arange(n), half))
            seeds.append(int(state[1]))
    return sets, seeds


def _fit_penalized(selector, X, y, index, weights, Cs):
    """Selected sets (nonzero coefficients) of a penalised logistic base at every ``C`` of
    ``Cs`` (one path from the largest penalty down, each fit warm-started from the previous),
    and the ranking at the last (smallest) penalty."""
    selected, W, _, grad, _ = penalized_logistic_path(
        X, y[index], Cs, l1_ratio=selector._l1_ratio(),
        sample_weight=None if weights is None else weights[index], tol=selector.tol,
        max_iter=selector.max_iter, rows=index)
    scores = np.abs(W).sum(axis=1)
    return selected, ranking_from_order(coefficient_order(scores, grad))


def _fit_generic(selector, X, y, index, weights, seed, qs):
    member = clone(selector)
    if "random_state" in member.get_params(deep=False):
        member.set_params(random_state=seed)
    if weights is None:
        member.fit(X[index], y[index])
    else:
        member.fit(X[index], y[index], sample_weight=weights[index])
    _, ranking = _scores_and_ranking(member)
    return np.vstack([ranking <= q for q in qs]), ranking


class StabilitySelection(BaseSelector):
    """Stability selection around a selector (Meinshausen and Bühlmann 2010).

    With the complementary pairs of Shah and Samworth (2013).

    The method ``stabsel`` (base :class:`stablefs.selectors.L1Logistic`) and the prefix
    ``stabsel-`` for any selector; the module docstring gives the definitions.

    Parameters
    ----------
    selector : estimator
        The base selector, cloned per fit. A penalised logistic base is run on a penalty
        grid; any other selector counts its top ``q`` features as selected.
    n_subsamples : int, default=50
        Number of complementary pairs B (2B fits; Shah and Samworth 2013 use B = 50), or of
        half-samples when ``complementary_pairs=False`` (Meinshausen and Bühlmann use 100).
    threshold : float in (0, 1], default=0.6
        ``pi_thr``: a feature is stable when its maximal selection probability is at least
        this. The error bound needs ``pi_thr > 0.5`` (Meinshausen and Bühlmann suggest 0.6 to
        0.9).
    grid : sequence or None, default=None
        Penalised base: the ``C`` values (default: ``lam / lam_max`` in
        ``geomspace(0.5, 0.1, 5)``). Other selectors: the ``q`` values (default ``[q]``).
    q : int, default=20
        Generic selectors: the size of the selected set (top-``q`` of the ranking).
    complementary_pairs : bool, default=True
        Fit on both halves of each split (Shah and Samworth) rather than on independent
        half-samples (Meinshausen and Bühlmann).
    n_features_to_select : int, float or None
        Size of ``support_``; ``None`` = the stable set.
    random_state : int, RandomState, Generator, SeedSequence or None
        Seeds the half-samples and, when it has one, the base selector.
    n_jobs : int or None
        Fits in parallel; the result does not depend on it. ``None``: with a penalised
        logistic base, the half-samples run on threads on the free cores
        (:func:`stablefs._runtime.threads.kernel_threads`: one inside joblib's or Dask's workers);
        with another base, one after the other.

    Attributes
    ----------
    selection_probabilities_ : ndarray (n_grid, n_features)
        Fraction of the fits selecting each feature at each grid value.
    scores_ : ndarray (n_features,)
        The maximum over the grid of the selection probability.
    stable_set_ : ndarray of int
        Features with ``scores_ >= threshold``, best first.
    grid_ : ndarray
        The grid used (``C`` values or ``q`` values).
    q_ : float
        Mean over the fits of the number of features selected anywhere on the grid
        (the estimate of ``q_Lambda``).
    error_bound_ : float
        ``q_^2 / ((2 threshold - 1) p)`` (:func:`error_bound`).
    subsamples_ : list of ndarray
        Sample indices of every fit (pairs adjacent).
    mean_rank_ : ndarray (n_features,)
        Mean rank of each feature over the fits; breaks ties of ``scores_`` in ``ranking_``
        (selection probabilities are multiples of 1/(2B) and tie often), then the index.
    ranking_, support_, n_features_to_select_, classes_, n_features_in_
        As in :class:`stablefs.selectors.ReliefF`.

    See Also
    --------
    error_bound : The bound on the expected number of false selections.
    Ensemble : Aggregated rankings over resamples.

    References
    ----------
    .. [1] N. Meinshausen and P. Bühlmann, "Stability selection", Journal of the Royal
       Statistical Society B 72(4), 417–473, 2010, Definition 1, eq. 7 and Theorem 1.
    .. [2] R. D. Shah and R. J. Samworth, "Variable selection with error control: another
       look at stability selection", Journal of the Royal Statistical Society B 75(1), 55–80,
       2013, sec. 2.1 and Theorem 1.

    Examples
    --------
    Around an L1-penalised logistic regression (the method ``stabsel``), 10 complementary
    pairs:

    >>> from stablefs.datasets import make_han2012
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> from stablefs.selectors import L1Logistic
    >>> from stablefs.stabilizers import StabilitySelection
    >>> stabsel = StabilitySelection(L1Logistic(), n_subsamples=10,
    ...                              random_state=0).fit(data.X, data.y)
    >>> print(*stabsel.stable_set_)
    7 8 4
    >>> stabsel.selection_probabilities_.shape
    (5, 60)
    >>> round(stabsel.error_bound_, 2)
    3.8
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "selector": [HasMethods(["fit"])],
        "n_subsamples": [whole(1, None)],
        "threshold": [number(0, 1, closed="right")],
        "grid": [None, "array-like"],
        "q": [whole(1, None)],
        "complementary_pairs": ["boolean"],
        "random_state": [None, whole(0, None), np.random.RandomState, np.random.Generator,
                         np.random.SeedSequence],
        "n_jobs": n_jobs_constraint(),
    }

    def __init__(self, selector: BaseEstimator, n_subsamples: int = 50, threshold: float = 0.6,
                 grid: Sequence[float] | None = None, q: int = 20, *,
                 complementary_pairs: bool = True, n_features_to_select: int | float | None = None,
                 random_state: RandomStateLike | SeedLike = None,
                 n_jobs: int | None = None) -> None:
        self.selector = selector
        self.n_subsamples = n_subsamples
        self.threshold = threshold
        self.grid = grid
        self.q = q
        self.complementary_pairs = complementary_pairs
        self.n_features_to_select = n_features_to_select
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _default_n_features_to_select(self, k: int) -> int:
        return int(self.stable_set_.size)

    def inner_params_set(self) -> dict[str, str]:
        """Parameters of the wrapped selector that every fit sets, so that a value given for
        them is ignored (:func:`stablefs.methods.make_selector` refuses it): a penalised
        logistic base's ``C`` comes from the grid of penalties."""
        if isinstance(self.selector, _PenalizedLogistic):
            return {"C": "stability selection fits every half-sample along its grid of "
                         "penalties (grid=, C values)"}
        return {}

    def _grid(self, X, y, weights, half_size) -> np.ndarray:
        penalized = isinstance(self.selector, _PenalizedLogistic)
        if self.grid is not None:
            grid = np.asarray(self.grid, dtype=float).ravel()
            if grid.size == 0 or not np.all(np.isfinite(grid)) or np.any(grid <= 0):
                raise StablefsError(f"StabilitySelection: grid={list(grid)} must hold "
                                    "positive numbers (C values, or q values).")
            if not penalized:
                if np.any(grid != np.round(grid)) or grid.max() > X.shape[1]:
                    raise StablefsError(
                        f"StabilitySelection: grid={list(grid)} must hold whole numbers of "
                        f"features from 1 to {X.shape[1]} for {type(self.selector).__name__}.")
                return grid.astype(np.int64)
            return grid
        if not penalized:
            if self.q > X.shape[1]:
                raise StablefsError(f"StabilitySelection: q = {self.q} is more than the "
                                    f"{X.shape[1]} features.")
            return np.array([self.q], dtype=np.int64)
        lam0 = lambda_max(X, y, l1_ratio=self.selector._l1_ratio(), sample_weight=weights)
        return 1.0 / (np.asarray(DEFAULT_LAMBDA_RATIOS) * lam0 * half_size)

    def _rank(self, X, y, sample_weight):
        p = X.shape[1]
        _, codes = np.unique(y, return_inverse=True)
        weights = None if np.ptp(sample_weight) == 0 else sample_weight
        if weights is not None and not has_fit_parameter(self.selector, "sample_weight"):
            raise StablefsError(f"{type(self.selector).__name__}.fit takes no sample_weight: "
                                "fit stability selection without sample_weight.")
        sets, seeds = _half_samples(codes, self.n_subsamples, self.complementary_pairs,
                                    self.random_state)
        grid = self._grid(X, y, weights, int(np.median([s.size for s in sets])))
        if isinstance(self.selector, _PenalizedLogistic):
            jobs = (delayed(_fit_penalized)(self.selector, X, y, idx, weights, grid)
                    for idx in sets)
        else:
            jobs = (delayed(_fit_generic)(self.selector, X, y, idx, weights, seed, grid)
                    for idx, seed in zip(sets, seeds))
        if self.n_jobs is None and isinstance(self.selector, _PenalizedLogistic):
            # the compiled solver releases the GIL: the half-samples on the free cores' threads
            # (one thread inside joblib's and Dask's workers, stablefs._runtime.threads), BLAS
            # on one thread throughout (small products; the same numbers everywhere)
            with limit_threads(1, user_api="blas"):
                out = Parallel(n_jobs=kernel_threads(), prefer="threads")(jobs)
        else:
            out = Parallel(n_jobs=self.n_jobs)(jobs)
        selected = np.stack([o[0] for o in out])  # fits x grid x p
        rankings = np.vstack([o[1] for o in out])
        self.grid_ = grid
        self.subsamples_ = sets
        self.selection_probabilities_ = selected.mean(axis=0)
        scores = self.selection_probabilities_.max(axis=0)
        self.q_ = float(selected.any(axis=1).sum(axis=1).mean())
        self.error_bound_ = error_bound(self.q_, self.threshold, p)
        self.mean_rank_ = rankings.mean(axis=0)
        order = np.lexsort((np.arange(p), self.mean_rank_, -scores))
        ranking = ranking_from_order(order)
        stable = scores >= self.threshold
        self.stable_set_ = order[: int(stable.sum())]
        return scores, ranking


def stabsel_l1_logistic(**params) -> StabilitySelection:
    """The method ``stabsel``: :class:`StabilitySelection` around a fresh
    :class:`stablefs.selectors.L1Logistic`."""
    from stablefs.selectors.penalized_logistic import L1Logistic

    return StabilitySelection(L1Logistic(), **params)
