"""The ``stablefs reproduce`` and ``stablefs experiments`` commands.

Registered on the main group in :mod:`stablefs.cli`. Every option is checked before any work
and before the output folder is touched; bad input raises :class:`~stablefs.StablefsError`
(one line; exit status 2, or 4 for an unreachable scheduler).
"""

from __future__ import annotations

import dataclasses
import sys
import textwrap

import click

from stablefs.cli._options import allow_huge_option, scheduler_options
from stablefs.cli._shell import shell_join

#: runs expected to take longer than this get a line on how to shorten them
_LONG_RUN_SECONDS = 12 * 3600

__all__ = ["experiments", "reproduce"]


def _fmt_time(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    if seconds < 90:
        return f"~{max(1, round(seconds))} s"
    if seconds < 5400:
        return f"~{round(seconds / 60)} min"
    if seconds < 2 * 86400:
        return f"~{seconds / 3600:.1f} h"
    return f"~{round(seconds / 86400):,} days"


@click.command()
def experiments():
    """List the experiments of the papers that 'stablefs reproduce NAME' runs."""
    from stablefs.experiments import EXPERIMENTS

    for exp in EXPERIMENTS.values():
        default, quick = exp.default_config(), exp.quick_config()
        click.echo(f"{exp.name}  ({exp.citation})\n  {exp.title}")
        click.echo(f"  default: {exp.sizes(default)}; "
                   f"{_fmt_time(exp.estimate_seconds(default, 2))} on 2 cores")
        click.echo(f"  --quick: {exp.sizes(quick)}; "
                   f"{_fmt_time(exp.estimate_seconds(quick, 2))} on 2 cores")
        names = ", ".join(f.name for f in dataclasses.fields(exp.Config))
        click.echo(textwrap.fill(f"settings (--set KEY=VALUE): {names}", width=92,
                                 initial_indent="  ", subsequent_indent="    "))
    click.echo("\nRun one with: stablefs reproduce NAME [--quick] [--out DIR] [--n-jobs N]")


@click.command()
@click.argument("experiment")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Output folder [default: ./stablefs-reproduce-EXPERIMENT]. Rerun with the "
                   "same folder to resume an interrupted run.")
@click.option("--quick", is_flag=True,
              help="A smaller configuration (fewer training sets, coarser grids) that runs in "
                   "a few minutes; see 'stablefs experiments'.")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Change one setting of the configuration, e.g. --set n_sets=100 "
                   "(repeatable; lists as 50,100,200).")
@click.option("--n-jobs", type=int, default=1, show_default=True,
              help="Parallel workers (-1 = all cores). Results do not depend on it.")
@click.option("--backend", type=click.Choice(["loky", "dask"]), default="loky", show_default=True,
              help="Where the Monte-Carlo units run: local processes, or a Dask cluster. "
                   "Results do not depend on it.")
@scheduler_options("a local cluster of --n-jobs workers")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of every random draw (training sets, test set, bootstrap).")
@click.option("--force", is_flag=True,
              help="Replace a finished run of another configuration in the output folder.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar [default: when stderr is a terminal].")
@click.option("-q", "--quiet", is_flag=True, help="Only errors and the claims table.")
@allow_huge_option
def reproduce(experiment, out, quick, overrides, n_jobs, backend, scheduler, scheduler_timeout,
              seed, force, progress, quiet, allow_huge):
    """Run EXPERIMENT, a named experiment of a paper, and check the paper's claims.

    Writes claims.csv (the paper's statement, our numbers, the verdict), tables/*.csv,
    figures/*.png and *.svg, report.md, report.html and run.json into the output folder.
    'stablefs experiments' lists the names.
    """
    from pathlib import Path

    from stablefs.evaluation.runner import check_backend
    from stablefs.experiments import get_experiment
    from stablefs.experiments import reproduce as run
    from stablefs.experiments._base import config_from, parse_overrides
    from stablefs.experiments._output import default_out, summary_text
    from stablefs.experiments._run import check_n_jobs, check_seed

    exp = get_experiment(experiment)
    check_n_jobs(n_jobs)
    check_seed(seed)
    check_backend(backend, scheduler, scheduler_timeout)
    base = exp.quick_config() if quick else exp.default_config()
    changes = parse_overrides(exp.Config, overrides)
    config = config_from(base, changes)
    exp.check_config(config)
    from stablefs.evaluation import budget

    # the experiment's own estimate from its sizes, before any unit runs (--allow-huge)
    budget.check_wall_time(exp.estimate_seconds(config, budget.usable_cores()) or 0.0,
                           f"{exp.name} with {exp.sizes(config)}",
                           "lower the sizes given with --set", allow=allow_huge)
    name = ("quick, custom" if quick else "custom") if changes else (
        "quick" if quick else "default")
    out_dir = Path(out) if out else default_out(exp.name)
    if progress is None:
        progress = sys.stderr.isatty() and not quiet
    if not quiet:
        est = exp.estimate_seconds(config, n_jobs)
        where = (f"on the Dask cluster at {scheduler}" if scheduler else
                 f"with {n_jobs} {'Dask ' if backend == 'dask' else ''}worker(s)")
        expected = "" if scheduler else f"expected {_fmt_time(est)} "
        click.echo(f"{exp.citation}: {exp.title}\n{name} configuration: {exp.sizes(config)}; "
                   f"{expected}{where}; output {out_dir}", err=True)
        if est is not None and est > _LONG_RUN_SECONDS:
            full = "This is the paper's full setting. " if name == "default" else ""
            click.echo(f"{full}The run resumes where it stopped when the same command is run "
                       "again; for a shorter run use --quick, --set (see 'stablefs "
                       "experiments') or more --n-jobs.", err=True)
    # the canonical command that reproduces these files (n-jobs never changes them)
    parts = ["stablefs", "reproduce", exp.name] + (["--quick"] if quick else [])
    parts += [f"--set={o}" for o in overrides] + [f"--seed={seed}", f"--out={out_dir}"]
    command = shell_join(parts)
    summary = run(exp, config, out_dir, seed=seed, n_jobs=n_jobs, progress=progress,
                  force=force, config_name=name, command=command, backend=backend,
                  scheduler=scheduler)
    if summary.reused and not quiet:
        click.echo(f"{out_dir} holds a finished run of this configuration: nothing recomputed "
                   "(use another --out, or --force with another configuration).", err=True)
    click.echo(summary_text(summary.claims, quick=quick))
    if not quiet:
        wall = summary.run_info.get("wall_time_s")
        took = f"wall time {wall:.1f} s; " if isinstance(wall, int | float) else ""
        click.echo(f"\n{took}report: {out_dir / 'report.html'} (also report.md, claims.csv, "
                   "tables/, figures/)", err=True)
