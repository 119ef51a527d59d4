"""SVM-RFE: recursive feature elimination with a linear soft-margin SVM, instance-weight aware.

Guyon et al. (2002) as used by Han (2012, sec. 5.2.1 and eq. 5.2) and Yu, Ding and Loscalzo
(2008, sec. 6.1). Each iteration trains a linear SVM on the remaining features, ranks them by
the squared weights ``w_j^2`` of the hyperplane, and removes the lowest; the order in which
features leave is the ranking.

Fast by construction. The dual of a linear SVM,

    max_a  sum_i a_i - 1/2 sum_il a_i a_l y_i y_l K_il,   0 <= a_i <= C v_i,  sum_i a_i y_i = 0,

needs the features only through the ``n x n`` Gram matrix ``K = X_S X_S^T`` of the remaining
features ``S``. ``K`` is computed once (BLAS) and *downdated* as features leave,
``K <- K - X_out X_out^T``: O(n^2 p) for the whole path instead of the O(n^2 sum_t |S_t|)
(about ten times more for the 10 % schedule) of refitting on the remaining columns. It is
recomputed exactly whenever the remaining features have fallen to a quarter since the last
exact computation, which bounds the downdate's round-off (see :func:`svm_rfe_path`). Each dual
is solved by libsvm on the precomputed kernel -- the routine ``SVC(kernel="precomputed")``
calls, so the same solver, working-set rule, stopping rule and intercept as
``SVC(kernel="linear")`` -- and ``w = X_S^T (a * y)`` is recovered for the remaining features
only. The weights therefore equal ``SVC(kernel="linear").coef_`` on the same features and
instance weights up to round-off in the kernel entries (tested to 1e-8 relative at every
iteration, 2 and 3 classes, with and without instance weights, at libsvm's default tolerance).

No dual solver of our own: libsvm solves one of these duals (n = 181, Lung) in about 0.2 ms,
while an SMO or coordinate-descent loop driven from Python pays several microseconds per step
and needs hundreds of steps even when warm-started; and it would match ``SVC`` only to its
tolerance, not step for step. What costs time is Python around libsvm: ``SVC.fit`` spends
about 1.7 ms of its 2 ms validating its input, so the fits call the same libsvm routine
directly (falling back to ``SVC`` if scikit-learn's private binding changes; both are tested
to agree exactly).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from sklearn.svm import SVC
from sklearn.utils._param_validation import RealNotInt

try:  # the libsvm binding SVC.fit calls (private; _solve falls back to SVC without it)
    from sklearn.svm import _libsvm
except ImportError:  # pragma: no cover
    _libsvm = None
from sklearn.utils.validation import check_is_fitted

from stablefs._errors import StablefsError
from stablefs._threads import limit_threads
from stablefs._validation import check_n_features_to_select
from stablefs.selectors._base import BaseSelector
from stablefs.selectors._constraints import NumberInterval, StrOptions, number, whole
from stablefs.selectors._neighbors import positive_weight_subset

#: ``step="halve"`` halves the remaining features down to this many, then removes one at a
#: time (Yu, Ding and Loscalzo 2008, sec. 6.1)
HALVE_TO = 50

#: the Gram matrix is recomputed exactly when the remaining features fall to this fraction of
#: the count at its last exact computation (bounds the downdate's round-off, see svm_rfe_path)
REFRESH = 0.25

_SCALES = ("minmax", None)


# -- schedule -------------------------------------------------------------------------------

def _check_step(step):
    """``step`` as ``("fraction", Fraction)``, ``("count", int)`` or ``("halve", None)``."""
    if isinstance(step, str):
        if step == "halve":
            return "halve", None
        raise StablefsError(
            f"step = {step!r}: use a fraction in (0, 1), a whole number >= 1, or 'halve'."
        )
    if isinstance(step, numbers.Integral) and not isinstance(step, bool):
        if step >= 1:
            return "count", int(step)
    elif isinstance(step, numbers.Real) and not isinstance(step, bool):
        value = float(step)
        if 0.0 < value < 1.0:
            # the decimal the user wrote (0.1 is 1/10, not 0.1000000000000000055...), so that
            # ceil(0.1 * 810) is 81, never 82
            return "fraction", Fraction(repr(value))
    raise StablefsError(
        f"step = {step!r}: use a fraction in (0, 1) (share of the remaining features removed "
        "per iteration), a whole number >= 1 (features removed per iteration), or 'halve'."
    )


def _n_removed(m: int, kind: str, value) -> int:
    """Features the rule removes from ``m`` remaining, before the clamps."""
    if kind == "fraction":
        return max(1, math.ceil(value * m))
    if kind == "count":
        return value
    if m > HALVE_TO:
        return m - max(HALVE_TO, -(-m // 2))  # keep ceil(m / 2), never fewer than 50
    return 1


def rfe_schedule(n_features: int, step=0.1, n_features_to_select: int = 1) -> np.ndarray:
    """Number of remaining features at each SVM-RFE iteration, from ``n_features`` down to 1.

    Iteration ``t`` trains the SVM on ``schedule[t]`` features and removes
    ``schedule[t] - schedule[t + 1]`` of them:

    - a float ``step`` in (0, 1) removes ``max(1, ceil(step * m))`` of the ``m`` remaining
      (Han 2012 sec. 5.2.1, "10 percent of the remaining features"). Only ``ceil`` gives the
      48 features at iteration 28 and 10 at iteration 40 that Han 2012 sec. 6.2 reports from
      1000; ``floor`` would give 57 and 19;
    - an int ``step`` removes that many;
    - ``"halve"`` keeps ``ceil(m / 2)`` but never fewer than 50 while more than 50 remain,
      then removes one at a time (Yu, Ding and Loscalzo 2008, sec. 6.1).

    The path never jumps over ``n_features_to_select``: a removal that would cross it stops
    at it, so the subset of that size is exactly an RFE stage. Below it the same rule goes on
    (never jumping over 1) so that the elimination order ranks every feature.

    Parameters
    ----------
    n_features : int
    step : float, int or "halve", default=0.1
    n_features_to_select : int, default=1

    Returns
    -------
    ndarray of int, strictly decreasing, first ``n_features``, last 1.

    Examples
    --------
    >>> s = rfe_schedule(1000, 0.1, 10)
    >>> int(s[28]), int(s[40])
    (48, 10)
    """
    kind, value = _check_step(step)
    k = check_n_features_to_select(int(n_features_to_select), int(n_features))
    m = int(n_features)
    out = [m]
    while m > 1:
        floor = k if m > k else 1
        m = max(m - _n_removed(m, kind, value), floor)
        out.append(m)
    return np.asarray(out, dtype=np.int64)


# -- the elimination path -------------------------------------------------------------------

@dataclass
class RFEStep:
    """One SVM-RFE iteration.

    Attributes
    ----------
    remaining : ndarray of int, shape (m,)
        Indices of the features the SVM was trained on, ascending.
    coef : ndarray of shape (n_problems, m)
        The hyperplane weights ``w`` on those features: one row for two classes (the sign of
        ``SVC.coef_``: positive towards the second class), one row per class (that class
        against the rest) for more.
    intercept : ndarray of shape (n_problems,)
    eliminated : ndarray of int
        Features removed after this fit, worst first (empty at the last iteration).
    gram : ndarray of shape (n, n)
        The kernel the SVM was trained on (the maintained, downdated Gram matrix).
    """

    remaining: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    eliminated: np.ndarray
    gram: np.ndarray


def _scaled_t(X: np.ndarray, scale) -> np.ndarray:
    """``X.T`` as a new C array (features x samples), min-max scaled per feature to [0, 1]
    (constant features 0) when ``scale == "minmax"``."""
    XT = np.empty((X.shape[1], X.shape[0]))
    if scale != "minmax":
        XT[...] = X.T
        return XT
    lo = X.min(axis=0)
    span = X.max(axis=0) - lo
    span[span == 0] = 1.0
    np.subtract(X.T, lo[:, None], out=XT)
    XT /= span[:, None]
    return XT


def _worst(importance: np.ndarray, n_out: int) -> np.ndarray:
    """Positions of the ``n_out`` smallest ``importance`` values, worst first.

    Equal values: the higher position (= the higher feature index, positions follow the
    feature order) is worse. O(m) selection plus a sort of the ``n_out`` chosen, the same
    result as a full ``np.lexsort((-position, importance))[:n_out]``.
    """
    m = importance.size
    if n_out < m:
        part = np.argpartition(importance, n_out - 1)[:n_out]
        v = importance[part].max()
        below = np.flatnonzero(importance < v)
        tied = np.flatnonzero(importance == v)
        chosen = np.concatenate([below, tied[tied.size - (n_out - below.size):]])
    else:
        chosen = np.arange(m)
    return chosen[np.lexsort((-chosen, importance[chosen]))]


def _solve_svc(K, t, penalty, C, tol):
    """One dual with :class:`sklearn.svm.SVC` on the precomputed kernel: ``(dual, b)``."""
    svc = SVC(kernel="precomputed", C=C, tol=tol).fit(K, t, sample_weight=penalty)
    dual = np.zeros(K.shape[0])
    dual[svc.support_] = svc.dual_coef_[0]
    return dual, float(svc.intercept_[0])


def _solve_libsvm(K, t, penalty, C, tol):
    """The same dual, calling the libsvm routine ``SVC.fit`` calls, with ``SVC.fit``'s
    arguments for this case (C-SVC, precomputed kernel, class weights 1), without its
    per-call Python validation (about 1.7 ms of the 2 ms an ``SVC.fit`` takes at n = 181;
    RFE makes ~75 such fits per run). Signs as in ``SVC``: libsvm's raw two-class dual
    coefficients and intercept are negated (``SVC.fit`` does the same)."""
    _libsvm.set_verbosity_wrap(0)  # global in libsvm; SVC.fit sets it on every call too
    out = _libsvm.fit(
        K, np.asarray(t, dtype=np.float64), svm_type=0,
        sample_weight=np.empty(0) if penalty is None else penalty,
        class_weight=np.ones(2), kernel="precomputed", C=C, nu=0.5, probability=False,
        degree=3, shrinking=True, tol=tol, cache_size=200, coef0=0.0, gamma=0.0,
        epsilon=0.0, max_iter=-1, random_seed=0,
    )
    support, dual_coef, intercept = out[0], out[3], out[4]
    dual = np.zeros(K.shape[0])
    dual[support] = -dual_coef[0]
    return dual, -float(intercept[0])


_SOLVER = {"fast": _libsvm is not None}


def _solve(K, targets, penalty, C, tol):
    """Fit the SVM dual(s) on the precomputed kernel ``K``; returns ``(dual, intercept)``.

    ``dual`` is ``(n_problems, n)`` with ``a_i y_i`` (zero off the support; sign as in
    ``SVC.dual_coef_``), so that ``w = X_S^T dual`` is ``SVC(kernel="linear").coef_``. Uses
    libsvm directly; falls back to ``SVC(kernel="precomputed")`` (same numbers, slower) if
    scikit-learn's private libsvm binding is missing or has changed.
    """
    dual = np.empty((len(targets), K.shape[0]))
    intercept = np.empty(len(targets))
    for row, t in enumerate(targets):
        if _SOLVER["fast"]:
            try:
                dual[row], intercept[row] = _solve_libsvm(K, t, penalty, C, tol)
                continue
            except TypeError:  # the private signature changed: use the public class
                _SOLVER["fast"] = False
        dual[row], intercept[row] = _solve_svc(K, t, penalty, C, tol)
    return dual, intercept


def svm_rfe_path(
    X,
    y,
    sample_weight=None,
    *,
    step=0.1,
    n_features_to_select: int = 1,
    C: float = 1.0,
    scale: str | None = "minmax",
    tol: float = 1e-3,
    refresh: float | None = REFRESH,
) -> Iterator[RFEStep]:
    """Run SVM-RFE and yield every iteration's fit (Guyon et al. 2002; Han 2012 sec. 5.2.1).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Finite values (validated by the caller).
    y : ndarray of shape (n_samples,)
        Class labels, at least two classes among the positive-weight samples.
    sample_weight : ndarray of shape (n_samples,), optional
        Instance weights ``v_i`` of Han 2012 eq. 5.2: sample ``i`` has the penalty ``C v_i``.
        Rescaled to mean 1 over the positive-weight samples (``v_i = n_+ w_i / sum w``), so
        that equal weights -- of any size -- give plain SVM-RFE exactly; margin-based weights
        summing to 1 (Han 2012 eq. 4.6) taken as they are would shrink ``C`` by ``1/n``.
        Samples of weight 0 are absent (also from the scaling).
    step, n_features_to_select
        The schedule, see :func:`rfe_schedule`.
    C : float, default=1.0
        Soft-margin penalty (Weka SMO's default, as used by Han 2012).
    scale : {"minmax", None}, default="minmax"
        ``"minmax"`` scales every feature to [0, 1] on the (positive-weight) training samples,
        as Weka's SMO does by default; constant features become 0 and get weight 0. Scaling is
        per feature, so scaling once equals scaling at every iteration.
    tol : float, default=1e-3
        libsvm's stopping tolerance (``SVC``'s and Weka SMO's default).
    refresh : float in (0, 1) or None, default=0.25
        Recompute the Gram matrix exactly from the remaining features when their number falls
        to ``refresh`` times the count at its last exact computation (or when that is cheaper
        than the downdate); ``None`` only downdates. The downdate's round-off is a few
        ``eps * max|K|`` of the last exact matrix, and ``max|K|`` scales with the number of
        features, so recomputing at every quartering keeps the error within a few ``4 eps``
        of the current ``max|K|``, for at most ``n^2 p / 3`` extra operations in total.
        (Measured on Lung, 10 % schedule down to one feature: at most 2e-12 relative without
        recomputation, 2e-15 with it; tested.)

    Yields
    ------
    RFEStep
        One per iteration, ``len(rfe_schedule(p, step, n_features_to_select))`` in all. The
        arrays are fresh at every step except ``gram``, which is updated in place afterwards.

    Notes
    -----
    - While the path is being iterated, BLAS runs on one thread (restored when the generator
      finishes or is closed): its calls are small, and a second thread only spins when the
      machine is busy.
    - Elimination: the ``m_t - m_{t+1}`` remaining features with the smallest
      ``sum_problems w_j^2`` leave (equal values: the higher feature index first, so lower
      indices rank better, as everywhere in stablefs).
    - More than two classes: one-vs-rest, one SVM per class against the rest on the same
      kernel, and the squared weights are summed over the classes (Guyon et al. 2002's
      multi-class criterion). Han 2012 has only two-class data.
    """
    _check_step(step)  # validate before any work
    if scale not in _SCALES:
        raise StablefsError(f"scale = {scale!r}: use 'minmax' or None (no scaling).")
    if not (isinstance(C, numbers.Real) and not isinstance(C, bool) and C > 0
            and math.isfinite(C)):
        raise StablefsError(f"C = {C!r}: the SVM penalty must be a positive number.")
    if not (isinstance(tol, numbers.Real) and not isinstance(tol, bool) and tol > 0):
        raise StablefsError(f"tol = {tol!r}: the solver tolerance must be a positive number.")
    if refresh is not None and not (isinstance(refresh, numbers.Real) and 0 < refresh < 1):
        raise StablefsError(f"refresh = {refresh!r}: use a fraction in (0, 1) or None.")
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    n, p = X.shape
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if np.all(w > 0):
        Xp, yp, wp = X, y, w  # no copy of X
    else:
        Xp, yp, wp, _ = positive_weight_subset(X, y, w)
    # mean 1 over the kept samples; exactly 1 (libsvm's unweighted problem) when all equal
    penalty = None if np.ptp(wp) == 0 else wp * (wp.size / wp.sum())
    classes, codes = np.unique(yp, return_inverse=True)
    if classes.size < 2:
        raise StablefsError(
            "SVM-RFE needs at least two classes among the samples with positive weight."
        )
    targets = [codes] if classes.size == 2 else [(codes == c).astype(np.int64)
                                                  for c in range(classes.size)]
    schedule = rfe_schedule(p, step, n_features_to_select)
    C, tol = float(C), float(tol)

    # BLAS on one thread. The path is a sequence of small BLAS calls (n x n results); measured
    # on the shared 2-core machine, OpenBLAS's second thread made it up to 7x slower when other
    # processes were busy (its threads spin-wait) and saved little when they were not.
    # Parallelism belongs one level up (ensemble members, resamples).
    with limit_threads(1, user_api="blas"):
        yield from _eliminate(Xp, targets, penalty, schedule, scale, C, tol, refresh)


def _eliminate(Xp, targets, penalty, schedule, scale, C, tol, refresh):
    """The elimination loop of :func:`svm_rfe_path` (arguments validated there)."""
    p = Xp.shape[1]
    n_problems = len(targets)
    # the scaled data, features x samples, our own copy: the remaining features are kept in
    # its first m rows (a leaving feature's row is overwritten by a staying one from the
    # tail), so w is one product over exactly m contiguous rows and the Gram updates gather
    # contiguous rows; the moves sum to one pass over the data
    XT = _scaled_t(Xp, scale)
    feature = np.arange(p)  # the feature held in each row of XT
    row = np.arange(p)  # the row of XT holding each feature
    alive = np.ones(p, dtype=bool)
    w_all = np.zeros((n_problems, p))
    K = XT.T @ XT  # A.T @ A on one buffer: NumPy calls BLAS syrk, exactly symmetric
    anchor = p  # features at the last exact computation of K
    for t, m in enumerate(schedule):
        dual, intercept = _solve(K, targets, penalty, C, tol)
        # w = X_S^T (a * y), in feature order
        w_all[:, feature[:m]] = (XT[:m] @ dual.T).T
        remaining = np.flatnonzero(alive)
        coef = w_all[:, remaining]
        if t + 1 == schedule.size:
            yield RFEStep(remaining, coef, intercept, np.empty(0, np.int64), K)
            return
        n_out = int(m - schedule[t + 1])
        importance = coef[0] ** 2 if n_problems == 1 else np.einsum("cj,cj->j", coef, coef)
        out = remaining[_worst(importance, n_out)]  # equal importance: higher index first
        yield RFEStep(remaining, coef, intercept, out, K)
        m_next = m - n_out
        exact = n_out >= m_next or (refresh is not None and m_next <= refresh * anchor)
        out_rows = row[out]
        if not exact:
            B = XT[out_rows]
            K -= B.T @ B
        # move the staying features of rows m_next..m-1 into the leaving ones' rows
        leaving = np.zeros(m, dtype=bool)
        leaving[out_rows] = True
        holes = np.flatnonzero(leaving[:m_next])
        fillers = m_next + np.flatnonzero(~leaving[m_next:])
        XT[holes] = XT[fillers]
        moved = feature[fillers]
        feature[holes] = moved
        row[moved] = holes
        alive[out] = False
        if exact:
            A = XT[:m_next]
            K = A.T @ A
            anchor = m_next


# -- the selector ---------------------------------------------------------------------------

class SVMRFE(BaseSelector):
    """SVM-RFE with a linear soft-margin SVM, instance-weight aware (Guyon et al. 2002).

    The baseline selector of Han (2012, sec. 5.2.1): Weka's linear SMO with ``C = 1`` on
    min-max scaled features, removing 10 % of the remaining features per iteration; with
    instance weights it is IW SVM-RFE (Han 2012 eq. 5.2, per-sample penalty ``C v_i``). See
    :func:`svm_rfe_path` for the algorithm and :func:`rfe_schedule` for the schedules.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Size of ``support_`` (a float: a fraction). The schedule never jumps over it, so
        ``support_`` is exactly the RFE stage of that size. Elimination does not stop there:
        it goes on with the same rule down to one feature, so that ``ranking_`` orders every
        feature and the top ``k`` for any ``k`` comes from one fit (Han 2012 takes the top k
        of the ranking for sizes off the path). ``None``: the schedule is not bent towards
        any size (``rfe_schedule(p, step, 1)``, the seed's path, which is what the method
        strings ``svm-rfe``, ``iw-svm-rfe``, ``en-svm-rfe`` run) and ``support_`` is the top
        half of the ranking.
    step : float in (0, 1), int >= 1 or "halve", default=0.1
        A float removes ``max(1, ceil(step * remaining))`` per iteration (Han 2012: 10 %), an
        int removes that many, ``"halve"`` halves the remaining features down to 50 and then
        removes one at a time (Yu, Ding and Loscalzo 2008, sec. 6.1).
    C : float, default=1.0
        Soft-margin penalty.
    scale : {"minmax", None}, default="minmax"
        Min-max scale each feature to [0, 1] on the training data first, as Weka's SMO does
        (Han 2012 used Weka); ``None`` uses the raw values.
    tol : float, default=1e-3
        Stopping tolerance of the SVM solver (libsvm; the default of ``SVC`` and Weka SMO).

    Attributes
    ----------
    ranking_ : ndarray of shape (n_features,)
        1 = best: the reverse elimination order. Features removed in the same iteration are
        ordered by their ``w_j^2`` in that iteration (larger = better; equal: lower index).
    scores_ : ndarray of shape (n_features,)
        ``n_features + 1 - ranking_``: RFE has no single weight per feature, so the score is
        how late the feature left. (Weight aggregation of an ensemble, ``wen-svm-rfe``, is
        therefore the same as rank aggregation, ``ren-svm-rfe``.)
    support_ : ndarray of bool
        The ``n_features_to_select_`` features of the RFE stage of that size.
    n_remaining_ : ndarray of int, shape (n_iterations,)
        Features the SVM was trained on at each iteration: ``rfe_schedule(p, step, k)``
        (``k = 1`` when ``n_features_to_select`` is None), from ``p`` down to 1.
    weight_path_ : ndarray of shape (n_iterations, n_features)
        Row ``t``: the normalised weights ``r_j = |w_j| / sum_l |w_l|`` of the SVM of
        iteration ``t`` (Han 2012 sec. 6.1), 0 for features eliminated before it; each row
        sums to 1. With more than two classes ``|w_j|`` is ``sqrt(sum_c w_cj^2)`` over the
        one-vs-rest problems. A row whose SVM has ``w = 0`` (e.g. only constant features
        left) spreads the weight equally over the remaining features. Every iteration down to
        one feature is recorded; select rows by ``n_remaining_`` (e.g. the 41 rows from 1000
        to 10 features for Han 2012 Fig. 6.1, ``n_features_to_select <= 10``). Built on
        access from a compact store (``sum_t n_remaining_[t]`` numbers, about 10 ``p`` for
        the 10 % schedule), so that ensembles of SVM-RFE on 50,000 features stay small.
    n_features_to_select_ : int
    classes_ : ndarray

    Notes
    -----
    Instance weights (``sample_weight``): ``fit`` normalises them to sum 1 and the SVM uses
    ``v_i = n_+ w_i`` (mean 1 over the ``n_+`` samples of positive weight) as per-sample
    penalty factors ``C v_i``. With equal weights ``v_i = 1`` exactly and the result is plain
    SVM-RFE, bit for bit. Han 2012 says eq. 5.2 "becomes the original objective" for equal
    weights, which holds only for weights of 1; its margin-based weights sum to 1 and, taken
    as they are, would shrink ``C`` to about ``C / n``. Samples of weight 0 are left out.

    Examples
    --------
    >>> from stablefs.datasets import make_han2012
    >>> data = make_han2012(n_samples=100, random_state=0)
    >>> rfe = SVMRFE(n_features_to_select=10).fit(data.X, data.y)
    >>> int(rfe.n_remaining_[28]), rfe.weight_path_.shape
    (48, (50, 1000))
    >>> int(rfe.support_.sum()), round(float(rfe.weight_path_[28].sum()), 12)
    (10, 1.0)
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "step": [NumberInterval(RealNotInt, 0.0, 1.0, closed="neither"), whole(1, None),
                 StrOptions({"halve"})],
        "C": [number(0, None, closed="neither")],
        "scale": [StrOptions({"minmax"}), None],
        "tol": [number(0, None, closed="neither")],
    }

    def __init__(self, n_features_to_select=None, step=0.1, C=1.0, scale="minmax", tol=1e-3):
        self.n_features_to_select = n_features_to_select
        self.step = step
        self.C = C
        self.scale = scale
        self.tol = tol

    def _rank(self, X, y, sample_weight):
        p = X.shape[1]
        k = 1
        if self.n_features_to_select is not None:
            k = check_n_features_to_select(self.n_features_to_select, p)
        ranking = np.empty(p, dtype=np.int64)
        counts, values = [], []
        for fit in svm_rfe_path(X, y, sample_weight, step=self.step, n_features_to_select=k,
                                C=self.C, scale=self.scale, tol=self.tol):
            m = fit.remaining.size
            counts.append(m)
            coef = fit.coef
            size = np.abs(coef[0]) if len(coef) == 1 else np.sqrt(np.einsum("cj,cj->j", coef,
                                                                             coef))
            total = size.sum()
            values.append(size / total if total > 0 else np.full(m, 1.0 / m))
            out = fit.eliminated
            ranking[out] = m - np.arange(out.size)  # worst first gets rank m
            if out.size == 0:  # the last iteration: one feature left
                ranking[fit.remaining] = np.arange(1, m + 1)
        self.n_remaining_ = np.asarray(counts, dtype=np.int64)
        self._path_values = np.concatenate(values)
        scores = (p + 1 - ranking).astype(float)
        return scores, ranking

    @property
    def weight_path_(self) -> np.ndarray:
        """Normalised weights at every iteration, (n_iterations, n_features); see the class."""
        check_is_fitted(self, "n_remaining_")
        p = self.ranking_.size
        path = np.zeros((self.n_remaining_.size, p))
        start = 0
        for row, m in enumerate(self.n_remaining_):
            idx = np.flatnonzero(self.ranking_ <= m)
            path[row, idx] = self._path_values[start:start + m]
            start += m
        return path
