"""Parameter constraints of selectors and stabilizers, checked with scikit-learn's machinery.

Every selector and stabilizer declares ``_parameter_constraints`` (scikit-learn's
``sklearn.utils._param_validation`` vocabulary: :class:`Interval`, :class:`StrOptions`,
``"boolean"``, ``None``, types, :class:`HasMethods`). scikit-learn decides whether a value is
valid (:func:`sklearn.utils._param_validation.validate_parameter_constraints`); this module
turns a failure into one readable line:

- :func:`invalid_parameter` finds the first invalid parameter of an estimator and returns its
  name, its value written plainly (``'mean'``, ``-3``, never ``np.str_('mean')``) and what is
  allowed (``"a whole number >= 1"``, ``"one of 'frequency', 'rank' or 'weight'"``);
- :class:`ParameterError` is what ``fit`` raises: a :class:`~stablefs.StablefsError` that is
  also scikit-learn's ``InvalidParameterError``, worded as scikit-learn words it ("The 'x'
  parameter of Cls must be ... Got ... instead."), so scikit-learn's own checks recognise it;
- :func:`stablefs.methods.make_selector` words the same finding for a method string.

Numeric intervals here refuse ``True``/``False`` (scikit-learn's :class:`Interval` takes
``True`` for the integer 1): ``n_estimators=True`` is a mistake, not a request for one member.
"""

from __future__ import annotations

import numbers
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    InvalidParameterError,
    RealNotInt,
    StrOptions,
    make_constraint,
    validate_parameter_constraints,
)

from stablefs._errors import StablefsError

__all__ = [
    "HasMethods",
    "NumberInterval",
    "ParameterError",
    "StrOptions",
    "check_parameters",
    "describe_allowed",
    "fraction",
    "invalid_parameter",
    "n_jobs_constraint",
    "number",
    "plain",
    "whole",
]


class ParameterError(StablefsError, InvalidParameterError):
    """A constructor parameter with an invalid type or value, reported at ``fit`` (one line).

    Both a :class:`~stablefs.StablefsError` (the project's error for bad input) and
    scikit-learn's ``InvalidParameterError`` (so that ``sklearn.utils.estimator_checks`` and
    callers catching it keep working).
    """


class NumberInterval(Interval):
    """scikit-learn's :class:`Interval` that also refuses booleans."""

    def is_satisfied_by(self, val) -> bool:
        if isinstance(val, (bool, np.bool_)):
            return False
        return super().is_satisfied_by(val)


def _closed(left, right) -> str:
    if left is None:
        return "neither" if right is None else "right"
    return "left" if right is None else "both"


def whole(left=None, right=None) -> NumberInterval:
    """Whole numbers from ``left`` to ``right``, both included (``None`` = unbounded)."""
    return NumberInterval(Integral, left, right, closed=_closed(left, right))


def number(left=None, right=None, *, closed: str | None = None) -> NumberInterval:
    """Real numbers (ints included) from ``left`` to ``right``; finite ends included unless
    ``closed`` (``"left"``, ``"right"``, ``"both"``, ``"neither"``) says otherwise."""
    return NumberInterval(Real, left, right, closed=closed or _closed(left, right))


def fraction() -> NumberInterval:
    """Floats in (0, 1] (not ints: pair it with :func:`whole` for counts, as
    ``n_features_to_select`` does; scikit-learn forbids mixing int and real intervals)."""
    return NumberInterval(RealNotInt, 0.0, 1.0, closed="right")


def n_jobs_constraint() -> list:
    """``n_jobs``: None, a positive whole number, or -1, -2, ... (joblib); 0 is refused."""
    return [None, whole(None, -1), whole(1, None)]


# ------------------------------------------------------------------------------- wording
def plain(value) -> str:
    """A value as a user would write it: ``'mean'``, ``-3``, ``1.5``, ``None``, ``True``.

    NumPy scalars lose their ``np.float64(...)`` wrapper; other objects are named by type.
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (str, bool, type(None))):
        return repr(str(value)) if isinstance(value, str) else repr(value)
    if isinstance(value, numbers.Number):
        return repr(value)
    if isinstance(value, (list, tuple)) and len(value) <= 5:
        inner = ", ".join(plain(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if isinstance(value, type):
        return f"the class {value.__name__}"
    return f"an object of type {type(value).__name__}"


def _bound(x) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def _describe_interval(c: Interval) -> str:
    kind = {Integral: "a whole number", RealNotInt: "a float"}.get(c.type, "a number")
    lo_closed = c.closed in ("left", "both")
    hi_closed = c.closed in ("right", "both")
    if c.left is None and c.right is None:
        return kind
    if c.right is None:
        return f"{kind} {'>=' if lo_closed else '>'} {_bound(c.left)}"
    if c.left is None:
        return f"{kind} {'<=' if hi_closed else '<'} {_bound(c.right)}"
    return (f"{kind} in {'[' if lo_closed else '('}{_bound(c.left)}, "
            f"{_bound(c.right)}{']' if hi_closed else ')'}")


def _describe(constraint, alone: bool = False) -> str:
    c = make_constraint(constraint)
    if isinstance(c, Interval):
        return _describe_interval(c)
    if isinstance(c, StrOptions):
        opts = [repr(str(o)) for o in sorted(c.options - set(c.deprecated))]
        if len(opts) == 1:
            return opts[0]
        if alone and len(opts) == 2:
            return f"{opts[0]} or {opts[1]}"
        return f"one of {', '.join(opts)}"
    if constraint is None:
        return "None"
    if constraint == "boolean":
        return "True or False"
    if constraint == "random_state":
        return "a whole number in [0, 4294967295], a numpy RandomState or None"
    if isinstance(constraint, type):
        name = constraint.__name__
        if constraint.__module__.split(".")[0] == "numpy":
            return f"a numpy {name}"
        return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"
    return str(c)


def describe_allowed(constraints) -> str:
    """What a list of scikit-learn constraints allows, in words (``"a or b"``)."""
    visible = [c for c in constraints if not getattr(make_constraint(c), "hidden", False)]
    parts = []
    for c in visible:
        text = _describe(c, alone=len(visible) == 1)
        if text not in parts:
            parts.append(text)
    if not parts:
        return "a valid value"
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} or {parts[-1]}"


def invalid_parameter(estimator) -> tuple[str, object, str] | None:
    """The first constructor parameter of ``estimator`` that its constraints refuse.

    Returns ``(name, value, allowed)`` or None when every parameter is valid (or the
    estimator declares no ``_parameter_constraints``). scikit-learn's
    :func:`validate_parameter_constraints` decides validity; parameters without a declared
    constraint (and ``"no_validation"`` ones) are not checked.
    """
    constraints = getattr(estimator, "_parameter_constraints", None)
    if not constraints or not hasattr(estimator, "get_params"):
        return None
    params = estimator.get_params(deep=False)
    for name, value in params.items():
        if name not in constraints:
            continue
        try:
            validate_parameter_constraints(
                {name: constraints[name]}, {name: value}, caller_name=type(estimator).__name__
            )
        except InvalidParameterError:
            return name, value, describe_allowed(constraints[name])
    return None


def check_parameters(estimator) -> None:
    """Raise :class:`ParameterError` (one line, scikit-learn's wording) for an invalid one."""
    bad = invalid_parameter(estimator)
    if bad is None:
        return
    name, value, allowed = bad
    raise ParameterError(
        f"The {name!r} parameter of {type(estimator).__name__} must be {allowed}. "
        f"Got {plain(value)} instead."
    )
