"""Benchmark: En-ReliefF (20 bootstrap members) against one ReliefF fit, with the members
computed together and one by one, and the Lung comparison of ``relieff,iw-relieff,en-relieff``.

Run from the project root::

    .venv/bin/python benchmarks/bench_ensemble.py            # Lung, best of 3
    .venv/bin/python benchmarks/bench_ensemble.py --quick    # Colon, one repeat, no compare

Targets (benchmarks/README.md, issue "The comparison a biologist can trust", item 5):
``en-relieff`` costs at most 6x one ReliefF fit on Lung, and ``stablefs compare lung -m
relieff,iw-relieff,en-relieff --repeats 20 --n-jobs 2`` runs in under 30 s on 2 cores.
Everything runs on one BLAS thread; CPU seconds are printed beside wall seconds because
the development machine is shared.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from stablefs.datasets import load
from stablefs.selectors import ReliefF
from stablefs.stabilizers import Ensemble


class _OneByOne(ReliefF):
    """ReliefF whose ensemble members are fitted one by one (the path before sharing)."""

    _score_resamples = None


def timed(fn, repeats: int) -> tuple[float, float, object]:
    """Best wall and best CPU seconds of ``repeats`` calls, and the last result."""
    wall, cpu, out = np.inf, np.inf, None
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        wall = min(wall, time.perf_counter() - w)
        cpu = min(cpu, time.process_time() - c)
    return wall, cpu, out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="lung")
    parser.add_argument("--repeats", "-r", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    name = "colon" if args.quick else args.dataset
    repeats = 1 if args.quick else args.repeats
    ds = load(name)
    X, y = ds.X, np.asarray(ds.y)
    print(f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} cpus; "
          f"{name}: {X.shape[0]} x {X.shape[1]}; load average {os.getloadavg()[0]:.1f}")
    with threadpool_limits(1):
        one = timed(lambda: ReliefF().fit(X, y), repeats)
        shared = timed(lambda: Ensemble(ReliefF(), n_estimators=20, random_state=0).fit(X, y),
                       repeats)
        plain = timed(lambda: Ensemble(_OneByOne(), n_estimators=20, random_state=0).fit(X, y),
                      1 if args.quick else max(1, repeats - 1))
    same = np.array_equal(shared[2].ranking_, plain[2].ranking_)
    print(f"{'':44} {'wall s':>8} {'cpu s':>8} {'cpu / ReliefF':>14}")
    for label, (w, c, _) in (("ReliefF, one fit", one),
                             ("En-ReliefF, 20 members computed together", shared),
                             ("En-ReliefF, 20 members one by one", plain)):
        print(f"{label:44} {w:8.3f} {c:8.3f} {c / one[1]:13.1f}x")
    print(f"same ensemble ranking both ways: {same}; target: together <= 6x one fit "
          f"({shared[1] / one[1]:.1f}x)")
    if args.quick:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "stablefs", "compare", name, "-m",
               "relieff,iw-relieff,en-relieff", "--repeats", "20", "--n-jobs", "2",
               "--out", str(Path(tmp) / "run"), "-q", "--no-report"]
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - start
    print(f"stablefs compare {name} -m relieff,iw-relieff,en-relieff --repeats 20 --n-jobs 2: "
          f"{wall:.1f} s wall (target < 30 s); load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
