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
"""

from __future__ import annotations

import dataclasses
import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from stablefs._errors import StablefsError
from stablefs.experiments._base import (
    Claim,
    Experiment,
    FigureSpec,
    Outcome,
    check_grid,
    check_real,
    check_whole,
    estimate_workers,
    load_registry_sets,
)
from stablefs.experiments._montecarlo import run_units, unit_seed
from stablefs.experiments._stats import (
    MARGINS,
    MIN_RUNS,
    better_rule,
    bootstrap_counts,
    count_verdicts,
    mean_boot,
    t_interval,
    tally,
    verdict_at_least,
    verdict_at_most,
    verdict_positive,
)
from stablefs.experiments._stats import combine_verdicts as _combine

__all__ = ["Yu2008Config", "Yu2008Drags", "published_table2"]

#: the six data sets, as registry names, and their row labels in the paper's Table 2
DATASETS = ("colon", "leukemia", "lung", "prostate", "srbct", "dlbcl")
PAPER_LABEL = {"colon": "Colon", "leukemia": "Leuk.", "lung": "Lung", "prostate": "Pro.",
               "srbct": "SRB.", "dlbcl": "Lym."}
#: methods of Table 2 and Fig. 3 (key -> label); Fig. 2 compares DGF with K-means
METHODS = {"drags": "DRAGS", "kmeans": "K-means", "rfe": "SVM-RFE"}
PAPER_METHOD = {"drags": "DRAGS", "kmeans": "Kmeans", "rfe": "RFE"}
CLASSIFIER_LABEL = {"svm": "SVM", "1nn": "1NN"}
#: features of the registry sets (for the time estimate)
_N_FEATURES = {"colon": 2000, "leukemia": 7129, "lung": 12533, "prostate": 12600,
               "srbct": 2308, "dlbcl": 7129}
MEASURES = {"value": "Sim^M_V", "index": "Sim^M_ID"}

#: study numbers in the units' random-stream keys
_FOLD, _REF, _SPLIT, _BOOT = 1, 2, 3, 9

#: Table 2 of Yu, Ding and Loscalzo (2008), verbatim (``mean±sd`` in %, k = 4, 6, 8, 10, 20,
#: 30, 40, 50, then the printed average); "Lym." is Alizadeh's Lymphoma, not our DLBCL
TABLE2 = """\
Colon|SVM|DRAGS|80.5±9.6|82.4±9.6|83.5±9.5|83.8±9.2|84.9±6.9|86.3±6.8|87.3±4.9|87.1±5.6|84.5
Colon|SVM|RFE|64.8±3.3|65.5±4.1|68.9±5.1|68.3±5.6|76.1±5.3|78.6±5.1|80.2±6.7|81.9±7.6|73.0
Colon|SVM|Kmeans|77.6±10.7|79.3±8.7|81.7±7.7|82.7±7.0|84.2±6.3|84.2±5.8|81.9±8.2|82.2±7.8|81.8
Colon|1NN|DRAGS|74.1±10.7|77±8.9|75.1±8.1|74.4±9.3|74.6±7.4|75.2±7.8|77.3±7.5|77.9±7.3|75.7
Colon|1NN|RFE|59.9±6.2|64±5.8|67.2±3.4|66.9±5.9|73±4.6|74.8±5.8|75.9±5.1|80.3±4.9|70.3
Colon|1NN|Kmeans|76.1±9.0|76.1±7.1|75.4±7.9|76.3±6.6|79.6±9.0|78.2±9.1|78.1±11.7|75.5±8.7|77.0
Leuk.|SVM|DRAGS|92.8±3.8|92.2±3.6|92.9±4|93.2±4.2|95±3.5|96.2±3|96.7±3.4|97.1±3.5|94.5
Leuk.|SVM|RFE|78.2±5|85.5±3.7|87.3±5.5|89.9±4.9|95.3±2.9|95.5±2.7|96.9±0.9|97.5±0.9|90.8
Leuk.|SVM|Kmeans|89.4±5.8|91.8±4.3|92.9±4.1|93.6±4.3|95.6±4.0|95.4±3.5|95.5±3.6|97.3±3.3|94.0
Leuk.|1NN|DRAGS|93.5±4|92.1±4.1|90.6±4.8|90.8±4.3|92.4±3.6|92.4±5|94.3±3.5|95.6±4.5|92.7
Leuk.|1NN|RFE|77.7±4.5|83.1±4.5|86.2±5|86.6±5.1|91.6±3|93.2±3.5|94.9±1.9|94.9±2.9|88.5
Leuk.|1NN|Kmeans|90.2±5.4|90.6±6.2|91.3±5.7|93.3±4.9|93.8±4.3|94.1±4.1|93.7±3.7|95.1±4.2|92.8
Lung|SVM|DRAGS|98.5±1.9|99±1.3|98.9±1.3|98.7±1.8|98.8±1.6|98.9±1.4|99±1.3|99.1±1.1|98.9
Lung|SVM|RFE|90.3±1.6|93.2±1.6|95.7±1.3|96.4±1.7|98.8±0.7|99.4±0.6|99.5±0.3|99.4±0.5|96.6
Lung|SVM|Kmeans|94.9±3.2|96.0±2.8|97.1±2.5|97.4±2.5|97.6±2.6|97.8±2.1|98.3±1.8|98.4±2.0|97.2
Lung|1NN|DRAGS|98.4±1.4|99±1.3|98.7±1.2|98.9±1.3|98.6±1.7|98.7±1.7|98.6±1.9|98.7±2|98.7
Lung|1NN|RFE|91.9±3.1|93.6±2.2|95±1.7|95.2±2|97.7±1.1|97.6±0.9|98.4±0.5|98.4±0.8|96.0
Lung|1NN|Kmeans|95.4±3.9|95.6±3.0|96.3±2.6|96.8±2.5|97.1±2.2|97.6±2.1|97.6±2.0|97.9±1.9|96.8
Pro.|SVM|DRAGS|86.6±4.6|88.6±4.9|90.5±5.5|89.8±5.9|89.1±6.4|89.9±5.4|91.3±4.6|91.7±3.9|89.7
Pro.|SVM|RFE|71.1±3.6|74.7±5|78.7±3.8|79.7±3.1|85.4±4.3|87.4±2.7|89.4±2.5|90.2±2.4|82.1
Pro.|SVM|Kmeans|83.1±6.8|85.1±7.3|85.3±7.2|85.7±7.0|88.7±6.0|88.0±5.9|87.4±5.4|88.1±5.2|86.5
Pro.|1NN|DRAGS|84.2±6.6|86.2±4.7|87.2±5.6|86.5±6.4|85.1±6.1|82.5±6.6|82.7±6.7|83.8±5.6|84.8
Pro.|1NN|RFE|64.3±4.8|70.7±4.6|74.7±3.2|77.4±4.2|79.8±4.3|83.2±5.1|83.9±3.6|84.6±2.8|77.3
Pro.|1NN|Kmeans|76.8±6.9|76.8±7.6|78.3±7.0|80±6.8|83.1±6.0|81.4±6.2|83.6±5.3|82.9±6.5|80.4
Lym.|SVM|DRAGS|82.4±8.5|86±11.3|94.3±10.7|94.8±10.3|99.2±1.8|98.3±3.9|97.5±4.8|98.6±4.5|93.9
Lym.|SVM|RFE|87.5±3.7|95.8±4|97.3±3.1|98±3.1|99±2.4|99.3±1.7|99.5±1.5|99.5±1.5|97.0
Lym.|SVM|Kmeans|87.9±9.5|91.9±9.4|94.4±7.6|94.4±7.7|97.3±3.6|97.6±3.7|98.2±2.9|98.4±2.8|95.0
Lym.|1NN|DRAGS|91.3±6|96.3±4.5|99±1.9|98.9±2.4|99.4±1.6|99±2.9|97.9±4.1|98.6±3.8|97.6
Lym.|1NN|RFE|95.2±3.8|97.7±2.9|97.3±3.7|98±3.1|98.8±2.5|98.8±2.2|99.2±1.9|99±2|98.0
Lym.|1NN|Kmeans|93.3±7.2|95.0±5.0|95.0±6.6|95.5±4.6|97.3±3.6|97.3±3.8|98.1±3.2|98.5±2.5|96.3
SRB.|SVM|DRAGS|86.3±10.2|94.1±5.3|96.5±3.9|97±3.6|99.5±1.9|99.2±1.8|99.2±1.8|99.4±1.6|96.4
SRB.|SVM|RFE|56.8±10.5|70.8±9.9|81.3±8.8|89.5±6.5|95.1±3.6|97±3.4|97.3±3.7|97.9±3.2|85.7
SRB.|SVM|Kmeans|61.4±15.3|72.7±16.1|79.0±15.6|85.4±11.3|90.7±6.3|93.0±5.5|93.9±5.9|93.1±6.8|83.7
SRB.|1NN|DRAGS|92.2±6.3|96.7±4.2|96.7±4.2|97.3±3.7|99.5±1.5|99.8±0.9|99.4±1.6|99.2±1.8|97.6
SRB.|1NN|RFE|76.5±10.3|80.3±7.5|86±7.1|88.3±8.5|92.4±5.1|92.5±6|93.3±5.2|94.6±4.5|88.0
SRB.|1NN|Kmeans|68.5±15.9|75.8±14.2|80.3±11.7|84.9±9.5|89.8±6.9|90.4±6.2|90.7±6.3|90.3±5.5|83.9
"""
TABLE2_SIZES = (4, 6, 8, 10, 20, 30, 40, 50)


def published_table2() -> pd.DataFrame:
    """The paper's Table 2 as a tidy frame: ``data, classifier, method, k, mean, sd``
    (``k = 0`` holds the printed average, with ``sd`` NaN)."""
    rows = []
    for line in TABLE2.strip().splitlines():
        data, clf, method, *cells = line.split("|")
        for k, cell in zip(TABLE2_SIZES, cells[:8], strict=True):
            mean, sd = cell.split("±")
            rows.append((data, clf, method, k, float(mean), float(sd)))
        rows.append((data, clf, method, 0, float(cells[8]), np.nan))
    return pd.DataFrame(rows, columns=["data", "classifier", "method", "k", "mean", "sd"])


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


def _pack(groups, prefix: str, out: dict) -> None:
    """Ragged groups as ``prefix:members`` (concatenated) and ``prefix:offsets``."""
    sizes = [len(g) for g in groups]
    out[f"{prefix}:members"] = (np.concatenate([np.asarray(g, dtype=np.int32) for g in groups])
                                if groups else np.empty(0, np.int32))
    out[f"{prefix}:offsets"] = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def _unpack(res: dict, prefix: str) -> list[np.ndarray]:
    m, o = res[f"{prefix}:members"], res[f"{prefix}:offsets"]
    return [m[o[i]:o[i + 1]] for i in range(o.size - 1)]


def _folds(y: np.ndarray, n_folds: int, seed: int, d: int, partition: int) -> np.ndarray:
    """Fold of every sample in one random stratified partition."""
    from sklearn.model_selection import StratifiedKFold

    rng = np.random.default_rng(unit_seed(seed, _SPLIT, d, partition))
    skf = StratifiedKFold(n_splits=n_folds, shuffle=True,
                          random_state=int(rng.integers(2**31 - 1)))
    fold = np.empty(y.size, dtype=np.int64)
    for f, (_, test) in enumerate(skf.split(np.zeros(y.size), y)):
        fold[test] = f
    return fold


def _order(selector) -> np.ndarray:
    """Features in rank order (best first)."""
    return np.argsort(selector.ranking_, kind="stable")


def _fit_all(X: np.ndarray, y: np.ndarray, cfg: dict, rng: np.random.Generator) -> dict:
    """DGF, DRAGS, K-means (every K of Fig. 2 and the selection K) and SVM-RFE on one
    training part (or the full data)."""
    from stablefs.selectors import DGF, DRAGS, SVMRFE, KMeansGroups

    kmax = max(cfg["sizes"])
    out: dict[str, np.ndarray] = {}
    dgf = DGF(n_neighbors=cfg["n_neighbors"], kernel=cfg["kernel"],
              self_neighbor=cfg["self_neighbor"]).fit(X)
    _pack(dgf.groups_[: max(cfg["dgf_sizes"])], "dgf", out)
    out["dgf:n_groups"] = np.array(len(dgf.groups_))
    out["dgf:bandwidth"] = np.array(dgf.bandwidth_)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # fewer groups than k: recorded below
        drags = DRAGS(n_features_to_select=kmax, n_neighbors=cfg["n_neighbors"],
                      kernel=cfg["kernel"], self_neighbor=cfg["self_neighbor"]).fit(X, y)
    _pack(drags.groups_[:kmax], "drags", out)
    out["drags:n_groups"] = np.array(len(drags.groups_))
    out["drags:order"] = _order(drags)[:kmax].astype(np.int32)
    for K in cfg["kmeans_sizes"]:
        km = KMeansGroups(n_clusters=K, n_init=cfg["kmeans_n_init"],
                          random_state=int(rng.integers(2**31 - 1))).fit(X, y)
        _pack(km.groups_, f"km{K}", out)
    km = KMeansGroups(n_clusters=cfg["kmeans_clusters"], n_init=cfg["kmeans_n_init"],
                      n_features_to_select=kmax,
                      random_state=int(rng.integers(2**31 - 1))).fit(X, y)
    _pack(km.groups_[:kmax], "kmeans", out)
    out["kmeans:order"] = _order(km)[:kmax].astype(np.int32)
    rfe = SVMRFE(n_features_to_select=min(cfg["sizes"]), step="halve").fit(X, y)
    out["rfe:order"] = _order(rfe)[:kmax].astype(np.int32)
    _pack([[j] for j in out["rfe:order"]], "rfe", out)
    return out


def _accuracy(Xtr, ytr, Xte, yte, order, sizes, classifiers) -> np.ndarray:
    """(len(sizes), len(classifiers)) accuracies on the top-k features of ``order``."""
    from stablefs.evaluation.classifiers import make_classifier

    acc = np.empty((len(sizes), len(classifiers)))
    for i, k in enumerate(sizes):
        cols = order[:k]
        for j, name in enumerate(classifiers):
            model = make_classifier(name).fit(Xtr[:, cols], ytr)
            acc[i, j] = float(np.mean(model.predict(Xte[:, cols]) == yte))
    return acc


def _unit(key, *, cfg: dict, seed: int, data: dict) -> dict[str, np.ndarray]:
    """One training part (key ``(_FOLD, d, partition, fold)``) or the full data of data set
    ``d`` (key ``(_REF, d)``): every method fitted, accuracies on the held-out fold."""
    from stablefs._threads import limit_threads

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


class Yu2008Drags(Experiment):
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
        if not isinstance(c.datasets, tuple) or not c.datasets:
            raise StablefsError("datasets: name at least one data set, e.g. colon,srbct.")
        if len(set(c.datasets)) != len(c.datasets):
            raise StablefsError(f"datasets = {','.join(c.datasets)}: list each set once.")
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
        unknown = [m for m in c.classifiers if m not in CLASSIFIER_LABEL]
        if not isinstance(c.classifiers, tuple) or not c.classifiers or unknown:
            raise StablefsError(f"classifiers = {','.join(map(str, c.classifiers))}: choose "
                                "from svm, 1nn.")
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
        workers = estimate_workers(n_jobs)
        return 10.0 + cpu / workers

    # -- run ------------------------------------------------------------------------------
    def run(self, config: Yu2008Config, *, seed: int, n_jobs: int = 1,
            progress: bool = False, cache=None) -> Outcome:
        cfg = dataclasses.asdict(config)
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        data = load_registry_sets(config.datasets)
        timings["load"] = round(time.perf_counter() - t0, 3)
        keys = [(_REF, d) for d in range(len(config.datasets))]
        keys += [(_FOLD, d, r, f) for d in range(len(config.datasets))
                 for r in range(config.n_partitions) for f in range(config.n_folds)]
        t1 = time.perf_counter()
        results = run_units(_unit, keys, study="units", common={"cfg": cfg, "seed": seed,
                                                                "data": data},
                            n_jobs=n_jobs, progress=progress, cache=cache,
                            desc="data sets x folds")
        timings["fits"] = round(time.perf_counter() - t1, 3)
        t2 = time.perf_counter()
        by_key = dict(zip(keys, results, strict=True))
        rng = np.random.default_rng(unit_seed(seed, _BOOT))
        outcome = _Analysis(config, data, by_key, rng).outcome()
        timings["analysis"] = round(time.perf_counter() - t2, 3)
        outcome.timings = timings
        return outcome


# ------------------------------------------------------------------------ analysis


def _fmt(x: float, digits: int = 3) -> str:
    return "nan" if not np.isfinite(x) else f"{x:.{digits}f}"


def _ci(lo: float, hi: float, digits: int = 3) -> str:
    return f"[{_fmt(lo, digits)}, {_fmt(hi, digits)}]"


def _tally(verdicts) -> str:
    """The all-cases verdict's cases counted, with the majority-rule reading beside it."""
    verdicts = list(verdicts)
    return tally(verdicts) if verdicts else "no cases in this run"


def _verdict_within(samples, margin: float, alpha: float, runs: int
                    ) -> tuple[str, float, float]:
    """Verdict on "the difference is within +- margin" (e.g. "similar accuracy")."""
    lo, hi = t_interval(samples, runs, alpha)
    if runs < MIN_RUNS:
        return "too few runs", lo, hi
    if not np.isfinite(lo):
        return "inconclusive", lo, hi
    if -margin <= lo and hi <= margin:
        return "holds", lo, hi
    if lo > margin or hi < -margin:
        return "does not hold", lo, hi
    return "inconclusive", lo, hi


class _Analysis:
    """Tables, figures and claims from the units' results."""

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
        self.stab_summary = (self.stab.groupby(["dataset", "figure", "method", "measure", "k"],
                                               sort=False)["value"]
                             .agg(mean="mean", sd="std", n="count").reset_index())
        self.stab_summary["measure"] = self.stab_summary["measure"].map(MEASURES)
        self.acc_summary = (self.acc.groupby(["dataset", "classifier", "method", "k"],
                                             sort=False)["accuracy"]
                            .agg(mean="mean", sd="std", n="count").reset_index())
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
        cover = f"{100 * (1 - a):g} %"
        R = c.n_partitions
        boot = (f"bootstrap over the {R} partitions ({c.n_bootstrap} resamples, {cover} "
                "t-intervals with the bootstrap standard error; the folds of a partition are "
                f"averaged; fewer than {MIN_RUNS} partitions: too few runs)")
        m_s, m_a = MARGINS["similarity"], 100 * MARGINS["accuracy"]
        others = [n for n in self.names if n != "srbct"]
        out = []

        # ---- Fig. 2: DGF
        verdicts, lows = [], []
        for name in others:
            for k in c.dgf_sizes:
                v, lo, _ = verdict_at_least(self._stab_boot(name, "fig2", "DGF", "value", k),
                                            c.near_one, a, runs=R)
                verdicts.append(v)
                lows.append(lo)
        means = [self._mean(self.stab_summary, dataset=n, figure="fig2", method="DGF",
                            measure=MEASURES["value"]) for n in others]
        out.append(Claim(
            "2a", "For all data sets except SRBCT, the stability score of DGF based on Sim^M_V "
            "is almost perfect for every k (top k dense groups, k = 4, 6, ..., 50; Yu, Ding "
            "and Loscalzo 2008, sec. 6.2, Fig. 2).",
            f"Sim^M_V of the top k dense groups against the full-data groups (eq. 7), every k "
            f"of {_klist(c.dgf_sizes)} on {', '.join(others) or 'no set'}; holds at a k if "
            f"the {cover} interval of the mean lies at or above {c.near_one:g} ({boot}); the "
            "claim holds if it holds at every (set, k).",
            f"mean Sim^M_V per set {_vals(others, means)}; smallest lower bound "
            f"{_fmt(min(lows) if lows else np.nan)}; {_tally(verdicts)}",
            _combine(verdicts), "tables/stability.csv (fig2, DGF); figures/fig2_dgf_kmeans.png"))

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

        verdicts, parts = [], []
        for name in self.names:
            for K in c.kmeans_sizes:
                if K not in c.dgf_sizes or (name == "srbct" and K == 4):
                    continue
                for by in MEASURES:
                    diff = self._stab_diff_boot(name, "fig2", "DGF", "K-means", by, K)
                    verdicts.append(verdict_positive(diff, a, runs=R, margin=m_s)[0])
            dgf = self._mean(self.stab_summary, dataset=name, figure="fig2", method="DGF")
            km = self._mean(self.stab_summary, dataset=name, figure="fig2", method="K-means")
            parts.append(f"{name} {_fmt(dgf, 2)} vs {_fmt(km, 2)}")
        out.append(Claim(
            "2c", "K-means is much less stable than DGF in terms of both measures, with only "
            "one exception (SRBCT, K = 4) (Yu, Ding and Loscalzo 2008, sec. 6.2, Fig. 2).",
            f"Top k dense groups of DGF against the K = k clusters of K-means, k in "
            f"{_klist([K for K in c.kmeans_sizes if K in c.dgf_sizes])}, both measures, every "
            f"set (SRBCT at K = 4 left out); paired {boot} of DGF minus K-means; per case: "
            + better_rule(m_s, R, a) + "; the claim holds if it holds in every case.",
            f"mean over k and both measures, DGF vs K-means: {'; '.join(parts)}; "
            f"{_tally(verdicts)}", _combine(verdicts),
            "tables/stability.csv (fig2); figures/fig2_dgf_kmeans.png"))

        big = [K for K in c.kmeans_sizes if K > 20]
        verdicts, highs = [], []
        for name in self.names:
            for K in big:
                v, _, hi = verdict_at_most(self._stab_boot(name, "fig2", "K-means", "index", K),
                                           c.near_zero, a, runs=R)
                verdicts.append(v)
                highs.append(hi)
        means = [self._stab(n, "fig2", "K-means", "index", K)["value"].mean()
                 for n in self.names for K in big]
        out.append(Claim(
            "2d", "For all data sets, the Sim^M_ID scores of K-means are close to 0 for large "
            "numbers of clusters (e.g., K > 20) (Yu, Ding and Loscalzo 2008, sec. 6.2).",
            f"K in {_klist(big) or 'none (no K > 20 in this run)'}, every set; Sim^M_ID the "
            f"higher of all members and the 5 features closest to the centre (as the paper); "
            f"holds if the {cover} upper bound of the mean is at most {c.near_zero:g} in "
            f"every case ({boot}).",
            f"mean Sim^M_ID {_fmt(min(means) if means else np.nan)} to "
            f"{_fmt(max(means) if means else np.nan)}; largest upper bound "
            f"{_fmt(max(highs) if highs else np.nan)}; {_tally(verdicts)}",
            _combine(verdicts), "tables/stability.csv (fig2, K-means, Sim^M_ID)"))

        # ---- Table 2: accuracy
        clfs = [CLASSIFIER_LABEL[x] for x in c.classifiers]

        def acc_claim(cid, statement, sets, a_m, b_m, ks, kind):
            verdicts, lows, highs = [], [], []
            for name in sets:
                for clf in clfs:
                    for k in ks:
                        diff = self._acc_diff_boot(name, clf, a_m, b_m, k)
                        if kind == "higher":
                            v, lo, hi = verdict_positive(diff, a, runs=R, margin=m_a)
                        elif kind == "at least":
                            v, lo, hi = verdict_positive(diff + c.same_margin, a, runs=R)
                        else:
                            v, lo, hi = _verdict_within(diff, c.same_margin, a, R)
                        verdicts.append(v)
                        lows.append(lo)
                        highs.append(hi)
            test = (f"paired {boot} of the accuracy of {a_m} minus {b_m} (points of %) at "
                    f"each k of {_klist(ks)}, classifiers {', '.join(clfs)}, sets "
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
            ours = (f"mean difference over k and classifiers {_vals(sets, gap, 1)}; "
                    f"intervals from {_fmt(min(lows) if lows else np.nan, 1)} to "
                    f"{_fmt(max(highs) if highs else np.nan, 1)}; {_tally(verdicts)}")
            out.append(Claim(cid, statement, test, ours, _combine(verdicts),
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
            verdicts, parts = [], []
            for name in self.names:
                for by in MEASURES:
                    for k in c.sizes:
                        diff = self._stab_diff_boot(name, "fig3", hi_m, lo_m, by, k)
                        verdicts.append(verdict_positive(diff, a, runs=R, margin=m_s)[0])
                parts.append(f"{name} " + " / ".join(
                    f"{_fmt(self._mean(self.stab_summary, dataset=name, figure='fig3', method=m, measure=MEASURES['value']), 2)}"  # noqa: E501
                    for m in (hi_m, lo_m)))
            out.append(Claim(
                cid, f"{hi_m} is more stable than {lo_m} on both Sim^M_V and Sim^M_ID, on all "
                "data sets (top k relevant groups or features; Yu, Ding and Loscalzo 2008, "
                "sec. 6.3, Fig. 3).",
                f"Every set, both measures, every k of {_klist(c.sizes)}; paired {boot} of "
                f"{hi_m} minus {lo_m}; per case: {better_rule(m_s, R, a)}; the claim holds if "
                "it holds in every case.",
                f"mean Sim^M_V {hi_m} / {lo_m}: {'; '.join(parts)}; {_tally(verdicts)}",
                _combine(verdicts), "tables/stability.csv (fig3); figures/fig3_selection.png"))

        verdicts, highs = [], []
        for name in self.names:
            for k in c.sizes:
                v, _, hi = verdict_at_most(self._stab_boot(name, "fig3", "SVM-RFE", "index", k),
                                           c.near_zero, a, runs=R)
                verdicts.append(v)
                highs.append(hi)
        means = [self._mean(self.stab_summary, dataset=n, figure="fig3", method="SVM-RFE",
                            measure=MEASURES["index"]) for n in self.names]
        out.append(Claim(
            "3c", "For RFE, the stability values based on Sim^M_ID are consistently almost "
            "zero under any k value for all data sets (Yu, Ding and Loscalzo 2008, sec. 6.3, "
            "Fig. 3).",
            f"Every set and k of {_klist(c.sizes)}; holds if the {cover} upper bound of the "
            f"mean Sim^M_ID is at most {c.near_zero:g} in every case ({boot}).",
            f"mean Sim^M_ID over k {_vals(self.names, means)}; largest upper bound "
            f"{_fmt(max(highs) if highs else np.nan)}; {_tally(verdicts)}",
            _combine(verdicts), "tables/stability.csv (fig3, SVM-RFE)"))

        verdicts = []
        for name in self.names:
            for k in c.sizes:
                verdicts.append(verdict_at_least(
                    self._stab_boot(name, "fig3", "DRAGS", "value", k), c.near_one, a,
                    runs=R)[0])
                verdicts.append(verdict_at_least(
                    self._stab_boot(name, "fig3", "DRAGS", "index", k), c.id_level, a,
                    runs=R)[0])
        vmeans = [self._mean(self.stab_summary, dataset=n, figure="fig3", method="DRAGS",
                             measure=MEASURES["value"]) for n in self.names]
        imeans = [self._mean(self.stab_summary, dataset=n, figure="fig3", method="DRAGS",
                             measure=MEASURES["index"]) for n in self.names]
        out.append(Claim(
            "3d", "DRAGS remains highly stable in terms of both measures based on the top k "
            "relevant feature groups (Yu, Ding and Loscalzo 2008, sec. 6.3, Fig. 3).",
            f"'Highly stable' read as for DGF (claims 2a, 2b): the {cover} interval of the "
            f"mean Sim^M_V at or above {c.near_one:g} and of Sim^M_ID at or above "
            f"{c.id_level:g}, every set and k of {_klist(c.sizes)} ({boot}).",
            f"mean Sim^M_V {_vals(self.names, vmeans)}; mean Sim^M_ID "
            f"{_vals(self.names, imeans)}; {_tally(verdicts)}", _combine(verdicts),
            "tables/stability.csv (fig3, DRAGS); figures/fig3_selection.png"))
        return out

    # -- tables ---------------------------------------------------------------------------
    def table2(self) -> pd.DataFrame:
        """Ours beside the paper's Table 2: one row per (set, classifier, method, k)."""
        pub = published_table2()
        rows = []
        for name in self.names:
            for clf in (CLASSIFIER_LABEL[x] for x in self.c.classifiers):
                for m, label in METHODS.items():
                    ours = self.acc_summary[(self.acc_summary.dataset == name)
                                            & (self.acc_summary.classifier == clf)
                                            & (self.acc_summary.method == label)]
                    paper = pub[(pub.data == PAPER_LABEL.get(name, "")) & (pub.classifier == clf)
                                & (pub.method == PAPER_METHOD[m])]
                    for k in self.c.sizes:
                        o = ours[ours.k == k]
                        p = paper[paper.k == k]
                        rows.append({
                            "dataset": name, "classifier": clf, "method": label, "k": k,
                            "ours_mean": float(o["mean"].iloc[0]),
                            "ours_sd": float(o["sd"].iloc[0]),
                            "paper_mean": float(p["mean"].iloc[0]) if len(p) else np.nan,
                            "paper_sd": float(p["sd"].iloc[0]) if len(p) else np.nan,
                        })
                    avg = paper[paper.k == 0]
                    rows.append({"dataset": name, "classifier": clf, "method": label, "k": 0,
                                 "ours_mean": float(ours["mean"].mean()), "ours_sd": np.nan,
                                 "paper_mean": float(avg["mean"].iloc[0]) if len(avg)
                                 else np.nan, "paper_sd": np.nan})
        return pd.DataFrame(rows)

    def published(self, t2: pd.DataFrame) -> pd.DataFrame:
        rows = []
        paper_p = {"colon": 2000, "leukemia": 7129, "lung": 12533, "prostate": 6034,
                   "srbct": 2308, "dlbcl": 4026}
        for _, r in self.info.iterrows():
            if r.dataset in paper_p:
                rows.append((f"{r.dataset}: genes (setting)", paper_p[r.dataset],
                             int(r.n_features), "Yu, Ding and Loscalzo 2008, Table 1"))
        for _, r in t2[t2.k == 0].iterrows():
            rows.append((f"{r.dataset} {r.classifier} {r.method}: accuracy averaged over k (%)",
                         _fmt(r.paper_mean, 1), _fmt(r.ours_mean, 1),
                         "Yu, Ding and Loscalzo 2008, Table 2 (Avg)"
                         + ("; paper: Lymphoma, ours: DLBCL" if r.dataset == "dlbcl" else "")))
        return pd.DataFrame(rows, columns=["quantity", "published", "ours", "source"])

    # -- figures --------------------------------------------------------------------------
    def figures(self) -> list[FigureSpec]:
        n = len(self.c.dgf_sizes)
        return [
            FigureSpec("fig2_dgf_kmeans",
                       f"Yu, Ding and Loscalzo 2008 Fig. 2: stability of the top k dense "
                       f"groups of DGF and of the K = k clusters of K-means against the "
                       f"full-data result (mean over {self.c.n_partitions} x {self.c.n_folds} "
                       f"training parts; {n} values of k for DGF).",
                       lambda: self._fig_stab("fig2", ["DGF", "K-means"])),
            FigureSpec("fig3_selection",
                       "Yu, Ding and Loscalzo 2008 Fig. 3: stability of the top k relevant "
                       "groups (DRAGS, K-means with K = "
                       f"{self.c.kmeans_clusters}) or features (SVM-RFE, halving schedule).",
                       lambda: self._fig_stab("fig3", list(METHODS.values()))),
            FigureSpec("table2_accuracy",
                       "Yu, Ding and Loscalzo 2008 Table 2: mean accuracy over the training "
                       "parts (held-out folds), ours solid, the paper's dashed (Lymphoma for "
                       "DLBCL, a different data set).", self._fig_accuracy),
        ]

    @staticmethod
    def _styles(labels=None):
        """One colour and marker per method, the same in every figure of the run."""
        from stablefs.report.figures import method_styles

        return method_styles(["DGF", *METHODS.values()])

    def _fig_stab(self, figure: str, methods: list[str]):
        from matplotlib.figure import Figure

        names = self.names
        fig = Figure(figsize=(2.6 * len(names) + 1, 5.4), layout="constrained")
        axes = np.atleast_2d(fig.subplots(2, len(names), sharey="row", squeeze=False))
        styles = self._styles(methods)
        s = self.stab_summary[self.stab_summary.figure == figure]
        for col, name in enumerate(names):
            for row, measure in enumerate(MEASURES.values()):
                ax = axes[row, col]
                for m in methods:
                    d = s[(s.dataset == name) & (s.method == m) & (s.measure == measure)]
                    st = styles[m]
                    ax.plot(d.k, d["mean"], label=m, color=st["color"], marker=st["marker"],
                            markersize=3)
                ax.set_ylim(-0.05, 1.05)
                if row == 0:
                    ax.set_title(name)
                if col == 0:
                    ax.set_ylabel(measure)
                if row == 1:
                    ax.set_xlabel("k (groups, clusters or features)")
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=len(labels))
        return fig

    def _fig_accuracy(self):
        from matplotlib.figure import Figure

        names = self.names
        clfs = [CLASSIFIER_LABEL[x] for x in self.c.classifiers]
        fig = Figure(figsize=(2.6 * len(names) + 1, 2.7 * len(clfs) + 0.6),
                     layout="constrained")
        axes = np.atleast_2d(fig.subplots(len(clfs), len(names), squeeze=False))
        styles = self._styles(list(METHODS.values()))
        t2 = self.table2()
        t2 = t2[t2.k > 0]
        for col, name in enumerate(names):
            for row, clf in enumerate(clfs):
                ax = axes[row, col]
                for label in METHODS.values():
                    d = t2[(t2.dataset == name) & (t2.classifier == clf) & (t2.method == label)]
                    st = styles[label]
                    ax.plot(d.k, d.ours_mean, label=label, color=st["color"],
                            marker=st["marker"], markersize=3)
                    if d.paper_mean.notna().any():
                        ax.plot(d.k, d.paper_mean, color=st["color"], linestyle="--",
                                linewidth=1)
                if row == 0:
                    ax.set_title(name)
                if col == 0:
                    ax.set_ylabel(f"{clf} accuracy (%)")
                if row == len(clfs) - 1:
                    ax.set_xlabel("k")
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=len(labels))
        return fig

    # -- everything -----------------------------------------------------------------------
    def notes(self) -> list[str]:
        c = self.c
        return [
            "Data: the project's registry sets as stored (no log transform). Prostate has "
            "12600 probes here (the paper: 6034); the paper's Lymphoma (Alizadeh, 4026 genes, "
            "3 classes) is not available and DLBCL (Shipp, 7129 genes, 2 classes) stands in "
            "for it, so rows and claims on 'Lymphoma' are not comparable.",
            f"Folds: {c.n_partitions} random partitions into {c.n_folds} folds, stratified by "
            "class (the paper does not say); every method sees the same training parts.",
            "Standardisation: every feature is standardised (mean 0, population sd 1) on the "
            "samples each method sees (training part or full data), so that distances are "
            "correlations on those samples; the paper standardised once.",
            f"DGF: K = {c.n_neighbors} nearest neighbours "
            + ("counting the feature itself (the paper: 'when K=1, the bandwidth will be "
               "zero')" if c.self_neighbor else "not counting the feature itself (the other "
               "reading; the paper's is self_neighbor=true)")
            + f", {c.kernel} kernel (the paper names the flat and the "
            "Gaussian kernel without saying which; an untruncated Gaussian finds one peak on "
            "these sets), stop at a step of 1e-3 h, merge into the closest earlier peak within "
            "h, groups = features within h of a peak, low-density groups dropped (mean distance "
            "of the peak to its 5 nearest features above h). Fig. 2 takes the densest groups "
            "(density at the peak, eq. 1) as 'top k'.",
            "DRAGS: groups ranked by the mean F-statistic of their members; the representative "
            "of a group is the member with the highest mean Pearson correlation to the other "
            "members; classifiers use the k representatives.",
            f"K-means: {c.kmeans_n_init} restarts, lowest WSS, on the standardised features. "
            f"Fig. 2 clusters with K = k ({_klist(c.kmeans_sizes)}); Table 2 and Fig. 3 "
            f"cluster with K = {c.kmeans_clusters} (not stated in the paper) and select the "
            "clusters whose representative (DRAGS rule) is among the k most relevant. Its "
            "Sim^M_ID is the higher of all members and the 5 features closest to the centre, "
            "as in the paper.",
            "SVM-RFE: linear SVM (C = 1, min-max scaled as Weka's SMO), halving the remaining "
            "features down to 50, then one at a time; the top k of its ranking. More than two "
            "classes (SRBCT): one-vs-rest, squared weights summed.",
            "Sim^M_V: Pearson correlation of group centres (mean of the members' standardised "
            "values) on all samples; Sim^M_ID: Sim_ID of the member sets (eq. 5); both by "
            "maximum-weight matching (eq. 6), averaged over the training parts against the "
            "full-data result (eq. 7).",
            "Classifiers: linear SVM (C = 1) and 1NN on min-max scaled features (Weka's SMO "
            "and IBk defaults), trained on the training part, accuracy on the held-out fold.",
            f"Verdicts: percentile bootstrap over the {c.n_partitions} partitions (the three "
            f"folds of a partition share samples), {c.n_bootstrap} resamples, "
            f"{100 * (1 - c.alpha):g} % intervals, paired between methods; 'almost perfect' "
            f">= {c.near_one:g}, 'almost zero' <= {c.near_zero:g}, 'similar' accuracy within "
            f"+-{c.same_margin:g} points.",
        ]

    def summary(self, claims: list[Claim]) -> list[str]:
        told = count_verdicts(cl.verdict for cl in claims)
        out = [f"Of the {len(claims)} claims checked on {', '.join(self.names)}: {told}."]
        for group, ids in (("dense groups (Fig. 2)", "2"), ("accuracy (Table 2)", "T"),
                           ("selection stability (Fig. 3)", "3")):
            mine = [cl for cl in claims if cl.id.startswith(ids)]
            out.append(f"{group}: " + ", ".join(f"{cl.id} {cl.verdict}" for cl in mine) + ".")
        return out

    def outcome(self) -> Outcome:
        t2 = self.table2()
        tables = {"datasets": self.info, "stability": self.stab_summary,
                  "stability_folds": self.stab, "accuracy": self.acc_summary,
                  "accuracy_folds": self.acc, "table2": t2,
                  "drags_signature": self.signature}
        claims = self.claims()
        return Outcome(tables=tables, figures=self.figures(), claims=claims,
                       published=self.published(t2), notes=self.notes(),
                       sections=self.sections(t2), summary=self.summary(claims))

    def sections(self, t2: pd.DataFrame) -> list[tuple[str, str]]:
        """Where ours and the paper's numbers part, computed from the run."""
        out = []
        both = t2[(t2.k > 0) & t2.paper_mean.notna() & (t2.dataset != "dlbcl")]
        if len(both):
            gap = (both.assign(d=both.ours_mean - both.paper_mean)
                   .groupby(["dataset", "method"], sort=False)["d"].mean())
            parts = [f"{name}: " + ", ".join(f"{m} {gap[name, m]:+.1f}"
                                              for m in METHODS.values() if (name, m) in gap)
                     for name in dict.fromkeys(both.dataset)]
            pub = published_table2()
            rfe4 = []
            for name in dict.fromkeys(both.dataset):
                row = pub[(pub.data == PAPER_LABEL[name]) & (pub.classifier == "SVM")
                          & (pub.method == "RFE") & (pub.k == min(TABLE2_SIZES))]
                ours = both[(both.dataset == name) & (both.classifier == "SVM")
                            & (both.method == "SVM-RFE") & (both.k == min(TABLE2_SIZES))]
                if len(row) and len(ours):
                    rfe4.append(f"{name} {row['mean'].item():.1f} (ours "
                                f"{ours.ours_mean.item():.1f}; majority class "
                                f"{self.majority[name]:.1f})")
            out.append((
                "Ours against the paper's Table 2",
                "Mean over k and classifiers of our accuracy minus the paper's, in points: "
                + "; ".join(parts) + ". The paper's SVM-RFE with 4 features (linear SVM): "
                + "; ".join(rfe4) + ". Where the paper's SVM-RFE is near the majority-class "
                "rate, the claims that DRAGS beats it at small k rest on that baseline; "
                "DLBCL is left out (the paper's Lymphoma is another data set)."))
        comp = []
        kmax = max(self.c.sizes)
        for d, name in enumerate(self.names):
            groups = _unpack(self.by_key[(_REF, d)], "drags")[:kmax]
            if groups:
                comp.append(f"{name} {sum(len(g) == 1 for g in groups)}/{len(groups)} "
                            f"(mean size {np.mean([len(g) for g in groups]):.1f})")
        reading = ("a feature counts as its own first neighbour (self_neighbor=true), so a "
                   f"lone feature whose own {self.c.n_neighbors}-nearest mean distance is below "
                   "h passes the low-density test" if self.c.self_neighbor else
                   "a feature is not its own neighbour (self_neighbor=false), so no group of "
                   "one feature passes the low-density test")
        out.append((
            "What DRAGS selects",
            f"Groups of one feature among the {kmax} most relevant dense groups of the full "
            f"data: {'; '.join(comp)}. With this run's reading of K, {reading}; the most relevant "
            "groups are then mostly single genes, and DRAGS comes close to ranking isolated "
            "genes by their F-statistic."))
        return out


def _klist(ks) -> str:
    ks = list(ks)
    if len(ks) <= 8:
        return ", ".join(map(str, ks))
    return f"{ks[0]}, {ks[1]}, ..., {ks[-1]}"


def _vals(names, values, digits: int = 3) -> str:
    return ", ".join(f"{n} {_fmt(v, digits)}" for n, v in zip(names, values)) or "none"
