"""Subset criteria for the wrappers, evaluated incrementally: all candidates of a step at once.

A criterion is an error estimate ``J(S)`` of a feature subset ``S`` (lower is better). A
sequential search needs, at every step, ``J(S + {j})`` for every candidate ``j`` outside ``S``
(a forward step) or ``J(S - {x})`` for every ``x`` in ``S`` (a backward step). Refitting a
classifier per candidate costs ``O(m)`` fits; here every step is a handful of array operations
whose cost is linear in the number of candidates:

- **LDA** (resubstitution, bolstered, semi-bolstered, hold-out parts of a cross-validation):
  the pooled covariance of ``S + {j}`` is the bordered matrix ``[[S_SS, s], [s^T, s_jj]]``; with
  ``A = S_SS^{-1}``, ``v = A s`` and the Schur complement ``c = s_jj - s^T v`` its inverse
  applied to a class mean ``m`` is ``[A m_S - v t; t]`` with ``t = (m_j - v^T m_S)/c``, so every
  discriminant value, the LDA direction's norm and the bolstered term ``Phi(-s_i/sigma_i)``
  follow for all candidates from ``A``, ``V = A S_{S,cand}`` and ``c`` (rank-one updates of the
  pooled covariance, ``O(n k m)`` per step). Removing ``x`` uses the inverse of a principal
  sub-matrix, ``(A_{-x,-x} - A_{-x,x} A_{x,-x}/A_xx)``, again for all ``x`` at once.
  A forward step of the two-class (semi-)bolstered criterion computes every feature at once
  (rows ordered by class, one matrix product for all discriminants) when the candidates are
  most of the features.
- **kNN** (resubstitution, hold-out, Monte-Carlo bolstering): squared distances over ``S`` are
  kept and updated by one feature, ``D + (x_ij - x_lj)^2``; bolstered draws
  ``Z = x_i + sigma eps`` use common random numbers per feature (:class:`Noise`), so that
  ``|Z - x_l|^2 = A_il + 2 sigma B_iml + sigma^2 C_im`` is updated by one feature as well. In a
  forward step the last term, the same for every ``l``, is dropped and the rest divided by
  ``2 sigma > 0`` (:meth:`KNNPart._mc_terms`: the same neighbours, fewer passes), and the
  resubstitution errors of 3NN come from two order statistics (:meth:`KNNPart._resub3_add`).
- **Bolstering kernel widths** (Braga-Neto and Dougherty 2004) need each class's mean distance
  to the nearest other point of the class in the candidate subspace: the squared distances of
  ``S`` (:meth:`WidthMixin._sq_cached`) and, for all candidates at once, the coordinates of
  each point's few nearest same-class points in ``S`` (adding a feature only lengthens
  distances, so the nearest in ``S + {j}`` is among them unless a bound check fails; those
  pairs are computed in full: :meth:`WidthMixin._kth_add`).
- **Linear SVM**: one SVM solve per candidate, all candidates of a step in one compiled call
  (:func:`stablefs.selectors.wrappers._wrapper_kernels.svc_margins_add`): libsvm's SMO (Fan,
  Chen and Lin 2005) step for step on ``K_S + x_j x_j^T``, so the dual coefficients and the
  offset are those of scikit-learn's ``SVC(kernel="linear", C=1)`` to the last bit (tested);
  widths and closed-form terms for all candidates at once (:class:`SVMPart`). No warm start:
  libsvm's tolerance-1e-3 solution depends on its path from zero.
- **Compiled kernels** (Numba, :mod:`stablefs.selectors.wrappers._wrapper_kernels` and
  :mod:`stablefs.selectors.wrappers._lda_kernels`, imported on first use): the two-class
  1NN/3NN vote of the Monte-Carlo draws, the nearest same-class distances of the widths and
  the 3NN resubstitution's order statistics, computed with the same operations as the NumPy
  versions (the same values bit for bit); the two-class (semi-)bolstered LDA steps, forward
  and backward, with SciPy's own C ``ndtr`` (the same values to round-off); a flag
  ``COMPILED`` in each part's module switches back to the NumPy/libsvm path.
- **Pruned forward steps** (:meth:`Criterion.best_add`, used by SFS and SFFS): the
  Monte-Carlo kNN criteria evaluate a few candidates in full and the others point block by
  point block, dropping a candidate once its partial sum (a lower bound: every term is >= 0)
  exceeds the best value seen; the step's choice, value and tie count are unchanged. The
  bolstered LDA criteria bound every term ``Phi(z)`` between tabulated values of ``Phi`` at
  grid points around ``z`` and sum exactly only the candidates whose lower bound can reach
  the smallest upper bound (:meth:`LDAPart.sums_add_bounded`).

The parts live one family per module: :mod:`._criterion_base` (:class:`Criterion`,
:class:`Noise`, :class:`RulePart`, :class:`CallablePart`), :mod:`._bolstering_widths`,
:mod:`._lda_criterion`, :mod:`._knn_criterion` and :mod:`._svm_criterion`; this module builds
a criterion (:func:`make_criterion`) and re-exports their names.

Any other rule (a scikit-learn classifier) or a user callable is evaluated candidate by
candidate (:class:`RulePart`); so is an LDA candidate whose bordered covariance is singular
(the Moore-Penrose pseudo-inverse of
:func:`stablefs.selectors.wrappers._error_estimators.fit_lda` then decides). The incremental
values equal the refit ones to round-off (tested).
"""

from __future__ import annotations

import numbers

import numpy as np

from stablefs._errors import StablefsError
from stablefs.selectors.wrappers._bolstering_widths import NN_PRUNE, WidthMixin
from stablefs.selectors.wrappers._criterion_base import (
    CHUNK_ELEMENTS,
    CRITERIA,
    SCHUR_RTOL,
    CallablePart,
    Criterion,
    Noise,
    RulePart,
    _ee,
    majority_error,
)
from stablefs.selectors.wrappers._knn_criterion import KNNPart, knn_vote
from stablefs.selectors.wrappers._lda_criterion import LDAPart
from stablefs.selectors.wrappers._svm_criterion import SVMPart

__all__ = ["CHUNK_ELEMENTS", "CRITERIA", "NN_PRUNE", "SCHUR_RTOL", "CallablePart", "Criterion",
           "KNNPart", "LDAPart", "Noise", "RulePart", "SVMPart", "WidthMixin", "knn_vote",
           "majority_error", "make_criterion"]


def _check_cv(cv) -> tuple[int, int]:
    """``cv`` as ``(repeats, folds)``: an int k is one k-fold partition; ``"RxK"`` is R
    repetitions of K-fold (``"5x2"``: the inner 5x2 cross-validation of Prat Masramon 2016,
    sec. 3.2)."""
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        if int(cv) >= 2:
            return 1, int(cv)
    elif isinstance(cv, str):
        head, sep, tail = cv.lower().partition("x")
        if sep and head.strip().isdigit() and tail.strip().isdigit():
            r, k = int(head), int(tail)
            if r >= 1 and k >= 2:
                return r, k
    raise StablefsError(
        f"cv = {cv!r}: use a whole number of folds >= 2, or 'RxK' such as '5x2' (R repetitions "
        "of K-fold)."
    )


def make_criterion(X, y, *, estimator="lda", criterion="bolstered", cv=5, n_draws: int = 10,
                   random_state=None) -> Criterion:
    """The subset criterion ``J`` of a wrapper, bound to the data.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    estimator : str or scikit-learn classifier, default="lda"
        ``"lda"``, ``"svm"`` (linear, C = 1), ``"Knn"`` (e.g. ``"3nn"``) or a classifier.
    criterion : str or callable, default="bolstered"
        ``"bolstered"``, ``"semi-bolstered"``, ``"resubstitution"``, ``"cv"``, or a callable
        ``criterion(X_subset, y) -> error``.
    cv : int or str, default=5
        For ``criterion="cv"``: folds (one stratified partition) or ``"RxK"``.
    n_draws : int, default=10
        Monte-Carlo draws per point for bolstering rules without a closed form.
    random_state : int, Generator or None
        Seeds the cross-validation partitions and the bolstering draws (drawn once: every
        subset is judged on the same partitions and draws).

    Returns
    -------
    Criterion
    """
    X = np.ascontiguousarray(X, dtype=float)
    y = np.asarray(y)
    n, p = X.shape
    if callable(criterion) and not isinstance(criterion, str):
        return Criterion([CallablePart(X, y, criterion)], 1.0, p, "callable criterion")
    if not isinstance(criterion, str) or criterion not in CRITERIA:
        raise StablefsError(
            f"criterion = {criterion!r}: choose one of {', '.join(map(repr, CRITERIA))} or "
            "pass a callable criterion(X_subset, y) -> error."
        )
    ee = _ee()
    rule = ee.make_rule(estimator).limited()  # libsvm's iteration limit: see _svm_convergence
    classes, codes = np.unique(y, return_inverse=True)
    codes = codes.astype(np.int64)
    g = classes.size
    rng = np.random.default_rng(random_state) if not isinstance(
        random_state, np.random.Generator) else random_state
    cls = {"lda": LDAPart, "knn": KNNPart, "svm": SVMPart}.get(rule.kind, RulePart)
    if criterion == "cv":
        repeats, folds = _check_cv(cv)
        counts = np.bincount(codes, minlength=g)
        if folds > n:
            raise StablefsError(f"cv = {cv!r}: {folds} folds for {n} samples; use fewer folds.")
        parts = []
        for _ in range(repeats):
            fold = ee.stratified_folds(codes, folds, rng)
            for f in range(folds):
                test = np.flatnonzero(fold == f)
                train = np.flatnonzero(fold != f)
                parts.append(cls(X, codes, g, rule, "count", train=train, evl=test))
        desc = f"{rule.name} {repeats}x{folds}-fold cross-validation error"
        del counts
        return Criterion(parts, repeats * n, p, desc)
    if criterion == "resubstitution":
        return Criterion([cls(X, codes, g, rule, "count")], n, p, f"{rule.name} resubstitution")
    if not isinstance(n_draws, numbers.Integral) or isinstance(n_draws, bool) or n_draws < 1:
        raise StablefsError(f"n_draws = {n_draws!r}: use a whole number >= 1.")
    noise = Noise(int(rng.integers(2**63)), n, int(n_draws))
    kind = "semi" if criterion == "semi-bolstered" else "bolstered"
    desc = f"{rule.name} {criterion} resubstitution"
    return Criterion([cls(X, codes, g, rule, kind, noise=noise)], n, p, desc)
