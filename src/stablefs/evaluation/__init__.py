"""Resampling protocols, classifiers, the experiment runner, statistics, bias–variance and
CRIDD."""

from stablefs.evaluation.bias_variance import bias_variance, bias_variance_path
from stablefs.evaluation.cridd import cridd, cridd_summary

# The other submodules are imported on first use of one of their names (PEP 562): the CLI reads the
# protocol before scikit-learn, SciPy and pandas are imported.
_LAZY = {
    "CLASSIFIERS": "classifiers",
    "evaluate_subset": "classifiers",
    "make_classifier": "classifiers",
    "bolstered_error": "error_estimators",
    "bolstering_widths": "error_estimators",
    "chi_median": "error_estimators",
    "cv_error": "error_estimators",
    "loo_error": "error_estimators",
    "resubstitution_error": "error_estimators",
    "semi_bolstered_error": "error_estimators",
    "Preprocessing": "preprocessing",
    "Protocol": "protocols",
    "Resample": "protocols",
    "stratified_subsample": "protocols",
    "ExperimentResult": "runner",
    "run_experiment": "runner",
    "COMPARISON_COLUMNS": "statistics",
    "INTERVAL_KINDS": "statistics",
    "ComparisonResult": "statistics",
    "add_interval_column": "statistics",
    "bootstrap_pair_interval": "statistics",
    "compare_methods": "statistics",
    "corrected_resampled_ttest": "statistics",
    "dietterich_5x2cv_ttest": "statistics",
    "holm": "statistics",
    "interval_kind": "statistics",
    "is_five_by_two": "statistics",
    "stability_interval": "statistics",
    "stability_two_sample_test": "statistics",
    "wilcoxon_test": "statistics",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))

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
