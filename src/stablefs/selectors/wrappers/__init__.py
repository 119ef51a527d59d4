"""Wrapper feature selection: sequential searches on a classifier's error estimate.

- :class:`SFS`, :class:`SBS`: sequential forward / backward selection (Xiao, Hua and Dougherty
  2007, App. A; SFG / SBG of Prat Masramon 2016, Algs. 2.1-2.2);
- :class:`SFFS`: sequential forward floating selection (Pudil, Novovicova and Kittler 1994);
- :class:`RSA`: remainder-set-aware search (thesis ch. 6, Alg. 6.1);
- :class:`SBGPlus`: accumulated-evidence backward search (thesis ch. 7, Alg. 7.1).

The subset criterion (:func:`make_criterion`) is an error estimate of a classification rule:
bolstered / semi-bolstered resubstitution (the criteria of Xiao, Hua and Dougherty 2007),
resubstitution, cross-validation (the thesis' inner 5x2 CV), or any callable. Every search step
evaluates all its candidates at once, incrementally (:mod:`._criteria`).
"""

from stablefs.selectors.wrappers._criteria import CRITERIA, Criterion, make_criterion
from stablefs.selectors.wrappers._search import (
    SearchResult,
    rsa_backward,
    rsa_forward,
    sbg_plus,
    sbs,
    sffs,
    sfs,
)
from stablefs.selectors.wrappers._selectors import RSA, SBS, SFFS, SFS, SBGPlus, WrapperSelector

__all__ = [
    "CRITERIA",
    "RSA",
    "SBS",
    "SFFS",
    "SFS",
    "Criterion",
    "SBGPlus",
    "SearchResult",
    "WrapperSelector",
    "make_criterion",
    "rsa_backward",
    "rsa_forward",
    "sbg_plus",
    "sbs",
    "sffs",
    "sfs",
]
