"""SVM-RFE: every iteration against scikit-learn's SVC(kernel="linear"), the schedules of
Han 2012 / Yu et al. 2008, instance weights (Han 2012 eq. 5.2), a plain SVC loop on Colon, the
Gram downdate on Lung, method strings, ensembles and the bias-variance path (eqs. 3.1-3.4)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.svm import SVC

from stablefs import StablefsError
from stablefs._validation import rank_from_scores
from stablefs.methods import make_selector
from stablefs.selectors import SVMRFE
from stablefs.selectors.svm_rfe import rfe_schedule, svm_rfe_path
from stablefs.stabilizers import Ensemble, MarginInstanceWeighting

#: |w - w_SVC| <= RTOL * max|w_SVC| at every iteration: both are libsvm's SMO on the same
#: problem and the same stopping rule; they differ only by round-off in the kernel entries
RTOL = 1e-8


# --------------------------------------------------------------------------------------------
# data and references


def _data(seed, n=40, p=60, n_classes=2, informative=6):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    X = rng.normal(size=(n, p)) * rng.uniform(0.5, 20, size=p) + rng.normal(size=p) * 5
    X[:, :informative] += 1.5 * y[:, None] * rng.uniform(0.5, 2, size=informative)
    return X, y


def _minmax(X):
    """Weka SMO's normalisation, written out: (x - min) / (max - min), constant -> 0."""
    out = np.zeros_like(X, dtype=float)
    for j in range(X.shape[1]):
        lo, hi = X[:, j].min(), X[:, j].max()
        if hi > lo:
            out[:, j] = (X[:, j] - lo) / (hi - lo)
    return out


def _svc_coef(Xs, y, v, C=1.0, tol=1e-3):
    """SVC(kernel="linear") weights: one binary problem, or one per class against the rest."""
    classes = np.unique(y)
    problems = [y] if classes.size == 2 else [(y == c).astype(int) for c in classes]
    rows, icpt = [], []
    for t in problems:
        svc = SVC(kernel="linear", C=C, tol=tol).fit(Xs, t, sample_weight=v)
        rows.append(svc.coef_[0])
        icpt.append(svc.intercept_[0])
    return np.array(rows), np.array(icpt)


def _mean_one(w):
    return None if w is None else w * (np.count_nonzero(w) / w.sum())


def _plain_svc_loop(X, y, step, k, tol=1e-3, scale=True):
    """SVM-RFE as a plain loop over SVC(kernel="linear") on the remaining columns."""
    Xs = _minmax(X) if scale else np.asarray(X, dtype=float)
    p = X.shape[1]
    schedule = rfe_schedule(p, step, k)
    remaining = list(range(p))
    ranking = np.zeros(p, dtype=int)
    stage = None
    for t, m in enumerate(schedule):
        assert len(remaining) == m
        if m == k:
            stage = sorted(remaining)
        if t + 1 == len(schedule):
            ranking[remaining[0]] = 1
            break
        coef, _ = _svc_coef(Xs[:, remaining], y, None, tol=tol)
        imp = (coef**2).sum(axis=0)
        # worst first: smallest w^2, then the higher feature index
        order = sorted(range(m), key=lambda i: (imp[i], -remaining[i]))
        n_out = m - schedule[t + 1]
        for r, i in enumerate(order[:n_out]):
            ranking[remaining[i]] = m - r
        gone = {remaining[i] for i in order[:n_out]}
        remaining = [j for j in remaining if j not in gone]
    return ranking, stage


# --------------------------------------------------------------------------------------------
# schedules


def test_schedule_matches_han2012_sec62():
    """Han 2012 sec. 6.2: from 1000 features, 48 remain at iteration 28 and 10 at 40."""
    for k in (1, 10):
        s = rfe_schedule(1000, 0.1, k)
        assert s[28] == 48 and s[40] == 10
    # the path the spec writes out (reproduction-targets sec. 1.2)
    head = [1000, 900, 810, 729, 656, 590, 531, 477, 429, 386, 347, 312, 280, 252, 226, 203,
            182, 163, 146, 131, 117, 105, 94, 84, 75, 67, 60, 54, 48, 43, 38, 34, 30, 27, 24,
            21, 18, 16, 14, 12, 10]
    s = rfe_schedule(1000, 0.1, 10)
    assert s[:41].tolist() == head
    assert s[41:].tolist() == list(range(9, 0, -1))


def test_schedule_never_jumps_over_k():
    s = rfe_schedule(1000, 0.1, 50).tolist()
    assert s[27:30] == [54, 50, 45]  # 54 - ceil(5.4) = 48 would cross 50: stop at 50
    assert s[-1] == 1


def test_schedule_halve_and_int():
    s = rfe_schedule(2000, "halve", 1).tolist()
    assert s[:7] == [2000, 1000, 500, 250, 125, 63, 50]
    assert s[6:] == list(range(50, 0, -1))
    assert rfe_schedule(20, 3, 7).tolist() == [20, 17, 14, 11, 8, 7, 4, 1]
    assert rfe_schedule(30, "halve", 1).tolist() == list(range(30, 0, -1))
    assert rfe_schedule(1, 0.1, 1).tolist() == [1]


@settings(max_examples=200, deadline=None)
@given(p=st.integers(1, 3000), step=st.sampled_from(["0.1", "0.05", "0.25", "0.5", "0.3", "0.37",
                                                     "0.123", "1", "2", "7", "halve"]),
       data=st.data())
def test_schedule_rule(p, step, data):
    """Each removal is the rule's, cut at k (above k) or at 1 (below k)."""
    k = data.draw(st.integers(1, p))
    value = step if step == "halve" else (int(step) if "." not in step else float(step))
    s = rfe_schedule(p, value, k).tolist()
    assert s[0] == p and s[-1] == 1 and k in s
    assert all(a > b for a, b in zip(s, s[1:]))
    for m, nxt in zip(s, s[1:]):
        if step == "halve":
            rule = m - max(50, math.ceil(m / 2)) if m > 50 else 1
        elif "." in step:
            rule = max(1, math.ceil(Fraction(step) * m))
        else:
            rule = int(step)
        assert nxt == max(m - rule, k if m > k else 1)


@pytest.mark.parametrize("step", [0, -1, 1.0, 1.5, 0.0, "half", None, True])
def test_bad_step(step):
    X, y = _data(0, p=10)
    with pytest.raises(StablefsError, match="step") as err:
        SVMRFE(step=step).fit(X, y)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(("param", "value"), [("C", 0), ("C", -1.0), ("C", float("inf")),
                                               ("tol", 0), ("scale", "std")])
def test_bad_parameters(param, value):
    X, y = _data(0, p=10)
    with pytest.raises(StablefsError, match=param):
        SVMRFE(**{param: value}).fit(X, y)


# --------------------------------------------------------------------------------------------
# every iteration equals SVC(kernel="linear")


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("step", [0.1, 4, "halve"])
def test_every_iteration_equals_linear_svc(n_classes, weighted, step):
    X, y = _data(1 + n_classes, n=45, p=70, n_classes=n_classes)
    rng = np.random.default_rng(7)
    w = rng.uniform(0.05, 3.0, size=y.size) if weighted else None
    Xs = _minmax(X)
    v = _mean_one(w)
    fits = list(svm_rfe_path(X, y, w, step=step, n_features_to_select=5))
    assert [f.remaining.size for f in fits] == rfe_schedule(70, step, 5).tolist()
    eliminated = []
    for f in fits:
        ref, ref_b = _svc_coef(Xs[:, f.remaining], y, v)
        scale = np.abs(ref).max()
        assert np.abs(f.coef - ref).max() <= RTOL * scale
        assert_allclose(f.intercept, ref_b, rtol=0, atol=RTOL * max(1.0, np.abs(ref_b).max()))
        # the features that leave are those with the smallest summed w^2
        imp = (f.coef**2).sum(axis=0)
        if f.eliminated.size:
            pos = np.searchsorted(f.remaining, f.eliminated)
            kept = np.setdiff1d(np.arange(f.remaining.size), pos)
            assert imp[pos].max() <= imp[kept].min()
            assert np.all(np.diff(imp[pos]) >= 0)  # worst first
        eliminated.extend(f.eliminated.tolist())
    assert sorted(eliminated + fits[-1].remaining.tolist()) == list(range(70))


def test_tighter_tolerance_also_equals_svc():
    X, y = _data(11, n=30, p=40)
    Xs = _minmax(X)
    for f in svm_rfe_path(X, y, step=0.2, tol=1e-8):
        ref, _ = _svc_coef(Xs[:, f.remaining], y, None, tol=1e-8)
        assert np.abs(f.coef - ref).max() <= RTOL * np.abs(ref).max()


def test_unscaled_equals_svc_on_raw_values():
    X, y = _data(12, n=30, p=25)
    X = X / 20.0
    for f in svm_rfe_path(X, y, step=3, scale=None):
        ref, _ = _svc_coef(X[:, f.remaining], y, None)
        assert np.abs(f.coef - ref).max() <= RTOL * np.abs(ref).max()


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("weighted", [False, True])
def test_duplicated_samples_share_gram_rows_and_equal_svc(n_classes, weighted):
    """A bootstrap sample (duplicated rows), plus one row repeated under another label: the
    Gram matrix is kept over the distinct rows, and every iteration still equals
    SVC(kernel="linear") trained on all the samples."""
    X0, y0 = _data(20 + n_classes, n=40, p=60, n_classes=n_classes)
    idx = np.random.default_rng(5).integers(0, 40, size=40)
    X, y = np.vstack([X0[idx], X0[idx[:1]]]), np.append(y0[idx], (y0[idx[0]] + 1) % n_classes)
    w = np.random.default_rng(6).uniform(0.2, 2.0, size=y.size) if weighted else None
    Xs, v = _minmax(X), _mean_one(w)
    for f in svm_rfe_path(X, y, w, step=0.1, n_features_to_select=3):
        assert f.lower_gram.shape[0] == np.unique(idx).size
        ref, ref_b = _svc_coef(Xs[:, f.remaining], y, v)
        assert np.abs(f.coef - ref).max() <= RTOL * np.abs(ref).max()
        assert_allclose(f.intercept, ref_b, rtol=0, atol=RTOL * max(1.0, np.abs(ref_b).max()))
        exact = Xs[:, f.remaining] @ Xs[:, f.remaining].T
        assert np.abs(f.gram - exact).max() <= 1e-12 * max(1.0, np.abs(exact).max())


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 30), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_distinct_rows(n, p, seed):
    from stablefs.selectors.svm_rfe import _distinct_rows

    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, p)).astype(float)  # many equal rows, equal keys
    rows, first = _distinct_rows(X)
    assert np.all(np.diff(first) > 0)
    for i in range(n):
        equal = [j for j in range(n) if np.array_equal(X[i], X[j])]
        assert first[rows[i]] == equal[0]


def test_gram_is_the_gram_of_the_remaining_features():
    X, y = _data(3, n=30, p=200)
    Xs = _minmax(X)
    for refresh in (None, 0.5):
        for f in svm_rfe_path(X, y, step=0.1, refresh=refresh):
            exact = Xs[:, f.remaining] @ Xs[:, f.remaining].T
            assert np.abs(f.gram - exact).max() <= 1e-12 * max(1.0, np.abs(exact).max())


def test_lung_gram_downdate_drift(shared_data):
    """Lung (181 x 12533), 10 % schedule to 1 feature: the maintained Gram matrix against the
    exact one at every iteration. Downdating alone drifts by at most a few eps of the *first*
    matrix's entries; recomputing at every halving keeps it within a few eps of the current."""
    frame = pd.read_csv(shared_data / "lung.csv.gz", dtype={"label": str})
    X = frame.drop(columns="label").to_numpy(dtype=float)
    y = frame["label"].to_numpy()
    Xs = np.ascontiguousarray(_minmax(X).T)
    eps = np.finfo(float).eps
    worst = {}
    single = {}
    for refresh in (None, 0.5, 0.25):
        rel, differ = [], 0
        for f in svm_rfe_path(X, y, step=0.1, refresh=refresh):
            sub = Xs[f.remaining]
            exact = sub.T @ sub
            rel.append(np.abs(f.gram - exact).max() / np.abs(exact).max())
            differ += np.count_nonzero(f.gram.astype(np.float32) != exact.astype(np.float32))
        worst[refresh], single[refresh] = max(rel), differ
    assert worst[0.5] <= 50 * eps
    assert worst[0.25] <= 100 * eps  # the default
    assert worst[None] <= 1e-9  # harmless even without the guard, but not eps-level
    # libsvm's Q is single precision: with the default no entry differs from the exact one's
    assert single[0.25] == 0


# --------------------------------------------------------------------------------------------
# the selector


def test_plain_svc_loop_on_colon(shared_data):
    """The full ranking and the 10-feature RFE stage equal a plain loop over
    SVC(kernel="linear") with the same schedule (Colon, 62 x 2000)."""
    frame = pd.read_csv(shared_data / "colon.csv.gz", dtype={"label": str})
    X = frame.drop(columns="label").to_numpy(dtype=float)
    y = frame["label"].to_numpy()
    rfe = SVMRFE(n_features_to_select=10).fit(X, y)
    ranking, stage = _plain_svc_loop(X, y, 0.1, 10)
    assert_array_equal(np.flatnonzero(rfe.support_), stage)
    assert_array_equal(rfe.ranking_, ranking)


def test_top_k_follows_the_elimination_order_to_the_end():
    """With n_features_to_select = 20 the ranking of the top 20 is the order in which they
    were eliminated below the 20-feature stage (Guyon et al. 2002: the ranking is the
    elimination order; Han 2012 sec. 5.2.1), not the order of the 20-feature SVM's weights:
    the plain SVC loop gives the same ranking, and on these data the two orders differ, so
    the test tells them apart."""
    X, y = _data(3, n=50, p=80)
    rfe = SVMRFE(n_features_to_select=20).fit(X, y)
    ranking, stage = _plain_svc_loop(X, y, 0.1, 20)
    assert_array_equal(rfe.ranking_, ranking)
    top = np.sort(np.flatnonzero(rfe.ranking_ <= 20))
    assert_array_equal(top, stage)
    coef, _ = _svc_coef(_minmax(X)[:, top], y, None)
    by_weight = top[np.lexsort((-top, -(coef**2).sum(axis=0)))]  # largest w^2 first
    by_elimination = top[np.argsort(rfe.ranking_[top])]
    assert not np.array_equal(by_weight, by_elimination)
    assert rfe.n_remaining_[-1] == 1  # the elimination went on to one feature


def test_plain_svc_loop_on_raw_prostate(shared_data):
    """The numerically hard case: Prostate's raw intensities (up to 17,530) without scaling,
    so the Gram entries reach 1e12 and libsvm's single-precision Q is sensitive to the
    downdate's round-off. The 10-feature stage still equals the plain SVC loop's (it did not
    when the Gram matrix was recomputed only at every sixteenth)."""
    frame = pd.read_csv(shared_data / "prostate.csv.gz", dtype={"label": str})
    X = frame.drop(columns="label").to_numpy(dtype=float)
    y = frame["label"].to_numpy()
    rfe = SVMRFE(n_features_to_select=10, scale=None).fit(X, y)
    _, stage = _plain_svc_loop(X, y, 0.1, 10, scale=False)
    assert_array_equal(np.flatnonzero(rfe.support_), stage)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_ranking_support_path(n_classes):
    X, y = _data(5, n=36, p=50, n_classes=n_classes)
    X[:, 7] = 3.0  # constant: weight 0, leaves first
    rfe = SVMRFE(n_features_to_select=8).fit(X, y)
    p = X.shape[1]
    assert sorted(rfe.ranking_) == list(range(1, p + 1))
    assert rfe.ranking_[7] == p
    assert_array_equal(rank_from_scores(rfe.scores_), rfe.ranking_)
    assert_array_equal(rfe.n_remaining_, rfe_schedule(p, 0.1, 8))
    fits = list(svm_rfe_path(X, y, step=0.1, n_features_to_select=8))
    stage = next(f for f in fits if f.remaining.size == 8)
    assert_array_equal(np.flatnonzero(rfe.support_), stage.remaining)
    path = rfe.weight_path_
    assert path.shape == (len(fits), p)
    assert_allclose(path.sum(axis=1), 1.0, atol=1e-12)
    for row, f in zip(path, fits):
        size = np.sqrt((f.coef**2).sum(axis=0))
        assert_allclose(row[f.remaining], size / size.sum(), rtol=1e-12)
        gone = np.setdiff1d(np.arange(p), f.remaining)
        assert np.all(row[gone] == 0)
        # the features still in are exactly the top m of the final ranking
        assert_array_equal(np.sort(np.flatnonzero(rfe.ranking_ <= f.remaining.size)),
                           f.remaining)


def test_default_size_keeps_the_pure_schedule():
    X, y = _data(4, n=30, p=120)
    rfe = SVMRFE().fit(X, y)
    assert_array_equal(rfe.n_remaining_, rfe_schedule(120, 0.1, 1))
    assert 60 not in rfe.n_remaining_.tolist()  # not bent towards the default size p / 2
    assert_array_equal(rfe.support_, rfe.ranking_ <= 60)
    assert_array_equal(SVMRFE(n_features_to_select=1).fit(X, y).ranking_, rfe.ranking_)


def test_equal_weights_are_plain_svm_rfe_exactly():
    X, y = _data(6, n=33, p=80)
    plain = SVMRFE(n_features_to_select=5).fit(X, y)
    for c in (1.0, 0.37, 1e-3, 250.0):
        weighted = SVMRFE(n_features_to_select=5).fit(X, y, sample_weight=np.full(y.size, c))
        assert_array_equal(weighted.ranking_, plain.ranking_)
        assert_array_equal(weighted.weight_path_, plain.weight_path_)


def test_weights_are_rescaled_to_mean_one():
    """Weights summing to 1 act like their n-fold (mean 1): C is not shrunk by 1/n."""
    X, y = _data(8, n=40, p=30)
    w = np.random.default_rng(1).uniform(0.1, 2, size=y.size)
    a = SVMRFE(step=2).fit(X, y, sample_weight=w / w.sum())
    b = SVMRFE(step=2).fit(X, y, sample_weight=w * 9.0)
    assert_array_equal(a.ranking_, b.ranking_)
    assert_allclose(a.weight_path_, b.weight_path_, rtol=1e-9, atol=1e-12)
    # and they do change the result
    c = SVMRFE(step=2).fit(X, y, sample_weight=np.r_[np.full(20, 0.01), np.ones(20)])
    assert not np.array_equal(c.ranking_, a.ranking_)


def test_zero_weight_is_removal():
    X, y = _data(9, n=40, p=30)
    X[0] = 1e3  # an outlier that would dominate the min-max scaling
    w = np.random.default_rng(2).uniform(0.5, 2, size=y.size)
    w[[0, 5]] = 0
    keep = w > 0
    a = SVMRFE(step=3).fit(X, y, sample_weight=w)
    b = SVMRFE(step=3).fit(X[keep], y[keep], sample_weight=w[keep])
    assert_array_equal(a.ranking_, b.ranking_)
    assert_array_equal(a.weight_path_, b.weight_path_)


def test_margin_instance_weighting_exposes_the_inner_path():
    X, y = _data(10, n=40, p=60)
    iw = MarginInstanceWeighting(SVMRFE(n_features_to_select=10), penalty="mean").fit(X, y)
    inner = iw.selector_
    direct = SVMRFE(n_features_to_select=10).fit(X, y, sample_weight=iw.instance_weights_)
    assert_array_equal(inner.weight_path_, direct.weight_path_)
    assert_array_equal(inner.n_remaining_, direct.n_remaining_)
    assert_array_equal(iw.ranking_, direct.ranking_)
    assert int(iw.support_.sum()) == 10


# --------------------------------------------------------------------------------------------
# method strings and ensembles


def test_method_strings():
    sel = make_selector("svm-rfe")
    assert isinstance(sel, SVMRFE) and sel.step == 0.1 and sel.C == 1.0
    assert make_selector("svm-rfe(step='halve')").step == "halve"
    iw = make_selector("iw-svm-rfe")
    assert isinstance(iw, MarginInstanceWeighting) and isinstance(iw.selector, SVMRFE)
    en = make_selector("en-svm-rfe")
    assert isinstance(en, Ensemble) and isinstance(en.selector, SVMRFE)
    assert (en.n_estimators, en.sampling, en.aggregate) == (20, "bootstrap", "rank")
    for prefix, agg in (("wen", "weight"), ("ren", "rank")):
        e = make_selector(f"{prefix}-svm-rfe")
        assert (e.sampling, e.aggregate) == ("subsample", agg)


def test_ensemble_does_not_depend_on_n_jobs():
    X, y = _data(13, n=40, p=120)
    runs = [Ensemble(SVMRFE(n_features_to_select=10), n_estimators=4, random_state=3,
                     n_jobs=j).fit(X, y) for j in (1, 2)]
    assert_array_equal(runs[0].member_rankings_, runs[1].member_rankings_)
    assert_array_equal(runs[0].ranking_, runs[1].ranking_)
    # each member is SVM-RFE on its bootstrap resample
    member = SVMRFE(n_features_to_select=10).fit(X[runs[0].resamples_[2]],
                                                 y[runs[0].resamples_[2]])
    assert_array_equal(runs[0].member_rankings_[2], member.ranking_)


# --------------------------------------------------------------------------------------------
# bias-variance along the path (Han 2012 eqs. 3.1-3.4, Fig. 6.1)


def test_bias_variance_path_hand_computed():
    from stablefs.evaluation.bias_variance import bias_variance_path

    # M = 2 training sets, 2 iterations, p = 2; r* = (1, 0)
    paths = np.array([[[0.5, 0.5], [1.0, 0.0]],
                      [[1.0, 0.0], [1.0, 0.0]]])
    out = bias_variance_path(paths, [1.0, 0.0])
    # iteration 0: feature 0 estimates 0.5, 1.0 -> error 0.125, bias 0.0625, var 0.0625;
    # feature 1 estimates 0.5, 0 -> error 0.125, bias 0.0625, var 0.0625
    assert_allclose(out["mean_error"], [0.125, 0.0])
    assert_allclose(out["mean_bias"], [0.0625, 0.0])
    assert_allclose(out["mean_variance"], [0.0625, 0.0])
    assert out["error"].shape == (2, 2)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 6), st.integers(1, 5), st.integers(1, 7), st.integers(0, 2**31))
def test_bias_variance_path_decomposes_exactly(M, T, p, seed):
    from stablefs.evaluation.bias_variance import bias_variance, bias_variance_path

    rng = np.random.default_rng(seed)
    paths = rng.dirichlet(np.ones(p), size=(M, T))
    r = rng.dirichlet(np.ones(p))
    out = bias_variance_path(list(paths), r)
    assert_allclose(out["mean_error"], out["mean_bias"] + out["mean_variance"], atol=1e-15)
    assert_allclose(out["error"], out["bias"] + out["variance"], atol=1e-15)
    for t in range(T):  # iteration t is bias_variance on the M rows of iteration t
        one = bias_variance(paths[:, t], r)
        assert out["mean_error"][t] == one["mean_error"]
        assert_array_equal(out["variance"][t], one["variance"])


def test_bias_variance_path_on_svm_rfe_paths():
    from stablefs.evaluation.bias_variance import bias_variance_path

    r = np.r_[np.full(5, 0.2), np.zeros(25)]
    paths = []
    for seed in range(4):
        X, y = _data(seed, n=30, p=30, informative=5)
        paths.append(SVMRFE(n_features_to_select=5).fit(X, y).weight_path_)
    out = bias_variance_path(paths, r)
    assert out["mean_error"].shape == (paths[0].shape[0],)
    assert_allclose(out["mean_error"], out["mean_bias"] + out["mean_variance"], atol=1e-15)
    # slow reference for one iteration, eqs. 3.1-3.3 with 1/M
    t = 3
    est = [paths[m][t] for m in range(4)]
    mean = sum(est) / 4
    err = sum((r - e) ** 2 for e in est) / 4
    assert_allclose(out["error"][t], err, atol=1e-15)
    assert_allclose(out["bias"][t], (r - mean) ** 2, atol=1e-15)


def test_bias_variance_path_refuses_ragged_paths():
    from stablefs.evaluation.bias_variance import bias_variance_path

    with pytest.raises(StablefsError, match="iteration"):
        bias_variance_path([np.ones((3, 4)) / 4, np.ones((2, 4)) / 4], np.ones(4) / 4)
    with pytest.raises(StablefsError):
        bias_variance_path(np.ones((2, 3, 4)), np.ones(5))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_compiled_dual_equals_svc_bit_for_bit(weighted, n_classes):
    """The compiled SMO gives SVC(kernel="precomputed")'s dual coefficients and intercept on
    the same kernel exactly: two classes, one-vs-rest targets, per-sample penalties."""
    from stablefs.selectors.svm_rfe import _duals, _solve

    for seed in range(8):
        X, y = _data(14 + seed, n=50, p=30, n_classes=n_classes)
        Xs = _minmax(X)
        K = Xs @ Xs.T
        rng = np.random.default_rng(seed)
        v = rng.uniform(0.2, 2, size=y.size) if weighted else None
        targets = [y] if n_classes == 2 else [(y == c).astype(np.int64) for c in range(3)]
        for C in (0.1, 1.0, 10.0):
            dual, intercept = _solve(K, _duals(targets, v, C, np.arange(y.size)), 1e-3)
            for row, t in enumerate(targets):
                svc = SVC(kernel="precomputed", C=C).fit(K, t, sample_weight=v)
                expected = np.zeros(y.size)
                expected[svc.support_] = svc.dual_coef_[0]
                assert_array_equal(dual[row], expected)
                assert intercept[row] == svc.intercept_[0]


def test_blas_threads_are_restored():
    from threadpoolctl import threadpool_info

    before = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    X, y = _data(16, n=30, p=40)
    path = svm_rfe_path(X, y, step=5)
    next(path)
    inside = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    path.close()
    SVMRFE(step=5).fit(X, y)
    after = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    assert all(t == 1 for t in inside)
    assert after == before


@pytest.mark.parametrize("scale", ["minmax", None])
@pytest.mark.parametrize(("bad", "word"), [(np.nan, "NaN"), (np.inf, "infinity"),
                                            (-np.inf, "infinity"), (1e200, "too large")])
@pytest.mark.parametrize("where", ["kept", "weight 0", "duplicated"])
def test_non_finite_x_is_one_clear_error(scale, bad, word, where):
    """fit skips scikit-learn's scan of X for SVM-RFE: the path finds NaN and infinity in
    the passes it makes anyway (the min-max ranges, the Gram matrix's diagonal); a value
    whose square overflows is also refused (without scaling; min-max scaling handles it
    unless the range overflows); a finite value in a sample of weight 0 is not used."""
    X, y = _data(3, n=30, p=20)
    w = np.ones(30)
    if where == "weight 0":
        w[4] = 0.0
    X[4, 7] = bad
    if bad == 1e200 and scale == "minmax":  # the range overflows
        X[4, 7], X[6, 7] = 1.5e308, -1.5e308
    if where == "duplicated":  # a bootstrap-like duplicate of the bad sample (one Gram row)
        X[5] = X[4]
    if bad == 1e200 and where == "weight 0":  # finite, in a sample the fit leaves out
        SVMRFE(n_features_to_select=5, scale=scale).fit(X, y, sample_weight=w)
        return
    with pytest.raises(StablefsError, match=word) as info:
        SVMRFE(n_features_to_select=5, scale=scale).fit(X, y, sample_weight=w)
    assert "\n" not in str(info.value)


def test_finite_large_values_are_fine_when_scaled():
    X, y = _data(4, n=30, p=20)
    X[:, 3] *= 1e200
    plain = SVMRFE(n_features_to_select=5).fit(X, y)
    X[:, 3] /= 1e200
    assert_array_equal(plain.ranking_, SVMRFE(n_features_to_select=5).fit(X, y).ranking_)


# --------------------------------------------------------------------------------------------
# n large against p: the kernel from the remaining columns instead of a maintained Gram matrix


def test_gram_from_columns_rule():
    """The Gram matrix (8 r^2 bytes) and Q (4 n^2) against twice the working copy (16 r p)."""
    from stablefs.selectors.svm_rfe import gram_from_columns

    assert gram_from_columns(5000, 5000, 2000)  # 300 MB > 160 MB
    assert not gram_from_columns(100, 100, 50_000)
    assert not gram_from_columns(62, 62, 2000)  # Colon
    assert not gram_from_columns(181, 181, 12_533)  # Lung
    # the edge without duplicates: 12 n^2 <= 16 n p, n <= 4p/3
    assert not gram_from_columns(1332, 1332, 999) and gram_from_columns(1333, 1333, 999)
    # a bootstrap: 63 distinct rows of 100 samples
    assert gram_from_columns(63, 100, 50) == (8 * 63**2 + 4 * 100**2 > 16 * 63 * 50)


@pytest.fixture
def from_columns(monkeypatch):
    import stablefs.selectors.svm_rfe as svm_rfe

    def use(value):
        monkeypatch.setattr(svm_rfe, "FROM_COLUMNS", value)
    return use


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("duplicated", [False, True])
def test_columns_path_equals_linear_svc(from_columns, n_classes, weighted, duplicated):
    """Every iteration of the path trained from the remaining columns equals
    SVC(kernel="linear") on those columns, as the Gram-matrix path does."""
    from_columns(True)
    X, y = _data(30 + n_classes, n=45, p=60, n_classes=n_classes)
    if duplicated:
        idx = np.random.default_rng(8).integers(0, 45, size=45)
        X, y = X[idx], y[idx]
    w = np.random.default_rng(9).uniform(0.1, 2.5, size=y.size) if weighted else None
    Xs, v = _minmax(X), _mean_one(w)
    fits = list(svm_rfe_path(X, y, w, step=0.1, n_features_to_select=4))
    assert [f.remaining.size for f in fits] == rfe_schedule(60, 0.1, 4).tolist()
    for f in fits:
        assert f.lower_gram is None and f.gram is None
        ref, ref_b = _svc_coef(Xs[:, f.remaining], y, v)
        assert np.abs(f.coef - ref).max() <= RTOL * np.abs(ref).max()
        assert_allclose(f.intercept, ref_b, rtol=0, atol=RTOL * max(1.0, np.abs(ref_b).max()))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("scale", ["minmax", None])
def test_columns_path_ranks_as_the_gram_path(from_columns, seed, scale):
    """The two paths solve the same duals on kernels that differ only by the downdate's
    round-off: the same rankings, weights within 1e-12 of the largest, on several seeds (with
    a bootstrap sample and instance weights on odd seeds), two and three classes."""
    n_classes = 2 + seed % 2
    X, y = _data(40 + seed, n=50 + 7 * seed, p=80, n_classes=n_classes)
    w = None
    if seed % 2:
        idx = np.random.default_rng(seed).integers(0, y.size, size=y.size)
        X, y = X[idx], y[idx]
        w = np.random.default_rng(seed + 1).uniform(0.2, 2.0, size=y.size)
    if scale is None:
        X = X / 20.0
    runs = {}
    for mode in (False, True):
        from_columns(mode)
        fits = list(svm_rfe_path(X, y, w, step=0.1, scale=scale))
        est = SVMRFE(scale=scale).fit(X, y, sample_weight=w)
        runs[mode] = fits, est.ranking_
    (gram_fits, gram_rank), (col_fits, col_rank) = runs[False], runs[True]
    assert_array_equal(col_rank, gram_rank)
    for a, b in zip(gram_fits, col_fits):
        assert_array_equal(a.remaining, b.remaining)
        assert np.abs(a.coef - b.coef).max() <= 1e-12 * np.abs(a.coef).max()
    # the first fit's kernel is the same matrix to the last bit (one BLAS product either way)
    assert_array_equal(gram_fits[0].coef, col_fits[0].coef)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_columns_path_in_small_blocks(from_columns, monkeypatch, n_classes):
    """Q assembled from blocks of a few Gram rows (as at n = 5000, where a block is 16 MB):
    the same rankings as the Gram-matrix path, weights within 1e-12."""
    import stablefs.selectors.svm_rfe as svm_rfe

    X, y = _data(60 + n_classes, n=70, p=50, n_classes=n_classes)
    from_columns(False)
    ref = list(svm_rfe_path(X, y, step=0.1))
    from_columns(True)
    monkeypatch.setattr(svm_rfe, "GRAM_BLOCK_BYTES", 8 * 70 * 6)  # blocks of 6 rows
    got = list(svm_rfe_path(X, y, step=0.1))
    for a, b in zip(ref, got):
        assert_array_equal(a.eliminated, b.eliminated)
        assert np.abs(a.coef - b.coef).max() <= 1e-12 * np.abs(a.coef).max()


def test_columns_path_plain_svc_loop(from_columns):
    """n > p (the columns path by the rule): the ranking of a plain SVC(kernel="linear")
    loop, and the same ranking as the Gram-matrix path."""
    from stablefs.selectors.svm_rfe import gram_from_columns

    X, y = _data(50, n=120, p=40)
    assert gram_from_columns(120, 120, 40)
    ranking, _ = _plain_svc_loop(X, y, 0.1, 1)
    assert_array_equal(SVMRFE().fit(X, y).ranking_, ranking)
    from_columns(False)
    assert_array_equal(SVMRFE().fit(X, y).ranking_, ranking)


def test_columns_path_fill_q_block_equals_the_full_q():
    """Q built a block of Gram rows at a time equals the single-precision Q the solver builds
    from the whole lower triangle (duplicated rows, two signs), bit for bit."""
    from stablefs.selectors._smo import fill_q_block

    rng = np.random.default_rng(3)
    A = rng.normal(size=(30, 9))
    K = A.T @ A
    order = np.array([4, 0, 8, 8, 2, 5, 1, 7, 3, 6, 0])
    sign = np.where(rng.random(order.size) < 0.5, 1, -1).astype(np.int64)
    Q = np.zeros((order.size, order.size), dtype=np.float32)
    QD = np.zeros(order.size)
    for r0 in range(0, 9, 4):
        r1 = min(9, r0 + 4)
        fill_q_block(np.ascontiguousarray(K[r0:r1, :r1]), r0, order, sign, Q, QD)
    low = np.tril(K) + np.tril(K, -1).T  # the lower triangle's values on both sides
    ref = (sign[:, None] * sign[None, :] * low[np.ix_(order, order)]).astype(np.float32)
    assert_array_equal(Q, ref)
    assert_array_equal(QD, np.diagonal(K)[order])


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e200])
def test_columns_path_non_finite_is_one_clear_error(from_columns, bad):
    from_columns(True)
    X, y = _data(3, n=30, p=20)
    X[4, 7] = bad
    with pytest.raises(StablefsError, match="NaN|infinity|too large"):
        SVMRFE(scale=None).fit(X, y)
