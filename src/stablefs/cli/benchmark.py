"""The ``stablefs benchmark`` command (registered on the main group in :mod:`stablefs.cli`).

Every option is checked, and every data set loaded, before the output folder is touched;
bad input raises :class:`~stablefs.StablefsError` (one line; exit status 2, or 3 for data). The
grid itself is :mod:`stablefs.evaluation.benchmark`, its files
:mod:`stablefs.evaluation.benchmark_outputs`.
"""

from __future__ import annotations

import datetime as _dt
import logging
import sys
import time
from pathlib import Path

import click

from stablefs._errors import StablefsError
from stablefs.cli._common import REUSED, echo_json
from stablefs.cli._options import allow_huge_option, json_option, scheduler_options

__all__ = ["benchmark"]


def _fmt_seconds(seconds: float) -> str:
    """``~12 s``, ``~4 min``, ``~1.5 h``: compare's duration format, as an estimate."""
    from stablefs.comparison._trust import _fmt_s

    return "~" + _fmt_s(max(1.0, seconds))


def _sources(sets_opt: str | None, files, quick: bool, n_quick: int):
    from stablefs.cli._common import split_list
    from stablefs.datasets._registry import entries, entry_for, search_dirs
    from stablefs.evaluation.benchmark import local_registry_sets, smallest_sets

    out: list[tuple[str, bool]] = []
    if sets_opt is not None:
        names = split_list(sets_opt)
        if not names:
            raise StablefsError("--sets is empty: name registry sets, e.g. --sets alon,golub, "
                                "or 'all' ('stablefs datasets' lists them).")
        if [n.lower() for n in names] == ["all"]:
            names = [e.name for e in entries()]
        seen = []
        for n in names:
            name = entry_for(n).name  # unknown names fail here, with close matches
            if name not in seen:
                seen.append(name)
        out += [(n, True) for n in seen]
    out += [(str(f), True) for f in files]
    if not out:
        local = local_registry_sets()
        if quick:
            local = smallest_sets(local, n_quick)
        if not local:
            where = ", ".join(str(d) for d in search_dirs())
            raise StablefsError(
                f"no registry data set has a local copy (searched {where}): name sets with "
                "--sets alon,golub (downloaded on first use), set STABLEFS_DATA, or give data "
                "files.")
        out = [(n, False) for n in local]
    return out


def _load_one(source, entry, seed, _load, load, inputs):
    """One set as the grid loads it: ``(dataset, name, label)``; file sha256s into
    ``inputs``."""
    from stablefs.evaluation.benchmark import set_key

    if entry is not None:
        return load(entry.name), entry.name, entry.label
    ds = _load(source, {}, seed)
    name = set_key(Path(source).name.split(".")[0] if Path(source).exists() else source)
    if Path(source).is_file():
        from stablefs._runtime.rundir import file_sha256

        inputs[name] = file_sha256(source)  # by content: the same file elsewhere is reused
    return ds, name, ds.name


def _load_sets(sources, *, seed: int):
    """``(name, label, source, dataset or None, reason, inputs)`` per source; a named set that
    cannot be loaded raises, a discovered one is returned with its reason."""
    from stablefs.cli._common import _load
    from stablefs.datasets import REGISTRY, load
    from stablefs.datasets._scale import raw_hint_off
    from stablefs.evaluation.benchmark import set_key

    loaded, used = [], set()
    for source, named in sources:
        key = source.strip().lower()
        entry = REGISTRY.get(key) if not Path(source).exists() else None
        inputs: dict = {}
        try:
            with raw_hint_off():  # log2_hook applies log2 to raw sets and says so
                ds, name, label = _load_one(source, entry, seed, _load, load, inputs)
            reason = None
        except StablefsError as exc:
            if named:
                raise
            ds, reason = None, str(exc).rstrip(".")
            name = label = entry.name if entry is not None else set_key(source)
        base, i = name, 2
        while name in used:
            name, i = f"{base}-{i}", i + 1
        used.add(name)
        loaded.append((name, label, source, ds, reason, inputs))
    return loaded


def _plan_text(sets, methods, proto, classifiers, sizes) -> str:
    lines = [f"benchmark: {sum(b.included for b in sets)} data sets x {len(methods)} methods; "
             f"{proto.describe()}; k = {', '.join(map(str, sizes))}; classifiers "
             f"{', '.join(classifiers)}"]
    width = max(len(b.label) for b in sets)
    for b in sets:
        shape = (f"{b.dataset.n_samples} x {b.dataset.n_features}" if b.dataset is not None
                 else "?")
        if b.included:
            lines.append(f"  {b.label:<{width}}  {shape:>11}  " + "; ".join(b.preparation))
        else:
            lines.append(f"  {b.label:<{width}}  {shape:>11}  left out: {b.excluded}")
    return "\n".join(lines)


def _permutation_text(estimate) -> str:
    """The permutation tests' share of the estimate, when they run."""
    perm = float(estimate["permutation_seconds"].sum())
    return f" (permutation tests up to {_fmt_seconds(perm)} of it)" if perm > 0 else ""


def _estimate_text(pilot, estimate, workers: int, done: dict, backend: str, scheduler) -> str:
    import pandas as pd

    lines = []
    failed = pilot[pilot["error"] != ""]
    for r in failed.itertuples(index=False):
        lines.append(f"  left out: {r.method} on {r.set} (its pilot fit failed: {r.error})")
    if done:
        lines.append(f"  finished in an earlier run (fits reused): {', '.join(done)}")
    if len(estimate):
        from stablefs.evaluation.benchmark import FINAL_OVERHEAD_S

        total = float(estimate["seconds"].sum()) + FINAL_OVERHEAD_S
        ok = pilot[pilot["error"] == ""]
        slow = ok.sort_values("seconds", ascending=False).head(3)
        slow_text = ", ".join(f"{r.method} on {r.set} {r.seconds:.2f} s" for r in
                              slow.itertuples(index=False))
        where = (f"on the Dask cluster at {scheduler}" if scheduler else
                 f"with {workers} {'Dask ' if backend == 'dask' else ''}worker(s)")
        lines.insert(0, f"pilot fits: {len(ok)} cells timed in {ok['seconds'].sum():.1f} s "
                        f"(slowest per fit: {slow_text}); estimated wall time "
                        f"{_fmt_seconds(total)} {where}, "
                        f"{int(estimate['fits'].sum())} fits" + _permutation_text(estimate))
        per = pd.Series(estimate["seconds"].to_numpy(), index=estimate["set"])
        lines.append("  per set: " + ", ".join(f"{s} {_fmt_seconds(v)}" for s, v in
                                              per.items()))
    elif not done:
        lines.insert(0, "pilot fits: nothing to run")
    return "\n".join(lines)


def summary_text(cells, ranks, friedman, methods, sizes) -> str:
    """The overall ranking at the headline k, and the sets × methods tables of stability and
    the first accuracy there (what a finished or reused run prints)."""
    import pandas as pd

    from stablefs.report.leaderboard import headline_k
    from stablefs.report.summary import format_p

    if not len(cells):
        return "no cell was computed."
    k = headline_k(sizes)
    if k not in set(cells["k"]):
        k = int(sorted(cells["k"].unique())[-1])
    measures = list(pd.unique(cells["measure"]))
    lines = []
    overall = ranks[(ranks["scope"] == "overall") & (ranks["k"] == k)]
    if len(overall):
        t = overall.pivot_table(index="method", columns="measure", values="rank",
                                aggfunc="first", sort=False)
        t = t.reindex(index=[m for m in methods if m in t.index],
                      columns=[q for q in measures if q in t.columns])
        t = t.sort_values(t.columns[0])
        lines.append(f"mean rank over the data sets at k = {k} (1 = best)\n"
                     + t.to_string(float_format=lambda v: f"{v:.2f}"))
        f = friedman[friedman["k"] == k]
        for r in f.itertuples(index=False):
            lines.append(f"  {r.measure}: {r.test} p {format_p(r.p_value)} over {r.n_sets} sets"
                         + (f", Nemenyi CD = {r.cd_nemenyi:.2f}" if r.cd_nemenyi == r.cd_nemenyi
                            else ""))
    for q in measures[:2]:
        t = cells[(cells["k"] == k) & (cells["measure"] == q)].pivot_table(
            index="set", columns="method", values="estimate", aggfunc="first", sort=False)
        t = t.reindex(columns=[m for m in methods if m in t.columns])
        lines.append(f"\n{q} at k = {k} (rows: data set, columns: method)\n"
                     + t.to_string(float_format=lambda v: f"{v:.3f}"))
    return "\n".join(lines)


@click.command()
@click.argument("files", nargs=-1, metavar="[FILE]...")
@click.option("--quick", is_flag=True,
              help="A few minutes on two cores: the 3 smallest sets available, methods ttest, "
                   "relieff, iw-relieff, en-relieff, svm-rfe, simba, 20 splits, k = 10,50, "
                   "pre-filter 1000 (options given explicitly override these).")
@click.option("--sets", "sets_opt", default=None, metavar="A,B",
              help="Registry sets (names or aliases; 'all' for the 16), downloaded when missing "
                   "[default: every registry set with a local copy].")
@click.option("-m", "--methods", default=None,
              help="Comma-separated method strings [default: ttest, relieff, iw-relieff, "
                   "en-relieff, svm-rfe, iw-svm-rfe, simba, drags, wen-logistic-margin, rf, "
                   "stabsel, l1-logistic, enet-logistic].")
@click.option("-k", "--sizes", default=None,
              help="Subset sizes, e.g. 10,20,50 or 10:50:10 [default: 10,20,50,100]; sizes a "
                   "set cannot give are left out for that set.")
@click.option("--protocol", default="split", show_default=True,
              help="Resampling protocol, as for 'stablefs compare' (split, cv, subsample, ...).")
@click.option("--repeats", type=int, default=None,
              help="Number of splits, subsamples or bootstraps [default: 50; --quick 20], or "
                   "of k-fold repeats [default: the protocol's].")
@click.option("--classifiers", default="svm,1nn", show_default=True,
              help="Classifiers whose balanced accuracy is measured on each subset.")
@click.option("--prefilter", type=int, default=None, metavar="N",
              help="Keep the N features with the largest t-statistic on each training part of "
                   "sets with more than 5000 features; 0 = never [default: 2000].")
@click.option("--out", type=click.Path(), default=None,
              help="Output folder [default: ./stablefs-benchmark]. The same command with the "
                   "same folder reuses a finished run or resumes an interrupted one.")
@click.option("--force", is_flag=True,
              help="Replace a finished run of another configuration in the output folder.")
@click.option("--n-jobs", type=int, default=1, show_default=True,
              help="Parallel fits (-1 = all cores). Results do not depend on it.")
@click.option("--backend", type=click.Choice(["loky", "dask"]), default="loky", show_default=True,
              help="Where the fits run: local processes, or a Dask cluster.")
@scheduler_options("a local cluster of --n-jobs workers")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seeds the resamples and every randomised method.")
@click.option("--permutations", type=int, default=100, show_default=True, metavar="N",
              help="Permutation test of each set's procedure, labels permuted, every selector "
                   "refitted on 3 resamples and the choice of (method, k) repeated (as "
                   "'stablefs compare'); 0 skips it "
                   "(the majority-class baselines are always reported).")
@click.option("--no-report", is_flag=True,
              help="Skip each set's report.html/report.md (the leaderboard is still written).")
@click.option("--dry-run", is_flag=True,
              help="Load the sets, time one pilot fit per cell and print the plan and the "
                   "time estimate; write nothing.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar [default: when stderr is a terminal].")
@click.option("-q", "--quiet", is_flag=True, help="Only errors and the results.")
@click.option("-v", "--verbose", count=True, help="More messages (-vv for debug).")
@json_option
@allow_huge_option
def benchmark(files, quick, sets_opt, methods, sizes, protocol, repeats, classifiers, prefilter,
              out, force, n_jobs, backend, scheduler, scheduler_timeout, seed, permutations,
              no_report, dry_run, progress, quiet, verbose, as_json, allow_huge):
    """Rank feature-selection methods over many data sets: stability and accuracy of every
    method on every set under one protocol, with Friedman and post-hoc tests (Demšar 2006).

    Writes cells.csv, ranks.csv, friedman.csv, sets.csv, timing.csv, leaderboard.html,
    figures/, cells/SET/ (each set's comparison report) and run.json into the output folder.
    FILEs are data files or synthetic specs, as for 'stablefs compare'.
    """
    from stablefs import __version__
    from stablefs._runtime.rundir import RunFolder
    from stablefs.cli._common import (
        _check_seed,
        _command_line,
        _set_verbosity,
        _versions,
        parse_sizes,
        split_list,
    )
    from stablefs.evaluation import benchmark as bm
    from stablefs.evaluation.classifiers import check_classifiers
    from stablefs.evaluation.protocols import Protocol
    from stablefs.evaluation.ranks import check_rank_libraries
    from stablefs.evaluation.runner import _method_templates, check_backend, check_n_jobs

    t_start = time.perf_counter()
    _set_verbosity(quiet, verbose)
    # --- every option is checked before any data is read and before --out is touched
    _check_seed(seed)
    check_n_jobs(n_jobs)
    if repeats is not None and repeats < 2:
        raise StablefsError(f"--repeats must be at least 2 (stability compares resamples), "
                            f"not {repeats}.")
    if permutations < 0:
        raise StablefsError(f"--permutations must be 0 (no test) or more, not {permutations}.")
    if prefilter is not None and prefilter < 0:
        raise StablefsError(f"--prefilter must be 0 (never) or a number of features, not "
                            f"{prefilter}.")
    kind = str(protocol).strip().lower().partition(":")[0]
    if repeats is None and kind in ("split", "splits", "subsample", "subsampling", "bootstrap"):
        repeats = bm.QUICK["repeats"] if quick else bm.DEFAULT_REPEATS
    proto = Protocol.parse(protocol, repeats)
    method_list = (split_list(methods) if methods is not None else
                   list(bm.QUICK["methods"]) if quick else bm.default_methods())
    _method_templates(method_list)
    classifier_list = list(check_classifiers(split_list(classifiers)))
    size_list = (parse_sizes(sizes, 10**9) if sizes is not None else
                 list(bm.QUICK["sizes"]) if quick else list(bm.DEFAULT_SIZES))
    prefilter_n = (prefilter if prefilter is not None else
                   bm.QUICK["prefilter"] if quick else bm.PREFILTER)
    out_dir = Path(out) if out else Path("stablefs-benchmark-quick" if quick
                                         else "stablefs-benchmark")
    RunFolder(out_dir, {}).check_path()
    check_backend(backend, scheduler, scheduler_timeout)
    check_rank_libraries()
    sources = _sources(sets_opt, files, quick, bm.QUICK["n_sets"])
    # --- the data: loaded and prepared before any fit
    sets = []
    loaded = _load_sets(sources, seed=seed)
    from stablefs.comparison._stages import more_permutations_hint
    from stablefs.evaluation import budget
    from stablefs.evaluation.permutation import DEFAULT_PERMUTATION_RESAMPLES, p_value_floor

    # the counts bound the work and memory before a resample is drawn (--allow-huge)
    budget.check_budget([part for _, _, _, ds, _, _ in loaded if ds is not None
                         for part in budget.comparison_parts(
                             method_list, (proto.n_resamples or ds.n_samples)
                             + proto.has_reference, n_samples=ds.n_samples,
                             n_features=ds.n_features, n_sizes=len(size_list),
                             n_classifiers=len(classifier_list), permutations=permutations,
                             permutation_resamples=DEFAULT_PERMUTATION_RESAMPLES)],
                        allow=allow_huge)
    for name, label, source, ds, reason, inputs in loaded:
        if ds is None:
            sets.append(bm.BenchmarkSet(name=name, label=label, source=source,
                                        excluded=reason))
            continue
        sets.append(bm.prepare_set(ds, name, label, sizes=size_list, protocol=proto,
                                   seed=seed, prefilter=prefilter_n or None, source=source,
                                   inputs=inputs))
    if not any(b.included for b in sets):
        raise StablefsError("every data set is left out: " + "; ".join(
            f"{b.name}: {b.excluded}" for b in sets))
    config = {
        "sets": [b.config() for b in sets], "methods": method_list, "sizes": size_list,
        "protocol": proto.__dict__, "classifiers": classifier_list,
        "measures": list(bm.MEASURES), "seed": seed, "prefilter": prefilter_n,
        "prefilter_above": bm.PREFILTER_ABOVE, "report": not no_report,
        "permutations": permutations, "stablefs": __version__,
    }
    folder = RunFolder(out_dir, config, force=force)
    if not dry_run and folder.check() == "reuse":
        from stablefs.evaluation.benchmark_outputs import read_benchmark

        if not quiet:
            click.echo(f"{out_dir} holds this finished benchmark (same configuration): "
                       f"{REUSED}", err=True)
        t = read_benchmark(out_dir)
        click.echo(summary_text(t["cells"], t["ranks"], t["friedman"], method_list,
                                size_list), err=as_json)
        if as_json:
            echo_json(_json_summary(out_dir, t, reused=True))
        return
    if progress is None:
        progress = sys.stderr.isatty() and not quiet
    echo = (lambda line: None) if quiet else (lambda line: click.echo(line, err=True))
    echo(_plan_text(sets, method_list, proto, classifier_list, size_list))
    floor = p_value_floor(permutations) if permutations else ""
    if floor:  # before any fit: no set's test can succeed
        logging.getLogger("stablefs").warning(
            f"{floor}, so no set's permutation test can show evidence of signal "
            f"({more_permutations_hint()}).")
    workers = check_n_jobs(n_jobs)
    done = bm.finished_sets(sets, method_list, protocol=proto, classifiers=classifier_list,
                            seed=seed, cache_dir=folder.partial)
    t_pilot = time.perf_counter()
    pilot = bm.pilot_fits(sets, method_list, protocol=proto, classifiers=classifier_list,
                          seed=seed, n_jobs=n_jobs, skip=list(done))
    pilot_s = time.perf_counter() - t_pilot
    n_res = {b.name: len(proto.resamples(b.dataset.y, seed)) for b in sets if b.included}
    estimate = bm.estimate_seconds(pilot, n_res, workers, report=not no_report,
                                   n_classifiers=len(classifier_list),
                                   permutations=permutations,
                                   permutation_resamples=DEFAULT_PERMUTATION_RESAMPLES)
    echo(_estimate_text(pilot, estimate, workers, done, backend, scheduler))
    if dry_run:
        echo("dry run: nothing written.")
        return
    started = _dt.datetime.now().astimezone()
    t0 = time.perf_counter()
    links: dict[str, str] = {}
    written: list = []
    run_base = {
        "command": _command_line(), "protocol": proto.describe(),
        "protocol_config": proto.__dict__, "classifiers": classifier_list,
        "measures": list(bm.MEASURES), "seed": seed, "versions": _versions(),
    }

    def on_set(bset, result):
        from stablefs.evaluation.benchmark_outputs import write_set

        ds = bset.dataset
        info = dict(run_base, data=bset.label, source=bset.source, n_samples=ds.n_samples,
                    n_features=ds.n_features, classes=ds.class_counts(),
                    methods=list(pd_unique(result.stability["method"])), sizes=bset.sizes,
                    preparation=bset.preparation, benchmark=str(out_dir))
        for p in write_set(out_dir, bset, result, info, report=not no_report).values():
            written.extend(p if isinstance(p, list | tuple) else [p])
        if not no_report:
            links[bset.name] = f"cells/{bset.name}/report.html"

    from contextlib import nullcontext

    from stablefs.comparison._trust import set_signal
    from stablefs.evaluation.permutation import DEFAULT_PERMUTATION_RESAMPLES

    with folder:
        cluster = (bm.dask_cluster(workers) if backend == "dask" and not scheduler
                   else nullcontext(scheduler))
        with cluster as address:
            bres = bm.run_benchmark(sets, method_list, protocol=proto,
                                    classifiers=classifier_list, seed=seed, n_jobs=n_jobs,
                                    backend=backend, scheduler=address,
                                    cache_dir=folder.partial, pilot=pilot, progress=progress,
                                    on_set=on_set, log=echo)
            signal = {}
            for b in sets:
                if b.name not in bres.results:
                    continue
                if permutations:
                    echo(f"{b.name}: permutation test of the procedure (up to "
                         f"{permutations} permutations x {DEFAULT_PERMUTATION_RESAMPLES} "
                         "resamples x every method, the choice repeated)")
                signal[b.name] = set_signal(
                    bres.results[b.name], b.dataset.X, b.dataset.y,
                    proto.resamples(b.dataset.y, seed), protocol=proto,
                    methods=method_list, sizes=b.sizes, n_permutations=permutations,
                    n_resamples=DEFAULT_PERMUTATION_RESAMPLES, seed=seed, n_jobs=n_jobs,
                    backend=backend, scheduler=address,
                    cache_dir=folder.partial / "permutation" / b.name, prefilter=b.prefilter)
        elapsed = time.perf_counter() - t0
        run_info = dict(run_base)
        run_info.update({
            "sets": [{"name": b.name, "label": b.label, "source": b.source,
                      "n_samples": b.dataset.n_samples if b.dataset is not None else None,
                      "n_features": b.dataset.n_features if b.dataset is not None else None,
                      "classes": b.classes(), "sizes": b.sizes, "prefilter": b.prefilter,
                      "preparation": b.preparation, "excluded": b.excluded} for b in sets],
            "methods": method_list, "sizes": size_list, "prefilter": prefilter_n,
            "prefilter_above": bm.PREFILTER_ABOVE, "quick": quick, "report": not no_report,
            "n_jobs": n_jobs, "backend": backend, "scheduler": scheduler,
            "fits_reused": bres.info["fits_reused"],
            "fits_computed": bres.info["fits_computed"],
            "pilot_seconds": round(pilot_s, 3),
            "estimated_seconds": round(float(estimate["seconds"].sum())
                                       + bm.FINAL_OVERHEAD_S, 1),
            "set_seconds": {k: round(v, 3) for k, v in bres.info["seconds"].items()},
            "started": started.isoformat(timespec="seconds"),
            "finished": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
            "wall_time_s": round(time.perf_counter() - t_start, 3),
            "config": config, "config_key": folder.key,
        })
        from stablefs.evaluation.benchmark_outputs import read_benchmark, write_benchmark

        paths = write_benchmark(bres, out_dir, run_info, methods=method_list,
                                classifiers=classifier_list, links=links, signal=signal,
                                seed=seed, written=written)
        folder.complete()
    t = read_benchmark(out_dir)
    click.echo(summary_text(t["cells"], t["ranks"], t["friedman"], method_list, size_list),
               err=as_json)
    if as_json:
        echo_json(_json_summary(out_dir, t, reused=False))
    reused = bres.info["fits_reused"]
    note = f" (resumed: {reused} fits reused)" if reused else ""
    echo(f"\nwall time {time.perf_counter() - t_start:.1f} s (pilot fits {pilot_s:.1f} s, "
         f"sets {elapsed:.1f} s){note}; wrote "
         + ", ".join(sorted(Path(p).name for k, p in paths.items() if not isinstance(p, list)))
         + f", figures/, cells/ in {out_dir}/")


def _json_summary(out_dir: Path, tables: dict, *, reused: bool) -> dict:
    """What ``--json`` prints: the folder and its files, the sets and methods, and the mean
    ranks per measure at every k (1 = best)."""
    import json

    info = json.loads((out_dir / "run.json").read_text(encoding="utf-8"))
    ranks = tables["ranks"]
    return {"status": "ok", "exit_code": 0, "out": str(out_dir), "reused": reused,
            "files": info.get("files", []),
            "sets": [s["name"] for s in info.get("sets", []) if not s.get("excluded")],
            "methods": info.get("methods", []),
            "ranks": ranks.to_dict(orient="records") if ranks is not None else []}


def pd_unique(values):
    import pandas as pd

    return pd.unique(values)
