"""Han 2012, ch. 7: SVM-RFE and ReliefF, plain, ensemble and instance-weighted, on four
microarray sets (``stablefs reproduce han2012-microarray``).

The experiment (Han 2012, secs. 7.1-7.5):

* **Data**: Colon, Leukemia, Prostate and Lung from the project's registry
  (:func:`stablefs.datasets.load`), values as stored. Prostate here has 12,600 probes (the
  thesis used the filtered 6034-gene version, which is not public in that form). For Lung
  the thesis kept the 5000 genes with the largest t-statistic computed once on all 181
  samples, so the filter saw the test samples; here the same filter is fitted on each
  training part only (``prefilter``), and rankings refer to the original genes.
* **Methods**: SVM-RFE (:class:`~stablefs.selectors.SVMRFE`: linear SVM, C = 1, min-max
  scaled, 10 % of the remaining features per iteration), ReliefF
  (:class:`~stablefs.selectors.ReliefF`), each plain, as a 20-member bootstrap ensemble with
  rank-sum aggregation (``en-``, sec. 5.2.3) and with margin-based instance weights
  (``iw-``, Alg. 1, eq. 5.2 / 5.3): the method strings ``svm-rfe``, ``en-svm-rfe``,
  ``iw-svm-rfe``, ``relieff``, ``en-relieff``, ``iw-relieff``.
* **10 x 10-fold CV** (secs. 7.2-7.3, Figs. 7.3-7.4, Tables 7.2-7.3): stratified 10-fold
  CV repeated 10 times; Kuncheva's index of the 10 subsets of one repetition (45 pairs),
  averaged over the 10 repetitions, for k = 10, 20, ..., 50; accuracy of a linear SVM and
  of 1NN (Weka-like: min-max scaled on the training part) on the held-out folds, mean and
  sd over the repetitions.
* **100 random splits** (secs. 7.2, 7.4, Figs. 7.5-7.6, Tables 7.4-7.5): stratified, 2/3
  to train; nPOGR (eq. 5.8) over the 100 subsets and AUC of both classifiers for
  k = 10, 50, 100, 150, 200; the consensus counts of Table 7.6 (genes chosen in at least
  one, more than 50 and more than 85 of the 100 signatures of size 50).
* **Running time** (Fig. 7.9): CPU seconds of each fit (one thread per fit).

Every (data set, repetition, fold) and (data set, split) is one unit with its own random
stream; every method sees the same training parts. Verdicts use a percentile bootstrap over
the repetitions (CV) or the splits (nPOGR, whose pairs are resampled with their subsets).

This module holds the protocol (configuration, units, tables, claims); nPOGR's units are in
:mod:`.han2012_microarray_npogr`, Tables 7.2-7.6 in :mod:`.han2012_microarray_published`, the
figures, notes and published numbers in :mod:`.han2012_microarray_report`.
"""

from __future__ import annotations

import dataclasses
import time
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
from stablefs.experiments._claims import Cells
from stablefs.experiments._montecarlo import (
    draw_state,
    run_units,
    stratified_fold_labels,
    top_k_scores,
    unit_seed,
)
from stablefs.experiments._stats import (
    MARGINS,
    better_rule,
    bootstrap_counts,
    combine_verdicts,
    mean_boot,
    pair_mean_boot,
    threshold_rule,
    verdict_at_least,
    verdict_positive,
)
from stablefs.experiments.han2012_microarray.npogr import (  # noqa: F401 (tests import it)
    npogr_data as _npogr_data,
)
from stablefs.experiments.han2012_microarray.npogr import npogr_study
from stablefs.experiments.han2012_microarray.published import (
    CV_SIZES,
    SPLIT_SIZES,
    published_consensus,
    published_tables,
)

__all__ = ["CV_SIZES", "SPLIT_SIZES", "Han2012MicroarrayProtocol", "Han2012MicroarrayConfig",
           "pair_mean_boot", "published_consensus", "published_tables"]

DATASETS = ("colon", "leukemia", "prostate", "lung")
PAPER_LABEL = {"colon": "Colon", "leukemia": "Leukemia", "prostate": "Prostate", "lung": "Lung"}
#: method string -> the thesis' label
METHODS = {"svm-rfe": "SVM-RFE", "en-svm-rfe": "En SVM-RFE", "iw-svm-rfe": "IW SVM-RFE",
           "relieff": "ReliefF", "en-relieff": "En ReliefF", "iw-relieff": "IW ReliefF"}
#: the controls (config ``controls``): eq. 5.2 with the margin weights as printed (summing to
#: 1, so every penalty is C w_i, about C/n) and plain SVM-RFE with that smaller penalty C/n
CONTROLS = {"iw-svm-rfe-printed": "IW SVM-RFE (weights sum to 1)",
            "svm-rfe-small-c": "SVM-RFE (C/n)"}
#: family -> (plain, ensemble, instance-weighted)
FAMILIES = {"SVM-RFE": ("svm-rfe", "en-svm-rfe", "iw-svm-rfe"),
            "ReliefF": ("relieff", "en-relieff", "iw-relieff")}
LABEL = {**METHODS, **CONTROLS}
CLASSIFIER_LABEL = {"svm": "SVM", "1nn": "1NN"}
#: genes of the registry sets (for the time estimate without loading them)
_N_FEATURES = {"colon": 2000, "leukemia": 7129, "prostate": 12600, "lung": 12533}
_N_SAMPLES = {"colon": 62, "leukemia": 72, "prostate": 102, "lung": 181}
#: CPU seconds of the six methods' fits on one training part (measured, one thread), and
#: the genes they saw where that is not the whole set (Lung: the 5000-gene pre-filter)
_FIT_CPU = {"colon": 0.43, "leukemia": 0.84, "prostate": 1.73, "lung": 1.49}
_FIT_GENES = {"lung": 5000}
#: study numbers in the units' random-stream keys
_CV, _SPLIT, _CVFOLDS, _SPLITS, _BOOT, _NPOGR = 1, 2, 3, 4, 9, 10

@dataclass(frozen=True)
class Han2012MicroarrayConfig:
    """Settings of ``han2012-microarray``; the defaults are the thesis' (Han 2012, ch. 7).

    Attributes
    ----------
    datasets : tuple of str
        Registry names (Colon, Leukemia, Prostate, Lung).
    cv_repeats, cv_folds : int
        The 10 x 10-fold cross-validation of secs. 7.2-7.3.
    cv_sizes : tuple of int
        k for Kuncheva and accuracy (10, 20, ..., 50).
    n_splits : int
        Random stratified 2/3 splits for nPOGR, AUC and Table 7.6 (100).
    split_sizes : tuple of int
        k for nPOGR and AUC (10, 50, ..., 200).
    signature_size : int
        k of the consensus counts of Table 7.6 (50); must be one of ``split_sizes``.
    prefilter : int
        Genes kept by a t-test on each training part of the sets in ``prefilter_sets``
        (the thesis kept 5000 of Lung's, on all samples); 0 = none.
    prefilter_sets : tuple of str
    classifiers : tuple of str
        ``svm`` and ``1nn``.
    npogr_fdr : float
        FDR level of nPOGR's correlation tests (Zhang et al. 2009: 0.1 %).
    npogr_pairs : int
        Random subset pairs for nPOGR's expected number of correlated genes E(O).
    n_bootstrap, alpha : int, float
        Bootstrap resamples and the level of the intervals behind the verdicts.
    near_one : float
        "Almost perfect" stability: the interval must lie at or above this.
    within_share : float
        Claim 8 ("within about 1 sd in most cells"): the share of cells required.
    controls : bool
        Also run the two controls of the instance weighting (:data:`CONTROLS`): IW SVM-RFE
        with the margin weights as printed (eq. 4.6 sums them to 1, so eq. 5.2 gives every
        sample the penalty C w_i, about C/n) and plain SVM-RFE with C/n, which separates the
        effect of the weights from that of the smaller penalty. ``iw-svm-rfe`` itself uses
        weights of mean 1 (:class:`~stablefs.selectors.SVMRFE`).
    """

    datasets: tuple = DATASETS
    cv_repeats: int = 10
    cv_folds: int = 10
    cv_sizes: tuple = CV_SIZES
    n_splits: int = 100
    split_sizes: tuple = SPLIT_SIZES
    signature_size: int = 50
    prefilter: int = 5000
    prefilter_sets: tuple = ("lung",)
    classifiers: tuple = ("svm", "1nn")
    npogr_fdr: float = 0.001
    npogr_pairs: int = 1000
    n_bootstrap: int = 2000
    alpha: float = 0.05
    near_one: float = 0.9
    within_share: float = 0.5
    controls: bool = True


def run_methods(cfg) -> list[str]:
    """The method keys a configuration runs: the six of the thesis, then the controls."""
    controls = cfg["controls"] if isinstance(cfg, dict) else cfg.controls
    return list(METHODS) + (list(CONTROLS) if controls else [])


def _make(spec: str, n_train: int):
    """The selector of ``spec`` (a method string, or a control at C/n)."""
    from stablefs.methods import make_selector

    if spec == "iw-svm-rfe-printed":  # the library's default since issue 18
        return make_selector("iw-svm-rfe", penalty="printed")
    if spec == "iw-svm-rfe":  # the thesis' main reading here stays the mean-1 weights
        return make_selector("iw-svm-rfe", penalty="mean")
    if spec == "svm-rfe-small-c":
        return make_selector("svm-rfe").set_params(C=1.0 / n_train)
    return make_selector(spec)


# ------------------------------------------------------------------------ units


def _cv_folds(y: np.ndarray, n_folds: int, seed: int, d: int, rep: int) -> np.ndarray:
    """Fold of every sample in repetition ``rep`` of stratified k-fold CV."""
    return stratified_fold_labels(y, n_folds, unit_seed(seed, _CVFOLDS, d, rep))


def _split_test(y: np.ndarray, seed: int, d: int, split: int) -> np.ndarray:
    """Test mask of random stratified split ``split`` (2/3 of each class to train)."""
    from stablefs.evaluation.protocols import stratified_subsample

    rng = np.random.default_rng(unit_seed(seed, _SPLITS, d, split))
    test = np.ones(y.size, dtype=bool)
    test[stratified_subsample(y, 2 / 3, rng)] = False
    return test


def _prefiltered(X: np.ndarray, y: np.ndarray, keep: int) -> np.ndarray:
    """The ``keep`` genes with the largest Welch t-statistic on (X, y), in index order."""
    from stablefs.selectors import TTest

    ranking = TTest().fit(X, y).ranking_
    return np.sort(np.argsort(ranking, kind="stable")[:keep])


def _unit(key, *, cfg: dict, seed: int, data: dict) -> dict[str, np.ndarray]:
    """One training part: every method fitted (CPU time recorded), the top genes kept, and
    the classifiers scored on the held-out samples (accuracy for CV, AUC for splits)."""
    from stablefs._runtime.threads import limit_threads

    study, d = key[0], key[1]
    name = cfg["datasets"][d]
    X, y = data[name]
    if study == _CV:
        test = _cv_folds(y, cfg["cv_folds"], seed, d, key[2]) == key[3]
        sizes, metric = cfg["cv_sizes"], "accuracy"
    else:
        test = _split_test(y, seed, d, key[2])
        sizes, metric = cfg["split_sizes"], "auc"
    rng = np.random.default_rng(unit_seed(seed, *key))
    Xtr, ytr, Xte, yte = X[~test], y[~test], X[test], y[test]
    out: dict[str, np.ndarray] = {"test": np.flatnonzero(test).astype(np.int32)}
    with limit_threads(1):
        cols = np.arange(X.shape[1])
        if cfg["prefilter"] and name in cfg["prefilter_sets"] and X.shape[1] > cfg["prefilter"]:
            cols = _prefiltered(Xtr, ytr, cfg["prefilter"])
        for spec in run_methods(cfg):
            selector = _make(spec, ytr.size)
            state = draw_state(rng)  # drawn for every method: stable streams
            if "random_state" in selector.get_params():
                selector.set_params(random_state=state)
            start = time.process_time()
            selector.fit(Xtr[:, cols], ytr)
            out[f"{spec}:time"] = np.array(time.process_time() - start)
            order = cols[np.argsort(selector.ranking_, kind="stable")[: max(sizes)]]
            out[f"{spec}:order"] = order.astype(np.int32)
            out[f"{spec}:{metric}"] = top_k_scores(Xtr, ytr, Xte, yte, order, sizes,
                                                   cfg["classifiers"], metric)
    return out


# ------------------------------------------------------------------------ the experiment


class Han2012MicroarrayProtocol(Experiment):
    """Han 2012, ch. 7: plain, ensemble and instance-weighted SVM-RFE and ReliefF."""

    name = "han2012-microarray"
    title = "SVM-RFE and ReliefF, plain, ensemble and instance-weighted, on microarrays"
    citation = "Han 2012, ch. 7"
    description = (
        "Han (2012) weights the training samples by their margins to make SVM-RFE and "
        "ReliefF more stable, and compares this with bootstrap ensembles. On Colon, "
        "Leukemia, Prostate and Lung the experiment measures Kuncheva's index and accuracy "
        "under 10 x 10-fold CV (k = 10 to 50), nPOGR and AUC over 100 random 2/3 splits "
        "(k = 10 to 200), the consensus counts of the 50-gene signatures (Table 7.6) and "
        "the running times."
    )
    Config = Han2012MicroarrayConfig

    def quick_config(self) -> Han2012MicroarrayConfig:
        return Han2012MicroarrayConfig(datasets=("colon",), cv_repeats=2, cv_folds=5,
                                       n_splits=8, split_sizes=(10, 50), npogr_pairs=200,
                                       n_bootstrap=500)

    def check_config(self, config) -> None:
        super().check_config(config)
        c = config
        check_datasets(c.datasets, "colon,lung", DATASETS)
        if not isinstance(c.prefilter_sets, tuple):
            raise StablefsError("prefilter_sets: name data sets, e.g. lung.")
        check_whole("cv_repeats", c.cv_repeats, 2)
        check_whole("cv_folds", c.cv_folds, 2)
        check_whole("n_splits", c.n_splits, 2)
        check_grid("cv_sizes", c.cv_sizes)
        check_grid("split_sizes", c.split_sizes)
        if c.signature_size not in c.split_sizes:
            raise StablefsError(f"signature_size = {c.signature_size} must be one of "
                                f"split_sizes ({','.join(map(str, c.split_sizes))}).")
        check_whole("prefilter", c.prefilter, 0)
        if 0 < c.prefilter < max(c.split_sizes + c.cv_sizes):
            raise StablefsError(f"prefilter = {c.prefilter} keeps fewer genes than the "
                                "largest k: keep more, or 0 for none.")
        check_classifiers(c.classifiers, tuple(CLASSIFIER_LABEL))
        check_whole("npogr_pairs", c.npogr_pairs, 10)
        check_whole("n_bootstrap", c.n_bootstrap, 10)
        check_real("npogr_fdr", c.npogr_fdr, 0.0, 1.0)
        check_real("alpha", c.alpha, 0.0, 0.5)
        check_real("near_one", c.near_one, 0.0, 1.0)
        check_real("within_share", c.within_share, 0.0, 1.0)
        for name in c.datasets:
            n = _N_SAMPLES[name]
            if max(c.split_sizes + c.cv_sizes) >= _N_FEATURES[name]:
                raise StablefsError(f"the largest k must be below {name}'s "
                                    f"{_N_FEATURES[name]} genes.")
            if c.cv_folds > n // 3:
                raise StablefsError(f"cv_folds = {c.cv_folds} is too many for {name} "
                                    f"({n} samples).")

    def sizes(self, config) -> str:
        n = len(config.datasets)
        m = len(run_methods(config))
        return (f"{n} set{'s' if n != 1 else ''}; {config.cv_repeats} x {config.cv_folds}-fold "
                f"CV and {config.n_splits} splits; {m} methods")

    def estimate_seconds(self, config, n_jobs: int = 1) -> float:
        """Calibrated on this project's two-core machine, both cores free (one thread per
        unit; full run of 2026-11-23, 15.1 min): CPU seconds of the six fits of a training
        part (:data:`_FIT_CPU`, Lung with the 5000-gene pre-filter; growing with the genes
        kept), 12 % more with the controls; about 3 ms per classifier, method and k; nPOGR
        about 0.5 (k / 50)^2 s per (set, method, k) with 100 splits (pairs grow with the
        square of the splits)."""
        cpu = 0.0
        n_clf = len(config.classifiers)
        n_methods = len(run_methods(config))
        for name in config.datasets:
            p = _N_FEATURES[name]
            if config.prefilter and name in config.prefilter_sets:
                p = min(p, config.prefilter)
            fits = _FIT_CPU[name] * p / _FIT_GENES.get(name, _N_FEATURES[name])
            fits *= 1.12 if config.controls else 1.0
            cv_units = config.cv_repeats * config.cv_folds
            cpu += (fits + 0.003 * n_methods * len(config.cv_sizes) * n_clf) * cv_units
            cpu += (fits + 0.003 * n_methods * len(config.split_sizes) * n_clf) * config.n_splits
            cpu += sum(0.5 * (k / 50) ** 2 for k in config.split_sizes) * n_methods * (
                config.n_splits / 100) ** 2
        return estimate_wall(cpu, n_jobs, 10.0)

    def run(self, config: Han2012MicroarrayConfig, *, seed: int, n_jobs: int = 1,
            progress: bool = False, cache=None) -> Outcome:

        cfg = dataclasses.asdict(config)
        clock = Stopwatch()
        with clock("load"):
            data = load_registry_sets(config.datasets)
        n_sets = len(config.datasets)
        keys = [(_CV, d, r, f) for d in range(n_sets) for r in range(config.cv_repeats)
                for f in range(config.cv_folds)]
        keys += [(_SPLIT, d, s) for d in range(n_sets) for s in range(config.n_splits)]
        with clock("fits"):
            results = run_units(_unit, keys, study="units",
                                common={"cfg": cfg, "seed": seed, "data": data},
                                n_jobs=n_jobs, progress=progress, cache=cache,
                                desc="training parts")
        with clock("analysis"):
            analysis = self.report_type(
                config, data, dict(zip(keys, results, strict=True)), seed, n_jobs=n_jobs,
                progress=progress, cache=cache)
            outcome = analysis.outcome()
        outcome.timings = clock.timings
        return outcome


# ------------------------------------------------------------------------ analysis


class _Analysis(Analysis):
    """Tables and claims from the units' results (the figures, notes and published numbers:
    :class:`~stablefs.experiments.han2012_microarray.report.Han2012MicroarrayReport`)."""

    def __init__(self, config: Han2012MicroarrayConfig, data: dict, by_key: dict, seed: int,
                 *, n_jobs: int = 1, progress: bool = False, cache=None):
        from stablefs.stability import kuncheva

        self.c = config
        self.names = list(config.datasets)
        self.methods = run_methods(config)
        self.seed = seed
        self.rng = np.random.default_rng(unit_seed(seed, _BOOT))
        c = config
        rows_k, rows_acc, rows_auc, rows_t = [], [], [], []
        self.split_orders: dict[tuple[str, str], np.ndarray] = {}
        self.p = {}
        for d, name in enumerate(self.names):
            X, y = data[name]
            self.p[name] = X.shape[1]
            for spec in self.methods:
                times = []
                for r in range(c.cv_repeats):
                    units = [by_key[(_CV, d, r, f)] for f in range(c.cv_folds)]
                    times += [float(u[f"{spec}:time"]) for u in units]
                    acc = np.mean([u[f"{spec}:accuracy"] for u in units], axis=0)
                    for a, k in enumerate(c.cv_sizes):
                        subsets = [u[f"{spec}:order"][:k] for u in units]
                        rows_k.append((name, spec, r, k, kuncheva(subsets, X.shape[1])))
                        for b, clf in enumerate(c.classifiers):
                            rows_acc.append((name, spec, clf, k, r, acc[a, b]))
                units = [by_key[(_SPLIT, d, s)] for s in range(c.n_splits)]
                times += [float(u[f"{spec}:time"]) for u in units]
                self.split_orders[(name, spec)] = np.stack([u[f"{spec}:order"] for u in units])
                for s, u in enumerate(units):
                    for a, k in enumerate(c.split_sizes):
                        for b, clf in enumerate(c.classifiers):
                            rows_auc.append((name, spec, clf, k, s, u[f"{spec}:auc"][a, b]))
                rows_t.append((name, spec, float(np.mean(times)), float(np.median(times))))
        self.cv_kuncheva = pd.DataFrame(rows_k, columns=["dataset", "method", "repeat", "k",
                                                         "kuncheva"])
        self.cv_accuracy = pd.DataFrame(rows_acc, columns=["dataset", "method", "classifier",
                                                           "k", "repeat", "accuracy"])
        self.split_auc = pd.DataFrame(rows_auc, columns=["dataset", "method", "classifier",
                                                         "k", "split", "auc"])
        self.times = pd.DataFrame(rows_t, columns=["dataset", "method", "mean_cpu_s",
                                                   "median_cpu_s"])
        self.npogr, self.npogr_pairs = npogr_study(
            c, self.names, self.methods, data, self.split_orders, self.p, seed, study=_NPOGR,
            n_jobs=n_jobs, progress=progress, cache=cache)
        self.consensus = self._consensus()

    # -- nPOGR over the splits -----------------------------------------------------------
    def _consensus(self) -> pd.DataFrame:
        """Table 7.6: genes in at least one / more than half / more than 85 % of the
        signatures of size ``signature_size`` over the splits (the thesis: > 50 and > 85 of
        100)."""
        c = self.c
        rows = []
        for name in self.names:
            for spec in self.methods:
                orders = self.split_orders[(name, spec)][:, :c.signature_size]
                freq = np.bincount(orders.ravel(), minlength=self.p[name])
                share = freq / c.n_splits
                rows.append((name, spec, int(np.count_nonzero(freq)),
                             int(np.count_nonzero(share > 0.5)),
                             int(np.count_nonzero(share > 0.85)), int(freq.sum())))
        return pd.DataFrame(rows, columns=["dataset", "method", "distinct", "over50", "over85",
                                           "total"])

    # -- summaries ------------------------------------------------------------------------
    def kuncheva_summary(self) -> pd.DataFrame:
        return mean_sd(self.cv_kuncheva, ["dataset", "method", "k"], "kuncheva")

    def accuracy_summary(self) -> pd.DataFrame:
        return mean_sd(self.cv_accuracy, ["dataset", "method", "classifier", "k"], "accuracy")

    def auc_summary(self) -> pd.DataFrame:
        return mean_sd(self.split_auc, ["dataset", "method", "classifier", "k"], "auc")

    # -- bootstrap helpers ----------------------------------------------------------------
    def _kuncheva_diff_boot(self, name: str, a: str, b: str, counts) -> tuple[float, np.ndarray]:
        """Mean over k of Kuncheva(a) - Kuncheva(b), paired by CV repetition."""
        t = self.cv_kuncheva[self.cv_kuncheva.dataset == name]
        wide = t.pivot_table(index="repeat", columns=["method"], values="kuncheva",
                             aggfunc="mean")
        diff = (wide[a] - wide[b]).to_numpy()
        return float(diff.mean()), mean_boot(diff, counts)

    def _npogr_diff_boot(self, name: str, a: str, b: str, counts) -> tuple[float, np.ndarray]:
        """Mean over k of nPOGR(a) - nPOGR(b), splits resampled (pairs follow)."""
        est, boots = [], []
        for k in self.c.split_sizes:
            sa, sb = self.npogr_pairs[(name, a, k)], self.npogr_pairs[(name, b, k)]
            diff = sa.values - sb.values
            est.append(diff.mean())
            boots.append(pair_mean_boot(diff, sa.i, sa.j, counts))
        return float(np.mean(est)), np.mean(boots, axis=0)

    # -- claims ---------------------------------------------------------------------------
    def claims(self) -> list[Claim]:
        c = self.c
        out: list[Claim] = []
        counts_cv = bootstrap_counts(self.rng, c.cv_repeats, c.n_bootstrap)
        counts_sp = bootstrap_counts(self.rng, c.n_splits, c.n_bootstrap)
        ks = f"k = {','.join(map(str, c.cv_sizes))}"
        kp = f"k = {','.join(map(str, c.split_sizes))}"
        m_k, m_p = MARGINS["kuncheva"], MARGINS["npogr"]
        cv_test = (f"per data set, the mean over {ks} of the paired difference of Kuncheva's "
                   "index (per CV repetition); " + better_rule(m_k, c.cv_repeats, c.alpha)
                   + "; the claim holds if it holds on every set, does not hold if it fails "
                   "on one")

        def compare(cid, statement, pairs, kind, sets=None, evidence=""):
            cells, parts = Cells(), []
            for name in (sets or self.names):
                for a, b in pairs:
                    if kind == "kuncheva":
                        est, boot = self._kuncheva_diff_boot(name, a, b, counts_cv)
                        runs, margin = c.cv_repeats, m_k
                    else:
                        est, boot = self._npogr_diff_boot(name, a, b, counts_sp)
                        runs, margin = c.n_splits, m_p
                    v, lo, hi = cells.add(verdict_positive(boot, c.alpha, runs=runs,
                                                           margin=margin, estimate=est))
                    parts.append(f"{PAPER_LABEL[name]} {LABEL[a]} - {LABEL[b]} "
                                 f"{est:+.3f} [{lo:+.3f}, {hi:+.3f}]")
            test = cv_test if kind == "kuncheva" else (
                f"per data set, the mean over {kp} of the difference of nPOGR over the "
                "splits (all pairs); " + better_rule(m_p, c.n_splits, c.alpha)
                + "; the claim holds if it holds on every set named, does not hold if it "
                "fails on one")
            out.append(Claim(cid, statement, test, "; ".join(parts), cells.verdict, evidence))

        compare("5", "10 x 10 CV, k = 10..50: IW SVM-RFE is more stable (Kuncheva) than En "
                "SVM-RFE and than SVM-RFE on Colon, Leukemia, Prostate and Lung (Han 2012, "
                "Fig. 7.3).", [("iw-svm-rfe", "svm-rfe"), ("iw-svm-rfe", "en-svm-rfe")],
                "kuncheva", evidence="tables/cv_kuncheva.csv")
        compare("6a", "ReliefF is more stable (Kuncheva) than SVM-RFE on every set (Fig. 7.4 "
                "against Fig. 7.3).", [("relieff", "svm-rfe")], "kuncheva",
                evidence="tables/cv_kuncheva.csv")
        compare("6b", "The ensemble makes ReliefF less stable: Kuncheva(En ReliefF) < "
                "Kuncheva(ReliefF) (Fig. 7.4).", [("relieff", "en-relieff")], "kuncheva",
                evidence="tables/cv_kuncheva.csv")
        if "lung" in self.names:
            t = self.cv_kuncheva[(self.cv_kuncheva.dataset == "lung")
                                 & (self.cv_kuncheva.method == "iw-relieff")]
            per_rep = t.groupby("repeat")["kuncheva"].mean().to_numpy()
            v, lo, hi = verdict_at_least(mean_boot(per_rep, counts_cv), c.near_one, c.alpha,
                                         runs=c.cv_repeats, estimate=float(per_rep.mean()))
            out.append(Claim(
                "6c", "IW ReliefF is almost perfectly stable on Lung (Fig. 7.4).",
                f"mean Kuncheva over {ks}; "
                + threshold_rule(c.near_one, "at or above", c.cv_repeats, c.alpha),
                f"{per_rep.mean():.3f} [{lo:.3f}, {hi:.3f}]", v, "tables/cv_kuncheva.csv"))
        compare("7a", f"100 random splits, {kp}: nPOGR(IW) > nPOGR(plain) for SVM-RFE and "
                "ReliefF on all sets (Figs. 7.5-7.6).",
                [("iw-svm-rfe", "svm-rfe"), ("iw-relieff", "relieff")], "npogr",
                evidence="tables/npogr.csv")
        sets_7b = [n for n in self.names if n != "prostate"]
        if sets_7b:
            compare("7b", "nPOGR(IW ReliefF) > nPOGR(En ReliefF) except on Prostate "
                    "(Fig. 7.6).", [("iw-relieff", "en-relieff")], "npogr", sets=sets_7b,
                    evidence="tables/npogr.csv")
        out.append(self._claim_within())
        out += self._claims_consensus("iw-svm-rfe")
        out.append(self._claim_times())
        if c.controls:  # the same claims with the weights as printed (penalties C w_i)
            printed = "iw-svm-rfe-printed"
            compare("5-printed", "Claim 5 with IW SVM-RFE's weights as printed (summing to 1).",
                    [(printed, "svm-rfe"), (printed, "en-svm-rfe")], "kuncheva",
                    evidence="tables/cv_kuncheva.csv")
            compare("7a-printed", "Claim 7a (SVM-RFE) with IW SVM-RFE's weights as printed.",
                    [(printed, "svm-rfe")], "npogr", evidence="tables/npogr.csv")
            out += self._claims_consensus(printed)
        return out

    def _claim_within(self) -> Claim:
        c = self.c
        s = self.accuracy_summary()
        inside, total, gains = 0, 0, []
        for (name, clf, k), g in s.groupby(["dataset", "classifier", "k"], sort=False):
            by = g.set_index("method")
            for plain, en, iw in FAMILIES.values():
                for other in (en, iw):
                    diff = by.loc[other, "mean"] - by.loc[plain, "mean"]
                    inside += abs(diff) <= by.loc[plain, "sd"]
                    total += 1
                    if other == iw:
                        gains.append((diff, name, clf, k, plain))
        share = inside / total if total else float("nan")
        best = max(gains, key=lambda g: g[0])
        worst = min(gains, key=lambda g: g[0])

        def says(g):
            return (f"{PAPER_LABEL[g[1]]} {METHODS[g[4]]} {CLASSIFIER_LABEL[g[2]]} k = {g[3]}: "
                    f"{100 * g[0]:+.1f} points")

        verdict = "holds" if share > c.within_share else "does not hold"
        return Claim(
            "8", "Accuracy (Tables 7.2-7.3): the three versions are within about one sd of "
                 "each other in most cells; the largest IW gain is Colon SVM-RFE with SVM "
                 "(86.6 vs 82.1 at k = 20), the largest losses Prostate SVM-RFE with SVM at "
                 "k = 30-50 and Colon SVM-RFE with 1NN at k = 50.",
            f"share of (set, classifier, k, family, En or IW) cells whose mean accuracy is "
            f"within one sd (over the CV repetitions) of the plain method's; holds if above "
            f"{c.within_share:g} (a count, no interval, as in the thesis)",
            f"{inside} of {total} cells ({share:.0%}); largest IW gain {says(best)}; "
            f"largest IW loss {says(worst)}", verdict, "tables/cv_accuracy.csv")

    def _claims_consensus(self, iw_spec: str) -> list[Claim]:
        """Claims 9a-9b for IW SVM-RFE (``iw_spec``: ``iw-svm-rfe``, or the weights as
        printed, whose claims carry the suffix ``-printed``)."""
        t = self.consensus.set_index(["dataset", "method"])
        v1, v2, parts1, parts2 = [], [], [], []
        suffix = "-printed" if iw_spec.endswith("printed") else ""
        for name in self.names:
            iw, plain, en = (t.loc[(name, m)] for m in (iw_spec, "svm-rfe", "en-svm-rfe"))
            ok = (iw.distinct < plain.distinct and iw.over50 > plain.over50
                  and iw.over85 > plain.over85)
            v1.append("holds" if ok else "does not hold")
            parts1.append(f"{PAPER_LABEL[name]} distinct {iw.distinct} vs {plain.distinct}, "
                          f">50 % {iw.over50} vs {plain.over50}, >85 % {iw.over85} vs "
                          f"{plain.over85}")
            if name != "leukemia":
                ok = iw.distinct < en.distinct and iw.over50 > en.over50
                v2.append("holds" if ok else "does not hold")
                parts2.append(f"{PAPER_LABEL[name]} distinct {iw.distinct} vs {en.distinct}, "
                              f">50 % {iw.over50} vs {en.over50}")
        test = ("counts of Table 7.6 compared directly, as the thesis does (no interval); "
                "holds if the inequality holds on every set")
        printed = " (weights as printed)" if suffix else ""
        out = [Claim("9a" + suffix, "Table 7.6: the IW SVM-RFE signatures have fewer distinct "
                     "genes and more consensus genes (> 50 % and > 85 %) than SVM-RFE's on all "
                     f"sets{printed}.", test, "IW vs SVM-RFE: " + "; ".join(parts1),
                     combine_verdicts(v1), "tables/consensus.csv")]
        if parts2:
            out.append(Claim("9b" + suffix, "Table 7.6: IW SVM-RFE beats En SVM-RFE (fewer "
                             "distinct genes, more genes in more than half) on Colon, Prostate "
                             f"and Lung{printed}.", test, "IW vs En: " + "; ".join(parts2),
                             combine_verdicts(v2), "tables/consensus.csv"))
        return out

    def _claim_times(self) -> Claim:
        t = self.times.groupby("method")["mean_cpu_s"].mean()
        parts, verdicts = [], []
        for family, (plain, en, iw) in FAMILIES.items():
            r_en, r_iw = t[en] / t[plain], t[iw] / t[plain]
            verdicts.append("holds" if 10 <= r_en <= 30 and r_iw <= 2 else "does not hold")
            parts.append(f"{family}: En {r_en:.1f}x, IW {r_iw:.2f}x the base's CPU time")
        return Claim("10", "Running time (Fig. 7.9): En is about 20 times slower than the base "
                     "method; IW only slightly slower.",
                     "mean CPU seconds per fit over every training part and set; holds if "
                     "En / base is within 10-30 and IW / base at most 2",
                     "; ".join(parts), combine_verdicts(verdicts), "tables/times.csv")

    def same_genes_table(self) -> pd.DataFrame:
        """Per set and k, the splits in which IW SVM-RFE (mean-1 weights) keeps exactly the
        top k genes of SVM-RFE (RFE rankings are nested: the top k is the subset RFE reaches
        at k)."""
        c = self.c
        rows = []
        for name in self.names:
            a_all = self.split_orders[(name, "svm-rfe")]
            b_all = self.split_orders[(name, "iw-svm-rfe")]
            for k in sorted({5, 10, 20, 30, c.signature_size} | set(c.split_sizes)):
                if k > min(a_all.shape[1], b_all.shape[1]):
                    continue
                a = np.sort(a_all[:, :k], axis=1)
                b = np.sort(b_all[:, :k], axis=1)
                rows.append({"dataset": name, "k": k, "splits": a.shape[0],
                             "same_as_svm_rfe": int(np.all(a == b, axis=1).sum())})
        return pd.DataFrame(rows)

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"cv_kuncheva": self.kuncheva_summary(), "cv_kuncheva_repeats": self.cv_kuncheva,
                "cv_accuracy": self.accuracy_summary(),
                "cv_accuracy_repeats": self.cv_accuracy, "split_auc": self.auc_summary(),
                "npogr": self.npogr, "consensus": self.consensus, "times": self.times,
                "same_genes": self.same_genes_table()}
