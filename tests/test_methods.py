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


def _builtin_strings() -> list[str]:
    """Every selector, every prefix around it, and every pair of stacked prefixes around it."""
    from stablefs.methods import PREFIXES, SELECTORS

    names, prefixes = sorted(SELECTORS), sorted(PREFIXES)
    return (names + [f"{p}-{n}" for p in prefixes for n in names]
            + [f"{p}-{q}-{n}" for p in prefixes for q in prefixes for n in names])


def test_parameterless_strings_are_checked_without_building_them_equivalently():
    """``validate_method`` checks a parameter-less string of stablefs's own names by parsing it
    (so that the command line's checks need no scikit-learn). That is the same check as
    building it because every such string builds with its defaults and passes the constraint
    check (make_selector runs it and raises otherwise), here for one prefix and two stacked
    prefixes around every selector. Deeper stacks follow: each object's check sees only its
    own parameters, and a prefix's ``selector`` constraint asks only for ``fit``, which every
    selector and prefix has. The size parameters that ``check_method_sizes`` compares with
    the data are the built chain's too."""
    from stablefs.methods import _builtin_parts, _chain_sizes, chain_repetitions

    strings = _builtin_strings()
    assert len(strings) > 1000
    for spec in strings:
        assert _builtin_parts(spec) is not None, spec
        make_selector(spec)  # raises on a parameter the constraints refuse
        assert _chain_sizes(spec) == _chain_sizes(spec, build=True), spec
        assert chain_repetitions(spec) == chain_repetitions(spec, build=True), spec
    assert _chain_sizes("stabsel-en-relieff") == [("q", 20)]
    assert chain_repetitions("stabsel-en-relieff") == [("n_subsamples", 50, 2),
                                                       ("n_estimators", 20, 1)]
    assert _chain_sizes("stabsel") == [("q", 20)]


def test_parameters_or_user_registrations_are_checked_by_building(monkeypatch):
    from stablefs import methods
    from stablefs.methods import MethodInfo, _builtin_parts, check_method_sizes, validate_method

    assert _builtin_parts("relieff(n_neighbors=3)") is None
    # a user's registration under a built-in name is built, and its defaults checked
    bad = MethodInfo("relieff", "stablefs.selectors:ReliefF", "test", (("n_neighbors", -3),))
    monkeypatch.setitem(methods.SELECTORS, "relieff", bad)
    assert _builtin_parts("en-relieff") is None
    with pytest.raises(StablefsError, match="n_neighbors = -3"):
        validate_method("en-relieff")
    # and its size defaults come from the built object
    big = MethodInfo("sfs", "stablefs.selectors:SFS", "test", (("n_features_to_select", 30),))
    monkeypatch.setitem(methods.SELECTORS, "sfs", big)
    with pytest.raises(StablefsError, match="n_features_to_select = 30"):
        check_method_sizes(["sfs"], 20)
    check_method_sizes(["sfs"], 30)


def test_default_size_of_stability_selection_is_checked_without_building():
    from stablefs.methods import check_method_sizes

    with pytest.raises(StablefsError, match=r"method 'iw-stabsel-ttest': q = 20 .* 12 features"):
        check_method_sizes(["ttest", "iw-stabsel-ttest"], 12)
    check_method_sizes(["ttest", "iw-stabsel-ttest"], 20)
