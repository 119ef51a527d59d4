r"""Matching-based similarity of two sets of feature groups (Yu, Ding and Loscalzo 2008).

A result R is a set of feature groups {G_1, …}; a plain subset is the special case of
single-feature groups. Two results define a complete weighted bipartite graph between
their groups; with M a maximum-weight matching (Hungarian algorithm,
``scipy.optimize.linear_sum_assignment``)

    Sim^M(R_1, R_2) = Σ_{(G_i, G_j) ∈ M} w(G_i, G_j) / |M|          (eq. 6)

where |M| = min(|R_1|, |R_2|), the size of a maximum matching of the complete bipartite
graph (zero-weight edges count). Weights:

* ``by="index"`` (Sim^M_ID): w = Sim_ID(G_i, G_j) = 2|G_i ∩ G_j| / (|G_i| + |G_j|) (eq. 5);
* ``by="value"`` (Sim^M_V): w = Pearson correlation (across samples) of the group centres,
  a centre being the mean of the group's standardised feature columns of X (for
  single-feature groups: the correlation of the two features).

For plain subsets Sim^M_ID = |S_1 ∩ S_2| / min(|S_1|, |S_2|); the paper's remark that it
"becomes Sim_ID" holds exactly only for equal sizes (then both are |S_1 ∩ S_2| / k).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.optimize import linear_sum_assignment

from stablefs._errors import StablefsError
from stablefs.stability._inputs import (
    check_feature_names,
    names_in,
    names_to_indices,
    plain,
)

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal, TypeAlias

    from numpy.typing import ArrayLike

    from stablefs.stability._inputs import FeatureNames, Subset

    #: one result: a set of groups (each an index collection) or a plain subset
    Groups: TypeAlias = Sequence[Subset] | Subset

__all__ = ["matching_similarity", "matching_stability"]


def _lookup(feature_names) -> dict | None:
    names = check_feature_names(feature_names)
    return None if names is None else {x: i for i, x in enumerate(names)}


def _as_groups(groups, what: str, lookup: dict | None = None) -> list[np.ndarray]:
    if isinstance(groups, (str, bytes)) or groups is None:
        raise StablefsError(f"{what} must be a sequence of feature groups or a subset.")
    if isinstance(groups, np.ndarray) and groups.ndim == 1 and groups.dtype == bool:
        groups = np.flatnonzero(groups)
    if isinstance(groups, (set, frozenset)):
        groups = sorted(groups)
    items = list(groups)
    if not items:
        raise StablefsError(f"{what} is empty: at least one group (or feature) is needed.")
    if all(np.ndim(g) == 0 for g in items):          # a plain subset: singleton groups
        items = [[g] for g in items]
    out = []
    for pos, g in enumerate(items):
        names = names_in(g)
        if names is not None:
            g = names_to_indices(names, pos, f"group of {what}", lookup)
        if isinstance(g, (set, frozenset)):
            g = sorted(g)
        arr = np.asarray(g)
        if arr.ndim == 0:
            arr = arr.reshape(1)
        if arr.ndim != 1 or arr.size == 0:
            raise StablefsError(f"group {pos} of {what} is empty or not a 1-D index collection.")
        if arr.dtype.kind not in "iu":
            raise StablefsError(f"group {pos} of {what} holds non-integer feature indices.")
        if arr.min() < 0:
            raise StablefsError(f"group {pos} of {what} has a negative feature index.")
        u = np.unique(arr)
        if u.size != arr.size:
            raise StablefsError(f"group {pos} of {what} lists a feature twice.")
        out.append(u.astype(np.int64))
    return out


def _index_weights(A: list[np.ndarray], B: list[np.ndarray]) -> np.ndarray:
    feats = np.unique(np.concatenate(A + B))
    IA = np.zeros((len(A), feats.size))
    IB = np.zeros((len(B), feats.size))
    for r, g in enumerate(A):
        IA[r, np.searchsorted(feats, g)] = 1.0
    for r, g in enumerate(B):
        IB[r, np.searchsorted(feats, g)] = 1.0
    inter = IA @ IB.T
    sa = np.array([g.size for g in A], dtype=float)
    sb = np.array([g.size for g in B], dtype=float)
    return 2 * inter / (sa[:, None] + sb[None, :])


def _centres(X: np.ndarray, groups: list[np.ndarray], feats: np.ndarray) -> np.ndarray:
    """Group centres (n_samples × n_groups) from the standardised columns of ``feats`` only."""
    Xs = X[:, feats]
    Xs = Xs - Xs.mean(axis=0)
    sd = Xs.std(axis=0)
    Xs = np.divide(Xs, sd, out=np.zeros_like(Xs), where=sd > 0)
    return np.column_stack([Xs[:, np.searchsorted(feats, g)].mean(axis=1) for g in groups])


def _value_weights(A, B, X) -> np.ndarray:
    if X is None:
        raise StablefsError('by="value" compares feature values: pass X (n_samples × n_features).')
    X = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2:
        raise StablefsError("X must be a 2-D array with at least 2 samples.")
    feats = np.unique(np.concatenate(A + B))
    if feats.max() >= X.shape[1]:
        raise StablefsError(
            f"feature index {int(feats.max())} is outside X's {X.shape[1]} columns."
        )
    if not np.all(np.isfinite(X[:, feats])):
        raise StablefsError("X contains missing or infinite values in the grouped features.")
    ca, cb = _centres(X, A, feats), _centres(X, B, feats)

    def unit(C):
        C = C - C.mean(axis=0)
        nrm = np.sqrt((C * C).sum(axis=0))
        return np.divide(C, nrm, out=np.zeros_like(C), where=nrm > 1e-12)

    return unit(ca).T @ unit(cb)


def matching_similarity(groups_a: Groups, groups_b: Groups, X: ArrayLike | None = None,
                        by: Literal["index", "value"] = "index", *,
                        feature_names: FeatureNames | None = None) -> float:
    r"""Sim^M_ID or Sim^M_V of two results by maximum weighted bipartite matching.

    Sim^M(R_1, R_2) = Σ_{(G_i, G_j) ∈ M} w(G_i, G_j) / |M|, M a maximum-weight matching of the
    complete bipartite graph between the groups of R_1 and R_2, |M| = min(|R_1|, |R_2|)
    (Yu, Ding and Loscalzo 2008, eqs. 5–6; see the module docstring for the weights).

    * Range: [0, 1] for ``by="index"`` (1 iff every group of the smaller result equals a
      group of the other); [−1, 1] for ``by="value"`` (signed correlations; a constant
      centre correlates 0 with everything).
    * Corrected for chance: no.
    * Needs: non-empty groups; X (n_samples × p) for ``by="value"``. Works for sets of
      groups (lists of index collections) and for plain subsets (a flat index list or a
      boolean mask = single-feature groups).

    Parameters
    ----------
    groups_a, groups_b : sequence of index collections, or a flat subset
        The two results: sets of feature groups, or plain subsets.
    X : array of shape (n_samples, p), optional
        Needed by ``by="value"``.
    by : {"index", "value"}
        Sim^M_ID (overlap of the groups) or Sim^M_V (correlation of their centres).
    feature_names : sequence of str, optional
        The p column names, in order; groups may then list names instead of indices.

    Returns
    -------
    float
        Sim^M.

    References
    ----------
    .. [1] L. Yu, C. Ding and S. Loscalzo, "Stable feature selection via dense feature
       groups", Proc. 14th ACM SIGKDD Int. Conf. on Knowledge Discovery and Data Mining,
       803–811, 2008, sec. 5, eqs. 5–6.

    Examples
    --------
    >>> from stablefs.stability import matching_similarity
    >>> round(matching_similarity([[0, 1, 2], [5, 6]], [[0, 1], [5, 6, 7], [9]]), 3)
    0.8

    Sim^M_V of two plain subsets on Han's correlated blocks:

    >>> from stablefs.datasets import make_han2012
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> round(matching_similarity([0, 10], [1, 11], X=data.X, by="value"), 3)
    0.858
    """
    lookup = _lookup(feature_names)
    A = _as_groups(groups_a, "groups_a", lookup)
    B = _as_groups(groups_b, "groups_b", lookup)
    if by == "index":
        W = _index_weights(A, B)
    elif by == "value":
        W = _value_weights(A, B, X)
    else:
        raise StablefsError(f'by = {plain(by)}: use "index" (Sim^M_ID) or "value" (Sim^M_V).')
    rows, cols = linear_sum_assignment(W, maximize=True)
    return float(W[rows, cols].sum() / min(len(A), len(B)))


def matching_stability(results: Sequence[Groups], reference: Groups | None = None,
                       X: ArrayLike | None = None, by: Literal["index", "value"] = "index", *,
                       feature_names: FeatureNames | None = None) -> float:
    r"""Average Sim^M over results: against ``reference`` or over all pairs.

    With a reference R (e.g. the groups found on the full data): (1/q) Σ_i Sim^M(R, R_i) (Yu,
    Ding and Loscalzo 2008, eq. 7); without, the mean over all q(q−1)/2 pairs (Han 2012,
    eq. 5.4). Range and requirements as :func:`matching_similarity`; q ≥ 1 with a reference, q ≥
    2 without.

    Parameters
    ----------
    results : sequence of results (each a set of groups or a plain subset)
        The q results.
    reference : one result, optional
        Compare every result with this one.
    X : array of shape (n_samples, p), optional
        Needed by ``by="value"``.
    by : {"index", "value"}
        As in :func:`matching_similarity`.
    feature_names : sequence of str, optional
        As in :func:`matching_similarity`.

    Returns
    -------
    float
        The mean Sim^M.

    References
    ----------
    .. [1] L. Yu, C. Ding and S. Loscalzo, "Stable feature selection via dense feature
       groups", Proc. 14th ACM SIGKDD Int. Conf. on Knowledge Discovery and Data Mining,
       803–811, 2008, sec. 5, eq. 7.
    .. [2] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, eq. 5.4.

    Examples
    --------
    The dense groups found on three resamples, against those found on all the data:

    >>> from stablefs.stability import matching_stability
    >>> results = [[[0, 1, 2], [5, 6]], [[0, 1], [5, 6, 7]], [[0, 2], [6]]]
    >>> round(matching_stability(results, reference=[[0, 1, 2], [5, 6, 7]]), 3)
    0.817
    >>> round(matching_stability(results), 3)
    0.678
    """
    results = list(results)
    kw = {"feature_names": feature_names}
    if reference is not None:
        if not results:
            raise StablefsError("no results given to compare with the reference.")
        return float(np.mean([matching_similarity(reference, r, X, by, **kw) for r in results]))
    if len(results) < 2:
        raise StablefsError(
            f"{len(results)} result(s) given: the pairwise average needs at least two "
            "(or pass reference=)."
        )
    vals = [matching_similarity(results[i], results[j], X, by, **kw)
            for i in range(len(results)) for j in range(i + 1, len(results))]
    return float(np.mean(vals))
