"""The published numbers of Han (2012, ch. 7) for ``stablefs reproduce han2012-microarray``:
Tables 7.2-7.6 verbatim and read into tidy frames.
"""

from __future__ import annotations

import pandas as pd

from stablefs.experiments._published import printed_rows

__all__ = ["CV_SIZES", "SPLIT_SIZES", "TABLE_7_2", "TABLE_7_3", "TABLE_7_4", "TABLE_7_5",
           "TABLE_7_6", "published_consensus", "published_tables"]

# Tables 7.2-7.6 of Han (2012), verbatim (accuracy and AUC in %, mean±sd).
TABLE_7_2 = """\
Colon|SVM|SVM-RFE|82.1±3.5|82.1±3.8|81.9±4.9|82.4±3.6|82.1±3.3
Colon|SVM|En SVM-RFE|82.1±4.5|83.9±2.8|83.2±4.5|82.5±4.0|83.2±4.0
Colon|SVM|IW SVM-RFE|82.8±2.3|86.6±1.3|86.3±3.1|85.6±3.6|84.6±2.6
Colon|1NN|SVM-RFE|76.8±3.8|78.7±3.9|79.5±3.7|81.0±3.0|81.8±3.5
Colon|1NN|En SVM-RFE|76.5±4.5|80.3±2.5|79.0±3.1|79.2±3.1|80.2±3.6
Colon|1NN|IW SVM-RFE|76.4±4.0|77.6±5.6|77.7±3.3|78.8±2.4|79.7±2.6
Leukemia|SVM|SVM-RFE|95.0±2.0|96.0±1.4|96.7±1.2|96.8±0.7|97.1±0.8
Leukemia|SVM|En SVM-RFE|94.4±1.3|96.0±1.0|96.2±0.9|95.8±1.1|96.8±1.3
Leukemia|SVM|IW SVM-RFE|92.9±1.2|94.7±1.8|96.0±1.5|96.4±1.2|96.5±0.7
Leukemia|1NN|SVM-RFE|93.6±2.2|95.3±1.2|95.8±1.6|95.7±1.0|96.5±1.8
Leukemia|1NN|En SVM-RFE|93.3±1.9|94.2±2.2|95.1±1.8|95.4±3.0|95.7±2.4
Leukemia|1NN|IW SVM-RFE|92.8±1.9|95.1±1.3|95.3±1.4|94.7±1.4|95.7±1.8
Prostate|SVM|SVM-RFE|91.9±2.3|92.3±2.0|93.0±1.6|92.6±1.6|93.8±0.9
Prostate|SVM|En SVM-RFE|93.0±2.5|92.9±1.3|93.8±1.9|94.4±1.7|94.1±1.2
Prostate|SVM|IW SVM-RFE|93.0±1.3|92.0±1.1|91.3±1.6|91.2±1.7|91.2±1.2
Prostate|1NN|SVM-RFE|90.3±3.1|90.5±3.9|91.7±2.7|91.7±2.5|92.3±1.2
Prostate|1NN|En SVM-RFE|89.7±2.7|91.7±2.7|91.6±2.3|92.1±2.2|92.3±1.8
Prostate|1NN|IW SVM-RFE|91.0±1.7|90.9±1.3|90.5±2.2|90.2±2.4|91.6±2.3
Lung|SVM|SVM-RFE|98.3±0.4|98.8±0.3|99.0±0.3|99.0±0.3|98.9±0.0
Lung|SVM|En SVM-RFE|98.8±0.5|98.8±0.2|98.8±0.2|99.0±0.2|98.9±0.0
Lung|SVM|IW SVM-RFE|98.5±0.5|98.8±0.2|98.9±0.0|99.1±0.3|99.0±0.2
Lung|1NN|SVM-RFE|98.2±0.4|98.5±0.4|98.4±0.6|98.6±0.4|98.7±0.3
Lung|1NN|En SVM-RFE|98.8±0.2|98.5±0.4|98.6±0.5|98.7±0.3|98.5±0.3
Lung|1NN|IW SVM-RFE|98.8±0.6|98.5±0.6|98.8±0.2|98.9±0.0|98.9±0.0
"""

TABLE_7_3 = """\
Colon|SVM|ReliefF|84.0±2.0|84.8±1.2|84.0±3.1|84.2±2.7|85.2±3.6
Colon|SVM|En ReliefF|84.2±2.8|84.5±2.6|85.0±2.5|84.3±2.9|84.5±2.6
Colon|SVM|IW ReliefF|83.9±2.6|83.7±2.2|84.4±1.3|84.2±2.5|83.9±4.3
Colon|1NN|ReliefF|75.3±3.5|75.0±2.3|75.8±3.4|75.5±3.4|74.6±4.3
Colon|1NN|En ReliefF|77.0±3.0|75.5±2.9|76.1±3.6|76.8±3.1|76.2±2.8
Colon|1NN|IW ReliefF|74.7±4.6|76.9±3.4|75.7±2.6|75.8±3.2|76.1±2.6
Leukemia|SVM|ReliefF|92.1±1.5|94.7±1.1|95.1±1.3|96.0±1.2|96.0±0.8
Leukemia|SVM|En ReliefF|92.6±0.9|93.9±1.3|94.4±1.6|95.3±1.5|95.4±1.5
Leukemia|SVM|IW ReliefF|92.5±1.5|93.9±1.2|94.9±0.9|95.4±0.7|95.3±1.5
Leukemia|1NN|ReliefF|91.9±1.4|91.9±1.7|91.7±2.1|92.4±2.3|91.9±2.6
Leukemia|1NN|En ReliefF|91.8±1.8|91.9±3.0|91.1±1.8|91.7±2.5|91.8±2.1
Leukemia|1NN|IW ReliefF|92.9±1.0|92.1±2.1|91.3±2.5|91.5±2.2|91.0±2.3
Prostate|SVM|ReliefF|92.3±1.1|92.9±1.4|92.1±1.6|92.4±1.8|91.2±1.3
Prostate|SVM|En ReliefF|92.1±1.4|92.5±2.3|91.7±1.1|92.0±1.1|91.4±1.7
Prostate|SVM|IW ReliefF|92.5±1.1|91.8±2.2|92.0±1.8|91.5±1.5|91.1±0.9
Prostate|1NN|ReliefF|88.3±2.2|87.5±2.5|86.9±2.8|87.3±2.1|87.2±2.6
Prostate|1NN|En ReliefF|86.4±2.9|86.5±2.3|85.5±3.1|85.7±2.0|86.4±2.0
Prostate|1NN|IW ReliefF|89.5±1.4|89.3±2.3|88.0±1.5|87.5±1.9|87.1±1.4
Lung|SVM|ReliefF|98.6±0.3|98.8±0.2|98.9±0.0|99.1±0.3|99.0±0.2
Lung|SVM|En ReliefF|98.7±0.3|98.9±0.0|98.8±0.2|98.8±0.2|99.0±0.2
Lung|SVM|IW ReliefF|98.6±0.5|98.8±0.2|98.9±0.0|98.8±0.2|98.8±0.2
Lung|1NN|ReliefF|98.7±0.5|98.7±0.3|98.8±0.2|98.7±0.3|98.6±0.4
Lung|1NN|En ReliefF|98.5±0.7|98.6±0.4|98.7±0.3|98.7±0.3|98.5±0.4
Lung|1NN|IW ReliefF|98.8±0.6|98.7±0.4|98.5±0.5|98.6±0.3|98.5±0.5
"""

TABLE_7_4 = """\
Colon|SVM|SVM-RFE|76.4±9.5|77.5±8.2|79.2±8.7|79.4±8.5|80.1±8.7
Colon|SVM|En SVM-RFE|80.3±7.9|79.4±9.0|78.6±8.3|78.6±9.1|79.4±8.7
Colon|SVM|IW SVM-RFE|79.5±9.1|81.2±8.4|78.4±10.0|76.2±10.0|76.2±9.5
Colon|1NN|SVM-RFE|73.0±9.6|76.6±8.9|78.4±8.7|78.1±8.4|77.8±8.5
Colon|1NN|En SVM-RFE|73.6±8.7|77.1±9.1|79.6±8.4|80.1±8.8|79.6±8.0
Colon|1NN|IW SVM-RFE|72.0±9.2|75.3±8.2|78.0±8.3|79.2±7.8|78.9±8.5
Leukemia|SVM|SVM-RFE|92.8±5.8|96.3±3.8|96.9±3.3|96.8±3.5|97.0±3.4
Leukemia|SVM|En SVM-RFE|92.9±5.4|96.4±3.9|97.2±3.1|97.0±3.4|96.7±3.5
Leukemia|SVM|IW SVM-RFE|91.2±5.6|96.2±3.9|96.4±3.3|96.5±3.4|96.8±3.5
Leukemia|1NN|SVM-RFE|91.2±6.0|94.5±5.0|94.8±4.9|95.0±5.0|95.2±4.4
Leukemia|1NN|En SVM-RFE|92.4±5.4|95.0±4.9|95.6±4.7|95.2±4.6|94.8±4.8
Leukemia|1NN|IW SVM-RFE|90.7±5.3|94.1±4.9|95.4±4.4|95.4±4.5|95.4±4.4
Prost|SVM|SVM-RFE|89.8±5.1|91.3±4.1|92.1±3.8|92.1±4.3|92.2±3.9
Prost|SVM|En SVM-RFE|92.9±4.1|92.0±4.5|92.0±4.6|92.6±4.0|92.7±4.3
Prost|SVM|IW SVM-RFE|93.4±3.6|91.3±4.5|90.0±4.8|90.7±4.9|91.2±4.7
Prost|1NN|SVM-RFE|88.2±4.9|90.5±4.6|90.8±4.4|91.1±4.2|91.5±4.5
Prost|1NN|En SVM-RFE|89.6±4.7|91.4±4.6|90.8±4.4|90.7±4.4|90.7±4.2
Prost|1NN|IW SVM-RFE|90.5±4.0|90.1±5.1|89.6±4.7|89.7±4.8|89.6±5.1
Lung|SVM|SVM-RFE|95.8±4.3|96.8±3.1|96.9±3.1|96.8±3.1|96.8±3.1
Lung|SVM|En SVM-RFE|96.3±3.5|96.9±3.2|96.9±3.1|97.0±3.1|96.9±3.1
Lung|SVM|IW SVM-RFE|94.7±4.7|96.9±3.1|96.9±3.1|97.3±3.1|97.2±3.1
Lung|1NN|SVM-RFE|94.8±4.7|96.0±3.6|96.2±3.5|96.4±3.5|96.5±3.4
Lung|1NN|En SVM-RFE|96.1±3.9|96.3±3.9|96.5±3.4|96.6±3.5|96.6±3.4
Lung|1NN|IW SVM-RFE|96.0±4.6|95.9±4.5|95.8±4.4|95.8±4.3|95.9±4.3
"""

TABLE_7_5 = """\
Colon|SVM|ReliefF|78.8±8.8|80.1±8.8|78.5±8.7|77.5±8.9|76.1±8.5
Colon|SVM|En ReliefF|78.9±8.9|80.2±9.9|79.1±9.4|77.3±9.6|76.1±9.0
Colon|SVM|IW ReliefF|78.3±8.2|77.6±9.4|78.1±9.4|76.4±10.0|75.4±10.0
Colon|1NN|ReliefF|73.0±8.4|73.4±8.2|75.4±8.3|76.5±7.7|77.0±8.8
Colon|1NN|En ReliefF|72.1±9.7|73.9±8.9|74.0±8.8|75.5±8.5|75.3±9.6
Colon|1NN|IW ReliefF|72.8±8.5|72.0±9.1|74.6±10.7|75.8±10.5|76.0±9.9
Leukemia|SVM|ReliefF|91.5±5.3|95.2±4.7|95.9±4.1|96.1±3.9|96.4±3.4
Leukemia|SVM|En ReliefF|91.3±5.5|94.7±4.3|95.7±4.0|96.3±3.7|96.2±3.8
Leukemia|SVM|IW ReliefF|91.2±5.6|94.5±5.2|95.7±4.7|95.2±4.9|95.3±5.0
Leukemia|1NN|ReliefF|89.7±5.2|90.2±6.1|90.3±5.6|91.1±6.0|91.0±6.1
Leukemia|1NN|En ReliefF|89.6±5.2|90.4±6.2|90.5±6.1|90.6±6.1|90.7±5.9
Leukemia|1NN|IW ReliefF|90.3±5.8|89.7±7.2|91.5±6.7|89.8±7.0|90.2±7.9
Prostate|SVM|ReliefF|93.3±3.8|93.0±4.1|91.4±4.4|91.4±4.2|91.7±4.2
Prostate|SVM|En ReliefF|93.4±3.5|92.4±4.0|91.4±4.1|91.0±4.4|91.9±4.2
Prostate|SVM|IW ReliefF|93.3±3.8|92.7±3.8|91.4±4.1|91.3±4.7|91.4±4.1
Prostate|1NN|ReliefF|89.3±4.5|87.2±5.6|88.5±5.3|89.2±5.1|89.5±4.7
Prostate|1NN|En ReliefF|88.6±4.8|87.2±5.6|88.1±5.5|88.3±5.6|88.4±5.1
Prostate|1NN|IW ReliefF|89.3±4.7|87.9±5.4|89.2±5.4|89.3±5.1|89.5±5.1
Lung|SVM|ReliefF|96.2±4.2|96.7±3.2|96.7±3.3|97.0±3.3|97.4±3.0
Lung|SVM|En ReliefF|97.0±3.0|97.0±3.1|97.1±3.1|97.2±3.2|97.5±3.0
Lung|SVM|IW ReliefF|96.8±4.7|96.7±4.0|98.6±2.4|98.4±2.4|98.8±2.2
Lung|1NN|ReliefF|96.0±4.5|95.7±4.4|95.4±4.0|95.2±4.2|94.9±4.3
Lung|1NN|En ReliefF|93.0±8.9|96.8±3.3|96.2±3.6|95.8±3.8|95.6±4.0
Lung|1NN|IW ReliefF|92.9±6.5|96.7±3.4|96.5±3.5|96.8±3.6|96.3±4.4
"""

TABLE_7_6 = """\
Colon|SVM-RFE|642|18|1
Colon|En SVM-RFE|512|25|7
Colon|IW SVM-RFE|350|36|16
Leukemia|SVM-RFE|688|18|4
Leukemia|En SVM-RFE|397|30|13
Leukemia|IW SVM-RFE|469|28|14
Prostate|SVM-RFE|722|18|4
Prostate|En SVM-RFE|371|32|13
Prostate|IW SVM-RFE|262|37|15
Lung|SVM-RFE|558|22|6
Lung|En SVM-RFE|308|34|12
Lung|IW SVM-RFE|246|42|22
"""
#: the columns of Tables 7.2-7.3 (k under 10 x 10-fold CV) and of Tables 7.4-7.5 (k over the
#: random splits): the thesis' grids
CV_SIZES = (10, 20, 30, 40, 50)
SPLIT_SIZES = (10, 50, 100, 150, 200)


def published_tables() -> pd.DataFrame:
    """Tables 7.2-7.5 as a tidy frame: ``table, data, classifier, method, k, mean, sd``."""
    rows = []
    for table, text, sizes in (("7.2", TABLE_7_2, CV_SIZES), ("7.3", TABLE_7_3, CV_SIZES),
                               ("7.4", TABLE_7_4, SPLIT_SIZES), ("7.5", TABLE_7_5, SPLIT_SIZES)):
        rows += [(table, *row) for row in printed_rows(text, sizes, rename={"Prost": "Prostate"})]
    return pd.DataFrame(rows, columns=["table", "data", "classifier", "method", "k", "mean",
                                       "sd"])


def published_consensus() -> pd.DataFrame:
    """Table 7.6: ``data, method, distinct, over50, over85``."""
    rows = [line.split("|") for line in TABLE_7_6.strip().splitlines()]
    return pd.DataFrame([(d, m, int(a), int(b), int(c)) for d, m, a, b, c in rows],
                        columns=["data", "method", "distinct", "over50", "over85"])
