"""The wrapper selectors: SFS, SBS, SFFS, RSA and SBGPlus (scikit-learn estimators)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from sklearn.utils._param_validation import HasMethods

from stablefs._runtime.threads import limit_threads
from stablefs._validation import check_n_features_to_select
from stablefs.selectors._base import BaseSelector
from stablefs.selectors._constraints import StrOptions, number, whole
from stablefs.selectors.wrappers._criteria import CRITERIA, make_criterion
from stablefs.selectors.wrappers._search import (
    SearchResult,
    _floating_order,
    rsa_backward,
    rsa_forward,
    sbg_plus,
    sbs,
    sffs,
    sfs,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Literal, TypeAlias

    from numpy.typing import ArrayLike
    from sklearn.base import BaseEstimator
    from typing_extensions import Self

    from stablefs._validation import SeedLike
    #: an error criterion: a name, or ``criterion(X_subset, y) -> error`` (lower is better)
    Criterion: TypeAlias = (Literal["bolstered", "semi-bolstered", "resubstitution", "cv"]
                             | Callable[[np.ndarray, np.ndarray], float])

__all__ = ["MAX_FULL_PATH", "RSA", "SBGPlus", "SBS", "SFFS", "SFS", "WrapperSelector"]

#: searches that visit every subset size (backward searches; forward ones without a size or a
#: ``max_features``) are refused above this many features: O(p^2) subsets
MAX_FULL_PATH = 2000


def _refuse_full_path(name: str, p: int, forward: bool) -> None:
    if p <= MAX_FULL_PATH:
        return
    from stablefs._errors import StablefsError

    hint = ("set n_features_to_select (or max_features) to stop the forward search early"
            if forward else "pre-filter the features (e.g. the top 200 by 'ttest') or use SFS")
    raise StablefsError(
        f"{name} would evaluate about {p * (p + 1) // 2:,} feature subsets on {p} features "
        f"(more than {MAX_FULL_PATH} features): {hint}."
    )


class WrapperSelector(BaseSelector):
    """Base class of the sequential wrappers: parameters, ``fit`` and the search path.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Size of ``support_``. ``None`` returns the subset with the lowest criterion value on
        the search path (the thesis' experiments run the search without a stopping rule and
        keep the best subset on the path, ch. 6-7).
    estimator : str or scikit-learn classifier, default="lda"
        The classification rule judged on each subset: ``"lda"``, ``"svm"`` (linear, C = 1),
        ``"Knn"`` such as ``"3nn"``, or a classifier with ``fit`` and ``predict``. The linear
        SVM keeps libsvm's own iteration limit (``max(10^7, 100 n)`` per solve): on features of
        a large scale (raw intensities) a solve reaches it and the search stops with a one-line
        error asking to log-transform or standardise the data.
    criterion : str or callable, default="bolstered"
        ``"bolstered"``, ``"semi-bolstered"``, ``"resubstitution"``, ``"cv"`` (see
        :mod:`stablefs.evaluation.error_estimators`), or ``criterion(X_subset, y) -> error``
        (lower is better).
    cv : int or str, default=5
        Folds of ``criterion="cv"`` (one stratified partition), or ``"RxK"`` such as ``"5x2"``
        (the inner 5x2 cross-validation of Prat Masramon 2016, sec. 3.2).
    n_draws : int, default=10
        Monte-Carlo draws per point when bolstering a rule without a closed form (kNN).
    max_features : int or None, default=None
        Forward searches with ``n_features_to_select=None`` stop after this many features
        (``None``: all of them).
    random_state : int, Generator or None
        Seeds the cross-validation partitions and bolstering draws (drawn once per fit).

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Rank-based: ``(n_features - ranking_ + 1) / n_features`` (1 for the best feature);
        wrappers have no per-feature score of their own.
    ranking_ : ndarray of shape (n_features,)
        From the order of inclusion (forward) or the reverse order of exclusion (backward);
        features a forward search never reached follow, ordered by the criterion of the
        returned subset plus that feature (one more forward step), ties by index.
    support_ : ndarray of bool
        The selected subset.
    path_ : list of ndarray
        The current subset (sorted feature indices) after every search step, starting with
        the initial one (empty or all features).
    path_errors_ : ndarray
        The criterion value of each subset of ``path_``.
    path_moves_ : list of tuple
        ``("add", j)`` or ``("remove", j)`` for each step.
    n_ties_ : ndarray of int
        Candidates tied with the chosen one at each step (broken by the lowest index).
    n_evaluations_ : int
        Subsets evaluated by the criterion.

    References
    ----------
    .. [1] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.1 (the sequential searches)
       and sec. 3.2 (the inner 5 × 2 cross-validation criterion).
    .. [2] Y. Xiao, J. Hua and E. R. Dougherty, "Quantification of the impact of feature
       selection on the variance of cross-validation error estimation", EURASIP Journal on
       Bioinformatics and Systems Biology, 2007, Article ID 16354, App. A (SFS and SFFS with
       bolstered criteria).
    .. [3] U. M. Braga-Neto and E. R. Dougherty, "Bolstered error estimation", Pattern
       Recognition 37(6), 1267–1281, 2004.

    Examples
    --------
    Any wrapper accepts a criterion of one's own, ``criterion(X_subset, y) -> error``:

    >>> import numpy as np
    >>> from stablefs.selectors import SFS
    >>> def spread(X_subset, y):
    ...     # the smaller, the better separated the class means (a toy criterion)
    ...     gap = np.abs(X_subset[y == 0].mean(axis=0) - X_subset[y == 1].mean(axis=0))
    ...     return -float(gap.sum())
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 10)
    >>> X = rng.normal(size=(20, 6))
    >>> X[:, 4] += 3 * y
    >>> sfs = SFS(2, criterion=spread).fit(X, y)
    >>> [sorted(int(j) for j in s) for s in sfs.path_]
    [[], [4], [3, 4]]
    """

    _supports_sample_weight = False
    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "estimator": [StrOptions({"lda", "svm"}), str, HasMethods(["fit", "predict"])],
        "criterion": [StrOptions(set(CRITERIA)), callable],
        "cv": [whole(2, None), str],
        "n_draws": [whole(1, None)],
        "max_features": [None, whole(1, None)],
        "random_state": ["random_state"],
    }

    def __init__(self, n_features_to_select: int | float | None = None, *,
                 estimator: str | BaseEstimator = "lda", criterion: Criterion = "bolstered",
                 cv: int | str = 5, n_draws: int = 10, max_features: int | None = None,
                 random_state: SeedLike = None) -> None:
        self.n_features_to_select = n_features_to_select
        self.estimator = estimator
        self.criterion = criterion
        self.cv = cv
        self.n_draws = n_draws
        self.max_features = max_features
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Run the search on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.
        y : array-like of shape (n_samples,)
            The class labels.

        Returns
        -------
        self
            The fitted selector.
        """
        return super().fit(X, y)

    # -- hooks ---------------------------------------------------------------------------
    def _criterion(self, X, y):
        seed = self.random_state
        if isinstance(seed, np.random.RandomState):
            seed = int(seed.randint(2**31))
        return make_criterion(X, y, estimator=self.estimator, criterion=self.criterion,
                              cv=self.cv, n_draws=self.n_draws, random_state=seed)

    def _target(self, p: int) -> int | None:
        if self.n_features_to_select is None:
            return None
        return check_n_features_to_select(self.n_features_to_select, p)

    def _search(self, crit, p: int, target: int | None) -> SearchResult:
        raise NotImplementedError

    def _rank(self, X, y, sample_weight):
        p = X.shape[1]
        target = self._target(p)
        # BLAS on one thread: a search makes thousands of small calls (n x n matrices), where a
        # second OpenBLAS thread spins when the other core is busy (SBS of 10 from 100 Colon
        # genes on the 2-core machine: 4.3 s either way when idle, 8.1 s with two threads and
        # 3.4 s with one beside a busy process); parallelism belongs one level up (resamples,
        # ensemble members)
        with limit_threads(1, user_api="blas"):
            crit = self._criterion(X, y)
            res = self._search(crit, p, target)
            order = [int(f) for f in res.order]
            if len(order) < p:
                rest = np.setdiff1d(np.arange(p), order)
                e = crit.errors_add(np.asarray(order, dtype=np.int64), rest)
                order += [int(f) for f in rest[np.argsort(e, kind="stable")]]
        ranking = np.empty(p, dtype=np.int64)
        ranking[np.asarray(order)] = np.arange(1, p + 1)
        self.path_ = res.path
        self.path_errors_ = np.asarray(res.errors)
        self.path_moves_ = res.moves
        self.n_ties_ = np.asarray(res.ties, dtype=np.int64)
        self.n_evaluations_ = int(crit.n_evaluations)
        self.criterion_description_ = crit.description
        self._best_size = int(res.subset.size)
        scores = (p - ranking + 1) / p
        return scores, ranking

    def _default_n_features_to_select(self, k: int) -> int:
        return self._best_size

    @staticmethod
    def _best_on_path(res: SearchResult) -> SearchResult:
        """Keep the subset with the lowest criterion on the path (ties: the smaller one)."""
        errors = np.asarray(res.errors)
        sizes = np.asarray([s.size for s in res.path])
        ok = sizes > 0
        idx = np.flatnonzero(ok)
        best = idx[np.lexsort((sizes[idx], errors[idx]))[0]]
        res.subset = res.path[best]
        return res


def _forward_limit(self, p, target):
    if target is not None:
        return target
    if self.max_features is None:
        _refuse_full_path(type(self).__name__, p, forward=True)
        return p
    return min(p, self.max_features)


class SFS(WrapperSelector):
    """Sequential forward selection, SFS (SFG in Prat Masramon 2016, Alg. 2.1).

    The first wrapper of Xiao, Hua and Dougherty (2007), App. A.

    Starting from the empty set, add at each step the feature whose addition gives the lowest
    criterion ``J``, evaluating all candidates of a step at once (rank-one updates for LDA,
    distance updates for kNN; see :mod:`stablefs.selectors.wrappers`). With
    ``n_features_to_select=d`` the search stops at ``d`` features; with ``None`` it runs to
    ``max_features`` and keeps the best subset on the path.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Size of ``support_``; ``None`` keeps the best subset on the search path.
    estimator, criterion, cv, n_draws, max_features, random_state
        As in :class:`WrapperSelector`.

    Attributes
    ----------
    scores_, ranking_, support_, path_, path_errors_, path_moves_, n_ties_, n_evaluations_
        As in :class:`WrapperSelector`.
    n_features_to_select_, classes_, n_features_in_
        As in :class:`stablefs.selectors.ReliefF`.

    References
    ----------
    .. [1] Y. Xiao, J. Hua and E. R. Dougherty, "Quantification of the impact of feature
       selection on the variance of cross-validation error estimation", EURASIP Journal on
       Bioinformatics and Systems Biology, 2007, Article ID 16354, App. A.
    .. [2] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.1, Alg. 2.1.

    Examples
    --------
    >>> from stablefs.datasets import make_xiao2007
    >>> from stablefs.selectors import SFS
    >>> d = make_xiao2007("equal", n_samples=50, random_state=0)
    >>> sfs = SFS(10, estimator="lda", criterion="bolstered").fit(d.X, d.y)
    >>> int(sfs.support_.sum()), len(sfs.path_)
    (10, 11)
    """

    def _search(self, crit, p, target):
        res = sfs(crit, _forward_limit(self, p, target))
        return res if target is not None else self._best_on_path(res)


class SBS(WrapperSelector):
    """Sequential backward selection, SBS (SBG in Prat Masramon 2016, Alg. 2.2).

    Starting from all features, remove at each step the feature whose removal gives the lowest
    criterion ``J``, down to one feature; the ranking is the reverse order of exclusion and the
    support the path subset of the requested size (``None``: the best on the path). Every
    feature is evaluated at every step: ``O(p^2)`` subsets, so use it on pre-filtered data (the
    thesis uses 200 genes).

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Size of ``support_``; ``None`` keeps the best subset on the search path.
    estimator, criterion, cv, n_draws, max_features, random_state
        As in :class:`WrapperSelector`.

    Attributes
    ----------
    scores_, ranking_, support_, path_, path_errors_, path_moves_, n_ties_, n_evaluations_
        As in :class:`WrapperSelector`.
    n_features_to_select_, classes_, n_features_in_
        As in :class:`stablefs.selectors.ReliefF`.

    References
    ----------
    .. [1] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.1, Alg. 2.2.

    Examples
    --------
    On 30 genes of Han's synthetic data (the first 10 relevant), with the inner 5 × 2
    cross-validation accuracy of the thesis as criterion:

    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.selectors import SBS
    >>> data = make_han2012(n_samples=40, n_features=30, n_blocks=3, n_relevant=10,
    ...                     random_state=0)
    >>> selector = SBS(5, criterion="cv", cv="5x2", random_state=0)
    >>> print(*selector.fit(data.X, data.y).get_support(indices=True))
    2 6 23 27 28
    """

    def _search(self, crit, p, target):
        _refuse_full_path("SBS", p, forward=False)
        res = sbs(crit, 1)
        return self._best_on_path(res)


class SFFS(WrapperSelector):
    """Sequential forward floating selection, SFFS (Pudil, Novovičová and Kittler 1994).

    The second wrapper of Xiao, Hua and Dougherty (2007), App. A.

    Each inclusion is followed by conditional exclusions: the least useful feature (other than
    the one just added) is removed while that gives a subset strictly better than the best
    subset of that size found so far (Pudil, Novovičová and Kittler 1994). The search stops
    when ``d`` features are selected; it returns the best subset of size ``d`` it met.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        ``d``. ``None`` floats up to ``max_features`` (all features by default) and returns
        the best subset of any size.
    exclusion : {"pudil", "mlxtend"}, default="pudil"
        The conditional-exclusion rule: ``"pudil"`` as above; ``"mlxtend"`` also requires the
        reduced subset to beat the current one, as mlxtend's floating
        ``SequentialFeatureSelector`` does.
    at_least_sfs : bool, default=False
        Also continue plain SFS from where the floating search first left its path, and keep
        the better subset of size ``d``: floating search alone can end worse than SFS (see
        :func:`stablefs.selectors.wrappers.sffs`).
    estimator, criterion, cv, n_draws, max_features, random_state
        As in :class:`WrapperSelector`.

    Attributes
    ----------
    best_subsets_ : dict
        Size -> (criterion, sorted feature indices) of the best subset of each size met.
    scores_, ranking_, support_, path_, path_errors_, path_moves_, n_ties_, n_evaluations_
        As in :class:`WrapperSelector`.
    n_features_to_select_, classes_, n_features_in_
        As in :class:`stablefs.selectors.ReliefF`.

    References
    ----------
    .. [1] P. Pudil, J. Novovičová and J. Kittler, "Floating search methods in feature
       selection", Pattern Recognition Letters 15(11), 1119–1125, 1994.
    .. [2] Y. Xiao, J. Hua and E. R. Dougherty, "Quantification of the impact of feature
       selection on the variance of cross-validation error estimation", EURASIP Journal on
       Bioinformatics and Systems Biology, 2007, Article ID 16354, App. A.
    .. [3] U. M. Braga-Neto and E. R. Dougherty, "Bolstered error estimation", Pattern
       Recognition 37(6), 1267–1281, 2004 (the default criterion).

    Examples
    --------
    >>> from stablefs.datasets import make_xiao2007
    >>> from stablefs.selectors import SFFS
    >>> data = make_xiao2007("equal", n_samples=50, random_state=0)
    >>> sffs = SFFS(5, estimator="lda", criterion="bolstered").fit(data.X, data.y)
    >>> print(*sffs.get_support(indices=True))
    20 40 56 60 100
    """

    _parameter_constraints: dict = {
        **WrapperSelector._parameter_constraints,
        "exclusion": [StrOptions({"pudil", "mlxtend"})],
        "at_least_sfs": ["boolean"],
    }

    def __init__(self, n_features_to_select: int | float | None = None, *,
                 estimator: str | BaseEstimator = "lda", criterion: Criterion = "bolstered",
                 cv: int | str = 5, n_draws: int = 10, max_features: int | None = None,
                 exclusion: Literal["pudil", "mlxtend"] = "pudil", at_least_sfs: bool = False,
                 random_state: SeedLike = None) -> None:
        super().__init__(n_features_to_select, estimator=estimator, criterion=criterion, cv=cv,
                         n_draws=n_draws, max_features=max_features, random_state=random_state)
        self.exclusion = exclusion
        self.at_least_sfs = at_least_sfs

    def _search(self, crit, p, target):
        d = _forward_limit(self, p, target)
        res = sffs(crit, d, exclusion=self.exclusion, at_least_sfs=bool(self.at_least_sfs))
        if target is None:
            size = min(res.best, key=lambda k: (res.best[k][0], k))
            if size != d:
                res.subset = res.best[size][1]
                res.order = _floating_order(res, size)
        self.best_subsets_ = {k: (v[0], v[1]) for k, v in sorted(res.best.items())}
        return res


class RSA(WrapperSelector):
    """Remainder-set-aware sequential selection, RSA (Prat Masramon 2016, ch. 6, Alg. 6.1).

    A candidate subset ``X`` is scored by ``f(J_u(X), J_u(Y - X))`` with
    ``f(a, b) = (a w_x - b w_y + 1)/2`` (eqs. 6.4-6.5), ``J_u = 1 - J`` the usefulness
    (accuracy) and the weights ``w_x = J_u(X_{k-1})``, ``w_y = J_u(Y - X_{k-1})`` of the sets
    before the step: the feature added is the one that helps the selected set most while its
    removal hurts the remainder most. About twice the cost of SFS/SBS.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Size of ``support_``; ``None`` keeps the best subset on the search path.
    direction : {"forward", "backward"}, default="forward"
        The thesis defines the forward search (Alg. 6.1) and calls the backward one
        "analogous"; its Table 6.3 compares SBG with an RSA whose numbers differ from
        Table 6.2's, so both are provided.
    estimator, criterion, cv, n_draws, max_features, random_state
        As in :class:`WrapperSelector`. The thesis' ``J`` is the inner 5x2 cross-validation
        accuracy: ``criterion="cv", cv="5x2"``.

    Attributes
    ----------
    scores_, ranking_, support_, path_, path_errors_, path_moves_, n_ties_, n_evaluations_
        As in :class:`WrapperSelector`.
    n_features_to_select_, classes_, n_features_in_
        As in :class:`stablefs.selectors.ReliefF`.

    References
    ----------
    .. [1] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, ch. 6, Alg. 6.1 and eqs. 6.4–6.5.

    Examples
    --------
    On 30 genes of Han's synthetic data (the first 10 relevant), with the inner 5 × 2
    cross-validation accuracy of the thesis as criterion:

    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.selectors import RSA
    >>> data = make_han2012(n_samples=40, n_features=30, n_blocks=3, n_relevant=10,
    ...                     random_state=0)
    >>> selector = RSA(5, criterion="cv", cv="5x2", random_state=0)
    >>> print(*selector.fit(data.X, data.y).get_support(indices=True))
    0 1 6 9 14
    """

    _parameter_constraints: dict = {
        **WrapperSelector._parameter_constraints,
        "direction": [StrOptions({"forward", "backward"})],
    }

    def __init__(self, n_features_to_select: int | float | None = None, *,
                 estimator: str | BaseEstimator = "lda", criterion: Criterion = "bolstered",
                 cv: int | str = 5, n_draws: int = 10, max_features: int | None = None,
                 direction: Literal["forward", "backward"] = "forward",
                 random_state: SeedLike = None) -> None:
        super().__init__(n_features_to_select, estimator=estimator, criterion=criterion, cv=cv,
                         n_draws=n_draws, max_features=max_features, random_state=random_state)
        self.direction = direction

    def _search(self, crit, p, target):
        if self.direction == "backward":
            _refuse_full_path("RSA (backward)", p, forward=False)
            return self._best_on_path(rsa_backward(crit, 1))
        res = rsa_forward(crit, _forward_limit(self, p, target))
        return res if target is not None else self._best_on_path(res)


class SBGPlus(WrapperSelector):
    """Sequential backward search with accumulated evidence, SBG+ (Prat Masramon 2016, ch. 7).

    Alg. 7.1 and eq. 7.10, with lambda = 2/3, w_x = 1, accumulate first, then decide.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Size of ``support_``; ``None`` keeps the best subset on the search path.
    lam : float, default=2/3
        Weight of the accumulated history against the current evaluation (0 is SBS).
    bookkeeping : {"consistent", "printed"}, default="consistent"
        ``"consistent"``: eqs. 7.8-7.9 (every evaluated subset updates every feature's mean
        usefulness with and without it) and the removal sign of the thesis' conclusions.
        ``"printed"``: Alg. 7.1 as printed, made runnable by ``0/0 := 0`` -- as printed every
        candidate has ``n-_x = 0`` (a backward search never re-adds a feature), an erratum; see
        :func:`stablefs.selectors.wrappers._search.sbg_plus`.
    estimator, criterion, cv, n_draws, max_features, random_state
        As in :class:`WrapperSelector`.

    Attributes
    ----------
    scores_, ranking_, support_, path_, path_errors_, path_moves_, n_ties_, n_evaluations_
        As in :class:`WrapperSelector`.
    n_features_to_select_, classes_, n_features_in_
        As in :class:`stablefs.selectors.ReliefF`.

    References
    ----------
    .. [1] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, ch. 7, Alg. 7.1 and eqs. 7.8–7.10.

    Examples
    --------
    On 30 genes of Han's synthetic data (the first 10 relevant), with the inner 5 × 2
    cross-validation accuracy of the thesis as criterion:

    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.selectors import SBGPlus
    >>> data = make_han2012(n_samples=40, n_features=30, n_blocks=3, n_relevant=10,
    ...                     random_state=0)
    >>> selector = SBGPlus(5, criterion="cv", cv="5x2", random_state=0)
    >>> print(*selector.fit(data.X, data.y).get_support(indices=True))
    1 6 14 17 18
    """

    _parameter_constraints: dict = {
        **WrapperSelector._parameter_constraints,
        "lam": [number(0.0, 1.0)],
        "bookkeeping": [StrOptions({"consistent", "printed"})],
    }

    def __init__(self, n_features_to_select: int | float | None = None, *,
                 estimator: str | BaseEstimator = "lda", criterion: Criterion = "bolstered",
                 cv: int | str = 5, n_draws: int = 10, max_features: int | None = None,
                 lam: float = 2.0 / 3.0,
                 bookkeeping: Literal["consistent", "printed"] = "consistent",
                 random_state: SeedLike = None) -> None:
        super().__init__(n_features_to_select, estimator=estimator, criterion=criterion, cv=cv,
                         n_draws=n_draws, max_features=max_features, random_state=random_state)
        self.lam = lam
        self.bookkeeping = bookkeeping

    def _search(self, crit, p, target):
        _refuse_full_path("SBGPlus", p, forward=False)
        res = sbg_plus(crit, lam=float(self.lam), bookkeeping=self.bookkeeping, n_keep=1)
        return self._best_on_path(res)
