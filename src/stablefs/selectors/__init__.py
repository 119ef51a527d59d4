"""Feature weighting / selection algorithms, one family per module.

Every selector is a scikit-learn estimator (``BaseEstimator`` + ``SelectorMixin``) whose ``fit``
sets ``scores_``, ``ranking_`` and ``support_`` (``docs/DESIGN.md``, "Selectors").
"""

from stablefs.selectors._base import BaseSelector
from stablefs.selectors.dense_groups import DGF, DRAGS
from stablefs.selectors.filters import InfoGain, OneR, RandomForestImportance
from stablefs.selectors.kmeans_groups import KMeansGroups
from stablefs.selectors.logistic_margin import LogisticMarginWeighting, logistic_margin_weights
from stablefs.selectors.penalized_logistic import ElasticNetLogistic, L1Logistic
from stablefs.selectors.relief import DReliefF, PDReliefF, Relief, relief_scores
from stablefs.selectors.relieff import ReliefF, relieff_scores
from stablefs.selectors.simba import Simba, simba_weights
from stablefs.selectors.svm_rfe import SVMRFE
from stablefs.selectors.univariate import FStatistic, TTest, anova_f, welch_t
from stablefs.selectors.wrappers import RSA, SBS, SFFS, SFS, SBGPlus

__all__ = [
    "SVMRFE", "BaseSelector", "FStatistic", "ReliefF", "TTest", "anova_f", "relieff_scores",
    "welch_t", "Relief", "relief_scores", "DReliefF", "PDReliefF", "Simba", "simba_weights",
    "RSA", "SBS", "SFFS", "SFS", "SBGPlus", "DGF", "DRAGS", "KMeansGroups",
    "LogisticMarginWeighting", "logistic_margin_weights", "InfoGain", "OneR",
    "RandomForestImportance", "L1Logistic", "ElasticNetLogistic",
]
