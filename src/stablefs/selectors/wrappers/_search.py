"""Sequential search strategies on a subset criterion ``J`` (an error, lower is better).

- :func:`sfs` and :func:`sbs`: sequential forward / backward selection (Xiao, Hua and Dougherty
  2007, App. A; SFG / SBG, Algs. 2.1-2.2 of Prat Masramon 2016, run without a stopping
  rule as in its experiments);
- :func:`sffs`: sequential forward floating selection (Pudil, Novovicova and Kittler 1994) with
  their conditional-exclusion rule;
- :func:`rsa_forward`, :func:`rsa_backward`: remainder-set-aware search (thesis ch. 6,
  Alg. 6.1, eqs. 6.4-6.5);
- :func:`sbg_plus`: accumulated-evidence backward search (thesis ch. 7, Alg. 7.1, eq. 7.10).

The thesis maximises a usefulness ``J_L`` (accuracy); here ``J`` is an error and the thesis'
usefulness is ``1 - J``. Ties (candidates within :data:`TIE_TOL` of the best value) go to the
lowest feature index, and the number of tied candidates is recorded at every step (the thesis
names arbitrary tie choices as a source of instability, sec. 1 and Table 1.1).
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass, field

import numpy as np

from stablefs._errors import StablefsError

#: criterion values closer than this to the best one are ties (broken by the lowest index)
TIE_TOL = 1e-12


@dataclass
class SearchResult:
    """The trajectory of a sequential search.

    Attributes
    ----------
    path : list of ndarray
        The current subset (sorted indices) after every step, starting with the initial one
        (empty for forward searches, all features for backward ones).
    errors : list of float
        ``J`` of each subset of ``path``.
    moves : list of tuple
        ``("add", j)`` or ``("remove", j)`` for each step (``path[i + 1]`` results from
        ``moves[i]``).
    ties : list of int
        Number of other candidates tied with the chosen one at each step.
    subset : ndarray
        The subset the search returns.
    order : ndarray
        Features ordered best first as far as the search ranks them (forward: order of
        inclusion into ``subset``; backward: reverse order of exclusion, so that it is a full
        permutation).
    n_evaluations : int
        Subsets evaluated.
    best : dict
        For SFFS: size -> (error, subset) of the best subset of each size.
    """

    path: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    moves: list = field(default_factory=list)
    ties: list = field(default_factory=list)
    subset: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    order: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    n_evaluations: int = 0
    best: dict = field(default_factory=dict)

    def record(self, subset, error, move=None, ties=0):
        self.path.append(np.sort(np.asarray(subset, dtype=np.int64)))
        self.errors.append(float(error))
        if move is not None:
            self.moves.append(move)
            self.ties.append(int(ties))
            observer = _STEP_OBSERVER.get()
            if observer is not None:
                observer(self.path[-1].size, self.errors[-1])


#: called as ``observer(subset size, J)`` after every step of the searches run in its
#: context (:func:`observe_steps`)
_STEP_OBSERVER: contextvars.ContextVar = contextvars.ContextVar("stablefs_search_steps",
                                                               default=None)


@contextlib.contextmanager
def observe_steps(observer):
    """Call ``observer(size, error)`` after every step of the sequential searches run inside
    the ``with`` block, in this thread (the CLI's progress for one long search: a backward
    search from 2000 features makes about 2000 steps)."""
    token = _STEP_OBSERVER.set(observer)
    try:
        yield
    finally:
        _STEP_OBSERVER.reset(token)


def pick_min(values: np.ndarray) -> tuple[int, int]:
    """Index of the smallest value (ties within :data:`TIE_TOL`: the first) and the number of
    other values tied with it."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        raise StablefsError("no candidate left to evaluate.")
    if np.any(np.isnan(values)):
        raise StablefsError("the criterion returned NaN for a candidate subset.")
    lo = values.min()
    tied = np.flatnonzero(values <= lo + TIE_TOL)
    return int(tied[0]), int(tied.size - 1)


def pick_max(values: np.ndarray) -> tuple[int, int]:
    """As :func:`pick_min` for the largest value."""
    return pick_min(-np.asarray(values, dtype=float))


def _best_add(crit, cols, cands) -> tuple[int, float, int]:
    """``(i, J, ties)`` of the best forward step: the criterion's own :meth:`best_add` (which
    may skip candidates that cannot be the best) or :func:`pick_min` of ``errors_add``."""
    if hasattr(crit, "best_add"):
        return crit.best_add(cols, cands)
    e = crit.errors_add(cols, cands)
    i, t = pick_min(e)
    return i, float(e[i]), t


# ------------------------------------------------------------------------------- SFS / SBS


def sfs(crit, n_select: int) -> SearchResult:
    """Sequential forward selection up to ``n_select`` features.

    Start from the empty set; at each step add the feature whose addition gives the lowest
    ``J`` (Xiao, Hua and Dougherty 2007, App. A); stop at ``n_select`` features.
    """
    p = crit.n_features
    res = SearchResult()
    X: list[int] = []
    rem = np.arange(p)
    res.record(X, crit.error(X))
    while len(X) < n_select:
        i, ei, t = _best_add(crit, X, rem)
        X.append(int(rem[i]))
        rem = np.delete(rem, i)
        res.record(X, ei, ("add", X[-1]), t)
    res.subset = np.sort(np.asarray(X, dtype=np.int64))
    res.order = np.asarray(X, dtype=np.int64)
    res.n_evaluations = crit.n_evaluations
    return res


def sbs(crit, n_keep: int = 1) -> SearchResult:
    """Sequential backward selection from all features down to ``n_keep``.

    At each step remove the feature whose removal gives the lowest ``J``. ``order`` is the
    survivors (in index order) followed by the excluded features, last excluded first.
    """
    p = crit.n_features
    res = SearchResult()
    X = np.arange(p)
    res.record(X, crit.error(X))
    removed: list[int] = []
    while X.size > n_keep:
        e = crit.errors_remove(X)
        i, t = pick_min(e)
        removed.append(int(X[i]))
        X = np.delete(X, i)
        res.record(X, e[i], ("remove", removed[-1]), t)
    res.subset = X.copy()
    res.order = np.r_[X, np.asarray(removed[::-1], dtype=np.int64)].astype(np.int64)
    res.n_evaluations = crit.n_evaluations
    return res


# -------------------------------------------------------------------------------- SFFS


def sffs(crit, n_select: int, exclusion: str = "pudil", at_least_sfs: bool = False
         ) -> SearchResult:
    """Sequential forward floating selection (Pudil, Novovicova and Kittler 1994)::

        X <- {}; best[k] <- inf; k <- 0
        while k < d:
            x+ <- argmin_{x not in X} J(X + x); X <- X + x+; k <- k + 1
            if J(X) < best[k]: best[k], bestSet[k] <- J(X), X
            loop:                                   # conditional exclusion
                if k <= 2: break
                x- <- argmin_{x in X} J(X - x)
                if x- = x+ or J(X - x-) >= best[k - 1]: break
                X <- X - x-; k <- k - 1; best[k], bestSet[k] <- J(X), X
        return bestSet[d]

    Parameters
    ----------
    crit : Criterion
    n_select : int
        ``d``: the search stops when ``d`` features are selected and no exclusion improves.
    exclusion : {"pudil", "mlxtend"}
        ``"pudil"`` is the rule above. ``"mlxtend"`` is the rule of mlxtend's
        ``SequentialFeatureSelector(floating=True)``: ``x-`` is the best removal among
        ``X - {x+}`` and it is excluded only if ``J(X - x-)`` is lower than both ``best[k-1]``
        and ``J(X)`` (used to compare with mlxtend subset for subset).
    at_least_sfs : bool, default=False
        Floating search is *not* guaranteed to end with a subset of size ``d`` at least as good
        as plain SFS's: once an exclusion leaves the SFS path, the later inclusions start from
        other subsets (with the bolstered-LDA criterion on the equal-covariance model of Xiao,
        Hua and Dougherty 2007 this happened in 5 of 150 samples; a hand-made case is in the
        tests). With ``True`` the SFS path is continued from where the floating search first
        left it and the better of the two subsets of size ``d`` is returned (not in Pudil et
        al. 1994; it costs at most ``d - 3`` more forward steps).
    """
    if exclusion not in ("pudil", "mlxtend"):
        raise StablefsError(f"exclusion = {exclusion!r}: choose 'pudil' or 'mlxtend'.")
    p = crit.n_features
    res = SearchResult()
    X: list[int] = []
    res.record(X, crit.error(X))
    best: dict[int, tuple[float, np.ndarray]] = {}
    k = 0
    guard = 0
    limit = 50 * max(1, n_select) * max(1, p)
    inside = np.zeros(p, dtype=bool)
    while k < n_select:
        inside[:] = False
        inside[X] = True
        rem = np.flatnonzero(~inside)
        i, jx, t = _best_add(crit, X, rem)
        x_plus = int(rem[i])
        X.append(x_plus)
        k += 1
        res.record(X, jx, ("add", x_plus), t)
        if k not in best or jx < best[k][0] - TIE_TOL:
            best[k] = (jx, np.sort(np.asarray(X, dtype=np.int64)))
        while k > 2:
            guard += 1
            if guard > limit:  # cannot happen with a deterministic criterion
                raise StablefsError("SFFS did not terminate: is the criterion deterministic?")
            cols = np.asarray(X, dtype=np.int64)
            er = crit.errors_remove(cols)
            if exclusion == "pudil":
                j, t = pick_min(er)
                if int(cols[j]) == x_plus or er[j] >= best[k - 1][0] - TIE_TOL:
                    break
            else:
                mask = cols != x_plus
                jj, t = pick_min(er[mask])
                j = int(np.flatnonzero(mask)[jj])
                if er[j] >= jx - TIE_TOL or er[j] >= best[k - 1][0] - TIE_TOL:
                    break
            x_minus = int(cols[j])
            X.remove(x_minus)
            k -= 1
            jx = float(er[j])
            best[k] = (jx, np.sort(np.asarray(X, dtype=np.int64)))
            res.record(X, jx, ("remove", x_minus), t)
    res.best = best
    res.subset = best[n_select][1]
    res.order = _floating_order(res, n_select)
    if at_least_sfs:
        _guard_with_sfs(crit, res, n_select)
    res.n_evaluations = crit.n_evaluations
    return res


def _guard_with_sfs(crit, res: SearchResult, d: int) -> None:
    """Continue plain SFS from where the floating path first excluded a feature; keep its
    subset of size ``d`` when it is strictly better than the floating one."""
    first = next((i for i, (kind, _) in enumerate(res.moves) if kind == "remove"), None)
    if first is None:
        return  # the floating search never left the SFS path
    X = [f for kind, f in res.moves[:first] if kind == "add"]
    rem = np.setdiff1d(np.arange(crit.n_features), X)
    jx = res.errors[first]
    while len(X) < d:
        i, jx, _ = _best_add(crit, X, rem)
        X.append(int(rem[i]))
        rem = np.delete(rem, i)
    if jx < res.best[d][0] - TIE_TOL:
        res.best[d] = (jx, np.sort(np.asarray(X, dtype=np.int64)))
        res.subset = res.best[d][1]
        res.order = np.asarray(X, dtype=np.int64)


def _floating_order(res: SearchResult, d: int) -> np.ndarray:
    """Order the features of ``bestSet[d]``: a feature ranks by the smallest size ``k0`` from
    which it belongs to every best set ``bestSet[k0..d]`` (nested best sets give the order of
    inclusion); ties by the step at which it was first added."""
    final = res.best[d][1]
    first_add: dict[int, int] = {}
    for step, (kind, f) in enumerate(res.moves):
        if kind == "add" and f not in first_add:
            first_add[f] = step
    keys = []
    for f in final:
        k0 = d
        while k0 - 1 >= 1 and (k0 - 1) in res.best and f in res.best[k0 - 1][1]:
            k0 -= 1
        keys.append((k0, first_add.get(int(f), 0), int(f)))
    return np.asarray([f for _, _, f in sorted(keys)], dtype=np.int64)


# --------------------------------------------------------------------------------- RSA


def rsa_f(a, b, wx, wy):
    """``f(a, b; w_x, w_y) = (a w_x - b w_y + 1) / 2`` (thesis eq. 6.5): increasing in the
    usefulness ``a`` of the candidate set, decreasing in the usefulness ``b`` of its
    remainder."""
    return (np.asarray(a) * wx - np.asarray(b) * wy + 1.0) / 2.0


def rsa_forward(crit, n_select: int) -> SearchResult:
    """Remainder-set-aware forward search (thesis Alg. 6.1, eqs. 6.4-6.5).

    With usefulness ``J_u = 1 - J``: add ``argmax_x f(J_u(X + x), J_u(Y - X - x); w_x, w_y)``,
    the weights being the usefulness of the current set and of its remainder *before* the
    step, ``w_x = J_u(X)``, ``w_y = J_u(Y - X)``. ``J_u`` of the empty set is that of the
    majority-class rule (our choice: the thesis leaves it undefined).
    """
    p = crit.n_features
    res = SearchResult()
    X: list[int] = []
    R = np.arange(p)
    jx = 1.0 - crit.error(X)
    jr = 1.0 - crit.error(R)
    res.record(X, 1.0 - jx)
    while len(X) < n_select:
        a = 1.0 - crit.errors_add(X, R)
        b = 1.0 - crit.errors_remove(R)
        i, t = pick_max(rsa_f(a, b, jx, jr))
        X.append(int(R[i]))
        R = np.delete(R, i)
        jx, jr = float(a[i]), float(b[i])
        res.record(X, 1.0 - jx, ("add", X[-1]), t)
    res.subset = np.sort(np.asarray(X, dtype=np.int64))
    res.order = np.asarray(X, dtype=np.int64)
    res.n_evaluations = crit.n_evaluations
    return res


def rsa_backward(crit, n_keep: int = 1) -> SearchResult:
    """Remainder-set-aware backward search (our reading of the thesis' "analogous" backward
    version): remove
    ``argmax_x f(J_u(X - x), J_u(R + x); J_u(X), J_u(R))`` with ``R = Y - X``."""
    p = crit.n_features
    res = SearchResult()
    X = np.arange(p)
    R: list[int] = []
    jx = 1.0 - crit.error(X)
    jr = 1.0 - crit.error(R)
    res.record(X, 1.0 - jx)
    removed: list[int] = []
    while X.size > n_keep:
        a = 1.0 - crit.errors_remove(X)
        b = 1.0 - crit.errors_add(R, X)
        i, t = pick_max(rsa_f(a, b, jx, jr))
        removed.append(int(X[i]))
        R.append(int(X[i]))
        X = np.delete(X, i)
        jx, jr = float(a[i]), float(b[i])
        res.record(X, 1.0 - jx, ("remove", removed[-1]), t)
    res.subset = X.copy()
    res.order = np.r_[X, np.asarray(removed[::-1], dtype=np.int64)].astype(np.int64)
    res.n_evaluations = crit.n_evaluations
    return res


# ------------------------------------------------------------------------------- SBG+


def _ratio0(num, den):
    """``num / den`` with ``0 / 0 := 0`` (the printed SBG+ divides by ``n^-_x = 0``)."""
    out = np.zeros_like(num, dtype=float)
    np.divide(num, den, out=out, where=den > 0)
    return out


def sbg_plus(crit, lam: float = 2.0 / 3.0, bookkeeping: str = "consistent",
             n_keep: int = 1) -> SearchResult:
    """Accumulated-evidence sequential backward search, SBG+ (thesis ch. 7, Alg. 7.1, eq. 7.10).

    Every step evaluates ``J_u(X - x)`` for all ``x`` in ``X`` (usefulness ``J_u = 1 - J``),
    first adds these evaluations to per-feature accumulators, then decides.

    ``bookkeeping="consistent"`` (default; eqs. 7.8-7.9 with ``w_x = 1``): every evaluated
    subset ``S`` updates every feature ``z``: ``L+_z += J_u(S), n+_z += 1`` if ``z`` is in
    ``S``, else ``L-_z += J_u(S), n-_z += 1``; the feature removed is

        ``argmax_x (lam/2)(L-_x/n-_x - L+_x/n+_x + 1) + (1 - lam) J_u(X - x)``,

    the sign that removes a feature whose presence goes with *low* usefulness (the thesis'
    conclusions: the feature with the lowest accumulated usefulness is removed).

    ``bookkeeping="printed"``: Alg. 7.1 as printed: for ``x`` in ``X``,
    ``L+_x += sum_{y in X - x} J_u(X - y)`` with ``n+_x += 1``; for ``x`` not in ``X``,
    ``L-_x += J_u(X - x) = J_u(X)`` with ``n-_x += 1``; and the maximised score is
    ``(lam/2)(L+_x/n+_x - L-_x/n-_x + 1) + (1 - lam) J_u(X - x)``.

    **Erratum (named, not silently fixed).** As printed the rule cannot run: a backward search
    never re-adds a feature, so every candidate ``x`` in ``X`` has always been in the set,
    ``n-_x = 0`` and ``L-_x / n-_x = 0/0`` for every candidate at every step. The printed mode
    takes ``0/0 := 0``, so its history term scores only the (summed, not averaged) usefulness
    of the subsets containing ``x``, and its sign favours removing a feature whose presence
    goes with *high* usefulness. Both are kept so that either reading can be compared with
    ch. 7's tables.

    Parameters
    ----------
    crit : Criterion
    lam : float, default=2/3
        ``lambda`` of eq. 7.10 (0 is plain SBG).
    bookkeeping : {"consistent", "printed"}
    n_keep : int, default=1
    """
    if bookkeeping not in ("consistent", "printed"):
        raise StablefsError(f"bookkeeping = {bookkeeping!r}: choose 'consistent' or 'printed'.")
    p = crit.n_features
    res = SearchResult()
    X = np.arange(p)
    ju_X = 1.0 - crit.error(X)
    res.record(X, 1.0 - ju_X)
    Lp = np.zeros(p)
    Lm = np.zeros(p)
    n_p = np.zeros(p)
    n_m = np.zeros(p)
    removed: list[int] = []
    while X.size > n_keep:
        ju = 1.0 - crit.errors_remove(X)          # J_u(X - x), x in X
        total = ju.sum()
        inside = np.zeros(p, dtype=bool)
        inside[X] = True
        if bookkeeping == "consistent":
            Lp[X] += total - ju
            n_p[X] += X.size - 1
            Lm[X] += ju
            n_m[X] += 1
            Lm[~inside] += total
            n_m[~inside] += X.size
            hist = _ratio0(Lm[X], n_m[X]) - _ratio0(Lp[X], n_p[X])
        else:
            Lp[X] += total - ju
            n_p[X] += 1
            Lm[~inside] += ju_X
            n_m[~inside] += 1
            hist = _ratio0(Lp[X], n_p[X]) - _ratio0(Lm[X], n_m[X])
        score = lam / 2.0 * (hist + 1.0) + (1.0 - lam) * ju
        i, t = pick_max(score)
        removed.append(int(X[i]))
        X = np.delete(X, i)
        ju_X = float(ju[i])
        res.record(X, 1.0 - ju_X, ("remove", removed[-1]), t)
    res.subset = X.copy()
    res.order = np.r_[X, np.asarray(removed[::-1], dtype=np.int64)].astype(np.int64)
    res.n_evaluations = crit.n_evaluations
    return res
