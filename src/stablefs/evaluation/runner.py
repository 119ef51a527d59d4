"""The experiment runner behind ``stablefs compare``.

Every method is fitted on the training part of every resample (the same resamples for all
methods); the full ranking and the scores of each fit are recorded. For each subset size k the
top-k features then train the classifiers (on the training part) that are scored on the
held-out part. Stability is measured afterwards from the recorded rankings alone, so adding a
measure never needs a refit.

Determinism: the selector of task (method, resample) gets ``random_state`` derived from the
run seed, the resample index and the method string only, so results do not depend on
``n_jobs``, on the backend, nor on the order in which tasks finish.

Resumption: with an output folder, each finished task is stored at once under
``<out>/.partial/`` (written atomically); rerunning the same configuration with the same folder
reuses them and computes only what is missing.
"""

from __future__ import annotations

import hashlib
import json
import time
import zlib
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
from sklearn.base import clone

from stablefs._errors import StablefsError
from stablefs._validation import check_sizes
from stablefs.evaluation.classifiers import check_classifiers, evaluate_subset
from stablefs.evaluation.protocols import Protocol, Resample
from stablefs.methods import make_selector, parse_method


@dataclass
class ExperimentResult:
    """Everything a comparison produced.

    Attributes
    ----------
    selections : DataFrame
        One row per (method, resample): ``method, resample, fit_time, train, ranking, scores``.
    results : DataFrame
        Tidy ``method, k, resample, metric, value`` (``fit_time`` rows have ``k = 0``).
    stability : DataFrame
        ``method, k, measure, estimate, low, high``.
    frequencies : DataFrame
        ``method, k, feature, frequency``: share of resamples whose top-k held the feature
        (rows with frequency > 0 only).
    """

    selections: pd.DataFrame
    results: pd.DataFrame
    stability: pd.DataFrame
    frequencies: pd.DataFrame
    info: dict = field(default_factory=dict)


def _digest(X: np.ndarray, y: np.ndarray) -> str:
    h = hashlib.sha256(memoryview(X).cast("B"))
    h.update("\x1f".join(map(str, y)).encode())
    return h.hexdigest()


def task_seed(seed: int, resample: int, method: str) -> int:
    """The ``random_state`` of one (method, resample) fit: independent of scheduling."""
    ss = np.random.SeedSequence([int(seed), int(resample), zlib.crc32(method.encode())])
    return int(ss.generate_state(1)[0] % (2**31 - 1))


def _fit_task(selector, X, y, resample: Resample, sizes, classifiers) -> dict:
    """Fit one selector on one training part and evaluate every top-k subset."""
    train, test = resample.train, resample.test
    start = time.perf_counter()
    selector.fit(X[train], y[train])
    fit_time = time.perf_counter() - start
    ranking = np.asarray(selector.ranking_, dtype=np.int32)
    order = np.argsort(ranking, kind="stable")
    metrics = {}
    for k in sizes:
        cols = np.sort(order[:k])
        metrics[int(k)] = evaluate_subset(X[np.ix_(train, cols)], y[train],
                                          X[np.ix_(test, cols)], y[test], classifiers)
    return {
        "fit_time": fit_time,
        "ranking": ranking,
        "scores": np.asarray(selector.scores_, dtype=np.float64),
        "metrics": metrics,
    }


class _PartialStore:
    """Finished tasks under ``<out>/.partial``, keyed by a hash of the run configuration."""

    def __init__(self, out_dir: Path | None, config: dict):
        self.dir = None
        if out_dir is None:
            return
        self.dir = Path(out_dir) / ".partial"
        self.dir.mkdir(parents=True, exist_ok=True)
        key = hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()
        stamp = self.dir / "config.json"
        if stamp.exists():
            old = json.loads(stamp.read_text())
            if old.get("key") != key:
                raise StablefsError(
                    f"{out_dir} holds an unfinished run with another configuration: rerun with "
                    "the same options to resume it, or choose another --out folder."
                )
        else:
            from stablefs._io import atomic_write_text

            atomic_write_text(stamp, json.dumps({"key": key, "config": config}, indent=2,
                                                default=str))

    def _path(self, method: str, resample: int) -> Path:
        slug = hashlib.sha1(method.encode()).hexdigest()[:12]
        return self.dir / f"{slug}-{resample:05d}.pkl"

    def load(self, method: str, resample: int):
        if self.dir is None:
            return None
        path = self._path(method, resample)
        if not path.exists():
            return None
        try:
            return joblib.load(path)
        except Exception:  # a damaged file is recomputed, never trusted
            path.unlink(missing_ok=True)
            return None

    def save(self, method: str, resample: int, result: dict) -> None:
        if self.dir is None:
            return
        from stablefs._io import atomic_path

        with atomic_path(self._path(method, resample)) as tmp:
            joblib.dump(result, tmp)


def _backend_context(backend: str, n_jobs: int, scheduler: str | None):
    if backend == "loky":
        return nullcontext()
    if backend == "dask":
        try:
            from dask.distributed import Client
        except ImportError:
            raise StablefsError(
                "--backend dask needs Dask: pip install 'stablefs[dask]'."
            ) from None
        client = Client(scheduler) if scheduler else Client(processes=True,
                                                            n_workers=max(1, n_jobs or 1))
        return _DaskContext(client)
    raise StablefsError(f"unknown backend {backend!r}: choose loky or dask.")


class _DaskContext:
    def __init__(self, client):
        self.client = client
        self.inner = joblib.parallel_config(backend="dask")

    def __enter__(self):
        self.inner.__enter__()
        return self

    def __exit__(self, *exc):
        self.inner.__exit__(*exc)
        self.client.close()


def run_experiment(
    X,
    y,
    methods,
    sizes,
    *,
    protocol: Protocol | str = "split",
    n_repeats: int | None = None,
    classifiers=("svm", "1nn"),
    measures=("kuncheva", "nogueira"),
    feature_names=None,
    random_state: int = 0,
    n_jobs: int | None = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    out_dir=None,
    progress: bool = False,
    alpha: float = 0.05,
) -> ExperimentResult:
    """Run every method on the same resamples and measure stability and accuracy.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    methods : list of str or estimators
        Method strings (``"relieff"``, ``"iw-relieff"``, ...) or fitted-API selectors.
    sizes : list of int
        Subset sizes k at which stability and accuracy are measured.
    protocol : Protocol or str
        ``"split"`` (R random stratified 2/3 splits; seed 000 sec. 7.1) or ``"cv"``
        (R × 10-fold), see :class:`~stablefs.evaluation.protocols.Protocol`.
    n_repeats : int, optional
        R; defaults to 20 splits or 10 k-fold repeats.
    classifiers : sequence of str
        Classifiers trained on each top-k subset (``svm``, ``1nn``, ``3nn``).
    measures : sequence of str
        Stability measures from :func:`stablefs.stability.available_measures`.
    random_state : int
        Seeds the resamples and every randomised selector.
    n_jobs : int
        Parallel tasks; results do not depend on it.
    backend : {"loky", "dask"}
        joblib backend; ``dask`` uses ``scheduler`` or a local cluster.
    out_dir : path, optional
        Where finished tasks are kept so that an interrupted run can resume.
    progress : bool
        Show a progress bar on stderr.
    alpha : float
        1 − confidence level of the stability intervals.
    """
    from stablefs.stability import available_measures, measure_interval

    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.asarray(y)
    n_features = X.shape[1]
    sizes = check_sizes(sizes, n_features)
    classifiers = check_classifiers(classifiers)
    unknown = [m for m in measures if m not in available_measures()]
    if unknown:
        raise StablefsError(
            f"unknown stability measure(s) {', '.join(unknown)}: choose from "
            f"{', '.join(available_measures())}."
        )
    if isinstance(protocol, str):
        protocol = Protocol.parse(protocol, n_repeats)
    resamples = protocol.resamples(y, random_state)
    names = [m if isinstance(m, str) else type(m).__name__ for m in methods]
    if len(set(names)) != len(names):
        raise StablefsError(f"a method is named twice in {', '.join(names)}.")
    for m in methods:
        if isinstance(m, str):
            parse_method(m)  # fail fast on a bad string, before any work
    templates = dict(zip(names, methods))
    feature_names = (np.asarray(feature_names, dtype=str) if feature_names is not None
                     else np.array([f"f{j}" for j in range(n_features)]))

    config = {
        "methods": names, "sizes": sizes, "protocol": protocol.__dict__,
        "classifiers": classifiers, "seed": random_state,
        "data_shape": list(X.shape),
        "data_digest": _digest(X, y),
    }
    store = _PartialStore(out_dir, config)

    def build(name, r):
        m = templates[name]
        seed = task_seed(random_state, r, name)
        if isinstance(m, str):
            return make_selector(m, random_state=seed, n_jobs=1)
        est = clone(m)
        if "random_state" in est.get_params():
            est.set_params(random_state=seed)
        return est

    done: dict[tuple[str, int], dict] = {}
    todo = []
    for res in resamples:
        for name in names:
            cached = store.load(name, res.index)
            if cached is not None:
                done[(name, res.index)] = cached
            else:
                todo.append((name, res))

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(resamples) * len(names), initial=len(done), unit="fit",
                   desc="compare", leave=False)
    try:
        if todo:
            with _backend_context(backend, n_jobs, scheduler):
                parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator_unordered")
                jobs = (joblib.delayed(_run_one)(name, build(name, res.index), X, y, res, sizes,
                                                 classifiers) for name, res in todo)
                for name, index, result in parallel(jobs):
                    store.save(name, index, result)
                    done[(name, index)] = result
                    if bar is not None:
                        bar.update(1)
    finally:
        if bar is not None:
            bar.close()

    return _assemble(done, names, resamples, sizes, feature_names, measures, X, alpha,
                     random_state, measure_interval)


def _run_one(name, selector, X, y, res, sizes, classifiers):
    return name, res.index, _fit_task(selector, X, y, res, sizes, classifiers)


def _assemble(done, names, resamples, sizes, feature_names, measures, X, alpha, seed,
              measure_interval) -> ExperimentResult:
    n_features = X.shape[1]
    sel_rows, res_rows, stab_rows, freq_rows = [], [], [], []
    for name in names:
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
                est, low, high = measure_interval(measure, subsets, n_features, X=X,
                                                  alpha=alpha, random_state=seed)
                stab_rows.append((name, k, measure, est, low, high))
            freq = subsets.mean(axis=0)
            nz = np.flatnonzero(freq)
            nz = nz[np.argsort(-freq[nz], kind="stable")]
            freq_rows.append(pd.DataFrame({"method": name, "k": k,
                                           "feature": feature_names[nz], "frequency": freq[nz]}))
    return ExperimentResult(
        selections=pd.DataFrame(sel_rows),
        results=pd.DataFrame(res_rows, columns=["method", "k", "resample", "metric", "value"]),
        stability=pd.DataFrame(stab_rows,
                               columns=["method", "k", "measure", "estimate", "low", "high"]),
        frequencies=pd.concat(freq_rows, ignore_index=True) if freq_rows else pd.DataFrame(
            columns=["method", "k", "feature", "frequency"]),
    )
