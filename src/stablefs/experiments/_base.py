"""The shared layer of the reproducible experiments (``stablefs reproduce NAME``).

An experiment is described once by an :class:`Experiment` subclass: its name, title, the
paper it reproduces, a frozen dataclass of settings with a *default* (the paper's) and a
*quick* configuration, and a :meth:`Experiment.run` that returns an :class:`Outcome`: tidy
tables, figures, the paper's published numbers beside ours, and one :class:`Claim` per
checkable statement of the paper with a verdict computed from the data.

This module also holds what every configuration check repeats (:func:`check_whole`,
:func:`check_wholes`, :func:`check_real`, :func:`check_grid`, :func:`check_datasets`,
:func:`check_classifiers`, :func:`check_block_generator`), the cost estimate
(:func:`estimate_wall`) and the data sets of the studies (:func:`load_registry_sets`,
:func:`load_dataset`).

The rest of the shared layer: the seeded parallel Monte-Carlo loop and what units repeat
(fit seeds, stratified folds, classifier scores on the top k) in :mod:`._montecarlo`; bootstrap
intervals and verdict rules in :mod:`._stats`; the per-cell verdicts of a claim and the
claims' shared wording in :mod:`._claims`; the published-vs-ours table and the papers'
printed ``mean±sd`` tables in :mod:`._published`; the :class:`~._analysis.Analysis` base
(units' results to an :class:`Outcome`, claims first) and the stage timings in
:mod:`._analysis`; everything that writes files (the run folder, CSV, PNG/SVG,
``report.md``/``report.html``, ``run.json``) in :mod:`._output`. An experiment module only
computes: it reads as its paper's protocol (configuration, Monte-Carlo unit, tables, claims),
with the figures, notes and published numbers in a sibling ``<name>_report.py``.
"""

from __future__ import annotations

import abc
import dataclasses
import difflib
import math
import numbers
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from stablefs._errors import StablefsError

__all__ = [
    "VERDICTS",
    "Claim",
    "Experiment",
    "FigureSpec",
    "Outcome",
    "check_block_generator",
    "check_classifiers",
    "check_datasets",
    "check_grid",
    "check_real",
    "check_whole",
    "check_wholes",
    "config_from",
    "config_to_dict",
    "estimate_wall",
    "estimate_workers",
    "load_dataset",
    "load_registry_sets",
    "parse_overrides",
]

#: the verdicts a claim can get (DESIGN.md, "Verdicts"; rules in :mod:`._stats`)
VERDICTS = ("holds", "does not hold", "inconclusive", "no practical difference",
            "too few runs", "not testable")


@dataclass(frozen=True)
class Claim:
    """One checkable statement of a paper and our verdict on it.

    Attributes
    ----------
    id : str
        Short identifier, e.g. ``"2a"`` (rows of ``claims.csv`` are in this order).
    statement : str
        The paper's statement, verbatim or close, with where it is made.
    test : str
        How we decide, with the tolerances (e.g. "paired bootstrap 95 % interval of the
        difference over the 500 training sets lies above 0").
    ours : str
        Our number(s), as text.
    verdict : str
        One of :data:`VERDICTS`.
    evidence : str
        Where the numbers come from (table and rows, figure).
    """

    id: str
    statement: str
    test: str
    ours: str
    verdict: str
    evidence: str = ""

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, not {self.verdict!r}")

    def as_row(self) -> dict[str, str]:
        return dataclasses.asdict(self)


@dataclass
class FigureSpec:
    """A Matplotlib figure to save as ``figures/<name>.png`` and ``.svg``.

    ``build`` is called by the writer inside the report style (so the figure picks up the
    project's Matplotlib settings) and must return a :class:`matplotlib.figure.Figure`.
    """

    name: str
    caption: str
    build: Callable[[], Any]


@dataclass
class Outcome:
    """What :meth:`Experiment.run` returns; the writer turns it into files.

    Attributes
    ----------
    tables : dict of str to DataFrame
        Written as ``tables/<name>.csv``.
    figures : list of FigureSpec
    claims : list of Claim
        Written as ``claims.csv``.
    published : DataFrame or None
        The paper's published numbers beside ours (columns ``quantity, published, ours,
        source``); written as ``tables/published.csv`` and shown first in the report.
    notes : list of str
        The readings chosen where the paper is ambiguous (shown in the report).
    sections : list of (str, str)
        Extra report sections (heading, paragraph).
    timings : dict of str to float
        Wall time of each stage in seconds (recorded in ``run.json``).
    summary : list of str
        A few sentences computed from the claims, shown first in the report.
    """

    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    figures: list[FigureSpec] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    published: pd.DataFrame | None = None
    notes: list[str] = field(default_factory=list)
    sections: list[tuple[str, str]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    summary: list[str] = field(default_factory=list)


class Experiment(abc.ABC):
    """A reproducible experiment of a paper (one subpackage per experiment).

    Subclasses set the class attributes and implement :meth:`run`; the configuration is a
    frozen dataclass (``Config``) whose field defaults are the paper's setting.

    Attributes
    ----------
    name : str
        The command-line name (``stablefs reproduce NAME``).
    title : str
        One line.
    citation : str
        Author, year and where in the paper, e.g. ``"Han 2012, ch. 6"``.
    description : str
        A paragraph for ``stablefs experiments`` and the report.
    Config : type
        The frozen dataclass of settings.
    report_type : type
        The analysis that turns the units' results into the outcome (tables, claims, figures,
        notes): the experiment's report class, which extends its protocol's analysis. Set by
        the experiment's ``experiment`` module, which joins the protocol and the report, so
        that the report imports the protocol and never the reverse.
    """

    name: str
    title: str
    citation: str
    description: str
    Config: type
    report_type: type

    # -- configurations -------------------------------------------------------------------
    def default_config(self):
        """The paper's setting."""
        return self.Config()

    @abc.abstractmethod
    def quick_config(self):
        """A smaller setting for ``--quick`` (a few minutes at most on two cores)."""

    def check_config(self, config) -> None:
        """Raise :class:`~stablefs.StablefsError` (one line) for a bad configuration."""
        if not isinstance(config, self.Config):
            raise StablefsError(
                f"{self.name} needs a {self.Config.__name__} configuration, not "
                f"{type(config).__name__}."
            )

    def sizes(self, config) -> str:
        """A short description of the configuration's size, for ``stablefs experiments``."""
        return ""

    def estimate_seconds(self, config, n_jobs: int = 1) -> float | None:
        """Rough wall time of :meth:`run` (seconds), or ``None`` when unknown."""
        return None

    # -- the work -------------------------------------------------------------------------
    @abc.abstractmethod
    def run(self, config, *, seed: int, n_jobs: int, progress: bool, cache) -> Outcome:
        """Compute the experiment.

        Parameters
        ----------
        config : Config
            Already checked with :meth:`check_config`.
        seed : int
            The run's seed; every Monte-Carlo unit derives its own stream from it
            (:func:`stablefs.experiments._montecarlo.unit_seed`).
        n_jobs : int
            Parallel workers; results do not depend on it.
        progress : bool
            Show a progress bar on stderr.
        cache : stablefs.experiments._montecarlo.TaskCache or None
            Where finished units are kept so an interrupted run resumes.

        Returns
        -------
        Outcome
        """


# ------------------------------------------------------------------------ configurations


def config_to_dict(config) -> dict[str, Any]:
    """A JSON-ready dict of a configuration dataclass (tuples become lists)."""
    out = {}
    for f in dataclasses.fields(config):
        v = getattr(config, f.name)
        out[f.name] = list(v) if isinstance(v, tuple) else v
    return out


def _convert(name: str, text: str, default) -> Any:
    """Read ``text`` as a value of the same kind as ``default``."""
    text = text.strip()
    try:
        if isinstance(default, bool):
            low = text.lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if isinstance(default, numbers.Integral):
            return int(text)
        if isinstance(default, numbers.Real):
            value = float(text)
            if not math.isfinite(value):
                raise ValueError
            return value
        if isinstance(default, tuple):
            inner = default[0] if default else 0
            return tuple(_convert(name, part, inner) for part in text.split(",") if part.strip())
        if default is None or isinstance(default, str):
            return text
    except ValueError:
        kind = ("true/false" if isinstance(default, bool)
                else "a comma-separated list of numbers" if isinstance(default, tuple)
                else "a whole number" if isinstance(default, numbers.Integral)
                else "a finite number")
        raise StablefsError(f"--set {name}={text}: the value must be {kind}.") from None
    raise StablefsError(f"--set {name}: this setting cannot be changed from the command line.")


def parse_overrides(config_type: type, items: Sequence[str]) -> dict[str, Any]:
    """Parse ``--set key=value`` items against the fields of ``config_type``.

    Unknown keys are refused with the close matches; values are converted to the field's
    kind (whole number, number, true/false, text, comma-separated list).
    """
    fields = {f.name: f for f in dataclasses.fields(config_type)}
    defaults = config_type()
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = str(item).partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise StablefsError(f"--set {item!r}: write it as KEY=VALUE, e.g. --set n_sets=100.")
        if key not in fields:
            close = difflib.get_close_matches(key, list(fields), n=3)
            hint = (f"did you mean {', '.join(close)}?" if close
                    else f"settings are {_listed(list(fields))}.")
            raise StablefsError(f"--set {key}: unknown setting; {hint}")
        out[key] = _convert(key, value, getattr(defaults, key))
    return out


def _listed(names: Sequence[str], limit: int = 6) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def config_from(base, overrides: Mapping[str, Any]):
    """``base`` with ``overrides`` applied (a new frozen dataclass)."""
    return dataclasses.replace(base, **dict(overrides)) if overrides else base


def check_whole(name: str, value, minimum: int) -> None:
    """Refuse a setting that is not a whole number ``>= minimum`` (one line)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise StablefsError(f"{name} = {value}: it must be a whole number >= {minimum}.")


def check_wholes(config, minima: Mapping[str, int]) -> None:
    """:func:`check_whole` for every ``setting: minimum`` of ``minima`` (in that order)."""
    for name, minimum in minima.items():
        check_whole(name, getattr(config, name), minimum)


def check_real(name: str, value, low: float, high: float) -> None:
    """Refuse a setting that is not a number strictly between ``low`` and ``high``."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not low < value < high:
        raise StablefsError(f"{name} = {value}: it must be a number in ({low:g}, {high:g}).")


def check_datasets(datasets, example: str, known: Sequence[str] | None = None,
                   note: str = "") -> None:
    """Refuse a ``datasets`` setting that names no set or a set twice; with ``known``, also
    one that names a set outside it (``note`` ends that message, e.g. why a paper's set is
    missing). ``example`` is shown as a valid value (``"colon,lung"``)."""
    if not isinstance(datasets, tuple) or not datasets:
        raise StablefsError(f"datasets: name at least one data set, e.g. {example}.")
    twice = len(set(datasets)) != len(datasets)
    if known is None:
        if twice:
            raise StablefsError(f"datasets = {','.join(datasets)}: list each set once.")
    elif twice or any(d not in known for d in datasets):
        raise StablefsError(f"datasets = {','.join(map(str, datasets))}: list each of "
                            f"{', '.join(known)} at most once{note}.")


def check_classifiers(classifiers, known: Sequence[str]) -> None:
    """Refuse a ``classifiers`` setting that is empty or names a classifier outside
    ``known``."""
    bad = [m for m in classifiers if m not in known]
    if not isinstance(classifiers, tuple) or not classifiers or bad:
        raise StablefsError(f"classifiers = {','.join(map(str, classifiers))}: choose "
                            f"from {', '.join(known)}.")


def check_block_generator(config) -> None:
    """Refuse settings of Han (2012, sec. 6.1)'s generator
    (:func:`~stablefs.datasets.make_han2012`) it cannot draw from: ``mean`` not positive,
    ``n_relevant >= n_features``, a ``block_size`` above ``n_features``, or a within-block
    correlation ``rho`` outside ``[-1/(block_size - 1), 1)`` (the blocks' covariance would not
    be positive definite)."""
    c = config
    check_real("mean", c.mean, 0.0, np.inf)
    if c.n_relevant >= c.n_features:
        raise StablefsError(f"n_relevant = {c.n_relevant} must be below n_features = "
                            f"{c.n_features}.")
    if c.block_size > c.n_features:
        raise StablefsError(f"block_size = {c.block_size} must be at most n_features = "
                            f"{c.n_features}.")
    low = -1.0 / (c.block_size - 1) if c.block_size > 1 else -1.0
    if not isinstance(c.rho, int | float) or not low <= c.rho < 1:
        raise StablefsError(f"rho = {c.rho}: it must lie in [{low:.3g}, 1).")


def estimate_workers(n_jobs: int) -> int:
    """The workers an ``estimate_seconds`` assumes for ``n_jobs``: the estimates are
    calibrated on this project's two-core machine, so at most two (``-1``: both)."""
    return 2 if n_jobs < 0 else max(1, min(n_jobs, 2))


def estimate_wall(cpu: float, n_jobs: int, overhead: float) -> float:
    """Wall seconds of ``cpu`` CPU seconds of Monte-Carlo units shared by the
    :func:`estimate_workers` of ``n_jobs``, plus a fixed ``overhead`` (loading, analysis)."""
    return overhead + cpu / estimate_workers(n_jobs)


def load_registry_sets(names) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``{name: (X, y as str)}`` for registry data sets (:func:`stablefs.datasets.load`)."""
    from stablefs.datasets import load

    data = {}
    for name in names:
        ds = load(name)
        data[name] = (ds.X, np.asarray(ds.y).astype(str))
    return data


#: the UCI sets :func:`load_dataset` reads from a folder ``uci/`` (Prat Masramon 2016's sets)
UCI_SETS = ("diabetes", "ionosphere", "sonar")


def _shared_folders() -> list[Path]:
    out = [Path(p) for p in os.environ.get("STABLEFS_DATA", "").split(os.pathsep) if p]
    out.append(Path(__file__).resolve().parents[3].parent / "shared" / "datasets")
    return out


def load_dataset(name: str) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)`` with class codes 0..g-1 of a data set of the wrapper and ensemble studies
    (``corral`` and ``anticorral`` are generated by
    :func:`stablefs.experiments.wrapper_stability.protocol.corral` and ``anticorral``).

    A name of :data:`UCI_SETS` is read from ``uci/<name>.arff`` or ``.csv`` in a folder of
    ``STABLEFS_DATA`` (or ``../shared/datasets``); any other name is a registry set
    (:func:`stablefs.datasets.load`), looked up in those folders first.
    """
    from stablefs.datasets import load

    if name in UCI_SETS:
        for folder in _shared_folders():
            for ext in (".arff", ".csv"):
                path = folder / "uci" / f"{name}{ext}"
                if path.is_file():
                    ds = load(str(path))
                    _, y = np.unique(ds.y, return_inverse=True)
                    return ds.X, y.astype(np.int64)
        raise StablefsError(
            f"data set {name!r} not found: put {name}.arff or {name}.csv in a folder uci/ "
            "inside a folder named in STABLEFS_DATA."
        )
    home = next((f for f in _shared_folders() if (f / f"{name}.csv.gz").is_file()), None)
    ds = load(name, data_home=home)
    _, y = np.unique(ds.y, return_inverse=True)
    return ds.X, y.astype(np.int64)


def check_grid(name: str, values, minimum: int = 1) -> None:
    """Refuse a grid setting (e.g. subset sizes) that is empty, holds a number below
    ``minimum`` or is not strictly increasing."""
    if not isinstance(values, tuple) or not values:
        raise StablefsError(f"{name}: give at least one value, e.g. 4,10,20.")
    for v in values:
        check_whole(f"each of {name}", v, minimum)
    if list(values) != sorted(set(values)):
        raise StablefsError(f"{name} = {','.join(map(str, values))}: list each value once, in "
                            "increasing order.")
