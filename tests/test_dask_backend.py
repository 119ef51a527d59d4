"""The Dask backend gives the same results as the default one (DESIGN: identical results for the
same seed, whatever the engine)."""

import numpy as np
import pytest

from stablefs.evaluation import run_experiment

pytest.importorskip("distributed", reason="Dask is optional: pip install 'stablefs[dask]'")


def test_dask_matches_loky():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 15)
    X = rng.normal(size=(30, 25))
    X[:, :3] += y[:, None]
    kw = dict(n_repeats=3, measures=["kuncheva"], random_state=2)
    a = run_experiment(X, y, ["ttest", "en-ttest(n_estimators=3)"], [4], **kw)
    b = run_experiment(X, y, ["ttest", "en-ttest(n_estimators=3)"], [4], backend="dask",
                       n_jobs=2, **kw)
    for ra, rb in zip(a.selections["ranking"], b.selections["ranking"]):
        np.testing.assert_array_equal(ra, rb)
    np.testing.assert_allclose(a.stability["estimate"], b.stability["estimate"])


def test_one_dask_client_serves_every_phase_of_a_comparison(monkeypatch):
    """The comparison, the permutation test and each outer resample of the nested estimate
    share one local cluster (each used to start and close its own), with the same files."""
    import pandas as pd

    import stablefs
    from stablefs.evaluation import runner

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 20))
    y = np.repeat(["a", "b"], 15)
    X[y == "b", :3] += 3  # clear signal: the permutation test of the procedure passes
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(20)])
    frame.insert(0, "label", y)
    kw = dict(methods="ttest,relieff", sizes=[3], repeats=4, classifiers="1nn",
              permutations=24, permutation_resamples=2, nested="2:2")
    clients = []
    real = runner._new_client
    monkeypatch.setattr(runner, "_new_client",
                        lambda *a, **k: clients.append(1) or real(*a, **k))
    dask = stablefs.compare(frame, backend="dask", n_jobs=2, **kw)
    assert len(clients) == 1
    loky = stablefs.compare(frame, **kw)
    pd.testing.assert_frame_equal(dask.stability, loky.stability)
    pd.testing.assert_frame_equal(dask.permutation, loky.permutation)
    assert len(dask.nested) == 2  # the nested estimate ran, on the same client
    pd.testing.assert_frame_equal(dask.nested, loky.nested)
