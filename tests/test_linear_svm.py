"""The linear SVM's direct libsvm calls (``stablefs.evaluation._linear_svm``) against
scikit-learn's ``SVC(kernel="linear", C=1)``: the same predictions, scores and classes, bit for
bit, and the evaluation's numbers unchanged when the direct calls are not available."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.svm import SVC

from stablefs.evaluation import _linear_svm, evaluate_sizes, evaluate_subset
from stablefs.evaluation._linear_svm import fit_predict


def _svc(X_train, y_train, X_test):
    model = SVC(kernel="linear", C=1.0).fit(X_train, y_train)
    d = model.decision_function(X_test)
    scores = np.column_stack([-d, d]) if d.ndim == 1 else d
    return model.predict(X_test), scores, model.classes_


def _problem(seed, n, p, classes, *, duplicates=False, constant=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n)
    y[:classes] = np.arange(classes)
    X = rng.random((n, p)) + 0.3 * y[:, None] * (rng.random(p) < 0.3)
    if duplicates:  # the same point in two classes
        X[1] = X[0]
    if constant:
        X[:, 0] = 0.5
    X = (X - X.min(axis=0)) / np.where(np.ptp(X, axis=0) > 0, np.ptp(X, axis=0), 1)
    labels = np.array(["tumour", "normal", "c", "d", "e"])[y]
    cut = 2 * n // 3
    return X[:cut], labels[:cut], X[cut:]


@pytest.mark.parametrize("classes", [2, 3, 5])
@pytest.mark.parametrize("n, p", [(30, 1), (42, 10), (60, 50), (24, 200)])
def test_the_same_bits_as_svc(classes, n, p):
    for seed in range(4):
        X_train, y_train, X_test = _problem(seed, n, p, classes, duplicates=seed == 1,
                                            constant=seed == 2 and p > 1)
        if np.unique(y_train).size < 2:
            continue
        got = fit_predict(X_train, y_train, X_test)
        assert got is not None  # the direct calls work with the installed scikit-learn
        for mine, theirs in zip(got, _svc(X_train, y_train, X_test)):
            assert mine.dtype == theirs.dtype
            assert np.array_equal(mine, theirs)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), classes=st.integers(2, 4), n=st.integers(9, 40),
       p=st.integers(1, 30))
def test_the_same_bits_as_svc_on_any_small_problem(seed, classes, n, p):
    X_train, y_train, X_test = _problem(seed, n, p, classes)
    if np.unique(y_train).size < 2:
        assert fit_predict(X_train, y_train, X_test) is None  # SVC refuses it
        return
    got = fit_predict(X_train, y_train, X_test)
    for mine, theirs in zip(got, _svc(X_train, y_train, X_test)):
        assert np.array_equal(mine, theirs)


def test_one_class_is_left_to_svc():
    X = np.random.default_rng(0).random((6, 3))
    assert fit_predict(X, np.zeros(6), X) is None
    assert fit_predict(X, np.array([1, "a", 2, "b", 1, "a"], dtype=object), X) is None
    assert _linear_svm._available  # a refused call does not turn the direct path off
    with pytest.raises(ValueError, match="greater than one"):
        SVC(kernel="linear").fit(X, np.zeros(6))


def test_the_evaluation_is_the_same_without_the_direct_calls(monkeypatch):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(45, 40))
    y = rng.integers(0, 3, 45)
    X[:, :5] += y[:, None]
    order = np.argsort(-np.abs(X[:30].T @ (y[:30] - y[:30].mean())))
    direct = evaluate_sizes(X[:30], y[:30], X[30:], y[30:], order, [1, 5, 20], ["svm", "1nn"])
    one = evaluate_subset(X[:30, :5], y[:30], X[30:, :5], y[30:], ["svm"])
    monkeypatch.setattr(_linear_svm, "_available", False)
    assert fit_predict(X[:30], y[:30], X[30:]) is None
    assert evaluate_sizes(X[:30], y[:30], X[30:], y[30:], order, [1, 5, 20],
                          ["svm", "1nn"]) == direct
    assert evaluate_subset(X[:30, :5], y[:30], X[30:, :5], y[30:], ["svm"]) == one


def test_libsvm_prints_nothing_in_a_fresh_process():
    """libsvm's progress lines go to stdout unless its verbosity is set, as SVC sets it: a
    fresh process (no SVC fitted before) prints nothing."""
    import subprocess
    import sys

    script = ("import numpy as np\n"
              "from stablefs.evaluation._linear_svm import fit_predict\n"
              "X = np.random.default_rng(0).random((30, 4))\n"
              "assert fit_predict(X, np.arange(30) % 2, X) is not None\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True)
    assert run.stdout == ""
