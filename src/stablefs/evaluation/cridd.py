"""CRIDD: how much feature selection inflates the variance of cross-validation error estimates
(Xiao, Hua and Dougherty 2007).

The coefficient of relative increase in deviation dispersion (eq. 1),

    kappa = (Var(dE) - Var(dE_b)) / Var(dE),

compares the deviation ``dE = E_hat - E`` of a cross-validation estimate computed *with* feature
selection repeated inside every fold against the deviation ``dE_b = E_hat_b - E_b`` of the same
cross-validation on the known best feature set ``F_b``. Algorithm 1 of the paper, per
Monte-Carlo run:

(a) draw a sample ``S`` of ``N`` points (``N p_0`` of class 0, ``N p_1`` of class 1);
(b) select ``d`` features ``F`` on ``S``; design ``C_F`` on ``S`` restricted to ``F`` and ``C_b``
    restricted to ``F_b``;
(c) their true errors ``E`` and ``E_b`` on a large independent sample ``S'`` (5000 fresh points
    for the synthetic models; the points not in ``S`` for a data set);
(d) split ``S`` into ``k`` stratified folds as even as possible (LOO: ``k = N``);
(e) in every fold select ``F_i`` on the training part and count the test errors of the rule
    designed on ``F_i`` and on ``F_b``;
(f) ``E_hat``, ``E_hat_b``: total errors / N (eq. B.3; the same as the mean of fold errors when
    the folds are equal);
(g) ``dE = E_hat - E``, ``dE_b = E_hat_b - E_b``.

The selectors are the paper's: the t-test (top ``d`` by the pooled two-sample ``|t|``, which
equals Welch's with equal classes), SFS and SFFS with the paper's criterion, the bolstered
resubstitution error for LDA and the linear SVM and the semi-bolstered one for 3NN
(sec. 3; :mod:`stablefs.evaluation.error_estimators`). Any stablefs method string or selector
also works.

Every Monte-Carlo run is an independent task whose random streams are children of
``SeedSequence(random_state, spawn_key=(run,))`` (:func:`run_streams`): the result does not
depend on ``n_jobs``, on how the runs are grouped into tasks, or on where they run (joblib
workers or a Dask cluster, ``backend="dask"``). The paper needed a Beowulf cluster; any Dask
cluster runs this unchanged.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from stablefs._errors import StablefsError
from stablefs._runtime.processes import worker_task
from stablefs.evaluation.error_estimators import make_rule, stratified_folds

if TYPE_CHECKING:
    from typing import Any, Literal

    from numpy.typing import ArrayLike

    from stablefs._validation import SeedLike
    from stablefs.datasets import Dataset
    from stablefs.selectors._base import BaseSelector
    from stablefs.selectors.wrappers._error_estimators import Classifier

__all__ = [
    "MODELS",
    "cridd",
    "cridd_runs",
    "cridd_summary",
    "kappa",
    "parse_cv",
    "run_streams",
    "seed_criterion",
    "xiao2007_test_sampler",
]

#: the synthetic models of Xiao, Hua and Dougherty (2007, sec. 2.2)
MODELS = ("equal", "unequal", "bimodal")

#: the selector's criterion the paper pairs with each rule (sec. 3)
_SEED_CRITERION = {"lda": "bolstered", "svm": "bolstered", "knn": "semi-bolstered"}


def seed_criterion(classifier) -> str:
    """The SFS/SFFS criterion of Xiao, Hua and Dougherty (2007, sec. 3) for a rule: bolstered
    resubstitution for LDA and the linear SVM, semi-bolstered resubstitution for kNN."""
    rule = make_rule(classifier)
    return _SEED_CRITERION.get(rule.kind, "bolstered")


def parse_cv(cv, n_samples: int) -> int:
    """Number of folds of ``cv``: ``"loo"`` (``n_samples``), ``"cvK"`` (e.g. ``"cv10"``) or an
    int."""
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        k = int(cv)
    elif isinstance(cv, str) and cv.strip().lower() == "loo":
        k = int(n_samples)
    elif isinstance(cv, str) and cv.strip().lower().startswith("cv") \
            and cv.strip()[2:].isdigit():
        k = int(cv.strip()[2:])
    else:
        raise StablefsError(
            f"cv = {cv!r}: use 'loo', 'cvK' such as 'cv10', or a number of folds."
        )
    if not 2 <= k <= n_samples:
        raise StablefsError(
            f"cv = {cv!r} gives {k} folds for {n_samples} samples: choose between 2 and "
            f"{n_samples} folds."
        )
    return k


# ------------------------------------------------------------------------------ models


def xiao2007_test_sampler(meta: dict):
    """An exact sampler of the synthetic model described by ``meta`` (from
    :func:`stablefs.datasets.make_xiao2007`) that draws only the requested columns.

    Within a block of Sigma (equicorrelated, ``rho``) a column is ``sqrt(rho) z_block +
    sqrt(1 - rho) e_j``, which has the block's covariance, so the true errors of classifiers on
    ``d`` features need ``O(n d)`` draws instead of ``O(n D)``; classes are equal in size.

    Returns
    -------
    callable ``(rng, n, cols) -> (X, y)`` with ``X`` of shape ``(n, len(cols))``.
    """
    params = meta["params"]
    model = params["model"]
    rho = float(params["rho"])
    b = int(params["block_size"])
    m = float(meta["scale"]) * np.asarray(meta["mu"], dtype=float)

    def draw(rng: np.random.Generator, n: int, cols) -> tuple[np.ndarray, np.ndarray]:
        cols = np.asarray(cols, dtype=np.int64)
        n1 = n // 2
        n0 = n - n1
        y = np.r_[np.zeros(n0, dtype=np.int64), np.ones(n1, dtype=np.int64)]
        blocks, inv = np.unique(cols // b, return_inverse=True)
        z = rng.standard_normal((n, blocks.size))
        e = rng.standard_normal((n, cols.size))
        X = math.sqrt(rho) * z[:, inv] + math.sqrt(1.0 - rho) * e
        mc = m[cols]
        if model == "equal":
            X[:n0] += mc
            X[n0:] -= mc
        elif model == "unequal":
            X[n0:] *= math.sqrt(2.0)
            X[:n0] += mc
            X[n0:] -= mc
        elif model == "bimodal":
            sign = np.where(rng.random(n1) < 0.5, 1.0, -1.0)
            X[n0:] += sign[:, None] * mc
        else:
            raise StablefsError(f"unknown model {model!r} in the data set's description.")
        return X, y

    return draw


def _resolve_best(best, n_features: int, feature_names=None) -> np.ndarray:
    arr = np.asarray(best)
    if arr.dtype.kind in "US" and feature_names is not None:
        names = {str(f): i for i, f in enumerate(feature_names)}
        missing = [str(a) for a in arr if str(a) not in names]
        if missing:
            shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more"
                                               if len(missing) > 3 else "")
            raise StablefsError(f"best features not in the data: {shown}; give names or "
                                "column indices of the data set.")
        arr = np.asarray([names[str(a)] for a in arr])
    arr = np.asarray(arr, dtype=np.int64).ravel()
    if arr.size == 0 or arr.min() < 0 or arr.max() >= n_features or np.unique(arr).size \
            != arr.size:
        raise StablefsError(
            f"best = {arr.tolist()[:5]}: give distinct column indices in 0..{n_features - 1}."
        )
    return arr


# ----------------------------------------------------------------------------- selection


def _pooled_t_top(X: np.ndarray, y: np.ndarray, d: int) -> np.ndarray:
    """Top ``d`` features by the pooled two-sample ``|t|`` (ties: lower index)."""
    a, b = X[y == 0], X[y == 1]
    n0, n1 = a.shape[0], b.shape[0]
    diff = b.mean(axis=0) - a.mean(axis=0)
    ss = ((a - a.mean(axis=0)) ** 2).sum(axis=0) + ((b - b.mean(axis=0)) ** 2).sum(axis=0)
    sp2 = ss / max(n0 + n1 - 2, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(diff) / np.sqrt(sp2 * (1.0 / n0 + 1.0 / n1))
    t = np.where(np.isnan(t), 0.0, t)
    return np.sort(np.argsort(-t, kind="stable")[:d])


class _Selection:
    """``fn(X, y, seed) -> sorted feature indices`` for a selector spec."""

    def __init__(self, selector, classifier, criterion, d: int):
        self.d = int(d)
        self.classifier = classifier
        self.kind = None
        if isinstance(selector, str) and selector.strip().lower() in ("ttest", "t-test"):
            self.kind = "ttest"
        elif isinstance(selector, str) and selector.strip().lower() in ("sfs", "sffs"):
            self.kind = selector.strip().lower()
            self.criterion = seed_criterion(classifier) if criterion is None else criterion
        else:
            from sklearn.base import clone

            from stablefs.methods import make_selector

            self.kind = "generic"
            self.template = make_selector(selector) if isinstance(selector, str) else selector
            self._clone = clone

    def __call__(self, X, y, seed: int) -> np.ndarray:
        if self.kind == "ttest":
            return _pooled_t_top(X, y, self.d)
        if self.kind in ("sfs", "sffs"):
            from stablefs.selectors.wrappers import make_criterion, sffs, sfs

            crit = make_criterion(X, y, estimator=self.classifier, criterion=self.criterion,
                                  random_state=seed)
            res = sfs(crit, self.d) if self.kind == "sfs" else sffs(crit, self.d)
            return np.sort(res.subset)
        sel = self._clone(self.template)
        params = sel.get_params()
        if "n_features_to_select" in params:
            sel.set_params(n_features_to_select=self.d)
        if "random_state" in params:
            sel.set_params(random_state=seed)
        sel.fit(X, y)
        ranking = np.asarray(sel.ranking_)
        return np.sort(np.argsort(ranking, kind="stable")[:self.d])


# --------------------------------------------------------------------------- one run


def _errors(rule, Xtr, ytr, Xte, yte) -> int:
    fitted = rule.fit(Xtr, ytr, 2)
    return int(np.count_nonzero(fitted.predict(Xte) != yte))


def run_streams(seed: int, run: int) -> dict[str, np.random.Generator]:
    """The four independent random streams of Monte-Carlo run ``run``: ``sample`` (the
    training sample ``S``), ``select`` (seeds of the selections), ``test`` (the test sample
    ``S'``) and ``folds`` (the partition), children of
    ``SeedSequence(seed, spawn_key=(run,))``."""
    children = np.random.SeedSequence(int(seed), spawn_key=(int(run),)).spawn(4)
    return {name: np.random.default_rng(ss)
            for name, ss in zip(("sample", "select", "test", "folds"), children)}


def _one_run(run: int, seed: int, draw_sample, sampler, select: _Selection, rule, n_folds,
             best: np.ndarray, n_test: int) -> dict:
    streams = run_streams(seed, run)
    X, y, Xout, yout = draw_sample(streams["sample"])
    N = y.size
    sel_rng = streams["select"]
    F = select(X, y, int(sel_rng.integers(2**63)))
    if sampler is not None:
        union = np.union1d(F, best)
        Xt, yt = sampler(streams["test"], n_test, union)
        pos = {int(f): i for i, f in enumerate(union)}
        XtF, Xtb = Xt[:, [pos[int(f)] for f in F]], Xt[:, [pos[int(f)] for f in best]]
    else:
        yt = yout
        XtF, Xtb = Xout[:, F], Xout[:, best]
    E = _errors(rule, X[:, F], y, XtF, yt) / yt.size
    Eb = _errors(rule, X[:, best], y, Xtb, yt) / yt.size
    fold = stratified_folds(y, n_folds, streams["folds"])
    err = err_b = 0
    for f in range(n_folds):
        test = fold == f
        tr = ~test
        Fi = select(X[tr], y[tr], int(sel_rng.integers(2**63)))
        err += _errors(rule, X[tr][:, Fi], y[tr], X[test][:, Fi], y[test])
        err_b += _errors(rule, X[tr][:, best], y[tr], X[test][:, best], y[test])
    Ehat, Ehat_b = err / N, err_b / N
    return {"dE": Ehat - E, "dEb": Ehat_b - Eb, "E": E, "Eb": Eb, "Ehat": Ehat,
            "Ehat_b": Ehat_b, "F": F}


def _sample_fns(model: Literal["equal", "unequal", "bimodal"] | Dataset, n_samples: int, best,
                model_params: dict | None):
    """``(draw_sample(rng) -> (X, y, X_out, y_out), test sampler or None, F_b)``."""
    from stablefs.datasets import make_xiao2007

    if isinstance(model, str):
        if model not in MODELS:
            raise StablefsError(
                f"model = {model!r}: choose 'equal', 'unequal' or 'bimodal' (Xiao, Hua and "
                "Dougherty 2007, sec. 2.2), or pass a Dataset to subsample."
            )
        params = dict(model_params or {})
        probe = make_xiao2007(model, n_samples=2, random_state=0, **params)
        sampler = xiao2007_test_sampler(probe.meta)
        F_b = probe.relevant if best is None else _resolve_best(best, probe.X.shape[1])

        def draw(rng):
            ds = make_xiao2007(model, n_samples=n_samples, random_state=rng, **params)
            return ds.X, ds.y, None, None

        return draw, sampler, np.asarray(F_b, dtype=np.int64)
    if not (hasattr(model, "X") and hasattr(model, "y")):
        raise StablefsError(
            f"model must be 'equal', 'unequal', 'bimodal' or a Dataset, not "
            f"{type(model).__name__}."
        )
    Xall = np.asarray(model.X, dtype=float)
    classes, yall = np.unique(np.asarray(model.y), return_inverse=True)
    if classes.size != 2:
        raise StablefsError(f"CRIDD needs two classes; the data set has {classes.size}.")
    if best is None:
        relevant = getattr(model, "relevant", None)
        if relevant is None:
            raise StablefsError(
                "best= is needed for a data set: the known best feature set F_b (indices or "
                "names), e.g. from an exhaustive search."
            )
        best = relevant
    F_b = _resolve_best(best, Xall.shape[1], getattr(model, "feature_names", None))
    counts = np.bincount(yall)
    n_c = np.round(counts / counts.sum() * n_samples).astype(int)
    n_c[0] = n_samples - n_c[1]
    if np.any(n_c < 1) or np.any(n_c >= counts):
        raise StablefsError(
            f"n_samples = {n_samples} cannot be drawn stratified from classes of "
            f"{counts.tolist()} points with a test set left over."
        )

    def subsample(rng):
        take = np.concatenate([rng.choice(np.flatnonzero(yall == c), n_c[c], replace=False)
                               for c in (0, 1)])
        mask = np.zeros(yall.size, dtype=bool)
        mask[take] = True
        return Xall[take], yall[take], Xall[~mask], yall[~mask]

    return subsample, None, F_b


@worker_task
def cridd_runs(model="equal", *, selector="sfs", classifier="lda", cv="cv10",
               n_samples: int = 50, runs: Sequence[int] = (0,), random_state: int = 0,
               n_features_to_select: int = 10, n_test: int = 5000, criterion=None, best=None,
               model_params: dict | None = None) -> dict[str, np.ndarray]:
    """Algorithm 1 of Xiao, Hua and Dougherty (2007) for the given Monte-Carlo runs.

    Run ``i`` draws everything from ``SeedSequence(random_state, spawn_key=(i,))``, so any
    grouping of runs gives the same numbers. Parameters are those of :func:`cridd`.

    Returns
    -------
    dict of ndarray
        One entry per run: ``dE``, ``dEb``, ``E``, ``Eb``, ``Ehat``, ``Ehat_b`` and the selected
        features ``F`` (runs x d), and ``run`` (the run indices).
    """
    d = int(n_features_to_select)
    draw, sampler, F_b = _sample_fns(model, n_samples, best, model_params)
    n_folds = parse_cv(cv, n_samples)
    rule = make_rule(classifier)
    select = _Selection(selector, classifier, criterion, d)
    rows = [_one_run(int(r), int(random_state), draw, sampler, select, rule, n_folds, F_b,
                     int(n_test)) for r in runs]
    out = {k: np.asarray([row[k] for row in rows], dtype=float)
           for k in ("dE", "dEb", "E", "Eb", "Ehat", "Ehat_b")}
    out["F"] = np.asarray([row["F"] for row in rows], dtype=np.int64).reshape(len(rows), d)
    out["run"] = np.asarray(list(runs), dtype=np.int64)
    return out


# --------------------------------------------------------------------------- summary


def kappa(dE, dEb) -> float:
    """CRIDD ``kappa = (Var(dE) - Var(dE_b)) / Var(dE)`` (eq. 1; variances with ``n - 1``)."""
    vE = float(np.var(np.asarray(dE, dtype=float), ddof=1))
    vEb = float(np.var(np.asarray(dEb, dtype=float), ddof=1))
    return (vE - vEb) / vE if vE > 0 else float("nan")


def cridd_summary(dE: ArrayLike, dEb: ArrayLike, *, paired: bool = True, n_boot: int = 2000,
                  alpha: float = 0.05, random_state: SeedLike = 0) -> dict[str, float]:
    """Variances, ``kappa`` with a percentile-bootstrap interval, squared biases.

    Parameters
    ----------
    dE, dEb : array-like
        Deviations with and without feature selection. The paper pools ``dE_b`` over the
        feature selectors of a table row (sec. 4: "pooled variance"); pass the pooled sample and
        ``paired=False``.
    paired : bool, default=True
        Resample runs jointly (``dE`` and ``dEb`` from the same runs) or each sample on its own.
    n_boot : int, default=2000
        Bootstrap resamples of the runs.
    alpha : float, default=0.05
        The interval is ``[alpha/2, 1 - alpha/2]``.
    random_state : int
        Seeds the bootstrap.

    Returns
    -------
    dict
        ``var_dE``, ``var_dEb``, ``kappa``, ``kappa_low``, ``kappa_high``, ``bias2_dE``,
        ``bias2_dEb`` (``mean^2``, as the paper's Tables 5-8), ``n_runs``.

    References
    ----------
    .. [1] Y. Xiao, J. Hua and E. R. Dougherty, "Quantification of the impact of feature
       selection on the variance of cross-validation error estimation", EURASIP Journal on
       Bioinformatics and Systems Biology, 2007, Article ID 16354, eq. 1, sec. 4 and Tables 1–8.
    .. [2] B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman &
       Hall, 1993 (the percentile interval).

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.evaluation import cridd_summary
    >>> rng = np.random.default_rng(0)
    >>> dEb = rng.normal(0.0, 0.05, size=500)
    >>> dE = dEb + rng.normal(0.0, 0.05, size=500)  # feature selection adds variance
    >>> summary = cridd_summary(dE, dEb, n_boot=200)
    >>> round(summary["kappa"], 2), summary["kappa_low"] < summary["kappa"] < summary["kappa_high"]
    (0.46, True)
    """
    dE = np.asarray(dE, dtype=float)
    dEb = np.asarray(dEb, dtype=float)
    if dE.size < 2 or dEb.size < 2:
        raise StablefsError("CRIDD needs at least 2 Monte-Carlo runs.")
    if paired and dE.size != dEb.size:
        raise StablefsError(f"paired deviations differ in length ({dE.size} vs {dEb.size}).")
    rng = np.random.default_rng(random_state)
    boots = np.empty(int(n_boot))
    for b in range(int(n_boot)):
        i = rng.integers(0, dE.size, dE.size)
        j = i if paired else rng.integers(0, dEb.size, dEb.size)
        boots[b] = kappa(dE[i], dEb[j])
    lo, hi = np.nanquantile(boots, [alpha / 2, 1 - alpha / 2]) if n_boot else (np.nan, np.nan)
    return {
        "var_dE": float(np.var(dE, ddof=1)),
        "var_dEb": float(np.var(dEb, ddof=1)),
        "kappa": kappa(dE, dEb),
        "kappa_low": float(lo),
        "kappa_high": float(hi),
        "bias2_dE": float(np.mean(dE) ** 2),
        "bias2_dEb": float(np.mean(dEb) ** 2),
        "n_runs": int(dE.size),
    }


def cridd(model: Literal["equal", "unequal", "bimodal"] | Dataset = "equal", *,
          selector: str | BaseSelector = "sfs", classifier: Classifier = "lda",
          cv: str | int = "cv10", n_samples: int = 50, n_runs: int = 10_000, random_state: int = 0,
          n_jobs: int = 1, backend: Literal["loky", "dask"] = "loky", scheduler: str | None = None,
          n_features_to_select: int = 10, n_test: int = 5000, criterion: str | None = None,
          best: ArrayLike | None = None, model_params: dict | None = None, n_boot: int = 2000,
          alpha: float = 0.05, runs_per_task: int | None = None,
          progress: bool = False) -> dict[str, Any]:
    """Estimate the CRIDD of one (model, selector, classifier, cross-validation, N) cell.

    Xiao, Hua and Dougherty 2007, eq. 1 and Algorithm 1.

    Parameters
    ----------
    model : {"equal", "unequal", "bimodal"} or Dataset, default="equal"
        A synthetic model of sec. 2.2 (:func:`stablefs.datasets.make_xiao2007`; ``F_b`` = the
        first feature of each block, ``|S'|`` = ``n_test`` fresh points per run), or a data set
        to subsample (stratified, without replacement; ``S'`` = the other points; ``best=``
        required unless the data set knows its relevant features).
    selector : str or selector, default="sfs"
        ``"ttest"``, ``"sfs"``, ``"sffs"`` (the paper's), or any method string / selector
        (its top ``d`` by ``ranking_``).
    classifier : {"lda", "3nn", "svm"}, Rule or classifier, default="lda"
        The rule whose errors are measured, also judged by the SFS/SFFS criterion; a
        :func:`~stablefs.evaluation.error_estimators.make_rule` rule sets the linear SVM's
        penalty (``make_rule("svm", C=0.1)``; the paper's C is not stated, 1 by default).
    cv : str or int, default="cv10"
        ``"cv10"``, ``"loo"``, ``"cvK"`` or a number of folds.
    n_samples : int, default=50
        ``N`` (50 and 100 in the paper).
    n_runs : int, default=10000
        ``N_MC`` (10,000 in the paper).
    random_state : int, default=0
        Seeds every run (run ``i`` from ``SeedSequence(random_state, spawn_key=(i,))``).
    n_jobs : int, default=1
        Parallel workers; the result does not depend on it.
    backend : {"loky", "dask"}, default="loky"
        ``"dask"`` runs the tasks on a Dask cluster (``scheduler`` address, or a local one).
    scheduler : str, optional
        Address of a Dask scheduler.
    n_features_to_select : int, default=10
        ``d``.
    n_test : int, default=5000
        Size of the test sample ``S'`` of the synthetic models.
    criterion : str, optional
        SFS/SFFS criterion; default the paper's (:func:`seed_criterion`).
    best : array-like, optional
        ``F_b``; default the model's best features.
    model_params : dict, optional
        Extra arguments of :func:`stablefs.datasets.make_xiao2007` (e.g. ``mu``, ``scale``).
    n_boot, alpha : int, float
        Bootstrap of kappa's interval (runs resampled jointly).
    runs_per_task : int, optional
        Runs per parallel task (default: about 4 tasks per worker, at most 200 runs each).
    progress : bool, default=False
        A progress bar on stderr.

    Returns
    -------
    dict
        :func:`cridd_summary` (``var_dE``, ``var_dEb``, ``kappa``, ``kappa_low``,
        ``kappa_high``, ``bias2_dE``, ``bias2_dEb``, ``n_runs``) plus the per-run samples
        ``dE``, ``dEb``, ``E``, ``Eb``, ``Ehat``, ``Ehat_b`` and ``F``.

    References
    ----------
    .. [1] Y. Xiao, J. Hua and E. R. Dougherty, "Quantification of the impact of feature
       selection on the variance of cross-validation error estimation", EURASIP Journal on
       Bioinformatics and Systems Biology, 2007, Article ID 16354, eq. 1, sec. 2.2, Algorithm 1
       and App. B.
    .. [2] U. M. Braga-Neto and E. R. Dougherty, "Bolstered error estimation", Pattern
       Recognition 37(6), 1267–1281, 2004 (the SFS/SFFS criteria).

    Examples
    --------
    >>> from stablefs.evaluation import cridd
    >>> r = cridd("equal", selector="ttest", classifier="lda", cv="cv10", n_runs=20)
    >>> sorted(k for k in r if k.startswith("kappa"))
    ['kappa', 'kappa_high', 'kappa_low']
    """
    import joblib

    from stablefs.evaluation.runner import _backend_context

    if isinstance(n_runs, bool) or not isinstance(n_runs, numbers.Integral) or n_runs < 2:
        raise StablefsError(f"n_runs = {n_runs!r}: CRIDD needs at least 2 Monte-Carlo runs.")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise StablefsError(f"n_jobs = {n_jobs!r}: use a whole number >= 1, or -1 for all "
                            "cores.")
    kwargs = dict(model=model, selector=selector, classifier=classifier, cv=cv,
                  n_samples=int(n_samples), random_state=int(random_state),
                  n_features_to_select=int(n_features_to_select), n_test=int(n_test),
                  criterion=criterion, best=best, model_params=model_params)
    # validate everything before the work starts
    _sample_fns(model, int(n_samples), best, model_params)
    parse_cv(cv, int(n_samples))
    make_rule(classifier)
    _Selection(selector, classifier, criterion, int(n_features_to_select))
    workers = n_jobs if n_jobs > 0 else max(1, (joblib.cpu_count() or 1) + 1 + n_jobs)
    workers = max(1, min(int(workers), int(n_runs)))
    per = runs_per_task or max(1, min(200, math.ceil(n_runs / (4 * workers))))
    chunks = [list(range(s, min(s + per, n_runs))) for s in range(0, n_runs, per)]
    results = []
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_runs, unit="run", file=sys.stderr, leave=False, desc="CRIDD")
    try:
        if workers == 1 and backend == "loky":
            for ch in chunks:
                results.append(cridd_runs(runs=ch, **kwargs))
                if bar is not None:
                    bar.update(len(ch))
        else:
            with _backend_context(backend, workers, scheduler):
                parallel = joblib.Parallel(n_jobs=workers, return_as="generator_unordered")
                for res in parallel(joblib.delayed(cridd_runs)(runs=ch, **kwargs)
                                    for ch in chunks):
                    results.append(res)
                    if bar is not None:
                        bar.update(res["run"].size)
    finally:
        if bar is not None:
            bar.close()
    merged = {k: np.concatenate([r[k] for r in results]) for k in results[0]}
    order = np.argsort(merged["run"])
    merged = {k: v[order] for k, v in merged.items()}
    out = cridd_summary(merged["dE"], merged["dEb"], paired=True, n_boot=n_boot, alpha=alpha,
                        random_state=random_state)
    out.update({k: merged[k] for k in ("dE", "dEb", "E", "Eb", "Ehat", "Ehat_b", "F")})
    return out
