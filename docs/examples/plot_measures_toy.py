"""
How stability measures behave, on toy subsets
=============================================

A stability measure turns m selected subsets into one number. The measures differ in ways
that matter in practice: whether they are corrected for chance, whether they accept subsets
of different sizes, and whether they credit two different but correlated features. Nogueira,
Sechidis and Brown (2018) list the properties a measure should have (fully defined for any
collection of subsets, strict monotonicity in the agreement, bounds, maximum only for
identical subsets, correction for chance) and show that their measure, a generalisation of
Kuncheva's index (Kuncheva 2007), is the only one known to have them all.
"""

# %%
# Hand-made subsets
# -----------------
# Ten features; three runs that agree on features 0–2 and differ on the rest.
import numpy as np

from stablefs.stability import jaccard, kuncheva, nogueira, nogueira_ci

p = 10
same = [[0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]]
close = [[0, 1, 2, 3], [0, 1, 2, 4], [0, 1, 2, 5]]
for name, subsets in [("identical", same), ("three of four shared", close)]:
    print(f"{name:22s} Jaccard {jaccard(subsets):.3f}  Kuncheva {kuncheva(subsets, p):.3f}  "
          f"Nogueira {nogueira(subsets, p):.3f}")

# %%
# Correction for chance
# ---------------------
# Random subsets of size k from p = 100 features share features by chance, more the larger
# k is. The Jaccard index grows with k although nothing is stable; Kuncheva's index and
# Nogueira's measure subtract the agreement expected by chance and stay near 0.
import matplotlib.pyplot as plt

rng = np.random.default_rng(0)
p, m = 100, 20
sizes = list(range(5, 96, 5))
curves = {"Jaccard": [], "Kuncheva": [], "Nogueira": []}
for k in sizes:
    subsets = [rng.choice(p, size=k, replace=False) for _ in range(m)]
    curves["Jaccard"].append(jaccard(subsets, p))
    curves["Kuncheva"].append(kuncheva(subsets, p))
    curves["Nogueira"].append(nogueira(subsets, p))
fig, ax = plt.subplots(figsize=(6.5, 3.8))
for name, values in curves.items():
    ax.plot(sizes, values, "o-", ms=3, label=name)
ax.axhline(0, color="grey", lw=0.8)
ax.set_xlabel("k (random subsets of size k from p = 100)")
ax.set_ylabel("stability of 20 random subsets")
ax.legend()
plt.show()

# %%
# Subsets of different sizes
# --------------------------
# Kuncheva's index needs subsets of one size (a threshold on a score, an L1 model or stability
# selection give different sizes); Nogueira's measure does not, and has an interval.
varying = [[0, 1, 2], [0, 1, 2, 3, 4], [0, 1, 2, 3]]
print("Nogueira, sizes 3, 5, 4:", round(nogueira(varying, 10), 3))
try:
    kuncheva(varying, 10)
except ValueError as error:
    print("Kuncheva:", error)

# %%
# With equal sizes the two coincide, which is why the reports use Nogueira's measure: the
# same number where Kuncheva's is defined, and a value with a 95% interval everywhere. Here 15
# runs of size 5 from p = 50 features, each keeping each of features 0–3 with probability 0.8
# and filling up with random others:
runs = []
for _ in range(15):
    kept = [j for j in range(4) if rng.random() < 0.8]
    others = rng.choice(np.arange(4, 50), size=5 - len(kept), replace=False)
    runs.append(kept + others.tolist())
estimate, variance, low, high = nogueira_ci(runs, 50)
print(f"Nogueira {estimate:.3f}, Kuncheva {kuncheva(runs, 50):.3f}, "
      f"95% interval [{low:.3f}, {high:.3f}]")

# %%
# Correlated features
# -------------------
# Three runs share features 10 and 20 and each picks a *different* feature from one block of
# highly correlated features. Measures on the indices credit only the two shared features;
# the similarity-adjusted measures also count a feature of one subset as matched by a
# feature of the other correlated beyond a threshold (``|r| ≥ 0.9`` by default) (Zucknick,
# Richardson and Stronach 2008; Sechidis et al. 2020; Bommert and Rahnenführer's adjusted
# intersection count, 2020).
from stablefs.stability import intersection_count, sechidis, zucknick

base = rng.normal(size=(60, 1))
block = base + 0.1 * rng.normal(size=(60, 5))  # features 0-4, correlation about 0.99
noise = rng.normal(size=(60, 45))
X = np.hstack([block, noise])
runs = [[0, 10, 20], [1, 10, 20], [2, 10, 20]]  # the block's feature differs every run
print(f"Jaccard {jaccard(runs, 50):.3f}   Nogueira {nogueira(runs, 50):.3f}")
print(f"Zucknick {zucknick(runs, X):.3f}   Sechidis {sechidis(runs, X):.3f}   "
      f"adjusted intersection count {intersection_count(runs, X):.3f}")

# %%
# When to use which: :doc:`/user_guide/measures`; every measure of ``stablefs measures`` is in
# :mod:`stablefs.stability`.
