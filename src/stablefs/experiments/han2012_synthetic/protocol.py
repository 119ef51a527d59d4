"""Han 2012, ch. 6: SVM-RFE and IW SVM-RFE on synthetic data (``reproduce han2012-synthetic``).

The experiment (Han 2012, secs. 6.1–6.4):

* **Data** (sec. 6.1): :func:`stablefs.datasets.make_han2012`, 1000 features in 100
  equicorrelated blocks of 10 (ρ = 0.8), the first 50 relevant, r* = (0.02 × 50, 0 × 950);
  M = 500 training sets of 100 (50 per mixture component) and one test set of 5000.
* **Methods**: SVM-RFE (:class:`~stablefs.selectors.SVMRFE`, linear SVM with C = 1 on
  min–max scaled features, 10 % of the remaining features removed per iteration) and IW
  SVM-RFE (:class:`~stablefs.stabilizers.MarginInstanceWeighting` around it; eq. 5.2 with
  the margin-based weights of Alg. 1, eqs. 4.2 and 4.6, rescaled to mean 1). By default also
  eq. 5.2 with the weights as printed (summing to 1, so every penalty is about C/n) and plain
  SVM-RFE with C/n, the control that separates the weights from the smaller penalty. The
  stages are read from :func:`stablefs.selectors.svm_rfe.svm_rfe_path` (:func:`rfe_stages`,
  tested equal to the selectors' ``weight_path_``) so that elimination stops where the
  figures stop.
* **Fig. 6.1** (sec. 6.2): mean variance, bias and error of the normalised weights
  r_j = |w_j| / Σ|w| at every RFE iteration from 1000 features to 10 (iteration 40), over the
  M training sets (eqs. 3.1–3.4, 1/M normalisation, :func:`stablefs.evaluation.bias_variance`).
* **Fig. 6.2** (sec. 6.3): Kuncheva index over the M subsets (pairwise, eqs. 5.4–5.5) and the
  accuracy of a linear SVM trained on each training set restricted to the subset, on the one
  test set, at every iteration.
* **Figs. 6.3–6.4** (sec. 6.4): the same five quantities with 50 features selected, for
  training sets of n = 50 … 1000.

Every training set is one Monte-Carlo unit with its own random stream (seed, study, n, i);
both methods see the same training sets (paired comparisons).

This module holds the protocol (configuration, units, tables, claims); the methods (the RFE
stages and the test-set SVM) are in :mod:`.han2012_synthetic_methods`, the figures, notes and
published numbers in :mod:`.han2012_synthetic_report`.
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
    check_whole,
    check_wholes,
    estimate_wall,
)
from stablefs.experiments._claims import Cells, bootstrap_over, coverage
from stablefs.experiments._montecarlo import run_units, unit_seed
from stablefs.experiments._stats import (
    MARGINS,
    better_rule,
    bootstrap_counts,
    combine_verdicts,
    kuncheva_boot,
    mean_boot,
    t_interval,
    verdict_at_least,
    verdict_at_most,
    verdict_positive,
    weight_error_boot,
)
from stablefs.experiments._stats import fmt_interval as _ci
from stablefs.experiments._stats import fmt_value as _fmt
from stablefs.experiments.han2012_synthetic.methods import (
    IW,
    METHODS,
    PLAIN,
    PRINTED,
    SMALL_C,
    linear_svm_accuracy,
    rfe_stages,
)

__all__ = ["METHODS", "Han2012Config", "Han2012SyntheticProtocol", "linear_svm_accuracy",
           "rfe_stages"]

#: study numbers in the units' random-stream keys
_TEST, _ITER, _SIZE, _BOOT = 0, 1, 2, 9


@dataclass(frozen=True)
class Han2012Config:
    """Settings of ``han2012-synthetic``; the defaults are Han 2012's (secs. 6.1–6.4).

    Attributes
    ----------
    methods : tuple of str
        ``"svm-rfe"`` and ``"iw-svm-rfe"`` (always): SVM-RFE and IW SVM-RFE with the
        margin-based weights rescaled to mean 1 as per-sample penalties ``C v_i`` (so that
        equal weights give plain SVM-RFE; the reading of :class:`~stablefs.selectors.SVMRFE`).
        Optional: ``"iw-svm-rfe-printed"``, eq. 5.2 with the weights of eq. 4.6 as printed,
        summing to 1, so the penalties are ``C w_i``, about ``C / n`` each; and
        ``"svm-rfe-small-c"``, plain SVM-RFE with ``C / n``, the control that tells the
        effect of the weights from that of the smaller penalty.
    n_sets : int
        M, the training sets of Figs. 6.1–6.2 ("500 training sets", sec. 6.1).
    n_train : int
        Size of each training set (100, half from each mixture component).
    n_test : int
        Size of the one independent test set (5000).
    n_features, n_relevant, block_size, rho, mean, label_by
        The generator (:func:`~stablefs.datasets.make_han2012`): 1000 features, the first 50
        relevant, blocks of 10 with correlation 0.8, component means ±0.5, labels by the sign
        of r*·x (the paper's literal rule; ``"component"`` for the other reading).
    step : float
        Share of the remaining features removed per RFE iteration (10 %).
    C : float
        The SVM penalty (Weka's default 1).
    n_final : int
        Figs. 6.1–6.2 follow RFE down to this many features (10, iteration 40).
    size_k : int
        Features selected in the sample-size study (Figs. 6.3–6.4: 50).
    sample_sizes : tuple of int
        Training-set sizes of Figs. 6.3–6.4 ("from 50 to 1000"; the grid is not stated).
    n_sets_sizes : int
        Training sets per sample size.
    claim_n : int
        The sample size at which the paper says IW beats SVM-RFE at the largest size (200).
    n_bootstrap : int
        Bootstrap resamples of the training sets for the claims' intervals.
    alpha : float
        1 − the intervals' coverage (0.05: 95 % intervals).
    near_zero : float
        "≈ 0" for variance, bias and error: at most this fraction of mean_j r*_j², the error
        of the all-zero weight vector.
    near_one : float
        "≈ 1" for the Kuncheva index: at least this value.
    """

    methods: tuple = ("svm-rfe", "iw-svm-rfe", "iw-svm-rfe-printed", "svm-rfe-small-c")
    n_sets: int = 500
    n_train: int = 100
    n_test: int = 5000
    n_features: int = 1000
    n_relevant: int = 50
    block_size: int = 10
    rho: float = 0.8
    mean: float = 0.5
    label_by: str = "sign"
    step: float = 0.1
    C: float = 1.0
    n_final: int = 10
    size_k: int = 50
    sample_sizes: tuple = (50, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000)
    n_sets_sizes: int = 500
    claim_n: int = 200
    n_bootstrap: int = 2000
    alpha: float = 0.05
    near_zero: float = 0.1
    near_one: float = 0.9


# ------------------------------------------------------------------------ units


def _data(cfg: dict, n: int, seed_seq) -> tuple[np.ndarray, np.ndarray]:
    from stablefs.datasets import make_han2012

    ds = make_han2012(
        n_samples=n, n_features=cfg["n_features"],
        n_blocks=cfg["n_features"] // cfg["block_size"], block_size=cfg["block_size"],
        rho=cfg["rho"], n_relevant=cfg["n_relevant"], mean=cfg["mean"],
        label_by=cfg["label_by"], random_state=np.random.default_rng(seed_seq),
    )
    return ds.X, ds.y


def _iteration_unit(key, *, cfg: dict, seed: int, X_test, y_test) -> dict[str, np.ndarray]:
    """One training set of Figs. 6.1–6.2: every method down to ``n_final`` features."""
    X, y = _data(cfg, cfg["n_train"], unit_seed(seed, *key))
    p = X.shape[1]
    out: dict[str, np.ndarray] = {}
    for m in cfg["methods"]:
        stages = list(rfe_stages(m, X, y, cfg["n_final"], step=cfg["step"], C=cfg["C"]))
        W = np.zeros((len(stages), p), dtype=np.float32)
        subsets = np.zeros((len(stages), p), dtype=bool)
        for t, (remaining, r) in enumerate(stages):
            W[t, remaining] = r
            subsets[t, remaining] = True
        out[f"{m}:weights"] = W
        # stages each feature took part in: the subset of stage t is {j: stages_j > t}
        out[f"{m}:stages"] = subsets.sum(axis=0).astype(np.int16)
        out[f"{m}:accuracy"] = linear_svm_accuracy(X, y, X_test, y_test, subsets, cfg["C"])
        out["n_remaining"] = subsets.sum(axis=1)
    return out


def _size_unit(key, *, cfg: dict, seed: int, X_test, y_test) -> dict[str, np.ndarray]:
    """One training set of Figs. 6.3–6.4: every method with ``size_k`` features selected."""
    n = key[1]
    X, y = _data(cfg, n, unit_seed(seed, *key))
    p = X.shape[1]
    out: dict[str, np.ndarray] = {}
    k = cfg["size_k"]
    for m in cfg["methods"]:
        *_, (remaining, r) = rfe_stages(m, X, y, k, step=cfg["step"], C=cfg["C"])
        w = np.zeros(p)
        w[remaining] = r
        subset = np.zeros(p, dtype=bool)
        subset[remaining] = True
        out[f"{m}:weights"] = w
        out[f"{m}:subset"] = subset
        out[f"{m}:accuracy"] = linear_svm_accuracy(X, y, X_test, y_test, subset[None], cfg["C"])
    return out


# ------------------------------------------------------------------------ the experiment


class Han2012SyntheticProtocol(Experiment):
    """Han 2012, ch. 6: bias, variance, stability and accuracy of SVM-RFE vs IW SVM-RFE."""

    name = "han2012-synthetic"
    title = "SVM-RFE and instance-weighted SVM-RFE on synthetic data"
    citation = "Han 2012, ch. 6"
    description = (
        "Han (2012, ch. 6) draws many training sets from a known distribution (1000 features, "
        "50 relevant in 5 correlated blocks) and follows SVM-RFE and its margin-based "
        "instance-weighted version (IW SVM-RFE) through recursive feature elimination: the "
        "variance, bias and error of the normalised feature weights against the true relevance "
        "r* (Fig. 6.1, eqs. 3.1-3.4), the Kuncheva stability of the selected subsets and the "
        "test accuracy of a linear SVM on them (Fig. 6.2), and the same quantities with 50 "
        "features selected as the training set grows from 50 to 1000 samples (Figs. 6.3-6.4)."
    )
    Config = Han2012Config

    def quick_config(self) -> Han2012Config:
        return Han2012Config(n_sets=40, sample_sizes=(50, 100, 200, 1000), n_sets_sizes=10,
                             n_bootstrap=1000)

    def check_config(self, config) -> None:
        super().check_config(config)
        c = config
        check_wholes(c, {"n_sets": 2, "n_train": 4, "n_test": 2, "n_features": 4,
                         "n_relevant": 1, "block_size": 1, "n_final": 1, "size_k": 1,
                         "n_sets_sizes": 2, "claim_n": 4, "n_bootstrap": 10})
        methods = c.methods if isinstance(c.methods, tuple) else ()
        unknown = [m for m in methods if m not in METHODS]
        if unknown or len(set(methods)) != len(methods):
            raise StablefsError(
                f"methods = {','.join(map(str, c.methods))}: choose each at most once from "
                f"{', '.join(METHODS)}."
            )
        if PLAIN not in methods or IW not in methods:
            raise StablefsError(
                f"methods = {','.join(methods)}: {PLAIN} and {IW} are needed (the paper's "
                "claims compare them)."
            )
        check_real("step", c.step, 0.0, 1.0)
        check_real("alpha", c.alpha, 0.0, 0.5)
        check_real("near_zero", c.near_zero, 0.0, np.inf)
        check_real("near_one", c.near_one, -1.0, 1.0)
        check_real("C", c.C, 0.0, np.inf)
        check_block_generator(c)
        if c.label_by not in ("sign", "component"):
            raise StablefsError(f"label_by = {c.label_by!r}: use 'sign' or 'component'.")
        for name in ("n_final", "size_k"):
            if getattr(c, name) >= c.n_features:
                raise StablefsError(f"{name} = {getattr(c, name)} must be below n_features = "
                                    f"{c.n_features}.")
        sizes = c.sample_sizes
        if not isinstance(sizes, tuple) or len(sizes) < 2:
            raise StablefsError(f"sample_sizes = {sizes}: give at least two sizes, e.g. "
                                "50,100,200,1000.")
        for n in sizes:
            check_whole("each of sample_sizes", n, 4)
        if list(sizes) != sorted(set(sizes)):
            raise StablefsError(f"sample_sizes = {','.join(map(str, sizes))}: list each size "
                                "once, in increasing order.")
        if c.claim_n not in sizes or c.claim_n >= max(sizes):
            raise StablefsError(
                f"claim_n = {c.claim_n} must be one of sample_sizes "
                f"({','.join(map(str, sizes))}) and below the largest."
            )

    def sizes(self, config) -> str:
        grid = config.sample_sizes
        shown = (",".join(map(str, grid)) if len(grid) <= 5
                 else f"{grid[0]},{grid[1]},...,{grid[-1]} ({len(grid)} sizes)")
        return (f"M = {config.n_sets} sets of {config.n_train}; n = {shown}, "
                f"{config.n_sets_sizes} sets each")

    def estimate_seconds(self, config, n_jobs: int = 1) -> float:
        """Calibrated on this project's two-core machine with all four methods: one training
        set of Figs. 6.1-6.2 costs ~1.3 s of CPU, one of Figs. 6.3-6.4 ~0.18 s + 2.2 ms per
        sample; scaled linearly in p and in the number of methods."""
        scale = config.n_features / 1000 * len(config.methods) / 4
        per_iter_set = 1.3 * scale
        per_size_set = sum(0.18 + 0.0022 * n for n in config.sample_sizes) * scale
        cpu = config.n_sets * per_iter_set + config.n_sets_sizes * per_size_set
        return estimate_wall(cpu, n_jobs, 8.0)

    # -- run ------------------------------------------------------------------------------
    def run(self, config: Han2012Config, *, seed: int, n_jobs: int = 1,
            progress: bool = False, cache=None) -> Outcome:

        cfg = dataclasses.asdict(config)
        clock = Stopwatch()
        with clock("iterations"):
            X_test, y_test = _data(cfg, config.n_test, unit_seed(seed, _TEST))
            relevance = np.zeros(config.n_features)
            relevance[: config.n_relevant] = 1.0 / config.n_relevant
            common = {"cfg": cfg, "seed": seed, "X_test": X_test, "y_test": y_test}
            iter_res = run_units(_iteration_unit, [(_ITER, i) for i in range(config.n_sets)],
                                 study="iterations", common=common, n_jobs=n_jobs,
                                 progress=progress, cache=cache, desc="Figs. 6.1-6.2")
        with clock("sample_sizes"):
            size_keys = [(_SIZE, n, i) for n in config.sample_sizes
                         for i in range(config.n_sets_sizes)]
            size_res = run_units(_size_unit, size_keys, study="sizes", common=common,
                                 n_jobs=n_jobs, progress=progress, cache=cache,
                                 desc="Figs. 6.3-6.4")
        with clock("analysis"):
            rng = np.random.default_rng(unit_seed(seed, _BOOT))
            analysis = self.report_type(config, relevance, iter_res, size_res, rng)
            outcome = analysis.outcome()
        outcome.timings = clock.timings
        return outcome


# ------------------------------------------------------------------------ analysis


class _Analysis(Analysis):
    """Tables and claims from the units' results (the figures, notes and published numbers:
    :class:`~stablefs.experiments.han2012_synthetic.report.Han2012SyntheticReport`)."""

    def __init__(self, config: Han2012Config, relevance, iter_res, size_res, rng):
        from stablefs.evaluation import bias_variance, bias_variance_path
        from stablefs.stability import kuncheva

        self.c = config
        self.r = relevance
        self.rng = rng
        self.methods = list(config.methods)
        p = config.n_features
        counts = iter_res[0]["n_remaining"]
        for res in iter_res:
            if not np.array_equal(res["n_remaining"], counts):  # pragma: no cover - invariant
                raise RuntimeError("SVM-RFE schedules differ between training sets")
        self.n_remaining = counts.astype(int)
        self.iterations = np.arange(counts.size)
        # the iteration "closest to 50", the number of relevant features (Han 2012 sec. 6.2);
        # a tie goes to the smaller subset
        self.t_star = int(np.argmin(np.abs(counts - config.n_relevant) * 2
                                    + (counts > config.n_relevant)))
        self.e0 = float(np.mean(relevance ** 2))  # error of the all-zero weight vector
        # ---- iterations: Figs. 6.1-6.2
        self.W, self.stages, self.acc = {}, {}, {}
        rows = []
        for m in self.methods:
            W = np.stack([res[f"{m}:weights"] for res in iter_res])  # (M, T, p) float32
            stages = np.stack([res[f"{m}:stages"] for res in iter_res])  # (M, p)
            A = np.stack([res[f"{m}:accuracy"] for res in iter_res])  # (M, T)
            self.W[m], self.stages[m], self.acc[m] = W, stages, A
            bv = bias_variance_path(W, relevance)
            for t, k in enumerate(self.n_remaining):
                rows.append({
                    "method": METHODS[m], "iteration": t, "n_features": int(k),
                    "variance": float(bv["mean_variance"][t]),
                    "bias": float(bv["mean_bias"][t]),
                    "error": float(bv["mean_error"][t]),
                    "kuncheva": kuncheva(stages > t, p) if 0 < k < p else np.nan,
                    "accuracy": float(A[:, t].mean()),
                    "accuracy_sd": float(A[:, t].std(ddof=1)),
                })
        self.iter_table = pd.DataFrame(rows)
        # ---- sample sizes: Figs. 6.3-6.4
        self.size_W, self.size_S, self.size_acc = {}, {}, {}
        rows = []
        per = config.n_sets_sizes
        for j, n in enumerate(config.sample_sizes):
            chunk = size_res[j * per:(j + 1) * per]
            for m in self.methods:
                W = np.stack([res[f"{m}:weights"] for res in chunk])
                S = np.stack([res[f"{m}:subset"] for res in chunk])
                A = np.concatenate([res[f"{m}:accuracy"] for res in chunk])
                self.size_W[m, n], self.size_S[m, n], self.size_acc[m, n] = W, S, A
                bv = bias_variance(W, relevance)
                rows.append({
                    "method": METHODS[m], "n_train": int(n), "n_features": config.size_k,
                    "variance": bv["mean_variance"], "bias": bv["mean_bias"],
                    "error": bv["mean_error"], "kuncheva": kuncheva(S, p),
                    "accuracy": float(A.mean()), "accuracy_sd": float(A.std(ddof=1)),
                })
        self.size_table = pd.DataFrame(rows)
        # the weights against the penalty (draws from the bootstrap stream before the claims)
        self.attribution_table = self.weights_vs_penalty()

    # -- helpers --------------------------------------------------------------------------
    def _boot(self, m: int) -> np.ndarray:
        return bootstrap_counts(self.rng, m, self.c.n_bootstrap)

    def _iter_row(self, m: str, t: int):
        it = self.iter_table
        return it[(it.method == METHODS[m]) & (it.iteration == t)].iloc[0]

    def _size_value(self, m: str, n: int, metric: str) -> float:
        st = self.size_table
        return float(st[(st.method == METHODS[m]) & (st.n_train == n)].iloc[0][metric])

    def _readings(self) -> list[tuple[str, str, str]]:
        """(method, id suffix, how IW is read) for every IW version in the run."""
        out = [(IW, "", "IW = margin weights rescaled to mean 1 (penalties C v_i)")]
        if PRINTED in self.methods:
            out.append((PRINTED, "-printed", "IW = margin weights summing to 1 as printed "
                        "(eqs. 4.6, 5.2; penalties C w_i, about C/n)"))
        return out

    # -- claims ---------------------------------------------------------------------------
    def claims(self) -> list[Claim]:
        c, a = self.c, self.c.alpha
        cover = coverage(a)
        M = c.n_sets
        it = self.iter_table
        t, k_star = self.t_star, int(self.n_remaining[self.t_star])
        last = int(self.iterations[-1])
        names = ", ".join(METHODS[m] for m in self.methods)
        claims = []

        # 1: EL = Bias + Var at every iteration
        gap = (it["error"] - it["bias"] - it["variance"]).abs() / it["error"].abs()
        worst = float(gap.max())
        claims.append(Claim(
            "1", "At any iteration, the error is always equal to the sum of the variance and "
            "the bias, for both versions of SVM-RFE (Han 2012, sec. 6.2, Fig. 6.1; eq. 3.4).",
            f"Error, bias and variance computed separately (eqs. 3.1-3.3, 1/M) for {names}; "
            "holds if |EL - (Bias + Var)| <= 1e-9 EL at every iteration.",
            f"largest relative gap {worst:.1e} over {len(self.iterations)} iterations x "
            f"{len(self.methods)} methods", "holds" if worst <= 1e-9 else "does not hold",
            "tables/iterations.csv (variance, bias, error)"))

        # 1b: bias-dominated early, variance-dominated late
        parts, ok = [], []
        for m in self.methods:
            first, end = self._iter_row(m, 0), self._iter_row(m, last)
            bshare, vshare = first.bias / first.error, end.variance / end.error
            ok += [bshare > 0.5, vshare > 0.5]
            parts.append(f"{METHODS[m]}: bias {100 * bshare:.0f} %, variance "
                         f"{100 * vshare:.0f} %")
        claims.append(Claim(
            "1b", "The error is first dominated by the bias during the early iterations, and "
            "then by the variance during the later iterations, for both versions (Han 2012, "
            "sec. 6.2).",
            f"Holds if the bias is > 50 % of the error at iteration 0 and the variance > 50 % "
            f"at iteration {last} ({int(self.n_remaining[-1])} features), for every method.",
            f"share of the error at iteration 0 / {last}: " + "; ".join(parts),
            "holds" if all(ok) else "does not hold",
            "tables/iterations.csv; figures/fig6_1b_decomposition.png"))

        # 2-3: at t*, paired bootstrap over the M training sets
        C = self._boot(M)
        boot = {m: weight_error_boot(self.W[m][:, t, :], self.r, C) for m in self.methods}
        kb = {m: kuncheva_boot(self.stages[m] > t, C) for m in self.methods}
        at = f"Iteration {t} ({k_star} features)"
        paired = bootstrap_over(M, c.n_bootstrap)
        for metric, cid in (("variance", "2a"), ("bias", "2b"), ("error", "2c")):
            for m, suffix, reading in self._readings():
                diff = boot[PLAIN][metric] - boot[m][metric]
                ref = float(self._iter_row(PLAIN, t)[metric])
                verdict, lo, hi = verdict_positive(diff, a, runs=M,
                                                   margin=MARGINS["relative"] * ref)
                claims.append(Claim(
                    cid + suffix, f"IW SVM-RFE exhibits significantly lower {metric} than "
                    "SVM-RFE when the number of remaining features approaches 50 (iteration "
                    "28; Han 2012, sec. 6.2, Fig. 6.1).",
                    f"{reading}. {at}; {paired} of SVM-RFE minus IW; margin "
                    f"{100 * MARGINS['relative']:g} % of SVM-RFE's {metric} "
                    f"({_fmt(MARGINS['relative'] * ref)}); "
                    + better_rule(MARGINS["relative"] * ref, M, a),
                    f"SVM-RFE {_fmt(self._iter_row(PLAIN, t)[metric])}, IW "
                    f"{_fmt(self._iter_row(m, t)[metric])}; difference {_ci(lo, hi)}", verdict,
                    f"tables/iterations.csv, iteration {t}; figures/fig6_1_bias_variance.png"))
        for m, suffix, reading in self._readings():
            # "almost zero" on the scale of Fig. 6.1: relative to the largest error of the same
            # curve (at 48 features even a perfect selection keeps an error of 4 % of
            # mean r*^2, so a threshold on that scale would ask for more than the paper says)
            peak = float(it.loc[it.method == METHODS[m], "error"].max())
            thr_curve = c.near_zero * peak
            verdict, lo, hi = verdict_at_most(boot[m]["error"], thr_curve, a, runs=M)
            claims.append(Claim(
                "2d" + suffix, "The error of IW SVM-RFE reaches almost zero at the 28th "
                "iteration, when the number of remaining features is closest to 50 (Han 2012, "
                "sec. 6.2).",
                f"{reading}. 'Almost zero' on the scale of Fig. 6.1 = at most {c.near_zero:g} x "
                f"the largest error of the same curve ({_fmt(peak)}), i.e. {_fmt(thr_curve)}; "
                f"holds if the {cover} t-interval (bootstrap standard error) of IW's error at "
                f"iteration {t} lies below it, does not hold if above.",
                f"IW error {_fmt(self._iter_row(m, t)['error'])}, interval {_ci(lo, hi)}; "
                f"{100 * self._iter_row(m, t)['error'] / peak:.0f} % of its largest",
                verdict, f"tables/iterations.csv, iteration {t}"))
        for m, suffix, reading in self._readings():
            verdict, lo, hi = verdict_positive(kb[m] - kb[PLAIN], a, runs=M,
                                               margin=MARGINS["kuncheva"])
            claims.append(Claim(
                "3a" + suffix, "The stability (Kuncheva index) of the subsets selected by IW "
                "SVM-RFE becomes significantly higher than that of SVM-RFE as the number of "
                "selected features approaches 50 (iteration 28; Han 2012, sec. 6.3, Fig. 6.2).",
                f"{reading}. {at}; {paired} of the mean pairwise Kuncheva index, IW minus "
                "SVM-RFE; " + better_rule(MARGINS["kuncheva"], M, a),
                f"SVM-RFE {_fmt(self._iter_row(PLAIN, t)['kuncheva'])}, IW "
                f"{_fmt(self._iter_row(m, t)['kuncheva'])}; difference {_ci(lo, hi)}",
                verdict, f"tables/iterations.csv, iteration {t}; "
                "figures/fig6_2_stability_accuracy.png"))
        for m, suffix, reading in self._readings():
            diffs = self.acc[m][:, t] - self.acc[PLAIN][:, t]
            verdict, lo, hi = verdict_positive(mean_boot(diffs, C), a, runs=M,
                                               margin=MARGINS["accuracy"],
                                               estimate=float(diffs.mean()))
            claims.append(Claim(
                "3b" + suffix, "The subsets selected by IW SVM-RFE also result in higher "
                "predictive accuracy (linear SVM, independent test set) than those selected by "
                "SVM-RFE (Han 2012, sec. 6.3, Fig. 6.2).",
                f"{reading}. {at}, {c.n_test} test samples; {paired} of the mean accuracy "
                "difference, IW minus SVM-RFE; " + better_rule(MARGINS["accuracy"], M, a),
                f"SVM-RFE {self._iter_row(PLAIN, t)['accuracy']:.4f}, IW "
                f"{self._iter_row(m, t)['accuracy']:.4f}; difference {_ci(lo, hi)}", verdict,
                f"tables/iterations.csv, iteration {t}"))
        claims += self._size_claims(cover)
        return claims

    def _size_claims(self, cover: str) -> list[Claim]:
        c, a = self.c, self.c.alpha
        n_iw, n_max = c.claim_n, max(c.sample_sizes)
        per = c.n_sets_sizes
        thr = c.near_zero * self.e0
        readings = self._readings()
        C_pl = self._boot(per)
        pl = weight_error_boot(self.size_W[PLAIN, n_max], self.r, C_pl)
        pl["kuncheva"] = kuncheva_boot(self.size_S[PLAIN, n_max], C_pl)
        pl["accuracy"] = mean_boot(self.size_acc[PLAIN, n_max], C_pl)
        iw = {}
        for m, _, _ in readings:
            C_iw = self._boot(per)  # other training sets than SVM-RFE's at n_max: unpaired
            iw[m] = weight_error_boot(self.size_W[m, n_iw], self.r, C_iw)
            iw[m]["kuncheva"] = kuncheva_boot(self.size_S[m, n_iw], C_iw)
            iw[m]["accuracy"] = mean_boot(self.size_acc[m, n_iw], C_iw)
        out = []
        for cid, metric, lower_better in (("4a", "variance", True), ("4b", "bias", True),
                                          ("4c", "error", True), ("4d", "kuncheva", False),
                                          ("4e", "accuracy", False)):
            for m, suffix, reading in readings:
                diff = pl[metric] - iw[m][metric] if lower_better else iw[m][metric] - pl[metric]
                margin = (MARGINS[metric] if metric in MARGINS else
                          MARGINS["relative"] * self._size_value(PLAIN, n_max, metric))
                verdict, lo, hi = verdict_positive(diff, a, runs=per, margin=margin)
                better = "lower" if lower_better else "higher"
                out.append(Claim(
                    cid + suffix, "The performance of IW SVM-RFE at sample size 200 is "
                    "significantly better than that of SVM-RFE at sample size 1000, with 50 "
                    f"features selected ({metric}; Han 2012, sec. 6.4, Figs. 6.3-6.4).",
                    f"{reading}. {c.size_k} features; IW at n = {n_iw} against SVM-RFE at "
                    f"n = {n_max}, independent training sets ({per} per size), unpaired "
                    f"bootstrap of the difference (IW {better}); "
                    + better_rule(margin, per, a),
                    f"IW at n = {n_iw}: {_fmt(self._size_value(m, n_iw, metric))}; SVM-RFE at "
                    f"n = {n_max}: {_fmt(self._size_value(PLAIN, n_max, metric))}; "
                    f"difference {_ci(lo, hi)}", verdict, "tables/sample_sizes.csv"))
        big = [n for n in c.sample_sizes if n >= n_iw]
        for m, suffix, reading in readings:
            cells, worst = Cells(), {}
            for n in big:
                boot = weight_error_boot(self.size_W[m, n], self.r, self._boot(per))
                for metric in ("variance", "bias", "error"):
                    _, _, hi = cells.add(verdict_at_most(boot[metric], thr, a, runs=per))
                    worst[metric] = max(worst.get(metric, -np.inf), hi)
            out.append(Claim(
                "4f" + suffix, "The variance, bias and error of IW SVM-RFE quickly converge "
                "to near zero when the sample size approaches 200 (Han 2012, sec. 6.4, "
                "Fig. 6.3).",
                f"{reading}. For every n >= {n_iw} in the grid ({', '.join(map(str, big))}): "
                f"holds if the {cover} t-interval upper bound of each is at most "
                f"{c.near_zero:g} x mean_j r*_j^2 = {_fmt(thr)}; does not hold if any lower "
                "bound is above it.",
                "largest upper bounds: " + ", ".join(f"{k} {_fmt(v)}" for k, v in worst.items()),
                cells.verdict, "tables/sample_sizes.csv"))
        for m, suffix, reading in readings:
            cells = Cells()
            for n in big:
                cells.add(verdict_at_least(kuncheva_boot(self.size_S[m, n], self._boot(per)),
                                           c.near_one, a, runs=per))
            kun = [self._size_value(m, n, "kuncheva") for n in big]
            out.append(Claim(
                "4g" + suffix, "The subset stability of IW SVM-RFE converges to almost "
                "perfect values as soon as the sample size reaches 200 (Han 2012, sec. 6.4, "
                "Fig. 6.4).",
                f"{reading}. For every n >= {n_iw} in the grid: holds if the {cover} t-interval "
                f"lower bound of the Kuncheva index is at least {c.near_one:g}; does not hold "
                "if any upper bound is below it.",
                f"IW Kuncheva {_fmt(min(kun))} to {_fmt(max(kun))}; smallest lower bound "
                f"{_fmt(cells.lowest())}", cells.verdict, "tables/sample_sizes.csv"))

        from scipy.stats import spearmanr

        st = self.size_table
        sub = st[st.method == METHODS[PLAIN]].sort_values("n_train")
        rhos, verdicts = {}, []
        for metric, sign in (("variance", -1), ("bias", -1), ("error", -1), ("kuncheva", 1),
                             ("accuracy", 1)):
            rho = float(spearmanr(sub["n_train"], sub[metric]).statistic)
            rhos[metric] = rho
            verdicts.append("holds" if sign * rho >= 0.9 else
                            "does not hold" if not sign * rho > 0 else "inconclusive")
        out.append(Claim(
            "4h", "Both the variance and the bias (hence the error) of SVM-RFE consistently "
            "decrease, and its subset stability and predictive performance consistently "
            "improve, as the sample size increases from 50 to 1000 (Han 2012, sec. 6.4).",
            f"Spearman correlation with n over the grid ({len(c.sample_sizes)} sizes): holds "
            "if |rho| >= 0.9 in the stated direction for all five quantities; does not hold if "
            "any is 0 or in the wrong direction; else inconclusive.",
            "rho: " + ", ".join(f"{k} {v:+.2f}" for k, v in rhos.items()),
            combine_verdicts(verdicts), "tables/sample_sizes.csv"))
        return out

    # -- where the gain comes from ----------------------------------------------------------
    def weights_vs_penalty(self) -> pd.DataFrame | None:
        """``tables/weights_vs_penalty.csv``: the paper's weights (sum 1) against plain SVM-RFE
        with the same penalty C/n at iteration t*, with the paired interval of the difference
        (None unless both ran)."""
        if PRINTED not in self.methods or SMALL_C not in self.methods:
            return None
        c, a = self.c, self.c.alpha
        t, k_star = self.t_star, int(self.n_remaining[self.t_star])
        C = self._boot(c.n_sets)
        rows = []
        for metric in ("variance", "bias", "error", "kuncheva", "accuracy"):
            if metric == "kuncheva":
                diff = (kuncheva_boot(self.stages[PRINTED] > t, C)
                        - kuncheva_boot(self.stages[SMALL_C] > t, C))
            elif metric == "accuracy":
                diff = mean_boot(self.acc[PRINTED][:, t] - self.acc[SMALL_C][:, t], C)
            else:
                diff = (weight_error_boot(self.W[PRINTED][:, t, :], self.r, C)[metric]
                        - weight_error_boot(self.W[SMALL_C][:, t, :], self.r, C)[metric])
            lo, hi = t_interval(diff, c.n_sets, a)
            rows.append({"iteration": t, "n_features": k_star, "metric": metric,
                         **{METHODS[m]: float(self._iter_row(m, t)[metric])
                            for m in (PLAIN, IW, PRINTED, SMALL_C)},
                         "printed_minus_small_c_low": lo, "printed_minus_small_c_high": hi})
        return pd.DataFrame(rows)

    def tables(self) -> dict[str, pd.DataFrame]:
        tables = {"iterations": self.iter_table, "sample_sizes": self.size_table}
        if self.attribution_table is not None:
            tables["weights_vs_penalty"] = self.attribution_table
        return tables
