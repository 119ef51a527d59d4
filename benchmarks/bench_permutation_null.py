"""Type-I error and power of ``compare``'s permutation test of the procedure (issue 34).

The test repeats the whole choice (every default method refitted on R = 3 resamples drawn on
the permuted labels, every k evaluated, the report's recommendation rule applied) in each
permutation (:mod:`stablefs.evaluation.permutation`). This script measures

1. **type-I error** on null sets: the share of null sets with p <= 0.05, and its 95 %
   Clopper-Pearson interval (target of issue 34: upper bound <= 0.08). Two kinds of null
   set, alternating:

   * ``colon-shuffled``: Colon (Alon et al. 1999; 62 x 2000, 40/22, log2 of the intensities
     as ``benchmark`` prepares raw-looking sets) with its labels shuffled (a fresh
     permutation per null set): real correlation between genes, no signal;
   * ``gauss``: 60 x 2000 independent standard normal values, 30/30 labels: no signal.

2. **power** on Colon, Leukemia and SRBCT (real labels): p must stay 1/(B + 1).

Everything is ``compare``'s default grid: relieff, iw-relieff, en-relieff; k = 10..50; 20
stratified 2/3 splits (the observed procedure uses the first 3); SVM; Nogueira. The power
runs use compare's B = 100 (h = 5). The null sets use **B = 19** with Besag and Clifford's
stopping at the first exceedance (h = 1, the default for B = 19): p <= 0.05 exactly when the
observed statistic beats all 19 permuted ones, which under the null happens with probability
1/20 = 0.05 whatever B (the validity measured is the exchangeability of the observed and the
permuted statistics, which B does not change), and a null set costs about 1 + ln 20 ≈ 4
procedures instead of about 20. ``--permutations 100`` measures with compare's B.
Each finished null set is appended to ``--out`` (CSV), so an interrupted run resumes;
``--jobs`` null sets run at once.

Run: ``PYTHONPATH=src python benchmarks/bench_permutation_null.py --null-sets 400
[--jobs 2] [--out null.csv] [--power] [--data DIR]``.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import time
from pathlib import Path

import joblib
import numpy as np
from scipy import stats

from stablefs.evaluation.permutation import permutation_test
from stablefs.evaluation.protocols import Protocol
from stablefs.report.summary import choose_pair

METHODS = ["relieff", "iw-relieff", "en-relieff"]
SIZES = [10, 20, 30, 40, 50]
FIELDS = ["index", "kind", "n", "p", "p_value", "permutations_used", "observed", "method",
          "k", "cpu_seconds"]


def _colon(data: str):
    from stablefs.datasets import load

    os.environ.setdefault("STABLEFS_DATA", data)
    ds = load("colon")
    X = np.log2(np.maximum(ds.X, 1.0)) if np.nanpercentile(ds.X, 99) > 100 else ds.X
    return np.asarray(X, dtype=float), np.asarray(ds.y)


def null_set(index: int, colon):
    """Null set ``index``: even indices shuffle Colon's labels, odd ones are Gaussian."""
    rng = np.random.default_rng(np.random.SeedSequence([34, index]))
    if index % 2 == 0:
        X, y = colon
        return "colon-shuffled", X, y[rng.permutation(y.size)]
    return "gauss", rng.standard_normal((60, 2000)), np.repeat(np.array(["a", "b"]), 30)


def run_one(index: int, colon, n_permutations: int) -> dict:
    kind, X, y = null_set(index, colon)
    t0 = time.process_time()
    t = permutation_test(X, y, METHODS, SIZES, protocol=Protocol("split", 20),
                         choose=choose_pair, classifier="svm", measure="nogueira",
                         n_permutations=n_permutations, random_state=index, n_jobs=1)
    return {"index": index, "kind": kind, "n": X.shape[0], "p": X.shape[1],
            "p_value": t.p_value, "permutations_used": t.n_used, "observed": t.observed,
            "method": t.method, "k": t.k, "cpu_seconds": round(time.process_time() - t0, 2)}


def clopper_pearson(x: int, n: int, level: float = 0.95) -> tuple[float, float]:
    a = (1 - level) / 2
    lo = stats.beta.ppf(a, x, n - x + 1) if x > 0 else 0.0
    hi = stats.beta.ppf(1 - a, x + 1, n - x) if x < n else 1.0
    return float(lo), float(hi)


def summarise(path: Path) -> None:
    with path.open() as f:
        rows = list(csv.DictReader(f))
    print(f"\n{len(rows)} null sets ({path})")
    for kind in ("colon-shuffled", "gauss", None):
        sub = [r for r in rows if kind is None or r["kind"] == kind]
        if not sub:
            continue
        p = np.array([float(r["p_value"]) for r in sub])
        x = int(np.sum(p <= 0.05))
        lo, hi = clopper_pearson(x, len(sub))
        used = np.array([int(r["permutations_used"]) for r in sub])
        cpu = np.array([float(r["cpu_seconds"]) for r in sub])
        print(f"  {kind or 'all':15s} n = {len(sub):4d}  P(p <= 0.05) = {x}/{len(sub)} = "
              f"{x / len(sub):.3f}  95 % CP [{lo:.3f}, {hi:.3f}]  P(p <= 0.10) = "
              f"{np.mean(p <= 0.10):.3f}  mean p = {p.mean():.3f}  permutations used: "
              f"median {np.median(used):.0f}  CPU per set: median {np.median(cpu):.1f} s")


def power(data: str) -> None:
    from stablefs.datasets import load

    os.environ.setdefault("STABLEFS_DATA", data)
    print("\npower (real labels, B = 100)")
    for name in ("colon", "leukemia", "srbct"):
        ds = load(name)
        X = np.asarray(ds.X, dtype=float)
        if np.nanpercentile(X, 99) > 100:
            X = np.log2(np.maximum(X, 1.0))
        t0 = time.process_time()
        t = permutation_test(X, ds.y, METHODS, SIZES, protocol=Protocol("split", 20),
                             choose=choose_pair, classifier="svm", measure="nogueira",
                             n_permutations=100, random_state=0, n_jobs=1)
        print(f"  {name}: {X.shape[0]} x {X.shape[1]}; chose {t.method} at k={t.k}, observed "
              f"{t.observed:.3f}, null mean {np.mean(t.statistics):.3f}, p = {t.p_value:.4f} "
              f"({t.n_used} permutations, {t.exceedances} exceedances; "
              f"{time.process_time() - t0:.0f} s CPU)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.environ.get("STABLEFS_DATA", "../shared/datasets"))
    ap.add_argument("--null-sets", type=int, default=400)
    ap.add_argument("--start", type=int, default=0, help="index of the first null set")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--permutations", type=int, default=19)
    ap.add_argument("--out", default="permutation_null.csv")
    ap.add_argument("--power", action="store_true", help="also the three real sets")
    ap.add_argument("--summary-only", action="store_true")
    args = ap.parse_args()
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    out = Path(args.out)
    if not args.summary_only:
        done = set()
        if out.exists():
            with out.open() as f:
                done = {int(r["index"]) for r in csv.DictReader(f)}
        todo = [i for i in range(args.start, args.start + args.null_sets) if i not in done]
        colon = _colon(args.data)
        new = not out.exists()
        with out.open("a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS)
            if new:
                w.writeheader()
            par = joblib.Parallel(n_jobs=args.jobs, return_as="generator_unordered")
            for i, row in enumerate(par(joblib.delayed(run_one)(j, colon, args.permutations)
                                  for j in todo)):
                w.writerow(row)
                f.flush()
                if (i + 1) % 20 == 0:
                    print(f"{len(done) + i + 1} null sets done", flush=True)
    summarise(out)
    if args.power:
        power(args.data)
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
