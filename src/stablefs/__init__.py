"""stablefs: stable feature selection for high-dimensional, small-sample data.

The main job is :func:`compare`: every method on the same resamples of the data, stability and
accuracy side by side, a recommended (method, k) with its checks. The package follows the data
flow of ``docs/DESIGN.md``: :mod:`stablefs.datasets` → :mod:`stablefs.selectors` (optionally
wrapped by :mod:`stablefs.stabilizers`) → :mod:`stablefs.evaluation` →
:mod:`stablefs.stability` → :mod:`stablefs.report`, composed by :mod:`stablefs.comparison`
and the command line (:mod:`stablefs.cli`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stablefs._errors import StablefsError

if TYPE_CHECKING:  # the lazily loaded names, for type checkers
    from stablefs.comparison._anndata import annotate
    from stablefs.comparison._compare import compare
    from stablefs.comparison._result import Comparison, read_comparison
    from stablefs.datasets._load import load
    from stablefs.selectors._base import BaseSelector


def make_selector(spec: str, **overrides: Any) -> BaseSelector:
    """Build a selector from a method string such as ``"en-relieff(n_neighbors=5)"``.

    See :func:`stablefs.methods.make_selector` for the grammar and the checks, and
    ``stablefs methods`` for the names.

    Parameters
    ----------
    spec : str
        A method string: a base method (``"relieff"``), prefixes that wrap it in stabilizers
        (``"iw-"``, ``"liw-"``, ``"en-"``, ``"wen-"``, ``"ren-"``, ...) and parameters in
        parentheses (``"en-svm-rfe(n_estimators=40)"``).
    **overrides
        Parameters applied to every object of the chain that has them (``random_state``,
        ``n_jobs``, ...).

    Returns
    -------
    selector : BaseEstimator
        Unfitted, a scikit-learn estimator with ``fit``, ``ranking_``, ``scores_`` and
        ``support_``.

    Raises
    ------
    StablefsError
        An unknown method or parameter, or a value the parameter refuses, in one line.

    References
    ----------
    .. [1] L. Buitinck et al., "API design for machine learning software: experiences from
       the scikit-learn project", ECML PKDD Workshop on Languages for Data Mining and
       Machine Learning, 108–122, 2013.

    Examples
    --------
    Margin-based instance weighting around ReliefF (Han 2012, ch. 4):

    >>> import stablefs
    >>> selector = stablefs.make_selector("iw-relieff(n_neighbors=5)")
    >>> type(selector).__name__, type(selector.selector).__name__, selector.selector.n_neighbors
    ('MarginInstanceWeighting', 'ReliefF', 5)
    >>> from stablefs.datasets import make_han2012
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> print(*selector.set_params(n_features_to_select=5).fit(data.X, data.y)
    ...       .get_support(indices=True))
    0 1 6 7 8
    """
    from stablefs.methods import make_selector as _make

    return _make(spec, **overrides)


_LAZY = {
    "compare": "stablefs.comparison._compare",
    "Comparison": "stablefs.comparison._result",
    "read_comparison": "stablefs.comparison._result",
    "annotate": "stablefs.comparison._anndata",
    "load": "stablefs.datasets._load",
}


def __getattr__(name: str):
    """``stablefs.__version__`` and the API's names, loaded on first use (so that the command
    line does not import pandas and scikit-learn before its first line)."""
    if name == "__version__":
        from stablefs._version import __version__

        return __version__
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'stablefs' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = ["Comparison", "StablefsError", "__version__", "annotate", "compare", "load",
           "make_selector", "read_comparison"]
