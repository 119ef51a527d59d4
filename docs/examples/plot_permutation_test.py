"""
No signal: the permutation test on shuffled labels
==================================================

A comparison always finds a most stable and most accurate (method, k). That does not mean
the genes predict anything: with thousands of genes and tens of samples, some genes separate
any labelling of the samples on the training data. ``stablefs compare`` therefore checks its
recommendation two ways before recommending it:

* the **majority-class baseline**: the held-out accuracy of always answering the class that
  is more frequent in the training part (the dashed line of the accuracy plots);
* a **permutation test of the whole procedure**: on 3 resamples every method is fitted and
  the recommendation rule chooses a (method, k); the same is repeated on permuted labels,
  every selector refitted (reusing the real selections would leak the labels: Ambroise and
  McLachlan 2002) and the choice made again, and the chosen pair's held-out balanced accuracy
  is compared with the permuted ones; the test stops early once p ≥ 0.05 is certain (Besag
  and Clifford 1991).

Here the Colon data with their labels shuffled: whatever the comparison finds is noise.
"""

# %%
import textwrap

import numpy as np

import stablefs

colon = stablefs.load("colon", log2=True)
shuffled = np.random.default_rng(0).permutation(colon.y)
result = stablefs.compare((colon.X, shuffled), feature_names=list(colon.feature_names),
                          methods="ttest,relieff,iw-relieff", sizes=[10, 20, 50],
                          permutations=100, nested=0)
print(result.signal.verdict)
print(textwrap.fill(result.recommendation.sentence, 88))

# %%
# No method predicts above the baseline on the test parts, and the permutation test finds
# the procedure's accuracy ordinary among its accuracies on permuted labels:
print(result.signal)
result.plot_accuracy()

# %%
# The permutation distribution (row 0 is the observed statistic, the mean held-out balanced
# accuracy on 3 resamples of the pair the procedure chose; every row names the pair chosen on
# its labels). The test stops as soon as p ≥ 0.05 is certain, here long before its 100
# permutations.
import matplotlib.pyplot as plt

perm = result.permutation
print(perm.head())
observed, permuted = perm["statistic"].iloc[0], perm["statistic"].iloc[1:]
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.hist(permuted, bins=15, color="0.7", label=f"{len(permuted)} permutations")
ax.axvline(observed, color="C3", lw=2, label="observed")
ax.set_xlabel("mean held-out balanced accuracy")
ax.legend()
plt.show()

# %%
# The gene lists are unstable too (poor, below 0.4 on Nogueira's scale), but not at 0: some
# genes separate the shuffled classes in many of the splits. Low stability is a warning sign;
# stability alone is no evidence of signal, which is why the test is there.
print(result.stability.pivot(index="method", columns="k", values="estimate").round(3))

# %%
# The same comparison on the real labels finds evidence of signal
# (:ref:`sphx_glr_auto_examples_plot_first_comparison.py`). On the command line, a run
# without evidence still exits with status 0; the summary opens with "No evidence of
# signal", nothing is recommended, and ``signature.csv`` says so in its ``signal`` column.
