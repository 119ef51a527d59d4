"""The registered experiment: the protocol (:mod:`.protocol`) with its report (:mod:`.report`).

The report imports the protocol, never the reverse; this module joins them.
"""

from __future__ import annotations

from stablefs.experiments.han2012_synthetic.protocol import Han2012SyntheticProtocol
from stablefs.experiments.han2012_synthetic.report import Han2012SyntheticReport

__all__ = ["Han2012Synthetic"]


class Han2012Synthetic(Han2012SyntheticProtocol):
    __doc__ = Han2012SyntheticProtocol.__doc__
    report_type = Han2012SyntheticReport
