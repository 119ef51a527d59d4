"""The ``stablefs`` command line: a thin shell over the library.

:mod:`._app` holds the command group and the entry point :func:`main` (one line per error,
the exit status of each kind); each command has its module (:mod:`.compare` over
:func:`stablefs.compare`, :mod:`.select`, :mod:`.reproduce`, :mod:`.benchmark`,
:mod:`.listings`); options that several commands share are declared once (:mod:`._options`,
:mod:`._config`).
"""

from stablefs.cli._app import EXIT_CODES_HELP, cli, main
from stablefs.cli._common import parse_sizes, split_list
from stablefs.cli.compare import compare
from stablefs.cli.select import select

__all__ = ["EXIT_CODES_HELP", "cli", "compare", "main", "parse_sizes", "select", "split_list"]
