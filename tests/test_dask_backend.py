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
