"""Peer comparison of stability selection: cpss 1.0.0 (PyPI; elastic-net logistic CPSS of Shah
and Samworth 2013) against stablefs's StabilitySelection on Colon (log2), the same base
(elastic-net logistic, l1_ratio 0.5, C = cpss's C_ref), q = 20, 20 complementary pairs.

``stability-selection`` (scikit-learn-contrib) is not installable here (no distribution in
the package index), hence cpss. Run: ``pip install cpss``, then
``STABLEFS_DATA=../shared/datasets PYTHONPATH=src python benchmarks/bench_stabsel_peer.py``.

Measured 2026-11-25 (2 cores shared, load average 12-14):

    C_ref = 0.08685; q = 20; p = 2000; 20 complementary pairs
    MB threshold for PFER 1 (cpss): 0.6000; our bound at it: 1.0000
    r-concave threshold (cpss only): 0.4250
    correlation of selection probabilities: 0.814
    max |difference| over features: 0.525
    top-20 by probability, overlap: 15/20
    stable sets at the MB threshold: ours 11, cpss 4, common 4
    time: cpss 943.3 s, stablefs 10.0 s (n_jobs=2)

The bound agrees exactly. The probabilities differ by design: cpss counts a feature only when
its coefficient is nonzero (at most q of them), stablefs's generic ``stabsel-`` counts the top q
of the ranking, zero coefficients ordered by the gradient, so its probabilities are higher and
its stable set (11) contains cpss's (4); the halves are drawn differently (Monte-Carlo noise).
cpss fits with scikit-learn's saga, stablefs with FISTA on a working set.
"""
import contextlib
import io
import time

import numpy as np
import pandas as pd
from cpss.config import Config
from cpss.feature_selection import stability_selection_elasticnet

from stablefs.datasets import load
from stablefs.selectors import ElasticNetLogistic
from stablefs.stabilizers import StabilitySelection
from stablefs.stabilizers.stability_selection import error_bound

ds = load("colon", log2=True)
X = pd.DataFrame(ds.X, columns=ds.feature_names)
y = (ds.y == "t").astype(int)
cfg = Config(dict(data_file="", label_file="", case_name="t", control_name="n", group_column="g",
                  sample_id_column="s", random_state=0, max_missing=1.0, log_transform=False,
                  imputation_strategy="median", max_iterations=2000, l1_ratio=0.5,
                  max_candidates=20, stability_iterations=40, stability_pfer=1.0, n_jobs=2))
t = time.time()
with contextlib.redirect_stdout(io.StringIO()):
    stable, thr, probs, C_ref, info = stability_selection_elasticnet(X, y, cfg)
t_peer = time.time() - t
p_peer = np.array([probs.get(f, 0.0) for f in ds.feature_names])
t = time.time()
ours = StabilitySelection(ElasticNetLogistic(C=C_ref, l1_ratio=0.5), n_subsamples=20, q=20,
                          threshold=info["mb_threshold"], random_state=0, n_jobs=2).fit(ds.X, ds.y)
t_ours = time.time() - t
print(f"C_ref = {C_ref:.4g}; q = 20; p = {ds.n_features}; 20 complementary pairs")
print(f"MB threshold for PFER 1 (cpss): {info['mb_threshold']:.4f}; our bound at it: "
      f"{error_bound(20, info['mb_threshold'], ds.n_features):.4f}")
print(f"r-concave threshold (cpss only): {thr:.4f}")
top = np.argsort(-p_peer)[:20]
print(f"correlation of selection probabilities: {np.corrcoef(p_peer, ours.scores_)[0, 1]:.3f}")
print(f"max |difference| over features: {np.abs(p_peer - ours.scores_).max():.3f}")
print(f"top-20 by probability, overlap: {len(set(top) & set(np.argsort(ours.ranking_)[:20]))}/20")
s_ours = set(ds.feature_names[ours.stable_set_])
s_peer = {f for f in ds.feature_names if probs.get(f, 0) >= info["mb_threshold"]}
print(f"stable sets at the MB threshold: ours {len(s_ours)}, cpss {len(s_peer)}, "
      f"common {len(s_ours & s_peer)}")
print(f"time: cpss {t_peer:.1f} s, stablefs {t_ours:.1f} s (n_jobs=2)")
