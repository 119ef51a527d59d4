"""The main job: :func:`compare` runs every method on the same resamples of the data, measures
stability and accuracy, recommends a (method, k), checks the recommendation (baseline,
permutation test, nested estimate) and, with ``out=``, keeps it all in a run folder.

It runs in two steps that the command line also uses, so that it can speak between them:
:func:`prepare` checks every option, reads the data and decides what an output folder holds
(nothing is computed, nothing written); :func:`execute` does the work.
"""

from __future__ import annotations

import datetime as _dt
import logging
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from stablefs.comparison._inputs import (
    as_list,
    data_digest,
    input_fingerprints,
    load_data,
    names_of,
    parse_sizes,
)
from stablefs.comparison._options import DEFAULT_DATA, CompareOptions
from stablefs.comparison._stages import StagePlan, plan_stages

if TYPE_CHECKING:
    import os
    from collections.abc import Sequence
    from typing import Literal

    import pandas as pd
    from sklearn.base import BaseEstimator
    from sklearn.model_selection import BaseCrossValidator

    from stablefs._runtime.rundir import RunFolder
    from stablefs.comparison._inputs import DataSource
    from stablefs.comparison._result import Comparison
    from stablefs.datasets import Dataset
    from stablefs.evaluation.protocols import Protocol

log = logging.getLogger("stablefs")


def default_out(name: str) -> Path:
    """``./stablefs-<name>``: the output folder of ``stablefs compare`` without ``--out``."""
    return Path("stablefs-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-"))


@dataclass
class Plan:
    """A checked comparison, ready to run: the options, the data as analysed, the sizes, the
    configuration that keys a run folder, and the folder (``None``: in memory)."""

    options: CompareOptions
    dataset: Dataset
    sizes: list[int]
    config: dict
    out: Path | None = None
    folder: RunFolder | None = None
    command: str = ""
    state: str = "new"
    extra: dict = field(default_factory=dict)
    stages: StagePlan | None = None

    @property
    def reusable(self) -> bool:
        """Whether the output folder holds this finished run (same configuration)."""
        return self.state == "reuse"

    def describe(self) -> str:
        """The two lines printed before the work: the data, then the protocol, methods, sizes
        and output folder."""
        o = self.options
        proto = o.protocol_
        what = proto.describe() if hasattr(proto, "describe") else repr(proto)
        where = f"; output {self.out}" if self.out is not None else ""
        return (f"{self.dataset!r}\n{what}; methods {', '.join(o.method_names)}; "
                f"k = {', '.join(map(str, self.sizes))}{where}")


def prepare(data=DEFAULT_DATA, options: CompareOptions | None = None, *, out=None,
            force: bool = False, default_folder: bool = False, command: str = "") -> Plan:
    """Check every option, read the data and find what ``out`` holds; nothing is computed.

    Every option is refused in one line before the data are read, and the data before the
    output folder is touched.
    """
    from stablefs._runtime.rundir import RunFolder
    from stablefs.evaluation._checks import check_measures_defined
    from stablefs.evaluation.preprocessing import Preprocessing
    from stablefs.methods import check_method_sizes

    options = (options or CompareOptions()).check()
    if out is not None:
        RunFolder(out, {}).check_path()  # a file, an unwritable place: refused before any work
    options.check_backend()
    ds = load_data(data, options.data_options(), options.seed)
    sizes = parse_sizes(options.sizes, ds.n_features)
    check_method_sizes(options.methods, ds.n_features)
    check_measures_defined(options.measures, sizes, ds.n_features)
    _check_budget(options, ds, sizes)
    resamples = _check_resamples(options, ds)
    Preprocessing(standardize=options.standardize, prefilter=options.prefilter).check(
        ds.n_features, sizes)
    config = _configuration(options, ds, sizes)
    out_dir = Path(out) if out is not None else (default_out(ds.name) if default_folder
                                                 else None)
    plan = Plan(options, ds, sizes, config, out_dir, command=command)
    if out_dir is not None:
        plan.folder = RunFolder(out_dir, config, force=force)
        plan.state = plan.folder.check() or "new"
    if not plan.reusable:  # a finished run is read back: no stage will run
        plan.stages = plan_stages(options, ds.X, ds.y, resamples)
    return plan


def _check_budget(options: CompareOptions, ds, sizes: list[int]) -> None:
    """The counts bound the work and the memory of the run before a resample is drawn
    (:mod:`stablefs.evaluation.budget`; ``allow_huge`` lifts it)."""
    from stablefs.evaluation import budget

    proto = options.protocol_
    if hasattr(proto, "n_resamples"):
        n_resamples = (proto.n_resamples or ds.n_samples) + proto.has_reference
    elif hasattr(proto, "get_n_splits"):  # a scikit-learn splitter
        try:
            n_resamples = int(proto.get_n_splits(ds.X, ds.y))
        except (TypeError, ValueError):
            return
    else:
        return
    settings = options.trust_settings()
    budget.check_budget(budget.comparison_parts(
        options.methods, n_resamples, n_samples=ds.n_samples, n_features=ds.n_features,
        n_sizes=len(sizes), n_classifiers=len(options.classifiers),
        permutations=settings.permutations,
        permutation_resamples=settings.permutation_resamples,
        nested_outer=settings.nested_outer, nested_inner=settings.nested_inner),
        allow=options.allow_huge)


def _check_resamples(options: CompareOptions, ds) -> list:
    """The comparison's resamples. A single class, or a class too small for the protocol,
    fails here, before any fit (a data error: exit status 3); the other stages' class checks
    follow (:func:`~stablefs.comparison._stages.plan_stages`)."""
    from stablefs._errors import StablefsError, as_data_error
    from stablefs.evaluation._checks import _protocol_resamples

    try:
        return _protocol_resamples(options.protocol_, None, ds.X, ds.y, options.seed)[0]
    except StablefsError as exc:
        raise as_data_error(exc) from None


def _protocol_config(proto) -> dict:
    return dict(proto.__dict__) if hasattr(proto, "describe") else {"splitter": repr(proto)}


def _method_config(methods) -> list:
    return [m.strip() if isinstance(m, str) else repr(m) for m in methods]


def _configuration(options: CompareOptions, ds, sizes: list[int]) -> dict:
    """What keys a finished run: a changed item is a changed configuration. Input files enter
    by their content (sha256), not their path."""
    from stablefs._runtime.versions import stablefs_version

    impute = "median" if ds.meta.get("missing") == "impute" else None
    config = {
        "data": ds.name, "data_digest": data_digest(ds),
        "inputs": input_fingerprints(ds, options.data_options()),
        "data_options": options.recorded_data_options(
            (ds.meta.get("scale") or {}).get("applied")),
        "n_samples": ds.n_samples, "n_features": ds.n_features,
        "methods": _method_config(options.methods), "sizes": sizes,
        "protocol": _protocol_config(options.protocol_),
        "classifiers": _method_config(options.classifiers), "measures": options.measures,
        "seed": options.seed, "impute": impute, "report": bool(options.report),
        "stablefs": stablefs_version(),
    }
    if options.standardize or options.prefilter:  # absent when unused (earlier runs' keys)
        config.update(standardize=options.standardize, prefilter=options.prefilter)
    if options.svg:
        config["svg"] = True
    config.update(options.trust_settings().config())
    return config


def execute(plan: Plan, *, progress=False, verbose: int = 0, announce: bool = True):
    """Run a prepared comparison (or read back the finished run its folder holds).

    Parameters
    ----------
    plan : Plan
        From :func:`prepare`.
    progress : bool, str or None
        A progress bar (``True`` or ``"bar"``), a line per tenth in a log (``"lines"``), or
        nothing.
    verbose : int
        1: the options, resample sizes and each method's fit times in the log; 2: also every
        resample's class counts.
    announce : bool
        Log the estimated wall time before the work (from one pilot fit per method).

    Returns
    -------
    Comparison
    """
    from stablefs.comparison._result import Comparison, read_comparison

    if plan.reusable:
        assert plan.out is not None  # a finished run to reuse is in plan.out
        comparison = read_comparison(plan.out)
        comparison.dataset = plan.dataset
        comparison.reused = True
        return comparison
    from stablefs._runtime.progress import heartbeat
    from stablefs.comparison import _trust
    from stablefs.evaluation._checks import _protocol_resamples, check_n_jobs
    from stablefs.evaluation.preprocessing import Preprocessing
    from stablefs.evaluation.runner import backend_session, run_experiment

    o, ds = plan.options, plan.dataset
    settings = o.trust_settings()
    impute = plan.config["impute"]
    started = _dt.datetime.now().astimezone()
    t0 = time.perf_counter()
    resamples = _protocol_resamples(o.protocol_, None, ds.X, ds.y, o.seed)[0]
    workers = check_n_jobs(o.n_jobs, len(resamples) * len(o.methods))
    log.info(f"options: classifiers {', '.join(plan.config['classifiers'])}; stability "
             f"{', '.join(o.measures)}; seed {o.seed}; n_jobs {o.n_jobs} (workers {workers}); "
             f"backend {o.backend}; standardize {o.standardize}; prefilter {o.prefilter}; "
             f"missing values {impute or 'refused'}; permutations {settings.permutations} x "
             f"{settings.permutation_resamples} resamples; nested {settings.nested_outer} x "
             f"{settings.nested_inner}")
    _trust.log_resamples(resamples, ds.y, verbose)
    stages = plan.stages if plan.stages is not None else plan_stages(o, ds.X, ds.y, resamples)
    for line in stages.lines():
        log.warning(line)
    prep = Preprocessing(impute=impute, standardize=o.standardize, prefilter=o.prefilter)
    # one Dask client (a local cluster's worker processes) for the pilot, the comparison,
    # the permutation test and every outer resample of the nested estimate, started first so
    # that its workers import the stack and warm up while this process goes on
    with backend_session(o.backend, o.n_jobs, o.scheduler):
        # the worker processes start now and warm up (one runs the pilot) while this process
        # goes on; every later phase reuses them
        pool = _trust.start_workers(
            ds.X, ds.y, o.methods, resamples, workers=workers, backend=o.backend,
            scheduler=o.scheduler, seed=o.seed, prep=prep, sizes=plan.sizes,
            classifiers=o.classifiers, pilot=announce,
            protocol=o.protocol_ if announce and settings.permutations else None)
        if pool is not None:  # what dispatching the fits imports (sklearn), while they start
            import stablefs.selectors  # noqa: F401
        estimate = None
        if announce:
            from stablefs.evaluation import budget

            estimate = _trust.announce(
                ds.X, ds.y, o.methods, resamples, seed=o.seed,
                prep=prep, workers=workers, settings=settings, n_features=ds.n_features,
                prefilter=o.prefilter, sizes=plan.sizes, classifiers=o.classifiers,
                progress=progress, report=bool(o.report) and plan.folder is not None,
                started=pool, protocol=o.protocol_)
            budget.check_wall_time(estimate["total"], "this comparison", "lower --repeats, "
                                   "--permutations or --nested, keep fewer features (--prefilter) "
                                   "or add workers (--n-jobs)", allow=o.allow_huge)
        folder = plan.folder
        cache = folder.partial if folder is not None else None
        with (folder if folder is not None else _nothing()):
            clock = _trust.PhaseClock(cache)
            if pool is not None:
                pool.wait()
            with clock.phase("fits"):
                result = run_experiment(
                    ds.X, ds.y, o.methods, plan.sizes, protocol=o.protocol_,
                    classifiers=o.classifiers, measures=o.measures,
                    feature_names=ds.feature_names, random_state=o.seed, n_jobs=o.n_jobs,
                    backend=o.backend, scheduler=o.scheduler, cache_dir=cache, impute=impute,
                    standardize=o.standardize, prefilter=o.prefilter, progress=progress,
                    sample_names=getattr(ds, "sample_names", None))
            if verbose:
                ft = result.results[result.results["metric"] == "fit_time"].groupby(
                    "method", sort=False)["value"]
                log.info("fit time per method: " + ", ".join(
                    f"{m} {v.mean():.2f} s x {v.size} = {v.sum():.1f} s" for m, v in ft))
            ahead = _figures_ahead(plan, result, workers)
            if estimate and not result.info["fits_reused"]:
                estimate["after_fits"] = _trust.reannounce(
                    estimate, result, fits_seconds=clock.this_run["fits"], settings=settings,
                    n_classifiers=len(o.classifiers), workers=workers)
            trust = _trust.assess(
                result, ds.X, ds.y, o.methods, plan.sizes, resamples, protocol=o.protocol_,
                settings=settings,
                classifiers=o.classifiers, measures=o.measures, seed=o.seed, n_jobs=o.n_jobs,
                backend=o.backend, scheduler=o.scheduler, cache_dir=cache, impute=impute,
                standardize=o.standardize, prefilter=o.prefilter, progress=progress,
                stages=stages, clock=clock)
            run_info = _run_info(plan, result, trust, started, time.perf_counter() - t0)
            run_info["phase_seconds"] = {k: round(v, 3) for k, v in clock.seconds.items()}
            if estimate:
                run_info["estimated_seconds"] = _estimate_record(estimate)
            comparison = Comparison.from_run(result, trust, run_info, ds, plan.config)
            if folder is not None:
                assert plan.out is not None  # the run folder is plan.out
                with heartbeat(progress, "report", "writing the tables, figures and report"):
                    comparison._write(plan.out, report=bool(o.report), svg=bool(o.svg),
                                      draw=_figure_drawer(o, workers, ahead))
                folder.complete()
                comparison.folder = plan.out
    comparison.wall_time = time.perf_counter() - t0  # with the files and the report
    return comparison


def _figures_ahead(plan: Plan, result, workers: int):
    """With workers, the report's figures that depend on the fits alone are drawn in this
    process while the workers run the permutation test and the nested estimate
    (:class:`~stablefs.comparison._figures.FiguresAhead`); ``None`` otherwise."""
    o = plan.options
    if workers < 2 or plan.folder is None or not o.report:
        return None
    from stablefs.comparison._figures import FiguresAhead
    from stablefs.report import figure_jobs

    return FiguresAhead(figure_jobs(
        run_info={"methods": plan.config["methods"]}, results=result.results,
        stability=result.stability, frequencies=result.frequencies,
        selections=result.selections, feature_names=plan.dataset.feature_names,
        baseline=result.baseline, svg=bool(o.svg)))


def _figure_drawer(o: CompareOptions, workers: int, ahead=None):
    """The report's figures: those drawn ahead (``ahead``), the others side by side in the
    command's workers (the same pool as its fits; the figures are independent, their bytes
    the same as drawn here); ``None`` (drawn in this process) with one worker."""
    if workers < 2:
        return None
    from functools import partial

    from stablefs.evaluation.runner import map_in_workers
    from stablefs.report import draw_figure

    rest = partial(map_in_workers, draw_figure, backend=o.backend, n_jobs=workers,
                   scheduler=o.scheduler)
    return rest if ahead is None else partial(ahead.draw, rest=rest)


def _estimate_record(estimate: dict) -> dict:
    """The estimates for ``run.json``: seconds by phase before the fits and, when made, after
    them (``after_fits``)."""
    out: dict[str, object] = {k: round(float(v), 3) for k, v in estimate.items()
           if isinstance(v, (int, float)) and k != "report_figure"}
    if estimate.get("after_fits"):
        out["after_fits"] = {k: round(float(v), 3) for k, v in estimate["after_fits"].items()}
    return out


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _run_info(plan: Plan, result, trust, started, elapsed: float) -> dict:
    """``run.json``: the configuration and what happened."""
    from stablefs._runtime.versions import package_versions

    o, ds = plan.options, plan.dataset
    proto = o.protocol_
    return {
        "command": plan.command,
        "data": ds.name, "source": ds.source, "n_samples": ds.n_samples,
        "n_features": ds.n_features, "classes": ds.class_counts(), "data_meta": ds.meta,
        "methods": plan.config["methods"], "sizes": plan.sizes,
        "protocol": proto.describe() if hasattr(proto, "describe") else repr(proto),
        "protocol_config": _protocol_config(proto),
        "classifiers": plan.config["classifiers"], "measures": o.measures,
        "seed": o.seed, "n_jobs": o.n_jobs, "backend": o.backend,
        "fits_reused": result.info["fits_reused"],
        "fits_computed": result.info["fits_computed"],
        "started": started.isoformat(timespec="seconds"),
        "finished": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "wall_time_s": round(elapsed, 3), "versions": package_versions(),
        "config": plan.config, "config_key": plan.folder.key if plan.folder else None,
        "options": _jsonable(plan.extra.get("options") or plan.options.as_dict()),
        "trust": trust.info,
    }


def _jsonable(options: dict) -> dict:
    """The resolved options for ``run.json``: values JSON can hold, others as text."""
    out = {}
    for k, v in options.items():
        if isinstance(v, (list, tuple)):
            v = [x if isinstance(x, (str, int, float, bool)) or x is None else repr(x)
                 for x in v]
        elif not (isinstance(v, (str, int, float, bool)) or v is None):
            v = repr(v)
        out[k] = v
    return out


def compare(
        data: DataSource = DEFAULT_DATA,
        methods: str | Sequence[str | BaseEstimator | tuple[str, BaseEstimator]] | None = None,
        sizes: str | Sequence[int] | None = None, *,
        protocol: str | Protocol | BaseCrossValidator = "split", repeats: int | None = None,
        classifiers: str | Sequence[str | BaseEstimator | tuple[str, BaseEstimator]] | None = None,
        measures: str | Sequence[str] | None = None, seed: int = 0, n_jobs: int = 1,
        backend: Literal["loky", "dask"] = "loky", scheduler: str | None = None,
        scheduler_timeout: float = 30.0, permutations: int = 100, permutation_resamples: int = 3,
        nested: tuple[int, int] | str | int = (5, 3), standardize: bool = False,
        prefilter: int | None = None, scale: Literal["raw", "log2", "auto"] = "auto",
        label: str | None = None, labels: str | os.PathLike[str] | pd.Series | None = None,
        layer: str | None = None, feature_names: str | Sequence[str] | None = None,
        transpose: bool = False, missing: str | None = None, drop_nominal: bool = False,
        encode_nominal: bool = False, annotation: str | os.PathLike[str] | None = None,
        out: str | os.PathLike[str] | None = None, force: bool = False, report: bool = True,
        svg: bool = False, progress: bool | Literal["bar", "lines"] | None = False,
        verbose: int = 0, allow_huge: bool = False,
) -> Comparison:
    """Compare the stability and accuracy of feature selection methods on one data set.

    The same job as ``stablefs compare``, with the same defaults: every method is fitted on
    the same resamples of the data and every selection recorded; the stability of the
    selected subsets (Nogueira et al. 2018, with its confidence interval) and the held-out
    accuracy of classifiers trained on them are measured at each subset size k; the most
    stable (method, k) whose accuracy is tied with the best is recommended, and checked
    against the majority-class baseline, by a permutation test of the whole procedure (the
    labels permuted, every selector refitted, Ambroise and McLachlan 2002, and the choice
    repeated) and by a nested estimate of the choice.

    Parameters
    ----------
    data : str, path, DataFrame, AnnData or tuple, default "synthetic:han2012"
        Anything :func:`stablefs.datasets.load` takes (a file, a registry name such as
        ``"colon"``, a synthetic spec such as ``"synthetic:han2012?n_samples=200"``, a
        ``pandas.DataFrame`` with a class column, an ``anndata.AnnData``), or ``(X, y)``:
        arrays (name the columns with ``feature_names``) or a DataFrame and a Series.
    methods : str or list, default "relieff,iw-relieff,en-relieff"
        Method strings (``stablefs methods`` lists them; parameters in parentheses:
        ``"en-relieff(n_estimators=40)"``), selector objects or ``(name, selector)`` pairs.
    sizes : str or list of int, optional
        Subset sizes k: ``[10, 20, 50]``, ``"10:50:10"``; default 10, 20, 30, 40, 50.
    protocol : str, Protocol or scikit-learn splitter, default "split"
        ``"split"`` (random stratified 2/3 splits), ``"cv"``, ``"holdout"``,
        ``"subsample"``, ``"bootstrap"``, ``"5x2"``, ``"loo"`` (see ``stablefs compare
        --help``), or a splitter such as ``RepeatedStratifiedKFold``.
    repeats : int, optional
        Number of splits or repeats (default: 20 splits, 10 cv repeats).
    classifiers : str or list, default "svm,1nn"
        Classifiers trained on each selected subset (``svm``, ``1nn``, ``3nn``, ``lda``).
    measures : str or list, default "nogueira"
        Stability measures (``stablefs measures``).
    seed : int, default 0
        Seeds the resamples, every randomised method and synthetic data.
    n_jobs : int, default 1
        Parallel fits (-1: all cores); the results do not depend on it.
    backend : {"loky", "dask"}, default "loky"
        Where parallel fits run; ``scheduler`` is a Dask scheduler's address (default: a
        local cluster).
    scheduler_timeout : float, default 30
        Seconds a scheduler gets to answer before the run is refused.
    permutations : int, default 100
        Permutations of the permutation test of the procedure, the choice of (method, k)
        repeated in each (0 skips it).
    permutation_resamples : int, default 3
        Resamples of each procedure in the permutation test (at least 2).
    nested : tuple or str, default (5, 3)
        Outer resamples and inner splits of the nested estimate (0 skips it).
    standardize : bool, default False
        Centre and scale each feature on each training part before selection.
    prefilter : int, optional
        Keep the N features with the largest t-statistic on each training part.
    scale : {"auto", "raw", "log2"}, default "auto"
        ``auto``: log2(max(x, 0) + 1) when the values look like raw (unlogged) intensities
        (:func:`stablefs.datasets._scale.value_scale`; one line says so, the report's header
        and ``run.json`` record it), else as given; ``raw``: as given; ``log2``: always
        log2(max(x, 0) + 1).
    label, labels, layer, feature_names, transpose, missing, drop_nominal, encode_nominal
        Data options, as :func:`stablefs.datasets.load` takes them; ``feature_names`` also
        names the columns of ``(X, y)`` arrays.
    annotation : path, optional
        Probe -> gene symbol table: symbols beside probe IDs in the signature and report.
    out : path, optional
        A run folder: the files of ``stablefs compare --out`` are written there, a finished
        run with the same configuration is read back instead of recomputed, and an
        interrupted one resumes. Without it the comparison stays in memory
        (:meth:`Comparison.save` writes the folder later).
    force : bool, default False
        Replace a finished run of another configuration in ``out``.
    report : bool, default True
        Write ``report.html`` and ``report.md`` into ``out``.
    svg : bool, default False
        Also write every figure of the report as SVG beside its PNG.
    progress : bool or str, default False
        A progress bar on stderr (``True``), or a line per tenth (``"lines"``).
    verbose : int, default 0
        More log messages (logger ``"stablefs"``).
    allow_huge : bool, default False
        Run even when the counts (``repeats``, ``permutations``, ``nested``, a method's
        ``n_estimators``, ...) promise more than 30 days of work on this machine's cores or
        results beyond its memory (:mod:`stablefs.evaluation.budget`); without it such a
        comparison is refused before any work (CLI ``--allow-huge``).

    Returns
    -------
    Comparison
        Tidy tables, the recommendation, the evidence of signal, and figures.

    Raises
    ------
    stablefs.StablefsError
        One line naming a bad option or a problem with the data, before any work.

    See Also
    --------
    stablefs.read_comparison : Read a run folder back.
    stablefs.annotate : Write the results into an AnnData.

    References
    ----------
    Nogueira, Sechidis and Brown 2018, "On the stability of feature selection algorithms",
    JMLR 18, eq. 4 and Theorem 7 (the stability estimate and its interval). Ambroise and
    McLachlan 2002, "Selection bias in gene extraction on the basis of microarray
    gene-expression data", PNAS 99 (refitting the selector in every permutation). Han 2012,
    "Stable feature selection: theory and algorithms", sec. 6.1 (the default synthetic data).

    Examples
    --------
    >>> import stablefs
    >>> result = stablefs.compare("synthetic:han2012?n_samples=60&n_features=200&n_blocks=20",
    ...                           methods="ttest,relieff", sizes=[5, 10], repeats=5,
    ...                           permutations=0, nested=0)
    >>> sorted(result.stability["method"].unique())
    ['relieff', 'ttest']
    >>> result.recommendation.method in {"ttest", "relieff"}
    True
    """
    options = CompareOptions(
        methods=_default(methods, "relieff,iw-relieff,en-relieff"), sizes=sizes,
        protocol=protocol, repeats=repeats, standardize=standardize, prefilter=prefilter,
        classifiers=_default(classifiers, "svm,1nn"), measures=_default(measures, "nogueira"),
        seed=seed, n_jobs=n_jobs, backend=backend, scheduler=scheduler,
        scheduler_timeout=scheduler_timeout, permutations=permutations,
        permutation_resamples=permutation_resamples, nested=nested, report=report, svg=svg,
        label=label, labels=labels, layer=layer, feature_names=feature_names,
        transpose=transpose, missing=missing, drop_nominal=drop_nominal,
        encode_nominal=encode_nominal, scale=scale, annotation=annotation,
        allow_huge=allow_huge)
    plan = prepare(data, options, out=out, force=force,
                   command=python_call(data, options, out))
    if not plan.reusable:
        log.info(plan.describe().replace("\n", "; "))
    from stablefs._runtime.progress import progress_mode

    mode = progress_mode(None if progress is None else bool(progress), False) \
        if progress in (None, True, False) else progress
    return execute(plan, progress=mode, verbose=verbose, announce=False)


def _default(value, default: str):
    return default if value is None else value


def python_call(data, options: CompareOptions, out) -> str:
    """The Python call that reruns a comparison, for the report's "Rerun with" box: the data
    when it is a name or a path, and the options that differ from the defaults."""
    defaults = CompareOptions()
    what = repr(str(data)) if isinstance(data, (str, Path)) else "data"
    parts = [what]
    for name, value in options.as_dict().items():
        if name in ("methods", "classifiers", "measures"):
            value = ",".join(names_of(as_list(value, name)))
            if value == ",".join(getattr(defaults, name)):
                continue
        elif value == getattr(defaults, name):
            continue
        if isinstance(value, (str, int, float, bool, tuple, list)) or value is None:
            parts.append(f"{name}={value!r}")
    if out is not None:
        parts.append(f"out={str(out)!r}")
    return "stablefs.compare(" + ", ".join(parts) + ")"
