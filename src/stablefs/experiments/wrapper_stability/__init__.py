"""Prat Masramon 2016, ch. 6-7: remainder-set-aware and accumulated-evidence wrappers

The experiment's protocol (configuration, Monte-Carlo units, tables and claims) is
:mod:`.protocol`, its report (figures, notes, the paper's numbers beside ours) :mod:`.report`,
and :mod:`.experiment` joins them as the experiment that ``stablefs reproduce`` runs.
"""
