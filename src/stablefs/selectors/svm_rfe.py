"""SVM-RFE: recursive feature elimination with a linear soft-margin SVM, instance-weight aware.

Guyon et al. (2002) as used by Han (2012, sec. 5.2.1 and eq. 5.2) and Yu, Ding and Loscalzo
(2008, sec. 6.1). Each iteration trains a linear SVM on the remaining features, ranks them by
the squared weights ``w_j^2`` of the hyperplane, and removes the lowest; the order in which
features leave is the ranking.

Fast by construction. The dual of a linear SVM,

    max_a  sum_i a_i - 1/2 sum_il a_i a_l y_i y_l K_il,   0 <= a_i <= C v_i,  sum_i a_i y_i = 0,

needs the features only through the ``n x n`` Gram matrix ``K = X_S X_S^T`` of the remaining
features ``S``. ``K`` is computed once (BLAS) and *downdated* as features leave,
``K <- K - X_out X_out^T`` (BLAS ``syrk`` on its lower triangle, in place): O(n^2 p) for the
whole path instead of the O(n^2 sum_t |S_t|) (about ten times more for the 10 % schedule) of
refitting on the remaining columns. It is recomputed exactly whenever the remaining features
have fallen to a quarter since the last exact computation, which bounds the downdate's
round-off (see :func:`svm_rfe_path`). Each dual is solved by libsvm's SMO compiled
(:mod:`stablefs.selectors._smo`): the solver, working-set rule, shrinking, stopping rule,
single-precision ``Q`` and offset of ``SVC(kernel="precomputed")`` step for step, so the same
dual coefficients and intercept on the same kernel to the last bit (tested, with and without
instance weights). ``w = X_S^T (a * y)`` is recovered for the remaining features only, from
the support vectors' columns (see :func:`_eliminate` for the data layout). The weights
therefore equal ``SVC(kernel="linear").coef_`` on the same features and instance weights up
to round-off in the kernel entries (tested to 1e-8 relative at every iteration, 2 and 3
classes, with and without instance weights, at libsvm's default tolerance).

Many samples against few features (``n > 4p/3``): the ``n x n`` Gram matrix would then be
larger than the data (2.5 times it at n = 5000 x p = 2000, plus libsvm's single-precision
``Q``, 1.25 times), so the path keeps no Gram matrix: each fit computes its kernel from the
remaining features, a block of rows at a time (one BLAS product each), straight into ``Q``
(see :func:`gram_from_columns` for the rule, which compares the bytes). Its peak memory is then
the working copy of the data and ``Q``; the kernel is exact at every iteration instead of
downdated (``n^2 sum_t m_t / 2`` operations instead of about ``n^2 p``), so the weights differ
from the downdating path's by the downdate's round-off only (within 1e-12 of the largest
weight, the same rankings: tested on both paths, and against the plain ``SVC`` loop).

Why a compiled solver: calling scikit-learn's libsvm binding directly took about 0.17 ms per
dual on Lung (n = 181; the binding also copies the kernel into libsvm's rows), the compiled
solver about 0.1 ms on the same kernels. A warm-started or another solver would be faster
still, but it would stop at another point within the tolerance, and so change rankings at
near ties.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
from sklearn.utils._param_validation import RealNotInt
from sklearn.utils.validation import check_is_fitted

from stablefs._errors import StablefsError
from stablefs._runtime.threads import limit_threads
from stablefs._validation import check_n_features_to_select
from stablefs.selectors._base import BaseSelector
from stablefs.selectors._constraints import NumberInterval, StrOptions, number, whole
from stablefs.selectors._neighbors import positive_weight_subset

if TYPE_CHECKING:
    from typing import Literal

#: ``step="halve"`` halves the remaining features down to this many, then removes one at a
#: time (Yu, Ding and Loscalzo 2008, sec. 6.1)
HALVE_TO = 50

#: the Gram matrix is recomputed exactly when the remaining features fall to this fraction of
#: the count at its last exact computation (bounds the downdate's round-off, see svm_rfe_path)
REFRESH = 0.25

_SCALES = ("minmax", None)

#: None: :func:`gram_from_columns` chooses between the maintained Gram matrix and the kernel
#: from the remaining columns; True / False force one (tests compare the two)
FROM_COLUMNS: bool | None = None


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
    if kind == "fraction":  # ceil(value * m) in integers (Fraction arithmetic: ~5 us a call)
        return max(1, -(-value.numerator * m // value.denominator))
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
    lower_gram : ndarray of shape (n_rows, n_rows) or None
        The maintained, downdated Gram matrix the SVM was trained on, one row per distinct
        sample (duplicated samples share one), in an order of its own; only its lower
        triangle (diagonal included) is kept up to date. :attr:`gram` is the whole matrix,
        one row per sample. None when the path trains from the remaining columns
        (:func:`gram_from_columns`: no Gram matrix is kept).
    rows : ndarray of int, shape (n,)
        The row of ``lower_gram`` of each sample.
    """

    remaining: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    eliminated: np.ndarray
    lower_gram: np.ndarray | None
    rows: np.ndarray

    @property
    def gram(self) -> np.ndarray | None:
        """The kernel the SVM was trained on, ``X_S X_S^T`` in the samples' order (a new
        symmetric array built from :attr:`lower_gram`; None without one)."""
        if self.lower_gram is None:
            return None
        low = np.tril(self.lower_gram)
        full = low + np.tril(low, -1).T
        return full[np.ix_(self.rows, self.rows)]


def _not_finite(X: np.ndarray) -> StablefsError:
    """The error for an ``X`` the path cannot use: NaN, infinity, or values so large that
    ``X``'s range or its squares overflow (searched for only once a cheap check failed)."""
    if np.isnan(X).any():
        return StablefsError("Input X contains NaN: SVM-RFE needs finite values.")
    if np.isinf(X).any():
        return StablefsError("Input X contains infinity: SVM-RFE needs finite values.")
    return StablefsError(
        "Input X holds values too large for SVM-RFE: a feature's range or the sum of its "
        "squares overflows float64; rescale the data."
    )


def _minmax_t(X: np.ndarray) -> np.ndarray:
    """``X.T`` as a new C array (features x samples), min-max scaled per feature to [0, 1]
    (constant features 0).

    Raises for non-finite ``X``: a NaN makes its feature's minimum NaN and an infinity its
    range infinite, so checking the ranges checks every value.
    """
    from stablefs.selectors._rfe_kernels import scaled_transpose  # Numba: on first use

    lo = X.min(axis=0)
    with np.errstate(over="ignore", invalid="ignore"):  # checked just below
        span = X.max(axis=0) - lo
    if not np.isfinite(span).all():
        raise _not_finite(X)
    span[span == 0] = 1.0
    return scaled_transpose(X, lo, span)


@dataclass(frozen=True)
class _Dual:
    """One SVM problem of the path in libsvm's conventions: the classes sorted, the first one
    is ``+1`` and its points come first, each point with its box bound."""

    rows: np.ndarray  # (n,) int64, the row of K of each point, points in libsvm's order
    sign: np.ndarray  # (n,) int64, +1 / -1 of each point
    bound: np.ndarray  # (n,) float64, C v_i of each point


def _duals(targets, penalty, C, rows) -> list[_Dual]:
    """The problems of :func:`_solve`: one for two classes, one per class (against the rest)
    for more; ``penalty`` (mean-1 instance weights, or None) times ``C`` bounds each point;
    ``rows`` gives the row of the Gram matrix of each sample (duplicated samples share one)."""
    bounds = np.full(targets[0].size, C) if penalty is None else C * penalty
    out = []
    for t in targets:
        order = np.argsort(t, kind="stable")
        out.append(_Dual(rows[order], np.where(t[order] == t[order[0]], 1, -1).astype(np.int64),
                         np.ascontiguousarray(bounds[order])))
    return out


def _distinct_rows(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, first)``: ``first`` the first sample of every distinct row of ``X``
    (ascending), ``rows[i]`` the position in ``first`` of sample ``i``'s row.

    A bootstrap sample holds about ``0.632 n`` distinct samples; SVM-RFE then keeps the Gram
    matrix and ``w`` over the distinct rows only (the duplicates share a row of ``K``) while
    the SVM still sees every sample. Candidates are the samples equal on the first eight
    features (one ``lexsort``, microseconds); each is compared in full with the earlier
    members of its group, so equal means equal in every feature.
    """
    n = X.shape[0]
    key = X[:, : min(8, X.shape[1])]
    order = np.lexsort(key.T[::-1])
    rep = np.arange(n)  # the first sample holding each sample's row
    if n > 1:
        same = np.all(key[order[1:]] == key[order[:-1]], axis=1)
        start = 0
        for stop in [*(np.flatnonzero(~same) + 1).tolist(), n]:
            group = order[start:stop]  # ascending sample index (the sort is stable)
            for a in range(1, group.size):
                for b in range(a):
                    if rep[group[b]] == group[b] and np.array_equal(X[group[a]], X[group[b]]):
                        rep[group[a]] = group[b]
                        break
            start = stop
    first = np.flatnonzero(rep == np.arange(n))
    rows = np.searchsorted(first, rep)
    return rows, first


def _solve(K, duals, tol):
    """Fit the SVM dual(s) on the precomputed kernel ``K``; returns ``(dual, intercept)``.

    ``dual`` is ``(n_problems, rows of K)`` with ``a_i y_i`` summed over the samples of each
    row (zero off the support; sign as in ``SVC.dual_coef_``), so that ``w = X_S^T dual`` is
    ``SVC(kernel="linear").coef_``, and ``intercept`` is ``SVC.intercept_``. Each dual is
    solved by libsvm's SMO compiled (:func:`stablefs.selectors._smo.svc_dual_ordered`), which
    gives ``SVC(kernel="precomputed")``'s dual coefficients and intercept on ``K`` to the last
    bit, with and without instance weights (tested); ``SVC`` negates libsvm's two-class dual
    and offset (``intercept = rho``).
    """
    from stablefs.selectors._smo import svc_dual_ordered  # Numba: imported on first use

    dual = np.empty((len(duals), K.shape[0]))
    intercept = np.empty(len(duals))
    for row, d in enumerate(duals):
        coef, rho, _ = svc_dual_ordered(K, d.rows, d.sign, d.bound, tol, -1)  # no limit
        dual[row] = -coef  # SVC's signs
        intercept[row] = rho
    return dual, intercept


#: bytes of one block of Gram rows when the kernel is computed from the remaining columns (at
#: most a quarter of the working copy's)
GRAM_BLOCK_BYTES = 16 * 2**20


def gram_from_columns(n_rows: int, n_points: int, n_features: int) -> bool:
    """Whether SVM-RFE trains from the remaining columns (a fresh kernel for every fit)
    rather than from a maintained Gram matrix: when the Gram matrix (``8 r^2`` bytes for ``r``
    distinct samples) and libsvm's single-precision ``Q`` (``4 n^2``) would take more than
    twice the working copy of the data (``8 r p``), i.e. ``n`` large against ``p``
    (``n > 4p/3`` without duplicated samples). See :func:`svm_rfe_path`."""
    return 8 * n_rows**2 + 4 * n_points**2 > 2 * 8 * n_rows * n_features


def _solve_columns(XT, m, duals, tol):
    """:func:`_solve` with the kernel computed from the remaining features, ``K = A^T A`` for
    ``A = XT[:m]`` (features x distinct samples), in blocks of rows straight into libsvm's
    single-precision ``Q`` of each dual: no ``n x n`` double matrix is kept. Each block is one
    BLAS product of its rows against the rows up to its last (the lower triangle)."""
    from stablefs.selectors._smo import fill_q_block, svc_dual_q  # Numba: on first use

    r = XT.shape[1]
    A = XT[:m]
    width = max(1, min(r, min(GRAM_BLOCK_BYTES, XT.nbytes // 4) // (8 * max(1, r))))
    dual = np.empty((len(duals), r))
    intercept = np.empty(len(duals))
    for k, d in enumerate(duals):
        n = d.rows.size
        Q = np.empty((n, n), dtype=np.float32)
        QD = np.empty(n)
        for r0 in range(0, r, width):
            r1 = min(r, r0 + width)
            fill_q_block(A[:, r0:r1].T @ A[:, :r1], r0, d.rows, d.sign, Q, QD)
        coef, rho, _ = svc_dual_q(Q, QD, d.rows, d.sign, d.bound, tol, -1, r)
        del Q
        dual[k] = -coef  # SVC's signs
        intercept[k] = rho
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
        Finite values; NaN, infinity and values whose range or squares overflow raise a
        one-line error before any SVM is trained (checked on the way, in passes the path
        makes anyway: the min-max ranges, or the first Gram matrix's diagonal).
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
        of the current ``max|K|``, for at most ``n^2 p / 6`` extra operations in total.
        Measured on Lung, 10 % schedule down to one feature, the largest error relative to
        the current ``max|K|``: 2.6e-12 without recomputation (74 entries of libsvm's
        single-precision ``Q`` then differ from the exact Gram matrix's over the path), 4e-15
        at 1/4 and 1.7e-14 at 1/16 (no ``Q`` entry differs at either). A sixteenth would save
        about 2 ms of a 50 ms Lung path, but on Prostate's raw intensities (``scale=None``,
        Gram entries near 1e12) it changed the 10-feature stage, which 1/4 keeps equal to the
        plain ``SVC`` loop's (tested).

    Yields
    ------
    RFEStep
        One per iteration, ``len(rfe_schedule(p, step, n_features_to_select))`` in all. The
        arrays are fresh at every step except ``lower_gram``, which is updated in place
        afterwards.

    Notes
    -----
    - While the path is being iterated, BLAS runs on one thread (restored when the generator
      finishes or is closed): its calls are small, and a second thread only spins when the
      machine is busy.
    - Elimination: the ``m_t - m_{t+1}`` remaining features with the smallest
      ``sum_problems w_j^2`` leave (equal values: the higher feature index first, so lower
      indices rank better, as everywhere in stablefs).
    - The kernel: a maintained Gram matrix (computed once, downdated, recomputed at every
      ``refresh``) when it and libsvm's single-precision ``Q`` take at most twice the
      working copy of the data (``8 r^2 + 4 n^2 <= 16 r p`` bytes, ``r`` distinct samples:
      the microarray case, n << p); otherwise each fit's kernel is computed from the
      remaining features straight into ``Q`` (:func:`gram_from_columns`; ``refresh`` is then
      moot and :attr:`RFEStep.lower_gram` None). Peak memory: at most about 3 times ``X``
      either way (besides ``X``).
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
        left_out = X[~(w > 0)]
        if not np.isfinite(left_out).all():  # the rest is checked on the way
            raise _not_finite(left_out)
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
    rows, first = _distinct_rows(Xp)
    Xd = Xp if first.size == rows.size else Xp[first]
    with limit_threads(1, user_api="blas"):
        yield from _eliminate(Xd, rows, _duals(targets, penalty, C, rows), schedule, scale,
                              tol, refresh)


#: at most this many support vectors outside the leading columns before w is computed over
#: all the columns again (each one outside costs a strided pass over the remaining rows)
MAX_OUTSIDE = 8


def _eliminate(Xd, rows, duals, schedule, scale, tol, refresh):
    """The elimination loop of :func:`svm_rfe_path` (arguments validated there): ``Xd`` the
    distinct rows of the samples, ``rows`` the row of each sample.

    Layout: ``XT`` is our own copy of the (scaled) data, features x samples. The remaining
    features are kept in its first ``m`` rows and the leaving ones are swapped into the rows
    right after them, so ``w`` is one product over exactly ``m`` contiguous rows and the Gram
    downdate reads the leaving rows as one contiguous block (the swaps sum to about two
    passes over the data). After the first fit the samples (columns) are reordered, support
    vectors first, when they are at most half of the samples: the support vectors of later
    fits are nearly the same ones (Lung: the 61 of the first fit hold all but 0-6 of each
    later fit's 11-62), and ``w = X_S^T (a y)`` needs only their columns, so the product reads
    about a third of each row (a few outside are added separately). ``K``, the duals' point
    orders and the yielded Gram matrices follow the reordering; the solutions do not change.
    Without scaling the first Gram matrix is computed from ``Xd`` itself and ``XT`` is made
    after the first fit, already in that order (one pass over the data instead of two; the
    same matrix to the last bit: NumPy computes both products by BLAS ``syrk``).
    """
    from scipy.linalg.blas import dsyrk as syrk

    from stablefs.selectors._rfe_kernels import (
        leaving,
        move_out,
        nonzero_beyond,
        permute_columns,
        permute_symmetric,
        permuted_transpose,
        weights_by_feature,
    )

    n, p = Xd.shape
    from_columns = gram_from_columns(n, rows.size, p) if FROM_COLUMNS is None \
        else FROM_COLUMNS
    if scale == "minmax":
        XT = _minmax_t(Xd)
        # A.T @ A on one buffer: NumPy calls BLAS syrk, exactly symmetric
        K = None if from_columns else XT.T @ XT
    elif from_columns:  # no Gram matrix: the working copy at once, its squares checked
        with np.errstate(over="ignore", invalid="ignore"):
            if not np.isfinite(np.einsum("ij,ij->i", Xd, Xd)).all():
                raise _not_finite(Xd)
        XT = permuted_transpose(Xd, np.arange(n))
        K = None
    else:
        XT = None  # made after the first fit
        with np.errstate(over="ignore", invalid="ignore"):  # checked just below
            K = Xd @ Xd.T
        # a NaN in X makes its sample's K_ii NaN, an infinity makes it infinite: checking the
        # diagonal checks every value (and the squares' overflow)
        if not np.isfinite(np.diagonal(K)).all():
            raise _not_finite(Xd)
    feature = np.arange(p)  # the feature held in each row of XT
    row = np.arange(p)  # the row of XT holding each feature
    remaining = np.arange(p)  # the remaining features, ascending
    anchor = p  # features at the last exact computation of K
    lead = n  # w reads the first `lead` columns (and the support vectors beyond them)
    for t, m in enumerate(schedule):
        dual, intercept = _solve(K, duals, tol) if K is not None else \
            _solve_columns(XT, m, duals, tol)
        if t == 0:
            columns = np.arange(n)
            support = np.any(dual != 0, axis=0)
            if schedule.size > 2 and 0 < np.count_nonzero(support) <= n // 2:
                columns = np.concatenate([np.flatnonzero(support), np.flatnonzero(~support)])
                position = np.argsort(columns)
                if K is not None:
                    permute_symmetric(K, columns)  # K[np.ix_(columns, columns)] in place
                dual = dual[:, columns]
                duals = [_Dual(position[d.rows], d.sign, d.bound) for d in duals]
                rows = position[rows]
                lead = int(np.count_nonzero(support))
                if XT is not None:
                    permute_columns(XT, columns)
            if XT is None:
                XT = permuted_transpose(Xd, columns)
        # w = X_S^T (a * y), one row per row of XT
        outside = nonzero_beyond(dual, lead)
        if outside.size > MAX_OUTSIDE:
            w = XT[:m] @ dual.T
        else:
            w = XT[:m, :lead] @ dual[:, :lead].T
            if outside.size:
                w += XT[:m, outside] @ dual[:, outside].T
        coef, importance = weights_by_feature(w, row, remaining)  # in feature order
        if t + 1 == schedule.size:
            yield RFEStep(remaining, coef, intercept, np.empty(0, np.int64), K, rows)
            return
        # the n_out smallest sum_c w_cj^2 leave, worst first (ties: higher index first)
        n_out = int(m - schedule[t + 1])
        threshold = np.partition(importance, n_out - 1)[n_out - 1] if n_out < m else 0.0
        chosen, values, kept = leaving(importance, n_out, threshold, remaining)
        out = remaining[chosen[np.argsort(values, kind="stable")]]
        yield RFEStep(remaining, coef, intercept, out, K, rows)
        m_next = m - n_out
        move_out(XT, feature, row, out, m_next)  # the leaving rows to m_next .. m - 1
        remaining = kept
        if K is None:  # the next fit computes its kernel from the remaining rows
            continue
        if n_out >= m_next or (refresh is not None and m_next <= refresh * anchor):
            A = XT[:m_next]
            np.matmul(A.T, A, out=K)  # BLAS syrk as A.T @ A, into K's own memory
            anchor = m_next
        else:  # K -= B^T B on the lower triangle, in place (BLAS syrk on the transposed view;
            # K is C-ordered, so K.T is Fortran-ordered and f2py passes it without a copy)
            B = XT[m_next:m]
            K = syrk(-1.0, B.T, beta=1.0, c=K.T, trans=0, lower=0, overwrite_c=1).T


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
        any size (``rfe_schedule(p, step, 1)``, Han's path, which is what the method
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
        The size of ``support_``.
    classes_ : ndarray
        The class labels seen by ``fit``.
    n_features_in_ : int
        Number of features seen by ``fit``.

    Notes
    -----
    Instance weights (``sample_weight``): ``fit`` normalises them to sum 1 and the SVM uses
    ``v_i = n_+ w_i`` (mean 1 over the ``n_+`` samples of positive weight) as per-sample
    penalty factors ``C v_i``. With equal weights ``v_i = 1`` exactly and the result is plain
    SVM-RFE, bit for bit. Han 2012 says eq. 5.2 "becomes the original objective" for equal
    weights, which holds only for weights of 1; its margin-based weights sum to 1 and, taken
    as they are, would shrink ``C`` to about ``C / n``. Samples of weight 0 are left out.

    References
    ----------
    .. [1] I. Guyon, J. Weston, S. Barnhill and V. Vapnik, "Gene selection for cancer
       classification using support vector machines", Machine Learning 46, 389–422, 2002.
    .. [2] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 5.2.1, eq. 5.2
       (instance-weighted SVM-RFE) and sec. 6.1 (the weight path).
    .. [3] L. Yu, C. Ding and S. Loscalzo, "Stable feature selection via dense feature
       groups", Proc. 14th ACM SIGKDD Int. Conf. on Knowledge Discovery and Data Mining,
       803–811, 2008, sec. 6.1 (the ``"halve"`` schedule).
    .. [4] C.-C. Chang and C.-J. Lin, "LIBSVM: a library for support vector machines", ACM
       Transactions on Intelligent Systems and Technology 2(3), 27:1–27:27, 2011 (the SMO
       solver).

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

    _checks_finite = True  # svm_rfe_path rejects NaN and infinity on the way

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "step": [NumberInterval(RealNotInt, 0.0, 1.0, closed="neither"), whole(1, None),
                 StrOptions({"halve"})],
        "C": [number(0, None, closed="neither")],
        "scale": [StrOptions({"minmax"}), None],
        "tol": [number(0, None, closed="neither")],
    }

    def __init__(self, n_features_to_select: int | float | None = None,
                 step: float | int | Literal["halve"] = 0.1, C: float = 1.0,
                 scale: Literal["minmax"] | None = "minmax", tol: float = 1e-3) -> None:
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
        counts, coefs = [], []
        for fit in svm_rfe_path(X, y, sample_weight, step=self.step, n_features_to_select=k,
                                C=self.C, scale=self.scale, tol=self.tol):
            m = fit.remaining.size
            counts.append(m)
            coefs.append(fit.coef)
            out = fit.eliminated
            ranking[out] = m - np.arange(out.size)  # worst first gets rank m
            if out.size == 0:  # the last iteration: one feature left
                ranking[fit.remaining] = np.arange(1, m + 1)
        self.n_remaining_ = np.asarray(counts, dtype=np.int64)
        # |w_j| of every iteration, in one array (normalised on access, see weight_path_)
        coef = np.concatenate(coefs, axis=1)
        self._path_sizes = (np.abs(coef[0]) if len(coef) == 1
                            else np.sqrt(np.einsum("cj,cj->j", coef, coef)))
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
            size = self._path_sizes[start:start + m]
            total = size.sum()
            path[row, idx] = size / total if total > 0 else np.full(m, 1.0 / m)
            start += m
        return path
