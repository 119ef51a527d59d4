"""Files of every format at a chosen size, and the peak memory of loading one in a fresh
process against the estimate the memory guard made for it (``tests/test_safety_memory.py``,
``benchmarks/bench_memory_estimates.py``).

The peak is measured by Linux itself: the new process imports stablefs and loads a tiny file
of the same kind first (so that imports and lazy set-up are not counted), resets its peak
resident size (``/proc/self/clear_refs``, "5"), loads the file, and reports ``VmHWM`` minus the
resident size before the load. The estimates are the ones every memory check made during that
load (:func:`stablefs.datasets._limits.recorded_estimates`); the guard refuses against the
largest.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

SRC = Path(__file__).resolve().parents[1] / "src"

#: the table layouts of :func:`write_table`
TABLE_KINDS = ("numbers", "missing", "transposed", "transposed-missing", "gzip", "ids")


def can_measure() -> bool:
    """Linux with a resettable peak resident size (``/proc/self/clear_refs``)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _values(n: int, p: int, seed: int = 0) -> np.ndarray:
    return np.round(np.random.default_rng(seed).normal(size=(n, p)), 4)


def write_table(path: Path, n: int, p: int, kind: str = "numbers") -> tuple[Path, dict]:
    """A text table of ``n`` samples and ``p`` features and the ``load`` options it needs.

    ``kind``: ``numbers`` (samples x features, the fast reader), ``missing`` (one ``NA``:
    pandas' reader), ``transposed`` / ``transposed-missing`` (genes x samples), ``gzip``
    (``numbers`` compressed), ``ids`` (a first column of sample IDs), ``unlabelled`` (sample
    IDs and no class column: the classes come from a sample sheet, :func:`write_sheet`).
    """
    X = _values(n, p)
    missing = kind.endswith("missing")
    cells = [[f"{v:g}" for v in row] for row in (X.T if kind.startswith("transposed") else X)]
    if missing:
        cells[len(cells) // 2][len(cells[0]) // 2] = "NA"
    if kind.startswith("transposed"):
        lines = ["gene," + ",".join(f"s{i}" for i in range(n)),
                 "label," + ",".join("ab"[i % 2] for i in range(n))]
        lines += [f"g{j}," + ",".join(row) for j, row in enumerate(cells)]
    else:
        ids = kind in ("ids", "unlabelled")
        label = kind != "unlabelled"
        lines = [("id," if ids else "") + ("label," if label else "")
                 + ",".join(f"g{j}" for j in range(p))]
        lines += [(f"s{i}," if ids else "") + (f"{'ab'[i % 2]}," if label else "")
                  + ",".join(row) for i, row in enumerate(cells)]
    data = ("\n".join(lines) + "\n").encode()
    if kind == "gzip":
        path = path.with_name(path.name + ".gz")
        path.write_bytes(gzip.compress(data, compresslevel=1, mtime=0))
    else:
        path.write_bytes(data)
    options = {"transpose": True} if kind.startswith("transposed") else {}
    if missing:
        options["missing"] = "impute"
    return path, options


def write_arff(path: Path, n: int, p: int) -> tuple[Path, dict]:
    X = _values(n, p)
    head = "@relation r\n" + "".join(f"@attribute g{j} numeric\n" for j in range(p))
    head += "@attribute class {a,b}\n@data\n"
    rows = "".join(",".join(f"{v:g}" for v in X[i]) + f",{'ab'[i % 2]}\n" for i in range(n))
    path.write_text(head + rows)
    return path, {}


def write_npz(path: Path, n: int, p: int) -> tuple[Path, dict]:
    np.savez(path, X=_values(n, p), y=np.array(["ab"[i % 2] for i in range(n)]),
             feature_names=np.array([f"g{j}" for j in range(p)]))
    return path, {}


def write_raw_npz(path: Path, n: int, p: int) -> tuple[Path, dict]:
    """An ``.npz`` of raw-looking intensities (log-normal: 99th percentile about 5,000,
    skewness far above 2), which ``--scale auto`` log2-transforms."""
    X = np.round(np.exp(np.random.default_rng(0).normal(5, 1.5, size=(n, p))), 1)
    np.savez(path, X=X, y=np.array(["ab"[i % 2] for i in range(n)]),
             feature_names=np.array([f"g{j}" for j in range(p)]))
    return path, {}


def write_h5ad(path: Path, n: int, p: int) -> tuple[Path, dict]:
    import anndata  # noqa: PLC0415
    import pandas as pd

    obs = pd.DataFrame({"label": ["ab"[i % 2] for i in range(n)]},
                       index=[f"s{i}" for i in range(n)])
    var = pd.DataFrame(index=[f"g{j}" for j in range(p)])
    anndata.AnnData(X=_values(n, p), obs=obs, var=var).write_h5ad(path)
    return path, {}


def write_sheet(path: Path, n: int, rows: int) -> Path:
    """A sample sheet (``id,label,note``) with the ``n`` samples ``s0 ...`` of
    :func:`write_table` (kind ``ids``) and ``rows`` in all (samples of other studies)."""
    lines = ["id,label,note"] + [f"s{i},{'ab'[i % 2]},sample {i}" for i in range(n)]
    lines += [f"x{i},a,another study's sample {i}" for i in range(rows - n)]
    path.write_text("\n".join(lines) + "\n")
    return path


def write_annotation(path: Path, p: int, rows: int) -> Path:
    """A probe table (``probe,symbol,description``) naming the features ``g0 ...`` and
    ``rows`` probes in all."""
    lines = ["probe,symbol,description"]
    lines += [f"g{j},SYM{j},gene number {j} of the platform" for j in range(min(p, rows))]
    lines += [f"p{j},OTHER{j},a probe of another platform {j}" for j in range(rows - p)]
    path.write_text("\n".join(lines) + "\n")
    return path


_PROBE = r"""
import gc, json, sys
from stablefs import StablefsError
from stablefs.datasets import load
from stablefs.datasets._annotation import load_annotation
from stablefs.datasets._limits import recorded_estimates
from stablefs.datasets._rdata import read_rdata
from stablefs.comparison._inputs import load_data
from stablefs.comparison._options import CompareOptions

def status():
    out = {}
    for line in open("/proc/self/status"):
        if line.startswith(("VmRSS", "VmHWM")):
            key, value = line.split(":")
            out[key] = int(value.split()[0]) * 1024
    return out

def call(kind, path, options):
    if kind == "load":
        return load(path, **options).X.shape
    if kind == "compare":  # compare's load: the data options' defaults, --scale auto
        return load_data(path, CompareOptions().check().data_options(), 0).X.shape
    if kind == "annotation":
        return load_annotation(path, [f"g{j}" for j in range(options["features"])]).shape
    return read_rdata(path, options.get("name")).X.shape

kind, path, options, warm, warm_options = json.loads(sys.argv[1])
call(kind, warm, warm_options)
gc.collect()
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")
before = status()["VmRSS"]
error = None
with recorded_estimates() as estimates:
    try:
        shape = call(kind, path, options)
    except StablefsError as exc:  # e.g. a sheet listing other samples: refused after reading
        shape, error = None, str(exc)
after = status()
print(json.dumps({"peak": after["VmHWM"] - before, "shape": shape, "error": error,
                  "estimates": [[w, what, need] for w, what, need in estimates]}))
"""


def measure(path: Path, options: dict, warm: Path, warm_options: dict | None = None, *,
            call: str = "load") -> dict:
    """Run ``call`` (``"load"``: :func:`stablefs.datasets.load`; ``"compare"``: the load of
    ``compare`` with its default ``--scale auto``; ``"annotation"``:
    ``load_annotation`` for ``options["features"]`` features ``g0 ...``; ``"rdata"``:
    ``read_rdata``) on ``path`` in a new process, after ``warm``: ``{"peak", "estimate",
    "shape", "error", "estimates"}`` (bytes; ``estimate`` is the largest of the checks)."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "STABLEFS_MEMORY_LIMIT": "1T"}
    args = json.dumps([call, str(path), options, str(warm),
                       options if warm_options is None else warm_options])
    proc = subprocess.run([sys.executable, "-c", _PROBE, args], env=env, capture_output=True,
                          text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["estimate"] = max((e[2] for e in out["estimates"]), default=0)
    return out
