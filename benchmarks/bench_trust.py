"""Cost of the checks of a recommendation against the plain comparison (issue 17).

On Lung (181 x 12533; Gordon et al. 2002), with ``stablefs compare``'s defaults (relieff,
iw-relieff, en-relieff; 20 stratified 2/3 splits; k = 10..50; SVM and 1NN), the script times

1. the plain comparison (``run_experiment``: every fit and evaluation, the stability
   intervals and the paired tests; data loading and the report excluded);
2. the permutation test of the procedure with the default settings (100 permutations x 3
   resamples x every method, the choice repeated in each; sequential stopping);
3. the nested estimate with the default settings (5 outer resamples x 3 inner splits x
   every method);

and prints each cost as a multiple of the plain comparison's (target of issue 17: the
default checks add at most 2x). Everything runs on one worker (``--n-jobs`` to change);
``uptime`` is printed beside the times because the machine is shared.

Run: ``PYTHONPATH=src python benchmarks/bench_trust.py [--data DIR] [--set lung]
[--repeats 20] [--n-jobs 1]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time

from stablefs.datasets import load
from stablefs.evaluation.baseline import baseline_means
from stablefs.evaluation.nested import DEFAULT_INNER, DEFAULT_OUTER, nested_estimate
from stablefs.evaluation.permutation import (
    DEFAULT_PERMUTATION_RESAMPLES,
    DEFAULT_PERMUTATIONS,
    permutation_test,
)
from stablefs.evaluation.protocols import Protocol
from stablefs.evaluation.runner import run_experiment
from stablefs.report.summary import choose_pair, recommend_from_tables
from stablefs.report.tables import parse_metric


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.environ.get("STABLEFS_DATA", "../shared/datasets"))
    ap.add_argument("--set", default="lung")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--permutations", type=int, default=DEFAULT_PERMUTATIONS)
    ap.add_argument("--permutation-resamples", type=int, default=DEFAULT_PERMUTATION_RESAMPLES)
    args = ap.parse_args()
    os.environ["STABLEFS_DATA"] = args.data
    ds = load(args.set)
    methods, sizes = ["relieff", "iw-relieff", "en-relieff"], [10, 20, 30, 40, 50]
    proto = Protocol("split", args.repeats)
    print(f"{ds!r}; {proto.describe()}; methods {', '.join(methods)}; n_jobs {args.n_jobs}")
    print("load before:", subprocess.run(["uptime"], capture_output=True, text=True).stdout
          .strip())

    t0 = time.perf_counter()
    result = run_experiment(ds.X, ds.y, methods, sizes, protocol=proto,
                            classifiers=["svm", "1nn"], measures=["nogueira"],
                            random_state=0, n_jobs=args.n_jobs)
    plain = time.perf_counter() - t0
    rec = recommend_from_tables(result.results, result.stability)
    clf = parse_metric(rec.metric)[1]
    base = baseline_means(result.baseline)
    print(f"plain comparison: {plain:.1f} s; recommended {rec.method} at k={rec.k:g}; "
          f"majority-class accuracy {base['accuracy']:.3f}")

    resamples = proto.resamples(ds.y, 0)
    t0 = time.perf_counter()
    perm = permutation_test(ds.X, ds.y, methods, sizes, protocol=proto, choose=choose_pair,
                            classifier=clf, measure=rec.measure, resamples=resamples,
                            n_permutations=args.permutations,
                            n_resamples=args.permutation_resamples, n_jobs=args.n_jobs)
    t_perm = time.perf_counter() - t0
    print(f"permutation test: {t_perm:.1f} s = {t_perm / plain:.2f} x plain; "
          f"{perm.n_used} permutations x {perm.n_resamples} resamples; observed "
          f"{perm.observed:.3f}, null mean {perm.statistics.mean():.3f}, p = {perm.p_value:.4f}")

    t0 = time.perf_counter()
    nested = nested_estimate(ds.X, ds.y, methods, sizes, resamples=resamples,
                             results=result.results, selections=result.selections,
                             recommended=(rec.method, rec.k), choose=choose_pair,
                             classifier=clf, metric=rec.metric, measure=rec.measure,
                             n_outer=DEFAULT_OUTER, n_inner=DEFAULT_INNER, n_jobs=args.n_jobs)
    t_nested = time.perf_counter() - t0
    print(f"nested estimate: {t_nested:.1f} s = {t_nested / plain:.2f} x plain; "
          f"{nested.fits} fits; accuracy nested {nested.nested:.3f} vs plain "
          f"{nested.plain:.3f} (gap {nested.gap:+.3f}); choice agreement "
          f"{nested.agreement:.2f}")
    print(f"checks together: {(t_perm + t_nested) / plain:.2f} x plain (target <= 2)")
    print("load after:", subprocess.run(["uptime"], capture_output=True, text=True).stdout
          .strip())


if __name__ == "__main__":
    main()
