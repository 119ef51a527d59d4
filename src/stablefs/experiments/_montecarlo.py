"""Seeded, parallel, resumable Monte-Carlo units for the reproducible experiments.

A *unit* is one independent piece of a Monte-Carlo study, typically "draw training set i and
fit every method on it". Each unit gets its own random stream from
``numpy.random.SeedSequence(seed, spawn_key=key)`` (:func:`unit_seed`), where ``key`` is the
unit's tuple of integers (study number, sample size, set index, ...). The stream therefore
depends only on the run's seed and the unit's key, never on which worker runs the unit or in
which order, so the results do not depend on ``n_jobs``.

Finished units are kept as ``.npz`` files in a :class:`TaskCache` (the run folder's
``.partial/<configuration key>/``) so that an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

import numpy as np

from stablefs._runtime.processes import worker_task

__all__ = ["TaskCache", "draw_state", "run_units", "stratified_fold_labels", "top_k_scores",
           "unit_seed", "units_backend"]

#: where :func:`run_units` sends its units: ``"loky"`` (local processes) or ``"dask"``
_BACKEND: ContextVar[str] = ContextVar("stablefs_units_backend", default="loky")


def unit_seed(seed: int, *key: int) -> np.random.SeedSequence:
    """The random stream of the unit ``key`` of a run seeded with ``seed``.

    Parameters
    ----------
    seed : int
        The run's seed (non-negative).
    *key : int
        The unit's identity, e.g. ``(study, set_index)``; non-negative integers.

    Returns
    -------
    numpy.random.SeedSequence
        Pass it to :func:`numpy.random.default_rng` (or spawn children from it).
    """
    return np.random.SeedSequence(int(seed), spawn_key=tuple(int(k) for k in key))


def draw_state(rng: np.random.Generator) -> int:
    """A ``random_state`` for one fit (selector, CV splitter), drawn from the unit's stream:
    a whole number in ``[0, 2**31 - 1)``, so that every fit of a unit has its own seed and the
    unit's result depends only on its key."""
    return int(rng.integers(2**31 - 1))


def stratified_fold_labels(y: np.ndarray, n_folds: int, seed: np.random.SeedSequence
                           ) -> np.ndarray:
    """The fold (``0..n_folds-1``) of every sample in one seeded stratified partition.

    scikit-learn's ``StratifiedKFold(shuffle=True)`` seeded from the stream ``seed`` (e.g.
    ``unit_seed(seed, study, data_set, repetition)``): the partition of a repeated K-fold
    cross-validation or of the random K-fold splits of Han (2012, ch. 7), Yu, Ding and
    Loscalzo (2008, sec. 6.1) and Li et al. (2013, sec. 4.2), the same for every method.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
    n_folds : int
    seed : numpy.random.SeedSequence

    Returns
    -------
    ndarray of int64, shape (n_samples,)
    """
    from sklearn.model_selection import StratifiedKFold

    rng = np.random.default_rng(seed)
    skf = StratifiedKFold(n_splits=n_folds, shuffle=True,
                          random_state=draw_state(rng))
    fold = np.empty(y.size, dtype=np.int64)
    for f, (_, test) in enumerate(skf.split(np.zeros(y.size), y)):
        fold[test] = f
    return fold


def top_k_scores(X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray,
                 y_test: np.ndarray, order: np.ndarray, sizes: Sequence[int],
                 classifiers: Sequence[str], metric: str = "accuracy") -> np.ndarray:
    """Held-out scores of classifiers trained on the top k features of a ranking, for every k.

    Inside a unit: each classifier of ``classifiers`` is trained on the training part
    restricted to ``order[:k]`` and scored on the test part
    (:func:`stablefs.evaluation.classifiers.evaluate_subset`: features min-max scaled on the
    training part, as Weka, which Han 2012 and Li et al. 2013 used).

    Parameters
    ----------
    X_train, y_train, X_test, y_test : ndarray
    order : ndarray of int
        Features from the best down (at least ``max(sizes)`` of them).
    sizes : sequence of int
        The k.
    classifiers : sequence of str
        Classifier names (``"svm"``, ``"1nn"``, ``"3nn"``, ...).
    metric : str
        ``"accuracy"``, ``"auc"``, ``"balanced_accuracy"`` or ``"mcc"``.

    Returns
    -------
    ndarray of shape (len(sizes), len(classifiers))
    """
    from stablefs.evaluation.classifiers import evaluate_subset

    scores = np.empty((len(sizes), len(classifiers)))
    for a, k in enumerate(sizes):
        res = evaluate_subset(X_train[:, order[:k]], y_train, X_test[:, order[:k]], y_test,
                              list(classifiers))
        scores[a] = [res[f"{metric}_{c}"] for c in classifiers]
    return scores


class TaskCache:
    """Finished units on disk: one ``.npz`` of named arrays per unit.

    The files hold plain arrays only and are read with :func:`stablefs._runtime.stored.read_arrays`
    (never unpickled, headers checked before allocation), so a planted file cannot run code.
    Each file also records the unit it belongs to (member ``__unit__``, ``"study:key"``) and
    the digest of its arrays (:mod:`stablefs._runtime.stored`); a file that does not parse,
    whose digest does not match or that belongs to another unit is recomputed, and
    :meth:`warn` says so in one line.

    Parameters
    ----------
    folder : path-like
        The cache folder; created on the first save.
    """

    _UNIT = "__unit__"

    def __init__(self, folder):
        self.folder = Path(folder)
        #: units found on disk (finished by an earlier, interrupted run)
        self.hits = 0
        #: ``(file, reason)`` of stored units that were not reused (since the last warning)
        self.rejected: list[tuple[Path, str]] = []

    def _path(self, study: str, key: Sequence[int]) -> Path:
        tag = re.sub(r"[^A-Za-z0-9_]+", "_", study)
        return self.folder / f"{tag}-{'-'.join(str(int(k)) for k in key)}.npz"

    @staticmethod
    def _unit(study: str, key: Sequence[int]) -> str:
        return f"{study}:{'-'.join(str(int(k)) for k in key)}"

    def load(self, study: str, key: Sequence[int]) -> dict[str, np.ndarray] | None:
        """The saved result of a unit, or ``None`` (missing, or not usable: then recorded in
        :attr:`rejected`)."""
        from stablefs._runtime.stored import StoredFileError, read_arrays

        path = self._path(study, key)
        if not path.is_file():
            return None
        try:
            result = read_arrays(path, require_digest=True)
            unit = result.pop(self._UNIT, None)  # absent in files of earlier versions
            if unit is not None and (unit.shape != () or unit.dtype.kind != "U"
                                     or unit.item() != self._unit(study, key)):
                raise StoredFileError(f"it holds unit {unit.tolist()!r}, not "
                                      f"{self._unit(study, key)!r}")
        except StoredFileError as exc:
            self.rejected.append((path, str(exc)))
            return None
        self.hits += 1
        return result

    def save(self, study: str, key: Sequence[int], result: dict[str, np.ndarray]) -> None:
        """Save a unit's result atomically (a crash never leaves a truncated file)."""
        from stablefs._runtime.stored import write_arrays

        if self._UNIT in result:
            raise ValueError(f"{self._UNIT!r} is reserved for the unit's identity")
        write_arrays(self._path(study, key),
                     {**result, self._UNIT: np.asarray(self._unit(study, key))}, compress=True)

    def warn(self) -> None:
        """One warning line for the stored units recomputed since the last call."""
        if not self.rejected:
            return
        import logging

        path, why = self.rejected[0]
        more = f" (and {len(self.rejected) - 1} more)" if len(self.rejected) > 1 else ""
        logging.getLogger("stablefs").warning(
            f"{len(self.rejected)} stored unit(s) in {self.folder} could not be used and are "
            f"recomputed: {path.name}: {why}{more}.")
        self.rejected = []


@contextmanager
def units_backend(backend: str = "loky", *, n_jobs: int = 1,
                  scheduler: str | None = None) -> Iterator[None]:
    """Run the units of every :func:`run_units` call inside on ``backend``.

    ``"loky"`` changes nothing (local worker processes, ``n_jobs`` of them). ``"dask"``
    connects to the Dask scheduler at ``scheduler`` (or starts a local cluster of ``n_jobs``
    single-threaded worker processes) for the whole block, and :func:`run_units` hands every
    unit to the cluster's workers through joblib's Dask backend. A unit's random stream depends
    only on the seed and its key (:func:`unit_seed`), so the results are the same on either
    backend and for any number of workers.

    Parameters
    ----------
    backend : {"loky", "dask"}
    n_jobs : int
        Workers of a local Dask cluster (``-1``: one per core); ignored with ``scheduler``.
    scheduler : str, optional
        Address of a running Dask scheduler, e.g. ``tcp://10.0.0.5:8786``.
    """
    if backend == "loky":
        yield
        return
    from stablefs.evaluation.runner import _backend_context, check_n_jobs

    with _backend_context(backend, check_n_jobs(n_jobs), scheduler):
        token = _BACKEND.set(backend)
        try:
            yield
        finally:
            _BACKEND.reset(token)


def _effective_jobs(n_jobs: int, n_units: int) -> int:
    if n_jobs < 0:
        n_jobs = max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return max(1, min(int(n_jobs), n_units))


def run_units(
    fn: Callable[..., dict[str, np.ndarray]],
    keys: Sequence[tuple[int, ...]],
    *,
    study: str,
    common: dict | None = None,
    n_jobs: int = 1,
    progress: bool = False,
    cache: TaskCache | None = None,
    desc: str | None = None,
) -> list[dict[str, np.ndarray]]:
    """Run ``fn(key, **common)`` for every unit key; return the results in key order.

    Parameters
    ----------
    fn : callable
        A module-level function (picklable for the worker processes) that derives all its
        randomness from :func:`unit_seed` with the key it is given, and returns a dict of
        NumPy arrays.
    keys : sequence of tuple of int
        One key per unit.
    study : str
        Name of the study (prefix of the cache files).
    common : dict, optional
        Keyword arguments shared by every unit (large arrays are memory-mapped by joblib).
    n_jobs : int
        Worker processes (joblib/loky); ``-1`` = all cores. Capped at the number of units.
        Inside :func:`units_backend` with ``"dask"`` the cluster's workers run the units.
    progress : bool
        Show a tqdm progress bar on stderr.
    cache : TaskCache, optional
        Units found there are not recomputed; finished units are saved there.
    desc : str, optional
        Progress-bar label.

    Returns
    -------
    list of dict
        ``results[i]`` is the result of ``keys[i]``.
    """
    import joblib

    common = dict(common or {})
    keys = [tuple(int(k) for k in key) for key in keys]
    results: list[dict | None] = [None] * len(keys)
    todo = []
    for i, key in enumerate(keys):
        hit = cache.load(study, key) if cache is not None else None
        if hit is None:
            todo.append(i)
        else:
            results[i] = hit
    if cache is not None:
        cache.warn()
    bar = None
    if progress and keys:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(keys), initial=len(keys) - len(todo), unit="set",
                   desc=desc or study, file=sys.stderr, leave=False)
    try:
        jobs = _effective_jobs(n_jobs, max(1, len(todo)))
        if _BACKEND.get() == "dask":
            jobs = -1  # every worker of the cluster
        if todo:
            if jobs == 1:
                stream = ((i, fn(keys[i], **common)) for i in todo)
            else:
                parallel = joblib.Parallel(n_jobs=jobs, return_as="generator_unordered")
                parent = os.getpid()
                stream = parallel(joblib.delayed(_indexed)(fn, i, keys[i], common, parent)
                                  for i in todo)
            for i, res in stream:
                results[i] = res
                if cache is not None:
                    cache.save(study, keys[i], res)
                if bar is not None:
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return results  # type: ignore[return-value]


@worker_task
def _indexed(fn, i, key, common, parent=None):
    from stablefs._runtime.processes import worker_setup

    worker_setup(parent)  # a worker ends with its parent; one-line warnings
    return i, fn(key, **common)
