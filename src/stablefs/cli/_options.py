"""Command-line options that several commands share, declared once."""

from __future__ import annotations

import click

from stablefs.evaluation._checks import SCHEDULER_TIMEOUT  # the Python functions' default


def scheduler_options(local: str):
    """``--scheduler ADDRESS`` and ``--scheduler-timeout SECONDS`` (``compare``, ``reproduce``,
    ``benchmark``); ``local`` says what runs without ``--scheduler``."""

    def decorate(command):
        command = click.option(
            "--scheduler-timeout", type=float, default=SCHEDULER_TIMEOUT, show_default=True,
            metavar="SECONDS",
            help="Time a --scheduler gets to complete the Dask handshake before the run is "
                 "refused.")(command)
        return click.option(
            "--scheduler", default=None, metavar="ADDRESS",
            help=f"Dask scheduler address, e.g. tcp://10.0.0.5:8786 (with --backend dask; "
                 f"default: {local}).")(command)

    return decorate
