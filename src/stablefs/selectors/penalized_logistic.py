"""L1- and elastic-net-penalised logistic regression as feature selectors.

The sparse linear models users expect beside the filters and Relief family: the lasso for
logistic regression (Tibshirani 1996) and the elastic net (Zou and Hastie 2005), fitted on
the standardised features by proximal Newton steps (Lee, Sun and Saunders 2014; Yuan, Ho and
Lin 2012) on working sets of features. The objective, for standardised ``z_i``, weights
``s_i`` summing to 1 (equal weights: ``1/n``), is

``F(W, b) = sum_i s_i l(y_i, W^T z_i + b) + lam (alpha ||W||_1 + (1 - alpha)/2 ||W||_F^2)``

with ``l`` the logistic loss (two classes, one weight vector) or the multinomial loss (more
classes, one column per class), ``alpha`` = ``l1_ratio`` (1 = lasso) and ``lam = 1/(C n)``
(``n`` the sum of the instance weights as given, the sample count without them), so that
``C`` has scikit-learn's meaning, ``C sum_i w_i l_i + penalty``, and integer weights equal
repeated rows; the tests check the coefficients against scikit-learn's saga solver. The
intercept is not penalised.

Scores and ranking (a full permutation, ``docs/DESIGN.md`` "Selectors"):

- ``scores_`` = ``|w_j|`` on the standardised scale (more classes: ``sum_k |w_jk|``);
- features with equal scores, in particular the many at exactly zero, are ordered by the
  magnitude of the loss gradient at the solution, ``g_j = ||d loss / d w_j||_1``. By the
  optimality (KKT) conditions a zero coefficient has ``g_j <= lam alpha``, and as ``C`` grows
  (``lam`` falls) the zero features enter the regularisation path in decreasing order of
  ``g_j`` to first order (Friedman, Hastie and Tibshirani 2010, sec. 2.1 and the strong rules
  of Tibshirani et al. 2012): ``g_j`` is the entry order along the path just beyond ``C``;
  remaining ties go to the lower feature index.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from stablefs._runtime.threads import limit_threads
from stablefs._validation import ranking_from_order
from stablefs.selectors._base import BaseSelector
from stablefs.selectors._constraints import number, whole

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from typing_extensions import Self

def _standardize(X: np.ndarray, w: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """``((X[rows] - mean) / sd)^T`` with the weighted mean and SD (weights ``w`` of the rows,
    summing to 1; all rows by default), one row per feature (p x n, C order, as the solver
    reads them); constant features become 0. Compiled
    (:func:`stablefs.selectors._logistic_kernels.standardize`): one new array, the same
    numbers on any host."""
    from stablefs.selectors._logistic_kernels import standardize  # Numba, on first use

    X = np.ascontiguousarray(X, dtype=np.float64)
    rows = np.arange(X.shape[0]) if rows is None else np.asarray(rows, dtype=np.int64)
    return standardize(X, rows, np.asarray(w, dtype=np.float64))


def _targets(y, sample_weight, n):
    """``(s, Y, binary, b0)``: weights summing to 1, class indicators (two classes: one
    column, of the second class), whether there are two classes, and the intercept-only
    model's intercept."""
    s = np.full(n, 1.0 / n) if sample_weight is None else np.asarray(sample_weight, float)
    s = s / s.sum()
    classes, codes = np.unique(y, return_inverse=True)
    binary = classes.size == 2
    Y = (codes[:, None] == (np.arange(1, 2) if binary else np.arange(classes.size))).astype(float)
    prior = np.clip(s @ Y, 1e-12, None)
    b = np.log(prior / (1 - prior)) if binary else np.log(prior) - np.log(prior).mean()
    return s, Y, binary, b


def lambda_max(X, y, *, l1_ratio=1.0, sample_weight=None) -> float:
    """The smallest ``lam`` at which every coefficient is zero (the start of the
    regularisation path): ``max_j ||d loss / d w_j||_inf / alpha`` at the intercept-only
    model, on the standardised features."""
    X = np.asarray(X, dtype=np.float64)
    s, Y, binary, b = _targets(y, sample_weight, X.shape[0])
    Zt = _standardize(X, s)
    # the intercept-only model's probabilities (the class priors) and the loss gradient there
    P = 1.0 / (1.0 + np.exp(-b)) if binary else np.exp(b) / np.exp(b).sum()
    with limit_threads(1, user_api="blas"):
        g0 = Zt @ ((P - Y) * s[:, None])
    return float(np.abs(g0).max() / l1_ratio)


def penalized_logistic(X, y, *, C=1.0, l1_ratio=1.0, sample_weight=None, tol=1e-3,
                       max_iter=5000, standardize=True, working_set=None, init=None,
                       weight_total=None):
    """Fit L1 / elastic-net logistic regression; return ``(W, b, gradient, n_iter)``.

    The fit runs on a working set of features: the ``working_set`` features of largest
    gradient at the start that the strong rule of Tibshirani et al. (2012) keeps, and the
    nonzero ones of a warm start; then every zero feature outside it that violates the
    optimality condition ``||d loss / d w_j||_inf <= lam alpha`` is added, the most violating
    first, and the fit repeated (warm started) until none does. The result is the minimiser
    over all features; only the cost depends on the working set. The solver is proximal
    Newton (:mod:`stablefs.selectors._logistic_kernels`).

    Parameters
    ----------
    X : ndarray (n_samples, n_features)
    y : ndarray (n_samples,)
    C : float > 0
        Inverse penalty strength, ``lam = 1 / (C n)`` (see the module docstring).
    l1_ratio : float in (0, 1]
        ``alpha``: 1 is the lasso, smaller values mix in the ridge penalty (elastic net).
    sample_weight : ndarray, optional
        Instance weights (normalised to sum to 1 in the loss).
    tol : float
        Stop when the largest violation of the optimality (KKT) conditions is below
        ``tol * lam``.
    max_iter : int
        Newton steps per working set at most.
    standardize : bool
        Centre and scale every feature (weighted mean and SD) before fitting (default); the
        coefficients are then on the standardised scale.
    working_set : int, optional
        Features added to the working set at a time (default 10; at least as many as it
        already holds; every violating feature at once when the solution has outgrown the
        exact face solve, :func:`stablefs.selectors._logistic_kernels.path`).
    init : tuple (W, b), optional
        A warm start (a neighbouring solution along a path); its nonzero features join the
        working set. The solution does not depend on it, only the cost.
    weight_total : float, optional
        The ``n`` of ``lam = 1/(C n)``: the sum of the instance weights as given (default:
        the number of samples), so that integer weights equal repeated rows, as
        scikit-learn's ``C sum_i w_i l_i`` has it.

    Returns
    -------
    W : ndarray (n_features, 1) for two classes, (n_features, n_classes) otherwise
    b : ndarray
    gradient : ndarray (n_features,)
        ``||d loss / d w_j||_1`` at the solution (without the penalty).
    n_iter : int
        Newton steps in all.
    """
    _, W, b, gradient, n_iter = penalized_logistic_path(
        X, y, [C], l1_ratio=l1_ratio, sample_weight=sample_weight, tol=tol,
        max_iter=max_iter, standardize=standardize, working_set=working_set, init=init,
        weight_total=weight_total)
    return W, b, gradient, n_iter


def penalized_logistic_path(X, y, Cs, *, l1_ratio=1.0, sample_weight=None, tol=1e-3,
                            max_iter=5000, standardize=True, working_set=None, init=None,
                            weight_total=None, rows=None):
    """Fit at every ``C`` of ``Cs``, from the largest penalty (smallest ``C``) down, each fit
    warm-started from the previous; return ``(selected, W, b, gradient, n_iter)``.

    Stability selection fits each half-sample this way (standardised once). The solution at
    each ``C`` is :func:`penalized_logistic`'s; only the cost depends on the path.

    Parameters
    ----------
    X, y
        As in :func:`penalized_logistic`.
    Cs : sequence of float > 0
        Inverse penalty strengths, in any order.
    l1_ratio, sample_weight, tol, max_iter, standardize, working_set, init, weight_total
        As in :func:`penalized_logistic`.
    rows : array of int, optional
        Fit on these rows of ``X`` (``y`` and ``sample_weight`` are theirs), read in place:
        stability selection's half-samples, without a copy of them.

    Returns
    -------
    selected : ndarray of bool (len(Cs), n_features)
        ``selected[i]``: the features with a nonzero coefficient at ``Cs[i]``.
    W, b, gradient
        :func:`penalized_logistic`'s at the largest ``C``.
    n_iter : int
        Newton steps of the whole path.

    Examples
    --------
    More features enter as the penalty falls:

    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.selectors.penalized_logistic import penalized_logistic_path
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> selected, *_ = penalized_logistic_path(data.X, data.y, [0.05, 0.1, 0.5])
    >>> print(*selected.sum(axis=1))
    0 3 6
    """
    from stablefs.selectors._logistic_kernels import path  # Numba, on first use

    Cs = np.asarray(Cs, dtype=float).ravel()
    order = np.argsort(Cs, kind="stable")  # penalties from the largest down
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0] if rows is None else len(rows)
    p = X.shape[1]
    s, Y, binary, b = _targets(y, sample_weight, n)
    lam = 1.0 / (Cs[order] * (n if weight_total is None else float(weight_total)))
    K = Y.shape[1]
    W = np.zeros((p, K))
    if init is not None:
        W, b = np.array(init[0], dtype=float).reshape(p, K), np.array(init[1], dtype=float)
    with limit_threads(1, user_api="blas"):  # small products; the same numbers everywhere
        if standardize:
            Zt = _standardize(X, s, rows)
        else:
            Zt = np.ascontiguousarray((X if rows is None else X[rows]).T)
        chosen, W, b, G, n_iter = path(Zt, Y, s, binary, lam * l1_ratio,
                                       lam * (1.0 - l1_ratio), tol * lam, W, b,
                                       int(max_iter), int(working_set or 10))
    selected = np.empty_like(chosen)
    selected[order] = chosen
    return selected, W, b, np.abs(G).sum(axis=1), int(n_iter)


def coefficient_order(scores: np.ndarray, gradient: np.ndarray) -> np.ndarray:
    """The features by decreasing ``scores``, then decreasing ``gradient``, then index (the
    module docstring): ``np.lexsort((index, -gradient, -scores))``, with the zero scores
    (most of them) ordered by one stable sort."""
    nonzero = np.flatnonzero(scores)
    zero = np.flatnonzero(scores == 0)
    head = nonzero[np.lexsort((nonzero, -gradient[nonzero], -scores[nonzero]))]
    return np.concatenate([head, zero[np.argsort(-gradient[zero], kind="stable")]])


class _PenalizedLogistic(BaseSelector):
    """Common fit of :class:`L1Logistic` and :class:`ElasticNetLogistic`."""

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "C": [number(0, None, closed="neither")],
        "tol": [number(0, None, closed="neither")],
        "max_iter": [whole(1, None)],
    }

    def _l1_ratio(self) -> float:
        raise NotImplementedError

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit on ``X, y``; instance weights act as repeated rows (``C sum_i w_i l_i``)."""
        self._weight_total = None if sample_weight is None else \
            float(np.sum(np.asarray(sample_weight, dtype=float)))
        return super().fit(X, y, sample_weight=sample_weight)

    def _rank(self, X, y, sample_weight):
        with limit_threads(1):
            W, b, grad, n_iter = penalized_logistic(
                X, y, C=self.C, l1_ratio=self._l1_ratio(), sample_weight=sample_weight,
                tol=self.tol, max_iter=self.max_iter,
                weight_total=getattr(self, "_weight_total", None))
        scores = np.abs(W).sum(axis=1)
        self.coef_ = W.T.copy()
        self.intercept_ = np.asarray(b, dtype=float)
        self.gradient_ = grad
        self.n_nonzero_ = int(np.count_nonzero(scores))
        self.n_iter_ = n_iter
        return scores, ranking_from_order(coefficient_order(scores, grad))


class L1Logistic(_PenalizedLogistic):
    """L1-penalised (lasso) logistic regression selector (Tibshirani 1996).

    Method string ``l1-logistic``. The features are standardised inside (each training
    part's own weighted mean and SD); the objective, solver, scores and the ordering of zero
    coefficients are in the module docstring (:mod:`stablefs.selectors.penalized_logistic`).

    Parameters
    ----------
    C : float > 0, default=1.0
        Inverse penalty strength, scikit-learn's ``C``: larger keeps more features.
    tol : float, default=1e-3
        Stop when the largest violation of the optimality conditions is below ``tol * lam``.
    max_iter : int, default=5000
        Newton steps per working set at most.
    n_features_to_select : int, float or None
        Size of ``support_`` (``None``: half of the features; a float: a fraction).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) for two classes, (n_classes, n_features) otherwise
        On the standardised scale.
    intercept_ : ndarray
        The intercepts (not penalised).
    gradient_ : ndarray of shape (n_features,)
        ``||d loss / d w_j||_1`` at the solution (orders the zero coefficients).
    n_nonzero_ : int
        Number of features with a nonzero coefficient.
    n_iter_ : int
        Newton steps run.
    scores_, ranking_, support_
        ``scores_ = |coef|`` summed over classes; ``ranking_`` breaks ties by
        ``gradient_``, then the feature index (the module docstring says why).
    n_features_to_select_, classes_, n_features_in_
        As in :class:`stablefs.selectors.ReliefF`.

    See Also
    --------
    ElasticNetLogistic : The elastic net, which keeps correlated genes together.

    References
    ----------
    .. [1] R. Tibshirani, "Regression shrinkage and selection via the lasso", Journal of the
       Royal Statistical Society B 58(1), 267–288, 1996.
    .. [2] R. Tibshirani, J. Bien, J. Friedman, T. Hastie, N. Simon, J. Taylor and
       R. J. Tibshirani, "Strong rules for discarding predictors in lasso-type problems",
       Journal of the Royal Statistical Society B 74(2), 245–266, 2012 (the working set).
    .. [3] J. D. Lee, Y. Sun and M. A. Saunders, "Proximal Newton-type methods for
       minimizing composite functions", SIAM Journal on Optimization 24(3), 1420–1443, 2014
       (the solver).
    .. [4] J. Friedman, T. Hastie and R. Tibshirani, "Regularization paths for generalized
       linear models via coordinate descent", Journal of Statistical Software 33(1), 1–22,
       2010, sec. 2.1 (the order of the zero coefficients).

    Examples
    --------
    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.selectors import L1Logistic
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> selector = L1Logistic(C=0.1, n_features_to_select=5).fit(data.X, data.y)
    >>> selector.n_nonzero_
    3
    >>> print(*selector.get_support(indices=True))
    1 4 7 8 9
    """

    def __init__(self, C: float = 1.0, *, tol: float = 1e-3, max_iter: int = 5000,
                 n_features_to_select: int | float | None = None) -> None:
        self.C = C
        self.tol = tol
        self.max_iter = max_iter
        self.n_features_to_select = n_features_to_select

    def _l1_ratio(self) -> float:
        return 1.0


class ElasticNetLogistic(_PenalizedLogistic):
    """Elastic-net penalised logistic regression selector (Zou and Hastie 2005).

    Method string ``enet-logistic``: penalty ``lam (alpha ||w||_1 + (1 - alpha)/2
    ||w||^2)`` with ``alpha = l1_ratio``; correlated genes enter together rather than one of
    them alone (the grouping effect of Zou and Hastie 2005, sec. 2.3). Standardised inside;
    see :mod:`stablefs.selectors.penalized_logistic`.

    Parameters
    ----------
    C : float > 0, default=1.0
        Inverse penalty strength, scikit-learn's ``C``: larger keeps more features.
    l1_ratio : float in (0, 1], default=0.5
        ``alpha``: 1 is the lasso, smaller values mix in more of the ridge penalty.
    tol : float, default=1e-3
        Stop when the largest violation of the optimality conditions is below ``tol * lam``.
    max_iter : int, default=5000
        Newton steps per working set at most.
    n_features_to_select : int, float or None
        Size of ``support_`` (``None``: half of the features; a float: a fraction).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) for two classes, (n_classes, n_features) otherwise
        On the standardised scale.
    intercept_ : ndarray
        The intercepts (not penalised).
    gradient_ : ndarray of shape (n_features,)
        ``||d loss / d w_j||_1`` at the solution (orders the zero coefficients).
    n_nonzero_ : int
        Number of features with a nonzero coefficient.
    n_iter_ : int
        Newton steps run.
    scores_, ranking_, support_
        ``scores_ = |coef|`` summed over classes; ``ranking_`` breaks ties by
        ``gradient_``, then the feature index (the module docstring says why).
    n_features_to_select_, classes_, n_features_in_
        As in :class:`stablefs.selectors.ReliefF`.

    See Also
    --------
    L1Logistic : The lasso (``l1_ratio=1``).

    References
    ----------
    .. [1] H. Zou and T. Hastie, "Regularization and variable selection via the elastic
       net", Journal of the Royal Statistical Society B 67(2), 301–320, 2005.
    .. [2] R. Tibshirani, "Regression shrinkage and selection via the lasso", Journal of the
       Royal Statistical Society B 58(1), 267–288, 1996.
    .. [3] J. D. Lee, Y. Sun and M. A. Saunders, "Proximal Newton-type methods for
       minimizing composite functions", SIAM Journal on Optimization 24(3), 1420–1443, 2014
       (the solver).
    .. [4] J. Friedman, T. Hastie and R. Tibshirani, "Regularization paths for generalized
       linear models via coordinate descent", Journal of Statistical Software 33(1), 1–22,
       2010, sec. 2.1 (the order of the zero coefficients).

    Examples
    --------
    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.selectors import ElasticNetLogistic
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> selector = ElasticNetLogistic(C=0.1, l1_ratio=0.5, n_features_to_select=5)
    >>> selector.fit(data.X, data.y).n_nonzero_
    10
    >>> print(*selector.get_support(indices=True))
    1 4 7 8 9
    """

    _parameter_constraints: dict = {
        **_PenalizedLogistic._parameter_constraints,
        "l1_ratio": [number(0, 1, closed="right")],
    }

    def __init__(self, C: float = 1.0, *, l1_ratio: float = 0.5, tol: float = 1e-3,
                 max_iter: int = 5000, n_features_to_select: int | float | None = None) -> None:
        self.C = C
        self.l1_ratio = l1_ratio
        self.tol = tol
        self.max_iter = max_iter
        self.n_features_to_select = n_features_to_select

    def _l1_ratio(self) -> float:
        return float(self.l1_ratio)
