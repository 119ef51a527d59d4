"""
Your own scikit-learn selector in ``run_experiment``
====================================================

:func:`stablefs.evaluation.run_experiment` is the engine behind ``stablefs compare``. Besides
method strings it takes selector objects: stablefs's own, and scikit-learn's
``SelectKBest``, ``SelectFromModel`` and ``RFE``, which keep a subset but do not rank every
feature. stablefs completes their ranking from what they expose (``ranking_``, ``scores_``,
or the estimator's ``coef_`` / ``feature_importances_``), so that their top k can be taken
at every k and their stability measured like any other method's.
"""

# %%
# The Colon data on the log2 scale, as arrays with gene names.
import numpy as np
from sklearn.feature_selection import RFE, SelectFromModel, SelectKBest, f_classif
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC

import stablefs
from stablefs.evaluation import run_experiment

colon = stablefs.load("colon", log2=True)
X, y = colon.X, colon.y
print(X.shape, np.unique(y, return_counts=True))

# %%
# Four methods, each a ``(name, selector)`` pair or a method string: the ANOVA F filter of
# scikit-learn, a logistic regression's coefficients read through ``SelectFromModel``,
# scikit-learn's RFE around a linear SVM (10% of the features removed per step: SVM-RFE), and
# stablefs's t-test. ``standardize=True`` centres and scales every gene on each training part
# (and its test part with the same statistics), which the logistic regression needs.
methods = [
    ("SelectKBest(f_classif)", SelectKBest(f_classif)),
    ("SelectFromModel(logistic)", SelectFromModel(LogisticRegression(C=0.1))),
    ("RFE(SVC linear)", RFE(SVC(kernel="linear", C=1.0), step=0.1, n_features_to_select=10)),
    "ttest",
]
result = run_experiment(X, y, methods, sizes=[10, 20, 50], protocol="split", n_repeats=20,
                        classifiers=["svm"], measures=["nogueira", "kuncheva"],
                        standardize=True, feature_names=colon.feature_names, random_state=0)

# %%
# Stability of the top k, with the intervals, for both measures:
stab = result.stability
print(stab.pivot_table(index="method", columns=["measure", "k"], values="estimate").round(3))

# %%
# The ANOVA F-statistic of two classes is the square of the pooled-variance t-statistic, so
# ``SelectKBest(f_classif)`` and the Welch t-test rank the genes almost alike. RFE around a
# linear SVM is SVM-RFE (Guyon et al. 2002), the least stable method here as in every
# comparison of these pages. A caution for your own selectors: features a selector leaves tied (zero
# coefficients of an L1 model, say) are ranked by their index, and agreeing on the order of
# the columns looks like stability; keep k within the features it actually ranks.
#
# Held-out accuracy of the linear SVM on each split's top-k genes:
res = result.results
acc = res[res["metric"] == "accuracy_svm"].groupby(["method", "k"])["value"].mean()
print(acc.unstack("k").round(3))

# %%
# The same objects go to :func:`stablefs.compare`, which adds the recommendation, its checks
# and the figures:
comparison = stablefs.compare((colon.X, colon.y), methods=methods[:2] + ["ttest"],
                              sizes=[10, 20, 50], feature_names=list(colon.feature_names),
                              classifiers="svm", standardize=True, permutations=0, nested=0)
comparison.plot_stability()
