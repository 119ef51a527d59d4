"""The numbers Xiao, Hua and Dougherty (2007) print for the synthetic models (Tables 1-3: the
deviation variances and kappa; Tables 5-7: the squared biases), which the report of
``stablefs reproduce xiao2007-cridd`` (:mod:`.xiao2007_cridd_report`) shows beside ours.
"""

from __future__ import annotations

import pandas as pd

__all__ = ["PUBLISHED", "TABLE_OF"]

#: the paper's table of each model: (Tables 1-3 for the variances, Tables 5-7 for the biases)
TABLE_OF = {"equal": (1, 5), "unequal": (2, 6), "bimodal": (3, 7)}

# Tables 1-3: Var(dE), Var(dE_b) (pooled, the same for every selector of a row), kappa;
# Tables 5-7: mean^2(dE), mean^2(dE_b); variances and squared biases in units of 1e-4.
_T = """
equal 50 3nn cv10 25.76 16.48 .3605 62.79 .7376 62.26 .7354 | 0.58 0.03 1.72 1.91
equal 50 3nn loo 26.11 17.05 .3469 65.05 .7378 63.05 .7295 | 0.33 0.14 0.73 0.74
equal 50 lda cv10 32.21 17.48 .4572 50.84 .6561 51.76 .6622 | 1.24 0.14 2.10 2.17
equal 50 lda loo 30.00 16.35 .4552 52.59 .6892 56.79 .7121 | 0.13 0.01 0.13 0.21
equal 50 svm cv10 35.89 25.21 .2976 54.76 .5397 52.47 .5195 | 1.02 0.10 2.19 1.78
equal 50 svm loo 38.35 26.38 .3121 51.81 .4908 53.71 .5088 | 0.22 0.06 0.47 0.52
equal 100 3nn cv10 7.96 7.42 .0677 25.53 .7094 25.12 .7046 | 0.03 0.01 0.82 0.69
equal 100 3nn loo 7.53 7.38 .0197 24.55 .6993 24.24 .6954 | 0.01 0.01 0.12 0.12
equal 100 lda cv10 6.55 6.00 .0841 13.18 .5448 13.04 .5400 | 0.07 0.02 0.47 0.42
equal 100 lda loo 6.18 5.74 .0716 12.90 .5555 13.79 .5840 | 0.00 0.00 0.00 0.01
equal 100 svm cv10 10.29 9.74 .0538 17.16 .4326 16.79 .4201 | 0.11 0.04 0.47 0.51
equal 100 svm loo 11.20 10.52 .0611 16.20 .3508 15.79 .3338 | 0.00 0.00 0.08 0.06
unequal 50 3nn cv10 41.91 25.61 .3890 50.24 .4904 52.25 .5100 | 1.58 0.19 0.99 1.02
unequal 50 3nn loo 46.17 25.69 .4436 51.93 .5054 53.10 .5163 | 0.81 0.33 0.69 0.83
unequal 50 lda cv10 57.85 27.16 .5304 66.44 .5912 68.21 .6018 | 2.81 0.21 2.29 2.96
unequal 50 lda loo 61.85 25.33 .5905 74.46 .6598 82.06 .6913 | 0.19 0.02 0.22 0.35
unequal 50 svm cv10 60.05 34.85 .4197 68.71 .4929 68.27 .4896 | 2.29 0.20 2.77 1.96
unequal 50 svm loo 70.06 37.23 .4685 68.67 .4578 69.81 .4666 | 0.56 0.07 0.87 0.99
unequal 100 3nn cv10 13.75 11.60 .1562 29.17 .6022 28.98 .5996 | 0.35 0.05 0.88 1.02
unequal 100 3nn loo 13.97 11.79 .1560 27.42 .5699 28.37 .5843 | 0.07 0.04 0.08 0.21
unequal 100 lda cv10 12.67 9.92 .2170 22.42 .5576 22.39 .5570 | 0.31 0.04 0.91 0.82
unequal 100 lda loo 12.77 9.51 .2556 23.99 .6038 25.42 .6260 | 0.00 0.00 0.04 0.02
unequal 100 svm cv10 16.88 13.81 .1816 25.85 .4657 25.14 .4506 | 0.48 0.07 0.91 0.85
unequal 100 svm loo 18.74 15.19 .1895 24.44 .3786 23.09 .3422 | 0.02 0.02 0.07 0.05
bimodal 50 3nn cv10 - 15.91 - 134.80 .8820 141.94 .8879 | - 0.10 7.27 8.31
bimodal 50 3nn loo - 15.72 - 116.54 .8651 126.08 .8754 | - 0.12 1.68 2.36
bimodal 100 3nn cv10 - 6.77 - 47.07 .8562 40.94 .8346 | - 0.02 3.24 2.26
bimodal 100 3nn loo - 6.74 - 39.21 .8280 36.55 .8155 | - 0.02 0.32 0.06
"""


def _published() -> pd.DataFrame:
    rows = []
    for line in _T.strip().splitlines():
        left, right = line.split("|")
        model, n, clf, cv, vt, vb, kt, vs, ks, vf, kf = left.split()
        bt, bb, bs, bf = right.split()

        def num(x):
            return float("nan") if x == "-" else float(x)

        for sel, var, kap, b2 in (("ttest", vt, kt, bt), ("sfs", vs, ks, bs),
                                  ("sffs", vf, kf, bf)):
            if var == "-":
                continue
            rows.append({"model": model, "n_samples": int(n), "classifier": clf, "cv": cv,
                         "selector": sel, "var_dE": num(var) * 1e-4,
                         "var_dEb": num(vb) * 1e-4, "kappa": num(kap),
                         "bias2_dE": num(b2) * 1e-4, "bias2_dEb": num(bb) * 1e-4})
    return pd.DataFrame(rows)


#: the paper's Tables 1-3 and 5-7 (variances and squared biases as plain numbers, not 1e-4)
PUBLISHED = _published()
