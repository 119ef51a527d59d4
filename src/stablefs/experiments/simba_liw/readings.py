"""The runs of ``stablefs reproduce simba-liw`` beyond the thesis' own: every reading of eq. 8.2
and of IW ReliefF, and the controls that tell why SimbaLIW gains or loses.

Prat Masramon 2016 (secs. 8.2-8.4.1) leaves open how SimbaLIW's margins are measured
(eq. 8.2: to the nearest hit and miss, or averaged over all the rest), on which scale, and
whether instances are visited in a permutation or drawn with replacement; Han (2012, eq. 4.6)
does not name the distance between IW ReliefF's margin vectors. On the first ``reading_sets``
training sets every reading is run (:data:`READINGS`, :data:`RELIEFF_READINGS`) and claims
5a, 5b and R are judged under each (:func:`reading_claims`). On the first ``control_sets``
sets the controls of :data:`CONTROLS` vary one thing of a fit each
(:func:`control_orders`, :func:`control_tables`).

The protocol itself (configuration, Monte-Carlo units, main tables and claims) is in
:mod:`stablefs.experiments.simba_liw.protocol`, which runs these pieces inside its units and
analysis.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from stablefs.experiments._base import Claim
from stablefs.experiments._montecarlo import draw_state
from stablefs.experiments._stats import (
    MARGINS,
    better_rule,
    bootstrap_counts,
    combine_verdicts,
    kuncheva_path,
    mean_boot,
    t_interval,
    tally,
    verdict_positive,
)
from stablefs.experiments._stats import fmt_interval as _ci
from stablefs.experiments.simba_liw.precision import top_k_precision

__all__ = [
    "CONTROLS",
    "OUR_READING",
    "READINGS",
    "RELIEFF_READINGS",
    "control_orders",
    "control_tables",
    "reading_claims",
    "reading_orders",
    "reading_tables",
    "weight_diagnostics",
    "which_reading",
]

#: controls that tell why SimbaLIW gains or loses (on the first ``control_sets`` sets)
CONTROLS = {
    "liw-shuffled": "SimbaLIW, weights shuffled among the instances",
    "liw-relevant": "SimbaLIW, margins on the relevant features only",
    "simba-draws": "Simba, instances drawn with replacement",
}

#: the readings of sec. 8.2-8.3 run as controls on the first ``reading_sets`` sets: name ->
#: (margin of eq. 8.2, min-max scaled features, instances drawn with replacement)
READINGS = {f"{mg}/{'scaled' if sc else 'unscaled'}/{'draws' if dr else 'permutation'}":
            (mg, sc, dr) for mg in ("nearest", "all") for sc in (True, False)
            for dr in (False, True)}
#: the project's reading (the SimbaLIW of the main study)
OUR_READING = "nearest/scaled/permutation"
#: readings of IW ReliefF (Han 2012): margin vectors on scaled or raw features, and the
#: distance between margin vectors (eq. 4.6 does not name it)
RELIEFF_READINGS = {f"{'scaled' if sc else 'unscaled'}/{mt}": (sc, mt)
                    for sc in (True, False) for mt in ("euclidean", "cityblock")}


def _precision(orders, relevant, k):
    return top_k_precision(orders, relevant, k)


# ------------------------------------------------------------------------ inside a unit


def reading_orders(X, y, cfg: dict, rng) -> dict[str, np.ndarray]:
    """Simba and SimbaLIW under every reading of :data:`READINGS`, and IW ReliefF under every
    reading of :data:`RELIEFF_READINGS`, on one training set: their best ``k_max`` features.

    Without replacement Simba visits a random permutation and SimbaLIW is Alg. 8.1's
    NormalDelta (``w <- w + omega(x) Delta``, the main study's form); with replacement Simba
    draws n instances uniformly and SimbaLIW is Alg. 8.1's Sample (n draws with probabilities
    ``omega / sum(omega)``, updates unweighted), the thesis' own with-replacement variant."""
    from stablefs.methods import make_selector
    from stablefs.selectors.simba import simba_weights
    from stablefs.stabilizers import logistic_instance_weights

    out: dict[str, np.ndarray] = {}

    def top(w):
        return np.argsort(-np.asarray(w), kind="stable")[: cfg["k_max"]].astype(np.int32)

    done = {}
    for name, (margin, scale, draws) in READINGS.items():
        strategy = "sample" if draws else "normal"
        if (scale, draws) not in done:  # Simba does not depend on the margin reading
            done[(scale, draws)] = top(simba_weights(
                X, y, None, n_passes=cfg["n_passes"], strategy=strategy, scale=scale,
                random_state=draw_state(rng)))
        out[f"reading:{name}:simba"] = done[(scale, draws)]
        omega = logistic_instance_weights(X, y, scale=scale, margin=margin)
        if cfg["weight_scale"] == "mean":
            omega = omega / omega.mean()
        out[f"reading:{name}:liw"] = top(simba_weights(
            X, y, omega, n_passes=cfg["n_passes"], strategy=strategy, delta=not draws,
            scale=scale, random_state=draw_state(rng)))
    for name, (scale, metric) in RELIEFF_READINGS.items():
        sel = make_selector("iw-relieff", scale=scale, metric=metric,
                            random_state=draw_state(rng)).fit(X, y)
        out[f"relieff-reading:{name}"] = top(-np.asarray(sel.ranking_, dtype=float))
    return out


def weight_diagnostics(w: np.ndarray, flipped: np.ndarray) -> np.ndarray:
    """Kish's effective sample size (sum w)^2 / sum w^2 as a share of n, the share of
    instances below a tenth of the mean weight, and the mean weight of the instances with a
    flipped label relative to the mean (NaN if none)."""
    mean = w.mean()
    ratio = w[flipped].mean() / mean if flipped.any() else np.nan
    return np.array([w.sum() ** 2 / (w @ w) / w.size, np.mean(w < 0.1 * mean), ratio,
                     flipped.mean()])


def control_orders(X, y, cfg: dict, liw_fit: tuple, simba_state: int, rng
                   ) -> tuple[np.ndarray, dict]:
    """The controls of :data:`CONTROLS` on one training set, each with the random state of
    the fit it varies (so only the instance weights, or only the instance choice, differ).

    Parameters
    ----------
    X, y : ndarray
        The training set.
    cfg : dict
        The configuration.
    liw_fit : (Simba, int)
        The fitted SimbaLIW selector and its random state.
    simba_state : int
        The random state of the plain Simba fit.
    rng : numpy.random.Generator
        The unit's stream (draws the shuffle).

    Returns
    -------
    oracle : ndarray
        The logistic weights of the margins on the relevant features.
    orders : dict
        Each control's best ``k_max`` features.
    """
    from stablefs.selectors.simba import simba_weights
    from stablefs.stabilizers import logistic_instance_weights

    liw, liw_state = liw_fit
    omega = liw.instance_weights_
    oracle = logistic_instance_weights(X[:, : cfg["n_relevant"]], y, scale=liw.scale)
    if liw.weight_scale == "mean":
        oracle = oracle / oracle.mean()
    same = {"n_passes": liw.n_passes, "strategy": liw.strategy, "delta": liw.delta,
            "scale": liw.scale}
    scores = {
        "liw-shuffled": simba_weights(X, y, omega[rng.permutation(omega.size)],
                                      random_state=liw_state, **same),
        "liw-relevant": simba_weights(X, y, oracle, random_state=liw_state, **same),
        "simba-draws": simba_weights(X, y, None, n_passes=cfg["n_passes"], strategy="sample",
                                     random_state=simba_state),
    }
    return oracle, {name: np.argsort(-w, kind="stable")[: cfg["k_max"]].astype(np.int32)
                    for name, w in scores.items()}


# ------------------------------------------------------------------------ analysis


def control_tables(c, sets, base: dict[str, np.ndarray], rng, relevant
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``tables/controls.csv`` and ``tables/instance_weights.csv``.

    Parameters
    ----------
    c : SimbaLiwConfig
    sets : list of dict
        The training sets' unit results.
    base : dict of str to ndarray
        Label -> orders of plain Simba (first: the reference of the differences) and
        SimbaLIW on the first ``control_sets`` sets.
    rng : numpy.random.Generator
        The analysis' bootstrap stream.
    relevant : ndarray of int
    """
    n = c.control_sets
    k = c.precision_k
    C = bootstrap_counts(rng, n, c.n_bootstrap)
    orders = dict(base)
    orders.update({CONTROLS[m]: np.stack([res[f"{m}:order"] for res in sets[:n]])
                   for m in CONTROLS})
    ref = next(iter(base))
    kb = {m: kuncheva_path(o, c.n_features, [k], C)[:, 0] for m, o in orders.items()}
    prec = {m: _precision(o, relevant, k) for m, o in orders.items()}
    rows = []
    for m, o in orders.items():
        klo, khi = t_interval(kb[m] - kb[ref], n, c.alpha)
        plo, phi = t_interval(mean_boot(prec[m] - prec[ref], C), n, c.alpha,
                              float((prec[m] - prec[ref]).mean()))
        rows.append({"variant": m, "sets": n, "k": k,
                     "kuncheva": float(kuncheva_path(o, c.n_features, [k])[0]),
                     "kuncheva_minus_simba_low": klo, "kuncheva_minus_simba_high": khi,
                     "precision": float(prec[m].mean()),
                     "precision_minus_simba_low": plo, "precision_minus_simba_high": phi})
    control_table = pd.DataFrame(rows)
    rows = []
    names = {"liw": f"SimbaLIW's logistic weights ({c.n_sets} sets)",
             "mbiw": f"SimbaMIW's margin-based weights ({c.n_sets} sets)",
             "liw-relevant": f"logistic weights of the margins on the {c.n_relevant} "
                             f"relevant features ({n} sets)"}
    for name, label in names.items():
        D = np.stack([res[f"{name}:diagnostics"] for res in sets
                      if f"{name}:diagnostics" in res])
        rows.append({"weights": label, "effective_share": float(D[:, 0].mean()),
                     "share_below_tenth_of_mean": float(D[:, 1].mean()),
                     "flipped_weight_ratio": float(np.nanmean(D[:, 2])),
                     "flipped_share": float(D[:, 3].mean())})
    return control_table, pd.DataFrame(rows)


def reading_tables(c, sets, rng, ks: np.ndarray, relevant
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``tables/readings.csv`` (claims 5a and 5b under every reading of :data:`READINGS`)
    and ``tables/relieff_readings.csv`` (claim R under every reading of
    :data:`RELIEFF_READINGS`), on the first ``reading_sets`` training sets."""
    n, a = c.reading_sets, c.alpha
    C = bootstrap_counts(rng, n, c.n_bootstrap)
    k50 = c.precision_k
    rows = []
    for name in READINGS:
        o_s = np.stack([res[f"reading:{name}:simba"] for res in sets[:n]])
        o_l = np.stack([res[f"reading:{name}:liw"] for res in sets[:n]])
        kun_s = kuncheva_path(o_s, c.n_features, ks)
        kun_l = kuncheva_path(o_l, c.n_features, ks)
        diff = (kuncheva_path(o_l, c.n_features, ks, C)
                - kuncheva_path(o_s, c.n_features, ks, C))
        per_k = [verdict_positive(diff[:, j], a, runs=n, margin=MARGINS["kuncheva"],
                                  estimate=float(kun_l[j] - kun_s[j]))
                 for j in range(ks.size)]
        p_s = _precision(o_s, relevant, k50)
        p_l = _precision(o_l, relevant, k50)
        v5b, plo, phi = verdict_positive(mean_boot(p_l - p_s, C), a, runs=n,
                                         margin=MARGINS["precision"],
                                         estimate=float((p_l - p_s).mean()))
        j50 = k50 - 1
        rows.append({
            "reading": name, "sets": n, "simba_kuncheva_k50": float(kun_s[j50]),
            "liw_kuncheva_k50": float(kun_l[j50]),
            "liw_minus_simba_k50_low": per_k[j50][1],
            "liw_minus_simba_k50_high": per_k[j50][2],
            "sizes_liw_more_stable": sum(v[0] == "holds" for v in per_k),
            "sizes_liw_less_stable": sum(v[0] == "does not hold" for v in per_k),
            "verdict_5a": combine_verdicts(v[0] for v in per_k),
            "majority_5a": tally(v[0] for v in per_k),
            "simba_precision": float(p_s.mean()), "liw_precision": float(p_l.mean()),
            "precision_diff_low": plo, "precision_diff_high": phi, "verdict_5b": v5b,
            "peak_simba": int(ks[int(np.nanargmax(kun_s))]),
            "peak_liw": int(ks[int(np.nanargmax(kun_l))]),
        })
    reading_table = pd.DataFrame(rows)
    base = np.stack([res["relieff:order"] for res in sets[:n]]) if all(
        "relieff:order" in res for res in sets[:n]) else None
    rows = []
    for name in RELIEFF_READINGS:
        o = np.stack([res[f"relieff-reading:{name}"] for res in sets[:n]])
        row = {"reading": name, "sets": n,
               "iw_relieff_kuncheva": float(kuncheva_path(o, c.n_features, [c.relieff_k])[0]),
               "iw_relieff_precision": float(_precision(o, relevant, c.relieff_k).mean())}
        if base is not None:
            d = (kuncheva_path(o, c.n_features, [c.relieff_k], C)[:, 0]
                 - kuncheva_path(base, c.n_features, [c.relieff_k], C)[:, 0])
            plain = float(kuncheva_path(base, c.n_features, [c.relieff_k])[0])
            v, lo, hi = verdict_positive(d, a, runs=n, margin=MARGINS["kuncheva"],
                                         estimate=row["iw_relieff_kuncheva"] - plain)
            row.update({"relieff_kuncheva": plain, "iw_minus_relieff_low": lo,
                        "iw_minus_relieff_high": hi, "verdict_R": v})
        rows.append(row)
    return reading_table, pd.DataFrame(rows)


def reading_claims(c, reading_table: pd.DataFrame, relieff_reading_table: pd.DataFrame,
                   n_sizes: int) -> list[Claim]:
    """Claims 5a, 5b and R judged under every reading (ids ``5a/<reading>`` ...)."""
    n, a = c.reading_sets, c.alpha
    out = []
    for r in reading_table.itertuples():
        mg, sc, dr = READINGS[r.reading]
        how = (f"eq. 8.2's margin {'to the nearest hit and miss' if mg == 'nearest' else 'averaged over all the rest'}, "  # noqa: E501
               f"{'min-max scaled' if sc else 'raw'} features, instances "
               f"{'drawn with replacement (Simba uniform, SimbaLIW Alg. 8.1 Sample)' if dr else 'in a random permutation (SimbaLIW NormalDelta)'}")  # noqa: E501
        ours = " (the main study's reading)" if r.reading == OUR_READING else ""
        out.append(Claim(
            f"5a/{r.reading}", f"Claim 5a under the reading: {how}{ours}.",
            f"first {n} training sets; per k = 1..{c.k_max}: "
            + better_rule(MARGINS["kuncheva"], n, a, "paired difference of Kuncheva")
            + "; the claim holds if it holds at every k",
            f"Kuncheva at k = {c.precision_k}: Simba {r.simba_kuncheva_k50:.3f}, SimbaLIW "
            f"{r.liw_kuncheva_k50:.3f}, difference "
            f"{_ci(r.liw_minus_simba_k50_low, r.liw_minus_simba_k50_high)}; SimbaLIW more "
            f"stable at {r.sizes_liw_more_stable} of {n_sizes} sizes, less at "
            f"{r.sizes_liw_less_stable}; {r.majority_5a}; peaks {r.peak_simba} and "
            f"{r.peak_liw} (thesis 42 and 40)", r.verdict_5a, "tables/readings.csv"))
        out.append(Claim(
            f"5b/{r.reading}", f"Claim 5b under the reading: {how}{ours}.",
            f"first {n} training sets; top-{c.precision_k} precision, SimbaLIW minus "
            "Simba; " + better_rule(MARGINS["precision"], n, a),
            f"Simba {r.simba_precision:.4f}, SimbaLIW {r.liw_precision:.4f} (thesis 0.4722 "
            f"and 0.5414); difference {_ci(r.precision_diff_low, r.precision_diff_high)}",
            r.verdict_5b, "tables/readings.csv"))
    if "verdict_R" in relieff_reading_table:
        for r in relieff_reading_table.itertuples():
            out.append(Claim(
                f"R/{r.reading}", "Claim R with IW ReliefF's margin vectors on "
                f"{r.reading.split('/')[0]} features and the {r.reading.split('/')[1]} "
                "distance between them (Han 2012, eqs. 4.2, 4.6).",
                f"first {n} training sets, k = {c.relieff_k}; paired Kuncheva difference "
                "IW ReliefF minus ReliefF; "
                + better_rule(MARGINS["kuncheva"], n, a),
                f"ReliefF {r.relieff_kuncheva:.3f}, IW ReliefF {r.iw_relieff_kuncheva:.3f}, "
                f"difference {_ci(r.iw_minus_relieff_low, r.iw_minus_relieff_high)}",
                r.verdict_R, "tables/relieff_readings.csv"))
    return out


def which_reading(reading_table: pd.DataFrame) -> str:
    """Which readings reproduce the thesis (5a and 5b hold)."""
    t = reading_table
    both = t[(t.verdict_5a == "holds") & (t.verdict_5b == "holds")].reading.tolist()
    gap = (t.liw_precision - 0.5414).abs() + (t.simba_precision - 0.4722).abs()
    near = t.reading[int(np.argmin(gap.to_numpy()))]
    return ((f"Readings under which 5a and 5b both hold: {', '.join(both)}. " if both else
             "No reading makes both 5a and 5b hold. ")
            + f"Closest to the thesis' precisions (0.4722, 0.5414): {near}.")
