"""The precision of a ranking's top ``k`` against the known relevant features (the synthetic
sets of the Simba/SimbaLIW study, Prat Masramon 2016 sec. 8.4.1)."""

from __future__ import annotations

import numpy as np

__all__ = ["top_k_precision"]


def top_k_precision(orders: np.ndarray, relevant, k: int) -> np.ndarray:
    """Share of relevant features among the top ``k`` of each ranking (thesis sec. 8.4.1).

    Precision = true positives / (true positives + false positives) (thesis footnote to
    sec. 8.4.1) of the subset of the ``k`` best-ranked features. With ``k`` equal to the
    number of relevant features it is also the recall.

    Parameters
    ----------
    orders : int ndarray of shape (m, K), K >= k
        Row i lists the features of training set i from the best down.
    relevant : array-like of int
        Indices of the relevant features.
    k : int

    Returns
    -------
    ndarray of shape (m,)
    """
    orders = np.asarray(orders)
    if not 1 <= k <= orders.shape[1]:
        raise ValueError(f"k = {k} must lie in [1, {orders.shape[1]}]")
    return np.isin(orders[:, :k], np.asarray(relevant)).mean(axis=1)
