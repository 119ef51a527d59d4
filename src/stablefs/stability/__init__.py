"""Stability measures and selection-frequency / consensus tools (``docs/DESIGN.md``).

Input forms accepted by every subset measure: a sequence of index collections (with
``n_features`` = p where the measure needs it), a boolean matrix (m × p), or collections of
feature names with ``feature_names=`` (the p column names, in order); see
:mod:`stablefs.stability._inputs`. Pairwise measures average over all pairs (Han 2012,
eq. 5.4) unless given ``reference=`` (Yu, Ding and Loscalzo 2008, eq. 7).
Rankings and weight vectors are (m × p) matrices: every row must cover the same p features.

Subset measures
    :func:`kuncheva`, :func:`jaccard`, :func:`dice`, :func:`hamming`, :func:`ochiai`,
    :func:`lustgarten`, :func:`phi`, :func:`kappa`, :func:`wald`, :func:`unadjusted`,
    :func:`nogueira` (+ :func:`nogueira_ci`, :func:`nogueira_variance`,
    :func:`nogueira_test`, :func:`nogueira_two_sample_test`), :func:`somol`
    (:func:`somol_c`, :func:`somol_cw`, :func:`somol_cw_rel`), :func:`krizek`,
    :func:`davis`, :func:`novovicova`.
Similarity-adjusted (need X)
    :func:`npogr`, :func:`zucknick`, :func:`intersection_count`, :func:`sechidis`.
Groups
    :func:`matching_similarity`, :func:`matching_stability`.
Rankings and weights
    :func:`spearman`, :func:`kendall`, :func:`pearson`, :func:`weight_variance`,
    :func:`f_measure`.
Tools
    :func:`selection_frequency`, :func:`consensus` (frequency > :data:`CONSENSUS_THRESHOLD`,
    strictly; :func:`in_consensus`), :func:`frequency_intervals`,
    :func:`frequency_curve`, :func:`stability_curve`, :func:`similarity_matrix`,
    :func:`top_k_subsets`, :func:`subsets_from_cv_results`.
Registry
    :data:`MEASURES`, :func:`available_measures`, :func:`measure_interval`.

This package never imports :mod:`stablefs.selectors` (measures are independent of how the
subsets were produced).
"""

from typing import TYPE_CHECKING

from stablefs._runtime import lazy as _lazy

# {submodule: its public names}: each submodule is imported when one of its names is first
# used (stablefs._runtime.lazy), so that the command line's checks need none of scikit-learn, SciPy
# and pandas before its first line
_EXPORTS = {
    "_inputs": ("subsets_from_cv_results", "top_k_subsets"),
    "_registry": (
        "MEASURES", "Measure", "available_measures", "measure_bounds", "measure_interval",
        "measure_pair_scores",
    ),
    "correlated": ("intersection_count", "npogr", "sechidis", "zucknick"),
    "curves": ("stability_curve",),
    "frequency": (
        "CONSENSUS_THRESHOLD", "consensus", "frequency_curve", "frequency_intervals",
        "in_consensus", "selection_frequency",
    ),
    "matching": ("matching_similarity", "matching_stability"),
    "nogueira": (
        "NogueiraTest", "nogueira", "nogueira_ci", "nogueira_test", "nogueira_two_sample_test",
        "nogueira_variance",
    ),
    "rankings": ("f_measure", "kendall", "pearson", "spearman", "weight_variance"),
    "somol": ("davis", "krizek", "novovicova", "somol", "somol_c", "somol_cw", "somol_cw_rel"),
    "subsets": (
        "dice", "hamming", "jaccard", "kappa", "kuncheva", "lustgarten", "ochiai", "phi",
        "similarity_matrix", "unadjusted", "wald",
    ),
}
_lazy.install(__name__, _EXPORTS)

if TYPE_CHECKING:  # the names above, for type checkers (never imported here at run time)
    from stablefs.stability._inputs import subsets_from_cv_results, top_k_subsets
    from stablefs.stability._registry import (
        MEASURES,
        Measure,
        available_measures,
        measure_bounds,
        measure_interval,
        measure_pair_scores,
    )
    from stablefs.stability.correlated import intersection_count, npogr, sechidis, zucknick
    from stablefs.stability.curves import stability_curve
    from stablefs.stability.frequency import (
        CONSENSUS_THRESHOLD,
        consensus,
        frequency_curve,
        frequency_intervals,
        in_consensus,
        selection_frequency,
    )
    from stablefs.stability.matching import matching_similarity, matching_stability
    from stablefs.stability.nogueira import (
        NogueiraTest,
        nogueira,
        nogueira_ci,
        nogueira_test,
        nogueira_two_sample_test,
        nogueira_variance,
    )
    from stablefs.stability.rankings import f_measure, kendall, pearson, spearman, weight_variance
    from stablefs.stability.somol import (
        davis,
        krizek,
        novovicova,
        somol,
        somol_c,
        somol_cw,
        somol_cw_rel,
    )
    from stablefs.stability.subsets import (
        dice,
        hamming,
        jaccard,
        kappa,
        kuncheva,
        lustgarten,
        ochiai,
        phi,
        similarity_matrix,
        unadjusted,
        wald,
    )

__all__ = [
    "CONSENSUS_THRESHOLD",
    "MEASURES",
    "Measure",
    "NogueiraTest",
    "available_measures",
    "consensus",
    "davis",
    "dice",
    "f_measure",
    "frequency_curve",
    "frequency_intervals",
    "hamming",
    "in_consensus",
    "intersection_count",
    "jaccard",
    "kappa",
    "kendall",
    "krizek",
    "kuncheva",
    "lustgarten",
    "matching_similarity",
    "matching_stability",
    "measure_bounds",
    "measure_interval",
    "measure_pair_scores",
    "nogueira",
    "nogueira_ci",
    "nogueira_test",
    "nogueira_two_sample_test",
    "nogueira_variance",
    "novovicova",
    "npogr",
    "ochiai",
    "pearson",
    "phi",
    "sechidis",
    "selection_frequency",
    "similarity_matrix",
    "somol",
    "somol_c",
    "somol_cw",
    "somol_cw_rel",
    "spearman",
    "stability_curve",
    "subsets_from_cv_results",
    "top_k_subsets",
    "unadjusted",
    "wald",
    "weight_variance",
    "zucknick",
]
