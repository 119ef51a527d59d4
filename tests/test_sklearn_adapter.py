"""scikit-learn selectors in run_experiment: the full ranking each one gives."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_selection import (
    RFE,
    SelectFromModel,
    SelectKBest,
    SequentialFeatureSelector,
    f_classif,
)
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC

from stablefs._errors import StablefsError
from stablefs.evaluation.runner import run_experiment
from stablefs.selectors import TTest
from stablefs.selectors.sklearn_adapter import SklearnSelector, as_stablefs_selector


def _data(n=60, p=12, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 0] - X[:, 3] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _is_permutation(r):
    return sorted(r) == list(range(1, len(r) + 1))


def test_select_k_best_ranks_by_scores_then_pvalues_then_index():
    X, y = _data()
    X[:, 5] = X[:, 4]  # a tie
    sel = SklearnSelector(SelectKBest(f_classif, k=3)).fit(X, y)
    F = sel.selector_.scores_
    np.testing.assert_allclose(sel.scores_, F)
    order = np.lexsort((np.arange(12), sel.selector_.pvalues_, -F))
    assert list(np.argsort(sel.ranking_)) == list(order)
    assert sel.ranking_[4] + 1 == sel.ranking_[5]  # tie: lower index first
    assert sel.support_.sum() == 3  # the wrapped selector's own k


def test_select_from_model_ranks_by_importance():
    X, y = _data()
    sel = SklearnSelector(SelectFromModel(LogisticRegression(C=0.5))).fit(X, y)
    imp = np.abs(sel.selector_.estimator_.coef_).sum(axis=0)
    np.testing.assert_allclose(sel.scores_, imp)
    assert list(np.argsort(sel.ranking_)) == list(np.lexsort((np.arange(12), -imp)))
    forest = SklearnSelector(SelectFromModel(RandomForestClassifier(n_estimators=30)),
                             random_state=3).fit(X, y)
    np.testing.assert_allclose(forest.scores_,
                               forest.selector_.estimator_.feature_importances_)
    assert forest.selector_.estimator_.random_state == 3
    assert _is_permutation(forest.ranking_)


def test_rfe_ranks_by_elimination_then_final_coefficients():
    X, y = _data()
    sel = SklearnSelector(RFE(LinearSVC(), n_features_to_select=4, step=3)).fit(X, y)
    rfe = sel.selector_
    assert _is_permutation(sel.ranking_)
    np.testing.assert_allclose(sel.scores_, -rfe.ranking_)
    # every feature RFE kept comes first, ordered by |coef| of the final estimator
    kept = np.flatnonzero(rfe.support_)
    order = np.argsort(sel.ranking_)
    assert set(order[:4]) == set(kept)
    coef = np.abs(rfe.estimator_.coef_).ravel()
    assert list(order[:4]) == list(kept[np.argsort(-coef, kind="stable")])
    # later eliminations come later; equal RFE ranks by index
    assert np.all(np.diff(rfe.ranking_[order]) >= 0)


@pytest.mark.parametrize("selector", [
    SelectKBest(f_classif, k=3),
    SelectFromModel(LogisticRegression()),
    RFE(LinearSVC(), n_features_to_select=3),
])
def test_run_experiment_accepts_each(selector):
    X, y = _data()
    res = run_experiment(X, y, [selector, ("ttest", TTest())], [2, 4], protocol="split",
                         n_repeats=3, random_state=0)
    name = type(selector).__name__
    assert set(res.stability["method"]) == {name, "ttest"}
    for ranking in res.selections.loc[res.selections["method"] == name, "ranking"]:
        assert _is_permutation(ranking)


def test_refused_before_any_fit():
    with pytest.raises(StablefsError, match="SequentialFeatureSelector"):
        as_stablefs_selector(SequentialFeatureSelector(LinearSVC(), n_features_to_select=2))
    X, y = _data()
    with pytest.raises(StablefsError, match="cannot rank"):
        run_experiment(X, y, [SequentialFeatureSelector(LinearSVC(), n_features_to_select=2)],
                       [2], protocol="split", n_repeats=2)
    assert as_stablefs_selector(TTest()).__class__ is TTest
