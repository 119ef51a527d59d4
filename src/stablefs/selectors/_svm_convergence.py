"""libsvm's limit on the iterations of one SVM solve, and the error when a solve reaches it.

libsvm's solver (Chang and Lin 2011, ``svm.cpp``) stops after ``max(10^7, 100 l)`` iterations
for ``l`` points and warns. scikit-learn's :class:`~sklearn.svm.SVC` lifts the limit by default
(``max_iter=-1``), so a linear SVM with ``C = 1`` on features of a large scale, such as raw
microarray intensities in the thousands, can run for seconds per solve: the stopping rule is
an absolute tolerance (1e-3) on the dual gradient, and the kernel grows with the square of the
features' scale (on Colon's raw intensities one feature takes scikit-learn's SVC 30-170 million
iterations, 2-10 s). A wrapper search makes thousands of solves (an SFS of 5 from Colon's 2000
genes about 10,000), so it would run for hours. The SVM rules of the wrapper criteria keep
libsvm's own limit and stop the search with an error that names the cure; below the limit
nothing changes (the solutions stay those of :class:`~sklearn.svm.SVC`, the iteration counts
its ``n_iter_``). A single SVM design (the error estimators, each fit of SVM-RFE's path) runs
to convergence as ``SVC`` does.
"""

from __future__ import annotations

import numpy as np

from stablefs._errors import StablefsError


def libsvm_max_iter(n_points: int) -> int:
    """libsvm's limit on the SMO iterations of one solve over ``n_points`` points:
    ``max(10^7, 100 n_points)`` (``svm.cpp``, ``Solver::Solve``)."""
    return max(10_000_000, 100 * int(n_points))


def not_converged(X: np.ndarray, C: float) -> StablefsError:
    """The one-line error for a wrapper's linear SVM on ``X`` (samples x features of the
    solve) that reached :func:`libsvm_max_iter` without meeting libsvm's stopping rule."""
    n, p = X.shape
    largest = float(np.max(np.abs(X))) if X.size else 0.0
    return StablefsError(
        f"the linear SVM (C = {C:g}) of the wrapper criterion did not converge within "
        f"libsvm's limit of {libsvm_max_iter(n):,} SMO iterations on {n} samples and {p} "
        f"feature(s) with values up to {largest:.3g}: the features need a smaller scale; "
        "log-transform the data (--log2 on the command line) or standardise the features, "
        "or choose estimator='lda' or '3nn'."
    )
