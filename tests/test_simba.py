"""Simba and its instance-weighted forms (Prat Masramon 2016 Alg. 2.5, 8.1) against a slow
direct reference written here."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stablefs import make_selector
from stablefs._errors import StablefsError
from stablefs.selectors import Simba, simba_weights
from stablefs.stabilizers import logistic_instance_weights, margin_instance_weights


def _scaled(X):
    X = np.asarray(X, float)
    span = X.max(0) - X.min(0)
    span[span == 0] = 1.0
    return (X - X.min(0)) / span


def _wnorm(z, w):
    return math.sqrt(sum((wj * zj) ** 2 for wj, zj in zip(w, z)))


def _slow_step(Xs, y, i, w, utility="linear", beta=1.0):
    """Delta of Alg. 2.5 for instance i, by loops (ties to the lower index; 0/0 := 0)."""
    n, p = Xs.shape
    d = [_wnorm(Xs[i] - Xs[l], w) for l in range(n)]
    misses = [l for l in range(n) if y[l] != y[i]]
    hits = [l for l in range(n) if y[l] == y[i] and l != i]
    m = min(misses, key=lambda l: (d[l], l))
    h = min(hits, key=lambda l: (d[l], l)) if hits else None
    dm, dh = d[m], (d[h] if hits else 0.0)
    if utility == "linear":
        up = 1.0
    else:
        u = 1 / (1 + math.exp(-beta * 0.5 * (dm - dh)))
        up = beta * u * (1 - u)
    step = np.zeros(p)
    for j in range(p):
        a = (Xs[i, j] - Xs[m, j]) ** 2 / dm if dm > 0 else 0.0
        b = (Xs[i, j] - Xs[h, j]) ** 2 / dh if hits and dh > 0 else 0.0
        step[j] = 0.5 * up * (a - b) * w[j]
    return step


def _slow_simba(X, y, order, omega=None, delta=False, utility="linear", beta=1.0, raw=False):
    Xs = _scaled(X)
    w = np.ones(Xs.shape[1])
    for i in order:
        step = _slow_step(Xs, y, i, w, utility, beta)
        w = w + (omega[i] * step if delta else step)
    w2 = w**2
    return w if raw else w2 / w2.max()


def _data(seed=0, n_classes=3):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), 6)
    X = rng.normal(size=(y.size, 5))
    X[:, 1] += y
    X[:, 3] = 4.0  # constant
    X[5] = X[4]  # duplicate: nearest hit at distance 0
    X[8] = X[2]  # duplicate in another class: nearest miss at distance 0
    return X, y


def test_step_is_utility_slope_times_margin_gradient():
    """Delta = u'(theta) d theta / d w with the neighbours fixed (Gilad-Bachrach et al. 2004):
    the reference's step against a central finite difference of the margin."""
    X, y = _data(1)
    Xs = _scaled(X)
    w = np.linspace(0.5, 1.5, Xs.shape[1])
    i = 0
    d = [_wnorm(Xs[i] - Xs[l], w) for l in range(len(y))]
    m = min((l for l in range(len(y)) if y[l] != y[i]), key=lambda l: (d[l], l))
    h = min((l for l in range(len(y)) if y[l] == y[i] and l != i), key=lambda l: (d[l], l))

    def theta(v):
        return 0.5 * (_wnorm(Xs[i] - Xs[m], v) - _wnorm(Xs[i] - Xs[h], v))

    eps = 1e-6
    grad = np.array([(theta(w + eps * e) - theta(w - eps * e)) / (2 * eps)
                     for e in np.eye(len(w))])
    assert np.allclose(_slow_step(Xs, y, i, w), grad, atol=1e-8)
    u = 1 / (1 + math.exp(-2.0 * theta(w)))
    assert np.allclose(_slow_step(Xs, y, i, w, "sigmoid", 2.0), 2.0 * u * (1 - u) * grad,
                       atol=1e-8)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("utility", ["linear", "sigmoid"])
def test_simba_matches_slow_reference(n_classes, utility):
    X, y = _data(2, n_classes)
    n = y.size
    ours = simba_weights(X, y, utility=utility, beta=3.0, n_passes=2, random_state=5)
    rng = np.random.RandomState(5)
    order = np.concatenate([rng.permutation(n), rng.permutation(n)])
    assert np.allclose(ours, _slow_simba(X, y, order, utility=utility, beta=3.0), atol=1e-10)


@pytest.mark.parametrize("strategy", ["normal", "sample", "order"])
@pytest.mark.parametrize("delta", [False, True])
def test_instance_weighted_strategies_match_slow_reference(strategy, delta):
    X, y = _data(3)
    n = y.size
    omega = np.linspace(0.2, 1.8, n)[::-1].copy()
    omega[6] = omega[7]  # a tie in "order"
    ours = simba_weights(X, y, omega, strategy=strategy, delta=delta, random_state=11)
    rng = np.random.RandomState(11)
    if strategy == "normal":
        order = rng.permutation(n)
    elif strategy == "sample":
        order = rng.choice(n, size=n, replace=True, p=omega / omega.sum())
    else:
        order = sorted(range(n), key=lambda i: (-omega[i], i))
    assert np.allclose(ours, _slow_simba(X, y, order, omega, delta), atol=1e-10)


def test_singleton_class_and_constant_feature():
    X, y = _data(4)
    y = y.copy()
    y[0] = 9
    ours = simba_weights(X, y, strategy="order")  # equal weights: data order
    assert np.allclose(ours, _slow_simba(X, y, range(y.size)), atol=1e-10)
    assert _slow_simba(X, y, range(y.size), raw=True)[3] == 1.0  # a constant never moves
    assert ours.max() == 1.0 and ours.min() >= 0.0


def test_selector_instance_weights_and_scales():
    X, y = _data(5)
    n = y.size
    liw = Simba(instance_weighting="logistic", delta=True, random_state=2).fit(X, y)
    omega = logistic_instance_weights(X, y)
    assert np.allclose(liw.instance_weights_, omega / omega.mean())
    assert np.allclose(liw.scores_, simba_weights(X, y, omega / omega.mean(), delta=True,
                                                  random_state=2))
    raw = Simba(instance_weighting="margin", delta=True, weight_scale="none",
                strategy="order").fit(X, y)
    mbiw = margin_instance_weights(X, y)
    assert np.allclose(raw.instance_weights_, mbiw)
    order = sorted(range(n), key=lambda i: (-mbiw[i], i))
    assert np.allclose(raw.scores_, _slow_simba(X, y, order, mbiw, True), atol=1e-10)
    # plain Simba: equal sample weights give omega = 1 exactly under "mean"
    plain = Simba(delta=True, random_state=2).fit(X, y)
    assert np.array_equal(plain.instance_weights_, np.ones(n))
    assert np.allclose(plain.scores_, simba_weights(X, y, random_state=2), atol=1e-14)


def test_unscaled_margin_weights_barely_move_w():
    """MBIW weights sum to 1, so under weight_scale="none" every Delta-update shrinks by
    about 1/n and w stays close to its start (1, ..., 1); "mean" restores plain steps."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 20)
    X = rng.normal(size=(40, 10))
    X[:, 0] += 2 * y
    none = Simba(instance_weighting="margin", delta=True, weight_scale="none",
                 random_state=0).fit(X, y).scores_
    mean = Simba(instance_weighting="margin", delta=True, random_state=0).fit(X, y).scores_
    plain = Simba(random_state=0).fit(X, y).scores_
    assert none.min() > 0.8  # nearly flat
    assert mean.min() < 0.5 and plain.min() < 0.5
    assert np.argmax(mean) == np.argmax(plain) == 0


def test_zero_weight_is_removal_and_seeded():
    X, y = _data(6)
    w = np.ones(y.size)
    w[[1, 13]] = 0.0
    keep = w > 0
    for est in (Simba(random_state=3), Simba(instance_weighting="logistic", delta=True,
                                             strategy="sample", random_state=3)):
        a = est.fit(X, y, sample_weight=w).scores_
        b = est.fit(X[keep], y[keep]).scores_
        assert np.allclose(a, b, atol=1e-14)
    assert np.array_equal(Simba(random_state=4).fit(X, y).scores_,
                          Simba(random_state=4).fit(X, y).scores_)


def test_xor_demonstration():
    """Simba finds the three XOR features (Gilad-Bachrach et al. 2004; Prat Masramon 2016,
    Fig. 2.12)."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(300, 8))
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0) ^ (X[:, 2] > 0)).astype(int)
    s = Simba(n_passes=3, random_state=0).fit(X, y)
    assert set(np.argsort(-s.scores_)[:3]) == {0, 1, 2}


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), shift=st.floats(-3, 3), factor=st.floats(0.2, 5))
def test_scaled_simba_invariant_to_affine_maps(seed, shift, factor):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], 6)
    X = rng.normal(size=(12, 4))
    a = simba_weights(X, y, random_state=seed)
    b = simba_weights(X * factor + shift, y, random_state=seed)
    assert np.allclose(a, b, atol=1e-8)
    assert a.max() == pytest.approx(1.0) and np.all(a >= 0)


def test_method_strings_and_bad_input():
    liw = make_selector("simba-liw")
    miw = make_selector("simba-miw(strategy='order')")
    assert liw.instance_weighting == "logistic" and liw.delta
    assert miw.instance_weighting == "margin" and miw.strategy == "order"
    X, y = _data(0)
    with pytest.raises(StablefsError, match="utility"):
        Simba(utility="zero-one").fit(X, y)
    with pytest.raises(StablefsError, match="strategy"):
        Simba(strategy="tournament").fit(X, y)
    with pytest.raises(StablefsError, match="instance_weights"):
        simba_weights(X, y, np.zeros(y.size))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), negate=st.booleans())
def test_copy_of_a_feature_gets_the_same_weight(seed, negate):
    """Lemma 5.1 of Prat Masramon 2016, for Simba: a feature and its exact (or negated) copy get
    the same update at every step, so the same final weight."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], 6)
    X = rng.normal(size=(18, 4))
    X[:, 0] += y
    X = np.column_stack([X, -X[:, 0] if negate else X[:, 0]])
    for est in (Simba(random_state=seed), Simba(instance_weighting="logistic", delta=True,
                                                strategy="sample", random_state=seed)):
        s = est.fit(X, y).scores_
        assert s[0] == pytest.approx(s[4], abs=1e-12)
