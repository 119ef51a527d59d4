"""The registry of reproducible experiments: command-line name -> :class:`Experiment`."""

from __future__ import annotations

import difflib

from stablefs._errors import StablefsError
from stablefs.experiments._base import Experiment
from stablefs.experiments.han2012_microarray.experiment import Han2012Microarray
from stablefs.experiments.han2012_synthetic.experiment import Han2012Synthetic
from stablefs.experiments.li_ensembles.experiment import LiEnsembles
from stablefs.experiments.simba_liw.experiment import SimbaLiw
from stablefs.experiments.wrapper_stability.experiment import WrapperStability
from stablefs.experiments.xiao2007_cridd.experiment import Xiao2007Cridd
from stablefs.experiments.yu2008_drags.experiment import Yu2008Drags

__all__ = ["EXPERIMENTS", "get_experiment"]

#: command-line name -> experiment
EXPERIMENTS: dict[str, Experiment] = {
    e.name: e for e in (Han2012Synthetic(), Han2012Microarray(), Xiao2007Cridd(), Yu2008Drags(),
                        WrapperStability(), LiEnsembles(), SimbaLiw())
}


def get_experiment(name: str) -> Experiment:
    """The experiment registered as ``name``; an unknown name lists the close matches."""
    key = str(name).strip().lower()
    if key in EXPERIMENTS:
        return EXPERIMENTS[key]
    close = difflib.get_close_matches(key, list(EXPERIMENTS), n=3, cutoff=0.4)
    hint = (f"did you mean {', '.join(close)}?" if close
            else f"available: {', '.join(sorted(EXPERIMENTS))}.")
    raise StablefsError(f"unknown experiment {str(name)!r}: {hint} (see 'stablefs experiments')")
