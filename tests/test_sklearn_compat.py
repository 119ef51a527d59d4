"""scikit-learn's estimator checks on the selectors and stabilizers of this package."""

from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from stablefs.selectors import (
    DGF,
    DRAGS,
    RSA,
    SBS,
    SFFS,
    SFS,
    SVMRFE,
    DReliefF,
    FStatistic,
    InfoGain,
    KMeansGroups,
    LogisticMarginWeighting,
    OneR,
    PDReliefF,
    RandomForestImportance,
    Relief,
    ReliefF,
    SBGPlus,
    Simba,
    TTest,
)
from stablefs.stabilizers import (
    Ensemble,
    LogisticInstanceWeighting,
    MarginInstanceWeighting,
    ResampledInstanceWeighting,
)

_NOT_REPETITION = (
    "sample_weight are normalised instance weights (seed 000 eq. 5.3), not repetition counts: "
    "the copies of a repeated sample are each other's nearest neighbours (distance 0), which "
    "changes ReliefF's neighbour sets, while a weight does not (zero weights do equal removal; "
    "tested in "
    "test_relieff.py)"
)

_EXPECTED_FAILURES = {
    "ReliefF": {"check_sample_weight_equivalence_on_dense_data": _NOT_REPETITION},
    "MarginInstanceWeighting": {
        "check_sample_weight_equivalence_on_dense_data": (
            "repeating a sample changes its margin vector and everyone's mean margin distance "
            "(seed 000 eqs. 4.2, 4.6), and the inner ReliefF reads weights as instance "
            "weights: " + _NOT_REPETITION
        )
    },
    "Relief": {"check_sample_weight_equivalence_on_dense_data": _NOT_REPETITION},
    "DReliefF": {"check_sample_weight_equivalence_on_dense_data": _NOT_REPETITION},
    "PDReliefF": {"check_sample_weight_equivalence_on_dense_data": _NOT_REPETITION},
    "Simba": {
        "check_sample_weight_equivalence_on_dense_data": (
            "sample_weight are Alg. 8.1's instance weights (they scale updates and the draw), "
            "not repetition counts: a repeated sample is its copy's nearest neighbour at "
            "distance 0 and is visited twice (zero weights do equal removal; tested in "
            "test_simba.py)"
        )
    },
    "LogisticInstanceWeighting": {
        "check_sample_weight_equivalence_on_dense_data": (
            "a repeated sample is its copy's nearest hit, which changes its Relief margin and "
            "the margins' mean and deviation (Prat Masramon 2016 eq. 8.2); the inner ReliefF: "
            + _NOT_REPETITION
        )
    },
    "LogisticMarginWeighting": {
        "check_sample_weight_equivalence_on_dense_data": (
            "a repeated sample is its copy's nearest hit at distance 0, which changes its "
            "margin vector (Li et al. 2013 eq. 1); zero weights do equal removal (tested in "
            "test_logistic_margin.py)"
        )
    },
    "InfoGain": {
        "check_sample_weight_equivalence_on_dense_data": (
            "the discretisation (MDL cut points or quantiles) is computed on the samples of "
            "positive weight, unweighted; weights enter only the frequencies (zero weights do "
            "equal removal; tested in test_filters.py)"
        )
    },
    "OneR": {
        "check_sample_weight_equivalence_on_dense_data": (
            "the discretisation is computed on the samples of positive weight, unweighted; "
            "weights enter only the frequencies (tested in test_filters.py)"
        )
    },
    "RandomForestImportance": {
        "check_sample_weight_equivalence_on_dense_data": (
            "a forest's bootstraps draw a repeated sample and a weighted one differently, so "
            "the trees and their importances differ"
        )
    },
    "ResampledInstanceWeighting": {
        "check_sample_weight_equivalence_on_dense_data": (
            "the weights are drawn from (Alg. 8.3), so a repeated sample and a weighted one "
            "give different bags; zero weights do equal removal (tested in "
            "test_resampled_iw.py)"
        )
    },
    "SVMRFE": {
        "check_sample_weight_equivalence_on_dense_data": (
            "instance weights are rescaled to mean 1 (Han 2012 eq. 5.2, so that equal weights "
            "are plain SVM-RFE): weight 2 on one of n samples becomes a penalty 2n/(n+1) C, "
            "while a repeated sample keeps C twice; zero weights do equal removal (tested in "
            "test_svm_rfe.py)"
        )
    },
    "Ensemble": {
        "check_sample_weight_equivalence_on_dense_data": (
            "resamples are drawn from the samples, so a repeated sample is drawn more often "
            "than a weighted one; weights are passed to the members, not used for drawing"
        )
    },
}


def _expected_failed_checks(estimator):
    return _EXPECTED_FAILURES.get(type(estimator).__name__, {})


@parametrize_with_checks(
    [
        TTest(),
        FStatistic(),
        ReliefF(),
        MarginInstanceWeighting(ReliefF()),
        Ensemble(TTest(), n_estimators=3),
        SVMRFE(),
        SFS(),
        SBS(),
        SFFS(max_features=3),
        RSA(max_features=3),
        SBGPlus(),
        DGF(n_neighbors=2),  # the checks' data have as few as 2 features
        DRAGS(n_neighbors=2),
        KMeansGroups(n_clusters=2, n_init=2, random_state=0),
        Relief(),
        DReliefF(random_state=0),
        PDReliefF(random_state=0),
        Simba(random_state=0),
        Simba(instance_weighting="logistic", delta=True, random_state=0),
        LogisticInstanceWeighting(ReliefF()),
        LogisticMarginWeighting(),
        InfoGain(),
        OneR(),
        RandomForestImportance(n_estimators=10, random_state=0),
        ResampledInstanceWeighting(TTest(), random_state=0),
    ],
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
