"""The grid of ``stablefs benchmark``: data sets × methods under one protocol.

Every data set is run as one comparison (:func:`~stablefs.evaluation.run_experiment`: the
same resamples for every method, every selection recorded), and every (set, method) pair is a
*cell* of the leaderboard: its Nogueira stability with its interval and the balanced accuracy
of each classifier with an interval, at each subset size k. Each set's fits are cached under
its own folder, so an interrupted benchmark resumes where it stopped, fit by fit; the runner
makes the results independent of ``n_jobs`` and of the backend.

Before the grid runs, one *pilot fit* per cell (a fit on the first training part, timed with
the classifiers' evaluation) predicts the wall time and finds the cells that cannot run (a
method that fails on a set is left out of that set, and the reason stated).

Data preparation is stated per set (:class:`BenchmarkSet`): the t-test pre-filter of wide
sets (Han 2012, sec. 7.1, kept 5000 of Lung's genes; here ``prefilter`` features, 2000 by
default, for sets of more than :data:`PREFILTER_ABOVE` features, fitted on each training part
only), the sizes k that do not fit a set, log2 of raw intensities (:func:`log2_hook`), and the
sets left out and why.

The defaults (:data:`DEFAULT_METHODS` and the rest) are one method of each family; the
``--quick`` configuration is :data:`QUICK`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import joblib
import numpy as np
import pandas as pd
from scipy import stats

from stablefs._errors import StablefsError
from stablefs._runtime.processes import worker_task
from stablefs._runtime.stored import read_json

if TYPE_CHECKING:
    from typing import Literal

    from stablefs.datasets import Dataset

__all__ = [
    "BenchmarkResult",
    "BenchmarkSet",
    "CELL_COLUMNS",
    "DEFAULT_CLASSIFIERS",
    "DEFAULT_METHODS",
    "DEFAULT_REPEATS",
    "DEFAULT_SIZES",
    "PREFILTER",
    "PREFILTER_ABOVE",
    "QUICK",
    "accuracy_interval",
    "cell_table",
    "default_methods",
    "estimate_seconds",
    "local_registry_sets",
    "pilot_fits",
    "prepare_set",
    "run_benchmark",
]

#: one method of each family (``stablefs methods``): a filter, the Relief family with its
#: instance-weighted and ensemble forms, SVM-RFE and its instance-weighted form, Simba, the
#: dense-group method, the weight ensemble of the L2 logistic-margin weighting (Li et al.
#: 2013) and random-forest importance
DEFAULT_METHODS = ("ttest", "relieff", "iw-relieff", "en-relieff", "svm-rfe", "iw-svm-rfe",
                   "simba", "drags", "wen-logistic-margin", "rf")
#: hook: methods of the comparison and data issues (stability selection, penalised logistic
#: regression) that join the defaults once ``stablefs methods`` knows them
OPTIONAL_DEFAULT_METHODS = ("stabsel", "l1-logistic", "enet-logistic")
DEFAULT_SIZES = (10, 20, 50, 100)
DEFAULT_REPEATS = 50
DEFAULT_CLASSIFIERS = ("svm", "1nn")
#: stability measures of the leaderboard (Nogueira, Sechidis and Brown 2018, with its interval)
MEASURES = ("nogueira",)
#: features kept by the t-test pre-filter of wide sets, and what counts as wide
PREFILTER = 2000
PREFILTER_ABOVE = 5000
#: level of every interval and of the Nemenyi critical difference
ALPHA = 0.05

#: ``--quick``: the three smallest sets available, six cheap methods of five families, 20
#: splits, k = 10 and 50, a 1000-feature pre-filter for wide sets. (20, not fewer: with 13 or
#: fewer resamples and tied accuracies scipy's Wilcoxon test of the per-set comparisons
#: enumerates its exact null distribution, seconds per test.)
QUICK = {
    "methods": ("ttest", "relieff", "iw-relieff", "en-relieff", "svm-rfe", "simba"),
    "sizes": (10, 50),
    "repeats": 20,
    "prefilter": 1000,
    "n_sets": 3,
}

#: columns of ``cells.csv``
CELL_COLUMNS = ["set", "method", "k", "measure", "estimate", "low", "high"]


def default_methods() -> list[str]:
    """:data:`DEFAULT_METHODS`, plus those of :data:`OPTIONAL_DEFAULT_METHODS` that this
    version of stablefs knows."""
    from stablefs.methods import parse_method

    out = list(DEFAULT_METHODS)
    for name in OPTIONAL_DEFAULT_METHODS:
        try:
            parse_method(name)
        except StablefsError:
            continue
        out.append(name)
    return out


def local_registry_sets(data_home=None) -> list[str]:
    """Names of the registry sets with a copy in ``data_home``, ``STABLEFS_DATA`` or the
    cache (nothing is downloaded or checked here)."""
    from stablefs.datasets._registry import entries, find_local

    return [e.name for e in entries() if find_local(e.name, data_home) is not None]


def smallest_sets(names: Sequence[str], n: int) -> list[str]:
    """The ``n`` registry sets of ``names`` with the fewest values (samples × features), in
    registry order (``--quick``)."""
    from stablefs.datasets._registry import entry_for

    size = {m: (entry_for(m).n_samples or 0) * (entry_for(m).n_features or 0) for m in names}
    keep = sorted(names, key=lambda m: (size[m], m))[:n]
    return [m for m in names if m in keep]


# --------------------------------------------------------------------------- preparation


def log2_hook(ds: Dataset) -> tuple[Dataset, str]:
    """log2 of raw intensities: the data set to use and the statement for ``sets.csv``.

    A set whose values look like raw (unlogged) intensities
    (:func:`stablefs.datasets._scale.value_scale`: at least 100 features, 99th percentile
    above 100, skewness above 2) is transformed as ``stablefs compare --log2`` does,
    ``log2(max(x, 0) + 1)`` (:func:`stablefs.datasets._scale.log2_dataset`); other sets are
    used as they are. Either way the statement says what was found.
    """
    from stablefs.datasets._scale import log2_dataset, value_scale

    if ds.meta.get("log2"):
        return ds, "log2: applied when loading"
    scale = value_scale(ds.X)
    if not scale.raw:
        return ds, (f"log2: not applied (values look log-scale: 99th percentile "
                    f"{scale.q99:.4g}, skewness {scale.skewness:.1f})")
    ds = log2_dataset(ds, warn=False, before=scale)  # the statement names the floored values
    floored = ds.meta["log2"]["negative_floored"]
    return ds, (f"log2: raw intensities (99th percentile {scale.q99:.4g}, skewness "
                f"{scale.skewness:.1f}) transformed to log2(max(x, 0) + 1)"
                + (f"; {floored} negative values floored at 0" if floored else ""))


@dataclass
class BenchmarkSet:
    """One data set of the grid, prepared, with what was done to it.

    Attributes
    ----------
    name : str
        Key in the tables and folder name under ``cells/`` (``alon``, a file's stem).
    label : str
        How the page shows it (``alon (colon)``).
    source : str
        What was loaded (registry name, path, synthetic spec).
    dataset : Dataset or None
        The data (None when it could not be loaded).
    sizes : list of int
        The sizes k measured on this set.
    prefilter : int or None
        Features kept by the t-test pre-filter (None: all).
    preparation : list of str
        One statement per step (log2, pre-filter, sizes left out).
    excluded : str or None
        Why the set is left out of the grid.
    inputs : dict
        sha256 of the input file, for a changed input to be a changed configuration.
    """

    name: str
    label: str
    source: str
    dataset: Dataset | None = None
    sizes: list = field(default_factory=list)
    prefilter: int | None = None
    preparation: list = field(default_factory=list)
    excluded: str | None = None
    inputs: dict = field(default_factory=dict)
    log2: str = ""

    @property
    def included(self) -> bool:
        return self.excluded is None

    def classes(self) -> dict:
        return self.dataset.class_counts() if self.dataset is not None else {}

    def config(self) -> dict:
        """What decides this set's results (part of the run's configuration)."""
        from stablefs.evaluation.runner import _digest

        ds = self.dataset
        out = {"name": self.name, "source": self.source, "excluded": self.excluded,
               "sizes": self.sizes, "prefilter": self.prefilter, "log2": self.log2,
               "inputs": self.inputs}
        if ds is not None:
            out.update(digest=_digest(ds.X, ds.y), n_samples=ds.n_samples,
                       n_features=ds.n_features)
        return out


def set_key(text: str) -> str:
    """A file-name-safe key for a set: ``synthetic:han2012?n_samples=40`` ->
    ``synthetic-han2012-n_samples-40``."""
    key = re.sub(r"[^A-Za-z0-9_.-]+", "-", str(text)).strip("-.")
    return key or "set"


def prepare_set(ds, name: str, label: str, *, sizes: Sequence[int], protocol, seed: int,
                prefilter: int | None = PREFILTER, prefilter_above: int = PREFILTER_ABOVE,
                source: str = "", inputs: dict | None = None) -> BenchmarkSet:
    """Prepare one data set for the grid and state what was done.

    Parameters
    ----------
    ds : Dataset
    name, label : str
        Key and display name (:class:`BenchmarkSet`).
    sizes : sequence of int
        The sizes k of the benchmark; those a set cannot give (k ≥ p; k above the pre-filter's
        N) are left out for that set, with a statement; a set with no size left is excluded.
    protocol : Protocol
        A set with a class too small for it (fewer than
        :attr:`~stablefs.evaluation.Protocol.min_per_class` samples) is excluded.
    prefilter : int or None
        Features kept by the t-test pre-filter on sets wider than ``prefilter_above``
        (None or 0: never).
    """
    from stablefs.evaluation.runner import check_measures_defined

    bset = BenchmarkSet(name=name, label=label, source=source or ds.name, inputs=inputs or {})
    ds, note = log2_hook(ds)
    bset.dataset, bset.log2 = ds, note
    bset.preparation.append(note)
    p = ds.n_features
    if np.isnan(ds.X).any():
        bset.excluded = (f"{int(np.isnan(ds.X).sum())} missing values (stablefs compare "
                         "--missing handles them set by set)")
        return bset
    if prefilter and p > prefilter_above and prefilter < p:
        bset.prefilter = int(prefilter)
        bset.preparation.append(
            f"t-test pre-filter: the {prefilter} features with the largest |Welch t| (ANOVA F "
            f"for more than two classes) on each training part reach the selector "
            f"(p = {p} > {prefilter_above})")
    else:
        why = ("off" if not prefilter else f"p = {p} ≤ {prefilter_above}" if p <= prefilter_above
               else f"p = {p} ≤ {prefilter}")
        bset.preparation.append(f"no pre-filter ({why})")
    limit = min(p - 1, bset.prefilter or p)
    keep = [int(k) for k in sizes if k <= limit]
    dropped = [int(k) for k in sizes if k > limit]
    if dropped:
        bound = (f"the pre-filter keeps {bset.prefilter}" if bset.prefilter and
                 bset.prefilter < p - 1 else f"the set has {p} features")
        bset.preparation.append(f"k = {', '.join(map(str, dropped))} left out ({bound})")
    if not keep:
        bset.excluded = f"no subset size k fits its {p} features"
        return bset
    bset.sizes = keep
    try:
        protocol.resamples(ds.y, seed)
        check_measures_defined(list(MEASURES), keep, p)
    except StablefsError as exc:
        bset.excluded = str(exc).rstrip(".")
    return bset


# --------------------------------------------------------------------------- pilot and estimate


@worker_task
def _pilot_one(set_name, method, X, y, resample, sizes, classifiers, prefilter, seed):
    from stablefs.evaluation.preprocessing import Preprocessing
    from stablefs.evaluation.runner import _fit_task, task_seed, warm_up
    from stablefs.methods import build_selector

    start = time.perf_counter()
    fit = 0.0
    try:
        selector = build_selector(method, task_seed(seed, resample.index, method), sizes)
        # the method's one-off costs in this process stay out of the pilot's time
        warm_up(method, selector, X[resample.train], y[resample.train], classifiers)
        start = time.perf_counter()
        fit = _fit_task(selector, X, y, resample, sizes, classifiers,
                        Preprocessing(prefilter=prefilter))["fit_time"]
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # a cell that cannot run is left out, with its reason
        text = " ".join(str(exc).split()) or type(exc).__name__
        if not isinstance(exc, StablefsError):
            text = f"{type(exc).__name__}: {text}"
        return set_name, method, time.perf_counter() - start, fit, text[:300]
    return set_name, method, time.perf_counter() - start, fit, ""


def pilot_fits(sets: Sequence[BenchmarkSet], methods: Sequence[str], *, protocol, classifiers,
               seed: int = 0, n_jobs: int = 1, skip: Sequence[str] = ()) -> pd.DataFrame:
    """One timed fit per cell on the first training part of its set (selection and the
    classifiers' evaluation at every k: the unit of work of the runner).

    Returns
    -------
    DataFrame
        ``set, method, seconds, fit_seconds, error``: the whole task and the selector's fit
        in it (``error`` empty when the fit ran).
    """
    from stablefs.evaluation.classifiers import check_classifiers
    from stablefs.evaluation.runner import check_n_jobs

    clfs = check_classifiers(classifiers)
    tasks = []
    for b in sets:
        if not b.included or b.name in skip:
            continue
        assert b.dataset is not None  # a prepared set holds its data
        first = protocol.resamples(b.dataset.y, seed)[0]
        for m in methods:
            tasks.append((b.name, m, b.dataset.X, b.dataset.y, first, b.sizes, clfs,
                          b.prefilter, seed))
    cols = ["set", "method", "seconds", "fit_seconds", "error"]
    if not tasks:
        return pd.DataFrame(columns=cols)
    workers = check_n_jobs(n_jobs, len(tasks))
    rows = joblib.Parallel(n_jobs=workers)(joblib.delayed(_pilot_one)(*t) for t in tasks)
    return pd.DataFrame(rows, columns=cols)


#: seconds per set beyond its fits: stability intervals, the paired tests and the tables
#: (about 2 s), and its report with figures (about 8 s; both measured on two cores, and several
#: times more on a busy machine)
SET_OVERHEAD_S = 2.0
REPORT_OVERHEAD_S = 8.0
#: seconds for the ranks, the Bayesian tests and the leaderboard's figures at the end
FINAL_OVERHEAD_S = 20.0


def estimate_seconds(pilot: pd.DataFrame, n_resamples: dict, workers: int, *,
                     report: bool = True, n_classifiers: int = 1, permutations: int = 0,
                     permutation_resamples: int = 3) -> pd.DataFrame:
    """Predicted wall time per set from the pilot fits.

    The cells' task times times the number of resamples, shared by ``workers``; the
    permutation test of the procedure (:func:`~stablefs.evaluation.permutation.
    procedure_test_seconds`: up to ``permutations`` + 1 choices on ``permutation_resamples``
    resamples, each method's fit with one of the ``n_classifiers`` classifiers' evaluation);
    a fixed cost per set (:data:`SET_OVERHEAD_S`, :data:`REPORT_OVERHEAD_S`). The pilot fits
    run under the machine's current load, so the fits' share of the estimate follows it; the
    fixed costs do not (add :data:`FINAL_OVERHEAD_S` for the end of the run).

    Returns
    -------
    DataFrame
        ``set, fits, fit_seconds, permutation_seconds, seconds`` (``fit_seconds``: one
        worker's total of the fits; ``permutation_seconds``: the test's wall time, an upper
        bound when its sequential rule stops early).
    """
    from stablefs.evaluation.permutation import procedure_test_seconds

    ok = pilot[pilot["error"] == ""]
    rows = []
    for name, grp in ok.groupby("set", sort=False):
        r = n_resamples[name]
        total = float(grp["seconds"].sum()) * r
        fit = grp["fit_seconds"].to_numpy(dtype=float)
        one_classifier = fit + (grp["seconds"].to_numpy(dtype=float) - fit) / max(
            1, n_classifiers)
        perm = procedure_test_seconds(float(one_classifier.sum()), permutations,
                                      permutation_resamples, workers)
        rows.append((name, len(grp) * r, total, perm,
                     total / max(1, min(workers, len(grp) * r)) + perm
                     + SET_OVERHEAD_S + (REPORT_OVERHEAD_S if report else 0.0)))
    return pd.DataFrame(rows, columns=["set", "fits", "fit_seconds", "permutation_seconds",
                                       "seconds"])


# --------------------------------------------------------------------------- cells


def accuracy_interval(values, n_train: float, n_test: float, alpha: float = ALPHA
                      ) -> tuple[float, float, float]:
    """Mean of a metric over resamples with the corrected resampled t interval (Nadeau and
    Bengio 2003): ``mean ± t_{J-1, 1-alpha/2} sqrt((1/J + n_test/n_train) s²)``.

    The plain t interval (1/J alone) ignores that random splits share training samples and
    is far too narrow; the n_test/n_train term is Nadeau and Bengio's correction (the same as
    :func:`~stablefs.evaluation.statistics.corrected_resampled_ttest`). The bounds are cut to
    [0, 1], the range of the metric. NaN values (undefined resamples) are left out.
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    J = v.size
    if J == 0:
        return (float("nan"),) * 3
    mean = float(v.mean())
    if J < 2:
        return mean, float("nan"), float("nan")
    half = float(stats.t.ppf(1 - alpha / 2, J - 1)) * float(
        np.sqrt((1.0 / J + n_test / n_train) * np.var(v, ddof=1)))
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def split_sizes(protocol, y, seed: int) -> tuple[float, float]:
    """Mean training and test sizes of the protocol's resamples of ``y``."""
    res = [r for r in protocol.resamples(y, seed) if r.index >= 0]
    return (float(np.mean([len(r.train) for r in res])),
            float(np.mean([len(r.test) for r in res])))


def cell_table(set_name: str, result, classifiers: Sequence[str], n_train: float,
               n_test: float) -> pd.DataFrame:
    """The cells of one set (:data:`CELL_COLUMNS`) from its comparison: the stability rows as
    they are, and for each classifier the mean balanced accuracy over resamples with its
    corrected interval (:func:`accuracy_interval`; ``n_train``, ``n_test``: the mean sizes
    of a resample's parts, :func:`split_sizes`)."""
    methods = list(pd.unique(result.stability["method"]))
    rows = []
    stab = result.stability
    for r in stab.itertuples(index=False):
        rows.append((set_name, r.method, int(r.k), r.measure, float(r.estimate), float(r.low),
                     float(r.high)))
    res = result.results
    for clf in classifiers:
        metric = f"balanced_accuracy_{clf}"
        sub = res[res["metric"] == metric]
        for (method, k), grp in sub.groupby(["method", "k"], sort=False):
            est, low, high = accuracy_interval(grp["value"].to_numpy(), n_train, n_test)
            rows.append((set_name, method, int(k), metric, est, low, high))
    out = pd.DataFrame(rows, columns=CELL_COLUMNS)
    order = {m: i for i, m in enumerate(methods)}
    measures = list(MEASURES) + [f"balanced_accuracy_{c}" for c in classifiers]
    out["_m"] = out["method"].map(order)
    out["_q"] = out["measure"].map({q: i for i, q in enumerate(measures)})
    return (out.sort_values(["_m", "k", "_q"], kind="stable").drop(columns=["_m", "_q"])
            .reset_index(drop=True))


# --------------------------------------------------------------------------- the grid


@dataclass
class BenchmarkResult:
    """Everything the grid produced.

    Attributes
    ----------
    sets : list of BenchmarkSet
    results : dict
        Set name -> its :class:`~stablefs.evaluation.ExperimentResult`.
    cells : DataFrame
        :data:`CELL_COLUMNS`, sets in order.
    status : DataFrame
        ``set, method, status, reason``: ``ran`` or ``excluded`` (with the pilot's error).
    timing : DataFrame
        ``set, method, fit_time, pilot_seconds``: mean seconds per fit, and the pilot's.
    info : dict
        ``fits_reused``, ``fits_computed``, ``seconds`` per set.
    """

    sets: list
    results: dict
    cells: pd.DataFrame
    status: pd.DataFrame
    timing: pd.DataFrame
    info: dict = field(default_factory=dict)


def _set_state_key(bset: BenchmarkSet, methods, protocol, classifiers, seed) -> str:
    text = json.dumps({"set": bset.config(), "methods": list(methods),
                       "protocol": protocol.__dict__, "classifiers": list(classifiers),
                       "seed": seed}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def finished_sets(sets, methods, *, protocol, classifiers, seed, cache_dir) -> dict:
    """Sets whose grid finished in an earlier, interrupted run into ``cache_dir``: name ->
    ``{method: reason}`` of the cells the pilot left out (their fits are all cached)."""
    out: dict[str, dict] = {}
    if cache_dir is None:
        return out
    for b in sets:
        if not b.included:
            continue
        path = Path(cache_dir) / "done" / f"{b.name}.json"
        try:
            state = read_json(path)
        except (OSError, ValueError):
            continue
        if isinstance(state, dict) and state.get("key") == _set_state_key(
                b, methods, protocol, classifiers, seed):
            out[b.name] = dict(state.get("excluded", {}))
    return out


def run_benchmark(sets: Sequence[BenchmarkSet], methods: Sequence[str], *, protocol,
                  classifiers=DEFAULT_CLASSIFIERS, seed: int = 0, n_jobs: int = 1,
                  backend: Literal["loky", "dask"] = "loky", scheduler: str | None = None,
                  cache_dir=None, pilot: pd.DataFrame | None = None, progress: bool = False,
                  on_set: Callable | None = None,
                  log: Callable[[str], None] | None = None) -> BenchmarkResult:
    """Run every method on every included set.

    Parameters
    ----------
    sets : sequence of BenchmarkSet
        From :func:`prepare_set`; excluded sets are carried along, not run.
    methods : sequence of str
        Method strings.
    protocol : Protocol
    classifiers : sequence of str
    seed : int
        Seeds the resamples and every randomised method (the same for every set).
    n_jobs, backend, scheduler
        As for :func:`~stablefs.evaluation.run_experiment`; results do not depend on them.
    cache_dir : path, optional
        Fits are cached under ``<cache_dir>/sets/<set>/`` (resumption) and a finished set is
        marked in ``<cache_dir>/done/<set>.json`` with the cells the pilot left out.
    pilot : DataFrame, optional
        :func:`pilot_fits`; a cell whose pilot failed is left out of its set.
    on_set : callable, optional
        ``on_set(bset, result)`` after each set (the CLI writes the set's files there).
    log : callable, optional
        Receives one line per set.
    """
    from stablefs.evaluation.runner import run_experiment

    methods = list(methods)
    classifiers = list(classifiers)
    log = log or (lambda _line: None)
    done = finished_sets(sets, methods, protocol=protocol, classifiers=classifiers, seed=seed,
                         cache_dir=cache_dir)
    failed: dict[tuple[str, str], str] = {}
    if pilot is not None:
        for r in pilot.itertuples(index=False):
            if r.error:
                failed[(r.set, r.method)] = r.error
    results, cells, status, seconds = {}, [], [], {}
    reused = computed = 0
    included = [b for b in sets if b.included]
    for i, b in enumerate(included, 1):
        excluded = done.get(b.name)
        if excluded is None:
            excluded = {m: failed[(b.name, m)] for m in methods if (b.name, m) in failed}
        run_methods = [m for m in methods if m not in excluded]
        for m in methods:
            status.append((b.name, m, "excluded" if m in excluded else "ran",
                           excluded.get(m, "")))
        if not run_methods:
            log(f"[{i}/{len(included)}] {b.name}: every method failed its pilot fit; "
                "left out")
            continue
        t0 = time.perf_counter()
        ds = b.dataset
        assert ds is not None  # a prepared set holds its data
        set_cache = Path(cache_dir) / "sets" / b.name if cache_dir is not None else None
        result = run_experiment(
            ds.X, ds.y, run_methods, b.sizes, protocol=protocol, classifiers=classifiers,
            measures=list(MEASURES), feature_names=ds.feature_names, random_state=seed,
            n_jobs=n_jobs, backend=backend, scheduler=scheduler, cache_dir=set_cache,
            prefilter=b.prefilter, progress=progress, alpha=ALPHA)
        seconds[b.name] = time.perf_counter() - t0
        reused += result.info["fits_reused"]
        computed += result.info["fits_computed"]
        results[b.name] = result
        cells.append(cell_table(b.name, result, classifiers,
                                *split_sizes(protocol, ds.y, seed)))
        if cache_dir is not None:
            from stablefs._runtime.io import atomic_write_text

            marker = Path(cache_dir) / "done" / f"{b.name}.json"
            marker.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(marker, json.dumps({
                "key": _set_state_key(b, methods, protocol, classifiers, seed),
                "excluded": excluded}))
        if on_set is not None:
            on_set(b, result)
        note = (f" ({result.info['fits_reused']} fits reused)"
                if result.info["fits_reused"] else "")
        left = f"; left out: {', '.join(excluded)}" if excluded else ""
        log(f"[{i}/{len(included)}] {b.name}: {len(run_methods)} methods x "
            f"{result.info['n_resamples']} resamples in {seconds[b.name]:.1f} s{note}{left}")
    cell_df = (pd.concat(cells, ignore_index=True) if cells
               else pd.DataFrame(columns=CELL_COLUMNS))
    timing = _timing(results, pilot)
    return BenchmarkResult(
        sets=list(sets), results=results, cells=cell_df,
        status=pd.DataFrame(status, columns=["set", "method", "status", "reason"]),
        timing=timing,
        info={"fits_reused": reused, "fits_computed": computed, "seconds": seconds})


def _timing(results: dict, pilot: pd.DataFrame | None) -> pd.DataFrame:
    rows = []
    for name, result in results.items():
        ft = result.results[result.results["metric"] == "fit_time"]
        for method, grp in ft.groupby("method", sort=False):
            rows.append((name, method, float(grp["value"].mean())))
    out = pd.DataFrame(rows, columns=["set", "method", "fit_time"])
    if pilot is not None and len(pilot):
        out = out.merge(pilot[["set", "method", "seconds"]].rename(
            columns={"seconds": "pilot_seconds"}), on=["set", "method"], how="left")
    else:
        out["pilot_seconds"] = np.nan
    return out


@contextlib.contextmanager
def dask_cluster(n_workers: int):
    """A local Dask cluster of ``n_workers`` single-threaded processes for the whole grid;
    yields its scheduler address (each set's comparison connects to it)."""
    from dask.distributed import Client

    client = Client(processes=True, n_workers=max(1, n_workers), threads_per_worker=1)
    try:
        yield client.scheduler.address
    finally:
        client.close()
