"""Error estimators (Xiao, Hua and Dougherty 2007, App. B; bolstering of Braga-Neto and
Dougherty 2004): hand-computed cases, brute-force Monte Carlo, scikit-learn as the independent
implementation of the classification rules and of cross-validation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtr
from scipy.stats import chi
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import LeaveOneOut, PredefinedSplit, cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC

from stablefs._errors import StablefsError
from stablefs.evaluation.error_estimators import (
    bolstered_error,
    bolstering_widths,
    chi_median,
    cv_error,
    fit_lda,
    linear_svm,
    loo_error,
    make_rule,
    resubstitution_error,
    semi_bolstered_error,
    stratified_folds,
)


def _two_gaussians(n0=15, n1=15, p=3, shift=1.0, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n0 + n1, p))
    y = np.r_[np.zeros(n0, dtype=int), np.ones(n1, dtype=int)]
    X[y == 1] += shift
    return X, y


# ------------------------------------------------------------------------- linear SVM


@settings(max_examples=60, deadline=None)
@given(st.integers(4, 60), st.integers(1, 12), st.floats(0.05, 20.0), st.integers(0, 2**31 - 1))
def test_linear_svm_is_bit_for_bit_sklearns_svc(n, p, scale, seed):
    # the wrappers call libsvm directly (one fit per candidate subset); the solution must be
    # SVC(kernel="linear", C=1)'s exactly, including separable data and rounded (tied) values
    rng = np.random.default_rng(seed)
    X = scale * rng.standard_normal((n, p))
    y = (rng.random(n) < 0.5).astype(int)
    y[:2] = [0, 1]
    X[y == 1] += rng.uniform(0, 3)
    if seed % 3 == 0:
        X = np.round(X)
    svc = SVC(kernel="linear", C=1.0).fit(X, y)
    a, b = linear_svm(X, y)
    assert np.array_equal(a, svc.coef_[0]) and b == svc.intercept_[0]
    C = [0.01, 0.3, 7.0][seed % 3]
    svc = SVC(kernel="linear", C=C).fit(X, y)
    a, b = linear_svm(X, y, C)
    assert np.array_equal(a, svc.coef_[0]) and b == svc.intercept_[0]


def test_rule_penalty_is_validated_and_named():
    rule = make_rule("svm", C=0.1)
    assert rule.C == 0.1 and rule.name == "svm (C = 0.1)"
    assert make_rule("svm").C == 1.0 and make_rule("svm").name == "svm"
    assert make_rule(rule) is rule and make_rule(rule, C=0.1) is rule
    for bad in (0, -1.0, float("nan"), float("inf"), "1", True):
        with pytest.raises(StablefsError, match="penalty must be a positive number"):
            make_rule("svm", C=bad)
    with pytest.raises(StablefsError, match="linear SVM .'svm'. only"):
        make_rule("3nn", C=2.0)
    with pytest.raises(StablefsError, match="already has C = 0.1"):
        make_rule(rule, C=1.0)


# -------------------------------------------------------------------------- chi median


def test_chi_median_matches_scipy_and_published_constants():
    for p in (1, 2, 7, 10, 37):
        assert chi_median(p) == pytest.approx(chi(p).median(), rel=1e-12)
    # the constants of reproduction-targets.md sec. 5.5
    assert chi_median(1) == pytest.approx(0.67449, abs=1e-5)
    assert chi_median(2) == pytest.approx(1.17741, abs=1e-5)
    assert chi_median(7) == pytest.approx(2.51909, abs=1e-5)
    assert chi_median(10) == pytest.approx(3.05644, abs=1e-5)


def test_chi_median_is_the_median_norm_of_standard_normal_draws():
    rng = np.random.default_rng(1)
    norms = np.linalg.norm(rng.standard_normal((200_000, 5)), axis=1)
    assert np.mean(norms <= chi_median(5)) == pytest.approx(0.5, abs=0.004)


# ----------------------------------------------------------------------- kernel widths


def test_bolstering_widths_by_hand():
    # class 0 at 0, 1, 3: nearest others 1, 1, 2 -> mean 4/3; class 1 at 10, 14: 4, 4 -> 4
    X = np.array([[0.0], [1.0], [3.0], [10.0], [14.0]])
    y = np.array([0, 0, 0, 1, 1])
    a1 = 0.6744897501960817
    np.testing.assert_allclose(bolstering_widths(X, y),
                               [4 / 3 / a1] * 3 + [4 / a1] * 2, rtol=1e-12)


def test_bolstering_width_of_a_lone_point_is_zero():
    X = np.array([[0.0], [1.0], [5.0]])
    y = np.array([0, 0, 1])
    assert bolstering_widths(X, y)[2] == 0.0


# ---------------------------------------------------------------------------- LDA rule


def test_lda_rule_equals_sklearn_with_equal_classes():
    X, y = _two_gaussians(20, 20, 4, seed=3)
    fitted = fit_lda(X, y, 2)
    Z = np.random.default_rng(4).standard_normal((500, 4)) + 0.5
    ours = fitted.predict(Z)
    ref = LinearDiscriminantAnalysis(solver="lsqr").fit(X, y).predict(Z)
    assert np.array_equal(ours, ref)


def test_lda_boundary_in_closed_form_by_hand():
    # 1-D: class means -1 and 1, pooled variance 1, equal priors: boundary at 0, a > 0
    X = np.array([[-2.0], [0.0], [0.0], [2.0]])
    y = np.array([0, 0, 1, 1])
    a, b = fit_lda(X, y, 2).linear
    assert a[0] == pytest.approx(1.0)  # S = (1 + 1 + 1 + 1) / (4 - 2) = 2, a = (1 - -1)/2
    assert b == pytest.approx(0.0)


def _lda_by_the_covariance(X, codes, g):
    """fit_lda's formulas with S^+ from S itself (sym_pinv of the p x p pooled covariance),
    the reference of the wide route."""
    from stablefs.selectors.wrappers._error_estimators import pooled_covariance, sym_pinv

    means, S = pooled_covariance(X, codes, g)
    W = sym_pinv(S)
    counts = np.bincount(codes, minlength=g)
    with np.errstate(divide="ignore"):
        logp = np.log(counts / counts.sum())
    if g == 2:
        a = W @ (means[1] - means[0])
        return a, float(-a @ (means[0] + means[1]) / 2.0 + logp[1] - logp[0])
    return W @ means.T, -0.5 * np.einsum("cp,pq,cq->c", means, W, means) + logp


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("g", [2, 3])
def test_wide_lda_applies_the_same_pseudo_inverse(seed, g):
    # more features than samples: S^+ through the samples' Gram matrix equals sym_pinv(S)
    # to round-off, and so do the rule's predictions
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(6, 25)), int(rng.integers(30, 90))
    codes = np.arange(n) % g
    X = rng.standard_normal((n, p)) + 0.7 * codes[:, None] * (rng.random(p) < 0.3)
    if seed % 4 == 3:
        X[1] = X[1 + g]  # a repeated sample: one more zero eigenvalue
    if seed % 4 == 2:
        X *= 1e4  # the cut-off is relative
    fitted = fit_lda(X, codes, g)
    ref = _lda_by_the_covariance(X, codes, g)
    Z = rng.standard_normal((200, p)) * X.std() + X.mean()
    if g == 2:
        a, b = fitted.linear
        scale = np.abs(ref[0]).max()
        np.testing.assert_allclose(a, ref[0], rtol=0, atol=1e-9 * scale)
        assert b == pytest.approx(ref[1], rel=1e-9, abs=1e-9 * scale * np.abs(X).max())
        margin = Z @ ref[0] + ref[1]
    else:
        WM, c = fitted.model
        scale = np.abs(ref[0]).max()
        np.testing.assert_allclose(WM, ref[0], rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(c, ref[1], rtol=1e-9)
        scores = Z @ ref[0] + ref[1]
        top2 = np.sort(scores, axis=1)[:, -2:]
        margin = top2[:, 1] - top2[:, 0]
        ref_pred = np.argmax(scores, axis=1)
    clear = np.abs(margin) > 1e-6 * np.abs(margin).max()  # not on the boundary
    expected = (margin > 0).astype(int) if g == 2 else ref_pred
    assert np.array_equal(fitted.predict(Z)[clear], expected[clear])


def test_wide_lda_with_a_missing_class():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((10, 40))
    codes = np.r_[np.zeros(5, dtype=int), np.full(5, 2)]  # class 1 absent
    WM, c = fit_lda(X, codes, 3).model
    ref_WM, ref_c = _lda_by_the_covariance(X, codes, 3)
    np.testing.assert_allclose(WM, ref_WM, rtol=0, atol=1e-9 * np.abs(ref_WM).max())
    assert c[1] == -np.inf and np.isfinite(c[[0, 2]]).all()
    np.testing.assert_allclose(c[[0, 2]], ref_c[[0, 2]], rtol=1e-9)


def test_backward_search_on_wide_data_takes_the_same_path(monkeypatch):
    # SBS from more features than samples (pseudo-inverse) by the rank-one updates of the
    # samples' Gram matrix takes the same steps as refitting LDA from the covariance on
    # every wide subset
    from stablefs.selectors.wrappers import _error_estimators as ee
    from stablefs.selectors.wrappers import make_criterion, sbs
    from stablefs.selectors.wrappers._lda_criterion import LDAPart

    X, y = _two_gaussians(9, 9, 30, shift=0.6, seed=11)
    new = sbs(make_criterion(X, y, estimator="lda", criterion="bolstered"), 5)

    def by_the_covariance(X, codes, g):
        a, b = _lda_by_the_covariance(X, codes, g)
        return ee._Fitted(2, linear=(a, b), kind="lda")

    monkeypatch.setattr(ee, "fit_lda", by_the_covariance)
    monkeypatch.setattr(LDAPart, "_wide_values", lambda self, cols, J, sign: None)
    old = sbs(make_criterion(X, y, estimator="lda", criterion="bolstered"), 5)
    assert new.moves == old.moves and np.array_equal(new.subset, old.subset)
    np.testing.assert_allclose(new.errors, old.errors, rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------- bolstered estimators


def test_bolstered_lda_closed_form_by_hand():
    # the 1-D case above: sigma = (mean nn distance 2) / alpha_1; s_i = |x_i| * sign
    X = np.array([[-2.0], [0.0], [0.0], [2.0]])
    y = np.array([0, 0, 1, 1])
    sigma = 2.0 / chi_median(1)
    # x = -2 (class 0): distance 2 on the right side; x = 0: on the boundary (s = 0):
    # class 0 correct by convention (Phi(0) = 1/2 either way)
    expected = (ndtr(-2 / sigma) + 0.5 + 0.5 + ndtr(-2 / sigma)) / 4
    assert bolstered_error(X, y, "lda") == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("classifier", ["lda", "svm"])
def test_bolstered_linear_closed_form_against_brute_force_monte_carlo(classifier):
    X, y = _two_gaussians(12, 12, 3, shift=1.2, seed=5)
    closed = bolstered_error(X, y, classifier)
    # brute force: draw from each point's kernel and classify with an independent fit
    model = (LinearDiscriminantAnalysis(solver="lsqr") if classifier == "lda"
             else SVC(kernel="linear", C=1.0)).fit(X, y)
    sigma = bolstering_widths(X, y)
    rng = np.random.default_rng(6)
    M = 40_000
    errs = []
    for i in range(X.shape[0]):
        Z = X[i] + sigma[i] * rng.standard_normal((M, X.shape[1]))
        errs.append(np.mean(model.predict(Z) != y[i]))
    mc = np.mean(errs)
    se = np.sqrt(np.mean(np.asarray(errs) * (1 - np.asarray(errs))) / M / X.shape[0])
    assert abs(closed - mc) < 5 * se + 1e-4


def test_semi_bolstered_3nn_equals_brute_force_with_the_same_draws():
    X, y = _two_gaussians(10, 10, 2, shift=1.0, seed=7)
    M = 25
    noise = np.random.default_rng(8).standard_normal((20, M, 2))
    ours = semi_bolstered_error(X, y, "3nn", noise=noise)
    knn = KNeighborsClassifier(3).fit(X, y)
    sigma = bolstering_widths(X, y)
    wrong = knn.predict(X) != y
    terms = []
    for i in range(20):
        if wrong[i]:
            terms.append(1.0)
        else:
            Z = X[i] + sigma[i] * noise[i]
            terms.append(np.mean(knn.predict(Z) != y[i]))
    assert ours == pytest.approx(np.mean(terms), abs=1e-15)
    assert bolstered_error(X, y, "3nn", noise=noise) <= ours


def test_bolstered_3nn_monte_carlo_converges_to_brute_force():
    X, y = _two_gaussians(10, 10, 2, shift=1.0, seed=9)
    a = bolstered_error(X, y, "3nn", n_draws=4000, random_state=1)
    b = bolstered_error(X, y, "3nn", n_draws=4000, random_state=2)
    assert abs(a - b) < 0.01
    assert bolstered_error(X, y, "3nn", random_state=3) == bolstered_error(
        X, y, "3nn", random_state=3)


def test_bolstered_with_sklearn_classifier_equals_named_rule():
    X, y = _two_gaussians(10, 10, 2, seed=10)
    noise = np.random.default_rng(0).standard_normal((20, 5, 2))
    a = bolstered_error(X, y, "3nn", noise=noise)
    b = bolstered_error(X, y, KNeighborsClassifier(3), noise=noise)
    assert a == pytest.approx(b, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 4))
def test_bolstered_lda_invariants(seed, p):
    X, y = _two_gaussians(8, 9, p, shift=0.7, seed=seed)
    e = bolstered_error(X, y, "lda")
    semi = semi_bolstered_error(X, y, "lda")
    assert 0.0 <= e <= semi <= 1.0  # a misclassified point has kernel mass >= 1/2 wrong
    perm = np.random.default_rng(seed).permutation(X.shape[0])
    assert bolstered_error(X[perm], y[perm], "lda") == pytest.approx(e, abs=1e-12)
    cols = np.random.default_rng(seed + 1).permutation(p)
    assert bolstered_error(X[:, cols], y, "lda") == pytest.approx(e, abs=1e-12)


# ------------------------------------------------------------ resubstitution and CV


def test_resubstitution_1nn_is_zero_and_empty_set_is_majority_rule():
    X, y = _two_gaussians(7, 5, 2, seed=11)
    assert resubstitution_error(X, y, "1nn") == 0.0
    assert resubstitution_error(X[:, :0], y, "lda") == pytest.approx(5 / 12)
    assert bolstered_error(X[:, :0], y, "3nn") == pytest.approx(5 / 12)


def test_stratified_folds_even_by_hand():
    y = np.r_[np.zeros(25, dtype=int), np.ones(25, dtype=int)]
    fold = stratified_folds(y, 10, random_state=0)
    sizes = np.bincount(fold)
    assert np.all(sizes == 5)
    for f in range(10):
        n0 = int(np.sum((fold == f) & (y == 0)))
        assert n0 in (2, 3)
    # 21 + 14 into 7 folds (the patient data of the seed): 3 + 2 each
    y = np.r_[np.zeros(21, dtype=int), np.ones(14, dtype=int)]
    fold = stratified_folds(y, 7, random_state=1)
    for f in range(7):
        assert int(np.sum((fold == f) & (y == 0))) == 3
        assert int(np.sum((fold == f) & (y == 1))) == 2


@pytest.mark.parametrize("classifier,reference", [
    ("lda", LinearDiscriminantAnalysis(solver="lsqr")),
    ("3nn", KNeighborsClassifier(3)),
    ("svm", SVC(kernel="linear", C=1.0)),
])
def test_cv_error_equals_sklearn_on_the_same_partition(classifier, reference):
    X, y = _two_gaussians(15, 15, 3, seed=12)
    fold = stratified_folds(y, 10, random_state=3)
    ours = cv_error(X, y, classifier, folds=fold)
    acc = cross_val_score(reference, X, y, cv=PredefinedSplit(fold), scoring="accuracy")
    # equal fold sizes: the mean fold error is the pooled error
    assert ours == pytest.approx(1 - acc.mean(), abs=1e-12)


def test_loo_error_equals_sklearn():
    X, y = _two_gaussians(9, 11, 2, seed=13)
    acc = cross_val_score(KNeighborsClassifier(3), X, y, cv=LeaveOneOut())
    assert loo_error(X, y, "3nn") == pytest.approx(1 - acc.mean(), abs=1e-12)


def test_cv_pools_error_counts_over_unequal_folds():
    # eq. B.3: total errors / n, not the mean of fold rates
    X = np.array([[0.0], [1.0], [2.0], [10.0], [11.0]])
    y = np.array([0, 0, 1, 1, 1])
    fold = np.array([0, 0, 0, 1, 1])
    # fold 0 (3 points) is tested on a training part of class 1 only -> 2 errors; fold 1
    # (2 points) trained on {0, 1, 2}: LDA puts 10 and 11 in class 1 -> 0 errors
    assert cv_error(X, y, "lda", folds=fold) == pytest.approx(2 / 5)


# --------------------------------------------------------------------------- errors


def test_bad_inputs_raise_one_line():
    X, y = _two_gaussians(5, 5, 2)
    with pytest.raises(StablefsError, match="unknown classifier 'qda'"):
        bolstered_error(X, y, "qda")
    with pytest.raises(StablefsError, match="one label per sample"):
        cv_error(X, y[:-1])
    with pytest.raises(StablefsError, match="20 folds for 10 samples"):
        cv_error(X, y, n_folds=20)
    with pytest.raises(StablefsError, match="NaN"):
        resubstitution_error(np.where(X > 1, np.nan, X), y)
    with pytest.raises(StablefsError, match="n_draws"):
        bolstered_error(X, y, "3nn", n_draws=0)
    for exc in (pytest.raises(StablefsError),):
        with exc as info:
            semi_bolstered_error(X, y, "3nn", noise=np.zeros((3, 2, 2)))
        assert "\n" not in str(info.value)


@pytest.mark.parametrize("block", [1, 7, 500, 2**21])
def test_sq_distances_blocks_give_the_broadcast_bit_for_bit(block, monkeypatch):
    from stablefs.selectors.wrappers import _error_estimators as ee

    monkeypatch.setattr(ee, "SQ_BLOCK_ELEMENTS", block)
    rng = np.random.default_rng(block)
    for na, nb, p in ((1, 1, 1), (5, 9, 3), (17, 13, 40), (30, 30, 700)):
        A = rng.standard_normal((na, p)) * 1e3
        B = np.round(rng.standard_normal((nb, p)), 1)
        want = np.square(A[:, None, :] - B[None, :, :]).sum(axis=2)
        assert np.array_equal(ee.sq_distances(A, B), want)
    A[3] = A[5]  # duplicated points tie exactly
    D = ee.sq_distances(A, A)
    assert D[3, 5] == 0.0 and np.array_equal(D[3], D[5])


def test_bolstering_widths_memory_is_bounded_on_many_features():
    # 40 points on 20,000 features: the broadcast differences of a class of 20 and their
    # squares took 128 MB
    import tracemalloc

    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 20000))
    y = np.arange(40) % 2
    tracemalloc.start()
    try:
        bolstering_widths(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20, f"{peak / 2**20:.0f} MB"
