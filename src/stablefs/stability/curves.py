"""Per-k stability curves from a matrix of rankings, without refitting anything."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from stablefs.stability._inputs import as_rankings, top_k_subsets
from stablefs.stability._registry import measure_interval

if TYPE_CHECKING:
    from collections.abc import Iterable

    from numpy.typing import ArrayLike

    from stablefs._validation import SeedLike

__all__ = ["stability_curve"]


def stability_curve(rankings: ArrayLike, sizes: Iterable[int], measure: str = "kuncheva", *,
                    interval: bool = False, alpha: float = 0.05, X: ArrayLike | None = None,
                    random_state: SeedLike = 0) -> pd.DataFrame:
    """Stability of the top-k subsets of m rankings for each k in ``sizes``.

    Each ranking's k best features (1 = best; ties broken by the lower feature index, as
    every selector's ``ranking_``) form the subsets at size k; the measure is evaluated on
    those m subsets. This is how Prat Masramon (2016, secs. 2.3.2 and 6.3.1) and Han (2012,
    Figs. 6.2, 7.3–7.6) draw stability against subset size.

    Parameters
    ----------
    rankings : array of shape (m, p)
        One ranking per result, 1 = best.
    sizes : iterable of int
        Subset sizes k (each in 0..p; measures may reject k = 0 or k = p, e.g. Kuncheva).
    measure : str
        A name from :func:`~stablefs.stability.available_measures`.
    interval : bool
        Add ``low`` and ``high`` columns (see :func:`~stablefs.stability.measure_interval`).
    alpha : float
        1 − confidence level.
    X : array of shape (n_samples, p), optional
        For the correlation-aware measures.
    random_state : int or None
        Seed of Monte-Carlo parts.

    Returns
    -------
    pandas.DataFrame
        Columns ``k``, ``estimate`` (and ``low``, ``high``), one row per size, in the order
        given.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, Figs. 6.2 and 7.3–7.6.
    .. [2] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, secs. 2.3.2 and 6.3.1.

    Examples
    --------
    >>> from stablefs.stability import stability_curve
    >>> rankings = [[1, 2, 3, 4, 5], [2, 1, 3, 4, 5], [1, 3, 2, 5, 4]]
    >>> stability_curve(rankings, [1, 2, 3], measure="jaccard").round(3).to_dict("list")
    {'k': [1, 2, 3], 'estimate': [0.333, 0.556, 1.0]}
    """
    R = as_rankings(rankings)
    order = np.argsort(R, axis=1, kind="stable")
    p = R.shape[1]
    rows = []
    for k in sizes:
        Z = top_k_subsets(None, k, order=order)
        est, low, high = measure_interval(measure, Z, p, X=X, alpha=alpha,
                                          random_state=random_state, _interval=interval)
        rows.append((int(k), est, low, high))
    df = pd.DataFrame(rows, columns=["k", "estimate", "low", "high"])
    return df if interval else df[["k", "estimate"]]
