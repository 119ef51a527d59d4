"""The published numbers of Prat Masramon 2016 for ``stablefs reproduce
wrapper-stability``: its 1NN rows of Tables 6.2-6.5 and 7.1-7.2 (error, subset size, Kuncheva's
index and the p-values of its tests) and its counts of significant rows over them.

The claims of :mod:`stablefs.experiments.wrapper_stability.protocol` compare with these rows; the
report (:mod:`stablefs.experiments.wrapper_stability.report`) shows them beside ours.
"""

from __future__ import annotations

import pandas as pd

__all__ = ["PUBLISHED", "THESIS_COUNTS_1NN", "THESIS_ROWS_1NN"]

#: the thesis' 1NN rows, verbatim (Tables 6.2-6.5 and 7.1-7.2): the table of the error and
#: subset size, data set, error of the baseline and of the modified wrapper, Wilcoxon-Mann-Whitney
#: p, #features baseline and modified | the table of the stability, Kuncheva's index baseline
#: and modified, the stability test's p
THESIS_ROWS_1NN = """
6.2 diabetes 0.314 0.321 0.238 3.6 4.2 | 6.4 0.316 0.3913 0.4688
6.2 ionosphere 0.113 0.13 0.007 7.2 6.6 | 6.4 0.1316 0.102 0.0898
6.2 sonar 0.212 0.186 0.11 19.8 25.8 | 6.4 0.1871 0.0976 0
6.2 colon 0.239 0.232 0.416 25.1 54.4 | 6.4 0.1273 0.0307 0
6.2 leukemia 0.094 0.092 0.383 2.5 5 | 6.4 0.2908 0.0234 0
6.2 lung 0.03 0.033 0.444 2 6.7 | 6.4 0.3359 0.0459 0
6.2 prostate 0.112 0.107 0.361 30.4 33.8 | 6.4 0.1087 0.0548 0
6.3 diabetes 0.32 0.325 0.337 5.1 4.3 | 6.5 0.4751 0.5647 0.0754
6.3 ionosphere 0.119 0.121 0.541 8 10.7 | 6.5 0.1313 0.2456 0
6.3 sonar 0.233 0.21 0.277 20.9 15 | 6.5 0.0614 0.2851 0
6.3 colon 0.21 0.223 0.249 32.6 35.9 | 6.5 0.0068 0.0983 0
6.3 leukemia 0.122 0.083 0.029 12.1 13.7 | 6.5 0.1133 0.1113 0.1145
6.3 lung 0.027 0.021 0.211 33.2 30.8 | 6.5 0.0345 0.1741 0
6.3 prostate 0.157 0.171 0.361 39.9 16.1 | 6.5 0.0218 0.0992 0
7.1 diabetes 0.314 0.315 0.571 4.5 4.8 | 7.2 0.4427 0.4699 0.726
7.1 ionosphere 0.136 0.132 0.238 7.2 7.2 | 7.2 0.1581 0.16 0.9047
7.1 sonar 0.205 0.193 0.342 19.9 25.3 | 7.2 0.0674 0.083 0.0002
7.1 colon 0.2 0.181 0.053 73.8 37.4 | 7.2 0.0061 0.0254 0
7.1 leukemia 0.108 0.081 0.088 28.3 7.2 | 7.2 0.0701 0.0396 0
7.1 lung 0.034 0.033 0.5 20 17.4 | 7.2 0.0328 0.014 0
7.1 prostate 0.154 0.14 0.141 28.3 18.3 | 7.2 0.0331 0.0455 0
"""

#: the thesis' counts over its 19 1NN rows (computed from the rows of Tables 6.2-6.5 and
#: 7.1-7.2): significantly better / not significant / significantly
#: worse for the modified wrapper (its p < 0.05 and the sign of the difference). Only the
#: 1NN rows are compared: every number of ours that a claim judges is a 1NN number.
THESIS_COUNTS_1NN = {("6.2", "error"): (0, 15, 4), ("6.3", "error"): (2, 17, 0),
                     ("6.4", "stability"): (4, 5, 10), ("6.5", "stability"): (16, 3, 0),
                     ("7.1", "error"): (0, 18, 1), ("7.2", "stability"): (9, 7, 3)}


def _published() -> pd.DataFrame:
    """:data:`THESIS_ROWS_1NN` as a frame, one row per (table, data set)."""
    rows = []
    for line in THESIS_ROWS_1NN.strip().splitlines():
        left, right = line.split("|")
        t_err, name, e0, e1, pe, f0, f1 = left.split()
        t_stab, s0, s1, ps = right.split()
        rows.append({"table_error": t_err, "table_stability": t_stab, "dataset": name,
                     "error_base": float(e0), "error_mod": float(e1), "p_error": float(pe),
                     "nf_base": float(f0), "nf_mod": float(f1), "stab_base": float(s0),
                     "stab_mod": float(s1), "p_stab": float(ps)})
    return pd.DataFrame(rows)


#: the thesis' 1NN rows (:data:`THESIS_ROWS_1NN`), one per (table, data set)
PUBLISHED = _published()

