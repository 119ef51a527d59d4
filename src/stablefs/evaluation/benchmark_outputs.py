"""Writing a benchmark to disk (``stablefs benchmark --out DIR``).

* ``cells/<set>/``: each set's comparison, the files of ``stablefs compare`` (``results.csv``,
  ``stability.csv``, ``selections.parquet``, ``report.html``, ...), written as soon as the
  set finishes;
* ``cells.csv``: ``set, method, k, measure, estimate, low, high``;
* ``ranks.csv`` and ``friedman.csv``: :func:`stablefs.evaluation.ranks.rank_tables`;
* ``sets.csv``: each set's shape, classes, chance level, preparation, and why it was left out;
* ``timing.csv``: mean seconds per fit of each cell and its pilot fit (timings, unlike every
  other table, vary from run to run);
* ``leaderboard.html`` and ``figures/``: :func:`stablefs.report.leaderboard.write_leaderboard`;
* ``run.json`` last: it marks the run as finished.

Every file is written atomically.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from stablefs._runtime.io import atomic_write_text
from stablefs.evaluation.benchmark import ALPHA, MEASURES, BenchmarkResult, BenchmarkSet
from stablefs.evaluation.outputs import read_csv, write_csv

__all__ = ["SETS_COLUMNS", "read_benchmark", "sets_table", "write_benchmark", "write_set"]

SETS_COLUMNS = ["set", "label", "source", "n_samples", "n_features", "classes", "status",
                "reason", "prefilter", "sizes", "log2", "methods_left_out",
                "chance_balanced_accuracy", "majority_accuracy", "preparation"]


def write_set(out_dir, bset: BenchmarkSet, result, run_info: Mapping, *, report: bool = True
              ) -> dict:
    """Write one set's comparison into ``<out_dir>/cells/<set>/`` (the files of
    ``stablefs compare``) and ``preparation.json`` (how the set was prepared).

    ``preparation.json`` is written first, by an atomic write that creates the set's folder,
    so that an output folder that keeps a journal of what a run wrote records the folder too.
    """
    from stablefs.evaluation.outputs import save_result

    ds = bset.dataset
    assert ds is not None  # a prepared set holds its data
    where = Path(out_dir) / "cells" / bset.name
    prep = atomic_write_text(where / "preparation.json", json.dumps(
        {"set": bset.name, "label": bset.label, "source": bset.source, "sizes": bset.sizes,
         "prefilter": bset.prefilter, "log2": bset.log2, "preparation": bset.preparation},
        indent=2))
    paths = save_result(result, where, dict(run_info), report=report, X=ds.X, y=ds.y,
                        feature_names=ds.feature_names)
    return {"preparation.json": prep, **paths}


def sets_table(bres: BenchmarkResult, signal: Mapping[str, dict] | None = None) -> pd.DataFrame:
    """One row per set (:data:`SETS_COLUMNS`): the chance level of balanced accuracy is
    1 / number of classes (what a constant or a random prediction scores); the majority-class
    accuracy is the largest class's share (what always predicting it scores)."""
    rows = []
    status = bres.status
    for b in bres.sets:
        counts = b.classes()
        n = sum(counts.values())
        left = status[(status["set"] == b.name) & (status["status"] == "excluded")]
        row = {
            "set": b.name, "label": b.label, "source": b.source,
            "n_samples": b.dataset.n_samples if b.dataset is not None else None,
            "n_features": b.dataset.n_features if b.dataset is not None else None,
            "classes": ", ".join(f"{c} {v}" for c, v in counts.items()),
            "status": "included" if b.included else "excluded",
            "reason": b.excluded or "",
            "prefilter": b.prefilter,
            "sizes": ";".join(map(str, b.sizes)),
            "log2": b.log2,
            "methods_left_out": "; ".join(f"{m} ({r})" for m, r in
                                          zip(left["method"], left["reason"])),
            "chance_balanced_accuracy": 1.0 / len(counts) if counts else float("nan"),
            "majority_accuracy": max(counts.values()) / n if counts else float("nan"),
            "preparation": "; ".join(b.preparation),
        }
        row.update((signal or {}).get(b.name, {}))
        rows.append(row)
    out = pd.DataFrame(rows, columns=list(dict.fromkeys(
        SETS_COLUMNS + [c for r in rows for c in r])))
    for col in ("n_samples", "n_features", "prefilter"):  # whole numbers, empty when none
        out[col] = out[col].astype("Int64")
    return out


def write_benchmark(bres: BenchmarkResult, out_dir, run_info: dict, *, methods: Sequence[str],
                    classifiers: Sequence[str], links: Mapping[str, str] | None = None,
                    signal: Mapping[str, dict] | None = None, seed: int = 0,
                    written: Sequence = ()) -> dict[str, object]:
    """Write the tables, the figures, the page and ``run.json`` (last).

    ``run.json`` names stablefs (``"tool"``) and lists every file the run wrote (``"files"``,
    POSIX paths relative to ``out_dir``): these, the per-set files given as ``written``, and
    itself; a later ``--force`` deletes exactly those.
    """
    from stablefs.evaluation.ranks import nemenyi_pvalues, rank_tables
    from stablefs.report.leaderboard import write_leaderboard

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    measures = list(MEASURES) + [f"balanced_accuracy_{c}" for c in classifiers]
    ranks, friedman = rank_tables(bres.cells, measures, alpha=ALPHA, seed=seed)
    table = sets_table(bres, signal)
    paths: dict[str, object] = {
        "cells.csv": write_csv(bres.cells, out_dir / "cells.csv"),
        "ranks.csv": write_csv(ranks, out_dir / "ranks.csv"),
        "friedman.csv": write_csv(friedman, out_dir / "friedman.csv"),
        "sets.csv": write_csv(table, out_dir / "sets.csv"),
        "timing.csv": write_csv(bres.timing, out_dir / "timing.csv"),
    }
    ran = [m for m in methods if (bres.status["method"] == m).any()] or list(methods)
    paths.update(write_leaderboard(out_dir, cells=bres.cells, ranks=ranks, friedman=friedman,
                                   sets_table=table, timing=bres.timing, run_info=run_info,
                                   methods=ran, measures=measures, links=links, alpha=ALPHA,
                                   pairwise_pvalues=nemenyi_pvalues))
    paths["run.json"] = out_dir / "run.json"
    from stablefs._runtime.rundir import TOOL, manifest

    info = {"tool": TOOL, **run_info, "files": manifest(out_dir, [*written, *paths.values()])}
    atomic_write_text(out_dir / "run.json", json.dumps(info, indent=2, default=str))
    return paths


def read_benchmark(out_dir) -> dict[str, pd.DataFrame]:
    """The tables of a finished benchmark, read back (a rerun that reuses it prints them)."""
    out_dir = Path(out_dir)
    return {name: read_csv(out_dir / f"{name}.csv")
            for name in ("cells", "ranks", "friedman", "sets")}
