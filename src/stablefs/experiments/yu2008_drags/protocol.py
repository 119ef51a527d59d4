"""Yu, Ding and Loscalzo 2008, sec. 6: dense feature groups on six microarray sets
(``stablefs reproduce yu2008-drags``).

The experiment (Yu, Ding and Loscalzo 2008, sec. 6.1-6.3):

* **Data**: Colon, Leukemia, Lung, Prostate, SRBCT and, in place of the paper's Lymphoma
  (Alizadeh, 4026 genes, 3 classes; not available), DLBCL (Shipp, 7129 genes, 2 classes), from
  the project's registry (:func:`stablefs.datasets.load`), values as stored. Prostate here has
  12600 probes (the paper: 6034).
* **Protocol** (sec. 6.1): each set is split at random into 3 folds, 10 times (stratified by
  class); every method runs on each 2-fold training part (30 in all) and on the full data (the
  reference R). Features are standardised on the data each method sees.
* **Methods**: DGF (:class:`~stablefs.selectors.DGF`, Alg. 1, K = 5), DRAGS
  (:class:`~stablefs.selectors.DRAGS`, Alg. 2, mean F-statistic), K-means over features
  (:class:`~stablefs.selectors.KMeansGroups`, 50 restarts, lowest WSS) with K = k for Fig. 2
  and K = 100 for Table 2 and Fig. 3, and SVM-RFE (:class:`~stablefs.selectors.SVMRFE` with
  ``step="halve"``: halve down to 50 features, then one at a time).
* **Fig. 2** (sec. 6.2): stability of the top k dense groups of DGF (k = 4, 6, ..., 50) and of
  the K clusters of K-means, Sim^M_V and Sim^M_ID against the full-data result (eqs. 5-7,
  :func:`stablefs.stability.matching_similarity`).
* **Table 2** (sec. 6.3): accuracy of a linear SVM and of 1NN trained on the k representatives
  (DRAGS, K-means) or the top k features (SVM-RFE), k = 4 ... 50, on the held-out fold: mean
  and sd over the 30 folds.
* **Fig. 3** (sec. 6.3): stability of the top k relevant groups (DRAGS, K-means) or features
  (SVM-RFE) by the same two measures.

Every (data set, partition, fold) is one Monte-Carlo unit with its own random stream; all
methods see the same folds (paired comparisons). Verdicts use a percentile bootstrap over the
10 partitions (the 3 folds of a partition share samples, so the partition is the unit).

This module holds the protocol (configuration, unit, tables, claims); the methods' fits are in
:mod:`.yu2008_drags_fits`, the paper's Table 2 in :mod:`.yu2008_drags_published`, the figures,
notes and published numbers in :mod:`.yu2008_drags_report`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from stablefs._errors import StablefsError
from stablefs.experiments._analysis import Analysis, Stopwatch, mean_sd
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
    load_registry_sets,
)
from stablefs.experiments._claims import Cells, coverage, per_name, size_list
from stablefs.experiments._montecarlo import run_units, stratified_fold_labels, unit_seed
from stablefs.experiments._stats import (
    MARGINS,
    MIN_RUNS,
    better_rule,
    bootstrap_counts,
    mean_boot,
    verdict_at_least,
    verdict_at_most,
    verdict_positive,
    verdict_within,
)
from stablefs.experiments._stats import fmt_fixed as _fmt
from stablefs.experiments.yu2008_drags.fits import fit_methods as _fit_all
from stablefs.experiments.yu2008_drags.fits import top_k_accuracy as _accuracy
from stablefs.experiments.yu2008_drags.fits import unpack_groups as _unpack
from stablefs.experiments.yu2008_drags.published import (
    PAPER_LABEL,
    PAPER_METHOD,
    TABLE2,
    TABLE2_SIZES,
    beside_table2,
    published_table2,
)

__all__ = ["PAPER_LABEL", "PAPER_METHOD", "TABLE2", "TABLE2_SIZES", "Yu2008Config",
           "Yu2008DragsProtocol", "published_table2"]

#: the six data sets, as registry names (their row labels in the paper's Table 2:
#: :data:`~stablefs.experiments.yu2008_drags.published.PAPER_LABEL`)
DATASETS = ("colon", "leukemia", "lung", "prostate", "srbct", "dlbcl")
#: methods of Table 2 and Fig. 3 (key -> label); Fig. 2 compares DGF with K-means
METHODS = {"drags": "DRAGS", "kmeans": "K-means", "rfe": "SVM-RFE"}
CLASSIFIER_LABEL = {"svm": "SVM", "1nn": "1NN"}
#: features of the registry sets (for the time estimate)
_N_FEATURES = {"colon": 2000, "leukemia": 7129, "lung": 12533, "prostate": 12600,
               "srbct": 2308, "dlbcl": 7129}
MEASURES = {"value": "Sim^M_V", "index": "Sim^M_ID"}

#: study numbers in the units' random-stream keys
_FOLD, _REF, _SPLIT, _BOOT = 1, 2, 3, 9

@dataclass(frozen=True)
class Yu2008Config:
    """Settings of ``yu2008-drags``; the defaults are Yu, Ding and Loscalzo 2008's (sec. 6.1).

    Attributes
    ----------
    datasets : tuple of str
        Registry names (or paths) of the data sets; the paper's six, DLBCL for Lymphoma.
    n_partitions, n_folds : int
        Random partitions into folds (10) and folds per partition (3): 30 training parts of
        2/3 of the samples.
    sizes : tuple of int
        k of Table 2 and Fig. 3: groups (DRAGS, K-means) or features (SVM-RFE).
    dgf_sizes : tuple of int
        Top k dense groups of DGF in Fig. 2 (the paper: 4, 6, ..., 50).
    kmeans_sizes : tuple of int
        K of the K-means clusterings in Fig. 2. The paper ran "a wide range of K values" and
        plots K = 4, 6, ..., 50; each K is 31 clusterings with 50 restarts, so the default
        is the grid of Table 2 (``--set kmeans_sizes=4,6,...,50`` for the paper's).
    kmeans_clusters : int
        K of the K-means selection of Table 2 and Fig. 3 (not stated in the paper; 100, twice
        the largest k, see :mod:`stablefs.selectors.kmeans_groups`).
    kmeans_n_init : int
        K-means restarts (50; the lowest within-cluster sum of squares is kept).
    n_neighbors : int
        K of DGF's bandwidth (5).
    kernel : str
        DGF's mean-shift kernel (``"flat"``, or ``"gaussian"`` truncated at h).
    self_neighbor : bool
        A feature is its own first neighbour in DGF's K nearest (the paper's reading, see
        :class:`~stablefs.selectors.DGF`); ``false`` for the other reading.
    classifiers : tuple of str
        Classifiers of Table 2 (linear SVM, C = 1, and 1NN; Weka-like min-max scaling).
    n_bootstrap, alpha : int, float
        Bootstrap resamples of the partitions and 1 - coverage of the intervals.
    near_one, near_zero : float
        "Almost perfect" Sim^M (at least ``near_one``) and "almost zero" (at most
        ``near_zero``).
    id_level : float
        The "more than 70 % of the features match" level of Sim^M_ID (0.7).
    same_margin : float
        "Similar" accuracies: the interval of the difference within +- this many points (%).
    small_k : int
        "Small k" of the accuracy claims (k <= 10).
    """

    datasets: tuple = DATASETS
    n_partitions: int = 10
    n_folds: int = 3
    sizes: tuple = (4, 6, 8, 10, 20, 30, 40, 50)
    dgf_sizes: tuple = tuple(range(4, 51, 2))
    kmeans_sizes: tuple = (4, 6, 8, 10, 20, 30, 40, 50)
    kmeans_clusters: int = 100
    kmeans_n_init: int = 50
    n_neighbors: int = 5
    kernel: str = "flat"
    self_neighbor: bool = True
    classifiers: tuple = ("svm", "1nn")
    n_bootstrap: int = 2000
    alpha: float = 0.05
    near_one: float = 0.9
    near_zero: float = 0.1
    id_level: float = 0.7
    same_margin: float = 3.0
    small_k: int = 10


# ------------------------------------------------------------------------ units


def _folds(y: np.ndarray, n_folds: int, seed: int, d: int, partition: int) -> np.ndarray:
    """Fold of every sample in one random stratified partition."""
    return stratified_fold_labels(y, n_folds, unit_seed(seed, _SPLIT, d, partition))


def _unit(key, *, cfg: dict, seed: int, data: dict) -> dict[str, np.ndarray]:
    """One training part (key ``(_FOLD, d, partition, fold)``) or the full data of data set
    ``d`` (key ``(_REF, d)``): every method fitted, accuracies on the held-out fold."""
    from stablefs._runtime.threads import limit_threads

    study, d = key[0], key[1]
    X, y = data[cfg["datasets"][d]]
    rng = np.random.default_rng(unit_seed(seed, *key))
    with limit_threads(1):
        if study == _REF:
            return _fit_all(X, y, cfg, rng)
        partition, fold = key[2], key[3]
        test = _folds(y, cfg["n_folds"], seed, d, partition) == fold
        out = _fit_all(X[~test], y[~test], cfg, rng)
        for m in METHODS:
            out[f"{m}:accuracy"] = _accuracy(X[~test], y[~test], X[test], y[test],
                                             out[f"{m}:order"], cfg["sizes"],
                                             cfg["classifiers"])
        out["n_train"] = np.array(int((~test).sum()))
    return out


# ------------------------------------------------------------------------ the experiment


class Yu2008DragsProtocol(Experiment):
    """Yu, Ding and Loscalzo 2008, sec. 6: DGF, DRAGS, K-means and SVM-RFE on six sets."""

    name = "yu2008-drags"
    title = "Dense feature groups (DGF, DRAGS) against K-means and SVM-RFE on microarrays"
    citation = "Yu, Ding and Loscalzo 2008, sec. 6"
    description = (
        "Yu, Ding and Loscalzo (2008) find dense groups of correlated genes by mean shift in "
        "sample space (DGF) and select the most relevant groups (DRAGS). On six microarray "
        "sets, 10 random 3-fold partitions, the experiment measures how stable the dense "
        "groups are against the groups found on all samples (Sim^M_V and Sim^M_ID, Fig. 2) "
        "compared with K-means clusters of genes, and compares DRAGS with K-means selection "
        "and SVM-RFE for accuracy (SVM and 1NN on k = 4 to 50 features, Table 2) and "
        "stability (Fig. 3)."
    )
    Config = Yu2008Config

    def quick_config(self) -> Yu2008Config:
        return Yu2008Config(datasets=("colon", "srbct"), n_partitions=3,
                            sizes=(4, 10, 20, 50), dgf_sizes=(4, 10, 20, 30, 40, 50),
                            kmeans_sizes=(4, 10, 30), kmeans_n_init=3, n_bootstrap=500)

    def check_config(self, config) -> None:
        super().check_config(config)
        c = config
        check_datasets(c.datasets, "colon,srbct")
        check_whole("n_partitions", c.n_partitions, 2)
        check_whole("n_folds", c.n_folds, 2)
        check_grid("sizes", c.sizes)
        check_grid("dgf_sizes", c.dgf_sizes)
        check_grid("kmeans_sizes", c.kmeans_sizes, 2)
        check_whole("kmeans_clusters", c.kmeans_clusters, 2)
        check_whole("kmeans_n_init", c.kmeans_n_init, 1)
        check_whole("n_neighbors", c.n_neighbors, 2 if c.self_neighbor else 1)
        check_whole("n_bootstrap", c.n_bootstrap, 10)
        check_whole("small_k", c.small_k, 1)
        if max(c.sizes) >= c.kmeans_clusters:
            raise StablefsError(
                f"kmeans_clusters = {c.kmeans_clusters} must exceed the largest k of sizes "
                f"({max(c.sizes)}): K-means selects k of its K clusters (k < K)."
            )
        if c.kernel not in ("flat", "gaussian"):
            raise StablefsError(f"kernel = {c.kernel!r}: use 'flat' or 'gaussian'.")
        check_classifiers(c.classifiers, tuple(CLASSIFIER_LABEL))
        check_real("alpha", c.alpha, 0.0, 0.5)
        check_real("near_one", c.near_one, 0.0, 1.0)
        check_real("near_zero", c.near_zero, 0.0, 1.0)
        check_real("id_level", c.id_level, 0.0, 1.0)
        check_real("same_margin", c.same_margin, 0.0, 100.0)

    def sizes(self, config) -> str:
        return (f"{len(config.datasets)} sets x {config.n_partitions} partitions x "
                f"{config.n_folds} folds; K-means {config.kmeans_n_init} restarts, "
                f"K = {','.join(map(str, config.kmeans_sizes))} and {config.kmeans_clusters}")

    def estimate_seconds(self, config, n_jobs: int = 1) -> float:
        """Calibrated on this project's two-core machine (one thread per unit): DGF + DRAGS
        ~0.4 s per 1000 features of a 2000-feature set and ~1.4 s per 1000 of a 12,000-feature
        set; K-means ~0.05 s per restart per 1000 features (K <= 100); SVM-RFE and the
        classifiers well under a second."""
        cpu = 0.0
        for name in config.datasets:
            p = _N_FEATURES.get(name, 7000)  # not loaded: listing experiments stays fast
            per = (0.2 + 0.12 * p / 1000) * p / 1000
            per += 0.05 * config.kmeans_n_init * (len(config.kmeans_sizes) + 1) * p / 1000
            cpu += per * (config.n_partitions * config.n_folds + 1)
        return estimate_wall(cpu, n_jobs, 10.0)

    # -- run ------------------------------------------------------------------------------
    def run(self, config: Yu2008Config, *, seed: int, n_jobs: int = 1,
            progress: bool = False, cache=None) -> Outcome:

        cfg = dataclasses.asdict(config)
        clock = Stopwatch()
        with clock("load"):
            data = load_registry_sets(config.datasets)
        keys = [(_REF, d) for d in range(len(config.datasets))]
        keys += [(_FOLD, d, r, f) for d in range(len(config.datasets))
                 for r in range(config.n_partitions) for f in range(config.n_folds)]
        with clock("fits"):
            results = run_units(_unit, keys, study="units",
                                common={"cfg": cfg, "seed": seed, "data": data},
                                n_jobs=n_jobs, progress=progress, cache=cache,
                                desc="data sets x folds")
        with clock("analysis"):
            by_key = dict(zip(keys, results, strict=True))
            rng = np.random.default_rng(unit_seed(seed, _BOOT))
            outcome = self.report_type(config, data, by_key, rng).outcome()
        outcome.timings = clock.timings
        return outcome


# ------------------------------------------------------------------------ analysis


#: the ``ours`` text of a claim whose cells are all outside this run's configuration
_NO_CASES = "no cases in this run"


class _Analysis(Analysis):
    """Tables and claims from the units' results (the figures, notes and published numbers:
    :class:`~stablefs.experiments.yu2008_drags.report.Yu2008Report`)."""

    def __init__(self, config: Yu2008Config, data: dict, by_key: dict, rng):
        from stablefs.stability import matching_similarity

        self.c = config
        self.rng = rng
        self.names = list(config.datasets)
        self.by_key = by_key
        P, Fo = config.n_partitions, config.n_folds
        self.counts = bootstrap_counts(rng, P, config.n_bootstrap)

        def sim(a, b, X, by):
            if not a or not b:
                return np.nan
            return matching_similarity(a, b, X, by=by)

        def km_index(a, b, X):  # all members, or the 5 closest to the centre: the higher
            return max(sim(a, b, X, "index"),
                       sim([g[:5] for g in a], [g[:5] for g in b], X, "index"))

        rows, acc_rows, info = [], [], []
        for d, name in enumerate(self.names):
            X = data[name][0]
            ref = by_key[(_REF, d)]
            info.append({"dataset": name, "n_samples": X.shape[0], "n_features": X.shape[1],
                         "classes": len(np.unique(data[name][1])),
                         "bandwidth_full": float(ref["dgf:bandwidth"]),
                         "dgf_groups_full": int(ref["dgf:n_groups"]),
                         "drags_groups_full": int(ref["drags:n_groups"])})
            refs = {"dgf": _unpack(ref, "dgf"), "drags": _unpack(ref, "drags"),
                    "kmeans": _unpack(ref, "kmeans"), "rfe": _unpack(ref, "rfe")}
            refs.update({f"km{K}": _unpack(ref, f"km{K}") for K in config.kmeans_sizes})
            groups_fold = []
            for r in range(P):
                for f in range(Fo):
                    res = by_key[(_FOLD, d, r, f)]
                    base = {"dataset": name, "partition": r, "fold": f}
                    groups_fold.append(int(res["dgf:n_groups"]))
                    G = _unpack(res, "dgf")
                    for k in config.dgf_sizes:
                        a, b = refs["dgf"][:k], G[:k]
                        for by in MEASURES:
                            rows.append({**base, "figure": "fig2", "method": "DGF", "k": k,
                                         "measure": by, "value": sim(a, b, X, by)})
                    for K in config.kmeans_sizes:
                        a, b = refs[f"km{K}"], _unpack(res, f"km{K}")
                        rows.append({**base, "figure": "fig2", "method": "K-means", "k": K,
                                     "measure": "value", "value": sim(a, b, X, "value")})
                        rows.append({**base, "figure": "fig2", "method": "K-means", "k": K,
                                     "measure": "index", "value": km_index(a, b, X)})
                    for m, label in METHODS.items():
                        mine = _unpack(res, m)
                        for k in config.sizes:
                            a, b = refs[m][:k], mine[:k]
                            rows.append({**base, "figure": "fig3", "method": label, "k": k,
                                         "measure": "value", "value": sim(a, b, X, "value")})
                            idx = (km_index(a, b, X) if m == "kmeans"
                                   else sim(a, b, X, "index"))
                            rows.append({**base, "figure": "fig3", "method": label, "k": k,
                                         "measure": "index", "value": idx})
                        acc = res[f"{m}:accuracy"]
                        for i, k in enumerate(config.sizes):
                            for j, clf in enumerate(config.classifiers):
                                acc_rows.append({**base, "method": label,
                                                 "classifier": CLASSIFIER_LABEL[clf], "k": k,
                                                 "accuracy": 100 * float(acc[i, j])})
            info[-1]["dgf_groups_folds_min"] = int(min(groups_fold))
            info[-1]["dgf_groups_folds_median"] = float(np.median(groups_fold))
        self.stab = pd.DataFrame(rows)
        self.acc = pd.DataFrame(acc_rows)
        self.info = pd.DataFrame(info)
        self.majority = {name: 100 * float(np.max(np.unique(data[name][1],
                                                             return_counts=True)[1]))
                         / len(data[name][1]) for name in self.names}
        self.stab_summary = mean_sd(self.stab, ["dataset", "figure", "method", "measure", "k"],
                                    "value", count=True)
        self.stab_summary["measure"] = self.stab_summary["measure"].map(MEASURES)
        self.acc_summary = mean_sd(self.acc, ["dataset", "classifier", "method", "k"],
                                   "accuracy", count=True)
        self.signature = self._signature(data)

    # -- helpers --------------------------------------------------------------------------
    def _per_partition(self, frame: pd.DataFrame, column: str) -> np.ndarray:
        """Mean of ``column`` within each partition (the bootstrap unit), in order."""
        s = frame.groupby("partition")[column].mean()
        return s.reindex(range(self.c.n_partitions)).to_numpy(dtype=float)

    def _boot(self, values: np.ndarray) -> np.ndarray:
        return mean_boot(values, self.counts)

    def _stab(self, name, figure, method, measure, k) -> pd.DataFrame:
        s = self.stab
        return s[(s.dataset == name) & (s.figure == figure) & (s.method == method)
                 & (s.measure == measure) & (s.k == k)]

    def _stab_boot(self, name, figure, method, measure, k) -> np.ndarray:
        return self._boot(self._per_partition(self._stab(name, figure, method, measure, k),
                                              "value"))

    def _stab_diff_boot(self, name, figure, a, b, measure, k) -> np.ndarray:
        """Paired (same folds) bootstrap of mean Sim^M of ``a`` minus ``b`` at ``k``."""
        A = self._stab(name, figure, a, measure, k)
        B = self._stab(name, figure, b, measure, k)
        M = A.merge(B, on=["partition", "fold"], suffixes=("_a", "_b"))
        M["diff"] = M["value_a"] - M["value_b"]
        return self._boot(self._per_partition(M, "diff"))

    def _acc_diff_boot(self, name, clf, a, b, k) -> np.ndarray:
        s = self.acc
        sel = (s.dataset == name) & (s.classifier == clf) & (s.k == k)
        A, B = s[sel & (s.method == a)], s[sel & (s.method == b)]
        M = A.merge(B, on=["partition", "fold"], suffixes=("_a", "_b"))
        M["diff"] = M["accuracy_a"] - M["accuracy_b"]
        return self._boot(self._per_partition(M, "diff"))

    def _mean(self, table, **where) -> float:
        sel = np.ones(len(table), dtype=bool)
        for key, value in where.items():
            sel &= (table[key] == value).to_numpy()
        return float(table.loc[sel, "mean"].mean())

    def _signature(self, data) -> pd.DataFrame:
        """The DRAGS groups of the full data (top 10), one row per member."""
        from stablefs.datasets import load
        from stablefs.selectors.univariate import anova_f

        rows = []
        for d, name in enumerate(self.names):
            X, y = data[name]
            names = load(name).feature_names
            F = anova_f(X, y)
            ref = self.by_key[(_REF, d)]
            order = ref["drags:order"]
            for g, members in enumerate(_unpack(ref, "drags")[:10]):
                rep = int(order[g])
                for j in members:
                    rows.append({"dataset": name, "group": g + 1,
                                 "group_score": float(F[members].mean()),
                                 "group_size": len(members), "feature": str(names[j]),
                                 "representative": bool(j == rep), "f_statistic": float(F[j])})
        return pd.DataFrame(rows)

    # -- claims ---------------------------------------------------------------------------
    def _scope(self, wanted) -> list[str]:
        return [n for n in self.names if n in wanted]

    def claims(self) -> list[Claim]:
        c, a = self.c, self.c.alpha
        cover = coverage(a)
        R = c.n_partitions
        boot = (f"bootstrap over the {R} partitions ({c.n_bootstrap} resamples, {cover} "
                "t-intervals with the bootstrap standard error; the folds of a partition are "
                f"averaged; fewer than {MIN_RUNS} partitions: too few runs)")
        m_s, m_a = MARGINS["similarity"], 100 * MARGINS["accuracy"]
        others = [n for n in self.names if n != "srbct"]
        out = []

        # ---- Fig. 2: DGF
        cells = Cells()
        for name in others:
            for k in c.dgf_sizes:
                cells.add(verdict_at_least(self._stab_boot(name, "fig2", "DGF", "value", k),
                                           c.near_one, a, runs=R))
        means = [self._mean(self.stab_summary, dataset=n, figure="fig2", method="DGF",
                            measure=MEASURES["value"]) for n in others]
        out.append(Claim(
            "2a", "For all data sets except SRBCT, the stability score of DGF based on Sim^M_V "
            "is almost perfect for every k (top k dense groups, k = 4, 6, ..., 50; Yu, Ding "
            "and Loscalzo 2008, sec. 6.2, Fig. 2).",
            f"Sim^M_V of the top k dense groups against the full-data groups (eq. 7), every k "
            f"of {size_list(c.dgf_sizes)} on {', '.join(others) or 'no set'}; holds at a k if "
            f"the {cover} interval of the mean lies at or above {c.near_one:g} ({boot}); the "
            "claim holds if it holds at every (set, k).",
            f"mean Sim^M_V per set {per_name(others, means)}; smallest lower bound "
            f"{_fmt(cells.lowest())}; {cells.majority(_NO_CASES)}",
            cells.verdict, "tables/stability.csv (fig2, DGF); figures/fig2_dgf_kmeans.png"))

        per_set, detail = [], []
        for name in self.names:
            vs = [verdict_at_least(self._stab_boot(name, "fig2", "DGF", "index", k),
                                   c.id_level, a, runs=R)[0] for k in c.dgf_sizes]
            most = len(vs) / 2
            per_set.append("too few runs" if R < MIN_RUNS else
                           "holds" if sum(v == "holds" for v in vs) > most else
                           "does not hold" if sum(v == "does not hold" for v in vs) >= most
                           else "inconclusive")
            detail.append(f"{name} {sum(v == 'holds' for v in vs)}/{len(vs)}")
        need = max(1, len(self.names) - 1)
        n_hold = sum(v == "holds" for v in per_set)
        n_fail = sum(v == "does not hold" for v in per_set)
        verdict = ("too few runs" if R < MIN_RUNS else "holds" if n_hold >= need else
                   "does not hold" if n_fail > len(self.names) - need else "inconclusive")
        out.append(Claim(
            "2b", "More than 70 % of the features in one dense feature group match those in "
            "its matching group (Sim^M_ID > 0.7) for most k, in five of the six data sets (Yu, "
            "Ding and Loscalzo 2008, sec. 6.2, Fig. 2).",
            f"Per set: 'most k' = the {cover} interval of the mean Sim^M_ID lies above "
            f"{c.id_level:g} at more than half of the k ({boot}); the claim holds if that is "
            f"so on all sets but one ({need} of {len(self.names)}).",
            "k with Sim^M_ID above the level: " + ", ".join(detail), verdict,
            "tables/stability.csv (fig2, DGF, Sim^M_ID)"))

        cells, parts = Cells(), []
        for name in self.names:
            for K in c.kmeans_sizes:
                if K not in c.dgf_sizes or (name == "srbct" and K == 4):
                    continue
                for by in MEASURES:
                    diff = self._stab_diff_boot(name, "fig2", "DGF", "K-means", by, K)
                    cells.add(verdict_positive(diff, a, runs=R, margin=m_s))
            dgf = self._mean(self.stab_summary, dataset=name, figure="fig2", method="DGF")
            km = self._mean(self.stab_summary, dataset=name, figure="fig2", method="K-means")
            parts.append(f"{name} {_fmt(dgf, 2)} vs {_fmt(km, 2)}")
        out.append(Claim(
            "2c", "K-means is much less stable than DGF in terms of both measures, with only "
            "one exception (SRBCT, K = 4) (Yu, Ding and Loscalzo 2008, sec. 6.2, Fig. 2).",
            f"Top k dense groups of DGF against the K = k clusters of K-means, k in "
            f"{size_list([K for K in c.kmeans_sizes if K in c.dgf_sizes])}, both measures, every "
            f"set (SRBCT at K = 4 left out); paired {boot} of DGF minus K-means; per case: "
            + better_rule(m_s, R, a) + "; the claim holds if it holds in every case.",
            f"mean over k and both measures, DGF vs K-means: {'; '.join(parts)}; "
            f"{cells.majority(_NO_CASES)}", cells.verdict,
            "tables/stability.csv (fig2); figures/fig2_dgf_kmeans.png"))

        big = [K for K in c.kmeans_sizes if K > 20]
        cells = Cells()
        for name in self.names:
            for K in big:
                cells.add(verdict_at_most(self._stab_boot(name, "fig2", "K-means", "index", K),
                                          c.near_zero, a, runs=R))
        means = [self._stab(n, "fig2", "K-means", "index", K)["value"].mean()
                 for n in self.names for K in big]
        out.append(Claim(
            "2d", "For all data sets, the Sim^M_ID scores of K-means are close to 0 for large "
            "numbers of clusters (e.g., K > 20) (Yu, Ding and Loscalzo 2008, sec. 6.2).",
            f"K in {size_list(big) or 'none (no K > 20 in this run)'}, every set; Sim^M_ID the "
            f"higher of all members and the 5 features closest to the centre (as the paper); "
            f"holds if the {cover} upper bound of the mean is at most {c.near_zero:g} in "
            f"every case ({boot}).",
            f"mean Sim^M_ID {_fmt(min(means) if means else np.nan)} to "
            f"{_fmt(max(means) if means else np.nan)}; largest upper bound "
            f"{_fmt(cells.highest())}; {cells.majority(_NO_CASES)}",
            cells.verdict, "tables/stability.csv (fig2, K-means, Sim^M_ID)"))

        # ---- Table 2: accuracy
        clfs = [CLASSIFIER_LABEL[x] for x in c.classifiers]

        def acc_claim(cid, statement, sets, a_m, b_m, ks, kind):
            cells = Cells()
            for name in sets:
                for clf in clfs:
                    for k in ks:
                        diff = self._acc_diff_boot(name, clf, a_m, b_m, k)
                        cells.add(verdict_positive(diff, a, runs=R, margin=m_a)
                                  if kind == "higher" else
                                  verdict_positive(diff + c.same_margin, a, runs=R)
                                  if kind == "at least" else
                                  verdict_within(diff, c.same_margin, a, runs=R))
            test = (f"paired {boot} of the accuracy of {a_m} minus {b_m} (points of %) at "
                    f"each k of {size_list(ks)}, classifiers {', '.join(clfs)}, sets "
                    f"{', '.join(sets) or 'none in this run'}: ")
            test += {
                "higher": f"per case (points of %): {better_rule(m_a, R, a)}; the claim holds "
                          "if it holds in every case, does not hold if it fails in one.",
                "at least": f"holds if every interval lies above -{c.same_margin:g} points "
                            f"(not worse by more than {c.same_margin:g}), does not hold if any "
                            "lies below.",
                "similar": f"holds if every interval lies within +-{c.same_margin:g} points, "
                           "does not hold if any lies entirely outside.",
            }[kind]
            gap = [self._mean(self.acc_summary, dataset=n, method=a_m)
                   - self._mean(self.acc_summary, dataset=n, method=b_m) for n in sets]
            ours = (f"mean difference over k and classifiers {per_name(sets, gap, 1)}; "
                    f"intervals from {_fmt(cells.lowest(), 1)} to "
                    f"{_fmt(cells.highest(), 1)}; {cells.majority(_NO_CASES)}")
            out.append(Claim(cid, statement, test, ours, cells.verdict,
                             "tables/accuracy.csv; tables/table2.csv; "
                             "figures/table2_accuracy.png"))

        small = [k for k in c.sizes if k <= c.small_k]
        large = [k for k in c.sizes if k > c.small_k]
        mid = self._scope(("leukemia", "lung", "prostate"))
        acc_claim("T2a", "The accuracies resulting from DRAGS are significantly higher than "
                  "those from RFE under all values of k for Colon and SRBCT (Yu, Ding and "
                  "Loscalzo 2008, sec. 6.3, Table 2).", self._scope(("colon", "srbct")),
                  "DRAGS", "SVM-RFE", list(c.sizes), "higher")
        acc_claim("T2b", "For Leukemia, Lung and Prostate, DRAGS is significantly more "
                  "accurate than RFE when k <= 10 (Yu, Ding and Loscalzo 2008, sec. 6.3).",
                  mid, "DRAGS", "SVM-RFE", small, "higher")
        acc_claim("T2c", "For Leukemia, Lung and Prostate, DRAGS performs similar to RFE under "
                  "large k values (Yu, Ding and Loscalzo 2008, sec. 6.3).", mid, "DRAGS",
                  "SVM-RFE", large, "similar")
        acc_claim("T2d", "The accuracies resulting from DRAGS are significantly higher than "
                  "those from K-means under all values of k for SRBCT (Yu, Ding and Loscalzo "
                  "2008, sec. 6.3).", self._scope(("srbct",)), "DRAGS", "K-means",
                  list(c.sizes), "higher")
        acc_claim("T2e", "DRAGS is generally similar to K-means in accuracy on the other five "
                  "data sets (Yu, Ding and Loscalzo 2008, sec. 6.3; our DLBCL stands for the "
                  "paper's Lymphoma).", [n for n in self.names if n != "srbct"], "DRAGS",
                  "K-means", list(c.sizes), "similar")
        acc_claim("T2f", "Good accuracy can be achieved by using representative features from "
                  "only a few most relevant feature groups (DRAGS at least as accurate as RFE "
                  "at small k, on every set; the weakest reading of Yu, Ding and Loscalzo "
                  "2008, sec. 6.3).", list(self.names), "DRAGS", "SVM-RFE", small,
                  "at least")

        # ---- Fig. 3: stability of the selections
        for cid, hi_m, lo_m in (("3a", "DRAGS", "K-means"), ("3b", "K-means", "SVM-RFE"),
                                ("3e", "DRAGS", "SVM-RFE")):
            cells, parts = Cells(), []
            for name in self.names:
                for by in MEASURES:
                    for k in c.sizes:
                        diff = self._stab_diff_boot(name, "fig3", hi_m, lo_m, by, k)
                        cells.add(verdict_positive(diff, a, runs=R, margin=m_s))
                parts.append(f"{name} " + " / ".join(
                    f"{_fmt(self._mean(self.stab_summary, dataset=name, figure='fig3', method=m, measure=MEASURES['value']), 2)}"  # noqa: E501
                    for m in (hi_m, lo_m)))
            out.append(Claim(
                cid, f"{hi_m} is more stable than {lo_m} on both Sim^M_V and Sim^M_ID, on all "
                "data sets (top k relevant groups or features; Yu, Ding and Loscalzo 2008, "
                "sec. 6.3, Fig. 3).",
                f"Every set, both measures, every k of {size_list(c.sizes)}; paired {boot} of "
                f"{hi_m} minus {lo_m}; per case: {better_rule(m_s, R, a)}; the claim holds if "
                "it holds in every case.",
                f"mean Sim^M_V {hi_m} / {lo_m}: {'; '.join(parts)}; "
                f"{cells.majority(_NO_CASES)}",
                cells.verdict, "tables/stability.csv (fig3); figures/fig3_selection.png"))

        cells = Cells()
        for name in self.names:
            for k in c.sizes:
                cells.add(verdict_at_most(self._stab_boot(name, "fig3", "SVM-RFE", "index", k),
                                          c.near_zero, a, runs=R))
        means = [self._mean(self.stab_summary, dataset=n, figure="fig3", method="SVM-RFE",
                            measure=MEASURES["index"]) for n in self.names]
        out.append(Claim(
            "3c", "For RFE, the stability values based on Sim^M_ID are consistently almost "
            "zero under any k value for all data sets (Yu, Ding and Loscalzo 2008, sec. 6.3, "
            "Fig. 3).",
            f"Every set and k of {size_list(c.sizes)}; holds if the {cover} upper bound of the "
            f"mean Sim^M_ID is at most {c.near_zero:g} in every case ({boot}).",
            f"mean Sim^M_ID over k {per_name(self.names, means)}; largest upper bound "
            f"{_fmt(cells.highest())}; {cells.majority(_NO_CASES)}",
            cells.verdict, "tables/stability.csv (fig3, SVM-RFE)"))

        cells = Cells()
        for name in self.names:
            for k in c.sizes:
                cells.add(verdict_at_least(self._stab_boot(name, "fig3", "DRAGS", "value", k),
                                           c.near_one, a, runs=R))
                cells.add(verdict_at_least(self._stab_boot(name, "fig3", "DRAGS", "index", k),
                                           c.id_level, a, runs=R))
        vmeans = [self._mean(self.stab_summary, dataset=n, figure="fig3", method="DRAGS",
                             measure=MEASURES["value"]) for n in self.names]
        imeans = [self._mean(self.stab_summary, dataset=n, figure="fig3", method="DRAGS",
                             measure=MEASURES["index"]) for n in self.names]
        out.append(Claim(
            "3d", "DRAGS remains highly stable in terms of both measures based on the top k "
            "relevant feature groups (Yu, Ding and Loscalzo 2008, sec. 6.3, Fig. 3).",
            f"'Highly stable' read as for DGF (claims 2a, 2b): the {cover} interval of the "
            f"mean Sim^M_V at or above {c.near_one:g} and of Sim^M_ID at or above "
            f"{c.id_level:g}, every set and k of {size_list(c.sizes)} ({boot}).",
            f"mean Sim^M_V {per_name(self.names, vmeans)}; mean Sim^M_ID "
            f"{per_name(self.names, imeans)}; {cells.majority(_NO_CASES)}", cells.verdict,
            "tables/stability.csv (fig3, DRAGS); figures/fig3_selection.png"))
        return out

    # -- tables ---------------------------------------------------------------------------
    def table2(self) -> pd.DataFrame:
        """Ours beside the paper's Table 2: one row per (set, classifier, method, k)."""
        return beside_table2(self.acc_summary, self.names,
                             [CLASSIFIER_LABEL[x] for x in self.c.classifiers], self.c.sizes,
                             METHODS)

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"datasets": self.info, "stability": self.stab_summary,
                "stability_folds": self.stab, "accuracy": self.acc_summary,
                "accuracy_folds": self.acc, "table2": self.table2(),
                "drags_signature": self.signature}
