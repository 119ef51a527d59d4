"""The 2019 stability thesis, sec. 8.4.1: Simba against SimbaLIW and SimbaMIW on synthetic
data, and the XOR demonstration (``reproduce simba-liw``).

The experiment (thesis sec. 8.4.1, Figs. 8.2-8.4; Algs. 2.5 and 8.1):

* **Data** (sec. 8.4.1, the generator of Han 2012 sec. 6.1,
  :func:`stablefs.datasets.make_han2012`): M = 500 training sets of N = 100 instances and
  d = 1000 features, each instance drawn *equiprobably* from N(mu_1, Sigma) or
  N(mu_2, Sigma), mu_1 = (0.5 x 50, 0 x 950) = -mu_2, Sigma block-diagonal with 100 blocks of
  10 (1 on the diagonal, 0.8 off it), labels ``y = sgn(sum_j x_j r_j)`` with
  r = (0.02 x 50, 0 x 950). ``make_han2012(balanced=False, label_by="sign")`` is exactly this
  (Han 2012 draws 50 instances from each component; ``balanced`` is a setting).
* **Methods**: the project's ``simba``, ``simba-liw`` and ``simba-miw``
  (:class:`~stablefs.selectors.Simba`: Alg. 2.5, one pass over the N instances, linear
  utility, min-max scaled features; the instance-weighted forms of Alg. 8.1 with logistic
  instance weights, sec. 8.2, eq. 8.2, or the margin-based weights of Han 2012, with the
  Delta-combination ``w <- w + omega(x) Delta``, omega rescaled to mean 1). The subset of
  size k is the k features of largest weight.
* **Fig. 8.2**: Kuncheva's index (thesis eq. 2.34, mean over the M(M - 1)/2 pairs) of the
  M subsets against k = 1 ... 200, and the precision of the top 50 features (the share of the
  50 relevant features among them) per training set, with Welch's t-test of Simba against
  SimbaLIW (the thesis' test).
* **Fig. 8.3**: precision and recall at the k of maximum stability of each method (the
  thesis: 42 for Simba, 40 for SimbaLIW).
* **Fig. 8.4** (and sec. 2.4.2, Fig. 2.12): the weights Relief, Simba, SimbaLIW and SimbaMIW
  give the 10 features of the XOR problem of Gilad-Bachrach, Navot and Tishby (2004): 1000
  points, the label the XOR of the first 3 features; and how fast each Simba form converges
  to the correct weights, followed update by update (:func:`simba_weights`' ``callback``).
* **ReliefF and IW ReliefF** (an addition, not in the thesis): Han 2012's margin-based
  instance weighting (Alg. 1, eq. 5.3) around ReliefF (K = 10) on the first 100 of the same
  training sets, Kuncheva's index at k = 50.

Every training set (and every XOR data set) is one Monte-Carlo unit with its own random stream
(seed, study, i); all methods see the same training sets, so the comparisons are paired.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from stablefs._errors import StablefsError
from stablefs.experiments._base import (
    VERDICTS,
    Claim,
    Experiment,
    FigureSpec,
    Outcome,
    check_real,
    check_whole,
    estimate_workers,
)
from stablefs.experiments._montecarlo import run_units, unit_seed
from stablefs.experiments._stats import (
    MARGINS,
    MIN_RUNS,
    better_rule,
    bootstrap_counts,
    count_verdicts,
    interval,
    kuncheva_path,
    mean_boot,
    t_interval,
    tally,
    verdict_positive,
)
from stablefs.experiments._stats import combine_verdicts as _combine
from stablefs.experiments._stats import fmt_interval as _ci
from stablefs.experiments._stats import fmt_value as _fmt

__all__ = [
    "SimbaLiw",
    "SimbaLiwConfig",
    "top_k_precision",
    "weight_angle",
    "xor_data",
]

#: the Simba forms compared on the synthetic data: method string -> label
METHODS = {"simba": "Simba", "simba-liw": "SimbaLIW", "simba-miw": "SimbaMIW"}
SIMBA, LIW, MIW = METHODS
#: ReliefF with and without Han 2012's margin-based instance weights
RELIEFF = {"relieff": "ReliefF", "iw-relieff": "IW ReliefF"}
#: the XOR demonstration (thesis Fig. 8.4): Relief and the three Simba forms
XOR_METHODS = {"relief": "Relief", **METHODS}
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

#: study numbers in the units' random-stream keys
_SETS, _XOR, _BOOT = 1, 2, 9

#: published numbers (thesis sec. 8.4.1)
PUBLISHED = {"precision": {SIMBA: 0.4722, LIW: 0.5414}, "peak": {SIMBA: 42, LIW: 40}}


@dataclass(frozen=True)
class SimbaLiwConfig:
    """Settings of ``simba-liw``; the defaults are the thesis' (sec. 8.4.1).

    Attributes
    ----------
    n_sets : int
        M, the independent training sets (500).
    n_train : int
        N, instances per training set (100).
    n_features, n_relevant, block_size, rho, mean
        The generator (:func:`~stablefs.datasets.make_han2012`): 1000 features, the first 50
        relevant, blocks of 10 with correlation 0.8, component means +-0.5; labels
        ``sgn(sum_j x_j r_j)``.
    balanced : bool
        ``False`` (the thesis: "every instance is equiprobably drawn from one of two
        distributions"): each instance's component is a fair coin; ``True``: exactly half from
        each, as Han 2012 sec. 6.1.
    k_max : int
        Subset sizes k = 1 ... k_max (the thesis' figure stops at 200).
    precision_k : int
        The top-k of the precision study (50, the number of relevant features).
    strategy : {"normal", "sample", "order"}
        Alg. 8.1's instance choice for SimbaLIW and SimbaMIW (the thesis does not say which
        sec. 8.4.1 used); plain Simba always visits a random permutation.
    weight_scale : {"mean", "none"}
        Scale of the instance weights in the Delta-combination (see
        :class:`~stablefs.selectors.Simba`); ``"mean"`` is the project's default.
    n_passes : int
        Passes of N instances for every Simba form (Alg. 8.1 makes one).
    relieff_sets : int
        Training sets (the first of the M) on which ReliefF and IW ReliefF are compared.
    relieff_k : int
        Subset size of that comparison (50).
    control_sets : int
        Training sets (the first of the M) on which the controls of :data:`CONTROLS` run:
        SimbaLIW with its weights shuffled among the instances (the same weights without
        their information), SimbaLIW with the logistic weights of the margins on the
        relevant features only (what better margins would give), and plain Simba visiting
        instances drawn with replacement (Alg. 2.5's "pick randomly an instance" read
        literally). Not in the thesis; they explain the result.
    reading_sets : int
        Training sets (the first of the M) on which every reading of :data:`READINGS` (Simba
        and SimbaLIW: eq. 8.2's margin to the nearest hit and miss or the average to all the
        rest, min-max scaled or raw features, a permutation of the instances or draws with
        replacement) and of :data:`RELIEFF_READINGS` (IW ReliefF) is run; claims 5a, 5b and
        R are judged under each.
    xor_sets : int
        Independent XOR data sets (the thesis shows one).
    xor_samples, xor_features, xor_relevant : int
        1000 points, 10 features, the label the XOR of the first 3 (Gilad-Bachrach, Navot
        and Tishby 2004, as quoted in thesis sec. 2.4.2).
    peak_low, peak_high : int
        "Topping in the 40-50 range" (sec. 8.4.1): the range the peaks are checked against.
    n_bootstrap : int
        Bootstrap resamples of the training sets for the claims' intervals.
    alpha : float
        1 - the intervals' coverage (0.05: 95 % intervals).
    """

    n_sets: int = 500
    n_train: int = 100
    n_features: int = 1000
    n_relevant: int = 50
    block_size: int = 10
    rho: float = 0.8
    mean: float = 0.5
    balanced: bool = False
    k_max: int = 200
    precision_k: int = 50
    strategy: str = "normal"
    weight_scale: str = "mean"
    n_passes: int = 1
    relieff_sets: int = 100
    relieff_k: int = 50
    control_sets: int = 100
    reading_sets: int = 100
    xor_sets: int = 50
    xor_samples: int = 1000
    xor_features: int = 10
    xor_relevant: int = 3
    peak_low: int = 40
    peak_high: int = 50
    n_bootstrap: int = 2000
    alpha: float = 0.05


# ------------------------------------------------------------------------ helpers


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


# ------------------------------------------------------------------------ units


def _simba_options(cfg: dict, method: str) -> dict:
    opts = {"n_passes": cfg["n_passes"]}
    if method != SIMBA:
        opts.update(strategy=cfg["strategy"], weight_scale=cfg["weight_scale"])
    return opts


def _set_unit(key, *, cfg: dict, seed: int) -> dict[str, np.ndarray]:
    """One training set: every method's best ``k_max`` features, from the best down."""
    from stablefs.datasets import make_han2012
    from stablefs.methods import make_selector

    data_seq, fit_seq = unit_seed(seed, *key).spawn(2)
    ds = make_han2012(
        n_samples=cfg["n_train"], n_features=cfg["n_features"],
        n_blocks=cfg["n_features"] // cfg["block_size"], block_size=cfg["block_size"],
        rho=cfg["rho"], n_relevant=cfg["n_relevant"], mean=cfg["mean"],
        balanced=cfg["balanced"], label_by="sign", random_state=np.random.default_rng(data_seq),
    )
    rng = np.random.default_rng(fit_seq)
    out: dict[str, np.ndarray] = {"positive": np.array(np.mean(ds.y == 1))}
    methods = dict.fromkeys(METHODS, "simba")
    if key[-1] < cfg["relieff_sets"]:
        methods.update(dict.fromkeys(RELIEFF, "relieff"))
    fitted = {}
    for m, family in methods.items():
        state = int(rng.integers(2**31 - 1))
        opts = _simba_options(cfg, m) if family == "simba" else {}
        sel = make_selector(m, random_state=state, **opts).fit(ds.X, ds.y)
        order = np.argsort(sel.ranking_, kind="stable")[: cfg["k_max"]]
        out[f"{m}:order"] = order.astype(np.int32)
        fitted[m] = (sel, state)
    # instances whose sign label differs from their mixture component (Han 2012's
    # "about 11 %"): the outliers instance weighting should play down
    flipped = (ds.y == 1) != (ds.meta["component"] == 1)
    weights = {"liw": fitted[LIW][0].instance_weights_, "mbiw": fitted[MIW][0].instance_weights_}
    if key[-1] < cfg["control_sets"]:
        weights["liw-relevant"], orders = _controls(ds.X, ds.y, cfg, fitted, rng)
        out.update({f"{name}:order": order for name, order in orders.items()})
    for name, w in weights.items():
        out[f"{name}:diagnostics"] = _weight_diagnostics(w, flipped)
    if key[-1] < cfg["reading_sets"]:
        out.update(_readings(ds.X, ds.y, cfg, rng))
    return out


def _readings(X, y, cfg: dict, rng) -> dict[str, np.ndarray]:
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
                random_state=int(rng.integers(2**31 - 1))))
        out[f"reading:{name}:simba"] = done[(scale, draws)]
        omega = logistic_instance_weights(X, y, scale=scale, margin=margin)
        if cfg["weight_scale"] == "mean":
            omega = omega / omega.mean()
        out[f"reading:{name}:liw"] = top(simba_weights(
            X, y, omega, n_passes=cfg["n_passes"], strategy=strategy, delta=not draws,
            scale=scale, random_state=int(rng.integers(2**31 - 1))))
    for name, (scale, metric) in RELIEFF_READINGS.items():
        sel = make_selector("iw-relieff", scale=scale, metric=metric,
                            random_state=int(rng.integers(2**31 - 1))).fit(X, y)
        out[f"relieff-reading:{name}"] = top(-np.asarray(sel.ranking_, dtype=float))
    return out


def _weight_diagnostics(w: np.ndarray, flipped: np.ndarray) -> np.ndarray:
    """Kish's effective sample size (sum w)^2 / sum w^2 as a share of n, the share of
    instances below a tenth of the mean weight, and the mean weight of the instances with a
    flipped label relative to the mean (NaN if none)."""
    mean = w.mean()
    ratio = w[flipped].mean() / mean if flipped.any() else np.nan
    return np.array([w.sum() ** 2 / (w @ w) / w.size, np.mean(w < 0.1 * mean), ratio,
                     flipped.mean()])


def _controls(X, y, cfg: dict, fitted: dict, rng) -> tuple[np.ndarray, dict]:
    """The controls of :data:`CONTROLS` on one training set, each with the random state of
    the fit it varies (so only the instance weights, or only the instance choice, differ)."""
    from stablefs.selectors.simba import simba_weights
    from stablefs.stabilizers import logistic_instance_weights

    liw, liw_state = fitted[LIW]
    _, simba_state = fitted[SIMBA]
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


def _xor_unit(key, *, cfg: dict, seed: int) -> dict[str, np.ndarray]:
    """One XOR data set: every method's weights, and the Simba forms' path of angles."""
    from stablefs.methods import make_selector
    from stablefs.selectors.simba import simba_weights

    data_seq, fit_seq = unit_seed(seed, *key).spawn(2)
    X, y = xor_data(cfg["xor_samples"], cfg["xor_features"], cfg["xor_relevant"],
                    np.random.default_rng(data_seq))
    rng = np.random.default_rng(fit_seq)
    r = cfg["xor_relevant"]
    out: dict[str, np.ndarray] = {}
    for m in XOR_METHODS:
        state = int(rng.integers(2**31 - 1))
        opts = _simba_options(cfg, m) if m in METHODS else {}
        sel = make_selector(m, random_state=state, **opts).fit(X, y)
        out[f"{m}:weights"] = np.asarray(sel.scores_, dtype=np.float64)
        if m not in METHODS:
            continue
        trace = np.empty(cfg["n_passes"] * X.shape[0])

        def record(t, _i, w, trace=trace):
            trace[t - 1] = weight_angle(w * w, r)

        # the same fit again, followed update by update (the selector's omega and seed)
        final = simba_weights(X, y, sel.instance_weights_, n_passes=sel.n_passes,
                              utility=sel.utility, beta=sel.beta, strategy=sel.strategy,
                              delta=sel.delta, scale=sel.scale, random_state=state,
                              callback=record)
        if not np.allclose(final, sel.scores_):  # pragma: no cover - invariant
            raise RuntimeError("the traced Simba fit differs from the selector's")
        out[f"{m}:angles"] = trace.astype(np.float32)
    return out


# ------------------------------------------------------------------------ the experiment


class SimbaLiw(Experiment):
    """The 2019 stability thesis, sec. 8.4.1: Simba, SimbaLIW and SimbaMIW on synthetic data."""

    name = "simba-liw"
    title = "Simba with logistic and margin-based instance weights on synthetic data and XOR"
    citation = "the 2019 stability thesis, sec. 8.4.1, Figs. 8.2-8.4"
    description = (
        "The 2019 stability thesis (sec. 8.4.1) runs Simba and SimbaLIW, Simba with logistic "
        "instance weights (Alg. 8.1), on 500 training sets of 100 x 1000 drawn from Han "
        "(2012)'s distribution (50 relevant features in correlated blocks): Kuncheva's "
        "stability of the top-k subsets for k up to 200, the precision of the top 50 features "
        "(Welch's t-test) and the k of maximum stability (Figs. 8.2-8.3); SimbaMIW (Han 2012's "
        "margin-based weights) is run beside them. The XOR problem of Gilad-Bachrach, Navot "
        "and Tishby (2004) shows the weights Relief and the Simba forms give 10 features, 3 "
        "of them relevant (Fig. 8.4). Added: ReliefF against IW ReliefF (Han 2012) at k = 50 "
        "on 100 of the training sets."
    )
    Config = SimbaLiwConfig

    def quick_config(self) -> SimbaLiwConfig:
        return SimbaLiwConfig(n_sets=30, relieff_sets=20, control_sets=20, reading_sets=20,
                              xor_sets=4, xor_samples=300, n_bootstrap=500)

    def check_config(self, config) -> None:
        super().check_config(config)
        c = config
        for name, minimum in (("n_sets", 2), ("n_train", 4), ("n_features", 4),
                              ("n_relevant", 1), ("block_size", 1), ("k_max", 1),
                              ("precision_k", 1), ("n_passes", 1), ("relieff_sets", 2),
                              ("relieff_k", 1), ("control_sets", 2), ("reading_sets", 2),
                              ("xor_sets", 2),
                              ("xor_samples", 4), ("xor_features", 2), ("xor_relevant", 1),
                              ("peak_low", 1), ("peak_high", 1), ("n_bootstrap", 10)):
            check_whole(name, getattr(c, name), minimum)
        check_real("alpha", c.alpha, 0.0, 0.5)
        check_real("mean", c.mean, 0.0, np.inf)
        if not isinstance(c.balanced, bool):
            raise StablefsError(f"balanced = {c.balanced}: use true or false.")
        if c.strategy not in ("normal", "sample", "order"):
            raise StablefsError(f"strategy = {c.strategy!r}: use normal, sample or order.")
        if c.weight_scale not in ("mean", "none"):
            raise StablefsError(f"weight_scale = {c.weight_scale!r}: use mean or none.")
        if c.n_relevant >= c.n_features:
            raise StablefsError(f"n_relevant = {c.n_relevant} must be below n_features = "
                                f"{c.n_features}.")
        if c.block_size > c.n_features:
            raise StablefsError(f"block_size = {c.block_size} must be at most n_features = "
                                f"{c.n_features}.")
        low = -1.0 / (c.block_size - 1) if c.block_size > 1 else -1.0
        if not isinstance(c.rho, int | float) or not low <= c.rho < 1:
            raise StablefsError(f"rho = {c.rho}: it must lie in [{low:.3g}, 1).")
        if c.k_max >= c.n_features:
            raise StablefsError(f"k_max = {c.k_max} must be below n_features = "
                                f"{c.n_features}.")
        for name in ("precision_k", "relieff_k", "peak_high"):
            if getattr(c, name) > c.k_max:
                raise StablefsError(f"{name} = {getattr(c, name)} must be at most k_max = "
                                    f"{c.k_max}.")
        if c.peak_low > c.peak_high:
            raise StablefsError(f"peak_low = {c.peak_low} must be at most peak_high = "
                                f"{c.peak_high}.")
        for name in ("relieff_sets", "control_sets", "reading_sets"):
            if getattr(c, name) > c.n_sets:
                raise StablefsError(f"{name} = {getattr(c, name)} must be at most n_sets = "
                                    f"{c.n_sets} (it counts the first of the training sets).")
        if c.xor_relevant >= c.xor_features:
            raise StablefsError(f"xor_relevant = {c.xor_relevant} must be below xor_features "
                                f"= {c.xor_features}.")

    def sizes(self, config) -> str:
        return (f"M = {config.n_sets} sets of {config.n_train} x {config.n_features}, "
                f"k = 1..{config.k_max}; ReliefF on {config.relieff_sets}; XOR "
                f"{config.xor_sets} x {config.xor_samples}")

    def estimate_seconds(self, config, n_jobs: int = 1) -> float:
        """Calibrated on this project's two-core machine: a training set of 100 x 1000 costs
        ~0.25 s of CPU for the three Simba forms and ~0.05 s for the two ReliefF; an XOR set
        of 1000 points ~1.2 s; cost scaled linearly in features and passes, quadratically in
        instances."""
        scale = config.n_features / 1000 * (config.n_train / 100) ** 2
        cpu = (config.n_sets * 0.25 * scale * config.n_passes
               + config.reading_sets * (1.8 * config.n_passes + 0.3) * scale
               + config.relieff_sets * 0.05 * scale
               + config.xor_sets * 1.2 * (config.xor_samples / 1000) ** 2 * config.n_passes)
        workers = estimate_workers(n_jobs)
        return 5.0 + cpu / workers + 2e-6 * config.n_bootstrap * config.k_max * 3

    # -- run ------------------------------------------------------------------------------
    def run(self, config: SimbaLiwConfig, *, seed: int, n_jobs: int = 1,
            progress: bool = False, cache=None) -> Outcome:
        cfg = dataclasses.asdict(config)
        common = {"cfg": cfg, "seed": seed}
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        sets = run_units(_set_unit, [(_SETS, i) for i in range(config.n_sets)],
                         study="sets", common=common, n_jobs=n_jobs, progress=progress,
                         cache=cache, desc="Figs. 8.2-8.3")
        timings["training_sets"] = round(time.perf_counter() - t0, 3)
        t1 = time.perf_counter()
        xor = run_units(_xor_unit, [(_XOR, i) for i in range(config.xor_sets)], study="xor",
                        common=common, n_jobs=n_jobs, progress=progress, cache=cache,
                        desc="Fig. 8.4 (XOR)")
        timings["xor"] = round(time.perf_counter() - t1, 3)
        t2 = time.perf_counter()
        rng = np.random.default_rng(unit_seed(seed, _BOOT))
        outcome = _Analysis(config, sets, xor, rng).outcome()
        timings["analysis"] = round(time.perf_counter() - t2, 3)
        outcome.timings = timings
        return outcome


# ------------------------------------------------------------------------ analysis


def _p(p: float) -> str:
    return "< 1e-300" if p == 0 else f"{p:.2g}"


class _Analysis:
    """Tables, figures and claims from the units' results."""

    def __init__(self, config: SimbaLiwConfig, sets, xor, rng):
        c = self.c = config
        self.rng = rng
        self.ks = np.arange(1, c.k_max + 1)
        self.relevant = np.arange(c.n_relevant)
        M = c.n_sets
        self.orders = {m: np.stack([res[f"{m}:order"] for res in sets]) for m in METHODS}
        self.r_orders = {m: np.stack([res[f"{m}:order"] for res in sets[: c.relieff_sets]])
                         for m in RELIEFF}
        self.positive = np.array([float(res["positive"]) for res in sets])
        # ---- Kuncheva against k, with paired bootstrap replicates (the same resamples)
        self.counts = bootstrap_counts(rng, M, c.n_bootstrap)
        self.kun = {m: kuncheva_path(self.orders[m], c.n_features, self.ks) for m in METHODS}
        self.kun_boot = {m: kuncheva_path(self.orders[m], c.n_features, self.ks, self.counts)
                         for m in METHODS}
        rows = []
        for m, label in METHODS.items():
            for j, k in enumerate(self.ks):
                lo, hi = t_interval(self.kun_boot[m][:, j], M, c.alpha)
                rows.append({"method": label, "k": int(k), "kuncheva": float(self.kun[m][j]),
                             "low": lo, "high": hi})
        self.kun_table = pd.DataFrame(rows)
        rows = []
        self.kun_verdicts = {}
        for m in (LIW, MIW):
            diff = self.kun_boot[m] - self.kun_boot[SIMBA]
            verdicts = []
            for j, k in enumerate(self.ks):
                v, lo, hi = verdict_positive(diff[:, j], c.alpha, runs=M,
                                             margin=MARGINS["kuncheva"])
                verdicts.append(v)
                rows.append({"comparison": f"{METHODS[m]} - Simba", "k": int(k),
                             "difference": float(self.kun[m][j] - self.kun[SIMBA][j]),
                             "low": lo, "high": hi, "verdict": v})
            self.kun_verdicts[m] = verdicts
        diff = self.kun_boot[MIW] - self.kun_boot[LIW]
        self.miw_vs_liw = []
        for j, k in enumerate(self.ks):
            v, lo, hi = verdict_positive(diff[:, j], c.alpha, runs=M,
                                         margin=MARGINS["kuncheva"])
            self.miw_vs_liw.append(v)
            rows.append({"comparison": "SimbaMIW - SimbaLIW", "k": int(k),
                         "difference": float(self.kun[MIW][j] - self.kun[LIW][j]),
                         "low": lo, "high": hi, "verdict": v})
        self.diff_table = pd.DataFrame(rows)
        # ---- peaks: k of maximum Kuncheva, and its bootstrap distribution
        self.peak, self.peak_boot = {}, {}
        for m in METHODS:
            self.peak[m] = int(self.ks[int(np.nanargmax(self.kun[m]))])
            kb = np.where(np.isfinite(self.kun_boot[m]), self.kun_boot[m], -np.inf)
            self.peak_boot[m] = self.ks[np.argmax(kb, axis=1)].astype(float)
        # ---- precision of the top precision_k, and precision / recall at the peak
        self.prec = {m: top_k_precision(self.orders[m], self.relevant, c.precision_k)
                     for m in METHODS}
        self.peak_prec = {m: top_k_precision(self.orders[m], self.relevant, self.peak[m])
                          for m in METHODS}
        self.peak_recall = {m: self.peak_prec[m] * self.peak[m] / c.n_relevant for m in METHODS}
        rows = []
        for m, label in METHODS.items():
            for i in range(M):
                rows.append({"method": label, "set": i,
                             f"precision_top{c.precision_k}": float(self.prec[m][i]),
                             "peak_k": self.peak[m],
                             "precision_at_peak": float(self.peak_prec[m][i]),
                             "recall_at_peak": float(self.peak_recall[m][i])})
        self.prec_table = pd.DataFrame(rows)
        # ---- ReliefF and IW ReliefF at relieff_k
        R = c.relieff_sets
        self.r_counts = bootstrap_counts(rng, R, c.n_bootstrap)
        self.r_kun, self.r_boot, self.r_prec = {}, {}, {}
        rows = []
        for m, label in RELIEFF.items():
            self.r_kun[m] = kuncheva_path(self.r_orders[m], c.n_features, self.ks)
            self.r_boot[m] = kuncheva_path(self.r_orders[m], c.n_features, [c.relieff_k],
                                           self.r_counts)[:, 0]
            self.r_prec[m] = top_k_precision(self.r_orders[m], self.relevant, c.relieff_k)
            lo, hi = t_interval(self.r_boot[m], c.relieff_sets, c.alpha)
            for j, k in enumerate(self.ks):
                rows.append({"method": label, "k": int(k),
                             "kuncheva": float(self.r_kun[m][j]),
                             "precision": float(top_k_precision(
                                 self.r_orders[m], self.relevant, int(k)).mean()),
                             "low": lo if k == c.relieff_k else np.nan,
                             "high": hi if k == c.relieff_k else np.nan})
        # the Simba forms on the same sets, for comparison
        for m, label in METHODS.items():
            sub = self.orders[m][:R]
            kr = kuncheva_path(sub, c.n_features, self.ks)
            for j, k in enumerate(self.ks):
                rows.append({"method": f"{label} (same {R} sets)", "k": int(k),
                             "kuncheva": float(kr[j]),
                             "precision": float(top_k_precision(sub, self.relevant,
                                                                int(k)).mean()),
                             "low": np.nan, "high": np.nan})
        self.relieff_table = pd.DataFrame(rows)
        # ---- controls: why SimbaLIW gains or loses
        self._controls(sets)
        self._readings(sets)
        # ---- XOR
        self.xw = {m: np.stack([res[f"{m}:weights"] for res in xor]) for m in XOR_METHODS}
        self.xa = {m: np.stack([res[f"{m}:angles"] for res in xor]) for m in METHODS}
        r = c.xor_relevant
        self.x_angle = {m: weight_angle(self.xw[m], r) for m in XOR_METHODS}
        self.x_top = {}
        for m in XOR_METHODS:
            order = np.argsort(-self.xw[m], axis=1, kind="stable")
            self.x_top[m] = np.all(np.sort(order[:, :r], axis=1) == np.arange(r), axis=1)
        rows = []
        for m, label in XOR_METHODS.items():
            W = self.xw[m] / np.abs(self.xw[m]).max(axis=1, keepdims=True)
            for j in range(c.xor_features):
                rows.append({"method": label, "feature": j + 1, "relevant": j < r,
                             "weight_mean": float(W[:, j].mean()),
                             "weight_sd": float(W[:, j].std(ddof=1))})
        self.xor_weights = pd.DataFrame(rows)
        rows = []
        for m, label in XOR_METHODS.items():
            row = {"method": label, "final_angle_deg": float(self.x_angle[m].mean()),
                   "final_angle_sd": float(self.x_angle[m].std(ddof=1)),
                   "share_top3_correct": float(self.x_top[m].mean())}
            if m in METHODS:
                row["mean_angle_over_updates"] = float(self.xa[m].mean())
            rows.append(row)
        self.xor_summary = pd.DataFrame(rows)
        steps = self.xa[SIMBA].shape[1]
        every = max(1, steps // 200)
        rows = []
        for m, label in METHODS.items():
            A = self.xa[m].astype(np.float64)
            for t in range(every - 1, steps, every):
                rows.append({"method": label, "update": t + 1,
                             "angle_mean": float(A[:, t].mean()),
                             "angle_sd": float(A[:, t].std(ddof=1))})
        self.xor_path = pd.DataFrame(rows)

    def _controls(self, sets) -> None:
        c = self.c
        n = c.control_sets
        k = c.precision_k
        C = bootstrap_counts(self.rng, n, c.n_bootstrap)
        orders = {m: self.orders[m][:n] for m in (SIMBA, LIW)}
        orders.update({m: np.stack([res[f"{m}:order"] for res in sets[:n]]) for m in CONTROLS})
        labels = {SIMBA: METHODS[SIMBA], LIW: METHODS[LIW], **CONTROLS}
        kb = {m: kuncheva_path(o, c.n_features, [k], C)[:, 0] for m, o in orders.items()}
        prec = {m: top_k_precision(o, self.relevant, k) for m, o in orders.items()}
        rows = []
        for m, o in orders.items():
            klo, khi = t_interval(kb[m] - kb[SIMBA], n, c.alpha)
            plo, phi = t_interval(mean_boot(prec[m] - prec[SIMBA], C), n, c.alpha,
                                  float((prec[m] - prec[SIMBA]).mean()))
            rows.append({"variant": labels[m], "sets": n, "k": k,
                         "kuncheva": float(kuncheva_path(o, c.n_features, [k])[0]),
                         "kuncheva_minus_simba_low": klo, "kuncheva_minus_simba_high": khi,
                         "precision": float(prec[m].mean()),
                         "precision_minus_simba_low": plo, "precision_minus_simba_high": phi})
        self.control_table = pd.DataFrame(rows)
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
        self.weight_table = pd.DataFrame(rows)

    def _readings(self, sets) -> None:
        """Claims 5a, 5b (and R) under every reading, on the first ``reading_sets`` sets."""
        c = self.c
        n, a = c.reading_sets, c.alpha
        C = bootstrap_counts(self.rng, n, c.n_bootstrap)
        k50 = c.precision_k
        rows = []
        for name in READINGS:
            o_s = np.stack([res[f"reading:{name}:simba"] for res in sets[:n]])
            o_l = np.stack([res[f"reading:{name}:liw"] for res in sets[:n]])
            kun_s = kuncheva_path(o_s, c.n_features, self.ks)
            kun_l = kuncheva_path(o_l, c.n_features, self.ks)
            diff = (kuncheva_path(o_l, c.n_features, self.ks, C)
                    - kuncheva_path(o_s, c.n_features, self.ks, C))
            per_k = [verdict_positive(diff[:, j], a, runs=n, margin=MARGINS["kuncheva"],
                                      estimate=float(kun_l[j] - kun_s[j]))
                     for j in range(self.ks.size)]
            p_s = top_k_precision(o_s, self.relevant, k50)
            p_l = top_k_precision(o_l, self.relevant, k50)
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
                "verdict_5a": _combine(v[0] for v in per_k),
                "majority_5a": tally(v[0] for v in per_k),
                "simba_precision": float(p_s.mean()), "liw_precision": float(p_l.mean()),
                "precision_diff_low": plo, "precision_diff_high": phi, "verdict_5b": v5b,
                "peak_simba": int(self.ks[int(np.nanargmax(kun_s))]),
                "peak_liw": int(self.ks[int(np.nanargmax(kun_l))]),
            })
        self.reading_table = pd.DataFrame(rows)
        base = np.stack([res["relieff:order"] for res in sets[:n]]) if all(
            "relieff:order" in res for res in sets[:n]) else None
        rows = []
        for name in RELIEFF_READINGS:
            o = np.stack([res[f"relieff-reading:{name}"] for res in sets[:n]])
            row = {"reading": name, "sets": n,
                   "iw_relieff_kuncheva": float(kuncheva_path(o, c.n_features,
                                                              [c.relieff_k])[0]),
                   "iw_relieff_precision": float(top_k_precision(o, self.relevant,
                                                                 c.relieff_k).mean())}
            if base is not None:
                d = (kuncheva_path(o, c.n_features, [c.relieff_k], C)[:, 0]
                     - kuncheva_path(base, c.n_features, [c.relieff_k], C)[:, 0])
                plain = float(kuncheva_path(base, c.n_features, [c.relieff_k])[0])
                v, lo, hi = verdict_positive(d, a, runs=n, margin=MARGINS["kuncheva"],
                                             estimate=row["iw_relieff_kuncheva"] - plain)
                row.update({"relieff_kuncheva": plain, "iw_minus_relieff_low": lo,
                            "iw_minus_relieff_high": hi, "verdict_R": v})
            rows.append(row)
        self.relieff_reading_table = pd.DataFrame(rows)

    def reading_claims(self) -> list[Claim]:
        """Claims 5a, 5b and R judged under every reading (ids ``5a/<reading>`` ...)."""
        c = self.c
        n, a = c.reading_sets, c.alpha
        out = []
        for r in self.reading_table.itertuples():
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
                f"stable at {r.sizes_liw_more_stable} of {self.ks.size} sizes, less at "
                f"{r.sizes_liw_less_stable}; {r.majority_5a}; peaks {r.peak_simba} and "
                f"{r.peak_liw} (thesis 42 and 40)", r.verdict_5a, "tables/readings.csv"))
            out.append(Claim(
                f"5b/{r.reading}", f"Claim 5b under the reading: {how}{ours}.",
                f"first {n} training sets; top-{c.precision_k} precision, SimbaLIW minus "
                "Simba; " + better_rule(MARGINS["precision"], n, a),
                f"Simba {r.simba_precision:.4f}, SimbaLIW {r.liw_precision:.4f} (thesis 0.4722 "
                f"and 0.5414); difference {_ci(r.precision_diff_low, r.precision_diff_high)}",
                r.verdict_5b, "tables/readings.csv"))
        if "verdict_R" in self.relieff_reading_table:
            for r in self.relieff_reading_table.itertuples():
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

    def which_reading(self) -> str:
        """Which readings reproduce the thesis (5a and 5b hold)."""
        t = self.reading_table
        both = t[(t.verdict_5a == "holds") & (t.verdict_5b == "holds")].reading.tolist()
        gap = (t.liw_precision - 0.5414).abs() + (t.simba_precision - 0.4722).abs()
        near = t.reading[int(np.argmin(gap.to_numpy()))]
        return ((f"Readings under which 5a and 5b both hold: {', '.join(both)}. " if both else
                 "No reading makes both 5a and 5b hold. ")
                + f"Closest to the thesis' precisions (0.4722, 0.5414): {near}.")

    def why_section(self) -> list[tuple[str, str]]:
        """The controls in words (the report's section "What the instance weights do")."""
        c = self.c
        ct = self.control_table.set_index("variant")
        wt = self.weight_table.set_index("weights")
        liw, mbiw, rel = (wt.iloc[i] for i in range(3))

        def row(label):
            r = ct.loc[label]
            return (f"precision {r.precision:.3f}, Kuncheva {r.kuncheva:.3f} (minus Simba's: "
                    f"{_ci(r.precision_minus_simba_low, r.precision_minus_simba_high)} and "
                    f"{_ci(r.kuncheva_minus_simba_low, r.kuncheva_minus_simba_high)})")

        text = (
            f"SimbaLIW's logistic weights keep an effective sample size (Kish: (sum w)^2 / "
            f"sum w^2) of {100 * liw.effective_share:.0f} % of the instances, and "
            f"{100 * liw.share_below_tenth_of_mean:.0f} % of the instances get less than a "
            f"tenth of the mean weight; SimbaMIW's margin-based weights keep "
            f"{100 * mbiw.effective_share:.1f} %, so SimbaMIW is close to Simba. The instances "
            f"whose sign label differs from their mixture component "
            f"({100 * liw.flipped_share:.1f} %) get {liw.flipped_weight_ratio:.2f} x the mean "
            f"logistic weight when the margins are measured on all {c.n_features} features, "
            f"and {rel.flipped_weight_ratio:.2f} x when they are measured on the "
            f"{c.n_relevant} relevant features only. On the first {c.control_sets} training "
            f"sets, at k = {c.precision_k} ({100 * (1 - c.alpha):g} % paired bootstrap "
            f"intervals): Simba {row(METHODS[SIMBA]).split(' (')[0]}; SimbaLIW "
            f"{row(METHODS[LIW])}; the same weights shuffled among the instances (their "
            f"spread without their information) {row(CONTROLS['liw-shuffled'])}; weights from "
            f"the margins on the relevant features {row(CONTROLS['liw-relevant'])}; plain "
            f"Simba drawing its instances with replacement (Alg. 2.5 read literally) "
            f"{row(CONTROLS['simba-draws'])}. See tables/controls.csv and "
            "tables/instance_weights.csv."
        )
        return [("What the instance weights do", text)]

    # -- claims ---------------------------------------------------------------------------
    def claims(self) -> list[Claim]:
        from scipy import stats

        c, a = self.c, self.c.alpha
        cover = f"{100 * (1 - a):g} %"
        M, B = c.n_sets, c.n_bootstrap
        paired = f"paired bootstrap over the {M} training sets ({B} resamples)"
        K = self.ks.size
        claims = []

        # 5a: SimbaLIW more stable than Simba at every k
        v = self.kun_verdicts[LIW]
        tally = {w: v.count(w) for w in VERDICTS}
        d = self.kun[LIW] - self.kun[SIMBA]
        j = int(np.argmin(d))
        claims.append(Claim(
            "5a", "The stability (Kuncheva index) of SimbaLIW is higher than Simba's at all "
            "subset sizes up to 200 (2019 stability thesis, sec. 8.4.1, Fig. 8.2).",
            f"At every k = 1..{c.k_max}: {paired} of the mean pairwise Kuncheva index, SimbaLIW "
            "minus Simba; per k: " + better_rule(MARGINS["kuncheva"], M, a)
            + "; the claim holds if it holds at every k, does not hold if it fails at one.",
            f"SimbaLIW higher at {tally['holds']} of {K} sizes, not higher at "
            f"{tally['does not hold']}, no practical difference at "
            f"{tally['no practical difference']}, inconclusive at {tally['inconclusive']}; "
            f"at k = {c.precision_k}: Simba {_fmt(self._kun(SIMBA, c.precision_k))}, SimbaLIW "
            f"{_fmt(self._kun(LIW, c.precision_k))}; smallest difference {_fmt(d[j])} at "
            f"k = {int(self.ks[j])}", _combine(v),
            "tables/kuncheva_differences.csv; figures/fig8_2_stability_precision.png"))

        # 5b: top-50 precision SimbaLIW > Simba
        welch = stats.ttest_ind(self.prec[LIW], self.prec[SIMBA], equal_var=False)
        verdict, lo, hi = verdict_positive(
            mean_boot(self.prec[LIW] - self.prec[SIMBA], self.counts), a, runs=M,
            margin=MARGINS["precision"], estimate=float((self.prec[LIW] - self.prec[SIMBA]).mean()))
        claims.append(Claim(
            "5b", "The precision of the top 50 features is higher for SimbaLIW "
            "than for Simba (0.5414 against 0.4722 over 500 training sets; Welch's t-test "
            "p < 2.2e-16; 2019 stability thesis, sec. 8.4.1, Fig. 8.2).",
            f"Share of the {c.n_relevant} relevant features among the top {c.precision_k}, per "
            f"training set; {paired} of the mean difference, SimbaLIW minus Simba; "
            + better_rule(MARGINS["precision"], M, a) + ". Welch's t-test (the thesis') "
            "reported beside it.",
            f"Simba {self.prec[SIMBA].mean():.4f}, SimbaLIW {self.prec[LIW].mean():.4f}; "
            f"difference {_ci(lo, hi)}; Welch t = {welch.statistic:.2f}, p = "
            f"{_p(welch.pvalue)}", verdict,
            "tables/precision.csv; figures/fig8_2_stability_precision.png"))

        # 5c / 5d: the peak of stability in the 40-50 range
        for cid, m in (("5c", SIMBA), ("5d", LIW)):
            lo, hi = interval(self.peak_boot[m], a)
            inside = c.peak_low <= lo and hi <= c.peak_high
            outside = hi < c.peak_low or lo > c.peak_high
            verdict = ("too few runs" if M < MIN_RUNS else "holds" if inside
                       else "does not hold" if outside else "inconclusive")
            claims.append(Claim(
                cid, f"The stability of {METHODS[m]} tops in the 40-50 "
                "range of subset sizes (maximum at k = {PUBLISHED['peak'][m]}; 2019 stability "
                "thesis, sec. 8.4.1, Figs. 8.2-8.3).",
                f"k of the largest mean Kuncheva index over k = 1..{c.k_max}; {cover} "
                f"interval of that k over {B} bootstrap resamples of the training sets: holds "
                f"if it lies within [{c.peak_low}, {c.peak_high}], does not hold if it lies "
                f"entirely outside, else inconclusive; fewer than {MIN_RUNS} training sets: "
                "too few runs (a percentile interval: the arg-max is no mean).",
                f"maximum at k = {self.peak[m]} (Kuncheva {_fmt(self._kun(m, self.peak[m]))}); "
                f"interval [{lo:g}, {hi:g}]", verdict,
                "tables/kuncheva.csv; figures/fig8_2_stability_precision.png"))

        # 5e: SimbaMIW the most stable of the three
        v = [_combine(pair) for pair in zip(self.kun_verdicts[MIW], self.miw_vs_liw,
                                            strict=True)]
        over_simba = self.kun_verdicts[MIW].count("holds")
        over_liw = self.miw_vs_liw.count("holds")
        claims.append(Claim(
            "5e", "SimbaMIW delivers the most stable feature sets of the three, followed by "
            "SimbaLIW (2019 stability thesis, sec. 8.4.3, on real data; checked here on the "
            "synthetic data).",
            f"At every k = 1..{c.k_max}: {paired} of SimbaMIW minus Simba and of SimbaMIW "
            "minus SimbaLIW; per comparison and k: " + better_rule(MARGINS["kuncheva"], M, a)
            + "; the claim holds if both hold at every k, does not hold if either fails at one.",
            f"SimbaMIW above Simba at {over_simba} of {K} sizes (below at "
            f"{self.kun_verdicts[MIW].count('does not hold')}), above SimbaLIW at {over_liw} "
            f"(below at {self.miw_vs_liw.count('does not hold')}); at k = {c.precision_k}: "
            f"SimbaMIW {_fmt(self._kun(MIW, c.precision_k))}", _combine(v),
            "tables/kuncheva_differences.csv"))

        # R: IW ReliefF more stable than ReliefF at relieff_k
        R = c.relieff_sets
        verdict, lo, hi = verdict_positive(self.r_boot["iw-relieff"] - self.r_boot["relieff"],
                                           a, runs=R, margin=MARGINS["kuncheva"])
        j = int(np.flatnonzero(self.ks == c.relieff_k)[0])
        claims.append(Claim(
            "R", "Instance weighting improves the stability of ReliefF (Han 2012, sec. 7.3, "
            "Fig. 7.4, on microarray data; checked here on the synthetic data at "
            f"k = {c.relieff_k}).",
            f"Kuncheva index of the top {c.relieff_k} over the first {R} training sets; paired "
            f"bootstrap over them ({B} resamples) of IW ReliefF minus ReliefF; "
            + better_rule(MARGINS["kuncheva"], R, a) + ".",
            f"ReliefF {_fmt(self.r_kun['relieff'][j])}, IW ReliefF "
            f"{_fmt(self.r_kun['iw-relieff'][j])}; difference {_ci(lo, hi)}; precision "
            f"{self.r_prec['relieff'].mean():.4f} and {self.r_prec['iw-relieff'].mean():.4f}",
            verdict, "tables/relieff.csv; figures/relieff_stability.png"))

        # 10a: every Simba form beats Relief on XOR
        Cx = bootstrap_counts(self.rng, c.xor_sets, B)
        verdicts, parts = [], []
        for m in METHODS:
            gain = self.x_angle["relief"] - self.x_angle[m]
            v, lo, hi = verdict_positive(mean_boot(gain, Cx), a, runs=c.xor_sets,
                                         margin=MARGINS["angle"], estimate=float(gain.mean()))
            verdicts.append(v)
            parts.append(f"{METHODS[m]} {self.x_angle[m].mean():.1f} deg "
                         f"({100 * self.x_top[m].mean():.0f} %), Relief minus it {_ci(lo, hi)}")
        claims.append(Claim(
            "10a", "On the XOR problem (3 relevant of 10 features), Simba, SimbaLIW and "
            "SimbaMIW all outperform Relief (2019 stability thesis, sec. 8.4.1, Fig. 8.4; "
            "sec. 2.4.2, Fig. 2.12).",
            f"Angle between each method's final feature weights and the correct vector "
            f"(1, 1, 1, 0, ...), {c.xor_sets} XOR data sets of {c.xor_samples}; paired "
            f"bootstrap ({B} resamples) of Relief's mean angle minus the method's (degrees); "
            + better_rule(MARGINS["angle"], c.xor_sets, a) + "; the claim holds if it holds "
            "for all three, does not hold if it fails for one.",
            f"Relief {self.x_angle['relief'].mean():.1f} deg (top 3 correct in "
            f"{100 * self.x_top['relief'].mean():.0f} % of the sets); " + "; ".join(parts),
            _combine(verdicts), "tables/xor_summary.csv; figures/fig8_4_xor_weights.png"))

        # 10b: SimbaLIW converges first
        verdicts, parts = [], []
        mean_path = {m: self.xa[m].astype(np.float64).mean(axis=1) for m in METHODS}
        for m in (SIMBA, MIW):
            gain = mean_path[m] - mean_path[LIW]
            v, lo, hi = verdict_positive(mean_boot(gain, Cx), a, runs=c.xor_sets,
                                         margin=MARGINS["angle"], estimate=float(gain.mean()))
            verdicts.append(v)
            parts.append(f"{METHODS[m]} minus SimbaLIW {_ci(lo, hi)}")
        claims.append(Claim(
            "10b", "SimbaLIW seems to be the one that converges first to the correct feature "
            "weights on the XOR problem (2019 stability thesis, sec. 8.4.1, Fig. 8.4).",
            "Angle between the weights and the correct vector after every update of the pass, "
            "averaged over the updates (the area under the convergence curve: lower = closer "
            "sooner); paired bootstrap over the XOR sets of Simba minus SimbaLIW and of "
            "SimbaMIW minus SimbaLIW (degrees); " + better_rule(MARGINS["angle"], c.xor_sets, a)
            + "; the claim holds if both hold, does not hold if either fails.",
            "mean angle over the updates: " + ", ".join(
                f"{METHODS[m]} {mean_path[m].mean():.1f} deg" for m in METHODS)
            + "; " + "; ".join(parts), _combine(verdicts),
            "tables/xor_path.csv; figures/xor_convergence.png"))
        return claims

    def _kun(self, m: str, k: int) -> float:
        return float(self.kun[m][int(k) - 1])

    # -- published numbers ----------------------------------------------------------------
    def published(self) -> pd.DataFrame:
        from scipy import stats

        c = self.c
        welch = stats.ttest_ind(self.prec[LIW], self.prec[SIMBA], equal_var=False)
        higher = self.kun_verdicts[LIW].count("holds")
        src = "2019 stability thesis, sec. 8.4.1"
        rows = [
            (f"top-{c.precision_k} precision, Simba (mean over the training sets)",
             PUBLISHED["precision"][SIMBA], round(float(self.prec[SIMBA].mean()), 4), src),
            (f"top-{c.precision_k} precision, SimbaLIW", PUBLISHED["precision"][LIW],
             round(float(self.prec[LIW].mean()), 4), src),
            (f"top-{c.precision_k} precision, SimbaMIW", "not reported",
             round(float(self.prec[MIW].mean()), 4), src),
            ("Welch's t-test p-value, SimbaLIW vs Simba precision", "< 2.2e-16",
             _p(welch.pvalue), src),
            ("k of maximum Kuncheva index, Simba", PUBLISHED["peak"][SIMBA], self.peak[SIMBA],
             src + ", Fig. 8.3"),
            ("k of maximum Kuncheva index, SimbaLIW", PUBLISHED["peak"][LIW], self.peak[LIW],
             src + ", Fig. 8.3"),
            (f"sizes k <= {c.k_max} at which SimbaLIW is more stable than Simba", "all",
             f"{higher} of {self.ks.size}", src + ", Fig. 8.2"),
            ("training sets (setting)", 500, c.n_sets, src),
            ("instances x features per training set (setting)", "100 x 1000",
             f"{c.n_train} x {c.n_features}", src),
            ("relevant features (setting)", 50, c.n_relevant, src),
            ("XOR problem: points x features, relevant (setting)", "1000 x 10, 3",
             f"{c.xor_samples} x {c.xor_features}, {c.xor_relevant}",
             "2019 stability thesis, sec. 2.4.2"),
        ]
        return pd.DataFrame(rows, columns=["quantity", "published", "ours", "source"])

    def notes(self) -> list[str]:
        c = self.c
        comp = ("each instance's component a fair coin, as the thesis says ('equiprobably "
                "drawn')" if not c.balanced else "exactly half from each component, as Han "
                "2012 sec. 6.1")
        return [
            f"Data: Han (2012)'s generator with labels y = sgn(sum_j x_j r_j) and {comp}; "
            f"{100 * (1 - self.positive.mean()):.1f} % of the labels are -1 on average.",
            "Simba: one pass over the instances in a random order (T = N), linear utility, "
            "features min-max scaled on each training set, weights w^2 / max w^2 (Alg. 2.5). "
            "The thesis does not say which of its six SimbaLIW variants sec. 8.4.1 ran; we run "
            f"strategy '{c.strategy}' with the Delta-combination (w <- w + omega(x) Delta), "
            f"omega scaled '{c.weight_scale}' (see the Simba documentation) and "
            f"{c.n_passes} pass(es); strategy, weight_scale and n_passes are settings.",
            "SimbaLIW's instance weights: logistic weights of Relief's hypothesis margins, "
            "alpha = 3.03 (sec. 8.2, eq. 8.2); SimbaMIW's: Han (2012)'s margin-based weights "
            "(Alg. 1, eqs. 4.2, 4.6).",
            f"Subsets: the k features of largest weight (ties by the lower index), "
            f"k = 1..{c.k_max}; Kuncheva's index averaged over all pairs of the {c.n_sets} "
            "subsets.",
            f"Precision: share of the {c.n_relevant} relevant features among the top "
            f"{c.precision_k} (equal to the recall there). The thesis tests the difference "
            "with Welch's t-test; our verdicts use a paired bootstrap (both methods see the "
            "same training sets), and Welch's p-value is shown beside it.",
            "Peak: the k of the largest mean Kuncheva index over the grid; Fig. 8.3's "
            "precision and recall are computed at our peaks, not the thesis' 42 and 40.",
            f"XOR: the feature distribution is not stated; we draw the {c.xor_features} "
            "features uniformly from [-1, 1] and label by the XOR of the signs of the first "
            f"{c.xor_relevant}; {c.xor_sets} independent data sets of {c.xor_samples} points "
            "(the thesis shows one). Relief: one nearest hit and miss, every instance "
            "(Kira and Rendell 1992). Quality is the angle between the weights and "
            "(1, 1, 1, 0, ..., 0), the measure of Gilad-Bachrach, Navot and Tishby (2004); "
            "'converges first' is read as the smaller mean angle over the updates of the pass.",
            f"Controls (not in the thesis), on the first {c.control_sets} training sets: "
            "SimbaLIW with its weights shuffled among the instances, SimbaLIW with the logistic "
            f"weights of the margins on the {c.n_relevant} relevant features only, and plain "
            "Simba visiting instances drawn with replacement; each uses the random state of "
            "the fit it varies (section 'What the instance weights do').",
            f"ReliefF (K = 10, every instance; Han 2012 eq. 5.1) and IW ReliefF (margin-based "
            f"instance weights, eq. 5.3) run on the first {c.relieff_sets} training sets of the "
            "Simba study (not in the thesis; tables/relieff.csv also lists the Simba forms on "
            "the same sets).",
            f"Significance: percentile bootstrap over the training sets ({c.n_bootstrap} "
            f"resamples, {100 * (1 - c.alpha):g} % intervals), paired.",
        ]

    def summary(self, claims: list[Claim]) -> list[str]:
        told = count_verdicts(cl.verdict for cl in claims)
        c = self.c
        return [
            f"Of the {len(claims)} claims, {told}: "
            + ", ".join(f"{cl.id} {cl.verdict}" for cl in claims) + ".",
            f"Top-{c.precision_k} precision: Simba {self.prec[SIMBA].mean():.4f}, SimbaLIW "
            f"{self.prec[LIW].mean():.4f}, SimbaMIW {self.prec[MIW].mean():.4f} (the thesis: "
            "0.4722 and 0.5414); stability peaks at k = "
            + ", ".join(f"{self.peak[m]} ({METHODS[m]})" for m in METHODS)
            + " (the thesis: 42 and 40).",
            self.which_reading(),
        ]

    # -- figures --------------------------------------------------------------------------
    def _styles(self) -> dict:
        from stablefs.report.figures import method_styles

        return method_styles(list(XOR_METHODS.values()) + list(RELIEFF.values()))

    def figures(self) -> list[FigureSpec]:
        c = self.c
        cover = f"{100 * (1 - c.alpha):g} %"
        return [
            FigureSpec("fig8_2_stability_precision",
                       f"2019 stability thesis Fig. 8.2: left, Kuncheva index of the top-k "
                       f"subsets over {c.n_sets} training sets against k (band: {cover} "
                       f"bootstrap interval; dotted: each method's maximum; shaded: "
                       f"{c.peak_low}-{c.peak_high}); right, precision of the top "
                       f"{c.precision_k} features per training set.", self._fig_stability),
            FigureSpec("fig8_3_peak_precision_recall",
                       "2019 stability thesis Fig. 8.3: precision and recall per training set "
                       "at each method's k of maximum stability (" + ", ".join(
                           f"{METHODS[m]} {self.peak[m]}" for m in METHODS) + ").",
                       self._fig_peak),
            FigureSpec("fig8_4_xor_weights",
                       f"2019 stability thesis Fig. 8.4: the weights each method gives the "
                       f"{c.xor_features} features of the XOR problem (features 1-"
                       f"{c.xor_relevant} relevant), scaled to a maximum |weight| of 1; mean "
                       f"and standard deviation over {c.xor_sets} data sets of "
                       f"{c.xor_samples}.", self._fig_xor_weights),
            FigureSpec("xor_convergence",
                       "Angle between the Simba forms' weights and the correct vector after "
                       f"each update (mean over {c.xor_sets} XOR data sets; dashed: Relief's "
                       "final angle).", self._fig_xor_path),
            FigureSpec("relieff_stability",
                       f"ReliefF and IW ReliefF (Han 2012): Kuncheva index against k over the "
                       f"first {c.relieff_sets} training sets, with the Simba forms on the "
                       f"same sets; dotted: k = {c.relieff_k}.", self._fig_relieff),
        ]

    def _fig_stability(self):
        from matplotlib.figure import Figure

        c = self.c
        fig = Figure(figsize=(11, 4.3), layout="constrained")
        ax, bx = fig.subplots(1, 2, width_ratios=(2, 1))
        styles = self._styles()
        ax.axvspan(c.peak_low, c.peak_high, color="#dddddd", alpha=0.6, linewidth=0,
                   zorder=0)
        for m, label in METHODS.items():
            d = self.kun_table[self.kun_table.method == label]
            st = styles[label]
            ax.plot(d.k, d.kuncheva, color=st["color"], label=label, linewidth=1.4)
            ax.fill_between(d.k, d.low, d.high, color=st["color"], alpha=0.18, linewidth=0)
            ax.axvline(self.peak[m], color=st["color"], linestyle=":", linewidth=1)
        ax.set_xlabel("subset size k")
        ax.set_ylabel("Kuncheva index")
        ax.set_title("Stability")
        ax.legend(loc="lower right")
        data = [self.prec[m] for m in METHODS]
        box = bx.boxplot(data, tick_labels=list(METHODS.values()), patch_artist=True,
                         medianprops={"color": "black"})
        for patch, label in zip(box["boxes"], METHODS.values(), strict=True):
            patch.set_facecolor(styles[label]["color"])
            patch.set_alpha(0.5)
        for m, x in zip(METHODS, (1, 2, 3), strict=True):
            if m in PUBLISHED["precision"]:
                bx.plot(x, PUBLISHED["precision"][m], marker="*", color="black",
                        markersize=10, linestyle="none",
                        label="thesis" if m == SIMBA else None)
        bx.legend(loc="best")
        bx.set_title(f"Precision of the top {c.precision_k}")
        return fig

    def _fig_peak(self):
        from matplotlib.figure import Figure

        fig = Figure(figsize=(9, 4), layout="constrained")
        axes = fig.subplots(1, 2)
        styles = self._styles()
        labels = [f"{METHODS[m]}\nk = {self.peak[m]}" for m in METHODS]
        for ax, values, title in ((axes[0], self.peak_prec, "Precision"),
                                  (axes[1], self.peak_recall, "Recall")):
            box = ax.boxplot([values[m] for m in METHODS], tick_labels=labels,
                             patch_artist=True, medianprops={"color": "black"})
            for patch, m in zip(box["boxes"], METHODS, strict=True):
                patch.set_facecolor(styles[METHODS[m]]["color"])
                patch.set_alpha(0.5)
            ax.set_title(f"{title} at the k of maximum stability")
        return fig

    def _fig_xor_weights(self):
        from matplotlib.figure import Figure

        c = self.c
        fig = Figure(figsize=(9, 4), layout="constrained")
        ax = fig.subplots()
        styles = self._styles()
        n = len(XOR_METHODS)
        width = 0.8 / n
        x = np.arange(1, c.xor_features + 1)
        for i, label in enumerate(XOR_METHODS.values()):
            d = self.xor_weights[self.xor_weights.method == label]
            ax.bar(x + (i - (n - 1) / 2) * width, d.weight_mean, width, yerr=d.weight_sd,
                   color=styles[label]["color"], label=label, capsize=1.5,
                   error_kw={"linewidth": 0.8})
        ax.axvspan(0.5, c.xor_relevant + 0.5, color="#dddddd", alpha=0.5, linewidth=0,
                   zorder=0)
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_xticks(x)
        ax.set_xlabel("feature")
        ax.set_ylabel("weight / max |weight|")
        ax.legend(loc="upper right", ncols=2)
        return fig

    def _fig_xor_path(self):
        from matplotlib.figure import Figure

        fig = Figure(figsize=(7.5, 4), layout="constrained")
        ax = fig.subplots()
        styles = self._styles()
        for label in METHODS.values():
            d = self.xor_path[self.xor_path.method == label]
            ax.plot(d["update"], d["angle_mean"], color=styles[label]["color"], label=label)
        ax.axhline(float(self.x_angle["relief"].mean()), color=styles["Relief"]["color"],
                   linestyle="--", label="Relief (final)")
        ax.set_xlabel("updates (instances visited)")
        ax.set_ylabel("angle to the correct weights (degrees)")
        ax.set_ylim(bottom=0)
        ax.legend(loc="upper right")
        return fig

    def _fig_relieff(self):
        from matplotlib.figure import Figure

        c = self.c
        fig = Figure(figsize=(7.5, 4), layout="constrained")
        ax = fig.subplots()
        styles = self._styles()
        t = self.relieff_table
        for label in list(RELIEFF.values()) + list(METHODS.values()):
            name = label if label in RELIEFF.values() else f"{label} (same {c.relieff_sets} sets)"
            d = t[t.method == name]
            ax.plot(d.k, d.kuncheva, color=styles[label]["color"], label=name,
                    linestyle="-" if label in RELIEFF.values() else "--", linewidth=1.3)
        ax.axvline(c.relieff_k, color="#888888", linestyle=":", linewidth=1)
        ax.set_xlabel("subset size k")
        ax.set_ylabel("Kuncheva index")
        ax.legend(loc="upper right", fontsize=8)
        return fig

    # -- everything -----------------------------------------------------------------------
    def outcome(self) -> Outcome:
        claims = self.claims() + self.reading_claims()
        tables = {"kuncheva": self.kun_table, "kuncheva_differences": self.diff_table,
                  "readings": self.reading_table,
                  "relieff_readings": self.relieff_reading_table,
                  "precision": self.prec_table, "relieff": self.relieff_table,
                  "xor_weights": self.xor_weights, "xor_summary": self.xor_summary,
                  "xor_path": self.xor_path, "controls": self.control_table,
                  "instance_weights": self.weight_table}
        return Outcome(tables=tables, figures=self.figures(), claims=claims,
                       published=self.published(), notes=self.notes(),
                       sections=self.why_section(), summary=self.summary(claims))
