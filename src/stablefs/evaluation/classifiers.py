"""Classifiers that judge a selected feature subset, and their held-out metrics.

Han (2012, secs. 5.3.2 and 7.1) trains a linear SVM and a 1-nearest-neighbour classifier on the
selected features of the training part and reports accuracy and the area under the ROC curve
on the held-out part, both as computed by Weka. We mirror Weka's defaults where they matter:
Weka's ``SMO`` (linear kernel, C = 1) and ``IBk`` both rescale every attribute to [0, 1] on the
training data first, so both classifiers here are pipelines of a min–max scaler fitted on the
training part and the classifier.

AUC is computed from continuous scores: the SVM and LDA decision values, the kNN share of
neighbours in each class, and for 1NN the class
"probability" of the nearest neighbour (0/1), for which the AUC equals balanced accuracy in
the two-class case (as in Weka, whose 1NN also gives 0/1 distributions). With more than two
classes the AUC is the unweighted mean of the one-vs-rest AUCs over the classes present in
the test part.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from stablefs._errors import StablefsError
from stablefs._runtime.threads import limit_threads
from stablefs.evaluation._linear_svm import fit_predict as linear_svm

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import TypeAlias

    from numpy.typing import ArrayLike
    from sklearn.base import BaseEstimator

    #: classifiers: names ("svm", "1nn", ...), scikit-learn classifiers or (name, classifier)
    #: pairs, or the {name: classifier} mapping of check_classifiers
    Classifiers: TypeAlias = (Sequence[str | BaseEstimator | tuple[str, BaseEstimator]]
                              | Mapping[str, str | BaseEstimator])

CLASSIFIERS = {
    "svm": "linear support vector machine, C = 1 (features min-max scaled, as Weka's SMO)",
    "1nn": "1-nearest neighbour, Euclidean (features min-max scaled, as Weka's IBk)",
    "3nn": "3-nearest neighbours, Euclidean (features min-max scaled)",
    "lda": "linear discriminant analysis, Ledoit-Wolf shrinkage of the pooled covariance "
           "(features min-max scaled)",
    "wknn": "instance-weighted 3-nearest neighbours: votes weighted by logistic instance "
            "weights of the training part (Prat Masramon 2016, Alg. 8.2; features "
            "min-max scaled)",
}


def make_classifier(name: str | BaseEstimator) -> BaseEstimator:
    """Build a fresh, unfitted classifier for ``name``, or clone a scikit-learn classifier.

    The built-in classifiers (:data:`CLASSIFIERS`) are pipelines of a min–max scaler and the
    classifier, as Weka's ``SMO`` and ``IBk``, which Han (2012) used, scale every attribute
    to [0, 1] on the training data.

    Parameters
    ----------
    name : str or scikit-learn classifier
        ``"svm"`` (linear, C = 1), ``"lda"`` (Ledoit–Wolf shrinkage: the pooled covariance
        is singular when k ≥ n), ``"wknn"``, any ``"Knn"`` such as ``"1nn"`` or ``"3nn"``; or
        a classifier with ``fit`` and ``predict``, cloned.

    Returns
    -------
    estimator
        Unfitted.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 5.3.2 (linear SVM and 1NN
       on the selected features).
    .. [2] M. Hall, E. Frank, G. Holmes, B. Pfahringer, P. Reutemann and I. H. Witten, "The
       WEKA data mining software: an update", SIGKDD Explorations 11(1), 10–18, 2009.
    .. [3] O. Ledoit and M. Wolf, "A well-conditioned estimator for large-dimensional
       covariance matrices", Journal of Multivariate Analysis 88(2), 365–411, 2004.

    Examples
    --------
    >>> from stablefs.evaluation import make_classifier
    >>> [name for name, _ in make_classifier("3nn").steps]
    ['minmaxscaler', 'kneighborsclassifier']
    >>> make_classifier("3nn").steps[1][1].n_neighbors
    3
    """
    from sklearn.base import clone
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler
    from sklearn.svm import SVC

    if not isinstance(name, str):
        if not (hasattr(name, "fit") and hasattr(name, "predict")):
            raise StablefsError(
                f"classifier {name!r} is neither a name ({', '.join(CLASSIFIERS)}) nor a "
                "scikit-learn classifier (with fit and predict)."
            )
        return clone(name)
    key = classifier_key(name)
    if key == "svm":
        clf = SVC(kernel="linear", C=1.0)
    elif key == "lda":  # shrinkage: the pooled covariance is singular when k >= n
        clf = LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto")
    elif key == "wknn":  # on the selected columns: feature weights 1, votes weighted by LIW
        from stablefs.evaluation.wknn import WeightedKNN

        clf = WeightedKNN(n_neighbors=3, instance_weighting="logistic")
    else:  # "Knn", K >= 1 (classifier_key)
        clf = KNeighborsClassifier(n_neighbors=int(key[:-2]))
    return make_pipeline(MinMaxScaler(), clf)


def classifier_key(name: str) -> str:
    """The normalised name of a classifier (``" SVM"`` -> ``"svm"``), or one line naming the
    choices when :func:`make_classifier` has no classifier of that name. Needs no
    scikit-learn: the command line checks its ``--classifiers`` with it before any work."""
    key = name.strip().lower()
    count = key[:-2]
    if key in ("svm", "lda", "wknn") or (
        key.endswith("nn") and count.isascii() and count.isdigit() and int(count) >= 1
    ):
        return key
    raise StablefsError(
        f"unknown classifier {name!r}: choose from {', '.join(CLASSIFIERS)} (or 'Knn')."
    )


def check_classifiers(items) -> dict:
    """Normalise classifiers to ``{name: template}``.

    Each item is a name (``"svm"``, ``"1nn"``, ``"3nn"``, any ``"Knn"``), a scikit-learn
    classifier (named by its class), or a ``(name, classifier)`` pair. Names are unique.
    """
    out: dict = {}
    for item in items:
        if isinstance(item, str):
            if not item.strip():
                continue
            name, template = item.strip().lower(), item.strip().lower()
        elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
            name, template = item
        else:
            name, template = type(item).__name__, item
        if isinstance(template, str):
            classifier_key(template)  # an unknown name; make_classifier builds any other
        else:
            make_classifier(template)  # a non-classifier
        if name in out:
            raise StablefsError(f"classifier {name!r} is named twice.")
        out[name] = template
    if not out:
        raise StablefsError("no classifier given: use e.g. --classifiers svm,1nn.")
    return out


def _scores(model, X) -> np.ndarray:
    """Per-class scores, shape (n, n_classes), ordered like ``model.classes_``."""
    from sklearn.neighbors import KNeighborsClassifier

    est = model[-1] if hasattr(model, "steps") else model
    if hasattr(est, "decision_function") and not isinstance(est, KNeighborsClassifier):
        d = model.decision_function(X)
        if d.ndim == 1:
            return np.column_stack([-d, d])
        return d
    return model.predict_proba(X)


def binary_auc(positive, score) -> float:
    """Area under the ROC curve of ``score`` for the boolean labels ``positive``.

    The Mann-Whitney form, ``(R_+ - n_+ (n_+ + 1) / 2) / (n_+ n_-)`` with ``R_+`` the sum of
    the positives' mid-ranks, which counts a tied (positive, negative) pair as 1/2: the area
    under the ROC curve with ties on its diagonal steps, as
    ``sklearn.metrics.roc_auc_score`` computes it (equal to rounding), without its input
    checks (the classifiers' metrics run tens of thousands of times in a reproduction).
    NaN when one class is missing.
    """
    positive = np.asarray(positive, dtype=bool)
    n_pos = int(positive.sum())
    n_neg = positive.size - n_pos
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = _mid_ranks(np.asarray(score, dtype=np.float64))
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


def _mid_ranks(values: np.ndarray) -> np.ndarray:
    """``scipy.stats.rankdata(values)`` (ties get their mean rank), without its per-call
    overhead for finite 1-D ``values``; the ranks are halves of integers, so the same
    numbers."""
    if not np.isfinite(values).all():
        from scipy.stats import rankdata

        return rankdata(values)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    first = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])  # each tie group's start
    last = np.r_[first[1:], values.size]  # and its end (exclusive)
    ranks = np.empty(values.size)
    ranks[order] = np.repeat((first + 1 + last) / 2.0, last - first)
    return ranks


def auc_score(y_true, scores, classes) -> float:
    """Binary AUC, or the mean one-vs-rest AUC over the classes present in ``y_true``."""
    y_true = np.asarray(y_true)
    present = [i for i, c in enumerate(classes) if np.any(y_true == c)]
    if len(present) < 2:
        return float("nan")  # undefined with one class in the test part
    if len(classes) == 2:
        return binary_auc(y_true == classes[1], scores[:, 1])
    return float(np.mean([binary_auc(y_true == classes[i], scores[:, i]) for i in present]))


def _confusion(y_true, y_pred) -> np.ndarray:
    """Confusion matrix C[i, j] = #(true class i, predicted class j) over the union of labels."""
    labels, codes = np.unique(np.concatenate([np.asarray(y_true), np.asarray(y_pred)]),
                              return_inverse=True)
    n, q = len(y_true), labels.size
    return np.bincount(codes[:n] * q + codes[n:], minlength=q * q).reshape(q, q)


def balanced_accuracy(y_true, y_pred) -> float:
    """Mean recall over the classes present in ``y_true`` (Brodersen et al. 2010); equals
    ``sklearn.metrics.balanced_accuracy_score``."""
    C = _confusion(y_true, y_pred)
    support = C.sum(axis=1)
    present = support > 0
    return float(np.mean(np.diag(C)[present] / support[present]))


def mcc(y_true, y_pred) -> float:
    """Matthews correlation coefficient, multi-class form of Gorodkin (2004):
    ``(c s - t.p) / sqrt((s^2 - p.p)(s^2 - t.t))`` with c correct predictions, s samples,
    t and p the true and predicted class counts; 0 when either factor vanishes (one class
    true or predicted), as ``sklearn.metrics.matthews_corrcoef``."""
    C = _confusion(y_true, y_pred).astype(np.float64)
    t, p = C.sum(axis=1), C.sum(axis=0)
    s, c = C.sum(), np.trace(C)
    den = np.sqrt((s * s - p @ p) * (s * s - t @ t))
    return float((c * s - t @ p) / den) if den > 0 else 0.0


def evaluate_subset(X_train: ArrayLike, y_train: ArrayLike, X_test: ArrayLike, y_test: ArrayLike,
                    classifiers: Classifiers) -> dict[str, float]:
    """Train each classifier on the training part and score it on the test part.

    Parameters
    ----------
    X_train, y_train : array-like
        The training part, restricted to the selected features.
    X_test, y_test : array-like
        The test part, the same features.
    classifiers : sequence or dict
        Names (``"svm"``, ``"1nn"``, ...), scikit-learn classifiers, ``(name, classifier)``
        pairs, or a ``{name: template}`` mapping as returned by :func:`check_classifiers`.

    Returns
    -------
    dict of str to float
        ``accuracy_<name>``, ``balanced_accuracy_<name>``, ``mcc_<name>``
        (:func:`balanced_accuracy`, :func:`mcc`) and ``auc_<name>`` (:func:`auc_score`: from
        SVM and LDA decision values and kNN neighbour fractions, which for 1NN are 0/1, so
        its AUC is that of hard labels); AUC needs decision scores or probabilities and is NaN
        for a classifier that has neither.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 5.3.2.
    .. [2] K. H. Brodersen, C. S. Ong, K. E. Stephan and J. M. Buhmann, "The balanced
       accuracy and its posterior distribution", Proc. 20th Int. Conf. on Pattern
       Recognition (ICPR), 3121–3124, 2010.
    .. [3] J. Gorodkin, "Comparing two K-category assignments by a K-category correlation
       coefficient", Computational Biology and Chemistry 28(5–6), 367–374, 2004.
    .. [4] J. A. Hanley and B. J. McNeil, "The meaning and use of the area under a receiver
       operating characteristic (ROC) curve", Radiology 143(1), 29–36, 1982.

    Examples
    --------
    The five relevant features of Han's synthetic data, 2/3 to train:

    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.evaluation import evaluate_subset
    >>> data = make_han2012(n_samples=60, n_features=30, n_blocks=3, n_relevant=10,
    ...                     random_state=0)
    >>> X = data.X[:, :5]
    >>> scores = evaluate_subset(X[:40], data.y[:40], X[40:], data.y[40:], ["svm", "1nn"])
    >>> {name: round(value, 3) for name, value in scores.items() if name.startswith("acc")}
    {'accuracy_svm': 0.8, 'accuracy_1nn': 0.8}
    """
    if not isinstance(classifiers, dict):
        classifiers = check_classifiers(classifiers)
    return _evaluate(X_train, X_test, y_train, y_test, classifiers, scaled=None)


def evaluate_sizes(X_train: np.ndarray, y_train: ArrayLike, X_test: np.ndarray,
                   y_test: ArrayLike, order: ArrayLike, sizes: Sequence[int],
                   classifiers: Classifiers) -> dict[int, dict[str, float]]:
    """:func:`evaluate_subset` on the top ``k`` features of ``order`` for every ``k`` in
    ``sizes``: the same numbers, with the built-in classifiers' min-max scaling fitted once.

    Each subset is the first ``k`` indices of ``order``, in increasing column order (as
    ``X[:, np.sort(order[:k])]``). Min-max scaling works column by column with exact minima
    and maxima, so scaling the largest subset once and taking each subset's columns from it
    gives the same bits as scaling each subset; user classifiers (pipelines) get the raw
    columns, as in :func:`evaluate_subset`.

    Parameters
    ----------
    X_train, X_test : ndarray of shape (n_train, p) and (n_test, p)
        The training and test parts, all features.
    y_train, y_test : array-like
        Their labels.
    order : array-like of int
        Feature indices, best first (``np.argsort`` of a ranking).
    sizes : sequence of int
        The subset sizes k.
    classifiers : sequence or dict
        As for :func:`evaluate_subset`.

    Returns
    -------
    dict of int to dict
        ``{k: evaluate_subset(...)}``.

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, sec. 5.3.2 (the classifiers
       trained on the top-k features of each training part, k = 10, 20, ..., 50).

    Examples
    --------
    >>> import numpy as np
    >>> from stablefs.datasets import make_han2012
    >>> from stablefs.evaluation import evaluate_sizes, evaluate_subset
    >>> data = make_han2012(n_samples=60, n_features=30, n_blocks=3, n_relevant=10,
    ...                     random_state=0)
    >>> order = np.arange(30)[::-1]
    >>> every = evaluate_sizes(data.X[:40], data.y[:40], data.X[40:], data.y[40:], order,
    ...                        [2, 5], ["svm", "1nn"])
    >>> cols = np.sort(order[:5])
    >>> every[5] == evaluate_subset(data.X[:40, cols], data.y[:40], data.X[40:, cols],
    ...                             data.y[40:], ["svm", "1nn"])
    True
    """
    if not isinstance(classifiers, dict):
        classifiers = check_classifiers(classifiers)
    sizes = [int(k) for k in sizes]
    order = np.asarray(order)
    if not sizes:
        return {}
    widest = np.sort(order[:max(sizes)])
    built_in = [isinstance(t, str) for t in classifiers.values()]
    scaled = _minmax(X_train[:, widest], X_test[:, widest]) if any(built_in) else None
    out = {}
    for k in sizes:
        cols = np.sort(order[:k])
        pair = raw_train = raw_test = None
        if scaled is not None:
            at = np.searchsorted(widest, cols)
            pair = scaled[0][:, at], scaled[1][:, at]
        if not all(built_in):  # a user's classifier takes the raw columns
            raw_train, raw_test = X_train[:, cols], X_test[:, cols]
        out[k] = _evaluate(raw_train, raw_test, y_train, y_test, classifiers, scaled=pair)
    return out


def _minmax(X_train, X_test) -> tuple[np.ndarray, np.ndarray]:
    """The built-in classifiers' min-max scaling (their pipeline's first step,
    ``MinMaxScaler()``), fitted on the training part and applied to both parts: the scaler's
    own operations, in its order, without its per-call checks (2.5 ms a call in a
    comparison's profile), so the same bits (``tests/test_evaluate_sizes.py``)."""
    X_train = np.asarray(X_train, dtype=np.float64)
    low = np.nanmin(X_train, axis=0)
    span = np.nanmax(X_train, axis=0) - low
    span[span < 10 * np.finfo(np.float64).eps] = 1.0  # a constant feature: scale 1
    scale = (1.0 - 0.0) / span
    shift = 0.0 - low * scale
    out = []
    for part in (X_train, np.asarray(X_test, dtype=np.float64)):
        scaled = part * scale
        scaled += shift
        out.append(scaled)
    return out[0], out[1]


def _evaluate(X_train, X_test, y_train, y_test, classifiers: dict, *, scaled) -> dict:
    """:func:`evaluate_subset` with the built-in classifiers' scaled parts given (``scaled``)
    or made here (``None``); the raw parts (``X_train``, ``X_test``) are needed only for
    that, and for a user's classifier."""
    from sklearn import config_context

    out = {}
    # One thread: the problems are tiny (tens of features), and scikit-learn's threaded
    # neighbour search spends ~40 ms per predict spin-waiting on a busy machine (~1 ms alone).
    with limit_threads(1):
        for name, template in classifiers.items():
            if isinstance(template, str):
                # the pipeline's own steps, with the scaler fitted once for all of them; the
                # inputs are checked (finite, 2-D) and the parameters are ours, so
                # scikit-learn's per-call checks are skipped (a fifth of an SVM's time), and
                # the linear SVM calls libsvm as SVC does, without SVC around it
                if scaled is None:
                    scaled = _minmax(X_train, X_test)
                done = (linear_svm(scaled[0], np.asarray(y_train), scaled[1])
                        if classifier_key(template) == "svm" else None)
                if done is None:
                    with config_context(assume_finite=True, skip_parameter_validation=True):
                        model = make_classifier(template)[-1].fit(scaled[0], y_train)
                        pred, scores = _predict(model, scaled[1])
                    classes = model.classes_
                else:
                    pred, scores, classes = done
            else:
                model = make_classifier(template).fit(X_train, y_train)
                pred, scores = _predict(model, X_test)
                classes = model.classes_
            out[f"accuracy_{name}"] = float(np.mean(pred == y_test))
            out[f"balanced_accuracy_{name}"] = balanced_accuracy(y_test, pred)
            out[f"mcc_{name}"] = mcc(y_test, pred)
            out[f"auc_{name}"] = (float("nan") if scores is None else
                                  auc_score(y_test, scores, classes))
    return out


def _predict(model, X) -> tuple[np.ndarray, np.ndarray | None]:
    """A fitted classifier's predictions and per-class scores (None without scores)."""
    pred = model.predict(X)
    try:
        return pred, _scores(model, X)
    except AttributeError:  # a user classifier without scores
        return pred, None
