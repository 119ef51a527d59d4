"""Resampling protocols, classifiers, the experiment runner, bias–variance and CRIDD."""

from stablefs.evaluation.bias_variance import bias_variance, bias_variance_path
from stablefs.evaluation.classifiers import CLASSIFIERS, evaluate_subset, make_classifier
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
from stablefs.evaluation.protocols import Protocol, Resample, stratified_subsample
from stablefs.evaluation.runner import ExperimentResult, run_experiment

__all__ = [
    "CLASSIFIERS",
    "ExperimentResult",
    "Protocol",
    "Resample",
    "bias_variance",
    "bias_variance_path",
    "bolstered_error",
    "bolstering_widths",
    "chi_median",
    "cridd",
    "cridd_summary",
    "cv_error",
    "evaluate_subset",
    "loo_error",
    "make_classifier",
    "resubstitution_error",
    "run_experiment",
    "semi_bolstered_error",
    "stratified_subsample",
]
