"""Benchmark: peak memory of one fit against the size of the data array (issue 36).

Each (method, shape) runs in a fresh Python process: the data (standard normal, two classes,
float64) is drawn, the method is fitted once on a 64-feature slice (compiled code and imports
loaded outside the measurement), the peak resident set size is reset (Linux: ``5`` written to
``/proc/self/clear_refs`` resets ``VmHWM``), and the fit runs. The figure is the peak resident
set size during the fit minus the resident size just before it, divided by ``X.nbytes``
(everything the fit allocated and touched, NumPy, Numba and libsvm alike). ``tracemalloc``'s
peak is printed beside it (NumPy and Python allocations only). CPU time of the fit too.

Run from the project root::

    .venv/bin/python benchmarks/bench_memory.py                      # the four methods, both shapes
    .venv/bin/python benchmarks/bench_memory.py -m relieff -s 5000x2000

Target (issue 36): at most 3x the data array for relieff, svm-rfe, l1-logistic and drags at
n = 5000 x p = 2000 and n = 100 x p = 50,000.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_METHODS = ("relieff", "svm-rfe", "l1-logistic", "drags")
DEFAULT_SHAPES = ("5000x2000", "100x50000")
TARGET = 3.0


def _status(field: str) -> int:
    """A ``/proc/self/status`` field in bytes (``VmRSS``, ``VmHWM``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def child(method: str, n: int, p: int, seed: int) -> dict:
    """Fit ``method`` on ``n x p`` data in this process; the measurements as a dict."""
    import tracemalloc

    import numpy as np

    from stablefs.methods import make_selector

    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], [n // 2, n - n // 2])
    X = rng.normal(size=(n, p))
    X[:, :20] += 0.5 * y[:, None]  # a few relevant features
    make_selector(method).fit(X[:, :64].copy(), y)  # imports and compiled code
    Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current RSS
    base = _status("VmRSS")
    tracemalloc.start()
    cpu = time.process_time()
    make_selector(method).fit(X, y)
    cpu = time.process_time() - cpu
    traced = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    peak = _status("VmHWM")
    return {"method": method, "n": n, "p": p, "data": X.nbytes, "rss": peak - base,
            "traced": traced, "cpu": cpu}


def measure(method: str, n: int, p: int, seed: int = 0) -> dict:
    """:func:`child` in a fresh process (so that earlier fits do not lower the peak)."""
    here = str(Path(__file__).resolve().parent)
    code = (f"import json, sys; sys.path.insert(0, {here!r}); import bench_memory as b; "
            f"print(json.dumps(b.child({method!r}, {n}, {p}, {seed})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    if done.returncode != 0:
        raise RuntimeError(f"{method} {n}x{p}: {done.stderr.strip()[-800:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-m", "--methods", default=",".join(DEFAULT_METHODS))
    parser.add_argument("-s", "--shapes", default=",".join(DEFAULT_SHAPES),
                        help="comma-separated NxP (default 5000x2000,100x50000)")
    args = parser.parse_args(argv)
    if not Path("/proc/self/clear_refs").exists():
        print("needs Linux (/proc/self/clear_refs)", file=sys.stderr)
        return 2
    print(f"peak memory of one fit / X.nbytes (target <= {TARGET:g}x), load "
          f"{os.getloadavg()[0]:.1f}, {os.cpu_count()} cpus, {time.strftime('%Y-%m-%d %H:%M')}")
    print(f"{'method':12} {'n x p':>12} {'X (MB)':>7} {'RSS peak':>9} {'ratio':>6} "
          f"{'traced':>7} {'CPU (s)':>8}")
    worst = 0.0
    for shape in args.shapes.split(","):
        n, p = (int(v) for v in shape.lower().split("x"))
        for method in args.methods.split(","):
            r = measure(method.strip(), n, p)
            ratio = r["rss"] / r["data"]
            worst = max(worst, ratio)
            print(f"{r['method']:12} {f'{n} x {p}':>12} {r['data'] / 1e6:7.0f} "
                  f"{r['rss'] / 1e6:8.0f}M {ratio:5.2f}x {r['traced'] / r['data']:6.2f}x "
                  f"{r['cpu']:8.2f}", flush=True)
    print(f"largest ratio {worst:.2f}x (target <= {TARGET:g}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
