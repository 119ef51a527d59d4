"""The error types users see, and the command line's exit status for each.

Every check on user input raises :class:`StablefsError` with a single line that names the
problem and what to do about it (``docs/DESIGN.md``, "Errors"). It subclasses ``ValueError``
so that scikit-learn conventions (``fit`` raising ``ValueError`` on bad data) keep holding.
The command line prints the message alone, without a traceback, and exits with the error's
:attr:`~StablefsError.exit_code`: 2 for a bad option (a usage error), 3 for data that cannot
be read or used (:class:`DataError`), 4 for what the machine refused: the file system, the
memory, a scheduler (:class:`ResourceError`).
"""

#: exit status of the command line: success (also "no evidence of signal")
EXIT_OK = 0
#: an unexpected failure (a bug: please report it)
EXIT_INTERNAL = 1
#: a bad option or command line
EXIT_USAGE = 2
#: the input data (or a side file: sample sheet, annotation) cannot be read or used
EXIT_DATA = 3
#: the machine refused: writing or reading files, memory, an unreachable scheduler
EXIT_RESOURCE = 4
#: interrupted (Ctrl-C, SIGTERM); finished fits are kept for a resumed rerun
EXIT_INTERRUPTED = 130


class StablefsError(ValueError):
    """Bad input, reported as one line: what is wrong and what to do.

    The command line prints it as ``stablefs: error: <message>`` and exits with
    :attr:`exit_code`; :class:`DataError` (3) and :class:`ResourceError` (4) refine it.

    Parameters
    ----------
    message : str
        What is wrong and what to do; any line breaks and runs of spaces become one space.

    Examples
    --------
    >>> from stablefs import StablefsError
    >>> err = StablefsError("unknown method 'relif'.    Did you mean relieff?")
    >>> str(err), err.exit_code
    ("unknown method 'relif'. Did you mean relieff?", 2)
    """

    #: the command line's exit status for this error
    exit_code = EXIT_USAGE

    def __init__(self, message: str) -> None:
        message = " ".join(str(message).split())  # always a single line
        super().__init__(message)


class DataError(StablefsError):
    """The data (or a side file) cannot be read or used as given."""

    exit_code = EXIT_DATA


class ResourceError(StablefsError):
    """The machine refused: a file could not be written or read, not enough memory, a
    scheduler that does not answer."""

    exit_code = EXIT_RESOURCE


def as_data_error(exc: StablefsError) -> StablefsError:
    """``exc`` as a :class:`DataError`, unless it is already classified."""
    if type(exc) is StablefsError:
        return DataError(str(exc))
    return exc
