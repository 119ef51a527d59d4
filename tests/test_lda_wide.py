"""The wrappers' LDA steps on wide subsets by rank-one updates (``_lda_wide``) against refitting
LDA on every subset (``RulePart``'s plain definition)."""

from __future__ import annotations

import numpy as np
import pytest

from stablefs.selectors.wrappers import make_criterion, rsa_backward, sbs
from stablefs.selectors.wrappers._criterion_base import RulePart
from stablefs.selectors.wrappers._error_estimators import PINV_RTOL, centred_by_class
from stablefs.selectors.wrappers._lda_criterion import LDAPart
from stablefs.selectors.wrappers._lda_wide import wide_gram, wide_step

CRITERIA = ["bolstered", "semi-bolstered", "resubstitution", "cv"]


def _problem(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(12, 40))
    p = int(rng.integers(n + 5, 3 * n + 10))
    y = np.arange(n) % 2
    rng.shuffle(y)
    X = rng.standard_normal((n, p))
    X[y == 1, :3] += 1.0
    if seed % 5 == 4:
        X *= 1e3  # the cut-off is relative
    return rng, X, y


def _classes(rng, g, n, p):
    """``g`` classes of ``n`` points on ``p`` features, class ``c`` shifted on feature ``c``."""
    y = np.arange(n) % g
    rng.shuffle(y)
    X = rng.standard_normal((n, p))
    for c in range(1, g):
        X[y == c, c] += 1.5
    return X, y


def _refits_remove(part, cols):
    return RulePart.values_remove(part, cols)


def _refits_add(part, cols, cands):
    return RulePart.values_add(part, cols, cands)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("criterion", CRITERIA)
def test_wide_steps_equal_the_refits(seed, criterion):
    # every candidate of a backward and a forward step from a subset wider than the
    # covariance's degrees of freedom: the same values as refitting LDA on each subset
    rng, X, y = _problem(seed)
    n, p = X.shape
    crit = make_criterion(X, y, estimator="lda", criterion=criterion, random_state=seed)
    k = int(rng.integers(n, p))
    cols = np.sort(rng.choice(p, k, replace=False))
    rest = np.setdiff1d(np.arange(p), cols)
    for part in crit.parts:
        assert part._wide_values(cols, cols, -1) is not None  # the update ran
        got_r, want_r = part.values_remove(cols), _refits_remove(part, cols)
        got_a, want_a = part.values_add(cols, rest), _refits_add(part, cols, rest)
        if criterion in ("resubstitution", "cv"):  # counts: the same integers
            assert np.array_equal(got_r, want_r) and np.array_equal(got_a, want_a)
        else:
            np.testing.assert_allclose(got_r, want_r, rtol=0, atol=1e-7)
            np.testing.assert_allclose(got_a, want_a, rtol=0, atol=1e-7)


def test_wide_step_by_hand_against_the_pseudo_inverse():
    # one candidate, the discriminant and its norm from numpy's SVD pseudo-inverse of the
    # centred data (independent of the Gram matrix's eigendecomposition)
    rng = np.random.default_rng(3)
    n, p = 14, 40
    y = np.arange(n) % 2
    X = rng.standard_normal((n, p))
    M, D, dof = centred_by_class(X, y, 2)
    mid, delta = (M[0] + M[1]) / 2, M[1] - M[0]
    cols = np.arange(30)
    for sign, J in ((-1, cols), (+1, np.arange(30, 40))):
        gram = wide_gram(D[:, cols], delta[cols], dof, PINV_RTOL, E=X[:, cols] - mid[cols])
        step = wide_step(gram, D[:, J], X[:, J] - mid[J], delta[J], sign)
        assert step.ok.all()
        for q, j in enumerate(J):
            sub = np.delete(cols, q) if sign < 0 else np.append(cols, j)
            Dp = np.linalg.pinv(D[:, sub], rcond=1e-10)
            a = dof * Dp @ (Dp.T @ delta[sub])       # S^+ delta, S = D^T D / dof
            want = (X[:, sub] - mid[sub]) @ a
            np.testing.assert_allclose(dof * step.projection[:, q], want, rtol=1e-9,
                                       atol=1e-9 * np.abs(want).max())
            assert dof * np.sqrt(step.norm2[q]) == pytest.approx(np.linalg.norm(a), rel=1e-9)


def test_rank_deficient_gram_is_refitted():
    # a repeated sample leaves G one short of rank n - g: no update, the refits decide
    rng, X, y = _problem(1)
    same = np.flatnonzero(y == y[0])
    X[same[1]] = X[same[0]]
    crit = make_criterion(X, y, estimator="lda", criterion="bolstered", random_state=0)
    part = crit.parts[0]
    cols = np.arange(X.shape[0] + 3)
    assert part._wide_values(cols, cols, -1) is None
    np.testing.assert_array_equal(part.values_remove(cols), _refits_remove(part, cols))


def test_a_feature_that_carries_a_direction_alone_is_refitted():
    # the other features span one dimension less than n - g (rank 13 of 14): removing
    # feature 0 drops G's rank, so it fails the eigenvalue bound and is refitted, while the
    # other candidates are updated
    rng = np.random.default_rng(5)
    n, p = 16, 40
    y = np.arange(n) % 2
    X = np.empty((n, p))
    X[:, 1:] = rng.standard_normal((n, 13)) @ rng.standard_normal((13, p - 1))
    X[:, 0] = rng.standard_normal(n)
    M, D, dof = centred_by_class(X, y, 2)
    E, delta = X - (M[0] + M[1]) / 2, M[1] - M[0]
    gram = wide_gram(D, delta, dof, PINV_RTOL, E=E)
    assert gram is not None
    step = wide_step(gram, D, E, delta, -1)
    assert not step.ok[0] and step.ok[1:].all()
    part = make_criterion(X, y, estimator="lda", criterion="bolstered",
                          random_state=0).parts[0]
    cols = np.arange(p)
    np.testing.assert_allclose(part.values_remove(cols), _refits_remove(part, cols),
                               rtol=0, atol=1e-7)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("criterion", CRITERIA)
def test_wide_steps_with_more_classes_equal_the_refits(seed, criterion):
    # three to five classes: the largest class score after each candidate's update, for the
    # evaluation points or the bolstering draws, gives the refits' values
    rng = np.random.default_rng(50 + seed)
    g = 3 + seed % 3
    n = int(rng.integers(5 * g, 40))
    p = int(rng.integers(n + 5, 2 * n + 10))
    X, y = _classes(rng, g, n, p)
    crit = make_criterion(X, y, estimator="lda", criterion=criterion, random_state=seed)
    k = int(rng.integers(n, p))
    cols = np.sort(rng.choice(p, k, replace=False))
    rest = np.setdiff1d(np.arange(p), cols)
    for part in crit.parts:
        if np.unique(part.ct).size < g:
            assert part._wide_values(cols, cols, -1) is None  # a fold without a class
        else:
            assert part._wide_values(cols, cols, -1) is not None  # the update ran
        got_r, want_r = part.values_remove(cols), _refits_remove(part, cols)
        got_a, want_a = part.values_add(cols, rest), _refits_add(part, cols, rest)
        np.testing.assert_allclose(got_r, want_r, rtol=0, atol=1e-9)
        np.testing.assert_allclose(got_a, want_a, rtol=0, atol=1e-9)


def test_a_class_missing_from_the_training_points_is_refitted():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((18, 40))
    y = np.arange(18) % 3
    part = make_criterion(X, y, estimator="lda", criterion="resubstitution").parts[0]
    part.ct = np.where(part.ct == 2, 0, part.ct)  # class 2 absent from the design
    cols = np.arange(30)
    assert part._wide_values_classes(cols, cols, -1) is None


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("criterion", ["bolstered", "semi-bolstered", "resubstitution"])
@pytest.mark.parametrize("g", [2, 3])
def test_backward_searches_take_the_refits_path(seed, criterion, g, monkeypatch):
    # SBS and the backward RSA from all features of a wide problem: the same moves and
    # subsets with the updates as with a refit of every wide subset
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(14, 26))
    y = np.arange(n) % g
    X = rng.standard_normal((n, int(rng.integers(2 * n, 3 * n))))
    for c in range(1, g):
        X[y == c, 4 * (c - 1): 4 * c] += 0.8
    runs = {}
    for mode in ("updates", "refits"):
        if mode == "refits":
            monkeypatch.setattr(LDAPart, "_wide_values", lambda self, cols, J, sign: None)
        runs[mode] = [search(make_criterion(X, y, estimator="lda", criterion=criterion,
                                            random_state=seed), 4)
                      for search in (sbs, rsa_backward)]
    for new, old in zip(runs["updates"], runs["refits"], strict=True):
        assert new.moves == old.moves and np.array_equal(new.subset, old.subset)
        np.testing.assert_allclose(new.errors, old.errors, rtol=0, atol=1e-9)


def test_shrinking_distances_follow_a_backward_path():
    # the per-class distances of a backward path by subtraction (and a recomputation every
    # SHRINK_REFRESH removed features) equal the distances computed from the features
    from stablefs.selectors.wrappers import _bolstering_widths as bw

    rng = np.random.default_rng(4)
    X = rng.standard_normal((20, 200)) * rng.uniform(0.1, 10.0, 200)
    y = np.arange(20) % 2
    part = make_criterion(X, y, estimator="lda", criterion="bolstered").parts[0]
    cols = np.arange(200)
    refreshed = 0
    while cols.size > 10:
        drop = rng.choice(cols.size, size=int(rng.integers(1, 4)), replace=False)
        cols = np.delete(cols, drop)
        got = part._class_sq_shrinking(cols)
        refreshed += part._shrink_memo[2] == 0
        for g, w in zip(got, part._class_sq(cols), strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-12)
        assert np.isinf(np.diag(got[0])).all()
    assert refreshed >= 190 // bw.SHRINK_REFRESH  # the recomputations happened
    reordered = cols[::-1].copy()  # the same features, not fewer: recomputed
    part._class_sq_shrinking(reordered)
    assert part._shrink_memo[2] == 0


def _multiclass(seed, n_features):
    rng = np.random.default_rng(200 + seed)
    g = 3 + seed % 2
    return (rng, *_classes(rng, g, int(rng.integers(6 * g, 40)), n_features))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("criterion", ["bolstered", "semi-bolstered"])
def test_monte_carlo_bolstering_with_more_classes_is_updated(seed, criterion):
    # below n - g features, more than two classes: the forward and backward steps of LDA's
    # Monte-Carlo (semi-)bolstering by the inverse's updates equal the refits, from the
    # empty subset on
    rng, X, y = _multiclass(seed, 12)
    part = make_criterion(X, y, estimator="lda", criterion=criterion,
                          random_state=seed).parts[0]
    assert part.fast
    for k in (0, 1, 3, 7):
        cols = np.sort(rng.choice(12, k, replace=False))
        rest = np.setdiff1d(np.arange(12), cols)
        np.testing.assert_allclose(part.values_add(cols, rest), _refits_add(part, cols, rest),
                                   rtol=0, atol=1e-9)
        if k >= 2:
            np.testing.assert_allclose(part.values_remove(cols), _refits_remove(part, cols),
                                       rtol=0, atol=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_searches_with_more_classes_take_the_refits_path(seed, monkeypatch):
    # SFS, SFFS and SBS with Monte-Carlo bolstered LDA on three or four classes, from a wide
    # start for SBS: the same moves as refitting every subset
    from stablefs.selectors.wrappers import sffs, sfs

    _, X, y = _multiclass(seed, 45)
    runs = {}
    for mode in ("updates", "refits"):
        if mode == "refits":
            monkeypatch.setattr(LDAPart, "_wide_values", lambda self, cols, J, sign: None)
            monkeypatch.setattr(LDAPart, "_base", lambda self, cols: None)
        runs[mode] = [search(make_criterion(X, y, estimator="lda", criterion="bolstered",
                                            random_state=seed), 5)
                      for search in (sfs, sffs, sbs)]
    for new, old in zip(runs["updates"], runs["refits"], strict=True):
        assert new.moves == old.moves and np.array_equal(new.subset, old.subset)
        np.testing.assert_allclose(new.errors, old.errors, rtol=0, atol=1e-9)


@pytest.mark.parametrize("g", [2, 3])
@pytest.mark.parametrize("criterion", ["bolstered", "resubstitution"])
def test_wide_steps_in_small_chunks(g, criterion, monkeypatch):
    # the candidates (and, for the draws, the features) a few at a time: the same values
    from stablefs.selectors.wrappers import _lda_criterion

    monkeypatch.setattr(_lda_criterion, "CHUNK_ELEMENTS", 700)
    rng = np.random.default_rng(9)
    n = 24
    y = np.arange(n) % g
    X = rng.standard_normal((n, 70))
    X[y == 1, :3] += 1.0
    part = make_criterion(X, y, estimator="lda", criterion=criterion,
                          random_state=1).parts[0]
    cols = np.arange(0, 70, 2)[:30]
    rest = np.setdiff1d(np.arange(70), cols)
    np.testing.assert_allclose(part.values_remove(cols), _refits_remove(part, cols),
                               rtol=0, atol=1e-9)
    np.testing.assert_allclose(part.values_add(cols, rest), _refits_add(part, cols, rest),
                               rtol=0, atol=1e-9)
