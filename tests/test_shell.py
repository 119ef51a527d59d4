"""``stablefs.cli._shell``: commands shown to users are one shell word per argument, readable."""

from __future__ import annotations

import shlex

from hypothesis import given
from hypothesis import strategies as st

from stablefs.cli._shell import shell_join, shell_quote


@given(st.lists(st.text(min_size=0, max_size=30), max_size=5))
def test_the_shell_reads_back_every_argument(args):
    assert shlex.split(shell_join(args)) == args


@given(st.text(alphabet="ab'(),= -$\"\\!`*", max_size=20))
def test_one_word_each(arg):
    assert shlex.split(shell_quote(arg)) == [arg]


def test_method_strings_read_as_typed():
    assert shell_quote("sfs(estimator='svm'),relieff") == "\"sfs(estimator='svm'),relieff\""
    assert shell_quote("relieff,iw-relieff") == "relieff,iw-relieff"  # nothing to quote
    assert shell_quote("a b") == "'a b'"  # no single quote: shlex's form
    assert shell_quote("it's $HOME") == shlex.quote("it's $HOME")  # $ would expand in "..."
    assert shell_join(["stablefs", "compare", "x y.csv", "-m", "sfs(k='3nn')"]) == (
        "stablefs compare 'x y.csv' -m \"sfs(k='3nn')\"")
