"""Evidence of signal for the published leaderboard's sets: a permutation test per set.

The published run (``docs/leaderboard.md``) was made with ``--permutations 0``: the leaderboard's
own test repeats the choice among all 13 methods (stability selection on the 10-class
Nakayama set included) in every permutation, several times the cost of the whole grid. This
script tests each set with the same machinery (:func:`stablefs.evaluation.permutation.
permutation_test`: labels permuted, the selector refitted on 3 resamples stratified on the
permuted labels, the choice of k repeated, Besag and Clifford's sequential stopping) for the
cheapest procedure, the t-test ranking with the recommendation rule's choice of k, on the
sets as the run prepared them (log2 of raw sets, the 2000-feature pre-filter, the run's
resamples and seed). Its statistic is the mean held-out balanced accuracy of the linear SVM.

Usage (from the repository, with the shared sets in ``STABLEFS_DATA``)::

    python docs/leaderboard/set_signal.py docs/leaderboard/signal.csv --repeats 20

Writes ``set, classes, chance, method, k, observed, permutation_p, permutations_used,
stopped, seconds``.
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

from stablefs.cli.benchmark import _load_sets, _sources
from stablefs.evaluation import benchmark as bm
from stablefs.evaluation.permutation import permutation_test
from stablefs.evaluation.protocols import Protocol
from stablefs.report.summary import choose_pair


def signal_table(repeats: int, seed: int, n_permutations: int, methods: list[str]
                 ) -> pd.DataFrame:
    """One row per local registry set: the permutation test of ``methods`` with the choice
    of k, on the set prepared as ``stablefs benchmark`` prepares it."""
    proto = Protocol.parse("split", repeats)
    rows = []
    for name, label, source, ds, reason, inputs in _load_sets(
            _sources(None, [], False, 3), seed=seed):
        if ds is None:
            print(f"{name}: left out ({reason})")
            continue
        b = bm.prepare_set(ds, name, label, sizes=bm.DEFAULT_SIZES, protocol=proto,
                           seed=seed, prefilter=bm.PREFILTER, source=source, inputs=inputs)
        if not b.included:
            print(f"{name}: left out ({b.excluded})")
            continue
        X, y = b.dataset.X, b.dataset.y
        t0 = time.perf_counter()
        test = permutation_test(X, y, methods, b.sizes, protocol=proto, choose=choose_pair,
                                classifier="svm", measure="nogueira",
                                resamples=proto.resamples(y, seed),
                                n_permutations=n_permutations, random_state=seed, n_jobs=1,
                                prefilter=b.prefilter)
        n_classes = len(set(y.tolist()))
        rows.append({"set": name, "classes": n_classes, "chance": 1.0 / n_classes,
                     "method": test.method, "k": test.k, "observed": test.observed,
                     "permutation_p": test.p_value, "permutations_used": test.n_used,
                     "stopped": test.stopped, "seconds": time.perf_counter() - t0})
        print(f"{name}: {test.method} k={test.k} balanced accuracy {test.observed:.3f} "
              f"(chance {1 / n_classes:.3f}), p = {test.p_value:.4f} over {test.n_used} "
              f"permutations", flush=True)
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="CSV file to write")
    parser.add_argument("--repeats", type=int, default=bm.DEFAULT_REPEATS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--permutations", type=int, default=100)
    parser.add_argument("-m", "--methods", default="ttest")
    args = parser.parse_args()
    table = signal_table(args.repeats, args.seed, args.permutations,
                         args.methods.split(","))
    table.to_csv(args.out, index=False, float_format="%.6g")


if __name__ == "__main__":
    main()
