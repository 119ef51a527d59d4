"""Yu, Ding and Loscalzo 2008, sec. 6: dense feature groups on six microarray sets

The experiment's protocol (configuration, Monte-Carlo units, tables and claims) is
:mod:`.protocol`, its report (figures, notes, the paper's numbers beside ours) :mod:`.report`,
and :mod:`.experiment` joins them as the experiment that ``stablefs reproduce`` runs.
"""
