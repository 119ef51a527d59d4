"""What each stage of a comparison will do with the data's classes, decided before the first
fit (:func:`plan_stages`, called by :func:`stablefs.comparison._compare.prepare`).

A comparison runs up to three stages on resamples of the data: the comparison itself (the
protocol's resamples), the permutation test (the labels permuted, the same kind of
resamples) and the nested estimate (inner 2/3 splits of outer training parts). Each needs
enough samples of every class in the parts it draws. The protocol's own check refuses the
data at once (nothing can be compared); the other two stages adapt where a sound choice
exists, or are skipped with one line naming the option that skips them, so that a run never
stops after its fits:

- nested estimate: a class with fewer than the 3 samples a 2/3 split needs in an outer
  training part is split leave-one-out within the class
  (:func:`stablefs.evaluation.nested.inner_splits`); said in one line and in the report;
- permutation test: at most the resamples with a test part that the protocol gives (said
  when fewer than ``--permutation-resamples``; skipped below the 2 the choice needs); every
  permutation's labels and resamples (the protocol's, drawn on the permuted labels) are drawn
  here once, so a permutation that cannot be drawn skips the test before the work.

The dry runs below build the same resamples the stages will build (no fit): they cost
milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from stablefs._errors import StablefsError

__all__ = ["StagePlan", "plan_stages"]

#: the option that skips each stage, named in its line
SKIP_OPTION = {"permutation": "--permutations 0", "nested": "--nested 0"}
#: each stage's name in a sentence
STAGE_NAME = {"permutation": "the permutation test", "nested": "the nested estimate"}


@dataclass
class StagePlan:
    """The stages' adaptations (``notes``) and the stages skipped (``skipped``), each a
    sentence, keyed by ``"permutation"`` or ``"nested"``; ``permutation_resamples`` is the
    number of resamples the permutation test will refit (None: as asked)."""

    notes: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    permutation_resamples: int | None = None

    def lines(self) -> list[str]:
        """One line per adapted or skipped stage, as printed before the work."""
        out = [f"{STAGE_NAME[s]}: {text}." for s, text in self.notes.items()]
        out += [f"{STAGE_NAME[s]} is skipped: {text} ({SKIP_OPTION[s]} skips it without this "
                "line)." for s, text in self.skipped.items()]
        return out

    def skip(self, stage: str, reason: str) -> None:
        """Mark ``stage`` skipped after the work had started (a safety net: the checks
        above should have found it)."""
        self.skipped[stage] = reason
        self.notes.pop(stage, None)

    def info(self) -> dict:
        """For ``run.json`` (``trust.stages``)."""
        return {"notes": dict(self.notes), "skipped": dict(self.skipped)}


def _classes(values) -> str:
    values = [str(v) for v in values]
    return (", ".join(values[:4]) + (f" and {len(values) - 4} more" if len(values) > 4
                                     else ""))


def plan_stages(options, X, y, resamples) -> StagePlan:
    """Decide, before any fit, what the permutation test and the nested estimate will do with
    the classes of ``y`` (the comparison's ``resamples`` checked already).

    Parameters
    ----------
    options : CompareOptions
        Checked options (``permutations``, ``permutation_resamples``, ``nested``, ``seed``).
    X, y : ndarray
        The data (``X`` only for a scikit-learn splitter's ``split``) and the labels.
    resamples : list of Resample
        The comparison's resamples (the protocol's, for ``options.seed``).

    Returns
    -------
    StagePlan
    """
    plan = StagePlan()
    y = np.asarray(y)
    with_test = [r for r in resamples if len(r.test)]
    settings = options.trust_settings()
    if settings.permutations:
        _plan_permutation(plan, settings, X, y, with_test, options.seed, options.protocol_)
    if settings.nested_outer:
        _plan_nested(plan, settings, y, with_test, options.seed)
    return plan


def _plan_permutation(plan: StagePlan, settings, X, y, with_test: list, seed: int,
                      protocol) -> None:
    from stablefs.evaluation.permutation import permuted_resamples

    asked = settings.permutation_resamples
    used = with_test[:asked]
    if len(used) < 2:
        plan.skipped["permutation"] = (f"the protocol gives {len(used)} resample(s) with a "
                                       "test part; the test repeats the choice on at least 2")
        return
    if len(used) < asked:
        plan.permutation_resamples = len(used)
        plan.notes["permutation"] = (f"{len(used)} resamples per permutation, not {asked}: "
                                     f"the protocol gives {len(used)} with a test part")
    try:  # every permutation's labels and splits, as the test will draw them (milliseconds)
        for b in range(settings.permutations):
            permuted_resamples(protocol, X, y, seed, b, len(used))
    except StablefsError as exc:
        plan.skipped["permutation"] = str(exc).rstrip(".")
        return
    floor = _p_floor_note(settings.permutations)
    if floor:
        plan.notes["permutation"] = "; ".join(filter(None, [plan.notes.get("permutation"),
                                                            floor]))


def _p_floor_note(permutations: int) -> str:
    """The sentence for a number of permutations whose smallest p-value, 1/(B + 1), is not
    below the level at which evidence of signal is decided (B < 20 at 0.05): such a run can
    never show evidence, nor recommend a signature ("" when B can)."""
    from stablefs.evaluation.permutation import p_value_floor

    floor = p_value_floor(permutations)
    if not floor:
        return ""
    return (f"{floor}, so this run cannot show evidence of signal nor recommend a signature "
            f"({more_permutations_hint()})")


def more_permutations_hint() -> str:
    """What reaches the level: ``--permutations 20 or more can; the default is 100`` (at
    0.05), said by ``compare`` and ``benchmark`` after :func:`~stablefs.evaluation.
    permutation.p_value_floor`."""
    from stablefs.evaluation.permutation import DEFAULT_PERMUTATIONS, permutations_needed

    return (f"--permutations {permutations_needed()} or more can; the default is "
            f"{DEFAULT_PERMUTATIONS}")


def _plan_nested(plan: StagePlan, settings, y, with_test: list, seed: int) -> None:
    from stablefs._validation import derive_seed
    from stablefs.evaluation.nested import inner_splits

    outer = with_test[:settings.nested_outer]
    if not outer:
        plan.skipped["nested"] = "the protocol gives no resample with a test part"
        return
    small: dict = {}
    try:
        for res in outer:
            y_train = y[res.train]
            if np.unique(y_train).size < 2:
                raise StablefsError(f"outer training part {res.index} holds a single class")
            _, few = inner_splits(y_train, settings.nested_inner,
                                  derive_seed(seed, 0x0E57, res.index))
            for c in few:
                small[c] = min(small.get(c, np.inf), int(np.sum(y_train == c)))
    except StablefsError as exc:
        plan.skipped["nested"] = str(exc).rstrip(".")
        return
    if small:
        counts = sorted(set(small.values()))
        many = len(small) > 1
        plan.notes["nested"] = (
            f"class{'es' if many else ''} {_classes(small)} {'have' if many else 'has'} "
            f"{' or '.join(map(str, counts))} sample{'s' if max(counts) > 1 else ''} in an "
            f"outer training part, too few for a 2/3 split: {'their' if many else 'its'} inner "
            "splits are leave-one-out within the class"
            + (" (a class of one stays in every inner training part)" if 1 in counts else ""))
