"""The registered experiment: the protocol (:mod:`.protocol`) with its report (:mod:`.report`).

The report imports the protocol, never the reverse; this module joins them.
"""

from __future__ import annotations

from stablefs.experiments.yu2008_drags.protocol import Yu2008DragsProtocol
from stablefs.experiments.yu2008_drags.report import Yu2008Report

__all__ = ["Yu2008Drags"]


class Yu2008Drags(Yu2008DragsProtocol):
    __doc__ = Yu2008DragsProtocol.__doc__
    report_type = Yu2008Report
