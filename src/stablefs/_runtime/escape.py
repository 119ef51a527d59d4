"""Text that leaves stablefs for another program: spreadsheets and terminals.

**Spreadsheets (CSV injection, CWE-1236).** A spreadsheet that opens a CSV, TSV or GMT file
runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a formula, and a cell that starts
with a tab or a carriage return can hide one. Feature names come from the user's data file, so a
gene named ``=HYPERLINK("http://x","y")`` would become a live link (or worse) in the signature a
user opens in Excel. :func:`escape_cell` applies the OWASP rule ("CSV Injection"): such a text
cell gets a leading single quote (``'=HYPERLINK(...)``), which spreadsheets show as text and do
not evaluate. Two choices:

* only **text** cells are escaped; numeric columns are written untouched, and so is a text cell
  that is a plain number (``-1.5``, ``+2e-3``): a spreadsheet reads it as that number and
  runs nothing, while quoting it would turn data into text;
* the column names (the header row) follow the same rule.

A text cell holding a **control character** (an ESC sequence that recolours the terminal of
whoever runs ``cat signature.csv``, a right-to-left override that reorders what a spreadsheet
shows, a tab or line end that splits a GMT field) is written with visible ``\\xNN`` escapes
behind the mark ``'\\`` instead (:func:`escape_cell`).

:func:`unescape_cell` gives a program the raw text back. Every CSV/TSV/GMT that stablefs writes
for people goes through :func:`csv_text` or :func:`escape_cell` (``signature.csv``,
``signature.gmt``, ``frequencies.csv``, ``results.csv``, ``stability.csv``,
``comparisons.csv``, ``stablefs select --out``, the tables and ``claims.csv`` of ``stablefs
reproduce``). What programs read back keeps the raw names: the
rankings of ``selections.parquet`` index the data's columns in file order (the names are the
data file's own, ``stablefs.datasets.load(...).feature_names``), the Python API returns the raw
names, and the converted registry cache ``<name>.csv.gz`` is data, not a report, and is
written raw.

**Terminals.** :func:`printable` replaces control characters (ANSI escape sequences, carriage
returns, bidirectional overrides) in text bound for a terminal with visible ``\\x..`` escapes,
so a file or feature name cannot rewrite the screen or hide part of a message.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas is imported where a frame is escaped (start-up of the CLI)
    import pandas as pd

__all__ = ["CONTROL_MARK", "FORMULA_TRIGGERS", "SHOWN_NAME_CHARS", "csv_text", "escape_cell",
           "escape_frame", "printable", "shorten", "unescape_cell"]

#: First characters that make a spreadsheet evaluate (or hide) a cell (OWASP, "CSV Injection").
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")

_PLAIN_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")

# C0 controls but newline, DEL, C1 controls, and the Unicode bidirectional overrides/isolates
# (U+202A..U+202E, U+2066..U+2069) and zero-width marks used to disguise text on a screen
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL_BUT_TAB = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


#: what a text cell of a file may not hold raw: every C0 control (tabs and line ends split
#: GMT and TSV fields and rows), DEL, C1 controls and the bidirectional controls
_FILE_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: the start of a cell whose controls are written as escapes (see :func:`escape_cell`)
CONTROL_MARK = "'\\"
_UNESCAPE = re.compile(r"\\(\\|x[0-9a-f]{2}|u[0-9a-f]{4})")


def _needs_quote(text: str) -> bool:
    body = text.lstrip("'")
    return body.startswith(FORMULA_TRIGGERS) and not _PLAIN_NUMBER.fullmatch(body)


def _visible(m: re.Match) -> str:
    code = ord(m.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_cell(value):
    r"""``value`` made safe for a spreadsheet cell, a GMT field and a terminal that shows the
    file.

    * A ``str`` holding a control character (an ESC sequence, a tab, a line end, a
      right-to-left override: :data:`_FILE_CONTROL`), or starting with :data:`CONTROL_MARK`,
      is written as ``CONTROL_MARK`` (``'\``) followed by the text with each backslash doubled
      and each control shown as ``\xNN`` / ``\uNNNN``: nothing in the file can recolour a
      terminal, reorder what a reader sees or split a field, and the leading ``'`` keeps a
      spreadsheet from evaluating it.
    * Otherwise a ``str`` that starts with one of :data:`FORMULA_TRIGGERS` and is not a plain
      number gets a leading ``'`` (OWASP); a text that already starts with quotes before such
      a character (``'=x``) gets one more.
    * Any other value, including every non-string, is returned unchanged.

    :func:`unescape_cell` gives back every raw text exactly.

    >>> escape_cell('=HYPERLINK("http://x","y")')
    '\'=HYPERLINK("http://x","y")'
    >>> escape_cell("-1.5"), escape_cell("-2+3"), escape_cell(-2.0), escape_cell("BRCA1")
    ('-1.5', "'-2+3", -2.0, 'BRCA1')
    >>> print(escape_cell("\u202eevil\x1b[2J"))
    '\\u202eevil\x1b[2J
    """
    if not isinstance(value, str):
        return value
    if _FILE_CONTROL.search(value) or value.startswith(CONTROL_MARK):
        return CONTROL_MARK + _FILE_CONTROL.sub(_visible, value.replace("\\", "\\\\"))
    if _needs_quote(value):
        return "'" + value
    return value


def unescape_cell(value):
    r"""The raw text of a cell written by :func:`escape_cell` (for programs that read the CSV,
    TSV or GMT files back): a cell starting with :data:`CONTROL_MARK` has its escapes decoded,
    and otherwise one leading ``'`` is removed where :func:`escape_cell` added it.

    >>> unescape_cell("'=HYPERLINK(1)"), unescape_cell("''=x"), unescape_cell("'quoted")
    ('=HYPERLINK(1)', "'=x", "'quoted")
    >>> unescape_cell(escape_cell("\x1b[31mred\\")) == "\x1b[31mred\\"
    True
    """
    if not isinstance(value, str):
        return value
    if value.startswith(CONTROL_MARK):
        def raw(m: re.Match) -> str:
            code = m.group(1)
            return "\\" if code == "\\" else chr(int(code[1:], 16))

        return _UNESCAPE.sub(raw, value[len(CONTROL_MARK):])
    if value.startswith("'") and _needs_quote(value[1:]):
        return value[1:]
    return value


def escape_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` whose text cells and column names pass through :func:`escape_cell`.

    Numeric, boolean and datetime columns are not touched (their values are not text); a text,
    object or categorical column has each string cell escaped. ``df`` itself is not changed.
    """
    import pandas as pd

    out = df.copy(deep=False)
    for i in range(df.shape[1]):
        series = df.iloc[:, i]
        if pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(
                series.dtype) or pd.api.types.is_datetime64_any_dtype(series.dtype):
            continue
        if isinstance(series.dtype, pd.CategoricalDtype):
            series = series.astype(object)
        out.isetitem(i, series.map(escape_cell, na_action="ignore"))
    out.columns = [escape_cell(c) for c in df.columns]
    return out


def csv_text(df: pd.DataFrame, **to_csv) -> str:
    """``df`` as CSV text (``DataFrame.to_csv`` keywords; ``index=False`` by default) with its
    text cells escaped (:func:`escape_frame`).

    Python's ``csv`` writer quotes a cell holding the line terminator (``\n``) but not one
    holding a lone carriage return, which most readers (pandas, spreadsheets) take as the end
    of a row: a feature named ``"a\rb"`` would split its row in two. When a text cell holds a
    ``\r``, every text cell is quoted (``csv.QUOTE_NONNUMERIC``); other tables are written
    exactly as ``to_csv`` writes them.
    """
    import csv

    import pandas as pd

    out = escape_frame(df)
    to_csv.setdefault("index", False)
    cells = [c for c in out.columns if isinstance(c, str)]
    for i in range(out.shape[1]):
        series = out.iloc[:, i]
        if series.dtype == object or pd.api.types.is_string_dtype(series.dtype):
            cells.extend(v for v in series if isinstance(v, str))
    if any("\r" in c for c in cells):
        to_csv.setdefault("quoting", csv.QUOTE_NONNUMERIC)
    return out.to_csv(**to_csv)


def printable(text, *, keep_newlines: bool = True, keep_tabs: bool = False) -> str:
    """``text`` with control characters shown as ``\\xNN`` / ``\\uNNNN`` escapes.

    For messages, names and paths printed on a terminal: an ESC sequence, a carriage return or
    a bidirectional override in a file or feature name cannot recolour the screen, overwrite
    the line or reorder what the user reads. Newlines are kept when ``keep_newlines`` (tables
    have several lines), escaped otherwise. Tabs are escaped unless ``keep_tabs`` (HTML, where
    a tab is white space).
    """
    text = str(text)

    text = (_CONTROL if not keep_tabs else _CONTROL_BUT_TAB).sub(_visible, text)
    if not keep_newlines:
        text = text.replace("\n", "\\n")
    return text


#: the widest name a table printed on a terminal shows whole (characters)
SHOWN_NAME_CHARS = 60


def shorten(text, width: int = SHOWN_NAME_CHARS) -> str:
    """``text`` cut to about ``width`` characters for a table printed on a terminal, saying
    how long it was: a 100,000-character feature name would pad every row of the table to its
    width (``GGGGGGGG... (100,000 characters)``). Files keep every name whole."""
    text = str(text)
    if len(text) <= width:
        return text
    return f"{text[:max(1, width - 24)]}... ({len(text):,} characters)"
