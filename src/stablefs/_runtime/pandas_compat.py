"""Version-dependent ``pandas`` options, in one place.

``EXACT_FLOATS`` are the keyword arguments that make :func:`pandas.read_csv` parse every
number to the correctly rounded float64 (the value Python's ``float(text)`` gives), so a CSV
written with the shortest round-trip ``repr`` reads back bit for bit. Before pandas 3.1 that
needed ``float_precision="round_trip"`` (the default "high" converter can be off by one unit
in the last place); pandas 3.1 uses one correctly rounded converter for every mode and
deprecates the argument, so nothing is passed there. ``tests/test_runner.py`` checks the
round trip on the installed version.
"""

from __future__ import annotations

import pandas as pd

__all__ = ["EXACT_FLOATS"]


def _version(text: str) -> tuple[int, int]:
    major, minor = (text.split(".") + ["0"])[:2]
    return int(major), int("".join(ch for ch in minor if ch.isdigit()) or 0)


EXACT_FLOATS: dict[str, str] = (
    {} if _version(pd.__version__) >= (3, 1) else {"float_precision": "round_trip"}
)
