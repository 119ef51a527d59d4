"""The methods of Yu, Ding and Loscalzo (2008, sec. 6.1) as one Monte-Carlo unit of
``stablefs reproduce yu2008-drags`` fits them: DGF, DRAGS, K-means over features and SVM-RFE
on a training part (or the full data), their groups stored as flat arrays, and the accuracy of
the classifiers on the top k features.

The unit itself (which training part, which seed) is
:func:`stablefs.experiments.yu2008_drags.protocol._unit`.
"""

from __future__ import annotations

import warnings

import numpy as np

from stablefs.experiments._montecarlo import draw_state

__all__ = ["fit_methods", "pack_groups", "top_k_accuracy", "unpack_groups"]


def pack_groups(groups, prefix: str, out: dict) -> None:
    """Ragged groups as ``prefix:members`` (concatenated) and ``prefix:offsets``."""
    sizes = [len(g) for g in groups]
    out[f"{prefix}:members"] = (np.concatenate([np.asarray(g, dtype=np.int32) for g in groups])
                                if groups else np.empty(0, np.int32))
    out[f"{prefix}:offsets"] = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def unpack_groups(res: dict, prefix: str) -> list[np.ndarray]:
    """The groups :func:`pack_groups` stored under ``prefix``."""
    m, o = res[f"{prefix}:members"], res[f"{prefix}:offsets"]
    return [m[o[i]:o[i + 1]] for i in range(o.size - 1)]


def _order(selector) -> np.ndarray:
    """Features in rank order (best first)."""
    return np.argsort(selector.ranking_, kind="stable")


def fit_methods(X: np.ndarray, y: np.ndarray, cfg: dict, rng: np.random.Generator) -> dict:
    """DGF, DRAGS, K-means (every K of Fig. 2 and the selection K) and SVM-RFE on one
    training part (or the full data)."""
    from stablefs.selectors import DGF, DRAGS, SVMRFE, KMeansGroups

    kmax = max(cfg["sizes"])
    out: dict[str, np.ndarray] = {}
    dgf = DGF(n_neighbors=cfg["n_neighbors"], kernel=cfg["kernel"],
              self_neighbor=cfg["self_neighbor"]).fit(X)
    pack_groups(dgf.groups_[: max(cfg["dgf_sizes"])], "dgf", out)
    out["dgf:n_groups"] = np.array(len(dgf.groups_))
    out["dgf:bandwidth"] = np.array(dgf.bandwidth_)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # fewer groups than k: recorded below
        drags = DRAGS(n_features_to_select=kmax, n_neighbors=cfg["n_neighbors"],
                      kernel=cfg["kernel"], self_neighbor=cfg["self_neighbor"]).fit(X, y)
    pack_groups(drags.groups_[:kmax], "drags", out)
    out["drags:n_groups"] = np.array(len(drags.groups_))
    out["drags:order"] = _order(drags)[:kmax].astype(np.int32)
    for K in cfg["kmeans_sizes"]:
        km = KMeansGroups(n_clusters=K, n_init=cfg["kmeans_n_init"],
                          random_state=draw_state(rng)).fit(X, y)
        pack_groups(km.groups_, f"km{K}", out)
    km = KMeansGroups(n_clusters=cfg["kmeans_clusters"], n_init=cfg["kmeans_n_init"],
                      n_features_to_select=kmax,
                      random_state=draw_state(rng)).fit(X, y)
    pack_groups(km.groups_[:kmax], "kmeans", out)
    out["kmeans:order"] = _order(km)[:kmax].astype(np.int32)
    rfe = SVMRFE(n_features_to_select=min(cfg["sizes"]), step="halve").fit(X, y)
    out["rfe:order"] = _order(rfe)[:kmax].astype(np.int32)
    pack_groups([[j] for j in out["rfe:order"]], "rfe", out)
    return out


def top_k_accuracy(Xtr, ytr, Xte, yte, order, sizes, classifiers) -> np.ndarray:
    """(len(sizes), len(classifiers)) accuracies on the top-k features of ``order``."""
    from stablefs.evaluation.classifiers import make_classifier

    acc = np.empty((len(sizes), len(classifiers)))
    for i, k in enumerate(sizes):
        cols = order[:k]
        for j, name in enumerate(classifiers):
            model = make_classifier(name).fit(Xtr[:, cols], ytr)
            acc[i, j] = float(np.mean(model.predict(Xte[:, cols]) == yte))
    return acc
