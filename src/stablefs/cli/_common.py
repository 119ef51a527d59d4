"""Helpers the commands share: verbosity, the seed check, the command line as typed (for
``run.json`` and the report's "Rerun with"), the interrupted line, ``--json`` output, and the
inputs of :mod:`stablefs.comparison._inputs` (lists, sizes, data loading) under their
command-line names.

They live below the command modules so that none of them imports another for them.
"""

from __future__ import annotations

import json
import logging
import sys

from stablefs._errors import StablefsError
from stablefs._runtime.versions import package_versions as _versions  # noqa: F401
from stablefs._runtime.versions import stablefs_version as _stablefs_version  # noqa: F401
from stablefs.cli._shell import shell_join
from stablefs.comparison._inputs import DEFAULT_SIZES, parse_sizes, split_list  # noqa: F401
from stablefs.comparison._inputs import data_digest as _data_digest  # noqa: F401
from stablefs.comparison._inputs import load_data as _load  # noqa: F401


def _set_verbosity(quiet: bool, verbose: int) -> None:
    level = logging.ERROR if quiet else (logging.DEBUG if verbose > 1 else
                                         logging.INFO if verbose else logging.WARNING)
    logging.getLogger("stablefs").setLevel(level)


def _check_seed(seed: int) -> None:
    if seed < 0:
        raise StablefsError(f"--seed must be 0 or more, not {seed}.")


#: the arguments of the running command (set by :func:`stablefs.cli.main` through
#: :func:`set_command_args`), for run.json and the report
_ARGV: list[str] = []


def set_command_args(args) -> None:
    """Record the running command's arguments (for :func:`_command_line`)."""
    _ARGV[:] = [str(a) for a in args]


#: the commands that keep finished fits in their output folder, so that rerunning an
#: interrupted one resumes it
RESUMABLE_COMMANDS = ("compare", "reproduce", "benchmark")
#: what a command says when its output folder holds this very run
REUSED = ("nothing refitted (the same configuration gives the same files; another --out folder "
          "recomputes it).")


def command_name() -> str:
    """The subcommand being run (``compare``, ``select``, ...), or ``""``."""
    return next((a for a in _ARGV if not a.startswith("-")), "")


def interrupted_line() -> str:
    """The line an interrupted command prints: the resume hint only for the commands that
    keep their finished fits (``select``, for one, keeps nothing to resume)."""
    if command_name() in RESUMABLE_COMMANDS:
        return "stablefs: interrupted; finished fits are kept: rerun the same command to resume."
    return "stablefs: interrupted."


def _command_line() -> str:
    """The whole command as typed, shell-quoted, so that "Rerun with" reruns it."""
    return "stablefs " + shell_join(_ARGV)


def json_mode() -> bool:
    """Whether the running command was given ``--json`` (one JSON object on stdout)."""
    return "--json" in _ARGV and command_name() in ("compare", "select", "benchmark")


def echo_json(payload: dict) -> None:
    """Print ``payload`` as the one JSON object of ``--json`` on stdout."""
    print(json.dumps({"command": command_name(), **payload}, default=str), file=sys.stdout,
          flush=True)
