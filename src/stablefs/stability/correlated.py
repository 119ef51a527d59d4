r"""Similarity-adjusted stability: measures that credit different-but-correlated features.

All four measures need the data X (n_samples × p) and compute Pearson correlations only
between the features involved (the cross-correlation block of two subsets, k_i × k_j
numbers, from the standardised columns) — never a p × p matrix.

* :func:`npogr` — Zhang et al. (2009) POGR, normalised, in the symmetric form of Han (2012,
  eq. 5.8).
* :func:`zucknick` — Zucknick, Richardson & Stronach (2008) correlation-weighted Jaccard.
* :func:`intersection_count` — Bommert & Rahnenführer's adjusted intersection count.
* :func:`sechidis` — Sechidis, Papangelou, Nogueira, Weatherall & Brown (2020): Nogueira's
  Φ̂ with a feature-similarity matrix.

Constant features have no defined correlation; they are treated as uncorrelated with every
other feature (r = 0), so they can only match themselves.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from stablefs._errors import StablefsError
from stablefs.stability._common import PairScores, pair_index
from stablefs.stability._inputs import (
    SubsetData,
    as_reference,
    as_subsets,
    check_data_matrix,
    named,
    plain,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from stablefs._validation import SeedLike
    from stablefs.stability._inputs import FeatureNames, Subset, Subsets

__all__ = ["intersection_count", "npogr", "sechidis", "zucknick"]

_BATCH = 256


# --------------------------------------------------------------------------- helpers
def standardized_columns(X: np.ndarray) -> np.ndarray:
    """(p × n) array whose row f is feature f centred and scaled so that row·row' = Pearson r.

    Constant features get a zero row (r = 0 with everything).
    """
    Xc = X - X.mean(axis=0)
    norm = np.sqrt(np.einsum("ij,ij->j", Xc, Xc))
    scale = np.divide(1.0, norm, out=np.zeros_like(norm), where=norm > 1e-12 * max(1.0, norm.max()))
    return np.ascontiguousarray((Xc * scale).T)


def _check_threshold(value, name: str) -> float:
    v = float(value)
    if not 0.0 < v < 1.0:
        raise StablefsError(f"{name} = {plain(value)} must lie strictly between 0 and 1.")
    return v


def _check_n_pairs(n_pairs) -> int:
    if isinstance(n_pairs, bool) or not isinstance(n_pairs, (int, np.integer)) or n_pairs < 1:
        raise StablefsError(f"n_pairs = {plain(n_pairs)} must be a whole number >= 1.")
    return int(n_pairs)


def _random_subsets(rng: np.random.Generator, p: int, k: int, size: int) -> np.ndarray:
    """``size`` independent uniformly random k-subsets of range(p), as a (size × k) array.

    Draws with replacement and redraws the rows that contain a repeat (exact uniform
    sampling, cheap when k² ≪ p); falls back to ``rng.choice`` rows when repeats are common.
    """
    if k == 0:
        return np.zeros((size, 0), dtype=np.int64)
    if k * (k - 1) / (2 * p) > 1.0:
        return np.stack([rng.choice(p, size=k, replace=False) for _ in range(size)])
    out = rng.integers(0, p, size=(size, k))
    todo = np.arange(size)
    while True:
        s = np.sort(out[todo], axis=1)
        dup = (s[:, 1:] == s[:, :-1]).any(axis=1) if k > 1 else np.zeros(todo.size, bool)
        todo = todo[dup]
        if todo.size == 0:
            return out
        out[todo] = rng.integers(0, p, size=(todo.size, k))


def _padded(sets: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Ragged index sets → (m × kmax) indices (pad 0) and validity mask."""
    kmax = max((s.size for s in sets), default=0)
    idx = np.zeros((len(sets), kmax), dtype=np.int64)
    valid = np.zeros((len(sets), kmax), dtype=bool)
    for r, s in enumerate(sets):
        idx[r, : s.size] = s
        valid[r, : s.size] = True
    return idx, valid


class _Blocks:
    """Cross-correlation blocks R[b] = corr(S_a[b], S_b[b]) for batches of subset pairs.

    With ``union`` (the features of the observed results, at most ``_UNION_MAX``), the
    u × u correlation matrix of those features is computed once and blocks are gathered
    from it; otherwise (random subsets) each block is one small matrix product. With a union,
    the one-sided p-values that the Benjamini–Hochberg step needs are also computed once per
    feature pair (:meth:`pvalues`), not once per subset pair that holds it: the same numbers,
    from the same correlations, without repeating the incomplete beta function.
    """

    def __init__(self, XT: np.ndarray, union: np.ndarray | None = None):
        self.XT = XT
        self.union = None
        self._pu: tuple[float, np.ndarray] | None = None
        if union is not None and union.size <= _UNION_MAX:
            self.union = union
            XU = XT[union]
            self.CU = XU @ XU.T

    def corr(self, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
        if self.union is not None:
            self._pa = np.searchsorted(self.union, ia)
            self._pb = np.searchsorted(self.union, ib)
            return self.CU[self._pa[:, :, None], self._pb[:, None, :]]
        return self.XT[ia] @ self.XT[ib].transpose(0, 2, 1)

    def pvalues(self, R, b, x, y, n: int, r_min: float) -> np.ndarray:
        """One-sided p-values (:func:`_pvalue_r`) of the entries ``R[b, x, y]`` of the blocks
        of the last :meth:`compute`, all of them with ``R >= r_min``."""
        if self.union is None:
            return _pvalue_r(R[b, x, y], n)
        if self._pu is None or self._pu[0] != r_min:
            table = np.ones_like(self.CU)  # p-values above r_min only; others never read
            hit = r_min <= self.CU
            table[hit] = _pvalue_r(self.CU[hit], n)
            self._pu = (r_min, table)
        return self._pu[1][self._pa[b, x], self._pb[b, y]]

    def compute(self, ia, va, ib, vb):
        """R (B × ka × kb), valid-entry mask, shared-row and shared-column flags."""
        R = self.corr(ia, ib)
        valid = va[:, :, None] & vb[:, None, :]
        same = (ia[:, :, None] == ib[:, None, :]) & valid
        row_sh = same.any(axis=2)
        col_sh = same.any(axis=1)
        R = np.where(valid, R, 0.0)
        return R, valid, row_sh, col_sh


_UNION_MAX = 4000


# ------------------------------------------------------------------------------ nPOGR
def _critical_r(alpha, n: int):
    """Smallest r whose one-sided Pearson test (H1: ρ > 0, n − 2 df) has p <= alpha."""
    from scipy import stats  # on first use (stablefs._runtime.lazy)

    t = stats.t.isf(alpha, n - 2)
    return t / np.sqrt(n - 2 + t * t)


def _pvalue_r(r, n: int):
    """One-sided p-value of Pearson r > 0 with n − 2 df: 0.5 · I_{1−r²}((n−2)/2, 1/2)."""
    from scipy import special

    r = np.clip(r, 0.0, 1.0)
    return 0.5 * special.betainc((n - 2) / 2.0, 0.5, 1.0 - r * r)


def _bh_significant(R, family, fdr: float, n: int, r_crit: float,
                    blocks: _Blocks | None = None) -> np.ndarray:
    """Benjamini–Hochberg step-up at level ``fdr`` within each block's family.

    p-values are monotone in r, so entries with p <= fdr/M (r above the block's critical r
    at level fdr/M) are rejected whatever their rank; exact p-values are computed only for
    the remaining candidates (fdr/M < p <= fdr), whose ranks follow the sure ones (from
    ``blocks``' table of p-values when it has one).
    """
    M = family.sum(axis=(1, 2))
    cand = family & (r_crit <= R)
    if not cand.any():
        return cand
    Ms, inv = np.unique(M, return_inverse=True)
    with np.errstate(divide="ignore"):
        rho = np.where(Ms > 0, _critical_r(fdr / np.maximum(Ms, 1), n), np.inf)
    sure = cand & (rho[inv][:, None, None] <= R)
    inter = cand & ~sure
    if not inter.any():
        return sure
    n_sure = sure.sum(axis=(1, 2))
    b, x, y = np.nonzero(inter)
    pv = _pvalue_r(R[b, x, y], n) if blocks is None else blocks.pvalues(R, b, x, y, n, r_crit)
    # No candidate of a block ranks beyond n_sure + n_inter, so one whose p-value exceeds
    # (n_sure + n_inter) fdr / M can pass no step-up test, and ranks after every one that
    # does: dropping it before the sort changes no rank and no decision.
    n_inter = np.bincount(b, minlength=M.size)
    keep = pv <= (n_sure[b] + n_inter[b]) * fdr / M[b]
    b, x, y, pv = b[keep], x[keep], y[keep], pv[keep]
    order = np.lexsort((pv, b))
    b, x, y, pv = b[order], x[order], y[order], pv[order]
    rank = n_sure[b] + (np.arange(b.size) - np.searchsorted(b, b, side="left")) + 1
    ok = pv <= rank * fdr / M[b]
    kmax = n_sure.copy()
    np.maximum.at(kmax, b[ok], rank[ok])
    sig = rank <= kmax[b]
    G = sure
    G[b[sig], x[sig], y[sig]] = True
    return G


def _npogr_overlaps(blocks: _Blocks, ia, ib, fdr: float, r_crit: float, n: int):
    """Per pair: r = |a ∩ b| and O = (O_ab + O_ba)/2 with per-comparison BH at level fdr."""
    va = np.ones(ia.shape, dtype=bool)
    vb = np.ones(ib.shape, dtype=bool)
    R, valid, row_sh, col_sh = blocks.compute(ia, va, ib, vb)
    family = valid & ~(row_sh[:, :, None] & col_sh[:, None, :])
    G = _bh_significant(R, family, fdr, n, r_crit, blocks)
    overlap = row_sh.sum(axis=1)
    o_ab = (~row_sh & G.any(axis=2)).sum(axis=1)
    o_ba = (~col_sh & G.any(axis=1)).sum(axis=1)
    return overlap, (o_ab + o_ba) / 2.0


def _npogr_pairs(subsets, X, *, fdr, n_pairs, random_state, reference=None,
                 expected_correlated: float | None = None) -> tuple:
    """nPOGR's per-pair scores and E(O). ``expected_correlated``: the E(O) returned by an
    earlier call with the same X, subset size, ``fdr``, ``n_pairs`` and ``random_state`` (it
    depends on nothing else), which skips its Monte Carlo; callers scoring several methods
    on one data set pass it on."""
    data, X = _prepare(subsets, X, reference)
    fdr = _check_threshold(fdr, "fdr")
    n_pairs = _check_n_pairs(n_pairs)
    sizes = data.sizes
    ref = as_reference(reference, data) if reference is not None else None
    all_sizes = np.concatenate([sizes, ref.sizes]) if ref is not None else sizes
    if np.any(all_sizes != all_sizes[0]):
        raise StablefsError(
            f"nPOGR (Han 2012, eq. 5.8) compares subsets of equal size; got sizes "
            f"{int(all_sizes.min())} to {int(all_sizes.max())}."
        )
    k, p, n = int(all_sizes[0]), data.p, X.shape[0]
    if not 0 < k < p:
        raise StablefsError(f"nPOGR needs 0 < k < p; got k = {k}, p = {p}.")
    XT = standardized_columns(X)
    r_crit = float(_critical_r(fdr, n))   # one-sided p <= fdr  <=>  r >= r_crit
    union = data.cols if ref is None else np.union1d(data.cols, ref.cols)

    def overlaps(ia, ib, blocks):
        r_out, o_out = [], []
        for s in range(0, ia.shape[0], _BATCH):
            r, o = _npogr_overlaps(blocks, ia[s:s + _BATCH], ib[s:s + _BATCH], fdr, r_crit, n)
            r_out.append(r)
            o_out.append(o)
        return np.concatenate(r_out), np.concatenate(o_out)

    if expected_correlated is None:
        # E(O): seeded Monte Carlo over random pairs of k-subsets
        rng = np.random.default_rng(random_state)
        ra = _random_subsets(rng, p, k, n_pairs)
        rb = _random_subsets(rng, p, k, n_pairs)
        _, o_rand = overlaps(ra, rb, _Blocks(XT))
        e_o = float(o_rand.mean())
    else:
        e_o = float(expected_correlated)
    e_r = k * k / p
    den = k - e_r - e_o
    if den <= 0:
        raise StablefsError(
            f"nPOGR is undefined here: the expected overlap plus correlated genes "
            f"({e_r + e_o:.3g}) reaches the subset size k = {k}."
        )
    if den < 0.1 * k:
        warnings.warn(
            f"nPOGR is ill-conditioned on these data: by chance alone E(r) + E(O) = "
            f"{e_r + e_o:.3g} of k = {k} genes count as shared or significantly correlated, "
            "so small differences are magnified (values far below -1 are possible). The genes "
            "are broadly correlated (e.g. raw intensities); consider a log transform or "
            "per-sample normalisation, or a measure without correlation credit.",
            RuntimeWarning,
            stacklevel=3,
        )
    sets = np.stack(data.index_sets())
    observed = _Blocks(XT, union)
    if ref is not None:
        ib = np.repeat(ref.index_sets()[0][None, :], data.m, axis=0)
        r, o = overlaps(sets, ib, observed)
        return PairScores((r + o - e_r - e_o) / den, np.arange(data.m), None, data.m), e_o
    i, j = pair_index(data.m)
    r, o = overlaps(sets[i], sets[j], observed)
    return PairScores((r + o - e_r - e_o) / den, i, j, data.m), e_o


def _p_of(X):
    if X is None:
        return None
    shape = np.shape(X)
    return int(shape[1]) if len(shape) == 2 else None


def npogr(subsets: Subsets, X: ArrayLike, *, fdr: float = 0.001, n_pairs: int = 10000,
          random_state: SeedLike = 0, reference: Subset | None = None,
          feature_names: FeatureNames | None = None) -> float:
    r"""Normalised POGR (Zhang et al. 2009) in the symmetric form of Han (2012, eq. 5.8).

    For two subsets of size k, r = |S_i ∩ S_j|, O_ij = number of genes of S_i \ S_j that are
    significantly positively correlated with at least one gene of S_j, O = (O_ij + O_ji)/2:

        nPOGR(S_i, S_j) = (r + O − E(r) − E(O)) / (k − E(r) − E(O)),

    averaged over all pairs (Han 2012, eq. 5.4) or against ``reference`` (Yu, Ding and
    Loscalzo 2008, eq. 7).
    E(r) = k²/p exactly (hypergeometric mean); E(O) is the mean of O over ``n_pairs`` pairs of
    independent uniformly random k-subsets (seeded by ``random_state``; Zhang et al. use
    10,000). Without O and E(O) the measure is Kuncheva's index.

    *Significantly correlated* = one-sided Pearson test (H1: ρ > 0, t = r sqrt((n−2)/(1−r²)),
    n − 2 df) with Benjamini–Hochberg FDR at ``fdr`` (0.1 %, as in Zhang et al. 2009). The FDR
    family of one comparison is the set of distinct gene pairs the comparison looks at:
    (x, y) with x ∈ S_i, y ∈ S_j, x ≠ y, excluding pairs of two shared genes (whose
    correlation O never uses); the same rule is applied to the random pairs behind E(O).
    Zhang et al. do not spell out the family; a data-set-wide family (all p(p−1)/2 pairs)
    would need every correlation, which this implementation avoids by design.

    * Range: [(−E(r) − E(O))/(k − E(r) − E(O)), 1]; 1 for identical subsets (and whenever
      every non-shared gene is correlated with the other subset).
    * Corrected for chance: yes (for overlap and for correlated genes; E(O) only up to its
      Monte-Carlo error, about sd(O)/sqrt(n_pairs)).
    * Needs: X (n_samples × p, n_samples ≥ 3), equal sizes 0 < k < p, m ≥ 2 results (or a
      reference).
      Cost: (m(m−1)/2 + n_pairs) correlation blocks of k × k.

    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        The m selection results (equal sizes).
    X : array of shape (n_samples, p)
        The data the correlations come from.
    fdr : float
        FDR level q of the Benjamini–Hochberg step-up procedure.
    n_pairs : int
        Random subset pairs for E(O).
    random_state : int or None
        Seed of the Monte-Carlo estimate of E(O).
    reference : index collection, optional
        Compare every result with this one instead of all pairs.
    feature_names : sequence of str, optional
        The p column names of X, in order; subsets (and ``reference``) may then list names
        instead of indices.

    Returns
    -------
    float
        The mean nPOGR.

    References
    ----------
    .. [1] M. Zhang, L. Zhang, J. Zou, C. Yao, H. Xiao, Q. Liu, J. Wang, D. Wang, C. Wang
       and Z. Guo, "Evaluating reproducibility of differential expression discoveries in
       microarray studies by considering correlated molecular changes", Bioinformatics
       25(13), 1662–1668, 2009.
    .. [2] Y. Han, "Stable Feature Selection: Theory and Algorithms", PhD dissertation,
       Binghamton University, State University of New York, 2012, eqs. 5.6–5.8.
    .. [3] Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate: a practical
       and powerful approach to multiple testing", Journal of the Royal Statistical Society
       B 57(1), 289–300, 1995.

    Examples
    --------
    Subsets of different but strongly correlated genes: Kuncheva sees no overlap, nPOGR
    credits the correlation.

    >>> from stablefs.stability import kuncheva, npogr
    >>> from stablefs.datasets import make_han2012
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> subsets = [[0, 10, 20], [1, 11, 21], [2, 12, 22]]  # different genes, same blocks
    >>> round(kuncheva(subsets, n_features=60), 3), round(npogr(subsets, data.X), 3)
    (-0.053, 1.0)
    """
    subsets, _, reference = named(subsets, None, feature_names, reference, X=X)
    scores, _ = _npogr_pairs(subsets, X, fdr=fdr, n_pairs=n_pairs, random_state=random_state,
                             reference=reference)
    return scores.mean


# --------------------------------------------------------- Zucknick / intersection count
def _corr_pairs(XT, union, threshold: float, ia_sets, ib_sets, fn):
    """Apply ``fn(R_thr, valid, row_sh, col_sh, ka, kb)`` to batches of padded blocks."""
    blocks = _Blocks(XT, union)
    ia, va = ia_sets
    ib, vb = ib_sets
    out = []
    for s in range(0, ia.shape[0], _BATCH):
        sl = slice(s, s + _BATCH)
        R, valid, row_sh, col_sh = blocks.compute(ia[sl], va[sl], ib[sl], vb[sl])
        A = np.abs(R)
        A = np.where(threshold <= A, A, 0.0)
        out.append(fn(A, valid, row_sh, col_sh, va[sl].sum(1), vb[sl].sum(1)))
    return np.concatenate(out) if out else np.empty(0)


def _zucknick_fn(A, valid, row_sh, col_sh, ka, kb):
    inter = row_sh.sum(axis=1).astype(float)
    # C(S_a, S_b) = (1/|S_b|) Σ_{x ∈ S_a, y ∈ S_b \ S_a} sim(x, y)
    c_ab = (A * (~col_sh)[:, None, :]).sum(axis=(1, 2))
    c_ba = (A * (~row_sh)[:, :, None]).sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        c_ab = np.where(kb > 0, c_ab / np.maximum(kb, 1), 0.0)
        c_ba = np.where(ka > 0, c_ba / np.maximum(ka, 1), 0.0)
    union = ka + kb - inter
    return np.where(union > 0, (inter + c_ab + c_ba) / np.maximum(union, 1), 1.0)


def _count_fn(A, valid, row_sh, col_sh, ka, kb):
    inter = row_sh.sum(axis=1)
    only = (A > 0) & (~row_sh)[:, :, None] & (~col_sh)[:, None, :]
    c_ab = only.any(axis=2).sum(axis=1)
    c_ba = only.any(axis=1).sum(axis=1)
    return (inter + np.minimum(c_ab, c_ba)).astype(float)


def _adjust_fn(A, valid, row_sh, col_sh, ka, kb):
    """The correlation part min(C(S_a, S_b), C(S_b, S_a)) of the intersection count."""
    return _count_fn(A, valid, row_sh, col_sh, ka, kb) - row_sh.sum(axis=1)


def _pairs_of(data, reference):
    sets = data.index_sets()
    if reference is not None:
        ref = as_reference(reference, data).index_sets()[0]
        a = _padded(sets)
        b = _padded([ref] * data.m)
        return a, b, np.arange(data.m), None, np.array([s.size for s in sets]), \
            np.full(data.m, ref.size)
    i, j = pair_index(data.m)
    idx, valid = _padded(sets)
    sizes = data.sizes
    return (idx[i], valid[i]), (idx[j], valid[j]), i, j, sizes[i], sizes[j]


def _prepare(subsets, X, reference):
    if X is None:
        check_data_matrix(None, 0)
    data = as_subsets(subsets, None if isinstance(subsets, np.ndarray) and subsets.dtype == bool
                      else _p_of(X), min_subsets=1 if reference is not None else 2)
    return data, check_data_matrix(X, data.p)


def _union(data: SubsetData, reference) -> np.ndarray:
    if reference is None:
        return data.cols
    return np.union1d(data.cols, as_reference(reference, data).cols)


def _zucknick_pairs(subsets, X, *, threshold=0.9, reference=None) -> PairScores:
    data, X = _prepare(subsets, X, reference)
    threshold = _check_threshold(threshold, "threshold")
    a, b, i, j, _, _ = _pairs_of(data, reference)
    XT = standardized_columns(X)
    union = _union(data, reference)
    vals = _corr_pairs(XT, union, threshold, a, b, _zucknick_fn)
    return PairScores(vals, i, j, data.m)


def zucknick(subsets: Subsets, X: ArrayLike, *, threshold: float = 0.9,
             reference: Subset | None = None, feature_names: FeatureNames | None = None) -> float:
    r"""Zucknick, Richardson & Stronach (2008) correlation-weighted Jaccard, as in ``stabm``.

    s(S_i, S_j) = (|S_i ∩ S_j| + C(S_i, S_j) + C(S_j, S_i)) / |S_i ∪ S_j|,
    C(S_a, S_b) = (1/|S_b|) Σ_{x ∈ S_a, y ∈ S_b \ S_a} |r_xy| · 1[|r_xy| ≥ threshold],

    r the Pearson correlation in X; averaged over pairs (eq. 5.4) or against ``reference``.

    * Range: [0, 1] for equal sizes (for very unequal sizes C can push it above 1);
      1 for identical subsets; two empty subsets score 1. Without correlated features it
      is the Jaccard index.
    * Corrected for chance: no.
    * Needs: X (n_samples × p), m ≥ 2; any sizes.

    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        The m selection results.
    X : array of shape (n_samples, p)
        The data the correlations come from.
    threshold : float
        Minimum absolute correlation credited.
    reference : index collection, optional
        Compare every result with this one instead of all pairs.
    feature_names : sequence of str, optional
        The p column names of X, in order; subsets (and ``reference``) may then list names
        instead of indices.

    Returns
    -------
    float
        The mean similarity.

    References
    ----------
    .. [1] M. Zucknick, S. Richardson and E. A. Stronach, "Comparing the characteristics of
       gene expression profiles derived by univariate and multivariate classification
       methods", Statistical Applications in Genetics and Molecular Biology 7(1), Article 7,
       2008.
    .. [2] A. Bommert and M. Lang, "stabm: Stability measures for feature selection",
       Journal of Open Source Software 6(59), 3010, 2021.

    Examples
    --------
    >>> from stablefs.stability import jaccard, zucknick
    >>> from stablefs.datasets import make_han2012
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> subsets = [[0, 10, 20], [1, 11, 21], [2, 12, 22]]  # different genes, same blocks
    >>> round(jaccard(subsets), 3), round(zucknick(subsets, data.X, threshold=0.6), 3)
    (0.0, 0.265)
    """
    subsets, _, reference = named(subsets, None, feature_names, reference, X=X)
    return _zucknick_pairs(subsets, X, threshold=threshold, reference=reference).mean


def _intersection_pairs(subsets, X, *, threshold=0.9, n_pairs=10000, random_state=0,
                        reference=None) -> PairScores:
    data, X = _prepare(subsets, X, reference)
    threshold = _check_threshold(threshold, "threshold")
    n_pairs = _check_n_pairs(n_pairs)
    a, b, i, j, ka, kb = _pairs_of(data, reference)
    if np.any(ka == 0) or np.any(kb == 0):
        raise StablefsError("the intersection-count measure is undefined for empty subsets.")
    XT = standardized_columns(X)
    observed = _corr_pairs(XT, _union(data, reference), threshold, a, b, _count_fn)
    expected = np.empty(observed.size)
    rng = np.random.default_rng(random_state)
    for lo, hi in sorted({(min(x, y), max(x, y)) for x, y in zip(ka.tolist(), kb.tolist())}):
        ra = _random_subsets(rng, data.p, lo, n_pairs)
        rb = _random_subsets(rng, data.p, hi, n_pairs)
        e = _corr_pairs(XT, None, threshold, (ra, np.ones(ra.shape, bool)),
                        (rb, np.ones(rb.shape, bool)), _adjust_fn).mean()
        sel = (np.minimum(ka, kb) == lo) & (np.maximum(ka, kb) == hi)
        expected[sel] = lo * hi / data.p + e      # E|S_i ∩ S_j| exactly, E[min C] by MC
    den = np.sqrt(ka * kb) - expected
    if np.any(den <= 0):
        raise StablefsError(
            "the intersection-count measure is undefined here: the expected count reaches "
            "sqrt(k_i k_j) (nearly every feature is correlated with every other)."
        )
    return PairScores((observed - expected) / den, i, j, data.m)


def intersection_count(subsets: Subsets, X: ArrayLike, *, threshold: float = 0.9,
                       n_pairs: int = 10000, random_state: SeedLike = 0,
                       reference: Subset | None = None,
                       feature_names: FeatureNames | None = None) -> float:
    r"""Adjusted intersection count (Bommert & Rahnenführer 2020; ``stabm`` IntersectionCount).

    I(S_i, S_j) = |S_i ∩ S_j| + min(C(S_i, S_j), C(S_j, S_i)), where C(S_a, S_b) counts the
    features of S_a \ S_b with |r| ≥ ``threshold`` to at least one feature of S_b \ S_a, and

        s(S_i, S_j) = (I − E[I]) / (sqrt(|S_i| |S_j|) − E[I]),

    E[I] = |S_i||S_j|/p (exact) + the mean of min(C(S_a, S_b), C(S_b, S_a)) over ``n_pairs``
    seeded pairs of independent random subsets of sizes (|S_i|, |S_j|) (one estimate per
    distinct size pair; ``stabm`` estimates the whole of E[I] by simulation). When no pair
    of features of X reaches the threshold it is exactly
    :func:`~stablefs.stability.unadjusted`.

    * Range: at most 1 (1 for identical subsets).
    * Corrected for chance: yes (up to Monte-Carlo error).
    * Needs: X, m ≥ 2, non-empty subsets; any sizes (each distinct size pair costs
      ``n_pairs`` correlation blocks).

    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        The m selection results.
    X : array of shape (n_samples, p)
        The data the correlations come from.
    threshold : float
        Minimum absolute correlation for two features to count as similar.
    n_pairs : int
        Random subset pairs for the Monte-Carlo part of E[I].
    random_state : int or None
        Seed of the Monte-Carlo estimate.
    reference : index collection, optional
        Compare every result with this one instead of all pairs.
    feature_names : sequence of str, optional
        The p column names of X, in order; subsets (and ``reference``) may then list names
        instead of indices.

    Returns
    -------
    float
        The mean adjusted similarity.

    References
    ----------
    .. [1] A. Bommert and J. Rahnenführer, "Adjusted measures for feature selection
       stability for data sets with similar features", Machine Learning, Optimization, and
       Data Science (LOD 2020), LNCS 12565, 203–214, 2020.

    Examples
    --------
    >>> from stablefs.stability import intersection_count
    >>> from stablefs.datasets import make_han2012
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> subsets = [[0, 10, 20], [1, 11, 21], [2, 12, 22]]  # different genes, same blocks
    >>> round(intersection_count(subsets, data.X, threshold=0.6), 3)
    1.0
    """
    subsets, _, reference = named(subsets, None, feature_names, reference, X=X)
    return _intersection_pairs(subsets, X, threshold=threshold, n_pairs=n_pairs,
                               random_state=random_state, reference=reference).mean


# ------------------------------------------------------------------------------ Sechidis
def _mean_offdiag_similarity(XT, threshold, n_pairs, rng) -> float:
    """μ_C = mean of C_fg over ordered pairs f ≠ g of all p features."""
    p = XT.shape[0]
    if p < 2:
        return 0.0
    if n_pairs is None:  # exact, blockwise (O(p² n) time, O(block · p) memory)
        total = 0.0
        step = max(1, 2**22 // p)
        for s in range(0, p, step):
            Rb = np.abs(XT[s:s + step] @ XT.T)
            Rb[np.arange(Rb.shape[0]), np.arange(s, s + Rb.shape[0])] = 0.0
            total += float(np.where(Rb >= threshold, Rb, 0.0).sum())
        return total / (p * (p - 1))
    acc, done = 0.0, 0
    while done < n_pairs:
        b = min(100_000, n_pairs - done)
        f = rng.integers(0, p, b)
        g = (f + rng.integers(1, p, b)) % p          # g ≠ f, uniform over the others
        r = np.abs(np.einsum("ij,ij->i", XT[f], XT[g]))
        acc += float(np.where(r >= threshold, r, 0.0).sum())
        done += b
    return acc / n_pairs


def _sechidis_value(data: SubsetData, XT: np.ndarray, threshold: float, mu_c: float) -> float:
    m, p = data.m, data.p
    kbar = data.sizes.mean()
    if kbar == 0 or kbar == p or m < 2:
        raise StablefsError("Sechidis' measure needs m >= 2 and 0 < k̄ < p, like Nogueira's.")
    Zf = data.Z.astype(np.float64)
    W = Zf - Zf.mean(axis=0)
    u = Zf.shape[1]
    tr = 0.0
    step = max(1, 2**21 // max(u, 1))
    for s in range(0, u, step):
        cols = data.cols[s:s + step]
        C = np.abs(XT[cols] @ XT[data.cols].T)
        C = np.where(threshold <= C, C, 0.0)
        C[np.arange(cols.size), np.arange(s, s + cols.size)] = 1.0   # C_ff = 1
        G = W[:, s:s + step].T @ W
        tr += float(np.sum(C * G))
    tr /= m - 1
    sigma0 = (kbar / p) * (1 - kbar / p)
    null = p * sigma0 * (1 - mu_c)
    return float(1 - tr / null)


def sechidis(subsets: Subsets, X: ArrayLike, *, threshold: float = 0.9,
             n_pairs: int | None = 100_000, random_state: SeedLike = 0,
             feature_names: FeatureNames | None = None) -> float:
    r"""Sechidis et al. (2020) stability in the presence of feature correlations.

    Φ̂_C = 1 − tr(C S) / tr(C Σ₀), with S the unbiased (m−1) sample covariance of the
    selection matrix Z, C the feature-similarity matrix (C_ff = 1, C_fg = |r_fg| when
    |r_fg| ≥ ``threshold``, else 0) and Σ₀ the covariance of random selection of k̄ features:
    diagonal σ₀ = (k̄/p)(1 − k̄/p), off-diagonal (k̄² − k̄)/(p² − p) − k̄²/p² = −σ₀/(p − 1).
    Hence tr(C Σ₀) = p σ₀ (1 − μ_C), μ_C the mean off-diagonal similarity over all p(p−1)
    ordered pairs. With C = I (no correlated features) Φ̂_C is Nogueira's Φ̂ exactly.

    tr(C S) only involves the features selected at least once (their correlations are
    computed in blocks); μ_C involves all pairs and is estimated from ``n_pairs`` seeded
    random feature pairs, or computed exactly in blocks when ``n_pairs=None`` (O(p² n) time,
    still no p × p matrix in memory).

    * Range: ≤ 1 when C is positive semi-definite (1 for identical subsets); thresholding can
      break semi-definiteness, so values slightly above 1 are possible in principle.
    * Corrected for chance: yes (as Nogueira's, with Σ₀ as null).
    * Needs: X, m ≥ 2, 0 < k̄ < p; any sizes.

    Parameters
    ----------
    subsets : sequence of index collections, or boolean matrix of shape (m, p)
        The m selection results.
    X : array of shape (n_samples, p)
        The data the correlations come from.
    threshold : float
        Minimum absolute correlation kept in C.
    n_pairs : int or None
        Random feature pairs for μ_C; None = exact.
    random_state : int or None
        Seed of the estimate of μ_C.
    feature_names : sequence of str, optional
        The p column names of X, in order; subsets may then list names instead of indices.

    Returns
    -------
    float
        Φ̂_C.

    Notes
    -----
    Our reconstruction of Σ₀ uses k̄ in place of the per-result sizes, as Nogueira's
    denominator does; implementations that use the mean of k_i² in the off-diagonal differ
    by O(Var(k)/p²).

    References
    ----------
    .. [1] K. Sechidis, K. Papangelou, S. Nogueira, J. Weatherall and G. Brown, "On the
       stability of feature selection in the presence of feature correlations", Machine
       Learning and Knowledge Discovery in Databases (ECML PKDD 2019), LNCS 11906, 327–342,
       2020.

    Examples
    --------
    >>> from stablefs.stability import nogueira, sechidis
    >>> from stablefs.datasets import make_han2012
    >>> data = make_han2012(n_samples=40, n_features=60, n_blocks=6, n_relevant=10,
    ...                     random_state=0)
    >>> subsets = [[0, 10, 20], [1, 11, 21], [2, 12, 22]]  # different genes, same blocks
    >>> round(nogueira(subsets, n_features=60), 3)
    -0.053
    >>> round(sechidis(subsets, data.X, threshold=0.6), 3)
    0.753
    """
    subsets, _, _ = named(subsets, None, feature_names, X=X)
    data, Xc = _prepare(subsets, X, None)
    threshold = _check_threshold(threshold, "threshold")
    if n_pairs is not None:
        n_pairs = _check_n_pairs(n_pairs)
    XT = standardized_columns(Xc)
    mu = _mean_offdiag_similarity(XT, threshold, n_pairs, np.random.default_rng(random_state))
    return _sechidis_value(data, XT, threshold, mu)
