"""What a comparison gives back: :class:`Comparison` (tidy tables, the recommendation, the
evidence of signal, figures, the run folder) and :func:`read_comparison`."""

from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from stablefs._errors import StablefsError

if TYPE_CHECKING:
    import os
    from collections.abc import Sequence

    from matplotlib.figure import Figure

    from stablefs.comparison._trust import Trust
    from stablefs.datasets import Dataset
    from stablefs.evaluation.runner import ExperimentResult

__all__ = ["Comparison", "Recommendation", "Signal", "read_comparison"]


@dataclass(frozen=True)
class Recommendation:
    """The recommended (method, k), or why nothing is recommended.

    Attributes
    ----------
    method : str or None
        The recommended method; ``None`` when nothing is recommended.
    k : int or None
        Its subset size.
    measure : str
        The stability measure of the choice (the first one asked for).
    metric : str
        The accuracy of the choice (``accuracy_svm``: the first classifier).
    stability, accuracy, accuracy_sd : float
        The pair's values (NaN without a candidate).
    sentence : str
        What the summary says: the recommendation, or the reason there is none.
    candidate : tuple or None
        The best (method, k) by the rule, also when the evidence of signal is missing.
    """

    method: str | None
    k: int | None
    measure: str = ""
    metric: str = ""
    stability: float = math.nan
    accuracy: float = math.nan
    accuracy_sd: float = math.nan
    sentence: str = ""
    candidate: tuple | None = None

    def __bool__(self) -> bool:
        return self.method is not None


@dataclass(frozen=True)
class Signal:
    """Whether the recommended pair predicts the classes better than chance.

    Attributes
    ----------
    evidence : bool or None
        True: evidence of signal; False: none (nothing is recommended); None: no candidate
        to judge.
    verdict : str
        ``"evidence of signal (permutation p = 0.0099)"``, ``"no evidence of signal"``, ...
    p_value : float
        The permutation test's p (NaN without a test).
    tested : bool
        Whether a permutation test was run.
    reasons : list of str
        Why there is no evidence, when there is none.
    accuracy, baseline : float
        The pair's mean accuracy and the majority-class rule's.
    """

    evidence: bool | None
    verdict: str
    p_value: float = math.nan
    tested: bool = False
    reasons: list = field(default_factory=list)
    accuracy: float = math.nan
    baseline: float = math.nan


class Comparison:
    """The result of :func:`stablefs.compare`: tidy tables, the recommendation, the evidence
    of signal and the figures of the report.

    Made by :func:`stablefs.compare` and :func:`stablefs.read_comparison`, not by hand.

    Parameters
    ----------
    results, stability, frequencies, selections : DataFrame
        The tables of the run (see Attributes).
    comparisons, baseline, permutation, nested : DataFrame
        The tables of the run (see Attributes).
    run_info, config : dict
        What ``run.json`` holds, and the run's resolved configuration.
    dataset : Dataset, optional
        The data as analysed.
    signature : DataFrame, optional
        The consensus signatures (computed from ``dataset`` when not given).
    feature_names, symbols : sequence of str, optional
        The features' names and, with an annotation, their gene symbols.
    folder : Path, optional
        The run folder.
    reused : bool, default False
        Whether the results were read back from a finished run.

    Attributes
    ----------
    results : DataFrame
        ``method, k, resample, metric, value``: accuracy, balanced accuracy, AUC and MCC per
        classifier, and fit times (``k = 0``); ``results.csv``.
    stability : DataFrame
        ``method, k, measure, estimate, low, high, interval, against``; ``stability.csv``.
    accuracy : DataFrame
        ``method, k, classifier, mean, sd, n, low, high``: the mean held-out accuracy per
        classifier with its 95 % t-interval.
    frequencies : DataFrame
        ``method, k, feature, frequency``: how often each feature is in the top k.
    selections : DataFrame
        One row per (method, resample): the full ranking, scores and training indices.
    signature : DataFrame
        Per method and k the consensus features (selected in more than half of the
        resamples) with frequency, mean rank, the class in which each is higher, effect size,
        p-value and FDR (descriptive: computed on the whole data).
    baseline, permutation, nested, comparisons : DataFrame
        The majority-class rule per resample, the permutation test (row 0 the observed
        statistic), the nested estimate (one row per outer resample) and the paired tests
        between methods.
    recommendation : Recommendation
    signal : Signal
    run_info : dict
        What ``run.json`` holds: the configuration, versions, times.
    folder : Path or None
        The run folder, when there is one.
    reused : bool
        Whether the results were read back from a finished run instead of computed.
    dataset : Dataset or None
        The data as analysed (``None`` when read back from a folder).

    References
    ----------
    Nogueira, Sechidis and Brown 2018, "On the stability of feature selection algorithms",
    JMLR 18, eq. 4 and Theorem 7 (the stability table and its intervals). Ambroise and
    McLachlan 2002, "Selection bias in gene extraction on the basis of microarray
    gene-expression data", PNAS 99 (the permutation test with the selector refitted).

    Examples
    --------
    >>> import stablefs
    >>> result = stablefs.compare("synthetic:han2012?n_samples=60&n_features=200&n_blocks=20",
    ...                           methods="ttest", sizes=[5], repeats=5, permutations=0,
    ...                           nested=0)
    >>> type(result).__name__
    'Comparison'
    >>> list(result.stability.columns[:4])
    ['method', 'k', 'measure', 'estimate']
    >>> result.recommendation.k
    5
    """

    def __init__(self, *, results: pd.DataFrame, stability: pd.DataFrame, frequencies: pd.DataFrame,
                 selections: pd.DataFrame, comparisons: pd.DataFrame, baseline: pd.DataFrame,
                 permutation: pd.DataFrame, nested: pd.DataFrame, run_info: dict, config: dict,
                 dataset: Dataset | None = None, signature: pd.DataFrame | None = None,
                 feature_names: Sequence[str] | np.ndarray | None = None,
                 symbols: Sequence[str] | np.ndarray | None = None, folder: Path | None = None,
                 reused: bool = False) -> None:
        self.results = results
        self.stability = stability
        self.frequencies = frequencies
        self.selections = selections
        self.comparisons = comparisons
        self.baseline = baseline
        self.permutation = permutation
        self.nested = nested
        self.run_info = run_info
        self.config = config
        self.dataset = dataset
        self._signature = signature
        self.feature_names = (None if feature_names is None
                              else np.asarray([str(f) for f in feature_names], dtype=object))
        self.symbols = symbols
        self.folder = folder
        self.reused = reused
        self.wall_time = float(run_info.get("wall_time_s", math.nan))
        #: the files written by the last :meth:`save` (or the run), by name
        self.paths: dict | None = None
        self._cache: dict = {}

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def from_run(cls, result: ExperimentResult, trust: Trust, run_info: dict, dataset: Dataset,
                 config: dict) -> Comparison:
        """A comparison just computed (:func:`stablefs.comparison._compare.execute`)."""
        return cls(
            results=result.results, stability=result.stability,
            frequencies=result.frequencies, selections=result.selections,
            comparisons=result.comparisons, baseline=result.baseline,
            permutation=(trust.permutation.table() if trust.permutation is not None
                         else pd.DataFrame()),
            nested=trust.nested.choices if trust.nested is not None else pd.DataFrame(),
            run_info=run_info, config=config, dataset=dataset,
            feature_names=dataset.feature_names, symbols=dataset.symbols)

    # -- tables ---------------------------------------------------------------------------
    @property
    def trust(self) -> dict:
        """The permutation test, nested estimate and verdict as ``run.json`` holds them."""
        return self.run_info.get("trust") or {}

    @property
    def signature(self) -> pd.DataFrame:
        if self._signature is None:
            if self.dataset is None:
                return pd.DataFrame()
            from stablefs.evaluation.outputs import signature_for

            self._signature = signature_for(
                self.frequencies, self.dataset.X, self.dataset.y, self.dataset.feature_names,
                self.selections, signal=self.trust.get("signal"), symbols=self.symbols)
        return self._signature

    @property
    def accuracy(self) -> pd.DataFrame:
        perf = self._tables()["perf"]
        acc = perf[perf["kind"] == "accuracy"]
        return acc[["method", "k", "classifier", "mean", "sd", "n", "low", "high"]].reset_index(
            drop=True)

    def _tables(self) -> dict:
        """The report's normalised tables, computed once."""
        if "tables" not in self._cache:
            from stablefs.report import figures as _fig
            from stablefs.report import summary as _sum
            from stablefs.report import tables as _tab

            res = _tab.prepare_results(self.results)
            stab = _tab.prepare_stability(self.stability)
            res, stab, notes = _tab.drop_duplicates(res, stab)
            freq = _tab.prepare_frequencies(self.frequencies)
            methods = _tab.method_order(self.run_info.get("methods"), res, stab, freq)
            perf = _tab.performance_summary(res)
            rec = _sum.recommendation(stab, perf)
            base = _tab.baseline_means(self.baseline)
            verdict = _sum.judge_evidence(rec, base, self.trust)
            self._cache["tables"] = {
                "res": res, "stab": stab, "freq": freq, "methods": methods, "perf": perf,
                "timing": _tab.time_summary(res), "rec": rec, "base": base,
                "verdict": verdict, "notes": notes,
                "shown": None if verdict.signal is False else rec,
                "styles": _fig.method_styles(methods, linestyles=True)}
        return self._cache["tables"]

    # -- the verdict ----------------------------------------------------------------------
    @property
    def recommendation(self) -> Recommendation:
        t = self._tables()
        rec, verdict = t["rec"], t["verdict"]
        lines = self._verdict_lines()
        if rec is None:
            return Recommendation(None, None, sentence=(lines[0] if lines else
                                                        "No (method, k) has both a stability "
                                                        "and an accuracy value."))
        row = rec.points[(rec.points["method"] == rec.method) & (rec.points["k"] == rec.k)]
        row = row.iloc[0]
        k = int(rec.k) if float(rec.k).is_integer() else rec.k
        values = dict(measure=rec.measure, metric=rec.metric, stability=float(row["stability"]),
                      accuracy=float(row["accuracy"]), accuracy_sd=float(row["acc_sd"]),
                      sentence=lines[0], candidate=(rec.method, k))
        if verdict.signal is False:
            return Recommendation(None, None, **values)
        return Recommendation(rec.method, k, **values)

    @property
    def signal(self) -> Signal:
        v = self._tables()["verdict"]
        return Signal(v.signal, v.label or "no candidate to judge", float(v.p_value),
                      bool(v.tested), list(v.reasons), float(v.accuracy), float(v.baseline))

    def _verdict_lines(self) -> list[str]:
        if "verdict" not in self._cache:
            from stablefs.report.summary import verdict_lines
            from stablefs.report.tables import baseline_means

            self._cache["verdict"] = verdict_lines(
                self.results, self.stability, self.frequencies,
                baseline=baseline_means(self.baseline) or None, trust=self.trust)
        return list(self._cache["verdict"])

    def summary(self) -> str:
        """The text that ``stablefs compare`` prints: the stability and accuracy tables, the
        baseline and fit times, then the recommendation and its checks."""
        from stablefs.comparison._text import summary_text

        return summary_text(self)

    # -- figures --------------------------------------------------------------------------
    def plot_stability(self) -> Figure | None:
        """Stability against k, one panel per measure, with the confidence intervals.

        Returns
        -------
        matplotlib.figure.Figure
        """
        from stablefs.report import figures as _fig

        t = self._tables()
        return _fig.plot_stability(t["stab"], t["methods"], t["styles"])

    def plot_accuracy(self) -> Figure | None:
        """Held-out accuracy (and the other metrics) against k, one column per classifier,
        with the majority-class baseline dashed.

        Returns
        -------
        matplotlib.figure.Figure
        """
        from stablefs.report import figures as _fig

        t = self._tables()
        return _fig.plot_performance(t["perf"], t["methods"], t["styles"], t["base"] or None)

    def plot_tradeoff(self) -> Figure | None:
        """Stability against accuracy, one point per (method, k), the Pareto front outlined
        and the recommended pair ringed.

        Returns
        -------
        matplotlib.figure.Figure or None
            ``None`` without both a stability and an accuracy value.
        """
        from stablefs.report import figures as _fig

        t = self._tables()
        shown = t["shown"]
        return _fig.plot_tradeoff(t["stab"], t["perf"], t["methods"], t["styles"],
                                  recommended=(shown.method, shown.k, shown.metric) if shown
                                  else None, baseline=t["base"] or None)

    def plot_frequencies(self) -> Figure | None:
        """Selection frequency of the features, sorted, against their position, per k.

        Returns
        -------
        matplotlib.figure.Figure or None
        """
        from stablefs.report import figures as _fig

        t = self._tables()
        if t["freq"] is None:
            return None
        return _fig.plot_frequency_rank(t["freq"], t["methods"], t["styles"])

    def plot_selections(self, method: str | None = None, k: float | None = None) -> Figure | None:
        """Features × resamples map of one method's selections at one k (default: the
        recommended pair; without evidence of signal the best candidate, as the report
        shows; else the first method at its first k).

        Returns
        -------
        matplotlib.figure.Figure or None
        """
        from stablefs.report import figures as _fig
        from stablefs.report import tables as _tab

        t = self._tables()
        shown = t["shown"] or (t["rec"] if t["verdict"].signal is False else None)
        method = method or (shown.method if shown else (t["methods"] or [None])[0])
        if method is None or self.feature_names is None or self.selections.empty:
            return None
        if method not in set(self.selections["method"].astype(str)):
            raise StablefsError(f"no selections of method {method!r}: the methods are "
                                f"{', '.join(t['methods'])}.")
        if k is None:
            k = shown.k if shown and shown.method == method else _tab.frequency_k(
                t["freq"], method)
        if k is None:  # the method has no frequencies
            return None
        sel = self.selections[(self.selections["method"].astype(str) == method)
                              & (self.selections["resample"] >= 0)]
        sel = sel.sort_values("resample", kind="stable")
        ranks = np.vstack([np.asarray(r, dtype=float) for r in sel["ranking"]])
        return _fig.plot_selection_heatmap(ranks, list(self.feature_names), k, method=method)

    def plot_fit_time(self) -> Figure | None:
        """Mean fit time per method with ± one standard deviation.

        Returns
        -------
        matplotlib.figure.Figure or None
        """
        from stablefs.report import figures as _fig

        t = self._tables()
        if t["timing"].empty:
            return None
        return _fig.plot_fit_time(t["timing"], t["methods"], t["styles"])

    # -- files ----------------------------------------------------------------------------
    def save(self, folder: str | os.PathLike[str], *, force: bool = False,
             report: bool | None = None) -> Path:
        """Write the run folder of ``stablefs compare --out`` (the same files, the same
        ``stability.csv`` byte for byte for the same configuration).

        Parameters
        ----------
        folder : path
            Created if missing. A folder holding this finished run is left as it is; one
            holding another configuration is refused unless ``force``.
        force : bool, default False
            Replace a finished run of another configuration (only the files it lists).
        report : bool, optional
            Write the report; default: as the comparison was configured.

        Returns
        -------
        Path
            The folder.
        """
        from stablefs._runtime.rundir import RunFolder

        config = dict(self.config)
        if report is not None:
            config["report"] = bool(report)
        run = RunFolder(folder, config, force=force, option="folder")
        if run.check() == "reuse":
            return Path(folder)
        with run:
            self._write(Path(folder), report=bool(config.get("report", True)),
                        svg=bool(config.get("svg", False)), config_key=run.key, config=config)
            run.complete()
        return Path(folder)

    def _write(self, out: Path, *, report: bool, svg: bool = False,
               config_key: str | None = None, config: dict | None = None,
               draw=None) -> dict:
        """Every file of the run folder (inside a locked :class:`RunFolder`); ``draw``
        renders the report's figures (:func:`stablefs.report.write_report`)."""
        from stablefs.evaluation.outputs import save_result, write_csv
        from stablefs.evaluation.runner import ExperimentResult

        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        extra = {}
        if not self.permutation.empty:
            extra["permutation.csv"] = write_csv(self.permutation, out / "permutation.csv")
        if not self.nested.empty:
            extra["nested.csv"] = write_csv(self.nested, out / "nested.csv")
        run_info = dict(self.run_info)
        if config is not None:
            run_info["config"] = config
        if config_key is not None:
            run_info["config_key"] = config_key
        result = ExperimentResult(self.selections, self.results, self.stability,
                                  self.frequencies, comparisons=self.comparisons,
                                  baseline=self.baseline)
        paths = save_result(result, out, run_info, report=report, svg=svg,
                            feature_names=self.feature_names, signature=self.signature,
                            extra_paths=extra, draw=draw)
        self.paths = paths
        return paths

    # -- display --------------------------------------------------------------------------
    def __repr__(self) -> str:
        info = self.run_info
        rec, sig = self.recommendation, self.signal
        what = (f"recommended {rec.method} at k={rec.k} ({rec.measure} {rec.stability:.2f})"
                if rec else "nothing recommended")
        return (f"<Comparison of {len(self._tables()['methods'])} methods on "
                f"{info.get('data', '?')!r} ({info.get('n_samples', '?')} x "
                f"{info.get('n_features', '?')}): {what}; {sig.verdict}>")

    def _repr_html_(self) -> str:
        from stablefs.comparison._text import comparison_html

        return comparison_html(self)


def read_comparison(folder: str | os.PathLike[str]) -> Comparison:
    """Read back a run folder written by ``stablefs compare`` or :meth:`Comparison.save`.

    Nothing in the folder is executed: tables are CSV and Parquet, ``run.json`` is JSON.

    Parameters
    ----------
    folder : path
        A folder holding a finished run (its ``run.json`` names stablefs).

    Returns
    -------
    Comparison
        With every table; ``dataset`` is ``None`` (the data are not stored in the folder).

    Raises
    ------
    stablefs.StablefsError
        When the folder holds no finished comparison.

    Examples
    --------
    >>> import tempfile, stablefs
    >>> result = stablefs.compare("synthetic:han2012?n_samples=60&n_features=200&n_blocks=20",
    ...                           methods="ttest", sizes=[5], repeats=5, permutations=0,
    ...                           nested=0)
    >>> folder = tempfile.mkdtemp() + "/run"
    >>> path = result.save(folder)
    >>> again = stablefs.read_comparison(folder)
    >>> again.stability.equals(result.stability), again.reused
    (True, True)
    """
    from stablefs._runtime.rundir import names_stablefs
    from stablefs.evaluation.outputs import read_csv, read_feature_names, read_selections

    folder = Path(folder)
    info_path = folder / "run.json"
    try:
        info = json.loads(info_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StablefsError(f"{folder} holds no finished comparison (no run.json).") from None
    except (OSError, ValueError) as exc:
        raise StablefsError(f"{info_path} cannot be read ({exc}).") from None
    if not isinstance(info, dict) or not names_stablefs(info) or "config" not in info \
            or not (folder / "results.csv").is_file():
        raise StablefsError(f"{folder} does not hold a finished stablefs comparison.")

    def table(name: str) -> pd.DataFrame:
        path = folder / name
        return read_csv(path) if path.is_file() else pd.DataFrame()

    selections = read_selections(folder) if (folder / "selections.parquet").is_file() \
        else pd.DataFrame()
    return Comparison(
        results=table("results.csv"), stability=table("stability.csv"),
        frequencies=table("frequencies.csv"), selections=selections,
        comparisons=table("comparisons.csv"), baseline=table("baseline.csv"),
        permutation=table("permutation.csv"), nested=table("nested.csv"),
        signature=table("signature.csv"), run_info=info, config=info["config"],
        feature_names=read_feature_names(folder), folder=folder, reused=True)


def _escape(text) -> str:
    return html.escape(str(text))
