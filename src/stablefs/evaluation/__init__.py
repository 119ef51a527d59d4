"""Resampling protocols, classifiers, the experiment runner, bias–variance and CRIDD."""

from stablefs.evaluation.bias_variance import bias_variance, bias_variance_path
from stablefs.evaluation.classifiers import CLASSIFIERS, evaluate_subset, make_classifier
from stablefs.evaluation.protocols import Protocol, Resample, stratified_subsample
from stablefs.evaluation.runner import ExperimentResult, run_experiment

__all__ = [
    "CLASSIFIERS",
    "ExperimentResult",
    "Protocol",
    "Resample",
    "bias_variance",
    "bias_variance_path",
    "evaluate_subset",
    "make_classifier",
    "run_experiment",
    "stratified_subsample",
]
