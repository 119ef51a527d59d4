import numpy as np
import pytest

from stablefs import StablefsError
from stablefs.evaluation.protocols import Protocol


def labels(counts):
    return np.repeat(np.arange(len(counts)), counts)


def test_split_is_stratified_two_thirds_per_class():
    y = labels([40, 22])  # Colon's class sizes
    res = Protocol("split", 5).resamples(y, random_state=1)
    assert len(res) == 5
    for r in res:
        assert np.intersect1d(r.train, r.test).size == 0
        assert np.union1d(r.train, r.test).size == y.size
        assert np.sum(y[r.train] == 0) == round(40 * 2 / 3)
        assert np.sum(y[r.train] == 1) == round(22 * 2 / 3)
    # different splits, reproducible
    assert not np.array_equal(res[0].train, res[1].train)
    again = Protocol("split", 5).resamples(y, random_state=1)
    assert all(np.array_equal(a.train, b.train) for a, b in zip(res, again))


def test_repeated_kfold_covers_every_sample_once_per_repeat():
    y = labels([30, 25, 12])
    proto = Protocol.parse("cv:5", 3)
    res = proto.resamples(y, random_state=0)
    assert len(res) == 15 == proto.n_resamples
    for rep in range(3):
        tests = np.concatenate([r.test for r in res if r.repeat == rep])
        assert np.array_equal(np.sort(tests), np.arange(y.size))


@pytest.mark.parametrize("text", ["bogus", "split:abc", "split:1.5", "cv:1"])
def test_bad_protocol_strings(text):
    with pytest.raises(StablefsError):
        Protocol.parse(text)


def test_class_too_small_for_protocol():
    y = labels([30, 4])
    with pytest.raises(StablefsError, match="too few samples"):
        Protocol.parse("cv").resamples(y)
    Protocol.parse("cv:4").resamples(y)  # four folds are fine


def test_single_class_refused():
    with pytest.raises(StablefsError, match="single class"):
        Protocol.parse("split").resamples(np.zeros(10))
