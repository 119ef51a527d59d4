"""Benchmark: stability selection (``stabsel``, L1 logistic) on multi-class data, against the
NumPy solver it replaced and against ReliefF on the same set (issue 36).

Run from the project root::

    .venv/bin/python benchmarks/bench_stabsel.py                 # SRBCT and Su, 50 pairs
    .venv/bin/python benchmarks/bench_stabsel.py --datasets srbct --pairs 10

In one run, per data set (CPU and wall seconds, one fit each):

- ``stabsel`` as the method string builds it (50 complementary pairs, the default grid),
  default ``n_jobs`` (the half-samples on the free cores' threads) and ``n_jobs=1``;
- the peer: the same fit with the NumPy/SciPy FISTA the compiled solver replaced
  (``tests/logistic_helpers.py``, the tests' reference), ``n_jobs=1``; the largest difference
  of the selection probabilities between the two is printed (same half-samples);
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


def numpy_solver():
    """A context in which penalized_logistic runs the NumPy FISTA of the tests' reference."""
    import contextlib

    sys.path.insert(0, str(ROOT / "tests"))
    from logistic_helpers import reference_fista
    from stablefs.selectors import penalized_logistic as pl

    def fista(Z, Y, s, binary, l1, l2, lam, W, b, tol, max_iter):
        step = 1.0 / ((0.25 if binary else 0.5) * pl._lipschitz(Z, s) + l2)
        return reference_fista(Z, Y, s, binary, l1, l2, lam, W, b, tol, max_iter, step)

    @contextlib.contextmanager
    def patched():
        original = pl._fista
        pl._fista = fista
        try:
            yield
        finally:
            pl._fista = original

    return patched()


def bench(name: str, pairs: int) -> None:
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
    with numpy_solver():
        rows["stabsel, NumPy solver (peer)"] = cpu_and_wall(
            lambda: make_selector("stabsel", n_subsamples=pairs, random_state=0,
                                  n_jobs=1).fit(X, y))
    rows["relieff"] = cpu_and_wall(lambda: make_selector("relieff").fit(X, y))
    rows["stabsel-relieff"] = cpu_and_wall(
        lambda: make_selector("stabsel-relieff", n_subsamples=pairs, random_state=0,
                              n_jobs=1).fit(X, y))
    classes = np.unique(y).size
    print(f"\n{name} {X.shape[0]} x {X.shape[1]}, {classes} classes, {pairs} pairs, load "
          f"{os.getloadavg()[0]:.1f}, {os.cpu_count()} cpus")
    relieff_cpu = rows["relieff"][0]
    for key, (cpu, wall, _) in rows.items():
        print(f"  {key:30} CPU {cpu:8.3f} s  wall {wall:8.3f} s  CPU / ReliefF fit "
              f"{cpu / relieff_cpu:8.1f}")
    new = rows["stabsel n_jobs=1"][2].selection_probabilities_
    old = rows["stabsel, NumPy solver (peer)"][2].selection_probabilities_
    same = np.array_equal(rows["stabsel (default n_jobs)"][2].selection_probabilities_, new)
    print(f"  peer / compiled (CPU, n_jobs=1): "
          f"{rows['stabsel, NumPy solver (peer)'][0] / rows['stabsel n_jobs=1'][0]:.1f}x; "
          f"probabilities: max |difference| {np.abs(new - old).max():.3g}, identical for "
          f"both n_jobs: {same}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="srbct,su")
    parser.add_argument("--pairs", type=int, default=50)
    args = parser.parse_args(argv)
    for name in args.datasets.split(","):
        bench(name.strip(), args.pairs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
