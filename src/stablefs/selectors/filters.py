"""Filters Prat Masramon (2016) compares against in ch. 8: information gain, 1R and
random-forest importance.

The thesis uses them as feature weightings without defining them (its sec. 2.2 gives
information gain, eq. 2.11; 1R is Holte 1993; RandomForests is Breiman 2001) and without
naming the discretisation. Here:

- :class:`InfoGain`: ``IG(C | X) = H(C) - H(C | X)`` (Prat Masramon 2016, eqs. 2.9-2.11) on the
  feature
  discretised by Fayyad and Irani's MDL rule (Weka's supervised discretisation, which the
  Weka and R FSelector information-gain evaluators use), or into equal-frequency bins;
- :class:`OneR`: the training accuracy of Holte's one-rule on the same discretisation (each
  interval predicts its majority class);
- :class:`RandomForestImportance`: scikit-learn's seeded random forest, mean decrease in Gini
  impurity.

Instance weights enter as weighted frequencies (IG, 1R) or the forest's ``sample_weight``; the
discretisation uses the samples of positive weight, unweighted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from sklearn.ensemble import RandomForestClassifier

from stablefs.selectors._base import BaseSelector
from stablefs.selectors._constraints import StrOptions, fraction, n_jobs_constraint, whole
from stablefs.selectors._discretize import _entropy, mdl_bins, quantile_bins
from stablefs.selectors._neighbors import positive_weight_subset

if TYPE_CHECKING:
    from typing import Literal

    from stablefs._validation import RandomStateLike

DISCRETIZATIONS = ("mdl", "quantile")


def _joint_counts(bins: np.ndarray, codes: np.ndarray, w: np.ndarray, n_classes: int):
    """Weighted counts ``N[j, b, c]`` of interval ``b`` of feature ``j`` and class ``c``."""
    n, p = bins.shape
    n_bins = int(bins.max()) + 1 if bins.size else 1
    index = (np.arange(p) * n_bins)[None, :] + bins  # feature-major interval index
    index *= n_classes
    index += codes[:, None]
    weights = np.broadcast_to(w[:, None], (n, p))
    counts = np.bincount(index.ravel(), weights=weights.ravel(),
                         minlength=p * n_bins * n_classes)
    return counts.reshape(p, n_bins, n_classes)


def _discretize(X, codes, discretization, n_bins):
    if discretization == "mdl":
        return mdl_bins(X, codes)
    return quantile_bins(X, n_bins)


def information_gain(X, y, *, discretization: str = "mdl", n_bins: int = 10,
                     sample_weight=None) -> np.ndarray:
    """Compute the information gain of every feature, discretised, in bits.

    ``IG(C | X) = H(C) - H(C | X)`` (Prat Masramon 2016, eqs. 2.9-2.11) on the discretised
    feature.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data.
    y : array-like of shape (n_samples,)
        The class labels.
    discretization : {"mdl", "quantile"}, default="mdl"
        Fayyad and Irani's MDL cut points (Weka's default for information gain; a feature
        without an accepted cut is one interval and gains 0) or ``n_bins`` equal-frequency
        intervals.
    n_bins : int, default=10
        Intervals of the ``"quantile"`` discretisation.
    sample_weight : array-like, optional
        Probabilities are weighted frequencies.

    Returns
    -------
    ndarray of shape (n_features,)
        Information gain in bits, non-negative.

    See Also
    --------
    InfoGain : The selector built on this score.

    References
    ----------
    .. [1] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.2, eqs. 2.9–2.11.
    .. [2] U. M. Fayyad and K. B. Irani, "Multi-interval discretization of continuous-valued
       attributes for classification learning", Proc. 13th Int. Joint Conf. on Artificial
       Intelligence (IJCAI), 1022–1027, 1993 (the MDL discretisation).

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.selectors.filters import information_gain
    >>> X = np.array([[0.1, 5.0], [0.2, 3.0], [0.3, 4.0], [0.8, 3.5], [0.9, 5.5], [1.0, 4.5]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> information_gain(X, y, discretization="quantile", n_bins=2).round(3).tolist()
    [1.0, 0.082]
    """
    counts = _filter_counts(X, y, discretization, n_bins, sample_weight)
    class_totals = counts.sum(axis=1)  # p x C (the same for every feature)
    interval_totals = counts.sum(axis=2)  # p x bins
    h_c = _entropy(class_totals)
    h_c_given_x = (interval_totals * _entropy(counts)).sum(axis=1) / interval_totals.sum(axis=1)
    return np.maximum(h_c - h_c_given_x, 0.0)


def one_rule_accuracy(X, y, *, discretization: str = "mdl", n_bins: int = 10,
                      sample_weight=None) -> np.ndarray:
    """Compute the training accuracy of Holte's 1R rule on every discretised feature.

    Each interval predicts its (weighted) majority class; the score is the weighted fraction
    of samples the rule classifies correctly, ``sum_b max_c N[b, c] / N``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data.
    y : array-like of shape (n_samples,)
        The class labels.
    discretization : {"mdl", "quantile"}, default="mdl"
        As in :func:`information_gain`.
    n_bins : int, default=10
        Intervals of the ``"quantile"`` discretisation.
    sample_weight : array-like, optional
        Frequencies are weighted.

    Returns
    -------
    ndarray of shape (n_features,)
        The accuracies, in ``[1 / n_classes, 1]``.

    References
    ----------
    .. [1] R. C. Holte, "Very simple classification rules perform well on most commonly used
       datasets", Machine Learning 11(1), 63–90, 1993.

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.selectors.filters import one_rule_accuracy
    >>> X = np.array([[0.1, 5.0], [0.2, 3.0], [0.3, 4.0], [0.8, 3.5], [0.9, 5.5], [1.0, 4.5]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> one_rule_accuracy(X, y, discretization="quantile", n_bins=2).round(3).tolist()
    [1.0, 0.667]
    """
    counts = _filter_counts(X, y, discretization, n_bins, sample_weight)
    return counts.max(axis=2).sum(axis=1) / counts.sum(axis=(1, 2))


def _filter_counts(X, y, discretization, n_bins, sample_weight):
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    w = (np.full(X.shape[0], 1.0 / X.shape[0]) if sample_weight is None
         else np.asarray(sample_weight, dtype=np.float64))
    X, y, w, _ = positive_weight_subset(X, y, w)
    _, codes = np.unique(y, return_inverse=True)
    n_classes = int(codes.max()) + 1
    bins = _discretize(X, codes, discretization, n_bins)
    return _joint_counts(bins, codes, w, n_classes)


class _DiscreteFilter(BaseSelector):
    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "discretization": [StrOptions(set(DISCRETIZATIONS))],
        "n_bins": [whole(2, None)],
    }

    def __init__(self, discretization: Literal["mdl", "quantile"] = "mdl", n_bins: int = 10,
                 n_features_to_select: int | float | None = None) -> None:
        self.discretization = discretization
        self.n_bins = n_bins
        self.n_features_to_select = n_features_to_select


class InfoGain(_DiscreteFilter):
    """Information gain filter, on Fayyad and Irani's MDL discretisation by default.

    Prat Masramon (2016), eq. 2.11; Fayyad and Irani (1993).

    Parameters
    ----------
    discretization : {"mdl", "quantile"}, default="mdl"
        See :func:`information_gain`. MDL is what Weka and R FSelector apply, so it is the
        most likely reading of the thesis; on microarrays it leaves many features as one
        interval (score 0, ranked by index), which is one cause of the thesis' near-perfect
        IG stability. ``"quantile"`` gives every feature a graded score.
    n_bins : int, default=10
        Intervals of the equal-frequency discretisation.
    n_features_to_select : int, float or None, default=None
        Size of ``support_`` (``None``: half of the features; a float: a fraction).

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Information gain in bits.
    ranking_, support_, n_features_to_select_, classes_, n_features_in_
        As in :class:`stablefs.selectors.ReliefF`.

    References
    ----------
    .. [1] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.2, eqs. 2.9–2.11 and ch. 8.
    .. [2] U. M. Fayyad and K. B. Irani, "Multi-interval discretization of continuous-valued
       attributes for classification learning", Proc. 13th Int. Joint Conf. on Artificial
       Intelligence (IJCAI), 1022–1027, 1993.

    Examples
    --------
    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.selectors import InfoGain
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> selector = InfoGain(discretization="quantile", n_features_to_select=5).fit(data.X, data.y)
    >>> print(*selector.get_support(indices=True))
    1 2 4 5 7
    """

    def _score(self, X, y, sample_weight):
        return information_gain(X, y, discretization=self.discretization, n_bins=self.n_bins,
                                sample_weight=sample_weight)


class OneR(_DiscreteFilter):
    """1R filter: the training accuracy of each feature's one-rule (Holte 1993).

    On the MDL discretisation (Fayyad and Irani 1993) by default.

    Holte's own bucketing (intervals with at least 6 samples of their majority class) is not
    used: both discrete filters share one discretisation, so they differ only in the criterion.

    Parameters
    ----------
    discretization : {"mdl", "quantile"}, default="mdl"
        As in :class:`InfoGain`.
    n_bins : int, default=10
        Intervals of the equal-frequency discretisation.
    n_features_to_select : int, float or None, default=None
        Size of ``support_`` (``None``: half of the features; a float: a fraction).

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Accuracy of the feature's rule on the training data.
    ranking_, support_, n_features_to_select_, classes_, n_features_in_
        As in :class:`stablefs.selectors.ReliefF`.

    References
    ----------
    .. [1] R. C. Holte, "Very simple classification rules perform well on most commonly used
       datasets", Machine Learning 11(1), 63–90, 1993.
    .. [2] U. M. Fayyad and K. B. Irani, "Multi-interval discretization of continuous-valued
       attributes for classification learning", Proc. 13th Int. Joint Conf. on Artificial
       Intelligence (IJCAI), 1022–1027, 1993.
    .. [3] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, ch. 8.

    Examples
    --------
    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.selectors import OneR
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> selector = OneR(discretization="quantile", n_features_to_select=5).fit(data.X, data.y)
    >>> print(*selector.get_support(indices=True))
    0 1 2 4 7
    """

    def _score(self, X, y, sample_weight):
        return one_rule_accuracy(X, y, discretization=self.discretization, n_bins=self.n_bins,
                                 sample_weight=sample_weight)


class RandomForestImportance(BaseSelector):
    """Random-forest importance (Breiman 2001): the mean decrease in Gini impurity.

    Of a seeded scikit-learn forest (:class:`sklearn.ensemble.RandomForestClassifier`).

    The defaults are those of R's ``randomForest`` (500 trees, ``sqrt(p)`` features per split),
    which the thesis' naming suggests; the impurity importance is used because the permutation
    importance needs out-of-bag predictions for every feature (O(p) times the cost).

    Parameters
    ----------
    n_estimators : int, default=500
        Number of trees.
    max_features : {"sqrt", "log2"}, int or float, default="sqrt"
        Features considered at each split.
    min_samples_leaf : int, default=1
        Minimum number of samples in a leaf.
    n_features_to_select : int, float or None, default=None
        Size of ``support_`` (``None``: half of the features; a float: a fraction).
    random_state : int, RandomState or None, default=None
        Seeds the forest; the result does not depend on ``n_jobs``.
    n_jobs : int or None, default=None
        Trees grown in parallel.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``feature_importances_`` of the forest (sum 1).
    forest_ : RandomForestClassifier
        The fitted forest.
    ranking_, support_, n_features_to_select_, classes_, n_features_in_
        As in :class:`stablefs.selectors.ReliefF`.

    References
    ----------
    .. [1] L. Breiman, "Random forests", Machine Learning 45(1), 5–32, 2001.
    .. [2] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, ch. 8.

    Examples
    --------
    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.selectors import RandomForestImportance
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> selector = RandomForestImportance(n_estimators=100, random_state=0,
    ...                                   n_features_to_select=5).fit(data.X, data.y)
    >>> print(*selector.get_support(indices=True))
    1 2 4 7 8
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "n_estimators": [whole(1, None)],
        "max_features": [StrOptions({"sqrt", "log2"}), whole(1, None), fraction()],
        "min_samples_leaf": [whole(1, None)],
        "random_state": ["random_state"],
        "n_jobs": n_jobs_constraint(),
    }

    def __init__(self, n_estimators: int = 500, *,
                 max_features: Literal["sqrt", "log2"] | int | float = "sqrt",
                 min_samples_leaf: int = 1, n_features_to_select: int | float | None = None,
                 random_state: RandomStateLike = None, n_jobs: int | None = None) -> None:
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.min_samples_leaf = min_samples_leaf
        self.n_features_to_select = n_features_to_select
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _score(self, X, y, sample_weight):
        forest = RandomForestClassifier(
            n_estimators=self.n_estimators, max_features=self.max_features,
            min_samples_leaf=self.min_samples_leaf, random_state=self.random_state,
            n_jobs=self.n_jobs,
        )
        # equal weights are no weights (scikit-learn draws the bootstraps differently when
        # given any sample_weight); others are rescaled to mean 1
        weights = None if np.ptp(sample_weight) == 0 else sample_weight * X.shape[0]
        forest.fit(X, y, sample_weight=weights)
        self.forest_ = forest
        return forest.feature_importances_.copy()
