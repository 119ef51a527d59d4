"""Prat Masramon 2016, sec. 8.4.1: Simba against SimbaLIW and SimbaMIW on synthetic
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

This module holds the protocol (configuration, units, tables, claims); the readings of eq. 8.2
and the controls are in :mod:`.simba_liw_readings`, the XOR study's tables and claims in
:mod:`.simba_liw_xor`, the figures, notes and published numbers in :mod:`.simba_liw_report`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from stablefs._errors import StablefsError
from stablefs.experiments._analysis import Analysis, Stopwatch
from stablefs.experiments._base import (
    Claim,
    Experiment,
    Outcome,
    check_block_generator,
    check_real,
    check_wholes,
    estimate_wall,
)
from stablefs.experiments._claims import Cells, bootstrap_over, coverage
from stablefs.experiments._montecarlo import draw_state, run_units, unit_seed
from stablefs.experiments._stats import (
    MARGINS,
    MIN_RUNS,
    better_rule,
    bootstrap_counts,
    combine_verdicts,
    interval,
    kuncheva_path,
    mean_boot,
    t_interval,
    verdict_positive,
)
from stablefs.experiments._stats import fmt_interval as _ci
from stablefs.experiments._stats import fmt_value as _fmt
from stablefs.experiments.simba_liw.precision import top_k_precision
from stablefs.experiments.simba_liw.readings import (
    CONTROLS,
    OUR_READING,
    READINGS,
    RELIEFF_READINGS,
    control_orders,
    control_tables,
    reading_claims,
    reading_orders,
    reading_tables,
)
from stablefs.experiments.simba_liw.readings import weight_diagnostics as _weight_diagnostics
from stablefs.experiments.simba_liw.xor import weight_angle, xor_claims, xor_data, xor_study

__all__ = [
    "CONTROLS",
    "OUR_READING",
    "READINGS",
    "RELIEFF_READINGS",
    "SimbaLiwProtocol",
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
        state = draw_state(rng)
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
        weights["liw-relevant"], orders = control_orders(ds.X, ds.y, cfg, fitted[LIW],
                                                         fitted[SIMBA][1], rng)
        out.update({f"{name}:order": order for name, order in orders.items()})
    for name, w in weights.items():
        out[f"{name}:diagnostics"] = _weight_diagnostics(w, flipped)
    if key[-1] < cfg["reading_sets"]:
        out.update(reading_orders(ds.X, ds.y, cfg, rng))
    return out



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
        state = draw_state(rng)
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


class SimbaLiwProtocol(Experiment):
    """Prat Masramon 2016, sec. 8.4.1: Simba, SimbaLIW and SimbaMIW on synthetic data."""

    name = "simba-liw"
    title = "Simba with logistic and margin-based instance weights on synthetic data and XOR"
    citation = "Prat Masramon 2016, sec. 8.4.1, Figs. 8.2-8.4"
    description = (
        "Prat Masramon 2016 (sec. 8.4.1) runs Simba and SimbaLIW, Simba with logistic "
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
        check_wholes(c, {"n_sets": 2, "n_train": 4, "n_features": 4, "n_relevant": 1,
                         "block_size": 1, "k_max": 1, "precision_k": 1, "n_passes": 1,
                         "relieff_sets": 2, "relieff_k": 1, "control_sets": 2,
                         "reading_sets": 2, "xor_sets": 2, "xor_samples": 4,
                         "xor_features": 2, "xor_relevant": 1, "peak_low": 1, "peak_high": 1,
                         "n_bootstrap": 10})
        check_real("alpha", c.alpha, 0.0, 0.5)
        check_block_generator(c)
        if not isinstance(c.balanced, bool):
            raise StablefsError(f"balanced = {c.balanced}: use true or false.")
        if c.strategy not in ("normal", "sample", "order"):
            raise StablefsError(f"strategy = {c.strategy!r}: use normal, sample or order.")
        if c.weight_scale not in ("mean", "none"):
            raise StablefsError(f"weight_scale = {c.weight_scale!r}: use mean or none.")
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
        return (estimate_wall(cpu, n_jobs, 5.0)
                + 2e-6 * config.n_bootstrap * config.k_max * 3)

    # -- run ------------------------------------------------------------------------------
    def run(self, config: SimbaLiwConfig, *, seed: int, n_jobs: int = 1,
            progress: bool = False, cache=None) -> Outcome:

        common = {"cfg": dataclasses.asdict(config), "seed": seed}
        clock = Stopwatch()
        with clock("training_sets"):
            sets = run_units(_set_unit, [(_SETS, i) for i in range(config.n_sets)],
                             study="sets", common=common, n_jobs=n_jobs, progress=progress,
                             cache=cache, desc="Figs. 8.2-8.3")
        with clock("xor"):
            xor = run_units(_xor_unit, [(_XOR, i) for i in range(config.xor_sets)],
                            study="xor", common=common, n_jobs=n_jobs, progress=progress,
                            cache=cache, desc="Fig. 8.4 (XOR)")
        with clock("analysis"):
            rng = np.random.default_rng(unit_seed(seed, _BOOT))
            outcome = self.report_type(config, sets, xor, rng).outcome()
        outcome.timings = clock.timings
        return outcome


# ------------------------------------------------------------------------ analysis


def _p(p: float) -> str:
    from stablefs.report.tables import format_p_value

    return "< 1e-300" if p == 0 else format_p_value(p, small="sci")


class _Analysis(Analysis):
    """Tables and claims from the units' results (the figures, notes and published numbers:
    :class:`~stablefs.experiments.simba_liw.report.SimbaLiwReport`)."""

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
                lo, hi = t_interval(self.kun_boot[m][:, j], M, c.alpha, bounds=(-1.0, 1.0))
                rows.append({"method": label, "k": int(k), "kuncheva": float(self.kun[m][j]),
                             "low": lo, "high": hi})
        self.kun_table = pd.DataFrame(rows)
        # ---- per k: is a more stable than b (paired, the same resamples)
        rows = []
        self.per_k: dict[tuple[str, str], Cells] = {}
        for a, b in ((LIW, SIMBA), (MIW, SIMBA), (MIW, LIW)):
            cells = self.per_k[a, b] = Cells()
            diff = self.kun_boot[a] - self.kun_boot[b]
            for j, k in enumerate(self.ks):
                v, lo, hi = cells.add(verdict_positive(diff[:, j], c.alpha, runs=M,
                                                       margin=MARGINS["kuncheva"]))
                rows.append({"comparison": f"{METHODS[a]} - {METHODS[b]}", "k": int(k),
                             "difference": float(self.kun[a][j] - self.kun[b][j]),
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
            lo, hi = t_interval(self.r_boot[m], c.relieff_sets, c.alpha, bounds=(-1.0, 1.0))
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
        self.control_table, self.weight_table = control_tables(
            c, sets, {METHODS[m]: self.orders[m][: c.control_sets] for m in (SIMBA, LIW)},
            rng, self.relevant)
        self.reading_table, self.relieff_reading_table = reading_tables(
            c, sets, rng, self.ks, self.relevant)
        self.xor = xor_study(c, xor, METHODS, XOR_METHODS)

    def claims(self) -> list[Claim]:
        from scipy import stats

        c, a = self.c, self.c.alpha
        cover = coverage(a)
        M, B = c.n_sets, c.n_bootstrap
        paired = bootstrap_over(M, B)
        K = self.ks.size
        claims = []

        # 5a: SimbaLIW more stable than Simba at every k
        cells = self.per_k[LIW, SIMBA]
        d = self.kun[LIW] - self.kun[SIMBA]
        j = int(np.argmin(d))
        claims.append(Claim(
            "5a", "The stability (Kuncheva index) of SimbaLIW is higher than Simba's at all "
            "subset sizes up to 200 (Prat Masramon 2016, sec. 8.4.1, Fig. 8.2).",
            f"At every k = 1..{c.k_max}: {paired} of the mean pairwise Kuncheva index, SimbaLIW "
            "minus Simba; per k: " + better_rule(MARGINS["kuncheva"], M, a)
            + "; the claim holds if it holds at every k, does not hold if it fails at one.",
            f"SimbaLIW higher at {cells.count('holds')} of {K} sizes, not higher at "
            f"{cells.count('does not hold')}, no practical difference at "
            f"{cells.count('no practical difference')}, inconclusive at "
            f"{cells.count('inconclusive')}; "
            f"at k = {c.precision_k}: Simba {_fmt(self._kun(SIMBA, c.precision_k))}, SimbaLIW "
            f"{_fmt(self._kun(LIW, c.precision_k))}; smallest difference {_fmt(d[j])} at "
            f"k = {int(self.ks[j])}", cells.verdict,
            "tables/kuncheva_differences.csv; figures/fig8_2_stability_precision.png"))

        # 5b: top-50 precision SimbaLIW > Simba
        welch = stats.ttest_ind(self.prec[LIW], self.prec[SIMBA], equal_var=False)
        verdict, lo, hi = verdict_positive(
            mean_boot(self.prec[LIW] - self.prec[SIMBA], self.counts), a, runs=M,
            margin=MARGINS["precision"], estimate=float((self.prec[LIW] - self.prec[SIMBA]).mean()))
        claims.append(Claim(
            "5b", "The precision of the top 50 features is higher for SimbaLIW "
            "than for Simba (0.5414 against 0.4722 over 500 training sets; Welch's t-test "
            "p < 2.2e-16; Prat Masramon 2016, sec. 8.4.1, Fig. 8.2).",
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
        miw, miw_liw = self.per_k[MIW, SIMBA], self.per_k[MIW, LIW]
        v = [combine_verdicts(pair) for pair in zip(miw.verdicts, miw_liw.verdicts,
                                                    strict=True)]
        over_simba = miw.count("holds")
        over_liw = miw_liw.count("holds")
        claims.append(Claim(
            "5e", "SimbaMIW delivers the most stable feature sets of the three, followed by "
            "SimbaLIW (Prat Masramon 2016, sec. 8.4.3, on real data; checked here on the "
            "synthetic data).",
            f"At every k = 1..{c.k_max}: {paired} of SimbaMIW minus Simba and of SimbaMIW "
            "minus SimbaLIW; per comparison and k: " + better_rule(MARGINS["kuncheva"], M, a)
            + "; the claim holds if both hold at every k, does not hold if either fails at one.",
            f"SimbaMIW above Simba at {over_simba} of {K} sizes (below at "
            f"{miw.count('does not hold')}), above SimbaLIW at {over_liw} "
            f"(below at {miw_liw.count('does not hold')}); at k = {c.precision_k}: "
            f"SimbaMIW {_fmt(self._kun(MIW, c.precision_k))}", combine_verdicts(v),
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

        # 10a, 10b: the XOR problem
        counts = bootstrap_counts(self.rng, c.xor_sets, B)
        claims += xor_claims(c, self.xor, counts, METHODS, LIW)
        # 5a, 5b and R under every reading of eq. 8.2 and of IW ReliefF
        return claims + reading_claims(c, self.reading_table, self.relieff_reading_table, K)

    def _kun(self, m: str, k: int) -> float:
        return float(self.kun[m][int(k) - 1])

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"kuncheva": self.kun_table, "kuncheva_differences": self.diff_table,
                "readings": self.reading_table,
                "relieff_readings": self.relieff_reading_table,
                "precision": self.prec_table, "relieff": self.relieff_table,
                "xor_weights": self.xor.weights, "xor_summary": self.xor.summary,
                "xor_path": self.xor.path, "controls": self.control_table,
                "instance_weights": self.weight_table}

