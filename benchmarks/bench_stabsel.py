"""Benchmark: stability selection (``stabsel``, L1 logistic) on multi-class data, against a
first-order solver and against ReliefF on the same set (issue 36).

Run from the project root::

    .venv/bin/python benchmarks/bench_stabsel.py                 # SRBCT and Su, 50 pairs
    .venv/bin/python benchmarks/bench_stabsel.py --datasets srbct --pairs 10

In one run, per data set (CPU and wall seconds, one fit each):

- ``stabsel`` as the method string builds it (50 complementary pairs, the default grid),
  default ``n_jobs`` (the half-samples on the free cores' threads) and ``n_jobs=1``;
- the peer: the same half-samples and penalties fitted by the NumPy FISTA loop of the tests'
  reference (``tests/logistic_helpers.py``; the solver before issue 36, on every feature,
  each penalty from zero; ``--peer-pairs`` pairs, default 5, scaled to the full count); the
  selection probabilities on those pairs are compared (largest difference);
- ``relieff`` and ``stabsel-relieff`` (ReliefF's top 20 on the same 100 half-samples) on the
  same data, for scale.

Target (issue 36): stability selection on multi-class data within 10x a ReliefF fit on the
same set, the same selection probabilities within Monte-Carlo error.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from stablefs.methods import make_selector

ROOT = Path(__file__).resolve().parents[1]


def cpu_and_wall(fn):
    cpu, wall = time.process_time(), time.perf_counter()
    out = fn()
    return time.process_time() - cpu, time.perf_counter() - wall, out


def numpy_fits(X, y, selector, sets, grid):
    """Selected sets of the NumPy FISTA reference at every C of ``grid`` on each half-sample
    (standardised, every feature, each penalty from zero)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from logistic_helpers import reference_selected

    return np.array([reference_selected(X, y, index, grid, selector.tol, selector.max_iter)
                     for index in sets])


def bench(name: str, pairs: int, peer_pairs: int) -> None:
    from stablefs.datasets import load

    data = load(name)
    X = np.asarray(data.X, dtype=float)
    _, y = np.unique(data.y, return_inverse=True)
    make_selector("stabsel", n_subsamples=1).fit(X, y)  # compiled code loaded
    make_selector("relieff").fit(X, y)
    rows = {}
    rows["stabsel (default n_jobs)"] = cpu_and_wall(
        lambda: make_selector("stabsel", n_subsamples=pairs, random_state=0).fit(X, y))
    rows["stabsel n_jobs=1"] = cpu_and_wall(
        lambda: make_selector("stabsel", n_subsamples=pairs, random_state=0,
                              n_jobs=1).fit(X, y))
    fit = rows["stabsel n_jobs=1"][2]
    few = fit.subsamples_[: 2 * peer_pairs]
    cpu, wall, chosen = cpu_and_wall(lambda: numpy_fits(X, y, fit.selector, few, fit.grid_))
    scale = len(fit.subsamples_) / len(few)
    rows[f"NumPy FISTA (peer, x{scale:g})"] = (cpu * scale, wall * scale, None)
    relieff = [cpu_and_wall(lambda: make_selector("relieff").fit(X, y)) for _ in range(7)]
    rows["relieff (median of 7)"] = sorted(relieff, key=lambda r: r[0])[3]
    rows["stabsel-relieff"] = cpu_and_wall(
        lambda: make_selector("stabsel-relieff", n_subsamples=pairs, random_state=0,
                              n_jobs=1).fit(X, y))
    classes = np.unique(y).size
    print(f"\n{name} {X.shape[0]} x {X.shape[1]}, {classes} classes, {pairs} pairs, load "
          f"{os.getloadavg()[0]:.1f}, {os.cpu_count()} cpus")
    relieff_cpu = rows["relieff (median of 7)"][0]
    for key, (cpu, wall, _) in rows.items():
        print(f"  {key:30} CPU {cpu:8.3f} s  wall {wall:8.3f} s  CPU / ReliefF fit "
              f"{cpu / relieff_cpu:8.1f}")
    ours = fit.selection_probabilities_
    again = make_selector("stabsel", n_subsamples=peer_pairs, random_state=0,
                          n_jobs=1).fit(X, y).selection_probabilities_
    same = np.array_equal(rows["stabsel (default n_jobs)"][2].selection_probabilities_, ours)
    peer = chosen.mean(axis=0)
    print(f"  peer / ours (CPU, n_jobs=1): "
          f"{rows[f'NumPy FISTA (peer, x{scale:g})'][0] / rows['stabsel n_jobs=1'][0]:.1f}x; "
          f"probabilities on the peer's {len(few)} half-samples: max |difference| "
          f"{np.abs(again - peer).max():.3g}, {np.mean(again != peer):.4f} of them differ; "
          f"identical for both n_jobs: {same}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="srbct,su")
    parser.add_argument("--pairs", type=int, default=50)
    parser.add_argument("--peer-pairs", type=int, default=5)
    args = parser.parse_args(argv)
    for name in args.datasets.split(","):
        bench(name.strip(), args.pairs, args.peer_pairs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
