"""The registered experiment: the protocol (:mod:`.protocol`) with its report (:mod:`.report`).

The report imports the protocol, never the reverse; this module joins them.
"""

from __future__ import annotations

from stablefs.experiments.han2012_microarray.protocol import Han2012MicroarrayProtocol
from stablefs.experiments.han2012_microarray.report import Han2012MicroarrayReport

__all__ = ["Han2012Microarray"]


class Han2012Microarray(Han2012MicroarrayProtocol):
    __doc__ = Han2012MicroarrayProtocol.__doc__
    report_type = Han2012MicroarrayReport
