"""The parts every wrapper criterion shares (see :mod:`._criteria` for the overview).

:class:`Criterion` (a sum of parts divided by a count, with batched forward and backward
steps), :class:`Noise` (the common random numbers of Monte-Carlo bolstering, Braga-Neto and
Dougherty 2004), :class:`RulePart` (a part evaluated by refitting the rule, one subset at a
time: the reference of every incremental part) and :class:`CallablePart` (a user criterion).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from stablefs._errors import StablefsError

if TYPE_CHECKING:
    from stablefs.selectors.wrappers._error_estimators import Rule


_CHI: dict[int, float] = {}


def _chi_median(dim: int) -> float:
    """:func:`stablefs.selectors.wrappers._error_estimators.chi_median`, memoised here."""
    out = _CHI.get(dim)
    if out is None:
        out = _CHI[dim] = _ee().chi_median(dim)
    return out


def _ee():
    """:mod:`stablefs.selectors.wrappers._error_estimators` (the estimators' kernels, beside
    the criteria), imported on first use: it loads libsvm and scikit-learn's neighbours, which
    a process that never builds a criterion does not need."""
    from stablefs.selectors.wrappers import _error_estimators

    return _error_estimators


#: elements per temporary tensor (candidates are processed in chunks of this size)
CHUNK_ELEMENTS = 2**21

#: a bordered covariance whose Schur complement is below this fraction of the candidate's own
#: variance is treated as singular (that candidate is refitted with the pseudo-inverse)
SCHUR_RTOL = 1e-9

CRITERIA = ("bolstered", "semi-bolstered", "resubstitution", "cv")


class Noise:
    """Standard normal draws for Monte-Carlo bolstering, ``(n, M)`` per feature, drawn once per
    feature from its own stream (common random numbers: every subset containing feature ``f``
    sees the same draws on ``f``, so the bolstered error of a subset does not depend on the
    order of the search, and incremental updates are exact).

    Feature ``f``'s draws are ``np.random.default_rng([seed, f]).standard_normal((n, M))``.
    The generators' states are computed for many features at once
    (:func:`~stablefs.selectors.wrappers._seeding.states`) and loaded into one reused
    generator; the first state is checked against NumPy's own seeding, and on a mismatch
    (or a seed of 2^64 or more, or a feature index of 2^32 or more) the streams are built by
    ``default_rng``."""

    def __init__(self, seed: int, n: int, n_draws: int):
        self.seed = int(seed)
        self.n = int(n)
        self.n_draws = int(n_draws)
        self._block: np.ndarray | None = None
        self._have = np.zeros(0, dtype=bool)
        self._generator: np.random.Generator | None = None
        self._batched: bool | None = None  # decided on the first draw

    def _use_batched(self) -> bool:
        from stablefs.selectors.wrappers._seeding import states

        if self.seed >= 2**64:
            return False
        bitgen = np.random.PCG64(np.random.SeedSequence([self.seed, 0]))
        reference = bitgen.state
        if states(self.seed, np.zeros(1, dtype=np.int64))[0] != (
                reference["state"]["state"], reference["state"]["inc"]):
            return False
        self._generator = np.random.Generator(bitgen)
        return True

    def _draw(self, features: np.ndarray) -> None:
        """Draw the features' noise into their rows of the block."""
        from stablefs.selectors.wrappers._seeding import states

        assert self._block is not None  # allocated by block() before any draw
        if self._batched is None:
            self._batched = self._use_batched()
        if not self._batched or features.max() >= 2**32:  # outside the batched seeding's pool
            for f in features:
                self._block[f] = np.random.default_rng([self.seed, int(f)]).standard_normal(
                    (self.n, self.n_draws))
            return
        gen = self._generator
        assert gen is not None  # set by _use_batched()
        bitgen = gen.bit_generator
        for f, (state, inc) in zip(features, states(self.seed, features)):
            bitgen.state = {"bit_generator": "PCG64", "state": {"state": state, "inc": inc},
                            "has_uint32": 0, "uinteger": 0}
            gen.standard_normal(out=self._block[f])

    def feature(self, f: int) -> np.ndarray:
        f = int(f)
        return self.block(np.array([f], dtype=np.int64))[f]

    def block(self, cols) -> np.ndarray:
        """Every feature's draws drawn so far, side by side, ``block[f]`` of shape ``(n, M)``
        for feature ``f``; the features ``cols`` are drawn first if they are not yet (rows
        of features not drawn are undefined). No copy: a compiled kernel reads the
        candidates' rows in place."""
        cols = np.asarray(cols, dtype=np.int64)
        top = int(cols.max()) + 1 if cols.size else 0
        if self._block is None or self._block.shape[0] < top:
            size = max(top, 2 * (0 if self._block is None else self._block.shape[0]))
            block = np.empty((size, self.n, self.n_draws))
            have = np.zeros(size, dtype=bool)
            if self._block is not None:
                block[:self._have.size] = self._block
                have[:self._have.size] = self._have
            self._block, self._have = block, have
        new = np.unique(cols[~self._have[cols]])
        if new.size:
            self._draw(new)
            self._have[new] = True
        return self._block

    def get(self, cols) -> np.ndarray:
        """Draws of the features ``cols``, shape ``(n, M, len(cols))`` (C order)."""
        cols = np.asarray(cols, dtype=np.int64)
        return np.ascontiguousarray(np.moveaxis(self.block(cols)[cols], 0, 2))


# ------------------------------------------------------------------------------------ parts


class RulePart:
    """One design/evaluate unit of a criterion, evaluated by refitting the rule.

    ``kind`` is ``"count"`` (design on ``train``, count the errors on ``evl``: resubstitution
    when both are everything, one fold of a cross-validation otherwise), ``"bolstered"`` or
    ``"semi"`` (design on everything, sum of the bolstered terms over every point). The value of
    a part is a *sum* over its evaluation points; the criterion divides by the total count.
    """

    def __init__(self, X, codes, n_classes, rule: Rule, kind: str, train=None, evl=None,
                 noise: Noise | None = None):
        self.X = X
        self.codes = codes
        self.g = int(n_classes)
        self.rule = rule
        self.kind = kind
        n = X.shape[0]
        self.train = np.arange(n) if train is None else np.asarray(train)
        self.evl = np.arange(n) if evl is None else np.asarray(evl)
        self.noise = noise
        # design and evaluation on all points (resubstitution, bolstering): X itself, read
        # only, instead of two copies (which on 50,000 features are most of a part's memory)
        self.Xt = X if train is None else X[self.train]
        self.ct = codes[self.train]
        self.Xe = X if evl is None else X[self.evl]
        self.ce = codes[self.evl]

    # the plain definition, one subset at a time
    def value(self, cols) -> float:
        cols = np.asarray(cols, dtype=np.int64)
        Xt = self.Xt[:, cols]
        fitted = self.rule.fit(Xt, self.ct, self.g)
        if self.kind == "count":
            return float(np.count_nonzero(fitted.predict(self.Xe[:, cols]) != self.ce))
        wrong = fitted.predict(Xt) != self.ct
        if cols.size == 0 or fitted.constant >= 0:
            return float(np.count_nonzero(wrong))
        sigma = _ee()._widths(Xt, self.ct, self.g)
        if fitted.linear is not None:
            a, b = fitted.linear
            norm = float(np.sqrt(a @ a))
            if norm == 0.0:
                terms = wrong.astype(float)
            else:
                margin = (2 * self.ct - 1) * (Xt @ a + b) / norm
                terms = _ee().linear_bolstered_terms(margin, sigma, self.ct)
        else:
            assert self.noise is not None  # a bolstered part of a rule without a closed form
            eps = self.noise.get(cols)
            n, M = eps.shape[0], eps.shape[1]
            Z = (Xt[:, None, :] + sigma[:, None, None] * eps).reshape(n * M, cols.size)
            pred = fitted.predict(Z).reshape(n, M)
            terms = np.mean(pred != self.ct[:, None], axis=1)
        if self.kind == "semi":
            terms = np.where(wrong, 1.0, terms)
        return float(terms.sum())

    def values_add(self, cols, cands) -> np.ndarray:
        cols = list(np.asarray(cols, dtype=np.int64))
        return np.array([self.value(np.array(cols + [int(j)], dtype=np.int64))
                         for j in np.asarray(cands)])

    def values_remove(self, cols) -> np.ndarray:
        cols = np.asarray(cols, dtype=np.int64)
        return np.array([self.value(np.delete(cols, i)) for i in range(cols.size)])


class CallablePart:
    """A user criterion ``criterion(X_subset, y) -> error``; the value is the error itself.

    The **empty subset** is never passed to the callable (a scikit-learn model cannot be fitted
    on zero features): its value is the error of the majority-class rule on ``y``
    (:func:`majority_error`), the error of a classifier that sees no feature, which is also
    what the built-in resubstitution criteria give the empty set. An exception raised by the
    callable is reported as one :class:`~stablefs.StablefsError` line naming the subset size
    and the exception.
    """

    kind = "callable"

    def __init__(self, X, y, fn: Callable):
        self.X, self.y, self.fn = X, y, fn
        self._empty = majority_error(y)

    def value(self, cols) -> float:
        cols = np.asarray(cols, dtype=np.int64)
        if cols.size == 0:
            return self._empty
        try:
            out = self.fn(self.X[:, cols], self.y)
        except Exception as exc:  # noqa: BLE001 - the user's code: reported, not hidden
            first = (str(exc).strip().splitlines() or [""])[0]
            raise StablefsError(
                f"the criterion callable raised {type(exc).__name__} on a subset of "
                f"{cols.size} feature(s) (columns {_first_columns(cols)}): {first}"
            ) from exc
        try:
            v = float(out)
        except (TypeError, ValueError) as exc:
            raise StablefsError(
                f"the criterion callable must return one number (an error, lower is better): "
                f"{exc}"
            ) from None
        if not np.isfinite(v):
            raise StablefsError(
                f"the criterion callable returned {v} for a subset of {cols.size} features: it "
                "must return a finite error."
            )
        return v

    def values_add(self, cols, cands):
        cols = list(np.asarray(cols, dtype=np.int64))
        return np.array([self.value(np.array(cols + [int(j)], dtype=np.int64)) for j in cands])


    def values_remove(self, cols):
        cols = np.asarray(cols, dtype=np.int64)
        return np.array([self.value(np.delete(cols, i)) for i in range(cols.size)])


def _first_columns(cols, limit: int = 5) -> str:
    shown = ", ".join(str(int(c)) for c in cols[:limit])
    return shown + (", ..." if cols.size > limit else "")


# ------------------------------------------------------------------------------- criterion


class Criterion:
    """``J(S)``: an error estimate of a feature subset, lower is better, with batched forward
    (:meth:`errors_add`) and backward (:meth:`errors_remove`) steps.

    Build one with :func:`make_criterion`. ``n_evaluations`` counts the subsets evaluated.
    """

    def __init__(self, parts: Sequence, denominator: float, n_features: int, description: str):
        self.parts = list(parts)
        self.denominator = float(denominator)
        self.n_features = int(n_features)
        self.description = description
        self.n_evaluations = 0

    def error(self, cols) -> float:
        """``J(cols)``."""
        self.n_evaluations += 1
        cols = np.asarray(cols, dtype=np.int64)
        return float(sum(p.value(cols) for p in self.parts) / self.denominator)

    def errors_add(self, cols, cands) -> np.ndarray:
        """``J(cols + {j})`` for every ``j`` in ``cands``."""
        cands = np.asarray(cands, dtype=np.int64)
        self.n_evaluations += cands.size
        if cands.size == 0:
            return np.zeros(0)
        total = np.zeros(cands.size)
        for p in self.parts:
            total += p.values_add(np.asarray(cols, dtype=np.int64), cands)
        return total / self.denominator

    def best_add(self, cols, cands) -> tuple[int, float, int]:
        """The best forward step of SFS / SFFS (Xiao, Hua and Dougherty 2007, App. A;
        Pudil, Novovičová and Kittler 1994): ``argmin_j J(cols + {j})``.

        Exactly :func:`~stablefs.selectors.wrappers._search.pick_min` of :meth:`errors_add`;
        a criterion of one part that bounds its candidates (a Monte-Carlo kNN part,
        :meth:`KNNPart.sums_add_bounded`; a two-class bolstered LDA part,
        :meth:`LDAPart.sums_add_bounded`) skips candidates that cannot be the minimum.

        Parameters
        ----------
        cols : array-like of int
            The current subset ``S``.
        cands : array-like of int
            The candidates ``j``.

        Returns
        -------
        i : int
            Position in ``cands`` of the lowest ``J`` (ties within ``TIE_TOL``: the first).
        value : float
            ``J(cols + {cands[i]})``.
        ties : int
            Other candidates tied with it.
        """
        from stablefs.selectors.wrappers._search import pick_min

        cands = np.asarray(cands, dtype=np.int64)
        part = self.parts[0] if len(self.parts) == 1 else None
        if cands.size and part is not None and hasattr(part, "sums_add_bounded"):
            self.n_evaluations += cands.size
            e = part.sums_add_bounded(np.asarray(cols, dtype=np.int64), cands) \
                / self.denominator
        else:
            e = self.errors_add(cols, cands)
        i, t = pick_min(e)
        return i, float(e[i]), t

    def errors_remove(self, cols) -> np.ndarray:
        """``J(cols - {x})`` for every ``x`` in ``cols`` (in the order of ``cols``)."""
        cols = np.asarray(cols, dtype=np.int64)
        self.n_evaluations += cols.size
        if cols.size == 0:
            return np.zeros(0)
        total = np.zeros(cols.size)
        for p in self.parts:
            total += p.values_remove(cols)
        return total / self.denominator


def majority_error(y) -> float:
    """Error of the majority-class rule on ``y`` (``J`` of the empty set, resubstitution)."""
    _, codes = np.unique(np.asarray(y), return_inverse=True)
    g = int(codes.max()) + 1
    return float(np.mean(codes != _ee().majority_code(codes, g)))
