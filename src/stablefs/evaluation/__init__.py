"""Resampling protocols, classifiers, the experiment runner, statistics, bias–variance and
CRIDD."""

from typing import TYPE_CHECKING

from stablefs._runtime import lazy as _lazy

# {submodule: its public names}: each submodule is imported when one of its names is first
# used (stablefs._runtime.lazy), so that the command line's checks need none of scikit-learn, SciPy
# and pandas before its first line
_EXPORTS = {
    "bias_variance": ("bias_variance", "bias_variance_path"),
    "classifiers": ("CLASSIFIERS", "evaluate_sizes", "evaluate_subset", "make_classifier"),
    "cridd": ("cridd", "cridd_summary"),
    "error_estimators": (
        "bolstered_error", "bolstering_widths", "chi_median", "cv_error", "loo_error",
        "resubstitution_error", "semi_bolstered_error",
    ),
    "preprocessing": ("Preprocessing",),
    "protocols": ("Protocol", "Resample", "stratified_subsample"),
    "runner": ("ExperimentResult", "run_experiment"),
    "statistics": (
        "COMPARISON_COLUMNS", "INTERVAL_KINDS", "ComparisonResult", "add_interval_column",
        "bootstrap_pair_interval", "compare_methods", "corrected_resampled_ttest",
        "dietterich_5x2cv_ttest", "holm", "interval_kind", "is_five_by_two", "stability_interval",
        "stability_two_sample_test", "wilcoxon_test",
    ),
}
_lazy.install(__name__, _EXPORTS)

if TYPE_CHECKING:  # the names above, for type checkers (never imported here at run time)
    from stablefs.evaluation.bias_variance import bias_variance, bias_variance_path
    from stablefs.evaluation.classifiers import (
        CLASSIFIERS,
        evaluate_sizes,
        evaluate_subset,
        make_classifier,
    )
    from stablefs.evaluation.cridd import cridd, cridd_summary
    from stablefs.evaluation.error_estimators import (
        bolstered_error,
        bolstering_widths,
        chi_median,
        cv_error,
        loo_error,
        resubstitution_error,
        semi_bolstered_error,
    )
    from stablefs.evaluation.preprocessing import Preprocessing
    from stablefs.evaluation.protocols import Protocol, Resample, stratified_subsample
    from stablefs.evaluation.runner import ExperimentResult, run_experiment
    from stablefs.evaluation.statistics import (
        COMPARISON_COLUMNS,
        INTERVAL_KINDS,
        ComparisonResult,
        add_interval_column,
        bootstrap_pair_interval,
        compare_methods,
        corrected_resampled_ttest,
        dietterich_5x2cv_ttest,
        holm,
        interval_kind,
        is_five_by_two,
        stability_interval,
        stability_two_sample_test,
        wilcoxon_test,
    )

__all__ = [
    "CLASSIFIERS",
    "COMPARISON_COLUMNS",
    "INTERVAL_KINDS",
    "ExperimentResult",
    "Preprocessing",
    "Protocol",
    "ComparisonResult",
    "Resample",
    "add_interval_column",
    "bias_variance",
    "bias_variance_path",
    "bolstered_error",
    "bolstering_widths",
    "bootstrap_pair_interval",
    "chi_median",
    "compare_methods",
    "corrected_resampled_ttest",
    "cridd",
    "cridd_summary",
    "cv_error",
    "dietterich_5x2cv_ttest",
    "evaluate_sizes",
    "evaluate_subset",
    "holm",
    "interval_kind",
    "is_five_by_two",
    "loo_error",
    "make_classifier",
    "resubstitution_error",
    "run_experiment",
    "semi_bolstered_error",
    "stability_interval",
    "stability_two_sample_test",
    "stratified_subsample",
    "wilcoxon_test",
]
