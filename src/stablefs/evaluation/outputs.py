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

#: the Parquet key-value metadata entry of ``selections.parquet`` that names the features
#: (a JSON list, in the order of every ranking)
FEATURE_NAMES_KEY = b"stablefs.feature_names"


def write_selections(selections: pd.DataFrame, out_dir: Path, feature_names=None) -> Path:
    """Store every (method, resample) ranking, scores and training indices as Parquet; the
    feature names, when given, go into the file's metadata (:data:`FEATURE_NAMES_KEY`)."""
    path = out_dir / "selections.parquet"
    with atomic_path(path) as tmp:
        if feature_names is None:
            selections.to_parquet(tmp, index=False)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = pa.Table.from_pandas(selections, preserve_index=False)
            names = json.dumps([str(f) for f in feature_names]).encode()
            table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                                   FEATURE_NAMES_KEY: names})
            pq.write_table(table, tmp)
    return path


def read_feature_names(out_dir) -> list[str] | None:
    """The feature names stored with ``selections.parquet`` (None when absent or not a list
    of strings: the metadata is read as JSON, nothing else)."""
    path = Path(out_dir) / "selections.parquet"
    if not path.is_file():
        return None
    import pyarrow.parquet as pq

    meta = pq.read_schema(path).metadata or {}
    raw = meta.get(FEATURE_NAMES_KEY)
    if raw is None:
        return None
    try:
        names = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return None
    return names


def read_selections(out_dir) -> pd.DataFrame:
    """Read back what :func:`write_selections` stored.

    ``selections.parquet`` is read as written. The ``selections.npz`` of older runs is read
    only when it holds plain arrays: arrays of Python objects would need unpickling, which could
    run code planted in a shared folder, so they are refused in one line.
    """
    from stablefs._errors import StablefsError

    out_dir = Path(out_dir)
    parquet = out_dir / "selections.parquet"
    if parquet.exists():
        # a column chunk whose metadata names another file is read from this file all the
        # same (pyarrow ignores file_path), so it fails here rather than reading elsewhere
        try:
            df = pd.read_parquet(parquet)
            for col in ("ranking", "scores", "train"):
                df[col] = df[col].map(np.asarray)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
            raise StablefsError(f"{parquet} cannot be read ({first}).") from None
        return df
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
    from stablefs._runtime.stored import check_table_size

    check_table_size(path)  # a planted multi-gigabyte table is refused, not read
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


def signature_for(frequencies: pd.DataFrame, X, y, feature_names, selections, *,
                  signal: str | None = None, symbols=None) -> pd.DataFrame:
    """The consensus signatures of a comparison (:func:`stablefs.report.signature.
    signature_table`), with the verdict on evidence of signal on every row when there is one
    and the gene symbols beside the features when ``symbols`` are given."""
    from stablefs.report.signature import add_symbols, signature_table

    signature = signature_table(frequencies, X, y, feature_names, selections)
    if signal:  # "no evidence of signal", or the evidence, on every row
        signature["signal"] = signal
    if symbols is not None:
        signature = add_symbols(signature, feature_names, symbols)
    return signature


def save_result(result: ExperimentResult, out_dir, run_info: dict, *,
                report: bool = True, X=None, y=None, feature_names=None,
                symbols=None, extra_paths: dict | None = None,
                signature: pd.DataFrame | None = None,
                svg: bool = False, draw=None) -> dict[str, Path | list[Path]]:
    """Write every output file of a comparison into ``out_dir``; return their paths.

    ``extra_paths`` are files the caller already wrote into ``out_dir`` for this run (the
    checks of the recommendation: ``permutation.csv``, ``nested.csv``); they enter the manifest
    of ``run.json`` like the files written here.

    The consensus signatures are written as ``signature.csv`` and ``signature.gmt``
    (:func:`stablefs.report.signature.write_signature`): ``signature`` when given, else
    computed from the whole data (``X``, ``y``, ``feature_names``; :func:`signature_for`);
    ``symbols`` (one gene symbol per feature, ``--annotation``) adds a ``symbol`` column
    beside ``feature`` there. ``draw`` renders the report's figures
    (:func:`stablefs.report.write_report`).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path | list[Path]] = {
        "selections": write_selections(result.selections, out_dir, feature_names),
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
    if signature is None and X is not None and y is not None and feature_names is not None:
        signature = signature_for(result.frequencies, X, y, feature_names, result.selections,
                                  signal=(run_info.get("trust") or {}).get("signal"),
                                  symbols=symbols)
    if signature is not None and len(signature.columns):
        from stablefs.report.signature import write_signature

        paths.update(write_signature(out_dir, signature, data_name=run_info.get("data")))
    else:
        signature = None
    if report:
        from stablefs.report import write_report

        paths.update(write_report(out_dir, run_info=run_info, results=result.results,
                                  stability=result.stability, frequencies=result.frequencies,
                                  selections=result.selections, feature_names=feature_names,
                                  signature=signature, baseline=result.baseline, svg=svg,
                                  draw=draw))
    paths.update(extra_paths or {})
    # run.json last: its presence (with "finished") marks a complete run; it names stablefs
    # and lists every file written, the files --force may delete (stablefs._runtime.rundir)
    from stablefs._runtime.rundir import TOOL, manifest

    run_json = paths["run.json"] = out_dir / "run.json"
    info = {"tool": TOOL, **run_info, "files": manifest(out_dir, paths.values())}
    atomic_write_text(run_json, json.dumps(info, indent=2, default=str))
    return paths
