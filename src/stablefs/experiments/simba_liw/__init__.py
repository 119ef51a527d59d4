"""Prat Masramon 2016, sec. 8.4.1: Simba against SimbaLIW and SimbaMIW on synthetic

The experiment's protocol (configuration, Monte-Carlo units, tables and claims) is
:mod:`.protocol`, its report (figures, notes, the paper's numbers beside ours) :mod:`.report`,
and :mod:`.experiment` joins them as the experiment that ``stablefs reproduce`` runs.
"""
