"""Permutation test of a chosen (method, k): is its held-out accuracy better than chance?

The null hypothesis is that the labels carry no information the features can predict. Under
it the labels are exchangeable, so the whole selection-and-classification procedure is
repeated with the labels permuted across the samples, and the observed statistic is compared
with the permuted ones (Good 2005; for classifiers Ojala and Garriga 2010, "test 1").

What is permuted and what is refitted:

- one permutation of all labels per permutation b, drawn from the seed and b only;
- the resamples are the *same index sets* as the comparison's (the first ``n_resamples``
  of them), so the stratification of the real labels is kept as it was;
- the selector is **refitted** on the permuted labels of each training part, then the
  classifier is trained on the top-k features and scored on the permuted labels of the test
  part. Reusing the real-label selections would carry the real labels' information into the
  null and bias it (Ambroise and McLachlan 2002, selection bias);
- the statistic is the mean held-out **balanced accuracy** over those resamples (the mean
  recall over the classes: 1/c for any rule that ignores the features, whatever the class
  sizes, so imbalanced classes do not inflate it as plain accuracy is inflated by always
  answering the majority class). The observed statistic is the same mean of the real-label
  fits on the same resamples.

The p-value is ``(1 + #{T_b >= T_obs}) / (1 + B)`` (Phipson and Smyth 2010: never 0; with
B = 100, the default, the smallest is 1/101 < 0.01). Sequential stopping (Besag and Clifford
1991): the permutations are evaluated in order and the test stops as soon as ``h`` of them reach the
observed statistic, with the p-value ``h / L`` at the L-th permutation. With the default
``h = ceil(alpha * B)`` a stopped test has ``p >= alpha`` both by Besag and Clifford's p-value
and by the full test's, so stopping never changes the decision at ``alpha``; it only saves the
permutations of a clearly non-significant result. A significant result runs all B.

Note that the (method, k) is chosen on the same resamples before the test and the choice is
not repeated inside the permutations, so the test asks whether *this* pair predicts better
than chance; the optimism of having chosen it is what the nested estimate
(:mod:`stablefs.evaluation.nested`) measures.

Units, resumption, determinism: every permutation is one unit (``n_resamples`` fits) whose
permutation and selector seeds depend only on the seed, b, the resample and the method, so
results do not depend on ``n_jobs``, the backend, or batch boundaries. With ``cache_dir``
each finished unit is stored at once as a small JSON file (no pickle) under a folder keyed by
everything that decides it; a rerun reuses them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import joblib
import numpy as np
import pandas as pd

from stablefs._errors import StablefsError

__all__ = ["DEFAULT_PERMUTATIONS", "DEFAULT_PERMUTATION_RESAMPLES", "PermutationTest",
           "permutation_p_value", "permutation_test", "sequential_stop", "stop_after"]

log = logging.getLogger("stablefs")

#: default number of permutations B: the smallest for which p < 0.01 is reachable
#: (smallest p = 1/101; B = 99 stops at exactly 0.01)
DEFAULT_PERMUTATIONS = 100
#: default number of the comparison's resamples each permutation refits (fewer than the
#: comparison's 20 splits: the test costs up to B x this many fits of one method)
DEFAULT_PERMUTATION_RESAMPLES = 3
#: the level at which "evidence of signal" is decided
LEVEL = 0.05


def permutation_p_value(statistics, observed: float) -> float:
    """``(1 + #{T_b >= T_obs}) / (1 + B)`` over the permuted statistics ``T_b``."""
    t = np.asarray(statistics, dtype=float)
    return float((1 + np.sum(t >= observed - 1e-12)) / (1 + t.size))


def stop_after(n_permutations: int, alpha: float = LEVEL) -> int:
    """Besag and Clifford's h: the number of exceedances after which the test stops,
    ``max(1, ceil(alpha * B))``, the smallest h for which stopping implies p >= alpha."""
    return max(1, math.ceil(alpha * n_permutations - 1e-9))


def sequential_stop(statistics, observed: float, n_permutations: int, h: int
                    ) -> tuple[float, int, int, bool]:
    """Besag and Clifford's (1991) sequential p-value over permutations taken in order.

    Parameters
    ----------
    statistics : array-like
        Permuted statistics in permutation order (at least the ones computed so far).
    observed : float
    n_permutations : int
        B, the most permutations the test would use.
    h : int
        Stop at the h-th permuted statistic >= ``observed``.

    Returns
    -------
    (p_value, n_used, exceedances, stopped)
        When h exceedances occur at permutation L <= B: ``(h / L, L, h, True)``; otherwise,
        with all B done, the full test ``((1 + e) / (1 + B), B, e, False)``; with fewer than
        B done and fewer than h exceedances, ``(nan, n_done, e, False)`` (undecided).
    """
    t = np.asarray(statistics, dtype=float)[:n_permutations]
    hits = np.cumsum(t >= observed - 1e-12)
    reach = np.flatnonzero(hits >= h)
    if reach.size:
        n_used = int(reach[0]) + 1
        return h / n_used, n_used, int(h), True
    e = int(hits[-1]) if hits.size else 0
    if t.size < n_permutations:
        return float("nan"), int(t.size), e, False
    return (1 + e) / (1 + n_permutations), int(n_permutations), e, False


@dataclass
class PermutationTest:
    """The result of :func:`permutation_test`.

    ``statistics`` holds the permuted statistics actually used, in permutation order (the
    first ``n_used``); ``p_value`` is Besag and Clifford's when ``stopped`` else the full
    test's.
    """

    method: str
    k: int
    classifier: str
    metric: str
    observed: float
    statistics: np.ndarray
    n_permutations: int
    n_resamples: int
    resamples: list
    alpha: float
    stop_after: int
    exceedances: int
    p_value: float
    stopped: bool
    seconds: float = 0.0
    units_computed: int = 0
    units_reused: int = 0
    #: the real-label values on each resample (their mean is ``observed``)
    observed_values: list = field(default_factory=list)

    @property
    def n_used(self) -> int:
        return int(len(self.statistics))

    @property
    def significant(self) -> bool:
        return bool(self.p_value < self.alpha)

    def table(self) -> pd.DataFrame:
        """``permutation, statistic`` (permutation 0 is the observed, real-label value)."""
        return pd.DataFrame({
            "permutation": np.arange(self.n_used + 1),
            "statistic": np.concatenate([[self.observed], self.statistics]),
        })

    def to_dict(self) -> dict:
        """A JSON-ready summary (for ``run.json``)."""
        return {
            "method": self.method, "k": int(self.k), "classifier": self.classifier,
            "statistic": f"mean held-out {self.metric.replace('_', ' ')}",
            "metric": self.metric, "observed": self.observed,
            "null_mean": float(np.mean(self.statistics)) if self.n_used else None,
            "p_value": self.p_value, "alpha": self.alpha, "significant": self.significant,
            "permutations_requested": int(self.n_permutations),
            "permutations_used": self.n_used, "exceedances": int(self.exceedances),
            "stop_after": int(self.stop_after), "stopped_early": bool(self.stopped),
            "resamples_per_permutation": int(self.n_resamples),
            "resamples": [int(r) for r in self.resamples],
            "fits": self.n_used * int(self.n_resamples),
            "units_computed": int(self.units_computed), "units_reused": int(self.units_reused),
            "seconds": round(float(self.seconds), 3),
        }



def _permutation(seed: int, b: int, y: np.ndarray, resamples) -> np.ndarray:
    """The b-th permutation of the sample indices; redrawn (deterministically) until every
    training part holds at least two classes, so every selector can be fitted."""
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0x5EED, int(b)]))
    for _ in range(1000):
        perm = rng.permutation(y.size)
        yb = y[perm]
        if all(np.unique(yb[r.train]).size >= 2 for r in resamples):
            return perm
    raise StablefsError("cannot permute the labels so that every training part keeps two "
                        "classes: the classes are too small for a permutation test; use "
                        "--permutations 0.")


def _unit_seed(seed: int, b: int, resample: int, method: str) -> int:
    from stablefs.evaluation.runner import derive_seed

    return derive_seed(seed, 0xBE55, int(b) % 2**32, int(resample) % 2**32,
                       zlib.crc32(method.encode()))


def _search_limited(template, sizes) -> bool:
    """Whether building ``template`` for ``sizes`` bounds its search (a forward wrapper)."""
    from stablefs.methods import honour_sizes, make_selector

    if not isinstance(template, str):
        return False
    free = make_selector(template).get_params(deep=True)
    return repr(honour_sizes(make_selector(template), sizes).get_params(deep=True)) != repr(free)


def _unit(b, name, template, X, y, perm, resamples, k, classifiers, metric, prep, seed,
          sizes=None):
    """Permutation b: refit the selector on each resample's permuted training labels and
    score the top-k subset on the permuted test labels. b = -1 is the identity (real
    labels). The selector is built as the comparison built it (``sizes``: its ``-k``)."""
    from stablefs._runtime.threads import limit_threads
    from stablefs.evaluation.classifiers import balanced_accuracy, make_classifier
    from stablefs.evaluation.preprocessing import expand_ranking
    from stablefs.evaluation.runner import task_seed
    from stablefs.methods import build_selector

    yb = y if perm is None else y[perm]
    (template_clf,) = classifiers.values()
    values, fit_time = [], 0.0
    for res in resamples:
        # as the runner's fit task, scoring only the balanced accuracy at k
        # b = -1 (real labels) is the comparison's own fit: the runner's seed
        unit_seed = task_seed(seed, res.index, name) if b < 0 else _unit_seed(seed, b,
                                                                              res.index, name)
        selector = build_selector(template, unit_seed, [k] if sizes is None else sizes)
        y_train = yb[res.train]
        X_train, X_test, keep = prep.apply(X[res.train], y_train, X[res.test])
        start = time.perf_counter()
        selector.fit(X_train if keep is None else X_train[:, keep], y_train)
        fit_time += time.perf_counter() - start
        ranking, _ = expand_ranking(np.asarray(selector.ranking_, dtype=np.int32),
                                    np.asarray(selector.scores_, dtype=np.float64), keep,
                                    X.shape[1], X_train, y_train)
        cols = np.sort(np.argsort(ranking, kind="stable")[:int(k)])
        with limit_threads(1):
            model = make_classifier(template_clf).fit(X_train[:, cols], y_train)
            pred = model.predict(X_test[:, cols])
        values.append(balanced_accuracy(yb[res.test], pred))
    return b, values, fit_time


class _UnitCache:
    """Finished permutations as JSON files ``<dir>/<b>.json`` (``{"b", "values"}``)."""

    def __init__(self, cache_dir, config: dict):
        self.dir = None
        if cache_dir is not None:
            key = hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode())
            self.dir = Path(cache_dir) / "permutation" / key.hexdigest()[:16]

    def load(self, b: int, n_values: int):
        if self.dir is None:
            return None
        path = self.dir / f"{b:05d}.json"
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text())
            values = [float(v) for v in data["values"]]
            if int(data["b"]) != b or len(values) != n_values:
                raise ValueError("does not match")
            return values, float(data.get("fit_time", 0.0))
        except (ValueError, KeyError, TypeError):
            # recomputed; the new unit replaces the file atomically (nothing is deleted here)
            log.warning(f"{path} does not parse as a finished permutation: recomputed.")
            return None

    def save(self, b: int, values, fit_time: float) -> None:
        if self.dir is None:
            return
        from stablefs._runtime.io import atomic_write_text

        self.dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.dir / f"{b:05d}.json",
                          json.dumps({"b": b, "values": values, "fit_time": fit_time}))


def permutation_test(X, y, method, k: int, *, resamples, classifier="svm",
                     n_permutations: int = DEFAULT_PERMUTATIONS,
                     n_resamples: int = DEFAULT_PERMUTATION_RESAMPLES,
                     observed_values=None, alpha: float = LEVEL, h: int | None = None,
                     random_state: int = 0, n_jobs: int | None = 1, backend: str = "loky",
                     scheduler: str | None = None, cache_dir=None, impute: str | None = None,
                     standardize: bool = False, prefilter: int | None = None,
                     progress=None, sizes=None) -> PermutationTest:
    """Permutation test of one (method, k) with the selector refitted on permuted labels.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    method : str, selector or (name, selector)
        As for :func:`~stablefs.evaluation.runner.run_experiment`.
    k : int
        Subset size.
    resamples : sequence of Resample
        The comparison's resamples; the first ``n_resamples`` with a test part are used.
    classifier : str or (name, classifier)
        The classifier of the statistic (the recommendation's).
    n_permutations : int, default 100
        B. With B = 100 the smallest p-value is 1/101 < 0.01.
    n_resamples : int, default 3
        Resamples refitted per permutation (the test costs up to B x this many fits).
    observed_values : sequence of float, optional
        The real-label balanced accuracies on those resamples, when the comparison has them
        (the same fits, so reusing them is valid); otherwise they are computed.
    alpha : float, default 0.05
        Level of the decision; sets the default ``h``.
    h : int, optional
        Stop after h exceedances (Besag and Clifford 1991); default :func:`stop_after`.
    random_state : int
        Seeds the permutations and the selectors.
    n_jobs, backend, scheduler, cache_dir, impute, standardize, prefilter
        As for :func:`~stablefs.evaluation.runner.run_experiment`; the cache holds one JSON
        file per permutation.
    progress : None, "bar" or "lines"
        Progress on stderr (:mod:`stablefs._runtime.progress`).
    sizes : sequence of int, optional
        The comparison's subset sizes, so that each refit is built as its fits were (a
        forward wrapper searches up to ``max(sizes)``; :func:`stablefs.methods.build_selector`).
        Default ``[k]``.

    Returns
    -------
    PermutationTest
    """
    from stablefs import __version__
    from stablefs._runtime.progress import make_progress
    from stablefs.evaluation.classifiers import check_classifiers
    from stablefs.evaluation.preprocessing import Preprocessing
    from stablefs.evaluation.runner import (
        _backend_context,
        _digest,
        _method_key,
        _method_templates,
        _resamples_digest,
        check_n_jobs,
    )

    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.asarray(y)
    if isinstance(n_permutations, bool) or int(n_permutations) < 1:
        raise StablefsError(f"the number of permutations must be at least 1, not "
                            f"{n_permutations} (0 skips the test).")
    if int(n_resamples) < 1:
        raise StablefsError(f"resamples per permutation must be at least 1, not "
                            f"{n_resamples}.")
    n_permutations, n_resamples = int(n_permutations), int(n_resamples)
    (name, template), = _method_templates([method]).items()
    clfs = check_classifiers([classifier])
    clf_name = next(iter(clfs))
    metric = f"balanced_accuracy_{clf_name}"
    used = [r for r in resamples if len(r.test)][:n_resamples]
    n_resamples = len(used)
    sizes = [int(k)] if sizes is None else [int(s) for s in sizes]
    prep = Preprocessing(impute=impute, standardize=bool(standardize), prefilter=prefilter)
    h = stop_after(n_permutations, alpha) if h is None else int(h)
    check_n_jobs(n_jobs)
    t0 = time.perf_counter()

    if observed_values is None:
        _, observed_values, _ = _unit(-1, name, template, X, y, None, used, k, clfs, metric,
                                      prep, random_state, sizes)
    observed_values = [float(v) for v in observed_values]
    if len(observed_values) != n_resamples:
        raise StablefsError(f"{len(observed_values)} observed values for {n_resamples} "
                            "resamples.")
    observed = float(np.mean(observed_values))

    config = {"data": _digest(X, y), "resamples": _resamples_digest(used),
              "method": _method_key(name, template), "k": int(k), "metric": metric,
              "classifier": clfs[clf_name] if isinstance(clfs[clf_name], str)
              else repr(clfs[clf_name]), "seed": int(random_state), "stablefs": __version__,
              "prep": [impute, bool(standardize), prefilter]}
    if _search_limited(template, sizes):  # in the key only when it changes the selector
        config["search_to"] = max(sizes)
    cache = _UnitCache(cache_dir, config)
    values: dict[int, float] = {}
    reused = computed = 0
    for b in range(n_permutations):
        hit = cache.load(b, n_resamples)
        if hit is not None:
            values[b] = float(np.mean(hit[0]))
            reused += 1

    def decided():
        done = []
        for b in range(n_permutations):
            if b not in values:
                break
            done.append(values[b])
        p, n_used, e, stopped = sequential_stop(done, observed, n_permutations, h)
        return (stopped or n_used == n_permutations), done

    workers = check_n_jobs(n_jobs, n_permutations)
    bar = make_progress(progress, total=n_permutations, initial=len(values),
                        desc="permutation test", unit="perm")
    try:
        finished, _ = decided()
        if not finished:
            with _backend_context(backend, workers, scheduler):
                parallel = joblib.Parallel(n_jobs=workers, return_as="generator_unordered")
                batch = max(4 * workers, 10)
                while not finished:
                    todo = [b for b in range(n_permutations) if b not in values][:batch]
                    jobs = (joblib.delayed(_unit)(
                        b, name, template, X, y, _permutation(random_state, b, y, used), used,
                        k, clfs, metric, prep, random_state, sizes) for b in todo)
                    for b, vals, ft in parallel(jobs):
                        cache.save(b, vals, ft)
                        values[b] = float(np.mean(vals))
                        computed += 1
                        bar.update(1)
                    finished, _ = decided()
    finally:
        bar.close()

    _, done = decided()
    p, n_used, e, stopped = sequential_stop(done, observed, n_permutations, h)
    return PermutationTest(
        method=name, k=int(k), classifier=clf_name, metric=metric, observed=observed,
        statistics=np.asarray(done[:n_used], dtype=float), n_permutations=n_permutations,
        n_resamples=n_resamples, resamples=[int(r.index) for r in used], alpha=float(alpha),
        stop_after=h, exceedances=e, p_value=float(p), stopped=stopped,
        seconds=time.perf_counter() - t0, units_computed=computed, units_reused=reused,
        observed_values=observed_values)
