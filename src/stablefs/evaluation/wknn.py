"""Instance- and feature-weighted k-nearest neighbours (Prat Masramon 2016, Alg. 8.2).

The thesis judges a feature *weighting* without choosing a subset size: the distance weighs
every feature by its weight, ``d_w(x, z) = sqrt(sum_i w_i (x_i - z_i)^2)`` (eq. 8.3; ``w_i``,
not ``w_i^2`` as in Simba's norm), the ``k`` nearest training instances vote with their
instance weights ``omega``, ``c_j = sum_{x in I_k, class(x) = j} omega(x)``, and the class with
the largest score wins. (The printed "sort in descending order" is a typo for ascending.)
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from stablefs._errors import StablefsError
from stablefs.selectors._constraints import StrOptions, check_parameters, whole
from stablefs.selectors._neighbors import BLOCK_ELEMENTS

INSTANCE_WEIGHTINGS = ("none", "logistic", "margin")


class WeightedKNN(ClassifierMixin, BaseEstimator):
    """k-NN with feature-weighted distances and instance-weighted votes (Alg. 8.2).

    Parameters
    ----------
    n_neighbors : int, default=3
        ``k`` (the thesis does not state it). With ``k = 1`` the instance weights cannot change
        a prediction, so the default is 3.
    feature_weights : array-like of shape (n_features,) or None, default=None
        ``w`` of eq. 8.3 (a feature weighting's scores); ``None`` weighs every feature 1.
        Negative weights (possible for, e.g., logistic margin weighting) are taken as 0, since
        eq. 8.3 is a distance only for ``w >= 0``.
    instance_weighting : {"none", "logistic", "margin"}, default="none"
        Where ``omega`` comes from when ``fit`` gets no ``sample_weight``: all 1, logistic
        instance weights (thesis sec. 8.2, alpha = 3.03) or margin-based instance weights
        (Han 2012, eq. 4.6), computed on the training data.

    Attributes
    ----------
    classes_ : ndarray
    instance_weights_ : ndarray of shape (n_train,)
        ``omega`` used for the votes.

    Notes
    -----
    Equal distances are broken by the lower training index, equal class scores by the first
    class in ``classes_``. ``predict_proba`` gives the class scores normalised to sum 1.
    """

    _parameter_constraints: dict = {
        "n_neighbors": [whole(1, None)],
        "feature_weights": ["array-like", None],
        "instance_weighting": [StrOptions(set(INSTANCE_WEIGHTINGS))],
    }

    def __init__(self, n_neighbors=3, *, feature_weights=None, instance_weighting="none"):
        self.n_neighbors = n_neighbors
        self.feature_weights = feature_weights
        self.instance_weighting = instance_weighting

    def fit(self, X, y, sample_weight=None):
        """Store the training data and the instance weights ``omega``."""
        check_parameters(self)
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, self._codes = np.unique(y, return_inverse=True)
        if sample_weight is not None:
            omega = _check_sample_weight(sample_weight, X, dtype=np.float64)
            if np.any(omega < 0):
                raise StablefsError("sample_weight must be non-negative.")
        elif self.instance_weighting == "none" or self.classes_.size < 2:
            omega = np.ones(X.shape[0])
        elif self.instance_weighting == "logistic":
            from stablefs.stabilizers import logistic_instance_weights

            omega = logistic_instance_weights(X, y)
        else:
            from stablefs.stabilizers import margin_instance_weights

            omega = margin_instance_weights(X, y)
        self._w = self._feature_weights(X.shape[1])
        self._X = X
        self.instance_weights_ = omega
        return self

    def _feature_weights(self, p: int) -> np.ndarray:
        if self.feature_weights is None:
            return np.ones(p)
        w = np.asarray(self.feature_weights, dtype=np.float64).ravel()
        if w.size != p or not np.all(np.isfinite(w)):
            raise StablefsError(
                f"feature_weights has {w.size} values for {p} features (or a non-finite one): "
                "give one finite weight per feature."
            )
        return np.maximum(w, 0.0)

    def _class_scores(self, X) -> np.ndarray:
        check_is_fitted(self, "instance_weights_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        w = self._w
        n_train, p = self._X.shape
        # exact squared weighted distances (no |x|^2 + |z|^2 - 2<x, z> cancellation, so equal
        # distances stay equal), a block of test rows at a time
        d2 = np.empty((X.shape[0], n_train))
        rows = max(1, BLOCK_ELEMENTS // max(n_train * p, 1))
        for start in range(0, X.shape[0], rows):
            diff = X[start : start + rows, None, :] - self._X[None, :, :]
            np.square(diff, out=diff)
            d2[start : start + rows] = diff @ w
        k = min(self.n_neighbors, self._X.shape[0])
        nearest = np.argsort(d2, axis=1, kind="stable")[:, :k]
        scores = np.zeros((X.shape[0], self.classes_.size))
        rows = np.repeat(np.arange(X.shape[0]), k)
        np.add.at(scores, (rows, self._codes[nearest].ravel()),
                  self.instance_weights_[nearest].ravel())
        return scores

    def predict_proba(self, X) -> np.ndarray:
        """Class scores ``c_j`` of Alg. 8.2 normalised to sum 1 (uniform when all are 0)."""
        scores = self._class_scores(X)
        total = scores.sum(axis=1, keepdims=True)
        uniform = np.full_like(scores, 1.0 / scores.shape[1])
        return np.divide(scores, total, out=uniform, where=total > 0)

    def predict(self, X) -> np.ndarray:
        """The class with the largest summed instance weight among the ``k`` nearest."""
        scores = self._class_scores(X)
        return self.classes_[np.argmax(scores, axis=1)]
