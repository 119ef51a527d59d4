"""Helpers the commands share: lists and sizes from the command line, loading DATA with the
data options, the seed check, verbosity, the versions and the command line for ``run.json``.

They live below :mod:`stablefs.cli` and :mod:`stablefs.cli.benchmark` so that neither command
module imports the other for them.
"""

from __future__ import annotations

import logging
from pathlib import Path

from stablefs._errors import StablefsError
from stablefs._runtime.versions import package_versions as _versions  # noqa: F401
from stablefs._runtime.versions import stablefs_version as _stablefs_version  # noqa: F401
from stablefs.cli._shell import shell_join

#: the subset sizes of ``compare`` and ``select`` without ``-k``
DEFAULT_SIZES = (10, 20, 30, 40, 50)

def split_list(text: str) -> list[str]:
    """Split a comma-separated list, keeping commas inside parentheses:
    ``"relieff(n_neighbors=5,x=1),ttest"`` -> ``["relieff(n_neighbors=5,x=1)", "ttest"]``."""
    items, depth, current = [], 0, []
    for ch in text:
        if ch == "," and depth == 0:
            items.append("".join(current).strip())
            current = []
            continue
        depth += (ch == "(") - (ch == ")")
        current.append(ch)
    items.append("".join(current).strip())
    return [i for i in items if i]


def parse_sizes(text: str | None, n_features: int) -> list[int]:
    """``"10,20,50"`` or a range ``"10:50"`` / ``"10:50:10"`` (both ends included); default
    10..50 by 10 (those below p). Every size must lie in 1..p."""
    from stablefs._validation import check_sizes

    if text is None:
        sizes = [k for k in DEFAULT_SIZES if k < n_features]
        return sizes or [max(1, n_features // 2)]
    out = []
    parts = split_list(text)
    if not parts:
        raise StablefsError("-k is empty: give sizes like -k 10,20,50 or -k 10:50:10.")
    for part in parts:
        try:
            bounds = [int(v) for v in part.split(":")]
        except ValueError:
            raise StablefsError(
                f"cannot read subset size {part!r}: use whole numbers like -k 10,20,50 or a "
                "range like -k 10:50:10."
            ) from None
        if len(bounds) == 1:
            out.append(bounds[0])
            continue
        if len(bounds) > 3:
            raise StablefsError(
                f"cannot read the range {part!r}: write START:STOP or START:STOP:STEP, "
                "e.g. -k 10:50:10."
            )
        a, b, step = bounds[0], bounds[1], bounds[2] if len(bounds) == 3 else 1
        if step < 1:
            raise StablefsError(f"the range {part!r} needs a step of at least 1, not {step}.")
        if b < a:
            raise StablefsError(
                f"the range {part!r} is empty: its end {b} is below its start {a} "
                f"(write {b}:{a}{':' + str(step) if len(bounds) == 3 else ''})."
            )
        # the ends are checked arithmetically before the range is expanded, so that
        # -k 1:10000000000 is one line, not a list of ten billion sizes
        last = a + (b - a) // step * step
        from stablefs._validation import check_n_features_to_select

        for end in (a, last):
            check_n_features_to_select(end, n_features)
        out.extend(range(a, last + 1, step))
    return check_sizes(out, n_features)


def _load(data, opts: dict, seed: int = 0):
    """Load DATA with the data options; a synthetic spec without ``random_state`` is drawn
    from ``seed`` (``--seed``), never from entropy, so the same command gives the same data."""
    from stablefs.datasets._synthetic import from_spec

    if str(data).strip().lower().startswith("synthetic:"):
        ds = from_spec(str(data).strip(), random_state=seed)
        return _annotate(_log2_synthetic(ds, opts), opts)
    from stablefs.datasets import load  # the readers (pandas)

    kwargs = {k: v for k, v in opts.items() if v not in (None, False) and k != "annotation"}
    return _annotate(load(data, **kwargs), opts)


def _log2_synthetic(ds, opts: dict):
    from stablefs.datasets._scale import log2_dataset

    return log2_dataset(ds) if opts.get("log2") else ds


def _annotate(ds, opts: dict):
    """``ds.symbols`` from ``--annotation`` (checked against the data's probe IDs before any
    work), recorded in ``ds.meta["annotation"]``."""
    if not opts.get("annotation"):
        return ds
    from stablefs.datasets._annotation import load_annotation

    ds.symbols = load_annotation(opts["annotation"], ds.feature_names)
    ds.meta["annotation"] = {"file": str(opts["annotation"]),
                             "features_with_symbol": int(sum(1 for s in ds.symbols if s))}
    return ds


def _input_fingerprints(ds, opts: dict) -> dict:
    """sha256 of every input file (the data file and a sample sheet): a changed input is a
    changed configuration."""
    from stablefs._runtime.rundir import file_sha256

    files = {}
    if ds.source and Path(ds.source).is_file():
        files[str(Path(ds.source).resolve())] = file_sha256(ds.source)
    if opts.get("annotation") and Path(opts["annotation"]).is_file():
        files[str(Path(opts["annotation"]).resolve())] = file_sha256(opts["annotation"])
    labels = opts.get("labels")
    if labels:
        path = Path(str(labels).rsplit(":", 1)[0]) if not Path(str(labels)).is_file() else \
            Path(str(labels))
        if path.is_file():
            files[str(path.resolve())] = file_sha256(path)
    return files


def _set_verbosity(quiet: bool, verbose: int) -> None:
    level = logging.ERROR if quiet else (logging.DEBUG if verbose > 1 else
                                         logging.INFO if verbose else logging.WARNING)
    logging.getLogger("stablefs").setLevel(level)


def _check_seed(seed: int) -> None:
    if seed < 0:
        raise StablefsError(f"--seed must be 0 or more, not {seed}.")


#: the arguments of the running command (set by :func:`stablefs.cli.main` through
#: :func:`set_command_args`), for run.json and the report
_ARGV: list[str] = []


def set_command_args(args) -> None:
    """Record the running command's arguments (for :func:`_command_line`)."""
    _ARGV[:] = list(args)


#: the commands that keep finished fits in their output folder, so that rerunning an
#: interrupted one resumes it
RESUMABLE_COMMANDS = ("compare", "reproduce", "benchmark")


def interrupted_line() -> str:
    """The line an interrupted command prints: the resume hint only for the commands that
    keep their finished fits (``select``, for one, keeps nothing to resume)."""
    command = next((a for a in _ARGV if not a.startswith("-")), "")
    if command in RESUMABLE_COMMANDS:
        return "stablefs: interrupted; finished fits are kept: rerun the same command to resume."
    return "stablefs: interrupted."


def _command_line() -> str:
    """The whole command as typed, shell-quoted, so that "Rerun with" reruns it."""
    return "stablefs " + shell_join(_ARGV)


def _data_digest(ds) -> str:
    from stablefs.evaluation._checks import _digest

    return _digest(ds.X, ds.y)
