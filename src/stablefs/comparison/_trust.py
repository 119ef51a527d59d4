"""``stablefs compare``'s checks of its own recommendation, and its announcements.

Glue between the layers for the command line (the layers themselves stay one-way): the
pilot-fit estimate of the wall time (:func:`announce`), then after the comparison the
recommendation (:func:`stablefs.report.summary.recommend_from_tables`), its permutation test
(:mod:`stablefs.evaluation.permutation`) and its nested estimate
(:mod:`stablefs.evaluation.nested`), written as ``permutation.csv`` and ``nested.csv`` and
summarised for ``run.json`` (:func:`assess`).
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from stablefs._errors import StablefsError
from stablefs._runtime.processes import worker_task

if TYPE_CHECKING:
    from stablefs.evaluation.nested import NestedEstimate
    from stablefs.evaluation.permutation import PermutationTest

log = logging.getLogger("stablefs")

#: an estimate above this many seconds prints the --prefilter hint
LONG_RUN_SECONDS = 120.0


@dataclass
class TrustSettings:
    """What ``compare`` checks after the comparison (its options)."""

    permutations: int = 100
    permutation_resamples: int = 3
    nested_outer: int = 5
    nested_inner: int = 3

    def config(self) -> dict:
        return {"permutations": self.permutations,
                "permutation_resamples": self.permutation_resamples,
                "nested": [self.nested_outer, self.nested_inner]}


@dataclass
class Trust:
    info: dict = field(default_factory=dict)
    permutation: PermutationTest | None = None
    nested: NestedEstimate | None = None


class PhaseClock:
    """The seconds each phase of a run took, over all its attempts: an interrupted run that
    is resumed reports the time its permutation test took, not the milliseconds of reading
    the finished permutations back.

    With a run folder the seconds are kept in ``.partial/phase_seconds.json`` (JSON, written
    atomically after each phase or interruption; removed with ``.partial`` when the run
    completes); without one, in memory.
    """

    FILE = "phase_seconds.json"

    def __init__(self, partial: Path | None = None):
        self.path = Path(partial) / self.FILE if partial is not None else None
        self.seconds: dict[str, float] = self._read()
        self.this_run: dict[str, float] = {}

    def _read(self) -> dict[str, float]:

        if self.path is None or not self.path.is_file():
            return {}
        from stablefs._runtime.stored import read_json

        try:
            data = read_json(self.path)  # size-capped: resume state is read as untrusted
            seconds = {str(k): float(v) for k, v in data.items()}
            if not all(math.isfinite(v) and v >= 0 for v in seconds.values()):
                raise ValueError("a phase time is not a duration")
            return seconds
        except (ValueError, TypeError, AttributeError, OSError, OverflowError):
            log.warning(f"{self.path} does not parse as phase times (seconds, finite and "
                        "non-negative): the earlier attempts' phase times are not counted.")
            return {}

    @contextlib.contextmanager
    def phase(self, name: str):
        """Time the block as part of phase ``name`` (also when it is interrupted)."""
        t0 = time.perf_counter()
        try:
            yield
        finally:
            dt = time.perf_counter() - t0
            self.this_run[name] = self.this_run.get(name, 0.0) + dt
            self.seconds[name] = self.seconds.get(name, 0.0) + dt
            self._write()

    def _write(self) -> None:
        import json

        from stablefs._runtime.io import atomic_write_text

        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.path, json.dumps(
                {k: round(v, 3) for k, v in self.seconds.items()}), fsync=False)
        except OSError:  # the times are a courtesy; the run goes on without them
            pass

    def total(self, name: str) -> float:
        """Seconds of phase ``name`` over every attempt of the run."""
        return self.seconds.get(name, 0.0)


def _fmt_s(seconds: float) -> str:
    """``"42 s"``, ``"2.6 min"``, ``"14 min"``, ``"1.6 h"``: whole minutes only from 10 on,
    so that the rounding stays small against the 1.5x the estimates aim at."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 600:
        return f"{seconds / 60:.1f} min"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@dataclass
class PilotTime:
    """One method's timed task on the first training part: ``fit`` (preprocessing and the
    selector's fit) and ``evaluate`` (the classifiers on the top k at every k) seconds."""

    fit: float
    evaluate: float

    @property
    def task(self) -> float:
        return self.fit + self.evaluate


#: a pilot task that took less than this many seconds is run again and timed the second
#: time: the first full-size task after the warm-up (:func:`~stablefs.evaluation.runner.
#: warm_up`) still pays tens of milliseconds of one-off costs (the first evaluations took
#: 1.5 times the CPU seconds of the next ones on Colon), a fifth of a cheap method's task
#: but not of the hundreds of tasks the estimate multiplies it by; above this, they are a
#: few per cent of the task, and a second task would cost more than it corrects
REPEAT_BELOW_SECONDS = 1.0


def pilot_times(X, y, methods, resamples, *, seed: int, prep, sizes, classifiers
                ) -> dict[str, PilotTime]:
    """One timed task of each method on the first training part, as the comparison runs it
    (the same selector, preprocessing, sizes and classifiers); a task shorter than
    :data:`REPEAT_BELOW_SECONDS` is timed again and the second timing kept."""
    from stablefs.evaluation.classifiers import check_classifiers
    from stablefs.evaluation.runner import _method_templates

    res = next(r for r in resamples if len(r.test))
    clfs = check_classifiers(classifiers)
    out = {}
    for name, template in _method_templates(methods).items():
        for _ in range(2):
            out[name] = _time_task(name, template, X, y, res, seed=seed, prep=prep,
                                   sizes=sizes, classifiers=clfs)
            if out[name].task >= REPEAT_BELOW_SECONDS:
                break
    return out


def null_pilot_times(X, y, methods, protocol, *, seed: int, prep, sizes, classifiers
                     ) -> dict[str, PilotTime] | None:
    """One timed task of each method as the permutation test runs it: on the labels of its
    first permutation, the first resample drawn on them, the permutation's seeds, one thread
    (:func:`stablefs.evaluation.permutation.permutation_test`).

    A task on permuted labels is not the task on the real ones: on a set with a strong
    signal the SVM-based fits and the SVM classifier take longer to converge on labels
    without one (Colon: 1.22 times the CPU seconds of the same tasks on the real labels,
    Leukemia 1.05; ``benchmarks/README.md``), and the permutation test is most of a run.
    None when the permuted labels allow no split."""
    from stablefs._runtime.threads import limit_threads
    from stablefs.evaluation.permutation import _unit_seed, permuted_resamples

    try:
        perm, resamples = permuted_resamples(protocol, X, y, seed, 0, 1)
    except StablefsError:  # no permuted split: the estimate uses the real labels' tasks
        return None
    with limit_threads(1):
        return pilot_times(X, y[perm], methods, resamples, seed=_unit_seed(seed, 0),
                           prep=prep, sizes=sizes, classifiers=classifiers)


def _time_task(name: str, template, X, y, res, *, seed: int, prep, sizes, classifiers
               ) -> PilotTime:
    """Method ``name``'s task on resample ``res``, timed (fit, then evaluation)."""
    from stablefs.evaluation.classifiers import evaluate_sizes
    from stablefs.evaluation.preprocessing import expand_ranking
    from stablefs.evaluation.runner import task_seed, warm_up
    from stablefs.methods import build_selector

    y_train, y_test = y[res.train], y[res.test]
    selector = build_selector(template, task_seed(seed, res.index, name), sizes)
    # one-off costs (imports, compiled kernels loaded or compiled into their cache) are
    # paid once per process, not per fit: kept out of the time the estimate multiplies
    warm_up(name, selector, X[res.train], y_train, classifiers)
    t0 = time.perf_counter()
    X_train, X_test, keep = prep.apply(X[res.train], y_train, X[res.test])
    selector.fit(X_train if keep is None else X_train[:, keep], y_train)
    fit = time.perf_counter() - t0
    ranking, _ = expand_ranking(np.asarray(selector.ranking_, dtype=np.int32),
                                np.asarray(selector.scores_, dtype=np.float64), keep,
                                X.shape[1], X_train, y_train)
    order = np.argsort(ranking, kind="stable")
    evaluate_sizes(X_train, y_train, X_test, y_test, order, sizes, classifiers)
    return PilotTime(fit, time.perf_counter() - t0 - fit)


@worker_task
def worker_pilot(X, y, methods, resamples, *, seed: int, prep, sizes, classifiers,
                 parent=None, announce: bool = False) -> dict[str, PilotTime]:
    """:func:`pilot_times` as a worker's first task (:func:`start_workers`): the worker is
    set up (:func:`~stablefs._runtime.processes.worker_setup`; with ``announce`` it prints
    its first-use compilations) and its methods warmed up by the pilot itself."""
    from stablefs._runtime.processes import worker_setup

    worker_setup(parent, announce=announce)
    return pilot_times(X, y, methods, resamples, seed=seed, prep=prep, sizes=sizes,
                       classifiers=classifiers)


@worker_task
def worker_null_pilot(X, y, methods, protocol, *, seed: int, prep, sizes, classifiers,
                      parent=None) -> tuple[str, dict[str, PilotTime] | None]:
    """:func:`null_pilot_times` as a worker's first task (:func:`start_workers`), beside
    :func:`worker_pilot` in another worker: ``("null", times)``, times None when the
    permuted labels allow no split (the estimate then uses the real tasks)."""
    from stablefs._runtime.processes import worker_setup

    worker_setup(parent)
    return "null", null_pilot_times(X, y, methods, protocol, seed=seed, prep=prep,
                                    sizes=sizes, classifiers=classifiers)


class StartedWorkers:
    """The worker processes of a comparison started before its first phase (issue 36): while
    the main process draws the pilot figure, one worker runs the pilot fits
    (:func:`worker_pilot`) and the others warm up (:func:`~stablefs.evaluation.runner.
    warm_worker`); the fits, the permutation test, the nested estimate and the report's
    figures then reuse these processes (joblib's reusable loky executor, or the workers of
    the command's Dask session)."""

    def __init__(self, results) -> None:
        self._results = results
        self.pilot: dict[str, PilotTime] | None = None
        #: the pilot on permuted labels (:func:`worker_null_pilot`), when a worker ran it
        self.null_pilot: dict[str, PilotTime] | None = None
        self.null_done = False

    def wait(self) -> None:
        """Wait for the first tasks (the pilots' times kept in :attr:`pilot` and
        :attr:`null_pilot`)."""
        if self._results is None:
            return
        results, self._results = self._results, None
        for out in results:
            if isinstance(out, tuple):
                self.null_done, self.null_pilot = True, out[1]
            elif out is not None:
                self.pilot = out


def start_workers(X, y, methods, resamples, *, workers: int, backend: str, scheduler,
                  seed: int, prep, sizes, classifiers, pilot: bool, protocol=None
                  ) -> StartedWorkers | None:
    """Start the ``workers`` worker processes now (:func:`~stablefs.evaluation.runner.
    start_workers`): with ``pilot`` the first task is the pilot of the time estimate, and
    with the ``protocol`` of a permutation test the second the pilot on permuted labels
    (:func:`worker_null_pilot`); the others warm the methods up on the first training part.
    ``None`` when the work runs in this process (or on Dask outside a session:
    :func:`~stablefs.evaluation.runner.backend_session`)."""
    import os

    import joblib

    from stablefs._runtime.compilation import announced_in_workers
    from stablefs.evaluation.runner import WARM_UP_FEATURES, warm_worker
    from stablefs.evaluation.runner import start_workers as start

    if workers < 2:
        return None
    res = next((r for r in resamples if len(r.test)), resamples[0])
    part = np.ascontiguousarray(np.asarray(X)[res.train][:, :WARM_UP_FEATURES])
    y_part = np.asarray(y)[res.train]

    def warm(announce: bool = False):
        return joblib.delayed(warm_worker)(methods, part, y_part, seed=seed,
                                           resample=res.index, sizes=sizes,
                                           classifiers=classifiers, parent=os.getpid(),
                                           announce=announce)

    # the first task's worker prints what it compiles on first use (the pilot's fits compile
    # there, not here); the others stay silent, so the command says it once
    announce = announced_in_workers()
    tasks = [warm(announce)] + [warm() for _ in range(workers - 1)]
    if pilot:
        tasks[0] = joblib.delayed(worker_pilot)(X, y, methods, resamples, seed=seed, prep=prep,
                                                sizes=sizes, classifiers=classifiers,
                                                parent=os.getpid(), announce=announce)
        if protocol is not None:
            tasks[1] = joblib.delayed(worker_null_pilot)(
                X, y, methods, protocol, seed=seed, prep=prep, sizes=sizes,
                classifiers=classifiers, parent=os.getpid())
    results = start(backend, workers, scheduler, tasks)
    return None if results is None else StartedWorkers(results)


#: the report's cost in units of the pilot figure (:func:`pilot_figure`): a fixed part and a
#: part per method. Writing the files and report of a comparison took 31, 32 and 31 times
#: one small figure on Colon, Leukemia and Prostate (5 methods), 36 on Nakayama (5 methods,
#: 10 classes) and 11 on Colon with one method (the shared 2-core machine, load 15-18)
REPORT_FIGURE_UNITS = (6.0, 5.0)
#: an inner training part of the nested estimate is 2/3 of an outer one: the fit-time
#: factor applied (ReliefF's neighbour search grows faster, a t-test slower; 2/3 between)
INNER_FIT_FACTOR = 2 / 3


def pilot_figure() -> float:
    """Seconds to draw one small report figure and render it to PNG (the pilot of the
    report: it measures the machine and its load as the pilot fits do); drawn twice, the
    second timed (the first pays Matplotlib's one-off costs, as the pilot fits' warm-up)."""
    import pandas as pd

    from stablefs.report import figures as fig

    names = ["a", "b", "c"]
    timing = pd.DataFrame({"method": names, "metric": "fit_time", "mean": [0.1, 0.2, 0.3],
                           "sd": [0.01, 0.02, 0.03], "n": 5})
    seconds = 0.0
    for _ in range(2):
        t0 = time.perf_counter()
        figure = fig.plot_fit_time(timing, names, fig.method_styles(names))
        assert figure is not None  # three timed methods always draw
        fig.figure_to_png(figure)
        seconds = time.perf_counter() - t0
    return seconds


def estimate_phases(times: dict[str, PilotTime], *, n_resamples: int,
                    settings: TrustSettings, n_classifiers: int, workers: int,
                    report_figure: float = 0.0,
                    null_times: dict[str, PilotTime] | None = None) -> dict[str, float]:
    """Seconds of each phase of a comparison from per-method task times.

    - ``fits``: every resample x every method's task;
    - ``permutation``: the test of the procedure (:mod:`stablefs.evaluation.permutation`):
      (B + 1) x R tasks of every method with one classifier at every k (the choice is
      repeated on the real labels and in each of the B permutations; the B permutations'
      tasks timed by ``null_times``, on permuted labels, when given);
    - ``nested``: OUTER x INNER tasks of every method on an inner training part
      (:data:`INNER_FIT_FACTOR` of the fit) with one classifier at every k;
    - ``report``: :data:`REPORT_FIGURE_UNITS` (a fixed part and one per method) x
      ``report_figure``.

    Parallel phases are divided by ``workers``.
    """
    fits = n_resamples * sum(t.task for t in times.values()) / workers

    def one_clf(pilot: dict[str, PilotTime]) -> float:
        return sum(t.fit + t.evaluate / max(1, n_classifiers) for t in pilot.values())

    from stablefs.evaluation.permutation import procedure_test_seconds

    perm = procedure_test_seconds(one_clf(times), settings.permutations,
                                  settings.permutation_resamples, workers,
                                  one_clf(null_times or times))
    nested = 0.0
    if settings.nested_outer:
        inner = sum(INNER_FIT_FACTOR * t.fit + t.evaluate / max(1, n_classifiers)
                    for t in times.values())
        nested = min(settings.nested_outer, n_resamples) * settings.nested_inner * inner / workers
    fixed, per_method = REPORT_FIGURE_UNITS
    report = (fixed + per_method * len(times)) * report_figure
    return {"fits": fits, "permutation": perm, "nested": nested, "report": report,
            "total": fits + perm + nested + report}


#: estimates below this many seconds are printed only with -v
ANNOUNCE_SECONDS = 10.0


def announce(X, y, methods, resamples, *, seed: int, prep, workers: int,
             settings: TrustSettings, n_features: int, prefilter, sizes, classifiers,
             progress=None, report: bool = True,
             started: StartedWorkers | None = None, protocol=None) -> dict:
    """Print (stderr) the estimated wall time from a pilot task per method and a pilot
    figure (:func:`estimate_phases`; from :data:`ANNOUNCE_SECONDS` on, shorter estimates
    only with ``-v``); above :data:`LONG_RUN_SECONDS` suggest ``--prefilter N``. With the
    comparison's ``protocol`` and a permutation test to run, each method's task is also
    timed as the permutation test runs it (:func:`null_pilot_times`).

    Returns the seconds by phase and in all (``total``), which ``run.json`` records beside
    the seconds each phase took (``phase_seconds``), and the pilot times (``"pilot"``,
    ``"null_pilot"``) for :func:`reannounce`. With ``started`` workers (:func:`start_workers`)
    the pilot fits run in one of them while this process draws the pilot figure."""
    from stablefs._runtime.progress import heartbeat

    null = None
    with heartbeat(progress, "time estimate", "one pilot fit per method"):
        figure = pilot_figure() if report else 0.0
        pilot = None
        if started is not None:
            started.wait()
            pilot = started.pilot
        if pilot is None:
            pilot = pilot_times(X, y, methods, resamples, seed=seed, prep=prep, sizes=sizes,
                                classifiers=classifiers)
        if started is not None and started.null_done:
            null = started.null_pilot
        elif settings.permutations and protocol is not None:
            null = null_pilot_times(X, y, methods, protocol, seed=seed, prep=prep,
                                    sizes=sizes, classifiers=classifiers)
    n_res = sum(1 for r in resamples)
    est = estimate_phases(pilot, n_resamples=n_res, settings=settings,
                          n_classifiers=len(classifiers), workers=workers,
                          report_figure=figure, null_times=null)
    log.info("pilot task on one training part (fit and evaluation): " + ", ".join(
        f"{m} {t.task:.2f} s" for m, t in pilot.items())
        + ("; on permuted labels: " + ", ".join(f"{m} {t.task:.2f} s"
                                                for m, t in null.items()) if null else "")
        + f"; pilot figure {figure:.2f} s")
    total = est["total"]
    parts = [f"{_fmt_s(est['fits'])} for the {n_res * len(pilot)} fits"]
    if settings.permutations:
        parts.append(f"up to {_fmt_s(est['permutation'])} for the permutation test "
                     f"({settings.permutations} x {settings.permutation_resamples} fits of "
                     "every method, the choice repeated; less when it stops early)")
    if settings.nested_outer:
        parts.append(f"{_fmt_s(est['nested'])} for the nested estimate")
    if report:
        parts.append(f"{_fmt_s(est['report'])} for the report")
    line = (f"estimated wall time about {_fmt_s(total)} on {workers} worker"
            f"{'s' if workers > 1 else ''} (from one pilot fit per method): "
            + ", ".join(parts) + ".")
    if total < ANNOUNCE_SECONDS:  # a run of seconds is not announced (but with -v)
        log.info(line)
    else:
        print(f"stablefs: {line}", file=__import__("sys").stderr, flush=True)
    if total > LONG_RUN_SECONDS:
        hint = []
        if not prefilter and n_features > 2000:
            hint.append("--prefilter 2000 (keep the 2,000 features with the largest "
                        "t-statistic on each training part) makes most selectors several "
                        "times faster")
        if settings.permutations:
            hint.append("--permutations 0 skips the permutation test")
        hint.append("--n-jobs -1 uses every core")
        print("stablefs: this is a long run: " + "; ".join(hint) + ".",
              file=__import__("sys").stderr, flush=True)
    return {**est, "pilot": pilot, "null_pilot": null, "report_figure": figure}


def reannounce(estimate: dict, result, *, fits_seconds: float, settings: TrustSettings,
               n_classifiers: int, workers: int) -> dict[str, float]:
    """After the fits: the rest of the run estimated again from what the fits took; one line.

    The fits are the same kind of work as the rest, measured over every resample rather
    than one pilot task: each method's fit is its mean fit time over the resamples, and the
    evaluations take what the fits' tasks took (``result.info["tasks_seconds"]``: the
    stability and the paired tests after them not counted) beyond the selectors' fits,
    shared among the methods as in the pilot. The fits on permuted labels are scaled by
    each method's mean fit time over its pilot fit; the report by the tasks' wall time over
    their estimate (the machine's pace now against the pilot's)."""
    pilot: dict[str, PilotTime] = estimate["pilot"]
    null: dict[str, PilotTime] | None = estimate.get("null_pilot")
    res = result.results
    fit_time = res[res["metric"] == "fit_time"].groupby("method")["value"].mean()
    n_res = int(res["resample"].max()) + 1 if len(res) else 1
    tasks = float(getattr(result, "info", {}).get("tasks_seconds", fits_seconds))
    pace = tasks / estimate["fits"] if estimate["fits"] > 0 else 1.0
    fits = {m: float(fit_time.get(m, t.fit * pace)) for m, t in pilot.items()}
    evaluations = tasks * workers / n_res - sum(fits.values())
    pilot_evaluations = sum(t.evaluate for t in pilot.values())
    scale = (evaluations / pilot_evaluations if evaluations > 0 and pilot_evaluations > 0
             else pace)
    times = {m: PilotTime(fits[m], t.evaluate * scale) for m, t in pilot.items()}
    null_times = None
    if null:
        null_times = {m: PilotTime(t.fit * (fits[m] / pilot[m].fit if pilot[m].fit > 0
                                            else pace), t.evaluate * scale)
                      for m, t in null.items()}
    est = estimate_phases(times, n_resamples=n_res, settings=settings,
                          n_classifiers=n_classifiers, workers=workers,
                          report_figure=estimate["report_figure"] * pace,
                          null_times=null_times)
    rest = est["permutation"] + est["nested"] + est["report"]
    if rest >= ANNOUNCE_SECONDS:
        what = [f"up to {_fmt_s(est['permutation'])} for the permutation test"
                if settings.permutations else "",
                f"{_fmt_s(est['nested'])} for the nested estimate"
                if settings.nested_outer else "",
                f"{_fmt_s(est['report'])} for the report" if est["report"] else ""]
        print(f"stablefs: the fits took {_fmt_s(fits_seconds)} (estimated "
              f"{_fmt_s(estimate['fits'])}); about {_fmt_s(rest)} to go: "
              + ", ".join(w for w in what if w) + ".", file=__import__("sys").stderr,
              flush=True)
    return est


def signal_test(result, rec, X, y, resamples, *, protocol, methods, sizes,
                n_permutations: int, n_resamples: int, **options):
    """The permutation test (:func:`~stablefs.evaluation.permutation.permutation_test`) of
    the comparison procedure whose recommendation is ``rec``: the choice among ``methods`` x
    ``sizes`` by the report's rule (:func:`stablefs.report.summary.choose_pair`, with
    ``rec``'s classifier and stability measure) repeated on the first ``n_resamples``
    resamples and on each permutation; ``options`` go to ``permutation_test``."""
    from stablefs.evaluation.permutation import permutation_test
    from stablefs.report.summary import choose_pair
    from stablefs.report.tables import parse_metric

    clf = parse_metric(rec.metric)[1]
    return permutation_test(
        X, y, methods, sizes, protocol=protocol, choose=choose_pair, classifier=clf,
        measure=rec.measure, resamples=resamples, n_permutations=n_permutations,
        n_resamples=n_resamples, **options)


def assess(result, X, y, methods, sizes, resamples, *, protocol, settings: TrustSettings,
           classifiers, measures, seed: int, n_jobs, backend, scheduler, cache_dir,
           impute, standardize, prefilter, progress, stages=None,
           clock: PhaseClock | None = None) -> Trust:
    """The recommendation's permutation test and nested estimate (``run.json`` ``trust``).

    ``stages`` (:class:`~stablefs.comparison._stages.StagePlan`, decided before the fits)
    says which stage is skipped or adapted. A stage that still fails on the data (a
    :class:`~stablefs.StablefsError`) is skipped with one warning line naming the option
    that skips it, and the comparison's files are written all the same."""
    from stablefs.comparison._stages import SKIP_OPTION, STAGE_NAME, StagePlan
    from stablefs.evaluation.nested import nested_estimate
    from stablefs.report.summary import choose_pair, judge_evidence, recommend_from_tables
    from stablefs.report.tables import baseline_means, parse_metric

    trust = Trust()
    stages = stages if stages is not None else StagePlan()
    clock = clock if clock is not None else PhaseClock()
    rec = recommend_from_tables(result.results, result.stability)
    base = baseline_means(result.baseline)
    if rec is None:
        return trust
    trust.info["stages"] = stages.info()
    clf = parse_metric(rec.metric)[1]
    common = dict(random_state=seed, n_jobs=n_jobs, backend=backend, scheduler=scheduler,
                  cache_dir=cache_dir, impute=impute, standardize=standardize,
                  prefilter=prefilter, progress=progress)

    def failed(stage: str, exc: Exception) -> None:
        reason = str(exc).rstrip(".")
        log.warning(f"{STAGE_NAME[stage]} failed and is skipped: {reason}; the comparison's "
                    f"files are written ({SKIP_OPTION[stage]} skips it).")
        stages.skip(stage, reason)
        trust.info["stages"] = stages.info()

    if settings.permutations and "permutation" not in stages.skipped:
        n_res = stages.permutation_resamples or settings.permutation_resamples
        log.info(f"permutation test of the procedure (the choice among {len(methods)} "
                 f"methods x {len(sizes)} k repeated) with {clf}: up to "
                 f"{settings.permutations} permutations x {n_res} resamples x "
                 f"{len(methods)} methods")
        try:
            with clock.phase("permutation"):
                trust.permutation = signal_test(
                    result, rec, X, y, resamples, protocol=protocol, methods=methods,
                    sizes=sizes, n_permutations=settings.permutations, n_resamples=n_res,
                    **common)
            trust.info["permutation"] = _timed(trust.permutation.to_dict(), clock,
                                               "permutation")
        except StablefsError as exc:
            failed("permutation", exc)
    verdict = judge_evidence(rec, base, trust.info)
    if settings.nested_outer and verdict.signal is not False and \
            "nested" not in stages.skipped:
        log.info(f"nested estimate: {settings.nested_outer} outer resamples x "
                 f"{settings.nested_inner} inner splits x {len(methods)} methods")
        measure = rec.measure
        try:
            with clock.phase("nested"):
                trust.nested = nested_estimate(
                    X, y, methods, sizes, resamples=resamples, results=result.results,
                    selections=result.selections, recommended=(rec.method, rec.k),
                    choose=choose_pair, classifier=clf, metric=rec.metric, measure=measure,
                    n_outer=settings.nested_outer, n_inner=settings.nested_inner,
                    baseline=result.baseline, **common)
            trust.info["nested"] = _timed(trust.nested.to_dict(), clock, "nested")
        except StablefsError as exc:
            failed("nested", exc)
    trust.info["signal"] = verdict.label
    trust.info["evidence_of_signal"] = verdict.signal
    trust.info["baseline"] = base
    return trust


def _timed(info: dict, clock: PhaseClock, phase: str) -> dict:
    """A stage's ``to_dict()`` with ``seconds`` over every attempt of the run (a resumed
    stage reads its finished units back in milliseconds) and ``seconds_this_run``."""
    info["seconds_this_run"] = info.get("seconds")
    info["seconds"] = round(max(clock.total(phase), float(info.get("seconds") or 0.0)), 3)
    return info


def write_trust_files(out_dir, trust: Trust) -> dict[str, Path]:
    """``permutation.csv`` (permutation, statistic; row 0 the observed) and ``nested.csv``
    (one row per outer resample: the inner choice and its outer value)."""
    from stablefs.evaluation.outputs import write_csv

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {}
    if trust.permutation is not None:
        paths["permutation.csv"] = write_csv(trust.permutation.table(),
                                             out_dir / "permutation.csv")
    if trust.nested is not None:
        paths["nested.csv"] = write_csv(trust.nested.choices, out_dir / "nested.csv")
    return paths


def log_resamples(resamples, y, verbose: int) -> None:
    """-v: the resamples' sizes; -vv: every resample's class counts."""
    real = [r for r in resamples if len(r.test)]
    if not real:
        return
    sizes = sorted({(len(r.train), len(r.test)) for r in real})
    log.info(f"{len(real)} resamples; training/test sizes "
             + ", ".join(f"{a}/{b}" for a, b in sizes))
    if verbose > 1:
        classes = np.unique(y)
        for r in resamples:
            tr = ", ".join(f"{c} {int(np.sum(y[r.train] == c))}" for c in classes)
            te = ", ".join(f"{c} {int(np.sum(y[r.test] == c))}" for c in classes)
            log.debug(f"resample {r.index}: train ({tr}), test ({te})")


#: columns that :func:`set_signal` adds to a leaderboard's ``sets.csv``
SET_SIGNAL_COLUMNS = ["best_method", "best_k", "permutation_p", "permutations_used",
                      "signal"]


def set_signal(result, X, y, resamples, *, protocol, methods, sizes, n_permutations: int,
               n_resamples: int, seed: int, n_jobs, backend: str, scheduler, cache_dir,
               prefilter) -> dict:
    """The evidence of signal of one leaderboard set (``stablefs benchmark``): the pair
    ``compare`` would recommend on the set's grid, judged against the majority-class
    baseline of the held-out parts (as ``compare`` judges it), and the permutation test of
    the procedure (labels permuted, the selectors refitted and the choice repeated;
    :mod:`~stablefs.evaluation.permutation`) with ``n_permutations`` (0: baselines only).
    Returns the columns of
    :data:`SET_SIGNAL_COLUMNS`."""
    from stablefs.report.summary import judge_evidence, recommend_from_tables
    from stablefs.report.tables import baseline_means

    base = baseline_means(result.baseline)
    row = {"best_method": None, "best_k": None, "permutation_p": None,
           "permutations_used": 0, "signal": "no recommendation"}
    rec = recommend_from_tables(result.results, result.stability)
    if rec is None:
        return row
    row.update(best_method=rec.method, best_k=int(rec.k))
    info: dict = {}
    if n_permutations:
        test = signal_test(
            result, rec, X, y, resamples, protocol=protocol, methods=methods, sizes=sizes,
            n_permutations=n_permutations,
            n_resamples=n_resamples, random_state=seed, n_jobs=n_jobs, backend=backend,
            scheduler=scheduler, cache_dir=cache_dir, prefilter=prefilter)
        info["permutation"] = test.to_dict()
        row.update(permutation_p=test.p_value, permutations_used=test.n_used)
    verdict = judge_evidence(rec, base, info)
    row["signal"] = verdict.label
    return row
