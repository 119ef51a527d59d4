"""Univariate filters: Welch's t-statistic and the one-way ANOVA F-statistic, instance-weighted.

Both are classical baselines of the papers stablefs reproduces (Xiao, Hua and Dougherty 2007
use the t-test as their filter; Yu, Ding and Loscalzo 2008 rank DRAGS groups by the
F-statistic) and both honour instance weights, so that they can sit inside
:class:`stablefs.stabilizers.MarginInstanceWeighting` (Han 2012, ch. 4).

Weighted moments
----------------
With the weights ``w`` of the samples of class ``c`` (normalised to sum 1 over all samples by
:meth:`BaseSelector.fit`), ``V1 = sum w``, ``V2 = sum w^2``:

- weighted mean ``m_c = sum w x / V1``;
- weighted variance with the "reliability weights" correction
  ``s_c^2 = sum w (x - m_c)^2 / (V1 - V2 / V1)``, which is the unbiased ``ddof=1`` variance
  when the weights are equal;
- the variance of the weighted mean ``s_c^2 V2 / V1^2``, i.e. ``s_c^2 / n_eff`` with Kish's
  effective sample size ``n_eff = V1^2 / V2`` (``n_c`` for equal weights).

These statistics do not depend on the scale of the weights, a sample of weight 0 is exactly the
same as a removed sample, and equal weights give the textbook statistics
(:func:`scipy.stats.ttest_ind` with ``equal_var=False``,
:func:`sklearn.feature_selection.f_classif`).
Integer weights are *not* read as repetition counts (the weights are normalised before scoring;
see ``docs/DESIGN.md``).
"""

from __future__ import annotations

import numpy as np

from stablefs.selectors._base import BaseSelector
from stablefs.selectors._neighbors import positive_weight_subset


def _class_moments(X: np.ndarray, codes: np.ndarray, w: np.ndarray, n_classes: int):
    """Per class: total weight, weighted mean, weighted sum of squares, variance of the mean.

    Each class is shifted by its first row before the sums, so that a feature that is constant
    within a class has a mean exactly equal to that constant and a sum of squares of exactly 0
    (a constant feature then scores exactly 0, and constant but different classes ``inf``).
    """
    p = X.shape[1]
    W = np.empty(n_classes)
    means = np.empty((n_classes, p))
    ss = np.empty((n_classes, p))
    var_mean = np.empty((n_classes, p))
    for c in range(n_classes):
        in_c = codes == c
        wc = w[in_c]
        shift = X[in_c][0]
        Xc = X[in_c] - shift
        v1 = wc.sum()
        v2 = wc @ wc
        mean = (wc @ Xc) / v1
        sq = wc @ np.square(Xc - mean)
        W[c] = v1
        means[c] = mean + shift
        ss[c] = sq
        if wc.size > 1:
            denom = v1 - v2 / v1
            var_mean[c] = (sq / denom) * (v2 / v1**2)
        else:  # a single sample: no variance estimate, it adds no uncertainty
            var_mean[c] = 0.0
    return W, means, ss, var_mean


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` with ``0 / 0 = 0`` (no evidence) and ``x / 0 = inf`` for ``x > 0``."""
    out = np.zeros_like(num)
    pos_den = den > 0
    np.divide(num, den, out=out, where=pos_den)
    out[~pos_den & (num > 0)] = np.inf
    return out


def _prepare(X, y, sample_weight):
    """Float data, weights (equal when None) and class codes of the positive-weight samples."""
    X = np.asarray(X, dtype=np.float64)
    w = np.full(X.shape[0], 1.0 / X.shape[0]) if sample_weight is None else sample_weight
    X, y, w, _ = positive_weight_subset(X, np.asarray(y), np.asarray(w, dtype=np.float64))
    classes, codes = np.unique(y, return_inverse=True)
    return X, w, classes, codes


def welch_t(X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None) -> np.ndarray:
    """Absolute instance-weighted Welch t-statistic of every feature (two classes).

    ``|t_j| = |m_1j - m_2j| / sqrt(s_1j^2 V2_1 / V1_1^2 + s_2j^2 V2_2 / V1_2^2)`` with the weighted
    moments of the module docstring; equal weights give ``|scipy.stats.ttest_ind(...,
    equal_var=False).statistic|``. A feature with equal class means (e.g. a constant feature)
    scores 0; a feature whose classes are each constant but different scores ``inf``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data.
    y : ndarray of shape (n_samples,)
        Class labels: exactly two classes with positive weight.
    sample_weight : ndarray of shape (n_samples,), optional
        Non-negative instance weights (any scale); ``None`` weighs every sample equally.

    Returns
    -------
    ndarray of shape (n_features,)
        ``|t|`` of every feature.

    See Also
    --------
    TTest : The selector built on this score.
    anova_f : The F-statistic, for any number of classes.

    References
    ----------
    .. [1] B. L. Welch, "The generalization of 'Student's' problem when several different
       population variances are involved", Biometrika 34(1–2), 28–35, 1947.
    .. [2] L. Kish, "Survey Sampling", Wiley, 1965 (the effective sample size
       ``V1^2 / V2``).
    .. [3] Y. Xiao, J. Hua and E. R. Dougherty, "Quantification of the impact of feature
       selection on the variance of cross-validation error estimation", EURASIP Journal on
       Bioinformatics and Systems Biology, 2007, Article ID 16354, sec. 3 (the t-test filter).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import ttest_ind
    >>> from stablefs.selectors import welch_t
    >>> X = np.array([[1.0, 5.0], [2.0, 5.5], [3.0, 4.0], [6.0, 4.5], [7.0, 6.0], [9.0, 5.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> welch_t(X, y).round(3).tolist()
    [5.06, 0.535]
    >>> bool(np.allclose(welch_t(X, y), abs(ttest_ind(X[:3], X[3:], equal_var=False).statistic)))
    True

    A sample of weight 0 is the same as a removed sample:

    >>> w = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.0])
    >>> bool(np.allclose(welch_t(X, y, w), welch_t(X[:5], y[:5])))
    True
    """
    X, w, classes, codes = _prepare(X, y, sample_weight)
    if classes.size != 2:
        raise ValueError("welch_t needs exactly two classes; use anova_f for more.")
    _, means, _, var_mean = _class_moments(X, codes, w, 2)
    return _ratio(np.abs(means[0] - means[1]), np.sqrt(var_mean[0] + var_mean[1]))


def anova_f(X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None) -> np.ndarray:
    """Instance-weighted one-way ANOVA F-statistic of every feature.

    With weights normalised to sum 1, class weights ``W_c``, class means ``m_c`` and overall
    mean ``m = sum_c W_c m_c``:
    ``F = [sum_c W_c (m_c - m)^2 / (C - 1)] / [sum_i w_i (x_i - m_{c(i)})^2 / (n_eff - C)]``
    with Kish's effective sample size ``n_eff = 1 / sum_i w_i^2``. Equal weights give
    :func:`sklearn.feature_selection.f_classif` (``n_eff = n``). The degrees of freedom are a
    common factor of all features, so they never change the ranking; ``n_eff - C`` is clipped
    at 1 when there are fewer effective samples than ``C + 1``. Equal class means give 0
    (also for constant features), zero within-class spread with different means gives ``inf``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data.
    y : ndarray of shape (n_samples,)
        Class labels: at least two classes with positive weight.
    sample_weight : ndarray of shape (n_samples,), optional
        Non-negative instance weights (any scale); ``None`` weighs every sample equally.

    Returns
    -------
    ndarray of shape (n_features,)
        ``F`` of every feature.

    See Also
    --------
    FStatistic : The selector built on this score.

    References
    ----------
    .. [1] L. Yu, C. Ding and S. Loscalzo, "Stable feature selection via dense feature
       groups", Proc. 14th ACM SIGKDD Int. Conf. on Knowledge Discovery and Data Mining,
       803–811, 2008, sec. 4.2 (the F-statistic as the relevance of DRAGS).
    .. [2] L. Kish, "Survey Sampling", Wiley, 1965 (the effective sample size
       ``1 / sum w_i^2``).

    Examples
    --------
    Equal weights give scikit-learn's ``f_classif``:

    >>> import numpy as np
    >>> from sklearn.feature_selection import f_classif
    >>> from stablefs.selectors import anova_f
    >>> X = np.array([[1.0, 5.0], [2.0, 5.5], [3.0, 4.0], [6.0, 4.5], [7.0, 6.0], [9.0, 5.0],
    ...               [4.0, 5.0], [5.0, 4.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1, 2, 2])
    >>> anova_f(X, y).round(3).tolist()
    [14.898, 0.478]
    >>> bool(np.allclose(anova_f(X, y), f_classif(X, y)[0]))
    True
    """
    X, w, classes, codes = _prepare(X, y, sample_weight)
    n_classes = classes.size
    W, means, ss, _ = _class_moments(X, codes, w, n_classes)
    dev = means - means[0]  # exactly 0 where all class means are equal (constant features)
    ssb = W @ np.square(dev - (W @ dev) / W.sum())
    ssw = ss.sum(axis=0)
    n_eff = 1.0 / (w @ w)
    df_within = max(n_eff - n_classes, 1.0)
    return _ratio(ssb * df_within, ssw * (n_classes - 1))


class TTest(BaseSelector):
    """Absolute Welch t-statistic per feature, instance-weighted.

    Two classes: ``|t|`` of Welch's unequal-variance t-test with weighted means and variances
    (:func:`welch_t`; equal weights reproduce ``scipy.stats.ttest_ind(equal_var=False)``). The
    t-test is the filter of Xiao, Hua and Dougherty (2007). More than two classes: the
    t-test is undefined, and the score is the one-way ANOVA F-statistic (:func:`anova_f`), its
    multi-class generalisation (for two classes with pooled variance, ``F = t^2``).

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Size of ``support_`` (``None``: half of the features; a float: a fraction).

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``|t|`` (or ``F``); 0 for constant features, ``inf`` for perfectly separated constant
        classes.
    ranking_ : ndarray of shape (n_features,)
        1 = best; ties by lower feature index.
    support_ : ndarray of bool of shape (n_features,)
        The top ``n_features_to_select_`` features.
    n_features_to_select_ : int
        The size of ``support_``.
    classes_ : ndarray
        The class labels seen by ``fit``.
    n_features_in_ : int
        Number of features seen by ``fit``.

    See Also
    --------
    welch_t : The score.
    FStatistic : The F-statistic for any number of classes.

    References
    ----------
    .. [1] B. L. Welch, "The generalization of 'Student's' problem when several different
       population variances are involved", Biometrika 34(1–2), 28–35, 1947.
    .. [2] Y. Xiao, J. Hua and E. R. Dougherty, "Quantification of the impact of feature
       selection on the variance of cross-validation error estimation", EURASIP Journal on
       Bioinformatics and Systems Biology, 2007, Article ID 16354, sec. 3 (the t-test filter).

    Examples
    --------
    On Han's synthetic data, whose first 10 features are the relevant ones:

    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.selectors import TTest
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> selector = TTest(n_features_to_select=5).fit(data.X, data.y)
    >>> print(*selector.get_support(indices=True))
    1 4 7 8 9
    >>> selector.transform(data.X).shape
    (40, 5)
    """

    def __init__(self, n_features_to_select: int | float | None = None) -> None:
        self.n_features_to_select = n_features_to_select

    def _score(self, X, y, sample_weight):
        if np.unique(y[sample_weight > 0]).size == 2:
            return welch_t(X, y, sample_weight)
        return anova_f(X, y, sample_weight)


class FStatistic(BaseSelector):
    """One-way ANOVA F-statistic per feature, instance-weighted (:func:`anova_f`).

    Equal weights reproduce :func:`sklearn.feature_selection.f_classif`; any number of classes.
    The F-statistic ranks the feature groups of DRAGS (Yu, Ding and Loscalzo 2008).

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Size of ``support_`` (``None``: half of the features; a float: a fraction).

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``F`` of every feature.
    ranking_, support_, n_features_to_select_, classes_, n_features_in_
        As in :class:`TTest`.

    See Also
    --------
    anova_f : The score.

    References
    ----------
    .. [1] L. Yu, C. Ding and S. Loscalzo, "Stable feature selection via dense feature
       groups", Proc. 14th ACM SIGKDD Int. Conf. on Knowledge Discovery and Data Mining,
       803–811, 2008, sec. 4.2.

    Examples
    --------
    >>> from stablefs.datasets import make_xiao2007
    >>> from stablefs.selectors import FStatistic
    >>> data = make_xiao2007(n_samples=60, random_state=0)
    >>> selector = FStatistic(n_features_to_select=5).fit(data.X, data.y)
    >>> print(*selector.get_support(indices=True))
    0 20 40 60 120
    """

    def __init__(self, n_features_to_select: int | float | None = None) -> None:
        self.n_features_to_select = n_features_to_select

    def _score(self, X, y, sample_weight):
        return anova_f(X, y, sample_weight)
