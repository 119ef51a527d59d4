"""The methods of ``stablefs reproduce han2012-synthetic`` as Han (2012, ch. 6) runs them:
SVM-RFE and IW SVM-RFE (and the literal reading of eq. 5.2 with its control), followed stage
by stage through the elimination (:func:`rfe_stages`), and the linear SVM that scores their
subsets on the test set (:func:`linear_svm_accuracy`).

The protocol (configuration, Monte-Carlo units, tables, claims) is in
:mod:`stablefs.experiments.han2012_synthetic.protocol`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["IW", "METHODS", "PLAIN", "PRINTED", "SMALL_C", "linear_svm_accuracy", "rfe_stages"]

#: the methods this experiment can run: config name -> label in tables and figures.
#: "iw-svm-rfe-printed" and "svm-rfe-small-c" are the paper's literal weights and their
#: control (see :class:`~stablefs.experiments.han2012_synthetic.protocol.Han2012Config`,
#: ``methods``).
METHODS = {
    "svm-rfe": "SVM-RFE",
    "iw-svm-rfe": "IW SVM-RFE",
    "iw-svm-rfe-printed": "IW SVM-RFE (weights sum to 1)",
    "svm-rfe-small-c": "SVM-RFE (C/n)",
}
PLAIN, IW, PRINTED, SMALL_C = METHODS


def linear_svm_accuracy(X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray,
                        y_test: np.ndarray, subsets: np.ndarray, C: float = 1.0) -> np.ndarray:
    """Test accuracy of a linear SVM trained on each feature subset.

    The classifier is :func:`stablefs.evaluation.classifiers.make_classifier` ``("svm")``:
    features min–max scaled on the training data (as Weka's SMO, which Han 2012 used) and
    ``SVC(kernel="linear", C=1)``. Its decision function on the test set is computed as
    one matrix product, ``X_test @ (w / span) + (b − Σ_j lo_j w_j / span_j)``, instead of
    scaling a copy of the 5000-sample test set per subset: the same predictions.

    Parameters
    ----------
    X_train, y_train, X_test, y_test : ndarray
    subsets : bool ndarray of shape (n_subsets, p)
    C : float

    Returns
    -------
    ndarray of shape (n_subsets,)
    """
    from sklearn.svm import SVC

    lo = X_train.min(axis=0)
    span = X_train.max(axis=0) - lo
    span[span == 0] = 1.0  # as MinMaxScaler: a constant feature is shifted, not divided
    Xs = (X_train - lo) / span
    V = np.zeros((X_train.shape[1], len(subsets)))
    b = np.empty(len(subsets))
    classes = None
    for t, mask in enumerate(subsets):
        idx = np.flatnonzero(mask)
        svc = SVC(kernel="linear", C=C).fit(Xs[:, idx], y_train)
        classes = svc.classes_
        w = svc.coef_[0] / span[idx]
        V[idx, t] = w
        b[t] = svc.intercept_[0] - lo[idx] @ w
    decision = X_test @ V + b
    pred = np.where(decision > 0, classes[1], classes[0])
    return (pred == y_test[:, None]).mean(axis=0)


def rfe_stages(method: str, X: np.ndarray, y: np.ndarray, k: int, *, step: float = 0.1,
               C: float = 1.0):
    """The RFE stages of one method, from all features down to ``k``.

    The same computation as :class:`~stablefs.selectors.SVMRFE` (and, for the IW versions,
    :class:`~stablefs.stabilizers.MarginInstanceWeighting` around it), read directly from
    :func:`stablefs.selectors.svm_rfe.svm_rfe_path` so that elimination stops at ``k``
    instead of going on to one feature (the selector ranks every feature; the figures need
    only the stages down to ``k``, which halves the cost at n = 1000).

    Parameters
    ----------
    method : {"svm-rfe", "iw-svm-rfe", "iw-svm-rfe-printed", "svm-rfe-small-c"}
        See :data:`METHODS`.
    X, y : ndarray
        The training set.
    k : int
        The last stage (the schedule never jumps over it).
    step, C : float
        RFE's share of features removed per iteration and the SVM penalty (``C / n`` for the
        printed-weights version and its control).

    Yields
    ------
    remaining : ndarray of int
        The features the SVM of this stage was trained on.
    weights : ndarray of float
        Their normalised weights |w_j| / Σ|w| (Han 2012 sec. 6.1), as ``SVMRFE.weight_path_``.
    """
    from stablefs.selectors.svm_rfe import svm_rfe_path
    from stablefs.stabilizers import margin_instance_weights

    if method in (PRINTED, SMALL_C):
        C = C / X.shape[0]
    weights = margin_instance_weights(X, y) if method in (IW, PRINTED) else None
    for fit in svm_rfe_path(X, y, weights, step=step, n_features_to_select=k, C=C):
        m = fit.remaining.size
        size = np.sqrt(np.einsum("cj,cj->j", fit.coef, fit.coef))
        total = size.sum()
        yield fit.remaining, (size / total if total > 0 else np.full(m, 1.0 / m))
        if m <= k:
            return
