"""The ``stablefs`` command line (``docs/DESIGN.md``, "Command line").

Bad input ends with one line on stderr, ``stablefs: error: ...``, and exit status 2;
Ctrl-C ends with status 130 and keeps every finished fit for a resumed rerun.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import logging
import re
import sys
import time
from pathlib import Path

import click

from stablefs._errors import StablefsError
from stablefs._runtime.escape import printable
from stablefs.cli._common import (  # noqa: F401 (names of this module before the move)
    DEFAULT_SIZES,
    _annotate,
    _check_seed,
    _command_line,
    _data_digest,
    _input_fingerprints,
    _load,
    _log2_synthetic,
    _set_verbosity,
    _stablefs_version,
    _versions,
    parse_sizes,
    set_command_args,
    split_list,
)
from stablefs.cli._options import scheduler_options

DEFAULT_DATA = "synthetic:han2012"
DEFAULT_METHODS = "relieff,iw-relieff,en-relieff"


def _print_version(ctx: click.Context, _param, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(f"stablefs, version {_stablefs_version()}")
        ctx.exit()


def _default_out(name: str) -> Path:
    return Path("stablefs-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-"))


MISSING_CHOICES = ("drop-samples", "drop-features", "impute")

data_options = [
    click.option("--label", default=None, help="Name of the class column (default: 'label', "
                 "or the last column of a headerless file)."),
    click.option("--labels", "labels", default=None, metavar="FILE[:COL]",
                 help="Class labels from a separate sample sheet, joined on sample IDs "
                      "(column 'label' unless :COL is given)."),
    click.option("--transpose", is_flag=True, help="The file is genes x samples (features in "
                 "rows, samples in columns), the usual layout of expression matrices."),
    click.option("--missing", type=click.Choice(MISSING_CHOICES), default=None,
                 help="Missing values: drop the samples or the features that have them, or "
                      "impute per-feature medians fitted on each training part [default: "
                      "refuse the file]."),
    click.option("--drop-missing", is_flag=True, help="Same as --missing drop-samples."),
    click.option("--drop-nominal", is_flag=True, help="Drop nominal (non-numeric) attributes "
                 "instead of refusing the file."),
    click.option("--encode-nominal", is_flag=True, help="Turn nominal attributes into 0/1 "
                 "indicator columns (as Weka's NominalToBinary) instead of refusing the file."),
    click.option("--log2", is_flag=True, help="Analyse log2(max(x, 0) + 1) of every value: "
                 "for raw (unlogged) intensities; negative values (below background) count "
                 "as 0. Recorded in run.json."),
    click.option("--annotation", default=None, metavar="FILE",
                 help="Probe -> gene symbol table (csv/tsv, optional header; first column "
                      "the probe IDs, second the symbols): symbols beside probe IDs in the "
                      "report, signature.csv and signature.gmt."),
]


def with_data_options(f):
    for opt in reversed(data_options):
        f = opt(f)
    return f


def _data_opts(label, labels, transpose, missing, drop_missing, drop_nominal,
               encode_nominal, log2=False, annotation=None) -> dict:
    if drop_missing and missing not in (None, "drop-samples"):
        raise StablefsError(f"--drop-missing contradicts --missing {missing}: give one of them.")
    if drop_missing:
        missing = "drop-samples"
    if annotation is not None:
        from stablefs.datasets._annotation import read_annotation

        read_annotation(annotation)  # a missing or unreadable table: refused before any work
    return {"label": label, "labels": labels, "transpose": transpose, "missing": missing,
            "drop_nominal": drop_nominal, "encode_nominal": encode_nominal, "log2": log2,
            "annotation": annotation}


def _verbosity(f):
    f = click.option("-v", "--verbose", count=True,
                     help="More messages: -v the chosen options, the resamples' sizes and the "
                          "time of each method's fits; -vv also every resample's class "
                          "counts.")(f)
    f = click.option("-q", "--quiet", is_flag=True,
                     help="Only errors and the results; no progress bar.")(f)
    return f


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-V", "--version", is_flag=True, expose_value=False, is_eager=True,
              callback=_print_version, help="Show the version and exit.")
def cli():
    """Stable feature selection: stable selectors, stability measures, and comparisons of
    stability and accuracy on your own data."""


@cli.command()
@click.argument("data", required=False, default=DEFAULT_DATA)
@click.option("-m", "--methods", default=DEFAULT_METHODS, show_default=True,
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
@click.option("--classifiers", default="svm,1nn", show_default=True,
              help="Classifiers trained on each selected subset: svm, 1nn, 3nn (any Knn), "
                   "lda.")
@click.option("--stability", "measures", default="nogueira", show_default=True,
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
@click.option("--permutations", type=int, default=100, show_default=True, metavar="N",
              help="Permutation test of the recommended (method, k): N label permutations, "
                   "the selector refitted on each; p = (1 + exceedances) / (1 + N), so "
                   "p < 0.01 needs N >= 100; stops early once p >= 0.05 is certain (Besag "
                   "and Clifford 1991). 0 skips the test.")
@click.option("--permutation-resamples", type=int, default=3, show_default=True, metavar="R",
              help="Resamples refitted per permutation (the first R of the comparison's).")
@click.option("--nested", "nested", default="5:3", show_default=True, metavar="OUTER:INNER",
              help="Nested estimate of the recommended pair: the choice of method and k "
                   "repeated on INNER 2/3 splits of the training part of OUTER resamples. "
                   "0 skips it.")
@with_data_options
@_verbosity
def compare(data, methods, sizes, protocol, repeats, standardize, prefilter, classifiers, measures,
            out, force, n_jobs, backend, scheduler, scheduler_timeout, seed, progress, no_report,
            permutations, permutation_resamples, nested, label, labels, transpose, missing,
            drop_missing, drop_nominal, encode_nominal, log2, annotation, quiet, verbose):
    """Compare the stability and accuracy of METHODS on DATA [default: synthetic:han2012].

    DATA is a file (.csv/.tsv/.txt[.gz], .arff, .npz, .h5ad), a registry name (colon,
    leukemia, prostate, lung, srbct, dlbcl, ...; see 'stablefs datasets') or a synthetic spec
    such as 'synthetic:han2012?n_samples=200'.
    """
    # the checks and the first line need NumPy alone (tests/test_startup.py): scikit-learn,
    # SciPy, pandas and Numba are imported by the work that follows
    from stablefs._runtime.rundir import RunFolder
    from stablefs.evaluation._checks import (
        _method_templates,
        _protocol_resamples,
        check_backend,
        check_measures_defined,
        check_n_jobs,
    )
    from stablefs.evaluation.classifiers import check_classifiers
    from stablefs.evaluation.protocols import Protocol
    from stablefs.methods import check_method_sizes
    from stablefs.stability import available_measures

    _set_verbosity(quiet, verbose)
    # --- every option is checked before the data is read and before --out is touched
    _check_seed(seed)
    opts = _data_opts(label, labels, transpose, missing, drop_missing, drop_nominal,
                      encode_nominal, log2, annotation)
    method_list = split_list(methods)
    _method_templates(method_list)
    measure_list = split_list(measures)
    if not measure_list:
        raise StablefsError("--stability is empty: name at least one measure, e.g. "
                            "--stability kuncheva (see 'stablefs measures').")
    unknown = [m for m in measure_list if m not in available_measures()]
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0], available_measures(), n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise StablefsError(f"unknown stability measure {unknown[0]!r}.{hint} Run 'stablefs "
                            "measures' for the full list.")
    classifier_list = list(check_classifiers(split_list(classifiers)))
    check_n_jobs(n_jobs)
    if repeats is not None and repeats < 2:
        raise StablefsError(f"--repeats must be at least 2 (stability compares resamples), "
                            f"not {repeats}.")
    proto = Protocol.parse(protocol, repeats)
    trust_settings = _trust_settings(permutations, permutation_resamples, nested)
    if out is not None:
        RunFolder(out, {}).check_path()  # a file, an unwritable place: refused before any work
    check_backend(backend, scheduler, scheduler_timeout)  # Dask installed, scheduler answers
    ds = _load(data, opts, seed)
    size_list = parse_sizes(sizes, ds.n_features)
    check_method_sizes(method_list, ds.n_features)
    check_measures_defined(measure_list, size_list, ds.n_features)
    proto.resamples(ds.y, seed)  # a class too small for the protocol fails here
    from stablefs.evaluation.preprocessing import Preprocessing

    Preprocessing(standardize=standardize, prefilter=prefilter).check(ds.n_features, size_list)
    out_dir = Path(out) if out else _default_out(ds.name)
    impute = "median" if ds.meta.get("missing") == "impute" else None

    config = {
        "data": ds.name, "data_digest": _data_digest(ds), "inputs": _input_fingerprints(ds, opts),
        "data_options": {k: v for k, v in opts.items() if v not in (None, False)},
        "n_samples": ds.n_samples, "n_features": ds.n_features,
        "methods": method_list, "sizes": size_list, "protocol": proto.__dict__,
        "classifiers": classifier_list, "measures": measure_list, "seed": seed,
        "impute": impute, "report": not no_report, "stablefs": _stablefs_version(),
    }
    if standardize or prefilter:  # absent when unused, so earlier runs keep their key
        config.update(standardize=standardize, prefilter=prefilter)
    config.update(trust_settings.config())
    folder = RunFolder(out_dir, config, force=force)
    if folder.check() == "reuse":
        from stablefs.evaluation.outputs import read_result

        if not quiet:
            click.echo(printable(f"{ds!r}\n{out_dir}") + " holds this finished run (same "
                       "configuration): nothing refitted; add --force to recompute.", err=True)
        finished = read_result(out_dir)
        click.echo(printable(_summary_table(finished)))
        click.echo(printable(_verdict_text(finished, folder.run_info.get("trust") or {})))
        return
    from stablefs._runtime.progress import progress_mode
    from stablefs.comparison import _trust

    progress = progress_mode(progress, quiet)
    started = _dt.datetime.now().astimezone()
    t0 = time.perf_counter()
    resamples = _protocol_resamples(proto, None, ds.X, ds.y, seed)[0]
    if not quiet:
        click.echo(printable(f"{ds!r}\n{proto.describe()}; methods {', '.join(method_list)}; "
                             f"k = {', '.join(map(str, size_list))}; output {out_dir}"),
                   err=True)
        logging.getLogger("stablefs").info(
            f"options: classifiers {', '.join(classifier_list)}; stability "
            f"{', '.join(measure_list)}; seed {seed}; n_jobs {n_jobs} (workers "
            f"{check_n_jobs(n_jobs, len(resamples) * len(method_list))}); backend {backend}; "
            f"standardize {standardize}; prefilter {prefilter}; missing values "
            f"{impute or 'refused'}; permutations {trust_settings.permutations} x "
            f"{trust_settings.permutation_resamples} resamples; nested "
            f"{trust_settings.nested_outer} x {trust_settings.nested_inner}")
        _trust.log_resamples(resamples, ds.y, verbose)
        _trust.announce(ds.X, ds.y, method_list, resamples, seed=seed,
                        prep=Preprocessing(impute=impute, standardize=standardize,
                                           prefilter=prefilter),
                        workers=check_n_jobs(n_jobs, len(resamples) * len(method_list)),
                        settings=trust_settings, n_features=ds.n_features, prefilter=prefilter,
                        sizes=size_list, classifiers=classifier_list)
    from stablefs.evaluation.outputs import save_result
    from stablefs.evaluation.runner import run_experiment

    with folder:
        result = run_experiment(
            ds.X, ds.y, method_list, size_list, protocol=proto, classifiers=classifier_list,
            measures=measure_list, feature_names=ds.feature_names, random_state=seed,
            n_jobs=n_jobs, backend=backend, scheduler=scheduler, cache_dir=folder.partial,
            impute=impute, standardize=standardize, prefilter=prefilter, progress=progress,
            sample_names=getattr(ds, "sample_names", None))
        if verbose and not quiet:
            ft = result.results[result.results["metric"] == "fit_time"].groupby(
                "method", sort=False)["value"]
            logging.getLogger("stablefs").info("fit time per method: " + ", ".join(
                f"{m} {v.mean():.2f} s x {v.size} = {v.sum():.1f} s" for m, v in ft))
        trust = _trust.assess(
            result, ds.X, ds.y, method_list, size_list, resamples, settings=trust_settings,
            classifiers=classifier_list, measures=measure_list, seed=seed, n_jobs=n_jobs,
            backend=backend, scheduler=scheduler, cache_dir=folder.partial, impute=impute,
            standardize=standardize, prefilter=prefilter, progress=progress)
        elapsed = time.perf_counter() - t0
        run_info = {
            "command": _command_line(),
            "data": ds.name, "source": ds.source, "n_samples": ds.n_samples,
            "n_features": ds.n_features, "classes": ds.class_counts(), "data_meta": ds.meta,
            "methods": method_list, "sizes": size_list,
            "protocol": proto.describe(), "protocol_config": proto.__dict__,
            "classifiers": classifier_list, "measures": measure_list,
            "seed": seed, "n_jobs": n_jobs, "backend": backend,
            "fits_reused": result.info["fits_reused"],
            "fits_computed": result.info["fits_computed"],
            "started": started.isoformat(timespec="seconds"),
            "finished": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
            "wall_time_s": round(elapsed, 3), "versions": _versions(),
            "config": config, "config_key": folder.key, "trust": trust.info,
        }
        trust_paths = _trust.write_trust_files(out_dir, trust)
        paths = save_result(result, out_dir, run_info, report=not no_report, X=ds.X, y=ds.y,
                            feature_names=ds.feature_names, symbols=ds.symbols,
                            extra_paths=trust_paths)
        folder.complete()
    elapsed = time.perf_counter() - t0  # with the files and the report
    click.echo(printable(_summary_table(result)))
    click.echo(printable(_verdict_text(result, trust.info)))
    if not quiet:
        reused = result.info["fits_reused"]
        note = f" (resumed: {reused} fits reused)" if reused else ""
        click.echo(f"\nwall time {elapsed:.1f} s{note}; wrote "
                   + ", ".join(sorted(str(Path(p).name) for k, p in paths.items()
                                      if not isinstance(p, list)))
                   + f" in {printable(out_dir)}/", err=True)


def _summary_table(result) -> str:
    import pandas as pd

    lines = []
    stab = result.stability
    for measure in stab["measure"].unique():
        t = stab[stab["measure"] == measure].pivot(index="method", columns="k", values="estimate")
        t = t.reindex(stab["method"].unique())
        lines.append(f"\n{measure} stability (rows: method, columns: k)\n"
                     + t.to_string(float_format=lambda v: f"{v:.3f}"))
    res = result.results
    for metric in [m for m in res["metric"].unique() if m.startswith("accuracy_")]:
        t = (res[res["metric"] == metric].groupby(["method", "k"])["value"].mean()
             .unstack("k").reindex(res["method"].unique()))
        lines.append(f"\nmean {metric.replace('_', ' ')} on held-out samples\n"
                     + t.to_string(float_format=lambda v: f"{v:.3f}"))
    from stablefs.report.tables import baseline_means

    base = baseline_means(getattr(result, "baseline", None))
    if base:
        lines.append(f"\nmajority-class baseline (the training part's majority class "
                     f"predicted): accuracy {base['accuracy']:.3f}, balanced accuracy "
                     f"{base['balanced_accuracy']:.3f}")
    ft = res[res["metric"] == "fit_time"].groupby("method")["value"].mean()
    ft = ft.reindex(res["method"].unique())
    lines.append("\nmean fit time per resample (s)\n"
                 + pd.DataFrame({"seconds": ft}).to_string(float_format=lambda v: f"{v:.3f}"))
    return "\n".join(lines)


def _trust_settings(permutations: int, permutation_resamples: int, nested: str):
    """--permutations, --permutation-resamples and --nested, checked before any work."""
    from stablefs.comparison._trust import TrustSettings

    if permutations < 0:
        raise StablefsError(f"--permutations must be 0 (no test) or more, not {permutations}.")
    if permutation_resamples < 1:
        raise StablefsError(f"--permutation-resamples must be at least 1, not "
                            f"{permutation_resamples}.")
    text = str(nested).strip()
    if text in ("0", "none", "off"):
        outer, inner = 0, 0
    else:
        try:
            outer, inner = (int(v) for v in text.split(":"))
        except ValueError:
            raise StablefsError(f"cannot read --nested {nested!r}: write OUTER:INNER, e.g. "
                                "--nested 10:5, or --nested 0 to skip it.") from None
        if outer < 1 or inner < 2:
            raise StablefsError(f"--nested {nested}: OUTER must be at least 1 and INNER at "
                                "least 2 (stability compares resamples), or 0 to skip.")
    return TrustSettings(permutations, permutation_resamples, outer, inner)




def _verdict_text(result, trust: dict) -> str:
    """The recommendation (or "no evidence of signal") and its checks, wrapped."""
    import textwrap

    from stablefs.report.summary import verdict_lines
    from stablefs.report.tables import baseline_means

    lines = verdict_lines(result.results, result.stability, result.frequencies,
                          baseline=baseline_means(result.baseline) or None, trust=trust)
    return "\n" + "\n".join(textwrap.fill(t, 100, subsequent_indent="  ") for t in lines)


@cli.command()
@click.argument("data")
@click.option("-m", "--method", required=True, help="One method string, e.g. iw-relieff.")
@click.option("-k", "--size", "k", type=int, required=True, help="Number of features to select.")
@click.option("--resamples", type=int, default=0, show_default=True,
              help="Also fit on R random stratified 2/3 subsamples (R >= 2) and report each "
                   "feature's selection frequency in their top-k.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="CSV file for the full ranking [default: print the top k].")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seeds the subsamples, randomised methods and synthetic data.")
@click.option("--n-jobs", type=int, default=1, show_default=True,
              help="Parallel fits (-1 = all cores); results do not depend on it.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar [default: when stderr is a terminal; otherwise a line "
                   "every 30 s of a long wrapper search].")
@with_data_options
@_verbosity
def select(data, method, k, resamples, out, seed, n_jobs, progress, label, labels, transpose,
           missing, drop_missing, drop_nominal, encode_nominal, log2, annotation, quiet,
           verbose):
    """Fit METHOD on all of DATA and list the ranked features with their scores."""
    import numpy as np
    import pandas as pd

    from stablefs._runtime.escape import csv_text
    from stablefs._runtime.io import atomic_write_text
    from stablefs._validation import check_n_features_to_select
    from stablefs.evaluation.runner import check_n_jobs
    from stablefs.methods import check_method_sizes, make_selector

    _set_verbosity(quiet, verbose)
    _check_seed(seed)
    opts = _data_opts(label, labels, transpose, missing, drop_missing, drop_nominal,
                      encode_nominal, log2, annotation)
    if resamples < 0 or resamples == 1:
        raise StablefsError(f"--resamples must be 0 (none) or at least 2, not {resamples}.")
    check_n_jobs(n_jobs)
    selector = make_selector(method, random_state=seed, n_jobs=n_jobs)
    if out is not None:
        target = Path(out)
        if target.is_dir():
            raise StablefsError(f"--out {out} is a folder: give a file name such as ranking.csv.")
        parent = target.absolute().parent
        if not parent.is_dir():
            raise StablefsError(f"--out {out}: the folder {parent} does not exist.")
    ds = _load(data, opts, seed)
    if ds.meta.get("missing") == "impute":
        raise StablefsError("select fits on all samples: --missing impute applies only to "
                            "compare; use --missing drop-samples or drop-features.")
    check_n_features_to_select(k, ds.n_features)
    check_method_sizes([method], ds.n_features)
    if resamples:
        from stablefs.evaluation.protocols import Protocol

        Protocol("split", resamples).resamples(ds.y, seed)  # classes big enough?
    from stablefs._runtime.progress import progress_mode

    steps = progress_mode(progress, quiet)  # a search's steps: a bar, or lines in a log
    if progress is None:
        progress = sys.stderr.isatty() and not quiet
    selector.set_params(n_features_to_select=k)
    if progress:
        click.echo(f"fitting {method} on {ds.n_samples} x {ds.n_features} ...", err=True)
    with _search_progress(steps, method):
        selector.fit(ds.X, ds.y)
    if getattr(selector, "error_bound_", None) is not None and not quiet:
        click.echo(f"stability selection: {selector.stable_set_.size} features with selection "
                   f"probability >= {selector.threshold:g} (q = {selector.q_:.1f} of "
                   f"{ds.n_features}; expected false selections <= "
                   f"{selector.error_bound_:.3g}, Meinshausen and Buhlmann 2010)", err=True)
    table = pd.DataFrame({"rank": selector.ranking_, "feature": ds.feature_names,
                          "score": selector.scores_, "selected": selector.support_})
    if ds.symbols is not None:
        table.insert(2, "symbol", ds.symbols)
    if resamples:
        from stablefs.evaluation.protocols import Protocol
        from stablefs.evaluation.runner import run_experiment

        res = run_experiment(ds.X, ds.y, [method], [k], protocol=Protocol("split", resamples),
                             classifiers=["1nn"], measures=["kuncheva"],
                             feature_names=ds.feature_names, random_state=seed, n_jobs=n_jobs,
                             progress=progress)
        rankings = np.stack(res.selections["ranking"].to_list())
        freq = (rankings <= k).mean(axis=0)
        table["frequency"] = freq
        kun = res.stability["estimate"].iloc[0]
        click.echo(f"Kuncheva stability of the top {k} over {resamples} subsamples: {kun:.3f}",
                   err=True)
    table = table.sort_values("rank").reset_index(drop=True)
    if out:
        atomic_write_text(Path(out), csv_text(table))
        if not quiet:
            click.echo(f"wrote {len(table)} ranked features to {printable(out)}", err=True)
    else:
        click.echo(printable(table.head(k).to_string(index=False)))


@contextlib.contextmanager
def _search_progress(mode: str | None, method: str):
    """The steps of a sequential search (wrappers: SFS, SBS, RSA, ...) that the fit inside
    runs, with the subset size and its criterion value: a bar (``mode="bar"``), or in a log
    (``"lines"``) a line every half minute of a long search; other methods show nothing
    more."""
    if mode is None:
        yield
        return
    from stablefs._runtime.progress import make_progress
    from stablefs.selectors.wrappers._search import observe_steps

    bar = None

    def step(size: int, error: float) -> None:
        nonlocal bar
        if bar is None:
            bar = make_progress(mode, total=None, desc=method, unit="step")
        bar.update(1, text=f"{size} feature{'' if size == 1 else 's'}, J = {error:.4f}")

    try:
        with observe_steps(step):
            yield
    finally:
        if bar is not None:
            bar.close()


@cli.command()
@click.argument("names", nargs=-1, metavar="[NAME]...")
@click.option("--download", is_flag=True,
              help="Download (and convert) the named sets now, one line per set.")
def datasets(names, download):
    """List the named data sets and where each file is, or download some.

    The 16 microarray sets of the datamicroarray collection, with the names the seed papers
    use as aliases (colon, leukemia, prostate, lung, srbct, dlbcl). NAMEs alone describe those
    sets (classes and counts, features, platform, value scale: raw intensities or log scale);
    with --download they are fetched into the cache (sha256-checked, then converted).
    """
    from stablefs.datasets import _registry as reg

    names = [n.strip() for part in names for n in part.split(",") if n.strip()]
    entries = [reg.entry_for(n) for n in names]  # every name checked before any download
    if not download:
        if names:  # what each named set predicts, its platform and value scale
            from stablefs.datasets._describe import describe_dataset

            click.echo("\n\n".join(describe_dataset(e.name) for e in
                                    {e.name: e for e in entries}.values()))
            return
        click.echo(reg.format_registry_table(names=None))
        return
    if not entries:
        raise StablefsError("--download needs set names, e.g. 'stablefs datasets --download "
                            "alon golub'; 'stablefs datasets' lists them.")
    entries = list({e.name: e for e in entries}.values())  # "alon colon" is one set
    width = max(len(e.label) for e in entries)
    shapes = [f"{e.n_samples} x {e.n_features}" for e in entries]
    for entry, shape in zip(entries, shapes):
        res = reg.fetch_dataset(entry.name)
        what = {"found": "present", "converted": "converted from " + reg.tilde(res.source or ""),
                "downloaded": "downloaded and converted"}[res.action]
        click.echo(f"{entry.label:<{width}}  {shape:<{max(map(len, shapes))}}  {what}: "
                   f"{reg.tilde(res.path)}")


@cli.command()
def methods():
    """List the method strings with one-line descriptions."""
    from stablefs.methods import describe_methods

    rows = describe_methods()
    width = max(len(n) for n, _ in rows)
    for name, desc in rows:
        click.echo(f"{name:<{width}}  {desc}")
    click.echo("\nParameters go in parentheses, e.g. relieff(n_neighbors=5), "
               "en-relieff(n_estimators=40).")


@cli.command()
def measures():
    """List the stability measures usable with --stability."""
    from stablefs.stability import MEASURES

    for name in sorted(MEASURES):
        doc = (getattr(MEASURES[name], "description", None)
               or (getattr(MEASURES[name], "__doc__", "") or "").strip().splitlines()[0:1])
        if isinstance(doc, list):
            doc = doc[0] if doc else ""
        click.echo(f"{name:<14}  {doc}")


class _OneLine(logging.Formatter):
    """``stablefs: warning: ...`` on one line, never a source line."""

    def format(self, record: logging.LogRecord) -> str:
        from stablefs.cli._terms import cli_terms

        msg = printable(cli_terms(record.getMessage()), keep_newlines=False)
        if record.levelno >= logging.WARNING:
            return f"stablefs: {record.levelname.lower()}: {msg}"
        return f"stablefs: {msg}"


def _setup_logging() -> logging.Handler:
    """Route stablefs's log records and Python warnings to stderr as single lines."""
    import warnings

    logger = logging.getLogger("stablefs")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)
    logger.propagate = False

    def showwarning(message, category, filename, lineno, file=None, line=None):
        logger.warning(str(message))

    warnings.showwarning = showwarning
    return handler


from stablefs.cli.reproduce import experiments, reproduce  # noqa: E402

cli.add_command(reproduce)
cli.add_command(experiments)

from stablefs.cli.benchmark import benchmark  # noqa: E402

cli.add_command(benchmark)


def main(argv=None) -> int:
    """Entry point: run the command; bad input gives one line and exit status 2."""
    import warnings

    set_command_args(sys.argv[1:] if argv is None else argv)
    saved = warnings.showwarning
    handler = _setup_logging()
    saved_xfsz = _ignore_file_size_signal()
    previous_sigterm = _sigterm_as_interrupt()
    try:
        cli.main(args=argv, prog_name="stablefs", standalone_mode=False)
    except StablefsError as exc:
        from stablefs.cli._terms import cli_terms

        click.echo(f"stablefs: error: {printable(cli_terms(exc), keep_newlines=False)}",
                   err=True)
        return 2
    except OSError as exc:  # a failed write or read outside a run folder's own handling
        click.echo(f"stablefs: error: {_os_error_line(exc)}", err=True)
        return 2
    except (click.exceptions.Abort, KeyboardInterrupt):
        _stop_workers()
        from stablefs.cli._common import interrupted_line

        click.echo(interrupted_line(), err=True)
        return 130
    except click.exceptions.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    finally:
        _restore_sigterm(previous_sigterm)
        warnings.showwarning = saved
        logging.getLogger("stablefs").removeHandler(handler)
        _restore_file_size_signal(saved_xfsz)
    return 0


def _ignore_file_size_signal():
    """Ignore SIGXFSZ, so that a write past a file-size limit (``ulimit -f``) fails with EFBIG
    and gets one line, instead of the signal killing the process without a word."""
    import signal

    if not hasattr(signal, "SIGXFSZ"):
        return None
    try:
        return signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    except ValueError:  # not the main thread: leave it
        return None


def _restore_file_size_signal(previous) -> None:
    import signal

    if previous is not None:
        with contextlib.suppress(ValueError):
            signal.signal(signal.SIGXFSZ, previous)


def _os_error_line(exc: OSError) -> str:
    """One line for an ``OSError``: what failed, on which file, why."""
    from stablefs._runtime.rundir import describe_os_error

    cause, fix = describe_os_error(exc)
    target = getattr(exc, "stablefs_target", None)
    if target is not None:
        return f"writing {target} failed: {cause}; {fix}, or write elsewhere."
    where = f" ({exc.filename})" if exc.filename else ""
    return f"{cause}{where}; {fix}."


def _sigterm_as_interrupt():
    """Make SIGTERM (``kill PID``, a batch system ending a job) take the Ctrl-C path: it raises
    :class:`KeyboardInterrupt` in the main thread, so finished fits are kept, the worker
    processes are ended and the exit status is 130. Returns the previous handler (``None`` when
    not in the main thread, where signal handlers cannot be set)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, interrupt)


def _restore_sigterm(previous) -> None:
    import signal

    if previous is not None:
        signal.signal(signal.SIGTERM, previous)


def _stop_workers() -> None:
    """End the worker processes of joblib's reusable loky executor at once (an interrupted
    run leaves no process behind). Nothing happens when no executor was started."""
    from stablefs._runtime.processes import kill_loky_workers

    kill_loky_workers()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
