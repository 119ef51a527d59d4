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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from stablefs._errors import ResourceError, StablefsError

__all__ = ["HORIZON_SECONDS", "MEMBER_FLOOR_SECONDS", "OVERRIDE", "TASK_FLOOR_SECONDS",
           "Part", "check_budget", "check_wall_time", "comparison_parts", "fit_memory",
           "method_members", "usable_cores"]

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
    ``memory`` bytes of results.

    Parameters
    ----------
    what : str
        What the part is, for the refusal's line (``"the comparison's 20 fits of relieff"``).
    option : str
        The option that changes it (``"--repeats"``).
    tasks : float
        Tasks (one fit and its evaluations).
    members : float, default 1.0
        Member fits in each task (an ensemble's ``n_estimators``, ...).
    memory : float, default 0.0
        Bytes of results the part keeps until the run ends.

    Examples
    --------
    >>> from stablefs.evaluation.budget import Part
    >>> Part("the comparison's 1,000 fits of ttest", "--repeats", 1000).seconds  # 1 + 0.1 ms
    1.1
    """

    what: str
    option: str
    tasks: float
    members: float = 1.0
    memory: float = 0.0

    @property
    def seconds(self) -> float:
        """The lower bound of its CPU time: ``tasks x (1 ms + members x 0.1 ms)``."""
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


def method_members(spec: object) -> tuple[float, str | None]:
    """Member fits in one fit of the method ``spec`` and its largest repetition.

    Parameters
    ----------
    spec : str or estimator
        A method string; an object counts as one member fit.

    Returns
    -------
    (members, largest) : (float, str or None)
        The product of the repetitions of its wrapper chain
        (:data:`stablefs.methods.REPETITIONS`), and the largest as
        ``"n_estimators = 100,000,000,000"`` (``None`` without repetitions).

    Examples
    --------
    >>> from stablefs.evaluation.budget import method_members
    >>> method_members("en-relieff(n_estimators=50)")
    (50.0, 'n_estimators = 50')
    >>> method_members("relieff")
    (1.0, None)
    """
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
    """Bytes one fit's results keep until the run ends.

    Its ranking (twice: the fit's and the stability table's row), scores, training and test
    indices, and its rows of metrics (four per size and classifier, and its fit time).

    Parameters
    ----------
    n_samples, n_features : int
        The data's shape.
    n_sizes, n_classifiers : int
        The sizes k and the classifiers each fit is evaluated with.

    Returns
    -------
    float

    Examples
    --------
    >>> from stablefs.evaluation.budget import fit_memory
    >>> fit_memory(62, 2000, 5, 2)  # Colon, k = 10:50:10, svm and 1nn: about 41 kB
    41688.0
    """
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
    """The cores this process may use (its CPU affinity; ``os.cpu_count`` without it).

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> from stablefs.evaluation.budget import usable_cores
    >>> usable_cores() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def check_budget(parts: Iterable[Part], *, allow: bool = False, cores: int | None = None,
                 room: int | None = None) -> None:
    """Refuse (one line) a run whose work floor exceeds :data:`HORIZON_SECONDS` on ``cores``
    cores, or whose results exceed the memory available, unless ``allow``.

    Parameters
    ----------
    parts : iterable of Part
    allow : bool
        The user's :data:`OVERRIDE`: nothing is refused.
    cores : int, optional
        Default: those this process may use (:func:`usable_cores`).
    room : int, optional
        Bytes available (default :func:`stablefs._runtime.memory.available_memory`).

    Raises
    ------
    stablefs.StablefsError
        The work (exit status 2: the counts ask for more than any run may take).
    stablefs.ResourceError
        The memory (exit status 4: the machine's refusal).

    Examples
    --------
    >>> from stablefs.evaluation.budget import Part, check_budget
    >>> huge = Part("the comparison's 10,000,000,000 fits of ttest", "--repeats", 1e10)
    >>> check_budget([huge], cores=2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    stablefs._errors.StablefsError: ...: at least 64 days of work on 2 cores ... --allow-huge ...
    >>> check_budget([huge], cores=2, allow=True)  # --allow-huge
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
    :data:`HORIZON_SECONDS`, unless ``allow``.

    Parameters
    ----------
    seconds : float
        The estimate.
    what : str
        The run, for the line (``"this comparison"``).
    option : str
        What to change (``"lower --repeats"``).
    allow : bool, default False
        The user's :data:`OVERRIDE`.

    Raises
    ------
    stablefs.StablefsError
        Beyond the horizon (exit status 2).

    Examples
    --------
    >>> from stablefs.evaluation.budget import check_wall_time
    >>> check_wall_time(4e6, "this comparison", "lower --repeats")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    stablefs._errors.StablefsError: this comparison: the estimated wall time is 46 days, ...
    >>> check_wall_time(3600.0, "this comparison", "lower --repeats")  # an hour: runs
    """
    if not allow and seconds > HORIZON_SECONDS:
        raise StablefsError(
            f"{what}: the estimated wall time is {_format_seconds(seconds)}, more than the "
            f"{_format_seconds(HORIZON_SECONDS)} a run may take: {option}, or add {OVERRIDE} "
            "to run it anyway.")


def comparison_parts(methods: Sequence[object], n_resamples: int, *, n_samples: int,
                     n_features: int, n_sizes: int, n_classifiers: int, permutations: int = 0,
                     permutation_resamples: int = 0, nested_outer: int = 0,
                     nested_inner: int = 0, repeats_option: str = "--repeats") -> list[Part]:
    """The parts of a comparison (``compare``, ``select --resamples``): its fits, its
    permutation test and its nested estimate.

    Each names the option of its larger factor: the count of fits, or the member fits of a
    method (its repetitions in ``-m``). The permutation test refits every method on each of
    its ``permutation_resamples`` resamples, for every permutation and the observed
    procedure: ``(B + 1) x R x M`` tasks.

    Parameters
    ----------
    methods : sequence of str or estimator
        The compared methods.
    n_resamples : int
        The comparison's resamples.
    n_samples, n_features, n_sizes, n_classifiers : int
        The data's shape, the sizes k and the classifiers (:func:`fit_memory`).
    permutations, permutation_resamples : int, default 0
        B and R of the permutation test (0: none).
    nested_outer, nested_inner : int, default 0
        The nested estimate's resamples (0: none).
    repeats_option : str, default "--repeats"
        The option that sets ``n_resamples`` (``select`` names ``--resamples``).

    Returns
    -------
    list of Part

    Examples
    --------
    >>> from stablefs.evaluation.budget import comparison_parts
    >>> parts = comparison_parts(["relieff", "ttest"], 20, n_samples=62, n_features=2000,
    ...                          n_sizes=5, n_classifiers=2, permutations=100,
    ...                          permutation_resamples=3)
    >>> [(p.what, p.tasks) for p in parts]  # doctest: +NORMALIZE_WHITESPACE
    [("the comparison's 20 fits of relieff", 20.0), ("the comparison's 20 fits of ttest", 20.0),
     ("the permutation test's 100 x 3 x 2 refits", 606.0)]
    """
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
