"""The work and memory a run will take, bounded before any work (``docs/security.md``,
"Limits").

Every count a command takes multiplies the work of a run: ``--repeats``, ``--permutations``,
``--permutation-resamples``, ``--nested OUTER:INNER``, ``select --resamples``, and inside a
method string the repetitions of its selectors (an ensemble's ``n_estimators``, stability
selection's ``n_subsamples``, ...). ``--repeats 10000000000`` would draw ten billion resamples
before the first fit; ``en-relieff(n_estimators=100000000000)`` would fit for millennia. So,
from the counts alone, before the resamples are drawn and before any fit:

work
    a lower bound of the run's CPU time: every task (one fit and its evaluations) costs at least
    :data:`TASK_FLOOR_SECONDS` and every member fit of an ensemble or stability selection at
    least :data:`MEMBER_FLOOR_SECONDS` (the cheapest fits of stablefs take longer: a t-test
    and a 1-NN evaluation on 30 samples about 2 ms). A run whose bound exceeds
    :data:`HORIZON_SECONDS` (30 days) on every core of the machine is refused;
memory
    what the results of the fits keep in memory until the run ends (each fit's ranking, scores
    and training indices, its rows of metrics): a run whose results exceed the memory
    available (``STABLEFS_MEMORY_LIMIT``, ``MemAvailable``, the cgroup) is refused.

The refusal is one line naming the estimate and the option to change (exit status 2 for the
work, a usage error; 4 for the memory, the machine's refusal). ``--allow-huge`` (every command
that runs fits) skips both checks, for those who mean it. When the pilot fits of ``compare``
estimate the wall time (:func:`stablefs.comparison._trust.announce`), an estimate beyond the
horizon is refused the same way.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from stablefs._errors import ResourceError, StablefsError

__all__ = ["HORIZON_SECONDS", "MEMBER_FLOOR_SECONDS", "OVERRIDE", "TASK_FLOOR_SECONDS",
           "Part", "check_budget", "check_wall_time", "fit_memory", "method_members",
           "usable_cores"]

#: the time a run may take: 30 days, on every core of the machine (the longest of the papers'
#: full settings, ``reproduce xiao2007-cridd``, takes about 10 days on 2 cores)
HORIZON_SECONDS = 30 * 24 * 3600.0
#: the least a task (one fit and its evaluations) costs
TASK_FLOOR_SECONDS = 1e-3
#: the least a member fit of an ensemble or a stability selection costs
MEMBER_FLOOR_SECONDS = 1e-4
#: the option that runs a run beyond these limits
OVERRIDE = "--allow-huge"
#: bytes of one row of the results table (a Python tuple of five cells)
_ROW_BYTES = 200


@dataclass(frozen=True)
class Part:
    """A part of a run's work: ``tasks`` tasks of ``members`` member fits each, keeping
    ``memory`` bytes of results. ``what`` describes it and ``option`` names what changes it."""

    what: str
    option: str
    tasks: float
    members: float = 1.0
    memory: float = 0.0

    @property
    def seconds(self) -> float:
        """The lower bound of its CPU time."""
        return _real(self.tasks) * (TASK_FLOOR_SECONDS
                                    + _real(self.members) * MEMBER_FLOOR_SECONDS)


def _real(count) -> float:
    """A count as a float; a whole number beyond the float range is 1e300 (still huge)."""
    try:
        return float(count)
    except OverflowError:
        return 1e300


def _count(value: int) -> str:
    """``100,000,000,000``; a number of more than 18 digits as ``about 10^400``."""
    text = str(int(value)) if abs(value) < 10**4000 else ""
    return f"{int(value):,}" if text and len(text) <= 18 else f"about 10^{len(text) - 1}"


def method_members(spec) -> tuple[float, str | None]:
    """Member fits in one fit of the method ``spec`` (the product of the repetitions of its
    wrapper chain: :data:`stablefs.methods.REPETITIONS`) and the largest repetition as
    ``"n_estimators = 100,000,000,000"`` (``None`` without repetitions); 1 for objects."""
    if not isinstance(spec, str):
        return 1.0, None
    from stablefs.methods import chain_repetitions

    members, largest = 1.0, None
    for key, value, weight in chain_repetitions(spec):
        members = min(1e300, members * _real(max(1, value)) * weight)
        if largest is None or value > largest[1]:
            largest = (key, value)
    return members, (f"{largest[0]} = {_count(largest[1])}" if largest else None)


def fit_memory(n_samples: int, n_features: int, n_sizes: int, n_classifiers: int) -> float:
    """Bytes one fit's results keep until the run ends: its ranking (twice: the fit's and the
    stability table's row), scores, training and test indices, and its rows of metrics."""
    rows = 1 + n_sizes * n_classifiers * 4
    return 12.0 * n_features + 4.0 * n_features + 24.0 * n_samples + rows * _ROW_BYTES


def _format_seconds(seconds: float) -> str:
    if seconds >= 1e6 * 365.25 * 86400:
        return "more than a million years"
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600)):
        if seconds >= size:
            return f"{seconds / size:,.0f} {unit}"
    return f"{seconds:,.0f} s"


def usable_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def check_budget(parts, *, allow: bool = False, cores: int | None = None,
                 room: int | None = None) -> None:
    """Refuse (one line) a run whose work floor exceeds :data:`HORIZON_SECONDS` on ``cores``
    cores (default: those this process may use), or whose results exceed the memory
    available, unless ``allow``.

    Parameters
    ----------
    parts : iterable of Part
    allow : bool
        The user's :data:`OVERRIDE`: nothing is refused.
    cores : int, optional
    room : int, optional
        Bytes available (default :func:`stablefs._runtime.memory.available_memory`).
    """
    parts = [p for p in parts if p.tasks > 0]
    if allow or not parts:
        return
    cores = cores or usable_cores()
    total = min(1e300, sum(p.seconds for p in parts)) / cores
    if total > HORIZON_SECONDS:
        worst = max(parts, key=lambda p: p.seconds)
        floor = f"{TASK_FLOOR_SECONDS * 1000:g} ms a fit"
        if worst.members > 1:
            floor += f" and {MEMBER_FLOOR_SECONDS * 1000:g} ms a member fit"
        raise StablefsError(
            f"{worst.what}: at least {_format_seconds(total)} of work on {cores} core"
            f"{'s' if cores > 1 else ''} (at {floor}, the least a fit costs), more than the "
            f"{_format_seconds(HORIZON_SECONDS)} a run may take: lower {worst.option}, or add "
            f"{OVERRIDE} to run it anyway.")
    from stablefs._runtime.memory import available_memory, format_bytes

    room = available_memory() if room is None else room
    need = min(1e300, sum(_real(p.memory) for p in parts))
    if room is not None and need > room:
        worst = max(parts, key=lambda p: p.memory)
        raise ResourceError(
            f"{worst.what}: their results would need about {format_bytes(need)} of memory, "
            f"more than the {format_bytes(room)} available: lower {worst.option}, or add "
            f"{OVERRIDE} to run it anyway.")


def check_wall_time(seconds: float, what: str, option: str, *, allow: bool = False) -> None:
    """Refuse (one line) a run whose wall time, estimated from pilot fits, exceeds
    :data:`HORIZON_SECONDS`, unless ``allow``."""
    if not allow and seconds > HORIZON_SECONDS:
        raise StablefsError(
            f"{what}: the estimated wall time is {_format_seconds(seconds)}, more than the "
            f"{_format_seconds(HORIZON_SECONDS)} a run may take: {option}, or add {OVERRIDE} "
            "to run it anyway.")


def comparison_parts(methods, n_resamples: int, *, n_samples: int, n_features: int,
                     n_sizes: int, n_classifiers: int, permutations: int = 0,
                     permutation_resamples: int = 0, nested_outer: int = 0,
                     nested_inner: int = 0, repeats_option: str = "--repeats") -> list[Part]:
    """The parts of a comparison (``compare``, ``select --resamples``): its fits, its
    permutation test and its nested estimate. Each names the option of its larger factor:
    the count of fits, or the member fits of a method (its repetitions in ``-m``)."""
    per_fit = fit_memory(n_samples, n_features, n_sizes, n_classifiers)
    labels = [(m if len(m) <= 60 else m[:50] + f"... ({len(m):,} characters)")
              if isinstance(m, str) else type(m).__name__ for m in methods]
    members = [method_members(m) for m in methods]

    def method_option(i: int) -> str:
        return f"{(members[i][1] or '').split(' =')[0]} in -m {labels[i]!r}"

    def described(i: int) -> str:
        return f" ({members[i][1]} member fits each)" if members[i][1] else ""

    parts = []
    for i, (m, _) in enumerate(members):
        dominated = m > _real(n_resamples) and members[i][1] is not None
        parts.append(Part(
            f"the comparison's {_count(n_resamples)} fits of {labels[i]}"
            + (described(i) if dominated else ""),
            method_option(i) if dominated else repeats_option,
            _real(n_resamples), m, _real(n_resamples) * per_fit))
    top = max(range(len(members)), key=lambda i: members[i][0], default=None)
    top_members = members[top][0] if top is not None else 1.0
    mean_members = max(1.0, sum(m for m, _ in members) / max(1, len(members)))

    def by_method(tasks: float) -> int | None:
        """The method whose member fits outnumber ``tasks`` (the larger factor), if any."""
        if top is not None and top_members > tasks and members[top][1] is not None:
            return top
        return None
    if permutations:
        # (B + 1) x R x M fits: every permutation (and the observed procedure) fits every
        # method on R resamples and repeats the choice; it keeps its statistic and choice
        tasks = (_real(permutations) + 1) * _real(permutation_resamples) * len(methods)
        option = ("--permutations" if permutations >= permutation_resamples
                  else "--permutation-resamples")
        i = by_method(tasks)
        parts.append(Part(f"the permutation test's {_count(permutations)} x "
                          f"{_count(permutation_resamples)} x {len(methods)} refits"
                          + (f" of {labels[i]}{described(i)}" if i is not None else ""),
                          method_option(i) if i is not None else option, tasks, mean_members,
                          _real(permutations) * _ROW_BYTES
                          + _real(permutation_resamples) * len(methods) * per_fit))
    if nested_outer:
        outer = min(nested_outer, n_resamples)
        tasks = _real(outer) * _real(nested_inner) * len(methods)
        i = by_method(tasks)
        parts.append(Part(f"the nested estimate's {_count(outer)} x {_count(nested_inner)} x "
                          f"{len(methods)} fits"
                          + (f" of {labels[i]}{described(i)}" if i is not None else ""),
                          method_option(i) if i is not None else "--nested", tasks,
                          mean_members,
                          _real(nested_inner) * len(methods) * per_fit))
    return parts
