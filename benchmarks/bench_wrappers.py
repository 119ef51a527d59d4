"""Benchmark: the wrappers' incremental criteria, mlxtend's SequentialFeatureSelector on the same
criterion, and one CRIDD cell.

Run from the project root::

    .venv/bin/python benchmarks/bench_wrappers.py              # all three parts
    .venv/bin/python benchmarks/bench_wrappers.py --quick      # fewer repeats, 100 CRIDD runs

All timings in one run, CPU time of this process (``time.process_time``; the shared machine's
other jobs inflate wall time, not CPU time) and wall time:

1. ``SFS(10)`` and ``SFFS(10)`` from 200 features on 50 samples of the equal-covariance model of
   Xiao, Hua and Dougherty (2007), with the bolstered-LDA criterion (the paper's setting), best of
   ``-r`` repeats; also 3NN semi-bolstered and linear-SVM bolstered (one repeat each);
2. mlxtend's ``SequentialFeatureSelector(k_features=10, forward=True, floating=False|True,
   cv=0)`` on the same three criteria, one subset at a time (``scoring = -bolstered_error(
   X_subset, y, "lda")``, ``-semi_bolstered_error(X_subset, y, "3nn", noise=...)`` with the
   criterion's own draws of each feature, and ``-bolstered_error(X_subset, y, "svm")``): its
   time, the speed ratio, and whether both return the same subset (our SFFS with
   ``exclusion="mlxtend"``, mlxtend's conditional-exclusion rule);
3. one CRIDD cell, ``cridd("equal", selector="sfs", classifier="lda", cv="cv10",
   n_samples=50, n_runs=1000)`` (Algorithm 1: 11 SFS runs per Monte-Carlo run), with
   ``--n-jobs`` workers;
4. ``compiled``: the compiled kernels (Numba, ``selectors/wrappers/_wrapper_kernels.py``) on
   and off, interleaved in this process (off, on, off, on, ... best of ``-r``): SFS and SFFS
   of 10 from 200 with the three criteria of Xiao, Hua and Dougherty (2007) (bolstered LDA,
   semi-bolstered 3NN, bolstered linear SVM), the speed ratio and whether both give the same
   subsets, moves and ties. "Off" is the NumPy / libsvm path of before (the flags
   ``_knn_criterion.COMPILED``, ``_svm_criterion.COMPILED``, ``_bolstering_widths.COMPILED``,
   ``_lda_criterion.COMPILED``);
5. ``limits``: what one SFS of 10 from 200 costs per unit of the work it does (bolstered LDA:
   per candidate subset, per margin ``(point, candidate)`` and the exact ``Phi`` evaluations
   left after the bounds; 3NN: per vote element; SVM: per SMO iteration);
6. ``wide``: backward searches on microarray data (Colon, 62 x 2000, ``log2``; needs
   ``STABLEFS_DATA``), bolstered LDA: one backward step from the first ``p`` genes by the
   rank-one updates of ``_lda_wide`` against refitting LDA on every subset (interleaved, the
   largest difference of the values), SBS of 10 from 100 genes against mlxtend's backward
   ``SequentialFeatureSelector`` on the same criterion (same subset?), and, without
   ``--quick``, SBS of 10 from all 2000 genes; the same backward step on SRBCT (four
   classes: LDA's Monte-Carlo bolstering); the bolstered linear SVM's backward step from
   500 and 2000 genes, every subset's kernel formed afresh against the step's kernel
   downdated (``svc_duals_remove``, the same values?), and without ``--quick`` its SBS of 10
   from 500 genes.

Targets (benchmarks/README.md): SFS of 10 from 200 with bolstered LDA on 50 samples < 3 ms CPU
(issue 19; < 5 ms before); at least 50x faster than mlxtend on the same criterion, same subsets.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

import numpy as np

from stablefs.datasets import make_xiao2007
from stablefs.evaluation import cridd
from stablefs.evaluation.error_estimators import bolstered_error
from stablefs.selectors import SFFS, SFS
from stablefs.selectors.wrappers import make_criterion, sffs, sfs


def timed(fn, repeat: int = 1):
    """Best CPU and wall seconds of ``repeat`` calls, and the last result."""
    best_cpu = best_wall = np.inf
    out = None
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        out = fn()
        best_cpu = min(best_cpu, time.process_time() - c0)
        best_wall = min(best_wall, time.perf_counter() - w0)
    return best_cpu, best_wall, out


def part_search(X, y, repeat: int) -> None:
    print("1. search of 10 from 200 features, n = 50 (CPU / wall, best of repeats)")
    for name, est, crit, rep in (("lda bolstered", "lda", "bolstered", repeat),
                                 ("3nn semi-bolstered", "3nn", "semi-bolstered", 1),
                                 ("svm bolstered", "svm", "bolstered", 1)):
        for label, search in (("SFS", sfs), ("SFFS", sffs)):
            cpu, wall, res = timed(lambda s=search, e=est, c=crit: s(
                make_criterion(X, y, estimator=e, criterion=c, random_state=0), 10), rep)
            print(f"   {label:4s} {name:20s} {1e3 * cpu:9.1f} ms CPU {1e3 * wall:9.1f} ms wall "
                  f"({res.n_evaluations} subsets)")


def part_mlxtend(X, y, repeat: int) -> None:
    print("2. mlxtend SequentialFeatureSelector on the same criteria (CPU, best of repeats for "
          "stablefs, one run of mlxtend)")
    try:
        from mlxtend.feature_selection import SequentialFeatureSelector
    except ImportError:
        print("   mlxtend is not installed: pip install -e '.[bench]'")
        return
    from sklearn.dummy import DummyClassifier

    from stablefs.evaluation.error_estimators import semi_bolstered_error

    # mlxtend hands the scorer the subset's columns only; the 3NN criterion's draws belong to
    # the features (common random numbers, one stream per feature from the criterion's seed),
    # so the scorer finds each column's feature by its values to give it the draws of the
    # criterion that SFS(random_state=0) builds
    column = {X[:, j].tobytes(): j for j in range(X.shape[1])}
    noise = make_criterion(X, y, estimator="3nn", criterion="semi-bolstered",
                           random_state=0).parts[0].noise

    def lda(est, Xs, ys):
        return -bolstered_error(Xs, ys, "lda")

    def knn(est, Xs, ys):
        cols = [column[Xs[:, j].tobytes()] for j in range(Xs.shape[1])]
        eps = np.stack([noise.feature(f) for f in cols], axis=2)  # (n, draws, features)
        return -semi_bolstered_error(Xs, ys, "3nn", noise=eps)

    def svm(est, Xs, ys):
        return -bolstered_error(Xs, ys, "svm")

    for est, crit, scorer in (("lda", "bolstered", lda), ("3nn", "semi-bolstered", knn),
                              ("svm", "bolstered", svm)):
        for floating in (False, True):
            kind = SFFS if floating else SFS
            extra = {"exclusion": "mlxtend"} if floating else {}
            ours = kind(10, estimator=est, criterion=crit, random_state=0, **extra)
            ours.fit(X, y)  # untimed: loads the compiled kernels (the first call of a process)
            c1, w1, fitted = timed(lambda o=ours: o.fit(X, y), repeat)
            # with cv=0 mlxtend fits its estimator on every subset before scoring it; the
            # scorers fit their own rule, so a dummy keeps that fit out of mlxtend's time
            c2, w2, ref = timed(lambda f=floating, s=scorer: SequentialFeatureSelector(
                DummyClassifier(), k_features=10, forward=True, floating=f,
                scoring=s, cv=0, n_jobs=1).fit(X, y), 1)
            same = set(fitted.get_support(indices=True)) == set(ref.k_feature_idx_)
            print(f"   {'SFFS' if floating else 'SFS':4s} {est} {crit:15s} stablefs "
                  f"{1e3 * c1:8.1f} ms, mlxtend {c2:7.2f} s: ratio {c2 / c1:6.0f}x (wall "
                  f"{w2 / w1:6.0f}x); same subset: {same}")


def part_cridd(runs: int, n_jobs: int) -> None:
    print(f"3. one CRIDD cell: equal model, N = 50, SFS + LDA, CV10, {runs} runs, "
          f"{n_jobs} worker(s)")
    c0, w0 = time.process_time(), time.perf_counter()
    r = cridd("equal", selector="sfs", classifier="lda", cv="cv10", n_samples=50,
              n_runs=runs, n_jobs=n_jobs, random_state=0)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    print(f"   wall {wall:.1f} s (this process's CPU {cpu:.1f} s); kappa {r['kappa']:.3f} "
          f"[{r['kappa_low']:.3f}, {r['kappa_high']:.3f}], Var dE {1e4 * r['var_dE']:.2f}e-4, "
          f"Var dE_b {1e4 * r['var_dEb']:.2f}e-4")


def part_compiled(X, y, repeat: int) -> None:
    import stablefs.selectors.wrappers._bolstering_widths as widths
    import stablefs.selectors.wrappers._knn_criterion as knn
    import stablefs.selectors.wrappers._lda_criterion as lda
    import stablefs.selectors.wrappers._svm_criterion as svm

    def flags(on: bool) -> None:
        knn.COMPILED = svm.COMPILED = widths.COMPILED = lda.COMPILED = on

    print(f"4. compiled kernels off / on, interleaved, best of {repeat} (CPU ms per search)")
    try:
        for est, crit in (("lda", "bolstered"), ("3nn", "semi-bolstered"), ("svm", "bolstered")):
            for label, search in (("SFS", sfs), ("SFFS", sffs)):
                best = {False: np.inf, True: np.inf}
                res = {}
                for _ in range(repeat):
                    for on in (False, True):
                        flags(on)
                        cpu, _, res[on] = timed(lambda s=search, e=est, c=crit: s(
                            make_criterion(X, y, estimator=e, criterion=c, random_state=0), 10))
                        best[on] = min(best[on], cpu)
                same = (res[True].moves == res[False].moves and res[True].ties == res[False].ties)
                print(f"   {label:4s} {est} {crit:15s} off {1e3 * best[False]:8.1f}  on "
                      f"{1e3 * best[True]:7.1f}  ratio {best[False] / best[True]:5.1f}x  "
                      f"same subsets: {same}")
    finally:
        flags(True)


def part_limits(X, y, repeat: int) -> None:
    """How far one SFS of 10 from 200 (n = 50) is from the arithmetic its criterion needs.

    Bolstered LDA: the pruned forward kernel is wrapped to count the margins it computes
    (point, candidate) and the exact ``Phi`` left after the table bounds (the points of the
    candidates it keeps), and the search's CPU time divided by the subsets and the margins.
    3NN semi-bolstered: the vote kernel's elements (point, neighbour, draw, candidate) are
    counted by wrapping the kernel, and the search's CPU time divided by them. Linear SVM
    bolstered: every solve of the same path is repeated with libsvm
    (``SVC(kernel="precomputed", C=1, tol=1e-3)``, the solver our compiled SMO reproduces
    bit for bit) to read its SMO iterations (``n_iter_``), and the search's CPU time divided
    by them. An SMO iteration of libsvm reads at least the two kernel rows of its working
    pair and updates the gradient of the active set (about 3 n = 150 floating-point
    operations, plus the working-set scan); a vote element is 3 operations and 2 selects.
    """
    from sklearn.svm import SVC

    from stablefs.selectors.wrappers import _lda_kernels as lk
    from stablefs.selectors.wrappers import _wrapper_kernels as wk

    print("5. arithmetic limits of one SFS of 10 from 200, n = 50 (CPU, best of repeats)")
    # --- LDA bolstered: margins of the pruned forward steps and the exact Phi left
    cpul, _, resl = timed(lambda: sfs(make_criterion(X, y, estimator="lda",
                                                     criterion="bolstered", random_state=0),
                                      10), repeat)
    best = lk.lda_bolstered_best
    cl = {"steps": 0, "margins": 0, "phi": 0, "kept": 0}

    def counted_best(*args):
        out = best(*args)
        n, m = args[7].shape[0], args[2].size
        kept = int(np.count_nonzero(np.isfinite(out[0])))
        cl["steps"] += 1
        cl["margins"] += n * m
        cl["kept"] += kept
        cl["phi"] += n * kept
        return out

    lk.lda_bolstered_best = counted_best
    try:
        sfs(make_criterion(X, y, estimator="lda", criterion="bolstered", random_state=0), 10)
    finally:
        lk.lda_bolstered_best = best
    print(f"   LDA bolstered: {1e3 * cpul:.2f} ms, {resl.n_evaluations} subsets "
          f"({1e6 * cpul / resl.n_evaluations:.2f} us each), {cl['margins']} margins "
          f"({1e9 * cpul / cl['margins']:.0f} ns each, the whole search included), "
          f"{cl['phi']} exact Phi ({cl['kept']} of {resl.n_evaluations - 1} candidates "
          f"kept by the bounds in {cl['steps']} steps)")
    # --- 3NN: keys of the compiled Monte-Carlo vote (the first candidates' block and the
    # pruned point-by-point evaluation of the others)
    count = [0]
    pruned = wk.mc_pruned_sums

    def counted(*args):
        alive, n_keys = pruned(*args)
        count[0] += n_keys
        return alive, n_keys

    cpu3, _, res3 = timed(lambda: sfs(make_criterion(X, y, estimator="3nn",
                                                     criterion="semi-bolstered",
                                                     random_state=0), 10), repeat)
    wk.mc_pruned_sums = counted
    try:
        sfs(make_criterion(X, y, estimator="3nn", criterion="semi-bolstered", random_state=0),
            10)
    finally:
        wk.mc_pruned_sums = pruned
    print(f"   3NN semi-bolstered: {1e3 * cpu3:.1f} ms, {count[0] / 1e6:.1f} M vote keys "
          f"({1e9 * cpu3 / count[0]:.2f} ns each, the whole search included)")
    # --- SVM: SMO iterations of the same path's solves
    crit = make_criterion(X, y, estimator="svm", criterion="bolstered", random_state=0)
    part = crit.parts[0]
    cpus, _, res = timed(lambda: sfs(make_criterion(X, y, estimator="svm", criterion="bolstered",
                                                    random_state=0), 10), repeat)
    Xg = part.Xt[part._gorder]
    yl = part._gsign
    iters = solves = 0
    chosen: list[int] = []
    for f in res.order:
        cands = [j for j in range(Xg.shape[1]) if j not in chosen]
        for j in cands:
            Xs = Xg[:, chosen + [j]]
            svc = SVC(kernel="precomputed", C=1.0, tol=1e-3).fit(Xs @ Xs.T, yl)
            iters += int(np.sum(svc.n_iter_))
            solves += 1
        chosen.append(int(f))
    n = Xg.shape[0]
    print(f"   SVM bolstered: {1e3 * cpus:.1f} ms, {solves} solves, {iters} SMO iterations "
          f"({iters / solves:.1f} per solve; {1e9 * cpus / iters:.0f} ns per iteration, the "
          f"whole search included; at least {3 * n} operations each)")


def part_wide(repeat: int, quick: bool) -> None:
    from stablefs._errors import StablefsError
    from stablefs.datasets import load
    from stablefs.selectors import SBS
    from stablefs.selectors.wrappers._lda_criterion import LDAPart

    print("6. backward searches on Colon (62 x 2000, log2), bolstered LDA (CPU)")
    try:
        d = load("colon")
    except StablefsError as exc:
        print(f"   skipped: {exc}")
        return
    X = np.log2(np.maximum(d.X, 0) + 1)
    y = d.y
    updates = LDAPart._wide_values

    def refits(self, cols, J, sign):
        return None

    try:
        for p in (200, 500):
            crit = make_criterion(X[:, :p], y, estimator="lda", criterion="bolstered")
            cols = np.arange(p)
            best, vals = {}, {}
            for _ in range(max(1, repeat // 2)):
                for label, fn in (("refits", refits), ("updates", updates)):
                    LDAPart._wide_values = fn
                    cpu, _, vals[label] = timed(lambda c=crit, s=cols: c.errors_remove(s))
                    best[label] = min(best.get(label, np.inf), cpu)
            diff = np.abs(vals["updates"] - vals["refits"]).max()
            print(f"   one backward step from {p:4d} genes: refits {best['refits']:7.3f} s, "
                  f"updates {best['updates']:7.4f} s, ratio "
                  f"{best['refits'] / best['updates']:5.0f}x; largest difference {diff:.1e}")
    finally:
        LDAPart._wide_values = updates
    crit = make_criterion(X, y, estimator="lda", criterion="bolstered")
    cpu, _, _ = timed(lambda: crit.errors_remove(np.arange(X.shape[1])))
    print(f"   one backward step from 2000 genes: updates {cpu:.3f} s")
    part_wide_svm(X, y, repeat, quick)
    try:
        s = load("srbct")
    except StablefsError as exc:
        print(f"   SRBCT skipped: {exc}")
    else:
        try:
            for p in (300, 600):
                crit = make_criterion(s.X[:, :p], s.y, estimator="lda", criterion="bolstered",
                                      random_state=0)
                cols = np.arange(p)
                best, vals = {}, {}
                for label, fn in (("refits", refits), ("updates", updates)):
                    LDAPart._wide_values = fn
                    cpu, _, vals[label] = timed(lambda c=crit, s=cols: c.errors_remove(s))
                    best[label] = cpu
                diff = np.abs(vals["updates"] - vals["refits"]).max()
                print(f"   SRBCT (4 classes, Monte-Carlo bolstering), one backward step from "
                      f"{p} genes: refits {best['refits']:.3f} s, updates "
                      f"{best['updates']:.4f} s, ratio {best['refits'] / best['updates']:.0f}x;"
                      f" largest difference {diff:.1e}")
        finally:
            LDAPart._wide_values = updates
    try:
        from mlxtend.feature_selection import SequentialFeatureSelector
    except ImportError:
        print("   mlxtend is not installed: pip install -e '.[bench]'")
    else:
        from sklearn.dummy import DummyClassifier

        X100 = X[:, :100]
        c1, _, ours = timed(lambda: SBS(10, estimator="lda").fit(X100, y), repeat)
        c2, _, ref = timed(lambda: SequentialFeatureSelector(
            DummyClassifier(), k_features=10, forward=False, cv=0, n_jobs=1,
            scoring=lambda est, Xs, ys: -bolstered_error(Xs, ys, "lda")).fit(X100, y), 1)
        same = set(ours.get_support(indices=True)) == set(ref.k_feature_idx_)
        print(f"   SBS of 10 from 100 genes: stablefs {c1:.3f} s, mlxtend {c2:.1f} s: ratio "
              f"{c2 / c1:.0f}x; same subset: {same}")
    if not quick:
        cpu, wall, est = timed(lambda: SBS(10, estimator="lda").fit(X, y))
        print(f"   SBS of 10 from all 2000 genes: {cpu:.1f} s CPU, {wall:.1f} s wall; genes "
              f"{est.get_support(indices=True).tolist()}")


def part_wide_svm(X, y, repeat: int, quick: bool) -> None:
    """Backward steps of the bolstered linear SVM on Colon: every subset's SVM on its own
    kernel (refits) against kernels downdated from the step's (``svc_duals_remove``)."""
    from stablefs.selectors import SBS
    from stablefs.selectors.wrappers._svm_criterion import SVMPart

    print("   bolstered linear SVM (the same compiled solver on each subset's kernel):")
    downdated = SVMPart._fits_remove

    def refits(self, cols):
        return self._fits([np.delete(cols, q) for q in range(cols.size)])

    try:
        for p in (500, 2000):
            crit = make_criterion(X[:, :p], y, estimator="svm", criterion="bolstered")
            cols = np.arange(p)
            best, vals = {}, {}
            for _ in range(max(1, repeat // 3) if p < 2000 else 1):
                for label, fn in (("refits", refits), ("downdates", downdated)):
                    SVMPart._fits_remove = fn
                    cpu, _, vals[label] = timed(lambda c=crit, s=cols: c.errors_remove(s))
                    best[label] = min(best.get(label, np.inf), cpu)
            same = np.array_equal(vals["refits"], vals["downdates"])
            print(f"   one backward step from {p:4d} genes: refits {best['refits']:6.2f} s, "
                  f"downdates {best['downdates']:6.3f} s, ratio "
                  f"{best['refits'] / best['downdates']:4.1f}x; same values: {same}")
    finally:
        SVMPart._fits_remove = downdated
    if not quick:
        cpu, wall, est = timed(lambda: SBS(10, estimator="svm").fit(X[:, :500], y))
        print(f"   SVM SBS of 10 from 500 genes: {cpu:.1f} s CPU, {wall:.1f} s wall; genes "
              f"{est.get_support(indices=True).tolist()}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-r", "--repeat", type=int, default=5)
    ap.add_argument("--runs", type=int, default=1000, help="CRIDD Monte-Carlo runs")
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: search,mlxtend,"
                    "cridd,compiled,limits,wide")
    args = ap.parse_args(argv)
    if args.quick:
        args.repeat, args.runs = 2, 100
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    print(f"Python {platform.python_version()}, NumPy {np.__version__}, {platform.machine()}")
    d = make_xiao2007("equal", n_samples=50, random_state=0)
    if "search" not in skip:
        part_search(d.X, d.y, args.repeat)
    if "mlxtend" not in skip:
        part_mlxtend(d.X, d.y, args.repeat)
    if "cridd" not in skip:
        part_cridd(args.runs, args.n_jobs)
    if "compiled" not in skip:
        part_compiled(d.X, d.y, args.repeat)
    if "limits" not in skip:
        part_limits(d.X, d.y, args.repeat)
    if "wide" not in skip:
        part_wide(args.repeat, args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
