import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from stablefs import StablefsError
from stablefs.evaluation import bias_variance


def test_hand_computed():
    W = np.array([[0.5, 0.5], [1.0, 0.0]])
    out = bias_variance(W, [1.0, 0.0])
    # feature 0: estimates 0.5, 1.0; mean 0.75; r* = 1
    assert out["error"][0] == pytest.approx((0.25 + 0.0) / 2)
    assert out["bias"][0] == pytest.approx(0.0625)
    assert out["variance"][0] == pytest.approx(0.0625)


@settings(max_examples=50)
@given(arrays(float, (5, 4), elements=st.floats(0, 1)), arrays(float, 4, elements=st.floats(0, 1)))
def test_decomposition_is_exact(W, r):
    out = bias_variance(W, r)
    np.testing.assert_allclose(out["error"], out["bias"] + out["variance"], atol=1e-12)
    assert out["mean_error"] == pytest.approx(out["mean_bias"] + out["mean_variance"], abs=1e-12)


def test_shape_mismatch():
    with pytest.raises(StablefsError):
        bias_variance(np.ones((3, 4)), np.ones(5))
