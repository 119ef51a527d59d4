"""The XOR demonstration of ``stablefs reproduce simba-liw`` (Prat Masramon 2016,
sec. 2.4.2, Fig. 2.12, and sec. 8.4.1, Fig. 8.4): the problem of Gilad-Bachrach, Navot and
Tishby (2004), the angle of a weight vector to the correct one, the tables of the weights and
of their convergence, and claims 10a and 10b.

The Monte-Carlo unit that fits the methods on each XOR data set is
:func:`stablefs.experiments.simba_liw.protocol._xor_unit`; the functions below take the method
tables of :mod:`stablefs.experiments.simba_liw.protocol` as arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from stablefs.experiments._base import Claim
from stablefs.experiments._claims import Cells
from stablefs.experiments._stats import MARGINS, better_rule, mean_boot, verdict_positive
from stablefs.experiments._stats import fmt_interval as _ci

__all__ = ["XorStudy", "weight_angle", "xor_claims", "xor_data", "xor_study"]


def xor_data(n_samples: int = 1000, n_features: int = 10, n_relevant: int = 3,
             random_state=None) -> tuple[np.ndarray, np.ndarray]:
    """The XOR problem of Gilad-Bachrach, Navot and Tishby (2004; thesis sec. 2.4.2).

    "1000 sample points with 10 real valued features; the target concept is an xor function
    over the first 3 features". The distribution of the features is not stated; we draw them
    independently and uniformly from ``[-1, 1]`` and label each point by the parity of the
    number of positive values among its first ``n_relevant`` features (the XOR of their
    signs), so that every single feature, and every pair of the relevant ones, is independent
    of the label.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : int ndarray of shape (n_samples,), 0 or 1
    """
    rng = np.random.default_rng(random_state)
    X = rng.uniform(-1.0, 1.0, size=(n_samples, n_features))
    y = (np.sum(X[:, :n_relevant] > 0, axis=1) % 2).astype(np.int64)
    return X, y


def weight_angle(weights: np.ndarray, n_relevant: int) -> np.ndarray:
    """Angle (degrees) between feature weights and the correct weight vector.

    The correct vector is 1 on the first ``n_relevant`` features and 0 elsewhere (the measure
    of Gilad-Bachrach, Navot and Tishby 2004 for the XOR problem): 0 degrees when only the
    relevant features weigh, and equally; 90 when they weigh nothing. A zero vector gets 90.

    Parameters
    ----------
    weights : ndarray of shape (..., p)

    Returns
    -------
    ndarray of shape (...)
    """
    W = np.asarray(weights, dtype=np.float64)
    norm = np.sqrt(np.einsum("...j,...j->...", W, W))
    dot = W[..., :n_relevant].sum(axis=-1) / np.sqrt(n_relevant)
    with np.errstate(invalid="ignore", divide="ignore"):
        cos = np.where(norm > 0, dot / norm, 0.0)
    return np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))


@dataclass
class XorStudy:
    """The XOR data sets' results and tables.

    Attributes
    ----------
    xw : dict of str to ndarray of shape (sets, features)
        Every method's final weights.
    xa : dict of str to ndarray of shape (sets, updates)
        The Simba forms' angle to the correct weights after each update.
    angle : dict of str to ndarray of shape (sets,)
        The final angle (:func:`weight_angle`).
    top : dict of str to bool ndarray of shape (sets,)
        The relevant features are the top ones.
    weights, summary, path : DataFrame
        ``tables/xor_weights.csv``, ``xor_summary.csv``, ``xor_path.csv``.
    """

    xw: dict
    xa: dict
    angle: dict
    top: dict
    weights: pd.DataFrame
    summary: pd.DataFrame
    path: pd.DataFrame


def xor_study(c, xor: list[dict], methods: dict, xor_methods: dict) -> XorStudy:
    """The tables of the XOR units' results (``methods``: the Simba forms, whose paths are
    traced; ``xor_methods``: every method, Relief too)."""
    xw = {m: np.stack([res[f"{m}:weights"] for res in xor]) for m in xor_methods}
    xa = {m: np.stack([res[f"{m}:angles"] for res in xor]) for m in methods}
    r = c.xor_relevant
    angle = {m: weight_angle(xw[m], r) for m in xor_methods}
    top = {}
    for m in xor_methods:
        order = np.argsort(-xw[m], axis=1, kind="stable")
        top[m] = np.all(np.sort(order[:, :r], axis=1) == np.arange(r), axis=1)
    rows = []
    for m, label in xor_methods.items():
        W = xw[m] / np.abs(xw[m]).max(axis=1, keepdims=True)
        for j in range(c.xor_features):
            rows.append({"method": label, "feature": j + 1, "relevant": j < r,
                         "weight_mean": float(W[:, j].mean()),
                         "weight_sd": float(W[:, j].std(ddof=1))})
    weights = pd.DataFrame(rows)
    rows = []
    for m, label in xor_methods.items():
        row = {"method": label, "final_angle_deg": float(angle[m].mean()),
               "final_angle_sd": float(angle[m].std(ddof=1)),
               "share_top3_correct": float(top[m].mean())}
        if m in methods:
            row["mean_angle_over_updates"] = float(xa[m].mean())
        rows.append(row)
    summary = pd.DataFrame(rows)
    steps = xa[next(iter(methods))].shape[1]
    every = max(1, steps // 200)
    rows = []
    for m, label in methods.items():
        A = xa[m].astype(np.float64)
        for t in range(every - 1, steps, every):
            rows.append({"method": label, "update": t + 1,
                         "angle_mean": float(A[:, t].mean()),
                         "angle_sd": float(A[:, t].std(ddof=1))})
    path = pd.DataFrame(rows)
    return XorStudy(xw, xa, angle, top, weights, summary, path)


def xor_claims(c, study: XorStudy, counts: np.ndarray, methods: dict, liw: str
               ) -> list[Claim]:
    """Claims 10a (every Simba form beats Relief) and 10b (SimbaLIW converges first), from a
    paired bootstrap over the XOR data sets (``counts``: its resamples; ``liw``: SimbaLIW's
    key in ``methods``)."""
    a, B = c.alpha, c.n_bootstrap
    simba, miw = (m for m in methods if m != liw)
    claims = []
    # 10a: every Simba form beats Relief on XOR
    cells, parts = Cells(), []
    for m in methods:
        gain = study.angle["relief"] - study.angle[m]
        v, lo, hi = cells.add(verdict_positive(mean_boot(gain, counts), a, runs=c.xor_sets,
                                               margin=MARGINS["angle"],
                                               estimate=float(gain.mean())))
        parts.append(f"{methods[m]} {study.angle[m].mean():.1f} deg "
                     f"({100 * study.top[m].mean():.0f} %), Relief minus it {_ci(lo, hi)}")
    claims.append(Claim(
        "10a", "On the XOR problem (3 relevant of 10 features), Simba, SimbaLIW and "
        "SimbaMIW all outperform Relief (Prat Masramon 2016, sec. 8.4.1, Fig. 8.4; "
        "sec. 2.4.2, Fig. 2.12).",
        f"Angle between each method's final feature weights and the correct vector "
        f"(1, 1, 1, 0, ...), {c.xor_sets} XOR data sets of {c.xor_samples}; paired "
        f"bootstrap ({B} resamples) of Relief's mean angle minus the method's (degrees); "
        + better_rule(MARGINS["angle"], c.xor_sets, a) + "; the claim holds if it holds "
        "for all three, does not hold if it fails for one.",
        f"Relief {study.angle['relief'].mean():.1f} deg (top 3 correct in "
        f"{100 * study.top['relief'].mean():.0f} % of the sets); " + "; ".join(parts),
        cells.verdict, "tables/xor_summary.csv; figures/fig8_4_xor_weights.png"))

    # 10b: SimbaLIW converges first
    cells, parts = Cells(), []
    mean_path = {m: study.xa[m].astype(np.float64).mean(axis=1) for m in methods}
    for m in (simba, miw):
        gain = mean_path[m] - mean_path[liw]
        v, lo, hi = cells.add(verdict_positive(mean_boot(gain, counts), a, runs=c.xor_sets,
                                               margin=MARGINS["angle"],
                                               estimate=float(gain.mean())))
        parts.append(f"{methods[m]} minus SimbaLIW {_ci(lo, hi)}")
    claims.append(Claim(
        "10b", "SimbaLIW seems to be the one that converges first to the correct feature "
        "weights on the XOR problem (Prat Masramon 2016, sec. 8.4.1, Fig. 8.4).",
        "Angle between the weights and the correct vector after every update of the pass, "
        "averaged over the updates (the area under the convergence curve: lower = closer "
        "sooner); paired bootstrap over the XOR sets of Simba minus SimbaLIW and of "
        "SimbaMIW minus SimbaLIW (degrees); " + better_rule(MARGINS["angle"], c.xor_sets, a)
        + "; the claim holds if both hold, does not hold if either fails.",
        "mean angle over the updates: " + ", ".join(
            f"{methods[m]} {mean_path[m].mean():.1f} deg" for m in methods)
        + "; " + "; ".join(parts), cells.verdict,
        "tables/xor_path.csv; figures/xor_convergence.png"))
    return claims
