"""Stability against a full-data reference (Yu, Ding and Loscalzo 2008, eq. 7).

In the hold-out protocol of Yu et al. (2008) each method is also fitted once on all samples;
the stability of a method is then the mean similarity of every resample's subset to the subset
of that full-data fit, ``S = (1/m) sum_i Sim(F_i, F_ref)`` (their eq. 7), instead of the mean
over all pairs of resamples (Han 2012, eq. 5.4). Only the measures that are means of a
similarity of two subsets have this form: the pairwise ones (Kuncheva, Jaccard, Dice, ...) and
the correlation-aware pairwise ones (nPOGR, Zucknick, the intersection count). Nogueira's
estimator and the whole-system measures (Somol, Křížek, ...) are defined on the collection of
resamples only and keep their usual form.

The interval is the Student-t interval of the mean of m independent terms, estimate ±
t_{m-1, 1-α/2} s/sqrt(m) (the delete-one jackknife of a mean, :class:`PairScores`, is s²/m),
clipped to the measure's range (:func:`~stablefs.stability.measure_bounds`), as every
stability interval of a run.
"""

from __future__ import annotations

import numpy as np

from stablefs.stability import MEASURES
from stablefs.stability import correlated as _corr
from stablefs.stability import subsets as _sub
from stablefs.stability._common import student_interval
from stablefs.stability._registry import measure_bounds

__all__ = ["has_reference_form", "reference_interval"]


def has_reference_form(name: str) -> bool:
    """Whether measure ``name`` can compare each result with one reference result."""
    return MEASURES[name].kind in ("pairwise", "correlated-pairwise")


def reference_interval(name: str, subsets: np.ndarray, reference: np.ndarray, *, X=None,
                       alpha: float = 0.05, random_state=0) -> tuple[float, float, float]:
    """Estimate and (1 − alpha) interval of measure ``name`` against ``reference``.

    Parameters
    ----------
    name : str
        A measure with a reference form (:func:`has_reference_form`).
    subsets : bool ndarray of shape (m, p)
        One selection mask per resample.
    reference : bool ndarray of shape (p,)
        The selection mask of the full-data fit.
    X : ndarray of shape (n, p), optional
        Needed by the correlation-aware measures.

    Returns
    -------
    (estimate, low, high)
    """
    p = subsets.shape[1]
    ref = np.flatnonzero(reference)
    kind = MEASURES[name].kind
    if kind == "pairwise":
        scores = _sub.pair_scores(name, subsets, p, reference=ref)
    elif name == "npogr":
        scores, _ = _corr._npogr_pairs(subsets, X, fdr=0.001, n_pairs=10000,
                                       random_state=random_state, reference=ref)
    elif name == "zucknick":
        scores = _corr._zucknick_pairs(subsets, X, reference=ref)
    elif name == "intersection_count":
        scores = _corr._intersection_pairs(subsets, X, random_state=random_state,
                                           reference=ref)
    else:
        raise ValueError(f"measure {name!r} has no reference form")
    low, high = student_interval(scores.mean, scores.jackknife_variance(), scores.m, alpha,
                                 measure_bounds(name, scores.m))
    return scores.mean, low, high
