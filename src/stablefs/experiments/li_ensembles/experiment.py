"""The registered experiment: the protocol (:mod:`.protocol`) with its report (:mod:`.report`).

The report imports the protocol, never the reverse; this module joins them.
"""

from __future__ import annotations

from stablefs.experiments.li_ensembles.protocol import LiEnsemblesProtocol
from stablefs.experiments.li_ensembles.report import LiEnsemblesReport

__all__ = ["LiEnsembles"]


class LiEnsembles(LiEnsemblesProtocol):
    __doc__ = LiEnsemblesProtocol.__doc__
    report_type = LiEnsemblesReport
