"""The one error type users see for bad input.

Every check on user input raises :class:`StablefsError` with a single line that names the
problem and what to do about it (``docs/DESIGN.md``, "Errors"). It subclasses ``ValueError``
so that scikit-learn conventions (``fit`` raising ``ValueError`` on bad data) keep holding.
The command line prints the message alone, without a traceback, and exits with status 2.
"""


class StablefsError(ValueError):
    """Bad input, reported as one line: what is wrong and what to do."""

    def __init__(self, message: str):
        message = " ".join(str(message).split())  # always a single line
        super().__init__(message)
