"""The versions a run records in ``run.json``: stablefs, Python and the numerical stack."""

from __future__ import annotations

import sys


def stablefs_version() -> str:
    """The installed stablefs version (:mod:`stablefs._version`)."""
    from stablefs._version import __version__

    return __version__


def package_versions() -> dict[str, str]:
    """stablefs, Python, NumPy, SciPy, scikit-learn, pandas and joblib, by name."""
    import joblib
    import numpy
    import pandas
    import scipy
    import sklearn

    return {"stablefs": stablefs_version(), "python": sys.version.split()[0],
            "numpy": numpy.__version__, "scipy": scipy.__version__,
            "scikit-learn": sklearn.__version__, "pandas": pandas.__version__,
            "joblib": joblib.__version__}
