"""Cross-check against an independent implementation: pyensemblefs (a Python port of R's stabm).

Fourteen measures are defined the same way in both libraries and must agree to rounding, for
subsets of unequal sizes. Not compared, because pyensemblefs 0.4 implements other formulas
under these names: ``sechidis`` (it ignores the similarity matrix and averages |A ∩ B| /
min(|A|, |B|)) and the ``intersection.*`` family (all four reduce to the density of similar
pairs, count / (|A| |B|), not stabm's adjusted intersection counts).
"""

import numpy as np
import pytest

import stablefs.stability as st

peer = pytest.importorskip("pyensemblefs.stability.stability",
                           reason="pyensemblefs (independent implementation) not installed")

SHARED = {
    "jaccard": st.jaccard, "dice": st.dice, "ochiai": st.ochiai, "hamming": st.hamming,
    "phi.coefficient": st.phi, "kappa.coefficient": st.kappa, "lustgarten": st.lustgarten,
    "wald": st.wald, "davis": st.davis, "novovicova": st.novovicova, "somol": st.somol,
    "nogueira": st.nogueira,
}


def random_subsets(rng, p, m, low, high):
    return [sorted(rng.choice(p, int(rng.integers(low, high + 1)), replace=False).tolist())
            for _ in range(m)]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("name", sorted(SHARED))
def test_subset_measures_agree(name, seed):
    rng = np.random.default_rng(seed)
    p = int(rng.integers(15, 120))
    subsets = random_subsets(rng, p, m=int(rng.integers(2, 12)), low=1, high=p // 2)
    theirs = peer.stability(features=subsets, measure=name, p=p, index_base=0)
    assert SHARED[name](subsets, p) == pytest.approx(theirs, rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_kuncheva_equals_peer_phi_for_equal_sizes(seed):
    rng = np.random.default_rng(seed)
    subsets = random_subsets(rng, 80, m=7, low=10, high=10)
    theirs = peer.stability(features=subsets, measure="phi", p=80, index_base=0)
    assert st.kuncheva(subsets, 80) == pytest.approx(theirs, rel=1e-10)


@pytest.mark.parametrize("seed", range(4))
def test_zucknick_agrees(seed):
    rng = np.random.default_rng(seed)
    factors = rng.normal(size=(40, 6))
    X = np.repeat(factors, 10, axis=1) + 0.25 * rng.normal(size=(40, 60))
    similarity = np.abs(np.corrcoef(X.T))
    subsets = random_subsets(rng, 60, m=6, low=3, high=12)
    theirs = peer.stability(features=subsets, measure="zucknick", p=60, index_base=0,
                            sim_mat=similarity, threshold=0.9)
    assert st.zucknick(subsets, X, threshold=0.9) == pytest.approx(theirs, rel=1e-9)
