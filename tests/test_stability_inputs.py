"""Stability functions that fit users' habits: subsets given as feature names, one definition
of consensus, and one-line refusals of rankings / weight vectors of unequal length."""

from __future__ import annotations

import inspect
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from stablefs import StablefsError
from stablefs.stability import (
    CONSENSUS_THRESHOLD,
    MEASURES,
    consensus,
    davis,
    dice,
    frequency_curve,
    frequency_intervals,
    hamming,
    in_consensus,
    intersection_count,
    jaccard,
    kappa,
    kendall,
    krizek,
    kuncheva,
    lustgarten,
    matching_similarity,
    matching_stability,
    measure_interval,
    nogueira,
    nogueira_ci,
    nogueira_test,
    nogueira_two_sample_test,
    nogueira_variance,
    novovicova,
    npogr,
    ochiai,
    pearson,
    phi,
    sechidis,
    selection_frequency,
    similarity_matrix,
    somol,
    somol_c,
    somol_cw,
    somol_cw_rel,
    spearman,
    unadjusted,
    wald,
    weight_variance,
    zucknick,
)

P = 12
NAMES = [f"g{i:02d}" for i in range(P)]


def _one_line(exc) -> str:
    msg = str(exc.value)
    assert "\n" not in msg
    assert "np." not in msg and "Traceback" not in msg
    return msg


def _system(seed=0, m=5, k=4):
    rng = np.random.default_rng(seed)
    idx = [np.sort(rng.choice(P, k, replace=False)) for _ in range(m)]
    X = rng.normal(size=(20, P))
    X[:, 1] = X[:, 0] + 0.01 * rng.normal(size=20)   # a correlated pair for the X measures
    return idx, [[NAMES[i] for i in s] for s in idx], X


def _same(a, b):
    if isinstance(a, tuple):
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, (pd.Series, pd.DataFrame)):
        assert_array_equal(np.asarray(a), np.asarray(b))
    else:
        assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), equal_nan=True)


# ------------------------------------------------------------------ names = indices
@pytest.mark.parametrize("name", list(MEASURES))
def test_every_registered_measure_accepts_names(name):
    idx, named, X = _system()
    meas = MEASURES[name]
    by_index = measure_interval(name, idx, P, X=X)
    by_name = measure_interval(name, named, X=X, feature_names=NAMES)
    _same(by_index, by_name)
    assert meas(named, X=X, feature_names=np.array(NAMES)) == by_index[0]


FUNCS = {  # public function -> call with (subsets, n_features, X, **kw)
    f.__name__: f for f in (
        kuncheva, jaccard, dice, hamming, ochiai, lustgarten, phi, kappa, wald, unadjusted,
        nogueira, nogueira_variance, somol, somol_c, somol_cw, somol_cw_rel, krizek, davis,
        novovicova, frequency_intervals, frequency_curve,
    )
}
X_FUNCS = {f.__name__: f for f in (npogr, zucknick, intersection_count, sechidis)}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_every_subset_function_accepts_names(name):
    idx, named, _ = _system(1)
    f = FUNCS[name]
    _same(f(idx, P), f(named, feature_names=NAMES))
    _same(f(idx, P), f(named, P, feature_names=NAMES))


@pytest.mark.parametrize("name", sorted(X_FUNCS))
def test_correlation_aware_functions_accept_names(name):
    idx, named, X = _system(2)
    f = X_FUNCS[name]
    _same(f(idx, X), f(named, X, feature_names=NAMES))


def test_names_work_for_intervals_tests_matrices_and_references():
    idx, named, X = _system(3)
    _same(nogueira_ci(idx, P), nogueira_ci(named, feature_names=NAMES))
    _same(tuple(nogueira_test(idx, P)), tuple(nogueira_test(named, feature_names=NAMES)))
    _same(tuple(nogueira_two_sample_test(idx, idx[::-1], P)),
          tuple(nogueira_two_sample_test(named, named[::-1], feature_names=NAMES)))
    _same(similarity_matrix(idx, P, "kuncheva"),
          similarity_matrix(named, measure="kuncheva", feature_names=NAMES))
    for f in (kuncheva, jaccard, phi):
        _same(f(idx, P, reference=idx[0]), f(named, reference=named[0], feature_names=NAMES))
    _same(zucknick(idx, X, reference=idx[0]),
          zucknick(named, X, reference=named[0], feature_names=NAMES))
    _same(matching_stability(idx), matching_stability(named, feature_names=NAMES))
    groups = [[0, 1], [5]]
    _same(matching_similarity(groups, [[1], [5, 6]]),
          matching_similarity([["g00", "g01"], ["g05"]], [["g01"], ["g05", "g06"]],
                              feature_names=NAMES))


def test_names_may_come_as_sets_arrays_and_series():
    idx, named, _ = _system(4)
    forms = [set(named[0]), np.array(named[1]), pd.Series(named[2]), tuple(named[3]),
             pd.Index(named[4])]
    assert nogueira(forms, feature_names=pd.Index(NAMES)) == nogueira(idx, P)


def test_masks_and_indices_still_work_next_to_feature_names():
    idx, named, _ = _system(5)
    mask = np.zeros(P, dtype=bool)
    mask[idx[1]] = True
    mixed = [named[0], mask, idx[2]]
    assert jaccard(mixed, feature_names=NAMES) == jaccard([idx[0], idx[1], idx[2]], P)


def test_boolean_dataframe_is_matched_to_feature_names_by_its_labels():
    idx, _, _ = _system(6)
    Z = np.zeros((len(idx), P), dtype=bool)
    for r, s in enumerate(idx):
        Z[r, s] = True
    order = np.random.default_rng(0).permutation(P)
    frame = pd.DataFrame(Z[:, order], columns=[NAMES[j] for j in order])
    freq = selection_frequency(frame, feature_names=NAMES)
    assert_allclose(freq.to_numpy(), Z.mean(axis=0))
    with pytest.raises(StablefsError, match="lacks 'g00'") as e:
        selection_frequency(frame.drop(columns="g00"), feature_names=NAMES)
    _one_line(e)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 6), st.integers(1, P - 1))
def test_renaming_features_never_changes_a_measure(seed, m, k):
    rng = np.random.default_rng(seed)
    idx = [rng.choice(P, k, replace=False) for _ in range(m)]
    perm = rng.permutation(P)                       # names in any order of the columns
    names = [f"feature {j}" for j in perm]
    named = [[names[i] for i in s] for s in idx]
    for f in (nogueira, jaccard, hamming):
        try:
            expected = f(idx, P)
        except StablefsError:
            with pytest.raises(StablefsError):
                f(named, feature_names=names)
            continue
        assert f(named, feature_names=names) == expected


# ------------------------------------------------------------------ name errors
UNKNOWN = [["g00", "x1", "x2", "x3", "x4", "x5"], ["g01", "g02"]]


@pytest.mark.parametrize(
    "call",
    [lambda s, **kw: kuncheva(s, **kw), lambda s, **kw: jaccard(s, **kw),
     lambda s, **kw: nogueira(s, **kw), lambda s, **kw: nogueira_ci(s, **kw),
     lambda s, **kw: selection_frequency(s, **kw), lambda s, **kw: consensus(s, **kw),
     lambda s, **kw: measure_interval("somol", s, **kw),
     lambda s, **kw: zucknick(s, np.ones((5, P)), **kw)],
    ids=["kuncheva", "jaccard", "nogueira", "nogueira_ci", "selection_frequency",
         "consensus", "measure_interval", "zucknick"],
)
def test_unknown_names_are_listed_briefly(call):
    with pytest.raises(StablefsError) as e:
        call(UNKNOWN, feature_names=NAMES)
    msg = _one_line(e)
    assert msg.startswith("subset 0 names 5 feature(s) not in feature_names: "
                          "'x1', 'x2', 'x3' and 2 more;")
    with pytest.raises(StablefsError, match=r"pass feature_names=") as e:
        call(UNKNOWN)                                 # names but no feature_names
    _one_line(e)


@pytest.mark.parametrize(
    ("kwargs", "subsets", "match"),
    [({"feature_names": ["a", "b", "a", "c", "c"]}, [["a"], ["b"]], "repeats 'a', 'c'"),
     ({"feature_names": NAMES, "n_features": 5}, [["g00"], ["g01"]],
      "n_features = 5 but feature_names lists 12"),
     ({"feature_names": [0, 1, 2]}, [[0], [1]], "must be strings"),
     ({"feature_names": "g00"}, [["g00"], ["g00"]], "single string"),
     ({"feature_names": NAMES}, [["g00", 3], ["g01"]], "mixes feature names and other"),
     ({"feature_names": NAMES}, [["g00", "g00"], ["g01"]], "lists feature 'g00' twice"),
     ({"feature_names": NAMES}, ["g00", "g01"], "flat list of names"),
     ({"feature_names": [np.str_("a"), "b"]}, [["a"], [np.str_("zz")]],
      "not in feature_names: 'zz';")],
)
def test_feature_names_errors(kwargs, subsets, match):
    with pytest.raises(StablefsError, match=match) as e:
        jaccard(subsets, **kwargs)
    _one_line(e)


def test_x_must_have_one_column_per_name():
    _, named, X = _system(7)
    with pytest.raises(StablefsError, match="X has 11 feature columns but feature_names") as e:
        zucknick(named, X[:, :11], feature_names=NAMES)
    _one_line(e)


# ------------------------------------------------------------------ consensus
def test_consensus_signature_matches_the_other_measures():
    sig = inspect.signature(consensus)
    assert list(sig.parameters)[:2] == ["subsets", "n_features"]
    assert sig.parameters["threshold"].kind is inspect.Parameter.KEYWORD_ONLY
    assert sig.parameters["threshold"].default == CONSENSUS_THRESHOLD == 0.5
    assert sig.parameters["feature_names"].kind is inspect.Parameter.KEYWORD_ONLY
    with pytest.raises(TypeError):
        consensus([[0]], 3, 0.5)        # threshold only by name


def test_consensus_is_strictly_more_than_the_threshold():
    # 10 results over 5 features: feature 0 in 10, 1 in 6, 2 in exactly 5, 3 in 4, 4 in 1
    Z = np.zeros((10, 5), dtype=bool)
    Z[:, 0] = True
    Z[:6, 1] = True
    Z[4:9, 2] = True
    Z[:4, 3] = True
    Z[9, 4] = True
    assert consensus(Z).tolist() == [0, 1]               # 5/10 = 0.5 is not > 0.5
    assert consensus(Z, threshold=0.4).tolist() == [0, 1, 2]
    assert consensus(Z, threshold=0.0).tolist() == [0, 1, 2, 3, 4]
    names = ["TP53", "BRCA1", "MYC", "EGFR", "KRAS"]
    got = consensus(Z, feature_names=names)
    assert got.tolist() == ["TP53", "BRCA1"] and all(type(x) is str for x in got)
    assert in_consensus([1.0, 0.6, 0.5, 0.4]).tolist() == [True, True, False, False]
    counts = frequency_intervals(Z, thresholds=(0.0, 0.5))
    assert counts.tolist() == [5, 2]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 40), st.integers(0, 99))
def test_consensus_matches_exact_rational_rule(seed, m, percent):
    rng = np.random.default_rng(seed)
    Z = rng.random((m, 15)) < rng.random(15)
    t = percent / 100
    exact = [f for f in range(15) if Fraction(int(Z[:, f].sum()), m) > Fraction(percent, 100)]
    got = consensus(Z, threshold=t)
    assert sorted(got.tolist()) == exact
    counts = Z.sum(axis=0)
    assert all(counts[a] >= counts[b] for a, b in zip(got[:-1], got[1:]))   # most frequent first
    assert_array_equal(in_consensus(selection_frequency(Z), t), np.isin(np.arange(15), exact))


def test_selection_frequency_with_names_is_a_series():
    _, named, _ = _system(8)
    s = selection_frequency(named, feature_names=NAMES)
    assert isinstance(s, pd.Series) and s.index.tolist() == NAMES and s.name == "frequency"
    assert s.index.name == "feature"
    c = selection_frequency(named, counts=True, feature_names=NAMES)
    assert c.name == "count" and c.sum() == sum(len(x) for x in named)


@pytest.mark.parametrize(
    ("bad", "shown"),
    [(1.0, "1.0"), (-0.1, "-0.1"), (np.float64(1.5), "1.5"), ("0.5", "'0.5'"), (True, "True")],
)
def test_bad_consensus_threshold(bad, shown):
    with pytest.raises(StablefsError) as e:
        consensus([[0], [1]], 2, threshold=bad)
    assert _one_line(e).startswith(f"threshold = {shown} must ")


# ------------------------------------------------------------------ unequal lengths
RAGGED = [[1, 2, 3, 4], [2, 1, 3, 4], [1, 2, 3]]


@pytest.mark.parametrize("f", [spearman, kendall], ids=["spearman", "kendall"])
@pytest.mark.parametrize("k", [None, 2])
def test_rankings_of_unequal_length_are_refused(f, k):
    with pytest.raises(StablefsError) as e:
        f(RAGGED, k=k)
    msg = _one_line(e)
    assert msg.startswith("the rankings have unequal lengths: ranking 0 has 4 entries but "
                          "ranking 2 has 3;")
    with pytest.raises(StablefsError, match="unequal lengths"):
        f([np.arange(1, 5), np.arange(1, 6)], k=k)


@pytest.mark.parametrize("f", [pearson, weight_variance], ids=["pearson", "weight_variance"])
def test_weight_vectors_of_unequal_length_are_refused(f):
    with pytest.raises(StablefsError) as e:
        f([[0.1, 0.5, 0.2], [0.3, 0.1], [0.2, 0.2, 0.9], [0.0]])
    msg = _one_line(e)
    assert msg.startswith("the weights have unequal lengths: weight vector 0 has 3 entries but "
                          "weight vector 1 has 2 (2 weight vectors differ from the first);")
    with pytest.raises(StablefsError, match="unequal lengths"):
        f(np.array([np.ones(3), np.ones(4)], dtype=object))


@pytest.mark.parametrize("f", [spearman, kendall, pearson, weight_variance])
def test_single_vector_and_nested_rows_are_refused(f):
    with pytest.raises(StablefsError, match="2-D matrix .* got 1-D: pass at least two") as e:
        f([3, 1, 2])
    _one_line(e)
    with pytest.raises(StablefsError, match="is not a flat sequence") as e:
        f([[1, 2, 3], [[1, 2], [3, 4]]])
    _one_line(e)


def test_equal_length_rankings_from_lists_of_arrays_still_work():
    R = [np.array([1, 2, 3, 4]), np.array([2, 1, 3, 4])]
    assert spearman(R) == pytest.approx(0.8)
    assert pearson([np.array([0.1, 0.2, 0.3]), np.array([0.2, 0.4, 0.6])]) == pytest.approx(1)


# ------------------------------------------------------------------ texts
def test_measure_descriptions_cite_authors_not_seed_files():
    text = " ".join(m.description for m in MEASURES.values())
    assert "seed" not in text.lower()
    assert "Han 2012, eq. 5.5" in text and "Yu, Ding and Loscalzo 2008, eq. 5" in text


@pytest.mark.parametrize(
    ("call", "shown"),
    [(lambda: nogueira_ci([[0], [1]], 3, alpha=np.float64(2.0)), "alpha = 2.0"),
     (lambda: consensus([[0]], 2, threshold=np.float64(1.5)), "threshold = 1.5"),
     (lambda: spearman([[1, 2], [2, 1]], k=np.int64(5)), "k = 5"),
     (lambda: somol([[0], [1]], 2, variant=np.str_("x")), "variant 'x'"),
     (lambda: kuncheva([[0], [1]], np.float64(3.0)), "n_features = 3.0")],
)
def test_messages_show_values_not_numpy_reprs(call, shown):
    with pytest.raises(StablefsError) as e:
        call()
    assert shown in _one_line(e)


def test_unknown_measure_lists_a_few_choices():
    with pytest.raises(StablefsError) as e:
        measure_interval("kunchev", [[0], [1]], 3)
    msg = _one_line(e)
    assert "did you mean kuncheva?" in msg
    assert f"'kuncheva', 'nogueira', 'jaccard' and {len(MEASURES) - 3} more" in msg
