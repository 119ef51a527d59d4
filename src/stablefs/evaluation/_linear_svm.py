"""The built-in linear SVM classifier (C = 1) through libsvm's entry points, called as
scikit-learn's ``SVC`` calls them.

The evaluation fits an SVM on a few tens of samples and features tens of thousands of times
(every k of every resample of every method; 45 per permutation of the README's comparison).
``SVC``'s per-call input checks are most of such a fit: 1.8 ms against 0.23 ms for the same
libsvm calls (40 x 30 training part). :func:`fit_predict` makes those calls itself, with the
arguments ``SVC(kernel="linear", C=1.0)`` passes (``fit``, ``predict``, and
``decision_function`` with its one-vs-rest shape), so the predictions and scores are the same
bits; ``tests/test_linear_svm.py`` checks them against ``SVC``. When scikit-learn's private
module ``sklearn.svm._libsvm`` is missing or refuses the call (another version), or the call is
one ``SVC`` would refuse (fewer than two classes, non-finite coefficients), it returns ``None``
and the caller uses ``SVC``.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["fit_predict"]

#: whether the direct calls work with this scikit-learn (False after the first refusal)
_available = True


@functools.lru_cache(maxsize=1)
def _parameters() -> dict:
    """The libsvm parameters of ``SVC(kernel="linear", C=1.0)``, read from an instance."""
    from sklearn.svm import SVC

    svc = SVC(kernel="linear", C=1.0)
    return {"C": float(svc.C), "nu": float(svc.nu), "epsilon": float(svc.epsilon),
            "degree": int(svc.degree), "shrinking": bool(svc.shrinking), "tol": float(svc.tol),
            "cache_size": float(svc.cache_size), "coef0": float(svc.coef0),
            "max_iter": int(svc.max_iter)}


def fit_predict(X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Fit the linear SVM (C = 1) on the training part; predict the test part.

    Parameters
    ----------
    X_train, X_test : ndarray of float64
        The (min-max scaled) parts, finite.
    y_train : ndarray
        The training labels.

    Returns
    -------
    (predictions, scores, classes) or None
        As ``SVC(kernel="linear").fit(X_train, y_train)`` gives them: ``predict(X_test)``,
        the per-class scores (two classes: ``[-d, d]`` for ``d = decision_function``; more:
        the one-vs-rest decision function) and ``classes_``. ``None`` when the direct call
        cannot be made (see the module's docstring): use ``SVC``.

    References
    ----------
    .. [1] C.-C. Chang and C.-J. Lin, "LIBSVM: a library for support vector machines", ACM
       Transactions on Intelligent Systems and Technology 2(3), 27:1-27:27, 2011 (the C-SVC
       dual, its one-vs-one multi-class scheme and decision values).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.2], [0.8], [1.0]])
    >>> pred, scores, classes = fit_predict(X, np.array(["a", "a", "b", "b"]),
    ...                                     np.array([[0.1], [0.9]]))
    >>> pred.tolist(), classes.tolist()
    (['a', 'b'], ['a', 'b'])
    """
    global _available
    if not _available:
        return None
    y_train = np.asarray(y_train)
    if y_train.ndim != 1:
        return None  # SVC refuses it, with its own message
    try:
        classes, codes = np.unique(y_train, return_inverse=True)
    except TypeError:  # labels that do not sort (mixed types): SVC's message
        return None
    if classes.size < 2:
        return None
    try:
        from sklearn.svm import _libsvm as libsvm
        from sklearn.utils.multiclass import _ovr_decision_function

        p = _parameters()
        X = np.ascontiguousarray(X_train, dtype=np.float64)
        T = np.ascontiguousarray(X_test, dtype=np.float64)
        variance = X.var()  # SVC's gamma="scale" (a linear kernel does not read it)
        gamma = 1.0 / (X.shape[1] * variance) if variance != 0 else 1.0
        libsvm.set_verbosity_wrap(0)  # libsvm prints its progress to stdout unless told not
        support, vectors, n_support, dual, intercept, prob_a, prob_b, status, _ = libsvm.fit(
            X, np.asarray(codes, dtype=np.float64, order="C"), svm_type=0,
            sample_weight=np.empty(0), class_weight=np.ones(classes.size), kernel="linear",
            C=p["C"], nu=p["nu"], probability=False, degree=p["degree"],
            shrinking=p["shrinking"], tol=p["tol"], cache_size=p["cache_size"],
            coef0=p["coef0"], gamma=gamma, epsilon=p["epsilon"], max_iter=p["max_iter"],
            random_seed=0)
        if status != 0 or not (np.isfinite(intercept).all() and np.isfinite(dual).all()):
            return None  # SVC warns or refuses: let it
        model = (support, vectors, n_support, dual, intercept, prob_a, prob_b)
        options = {"svm_type": 0, "kernel": "linear", "degree": p["degree"],
                   "cache_size": p["cache_size"], "coef0": p["coef0"], "gamma": gamma}
        codes_pred = libsvm.predict(T, *model, **options)
        dec = libsvm.decision_function(T, *model, **options)
    except (ImportError, AttributeError, TypeError):  # another scikit-learn's entry points
        _available = False
        return None
    except ValueError:  # this call refused: SVC gives its own message
        return None
    pred = classes.take(np.asarray(codes_pred, dtype=np.intp))
    if classes.size == 2:
        d = -dec.ravel()
        return pred, np.column_stack([-d, d]), classes
    return pred, _ovr_decision_function(dec < 0, -dec, classes.size), classes
