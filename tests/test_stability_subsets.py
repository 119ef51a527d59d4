"""Pairwise subset measures: hand-computed values, aggregation, reference form, degenerate input."""

import numpy as np
import pytest

from stablefs import StablefsError
from stablefs.stability import (
    dice,
    hamming,
    jaccard,
    kappa,
    kuncheva,
    lustgarten,
    nogueira,
    ochiai,
    phi,
    similarity_matrix,
    unadjusted,
    wald,
)

P = 10
EQ = [[0, 1, 2, 3], [2, 3, 4, 5]]          # a = 2, k = 4, b = c = 2, d = 4
UNEQ = [[0, 1, 2], [1, 2, 3, 4, 5]]        # a = 2, k_i = 3, k_j = 5, b = 1, c = 3, d = 4


@pytest.mark.parametrize(
    ("func", "expected"),
    [
        (kuncheva, (2 * 10 - 16) / (4 * 6)),          # 1/6
        (jaccard, 2 / 6),
        (dice, 4 / 8),
        (hamming, (2 + 4) / 10),
        (ochiai, 2 / 4),
        (lustgarten, (2 - 1.6) / (4 - 0)),            # 0.1 (2k <= p)
        (phi, (2 * 4 - 2 * 2) / np.sqrt(4 * 6 * 4 * 6)),
        (kappa, 1 / 6),
        (wald, (2 - 1.6) / (4 - 1.6)),
        (unadjusted, (2 - 1.6) / (4 - 1.6)),
    ],
)
def test_hand_computed_equal_sizes(func, expected):
    assert func(EQ, P) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("func", "expected"),
    [
        (jaccard, 2 / 6),
        (dice, 4 / 8),
        (hamming, 0.6),
        (ochiai, 2 / np.sqrt(15)),
        (lustgarten, (2 - 1.5) / 3),
        (phi, (2 * 4 - 1 * 3) / np.sqrt(3 * 7 * 5 * 5)),
        (kappa, (0.6 - 0.5) / (1 - 0.5)),            # p_o = 0.6, p_e = (15 + 35)/100
        (wald, (2 - 1.5) / (3 - 1.5)),
        (unadjusted, (2 - 1.5) / (np.sqrt(15) - 1.5)),
    ],
)
def test_hand_computed_unequal_sizes(func, expected):
    assert func(UNEQ, P) == pytest.approx(expected, abs=1e-12)


def test_kuncheva_rejects_unequal_sizes_with_a_hint():
    with pytest.raises(StablefsError, match="equal size.*nogueira"):
        kuncheva(UNEQ, P)


def test_average_over_all_pairs_eq_5_4():
    three = EQ + [[0, 1, 2, 3]]
    # pairs: (1,2) a=2, (1,3) a=4, (2,3) a=2
    k = [(a * 10 - 16) / 24 for a in (2, 4, 2)]
    assert kuncheva(three, P) == pytest.approx(np.mean(k))
    assert jaccard(three, P) == pytest.approx(np.mean([2 / 6, 1.0, 2 / 6]))


def test_reference_form_eq_7():
    ref = [0, 1, 2, 3]
    results = [[0, 1, 2, 3], [2, 3, 4, 5], [0, 1, 8, 9]]
    assert jaccard(results, P, reference=ref) == pytest.approx(np.mean([1, 2 / 6, 2 / 6]))
    assert kuncheva(results, P, reference=ref) == pytest.approx(
        np.mean([(a * 10 - 16) / 24 for a in (4, 2, 2)]))
    # a single result is fine against a reference
    assert dice([[2, 3, 4, 5]], P, reference=ref) == pytest.approx(0.5)


def test_kuncheva_toy_curve_seed_002_sec_2_3_2():
    x1 = [9, 7, 2, 1, 3, 10, 8, 4, 5, 6]
    x2 = [3, 7, 9, 10, 2, 4, 8, 6, 1, 5]
    got = [kuncheva([[f - 1 for f in x1[:k]], [f - 1 for f in x2[:k]]], 10)
           for k in range(1, 10)]
    expected = [-0.111, 0.375, 0.524, 0.167, 0.600, 0.583, 0.524, 0.375, -0.111]
    assert np.round(got, 3).tolist() == expected


def test_identical_subsets_give_exactly_one_no_44_45_quirk():
    subsets = [[1, 4, 7]] * 10
    for f in (kuncheva, jaccard, dice, hamming, ochiai, phi, kappa, wald, unadjusted):
        assert f(subsets, 20) == 1.0
    # Lustgarten's maximum is not 1: identical k-subsets score 1 - k/p (k <= p/2)
    assert lustgarten(subsets, 20) == pytest.approx(1 - 3 / 20)


def test_input_forms_agree():
    Z = np.zeros((2, P), dtype=bool)
    Z[0, EQ[0]] = True
    Z[1, EQ[1]] = True
    forms = [EQ, [set(s) for s in EQ], [np.array(s) for s in EQ], list(Z), np.array(EQ)]
    for form in forms:
        assert kuncheva(form, P) == pytest.approx(1 / 6)
    assert kuncheva(Z) == pytest.approx(1 / 6)          # n_features not needed for a matrix
    import pandas as pd

    assert kuncheva(pd.DataFrame(Z)) == pytest.approx(1 / 6)
    # p-free measures accept index sets without n_features
    assert jaccard(EQ) == pytest.approx(1 / 3)


def test_equalities_for_equal_sizes():
    rng = np.random.default_rng(1)
    p, k = 30, 8
    subsets = [rng.choice(p, k, replace=False) for _ in range(7)]
    kun = kuncheva(subsets, p)
    for f in (phi, kappa, wald, unadjusted, nogueira):
        assert f(subsets, p) == pytest.approx(kun, abs=1e-12)
    assert lustgarten(subsets, p) == pytest.approx((1 - k / p) * kun, abs=1e-12)  # 2k <= p


def test_lustgarten_differs_from_kuncheva_above_half():
    p = 10                                              # k = 7
    s = [[0, 1, 2, 3, 4, 5, 6], [3, 4, 5, 6, 7, 8, 9]]   # a = 4 = 2k - p: minimum overlap
    assert kuncheva(s, p) == pytest.approx((4 * 10 - 49) / (7 * 3))
    assert lustgarten(s, p) == pytest.approx((4 - 4.9) / (7 - 4))


def test_similarity_matrix():
    S = similarity_matrix(EQ + [[0, 1, 2, 3]], P, measure="jaccard")
    assert S.shape == (3, 3)
    np.testing.assert_allclose(np.diag(S), 1.0)
    np.testing.assert_allclose(S, S.T)
    assert S[0, 1] == pytest.approx(1 / 3)
    with pytest.raises(StablefsError, match="unknown pairwise measure"):
        similarity_matrix(EQ, P, measure="nope")


# ------------------------------------------------------------------- degenerate input
def _one_line(excinfo):
    assert "\n" not in str(excinfo.value)


def test_one_subset_needs_reference():
    with pytest.raises(StablefsError, match="at least two") as e:
        kuncheva([[0, 1]], 5)
    _one_line(e)


def test_no_subsets():
    with pytest.raises(StablefsError):
        jaccard([], 5)


def test_empty_subsets():
    empty = [[], []]
    assert jaccard(empty, 5) == 1.0
    assert dice(empty, 5) == 1.0
    assert ochiai(empty, 5) == 1.0
    assert hamming(empty, 5) == 1.0
    assert jaccard([[], [1]], 5) == 0.0
    assert ochiai([[], [1]], 5) == 0.0
    assert kappa([[], [1]], 5) == 0.0          # defined: chance agreement < 1
    for f in (kuncheva, phi, lustgarten, wald, unadjusted):
        with pytest.raises(StablefsError) as e:
            f(empty, 5)
        _one_line(e)
    with pytest.raises(StablefsError, match="both subsets are empty"):
        kappa(empty, 5)


def test_full_subsets_k_equals_p():
    full = [[0, 1, 2], [0, 1, 2]]
    assert jaccard(full, 3) == 1.0
    assert hamming(full, 3) == 1.0
    for f in (kuncheva, phi, kappa, lustgarten, wald, unadjusted):
        with pytest.raises(StablefsError):
            f(full, 3)


def test_single_feature():
    assert hamming([[0], [0]], 1) == 1.0
    assert jaccard([[0], []], 1) == 0.0
    with pytest.raises(StablefsError, match="0 < k < p"):
        kuncheva([[0], [0]], 1)


@pytest.mark.parametrize(
    ("subsets", "n_features", "match"),
    [
        ([[0, 1], [1, 7]], 5, "outside 0..4"),
        ([[0, 1], [1, -1]], 5, "outside"),
        ([[0, 1, 1], [1, 2]], 5, "twice"),
        ([[0.0, 1.0], [1, 2]], 5, "floating-point"),
        ([0, 1, 2], 5, "flat list"),
        ([["a"], [1]], 5, "pass feature_names="),
        ([[object()], [1]], 5, "whole-number"),
        ([[0, 1], [1, 2]], None, "n_features is required"),
        ([[0, 1], [1, 2]], 0, "at least 1"),
        (np.zeros((2, 4), dtype=bool), 5, "columns"),
        ([np.ones(4, bool), np.ones(5, bool)], None, "length"),
        (np.array([[0, 1, 1, 0], [1, 0, 0, 1]]), 4, "dtype bool"),
    ],
)
def test_bad_input_is_one_clear_line(subsets, n_features, match):
    with pytest.raises(StablefsError, match=match) as e:
        kuncheva(subsets, n_features)
    _one_line(e)


def test_no_nan_for_any_degenerate_case():
    cases = [([[], []], 4), ([[0], []], 4), ([[0, 1, 2, 3]] * 2, 4), ([[0], [0]], 1),
             ([[0], [1]], 2), ([[0, 1], [2]], 3)]
    for f in (kuncheva, jaccard, dice, hamming, ochiai, lustgarten, phi, kappa, wald,
              unadjusted, nogueira):
        for subsets, p in cases:
            try:
                v = f(subsets, p)
            except StablefsError as e:
                assert "\n" not in str(e)
            else:
                assert np.isfinite(v), (f.__name__, subsets, p)
