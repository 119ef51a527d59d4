"""
A first comparison on the Colon cancer data
===========================================

The main job of stablefs, from Python: fit several feature selection methods on the same
resamples of a data set, measure how stable their gene lists are and how well classifiers
trained on them predict, and let the comparison recommend a (method, k) and check it.

The data are Alon et al.'s (1999) Colon cancer set: 62 tissue samples (40 tumours, 22
normal), 2,000 genes. It ships as raw (unlogged) intensities, so the values are analysed on
the log2 scale (``scale="log2"``, the ``--log2`` of the command line).

This is ``stablefs compare colon -m relieff,iw-relieff,ttest,svm-rfe -k 10,20,50 --log2
--permutations 20 --nested 3:3``: a smaller permutation test and nested estimate than the
defaults (100 permutations, 5:3), so that the page builds quickly.
"""

# %%
# Run the comparison
# ------------------
# Four methods: ReliefF, its instance-weighted form (Han 2012, ch. 4), the Welch t-test and
# SVM-RFE (Guyon et al. 2002), each fitted on 20 random stratified 2/3 splits of the samples,
# keeping the top k = 10, 20 and 50 genes.
import textwrap

import stablefs

result = stablefs.compare(
    "colon",
    methods="relieff,iw-relieff,ttest,svm-rfe",
    sizes=[10, 20, 50],
    repeats=20,
    scale="log2",
    permutations=20,
    nested=(3, 3),
)
result

# %%
# Stability
# ---------
# Nogueira, Sechidis and Brown's (2018) stability of the selected gene lists over the 20
# splits: 1 when every split selects the same genes, about 0 when they agree no more than
# random lists of the same sizes would. Each estimate comes with its 95% interval.
stab = result.stability
print(stab.pivot(index="method", columns="k", values="estimate").round(3))
print(stab[stab["k"] == 20][["method", "estimate", "low", "high"]].round(3).to_string(index=False))

# %%
# The stability against k, with the intervals. SVM-RFE, a multivariate method, is far less
# stable than the three others on this data.
result.plot_stability()

# %%
# Accuracy
# --------
# The held-out accuracy of a linear SVM and of 1-nearest-neighbour trained on each split's
# selected genes and tested on the split's other third, with a Student-t interval of the mean
# over the splits. The dashed line is the majority-class baseline: always answering the class
# that is more frequent in the training part.
acc = result.accuracy
svm = acc[acc["classifier"] == "svm"].astype({"k": int})
print(svm.pivot(index="method", columns="k", values="mean").round(3))
result.plot_accuracy()

# %%
# The trade-off and the recommendation
# ------------------------------------
# Every (method, k) is a point of stability against accuracy. The recommendation is the most
# stable point on the Pareto front whose accuracy is tied with the best (95% intervals
# overlapping); among equally stable ones the smaller k wins.
print(textwrap.fill(result.recommendation.sentence, 88))
result.plot_tradeoff()

# %%
# Is there any signal?
# --------------------
# A comparison always has a most stable, most accurate pair. The permutation test repeats the
# whole procedure (every method fitted on 3 resamples, the recommendation rule choosing a
# pair) on permuted labels, every selector refitted (Ambroise and McLachlan 2002), and
# compares the chosen pair's held-out balanced accuracy with the one on the real labels. With
# 20 permutations the smallest possible p is 1/21 = 0.048; the default 100 reaches 0.0099.
print(result.signal.verdict)
print(result.permutation.head())

# %%
# The nested estimate repeats the whole choice of (method, k) inside the training part of a
# few outer resamples and scores the inner choice on the outer test part: the accuracy of the
# *procedure*, which a winner's accuracy overstates.
print(result.nested)

# %%
# Which genes
# -----------
# Which genes each split selected, for the recommended method and k: a row per gene, a
# column per split. A stable method gives solid rows.
result.plot_selections()

# %%
# The consensus signature: genes selected in more than half of the splits, with their
# frequency and descriptive statistics computed on the whole data.
rec = result.recommendation
sig = result.signature
columns = ["feature", "frequency", "mean_rank", "higher_in", "effect_size_whole_data",
           "fdr_bh_whole_data"]
mine = sig[(sig["method"] == rec.method) & (sig["k"] == rec.k)]
print(mine[columns].round(4).to_string(index=False))

# %%
# The run folder
# --------------
# ``save`` writes exactly what ``stablefs compare --out`` writes: the tidy CSV tables,
# ``run.json``, ``selections.parquet`` and the HTML report; ``stablefs.read_comparison``
# reads it back.
import tempfile
from pathlib import Path

folder = result.save(Path(tempfile.mkdtemp()) / "stablefs-colon")
print(sorted(p.name for p in folder.iterdir()))
again = stablefs.read_comparison(folder)
print(again.recommendation.method, again.recommendation.k)
