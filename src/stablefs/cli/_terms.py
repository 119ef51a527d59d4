"""Error and warning text in the command line's terms.

The library's messages name Python parameters (``missing='impute'``, ``drop_missing=True``,
``label=NAME (CLI --label NAME)``) because the Python API raises them too. A user of the
``stablefs`` command typed options, so :func:`cli_terms` rewrites every such phrase into the
option that does the same (``--missing impute``, ``--drop-missing``, ``--label NAME``) before
``main`` prints it. The rules are ordered: a phrase that already names its option
(``X (CLI --opt)``) collapses to the option first.
"""

from __future__ import annotations

import re

_VALUE = r"""(?:'([^']*)'|"([^"]*)"|([A-Za-z0-9_.:/-]+))"""

#: (pattern, replacement) applied in order
_RULES: list[tuple[re.Pattern, str]] = [
    # "python form (CLI --option ...)" and "python form (--option)": keep the option
    (re.compile(r"\b[a-z_0-9]+=\S*\s+\(CLI (--[a-z0-9-]+(?: [A-Z:_a-z]+)?)\)"), r"\1"),
    (re.compile(r"\b[a-z_0-9]+=\S*\s+\((--[a-z0-9-]+)\)"), r"\1"),
    (re.compile(r"\b[a-z_0-9]+=\s+\((--[a-z0-9-]+)\)"), r"\1"),
    (re.compile(r"\bdrop_missing=True\b"), "--drop-missing"),
    (re.compile(r"\bdrop_nominal=True\b"), "--drop-nominal"),
    (re.compile(r"\bencode_nominal=True\b"), "--encode-nominal"),
    (re.compile(r"\btranspose=True\b"), "--transpose"),
    (re.compile(r"\blog2=True\b"), "--log2"),
    (re.compile(r"\bimpute='median'"), "--missing impute"),
    (re.compile(r"\bmissing=" + _VALUE), lambda m: "--missing " + _first(m)),
    (re.compile(r"\blabels=" + _VALUE), lambda m: "--labels " + _first(m)),
    (re.compile(r"\blabel=" + _VALUE), lambda m: "--label " + _first(m)),
    (re.compile(r"\blabels=(?=[\s,.;:)]|$)"), "--labels"),
    (re.compile(r"\blabel=(?=[\s,.;:)]|$)"), "--label"),
    (re.compile(r"\bprefilter = "), "--prefilter "),
    (re.compile(r"^(seed|repeats|permutations|permutation_resamples|scale) = '?([^':]*)'?:"),
     lambda m: f"--{m.group(1).replace('_', '-')} {m.group(2)}:"),
    (re.compile(r"\bn_jobs = "), "--n-jobs "),
    # sizes from -k
    (re.compile(r"\bk = (-?\d+) features to select, but the data has only (\d+) features: "
                r"choose k <= (\d+)\."),
     r"-k \1 asks for \1 features, but the data has only \2: choose sizes of at most \3."),
    (re.compile(r"\bk = (-?\d+) features to select: k must be at least 1\."),
     r"-k \1: every subset size must be at least 1."),
    (re.compile(r"\bsubset size k = "), "subset size -k "),
    (re.compile(r"\bsize k = "), "size -k "),
]


def _first(m: re.Match) -> str:
    return next(g for g in m.groups() if g is not None)


def cli_terms(message: str) -> str:
    """``message`` with Python parameter phrasing replaced by the CLI options (one line)."""
    text = " ".join(str(message).split())
    for pattern, repl in _RULES:
        text = pattern.sub(repl, text)
    return text
