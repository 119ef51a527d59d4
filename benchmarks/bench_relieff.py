"""Benchmark: stablefs ReliefF vs skrebate's and fast-select's ReliefF; margin weights on Lung.

Run from the project root::

    .venv/bin/python benchmarks/bench_relieff.py            # Colon and Lung, 3 repeats
    .venv/bin/python benchmarks/bench_relieff.py --quick    # Colon only, 1 repeat

    .venv/bin/python benchmarks/bench_relieff.py --no-skrebate --datasets lung  # issue 9 item 5

Targets (see benchmarks/README.md): ReliefF >= 30x faster than skrebate on Colon (62 x 2000),
>= 100x on Lung (181 x 12533), k = 10 neighbours; margin_instance_weights on Lung < 1 s;
En-ReliefF (20 bootstrap members) <= 6x one ReliefF fit on Lung (CPU time, runs interleaved,
beside the plain member-by-member path as the peer); ``stablefs compare lung -m
relieff,iw-relieff,en-relieff`` at 20 splits under 30 s wall on 2 cores (``--n-jobs 2``).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from stablefs.selectors import ReliefF
from stablefs.stabilizers import Ensemble, margin_instance_weights

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
    _, y = np.unique(frame["label"].to_numpy(), return_inverse=True)  # skrebate wants numbers
    return X, y


def best_of(fn, repeats: int) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


class MemberByMember(ReliefF):
    """ReliefF without the shared ensemble path: every member is its own fit (the peer)."""

    _score_resamples = None


def cpu_and_wall(fn) -> tuple[float, float]:
    """(CPU seconds of this process and its threads, wall seconds) of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - cpu, time.perf_counter() - wall


def bench_ensemble(X: np.ndarray, y: np.ndarray, repeats: int) -> None:
    """ReliefF, En-ReliefF (20 members, shared path) and the member-by-member En-ReliefF on the
    same data, interleaved (one of each per round), best CPU and wall time of each."""
    fits = {
        "ReliefF": lambda: ReliefF(n_neighbors=10).fit(X, y),
        "En-ReliefF (20)": lambda: Ensemble(ReliefF(n_neighbors=10), n_estimators=20,
                                            random_state=0).fit(X, y),
        "En member-by-member": lambda: Ensemble(MemberByMember(n_neighbors=10),
                                                n_estimators=20, random_state=0).fit(X, y),
    }
    best = {name: [np.inf, np.inf] for name in fits}
    for _ in range(repeats):
        for name, fn in fits.items():
            cpu, wall = cpu_and_wall(fn)
            best[name] = [min(best[name][0], cpu), min(best[name][1], wall)]
    base_cpu, base_wall = best["ReliefF"]
    print(f"\nEn-ReliefF on lung {X.shape[0]} x {X.shape[1]} (best of {repeats}, interleaved)")
    print(f"{'fit':22} {'CPU (s)':>8} {'wall (s)':>9} {'CPU / ReliefF':>14} "
          f"{'wall / ReliefF':>15}")
    for name, (cpu, wall) in best.items():
        print(f"{name:22} {cpu:8.3f} {wall:9.3f} {cpu / base_cpu:13.2f}x "
              f"{wall / base_wall:14.2f}x")
    en_cpu = best["En-ReliefF (20)"][0]
    print(f"target: En-ReliefF <= 6x ReliefF (CPU): {en_cpu / base_cpu:.2f}x; "
          f"member-by-member / shared: {best['En member-by-member'][0] / en_cpu:.2f}x (CPU)")


def relative_gap(a: np.ndarray, b: np.ndarray) -> float:
    """Largest difference of two score vectors relative to the largest |score| of ``b``."""
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


def one_thread(fn):
    """``fn`` with stablefs's kernels on one thread (``STABLEFS_NUM_THREADS=1``)."""
    def run():
        old = os.environ.get("STABLEFS_NUM_THREADS")
        os.environ["STABLEFS_NUM_THREADS"] = "1"
        try:
            return fn()
        finally:
            if old is None:
                del os.environ["STABLEFS_NUM_THREADS"]
            else:
                os.environ["STABLEFS_NUM_THREADS"] = old
    return run


#: seconds of rest before each timed fit: fast-select's OpenMP threads spin-wait after a
#: parallel fit, and that CPU time would be billed to the next fit measured in this process
REST = 0.05


def bench_fast_select(name: str, X: np.ndarray, y: np.ndarray, repeats: int) -> None:
    """stablefs ReliefF against fast-select's (Numba, float32, fast-math) on the same data,
    interleaved (one of each per round, a short rest before each), warm (compiled code
    loaded); median and best CPU and wall time of ``repeats``. Like for like: stablefs on one
    thread against fast-select's ``n_jobs=1`` (CPU), and both on every core (wall:
    stablefs's kernels use :func:`stablefs._runtime.threads.kernel_threads`, fast-select's
    ``n_jobs=-1``)."""
    from fast_select import ReliefF as FastReliefF

    ours = lambda: ReliefF(n_neighbors=10).fit(X, y).scores_  # noqa: E731
    fits = {
        "stablefs, 1 thread": one_thread(ours),
        "stablefs, all cores": ours,
        "fast-select n_jobs=1": lambda: FastReliefF(
            n_neighbors=10, n_features_to_select=10, n_jobs=1, backend="cpu").fit(
                X, y).feature_importances_,
        "fast-select n_jobs=-1": lambda: FastReliefF(
            n_neighbors=10, n_features_to_select=10, n_jobs=-1, backend="cpu").fit(
                X, y).feature_importances_,
    }
    scores = {key: fn() for key, fn in fits.items()}  # warm-up: compiled code loaded
    cpu = {key: [] for key in fits}
    wall = {key: [] for key in fits}
    for _ in range(repeats):
        for key, fn in fits.items():
            time.sleep(REST)
            c, w = cpu_and_wall(fn)
            cpu[key].append(c)
            wall[key].append(w)
    mine = scores["stablefs, 1 thread"]
    assert np.array_equal(mine, scores["stablefs, all cores"]), "thread count changed scores"
    theirs = np.asarray(scores["fast-select n_jobs=1"], dtype=float)
    rho = float(np.corrcoef(np.argsort(np.argsort(mine)), np.argsort(np.argsort(theirs)))[0, 1])
    med = {key: (float(np.median(cpu[key])), float(np.median(wall[key]))) for key in fits}
    print(f"\n{name} {X.shape[0]} x {X.shape[1]}, ReliefF k = 10, warm, {repeats} rounds "
          f"(interleaved), load {os.getloadavg()[0]:.1f}, {os.cpu_count()} cpus; "
          "median (best) in ms")
    for key in fits:
        print(f"  {key:22} CPU {1e3 * med[key][0]:8.2f} ({1e3 * min(cpu[key]):8.2f})   "
              f"wall {1e3 * med[key][1]:8.2f} ({1e3 * min(wall[key]):8.2f})")
    fs1, fsall = med["fast-select n_jobs=1"], med["fast-select n_jobs=-1"]
    one, every = med["stablefs, 1 thread"], med["stablefs, all cores"]
    print(f"  stablefs / fast-select: CPU, one thread each {one[0] / fs1[0]:.2f}; "
          f"wall, every core {every[1] / fsall[1]:.2f}; CPU, every core {every[0] / fsall[0]:.2f}")
    print(f"  scores: the same for 1 and {os.cpu_count()} threads; against fast-select "
          f"Spearman {rho:.10f}, max relative difference {relative_gap(theirs, mine):.2e} "
          "(its float32)")


def bench_memory(n: int = 200, p: int = 50_000) -> None:
    """Peak memory allocated during a ReliefF fit on ``n x p`` float64 data, against the size of
    X (NumPy allocations through ``tracemalloc``; the compiled kernels allocate only their
    block copies; ``bench_memory.py`` measures the resident set size of every method)."""
    import tracemalloc

    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, p))
    y = np.repeat([0, 1], [n // 2, n - n // 2])
    ReliefF(n_neighbors=10).fit(X[:, :100], y)  # compiled code loaded outside the trace
    tracemalloc.start()
    ReliefF(n_neighbors=10).fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"\nReliefF on {n} x {p}: peak allocation during the fit {peak / 2**20:.0f} MiB = "
          f"{peak / X.nbytes:.2f}x X ({X.nbytes / 2**20:.0f} MiB; target <= 3x)")


def bench_compare(folder: Path, n_jobs: int) -> None:
    """Wall and CPU time (this process's children) of the Lung comparison of issue 9 item 5."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-m", "stablefs", "compare", "lung", "-m",
               "relieff,iw-relieff,en-relieff", "--protocol", "split", "--repeats", "20",
               "--n-jobs", str(n_jobs), "--no-progress", "--out", str(Path(out) / "run")]
        env = {**os.environ, "STABLEFS_DATA": str(folder)}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(cmd, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        print(f"\ncompare failed ({done.returncode}): {done.stderr.strip()[-500:]}")
        return
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"\n{' '.join(cmd[2:])}\n  wall {wall:.1f} s (target < 30 s on 2 cores), CPU of all "
          f"its processes {cpu:.1f} s, load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cpus")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", "-r", type=int, default=3,
                        help="best of R runs for stablefs (default 3)")
    parser.add_argument("--skrebate-repeats", type=int, default=1,
                        help="best of R runs for skrebate (default 1; it is slow)")
    parser.add_argument("--datasets", default="colon,lung",
                        help="comma-separated data sets (default colon,lung)")
    parser.add_argument("--quick", action="store_true",
                        help="Colon only, one repeat each (skips the minutes-long skrebate Lung)")
    parser.add_argument("--no-skrebate", action="store_true", help="no skrebate timing")
    parser.add_argument("--no-fast-select", action="store_true",
                        help="no fast-select comparison (it is in the bench extra)")
    parser.add_argument("--wide", action="store_true",
                        help="also a synthetic 100 x 22,283 set (the width of an HG-U133A "
                             "array; no such set is in the shared data) against fast-select")
    parser.add_argument("--no-memory", action="store_true",
                        help="skip the 200 x 50,000 memory measurement")
    parser.add_argument("--no-compare", action="store_true",
                        help="skip the 20-split Lung comparison (about 30-60 s)")
    parser.add_argument("--compare-jobs", type=int, default=2,
                        help="--n-jobs of the Lung comparison (default 2)")
    args = parser.parse_args(argv)
    names = ["colon"] if args.quick else [s.strip() for s in args.datasets.split(",") if s]
    repeats = 1 if args.quick else args.repeats
    folder = data_dir()
    if not (folder / "colon.csv.gz").is_file():
        print(f"data not found in {folder}: set STABLEFS_DATA", file=sys.stderr)
        return 2
    try:
        from skrebate import ReliefF as SkReliefF
    except ImportError:
        SkReliefF = None
        print("skrebate not installed: timing stablefs only", file=sys.stderr)
    if args.no_skrebate:
        SkReliefF = None

    print(f"python {platform.python_version()}, numpy {np.__version__}, "
          f"{os.cpu_count()} cpus, data {folder}")
    rows = []
    for name in names:
        X, y = load(name, folder)
        ReliefF(n_neighbors=10).fit(X[:, :50], y)  # warm-up
        ours_t, ours = best_of(lambda X=X, y=y: ReliefF(n_neighbors=10).fit(X, y), repeats)
        theirs_t = rho = np.nan
        if SkReliefF is not None:
            sk = SkReliefF(n_neighbors=10, n_features_to_select=10, n_jobs=1)
            theirs_t, fitted = best_of(lambda sk=sk, X=X, y=y: sk.fit(X, y),
                                       1 if args.quick else args.skrebate_repeats)
            rho = float(np.corrcoef(np.argsort(np.argsort(ours.scores_)),
                                    np.argsort(np.argsort(fitted.feature_importances_)))[0, 1])
        rows.append((name, X.shape, ours_t, theirs_t, rho))
        if not args.no_fast_select:
            bench_fast_select(name, X, y, repeats)

    print()
    print(f"{'data':8} {'n x p':>12} {'stablefs (s)':>13} {'skrebate (s)':>13} "
          f"{'speed-up':>9} {'Spearman':>9}")
    for name, shape, ours_t, theirs_t, rho in rows:
        ratio = theirs_t / ours_t
        print(f"{name:8} {f'{shape[0]} x {shape[1]}':>12} {ours_t:13.4f} {theirs_t:13.2f} "
              f"{ratio:8.0f}x {rho:9.5f}")

    if args.wide and not args.no_fast_select:
        rng = np.random.default_rng(0)
        yw = np.repeat([0, 1], 50)
        Xw = rng.normal(size=(100, 22_283))
        Xw[:, :50] += 0.8 * yw[:, None]  # 50 relevant genes
        bench_fast_select("synthetic", Xw, yw, repeats)
    if not (args.no_memory or args.quick):
        bench_memory()
    X, y = load("lung", folder) if "lung" in names or args.quick else (None, None)
    if X is not None:
        margin_instance_weights(X[:, :100], y)  # warm-up
        t, _ = best_of(lambda: margin_instance_weights(X, y), repeats)
        print(f"\nmargin_instance_weights on lung {X.shape[0]} x {X.shape[1]}: {t:.3f} s "
              f"(target < 1 s)")
        bench_ensemble(X, y, repeats)
        if not (args.no_compare or args.quick):
            bench_compare(folder, args.compare_jobs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
