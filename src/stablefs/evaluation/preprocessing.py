"""Preprocessing fitted on the training part of a resample only.

Inside :func:`~stablefs.evaluation.run_experiment` every resample is preprocessed with
statistics of its *training* rows alone, then the same transformation is applied to its test
rows, so no test sample can influence a selector or a classifier:

1. **median imputation** (``impute="median"``): missing values filled with the per-feature
   medians of the training part (0 for a feature missing on every training sample);
2. **standardisation** (``standardize=True``): every feature centred on its training mean and
   divided by its training standard deviation (ddof = 0; a constant feature keeps scale 1);
3. **t-test pre-filter** (``prefilter=N``): only the N features with the largest statistic on
   the training part reach the selector. Two classes: the absolute Welch t-statistic
   (:func:`~stablefs.selectors.welch_t`), the filter Han (2012, sec. 7.1) applied to Lung,
   keeping 5000 genes (there computed on all samples; here on each training part). More
   classes: the one-way ANOVA F-statistic (:func:`~stablefs.selectors.anova_f`). Ties go to
   the lower feature index.

The selector's ranking of the N kept features is mapped back to the original feature indices
(:func:`expand_ranking`), so rankings, frequencies and stability always refer to the p original
features.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from stablefs._errors import StablefsError

if TYPE_CHECKING:
    from collections.abc import Iterable


@dataclass(frozen=True)
class Preprocessing:
    """Preprocessing fitted on each training part before selection (see the module docstring).

    Parameters
    ----------
    impute : {None, "median"}
        Fill missing values with the training part's per-feature medians.
    standardize : bool
        Centre and scale every feature with the training part's mean and standard deviation.
    prefilter : int or None
        Number of features kept by the t-test pre-filter (None = all).

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 7.1 (the t-test
       pre-filter of Lung, 5000 genes).

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.evaluation import Preprocessing
    >>> prep = Preprocessing(impute="median", standardize=True)
    >>> X_train = np.array([[1.0, 10.0], [np.nan, 12.0], [3.0, 14.0]])
    >>> X_test = np.array([[np.nan, 12.0]])
    >>> X_train_out, X_test_out, kept = prep.apply(X_train, np.array([0, 1, 1]), X_test)
    >>> X_train_out.round(3).tolist(), X_test_out.round(3).tolist(), kept
    ([[-1.225, -1.225], [0.0, 0.0], [1.225, 1.225]], [[0.0, 0.0]], None)
    """

    impute: str | None = None
    standardize: bool = False
    prefilter: int | None = None

    def check(self, n_features: int, sizes: Iterable[int] = ()) -> None:
        """Refuse impossible settings with one line."""
        if self.impute not in (None, "median"):
            raise StablefsError(f"impute = {self.impute!r}: choose None or 'median'.")
        if self.prefilter is None:
            return
        n = self.prefilter
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise StablefsError(f"prefilter = {n!r}: give a positive whole number of features.")
        if n > n_features:
            raise StablefsError(f"prefilter = {n} keeps more features than the data has "
                                f"({n_features}).")
        if sizes and n < max(sizes):
            raise StablefsError(f"prefilter = {n} keeps fewer features than the largest subset "
                                f"size k = {max(sizes)}.")

    @property
    def active(self) -> bool:
        return bool(self.impute or self.standardize or self.prefilter)

    def apply(self, X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Fit on ``(X_train, y_train)`` and transform both parts.

        Returns
        -------
        (X_train, X_test, keep)
            The transformed parts with all p columns, and the sorted column indices kept by
            the pre-filter (None without one).
        """
        if self.impute == "median":
            X_train, X_test = median_impute(X_train, X_test)
        if self.standardize:
            X_train, X_test = standardize(X_train, X_test)
        keep = None
        if self.prefilter is not None and self.prefilter < X_train.shape[1]:
            keep = ttest_filter(X_train, y_train, self.prefilter)
        return X_train, X_test, keep


def median_impute(X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fill NaN in both parts with the per-feature medians of ``X_train`` (0 for a feature
    missing on every training sample)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns, handled below
        med = np.nanmedian(X_train, axis=0)
    med = np.where(np.isnan(med), 0.0, med)
    return np.where(np.isnan(X_train), med, X_train), np.where(np.isnan(X_test), med, X_test)


def standardize(X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """z-scores with the training mean and standard deviation (ddof = 0), as scikit-learn's
    ``StandardScaler`` fitted on ``X_train``; a constant training feature keeps scale 1."""
    mean = X_train.mean(axis=0)
    sd = X_train.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    return (X_train - mean) / sd, (X_test - mean) / sd


def ttest_filter(X: np.ndarray, y: np.ndarray, n_keep: int) -> np.ndarray:
    """Sorted indices of the ``n_keep`` features with the largest |Welch t| (two classes) or
    ANOVA F (more classes) on ``(X, y)``; ties to the lower index."""
    from stablefs.selectors import anova_f, welch_t

    stat = welch_t(X, y) if np.unique(y).size == 2 else anova_f(X, y)
    order = np.argsort(-stat, kind="stable")
    return np.sort(order[:n_keep])


def expand_ranking(ranking: np.ndarray, scores: np.ndarray, keep: np.ndarray | None,
                   n_features: int, X_train: np.ndarray, y_train: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Ranking and scores over the p original features from those over the kept columns.

    The kept features take ranks 1..N in the selector's order; the filtered-out features follow
    (ranks N+1..p) in the order of the pre-filter statistic, ties to the lower index. Scores of
    filtered-out features are NaN (the selector never saw them).
    """
    if keep is None:
        return ranking, scores
    from stablefs.selectors import anova_f, welch_t

    full_rank = np.empty(n_features, dtype=np.int32)
    full_rank[keep] = ranking
    dropped = np.setdiff1d(np.arange(n_features), keep)
    Xd = X_train[:, dropped]
    stat = welch_t(Xd, y_train) if np.unique(y_train).size == 2 else anova_f(Xd, y_train)
    full_rank[dropped[np.argsort(-stat, kind="stable")]] = np.arange(
        keep.size + 1, n_features + 1, dtype=np.int32)
    full_scores = np.full(n_features, np.nan)
    full_scores[keep] = scores
    return full_rank, full_scores
