"""pytest's doctest collection of ``src/stablefs`` (``--doctest-modules``, pyproject.toml).

pytest imports each module under ``src/stablefs`` to collect its docstrings' examples; the
tests in ``tests/`` must use the same copy of the package, or pytest stops with an import
mismatch (after a non-editable ``pip install .``, ``import stablefs`` would find the installed
copy while the doctests come from ``src``). This file is outside the package (it is not
installed) and pytest loads it before collecting anything: it puts ``src`` first on
``sys.path``, so that tests and doctests run the same code, the code in this checkout.
"""

import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parent)
if SRC in sys.path:
    sys.path.remove(SRC)
sys.path.insert(0, SRC)
