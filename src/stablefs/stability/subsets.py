"""Pairwise similarity measures of selected subsets, averaged over pairs.

For two subsets S_i, S_j of p features write a = |S_i ∩ S_j|, k_i = |S_i|, k_j = |S_j|,
b = k_i − a, c = k_j − a, d = p − a − b − c. Every measure here is a function s(a, k_i, k_j, p)
and the stability of m results is its mean over all m(m−1)/2 pairs (Han 2012, eq. 5.4)

    S = 2 / (m (m − 1)) · Σ_{i<j} s(S_i, S_j),

or, with ``reference=R``, the mean similarity of each result to one reference result (Yu, Ding
and Loscalzo 2008, eq. 7): S = (1/m) Σ_i s(R, S_i). All intersections come from one product of
the (m × p) boolean matrix (restricted to the features selected at least once).

Conventions for degenerate input (never a silent NaN):

* fewer than two results without ``reference`` → :class:`~stablefs.StablefsError`;
* measures that are not corrected for chance (Jaccard, Dice, Ochiai) define the similarity of
  two *empty* subsets as 1 (they are identical) and of an empty and a non-empty subset as 0;
  Hamming is always defined;
* chance-corrected measures (Kuncheva, Lustgarten, Phi, Kappa, Wald, unadjusted) are undefined
  when the chance-expected overlap is forced (a subset empty or holding all p features; see each
  function) and raise a one-line :class:`~stablefs.StablefsError` naming the pair's sizes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from stablefs._errors import StablefsError
from stablefs.stability._common import PairScores, fail_pairs, pair_index, with_sections
from stablefs.stability._inputs import (
    SubsetData,
    as_reference,
    as_subsets,
    listing,
    named,
    plain,
)

if TYPE_CHECKING:
    from typing import Literal, TypeAlias

    from numpy.typing import NDArray

    from stablefs.stability._inputs import FeatureNames, Subset, Subsets

    #: the names of the pairwise measures of this module
    PairwiseMeasure: TypeAlias = Literal["kuncheva", "jaccard", "dice", "hamming", "ochiai",
                                         "lustgarten", "phi", "kappa", "wald", "unadjusted"]

__all__ = [
    "dice",
    "hamming",
    "jaccard",
    "kappa",
    "kuncheva",
    "lustgarten",
    "ochiai",
    "phi",
    "similarity_matrix",
    "unadjusted",
    "wald",
]

Kernel = Callable[[np.ndarray, np.ndarray, np.ndarray, int], np.ndarray]


# ------------------------------------------------------------------------------ kernels
def _k_kuncheva(a, ki, kj, p):
    bad = ki != kj
    if bad.any():
        t = int(np.flatnonzero(bad)[0])
        raise StablefsError(
            f"Kuncheva's index needs subsets of equal size, got sizes {int(ki[t])} and "
            f"{int(kj[t])}: use nogueira, phi or lustgarten for subsets of different sizes."
        )
    bad = (ki == 0) | (ki == p)
    if bad.any():
        fail_pairs("Kuncheva's index", bad, ki, kj,
                   f"it needs 0 < k < p = {p} (k = 0 or k = p leaves nothing to chance).")
    return (a * p - ki * kj) / (ki * (p - ki))


def _both_empty(ki, kj):
    return (ki == 0) & (kj == 0)


def _k_jaccard(a, ki, kj, p):
    union = ki + kj - a
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(union > 0, a / np.where(union > 0, union, 1), 1.0)
    return out


def _k_dice(a, ki, kj, p):
    tot = ki + kj
    return np.where(tot > 0, 2 * a / np.where(tot > 0, tot, 1), 1.0)


def _k_hamming(a, ki, kj, p):
    return 1.0 - (ki + kj - 2 * a) / p


def _k_ochiai(a, ki, kj, p):
    den = np.sqrt(ki * kj)
    out = np.where(den > 0, a / np.where(den > 0, den, 1), 0.0)
    return np.where(_both_empty(ki, kj), 1.0, out)


def _k_lustgarten(a, ki, kj, p):
    den = np.minimum(ki, kj) - np.maximum(0, ki + kj - p)
    bad = den == 0
    if bad.any():
        fail_pairs("Lustgarten's measure", bad, ki, kj,
                   f"a subset is empty or holds all p = {p} features, so the overlap is forced.")
    return (a - ki * kj / p) / den


def _k_phi(a, ki, kj, p):
    bad = (ki == 0) | (ki == p) | (kj == 0) | (kj == p)
    if bad.any():
        fail_pairs("Phi", bad, ki, kj,
                   f"a subset is empty or holds all p = {p} features (zero variance).")
    return (a * p - ki * kj) / np.sqrt(ki * (p - ki) * kj * (p - kj))


def _k_kappa(a, ki, kj, p):
    den = p * (ki + kj) - 2 * ki * kj
    bad = den == 0
    if bad.any():
        fail_pairs("Cohen's kappa", bad, ki, kj,
                   f"both subsets are empty or both hold all p = {p} features "
                   "(chance agreement is 1).")
    return 2 * (a * p - ki * kj) / den


def _k_wald(a, ki, kj, p):
    den = p * np.minimum(ki, kj) - ki * kj
    bad = den == 0
    if bad.any():
        fail_pairs("Wald's measure", bad, ki, kj,
                   f"a subset is empty or holds all p = {p} features, so the overlap is forced.")
    return (a * p - ki * kj) / den


def _k_unadjusted(a, ki, kj, p):
    den = np.sqrt(ki * kj) - ki * kj / p
    bad = (ki * kj == 0) | ((ki == p) & (kj == p))
    if bad.any():
        fail_pairs("the unadjusted measure", bad, ki, kj,
                   f"a subset is empty, or both hold all p = {p} features.")
    return (a - ki * kj / p) / den


_KERNELS: dict[str, tuple[Kernel, bool]] = {  # name -> (kernel, needs n_features)
    "kuncheva": (_k_kuncheva, True),
    "jaccard": (_k_jaccard, False),
    "dice": (_k_dice, False),
    "hamming": (_k_hamming, True),
    "ochiai": (_k_ochiai, False),
    "lustgarten": (_k_lustgarten, True),
    "phi": (_k_phi, True),
    "kappa": (_k_kappa, True),
    "wald": (_k_wald, True),
    "unadjusted": (_k_unadjusted, True),
}


def pair_scores(name: str, subsets: Subsets, n_features: int | None = None,
                reference: Subset | None = None,
                feature_names: FeatureNames | None = None) -> PairScores:
    """The per-pair similarities of measure ``name`` (used by the registry's intervals)."""
    kernel, needs_p = _KERNELS[name]
    subsets, n_features, reference = named(subsets, n_features, feature_names, reference)
    data = as_subsets(subsets, n_features, require_p=needs_p,
                      min_subsets=1 if reference is not None else 2)
    p = data.p
    if reference is not None:
        ref = as_reference(reference, data)
        if not data.p_known:
            p = max(p, ref.p)
        rmask = np.zeros(p, dtype=bool)
        rmask[ref.cols] = True
        a = data.Z[:, rmask[data.cols]].sum(axis=1).astype(float)
        ki = data.sizes.astype(float)
        kj = np.full_like(ki, float(ref.sizes[0]))
        return PairScores(kernel(a, kj, ki, p), np.arange(data.m), None, data.m)
    A = data.intersections()
    i, j = pair_index(data.m)
    k = data.sizes.astype(float)
    values = kernel(A[i, j].astype(float), k[i], k[j], p)
    return PairScores(values, i, j, data.m)


def _pairwise(name: str, subsets, n_features, reference, feature_names) -> float:
    return pair_scores(name, subsets, n_features, reference, feature_names).mean


def similarity_matrix(subsets: Subsets, n_features: int | None = None,
                      measure: PairwiseMeasure = "jaccard", *,
                      feature_names: FeatureNames | None = None) -> NDArray[np.float64]:
    """Compute the (m × m) matrix of pairwise similarities s(S_i, S_j) of one pairwise measure.

    Parameters
    ----------
    subsets : sequence of index collections or boolean matrix (m × p)
        The m selection results.
    n_features : int, optional
        p; needed for index collections with p-dependent measures.
    measure : str
        One of ``kuncheva, jaccard, dice, hamming, ochiai, lustgarten, phi, kappa, wald,
        unadjusted``.
    feature_names : sequence of str, optional
        The p column names; subsets may then list names instead of indices.

    Returns
    -------
    ndarray of shape (m, m)
        Symmetric; the diagonal holds s(S_i, S_i) (1 for every measure where defined).

    References
    ----------
    .. [1] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, eq. 5.4 (the mean over pairs).

    Examples
    --------
    >>> from stablefs.stability import similarity_matrix
    >>> subsets = [[0, 1, 2], [0, 1, 3], [4, 5, 6]]
    >>> similarity_matrix(subsets, 10, measure="jaccard").round(2).tolist()
    [[1.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    if measure not in _KERNELS:
        raise StablefsError(
            f"unknown pairwise measure {plain(measure)}: choose one of "
            f"{listing(_KERNELS, limit=10)}."
        )
    kernel, needs_p = _KERNELS[measure]
    subsets, n_features, _ = named(subsets, n_features, feature_names)
    data: SubsetData = as_subsets(subsets, n_features, require_p=needs_p)
    A = data.intersections().astype(float)
    k = data.sizes.astype(float)
    ki, kj = np.broadcast_arrays(k[:, None], k[None, :])
    return kernel(A, ki, kj, data.p).reshape(data.m, data.m)


_COMMON = """
    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        The m selection results.
    n_features : int, optional
        p, the number of features; {p_note}
    reference : index collection or boolean mask, optional
        Compare each result with this reference result (Yu, Ding and Loscalzo 2008, eq. 7)
        instead of averaging over all pairs (Han 2012, eq. 5.4).
    feature_names : sequence of str, optional
        The p column names, in order. Subsets (and ``reference``) may then list feature
        names instead of indices; ``n_features`` defaults to their number. A name not in
        ``feature_names`` is an error.

    Returns
    -------
    float
        The mean pairwise similarity.
"""
_NEEDS_P = "required for index collections (not for a boolean matrix)."
_NO_P = "not needed (the value does not depend on p)."


def _params(needs_p: bool):
    """Append the shared Parameters/Returns sections to a measure's docstring."""

    def deco(func):
        block = _COMMON.format(p_note=_NEEDS_P if needs_p else _NO_P)
        func.__doc__ = with_sections(func.__doc__, block)
        return func

    return deco


@_params(True)
def kuncheva(subsets: Subsets, n_features: int | None = None, *, reference: Subset | None = None,
             feature_names: FeatureNames | None = None) -> float:
    r"""Kuncheva's consistency index (Han 2012, eq. 5.5; Prat Masramon 2016, eqs. 2.34–2.36).

    s(S_i, S_j) = (a − k²/p) / (k − k²/p) = (a·p − k²) / (k (p − k)),  k = |S_i| = |S_j|.

    * Range: [−1, 1]; for given k and p the minimum is (max(0, 2k − p)·p − k²)/(k(p − k))
      (−k/(p − k) when 2k ≤ p); 1 iff the subsets are identical.
    * Corrected for chance: yes — k²/p is the expected overlap of two independent uniformly
      random k-subsets, so random selection averages 0.
    * Needs: equal sizes for every pair (otherwise a :class:`~stablefs.StablefsError`
      pointing to :func:`nogueira`, :func:`phi` or :func:`lustgarten`), 0 < k < p, and p.

    Notes
    -----
    The appendix tables of Prat Masramon (2016) never exceed 0.9778 = 44/45 for m = 10 (one
    of the 45 pairs apparently lost or averaged in as 0). That is a defect of the thesis'
    implementation; we do **not** mimic it: identical subsets give exactly 1.

    For equal sizes Kuncheva = :func:`phi` = :func:`kappa` = :func:`wald` =
    :func:`unadjusted` pair by pair (and :func:`lustgarten` = (1 − k/p) · Kuncheva when
    2k ≤ p), and the mean over all pairs equals :func:`nogueira` exactly (see there).

    References
    ----------
    .. [1] L. I. Kuncheva, "A stability index for feature selection", Proc. 25th IASTED
       Int. Multi-Conference on Artificial Intelligence and Applications, 390–395, 2007.
    .. [2] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, eqs. 5.4–5.5.
    .. [3] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.3, eqs. 2.34–2.36 and 2.49.

    Examples
    --------
    >>> from stablefs.stability import kuncheva
    >>> subsets = [[0, 1, 2], [0, 1, 3], [0, 2, 3]]
    >>> round(kuncheva(subsets, n_features=10), 3)
    0.524

    Every pair shares a = 2 of k = 3 features out of p = 10: (a p − k²) / (k (p − k)) =
    11/21.

    >>> round((2 * 10 - 3**2) / (3 * (10 - 3)), 3)
    0.524
    >>> round(kuncheva(subsets, n_features=10, reference=[0, 1, 2]), 3)
    0.683
    """
    return _pairwise("kuncheva", subsets, n_features, reference, feature_names)


@_params(False)
def jaccard(subsets: Subsets, n_features: int | None = None, *, reference: Subset | None = None,
            feature_names: FeatureNames | None = None) -> float:
    r"""Jaccard index, Kalousis et al.'s subset similarity (Prat Masramon 2016, eq. 2.48).

    s(S_i, S_j) = |S_i ∩ S_j| / |S_i ∪ S_j| = a / (a + b + c).

    * Range: [0, 1]; 1 iff identical. Two empty subsets score 1, an empty and a non-empty 0.
    * Corrected for chance: no (grows with k/p for random subsets).
    * Needs: any sizes; p is not used.

    Notes
    -----
    Prat Masramon (2016), eq. 2.31, multiplies by an extra 1/p (an erratum); eq. 2.48 — the
    usual index, implemented here — does not.

    References
    ----------
    .. [1] A. Kalousis, J. Prados and M. Hilario, "Stability of feature selection algorithms:
       a study on high-dimensional spaces", Knowledge and Information Systems 12(1), 95–116,
       2007.
    .. [2] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.3, eqs. 2.30 and 2.48.

    Examples
    --------
    >>> from stablefs.stability import jaccard
    >>> subsets = [[0, 1, 2], [0, 1, 3], [0, 2, 3]]
    >>> round(jaccard(subsets), 3)
    0.5

    Subsets of unequal sizes:

    >>> subsets = [[0, 1, 2], [0, 1, 3, 4], [0, 2]]
    >>> round(jaccard(subsets), 3)
    0.422
    """
    return _pairwise("jaccard", subsets, n_features, reference, feature_names)


@_params(False)
def dice(subsets: Subsets, n_features: int | None = None, *, reference: Subset | None = None,
         feature_names: FeatureNames | None = None) -> float:
    r"""Dice–Sørensen coefficient, the Sim_ID of Yu, Ding and Loscalzo (2008, eq. 5).

    s(S_i, S_j) = 2 |S_i ∩ S_j| / (|S_i| + |S_j|) = 2a / (2a + b + c).

    * Range: [0, 1]; 1 iff identical. Two empty subsets score 1.
    * Corrected for chance: no.
    * Needs: any sizes; p is not used.

    References
    ----------
    .. [1] L. Yu, C. Ding and S. Loscalzo, "Stable feature selection via dense feature
       groups", Proc. 14th ACM SIGKDD Int. Conf. on Knowledge Discovery and Data Mining,
       803–811, 2008, sec. 5, eq. 5.
    .. [2] L. R. Dice, "Measures of the amount of ecologic association between species",
       Ecology 26(3), 297–302, 1945.

    Examples
    --------
    >>> from stablefs.stability import dice
    >>> subsets = [[0, 1, 2], [0, 1, 3], [0, 2, 3]]
    >>> round(dice(subsets), 3)
    0.667
    """
    return _pairwise("dice", subsets, n_features, reference, feature_names)


@_params(True)
def hamming(subsets: Subsets, n_features: int | None = None, *, reference: Subset | None = None,
            feature_names: FeatureNames | None = None) -> float:
    r"""Dunne et al.'s Hamming similarity (Prat Masramon 2016, eqs. 2.26–2.29, 2.47).

    s(S_i, S_j) = 1 − D_H / p = 1 − (|S_i \ S_j| + |S_j \ S_i|) / p = (a + d) / p,
    D_H the Hamming distance of the two selection masks.

    * Range: [0, 1]; 1 iff identical; higher = more stable (a similarity, not a distance).
    * Corrected for chance: no (close to 1 whenever k ≪ p).
    * Needs: any sizes, p. Defined for empty subsets.

    References
    ----------
    .. [1] K. Dunne, P. Cunningham and F. Azuaje, "Solutions to instability problems with
       sequential wrapper-based approaches to feature selection", Technical Report
       TCD-CS-2002-28, Trinity College Dublin, 2002.
    .. [2] G. Prat Masramon, "Towards more reliable feature evaluations for classification",
       PhD thesis, Universitat Politècnica de Catalunya, 2016, sec. 2.3, eqs. 2.26–2.29 and 2.47.

    Examples
    --------
    >>> from stablefs.stability import hamming
    >>> subsets = [[0, 1, 2], [0, 1, 3], [0, 2, 3]]
    >>> round(hamming(subsets, n_features=10), 3)
    0.8
    """
    return _pairwise("hamming", subsets, n_features, reference, feature_names)


@_params(False)
def ochiai(subsets: Subsets, n_features: int | None = None, *, reference: Subset | None = None,
           feature_names: FeatureNames | None = None) -> float:
    r"""Ochiai coefficient (cosine similarity of the selection masks).

    s(S_i, S_j) = |S_i ∩ S_j| / sqrt(|S_i| |S_j|).

    * Range: [0, 1]; 1 iff identical. Two empty subsets score 1, one empty 0.
    * Corrected for chance: no.
    * Needs: any sizes; p is not used. (Ochiai 1957; formula as in Bommert's ``stabm``.)

    References
    ----------
    .. [1] A. Ochiai, "Zoogeographical studies on the soleoid fishes found in Japan and its
       neighbouring regions", Bulletin of the Japanese Society of Scientific Fisheries 22,
       526–530, 1957.
    .. [2] A. Bommert and M. Lang, "stabm: Stability measures for feature selection",
       Journal of Open Source Software 6(59), 3010, 2021.

    Examples
    --------
    >>> from stablefs.stability import ochiai
    >>> subsets = [[0, 1, 2], [0, 1, 3, 4], [0, 2]]
    >>> round(ochiai(subsets), 3)
    0.582
    """
    return _pairwise("ochiai", subsets, n_features, reference, feature_names)


@_params(True)
def lustgarten(subsets: Subsets, n_features: int | None = None, *, reference: Subset | None = None,
               feature_names: FeatureNames | None = None) -> float:
    r"""Lustgarten, Gopalakrishnan & Visweswaran (2009) adjusted stability measure.

    s(S_i, S_j) = (a − k_i k_j / p) / (min(k_i, k_j) − max(0, k_i + k_j − p)),

    Kuncheva's idea for unequal sizes: the numerator is the overlap beyond chance, the
    denominator its attainable range.

    * Range: (−1, 1). The denominator is the whole attainable range of the overlap, not
      its distance from chance, so identical subsets do **not** score 1: they score
      (min(k_i, k_j) − k_i k_j/p)/(min(k_i, k_j) − max(0, k_i + k_j − p)), e.g. 1 − k/p for
      equal sizes k ≤ p/2.
    * Corrected for chance: yes (E[a] = k_i k_j / p for independent random subsets).
    * Needs: p; any sizes except an empty subset or one with all p features (error).
      For equal sizes k ≤ p/2 it is (1 − k/p) × Kuncheva.

    References
    ----------
    .. [1] J. L. Lustgarten, V. Gopalakrishnan and S. Visweswaran, "Measuring stability of
       feature selection in biomedical datasets", AMIA Annual Symposium Proceedings 2009,
       406–410, 2009.

    Examples
    --------
    >>> from stablefs.stability import lustgarten
    >>> subsets = [[0, 1, 2], [0, 1, 3, 4], [0, 2]]
    >>> round(lustgarten(subsets, n_features=10), 3)
    0.356
    """
    return _pairwise("lustgarten", subsets, n_features, reference, feature_names)


@_params(True)
def phi(subsets: Subsets, n_features: int | None = None, *, reference: Subset | None = None,
        feature_names: FeatureNames | None = None) -> float:
    r"""Pearson correlation of the two selection masks (phi coefficient).

    s(S_i, S_j) = (a d − b c) / sqrt(k_i (p − k_i) k_j (p − k_j))
                = (a p − k_i k_j) / sqrt(k_i (p − k_i) k_j (p − k_j)).

    * Range: [−1, 1]; 1 iff identical.
    * Corrected for chance: yes (expected 0 for independent random subsets).
    * Needs: p; every subset non-empty and smaller than p (else an error: zero variance).
      Equals Kuncheva when k_i = k_j (Nogueira et al. 2018).

    References
    ----------
    .. [1] S. Nogueira, K. Sechidis and G. Brown, "On the stability of feature selection
       algorithms", Journal of Machine Learning Research 18(174), 1–54, 2018.

    Examples
    --------
    >>> from stablefs.stability import phi
    >>> subsets = [[0, 1, 2], [0, 1, 3, 4], [0, 2]]
    >>> round(phi(subsets, n_features=10), 3)
    0.407
    """
    return _pairwise("phi", subsets, n_features, reference, feature_names)


@_params(True)
def kappa(subsets: Subsets, n_features: int | None = None, *, reference: Subset | None = None,
          feature_names: FeatureNames | None = None) -> float:
    r"""Cohen's kappa of the two selection masks.

    With p_o = (a + d)/p and p_e = (k_i k_j + (p − k_i)(p − k_j))/p²:
    s = (p_o − p_e)/(1 − p_e) = 2 (a p − k_i k_j) / (p (k_i + k_j) − 2 k_i k_j).

    * Range: [−1, 1]; 1 iff identical.
    * Corrected for chance: yes.
    * Needs: p; undefined (error) only when both subsets are empty or both hold all p
      features. Equals Kuncheva when k_i = k_j.

    References
    ----------
    .. [1] J. Cohen, "A coefficient of agreement for nominal scales", Educational and
       Psychological Measurement 20(1), 37–46, 1960.
    .. [2] A. Bommert and M. Lang, "stabm: Stability measures for feature selection",
       Journal of Open Source Software 6(59), 3010, 2021.

    Examples
    --------
    >>> from stablefs.stability import kappa
    >>> subsets = [[0, 1, 2], [0, 1, 3, 4], [0, 2]]
    >>> round(kappa(subsets, n_features=10), 3)
    0.392
    """
    return _pairwise("kappa", subsets, n_features, reference, feature_names)


@_params(True)
def wald(subsets: Subsets, n_features: int | None = None, *, reference: Subset | None = None,
         feature_names: FeatureNames | None = None) -> float:
    r"""Wald, Khoshgoftaar & Napolitano (2013) stability measure.

    s(S_i, S_j) = (a − k_i k_j / p) / (min(k_i, k_j) − k_i k_j / p).

    * Range: [1 − p, 1]; 1 iff identical (the lower bound is reached only for very unequal
      sizes; for equal sizes it is Kuncheva's, ≥ −1).
    * Corrected for chance: yes.
    * Needs: p; a subset that is empty or holds all p features is an error.
      Formula as in Bommert's ``stabm``; equals Kuncheva when k_i = k_j.

    References
    ----------
    .. [1] R. Wald, T. M. Khoshgoftaar and A. Napolitano, "Stability of filter- and
       wrapper-based feature subset selection", Proc. 25th IEEE Int. Conf. on Tools with
       Artificial Intelligence (ICTAI), 374–380, 2013.
    .. [2] A. Bommert and M. Lang, "stabm: Stability measures for feature selection",
       Journal of Open Source Software 6(59), 3010, 2021.

    Examples
    --------
    >>> from stablefs.stability import wald
    >>> subsets = [[0, 1, 2], [0, 1, 3, 4], [0, 2]]
    >>> round(wald(subsets, n_features=10), 3)
    0.537
    """
    return _pairwise("wald", subsets, n_features, reference, feature_names)


@_params(True)
def unadjusted(subsets: Subsets, n_features: int | None = None, *, reference: Subset | None = None,
               feature_names: FeatureNames | None = None) -> float:
    r"""The chance-corrected "unadjusted" measure (Bommert; ``stabm::stabilityUnadjusted``).

    s(S_i, S_j) = (a − k_i k_j / p) / (sqrt(k_i k_j) − k_i k_j / p),

    i.e. the Ochiai coefficient corrected for chance; "unadjusted" because it is the
    similarity-adjusted measures of Bommert & Rahnenführer without the adjustment term
    (:func:`~stablefs.stability.intersection_count` adds it).

    * Range: at most 1 (1 iff identical); ≥ −1 for equal sizes.
    * Corrected for chance: yes.
    * Needs: p; an empty subset, or two subsets holding all p features, is an error.

    Notes
    -----
    Some texts use (k_i + k_j)/2 instead of sqrt(k_i k_j) in the denominator (a corrected
    Dice); the two agree for equal sizes, where both equal Kuncheva.

    References
    ----------
    .. [1] A. Bommert and J. Rahnenführer, "Adjusted measures for feature selection
       stability for data sets with similar features", Machine Learning, Optimization, and
       Data Science (LOD 2020), LNCS 12565, 203–214, 2020.
    .. [2] A. Bommert and M. Lang, "stabm: Stability measures for feature selection",
       Journal of Open Source Software 6(59), 3010, 2021.

    Examples
    --------
    >>> from stablefs.stability import unadjusted
    >>> subsets = [[0, 1, 2], [0, 1, 3, 4], [0, 2]]
    >>> round(unadjusted(subsets, n_features=10), 3)
    0.403
    """
    return _pairwise("unadjusted", subsets, n_features, reference, feature_names)
