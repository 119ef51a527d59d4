"""Run a reproducible experiment into an output folder (``stablefs reproduce``).

Order of work: check the configuration and the folder (nothing written yet), lock the folder,
compute (finished Monte-Carlo units are kept in ``.partial/<configuration key>/`` for a
resumed rerun), write every file, ``run.json`` last, and remove ``.partial``.
"""

from __future__ import annotations

import datetime as _dt
import json
import time
from pathlib import Path

import pandas as pd

from stablefs import __version__
from stablefs._errors import StablefsError
from stablefs.datasets._scale import raw_hint_off
from stablefs.experiments._base import Experiment, config_to_dict
from stablefs.experiments._montecarlo import TaskCache, units_backend
from stablefs.experiments._output import claims_frame, write_outcome

__all__ = ["RunSummary", "reproduce"]


class RunSummary:
    """What :func:`reproduce` returns: the folder, the claims, whether the run was reused."""

    def __init__(self, out_dir: Path, claims: pd.DataFrame, reused: bool, run_info: dict):
        self.out_dir = out_dir
        self.claims = claims
        self.reused = reused
        self.run_info = run_info


def _run_folder(path: Path, config: dict, force: bool):
    """The output folder's reuse / refuse / replace / resume logic and lock."""
    from stablefs._runtime.rundir import RunFolder

    return RunFolder(path, config, force=force)


def versions() -> dict:
    """The package versions of ``run.json`` (:func:`stablefs._runtime.versions.package_versions`)
    and matplotlib's, which draws the experiments' figures."""
    import matplotlib

    from stablefs._runtime.versions import package_versions

    return {**package_versions(), "matplotlib": matplotlib.__version__}


def check_n_jobs(n_jobs) -> int:
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0 or n_jobs < -1:
        raise StablefsError(
            f"--n-jobs {n_jobs}: use a positive number of workers, or -1 for all cores."
        )
    return n_jobs


def check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise StablefsError(f"--seed {seed}: the seed must be a whole number >= 0.")
    return seed


def reproduce(experiment: Experiment, config, out_dir, *, seed: int = 0, n_jobs: int = 1,
              progress: bool = False, force: bool = False, config_name: str = "default",
              command: str | None = None, figures: bool = True, backend: str = "loky",
              scheduler: str | None = None) -> RunSummary:
    """Run ``experiment`` with ``config`` into ``out_dir`` (or reuse a finished identical run).

    Parameters
    ----------
    experiment : Experiment
    config : the experiment's Config
    out_dir : path-like
    seed : int
        Seeds every Monte-Carlo unit (results do not depend on ``n_jobs``).
    n_jobs : int
        Worker processes (``-1``: all cores).
    progress : bool
        Progress bar on stderr.
    force : bool
        Replace a finished run of another configuration in ``out_dir``.
    config_name : str
        ``"default"``, ``"quick"`` or ``"custom"`` (recorded in ``run.json``).
    command : str, optional
        The command line (recorded in ``run.json`` and the report).
    figures : bool, default True
        Draw the figures (part of the run's configuration).
    backend : {"loky", "dask"}, default "loky"
        Where the Monte-Carlo units run: local worker processes, or a Dask cluster
        (:func:`~stablefs.experiments._montecarlo.units_backend`); the files are the same.
    scheduler : str, optional
        Dask scheduler address (with ``backend="dask"``; default: a local cluster of
        ``n_jobs`` workers).

    Returns
    -------
    RunSummary
    """
    experiment.check_config(config)
    seed = check_seed(seed)
    n_jobs = check_n_jobs(n_jobs)
    from stablefs.evaluation.runner import check_backend

    check_backend(backend, scheduler)
    cfg = config_to_dict(config)
    key_config = {"experiment": experiment.name, "config": cfg, "seed": seed,
                  "figures": bool(figures), "stablefs": __version__}
    folder = _run_folder(Path(out_dir), key_config, force)
    if folder.check() == "reuse":
        from stablefs._runtime.stored import check_table_size

        check_table_size(folder.path / "claims.csv")
        claims = pd.read_csv(folder.path / "claims.csv", dtype=str, keep_default_na=False)
        return RunSummary(folder.path, claims, True, folder.run_info or {})
    started = _dt.datetime.now().astimezone()
    t0 = time.perf_counter()
    with folder:
        cache = TaskCache(folder.partial / folder.key[:16])
        # the experiments use the values as the papers' authors stored them: the hint to add
        # --log2 (an option of compare and select, not of reproduce) would mislead here
        with units_backend(backend, n_jobs=n_jobs, scheduler=scheduler), raw_hint_off():
            outcome = experiment.run(config, seed=seed, n_jobs=n_jobs, progress=progress,
                                     cache=cache)
        elapsed = time.perf_counter() - t0
        run_info = {
            "tool": "stablefs", "experiment": experiment.name, "title": experiment.title,
            "citation": experiment.citation, "config_name": config_name, "config": cfg,
            "seed": seed, "n_jobs": n_jobs, "backend": backend,
            "scheduler": scheduler, "command": command,
            "started": started.isoformat(timespec="seconds"),
            "finished": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
            "wall_time_s": round(elapsed, 3), "timings_s": outcome.timings,
            "units_resumed": cache.hits,
            "versions": versions(), "config_key": folder.key,
        }
        write_outcome(folder.path, experiment, outcome, run_info, figures=figures)
        folder.complete()
    info = json.loads((folder.path / "run.json").read_text(encoding="utf-8"))
    return RunSummary(folder.path, claims_frame(outcome.claims), False, info)
