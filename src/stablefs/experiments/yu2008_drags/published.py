"""The published numbers of Yu, Ding and Loscalzo (2008) for ``stablefs reproduce
yu2008-drags``: Table 2 verbatim, its labels, and ours beside it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from stablefs.experiments._published import printed_rows

__all__ = ["PAPER_LABEL", "PAPER_METHOD", "TABLE2", "TABLE2_SIZES", "beside_table2",
           "published_table2"]

#: the paper's row label of each data set in Table 2 ("Lym." is Alizadeh's Lymphoma, for which
#: our DLBCL stands)
PAPER_LABEL = {"colon": "Colon", "leukemia": "Leuk.", "lung": "Lung", "prostate": "Pro.",
               "srbct": "SRB.", "dlbcl": "Lym."}
#: the paper's name of each method of Table 2
PAPER_METHOD = {"drags": "DRAGS", "kmeans": "Kmeans", "rfe": "RFE"}

#: Table 2 of Yu, Ding and Loscalzo (2008), verbatim (``mean±sd`` in %, k = 4, 6, 8, 10, 20,
#: 30, 40, 50, then the printed average); "Lym." is Alizadeh's Lymphoma, not our DLBCL
TABLE2 = """\
Colon|SVM|DRAGS|80.5±9.6|82.4±9.6|83.5±9.5|83.8±9.2|84.9±6.9|86.3±6.8|87.3±4.9|87.1±5.6|84.5
Colon|SVM|RFE|64.8±3.3|65.5±4.1|68.9±5.1|68.3±5.6|76.1±5.3|78.6±5.1|80.2±6.7|81.9±7.6|73.0
Colon|SVM|Kmeans|77.6±10.7|79.3±8.7|81.7±7.7|82.7±7.0|84.2±6.3|84.2±5.8|81.9±8.2|82.2±7.8|81.8
Colon|1NN|DRAGS|74.1±10.7|77±8.9|75.1±8.1|74.4±9.3|74.6±7.4|75.2±7.8|77.3±7.5|77.9±7.3|75.7
Colon|1NN|RFE|59.9±6.2|64±5.8|67.2±3.4|66.9±5.9|73±4.6|74.8±5.8|75.9±5.1|80.3±4.9|70.3
Colon|1NN|Kmeans|76.1±9.0|76.1±7.1|75.4±7.9|76.3±6.6|79.6±9.0|78.2±9.1|78.1±11.7|75.5±8.7|77.0
Leuk.|SVM|DRAGS|92.8±3.8|92.2±3.6|92.9±4|93.2±4.2|95±3.5|96.2±3|96.7±3.4|97.1±3.5|94.5
Leuk.|SVM|RFE|78.2±5|85.5±3.7|87.3±5.5|89.9±4.9|95.3±2.9|95.5±2.7|96.9±0.9|97.5±0.9|90.8
Leuk.|SVM|Kmeans|89.4±5.8|91.8±4.3|92.9±4.1|93.6±4.3|95.6±4.0|95.4±3.5|95.5±3.6|97.3±3.3|94.0
Leuk.|1NN|DRAGS|93.5±4|92.1±4.1|90.6±4.8|90.8±4.3|92.4±3.6|92.4±5|94.3±3.5|95.6±4.5|92.7
Leuk.|1NN|RFE|77.7±4.5|83.1±4.5|86.2±5|86.6±5.1|91.6±3|93.2±3.5|94.9±1.9|94.9±2.9|88.5
Leuk.|1NN|Kmeans|90.2±5.4|90.6±6.2|91.3±5.7|93.3±4.9|93.8±4.3|94.1±4.1|93.7±3.7|95.1±4.2|92.8
Lung|SVM|DRAGS|98.5±1.9|99±1.3|98.9±1.3|98.7±1.8|98.8±1.6|98.9±1.4|99±1.3|99.1±1.1|98.9
Lung|SVM|RFE|90.3±1.6|93.2±1.6|95.7±1.3|96.4±1.7|98.8±0.7|99.4±0.6|99.5±0.3|99.4±0.5|96.6
Lung|SVM|Kmeans|94.9±3.2|96.0±2.8|97.1±2.5|97.4±2.5|97.6±2.6|97.8±2.1|98.3±1.8|98.4±2.0|97.2
Lung|1NN|DRAGS|98.4±1.4|99±1.3|98.7±1.2|98.9±1.3|98.6±1.7|98.7±1.7|98.6±1.9|98.7±2|98.7
Lung|1NN|RFE|91.9±3.1|93.6±2.2|95±1.7|95.2±2|97.7±1.1|97.6±0.9|98.4±0.5|98.4±0.8|96.0
Lung|1NN|Kmeans|95.4±3.9|95.6±3.0|96.3±2.6|96.8±2.5|97.1±2.2|97.6±2.1|97.6±2.0|97.9±1.9|96.8
Pro.|SVM|DRAGS|86.6±4.6|88.6±4.9|90.5±5.5|89.8±5.9|89.1±6.4|89.9±5.4|91.3±4.6|91.7±3.9|89.7
Pro.|SVM|RFE|71.1±3.6|74.7±5|78.7±3.8|79.7±3.1|85.4±4.3|87.4±2.7|89.4±2.5|90.2±2.4|82.1
Pro.|SVM|Kmeans|83.1±6.8|85.1±7.3|85.3±7.2|85.7±7.0|88.7±6.0|88.0±5.9|87.4±5.4|88.1±5.2|86.5
Pro.|1NN|DRAGS|84.2±6.6|86.2±4.7|87.2±5.6|86.5±6.4|85.1±6.1|82.5±6.6|82.7±6.7|83.8±5.6|84.8
Pro.|1NN|RFE|64.3±4.8|70.7±4.6|74.7±3.2|77.4±4.2|79.8±4.3|83.2±5.1|83.9±3.6|84.6±2.8|77.3
Pro.|1NN|Kmeans|76.8±6.9|76.8±7.6|78.3±7.0|80±6.8|83.1±6.0|81.4±6.2|83.6±5.3|82.9±6.5|80.4
Lym.|SVM|DRAGS|82.4±8.5|86±11.3|94.3±10.7|94.8±10.3|99.2±1.8|98.3±3.9|97.5±4.8|98.6±4.5|93.9
Lym.|SVM|RFE|87.5±3.7|95.8±4|97.3±3.1|98±3.1|99±2.4|99.3±1.7|99.5±1.5|99.5±1.5|97.0
Lym.|SVM|Kmeans|87.9±9.5|91.9±9.4|94.4±7.6|94.4±7.7|97.3±3.6|97.6±3.7|98.2±2.9|98.4±2.8|95.0
Lym.|1NN|DRAGS|91.3±6|96.3±4.5|99±1.9|98.9±2.4|99.4±1.6|99±2.9|97.9±4.1|98.6±3.8|97.6
Lym.|1NN|RFE|95.2±3.8|97.7±2.9|97.3±3.7|98±3.1|98.8±2.5|98.8±2.2|99.2±1.9|99±2|98.0
Lym.|1NN|Kmeans|93.3±7.2|95.0±5.0|95.0±6.6|95.5±4.6|97.3±3.6|97.3±3.8|98.1±3.2|98.5±2.5|96.3
SRB.|SVM|DRAGS|86.3±10.2|94.1±5.3|96.5±3.9|97±3.6|99.5±1.9|99.2±1.8|99.2±1.8|99.4±1.6|96.4
SRB.|SVM|RFE|56.8±10.5|70.8±9.9|81.3±8.8|89.5±6.5|95.1±3.6|97±3.4|97.3±3.7|97.9±3.2|85.7
SRB.|SVM|Kmeans|61.4±15.3|72.7±16.1|79.0±15.6|85.4±11.3|90.7±6.3|93.0±5.5|93.9±5.9|93.1±6.8|83.7
SRB.|1NN|DRAGS|92.2±6.3|96.7±4.2|96.7±4.2|97.3±3.7|99.5±1.5|99.8±0.9|99.4±1.6|99.2±1.8|97.6
SRB.|1NN|RFE|76.5±10.3|80.3±7.5|86±7.1|88.3±8.5|92.4±5.1|92.5±6|93.3±5.2|94.6±4.5|88.0
SRB.|1NN|Kmeans|68.5±15.9|75.8±14.2|80.3±11.7|84.9±9.5|89.8±6.9|90.4±6.2|90.7±6.3|90.3±5.5|83.9
"""
TABLE2_SIZES = (4, 6, 8, 10, 20, 30, 40, 50)


def published_table2() -> pd.DataFrame:
    """The paper's Table 2 as a tidy frame: ``data, classifier, method, k, mean, sd``
    (``k = 0`` holds the printed average, with ``sd`` NaN)."""
    return pd.DataFrame(printed_rows(TABLE2, TABLE2_SIZES, average=True),
                        columns=["data", "classifier", "method", "k", "mean", "sd"])


def beside_table2(acc_summary: pd.DataFrame, names, classifiers, sizes, methods: dict
                  ) -> pd.DataFrame:
    """Ours beside the paper's Table 2: one row per (set, classifier, method, k).

    Parameters
    ----------
    acc_summary : DataFrame
        Our accuracies (``dataset, classifier, method, k, mean, sd``, in %).
    names : list of str
        The run's data sets (registry names; :data:`PAPER_LABEL` gives the paper's row).
    classifiers : list of str
        Classifier labels (``"SVM"``, ``"1NN"``).
    sizes : sequence of int
        The run's k.
    methods : dict
        Method key -> our label (:data:`PAPER_METHOD` gives the paper's).

    Returns
    -------
    DataFrame
        ``dataset, classifier, method, k, ours_mean, ours_sd, paper_mean, paper_sd``; ``k = 0``
        holds the means over k (the paper's printed average).
    """
    pub = published_table2()
    rows = []
    for name in names:
        for clf in classifiers:
            for m, label in methods.items():
                ours = acc_summary[(acc_summary.dataset == name)
                                        & (acc_summary.classifier == clf)
                                        & (acc_summary.method == label)]
                paper = pub[(pub.data == PAPER_LABEL.get(name, "")) & (pub.classifier == clf)
                            & (pub.method == PAPER_METHOD[m])]
                for k in sizes:
                    o = ours[ours.k == k]
                    p = paper[paper.k == k]
                    rows.append({
                        "dataset": name, "classifier": clf, "method": label, "k": k,
                        "ours_mean": float(o["mean"].iloc[0]),
                        "ours_sd": float(o["sd"].iloc[0]),
                        "paper_mean": float(p["mean"].iloc[0]) if len(p) else np.nan,
                        "paper_sd": float(p["sd"].iloc[0]) if len(p) else np.nan,
                    })
                avg = paper[paper.k == 0]
                rows.append({"dataset": name, "classifier": clf, "method": label, "k": 0,
                             "ours_mean": float(ours["mean"].mean()), "ours_sd": np.nan,
                             "paper_mean": float(avg["mean"].iloc[0]) if len(avg)
                             else np.nan, "paper_sd": np.nan})
    return pd.DataFrame(rows)
