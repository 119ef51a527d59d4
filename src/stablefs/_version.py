"""The version of stablefs, written here only: ``pyproject.toml`` reads it
(``[tool.setuptools.dynamic]``). A literal rather than ``importlib.metadata``, whose import and
search of the installed distributions took about a tenth of a second of the command line's
start-up (``benchmarks/README.md``, issue 19)."""

__version__ = "0.2.0"
