"""``BaseSelector._get_param_names`` reads each constructor's signature once per class and
constructor (``get_params`` and ``clone`` call it for every copy of a selector): the same
names as scikit-learn's, per class, refreshed when a constructor is replaced."""

from __future__ import annotations

import importlib
import pkgutil

import pytest
from sklearn.base import BaseEstimator, clone

import stablefs.selectors
import stablefs.stabilizers
from stablefs.methods import build_selector
from stablefs.selectors._base import BaseSelector


def _sklearn_names(cls) -> list[str]:
    return BaseEstimator._get_param_names.__func__(cls)


def _all_selector_classes() -> set[type]:
    for package in (stablefs.selectors, stablefs.stabilizers):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(info.name)
    found, todo = set(), [BaseSelector]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return found


def test_every_selector_class_has_scikit_learns_parameter_names():
    classes = _all_selector_classes()
    assert len(classes) > 20
    for cls in classes:
        assert cls._get_param_names() == _sklearn_names(cls), cls


def test_subclasses_and_replaced_constructors_get_their_own_names():
    class A(BaseSelector):
        def __init__(self, a=1, n_features_to_select=None):
            self.a = a
            self.n_features_to_select = n_features_to_select

    class B(A):
        def __init__(self, b=2, a=1, n_features_to_select=None):
            super().__init__(a, n_features_to_select)
            self.b = b

    assert A._get_param_names() == ["a", "n_features_to_select"]
    assert B._get_param_names() == ["a", "b", "n_features_to_select"]
    names = A._get_param_names()
    names.append("changed by the caller")
    assert A._get_param_names() == ["a", "n_features_to_select"]

    def init(self, c=3):
        self.c = c

    A.__init__ = init
    assert A._get_param_names() == ["c"] == _sklearn_names(A)
    assert clone(A(c=5)).get_params() == {"c": 5}


def test_varargs_are_still_refused_each_time():
    class V(BaseSelector):
        def __init__(self, *args):
            self.args = args

    for _ in range(2):
        with pytest.raises(RuntimeError, match="no varargs"):
            V._get_param_names()


@pytest.mark.parametrize("method", ["relieff", "iw-relieff", "en-relieff", "stabsel", "drags"])
def test_built_and_cloned_selectors_keep_their_parameters(method):
    selector = build_selector(method, 7, [5, 10])
    copy = clone(selector)
    assert repr(copy) == repr(selector)
    assert copy.get_params(deep=True).keys() == selector.get_params(deep=True).keys()
