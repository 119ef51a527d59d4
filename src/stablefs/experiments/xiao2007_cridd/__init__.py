"""Xiao, Hua and Dougherty 2007: CRIDD on the synthetic models (``reproduce xiao2007-cridd``).

The experiment's protocol (configuration, Monte-Carlo units, tables and claims) is
:mod:`.protocol`, its report (figures, notes, the paper's numbers beside ours) :mod:`.report`,
and :mod:`.experiment` joins them as the experiment that ``stablefs reproduce`` runs.
"""
