"""The experiment runner behind ``stablefs compare``.

Every method is fitted on the training part of every resample (the same resamples for all
methods); the full ranking and the scores of each fit are recorded. For each subset size k the
top-k features then train the classifiers (on the training part) that are scored on the
held-out part. Stability is measured afterwards from the recorded rankings alone, so adding a
measure never needs a refit.

Determinism: the selector of task (method, resample) gets ``random_state`` derived from the
run seed, the resample index and the method string only, so results do not depend on
``n_jobs``, on the backend, nor on the order in which tasks finish.

Resumption: with a ``cache_dir``, each finished task is stored at once (written atomically)
under a subfolder keyed by everything that decides a fit; rerunning with the same folder reuses
them and computes only what is missing. ``stablefs compare`` keeps them in ``<out>/.partial``
and removes it when the run completes (:mod:`stablefs._runtime.rundir`).
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import time
import zlib
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import joblib
import numpy as np
import pandas as pd

from stablefs._errors import StablefsError
from stablefs._runtime.processes import worker_setup, worker_task
from stablefs._validation import check_sizes, dense_matrix, derive_seed
from stablefs.evaluation._checks import (  # noqa: F401 (re-exported: the runner's checks)
    _MAX_HANDSHAKE_BYTES,
    SCHEDULER_TIMEOUT,
    _dask_handshake,
    _digest,
    _method_templates,
    _protocol_resamples,
    _recv_exactly,
    check_backend,
    check_measures_defined,
    check_n_jobs,
    check_scheduler,
)
from stablefs.evaluation.classifiers import check_classifiers, evaluate_sizes, evaluate_subset
from stablefs.evaluation.preprocessing import Preprocessing, expand_ranking, median_impute
from stablefs.evaluation.protocols import Protocol, Resample
from stablefs.methods import build_selector

if TYPE_CHECKING:
    import os
    from collections.abc import Sequence
    from typing import Any, Literal

    import pandas as pd
    from numpy.typing import ArrayLike
    from sklearn.base import BaseEstimator
    from sklearn.model_selection import BaseCrossValidator

    from stablefs.evaluation.classifiers import Classifiers
    from stablefs.stability._inputs import FeatureNames


@dataclass
class ExperimentResult:
    """Everything a comparison produced (what :func:`run_experiment` returns).

    Parameters
    ----------
    selections : DataFrame
        One row per (method, resample): ``method, resample, fit_time, train, ranking, scores``;
        the full-data reference fit, where the protocol has one, is resample −1.
    results : DataFrame
        Tidy ``method, k, resample, metric, value`` (``fit_time`` rows have ``k = 0``).
    stability : DataFrame
        ``method, k, measure, estimate, low, high, against``; ``against`` is ``"reference"``
        where the measure compares each resample with the full-data fit (protocol
        ``holdout``, Yu et al. 2008 eq. 7), ``"resamples"`` otherwise. Column ``interval``
        (right after ``high``) says how low/high were formed
        (:data:`~stablefs.evaluation.statistics.INTERVAL_KINDS`).
    frequencies : DataFrame
        ``method, k, feature, frequency``: share of resamples whose top-k held the feature
        (rows with frequency > 0 only).
    comparisons : DataFrame
        Every pair of methods compared at every k
        (:func:`~stablefs.evaluation.statistics.compare_methods`).
    baseline : DataFrame
        ``resample, metric, value``: the majority class of each training part predicted on
        its test part (:func:`~stablefs.evaluation.baseline.majority_baseline`).
    info : dict
        The configuration and bookkeeping of the run (protocol, seed, sizes, ...).

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, ch. 5 and sec. 7.1 (stability
       and accuracy of the same resamples).

    Examples
    --------
    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.evaluation import run_experiment
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> result = run_experiment(data.X, data.y, ["ttest", "en-ttest(n_estimators=5)"], [5],
    ...                         n_repeats=5, classifiers=["svm"],
    ...                         measures=["kuncheva", "nogueira"])
    >>> for row in result.stability.itertuples():
    ...     print(row.method, row.measure, round(row.estimate, 3), row.interval)
    ttest kuncheva 0.695 jackknife-t
    ttest nogueira 0.695 jackknife-t
    en-ttest(n_estimators=5) kuncheva 0.804 jackknife-t
    en-ttest(n_estimators=5) nogueira 0.804 jackknife-t
    >>> sorted(result.results["metric"].unique().tolist())
    ['accuracy_svm', 'auc_svm', 'balanced_accuracy_svm', 'fit_time', 'mcc_svm']
    """

    selections: pd.DataFrame
    results: pd.DataFrame
    stability: pd.DataFrame
    frequencies: pd.DataFrame
    info: dict = field(default_factory=dict)
    comparisons: pd.DataFrame = field(default_factory=pd.DataFrame)
    baseline: pd.DataFrame = field(default_factory=pd.DataFrame)


def _resamples_digest(resamples) -> str:
    h = hashlib.sha256()
    for r in resamples:
        h.update(np.asarray(r.train, dtype=np.int64).tobytes())
        h.update(b"|")
        h.update(np.asarray(r.test, dtype=np.int64).tobytes())
        h.update(b"/")
    return h.hexdigest()


def task_seed(seed: int, resample: int, method: str) -> int:
    """The ``random_state`` of one (method, resample) fit: independent of scheduling."""
    # resample -1 (a full-data reference fit) maps to 2**32 - 1: distinct from every resample
    return derive_seed(seed, int(resample) % 2**32, zlib.crc32(method.encode()))


_median_impute = median_impute  # the name older code and tests use

#: features of a warm-up fit (:func:`warm_up`)
WARM_UP_FEATURES = 64

#: the methods warmed up in this process
_WARMED: set[str] = set()


def warm_up(name: str, selector, X_train, y_train, classifiers) -> None:
    """Pay this process's one-off costs of method ``name`` before its first timed fit.

    The first fit of a method in a process also imports the modules it uses and loads its
    compiled kernels (Numba's cache; on a fresh install it compiles them): up to seconds
    against milliseconds per fit, which made ReliefF look 17 times slower than it is on two
    workers. Once per method and process, a copy of ``selector`` is fitted on the training
    rows and their first :data:`WARM_UP_FEATURES` features, and the classifiers are run once
    on two of them, so that ``fit_time`` and the pilot fits of the time estimates measure the
    work of the fit. Best effort and silent: a method that cannot run on the slice is timed
    with its one-off costs; the warm-up's warnings are not shown. Results do not depend on it
    (the copy is discarded; every selector draws from its own ``random_state``)."""
    if name in _WARMED:
        return
    _WARMED.add(name)
    import warnings

    from sklearn.base import clone

    part = np.ascontiguousarray(X_train[:, : min(X_train.shape[1], WARM_UP_FEATURES)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            evaluate_subset(part[:, :2], y_train, part[:, :2], y_train, classifiers)
            clone(selector).fit(part, y_train)
        except Exception:  # best effort, see above
            pass


def _fit_task(selector, X, y, resample: Resample, sizes, classifiers, prep=None,
              name: str | None = None) -> dict:
    """Fit one selector on one training part and evaluate every top-k subset.

    ``prep`` (a :class:`~stablefs.evaluation.preprocessing.Preprocessing`, or an ``impute``
    string) is fitted on the training rows only and applied to both parts. A resample with an
    empty test part (the full-data reference fit) records no metrics. With the method's
    ``name``, its first task in a process warms it up first (:func:`warm_up`, not timed).
    """
    if not isinstance(prep, Preprocessing):
        prep = Preprocessing(impute=prep)
    train, test = resample.train, resample.test
    X_train, X_test = X[train], X[test]
    X_train, X_test, keep = prep.apply(X_train, y[train], X_test)
    if name is not None:
        warm_up(name, selector, X_train if keep is None else X_train[:, keep], y[train],
                classifiers)
    start = time.perf_counter()
    selector.fit(X_train if keep is None else X_train[:, keep], y[train])
    fit_time = time.perf_counter() - start
    ranking, scores = expand_ranking(np.asarray(selector.ranking_, dtype=np.int32),
                                     np.asarray(selector.scores_, dtype=np.float64), keep,
                                     X.shape[1], X_train, y[train])
    order = np.argsort(ranking, kind="stable")
    metrics = (evaluate_sizes(X_train, y[train], X_test, y[test], order, sizes, classifiers)
               if len(test) else {})
    return {
        "fit_time": fit_time,
        "ranking": ranking,
        "scores": scores,
        "metrics": metrics,
    }


class _FitCache:
    """Finished fits under ``<cache_dir>/<key>/``, where the key covers everything that decides
    a fit's result except the method (data, resamples, seed, sizes, classifiers, imputation,
    stablefs version); each file is one (method, resample). Fits of different configurations
    can therefore never mix, and adding a method to a run reuses the fits of the others.

    Each fit is an ``.npz`` of plain arrays (:mod:`stablefs._runtime.stored`; never a pickle, so
    a planted file cannot run code): the ranking, the scores, the fit time, the metrics as a
    ``k x metric`` table, the method and resample it belongs to and a digest of that resample's
    training and test indices, plus the digest of the arrays. A file that does not parse, whose
    digest does not match, or whose content does not match the fit the run expects (members,
    dtypes, shapes, method, resample, indices, sizes, classifiers) or does not mean what a fit
    means (:meth:`_check_meaning`: a ranking that is a permutation of the features, finite
    scores where the method promises them, accuracies in [0, 1] that are counts of the test
    samples, a non-negative fit time) is recomputed; :meth:`warn` then says so in one line.

    Parameters
    ----------
    cache_dir : path-like or None
    config : dict
        Everything that decides a fit but the method (the key of the subfolder).
    n_features : int
    sizes, classifiers : sequence
        The run's subset sizes and classifier names.
    promises : dict, optional
        ``method_key -> bool``: whether the method's fits promise a ranking that is a
        permutation of the features and finite scores (stablefs's own method strings do;
        user objects and selectors registered by users are only checked for ranks in 1..p).
    prefilter : int, optional
        With ``--prefilter N`` the scores of the features outside each training part's top N
        are NaN (the selector never saw them).
    """

    def __init__(self, cache_dir, config: dict, n_features: int = 0, sizes=(),
                 classifiers=(), promises: dict | None = None, prefilter: int | None = None):
        self.dir = None
        self.n_features = int(n_features)
        self.sizes = [int(k) for k in sizes]
        self.classifiers = [str(c) for c in classifiers]
        self.promises = dict(promises or {})
        self.prefilter = prefilter
        #: ``(file, reason)`` of every stored fit that was not reused
        self.rejected: list[tuple[Path, str]] = []
        if cache_dir is None:
            return
        key = hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode())
        self.dir = Path(cache_dir) / key.hexdigest()[:16]

    def _path(self, method_key: str, resample: int) -> Path:
        slug = hashlib.sha1(method_key.encode()).hexdigest()[:12]
        assert self.dir is not None  # only a cache with a folder stores fits
        return self.dir / f"{slug}-{resample:05d}.npz"

    def _expect(self, n_sizes: int) -> dict:
        p = self.n_features
        return {"ranking": ("i", (p,)), "scores": ("f", (p,)), "fit_time": ("f", ()),
                "metric_k": ("iu", (n_sizes,)), "metric_names": ("U", (None,)),
                "metric_values": ("f", (n_sizes, None)), "method_key": ("U", ()),
                "resample": ("i", ()), "indices": ("U", ())}

    def load(self, method_key: str, resample: Resample):
        """The stored fit of ``(method_key, resample)``, or ``None`` (missing, or not usable:
        then recorded in :attr:`rejected`)."""
        if self.dir is None:
            return None
        path = self._path(method_key, resample.index)
        if not path.is_file():
            return None
        from stablefs._runtime.stored import StoredFileError, read_arrays

        n_sizes = len(self.sizes) if len(resample.test) else 0
        try:
            z = read_arrays(path, self._expect(n_sizes), require_digest=True)
            fit = self._decode(z, method_key, resample.index)
            if z["indices"].item() != _indices_digest(resample):
                raise StoredFileError(f"it was fitted on other training samples than resample "
                                      f"{resample.index} of this run")
            self._check_meaning(fit, method_key, resample)
            return fit
        except StoredFileError as exc:  # recomputed, never trusted
            self.rejected.append((path, str(exc)))
            return None

    def _decode(self, z: dict, method_key: str, resample: int) -> dict:
        from stablefs._runtime.stored import StoredFileError

        def fail(why):
            raise StoredFileError(why)

        if z["method_key"].item() != method_key:
            fail(f"it holds a fit of method {z['method_key'].item()!r}, not {method_key!r}")
        if int(z["resample"]) != resample:
            fail(f"it holds resample {int(z['resample'])}, not {resample}")
        if z["ranking"].dtype != np.int32 or z["scores"].dtype != np.float64:
            fail("its ranking or scores have another dtype than the runner writes")
        ks = [int(k) for k in z["metric_k"]]
        names = [str(n) for n in z["metric_names"]]
        values = z["metric_values"]
        if ks:  # a resample with a test part: the metrics of every size and classifier
            if ks != self.sizes:
                fail(f"its sizes {ks} are not this run's {self.sizes}")
            owner = [max((c for c in self.classifiers if n.endswith(f"_{c}")), key=len,
                         default=None) for n in names]
            if (len(set(names)) != len(names) or None in owner
                    or set(owner) != set(self.classifiers) or values.shape[1] != len(names)):
                fail(f"its metrics {names} are not those of the classifiers "
                     f"{self.classifiers}")
        metrics = {int(k): {n: float(v) for n, v in zip(names, row)}
                   for k, row in zip(z["metric_k"], values)}
        return {"fit_time": float(z["fit_time"]), "ranking": z["ranking"],
                "scores": z["scores"], "metrics": metrics}

    def _check_meaning(self, fit: dict, method_key: str, resample: Resample) -> None:
        """Refuse (:class:`~stablefs._runtime.stored.StoredFileError`) a fit whose numbers cannot be
        those of a fit of this run (see the class docstring)."""
        from stablefs._runtime.stored import StoredFileError

        p = self.n_features
        ranking, scores = fit["ranking"], fit["scores"]
        if ranking.size and (ranking.min() < 1 or ranking.max() > p):
            raise StoredFileError(f"its ranking holds ranks outside 1..{p}")
        if self.promises.get(method_key, False):
            if not np.array_equal(np.sort(ranking), np.arange(1, p + 1)):
                raise StoredFileError(f"its ranking is not a permutation of the {p} features")
            unseen = ~np.isfinite(scores)
            n_kept = p if not self.prefilter else min(p, int(self.prefilter))
            if unseen.sum() != p - n_kept or (unseen.any() and (
                    not np.isnan(scores[unseen]).all() or ranking[unseen].min() <= n_kept)):
                raise StoredFileError("its scores are not finite where the method gives "
                                      "finite scores")
        fit_time = fit["fit_time"]
        if not (np.isfinite(fit_time) and fit_time >= 0):
            raise StoredFileError(f"its fit time {fit_time} is not a duration")
        n_test = len(resample.test)
        for k, metrics in fit["metrics"].items():
            for name, value in metrics.items():
                if not _metric_possible(name, value, n_test):
                    raise StoredFileError(f"its {name} at k = {k} is {value}, which no fit "
                                          f"scored on {n_test} test samples gives")

    def save(self, method_key: str, resample: Resample | int, result: dict) -> None:
        if self.dir is None:
            return
        index = resample.index if isinstance(resample, Resample) else int(resample)
        indices = (_indices_digest(resample) if isinstance(resample, Resample) else "")
        if isinstance(resample, Resample):
            from stablefs._runtime.stored import StoredFileError

            try:  # a fit that would not pass the check when read back is not kept
                self._check_meaning(result, method_key, resample)
            except StoredFileError:
                return
        from stablefs._runtime.stored import write_arrays

        metrics = result["metrics"]
        names = list(next(iter(metrics.values()))) if metrics else []
        if any(list(m) != names for m in metrics.values()):  # pragma: no cover - invariant
            raise ValueError("every k must record the same metrics")
        write_arrays(self._path(method_key, index), {
            "ranking": np.asarray(result["ranking"], dtype=np.int32),
            "scores": np.asarray(result["scores"], dtype=np.float64),
            "fit_time": np.float64(result["fit_time"]),
            "metric_k": np.asarray(list(metrics), dtype=np.int64),
            "metric_names": np.asarray(names, dtype=str),
            "metric_values": np.asarray([[m[n] for n in names] for m in metrics.values()],
                                        dtype=np.float64).reshape(len(metrics), len(names)),
            "method_key": np.asarray(method_key, dtype=str),
            "resample": np.int64(index), "indices": np.asarray(indices, dtype=str)})

    def warn(self) -> None:
        """One warning line for every stored fit that was recomputed instead of reused."""
        if not self.rejected:
            return
        import logging

        path, why = self.rejected[0]
        more = (f" (and {len(self.rejected) - 1} more)" if len(self.rejected) > 1 else "")
        logging.getLogger("stablefs").warning(
            f"{len(self.rejected)} stored fit(s) in {self.dir} could not be used and are "
            f"recomputed: {path.name}: {why}{more}.")


#: the Dask client of the running command (:func:`backend_session`), shared by its phases
_SESSION: contextvars.ContextVar = contextvars.ContextVar("stablefs_dask_session", default=None)


def _new_client(n_jobs: int, scheduler: str | None):
    import dask
    from dask.distributed import Client

    if scheduler:
        return Client(scheduler, timeout="10s")
    # This command's own local cluster: no dashboard (no HTTP port is opened), and the worker
    # processes without Dask's MALLOC_TRIM_THRESHOLD_=65536, which hands freed memory back to
    # the system after small frees: the README's command with --backend dask spent 12 s of
    # system CPU with it, 6 s without (its wall time did not change beyond the host's noise);
    # the one-thread caps (OMP_NUM_THREADS=1, ...) stay. Without a dashboard nothing reads the
    # statistical profiler's samples, which every worker and the scheduler take every 10 ms
    # (each sample walks the stacks under the GIL): the README's command took 38.0-40.9 s
    # with it against 34.0-37.5 s without, its permutation test 23.1-24.1 s against
    # 19.2-23.4 s (three pairs, 28 Nov 2026). The event loops' periodic chores are spaced
    # out: the 20 ms tick (it only times the loop, for warnings of a blocked loop), the
    # system monitor (every 0.5 s; it feeds the dashboard) and the nannies' memory monitor
    # (every 0.1 s; 0.5 s still ends a worker that outgrows its memory within a fit). An
    # idle two-worker cluster took 5.3 % of a core in this process, 1.0 % so spaced; the
    # scheduler's loop took 2.1 s of CPU during the permutation test of a Colon comparison,
    # 1.2 s so spaced
    environ = {key: value for key, value in
               dask.config.get("distributed.nanny.pre-spawn-environ", {}).items()
               if key != "MALLOC_TRIM_THRESHOLD_"}
    with dask.config.set({"distributed.nanny.pre-spawn-environ": environ,
                          "distributed.worker.profile.enabled": False,
                          "distributed.admin.tick.interval": "1s",
                          "distributed.admin.system-monitor.interval": "2s",
                          "distributed.worker.memory.monitor-interval": "500ms"}):
        return Client(processes=True, n_workers=max(1, n_jobs), threads_per_worker=1,
                      dashboard_address=None)


@contextlib.contextmanager
def backend_session(backend: str, n_jobs, scheduler: str | None = None):
    """One Dask client for every phase of a command (the comparison, each outer resample of
    the nested estimate, the permutation test; a benchmark's sets; an experiment's studies).

    Inside, the phases' parallel sections reuse this client instead of starting and closing a
    local cluster each (a cluster's start is seconds of worker processes importing the
    numerical stack). With ``backend="loky"`` nothing is needed: joblib reuses its loky
    executor across calls. Nested sessions reuse the outer one.
    """
    if backend != "dask" or _SESSION.get() is not None:
        yield
        return
    check_backend(backend, scheduler)
    client = _new_client(check_n_jobs(n_jobs), scheduler)
    token = _SESSION.set(client)
    try:
        yield
    finally:
        _SESSION.reset(token)
        client.close()


def _indices_digest(resample: Resample) -> str:
    """sha256 of a resample's training and test indices (a stored fit records it)."""
    h = hashlib.sha256(np.asarray(resample.train, dtype=np.int64).tobytes())
    h.update(b"|")
    h.update(np.asarray(resample.test, dtype=np.int64).tobytes())
    return h.hexdigest()


#: the range of each metric of :func:`~stablefs.evaluation.classifiers.evaluate_subset`, by
#: name prefix (``None``: may be NaN, e.g. an AUC with one class in the test part)
_METRIC_RANGES = (("balanced_accuracy_", 0.0, 1.0, False), ("accuracy_", 0.0, 1.0, False),
                  ("mcc_", -1.0, 1.0, False), ("auc_", 0.0, 1.0, True))


def _metric_possible(name: str, value: float, n_test: int) -> bool:
    """Whether ``value`` can be the metric ``name`` of a classifier scored on ``n_test``
    samples: in its range, and for the accuracy a count of correct answers over ``n_test``."""
    for prefix, low, high, nan_ok in _METRIC_RANGES:
        if name.startswith(prefix):
            if np.isnan(value):
                return nan_ok
            if not low - 1e-12 <= value <= high + 1e-12:
                return False
            if prefix == "accuracy_" and n_test:
                return abs(value * n_test - round(value * n_test)) < 1e-6
            return True
    return bool(np.isfinite(value) or np.isnan(value))


def _backend_context(backend: str, n_jobs: int, scheduler: str | None):
    check_backend(backend, scheduler)
    if backend == "loky":
        if n_jobs == 1:
            return nullcontext()
        # every loky worker ends when this process dies, even by SIGKILL
        # (stablefs._runtime.processes)
        return joblib.parallel_config(backend="loky", initializer=worker_setup,
                                      initargs=(os.getpid(),))
    session = _SESSION.get()
    if session is not None:
        return _DaskContext(session, close=False)
    return _DaskContext(_new_client(n_jobs, scheduler))


def start_workers(backend: str, n_jobs: int, scheduler: str | None, tasks):
    """Start this command's worker processes now, running ``tasks`` (``joblib.delayed``
    calls, typically :func:`warm_worker`), and return the generator of their results (in
    the order they finish); ``None`` when there is no pool to start (``n_jobs`` 1, or the
    Dask backend outside a :func:`backend_session`).

    With loky the pool is joblib's reusable executor with the initializer and arguments of
    :func:`_backend_context`, so the later phases' ``joblib.Parallel`` calls reuse these
    processes instead of starting others; with Dask the tasks go to the session's workers.
    Either way the workers import the stack and load the compiled kernels while the main
    process runs the pilot (issue 36). Exhaust the generator before the next parallel phase.
    """
    if n_jobs < 2 or (backend == "dask" and _SESSION.get() is None):
        return None
    check_backend(backend, scheduler)
    with _backend_context(backend, n_jobs, scheduler):
        return joblib.Parallel(n_jobs=n_jobs, return_as="generator_unordered")(tasks)


def map_in_workers(func, items, *, backend: str, n_jobs: int, scheduler: str | None) -> list:
    """``[func(x) for x in items]``, the calls spread over ``n_jobs`` workers of this
    command (the same pool as its fits: :func:`_backend_context`), results in order; in this
    process when ``n_jobs`` is 1. ``func`` must be a module-level function. ``n_jobs`` is not
    capped at the number of items: a changed worker count would restart the pool."""
    items = list(items)
    if n_jobs < 2 or len(items) < 2:
        return [func(x) for x in items]
    with _backend_context(backend, n_jobs, scheduler):
        return list(joblib.Parallel(n_jobs=n_jobs)(joblib.delayed(_in_worker)(func, x,
                                                                               os.getpid())
                                                   for x in items))


@worker_task
def _in_worker(func, item, parent):
    worker_setup(parent)  # parent watch, one-line warnings (stablefs._runtime.processes)
    return func(item)


@worker_task
def warm_worker(methods, X_train, y_train, *, seed: int, resample: int, sizes, classifiers,
                parent=None, announce: bool = False) -> None:
    """A worker's first task (:func:`start_workers`): :func:`~stablefs._runtime.processes.
    worker_setup` and :func:`warm_up` of every method on ``X_train`` (the first
    :data:`WARM_UP_FEATURES` features are enough), so that the first fit of each method in
    this process is timed without its one-off costs. Results do not depend on it. With
    ``announce`` this worker prints its first-use compilations (one worker per command)."""
    worker_setup(parent, announce=announce)
    clfs = check_classifiers(classifiers)
    for name, template in _method_templates(methods).items():
        warm_up(name, build_selector(template, task_seed(seed, resample, name), sizes),
                X_train, y_train, clfs)


class _DaskContext:
    def __init__(self, client, *, close: bool = True):
        self.client = client
        self.close = close
        self.inner = joblib.parallel_config(backend="dask")

    def __enter__(self):
        self.inner.__enter__()
        return self

    def __exit__(self, *exc):
        self.inner.__exit__(*exc)
        if self.close:
            self.client.close()


def _method_key(name: str, template) -> str:
    """What identifies a method's fits in the cache: its name and, for objects, its
    parameters."""
    if isinstance(template, str):
        return name
    return f"{name}|{type(template).__module__}.{type(template).__qualname__}|{template!r}"


def run_experiment(
    X: ArrayLike | pd.DataFrame,
    y: ArrayLike,
    methods: Sequence[str | BaseEstimator | tuple[str, BaseEstimator]],
    sizes: Sequence[int],
    *,
    protocol: Protocol | str | BaseCrossValidator = "split",
    n_repeats: int | None = None,
    classifiers: Classifiers = ("svm", "1nn"),
    measures: Sequence[str] = ("kuncheva", "nogueira"),
    feature_names: FeatureNames | None = None,
    random_state: int = 0,
    n_jobs: int | None = 1,
    backend: Literal["loky", "dask"] = "loky",
    scheduler: str | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    impute: Literal["median"] | None = None,
    standardize: bool = False,
    prefilter: int | None = None,
    sample_names: Sequence[str] | None = None,
    progress: bool | Literal["bar", "lines"] = False,
    alpha: float = 0.05,
    compare_pairs: bool = True,
) -> ExperimentResult:
    """Run every method on the same resamples and measure stability and accuracy.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data.
    y : ndarray of shape (n_samples,)
        The class labels.
    methods : sequence
        Method strings (``"relieff"``, ``"iw-relieff(n_neighbors=5)"``, ...), selector objects
        (any scikit-learn estimator that sets ``ranking_`` and ``scores_``; named by their class)
        or ``(name, selector)`` pairs.
    sizes : list of int
        Subset sizes k at which stability and accuracy are measured.
    protocol : Protocol, str or scikit-learn splitter
        A protocol string (:data:`~stablefs.evaluation.protocols.GRAMMAR`): ``"split"`` (R
        random stratified 2/3 splits; Han 2012 sec. 7.1), ``"cv"`` (R × 10-fold),
        ``"holdout"`` (R × 3-fold with the full-data reference of Yu, Ding and Loscalzo 2008),
        ``"subsample"`` (90 %), ``"bootstrap"``, ``"5x2"``, ``"loo"``; a
        :class:`~stablefs.evaluation.protocols.Protocol`; or any object with ``split(X, y)``
        such as ``RepeatedStratifiedKFold(random_state=0)``. With a full-data reference each
        method is also fitted on all samples (``selections`` row with resample −1), and the
        measures that have a reference form (the pairwise ones and nPOGR, Zucknick, the
        intersection count) compare every resample's subset with that fit (Yu et al. 2008,
        eq. 7); ``stability["against"]`` says ``"reference"`` for them, ``"resamples"``
        otherwise.
    n_repeats : int, optional
        R; defaults to 20 splits or 10 k-fold repeats.
    classifiers : sequence
        Classifiers trained on each top-k subset: names (``svm``, ``1nn``, ``3nn``, ``lda``),
        scikit-learn classifiers, or ``(name, classifier)`` pairs.
    measures : sequence of str
        Stability measures from :func:`stablefs.stability.available_measures`.
    feature_names : sequence of str, optional
        The p column names; ``frequencies`` then names the features.
    random_state : int
        Seeds the resamples and every randomised selector.
    n_jobs : int
        Parallel tasks (-1 = all cores), capped at the number of fits to do; results do not
        depend on it.
    backend : {"loky", "dask"}
        joblib backend; ``dask`` uses ``scheduler`` or a local cluster.
    scheduler : str, optional
        Address of a Dask scheduler (``backend="dask"``).
    cache_dir : path, optional
        Where finished fits are kept (keyed by configuration) so that an interrupted run can
        resume; ``stablefs compare`` uses ``<out>/.partial``.
    impute : {None, "median"}
        ``"median"`` fills missing values (NaN) with per-feature medians of each training
        part, applied to that resample's training and test parts; ``None`` refuses NaN.
    standardize : bool
        Centre and scale every feature with the mean and standard deviation of each training
        part before selection (applied to the test part with the same statistics).
    prefilter : int, optional
        Keep only the N features with the largest Welch t-statistic (ANOVA F for more than two
        classes) on each training part for the selector (Han 2012 sec. 7.1 kept 5000 of Lung's
        genes); rankings still refer to the original features, the filtered-out ones ranked
        after the kept ones. See :mod:`stablefs.evaluation.preprocessing`.
    sample_names : sequence of str, optional
        Names of the samples; ``selections`` then also lists each training part by name
        (column ``train_samples``).
    progress : bool or {"bar", "lines"}
        Progress on stderr: a bar (True or ``"bar"``), or a line at every tenth of the fits
        (``"lines"``, for logs; :mod:`stablefs._runtime.progress`).
    alpha : float
        1 − confidence level of the stability intervals.
    compare_pairs : bool
        Compute ``comparisons`` (the paired tests of every two methods); False leaves it
        empty (the nested estimate's inner comparisons need only the means).

    Returns
    -------
    ExperimentResult
        The selections, the predictive metrics, the stability with its intervals, the
        selection frequencies, the comparisons of every two methods and the majority-class
        baseline.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, ch. 5 and sec. 7.1.
    .. [2] S. Nogueira, K. Sechidis and G. Brown, "On the stability of feature selection
       algorithms", Journal of Machine Learning Research 18(174), 1–54, 2018.
    .. [3] L. Yu, C. Ding and S. Loscalzo, "Stable feature selection via dense feature
       groups", Proc. 14th ACM SIGKDD Int. Conf. on Knowledge Discovery and Data Mining,
       803–811, 2008, sec. 6.1 and eq. 7 (the full-data reference).

    Examples
    --------
    Is an ensemble of t-tests more stable than the t-test, at the same accuracy?

    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.evaluation import run_experiment
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> result = run_experiment(data.X, data.y, ["ttest", "en-ttest(n_estimators=5)"], [5],
    ...                         n_repeats=5, classifiers=["svm"],
    ...                         measures=["kuncheva", "nogueira"])
    >>> for row in result.stability.query("measure == 'nogueira'").itertuples():
    ...     print(row.method, round(row.estimate, 3), [round(row.low, 3), round(row.high, 3)])
    ttest 0.695 [0.533, 0.856]
    en-ttest(n_estimators=5) 0.804 [0.705, 0.903]
    >>> accuracy = result.results.query("metric == 'accuracy_svm'")
    >>> accuracy.groupby("method", sort=False)["value"].mean().round(3).to_dict()
    {'ttest': 0.971, 'en-ttest(n_estimators=5)': 0.971}
    """
    from stablefs.evaluation.statistics import (
        add_interval_column,
        compare_methods,
        stability_interval,
    )
    from stablefs.stability import available_measures

    frame: Any = X if hasattr(X, "iloc") else None  # a DataFrame keeps its gene names
    if feature_names is None and frame is not None and hasattr(frame, "columns"):
        feature_names = [str(c) for c in frame.columns]
    if sample_names is None and frame is not None and hasattr(frame, "index") and not (
            isinstance(frame.index, range) or type(frame.index).__name__ == "RangeIndex"):
        sample_names = [str(s) for s in frame.index]
    X = dense_matrix(X)
    y = np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise StablefsError(
            f"X must be 2-D with one label per row; got X of shape {X.shape} and y of shape "
            f"{y.shape}."
        )
    prep = Preprocessing(impute=impute, standardize=bool(standardize), prefilter=prefilter)
    prep.check(X.shape[1])
    n_missing = int(np.isnan(X).sum())
    if n_missing and impute is None:
        raise StablefsError(
            f"X has {n_missing} missing values: pass impute='median' (CLI --missing impute) "
            "or remove them."
        )
    if np.isinf(X).any():
        raise StablefsError("X holds infinite values: remove or replace them.")
    n_features = X.shape[1]
    sizes = check_sizes(sizes, n_features)
    prep.check(n_features, sizes)
    classifiers = check_classifiers(classifiers)
    measures = list(measures)
    unknown = [m for m in measures if m not in available_measures()]
    if unknown or not measures:
        raise StablefsError(
            f"unknown stability measure(s) {', '.join(map(repr, unknown)) or '(none given)'}: "
            f"choose from {', '.join(available_measures())}."
        )
    check_measures_defined(measures, sizes, n_features)
    if backend not in ("loky", "dask"):
        raise StablefsError(f"unknown backend {backend!r}: choose loky or dask.")
    templates = _method_templates(methods)
    names = list(templates)
    check_n_jobs(n_jobs)
    resamples, protocol_text = _protocol_resamples(protocol, n_repeats, X, y, random_state)
    feature_names = (np.asarray(feature_names, dtype=str) if feature_names is not None
                     else np.array([f"f{j}" for j in range(n_features)]))

    from stablefs._version import __version__

    fit_config = {
        "data_digest": _digest(X, y), "resamples": _resamples_digest(resamples),
        "sizes": sizes, "seed": random_state, "impute": impute, "stablefs": __version__,
        "classifiers": {n: (t if isinstance(t, str) else repr(t)) for n, t in
                        classifiers.items()},
    }
    if prep.standardize or prep.prefilter:  # absent when unused: earlier caches keep their key
        fit_config.update(standardize=prep.standardize, prefilter=prep.prefilter)
    method_keys = {name: _method_key(name, t) for name, t in templates.items()}
    from stablefs.methods import promises_permutation

    cache = _FitCache(cache_dir, fit_config, n_features, sizes, classifiers,
                      promises={method_keys[n]: promises_permutation(t)
                                for n, t in templates.items()},
                      prefilter=prep.prefilter)

    def build(name, r):  # forward wrappers search only as far as the largest -k
        return build_selector(templates[name], task_seed(random_state, r, name), sizes)

    done: dict[tuple[str, int], dict] = {}
    todo = []
    for res in resamples:
        for name in names:
            cached = cache.load(method_keys[name], res)
            if cached is not None:
                done[(name, res.index)] = cached
            else:
                todo.append((name, res))
    cache.warn()

    from stablefs._runtime.progress import make_progress

    bar = make_progress(progress, total=len(resamples) * len(names), initial=len(done))
    started = time.perf_counter()
    try:
        if todo:
            workers = check_n_jobs(n_jobs, len(todo))
            with _backend_context(backend, workers, scheduler):
                parallel = joblib.Parallel(n_jobs=workers, return_as="generator_unordered")
                jobs = (joblib.delayed(_run_one)(name, build(name, res.index), X, y, res, sizes,
                                                 classifiers, prep, parent=os.getpid())
                        for name, res in todo)
                by_index = {res.index: res for res in resamples}
                for name, index, result in parallel(jobs):
                    cache.save(method_keys[name], by_index[index], result)
                    done[(name, index)] = result
                    bar.update(1, f"{name}, resample {index + 1}")
    finally:
        bar.close()
    tasks_seconds = time.perf_counter() - started

    from stablefs._runtime.progress import heartbeat

    with heartbeat(progress, "compare", "the stability and the paired tests of the fits"):
        result = _assemble(done, names, resamples, sizes, feature_names, measures, X, alpha,
                           random_state, stability_interval)
        result.stability = add_interval_column(result.stability)
        if compare_pairs:
            result.comparisons = compare_methods(result.results, result.selections,
                                                 resamples, sizes)
    from stablefs.evaluation.baseline import majority_baseline

    result.baseline = majority_baseline(y, resamples)
    if sample_names is not None:
        sample_names = np.asarray(sample_names, dtype=str)
        if sample_names.shape != (X.shape[0],):
            raise StablefsError(f"sample_names has {sample_names.size} names for "
                                f"{X.shape[0]} samples.")
        result.selections["train_samples"] = [sample_names[t].tolist() for t in
                                              result.selections["train"]]
    result.info = {"protocol": protocol_text,
                   "n_resamples": sum(r.index >= 0 for r in resamples),
                   "reference_fit": any(r.index < 0 for r in resamples),
                   "fits_reused": len(resamples) * len(names) - len(todo),
                   "fits_computed": len(todo),
                   # the wall time of the fits alone (the stability and tests after them
                   # not counted): the pace compare's estimate after the fits starts from
                   "tasks_seconds": tasks_seconds}
    return result


@worker_task
def _run_one(name, selector, X, y, res, sizes, classifiers, prep=None, parent=None):
    worker_setup(parent)  # parent watch, one-line warnings (stablefs._runtime.processes)
    return name, res.index, _fit_task(selector, X, y, res, sizes, classifiers, prep, name)


def _assemble(done, names, resamples, sizes, feature_names, measures, X, alpha, seed,
              measure_interval) -> ExperimentResult:
    from stablefs.evaluation.reference import has_reference_form, reference_interval

    n_features = X.shape[1]
    sel_rows, res_rows, stab_rows, freq_rows = [], [], [], []
    ref_res = [r for r in resamples if r.index < 0]
    resamples = [r for r in resamples if r.index >= 0]
    for name in names:
        reference = done[(name, ref_res[0].index)]["ranking"] if ref_res else None
        if reference is not None:
            sel_rows.append({"method": name, "resample": ref_res[0].index,
                             "fit_time": done[(name, ref_res[0].index)]["fit_time"],
                             "train": ref_res[0].train.astype(np.int32), "ranking": reference,
                             "scores": done[(name, ref_res[0].index)]["scores"]})
        rankings = np.empty((len(resamples), n_features), dtype=np.int32)
        for i, res in enumerate(resamples):
            out = done[(name, res.index)]
            rankings[i] = out["ranking"]
            sel_rows.append({"method": name, "resample": res.index, "fit_time": out["fit_time"],
                             "train": res.train.astype(np.int32), "ranking": out["ranking"],
                             "scores": out["scores"]})
            res_rows.append((name, 0, res.index, "fit_time", out["fit_time"]))
            for k, metrics in out["metrics"].items():
                for metric, value in metrics.items():
                    res_rows.append((name, k, res.index, metric, value))
        for k in sizes:
            subsets = rankings <= k
            for measure in measures:
                if reference is not None and has_reference_form(measure):
                    est, low, high = reference_interval(measure, subsets, reference <= k, X=X,
                                                        alpha=alpha, random_state=seed)
                    against = "reference"
                else:
                    est, low, high = measure_interval(measure, subsets, n_features, X=X,
                                                      alpha=alpha, random_state=seed)
                    against = "resamples"
                stab_rows.append((name, k, measure, est, low, high, against))
            freq = subsets.mean(axis=0)
            nz = np.flatnonzero(freq)
            nz = nz[np.argsort(-freq[nz], kind="stable")]
            freq_rows.append(pd.DataFrame({"method": name, "k": k,
                                           "feature": feature_names[nz], "frequency": freq[nz]}))
    return ExperimentResult(
        selections=pd.DataFrame(sel_rows),
        results=pd.DataFrame(res_rows, columns=["method", "k", "resample", "metric", "value"]),
        stability=pd.DataFrame(stab_rows, columns=["method", "k", "measure", "estimate", "low",
                                                   "high", "against"]),
        frequencies=pd.concat(freq_rows, ignore_index=True) if freq_rows else pd.DataFrame(
            columns=["method", "k", "feature", "frequency"]),
    )
