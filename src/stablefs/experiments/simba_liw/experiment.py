"""The registered experiment: the protocol (:mod:`.protocol`) with its report (:mod:`.report`).

The report imports the protocol, never the reverse; this module joins them.
"""

from __future__ import annotations

from stablefs.experiments.simba_liw.protocol import SimbaLiwProtocol
from stablefs.experiments.simba_liw.report import SimbaLiwReport

__all__ = ["SimbaLiw"]


class SimbaLiw(SimbaLiwProtocol):
    __doc__ = SimbaLiwProtocol.__doc__
    report_type = SimbaLiwReport
