import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from stablefs import StablefsError
from stablefs._validation import check_n_features_to_select, rank_from_scores


def test_rank_ties_broken_by_lower_index():
    assert rank_from_scores([1.0, 3.0, 3.0, 0.0]).tolist() == [3, 1, 2, 4]


def test_nan_scores_rank_last():
    assert rank_from_scores([np.nan, 1.0, np.nan, 2.0]).tolist() == [3, 2, 4, 1]


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=40))
def test_ranking_is_a_permutation_consistent_with_scores(scores):
    r = rank_from_scores(scores)
    assert sorted(r.tolist()) == list(range(1, len(scores) + 1))
    s = np.where(np.isnan(scores), -np.inf, scores)
    ordered = s[np.argsort(r)]
    assert np.all(ordered[:-1] >= ordered[1:])


@pytest.mark.parametrize("k", [0, -3, 11])
def test_bad_k(k):
    with pytest.raises(StablefsError):
        check_n_features_to_select(k, 10)


def test_k_forms():
    assert check_n_features_to_select(None, 10) == 5
    assert check_n_features_to_select(0.3, 10) == 3
    assert check_n_features_to_select(10, 10) == 10


@given(st.permutations(list(range(12))))
def test_ranking_from_order_is_the_inverse_permutation(order):
    from stablefs._validation import ranking_from_order

    ranking = ranking_from_order(np.array(order))
    assert ranking.dtype == np.int64
    assert [ranking[f] for f in order] == list(range(1, 13))
    np.testing.assert_array_equal(np.argsort(ranking), order)
