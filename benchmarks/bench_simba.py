"""Benchmark: one Simba pass on Lung against peers in the same run, and the two weight scales
of SimbaMIW-Delta.

Run from the project root::

    .venv/bin/python benchmarks/bench_simba.py            # Lung timings + scales on Colon
    .venv/bin/python benchmarks/bench_simba.py --quick    # 1 repeat, 5 resamples

Target (benchmarks/README.md): one Simba pass (linear utility, T = n) on Lung (181 x 12533)
under 5 s. Peers: a textbook NumPy Simba (``np.linalg.norm((X - x) * w, axis=1)`` per
instance, the same visiting order, so its scores must agree), stablefs ReliefF (K = 10, every
instance; the same O(n^2 p) work class) and Relief.
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

from stablefs.selectors import PDReliefF, Relief, ReliefF, Simba
from stablefs.stability import kuncheva
from stablefs.stabilizers import logistic_instance_weights, margin_instance_weights

ROOT = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    """``STABLEFS_DATA`` (first folder holding lung.csv.gz) or ``../shared/datasets``."""
    for folder in os.environ.get("STABLEFS_DATA", "").split(os.pathsep):
        if folder and (Path(folder) / "lung.csv.gz").is_file():
            return Path(folder)
    return ROOT.parent / "shared" / "datasets"


def load(name: str, folder: Path) -> tuple[np.ndarray, np.ndarray]:
    frame = pd.read_csv(folder / f"{name}.csv.gz", dtype={"label": str})
    X = frame.drop(columns="label").to_numpy(dtype=float)
    _, y = np.unique(frame["label"].to_numpy(), return_inverse=True)
    return X, y


def best_of(fn, repeats: int) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def textbook_simba(X: np.ndarray, y: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Simba (Gilad-Bachrach et al. 2004) as usually written in NumPy: the peer."""
    span = X.max(0) - X.min(0)
    span[span == 0] = 1.0
    Xs = (X - X.min(0)) / span
    w = np.ones(X.shape[1])
    for i in order:
        diff = Xs - Xs[i]
        d = np.linalg.norm(diff * w, axis=1)
        d[i] = np.inf
        same = y == y[i]
        nm = np.argmin(np.where(same, np.inf, d))
        nh = np.argmin(np.where(same, d, np.inf))
        w = w + 0.5 * (diff[nm] ** 2 / d[nm] - diff[nh] ** 2 / d[nh]) * w
    return w**2 / np.max(w**2)


def timings(X, y, repeats: int) -> None:
    print(f"Lung {X.shape[0]} x {X.shape[1]}: best of {repeats}")
    t_simba, est = best_of(lambda: Simba(random_state=0).fit(X, y), repeats)
    order = np.random.RandomState(0).permutation(X.shape[0])
    t_text, text = best_of(lambda: textbook_simba(X, y, order), 1)
    t_rf, _ = best_of(lambda: ReliefF().fit(X, y), repeats)
    t_r, _ = best_of(lambda: Relief().fit(X, y), repeats)
    t_pd, _ = best_of(lambda: PDReliefF(random_state=0).fit(X, y), 1)
    t_liw, _ = best_of(lambda: logistic_instance_weights(X, y), repeats)
    agree = float(np.max(np.abs(est.scores_ - text)))
    rows = [
        ("Simba, one pass (stablefs)", t_simba, ""),
        ("Simba, textbook NumPy (1 run)", t_text, f"max |score diff| = {agree:.1e}"),
        ("ReliefF K = 10 (stablefs)", t_rf, ""),
        ("Relief (stablefs)", t_r, ""),
        ("pdReliefF K = 10, m = n (1 run)", t_pd, ""),
        ("logistic_instance_weights", t_liw, ""),
    ]
    for name, t, note in rows:
        print(f"  {name:34s} {t:7.3f} s  {t / t_simba:6.2f}x Simba  {note}")
    print(f"  target: Simba pass < 5 s -> {'met' if t_simba < 5 else 'MISSED'}; "
          f"textbook / stablefs = {t_text / t_simba:.2f}")


VARIANTS = {
    "Simba": dict(),
    "SimbaMIW-Delta, weight_scale='none'": dict(instance_weighting="margin", delta=True,
                                                weight_scale="none"),
    "SimbaMIW-Delta, weight_scale='mean'": dict(instance_weighting="margin", delta=True),
    "SimbaLIW-Delta, weight_scale='none'": dict(instance_weighting="logistic", delta=True,
                                                weight_scale="none"),
    "SimbaLIW-Delta, weight_scale='mean'": dict(instance_weighting="logistic", delta=True),
}


def scales(X, y, n_resamples: int, k: int = 50) -> None:
    """SimbaMIW-Delta with MBIW weights as given (sum 1) and rescaled to mean 1."""
    print(f"\nColon {X.shape[0]} x {X.shape[1]}: {n_resamples} random 90 % subsamples, "
          f"Kuncheva at k = {k}")
    rng = np.random.RandomState(0)
    n = X.shape[0]
    variants = VARIANTS
    subsets = {name: [] for name in variants}
    spread = {name: [] for name in variants}
    for r in range(n_resamples):
        idx = np.sort(rng.choice(n, size=int(0.9 * n), replace=False))
        for name, params in variants.items():
            s = Simba(random_state=r, **params).fit(X[idx], y[idx]).scores_
            subsets[name].append(np.argsort(-s, kind="stable")[:k])
            spread[name].append(np.median(s))
    mbiw = margin_instance_weights(X, y)
    print(f"  MBIW weights: sum {mbiw.sum():.3f}, mean {mbiw.mean():.4f} (1/n = {1 / n:.4f})")
    for name in variants:
        print(f"  {name:38s} Kuncheva {kuncheva(subsets[name], X.shape[1]):.3f}  "
              f"median w^2/max w^2 {np.mean(spread[name]):.3f}")


def han_synthetic(n_sets: int, k: int = 50) -> None:
    """The same variants on independent Han 2012 synthetic training sets (100 x 1000, 50
    relevant features): Kuncheva at k and the share of relevant features in the top k."""
    from stablefs.datasets import make_han2012

    print(f"\nHan 2012 synthetic, {n_sets} independent training sets (100 x 1000), k = {k}")
    subsets = {name: [] for name in VARIANTS}
    precision = {name: [] for name in VARIANTS}
    for r in range(n_sets):
        data = make_han2012(random_state=r)
        relevant = set(np.asarray(data.relevant).tolist())
        for name, params in VARIANTS.items():
            s = Simba(random_state=r, **params).fit(data.X, data.y).scores_
            top = np.argsort(-s, kind="stable")[:k]
            subsets[name].append(top)
            precision[name].append(len(relevant.intersection(top.tolist())) / k)
    for name in VARIANTS:
        print(f"  {name:38s} Kuncheva {kuncheva(subsets[name], 1000):.3f}  "
              f"top-{k} precision {np.mean(precision[name]):.3f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", "-r", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=10)
    parser.add_argument("--han-sets", type=int, default=20,
                        help="Han 2012 synthetic training sets (default 20)")
    parser.add_argument("--quick", action="store_true", help="1 repeat, 5 resamples, 5 sets")
    args = parser.parse_args(argv)
    if args.quick:
        args.repeats, args.resamples, args.han_sets = 1, 5, 5
    folder = data_dir()
    if not (folder / "lung.csv.gz").is_file():
        print(f"no lung.csv.gz in {folder}: set STABLEFS_DATA", file=sys.stderr)
        return 1
    print(f"Python {platform.python_version()}, NumPy {np.__version__}, "
          f"{os.cpu_count()} CPUs (shared machine: compare ratios, not seconds)")
    timings(*load("lung", folder), args.repeats)
    scales(*load("colon", folder), args.resamples)
    han_synthetic(args.han_sets)
    return 0


if __name__ == "__main__":
    sys.exit(main())
