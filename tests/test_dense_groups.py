"""DGF, DRAGS and KMeansGroups (Yu, Ding and Loscalzo 2008, Algs. 1-2 and sec. 6.1).

The central check is a slow, obviously correct DGF written here with Python loops over explicit
differences (no Gram tricks, no blocks, no shortcuts), compared with the vectorised one on
small data: same bandwidth, same peaks, same groups in the same order.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import pearsonr
from sklearn.cluster import MeanShift
from sklearn.feature_selection import f_classif

from stablefs import make_selector
from stablefs._errors import StablefsError
from stablefs.selectors import DGF, DRAGS, KMeansGroups, TTest
from stablefs.selectors.dense_groups import dense_feature_groups, mean_shift, merge_peaks

# ---------------------------------------------------------------------------- reference


def ref_standardise(X):
    """Features as rows, each standardised with the population sd (Yu et al. 2008, sec. 6.1)."""
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    return Z.T.copy()


def ref_knn_mean(point, F, K):
    """Mean distance of ``point`` to its K nearest rows of F (a row equal to it counts)."""
    dist = sorted(float(np.linalg.norm(point - f)) for f in F)
    return sum(dist[:K]) / K


def ref_weights(y, F, h, kernel, truncate):
    out = []
    for f in F:
        u = float(np.linalg.norm(y - f)) / h
        if kernel == "flat":
            out.append(1.0 if u <= 1.0 else 0.0)
        elif truncate is None or u <= truncate:
            out.append(float(np.exp(-u * u / 2)))
        else:
            out.append(0.0)
    return np.array(out)


def ref_dgf(X, K=5, kernel="flat", truncate=1.0, tol=1e-3, max_iter=300, drop_sparse=True,
            self_neighbor=True):
    """Alg. 1 of Yu, Ding and Loscalzo (2008), literally, one feature at a time."""
    F = ref_standardise(X)
    p = F.shape[0]
    # h: mean over features of the mean distance to the K nearest (the feature itself first,
    # or only the other features)
    if self_neighbor:
        h = sum(ref_knn_mean(F[i], F, K) for i in range(p)) / p
    else:
        h = sum(ref_knn_mean(F[i], np.delete(F, i, axis=0), K) for i in range(p)) / p
    modes = []
    for i in range(p):
        y = F[i].copy()
        for _ in range(max_iter):
            w = ref_weights(y, F, h, kernel, truncate)
            if w.sum() == 0:
                break
            new = (w[:, None] * F).sum(axis=0) / w.sum()
            moved = float(np.linalg.norm(new - y))
            y = new
            if moved <= tol * h:
                break
        modes.append(y)
    peaks = []
    for y in modes:  # merge with the closest existing peak if closer than h
        if peaks:
            d = [float(np.linalg.norm(y - q)) for q in peaks]
            if min(d) < h:
                continue
        peaks.append(y)
    groups, dens, kept_peaks = [], [], []
    for q in peaks:
        members = [i for i in range(p) if np.linalg.norm(q - F[i]) < h]
        if not members:
            continue
        near = F if self_neighbor else F[np.linalg.norm(F - q, axis=1) > tol * h]
        if drop_sparse and ref_knn_mean(q, near, K) > h:
            continue
        groups.append(members)  # ascending index (equidistant members make order fragile)
        dens.append(ref_weights(q, F, h, kernel, truncate).sum() / p)
        kept_peaks.append(q)
    order = sorted(range(len(groups)), key=lambda r: (-dens[r], r))
    return (h, [groups[r] for r in order], [kept_peaks[r] for r in order],
            [dens[r] for r in order], len(peaks))


def planted(n_samples=30, sizes=(8, 6, 5), n_noise=12, noise=0.3, seed=0):
    """Blocks of correlated features (block b = columns of label b) plus independent ones."""
    rng = np.random.default_rng(seed)
    cols, labels = [], []
    for b, s in enumerate(sizes):
        base = rng.normal(size=(n_samples, 1))
        cols.append(base + noise * rng.normal(size=(n_samples, s)))
        labels += [b] * s
    cols.append(rng.normal(size=(n_samples, n_noise)))
    labels += [-1] * n_noise
    X = np.hstack(cols)
    perm = rng.permutation(X.shape[1])
    return X[:, perm], np.asarray(labels)[perm]


# ---------------------------------------------------------------------------- DGF vs reference


@pytest.mark.parametrize("kernel,truncate", [("flat", 1.0), ("gaussian", 1.0),
                                             ("gaussian", 1.5)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dgf_equals_slow_reference(kernel, truncate, seed):
    X, _ = planted(n_samples=20, sizes=(6, 5, 3), n_noise=14, noise=0.5, seed=seed)
    h, groups, peaks, dens, n_peaks = ref_dgf(X, kernel=kernel, truncate=truncate)
    res = dense_feature_groups(X, kernel=kernel, truncate=truncate)
    assert res.bandwidth == pytest.approx(h, rel=1e-12)
    assert res.n_peaks == n_peaks
    assert [sorted(g.tolist()) for g in res.groups] == groups
    np.testing.assert_allclose(res.peaks, np.array(peaks).reshape(res.peaks.shape), atol=1e-9)
    np.testing.assert_allclose(res.density, dens, rtol=1e-9)


@pytest.mark.parametrize("seed", [0, 1])
def test_dgf_equals_reference_when_a_feature_is_not_its_own_neighbour(seed):
    X, _ = planted(n_samples=20, sizes=(6, 5, 3), n_noise=14, noise=0.5, seed=seed)
    h, groups, peaks, _, n_peaks = ref_dgf(X, self_neighbor=False)
    res = dense_feature_groups(X, self_neighbor=False)
    assert res.bandwidth == pytest.approx(h, rel=1e-12)
    assert res.n_peaks == n_peaks
    assert [sorted(g.tolist()) for g in res.groups] == groups
    assert all(len(g) > 1 for g in groups)  # a lone feature never passes the density test


def test_dgf_equals_reference_without_dropping_and_on_noise():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(15, 25))  # no structure: many isolated features and small groups
    h, groups, _, _, n_peaks = ref_dgf(X, drop_sparse=False)
    res = dense_feature_groups(X, drop_sparse=False)
    assert res.bandwidth == pytest.approx(h, rel=1e-12)
    assert res.n_peaks == n_peaks
    assert [sorted(g.tolist()) for g in res.groups] == groups


def test_untruncated_gaussian_equals_reference():
    X, _ = planted(n_samples=15, sizes=(5, 4), n_noise=8, seed=3)
    h, groups, peaks, _, n_peaks = ref_dgf(X, kernel="gaussian", truncate=None)
    res = dense_feature_groups(X, kernel="gaussian", truncate=None)
    assert res.n_peaks == n_peaks
    assert [sorted(g.tolist()) for g in res.groups] == groups


def test_mean_shift_modes_match_scikit_learn_flat_kernel():
    """scikit-learn's MeanShift (flat kernel, same bandwidth and stopping rule) from the same
    seeds: each of its cluster centres is one of our stationary points."""
    X, _ = planted(n_samples=20, sizes=(8, 6), n_noise=10, seed=4)
    F = ref_standardise(X)
    h = dense_feature_groups(X).bandwidth
    modes, n_iter, _ = mean_shift(F, h, kernel="flat")
    ms = MeanShift(bandwidth=h, seeds=F, cluster_all=False).fit(F)
    for c in ms.cluster_centers_:
        assert np.min(np.linalg.norm(modes - c, axis=1)) < 1e-10
    assert n_iter.min() >= 1


def test_merge_peaks_sequential_rule_by_hand():
    # 1-D points, h = 1: 0 founds; 0.5 joins it; 1.2 is 1.2 from 0 -> new; 0.9 is closer to
    # 1.2 (0.3) than to 0 (0.9), both < 1: joins 1.2; 3 founds.
    modes = np.array([[0.0], [0.5], [1.2], [0.9], [3.0]])
    founders, assignment = merge_peaks(modes, 1.0)
    assert founders.tolist() == [0, 2, 4]
    assert assignment.tolist() == [0, 0, 1, 1, 2]


# ---------------------------------------------------------------------------- planted groups


@pytest.mark.parametrize("seed", range(4))
def test_planted_groups_are_recovered(seed):
    X, labels = planted(n_samples=40, sizes=(10, 7, 5, 4), n_noise=30, noise=0.3, seed=seed)
    dgf = DGF().fit(X)
    found = [set(map(int, g)) for g in dgf.groups_]
    for b in range(4):
        block = set(np.flatnonzero(labels == b).tolist())
        assert block in found, (b, found)
    # the largest block is the densest group
    assert found[0] == set(np.flatnonzero(labels == 0).tolist())


def test_groups_lie_within_bandwidth_of_their_peak_and_correlate():
    X, _ = planted(n_samples=30, sizes=(8, 6, 5), n_noise=20, seed=7)
    dgf = DGF().fit(X)
    F = ref_standardise(X)
    for g, q, rep in zip(dgf.groups_, dgf.peaks_, dgf.representatives_):
        dist = np.linalg.norm(F[g] - q, axis=1)
        assert np.all(dist < dgf.bandwidth_)
        assert np.all(np.diff(dist) >= -1e-12)  # closest to the peak first
        assert rep in g
    # members of one group are within 2h of each other: r > 1 - 2 h^2 / d
    d = X.shape[0]
    for g in dgf.groups_:
        if len(g) > 1:
            r = np.corrcoef(X[:, g].T)
            assert r.min() > 1 - 2 * dgf.bandwidth_**2 / d


def test_bandwidth_counts_the_feature_itself_as_first_neighbour():
    """The paper: "when K=1, the bandwidth will be zero"; with K=2, h is half the mean
    nearest-neighbour distance."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 9))
    F = ref_standardise(X)
    D = np.linalg.norm(F[:, None] - F[None], axis=2)
    np.fill_diagonal(D, np.inf)
    assert DGF(n_neighbors=2).fit(X).bandwidth_ == pytest.approx(D.min(axis=1).mean() / 2)


def test_result_does_not_depend_on_n_jobs_or_block_size(monkeypatch):
    X, _ = planted(n_samples=25, sizes=(8, 6, 5), n_noise=30, seed=2)
    a = dense_feature_groups(X, n_jobs=1)
    b = dense_feature_groups(X, n_jobs=2)
    import stablefs.selectors._feature_space as fs

    monkeypatch.setattr(fs, "BLOCK_BYTES", 8 * 3 * X.shape[1])  # blocks of one row
    c = dense_feature_groups(X, n_jobs=2)
    for other in (b, c):
        assert [g.tolist() for g in other.groups] == [g.tolist() for g in a.groups]
        np.testing.assert_array_equal(other.peaks, a.peaks)


def test_untruncated_gaussian_collapses_on_uncorrelated_features():
    """The reason the Gaussian kernel is truncated by default (module docstring)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 300))
    assert DGF(kernel="gaussian", truncate=None).fit(X).n_peaks_ == 1
    assert DGF(kernel="gaussian").fit(X).n_peaks_ > 100


# ---------------------------------------------------------------------------- invariances


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), scale=st.floats(0.1, 100.0),
       shift=st.floats(-100.0, 100.0))
def test_groups_do_not_depend_on_feature_scale_or_offset(seed, scale, shift):
    X, _ = planted(n_samples=20, sizes=(6, 4), n_noise=10, seed=seed)
    rng = np.random.default_rng(seed)
    Y = X * rng.uniform(0.5, 2.0, X.shape[1]) * scale + shift
    a, b = DGF().fit(X), DGF().fit(Y)
    assert [g.tolist() for g in a.groups_] == [g.tolist() for g in b.groups_]


def test_zero_weight_equals_removal_and_integer_weight_equals_repetition():
    X, _ = planted(n_samples=24, sizes=(7, 5, 4), n_noise=16, seed=9)
    w = np.ones(24)
    w[[2, 5]] = 0.0
    a = DGF().fit(X, sample_weight=w)
    b = DGF().fit(np.delete(X, [2, 5], axis=0))
    assert [g.tolist() for g in a.groups_] == [g.tolist() for g in b.groups_]
    w = np.ones(24)
    w[3] = 3.0
    c = DGF().fit(X, sample_weight=w)
    d = DGF().fit(np.vstack([X, X[[3, 3]]]))
    assert [g.tolist() for g in c.groups_] == [g.tolist() for g in d.groups_]
    assert c.bandwidth_ / d.bandwidth_ == pytest.approx(np.sqrt(24 / 26))


def test_constant_features_are_in_no_group_and_rank_last():
    X, _ = planted(n_samples=20, sizes=(6, 5), n_noise=8, seed=1)
    X = np.hstack([X, np.full((20, 2), 3.0)])
    dgf = DGF().fit(X)
    grouped = set(np.concatenate(dgf.groups_).tolist())
    p = X.shape[1]
    assert not grouped & {p - 2, p - 1}
    assert sorted(dgf.ranking_[[p - 2, p - 1]].tolist()) == [p - 1, p]


# ---------------------------------------------------------------------------- DGF as a selector


def test_dgf_ranking_support_and_scores():
    X, labels = planted(n_samples=30, sizes=(8, 6, 5), n_noise=20, seed=3)
    dgf = DGF(n_features_to_select=2).fit(X)
    p = X.shape[1]
    assert sorted(dgf.ranking_.tolist()) == list(range(1, p + 1))
    reps = dgf.representatives_
    assert dgf.ranking_[reps].tolist() == list(range(1, len(reps) + 1))
    assert np.flatnonzero(dgf.support_).tolist() == sorted(reps[:2].tolist())
    np.testing.assert_array_equal(dgf.scores_, p + 1 - dgf.ranking_)
    assert dgf.transform(X).shape == (30, 2)
    np.testing.assert_array_equal(dgf.group_scores_, np.sort(dgf.group_scores_)[::-1])
    # after the representatives: the other members, group by group
    nxt = [j for g in dgf.groups_ for j in g if j not in set(reps.tolist())]
    seen = []
    for j in nxt:
        if j not in seen:
            seen.append(j)
    assert dgf.ranking_[seen].tolist() == list(range(len(reps) + 1, len(reps) + len(seen) + 1))


def test_representative_has_highest_mean_correlation():
    X, _ = planted(n_samples=30, sizes=(9, 7), n_noise=10, noise=0.6, seed=11)
    dgf = DGF().fit(X)
    for g, rep in zip(dgf.groups_, dgf.representatives_):
        if len(g) < 2:
            continue
        r = np.corrcoef(X[:, g].T)
        mean_r = (r.sum(axis=1) - 1) / (len(g) - 1)
        best = g[np.flatnonzero(np.isclose(mean_r, mean_r.max(), rtol=0, atol=1e-12))].min()
        assert rep == best


def test_dgf_parameter_and_input_errors():
    X, _ = planted(seed=0)
    with pytest.raises(StablefsError, match="n_neighbors"):
        DGF(n_neighbors=1).fit(X)
    with pytest.raises(StablefsError, match="kernel"):
        DGF(kernel="epanechnikov").fit(X)
    with pytest.raises(StablefsError, match="at least 5 non-constant features"):
        DGF().fit(X[:, :4])
    with pytest.raises(StablefsError, match="bandwidth"):
        DGF().fit(np.repeat(X[:, :2], 5, axis=1))  # every feature has 4 exact duplicates


# ---------------------------------------------------------------------------- DRAGS


def relevant_blocks(seed=0, n=40):
    """Block 0 strongly relevant, block 1 weakly, block 2 not; plus noise."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    base = rng.normal(size=(n, 3))
    base[:, 0] += 2.5 * y
    base[:, 1] += 1.0 * y
    blocks = [base[:, [b]] + 0.3 * rng.normal(size=(n, s)) for b, s in enumerate((5, 6, 7))]
    X = np.hstack(blocks + [rng.normal(size=(n, 15))])
    labels = np.array([0] * 5 + [1] * 6 + [2] * 7 + [-1] * 15)
    return X, y, labels


def test_drags_ranks_groups_by_mean_f_statistic():
    X, y, labels = relevant_blocks()
    drags = DRAGS(n_features_to_select=2).fit(X, y)
    F, _ = f_classif(X, y)  # independent implementation of the F-statistic
    phi = [F[g].mean() for g in drags.groups_]
    np.testing.assert_allclose(drags.group_scores_, phi, rtol=1e-10)
    assert np.all(np.diff(drags.group_scores_) <= 0)
    assert set(drags.groups_[0].tolist()) == set(np.flatnonzero(labels == 0).tolist())
    assert set(drags.groups_[1].tolist()) == set(np.flatnonzero(labels == 1).tolist())
    # transform returns the two representatives; groups_ keeps every member
    Xt = drags.transform(X)
    np.testing.assert_array_equal(Xt, X[:, np.sort(drags.representatives_[:2])])
    assert drags.ranking_[drags.representatives_[:2]].tolist() == [1, 2]
    np.testing.assert_allclose(drags.feature_scores_, F, rtol=1e-10)


def test_drags_representative_by_pearson_correlation():
    X, y, _ = relevant_blocks(seed=3)
    drags = DRAGS().fit(X, y)
    for g, rep in zip(drags.groups_, drags.representatives_):
        if len(g) < 3:
            continue
        mean_r = [np.mean([pearsonr(X[:, a], X[:, b])[0] for b in g if b != a]) for a in g]
        assert rep == g[int(np.argmax(mean_r))]


def test_drags_relevance_option_and_errors():
    X, y, _ = relevant_blocks(seed=1)
    a = DRAGS(relevance=TTest()).fit(X, y)
    b = make_selector("drags(relevance='ttest')").fit(X, y)  # a method string inside one
    np.testing.assert_array_equal(a.ranking_, b.ranking_)
    with pytest.raises(StablefsError, match="make_selector"):
        DRAGS(relevance="ttest").fit(X, y)  # the selectors layer reads no method strings
    t = TTest().fit(X, y).scores_
    np.testing.assert_allclose(a.group_scores_, [t[g].mean() for g in a.groups_])
    from sklearn.linear_model import LogisticRegression

    with pytest.raises(StablefsError, match="scores_"):
        DRAGS(relevance=LogisticRegression()).fit(X, y)


def test_drags_warns_when_k_exceeds_groups():
    X, y, _ = relevant_blocks(seed=2)
    n_groups = len(DRAGS().fit(X, y).groups_)
    with pytest.warns(UserWarning, match=f"found {n_groups} groups, fewer than"):
        d = DRAGS(n_features_to_select=n_groups + 3).fit(X, y)
    assert d.support_.sum() == n_groups + 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DRAGS(n_features_to_select=n_groups).fit(X, y)


def test_drags_signature_lists_members_of_selected_groups():
    X, y, labels = relevant_blocks(seed=4)
    names = [f"g{j}" for j in range(X.shape[1])]
    drags = DRAGS(n_features_to_select=2).fit(X, y)
    sig = drags.signature(names)
    assert list(sig.columns) == ["group", "group_score", "group_size", "feature",
                                 "representative", "relevance", "rank"]
    assert sig["group"].unique().tolist() == [1, 2]
    assert len(sig) == len(drags.groups_[0]) + len(drags.groups_[1])
    reps = sig.loc[sig["representative"], "feature"].tolist()
    assert reps == [names[j] for j in drags.representatives_[:2]]
    assert (sig.groupby("group")["representative"].sum() == 1).all()
    with pytest.raises(StablefsError, match="feature names"):
        drags.signature(names[:-1])


def test_drags_default_selects_one_representative_per_group():
    X, y, _ = relevant_blocks(seed=5)
    d = DRAGS().fit(X, y)
    assert d.n_features_to_select_ == len(d.groups_)
    assert set(np.flatnonzero(d.support_).tolist()) == set(d.representatives_.tolist())


# ---------------------------------------------------------------------------- KMeansGroups


def test_kmeans_groups_recovers_blocks_and_ranks_by_representative():
    X, y, labels = relevant_blocks(seed=6)
    km = KMeansGroups(n_clusters=3, n_init=10, random_state=0,
                      n_features_to_select=2).fit(X[:, :18], y)
    found = [set(g.tolist()) for g in km.groups_]
    for b in range(3):
        assert set(np.flatnonzero(labels[:18] == b).tolist()) in found
    F, _ = f_classif(X[:, :18], y)
    np.testing.assert_allclose(km.group_scores_, F[km.representatives_])
    assert np.all(np.diff(km.group_scores_) <= 0)
    assert np.flatnonzero(km.support_).tolist() == sorted(km.representatives_[:2].tolist())


def test_kmeans_groups_keeps_lowest_wss_and_orders_members_by_centre():
    X, y, _ = relevant_blocks(seed=7)
    one = KMeansGroups(n_clusters=6, n_init=1, random_state=3).fit(X, y)
    many = KMeansGroups(n_clusters=6, n_init=20, random_state=3).fit(X, y)
    assert many.inertia_ <= one.inertia_ + 1e-9
    F = ref_standardise(X)
    wss = 0.0
    for g in many.groups_:
        centre = F[g].mean(axis=0)
        d = np.linalg.norm(F[g] - centre, axis=1)
        assert np.all(np.diff(d) >= -1e-9)
        wss += float((d**2).sum())
    assert wss == pytest.approx(many.inertia_, rel=1e-6)
    cen = KMeansGroups(n_clusters=6, n_init=20, random_state=3,
                       representative="centroid").fit(X, y)
    assert all(r == g[0] for g, r in zip(cen.groups_, cen.representatives_))


def test_kmeans_groups_errors():
    X, y, _ = relevant_blocks()
    with pytest.raises(StablefsError, match="n_clusters = 40"):
        KMeansGroups(n_clusters=40).fit(X, y)
    with pytest.raises(StablefsError, match="representative"):
        KMeansGroups(representative="medoid").fit(X, y)


# ---------------------------------------------------------------------------- real data


def test_colon_groups_and_drags(shared_data):
    from stablefs.datasets import load

    ds = load("colon")
    drags = DRAGS(n_features_to_select=10).fit(ds.X, ds.y)
    assert len(drags.groups_) >= 50
    assert drags.support_.sum() == 10
    F, _ = f_classif(ds.X, ds.y)
    np.testing.assert_allclose(drags.group_scores_[:10],
                               [F[g].mean() for g in drags.groups_[:10]], rtol=1e-9)
    # every member lies within h of its peak, in the training data's standardised space
    Z = ref_standardise(ds.X)
    dgf = DGF().fit(ds.X)
    for g, q in zip(dgf.groups_[:20], dgf.peaks_[:20]):
        assert np.all(np.linalg.norm(Z[g] - q, axis=1) < dgf.bandwidth_)


def test_take_rows_in_place_equals_fancy_indexing():
    from stablefs.selectors.dense_groups import _take_rows_in_place

    rng = np.random.default_rng(0)
    for _ in range(100):
        m = int(rng.integers(1, 30))
        A = rng.normal(size=(m, 3))
        idx = rng.permutation(m)[: int(rng.integers(0, m + 1))]
        expected = A[idx].copy()
        got = _take_rows_in_place(A, idx)
        assert np.shares_memory(got, A) or idx.size == 0
        np.testing.assert_array_equal(got, expected)
