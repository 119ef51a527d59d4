"""nPOGR over the random splits of ``stablefs reproduce han2012-microarray`` (Han 2012,
sec. 7.4, eq. 5.8; Zhang et al. 2009): the expression values the genes are correlated on, one
Monte-Carlo unit per (data set, k) that scores every method's subsets of the splits, and the
table of the results with their pair scores for the bootstrap.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from stablefs.experiments._montecarlo import draw_state, run_units, unit_seed

__all__ = ["npogr_data", "npogr_study", "npogr_unit"]


def npogr_data(X: np.ndarray) -> np.ndarray:
    """The expression values nPOGR correlates: the preprocessing of Dudoit, Fridlyand and
    Speed (2002) — floor 100, ceiling 16,000, log10 — then every array (sample) standardised
    across its genes, which removes the array-wide intensity factor that makes raw genes
    correlated with one another."""
    L = np.log10(np.clip(X, 100.0, 16000.0))
    sd = L.std(axis=1, keepdims=True)
    return (L - L.mean(axis=1, keepdims=True)) / np.where(sd > 0, sd, 1.0)


def npogr_unit(key, *, cfg: dict, seed: int, data: dict, orders: dict,
               methods: list[str]) -> dict:
    """nPOGR of every method at one (data set, k) over the splits' subsets (eq. 5.8); E(O)
    is estimated once (its random subset pairs depend on the data set and k only) and
    shared by the methods. ``key`` is ``(study, data set, index of k)``."""
    from stablefs._runtime.threads import limit_threads
    from stablefs.stability.correlated import _npogr_pairs

    _, d, a = key
    name, k = cfg["datasets"][d], cfg["split_sizes"][a]
    Z = npogr_data(data[name][0])
    state = draw_state(np.random.default_rng(unit_seed(seed, *key)))
    out: dict[str, np.ndarray] = {}
    e_o = None
    with limit_threads(1):
        for spec in methods:
            subsets = orders[(name, spec)][:, :k]
            scores, e_o = _npogr_pairs(list(subsets), Z, fdr=cfg["npogr_fdr"],
                                       n_pairs=cfg["npogr_pairs"], random_state=state,
                                       expected_correlated=e_o)
            out[f"{spec}:values"] = scores.values
    out["e_o"] = np.array(e_o)
    return out


def npogr_study(c, names: list[str], methods: list[str], data: dict, orders: dict,
                p: dict, seed: int, *, study: int, n_jobs: int = 1, progress: bool = False,
                cache=None) -> tuple[pd.DataFrame, dict]:
    """nPOGR of every (data set, method, k) over the splits.

    Parameters
    ----------
    c : Han2012MicroarrayConfig
    names, methods : list of str
        The data sets and method keys of the run.
    data : dict
        ``{name: (X, y)}``.
    orders : dict
        ``{(name, method): int ndarray (splits, max k)}``: each split's top genes.
    p : dict
        Genes per data set.
    seed, study : int
        The run's seed and the study number of the units' keys.
    n_jobs, progress, cache
        As :func:`~stablefs.experiments._montecarlo.run_units`.

    Returns
    -------
    table : DataFrame
        ``tables/npogr.csv``: ``dataset, method, k, npogr, E_O, E_r``.
    pairs : dict
        ``{(name, method, k): PairScores}`` for the bootstrap over the splits.
    """
    import dataclasses

    from stablefs.stability._common import PairScores, pair_index

    keys = [(study, d, a) for d in range(len(names)) for a in range(len(c.split_sizes))]
    results = run_units(npogr_unit, keys, study="npogr",
                        common={"cfg": dataclasses.asdict(c), "seed": seed, "data": data,
                                "orders": orders, "methods": list(methods)},
                        n_jobs=n_jobs, progress=progress, cache=cache, desc="nPOGR")
    i, j = pair_index(c.n_splits)
    rows = []
    pairs: dict[tuple[str, str, int], PairScores] = {}
    for (_, d, a), res in zip(keys, results, strict=True):
        name, k = names[d], c.split_sizes[a]
        e_o = float(res["e_o"])
        for spec in methods:
            scores = PairScores(np.asarray(res[f"{spec}:values"]), i, j, c.n_splits)
            pairs[(name, spec, k)] = scores
            rows.append((name, spec, k, scores.mean, e_o, k * k / p[name]))
    return pd.DataFrame(rows, columns=["dataset", "method", "k", "npogr", "E_O", "E_r"]), pairs
