"""Error estimators for small samples (Xiao, Hua and Dougherty 2007; Braga-Neto and Dougherty
2004): resubstitution, cross-validation, leave-one-out, bolstered and semi-bolstered
resubstitution.

The public names of the evaluation layer. The code lives in
:mod:`stablefs.selectors.wrappers._error_estimators`, below the wrapper selectors whose
criteria are these estimators (data flows one way: selectors do not import evaluation).
"""

from stablefs.selectors.wrappers._error_estimators import (
    PINV_RTOL,
    RULES,
    Rule,
    bolstered_error,
    bolstering_widths,
    chi_median,
    cv_error,
    fit_lda,
    knn_predict,
    linear_svm,
    loo_error,
    make_rule,
    resubstitution_error,
    semi_bolstered_error,
    stratified_folds,
)

__all__ = [
    "PINV_RTOL",
    "RULES",
    "Rule",
    "bolstered_error",
    "bolstering_widths",
    "chi_median",
    "cv_error",
    "fit_lda",
    "knn_predict",
    "linear_svm",
    "loo_error",
    "make_rule",
    "resubstitution_error",
    "semi_bolstered_error",
    "stratified_folds",
]
