"""Timing of the stability measures against the issue #3 budgets.

* Kuncheva, Jaccard and Nogueira over 100 subsets of size 50 from p = 20,000: < 50 ms each
  (input given as index lists, conversion included).
* The same three measures in pyensemblefs (a Python port of R's stabm), on the same input in the
  same run, when it is installed: the speed-up ratio and the absolute difference of the values.
* nPOGR on Lung (181 × 12533) with 100 subsets of size 50 (10,000 random pairs for E(O)):
  < 10 s (data loading excluded).

Run: ``.venv/bin/python benchmarks/bench_stability.py [--repeat N] [--data DIR]``.
Lung subsets are the top-50 genes by |Welch t| on 100 bootstrap samples (a realistic, highly
overlapping and correlated system); if the data set is not found only the first part runs.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from stablefs.stability import jaccard, kuncheva, nogueira, npogr


def _best(fn, repeat: int) -> tuple[float, float]:
    times, value = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return min(times), value


def bench_subsets(repeat: int) -> None:
    rng = np.random.default_rng(0)
    p, m, k = 20_000, 100, 50
    core = rng.choice(p, 200, replace=False)            # some overlap, as real selections
    subsets = [np.r_[rng.choice(core, 30, replace=False),
                     rng.choice(np.setdiff1d(np.arange(p), core), 20, replace=False)]
               for _ in range(m)]
    subsets = [list(map(int, s)) for s in subsets]       # plain Python index lists
    try:
        from pyensemblefs.stability.stability import stability as peer
    except ImportError:
        peer = None
        print("pyensemblefs not installed (pip install -e '.[bench]'): no peer ratios")
    # pyensemblefs has no Kuncheva; its Phi coefficient equals Kuncheva for equal sizes
    peer_names = {"kuncheva": "phi", "jaccard": "jaccard", "nogueira": "nogueira"}
    for name, fn in (("kuncheva", kuncheva), ("jaccard", jaccard), ("nogueira", nogueira)):
        t, v = _best(lambda fn=fn: fn(subsets, p), repeat)
        flag = "ok" if t < 0.05 else "SLOW"
        line = f"{name:9s} m={m} k={k} p={p}: {1000 * t:7.2f} ms  value={v:.4f}  [{flag} < 50 ms]"
        if peer is not None:
            tp, vp = _best(lambda n=peer_names[name]: peer(features=subsets, measure=n, p=p,
                                                             index_base=0), max(1, repeat // 3))
            line += (f"  pyensemblefs {1000 * tp:9.1f} ms ({tp / t:6.0f}x slower, "
                     f"|diff| {abs(v - vp):.1e})")
        print(line)


def _lung_path(data_dir: str | None) -> Path | None:
    dirs = [data_dir] if data_dir else []
    dirs += [d for d in os.environ.get("STABLEFS_DATA", "").split(os.pathsep) if d]
    dirs.append(str(Path(__file__).resolve().parents[2] / "shared" / "datasets"))
    for d in dirs:
        path = Path(d) / "lung.csv.gz"
        if path.is_file():
            return path
    return None


def bench_npogr(data_dir: str | None, repeat: int) -> None:
    path = _lung_path(data_dir)
    if path is None:
        print("nPOGR: lung.csv.gz not found (set STABLEFS_DATA or --data); skipped")
        return
    df = pd.read_csv(path, dtype={"label": str})
    y = df["label"].to_numpy()
    X = df.drop(columns="label").to_numpy(float)
    major = pd.Series(y).value_counts().index[0]
    rng = np.random.default_rng(0)
    subsets = []
    for _ in range(100):
        b = rng.integers(0, len(y), len(y))
        pos = y[b] == major
        t = stats.ttest_ind(X[b][pos], X[b][~pos], equal_var=False).statistic
        subsets.append(np.argsort(-np.abs(np.nan_to_num(t)), kind="stable")[:50])
    union = len(set(np.concatenate(subsets).tolist()))
    t, v = _best(lambda: npogr(subsets, X), repeat)
    flag = "ok" if t < 10 else "SLOW"
    print(f"npogr     Lung {X.shape[0]}x{X.shape[1]}, m=100 k=50 (union {union} genes), "
          f"10,000 random pairs: {t:6.2f} s  value={v:.4f}  "
          f"kuncheva={kuncheva(subsets, X.shape[1]):.4f}  [{flag} < 10 s]")
    rnd = [rng.choice(X.shape[1], 50, replace=False) for _ in range(100)]
    t, v = _best(lambda: npogr(rnd, X), 1)
    print(f"npogr     Lung, 100 random subsets (union {len(set(np.concatenate(rnd).tolist()))}"
          f" genes, worst case for the observed pairs): {t:6.2f} s  value={v:.4f}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", default=None, help="folder with lung.csv.gz")
    args = parser.parse_args(argv)
    bench_subsets(args.repeat)
    bench_npogr(args.data, max(1, min(args.repeat, 2)))


if __name__ == "__main__":
    main()
