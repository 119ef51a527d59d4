"""Loading wide expression tables: ``stablefs.datasets.load`` against pandas, in the same run.

Writes a 100 × 60,000 CSV (sample IDs first, ``label`` last, values with 3 decimals, a header of
about 0.5 MB) and the same matrix as genes × samples (a ``label`` row, for ``transpose=True``)
to a temporary folder, then times, each in a fresh Python process (so that the peak resident
memory belongs to that loader alone):

* ``stablefs.datasets.load(path)`` (NumPy's C reader, one float64 matrix compacted in place);
* the peer: ``pandas.read_csv(path, dtype={"label": str}, float_precision=...)`` then
  ``to_numpy(float64)`` of the feature columns, with ``"round_trip"`` (the same correctly
  rounded numbers as stablefs) and with pandas' default ``"high"``;
* the transposed file with ``load(path, transpose=True)`` and with pandas
  (``read_csv(index_col=0, skiprows=[1])`` then ``.T``);
* Lung (``lung.csv.gz``, 181 × 12,533, gzip) from ``STABLEFS_DATA`` or ``../shared/datasets``.

For each: the best wall time of ``--repeat`` loads, the peak of Python/NumPy allocations
(``tracemalloc``, one extra load) and the process's peak resident set size (``VmHWM``;
includes the interpreter and the imported libraries, about 100 MB), and the
ratio of the peer's time and memory to stablefs's.

Run: ``.venv/bin/python benchmarks/bench_load.py [--repeat N] [--p 60000] [--n 100]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _data_dir() -> Path | None:
    for c in [p for p in os.environ.get("STABLEFS_DATA", "").split(os.pathsep) if p] + [
        str(ROOT.parent / "shared" / "datasets")
    ]:
        if (Path(c) / "lung.csv.gz").is_file():
            return Path(c)
    return None


def write_files(folder: Path, n: int, p: int, seed: int = 0) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    # values -400.000 ... 400.000 in steps of 0.001, written from a pool of their texts (fast)
    pool = np.array([f"{v / 1000:.3f}" for v in range(-400_000, 400_001)], dtype=object)
    idx = np.clip(np.round(rng.normal(size=(n, p)) * 100_000), -400_000, 400_000).astype(int)
    text = pool[idx + 400_000]
    y = rng.choice(["ALL", "AML"], n)
    genes = [f"{200000 + j}_at" for j in range(p)]
    samples = [f"P{i:04d}" for i in range(n)]
    wide = folder / "wide.csv"
    with open(wide, "w") as fh:
        fh.write("sample," + ",".join(genes) + ",label\n")
        for i, row in enumerate(text):
            fh.write(samples[i] + "," + ",".join(row) + "," + y[i] + "\n")
    tall = folder / "tall.csv"
    with open(tall, "w") as fh:
        fh.write("gene," + ",".join(samples) + "\n")
        fh.write("label," + ",".join(y) + "\n")
        for j, col in enumerate(text.T):
            fh.write(genes[j] + "," + ",".join(col) + "\n")
    return wide, tall


# --------------------------------------------------------------------------------------------
# one loader, in a child process
# --------------------------------------------------------------------------------------------


def _loader(kind: str, path: str):
    if kind == "stablefs":
        from stablefs.datasets import load

        return lambda: load(path).X
    if kind == "stablefs-transpose":
        from stablefs.datasets import load

        return lambda: load(path, transpose=True).X
    import pandas as pd

    if kind.startswith("pandas-T-"):
        precision = kind.split("-", 2)[2]

        def run():
            frame = pd.read_csv(path, index_col=0, skiprows=[1], float_precision=precision)
            return np.ascontiguousarray(frame.to_numpy(dtype=np.float64).T)

        return run
    precision = kind.split("-", 1)[1]
    label = "label"

    def run():
        frame = pd.read_csv(path, dtype={label: str}, float_precision=precision,
                            low_memory=False)
        frame.pop(label)
        if frame.columns[0] == "sample":
            frame.pop("sample")
        return frame.to_numpy(dtype=np.float64)

    return run


def _peak_rss() -> int:
    """Peak resident set size of this process, in bytes.

    Linux: ``VmHWM`` of ``/proc/self/status`` (``getrusage``'s ``ru_maxrss`` survives
    ``execve``, so a child would report its parent's peak).
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss if sys.platform == "darwin" else rss * 1024


def child(kind: str, path: str, repeat: int) -> None:
    run = _loader(kind, path)
    times = []
    shape = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        X = run()
        times.append(time.perf_counter() - t0)
        shape = X.shape
        del X
    tracemalloc.start()
    X = run()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_bytes = _peak_rss()
    print(json.dumps({"seconds": min(times), "peak": peak, "rss": rss_bytes,
                      "shape": list(shape), "nbytes": X.nbytes}))


def measure(kind: str, path: Path, repeat: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind, str(path), "--repeat", str(repeat)],
        capture_output=True, text=True, check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"{kind} on {path} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def report(title: str, path: Path, kinds: list[str], repeat: int) -> None:
    size = path.stat().st_size
    print(f"\n{title}: {path.name} ({size / 2**20:.1f} MiB on disk)")
    print(f"  {'loader':28s} {'seconds':>8s} {'tracemalloc':>12s} {'max RSS':>9s}"
          f" {'time ratio':>10s} {'memory ratio':>12s}")
    base = None
    for kind in kinds:
        r = measure(kind, path, repeat)
        if base is None:
            base = r
            print(f"  matrix {tuple(r['shape'])} float64 = {r['nbytes'] / 2**20:.1f} MiB")
        print(
            f"  {kind:28s} {r['seconds']:8.2f} {r['peak'] / 2**20:9.0f} MiB "
            f"{r['rss'] / 2**20:5.0f} MiB {r['seconds'] / base['seconds']:9.1f}x "
            f"{r['peak'] / base['peak']:11.1f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--p", type=int, default=60_000)
    parser.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.repeat)
        return
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        wide, tall = write_files(Path(tmp), args.n, args.p)
        print(f"wrote {args.n} x {args.p} in both orientations in "
              f"{time.perf_counter() - t0:.1f} s; header line "
              f"{len(wide.open('rb').readline()) / 2**20:.2f} MiB")
        report("samples x features, label last", wide,
               ["stablefs", "pandas-round_trip", "pandas-high"], args.repeat)
        report("genes x samples (transpose=True)", tall,
               ["stablefs-transpose", "pandas-T-round_trip"], args.repeat)
    data = _data_dir()
    if data is None:
        print("\nlung.csv.gz not found (set STABLEFS_DATA): skipped")
        return
    report("Lung (Gordon et al. 2002)", data / "lung.csv.gz",
           ["stablefs", "pandas-round_trip", "pandas-high"], args.repeat)


if __name__ == "__main__":
    main()
