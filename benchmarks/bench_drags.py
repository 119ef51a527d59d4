"""Benchmark: DRAGS on a 22,283-gene set (Chowdary) and its growth in the number of genes.

Run from the project root (Chowdary is an ``.RData`` file of the registry: ``STABLEFS_DATA``
must include ``../shared/datasets/rdata``)::

    .venv/bin/python benchmarks/bench_drags.py                  # Chowdary, then the p series
    .venv/bin/python benchmarks/bench_drags.py --no-series      # Chowdary only

- ``DRAGS().fit`` on Chowdary (104 x 22,283, raw intensities as stored), one thread
  (``n_jobs=1``: CPU seconds) and the default (``n_jobs=None``: the free cores, wall
  seconds), interleaved, best of ``-r``;
- the growth in ``p``: ``DRAGS(n_jobs=1)`` on the synthetic correlated gene blocks of
  ``bench_dgf.gene_blocks`` (100 samples) at ``--series`` genes, CPU seconds and the log-log
  slope between consecutive sizes (1 = linear, 2 = quadratic).

Targets (issue 36): under 10 s per fit on a 22,283-gene set; linear in p.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from stablefs.selectors import DRAGS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_dgf import gene_blocks  # noqa: E402


def cpu_and_wall(fn) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - cpu, time.perf_counter() - wall


def chowdary(repeats: int) -> None:
    from stablefs.datasets import load

    data = load("chowdary")
    X, y = np.asarray(data.X, dtype=float), data.y
    DRAGS(n_jobs=1).fit(X[:, :300], y)  # compiled code loaded
    fits = {"n_jobs=1": lambda: DRAGS(n_jobs=1).fit(X, y),
            "n_jobs=None (free cores)": lambda: DRAGS().fit(X, y)}
    best = {key: [np.inf, np.inf] for key in fits}
    for _ in range(repeats):
        for key, fn in fits.items():
            cpu, wall = cpu_and_wall(fn)
            best[key] = [min(best[key][0], cpu), min(best[key][1], wall)]
    print(f"DRAGS on chowdary {X.shape[0]} x {X.shape[1]}, best of {repeats} (interleaved), "
          f"load {os.getloadavg()[0]:.1f}, {os.cpu_count()} cpus")
    for key, (cpu, wall) in best.items():
        print(f"  {key:26} CPU {cpu:7.2f} s   wall {wall:7.2f} s")
    print("  target: under 10 s per fit")


def series(sizes: list[int], n: int = 100) -> None:
    X_all = gene_blocks(n=n, p=max(sizes))
    y = np.repeat([0, 1], [n // 2, n - n // 2])
    DRAGS(n_jobs=1).fit(X_all[:, :300], y)
    print(f"\nDRAGS(n_jobs=1) on gene blocks, {n} samples (CPU seconds; slope of log time "
          f"against log p), load {os.getloadavg()[0]:.1f}")
    last = None
    for p in sizes:
        X = np.ascontiguousarray(X_all[:, :p])
        cpu, wall = cpu_and_wall(lambda X=X: DRAGS(n_jobs=1).fit(X, y))
        slope = "" if last is None else \
            f"   slope {np.log(cpu / last[1]) / np.log(p / last[0]):.2f}"
        print(f"  p = {p:6d}: CPU {cpu:7.2f} s, wall {wall:7.2f} s{slope}", flush=True)
        last = (p, cpu)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", "-r", type=int, default=2)
    parser.add_argument("--series", default="12500,25000,50000",
                        help="genes of the synthetic series (comma-separated)")
    parser.add_argument("--no-series", action="store_true")
    parser.add_argument("--no-chowdary", action="store_true")
    args = parser.parse_args(argv)
    if not args.no_chowdary:
        chowdary(args.repeats)
    if not args.no_series:
        series([int(v) for v in args.series.split(",")])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
