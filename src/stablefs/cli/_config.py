"""``--config FILE.toml`` and ``--print-config``: every option of a command from a TOML file
(the command line's own flags win), and the resolved options written as one.

A file holds the options by their long names, with dashes or underscores (``n-jobs = 2``,
``stability = "nogueira,kuncheva"``, ``methods = ["relieff", "ttest"]``), at the top level or
under a table named after the command (``[compare]``). ``DATA`` is ``data = "colon"``. Lists
become comma-separated values; unknown keys are refused in one line with the close matches.
"""

from __future__ import annotations

import difflib
import json
import sys
from pathlib import Path

import click

from stablefs._errors import StablefsError

#: parameters that are not options of the run (they are never read from or written to a file)
_NOT_CONFIG = {"config", "print_config", "help", "version"}


def _names(command: click.Command) -> dict[str, tuple[str, bool]]:
    """Every spelling of every parameter -> (parameter name, inverted)."""
    out: dict[str, tuple[str, bool]] = {}
    for p in command.params:
        if p.name in _NOT_CONFIG:
            continue
        out[p.name] = (p.name, False)
        for opt in getattr(p, "opts", []):
            if opt.startswith("--"):
                out[opt[2:].replace("-", "_")] = (p.name, False)
        for opt in getattr(p, "secondary_opts", []):
            if opt.startswith("--"):
                out[opt[2:].replace("-", "_")] = (p.name, True)
    return out


def read_toml(path) -> dict:
    """A TOML file as a dict; one line when it cannot be read or parsed."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover (Python 3.10)
        import tomli as tomllib
    try:
        text = Path(path).read_bytes()
    except OSError as exc:
        raise StablefsError(f"--config {path}: cannot read it ({exc.strerror or exc}).") from None
    if len(text) > 1 << 20:
        raise StablefsError(f"--config {path}: {len(text):,} bytes is not a configuration "
                            "file (at most 1 MiB).")
    try:
        return tomllib.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise StablefsError(f"--config {path}: not valid TOML ({exc}).") from None


def _value(key: str, value, inverted: bool):
    if isinstance(value, bool):
        return (not value) if inverted else value
    if isinstance(value, list):
        if key == "nested" and len(value) == 2:
            return f"{value[0]}:{value[1]}"
        if not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value):
            raise StablefsError(f"--config: {key} must be a list of names or numbers.")
        return ",".join(str(v) for v in value)
    if isinstance(value, (str, int, float)):
        return value
    raise StablefsError(f"--config: {key} = {value!r} is not a value of an option (use a "
                        "string, number, boolean or list).")


def load_config(ctx: click.Context, param: click.Parameter, value) -> None:
    """The eager ``--config`` callback: the file's values become the command's defaults, so
    that an option given on the command line wins."""
    if value is None or ctx.resilient_parsing:
        return
    data = read_toml(value)
    section = data.get(ctx.command.name)
    if isinstance(section, dict):
        data = {**{k: v for k, v in data.items() if not isinstance(v, dict)}, **section}
    names = _names(ctx.command)
    defaults: dict = {}
    for key, raw in data.items():
        if isinstance(raw, dict):
            continue  # another command's table
        norm = str(key).replace("-", "_")
        if norm not in names:
            close = difflib.get_close_matches(norm, list(names), n=3)
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            raise StablefsError(f"--config {value}: unknown option {key!r} for "
                                f"'stablefs {ctx.command.name}'.{hint}")
        name, inverted = names[norm]
        defaults[name] = _value(str(key), raw, inverted)
    ctx.default_map = {**(ctx.default_map or {}), **defaults}


def config_options(f):
    """``--config FILE`` (eager) and ``--print-config``."""
    f = click.option("--print-config", is_flag=True,
                     help="Print the resolved options (defaults, --config file, flags) as a "
                          "TOML file for --config, and exit without running.")(f)
    return click.option("--config", type=click.Path(dir_okay=False), is_eager=True,
                         expose_value=False, callback=load_config, metavar="FILE.toml",
                         help="Read options from a TOML file (keys: the long option names; "
                              "DATA as data = ...); options given here win.")(f)


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value))  # a TOML basic string (ASCII, escapes as JSON)


def config_text(ctx: click.Context) -> str:
    """The resolved options of ``ctx`` as a TOML file for ``--config``."""
    lines = [f"# stablefs {ctx.command.name}: options for --config (the command line's own "
             "flags win over this file)", f"[{ctx.command.name}]"]
    for p in ctx.command.params:
        if p.name in _NOT_CONFIG or p.name in ("as_json", "quiet", "verbose"):
            continue
        key = next((o[2:] for o in getattr(p, "opts", []) if o.startswith("--")), p.name)
        value = ctx.params.get(p.name)
        if value is None:
            lines.append(f"# {key} =  (not set)")
        else:
            lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


def resolved_options(ctx: click.Context) -> dict:
    """The resolved options by parameter name, for ``run.json``."""
    return {p.name: ctx.params.get(p.name) for p in ctx.command.params
            if p.name not in _NOT_CONFIG and p.name in ctx.params}
