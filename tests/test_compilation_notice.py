"""The first-use compilation notice (``stablefs._runtime.compilation``): Numba compiling one of
stablefs's kernels is announced once per kernel family and process; loading one from the cache
is not; the command line prints it unless quiet, the Python API logs it at INFO."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap

import pytest

from stablefs._runtime import compilation
from stablefs.cli import _app


@pytest.fixture
def fresh(monkeypatch):
    """Nothing announced yet in this process."""
    monkeypatch.setattr(compilation, "_announced", set())
    compilation.watch_compilation()


def _new_kernel(module: str):
    """A Numba function never compiled before (no cache), defined in ``module``."""
    import numba

    namespace = {"__name__": module}
    exec("def kernel(x):\n    return x * 2 + 1\n", namespace)
    return numba.njit(cache=False)(namespace["kernel"])


def test_a_compilation_is_announced_once_per_family(fresh):
    said = []
    with compilation.announce_compilation(said.append):
        assert _new_kernel("stablefs.selectors._smo")(3) == 7
        assert _new_kernel("stablefs.selectors._smo")(3.0) == 7.0  # the same family again
        _new_kernel("stablefs.selectors._relief_kernels")(1)
    assert len(said) == 2
    assert said[0].startswith("compiling the SVM solver for this machine")
    assert "Relief" in said[1]


def test_functions_outside_stablefs_and_compiled_ones_are_not_announced(fresh):
    said = []
    kernel = _new_kernel("stablefs.selectors._dgf_kernels")
    with compilation.announce_compilation(said.append):
        _new_kernel("someone_else.kernels")(1)
        assert said == []
        kernel(1)
        kernel(2)  # compiled in this process: no second line
    assert len(said) == 1 and "mean-shift" in said[0]


def test_without_a_listener_the_api_logs_at_info(fresh, caplog):
    with caplog.at_level(logging.INFO, logger="stablefs"):
        _new_kernel("stablefs.selectors._rfe_kernels")(1)
    assert [r.levelno for r in caplog.records] == [logging.INFO]
    assert "SVM-RFE" in caplog.records[0].getMessage()


def test_the_command_line_is_silent_when_quiet(capsys):
    logger = logging.getLogger("stablefs")
    level = logger.level
    try:
        logger.setLevel(logging.WARNING)
        _app._say_compiling("compiling x")
        assert capsys.readouterr().err == "stablefs: compiling x\n"
        logger.setLevel(logging.ERROR)  # -q
        _app._say_compiling("compiling x")
        assert capsys.readouterr().err == ""
    finally:
        logger.setLevel(level)


def test_a_cached_kernel_is_loaded_without_a_notice(tmp_path):
    """A kernel of stablefs compiled into an empty cache is announced; in the next process,
    which loads it from that cache, nothing is said."""
    script = textwrap.dedent("""
        import numpy as np

        from stablefs._runtime import compilation
        from stablefs.selectors._logistic_kernels import _penalty

        said = []
        with compilation.announce_compilation(said.append):
            assert _penalty(np.eye(3), 1.0, 0.0) == 3.0
        print(len(said))
    """)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env=env, check=True).stdout.strip() for _ in range(2)]
    assert runs == ["1", "0"]


def test_the_first_worker_announces_only_for_a_command_that_is_not_quiet():
    """``--n-jobs 2`` compiles in the workers (the pilot runs there): the command's first
    worker prints the line when this process announces and is not quiet."""
    logger = logging.getLogger("stablefs")
    level = logger.level
    try:
        logger.setLevel(logging.WARNING)
        assert not compilation.announced_in_workers()  # the Python API: INFO records only
        with compilation.announce_compilation(print):
            assert compilation.announced_in_workers()
            logger.setLevel(logging.ERROR)  # -q
            assert not compilation.announced_in_workers()
    finally:
        logger.setLevel(level)
    assert compilation.announce_to(None) is None  # the block restored the previous say
