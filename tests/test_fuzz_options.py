"""Fuzzing every command's option values: success, or one ``stablefs: error:`` line and the
exit status of its kind (issue 35, finding 5).

For each command (compare, select, reproduce, benchmark, datasets, methods, measures,
experiments) a cheap valid command line is changed in one or two places: an option (or the
argument) gets a hostile value, drawn from numbers at the float and integer limits (``1e308``,
``inf``, ``nan``, a 400-digit integer, ``4.9e-324``), deep nesting (5,000 brackets or unary
minus signs), huge strings (100,000 characters), control and right-to-left characters, paths
that are devices or folders, malformed ranges, and random text; a flag may be added. The only
outcomes allowed are exit 0, or exit 2, 3 or 4 (a usage error, unusable data, the machine's
refusal: ``stablefs._errors``) with exactly one ``stablefs: error:`` line (the last line of
stderr) and no traceback; an exception escaping ``main`` fails the test. Nothing runs
for long: the commands work on a 30 x 12 table with one method and two resamples, benchmark
with ``--dry-run``, and reproduce stops where its Monte-Carlo units would start.

Profiles: by default 20 examples per command, derandomized (about a minute);
``HYPOTHESIS_PROFILE=fuzz`` runs 500 per command::

    HYPOTHESIS_PROFILE=fuzz PYTHONPATH=src pytest tests/test_fuzz_options.py -q
"""

from __future__ import annotations

import os

import click
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import write_toy
from stablefs._errors import EXIT_DATA, EXIT_RESOURCE, EXIT_USAGE
from stablefs.cli import cli, main

LONG = os.environ.get("HYPOTHESIS_PROFILE", "") == "fuzz"
EXAMPLES = 500 if LONG else 20
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=not LONG,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])

#: values at the limits of numbers, nesting and size, and malformed ones
HOSTILE = [
    "0", "-0", "1", "2", "-1", "-2", "1e308", "-1e308", "1e309", "inf", "-inf", "nan", "NaN",
    "1e-320", "4.9e-324", "9" * 400, "-" + "9" * 400, str(2**63), str(2**64), str(-2**63),
    "0x10", "1_000", "1.5", "", " ", "a", "é", "\x1b[31mred", "\u202eevil", "\r", "\t",
    "(" * 5000, "[" * 5000, "-" * 5000 + "1", "x" * 100_000, ",", ",,,", ":", "::",
    "1:2:3:4", "10:1", "1:1e308", "0:0", "2:" + "9" * 400, "-1:-1", "/", "/dev/zero",
    "/dev/null", "..", ".", "synthetic:han2012?n_samples=1e308",
    "synthetic:han2012?n_samples=" + "9" * 400, "synthetic:" + "x" * 10_000,
    "relieff(n_neighbors=" + "-" * 5000 + "1)", "iw-" * 300 + "relieff",
    "relieff(n_neighbors=1e308)", "en-ttest(n_estimators=" + "9" * 400 + ")",
    "relieff(n_neighbors=3,n_neighbors=4)", "ttest(" + "(" * 300 + "1" + ")" * 300 + ")",
    "key=value", "n_sets=" + "9" * 400, "n_sets=1e308", "n_sets=-1", "n_sets=nan", "=",
]

#: whole numbers: small ones, and ones past every count a machine can run (moderate counts
#: such as --repeats 12533 are valid and merely long, so they are not drawn)
numbers = st.one_of(st.integers(-3, 3), st.integers(2**31, 2**80),
                    st.integers(-2**80, -2**31)).map(str)
values = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=30), numbers,
                   st.floats(allow_nan=True, allow_infinity=True).map(repr))


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    return str(write_toy(tmp_path_factory.mktemp("fuzz") / "toy.csv"))


def _base(command: str, toy: str, out: str) -> list[str]:
    cheap = ["-k", "2", "--classifiers", "1nn", "--no-report", "-q"]
    return {
        "compare": [toy, "-m", "ttest", "--repeats", "2", "--permutations", "0", "--nested",
                    "0", "--no-progress", "--out", out, *cheap],
        "select": [toy, "-m", "ttest", "-k", "2", "-q", "--no-progress"],
        "benchmark": [toy, "-m", "ttest", "--repeats", "2", "--permutations", "0",
                      "--dry-run", "--out", out, *cheap],
        "reproduce": ["li-ensembles", "--quick", "-q", "--out", out],
        "datasets": [],
        "methods": [],
        "measures": [],
        "experiments": [],
    }[command]


class _Reached(Exception):
    """reproduce got past every check, to its Monte-Carlo units."""


def _edit(args: list[str], command: str, data) -> list[str]:
    """``args`` with one or two options or arguments set to hostile values (or a flag
    added)."""
    params = [p for p in cli.commands[command].params
              if p.name not in ("help", "verbose", "quiet", "progress")]
    args = list(args)
    for _ in range(data.draw(st.integers(1, 2))):
        if not params:  # methods, measures, experiments: an argument they do not take
            args.append(data.draw(values))
            continue
        param = data.draw(st.sampled_from(params))
        if isinstance(param, click.Argument):
            value = data.draw(values)
            if param.nargs == -1 or not args or args[0].startswith("-"):
                args.append(value)
            else:
                args[0] = value
            continue
        flag = param.opts[-1]
        if param.is_flag:
            args.append(flag)
            continue
        value = data.draw(values)
        if flag in args:
            args[args.index(flag) + 1] = value
        else:
            args += [flag, value]
    return args


def _check(args: list[str], capsys) -> None:
    try:
        code = main(args)
    except _Reached:
        capsys.readouterr()
        return
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err[-2000:]
    lines = [line for line in err.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("stablefs: error:")]
    if code == 0:
        assert errors == [], err[-2000:]
        return
    assert code in (EXIT_USAGE, EXIT_DATA, EXIT_RESOURCE), (code, err[-2000:])
    assert len(errors) == 1 and lines[-1] == errors[0], err[-2000:]


@pytest.mark.parametrize("command", ["compare", "select", "reproduce", "benchmark", "datasets",
                                     "methods", "measures", "experiments"])
def test_option_values_give_success_or_one_error_line(command, toy, tmp_path, monkeypatch,
                                                      capsys):
    from stablefs import experiments

    monkeypatch.chdir(tmp_path)  # a hostile --out such as "~" or "x" lands here
    monkeypatch.setenv("STABLEFS_REGISTRY_URL", "http://127.0.0.1:9")  # never download
    monkeypatch.setenv("STABLEFS_DOWNLOAD_TIMEOUT", "2")

    def stub(*a, **k):
        raise _Reached

    monkeypatch.setattr(experiments, "reproduce", stub)
    counter = iter(range(10**9))

    @FUZZ
    @given(data=st.data())
    def run(data):
        out = str(tmp_path / f"out{next(counter)}")
        args = [command, *_edit(_base(command, toy, out), command, data)]
        _check(args, capsys)

    run()
