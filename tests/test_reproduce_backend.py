"""``stablefs reproduce --backend dask``: the same files as local workers, options checked
before any work."""

from __future__ import annotations

import json

import pytest

from stablefs._errors import EXIT_RESOURCE, EXIT_USAGE
from stablefs.cli import main


def _tiny_cridd():
    from stablefs.experiments import get_experiment
    from stablefs.experiments._base import config_from

    exp = get_experiment("xiao2007-cridd")
    config = config_from(exp.quick_config(), {
        "sample_sizes": (20,), "classifiers": ("lda",), "cvs": ("cv5",),
        "selectors": ("ttest", "sfs"), "n_runs": 6, "runs_per_unit": 1, "n_test": 300,
        "n_bootstrap": 30})
    exp.check_config(config)
    return exp, config


@pytest.mark.slow
def test_dask_local_cluster_writes_the_files_of_local_workers(tmp_path):
    pytest.importorskip("dask.distributed")
    from stablefs.experiments import reproduce

    exp, config = _tiny_cridd()
    loky = reproduce(exp, config, tmp_path / "loky", seed=3, n_jobs=2, figures=False)
    dask = reproduce(exp, config, tmp_path / "dask", seed=3, n_jobs=2, figures=False,
                     backend="dask")
    for name in ("claims.csv", "tables/cridd.csv"):
        assert (loky.out_dir / name).read_bytes() == (dask.out_dir / name).read_bytes(), name
    info = json.loads((dask.out_dir / "run.json").read_text())
    assert info["backend"] == "dask" and info["scheduler"] is None
    assert json.loads((loky.out_dir / "run.json").read_text())["backend"] == "loky"


def test_units_backend_routes_run_units_to_the_cluster(monkeypatch):
    """Inside ``units_backend("dask")`` even ``n_jobs=1`` goes through joblib's Parallel
    (the cluster's workers), and outside it nothing changes."""
    import joblib

    from stablefs.experiments import _montecarlo as mc

    seen = []

    class Recorder(joblib.Parallel):
        def __init__(self, *args, **kwargs):
            seen.append(kwargs.get("n_jobs"))
            super().__init__(*args, **{**kwargs, "n_jobs": 1})

    monkeypatch.setattr(joblib, "Parallel", Recorder)
    keys = [(0, i) for i in range(3)]
    plain = mc.run_units(_square, keys, study="t", n_jobs=1)
    assert seen == []
    token = mc._BACKEND.set("dask")
    try:
        routed = mc.run_units(_square, keys, study="t", n_jobs=1)
    finally:
        mc._BACKEND.reset(token)
    assert seen == [-1]
    assert [r["v"].tolist() for r in plain] == [r["v"].tolist() for r in routed] == [[0], [1],
                                                                                   [4]]


def _square(key):
    import numpy as np

    return {"v": np.array([key[1] ** 2])}


@pytest.mark.parametrize("args, message", [
    (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler needs --backend dask"),
    (["--backend", "dask", "--scheduler", "tcp://127.0.0.1:1"], "cannot be reached"),
    (["--backend", "dask", "--scheduler", "no-port"], "cannot read the scheduler address"),
])
def test_bad_backend_options_fail_in_one_line_before_any_work(tmp_path, capsys, args,
                                                              message):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "run"
    code = main(["reproduce", "xiao2007-cridd", "--quick", "--out", str(out), *args])
    err = capsys.readouterr().err
    assert code == (EXIT_RESOURCE if message == "cannot be reached" else EXIT_USAGE)
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
