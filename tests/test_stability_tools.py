"""Frequencies, consensus, Table 7.6 counts, curves, input adapters and the registry."""

import subprocess
import sys

import numpy as np
import pytest

from stablefs import StablefsError
from stablefs.stability import (
    MEASURES,
    available_measures,
    consensus,
    frequency_curve,
    frequency_intervals,
    kuncheva,
    measure_interval,
    nogueira,
    nogueira_ci,
    selection_frequency,
    stability_curve,
    subsets_from_cv_results,
    top_k_subsets,
)
from stablefs.stability.subsets import pair_scores


def _system():
    """100 signatures over 60 features: 0–9 always, 10–19 in 60, 20–29 in 40 of them."""
    Z = np.zeros((100, 60), dtype=bool)
    Z[:, :10] = True
    Z[:60, 10:20] = True
    Z[60:, 20:30] = True
    Z[np.arange(100), 30 + np.arange(100) % 30] = True       # one rare gene each
    return Z


def test_selection_frequency_and_consensus():
    Z = _system()
    f = selection_frequency(Z)
    assert f[:10].tolist() == [1.0] * 10 and f[10] == 0.6 and f[25] == 0.4
    assert selection_frequency(Z, counts=True)[10] == 60
    assert consensus(Z).tolist() == list(range(20))          # > 50 %: 0–9 then 10–19
    assert consensus(Z, threshold=0.6).tolist() == list(range(10))  # strictly above 60 %
    assert consensus([[3, 1], [1, 2], [1]], n_features=5).tolist() == [1]
    assert consensus([[3, 1], [3, 2]], 5, threshold=0.0).tolist() == [3, 1, 2]
    with pytest.raises(StablefsError, match="threshold"):
        consensus(Z, threshold=1.0)


def test_frequency_intervals_table_7_6_layout():
    s = frequency_intervals(_system())
    assert s.index.tolist() == ["[1,100]", "(50,100]", "(85,100]"]
    assert s.tolist() == [60, 20, 10]


def test_frequency_curve_area():
    Z = _system()
    c = frequency_curve(Z)
    assert c.index[0] == 1 and c.index[-1] == 100
    assert c[1] == 60 and c[100] == 10 and c[60] == 20 and c[61] == 10
    assert c.sum() == Z.sum()                               # area = m·k in total


def test_top_k_ties_broken_by_lower_index():
    R = np.array([[1, 2, 2, 4], [3, 1, 1, 1]])
    Z = top_k_subsets(R, 2)
    assert Z.tolist() == [[True, True, False, False], [False, True, True, False]]


def test_stability_curve_matches_direct_computation():
    x1 = [9, 7, 2, 1, 3, 10, 8, 4, 5, 6]
    x2 = [3, 7, 9, 10, 2, 4, 8, 6, 1, 5]
    R = np.zeros((2, 10), int)
    for row, order in enumerate((x1, x2)):
        R[row, np.array(order) - 1] = np.arange(1, 11)
    curve = stability_curve(R, range(1, 10))
    assert curve.columns.tolist() == ["k", "estimate"]
    assert np.round(curve["estimate"], 3).tolist() == [
        -0.111, 0.375, 0.524, 0.167, 0.600, 0.583, 0.524, 0.375, -0.111]
    rng = np.random.default_rng(0)
    R = np.array([rng.permutation(30) + 1 for _ in range(6)])
    curve = stability_curve(R, [3, 10], measure="jaccard", interval=True)
    assert curve.columns.tolist() == ["k", "estimate", "low", "high"]
    direct = kuncheva([np.flatnonzero(r <= 10) for r in R], 30)
    assert stability_curve(R, [10])["estimate"].iloc[0] == pytest.approx(direct)


def test_subsets_from_rfecv_cv_results():
    from sklearn.datasets import make_classification
    from sklearn.feature_selection import RFECV
    from sklearn.linear_model import LogisticRegression

    X, y = make_classification(80, 8, random_state=0)
    cv = RFECV(LogisticRegression(), cv=4, step=2).fit(X, y).cv_results_
    by_size = subsets_from_cv_results(cv)
    assert sorted(by_size) == sorted(int(k) for k in cv["n_features"])
    Z = subsets_from_cv_results(cv, size=4)
    assert Z.shape == (4, 8) and (Z.sum(1) == 4).all()
    assert 0 <= kuncheva(Z) <= 1
    with pytest.raises(StablefsError, match="available sizes"):
        subsets_from_cv_results(cv, size=3)
    with pytest.raises(StablefsError, match="RFECV"):
        subsets_from_cv_results({"mean_test_score": [1]})


def test_registry_lists_every_measure():
    names = available_measures()
    for required in ("kuncheva", "nogueira", "jaccard", "dice", "hamming", "ochiai",
                     "lustgarten", "phi", "kappa", "wald", "unadjusted", "somol", "krizek",
                     "davis", "novovicova", "npogr", "zucknick", "sechidis",
                     "intersection_count"):
        assert required in names
    assert set(MEASURES) == set(names)
    assert MEASURES["kuncheva"].chance_corrected and MEASURES["npogr"].needs_X


def test_measure_interval_for_every_measure():
    rng = np.random.default_rng(1)
    p = 40
    X = rng.standard_normal((30, p))
    Z = np.zeros((8, p), dtype=bool)
    for i in range(8):
        Z[i, np.r_[0:3, rng.choice(np.arange(3, p), 3, replace=False)]] = True
    for name in available_measures():
        est, low, high = measure_interval(name, Z, p, X=X)
        assert np.isfinite([est, low, high]).all(), name
        assert low <= est <= high, name
        assert MEASURES[name](Z, p, X=X) == pytest.approx(est), name


def test_nogueira_interval_is_the_jackknife_t():
    from scipy import stats

    rng = np.random.default_rng(2)
    subsets = [rng.choice(20, 5, replace=False) for _ in range(6)]
    est, low, high = measure_interval("nogueira", subsets, 20)
    e, v, lo, hi = nogueira_ci(subsets, 20)
    assert (est, low, high) == (e, lo, hi)
    loo = np.array([nogueira(subsets[:l] + subsets[l + 1:], 20) for l in range(6)])
    var = 5 / 6 * np.sum((loo - loo.mean()) ** 2)
    t = stats.t.ppf(0.975, 5)
    assert (low, high) == pytest.approx((max(est - t * np.sqrt(var), -1 / 5),
                                         min(est + t * np.sqrt(var), 1.0)))
    est2, lo2, hi2 = measure_interval("nogueira", subsets[:2], 20)  # jackknife: m >= 3
    assert np.isfinite(est2) and np.isnan(lo2) and np.isnan(hi2)


def test_pairwise_interval_is_the_jackknife_and_nan_below_three():
    rng = np.random.default_rng(3)
    subsets = [rng.choice(30, 6, replace=False) for _ in range(6)]
    est, low, high = measure_interval("kuncheva", subsets, 30, alpha=0.1)
    loo = np.array([kuncheva(subsets[:l] + subsets[l + 1:], 30) for l in range(6)])
    var = 5 / 6 * np.sum((loo - loo.mean()) ** 2)
    t = 2.015048372669157  # scipy.stats.t.ppf(0.95, 5)
    assert (low, high) == pytest.approx((est - t * np.sqrt(var), est + t * np.sqrt(var)))
    assert pair_scores("kuncheva", subsets, 30).jackknife_variance() == pytest.approx(var)
    est2, lo2, hi2 = measure_interval("kuncheva", subsets[:2], 30)
    assert np.isfinite(est2) and np.isnan(lo2) and np.isnan(hi2)
    est2, lo2, hi2 = measure_interval("somol", subsets[:2], 30)
    assert np.isfinite(est2) and np.isnan(lo2)


def test_system_interval_is_the_jackknife():
    from stablefs.stability import somol_c

    rng = np.random.default_rng(4)
    subsets = [rng.choice(15, 4, replace=False) for _ in range(5)]
    est, low, high = measure_interval("somol_c", subsets, 15)
    loo = np.array([somol_c(subsets[:l] + subsets[l + 1:]) for l in range(5)])
    sd = np.sqrt(4 / 5 * np.sum((loo - loo.mean()) ** 2))
    t = 2.7764451051977987  # scipy.stats.t.ppf(0.975, 4)
    assert (low, high) == pytest.approx((max(est - t * sd, 0.0), min(est + t * sd, 1.0)))


def test_intervals_are_clipped_to_the_measure_range():
    from stablefs.stability import measure_bounds

    # two groups of identical subsets: a wide interval around a high value
    subsets = [[0, 1, 2, 3]] * 4 + [[0, 1, 2, 4]]
    for name in ("jaccard", "kuncheva", "nogueira", "somol_c"):
        est, low, high = measure_interval(name, subsets, 40)
        lowest, highest = measure_bounds(name, 5)
        assert high <= 1.0 and (lowest is None or low >= lowest)
    assert measure_interval("jaccard", subsets, 40)[2] == 1.0  # would be > 1 unclipped
    assert measure_bounds("nogueira", 5) == (-0.25, 1.0)
    assert measure_bounds("kuncheva", 5) == (-1.0, 1.0)
    assert measure_bounds("jaccard", 5) == (0.0, 1.0)
    assert measure_bounds("unadjusted", 5) == (None, 1.0)


def test_measure_interval_errors():
    with pytest.raises(StablefsError, match="did you mean kuncheva"):
        measure_interval("kunceva", [[0], [1]], 3)
    with pytest.raises(StablefsError, match="pass X"):
        measure_interval("npogr", [[0], [1]], 3)
    with pytest.raises(StablefsError, match="alpha"):
        measure_interval("jaccard", [[0], [1]], 3, alpha=0)


def test_measures_do_not_import_selectors():
    code = ("import sys; from stablefs.stability import *; "  # every name (stablefs._runtime.lazy)
            "print(any(m.startswith('stablefs.selectors') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_subsets_from_a_real_rfecv():
    """The split supports of a fitted scikit-learn RFECV, per subset size."""
    from sklearn.datasets import make_classification
    from sklearn.feature_selection import RFECV
    from sklearn.svm import LinearSVC

    from stablefs.stability import nogueira

    X, y = make_classification(80, 12, n_informative=4, random_state=0)
    rfecv = RFECV(LinearSVC(), cv=5).fit(X, y)
    Z = subsets_from_cv_results(rfecv.cv_results_, size=4)
    assert Z.shape == (5, 12) and np.all(Z.sum(axis=1) == 4)
    by_size = subsets_from_cv_results(rfecv.cv_results_)
    assert sorted(by_size) == list(range(1, 13))
    assert np.all(by_size[12])  # every feature at the first step
    assert -1 <= nogueira(Z) <= 1
