"""Start-up of the command line: ``stablefs --help`` and the first line of ``stablefs compare``.

Times, each in a new process, from process start to:

* the first stderr line of ``python -m stablefs compare --out DIR`` on the default data
  (``synthetic:han2012``, Han 2012 sec. 6.1: the ``Dataset(...)`` line printed after every
  option check); the process is killed there and a fresh ``--out`` folder is used each time;
* the end of ``python -m stablefs --help``.

With ``--other PATH`` (a ``src`` folder of another checkout, e.g. main's), the two are run
interleaved, this checkout first, after one warm-up run each; the median, minimum and maximum
of ``-n`` runs are printed with the load average before and after. ``--pyc`` lets Python cache
bytecode (in a temporary ``PYTHONPYCACHEPREFIX``, never in the source trees), as an installed
package has it; without it, the environment decides (``PYTHONDONTWRITEBYTECODE=1`` makes every
process compile stablefs's modules from source).

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_startup.py [-n 7] [--other ../main/src]
[--pyc]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _env(src: str, pycache: str | None) -> dict:
    env = dict(os.environ, PYTHONPATH=src)
    if pycache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = pycache
    return env


def first_line(src: str, pycache: str | None) -> tuple[float, str]:
    """Seconds from start to the first stderr line of ``compare``, and that line."""
    folder = tempfile.mkdtemp(prefix="stablefs-startup-")
    try:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "stablefs", "compare", "--out", os.path.join(folder, "run")],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=_env(src, pycache), text=True)
        line = proc.stderr.readline()
        elapsed = time.perf_counter() - t0
        proc.kill()
        proc.wait()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return elapsed, line.strip()


def help_time(src: str, pycache: str | None) -> float:
    """Seconds of a whole ``stablefs --help``."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "stablefs", "--help"], env=_env(src, pycache),
                   stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=7, help="runs of each (default 7)")
    ap.add_argument("--other", default=None, metavar="SRC",
                    help="the src folder of another checkout, run interleaved")
    ap.add_argument("--pyc", action="store_true", help="cache bytecode (outside the trees)")
    args = ap.parse_args()
    trees = {"this": str(ROOT / "src")}
    if args.other:
        trees["other"] = str(Path(args.other).resolve())
    pycache = tempfile.mkdtemp(prefix="stablefs-pycache-") if args.pyc else None
    print(f"{load()}; bytecode {'cached' if args.pyc else 'as the environment says'}")
    for src in trees.values():  # warm-up: the OS file cache, and the bytecode with --pyc
        first_line(src, pycache)
        help_time(src, pycache)
    lines = {k: [] for k in trees}
    helps = {k: [] for k in trees}
    for _ in range(args.n):
        for name, src in trees.items():
            t, text = first_line(src, pycache)
            lines[name].append(t)
            if not text.startswith("Dataset("):
                raise SystemExit(f"{name}: unexpected first line {text!r}")
    for _ in range(args.n):
        for name, src in trees.items():
            helps[name].append(help_time(src, pycache))
    print(load())
    for name, src in trees.items():
        for what, times in (("first line of compare", lines[name]), ("--help", helps[name])):
            print(f"{name:5s} {what:22s} median {statistics.median(times):.3f} s "
                  f"(min {min(times):.3f}, max {max(times):.3f}, n = {len(times)})  [{src}]")
    if pycache:
        shutil.rmtree(pycache, ignore_errors=True)


if __name__ == "__main__":
    main()
