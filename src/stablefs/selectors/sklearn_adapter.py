"""Any scikit-learn feature selector as a stablefs selector (a full ranking of the features).

scikit-learn's selectors keep a subset; stablefs needs every feature ranked (top-k for any k,
stability of every size). :class:`SklearnSelector` fits the wrapped selector and derives
``scores_`` and a full ``ranking_`` from what it exposes, in this order:

1. ``ranking_`` (``RFE``, ``RFECV``): the elimination order. ``RFE`` gives every selected
   feature rank 1 (and, with ``step > 1``, features eliminated together share a rank); ties
   among the selected are broken by the final estimator's importance (``|coef_|`` summed over
   classes, or ``feature_importances_``), remaining ties by the lower index.
   ``scores_ = -ranking_`` of the wrapped selector.
2. ``scores_`` (``SelectKBest``, ``SelectPercentile``, ``GenericUnivariateSelect``,
   ``SelectFpr``/``Fdr``/``Fwe``): the univariate scores (NaN counts as lowest); ties by the
   smaller ``pvalues_`` when present, then the lower index.
3. ``estimator_`` with ``feature_importances_`` or ``coef_`` (``SelectFromModel``): the
   importance, ``|coef_|`` summed over classes (scikit-learn's own default norm for
   ``SelectFromModel``), ties by the lower index.

A selector exposing none of these (``SequentialFeatureSelector``, which only keeps a mask) is
refused with one line: it cannot rank the features it did not keep.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.feature_selection import SelectorMixin

from stablefs._errors import StablefsError
from stablefs._validation import ranking_from_order
from stablefs.selectors._base import BaseSelector
from stablefs.selectors._constraints import HasMethods

_HOW = "scores_, ranking_, or an estimator_ with coef_ or feature_importances_"


def _importance(estimator, n_features: int) -> np.ndarray | None:
    if estimator is None:
        return None
    imp = getattr(estimator, "feature_importances_", None)
    if imp is None and getattr(estimator, "coef_", None) is not None:
        coef = np.atleast_2d(np.asarray(estimator.coef_, dtype=float))
        imp = np.abs(coef).sum(axis=0)
    if imp is None:
        return None
    imp = np.asarray(imp, dtype=float).ravel()
    return imp if imp.size == n_features else None


def full_ranking(fitted, n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """``(scores, ranking)`` of a fitted scikit-learn selector (the rules of the module
    docstring); ``ranking`` is a permutation of ``1..n_features``."""
    index = np.arange(n_features)
    name = type(fitted).__name__
    rfe_rank = getattr(fitted, "ranking_", None)
    if rfe_rank is not None:
        rfe_rank = np.asarray(rfe_rank, dtype=float).ravel()
        tie = np.zeros(n_features)
        support = getattr(fitted, "support_", None)
        if support is not None:
            support = np.asarray(support, dtype=bool)
            imp = _importance(getattr(fitted, "estimator_", None), int(support.sum()))
            if imp is not None:
                tie[support] = imp
        scores = -rfe_rank
        return scores, ranking_from_order(np.lexsort((index, -tie, rfe_rank)))
    raw = getattr(fitted, "scores_", None)
    if raw is not None:
        scores = np.asarray(raw, dtype=float).ravel()
        key = np.where(np.isnan(scores), -np.inf, scores)
        pvalues = getattr(fitted, "pvalues_", None)
        pv = np.zeros(n_features) if pvalues is None else \
            np.nan_to_num(np.asarray(pvalues, dtype=float).ravel(), nan=np.inf)
        return scores, ranking_from_order(np.lexsort((index, pv, -key)))
    imp = _importance(getattr(fitted, "estimator_", None), n_features)
    if imp is not None:
        return imp, ranking_from_order(np.lexsort((index, -imp)))
    raise StablefsError(
        f"{name} exposes none of {_HOW} after fit, so it cannot rank the features it did not "
        "keep; use SelectFromModel, RFE or SelectKBest, or a stablefs method string."
    )


class SklearnSelector(BaseSelector):
    """A scikit-learn selector (``SelectKBest``, ``SelectFromModel``, ``RFE``, ...) with a full
    ranking (:func:`full_ranking`); what ``run_experiment`` and ``compare``'s Python API wrap
    scikit-learn selectors in.

    Parameters
    ----------
    selector : scikit-learn selector (``SelectorMixin``)
        Cloned and fitted on each training part.
    n_features_to_select : int, float or None
        Size of ``support_`` (``None``: the wrapped selector's own ``get_support()``).
    random_state : int or None
        Given to every ``random_state`` parameter of the wrapped selector and its
        estimator (the runner seeds each fit this way).

    Attributes
    ----------
    selector_ : the fitted clone
    scores_, ranking_, support_
    """

    _supports_sample_weight = False
    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "selector": [HasMethods(["fit", "get_support"])],
        "random_state": [None, "random_state"],
    }

    def __init__(self, selector, n_features_to_select=None, random_state=None):
        self.selector = selector
        self.n_features_to_select = n_features_to_select
        self.random_state = random_state

    def _default_n_features_to_select(self, k: int) -> int:
        return int(np.count_nonzero(self.selector_.get_support()))

    def fit(self, X, y, sample_weight=None):
        """Fit the wrapped selector on ``X, y`` (no instance weights) and rank every feature."""
        if sample_weight is not None and np.ptp(np.asarray(sample_weight, float)) > 0:
            raise StablefsError(f"{type(self.selector).__name__} takes no instance weights "
                                "here: fit without sample_weight.")
        return super().fit(X, y)

    def _rank(self, X, y, sample_weight):
        sel = clone(self.selector)
        if self.random_state is not None:
            keys = [k for k in sel.get_params(deep=True) if k.split("__")[-1] == "random_state"]
            sel.set_params(**{k: self.random_state for k in keys})
        sel.fit(X, y)
        self.selector_ = sel
        return full_ranking(sel, X.shape[1])


def as_stablefs_selector(obj):
    """``obj`` itself when it already gives a full ranking (a stablefs selector or any
    estimator with ``scores_``/``ranking_`` semantics of its own is left alone), else a
    :class:`SklearnSelector` around a scikit-learn ``SelectorMixin``."""
    from sklearn.feature_selection import SequentialFeatureSelector

    if isinstance(obj, BaseSelector) or not isinstance(obj, SelectorMixin):
        return obj
    if isinstance(obj, SequentialFeatureSelector):  # refused before any fit
        raise StablefsError(
            f"SequentialFeatureSelector exposes none of {_HOW} after fit, so it cannot rank "
            "the features it did not keep; use the method string 'sfs' (a forward search "
            "with its full path) instead."
        )
    return SklearnSelector(obj)
