"""The registered experiment: the protocol (:mod:`.protocol`) with its report (:mod:`.report`).

The report imports the protocol, never the reverse; this module joins them.
"""

from __future__ import annotations

from stablefs.experiments.wrapper_stability.protocol import WrapperStabilityProtocol
from stablefs.experiments.wrapper_stability.report import WrapperStabilityReport

__all__ = ["WrapperStability"]


class WrapperStability(WrapperStabilityProtocol):
    __doc__ = WrapperStabilityProtocol.__doc__
    report_type = WrapperStabilityReport
