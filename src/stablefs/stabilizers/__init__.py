"""Meta-selectors that make any selector more stable (``docs/DESIGN.md``, "Stabilizers").

- :class:`MarginInstanceWeighting` and :func:`margin_instance_weights`: margin-based instance
  weighting (Han 2012, ch. 4);
- :class:`LogisticInstanceWeighting` and :func:`logistic_instance_weights`: logistic instance
  weighting (Prat Masramon 2016, sec. 8.2);
- :class:`ResampledInstanceWeighting`: the same weights for selectors without
  ``sample_weight``, by weighted resampling (Prat Masramon 2016, Alg. 8.3);
- :class:`Ensemble`: bagging / subsampling ensembles with rank, weight or frequency
  aggregation (Han 2012, sec. 5.2.3; Li et al. 2013);
- :class:`StabilitySelection`: stability selection (Meinshausen and Bühlmann 2010) with
  complementary pairs (Shah and Samworth 2013).
"""

from stablefs.stabilizers.ensemble import Ensemble
from stablefs.stabilizers.logistic import (
    LogisticInstanceWeighting,
    logistic_instance_weights,
    relief_margins,
)
from stablefs.stabilizers.margin import (
    MarginInstanceWeighting,
    distance_weighted_margin_vectors,
    margin_instance_weights,
    margin_vectors,
)
from stablefs.stabilizers.resampled import ResampledInstanceWeighting
from stablefs.stabilizers.stability_selection import StabilitySelection

__all__ = [
    "Ensemble", "LogisticInstanceWeighting", "MarginInstanceWeighting", "logistic_instance_weights",
    "margin_instance_weights", "margin_vectors", "relief_margins",
    "distance_weighted_margin_vectors", "ResampledInstanceWeighting", "StabilitySelection",
]
