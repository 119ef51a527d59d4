"""SIGTERM and SIGKILL of ``stablefs compare --n-jobs 2``: no worker process or shared-memory
segment survives its parent (issue 16, "Processes").

Each test starts a real compare in a subprocess on data that takes well over ten seconds, waits
until its two loky workers run fits, signals the parent, and then watches ``/proc``: every
child of the parent (workers and resource trackers) must be gone within seconds, and nothing
named after the parent's pid may remain in ``/dev/shm``. Linux only (``/proc``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists() or sys.platform != "linux",
                                reason="needs Linux /proc to list child processes")


def children(pid: int) -> list[int]:
    """Pids whose parent is ``pid`` (from /proc/*/stat)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry.name))
    return out


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def is_worker(pid: int) -> bool:
    try:
        return b"LokyProcess" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def shm_of(pid: int) -> list[str]:
    shm = Path("/dev/shm")
    if not shm.is_dir():
        return []
    return [p.name for p in shm.iterdir() if f"_{pid}_" in p.name or f"-{pid}-" in p.name]


def start_compare(tmp_path: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    cmd = [sys.executable, "-m", "stablefs", "compare", "-m", "en-relieff", "-k", "10",
           "--repeats", "200", "--n-jobs", "2", "--no-report", "-q", "--out",
           str(tmp_path / "run")]
    proc = subprocess.Popen(cmd, env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        workers = [c for c in children(proc.pid) if is_worker(c)]
        partial = list((tmp_path / "run").glob(".partial/*/*")) if (tmp_path / "run").exists() \
            else []
        if len(workers) >= 2 and partial:  # the workers have finished fits: the run is busy
            return proc
        if proc.poll() is not None:
            pytest.fail(f"compare ended early: {proc.communicate()[1]}")
        time.sleep(0.2)
    proc.kill()
    pytest.fail("the workers did not start within 120 s")


def wait_gone(pids, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = [p for p in pids if alive(p)]
        if not left:
            return []
        time.sleep(0.2)
    return [p for p in pids if alive(p)]


def test_sigterm_ends_workers_like_ctrl_c(tmp_path):
    proc = start_compare(tmp_path)
    kids = children(proc.pid)
    assert len([k for k in kids if is_worker(k)]) == 2
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("compare did not end within 30 s of SIGTERM")
    assert proc.returncode == 130, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines == ["stablefs: interrupted; finished fits are kept: rerun the same command "
                     "to resume."], err
    left = wait_gone(kids, 5)
    assert not left, f"processes left after SIGTERM: {left}"
    assert not shm_of(proc.pid)
    assert list((tmp_path / "run").glob(".partial/*/*"))  # finished fits kept for a resume


def test_sigkill_of_the_parent_ends_workers(tmp_path):
    proc = start_compare(tmp_path)
    kids = children(proc.pid)
    assert len([k for k in kids if is_worker(k)]) == 2
    proc.kill()
    proc.communicate(timeout=30)
    left = wait_gone(kids, 10)
    for pid in left:  # do not leave them behind if the test fails
        os.kill(pid, signal.SIGKILL)
    assert not left, f"processes left 10 s after SIGKILL of the parent: {left}"
    deadline = time.monotonic() + 5
    while shm_of(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not shm_of(proc.pid), shm_of(proc.pid)


_UNITS_SCRIPT = """
import os, sys, time, warnings
from stablefs.experiments._montecarlo import run_units

def unit(key):
    warnings.warn("unit %d says\\nsomething" % key[0], RuntimeWarning)
    return {"pid": __import__("numpy").array([os.getpid(), os.getppid()])}

out = run_units(unit, [(0,), (1,), (2,), (3,)], study="t", n_jobs=2)
print(" ".join(str(int(r["pid"][1])) for r in out), os.getpid())
"""


def test_reproduce_units_watch_their_parent_and_warn_in_one_line(tmp_path):
    """The experiments' units run as compare's fits do: in workers that end with their parent
    (stablefs._runtime.processes.worker_setup), and a warning inside a unit is one
    'stablefs: warning:' line, not Python's two lines with the source path."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run([sys.executable, "-c", _UNITS_SCRIPT], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    *parents, me = proc.stdout.split()
    assert set(parents) == {me}  # the units ran in workers of this process
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert lines and all(ln.startswith("stablefs: warning: unit ") for ln in lines), lines
    assert "RuntimeWarning" not in proc.stderr and "warnings.warn" not in proc.stderr
