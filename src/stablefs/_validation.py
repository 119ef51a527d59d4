"""Input checks shared by selectors, stabilizers and the evaluation runner.

Each check raises :class:`stablefs.StablefsError` with one line that names the problem.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np

from stablefs._errors import StablefsError

if TYPE_CHECKING:
    from typing import TypeAlias

    #: a seed for scikit-learn's ``check_random_state``: an int, a ``RandomState`` or None
    RandomStateLike: TypeAlias = int | np.integer | np.random.RandomState | None
    #: a seed for NumPy's ``default_rng``: an int, a ``SeedSequence``, a ``Generator`` or None
    SeedLike: TypeAlias = int | np.integer | np.random.SeedSequence | np.random.Generator | None


def derive_seed(*parts: int) -> int:
    """A ``random_state`` in ``[0, 2**31 - 1)`` derived from non-negative whole numbers (a run
    seed, unit indices, tags) through :class:`numpy.random.SeedSequence`: the same parts always
    give the same seed, whatever the scheduling."""
    ss = np.random.SeedSequence([int(p) for p in parts])
    return int(ss.generate_state(1)[0] % (2**31 - 1))


def check_n_features_to_select(n_features_to_select, n_features: int) -> int:
    """Resolve ``n_features_to_select`` to an int in ``[1, n_features]``.

    ``None`` selects half of the features (at least one), as scikit-learn's ``RFE`` does;
    a float in ``(0, 1]`` is a fraction of the features; an int is taken as is.
    Anything else, or an int outside ``[1, n_features]``, is an error, never clipped.
    """
    if n_features_to_select is None:
        return max(1, n_features // 2)
    if isinstance(n_features_to_select, numbers.Integral) and not isinstance(
        n_features_to_select, bool
    ):
        k = int(n_features_to_select)
        if k <= 0:
            raise StablefsError(f"k = {k} features to select: k must be at least 1.")
        if k > n_features:
            raise StablefsError(
                f"k = {k} features to select, but the data has only {n_features} features: "
                f"choose k <= {n_features}."
            )
        return k
    if isinstance(n_features_to_select, numbers.Real):
        frac = float(n_features_to_select)
        if not 0.0 < frac <= 1.0:
            raise StablefsError(
                f"n_features_to_select = {frac} as a fraction must lie in (0, 1]."
            )
        return max(1, int(frac * n_features))
    raise StablefsError(
        f"n_features_to_select must be an int, a fraction in (0, 1] or None, "
        f"not {n_features_to_select!r}."
    )


def check_sizes(sizes, n_features: int) -> list[int]:
    """Check a list of subset sizes ``k`` against the number of features."""
    out = []
    for k in sizes:
        if isinstance(k, bool) or not isinstance(k, numbers.Integral):
            raise StablefsError(f"subset size k = {k} is not a whole number.")
        out.append(check_n_features_to_select(int(k), n_features))
    if not out:
        raise StablefsError("no subset size k given: pass at least one, e.g. -k 10,20.")
    return sorted(set(out))


def check_classes(y, *, min_per_class: int = 1, context: str = "") -> np.ndarray:
    """Check that ``y`` has at least two classes, each with ``min_per_class`` samples.

    Returns the sorted unique class labels.
    """
    classes, counts = np.unique(np.asarray(y), return_counts=True)
    where = f" {context}" if context else ""
    if classes.size < 2:
        only = str(classes[0]) if classes.size else "none"
        raise StablefsError(
            f"the labels{where} contain a single class ({only}): feature selection for "
            "classification needs at least two classes."
        )
    small = [(str(c), int(n)) for c, n in zip(classes, counts) if n < min_per_class]
    if small:
        shown = ", ".join(f"{c} has {n}" for c, n in small[:4])
        desc = shown + (f" and {len(small) - 4} more" if len(small) > 4 else "")
        raise StablefsError(
            f"a class has too few samples{where}: {desc}; at least {min_per_class} per class "
            "are needed (use fewer folds or drop the class)."
        )
    return classes


def rank_from_scores(scores: np.ndarray) -> np.ndarray:
    """Ranking 1..p from relevance scores: 1 = highest score, ties broken by lower index.

    NaN scores (e.g. a constant feature) rank after every finite score.
    """
    scores = np.asarray(scores, dtype=float)
    key = np.where(np.isnan(scores), -np.inf, scores)
    # lexsort sorts by the last key first: descending score, then ascending index
    order = np.lexsort((np.arange(scores.size), -key))
    return ranking_from_order(order)


def ranking_from_order(order: np.ndarray) -> np.ndarray:
    """Ranking 1..p from an order (the feature ranked first, then the second, ...): the
    inverse permutation, plus one. ``ranking_from_order(order)[order[i]] == i + 1``."""
    order = np.asarray(order)
    ranking = np.empty(order.size, dtype=np.int64)
    ranking[order] = np.arange(1, order.size + 1)
    return ranking


def refuse_anndata(X, what: str = "X") -> None:
    """One line for an ``anndata.AnnData`` passed where a data matrix is expected (instead of
    NumPy's or scikit-learn's message about array conversion)."""
    import sys

    module = sys.modules.get("anndata")
    if module is not None and isinstance(X, module.AnnData):
        raise StablefsError(
            f"{what} is an AnnData: pass its matrix and labels (adata.X, adata.obs['group']), "
            "or give the AnnData to stablefs.compare(adata, label='group') or "
            "stablefs.datasets.load(adata, label='group')."
        )


def dense_matrix(X, what: str = "X") -> np.ndarray:
    """``X`` as a C-contiguous float64 array; an AnnData or a sparse matrix is refused in one
    line (a sparse one with the memory its dense form would take: never densified
    silently)."""
    refuse_anndata(X, what)
    if hasattr(X, "toarray") and hasattr(X, "nnz"):
        n, p = X.shape
        raise StablefsError(
            f"{what} is a sparse {n} x {p} matrix; stablefs needs dense values "
            f"({_mib(n * p * 8)} as float64): pass {what}.toarray() if that fits "
            "in memory, or an AnnData to stablefs.compare, which checks the memory first."
        )
    try:
        return np.ascontiguousarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise StablefsError(f"{what} cannot be read as a numeric matrix ({exc}).") from None


def _mib(nbytes: float) -> str:
    return f"{nbytes / 2**20:,.1f} MiB" if nbytes < 10 * 2**20 else f"{nbytes / 2**20:,.0f} MiB"
