"""Nested estimate of the chosen (method, k): the accuracy of the *choice*, not of the winner.

A comparison picks its recommended (method, k) on the same resamples that report its
accuracy, so that accuracy is optimistic: the winner of many noisy contests looks better than
it is (Varma and Simon 2006; Cawley and Talbot 2010). The nested estimate repeats the whole
choice inside each outer resample:

1. for outer resample i, draw ``n_inner`` stratified 2/3 splits of its *training part* only;
2. run the comparison on those inner splits (every method, every k, the primary classifier
   and stability measure) and apply the same recommendation rule (passed in as ``choose``,
   the report's rule :func:`stablefs.report.summary.choose_pair`) to get (m_i, k_i);
3. score (m_i, k_i) on the outer test part: this is the comparison's own fit of m_i on the
   outer training part, evaluated at k_i, so it is reused from the comparison's results
   (valid: that fit saw only the outer training part).

The nested accuracy is the mean over outer resamples of step 3; the plain accuracy is the
recommended pair's mean over the same outer resamples; the gap is plain − nested. An outer
resample whose inner comparison recommends nothing (no pair has both a stability and an
accuracy) still counts: the procedure then selects no feature, and the best it can predict is
the majority class of the training part, so the resample counts at the majority-class rule's
held-out value (``baseline``; :func:`stablefs.evaluation.baseline.majority_baseline`), never
dropped from the mean (dropping it would score the procedure only where it succeeded).

Small classes: the inner splits are the comparison's stratified 2/3 splits
(:func:`inner_splits`); a class with fewer than the 3 samples a 2/3 split needs in an outer
training part (a class of 3 keeps 2 of them there) is split leave-one-out within the class:
inner split r holds out its sample r mod n_c and trains on the others (a class of one stays
in every inner training part). The classes so treated are recorded
(``NestedEstimate.small_classes``) and stated in the report. The
stability of the choice is reported as how often the inner choice equals the recommended
pair (and the method alone), and as the Nogueira stability of the inner-chosen signatures
(the top-k_i of m_i's ranking on each outer training part; Nogueira et al. 2018 allow
subsets of different sizes) beside the recommended pair's on the same outer resamples.

Cost: ``n_outer x n_inner x n_methods`` fits on 2/3 of a training part (4/9 of the samples),
run through :func:`~stablefs.evaluation.runner.run_experiment` (parallel, cached, resumable).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from stablefs._errors import StablefsError

if TYPE_CHECKING:  # pandas loads when used: compare's stage plan imports inner_splits
    from typing import Literal

    import pandas as pd  # before its first line

__all__ = ["DEFAULT_INNER", "DEFAULT_OUTER", "FixedSplits", "NestedEstimate", "inner_splits",
           "nested_estimate"]

#: default number of the comparison's resamples that get an inner comparison
DEFAULT_OUTER = 5
#: default number of inner 2/3 splits of each outer training part
DEFAULT_INNER = 3


def _frame(*args, **kwargs) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(*args, **kwargs)


@dataclass
class NestedEstimate:
    """The result of :func:`nested_estimate`.

    ``choices`` has one row per outer resample: ``resample, method, k, value`` (the inner
    choice and its outer held-out value of ``metric``; when the inner comparison recommended
    nothing, method None and the majority-class rule's value, counted in ``nested``;
    ``without_choice`` of them). ``stability_nested`` is over the resamples with a choice.
    ``small_classes``: the classes whose inner splits were leave-one-out within the class.
    """

    method: str
    k: int
    metric: str
    plain: float
    nested: float
    agreement: float
    method_agreement: float
    stability_plain: float
    stability_nested: float
    n_outer: int
    n_inner: int
    seconds: float
    fits: int
    fits_computed: int
    choices: pd.DataFrame = field(repr=False, default_factory=_frame)
    small_classes: list = field(default_factory=list)
    without_choice: int = 0

    @property
    def gap(self) -> float:
        return self.plain - self.nested

    def to_dict(self) -> dict:
        return {"method": self.method, "k": int(self.k), "metric": self.metric,
                "plain": self.plain, "nested": self.nested, "gap": self.gap,
                "choice_agreement": self.agreement,
                "method_agreement": self.method_agreement,
                "stability_plain": self.stability_plain,
                "stability_nested": self.stability_nested, "outer_resamples": self.n_outer,
                "inner_resamples": self.n_inner, "fits": self.fits,
                "fits_computed": self.fits_computed, "seconds": round(self.seconds, 3),
                "small_classes": [str(c) for c in self.small_classes],
                "outer_without_choice": int(self.without_choice)}


def _rankings(selections: pd.DataFrame) -> dict:
    return {(str(m), int(r)): np.asarray(rk) for m, r, rk in
            selections[["method", "resample", "ranking"]].itertuples(index=False)}


class FixedSplits:
    """Given resamples as a scikit-learn-style splitter (``split(X, y)`` yields their
    ``(train, test)`` in order), for :func:`~stablefs.evaluation.runner.run_experiment`."""

    def __init__(self, resamples, description: str = "fixed splits"):
        self.resamples = list(resamples)
        self.description = description

    def split(self, X=None, y=None, groups=None):
        for r in self.resamples:
            yield r.train, r.test

    def get_n_splits(self, X=None, y=None, groups=None) -> int:
        return len(self.resamples)

    def __repr__(self) -> str:
        return self.description


def inner_splits(y_train, n_inner: int, seed: int) -> tuple[list, list]:
    """The ``n_inner`` stratified 2/3 splits of one outer training part (positions into it)
    and the classes too small for them.

    The splits are the ``split`` protocol's (:class:`~stablefs.evaluation.protocols.Protocol`,
    the same index sets for the same seed). A class with fewer samples than the protocol needs
    (:attr:`~stablefs.evaluation.protocols.Protocol.min_per_class`, 3) is split leave-one-out
    within the class instead: split r holds out its sample ``r mod n_c`` and trains on the
    others; a class of one stays in every training part (there is nothing to hold out).

    Returns
    -------
    (list of Resample, list)
        The splits, and the classes split leave-one-out (empty when none).
    """
    from stablefs.evaluation.protocols import Protocol, Resample, _resamples

    y_train = np.asarray(y_train)
    proto = Protocol("split", int(n_inner))
    splits = _resamples(proto, y_train, np.arange(y_train.size), seed)
    classes, counts = np.unique(y_train, return_counts=True)
    small = [c for c, n in zip(classes, counts, strict=True) if n < proto.min_per_class]
    for c in small:
        idx = np.flatnonzero(y_train == c)
        for r, res in enumerate(splits):
            held = idx[[r % idx.size]] if idx.size > 1 else idx[:0]
            train = np.union1d(np.setdiff1d(res.train, idx), np.setdiff1d(idx, held))
            test = np.union1d(np.setdiff1d(res.test, idx), held)
            splits[r] = Resample(res.index, train, test, res.repeat, res.fold)
    return splits, [c.item() if hasattr(c, "item") else c for c in small]


def nested_estimate(X, y, methods, sizes, *, resamples, results: pd.DataFrame,
                    selections: pd.DataFrame, recommended: tuple[str, float],
                    choose: Callable[[pd.DataFrame, pd.DataFrame], tuple[str, float] | None],
                    classifier: str = "svm", metric: str | None = None, measure: str = "nogueira",
                    n_outer: int = DEFAULT_OUTER, n_inner: int = DEFAULT_INNER,
                    random_state: int = 0, n_jobs: int | None = 1,
                    backend: Literal["loky", "dask"] = "loky", scheduler: str | None = None,
                    cache_dir=None, impute: Literal["median"] | None = None,
                    standardize: bool = False, prefilter: int | None = None,
                    progress=None, baseline: pd.DataFrame | None = None) -> NestedEstimate:
    """Nested estimate of the recommended pair's accuracy and of the stability of the choice.

    Parameters
    ----------
    X, y, methods, sizes
        As given to :func:`~stablefs.evaluation.runner.run_experiment`.
    resamples : sequence of Resample
        The comparison's resamples; the first ``n_outer`` with a test part are the outer ones.
    results, selections : DataFrame
        The comparison's ``results`` and ``selections`` (its outer fits, reused).
    recommended : (method, k)
        The comparison's recommended pair (the plain estimate).
    choose : callable
        ``choose(stability, results) -> (method, k) or None``: the recommendation rule applied
        to an inner comparison's tables.
    classifier : str
        The classifier of the rule's accuracy; ``metric`` defaults to ``accuracy_<classifier>``.
    measure : str
        The rule's stability measure.
    n_outer, n_inner : int
        Outer resamples used (default 5) and inner 2/3 splits of each (default 3): few, to
        keep the cost near that of the comparison; the inner choice sees 3 splits where the
        comparison saw 20, so the nested estimate judges a noisier version of the choice.
    random_state, n_jobs, backend, scheduler, cache_dir, impute, standardize, prefilter
        As for ``run_experiment`` (the inner splits of outer resample i are seeded by
        ``random_state`` and i).
    progress : None, "bar" or "lines"
    baseline : DataFrame, optional
        The comparison's ``baseline`` (``resample, metric, value`` of the majority-class
        rule): the value an outer resample without an inner choice counts at (the kind of
        ``metric``: accuracy or balanced accuracy). Without it such a resample is NaN and the
        nested mean is NaN, never the mean of the others.

    Returns
    -------
    NestedEstimate
    """
    from stablefs._runtime.progress import make_progress
    from stablefs.evaluation.runner import derive_seed, run_experiment
    from stablefs.stability import nogueira

    if int(n_inner) < 2:
        raise StablefsError(f"the nested estimate needs at least 2 inner resamples, not "
                            f"{n_inner} (stability compares resamples).")
    if int(n_outer) < 1:
        raise StablefsError(f"the nested estimate needs at least 1 outer resample, not "
                            f"{n_outer}.")
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    metric = metric or f"accuracy_{classifier}"
    outer = [r for r in resamples if len(r.test)][:int(n_outer)]
    ranks = _rankings(selections)
    res = results[results["metric"] == metric]
    value = {(str(m), float(k), int(r)): float(v) for m, k, r, v in
             res[["method", "k", "resample", "value"]].itertuples(index=False)}
    rec_m, rec_k = str(recommended[0]), float(recommended[1])
    fallback = _baseline_values(baseline, metric)
    t0 = time.perf_counter()
    rows: list[tuple[int, str | None, float, float]] = []
    fits, computed = 0, 0
    small: list = []
    bar = make_progress(progress, total=len(outer), desc="nested estimate",
                        unit="outer resample")
    try:
        for res_i in outer:
            seed_i = derive_seed(random_state, 0x0E57, res_i.index)
            splits, few = inner_splits(y[res_i.train], int(n_inner), seed_i)
            small.extend(c for c in few if c not in small)
            inner = run_experiment(
                X[res_i.train], y[res_i.train], methods, sizes,
                protocol=FixedSplits(splits, f"{n_inner} inner 2/3 splits"),
                classifiers=[classifier],
                measures=[measure], random_state=seed_i, n_jobs=n_jobs, backend=backend,
                scheduler=scheduler, cache_dir=cache_dir, impute=impute,
                standardize=standardize, prefilter=prefilter, compare_pairs=False)
            fits += inner.info["fits_computed"] + inner.info["fits_reused"]
            computed += inner.info["fits_computed"]
            pick = choose(inner.stability, inner.results)
            if pick is None:  # counts at the majority-class rule's value (module docstring)
                rows.append((int(res_i.index), None, np.nan,
                             fallback.get(int(res_i.index), np.nan)))
            else:
                m, k = str(pick[0]), float(pick[1])
                rows.append((int(res_i.index), m, k, value[(m, k, int(res_i.index))]))
            bar.update(1)
    finally:
        bar.close()
    choices = _frame(rows, columns=["resample", "method", "k", "value"])
    ok = choices.dropna(subset=["method"])
    p = X.shape[1]

    def subsets(pairs):
        out = np.zeros((len(pairs), p), dtype=bool)
        for j, (m, k, r) in enumerate(pairs):
            out[j] = ranks[(m, r)] <= k
        return out

    plain_vals = [value[(rec_m, rec_k, int(r.index))] for r in outer]
    stab_plain = (nogueira(subsets([(rec_m, rec_k, int(r.index)) for r in outer]), p)
                  if len(outer) > 1 else float("nan"))
    stab_nested = (nogueira(subsets([(m, k, int(r)) for r, m, k in
                                     ok[["resample", "method", "k"]].itertuples(index=False)]),
                            p) if len(ok) > 1 else float("nan"))
    return NestedEstimate(
        method=rec_m, k=int(rec_k), metric=metric, plain=float(np.mean(plain_vals)),
        nested=float(choices["value"].mean(skipna=False)) if len(choices) else float("nan"),
        agreement=float(((choices["method"] == rec_m) & (choices["k"] == rec_k)).mean()),
        method_agreement=float((choices["method"] == rec_m).mean()),
        stability_plain=float(stab_plain), stability_nested=float(stab_nested),
        n_outer=len(outer), n_inner=int(n_inner), seconds=time.perf_counter() - t0,
        fits=fits, fits_computed=computed, choices=choices, small_classes=small,
        without_choice=int(choices["method"].isna().sum()))


def _baseline_values(baseline: pd.DataFrame | None, metric: str) -> dict[int, float]:
    """``{resample: value}`` of the majority-class rule for the kind of ``metric``
    (``balanced_accuracy_svm`` -> ``balanced_accuracy``; other kinds than accuracy and
    balanced accuracy: none)."""
    if baseline is None or not len(baseline):
        return {}
    kind = "balanced_accuracy" if metric.startswith("balanced_accuracy") else (
        "accuracy" if metric.startswith("accuracy") else None)
    rows = baseline[baseline["metric"] == kind]
    return {int(r): float(v) for r, v in rows[["resample", "value"]].itertuples(index=False)}
