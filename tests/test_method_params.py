"""Method parameters are validated when a method string is built (and again by ``fit``)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import check_param_validation

from stablefs import StablefsError, make_selector
from stablefs.methods import available_methods, describe_methods, validate_method
from stablefs.selectors import SVMRFE, FStatistic, ReliefF, TTest
from stablefs.selectors._constraints import ParameterError, describe_allowed, plain
from stablefs.stabilizers import Ensemble, MarginInstanceWeighting


def _one_line(exc: BaseException) -> str:
    msg = str(exc)
    assert "\n" not in msg
    assert "np." not in msg and "numpy.str_" not in msg and "Traceback" not in msg
    return msg


# (method string, parameter, value as the message must show it, a word of what is allowed)
BAD = [
    ("relieff(n_neighbors=-3)", "n_neighbors", "-3", ">= 1"),
    ("relieff(n_neighbors=1.5)", "n_neighbors", "1.5", "whole number"),
    ("relieff(n_neighbors=True)", "n_neighbors", "True", "whole number"),
    ("relieff(n_neighbors='5')", "n_neighbors", "'5'", "whole number"),
    ("relieff(neighbor_weights='gaussian')", "neighbor_weights", "'gaussian'", "'uniform'"),
    ("en-relieff(n_estimators=0)", "n_estimators", "0", ">= 1"),
    ("en-relieff(aggregate='mean')", "aggregate", "'mean'", "'frequency', 'rank', 'weight'"),
    ("en-ttest(sampling='jackknife')", "sampling", "'jackknife'", "'subsample'"),
    ("en-ttest(normalize=1)", "normalize", "1", "True or False"),
    ("en-ttest(n_jobs=0)", "n_jobs", "0", "<= -1"),
    ("en-ttest(random_state=-1)", "random_state", "-1", ">= 0"),
    ("wen-ttest(fraction=1.5)", "fraction", "1.5", "(0, 1]"),
    ("ren-ttest(fraction=0)", "fraction", "0", "(0, 1]"),
    ("iw-relieff(n_iter=0)", "n_iter", "0", ">= 1"),
    ("iw-relieff(tol=-1e-3)", "tol", "-0.001", ">= 0"),
    ("iw-ttest(metric='euclid')", "metric", "'euclid'", "'euclidean'"),
    ("iw-ttest(scale='yes')", "scale", "'yes'", "True or False"),
    ("ttest(n_features_to_select=0)", "n_features_to_select", "0", "(0, 1]"),
    ("fstat(n_features_to_select=1.5)", "n_features_to_select", "1.5", "whole number >= 1"),
    ("en-iw-relieff(n_neighbors=0)", "n_neighbors", "0", ">= 1"),
    ("svm-rfe(C=0)", "C", "0", "> 0"),
    ("en-svm-rfe(step='third')", "step", "'third'", "'halve'"),
]


@pytest.mark.parametrize("spec, param, shown, allowed", BAD)
def test_bad_value_is_refused_when_built(spec, param, shown, allowed):
    with pytest.raises(StablefsError) as info:
        make_selector(spec)
    msg = _one_line(info.value)
    assert msg.startswith(f"method {spec!r}: {param} = {shown} is not allowed")
    assert allowed in msg
    # the CLI's up-front check gives the same line and builds nothing it keeps
    with pytest.raises(StablefsError) as again:
        validate_method(spec)
    assert str(again.value) == msg


def test_validate_method_accepts_good_strings_and_returns_none():
    for spec in ["relieff", "en-relieff(n_estimators=40, n_neighbors=5)",
                 "wen-ttest(fraction=1)", "ren-iw-fstat(fraction=0.5, n_iter=3, tol=0.0)",
                 "iw-relieff(metric='cityblock', n_jobs=-1)", "ttest(n_features_to_select=0.25)"]:
        assert validate_method(spec) is None
    assert validate_method("en-ttest", random_state=3, n_jobs=2) is None


def test_overrides_are_validated_and_shown_plainly():
    with pytest.raises(StablefsError) as info:
        make_selector("en-ttest", n_jobs=np.int64(0))
    assert "n_jobs = 0 is not allowed" in _one_line(info.value)
    with pytest.raises(StablefsError) as info:
        make_selector("en-ttest(aggregate='rank')", aggregate=np.str_("median"))
    assert "aggregate = 'median' is not allowed" in _one_line(info.value)


def test_spec_given_as_numpy_string_is_named_plainly():
    with pytest.raises(StablefsError) as info:
        make_selector(np.str_("relieff(n_neighbors=0)"))
    assert _one_line(info.value).startswith("method 'relieff(n_neighbors=0)': ")


class _Spy(TTest):
    """A TTest that records whether fit ran."""

    fitted = 0

    def fit(self, X, y, sample_weight=None):
        type(self).fitted += 1
        return super().fit(X, y, sample_weight)


@pytest.mark.parametrize(
    "estimator, param",
    [(ReliefF(n_neighbors=0), "n_neighbors"),
     (TTest(n_features_to_select=-1), "n_features_to_select"),
     (Ensemble(_Spy(), n_estimators=0), "n_estimators"),
     (Ensemble(_Spy(), fraction=2.0), "fraction"),
     (MarginInstanceWeighting(_Spy(), n_iter=np.int64(0)), "n_iter")],
)
def test_fit_validates_before_any_work(estimator, param):
    X = np.random.default_rng(0).normal(size=(12, 4))
    y = np.repeat([0, 1], 6)
    _Spy.fitted = 0
    with pytest.raises(ParameterError) as info:
        estimator.fit(X, y)
    assert isinstance(info.value, StablefsError)
    assert isinstance(info.value, InvalidParameterError)
    msg = _one_line(info.value)
    assert re.fullmatch(rf"The '{param}' parameter of \w+ must be .+\. Got .+ instead\.", msg)
    assert _Spy.fitted == 0


@pytest.mark.parametrize(
    "estimator",
    [TTest(), FStatistic(), ReliefF(), SVMRFE(), MarginInstanceWeighting(ReliefF()),
     Ensemble(TTest(), n_estimators=2)],
    ids=lambda e: type(e).__name__,
)
def test_sklearn_param_validation_check(estimator):
    # scikit-learn's own check: a constraint for every parameter, and fit refuses a value of
    # the wrong type and a value outside each constraint with InvalidParameterError.
    check_param_validation(type(estimator).__name__, estimator)


def test_every_listed_method_is_valid_with_runner_overrides():
    for name in available_methods():
        validate_method(name, random_state=0, n_jobs=1)


@settings(max_examples=40, deadline=None)
@given(st.integers(-50, 50))
def test_n_neighbors_accepted_iff_at_least_one(k):
    spec = f"relieff(n_neighbors={k})"
    if k >= 1:
        assert make_selector(spec).n_neighbors == k
    else:
        with pytest.raises(StablefsError, match=rf"n_neighbors = {k} is not allowed"):
            make_selector(spec)


@settings(max_examples=40, deadline=None)
@given(st.floats(-2, 3, allow_nan=False))
def test_fraction_accepted_iff_in_unit_interval(f):
    spec = f"wen-ttest(fraction={f!r})"
    if 0 < f <= 1:
        assert make_selector(spec).fraction == f
    else:
        with pytest.raises(StablefsError, match="fraction .* is not allowed"):
            make_selector(spec)


def test_describe_allowed_wording():
    from sklearn.utils._param_validation import StrOptions

    from stablefs.selectors._constraints import fraction, number, whole

    assert describe_allowed([whole(1, None)]) == "a whole number >= 1"
    assert describe_allowed([None, number(0, 1, closed="right")]) == "None or a number in (0, 1]"
    assert describe_allowed([whole(2, 5)]) == "a whole number in [2, 5]"
    assert describe_allowed([fraction()]) == "a float in (0, 1]"
    assert describe_allowed([StrOptions({"b", "a"})]) == "'a' or 'b'"
    assert describe_allowed([StrOptions({"b", "a", "c"})]) == "one of 'a', 'b', 'c'"
    assert describe_allowed(["boolean"]) == "True or False"


def test_plain_values():
    assert plain(np.str_("mean")) == "'mean'"
    assert plain(np.float64(1.5)) == "1.5"
    assert plain(np.int64(-3)) == "-3"
    assert plain(None) == "None"
    assert plain(np.True_) == "True"
    assert plain(object()) == "an object of type object"


def test_descriptions_cite_authors_and_years_not_seed_files():
    text = " ".join(d for _, d in describe_methods())
    assert not re.search(r"\bseed\b", text, re.IGNORECASE)
    for citation in ["Han 2012", "Li et al. 2013", "Yu, Ding and Loscalzo 2008",
                     "Xiao, Hua and Dougherty 2007"]:
        assert citation in text
