"""Wrappers SFS, SBS, SFFS, RSA, SBG+: incremental criteria against refits, searches against slow
references and exhaustive search, mlxtend on the same criterion, and the illustrative problems
of Prat Masramon 2016 (corrAl, antiCorrAl; Table 6.1)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stablefs._errors import StablefsError
from stablefs.evaluation.error_estimators import (
    bolstered_error,
    cv_error,
    resubstitution_error,
    semi_bolstered_error,
    stratified_folds,
)
from stablefs.selectors import RSA, SBS, SFFS, SFS, SBGPlus
from stablefs.selectors.wrappers import Criterion, make_criterion, sbs, sffs, sfs
from stablefs.selectors.wrappers._criteria import RulePart
from stablefs.selectors.wrappers._search import pick_min


def _data(n0=15, n1=15, p=10, seed=0, shift=0.8, informative=3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n0 + n1, p))
    y = np.r_[np.zeros(n0, dtype=int), np.ones(n1, dtype=int)]
    X[y == 1, :informative] += shift
    return X, y


def _refit(crit: Criterion, cols) -> float:
    """The criterion by the plain definition: one refit per subset."""
    cols = np.asarray(cols, dtype=np.int64)
    return sum(RulePart.value(p, cols) for p in crit.parts) / crit.denominator


# ------------------------------------------------------------- incremental == refit


@pytest.mark.parametrize("estimator", ["lda", "3nn", "1nn"])
@pytest.mark.parametrize("criterion", ["bolstered", "semi-bolstered", "resubstitution", "cv"])
def test_incremental_steps_equal_refits(estimator, criterion):
    X, y = _data(13, 11, 9, seed=1)
    X[:, 8] = X[:, 2] * 2.0 - 1.0  # an exact linear copy: the bordered covariance is singular
    crit = make_criterion(X, y, estimator=estimator, criterion=criterion, cv="2x4",
                          random_state=3)
    for cols in ([], [4], [0, 2, 5], [0, 1, 2, 3, 4, 5]):
        cols = np.asarray(cols, dtype=np.int64)
        cands = np.setdiff1d(np.arange(9), cols)
        fast = crit.errors_add(cols, cands)
        slow = [_refit(crit, np.r_[cols, j]) for j in cands]
        np.testing.assert_allclose(fast, slow, atol=1e-12)
        if cols.size:
            fast = crit.errors_remove(cols)
            slow = [_refit(crit, np.delete(cols, i)) for i in range(cols.size)]
            np.testing.assert_allclose(fast, slow, atol=1e-12)


@pytest.mark.parametrize("estimator", ["lda", "3nn"])
def test_incremental_multiclass_cv_equals_refits(estimator):
    rng = np.random.default_rng(2)
    X = rng.standard_normal((36, 6))
    y = np.repeat([0, 1, 2], 12)
    X[:, 0] += y
    crit = make_criterion(X, y, estimator=estimator, criterion="cv", cv=4, random_state=0)
    cols = np.array([0, 3])
    cands = np.array([1, 2, 4, 5])
    np.testing.assert_allclose(crit.errors_add(cols, cands),
                               [_refit(crit, np.r_[cols, j]) for j in cands], atol=1e-12)
    np.testing.assert_allclose(crit.errors_remove(cols),
                               [_refit(crit, [3]), _refit(crit, [0])], atol=1e-12)


@pytest.mark.parametrize("estimator,criterion", [("lda", "bolstered"), ("lda", "semi-bolstered"),
                                                 ("svm", "bolstered"), ("svm", "semi-bolstered"),
                                                 ("3nn", "semi-bolstered")])
@pytest.mark.parametrize("sizes", [(13, 11), (30, 26), (4, 9)])
def test_forward_paths_equal_refits(estimator, criterion, sizes):
    # a run of forward steps reuses the previous step's class distance matrices (one feature
    # added); all candidates (every feature computed, then picked) and a few of them
    # (gathered); classes of 4 points are too small for the pruned width update
    X, y = _data(*sizes, 14, seed=sum(sizes))
    X[:, 13] = X[:, 5]                     # a duplicated feature: tied candidates
    X[3] = X[1]                            # a duplicated point: a zero nearest distance
    crit = make_criterion(X, y, estimator=estimator, criterion=criterion, random_state=4)
    cols: list[int] = []
    for j in (5, 0, 9, 2, 11):
        cands = np.setdiff1d(np.arange(14), cols)
        fast = crit.errors_add(cols, cands)
        slow = [_refit(crit, np.r_[cols, c].astype(np.int64)) for c in cands]
        np.testing.assert_allclose(fast, slow, atol=1e-12)
        few = cands[::4]
        np.testing.assert_allclose(crit.errors_add(cols, few), fast[::4], atol=1e-12)
        cols.append(j)
    fast = crit.errors_remove(cols)
    slow = [_refit(crit, np.delete(np.asarray(cols), i)) for i in range(len(cols))]
    np.testing.assert_allclose(fast, slow, atol=1e-12)


@pytest.mark.parametrize("criterion", ["bolstered", "semi-bolstered"])
def test_forward_steps_with_a_one_point_class_equal_refits(criterion):
    # a class of one training point has no nearest other point: its width is 0, so its terms
    # are indicators (the rarely taken branch of LDAPart._add_bolstered's width check)
    X, y = _data(1, 12, 8, seed=5)
    crit = make_criterion(X, y, estimator="lda", criterion=criterion, random_state=0)
    for cols in ([], [3], [3, 0, 6]):
        cols = np.asarray(cols, dtype=np.int64)
        for cands in (np.setdiff1d(np.arange(8), cols), np.setdiff1d(np.arange(8), cols)[:2]):
            np.testing.assert_allclose(crit.errors_add(cols, cands),
                                       [_refit(crit, np.r_[cols, j]) for j in cands],
                                       atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 6), st.booleans())
def test_width_update_equals_the_plain_nearest_neighbours(seed, k, rounded):
    # the pruned, gathered nearest-neighbour update of the kernel widths against _dhat's
    rng = np.random.default_rng(seed)
    n0, n1 = (int(v) for v in rng.integers(5, 30, size=2))
    X, y = _data(n0, n1, 20, seed=seed % 1000)
    if rounded:  # many exactly tied distances
        X = np.round(X)
    part = make_criterion(X, y, random_state=0).parts[0]
    cols = rng.choice(20, size=k, replace=False).astype(np.int64)
    cands = np.setdiff1d(np.arange(20), cols)
    Dc = part._class_sq(cols)
    ref = part._dhat(Dc, cands, +1.0, k + 1)
    np.testing.assert_allclose(part._dhat_add(cols, cands, k + 1), ref, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(part._dhat_add(cols, slice(None), k + 1)[:, cands], ref,
                               rtol=1e-13, atol=1e-15)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(0, 5), st.booleans())
def test_3nn_resubstitution_from_order_statistics_equals_the_vote(seed, k, rounded):
    # forward steps of the 3NN Monte-Carlo criteria count resubstitution errors from two
    # order statistics; rounded data make them tie (then the sorted vote decides)
    rng = np.random.default_rng(seed)
    n0, n1 = (int(v) for v in rng.integers(5, 25, size=2))
    X, y = _data(n0, n1, 12, seed=seed % 997)
    if rounded:
        X = np.round(X)
    part = make_criterion(X, y, estimator="3nn", criterion="semi-bolstered",
                          random_state=0).parts[0]
    cols = rng.choice(12, size=k, replace=False).astype(np.int64)
    cands = np.setdiff1d(np.arange(12), cols)
    counts, wrong = part._step_add(cols, cands)
    ref_counts, ref_wrong = part._count_values(part._dist(cols), cands, +1.0)
    assert np.array_equal(wrong, ref_wrong) and np.array_equal(counts, ref_counts)


@pytest.mark.parametrize("estimator", ["1nn", "3nn"])
@pytest.mark.parametrize("rounded", [False, True])
def test_vote_with_the_neighbour_axis_first_equals_the_partition(estimator, rounded, monkeypatch):
    # the running order statistics over a neighbour-first tensor against np.partition of
    # every row; rounded data and duplicated points (one pair across the classes) give equal
    # statistics (then the sorted vote decides)
    import stablefs.selectors.wrappers._knn_criterion as C

    X, y = _data(13, 12, 10, seed=41)
    if rounded:
        X = np.round(2 * X) / 2
    X[4] = X[2]
    X[6] = X[20]
    crit = make_criterion(X, y, estimator=estimator, criterion="semi-bolstered", random_state=2)
    part = crit.parts[0]
    checked = 0
    for cols in ([], [3], [3, 7, 1], [3, 7, 1, 0, 5]):
        cols = np.asarray(cols, dtype=np.int64)
        cands = np.setdiff1d(np.arange(10), cols)
        counts, wrong = part._step_add(cols, cands)
        ctx = part._mc_context(cols, cands, wrong)
        if ctx is None:  # a zero kernel width (duplicated values): the general path decides
            continue
        checked += 1
        ci, pts = np.arange(cands.size), np.arange(25)
        monkeypatch.setattr(C, "LFIRST", True)
        fast = part._mc_terms(ctx, ci, pts)
        monkeypatch.setattr(C, "LFIRST", False)
        slow = part._mc_terms(ctx, ci, pts)
        assert np.array_equal(fast, slow)
    assert checked >= 2


class _FullSteps:
    """A criterion without ``best_add``: every forward step evaluates every candidate."""

    def __init__(self, crit):
        self.crit = crit
        self.n_features = crit.n_features

    def __getattr__(self, name):
        if name == "best_add":
            raise AttributeError(name)
        return getattr(self.crit, name)


@pytest.mark.parametrize("criterion", ["semi-bolstered", "bolstered"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pruned_forward_steps_equal_full_steps(criterion, seed):
    # the Monte-Carlo criteria skip candidates whose partial sums exceed the best value seen;
    # the choice, its value and the tie count must be those of the full evaluation, and
    # whole searches must not change (duplicated features give exact ties)
    X, y = _data(14 + seed, 13, 16, seed=30 + seed, informative=4, shift=0.9)
    X[:, 15] = X[:, 2]
    X[:, 14] = X[:, 7]
    crit = make_criterion(X, y, estimator="3nn", criterion=criterion, random_state=seed)
    cols: list[int] = []
    for _ in range(5):
        cands = np.setdiff1d(np.arange(16), cols)
        i, value, ties = crit.best_add(cols, cands)
        full = crit.errors_add(cols, cands)
        assert (i, ties) == pick_min(full)
        assert value == pytest.approx(full[i], abs=1e-12)
        cols.append(int(cands[i]))
    for search in (lambda c: sfs(c, 6), lambda c: sffs(c, 6)):
        fast = search(make_criterion(X, y, estimator="3nn", criterion=criterion,
                                     random_state=seed))
        slow = search(_FullSteps(make_criterion(X, y, estimator="3nn", criterion=criterion,
                                                random_state=seed)))
        assert fast.moves == slow.moves and fast.ties == slow.ties
        np.testing.assert_allclose(fast.errors, slow.errors, atol=1e-12)
        assert fast.n_evaluations == slow.n_evaluations


def test_criteria_equal_the_public_estimators():
    X, y = _data(12, 12, 6, seed=4)
    cols = [0, 3, 5]
    assert make_criterion(X, y).error(cols) == pytest.approx(
        bolstered_error(X[:, cols], y, "lda"), abs=1e-14)
    assert make_criterion(X, y, estimator="svm").error(cols) == pytest.approx(
        bolstered_error(X[:, cols], y, "svm"), abs=1e-14)
    assert make_criterion(X, y, estimator="3nn", criterion="resubstitution").error(
        cols) == pytest.approx(resubstitution_error(X[:, cols], y, "3nn"))
    crit = make_criterion(X, y, estimator="3nn", criterion="semi-bolstered", random_state=1)
    noise = crit.parts[0].noise.get(cols)  # the criterion's common random numbers
    assert crit.error(cols) == pytest.approx(
        semi_bolstered_error(X[:, cols], y, "3nn", noise=noise), abs=1e-14)
    crit = make_criterion(X, y, estimator="lda", criterion="cv", cv=6, random_state=2)
    fold = stratified_folds(y, 6, np.random.default_rng(2))
    assert crit.error(cols) == pytest.approx(cv_error(X[:, cols], y, "lda", folds=fold))


def test_callable_criterion_is_used_as_is():
    X, y = _data(10, 10, 5, seed=5)
    calls = []

    def crit(Xs, ys):
        calls.append(Xs.shape[1])
        return float(np.abs(Xs.sum()))

    sel = SFS(2, criterion=crit).fit(X, y)
    # the empty set is never passed to a callable (its J is the majority-class error)
    assert sel.support_.sum() == 2 and min(calls) == 1
    with pytest.raises(StablefsError, match="finite error"):
        SFS(2, criterion=lambda Xs, ys: float("nan")).fit(X, y)


# ----------------------------------------------------------------- search algorithms


def _slow_sfs(X, y, d, error):
    chosen: list[int] = []
    for _ in range(d):
        rest = [j for j in range(X.shape[1]) if j not in chosen]
        vals = [error(X[:, chosen + [j]], y) for j in rest]
        chosen.append(rest[int(np.argmin(vals))])
    return chosen


def test_sfs_equals_a_slow_refit_sfs():
    X, y = _data(20, 20, 12, seed=6)
    sel = SFS(5, estimator="lda", criterion="bolstered").fit(X, y)
    ref = _slow_sfs(X, y, 5, lambda A, b: bolstered_error(A, b, "lda"))
    assert [m[1] for m in sel.path_moves_] == ref
    assert set(sel.get_support(indices=True)) == set(ref)
    assert list(np.argsort(sel.ranking_)[:5]) == ref
    # the recorded criterion values are the subsets' errors
    for subset, err in zip(sel.path_[1:], sel.path_errors_[1:]):
        assert err == pytest.approx(bolstered_error(X[:, subset], y, "lda"), abs=1e-12)


def test_svm_bolstered_sfs_equals_a_slow_refit_sfs():
    X, y = _data(12, 12, 6, seed=7)
    sel = SFS(3, estimator="svm", criterion="bolstered").fit(X, y)
    ref = _slow_sfs(X, y, 3, lambda A, b: bolstered_error(A, b, "svm"))
    assert [m[1] for m in sel.path_moves_] == ref


class _Table:
    """A criterion given by a table of subset values (default: a large value)."""

    def __init__(self, p, values, default=1.0):
        self.values = {frozenset(k): v for k, v in values.items()}
        self.default = default
        self.p = p

    def __call__(self, cols):
        return self.values.get(frozenset(int(c) for c in cols), self.default)

    def criterion(self):
        table = self

        class Part:
            def value(self, cols):
                return table(cols)

            def values_add(self, cols, cands):
                return np.array([table(list(cols) + [j]) for j in cands])

            def values_remove(self, cols):
                return np.array([table(np.delete(cols, i)) for i in range(len(cols))])

        return Criterion([Part()], 1.0, self.p, "table")


def test_sffs_finds_the_exhaustive_optimum_where_sfs_nests_wrongly():
    # {0} is the best single feature, SFS then builds {0,1}, {0,1,2}; but {1,2} is the best
    # pair and {1,2,3} the best triple (exhaustive search over all 3-subsets of 5 features)
    t = _Table(5, {(0,): 0.30, (1,): 0.35, (2,): 0.40, (3,): 0.45, (4,): 0.5,
                   (0, 1): 0.25, (0, 2): 0.28, (1, 2): 0.10,
                   (0, 1, 2): 0.20, (1, 2, 3): 0.05})
    d = 3
    exhaustive = min(itertools.combinations(range(5), d), key=lambda s: t(s))
    assert set(sfs(t.criterion(), d).subset) == {0, 1, 2}
    res = sffs(t.criterion(), d)
    assert set(res.subset) == set(exhaustive) == {1, 2, 3}
    assert ("remove", 0) in res.moves


def test_sffs_can_end_worse_than_sfs_and_the_guard_prevents_it():
    # SFS: {0}, {0,1}, {0,1,2}, {0,1,2,3} (0.15). Floating: at {0,1,2} the exclusion of 0
    # gives {1,2} (0.20 < 0.25), the next inclusion {1,2,4} (0.21 < 0.22), then {1,2,4,5}
    # (0.30): the floating search never returns to {0,1,2} and ends worse than SFS
    t = _Table(6, {(0,): 0.30, (1,): 0.35, (2,): 0.40, (3,): 0.5, (4,): 0.5, (5,): 0.5,
                   (0, 1): 0.25, (1, 2): 0.20, (0, 1, 2): 0.22, (1, 2, 4): 0.21,
                   (0, 1, 2, 3): 0.15, (1, 2, 4, 5): 0.30}, default=0.9)
    d = 4
    plain = sfs(t.criterion(), d)
    assert set(plain.subset) == {0, 1, 2, 3}
    floating = sffs(t.criterion(), d)
    assert set(floating.subset) == {1, 2, 4, 5}
    assert t(floating.subset) > t(plain.subset)
    guarded = sffs(t.criterion(), d, at_least_sfs=True)
    assert set(guarded.subset) == {0, 1, 2, 3}


@settings(max_examples=60, deadline=None)
@given(st.integers(4, 7), st.integers(0, 2**31 - 1), st.data())
def test_guarded_sffs_never_worse_than_sfs_and_never_better_than_exhaustive(p, seed, data):
    d = data.draw(st.integers(1, p - 1))
    rng = np.random.default_rng(seed)
    values = {}
    for k in range(p + 1):
        for s in itertools.combinations(range(p), k):
            values[s] = float(rng.random())
    t = _Table(p, values)
    plain = sfs(t.criterion(), d)
    guarded = sffs(t.criterion(), d, at_least_sfs=True)
    floating = sffs(t.criterion(), d)
    best = min(t(s) for s in itertools.combinations(range(p), d))
    assert len(guarded.subset) == len(floating.subset) == d
    assert best <= t(guarded.subset) <= t(plain.subset)
    assert t(guarded.subset) <= t(floating.subset)
    if d <= 2:  # no exclusion below 3 features: floating search is SFS
        assert set(floating.subset) == set(plain.subset)


def test_sbs_ranking_is_the_reverse_exclusion_order():
    X, y = _data(15, 15, 7, seed=8)
    sel = SBS(3).fit(X, y)
    removed = [f for kind, f in sel.path_moves_]
    assert len(removed) == 6 and all(kind == "remove" for kind, _ in sel.path_moves_)
    assert list(np.argsort(sel.ranking_)[1:]) == removed[::-1]
    assert set(sel.get_support(indices=True)) == set(sel.path_[4])  # the path's 3-subset
    res = sbs(make_criterion(X, y), 1)
    assert [int(f) for f in res.order] == list(np.argsort(sel.ranking_))


def test_ties_go_to_the_lowest_index_and_are_counted():
    X, y = _data(10, 10, 4, seed=9)
    X[:, 1] += 3.0 * y  # the clearly best feature, then two identical copies of it
    X = np.column_stack([X[:, 0], X[:, 1], X[:, 1], X[:, 1], X[:, 2:]])
    sel = SFS(1, criterion="resubstitution").fit(X, y)
    assert sel.path_moves_[0] == ("add", 1)
    assert sel.n_ties_[0] == 2


def test_default_size_is_the_best_subset_on_the_path():
    X, y = _data(15, 15, 8, seed=10)
    for cls in (SFS, SBS, SBGPlus):
        sel = cls(estimator="lda", criterion="bolstered").fit(X, y)
        errs = sel.path_errors_
        sizes = np.array([s.size for s in sel.path_])
        ok = sizes > 0
        best = np.min(errs[ok])
        assert sel.support_.sum() == min(sizes[ok][errs[ok] <= best])
    sel = SFFS(max_features=5).fit(X, y)
    size = min(sel.best_subsets_, key=lambda k: (sel.best_subsets_[k][0], k))
    assert set(sel.get_support(indices=True)) == set(sel.best_subsets_[size][1])


def test_ranking_is_a_permutation_and_support_its_top():
    X, y = _data(12, 12, 9, seed=11)
    for sel in (SFS(4), SFFS(4), RSA(4), RSA(4, direction="backward"), SBS(4), SBGPlus(4),
                SBGPlus(4, bookkeeping="printed")):
        sel.fit(X, y)
        assert sorted(sel.ranking_) == list(range(1, 10))
        assert np.array_equal(sel.support_, sel.ranking_ <= 4)
        assert sel.n_evaluations_ > 0 and len(sel.path_) == len(sel.path_errors_)


def test_monte_carlo_criteria_are_reproducible_with_random_state():
    X, y = _data(12, 12, 8, seed=12)
    a = SFS(3, estimator="3nn", criterion="semi-bolstered", random_state=5).fit(X, y)
    b = SFS(3, estimator="3nn", criterion="semi-bolstered", random_state=5).fit(X, y)
    assert np.array_equal(a.ranking_, b.ranking_)
    assert np.array_equal(a.path_errors_, b.path_errors_)


# --------------------------------------------------------------------------- mlxtend


def test_sfs_and_floating_search_equal_mlxtend_on_the_same_criterion():
    mlx = pytest.importorskip("mlxtend.feature_selection")
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    def scorer(est, Xs, ys):
        return -bolstered_error(Xs, ys, "lda")

    for seed in (0, 1):
        X, y = _data(20, 20, 12, seed=20 + seed, informative=5, shift=0.6)
        for floating in (False, True):
            ref = mlx.SequentialFeatureSelector(
                LinearDiscriminantAnalysis(), k_features=6, forward=True, floating=floating,
                scoring=scorer, cv=0).fit(X, y)
            ours = (SFFS(6, exclusion="mlxtend") if floating else SFS(6)).fit(X, y)
            assert set(ours.get_support(indices=True)) == set(ref.k_feature_idx_)
            assert -ref.k_score_ == pytest.approx(bolstered_error(
                X[:, ours.get_support()], y, "lda"), abs=1e-12)


# --------------------------------------------------- the thesis' illustrative problems


def _corral(reps=4, seed=0):
    """corrAl: A0, A1, B0, B1, I, C; class = (A0 and A1) or (B0 and B1); I irrelevant; C
    agrees with the class on 75 % of the rows (all 32 combinations, ``reps`` copies each)."""
    rng = np.random.default_rng(seed)
    base = np.array(list(itertools.product([0, 1], repeat=5)), dtype=float)
    X = np.repeat(base, reps, axis=0)
    y = ((X[:, 0] * X[:, 1] + X[:, 2] * X[:, 3]) > 0).astype(int)
    flip = np.zeros(y.size, dtype=bool)
    flip[rng.permutation(y.size)[: y.size // 4]] = True
    return np.column_stack([X, np.where(flip, 1 - y, y)]), y


def _anticorral(n=150, seed=0):
    """antiCorrAl: I1..I9 ~ N(Y, 1), C1 ~ N(Y, 0.5), C2 = C1 - Y + N(1, 0.2), Y in 1..3."""
    rng = np.random.default_rng(seed)
    Y = np.repeat([1, 2, 3], n // 3)
    eye = Y[:, None] + rng.standard_normal((Y.size, 9))
    c1 = Y + 0.5 * rng.standard_normal(Y.size)
    c2 = c1 - Y + rng.normal(1.0, 0.2, Y.size)
    return np.column_stack([eye, c1, c2]), Y


def _outer_halves(y, repeats=5):
    for r in range(repeats):
        fold = stratified_folds(y, 2, random_state=r)
        for h in (0, 1):
            yield r, fold == h


def test_corral_rsa_starts_relevant_and_finds_the_four_features():
    # Table 6.1: SFG picks C first and keeps 5 features; RSA-SFG starts with a relevant
    # feature and usually finds {A0, A1, B0, B1}; J = 1NN accuracy by inner 5x2 CV
    X, y = _corral()
    relevant = {0, 1, 2, 3}
    sfg_c_first = rsa_c_first = rsa_exact = sfg_exact = sbg_plus_exact = 0
    sfg_sizes, rsa_sizes = [], []
    for r, half in _outer_halves(y):
        kw = dict(estimator="1nn", criterion="cv", cv="5x2", random_state=r)
        sfg = SFS(**kw).fit(X[half], y[half])
        rsa = RSA(**kw).fit(X[half], y[half])
        plus = SBGPlus(**kw).fit(X[half], y[half])
        sfg_c_first += sfg.path_moves_[0][1] == 5
        rsa_c_first += rsa.path_moves_[0][1] == 5
        sfg_exact += set(sfg.get_support(indices=True)) == relevant
        rsa_exact += set(rsa.get_support(indices=True)) == relevant
        sbg_plus_exact += set(plus.get_support(indices=True)) == relevant
        sfg_sizes.append(sfg.support_.sum())
        rsa_sizes.append(rsa.support_.sum())
    assert sfg_c_first >= 3 and rsa_c_first == 0
    assert rsa_exact >= 7 and sfg_exact <= 2
    assert np.median(rsa_sizes) == 4 and np.median(sfg_sizes) == 5
    assert sbg_plus_exact >= 8  # SBG+ also keeps exactly the relevant features


def test_anticorral_sbg_drops_c2_early_and_rsa_keeps_c1_c2():
    # Table 6.1: SBG discards C2 early (median at iteration 3.5) and keeps 7 features; RSA
    # always selects C1 and C2 (2 features). Here the forward RSA of Alg. 6.1 does.
    X, y = _anticorral()
    c2_drop, rsa_pair = [], 0
    for r, half in _outer_halves(y, repeats=3):
        kw = dict(estimator="1nn", criterion="cv", cv="5x2", random_state=r)
        sbg = SBS(**kw).fit(X[half], y[half])
        rsa = RSA(**kw).fit(X[half], y[half])
        c2_drop.append([f for _, f in sbg.path_moves_].index(10))
        rsa_pair += set(rsa.get_support(indices=True)) == {9, 10}
    assert np.median(c2_drop) <= 5
    assert rsa_pair >= 5


# ----------------------------------------------------------------------------- errors


def test_bad_parameters_raise_one_line():
    X, y = _data(8, 8, 4)
    with pytest.raises(StablefsError) as info:
        SFS(2, criterion="holdout").fit(X, y)
    assert "criterion" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(StablefsError, match="cv = '5by2'"):
        SFS(2, criterion="cv", cv="5by2").fit(X, y)
    with pytest.raises(StablefsError, match="unknown classifier 'qda'"):
        SFS(2, estimator="qda").fit(X, y)
    with pytest.raises(StablefsError, match="k = 9 features"):
        SFS(9).fit(X, y)
    with pytest.raises(StablefsError):
        SBGPlus(2, bookkeeping="as-printed").fit(X, y)
    wide = np.random.default_rng(0).standard_normal((10, 2001))
    labels = np.arange(10) % 2
    with pytest.raises(StablefsError, match="pre-filter the features"):
        SBS(5).fit(wide, labels)
    with pytest.raises(StablefsError, match="set n_features_to_select"):
        SFS().fit(wide, labels)


def test_reproduce_wrapper_stability_tiny_configuration(tmp_path):
    import pandas as pd

    from stablefs.experiments import get_experiment, reproduce
    from stablefs.experiments._base import config_from

    exp = get_experiment("wrapper-stability")
    config = config_from(exp.quick_config(), {"datasets": ("anticorral",),
                                               "outer_repeats": 2})
    exp.check_config(config)
    summary = reproduce(exp, config, tmp_path / "run", seed=0, figures=False)
    table = pd.read_csv(tmp_path / "run" / "tables" / "wrappers.csv")
    assert set(table.method) == {"sfg", "rsa", "sbg", "rsa-b", "sbg+"}
    assert table.kuncheva_mean.between(-1, 1).all()
    assert "6.1b" in set(summary.claims.id)
    with pytest.raises(StablefsError, match="datasets = mnist"):
        exp.check_config(config_from(config, {"datasets": ("mnist",)}))


# ------------------------------------------------- wrapper-stability: data, stability tests


@pytest.mark.parametrize("n", [32, 64, 128, 256])
def test_corral_generator_size_and_the_c_bit(n):
    from stablefs.experiments.wrapper_stability.protocol import corral

    X, y = corral(n)
    assert X.shape == (n, 6) and y.shape == (n,)
    combos, counts = np.unique(X[:, :5], axis=0, return_counts=True)
    assert len(combos) == 32 and np.all(counts == n // 32)
    assert np.array_equal(y, ((X[:, 0] * X[:, 1] + X[:, 2] * X[:, 3]) > 0).astype(int))
    wrong = X[:, 5] != y
    assert wrong.sum() == n // 4  # C agrees with the class on exactly 75 % of the rows
    per = np.array([wrong[(X[:, :5] == c).all(axis=1)].sum() for c in combos])
    if n % 128 == 0:  # Kohavi's construction: the same number of wrong copies everywhere
        assert np.all(per == n // 128)
        X2, _ = corral(n, seed=5)
        assert np.array_equal(X, X2)  # no random draw
    else:
        assert set(per) == {0, 1} and per.sum() == n // 4


def test_corral_and_anticorral_sizes_are_checked():
    from stablefs.experiments import get_experiment
    from stablefs.experiments._base import config_from
    from stablefs.experiments.wrapper_stability.protocol import anticorral

    X, y = anticorral(300)
    assert X.shape == (300, 11) and np.array_equal(np.bincount(y), [100, 100, 100])
    exp = get_experiment("wrapper-stability")
    for key, value in (("corral_samples", 100), ("corral_samples", 16),
                       ("anticorral_samples", 151)):
        with pytest.raises(StablefsError, match=key):
            exp.check_config(config_from(exp.quick_config(), {key: value}))


def test_other_inducers_run_only_on_their_data_sets():
    from stablefs.experiments.wrapper_stability.protocol import WrapperStabilityConfig, _pairs

    c = WrapperStabilityConfig(datasets=("corral", "diabetes", "sonar"),
                               inducers=("1nn", "lda"), other_inducer_datasets=("diabetes",))
    assert _pairs(c) == [("corral", "1nn"), ("diabetes", "1nn"), ("diabetes", "lda"),
                         ("sonar", "1nn")]
    assert ("sonar", "lda") in _pairs(WrapperStabilityConfig())
    assert ("colon", "lda") not in _pairs(WrapperStabilityConfig())


def test_stability_is_resampled_over_outer_runs_on_a_hand_case():
    # three outer runs, p = 4: the baseline returns the same path every time (index 1 at
    # every k), the modified one ({0},{1},{2}; {0,1},{0,1},{2,3}; {0,1,2},{0,1,2},{0,2,3}):
    # Kuncheva -1/3, -1/3, 1/9 at k = 1, 2, 3 (thesis eq. 2.34), mean -5/27
    from stablefs.experiments.wrapper_stability.protocol import stability_over_runs

    base = np.array([[0, 1, 2, 3]] * 3)
    mod = np.array([[0, 1, 2, 3], [1, 0, 2, 3], [2, 3, 0, 1]])
    counts = np.array([[1.0, 1, 1], [2, 1, 0], [0, 2, 1], [3, 0, 0]])
    s0, s1, diff = stability_over_runs(base, mod, 4, [1, 2, 3], counts)
    assert s0 == pytest.approx(1.0) and s1 == pytest.approx(-5 / 27)
    assert diff[0] == pytest.approx(-32 / 27)
    # runs 1, 1, 2 drawn: only the two pairs (1, 2) count: -1/3, 1, 1 -> 5/9
    assert diff[1] == pytest.approx(5 / 9 - 1)
    # runs 2, 2, 3: pairs (2, 3): -1/3, -1, -1/3 -> -5/9
    assert diff[2] == pytest.approx(-5 / 9 - 1)
    assert np.isnan(diff[3])  # one run drawn three times: no pair of different runs


def _fake_runs(n_runs, p=6, seed=0):
    # one result per outer run: SBG's path is the same in every run, RSA's is random, RSA
    # errs 0.2 less everywhere
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_runs):
        r = {"genes": np.arange(p), "p": np.array(p)}
        for m in ("sfg", "rsa", "sbg", "rsa-b", "sbg+"):
            order = rng.permutation(p) if m == "rsa" else np.arange(p)
            r[f"{m}:order"] = order
            r[f"{m}:path_len"] = np.array(p)
            r[f"{m}:k"] = np.array(2)
            r[f"{m}:error"] = np.array(0.1 if m == "rsa" else 0.3)
            r[f"{m}:ties"] = np.array(0)
        out.append(r)
    return out


@pytest.mark.parametrize("repeats", [5, 2])
def test_comparisons_are_judged_over_the_outer_runs(repeats):
    from stablefs.experiments.wrapper_stability.protocol import (
        DATASETS,
        WrapperStabilityConfig,
        _Analysis,
    )

    config = WrapperStabilityConfig(datasets=("diabetes",), inducers=("1nn",),
                                    outer_repeats=repeats)
    keys = [(DATASETS.index("diabetes"), 0, r, h) for r in range(repeats) for h in (0, 1)]
    an = _Analysis(config, keys, _fake_runs(len(keys)), seed=0)
    row = an.comp[(an.comp.baseline == "sbg") & (an.comp.modified == "rsa")].iloc[0]
    assert row.runs == 2 * repeats
    assert row.stab_base == pytest.approx(1.0) and row.stab_mod < 0.5
    claims = {c.id: c for c in an.claims()}
    if repeats == 5:
        assert row.stab_class == "worse" and row.stab_gain_hi < -0.01
        assert row.error_class == "better" and row.error_gain == pytest.approx(0.2)
        assert claims["6.5-rsa"].verdict == "does not hold"  # less stable on the only row
        assert claims["6.4-rsa"].verdict == "holds"  # less stable than SFG, as Table 6.4
        assert "margin 0.01" in claims["6.5-rsa"].test
    else:  # 4 outer runs: below MIN_RUNS
        assert row.stab_class == "too few runs"
        assert claims["6.5-rsa"].verdict == "too few runs"
