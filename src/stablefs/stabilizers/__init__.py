"""Meta-selectors that make any selector more stable (``docs/DESIGN.md``, "Stabilizers").

- :class:`MarginInstanceWeighting` and :func:`margin_instance_weights`: margin-based instance
  weighting (seed 000 ch. 4);
- :class:`Ensemble`: bagging / subsampling ensembles with rank, weight or frequency
  aggregation (seed 000 sec. 5.2.3, seed 003).
"""

from stablefs.stabilizers.ensemble import Ensemble
from stablefs.stabilizers.margin import (
    MarginInstanceWeighting,
    margin_instance_weights,
    margin_vectors,
)

__all__ = ["Ensemble", "MarginInstanceWeighting", "margin_instance_weights", "margin_vectors"]
