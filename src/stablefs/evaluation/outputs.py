"""Writing a comparison to disk (``docs/DESIGN.md``, "Files a run writes").

``run.json``, ``selections.parquet``, ``results.csv``, ``stability.csv``, ``frequencies.csv``,
``baseline.csv`` (:mod:`~stablefs.evaluation.baseline`), ``comparisons.csv``
(:func:`~stablefs.evaluation.statistics.compare_methods`) and the report. Every file is
written atomically; ``run.json`` is written last and marks the run as finished.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from stablefs._runtime.escape import csv_text
from stablefs._runtime.io import atomic_path, atomic_write_text
from stablefs._runtime.pandas_compat import EXACT_FLOATS
from stablefs.evaluation.runner import ExperimentResult


def write_selections(selections: pd.DataFrame, out_dir: Path) -> Path:
    """Store every (method, resample) ranking, scores and training indices as Parquet."""
    path = out_dir / "selections.parquet"
    with atomic_path(path) as tmp:
        selections.to_parquet(tmp, index=False)
    return path


def read_selections(out_dir) -> pd.DataFrame:
    """Read back what :func:`write_selections` stored.

    ``selections.parquet`` is read as written. The ``selections.npz`` of older runs is read
    only when it holds plain arrays: arrays of Python objects would need unpickling, which could
    run code planted in a shared folder, so they are refused in one line.
    """
    out_dir = Path(out_dir)
    if (out_dir / "selections.parquet").exists():
        df = pd.read_parquet(out_dir / "selections.parquet")
        for col in ("ranking", "scores", "train"):
            df[col] = df[col].map(np.asarray)
        return df
    from stablefs._errors import StablefsError
    from stablefs._runtime.stored import StoredFileError, read_arrays

    path = out_dir / "selections.npz"
    try:
        z = read_arrays(path)
        return pd.DataFrame({
            "method": z["method"], "resample": z["resample"], "fit_time": z["fit_time"],
            "train": list(z["train"]), "ranking": list(z["ranking"]),
            "scores": list(z["scores"]),
        })
    except (StoredFileError, KeyError, ValueError) as exc:
        raise StablefsError(
            f"{path} cannot be read safely ({exc}); older runs stored Python objects there, "
            "which stablefs does not unpickle: rerun the comparison to write "
            "selections.parquet."
        ) from None


def write_csv(df: pd.DataFrame, path: Path) -> Path:
    """Write a tidy table; floats keep their shortest round-trip repr (``repr``), so
    :func:`read_csv` gives back the same numbers bit for bit. Text cells a spreadsheet would run
    as a formula are escaped (:func:`stablefs._runtime.escape.escape_frame`)."""
    atomic_write_text(path, csv_text(df, lineterminator="\n"))
    return path


def read_csv(path) -> pd.DataFrame:
    """Read a table written by :func:`write_csv`. The float parser is pinned to the correctly
    rounded one (:data:`stablefs._runtime.pandas_compat.EXACT_FLOATS`) so the numbers are
    identical on
    every supported pandas version."""
    return pd.read_csv(path, **EXACT_FLOATS)


def read_result(out_dir) -> ExperimentResult:
    """The tables of a finished run, read back from its folder (``stablefs compare`` reuses a
    finished run this way)."""
    out_dir = Path(out_dir)
    freq = out_dir / "frequencies.csv"
    comp = out_dir / "comparisons.csv"
    base = out_dir / "baseline.csv"
    return ExperimentResult(
        selections=pd.DataFrame(),
        results=read_csv(out_dir / "results.csv"),
        stability=read_csv(out_dir / "stability.csv"),
        frequencies=read_csv(freq) if freq.exists() else pd.DataFrame(),
        comparisons=read_csv(comp) if comp.exists() else pd.DataFrame(),
        baseline=read_csv(base) if base.exists() else pd.DataFrame(),
    )


def save_result(result: ExperimentResult, out_dir, run_info: dict, *,
                report: bool = True, X=None, y=None, feature_names=None,
                symbols=None, extra_paths: dict | None = None) -> dict[str, Path]:
    """Write every output file of a comparison into ``out_dir``; return their paths.

    ``extra_paths`` are files the caller already wrote into ``out_dir`` for this run (the
    checks of the recommendation: ``permutation.csv``, ``nested.csv``); they enter the manifest
    of ``run.json`` like the files written here.

    With the whole data (``X``, ``y``, ``feature_names``) the consensus signatures are also
    written, as ``signature.csv`` and ``signature.gmt``
    (:func:`stablefs.report.signature.write_signature`); ``symbols`` (one gene symbol per
    feature, ``--annotation``) adds a ``symbol`` column beside ``feature`` there.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "selections": write_selections(result.selections, out_dir),
        "results.csv": write_csv(result.results, out_dir / "results.csv"),
        "stability.csv": write_csv(result.stability, out_dir / "stability.csv"),
        "frequencies.csv": write_csv(result.frequencies, out_dir / "frequencies.csv"),
    }
    comparisons = result.comparisons
    if comparisons is None or not len(comparisons.columns):
        from stablefs.evaluation.statistics import COMPARISON_COLUMNS

        comparisons = pd.DataFrame(columns=COMPARISON_COLUMNS)
    paths["comparisons.csv"] = write_csv(comparisons, out_dir / "comparisons.csv")
    if result.baseline is not None and len(result.baseline.columns):
        paths["baseline.csv"] = write_csv(result.baseline, out_dir / "baseline.csv")
    signature = None
    if X is not None and y is not None and feature_names is not None:
        from stablefs.report.signature import signature_table, write_signature

        signature = signature_table(result.frequencies, X, y, feature_names, result.selections)
        signal = (run_info.get("trust") or {}).get("signal")
        if signal:  # "no evidence of signal", or the evidence, on every row
            signature["signal"] = signal
        if symbols is not None:
            from stablefs.report.signature import add_symbols

            signature = add_symbols(signature, feature_names, symbols)
        paths.update(write_signature(out_dir, signature, data_name=run_info.get("data")))
    if report:
        from stablefs.report import write_report

        paths.update(write_report(out_dir, run_info=run_info, results=result.results,
                                  stability=result.stability, frequencies=result.frequencies,
                                  selections=result.selections, feature_names=feature_names,
                                  signature=signature, baseline=result.baseline))
    paths.update(extra_paths or {})
    # run.json last: its presence (with "finished") marks a complete run; it names stablefs
    # and lists every file written, the files --force may delete (stablefs._runtime.rundir)
    from stablefs._runtime.rundir import TOOL, manifest

    paths["run.json"] = out_dir / "run.json"
    info = {"tool": TOOL, **run_info, "files": manifest(out_dir, paths.values())}
    atomic_write_text(paths["run.json"], json.dumps(info, indent=2, default=str))
    return paths
