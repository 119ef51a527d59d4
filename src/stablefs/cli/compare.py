"""``stablefs compare``: option parsing and messages around :func:`stablefs.compare` (the job
itself is :mod:`stablefs.comparison`)."""

from __future__ import annotations

from pathlib import Path

import click

from stablefs._runtime.escape import printable
from stablefs.cli._common import REUSED, _command_line, _set_verbosity, echo_json
from stablefs.cli._config import config_options, config_text, resolved_options
from stablefs.cli._options import (
    allow_huge_option,
    data_option_values,
    json_option,
    scheduler_options,
    verbosity_options,
    with_data_options,
)
from stablefs.comparison._options import (
    DEFAULT_CLASSIFIERS,
    DEFAULT_DATA,
    DEFAULT_MEASURES,
    DEFAULT_METHODS,
)

__all__ = ["compare"]


@click.command()
@click.argument("data", required=False, default=DEFAULT_DATA)
@click.option("-m", "--methods", default=",".join(DEFAULT_METHODS), show_default=True,
              help="Comma-separated method strings (see 'stablefs methods').")
@click.option("-k", "--sizes", default=None,
              help="Subset sizes, e.g. 10,20,50 or 10:50:10 [default: 10,20,30,40,50].")
@click.option("--protocol", default="split", show_default=True,
              help="Resampling protocol: 'split' (random stratified 2/3 splits; 'split:0.8'), "
                   "'cv' (repeated stratified 10-fold; 'cv:5'), 'holdout' (repeated "
                   "stratified 3-fold with the full-data reference of Yu et al. 2008; "
                   "'holdout:3'), 'subsample' (90% without replacement; 'subsample:0.9'), "
                   "'bootstrap' (out-of-bag test part), '5x2' (outer folds of nested 5 x 2 "
                   "CV), 'loo' (leave-one-out).")
@click.option("--repeats", type=int, default=None,
              help="Number of splits, subsamples or bootstrap samples, or of k-fold repeats "
                   "[default: 20 splits, subsamples, bootstraps; 10 cv and holdout repeats].")
@click.option("--standardize", is_flag=True,
              help="Centre and scale every feature with the mean and SD of each training part "
                   "before selection.")
@click.option("--prefilter", type=int, default=None, metavar="N",
              help="Keep the N features with the largest t-statistic on each training part "
                   "for the selector (Han 2012 kept 5000 of Lung's genes).")
@click.option("--classifiers", default=",".join(DEFAULT_CLASSIFIERS), show_default=True,
              help="Classifiers trained on each selected subset: svm, 1nn, 3nn (any Knn), "
                   "lda.")
@click.option("--stability", "measures", default=",".join(DEFAULT_MEASURES), show_default=True,
              help="Stability measures (see 'stablefs measures').")
@click.option("--out", type=click.Path(), default=None,
              help="Output folder [default: ./stablefs-DATA]. The same command with the same "
                   "folder reuses a finished run or resumes an interrupted one.")
@click.option("--force", is_flag=True,
              help="Replace a finished run of another configuration in the output folder.")
@click.option("--n-jobs", type=int, default=1, show_default=True,
              help="Parallel fits (-1 = all cores), capped at the fits to do. Results do not "
                   "depend on it.")
@click.option("--backend", type=click.Choice(["loky", "dask"]), default="loky", show_default=True,
              help="Where parallel fits run: local processes, or a Dask cluster.")
@scheduler_options("a local cluster of --n-jobs workers")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seeds the resamples, every randomised method and synthetic data.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar [default: when stderr is a terminal].")
@click.option("--no-report", is_flag=True, help="Skip report.md / report.html.")
@click.option("--svg", is_flag=True, help="Also write every figure of the report as SVG "
              "(vector graphics, for papers) beside its PNG.")
@click.option("--permutations", type=int, default=100, show_default=True, metavar="N",
              help="Permutation test of the whole procedure: N label permutations, on each "
                   "every method refitted and the choice of (method, k) repeated on R "
                   "resamples stratified on the permuted labels; p = (1 + exceedances) / "
                   "(1 + N), so "
                   "p < 0.01 needs N >= 100; stops early once p >= 0.05 is certain (Besag "
                   "and Clifford 1991). 0 skips the test.")
@click.option("--permutation-resamples", type=int, default=3, show_default=True, metavar="R",
              help="Resamples of each procedure in the permutation test (the first R of the "
                   "comparison's for the observed one; at least 2).")
@click.option("--nested", "nested", default="5:3", show_default=True, metavar="OUTER:INNER",
              help="Nested estimate of the recommended pair: the choice of method and k "
                   "repeated on INNER 2/3 splits of the training part of OUTER resamples. "
                   "0 skips it.")
@allow_huge_option
@with_data_options
@json_option
@config_options
@verbosity_options
def compare(data, methods, sizes, protocol, repeats, standardize, prefilter, classifiers, measures,
            out, force, n_jobs, backend, scheduler, scheduler_timeout, seed, progress, no_report,
            svg, permutations, permutation_resamples, nested, allow_huge, label, labels,
            transpose, layer, missing, drop_missing, drop_nominal, encode_nominal, scale, log2,
            annotation, as_json, print_config, quiet, verbose):
    """Compare the stability and accuracy of METHODS on DATA [default: synthetic:han2012].

    DATA is a file (.csv/.tsv/.txt[.gz], .arff, .npz, .h5ad), a registry name (colon,
    leukemia, prostate, lung, srbct, dlbcl, ...; see 'stablefs datasets') or a synthetic spec
    such as 'synthetic:han2012?n_samples=200'. The same job from Python: stablefs.compare.
    """
    # the checks and the first line need NumPy alone (tests/test_startup.py): scikit-learn,
    # SciPy, pandas and Numba are imported by the work that follows
    from stablefs._runtime.progress import progress_mode
    from stablefs.comparison._compare import execute, prepare
    from stablefs.comparison._options import CompareOptions

    ctx = click.get_current_context()
    if print_config:
        click.echo(config_text(ctx), nl=False)
        return
    _set_verbosity(quiet, verbose)
    options = CompareOptions(
        methods=methods, sizes=sizes, protocol=protocol, repeats=repeats,
        standardize=standardize, prefilter=prefilter, classifiers=classifiers,
        measures=measures, seed=seed, n_jobs=n_jobs, backend=backend, scheduler=scheduler,
        scheduler_timeout=scheduler_timeout, permutations=permutations,
        permutation_resamples=permutation_resamples, nested=nested, report=not no_report,
        svg=svg, allow_huge=allow_huge,
        **data_option_values(label, labels, transpose, layer, missing, drop_missing,
                             drop_nominal, encode_nominal, scale, log2, annotation))
    plan = prepare(data, options, out=out, force=force, default_folder=True,
                   command=_command_line())
    plan.extra["options"] = resolved_options(ctx)
    say = (lambda text: None) if quiet else (lambda text: click.echo(printable(text), err=True))
    if plan.reusable:
        say(f"{plan.dataset!r}\n{plan.out} holds this finished run (same configuration): "
            f"{REUSED}")
        comparison = execute(plan)
    else:
        say(plan.describe())
        comparison = execute(plan, progress=progress_mode(progress, quiet),
                             verbose=0 if quiet else verbose, announce=not quiet)
    click.echo(printable(comparison.summary()), err=as_json)
    if not plan.reusable:
        files = sorted(Path(p).name for p in (comparison.paths or {}).values()
                       if not isinstance(p, list))
        reused = comparison.run_info.get("fits_reused", 0)
        note = f" (resumed: {reused} fits reused)" if reused else ""
        say(f"\nwall time {comparison.wall_time:.1f} s{note}; wrote {', '.join(files)} in "
            f"{plan.out}/")
    if as_json:
        echo_json(json_summary(comparison, plan.out))


def json_summary(comparison, out) -> dict:
    """What ``--json`` prints: the folder and its files, the recommendation, the verdict."""
    rec, sig = comparison.recommendation, comparison.signal
    files = comparison.run_info.get("files") or sorted(
        str(Path(p).relative_to(out)) for v in (comparison.paths or {}).values()
        for p in (v if isinstance(v, list) else [v]))
    return {
        "status": "ok", "exit_code": 0, "out": str(out), "reused": comparison.reused,
        "files": files,
        "recommendation": {"method": rec.method, "k": rec.k, "measure": rec.measure,
                           "stability": rec.stability, "metric": rec.metric,
                           "accuracy": rec.accuracy, "sentence": rec.sentence,
                           "candidate": list(rec.candidate) if rec.candidate else None},
        "signal": {"evidence": sig.evidence, "verdict": sig.verdict,
                   "p_value": None if sig.p_value != sig.p_value else sig.p_value,
                   "tested": sig.tested},
        "wall_time_s": round(comparison.wall_time, 3),
    }
