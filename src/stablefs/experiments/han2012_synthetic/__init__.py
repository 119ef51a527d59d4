"""Han 2012, ch. 6: SVM-RFE and IW SVM-RFE on synthetic data (``reproduce han2012-synthetic``).

The experiment's protocol (configuration, Monte-Carlo units, tables and claims) is
:mod:`.protocol`, its report (figures, notes, the paper's numbers beside ours) :mod:`.report`,
and :mod:`.experiment` joins them as the experiment that ``stablefs reproduce`` runs.
"""
