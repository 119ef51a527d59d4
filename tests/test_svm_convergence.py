"""libsvm's iteration limit in the wrapper searches' linear SVM (``_svm_convergence``): a search
on features of a large scale stops with one clear line instead of running for hours, and
nothing changes below the limit or outside the searches."""

from __future__ import annotations

import numpy as np
import pytest

from cli_helpers import run
from libsvm_helpers import libsvm_fit
from stablefs import StablefsError
from stablefs.selectors._svm_convergence import libsvm_max_iter
from stablefs.selectors.wrappers import _error_estimators as ee
from stablefs.selectors.wrappers import make_criterion, sfs


def _overlapping(n=40, p=4, scale=1.0, seed=0, classes=2):
    """Overlapping Gaussian classes, every feature multiplied by ``scale``."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % classes
    X = rng.normal(size=(n, p)) + 0.5 * y[:, None]
    return X * scale, y


def test_the_limit_is_libsvms():
    # svm.cpp: max(10000000, 100 * l)
    assert libsvm_max_iter(1) == 10_000_000
    assert libsvm_max_iter(100_000) == 10_000_000
    assert libsvm_max_iter(200_000) == 20_000_000


@pytest.mark.parametrize("limit", [1, 5, 37])
def test_the_solver_stops_where_libsvm_stops(limit):
    from stablefs.selectors._smo import svc_dual
    from stablefs.selectors.wrappers._wrapper_kernels import linear_kernel

    X, y = _overlapping(scale=10.0)  # about 1,500 iterations to converge
    order = np.argsort(y, kind="stable")
    ysign = np.where(y[order] == 0, 1, -1).astype(np.int64)
    K = linear_kernel(np.ascontiguousarray(X[order]))
    full = svc_dual(K, ysign, 1.0, 1e-3, -1)[2]
    assert full == libsvm_fit(K, y[order], "precomputed")[4] > 100
    assert svc_dual(K, ysign, 1.0, 1e-3, full)[2] == full  # exactly enough: no stop
    assert svc_dual(K, ysign, 1.0, 1e-3, limit)[2] == limit
    assert libsvm_fit(K, y[order], "precomputed", limit)[3:] == (1, limit)  # stopped


def test_the_candidate_kernel_reports_the_solve_that_stopped():
    from stablefs.selectors.wrappers._wrapper_kernels import svc_margins_add

    X, y = _overlapping(p=5)
    X[:, 3] *= 100.0  # one candidate on a large scale
    order = np.argsort(y, kind="stable")
    ysign = np.where(y[order] == 0, 1, -1).astype(np.int64)
    Xo = X[order]
    cands = np.array([1, 2, 3, 4])
    _, _, free = svc_margins_add(np.ascontiguousarray(Xo[:, [0]]),
                                 np.ascontiguousarray(Xo[:, cands]), ysign, 1.0, 1e-3, -1)
    assert free[2] > 100 * max(free[0], free[1], free[3])
    limit = int(free[2]) - 1
    _, _, iters = svc_margins_add(np.ascontiguousarray(Xo[:, [0]]),
                                  np.ascontiguousarray(Xo[:, cands]), ysign, 1.0, 1e-3, limit)
    assert iters.tolist() == [free[0], free[1], limit, 0]  # the call ends at the stopped solve


def test_a_search_on_raw_intensities_stops_with_one_line():
    # features in the thousands: each one-feature SVM needs more than libsvm's 10^7 iterations
    X, y = _overlapping(scale=2000.0)
    crit = make_criterion(X, y, estimator="svm", criterion="bolstered", random_state=0)
    with pytest.raises(StablefsError, match=r"did not converge within libsvm's limit of "
                       r"10,000,000 SMO iterations on 40 samples and 1 feature\(s\) with values "
                       r"up to .*--log2.*standardise"):
        sfs(crit, 2)


@pytest.mark.parametrize("criterion", ["cv", "resubstitution"])
def test_refitting_criteria_stop_too(criterion, monkeypatch):
    # the rules refitted per candidate (libsvm through scikit-learn) keep the same limit;
    # a small one keeps the test fast
    monkeypatch.setattr(ee, "libsvm_max_iter", lambda n: 50)
    X, y = _overlapping(scale=100.0)
    crit = make_criterion(X, y, estimator="svm", criterion=criterion, random_state=0)
    with pytest.raises(StablefsError, match="did not converge"):
        sfs(crit, 2)


def test_more_classes_stop_too(monkeypatch):
    monkeypatch.setattr(ee, "libsvm_max_iter", lambda n: 50)
    X, y = _overlapping(n=45, scale=100.0, classes=3)
    crit = make_criterion(X, y, estimator="svm", criterion="resubstitution")
    with pytest.raises(StablefsError, match="did not converge"):
        sfs(crit, 1)


def test_below_the_limit_nothing_changes():
    # the same subsets and values as the rules without the limit (the bolstered criterion's
    # compiled solver and the refitted resubstitution)
    X, y = _overlapping(p=6, scale=30.0, seed=3)
    for criterion in ("bolstered", "resubstitution"):
        limited = sfs(make_criterion(X, y, estimator="svm", criterion=criterion,
                                     random_state=0), 3)
        rule = ee.make_rule("svm")
        assert rule.limit_iterations is False
        free = sfs(make_criterion(X, y, estimator=rule, criterion=criterion,
                                  random_state=0), 3)
        assert np.array_equal(limited.subset, free.subset)
        assert limited.errors == free.errors and limited.moves == free.moves
        assert rule.limit_iterations is False  # the caller's rule is not changed


def test_single_designs_keep_scikit_learns_unlimited_solver(monkeypatch):
    # error estimation designs one SVM per fold: no limit there, as in SVC
    monkeypatch.setattr(ee, "libsvm_max_iter", lambda n: 50)
    X, y = _overlapping(scale=100.0)
    a, b = ee.linear_svm(X, y)
    fitted = ee.make_rule("svm").fit(X, y, 2)
    assert np.array_equal(fitted.linear[0], a) and fitted.linear[1] == b
    with pytest.raises(StablefsError, match="did not converge"):
        ee.make_rule("svm").limited().fit(X, y, 2)


def test_the_command_line_says_it_in_one_line(tmp_path, capsys):
    import pandas as pd

    X, y = _overlapping(scale=2000.0)
    df = pd.DataFrame(X, columns=[f"g{j}" for j in range(X.shape[1])])
    df.insert(0, "label", np.where(y == 0, "a", "b"))
    df.to_csv(tmp_path / "raw.csv", index=False)
    code, out, err = run(["select", tmp_path / "raw.csv", "-m", "sfs(estimator='svm')",
                          "-k", "2"], capsys)
    assert code == 2
    lines = [line for line in err.splitlines() if line.startswith("stablefs: error")]
    assert len(lines) == 1 and "did not converge" in lines[0] and "--log2" in lines[0]
    assert "Traceback" not in err
