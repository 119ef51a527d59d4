"""Benchmark: stablefs SVMRFE against a plain SVC loop and scikit-learn's RFE, and En-SVM-RFE.

Run from the project root::

    .venv/bin/python benchmarks/bench_svm_rfe.py            # Lung (181 x 12533)
    .venv/bin/python benchmarks/bench_svm_rfe.py --quick    # Colon (62 x 2000), 1 repeat

All timings in one run, on the same min-max scaled data (Weka SMO's normalisation, as SVMRFE
applies it):

- ``SVMRFE(n_features_to_select=10, step=0.1)``: 10 % of the remaining features per iteration
  (Han 2012 sec. 5.2.1), and then on down to one feature for the full ranking; timed twice:
  on the raw data (its own min-max scaling included) and, like the peers, on the already
  scaled data with ``scale=None`` (the same work as the peers: the scaling is outside their
  timings). The targets are judged on the second row;
- the plain loop: ``SVC(kernel="linear", C=1)`` refitted on the remaining columns with the same
  schedule down to 10 features (what SVMRFE computes, done the obvious way);
- ``sklearn.feature_selection.RFE(SVC(kernel="linear"), n_features_to_select=10, step=0.1)``,
  whose step is 10 % of the *original* features (a tenth of the iterations);
- ``Ensemble(SVMRFE(), n_estimators=20)``: 20 bootstrap members (En-SVM-RFE, Han 2012
  sec. 5.2.3) with ``--n-jobs`` workers.

Targets (benchmarks/README.md): SVMRFE >= 10x faster than the plain loop (issue 19: >= 15x)
and no slower than scikit-learn's RFE on Lung; the 20-member ensemble on Lung < 10 s on 2
cores. The "same 10 features" check holds for two classes only (with more, SVMRFE sums w^2 over
one-vs-rest problems, the plain loop reads SVC.coef_[0], a one-vs-one pair).
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
import sklearn
from sklearn.feature_selection import RFE
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from stablefs.selectors import SVMRFE
from stablefs.selectors.svm_rfe import rfe_schedule
from stablefs.stabilizers import Ensemble

ROOT = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    """``STABLEFS_DATA`` (first folder holding colon.csv.gz) or ``../shared/datasets``."""
    for folder in os.environ.get("STABLEFS_DATA", "").split(os.pathsep):
        if folder and (Path(folder) / "colon.csv.gz").is_file():
            return Path(folder)
    return ROOT.parent / "shared" / "datasets"


def load(name: str, folder: Path) -> tuple[np.ndarray, np.ndarray]:
    frame = pd.read_csv(folder / f"{name}.csv.gz", dtype={"label": str})
    X = frame.drop(columns="label").to_numpy(dtype=float)
    _, y = np.unique(frame["label"].to_numpy(), return_inverse=True)
    return X, y


def minmax(X: np.ndarray) -> np.ndarray:
    lo = X.min(axis=0)
    span = X.max(axis=0) - lo
    span[span == 0] = 1.0
    return (X - lo) / span


def plain_loop(Xs: np.ndarray, y: np.ndarray, k: int) -> np.ndarray:
    """SVM-RFE the obvious way: SVC(kernel="linear") on the remaining columns, 10 % schedule,
    stopping at k features; returns the k selected feature indices."""
    schedule = rfe_schedule(Xs.shape[1], 0.1, k)
    remaining = np.arange(Xs.shape[1])
    for m, nxt in zip(schedule, schedule[1:]):
        if m == k:
            break
        coef = SVC(kernel="linear", C=1.0).fit(Xs[:, remaining], y).coef_[0]
        order = np.lexsort((-remaining, coef**2))
        remaining = np.sort(remaining[order[m - nxt:]])
    return remaining


def timed(fn) -> tuple[float, float, object]:
    """Wall-clock and process CPU seconds of one call (CPU time is less sensitive to other
    processes on a shared machine; both are printed)."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def best_of(fn, repeats: int) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="lung", help="data set (default lung)")
    parser.add_argument("--repeats", "-r", type=int, default=3,
                        help="best of R runs for SVMRFE and the ensemble (default 3)")
    parser.add_argument("--peer-repeats", type=int, default=3,
                        help="best of R runs for the plain loop and sklearn RFE (default 3)")
    parser.add_argument("--peer-blas-threads", type=int, default=1,
                        help="BLAS threads for the plain loop and sklearn RFE (default 1, as "
                             "SVMRFE uses; 0 = the library default)")
    parser.add_argument("--n-jobs", type=int, default=2, help="ensemble workers (default 2)")
    parser.add_argument("--quick", action="store_true", help="Colon, one repeat each")
    args = parser.parse_args(argv)
    name = "colon" if args.quick else args.dataset
    repeats = 1 if args.quick else args.repeats
    peer_repeats = 1 if args.quick else args.peer_repeats
    folder = data_dir()
    if not (folder / f"{name}.csv.gz").is_file():
        print(f"{name}.csv.gz not found in {folder}: set STABLEFS_DATA", file=sys.stderr)
        return 2
    print(f"python {platform.python_version()}, numpy {np.__version__}, scikit-learn "
          f"{sklearn.__version__}, {os.cpu_count()} cpus, data {folder}")
    X, y = load(name, folder)
    Xs = minmax(X)
    k = 10
    n_iter = int(np.searchsorted(-rfe_schedule(X.shape[1], 0.1, k), -k)) + 1
    print(f"{name}: {X.shape[0]} x {X.shape[1]}; 10 % schedule to {k} features = {n_iter} "
          f"SVM fits (SVMRFE goes on to 1 feature: "
          f"{rfe_schedule(X.shape[1], 0.1, k).size} fits)")

    SVMRFE(n_features_to_select=k).fit(X[:, :200], y)  # warm-up
    # interleaved, best of each: a busy machine slows all three alike
    best = {key: [np.inf, np.inf] for key in ("ours_raw", "ours", "loop", "rfe")}

    def record(key, fn):
        if not key.startswith("ours") and args.peer_blas_threads:
            with threadpool_limits(args.peer_blas_threads):
                wall, cpu, out = timed(fn)
        else:
            wall, cpu, out = timed(fn)
        best[key] = [min(best[key][0], wall), min(best[key][1], cpu)]
        return out

    load_before = os.getloadavg()[0]
    for r in range(max(repeats, peer_repeats)):
        if r < repeats:
            ours_raw = record("ours_raw", lambda: SVMRFE(n_features_to_select=k).fit(X, y))
            ours = record("ours", lambda: SVMRFE(n_features_to_select=k, scale=None).fit(Xs, y))
        if r < peer_repeats:
            loop_sel = record("loop", lambda: plain_loop(Xs, y, k))
            rfe = record("rfe", lambda: RFE(SVC(kernel="linear", C=1.0),
                                            n_features_to_select=k, step=0.1).fit(Xs, y))
    (ours_t, ours_c), (loop_t, loop_c), (rfe_t, rfe_c) = best["ours"], best["loop"], best["rfe"]
    raw_t, raw_c = best["ours_raw"]
    same = (np.array_equal(np.flatnonzero(ours.support_), loop_sel)
            and np.array_equal(ours.support_, ours_raw.support_))
    overlap = int(np.count_nonzero(ours.support_ & rfe.support_))

    def ensemble():
        return Ensemble(SVMRFE(n_features_to_select=k), n_estimators=20, random_state=0,
                        n_jobs=args.n_jobs).fit(X, y)

    ensemble()  # start the workers once, as a long-running session would have them
    en_t, _ = best_of(ensemble, repeats)

    print()
    print(f"load average {load_before:.1f} (start) / {os.getloadavg()[0]:.1f} (end) on "
          f"{os.cpu_count()} cpus")
    print(f"{'method':48} {'wall s':>8} {'ratio':>7} {'cpu s':>8} {'ratio':>7}")
    rows = [("stablefs SVMRFE on scaled data (as the peers)", ours_t, ours_c),
            ("stablefs SVMRFE on raw data (scaling included)", raw_t, raw_c),
            ("plain SVC(kernel=linear) loop, same schedule", loop_t, loop_c),
            ("sklearn RFE(SVC linear, step=0.1 of p)", rfe_t, rfe_c)]
    for label, wall, cpu in rows:
        print(f"{label:48} {wall:8.3f} {wall / ours_t:6.1f}x {cpu:8.3f} {cpu / ours_c:6.1f}x")
    print(f"{f'stablefs Ensemble(SVMRFE), 20 bootstraps, n_jobs={args.n_jobs}':48} "
          f"{en_t:8.3f} {en_t / ours_t:6.1f}x")
    print()
    print(f"SVMRFE's {k} features (both rows) equal the plain loop's: {same}; overlap with "
          "sklearn RFE "
          f"(another schedule): {overlap}/{k}")
    print(f"targets: plain loop / SVMRFE = {loop_t / ours_t:.1f} wall, {loop_c / ours_c:.1f} "
          f"cpu (>= 10; issue 19: >= 15); sklearn RFE / SVMRFE = {rfe_t / ours_t:.1f} wall, "
          f"{rfe_c / ours_c:.1f} cpu (>= 1); ensemble {en_t:.2f} s (< 10 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
