"""Base class for every stablefs selector.

A selector is a scikit-learn estimator with ``SelectorMixin``. :meth:`BaseSelector.fit`
validates the input, calls the subclass's :meth:`BaseSelector._score` to get one relevance
score per feature (higher = more relevant), and derives from it

- ``scores_``: the scores, shape ``(n_features,)``;
- ``ranking_``: 1 = best, a permutation of ``1..p``, ties broken by lower feature index;
- ``support_``: boolean mask of the top ``n_features_to_select`` features.

Subclasses whose ranking is not a sort of their scores (wrappers, recursive elimination)
override :meth:`BaseSelector._rank` as well.

Parameters are validated by scikit-learn's machinery: each class declares
``_parameter_constraints`` (extending ``BaseSelector._parameter_constraints``), ``fit``
checks them before any work (``_fit_context``), and a bad value raises
:class:`stablefs.selectors._constraints.ParameterError`, one line that is both a
``StablefsError`` and scikit-learn's ``InvalidParameterError``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from stablefs._validation import (
    check_classes,
    check_n_features_to_select,
    rank_from_scores,
    refuse_anndata,
)
from stablefs.selectors._constraints import check_parameters, fraction, whole

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from typing_extensions import Self


#: scikit-learn's parameter names by (class, constructor), each read once from the signature
_PARAM_NAMES: dict[tuple[type, object], tuple[str, ...]] = {}


class BaseSelector(SelectorMixin, BaseEstimator):
    """Base class of the selectors: ``fit`` scores the features, then ranks and selects them.

    A subclass implements ``_score(X, y, sample_weight)``, returning one relevance score per
    feature (higher = more relevant); ``fit`` validates the input, normalises the instance
    weights to sum 1, and sets ``scores_``, ``ranking_`` and ``support_``. Selectors whose
    ranking is not a sort of their scores (wrappers, recursive elimination) override
    ``_rank(X, y, sample_weight)`` instead, returning ``(scores, ranking)``.

    Parameters
    ----------
    n_features_to_select : int, float or None
        Size of ``support_``. ``None`` selects half of the features; a float in ``(0, 1]`` is a
        fraction; an int larger than the number of features is an error.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        One relevance score per feature, higher = more relevant.
    ranking_ : ndarray of int of shape (n_features,)
        1 = best, a permutation of ``1..p``; ties are broken by the lower feature index.
    support_ : ndarray of bool of shape (n_features,)
        The top ``n_features_to_select_`` features.
    n_features_to_select_ : int
        The size of ``support_``.
    classes_ : ndarray
        The class labels seen by ``fit``.
    n_features_in_ : int
        Number of features seen by ``fit``.

    References
    ----------
    .. [1] L. Buitinck et al., "API design for machine learning software: experiences from
       the scikit-learn project", ECML PKDD Workshop on Languages for Data Mining and
       Machine Learning, 108–122, 2013 (the estimator interface every selector follows).

    Examples
    --------
    A new selector needs only its score:

    >>> import numpy as np
    >>> from stablefs.selectors import BaseSelector
    >>> class Spread(BaseSelector):
    ...     # the weighted standard deviation of each feature
    ...     def _score(self, X, y, sample_weight):
    ...         mean = sample_weight @ X
    ...         return np.sqrt(sample_weight @ (X - mean) ** 2)
    >>> X = np.array([[0.0, 1.0, 5.0], [0.0, 3.0, 1.0], [0.0, 2.0, 9.0], [0.0, 2.0, 3.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> selector = Spread(n_features_to_select=1).fit(X, y)
    >>> selector.ranking_.tolist(), selector.get_support().tolist()
    ([3, 2, 1], [False, False, True])
    """

    #: whether ``fit`` honours ``sample_weight`` (instance weights)
    _supports_sample_weight = True

    #: True when :meth:`_rank` rejects non-finite ``X`` itself, in a pass over the data it
    #: makes anyway (SVM-RFE: the min-max range or the Gram matrix's diagonal), so that
    #: ``fit`` skips scikit-learn's separate scan of the whole matrix
    _checks_finite: bool = False

    #: scikit-learn parameter constraints; subclasses extend this dict
    _parameter_constraints: dict = {
        "n_features_to_select": [None, whole(1, None), fraction()],
    }

    def __init__(self, n_features_to_select: int | float | None = None) -> None:
        self.n_features_to_select = n_features_to_select

    # -- subclass hooks -------------------------------------------------------------------
    def _score(self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray) -> np.ndarray:
        """Return one relevance score per feature (higher = more relevant)."""
        raise NotImplementedError

    def _rank(self, X, y, sample_weight):
        """Return ``(scores, ranking)``; the default ranks features by their scores."""
        scores = np.asarray(self._score(X, y, sample_weight), dtype=float)
        return scores, rank_from_scores(scores)

    def _default_n_features_to_select(self, k: int) -> int:
        """Size of ``support_`` when ``n_features_to_select`` is None, called after
        :meth:`_rank`; ``k`` is the generic default (half of the features). Wrappers return
        their inner selector's choice."""
        return k

    def _validate_params(self) -> None:
        """Check the constructor parameters against ``_parameter_constraints`` (one line)."""
        check_parameters(self)

    @classmethod
    def _get_param_names(cls) -> list[str]:
        """The constructor's parameter names, as scikit-learn reads them from its signature,
        once per class and constructor: ``get_params``, ``clone`` and ``set_params`` call this
        for every copy of a selector (an ensemble clones its member for each of 20 members),
        and reading the signature each time cost the README's command 3 % of its time."""
        key = (cls, cls.__init__)
        names = _PARAM_NAMES.get(key)
        if names is None:  # scikit-learn's own reading (it refuses *args)
            names = _PARAM_NAMES[key] = tuple(
                BaseEstimator._get_param_names.__func__(cls))  # type: ignore[attr-defined]
        return list(names)

    # -- public API -----------------------------------------------------------------------
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Score and rank the features of ``X`` for the class labels ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data, one row per sample.
        y : array-like of shape (n_samples,)
            The class labels.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative instance weights; ``None`` weighs every sample equally. They are
            normalised to sum to 1 before being passed to the scoring rule.

        Returns
        -------
        self
            The fitted selector.
        """
        refuse_anndata(X)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2,
                             ensure_all_finite=not self._checks_finite)
        check_classification_targets(y)
        self.classes_ = check_classes(y)
        sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64)
        if np.any(sample_weight < 0):
            raise ValueError("sample_weight must be non-negative.")
        total = sample_weight.sum()
        if not total > 0:
            raise ValueError("sample_weight sums to zero: at least one sample needs weight.")
        sample_weight = sample_weight / total
        check_n_features_to_select(self.n_features_to_select, X.shape[1])
        scores, ranking = self._rank(X, y, sample_weight)
        return self._set_result(scores, ranking)

    def _set_result(self, scores, ranking):
        """Store a fit's scores and ranking, and the support they give (the end of
        :meth:`fit`; an ensemble that computes its members' scores together uses it too)."""
        ranking = np.asarray(ranking, dtype=np.int64)
        k = check_n_features_to_select(self.n_features_to_select, ranking.size)
        if self.n_features_to_select is None:
            k = self._default_n_features_to_select(k)
        self.scores_ = scores
        self.ranking_ = ranking
        self.support_ = self.ranking_ <= k
        self.n_features_to_select_ = k
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
