"""The compiled bolstered-LDA kernels (``_lda_kernels``) against the NumPy computations they
replace: SciPy's ``ndtr`` called from compiled code, the bounding tables, the forward step
(every candidate, and the pruned step of the searches), the widths, ``S_SS^{-1}``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtr as sp_ndtr

import stablefs.selectors.wrappers._bolstering_widths as W
import stablefs.selectors.wrappers._lda_criterion as L
from stablefs.selectors.wrappers import make_criterion, sffs, sfs
from stablefs.selectors.wrappers._search import TIE_TOL, pick_min

lk = pytest.importorskip("stablefs.selectors.wrappers._lda_kernels")


def _data(n0, n1, p, seed, shift=0.8, informative=3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n0 + n1, p))
    y = np.r_[np.zeros(n0, dtype=int), np.ones(n1, dtype=int)]
    X[y == 1, :informative] += shift
    perm = rng.permutation(n0 + n1)        # classes interleaved, as real data
    return X[perm], y[perm]


def _rounded(X, y):
    """Values on a grid (tied values and tied same-class distances), one class shifted by
    0.01: two classes with exactly equal means on a feature make LDA's direction exactly 0,
    which both computations see as round-off noise (a direction of norm ~1e-17, values near
    n / 2 that differ in the 8th digit; the refit's constant rule decides there)."""
    X = np.round(2 * X) / 2
    X[y == 1] += 0.01
    return X


# ------------------------------------------------------------------------------ ndtr


def test_compiled_ndtr_is_scipys_bit_for_bit():
    rng = np.random.default_rng(0)
    z = np.concatenate([rng.standard_normal(200_000) * 3, rng.standard_normal(20_000) * 40,
                        np.linspace(-40, 40, 8001),
                        [0.0, -0.0, np.inf, -np.inf, 1e-300, -1e-300, 5e-324, 37.5, -37.5,
                         -38.5, 8.0, -8.0, 1.0, -1.0, np.sqrt(0.5), -np.sqrt(0.5)]])
    got = lk.ndtr_array(z)
    assert np.array_equal(got.view(np.int64), sp_ndtr(z).view(np.int64))
    assert np.isnan(lk.ndtr_array(np.array([np.nan])))[0]


def _bounds(z):
    tlo, tup = lk.BOUND_TABLES
    zmin, _, inv_h = lk.NDTR_GRID
    t = (z - zmin) * inv_h
    top = tlo.size - 1
    q = np.where(t < 0, 0, np.where(t >= top, top, np.floor(np.where(np.isfinite(t), t, 0))))
    q = q.astype(np.int64)
    return tlo[q], tup[q]


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=-60, max_value=60, allow_nan=False))
def test_bound_tables_bracket_ndtr(z):
    # the kernel's index rule, q = floor((z - zmin) inv_h) clamped, on any value
    lo, up = _bounds(np.array([z]))
    v = sp_ndtr(z)
    assert lo[0] <= v <= up[0]


def test_bound_tables_bracket_ndtr_on_grid_points_and_the_tails():
    zmin, zmax, inv_h = lk.NDTR_GRID
    g = zmin + np.arange(int((zmax - zmin) * inv_h) + 1) / inv_h
    z = np.concatenate([g, np.nextafter(g, -np.inf), np.nextafter(g, np.inf),
                        [-np.inf, np.inf, -1e6, 1e6, zmin - 1e-12, zmax + 1e-12]])
    lo, up = _bounds(z)
    v = sp_ndtr(z)
    assert np.all(lo <= v) and np.all(v <= up)
    assert np.max(up - lo) < 4 / inv_h      # three grid steps of an increasing, 0.4-Lipschitz Phi


# ------------------------------------------------------------------------- forward step


def _steps(X, y, criterion, cols_list, seed=0):
    crit = make_criterion(X, y, estimator="lda", criterion=criterion, random_state=seed)
    part = crit.parts[0]
    p = X.shape[1]
    for cols in cols_list:
        cols = np.asarray(cols, dtype=np.int64)
        cands = np.setdiff1d(np.arange(p), cols)
        A = part._base(cols)
        if A is None:
            continue
        part._prepare_bolstered()
        yield crit, part, cols, cands, A


def _compare_step(part, cols, cands, A):
    """The compiled step against the NumPy step on all candidates and a gathered few; the
    pruned step's choice, value and ties against the full step's."""
    for J in (cands, cands[::3]):
        fast = part._add_bolstered_compiled(cols, J, A)
        ref = part._add_bolstered_numpy(cols, J, A)
        assert (fast is None) == (ref is None)
        if fast is None:
            continue
        np.testing.assert_allclose(fast, ref, rtol=1e-12, atol=1e-12)
    full = part._add_bolstered_compiled(cols, cands, A)
    if full is None or not part._present.all():
        return 0
    best = part.sums_add_bounded(cols, cands)
    n = part.Xt.shape[0]
    i, t = pick_min(full / n)
    j, u = pick_min(best / n)
    assert (i, t) == (j, u)
    kept = np.isfinite(best)
    assert np.array_equal(best[kept], full[kept])          # bit for bit
    # a dropped candidate is not within the ties' tolerance of the minimum
    assert np.all(full[~kept] / n > full[i] / n + TIE_TOL)
    return int(np.count_nonzero(~kept))


@pytest.mark.parametrize("criterion", ["bolstered", "semi-bolstered"])
@pytest.mark.parametrize("sizes", [(13, 11), (30, 26), (25, 25), (6, 40)])
def test_compiled_step_equals_the_numpy_step(criterion, sizes):
    X, y = _data(*sizes, 24, seed=sum(sizes), informative=5)
    X[:, 23] = X[:, 5]                      # a duplicated feature: a singular candidate
    X[:, 22] = 2 * X[:, 4] - X[:, 7]        # a linear combination: singular once 4, 7 in S
    X[3] = X[1]                             # a duplicated point: a zero nearest distance
    dropped = 0
    for _, part, cols, cands, A in _steps(X, y, criterion, ([], [5], [5, 0], [4, 7, 1],
                                                             [4, 7, 1, 0, 9, 11])):
        dropped += _compare_step(part, cols, cands, A)
    assert dropped > 0                      # the pruning is exercised


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(5, 30), st.integers(5, 30),
       st.integers(0, 6), st.sampled_from(["bolstered", "semi-bolstered"]), st.booleans())
def test_compiled_step_equals_the_numpy_step_random(seed, n0, n1, k, criterion, rounded):
    X, y = _data(n0, n1, 12, seed=seed, informative=4)
    if rounded:
        X = _rounded(X, y)
    rng = np.random.default_rng(seed)
    cols = rng.permutation(12)[:k]
    for _, part, c, cands, A in _steps(X, y, criterion, [cols], seed=seed % 7):
        _compare_step(part, c, cands, A)


def _compare_remove(part, cols, A):
    """The compiled backward step against the NumPy one (every member of ``cols``)."""
    if cols.size < 2 or not part._class_layout():
        return False
    fast = part._remove_bolstered_compiled(cols, A)
    ref = part._remove_numpy(cols, A)
    if fast is None:   # a zero norm or width: the NumPy path's general formula decides
        return False
    np.testing.assert_allclose(fast, ref, rtol=1e-12, atol=1e-12)
    return True


@pytest.mark.parametrize("criterion", ["bolstered", "semi-bolstered"])
@pytest.mark.parametrize("sizes", [(13, 11), (30, 26), (6, 40)])
def test_compiled_backward_step_equals_the_numpy_step(criterion, sizes):
    X, y = _data(*sizes, 16, seed=7 + sum(sizes), informative=5)
    X[3] = X[1]                             # a duplicated point: a zero nearest distance
    checked = 0
    for _, part, cols, _, A in _steps(X, y, criterion, ([5, 0], [4, 7, 1], [4, 7, 1, 0, 9, 11],
                                                         list(range(14)))):
        checked += _compare_remove(part, cols, A)
    assert checked == 4


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(5, 30), st.integers(5, 30),
       st.integers(2, 8), st.sampled_from(["bolstered", "semi-bolstered"]), st.booleans())
def test_compiled_backward_step_equals_the_numpy_step_random(seed, n0, n1, k, criterion,
                                                             rounded):
    X, y = _data(n0, n1, 10, seed=seed, informative=4)
    if rounded:
        X = _rounded(X, y)
    cols = np.random.default_rng(seed).permutation(10)[:k]
    for _, part, c, _, A in _steps(X, y, criterion, [cols], seed=seed % 5):
        _compare_remove(part, c, A)


def test_a_one_point_class_goes_through_the_general_path():
    X, y = _data(1, 12, 8, seed=5)
    for _, part, cols, cands, A in _steps(X, y, "bolstered", ([], [3], [3, 0, 6])):
        np.testing.assert_allclose(part.sums_add_bounded(cols, cands),
                                   part.values_add(cols, cands), rtol=0, atol=0)
        fast = part._add_bolstered_compiled(cols, cands, A)
        ref = part._add_bolstered_numpy(cols, cands, A)
        assert (fast is None) == (ref is None)
        if fast is not None:
            np.testing.assert_allclose(fast, ref, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------- widths


@pytest.mark.parametrize("rounded", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_pruned_widths_equal_the_numpy_update_bit_for_bit(rounded, seed, monkeypatch):
    X, y = _data(9 + 5 * seed, 12, 15, seed=90 + seed, informative=4)
    if rounded:
        X = np.round(X * 2) / 2
    crit = make_criterion(X, y, estimator="lda", criterion="bolstered", random_state=seed)
    part = crit.parts[0]
    assert part._class_layout()
    cols: list[int] = []
    for _ in range(6):
        c = np.asarray(cols, dtype=np.int64)
        cands = np.setdiff1d(np.arange(15), c)
        got = part._widths_add(c, cands, c.size + 1)
        monkeypatch.setattr(W, "COMPILED", False)
        part._nn_memo = None
        ref = part._dhat_add(c, cands, c.size + 1)          # pruned NumPy update / sorting
        monkeypatch.setattr(W, "COMPILED", True)
        assert np.array_equal(got, ref)
        for r in (1, 2, 5, 30):                             # any r: the same minima
            if c.size:
                assert np.array_equal(lk.nn_widths_add(part._sq_cached(c), part._Xc,
                                                       part._XTc, cands, part._cstarts,
                                                       part._csizes, r), ref)
        cols.append(int(cands[crit.best_add(c, cands)[0]]))


@pytest.mark.parametrize("sizes", [(1, 7), (2, 2), (3, 140), (150, 9), (40, 0)])
def test_first_step_widths_equal_the_sorted_gaps(sizes):
    rng = np.random.default_rng(sum(sizes))
    n = sum(sizes)
    X = np.round(rng.standard_normal((n, 9)) * 3) / 3      # ties
    X[:, 0] = 0.0
    X[0, 1] = -0.0
    y = np.r_[np.zeros(sizes[0], dtype=int), np.ones(sizes[1], dtype=int)]
    part = make_criterion(X, y if sizes[1] else np.r_[y[:-1], 1], estimator="lda",
                          criterion="bolstered", random_state=0).parts[0]
    cands = np.arange(9, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    got = part._widths_add(empty, cands, 1)
    ref = part._dhat(part._class_sq(empty), cands, +1.0, 1)
    assert np.array_equal(got, ref)


@pytest.mark.parametrize("n", [1, 5, 8, 9, 31, 128, 129, 130, 255, 256, 1000, 4099])
def test_pairwise_sum_is_numpys(n):
    rng = np.random.default_rng(n)
    a = rng.random(n) * 10.0 ** rng.uniform(-8, 8, n)
    assert lk._pairwise_sum(a, 0, n) == np.add.reduce(np.vstack([a, a]), axis=1)[0]


# ------------------------------------------------------------------------------- base


def test_compiled_inverse_equals_numpys_and_detects_singular_sets(monkeypatch):
    X, y = _data(14, 12, 10, seed=3)
    X[:, 9] = X[:, 2] - 0.5 * X[:, 3]
    part = make_criterion(X, y, estimator="lda", criterion="bolstered").parts[0]
    for cols in ([0], [1, 4], [0, 1, 2, 3, 5], [2, 3, 9], [2, 3, 9, 4], list(range(9))):
        cols = np.asarray(cols, dtype=np.int64)
        part._base_memo = None
        got = part._base(cols)
        monkeypatch.setattr(L, "COMPILED", False)
        part._base_memo = None
        ref = part._base(cols)
        monkeypatch.setattr(L, "COMPILED", True)
        assert (got is None) == (ref is None)
        if ref is not None:
            np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12 * np.abs(ref).max())
    assert part._base(np.array([2, 3, 9])) is None


# ----------------------------------------------------------------------------- searches


@pytest.mark.parametrize("criterion", ["bolstered", "semi-bolstered"])
@pytest.mark.parametrize("seed", range(4))
def test_searches_with_the_compiled_step_equal_the_numpy_ones(criterion, seed, monkeypatch):
    X, y = _data(12 + seed, 14, 30, seed=40 + seed, informative=6, shift=0.6)
    out = {}
    for compiled in (True, False):
        monkeypatch.setattr(L, "COMPILED", compiled)
        out[compiled] = [s(make_criterion(X, y, estimator="lda", criterion=criterion,
                                          random_state=seed), 8, **kw)
                         for s, kw in ((sfs, {}), (sffs, {}), (sffs, {"exclusion": "mlxtend"}))]
    for a, b in zip(out[True], out[False]):
        assert a.moves == b.moves and a.ties == b.ties
        assert a.n_evaluations == b.n_evaluations
        assert np.array_equal(a.subset, b.subset)
        np.testing.assert_allclose(a.errors, b.errors, rtol=1e-13, atol=0)


def test_without_the_kernels_the_numpy_computation_runs(monkeypatch):
    # a SciPy without the Cython ndtr (or no Numba): one warning, then the NumPy path
    import sys

    import stablefs.selectors.wrappers as pkg

    X, y = _data(12, 14, 20, seed=11, informative=5)
    ref = sffs(make_criterion(X, y, estimator="lda", random_state=0), 6)
    monkeypatch.setattr(L, "_LK", None)
    monkeypatch.delattr(pkg, "_lda_kernels", raising=False)
    monkeypatch.setitem(sys.modules, "stablefs.selectors.wrappers._lda_kernels", None)
    with pytest.warns(RuntimeWarning, match="compiled LDA kernels could not be loaded"):
        got = sffs(make_criterion(X, y, estimator="lda", random_state=0), 6)
    assert L._kernels() is None
    assert got.moves == ref.moves and got.ties == ref.ties
    np.testing.assert_allclose(got.errors, ref.errors, rtol=1e-13, atol=0)
