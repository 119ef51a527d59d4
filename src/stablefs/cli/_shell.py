"""Commands shown to users ("Rerun with", ``run.json``): quoted for a POSIX shell, readably."""

from __future__ import annotations

import shlex

#: characters a double-quoted shell word still expands or ends at
_DOUBLE_QUOTE_SPECIAL = set('$`\\"!')


def shell_quote(arg: str) -> str:
    """``arg`` as one POSIX shell word: as it is when it needs no quoting, in double quotes
    when it holds single quotes but nothing a double-quoted word would expand (a method string
    such as ``sfs(estimator='svm')`` reads back as typed), otherwise :func:`shlex.quote`."""
    quoted = shlex.quote(arg)
    if quoted == arg or "'" not in arg or _DOUBLE_QUOTE_SPECIAL & set(arg):
        return quoted
    return f'"{arg}"'


def shell_join(args) -> str:
    """The words ``args`` joined into one command line (:func:`shell_quote` each)."""
    return " ".join(shell_quote(str(a)) for a in args)
