"""The registry of subset-stability measures used by the CLI and the experiment runner.

``MEASURES[name]`` is a :class:`Measure`: callable as ``MEASURES[name](subsets, n_features,
X=..., random_state=...)`` and carrying its properties. :func:`measure_interval` returns
(estimate, low, high), every interval formed the same way: the **delete-one-result jackknife
standard error and a Student-t interval with m − 1 degrees of freedom**, estimate ±
t_{m−1, 1−α/2} sqrt(v), clipped to the measure's range (:func:`measure_bounds`):

* ``nogueira``: v the jackknife variance of Φ̂ (:func:`~stablefs.stability.nogueira_ci`,
  ``variance="jackknife"``).
* Pairwise-average measures (Kuncheva, Jaccard, …, nPOGR, Zucknick, intersection count):
  the mean over pairs is a U-statistic of order 2 over the m results;
  v = (m−1)/m Σ_l (U_(−l) − Ū)². For the Monte-Carlo-corrected measures the expectation
  term is held fixed; its simulation error is not part of the interval.
* Whole-system measures (Somol, Křížek, Davis, Novovičová, Sechidis): the jackknife of the
  statistic itself.

U_(−l) needs at least two results left, so **m < 3 gives NaN bounds** (the estimate is still
returned). Why this interval: simulated with a known population stability (m independent
training sets; ``benchmarks/bench_coverage.py``), the paper's asymptotic interval for Φ̂
covered 83–91 % at 10–20 results and the percentile bootstrap over results 88–94 %; the
jackknife t-interval covered 94.6–97.2 % at 10, 20 and 50 (97 at 10 results with a weak
signal: conservative, not narrow). It is deterministic (no draws) and
costs m evaluations at most. Where every result selects the same subset the variance is 0
and the interval is the single point 1; near random selection (population value ≈ 0) the
U-statistic is degenerate and the interval is conservative (about 99 %).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from stablefs._errors import StablefsError
from stablefs._runtime.lazy import submodule
from stablefs.stability import correlated
from stablefs.stability import subsets as sub
from stablefs.stability._common import jackknife_variance, student_interval
from stablefs.stability._inputs import as_subsets, check_alpha, listing, named, plain

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike

    from stablefs._validation import SeedLike
    from stablefs.stability._common import PairScores
    from stablefs.stability._inputs import FeatureNames, Subsets

# the package attributes nogueira and somol are the functions of those names
# (stablefs._runtime.lazy):
# the submodules come from the import system
nogueira = submodule("stablefs.stability.nogueira")
somol = submodule("stablefs.stability.somol")

__all__ = ["MEASURES", "Measure", "available_measures", "measure_bounds", "measure_interval",
           "measure_pair_scores"]


@dataclass(frozen=True)
class Measure:
    """A named subset-stability measure and its properties (the values of :data:`MEASURES`).

    Calling it evaluates the measure: ``measure(subsets, n_features, X=..., random_state=...)``.

    Parameters
    ----------
    name : str
        The name used by the command line (``--stability``).
    func : callable
        The public function (e.g. :func:`~stablefs.stability.kuncheva`).
    kind : {"pairwise", "system", "nogueira", "correlated-pairwise", "correlated-system"}
        A mean over pairs, a statistic of the whole system, Nogueira's estimator, or one of
        them with feature correlations.
    chance_corrected : bool
        Random selection scores about 0.
    equal_sizes : bool
        Requires all subsets to have the same size.
    needs_X : bool
        Needs the data matrix.
    higher_is_better : bool
        False for the measures where lower is more stable.
    description : str
        One line, with its reference.
    lowest : float or None
        The least value of the estimate (None when not bounded in closed form; Nogueira's
        −1/(m − 1) depends on m, :func:`measure_bounds`). Every measure is at most 1.

    References
    ----------
    .. [1] S. Nogueira, K. Sechidis and G. Brown, "On the stability of feature selection
       algorithms", Journal of Machine Learning Research 18(174), 1–54, 2018 (the properties of
       a stability measure, correction for chance among them).

    Examples
    --------
    >>> from stablefs.stability import MEASURES
    >>> measure = MEASURES["kuncheva"]
    >>> measure.kind, measure.chance_corrected, measure.equal_sizes
    ('pairwise', True, True)
    >>> round(measure([[0, 1, 2], [0, 1, 3]], n_features=10), 3)
    0.524
    """

    name: str
    func: Callable[..., float]
    kind: Literal["pairwise", "system", "nogueira", "correlated-pairwise", "correlated-system"]
    chance_corrected: bool
    equal_sizes: bool = False
    needs_X: bool = False
    higher_is_better: bool = True
    description: str = ""
    lowest: float | None = None

    def __call__(self, subsets: Subsets, n_features: int | None = None, *,
                 X: ArrayLike | None = None, random_state: SeedLike = 0,
                 feature_names: FeatureNames | None = None) -> float:
        """Evaluate the measure (X and random_state are used only where needed)."""
        return measure_interval(self.name, subsets, n_features, X=X, random_state=random_state,
                                feature_names=feature_names, _interval=False)[0]


#: least values: 0 for the similarities, -1 for the correlation-like chance-corrected ones
_LOWEST = {"jaccard": 0.0, "dice": 0.0, "hamming": 0.0, "ochiai": 0.0, "zucknick": 0.0,
           "somol": 0.0, "somol_c": 0.0, "somol_cw": 0.0, "krizek": 0.0, "davis": 0.0,
           "novovicova": 0.0, "kuncheva": -1.0, "phi": -1.0, "kappa": -1.0,
           "lustgarten": -1.0, "wald": -1.0}


def _m(name, func, kind, cc, desc, **kw) -> Measure:
    return Measure(name, func, kind, cc, description=desc, lowest=_LOWEST.get(name), **kw)


MEASURES: dict[str, Measure] = {
    m.name: m
    for m in [
        _m("kuncheva", sub.kuncheva, "pairwise", True,
           "Kuncheva's consistency index (Kuncheva 2007; Han 2012, eq. 5.5)", equal_sizes=True),
        _m("nogueira", nogueira.nogueira, "nogueira", True,
           "Nogueira, Sechidis and Brown 2018 estimator (its variance: eq. 7)"),
        _m("jaccard", sub.jaccard, "pairwise", False,
           "Jaccard index of subsets (Kalousis et al. 2007)"),
        _m("dice", sub.dice, "pairwise", False,
           "Dice coefficient = Sim_ID (Yu, Ding and Loscalzo 2008, eq. 5)"),
        _m("hamming", sub.hamming, "pairwise", False,
           "Hamming similarity 1 - D_H/p (Dunne et al. 2002)"),
        _m("ochiai", sub.ochiai, "pairwise", False, "Ochiai coefficient (cosine of masks)"),
        _m("lustgarten", sub.lustgarten, "pairwise", True,
           "Lustgarten, Gopalakrishnan and Visweswaran 2009"),
        _m("phi", sub.phi, "pairwise", True, "Pearson correlation of selection masks"),
        _m("kappa", sub.kappa, "pairwise", True, "Cohen's kappa of selection masks"),
        _m("wald", sub.wald, "pairwise", True, "Wald, Khoshgoftaar and Napolitano 2013"),
        _m("unadjusted", sub.unadjusted, "pairwise", True,
           "chance-corrected Ochiai, the unadjusted measure of Bommert and Rahnenführer 2020"),
        _m("somol", somol.somol_cw_rel, "system", False,
           "relative weighted consistency CW_rel (Somol and Novovičová 2010)"),
        _m("somol_c", somol.somol_c, "system", False,
           "consistency C (Somol and Novovičová 2010)"),
        _m("somol_cw", somol.somol_cw, "system", False,
           "weighted consistency CW (Somol and Novovičová 2010)"),
        _m("krizek", somol.krizek, "system", False,
           "entropy of the distinct subsets, normalised 1 - H/log m (Křížek et al. 2007)"),
        _m("davis", somol.davis, "system", False, "Davis et al. 2006, no size penalty"),
        _m("novovicova", somol.novovicova, "system", False,
           "entropy-based (Novovičová, Somol and Pudil 2009)"),
        _m("npogr", correlated.npogr, "correlated-pairwise", True,
           "nPOGR, symmetric form (Zhang et al. 2009; Han 2012, eq. 5.8)",
           equal_sizes=True, needs_X=True),
        _m("zucknick", correlated.zucknick, "correlated-pairwise", False,
           "Zucknick, Richardson and Stronach 2008, |r| >= 0.9", needs_X=True),
        _m("intersection_count", correlated.intersection_count, "correlated-pairwise", True,
           "adjusted intersection count (Bommert and Rahnenführer 2020), |r| >= 0.9",
           needs_X=True),
        _m("sechidis", correlated.sechidis, "correlated-system", True,
           "Sechidis et al. 2020, |r| >= 0.9", needs_X=True),
    ]
}


def available_measures() -> list[str]:
    """List the names accepted by :func:`measure_interval` and the CLI, in registry order.

    Returns
    -------
    list of str
        The keys of :data:`MEASURES` (``stablefs measures`` prints them with their
        descriptions).

    References
    ----------
    .. [1] S. Nogueira, K. Sechidis and G. Brown, "On the stability of feature selection
       algorithms", Journal of Machine Learning Research 18(174), 1–54, 2018.
    .. [2] A. Bommert and M. Lang, "stabm: Stability measures for feature selection",
       Journal of Open Source Software 6(59), 3010, 2021.

    Examples
    --------
    >>> from stablefs.stability import available_measures
    >>> available_measures()[:4]
    ['kuncheva', 'nogueira', 'jaccard', 'dice']
    >>> len(available_measures())
    21
    """
    return list(MEASURES)


def _unknown(name) -> StablefsError:
    close = difflib.get_close_matches(str(name), list(MEASURES), n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    return StablefsError(
        f"unknown stability measure {plain(name)}{hint}: choose one of {listing(MEASURES)} "
        "(run 'stablefs measures' for the list)."
    )


def measure_bounds(name: str, m: int) -> tuple[float | None, float]:
    """The range ``(lowest, 1)`` an interval of measure ``name`` over ``m`` results is clipped to.

    Parameters
    ----------
    name : str
        One of :func:`available_measures`.
    m : int
        The number of selection results.

    Returns
    -------
    lowest : float or None
        The least value the estimate can take: Nogueira's Φ̂ lies in [−1/(m − 1), 1]
        (Nogueira et al. 2018); ``None`` where it has no closed form (no clipping below).
    highest : float
        1 for every measure.

    References
    ----------
    .. [1] S. Nogueira, K. Sechidis and G. Brown, "On the stability of feature selection
       algorithms", Journal of Machine Learning Research 18(174), 1–54, 2018 (the range of
       the estimator).

    Examples
    --------
    >>> from stablefs.stability import measure_bounds
    >>> measure_bounds("nogueira", 5)
    (-0.25, 1.0)
    >>> measure_bounds("jaccard", 5)
    (0.0, 1.0)
    """
    if name not in MEASURES:
        raise _unknown(name)
    if MEASURES[name].kind == "nogueira":
        return (-1.0 / (m - 1) if m > 1 else None), 1.0
    return MEASURES[name].lowest, 1.0


def measure_interval(name: str, subsets: Subsets, n_features: int | None = None, *,
                     X: ArrayLike | None = None, alpha: float = 0.05, random_state: SeedLike = 0,
                     feature_names: FeatureNames | None = None,
                     _interval: bool = True) -> tuple[float, float, float]:
    """Estimate and (1 − alpha) confidence interval of a registered stability measure.

    Parameters
    ----------
    name : str
        One of :func:`available_measures`.
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        The m selection results.
    n_features : int, optional
        p; required for index collections.
    X : array of shape (n_samples, p), optional
        Needed by ``npogr``, ``zucknick``, ``intersection_count`` and ``sechidis``; ignored by
        the others.
    alpha : float
        1 − confidence level.
    random_state : int or None
        Seed of the Monte-Carlo parts (E(O) of nPOGR, E[I] of the intersection count, μ_C of
        Sechidis); ignored by the others.
    feature_names : sequence of str, optional
        The p column names, in order; subsets may then list names instead of indices
        (``n_features`` defaults to their number).

    Returns
    -------
    (estimate, low, high)
        The jackknife t-interval of the module docstring, clipped to :func:`measure_bounds`;
        low/high are NaN when it is undefined (m < 3).

    References
    ----------
    .. [1] S. Nogueira, K. Sechidis and G. Brown, "On the stability of feature selection
       algorithms", Journal of Machine Learning Research 18(174), 1–54, 2018 (the estimator and
       its variance).
    .. [2] B. Efron and C. Stein, "The jackknife estimate of variance", The Annals of
       Statistics 9(3), 586–596, 1981 (the jackknife standard error).

    Examples
    --------
    >>> from stablefs.stability import measure_interval
    >>> subsets = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [0, 1, 2], [1, 2, 3]]
    >>> estimate, low, high = measure_interval("kuncheva", subsets, n_features=10)
    >>> round(estimate, 3), round(low, 3), round(high, 3)
    (0.571, 0.356, 0.787)
    """
    if name not in MEASURES:
        raise _unknown(name)
    alpha = check_alpha(alpha)
    subsets, n_features, _ = named(subsets, n_features, feature_names, X=X)
    meas = MEASURES[name]
    if meas.kind == "nogueira":
        if not _interval:
            return nogueira.nogueira(subsets, n_features), np.nan, np.nan
        est, _, low, high = nogueira.nogueira_ci(subsets, n_features, alpha)
        return est, low, high
    if meas.kind == "pairwise":
        scores = sub.pair_scores(name, subsets, n_features)
    elif meas.kind == "correlated-pairwise":
        scores = _correlated_scores(name, subsets, n_features, X, random_state)
    else:
        return _system_interval(name, subsets, n_features, X, random_state, alpha, _interval)
    est = scores.mean
    if not _interval:
        return est, np.nan, np.nan
    low, high = student_interval(est, scores.jackknife_variance(), scores.m, alpha,
                                 measure_bounds(name, scores.m))
    return est, low, high


def measure_pair_scores(name: str, subsets: Subsets, n_features: int | None = None, *,
                        X: ArrayLike | None = None, random_state: SeedLike = 0,
                        feature_names: FeatureNames | None = None) -> PairScores | None:
    """Compute the per-pair similarities of a pairwise-average measure (Han 2012, eq. 5.4).

    Used by the bootstrap intervals of :func:`stablefs.evaluation.bootstrap_pair_interval`.

    Parameters
    ----------
    name : str
        One of :func:`available_measures`.
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        The m selection results.
    n_features : int, optional
        p; required for index collections.
    X : array of shape (n_samples, p), optional
        For the correlation-aware measures.
    random_state : int or None
        Seed of the Monte-Carlo parts.
    feature_names : sequence of str, optional
        As in :func:`measure_interval`.

    Returns
    -------
    PairScores or None
        A :class:`~stablefs.stability._common.PairScores` (``values``, the pairs ``i`` and
        ``j``; its ``mean`` is the measure) for the measures of kind ``pairwise`` and
        ``correlated-pairwise``; None for Nogueira's estimator and the whole-system
        measures, which are not means over pairs.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, eq. 5.4.

    Examples
    --------
    >>> from stablefs.stability import measure_pair_scores
    >>> scores = measure_pair_scores("jaccard", [[0, 1, 2], [0, 1, 3], [4, 5, 6]])
    >>> scores.values.round(3).tolist(), round(scores.mean, 3)
    ([0.5, 0.0, 0.0], 0.167)
    >>> measure_pair_scores("nogueira", [[0, 1], [0, 2]], n_features=5) is None
    True
    """
    if name not in MEASURES:
        raise _unknown(name)
    subsets, n_features, _ = named(subsets, n_features, feature_names, X=X)
    kind = MEASURES[name].kind
    if kind == "pairwise":
        return sub.pair_scores(name, subsets, n_features)
    if kind == "correlated-pairwise":
        return _correlated_scores(name, subsets, n_features, X, random_state)
    return None


def _with_p(subsets, n_features, X):
    """n_features for the correlated measures: explicit, else X's column count."""
    if n_features is None and X is not None and np.ndim(X) == 2:
        return int(np.shape(X)[1])
    return n_features


def _correlated_scores(name, subsets, n_features, X, random_state):
    data = as_subsets(subsets, _with_p(subsets, n_features, X), min_subsets=2)
    if name == "npogr":
        scores, _ = correlated._npogr_pairs(data, X, fdr=0.001, n_pairs=10000,
                                            random_state=random_state)
        return scores
    if name == "zucknick":
        return correlated._zucknick_pairs(data, X)
    return correlated._intersection_pairs(data, X, random_state=random_state)


def _system_interval(name, subsets, n_features, X, random_state, alpha, interval):
    meas = MEASURES[name]
    needs_p = name in ("somol",) or meas.needs_X
    data = as_subsets(subsets, _with_p(subsets, n_features, X), require_p=needs_p,
                      min_subsets=2)
    if name == "sechidis":
        data, Xc = correlated._prepare(data, X, None)
        XT = correlated.standardized_columns(Xc)
        mu = correlated._mean_offdiag_similarity(XT, 0.9, 100_000,
                                                 np.random.default_rng(random_state))

        def stat(d):
            return correlated._sechidis_value(d, XT, 0.9, mu)
    else:
        stat = _SYSTEM_STATS[name]
    est = stat(data)
    if not interval:
        return est, np.nan, np.nan
    var = jackknife_variance(lambda rows: stat(data.subset(rows)), data.m)
    low, high = student_interval(est, var, data.m, alpha, measure_bounds(name, data.m))
    return est, low, high


_SYSTEM_STATS = {
    "somol": somol._somol_cw_rel,
    "somol_c": somol._somol_c,
    "somol_cw": somol._somol_cw,
    "krizek": somol._krizek,
    "davis": somol._davis,
    "novovicova": somol._novovicova,
}
