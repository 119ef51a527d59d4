"""The ``stablefs`` command group and its entry point: one line per error, the exit status
of each kind of error, signals (``docs/DESIGN.md``, "Command line").

Exit status: 0 success (also when a comparison finds no evidence of signal); 1 an unexpected
failure (a bug); 2 a bad option or command line; 3 data that cannot be read or used; 4 the
machine refused (writing or reading files, memory, an unreachable scheduler); 130
interrupted (Ctrl-C or SIGTERM; finished fits are kept for a resumed rerun).
"""

from __future__ import annotations

import contextlib
import logging
import sys

import click

from stablefs._errors import EXIT_INTERRUPTED, EXIT_RESOURCE, EXIT_USAGE, StablefsError
from stablefs._runtime.compilation import announce_compilation
from stablefs._runtime.escape import printable
from stablefs.cli._common import _stablefs_version, json_mode, set_command_args

EXIT_CODES_HELP = ("Exit status: 0 success (also when a comparison finds no evidence of "
                   "signal), 1 an unexpected failure (please report it), 2 a bad option, 3 "
                   "data that cannot be read or used, 4 the machine refused (files, memory, "
                   "scheduler), 130 interrupted (finished fits are kept).")


def _print_version(ctx: click.Context, _param, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(f"stablefs, version {_stablefs_version()}")
        ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"]},
             epilog=EXIT_CODES_HELP)
@click.option("-V", "--version", is_flag=True, expose_value=False, is_eager=True,
              callback=_print_version, help="Show the version and exit.")
def cli():
    """Stable feature selection: stable selectors, stability measures, and comparisons of
    stability and accuracy on your own data."""


def _register() -> None:
    from stablefs.cli.benchmark import benchmark
    from stablefs.cli.compare import compare
    from stablefs.cli.listings import datasets, measures, methods
    from stablefs.cli.reproduce import experiments, reproduce
    from stablefs.cli.select import select

    for command in (compare, select, reproduce, experiments, benchmark, datasets, methods,
                    measures):
        command.epilog = EXIT_CODES_HELP
        cli.add_command(command)


_register()


class _OneLine(logging.Formatter):
    """``stablefs: warning: ...`` on one line, never a source line."""

    def format(self, record: logging.LogRecord) -> str:
        from stablefs.cli._terms import cli_terms

        msg = printable(cli_terms(record.getMessage()), keep_newlines=False)
        if record.levelno >= logging.WARNING:
            return f"stablefs: {record.levelname.lower()}: {msg}"
        return f"stablefs: {msg}"


def _setup_logging() -> logging.Handler:
    """Route stablefs's log records and Python warnings to stderr as single lines."""
    import warnings

    logger = logging.getLogger("stablefs")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)
    logger.propagate = False

    def showwarning(message, category, filename, lineno, file=None, line=None):
        logger.warning(str(message))

    warnings.showwarning = showwarning
    return handler


def _say_compiling(line: str) -> None:
    """Print a first-use compilation's line (:mod:`stablefs._runtime.compilation`) unless
    the command is quiet: a wait of up to a minute does not pass in silence."""
    if logging.getLogger("stablefs").isEnabledFor(logging.WARNING):
        click.echo(f"stablefs: {line}", err=True)


def main(argv=None) -> int:
    """Entry point: run the command; bad input gives one line and the exit status of its kind
    (:data:`EXIT_CODES_HELP`). As the program (``argv`` None: the command line of this
    process), its idle worker processes are ended when the command returns instead of
    being shut down gracefully at the interpreter's exit, which took 0.6 s after the README's
    command with ``--n-jobs 2``; a caller of ``main([...])`` keeps joblib's executor for its
    next call."""
    import warnings

    set_command_args(sys.argv[1:] if argv is None else argv)
    saved = warnings.showwarning
    handler = _setup_logging()
    saved_xfsz = _ignore_file_size_signal()
    previous_sigterm = _sigterm_as_interrupt()
    try:
        with announce_compilation(_say_compiling):
            cli.main(args=argv, prog_name="stablefs", standalone_mode=False)
    except StablefsError as exc:
        from stablefs.cli._terms import cli_terms

        return _fail(printable(cli_terms(exc), keep_newlines=False), exc.exit_code)
    except OSError as exc:  # a failed write or read outside a run folder's own handling
        return _fail(_os_error_line(exc), EXIT_RESOURCE)
    except (click.exceptions.Abort, KeyboardInterrupt):
        _stop_workers()
        from stablefs.cli._common import interrupted_line

        click.echo(interrupted_line(), err=True)
        if json_mode():
            from stablefs.cli._common import echo_json

            echo_json({"status": "interrupted", "exit_code": EXIT_INTERRUPTED})
        return EXIT_INTERRUPTED
    except click.exceptions.ClickException as exc:  # a usage error: one line too
        return _fail(_click_error_line(exc), EXIT_USAGE)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    finally:
        if argv is None:
            _stop_workers()
        _restore_sigterm(previous_sigterm)
        warnings.showwarning = saved
        logging.getLogger("stablefs").removeHandler(handler)
        _restore_file_size_signal(saved_xfsz)
    return 0


def _click_error_line(exc: click.exceptions.ClickException) -> str:
    """click's usage error (an unknown option, a value of the wrong type, a missing
    argument) as one line naming the command's help, instead of click's usage block."""
    text = printable(" ".join(exc.format_message().split()), keep_newlines=False)
    if len(text) > 300:
        text = text[:280] + f"... ({len(text):,} characters)"
    ctx = getattr(exc, "ctx", None)
    where = ctx.command_path if ctx is not None else "stablefs"
    return f"{text.rstrip('.')}; see '{where} -h'."


def _fail(line: str, code: int) -> int:
    """Print the one error line (and the ``--json`` object); return the exit status."""
    click.echo(f"stablefs: error: {line}", err=True)
    if json_mode():
        from stablefs.cli._common import echo_json

        echo_json({"status": "error", "exit_code": code, "error": line})
    return code


def _ignore_file_size_signal():
    """Ignore SIGXFSZ, so that a write past a file-size limit (``ulimit -f``) fails with EFBIG
    and gets one line, instead of the signal killing the process without a word."""
    import signal

    if not hasattr(signal, "SIGXFSZ"):
        return None
    try:
        return signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    except ValueError:  # not the main thread: leave it
        return None


def _restore_file_size_signal(previous) -> None:
    import signal

    if previous is not None:
        with contextlib.suppress(ValueError):
            signal.signal(signal.SIGXFSZ, previous)


def _os_error_line(exc: OSError) -> str:
    """One line for an ``OSError``: what failed, on which file, why."""
    from stablefs._runtime.rundir import describe_os_error

    cause, fix = describe_os_error(exc)
    target = getattr(exc, "stablefs_target", None)
    if target is not None:
        return f"writing {target} failed: {cause}; {fix}, or write elsewhere."
    where = f" ({exc.filename})" if exc.filename else ""
    return f"{cause}{where}; {fix}."


def _sigterm_as_interrupt():
    """Make SIGTERM (``kill PID``, a batch system ending a job) take the Ctrl-C path: it raises
    :class:`KeyboardInterrupt` in the main thread, so finished fits are kept, the worker
    processes are ended and the exit status is 130. Returns the previous handler (``None`` when
    not in the main thread, where signal handlers cannot be set)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, interrupt)


def _restore_sigterm(previous) -> None:
    import signal

    if previous is not None:
        signal.signal(signal.SIGTERM, previous)


def _stop_workers() -> None:
    """End the worker processes of joblib's reusable loky executor at once (an interrupted
    run leaves no process behind). Nothing happens when no executor was started."""
    from stablefs._runtime.processes import kill_loky_workers

    kill_loky_workers()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
