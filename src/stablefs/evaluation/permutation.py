"""Permutation test of the whole comparison procedure: does its chosen pair beat chance?

The null hypothesis is that the labels carry no information the features can predict. Under
it the labels are exchangeable, so the whole procedure (resampling, selection, evaluation
*and the choice of the (method, k) pair*) is repeated with the labels permuted across the
samples, and the observed statistic is compared with the permuted ones (Good 2005; for
classifiers Ojala and Garriga 2010, "test 1").

The statistic is that of the procedure, not of a pair chosen beforehand: on ``R`` resamples
(the comparison's first ``R``, default 3) every method is fitted, every k evaluated, the
recommendation rule (``choose``, the report's) picks a (method, k) from those fits alone, and
the statistic is the picked pair's mean held-out **balanced accuracy** over the ``R``
resamples (the mean recall over the classes: 1/c for any rule that ignores the features,
whatever the class sizes). Each permutation b repeats all of it on the permuted labels:

- one permutation of all labels, drawn from the seed and b only;
- ``R`` new resamples drawn by the comparison's protocol *stratified on the permuted labels*
  (reusing splits stratified on the real labels would make the permuted data differ from
  the real data in a way the null does not allow);
- every selector **refitted** on the permuted labels of each training part (reusing the
  real-label selections would carry the real labels' information into the null: Ambroise and
  McLachlan 2002, selection bias), every k evaluated, the choice repeated.

The observed statistic and each permuted one are thus the same function of (data, labels,
seed), and the test is exact for the procedure: choosing the best of many pairs on the very
fits that score it inflates the observed statistic, and the permuted ones by the same
amount. (Scoring a pair chosen beforehand, as the test did before, asks whether *this* pair
beats chance, conditional on a choice made on the same data; a choice among many pairs makes
that optimistic.) A procedure that recommends nothing scores -inf.

The p-value is ``(1 + #{T_b >= T_obs}) / (1 + B)`` (Phipson and Smyth 2010: never 0; with
B = 100, the default, the smallest is 1/101 < 0.01). Sequential stopping (Besag and Clifford
1991): the permutations are evaluated in order and the test stops as soon as ``h`` of them reach the
observed statistic, with the p-value ``h / L`` at the L-th permutation. With the default
``h = ceil(alpha * B)`` a stopped test has ``p >= alpha`` both by Besag and Clifford's p-value
and by the full test's, so stopping never changes the decision at ``alpha``; it only saves the
permutations of a clearly non-significant result. A significant result runs all B.

Cost: ``(B + 1) x R x M`` fits for M methods (each evaluated at every k), M times the cost
of testing one pair.

Units, resumption, determinism: every permutation is one unit whose permutation, splits and
selector seeds depend only on the seed, b, the resample and the method, so results do not
depend on ``n_jobs``, the backend, or the order in which units finish (the workers take the
permutations in order as they free up; units handed out before the test stopped are kept in
the cache but not used). With ``cache_dir`` each finished unit is stored at once as a small
JSON file (no pickle) under a folder keyed by everything that decides it; a rerun reuses them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from stablefs._errors import StablefsError
from stablefs._runtime.processes import worker_task

if TYPE_CHECKING:  # pandas and joblib load when used: compare's stage plan imports this
    import pandas as pd  # module before its first line

__all__ = ["DEFAULT_PERMUTATIONS", "DEFAULT_PERMUTATION_RESAMPLES", "PermutationTest",
           "permutation_p_value", "permutation_test", "permuted_resamples",
           "p_value_floor", "permutations_needed", "procedure_statistic", "procedure_test_seconds",
           "sequential_stop", "stop_after"]

log = logging.getLogger("stablefs")

#: default number of permutations B: the smallest for which p < 0.01 is reachable
#: (smallest p = 1/101; B = 99 stops at exactly 0.01)
DEFAULT_PERMUTATIONS = 100
#: default number of resamples each permutation draws and refits every method on (fewer than
#: the comparison's 20 splits: the test costs up to (B + 1) x this many fits of every method)
DEFAULT_PERMUTATION_RESAMPLES = 3
#: the level at which "evidence of signal" is decided
LEVEL = 0.05


def procedure_test_seconds(choice_seconds: float, permutations: int, resamples: int,
                           workers: int = 1, permuted_seconds: float | None = None) -> float:
    """Wall seconds of :func:`permutation_test` from the cost of one choice's task.

    The choice runs on the real labels and in each of the ``permutations`` permutations, on
    ``resamples`` resamples each: (B + 1) x R tasks of ``choice_seconds`` (every method's fit
    and its evaluation with the one classifier of the choice), the permutations shared by
    ``workers``; ``permuted_seconds``, when given, is the task on permuted labels (the B
    permutations'), ``choice_seconds`` then the real labels' alone. An upper bound when the
    sequential rule stops early.

    Parameters
    ----------
    choice_seconds : float
        One resample's tasks of every method with one classifier, in seconds.
    permutations : int
        B; 0 gives 0.
    resamples : int
        R, the resamples of each choice.
    workers : int
        Parallel workers.
    permuted_seconds : float, optional
        The same tasks on permuted labels; default ``choice_seconds``.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> from stablefs.evaluation.permutation import procedure_test_seconds
    >>> procedure_test_seconds(0.5, 99, 3, workers=2)
    75.0
    """
    if permutations <= 0:
        return 0.0
    permuted = choice_seconds if permuted_seconds is None else permuted_seconds
    return (resamples * (choice_seconds + permutations * permuted)
            / max(1, min(workers, permutations)))


def permutation_p_value(statistics, observed: float) -> float:
    """``(1 + #{T_b >= T_obs}) / (1 + B)`` over the permuted statistics ``T_b``."""
    t = np.asarray(statistics, dtype=float)
    return float((1 + np.sum(t >= observed - 1e-12)) / (1 + t.size))


def p_value_floor(n_permutations: int, alpha: float = LEVEL) -> str:
    """The clause for a number of permutations B whose smallest p-value, ``1/(B + 1)``, is not
    below ``alpha`` (B < 20 at 0.05), so that the test can never be significant; ``""`` when
    B can reach it. The commands warn with it before the work.

    Examples
    --------
    >>> from stablefs.evaluation.permutation import p_value_floor
    >>> p_value_floor(9)
    'with 9 permutations the smallest p-value is 1/10 = 0.100, not below the 0.05 level'
    >>> p_value_floor(100)
    ''
    """
    smallest = 1 / (n_permutations + 1)
    if smallest < alpha:
        return ""
    plural = "s" if n_permutations != 1 else ""
    return (f"with {n_permutations} permutation{plural} the smallest p-value is "
            f"1/{n_permutations + 1} = {smallest:.3f}, not below the {alpha:g} level")


def permutations_needed(alpha: float = LEVEL) -> int:
    """The smallest number of permutations B with ``1/(B + 1) < alpha`` (20 at 0.05)."""
    return int(np.floor(1 / alpha + 1e-9))


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

    ``method``/``k`` are the pair the procedure chose on the real labels (None when it chose
    nothing); ``statistics`` holds the permuted statistics actually used, in permutation
    order (the first ``n_used``), and ``choices`` the pair chosen in each; ``p_value`` is
    Besag and Clifford's when ``stopped`` else the full test's.
    """

    method: str | None
    k: int | None
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
    #: the chosen pair's real-label values on each resample (their mean is ``observed``)
    observed_values: list = field(default_factory=list)
    #: the (method, k) chosen in each permutation used, in order
    choices: list = field(default_factory=list)
    methods: list = field(default_factory=list)
    sizes: list = field(default_factory=list)

    @property
    def n_used(self) -> int:
        return int(len(self.statistics))

    @property
    def significant(self) -> bool:
        return bool(self.p_value < self.alpha)

    def table(self) -> pd.DataFrame:
        """``permutation, statistic, method, k``: permutation 0 is the observed, real-label
        procedure, then one row per permutation with the pair it chose."""
        import pandas as pd

        picks = [(self.method, self.k), *self.choices[:self.n_used]]
        stats = np.concatenate([[self.observed], self.statistics])
        return pd.DataFrame({
            "permutation": np.arange(self.n_used + 1),
            "statistic": np.where(np.isfinite(stats), stats, np.nan),
            "method": [m for m, _ in picks],
            "k": pd.array([k for _, k in picks], dtype="Int64"),
        })

    def to_dict(self) -> dict:
        """A JSON-ready summary (for ``run.json``)."""
        null = self.statistics[np.isfinite(self.statistics)]
        return {
            "method": self.method, "k": None if self.k is None else int(self.k),
            "classifier": self.classifier,
            "statistic": f"mean held-out {self.metric.replace('_', ' ')} of the pair the "
                         "recommendation rule chooses on the same resamples",
            "procedure": "the choice among every method and k repeated on each permutation",
            "methods": [str(m) for m in self.methods], "sizes": [int(s) for s in self.sizes],
            "metric": self.metric,
            "observed": self.observed if np.isfinite(self.observed) else None,
            "null_mean": float(np.mean(null)) if null.size else None,
            "p_value": self.p_value, "alpha": self.alpha, "significant": self.significant,
            "permutations_requested": int(self.n_permutations),
            "permutations_used": self.n_used, "exceedances": int(self.exceedances),
            "stop_after": int(self.stop_after), "stopped_early": bool(self.stopped),
            "resamples_per_permutation": int(self.n_resamples),
            "resamples": [int(r) for r in self.resamples],
            "fits": (self.n_used + 1) * int(self.n_resamples) * len(self.methods),
            "units_computed": int(self.units_computed), "units_reused": int(self.units_reused),
            "seconds": round(float(self.seconds), 3),
        }


def _permutation(seed: int, b: int, n: int) -> np.ndarray:
    """The b-th permutation of the n sample indices (from the seed and b only)."""
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0x5EED, int(b)]))
    return rng.permutation(n)


def _unit_seed(seed: int, b: int) -> int:
    """The run seed of permutation b's fits (each fit's seed derives from it, the resample
    and the method, as in the comparison: :func:`~stablefs.evaluation.runner.task_seed`)."""
    from stablefs._validation import derive_seed

    return derive_seed(seed, 0xBE55, int(b) % 2**32)


def _split_seed(seed: int, b: int) -> int:
    """The seed of permutation b's resamples, drawn on its permuted labels."""
    from stablefs._validation import derive_seed

    return derive_seed(seed, 0x5B17, int(b) % 2**32)


def _with_test(resamples, n: int) -> list:
    """The first ``n`` resamples with a test part (a full-data reference fit has none)."""
    return [r for r in resamples if len(r.test)][:n]


def permuted_resamples(protocol, X, y: np.ndarray, seed: int, b: int, n: int
                       ) -> tuple[np.ndarray, list]:
    """Permutation b's labels and resamples: ``(perm, resamples)`` with the protocol's first
    ``n`` resamples with a test part drawn on (so stratified on) the permuted labels
    ``y[perm]``. ``protocol`` is a :class:`~stablefs.evaluation.protocols.Protocol` (seeded
    from the seed and b) or a scikit-learn splitter (its ``split(X, y[perm])``)."""
    from stablefs.evaluation._checks import _protocol_resamples

    perm = _permutation(seed, b, y.size)
    resamples, _ = _protocol_resamples(protocol, None, X, y[perm], _split_seed(seed, b))
    return perm, _with_test(resamples, n)


class _Splits:
    """Fixed resamples as a scikit-learn-style splitter (``split(X, y)``), for
    :func:`~stablefs.evaluation.runner.run_experiment`; indices keep the resamples' order."""

    def __init__(self, resamples):
        self.resamples = list(resamples)

    def split(self, X=None, y=None):
        for r in self.resamples:
            yield np.asarray(r.train), np.asarray(r.test)

    def __repr__(self) -> str:
        return f"{len(self.resamples)} fixed resamples"


def procedure_statistic(X, y, methods, sizes, resamples, *, choose, classifier, measure,
                        seed: int, impute=None, standardize=False, prefilter=None
                        ) -> tuple[float, str | None, int | None, list, float]:
    """The comparison procedure on ``resamples`` and its statistic.

    Every method fitted on each resample (seeds as the comparison's: ``seed``, the resample's
    position and the method), every k evaluated with ``classifier``, the stability
    ``measure`` computed, ``choose(stability, results)`` applied; the statistic is the chosen
    pair's mean held-out balanced accuracy over the resamples (-inf when nothing is chosen).

    Returns
    -------
    (statistic, method, k, values, fit_seconds)
        ``values``: the chosen pair's balanced accuracy on each resample.
    """
    from stablefs.evaluation.classifiers import check_classifiers
    from stablefs.evaluation.runner import run_experiment

    run = run_experiment(X, y, methods, sizes, protocol=_Splits(resamples),
                         classifiers=[classifier], measures=[measure], random_state=seed,
                         n_jobs=1, impute=impute, standardize=standardize,
                         prefilter=prefilter, compare_pairs=False)
    res = run.results
    fit_time = float(res.loc[res["metric"] == "fit_time", "value"].sum())
    pick = choose(run.stability, res)
    if pick is None:
        return -math.inf, None, None, [], fit_time
    method, k = str(pick[0]), int(pick[1])
    (name,) = check_classifiers([classifier])
    metric = f"balanced_accuracy_{name}"
    at = res[(res["method"] == method) & (res["k"] == k) & (res["metric"] == metric)]
    values = [float(v) for v in at.sort_values("resample")["value"]]
    return float(np.mean(values)), method, k, values, fit_time


@worker_task
def _unit(b, X, y, protocol, methods, sizes, n_resamples, options):
    """Permutation b: permuted labels, resamples stratified on them, the whole procedure."""
    from stablefs._runtime.threads import limit_threads

    perm, resamples = permuted_resamples(protocol, X, y, options["seed"], b, n_resamples)
    with limit_threads(1):
        stat, method, k, _, fit_time = procedure_statistic(
            X, y[perm], methods, sizes, resamples, **{**options,
                                                      "seed": _unit_seed(options["seed"], b)})
    return b, stat, method, k, fit_time


@worker_task
def _observed_unit(X, y, methods, sizes, resamples, options):
    """The observed procedure (the real labels) as a task beside the permutations:
    ``(None, statistic, method, k, values)``."""
    from stablefs._runtime.threads import limit_threads

    with limit_threads(1):
        stat, method, k, values, _ = procedure_statistic(X, y, methods, sizes, resamples,
                                                         **options)
    return None, stat, method, k, values


class _UnitCache:
    """Finished permutations as JSON files ``<dir>/<b>.json``
    (``{"b", "statistic", "method", "k", "fit_time"}``; a statistic of -inf is null).

    A file that does not parse, belongs to another permutation or holds what no permutation
    gives (a statistic outside [0, 1], a method or k the procedure does not choose among, a
    statistic without a choice or a choice without one, a negative or non-finite fit time) is
    recomputed; :meth:`warn` says so in one line.
    """

    def __init__(self, cache_dir, config: dict, *, methods=None, sizes=None):
        self.dir = None
        #: the method names and sizes a permutation may choose (None: not checked)
        self.methods = None if methods is None else {str(m) for m in methods}
        self.sizes = None if sizes is None else {int(k) for k in sizes}
        #: ``(file, reason)`` of every stored unit that was not reused
        self.rejected: list[tuple[Path, str]] = []
        if cache_dir is not None:
            key = hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode())
            self.dir = Path(cache_dir) / "permutation" / key.hexdigest()[:16]

    def load(self, b: int):
        if self.dir is None:
            return None
        path = self.dir / f"{b:05d}.json"
        if not path.exists():
            return None
        from stablefs._runtime.stored import read_json

        try:
            data = read_json(path)
            if int(data["b"]) != b:
                raise ValueError(f"it holds permutation {data['b']}, not {b}")
            stat = -math.inf if data["statistic"] is None else float(data["statistic"])
            method = None if data["method"] is None else str(data["method"])
            k = None if data["k"] is None else int(data["k"])
            fit_time = float(data.get("fit_time", 0.0))
            self._check(stat, method, k, fit_time)
            return stat, method, k, fit_time
        except (OSError, ValueError, KeyError, TypeError, OverflowError) as exc:
            # recomputed; the new unit replaces the file atomically (nothing is deleted here)
            self.rejected.append((path, str(exc) or type(exc).__name__))
            return None

    def _check(self, stat: float, method, k, fit_time: float) -> None:
        """Raise ValueError unless the unit is one the procedure can give."""
        if (method is None) != (k is None) or (method is None) != (stat == -math.inf):
            raise ValueError("its statistic and its choice do not go together")
        if method is not None:
            if not 0.0 <= stat <= 1.0:  # NaN fails too
                raise ValueError(f"its statistic {stat} is not a balanced accuracy in [0, 1]")
            if self.methods is not None and method not in self.methods:
                raise ValueError(f"it chose {method!r}, not one of the compared methods")
            if self.sizes is not None and k not in self.sizes:
                raise ValueError(f"it chose k = {k}, not one of the compared sizes")
        if not (math.isfinite(fit_time) and fit_time >= 0):
            raise ValueError(f"its fit time {fit_time} is not a duration")

    def warn(self) -> None:
        """One warning line for the stored permutations recomputed instead of reused."""
        if not self.rejected:
            return
        path, why = self.rejected[0]
        more = f" (and {len(self.rejected) - 1} more)" if len(self.rejected) > 1 else ""
        log.warning(f"{len(self.rejected)} stored permutation(s) in {self.dir} could not be "
                    f"used and are recomputed: {path.name}: {why}{more}.")
        self.rejected = []

    def save(self, b: int, stat: float, method, k, fit_time: float) -> None:
        if self.dir is None:
            return
        from stablefs._runtime.io import atomic_write_text

        self.dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.dir / f"{b:05d}.json", json.dumps({
            "b": b, "statistic": stat if math.isfinite(stat) else None, "method": method,
            "k": k, "fit_time": fit_time}))


def permutation_test(X, y, methods, sizes, *, protocol, choose, classifier="svm",
                     measure: str = "nogueira", resamples=None,
                     n_permutations: int = DEFAULT_PERMUTATIONS,
                     n_resamples: int = DEFAULT_PERMUTATION_RESAMPLES,
                     alpha: float = LEVEL, h: int | None = None,
                     random_state: int = 0, n_jobs: int | None = 1, backend: str = "loky",
                     scheduler: str | None = None, cache_dir=None, impute: str | None = None,
                     standardize: bool = False, prefilter: int | None = None,
                     progress=None) -> PermutationTest:
    """Permutation test of the comparison procedure, its choice of (method, k) included.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    methods, sizes
        As given to :func:`~stablefs.evaluation.runner.run_experiment` (the pairs the choice
        is made among; a forward wrapper searches up to ``max(sizes)`` as in the comparison).
    protocol : Protocol, str or scikit-learn splitter
        The comparison's resampling protocol; each permutation draws its resamples with it on
        the permuted labels (a splitter's ``split(X, y)`` is called with them).
    choose : callable
        ``choose(stability, results) -> (method, k) or None``: the recommendation rule
        (the report's :func:`stablefs.report.summary.choose_pair`).
    classifier : str
        The classifier of the choice's accuracy and of the statistic's balanced accuracy.
    measure : str
        The stability measure of the choice.
    resamples : sequence of Resample, optional
        The comparison's resamples (default: the protocol's, drawn with ``random_state``); the
        first ``n_resamples`` with a test part are the observed procedure's.
    n_permutations : int, default 100
        B. With B = 100 the smallest p-value is 1/101 < 0.01.
    n_resamples : int, default 3
        R, the resamples of each procedure (at least 2: the choice compares stability).
    alpha : float, default 0.05
        Level of the decision; sets the default ``h``.
    h : int, optional
        Stop after h exceedances (Besag and Clifford 1991); default :func:`stop_after`.
    random_state : int
        The comparison's seed (the observed procedure's fits are the comparison's), and the
        seed of the permutations, their resamples and their fits.
    n_jobs, backend, scheduler, cache_dir, impute, standardize, prefilter
        As for :func:`~stablefs.evaluation.runner.run_experiment`; the cache holds one JSON
        file per permutation.
    progress : None, "bar" or "lines"
        Progress on stderr (:mod:`stablefs._runtime.progress`).

    Returns
    -------
    PermutationTest
    """
    from stablefs._runtime.progress import make_progress
    from stablefs._version import __version__
    from stablefs.evaluation._checks import _protocol_resamples
    from stablefs.evaluation.classifiers import check_classifiers
    from stablefs.evaluation.protocols import Protocol
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
    if int(n_resamples) < 2:
        raise StablefsError(f"resamples per permutation must be at least 2 (the choice "
                            f"compares stability across them), not {n_resamples}.")
    n_permutations, n_resamples = int(n_permutations), int(n_resamples)
    if isinstance(protocol, str):
        protocol = Protocol.parse(protocol)
    templates = _method_templates(methods)
    sizes = [int(s) for s in sizes]
    (clf_name, clf), = check_classifiers([classifier]).items()
    metric = f"balanced_accuracy_{clf_name}"
    if resamples is None:
        resamples, _ = _protocol_resamples(protocol, None, X, y, random_state)
    used = _with_test(resamples, n_resamples)
    if len(used) < 2:
        raise StablefsError(f"the permutation test needs at least 2 resamples with a test "
                            f"part; the protocol gives {len(used)}.")
    n_resamples = len(used)
    h = stop_after(n_permutations, alpha) if h is None else int(h)
    check_n_jobs(n_jobs)
    options = dict(choose=choose, classifier=classifier, measure=measure, seed=random_state,
                   impute=impute, standardize=bool(standardize), prefilter=prefilter)
    t0 = time.perf_counter()

    config = {"data": _digest(X, y), "resamples": _resamples_digest(used),
              "procedure": 2, "protocol": repr(protocol),
              "methods": [_method_key(n, t) for n, t in templates.items()], "sizes": sizes,
              "metric": metric, "measure": measure,
              "classifier": clf if isinstance(clf, str) else repr(clf),
              "choose": getattr(choose, "__qualname__", repr(choose)),
              "seed": int(random_state), "stablefs": __version__,
              "prep": [impute, bool(standardize), prefilter]}
    cache = _UnitCache(cache_dir, config, methods=list(templates), sizes=sizes)
    values: dict[int, tuple] = {}
    reused = 0
    for b in range(n_permutations):
        hit = cache.load(b)
        if hit is not None:
            values[b] = hit[:3]
            reused += 1
    cache.warn()

    def decided():
        done = []
        for b in range(n_permutations):
            if b not in values:
                break
            done.append(values[b][0])
        p, n_used, e, stopped = sequential_stop(done, observed, n_permutations, h)
        return (stopped or n_used == n_permutations), done

    workers = check_n_jobs(n_jobs, n_permutations)
    bar = make_progress(progress, total=n_permutations, initial=len(values),
                        desc="permutation test", unit="perm")

    def record(b, stat, m_b, k_b, ft):  # a computed unit: stored at once, then shown
        cache.save(b, stat, m_b, k_b, ft)
        values[b] = (stat, m_b, k_b)
        bar.update(1)

    # the observed procedure runs beside the first permutations on the workers
    # when there are workers and nothing to resume (a resumed test needs it first, to know
    # whether the stored permutations already decide it); its result is the same anywhere
    beside = workers > 1 and not values
    try:  # the observed procedure inside the bar's span: its lines cover these fits too
        finished = False
        if not beside:
            observed, method, k, observed_values, _ = procedure_statistic(
                X, y, methods, sizes, used, **options)
            finished, _ = decided()
        if not finished and workers == 1 and backend == "loky":
            for b in range(n_permutations):  # in order, one at a time, in this process
                if b in values:
                    continue
                record(*_unit(b, X, y, protocol, methods, sizes, n_resamples, options))
                finished, _ = decided()
                if finished:
                    break
        elif not finished:
            import joblib

            # One stream of permutations in order, fed to the workers as they free up (no
            # batch barrier where a worker waits for the slowest unit). The feed stops once
            # the in-order results decide the test; the units already handed out finish and
            # are kept (cached), but the p-value uses only the units before the stop, so the
            # result is the same for any n_jobs or timing. Those are the ones in flight (2 per
            # worker) plus any finished faster than this loop reads results: a few for the
            # fits of a comparison, more only when units take milliseconds.
            state = {"finished": False}

            def feed():
                if beside:
                    yield joblib.delayed(_observed_unit)(X, y, methods, sizes, used, options)
                for b in range(n_permutations):
                    if state["finished"]:
                        return
                    if b not in values:
                        yield joblib.delayed(_unit)(b, X, y, protocol, methods, sizes,
                                                    n_resamples, options)

            with _backend_context(backend, workers, scheduler):
                parallel = joblib.Parallel(n_jobs=workers, return_as="generator_unordered",
                                           batch_size=1, pre_dispatch="2*n_jobs")
                have_observed = not beside
                for b, stat, m_b, k_b, ft in parallel(feed()):
                    if b is None:  # the observed procedure
                        observed, method, k, observed_values = stat, m_b, k_b, ft
                        have_observed = True
                    else:
                        record(b, stat, m_b, k_b, ft)
                    if have_observed and not state["finished"]:
                        state["finished"], _ = decided()
    finally:
        bar.close()

    _, done = decided()
    p, n_used, e, stopped = sequential_stop(done, observed, n_permutations, h)
    return PermutationTest(
        method=method, k=k, classifier=clf_name, metric=metric, observed=observed,
        statistics=np.asarray(done[:n_used], dtype=float), n_permutations=n_permutations,
        n_resamples=n_resamples, resamples=[int(r.index) for r in used], alpha=float(alpha),
        stop_after=h, exceedances=e, p_value=float(p), stopped=stopped,
        seconds=time.perf_counter() - t0, units_computed=len(values) - reused,
        units_reused=reused,
        observed_values=observed_values,
        choices=[values[b][1:] for b in range(n_used)],
        methods=list(templates), sizes=sizes)
