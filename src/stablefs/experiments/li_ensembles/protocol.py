"""Li, Huang, Chen and Si 2013, sec. 4: stability and the stability-accuracy trade-off of the
L2-regularised logistic ensembles WEn and REn (``stablefs reproduce li-ensembles``).

The experiment (Li et al. 2013, secs. 4.1-4.3, Figs. 1-3; no numbers are printed, so the
claims are the orderings of sec. 4.3):

* **Data**: Sonar and Ionosphere (the UCI files of ``../shared/datasets/uci``), Colon and Lung
  from the project's registry. Lung here is Gordon et al.'s 181 x 12533 (two classes); the
  paper's is Bhattacharjee et al.'s 203 x 12600. Musk and Arcene are not available and are
  left out.
* **Methods**: L2LW, the L2-regularised logistic loss on one-neighbour Manhattan margin vectors
  (eq. 1, gamma = 1, :class:`~stablefs.selectors.LogisticMarginWeighting`); its subsampling
  ensembles WEn (mean weight vector, sec. 2.2) and REn (rank sum, sec. 4) of ``m`` members on
  subsamples of 90 % drawn without replacement (``wen-``/``ren-logistic-margin``);
  En-Relief (Saeys et al. 2008): a bootstrap ensemble of ReliefF (K = 10), rank sum
  (``en-relieff``); and, for the paper's VR-Lmba (Han and Yu's margin-based instance
  weighting followed by Li and Lu's Lmba, which the paper does not specify), instance-weighted
  L2LW: margin-based instance weights (Han 2012, Alg. 1, eqs. 4.2 and 4.6) around the same
  base weighting (``iw-logistic-margin``). Plain L2LW (one fit) is drawn as a reference.
* **E3.1, stability vs m** (sec. 4.1, Fig. 1): per data set, 10 random subsamples of 90 %
  without replacement; every method on each; stability = the mean Spearman rank correlation
  of the full rankings over the 45 pairs, for m = 5, 10, 20, 30, 40, 50 (the paper does not
  give its grid). The 50 members are fitted once per subsample and the ensemble of size m is
  aggregated from the first m of them (:func:`prefix_ranking`): a member depends only on its
  own position's random stream, so this equals a separate fit of m members. WEn and REn share
  their members (the same subsamples and fits, aggregated two ways).
* **E3.2, stability-accuracy trade-off** (sec. 4.2, Figs. 2-3): m = 20, one stratified 10-fold
  CV; stability = mean Spearman of the full rankings of the 10 training folds (45 pairs);
  accuracy = held-out accuracy of a linear SVM (C = 1) and of 3NN (features min-max scaled on
  the training part) on the top k features, pooled over the folds, for k = 10, 20, ..., 100
  (only k below the number of features: Sonar 10-50, Ionosphere 10-30);
  F = 2 stability accuracy / (stability + accuracy) (Saeys et al. 2008).

Every (data set, subsample) and (data set, fold) is one unit with its own random stream.
Verdicts use a percentile bootstrap over the subsamples (E3.1) or the folds (E3.2); the pairs
of a Spearman mean follow their two results (:func:`~stablefs.experiments._stats.pair_mean_boot`),
and every comparison is paired (all methods see the same subsamples and folds).

This module holds the protocol (configuration, unit, tables, claims); the figures, notes and
published numbers are in :mod:`.li_ensembles_report`.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from stablefs._errors import StablefsError
from stablefs.experiments._analysis import Analysis, Stopwatch
from stablefs.experiments._base import (
    Claim,
    Experiment,
    Outcome,
    check_classifiers,
    check_datasets,
    check_grid,
    check_real,
    check_whole,
    estimate_wall,
    load_dataset,
)
from stablefs.experiments._claims import Cells, coverage, on_substitute
from stablefs.experiments._montecarlo import (
    draw_state,
    run_units,
    stratified_fold_labels,
    top_k_scores,
    unit_seed,
)
from stablefs.experiments._stats import (
    MARGINS,
    MIN_RUNS,
    better_rule,
    bootstrap_counts,
    pair_mean_boot,
    t_interval,
    verdict_at_least,
    verdict_positive,
)

__all__ = ["LiEnsemblesProtocol", "LiEnsemblesConfig", "prefix_ranking", "spearman_pairs"]

DATASETS = ("sonar", "ionosphere", "colon", "lung")
PAPER_LABEL = {"sonar": "Sonar", "ionosphere": "Ionosphere", "colon": "Colon", "lung": "Lung"}
#: method string -> label in tables and figures
METHODS = {"ren-logistic-margin": "REn", "wen-logistic-margin": "WEn",
           "en-relieff": "En-Relief", "iw-logistic-margin": "IW-L2LW (for VR-Lmba)",
           "logistic-margin": "L2LW (one fit)"}
REN, WEN, ENR, IWL, L2LW = METHODS
#: methods whose result depends on the ensemble size m
ENSEMBLES = (REN, WEN, ENR)
CLASSIFIER_LABEL = {"svm": "SVM", "3nn": "3NN", "1nn": "1NN", "lda": "LDA"}
#: samples, features and smallest class of the data sets (checks without loading them)
_N_SAMPLES = {"sonar": 208, "ionosphere": 351, "colon": 62, "lung": 181}
_N_FEATURES = {"sonar": 60, "ionosphere": 34, "colon": 2000, "lung": 12533}
_SMALLEST_CLASS = {"sonar": 97, "ionosphere": 126, "colon": 22, "lung": 31}
#: the paper's data sets (sec. 4): samples x features
PAPER_SETS = {"Sonar": "208 x 60", "Ionosphere": "351 x 34", "Colon": "62 x 2000",
              "Lung": "203 x 12600", "Arcene": "200 x 10000", "Musk": "476 x 166 or 6598 x 166"}
#: study numbers in the units' random-stream keys
_STAB, _CV, _DRAWS, _FOLDS, _BOOT = 1, 2, 3, 4, 9


@dataclass(frozen=True)
class LiEnsemblesConfig:
    """Settings of ``li-ensembles``; the defaults are the paper's (Li et al. 2013, sec. 4)
    where it gives them, and the recommended readings where it does not.

    Attributes
    ----------
    datasets : tuple of str
        Sonar, Ionosphere, Colon, Lung (Musk and Arcene are not available).
    n_subsamples : int
        Subsamples per data set for E3.1 (10, sec. 4.1).
    fraction : float
        Their size, as a fraction of the samples (0.9; rounded down).
    ensemble_sizes : tuple of int
        The ensemble sizes m of Fig. 1 (not stated; 5, 10, 20, 30, 40, 50).
    member_fraction : float
        The paper's alpha: each member's subsample, as a fraction of its training set (0.9).
    gamma : float
        Regularisation of eq. 1 (1).
    cv_folds : int
        Folds of the cross-validation of E3.2 (10).
    cv_ensemble_size : int
        m in E3.2 (20).
    cv_sizes : tuple of int
        Numbers of top features k at which accuracy and F are measured (not stated; 10, 20,
        ..., 100; only those below a data set's number of features are used).
    classifiers : tuple of str
        ``svm`` (linear, C = 1) and ``3nn``.
    similar : float
        "Higher or similar": a difference counts as similar when its bootstrap interval lies
        at or above ``-similar`` (0.02, on the Spearman and F scales, fixed before the run).
    n_bootstrap, alpha : int, float
        Bootstrap resamples and the level of the intervals behind the verdicts.
    """

    datasets: tuple = DATASETS
    n_subsamples: int = 10
    fraction: float = 0.9
    ensemble_sizes: tuple = (5, 10, 20, 30, 40, 50)
    member_fraction: float = 0.9
    gamma: float = 1.0
    cv_folds: int = 10
    cv_ensemble_size: int = 20
    cv_sizes: tuple = (10, 20, 30, 40, 50, 60, 70, 80, 90, 100)
    classifiers: tuple = ("svm", "3nn")
    similar: float = 0.02
    n_bootstrap: int = 2000
    alpha: float = 0.05


# ------------------------------------------------------------------------ helpers


def spearman_pairs(rankings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Spearman's rank correlation of every pair of rankings (Li et al. 2013, sec. 4.1).

    The stability of sec. 4.1 is the mean of these values over the pairs (Saeys et al. 2008);
    the values themselves are kept so that a bootstrap over the rankings can resample the
    pairs with them (:func:`~stablefs.experiments._stats.pair_mean_boot`).

    Parameters
    ----------
    rankings : array-like of shape (m, p)
        One ranking per row (1 = best); ties are given their average rank.

    Returns
    -------
    values : ndarray of shape (m (m - 1) / 2,)
        Pearson correlation of the (tie-averaged) ranks of rows ``i[t]`` and ``j[t]``, which
        for permutations is ``1 - 6 sum_f (r_f - r'_f)^2 / (p (p^2 - 1))``.
    i, j : ndarray of shape (m (m - 1) / 2,)
        The pairs ``i < j``, in the order of :func:`numpy.triu_indices`.
    """
    from scipy import stats

    R = stats.rankdata(np.asarray(rankings, dtype=float), axis=1)
    if R.ndim != 2 or R.shape[0] < 2 or R.shape[1] < 2:
        raise StablefsError("spearman_pairs needs at least two rankings of at least two "
                            "features.")
    C = R - R.mean(axis=1, keepdims=True)
    norm = np.sqrt(np.einsum("ij,ij->i", C, C))
    if np.any(norm == 0):
        raise StablefsError("a ranking with every feature tied has no rank correlation.")
    U = C / norm[:, None]
    i, j = np.triu_indices(R.shape[0], 1)
    values = np.clip(np.einsum("tp,tp->t", U[i], U[j]), -1.0, 1.0)
    return values, i, j


def prefix_ranking(ensemble, m: int, aggregate: str) -> tuple[np.ndarray, np.ndarray]:
    """Scores and ranking of the ensemble of the first ``m`` members of a fitted
    :class:`~stablefs.stabilizers.Ensemble`.

    The members of an ensemble drawn with an integer ``random_state`` come from
    ``SeedSequence(random_state).spawn(n_estimators)``, whose t-th child does not depend on
    ``n_estimators``; so the first ``m`` members of a large ensemble are the members of an
    ensemble of ``m``, and their aggregate is that ensemble's result (WEn, Li et al. 2013
    sec. 2.2: mean weight vector; REn, sec. 4: rank sum, best rank 1), computed as
    :class:`~stablefs.stabilizers.Ensemble` computes it.

    Parameters
    ----------
    ensemble : fitted Ensemble
        With ``member_scores_`` and ``member_rankings_`` (``normalize=False``).
    m : int
        1 <= m <= the number of members.
    aggregate : {"weight", "rank"}

    Returns
    -------
    scores : ndarray of shape (n_features,)
    ranking : ndarray of shape (n_features,)
    """
    from stablefs._validation import rank_from_scores

    total = ensemble.member_scores_.shape[0]
    if not 1 <= m <= total:
        raise StablefsError(f"m = {m}: the ensemble has {total} members.")
    if aggregate == "rank":
        scores = -ensemble.member_rankings_[:m].sum(axis=0).astype(float)
    elif aggregate == "weight":
        scores = ensemble.member_scores_[:m].mean(axis=0)
    else:
        raise StablefsError(f"aggregate = {aggregate!r}: use 'weight' or 'rank'.")
    return scores, rank_from_scores(scores)


def _f_measure(stability, accuracy):
    """``2 s a / (s + a)`` (Li et al. 2013, sec. 4.2), elementwise, NaN passed through; a
    negative stability (worse than chance) counts as 0, where the harmonic mean is 0."""
    s = np.maximum(np.asarray(stability, dtype=float), 0.0)
    a = np.asarray(accuracy, dtype=float)
    tot = s + a
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, 2.0 * s * a / tot, 0.0)


def _subsample(n: int, fraction: float, seed: int, d: int, s: int) -> np.ndarray:
    """Subsample ``s`` of E3.1: ``floor(fraction n)`` samples drawn at random without
    replacement (not stratified, as the paper says), sorted."""
    rng = np.random.default_rng(unit_seed(seed, _DRAWS, d, s))
    size = int(np.floor(fraction * n))
    return np.sort(rng.choice(n, size=size, replace=False))


def _cv_folds(y: np.ndarray, n_folds: int, seed: int, d: int) -> np.ndarray:
    """Fold of every sample in the stratified ``n_folds``-fold CV of data set ``d``."""
    return stratified_fold_labels(y, n_folds, unit_seed(seed, _FOLDS, d))


def _sizes_for(cv_sizes, p: int) -> list[int]:
    """The k of ``cv_sizes`` that a data set of ``p`` features allows (k < p)."""
    return [k for k in cv_sizes if k < p]


def _unit(key, *, cfg: dict, seed: int, data: dict) -> dict[str, np.ndarray]:
    """One training set: every method fitted, its full rankings kept (one row per ensemble
    size); for a CV fold also the held-out accuracy on the top k features."""
    from stablefs._runtime.threads import limit_threads
    from stablefs.methods import make_selector

    study, d = key[0], key[1]
    name = cfg["datasets"][d]
    X, y = data[name]
    if study == _STAB:
        train = _subsample(y.size, cfg["fraction"], seed, d, key[2])
        sizes = tuple(cfg["ensemble_sizes"])
    else:
        fold = _cv_folds(y, cfg["cv_folds"], seed, d)
        train = np.flatnonzero(fold != key[2])
        sizes = (cfg["cv_ensemble_size"],)
    rng = np.random.default_rng(unit_seed(seed, *key))
    Xtr, ytr = X[train], y[train]
    members = max(sizes)
    out: dict[str, np.ndarray] = {"train": train.astype(np.int32)}
    rankings: dict[str, np.ndarray] = {}
    with limit_threads(1):
        # WEn and REn: one set of members (the same subsamples and fits), two aggregations
        state = draw_state(rng)
        ens = make_selector(WEN, n_estimators=members, fraction=cfg["member_fraction"],
                            gamma=cfg["gamma"], random_state=state)
        start = time.process_time()
        ens.fit(Xtr, ytr)
        out["ensemble-l2lw:time"] = np.array(time.process_time() - start)
        rankings[WEN] = np.stack([prefix_ranking(ens, m, "weight")[1] for m in sizes])
        rankings[REN] = np.stack([prefix_ranking(ens, m, "rank")[1] for m in sizes])
        state = draw_state(rng)
        ens = make_selector(ENR, n_estimators=members, random_state=state)
        start = time.process_time()
        ens.fit(Xtr, ytr)
        out[f"{ENR}:time"] = np.array(time.process_time() - start)
        rankings[ENR] = np.stack([prefix_ranking(ens, m, "rank")[1] for m in sizes])
        for spec in (IWL, L2LW):
            state = draw_state(rng)  # drawn for every method: stable streams
            selector = make_selector(spec, gamma=cfg["gamma"], random_state=state)
            start = time.process_time()
            selector.fit(Xtr, ytr)
            out[f"{spec}:time"] = np.array(time.process_time() - start)
            rankings[spec] = np.asarray(selector.ranking_)[None, :]
        for spec, r in rankings.items():
            out[f"{spec}:ranking"] = r.astype(np.int32)
        if study == _CV:
            test = fold == key[2]
            ks = _sizes_for(cfg["cv_sizes"], X.shape[1])
            out["n_test"] = np.array(int(test.sum()))
            for spec, r in rankings.items():
                order = np.argsort(r[0], kind="stable")[: max(ks)]
                acc = top_k_scores(Xtr, ytr, X[test], y[test], order, ks, cfg["classifiers"])
                out[f"{spec}:correct"] = np.round(acc * test.sum())
    return out


# ------------------------------------------------------------------------ the experiment


class LiEnsemblesProtocol(Experiment):
    """Li et al. 2013, sec. 4: WEn and REn against En-Relief and instance weighting."""

    name = "li-ensembles"
    title = "L2-regularised logistic ensembles WEn and REn: stability and trade-off"
    citation = "Li et al. 2013, sec. 4"
    description = (
        "Li, Huang, Chen and Si (2013) weight features by an L2-regularised logistic loss on "
        "nearest-hit/miss margin vectors and average m such weightings over 90 % subsamples, "
        "by weight (WEn) or by rank (REn). On Sonar, Ionosphere, Colon and Lung the "
        "experiment measures the Spearman stability over 10 subsamples against m (Fig. 1) "
        "and the stability-accuracy F-measure of SVM and 3NN under 10-fold CV at m = 20 "
        "(Figs. 2-3), against En-Relief and instance-weighted L2LW (for the paper's VR-Lmba)."
    )
    Config = LiEnsemblesConfig

    def quick_config(self) -> LiEnsemblesConfig:
        return LiEnsemblesConfig(datasets=("sonar", "colon"), n_subsamples=4,
                                 ensemble_sizes=(2, 5), cv_folds=4, cv_ensemble_size=5,
                                 cv_sizes=(10, 30), n_bootstrap=500)

    def check_config(self, config) -> None:
        super().check_config(config)
        c = config
        check_datasets(c.datasets, "sonar,colon", DATASETS,
                       " (the paper's Musk and Arcene are not available)")
        check_whole("n_subsamples", c.n_subsamples, 2)
        check_real("fraction", c.fraction, 0.0, 1.0)
        check_grid("ensemble_sizes", c.ensemble_sizes)
        check_real("member_fraction", c.member_fraction, 0.0, 1.0)
        check_real("gamma", c.gamma, 0.0, float("inf"))
        check_whole("cv_folds", c.cv_folds, 2)
        check_whole("cv_ensemble_size", c.cv_ensemble_size, 1)
        check_grid("cv_sizes", c.cv_sizes)
        check_classifiers(c.classifiers, tuple(CLASSIFIER_LABEL))
        if isinstance(c.similar, bool) or not isinstance(c.similar, int | float) or not (
                0 <= c.similar < 1):
            raise StablefsError(f"similar = {c.similar}: it must be a number in [0, 1).")
        check_whole("n_bootstrap", c.n_bootstrap, 10)
        check_real("alpha", c.alpha, 0.0, 0.5)
        for name in c.datasets:
            if not _sizes_for(c.cv_sizes, _N_FEATURES[name]):
                raise StablefsError(f"cv_sizes: no k below {name}'s {_N_FEATURES[name]} "
                                    "features; add a smaller one.")
            if c.cv_folds > _SMALLEST_CLASS[name]:
                raise StablefsError(f"cv_folds = {c.cv_folds} is more than {name}'s smallest "
                                    f"class ({_SMALLEST_CLASS[name]} samples).")
            n, small = _N_SAMPLES[name], _SMALLEST_CLASS[name]
            if int(np.floor(c.fraction * n)) < n - small + 2:  # subsamples are not stratified
                raise StablefsError(f"fraction = {c.fraction} could leave fewer than 2 samples "
                                    f"of {name}'s smallest class ({small} of {n}); use at least "
                                    f"{(n - small + 2) / n:.2f}.")

    def sizes(self, config) -> str:
        n = len(config.datasets)
        return (f"{n} set{'s' if n != 1 else ''}; {config.n_subsamples} subsamples, m up to "
                f"{max(config.ensemble_sizes)}; {config.cv_folds}-fold CV at m = "
                f"{config.cv_ensemble_size}; 5 methods")

    #: CPU seconds measured on this project's two-core machine (one thread): one L2LW member,
    #: one En-Relief member and IW-L2LW (instance weights and fit) on 90 % of the samples
    _COSTS = {"sonar": (0.009, 0.0042, 0.012), "ionosphere": (0.0084, 0.0074, 0.014),
              "colon": (0.0134, 0.0041, 0.030), "lung": (0.114, 0.059, 0.41)}

    def estimate_seconds(self, config, n_jobs: int = 1) -> float:
        """Calibrated on this project's two-core machine (one thread per unit): per training
        set, one L2LW fit per ensemble member and two more (IW and plain), one En-Relief
        member per member, the instance weights, and about 4 ms per classifier fit."""
        cpu = 0.0
        n_clf = len(config.classifiers)
        for name in config.datasets:
            l2lw, relief, iw = self._COSTS[name]
            m = max(config.ensemble_sizes)
            cpu += config.n_subsamples * (m * (l2lw + relief) + 2 * l2lw + iw)
            m = config.cv_ensemble_size
            ks = len(_sizes_for(config.cv_sizes, _N_FEATURES[name]))
            cpu += config.cv_folds * (m * (l2lw + relief) + 2 * l2lw + iw
                                      + 0.004 * 5 * ks * n_clf)
        return estimate_wall(cpu, n_jobs, 8.0)

    def run(self, config: LiEnsemblesConfig, *, seed: int, n_jobs: int = 1,
            progress: bool = False, cache=None) -> Outcome:

        cfg = dataclasses.asdict(config)
        clock = Stopwatch()
        with clock("load"):
            data = {name: load_dataset(name) for name in config.datasets}
        n_sets = len(config.datasets)
        keys = [(_STAB, d, s) for d in range(n_sets) for s in range(config.n_subsamples)]
        keys += [(_CV, d, f) for d in range(n_sets) for f in range(config.cv_folds)]
        with clock("fits"):
            results = run_units(_unit, keys, study="units",
                                common={"cfg": cfg, "seed": seed, "data": data},
                                n_jobs=n_jobs, progress=progress, cache=cache,
                                desc="training sets")
        with clock("analysis"):
            by_key = dict(zip(keys, results, strict=True))
            outcome = self.report_type(config, data, by_key, seed).outcome()
        outcome.timings = clock.timings
        return outcome


# ------------------------------------------------------------------------ analysis


def _on_substitute(claim: Claim, other: str) -> Claim:
    """A claim about VR-Lmba, judged here on IW-L2LW (VR-Lmba's code is not public): its
    verdict is "not testable"; what the substitute gets is kept in the test column."""
    return on_substitute(claim, "IW-L2LW for VR-Lmba") if other == IWL else claim


class _Analysis(Analysis):
    """Tables and claims from the units' results (the figures, notes and published numbers:
    :class:`~stablefs.experiments.li_ensembles.report.LiEnsemblesReport`)."""

    def __init__(self, config: LiEnsemblesConfig, data: dict, by_key: dict, seed: int):
        c = config
        self.c = config
        self.names = list(config.datasets)
        self.rng = np.random.default_rng(unit_seed(seed, _BOOT))
        self.counts_sub = bootstrap_counts(self.rng, c.n_subsamples, c.n_bootstrap)
        self.counts_cv = bootstrap_counts(self.rng, c.cv_folds, c.n_bootstrap)
        self.p = {name: data[name][0].shape[1] for name in self.names}
        self.n = {name: data[name][0].shape[0] for name in self.names}
        # E3.1: Spearman pairs per (set, method, m)
        self.pairs: dict[tuple[str, str, int], tuple] = {}
        rows, times = [], []
        for d, name in enumerate(self.names):
            units = [by_key[(_STAB, d, s)] for s in range(c.n_subsamples)]
            for spec in METHODS:
                R = np.stack([u[f"{spec}:ranking"] for u in units])  # (sets, sizes or 1, p)
                for a, m in enumerate(c.ensemble_sizes):
                    row = a if spec in ENSEMBLES else 0
                    vals, i, j = spearman_pairs(R[:, row])
                    self.pairs[(name, spec, m)] = (vals, i, j)
                    lo, hi = t_interval(pair_mean_boot(vals, i, j, self.counts_sub),
                                        c.n_subsamples, c.alpha, float(vals.mean()),
                                        bounds=(-1.0, 1.0))  # Spearman's range
                    rows.append((name, METHODS[spec], spec, m, float(vals.mean()), lo, hi,
                                 float(vals.std(ddof=1)) if vals.size > 1 else np.nan))
            for what in ("ensemble-l2lw", ENR, IWL, L2LW):
                t = [float(u[f"{what}:time"]) for u in units]
                label = (f"L2LW members of WEn and REn (m = {max(c.ensemble_sizes)})"
                         if what == "ensemble-l2lw" else
                         f"En-Relief (m = {max(c.ensemble_sizes)})" if what == ENR
                         else METHODS[what])
                times.append((name, label, float(np.mean(t)), float(np.median(t))))
        self.stability = pd.DataFrame(rows, columns=["dataset", "method", "spec", "m",
                                                     "spearman", "low", "high", "sd_pairs"])
        self.times = pd.DataFrame(times, columns=["dataset", "what", "mean_cpu_s",
                                                  "median_cpu_s"])
        # E3.2: stability over the folds, pooled accuracy, F
        self.cv_pairs: dict[tuple[str, str], tuple] = {}
        self.cv_acc: dict[tuple[str, str, str, int], tuple] = {}
        rows = []
        self.negative_stability = []
        for d, name in enumerate(self.names):
            units = [by_key[(_CV, d, f)] for f in range(c.cv_folds)]
            n_test = np.array([float(u["n_test"]) for u in units])
            ks = _sizes_for(c.cv_sizes, self.p[name])
            for spec in METHODS:
                R = np.stack([u[f"{spec}:ranking"][0] for u in units])
                vals, i, j = spearman_pairs(R)
                self.cv_pairs[(name, spec)] = (vals, i, j)
                stab = float(vals.mean())
                if stab < 0:
                    self.negative_stability.append(f"{PAPER_LABEL[name]} {METHODS[spec]}")
                correct = np.stack([u[f"{spec}:correct"] for u in units])  # (folds, ks, clf)
                for b, clf in enumerate(c.classifiers):
                    for a, k in enumerate(ks):
                        cor = correct[:, a, b]
                        self.cv_acc[(name, spec, clf, k)] = (cor, n_test)
                        acc = float(cor.sum() / n_test.sum())
                        f_boot = self._f_boot(name, spec, clf, k)
                        lo, hi = t_interval(f_boot, c.cv_folds, c.alpha)
                        rows.append((name, METHODS[spec], spec, CLASSIFIER_LABEL[clf], clf, k,
                                     stab, acc, float(_f_measure(stab, acc)), lo, hi))
        self.tradeoff = pd.DataFrame(rows, columns=[
            "dataset", "method", "spec", "classifier", "clf", "k", "stability", "accuracy",
            "F", "F_low", "F_high"])

    # -- bootstrap replicates --------------------------------------------------------------
    def _stab_boot(self, name, spec, m):
        vals, i, j = self.pairs[(name, spec, m)]
        return pair_mean_boot(vals, i, j, self.counts_sub)

    def _f_boot(self, name, spec, clf, k):
        vals, i, j = self.cv_pairs[(name, spec)]
        stab = pair_mean_boot(vals, i, j, self.counts_cv)
        cor, n_test = self.cv_acc[(name, spec, clf, k)]
        acc = (self.counts_cv @ cor) / (self.counts_cv @ n_test)
        return _f_measure(stab, acc)

    # -- claims ---------------------------------------------------------------------------
    def _stability_claim(self, cid, better, worse, strict) -> Claim:
        c = self.c
        cells, worst, failures = Cells(), {}, []
        for name in self.names:
            for m in c.ensemble_sizes:
                va, i, j = self.pairs[(name, better, m)]
                vb = self.pairs[(name, worse, m)][0]
                diff = va - vb
                boot = pair_mean_boot(diff, i, j, self.counts_sub)
                est = float(diff.mean())
                v, lo, hi = cells.add(
                    verdict_positive(boot, c.alpha, runs=c.n_subsamples,
                                     margin=MARGINS["similarity"], estimate=est)
                    if strict else
                    verdict_at_least(boot, -c.similar, c.alpha, runs=c.n_subsamples,
                                     estimate=est))
                self.comparisons.append((cid, PAPER_LABEL[name], m, "", np.nan, est, lo, hi, v))
                if name not in worst or est < worst[name][0]:
                    worst[name] = (est, m, lo, hi)
                if v != "holds":
                    failures.append(f"{PAPER_LABEL[name]} m = {m}: {est:+.3f} "
                                    f"[{lo:+.3f}, {hi:+.3f}] {v}")
        a, b = METHODS[better], METHODS[worse]
        lowest = "; ".join(f"{PAPER_LABEL[n]} {w[0]:+.3f} at m = {w[1]} [{w[2]:+.3f}, "
                           f"{w[3]:+.3f}]" for n, w in worst.items())
        ours = f"{a} - {b}, (set, m) {cells.counted()}. Smallest difference per set: {lowest}"
        if failures and len(failures) <= 8:
            ours += ". Not holding: " + "; ".join(failures)
        elif failures:
            ours += f". Not holding at {len(failures)} (set, m): see tables/comparisons.csv"
        level = coverage(c.alpha)
        if strict:
            pairs = c.n_subsamples * (c.n_subsamples - 1) // 2
            test = (f"per data set and m, the mean Spearman difference over the {pairs} pairs "
                    f"of the {c.n_subsamples} subsamples (paired); "
                    + better_rule(MARGINS["similarity"], c.n_subsamples, c.alpha)
                    + "; the claim holds if it holds for every set and m, does not hold if it "
                    "fails once")
        else:
            test = (f"per data set and m, the paired mean Spearman difference; {level} "
                    f"t-interval (bootstrap standard error) over the subsamples at or above "
                    f"-{c.similar:g} (similar or higher): holds, entirely below "
                    f"-{c.similar:g}: does not hold; fewer than {MIN_RUNS} subsamples: too few "
                    "runs; the claim holds if it holds for every set and m")
        return Claim(cid, "", test, ours, cells.verdict, "tables/comparisons.csv, "
                     "tables/stability.csv, figures/fig1_stability")

    def _tradeoff_claim(self, cid, other) -> Claim:
        c = self.c
        cells, parts, failures = Cells(), [], []
        row = self.tradeoff.set_index(["spec", "clf", "k", "dataset"])
        for name in self.names:
            for clf in c.classifiers:
                ests = []
                for k in _sizes_for(c.cv_sizes, self.p[name]):
                    f = {s: self._f_boot(name, s, clf, k) for s in (REN, WEN, other)}
                    point = {s: float(row.loc[(s, clf, k, name), "F"]) for s in f}
                    best = np.fmax(f[REN], f[WEN])
                    diff = best - f[other]
                    est = max(point[REN], point[WEN]) - point[other]
                    v, lo, hi = cells.add(verdict_at_least(diff, -c.similar, c.alpha,
                                                           runs=c.cv_folds, estimate=est))
                    ests.append(est)
                    self.comparisons.append((cid, PAPER_LABEL[name], c.cv_ensemble_size,
                                             CLASSIFIER_LABEL[clf], k, est, lo, hi, v))
                    if v != "holds":
                        failures.append(f"{PAPER_LABEL[name]} {CLASSIFIER_LABEL[clf]} k = {k}: "
                                        f"{est:+.3f} [{lo:+.3f}, {hi:+.3f}] {v}")
                parts.append(f"{PAPER_LABEL[name]} {CLASSIFIER_LABEL[clf]} {min(ests):+.3f} "
                             f"to {max(ests):+.3f}")
        ours = (f"max(F REn, F WEn) - F {METHODS[other]}, (set, classifier, k) "
                f"{cells.counted()}. Range per set and classifier: " + "; ".join(parts))
        if failures and len(failures) <= 8:
            ours += ". Not holding: " + "; ".join(failures)
        elif failures:
            ours += (f". Not holding at {len(failures)} (set, classifier, k): see "
                     "tables/comparisons.csv")
        test = (f"per data set, classifier and k, max(F(REn), F(WEn)) - F(other) with F from "
                f"the Spearman stability of the {c.cv_folds} training folds and the pooled "
                f"held-out accuracy; {coverage(c.alpha)} t-interval (bootstrap standard "
                f"error) over the folds at or above -{c.similar:g}: holds, entirely below: does "
                f"not hold; fewer than {MIN_RUNS} folds: too few runs; the claim holds if it "
                "holds for every set, classifier and k")
        return Claim(cid, "", test, ours, cells.verdict,
                     "tables/comparisons.csv, tables/tradeoff.csv, figures/fig2_3_fmeasure_*")

    def claims(self) -> list[Claim]:
        self.comparisons: list[tuple] = []
        sub = "IW-L2LW (margin instance weighting around the same base weighting)"
        specs = [
            ("1a", REN, WEN, True, "REn is more stable than WEn for every m and data set: "
             "'the stability value of rank-based ensemble-REn is the highest among all' "
             "(Li et al. 2013, sec. 4.3, Fig. 1)."),
            ("1b", REN, ENR, True, "REn is more stable than En-Relief for every m and data set "
             "(sec. 4.3, Fig. 1)."),
            ("1c", REN, IWL, True, f"REn is more stable than VR-Lmba, here {sub}, for every m "
             "and data set (sec. 4.3, Fig. 1)."),
            ("2a", WEN, ENR, False, "'weight-based ensemble-WEn always gets higher or similar "
             "stability to En-Relief' (sec. 4.3, Fig. 1)."),
            ("2b", WEN, IWL, False, f"WEn always gets higher or similar stability to VR-Lmba, "
             f"here {sub} (sec. 4.3, Fig. 1)."),
        ]
        out = []
        for cid, a, b, strict, statement in specs:
            claim = self._stability_claim(cid, a, b, strict)
            out.append(_on_substitute(dataclasses.replace(claim, statement=statement), b))
        for cid, other, statement in (
            ("3a", ENR, "'at least one of our proposed ensemble methods (REn or WEn) always "
             "obtain higher or similar balance between the stability and classification "
             "accuracy' than En-Relief: F-measure, SVM and 3NN (sec. 4.3, Figs. 2-3)."),
            ("3b", IWL, f"The same against VR-Lmba, here {sub} (sec. 4.3, Figs. 2-3)."),
        ):
            claim = self._tradeoff_claim(cid, other)
            out.append(_on_substitute(dataclasses.replace(claim, statement=statement), other))
        return out

    def tables(self) -> dict[str, pd.DataFrame]:
        comparisons = pd.DataFrame(self.comparisons, columns=[
            "claim", "dataset", "m", "classifier", "k", "difference", "low", "high", "verdict"])
        return {"stability": self.stability.drop(columns="spec"),
                "tradeoff": self.tradeoff.drop(columns=["spec", "clf"]),
                "comparisons": comparisons, "times": self.times}
