"""The data of ``stablefs reproduce wrapper-stability`` that the experiment builds itself: the
generated corrAl and antiCorrAl of Prat Masramon 2016 (sec. 6.1, Table 6.1), and the
BSS/WSS ratio (Dudoit, Fridlyand and Speed 2002) by which each microarray set is reduced to
its top genes on the selection half of an outer run.

The UCI and microarray sets are read by :func:`~stablefs.experiments._base.load_dataset`;
the Monte-Carlo unit that uses all three is
:func:`stablefs.experiments.wrapper_stability.protocol._unit`.
"""

from __future__ import annotations

import itertools

import numpy as np

from stablefs._errors import StablefsError

__all__ = ["anticorral", "bss_wss", "corral"]


def corral(n_samples: int = 128, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """corrAl (thesis sec. 6.1; John, Kohavi and Pfleger 1994): six boolean features.

    Columns A0, A1, B0, B1, I, C; class = (A0 and A1) or (B0 and B1); I is irrelevant; C
    equals the class on exactly 75 % of the rows. Every one of the 32 combinations of A0, A1,
    B0, B1, I appears ``r = n_samples / 32`` times; C is wrong on ``r // 4`` copies of every
    combination and on one more copy of ``n_samples / 4 - 32 (r // 4)`` combinations drawn
    at random (``seed``). With 128 rows this is the published ``corral`` data set's
    construction (32 combinations x 4, "one of them has the Corr bit wrong"), which needs no
    random draw; with 32 or 64 rows 8 or 16 combinations have C wrong.

    Parameters
    ----------
    n_samples : int
        A positive multiple of 32.
    seed : int
        Draws the combinations with a wrong C when ``n_samples / 32`` is not a multiple of 4.

    Returns
    -------
    X : ndarray of shape (n_samples, 6)
    y : ndarray of shape (n_samples,)
        0 or 1.
    """
    if isinstance(n_samples, bool) or not isinstance(n_samples, int) or n_samples < 32 \
            or n_samples % 32:
        raise StablefsError(f"corral_samples = {n_samples}: a multiple of 32 (32, 64, 128...).")
    r = n_samples // 32
    base = np.array(list(itertools.product([0, 1], repeat=5)), dtype=float)
    X = np.repeat(base, r, axis=0)  # the copies of combination c are rows c r .. c r + r - 1
    y = ((X[:, 0] * X[:, 1] + X[:, 2] * X[:, 3]) > 0).astype(np.int64)
    wrong = np.zeros(n_samples, dtype=bool)
    per = r // 4
    starts = np.arange(32) * r
    for j in range(per):
        wrong[starts + j] = True
    rest = n_samples // 4 - 32 * per
    if rest:
        chosen = np.sort(np.random.default_rng(seed).choice(32, rest, replace=False))
        wrong[starts[chosen] + per] = True
    return np.column_stack([X, np.where(wrong, 1 - y, y)]), y


def anticorral(n_samples: int = 150, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """antiCorrAl (thesis sec. 6.1): three classes, I1..I9 ~ N(Y, 1), C1 ~ N(Y, 0.5),
    C2 = C1 - Y + N(1, 0.2), Y = 1, 2, 3 with ``n_samples / 3`` rows each.

    Parameters
    ----------
    n_samples : int
        A positive multiple of 3 (the thesis states no size; 150 here by default).
    seed : int
        The normal draws.

    Returns
    -------
    X : ndarray of shape (n_samples, 11)
        I1..I9, C1, C2.
    y : ndarray of shape (n_samples,)
        Y - 1 (0, 1, 2).
    """
    if isinstance(n_samples, bool) or not isinstance(n_samples, int) or n_samples < 6 \
            or n_samples % 3:
        raise StablefsError(f"anticorral_samples = {n_samples}: a multiple of 3, at least 6.")
    rng = np.random.default_rng(seed)
    Y = np.repeat([1, 2, 3], n_samples // 3)
    eye = Y[:, None] + rng.standard_normal((Y.size, 9))
    c1 = Y + 0.5 * rng.standard_normal(Y.size)
    c2 = c1 - Y + rng.normal(1.0, 0.2, Y.size)
    return np.column_stack([eye, c1, c2]), Y - 1


def bss_wss(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Between/within-class sum-of-squares ratio per feature (Dudoit et al. 2002)."""
    m = X.mean(axis=0)
    bss = np.zeros(X.shape[1])
    wss = np.zeros(X.shape[1])
    for c in np.unique(y):
        Xc = X[y == c]
        mc = Xc.mean(axis=0)
        bss += Xc.shape[0] * (mc - m) ** 2
        wss += ((Xc - mc) ** 2).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(wss > 0, bss / wss, np.where(bss > 0, np.inf, 0.0))
    return r

