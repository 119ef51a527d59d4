"""Benchmark: margin weights with distance weighting and logistic margin weighting on Lung,
and peak memory at 200 x 50,000.

Run from the project root::

    .venv/bin/python benchmarks/bench_margin.py            # Lung timings + memory, 3 repeats
    .venv/bin/python benchmarks/bench_margin.py --quick    # 1 repeat, memory at 200 x 10,000

Targets (issue 8, benchmarks/README.md): ``margin_instance_weights(neighbor_weighting=
"distance")`` on Lung (181 x 12533) < 1 s; ``LogisticMarginWeighting`` on Lung < 5 s; peak
memory (tracemalloc, beyond the input) of ReliefF and margin weights < 3x the size of X at
200 x 50,000.

Peers measured in the same run:

- distance-weighted margins: a row-by-row NumPy loop (``|X - x_i|`` then ``C[i] @``), the
  obvious implementation of eq. 4.3, and the kernel stablefs used before (each pair's
  ``|x_k - x_l|`` formed once over cache-sized blocks and added to both rows), timed alone and
  inside the whole weighting;
- logistic margin weighting: scikit-learn's ``LogisticRegression`` (L-BFGS, no intercept,
  ``C = 1 / (2 gamma n)``) on the same margin vectors, which has the same minimiser.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import tracemalloc
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from stablefs.selectors import LogisticMarginWeighting, ReliefF
from stablefs.selectors._neighbors import minmax_scale
from stablefs.selectors.logistic_margin import logistic_margin_vectors
from stablefs.stabilizers import margin, margin_instance_weights
from stablefs.stabilizers.margin import coefficient_abs_diff, neighbor_distance_weights

ROOT = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    for folder in os.environ.get("STABLEFS_DATA", "").split(os.pathsep):
        if folder and (Path(folder) / "lung.csv.gz").is_file():
            return Path(folder)
    return ROOT.parent / "shared" / "datasets"


def load_lung() -> tuple[np.ndarray, np.ndarray]:
    frame = pd.read_csv(data_dir() / "lung.csv.gz", dtype={"label": str})
    X = frame.drop(columns="label").to_numpy(dtype=float)
    return X, frame["label"].to_numpy()


def best_of(fn, repeats: int) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def rowwise_margins(Xs: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Peer: eq. 4.3 one instance at a time."""
    out = np.empty_like(Xs)
    for i in range(Xs.shape[0]):
        out[i] = C[i] @ np.abs(Xs - Xs[i])
    return out


def symmetric_margins(Xs: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Peer (the kernel before): each pair's ``|x_k - x_l|`` once, added to both rows."""
    n, p = Xs.shape
    out = np.zeros((n, p))
    width = max(1, min(p, 2**18 // max(n, 1)))
    buf = np.empty(n * width)
    CT = np.ascontiguousarray(C.T)
    for start in range(0, p, width):
        cols = Xs[:, start : start + width]
        acc = out[:, start : start + width]
        w = cols.shape[1]
        for l in range(n - 1):
            T = buf[: (n - l - 1) * w].reshape(n - l - 1, w)
            np.subtract(cols[l + 1 :], cols[l], out=T)
            np.abs(T, out=T)
            acc[l] += C[l, l + 1 :] @ T
            T *= CT[l, l + 1 :, None]
            acc[l + 1 :] += T
    return out


def weights_before(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Peer: the whole distance-weighted weighting with the kernel before."""
    with mock.patch.object(margin, "coefficient_abs_diff", lambda Xs, C: _limited(
            symmetric_margins, Xs, C)):
        return margin_instance_weights(X, y, neighbor_weighting="distance")


def _limited(fn, *args):
    with threadpool_limits(1, user_api="blas"):
        return fn(*args)


def sklearn_logistic(Z: np.ndarray, gamma: float = 1.0) -> np.ndarray:
    """Peer: the minimiser of (1/n) sum log(1 + exp(-w.z_i)) + gamma |w|^2 by scikit-learn."""
    n = Z.shape[0]
    sign = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)  # two classes: flip half the rows
    model = LogisticRegression(C=1.0 / (2.0 * gamma * n), fit_intercept=False, tol=1e-8,
                               max_iter=1000)
    model.fit(Z * sign[:, None], sign)
    return model.coef_.ravel()


def peak_ratio(fn, X) -> float:
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / X.nbytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    repeats = 1 if args.quick else 3
    print(f"python {sys.version.split()[0]}, {platform.machine()}, {os.cpu_count()} cores; "
          f"load {os.getloadavg()[0]:.1f}")

    X, y = load_lung()
    print(f"Lung {X.shape[0]} x {X.shape[1]}, best of {repeats}")
    _, codes = np.unique(y, return_inverse=True)
    # now and before, interleaved so that both see the same load
    t_dist, t_before = np.inf, np.inf
    for _ in range(repeats):
        t, w_dist = best_of(
            lambda: margin_instance_weights(X, y, neighbor_weighting="distance"), 1)
        t_dist = min(t_dist, t)
        t, w_before = best_of(lambda: weights_before(X, y), 1)
        t_before = min(t_before, t)
    gap_w = float(np.max(np.abs(w_dist - w_before) / w_before))
    t_plain, _ = best_of(lambda: margin_instance_weights(X, y), repeats)
    Xs = minmax_scale(X)
    C = neighbor_distance_weights(Xs, codes)
    with threadpool_limits(1, user_api="blas"):
        t_ours_k, ours = best_of(lambda: coefficient_abs_diff(Xs, C), repeats)
        t_sym_k, sym = best_of(lambda: symmetric_margins(Xs, C), repeats)
        t_peer_k, peer = best_of(lambda: rowwise_margins(Xs, C), repeats)
    assert np.allclose(ours, peer, atol=1e-9)
    print(f"  margin weights, distance-weighted (eqs. 4.3-4.6): {t_dist:7.3f} s  (target < 1 s; "
          f"{t_before:.3f} s with the kernel before, weights equal to {gap_w:.1e} relative)")
    print(f"  margin weights, plain (eqs. 4.2, 4.6):             {t_plain:7.3f} s")
    print(f"  eq. 4.3 kernel {t_ours_k:.3f} s vs before (symmetric pairs) {t_sym_k:.3f} s "
          f"({t_sym_k / t_ours_k:.1f}x) vs row-by-row NumPy {t_peer_k:.3f} s "
          f"({t_peer_k / t_ours_k:.1f}x); largest difference "
          f"{np.max(np.abs(ours - sym)):.1e} (margins up to {np.max(np.abs(sym)):.2f})")

    t_lmw, sel = best_of(lambda: LogisticMarginWeighting().fit(X, y), repeats)
    Z = logistic_margin_vectors(X, y)
    t_sk, w_sk = best_of(lambda: sklearn_logistic(Z), repeats)
    t_z, _ = best_of(lambda: logistic_margin_vectors(X, y), repeats)
    gap = float(np.max(np.abs(sel.coef_ - w_sk)) / np.max(np.abs(w_sk)))
    print(f"  logistic margin weighting (Li et al. 2013):       {t_lmw:7.3f} s  (target < 5 s; "
          f"{sel.n_iter_} L-BFGS iterations)")
    print(f"  solve only: ours {t_lmw - t_z:.3f} s vs scikit-learn LogisticRegression "
          f"{t_sk:.3f} s (same minimiser to {gap:.1e} relative)")

    p = 10_000 if args.quick else 50_000
    rng = np.random.default_rng(0)
    Xm = rng.normal(size=(200, p))
    ym = np.arange(200) % 2
    print(f"peak memory beyond X (tracemalloc) at 200 x {p} (X = {Xm.nbytes / 2**20:.0f} MiB):")
    for name, fn in (
        ("margin weights, plain", lambda: margin_instance_weights(Xm, ym)),
        ("margin weights, distance", lambda: margin_instance_weights(
            Xm, ym, neighbor_weighting="distance")),
        ("ReliefF (k = 10)", lambda: ReliefF().fit(Xm, ym)),
        ("logistic margin weighting", lambda: LogisticMarginWeighting().fit(Xm, ym)),
    ):
        print(f"  {name:28s} {peak_ratio(fn, Xm):5.2f}x X  (target < 3x)")


if __name__ == "__main__":
    main()
