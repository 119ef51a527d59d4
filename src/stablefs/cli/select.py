"""``stablefs select``: fit one method on all of the data and list the ranked features (with
``--resamples``, how often each is selected over random subsamples)."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import click

from stablefs._errors import StablefsError
from stablefs._runtime.escape import printable
from stablefs.cli._common import _check_seed, _load, _set_verbosity, echo_json
from stablefs.cli._options import (
    allow_huge_option,
    data_option_values,
    json_option,
    verbosity_options,
    with_data_options,
)

__all__ = ["select"]


@click.command()
@click.argument("data")
@click.option("-m", "--method", required=True, help="One method string, e.g. iw-relieff.")
@click.option("-k", "--size", "k", type=int, required=True, help="Number of features to select.")
@click.option("--resamples", type=int, default=0, show_default=True,
              help="Also fit on R random stratified 2/3 subsamples (R >= 2) and report each "
                   "feature's selection frequency in their top-k.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="CSV file for the full ranking [default: print the top k].")
@click.option("--prefilter", type=int, default=None, metavar="N",
              help="Keep the N features with the largest t-statistic (F for more than two "
                   "classes) for the selector, computed on the samples it is fitted on (all "
                   "of them, or each subsample); the others follow in the ranking in the "
                   "order of that statistic (as compare --prefilter).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seeds the subsamples, randomised methods and synthetic data.")
@click.option("--n-jobs", type=int, default=1, show_default=True,
              help="Parallel fits (-1 = all cores); results do not depend on it.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar [default: when stderr is a terminal; otherwise a line "
                   "every 30 s of a long wrapper search].")
@allow_huge_option
@with_data_options
@json_option
@verbosity_options
def select(data, method, k, resamples, out, prefilter, seed, n_jobs, progress, allow_huge,
           label, labels,
           transpose, layer, missing, drop_missing, drop_nominal, encode_nominal, scale, log2,
           annotation, as_json, quiet, verbose):
    """Fit METHOD on all of DATA and list the ranked features with their scores."""
    import numpy as np
    import pandas as pd

    from stablefs._runtime.escape import csv_text
    from stablefs._runtime.io import atomic_write_text
    from stablefs._validation import check_n_features_to_select
    from stablefs.evaluation.preprocessing import Preprocessing, expand_ranking
    from stablefs.evaluation.runner import check_n_jobs
    from stablefs.methods import check_method_sizes, make_selector

    _set_verbosity(quiet, verbose)
    _check_seed(seed)
    opts = data_option_values(label, labels, transpose, layer, missing, drop_missing,
                              drop_nominal, encode_nominal, scale, log2, annotation)
    if annotation is not None:
        from stablefs.datasets._annotation import check_annotation

        check_annotation(annotation)  # a missing or unreadable table: refused before any work
    if resamples < 0 or resamples == 1:
        raise StablefsError(f"--resamples must be 0 (none) or at least 2, not {resamples}.")
    if prefilter is not None and prefilter < 1:
        raise StablefsError(f"--prefilter must be a positive number of features, not "
                            f"{prefilter}.")
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
    prep = Preprocessing(prefilter=prefilter)
    prep.check(ds.n_features, [k])
    from stablefs.evaluation import budget

    members, largest = budget.method_members(method)
    budget.check_budget([budget.Part(f"the fit of {method}" + (
        f" ({largest} member fits)" if largest else ""), f"the repetitions in -m {method!r}",
        1, members)] + budget.comparison_parts(
        [method], resamples, n_samples=ds.n_samples, n_features=ds.n_features, n_sizes=1,
        n_classifiers=1, repeats_option="--resamples"), allow=allow_huge)
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
    _, _, keep = prep.apply(ds.X, ds.y, ds.X[:0])
    with _search_progress(steps, method):
        selector.fit(ds.X if keep is None else ds.X[:, keep], ds.y)
    if getattr(selector, "error_bound_", None) is not None and not quiet:
        click.echo(f"stability selection: {selector.stable_set_.size} features with selection "
                   f"probability >= {selector.threshold:g} (q = {selector.q_:.1f} of "
                   f"{ds.n_features}; expected false selections <= "
                   f"{selector.error_bound_:.3g}, Meinshausen and Buhlmann 2010)", err=True)
    ranking, scores = expand_ranking(np.asarray(selector.ranking_, dtype=np.int32),
                                     np.asarray(selector.scores_, dtype=np.float64), keep,
                                     ds.n_features, ds.X, ds.y)
    support = np.asarray(selector.support_, dtype=bool)
    if keep is not None:  # the selector saw the kept columns only
        support = np.zeros(ds.n_features, dtype=bool)
        support[keep] = selector.support_
    table = pd.DataFrame({"rank": ranking, "feature": ds.feature_names, "score": scores,
                          "selected": support})
    if ds.symbols is not None:
        table.insert(2, "symbol", ds.symbols)
    if resamples:
        from stablefs.evaluation.protocols import Protocol
        from stablefs.evaluation.runner import run_experiment

        res = run_experiment(ds.X, ds.y, [method], [k], protocol=Protocol("split", resamples),
                             classifiers=["1nn"], measures=["nogueira"],
                             feature_names=ds.feature_names, random_state=seed, n_jobs=n_jobs,
                             progress=progress, prefilter=prefilter)
        rankings = np.stack(res.selections["ranking"].to_list())
        freq = (rankings <= k).mean(axis=0)
        table["frequency"] = freq
        stab = res.stability.iloc[0]
        est, low, high = (float(stab[c]) for c in ("estimate", "low", "high"))
        click.echo(f"Nogueira stability of the top {k} over {resamples} subsamples: "
                   f"{est:.3f} [{low:.3f}, {high:.3f}] (95% interval; Nogueira, Sechidis and "
                   "Brown 2018, as compare reports it)", err=True)
    table = table.sort_values("rank").reset_index(drop=True)
    if out:
        atomic_write_text(Path(out), csv_text(table))
        if not quiet:
            click.echo(f"wrote {len(table)} ranked features to {printable(out)}", err=True)
    elif as_json:
        click.echo(printable(table.head(k).to_string(index=False)), err=True)
    else:
        from stablefs._runtime.escape import shorten

        shown = table.head(k).copy()
        for column in ("feature", "symbol"):  # a 100 kB name would pad every row
            if column in shown:
                shown[column] = shown[column].map(shorten)
        click.echo(printable(shown.to_string(index=False)))
    if as_json:
        top = table.head(k)
        payload = {"status": "ok", "exit_code": 0, "method": method, "k": k,
                   "out": None if out is None else str(out),
                   "features": [str(f) for f in top["feature"]],
                   "scores": [float(s) for s in top["score"]]}
        if "symbol" in top:
            payload["symbols"] = [str(s) for s in top["symbol"]]
        if resamples:
            payload["frequency"] = [float(f) for f in top["frequency"]]
            payload["stability"] = {"measure": "nogueira", "estimate": est, "low": low,
                                    "high": high, "resamples": resamples}
        echo_json(payload)


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
