"""The registered experiment: the protocol (:mod:`.protocol`) with its report (:mod:`.report`).

The report imports the protocol, never the reverse; this module joins them.
"""

from __future__ import annotations

from stablefs.experiments.xiao2007_cridd.protocol import Xiao2007CriddProtocol
from stablefs.experiments.xiao2007_cridd.report import Xiao2007CriddReport

__all__ = ["Xiao2007Cridd"]


class Xiao2007Cridd(Xiao2007CriddProtocol):
    __doc__ = Xiao2007CriddProtocol.__doc__
    report_type = Xiao2007CriddReport
