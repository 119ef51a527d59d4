"""The majority-class baseline of a comparison: what answering "the most common class" scores.

A selected signature earns trust only when it predicts better than a rule that ignores the
features. On each resample the majority class of the *training* part is predicted for every
sample of the test part (the rule a classifier without information would learn), and scored
with the same metrics as the classifiers: accuracy (equal to the test part's share of that
class) and balanced accuracy (the mean recall over the classes present in the test part,
Brodersen et al. 2010: 1 / number of classes present, the chance level of balanced accuracy).
Ties between equally large training classes go to the first class in sorted order.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from stablefs.evaluation.classifiers import balanced_accuracy

__all__ = ["BASELINE_COLUMNS", "majority_baseline"]

BASELINE_COLUMNS = ["resample", "metric", "value"]


def majority_baseline(y, resamples) -> pd.DataFrame:
    """The majority-class rule scored on every resample's test part.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels.
    resamples : sequence of :class:`~stablefs.evaluation.protocols.Resample`
        Resamples with an empty test part (a full-data reference fit) are skipped.

    Returns
    -------
    DataFrame
        ``resample, metric, value`` with metrics ``accuracy`` and ``balanced_accuracy``.
    """
    y = np.asarray(y)
    rows = []
    for res in resamples:
        if len(res.test) == 0:
            continue
        classes, counts = np.unique(y[res.train], return_counts=True)
        majority = classes[int(np.argmax(counts))]  # argmax: first of equal counts
        truth = y[res.test]
        pred = np.full(truth.shape, majority, dtype=truth.dtype)
        rows.append((int(res.index), "accuracy", float(np.mean(truth == majority))))
        rows.append((int(res.index), "balanced_accuracy", balanced_accuracy(truth, pred)))
    return pd.DataFrame(rows, columns=BASELINE_COLUMNS)
