"""Batched stream seeding of the Monte-Carlo noise against NumPy's own (``_seeding``, ``Noise``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stablefs.selectors.wrappers._seeding as seeding
from stablefs.selectors.wrappers._criterion_base import Noise


def _numpy_state(seed, f):
    state = np.random.PCG64(np.random.SeedSequence([seed, int(f)])).state["state"]
    return state["state"], state["inc"]


@pytest.mark.parametrize("seed", [0, 1, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1,
                                  123456789123456789])
def test_states_equal_numpy_seeding_on_edge_cases(seed):
    features = np.array([0, 1, 7, 199, 2**16, 2**31, 2**32 - 1], dtype=np.int64)
    assert seeding.states(seed, features) == [_numpy_state(seed, f) for f in features]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), features=st.lists(st.integers(0, 2**32 - 1),
                                                         min_size=1, max_size=8))
def test_states_equal_numpy_seeding(seed, features):
    assert seeding.states(seed, np.array(features)) == [_numpy_state(seed, f) for f in features]


def test_states_refuse_what_the_pool_cannot_hold():
    with pytest.raises(ValueError, match="2\\*\\*64"):
        seeding.states(2**64, np.array([0]))
    with pytest.raises(ValueError, match="2\\*\\*32"):
        seeding.states(1, np.array([2**32]))
    assert seeding.states(1, np.zeros(0, dtype=np.int64)) == []


def _reference(seed, n, draws, f):
    return np.random.default_rng([seed, f]).standard_normal((n, draws))


@pytest.mark.parametrize("seed", [0, 5, 2**40 + 3, 2**64 + 1])
def test_noise_draws_are_default_rng_streams(seed):
    noise = Noise(seed, 7, 3)
    block = noise.block(np.array([4, 0, 4, 9]))  # repeated and unsorted features
    assert noise._batched is (seed < 2**64)
    for f in (0, 4, 9):
        assert np.array_equal(block[f], _reference(seed, 7, 3, f))
    # growing the block keeps what was drawn; get() is (n, M, k) in C order
    got = noise.get([30, 4])
    assert got.shape == (7, 3, 2) and got.flags.c_contiguous
    assert np.array_equal(got[:, :, 0], _reference(seed, 7, 3, 30))
    assert np.array_equal(got[:, :, 1], _reference(seed, 7, 3, 4))
    assert np.array_equal(noise.feature(9), _reference(seed, 7, 3, 9))


def test_noise_falls_back_to_default_rng_when_the_states_differ(monkeypatch):
    monkeypatch.setattr(seeding, "states",
                        lambda seed, features: [(1, 1)] * len(features))
    noise = Noise(11, 5, 4)
    block = noise.block(np.arange(3))
    assert noise._batched is False
    for f in range(3):
        assert np.array_equal(block[f], _reference(11, 5, 4, f))



def test_noise_of_a_feature_index_beyond_the_pool_uses_default_rng():
    # an index of 2^32 or more does not fit the batched seeding's pool: NumPy's own streams
    noise = Noise(3, 2, 2)
    noise._batched = True
    f = 2**32 + 5
    noise._block = {}  # a stand-in for a block that tall
    noise._draw(np.array([f], dtype=np.int64))
    assert np.array_equal(noise._block[f], _reference(3, 2, 2, f))
