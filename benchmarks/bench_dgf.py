"""Benchmark: DGF's mean shift vs scikit-learn's MeanShift, and DGF on full Lung.

Run from the project root::

    .venv/bin/python benchmarks/bench_dgf.py                 # Colon, Lung subset, full Lung
    .venv/bin/python benchmarks/bench_dgf.py --quick         # Colon only, 1 repeat

Comparison (same run, same points, same bandwidth, flat kernel, same stopping rule
``||step|| <= 1e-3 h``, at most 300 steps, every point a seed, 2 workers each):

- the points are the features of the data set in sample space (transposed, each feature
  standardised to mean 0 and population sd 1, Yu, Ding and Loscalzo 2008, sec. 6.1), and ``h``
  is DGF's bandwidth (mean distance to the 5 nearest, the feature itself first);
- scikit-learn: ``MeanShift(bandwidth=h, seeds=F, cluster_all=False, n_jobs=2).fit(F)``
  (mean shift from every seed, then its own de-duplication of the peaks and labelling);
- stablefs: ``stablefs.selectors.dense_groups.mean_shift(F, h, kernel="flat", n_jobs=2)`` (the
  same mean shift from every seed, nothing skipped), and the whole ``DGF(n_jobs=2).fit(X)``
  (bandwidth, mean shift, merging, groups, low-density test, representatives), which skips
  the features that have no other feature in their window;
- agreement: every scikit-learn cluster centre must be one of our stationary points (largest
  distance printed, relative to ``h``).

Then the widest sets, one DGF fit each (wall and process CPU seconds, ``n_jobs=1``): full Lung
(181 x 12533), full Prostate (102 x 12600) and a synthetic 100 x 22,283 set (the width of the
Affymetrix HG-U133A arrays) of correlated gene blocks (:func:`gene_blocks`).

Targets (benchmarks/README.md): DGF >= 10x faster than scikit-learn's MeanShift; full Lung
(181 x 12533) under 1 minute on 2 cores; a 22,283-gene set under 10 s per fit (issue 19).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from stablefs.selectors import DGF
from stablefs.selectors.dense_groups import mean_shift

ROOT = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    """``STABLEFS_DATA`` (first folder holding colon.csv.gz) or ``../shared/datasets``."""
    for folder in os.environ.get("STABLEFS_DATA", "").split(os.pathsep):
        if folder and (Path(folder) / "colon.csv.gz").is_file():
            return Path(folder)
    return ROOT.parent / "shared" / "datasets"


def load(name: str, folder: Path) -> np.ndarray:
    frame = pd.read_csv(folder / f"{name}.csv.gz", dtype={"label": str})
    return frame.drop(columns="label").to_numpy(dtype=float)


def standardised_points(X: np.ndarray) -> np.ndarray:
    X = X[:, np.ptp(X, axis=0) > 0]
    return np.ascontiguousarray(((X - X.mean(axis=0)) / X.std(axis=0)).T)


def gene_blocks(n: int = 100, p: int = 22283, seed: int = 0) -> np.ndarray:
    """Synthetic expression data: 60 % of the genes in blocks (geometric sizes, mean ~50, at
    most 400) sharing a latent factor with loadings U(0.3, 0.95), the rest independent; every
    gene with its own scale and offset."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    j = 0
    while j < p * 0.6:
        size = int(min(rng.geometric(0.02) + 1, 400))
        cols = np.arange(j, min(p, j + size))
        load = rng.uniform(0.3, 0.95, size)[:cols.size]
        X[:, cols] = rng.standard_normal(n)[:, None] * load + np.sqrt(1 - load**2) * X[:, cols]
        j += size
    return X * rng.uniform(0.5, 3, p) + rng.uniform(5, 10, p)


def wide_fit(label: str, X: np.ndarray) -> None:
    """One DGF fit on one thread: wall and process CPU seconds, with the load average."""
    wall, cpu = time.perf_counter(), time.process_time()
    dgf = DGF(n_jobs=1).fit(X)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"{label} {X.shape[0]} x {X.shape[1]}: DGF(n_jobs=1).fit wall {wall:.1f} s, CPU "
          f"{cpu:.1f} s (load {os.getloadavg()[0]:.1f}); {dgf.n_peaks_} peaks, "
          f"{len(dgf.groups_)} groups; under 10 s: {'met' if wall < 10 else 'NOT met'} (wall), "
          f"{'met' if cpu < 10 else 'NOT met'} (CPU)", flush=True)


def timed(fn, repeats: int):
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def compare(label: str, X: np.ndarray, repeats: int, n_jobs: int, sklearn: bool) -> dict:
    F = standardised_points(X)
    t_dgf, dgf = timed(lambda: DGF(n_jobs=n_jobs).fit(X), repeats)
    h = dgf.bandwidth_
    t_ms, (modes, n_iter, _) = timed(lambda: mean_shift(F, h, kernel="flat", n_jobs=n_jobs),
                                     repeats)
    row = {"data": label, "n x p": f"{X.shape[0]} x {F.shape[0]}", "h": round(h, 3),
           "steps (mean/max)": f"{n_iter.mean():.1f}/{n_iter.max()}",
           "stablefs mean shift (s)": round(t_ms, 3), "stablefs DGF fit (s)": round(t_dgf, 3),
           "DGF peaks/groups": f"{dgf.n_peaks_}/{len(dgf.groups_)}"}
    if sklearn:
        from sklearn.cluster import MeanShift

        start = time.perf_counter()
        ms = MeanShift(bandwidth=h, seeds=F, cluster_all=False, n_jobs=n_jobs).fit(F)
        t_sk = time.perf_counter() - start
        gap = max(float(np.min(np.linalg.norm(modes - c, axis=1)))
                  for c in ms.cluster_centers_)
        row.update({"scikit-learn MeanShift (s)": round(t_sk, 2),
                    "speed-up (mean shift)": f"{t_sk / t_ms:.0f}x",
                    "speed-up (DGF fit)": f"{t_sk / t_dgf:.0f}x",
                    "sklearn centres": len(ms.cluster_centers_),
                    "max centre gap / h": f"{gap / h:.1e}"})
    print(pd.Series(row).to_string(), "\n", flush=True)
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", "-r", type=int, default=3,
                        help="best of R runs for stablefs (scikit-learn runs once)")
    parser.add_argument("--n-jobs", type=int, default=2, help="workers for both (default 2)")
    parser.add_argument("--lung-genes", type=int, default=2000,
                        help="genes of Lung (the first ones) compared with scikit-learn")
    parser.add_argument("--no-sklearn", action="store_true", help="stablefs timings only")
    parser.add_argument("--quick", action="store_true", help="Colon only, one repeat")
    parser.add_argument("--no-wide", action="store_true",
                        help="skip the single fits on Prostate and the 22,283-gene set")
    args = parser.parse_args(argv)
    folder = data_dir()
    repeats = 1 if args.quick else args.repeats
    print(f"Python {platform.python_version()}, NumPy {np.__version__}, "
          f"{os.cpu_count()} CPUs, data {folder}\n")
    rows = [compare("colon", load("colon", folder), repeats, args.n_jobs, not args.no_sklearn)]
    if not args.quick:
        lung = load("lung", folder)
        rows.append(compare(f"lung[:{args.lung_genes}]", lung[:, :args.lung_genes], repeats,
                            args.n_jobs, not args.no_sklearn))
        t, dgf = timed(lambda: DGF(n_jobs=args.n_jobs).fit(lung), repeats)
        print(f"full Lung {lung.shape[0]} x {lung.shape[1]}: DGF(n_jobs={args.n_jobs}).fit "
              f"{t:.1f} s (best of {repeats}); {dgf.n_peaks_} peaks, {len(dgf.groups_)} "
              f"groups; target < 60 s: {'met' if t < 60 else 'NOT met'}")
    if not args.quick and not args.no_wide:
        wide_fit("prostate", load("prostate", folder))
        wide_fit("synthetic gene blocks", gene_blocks())
    if not args.no_sklearn:
        worst = min(float(r["speed-up (DGF fit)"][:-1]) for r in rows)
        print(f"smallest DGF speed-up over scikit-learn: {worst:.0f}x; target >= 10x: "
              f"{'met' if worst >= 10 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
