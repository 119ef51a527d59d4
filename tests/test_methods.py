import pytest

from stablefs import StablefsError, make_selector
from stablefs.methods import available_methods, parse_method


def test_parse_prefixes_and_params():
    assert parse_method("relieff") == ([], "relieff", {})
    assert parse_method("en-iw-relieff(n_estimators=40, n_neighbors=5)") == (
        ["en", "iw"], "relieff", {"n_estimators": 40, "n_neighbors": 5})


def test_make_selector_routes_parameters():
    sel = make_selector("en-relieff(n_estimators=7, n_neighbors=3)")
    assert type(sel).__name__ == "Ensemble"
    assert sel.n_estimators == 7 and sel.selector.n_neighbors == 3
    assert sel.sampling == "bootstrap" and sel.aggregate == "rank"
    iw = make_selector("iw-ttest")
    assert type(iw).__name__ == "MarginInstanceWeighting"
    assert type(iw.selector).__name__ == "TTest"
    ren = make_selector("ren-relieff")
    assert ren.sampling == "subsample" and ren.aggregate == "rank"


def test_unknown_method_suggests_close_matches():
    with pytest.raises(StablefsError, match="Did you mean.*relieff"):
        make_selector("relieef")  # "relief" is a method of its own (Kira and Rendell 1992)
    with pytest.raises(StablefsError, match="unknown method"):
        make_selector("zzzz")


def test_unknown_parameter_lists_valid_ones():
    with pytest.raises(StablefsError, match="n_neighbors"):
        make_selector("relieff(bogus=1)")


@pytest.mark.parametrize("bad", ["relieff(", "relieff(5)", "relieff(n_neighbors=abs)", ""])
def test_malformed(bad):
    with pytest.raises(StablefsError):
        make_selector(bad)


def test_every_listed_method_builds():
    for name in available_methods():
        make_selector(name)
